"""Switching provider, the orders and turns the other switching tests leave out: a conversation
run on one API over canned answers (through the real SDKs, ``httpx2.MockTransport``, whole and
streamed), continued on another, and back.

- **Back to the first API after a detour** (and a save to JSON): the first API's reasoning goes
  back to it as it came - Anthropic thinking signatures and redacted data (on a model that checks
  each block's prefix, every block's prefix is what the request that produced it sent), OpenAI
  encrypted reasoning, Gemini thought signatures - while the detour's request carries none of it.
- **A switch in the middle of a tool loop**: calls waiting for approval on one API, denied and
  answered on another (with thinking on).
- **Answers that are not a plain text or call turn**: a refusal, an empty answer, an answer cut off
  by the token limit (text, a call, only reasoning), continued on another API.

Every request is checked by the API's profile (``validate_request``) and by the independent
validator of ``tests/vendor_rules/validator`` (written from the vendors' documents, not from
the profiles).
"""

from __future__ import annotations

import base64
import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Denied
from toolwire.testing.conversation_rules import validate_request
from toolwire.types import Conversation

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
from vendor_rules.validator import validate  # noqa: E402

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
REASONING_APIS = ["anthropic", "openai", "gemini"]
#: models with reasoning on: Anthropic's checks each thinking block's prefix (preserved thinking)
MODELS = {
    "anthropic": ("claude-fable-5-1", {"thinking": {"type": "adaptive"}, "max_tokens": 4096}),
    "openai-chat": ("gpt-4.1", {}),
    "openai": ("gpt-5", {"thinking": {"effort": "low"}}),
    "gemini": ("gemini-3-pro-preview", {"thinking": {"effort": "low"}}),
}
MANUAL_THINKING = {"anthropic": ("claude-sonnet-4-5", {"thinking": {"type": "enabled", "budget_tokens": 1024}})}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# -- canned answers in each API's wire format ---------------------------------------------------------------------------


def anthropic_message(content: list[dict[str, Any]], stop: str, n: int) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 9},
    }


