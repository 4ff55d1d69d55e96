"""Two ``toolwire experiment run`` processes on one run store: every run is done by exactly one of
them (real processes, one real SQLite file, a scripted model; each tool call appends a line to a
file, so the executions are counted outside the store), a run held by a live process is left to
it, a run whose process died is taken over at once, and the exit codes say so."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolwire.store import RunStore

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and process checks of POSIX")

LAYER = '''
import os, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOG = HERE / "executions.log"


def _wait(ready, timeout=40.0):
    end = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > end:
            raise TimeoutError("waited too long")
        time.sleep(0.02)


def _pids():
    return {line.split()[2] for line in LOG.read_text().splitlines()} if LOG.exists() else set()


def tools(root):
    index, attempt = root.name.split("-")

    def work(step: int) -> str:
        """Do one step of the task; returns what was done."""
        with open(LOG, "a") as fh:
            fh.write(f"{index} {attempt} {os.getpid()} {step}\\n")
        if step == 0:
            if (HERE / "barrier").exists():  # until two processes run runs: they overlap
                _wait(lambda: len(_pids()) >= 2)
            if (HERE / f"hold-{index}").exists():  # until the test lets this run go on
                _wait(lambda: (HERE / f"release-{index}").exists())
        time.sleep(0.2)
        return f"step {step} of run {index} done"

    return [work]
'''

AGENT = """
from toolwire.testing.providers import ScriptedModel, call


def model(run):
    def respond(request):
        done = sum(1 for m in request.messages if m.role == "assistant")
        usage = {"input_tokens": 100 + 10 * done, "output_tokens": 10}
        if done < 2:
            return {"text": f"step {done}", "tool_calls": [call("work", {"step": done})], "usage": usage}
        return {"text": "both steps done", "usage": usage}

    return ScriptedModel("claude-sonnet-4-5", respond=respond)
"""

SPEC = """
name = "shared"
runs = {runs}
concurrency = {concurrency}
store = "shared.sqlite"
models = [{{ model = "scripted:claude-sonnet-4-5", factory = "agent:model" }}]
[task]
prompt = "Do the two steps."
project = "proj"
checker = ["{{python}}", "-c", "pass"]
[layers]
counted = "count_layer:tools"
"""


def setup(tmp: Path, runs: int, concurrency: int) -> Path:
    (tmp / "proj").mkdir()
    (tmp / "proj" / "README").write_text("a project\n")
    (tmp / "count_layer.py").write_text(LAYER)
    (tmp / "agent.py").write_text(AGENT)
    spec = tmp / "shared.toml"
    spec.write_text(SPEC.format(runs=runs, concurrency=concurrency))
    return spec


STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def no_process_left():
    """Every process a test started is gone after it, whatever the test's outcome."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def start(spec: Path, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "experiment", "run", str(spec), "--quiet", *extra],
        cwd=spec.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    STARTED.append(proc)
    return proc


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    out, err = proc.communicate(timeout=90)
    return proc.returncode, " ".join((out + err).split())


def finish_together(*procs: subprocess.Popen, timeout: float = 90) -> list[tuple[int, str]]:
    """``finish`` for processes that run together: a process that exits with an error (not 0 or
    75) while another still runs fails the test at once with its output, instead of the others
    waiting out the barrier (40 s per run) for it and the test timing out without saying why."""
    end = time.monotonic() + timeout
    while any(p.poll() is None for p in procs):
        for p in procs:
            if p.poll() not in (None, 0, 75):
                code, text = finish(p)
                pytest.fail(f"pid {p.pid} exited {code} while the other process ran: {text}")
        assert time.monotonic() < end, "waited too long for the processes"
        time.sleep(0.05)
    return [finish(p) for p in procs]


def executions(tmp: Path) -> list[tuple[int, int, int, int]]:
    """The tool calls made, in order: (run index, attempt, pid, step)."""
    log = tmp / "executions.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [tuple(int(x) for x in line.split()) for line in lines]  # type: ignore[misc]


