"""The OpenAI profiles' one-pass conversation checks and repairs give what the full ones give.

- the look-up pass that finds the messages (Chat) / input items (Responses) needing no repair
  and no check changes nothing: random conversations repaired and checked with it give the
  body, the report and the violations of the full repair and check alone;
- repairs and checks that start at the first new entry (``repair_window = 0``, ``start``)
  give what a whole repair and check give, whenever the entries before were found fine;
- the repairs of the body's fields other than the conversation, memoized per distinct value,
  give what a fresh profile gives, and notice a change (in place, or ``True`` for ``1``).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile

from toolwire.profile import RequestReport

# -- random conversations --------------------------------------------------------------------

_IDS = st.sampled_from(["call_1", "call_2", "call_3", "c" * 41, "c" * 65, "", 7, None])
_NAMES = st.sampled_from(["lookup", "other", "bad name", "x" * 65, "", 3, None, "files.read:v2"])
_ARGS = st.sampled_from(['{"q": "a"}', "{}", "", "null", "[1]", "{bad", 5, None, {"q": 1}])
_TEXT = st.sampled_from(["ok", "", None, 3])
_IMAGE = {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
_PARTS = st.lists(st.sampled_from([{"type": "text", "text": "t"}, _IMAGE, {"type": "audio"}, "s"]), max_size=3)

_chat_call = st.fixed_dictionaries(
    {
        "id": _IDS,
        "type": st.sampled_from(["function", "function", "custom"]),
        "function": st.fixed_dictionaries({"name": _NAMES, "arguments": _ARGS}),
    }
)
_chat_message = st.one_of(
    st.fixed_dictionaries({"role": st.just("user"), "content": st.one_of(_TEXT, _PARTS)}),
    st.fixed_dictionaries({"role": st.sampled_from(["system", "developer"]), "content": st.one_of(_TEXT, _PARTS)}),
    st.fixed_dictionaries(
        {
            "role": st.just("assistant"),
            "content": st.one_of(_TEXT, _PARTS),
            "tool_calls": st.lists(_chat_call, max_size=3),
        }
    ),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": _TEXT}),
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": _IDS, "content": st.one_of(_TEXT, _PARTS)}),
    st.sampled_from([3, "text", None]),
)


def _usual_chat_turn(k: int) -> list:
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"call_{k}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": f"call_{k}", "content": "ok"},
    ]


_POOL = st.sampled_from(["call_1", "call_2", "call_3", "c" * 41])


@st.composite
def _chat_group(draw):
    """An assistant message with calls and tool messages answering them (in any order, some
    answered twice, left out or with odd content): the shapes the look-up pass takes."""
    ids = draw(st.lists(_POOL, min_size=1, max_size=3))
    answers = draw(st.permutations(ids))
    if draw(st.integers(0, 3)):  # mostly the usual turn (its ids may repeat an earlier turn's)
        calls = [{"id": i, "type": "function", "function": {"name": "lookup", "arguments": "{}"}} for i in ids]
        tools = [{"role": "tool", "tool_call_id": a, "content": "ok"} for a in answers]
        return [{"role": "assistant", "content": draw(st.sampled_from([None, "text"])), "tool_calls": calls}, *tools]
    calls = [
        {"id": i, "type": "function", "function": {"name": draw(_NAMES), "arguments": draw(_ARGS)}}
        if draw(st.booleans())
        else {"id": i, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        for i in ids
    ]
    answers = answers + draw(st.lists(_POOL, max_size=1))
    answers = answers[: draw(st.integers(0, len(answers)))] if draw(st.booleans()) else answers
    if draw(st.booleans()):  # as many answers as calls, some repeated
        answers = draw(st.lists(st.sampled_from(ids), min_size=len(ids), max_size=len(ids)))
    content = draw(st.sampled_from([None, None, "", "text", [_IMAGE]]))
    tools = [
        {"role": "tool", "tool_call_id": a, "content": draw(st.sampled_from(["ok", "ok", [_IMAGE], None]))}
        for a in answers
    ]
    return [{"role": "assistant", "content": content, "tool_calls": calls}, *tools]


_USER = [{"role": "user", "content": "go"}]
_chunk = st.one_of(_chat_group(), _chat_group(), _chat_group(), st.just(_USER), _chat_message.map(lambda m: [m]))
_chat_messages = st.one_of(
    st.lists(_chat_message, max_size=8),
    st.lists(_chunk, max_size=6).map(lambda chunks: [m for c in chunks for m in c]),
    st.lists(_chunk, max_size=6).map(lambda chunks: [m for c in chunks for m in c]),
    # mostly the usual turns, one odd message somewhere
    st.tuples(st.integers(0, 4), st.integers(0, 10), _chat_message).map(
        lambda t: (
            [{"role": "user", "content": "go"}]
            + [m for k in range(t[0]) for m in _usual_chat_turn(k)][: t[1]]
            + [t[2]]
            + [m for k in range(t[0], t[0] + 2) for m in _usual_chat_turn(k)]
        )
    ),
)

_TOOLS = [
    {"type": "function", "function": {"name": "lookup", "description": "d", "parameters": {"type": "object"}}},
]


def _chat_body(messages: list) -> dict:
    return {"model": "gpt-4.1", "messages": messages, "tools": copy.deepcopy(_TOOLS), "stream": False}


_item_id = st.sampled_from([None, "fc_1", "fc_2", "msg_1", "rs_1", "bad", 4])
_resp_item = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("function_call"),
            "id": _item_id,
            "call_id": _IDS,
            "name": _NAMES,
            "arguments": _ARGS,
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("function_call_output"),
            "call_id": _IDS,
            "output": st.one_of(_TEXT, st.just([{"type": "input_text", "text": "t"}]), st.just([{"type": "x"}])),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["message", None]),
            "id": _item_id,
            "role": st.sampled_from(["user", "assistant"]),
            "content": st.one_of(
                _TEXT,
                st.lists(
                    st.sampled_from([{"type": "output_text", "text": "t"}, {"type": "input_text", "text": "t"}, 2]),
                    max_size=2,
                ),
            ),
        }
    ).map(lambda d: {k: v for k, v in d.items() if not (k == "type" and v is None)}),
    st.fixed_dictionaries({"type": st.just("reasoning"), "id": _item_id, "summary": st.sampled_from([[], None])}),
    st.sampled_from([{"type": "web_search_call", "id": "ws_1"}, 5]),
)


def _usual_responses_turn(k: int) -> list:
    return [
        {"type": "function_call", "id": f"fc_{k}", "call_id": f"call_{k}", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": f"call_{k}", "output": "ok"},
    ]


@st.composite
def _resp_group(draw):
    """Function calls and their outputs (in any order, some answered twice or not at all)."""
    ids = draw(st.lists(_POOL, min_size=1, max_size=3))
    item_ids = draw(st.lists(st.sampled_from([None, "fc_1", "fc_2", "fc_3"]), min_size=len(ids), max_size=len(ids)))
    if draw(st.integers(0, 3)):  # mostly the usual turn (its ids may repeat an earlier turn's)
        calls = [
            {"type": "function_call", "id": iid, "call_id": i, "name": "lookup", "arguments": "{}"}
            for i, iid in zip(ids, item_ids)
        ]
        outs = [{"type": "function_call_output", "call_id": a, "output": "ok"} for a in draw(st.permutations(ids))]
        return calls + outs
    calls = [
        {"type": "function_call", "id": iid, "call_id": i, "name": draw(_NAMES), "arguments": draw(_ARGS)}
        if draw(st.booleans())
        else {"type": "function_call", "id": iid, "call_id": i, "name": "lookup", "arguments": "{}"}
        for i, iid in zip(ids, item_ids)
    ]
    answers = draw(st.permutations(ids)) + draw(st.lists(_POOL, max_size=1))
    if draw(st.booleans()):
        answers = answers[: draw(st.integers(0, len(answers)))]
    if draw(st.booleans()):  # as many answers as calls, some repeated
        answers = draw(st.lists(st.sampled_from(ids), min_size=len(ids), max_size=len(ids)))
    outs = [
        {"type": "function_call_output", "call_id": a, "output": draw(st.sampled_from(["ok", "ok", None, []]))}
        for a in answers
    ]
    if draw(st.booleans()):
        calls.insert(0, {"type": "reasoning", "id": draw(st.sampled_from(["rs_1", "rs_2", "x"])), "summary": []})
    return calls + outs


_resp_chunk = st.one_of(_resp_group(), _resp_group(), _resp_group(), st.just(_USER), _resp_item.map(lambda m: [m]))
_resp_items = st.one_of(
    st.lists(_resp_item, max_size=8),
    st.lists(_resp_chunk, max_size=6).map(lambda chunks: [m for c in chunks for m in c]),
    st.lists(_resp_chunk, max_size=6).map(lambda chunks: [m for c in chunks for m in c]),
    st.tuples(st.integers(0, 4), st.integers(0, 10), _resp_item).map(
        lambda t: (
            [{"role": "user", "content": "go"}]
            + [m for k in range(t[0]) for m in _usual_responses_turn(k)][: t[1]]
            + [t[2]]
            + [m for k in range(t[0], t[0] + 2) for m in _usual_responses_turn(k)]
        )
    ),
)

_RESP_TOOLS = [{"type": "function", "name": "lookup", "description": "d", "parameters": {"type": "object"}}]


def _responses_body(items: list, **top) -> dict:
    return {"model": "gpt-5", "input": items, "tools": copy.deepcopy(_RESP_TOOLS), **top}


# -- helpers ------------------------------------------------------------------------------------


def _slow(profile, monkeypatch):
    """``profile``'s class with the look-up passes turned off (every entry takes the full path)."""
    cls = type(profile)
    if cls is OpenAIChatProfile:
        monkeypatch.setattr(cls, "_clean_messages", staticmethod(lambda messages, i, n: i))
        monkeypatch.setattr(cls, "_clean_groups", staticmethod(lambda messages, i, n, seen: i))
    else:
        monkeypatch.setattr(cls, "_clean_items", staticmethod(lambda items, i, n: i))
        monkeypatch.setattr(cls, "_clean_inputs", staticmethod(lambda items, i, n, acc, new_calls, continued: i))


