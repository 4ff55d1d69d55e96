"""Gemini computer use and Anthropic's client-side tools answered by the loop, through the real
SDKs over ``httpx2.MockTransport``. Canned responses are validated against
``google.genai.types.GenerateContentResponse`` / ``anthropic.types.Message``; what toolwire sends
back against ``google.genai.types.Content`` (``FunctionResponse`` with its ``parts``) and the
expected values written here by hand from the vendor docs."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire import Approved, Denied, ProviderTool
from toolwire.errors import ConfigurationError

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
B64 = base64.b64encode(PNG).decode()


def make(spec: str, answers: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    queue = list(answers)

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    key = {"anthropic": "sk-ant-test", "gemini": "gemini-test-key"}[spec.partition(":")[0]]
    model = toolwire.model(
        spec, api_key=key, max_retries=0, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    )
    return model, sent


# -- Gemini computer use -----------------------------------------------------------------------------------------------


def gemini(parts: list[dict[str, Any]]) -> dict[str, Any]:
    from google.genai import types

    body = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-computer-use-preview-10-2025",
        "responseId": "r1",
    }
    types.GenerateContentResponse.model_validate(body)
    return body


SAFETY = {"decision": "require_confirmation", "explanation": "The page asks for a payment."}
CLICK = {"functionCall": {"name": "click_at", "args": {"x": 500, "y": 120}}}
TYPE = {
    "functionCall": {
        "name": "type_text_at",
        "args": {"x": 10, "y": 20, "text": "4111", "press_enter": True, "safety_decision": SAFETY},
    }
}


def test_gemini_computer_use_calls_are_answered_with_the_url_and_the_screenshot() -> None:
    from google.genai import types
    from toolwire_gemini import computer_use

    done: list[tuple[str, dict[str, Any]]] = []

    def act(name: str, args: dict[str, Any]) -> tuple[bytes, str]:
        done.append((name, args))
        return PNG, f"https://shop.example/{len(done)}"

    model, sent = make(
        "gemini:gemini-2.5-computer-use-preview-10-2025", [gemini([CLICK, TYPE]), gemini([{"text": "paid"}])]
    )
    tools = [computer_use(act)]
    paused = toolwire.run_sync(model, "Pay.", tools=tools)
    assert sent[0]["tools"] == [{"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}]
    assert done == [("click_at", {"x": 500, "y": 120})]  # the call asking for confirmation waits
    (pending,) = paused.pending
    assert (pending.call.name, pending.kind, pending.reason) == ("type_text_at", "approval", SAFETY["explanation"])
    result = toolwire.run_sync(model, tools=tools, resume=paused, decisions={pending.call.id: Approved()})
    assert result.text == "paid"
    # the user's function never sees safety_decision
    assert done[1] == ("type_text_at", {"x": 10, "y": 20, "text": "4111", "press_enter": True})
    answers = sent[1]["contents"][-1]
    shot = [{"inlineData": {"mimeType": "image/png", "data": B64}}]
    assert answers == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "click_at", "response": {"url": "https://shop.example/1"}, "parts": shot}},
            {
                "functionResponse": {
                    "name": "type_text_at",
                    "response": {"url": "https://shop.example/2", "safety_acknowledgement": "true"},
                    "parts": shot,
                }
            },
        ],
    }
    content = types.Content.model_validate(answers)
    assert content.parts[1].function_response.parts[0].inline_data.data == PNG


def test_a_denied_gemini_confirmation_is_an_error_response_without_acknowledgement() -> None:
    from toolwire_gemini import computer_use

    model, sent = make(
        "gemini:gemini-2.5-computer-use-preview-10-2025", [gemini([TYPE]), gemini([{"text": "stopped"}])]
    )
    tools = [computer_use(lambda name, args: PNG)]
    paused = toolwire.run_sync(model, "Pay.", tools=tools)
    toolwire.run_sync(model, tools=tools, resume=paused, decisions={paused.pending[0].call.id: Denied("no payments")})
    (part,) = sent[1]["contents"][-1]["parts"]
    response = part["functionResponse"]["response"]
    assert list(response) == ["error"] and "no payments" in response["error"]


def test_confirm_accepts_a_safety_decision_and_an_excluded_function_is_an_unknown_tool() -> None:
    from toolwire_gemini import computer_use

    nav = {"functionCall": {"name": "navigate", "args": {"url": "https://a.example"}}}
    model, sent = make(
        "gemini:gemini-2.5-computer-use-preview-10-2025", [gemini([TYPE, nav]), gemini([{"text": "ok"}])]
    )
    tool = computer_use(
        lambda name, args: (PNG, "https://a.example"),
        excluded_predefined_functions=["navigate"],
        confirm=lambda s: True,
    )
    result = toolwire.run_sync(model, "Go.", tools=[tool])
    assert sent[0]["tools"] == [
        {"computerUse": {"environment": "ENVIRONMENT_BROWSER", "excludedPredefinedFunctions": ["navigate"]}}
    ]
    assert [r.status for r in result.tool_runs] == ["ran", "invalid"]
    typed, navigated = sent[1]["contents"][-1]["parts"]
    assert typed["functionResponse"]["response"] == {"url": "https://a.example", "safety_acknowledgement": "true"}
    error = navigated["functionResponse"]["response"]["error"]
    assert error.startswith("Unknown tool 'navigate'.\nCall one of the available tools: click_at, ")
    listed = error.split("available tools: ")[1].rstrip(".").split(", ")
    assert "navigate" not in listed and "computerUse" not in listed and "type_text_at" in listed


def test_gemini_computer_use_without_a_function_is_refused_before_the_request() -> None:
    model, sent = make("gemini:gemini-2.5-flash", [gemini([{"text": "never"}])])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(
            model, "Go.", tools=[ProviderTool("gemini", "computerUse", {"environment": "ENVIRONMENT_BROWSER"})]
        )
    assert "toolwire_gemini.computer_use(function)" in str(info.value)
    assert sent == []


# -- Anthropic -----------------------------------------------------------------------------------------------------------


def anthropic(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    import anthropic.types as at

    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    at.Message.model_validate(body)
    return body


@pytest.mark.parametrize(
    "tool_type,settings,factory",
    [
        ("bash_20250124", None, "toolwire_anthropic.confined_bash(root)"),
        ("text_editor_20250728", None, "toolwire_anthropic.confined_text_editor(root)"),
        ("memory_20250818", None, "ProviderTool(..., function=...)"),
    ],
)
def test_anthropic_client_tools_without_a_function_are_refused_before_the_request(tool_type, settings, factory) -> None:
    model, sent = make("anthropic:claude-sonnet-4-5", [anthropic([{"type": "text", "text": "never"}])])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "Go.", tools=[ProviderTool("anthropic", tool_type, settings)])
    assert factory in str(info.value)
    assert sent == []


def test_a_deferred_client_tool_without_a_function_is_sent() -> None:
    tool = ProviderTool("anthropic", "bash_20250124")
    tool.meta["deferred"] = True
    model, sent = make("anthropic:claude-sonnet-4-5", [anthropic([{"type": "text", "text": "ok"}])])
    assert toolwire.run_sync(model, "Go.", tools=[tool]).text == "ok"
    assert sent[0]["tools"] == [{"type": "bash_20250124", "name": "bash"}]


def test_anthropic_computer_toolset_members_are_answered_with_the_screenshot_and_the_toolset_name() -> None:
    import anthropic.types as at
    from toolwire_anthropic import computer

    seen: list[tuple[str, dict[str, Any]]] = []

    def act(name: str, input: dict[str, Any]) -> bytes:
        seen.append((name, input))
        return PNG

    click = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "left_click",
        "input": {"coordinate": [5, 6]},
        "toolset_name": "computer",
        "caller": {"type": "direct"},
    }
    typed = {**click, "id": "toolu_2", "name": "type", "input": {"text": "hi"}}
    first = anthropic([click, typed], "tool_use")
    at.ComputerLeftClickToolUseBlock.model_validate(click)  # the SDK's types for the toolset's members
    at.ComputerTypeToolUseBlock.model_validate(typed)
    model, sent = make("anthropic:claude-sonnet-4-5", [first, anthropic([{"type": "text", "text": "done"}])])
    result = toolwire.run_sync(model, "Click and type.", tools=[computer(act)])
    assert result.text == "done"
    assert seen == [("left_click", {"coordinate": [5, 6]}), ("type", {"text": "hi"})]
    assert sent[0]["tools"] == [{"type": "computer_toolset_20260801"}]
    assistant, answers = sent[1]["messages"][1:]
    assert assistant["content"] == [click, typed]  # toolset_name and caller go back as received
    image = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}]
    assert answers["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": image, "toolset_name": "computer"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": image, "toolset_name": "computer"},
    ]


def test_lint_takes_the_computer_toolset_declaration_as_the_sdk_spells_it() -> None:
    """The toolset entry carries no name (ComputerToolset20260801Param): lint finds nothing wrong in it,
    and still names a misspelt field."""
    from toolwire_anthropic import computer

    prof = toolwire.registry.profile("anthropic")
    assert prof.provider_tool_problems("computer_toolset_20260801", computer(lambda n, i: PNG).settings) == []
    problems = prof.provider_tool_problems("computer_toolset_20260801", {"config": {}})
    assert len(problems) == 1 and problems[0].startswith("unknown field 'config'")


def test_an_async_confirm_is_awaited_a_decline_keeps_the_call_waiting() -> None:
    # an async confirm's coroutine was taken as true: the call ran and acknowledged the safety decision
    from toolwire_gemini import computer_use

    done: list[str] = []

    async def decline(safety: dict[str, Any]) -> bool:
        return False

    async def accept(safety: dict[str, Any]) -> bool:
        return safety == SAFETY

    model, sent = make("gemini:gemini-2.5-computer-use-preview-10-2025", [gemini([TYPE])])
    paused = toolwire.run_sync(model, "Pay.", tools=[computer_use(lambda n, a: done.append(n) or PNG, confirm=decline)])
    assert done == [] and [(p.call.name, p.reason) for p in paused.pending] == [("type_text_at", SAFETY["explanation"])]
    model, sent = make("gemini:gemini-2.5-computer-use-preview-10-2025", [gemini([TYPE]), gemini([{"text": "ok"}])])
    result = toolwire.run_sync(model, "Pay.", tools=[computer_use(lambda n, a: done.append(n) or PNG, confirm=accept)])
    assert result.text == "ok" and done == ["type_text_at"]
    assert sent[1]["contents"][-1]["parts"][0]["functionResponse"]["response"] == {"safety_acknowledgement": "true"}


def test_the_text_editor_counts_lines_in_the_singular_and_the_plural(tmp_path) -> None:
    # the model read "created one.txt (1 lines)" and "inserted 1 lines after line 0 of ..."
    from toolwire_anthropic import confined_text_editor

    ed = "str_replace_based_edit_tool"
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("a\nb\n")
    inputs = [  # (the calls of one turn may run at once: each on a file of its own)
        {"command": "create", "path": "one.txt", "file_text": "a\n"},
        {"command": "create", "path": "two.txt", "file_text": "a\nb\n"},
        {"command": "insert", "path": "a.txt", "insert_line": 0, "insert_text": "top"},
        {"command": "insert", "path": "b.txt", "insert_line": 2, "insert_text": "c\nd\n"},
    ]
    calls = [{"type": "tool_use", "id": f"toolu_{i}", "name": ed, "input": x} for i, x in enumerate(inputs)]
    model, sent = make(
        "anthropic:claude-sonnet-4-5", [anthropic(calls, "tool_use"), anthropic([{"type": "text", "text": "done"}])]
    )
    toolwire.run_sync(model, "Edit.", tools=[confined_text_editor(tmp_path)])
    results = [b for b in sent[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [(r["content"] if isinstance(r["content"], str) else r["content"][0]["text"]) for r in results] == [
        "created one.txt (1 line)",
        "created two.txt (2 lines)",
        "inserted 1 line after line 0 of a.txt",
        "inserted 2 lines after line 2 of b.txt",
    ]
    assert (tmp_path / "a.txt").read_text() == "top\na\n"
