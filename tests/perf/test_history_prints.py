"""The fingerprints that tell the incremental requests whether an earlier message was edited in
place (``toolwire.profile.history_prints`` / ``strict_bytes``): same bytes exactly when the values
are the same, type for type and key for key, and a request whose earlier messages were edited in
any way is sent as a fresh whole encode would send it.

Checked against an independent, recursive comparison (``_same``) that looks at each value's exact
type, a dict's key order and a float's bits. No timing here.
"""

from __future__ import annotations

import dataclasses
import json
import math
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolwire
from toolwire.profile import history_prints, strict_bytes
from toolwire.tools import Tool
from toolwire.types import Conversation, ImagePart, Message, ReasoningPart, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

# -- an independent strict comparison ------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same value: the same exact types all the way down, dicts with the
    same keys in the same order, floats with the same bits, records of the same class with the
    same attributes."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(ka, kb) for ka, kb in zip(a, b)) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a):
        return _same(vars(a), vars(b))
    return bool(a == b)


def _same_message(a: Message, b: Message) -> bool:
    """What a message's fingerprint covers: its role, provider data and parts (every attribute)."""
    return (
        type(a) is type(b)
        and _same(a.role, b.role)
        and _same(a.provider_data, b.provider_data)
        and type(a.parts) is type(b.parts)
        and _same(list(a.parts), list(b.parts))
    )


def _extends(old: Any, new: Any) -> bool:
    return new[0].startswith(old[0]) and new[1].startswith(old[1]) and new[2][: len(old[2])] == old[2]


# -- values -------------------------------------------------------------------------------------

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, math.inf, -math.inf]),
    st.sampled_from(["", "a", "b", "é", "\ud800"]),
    st.sampled_from([b"", b"x"]),
)
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "c", "1"]) | st.integers(0, 1), inner, max_size=3),
    ),
    max_leaves=8,
)


def _twin(value: Any) -> Any:
    """An equal (``==``) value that may differ in a type (1 / True / 1.0, 0.0 / -0.0, a tuple for
    a list) or a dict's key order."""
    t = type(value)
    if t is bool:
        return int(value)
    if t is int:
        return float(value) if value != 1 else True
    if t is float:
        return -value if value == 0 else value
    if t is list:
        return tuple(_twin(v) for v in value) if len(value) % 2 else [_twin(v) for v in value]
    if t is tuple:
        return list(value)
    if t is dict:
        return {k: _twin(value[k]) for k in reversed(list(value))}
    return value


@settings(max_examples=300, deadline=None)
@given(a=_value, b=_value, twin=st.booleans())
def test_strict_bytes_are_equal_exactly_for_the_same_values(a: Any, b: Any, twin: bool) -> None:
    if twin:
        b = _twin(a)
    pa, pb = strict_bytes(a), strict_bytes(b)
    assert pa is not None and pb is not None
    assert (pa == pb) == _same(a, b), (a, b)
    assert strict_bytes(a) == pa  # the same value again: the same bytes


def test_strict_bytes_refuse_what_they_cannot_tell_apart() -> None:
    class Sub(dict):  # type: ignore[type-arg]
        pass

    class Obj:
        pass

    for value in ({"x": Sub()}, [Obj()], {"f": len}, "s", Sub):
        if value == "s":
            assert strict_bytes(value) is not None
            continue
        assert strict_bytes(value) is None, value
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    assert strict_bytes(cyclic) is None
    nan = float("nan")
    assert strict_bytes([nan]) == strict_bytes([nan])


# -- conversations --------------------------------------------------------------------------------


