"""A tool search the client runs (Responses ``tool_search`` tool, ``execution: "client"``): its
``tool_search_call`` is a call the client answers, with a ``tool_search_output`` or, as the API
took in a recorded request, a ``function_call_output``. Through the real ``openai`` SDK with only
the network replaced."""

from __future__ import annotations

import asyncio
import copy

import pytest
from openai_wire import json_response, response_body
from toolwire_openai.responses import OpenAIResponsesCodec

from toolwire.profile import RequestRefused

_DONE = response_body(
    [
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "The exchange-rate tool is ready.", "annotations": []}],
        }
    ]
)
_SEARCH = {
    "type": "tool_search_call",
    "call_id": "search_call_1",
    "arguments": {"queries": ["exchange rate"]},
    "execution": "client",
    "status": "completed",
}
_BODY = {
    "model": "gpt-5.6",
    "tools": [
        {"type": "tool_search"},
        {
            "type": "function",
            "name": "lookup_exchange_rate",
            "description": "Look up an exchange rate.",
            "parameters": {
                "type": "object",
                "properties": {"currency": {"type": "string"}},
                "required": ["currency"],
                "additionalProperties": False,
            },
            "strict": True,
            "defer_loading": True,
        },
    ],
    "input": [
        {"role": "user", "content": "Find the exchange-rate tool."},
        _SEARCH,
        {"type": "function_call_output", "call_id": "search_call_1", "output": "Found one matching tool."},
        {"role": "user", "content": "Say that the tool is there, without calling it."},
    ],
}


def _send(responses_model, body):
    req = OpenAIResponsesCodec().decode_request(copy.deepcopy(body))
    model = responses_model(lambda r: json_response(_DONE), model_id=body["model"])
    resp = asyncio.run(model.send(req))  # the imported request as it is, as `toolwire replay` sends it
    return model, resp


@pytest.mark.parametrize(
    "answer",
    [
        {"type": "function_call_output", "call_id": "search_call_1", "output": "Found one matching tool."},
        {"type": "tool_search_output", "call_id": "search_call_1", "execution": "client", "tools": []},
    ],
    ids=["function_call_output", "tool_search_output"],
)
def test_a_client_tool_search_answered_by_the_client_is_sent(responses_model, answer) -> None:
    body = copy.deepcopy(_BODY)
    body["input"][2] = answer
    model, resp = _send(responses_model, body)
    assert resp.text == "The exchange-rate tool is ready."
    sent = model.sent[0].json["input"]
    assert [i.get("type", "message") for i in sent] == ["message", "tool_search_call", answer["type"], "message"]
    assert sent[1]["call_id"] == sent[2]["call_id"] == "search_call_1"


def test_an_output_for_a_server_run_search_is_still_refused(responses_model) -> None:
    body = copy.deepcopy(_BODY)
    body["input"][1] = {**_SEARCH, "execution": "server"}
    with pytest.raises(RequestRefused, match="output-without-call"):
        _send(responses_model, body)


def test_a_server_run_search_stays_in_the_models_turn() -> None:
    # the server's tool_search_call and tool_search_output come back in the response's output,
    # before the function_call they made possible: imported, all three are the assistant's turn
    body = {
        "model": "gpt-5.4",
        "input": [
            {"role": "user", "content": "What is the USD to EUR rate?"},
            {
                "type": "tool_search_call",
                "id": "tsc_1",
                "call_id": None,
                "execution": "server",
                "status": "completed",
                "arguments": {"paths": ["get_exchange_rate"]},
            },
            {
                "type": "tool_search_output",
                "id": "tso_1",
                "call_id": None,
                "execution": "server",
                "status": "completed",
                "tools": [{"type": "function", "name": "get_exchange_rate", "parameters": {"type": "object"}}],
            },
            {"type": "function_call", "call_id": "call_1", "name": "get_exchange_rate", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "1 USD = 0.92 EUR"},
        ],
    }
    codec = OpenAIResponsesCodec()
    req = codec.decode_request(copy.deepcopy(body))
    assert [(m.role, [type(p).__name__ for p in m.parts]) for m in req.messages] == [
        ("user", ["TextPart"]),
        ("assistant", ["ProviderToolPart", "ProviderToolPart", "ToolCall"]),
        ("user", ["ToolResult"]),
    ]
    assert codec.encode_request(req)["input"] == body["input"]


def test_tools_added_by_the_caller_sit_in_the_callers_turn() -> None:
    # an additional_tools item (role developer) between a call's output and the model's next call
    added = {
        "type": "additional_tools",
        "role": "developer",
        "tools": [{"type": "function", "name": "lookup_refund_policy", "parameters": {"type": "object"}}],
    }
    body = {
        "model": "gpt-5.4",
        "input": [
            {"role": "user", "content": "Refund for order-123?"},
            {"type": "function_call", "call_id": "c1", "name": "load_capability", "arguments": '{"id":"refunds"}'},
            {"type": "function_call_output", "call_id": "c1", "output": "loaded"},
            added,
            {"type": "function_call", "call_id": "c2", "name": "lookup_refund_policy", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c2", "output": "30 days"},
        ],
    }
    codec = OpenAIResponsesCodec()
    req = codec.decode_request(copy.deepcopy(body))
    assert [(m.role, [type(p).__name__ for p in m.parts]) for m in req.messages] == [
        ("user", ["TextPart"]),
        ("assistant", ["ToolCall"]),
        ("user", ["ToolResult", "ProviderToolPart"]),
        ("assistant", ["ToolCall"]),
        ("user", ["ToolResult"]),
    ]
    assert codec.encode_request(req)["input"] == body["input"]