def _repair_and_check(profile, body, *, start=0, settled=0) -> tuple:
    report = RequestReport(profile.api)
    try:
        out = profile.repair_request(copy.deepcopy(body), report, start=start, settled=settled)
    except TypeError as exc:  # the same unhashable id breaks both paths alike
        return ("TypeError", str(exc))
    try:
        found = profile.check_request(out, start=start)
    except TypeError as exc:
        return ("TypeError", str(exc))
    return (
        json.dumps(out, sort_keys=True, default=repr),
        [c.to_dict() if hasattr(c, "to_dict") else repr(c) for c in report],
        [(v.rule, v.pointer, v.message, v.call_id) for v in found],
    )


_HYP = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_HYP
@given(messages=_chat_messages)
def test_chat_look_up_pass_gives_the_full_repair_and_check(messages, monkeypatch):
    body = _chat_body(messages)
    fast = _repair_and_check(OpenAIChatProfile(), body)
    with monkeypatch.context() as m:
        _slow(OpenAIChatProfile(), m)
        slow = _repair_and_check(OpenAIChatProfile(), body)
    assert fast == slow


@_HYP
@given(items=_resp_items, store=st.sampled_from([None, False]))
def test_responses_look_up_pass_gives_the_full_repair_and_check(items, store, monkeypatch):
    body = _responses_body(items, **({} if store is None else {"store": False}))
    fast = _repair_and_check(OpenAIResponsesProfile(), body)
    with monkeypatch.context() as m:
        _slow(OpenAIResponsesProfile(), m)
        slow = _repair_and_check(OpenAIResponsesProfile(), body)
    assert fast == slow


