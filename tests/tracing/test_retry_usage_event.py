"""The ``toolwire.retry`` span event carries the counts the failed attempt had reported, under
the GenAI usage attribute names the request span uses (``gen_ai.usage.*``), on all four APIs —
the real vendor SDKs with only the network replaced, spans read with the OpenTelemetry SDK's
in-memory exporter. The request span's and the run span's usage stay the answer's alone."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import toolwire
import toolwire.tracing

sys.path.insert(0, str(Path(__file__).parent.parent))
from test_events_all_apis import _sse, get_weather, streamed
from test_retry_attempts import Server, _busy, _model
from test_retry_usage import _opening_reporting
from test_stream_hostile import _error, _opening

APIS = ["anthropic", "openai-chat", "openai", "gemini"]


def _failed_attempt(api: str) -> tuple[bytes, dict[str, int]]:
    """A stream that reports usage and then fails with the vendor's retryable error, and the
    ``gen_ai.usage.*`` attributes of what it reported."""
    if api == "openai":  # response.failed with the failed response's usage (openai ResponseFailedEvent)
        base = {"id": "resp_F", "object": "response", "created_at": 1, "model": "m-0", "output": []}
        usage = {
            "input_tokens": 55,
            "input_tokens_details": {"cached_tokens": 5},
            "output_tokens": 3,
            "output_tokens_details": {"reasoning_tokens": 2},
            "total_tokens": 58,
        }
        failed = {
            **base,
            "status": "failed",
            "usage": usage,
            "error": {"code": "server_error", "message": "The server had an error."},
        }
        body = _sse([*_opening(api), ("response.failed", {"type": "response.failed", "response": failed})])
        return body, {
            "gen_ai.usage.input_tokens": 55,
            "gen_ai.usage.output_tokens": 3,
            "gen_ai.usage.cache_read.input_tokens": 5,
            "gen_ai.usage.reasoning.output_tokens": 2,
        }
    if api == "openai-chat":  # a usage chunk before the error (servers with continuous usage)
        head = {"id": "c0", "object": "chat.completion.chunk", "created": 1, "model": "m-0"}
        usage = {"prompt_tokens": 500, "completion_tokens": 0, "total_tokens": 500}
        body = _sse([*_opening(api), (None, {**head, "choices": [], "usage": usage}), _error(api)])
        return body, {"gen_ai.usage.input_tokens": 500, "gen_ai.usage.output_tokens": 0}
    body = _sse([*_opening_reporting(api, 500), _error(api)])
    if api == "anthropic":
        return body, {"gen_ai.usage.input_tokens": 500, "gen_ai.usage.output_tokens": 1}
    return body, {"gen_ai.usage.input_tokens": 500}


def _traced(model: Any) -> tuple[Any, list[Any]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    result = asyncio.run(
        toolwire.run(model, "Weather?", tools=[get_weather], tracing=toolwire.tracing.Tracing(provider))
    )
    return result, list(exporter.get_finished_spans())


def _usage_of(attributes: Any) -> dict[str, Any]:
    return {k: v for k, v in dict(attributes).items() if k.startswith("gen_ai.usage.")}


@pytest.mark.parametrize("api", APIS)
def test_the_retry_event_carries_the_failed_attempt_s_usage(api: str) -> None:
    body, reported = _failed_attempt(api)
    server = Server(body, streamed(api, 2))
    result, spans = _traced(_model(api, server, stream=True))
    assert server.requests == 2 and len(result.turns) == 1
    (chat,) = [s for s in spans if s.name == "chat m-1"]
    (retry,) = [e for e in chat.events if e.name == "toolwire.retry"]
    attrs = dict(retry.attributes)
    assert (attrs["toolwire.retry.attempt"], attrs["toolwire.retry.delay_s"]) == (2, 0.0)
    assert attrs["toolwire.retry.error"].startswith("ProviderError: ")
    assert _usage_of(attrs) == reported
    # the spans' own usage is the answer's alone (20 in, 7 out), the failed attempt's in no total
    answer = {"gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 7}
    assert {k: v for k, v in _usage_of(chat.attributes).items() if k in answer} == answer
    (run,) = [s for s in spans if s.name == "invoke_agent"]
    assert {k: v for k, v in _usage_of(run.attributes).items() if k in answer} == answer


def test_a_retry_after_an_http_error_has_no_usage_attributes() -> None:
    server = Server(_busy, streamed("anthropic", 2))
    _, spans = _traced(_model("anthropic", server, stream=False))
    (chat,) = [s for s in spans if s.name == "chat m-1"]
    (retry,) = [e for e in chat.events if e.name == "toolwire.retry"]
    assert _usage_of(retry.attributes) == {}
    assert dict(retry.attributes)["toolwire.retry.attempt"] == 2
