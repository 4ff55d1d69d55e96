"""OpenTelemetry spans of a run, checked with the SDK's in-memory exporter: exact names and
attributes for a run with parallel tool calls and a tool error, content capture, failures."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import toolwire
import toolwire.tracing
from toolwire.testing.providers import call


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    toolwire.tracing.uninstrument()


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city. Use it when asked about the weather."""
    if city == "Atlantis":
        raise toolwire.ToolError("no such city", hint="Ask for a real city.")
    return f"sunny in {city}"


def _by_name(exporter):
    return [
        (
            s.name,
            s.kind,
            dict(s.attributes),
            s.status.status_code,
            s.parent.span_id if s.parent else None,
            s.context.span_id,
        )
        for s in exporter.get_finished_spans()
    ]


def test_parallel_tool_calls_and_a_tool_error_through_a_real_sdk(spans) -> None:
    provider, exporter = spans
    bodies = [
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Atlantis"}},
            ],
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 100,
                "output_tokens": 30,
                "cache_read_input_tokens": 20,
                "cache_creation_input_tokens": 0,
            },
        },
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "Paris is sunny."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 200, "output_tokens": 10},
        },
    ]
    answers = iter(bodies)
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda req: httpx2.Response(200, json=next(answers))))
    model = toolwire.model(
        "anthropic:claude-sonnet-4-5", api_key="k", http_client=client, max_retries=0, max_tokens=512
    )
    result = toolwire.run_sync(
        model, "Weather in Paris and Atlantis?", tools=[get_weather], tracing=toolwire.tracing.Tracing(provider)
    )
    assert result.text == "Paris is sunny." and result.tool_errors == 1
    got = _by_name(exporter)
    names = [g[0] for g in got]
    assert sorted(names) == sorted(
        [
            "chat claude-sonnet-4-5",
            "execute_tool get_weather",
            "execute_tool get_weather",
            "chat claude-sonnet-4-5",
            "invoke_agent",
        ]
    )
    run = next(g for g in got if g[0] == "invoke_agent")
    chats = [g for g in got if g[0].startswith("chat ")]
    tools = [g for g in got if g[0].startswith("execute_tool ")]
    assert run[4] is None and all(g[4] == run[5] for g in chats + tools)  # one tree under the run span
    assert run[2] == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.conversation.id": result.run_id,
        "gen_ai.usage.input_tokens": 320,
        "gen_ai.usage.output_tokens": 40,
        "gen_ai.usage.cache_read.input_tokens": 20,
        "gen_ai.usage.cache_creation.input_tokens": 0,
        "toolwire.run.stop_reason": "end_turn",
        "toolwire.run.turns": 2,
        "toolwire.run.tool_errors": 1,
    }
    assert run[3] == StatusCode.UNSET
    assert chats[0][1] == SpanKind.CLIENT and chats[0][2] == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.request.max_tokens": 512,
        "toolwire.turn": 1,
        "gen_ai.response.model": "claude-sonnet-4-5-20250929",
        "gen_ai.response.id": "msg_1",
        "gen_ai.response.finish_reasons": ("tool_use",),
        "toolwire.stop_reason": "tool_use",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
        "gen_ai.usage.cache_read.input_tokens": 20,
        "gen_ai.usage.cache_creation.input_tokens": 0,
    }
    assert chats[1][2]["gen_ai.response.finish_reasons"] == ("end_turn",) and chats[1][2]["toolwire.turn"] == 2
    by_id = {t[2]["gen_ai.tool.call.id"]: t for t in tools}
    assert by_id["toolu_1"][2] == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "toolu_1",
        "gen_ai.tool.type": "function",
        "toolwire.turn": 1,
    }
    assert by_id["toolu_1"][3] == StatusCode.UNSET
    assert by_id["toolu_2"][2]["error.type"] == "tool_error" and by_id["toolu_2"][3] == StatusCode.ERROR
    assert "gen_ai.tool.call.arguments" not in by_id["toolu_2"][2]  # no content unless asked for


