"""The Anthropic profile's one-pass checks and repairs of the usual conversation give what the
full rule-by-rule computation gives.

``AnthropicProfile.check_request`` first tries one pass over the messages
(``_quick_check_messages``), which either proves that no conversation rule is broken or gives up
(``None``) and lets the full check run; ``repair_request`` first asks ``_needs_no_message_repair``
whether the per-message repairs and the turn merges would change anything. These tests compare
both with the full computation (the shortcuts switched off) over random wire bodies built around
the shapes the shortcuts accept and the ones next to them (blank texts, orphans, duplicates,
misplaced results, thinking, images, dict subclasses, cache_control, ...): the same violations,
the same repaired body, the same report, for every ``start`` / ``settled``; and check that the
shortcut is really taken for the usual tool loop (so the comparison is not vacuous).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire_anthropic import profile as anthropic_profile
from toolwire_anthropic.profile import AnthropicProfile

from toolwire.profile import RequestReport


class _SubDict(dict):
    """A dict subclass: the shortcuts must leave it to the full computation."""


class _SubStr(str):
    """A str subclass: likewise."""


IDS = ["toolu_1", "toolu_2", "toolu_3", "bad.id", ""]
TEXTS = ["go", "", " ", "x ", "\n", "ok", _SubStr(" "), 3]


def _block(draw: Any) -> Any:
    kind = draw(
        st.sampled_from(
            [
                "text",
                "text",
                "tool_use",
                "tool_use",
                "tool_result",
                "tool_result",
                "thinking",
                "redacted_thinking",
                "image",
                "document",
                "server_tool_use",
                "not-a-dict",
                "subdict",
            ]
        )
    )
    if kind == "not-a-dict":
        return draw(st.sampled_from(["text", 1, None]))
    if kind == "subdict":
        return _SubDict(type="text", text="hi")
    if kind == "text":
        b: dict[str, Any] = {"type": "text", "text": draw(st.sampled_from(TEXTS))}
    elif kind == "tool_use":
        b = {"type": "tool_use", "id": draw(st.sampled_from(IDS)), "name": "lookup"}
        b["input"] = draw(st.sampled_from([{}, {"q": "a"}, "x", None]))
    elif kind == "tool_result":
        b = {"type": "tool_result", "tool_use_id": draw(st.sampled_from(IDS))}
        content = draw(
            st.sampled_from(
                ["ok", "", " ", None, "absent", [], [{"type": "text", "text": "r"}], [{"type": "text", "text": " "}], 5]
            )
        )
        if content == "ok" and draw(st.booleans()):
            b["tool_use_id"] = draw(st.sampled_from(["toolu_1", "toolu_3", "toolu_5"]))
        if content != "absent":
            b["content"] = copy.deepcopy(content)
        if draw(st.booleans()):
            b["is_error"] = draw(st.sampled_from([True, False, 1]))
    elif kind == "thinking":
        b = {"type": "thinking", "thinking": "hm", "signature": draw(st.sampled_from(["sig", "", None]))}
    elif kind == "redacted_thinking":
        b = {"type": "redacted_thinking", "data": draw(st.sampled_from(["d", ""]))}
    elif kind == "image":
        mt = draw(st.sampled_from(["image/png", "image/jpg", "image/bmp"]))
        b = {"type": "image", "source": {"type": "base64", "media_type": mt, "data": "iVBORw0KGgo="}}
    elif kind == "document":
        b = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"}}
    else:
        b = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    if draw(st.integers(0, 5)) == 0:
        b["cache_control"] = {"type": "ephemeral"}
    if draw(st.integers(0, 9)) == 0:
        b["content"] = [{"type": "text", "text": "inner", "cache_control": {"type": "ephemeral"}}]
    return b


@st.composite
def _message(draw: Any, role: Any) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.sampled_from(["not a message", _SubDict(role="user", content="hi")]))
    if draw(st.integers(0, 20)) == 0:
        role = draw(st.sampled_from(["system", None, "user", "assistant"]))
    m: dict[str, Any] = {"role": role} if role is not None else {}
    shape = draw(st.sampled_from(["str", "list", "list", "list", "other"]))
    if shape == "str":
        m["content"] = draw(st.sampled_from(TEXTS[:-1]))
    elif shape == "list":
        m["content"] = [_block(draw) for _ in range(draw(st.integers(0, 3)))]
    else:
        m["content"] = draw(st.sampled_from([None, 1, {"type": "text", "text": "x"}]))
    return m


@st.composite
def _loop_message(draw: Any, i: int, calls: int) -> dict[str, Any]:
    """A message of a well-formed tool loop (what the shortcuts accept), numbered ``i``; the
    assistant messages make ``calls`` tool calls, the user messages answer them."""
    if i % 2 == 0:
        if i == 0:
            return {"role": "user", "content": draw(st.sampled_from(["go", [{"type": "text", "text": "go"}]]))}
        return {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{i - 1}_{c}", "content": f"result {i}"}
                for c in range(calls)
            ],
        }
    blocks: list[dict[str, Any]] = []
    if draw(st.booleans()):
        blocks.append({"type": "thinking", "thinking": "hm", "signature": "sig"})
    if draw(st.booleans()):
        blocks.append({"type": "text", "text": "calling"})
    for c in range(calls):
        blocks.append({"type": "tool_use", "id": f"toolu_{i}_{c}", "name": "lookup", "input": {"q": str(i)}})
    return {"role": "assistant", "content": blocks}


#: Values next to the accepted ones, per block type (fields set together).
NEAR: dict[str, list[dict[str, Any]]] = {
    "text": [
        {"text": ""},
        {"text": " "},
        {"text": _SubStr(" ")},
        {"text": 3},
        {"cache_control": {"type": "ephemeral"}},
    ],
    "tool_result": [
        {"content": " "},
        {"content": " ", "is_error": True},
        {"content": "", "is_error": True},
        {"content": None, "is_error": True},
        {"content": None},
        {"content": _SubStr("x")},
        {"content": [{"type": "text", "text": " "}]},
        {"is_error": True},
        {"tool_use_id": "toolu_9_0"},
        {"tool_use_id": "bad.id"},
        {"tool_use_id": 5},
    ],
    "tool_use": [{"input": "x"}, {"input": None}, {"id": "bad.id"}, {"id": "toolu_1_0"}, {"id": 7}],
    "thinking": [{"signature": ""}, {"signature": None}, {"type": "redacted_thinking"}],
}
EDITS = ["replace", "insert", "duplicate", "drop", "near", "near", "near", "swap", "text-first", "same-id"]


@st.composite
def bodies(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(1, 7))
    if draw(st.booleans()):  # a well-formed loop, with a few edits next to the usual shapes
        calls = draw(st.integers(1, 2))
        msgs: list[Any] = [draw(_loop_message(i, calls)) for i in range(n)]
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, n - 1))
            edit = draw(st.sampled_from(EDITS))
            content = msgs[at].get("content") if isinstance(msgs[at], dict) else None
            if edit == "replace" or not isinstance(content, list) or not content:
                msgs[at] = draw(_message("user" if at % 2 == 0 else "assistant"))
                continue
            k = draw(st.integers(0, len(content) - 1))
            if edit == "insert":
                content.insert(draw(st.integers(0, len(content))), _block(draw))
            elif edit == "duplicate":
                content.append(copy.deepcopy(content[k]))
            elif edit == "drop":
                del content[k]
            elif edit == "swap":
                content.append(content.pop(0))
            elif edit == "text-first":
                content.insert(0, {"type": "text", "text": "note"})
            elif edit == "same-id":  # a block taking the id of the message's first block
                first = content[0] if isinstance(content[0], dict) else {}
                for key in ("id", "tool_use_id"):
                    if key in first and isinstance(content[k], dict) and key in content[k]:
                        content[k][key] = first[key]
            elif isinstance(content[k], dict) and content[k].get("type") in NEAR:
                content[k].update(copy.deepcopy(draw(st.sampled_from(NEAR[content[k]["type"]]))))
    else:
        msgs = [draw(_message(draw(st.sampled_from(["user", "assistant"])))) for _ in range(n)]
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs}
    if draw(st.integers(0, 5)):
        body["tools"] = [{"name": "lookup", "description": "Look up.", "input_schema": {"type": "object"}}]
    thinking = draw(st.sampled_from([None, None, {"type": "enabled", "budget_tokens": 1024}, {"type": "adaptive"}]))
    if thinking is not None:
        body["thinking"] = thinking
    return body


def _full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the shortcuts off: every rule computed the full way."""
    monkeypatch.setattr(AnthropicProfile, "_quick_check_messages", lambda self, body, msgs, start: None)
    monkeypatch.setattr(anthropic_profile, "_needs_no_message_repair", lambda msgs, settled: False)


