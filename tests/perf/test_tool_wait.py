"""``run_sync`` waits for a lone synchronous tool's worker thread on its own loop.

A run of ``run_sync`` is the only thing its thread's own event loop runs, so the loop may block
for up to ``toolwire._sync.WAIT_FOR_TOOL`` seconds on the worker's outcome instead of being woken
from the worker thread. These tests check the outcome is the same on every path (handed over
within the wait, or after it through the loop), that only ``run_sync``'s own loops wait, that a
tool's timeout still counts from the start of the call, and that parallel calls still overlap.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any

import pytest

import toolwire
from toolwire import _sync
from toolwire import tools as tools_mod
from toolwire.testing import ScriptedModel, call
from toolwire.tools import start_in_daemon_thread


def _spy_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the ``wait`` of every worker-thread start (0 for a start that does not wait)."""
    seen: list[float] = []
    real = tools_mod._start_and_wait

    def spy(loop: Any, future: Any, target: Any, thread_name: str, wait: float) -> Any:
        seen.append(wait)
        return real(loop, future, target, thread_name, wait)

    monkeypatch.setattr(tools_mod, "_start_and_wait", spy)
    return seen


def _drain_own_loop() -> None:
    """Run the callbacks an earlier test's abandoned call left on this thread's own loop (a late
    outcome is delivered to the idle loop): a ready callback makes the next call skip the wait."""
    _sync.run_coroutine(asyncio.sleep(0.01))


def _script(n: int = 1) -> list[Any]:
    return [[call("where", {"n": i}, id=f"c{i}")] for i in range(n)] + ["done"]


def _where_tool() -> tuple[Any, list[int]]:
    threads: list[int] = []

    @toolwire.tool
    def where(n: int) -> str:
        """Say which thread runs this call."""
        threads.append(threading.get_ident())
        return f"call {n}"

    return where, threads


def test_run_sync_waits_on_its_own_loop_and_the_tool_still_runs_in_a_worker_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _drain_own_loop()
    waits = _spy_waits(monkeypatch)
    where, threads = _where_tool()
    r = toolwire.run_sync(ScriptedModel(responses=_script(3)), "go", tools=[where], max_turns=5)
    assert r.text == "done"
    assert [t.result.text for t in r.tool_runs] == ["call 0", "call 1", "call 2"]
    assert not any(t.result.is_error for t in r.tool_runs)
    assert waits == [_sync.WAIT_FOR_TOOL] * 3
    assert threads and threading.get_ident() not in threads  # never on the caller's thread


def test_await_run_in_the_callers_loop_never_blocks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    waits = _spy_waits(monkeypatch)
    where, _ = _where_tool()
    r = asyncio.run(toolwire.run(ScriptedModel(responses=_script(2)), "go", tools=[where], max_turns=5))
    assert [t.result.text for t in r.tool_runs] == ["call 0", "call 1"]
    assert waits == []  # a loop the caller owns: the outcome comes through the loop


def test_run_sync_inside_a_running_loop_goes_to_the_shared_loop_thread_which_does_not_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits = _spy_waits(monkeypatch)
    where, _ = _where_tool()

    async def inside() -> Any:  # run_sync called from async code: the shared toolwire-sync loop runs it
        return toolwire.run_sync(ScriptedModel(responses=_script(1)), "go", tools=[where], max_turns=5)

    r = asyncio.run(inside())
    assert [t.result.text for t in r.tool_runs] == ["call 0"]
    assert waits == []  # that loop serves every such caller: it never blocks


def test_a_tool_slower_than_the_wait_is_answered_through_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 0.001)

    @toolwire.tool
    def slow(n: int) -> str:
        """Answer after a while."""
        time.sleep(0.05)
        return f"slow {n}"

    script = [[call("slow", {"n": 1}, id="a")], [call("slow", {"n": 2}, id="b")], "done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[slow], max_turns=5)
    assert [t.result.text for t in r.tool_runs] == ["slow 1", "slow 2"]
    assert not any(t.result.is_error for t in r.tool_runs)


@pytest.mark.parametrize("pause", [0.0, 0.05])
@pytest.mark.parametrize(
    ("raised", "text"),
    [
        (ValueError("bad city"), "ValueError: bad city"),
        (StopIteration("x"), "RuntimeError: StopIteration: x"),
        (SystemExit(3), "SystemExit"),
    ],
)
def test_what_the_tool_raises_is_its_error_result_within_the_wait_or_after_it(
    monkeypatch: pytest.MonkeyPatch, raised: BaseException, text: str, pause: float
) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 0.01)

    @toolwire.tool
    def boom() -> str:
        """Fail."""
        time.sleep(pause)  # 0: raised within the wait; 0.05: after it
        raise raised

    r = toolwire.run_sync(
        ScriptedModel(responses=[[call("boom", {}, id="x")], "done"]), "go", tools=[boom], max_turns=3
    )
    (run,) = r.tool_runs
    assert run.result.is_error
    assert text in run.result.text


