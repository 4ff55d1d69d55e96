"""Token counts that OpenAI-compatible servers report outside OpenAI's own fields.

- DeepSeek reports its prompt-cache hits as top-level ``usage.prompt_cache_hit_tokens`` (with
  ``prompt_cache_miss_tokens``; ``prompt_tokens`` = hit + miss), not
  ``prompt_tokens_details.cached_tokens`` (https://api-docs.deepseek.com/api/create-chat-completion;
  NousResearch/hermes-agent#61871, earendil-works/pi#3880, mozilla-ai/any-llm#795).
- Moonshot (Kimi) reports them as top-level ``usage.cached_tokens``
  (https://platform.kimi.ai/docs/api/chat; earendil-works/pi#8075, aallan/vera-bench#97), and in a
  stream puts the usage in ``choices[0].usage`` instead of the chunk's ``usage``
  (earendil-works/pi#2017).
- Groq streams its usage in the last chunk's ``x_groq.usage`` (vercel/ai#1651,
  traceloop/openllmetry#4439).

Before, the cache reads were counted as plain input (``cache_read_tokens`` None) and the streamed
usage of Moonshot and Groq was lost. The OpenAI nested field wins when both are present.
The real ``openai`` SDK sends and reads every request; only the network is replaced.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
from openai_wire import Server, chat_sse, completion, json_response
from toolwire_openai import OpenAIChatModel

from toolwire.adapter import ModelRequest
from toolwire.types import Message

DEEPSEEK = {
    "prompt_tokens": 100,
    "completion_tokens": 10,
    "total_tokens": 110,
    "prompt_cache_hit_tokens": 80,
    "prompt_cache_miss_tokens": 20,
}
KIMI = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110, "cached_tokens": 80}


def _model(server: Server, **settings: Any) -> OpenAIChatModel:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return OpenAIChatModel("deepseek-chat", api_key="sk-test", http_client=client, max_retries=0, **settings)


def _send(model: OpenAIChatModel) -> Any:
    request = model.build_request([Message.user("hi")])
    assert isinstance(request, ModelRequest)
    if model.settings.get("stream"):
        from toolwire.adapter import collect_stream

        return asyncio.run(collect_stream(model.send_stream(request), model.provider))
    return asyncio.run(model.send(request))


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
        **extra,
    }


def test_deepseek_cache_hits_are_cache_reads() -> None:
    response = _send(_model(Server(json_response(completion({"content": "done"}, usage=DEEPSEEK)))))
    assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (100, 80)
    assert response.usage.output_tokens == 10


def test_deepseek_cache_hits_streamed() -> None:
    chunks = [
        _chunk({"role": "assistant", "content": "done"}),
        _chunk({}, "stop"),
        {**_chunk(), "choices": [], "usage": DEEPSEEK},
    ]
    response = _send(_model(Server(chat_sse(chunks)), stream=True))
    assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (100, 80)


def test_moonshot_top_level_cached_tokens() -> None:
    response = _send(_model(Server(json_response(completion({"content": "done"}, usage=KIMI)))))
    assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (100, 80)


def test_moonshot_streamed_usage_in_the_choice() -> None:
    chunks = [_chunk({"role": "assistant", "content": "done"})]
    last = _chunk({}, "stop")
    last["choices"][0]["usage"] = KIMI
    response = _send(_model(Server(chat_sse([*chunks, last])), stream=True))
    assert (response.usage.input_tokens, response.usage.output_tokens) == (100, 10)
    assert response.usage.cache_read_tokens == 80


def test_groq_streamed_usage_in_x_groq() -> None:
    groq = {"queue_time": 0.07, "prompt_tokens": 23, "prompt_time": 0.006, "completion_tokens": 19, "total_tokens": 42}
    chunks = [
        _chunk({"role": "assistant", "content": "done"}),
        _chunk({}, "stop", x_groq={"id": "req_01", "usage": groq}),
    ]
    response = _send(_model(Server(chat_sse(chunks)), stream=True))
    assert (response.usage.input_tokens, response.usage.output_tokens) == (23, 19)
    assert response.usage.vendor_total_tokens == 42


def test_openai_nested_field_wins() -> None:
    usage = {**DEEPSEEK, "prompt_tokens_details": {"cached_tokens": 64}, "cached_tokens": 70}
    response = _send(_model(Server(json_response(completion({"content": "done"}, usage=usage)))))
    assert response.usage.cache_read_tokens == 64


def test_chunk_usage_wins_over_x_groq() -> None:
    chunks = [
        _chunk({"role": "assistant", "content": "done"}),
        _chunk({}, "stop", x_groq={"id": "r", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
        {**_chunk(), "choices": [], "usage": {"prompt_tokens": 23, "completion_tokens": 19, "total_tokens": 42}},
    ]
    response = _send(_model(Server(chat_sse(chunks)), stream=True))
    assert (response.usage.input_tokens, response.usage.output_tokens) == (23, 19)
