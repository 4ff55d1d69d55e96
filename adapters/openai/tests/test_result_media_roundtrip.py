"""Tool results carrying images and PDFs survive encode → ``decode_request`` on OpenAI Chat
Completions and Responses: importing a body toolwire wrote gives back the canonical results
(content in order, tool name, error flag), so a provider switch after importing a history still
sends the images inside the tool result.

Chat's tool message is text only (``ChatCompletionToolMessageParam.content``: ``str`` or text
parts), so the codec sends a result's images/PDFs in one user message after the tool messages,
each group headed by a label naming the call id (and tool); the tool text then holds a note
pointing at that message. Decoding folds that labelled message back into the results.

Bodies are built by the real codecs; only the JSON a client would send is round-tripped.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec

from toolwire.adapter import ModelRequest
from toolwire.types import DocumentPart, ImagePart, Message, TextPart, ToolCall, ToolResult

CHAT = OpenAIChatCodec()
RESP = OpenAIResponsesCodec()


def _png() -> bytes:
    """A valid 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


PNG = _png()
PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
BMP = b"BM" + struct.pack("<IHHI", 58, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, 4, 0, 0, 0, 0)
BMP += b"\x00\x00\xff\x00"
URL = "https://example.com/chart.png"


def _conversation(results: list[ToolResult]) -> list[Message]:
    calls = [ToolCall(id=r.tool_call_id, name=r.name or "tool", arguments={}) for r in results]
    return [
        Message("user", [TextPart("show me")]),
        Message("assistant", list(calls)),
        Message("user", list(results)),
    ]


def _round_trip(codec: Any, results: list[ToolResult]) -> tuple[list[Message], list[Message], dict[str, Any]]:
    messages = _conversation(results)
    request = ModelRequest(model="gpt-4.1", messages=messages)
    body = codec.encode_request(request)
    decoded = codec.decode_request(body)
    return messages, decoded.messages, body


def _assert_same_results(original: list[Message], decoded: list[Message], names: bool = True) -> None:
    assert len(decoded) == len(original), [m.role for m in decoded]
    got = [p for p in decoded[-1].parts]
    want = [p for p in original[-1].parts]
    assert decoded[-1].role == "user"
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, ToolResult) and isinstance(w, ToolResult)
        assert g.tool_call_id == w.tool_call_id
        assert g.name == (w.name if names else None)
        assert g.is_error == w.is_error
        assert g.content == w.content


# Each case: the results of one user message. Content order that round-trips: text first, then
# images, then PDFs (the order of the wire: tool message text, then the labelled user message's
# images, then its documents).
CASES: dict[str, list[ToolResult]] = {
    "images only": [
        ToolResult(
            "call_a",
            [ImagePart(data=PNG, media_type="image/png"), ImagePart(url=URL)],
            name="screenshot",
        )
    ],
    "text and image": [
        ToolResult("call_b", [TextPart("the chart:"), ImagePart(data=PNG, media_type="image/png")], name="chart")
    ],
    "pdf only": [ToolResult("call_c", [DocumentPart(PDF, filename="report.pdf")], name="report")],
    "text, images and pdf": [
        ToolResult(
            "call_d",
            [
                TextPart("everything:"),
                ImagePart(data=PNG, media_type="image/png"),
                ImagePart(url=URL),
                DocumentPart(PDF, filename="report.pdf"),
            ],
            name="bundle",
        )
    ],
    "images and pdf, no text": [
        ToolResult(
            "call_e",
            [ImagePart(data=PNG, media_type="image/png"), DocumentPart(PDF, filename="r.pdf")],
            name="bundle",
        )
    ],
    "two results, images on the second": [
        # a Chat tool message carries no tool name (only the label of a result's images does), so a
        # result without images is imported without one, as any imported Chat tool message is
        ToolResult("call_f", "plain text answer"),
        ToolResult("call_g", [TextPart("here"), ImagePart(data=PNG, media_type="image/png")], name="chart"),
    ],
    "error with text and image": [
        ToolResult(
            "call_h",
            [TextPart("render failed half way"), ImagePart(data=PNG, media_type="image/png")],
            is_error=True,
            name="chart",
        )
    ],
    # an error result without text is sent as "Error:" (then the note for its PDFs)
    "error with images only": [
        ToolResult("call_i", [ImagePart(data=PNG, media_type="image/png")], is_error=True, name="chart")
    ],
    "error with a pdf only": [
        ToolResult("call_j", [DocumentPart(PDF, filename="r.pdf")], is_error=True, name="report")
    ],
    "empty error, no media": [ToolResult("call_k", "", is_error=True)],
}