@st.composite
def _part(draw: Any, role: str) -> Any:
    kind = draw(st.sampled_from(["text", "call", "reasoning", "image"] if role == "assistant" else ["text", "result"]))
    data = draw(st.dictionaries(st.sampled_from(["k", "j"]), _value, max_size=2))
    if kind == "text":
        return TextPart(draw(st.sampled_from(["hi", "ok"])), provider_data=data)
    if kind == "call":
        return ToolCall(
            draw(st.sampled_from(["c1", "c2"])),
            "lookup",
            draw(st.dictionaries(st.sampled_from(["q", "n", "x"]), _value, max_size=3)),
            provider_data=data,
        )
    if kind == "reasoning":
        return ReasoningPart("thought", signature=draw(st.sampled_from([None, "sig"])), provider="anthropic")
    if kind == "image":
        return ImagePart(data=b"\x89PNG", media_type="image/png")
    content: Any = draw(st.sampled_from(["r", ""]))
    if draw(st.booleans()):
        content = [TextPart("r"), TextPart(draw(st.sampled_from(["s", "t"])))]
    return ToolResult("c1", content, is_error=draw(st.booleans()))


@st.composite
def _message(draw: Any) -> Message:
    role = draw(st.sampled_from(["user", "assistant"]))
    return Message(role, draw(st.lists(_part(role), max_size=3)), draw(st.sampled_from([{}, {"x": 1}])))


def _edits(message: Message) -> list[Any]:
    """In-place edits of one message, each keeping ``==`` or not."""
    out: list[Any] = [
        lambda m: setattr(m, "role", "assistant" if m.role == "user" else "user"),
        lambda m: m.provider_data.update(x=True),
        lambda m: m.parts.append(TextPart("more")),
    ]
    for j, p in enumerate(message.parts):
        out.append(lambda m, j=j: setattr(m.parts[j], "provider_data", _twin(m.parts[j].provider_data)))
        if isinstance(p, ToolCall):
            out.append(lambda m, j=j: setattr(m.parts[j], "arguments", _twin(m.parts[j].arguments)))
            out.append(lambda m, j=j: setattr(m.parts[j], "incomplete", 0))
        if isinstance(p, ToolResult):
            out.append(lambda m, j=j: setattr(m.parts[j], "is_error", int(m.parts[j].is_error)))
            if isinstance(p.content, list):
                out.append(lambda m, j=j: setattr(m.parts[j].content[1], "text", "changed"))
                out.append(lambda m, j=j: m.parts[j].content.reverse())
        if isinstance(p, TextPart):
            out.append(lambda m, j=j: setattr(m.parts[j], "text", m.parts[j].text + "!"))
            out.append(lambda m, j=j: m.parts.__setitem__(j, ReasoningPart(m.parts[j].text)))
    return out


CTX = ["model", None, [["Tool", "lookup"]], None, None, 1024, 0.5, False, None, {"a": 1}]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(_message(), min_size=1, max_size=5),
    more=st.lists(_message(), max_size=2),
    pick=st.integers(0, 100),
    edit=st.integers(0, 100),
    do_edit=st.booleans(),
)
def test_a_longer_conversation_extends_the_print_exactly_when_no_earlier_message_changed(
    messages: list[Message], more: list[Message], pick: int, edit: int, do_edit: bool
) -> None:
    import copy

    before = history_prints(CTX, messages)
    assert before is not None
    kept = copy.deepcopy(messages)
    if do_edit:
        target = messages[pick % len(messages)]
        edits = _edits(target)
        edits[edit % len(edits)](target)
    after = history_prints(CTX, messages + more)
    assert after is not None
    unchanged = all(_same_message(a, b) for a, b in zip(messages, kept))
    assert _extends(before, after) == unchanged
    assert history_prints(CTX, messages) is not None and _extends(history_prints(CTX, messages), after)


def test_the_context_is_part_of_the_print() -> None:
    messages = [Message.user("go")]
    base = history_prints(CTX, messages)
    for i, value in [(5, True), (5, 1024.0), (6, 1), (9, {"a": True}), (9, {"a": 1, "b": 2}), (0, "other")]:
        ctx = list(CTX)
        ctx[i] = value
        assert not _extends(base, history_prints(ctx, messages + [Message.assistant("ok")]))
    assert _extends(base, history_prints(list(CTX), messages + [Message.assistant("ok")]))