def _checks(body: dict[str, Any], starts: list[int]) -> list[Any]:
    profile = AnthropicProfile()  # one profile for the whole sequence: its folds carry over
    return [
        [(v.rule, v.pointer, v.message, v.tool, v.call_id) for v in profile.check_request(body, start=s)]
        for s in starts
    ]


def _repair(body: dict[str, Any], start: int, settled: int) -> tuple[str, list[Any], Any]:
    profile = AnthropicProfile()
    work = copy.deepcopy(body)
    report = RequestReport("anthropic")
    out = profile.repair_request(work, report, start=start, settled=settled)
    mapped = profile._mapped_start
    return (
        json.dumps(out, sort_keys=True, default=repr),
        [(c.rule, c.pointer, c.detail, c.lossy) for c in report.changes],
        None if mapped is None else (mapped[1], mapped[2], mapped[0] is out["messages"]),
    )


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(bodies(), st.data())
def test_the_one_pass_check_gives_the_violations_of_the_full_check(body: dict[str, Any], data: Any) -> None:
    n = len(body["messages"])
    starts = data.draw(st.lists(st.integers(0, n + 1), min_size=1, max_size=4))
    quick = _checks(body, starts)
    with pytest.MonkeyPatch.context() as mp:
        _full(mp)
        full = _checks(body, starts)
    assert quick == full


