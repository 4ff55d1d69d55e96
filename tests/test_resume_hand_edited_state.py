"""Saved run states edited by hand (or damaged) and then resumed: each shape is refused with a
typed error saying what is wrong and what to do, before any tool runs, or read back as it was
written. The last tests resume through the Anthropic and OpenAI SDKs (network replaced by
``httpx2.MockTransport``) and check the request sent after the resume."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import Approved
from toolwire.errors import ConfigurationError
from toolwire.store import RunStore
from toolwire.testing import ScriptedModel, call


def _strict_loads(text: str) -> Any:
    """``json.loads`` as a strict JSON reader (JavaScript, SQLite, jq) reads: no Infinity/NaN."""

    def refuse(word: str) -> Any:
        raise AssertionError(f"not strict JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def _add(ran: list[Any]) -> toolwire.Tool:
    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add."""
        ran.append((a, b))
        return a + b

    return add


def _paused(ran: list[Any], *, two_turns: bool = False) -> dict[str, Any]:
    """A saved paused run: c1 ran (3), c2 waits for approval (turn 1, or turn 2 with ``two_turns``)."""
    first = [call("add", {"a": 1, "b": 2}, id="c1")]
    second = [call("add", {"a": 3, "b": 4}, id="c2")]
    responses: list[Any] = [first, second] if two_turns else [first + second]
    result = toolwire.run_sync(
        ScriptedModel(responses=responses), "add", tools=[_add(ran)], approval=lambda c: c.id == "c2"
    )
    assert [(p.call.id, p.kind) for p in result.pending] == [("c2", "approval")]
    ran.clear()
    return json.loads(result.state.to_json())


def _resume(d: dict[str, Any], ran: list[Any], decisions: Any = None, prompt: Any = None) -> toolwire.RunResult:
    return toolwire.run_sync(
        ScriptedModel(responses=["done"]),
        prompt,
        tools=[_add(ran)],
        approval=lambda c: c.id == "c2",
        resume=toolwire.RunState.from_json(json.dumps(d)),
        decisions=decisions,
    )


# -- refused on load: the place in the JSON and what to do ------------------------------------


def _renumber(d: dict[str, Any], numbers: list[int]) -> None:
    for t, n in zip(d["turns"], numbers):
        t["number"] = n


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (
            lambda d: _renumber(d, [1, 1]),
            "at turns[1]: turn: number must be 2 (the turns of a run are numbered 1, 2, 3, ... in the order they "
            "are listed), got 1, the number of turns[0] too; put the turns in the order they were taken",
        ),
        (lambda d: d["turns"].reverse(), "at turns[0]: turn: number must be 1 (the turns of a run"),
        (lambda d: _renumber(d, [1, 5]), "at turns[1]: turn: number must be 2 (the turns of a run are numbered"),
        (
            lambda d: d.__setitem__("pendng", d.pop("pending")),
            "run state: unknown key 'pendng'. Did you mean 'pending'? The keys are format, version, run_id",
        ),
        (lambda d: d.__setitem__("notes", "mine"), "run state: unknown key 'notes'. The keys are format, version"),
        (
            lambda d: d["turns"][0].__setitem__("tool_run", d["turns"][0].pop("tool_runs")),
            "at turns[0]: turn: unknown key 'tool_run'. Did you mean 'tool_runs'? The keys are number, response, "
            "tool_runs, interrupted",
        ),
        (
            lambda d: d["pending"][0].__setitem__("aproved", True),
            "at pending[0]: pending call: unknown key 'aproved'. Did you mean 'approved'?",
        ),
    ],
)
def test_misnumbered_turns_and_unknown_keys_are_refused_on_load(edit: Any, words: str) -> None:
    # a repeated or out-of-order turn number was loaded (and resumed: the next turn took a number
    # already used, and a run store refused the save half-way with a UNIQUE constraint); a
    # misspelled key was dropped without a word ("pendng": the waiting calls lost)
    d = _paused([], two_turns=True)
    edit(d)
    with pytest.raises(ValueError, match="not a saved toolwire RunState") as info:
        toolwire.RunState.from_json(json.dumps(d))
    assert words in str(info.value), str(info.value)


def test_a_newer_version_with_new_keys_says_upgrade_not_unknown_key() -> None:
    d = _paused([])
    d["version"], d["labels"] = 2, {}
    with pytest.raises(ValueError, match="format version 2; this toolwire reads version 1 and earlier: upgrade"):
        toolwire.RunState.from_json(json.dumps(d))