def test_chat_results_with_images_and_pdfs_decode_back_into_the_results() -> None:
    for label, results in CASES.items():
        original, decoded, _ = _round_trip(CHAT, results)
        try:
            _assert_same_results(original, decoded)
        except AssertionError as e:
            raise AssertionError(f"{label}: {e}\n{decoded[-1]}") from e


def test_chat_round_trip_re_encodes_byte_equal() -> None:
    for label, results in CASES.items():
        _, decoded, body = _round_trip(CHAT, results)
        again = CHAT.encode_request(ModelRequest(model="gpt-4.1", messages=decoded))
        assert again["messages"] == body["messages"], label


def test_chat_labelled_message_folds_even_when_the_tool_message_has_a_content_list() -> None:
    # a tool message as a list of text parts (ChatCompletionToolMessageParam allows it), the
    # labelled images after it: the text stays, the images go into the result
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "see"}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Image(s) returned by tool call c1 (shot):"},
                    {"type": "image_url", "image_url": {"url": URL, "detail": "low"}},
                ],
            },
        ],
    }
    decoded = CHAT.decode_request(body)
    assert len(decoded.messages) == 3
    (result,) = decoded.messages[-1].parts
    assert isinstance(result, ToolResult)
    assert result.name == "shot"
    assert result.content == [
        TextPart("see"),
        ImagePart(url=URL, provider_data={"openai-chat": {"image_url": {"detail": "low"}}}),
    ]
    again = CHAT.encode_request(decoded)
    assert again["messages"] == body["messages"]


def test_chat_unreadable_image_stays_a_note() -> None:
    # Lossy by design: an image OpenAI cannot read (BMP) is sent as a note in the tool text, not
    # as an image, so decoding gives the note back as text; nothing is folded.
    results = [ToolResult("call_x", [TextPart("a bitmap"), ImagePart(data=BMP, media_type="image/bmp")], name="bmp")]
    _, decoded, body = _round_trip(CHAT, results)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    (result,) = decoded[-1].parts
    assert isinstance(result, ToolResult)
    text = result.content if isinstance(result.content, str) else "".join(p.text for p in result.content)  # type: ignore[union-attr]
    assert text.startswith("a bitmap\n[the tool returned an image of type image/bmp")
    assert not any(isinstance(p, ImagePart) for p in result.content if not isinstance(result.content, str))


def test_chat_unreadable_image_beside_a_readable_one() -> None:
    # the BMP becomes a note in the tool text (kept, lossy); the PNG is folded back after it
    results = [
        ToolResult(
            "call_y",
            [ImagePart(data=BMP, media_type="image/bmp"), ImagePart(data=PNG, media_type="image/png")],
            name="pics",
        )
    ]
    _, decoded, _ = _round_trip(CHAT, results)
    assert len(decoded) == 3
    (result,) = decoded[-1].parts
    assert isinstance(result, ToolResult) and isinstance(result.content, list)
    assert isinstance(result.content[0], TextPart)
    assert result.content[0].text.startswith("[the tool returned an image of type image/bmp")
    assert result.content[1:] == [ImagePart(data=PNG, media_type="image/png")]
    assert result.name == "pics"


def _chat_body(user_content: Any, tool_content: Any = "(the result is the image(s) in the next user message)") -> dict:
    return {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": tool_content},
            {"role": "user", "content": user_content},
        ],
    }


