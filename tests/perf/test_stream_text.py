"""Streamed text and reasoning are kept as fragments and joined in ``response()``: the same text,
at any point of the stream, however many deltas."""

from __future__ import annotations

from toolwire.stream import ReasoningDelta, StreamAssembler, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart


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
