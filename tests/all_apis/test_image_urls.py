"""Images given by URL that the API cannot fetch: in the prompt they are refused before anything is
sent, on every API, with a message saying to pass the image's bytes; an image a tool returned is
sent as a note instead (the tool's output, not the caller's request: the run goes on) and reported
as a lossy change. ``data:`` URLs are sent as inline bytes. Each API's rule and its sources: ``docs/rules/<api>.md``
(``<api>.conversation.image-url``, ``gemini.conversation.file-uri``)."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote_from_bytes

import httpx2
import pytest

import toolwire
from toolwire import ImagePart, Message, TextPart, ToolCall, ToolResult
from toolwire.errors import RequestRefused

from .answers import APIS, text_answer
from .test_tool_images import call_answer
from .test_turns import _PNG_1PX

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

RULE = {
    "anthropic": "anthropic.conversation.image-url",
    "openai-chat": "openai-chat.conversation.image-url",
    "openai": "openai.conversation.image-url",
    "gemini": "gemini.conversation.file-uri",
}
#: Gemini 3 takes images in function responses (earlier models get a note in their place)
MODEL = {"anthropic": "m-1", "openai-chat": "m-1", "openai": "m-1", "gemini": "gemini-3-flash-preview"}

UNFETCHABLE = [
    "file:///tmp/chart.png",
    "/tmp/chart.png",
    "chart.png",
    "C:\\shots\\chart.png",
    "ftp://example.com/chart.png",
    "javascript:alert(1)",
    "data:image/png;base64,",
    "data:image/png;base64,@@@@",
]


def make(api: str, sent: list[dict[str, Any]], answers: list[dict[str, Any]] | None = None) -> Any:
    """A model of ``api`` whose requests go to ``sent``; it answers ``answers`` in turn, else "ok"."""
    queue = list(answers or [])

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0) if queue else text_answer(api, "ok"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:{MODEL[api]}", api_key="k", max_retries=0, http_client=client)


def _refusal(api: str, conversation: list[Message]) -> tuple[RequestRefused, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(conversation))
    return exc.value, sent


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("url", UNFETCHABLE)
def test_a_prompt_image_the_api_cannot_fetch_is_refused_before_sending(api: str, url: str) -> None:
    err, sent = _refusal(api, [Message.user(["What is in this chart?", ImagePart(url=url)])])
    assert sent == []
    (v,) = err.violations
    assert v.rule == RULE[api]
    assert "ImagePart(data=..., media_type='image/png')" in v.message


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("url", [" https://example.com/chart.png", "\u200bhttps://example.com/chart.png"])
def test_a_url_with_white_space_before_it_is_said_to_be_one_not_a_local_path(api: str, url: str) -> None:
    err, sent = _refusal(api, [Message.user(["What is in this chart?", ImagePart(url=url)])])
    assert sent == []
    (v,) = err.violations
    assert "a URL with white space around it (write it without)" in v.message
    assert "a local path" not in v.message


#: What the model reads in place of an image a tool returned by a URL the API cannot fetch.
NOTE = "[the tool returned an image by a URL this API cannot fetch ({}); it is not sent. Return the image's bytes.]"
#: How the note names each URL of UNFETCHABLE: its scheme, or "a local path".
SHOWN = {
    "file:///tmp/chart.png": "file:...",
    "/tmp/chart.png": "a local path",
    "chart.png": "a local path",
    "C:\\shots\\chart.png": "a local path",
    "ftp://example.com/chart.png": "ftp:...",
    "javascript:alert(1)": "javascript:...",
    "data:image/png;base64,": "data:...",
    "data:image/png;base64,@@@@": "data:...",
}


def _screenshot_turns(image: ImagePart) -> list[Message]:
    return [
        Message.user("Take a screenshot."),
        Message("assistant", [ToolCall("call_1", "screenshot", {})]),
        Message("user", [ToolResult("call_1", [TextPart("the screen:"), image], name="screenshot")]),
    ]


def _url_changes(api: str, report: Any) -> list[Any]:
    return [c for c in report.changes if c.rule == RULE[api]] if report is not None else []


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("url", UNFETCHABLE)
def test_a_tool_result_image_the_api_cannot_fetch_is_sent_as_a_note(api: str, url: str) -> None:
    """The image is the tool's output, not the caller's request: the request goes out with a note
    in its place (a refusal would refuse every later request of the run, the result staying in the
    conversation), and the change is reported as lossy, naming the tool and its call."""
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        make(api, sent), conversation=toolwire.Conversation(_screenshot_turns(ImagePart(url=url)))
    )
    assert result.text == "ok"
    body = json.dumps(sent[0])
    assert body.count(json.dumps(NOTE.format(SHOWN[url]))[1:-1]) == 1
    assert json.dumps(url)[1:-1] not in body  # the URL is not sent
    assert "the screen:" in body
    (change,) = _url_changes(api, result.turns[0].response.preflight)
    assert (change.lossy, change.tool, change.call_id) == (True, "screenshot", "call_1")
    assert change.pointer == "/messages/2/parts/0/content/1"
    assert "screenshot" in change.detail and "note" in change.detail
    # the conversation keeps the image as the tool returned it (another API may fetch it)
    kept = result.conversation.messages[2].parts[0]
    assert isinstance(kept, ToolResult) and kept.content == [TextPart("the screen:"), ImagePart(url=url)]


@pytest.mark.parametrize("api", APIS)
def test_a_run_whose_tool_returns_an_unfetchable_image_goes_on_to_its_answer(api: str) -> None:
    @toolwire.tool
    def chart() -> list:
        """Draw the chart."""
        return [TextPart("the chart:"), ImagePart(url="file:///tmp/chart.png", media_type="image/png")]

    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(make(api, sent, [call_answer(api), text_answer(api, "done")]), "draw", tools=[chart])
    assert result.text == "done" and not result.tool_errors
    assert len(sent) == 2
    assert NOTE.format("file:...") in json.dumps(sent[1])
    assert "file:///tmp/chart.png" not in json.dumps(sent[1])
    (change,) = _url_changes(api, result.turns[-1].response.preflight)
    assert change.lossy and change.tool == "chart" and change.call_id is not None


@pytest.mark.parametrize("api", APIS)
def test_an_empty_tool_result_image_in_a_stored_conversation_is_a_note(api: str) -> None:
    """ImagePart(data=b"") in a tool result of a conversation built or stored by hand (a run's own
    tool returning one gets an is_error result instead): every API refuses an image without bytes,
    so every request of the conversation was refused; it is sent as a note, reported as lossy."""
    from toolwire.turns import EMPTY_TOOL_IMAGE_NOTE

    sent: list[dict[str, Any]] = []
    image = ImagePart(data=b"", media_type="image/png")
    result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(_screenshot_turns(image)))
    assert result.text == "ok"
    assert json.dumps(sent[0]).count(EMPTY_TOOL_IMAGE_NOTE) == 1
    changes = [c for c in result.turns[0].response.preflight.changes if c.rule.endswith("tool-result-image-type")]
    assert [(c.tool, c.call_id, c.lossy, c.pointer) for c in changes] == [
        ("screenshot", "call_1", True, "/messages/2/parts/0/content/1")
    ]


@pytest.mark.parametrize("api", APIS)
def test_an_unfetchable_user_image_is_still_refused_beside_a_noted_tool_image(api: str) -> None:
    *earlier, last = _screenshot_turns(ImagePart(url="file:///tmp/shot.png"))
    asked = Message("user", [*last.parts, TextPart("And this one?"), ImagePart(url="/tmp/other.png")])
    err, sent = _refusal(api, [*earlier, asked])
    assert sent == []
    (v,) = err.violations
    assert v.rule == RULE[api] and "/tmp/other.png" in v.message and v.call_id is None


@pytest.mark.parametrize("api", APIS)
def test_an_http_tool_image_is_a_note_on_anthropic_only(api: str) -> None:
    """Anthropic fetches only https URLs; OpenAI and Gemini are sent an http URL as given."""
    url = "http://example.com/shot.png"
    sent: list[dict[str, Any]] = []
    turns = _screenshot_turns(ImagePart(url=url, media_type="image/png"))
    result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(turns))
    assert result.text == "ok"
    body = json.dumps(sent[0])
    changes = _url_changes(api, result.turns[0].response.preflight)
    if api == "anthropic":
        assert NOTE.format("http:...") in body and url not in body
        assert [(c.tool, c.call_id) for c in changes] == [("screenshot", "call_1")]
    else:
        assert url in body and "cannot fetch" not in body and changes == []


@pytest.mark.parametrize("api", APIS)
def test_a_tool_result_image_the_api_fetches_is_sent_as_given(api: str) -> None:
    url = "https://example.com/shot.png"
    sent: list[dict[str, Any]] = []
    turns = _screenshot_turns(ImagePart(url=url, media_type="image/png"))
    result = toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(turns))
    assert result.text == "ok"
    body = json.dumps(sent[0])
    assert json.dumps(url) in body and "cannot fetch" not in body
    assert _url_changes(api, result.turns[0].response.preflight) == []


@pytest.mark.parametrize("api", APIS)
def test_an_http_image_url_is_refused_by_anthropic_only(api: str) -> None:
    """Anthropic: "Only HTTPS URLs are supported."; OpenAI and Gemini are sent it as given."""
    url = "http://example.com/chart.png"
    conversation = [Message.user(["What is in this chart?", ImagePart(url=url, media_type="image/png")])]
    if api == "anthropic":
        err, sent = _refusal(api, conversation)
        assert sent == [] and [v.rule for v in err.violations] == [RULE[api]]
        assert "https" in err.violations[0].message
        return
    sent: list[dict[str, Any]] = []
    assert toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation(conversation)).text == "ok"
    assert url in json.dumps(sent[0])


@pytest.mark.parametrize("api", APIS)
def test_image_urls_the_api_fetches_are_sent_as_given(api: str) -> None:
    urls = ["https://example.com/chart.png"] + (
        ["gs://bucket/chart.png", "https://generativelanguage.googleapis.com/v1beta/files/abc123"]
        if api == "gemini"
        else []
    )
    parts: list[Any] = ["Compare."] + [ImagePart(url=u, media_type="image/png") for u in urls]
    sent: list[dict[str, Any]] = []
    assert toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation([Message.user(parts)])).text == "ok"
    body = json.dumps(sent[0])
    assert all(json.dumps(u) in body for u in urls)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "url",
    [
        # base64 broken into lines (MIME), URL-safe, unpadded, and a body without ;base64 (percent-encoded)
        "data:image/png;base64," + "\n".join(base64.b64encode(_PNG_1PX).decode()[i : i + 20] for i in range(0, 96, 20)),
        "data:image/png;base64," + base64.urlsafe_b64encode(_PNG_1PX).decode().rstrip("="),
        "data:image/png," + quote_from_bytes(_PNG_1PX),
    ],
    ids=["lines", "urlsafe-unpadded", "percent-encoded"],
)
def test_a_data_url_in_another_lossless_spelling_is_sent_as_inline_bytes(api: str, url: str) -> None:
    part = ImagePart(url=url)
    assert (part.url, part.data, part.media_type) == (None, _PNG_1PX, "image/png")
    sent: list[dict[str, Any]] = []
    toolwire.run_sync(make(api, sent), conversation=toolwire.Conversation([Message.user(["What is this?", part])]))
    body = json.dumps(sent[0])
    assert base64.b64encode(_PNG_1PX).decode() in body
    assert '"type": "url"' not in body and "fileData" not in body