def wait_for(ready, timeout: float = 40.0) -> None:
    end = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < end, "waited too long"
        time.sleep(0.02)


def records(tmp: Path) -> dict[int, tuple[int, str | None]]:
    conn = sqlite3.connect(tmp / "shared.sqlite")
    rows = conn.execute("SELECT run_index, attempt, outcome FROM runs").fetchall()
    conn.close()
    return {i: (a, o) for i, a, o in rows}


def done_now(text: str) -> int:
    return int(re.search(r"(\d+) runs? done now", text).group(1))  # type: ignore[union-attr]


def test_two_processes_started_together_do_every_run_exactly_once(tmp_path):
    spec = setup(tmp_path, runs=6, concurrency=2)
    (tmp_path / "barrier").touch()  # the first runs wait until both processes run runs
    a, b = start(spec), start(spec)
    (code_a, text_a), (code_b, text_b) = finish_together(a, b)
    calls = executions(tmp_path)
    # every run: its two steps, once, by one process, as its first attempt
    for index in range(6):
        mine = [(attempt, pid, step) for i, attempt, pid, step in calls if i == index]
        assert sorted(step for _, _, step in mine) == [0, 1], (index, calls)
        assert {attempt for attempt, _, _ in mine} == {1} and len({pid for _, pid, _ in mine}) == 1
    assert {pid for _, _, pid, _ in calls} == {a.pid, b.pid}
    assert records(tmp_path) == {i: (1, "pass") for i in range(6)}
    assert done_now(text_a) + done_now(text_b) == 6
    with RunStore(tmp_path / "shared.sqlite") as db:
        assert db.leases() == {}  # every claim dropped when its run finished
    # each one says what it left to the other; 75 when the other still ran some of them
    for code, text, other in ((code_a, text_a, b), (code_b, text_b, a)):
        assert code in (0, 75), text
        if f"left to another process (pid {other.pid} on host" in text:
            assert code == 0 if "all finished there" in text else code == 75
        else:
            assert code == 0 and "left to" not in text


def test_a_run_held_by_a_live_process_is_left_to_it_and_waited_for(tmp_path):
    spec = setup(tmp_path, runs=3, concurrency=1)
    (tmp_path / "hold-0").touch()
    a = start(spec)
    wait_for(lambda: (0, 1, a.pid, 0) in executions(tmp_path))  # a holds run 0, and waits
    b = start(spec, "--wait")
    wait_for(lambda: records(tmp_path).get(2) == (1, "pass") and records(tmp_path).get(1) == (1, "pass"))
    # a third process finds nothing to do but what a holds: it leaves it, and says it is not done
    code_c, text_c = finish(start(spec))
    assert code_c == 75, text_c
    assert f"1 run left to another process (pid {a.pid} on host" in text_c and ": still running" in text_c
    assert "0 runs done now, 2 finished before" in text_c
    assert b.poll() is None  # b waits for a
    (tmp_path / "release-0").touch()
    (code_a, text_a), (code_b, text_b) = finish(a), finish(b)
    assert (code_a, code_b) == (0, 0), (text_a, text_b)
    assert "1 runs done now" in text_a or "1 run done now" in text_a
    assert "2 runs left to another process: all finished there" in text_a  # b did them meanwhile
    assert "2 runs done now" in text_b
    assert f"1 run left to another process (pid {a.pid} on host" in text_b and "all finished there" in text_b
    assert sorted((i, attempt, pid) for i, attempt, pid, step in executions(tmp_path) if step == 0) == sorted(
        [(0, 1, a.pid), (1, 1, b.pid), (2, 1, b.pid)]
    )
    assert len(executions(tmp_path)) == 6
    assert records(tmp_path) == {0: (1, "pass"), 1: (1, "pass"), 2: (1, "pass")}