def chat_completion(message: dict[str, Any], finish: str, n: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-x",
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": None, **message}}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def response(output: list[dict[str, Any]], n: int, status: str = "completed", reason: str | None = None) -> Any:
    body: dict[str, Any] = {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1,
        "model": "gpt-x",
        "status": status,
        "output": output,
        "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    }
    if reason:
        body["incomplete_details"] = {"reason": reason}
    return body


def generated(parts: list[dict[str, Any]] | None, finish: str = "STOP") -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-x",
    }


def message_item(text: str, n: int, status: str = "completed", refusal: bool = False) -> dict[str, Any]:
    content = (
        {"type": "refusal", "refusal": text} if refusal else {"type": "output_text", "text": text, "annotations": []}
    )
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": status, "content": [content]}


def text_answer(api: str, text: str, n: int) -> dict[str, Any]:
    if api == "anthropic":
        return anthropic_message([{"type": "text", "text": text}], "end_turn", n)
    if api == "openai-chat":
        return chat_completion({"content": text}, "stop", n)
    if api == "openai":
        return response([message_item(text, n)], n)
    return generated([{"text": text}])


#: The opaque reasoning material of answer ``n`` of each API (unique per answer).
def secrets(api: str, n: int) -> list[str]:
    return {
        "anthropic": [b64(f"anthropic-signature-{n}"), b64(f"anthropic-redacted-{n}")],
        "openai-chat": [],
        "openai": [b64(f"openai-encrypted-{n}")],
        "gemini": [b64(f"gemini-signature-{n}")],
    }[api]


def call_answer(api: str, n: int) -> dict[str, Any]:
    """Answer ``n`` of ``api``: its reasoning (with unique opaque material), a text and two
    parallel calls of ``get_weather`` (Paris, Atlantis: the second one fails)."""
    calls = [("Paris", 0), ("Atlantis", 1)]
    if api == "anthropic":
        sig, red = secrets(api, n)
        content = [
            {"type": "thinking", "thinking": "Two cities.", "signature": sig},
            {"type": "redacted_thinking", "data": red},
            {"type": "text", "text": f"Checking {n}."},
        ]
        content += [
            {"type": "tool_use", "id": f"toolu_{n}{i}", "name": "get_weather", "input": {"city": c}} for c, i in calls
        ]
        return anthropic_message(content, "tool_use", n)
    if api == "openai-chat":
        tool_calls = [
            {
                "id": f"call_{n}{i}",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": c})},
            }
            for c, i in calls
        ]
        return chat_completion({"content": f"Checking {n}.", "tool_calls": tool_calls}, "tool_calls", n)
    if api == "openai":
        (enc,) = secrets(api, n)
        output = [
            {
                "type": "reasoning",
                "id": f"rs_{n}",
                "summary": [{"type": "summary_text", "text": "Two cities."}],
                "encrypted_content": enc,
            },
            message_item(f"Checking {n}.", n),
        ]
        output += [
            {
                "type": "function_call",
                "id": f"fc_{n}{i}",
                "call_id": f"call_{n}{i}",
                "name": "get_weather",
                "arguments": json.dumps({"city": c}),
                "status": "completed",
            }
            for c, i in calls
        ]
        return response(output, n)
    (sig,) = secrets(api, n)
    parts: list[dict[str, Any]] = [{"text": "Two cities.", "thought": True}, {"text": f"Checking {n}."}]
    parts.append({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": sig})
    parts.append({"functionCall": {"name": "get_weather", "args": {"city": "Atlantis"}}})
    return generated(parts)


def unusual_answer(api: str, kind: str, n: int) -> dict[str, Any]:
    """A refusal, an empty answer, or an answer cut off by the token limit in its text, in a call,
    or while still reasoning, each as ``api`` sends it."""
    if kind == "refusal":
        return {
            "anthropic": anthropic_message([{"type": "text", "text": "I can't help with that."}], "refusal", n),
            "openai-chat": chat_completion({"refusal": "I can't help with that."}, "stop", n),
            "openai": response([message_item("I can't help with that.", n, refusal=True)], n),
            "gemini": generated(None, "SAFETY"),
        }[api]
    if kind == "empty":
        return {
            "anthropic": anthropic_message([], "end_turn", n),
            "openai-chat": chat_completion({"content": ""}, "stop", n),
            "openai": response([], n),
            "gemini": generated([{"text": ""}]),
        }[api]
    if kind == "cut-text":
        return {
            "anthropic": anthropic_message([{"type": "text", "text": "The answer is "}], "max_tokens", n),
            "openai-chat": chat_completion({"content": "The answer is "}, "length", n),
            "openai": response([message_item("The answer is ", n, "incomplete")], n, "incomplete", "max_output_tokens"),
            "gemini": generated(
                [{"text": "The answer is ", "thoughtSignature": b64(f"gemini-signature-{n}")}], "MAX_TOKENS"
            ),
        }[api]
    if kind == "cut-call":
        return {
            "anthropic": anthropic_message(
                [
                    {"type": "text", "text": "Calling."},
                    {"type": "tool_use", "id": f"toolu_cut{n}", "name": "get_weather", "input": {}},
                ],
                "max_tokens",
                n,
            ),
            "openai-chat": chat_completion(
                {
                    "content": "Calling.",
                    "tool_calls": [
                        {
                            "id": f"call_cut{n}",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"ci'},
                        }
                    ],
                },
                "length",
                n,
            ),
            "openai": response(
                [
                    message_item("Calling.", n),
                    {
                        "type": "function_call",
                        "id": f"fc_cut{n}",
                        "call_id": f"call_cut{n}",
                        "name": "get_weather",
                        "arguments": '{"ci',
                        "status": "incomplete",
                    },
                ],
                n,
                "incomplete",
                "max_output_tokens",
            ),
            "gemini": generated([{"text": "Calling."}], "MAX_TOKENS"),
        }[api]
    # cut off while reasoning: only reasoning came
    return {
        "anthropic": anthropic_message(
            [{"type": "thinking", "thinking": "Long.", "signature": b64(f"anthropic-signature-{n}")}], "max_tokens", n
        ),
        "openai-chat": chat_completion({"content": ""}, "length", n),
        "openai": response(
            [{"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": b64(f"openai-encrypted-{n}")}],
            n,
            "incomplete",
            "max_output_tokens",
        ),
        "gemini": generated([{"text": "Long.", "thought": True}], "MAX_TOKENS"),
    }[api]


# -- the streamed form of an answer -------------------------------------------------------------------------------------


def sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    return "".join((f"event: {e['type']}\n" if named else "") + f"data: {json.dumps(e)}\n\n" for e in events).encode()


def streamed(api: str, body: dict[str, Any]) -> bytes:
    """``body`` as ``api`` streams it (Anthropic and Responses SSE events, Chat chunks, Gemini
    one part per chunk)."""
    if api == "anthropic":
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": {**body, "content": [], "stop_reason": None}}
        ]
        for i, b in enumerate(body["content"]):
            if b["type"] == "text":
                events.append(
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
                )
                events.append(
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}}
                )
            elif b["type"] == "thinking":
                start = {"type": "thinking", "thinking": "", "signature": ""}
                events.append({"type": "content_block_start", "index": i, "content_block": start})
                delta = {"type": "thinking_delta", "thinking": b["thinking"]}
                events.append({"type": "content_block_delta", "index": i, "delta": delta})
                delta = {"type": "signature_delta", "signature": b["signature"]}
                events.append({"type": "content_block_delta", "index": i, "delta": delta})
            elif b["type"] == "tool_use":
                events.append({"type": "content_block_start", "index": i, "content_block": {**b, "input": {}}})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
                events.append({"type": "content_block_delta", "index": i, "delta": delta})
            else:
                events.append({"type": "content_block_start", "index": i, "content_block": b})
            events.append({"type": "content_block_stop", "index": i})
        delta = {"stop_reason": body["stop_reason"], "stop_sequence": None}
        events += [{"type": "message_delta", "delta": delta, "usage": {"output_tokens": 9}}, {"type": "message_stop"}]
        return sse(events)
    if api == "openai-chat":
        choice = body["choices"][0]
        msg = choice["message"]
        head = {"id": body["id"], "object": "chat.completion.chunk", "created": 1, "model": "gpt-x"}
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        for key in ("content", "refusal"):
            if msg.get(key):
                deltas.append({key: msg[key]})
        for i, tc in enumerate(msg.get("tool_calls") or []):
            fn = tc["function"]
            deltas.append(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": tc["id"],
                            "type": "function",
                            "function": {"name": fn["name"], "arguments": ""},
                        }
                    ]
                }
            )
            deltas.append({"tool_calls": [{"index": i, "function": {"arguments": fn["arguments"]}}]})
        chunks = [{**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
        chunks.append({**head, "choices": [], "usage": body["usage"]})
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"
    if api == "openai":
        events = [{"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}]
        for i, item in enumerate(body["output"]):
            added = copy.deepcopy(item)
            if item["type"] == "message":
                added["content"] = []
            elif item["type"] == "function_call":
                added["arguments"] = ""
            elif item["type"] == "reasoning":
                added.pop("encrypted_content", None)
                added["summary"] = []
            events.append({"type": "response.output_item.added", "output_index": i, "item": added})
            if item["type"] == "function_call":
                events.append(
                    {
                        "type": "response.function_call_arguments.delta",
                        "output_index": i,
                        "item_id": item["id"],
                        "delta": item["arguments"],
                    }
                )
            events.append({"type": "response.output_item.done", "output_index": i, "item": item})
        final = "response.completed" if body["status"] == "completed" else "response.incomplete"
        events.append({"type": final, "response": body})
        for k, e in enumerate(events):
            e["sequence_number"] = k
        return sse(events)
    candidate = body["candidates"][0]
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}], "modelVersion": "gemini-x"}
        for p in (candidate.get("content") or {}).get("parts") or []
    ]
    chunks.append(
        {
            "candidates": [{"finishReason": candidate["finishReason"], "index": 0}],
            "usageMetadata": body["usageMetadata"],
            "modelVersion": "gemini-x",
        }
    )
    return sse(chunks, named=False)


