"""Images given by URL that the API cannot fetch are refused before anything is sent, on every API,
in the prompt and in a tool result, with a message saying to pass the image's bytes; ``data:`` URLs
are sent as inline bytes. Each API's rule and its sources: ``docs/rules/<api>.md``
(``<api>.conversation.image-url``, ``gemini.conversation.file-uri``)."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote_from_bytes

import httpx2
import pytest

import toolwire
from toolwire import ImagePart, Message, ToolCall, ToolResult
from toolwire.errors import RequestRefused

from .answers import APIS, text_answer
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


def make(api: str, sent: list[dict[str, Any]]) -> Any:
    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer(api, "ok"))

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
@pytest.mark.parametrize("url", ["file:///tmp/shot.png", "data:image/png;base64,"])
def test_a_tool_result_image_the_api_cannot_fetch_is_refused_naming_the_call(api: str, url: str) -> None:
    conversation = [
        Message.user("Take a screenshot."),
        Message("assistant", [ToolCall("call_1", "screenshot", {})]),
        Message("user", [ToolResult("call_1", [ImagePart(url=url)], name="screenshot")]),
    ]
    err, sent = _refusal(api, conversation)
    assert sent == []
    assert [v.rule for v in err.violations] == [RULE[api]]
    assert "pass its bytes" in err.violations[0].message


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