def test_keyboard_interrupt_in_the_tool_within_the_wait_stops_run_sync() -> None:
    @toolwire.tool
    def interrupt() -> str:
        """Stop."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        toolwire.run_sync(
            ScriptedModel(responses=[[call("interrupt", {}, id="x")], "done"]), "go", tools=[interrupt], max_turns=3
        )


def _run_a_stuck_tool(timeout: float) -> tuple[Any, float]:
    """``run_sync`` of one call to a tool that hangs past ``timeout``: its run and the seconds taken."""
    release = threading.Event()

    @toolwire.tool(timeout=timeout)
    def stuck() -> str:
        """Hang."""
        release.wait(10)
        return "late"

    try:
        start = time.monotonic()
        r = toolwire.run_sync(
            ScriptedModel(responses=[[call("stuck", {}, id="x")], "done"]), "go", tools=[stuck], max_turns=3
        )
        took = time.monotonic() - start
    finally:
        release.set()
    (run,) = r.tool_runs
    return run, took


def test_a_timeout_shorter_than_the_wait_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 5.0)
    waits = _spy_waits(monkeypatch)
    run, took = _run_a_stuck_tool(0.05)
    assert run.result.is_error and "timed out after 0.05 seconds" in run.result.text
    assert waits == []  # the 5-second wait would outlast the 0.05-second timeout: not used
    assert took < 4.0  # (the run did not sit out the wait: the timeout ended the call)


def test_a_timeout_longer_than_the_wait_counts_from_the_start_of_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 0.2)
    _drain_own_loop()
    waits = _spy_waits(monkeypatch)
    run, took = _run_a_stuck_tool(0.3)
    assert waits == [0.2]
    assert run.result.is_error and "timed out after 0.3 seconds" in run.result.text
    # the timer got what was left of the 0.3 s after the 0.2 s wait, not 0.3 s more
    assert took < 0.48, took


def test_parallel_calls_in_one_turn_still_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 5.0)
    waits = _spy_waits(monkeypatch)
    meet = threading.Barrier(3, timeout=3)

    @toolwire.tool
    def together(n: int) -> str:
        """Wait for the other calls of the turn."""
        meet.wait()  # breaks (an error result) unless all three calls run at once
        return f"met {n}"

    calls = [call("together", {"n": i}, id=f"c{i}") for i in range(3)]
    r = toolwire.run_sync(ScriptedModel(responses=[calls, "done"]), "go", tools=[together], max_turns=3)
    assert [t.result.text for t in r.tool_runs] == ["met 0", "met 1", "met 2"]
    assert waits == []  # only a lone call waits on the loop


def test_every_outcome_is_delivered_once_whichever_side_wins_the_race() -> None:
    """Outcomes arriving just before, at and just after the end of the wait: each call gets its
    own value, exactly once, and a late one still settles the future through the loop."""
    rng = random.Random(7)

    def job(i: int, busy: float) -> int:
        end = time.perf_counter() + busy  # a busy wait: finer than time.sleep
        while time.perf_counter() < end:
            pass
        if i % 7 == 0:
            raise ValueError(i)
        return i * 3

    async def main() -> list[Any]:
        out: list[Any] = []
        for i in range(3000):
            wait = rng.choice([0.00002, 0.00005, 0.0001])
            busy = wait * rng.uniform(0.0, 2.0)  # around the end of the wait
            future = start_in_daemon_thread(job, {"i": i, "busy": busy}, "race", wait)
            try:
                out.append(await asyncio.wait_for(future, 5))
            except ValueError as exc:
                out.append(("raised", exc.args[0]))
        return out

    got = asyncio.run(main())
    assert got == [("raised", i) if i % 7 == 0 else i * 3 for i in range(3000)]


# -- the loop still serves whatever else runs on it ----------------------------------------------


def test_a_sync_tool_calling_back_into_the_runs_loop_is_not_held_up_by_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sync tool that schedules a coroutine on the run's own loop (an async client an earlier
    async tool made there) and waits for it: the blocked loop notices the callback and stops
    waiting, instead of sitting out the whole wait."""
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 1.0)
    box: dict[str, Any] = {}

    @toolwire.tool
    async def connect() -> str:
        """Open the connection."""
        box["loop"] = asyncio.get_running_loop()
        return "connected"

    async def query(k: int) -> str:
        return f"value {k}"

    @toolwire.tool
    def fetch(k: int) -> str:
        """Fetch one value through the connection."""
        return asyncio.run_coroutine_threadsafe(query(k), box["loop"]).result(timeout=0.3)

    script = [[call("connect", {}, id="s")]] + [[call("fetch", {"k": i}, id=f"c{i}")] for i in range(3)] + ["done"]
    r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[connect, fetch], max_turns=6)
    assert [(t.result.text, t.result.is_error) for t in r.tool_runs[1:]] == [
        ("value 0", False),
        ("value 1", False),
        ("value 2", False),
    ]


