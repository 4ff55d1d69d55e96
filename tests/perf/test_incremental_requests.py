"""Incremental encoding and preflight give the same bodies and reports as encoding every request
whole, and notice every change they are keyed on.

No timing here (performance is measured in ``benchmarks/``). Each test sends the same requests
through a model that keeps its caches (the loop's ``ModelRequest.conversation`` set) and through
fresh models that encode and check each request from nothing, and compares the bodies byte for
byte (their JSON) and the preflight reports.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import toolwire
from toolwire.adapter import DeclarationMemo, ModelRequest
from toolwire.errors import ToolwireError
from toolwire.profile import PrefixFold
from toolwire.tools import Tool
from toolwire.types import Conversation, Message, ReasoningPart, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

httpx2 = pytest.importorskip("httpx2")

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-5"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash"),
}


def _model(api: str, **settings: Any) -> Any:
    pytest.importorskip(APIS[api][0])
    return toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0, **settings)


LOOKUP = Tool(
    "lookup",
    "Look something up.",
    {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)


def _dumps(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, sort_keys=False)


def _request(m: Any, messages: list[Message], owner: Any, **kw: Any) -> ModelRequest:
    req = m.build_request(messages, tools=kw.pop("tools", [LOOKUP]), **kw)
    req.conversation = owner
    return req


def _fresh(api: str, request: ModelRequest, **settings: Any) -> tuple[str, Any]:
    """The body and report of ``request`` from a model that has seen nothing (no conversation)."""
    m = _model(api, **settings)
    body, report = m._preflight(dataclasses.replace(request, conversation=None))
    return _dumps(body), report.to_dict()


def _both(api: str, m: Any, request: ModelRequest, **settings: Any) -> tuple[str, Any]:
    body, report = m._preflight(request, incremental=True)
    got = (_dumps(body), report.to_dict())
    assert got == _fresh(api, request, **settings)
    return got


def _loop_history(turns: int) -> list[Message]:
    """A tool loop's conversation: the prompt, then (assistant call, user result) pairs."""
    msgs = [Message("user", [TextPart("go")])]
    for k in range(turns):
        msgs.append(Message("assistant", [TextPart(f"step {k}"), ToolCall(f"call_{k}", "lookup", {"q": str(k)})]))
        msgs.append(Message("user", [ToolResult(f"call_{k}", f"result {k}")]))
    return msgs


# -- the loop's requests -----------------------------------------------------------------------


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("instructions", [None, "Be brief."])
def test_growing_history_gives_the_bodies_and_reports_of_whole_encodes(api: str, instructions: str | None) -> None:
    m = _model(api)
    owner = Conversation()
    history = _loop_history(12)
    encoded: list[int] = []
    codec = m.codec
    original = codec.encode_request
    codec.encode_request = lambda r: (encoded.append(len(r.messages)), original(r))[1]  # type: ignore[method-assign]
    for k in range(1, len(history) + 1, 2):
        _both(api, m, _request(m, history[:k], owner, instructions=instructions))
    # after the first request only the new messages were encoded (the tail), never the whole history
    assert encoded[0] == 1 and max(encoded[1:]) == 2


@pytest.mark.parametrize("api", list(APIS))
def test_a_real_loop_sends_what_whole_encodes_would(api: str) -> None:
    """Through the SDK: every body the loop posts equals the whole encode of the same request."""
    pytest.importorskip(APIS[api][0])
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import suite  # the benchmark's canned vendor answers

    posted: list[bytes] = []
    inner = suite.transport_for(api, 6)

    def handler(request: Any) -> Any:
        posted.append(request.content)
        return inner.handler(request)  # type: ignore[attr-defined]

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    m = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", http_client=client, max_retries=0)
    requests: list[ModelRequest] = []
    prepared = m._preflight

    def spy(request: ModelRequest, **kw: Any) -> Any:
        requests.append(request)
        return prepared(request, **kw)

    m._preflight = spy  # type: ignore[method-assign]
    result = asyncio.run(toolwire.run(m, "go", tools=[suite.lookup], max_turns=6))
    assert result.stop_reason == "end_turn" and len(posted) == 6
    for req, sent in zip(requests, posted):
        assert req.conversation is not None
        fresh = _model(api)
        body = fresh.stream_body(dict(fresh._preflight(dataclasses.replace(req, conversation=None))[0]), False)
        assert json.loads(sent) == body


