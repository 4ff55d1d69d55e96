"""Image bytes that are no image at all: an HTML error page saved as ``chart.png``, text, an empty or
cut-short file, declared image/png, image/jpeg, image/gif or image/webp. Every API refuses the whole
request ("Could not process image", "The image data you provided does not represent a valid
image", "Provided image is not valid."), and every later one of the session while the image stays
in the conversation. In the prompt such an image is refused before anything is sent, on every API,
naming the image and what to do; an image a tool returned is sent as a note instead (the tool's
output, not the caller's request: the run goes on) and reported as a lossy change. Types whose
signature toolwire does not know (HEIC, PDF) are not judged by their bytes. Each API's rule and
its sources: ``docs/rules/<api>.md`` (``<api>.conversation.image-bytes``)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

import toolwire
from toolwire import ImagePart, Message, TextPart, ToolCall, ToolResult
from toolwire.errors import RequestRefused
from toolwire.turns import not_image_tool_note

from .answers import APIS, text_answer
from .test_image_urls import make
from .test_tool_images import HEIC, call_answer
from .test_turns import _PNG_1PX

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

HTML = b"<html>404 not found</html>"

#: ImageParts whose bytes are no image, and how the refusal shows their first bytes.
NOT_IMAGES = {
    "html-page": (ImagePart(data=HTML, media_type="image/png"), "'<html>404 not fo...'"),
    "xml-as-png": (
        ImagePart(data=b'<?xml version="1.0"?><Error>AccessDenied</Error>', media_type="image/png"),
        "'<?xml version=\"1...'",
    ),
    "login-page-as-jpg": (
        ImagePart(data=b"\xef\xbb\xbf\n  <!doctype html><title>Sign in</title>", media_type="image/jpg"),
        "'<!doctype html><...'",
    ),
    "json-as-webp": (ImagePart(data=b'{"error": "not found"}', media_type="IMAGE/WEBP"), '\'{"error": "not f...\''),
    "data-url-of-text": (
        ImagePart(url="data:image/png;base64," + base64.b64encode(HTML).decode()),
        "'<html>404 not fo...'",
    ),
}


def rule(api: str) -> str:
    return f"{api}.conversation.image-bytes"


def _refusal(api: str, conversation: list[Message]) -> tuple[RequestRefused, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(conversation))
    return exc.value, sent


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("case", sorted(NOT_IMAGES))
def test_a_prompt_image_whose_bytes_are_no_image_is_refused_before_sending(api: str, case: str) -> None:
    image, shown = NOT_IMAGES[case]
    err, sent = _refusal(api, [Message.user(["What is in this chart?", image])])
    assert sent == []
    (v,) = err.violations
    assert v.rule == rule(api)
    assert "bytes that are not an image" in v.message and f"(they begin {shown})" in v.message
    assert "pass the image's bytes" in v.message
    # it names the image: the part of the first message
    assert v.pointer in (
        "/messages/0/content/1/source/data",
        "/messages/0/content/1/image_url/url",
        "/input/0/content/1/image_url",
        "/contents/0/parts/1/inlineData/data",
    )


@pytest.mark.parametrize("api", APIS)
def test_an_empty_prompt_image_is_refused_before_sending(api: str) -> None:
    """Anthropic answered an empty image with "image cannot be empty" (it was sent); on the other
    APIs it was refused already, by the rules on data URLs and inline data."""
    err, sent = _refusal(api, [Message.user(["What is this?", ImagePart(data=b"", media_type="image/png")])])
    assert sent == []
    expected = {
        "anthropic": "anthropic.conversation.image-bytes",
        "openai-chat": "openai-chat.conversation.image-url",
        "openai": "openai.conversation.image-url",
        "gemini": "gemini.conversation.inline-data",
    }
    assert [v.rule for v in err.violations] == [expected[api]]
    if api == "anthropic":
        assert "holds no bytes" in err.violations[0].message


@pytest.mark.parametrize("api", APIS)
def test_the_model_refuses_it_in_its_preflight(api: str) -> None:
    """``Model.build_request`` + ``Model._preflight`` (what ``send`` runs) and ``Model.send`` with a
    hand-built history: refused, nothing posted."""
    sent: list[dict[str, Any]] = []
    m = make(api, sent)
    request = m.build_request([Message.user(["Describe it.", ImagePart(data=HTML, media_type="image/png")])])
    with pytest.raises(RequestRefused) as exc:
        m._preflight(request)
    assert exc.value.rules == [rule(api)]
    history = [
        Message.user("Take a screenshot."),
        Message("assistant", [ToolCall("call_1", "screenshot", {})]),
        Message("user", [ToolResult("call_1", "done", name="screenshot")]),
        Message.user(["And this one?", ImagePart(data=b'{"error": "expired"}', media_type="image/png")]),
    ]
    with pytest.raises(RequestRefused) as exc:
        asyncio.run(m.send(m.build_request(history)))
    assert exc.value.rules == [rule(api)]
    assert sent == []


def _screenshot_turns(image: ImagePart) -> list[Message]:
    return [
        Message.user("Take a screenshot."),
        Message("assistant", [ToolCall("call_1", "screenshot", {})]),
        Message("user", [ToolResult("call_1", [TextPart("the screen:"), image], name="screenshot")]),
    ]


def _changes(api: str, report: Any) -> list[Any]:
    return [c for c in report.changes if c.rule == rule(api)] if report is not None else []


#: What the model reads in place of an HTML page a tool returned as image/png.
NOTE = not_image_tool_note("image/png", "bytes that are not an image (they begin '<html>404 not fo...')")


@pytest.mark.parametrize("api", APIS)
def test_model_send_with_a_stored_tool_result_sends_a_note(api: str) -> None:
    sent: list[dict[str, Any]] = []
    m = make(api, sent)
    image = ImagePart(data=HTML, media_type="image/png")
    response = asyncio.run(m.send(m.build_request(_screenshot_turns(image))))
    assert response.text == "ok" and len(sent) == 1
    body = json.dumps(sent[0])
    assert body.count(json.dumps(NOTE)[1:-1]) == 1
    assert base64.b64encode(HTML).decode() not in body and "the screen:" in body
    (change,) = _changes(api, response.preflight)
    assert (change.lossy, change.tool, change.call_id, change.pointer) == (
        True,
        "screenshot",
        "call_1",
        "/messages/2/parts/0/content/1",
    )
    assert change.detail == (
        "an image declared 'image/png' returned by tool 'screenshot' was sent as a note: it holds bytes that are "
        "not an image (they begin '<html>404 not fo...')"
    )


@pytest.mark.parametrize("api", APIS)
def test_a_run_whose_tool_returns_bytes_that_are_no_image_goes_on_to_its_answer(api: str) -> None:
    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [
            TextPart("the chart:"),
            ImagePart(data=HTML, media_type="image/png"),
            ImagePart(data=_PNG_1PX, media_type="image/png"),
        ]

    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(make(api, sent, [call_answer(api), text_answer(api, "done")]), "draw", tools=[chart])
    assert result.text == "done" and not result.tool_errors
    assert len(sent) == 2
    second = json.dumps(sent[1])
    assert second.count(json.dumps(NOTE)[1:-1]) == 1
    assert base64.b64encode(HTML).decode() not in second
    assert second.count(base64.b64encode(_PNG_1PX).decode()) == 1  # the real image is sent
    assert "the chart:" in second
    (change,) = _changes(api, result.turns[-1].response.preflight)
    assert change.lossy and change.tool == "chart" and change.call_id is not None
    # the conversation keeps the tool's output as it returned it
    kept = [p for msg in result.conversation.messages for p in msg.parts if isinstance(p, ToolResult)]
    assert isinstance(kept[0].content, list) and ImagePart(data=HTML, media_type="image/png") in kept[0].content


@pytest.mark.parametrize("api", APIS)
def test_a_tool_image_given_as_a_data_url_of_text_is_a_note(api: str) -> None:
    image = ImagePart(url="data:image/jpeg;base64," + base64.b64encode(b"<h1>Access denied.</h1>").decode())
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(_screenshot_turns(image)))
    assert result.text == "ok"
    body = json.dumps(sent[0])
    assert "[the tool returned an image declared image/jpeg holding bytes that are not an image" in body
    assert [c.tool for c in _changes(api, result.turns[0].response.preflight)] == ["screenshot"]


@pytest.mark.parametrize("api", APIS)
def test_a_type_whose_signature_toolwire_does_not_know_is_not_judged_by_its_bytes(api: str) -> None:
    """HEIC (Gemini reads it) and PDF bytes are not looked at: a HEIC image is sent to Gemini as
    given; the other APIs refuse it for its type (rule image-media-type), not for its bytes."""
    heic = ImagePart(data=HEIC, media_type="image/heic")
    conversation = [Message.user(["What is this?", heic])]
    if api == "gemini":
        sent: list[dict[str, Any]] = []
        result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(conversation))
        assert result.text == "ok" and base64.b64encode(HEIC).decode() in json.dumps(sent[0])
        pdf = ImagePart(data=b"%PDF-1.4 text", media_type="application/pdf")
        sent = []
        toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation([Message.user(["Read.", pdf])]))
        assert len(sent) == 1
        return
    err, sent = _refusal(api, conversation)
    assert sent == [] and [v.rule for v in err.violations] == [f"{api}.conversation.image-media-type"]


@pytest.mark.parametrize("api", APIS)
def test_a_real_image_a_cut_short_one_beside_it_and_a_mislabelled_one(api: str) -> None:
    """Only the image whose bytes are no image is refused, and named; a PNG declared image/jpeg is
    still a mislabelled image (sent as image/png), not this rule's."""
    parts: list[Any] = [
        "Compare.",
        ImagePart(data=_PNG_1PX, media_type="image/png"),
        ImagePart(data=_PNG_1PX, media_type="image/jpeg"),
        ImagePart(data=b"<html><body>Not Found</body></html>", media_type="image/png"),
    ]
    err, sent = _refusal(api, [Message.user(parts)])
    assert sent == []
    (v,) = err.violations
    assert v.rule == rule(api) and ("/3/" in v.pointer or v.pointer.endswith("/3"))
    sent = []
    result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation([Message.user(parts[:3])]))
    assert result.text == "ok"
    assert json.dumps(sent[0]).count(base64.b64encode(_PNG_1PX).decode()) == 2
    assert _changes(api, result.turns[0].response.preflight) == []
