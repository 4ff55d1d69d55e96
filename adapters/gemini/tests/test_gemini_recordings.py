"""Conformance over every real recording in ``shared/recordings/gemini/`` (skipped when absent).

For each recorded response:

1. codec level: the recorded response (JSON body, SSE ``data`` chunks, or the chunks of a JSON-array
   ``streamGenerateContent`` body) decodes to what ``expected.json`` says: vendor ``finishReason``,
   call ids where the vendor sent one (and a synthesised id exactly where it did not), names,
   arguments, text, usage, model, response id, thought-signature counts;
2. through the SDK: ``GeminiModel`` sends the imported request through google-genai with a
   ``MockTransport`` that replays the recorded response (a JSON-array stream is re-framed as SSE,
   since the SDK only parses ``alt=sse``), and decodes the same ``Response``;
3. round trip: ``encode_request(decode_request(body))`` equals the recorded body after
   :func:`normalise` (documented in ``docs/adapters/gemini.md``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from toolwire_gemini import GeminiCodec, GeminiModel

from toolwire.stream import assemble
from toolwire.testing.cassettes import Interaction, load_cassette, recordings_dir
from toolwire.testing.conversation_rules import validate_request
from toolwire.types import ReasoningPart, Response, TextPart, ToolCall


def _files() -> list[Any]:
    root = recordings_dir()
    folder = root / "gemini" if root else None
    if folder is None or not folder.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared/recordings/gemini not found"))]
    files = sorted(folder.glob("*.yaml"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no gemini recordings"))]
    return [pytest.param(f, id=f.name) for f in files]


def _expected(path: Path) -> list[dict[str, Any]]:
    root = recordings_dir()
    assert root is not None
    data = json.loads((root / "expected.json").read_text())
    return data["files"][f"gemini/{path.name}"]["responses"]


def _model_id(uri: str) -> str:
    return uri.split("/models/")[1].split(":")[0]


# ------------------------------------------------------------------ the documented normalisation

_STRUCTURAL = {
    "function_call",
    "function_response",
    "inline_data",
    "file_data",
    "thought_signature",
    "mime_type",
    "file_uri",
    "will_continue",
    "executable_code",
    "code_execution_result",
    "video_metadata",
}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _camel_keys(d: Any, nested: tuple[str, ...] = ()) -> Any:
    if not isinstance(d, dict):
        return d
    out = {}
    for k, v in d.items():
        ck = _camel(k) if "_" in k else k
        out[ck] = _camel_keys(v, nested) if ck in nested and isinstance(v, dict) else v
    return out


def normalise(body: dict[str, Any]) -> dict[str, Any]:
    """The recorded request as toolwire writes it. One rule: snake_case structural field names are
    written in camelCase (``function_call`` → ``functionCall``, ``system_instruction`` →
    ``systemInstruction``, …). Proto3 JSON mapping: parsers accept the lowerCamelCase JSON name
    and the original field name alike, so both spellings are the same request to the API.
    User data (``args``, ``response`` objects, schemas, declarations) is never rewritten."""
    out = _camel_keys(body)
    contents = []
    for c in out.get("contents", []):
        c = dict(c)
        parts = []
        for p in c.get("parts", []):
            p = {(_camel(k) if k in _STRUCTURAL else k): v for k, v in p.items()}
            for key in ("functionResponse", "inlineData", "fileData"):
                if isinstance(p.get(key), dict):
                    p[key] = {(_camel(k) if k in _STRUCTURAL else k): v for k, v in p[key].items()}
            parts.append(p)
        c["parts"] = parts
        contents.append(c)
    out["contents"] = contents
    if isinstance(out.get("generationConfig"), dict):
        out["generationConfig"] = _camel_keys(out["generationConfig"], ("thinkingConfig",))
    if isinstance(out.get("toolConfig"), dict):
        out["toolConfig"] = _camel_keys(out["toolConfig"], ("functionCallingConfig",))
    if isinstance(out.get("tools"), list):
        out["tools"] = [_camel_keys(t) for t in out["tools"]]
    return out


# ------------------------------------------------------------------ comparison with expected.json


def _decode(codec: GeminiCodec, it: Interaction) -> Response:
    request = codec.decode_request(it.request_json)
    request.model = _model_id(it.uri)
    if it.stream_format:
        return assemble(codec.decode_stream(it.stream_chunks, request), "gemini")
    return codec.decode_response(it.response_json, request)


def _check(resp: Response, exp: dict[str, Any]) -> None:
    assert resp.vendor_stop_reason == exp["stop_reason"]
    assert resp.stop_reason == (
        "tool_use"
        if exp["tool_calls"] and exp["stop_reason"] == "STOP"
        else {"STOP": "end_turn", "MAX_TOKENS": "max_tokens"}.get(exp["stop_reason"], resp.stop_reason)
    )
    got = [
        {"id": None if c.id_synthesized else c.id, "name": c.name, "arguments": c.arguments} for c in resp.tool_calls
    ]
    assert got == exp["tool_calls"]
    for call in resp.tool_calls:
        assert call.is_valid
        if call.id_synthesized:
            assert call.id.startswith(f"gemini-{exp['response_id']}-")
    assert len({c.id for c in resp.tool_calls}) == len(resp.tool_calls)
    assert (resp.text or None) == exp["text"]
    raw = exp["usage"]["raw"]
    assert resp.usage.input_tokens == exp["usage"]["input"] == raw.get("promptTokenCount")
    # expected.json's "output" is candidatesTokenCount; toolwire's output_tokens adds the thoughts (billed as output)
    assert resp.usage.output_tokens == exp["usage"]["output"] + (raw.get("thoughtsTokenCount") or 0)
    assert resp.usage.reasoning_tokens == raw.get("thoughtsTokenCount")
    assert resp.usage.cache_read_tokens == raw.get("cachedContentTokenCount")
    assert resp.model == exp["model"] and resp.response_id == exp["response_id"]
    sigs = [p.signature for p in resp.parts if isinstance(p, ReasoningPart) and p.signature]
    sigs += [
        (p.provider_data.get("gemini") or {}).get("thoughtSignature")
        for p in resp.parts
        if isinstance(p, (TextPart, ToolCall))
    ]
    on_calls = [(c.provider_data.get("gemini") or {}).get("thoughtSignature") for c in resp.tool_calls]
    blocks = sum(1 for p in resp.parts if isinstance(p, ReasoningPart))
    counts = {
        "blocks": blocks,
        "signatures": sum(1 for s in sigs if s),
        "signature_on_function_call": sum(1 for s in on_calls if s),
    }
    assert (counts if any(counts.values()) else None) == exp["thinking"]


@pytest.mark.parametrize("path", _files())
def test_recorded_responses_decode_as_expected(path: Path) -> None:
    codec = GeminiCodec()
    interactions = load_cassette(path)
    expected = _expected(path)
    assert len(expected) == len(interactions)
    for it, exp in zip(interactions, expected):
        assert it.index == exp["interaction"] and it.stream_format == exp["stream_format"]
        _check(_decode(codec, it), exp)


@pytest.mark.parametrize("path", _files())
def test_recorded_requests_round_trip(path: Path) -> None:
    codec = GeminiCodec()
    for it, exp in zip(load_cassette(path), _expected(path)):
        body = it.request_json
        request = codec.decode_request(body)
        assert [t.name for t in request.tools] == exp["request"]["tools"]
        results = [r for m in request.messages for r in m.tool_results]
        assert [(r.name, r.tool_call_id if not r.tool_call_id.startswith("gemini-") else None) for r in results] == [
            (x["name"], x["id"]) for x in exp["request"]["tool_results"]
        ]
        encoded = codec.encode_request(request)
        assert encoded == normalise(body)
        assert validate_request("gemini", encoded) == []


def _replay_response(it: Interaction) -> httpx2.Response:
    if it.stream_format == "json-array":
        text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in it.stream_chunks)
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)
    ctype = "text/event-stream" if it.stream_format == "sse" else "application/json"
    return httpx2.Response(it.status, headers={"content-type": ctype}, text=it.response_text or "")


@pytest.mark.parametrize("path", _files())
def test_recordings_through_the_sdk(path: Path) -> None:
    codec = GeminiCodec()
    for it in load_cassette(path):
        sent: list[httpx2.Request] = []

        def handler(request: httpx2.Request, it: Interaction = it) -> httpx2.Response:
            sent.append(request)
            return _replay_response(it)

        model_id = _model_id(it.uri)
        model = GeminiModel(
            model_id,
            api_key="test-key",
            max_retries=0,
            stream=bool(it.stream_format),
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        )
        request = codec.decode_request(it.request_json)
        request.model = model_id
        request.stream = bool(it.stream_format)
        resp = asyncio.run(model.send(request))
        assert resp.to_dict() == _decode(codec, it).to_dict()
        assert len(sent) == 1
        assert json.loads(sent[0].content) == normalise(it.request_json)
        expected_path = it.uri.split("googleapis.com")[1]
        if it.stream_format == "json-array":
            expected_path += "?alt=sse"
        assert str(sent[0].url).split("googleapis.com")[1] == expected_path
