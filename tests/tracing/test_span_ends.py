"""Every span a run starts is ended, however the run stops: checked with a span processor that
sees each span start and end (the in-memory exporter sees only the ended ones)."""

from __future__ import annotations

import asyncio
import gc

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

import toolwire
import toolwire.tracing
from toolwire.testing.providers import call


class Open(SpanProcessor):
    """The spans started and not yet ended, and the ended ones."""

    def __init__(self) -> None:
        self.open: dict[int, str] = {}
        self.ended: list = []

    def on_start(self, span, parent_context=None) -> None:
        self.open[span.context.span_id] = span.name

    def on_end(self, span) -> None:
        self.open.pop(span.context.span_id, None)
        self.ended.append(span)


@pytest.fixture
def seen():
    processor = Open()
    provider = TracerProvider()
    provider.add_span_processor(processor)
    return provider, processor


@toolwire.tool
async def slow(city: str) -> str:
    """Weather for a city, slowly. Use it when asked about the weather."""
    await asyncio.sleep(0.05)
    return f"sunny in {city}"


def test_a_stream_left_without_closing_it_ends_its_spans(seen) -> None:
    """``async for ... break`` on ``run_stream`` without ``async with`` or ``aclose()``: the
    abandoned stream is closed by Python's async-generator finaliser, and its spans end then
    (the run span and the running tool spans were left open forever)."""
    provider, spans = seen

    async def main() -> None:
        model = toolwire.model(
            "scripted", responses=[[call("slow", {"city": "Oslo"}), call("slow", {"city": "Rome"})], "done"]
        )
        stream = toolwire.run_stream(model, "go", tools=[slow], tracing=toolwire.tracing.Tracing(provider))
        async for event in stream:
            if type(event).__name__ == "ToolStarted":
                break
        del stream, event
        gc.collect()
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(main())
    gc.collect()
    assert spans.open == {}
    run = next(s for s in spans.ended if s.name == "invoke_agent")
    assert run.attributes["error.type"] == "cancelled"
    assert all(s.attributes.get("error.type") == "cancelled" for s in spans.ended if s.name.startswith("execute_tool"))


def test_a_stream_left_before_its_first_event_starts_no_span(seen) -> None:
    provider, spans = seen

    async def main() -> None:
        model = toolwire.model("scripted", responses=["done"])
        stream = toolwire.run_stream(model, "go", tracing=toolwire.tracing.Tracing(provider))
        await stream.aclose()

    asyncio.run(main())
    assert spans.open == {} and spans.ended == []


def test_a_closed_stream_and_a_finished_run_end_every_span(seen) -> None:
    provider, spans = seen

    async def main() -> None:
        model = toolwire.model("scripted", responses=[[call("slow", {"city": "Oslo"})], "done"])
        async with toolwire.run_stream(model, "go", tools=[slow], tracing=toolwire.tracing.Tracing(provider)) as stream:
            async for event in stream:
                if type(event).__name__ == "ToolStarted":
                    break
        assert spans.open == {}
        model = toolwire.model("scripted", responses=[[call("slow", {"city": "Oslo"})], "done"])
        await toolwire.run(model, "go", tools=[slow], tracing=toolwire.tracing.Tracing(provider))

    asyncio.run(main())
    assert spans.open == {}
    assert [s.name for s in spans.ended].count("invoke_agent") == 2
