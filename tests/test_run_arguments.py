"""A misspelt keyword of run / run_sync / run_stream_sync is named with the nearest valid one, and
a reused worker thread carries the name of the tool it runs now."""

from __future__ import annotations

import asyncio
import threading

import pytest

import toolwire
from toolwire.testing import ScriptedModel, call


def test_a_misspelt_keyword_names_the_function_called_and_the_nearest_valid_keyword():
    model = ScriptedModel(responses=["done"])
    with pytest.raises(TypeError) as info:
        toolwire.run_sync(model, "go", tool=[], max_turn=3)
    text = str(info.value)
    assert text.startswith("run_sync() got unexpected keyword arguments")
    assert "'tool' (did you mean 'tools'?)" in text and "'max_turn' (did you mean 'max_turns'?)" in text
    assert "run_stream()" not in text
    with pytest.raises(TypeError, match=r"^run\(\) got unexpected keyword argument 'toolz' \(did you mean 'tools'\?\)"):
        asyncio.run(toolwire.run(model, "go", toolz=[]))
    with pytest.raises(TypeError, match=r"^run_stream_sync\(\) got unexpected keyword argument 'zzz'\. It takes"):
        toolwire.run_stream_sync(model, "go", zzz=1)


def test_every_keyword_run_stream_takes_is_accepted_by_run_sync():
    from toolwire.loop import _RUN_PARAMETERS

    assert {"tools", "max_turns", "instructions", "limits", "on_turn", "resume", "tracing"} <= _RUN_PARAMETERS
    r = toolwire.run_sync(ScriptedModel(responses=["done"]), "go", tools=[], max_turns=2, instructions="be brief")
    assert r.text == "done"


def test_a_reused_worker_thread_is_named_after_the_function_it_runs_now():
    import time

    from toolwire.tools import _DaemonWorkers

    workers = _DaemonWorkers()
    seen: list[str] = []
    done = threading.Event()

    def job() -> None:
        seen.append(threading.current_thread().name)
        done.set()

    workers.submit(job, "toolwire-tool-get_weather")
    assert done.wait(30)
    deadline = time.monotonic() + 30
    while workers._idle == 0 and time.monotonic() < deadline:  # the thread goes idle after its job
        time.sleep(0.001)
    assert workers._idle == 1
    done.clear()
    workers.submit(job, "toolwire-tool-add")  # taken by the idle thread, not a new one
    assert done.wait(30)
    assert seen == ["toolwire-tool-get_weather", "toolwire-tool-add"]


def get_weather(city: str) -> str:
    """The weather."""
    return f"sunny in {city} ({threading.current_thread().name})"


def add(a: int, b: int) -> str:
    """Adds."""
    return f"{a + b} ({threading.current_thread().name})"


def test_each_tool_call_reports_its_own_function_in_the_thread_name():
    script = [[call("get_weather", {"city": "Oslo"}, id="c1")], [call("add", {"a": 1, "b": 2}, id="c2")], "done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[get_weather, add])
    assert [t.result.text for t in r.tool_runs] == [
        "sunny in Oslo (toolwire-tool-get_weather)",
        "3 (toolwire-tool-add)",
    ]


def test_the_tool_decorator_names_an_unknown_keyword_and_says_where_meta_goes() -> None:
    # docs/approval.md: "`@toolwire.tool` takes no `meta=` argument: set it on the tool it returns".
    # Python's own error said only "tool() got an unexpected keyword argument 'meta'".
    def transfer(to: str) -> str:
        """Send money."""
        return to

    with pytest.raises(TypeError) as info:
        toolwire.tool(meta={"requires_approval": True})(transfer)  # type: ignore[call-overload]
    text = str(info.value)
    assert text.startswith("tool() got unexpected keyword argument 'meta'")
    assert "set it on the tool it returns" in text and '.meta["requires_approval"] = True' in text
    with pytest.raises(
        TypeError, match=r"^tool\(\) got unexpected keyword argument 'timout' \(did you mean 'timeout'\?\)"
    ):
        toolwire.tool(transfer, timout=5)  # type: ignore[call-overload]
    with pytest.raises(
        TypeError, match=r"It takes the function and the keywords: blocking, description, name, strict, timeout"
    ):
        toolwire.tool(zzz=1)  # type: ignore[call-overload]
