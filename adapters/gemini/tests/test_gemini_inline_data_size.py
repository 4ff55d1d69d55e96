"""The inline data of one request (rule ``gemini.conversation.inline-data-size``), through the real
``google-genai`` SDK over ``httpx2.MockTransport``: the Gemini API takes at most 100 MB of base64
inline data per request (blog.google, "Increased file size limits and expanded inputs support in
Gemini API", 2026-01-12), so a request over it is refused before anything is sent, saying to
pass large images by URL; images by URL do not count."""

from __future__ import annotations

import asyncio

import pytest
from gemini_wire_helpers import candidate_body, json_response
from toolwire_gemini.profile import GeminiProfile

from toolwire.profile import RequestRefused
from toolwire.types import ImagePart, Message, ToolCall, ToolResult

MiB = 1024 * 1024
PNG = b"\x89PNG\r\n\x1a\n"
SIG = "iVBORw0KGgoA"  # 12 characters of base64: PNG's signature and a zero byte


def png(raw_mib: int) -> ImagePart:
    """A PNG of ``raw_mib`` MiB: its base64 text is 4/3 as long."""
    return ImagePart(data=PNG + bytes(raw_mib * MiB - len(PNG)), media_type="image/png")


def test_the_limit_is_100_mib_of_base64() -> None:
    # base64 of a PNG's signature, then zero bytes
    at = {
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": SIG + "A" * (100 * MiB - 12)}}]}
        ]
    }
    assert GeminiProfile().check_request(at) == []
    over = {
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": SIG + "A" * (100 * MiB - 8)}}]}
        ]
    }
    assert [(v.rule, v.pointer) for v in GeminiProfile().check_request(over)] == [
        ("gemini.conversation.inline-data-size", "/contents/0/parts/0/inlineData")
    ]


def test_prompt_images_over_the_limit_in_all_are_refused_before_sending(mock_model) -> None:
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))])
    # 2 x 40 MiB of bytes: 2 x 53.3 MiB of base64, each part under the limit, the request over it
    request = model.build_request([Message.user(["Compare.", png(40), png(40)])])
    with pytest.raises(RequestRefused) as exc:
        asyncio.run(model.send(request))
    (v,) = exc.value.violations
    assert (v.rule, v.pointer) == ("gemini.conversation.inline-data-size", "/contents/0/parts/1/inlineData")
    assert "106.7 MB of inline data" in v.message and "pass large images by URL" in v.message
    assert model.sent == []


def test_images_a_tool_returned_count_with_the_prompt_images(mock_model) -> None:
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], "gemini-3-flash-preview")
    history = [
        Message.user(["What changed?", png(30)]),
        Message("assistant", [ToolCall("c1", "screenshot", {})]),
        Message("user", [ToolResult("c1", [png(50)])]),
    ]
    with pytest.raises(RequestRefused) as exc:
        asyncio.run(model.send(model.build_request(history)))
    (v,) = exc.value.violations
    assert v.rule == "gemini.conversation.inline-data-size"
    assert v.pointer == "/contents/2/parts/0/functionResponse/parts/0/inlineData"  # the largest part
    assert model.sent == []


def test_under_the_limit_and_images_by_url_are_sent(mock_model) -> None:
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))])
    big_by_url = ImagePart(url="https://generativelanguage.googleapis.com/v1beta/files/abc", media_type="image/png")
    response = asyncio.run(model.send(model.build_request([Message.user(["Compare.", png(70), big_by_url])])))
    assert response.text == "ok"
    parts = model.sent[0].json["contents"][0]["parts"]
    assert len(parts[1]["inlineData"]["data"]) == 4 * (70 * MiB + 2) // 3  # 93.3 MiB: sent
    assert parts[2] == {"fileData": {"fileUri": big_by_url.url, "mimeType": "image/png"}}


# -- a PDF given inline (rule gemini.conversation.document-size: 50 MB, file-input-methods) ---------

PDF_SIG = "JVBERi0x"  # base64 of "%PDF-1"


def test_an_inline_pdf_over_50_mib_is_refused_where_it_is() -> None:
    def body(chars: int) -> dict:
        pdf = {"inlineData": {"mimeType": "application/pdf", "data": PDF_SIG + "A" * (chars - len(PDF_SIG))}}
        return {"contents": [{"role": "user", "parts": [{"text": "Read it."}, pdf]}]}

    assert GeminiProfile().check_request(body(50 * MiB * 4 // 3)) == []  # 50 MiB of bytes
    (v,) = GeminiProfile().check_request(body(50 * MiB * 4 // 3 + 4))  # 3 bytes more
    assert (v.rule, v.pointer) == ("gemini.conversation.document-size", "/contents/0/parts/1/inlineData")
    assert v.message.startswith("the PDF is 50.0 MB; the Gemini API takes PDFs of at most 50 MB inline: upload it")
    # an image of the same size is not a PDF: only the request's 100 MB of inline data bounds it
    image = body(50 * MiB * 4 // 3 + 4)
    image["contents"][0]["parts"][1]["inlineData"]["mimeType"] = "image/png"
    assert GeminiProfile().check_request(image) == []


def test_a_pdf_a_tool_returned_over_50_mib_is_refused_before_sending(mock_model) -> None:
    from toolwire.types import DocumentPart

    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], "gemini-3-flash-preview")
    big = DocumentPart(b"%PDF-1.4\n" + bytes(51 * MiB), "application/pdf", filename="scan.pdf")
    history = [
        Message.user("Read the scan."),
        Message("assistant", [ToolCall("c1", "scan", {})]),
        Message("user", [ToolResult("c1", [big], name="scan")]),
    ]
    with pytest.raises(RequestRefused) as exc:
        asyncio.run(model.send(model.build_request(history)))
    (v,) = exc.value.violations
    assert (v.rule, v.pointer) == ("gemini.conversation.document-size", "/contents/2/parts/1/inlineData")
    assert model.sent == []
