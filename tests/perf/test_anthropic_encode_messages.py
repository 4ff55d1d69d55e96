"""The Anthropic conversation encoder's shortcuts give what the rule-by-rule encoding gave.

``_encode_messages`` answers a message's calls from the ids it added (no copy of the ids sent so
far), sorts the answers only when there are several, looks a call's toolset up only when a call
carries provider data, and encodes a message without opaque blocks without placeholders or a
copy of its block list. These tests compare it with the encoder as it was before those
shortcuts (kept below as the reference, built on the same block encoders) over random
conversations: duplicate and colliding call ids (an id that is another id's wire form), results
in the wrong message or answering nothing, toolset members, opaque blocks put back by position,
empty texts, renamed tools.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire_anthropic import codec as C

from toolwire.turns import NOT_ANSWERED
from toolwire.types import Message, TextPart, ToolCall, ToolResult


def _ref_assistant(m: Message, sent_ids: set[str], names: dict[str, str] | None) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for p in m.parts:
        kind = C._kind(p, C._ASSISTANT_ORDER)
        if kind is TextPart:
            if p.text:
                blocks.append(C._encode_text(p))
        elif kind is ToolCall:
            wid = C._wire_id(p.id)
            if p.id in sent_ids or wid in sent_ids:
                continue
            sent_ids.add(p.id)
            sent_ids.add(wid)
            block = {
                "type": "tool_use",
                "id": wid,
                "name": C._history_name(p.name, names or {}),
                "input": p.arguments if isinstance(p.arguments, dict) else {},
            }
            if p.provider_data:
                block.update({k: v for k, v in C._own(p.provider_data).items() if k in C._TOOL_USE_EXTRAS})
            blocks.append(block)
    return C._insert_opaque(blocks, C._own(m.provider_data).get("blocks"))


def _ref_user(m: Message, skip: set[str]) -> list[dict[str, Any]]:
    blocks: list[Any] = []
    for p in m.parts:
        kind = C._kind(p, C._USER_ORDER)
        if kind is TextPart:
            if p.text:
                blocks.append(C._encode_text(p))
        elif kind is ToolResult:
            blocks.append(None if p.tool_call_id in skip else C._encode_result(p))
    placed = C._insert_opaque(blocks, C._own(m.provider_data).get("blocks"))
    return [b for b in placed if b is not None]


def _reference(messages: list[Message], names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The encoder before the shortcuts (same rules: results after their call, duplicates left
    out, unanswered calls answered, consecutive roles merged with results first)."""
    first_call: dict[str, int] = {}
    all_results: list[tuple[int, ToolResult]] = []
    for i, m in enumerate(messages):
        for p in m.parts:
            if m.role == "assistant" and isinstance(p, ToolCall):
                first_call.setdefault(p.id, i)
            elif isinstance(p, ToolResult):
                all_results.append((i, p))
    # a result in a later message than its call answers it first; one in the call's own message
    # only when there is none later; one before the call never
    results: dict[str, ToolResult] = {}
    for i, r in all_results:
        if r.tool_call_id in first_call and i > first_call[r.tool_call_id]:
            results.setdefault(r.tool_call_id, r)
    for i, r in all_results:
        if r.tool_call_id in first_call and i == first_call[r.tool_call_id]:
            results.setdefault(r.tool_call_id, r)
    result_order = {rid: i for i, rid in enumerate(results)}
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            merged = out[-1]["content"] + blocks
            out[-1]["content"] = C._results_first(merged) if role == "user" else merged
        else:
            out.append({"role": role, "content": C._results_first(blocks) if role == "user" else list(blocks)})

    placed: set[str] = set()
    sent_ids: set[str] = set()
    for m in messages:
        if m.role == "assistant":
            before = set(sent_ids)
            push("assistant", _ref_assistant(m, sent_ids, names))
            ids = list(
                dict.fromkeys(
                    c.id for c in m.tool_calls if c.id in sent_ids and c.id not in before and c.id not in placed
                )
            )
            if ids:
                ids.sort(key=lambda i: result_order.get(i, len(result_order)))
                answer = []
                toolsets = {c.id: C._own(c.provider_data).get("toolset_name") for c in m.tool_calls}
                for cid in ids:
                    placed.add(cid)
                    r = results.get(cid) or ToolResult(cid, NOT_ANSWERED, is_error=True)
                    block = C._encode_result(r)
                    if isinstance(toolsets.get(cid), str):
                        block.setdefault("toolset_name", toolsets[cid])
                    answer.append(block)
                push("user", answer)
        else:
            push("user", _ref_user(m, skip=set(first_call)))
    return out


#: call ids, one of them the wire form of another ("a.1" is sent as "a_1_<hash>")
_IDS = ["a", "b", "c", "a.1", C._wire_id("a.1")]
_PD_TEXT = st.sampled_from([{}, {"anthropic": {"cache_control": {"type": "ephemeral"}}}])
_OPAQUE = st.sampled_from(
    [
        {},
        {"anthropic": {"blocks": [{"position": 0, "block": {"type": "document", "source": {"x": 1}}}]}},
        {"anthropic": {"blocks": [{"position": 9, "block": {"type": "container_upload", "file_id": "f"}}]}},
        {"anthropic": {"blocks": [{"block": {"type": "search_result", "n": 2}}, {"position": 1, "block": {"k": 3}}]}},
    ]
)
_text = st.builds(TextPart, st.sampled_from(["", "hi", "two words"]), _PD_TEXT)
_call = st.builds(
    ToolCall,
    st.sampled_from(_IDS),
    st.sampled_from(["lookup", "files.read:v2", "other"]),
    st.sampled_from([{}, {"q": 1}]),
    provider_data=st.sampled_from([{}, {"anthropic": {"toolset_name": "ts"}}, {"anthropic": {"caller": "x"}}]),
)
_result = st.builds(
    ToolResult,
    st.sampled_from(_IDS + ["zz"]),
    st.sampled_from(["r", "", [TextPart("x")], []]),
    is_error=st.booleans(),
    provider_data=st.sampled_from([{}, {"anthropic": {"content_absent": True}}, {"anthropic": {"toolset_name": "t"}}]),
)
_message = st.one_of(
    st.builds(Message, st.just("assistant"), st.lists(st.one_of(_text, _call, _result), max_size=4), _OPAQUE),
    st.builds(Message, st.just("user"), st.lists(st.one_of(_text, _result, _call), max_size=4), _OPAQUE),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_message, max_size=6), st.sampled_from([None, {}, {"files.read:v2": "files_read_v2"}]))
def test_the_conversation_encodes_as_the_rule_by_rule_encoder_did(messages: list[Message], names: Any) -> None:
    assert C._encode_messages(messages, names) == _reference(messages, names)


def test_the_usual_tool_loop_encodes_as_the_reference() -> None:
    messages = [
        Message("user", [TextPart("go")]),
        Message(
            "assistant",
            [TextPart("calling"), ToolCall("toolu_1", "lookup", {"q": "x"}), ToolCall("toolu_2", "lookup", {})],
        ),
        Message("user", [ToolResult("toolu_2", "two"), ToolResult("toolu_1", "one")]),
    ]
    got = C._encode_messages(messages)
    assert got == _reference(messages)
    # answers in the order the results came, right after their calls
    assert [b["tool_use_id"] for b in got[2]["content"]] == ["toolu_2", "toolu_1"]
    assert got[1]["content"][0] == {"type": "text", "text": "calling"}
