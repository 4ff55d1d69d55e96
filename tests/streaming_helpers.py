"""Shared pieces of the streaming, stop and approval tests: a model that streams slowly (or waits
on a gate), tools that count their runs, and an independent fold of run events."""

from __future__ import annotations

import asyncio
import copy
from typing import Any, AsyncIterator

from toolwire import Message, Response, TextPart, ToolCall, Usage
from toolwire.adapter import Model, ModelRequest
from toolwire.stream import (
    ResponseStart,
    StopEvent,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)


class GatedModel(Model):
    """Answers from ``script`` (a list of Response objects); before answering request ``k``
    (1-based) it waits for ``gates[k]`` when one is given, and signals ``entered[k]``.

    With ``stream=True`` it streams: text in chunks of ``chunk`` characters, each after
    ``delay`` seconds; a gate named ``(k, "mid")`` is awaited after the first text chunk.
    """

    provider = "scripted"

    def __init__(
        self,
        script: list[Response],
        *,
        stream: bool = False,
        chunk: int = 3,
        delay: float = 0.0,
        gates: dict[Any, asyncio.Event] | None = None,
    ) -> None:
        super().__init__("scripted", stream=stream)
        self.script = list(script)
        self.chunk = chunk
        self.delay = delay
        self.gates = gates or {}
        self.entered: dict[Any, asyncio.Event] = {}
        self.requests: list[ModelRequest] = []

    def _signal(self, key: Any) -> None:
        self.entered.setdefault(key, asyncio.Event()).set()

    async def wait_entered(self, key: Any) -> None:
        ev = self.entered.setdefault(key, asyncio.Event())
        await ev.wait()

    async def _next(self, request: ModelRequest) -> Response:
        self.requests.append(request)
        k = len(self.requests)
        self._signal(k)
        gate = self.gates.get(k)
        if gate is not None:
            await gate.wait()
        if not self.script:
            raise AssertionError(f"no scripted response left for request {k}")
        resp = copy.deepcopy(self.script.pop(0))
        resp.response_id = resp.response_id or f"r{k}"
        resp.provider = "scripted"
        resp.model = "scripted"
        if resp.usage.requests == 0:
            resp.usage.requests = 1
        return resp

    async def send(self, request: ModelRequest) -> Response:
        return await self._next(request)

    async def send_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        resp = await self._next(request)
        k = len(self.requests)
        yield ResponseStart(resp.response_id, resp.model)
        first = True
        for i, part in enumerate(resp.parts):
            if isinstance(part, TextPart):
                for at in range(0, max(len(part.text), 1), self.chunk):
                    if self.delay:
                        await asyncio.sleep(self.delay)
                    yield TextDelta(i, part.text[at : at + self.chunk])
                    if first:
                        first = False
                        self._signal((k, "mid"))
                        gate = self.gates.get((k, "mid"))
                        if gate is not None:
                            await gate.wait()
            elif isinstance(part, ToolCall):
                yield ToolCallStart(i, part.id, part.name)
                raw = part.raw_arguments or ""
                for at in range(0, len(raw), self.chunk):
                    yield ToolCallDelta(i, raw[at : at + self.chunk])
                yield ToolCallEnd(i)
        yield UsageUpdate(resp.usage)
        yield StopEvent(resp.stop_reason, resp.vendor_stop_reason)


def text(t: str, usage: tuple[int, int] = (10, 5)) -> Response:
    return Response(
        [TextPart(t)], "end_turn", "end_turn", Usage(input_tokens=usage[0], output_tokens=usage[1], requests=1)
    )


def calls(*specs: tuple[str, str, dict[str, Any]], say: str = "") -> Response:
    import json

    parts: list[Any] = [TextPart(say)] if say else []
    for cid, name, args in specs:
        parts.append(ToolCall(cid, name, dict(args), raw_arguments=json.dumps(args)))
    return Response(parts, "tool_use", "tool_use", Usage(input_tokens=20, output_tokens=8, requests=1))


def conversation_shape(messages: list[Message]) -> list[Any]:
    """A readable form of a conversation for exact comparisons."""
    out: list[Any] = []
    for m in messages:
        items: list[Any] = []
        for p in m.parts:
            t = getattr(p, "type", None)
            if t == "text":
                items.append(("text", p.text))
            elif t == "tool_call":
                items.append(("call", p.id, p.name, p.arguments))
            elif t == "tool_result":
                items.append(("result", p.tool_call_id, p.text, p.is_error))
            else:
                items.append((t,))
        out.append((m.role, items))
    return out


def fold(events: list[Any]) -> dict[str, Any]:
    """Rebuild what a run produced from its events alone, without the RunResult: per-turn text
    (deltas joined), tool calls (ToolCallReady), tool runs (ToolFinished, last one per call id
    wins), usage per turn (TurnFinished) and the final text."""
    from toolwire import events as ev

    turns: dict[int, dict[str, Any]] = {}
    for e in events:
        turn = getattr(e, "turn", None)
        if isinstance(turn, int):
            t = turns.setdefault(
                turn, {"text": {}, "reasoning": {}, "calls": [], "runs": {}, "usage": None, "stop": None}
            )
        if isinstance(e, ev.TextDelta):
            t["text"][e.index] = t["text"].get(e.index, "") + e.text
        elif isinstance(e, ev.ReasoningDelta):
            t["reasoning"][e.index] = t["reasoning"].get(e.index, "") + e.text
        elif isinstance(e, ev.ToolCallReady):
            t["calls"].append((e.call.id, e.call.name, e.call.arguments, e.error is None))
        elif isinstance(e, ev.ToolFinished):
            t["runs"][e.run.call.id] = (e.run.result.text, e.run.result.is_error, e.run.status)
        elif isinstance(e, ev.TurnFinished):
            t["usage"] = (e.usage.input_tokens, e.usage.output_tokens)
            t["stop"] = e.response.stop_reason
    return {
        n: {
            "text": "".join(v for _, v in sorted(t["text"].items())),
            "reasoning": "".join(v for _, v in sorted(t["reasoning"].items())),
            "calls": t["calls"],
            "runs": t["runs"],
            "usage": t["usage"],
            "stop": t["stop"],
        }
        for n, t in sorted(turns.items())
    }


def fold_of_result(result: Any) -> dict[str, Any]:
    """The same view built from a RunResult (what ``fold`` must equal)."""
    out: dict[int, dict[str, Any]] = {}
    for t in result.turns:
        out[t.number] = {
            "text": t.response.text,
            "reasoning": "".join(p.text for p in t.response.parts if getattr(p, "type", None) == "reasoning"),
            "calls": [(c.id, c.name, c.arguments, None) for c in t.response.tool_calls],
            "runs": {r.call.id: (r.result.text, r.result.is_error, r.status) for r in t.tool_runs},
            "usage": (t.usage.input_tokens, t.usage.output_tokens),
            "stop": t.response.stop_reason,
        }
    return out


def same_fold(events_view: dict[str, Any], result_view: dict[str, Any]) -> None:
    assert events_view.keys() == result_view.keys()
    for n in events_view:
        e, r = events_view[n], result_view[n]
        assert e["text"] == r["text"], n
        assert e["reasoning"] == r["reasoning"], n
        assert [c[:3] for c in e["calls"]] == [c[:3] for c in r["calls"]], n
        assert e["runs"] == r["runs"], n
        assert e["usage"] == r["usage"], n
        assert e["stop"] == r["stop"], n
