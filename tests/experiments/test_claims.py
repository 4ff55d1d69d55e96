"""Run claims in the run store (schema version 4): who may take a run, atomic claims from two
processes at once, writes refused after a takeover, and the upgrade of a real version-3 file."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from experiment_helpers import EXAMPLE

from toolwire.runstate import RunState
from toolwire.store import SCHEMA_VERSION, STALE_AFTER, LeaseOwner, RunStore, RunTaken, lease_state

DATA = Path(__file__).parent / "data"


def other(host: str | None = None, pid: int = 4242, token: str = "other-token", scope: str | None = None) -> LeaseOwner:
    me = LeaseOwner.current()
    return LeaseOwner(host or me.host, pid, token, me.scope if scope is None else scope)


def set_heartbeat(path: Path, run_id: str, seconds_ago: float) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE leases SET heartbeat=? WHERE run_id=?", (time.time() - seconds_ago, run_id))
    conn.commit()
    conn.close()


def gone_pid() -> int:
    """The pid of a process of this machine that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_claim_is_refused_while_its_owner_lives_and_taken_over_when_stale(tmp_path):
    path = tmp_path / "s.sqlite"
    me = LeaseOwner.current()
    with RunStore(path) as db:
        # another machine: live while its heartbeat is fresh, stale after STALE_AFTER seconds
        far = other(host="ci-runner-7", scope="boot/pid:[1]")
        assert db.claim("far", far) and not db.claim("far", me)
        assert db.lease("far").describe() == "pid 4242 on host ci-runner-7"
        set_heartbeat(path, "far", STALE_AFTER - 20)
        assert not db.claim("far", me)
        set_heartbeat(path, "far", STALE_AFTER + 1)
        assert db.claim("far", me) and db.lease("far").token == me.token
        # this machine, a process that is gone: taken over at once, fresh heartbeat or not
        assert db.claim("dead", other(pid=gone_pid())) and db.claim("dead", me)
        # this machine, a live process (a sleeping child): live, until its heartbeat is stale
        # (its pid may belong to another program by then, or the process hangs)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            assert db.claim("alive", other(pid=child.pid)) and not db.claim("alive", me)
            set_heartbeat(path, "alive", STALE_AFTER + 1)
            assert db.claim("alive", me)
        finally:
            child.kill()
            child.wait()
        # this process's own pid under another token: an earlier process that had this pid
        assert db.claim("mypid", other(pid=os.getpid())) and db.claim("mypid", me)
        # the owner's own claim is its own: claiming again keeps it
        assert db.claim("far", me) and db.lease("far").token == me.token
        assert set(db.leases()) == {"far", "dead", "alive", "mypid"}


def test_lease_state_reads_host_scope_pid_and_heartbeat():
    me = LeaseOwner("laptop", 100, "mine", "boot/pid:[1]")
    from toolwire.store import Lease

    def lease(**kw):
        d: dict[str, Any] = dict(
            run_id="r", experiment="e", host="laptop", pid=gone_pid(), token="t", scope="boot/pid:[1]"
        )
        d.update(kw)
        return Lease(claimed_at=0.0, heartbeat=1000.0, **d)

    assert lease_state(lease(token="mine"), me, now=99999.0) == "mine"
    assert lease_state(lease(), me, now=1010.0) == "stale"  # this machine, process gone
    # the same host name in another pid namespace (a container) or after a reboot: its pids are
    # not ours to test, so only its heartbeat counts
    assert lease_state(lease(scope="boot/pid:[2]"), me, now=1010.0) == "live"
    assert lease_state(lease(scope="boot/pid:[2]"), me, now=1000.0 + STALE_AFTER + 1) == "stale"
    assert lease_state(lease(host="ci"), me, now=1000.0 + STALE_AFTER) == "live"
    assert lease_state(lease(host="ci"), me, now=1010.0, stale_after=5) == "stale"


def test_a_claim_fails_when_the_run_changed_since_it_was_planned(tmp_path):
    me, them = LeaseOwner.current(), other(host="elsewhere", scope="x")
    with RunStore(tmp_path / "s.sqlite") as db:
        assert not db.claim("r", me, seen=12.5)  # planned with a row that is gone
        db.save(RunState("r", "test"))  # another process started it meanwhile
        seen = db.get("r").updated_at
        assert not db.claim("r", me, seen=None)  # planned as "no row yet"
        assert db.claim("r", them, seen=seen)
        db.release(them)
        db.update_run("r", outcome="pass")  # ... and finished it
        assert not db.claim("r", me, seen=seen) and db.lease("r") is None
        assert db.claim("r", me, seen=db.get("r").updated_at)


def test_writes_are_refused_once_another_process_took_the_run_over(tmp_path):
    path = tmp_path / "s.sqlite"
    me, them = LeaseOwner.current(), other(host="elsewhere", scope="x")
    with RunStore(path) as db:
        state = RunState("r", "test", status="running")
        assert db.claim("r", me)
        db.save(state, experiment="e", owner=me)
        db.update_run("r", owner=me, attempt=1)
        set_heartbeat(path, "r", STALE_AFTER + 5)  # this process hung; the other one takes over
        assert db.claim("r", them)
        before = db.get("r")
        state.status = "finished"
        with pytest.raises(RunTaken) as info:
            db.save(state, owner=me)
        assert info.value.lost and info.value.holder.token == "other-token"
        assert "taken over by pid 4242 on host elsewhere" in str(info.value)
        with pytest.raises(RunTaken):
            db.update_run("r", owner=me, release=True, outcome="pass")
        with pytest.raises(RunTaken):
            db.delete("r", owner=me)
        after = db.get("r")
        assert (after.status, after.outcome, after.updated_at) == (before.status, None, before.updated_at)
        assert db.lease("r").token == "other-token"  # the refused release did not drop their claim
        # the holder writes, and its release drops the claim in the same transaction
        db.update_run("r", owner=them, release=True, outcome="pass")
        assert db.get("r").outcome == "pass" and db.lease("r") is None