def test_foreign_values_and_subclasses_have_no_print() -> None:
    class Note(TextPart):
        pass

    class Opaque:
        pass

    assert history_prints(CTX, [Message("user", [Note("x")])]) is None
    assert history_prints(CTX, [Message("user", (TextPart("x"),))]) is None  # type: ignore[arg-type]
    foreign = ToolResult("c", "")
    foreign.content = [Opaque()]  # type: ignore[list-item]  # set after construction (which turns it to text)
    assert history_prints(CTX, [Message("user", [foreign])]) is None
    assert history_prints(CTX, [Message("user", [TextPart("x", provider_data={"o": Opaque()})])]) is None
    assert history_prints([*CTX[:-1], {"o": Opaque()}], [Message.user("x")]) is None


# -- through a model: every request as a whole encode would send it --------------------------------

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-5"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash"),
}
LOOKUP = Tool("lookup", "Look something up.", {"type": "object", "properties": {"q": {"type": "string"}}})


def _model(api: str) -> Any:
    pytest.importorskip(APIS[api][0])
    return toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0)


def _sent(m: Any, messages: list[Message], owner: Any) -> tuple[str, Any]:
    req = m.build_request(messages, tools=[LOOKUP])
    req.conversation = owner
    body, report = m._preflight(req, incremental=True)
    return json.dumps(body, ensure_ascii=False), report.to_dict()


def _whole(api: str, messages: list[Message]) -> tuple[str, Any]:
    return _sent(_model(api), messages, None)


def _turns(k: int, arguments: dict[str, Any]) -> list[Message]:
    return [
        Message("assistant", [TextPart(f"step {k}"), ToolCall(f"call_{k}", "lookup", dict(arguments))]),
        Message("user", [ToolResult(f"call_{k}", [TextPart(f"result {k}"), TextPart("more")])]),
    ]


_ARGUMENT_EDITS = [
    lambda a: a.update(q=True),  # 1 -> True
    lambda a: a.update(q=1.0),  # 1 -> 1.0
    lambda a: a.update(n=-0.0),  # 0.0 -> -0.0
    lambda a: a.update(a.copy() if not a.pop("q", None) else {"q": 1}),  # a key moved to the end
    lambda a: a.update(n=(0.0,)),  # a list would be [0.0]
]


@pytest.mark.parametrize("api", list(APIS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(st.tuples(st.integers(0, 10), st.integers(0, len(_ARGUMENT_EDITS) + 1)), min_size=1, max_size=5))
def test_earlier_messages_edited_in_place_are_sent_as_whole_encodes_send_them(
    api: str, plan: list[tuple[int, int]]
) -> None:
    m = _model(api)
    owner = Conversation()
    history = [Message.user("go")]
    for k, (target, edit) in enumerate(plan):
        history += _turns(k, {"q": 1, "n": 0.0})
        if k and edit < len(_ARGUMENT_EDITS):  # edit an earlier call's arguments in place
            calls = [p for msg in history[:-2] for p in msg.parts if isinstance(p, ToolCall)]
            _ARGUMENT_EDITS[edit](calls[target % len(calls)].arguments)
        elif k and edit == len(_ARGUMENT_EDITS):  # an earlier tool result's text part
            results = [p for msg in history[:-2] for p in msg.parts if isinstance(p, ToolResult)]
            results[target % len(results)].content[1].text = "edited"
        assert _sent(m, history, owner) == _whole(api, history)


@pytest.mark.parametrize("api", list(APIS))
def test_a_history_without_a_print_still_notices_edits(api: str) -> None:
    class Tag(str):
        pass

    m = _model(api)
    owner = Conversation()
    history = [Message.user("go"), *_turns(0, {"q": Tag("x")})]
    assert history_prints(["x"], history) is None
    assert _sent(m, history, owner) == _whole(api, history)
    history += _turns(1, {"q": "y"})
    assert _sent(m, history, owner) == _whole(api, history)
    history[1].parts[0].text = "edited"
    history += _turns(2, {"q": "z"})
    assert _sent(m, history, owner) == _whole(api, history)
    assert "edited" in _sent(m, history, owner)[0]