def test_a_run_whose_process_was_killed_is_taken_over_at_once(tmp_path):
    spec = setup(tmp_path, runs=2, concurrency=1)
    (tmp_path / "hold-0").touch()
    a = start(spec)
    wait_for(lambda: (0, 1, a.pid, 0) in executions(tmp_path))
    os.kill(a.pid, signal.SIGKILL)
    a.communicate(timeout=30)
    with RunStore(tmp_path / "shared.sqlite") as db:
        assert db.lease("shared/counted/scripted:claude-sonnet-4-5/0").pid == a.pid  # left behind
    (tmp_path / "hold-0").unlink()
    started = time.monotonic()
    code, text = finish(start(spec))
    assert code == 0, text
    assert time.monotonic() - started < 60  # not the stale limit of another machine's claim (180 s)
    assert "2 runs done now, 0 finished before" in text and "left to" not in text
    b_pid = executions(tmp_path)[-1][2]
    assert [c for c in executions(tmp_path) if c[0] == 0] == [(0, 1, a.pid, 0), (0, 2, b_pid, 0), (0, 2, b_pid, 1)]
    assert records(tmp_path) == {0: (2, "pass"), 1: (1, "pass")}


# -- in this process: a claim lost mid-run, runs left and taken over, the heartbeat -----------------
@pytest.fixture
def fresh_modules():
    """The spec's modules are imported from each test's folder, not from an earlier test's."""
    for name in ("count_layer", "agent"):
        sys.modules.pop(name, None)
    yield
    for name in ("count_layer", "agent"):
        sys.modules.pop(name, None)


def steal(store: Path, run_id: str, heartbeat: float | None = None) -> None:
    """Another machine's process takes the run's claim (as if this one's had gone stale)."""
    conn = sqlite3.connect(store)
    conn.execute(
        "UPDATE leases SET host='ci-runner-7', pid=4242, token='thief', scope='x', heartbeat=? WHERE run_id=?",
        (time.time() if heartbeat is None else heartbeat, run_id),
    )
    conn.commit()
    conn.close()


def test_a_run_taken_over_mid_run_stops_and_writes_nothing_more(tmp_path, fresh_modules):
    import asyncio

    from toolwire.experiments import run_experiment
    from toolwire.experiments.backends.local import LocalBackend
    from toolwire.store import STALE_AFTER

    spec = setup(tmp_path, runs=1, concurrency=1)
    store = tmp_path / "shared.sqlite"
    run_id = "shared/counted/scripted:claude-sonnet-4-5/0"
    seen: list[int] = []

    class StealAtFirstCheckpoint:
        name = "steal"

        async def run(self, exp, runs, recorder):
            class Watching:
                def claim(self, run):
                    return recorder.claim(run)

                def started(self, run, state):
                    recorder.started(run, state)

                def checkpoint(self, run, state):
                    recorder.checkpoint(run, state)
                    if not seen:
                        seen.append(len(state.tool_runs))
                        steal(store, run_id)

                def finished(self, run, state, record):
                    recorder.finished(run, state, record)

            await LocalBackend(concurrency=1).run(exp, runs, Watching())

    summary = asyncio.run(run_experiment(spec, backend=StealAtFirstCheckpoint()))
    assert summary.records == [] and seen == [1]
    (left,) = summary.left
    assert (left.run.run_id, left.holder.token, left.finished) == (run_id, "thief", False)
    assert summary.running_elsewhere == [left]
    # the run stopped at once: its second step never ran, and the row is the one of the first
    # checkpoint (nothing written after the takeover); the thief's claim stays
    assert executions(tmp_path) == [(0, 1, os.getpid(), 0)]
    with RunStore(store) as db:
        row = db.get(run_id)
        assert (row.status, row.outcome, row.tool_calls, row.attempt) == ("running", None, 1, 1)
        assert db.lease(run_id).token == "thief"
    # another call leaves it to the thief while its heartbeat is fresh ...
    again = asyncio.run(run_experiment(spec))
    assert (again.skipped, again.records, [r.run.run_id for r in again.running_elsewhere]) == (0, [], [run_id])
    # ... and takes it over once the heartbeat is stale
    steal(store, run_id, heartbeat=time.time() - STALE_AFTER - 1)
    last = asyncio.run(run_experiment(spec))
    assert [(r.run.index, r.run.attempt, r.outcome) for r in last.records] == [(0, 2, "pass")] and last.left == []
    assert executions(tmp_path)[1:] == [(0, 2, os.getpid(), 0), (0, 2, os.getpid(), 1)]


