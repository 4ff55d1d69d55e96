"""Conformance over every real recording in ``shared/recordings/openai-chat/`` and
``openai-responses/`` (parametrized over the files found; skipped cleanly without them).

For every interaction:

1. the recorded request body is imported with ``decode_request`` and sent through the model
   (the real SDK, network replaced by ``httpx2.MockTransport`` replaying the recorded response);
   the body that goes out — ``encode_request(decode_request(body))`` — must equal the recorded
   body modulo :func:`normalise` (each rule cites the vendor's own default);
2. the decoded response must match ``expected.json``: the vendor stop reason, tool call ids
   (Responses: ``call_id``, the ``fc_`` item id in ``provider_data``), names, arguments, text,
   usage input/output and the raw cached/reasoning counts.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from toolwire_openai import OpenAIChatCodec, OpenAIChatModel, OpenAIResponsesCodec, OpenAIResponsesModel

from toolwire.testing.cassettes import load_cassette, recordings_dir

APIS = ("openai-chat", "openai-responses")


def _files() -> list[Any]:
    root = recordings_dir()
    if root is None:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="shared/recordings not found"))]
    out = []
    for api in APIS:
        for f in sorted((root / api).glob("*.yaml")):
            out.append(pytest.param(api, f, id=f"{api}/{f.name}"))
    return out or [pytest.param(None, None, marks=pytest.mark.skip(reason="no OpenAI recordings"))]


def _expected() -> dict[str, Any]:
    root = recordings_dir()
    path = root / "expected.json" if root else None
    return json.loads(path.read_text()) if path and path.exists() else {"files": {}}


def normalise(api: str, body: dict[str, Any]) -> dict[str, Any]:
    """The documented normalisation list (``docs/adapters/openai.md``, "Round trip"):

    1. ``stream: false`` is dropped — an absent ``stream`` means ``false`` on both APIs
       (Chat ``CompletionCreateParamsNonStreaming.stream: Optional[Literal[False]]``; Responses
       ``ResponseCreateParamsNonStreaming``), and toolwire always writes the key.
    2. Chat, streaming: ``stream_options: {"include_usage": true}`` is dropped when it is the
       only option — toolwire always asks for the final usage chunk (vendor-notes §2), and it
       changes nothing but that chunk.
    """
    body = copy.deepcopy(body)
    if body.get("stream") is False:
        body.pop("stream")
    if api == "openai-chat" and body.get("stream_options") == {"include_usage": True}:
        body.pop("stream_options")
    return body


def _replay_handler(interaction: Any, sent: list[dict[str, Any]]) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        ctype = "text/event-stream" if interaction.stream_format == "sse" else "application/json"
        return httpx2.Response(
            interaction.status, headers={"content-type": ctype}, text=interaction.response_text or ""
        )

    return handler


@pytest.mark.parametrize("api,path", _files())
def test_recording(api: str, path: Path) -> None:
    expected = _expected()["files"].get(f"{api}/{path.name}")
    wire_api = "openai" if api == "openai-responses" else api  # folder name -> provider name
    interactions = [i for i in load_cassette(path) if i.api == wire_api and i.request_json is not None]
    assert interactions, f"{path} has no {api} interactions"
    codec = OpenAIChatCodec() if api == "openai-chat" else OpenAIResponsesCodec()
    cls = OpenAIChatModel if api == "openai-chat" else OpenAIResponsesModel
    by_index = {r["interaction"]: r for r in (expected or {}).get("responses", [])}
    for inter in interactions:
        recorded = inter.request_json
        request = codec.decode_request(recorded)
        sent: list[dict[str, Any]] = []
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(_replay_handler(inter, sent)))
        model = cls(request.model, api_key="sk-test", http_client=client, max_retries=0)
        response = asyncio.run(model.send(request))

        # 1. round trip of the request body
        assert len(sent) == 1
        assert normalise(api, sent[0]) == normalise(api, recorded), f"interaction {inter.index}: request body differs"
        # and the pure codec gives the same body as the transport sent
        assert normalise(api, codec.encode_request(request)) == normalise(api, sent[0])

        # 2. the decoded response against expected.json
        exp = by_index.get(inter.index)
        if exp is None:
            continue
        assert response.vendor_stop_reason == exp["stop_reason"], f"interaction {inter.index}"
        calls = [c for c in response.tool_calls]
        assert [c.id for c in calls] == [t["id"] for t in exp["tool_calls"]]
        assert [c.name for c in calls] == [t["name"] for t in exp["tool_calls"]]
        assert [c.arguments for c in calls] == [t["arguments"] for t in exp["tool_calls"]]
        assert all(c.is_valid for c in calls)
        if api == "openai-responses":
            assert [c.provider_data["openai"].get("item_id") for c in calls] == [
                t.get("item_id") for t in exp["tool_calls"]
            ]
        assert (response.text or None) == exp["text"]
        usage = exp["usage"]
        assert response.usage.input_tokens == usage["input"]
        assert response.usage.output_tokens == usage["output"]
        raw = usage.get("raw") or {}
        if "cached_tokens" in raw:
            assert response.usage.cache_read_tokens == raw["cached_tokens"]
        if "reasoning_tokens" in raw:
            assert response.usage.reasoning_tokens == raw["reasoning_tokens"]
        assert response.response_id == exp["response_id"]
        assert response.model == exp["model"]
        if exp["tool_calls"]:
            assert response.stop_reason == "tool_use"
        thinking = exp.get("thinking") or {}
        if api == "openai-responses" and thinking.get("blocks"):
            reasoning = [p for p in response.parts if p.type == "reasoning"]
            assert len(reasoning) == thinking["blocks"]
            assert sum(1 for p in reasoning if p.encrypted) == thinking.get("encrypted", 0)
