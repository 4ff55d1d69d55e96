"""An imported Gemini history whose ``functionResponse.parts`` holds entries no canonical part
carries (a ``fileData`` reference to an uploaded file, an ``inlineData`` of a type toolwire does
not read): they go back to Gemini as they came, at their place among the decoded images, and
another API that leaves them out says so (``provider-tool.dropped``, lossy). They were dropped,
even on the way back to Gemini (``google.genai.types.FunctionResponsePart``: ``inline_data`` or
``file_data``)."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from toolwire.adapter import ModelRequest

PNG = base64.b64encode(
    bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
    + b"\x1f\x15\xc4\x89"
    + bytes.fromhex("0000000d49444154789c6300010000050001")
    + b"\x0d\x0a\x2d\xb4"
    + bytes.fromhex("0000000049454e44ae426082")
).decode()
FILE = {
    "fileData": {
        "mimeType": "application/pdf",
        "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc123",
    }
}
AUDIO = {"inlineData": {"mimeType": "audio/wav", "data": base64.b64encode(b"RIFF....WAVE").decode()}}


def _body(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "read the report"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "fetch_report", "args": {}, "id": "c1"}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "fetch_report",
                            "id": "c1",
                            "response": {"output": "here it is"},
                            "parts": parts,
                        }
                    }
                ],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "fetch_report", "description": "Fetch the report."}]}],
    }


@pytest.mark.parametrize(
    "parts",
    [
        [FILE],
        [{"inlineData": {"mimeType": "image/png", "data": PNG}}, FILE],
        [FILE, {"inlineData": {"mimeType": "image/png", "data": PNG}}, AUDIO],
    ],
    ids=["file", "image-then-file", "file-image-audio"],
)
def test_function_response_parts_go_back_to_gemini_as_they_came(parts: list[dict[str, Any]]) -> None:
    from toolwire_gemini import GeminiCodec

    codec = GeminiCodec()
    body = _body(copy.deepcopy(parts))
    request = codec.decode_request(body)
    sent = codec.encode_request(ModelRequest("gemini-2.5-flash", request.messages, tools=request.tools))
    (fr,) = [p["functionResponse"] for c in sent["contents"] for p in c["parts"] if "functionResponse" in p]
    assert fr["parts"] == parts
    assert fr["response"] == {"output": "here it is"}


@pytest.mark.parametrize("target", ["anthropic", "openai", "openai-chat"])
def test_another_api_reports_the_function_response_parts_it_leaves_out(target: str) -> None:
    from toolwire_gemini import GeminiCodec

    import toolwire

    request = GeminiCodec().decode_request(_body([{"inlineData": {"mimeType": "image/png", "data": PNG}}, FILE]))
    model = toolwire.model(f"{target}:m-1", api_key="k")
    req = model.build_request(request.messages, tools=request.tools)
    body, report = model._preflight(req)
    dropped = [c for c in report.changes if c.rule == "provider-tool.dropped"]
    assert len(dropped) == 1 and dropped[0].lossy
    assert "fileData" in dropped[0].detail and "fetch_report" in dropped[0].detail
    # the image still goes (every API takes an image in a tool result, or next to it)
    assert "iVBOR" in str(body)