def _prefix_is_settled(profile, body, key, cut):
    """Whether the first ``cut`` entries need no repair and break no rule on their own (what the
    preflight knows of the entries of a request that passed before ``start``)."""
    head = dict(body)
    head[key] = copy.deepcopy(body[key][:cut])
    report = RequestReport(profile.api)
    try:
        out = profile.repair_request(copy.deepcopy(head), report)
        if len(report) or out != head:
            return False
        return not profile.check_request(out)
    except TypeError:
        return False


@_HYP
@given(messages=_chat_messages, cut=st.integers(0, 12))
def test_chat_repairs_and_checks_from_the_first_new_message_give_the_whole_ones(messages, cut):
    body = _chat_body(messages)
    cut = min(cut, len(messages))
    if not _prefix_is_settled(OpenAIChatProfile(), body, "messages", cut):
        return
    whole = _repair_and_check(OpenAIChatProfile(), body)
    part = _repair_and_check(OpenAIChatProfile(), body, start=cut, settled=cut)
    assert part == whole


@_HYP
@given(items=_resp_items, cut=st.integers(0, 12), store=st.sampled_from([None, False]))
def test_responses_repairs_and_checks_from_the_first_new_item_give_the_whole_ones(items, cut, store):
    body = _responses_body(items, **({} if store is None else {"store": False}))
    cut = min(cut, len(items))
    if not _prefix_is_settled(OpenAIResponsesProfile(), body, "input", cut):
        return
    whole = _repair_and_check(OpenAIResponsesProfile(), body)
    part = _repair_and_check(OpenAIResponsesProfile(), body, start=cut, settled=cut)
    assert part == whole


