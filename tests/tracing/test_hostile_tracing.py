"""Tracing under hostile conditions, with the real OpenTelemetry SDK: content that must stay out
of spans when capture is off, text an exporter cannot encode, and a tracing set-up that raises."""

from __future__ import annotations

import json
import logging

import pytest

pytest.importorskip("opentelemetry.sdk")

from google.protobuf import struct_pb2
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import toolwire
import toolwire.tracing
from toolwire.testing import ScriptedModel, call


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


@toolwire.tool
def login(user: str, password: str) -> str:
    """Log a user in. Use it when asked to log in."""
    raise ValueError(f"wrong password {password!r} for {user}")


def _everything(exporter) -> str:
    """Every text a backend would receive: names, attributes, statuses, events."""
    texts = []
    for s in exporter.get_finished_spans():
        texts += [s.name, s.status.description or "", json.dumps(dict(s.attributes), ensure_ascii=False)]
        texts += [json.dumps(dict(e.attributes), ensure_ascii=False) for e in s.events]
    return "\n".join(texts)


def test_without_content_capture_no_tool_argument_or_result_reaches_a_span(spans) -> None:
    """A tool error's text (here quoting the password argument; an invalid-arguments error quotes
    the arguments too) was the tool span's status description, capture off or on."""
    provider, exporter = spans
    model = ScriptedModel(
        responses=[
            [call("login", {"user": "ann", "password": "hunter2-PRIVATE"}), call("login", {"pw": "swordfish-PRIVATE"})],
            "done",
        ]
    )
    result = toolwire.run_sync(model, "log in", tools=[login], tracing=toolwire.tracing.Tracing(provider))
    assert result.tool_errors == 2
    assert "hunter2-PRIVATE" in result.tool_runs[0].result.text  # the model was told, the trace is not
    seen = _everything(exporter)
    assert "PRIVATE" not in seen and "wrong password" not in seen
    tool_spans = [s for s in exporter.get_finished_spans() if s.name == "execute_tool login"]
    assert [s.status.status_code for s in tool_spans] == [StatusCode.ERROR, StatusCode.ERROR]
    assert sorted(s.status.description for s in tool_spans) == [
        "the tool call was answered with an error (status: invalid)",
        "the tool call was answered with an error (status: ran)",
    ]
    assert [s.attributes["error.type"] for s in tool_spans] == ["tool_error", "tool_error"]

    exporter.clear()  # with capture on, the status carries the error text (credentials scrubbed)
    model = ScriptedModel(responses=[[call("login", {"user": "ann", "password": "hunter2-PRIVATE"})], "done"])
    toolwire.run_sync(model, "log in", tools=[login], tracing=toolwire.tracing.Tracing(provider, capture_content=True))
    (tool_span,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool login"]
    assert tool_span.status.description.startswith("ValueError: wrong password 'hunter2-PRIVATE' for ann")


def _protobuf_encodes(text: str) -> bool:
    """What the OTLP exporter does with a string attribute (an AnyValue string_value)."""
    try:
        struct_pb2.Value(string_value=text).SerializeToString()
    except UnicodeEncodeError:
        return False
    return True


def test_a_lone_surrogate_from_a_model_or_tool_leaves_every_span_exportable(spans) -> None:
    """Half an emoji (a lone surrogate) in a prompt, a tool result, a tool name or a final answer
    went into the span attributes as it was; the OTLP exporter (protobuf) cannot encode it, so
    the whole export batch, other runs' spans included, was dropped."""
    provider, exporter = spans

    @toolwire.tool
    def half() -> str:
        """Return text. Use it always."""
        return "half \ud83d of an emoji"

    model = ScriptedModel(
        responses=[[call("half"), call("nope\udc00")], {"text": "done \udc00", "stop_reason": "end_turn"}]
    )
    result = toolwire.run_sync(
        model, "go \ud800", tools=[half], tracing=toolwire.tracing.Tracing(provider, capture_content=True)
    )
    assert result.text == "done \udc00"  # the run keeps the text as it came
    finished = exporter.get_finished_spans()
    assert {s.name for s in finished} >= {"invoke_agent", "execute_tool half", "execute_tool nope\ufffd"}
    strings = []
    for s in finished:
        strings += [s.name, s.status.description or ""]
        for attrs in [s.attributes, *(e.attributes for e in s.events)]:
            for v in attrs.values():
                strings += (
                    [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] if isinstance(v, tuple) else []
                )
    assert strings and all(_protobuf_encodes(t) for t in strings)
    # content stays exact: JSON escapes, read back to the same text
    (half_span,) = [s for s in finished if s.name == "execute_tool half"]
    assert json.loads(half_span.attributes["gen_ai.tool.call.result"]) == "half \ud83d of an emoji"
    chats = [s for s in finished if s.name.startswith("chat")]
    assert json.loads(chats[0].attributes["gen_ai.input.messages"])[0]["parts"][0]["text"] == "go \ud800"


class Raising(SpanProcessor):
    """A span processor that raises where it is told (the SDK calls processors without catching)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def on_start(self, span, parent_context=None) -> None:
        if self.where == "start" or (self.where == "tool-start" and span.name.startswith("execute_tool")):
            raise RuntimeError("processor broke on start")

    def on_end(self, span) -> None:
        if self.where == "end":
            raise RuntimeError("processor broke on end")


class BrokenProvider:
    def get_tracer(self, *args, **kwargs):
        raise RuntimeError("no tracer today")


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two numbers. Use it for sums."""
    return a + b


@pytest.mark.parametrize("where", ["start", "tool-start", "end", "get_tracer"])
def test_a_tracing_setup_that_raises_never_stops_the_run(where, caplog) -> None:
    """A span processor (or provider) that raised crashed the run with its own exception: the
    tool results and the answer were lost, because of the trace."""
    exporter = InMemorySpanExporter()
    if where == "get_tracer":
        provider = BrokenProvider()
    else:
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))  # called before the one that raises
        provider.add_span_processor(Raising(where))
    model = ScriptedModel(responses=[[call("add", {"a": 1, "b": 2}), call("add", {"a": 3, "b": 4})], "3 and 7"])
    with caplog.at_level(logging.WARNING, logger="toolwire.tracing"):
        result = toolwire.run_sync(model, "sums", tools=[add], tracing=toolwire.tracing.Tracing(provider))
    assert result.text == "3 and 7"
    assert [r.result.text for r in result.tool_runs] == ["3", "7"]
    warnings = [r for r in caplog.records if r.name == "toolwire.tracing"]
    assert len(warnings) == 1  # once per run, however often the tracer fails
    assert "tracing failed" in warnings[0].getMessage() and "the run goes on" in warnings[0].getMessage()
    if where == "end":  # every span was still ended, and exported by the processor before the broken one
        names = sorted(s.name for s in exporter.get_finished_spans())
        assert names == sorted(
            ["invoke_agent", "chat scripted", "chat scripted", "execute_tool add", "execute_tool add"]
        )