def test_the_heartbeat_goes_on_between_checkpoints(tmp_path, fresh_modules):
    import asyncio

    from toolwire.experiments import run_experiment
    from toolwire.experiments.backends.local import LocalBackend

    spec = setup(tmp_path, runs=1, concurrency=1)
    store = tmp_path / "shared.sqlite"
    beats: list[float] = []

    def heartbeat() -> float:
        conn = sqlite3.connect(store)
        (value,) = conn.execute("SELECT heartbeat FROM leases").fetchone()
        conn.close()
        return value

    class SlowCheckpoint:
        name = "slow"

        async def run(self, exp, runs, recorder):
            class Watching:
                def claim(self, run):
                    return recorder.claim(run)

                def started(self, run, state):
                    recorder.started(run, state)

                def checkpoint(self, run, state):
                    recorder.checkpoint(run, state)
                    if not beats:  # a long stretch without a checkpoint (the event loop blocked)
                        beats.append(heartbeat())
                        time.sleep(0.6)
                        beats.append(heartbeat())

                def finished(self, run, state, record):
                    recorder.finished(run, state, record)

            await LocalBackend(concurrency=1).run(exp, runs, Watching())

    summary = asyncio.run(run_experiment(spec, backend=SlowCheckpoint(), heartbeat_interval=0.1))
    assert [r.outcome for r in summary.records] == ["pass"]
    assert beats[1] - beats[0] >= 0.3  # refreshed by the heartbeat thread meanwhile


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"heartbeat_interval": 0}, "heartbeat_interval must be a finite number of seconds > 0, got 0"),
        ({"stale_after": float("nan")}, "stale_after must be a finite number of seconds > 0, got nan"),
        ({"wait_interval": -1}, "wait_interval must be a finite number of seconds > 0, got -1"),
        ({"stale_after": 30}, "stale_after (30 s) must be longer than heartbeat_interval (30 s)"),
    ],
)
def test_intervals_that_cannot_work_are_refused_before_anything_runs(tmp_path, options, words):
    import asyncio

    from toolwire.errors import ConfigurationError
    from toolwire.experiments import run_experiment

    spec = setup(tmp_path, runs=1, concurrency=1)
    with pytest.raises(ConfigurationError) as info:
        asyncio.run(run_experiment(spec, **options))
    assert words in str(info.value)
    assert not (tmp_path / "shared.sqlite").exists()


def test_two_specs_of_one_experiment_started_together_never_mix_their_runs(tmp_path):
    """Another prompt under the same name (two CI jobs on two branches), started at the same
    instant: one of them runs, the other is refused (exit 2); no run of the refused spec is
    recorded, whichever of the two wins."""
    spec_a = setup(tmp_path, runs=4, concurrency=2)
    spec_b = tmp_path / "other.toml"
    spec_b.write_text(spec_a.read_text().replace("Do the two steps.", "Do something else."))
    a, b = start(spec_a), start(spec_b)
    (code_a, text_a), (code_b, text_b) = finish(a), finish(b)
    assert sorted((code_a, code_b)) == [0, 2], (text_a, text_b)
    refused = text_a if code_a == 2 else text_b
    assert "different" in refused and "new name" in refused
    won = "Do the two steps." if code_a == 0 else "Do something else."
    conn = sqlite3.connect(tmp_path / "shared.sqlite")
    states = [state for (state,) in conn.execute("SELECT state FROM runs WHERE experiment='shared'")]
    (spec_json,) = conn.execute("SELECT spec FROM experiments WHERE name='shared'").fetchone()
    conn.close()
    assert len(states) == 4 and all(won in state for state in states)
    assert won in spec_json


