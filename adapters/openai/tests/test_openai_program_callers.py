"""Responses programmatic tool calling: a call a program made (``caller: {"type": "program",
"caller_id": ...}`` on a ``function_call``, ``custom_tool_call``, ``shell_call`` or
``apply_patch_call`` item) is answered by an output item carrying the same ``caller``
(``openai.types.responses.ResponseInputItemParam``: ``FunctionCallOutput.caller``,
``ShellCallOutput.caller``, ``ApplyPatchCallOutput.caller``; ``ResponseCustomToolCallOutputParam``
``.caller``), as the OpenAI Agents SDK answers them (``ItemHelpers.copy_tool_call_caller``), so
the output reaches the program that waits for it. Through the real ``openai`` SDK, only the
network replaced."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from openai_wire import json_response, response_body
from test_openai_responses_items import _ANSWERED, _DONE, _LOOKUP

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.types import Message, ToolResult

_PROGRAM = {"type": "program", "caller_id": "call_prog1"}
_PROGRAM_ITEM = {
    "type": "program",
    "id": "prog_1",
    "call_id": "call_prog1",
    "code": "const v = await tools.db_lookup({key: 'k'}); return v;",
    "fingerprint": "fp_1",
    "status": "in_progress",
}
#: (call item, the type of the output item answering it): a function call, and the calls of
#: other types whose answers carry a ``caller`` (from the items test's table)
_CALLS = [
    (
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_fn1",
            "name": "db_lookup",
            "arguments": '{"key": "k"}',
            "status": "completed",
        },
        "function_call_output",
    ),
    *(
        (item, answer)
        for item, answer in _ANSWERED
        if answer in ("custom_tool_call_output", "shell_call_output", "apply_patch_call_output")
    ),
]
assert len(_CALLS) == 4


def _outputs(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [i for i in items if i.get("type") == kind]


@pytest.mark.parametrize("caller", [_PROGRAM, {"type": "direct"}], ids=["program", "direct"])
@pytest.mark.parametrize("item,answer", _CALLS, ids=[a for _, a in _CALLS])
def test_the_output_carries_the_caller_of_its_call(item: dict[str, Any], answer: str, caller: dict[str, Any]) -> None:
    from toolwire_openai import OpenAIResponsesCodec

    codec = OpenAIResponsesCodec()
    call_item = {**item, "caller": copy.deepcopy(caller)}
    resp = codec.decode_response(response_body([_PROGRAM_ITEM, call_item], rid="resp_1"))
    (call,) = resp.tool_calls
    history = [Message.user("q"), resp.to_message(), Message("user", [ToolResult(call.id, "ok")])]
    for settings in ({}, {"previous_response_id": "resp_1"}):
        sent = codec.encode_request(ModelRequest("gpt-5", history, settings=settings))["input"]
        (out,) = _outputs(sent, answer)
        assert out["caller"] == caller
        assert out["call_id"] == item["call_id"]
    # the call and the program item go back as they came (stateless continuation)
    sent = codec.encode_request(ModelRequest("gpt-5", history))["input"]
    assert _outputs(sent, "program") == [_PROGRAM_ITEM]
    (back,) = _outputs(sent, item["type"])
    assert back["caller"] == caller


@pytest.mark.parametrize("item,answer", _CALLS, ids=[a for _, a in _CALLS])
def test_a_call_without_caller_is_answered_without_one(item: dict[str, Any], answer: str) -> None:
    from toolwire_openai import OpenAIResponsesCodec

    codec = OpenAIResponsesCodec()
    resp = codec.decode_response(response_body([item], rid="resp_1"))
    (call,) = resp.tool_calls
    history = [Message.user("q"), resp.to_message(), Message("user", [ToolResult(call.id, "ok")])]
    (out,) = _outputs(codec.encode_request(ModelRequest("gpt-5", history))["input"], answer)
    assert "caller" not in out


def test_a_program_call_is_answered_with_its_caller_through_the_sdk(responses_model: Any) -> None:
    call_item = {**_CALLS[0][0], "caller": _PROGRAM}
    answers = iter([json_response(response_body([_PROGRAM_ITEM, call_item], rid="resp_1")), json_response(_DONE)])
    model = responses_model(lambda r: next(answers), model_id="gpt-5")
    result = toolwire.run_sync(model, "q", tools=[_LOOKUP])
    assert result.text == "done"
    second = model.sent[1].json["input"]
    (out,) = _outputs(second, "function_call_output")
    assert out == {
        "type": "function_call_output",
        "call_id": "call_fn1",
        "output": "value of k",
        "caller": _PROGRAM,
    }
    # the call itself went back with its caller, after the program item
    kinds = [i.get("type") for i in second]
    assert kinds.index("program") < kinds.index("function_call") < kinds.index("function_call_output")
