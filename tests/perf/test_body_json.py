"""The JSON bytes toolwire posts (``toolwire.adapter.body_json``) are the bytes of the body encoded
whole, as the vendor SDK would encode the dict, though a growing conversation's earlier entries
are not re-encoded; nothing a user can reach makes them stale.

No timing here (performance is measured in ``benchmarks/``). The reference is always
``json.dumps`` of the whole body with the SDK's own settings (the Stainless SDKs'
``openapi_dumps``: ``ensure_ascii=False, separators=(",", ":"), allow_nan=False``; google-genai:
the defaults), or the SDK's own ``post(body=...)`` / dict request captured at the HTTP layer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolwire
from toolwire.adapter import ModelRequest, _Histories, _History, _posts_own_bodies, body_json
from toolwire.retry import RetryPolicy
from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

httpx2 = pytest.importorskip("httpx2")

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-5"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash"),
}
COMPACT = {"anthropic": True, "openai-chat": True, "openai": True, "gemini": False}
STYLES: dict[bool, dict[str, Any]] = {
    True: {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False},
    # google-genai's json.dumps defaults, but a NaN / infinity refused: its bare literal is not JSON
    False: {"allow_nan": False},
}


def _dumps(body: Any, compact: bool) -> bytes:
    return json.dumps(body, **STYLES[compact]).encode()


def _without_lone_surrogates(text: str) -> str:
    """``text`` with each pair of UTF-16 halves joined and each lone half replaced by U+FFFD."""
    pair = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
    text = pair.sub(lambda m: chr(0x10000 + ((ord(m[1]) - 0xD800) << 10) + ord(m[2]) - 0xDC00), text)
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def _strings_without_lone_surrogates(value: Any) -> Any:
    """``value`` with :func:`_without_lone_surrogates` applied to every string in it, keys too
    (what the ASCII style must carry: a lone half escaped as ``\\ud800`` is refused by servers)."""
    if isinstance(value, str):
        return _without_lone_surrogates(value)
    if isinstance(value, dict):
        return {_strings_without_lone_surrogates(k): _strings_without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strings_without_lone_surrogates(v) for v in value]
    return value


@given(st.text(alphabet=st.sampled_from(["a", "\\", "u", "d", "8", "0", "c", "\ud800", "\udc00", "\ud83d", "\ude00"])))
def test_ascii_style_sends_no_escape_of_a_lone_surrogate(text: str) -> None:
    """Servers refuse "\\ud800" without its low half ("no low surrogate in string"); the ASCII
    style (google-genai's) sends U+FFFD for it, keeps pairs, and leaves text that only looks like
    an escape."""
    m = toolwire.model("test:x")
    body = {"contents": [{"parts": [{"text": text}]}], text: 1}
    sent = body_json(m, body, compact=False)
    assert sent == _dumps(_strings_without_lone_surrogates(body), False)
    assert json.loads(sent)["contents"][0]["parts"][0]["text"] == _without_lone_surrogates(text)


def _suite() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import suite  # the benchmark's canned vendor answers

    return suite


def _model(api: str, handler: Any, cls: type | None = None, **settings: Any) -> Any:
    pytest.importorskip(APIS[api][0])
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    if "retry" not in settings:
        settings["max_retries"] = 0
    m = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", http_client=client, **settings)
    if cls is not None:
        m.__class__ = cls
    return m


def _whole(api: str, request: ModelRequest, stream: bool) -> dict[str, Any]:
    """The body a fresh model (no conversation cache) sends for ``request``."""
    fresh = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0)
    req = fresh.before_encode(dataclasses.replace(request, conversation=None), stream=stream)
    return fresh.stream_body(dict(fresh._preflight(req)[0]), stream)


def _spy(m: Any) -> list[ModelRequest]:
    requests: list[ModelRequest] = []
    prepared = m._preflight

    def spy(request: ModelRequest, **kw: Any) -> Any:
        requests.append(request)
        return prepared(request, **kw)

    m._preflight = spy
    return requests


def _history(m: Any) -> _History:
    (hist,) = _Histories.of(m)._by_owner.values()
    return hist


# -- a real loop, through the SDK --------------------------------------------------------------


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("stream", [False, True])
def test_a_loop_posts_the_bytes_of_whole_encodes(api: str, stream: bool) -> None:
    suite = _suite()
    turns = 9
    inner = suite.transport_for(api, turns, stream=stream)
    posted: list[bytes] = []

    def handler(request: Any) -> Any:
        posted.append(request.content)
        return inner.handler(request)

    m = _model(api, handler, stream=stream)
    requests = _spy(m)
    result = asyncio.run(toolwire.run(m, "go — “ünïcode” 🌧", tools=[suite.lookup], max_turns=turns))
    assert result.stop_reason == "end_turn" and len(posted) == turns == len(requests)
    for req, sent in zip(requests, posted):
        assert sent == _dumps(_whole(api, req, stream), COMPACT[api])
    # the earlier entries were sent from their kept bytes: each entry of the last request but the
    # few the preflight copied (new, or inside its repair window) has its bytes kept
    hist = _history(m)
    assert len(hist.frags) >= len(hist.wire) - 5 > 0
    assert all(id(e) in hist.frags for e in hist.wire[:3])


# -- body_json against json.dumps, for any JSON value ------------------------------------------

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e308, 5e-324, 1.5]),
    st.text(max_size=6),
    st.sampled_from(["Köln", "🌧", "\u2028", '"\\', "\x00", "\ud800"]),  # a lone surrogate too
)
_value = st.recursive(
    _leaf,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.dictionaries(st.text(max_size=4), kids, max_size=3),
        st.tuples(kids, kids),
    ),
    max_leaves=12,
)
_key = st.one_of(st.text(max_size=5), st.integers(-3, 3), st.booleans(), st.none(), st.floats(allow_nan=False))
_odd = st.sampled_from([math.nan, math.inf, datetime.date(2026, 1, 1), {1, 2}, b"x"])


@pytest.fixture
def pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bodies of any length are joined from pieces (by default a short list is encoded whole)."""
    import toolwire.adapter

    monkeypatch.setattr(toolwire.adapter, "_PIECES_FROM", 0)


def _registered(m: Any, body: dict[str, Any], key: str, wire: list[Any]) -> _History:
    hist = _History()
    hist.wire = wire
    hist.messages = [None] * len(wire)  # as for a stored conversation (only wire is read here)
    _Histories.of(m)._sent[id(body[key])] = (body[key], key, hist)
    return hist


@pytest.mark.parametrize("compact", [True, False])
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],  # pieces: a constant
)
@given(
    before=st.dictionaries(_key, _value, max_size=3),
    after=st.dictionaries(_key, _value, max_size=3),
    entries=st.lists(_value, max_size=5),
    more=st.lists(_value, max_size=3),
    odd=st.one_of(st.none(), _odd),
    where=st.integers(0, 3),
)
def test_body_json_is_json_dumps_of_the_whole_body(
    pieces: None,
    compact: bool,
    before: dict[Any, Any],
    after: dict[Any, Any],
    entries: list[Any],
    more: list[Any],
    odd: Any,
    where: int,
) -> None:
    m = toolwire.model("test:x")
    key = "messages"
    before.pop(key, None)
    after.pop(key, None)
    wire = list(entries)
    if odd is not None:  # a value JSON refuses (NaN too, in both styles), somewhere
        if where == 0:
            before["odd"] = odd
        elif where == 1:
            after["odd"] = odd
        else:
            (wire if where == 2 else more).append(odd)
    kept: tuple[Any, Any, Any] | None = None
    body: dict[Any, Any] = {}
    expected: bytes | None = None
    for _ in range(3):  # the second and third time the entries of ``wire`` come from their kept bytes
        body = {**before, key: wire + more, **after}
        hist = _registered(m, body, key, wire)
        if kept is not None:
            hist.frags, hist.kept, hist.style = kept
        try:
            expected = _dumps(body, compact) if compact else _dumps(_strings_without_lone_surrogates(body), False)
        except UnicodeEncodeError:  # a lone surrogate: sent as U+FFFD (a pair as its character)
            expected = _without_lone_surrogates(json.dumps(body, **STYLES[compact])).encode()
        except (TypeError, ValueError):
            expected = None
        assert body_json(m, body, compact=compact) == expected
        assert not _Histories.of(m)._sent  # used once
        kept = (hist.frags, hist.kept, hist.style)
        assert set(hist.frags) <= set(map(id, wire))  # only entries of the wire are kept
    # a body nobody registered is encoded whole
    assert body_json(m, body, compact=compact) == expected


