"""The speed caches give the same answers as no cache, and notice every change they key on.

No timing here (performance is measured in ``benchmarks/``): each test checks a cached value
against the value computed afresh, or that a change to the function / schema / environment /
registered secret is seen on the next use.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import threading
from typing import Any

import pytest

import toolwire
from toolwire import _derived, registry, secrets
from toolwire.schema.validate import validate_arguments
from toolwire.testing import ScriptedModel, call
from toolwire.tools import Tool


def _fn_v1(q: str, n: int = 1) -> str:
    """Look something up.

    Args:
        q: What to look up.
        n: How many results.
    """
    return f"{q} {n}"


# -- entry points ------------------------------------------------------------------------------


def test_entry_points_are_read_once_and_again_after_clear_caches():
    first = registry._entry_points()
    assert registry._entry_points() is first  # not rescanned
    assert "anthropic" in first and "openai-chat" in first
    registry.clear_caches()
    again = registry._entry_points()
    assert again is not first and sorted(again) == sorted(first)


def test_a_new_sys_path_entry_rescans_the_entry_points(monkeypatch, tmp_path):
    first = registry._entry_points()
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry._entry_points() is not first


# -- plain functions ---------------------------------------------------------------------------


def test_the_tool_of_a_plain_function_is_built_once_and_equals_an_uncached_build():
    cached = _derived.tool_for_function(_fn_v1)
    assert _derived.tool_for_function(_fn_v1) is cached
    fresh = Tool.from_function(_fn_v1)
    assert (cached.name, cached.description, cached.input_schema, cached.returns) == (
        fresh.name,
        fresh.description,
        fresh.input_schema,
        fresh.returns,
    )


def test_a_changed_function_is_noticed():
    def f(q: str, n: int = 1) -> str:
        """First text."""
        return q

    t1 = _derived.tool_for_function(f)
    assert t1.input_schema["properties"]["n"]["default"] == 1 and t1.description == "First text."

    f.__defaults__ = (5,)
    t2 = _derived.tool_for_function(f)
    assert t2 is not t1 and t2.input_schema["properties"]["n"]["default"] == 5

    f.__doc__ = "Second text."
    t3 = _derived.tool_for_function(f)
    assert t3.description == "Second text."

    f.__annotations__["n"] = float
    t4 = _derived.tool_for_function(f)
    assert t4.input_schema["properties"]["n"]["type"] == "number"

    def f(q: str, limit: int = 1) -> str:
        """Second text."""
        return q

    t5 = _derived.tool_for_function(f)
    assert sorted(t5.input_schema["properties"]) == ["limit", "q"]


def test_a_run_with_a_redefined_plain_function_sends_the_new_schema():
    seen: list[dict[str, Any]] = []

    def respond(request):
        seen.append(request.tools[0].input_schema)
        return "done"

    def lookup(q: str) -> str:
        """Look up."""
        return q

    toolwire.run_sync(ScriptedModel(respond=respond), "go", tools=[lookup])

    def lookup(q: str, n: int = 2) -> str:
        """Look up."""
        return q

    toolwire.run_sync(ScriptedModel(respond=respond), "go", tools=[lookup])
    assert sorted(seen[0]["properties"]) == ["q"]
    assert sorted(seen[1]["properties"]) == ["n", "q"]


def test_callables_that_are_not_plain_functions_are_not_cached():
    class Lookup:
        def __call__(self, q: str) -> str:
            """Look up."""
            return q

    obj = Lookup()
    assert _derived.function_fingerprint(obj) is None
    assert _derived.function_fingerprint(obj.__call__) is None
    assert _derived.tool_for_function(obj.__call__) is not _derived.tool_for_function(obj.__call__)


def test_function_info_follows_a_new_signature():
    def f(a: int) -> int:
        return a

    assert _derived.function_info(f).parameters == {"a"}
    f.__signature__ = __import__("inspect").signature(lambda a, b: None)  # type: ignore[attr-defined]
    assert _derived.function_info(f).parameters == {"a", "b"}


# -- schemas -----------------------------------------------------------------------------------


def test_a_schema_changed_in_place_is_validated_by_its_new_contents():
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    assert validate_arguments(schema, {"x": "a"}) == []
    assert validate_arguments(schema, {"x": 1}) != []
    schema["properties"]["x"]["type"] = "integer"  # in place: same object, new contents
    assert validate_arguments(schema, {"x": 1}) == []
    assert validate_arguments(schema, {"x": "a"}) != []


def test_schema_bounds_are_checked_for_every_schema_not_only_the_first(monkeypatch):
    from toolwire.errors import SchemaBoundExceeded
    from toolwire.schema import validate

    monkeypatch.setattr(validate, "MAX_SCHEMA_NODES", 10)
    small = {"type": "object", "properties": {"x": {"type": "string"}}}
    assert validate_arguments(small, {"x": "a"}) == []
    small["properties"].update({f"p{i}": {"type": "string"} for i in range(10)})
    with pytest.raises(SchemaBoundExceeded):
        validate_arguments(small, {"x": "a"})


# -- the secret scrubber -----------------------------------------------------------------------


def test_known_secrets_see_a_variable_set_after_the_last_scan(monkeypatch):
    before = secrets.known_secrets()
    monkeypatch.setenv("PERF_TEST_API_KEY", "sk-perf-0123456789")
    after = secrets.known_secrets()
    assert "sk-perf-0123456789" in after and "sk-perf-0123456789" not in before
    assert secrets.scrub("key sk-perf-0123456789 here") == "key [REDACTED] here"
    monkeypatch.delenv("PERF_TEST_API_KEY")
    assert "sk-perf-0123456789" not in secrets.known_secrets()


def test_known_secrets_see_registered_and_unregistered_values():
    value = "registered-perf-secret-42"
    assert value not in secrets.known_secrets()
    secrets.register(value)
    try:
        assert value in secrets.known_secrets()
        assert secrets.scrub(f"x {value} y") == "x [REDACTED] y"
    finally:
        secrets.unregister(value)
    assert value not in secrets.known_secrets()
    assert secrets.known_secrets() == secrets.known_secrets(dict(os.environ))  # cached == a fresh scan


# -- models resolved from a string -------------------------------------------------------------


def test_a_model_string_is_resolved_once_per_event_loop(monkeypatch):
    async def twice() -> tuple[Any, Any]:
        return registry.model_for_run("anthropic:claude-x"), registry.model_for_run("anthropic:claude-x")

    a, b = asyncio.run(twice())
    assert a is b and a.name == "anthropic:claude-x"
    c, _ = asyncio.run(twice())
    assert c is not a  # another event loop: its own model (and SDK client)

    async def env_changes() -> tuple[Any, Any]:
        first = registry.model_for_run("anthropic:claude-x")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        return first, registry.model_for_run("anthropic:claude-x")

    d, e = asyncio.run(env_changes())
    assert d is not e


def test_offline_models_and_model_objects_are_never_shared():
    async def go() -> None:
        assert registry.model_for_run("test") is not registry.model_for_run("test")
        m = toolwire.model("anthropic:claude-x")
        assert registry.model_for_run(m) is m
        spec = {"model": "anthropic:claude-x", "settings": {"max_tokens": 10}}
        assert registry.model_for_run(spec) is registry.model_for_run(dict(spec))
        other = {"model": "anthropic:claude-x", "settings": {"max_tokens": 11}}
        assert registry.model_for_run(other) is not registry.model_for_run(spec)
        assert registry.model_for_run(other).settings["max_tokens"] == 11

    asyncio.run(go())
    assert registry.model_for_run("anthropic:claude-x") is not registry.model_for_run("anthropic:claude-x")  # no loop


# -- the sync facade ---------------------------------------------------------------------------


def _script() -> ScriptedModel:
    return ScriptedModel(responses=[call("lookup", {"q": "a"}), "done"])


def lookup(q: str) -> str:
    """Look up."""
    return f"found {q} on {threading.current_thread().name}"


def test_run_sync_from_many_threads_at_once():
    results: dict[int, str] = {}
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            r = toolwire.run_sync(
                ScriptedModel(responses=[call("lookup", {"q": str(i)}), f"done {i}"]), "go", tools=[lookup]
            )
            results[i] = r.text + "|" + r.tool_runs[0].result.text.split(" on ")[0]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert results == {i: f"done {i}|found {i}" for i in range(8)}


def test_run_sync_inside_a_running_event_loop_works():
    async def main() -> str:
        return toolwire.run_sync(_script(), "go", tools=[lookup]).text

    assert asyncio.run(main()) == "done"


def test_run_sync_nested_in_a_callback_of_a_sync_run():
    inner: list[str] = []

    def on_turn(turn: Any) -> None:  # runs on the facade's loop thread
        if not inner:
            inner.append(toolwire.run_sync(ScriptedModel(responses=["inner done"]), "go").text)

    outer = toolwire.run_sync(_script(), "go", tools=[lookup], on_turn=on_turn)
    assert outer.text == "done" and inner == ["inner done"]


def test_run_sync_passes_the_callers_context_variables():
    var: contextvars.ContextVar[str] = contextvars.ContextVar("perf_var", default="unset")

    def read(q: str) -> str:
        """Read the variable."""
        return var.get()

    async def aread(q: str) -> str:
        """Read the variable."""
        return var.get()

    token = var.set("from the caller")
    try:
        for fn in (read, aread):
            r = toolwire.run_sync(ScriptedModel(responses=[call(fn.__name__, {"q": "a"}), "done"]), "go", tools=[fn])
            assert r.tool_runs[0].result.text == "from the caller"
    finally:
        var.reset(token)


def test_keyboard_interrupt_inside_a_run_reaches_the_caller_and_the_facade_keeps_working():
    async def boom(q: str) -> str:
        """Raises."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        toolwire.run_sync(ScriptedModel(responses=[call("boom", {"q": "a"}), "done"]), "go", tools=[boom])
    assert toolwire.run_sync(_script(), "go", tools=[lookup]).text == "done"


