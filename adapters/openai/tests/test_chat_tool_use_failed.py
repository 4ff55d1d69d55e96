"""A tool call a Chat-compatible server refuses to hand over (Groq checks the model's call against
the tool's schema and answers HTTP 400 ``tool_use_failed`` with the model's ``failed_generation``,
or an ``event: error`` inside a stream): the run treats it as the model's answer, answers the call
with an ``is_error`` result naming what is wrong (or tells the model what the server said), and
the model tries again. Through the real ``openai`` SDK with only the network replaced."""

from __future__ import annotations

import json

import httpx2
import pytest
from openai_wire import json_response

import toolwire
from toolwire.errors import ProviderError

GROQ = "https://api.groq.com/openai/v1"
REFUSED = {
    "error": {
        "message": "Tool call validation failed: tool call validation failed: parameters for tool get_user did not "
        "match schema: errors: [missing properties: 'name', additionalProperties 'foo' not allowed]",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '{"name": "get_user", "arguments": {\n  "foo": "bar"\n}}',
    }
}
NO_CALL = {
    "error": {
        "message": "Tool choice is required, but model did not call a tool",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": "",
    }
}


def _completion(message: dict, finish: str, n: int) -> dict:
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1771434738,
        "model": "openai/gpt-oss-120b",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


CALL_OK = _completion(
    {
        "content": None,
        "tool_calls": [
            {"id": "fc_1", "type": "function", "function": {"name": "get_user", "arguments": '{"name": "ada"}'}}
        ],
    },
    "tool_calls",
    2,
)
DONE = _completion({"content": "Ada is a user."}, "stop", 3)


def get_user(name: str) -> str:
    """Look a user up by name."""
    return f"user {name}"


def _sse(error: dict) -> httpx2.Response:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "openai/gpt-oss-120b",
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "reasoning": "I will call it."}, "finish_reason": None}
        ],
    }
    text = f"data: {json.dumps(chunk)}\n\nevent: error\ndata: {json.dumps({'error': {**error['error'], 'status_code': 400}})}\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _model(answers: list[httpx2.Response], **settings):
    sent: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return answers.pop(0)

    model = toolwire.model(
        "openai-chat:openai/gpt-oss-120b",
        api_key="k",
        base_url=GROQ,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        **settings,
    )
    return model, sent


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_refused_call_is_answered_as_invalid_and_the_model_tries_again(stream) -> None:
    first = _sse(REFUSED) if stream else json_response(REFUSED, status=400)
    later = [_sse_of(CALL_OK), _sse_of(DONE)] if stream else [json_response(CALL_OK), json_response(DONE)]
    model, sent = _model([first, *later], stream=stream)
    result = toolwire.run_sync(model, "Who is ada?", tools=[get_user])
    assert result.text == "Ada is a user."
    assert result.stop_reason == "end_turn" and len(result.turns) == 3
    (refused,) = result.turns[0].tool_runs
    assert refused.call.name == "get_user" and refused.call.arguments == {"foo": "bar"}
    assert refused.result.is_error and "name" in refused.result.text
    assert result.turns[0].response.vendor_stop_reason == "tool_use_failed"
    # the second request carries the refused call and its error result, as Groq took it
    assistant, tool = sent[1]["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == refused.call.id
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"foo": "bar"}
    # (Chat has no is_error flag: an error result is sent with an "Error: " prefix)
    assert tool == {"role": "tool", "tool_call_id": refused.call.id, "content": "Error: " + refused.result.text}
    (ok,) = result.turns[1].tool_runs
    assert not ok.result.is_error and ok.result.text == "user ada"


def _sse_of(completion: dict) -> httpx2.Response:
    msg = completion["choices"][0]["message"]
    delta = {"role": "assistant"}
    if msg.get("content"):
        delta["content"] = msg["content"]
    if msg.get("tool_calls"):
        delta["tool_calls"] = [{"index": 0, **tc} for tc in msg["tool_calls"]]
    chunks = [
        {
            **completion,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        },
        {
            **completion,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": completion["choices"][0]["finish_reason"]}],
        },
    ]
    for c in chunks:
        c.pop("usage", None)
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def test_required_call_missing_is_told_to_the_model() -> None:
    model, sent = _model([json_response(NO_CALL, status=400), json_response(CALL_OK), json_response(DONE)])
    result = toolwire.run_sync(model, "Who is ada?", tools=[get_user], tool_choice="required")
    assert result.text == "Ada is a user."
    assert result.turns[0].response.stop_reason == "error"
    feedback = sent[1]["messages"][-1]
    assert feedback["role"] == "user"
    text = feedback["content"] if isinstance(feedback["content"], str) else feedback["content"][0]["text"]
    assert "refused by the server" in text and "Tool choice is required, but model did not call a tool" in text


def test_another_400_is_still_an_error() -> None:
    other = {"error": {"message": "model not found", "type": "invalid_request_error", "code": "model_not_found"}}
    model, _ = _model([json_response(other, status=400)])
    with pytest.raises(ProviderError, match="model not found"):
        toolwire.run_sync(model, "hi", tools=[get_user])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_failed_generation_with_nan_arguments_is_answered_not_valid_json(stream) -> None:
    # json.loads reads NaN into a float no request can carry back: the call is answered as
    # invalid JSON (as a streamed call with the same text is), the run goes on
    bad = {"error": {**REFUSED["error"], "failed_generation": '{"name": "get_user", "arguments": {"name": NaN}}'}}
    first = _sse(bad) if stream else json_response(bad, status=400)
    later = [_sse_of(CALL_OK), _sse_of(DONE)] if stream else [json_response(CALL_OK), json_response(DONE)]
    model, sent = _model([first, *later], stream=stream)
    result = toolwire.run_sync(model, "Who is ada?", tools=[get_user])
    assert result.text == "Ada is a user."
    (refused,) = result.turns[0].tool_runs
    assert refused.call.arguments is None and refused.result.is_error
    assert "NaN is not a JSON number" in refused.result.text
    assert sent[1]["messages"][-1]["content"].startswith("Error: Invalid arguments for tool 'get_user'")


def test_a_refused_call_that_had_begun_to_stream_is_that_call_not_a_second_one() -> None:
    # the server streamed the call's start, then refused it: the run answers that one call with
    # the server's reason (no copy of it from failed_generation), and the model tries again
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "openai/gpt-oss-120b",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "fc_0",
                            "type": "function",
                            "function": {"name": "get_user", "arguments": '{"fo'},
                        }
                    ],
                },
                "finish_reason": None,
            }
        ],
    }
    err = {"error": {**REFUSED["error"], "status_code": 400}}
    first = httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        text=f"data: {json.dumps(chunk)}\n\nevent: error\ndata: {json.dumps(err)}\n\n",
    )
    model, sent = _model([first, _sse_of(CALL_OK), _sse_of(DONE)], stream=True)
    result = toolwire.run_sync(model, "Who is ada?", tools=[get_user])
    assert result.text == "Ada is a user."
    (refused,) = result.turns[0].tool_runs
    assert refused.call.id == "fc_0" and refused.result.is_error
    assert "the server refused this tool call" in refused.result.text
    assistant = sent[1]["messages"][-2]
    assert [c["id"] for c in assistant["tool_calls"]] == ["fc_0"]
