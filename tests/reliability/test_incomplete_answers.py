"""A 2xx answer whose body is empty or cut short (the connection or a proxy cut it) is a typed
error naming the status, the content type and the first bytes, and is retried under the model's
retry policy, as a stream that ends before its first event is; an HTML page is not retried and
says to check ``base_url``. Every answer goes through the real SDK over ``httpx2.MockTransport``."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from reliability_wire import APIS, text_body, tool_body

import toolwire
from toolwire.errors import ProviderError, ResponseDecodeError, ResponseIncomplete
from toolwire.retry import RetryPolicy


def _model(api: str, answers: list[httpx2.Response], stream: bool = False) -> tuple[Any, list[int]]:
    sent: list[int] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(1)
        return answers[min(len(sent), len(answers)) - 1]

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    policy = RetryPolicy(max_attempts=3, initial_delay=0.0)
    return toolwire.model(f"{api}:m-1", api_key="k", http_client=client, retry=policy, stream=stream), sent


def _good(api: str) -> httpx2.Response:
    return httpx2.Response(200, json=text_body(api, "whole"))


def _cut(api: str) -> bytes:
    whole = json.dumps(text_body(api, "whole")).encode()
    return whole[: len(whole) // 2]


_JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("api", APIS)
def test_an_empty_or_cut_body_is_retried_and_the_next_whole_answer_used(api, stream):
    for first in (b"", b"  \n", _cut(api)):
        model, sent = _model(api, [httpx2.Response(200, content=first, headers=_JSON), _good(api)], stream)
        result = toolwire.run_sync(model, "go")
        assert result.text == "whole" and len(sent) == 2  # before: ResponseDecodeError, 1 request


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("api", APIS)
def test_a_body_of_only_a_byte_order_mark_is_empty_and_retried(api, stream):
    """A body of a UTF-8 BOM (and whitespace) was "not JSON ...: ''", not retried."""
    for first in (b"\xef\xbb\xbf", b"\xef\xbb\xbf \r\n"):
        model, sent = _model(api, [httpx2.Response(200, content=first, headers=_JSON), _good(api)], stream)
        assert toolwire.run_sync(model, "go").text == "whole" and len(sent) == 2
    model, sent = _model(api, [httpx2.Response(200, content=b"\xef\xbb\xbf", headers=_JSON)], stream)
    with pytest.raises(ResponseIncomplete, match="the body is empty") as info:
        toolwire.run_sync(model, "go")
    assert len(sent) == 3 and info.value.attempts == 3


@pytest.mark.parametrize("api", APIS)
def test_an_empty_body_every_time_ends_in_a_typed_error_saying_what_to_do(api):
    model, sent = _model(api, [httpx2.Response(200, content=b"", headers=_JSON)])
    with pytest.raises(ResponseIncomplete) as info:
        toolwire.run_sync(model, "go")
    exc = info.value
    assert isinstance(exc, ResponseDecodeError) and isinstance(exc, ProviderError)
    assert len(sent) == 3 and exc.attempts == 3
    assert exc.retryable is True and exc.status == 200 and exc.error_type == "incomplete_body"
    text = str(exc)
    assert text.startswith(
        f"{api}: malformed body: the body is empty (HTTP 200, content-type application/json); a JSON response was expected."
    )
    assert "check the network path and any proxy before the API (base_url)" in text
    assert text.endswith("(retryable); failed after 3 attempts (max_attempts=3)")


@pytest.mark.parametrize("api", APIS)
def test_an_empty_body_with_retries_off_does_not_promise_a_retry(api):
    """With max_retries=0 the text said "the request is sent again under the model's retry
    policy" and then "not retried: max_attempts=1"."""
    sent: list[int] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(1)
        return httpx2.Response(200, content=b"", headers=_JSON)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    model = toolwire.model(f"{api}:m-1", api_key="k", http_client=client, max_retries=0)
    with pytest.raises(ResponseIncomplete) as info:
        toolwire.run_sync(model, "go")
    text = str(info.value)
    assert len(sent) == 1 and info.value.attempts == 1
    assert "is sent again" not in text
    assert "sending the request again may get the whole answer" in text
    assert text.endswith("(base_url) (retryable); not retried: max_attempts=1")


@pytest.mark.parametrize("api", APIS)
def test_a_cut_body_names_status_content_type_size_and_first_bytes(api):
    cut = _cut(api)
    model, sent = _model(api, [httpx2.Response(200, content=cut, headers={"content-type": "application/json"})])
    with pytest.raises(ResponseIncomplete) as info:
        toolwire.run_sync(model, "go")
    text = str(info.value)
    assert "HTTP 200, content-type application/json" in text
    assert repr(cut.decode()[:40])[:-1] in text
    assert f"it ends inside an object, array or string after {len(cut):,} bytes, cut short" in text
    assert len(sent) == 3


@pytest.mark.parametrize("levels", [200, 5000])
@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_body_cut_inside_deeply_nested_call_arguments_is_retried(api, levels):
    """Cut inside tool-call arguments nested thousands of levels deep, the body was a
    ResponseBoundExceeded ("...is not complete JSON"), not retried; 200 levels deep it was
    retried as cut short."""
    body = tool_body(api, [("c1", "t", {"v": 1}), ("c2", "t", {"v": "__DEEP__"})])
    whole = json.dumps(body).replace('"__DEEP__"', '{"a":' * levels + "1" + "}" * levels).encode()
    cut = whole[: whole.index(b"1}}}")]
    model, sent = _model(api, [httpx2.Response(200, content=cut, headers=_JSON), _good(api)])
    assert toolwire.run_sync(model, "go").text == "whole" and len(sent) == 2
    model, sent = _model(api, [httpx2.Response(200, content=cut, headers=_JSON)])
    with pytest.raises(ResponseIncomplete) as info:
        toolwire.run_sync(model, "go")
    assert len(sent) == 3 and info.value.status == 200
    assert f"it ends inside an object, array or string after {len(cut):,} bytes, cut short" in str(info.value)


@pytest.mark.parametrize("api", APIS)
def test_an_html_page_or_broken_json_is_not_retried(api):
    model, sent = _model(
        api, [httpx2.Response(200, content=b"<html>proxy error</html>", headers={"content-type": "text/html"})]
    )
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(model, "go")
    assert not isinstance(info.value, ProviderError) and len(sent) == 1
    assert "'<html>proxy error</html>'; a web page answered instead of the API: check base_url" in str(info.value)
    # complete but broken JSON (a stray close) is not a cut: not retried either
    model, sent = _model(api, [httpx2.Response(200, content=b'{"a": 1}}', headers=_JSON)])
    with pytest.raises(ResponseDecodeError) as info:
        toolwire.run_sync(model, "go")
    assert not isinstance(info.value, ProviderError) and len(sent) == 1


@pytest.mark.parametrize("api", APIS)
def test_an_empty_error_status_body_stays_the_status_error(api):
    # the rule is for 2xx answers: a 5xx without a body is the SDK's status error, retried as one
    model, sent = _model(api, [httpx2.Response(503, content=b""), _good(api)])
    assert toolwire.run_sync(model, "go").text == "whole" and len(sent) == 2
