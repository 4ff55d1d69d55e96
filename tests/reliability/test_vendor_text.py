"""Text the vendors can take: a lone surrogate in an answer (a valid JSON escape that no UTF-8
request can carry) is repaired to U+FFFD when it is decoded, so the next request of the run
succeeds; a Gemini thought signature that is not base64 is refused when it arrives."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from reliability_wire import APIS, text_body, tool_body, tool_results_in

import toolwire
from toolwire.errors import ResponseDecodeError
from toolwire.tools import Tool

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

LONE = "\ud83d"  # the first half of 😀, alone


def sse(api: str, body: dict[str, Any]) -> bytes:
    """The streamed form of a one-text-part answer (JSON with ASCII escapes, so the lone
    surrogate travels as the escape ``\\ud83d``)."""
    text = (body.get("content") or [{}])[0].get("text") if api == "anthropic" else None
    if api == "anthropic":
        start = dict(body, content=[], stop_reason=None)
        evs = [
            {"type": "message_start", "message": start},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
            {"type": "message_stop"},
        ]
        return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in evs).encode()
    if api == "openai-chat":
        msg = body["choices"][0]["message"]
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-x",
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": msg["content"]}, "finish_reason": "stop"}
            ],
        }
        return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    if api == "openai":
        item = body["output"][0]
        evs = [
            {"type": "response.created", "sequence_number": 0, "response": dict(body, status="in_progress", output=[])},
            {"type": "response.output_item.done", "output_index": 0, "item": item, "sequence_number": 1},
            {"type": "response.completed", "response": body, "sequence_number": 2},
        ]
        return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in evs).encode()
    return f"data: {json.dumps(body)}\n\n".encode()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("api", APIS)
def test_a_lone_surrogate_in_an_answer_is_repaired_and_the_run_goes_on(api, stream):
    sent: list[bytes] = []
    seen: list[str] = []

    def echo(text: str) -> str:
        seen.append(text)
        return "echoed"

    tool = Tool.from_schema(
        "echo",
        "Echo text. Use when told to.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        echo,
    )

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content)
        body = json.loads(request.content)
        n = tool_results_in(api, body)
        if n == 0:  # a tool call whose argument holds a lone surrogate (never streamed here)
            return httpx2.Response(
                200,
                content=json.dumps(tool_body(api, [("c1", "echo", {"text": f"a{LONE}b"})])).encode(),
                headers={"content-type": "application/json"},
            )
        answer = text_body(api, f"done {LONE}!")
        if stream:
            return httpx2.Response(200, content=sse(api, answer), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, content=json.dumps(answer).encode(), headers={"content-type": "application/json"})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    m = toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, stream=stream)
    first = toolwire.run_sync(m, "go", tools=[tool])
    assert seen == ["a\ufffdb"]
    assert first.text == "done \ufffd!"
    again = toolwire.run_sync(
        m, "and again", tools=[tool], conversation=first.conversation
    )  # the history goes back out
    assert again.text == "done \ufffd!"
    assert len(sent) == 3 and all(b.decode("utf-8") for b in sent)
    first.to_json().encode("utf-8")


def _gemini(body: dict[str, Any], stream: bool = False) -> Any:
    def respond(request: httpx2.Request) -> httpx2.Response:
        if stream:
            return httpx2.Response(
                200, content=f"data: {json.dumps(body)}\n\n".encode(), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=body)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model("gemini:m-1", api_key="k", max_retries=0, http_client=client, stream=stream)


def _signed(sig: str, call: bool) -> dict[str, Any]:
    part = {"functionCall": {"name": "echo", "args": {"text": "x"}}} if call else {"text": "hi"}
    part["thoughtSignature"] = sig
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("call", [False, True], ids=["text-part", "call-part"])
@pytest.mark.parametrize("sig", ["not base64!", "a\u00e9b=", "abcde", "abc===="])
def test_a_gemini_thought_signature_that_is_not_base64_is_refused_on_decode(sig, call, stream):
    m = _gemini(_signed(sig, call), stream)
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(m, "go")
    assert info.value.pointer.endswith("/parts/0/thoughtSignature")
    assert "must be base64 text" in str(info.value)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("sig", ["CiQB0e2Kb0k3ZmVhZA==", "CiQB0e2Kb0k3ZmVhZA", "Ab-_cd"])
def test_a_base64_thought_signature_is_kept(sig, stream):
    m = _gemini(_signed(sig, False), stream)
    result = toolwire.run_sync(m, "go")
    assert result.text == "hi"
    assert json.dumps(result.conversation.to_dict()).count(sig) >= 1
