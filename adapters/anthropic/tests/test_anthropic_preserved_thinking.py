"""Preserved thinking: a thinking block sent back is valid only while everything before it (the
top-level ``system``, ``tools`` and every earlier message) is what the request that produced it
sent (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking, "Keeping the
prefix unchanged"; ``cache_control`` markers are not part of the comparison, "What counts as an
edit"). These tests run multi-turn thinking runs through the real SDK (MockTransport network) and
compare, for every thinking block of every request, its prefix with the request that produced it.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

import toolwire
from toolwire import tool
from toolwire.types import Conversation

MODEL = "claude-fable-5-1"
INSTRUCTIONS = "You are a careful assistant.\r\nUse the tools.  "
THINKING = {"type": "adaptive"}


@tool
async def slow_lookup(city: str) -> str:
    """Look a city up (slowly).

    Args:
        city: the city
    """
    await asyncio.sleep(0.02)
    return f"{city}: 12 °C  \r\n"


@tool
async def fast_lookup(city: str) -> str:
    """Look a city up (fast).

    Args:
        city: the city
    """
    return f"{city}: cafe\u0301"  # decomposed é: sent back as given, never normalized


@tool
def fails(reason: str) -> str:
    """Always fails.

    Args:
        reason: why
    """
    raise ValueError(reason)


TOOLS = [slow_lookup, fast_lookup, fails]


def _strip_cache_control(value: Any) -> Any:
    """``value`` without ``cache_control`` keys (the prefix check leaves them out)."""
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in value]
    return value


def _canonical(value: Any) -> str:
    return json.dumps(_strip_cache_control(value), sort_keys=False, ensure_ascii=False)


def _thinking_key(block: dict[str, Any]) -> str | None:
    if block.get("type") == "thinking":
        return "sig:" + str(block.get("signature"))
    if block.get("type") == "redacted_thinking":
        return "data:" + str(block.get("data"))
    return None


def prefix_problems(exchanges: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[str]:
    """For every thinking block of every request body, where its prefix differs from the prefix
    in the request whose response produced it (as JSON, ``cache_control`` left out): the
    top-level ``system`` and ``tools``, every message before the block's message, and the blocks
    before it in its own message (compared with the response's content)."""
    produced: dict[str, tuple[int, int]] = {}  # thinking key -> (request index, position in response)
    problems: list[str] = []
    for k, (body, response_content) in enumerate(exchanges):
        for mi, msg in enumerate(body.get("messages", [])):
            content = msg.get("content")
            if not isinstance(content, list):
                continue
            for bi, block in enumerate(content):
                key = _thinking_key(block) if isinstance(block, dict) else None
                if key is None:
                    continue
                if key not in produced:
                    problems.append(f"request {k}: messages.{mi}.content.{bi} was produced by no earlier request")
                    continue
                j, pos = produced[key]
                src = exchanges[j][0]
                for field in ("system", "tools"):
                    if _canonical(src.get(field)) != _canonical(body.get(field)):
                        problems.append(
                            f"request {k}: messages.{mi}.content.{bi} (from request {j}): {field} differs: "
                            f"{_canonical(src.get(field))[:300]} != {_canonical(body.get(field))[:300]}"
                        )
                n = len(src["messages"])
                if mi != n:
                    problems.append(f"request {k}: messages.{mi}.content.{bi} (from request {j}) should be message {n}")
                    continue
                for i in range(n):
                    a, b = _canonical(src["messages"][i]), _canonical(body["messages"][i])
                    if a != b:
                        problems.append(
                            f"request {k}: messages.{mi}.content.{bi} (from request {j}): messages.{i} differs: "
                            f"{a[:400]} != {b[:400]}"
                        )
                before = _canonical(exchanges[j][1][:pos])
                if bi != pos or _canonical(content[:bi]) != before:
                    problems.append(
                        f"request {k}: messages.{mi}.content.{bi} (from request {j}, block {pos}): the blocks before "
                        f"it in its message differ: {before[:300]} != {_canonical(content[:bi])[:300]}"
                    )
        for pos, block in enumerate(response_content):
            key = _thinking_key(block)
            if key is not None:
                produced.setdefault(key, (k, pos))
    return problems


def _sse_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE events Anthropic streams for the message ``body``."""
    start = {**body, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(body["content"]):
        btype = block["type"]
        if btype == "thinking":
            events.append(
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                }
            )
            if block["thinking"]:
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "thinking_delta", "thinking": block["thinking"]},
                    }
                )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "signature_delta", "signature": block["signature"]},
                }
            )
        elif btype == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            if block["text"]:
                events.append(
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
                )
        elif btype == "tool_use":
            events.append({"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}})
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"], ensure_ascii=False),
                    },
                }
            )
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": body["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _turns(tag: str, n_tool_turns: int) -> list[list[dict[str, Any]]]:
    """The content of ``n_tool_turns`` tool-calling answers then a final one, each with thinking:
    unicode and whitespace in thinking and text, an empty thinking text (display omitted), a
    redacted block, tool inputs with unsorted keys, parallel calls that finish out of order."""
    turns: list[list[dict[str, Any]]] = []
    for t in range(n_tool_turns):
        blocks: list[dict[str, Any]] = []
        if t % 3 == 1:
            blocks.append({"type": "redacted_thinking", "data": f"EncData{tag}{t}=="})
        blocks.append(
            {
                "type": "thinking",
                "thinking": "" if t % 3 == 2 else f"Turn {t}: cafe\u0301 and café,  two spaces\r\n\ttab ",
                "signature": f"Sig{tag}{t}/+==",
            }
        )
        if t % 2 == 0:
            blocks.append({"type": "text", "text": f"Checking {t}…  "})
        blocks.append(
            {"type": "tool_use", "id": f"toolu_{tag}{t}a", "name": "slow_lookup", "input": {"city": "Zürich"}}
        )
        blocks.append(
            {"type": "tool_use", "id": f"toolu_{tag}{t}b", "name": "fast_lookup", "input": {"city": "Genève"}}
        )
        if t == 1:
            blocks.append({"type": "tool_use", "id": f"toolu_{tag}{t}c", "name": "fails", "input": {"reason": "no"}})
        turns.append(blocks)
    turns.append(
        [
            {"type": "thinking", "thinking": "Done.", "signature": f"Sig{tag}final=="},
            {"type": "text", "text": f"All done ({tag})."},
        ]
    )
    return turns


def _responses(wire: Any, contents: list[list[dict[str, Any]]], stream: bool) -> list[Any]:
    out = []
    for i, content in enumerate(contents):
        calls = any(b["type"] == "tool_use" for b in content)
        body = wire.message_body(
            content,
            stop_reason="tool_use" if calls else "end_turn",
            usage={"input_tokens": 1000 + i, "output_tokens": 50},
            model=MODEL,
            msg_id=f"msg_{i:03d}",
        )
        out.append(wire.sse_response(_sse_events(body)) if stream else wire.json_response(body))
    return out


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("stream", [False, True])
def test_every_thinking_block_goes_back_with_the_prefix_it_was_produced_under(mock_model, wire, cache, stream) -> None:
    """A 9-turn thinking run (more than 16 messages: the incremental encoding takes over without
    caching), then the saved conversation continued with the same instructions and tools: each
    request's system, tools and messages before every earlier thinking block are what the request
    that produced the block sent."""
    first = _turns("A", 8)
    second = _turns("B", 2)
    model = mock_model(
        _responses(wire, first + second, stream), model_id=MODEL, thinking=THINKING, cache=cache, stream=stream
    )
    result = toolwire.run_sync(
        model, "Weather in Zürich and Genève?", tools=TOOLS, instructions=INSTRUCTIONS, max_turns=20
    )
    assert result.text == "All done (A)." and len(model.sent) == 9
    saved = Conversation.from_json(result.conversation.to_json())
    again = toolwire.run_sync(model, "And again?  ", conversation=saved, tools=TOOLS, max_turns=20)
    assert again.text == "All done (B)."
    bodies = [s.json for s in model.sent]
    assert len(bodies) == 12
    exchanges = list(zip(bodies, first + second))
    assert prefix_problems(exchanges) == []
    # every thinking block produced went back, in the order produced
    last = bodies[-1]["messages"]
    sent_back = [b for m in last if isinstance(m["content"], list) for b in m["content"] if _thinking_key(b)]
    produced = [b for c in first + second[:-1] for b in c if _thinking_key(b)]
    assert sent_back == produced


def test_the_prefix_checker_sees_an_edit() -> None:
    """The checker itself: a changed system prompt, a changed earlier message and a moved
    cache_control breakpoint (which does not count)."""
    think = {"type": "thinking", "thinking": "t", "signature": "S1"}
    r0 = {"system": "a", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    r1 = copy.deepcopy(r0)
    r1["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    r1["messages"] += [{"role": "assistant", "content": [think]}, {"role": "user", "content": "more"}]
    assert prefix_problems([(r0, [think]), (r1, [])]) == []
    r2 = copy.deepcopy(r1)
    r2["system"] = "b"
    r2["messages"][0]["content"][0]["text"] = "hi "
    problems = prefix_problems([(r0, [think]), (r2, [])])
    assert len(problems) == 2 and "system differs" in problems[0] and "messages.0 differs" in problems[1]


def test_the_system_prompt_keeps_its_form_when_your_breakpoints_leave_none_for_it(mock_model, wire) -> None:
    """With prompt caching and two breakpoints of your own on tools, the system prompt gets no
    breakpoint from the second request on (the four are used up): it is still sent as the one
    text block the first request sent, not as a string."""
    import dataclasses

    marked = {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    tools = [
        dataclasses.replace(slow_lookup, provider_data=marked),
        fast_lookup,
        dataclasses.replace(fails, provider_data=marked),
    ]
    contents = _turns("C", 3)
    model = mock_model(_responses(wire, contents, False), model_id=MODEL, thinking=THINKING, cache=True)
    result = toolwire.run_sync(model, "Weather?", tools=tools, instructions=INSTRUCTIONS)
    assert result.text == "All done (C)."
    bodies = [s.json for s in model.sent]
    assert [_strip_cache_control(b["system"]) for b in bodies] == [[{"type": "text", "text": INSTRUCTIONS}]] * 4
    assert "cache_control" in bodies[0]["system"][0] and "cache_control" not in bodies[1]["system"][0]
    assert prefix_problems(list(zip(bodies, contents))) == []


# -- thinking.block_binding and input_transformations ------------------------------------------

BINDING = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
DROPPED = [
    {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"},
    {"type": "thinking_mismatch_allowed", "path": "messages.3.content.0", "reason": "prefix_binding_mismatch"},
]


@pytest.mark.parametrize("stream", [False, True])
def test_block_binding_is_sent_with_its_beta_header_and_the_drops_are_kept(mock_model, wire, stream) -> None:
    """thinking.block_binding is accepted as a model setting and sent as given, with the
    ``anthropic-beta: thinking-binding-controls-2026-08-01`` header (added to the betas the client
    sends already, as for fast mode: test_anthropic_preflight.py);
    the response's ``input_transformations`` is kept in ``provider_data["anthropic"]``."""
    body = wire.message_body(
        [{"type": "thinking", "thinking": "", "signature": "SigX=="}, {"type": "text", "text": "ok"}], model=MODEL
    )
    body["input_transformations"] = DROPPED
    if stream:
        events = _sse_events(body)
        assert events[0]["message"]["input_transformations"] == DROPPED
        response = wire.sse_response(events)
    else:
        response = wire.json_response(body)
    model = mock_model([response], model_id=MODEL, thinking=BINDING, stream=stream)
    result = toolwire.run_sync(model, "hi", instructions="Be brief.")
    sent = model.sent[0]
    assert sent.json["thinking"] == BINDING
    assert sent.headers["anthropic-beta"] == "thinking-binding-controls-2026-08-01"
    assert result.turns[0].response.provider_data["anthropic"]["input_transformations"] == DROPPED


def test_input_transformations_of_a_fallback_replace_those_of_message_start(mock_model, wire) -> None:
    body = wire.message_body([{"type": "text", "text": "ok"}], model=MODEL)
    body["input_transformations"] = []
    events = _sse_events(body)
    later = [{"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "model_binding_mismatch"}]
    events[-2]["input_transformations"] = later  # the final message_delta, after a server-side fallback
    model = mock_model([wire.sse_response(events)], model_id=MODEL, thinking=BINDING, stream=True)
    result = toolwire.run_sync(model, "hi")
    assert result.turns[0].response.provider_data["anthropic"]["input_transformations"] == later


def test_without_block_binding_no_beta_header_is_added(mock_model, wire) -> None:
    model = mock_model([wire.json_response(wire.message_body([{"type": "text", "text": "ok"}]))], model_id=MODEL)
    toolwire.run_sync(model, "hi")
    assert "anthropic-beta" not in model.sent[0].headers


@pytest.mark.parametrize(
    ("thinking", "words"),
    [
        ({"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop"}}, "'error' or 'drop_block'"),
        ({"type": "adaptive", "block_binding": {"mismatch": "drop_block"}}, "no field 'mismatch'"),
        ({"type": "adaptive", "block_binding": "drop_block"}, "must be an object"),
        (
            {"type": "disabled", "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
            "has no field 'block_binding'",
        ),
    ],
)
def test_a_block_binding_the_api_would_refuse_is_a_configuration_error(thinking, words) -> None:
    from toolwire_anthropic import AnthropicModel

    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="anthropic.request.field-values") as exc:
        AnthropicModel(MODEL, api_key="k", thinking=thinking)
    assert words in str(exc.value)


@pytest.mark.parametrize("behavior", ["error", "drop_block", None])
def test_block_binding_values_the_sdk_types_are_accepted(behavior) -> None:
    from toolwire_anthropic import AnthropicModel

    for kind in ({"type": "adaptive"}, {"type": "enabled", "budget_tokens": 2048}):
        AnthropicModel(MODEL, api_key="k", thinking={**kind, "block_binding": {"prefix_mismatch_behavior": behavior}})
        AnthropicModel(MODEL, api_key="k", thinking={**kind, "block_binding": {}})


def test_count_tokens_sends_block_binding_with_its_beta_header(mock_model, wire) -> None:
    model = mock_model([wire.json_response({"input_tokens": 42})], model_id=MODEL, thinking=BINDING)
    from toolwire.adapter import ModelRequest
    from toolwire.types import Message, TextPart

    request = model.build_request([Message("user", [TextPart("hi")])])
    assert asyncio.run(model.count_tokens(request)) == 42
    assert model.sent[0].url.endswith("/v1/messages/count_tokens")
    assert model.sent[0].json["thinking"] == BINDING
    assert "thinking-binding-controls-2026-08-01" in model.sent[0].headers["anthropic-beta"]
    assert isinstance(request, ModelRequest)