@pytest.mark.parametrize("compact", [True, False])
def test_a_cycle_is_refused_as_json_refuses_it(pieces: None, compact: bool) -> None:
    m = toolwire.model("test:x")
    wire: list[Any] = [{"role": "user", "content": "a"}]
    loop: dict[str, Any] = {"role": "user"}
    loop["self"] = loop
    for body in ({"messages": wire + [loop]}, {"messages": list(wire), "tail": loop}, {"messages": wire, "x": [wire]}):
        _registered(m, body, "messages", wire)
        try:
            expected: bytes | None = _dumps(body, compact)
        except ValueError:
            expected = None
        assert body_json(m, body, compact=compact) == expected
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    body = {"messages": wire + [deep]}
    _registered(m, body, "messages", wire)
    with pytest.raises(RecursionError):  # as json.dumps (and the SDK given the dict) raises
        body_json(m, body, compact=compact)


def test_body_json_takes_the_list_only_under_its_key_and_only_the_same_list(pieces: None) -> None:
    m = toolwire.model("test:x")
    wire = [{"role": "user", "content": "a"}]
    items = wire + [{"role": "assistant", "content": "b"}]
    body = {"model": "x", "messages": items, "other": items, "tail": 1}
    hist = _registered(m, body, "messages", wire)
    assert body_json(m, body) == _dumps(body, True)
    assert list(hist.frags) == [id(wire[0])]
    # another list object equal to the registered one: not its registration, encoded whole
    _registered(m, body, "messages", wire)
    copy = {**body, "messages": list(items)}
    wire[0]["content"] = "changed"  # (the wire is never changed; here it shows which path ran)
    assert body_json(m, copy) == _dumps(copy, True)


