"""An imported Gemini history whose tool result holds an image given by URL (a ``fileData`` part
with an image ``mimeType`` and an http(s) ``fileUri``, in ``functionResponse.parts`` or next to
the function response) decodes to toolwire's image part: it goes back to Gemini as it came, and
continuing the history on another API sends the image. It was kept as Gemini-only raw content,
which another API left out."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolwire.adapter import ModelRequest
from toolwire.types import ImagePart, ToolResult

URL = "https://example.com/charts/q3.png"
IMAGE = {"fileData": {"mimeType": "image/png", "fileUri": URL}}


def _body(parts: list[dict[str, Any]], beside: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "draw the chart"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "chart", "args": {}, "id": "c1"}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "chart",
                            "id": "c1",
                            "response": {"output": "drawn"},
                            **({"parts": parts} if parts else {}),
                        }
                    },
                    *(beside or []),
                ],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "chart", "description": "Draw a chart."}]}],
    }


def test_an_image_url_in_function_response_parts_is_an_image_part_and_goes_back_the_same() -> None:
    from toolwire_gemini import GeminiCodec

    codec = GeminiCodec()
    body = _body([copy.deepcopy(IMAGE)])
    request = codec.decode_request(copy.deepcopy(body))
    (result,) = request.messages[2].parts
    assert isinstance(result, ToolResult)
    assert isinstance(result.content, list)
    assert [(type(p).__name__, getattr(p, "url", None), getattr(p, "media_type", None)) for p in result.content] == [
        ("TextPart", None, None),
        ("ImagePart", URL, "image/png"),
    ]
    assert "kept_content" not in (result.provider_data.get("gemini") or {})
    sent = codec.encode_request(ModelRequest("gemini-2.5-flash", request.messages, tools=request.tools))
    assert sent["contents"] == body["contents"]


def test_an_image_url_next_to_the_function_response_is_an_image_part_and_goes_back_the_same() -> None:
    from toolwire_gemini import GeminiCodec

    codec = GeminiCodec()
    body = _body([], beside=[copy.deepcopy(IMAGE)])
    request = codec.decode_request(copy.deepcopy(body))
    assert [type(p).__name__ for p in request.messages[2].parts] == ["ToolResult", "ImagePart"]
    image = request.messages[2].parts[1]
    assert isinstance(image, ImagePart) and (image.url, image.media_type) == (URL, "image/png")
    sent = codec.encode_request(ModelRequest("gemini-2.5-flash", request.messages, tools=request.tools))
    assert sent["contents"] == body["contents"]


@pytest.mark.parametrize(
    "part",
    [
        {"fileData": {"mimeType": "image/png", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/x1"}},
        {
            "fileData": {
                "mimeType": "image/png",
                "fileUri": "https://GenerativeLanguage.googleapis.com./v1beta/files/x1",
            }
        },
        {"fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/chart.png"}},
        {"fileData": {"mimeType": "image/gif", "fileUri": URL}},
        {"fileData": {"mimeType": "image/png", "fileUri": URL, "displayName": "chart"}},
        {"fileData": {"fileUri": URL}},
    ],
    ids=["files-api", "files-api-fqdn", "gs", "gif", "more-fields", "no-type"],
)
def test_a_file_reference_another_api_cannot_read_stays_kept_whole(part: dict[str, Any]) -> None:
    # an uploaded file is Gemini's own, a gs:// URI only Google fetches, a type or field the
    # image part does not carry would not go back the same: kept, and sent back as it came
    from toolwire_gemini import GeminiCodec

    codec = GeminiCodec()
    body = _body([copy.deepcopy(part)])
    request = codec.decode_request(copy.deepcopy(body))
    (result,) = request.messages[2].parts
    assert isinstance(result, ToolResult) and result.content == "drawn"
    sent = codec.encode_request(ModelRequest("gemini-2.5-flash", request.messages, tools=request.tools))
    assert sent["contents"] == body["contents"]


@pytest.mark.parametrize("beside", [False, True], ids=["in-parts", "next-to"])
@pytest.mark.parametrize("target", ["anthropic", "openai", "openai-chat"])
def test_continuing_the_history_on_another_api_sends_the_image(target: str, beside: bool) -> None:
    from toolwire_gemini import GeminiCodec

    import toolwire

    body = _body([], beside=[IMAGE]) if beside else _body([IMAGE])
    request = GeminiCodec().decode_request(body)
    model = toolwire.model(f"{target}:m-1", api_key="k")
    req = model.build_request(request.messages, tools=request.tools)
    sent, report = model._preflight(req)
    assert URL in str(sent)
    assert [c.rule for c in report.changes if c.lossy] == []
    if target == "anthropic" and not beside:
        (result,) = [b for m in sent["messages"] for b in m["content"] if b.get("type") == "tool_result"]
        assert result["content"][-1] == {"type": "image", "source": {"type": "url", "url": URL}}


def test_the_sdks_snake_case_field_names_import_the_same_image() -> None:
    # google.genai.types.FileData spells them file_uri / mime_type; the codec reads snake_case
    # inline data too: the image was kept raw, and left out when the history went to another API
    from toolwire_gemini import GeminiCodec

    snake = {"file_data": {"mime_type": "image/png", "file_uri": URL}}
    request = GeminiCodec().decode_request(_body([snake]))
    (result,) = request.messages[2].parts
    assert isinstance(result, ToolResult) and isinstance(result.content, list)
    assert [(type(p).__name__, getattr(p, "url", None)) for p in result.content] == [
        ("TextPart", None),
        ("ImagePart", URL),
    ]
    # a part with another field beside them is still kept whole
    odd = {"file_data": {"mime_type": "image/png", "file_uri": URL, "display_name": "x"}}
    (result,) = GeminiCodec().decode_request(_body([odd])).messages[2].parts
    assert isinstance(result, ToolResult)
    assert not any(isinstance(p, ImagePart) for p in (result.content if isinstance(result.content, list) else []))
