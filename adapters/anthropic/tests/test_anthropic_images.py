"""Image dimensions and counts: read from base64 headers, checked before sending to Anthropic."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire_anthropic.images import Base64Reader, image_dimensions
from toolwire_anthropic.profile import AnthropicProfile

import toolwire
from toolwire import ImagePart, TextPart, tool
from toolwire.errors import RequestRefused
from toolwire.profile import preflight

# -- hand-built image headers (independent of the reader under test) -------------------------------


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + b"\x3b"


def jpeg(width: int, height: int, exif_bytes: int = 0) -> bytes:
    """SOI, JFIF APP0, an APP1 segment of ``exif_bytes`` filler bytes (so the size sits far from the
    start, past the first decoded chunk), then SOF0 with the size."""
    out = b"\xff\xd8"
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    out += b"\xff\xe0" + struct.pack(">H", len(app0) + 2) + app0
    left = exif_bytes
    while left > 0:  # segments are at most 65533 bytes of payload
        n = min(left, 65000)
        out += b"\xff\xe1" + struct.pack(">H", n + 2) + b"Exif\x00\x00" + b"\x11" * (n - 6)
        left -= n
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    out += b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof
    return out + b"\xff\xd9"


def webp(width: int, height: int) -> bytes:
    """An extended (VP8X) WebP header: canvas width and height minus one, 24 bits each."""
    body = b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("data", "dims"),
    [
        (png(1, 1), (1, 1)),
        (png(8001, 20), (8001, 20)),
        (gif(2001, 7), (2001, 7)),
        (jpeg(640, 9000), (640, 9000)),
        (jpeg(2400, 1600, exif_bytes=150_000), (2400, 1600)),
        (webp(3000, 2), (3000, 2)),
    ],
)
def test_dimensions_are_read_from_the_header(data: bytes, dims: tuple[int, int]) -> None:
    assert image_dimensions(b64(data)) == dims


def test_base64_with_line_breaks_and_unreadable_data() -> None:
    assert image_dimensions(base64.encodebytes(png(300, 400) + b"\0" * 500).decode()) == (300, 400)
    assert image_dimensions("this is not base64 at all!") is None
    assert image_dimensions(b64(b"BM" + b"\0" * 10)) is None  # a truncated bitmap header
    assert image_dimensions("") is None


def test_bad_and_crafted_images_give_no_size_quickly_and_never_raise() -> None:
    import toolwire_anthropic.images as images

    reads: list[int] = []
    original = images.Base64Reader.read

    def counting(self: Base64Reader, size: int | None = -1) -> bytes:
        out = original(self, size)
        reads.append(len(out))
        return out

    images.Base64Reader.read = counting  # type: ignore[method-assign]
    try:
        # a JPEG start then 3.7 MB without a marker: scanned a byte at a time, up to the budget only
        assert image_dimensions(b64(b"\xff\xd8" + b"\x00" * 3_700_000)) is None
        assert len(reads) <= images.READ_BUDGET_CALLS + 1 and sum(reads) <= images.READ_BUDGET_BYTES
        reads.clear()
        # a Netpbm or SVG file (formats Anthropic does not take) is not parsed at all
        assert image_dimensions(b64(b"P1 " + b"9" * 1_000_000 + b" 1\n")) is None
        assert image_dimensions(b64(b'<svg width="' + b"9" * 400 + b'" height="10"/>')) is None
        assert reads == [12, 12]  # the first bytes of each, to tell the format
    finally:
        images.Base64Reader.read = original  # type: ignore[method-assign]


def test_gif_sides_are_unsigned_and_base64_line_breaks_are_ignored() -> None:
    assert image_dimensions(b64(gif(40000, 65535))) == (40000, 65535)
    text = b64(jpeg(1000, 700, exif_bytes=5_000))
    for broken in (text[:401] + "\n" + text[401:], base64.encodebytes(base64.b64decode(text)).decode()):
        assert image_dimensions(broken) == (1000, 700)


def test_only_the_header_is_decoded() -> None:
    class Counting(Base64Reader):
        decoded = 0

        def read(self, size: int | None = -1) -> bytes:
            out = super().read(size)
            Counting.decoded += len(out)
            return out

    import imagesize

    data = b64(jpeg(100, 50, exif_bytes=200_000) + b"\x00" * 3_000_000)
    assert imagesize.get(Counting(data), exif_rotation=False) == (100, 50)
    assert 0 < Counting.decoded < 2_000  # segment headers only, not 3 MB


@settings(max_examples=200, deadline=None)
@given(
    payload=st.binary(max_size=200),
    ops=st.lists(st.tuples(st.integers(-5, 210), st.sampled_from([0, 1, 2]), st.integers(-1, 50)), max_size=12),
)
def test_the_reader_reads_and_seeks_as_a_file_of_the_decoded_bytes(payload: bytes, ops: list) -> None:
    mine, ref = Base64Reader(b64(payload)), io.BytesIO(payload)
    for offset, whence, size in ops:
        try:
            expected = ref.seek(offset, whence)
        except ValueError:
            with pytest.raises(ValueError):
                mine.seek(offset, whence)
            continue
        assert mine.seek(offset, whence) == expected
        assert mine.read(size) == ref.read(size)
        assert mine.tell() == ref.tell()
    assert mine.seek(0, 2) == len(payload)


# -- the rules, on encoded bodies ----------------------------------------------------------------


def _image(data: bytes, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64(data)}}


def _body(messages: list[dict]) -> dict:
    tools = [{"name": "shot", "description": "Take a screenshot.", "input_schema": {"type": "object"}}]
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": tools, "messages": messages}


def _user(*blocks: dict) -> dict:
    return {"role": "user", "content": [*blocks, {"type": "text", "text": "What is in these?"}]}


def _violations(body: dict, start: int = 0) -> list[tuple[str, str]]:
    return [(v.rule, v.pointer) for v in AnthropicProfile().check_request(body, start=start)]


def test_an_image_over_8000_pixels_is_refused_and_8000_is_accepted() -> None:
    body = _body([_user(_image(png(8000, 8000)), _image(jpeg(1440, 8570), "image/jpeg"))])
    assert _violations(body) == [("anthropic.conversation.image-dimensions", "/messages/0/content/1/source/data")]
    with pytest.raises(RequestRefused, match="1440x8570 pixels"):
        preflight(AnthropicProfile(), body)


def test_more_than_20_images_take_at_most_2000_pixels_each() -> None:
    twenty = [_image(png(2400, 100)) for _ in range(20)]
    assert _violations(_body([_user(*twenty)])) == []  # 20 images: 8000 px per side
    body = _body([_user(*twenty, _image(gif(10, 10), "image/gif"))])
    found = _violations(body)
    assert found == [
        ("anthropic.request.many-image-dimensions", f"/messages/0/content/{i}/source/data") for i in range(20)
    ]
    small = _body([_user(*[_image(png(2000, 2000)) for _ in range(21)])])
    assert _violations(small) == []


def test_images_in_earlier_turns_and_tool_results_count_toward_the_limits() -> None:
    earlier = [_user(*[_image(png(3000, 10)) for _ in range(10)])]
    earlier.append(
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]}
    )
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [_image(png(50, 50)) for _ in range(10)]}
    earlier.append({"role": "user", "content": [result]})
    earlier.append({"role": "assistant", "content": [{"type": "text", "text": "Seen."}]})
    body = _body([*earlier, _user()])
    assert _violations(body, start=4) == []  # 20 images, none new
    body = _body([*earlier, _user(_image(png(10, 10)))])  # the 21st, in a new turn
    found = _violations(body, start=4)
    # the earlier 3000-pixel images are now over the many-image limit; the results' are not
    assert found == [
        ("anthropic.request.many-image-dimensions", f"/messages/0/content/{i}/source/data") for i in range(10)
    ]


def test_more_than_100_images_and_documents_are_refused() -> None:
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    hundred = [_image(png(10, 10)) for _ in range(99)]
    assert _violations(_body([_user(*hundred, doc)])) == []
    found = _violations(_body([_user(*hundred, doc, _image(png(10, 10)))]))
    assert found == [("anthropic.request.media-count", "/messages")]
    with pytest.raises(RequestRefused, match="100 images and 1 document "):
        preflight(AnthropicProfile(), _body([_user(*hundred, doc, _image(png(10, 10)))]))


def test_media_type_spellings_with_spaces_or_capitals_are_repaired() -> None:
    body = _body([_user(_image(png(5, 5), " Image/PNG "), _image(jpeg(5, 5), "IMAGE/JPG"))])
    sent, report = preflight(AnthropicProfile(), body)
    assert [b["source"]["media_type"] for b in sent["messages"][0]["content"][:2]] == ["image/png", "image/jpeg"]
    assert [c.rule for c in report.changes] == ["anthropic.conversation.image-media-type"] * 2


# -- in a run: screenshots returned by a tool ----------------------------------------------------


def test_a_run_whose_screenshots_pass_20_images_is_refused_before_sending(mock_model, wire) -> None:
    @tool
    def screenshot() -> ImagePart:
        """Take a screenshot of the screen."""
        return ImagePart(data=png(2560, 1440), media_type="image/png")

    answers = [
        wire.json_response(
            wire.message_body(
                [{"type": "tool_use", "id": f"toolu_{i}", "name": "screenshot", "input": {}}], stop_reason="tool_use"
            )
        )
        for i in range(25)
    ]
    model = mock_model(answers)
    with pytest.raises(RequestRefused) as caught:
        toolwire.run_sync(model, "Watch the screen.", tools=[screenshot], max_turns=30)
    # 20 screenshots went out; the request that would hold the 21st was not sent
    assert len(model.sent) == 21
    assert caught.value.rules == ["anthropic.request.many-image-dimensions"]
    assert len(caught.value.violations) == 21
    # each names the call whose result holds the image
    assert [v.call_id for v in caught.value.violations] == [f"toolu_{i}" for i in range(21)]
    assert "breaks 1 vendor rule in 21 places" in str(caught.value)
    assert "2560x1440 pixels" in str(caught.value) and "2000 pixels per side" in str(caught.value)
    last = model.sent[-1].json["messages"]
    assert sum(1 for m in last for b in m["content"] if b.get("type") == "tool_result") == 20


def test_a_run_with_small_screenshots_goes_past_20_images(mock_model, wire) -> None:
    @tool
    def screenshot() -> list:
        """Take a screenshot of the screen."""
        return [TextPart("the screen:"), ImagePart(data=png(1280, 720), media_type="image/png")]

    answers = [
        wire.json_response(
            wire.message_body(
                [{"type": "tool_use", "id": f"toolu_{i}", "name": "screenshot", "input": {}}], stop_reason="tool_use"
            )
        )
        for i in range(24)
    ]
    answers.append(wire.json_response(wire.message_body([{"type": "text", "text": "Done watching."}])))
    model = mock_model(answers)
    result = toolwire.run_sync(model, "Watch the screen.", tools=[screenshot], max_turns=30)
    assert result.text == "Done watching." and len(model.sent) == 25


def test_a_refused_run_goes_on_after_older_images_are_left_out(mock_model, wire) -> None:
    """The recovery docs/loop.md shows: the refused run's conversation, older screenshots
    replaced by a note, continued."""

    @tool
    def screenshot() -> list:
        """Take a screenshot of the screen."""
        return ["The screen now:", ImagePart(data=png(2560, 1440), media_type="image/png")]

    def calls(n: int) -> list:
        return [
            wire.json_response(
                wire.message_body(
                    [{"type": "tool_use", "id": f"toolu_{i}", "name": "screenshot", "input": {}}],
                    stop_reason="tool_use",
                )
            )
            for i in range(n)
        ]

    model = mock_model(calls(21))
    with pytest.raises(RequestRefused) as caught:
        toolwire.run_sync(model, "Watch the screen.", tools=[screenshot], max_turns=30)
    conversation = caught.value.run_state.conversation
    for message in conversation.messages[:-6]:
        for part in message.parts:
            if isinstance(part, toolwire.ToolResult) and not isinstance(part.content, str):
                part.content = "(screenshot left out)"
    done = wire.json_response(wire.message_body([{"type": "text", "text": "Nothing changed."}]))
    again = mock_model([done])
    result = toolwire.run_sync(again, conversation=conversation, tools=[screenshot])
    assert result.text == "Nothing changed."
    sent = again.sent[0].json["messages"]
    images = [c for m in sent for b in m["content"] if b.get("type") == "tool_result" for c in b["content"]]
    assert sum(1 for c in images if isinstance(c, dict) and c.get("type") == "image") == 3
