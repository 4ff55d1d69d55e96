"""A tool's own spans (a database query, an HTTP call it makes) are children of its
``execute_tool`` span, in the run's trace: the tool runs with that span as the current
OpenTelemetry context, on every path a call takes (a lone synchronous call, parallel calls in
tasks and threads, an async tool, a run with hooks)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import toolwire
import toolwire.tracing
from toolwire.testing.providers import call

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
inner = provider.get_tracer("user-code")


@toolwire.tool
def lookup(city: str) -> str:
    """Weather for a city. Use it when asked about the weather."""
    with inner.start_as_current_span(f"query {city}"):
        return f"sunny in {city}"


@toolwire.tool
async def alookup(city: str) -> str:
    """Weather for a city. Use it when asked about the weather."""
    await asyncio.sleep(0.01)
    with inner.start_as_current_span(f"query {city}"):
        return f"sunny in {city}"


def _check(names: list[str]) -> None:
    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    run = next(s for s in spans if s.name == "invoke_agent")
    for city in names:
        q = next(s for s in spans if s.name == f"query {city}")
        parent = by_id.get(q.parent.span_id) if q.parent else None
        assert parent is not None, f"query {city} is not in the run's trace"
        assert parent.name.startswith("execute_tool ")
        assert parent.attributes["gen_ai.tool.call.id"] == f"call_{city}"
        assert parent.parent is not None and parent.parent.span_id == run.context.span_id
        assert q.context.trace_id == run.context.trace_id
        assert parent.start_time <= q.start_time and q.end_time <= parent.end_time
    # the user's context is left as it was
    assert trace.get_current_span() is trace.INVALID_SPAN


def _calls(tool: str, cities: list[str]) -> list:
    return [call(tool, {"city": c}, id=f"call_{c}") for c in cities]


@pytest.mark.parametrize(
    ("tool", "cities"),
    [("lookup", ["Oslo"]), ("lookup", ["Oslo", "Rome"]), ("alookup", ["Oslo"]), ("alookup", ["Oslo", "Rome"])],
)
def test_a_tools_spans_are_children_of_its_execute_tool_span(tool: str, cities: list[str]) -> None:
    exporter.clear()
    model = toolwire.model("scripted", responses=[_calls(tool, cities), "done"])
    toolwire.run_sync(model, "go", tools=[lookup, alookup], tracing=toolwire.tracing.Tracing(provider))
    _check(cities)


def test_with_hooks_and_when_streamed() -> None:
    exporter.clear()
    model = toolwire.model("scripted", responses=[_calls("lookup", ["Oslo"]), "done"])
    toolwire.run_sync(
        model,
        "go",
        tools=[lookup],
        before_tool_call=lambda c: None,
        tracing=toolwire.tracing.Tracing(provider),
    )
    _check(["Oslo"])

    exporter.clear()

    async def main() -> None:
        model = toolwire.model("scripted", responses=[_calls("alookup", ["Oslo", "Rome"]), "done"])
        async with toolwire.run_stream(
            model, "go", tools=[alookup], tracing=toolwire.tracing.Tracing(provider)
        ) as stream:
            await stream.finish()

    asyncio.run(main())
    _check(["Oslo", "Rome"])
