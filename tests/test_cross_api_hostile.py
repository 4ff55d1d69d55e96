"""Conversations with unusual but realistic content, run on one API over canned answers (the real
SDKs, ``httpx2.MockTransport``) and continued on the same or another API: every request sent is
checked by the API's profile (``validate_request``) and by the independent validator of
``tests/vendor_rules/validator``, and must not be refused by toolwire itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.testing.conversation_rules import validate_request

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
from all_apis.answers import APIS, MODELS, mock_model, text_answer  # noqa: E402
from vendor_rules.validator import validate  # noqa: E402


def chat_answer(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-x",
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": None, **message}}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def responses_answer(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-x",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    }


def gemini_answer(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"finishReason": "STOP", "index": 0, "content": {"role": "model", "parts": parts}}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-x",
    }


def call_answer(api: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One call of ``name`` as ``api`` answers it."""
    if api == "anthropic":
        body = text_answer(api, "")
        body["content"] = [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}]
        body["stop_reason"] = "tool_use"
        return body
    if api == "openai-chat":
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        return chat_answer({"tool_calls": [call]}, "tool_calls")
    if api == "openai":
        item = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": name,
            "arguments": json.dumps(arguments),
            "status": "completed",
        }
        return responses_answer([item])
    return gemini_answer([{"functionCall": {"name": name, "args": arguments}}])


def problems(api: str, body: dict[str, Any]) -> list[str]:
    return [f"profile: {v}" for v in validate_request(api, body)] + [f"validator: {v}" for v in validate(api, body)]


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny"


def wire_calls(api: str, body: dict[str, Any]) -> list[str]:
    """The names of the tool calls of the history in ``body``."""
    if api == "openai-chat":
        return [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls") or []]
    if api == "openai":
        return [it["name"] for it in body["input"] if it.get("type") == "function_call"]
    if api == "anthropic":
        return [
            b["name"]
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_use"
        ]
    return [p["functionCall"]["name"] for c in body["contents"] for p in c["parts"] if "functionCall" in p]


# -- a call of a name no tool has, which the API refuses, close to a declared tool's name ------------------------------

SWITCHES = [(s, t) for s in APIS for t in APIS]


@pytest.mark.parametrize("source,target", SWITCHES, ids=[f"{s}->{t}" for s, t in SWITCHES])
def test_a_hallucinated_call_name_close_to_a_declared_tool_is_sent_back_under_a_name_the_api_takes(
    source: str, target: str
) -> None:
    # The model called 'get weather' (a space, no tool has that name) while 'get_weather' is
    # declared: the call is answered with an error result, and the next request carries the call
    # under a name the API takes - but not 'get_weather', which would tell the model it called
    # that tool - instead of toolwire refusing its own request (OpenAI's rule: "Must be a-z, A-Z,
    # 0-9, or contain underscores and dashes", openai.types.shared_params.FunctionDefinition.name).
    first: list[dict[str, Any]] = []
    answers = [call_answer(source, "get weather", {"city": "Paris"}), text_answer(source, "sorry")]
    one = toolwire.run_sync(mock_model(source, answers, first), "Weather in Paris?", tools=[get_weather])
    assert one.text == "sorry"
    for body in first:
        assert problems(source, body) == []
    other: list[dict[str, Any]] = []
    model = mock_model(target, [text_answer(target, "ok")], other)
    two = toolwire.run_sync(model, "And now?", tools=[get_weather], conversation=one.conversation)
    assert two.text == "ok"
    (body,) = other
    assert problems(target, body) == []
    (name,) = wire_calls(target, body)
    assert name != "get_weather"
    if target.startswith("openai"):
        assert name.startswith("get_weather_") and len(name) <= 64


# -- an answer holding a block or item without a type -------------------------------------------------------------------


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def untyped_answer(api: str, untyped: dict[str, Any], stream: bool) -> Any:
    """An answer of ``api`` whose first block (Anthropic) or output item (Responses) is
    ``untyped``, followed by a call of get_weather(Paris), whole or as the API streams it."""
    if api == "anthropic":
        call = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
        body = text_answer(api, "")
        body["content"], body["stop_reason"] = [untyped, call], "tool_use"
        if not stream:
            return httpx2.Response(200, json=body)
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": {**body, "content": [], "stop_reason": None}}
        ]
        events.append({"type": "content_block_start", "index": 0, "content_block": untyped})
        events.append({"type": "content_block_stop", "index": 0})
        events.append({"type": "content_block_start", "index": 1, "content_block": {**call, "input": {}}})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}
        events.append({"type": "content_block_delta", "index": 1, "delta": delta})
        events.append({"type": "content_block_stop", "index": 1})
        events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2}})
        events.append({"type": "message_stop"})
    else:
        call = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "status": "completed",
        }
        body = responses_answer([untyped, call])
        if not stream:
            return httpx2.Response(200, json=body)
        events = [{"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}]
        for i, item in enumerate([untyped, call]):
            events.append({"type": "response.output_item.added", "output_index": i, "item": item})
            events.append({"type": "response.output_item.done", "output_index": i, "item": item})
        events.append({"type": "response.completed", "response": body})
        for k, e in enumerate(events):
            e["sequence_number"] = k
    return httpx2.Response(200, content=sse(events), headers={"content-type": "text/event-stream"})


UNTYPED = {"missing": {"id": "blk_1", "text": "x"}, "empty": {"type": "", "id": "blk_1", "text": "x"}}


@pytest.mark.parametrize("untyped", list(UNTYPED))
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_an_answer_block_without_a_type_is_never_sent_back(api: str, stream: bool, untyped: str) -> None:
    # Every Anthropic ContentBlockParam and every Responses ResponseInputItemParam is discriminated
    # by a literal `type`: a block or item without one, kept and sent back in the next request,
    # has the API refuse it. Anthropic: the answer is malformed (ResponseDecodeError, as for a
    # type that is not text); Responses: the item is left out (as an item with no type was).
    sent: list[dict[str, Any]] = []
    answers = [untyped_answer(api, UNTYPED[untyped], stream)]

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        if answers:
            return answers.pop(0)
        body = text_answer(api, "done")
        return httpx2.Response(200, json=body) if not stream else untyped_text(api, body)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = toolwire.model(f"{api}:{MODELS[api]}", api_key="k", max_retries=0, http_client=client, stream=stream)
    if api == "anthropic":
        with pytest.raises(toolwire.errors.ResponseDecodeError, match="has no type"):
            toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
        assert len(sent) == 1
        return
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert result.text == "done"
    first, second = sent
    assert problems(api, second) == []
    assert "blk_1" not in json.dumps(second)
    assert [it["type"] for it in second["input"] if "type" in it] == ["function_call", "function_call_output"]


def untyped_text(api: str, body: dict[str, Any]) -> Any:
    """The Responses text answer ``body``, streamed."""
    events = [{"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}]
    for i, item in enumerate(body["output"]):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": body})
    for k, e in enumerate(events):
        e["sequence_number"] = k
    return httpx2.Response(200, content=sse(events), headers={"content-type": "text/event-stream"})
