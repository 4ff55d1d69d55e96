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

import pytest
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


# -- a call in one part that carries its pieces, and such calls in an imported request -----------------


def test_a_named_call_carrying_its_pieces_in_one_part_runs_with_them(mock_model: Any) -> None:
    """``{"name", "partialArgs": [...]}`` without ``willContinue``: the call opens and ends in one
    part. Its pieces are its arguments (they were dropped: the call ran with ``{}``)."""
    pieces = [
        {"jsonPath": "$.city", "stringValue": "Oslo"},
        {"jsonPath": "$.days", "numberValue": 2},
    ]
    chunks = [_chunk([{"functionCall": {"name": "lookup", "partialArgs": pieces}}], "STOP")]
    result, body = _run(mock_model, chunks, [lookup])
    assert RAN == [("lookup", {"city": "Oslo", "days": 2, "exact": False})]
    assert [p["functionCall"]["args"] for p in _calls(body)] == [{"city": "Oslo", "days": 2}]


def test_a_whole_body_holding_a_call_in_pieces_runs_it_once_with_them(mock_model: Any) -> None:
    """The same parts in a non-streamed answer (one body): one call, assembled."""
    from gemini_wire_helpers import json_response

    RAN.clear()
    parts = [
        _open("lookup"),
        _piece("$.city", stringValue="Ber"),
        _piece("$.city", cont=False, stringValue="gen"),
        {"functionCall": {"name": "lookup", "partialArgs": [{"jsonPath": "$.city", "stringValue": "Rome"}]}},
    ]
    model = mock_model([json_response(_chunk(parts, "STOP")), json_response(_chunk([{"text": "done"}], "STOP"))])
    toolwire.run_sync(model, "Go.", tools=[lookup])
    assert sorted(RAN, key=repr) == [
        ("lookup", {"city": "Bergen", "days": 1, "exact": False}),
        ("lookup", {"city": "Rome", "days": 1, "exact": False}),
    ]
    assert [p["functionCall"]["args"] for p in _calls(model.sent[1].json)] == [{"city": "Bergen"}, {"city": "Rome"}]


def _imported(model_parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": model_parts},
            {"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {"output": "sunny"}}}]},
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "lookup",
                        "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
                    }
                ]
            }
        ],
    }


@pytest.mark.parametrize(
    "model_parts",
    [
        [
            {"functionCall": {"name": "lookup", "willContinue": True}, "thoughtSignature": "c2lnMQ=="},
            {
                "functionCall": {
                    "partialArgs": [{"jsonPath": "$.city", "stringValue": "Os", "willContinue": True}],
                    "willContinue": True,
                }
            },
            {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}]}},
        ],
        [
            {
                "functionCall": {"name": "lookup", "partialArgs": [{"jsonPath": "$.city", "stringValue": "Oslo"}]},
                "thoughtSignature": "c2lnMQ==",
            }
        ],
    ],
    ids=["pieces", "one-part"],
)
def test_an_imported_call_in_pieces_is_one_call_with_its_arguments(mock_model: Any, model_parts: Any) -> None:
    """A Gemini request body whose history holds a call in pieces (a client that stored the parts
    as they streamed): one call with the assembled arguments, sent back whole. Before, it was
    a call without arguments and a nameless call sent as ``invalid_tool_name``, answered with a
    made-up error."""
    import asyncio

    from gemini_wire_helpers import json_response
    from toolwire_gemini import GeminiCodec

    req = GeminiCodec().decode_request(_imported(model_parts))
    calls = [c for m in req.messages for c in m.tool_calls]
    assert [(c.name, c.arguments, c.invalid) for c in calls] == [("lookup", {"city": "Oslo"}, None)]
    model = mock_model([json_response(_chunk([{"text": "ok"}], "STOP"))])
    asyncio.run(model.send(req))
    sent = model.sent[0].json
    assert _calls(sent) == [
        {"functionCall": {"name": "lookup", "args": {"city": "Oslo"}}, "thoughtSignature": "c2lnMQ=="}
    ]
    assert [a["response"] for a in _answers(sent)] == [{"output": "sunny"}]