def test_an_unknown_key_of_a_saved_run_result_is_refused() -> None:
    ran: list[Any] = []
    result = toolwire.run_sync(ScriptedModel(responses=["hi"]), "go", tools=[_add(ran)])
    d = json.loads(result.to_json())
    d["truns"] = d.pop("turns")
    with pytest.raises(ValueError, match=r"run result: unknown key 'truns'\. Did you mean 'turns'\?"):
        toolwire.RunResult.from_json(json.dumps(d))
    with pytest.raises(ValueError, match=r"run result: unknown key 'truns'\."):
        toolwire.RunState.from_json(json.dumps(d))


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('"a": 3', '"a": Infinity', "at pending[0].call.arguments.a: a number JSON cannot hold (Infinity)"),
        ('"a": 3', '"a": -Infinity', "at pending[0].call.arguments.a: a number JSON cannot hold (-Infinity)"),
        ('"b": 2', '"b": NaN', "at turns[0].response.parts[0].arguments.b: a number JSON cannot hold (NaN)"),
        ('"a": 3', '"a": 1e999', "at pending[0].call.arguments.a: a number JSON cannot hold (a literal too large"),
    ],
)
def test_a_number_json_cannot_hold_is_refused_on_load_naming_its_place(old: str, new: str, words: str) -> None:
    # read as a float infinity, it reached the request after the resume, which the SDK's
    # json.dumps refused ("Out of range float values are not JSON compliant") on every resume
    text = json.dumps(_paused([])).replace(old, new)
    assert new in text
    with pytest.raises(ValueError, match="not a saved toolwire RunState") as info:
        toolwire.RunState.from_json(text)
    assert words in str(info.value), str(info.value)
    assert 'replace it with a finite number, or with text such as "Infinity"' in str(info.value)


def test_a_non_finite_number_is_written_as_strict_json_text() -> None:
    # to_json wrote the bare word Infinity (Python's json default), which no other JSON reader
    # (JSON.parse, SQLite's json functions, jq) accepts, and from_json now refuses
    state = toolwire.RunState.from_json(json.dumps(_paused([])))
    p = state.pending[0]
    p.kind, p.approved, p.arguments = "interrupted", True, {"a": math.inf, "b": [-math.inf, math.nan, 1.5]}
    state.turns[0].response.provider_data = {"anthropic": {"score": math.inf}}
    text = state.to_json()
    saved = _strict_loads(text)
    assert saved["pending"][0]["arguments"] == {"a": "Infinity", "b": ["-Infinity", "NaN", 1.5]}
    assert saved["turns"][0]["response"]["provider_data"] == {"anthropic": {"score": "Infinity"}}
    loaded = toolwire.RunState.from_json(text)
    assert loaded.pending[0].arguments == {"a": "Infinity", "b": ["-Infinity", "NaN", 1.5]}
    assert loaded.to_json() == text
    result_text = state.to_result().to_json()
    assert _strict_loads(result_text)["turns"][0]["response"]["provider_data"] == {"anthropic": {"score": "Infinity"}}
    # a state without such numbers is written as before
    plain = toolwire.RunState.from_json(json.dumps(_paused([])))
    assert plain.to_json() == json.dumps(plain.to_dict(), ensure_ascii=False)


# -- refused on resume: parts of the state that disagree ---------------------------------------


@pytest.mark.parametrize(
    ("decisions", "prompt"),
    [({"c2": Approved()}, None), (None, None), (None, "and now?")],
    ids=["approved", "none", "prompt"],
)
def test_a_finished_run_that_lists_pending_calls_is_refused(decisions: Any, prompt: Any) -> None:
    # it resumed and ran the call (or paused again) as if the status said nothing
    ran: list[Any] = []
    d = _paused(ran)
    d["status"], d["stop_reason"] = "finished", "end_turn"
    with pytest.raises(ValueError, match=r"status is 'finished' but it lists pending tool calls \['c2'\]"):
        toolwire.RunState.from_json(json.dumps(d))  # refused on load
    # and on resume, for such a state put together in code
    state = toolwire.RunState.from_json(json.dumps(_paused(ran)))
    state.status, state.stop_reason = "finished", "end_turn"
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(
            ScriptedModel(responses=["done"]),
            prompt,
            tools=[_add(ran)],
            approval=lambda c: c.id == "c2",
            resume=state,
            decisions=decisions,
        )
    assert str(info.value) == (
        "cannot resume: the saved run's status is 'finished' but it lists pending tool calls ['c2'] (was the state "
        "edited?); a finished run has none. If the calls still wait for their decisions (the conversation answers "
        "them with a placeholder), set the status to 'paused'; if they were answered, remove them from pending"
    )
    assert ran == []