# -- nothing a user reaches makes the bytes stale ----------------------------------------------


def _loop_messages(turns: int, n: Any = 1) -> list[Message]:
    msgs = [Message("user", [TextPart("go")])]
    for k in range(turns):
        msgs.append(
            Message("assistant", [TextPart(f"step {k}"), ToolCall(f"call_{k}", "lookup", {"q": str(k), "n": n})])
        )
        msgs.append(Message("user", [ToolResult(f"call_{k}", f"result {k}")]))
    return msgs


def _sender(api: str, cls: type | None = None) -> tuple[Any, list[bytes]]:
    suite = _suite()
    answer = suite.ANSWERS[api](99, True)  # a final answer: any turn may be answered with it
    posted: list[bytes] = []

    def handler(request: Any) -> Any:
        posted.append(request.content)
        return httpx2.Response(200, json=answer)

    return _model(api, handler, cls), posted


def _send(m: Any, messages: list[Message], owner: Any) -> ModelRequest:
    req = m.build_request(messages, tools=[_tool()])
    req.conversation = owner
    asyncio.run(m.send(req))
    return req


def _tool() -> Any:
    from toolwire.tools import Tool

    return Tool("lookup", "Look something up.", {"type": "object", "properties": {"q": {"type": "string"}}})


@pytest.mark.parametrize("api", list(APIS))
def test_a_message_edited_in_place_is_sent_edited(api: str) -> None:
    """The wire entries share values with the messages (a tool call's arguments): an edit in
    place, even one ``==`` does not see (1 -> True), reaches the bytes of the next request."""
    m, posted = _sender(api)
    owner = Conversation()
    history = _loop_messages(6)
    for k in (3, 5, 7):
        req = _send(m, history[:k], owner)
        assert posted[-1] == _dumps(_whole(api, req, False), COMPACT[api])
    call = history[1].parts[1]
    assert isinstance(call, ToolCall)
    call.arguments["n"] = True  # was 1
    call.arguments["q"] = "edited"
    history[0].parts[0] = TextPart("a new prompt")
    for k in (9, 11, 13):
        req = _send(m, history[:k], owner)
        assert posted[-1] == _dumps(_whole(api, req, False), COMPACT[api])
        assert b"edited" in posted[-1] and b"a new prompt" in posted[-1]


