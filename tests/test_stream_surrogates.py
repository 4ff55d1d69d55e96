"""A UTF-16 surrogate pair split over two streamed deltas is one character, on every API.

Some servers send an astral character (an emoji) as the JSON escapes ``"\\ud83d"`` and
``"\\ude00"`` in two separate events. Each event alone holds a lone surrogate, which the
transport turns into U+FFFD (no UTF-8 request could carry it back); before, the split pair
became two U+FFFD. The stream assembler now joins the halves, for text, reasoning and tool-call
arguments; a lone surrogate still becomes U+FFFD.

The streams go through the real SDK HTTP layer and the adapters' stream decoders (only the
network is replaced, by httpx2.MockTransport). The expected text is computed independently:
the UTF-16 code units decoded by Python's UTF-16 codec with ``errors="replace"``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolwire
from toolwire import events as ev
from toolwire._sync import run_coroutine
from toolwire.adapter import collect_stream
from toolwire.stream import ReasoningDelta, StopEvent, StreamAssembler, SurrogatePairs, TextDelta, ToolCallDelta
from toolwire.types import Message, TextPart

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
EMOJI = "\U0001f600"  # U+1F600, the escapes "\ud83d\ude00"


def _units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _expected(units: list[int]) -> str:
    """The text the unsplit code units mean: pairs joined, every lone surrogate U+FFFD."""
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "replace")


def _pieces(units: list[int], cuts: list[int]) -> list[str]:
    """The code units cut at ``cuts``, each piece a str that may hold lone surrogates (as
    ``json.loads`` gives for one event's escapes)."""
    bounds = sorted({c % (len(units) + 1) for c in cuts} | {0, len(units)})
    return ["".join(chr(u) for u in units[a:b]) for a, b in zip(bounds, bounds[1:])]


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}")
        # json.dumps escapes every surrogate as \\uXXXX, as the servers in question do
        out.append("data: " + (data if isinstance(data, str) else json.dumps(data)))
        out.append("")
    return ("\n".join(out) + "\n").encode()


def _anthropic(kind: str, pieces: list[str]) -> bytes:
    block, delta_type, key = {
        "text": ({"type": "text", "text": ""}, "text_delta", "text"),
        "reasoning": ({"type": "thinking", "thinking": "", "signature": ""}, "thinking_delta", "thinking"),
        "arguments": (
            {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {}},
            "input_json_delta",
            "partial_json",
        ),
    }[kind]
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m-1",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
    ]
    events += [
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": delta_type, key: p}})
        for p in pieces
    ]
    if kind == "reasoning":
        events.append(
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}},
            )
        )
    stop = "tool_use" if kind == "arguments" else "end_turn"
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 2},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _chat(kind: str, pieces: list[str]) -> bytes:
    head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m-1"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[str | None, Any]:
        return (None, {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    events: list[tuple[str | None, Any]] = [chunk({"role": "assistant", "content": ""})]
    if kind == "text":
        events += [chunk({"content": p}) for p in pieces]
    elif kind == "reasoning":  # compatible servers (vLLM, DeepSeek, llama-server) stream reasoning_content
        events += [chunk({"reasoning_content": p}) for p in pieces] + [chunk({"content": "ok"})]
    else:
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "echo", "arguments": ""}}
        events.append(chunk({"tool_calls": [call]}))
        events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
    events.append(chunk({}, "tool_calls" if kind == "arguments" else "stop"))
    events.append((None, "[DONE]"))
    return _sse(events)


def _responses(kind: str, pieces: list[str]) -> bytes:
    assert kind == "text"
    msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": []}
    base = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m-1"}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}}),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": {**msg, "status": "in_progress"}},
        ),
    ]
    events += [
        (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": p,
            },
        )
        for p in pieces
    ]
    done = {**msg, "content": [{"type": "output_text", "text": "".join(pieces), "annotations": []}]}
    events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": done}))
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    **base,
                    "status": "completed",
                    "output": [done],
                    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
                },
            },
        )
    )
    return _sse(events)


def _gemini(kind: str, pieces: list[str]) -> bytes:
    thought = {"thought": True} if kind == "reasoning" else {}
    chunks: list[tuple[str | None, Any]] = [
        (
            None,
            {"candidates": [{"content": {"role": "model", "parts": [{"text": p, **thought}]}, "index": 0}]},
        )
        for p in pieces
    ]
    last = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "ok" if thought else ""}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
    return _sse(chunks + [(None, last)])