def test_the_usual_turns_take_the_look_up_pass_and_pass():
    messages = [{"role": "user", "content": "go"}] + [m for k in range(5) for m in _usual_chat_turn(k)]
    assert OpenAIChatProfile._clean_messages(messages, 0, len(messages)) == len(messages)
    assert OpenAIChatProfile._clean_groups(messages, 0, len(messages), set()) == len(messages)
    items = [{"role": "user", "content": "go"}] + [m for k in range(5) for m in _usual_responses_turn(k)]
    assert OpenAIResponsesProfile._clean_items(items, 0, len(items)) == len(items)
    acc: tuple = ({}, set(), set())
    assert OpenAIResponsesProfile._clean_inputs(items, 0, len(items), acc, [], False) == len(items)
    assert acc[0] == {f"call_{k}": 1 + 2 * k for k in range(5)} and acc[1] == {f"call_{k}" for k in range(5)}


def _two_calls(a: str, b: str, answers: list) -> list:
    calls = [{"id": i, "type": "function", "function": {"name": "lookup", "arguments": "{}"}} for i in (a, b)]
    return [{"role": "assistant", "content": None, "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": t, "content": "ok"} for t in answers
    ]


@pytest.mark.parametrize(
    ("turn", "fine"),
    [
        (_usual_chat_turn(1), False),  # an id used by an earlier turn
        (_two_calls("call_8", "call_9", ["call_8", "call_8"]), False),  # one call answered twice, the other not
        (_two_calls("call_8", "call_8", ["call_8", "call_8"]), False),  # one id for two calls
        (_two_calls("call_8", "call_9", ["call_9"]), False),  # a call left unanswered
        (_two_calls("call_8", "call_9", ["call_9", "call_8", "call_7"]), False),  # an answer to no call
        (_two_calls("call_8", "call_9", ["call_9", "call_8"]), True),  # answered in another order
    ],
)
def test_chat_a_new_turn_after_the_usual_turns_is_checked_as_whole(turn, fine):
    messages = [{"role": "user", "content": "go"}] + [m for k in range(5) for m in _usual_chat_turn(k)]
    n = len(messages)
    body = _chat_body(messages + copy.deepcopy(turn))
    whole = _repair_and_check(OpenAIChatProfile(), body)
    part = _repair_and_check(OpenAIChatProfile(), body, start=n, settled=n)
    assert part == whole
    assert not whole[2] if fine else whole[2]


@pytest.mark.parametrize(
    "odd",
    [
        {"role": "tool", "tool_call_id": "call_4", "content": "again"},  # a second answer
        {"role": "assistant", "content": None},  # no content, no calls
        {"role": "assistant", "content": [_IMAGE]},  # an image from the assistant
        {"role": "tool", "tool_call_id": "c" * 41, "content": "long id"},
    ],
)
def test_chat_an_odd_new_message_after_the_usual_turns_is_repaired_or_refused_as_whole(odd):
    messages = [{"role": "user", "content": "go"}] + [m for k in range(5) for m in _usual_chat_turn(k)] + [odd]
    body = _chat_body(messages)
    whole = _repair_and_check(OpenAIChatProfile(), body)
    part = _repair_and_check(OpenAIChatProfile(), body, start=len(messages) - 1, settled=len(messages) - 1)
    assert part == whole
    assert whole[1] or whole[2]  # something was repaired or found