def test_an_imported_call_whose_pieces_cannot_be_read_is_a_decode_error() -> None:
    from toolwire_gemini import GeminiCodec

    from toolwire.errors import ResponseDecodeError

    parts = [
        {"functionCall": {"name": "lookup", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "city", "stringValue": "Oslo"}]}},
    ]
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(_imported(parts))
    assert info.value.pointer == "/contents/1/parts/1/functionCall/partialArgs/0"
    assert "jsonPath" in str(info.value)


def test_a_member_name_of_other_letters_is_a_path_toolwire_reads(mock_model: Any) -> None:
    """RFC 9535 member-name shorthand: name-first is ALPHA / "_" / %x80-D7FF / %xE000-10FFFF
    (``$.città``, ``$.名前``); such a path was refused and the call never ran."""
    chunks = [
        _chunk([_open("save_items")]),
        _chunk([_piece("$.operations[0].città", cont=False, stringValue="Roma")]),
        _chunk([_piece("$.operations[0].名前", more=False, cont=False, stringValue="x")], "STOP"),
    ]
    _, body = _run(mock_model, chunks, [save_items])
    assert RAN == [("save_items", {"operations": [{"città": "Roma", "名前": "x"}], "note": ""})]
    assert [p["functionCall"]["args"] for p in _calls(body)] == [{"operations": [{"città": "Roma", "名前": "x"}]}]


@pytest.mark.parametrize("last_says_more", [True, False], ids=["string-open", "call-open"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
def test_an_answer_that_ends_while_a_call_awaits_its_next_piece_does_not_run_it(
    mock_model: Any, last_says_more: bool, stream: bool
) -> None:
    """``willContinue: true`` says "another partial message for the current FunctionCall is
    expected to follow" (google.genai.types.FunctionCall.will_continue). An answer that ends
    there (with a finishReason: the server dropped the rest) has the call's arguments cut short
    (``"Os"`` for ``"Oslo"``): it is answered, not run with them."""
    from gemini_wire_helpers import json_response

    RAN.clear()
    parts = [_open("lookup"), _piece("$.city", cont=last_says_more, stringValue="Os")]
    first = sse_response([_chunk(parts, "STOP")]) if stream else json_response(_chunk(parts, "STOP"))
    done = (
        sse_response([_chunk([{"text": "done"}], "STOP")])
        if stream
        else json_response(_chunk([{"text": "done"}], "STOP"))
    )
    model = mock_model([first, done], stream=stream)
    result = toolwire.run_sync(model, "Go.", tools=[lookup])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert call.invalid is not None and "willContinue" in call.invalid
    (answer,) = _answers(model.sent[1].json)
    assert "willContinue" in answer["response"]["error"]


def test_a_path_deeper_than_arguments_may_nest_is_refused_when_imported_too() -> None:
    """A short body whose piece names a path 200000 levels deep built arguments that deep: the
    import then crashed with RecursionError when the request was encoded. The path is refused
    as deeper than any arguments may nest (MAX_ARGUMENT_DEPTH), streamed or imported."""
    from toolwire_gemini import GeminiCodec

    from toolwire.arguments import MAX_ARGUMENT_DEPTH
    from toolwire.errors import ResponseDecodeError

    deep = "$.data" + ".a" * 200_000
    parts = [{"functionCall": {"name": "lookup", "partialArgs": [{"jsonPath": deep, "stringValue": "x"}]}}]
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(_imported(parts))
    assert info.value.pointer == "/contents/1/parts/0/functionCall/partialArgs/0"
    assert f"deeper than {MAX_ARGUMENT_DEPTH}" in str(info.value)


def test_a_streamed_path_deeper_than_arguments_may_nest_is_answered(mock_model: Any) -> None:
    chunks = [
        _chunk([_open("save_items")]),
        _chunk([_piece("$.note" + "[0]" * 100, more=False, cont=False, stringValue="x")], "STOP"),
    ]
    result, _ = _run(mock_model, chunks, [save_items])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert call.invalid is not None and "jsonPath 101 levels deep" in call.invalid


# -- willContinue flags that are not JSON booleans, fields of the wrong type, one path spelt two ways --


def _flagged(flag: Any) -> list[dict[str, Any]]:
    """A call in pieces whose every ``willContinue`` (FunctionCall's and PartialArg's) is ``flag``."""
    return [
        {"functionCall": {"name": "lookup", "willContinue": flag}},
        {
            "functionCall": {
                "partialArgs": [{"jsonPath": "$.city", "stringValue": "Os", "willContinue": flag}],
                "willContinue": flag,
            }
        },
        {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}], "willContinue": flag}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.days", "numberValue": 2}], "willContinue": flag}},
        END,
    ]


