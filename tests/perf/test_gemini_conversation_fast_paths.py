"""The Gemini profile's one-pass conversation checks and repairs give what the full ones give.

- the look-up passes that find the Contents needing no repair and no check change nothing:
  random conversations repaired and checked with them give the body, the report and the
  violations of the full repair and check alone (Gemini 2.5 and 3);
- the repairs and checks of the fields other than ``contents``, memoized per distinct value,
  give what a fresh profile gives and notice a change (in place, or ``True`` for ``1``).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire_gemini.profile import GeminiProfile

from toolwire.profile import RequestReport

_NAMES = st.sampled_from(["lookup", "other", "bad name", "9x", "", 3, None])
_ID = st.sampled_from([None, None, "c1", "c2", 5])


@st.composite
def _part(draw, role):
    kind = draw(st.integers(0, 9))
    if kind <= 2:
        return {"text": draw(st.sampled_from(["t", "", 3]))}
    if kind <= 5:
        fc: dict = {
            "name": draw(st.sampled_from(["lookup", "lookup", "other"])) if draw(st.booleans()) else draw(_NAMES)
        }
        if draw(st.booleans()):
            fc["args"] = draw(st.sampled_from([{}, {"q": 1}, [1], None]))
        if (cid := draw(_ID)) is not None:
            fc["id"] = cid
        return {"functionCall": fc}
    if kind <= 8:
        fr: dict = {"name": draw(st.sampled_from(["lookup", "lookup", "other", ""]))}
        fr["response"] = draw(st.sampled_from([{"output": "ok"}, {"output": "ok"}, "text", None]))
        if (cid := draw(_ID)) is not None:
            fr["id"] = cid
        if not draw(st.integers(0, 5)):
            fr["parts"] = draw(st.sampled_from([[{"inlineData": {}}], [{"text": "x"}]]))
        return {"functionResponse": fr}
    return draw(
        st.sampled_from(
            [
                {"text": "t", "thought": True},
                {"text": "t", "thoughtSignature": "AAAA"},
                {"functionCall": {"name": "lookup"}, "thoughtSignature": "bad!"},
                {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
                {"unknown": 1},
                {},
                "part",
                {"function_call": {"name": "lookup"}},
            ]
        )
    )


@st.composite
def _content(draw):
    role = draw(st.sampled_from(["user", "user", "model", "model", None, "assistant"]))
    if not draw(st.integers(0, 9)):
        return draw(st.sampled_from([{"role": role}, {"role": role, "parts": []}, "content"]))
    parts = draw(st.lists(_part(role), min_size=1, max_size=3))
    return {"role": role, "parts": parts} if role is not None else {"parts": parts}


def _usual_turn(k: int, ids: bool) -> list:
    call = {"name": "lookup", "args": {"q": f"step {k}"}}
    resp = {"name": "lookup", "response": {"output": "ok"}}
    if ids:
        call["id"] = resp["id"] = f"c{k}"
    return [
        {"role": "model", "parts": [{"functionCall": call}]},
        {"role": "user", "parts": [{"functionResponse": resp}]},
    ]


_contents = st.one_of(
    st.lists(_content(), max_size=7),
    st.tuples(st.integers(0, 4), st.integers(0, 10), _content(), st.booleans()).map(
        lambda t: (
            [{"role": "user", "parts": [{"text": "go"}]}]
            + [c for k in range(t[0]) for c in _usual_turn(k, t[3])][: t[1]]
            + [t[2]]
            + [c for k in range(t[0], t[0] + 2) for c in _usual_turn(k, t[3])]
        )
    ),
)

_TOOLS = [
    {
        "functionDeclarations": [
            {"name": "lookup", "description": "d", "parametersJsonSchema": {"type": "object", "properties": {}}}
        ]
    }
]


def _body(contents: list, **top) -> dict:
    return {"contents": contents, "tools": copy.deepcopy(_TOOLS), **top}


def _slow(monkeypatch) -> None:
    monkeypatch.setattr(GeminiProfile, "_clean_contents", lambda self, contents, i, n: i)
    monkeypatch.setattr(GeminiProfile, "_clean_checked", lambda self, contents, i, n: i)


def _repair_and_check(profile, body, *, start=0, settled=0) -> tuple:
    report = RequestReport(profile.api)
    src = copy.deepcopy(body)
    out = profile.repair_request(src, report, start=start, settled=settled)
    if not settled:  # (with `settled`, the caller hands over its own copies of the later Contents)
        assert src == body  # the input is not changed
    found = profile.check_request(out, start=start)
    return (
        json.dumps(out, sort_keys=True, default=repr),
        [c.to_dict() for c in report],
        [(v.rule, v.pointer, v.message, v.tool, v.call_id) for v in found],
    )


_HYP = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_HYP
@given(contents=_contents, model=st.sampled_from(["gemini-2.5-flash", "gemini-3-pro-preview"]))
def test_gemini_look_up_passes_give_the_full_repair_and_check(contents, model, monkeypatch):
    body = _body(contents)
    fast = _repair_and_check(GeminiProfile(model=model), body)
    with monkeypatch.context() as m:
        _slow(m)
        slow = _repair_and_check(GeminiProfile(model=model), body)
    assert fast == slow


@_HYP
@given(contents=_contents, cut=st.integers(0, 12))
def test_gemini_look_up_passes_from_a_start_give_the_full_ones_from_it(contents, cut, monkeypatch):
    body = _body(contents)
    cut = min(cut, len(contents))
    settled = max(0, cut - 2)
    fast = _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body, start=cut, settled=settled)
    with monkeypatch.context() as m:
        _slow(m)
        slow = _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body, start=cut, settled=settled)
    assert fast == slow


def test_the_usual_turns_take_the_look_up_passes():
    contents = [{"role": "user", "parts": [{"text": "go"}]}] + [c for k in range(4) for c in _usual_turn(k, False)]
    p = GeminiProfile(model="gemini-2.5-flash")
    n = len(contents)
    assert p._clean_contents(contents, 0, n) == n
    assert p._clean_checked(contents, 0, n) == n
    # Gemini 3 wants a thought signature on each call turn: repaired in full
    assert GeminiProfile(model="gemini-3-pro-preview")._clean_contents(contents, 0, n) == 1


@pytest.mark.parametrize(
    ("turn", "rule"),
    [
        (
            [
                {"role": "model", "parts": [{"functionCall": {"name": "lookup", "id": "c9"}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {}}}]},
            ],
            "gemini.conversation.response-match",  # repaired: the id filled in from its call
        ),
        (
            [
                {"role": "model", "parts": [{"functionCall": {"name": "lookup"}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "other", "response": {}}}]},
            ],
            "gemini.conversation.response-match",
        ),
        (
            [
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "lookup"}}, {"functionCall": {"name": "lookup"}}],
                },
                {"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {}}}]},
            ],
            "gemini.conversation.response-count",
        ),
        ([{"role": "model", "parts": [{"functionCall": {"name": "lookup"}}]}], "gemini.conversation.trailing-calls"),
        (
            [{"role": "model", "parts": [{"functionCall": {"name": "bad name"}}]}, {"role": "user", "parts": []}],
            "gemini.name.call-in-history",
        ),
    ],
)
def test_gemini_an_odd_new_turn_is_repaired_or_refused_as_whole(turn, rule, monkeypatch):
    contents = [{"role": "user", "parts": [{"text": "go"}]}] + [c for k in range(3) for c in _usual_turn(k, False)]
    n = len(contents)
    body = _body(contents + copy.deepcopy(turn))
    fast = _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body, start=n, settled=n - 2)
    with monkeypatch.context() as m:
        _slow(m)
        slow = _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body, start=n, settled=n - 2)
    assert fast == slow
    assert rule in {c["rule"] for c in json.loads(json.dumps(fast[1]))} | {v[0] for v in fast[2]}


_TOP_VARIANTS = [
    {},
    {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}},
    {"toolConfig": {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["lookup"]}}},
    {"toolConfig": {"functionCallingConfig": {"mode": "NOPE"}}},
    {"generationConfig": {"temperature": 1}},
    {"generationConfig": {"temperature": True}},
    {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}},
    {"generationConfig": {"responseJsonSchema": {"type": "object"}}},
    {"tools": [{"functionDeclarations": [{"name": "bad name", "parameters": {"type": "OBJECT", "default": 1}}]}]},
    {"tools": [{"functionDeclarations": [{"name": "x", "parameters": {"type": "OBJECT", "default": True}}]}]},
    {"tools": [{"functionDeclarations": [{"name": "x", "parameters": {"type": "object", "anyOf": [{}]}}]}]},
]


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gemini-3-pro-preview"])
def test_gemini_top_repairs_and_checks_reused_give_what_a_fresh_profile_gives(model):
    shared = GeminiProfile(model=model)
    contents = [{"role": "user", "parts": [{"text": "go"}]}]
    for _ in range(2):
        for order in (_TOP_VARIANTS, list(reversed(_TOP_VARIANTS))):
            for v in order:
                body = dict(_body(contents), **copy.deepcopy(v))
                assert _repair_and_check(shared, body) == _repair_and_check(GeminiProfile(model=model), body), v
                body = dict(_body(contents + _usual_turn(0, False)), **copy.deepcopy(v))
                got = _repair_and_check(shared, body, start=2, settled=1)
                assert got == _repair_and_check(GeminiProfile(model=model), body, start=2, settled=1), v


def test_gemini_top_memos_notice_a_change_in_place():
    p = GeminiProfile(model="gemini-2.5-flash")
    body = _body([{"role": "user", "parts": [{"text": "go"}]}])
    assert _repair_and_check(p, body)[1:] == ([], [])
    body["tools"][0]["functionDeclarations"][0]["name"] = "bad name"  # in place
    assert [v[0] for v in _repair_and_check(p, body)[2]] == ["gemini.name.function"]
    body["tools"][0]["functionDeclarations"][0]["name"] = "lookup"
    body["generationConfig"] = {"thinkingConfig": {"thinkingBudget": 0}}
    assert _repair_and_check(p, body) == _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body)
    body["generationConfig"]["thinkingConfig"]["thinkingBudget"] = False  # 0 -> False, equal in Python
    assert _repair_and_check(p, body) == _repair_and_check(GeminiProfile(model="gemini-2.5-flash"), body)