@_SETTINGS
@given(bodies(), st.data())
def test_a_growing_conversation_is_checked_the_same_request_after_request(body: dict[str, Any], data: Any) -> None:
    """The folds kept between requests (tool_use ids, cache_control count) read the prefix the
    one pass left them at: request after request on one profile, as the loop sends them."""
    msgs = body["messages"]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(msgs)), min_size=1, max_size=4))))

    def run() -> list[Any]:
        profile = AnthropicProfile()
        out, prev = [], 0
        for k in cuts:
            b = dict(body, messages=msgs[:k])
            out.append([(v.rule, v.pointer) for v in profile.check_request(b, start=prev)])
            prev = k
        return out

    quick = run()
    with pytest.MonkeyPatch.context() as mp:
        _full(mp)
        assert run() == quick


@_SETTINGS
@given(bodies(), st.data())
def test_the_one_pass_repair_gives_the_body_and_report_of_the_full_repair(body: dict[str, Any], data: Any) -> None:
    n = len(body["messages"])
    start = data.draw(st.integers(0, n + 1))
    settled = data.draw(st.integers(0, max(0, n - 1)))
    quick = _repair(body, start, settled)
    with pytest.MonkeyPatch.context() as mp:
        _full(mp)
        full = _repair(body, start, settled)
    assert quick[:2] == full[:2]
    assert quick[2][:2] == full[2][:2]  # the start mapped into the repaired list


