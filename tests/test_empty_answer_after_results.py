"""An empty answer right after tool results, on all four APIs.

Models sometimes end the turn with no content at all right after reading tool results:
Claude ("Sometimes Claude returns an empty response (exactly 2-3 tokens with no content) with
stop_reason: "end_turn". This typically happens when Claude interprets that the assistant turn is
complete, particularly after tool results", https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons,
whose last resort is a continuation prompt: a user message "Please continue"), Gemini (a candidate
with ``finishReason: STOP`` and no parts: BerriAI/litellm#24442, google/adk-js#344,
AstrBotDevs/AstrBot#6735, livekit/agents#4066) and OpenAI-compatible servers. Before, the run
ended there with empty text: the user got no answer to the question the tools were run for.

Now the loop asks once more with that continuation prompt, and the run ends with the answer that
follows; a second empty answer in a row ends the run as before. An empty answer to the user's
own prompt (no tool results before it) is not a case of this kind and ends the run.

The real SDKs send every request; only the network is replaced (``httpx2.MockTransport``).
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

import toolwire

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

from toolwire_anthropic import AnthropicModel  # noqa: E402
from toolwire_gemini import GeminiModel  # noqa: E402
from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel  # noqa: E402

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


def _json(body: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))


# each API: (model factory, answer with a call, empty answer, answer with text, the texts of a body)


def _anthropic(content: list[dict[str, Any]], stop: str) -> httpx2.Response:
    return _json(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 2},
        }
    )


def _chat(message: dict[str, Any], finish: str) -> httpx2.Response:
    return _json(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        }
    )


def _responses(output: list[dict[str, Any]]) -> httpx2.Response:
    return _json(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "model": "gpt-4.1",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        }
    )


def _gemini(parts: list[dict[str, Any]] | None) -> httpx2.Response:
    content: dict[str, Any] = {"role": "model"}
    if parts is not None:
        content["parts"] = parts
    return _json(
        {
            "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5},
            "modelVersion": "gemini-2.5-flash",
        }
    )


def _message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


APIS: dict[str, dict[str, Any]] = {
    "anthropic": {
        "model": lambda c: AnthropicModel("claude-sonnet-4-5", api_key="k", http_client=c, max_retries=0),
        "call": lambda: _anthropic(
            [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}], "tool_use"
        ),
        "empty": lambda: _anthropic([], "end_turn"),
        "text": lambda t: _anthropic([{"type": "text", "text": t}], "end_turn"),
        "last_user_text": lambda b: [
            blk.get("text") if isinstance(blk, dict) else blk
            for blk in (
                b["messages"][-1]["content"]
                if isinstance(b["messages"][-1]["content"], list)
                else [b["messages"][-1]["content"]]
            )
        ],
    },
    "openai-chat": {
        "model": lambda c: OpenAIChatModel("gpt-4o", api_key="k", http_client=c, max_retries=0),
        "call": lambda: _chat(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            "tool_calls",
        ),
        "empty": lambda: _chat({"content": ""}, "stop"),
        "text": lambda t: _chat({"content": t}, "stop"),
        "last_user_text": lambda b: [b["messages"][-1]["content"]],
    },
    "openai": {
        "model": lambda c: OpenAIResponsesModel("gpt-4.1", api_key="k", http_client=c, max_retries=0),
        "call": lambda: _responses(
            [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": '{"city":"Paris"}',
                    "status": "completed",
                }
            ]
        ),
        "empty": lambda: _responses([]),
        "text": lambda t: _responses([_message(t)]),
        "last_user_text": lambda b: (
            [p.get("text") for p in b["input"][-1]["content"]]
            if isinstance(b["input"][-1].get("content"), list)
            else [b["input"][-1].get("content")]
        ),
    },
    "gemini": {
        "model": lambda c: GeminiModel("gemini-2.5-flash", api_key="k", http_client=c, max_retries=0),
        "call": lambda: _gemini([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]),
        "empty": lambda: _gemini(None),
        "text": lambda t: _gemini([{"text": t}]),
        "last_user_text": lambda b: [p.get("text") for p in b["contents"][-1]["parts"]],
    },
}


class Server:
    def __init__(self, answers: list[Callable[[], httpx2.Response]]) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.answers.pop(0)()


def _run(api: str, answers: list[Callable[[], httpx2.Response]]) -> tuple[Any, Server]:
    server = Server(answers)
    model = APIS[api]["model"](httpx2.AsyncClient(transport=httpx2.MockTransport(server)))
    return toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather]), server


@pytest.mark.parametrize("api", sorted(APIS))
def test_empty_answer_after_results_is_asked_again(api: str) -> None:
    a = APIS[api]
    RAN.clear()
    result, server = _run(api, [a["call"], a["empty"], lambda: a["text"]("It is sunny in Paris.")])
    assert RAN == ["Paris"]
    assert result.text == "It is sunny in Paris."
    assert result.stop_reason == "end_turn"
    assert len(server.bodies) == 3
    assert "Please continue." in a["last_user_text"](server.bodies[2])


@pytest.mark.parametrize("api", sorted(APIS))
def test_second_empty_answer_ends_the_run(api: str) -> None:
    a = APIS[api]
    result, server = _run(api, [a["call"], a["empty"], a["empty"]])
    assert result.text == "" and result.stop_reason == "end_turn"
    assert len(server.bodies) == 3


@pytest.mark.parametrize("api", sorted(APIS))
def test_empty_answer_to_the_prompt_ends_the_run(api: str) -> None:
    a = APIS[api]
    result, server = _run(api, [a["empty"]])
    assert result.text == "" and len(server.bodies) == 1