#: what google-genai's pydantic models read as true for ``FunctionCall.will_continue`` /
#: ``PartialArg.will_continue`` (``Optional[bool]``, lax mode: ``model_validate`` of the response)
SDK_TRUE = [True, "true", "True", "yes", "1", 1, 1.0]
#: what they refuse (a ValidationError): no reading of them is safe
SDK_REFUSED = ["maybe", 2, 0.5, [], {}, " true"]


@pytest.mark.parametrize("flag", SDK_TRUE, ids=repr)
def test_a_will_continue_the_sdk_reads_as_true_keeps_the_pieces_together(mock_model: Any, flag: Any) -> None:
    """``"willContinue": "true"`` was read as "not continuing": the call ended at its first part
    (run with no arguments) and every later piece was a nameless call of its own."""
    from google.genai import types

    assert types.FunctionCall.model_validate({"willContinue": flag}).will_continue is True
    chunks = [_chunk([p]) for p in _flagged(flag)[:-1]] + [_chunk([END], "STOP")]
    result, body = _run(mock_model, chunks, [lookup])
    assert RAN == [("lookup", {"city": "Oslo", "days": 2, "exact": False})]
    assert [c.invalid for c in result.turns[0].response.tool_calls] == [None]
    assert [p["functionCall"]["args"] for p in _calls(body)] == [{"city": "Oslo", "days": 2}]


@pytest.mark.parametrize("flag", SDK_REFUSED, ids=repr)
def test_a_will_continue_the_sdk_refuses_answers_the_call(mock_model: Any, flag: Any) -> None:
    from google.genai import types
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        types.FunctionCall.model_validate({"willContinue": flag})
    chunks = [_chunk([p]) for p in _flagged(flag)[:-1]] + [_chunk([END], "STOP")]
    result, body = _run(mock_model, chunks, [lookup])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls  # one call: no piece became a call of its own
    assert call.name == "lookup"
    assert call.invalid is not None and "willContinue" in call.invalid and "not a boolean" in call.invalid
    (answer,) = _answers(body)
    assert "willContinue" in answer["response"]["error"]


@pytest.mark.parametrize("flag", SDK_TRUE[1:], ids=repr)
def test_an_imported_will_continue_the_sdk_reads_as_true_keeps_the_pieces_together(flag: Any) -> None:
    from toolwire_gemini import GeminiCodec

    req = GeminiCodec().decode_request(_imported(_flagged(flag)))
    calls = [c for m in req.messages for c in m.tool_calls]
    assert [(c.name, c.arguments, c.invalid) for c in calls] == [("lookup", {"city": "Oslo", "days": 2}, None)]


@pytest.mark.parametrize("flag", SDK_REFUSED, ids=repr)
def test_an_imported_will_continue_the_sdk_refuses_is_a_decode_error(flag: Any) -> None:
    from toolwire_gemini import GeminiCodec

    from toolwire.errors import ResponseDecodeError

    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(_imported(_flagged(flag)))
    assert info.value.pointer == "/contents/1/parts/0/functionCall/willContinue"
    assert "not a boolean" in str(info.value)


#: a PartialArg field of the wrong JSON type → (the piece, the words the answer must hold)
WRONG_FIELDS = {
    "jsonPath-number": ({"jsonPath": 5, "stringValue": "Oslo"}, "jsonPath that is a JSON number, not a string"),
    "jsonPath-missing": ({"stringValue": "Oslo"}, "no jsonPath"),
    "stringValue-number": ({"jsonPath": "$.city", "stringValue": 5}, "stringValue that is a JSON number"),
    "numberValue-string": ({"jsonPath": "$.days", "numberValue": "3"}, "numberValue that is a JSON string"),
    "numberValue-bool": ({"jsonPath": "$.days", "numberValue": True}, "numberValue that is a JSON boolean"),
    "boolValue-string": ({"jsonPath": "$.exact", "boolValue": "true"}, "boolValue that is a JSON string"),
    "nullValue-number": ({"jsonPath": "$.city", "nullValue": 5}, "nullValue that is a JSON number"),
    "willContinue-object": (
        {"jsonPath": "$.city", "stringValue": "Os", "willContinue": {}},
        "willContinue that is a JSON object ({}), not a boolean",
    ),
    "piece-string": ("$.city", "is a JSON string, not an object"),
}