# -- changes are noticed -----------------------------------------------------------------------


@pytest.mark.parametrize("api", list(APIS))
def test_an_edited_history_is_encoded_whole(api: str) -> None:
    m = _model(api)
    owner = Conversation()
    history = _loop_history(4)
    _both(api, m, _request(m, history[:5], owner))
    # a message replaced (a new object), one removed, and the list reordered: each noticed
    edited = list(history[:7])
    edited[1] = Message("assistant", [TextPart("edited"), ToolCall("call_0", "lookup", {"q": "0"})])
    body, _ = _both(api, m, _request(m, edited, owner))
    assert "edited" in body and "step 0" not in body
    shorter = history[:3]
    body, _ = _both(api, m, _request(m, shorter, owner))
    assert "step 1" not in body
    body, _ = _both(api, m, _request(m, history[:9], owner))
    assert "edited" not in body and "step 3" in body


@pytest.mark.parametrize("api", list(APIS))
def test_another_conversation_or_none_is_encoded_whole(api: str) -> None:
    m = _model(api)
    a, b = Conversation(), Conversation()
    history = _loop_history(3)
    _both(api, m, _request(m, history[:3], a))
    other = [Message("user", [TextPart("something else")])] + history[1:5]
    body, _ = _both(api, m, _request(m, other, b))
    assert "something else" in body
    body, _ = _both(api, m, _request(m, history[:5], a))  # a's cache is kept beside b's
    assert "something else" not in body
    body, _ = _both(api, m, _request(m, history[:7], None))
    assert "step 2" in body


@pytest.mark.parametrize("api", list(APIS))
def test_a_changed_setting_instruction_or_tool_is_noticed(api: str) -> None:
    m = _model(api)
    owner = Conversation()
    history = _loop_history(5)
    _both(api, m, _request(m, history[:3], owner))
    body, _ = _both(api, m, _request(m, history[:5], owner, instructions="New instructions."))
    assert "New instructions." in body
    m.settings["max_tokens"] = 777
    body, _ = _both(api, m, _request(m, history[:7], owner, instructions="New instructions."))
    assert "777" in body
    renamed = Tool("find", "Find something.", LOOKUP.input_schema)
    body, _ = _both(api, m, _request(m, history[:9], owner, tools=[LOOKUP, renamed]))
    assert '"find"' in body


@pytest.mark.parametrize("api", list(APIS))
def test_a_tool_changed_in_place_is_declared_anew(api: str) -> None:
    m = _model(api)
    tool = Tool("lookup", "Look something up.", copy.deepcopy(LOOKUP.input_schema))
    owner = Conversation()
    history = _loop_history(3)
    _both(api, m, _request(m, history[:3], owner, tools=[tool]))
    tool.description = "Look a fact up in the encyclopedia."
    body, _ = _both(api, m, _request(m, history[:5], owner, tools=[tool]))
    assert "encyclopedia" in body
    tool.input_schema["properties"]["q"]["description"] = "The topic."
    body, _ = _both(api, m, _request(m, history[:7], owner, tools=[tool]))
    assert "The topic." in body


@pytest.mark.parametrize("api", list(APIS))
def test_a_repaired_message_is_not_leaked_into_the_history(api: str) -> None:
    """A message the preflight repairs (blank text, trailing whitespace) is repaired on every
    request as a whole encode repairs it, and neither the user's message nor the cache changes."""
    m = _model(api)
    owner = Conversation()
    history = _loop_history(4)
    history[1] = Message("assistant", [TextPart("   "), ToolCall("call_0", "lookup", {"q": "0"})])
    history[2] = Message("user", [ToolResult("call_0", ""), TextPart(" \n")])
    before = copy.deepcopy(history)
    reports = []
    for k in (3, 5, 7, 9):
        reports.append(_both(api, m, _request(m, history[:k], owner))[1])
    assert history == before  # the canonical messages are untouched
    assert reports[0]["changes"] == reports[-1]["changes"] or all(
        r["changes"] == reports[0]["changes"] for r in reports
    )