def test_a_pending_call_whose_arguments_differ_from_the_conversation_is_refused_not_run() -> None:
    # the tool ran with {"a": 300} while the conversation (what the model sent, and what it is
    # told it got a result for) says {"a": 3}
    ran: list[Any] = []
    d = _paused(ran)
    d["pending"][0]["call"]["arguments"] = {"a": 300, "b": 4}
    with pytest.raises(ConfigurationError) as info:
        _resume(d, ran, {"c2": Approved()})
    assert str(info.value) == (
        "cannot resume: pending tool call 'c2' is 'add' with arguments {'a': 300, 'b': 4}, but the conversation's "
        "call 'c2' (what the model sent) is 'add' with arguments {'a': 3, 'b': 4} (was the state edited?); put back "
        "the model's name and arguments, and to run it with other arguments resume with "
        "decisions={'c2': toolwire.Approved(arguments=...)}"
    )
    assert ran == []
    # the way to change them still works
    d["pending"][0]["call"]["arguments"] = {"a": 3, "b": 4}
    done = _resume(d, ran, {"c2": Approved(arguments={"a": 300, "b": 4})})
    assert ran == [(300, 4)]
    assert [(r.call.id, r.result.text) for r in done.tool_runs] == [("c1", "3"), ("c2", "304")]


def test_a_pending_call_renamed_by_hand_is_refused() -> None:
    ran: list[Any] = []
    d = _paused(ran)
    d["pending"][0]["call"]["name"] = "sub"
    with pytest.raises(ConfigurationError, match=r"pending tool call 'c2' is 'sub' with arguments .* is 'add' with"):
        _resume(d, ran, {"c2": Approved()})
    assert ran == []


def test_an_unanswered_call_whose_tool_run_differs_from_the_conversation_is_refused() -> None:
    # the pending list lost its entry (the call is then run again as interrupted, from its tool
    # run's record): that record's arguments were run, not the conversation's
    ran: list[Any] = []
    d = _paused(ran)
    d["pending"], d["status"] = [], "cancelled"
    d["turns"][0]["tool_runs"][1]["call"]["arguments"] = {"a": 300, "b": 4}
    with pytest.raises(ConfigurationError, match=r"tool call 'c2' of turn 1 \(not run yet\) is 'add' with arguments"):
        _resume(d, ran)
    assert ran == []


def test_a_pending_call_the_conversation_already_answers_is_refused_not_run_again() -> None:
    # a result written into the conversation by hand (or the tool ran and only the pending list
    # was left behind): the resume ran the tool and replaced that result
    ran: list[Any] = []
    d = _paused(ran)
    answer = d["conversation"]["messages"][2]["parts"][1]
    answer["content"] = "7"
    answer.pop("is_error")
    with pytest.raises(ConfigurationError) as info:
        _resume(d, ran, {"c2": Approved()})
    assert str(info.value).startswith(
        "cannot resume: pending tool call 'c2' waits for its result, but the saved conversation answers it with '7' "
        'instead of its placeholder "Not run yet: '
    )
    assert "a call with a result is never run again" in str(info.value)
    assert ran == []


def test_a_tool_run_of_a_call_not_in_the_conversation_is_refused() -> None:
    ran: list[Any] = []
    d = _paused(ran, two_turns=True)
    first = d["turns"][0]["tool_runs"][0]
    first["call"]["id"] = first["result"]["tool_call_id"] = "ghost"
    with pytest.raises(ConfigurationError) as info:
        _resume(d, ran, {"c2": Approved()})
    assert str(info.value) == (
        "cannot resume: turn 1 records a run of tool call 'ghost', which is not a tool call of the saved "
        "conversation (was the state edited?); the turns record the conversation's calls. To go on from an edited "
        "conversation, start a new run with conversation=state.conversation"
    )
    assert ran == []


