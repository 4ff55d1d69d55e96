"""An error text that reaches the model is cut to 20,000 characters (its beginning, a line saying
how much was left out, its last 2,000 characters): a tool whose exception message held a whole
file went to the model whole, and the vendor then refused the request as too long."""

from __future__ import annotations

import json
from typing import Any, Literal

import httpx2

import toolwire
from toolwire.errors import ToolError, cap_error_text
from toolwire.testing import ScriptedModel, call


def _anthropic(answers: list[tuple[list[dict[str, Any]], str]]) -> tuple[Any, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        content, stop = answers[len(sent) - 1]
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{len(sent)}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )

    model = toolwire.model(
        "anthropic:claude-sonnet-4-5",
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


def test_a_huge_exception_message_is_cut_in_what_the_vendor_receives() -> None:
    @toolwire.tool
    def load(path: str) -> str:
        """Load a file."""
        raise ValueError("y" * 300_000)

    model, sent = _anthropic(
        [
            ([{"type": "tool_use", "id": "toolu_1", "name": "load", "input": {"path": "a"}}], "tool_use"),
            ([{"type": "text", "text": "it failed"}], "end_turn"),
        ]
    )
    result = toolwire.run_sync(model, "go", tools=[load])
    assert result.text == "it failed"
    # "ValueError: " + 300,000 characters is 300,012; the 67-character line leaves 17,933 for the
    # beginning, so 300,012 - 17,933 - 2,000 = 280,079 are left out
    expected = (
        ("ValueError: " + "y" * 17_921)
        + "\n[error text cut: 280,079 of its 300,012 characters left out here]\n"
        + "y" * 2_000
    )
    assert result.tool_runs[0].result.text == expected
    assert len(expected) == 20_000
    block = sent[1]["messages"][2]["content"][0]
    assert (block["type"], block["tool_use_id"], block["is_error"]) == ("tool_result", "toolu_1", True)
    assert block["content"] == expected


def test_a_tool_error_keeps_its_hint_when_its_message_is_cut() -> None:
    @toolwire.tool
    def fetch(url: str) -> str:
        """Fetch a page."""
        raise ToolError("the page said: " + "z" * 50_000, hint="Try the page's /summary URL instead.")

    result = toolwire.run_sync(ScriptedModel(responses=[[call("fetch", {"url": "u"})], "done"]), "go", tools=[fetch])
    text = result.tool_runs[0].result.text
    assert len(text) == 20_000
    assert text.startswith("the page said: zzz")
    assert "characters left out here]\n" in text
    assert text.endswith("zzz\nTry the page's /summary URL instead.")


def test_a_deferred_call_answered_with_a_huge_exception_is_cut() -> None:
    tool = toolwire.Tool(
        "read_clipboard",
        "Read the user's clipboard.",
        {"type": "object", "properties": {"fmt": {"type": "string"}}, "required": ["fmt"]},
        None,
    )
    model = ScriptedModel(responses=[[call("read_clipboard", {"fmt": "text"})], "done"])
    first = toolwire.run_sync(model, "go", tools=[tool], deferred=["read_clipboard"])
    assert first.state.status == "paused"
    (pending,) = first.state.pending
    done = toolwire.run_sync(
        model,
        tools=[tool],
        deferred=["read_clipboard"],
        resume=first.state,
        decisions={pending.call.id: RuntimeError("q" * 100_000)},
    )
    text = done.tool_runs[-1].result.text
    assert done.tool_runs[-1].result.is_error
    # 100,014 characters; the line sized for "100,014" leaves 17,933 for the beginning; 80,081 cut
    assert text == (
        "RuntimeError: "
        + "q" * 17_919
        + "\n[error text cut: 80,081 of its 100,014 characters left out here]\n"
        + "q" * 2_000
    )


def test_the_cap_leaves_short_texts_and_texts_cut_once_as_they_are() -> None:
    assert cap_error_text("x" * 20_000) == "x" * 20_000
    once = cap_error_text("x" * 20_001)
    # sized for a count of 6 characters ("20,001": a 65-character line), the beginning is 17,935
    # characters, and 20,001 - 17,935 - 2,000 = 66 are left out: 2 digits, 4 fewer than sized for
    assert once == "x" * 17_935 + "\n[error text cut: 66 of its 20,001 characters left out here]\n" + "x" * 2_000
    assert len(once) == 20_000 - 4
    assert cap_error_text(once) == once


def test_a_tool_error_keeps_its_hint_when_its_valid_values_are_long() -> None:
    """The hint sits between the message and the valid values: a long list of values used to fill
    the 2,000 characters kept from the end, and the hint (the next move) was cut out."""

    @toolwire.tool
    def pick(name: str) -> str:
        """Pick a record."""
        raise ToolError(
            "no record " + "n" * 30_000,
            hint="HINT: call list_records first.",
            valid_values=["v" * 1_000] * 50,
            retryable=False,
        )

    result = toolwire.run_sync(ScriptedModel(responses=[[call("pick", {"name": "a"})], "done"]), "go", tools=[pick])
    text = result.tool_runs[0].result.text
    assert len(text) <= 20_000
    assert text.startswith("no record nnn")
    assert "\nHINT: call list_records first.\nValid values: vvv" in text
    assert text.endswith("vvv\nRetrying the same call will fail again; change the arguments.")


def test_a_tool_error_with_a_huge_hint_keeps_the_hints_beginning_and_the_message() -> None:
    @toolwire.tool
    def pick(name: str) -> str:
        """Pick a record."""
        raise ToolError("no record named a", hint="Call list_records; " + "h" * 100_000, retryable=True)

    result = toolwire.run_sync(ScriptedModel(responses=[[call("pick", {"name": "a"})], "done"]), "go", tools=[pick])
    text = result.tool_runs[0].result.text
    assert len(text) <= 20_000
    assert text.startswith("no record named a\nCall list_records; hhh")
    assert text.endswith("hhh\nRetrying the same call may succeed.")


def test_invalid_arguments_echoing_a_huge_value_are_cut() -> None:
    """jsonschema's messages quote the value: a huge string sent for an enum or a number came back
    whole, once per problem, in the invalid-arguments result (600,000+ characters here)."""

    @toolwire.tool
    def paint(color: Literal["red", "green"], n: int = 1) -> str:
        """Paint."""
        return color

    model, sent = _anthropic(
        [
            (
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "paint",
                        "input": {"color": "x" * 300_000, "n": "y" * 300_000},
                    }
                ],
                "tool_use",
            ),
            ([{"type": "text", "text": "ok"}], "end_turn"),
        ]
    )
    result = toolwire.run_sync(model, "go", tools=[paint])
    text = result.tool_runs[0].result.text
    assert result.tool_runs[0].status == "invalid"
    assert len(text) <= 20_000
    # both problems are named, each with the end of its message (the allowed values, the type)
    assert "is not one of ['red', 'green'] (rule: enum)" in text
    assert "is not of type 'integer' (rule: type)" in text
    assert text.endswith("Fix the arguments to match the tool's input schema and call it again.")
    assert sent[1]["messages"][2]["content"][0]["content"] == text


def test_an_unknown_tool_with_a_huge_name_is_answered_with_a_cut_text() -> None:
    @toolwire.tool
    def paint(color: str) -> str:
        """Paint."""
        return color

    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("nosuch" * 50_000, {"color": "red"})], "done"]), "go", tools=[paint]
    )
    text = result.tool_runs[0].result.text
    assert result.tool_runs[0].result.is_error
    assert len(text) <= 20_000
    assert "paint" in text[-2_000:]