@pytest.mark.parametrize("api", list(APIS))
def test_a_refused_request_leaves_the_cache_as_it_was(api: str) -> None:
    m = _model(api)
    owner = Conversation()
    history = _loop_history(3)
    _both(api, m, _request(m, history[:3], owner))
    bad = list(history[:5])
    bad[3] = Message("assistant", [ToolCall("call_9", "lookup", {"q": "x"})])  # two assistants in a row
    bad.append(Message("user", [ToolResult("call_9", "late")]))
    for req in (_request(m, bad, owner),):
        try:
            got = m._preflight(req, incremental=True)
        except ToolwireError as exc:  # refused, or not encodable (Gemini: a result needs its call's name)
            with pytest.raises(type(exc)) as whole:
                _model(api)._preflight(dataclasses.replace(req, conversation=None))
            assert str(whole.value) == str(exc)
        else:
            assert (_dumps(got[0]), got[1].to_dict()) == _fresh(api, req)
    _both(api, m, _request(m, history[:7], owner))


# -- random conversations ----------------------------------------------------------------------

_IDS = ["c1", "c2", "c3", "c.4", "c1"]


@st.composite
def _message(draw: Any) -> Message:
    role = draw(st.sampled_from(["user", "assistant"]))
    parts: list[Any] = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(
            st.sampled_from(
                ["text", "blank", "call", "result", "reasoning"]
                if role == "assistant"
                else ["text", "blank", "result", "result"]
            )
        )
        if kind == "text":
            parts.append(TextPart(draw(st.sampled_from(["hi", "ok ", "done"]))))
        elif kind == "blank":
            parts.append(TextPart(draw(st.sampled_from(["", " ", "\n"]))))
        elif kind == "call":
            parts.append(ToolCall(draw(st.sampled_from(_IDS)) + draw(st.sampled_from(["", "x"])), "lookup", {"q": "a"}))
        elif kind == "result":
            parts.append(
                ToolResult(
                    draw(st.sampled_from(_IDS)) + draw(st.sampled_from(["", "x"])),
                    draw(st.sampled_from(["r", "", " "])),
                    is_error=draw(st.booleans()),
                    name=draw(st.sampled_from([None, "lookup"])),
                )
            )
        else:
            parts.append(
                ReasoningPart("thought", signature="sig", provider=draw(st.sampled_from(["anthropic", "gemini"])))
            )
    return Message(role, parts)


@pytest.mark.parametrize("api", list(APIS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.lists(_message(), min_size=1, max_size=3), min_size=1, max_size=6), loop_like=st.booleans())
@example(  # found by this test: a result before its call, then another API's reasoning (Anthropic)
    steps=[
        [
            Message("user", [ToolResult("c2x", "r"), TextPart("hi")]),
            Message("assistant", [TextPart("hi"), ToolCall("c2x", "lookup", {"q": "a"})]),
        ],
        [Message("user", []), Message("assistant", [ReasoningPart("thought", signature="sig", provider="gemini")])],
    ],
    loop_like=False,
)
def test_random_growing_conversations_match_whole_encodes(
    api: str, steps: list[list[Message]], loop_like: bool
) -> None:
    m = _model(api)
    owner = Conversation()
    history: list[Message] = _loop_history(2) if loop_like else []
    for step in steps:
        history = history + step
        req = _request(m, history, owner)
        try:
            body, report = m._preflight(req, incremental=True)
        except ToolwireError as exc:  # refused, or not encodable (Gemini: a result needs its call's name)
            with pytest.raises(type(exc)) as whole:
                _model(api)._preflight(dataclasses.replace(req, conversation=None))
            assert str(whole.value) == str(exc)
            continue
        assert (_dumps(body), report.to_dict()) == _fresh(api, req)


# -- the pieces --------------------------------------------------------------------------------