def test_errors_of_a_run_are_raised_by_run_sync():
    with pytest.raises(toolwire.MaxTurnsExceeded) as info:
        toolwire.run_sync(ScriptedModel(responses=[call("lookup", {"q": "a"})]), "go", tools=[lookup], max_turns=1)
    assert info.value.result.stop_reason == "max_turns"
    with pytest.raises(toolwire.ConfigurationError):
        toolwire.run_sync(_script(), "go", tools=[lookup], max_turns=0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_run_sync_works_in_a_forked_child():
    assert toolwire.run_sync(_script(), "go", tools=[lookup]).text == "done"  # the parent's loop thread exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's loop thread is not here
        code = 1
        try:
            r = toolwire.run_sync(_script(), "go", tools=[lookup])
            os.write(write, r.text.encode())
            code = 0
        except BaseException as exc:  # pragma: no cover - reported through the pipe
            os.write(write, repr(exc).encode())
        finally:
            os._exit(code)
    os.close(write)
    import select
    import signal
    import time

    chunks: list[bytes] = []
    deadline = time.monotonic() + 120  # generous: a loaded machine; never a hang
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(read, 1024)
        if not chunk:
            break
        chunks.append(chunk)
    else:  # pragma: no cover - the child is stuck: stop it and fail
        os.kill(pid, signal.SIGKILL)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert b"".join(chunks) == b"done"
    assert os.waitstatus_to_exitcode(status) == 0
    assert toolwire.run_sync(_script(), "go", tools=[lookup]).text == "done"  # the parent still works


# -- sync tool threads -------------------------------------------------------------------------


def test_sync_tools_of_one_response_still_run_at_the_same_time():
    barrier = threading.Barrier(3, timeout=60)

    def wait(i: int) -> str:
        """Waits for the others."""
        barrier.wait()  # only passes when all three calls run at once
        return f"ok {i}"

    calls = [call("wait", {"i": i}, id=f"c{i}") for i in range(3)]
    r = toolwire.run_sync(ScriptedModel(responses=[calls, "done"]), "go", tools=[wait])
    assert sorted(t.result.text for t in r.tool_runs) == ["ok 0", "ok 1", "ok 2"]


def test_a_worker_thread_survives_a_tool_that_exits():
    def leave(q: str) -> str:
        """Exits."""
        sys.exit(3)

    r = toolwire.run_sync(ScriptedModel(responses=[call("leave", {"q": "a"}), "done"]), "go", tools=[leave])
    assert r.tool_runs[0].result.is_error and "SystemExit" in r.tool_runs[0].result.text
    assert toolwire.run_sync(_script(), "go", tools=[lookup]).text == "done"