def test_a_state_changed_in_code_with_repeated_turn_numbers_is_refused_on_resume() -> None:
    ran: list[Any] = []
    state = toolwire.RunState.from_json(json.dumps(_paused(ran, two_turns=True)))
    state.turns[1].number = 1
    with pytest.raises(ConfigurationError, match=r"^cannot resume: the saved run's turns\[1\]: turn: number must be 2"):
        toolwire.run_sync(
            ScriptedModel(responses=["done"]), tools=[_add(ran)], resume=state, decisions={"c2": Approved()}
        )
    assert ran == []


def test_an_unedited_state_still_resumes() -> None:
    ran: list[Any] = []
    done = _resume(_paused(ran, two_turns=True), ran, {"c2": Approved()})
    assert ran == [(3, 4)]
    assert [(t.number, [r.call.id for r in t.tool_runs]) for t in done.turns] == [(1, ["c1"]), (2, ["c2"]), (3, [])]


# -- the run store ------------------------------------------------------------------------------


def test_the_store_refuses_misnumbered_turns_before_writing(tmp_path: Path) -> None:
    # save() failed half-way inside SQLite (UNIQUE constraint failed: turns.run_id, turns.number)
    state = toolwire.RunState.from_json(json.dumps(_paused([], two_turns=True)))
    state.turns[1].number = 1
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(ConfigurationError, match=r"^cannot save run '.*': turns\[1\]: turn: number must be 2"):
            store.save(state)
        assert store.get(state.run_id) is None


def test_the_store_writes_strict_json_and_reads_it_back(tmp_path: Path) -> None:
    # the row held the bare word Infinity: SQLite's json_valid() said 0 and its JSON functions
    # (the store's own migrations use json_extract) fail on it
    state = toolwire.RunState.from_json(json.dumps(_paused([])))
    p = state.pending[0]
    p.kind, p.approved, p.arguments = "interrupted", True, {"a": math.inf, "b": 4}
    file = tmp_path / "runs.sqlite"
    with RunStore(file) as store:
        store.save(state)
        loaded = store.load_state(state.run_id)
    assert loaded.pending[0].arguments == {"a": "Infinity", "b": 4}
    conn = sqlite3.connect(file)
    try:
        assert conn.execute(
            "SELECT json_valid(state), json_extract(state, '$.pending[0].arguments.a') FROM runs"
        ).fetchall() == [(1, "Infinity")]
    finally:
        conn.close()


def test_a_damaged_stored_state_says_what_is_wrong_in_it(tmp_path: Path) -> None:
    # the store told the error of reading it as a RunResult ("missing field 'text'")
    d = _paused([])
    file = tmp_path / "runs.sqlite"
    with RunStore(file) as store:
        store.save(toolwire.RunState.from_json(json.dumps(d)))
    d["turns"][0]["number"] = 4
    conn = sqlite3.connect(file)
    with conn:
        conn.execute("UPDATE runs SET state=?", (json.dumps(d),))
    conn.close()
    with RunStore(file) as store:
        with pytest.raises(toolwire.store.RunStoreError) as info:
            store.load_state(d["run_id"])
    assert "cannot be read back (not a saved toolwire RunState: ValueError: at turns[0]: turn: number must be 1" in str(
        info.value
    )
    assert info.value.reason == "damaged"


# -- through the vendors' SDKs -------------------------------------------------------------------

ANSWERS = {
    "anthropic:claude-sonnet-4-5": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "the sums are 3 and 7"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 30, "output_tokens": 9},
    },
    "openai-chat:gpt-4o": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "the sums are 3 and 7"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39},
    },
}


