"""A scripted provider's function (``respond=`` or a callable item) that raises an ordinary
exception — the test author's own bug — ends the run with a typed ``ConfigurationError`` naming
the function and chaining the exception, with the partial run on ``exc.run_state``, as the
scripted provider's other script errors do; it escaped ``run_sync`` / ``run`` raw (no run state
reachable), and ``toolwire demo`` printed a traceback."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest

import toolwire
from toolwire import demo
from toolwire.cli import main
from toolwire.errors import ConfigurationError, ProviderError
from toolwire.testing import ScriptedModel, call


@toolwire.tool
def echo(text: str) -> str:
    """Return the text."""
    return text


def _price_of(request: Any) -> str:
    prices = {"apple": 3}
    return f"It costs {prices['pear']}."  # the test author's bug


def test_a_script_item_raising_mid_run_is_a_configuration_error_keeping_the_run() -> None:
    model = ScriptedModel(responses=[call("echo", {"text": "hi"}), _price_of])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "go", tools=[echo])
    exc = info.value
    assert str(exc) == (
        "scripted item 2, the function _price_of raised KeyError: 'pear' on request 2: fix the function (its "
        "exception is this error's __cause__), or raise a toolwire error such as ProviderError from it to test "
        "a failed request"
    )
    assert isinstance(exc.__cause__, KeyError) and exc.__cause__.args == ("pear",)
    state = exc.run_state
    assert state is not None
    assert (state.status, state.stop_reason) == ("failed", None)
    assert state.error == f"ConfigurationError: {exc}"
    # the first turn, its call run and answered, is kept: the conversation can be fixed and sent again
    assert [t.number for t in state.turns] == [1]
    assert [(r.call.name, r.result.content) for r in state.turns[0].tool_runs] == [("echo", "hi")]
    assert [m.role for m in state.conversation.messages] == ["user", "assistant", "user"]
    assert len(model.requests) == 2


def test_an_async_respond_function_raising_on_the_first_request_through_run() -> None:
    async def respond(request: Any) -> str:
        raise ValueError("no answer written for this prompt")

    model = ScriptedModel(respond=respond)
    with pytest.raises(ConfigurationError) as info:
        asyncio.run(toolwire.run(model, "go"))
    exc = info.value
    assert str(exc).startswith(
        "the respond function test_an_async_respond_function_raising_on_the_first_request_through_run.<locals>."
        "respond raised ValueError: no answer written for this prompt on request 1: fix the function"
    )
    assert isinstance(exc.__cause__, ValueError)
    assert exc.run_state is not None and exc.run_state.status == "failed"
    assert exc.run_state.turns == []
    assert [m.role for m in exc.run_state.conversation.messages] == ["user"]


def test_a_callable_without_a_name_is_named_by_its_repr_and_a_bare_exception_by_its_type() -> None:
    def answer(request: Any, word: str) -> str:
        raise RuntimeError

    model = ScriptedModel(respond=functools.partial(answer, word="x"))
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "go")
    assert "the respond function functools.partial(<function " in str(info.value)
    assert " raised RuntimeError on request 1: " in str(info.value)


def test_a_toolwire_error_raised_on_purpose_is_kept_as_raised() -> None:
    def overloaded(request: Any) -> str:
        raise ProviderError("scripted", "Overloaded", status=529, retryable=True)

    model = ScriptedModel(responses=[call("echo", {"text": "hi"}), overloaded])
    with pytest.raises(ProviderError) as info:
        toolwire.run_sync(model, "go", tools=[echo])
    assert (info.value.status, info.value.message) == (529, "Overloaded")
    assert info.value.run_state is not None and len(info.value.run_state.turns) == 1


def test_demo_whose_scripted_function_raises_exits_1_with_one_line(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(demo, "scripted_model", lambda: ScriptedModel(responses=[call("list_dir", {}), _price_of]))
    with pytest.raises(SystemExit) as info:
        main(["demo", "--workdir", str(tmp_path / "w")])
    err = capsys.readouterr().err
    assert info.value.code == 1  # after the first answer: a failure found while running
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "toolwire demo: scripted item 2, the function _price_of raised KeyError: 'pear' on request 2: fix the "
        "function (its exception is this error's __cause__), or raise a toolwire error such as ProviderError "
        "from it to test a failed request"
    ]
