"""Events equal the result on every streamed recording: each conversation of each streamed
cassette is replayed twice through the real SDKs and adapters — once by ``run()``, once by
``run_stream()`` — and (1) the events, folded on their own, give the turns, texts, tool calls,
tool results and usage of the RunResult; (2) the RunResult in ``RunFinished`` equals the one
``run()`` returned (durations and run id aside); (3) the text really arrived in pieces."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire.loop
from toolwire import events as ev
from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.testing.replay import replay_file

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import fold, fold_of_result, same_fold

ROOT = recordings_dir()
STREAMED = sorted(p for p in ROOT.glob("*/*.yaml") if any(i.stream_format for i in load_cassette(p))) if ROOT else []
needs_recordings = pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")


def _comparable(result: Any) -> dict[str, Any]:
    d = result.to_dict()
    d.pop("run_id")
    for t in d["turns"]:
        for r in t["tool_runs"]:
            r["duration"] = 0.0
    return d


def _replay(path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool) -> tuple[Any, list[tuple[list[Any], Any]]]:
    runs: list[tuple[list[Any], Any]] = []
    original = toolwire.loop.run

    async def by_run(model: Any, prompt: Any = None, **kwargs: Any) -> Any:
        try:
            result = await original(model, prompt, **kwargs)
        except toolwire.RunLimitExceeded as exc:
            runs.append(([], exc.result))
            raise
        runs.append(([], result))
        return result

    async def by_stream(model: Any, prompt: Any = None, **kwargs: Any) -> Any:
        stream = toolwire.loop.run_stream(model, prompt, **kwargs)
        events = [e async for e in stream]
        runs.append((events, events[-1].result))
        if events[-1].error is not None:
            raise events[-1].error
        return events[-1].result

    monkeypatch.setattr(toolwire.loop, "run", by_stream if streamed else by_run)
    report = asyncio.run(replay_file(path))
    monkeypatch.setattr(toolwire.loop, "run", original)
    return report, runs


@needs_recordings
@pytest.mark.parametrize("path", STREAMED, ids=[f"{p.parent.name}/{p.name}" for p in STREAMED])
def test_events_give_the_run_result_on_every_streamed_recording(path: Path, monkeypatch: pytest.MonkeyPatch):
    plain_report, plain = _replay(path, monkeypatch, streamed=False)
    report, streamed = _replay(path, monkeypatch, streamed=True)
    assert report.errors == plain_report.errors == []
    assert report.ok, report.to_dict()
    assert len(streamed) == len(plain) >= 1
    pieces = 0
    for (events, result), (_, expected) in zip(streamed, plain):
        assert isinstance(events[0], ev.RunStarted) and isinstance(events[-1], ev.RunFinished)
        same_fold(fold(events), fold_of_result(result))
        assert _comparable(result) == _comparable(expected)
        for t in result.turns:
            deltas = [e for e in events if isinstance(e, ev.TextDelta) and e.turn == t.number]
            if t.response.text:
                pieces = max(pieces, len(deltas))
    assert len(STREAMED) >= 10
    if any(t.response.text for _, r in streamed for t in r.turns if len(t.response.text) > 40):
        assert pieces > 1  # the text of a streamed recording arrived as several deltas
