"""Servers that send a tool call's arguments more than once in a stream.

OpenAI-compatible servers and gateways are reported to stream a call's ``arguments`` in two
ways the plain join of the fragments turns into invalid JSON:

- *cumulative* fragments, each the whole argument text so far instead of the new piece
  (DeepSeek and Baidu Qianfan through OpenAI-compatible endpoints: NousResearch/hermes-agent#35592,
  fixed in #35718: "resend the full arguments-so-far in every stream chunk ... producing
  ``{...}{...}{...}``");
- the whole argument text sent again after it was streamed (opencodex: "Each tool call produces
  3 SSE chunks instead of 2", lidge-jun/opencodex#361; GLM through local servers,
  anomalyco/opencode#12425 / #17339; a gateway's consolidated chunk, elizaOS/eliza#16973:
  ``{"command": "..."}{"command":"..."}``).

Before, toolwire answered such a call with an "arguments are not valid JSON" error and never ran
it, so the model, whose call was fine, was told it was not. Now the assembler reads the call the
model made: the last fragment when every fragment extends the one before it, or the one object
sent several times. Text that is still not one JSON object stays invalid, as before.

The real SDKs send and read every request; only the network is replaced (``httpx2.MockTransport``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolwire
from toolwire.stream import StopEvent, StreamAssembler, ToolCallDelta, ToolCallEnd, ToolCallStart

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_anthropic")

from toolwire_anthropic import AnthropicModel  # noqa: E402
from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel  # noqa: E402

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


def _sse(chunks: list[dict[str, Any]], *, named: bool = False, done: bool = False) -> httpx2.Response:
    text = "".join((f"event: {c['type']}\n" if named else "") + f"data: {json.dumps(c)}\n\n" for c in chunks) + (
        "data: [DONE]\n\n" if done else ""
    )
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


class Server:
    def __init__(self, *answers: httpx2.Response) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)


def _client(server: Server) -> Any:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(server))


# -- OpenAI Chat Completions -------------------------------------------------------------------


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "deepseek-chat",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }


def _chat_call(fragments: list[str]) -> httpx2.Response:
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    chunks = [_chunk({"role": "assistant", "tool_calls": [first]})]
    chunks += [_chunk({"tool_calls": [{"index": 0, "function": {"arguments": f}}]}) for f in fragments]
    return _sse([*chunks, _chunk({}, "tool_calls")], done=True)


def _chat_text(text: str) -> httpx2.Response:
    return _sse([_chunk({"role": "assistant", "content": text}), _chunk({}, "stop")], done=True)


CHAT_CASES = {
    # DeepSeek / Qianfan cumulative mode: every fragment is the whole text so far
    "cumulative": ['{"city"', '{"city": "Par', '{"city": "Paris"}'],
    # cumulative, with the last snapshot sent twice
    "cumulative-repeated-last": ['{"city": "Pa', '{"city": "Paris"}', '{"city": "Paris"}'],
    # streamed in pieces, then the whole text again (a gateway's consolidated chunk)
    "pieces-then-whole": ['{"city":', ' "Paris"}', '{"city":"Paris"}'],
    # the whole text sent twice (opencodex)
    "whole-twice": ['{"city": "Paris"}', '{"city": "Paris"}'],
}


@pytest.mark.parametrize("case", sorted(CHAT_CASES))
def test_chat_stream_resent_arguments_run_the_call(case: str) -> None:
    RAN.clear()
    server = Server(_chat_call(CHAT_CASES[case]), _chat_text("done"))
    model = OpenAIChatModel("gpt-4o", api_key="sk-test", http_client=_client(server), stream=True, max_retries=0)
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert RAN == ["Paris"]
    assert result.text == "done"
    sent = server.bodies[1]["messages"]
    assert json.loads(sent[1]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny in Paris"}


def test_chat_stream_two_different_objects_stay_invalid() -> None:
    """Two different objects in one call's text are not one call: it is answered with an error,
    not run (which of them the model meant cannot be known)."""
    RAN.clear()
    server = Server(_chat_call(['{"city": "Paris"}', '{"city": "Rome"}']), _chat_text("done"))
    model = OpenAIChatModel("gpt-4o", api_key="sk-test", http_client=_client(server), stream=True, max_retries=0)
    result = toolwire.run_sync(model, "Weather?", tools=[get_weather])
    assert RAN == []
    assert result.turns[0].response.tool_calls[0].invalid is not None
    assert "not valid JSON" in server.bodies[1]["messages"][2]["content"]


# -- Anthropic Messages (OpenAI-compatible servers also speak it: vLLM's /v1/messages) -----------


def _anthropic_call(fragments: list[str]) -> httpx2.Response:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        },
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": f}}
        for f in fragments
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    return _sse(events, named=True)


def _anthropic_text(text: str) -> httpx2.Response:
    return httpx2.Response(
        200,
        headers={"content-type": "application/json"},
        text=json.dumps(
            {
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            }
        ),
    )


@pytest.mark.parametrize("case", sorted(CHAT_CASES))
def test_anthropic_stream_resent_arguments_run_the_call(case: str) -> None:
    RAN.clear()
    server = Server(_anthropic_call(CHAT_CASES[case]), _anthropic_text("done"))
    model = AnthropicModel(
        "claude-sonnet-4-5", api_key="sk-ant-test", http_client=_client(server), stream=True, max_retries=0
    )
    # the second request is not streamed by this server: a JSON body is read as the answer
    server.answers[1] = _sse(
        [
            {
                "type": "message_start",
                "message": {
                    "id": "msg_2",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 2},
            },
            {"type": "message_stop"},
        ],
        named=True,
    )
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert RAN == ["Paris"]
    assert result.text == "done"
    sent = server.bodies[1]["messages"]
    assert sent[1]["content"][0]["input"] == {"city": "Paris"}


# -- OpenAI Responses: a final text that is the object twice -------------------------------------


def test_responses_stream_done_text_twice_runs_the_call() -> None:
    """A Responses-compatible gateway whose ``function_call_arguments.done`` (and item) carry the
    whole text twice: the call is read once."""
    RAN.clear()
    twice = '{"city": "Paris"}{"city": "Paris"}'
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": "",
        "status": "in_progress",
    }
    base = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-4.1",
        "output": [],
        "status": "in_progress",
    }
    done_item = {**item, "arguments": twice, "status": "completed"}
    usage = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
    events = [
        {"type": "response.created", "sequence_number": 0, "response": base},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item},
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 2,
            "output_index": 0,
            "item_id": "fc_1",
            "delta": twice,
        },
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": 3,
            "output_index": 0,
            "item_id": "fc_1",
            "arguments": twice,
        },
        {"type": "response.output_item.done", "sequence_number": 4, "output_index": 0, "item": done_item},
        {
            "type": "response.completed",
            "sequence_number": 5,
            "response": {**base, "status": "completed", "output": [done_item], "usage": usage},
        },
    ]
    msg = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "done", "annotations": []}],
    }
    events2 = [
        {"type": "response.created", "sequence_number": 0, "response": {**base, "id": "resp_2"}},
        {"type": "response.output_item.done", "sequence_number": 1, "output_index": 0, "item": msg},
        {
            "type": "response.completed",
            "sequence_number": 2,
            "response": {**base, "id": "resp_2", "status": "completed", "output": [msg], "usage": usage},
        },
    ]
    server = Server(_sse(events, named=True), _sse(events2, named=True))
    model = OpenAIResponsesModel("gpt-4.1", api_key="sk-test", http_client=_client(server), stream=True, max_retries=0)
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather])
    assert RAN == ["Paris"]
    assert result.text == "done"
    calls = [i for i in server.bodies[1]["input"] if i.get("type") == "function_call"]
    assert json.loads(calls[0]["arguments"]) == {"city": "Paris"}


# -- the assembler itself (any adapter's stream decoder) -------------------------------------------


def _assembled(fragments: list[str]) -> Any:
    asm = StreamAssembler("x")
    asm.feed(ToolCallStart(0, "c1", "get_weather"))
    for f in fragments:
        asm.feed(ToolCallDelta(0, f))
    asm.feed(ToolCallEnd(0))
    asm.feed(StopEvent("tool_use", "tool_calls"))
    return asm.response().tool_calls[0]


def test_assembler_ordinary_fragments_unchanged() -> None:
    call = _assembled(['{"ci', 'ty": "Pa', 'ris"}'])
    assert call.arguments == {"city": "Paris"} and call.invalid is None
    assert call.raw_arguments == '{"city": "Paris"}'


def test_assembler_reads_the_last_cumulative_fragment() -> None:
    call = _assembled(['{"city"', '{"city": "Par', '{"city": "Paris"}'])
    assert call.arguments == {"city": "Paris"} and call.invalid is None
    assert call.raw_arguments == '{"city": "Paris"}'


def test_assembler_broken_text_stays_invalid() -> None:
    for fragments in (['{"city": "Pa', 'ris"'], ['{"a": 1}', "[1]"], ["[1]", "[1]"], ['{"a": 1}', "x"]):
        call = _assembled(fragments)
        assert call.arguments is None and call.invalid, fragments
