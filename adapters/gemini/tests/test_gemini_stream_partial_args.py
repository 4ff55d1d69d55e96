"""Function calls whose arguments are streamed in pieces (``FunctionCall.partial_args``).

With ``streamFunctionCallArguments`` (Vertex AI; google.genai.types.FunctionCallingConfig) a
call arrives over many parts: ``{"name": ..., "willContinue": true}`` opens it, parts with
``partialArgs`` (``PartialArg``: a ``jsonPath`` and one of ``stringValue`` / ``numberValue`` /
``boolValue`` / ``nullValue``; a string whose piece says ``willContinue`` goes on in the next
piece) carry the arguments, and a part whose ``willContinue`` is not true ends it. Before, each
piece was read as a call of its own: the named call ran with no arguments and every nameless
piece was answered "no valid tool name".

The real ``google-genai`` SDK reads each stream; only the network is replaced.
"""

from __future__ import annotations

from typing import Any

from gemini_wire_helpers import candidate_body, sse_response

import toolwire

RAN: list[tuple[str, dict[str, Any]]] = []


def save_items(operations: list[dict[str, Any]], note: str = "") -> str:
    """Save items."""
    RAN.append(("save_items", {"operations": operations, "note": note}))
    return "saved"


def lookup(city: str, days: int = 1, exact: bool = False) -> str:
    """Look up the weather."""
    RAN.append(("lookup", {"city": city, "days": days, "exact": exact}))
    return f"sunny in {city}"


def _chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    return candidate_body(parts, finish=finish)


def _open(name: str, **extra: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "willContinue": True}, **extra}


def _piece(path: str, more: bool = True, cont: bool = True, **value: Any) -> dict[str, Any]:
    arg: dict[str, Any] = {"jsonPath": path, **value}
    if cont:
        arg["willContinue"] = True
    fc: dict[str, Any] = {"partialArgs": [arg]}
    if more:
        fc["willContinue"] = True
    return {"functionCall": fc}


END = {"functionCall": {}}


def _run(mock_model: Any, chunks: list[dict[str, Any]], tools: list[Any]) -> tuple[Any, dict[str, Any]]:
    RAN.clear()
    done = sse_response([_chunk([{"text": "done"}], "STOP")])
    model = mock_model([sse_response(chunks), done], stream=True)
    result = toolwire.run_sync(model, "Go.", tools=tools)
    return result, model.sent[1].json


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for c in body["contents"] for p in c["parts"] if "functionCall" in p]


def _answers(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for c in body["contents"] for p in c["parts"] if "functionResponse" in p]


def test_string_pieces_are_joined_and_the_call_runs_once_with_them(mock_model: Any) -> None:
    chunks = [
        _chunk([_open("lookup", thoughtSignature="c2lnMQ==")]),
        _chunk([_piece("$.city", stringValue="San ")]),
        _chunk([_piece("$.city", stringValue="Fran")]),
        _chunk([_piece("$.city", cont=False, stringValue="cisco")]),
        _chunk([_piece("$.days", cont=False, numberValue=3)]),
        _chunk([_piece("$.exact", cont=False, boolValue=True)]),
        _chunk([END]),
        _chunk([_open("lookup")]),
        _chunk([_piece("$.city", stringValue="Rome")]),
        _chunk([_piece("$.city", cont=False, stringValue="")]),
        _chunk([END], "STOP"),
    ]
    result, body = _run(mock_model, chunks, [lookup])
    # (the two calls run in parallel: either may finish first)
    assert sorted(RAN, key=repr) == [
        ("lookup", {"city": "Rome", "days": 1, "exact": False}),
        ("lookup", {"city": "San Francisco", "days": 3, "exact": True}),
    ]
    calls = result.turns[0].response.tool_calls
    assert [c.invalid for c in calls] == [None, None]
    # the next request sends each call whole, the first with its thought signature
    sent = _calls(body)
    assert [p["functionCall"]["args"] for p in sent] == [
        {"city": "San Francisco", "days": 3, "exact": True},
        {"city": "Rome"},
    ]
    assert sent[0]["thoughtSignature"] == "c2lnMQ==" and "thoughtSignature" not in sent[1]
    assert all("partialArgs" not in p["functionCall"] and "willContinue" not in p["functionCall"] for p in sent)
    assert [a["response"] for a in _answers(body)] == [
        {"output": "sunny in San Francisco"},
        {"output": "sunny in Rome"},
    ]