def test_runs_inside_an_async_tool_never_block_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs an async tool starts on run_sync's loop (``await toolwire.run(...)``, e.g. gathered
    sub-agents) are not the run run_sync drives: their lone sync calls do not wait."""
    waits = _spy_waits(monkeypatch)
    where, _ = _where_tool()

    @toolwire.tool
    async def fan_out() -> str:
        """Ask three helpers at once."""
        runs = await asyncio.gather(
            *(toolwire.run(ScriptedModel(responses=_script(2)), "go", tools=[where], max_turns=5) for _ in range(3))
        )
        return ",".join(r.text for r in runs)

    r = toolwire.run_sync(ScriptedModel(responses=[[call("fan_out", {}, id="f")], "done"]), "go", tools=[fan_out])
    assert r.tool_runs[0].result.text == "done,done,done"
    assert waits == []


def test_a_background_task_on_the_loop_keeps_running_between_tool_calls() -> None:
    ticks = [0]
    seen: list[int] = []
    keep: list[Any] = []

    async def ticker() -> None:
        while True:
            ticks[0] += 1
            await asyncio.sleep(0.001)

    @toolwire.tool
    async def start() -> str:
        """Start the background task."""
        keep.append(asyncio.get_running_loop().create_task(ticker()))
        return "started"

    @toolwire.tool
    def work(n: int) -> str:
        """Work a little."""
        time.sleep(0.002)
        seen.append(ticks[0])
        return f"worked {n}"

    script = [[call("start", {}, id="s")]] + [[call("work", {"n": i}, id=f"c{i}")] for i in range(30)] + ["done"]

    async def stop() -> None:
        for task in keep:
            task.cancel()
        await asyncio.gather(*keep, return_exceptions=True)

    try:
        r = toolwire.run_sync(ScriptedModel(responses=script), "go", tools=[start, work], max_turns=40)
    finally:
        _sync.run_coroutine(stop())  # on the same loop (this thread's own)
    assert r.text == "done"
    # 30 calls of 2 ms: the 1 ms ticker ran throughout (it got no turn at all when each handed-over
    # result went straight on without giving the loop one)
    assert seen[-1] - seen[0] >= 15, seen


def test_ctrl_c_stops_a_run_whose_tool_calls_finish_within_the_wait() -> None:
    import _thread
    import signal

    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        pytest.skip("needs the default SIGINT handler in the main thread")
    ran: list[int] = []

    @toolwire.tool
    def fast(n: int) -> str:
        """Answer at once."""
        ran.append(n)
        if n == 5:
            _thread.interrupt_main()  # Ctrl-C while the run goes on
        return f"r{n}"

    def respond(request: Any, counter: list[int] = [0]) -> Any:  # noqa: B006 - the script's position
        counter[0] += 1
        return [call("fast", {"n": counter[0]}, id=f"c{counter[0]}")] if counter[0] <= 500 else "done"

    with pytest.raises(KeyboardInterrupt):
        toolwire.run_sync(ScriptedModel(respond=respond), "go", tools=[fast], max_turns=600)
    assert 5 <= len(ran) <= 7, len(ran)  # not all 500: the cancellation took effect at once
    assert toolwire.run_sync(ScriptedModel(responses=["still works"]), "go").text == "still works"


@pytest.mark.parametrize("pause", [0.0, 0.05])
def test_generator_exit_from_a_tool_is_its_error_result_on_every_path(
    monkeypatch: pytest.MonkeyPatch, pause: float
) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", 0.01)

    @toolwire.tool
    def closing() -> str:
        """Fail oddly."""
        time.sleep(pause)
        raise GeneratorExit("g")

    def script() -> ScriptedModel:
        return ScriptedModel(responses=[[call("closing", {}, id="x")], "done"])

    for r in (
        toolwire.run_sync(script(), "go", tools=[closing], max_turns=3),
        asyncio.run(toolwire.run(script(), "go", tools=[closing], max_turns=3)),
    ):
        assert r.text == "done"
        (run,) = r.tool_runs
        assert (run.result.text, run.result.is_error) == ("RuntimeError: GeneratorExit: g", True)


@pytest.mark.parametrize("setting", [float("inf"), 1e10, float("nan"), -1.0, 0.0])
def test_any_wait_setting_leaves_results_intact(monkeypatch: pytest.MonkeyPatch, setting: float) -> None:
    monkeypatch.setattr(_sync, "WAIT_FOR_TOOL", setting)
    where, _ = _where_tool()
    r = toolwire.run_sync(ScriptedModel(responses=_script(2)), "go", tools=[where], max_turns=5)
    assert [t.result.text for t in r.tool_runs] == ["call 0", "call 1"]


def test_a_threads_own_loop_is_still_closed_when_the_thread_ends_and_holds_no_run() -> None:
    import gc

    seen: list[Any] = []

    def go() -> None:
        where, _ = _where_tool()
        toolwire.run_sync(ScriptedModel(responses=_script(1)), "go", tools=[where], max_turns=3)
        tl = _sync._thread_loop()
        seen.append((tl.loop, tl.task))

    for _ in range(5):
        t = threading.Thread(target=go)
        t.start()
        t.join()
    gc.collect()
    assert len(seen) == 5
    assert all(loop.is_closed() for loop, _ in seen)  # closed as each thread ended
    assert all(task is None for _, task in seen)  # the run's task is let go when run_sync returns
