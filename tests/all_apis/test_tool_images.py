"""An image a tool returns in a format the API cannot read (an SVG, a BMP) is sent as a note, on
every API, and reported as a lossy repair: the run goes on. Refusing it would refuse this
request and every later one of the run (the result stays in the conversation, and in a saved
run), so the run could never continue."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import toolwire
from toolwire import ImagePart, TextPart
from toolwire.turns import tool_image_note

from .answers import APIS, text_answer
from .test_turns import _PNG_1PX, make_model

toolwire_anthropic = pytest.importorskip("toolwire_anthropic")
toolwire_openai = pytest.importorskip("toolwire_openai")
toolwire_gemini = pytest.importorskip("toolwire_gemini")
pytest.importorskip("toolwire_anthropic.profile")
pytest.importorskip("toolwire_openai.profile")
pytest.importorskip("toolwire_gemini.profile")

READABLE = {
    "anthropic": toolwire_anthropic.profile.IMAGE_MEDIA_TYPES,
    "openai-chat": toolwire_openai.profile.IMAGE_MEDIA_TYPES,
    "openai": toolwire_openai.profile.IMAGE_MEDIA_TYPES,
    "gemini": toolwire_gemini.profile.IMAGE_MEDIA_TYPES,
}

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>'
BMP = b"BM" + bytes(60)


def call_answer(api: str) -> dict[str, Any]:
    """A finished answer of ``api`` calling ``chart`` with no arguments."""
    if api == "anthropic":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "chart", "input": {}}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "call_1", "type": "function", "function": {"name": "chart", "arguments": "{}"}}
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "chart",
                    "arguments": "{}",
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
        }
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"name": "chart", "args": {}}}]}, "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    }


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "image, kind",
    [
        (ImagePart(data=SVG, media_type="image/svg+xml"), "image/svg+xml"),
        (ImagePart(data=BMP, media_type="image/bmp"), "image/bmp"),
    ],
)
def test_an_unreadable_tool_image_is_sent_as_a_note_and_the_run_goes_on(api: str, image: ImagePart, kind: str) -> None:
    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [TextPart("the chart and a dot:"), image, ImagePart(data=_PNG_1PX, media_type="image/png")]

    sent: list[dict[str, Any]] = []
    m = make_model(api, [call_answer(api), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "draw", tools=[chart])
    assert result.text == "done" and not result.tool_errors
    second = json.dumps(sent[1])
    assert base64.b64encode(image.data or b"").decode() not in second  # the unreadable image is not sent
    assert second.count(json.dumps(tool_image_note(kind, READABLE[api]))[1:-1]) == 1
    assert second.count(base64.b64encode(_PNG_1PX).decode()) == 1  # the PNG is
    assert "the chart and a dot:" in second
    report = result.turns[-1].response.preflight
    changes = [c for c in report.changes if c.rule == f"{api}.conversation.tool-result-image-type"]
    assert len(changes) == 1 and changes[0].lossy and changes[0].call_id is not None
    # the conversation keeps the image as the tool returned it (another API may read it)
    kept = [p for msg in result.conversation.messages for p in msg.parts if isinstance(p, toolwire.ToolResult)]
    assert image in kept[0].content


@pytest.mark.parametrize("api", APIS)
def test_a_readable_tool_image_declared_wrongly_is_sent_not_noted(api: str) -> None:
    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [ImagePart(data=_PNG_1PX, media_type="image/svg+xml")]  # PNG bytes: read by their signature

    sent: list[dict[str, Any]] = []
    m = make_model(api, [call_answer(api), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "draw", tools=[chart])
    assert result.text == "done"
    assert base64.b64encode(_PNG_1PX).decode() in json.dumps(sent[1])
    assert "which this API does not read" not in json.dumps(sent[1])


# a HEIC file's first bytes (ISO BMFF "ftyp" box, brand heic): no PNG/JPEG/GIF/WebP signature
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(40)


def test_a_readable_image_whose_declared_type_has_parameters_is_sent_not_noted() -> None:
    """``file --mime`` spells a type with parameters (``image/heic; charset=binary``); the image
    goes out as ``image/heic`` (ImagePart.wire_media_type), which Gemini reads, so it is no note."""

    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [ImagePart(data=HEIC, media_type="image/heic; charset=binary")]

    sent: list[dict[str, Any]] = []
    m = make_model("gemini", [call_answer("gemini"), text_answer("gemini", "done")], sent)
    result = toolwire.run_sync(m, "draw", tools=[chart])
    assert result.text == "done"
    second = json.dumps(sent[1])
    assert base64.b64encode(HEIC).decode() in second
    assert "which this API does not read" not in second
    report = result.turns[-1].response.preflight
    assert report is None or not [c for c in report.changes if "tool-result-image-type" in c.rule]


@pytest.mark.parametrize("api", APIS)
def test_the_note_names_only_formats_the_api_reads(api: str) -> None:
    """The note tells the model which formats to return: on Gemini, which does not read GIF, the
    note for a GIF must not tell it to return GIF."""
    gif = ImagePart(data=b"GIF89a" + bytes(20), media_type="image/gif")
    bmp = ImagePart(data=BMP, media_type="image/bmp")

    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [gif if api == "gemini" else bmp]

    sent: list[dict[str, Any]] = []
    m = make_model(api, [call_answer(api), text_answer(api, "done")], sent)
    toolwire.run_sync(m, "draw", tools=[chart])
    second = json.dumps(sent[1])
    assert "which this API does not read" in second
    advice = second.split("Return ", 1)[1].split("images.]", 1)[0]
    assert "PNG" in advice and "JPEG" in advice
    assert ("GIF" in advice) is (api != "gemini"), advice