def test_nested_paths_build_objects_and_arrays_and_a_last_piece_ends_the_call(mock_model: Any) -> None:
    """The call ends with a partialArgs piece that does not say willContinue (no empty part)."""
    chunks = [
        _chunk([_open("save_items")]),
        _chunk([_piece("$.operations[0].action", stringValue="add")]),
        _chunk([_piece("$.operations[0].action", cont=False, stringValue="")]),
        _chunk([_piece("$.operations[0].price", cont=False, numberValue=0.5)]),
        _chunk([{"functionCall": {"willContinue": True}}]),
        _chunk([_piece("$.operations[1]['item id']", cont=False, stringValue="b-1")]),
        _chunk([_piece("$.operations[1].gone", cont=False, nullValue="NULL_VALUE")]),
        _chunk([_piece("$.note", more=False, cont=False, stringValue="ok")]),
        _chunk([{"text": ""}], "STOP"),
    ]
    result, body = _run(mock_model, chunks, [save_items])
    expected = {"operations": [{"action": "add", "price": 0.5}, {"item id": "b-1", "gone": None}], "note": "ok"}
    assert RAN == [("save_items", expected)]
    assert [p["functionCall"]["args"] for p in _calls(body)] == [expected]
    assert len(result.turns[0].response.tool_calls) == 1


def test_a_call_in_pieces_then_text_then_a_whole_call(mock_model: Any) -> None:
    """A part that is not a piece closes the call in pieces; a whole call after it is its own."""
    chunks = [
        _chunk([_open("lookup")]),
        _chunk([_piece("$.city", cont=False, stringValue="Oslo")]),
        _chunk([{"text": "Checking."}]),
        _chunk([{"functionCall": {"name": "lookup", "args": {"city": "Oslo"}}}], "STOP"),
    ]
    result, body = _run(mock_model, chunks, [lookup])
    # two calls: the one in pieces and the whole one (each its own call; neither is a repeat)
    assert [name for name, _ in RAN] == ["lookup", "lookup"]
    assert all(args["city"] == "Oslo" for _, args in RAN)
    assert result.turns[0].response.text == "Checking."
    assert len(_answers(body)) == 2


def test_an_unreadable_path_leaves_the_call_answered_not_run(mock_model: Any) -> None:
    chunks = [
        _chunk([_open("lookup")]),
        _chunk([_piece("city", cont=False, stringValue="Oslo")]),
        _chunk([END], "STOP"),
    ]
    result, body = _run(mock_model, chunks, [lookup])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert call.invalid is not None and "jsonPath" in call.invalid and "'city'" in call.invalid
    (answer,) = _answers(body)
    assert "could not be assembled" in answer["response"]["error"]


def test_a_path_through_a_string_is_a_conflict_not_a_crash(mock_model: Any) -> None:
    chunks = [
        _chunk([_open("lookup")]),
        _chunk([_piece("$.city", cont=False, stringValue="Oslo")]),
        _chunk([_piece("$.city.name", cont=False, stringValue="x")]),
        _chunk([{"functionCall": {"partialArgs": "nope"}}], "STOP"),
    ]
    result, _ = _run(mock_model, chunks, [lookup])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert call.invalid is not None and "not an object" in call.invalid


def test_a_stream_cut_off_inside_a_call_in_pieces_does_not_run_it(mock_model: Any) -> None:
    RAN.clear()
    chunks = [_chunk([_open("lookup")]), _chunk([_piece("$.city", stringValue="Os")])]
    model = mock_model([sse_response(chunks)] * 4, stream=True)
    try:
        toolwire.run_sync(model, "Go.", tools=[lookup])
    except toolwire.ToolwireError:
        pass
    assert RAN == []