def test_declaration_memo_reuses_and_notices_changes() -> None:
    calls: list[str] = []

    def translate(tool: Tool) -> tuple[dict[str, Any], Any]:
        calls.append(tool.name)
        return {"name": tool.name, "description": tool.model_description(), "schema": tool.input_schema}, None

    memo = DeclarationMemo()
    tool = Tool("t", "d", {"type": "object", "properties": {}})
    first = memo.declaration(tool, translate)
    second = memo.declaration(tool, translate)
    assert first == second and first is not second and calls == ["t"]
    second["name"] = "changed by a repair"  # the caller's copy: the memo is not affected
    assert memo.declaration(tool, translate)["name"] == "t"
    tool.input_schema["properties"]["x"] = {"type": "string"}
    assert memo.declaration(tool, translate)["schema"]["properties"] == {"x": {"type": "string"}}
    tool.returns = "a count"
    assert "a count" in memo.declaration(tool, translate)["description"]
    tool.function = print  # the function is not declared: no new translation
    memo.declaration(tool, translate)
    assert calls == ["t", "t", "t"]
    assert pickle.loads(pickle.dumps(memo))._memo == {} and copy.deepcopy(memo)._memo == {}

    def broken(tool: Tool) -> Any:
        raise ValueError("no")

    with pytest.raises(ValueError):
        memo.declaration(Tool("u", "d"), broken)


_SEEN: list[int] = []


def _sum_step(acc: int, i: int, entry: int) -> int:
    _SEEN.append(i)
    return acc + entry


def test_prefix_fold_steps_through_new_entries_only() -> None:
    seen = _SEEN
    seen.clear()
    fold = PrefixFold(_sum_step, int)
    items = [1, 2, 3]
    assert fold.fold(items) == 6 and seen == [0, 1, 2]
    assert fold.fold(items + [4, 5]) == 15 and seen[3:] == [3, 4]
    assert fold.fold([9, 2, 3, 4]) == 18 and seen[5:] == [0, 1, 2, 3]  # a changed entry: folded again
    assert fold.fold([9, 2, 3, 4], 2) == 11  # a shorter prefix: folded again
    assert pickle.loads(pickle.dumps(fold)).fold([1]) == 1


@pytest.mark.parametrize("api", list(APIS))
def test_finished_conversations_are_released_and_caches_pickle_empty(api: str) -> None:
    import gc

    m = _model(api)
    history = _loop_history(3)
    owners = [Conversation() for _ in range(3)]
    for o in owners:
        _both(api, m, _request(m, history[:5], o))
    assert len(vars(m)["_histories"]._by_owner) == 3
    del owners, o
    gc.collect()
    live = Conversation()
    _both(api, m, _request(m, history[:3], live))
    assert list(vars(m)["_histories"]._by_owner) == [id(live)]
    # the caches travel empty (models are pickled for Ray, copied by tests)
    assert pickle.loads(pickle.dumps(vars(m)["_histories"]))._by_owner == {}
    assert copy.deepcopy(vars(m)["_histories"])._by_owner == {}
    folds = [v for v in vars(m.profile).values() if isinstance(v, PrefixFold)]
    assert all(pickle.loads(pickle.dumps(f))._entries == [] for f in folds)  # Gemini keeps none


@pytest.mark.parametrize("api", list(APIS))
def test_a_call_id_reused_inside_the_new_messages_is_renumbered_as_in_the_whole_encode(api: str) -> None:
    """Found by the property test above: two assistant messages added at once, the second
    reusing the first's call id (as OpenAI-compatible servers number every response's calls
    ``call_0``...). The later call is renamed after its message's place in the whole conversation
    (``c2_t2``); encoding the new messages alone named it after its place among them (``c2_t1``),
    so the incremental body differed from the whole one (and two such tails could collide)."""
    m = _model(api)
    owner = Conversation()
    first = [Message("user", [TextPart("hi")])]
    calls = [
        Message("assistant", [ToolCall("c2", "lookup", {"q": "a"})]),
        Message("assistant", [TextPart("hi"), ToolCall("c2", "lookup", {"q": "a"})]),
    ]
    for history in (first, first + calls):
        req = _request(m, history, owner)
        body, report = m._preflight(req, incremental=True)
        assert (_dumps(body), report.to_dict()) == _fresh(api, req)
    if api != "gemini":  # (Gemini is sent no call id toolwire did not receive from Gemini)
        assert "c2_t2" in _dumps(body) and "c2_t1" not in _dumps(body)