def test_content_is_recorded_only_when_asked(spans) -> None:
    provider, exporter = spans
    toolwire.tracing.instrument(provider, capture_content=True)  # global: every run
    model = toolwire.model("scripted", responses=[[call("get_weather", {"city": "Oslo"})], "done"])
    toolwire.run_sync(model, "Oslo?", tools=[get_weather], instructions="Be brief.")
    got = {g[0]: g[2] for g in _by_name(exporter)}
    tool = got["execute_tool get_weather"]
    assert json.loads(tool["gen_ai.tool.call.arguments"]) == {"city": "Oslo"}
    assert json.loads(tool["gen_ai.tool.call.result"]) == "sunny in Oslo"
    chat = next(v for k, v in got.items() if k.startswith("chat"))
    assert json.loads(chat["gen_ai.system_instructions"]) == [{"type": "text", "content": "Be brief."}]
    assert json.loads(chat["gen_ai.input.messages"])[0]["parts"][0]["text"] == "Oslo?"
    assert "gen_ai.output.messages" in chat
    toolwire.tracing.uninstrument()
    exporter.clear()
    toolwire.run_sync(toolwire.model("scripted", responses=["x"]), "again")
    assert exporter.get_finished_spans() == ()


def test_a_vendor_error_ends_the_spans_as_failed(spans) -> None:
    provider, exporter = spans
    client = httpx2.AsyncClient(
        transport=httpx2.MockTransport(
            lambda req: httpx2.Response(
                400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}
            )
        )
    )
    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k", http_client=client, max_retries=0)
    with pytest.raises(toolwire.ProviderError):
        toolwire.run_sync(model, "hi", tracing=toolwire.tracing.Tracing(provider))
    got = {g[0]: g for g in _by_name(exporter)}
    assert set(got) == {"invoke_agent", "chat claude-sonnet-4-5"}
    for name in got:
        assert got[name][3] == StatusCode.ERROR and got[name][2]["error.type"] == "ProviderError"


def test_a_cancelled_run_ends_its_spans(spans) -> None:
    provider, exporter = spans

    started: asyncio.Event | None = None

    @toolwire.tool
    async def slow() -> str:
        """Wait. Use it never."""
        assert started is not None
        started.set()
        await asyncio.sleep(300)
        return "late"

    async def main() -> None:
        nonlocal started
        started = asyncio.Event()
        model = toolwire.model("scripted", responses=[[call("slow")], "done"])
        run = asyncio.ensure_future(toolwire.run(model, "go", tools=[slow], tracing=toolwire.tracing.Tracing(provider)))
        # cancelled once the tool runs (waited for: a fixed timeout could expire before it started)
        await asyncio.wait_for(started.wait(), 60)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(main())
    got = {g[0]: g for g in _by_name(exporter)}
    assert got["invoke_agent"][2]["error.type"] == "cancelled"
    assert got["execute_tool slow"][2]["error.type"] == "cancelled"


def test_a_tracer_provider_that_is_not_one_is_refused_up_front() -> None:
    for bad in (object(), "provider", 42):
        with pytest.raises(
            toolwire.ConfigurationError, match="tracer_provider must be an OpenTelemetry TracerProvider"
        ):
            toolwire.tracing.Tracing(bad)
        with pytest.raises(toolwire.ConfigurationError):
            toolwire.tracing.instrument(bad)
    toolwire.tracing.uninstrument()


def test_a_known_key_in_an_error_message_is_scrubbed_from_every_span(spans, monkeypatch) -> None:
    """An error quoting a credential ("auth failed for sk-...") reached the span status and the
    exception event (message and stack trace) as it was, even without capture_content."""
    provider, exporter = spans
    key = "sk-proj-ENVSECRET1234567890abcdefghij"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    from toolwire.testing import ScriptedModel

    def respond(request):
        raise RuntimeError("auth failed for " + key)

    with pytest.raises(toolwire.errors.ConfigurationError) as info:  # (the function's error, typed)
        toolwire.run_sync(ScriptedModel(respond=respond), "go", tracing=toolwire.tracing.Tracing(provider))
    assert key not in str(info.value) and isinstance(info.value.__cause__, RuntimeError)
    finished = exporter.get_finished_spans()
    assert {s.name for s in finished} >= {"invoke_agent"}
    texts = []
    for s in finished:
        texts.append(s.status.description or "")
        texts.append(json.dumps(dict(s.attributes)))
        for ev in s.events:
            texts.append(json.dumps(dict(ev.attributes)))
    joined = "\n".join(texts)
    assert key not in joined
    assert "auth failed for" in joined  # the message is kept, the key replaced
    events = [ev for s in finished for ev in s.events if ev.name == "exception"]
    assert events and all("RuntimeError" in ev.attributes["exception.stacktrace"] for ev in events)
