"""Answer fields toolwire has no canonical home for, kept in ``Response.provider_data`` (real SDK,
MockTransport network): what a request setting asked the API to report, and what OpenAI's own
tools used. Before, they were dropped, so the settings that ask for them had no visible effect."""

from __future__ import annotations

from typing import Any

import pytest
from openai_wire import Server, chat_sse, completion, json_response, response_body, responses_sse

import toolwire

MODERATION = {
    "input": {
        "type": "moderation_results",
        "model": "omni-moderation-latest",
        "results": [
            {
                "type": "moderation_result",
                "model": "omni-moderation-latest",
                "flagged": False,
                "categories": {"violence": False},
                "category_scores": {"violence": 0.01},
                "category_applied_input_types": {"violence": ["text"]},
            }
        ],
    },
    "output": None,
}


@pytest.mark.parametrize("stream", [False, True])
def test_chat_moderation_results_are_kept(chat_model, stream) -> None:
    """``openai.types.chat.ChatCompletion.moderation`` (and ``ChatCompletionChunk.moderation``):
    "A moderation result produced for the response input or output", asked for with the
    ``moderation`` request setting."""
    body = completion({"content": "Hello."})
    body["moderation"] = MODERATION
    if stream:
        chunks: list[dict[str, Any]] = [
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello."}, "finish_reason": None}],
            },
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "moderation": MODERATION,
            },
        ]
        answer = chat_sse(chunks)
    else:
        answer = json_response(body)
    server = Server(answer, json_response(completion({"content": "ok"})))
    model = chat_model(server, stream=stream, moderation={"model": "omni-moderation-latest"})
    first = toolwire.run_sync(model, "hi")
    assert first.text == "Hello."
    assert first.turns[0].response.provider_data["openai-chat"]["moderation"] == MODERATION
    toolwire.run_sync(model, "again", conversation=first.conversation)
    assert "moderation" not in server.bodies[1]["messages"][1]  # kept, never sent back


@pytest.mark.parametrize("stream", [False, True])
def test_responses_answer_fields_are_kept(responses_model, stream) -> None:
    """``openai.types.responses.Response``: ``moderation`` (results of moderated completions),
    ``prompt_cache_diagnostics`` (asked with ``prompt_cache_options.comparison_response_id``),
    ``input_transformations`` (reasoning items withheld from the model) and ``tool_usage``
    (hosted tools' usage, "separate from base model `usage`")."""
    extras = {
        "moderation": MODERATION,
        "prompt_cache_diagnostics": {"cache_miss_reason": "tools_changed"},
        "input_transformations": [
            {"id": "rs_1", "action": "removed", "reason": "prefix_mismatch", "type": "reasoning"}
        ],
        "tool_usage": {"web_search": {"num_requests": 2}},
    }
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
    }
    body = {**response_body([message]), **extras}
    if stream:
        events = [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {**body, "status": "in_progress", "output": []},
            },
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": message},
            {"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": message},
            {"type": "response.completed", "sequence_number": 3, "response": body},
        ]
        answer = responses_sse(events)
    else:
        answer = json_response(body)
    model = responses_model(Server(answer), stream=stream)
    result = toolwire.run_sync(model, "hi")
    assert result.text == "Hello."
    own = result.turns[0].response.provider_data["openai"]
    assert {k: own.get(k) for k in extras} == extras
    assert own["response_id"] == "resp_TEST1"


def _token(text: str, logprob: float) -> dict[str, Any]:
    return {"token": text, "logprob": logprob, "bytes": list(text.encode()), "top_logprobs": []}


@pytest.mark.parametrize("stream", [False, True])
def test_chat_logprobs_are_kept(chat_model, stream) -> None:
    """``choices[0].logprobs`` (``openai.types.chat.chat_completion.ChoiceLogprobs``), what the
    ``logprobs`` setting asks for; streamed, each chunk carries its own tokens, joined in order."""
    tokens = [_token("Hel", -0.1), _token("lo.", -0.2)]
    if stream:

        def chunk(delta: dict[str, Any], lp: Any, finish: str | None = None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "logprobs": lp, "finish_reason": finish}],
            }

        answer = chat_sse(
            [
                chunk({"role": "assistant", "content": "Hel"}, {"content": tokens[:1], "refusal": None}),
                chunk({"content": "lo."}, {"content": tokens[1:], "refusal": None}),
                chunk({}, None, "stop"),
            ]
        )
    else:
        body = completion({"content": "Hello."})
        body["choices"][0]["logprobs"] = {"content": tokens, "refusal": None}
        answer = json_response(body)
    model = chat_model(Server(answer), stream=stream, logprobs=True)
    result = toolwire.run_sync(model, "hi")
    assert result.text == "Hello."
    assert result.turns[0].response.provider_data["openai-chat"]["logprobs"] == {"content": tokens, "refusal": None}