def _first_text(api: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Where the first prompt's text is in a wire body (an earlier entry, kept): object, key."""
    if api == "anthropic":
        return body["messages"][0]["content"][0], "text"
    if api == "openai-chat":
        return body["messages"][0], "content"
    if api == "openai":
        item = body["input"][0]
        return (item, "content") if isinstance(item["content"], str) else (item["content"][0], "text")
    return body["contents"][0]["parts"][0], "text"


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("hook", ["post", "stream_body", "send"])
def test_a_subclass_editing_the_body_has_its_edit_sent(api: str, hook: str) -> None:
    """A subclass whose ``post`` / ``stream_body`` / ``send`` (through ``prepare()``) edits an
    earlier entry in place: the bytes posted carry the edit (its bodies are encoded whole)."""
    pytest.importorskip(APIS[api][0])
    base = type(toolwire.model(f"{api}:{APIS[api][1]}", api_key="k"))
    marks = iter(range(1000))
    edited: list[str] = []

    def edit(body: dict[str, Any]) -> None:
        holder, key = _first_text(api, body)
        holder[key] = text = f"edited {next(marks)}"
        edited.append(text)

    if hook == "post":

        class Sub(base):  # type: ignore[valid-type, misc]
            async def post(self, body: dict[str, Any], *, stream: bool, request: ModelRequest) -> Any:
                edit(body)
                return await super().post(body, stream=stream, request=request)

    elif hook == "stream_body":

        class Sub(base):  # type: ignore[valid-type, misc, no-redef]
            def stream_body(self, body: dict[str, Any], stream: bool) -> dict[str, Any]:
                edit(body)
                return super().stream_body(body, stream)

    else:

        class Sub(base):  # type: ignore[valid-type, misc, no-redef]
            async def send(self, request: ModelRequest) -> Any:
                edit(self.prepare(request))
                return await super().send(request)

    assert _posts_own_bodies(base) and not _posts_own_bodies(Sub)
    m, posted = _sender(api, Sub)
    owner = Conversation()
    history = _loop_messages(6)
    for k in (3, 5, 7, 9, 11, 13):
        _send(m, history[:k], owner)
        sent = json.loads(posted[-1])
        holder, key = _first_text(api, sent)
        assert holder[key] == edited[-1]
        assert posted[-1] == _dumps(sent, COMPACT[api])


@pytest.mark.parametrize("api", list(APIS))
def test_a_retried_request_posts_the_same_bytes(api: str) -> None:
    suite = _suite()
    answer = suite.ANSWERS[api](99, True)
    posted: list[bytes] = []
    fail = {3}  # the third post fails once (a 503), then the retry goes through

    def handler(request: Any) -> Any:
        posted.append(request.content)
        if len(posted) in fail:
            return httpx2.Response(503, json={"error": {"message": "busy", "type": "overloaded_error", "code": 503}})
        return httpx2.Response(200, json=answer)

    m = _model(api, handler, retry=RetryPolicy(max_attempts=2, initial_delay=0, jitter=0))
    owner = Conversation()
    history = _loop_messages(4)
    reqs = []
    for k in (3, 5, 7, 9):
        req = m.build_request(history[:k], tools=[_tool()])
        req.conversation = owner
        asyncio.run(m.send(req))
        reqs.append(req)
    assert len(posted) == 5 and posted[2] == posted[3]
    for req, sent in zip(reqs, [posted[0], posted[1], posted[3], posted[4]]):
        assert sent == _dumps(_whole(api, req, False), COMPACT[api])


# -- the request at the HTTP layer is the SDK's own ---------------------------------------------


def _capture() -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(200, json={})

    return handler, seen


@pytest.mark.parametrize("api", ["openai-chat", "openai", "anthropic"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "extra",
    [{}, {"extra_body": {"top_k": 3, "metadata": {"user_id": "Köln"}}}, {"default_headers": {"X-Custom": "1"}}],
)
def test_content_bytes_make_the_request_the_sdks_body_path_makes(api: str, stream: bool, extra: dict[str, Any]) -> None:
    """``post(content=<bytes>)`` and the SDK's own ``post(body=<dict>)`` give the same HTTP
    request: method, URL, headers (``Content-Type: application/json``) and body bytes."""
    if api == "anthropic" and "default_headers" in extra:
        pytest.skip("the Anthropic model takes no default_headers setting")
    handler, seen = _capture()
    m = _model(api, handler, **extra)
    req = m.build_request([Message("user", [TextPart("Wetter in Köln? 🌧")])], tools=[_tool()])
    req = m.before_encode(req, stream=stream)
    body = m.stream_body(dict(m.prepare(req)), stream)
    reference = json.loads(json.dumps(body))

    async def main() -> None:
        raw = await m.post(body, stream=stream, request=req)
        await raw.aclose()
        client = m.client
        path = "/v1/messages" if api == "anthropic" else m.path
        options = {} if api == "anthropic" else {"options": m._options()}
        if stream:
            import anthropic
            import openai

            cls = (anthropic if api == "anthropic" else openai)._streaming.AsyncStream[object]
            s = await client.post(path, cast_to=object, body=reference, stream=True, stream_cls=cls, **options)
            await s.response.aclose()
        else:
            r = await client.post(path, cast_to=httpx2.Response, body=reference, **options)
            await r.aclose()

    asyncio.run(main())
    ours, sdk = seen
    assert ours.content == sdk.content == _dumps(reference, True)
    assert (ours.method, str(ours.url)) == (sdk.method, str(sdk.url))
    assert ours.headers.multi_items() == sdk.headers.multi_items()
    assert ours.headers["content-type"] == "application/json"
    if "extra_body" in extra:
        assert json.loads(ours.content)["top_k"] == 3


@pytest.mark.parametrize("stream", [False, True])
def test_gemini_bytes_make_the_request_the_sdks_dict_makes(stream: bool) -> None:
    """Gemini: the bytes handed to the API client (``HttpRequest.data``) make the request the
    SDK makes of the dict (``json.dumps(data).encode('utf-8')``)."""
    handler, seen = _capture()
    m = _model("gemini", handler)
    req = m.build_request([Message("user", [TextPart("Wetter in Köln? 🌧")])], tools=[_tool()])
    req = m.before_encode(req, stream=stream)
    body = m.stream_body(dict(m.prepare(req)), stream)
    reference = json.loads(json.dumps(body))

    async def main() -> None:
        raw = await m.post(body, stream=stream, request=req)
        await raw.aclose()
        api_client = m.client().aio._api_client
        http_request = api_client._build_request("post", m._path(m.model_id, stream), reference, None)
        assert isinstance(http_request.data, dict)
        raw = await api_client._async_request(http_request=http_request, http_options=None, stream=True)
        await raw.response_stream.aclose()

    asyncio.run(main())
    ours, sdk = seen
    assert ours.content == sdk.content == _dumps(reference, False)
    assert (ours.method, str(ours.url)) == (sdk.method, str(sdk.url))
    assert ours.headers.multi_items() == sdk.headers.multi_items()
