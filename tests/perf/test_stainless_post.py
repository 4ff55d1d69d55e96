"""The Anthropic and OpenAI adapters post through ``toolwire.transport.StainlessPost``: the SDK's
``client.request()`` with options copied from a kept template instead of ``client.post()``
constructing them per request. The HTTP request it makes must be the one ``client.post()``
makes, request after request, and the kept template must never change.

The reference is always the SDK's own ``client.post(...)`` captured at the HTTP layer
(``httpx2.MockTransport``), with the same arguments.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import toolwire
from toolwire.transport import StainlessPost
from toolwire.types import Message, TextPart

httpx2 = pytest.importorskip("httpx2")

MODELS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-5"),
}


def _model(api: str, handler: Any, **settings: Any) -> Any:
    pytest.importorskip(MODELS[api][0])
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    settings.setdefault("api_key", "k")
    return toolwire.model(f"{api}:{MODELS[api][1]}", max_retries=0, http_client=client, **settings)


def _sdk(api: str) -> Any:
    import anthropic
    import openai

    return anthropic if api == "anthropic" else openai


def _poster(api: str) -> StainlessPost:
    if api == "anthropic":
        from toolwire_anthropic.model import _poster
    else:
        from toolwire_openai.models import _poster
    return _poster()


def _template_fields(post: StainlessPost) -> list[dict[str, Any]]:
    return [dict(vars(t[2])) for t in post._templates]


@pytest.mark.parametrize("api", list(MODELS))
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("keyless", [False, True])
def test_request_after_request_the_http_request_is_the_sdks_posts(api: str, stream: bool, keyless: bool) -> None:
    if keyless and api == "anthropic":
        pytest.skip("the Anthropic model needs an API key")
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(200, json={})

    settings: dict[str, Any] = {"api_key": None, "base_url": "http://127.0.0.1:9/v1"} if keyless else {}
    m = _model(api, handler, **settings)
    path = "/v1/messages" if api == "anthropic" else m.path
    post = _poster(api)

    async def main() -> None:
        for i, text in enumerate(["Wetter in Köln? 🌧", "and tomorrow?", "x" * 3000]):
            req = m.build_request([Message("user", [TextPart(text)])])
            req = m.before_encode(req, stream=stream)
            body = m.stream_body(dict(m.prepare(req)), stream)
            raw = await m.post(body, stream=stream, request=req)
            await raw.aclose()
            before = _template_fields(post)
            options = {} if api == "anthropic" else {"options": m._options()}
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
            if stream:
                cls = _sdk(api)._streaming.AsyncStream[object]
                s = await m.client.post(path, cast_to=object, content=content, stream=True, stream_cls=cls, **options)
                await s.response.aclose()
            else:
                r = await m.client.post(path, cast_to=httpx2.Response, content=content, **options)
                await r.aclose()
            assert _template_fields(post) == before  # the SDK's own post() shares nothing with it
            ours, sdk = seen[2 * i], seen[2 * i + 1]
            assert ours.content == sdk.content == content
            assert (ours.method, str(ours.url)) == (sdk.method, str(sdk.url))
            assert ours.headers.multi_items() == sdk.headers.multi_items()
            if keyless:
                assert "authorization" not in ours.headers
            else:
                assert "authorization" in ours.headers  # the SDK's auth header, on both SDKs

    asyncio.run(main())


@pytest.mark.parametrize("api", list(MODELS))
def test_the_template_is_never_changed_by_a_request(api: str) -> None:
    """The SDK edits the options it sends (its copy); a request edited through the fields the
    template shares (headers, params) must not reach the next request."""
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(200, json={})

    m = _model(api, handler)
    client = m.client
    post = StainlessPost(_sdk(api)._models.FinalRequestOptions)
    path = "/v1/messages" if api == "anthropic" else m.path
    options = {"headers": {"X-Trace": "1"}, "params": {"beta": "true"}}

    async def main() -> None:
        opts = post._options(path, options, b"{}", None)
        opts.headers["X-Trace"] = "edited"  # what a hook of the SDK could do to the options it is given
        opts.params["beta"] = "edited"
        await (await post.post(client, path, cast_to=httpx2.Response, content=b'{"a":1}', options=options)).aclose()
        await (await client.post(path, cast_to=httpx2.Response, content=b'{"a":1}', options=options)).aclose()

    asyncio.run(main())
    assert len(post._templates) == 1
    ours, sdk = seen
    assert ours.headers["x-trace"] == "1" and "beta=true" in str(ours.url)
    assert (str(ours.url), ours.headers.multi_items(), ours.content) == (
        str(sdk.url),
        sdk.headers.multi_items(),
        sdk.content,
    )


def test_options_make_their_own_template() -> None:
    pytest.importorskip("anthropic")
    import anthropic

    post = StainlessPost(anthropic._models.FinalRequestOptions)
    a = post._options("/v1/messages", {}, b"1", None)
    b = post._options("/v1/messages", {"headers": {"X": "1"}}, b"2", None)
    c = post._options("/v1/other", {}, None, {"k": "v"})
    assert len(post._templates) == 3
    assert (a.url, a.content, a.json_data) == ("/v1/messages", b"1", None)
    assert b.headers == {"X": "1"}
    assert (c.url, c.content, c.json_data) == ("/v1/other", None, {"k": "v"})
    for i in range(20):
        post._options(f"/p{i}", {}, b"", None)
    assert len(post._templates) == StainlessPost.size


def test_an_sdk_without_what_it_relies_on_goes_through_post() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    class Client:  # a client with post() only
        async def post(self, path: str, **kwargs: Any) -> str:
            calls.append((path, kwargs))
            return "posted"

    class Options:  # an options class without model_copy
        @classmethod
        def construct(cls, **kwargs: Any) -> Any:
            raise AssertionError("not used")

    out = asyncio.run(StainlessPost(Options).post(Client(), "/x", cast_to=object, content=b"{}"))
    assert out == "posted"
    assert calls == [
        ("/x", {"cast_to": object, "content": b"{}", "body": None, "options": {}, "stream": False, "stream_cls": None})
    ]


def test_body_and_content_together_are_refused_as_post_refuses_them() -> None:
    pytest.importorskip("anthropic")
    import anthropic

    class Client:
        async def request(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("nothing is sent")

    with pytest.raises(TypeError, match="both `body` and `content`"):
        asyncio.run(
            StainlessPost(anthropic._models.FinalRequestOptions).post(
                Client(), "/x", cast_to=object, content=b"{}", body={"a": 1}
            )
        )


def test_options_told_apart_exactly_and_read_anew_each_call() -> None:
    """A mapping reused and edited between calls, equal values of another type (30 and 30.0)
    and another header order each give ``client.post()``'s request, not a kept template's."""
    pytest.importorskip("openai")
    import openai

    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(200, json={})

    client = openai.AsyncOpenAI(
        api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    )
    post = StainlessPost(openai._models.FinalRequestOptions)
    opts: dict[str, Any] = {"headers": {"X-Request-Id": "req-1"}}
    cases: list[tuple[str, dict[str, Any], str | None]] = [
        ("/chat/completions", opts, "req-1"),
        ("/chat/completions", opts, "req-2"),  # the same mapping, edited before this request
    ]
    cases += [("/responses", {"timeout": 30}, None), ("/responses", {"timeout": 30.0}, None)]
    cases += [
        ("/embeddings", {"headers": {"X-A": "1", "X-B": "2"}}, None),
        ("/embeddings", {"headers": {"X-B": "2", "X-A": "1"}}, None),
    ]

    async def main() -> None:
        for path, options, rid in cases:
            if rid is not None:
                options["headers"]["X-Request-Id"] = rid
            r = await post.post(client, path, cast_to=httpx2.Response, content=b"{}", options=options)
            await r.aclose()
            r = await client.post(path, cast_to=httpx2.Response, content=b"{}", options=options)
            await r.aclose()

    asyncio.run(main())
    for i in range(0, len(seen), 2):
        ours, sdk = seen[i], seen[i + 1]
        assert (str(ours.url), ours.headers.multi_items(), ours.content) == (
            str(sdk.url),
            sdk.headers.multi_items(),
            sdk.content,
        )
    assert [seen[i].headers["x-request-id"] for i in (0, 2)] == ["req-1", "req-2"]
    assert seen[6].headers["x-stainless-read-timeout"] == "30.0"


def test_options_the_pickler_cannot_take_go_through_post() -> None:
    calls: list[str] = []

    class Client:
        async def request(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("not used")

        async def post(self, path: str, **kwargs: Any) -> str:
            calls.append(path)
            return "posted"

    class Options:
        @classmethod
        def construct(cls, **kwargs: Any) -> Any:
            raise AssertionError("not used")

        def model_copy(self) -> None: ...

    out = asyncio.run(StainlessPost(Options).post(Client(), "/x", cast_to=object, options={"hook": lambda: 1}))
    assert out == "posted" and calls == ["/x"]
