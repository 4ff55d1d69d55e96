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


# -- a saved conversation continued with other instructions or tools ---------------------------

CHANGED_RULE = "anthropic.conversation.thinking-prefix-changed"


@tool
def other_lookup(city: str) -> str:
    """Look a city up elsewhere.

    Args:
        city: the city
    """
    return city


def _saved_run(mock_model, wire, stream: bool, *, model_id: str = MODEL, thinking: Any = THINKING) -> tuple[Any, Any]:
    """A 3-turn thinking run (two tool turns, then an answer) saved as JSON and loaded again, plus
    the model: the loaded conversation's thinking blocks carry the fingerprint of the system
    prompt and tools they were produced with."""
    first = _turns("S", 2)
    model = mock_model(
        _responses(wire, first, stream) + _responses(wire, _turns("T", 1), stream),
        model_id=model_id,
        thinking=thinking,
        stream=stream,
    )
    result = toolwire.run_sync(model, "Weather?", tools=TOOLS, instructions=INSTRUCTIONS, max_turns=10)
    assert result.text == "All done (S)." and len(model.sent) == 3
    return Conversation.from_json(result.conversation.to_json()), model


def _sent_thinking(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"] if _thinking_key(b)]


def _produced(tags: str) -> list[dict[str, Any]]:
    """Every thinking block of the first run (``_saved_run``), in order."""
    return [b for c in _turns(tags, 2) for b in c if _thinking_key(b)]


def test_thinking_parts_record_the_prefix_they_were_produced_under(mock_model, wire) -> None:
    saved, _ = _saved_run(mock_model, wire, False)
    parts = [p for m in saved.messages for p in m.parts if isinstance(p, toolwire.ReasoningPart)]
    assert len(parts) == 4
    prints = [p.provider_data["anthropic"] for p in parts]
    assert all(set(pd) == {"prefix_system", "prefix_tools"} for pd in prints)
    assert all(len(pd["prefix_system"]) == 16 and len(pd["prefix_tools"]) == 16 for pd in prints)
    assert len({(pd["prefix_system"], pd["prefix_tools"]) for pd in prints}) == 1  # one run: one prefix


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"instructions": "You are terse."}, "the instructions (system prompt)"),
        ({"tools": [*TOOLS, other_lookup]}, "the tools"),
        ({"instructions": "You are terse.", "tools": TOOLS[:2]}, "the instructions (system prompt) and the tools"),
    ],
)
def test_a_continuation_with_other_instructions_or_tools_leaves_the_stale_thinking_out(
    mock_model, wire, stream, change, words
) -> None:
    saved, model = _saved_run(mock_model, wire, stream)
    kwargs = {"tools": TOOLS, **change}
    again = toolwire.run_sync(model, "And again?", conversation=saved, max_turns=10, **kwargs)
    assert again.text == "All done (T)."
    bodies = [s.json for s in model.sent]
    assert len(bodies) == 5
    # the first request of the continuation sends none of the earlier run's thinking ...
    assert _sent_thinking(bodies[3]) == []
    # ... and the next one only what the continuation produced, under its own prefix
    assert _sent_thinking(bodies[4]) == [b for b in _turns("T", 1)[0] if _thinking_key(b)]
    assert prefix_problems(list(zip(bodies[3:], _turns("T", 1)))) == []
    # everything else of the history went as before
    assert len(bodies[3]["messages"]) == len(bodies[2]["messages"]) + 2
    for body in bodies[3:]:
        assert validate("anthropic", body) == []
    for turn in again.turns:
        changes = [c for c in turn.response.preflight or [] if c.rule == CHANGED_RULE]
        assert len(changes) == 1, turn.response.preflight
        change_ = changes[0]
        assert change_.lossy and change_.pointer == "/messages/5/parts/0"
        assert words + " differ" in change_.detail
        assert "4 thinking blocks" in change_.detail and "drop_block" in change_.detail


def test_continuing_with_the_same_instructions_and_tools_keeps_every_thinking_block(mock_model, wire) -> None:
    saved, model = _saved_run(mock_model, wire, False)
    again = toolwire.run_sync(model, "And again?", conversation=saved, tools=TOOLS, max_turns=10)
    assert again.text == "All done (T)."
    assert _sent_thinking(model.sent[3].json) == _produced("S")
    assert all(c.rule != CHANGED_RULE for t in again.turns for c in t.response.preflight or [])


def test_a_model_without_the_prefix_check_keeps_the_thinking(mock_model, wire) -> None:
    manual = {"type": "enabled", "budget_tokens": 2048}
    saved, model = _saved_run(mock_model, wire, False, model_id="claude-sonnet-4-5", thinking=manual)
    toolwire.run_sync(model, "And again?", conversation=saved, tools=TOOLS, instructions="Other.", max_turns=10)
    assert _sent_thinking(model.sent[3].json) == _produced("S")


def test_block_binding_drop_block_keeps_the_thinking_for_the_api_to_drop(mock_model, wire) -> None:
    saved, model = _saved_run(mock_model, wire, False, thinking=BINDING)
    again = toolwire.run_sync(model, "And again?", conversation=saved, tools=TOOLS, instructions="Other.", max_turns=10)
    assert _sent_thinking(model.sent[3].json) == _produced("S")
    assert all(c.rule != CHANGED_RULE for t in again.turns for c in t.response.preflight or [])