# -- running ------------------------------------------------------------------------------------------------------------


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    if city == "Atlantis":
        raise ValueError("city not found")
    return f"{city}: sunny"


class Vendor:
    """A model of ``api`` over a mock transport answering ``answers`` in turn; ``sent`` holds
    each request body as the SDK sent it."""

    def __init__(self, api: str, answers: list[dict[str, Any]], stream: bool = False, thinking: str = "on") -> None:
        self.api, self.answers = api, list(answers)
        self.sent: list[dict[str, Any]] = []
        self.given = list(answers)
        model_id, settings = MANUAL_THINKING[api] if thinking == "manual" and api in MANUAL_THINKING else MODELS[api]

        def respond(request: Any) -> Any:
            self.sent.append(json.loads(request.content))
            body = self.answers.pop(0)
            if stream:
                return httpx2.Response(200, content=streamed(api, body), headers={"content-type": "text/event-stream"})
            return httpx2.Response(200, json=body)

        client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
        self.model = toolwire.model(
            f"{api}:{model_id}", api_key="k", max_retries=0, http_client=client, stream=stream, **settings
        )


def problems(api: str, body: dict[str, Any]) -> list[str]:
    """What the API's profile and the independent validator find wrong with ``body``."""
    return [f"profile: {v}" for v in validate_request(api, body)] + [f"validator: {v}" for v in validate(api, body)]


