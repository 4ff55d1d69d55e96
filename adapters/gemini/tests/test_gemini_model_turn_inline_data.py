"""An imported Gemini history whose model turn holds ``inlineData`` that is not an image (a PDF,
audio, plain text the model produced or a client put there): it is kept whole for Gemini as the
same part of a response is, not read as an image with a PDF's or audio's media type — which
another API would then send as an image block of a type it refuses. Another API leaves it out and
says so (``provider-tool.dropped``, lossy); an image stays an image."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from toolwire.adapter import ModelRequest
from toolwire.types import ImagePart, ProviderToolPart

PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF").decode()
PNG = base64.b64encode(
    bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
    + b"\x1f\x15\xc4\x89"
    + bytes.fromhex("0000000d49444154789c6300010000050001")
    + b"\x0d\x0a\x2d\xb4"
    + bytes.fromhex("0000000049454e44ae426082")
).decode()

NOT_IMAGES = [
    {"inlineData": {"mimeType": "application/pdf", "data": PDF}},
    {"inlineData": {"mimeType": "audio/wav", "data": base64.b64encode(b"RIFF\x00\x00\x00\x00WAVEfmt ").decode()}},
    {"inlineData": {"mimeType": "text/plain", "data": base64.b64encode(b"the summary").decode()}},
]


def _body(part: dict[str, Any]) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "make the report"}]},
            {"role": "model", "parts": [{"text": "here:"}, part]},
            {"role": "user", "parts": [{"text": "thanks, now shorter"}]},
        ]
    }


@pytest.mark.parametrize("part", NOT_IMAGES, ids=["pdf", "audio", "text"])
def test_model_turn_inline_data_that_is_no_image_is_kept_whole(part: dict[str, Any]) -> None:
    from toolwire_gemini import GeminiCodec

    codec = GeminiCodec()
    request = codec.decode_request(_body(copy.deepcopy(part)))
    kept = request.messages[1].parts[1]
    assert isinstance(kept, ProviderToolPart)
    assert kept.raw == part and kept.vendor_type == "inlineData" and kept.provider == "gemini"
    assert part["inlineData"]["mimeType"] in kept.summary
    sent = codec.encode_request(ModelRequest("gemini-2.5-flash", request.messages))
    assert sent["contents"][1] == {"role": "model", "parts": [{"text": "here:"}, part]}


def test_model_turn_image_is_still_an_image() -> None:
    from toolwire_gemini import GeminiCodec

    part = {"inlineData": {"mimeType": "image/png", "data": PNG}}
    request = GeminiCodec().decode_request(_body(copy.deepcopy(part)))
    image = request.messages[1].parts[1]
    assert isinstance(image, ImagePart) and image.media_type == "image/png"
    assert image.base64 == PNG


@pytest.mark.parametrize("target", ["anthropic", "openai", "openai-chat"])
@pytest.mark.parametrize("part", NOT_IMAGES, ids=["pdf", "audio", "text"])
def test_another_api_reports_the_part_it_leaves_out(target: str, part: dict[str, Any]) -> None:
    from toolwire_gemini import GeminiCodec

    import toolwire

    request = GeminiCodec().decode_request(_body(copy.deepcopy(part)))
    model = toolwire.model(f"{target}:m-1", api_key="k")
    body, report = model._preflight(model.build_request(request.messages))
    dropped = [c for c in report.changes if c.rule == "provider-tool.dropped"]
    assert len(dropped) == 1 and dropped[0].lossy
    assert part["inlineData"]["data"] not in str(body)
    assert "image" not in str(body)  # never sent as an image block of a PDF's or audio's type
