"""The worker threads of synchronous tool calls: a call made right after the previous one
returned takes that (now idle) thread, never a new one; a call still running (e.g. past its
timeout) keeps only its own thread; parallel calls each get one."""

from __future__ import annotations

import asyncio
import threading

import pytest

import toolwire
from toolwire import tools as tools_mod
from toolwire.testing import ScriptedModel, call
from toolwire.tools import _DaemonWorkers, start_in_daemon_thread


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> _DaemonWorkers:
    """A pool of its own (no idle thread left over from other tests)."""
    workers = _DaemonWorkers()
    monkeypatch.setattr(tools_mod, "_workers", workers)
    return workers


def test_calls_one_after_another_all_run_in_one_reused_thread(pool: _DaemonWorkers) -> None:
    async def main() -> list[int]:
        return [await start_in_daemon_thread(threading.get_ident, {}) for _ in range(300)]

    idents = asyncio.run(main())
    # each call found the thread of the call before idle: it counts itself idle before the
    # outcome wakes the caller, so the next call never starts a thread of its own
    assert len(set(idents)) == 1
    assert idents[0] != threading.get_ident()
    assert pool._idle == 1


def test_a_run_of_many_turns_runs_every_sync_call_in_the_same_thread(pool: _DaemonWorkers) -> None:
    seen: list[int] = []

    @toolwire.tool
    def where(n: int) -> str:
        """Say which thread runs this call."""
        seen.append(threading.get_ident())
        return str(n)

    script = [[call("where", {"n": i}, id=f"c{i}")] for i in range(25)] + ["done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[where], max_turns=30)
    assert r.text == "done"
    assert [t.result.text for t in r.tool_runs] == [str(i) for i in range(25)]
    assert len(seen) == 25 and len(set(seen)) == 1


def test_a_call_still_running_keeps_its_thread_and_the_next_calls_share_another(pool: _DaemonWorkers) -> None:
    release = threading.Event()
    stuck_ident: list[int] = []

    def stuck() -> str:
        stuck_ident.append(threading.get_ident())
        release.wait(120)
        return "late"

    async def main() -> tuple[str, list[int]]:
        slow = start_in_daemon_thread(stuck, {})
        try:
            await asyncio.wait_for(asyncio.shield(slow), 0.05)
            outcome = "finished"  # pragma: no cover - the call blocks until released
        except TimeoutError:
            outcome = "timed out"
        quick = [await start_in_daemon_thread(threading.get_ident, {}) for _ in range(50)]
        release.set()
        assert await slow == "late"
        return outcome, quick

    try:
        outcome, quick = asyncio.run(main())
    finally:
        release.set()
    assert outcome == "timed out"
    assert len(set(quick)) == 1  # one thread for the quick calls ...
    assert stuck_ident and quick[0] != stuck_ident[0]  # ... not the one still blocked


def test_parallel_calls_each_get_a_thread_and_all_are_answered(pool: _DaemonWorkers) -> None:
    barrier = threading.Barrier(4, timeout=60)  # only passes when four calls run at once

    def meet(n: int) -> int:
        barrier.wait()
        return n

    async def main() -> list[list[int]]:
        rounds = []
        for _ in range(5):  # idle threads from the round before are reused, none is lost
            rounds.append(list(await asyncio.gather(*(start_in_daemon_thread(meet, {"n": n}) for n in range(4)))))
        return rounds

    assert asyncio.run(main()) == [[0, 1, 2, 3]] * 5
    assert pool._idle == 4


def test_what_the_function_raises_reaches_the_awaiting_call(pool: _DaemonWorkers) -> None:
    def boom() -> None:
        raise ValueError("no")

    def stop() -> None:
        raise StopIteration

    async def main() -> tuple[BaseException, BaseException]:
        with pytest.raises(ValueError, match="^no$") as first:
            await start_in_daemon_thread(boom, {})
        with pytest.raises(RuntimeError, match="^StopIteration$") as second:
            await start_in_daemon_thread(stop, {})
        return first.value, second.value

    asyncio.run(main())
    assert pool._idle == 1  # the same thread ran both