BUILD = {"anthropic": _anthropic, "openai-chat": _chat, "openai": _responses, "gemini": _gemini}


def echo(text: str) -> str:
    """Echo the text."""
    return text


_MODELS: dict[str, tuple[Any, dict[str, bytes]]] = {}


def _model(api: str, body: bytes) -> Any:
    """One model per API for the whole module (a client is costly to make); each request is
    answered with the body given last."""
    if api not in _MODELS:
        holder: dict[str, bytes] = {}

        def respond(request: Any) -> Any:
            return httpx2.Response(200, content=holder["body"], headers={"content-type": "text/event-stream"})

        client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
        model = toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, stream=True)
        _MODELS[api] = (model, holder)
    model, holder = _MODELS[api]
    holder["body"] = body
    return model


def _response(api: str, kind: str, pieces: list[str]) -> Any:
    model = _model(api, BUILD[api](kind, pieces))
    tools = [toolwire.tool(echo)] if kind == "arguments" else None
    request = model.build_request([Message("user", [TextPart("go")])], tools=tools)

    async def main() -> Any:
        return await collect_stream(model.send_stream(request), model.provider)

    return run_coroutine(main())  # the thread's own reused loop (the model's client stays on it)


def _part_text(response: Any, kind: str) -> str:
    if kind == "text":
        return response.text
    if kind == "reasoning":
        return "".join(p.text for p in response.parts if type(p).__name__ == "ReasoningPart")
    (call,) = [p for p in response.parts if type(p).__name__ == "ToolCall"]
    assert call.invalid is None, call.invalid
    return call.arguments["text"]


CASES = [
    ("anthropic", "text"),
    ("anthropic", "reasoning"),
    ("anthropic", "arguments"),
    ("openai-chat", "text"),
    ("openai-chat", "reasoning"),
    ("openai-chat", "arguments"),
    ("openai", "text"),
    ("gemini", "text"),
    ("gemini", "reasoning"),
]

_UNIT = st.one_of(
    st.integers(0x20, 0x7E),
    st.sampled_from([0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0xD800, 0xDFFF]),  # surrogates, paired or lone
    st.integers(0xA0, 0xFFFF).filter(lambda u: u != 0xFEFF),
)


def _units_of(kind: str, units: list[int]) -> tuple[list[int], int]:
    """The code units streamed for ``units`` (arguments: inside a JSON object) and where they start."""
    if kind != "arguments":
        return units, 0
    head = _units('{"text": "')
    # a '"' or '\\' among the units would end or escape the JSON string: the strategy has none
    return head + units + _units('"}'), len(head)


@pytest.mark.parametrize(("api", "kind"), CASES)
def test_an_emoji_split_between_two_deltas_is_one_character(api: str, kind: str) -> None:
    units = _units(f"a{EMOJI}b")
    full, at = _units_of(kind, units)
    cut = at + 2  # between the two halves of the pair
    pieces = ["".join(chr(u) for u in full[:cut]), "".join(chr(u) for u in full[cut:])]
    assert pieces[0].endswith("\ud83d") and pieces[1].startswith("\ude00")
    assert _part_text(_response(api, kind, pieces), kind) == f"a{EMOJI}b"


@pytest.mark.parametrize(("api", "kind"), CASES)
def test_a_lone_high_surrogate_at_the_end_still_becomes_the_replacement_character(api: str, kind: str) -> None:
    units = _units("ab") + [0xD83D]
    full, at = _units_of(kind, units)
    pieces = ["".join(chr(u) for u in full[: at + 1]), "".join(chr(u) for u in full[at + 1 :])]
    assert _part_text(_response(api, kind, pieces), kind) == "ab\ufffd"


