"""The report of an image a tool returned that the API cannot read, for a result without a tool
name (a conversation built or stored by hand): it named 'tool None'."""

from __future__ import annotations

import pytest

import toolwire
from toolwire import Message
from toolwire.types import ImagePart, TextPart, ToolCall, ToolResult

pytest.importorskip("toolwire_openai")


@pytest.mark.parametrize(("name", "said"), [("shot", "returned by tool 'shot'"), (None, "returned by call 'c1'")])
def test_an_unreadable_tool_image_is_reported_by_its_tool_or_its_call(name: str | None, said: str) -> None:
    svg = ImagePart(data=b'<svg xmlns="http://www.w3.org/2000/svg"/>', media_type="image/svg+xml")
    conv = [
        Message.user("go"),
        Message(role="assistant", parts=[ToolCall("c1", "shot", {})]),
        Message(role="user", parts=[ToolResult("c1", [TextPart("a chart"), svg], name=name)]),
    ]
    model = toolwire.model("openai-chat:gpt-4.1-mini", api_key="k")
    model.prepare(model.build_request(conv))
    report = model.last_preflight
    assert report is not None
    (change,) = [c for c in report.changes if c.rule == "openai-chat.conversation.tool-result-image-type"]
    assert f"an image of type image/svg+xml {said} was sent as a note" in change.detail, change.detail
    assert "None" not in change.detail


# -- bytes that are no image at all (rule <api>.conversation.image-bytes) --------------------------


@pytest.mark.parametrize(
    ("data", "media_type", "problem"),
    [
        (b"<html>404 not found</html>", "image/png", "bytes that are not an image (they begin '<html>404 not fo...')"),
        (b"<!DOCTYPE html>\n<html>", "image/jpeg", "bytes that are not an image (they begin '<!DOCTYPE html>...')"),
        (
            b'  {"error": {"code": 404}}',
            "image/png; charset=binary",
            'bytes that are not an image (they begin \'{"error": {"code...\')',
        ),
        (b"", "image/webp", "no bytes"),
        # bytes without a signature that are not markup or JSON text are left to the API: a
        # placeholder, a cut-short file, binary of a format toolwire does not know, plain text
        (b"\x89PNG", "image/png; charset=binary", None),
        (bytes(range(12)), "IMAGE/JPG", None),
        (b"GIF8", "image/gif", None),
        (b"fake png bytes", "image/png", None),
        (b"<\xff\xfe binary after a '<'", "image/png", None),
        # an image of a known format, whatever it is declared: not this rule's
        (b"\x89PNG\r\n\x1a\n", "image/jpeg", None),
        (b"RIFF\x00\x00\x00\x00WEBP", "image/webp", None),
        # types whose signature is not known are not judged by their bytes
        (b"<html>", "image/heic", None),
        (b"<html>", "application/pdf", None),
        (b"<html>", "image/svg+xml", None),
        (b"<html>", None, None),
    ],
)
def test_not_image_problem(data: bytes, media_type: str | None, problem: str | None) -> None:
    from toolwire.types import not_image_problem

    assert not_image_problem(data, media_type) == problem


def test_base64_head_reads_the_first_bytes_of_every_spelling() -> None:
    import base64

    from toolwire.types import HEAD_BYTES, base64_head

    html = b"<html>404 not found</html>"
    text = base64.b64encode(html).decode()
    assert base64_head(text) == html[:HEAD_BYTES]
    assert base64_head("\n".join(text[i : i + 4] for i in range(0, len(text), 4))) == html[:HEAD_BYTES]
    assert base64_head(base64.urlsafe_b64encode(b"\xff\xd8\xff\xfe>>").decode().rstrip("=")) == b"\xff\xd8\xff\xfe>>"
    assert base64_head("/9j/") == b"\xff\xd8\xff"
    assert base64_head("") == b""
    # white space longer than the first window before the base64 (an indented or padded block):
    # the head was read as empty, and a real PNG was reported as holding "no bytes"
    png = b"\x89PNG\r\n\x1a\n" + bytes(40)
    padded = "\n" * 200 + base64.b64encode(png).decode()
    assert base64_head(padded) == png[:HEAD_BYTES]
    assert base64_head(" " * 130 + "\r\n".join(base64.b64encode(png).decode())) == png[:HEAD_BYTES]
    assert base64_head(" " * 10_000) == b""
    assert base64_head("@@@@ not base64") is None


def test_a_tool_result_of_no_image_gets_a_note_and_keeps_the_result_it_was_given() -> None:
    from toolwire.turns import not_image_tool_note, readable_tool_result

    html = ImagePart(data=b"<html>404</html>", media_type="image/png")
    png = ImagePart(data=b"\x89PNG\r\n\x1a\n" + bytes(8), media_type="image/png")
    result = ToolResult("c1", [TextPart("shot:"), html, png], name="shot")
    sent = readable_tool_result(result, frozenset({"image/png"}))
    note = not_image_tool_note("image/png", "bytes that are not an image (they begin '<html>404</html>')")
    assert sent.content == [TextPart("shot:"), TextPart(note), png]
    assert result.content == [TextPart("shot:"), html, png]
    assert note == (
        "[the tool returned an image declared image/png holding bytes that are not an image (they begin "
        "'<html>404</html>'); it is not sent. The file or download may be an error page, empty or cut short.]"
    )
