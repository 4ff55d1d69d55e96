"""The priced saving of prompt caching over a scripted three-turn run, per vendor: canned wire
responses that report cache reads (and Anthropic cache writes), priced with the pinned
genai-prices data, checked against amounts worked out by hand."""

from __future__ import annotations

import json
from decimal import Decimal as D

import toolwire


@toolwire.tool
def lookup(q: str) -> str:
    """Look a word up in the glossary. Use it for every unknown term.

    Args:
        q: the word
    """
    return "a definition"


#: (uncached input, cache read, cache write, output) per turn; every turn's input in all is
#: 2050, 2150 and 2190 tokens.
TURNS = [(50, 0, 2000, 40), (60, 2000, 90, 30), (20, 2090, 80, 10)]


def anthropic_turn(i: int, cached: bool) -> dict:
    fresh, read, write, out = TURNS[i]
    usage = (
        {"input_tokens": fresh, "cache_read_input_tokens": read, "cache_creation_input_tokens": write}
        if cached
        else {"input_tokens": fresh + read + write, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    )
    usage["output_tokens"] = out
    content = (
        [{"type": "tool_use", "id": f"toolu_0{i}", "name": "lookup", "input": {"q": f"w{i}"}}]
        if i < 2
        else [{"type": "text", "text": "done"}]
    )
    return {
        "id": f"msg_{i}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "tool_use" if i < 2 else "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }


def run(mock, spec, answers, **settings):
    model, sent = mock(spec, answers, **settings)
    result = toolwire.run_sync(model, "Define w0 and w1.", tools=[lookup], instructions="Answer briefly.")
    return result, sent


def test_anthropic_priced_saving(mock) -> None:
    cached, sent = run(mock, "anthropic:claude-sonnet-4-5", [anthropic_turn(i, True) for i in range(3)], cache=True)
    plain, _ = run(mock, "anthropic:claude-sonnet-4-5", [anthropic_turn(i, False) for i in range(3)])
    assert [t.response.usage.input_tokens for t in cached.turns] == [2050, 2150, 2190]
    assert [t.response.usage.cache_read_tokens for t in cached.turns] == [0, 2000, 2090]
    assert [t.response.usage.cache_write_tokens for t in cached.turns] == [2000, 90, 80]
    # by hand, claude-sonnet-4-5 at $3 input, $0.30 cache read, $3.75 cache write, $15 output per million:
    # turn 1: 50*3 + 2000*3.75 + 40*15 = 8250; turn 2: 60*3 + 2000*0.3 + 90*3.75 + 30*15 = 1567.5;
    # turn 3: 20*3 + 2090*0.3 + 80*3.75 + 10*15 = 1137 → $0.0109545
    assert [c.total_usd for c in cached.cost.turns] == [D("0.00825"), D("0.0015675"), D("0.001137")]
    assert cached.cost.priced_usd == D("0.0109545")
    # uncached: 6390 input tokens * 3 + 80 output * 15 = 20370 → $0.02037
    assert plain.cost.priced_usd == D("0.02037")
    assert plain.cost.priced_usd - cached.cost.priced_usd == D("0.0094155")
    # every request carried breakpoints; the third reads the second's cache point back
    assert all(json.dumps(b).count('"cache_control"') >= 2 for b in sent)
    third = sent[2]["messages"]
    assert [("cache_control" in m["content"][-1]) for m in third] == [False, False, True, False, True]


def chat_turn(i: int, cached: bool) -> dict:
    prompt, read, out = [(2050, 0, 40), (2150, 1920, 30), (2190, 2048, 10)][i]
    msg = (
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"q": f"w{i}"})},
                }
            ],
        }
        if i < 2
        else {"role": "assistant", "content": "done"}
    )
    return {
        "id": f"chatcmpl-{i}",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls" if i < 2 else "stop", "message": msg}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": out,
            "total_tokens": prompt + out,
            "prompt_tokens_details": {"cached_tokens": read if cached else 0},
        },
    }


def test_openai_chat_priced_saving(mock) -> None:
    cached, sent = run(mock, "openai-chat:gpt-4.1", [chat_turn(i, True) for i in range(3)], cache=True)
    plain, _ = run(mock, "openai-chat:gpt-4.1", [chat_turn(i, False) for i in range(3)])
    assert len({b["prompt_cache_key"] for b in sent}) == 1
    assert [t.response.usage.cache_read_tokens for t in cached.turns] == [0, 1920, 2048]
    # by hand, gpt-4.1 at $2 input, $0.50 cached input, $8 output per million:
    # 2050*2 + 40*8 = 4420; 230*2 + 1920*0.5 + 30*8 = 1660; 142*2 + 2048*0.5 + 10*8 = 1388 → $0.007468
    assert cached.cost.priced_usd == D("0.007468")
    assert plain.cost.priced_usd == D("0.01342")  # 6390*2 + 80*8
    assert plain.cost.priced_usd - cached.cost.priced_usd == D("0.005952")


def gemini_turn(i: int, cached: bool) -> dict:
    prompt, read, out = [(2050, 0, 40), (2150, 2000, 30), (2190, 2090, 10)][i]
    part = {"functionCall": {"name": "lookup", "args": {"q": f"w{i}"}}} if i < 2 else {"text": "done"}
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
    if cached and read:
        usage["cachedContentTokenCount"] = read
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
    }


def test_gemini_implicit_caching_priced_saving(mock) -> None:
    cached, _ = run(mock, "gemini:gemini-2.5-flash", [gemini_turn(i, True) for i in range(3)], cache=True)
    plain, _ = run(mock, "gemini:gemini-2.5-flash", [gemini_turn(i, False) for i in range(3)])
    assert [t.response.usage.cache_read_tokens for t in cached.turns] == [None, 2000, 2090]  # not reported: None
    # by hand, gemini-2.5-flash at $0.30 input, $0.03 cached input, $2.50 output per million:
    # 2050*0.3 + 40*2.5 = 715; 150*0.3 + 2000*0.03 + 30*2.5 = 180; 100*0.3 + 2090*0.03 + 10*2.5 = 117.7
    assert cached.cost.priced_usd == D("0.0010127")
    assert plain.cost.priced_usd == D("0.002117")  # 6390*0.3 + 80*2.5
    assert plain.cost.priced_usd - cached.cost.priced_usd == D("0.0011043")