def test_responses_ids_kept_from_the_last_check_give_the_fold():
    items = [{"role": "user", "content": "go"}] + [m for k in range(3) for m in _usual_responses_turn(k)]
    p = OpenAIResponsesProfile()
    assert not p.check_request(_responses_body(items))
    # the next request repeats call_1's id: found although call_1 is before `start`
    more = items + [
        {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "again"},
    ]
    found = {(v.rule, v.pointer) for v in p.check_request(_responses_body(more), start=len(items))}
    fresh = {(v.rule, v.pointer) for v in OpenAIResponsesProfile().check_request(_responses_body(more))}
    assert found == fresh
    assert ("openai.conversation.duplicate-item-id", f"/input/{len(items)}/id") in found
    assert ("openai.conversation.output-without-call", f"/input/{len(items) + 1}/call_id") in found
    # an input whose first entries differ from the last one's: the ids are folded again
    other = [{"role": "user", "content": "go"}] + _usual_responses_turn(7) + _usual_responses_turn(7)
    found = {(v.rule, v.pointer) for v in p.check_request(_responses_body(other), start=3)}
    assert ("openai.conversation.duplicate-item-id", "/input/3/id") in found


# -- the fields other than the conversation ---------------------------------------------------------

_LONG = "d" * 1100
_TOP_VARIANTS = [
    {},
    {"tools": [{"type": "function", "function": {"name": "lookup", "description": _LONG, "parameters": {}}}]},
    {"tools": [{"type": "function", "function": {"name": "bad name", "parameters": {"type": "object"}}}]},
    {"tools": [{"type": "function", "function": {"name": "x", "parameters": {"type": "object"}, "strict": True}}]},
    {"tools": [{"type": "function", "function": {"name": "x", "parameters": {"type": "object", "default": 1}}}]},
    {"tools": [{"type": "function", "function": {"name": "x", "parameters": {"type": "object", "default": True}}}]},
    {"tools": [], "tool_choice": "auto", "parallel_tool_calls": True},
    {"max_tokens": 10, "model": "o3"},
    {"max_tokens": 10},
    {"stream_options": {"include_usage": True}},
]


@pytest.mark.parametrize("order", [list(range(len(_TOP_VARIANTS))), list(reversed(range(len(_TOP_VARIANTS))))])
def test_chat_top_repairs_reused_give_what_a_fresh_profile_gives(order):
    shared = OpenAIChatProfile()
    for _ in range(2):
        for k in order:
            body = dict(_chat_body([{"role": "user", "content": "go"}]), **copy.deepcopy(_TOP_VARIANTS[k]))
            assert _repair_and_check(shared, body) == _repair_and_check(OpenAIChatProfile(), body), k


@pytest.mark.parametrize("store", [None, False])
def test_responses_top_repairs_reused_give_what_a_fresh_profile_gives(store):
    shared = OpenAIResponsesProfile()
    variants = [
        {},
        {"reasoning": {"effort": "low"}},
        {"tools": [{"type": "function", "name": "bad name", "parameters": {"type": "object"}}]},
        {"tools": [{"type": "function", "name": "x", "parameters": {"type": "object", "default": 0}}]},
        {"tools": [{"type": "function", "name": "x", "parameters": {"type": "object", "default": False}}]},
        {"include": ["x"], "reasoning": {"effort": "low"}},
    ]
    for _ in range(2):
        for v in variants:
            top = copy.deepcopy(v)
            if store is False:
                top["store"] = False
            body = dict(_responses_body([{"role": "user", "content": "go"}]), **top)
            assert _repair_and_check(shared, body) == _repair_and_check(OpenAIResponsesProfile(), body), v


def test_chat_top_repairs_notice_a_change_in_place():
    p = OpenAIChatProfile()
    body = _chat_body([{"role": "user", "content": "go"}])
    report = RequestReport(p.api)
    p.repair_request(copy.deepcopy(body), report)
    assert not len(report)
    body["tools"][0]["function"]["description"] = _LONG  # changed in place in the caller's copy
    report = RequestReport(p.api)
    out = p.repair_request(body, report)
    assert [c.rule for c in report] == ["openai-chat.tool.description-length"]
    assert len(out["tools"][0]["function"]["description"]) == 1024
    # the memo holds a copy: the body it was made from can change without changing it
    again = _chat_body([{"role": "user", "content": "go"}])
    report = RequestReport(p.api)
    p.repair_request(again, report)
    assert not len(report)
    again["tools"][0]["function"]["name"] = "bad name"
    report = RequestReport(p.api)
    p.repair_request(again, report)
    assert [c.rule for c in report] == ["openai-chat.tool.name"]