@pytest.mark.parametrize(("api", "kind"), CASES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(units=st.lists(_UNIT, min_size=1, max_size=12), cuts=st.lists(st.integers(0, 40), max_size=6))
def test_any_split_gives_the_same_text_as_the_unsplit_stream(
    api: str, kind: str, units: list[int], cuts: list[int]
) -> None:
    units = [u for u in units if u not in (0x22, 0x5C)]  # no '"' or '\\' (arguments are a JSON string)
    if not units:
        units = [0x61]
    full, _ = _units_of(kind, units)
    whole = _part_text(_response(api, kind, ["".join(chr(u) for u in full)]), kind)
    split = _part_text(_response(api, kind, _pieces(full, cuts)), kind)
    assert whole == split == _expected(units)


@settings(max_examples=60, deadline=None)
@given(units=st.lists(_UNIT, max_size=16), cuts=st.lists(st.integers(0, 40), max_size=8))
def test_the_run_events_text_deltas_carry_whole_characters(units: list[int], cuts: list[int]) -> None:
    """The deltas a run shows join to the response's text, and none holds a lone surrogate (a
    delta printed or encoded as UTF-8 does not fail)."""
    model = _model("openai-chat", _chat("text", _pieces(units, cuts) if units else [""]))

    async def main() -> tuple[list[str], str]:
        deltas, text = [], None
        async with toolwire.run_stream(model, "go") as stream:
            async for e in stream:
                if isinstance(e, ev.TextDelta):
                    deltas.append(e.text)
                elif isinstance(e, ev.RunFinished):
                    text = e.result.text
        assert text is not None
        return deltas, text

    deltas, text = run_coroutine(main())
    assert "".join(deltas) == text == _expected(units)
    for d in deltas:
        d.encode("utf-8")  # raises UnicodeEncodeError for a lone surrogate


def test_surrogate_pairs_alone_join_a_pair_and_send_a_lone_half_as_replacement() -> None:
    pairs = SurrogatePairs()
    first, second = TextDelta(0, "ab\ud83d"), TextDelta(0, "\ude00c")
    assert list(pairs.fix([first])) == [first] and first.text == "ab"  # the high half is held back
    assert list(pairs.fix([second])) == [second] and second.text == f"{EMOJI}c"
    low = TextDelta(0, "\ude00")  # a low half with no high one before it
    assert list(pairs.fix([low])) == [low] and low.text == "\ufffd"
    held = ReasoningDelta(1, "r\ud83d")
    stop = StopEvent("end_turn")
    # another event comes: the held half is sent before it, as U+FFFD, in a delta of its part
    assert list(pairs.fix([held, stop])) == [ReasoningDelta(1, "r"), ReasoningDelta(1, "\ufffd"), stop]
    args = ToolCallDelta(2, '{"q": "\ud83d')
    assert list(pairs.fix([args])) == [ToolCallDelta(2, '{"q": "')]
    assert list(pairs.finish()) == [ToolCallDelta(2, "\ufffd")]  # the stream ended
    assert list(pairs.finish()) == []


def test_the_assembler_itself_keeps_text_exactly() -> None:
    """The assembler joins what it is fed as it is (the pairing is the transport's, by
    :class:`SurrogatePairs`): a lone surrogate fed to it directly stays."""
    asm = StreamAssembler("test")
    for piece in ("ab\ud83d", "\ude00c", "\ud800"):
        asm.feed(TextDelta(0, piece))
    assert asm.response().text == "ab\ud83d\ude00c\ud800"


def test_interleaved_parts_keep_their_own_held_half() -> None:
    """Two tool calls whose argument deltas interleave (0, 1, 0, 1), each split inside an emoji:
    each call's high half waits for its own low half; an event of the whole answer sends a
    half nothing completed as U+FFFD."""
    pairs = SurrogatePairs()
    a1, b1 = ToolCallDelta(0, '{"q": "x\ud83d'), ToolCallDelta(1, '{"q": "y\ud83d')
    a2, b2 = ToolCallDelta(0, '\ude00"}'), ToolCallDelta(1, '\ude00"}')
    out = list(pairs.fix([a1, b1, a2, b2]))
    assert [d.arguments_fragment for d in out] == ['{"q": "x', '{"q": "y', f'{EMOJI}"}}', f'{EMOJI}"}}']
    held = ToolCallDelta(0, '{"q": "\ud83d')
    other = ToolCallDelta(1, "z")
    stop = StopEvent("tool_use")
    assert list(pairs.fix([held, other, stop])) == [
        ToolCallDelta(0, '{"q": "'),
        ToolCallDelta(1, "z"),
        ToolCallDelta(0, "\ufffd"),
        stop,
    ]