@pytest.mark.parametrize("piece,words", WRONG_FIELDS.values(), ids=WRONG_FIELDS.keys())
def test_a_piece_field_of_the_wrong_type_answers_the_call(mock_model: Any, piece: Any, words: str) -> None:
    chunks = [
        _chunk([_open("lookup")]),
        _chunk([{"functionCall": {"partialArgs": [piece], "willContinue": True}}]),
        _chunk([_piece("$.city", more=False, cont=False, stringValue="lo")], "STOP"),
    ]
    result, body = _run(mock_model, chunks, [lookup])
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert call.invalid is not None and words in call.invalid
    (answer,) = _answers(body)
    assert words in answer["response"]["error"]


@pytest.mark.parametrize("piece,words", WRONG_FIELDS.values(), ids=WRONG_FIELDS.keys())
def test_an_imported_piece_field_of_the_wrong_type_is_a_decode_error(piece: Any, words: str) -> None:
    from toolwire_gemini import GeminiCodec

    from toolwire.errors import ResponseDecodeError

    parts = [
        {"functionCall": {"name": "lookup", "willContinue": True}},
        {"functionCall": {"partialArgs": [piece]}},
    ]
    with pytest.raises(ResponseDecodeError) as info:
        GeminiCodec().decode_request(_imported(parts))
    assert info.value.pointer == "/contents/1/parts/1/functionCall/partialArgs/0"
    assert words in str(info.value)


#: ``$.city`` in the spellings RFC 9535 gives one member name: dot shorthand, single and double
#: quoted bracket selectors (section 2.5.1.1, name-selector)
SPELLINGS = [("$.city", "$['city']", '$["city"]'), ("$['city']", '$["city"]', "$.city")]


@pytest.mark.parametrize("spellings", SPELLINGS, ids=["dot-first", "bracket-first"])
def test_a_string_continued_under_another_spelling_of_its_path_is_joined(mock_model: Any, spellings: Any) -> None:
    """The pieces of ``"San Francisco"`` under ``$.city``, ``$['city']`` and ``$["city"]`` (one
    member): the later spelling overwrote the string ("cisco")."""
    a, b, c = spellings
    chunks = [
        _chunk([_open("lookup")]),
        _chunk([_piece(a, stringValue="San ")]),
        _chunk([_piece(b, stringValue="Fran")]),
        _chunk([_piece(c, more=False, cont=False, stringValue="cisco")], "STOP"),
    ]
    _, body = _run(mock_model, chunks, [lookup])
    assert RAN == [("lookup", {"city": "San Francisco", "days": 1, "exact": False})]
    assert [p["functionCall"]["args"] for p in _calls(body)] == [{"city": "San Francisco"}]


@pytest.mark.parametrize("spellings", SPELLINGS, ids=["dot-first", "bracket-first"])
def test_an_imported_string_continued_under_another_spelling_is_joined(spellings: Any) -> None:
    from toolwire_gemini import GeminiCodec

    a, b, c = spellings
    parts = [
        {"functionCall": {"name": "lookup", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": a, "stringValue": "San ", "willContinue": True}]}},
    ]
    parts[1]["functionCall"]["willContinue"] = True
    parts.append(
        {
            "functionCall": {
                "partialArgs": [
                    {"jsonPath": b, "stringValue": "Fran", "willContinue": True},
                    {"jsonPath": c, "stringValue": "cisco"},
                ]
            }
        }
    )
    req = GeminiCodec().decode_request(_imported(parts))
    calls = [c for m in req.messages for c in m.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [("lookup", {"city": "San Francisco"})]
