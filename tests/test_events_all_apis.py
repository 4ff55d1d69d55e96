"""Events equal the result on all four APIs, through the real SDKs with only the network replaced
(httpx2.MockTransport): a turn with text and a tool call whose arguments arrive in pieces, then a
final text turn — streamed on the wire (SSE fixtures written here) and not streamed (JSON)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import events as ev

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import fold, fold_of_result, same_fold

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
TEXT1, TEXT2 = "Let me check the weather.", "It is sunny in Paris, 21 degrees."
ARGS = ['{"ci', 'ty": "Pa', 'ris"}']


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}")
        out.append("data: " + (data if isinstance(data, str) else json.dumps(data)))
        out.append("")
    return ("\n".join(out) + "\n").encode()


def _chunks(text: str, n: int = 6) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


def streamed(api: str, turn: int) -> bytes:
    text = TEXT1 if turn == 1 else TEXT2
    call = turn == 1
    if api == "anthropic":
        ev_: list[tuple[str | None, Any]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": f"msg_{turn}",
                        "type": "message",
                        "role": "assistant",
                        "model": "m-1",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10 * turn, "output_tokens": 1},
                    },
                },
            ),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
        ]
        ev_ += [
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": c}},
            )
            for c in _chunks(text)
        ]
        ev_.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        if call:
            ev_.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 1,
                        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
                    },
                )
            )
            ev_ += [
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 1,
                        "delta": {"type": "input_json_delta", "partial_json": a},
                    },
                )
                for a in ARGS
            ]
            ev_.append(("content_block_stop", {"type": "content_block_stop", "index": 1}))
        ev_.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use" if call else "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 7},
                },
            )
        )
        ev_.append(("message_stop", {"type": "message_stop"}))
        return _sse(ev_)
    if api == "openai-chat":
        head = {"id": f"c{turn}", "object": "chat.completion.chunk", "created": 1, "model": "m-1"}
        ev_ = [
            (
                None,
                {
                    **head,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                },
            )
        ]
        ev_ += [
            (None, {**head, "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]})
            for c in _chunks(text)
        ]
        if call:
            ev_.append(
                (
                    None,
                    {
                        **head,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {
                                    "tool_calls": [
                                        {
                                            "index": 0,
                                            "id": "call_1",
                                            "type": "function",
                                            "function": {"name": "get_weather", "arguments": ""},
                                        }
                                    ]
                                },
                                "finish_reason": None,
                            }
                        ],
                    },
                )
            )
            ev_ += [
                (
                    None,
                    {
                        **head,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]},
                                "finish_reason": None,
                            }
                        ],
                    },
                )
                for a in ARGS
            ]
        ev_.append(
            (None, {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if call else "stop"}]})
        )
        ev_.append(
            (
                None,
                {
                    **head,
                    "choices": [],
                    "usage": {"prompt_tokens": 10 * turn, "completion_tokens": 7, "total_tokens": 10 * turn + 7},
                },
            )
        )
        ev_.append((None, "[DONE]"))
        return _sse(ev_)
    if api == "openai":
        msg = {
            "type": "message",
            "id": f"msg_{turn}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        fc = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": "".join(ARGS),
            "status": "completed",
        }
        base = {"id": f"resp_{turn}", "object": "response", "created_at": 1, "model": "m-1"}
        ev_ = [
            (
                "response.created",
                {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}},
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**msg, "status": "in_progress", "content": []},
                },
            ),
        ]
        ev_ += [
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": msg["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": c,
                },
            )
            for c in _chunks(text)
        ]
        ev_.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": msg}))
        if call:
            ev_.append(
                (
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "output_index": 1,
                        "item": {**fc, "arguments": "", "status": "in_progress"},
                    },
                )
            )
            ev_ += [
                (
                    "response.function_call_arguments.delta",
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": "fc_1",
                        "output_index": 1,
                        "delta": a,
                    },
                )
                for a in ARGS
            ]
            ev_.append(
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": 1, "item": fc})
            )
        ev_.append(
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        **base,
                        "status": "completed",
                        "output": [msg, fc] if call else [msg],
                        "usage": {"input_tokens": 10 * turn, "output_tokens": 7, "total_tokens": 10 * turn + 7},
                    },
                },
            )
        )
        return _sse(ev_)
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": c}]}, "index": 0}]} for c in _chunks(text)
    ]
    last: dict[str, Any] = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": (
                        [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]
                        if call
                        else [{"text": ""}]
                    ),
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 10 * turn, "candidatesTokenCount": 7, "totalTokenCount": 10 * turn + 7},
    }
    return _sse([(None, c) for c in chunks] + [(None, last)])


def whole(api: str, turn: int) -> dict[str, Any]:
    text = TEXT1 if turn == 1 else TEXT2
    call = turn == 1
    args = "".join(ARGS)
    if api == "anthropic":
        content: list[Any] = [{"type": "text", "text": text}]
        if call:
            content.append({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": json.loads(args)})
        return {
            "id": f"msg_{turn}",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": content,
            "stop_reason": "tool_use" if call else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10 * turn, "output_tokens": 7},
        }
    if api == "openai-chat":
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if call:
            message["tool_calls"] = [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": args}}
            ]
        return {
            "id": f"c{turn}",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
            "usage": {"prompt_tokens": 10 * turn, "completion_tokens": 7, "total_tokens": 10 * turn + 7},
        }
    if api == "openai":
        output: list[Any] = [
            {
                "type": "message",
                "id": f"msg_{turn}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ]
        if call:
            output.append(
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": args,
                    "status": "completed",
                }
            )
        return {
            "id": f"resp_{turn}",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "completed",
            "output": output,
            "usage": {"input_tokens": 10 * turn, "output_tokens": 7, "total_tokens": 10 * turn + 7},
        }
    parts: list[Any] = [{"text": text}]
    if call:
        parts.append({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10 * turn, "candidatesTokenCount": 7, "totalTokenCount": 10 * turn + 7},
    }


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}, 21 degrees"


def _model(api: str, stream: bool) -> Any:
    turn = 0

    def respond(request: Any) -> Any:
        nonlocal turn
        turn += 1
        if stream:
            return httpx2.Response(200, content=streamed(api, turn), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=whole(api, turn))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, stream=stream)


def _comparable(result: Any) -> dict[str, Any]:
    d = result.to_dict()
    d.pop("run_id")
    for t in d["turns"]:
        for r in t["tool_runs"]:
            r["duration"] = 0.0
    return d


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("api", APIS)
def test_events_give_the_run_result(api: str, stream: bool):
    async def main() -> tuple[list[Any], Any, Any]:
        s = toolwire.run_stream(_model(api, stream), "Weather in Paris?", tools=[get_weather])
        events = [e async for e in s]
        plain = await toolwire.run(_model(api, stream), "Weather in Paris?", tools=[get_weather])
        return events, s.result, plain

    events, result, plain = asyncio.run(main())
    assert result.text == TEXT2 and [r.result.text for r in result.tool_runs] == ["sunny in Paris, 21 degrees"]
    same_fold(fold(events), fold_of_result(result))
    assert _comparable(result) == _comparable(plain)  # run() is the stream consumed
    deltas = [e.text for e in events if isinstance(e, ev.TextDelta) and e.turn == 1]
    args = [e.text for e in events if isinstance(e, ev.ToolCallArgumentsDelta)]
    if stream:
        assert deltas == _chunks(TEXT1)
        if api != "gemini":  # Gemini sends the arguments as one object, not as text
            assert args == ARGS
    else:
        assert deltas == [TEXT1]
    ready = [e for e in events if isinstance(e, ev.ToolCallReady)]
    assert len(ready) == 1 and ready[0].valid and ready[0].call.arguments == {"city": "Paris"}
    assert [e.usage.input_tokens for e in events if isinstance(e, ev.TurnFinished)] == [10, 20]
