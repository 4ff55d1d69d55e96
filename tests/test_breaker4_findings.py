"""Findings of the adversarial pass over the per-request and per-turn caches (incremental
requests, plain copies, memoised checks, the stream assembler, the direct tool hand-off): each
test reproduces what a careless user or a hostile model did, against the real SDKs over
``httpx2.MockTransport``, and compares what the vendor receives with what a fresh model sends."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.types import Message, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

httpx2 = pytest.importorskip("httpx2")


def _chat_answer(i: int, calls: list[tuple[str, str]] | None = None, text: str | None = None) -> dict[str, Any]:
    """A Chat Completions answer: tool calls ``(id, arguments JSON)`` of ``lookup``, or text."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": "lookup", "arguments": args}} for cid, args in calls
        ]
    return {
        "id": f"chatcmpl-{i}",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def _chat_model(answers: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    queue = list(answers)

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    model = toolwire.model(
        "openai-chat:gpt-4.1",
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


@toolwire.tool(name="lookup")
def _lookup(q: str) -> str:
    "Look a thing up."
    return "result"


def test_breaker4_an_argument_edited_in_place_to_an_equal_value_of_another_type_is_sent_as_edited() -> None:
    """A hook normalises an earlier call's argument in the history from ``1`` to ``True`` (the
    tool's parameter is a boolean): ``1 == True`` in Python, so a snapshot compared with ``==``
    says the message is unchanged and the request reuses the old encoding — the vendor gets
    ``"exact":1`` while the conversation holds ``True``. A fresh model sends ``true``."""
    earlier = ToolCall("call_0", "lookup", {"q": "a", "exact": 1})
    conversation = toolwire.Conversation(
        [
            Message("user", [TextPart("look a up")]),
            Message("assistant", [earlier]),
            Message("user", [ToolResult("call_0", "result")]),
            Message("assistant", [TextPart("done")]),
            Message("user", [TextPart("and b")]),
        ]
    )
    runs: list[Any] = []

    def normalise(run: Any) -> None:
        runs.append(run)
        if len(runs) == 2:  # the history was sent twice already
            earlier.arguments["exact"] = True

    model, sent = _chat_model(
        [
            _chat_answer(1, [("call_1", '{"q": "b"}')]),
            _chat_answer(2, [("call_2", '{"q": "c"}')]),
            _chat_answer(3, text="ok"),
        ]
    )
    toolwire.run_sync(model, conversation=conversation, tools=[_lookup], after_tool_call=normalise)
    assert json.loads(sent[1]["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"q": "a", "exact": 1}
    (call,) = sent[2]["messages"][1]["tool_calls"]
    assert '"exact":true' in call["function"]["arguments"].replace(" ", "")
    assert json.loads(call["function"]["arguments"]) == {"q": "a", "exact": True}


_ANSWERS = {
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 2},
    },
    "openai-chat": _chat_answer(1, text="ok"),
    "openai": {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 3,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 5,
        },
    },
    "gemini": {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-2.5-flash",
    },
}
_MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai-chat": "openai-chat:gpt-4.1",
    "openai": "openai:gpt-5",
    "gemini": "gemini:gemini-2.5-flash",
}


def _any_model(api: str) -> tuple[Any, list[dict[str, Any]]]:
    pytest.importorskip({"anthropic": "toolwire_anthropic", "gemini": "toolwire_gemini"}.get(api, "toolwire_openai"))
    sent: list[dict[str, Any]] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_ANSWERS[api])

    model = toolwire.model(
        _MODELS[api],
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


@pytest.mark.parametrize("api", list(_MODELS))
def test_breaker4_an_input_schema_with_a_non_string_key_is_sent_like_json_sends_it(api: str) -> None:
    """A careless schema built in code uses an int as a property name next to string ones. JSON
    sends it as ``"1"`` (every API's request is JSON); the Anthropic tools check sorted the keys
    to memoise on the schema's text and crashed with ``TypeError: '<' not supported between
    instances of 'int' and 'str'`` before anything was sent."""
    from toolwire.tools import Tool

    odd = Tool(
        "odd",
        "A tool whose schema was built in code.",
        {"type": "object", "properties": {"a": {"type": "string"}, 1: {"type": "string"}}},
        function=lambda **kw: "x",
    )
    model, sent = _any_model(api)
    result = toolwire.run_sync(model, "hi", tools=[odd])
    assert result.text == "ok"
    assert '"1": {"type": "string"}' in json.dumps(sent[0])


@pytest.mark.parametrize("api", list(_MODELS))
def test_breaker4_a_schema_value_fixed_in_place_to_an_equal_value_of_another_type_is_declared_as_fixed(
    api: str,
) -> None:
    """Between two runs the user fixes a boolean parameter's default in the tool's input schema
    from ``0`` to ``False``: ``0 == False``, so a memo compared with ``==`` keeps declaring
    ``"default": 0`` (a fresh model declares ``false``)."""
    from toolwire.tools import Tool

    flag = Tool(
        "flag",
        "Set a flag.",
        {"type": "object", "properties": {"on": {"type": "boolean", "default": 0}}},
        function=lambda **kw: "x",
    )
    model, sent = _any_model(api)
    toolwire.run_sync(model, "hi", tools=[flag])
    assert '"default": 0' in json.dumps(sent[0])
    flag.input_schema["properties"]["on"]["default"] = False
    toolwire.run_sync(model, "hi", tools=[flag])
    assert '"default": false' in json.dumps(sent[1])