def _canonical_loop() -> list[dict[str, Any]]:
    """A 5-message tool loop with two calls per turn, thinking and text (every block type the
    shortcuts accept)."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    for turn in (1, 3):
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "text", "text": "calling"},
                    *({"type": "tool_use", "id": f"toolu_{turn}_{c}", "name": "lookup", "input": {}} for c in (0, 1)),
                ],
            }
        )
        msgs.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{turn}_{c}", "content": "ok"} for c in (0, 1)
                ],
            }
        )
    return msgs


def _edited_loops() -> list[Any]:
    """Every single edit of the canonical loop next to the accepted shapes: each NEAR value on
    each block, each block dropped, duplicated, given the first block's id, a text put first, a
    block made a dict subclass, each message's content replaced by a string."""
    out = []
    base = _canonical_loop()
    for mi, m in enumerate(base):
        for bi, b in enumerate(m["content"]):
            edits: list[Any] = [("update", u) for u in NEAR.get(b["type"], [])]
            edits += [("drop", None), ("duplicate", None), ("same-id", None), ("subdict", None)]
            for kind, arg in edits:
                msgs = copy.deepcopy(base)
                content = msgs[mi]["content"]
                if kind == "update":
                    content[bi].update(copy.deepcopy(arg))
                elif kind == "drop":
                    del content[bi]
                elif kind == "duplicate":
                    content.insert(bi, copy.deepcopy(content[bi]))
                elif kind == "same-id":
                    for key in ("id", "tool_use_id"):
                        if key in content[bi] and key in content[-1]:
                            content[bi][key] = content[-1][key]
                else:
                    content[bi] = _SubDict(content[bi])
                out.append(pytest.param(msgs, id=f"m{mi}-b{bi}-{kind}-{arg}"))
        for text in ("", " ", "x", _SubStr(" ")):
            msgs = copy.deepcopy(base)
            msgs[mi]["content"] = text
            out.append(pytest.param(msgs, id=f"m{mi}-string-{text!r}"))
        msgs = copy.deepcopy(base)
        msgs[mi]["content"].insert(0, {"type": "text", "text": "note"})
        out.append(pytest.param(msgs, id=f"m{mi}-text-first"))
    return out


@pytest.mark.parametrize("msgs", _edited_loops())
def test_every_near_miss_edit_of_a_loop_is_checked_and_repaired_as_the_full_computation_does(
    msgs: list[Any],
) -> None:
    for body in (
        {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs, "tools": [{"name": "lookup"}]},
        {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs, "thinking": {"type": "enabled"}},
    ):
        n = len(msgs)
        starts = list(range(n + 1))
        quick = _checks(body, starts), [_repair(body, s, k) for s in starts for k in range(n)]
        with pytest.MonkeyPatch.context() as mp:
            _full(mp)
            full = _checks(body, starts), [_repair(body, s, k) for s in starts for k in range(n)]
        assert quick[0] == full[0]
        assert [r[:2] for r in quick[1]] == [r[:2] for r in full[1]]
        assert [r[2][:2] for r in quick[1]] == [r[2][:2] for r in full[1]]


def test_the_shortcuts_are_taken_for_the_usual_tool_loop() -> None:
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "a"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
    ]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs, "tools": [{"name": "lookup"}]}
    profile = AnthropicProfile()
    assert profile._quick_check_messages(body, msgs, 1) == (0, [])
    assert anthropic_profile._needs_no_message_repair(msgs, 0) is True
    loop = _canonical_loop()
    assert profile._quick_check_messages(dict(body, messages=loop), loop, 3) == (0, [])
    assert anthropic_profile._needs_no_message_repair(loop, 2) is True
    # and refused where the full check refuses: an unanswered call, a blank user text, a duplicate id
    unanswered = [*msgs[:2], {"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert profile._quick_check_messages(body, unanswered, 0) is None
    assert [v.rule for v in profile.check_request(dict(body, messages=unanswered))] == [
        "anthropic.conversation.tool-result-placement"
    ]
    blank = [{"role": "user", "content": [{"type": "text", "text": "  "}]}]
    assert anthropic_profile._needs_no_message_repair(blank, 0) is False
    twice = [*msgs, msgs[1], msgs[2]]
    assert profile._quick_check_messages(body, twice, 3) is None
    assert "anthropic.tool_use.unique-ids" in [v.rule for v in profile.check_request(dict(body, messages=twice))]


def test_an_edited_message_is_checked_again_on_the_next_request() -> None:
    """The one pass reads the messages themselves (no memo of an earlier verdict): a message that
    passed, then edited in place (its text blanked), is refused on the next request."""
    msgs = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs}
    profile = AnthropicProfile()
    assert profile.check_request(body) == []
    msgs[0]["content"][0]["text"] = " "
    assert [v.rule for v in profile.check_request(body)] == ["anthropic.conversation.empty-text"]