def test_the_spec_check_and_the_claims_close_the_window_between_two_specs(tmp_path):
    """The two orders of the race, on one file through two connections: a spec saved after
    another process's first claim is refused; a claim made after another process replaced the
    spec is refused (the window between a process's save and its first claim)."""
    from toolwire.store import LeaseOwner, RunStoreError

    path = tmp_path / "s.sqlite"
    me, other_owner = LeaseOwner.current(), LeaseOwner("elsewhere", 4242, "other-token")
    with RunStore(path) as a, RunStore(path) as b:
        assert a.save_experiment("e", {"v": "A"}, fingerprint="A", owner=me) is True
        # B saves before A claimed anything: B's spec replaces A's (no runs, no claims)...
        assert b.save_experiment("e", {"v": "B"}, fingerprint="B", owner=other_owner) is True
        # ...so A's claim is refused and A runs nothing
        with pytest.raises(RunStoreError) as caught:
            a.claim("e/run/0", me, experiment="e", fingerprint="A")
        assert caught.value.reason == "changed" and a.leases() == {}
        # B claims; now A's spec (another fingerprint) is refused while B's claim lives
        assert b.claim("e/run/0", other_owner, experiment="e", fingerprint="B") is True
        assert a.save_experiment("e", {"v": "A"}, fingerprint="A", owner=me) is False
        assert a.experiment("e")["fingerprint"] == "B"  # type: ignore[index]


KILL_DRIVER = """
import os, signal, sys
sys.path.insert(0, os.getcwd())
from toolwire import store as st
from toolwire.experiments import runner

AT = os.environ["KILL_AT"]  # "started" or "finished": killed at the first commit of that step
phase = {"on": False}

class Tx(st.RunStore._Tx):
    def __exit__(self, exc_type, *rest):
        super().__exit__(exc_type, *rest)
        if phase["on"] and exc_type is None:
            os.kill(os.getpid(), signal.SIGKILL)

st.RunStore._Tx = Tx
orig = getattr(runner.StoreRecorder, AT)

def step(self, *args):
    phase["on"] = True
    try:
        return orig(self, *args)
    finally:
        phase["on"] = False

setattr(runner.StoreRecorder, AT, step)
from toolwire.cli import main
main(["experiment", "run", sys.argv[1], "--quiet"])
"""


@pytest.mark.parametrize("at", ["finished", "started"])
def test_a_kill_9_during_a_recorder_step_leaves_the_step_done_or_not_at_all(tmp_path, at):
    """kill -9 right after the first transaction a step commits: a finished run keeps its outcome
    (it is not run again, its turns are kept); a new attempt replaces the old one's row whole (the
    attempt number does not go back to 1)."""
    spec = setup(tmp_path, runs=1, concurrency=1)
    if at == "started":  # attempt 1 killed mid-run: the next process starts attempt 2
        (tmp_path / "hold-0").touch()
        first = start(spec)
        wait_for(lambda: executions(tmp_path))
        first.kill()
        finish(first)
        (tmp_path / "hold-0").unlink()
    (tmp_path / "kill_driver.py").write_text(KILL_DRIVER)
    killed = subprocess.Popen(
        [sys.executable, "kill_driver.py", str(spec)], cwd=tmp_path, env={**os.environ, "KILL_AT": at}
    )
    STARTED.append(killed)
    killed.wait(timeout=90)
    assert killed.returncode == -signal.SIGKILL
    if at == "finished":
        assert records(tmp_path) == {0: (1, "pass")}  # the final state and its outcome together
        code, text = finish(start(spec))
        assert code == 0 and "0 runs done now, 1 finished before" in text, text
        assert [(attempt, step) for _, attempt, _, step in executions(tmp_path)] == [(1, 0), (1, 1)]
    else:
        assert records(tmp_path) == {0: (2, None)}  # attempt 2's row replaced attempt 1's
        code, text = finish(start(spec))
        assert code == 0, text
        assert records(tmp_path) == {0: (3, "pass")}


