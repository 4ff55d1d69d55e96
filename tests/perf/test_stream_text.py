"""Streamed text and reasoning are kept as fragments and joined in ``response()``: the same text,
at any point of the stream, however many deltas."""

from __future__ import annotations

from toolwire.stream import (
    ReasoningDelta,
    StopEvent,
    StreamAssembler,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from toolwire.types import Usage


def test_many_text_and_reasoning_deltas_join_to_the_whole_text():
    pieces = [f"{i % 10}" * (i % 7) for i in range(5000)]
    asm = StreamAssembler("test")
    for p in pieces:
        asm.feed(ReasoningDelta(0, p))
        asm.feed(TextDelta(1, p))
    r = asm.response()
    assert r.parts[0].text == "".join(pieces) and r.parts[1].text == "".join(pieces)
    assert r.text == "".join(pieces)


def test_a_partial_response_mid_stream_and_the_final_one_both_hold_what_arrived():
    asm = StreamAssembler("test")
    asm.feed(TextDelta(0, "Hel"))
    asm.feed(TextDelta(0, "lo"))
    assert asm.response().text == "Hello"
    asm.feed(TextDelta(0, ", world"))
    asm.feed(ToolCallStart(1, "c1", "f"))
    asm.feed(ToolCallDelta(1, '{"a": '))
    asm.feed(ToolCallDelta(1, "1}"))
    asm.feed(ToolCallEnd(1))
    r = asm.response()
    assert r.text == "Hello, world"
    assert r.tool_calls[0].arguments == {"a": 1} and r.tool_calls[0].raw_arguments == '{"a": 1}'


def test_a_tool_call_open_at_a_partial_response_is_complete_once_it_ends():
    # StreamAssembler's docstring: response() "may also be called mid-stream (a partial response);
    # feeding may go on after it"
    asm = StreamAssembler("test")
    asm.feed(ToolCallStart(0, "c1", "f"))
    asm.feed(ToolCallDelta(0, '{"a": '))
    assert asm.response().tool_calls[0].incomplete  # open at the partial response: not runnable yet
    asm.feed(ToolCallDelta(0, "1}"))
    asm.feed(ToolCallEnd(0))
    asm.feed(StopEvent("tool_use"))
    call = asm.response().tool_calls[0]
    assert call.arguments == {"a": 1} and call.invalid is None
    assert not call.incomplete and call.is_valid


def test_a_partial_response_is_a_snapshot_that_later_events_do_not_change():
    asm = StreamAssembler("test")
    asm.feed(TextDelta(0, "Hel"))
    asm.feed(UsageUpdate(Usage(input_tokens=7, output_tokens=1)))
    partial = asm.response()
    asm.feed(TextDelta(0, "lo"))
    asm.feed(UsageUpdate(Usage(input_tokens=7, output_tokens=9)))
    asm.feed(StopEvent("end_turn"))
    final = asm.response()
    assert partial.parts[0].text == "Hel" and partial.usage.output_tokens == 1
    assert final.parts[0].text == "Hello" and final.usage.output_tokens == 9


def test_text_is_kept_exactly_line_ends_surrogates_and_wide_characters():
    pieces = ["a\r\nb", "\r", "\n", "c\rd", "\u2028x\x00", "😀", "\ud800", "", "é" * 3]
    asm = StreamAssembler("test")
    for p in pieces:
        asm.feed(TextDelta(0, p))
        asm.feed(ReasoningDelta(1, p))
    asm.feed(ToolCallStart(2, "c1", "f"))
    for p in ['{"s":\r\n "', "a\\r\\n", "é😀", '"}']:  # white space between JSON tokens, escapes
        asm.feed(ToolCallDelta(2, p))
    asm.feed(ToolCallEnd(2))
    r = asm.response()
    assert r.parts[0].text == "a\r\nb\r\nc\rd\u2028x\x00😀\ud800ééé"
    assert r.parts[1].text == r.parts[0].text
    assert r.tool_calls[0].raw_arguments == '{"s":\r\n "a\\r\\né😀"}'
    assert r.tool_calls[0].arguments == {"s": "a\r\né😀"}


def test_a_long_stream_of_small_deltas_holds_its_text_not_one_object_per_delta():
    import sys

    from toolwire import stream

    n = stream._JOIN_EVERY * 4 + 7
    frags = ["".join(["{", '"a": "']), *("".join(["x", str(i)]) for i in range(n)), '"}']  # objects of their own
    texts = ["".join(["t", str(i)]) for i in range(n)]
    before = [sys.getrefcount(f) for f in frags], [sys.getrefcount(t) for t in texts]
    asm = StreamAssembler("test")
    asm.feed(ToolCallStart(0, "c1", "f"))
    for f in frags:
        asm.feed(ToolCallDelta(0, f))
    for t in texts:
        asm.feed(TextDelta(1, t))
    after = [sys.getrefcount(f) for f in frags], [sys.getrefcount(t) for t in texts]
    held = sum(a > b for a, b in zip(after[0], before[0])), sum(a > b for a, b in zip(after[1], before[1]))
    assert held[0] <= stream._JOIN_EVERY and held[1] <= stream._JOIN_EVERY
    assert asm.response().text == "".join(texts)  # a partial response, then the stream goes on
    asm.feed(TextDelta(1, "!"))
    asm.feed(ToolCallEnd(0))
    r = asm.response()
    assert r.text == "".join(texts) + "!"
    assert r.tool_calls[0].raw_arguments == "".join(frags)
    assert r.tool_calls[0].arguments == {"a": "".join(frags[1:-1])}


def test_a_subclass_of_an_event_is_handled_as_its_base_and_other_objects_are_refused():
    import pytest

    from toolwire.errors import ResponseDecodeError

    class MyDelta(TextDelta):
        pass

    asm = StreamAssembler("test")
    asm.feed(MyDelta(0, "a"))
    asm.feed(TextDelta(0, "b"))
    asm.feed(MyDelta(0, "c"))
    assert asm.response().text == "abc"
    with pytest.raises(TypeError, match="not a stream event"):
        asm.feed("text")  # type: ignore[arg-type]
    with pytest.raises(ResponseDecodeError, match="a tool_call event arrived for a part that is a text part"):
        asm.feed(ToolCallStart(0, "c1", "f"))
    with pytest.raises(ResponseDecodeError, match="a text event arrived for a part that is a tool_call part"):
        asm.feed(ToolCallStart(1, "c1", "f"))
        asm.feed(TextDelta(1, "x"))
    with pytest.raises(ResponseDecodeError, match="arrived before the tool call started"):
        asm.feed(ToolCallDelta(0, "{}"))
    with pytest.raises(ResponseDecodeError, match="ended before it started"):
        asm.feed(ToolCallEnd(5))


def test_interleaved_deltas_of_many_parts_give_what_a_plain_join_gives():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    kinds = {0: "text", 1: "reasoning", 2: "tool_call", 3: "text", 4: "tool_call"}

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(sorted(kinds)), st.text(max_size=12)), max_size=60))
    def check(deltas):
        asm = StreamAssembler("test")
        expected: dict[int, list[str]] = {}
        for index in sorted(kinds):
            if kinds[index] == "tool_call":
                asm.feed(ToolCallStart(index, f"c{index}", "f"))
                expected[index] = []
        for index, piece in deltas:
            expected.setdefault(index, []).append(piece)
            if kinds[index] == "text":
                asm.feed(TextDelta(index, piece))
            elif kinds[index] == "reasoning":
                asm.feed(ReasoningDelta(index, piece))
            else:
                asm.feed(ToolCallDelta(index, piece))
        asm.feed(ToolCallEnd(2))  # index 4 is never ended: incomplete
        r = asm.response()
        assert len(r.parts) == len(expected)  # one part per index used, in index order
        got = {}
        for index, part in zip(sorted(expected), r.parts):
            got[index] = part.raw_arguments if kinds[index] == "tool_call" else part.text
        assert got == {i: "".join(v) for i, v in expected.items()}
        calls = {c.id: c for c in r.tool_calls}
        assert calls["c4"].incomplete and not calls["c2"].incomplete

    check()
