"""Responses items beyond plain function calls: their round trip into the next request, streamed
and not, through the real ``openai`` SDK with only the network replaced."""

from __future__ import annotations

from typing import Any

import pytest
from openai_wire import json_response, response_body, responses_sse

from toolwire.adapter import ModelRequest
from toolwire.tools import Tool
from toolwire.types import Message, ToolResult

_LOOKUP = Tool(
    "db_lookup",
    "Look up a value by key.",
    {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    function=lambda key: f"value of {key}",
)
_DONE = response_body(
    [
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }
    ],
    rid="resp_2",
)

#: An output item the application answers, and the type of the input item that answers it
#: (openai.types.responses.ResponseInputItemParam).
_ANSWERED = [
    (
        {
            "type": "custom_tool_call",
            "id": "ctc_1",
            "call_id": "call_sql1",
            "name": "execute_sql",
            "input": "SELECT 1;",
            "status": "completed",
        },
        "custom_tool_call_output",
    ),
    (
        {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "deepwiki", "name": "ask", "arguments": "{}"},
        "mcp_approval_response",
    ),
    (
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "call_cu1",
            "status": "completed",
            "action": {"type": "click", "x": 1, "y": 2, "button": "left"},
            "pending_safety_checks": [],
        },
        "computer_call_output",
    ),
    (
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "call_sh1",
            "status": "completed",
            "action": {"commands": ["ls"]},
        },
        "shell_call_output",
    ),
    (
        {
            "type": "apply_patch_call",
            "id": "apc_1",
            "call_id": "call_ap1",
            "status": "completed",
            "operation": {"type": "create_file", "path": "a.txt", "diff": "+a\n"},
        },
        "apply_patch_call_output",
    ),
]


@pytest.mark.parametrize("continuation", ["previous_response_id", "conversation"])
@pytest.mark.parametrize("item,answer", _ANSWERED, ids=[a for _, a in _ANSWERED])
def test_answers_to_non_function_calls_keep_their_type_when_the_server_holds_the_call(
    item: dict[str, Any], answer: str, continuation: str
) -> None:
    """With previous_response_id (or a server conversation) only the items after the response go
    out; the answer to a custom / MCP approval / computer / shell / apply_patch call must still be
    of that call's output type, not a function_call_output (API: "No tool output found for custom
    tool call call_...")."""
    from toolwire_openai import OpenAIResponsesCodec

    codec = OpenAIResponsesCodec()
    body = response_body([item], rid="resp_1") | {"conversation": {"id": "conv_1"}}
    resp = codec.decode_response(body)
    (call,) = resp.tool_calls
    history = [Message.user("q"), resp.to_message(), Message("user", [ToolResult(call.id, "ok")])]
    settings = {"previous_response_id": "resp_1"} if continuation != "conversation" else {"conversation": "conv_1"}
    stateless = codec.encode_request(ModelRequest("gpt-5", history))["input"]
    sent = codec.encode_request(ModelRequest("gpt-5", history, settings=settings))["input"]
    assert [i.get("type") for i in sent if i.get("role") is None] == [answer]
    # the same answer as the stateless request sends after the call
    assert sent == stateless[2:]


def test_custom_call_answered_with_previous_response_id_through_the_sdk(responses_model: Any) -> None:
    import toolwire

    custom = _ANSWERED[0][0]
    answers = iter([json_response(response_body([custom], rid="resp_1")), json_response(_DONE)])
    model = responses_model(lambda r: next(answers), model_id="gpt-5", continuation="previous_response_id")
    result = toolwire.run_sync(model, "q", tools=[_LOOKUP])
    assert result.text == "done"
    second = model.sent[1].json
    assert second["previous_response_id"] == "resp_1"
    (out,) = second["input"]
    assert out["type"] == "custom_tool_call_output" and out["call_id"] == "call_sql1"


def _turn_events(output: list[dict[str, Any]], rid: str = "resp_1") -> list[dict[str, Any]]:
    final = response_body(output, rid=rid)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "status": "in_progress", "output": []}}
    ]
    for i, item in enumerate(output):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": final})
    return events