def test_chat_user_message_without_toolwires_labels_stays_a_user_message() -> None:
    image = {"type": "image_url", "image_url": {"url": URL}}
    others = {
        "no label": [image],
        "another label": [{"type": "text", "text": "Here is the screenshot:"}, image],
        "label for an unknown call": [{"type": "text", "text": "Image(s) returned by tool call c9:"}, image],
        "label without colon": [{"type": "text", "text": "Image(s) returned by tool call c1"}, image],
        "label without images": [{"type": "text", "text": "Image(s) returned by tool call c1:"}],
        "label then user text": [
            {"type": "text", "text": "Image(s) returned by tool call c1:"},
            image,
            {"type": "text", "text": "what is in it?"},
        ],
        "image label on a file": [
            {"type": "text", "text": "Image(s) returned by tool call c1:"},
            {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0="}},
        ],
        "plain string": "Image(s) returned by tool call c1:",
    }
    for label, content in others.items():
        body = _chat_body(content)
        decoded = CHAT.decode_request(body)
        assert [m.role for m in decoded.messages] == ["user", "assistant", "user", "user"], label
        (result,) = decoded.messages[2].parts
        assert isinstance(result, ToolResult)
        assert result.content == "(the result is the image(s) in the next user message)", label
        assert CHAT.encode_request(decoded)["messages"] == body["messages"], label


def test_chat_labelled_message_not_after_tool_messages_stays() -> None:
    body = {
        "model": "gpt-4.1",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Image(s) returned by tool call c1:"},
                    {"type": "image_url", "image_url": {"url": URL}},
                ],
            }
        ],
    }
    decoded = CHAT.decode_request(body)
    assert len(decoded.messages) == 1 and decoded.messages[0].role == "user"
    assert CHAT.encode_request(decoded)["messages"] == body["messages"]


def test_responses_results_with_images_and_pdfs_decode_back_into_the_results() -> None:
    # Responses takes images and files inside function_call_output.output (an array of
    # input_text/input_image/input_file: ResponseInputItemParam.FunctionCallOutput); the item has
    # no tool name (call_id and output only), so results import without one. The image parts
    # come back equal: the "detail": "auto" the encoder writes is not kept as an imported detail
    for label, results in CASES.items():
        original, decoded, body = _round_trip(RESP, results)
        try:
            _assert_same_results(original, decoded, names=False)
        except AssertionError as e:
            raise AssertionError(f"{label}: {e}\n{decoded[-1]}") from e
        again = RESP.encode_request(ModelRequest(model="gpt-4.1", messages=decoded))
        assert again["input"] == body["input"], label


def test_responses_image_detail_other_than_the_default_is_kept() -> None:
    body = {
        "model": "gpt-4.1",
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [
                    {"type": "input_image", "image_url": URL, "detail": "low"},
                    {"type": "input_image", "image_url": URL},
                ],
            },
        ],
    }
    decoded = RESP.decode_request(body)
    (result,) = decoded.messages[-1].parts
    assert isinstance(result, ToolResult) and isinstance(result.content, list)
    assert result.content[0] == ImagePart(url=URL, provider_data={"openai": {"part": {"detail": "low"}}})
    assert RESP.encode_request(decoded)["input"] == body["input"]


def test_chat_note_as_a_text_part_is_removed_too() -> None:
    # the compatible-server profile moves a tool message's images to a user message after the
    # tool messages and leaves the note as a text part: folded the same way
    body = _chat_body(
        [
            {"type": "text", "text": "Image(s) returned by tool call c1:"},
            {"type": "image_url", "image_url": {"url": URL}},
        ],
        tool_content=[{"type": "text", "text": "(the result is the image(s) in the next user message)"}],
    )
    decoded = CHAT.decode_request(body)
    assert [m.role for m in decoded.messages] == ["user", "assistant", "user"]
    (result,) = decoded.messages[-1].parts
    assert isinstance(result, ToolResult)
    assert result.content == [ImagePart(url=URL)] and result.name is None
    assert CHAT.encode_request(decoded)["messages"] == body["messages"]


def test_chat_labelled_groups_in_another_order_stay_a_user_message() -> None:
    # toolwire writes the groups in the order of the tool messages; a message that re-encoding
    # would not give back exactly is left as it came
    note = "(the result is the image(s) in the next user message)"
    calls = [{"id": c, "type": "function", "function": {"name": "shot", "arguments": "{}"}} for c in ("c1", "c2")]
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "c1", "content": note},
            {"role": "tool", "tool_call_id": "c2", "content": note},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Image(s) returned by tool call c2:"},
                    {"type": "image_url", "image_url": {"url": URL}},
                    {"type": "text", "text": "Image(s) returned by tool call c1:"},
                    {"type": "image_url", "image_url": {"url": URL}},
                ],
            },
        ],
    }
    decoded = CHAT.decode_request(body)
    assert [m.role for m in decoded.messages] == ["user", "assistant", "user", "user"]
    assert [p.content for p in decoded.messages[2].parts if isinstance(p, ToolResult)] == [note, note]
    assert CHAT.encode_request(decoded)["messages"] == body["messages"]