def test_thinking_without_a_recorded_prefix_is_left_as_it_is(mock_model, wire) -> None:
    """A conversation saved before prefixes were recorded (or built by hand): nothing to compare."""
    saved, model = _saved_run(mock_model, wire, False)
    for m in saved.messages:
        for p in m.parts:
            if isinstance(p, toolwire.ReasoningPart):
                p.provider_data = {}
    toolwire.run_sync(model, "And again?", conversation=saved, tools=TOOLS, instructions="Other.", max_turns=10)
    assert _sent_thinking(model.sent[3].json) == _produced("S")


def test_only_the_thinking_up_to_the_last_stale_block_is_left_out(mock_model, wire) -> None:
    """Thinking produced under the new instructions after the stale blocks stays; every block
    before the last stale one goes (leaving one out in the middle would fail the check too)."""
    saved, model = _saved_run(mock_model, wire, False)
    parts = [p for m in saved.messages for p in m.parts if isinstance(p, toolwire.ReasoningPart)]
    parts[0].provider_data = {}  # no prefix recorded: left out all the same, being before a stale block
    toolwire.run_sync(model, "And again?", conversation=saved, tools=TOOLS, instructions="Other.", max_turns=10)
    # the continuation's own thinking goes back on its next request; the earlier run's does not
    assert _sent_thinking(model.sent[3].json) == []
    assert _sent_thinking(model.sent[4].json) == [b for b in _turns("T", 1)[0] if _thinking_key(b)]


def test_a_resumed_tool_loop_stays_valid_without_its_stale_thinking(mock_model, wire) -> None:
    """A tool loop resumed with other instructions: the assistant turn whose calls are answered
    loses its (stale) thinking. Every model that runs the prefix check takes adaptive thinking
    only, where such a turn without thinking is valid (rule anthropic.conversation.thinking-in-tool-loop
    is for manual thinking, which these models refuse): thinking stays on and the request passes
    the independent validator."""
    from toolwire.types import Message, ReasoningPart, TextPart, ToolResult

    first = [
        {"type": "thinking", "thinking": "Look it up.", "signature": "SigM0=="},
        {"type": "tool_use", "id": "toolu_m0", "name": "fast_lookup", "input": {"city": "Bern"}},
    ]
    model = mock_model(
        _responses(wire, [first], False) + _responses(wire, _turns("U", 0), False), model_id=MODEL, thinking=THINKING
    )
    request = model.build_request([Message.user("Bern?")], instructions=INSTRUCTIONS, tools=TOOLS)
    response = asyncio.run(model.send(request))
    reasoning = response.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert set(reasoning.provider_data["anthropic"]) == {"prefix_system", "prefix_tools"}
    history = [
        Message.user("Bern?"),
        Message("assistant", response.parts),
        Message("user", [ToolResult("toolu_m0", "Bern: 9 °C")]),
    ]
    later = model.build_request(history, instructions="Other instructions.", tools=TOOLS)
    final = asyncio.run(model.send(later))
    assert isinstance(final.parts[-1], TextPart)
    body = model.sent[1].json
    assert _sent_thinking(body) == [] and body["thinking"] == THINKING
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]
    assert validate("anthropic", body) == []
    assert [c.rule for c in final.preflight or []] == [CHANGED_RULE]
    # the same request with the first instructions keeps the thinking
    same = model.build_request(history, instructions=INSTRUCTIONS, tools=TOOLS)
    assert _sent_thinking(model.prepare(same)) == [
        {"type": "thinking", "thinking": "Look it up.", "signature": "SigM0=="}
    ]


def validate(api: str, body: dict[str, Any]) -> list[Any]:
    """The independent vendor-rules validator (tests/vendor_rules/validator)."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "tests"
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from vendor_rules.validator import validate as _validate  # pyright: ignore[reportMissingImports]

    return _validate(api, body)


@pytest.mark.parametrize("tools_after", ["same", "changed"])
def test_a_run_state_saved_and_resumed_keeps_the_recorded_prefix(mock_model, wire, tools_after) -> None:
    """A run paused on a deferred call, saved (RunState.to_json) and resumed: the thinking part
    keeps its recorded prefix, so it goes back when the tools are the same and is left out
    (reported) when they changed."""
    from toolwire import RunState

    first = [
        {"type": "thinking", "thinking": "Ask the client.", "signature": "SigD0=="},
        {"type": "tool_use", "id": "toolu_d0", "name": "fast_lookup", "input": {"city": "Bern"}},
    ]
    model = mock_model(_responses(wire, [first], False) + _responses(wire, _turns("R", 0), False), model_id=MODEL)
    paused = toolwire.run_sync(model, "Bern?", tools=TOOLS, instructions=INSTRUCTIONS, deferred=["fast_lookup"])
    assert paused.state.status == "paused"
    loaded = RunState.from_json(paused.state.to_json())
    tools = TOOLS if tools_after == "same" else [*TOOLS, other_lookup]
    done = toolwire.run_sync(
        model, tools=tools, deferred=["fast_lookup"], resume=loaded, decisions={"toolu_d0": "Bern: 9 °C"}
    )
    assert done.text == "All done (R)."
    body = model.sent[1].json
    assert validate("anthropic", body) == []
    rules = [c.rule for t in done.turns for c in t.response.preflight or []]
    if tools_after == "same":
        assert _sent_thinking(body) == [first[0]] and CHANGED_RULE not in rules
    else:
        assert _sent_thinking(body) == [] and rules.count(CHANGED_RULE) == 1