def _answers_in_body(spec: str, body: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The tool call ids the body's assistant messages carry, and each call's answer text."""
    calls: list[str] = []
    answers: dict[str, str] = {}
    for m in body["messages"]:
        if spec.startswith("anthropic"):
            for block in m["content"] if isinstance(m["content"], list) else []:
                if block["type"] == "tool_use":
                    calls.append(block["id"])
                elif block["type"] == "tool_result":
                    content = block["content"]
                    answers[block["tool_use_id"]] = (
                        content if isinstance(content, str) else "".join(c["text"] for c in content)
                    )
        else:
            calls += [c["id"] for c in m.get("tool_calls") or []]
            if m["role"] == "tool":
                answers[m["tool_call_id"]] = m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
    return calls, answers


@pytest.mark.parametrize("spec", sorted(ANSWERS))
def test_a_saved_file_resumed_through_the_sdk_sends_a_valid_request(spec: str, mock: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    file = tmp_path / "run.json"
    toolwire.RunState.from_json(json.dumps(_paused(ran))).save(file)
    model, sent = mock(spec, [ANSWERS[spec]])
    done = toolwire.run_sync(
        model,
        tools=[_add(ran)],
        approval=lambda c: c.id == "c2",
        resume=toolwire.RunState.load(file),
        decisions={"c2": Approved()},
    )
    assert ran == [(3, 4)]
    assert (done.text, done.stop_reason, done.pending) == ("the sums are 3 and 7", "end_turn", [])
    assert len(sent) == 1
    body = _strict_loads(json.dumps(sent[0], allow_nan=False))
    calls, answers = _answers_in_body(spec, body)
    assert calls == ["c1", "c2"]
    assert answers == {"c1": "3", "c2": "7"}  # every call answered once, the placeholder replaced


@pytest.mark.parametrize("spec", sorted(ANSWERS))
def test_a_hand_edited_infinity_never_reaches_the_sdk(spec: str, mock: Any, tmp_path: Path) -> None:
    # loaded, it was sent: the request failed on every resume with "the body holds a value JSON
    # cannot carry", which does not say the saved file holds it nor where
    file = tmp_path / "run.json"
    file.write_text(json.dumps(_paused([])).replace('"a": 3', '"a": Infinity'))
    _model, sent = mock(spec, [ANSWERS[spec]])
    with pytest.raises(ValueError, match=r"at pending\[0\]\.call\.arguments\.a: a number JSON cannot hold .*run\.json"):
        toolwire.RunState.load(file)
    assert sent == []


def test_a_saved_conversation_is_strict_json_too() -> None:
    # Conversation.to_json wrote the bare word Infinity; from_json read it back as a float that
    # the next request could not carry
    conversation = toolwire.RunState.from_json(json.dumps(_paused([]))).conversation
    conversation.messages[1].parts[1].arguments = {"a": math.inf, "b": 4}  # type: ignore[union-attr]
    text = conversation.to_json()
    assert _strict_loads(text)["messages"][1]["parts"][1]["arguments"] == {"a": "Infinity", "b": 4}
    with pytest.raises(ValueError) as info:
        toolwire.Conversation.from_json(text.replace('"Infinity"', "Infinity"))
    assert str(info.value) == (
        "not a saved toolwire Conversation: ValueError: at messages[1].parts[1].arguments.a: a number JSON cannot "
        'hold (Infinity); replace it with a finite number, or with text such as "Infinity"'
    )


def test_an_infinite_tool_timeout_survives_strict_json() -> None:
    # Limits.to_dict keeps math.inf, which json.dumps writes as the bare word Infinity; written
    # as strict JSON it is the text "Infinity", which Limits.from_dict refused ("must be a number
    # of seconds > 0 or None, got str 'Infinity'")
    limits = toolwire.Limits(tool_timeout=math.inf, max_tool_calls=5)
    text = json.dumps(toolwire.types.finite_json(limits.to_dict()), allow_nan=False)
    assert _strict_loads(text)["tool_timeout"] == "Infinity"
    assert toolwire.Limits.from_dict(json.loads(text)) == limits
    with pytest.raises(
        ConfigurationError, match=r"tool_timeout must be a number of seconds > 0 or None, got str 'inf'"
    ):
        toolwire.Limits.from_dict({"tool_timeout": "inf"})


@pytest.mark.parametrize("where", ["id", "turn"])
def test_a_pending_call_without_its_place_in_the_conversation_says_what_to_do(where: str) -> None:
    ran: list[Any] = []
    d = _paused(ran, two_turns=True)
    if where == "id":
        d["pending"][0]["call"]["id"] = "c9"
    else:
        d["pending"][0]["turn"] = 1
    cid = d["pending"][0]["call"]["id"]
    with pytest.raises(ConfigurationError) as info:
        _resume(d, ran, {cid: Approved()})
    assert str(info.value) == (
        f"cannot resume: pending tool call {cid} is not answered by a placeholder in the last message of the saved "
        "conversation (was the state edited?); a pending call is a call of the last turn, which the conversation's "
        "last message answers with its placeholder: remove the entry, or put back its call, turn number and "
        "placeholder"
    )
    assert ran == []