#: A server-side compaction item (ResponseCompactionItem; context_management compact_threshold)
#: and an item of a type this SDK does not know, each before the turn's call.
_KEPT = [
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAcompacted", "created_by": "server"},
    {"type": "future_tool_call", "id": "ftc_1", "status": "completed", "detail": {"x": 1}},
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kept", _KEPT, ids=[k["type"] for k in _KEPT])
def test_compaction_and_unknown_items_go_back_in_the_next_request(
    responses_model: Any, kept: dict[str, Any], stream: bool
) -> None:
    """Every output item goes back in a stateless continuation ("For stateless input-array
    chaining, append output items as usual ... the compaction item carries context needed for the
    next window", OpenAI compaction guide), an item of a type toolwire does not know included."""
    import toolwire

    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "db_lookup",
        "arguments": '{"key":"a"}',
        "status": "completed",
    }
    turn = [kept, call]
    first = responses_sse(_turn_events(turn)) if stream else json_response(response_body(turn, rid="resp_1"))
    answers = iter([first, json_response(_DONE)])
    model = responses_model(lambda r: next(answers), model_id="gpt-5", stream=stream)
    result = toolwire.run_sync(model, "q", tools=[_LOOKUP])
    assert result.text == "done"
    sent = model.sent[1].json["input"]
    assert sent[1] == kept
    assert sent[2] == call
    assert sent[3] == {"type": "function_call_output", "call_id": "call_1", "output": "value of a"}


_CREATED = {
    "type": "response.created",
    "sequence_number": 0,
    "response": {"id": "resp_e", "object": "response", "status": "in_progress", "model": "gpt-5", "output": []},
}


@pytest.mark.parametrize(
    "event,message,code,retryable",
    [
        (  # the shape the API sends (openai/openai-dotnet#881; openai-python _streaming reads data["error"])
            {
                "type": "error",
                "sequence_number": 1,
                "error": {
                    "type": "too_many_requests",
                    "code": "rate_limit_exceeded",
                    "message": "Too Many Requests",
                    "param": None,
                },
            },
            "Too Many Requests",
            "rate_limit_exceeded",
            True,
        ),
        (
            {
                "type": "error",
                "sequence_number": 1,
                "error": {"type": "server_error", "code": "server_error", "message": "The server had an error."},
            },
            "The server had an error.",
            "server_error",
            True,
        ),
        (
            {
                "type": "error",
                "sequence_number": 1,
                "error": {"type": "invalid_request_error", "code": "context_length_exceeded", "message": "Too long."},
            },
            "Too long.",
            "context_length_exceeded",
            False,
        ),
        (  # the flat shape of openai.types.responses.ResponseErrorEvent
            {"type": "error", "sequence_number": 1, "code": "server_error", "message": "boom", "param": None},
            "boom",
            "server_error",
            True,
        ),
    ],
    ids=["nested-rate-limit", "nested-server-error", "nested-context-length", "flat"],
)
def test_stream_error_event_message_code_and_retry(
    responses_model: Any, event: dict[str, Any], message: str, code: str, retryable: bool
) -> None:
    import asyncio

    from toolwire.errors import ProviderError

    model = responses_model(lambda r: responses_sse([_CREATED, event]), model_id="gpt-5", stream=True)
    with pytest.raises(ProviderError) as info:
        asyncio.run(model.send(model.build_request([Message.user("q")])))
    err = info.value
    assert message in str(err) and "sequence_number" not in str(err)
    assert (err.error_type, err.retryable, err.status) == (code, retryable, None)


def test_a_compaction_item_of_another_endpoint_is_left_out_wherever_it_stands() -> None:
    """A turn from api.openai.com continued on an Azure endpoint: its reasoning is left out (the
    other endpoint cannot decrypt it), and so is its compaction item, although it comes before the
    reasoning in the turn; on the endpoint that issued them both go back."""
    from toolwire_openai import OpenAIResponsesCodec

    from toolwire.adapter import ModelRequest
    from toolwire.types import Message

    issued = OpenAIResponsesCodec(origin="https://api.openai.com/v1")
    other = OpenAIResponsesCodec(origin="https://my.azure.example/openai/v1")
    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {"type": "compaction", "id": "cmp_1", "encrypted_content": "ENC-A"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "RS-A"},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "hi", "annotations": []}],
            },
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
    }
    msgs = [Message.user("a"), issued.decode_response(body).to_message(), Message.user("b")]
    request = ModelRequest(model="gpt-5", messages=msgs)
    kinds = [i.get("type", i.get("role")) for i in other.encode_request(request)["input"]]
    assert kinds == ["user", "message", "user"]
    assert "ENC-A" not in str(other.encode_request(request))
    left = other.left_out_parts(request, msgs, 0)
    assert [(c[1], c[0]) for c in left] == [
        ("/messages/1/parts/0", "openai.conversation.reasoning-left-out"),
        ("/messages/1/parts/1", "openai.conversation.reasoning-left-out"),
    ]
    kinds = [i.get("type", i.get("role")) for i in issued.encode_request(request)["input"]]
    assert kinds == ["user", "compaction", "reasoning", "message", "user"]