def test_a_process_never_removes_a_project_copy_it_did_not_make(tmp_path):
    """A process that lost its run while suspended after making its copy, and the process that
    took the run over as the same attempt: the second gets a folder of its own, so the first
    removing its copy when it wakes up leaves the second's whole."""
    from toolwire.experiments import load_spec
    from toolwire.experiments.runner import PendingRun, prepare_project, project_path

    exp = load_spec(setup(tmp_path, runs=1, concurrency=1))
    run = PendingRun("shared", "counted", "scripted:claude-sonnet-4-5", 0, 1)
    mine = prepare_project(exp, run)  # the suspended process's copy
    (mine / "work-in-progress").write_text("the suspended process's file\n")
    taker = prepare_project(exp, run)  # the process that took the run over
    assert mine == project_path(exp, run) and taker != mine
    assert taker.parent == mine.parent and taker.name.startswith("0-1.")
    assert (mine / "work-in-progress").read_text() == "the suspended process's file\n"  # left alone
    assert (taker / "README").read_text() == "a project\n" and not (taker / "work-in-progress").exists()
    shutil.rmtree(mine)  # the woken process removes its own copy
    assert (taker / "README").read_text() == "a project\n"


def test_wait_timeout_bounds_the_wait_for_runs_another_process_holds(tmp_path):
    """`--wait` waited without any limit for a run another live process held (a process hung
    in a tool, or one that runs for days). `--wait-timeout SECONDS` stops waiting once SECONDS
    have passed since it began to wait and exits 75, as without --wait: the experiment is not
    complete yet; the holder is left alone and finishes the run."""
    spec = setup(tmp_path, runs=3, concurrency=1)
    (tmp_path / "hold-0").touch()
    a = start(spec)
    wait_for(lambda: (0, 1, a.pid, 0) in executions(tmp_path))  # a holds run 0, and waits
    began = time.monotonic()
    code_b, text_b = finish(start(spec, "--wait-timeout", "2"))  # (implies --wait)
    took = time.monotonic() - began
    assert code_b == 75, text_b
    assert "2 runs done now, 0 finished before" in text_b
    assert f"1 run left to another process (pid {a.pid} on host" in text_b and ": still running" in text_b
    assert "stopped waiting after 2 s (--wait-timeout)" in text_b
    assert took < 40, took  # its own two runs, then 2 s of waiting (not the 5 s between looks)
    assert a.poll() is None
    (tmp_path / "release-0").touch()
    code_a, text_a = finish(a)
    assert code_a == 0, text_a
    assert records(tmp_path) == {0: (1, "pass"), 1: (1, "pass"), 2: (1, "pass")}


def test_wait_timeout_in_python_and_values_that_cannot_work(tmp_path, fresh_modules):
    import asyncio

    from toolwire.errors import ConfigurationError
    from toolwire.experiments import run_experiment

    spec = setup(tmp_path, runs=1, concurrency=1)
    store = tmp_path / "shared.sqlite"
    for bad in (-1, float("nan"), float("inf"), "5", True):
        with pytest.raises(ConfigurationError, match="wait_timeout must be None or a finite number of seconds ≥ 0"):
            asyncio.run(run_experiment(spec, wait=True, wait_timeout=bad))  # type: ignore[arg-type]
    from toolwire.experiments import load_spec
    from toolwire.store import LeaseOwner

    exp = load_spec(spec)
    with RunStore(store) as db:  # another machine's live process holds the run
        db.save_experiment("shared", exp.to_dict(), fingerprint=exp.fingerprint())
        assert db.claim(RUN_ID, LeaseOwner("ci-runner-7", 4242, "thief", "x"), experiment="shared")
    began = time.monotonic()
    summary = asyncio.run(run_experiment(spec, wait=True, wait_timeout=0.3, wait_interval=5))
    assert time.monotonic() - began < 4  # not the 5 s between looks
    assert summary.wait_timed_out and [r.run.run_id for r in summary.running_elsewhere] == [RUN_ID]
    assert summary.records == [] and executions(tmp_path) == []
    zero = asyncio.run(run_experiment(spec, wait=True, wait_timeout=0))  # one look, no wait
    assert zero.wait_timed_out and len(zero.running_elsewhere) == 1


RUN_ID = "shared/counted/scripted:claude-sonnet-4-5/0"


