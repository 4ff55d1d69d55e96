"""Tool failures and non-repeatable writes: cases found by feeding the loop hostile tools (each
failed before its fix)."""

from __future__ import annotations

from typing import Any

import pytest

import toolwire
from toolwire.errors import ToolError
from toolwire.testing import ScriptedModel, call


class _NoText:
    def __str__(self) -> str:
        raise RuntimeError("no text")


def _run_raising(exc: BaseException) -> toolwire.RunResult:
    @toolwire.tool
    def bad(x: int) -> str:
        """Fail oddly."""
        raise exc

    @toolwire.tool
    def good(x: int) -> str:
        """Work."""
        return f"ok {x}"

    return toolwire.run_sync(
        ScriptedModel(responses=[[call("bad", {"x": 1}), call("good", {"x": 2})], "done"]),
        "go",
        tools=[bad, good],
    )


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ToolError(404), ["404"]),  # type: ignore[arg-type]
        (ToolError("no such page", hint=7), ["no such page", "7"]),  # type: ignore[arg-type]
        (ToolError("no such page", valid_values=["home", _NoText()]), ["no such page", "Valid values: home, "]),
        (ToolError(_NoText()), ["_NoText", "could not be read"]),  # type: ignore[arg-type]
    ],
)
def test_a_tool_error_with_fields_that_are_not_text_is_an_error_result_not_a_crash(
    exc: ToolError, expected: list[str]
) -> None:
    result = _run_raising(exc)
    assert result.text == "done"
    bad_run, good_run = result.tool_runs
    assert bad_run.result.is_error
    for piece in expected:
        assert piece in bad_run.result.text
    assert (good_run.result.is_error, good_run.result.text) == (False, "ok 2")


def test_a_system_exit_whose_str_raises_is_an_error_result_not_a_crash() -> None:
    class Odd(SystemExit):
        def __str__(self) -> str:
            raise RuntimeError("str boom")

    result = _run_raising(Odd(3))
    bad_run, good_run = result.tool_runs
    assert bad_run.result.is_error and "Odd" in bad_run.result.text and "could not be read" in bad_run.result.text
    assert good_run.result.text == "ok 2"


def test_a_tool_error_whose_render_raises_is_an_error_result_not_a_crash() -> None:
    class Broken(ToolError):
        def render(self) -> str:
            raise KeyError("render")

    result = _run_raising(Broken("the page is gone", hint="Call list_pages."))
    bad_run, _ = result.tool_runs
    assert bad_run.result.is_error and "the page is gone" in bad_run.result.text


def test_tool_error_render_gives_text_for_any_field() -> None:
    assert ToolError(404, hint=None, valid_values=[1, None]).render() == "404\nValid values: 1, None"  # type: ignore[arg-type]
    text = ToolError("m", hint=_NoText(), valid_values=[_NoText()]).render()  # type: ignore[arg-type]
    assert text.splitlines()[0] == "m" and "could not be read" in text


def test_a_deferred_decision_that_is_a_tool_error_with_a_number_message_is_an_error_result() -> None:
    @toolwire.tool
    def clip() -> str:
        """Read the clipboard (the client does it)."""
        return ""

    first = toolwire.run_sync(ScriptedModel(responses=[[call("clip", {})]]), "go", tools=[clip], deferred=["clip"])
    cid = first.state.pending[0].call.id
    result = toolwire.run_sync(
        ScriptedModel(responses=["ok"]),
        tools=[clip],
        deferred=["clip"],
        resume=first,
        decisions={cid: ToolError(404, hint="Ask the user to copy it again.")},  # type: ignore[arg-type]
    )
    (run,) = [r for r in result.tool_runs if r.call.id == cid]
    assert run.result.is_error and run.result.text.splitlines()[:2] == ["404", "Ask the user to copy it again."]


def _ticket_tools(made: list[str]) -> list[toolwire.Tool]:
    from toolwire.design.idempotent import non_repeatable

    @non_repeatable
    @toolwire.tool
    def create_ticket(title: str, priority: int = 1) -> str:
        """Open a support ticket. Call it once per problem the user reports.

        Args:
            title: One-line summary shown in the ticket list.
            priority: 1 (low) to 3 (high).
        """
        made.append(title)
        return f"ticket #{len(made)} opened"

    @toolwire.tool
    def refund(amount: int) -> str:
        """Refund the customer. Use it when the user asks for their money back.

        Args:
            amount: Euros to refund.
        """
        return f"refunded {amount}"

    return [create_ticket, refund]


@pytest.mark.parametrize("saved_as_json", [False, True])
def test_a_resumed_run_does_not_repeat_a_non_repeatable_write_of_its_earlier_turns(saved_as_json: bool) -> None:
    made: list[str] = []
    tools = _ticket_tools(made)
    model = ScriptedModel(
        responses=[
            [call("create_ticket", {"title": "Login fails"}, id="c1"), call("refund", {"amount": 5}, id="r1")],
            [call("create_ticket", {"title": "Login fails", "priority": 1.0}, id="c2")],
            [call("create_ticket", {"title": "Printer jams"}, id="c3")],
            "done",
        ]
    )
    first = toolwire.run_sync(model, "go", tools=tools, approval={"refund"})
    assert (first.stop_reason, made) == ("pending", ["Login fails"])
    saved: Any = toolwire.RunResult.from_json(first.to_json()) if saved_as_json else first
    done = toolwire.run_sync(
        model, tools=tools, approval={"refund"}, resume=saved, decisions={"r1": toolwire.Approved()}
    )
    assert done.text == "done" and done.run_id == first.run_id
    assert made == ["Login fails", "Printer jams"]  # the repeated call c2 did not open a second ticket
    (repeat,) = [r for r in done.tool_runs if r.call.id == "c2"]
    assert repeat.deduplicated and not repeat.result.is_error
    assert repeat.result.text.startswith("ticket #1 opened\n\nNote: an identical call to 'create_ticket'")
    assert "(tool call c1)" in repeat.result.text


def test_a_resumed_run_may_retry_a_non_repeatable_write_that_failed_earlier() -> None:
    made: list[str] = []
    tools = _ticket_tools(made)
    create = tools[0]
    original = create.function
    calls = {"n": 0}

    def flaky(title: str, priority: int = 1) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ToolError("the ticket service is down", retryable=True)
        return original(title, priority)  # type: ignore[misc]

    create.function = flaky
    model = ScriptedModel(
        responses=[
            [call("create_ticket", {"title": "Login fails"}, id="c1"), call("refund", {"amount": 5}, id="r1")],
            [call("create_ticket", {"title": "Login fails"}, id="c2")],
            "done",
        ]
    )
    first = toolwire.run_sync(model, "go", tools=tools, approval={"refund"})
    done = toolwire.run_sync(
        model, tools=tools, approval={"refund"}, resume=first, decisions={"r1": toolwire.Approved()}
    )
    assert made == ["Login fails"]
    (retry,) = [r for r in done.tool_runs if r.call.id == "c2"]
    assert not retry.deduplicated and retry.result.text == "ticket #1 opened"