def test_heartbeat_and_release_touch_only_the_owners_claims(tmp_path):
    path = tmp_path / "s.sqlite"
    me, them = LeaseOwner.current(), other(host="elsewhere", scope="x")
    with RunStore(path) as db:
        for run_id in ("a", "b"):
            assert db.claim(run_id, me)
            set_heartbeat(path, run_id, 60)
        assert db.claim("c", them)
        set_heartbeat(path, "c", 60)
        assert db.heartbeat(me) == 2
        ages = {k: time.time() - v.heartbeat for k, v in db.leases().items()}
        assert ages["a"] < 5 and ages["b"] < 5 and ages["c"] > 55
        assert db.release(me, "a") == 1 and set(db.leases()) == {"b", "c"}
        assert db.release(me) == 1 and set(db.leases()) == {"c"}


CLAIMER = """
import json, os, sys, time
from toolwire.store import LeaseOwner, RunStore

path, go, order = sys.argv[1], sys.argv[2], sys.argv[3]
run_ids = [f"e/layer/model/{i}" for i in range(150)]
if order == "reverse":
    run_ids.reverse()
me = LeaseOwner.current()
with RunStore(path) as db:
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    got = [r for r in run_ids if db.claim(r, me, experiment="e", seen=None)]
    print(json.dumps([me.token, got]), flush=True)
    sys.stdin.read()  # alive (holding its claims) until the test has both answers
"""


def test_two_processes_claiming_the_same_runs_at_the_same_instant_never_both_get_one(tmp_path):
    path, go = tmp_path / "s.sqlite", tmp_path / "go"
    RunStore(path).close()
    (tmp_path / "claimer.py").write_text(CLAIMER)
    # the same order and the reverse one: wherever they meet, they want the same runs
    procs = [
        subprocess.Popen(
            [sys.executable, str(tmp_path / "claimer.py"), str(path), str(go), order],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for order in ("forward", "reverse")
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"  # both opened the store, at the start line
    go.touch()
    got = dict(json.loads(p.stdout.readline()) for p in procs)
    for p in procs:
        p.communicate("", timeout=60)
    assert [p.returncode for p in procs] == [0, 0]
    (a, b) = got.values()  # (SQLite's busy wait may let one of them take nearly all)
    assert not set(a) & set(b)
    run_ids = [f"e/layer/model/{i}" for i in range(150)]
    assert sorted(a + b) == sorted(run_ids)
    with RunStore(path) as db:
        leases = db.leases(experiment="e")
    assert {r: leases[r].token for r in run_ids} == {r: t for t, ids in got.items() for r in ids}


def test_a_real_version_3_file_is_upgraded_and_its_cut_short_run_resumed(tmp_path, monkeypatch):
    """``data/store_v3.sqlite`` was written by the toolwire before claims (schema version 3; see
    ``data/make_store_v3.py``): run 0 finished, run 1 cut short. Opened here it gains the leases
    table, keeps its rows, and its cut-short run — which has no claim — is taken over at once."""
    from toolwire.experiments import run_experiment
    from toolwire.experiments.report import scoreboard

    path = tmp_path / "store_v3.sqlite"
    shutil.copy(DATA / "store_v3.sqlite", path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    columns = "run_id, status, outcome, attempt, turns, tool_calls, input_tokens, cost_usd, updated_at, state"
    rows_v3 = conn.execute(f"SELECT {columns} FROM runs ORDER BY run_id").fetchall()
    conn.close()
    assert [r[:6] for r in rows_v3] == [
        ("v3-store/byte-sizes/scripted:claude-sonnet-4-5/0", "finished", "pass", 1, 6, 7),
        ("v3-store/byte-sizes/scripted:claude-sonnet-4-5/1", "cancelled", None, 1, 2, 2),
    ]
    with RunStore(path) as db:
        assert db.leases() == {}
        assert [tuple(r) for r in db.execute(f"SELECT {columns} FROM runs ORDER BY run_id")] == rows_v3
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert dict(conn.execute("SELECT key, value FROM meta"))["schema_version"] == "4"
    assert [r[1] for r in conn.execute("PRAGMA table_info(leases)")] == [
        "run_id",
        "experiment",
        "host",
        "pid",
        "token",
        "scope",
        "claimed_at",
        "heartbeat",
    ]
    conn.close()

    monkeypatch.syspath_prepend(str(EXAMPLE))
    shutil.copy(DATA / "store_v3.toml", tmp_path / "store_v3.toml")
    shutil.copy(EXAMPLE / "check.py", tmp_path / "check.py")
    summary = asyncio.run(run_experiment(tmp_path / "store_v3.toml", store=path))
    assert (summary.total, summary.skipped, summary.left) == (2, 1, [])
    (record,) = summary.records
    assert (record.run.index, record.run.attempt, record.outcome) == (1, 2, "pass")
    with RunStore(path) as db:
        assert db.leases() == {}  # released when the run finished
        (cell,) = scoreboard(db, "v3-store")
        assert db.get(rows_v3[0][0]).updated_at == rows_v3[0][8]  # the finished run untouched
    assert (cell.runs, cell.passed, cell.unfinished) == (2, 2, 0)


def test_a_process_owner_names_this_machine():
    me = LeaseOwner.current()
    assert (me.host, me.pid) == (socket.gethostname(), os.getpid())
    assert len(me.token) == 16 and LeaseOwner.current().token != me.token
    if os.path.exists("/proc/self/ns/pid"):
        assert me.scope is not None and me.scope.endswith(os.readlink("/proc/self/ns/pid"))