STOP_DRIVER = """
import os, signal, sys
sys.path.insert(0, os.getcwd())
from toolwire import store as st
from toolwire.experiments import runner

phase = {"on": False, "done": False}

class Tx(st.RunStore._Tx):  # SIGSTOP inside the first checkpoint's write transaction
    def __enter__(self):
        super().__enter__()
        if phase["on"] and not phase["done"]:
            phase["done"] = True
            open("stopped", "w").write(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGSTOP)

st.RunStore._Tx = Tx
orig = runner.StoreRecorder.checkpoint

def checkpoint(self, *args):
    phase["on"] = True
    return orig(self, *args)

runner.StoreRecorder.checkpoint = checkpoint
from toolwire.cli import main
main(["experiment", "run", sys.argv[1], "--quiet"])
"""

SHORT_TIMEOUT_DRIVER = """
import os, sys
sys.path.insert(0, os.getcwd())
from toolwire import store as st
st.RunStore.__init__.__kwdefaults__["timeout"] = float(os.environ["STORE_TIMEOUT"])
from toolwire.cli import main
main(["experiment", "run", sys.argv[1], "--quiet"])
"""


def test_a_process_suspended_inside_a_write_stops_the_others_within_about_one_timeout(tmp_path):
    """A suspended in the middle of a store write (SIGSTOP: Ctrl-Z, a laptop asleep) keeps the
    file's write lock. B, running two runs on the same store, waited the store's whole timeout at
    each of its writes in turn — the failed checkpoint, the failure record, the other run's
    checkpoint, its cancellation checkpoint, the release of its claims, the heartbeat: 65 s here
    with an 8 s timeout, 7.5 minutes measured with three runs and the 30 s default, where the
    docs promise 30 s. Now once one write waited the whole timeout in vain,
    the next ones wait 1 s each until one succeeds: B exits 2 with the "locked" line about one
    timeout after it met the lock. (B runs with an 8 s timeout here, to keep the test short.)"""
    timeout = 8.0
    spec = setup(tmp_path, runs=4, concurrency=2)
    for i in (0, 1):
        (tmp_path / f"hold-{i}").touch()
    (tmp_path / "short_driver.py").write_text(SHORT_TIMEOUT_DRIVER)
    (tmp_path / "stop_driver.py").write_text(STOP_DRIVER)
    b = subprocess.Popen(
        [sys.executable, "short_driver.py", str(spec)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "STORE_TIMEOUT": str(timeout)},
    )
    STARTED.append(b)
    wait_for(lambda: {(0, b.pid), (1, b.pid)} <= {(i, pid) for i, _, pid, _ in executions(tmp_path)})
    a = subprocess.Popen([sys.executable, "stop_driver.py", str(spec)], cwd=tmp_path)
    STARTED.append(a)
    wait_for(lambda: (tmp_path / "stopped").exists())
    assert int((tmp_path / "stopped").read_text()) == a.pid
    for i in (0, 1):  # B's runs go on to their first checkpoint: the file is locked
        (tmp_path / f"release-{i}").touch()
    began = time.monotonic()
    code, text = finish(b)
    took = time.monotonic() - began
    assert code == 2, text
    assert f"the run store '{tmp_path / 'shared.sqlite'}' is locked by another process" in text
    assert "bring it back (`fg`) or end it (`kill PID`)" in text
    assert "Traceback" not in text
    assert took < 2.5 * timeout, (took, text)
    assert a.poll() is None  # still suspended, its write not done
    os.kill(a.pid, signal.SIGCONT)  # A goes on: its write and its runs; B's are left unfinished
    a.communicate(timeout=90)
    assert a.returncode in (0, 75)
    assert {i: o for i, (_, o) in records(tmp_path).items()} == {0: None, 1: None, 2: "pass", 3: "pass"}
    code, text = finish(start(spec))  # B is gone: its runs are taken over at once, as next attempts
    assert code == 0, text
    assert records(tmp_path) == {0: (2, "pass"), 1: (2, "pass"), 2: (1, "pass"), 3: (1, "pass")}