def thinking_prefixes(exchanges: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    """For every Anthropic thinking block sent back, where the messages before it differ from the
    messages of the request whose answer produced it (preserved thinking: "If the prefix differs
    from what you sent when the block was produced, that block and every later thinking block are
    invalid", https://platform.claude.com/docs/en/build-with-claude/preserved-thinking)."""
    produced: dict[str, dict[str, Any]] = {}
    found = []
    for body, answer in exchanges:
        for mi, msg in enumerate(body["messages"]):
            for block in msg["content"] if isinstance(msg["content"], list) else []:
                if block.get("type") != "thinking":
                    continue
                origin = produced.get(block["signature"])
                if origin is None:
                    found.append(f"messages.{mi}: a thinking block no earlier answer produced")
                elif body["messages"][:mi] != origin["messages"] or body.get("system") != origin.get("system"):
                    found.append(f"messages.{mi}: the prefix of the block differs from the request that produced it")
        for block in answer.get("content", []):
            if block.get("type") == "thinking":
                produced.setdefault(block["signature"], body)
    return found


DETOURS = [(s, d) for s in REASONING_APIS for d in APIS if d != s]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("source,detour", DETOURS, ids=[f"{s}->{d}->{s}" for s, d in DETOURS])
def test_back_to_the_first_api_after_a_detour_its_reasoning_goes_back(source: str, detour: str, stream: bool) -> None:
    first = Vendor(source, [call_answer(source, 1), text_answer(source, "done 1", 2)], stream)
    one = toolwire.run_sync(first.model, "Weather in Paris and Atlantis?", tools=[get_weather])
    away = Vendor(detour, [call_answer(detour, 3), text_answer(detour, "done 3", 4)], stream)
    two = toolwire.run_sync(away.model, "And again?", tools=[get_weather], conversation=one.conversation)
    saved = Conversation.from_json(two.conversation.to_json())
    back = Vendor(source, [call_answer(source, 5), text_answer(source, "done 5", 6)], stream)
    three = toolwire.run_sync(back.model, "Once more?", tools=[get_weather], conversation=saved)
    assert three.text == "done 5"
    for vendor in (first, away, back):
        for body in vendor.sent:
            assert problems(vendor.api, body) == []
    # the detour carried none of the first API's reasoning, and said so
    for body in away.sent:
        assert not any(s in json.dumps(body) for s in secrets(source, 1))
    dropped = [c.pointer for c in two.turns[0].response.preflight if c.rule == "reasoning.dropped"]
    assert dropped[0] == "/messages/1/parts/0"
    # back on the first API: its reasoning of the first run goes back, in every request
    for body in back.sent:
        text = json.dumps(body)
        assert all(s in text for s in secrets(source, 1)), (source, text[:2000])
        assert not any(s in text for s in secrets(detour, 3))
    report = three.turns[0].response.preflight
    lossy = [(c.rule, c.pointer) for c in (report or []) if c.lossy]
    assert ("reasoning.dropped", "/messages/1/parts/0") not in lossy  # the first API's own reasoning is kept
    if source == "anthropic":
        exchanges = list(zip(first.sent + back.sent, first.given + back.given))
        assert thinking_prefixes(exchanges) == []


SWITCHES = [(s, t) for s in APIS for t in APIS if s != t]


@pytest.mark.parametrize("thinking", ["on", "manual"])
@pytest.mark.parametrize("source,target", SWITCHES, ids=[f"{s}->{t}" for s, t in SWITCHES])
def test_calls_waiting_for_approval_denied_and_answered_on_another_api(source: str, target: str, thinking: str) -> None:
    first = Vendor(source, [call_answer(source, 1)])
    paused = toolwire.run_sync(first.model, "Weather?", tools=[get_weather], approval=True)
    assert paused.stop_reason == "pending" and len(paused.pending) == 2
    state = toolwire.RunResult.from_json(paused.to_json())
    other = Vendor(target, [text_answer(target, "understood", 2)], thinking=thinking)
    decisions = {p.call.id: Denied("not today") for p in state.pending}
    done = toolwire.run_sync(other.model, tools=[get_weather], resume=state, decisions=decisions)
    assert done.text == "understood"
    (body,) = other.sent
    assert problems(target, body) == []
    text = json.dumps(body)
    assert text.count("not today") == 2  # each call answered with the denial
    assert not any(s in text for s in secrets(source, 1))
    if target == "anthropic" and thinking == "manual":
        # the calls being answered are another API's: manual thinking cannot go with them (no
        # thinking block starts that turn), so the request goes without it, and says so
        assert "thinking" not in body
        rules = [c.rule for c in done.turns[-1].response.preflight]
        assert "anthropic.conversation.thinking-in-tool-loop" in rules


KINDS = ["refusal", "empty", "cut-text", "cut-call", "cut-reasoning"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("source,target", SWITCHES, ids=[f"{s}->{t}" for s, t in SWITCHES])
def test_an_unusual_answer_continued_on_another_api(source: str, target: str, stream: bool, kind: str) -> None:
    first = Vendor(source, [unusual_answer(source, kind, 1), text_answer(source, "after", 2)], stream)
    try:
        one = toolwire.run_sync(first.model, "Question?", tools=[get_weather])
        conversation = one.conversation
    except toolwire.ToolwireError as exc:  # an answer that ends the run (a refusal may)
        state = getattr(exc, "run_state", None) or getattr(exc, "result", None)
        assert state is not None, exc
        conversation = state.conversation
    for body in first.sent:
        assert problems(source, body) == []
    other = Vendor(target, [text_answer(target, "ok", 3)], stream)
    result = toolwire.run_sync(other.model, "Next question?", tools=[get_weather], conversation=conversation)
    assert result.text == "ok"
    (body,) = other.sent
    assert problems(target, body) == []
    text = json.dumps(body)
    assert "Question?" in text and "Next question?" in text
    assert not any(s in text for s in secrets(source, 1))
    words = {"refusal": "I can't help with that.", "cut-text": "The answer is", "cut-call": "Calling."}
    if kind in words and not (source == "gemini" and kind == "refusal"):
        assert words[kind] in text  # what the model wrote before it stopped is kept
