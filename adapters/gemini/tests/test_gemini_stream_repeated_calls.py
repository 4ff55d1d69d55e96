"""A Gemini stream whose later chunk repeats a ``functionCall`` an earlier chunk delivered.

On the Gemini API a call arrives whole inside one chunk and each chunk's parts are new
increments; parallel calls come in one chunk or each in its own chunk. A call without an ``id``
that a later chunk sends again with the same name and arguments is either a repeat (a degenerate
generation streaming "the same complete function call once per chunk", kcaldas/genie#12; a proxy
re-sending a chunk) or a second call the model meant. A stream cannot tell them apart, so the
repeat is not run (running a call twice may do its side effect twice) but it is answered: the
model is told it repeated the earlier call, which was run, and to call again if it meant a
second run. Calls in one chunk, calls with ids, and calls with other arguments all run.

The real ``google-genai`` SDK sends and reads every request; only the network is replaced.
"""

from __future__ import annotations

from typing import Any

from gemini_wire_helpers import candidate_body, sse_response

import toolwire

RAN: list[str] = []


def roll(color: str) -> str:
    """Roll a die of this color."""
    RAN.append(color)
    return f"rolled {color}"


def _chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    return candidate_body(parts, finish=finish)


def _call(color: str, call_id: str | None = None) -> dict[str, Any]:
    fc: dict[str, Any] = {"name": "roll", "args": {"color": color}}
    if call_id is not None:
        fc["id"] = call_id
    return {"functionCall": fc}


def _run(mock_model: Any, chunks: list[dict[str, Any]]) -> tuple[Any, Any]:
    RAN.clear()
    done = sse_response([_chunk([{"text": "done"}], "STOP")])
    model = mock_model([sse_response(chunks), done], stream=True)
    result = toolwire.run_sync(model, "Roll.", tools=[roll])
    return result, model.sent[1].json


def _answers(body: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (p["functionResponse"]["name"], p["functionResponse"]["response"])
        for c in body["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionCall"] for c in body["contents"] for p in c["parts"] if "functionCall" in p]


def test_a_call_repeated_in_a_later_chunk_runs_once_and_the_repeat_is_answered(mock_model: Any) -> None:
    result, body = _run(mock_model, [_chunk([_call("red")]), _chunk([_call("red")], "STOP")])
    assert RAN == ["red"]
    first, repeat = result.turns[0].response.tool_calls
    assert first.invalid is None and first.arguments == {"color": "red"}
    assert repeat.invalid is not None and first.id in repeat.invalid
    # the history keeps both calls, each answered (Gemini pairs responses with calls by order)
    assert [c["args"] for c in _calls(body)] == [{"color": "red"}, {"color": "red"}]
    answers = _answers(body)
    assert answers[0] == ("roll", {"output": "rolled red"})
    assert answers[1][0] == "roll" and "was not run" in answers[1][1]["error"]
    assert "Make a new tool call" in answers[1][1]["error"]


def test_many_repeats_of_one_call_run_it_once(mock_model: Any) -> None:
    """A degenerate generation that streams the same call in every chunk."""
    chunks = [_chunk([_call("red")]) for _ in range(5)] + [_chunk([], "STOP")]
    result, body = _run(mock_model, chunks)
    assert RAN == ["red"]
    assert [c.invalid is None for c in result.turns[0].response.tool_calls] == [True] + [False] * 4


def test_identical_calls_in_one_chunk_are_distinct_parallel_calls(mock_model: Any) -> None:
    _, body = _run(mock_model, [_chunk([_call("red"), _call("red")], "STOP")])
    assert RAN == ["red", "red"]
    assert _answers(body) == [("roll", {"output": "rolled red"})] * 2


def test_calls_with_other_arguments_in_later_chunks_all_run(mock_model: Any) -> None:
    _run(mock_model, [_chunk([_call("red")]), _chunk([_call("blue")]), _chunk([_call("green")], "STOP")])
    assert sorted(RAN) == ["blue", "green", "red"]  # (parallel threads: any order)


def test_calls_with_their_own_ids_in_later_chunks_all_run(mock_model: Any) -> None:
    """The ids the vendor gave tell the calls apart: two calls, both run."""
    _, body = _run(mock_model, [_chunk([_call("red", "c1")]), _chunk([_call("red", "c2")], "STOP")])
    assert RAN == ["red", "red"]
    assert [c["id"] for c in _calls(body)] == ["c1", "c2"]
