"""A run store changed outside toolwire (by hand with the sqlite3 module, by another program):
every value read from it is checked, and a damaged one gets a typed error saying what to do, or
— for a run's claim, which holds nothing of the user's — counts as a stale claim the next process
replaces, with a warning. Nothing stored is lost or overwritten. Real files, real
``toolwire experiment`` processes."""

from __future__ import annotations

import logging
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
from test_shared_store import setup

from toolwire.store import STALE_AFTER, Lease, LeaseOwner, RunStore, _scope, lease_state

RUN0 = "shared/counted/scripted:claude-sonnet-4-5/0"
RUN1 = "shared/counted/scripted:claude-sonnet-4-5/1"


def toolwire(folder: Path, *args: str, timeout: float = 90) -> tuple[int, str]:
    """``toolwire ARGS`` in a process of its own in ``folder``: (exit status, stdout + stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", *args], cwd=folder, capture_output=True, text=True, timeout=timeout
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def finished_store(tmp_path_factory) -> Path:
    """A folder with the two-run spec of ``test_shared_store`` and its store, both runs finished."""
    folder = tmp_path_factory.mktemp("finished")
    setup(folder, runs=2, concurrency=1)
    code, text = toolwire(folder, "experiment", "run", "shared.toml", "--quiet")
    assert code == 0, text
    return folder


@pytest.fixture
def store_copy(finished_store, tmp_path) -> Path:
    """A copy of :func:`finished_store`'s folder to damage."""
    folder = tmp_path / "exp"
    shutil.copytree(finished_store, folder)
    return folder


def edit(path: Path, *statements: str, params: Any = ()) -> None:
    """Change the file by hand, as a user with the sqlite3 module would (``params`` for the
    statements with placeholders)."""
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql, params if ("?" in sql or ":" in sql) else ())
    conn.commit()
    conn.close()


def dump(path: Path, table: str = "runs") -> list[tuple]:
    conn = sqlite3.connect(path)
    rows = conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    conn.close()
    return rows


def one_line(text: str) -> str:
    return " ".join(text.split())


# -- a run's claim (the leases table) --------------------------------------------------------------
HERE = (socket.gethostname(), _scope())

DAMAGED_LEASES = {
    # column: value, what the warning says about it
    "heartbeat-text": ("heartbeat", "yesterday", "heartbeat 'yesterday' is not a finite number of seconds"),
    "heartbeat-infinite": ("heartbeat", float("inf"), "heartbeat inf is not a finite number of seconds"),
    "heartbeat-far-future": ("heartbeat", 1e300, "its heartbeat lies 1e+300 s ahead of this machine's clock"),
    "pid-2**31": ("pid", 2**31, None),  # a pid no process of this machine can have: gone
    "pid-negative": ("pid", -5, "pid -5 is not a process id"),
    "pid-huge": ("pid", 2**63 - 1, "pid 9223372036854775807 is not a process id"),
    "pid-text": ("pid", "abc", "pid 'abc' is not a process id"),
    "claimed-at-text": ("claimed_at", "x", "claimed_at 'x' is not a finite number of seconds"),
    # (a number in a text column becomes text: SQLite's column affinity; a blob stays a blob)
    "token-blob": ("token", b"\x00\xff", "token b'\\x00\\xff' is not text"),
    "scope-blob": ("scope", b"\x01", "scope b'\\x01' is not text"),
}


@pytest.mark.parametrize("case", sorted(DAMAGED_LEASES))
def test_a_damaged_claim_of_this_machine_is_taken_over_with_a_warning(store_copy, case):
    """Run 1 cut short, its claim damaged by hand (a heartbeat in text, a pid past 2**31, ...):
    `experiment run` crashed with a traceback (TypeError, OverflowError from os.kill) or left the
    run forever to a claim whose heartbeat lies in the far future. Now the claim counts as stale:
    the run is done as its next attempt, the warning names the run and the column."""
    column, value, words = DAMAGED_LEASES[case]
    db = store_copy / "shared.sqlite"
    lease = {
        "run_id": RUN1,
        "experiment": "shared",
        "host": HERE[0],
        "pid": os.getpid(),  # a live process of this machine: its claim would be live
        "token": "tok",
        "scope": HERE[1],
        "claimed_at": time.time(),
        "heartbeat": time.time(),
    }
    lease[column] = value
    edit(
        db,
        f"UPDATE runs SET outcome=NULL WHERE run_id='{RUN1}'",
        "INSERT INTO leases VALUES (:run_id, :experiment, :host, :pid, :token, :scope, :claimed_at, :heartbeat)",
        params=lease,
    )
    code, text = toolwire(store_copy, "experiment", "run", "shared.toml", "--quiet")
    assert code == 0, text
    assert "Traceback" not in text
    assert "1 runs done now, 1 finished before" in one_line(text) or "1 run done now" in one_line(text), text
    if words is not None:
        assert f"the claim of run '{RUN1}'" in one_line(text)
        assert words in one_line(text), text
        assert "counts as stale: the run is taken over" in one_line(text)
    with RunStore(db) as store:
        assert store.get(RUN1).attempt == 2 and store.get(RUN1).outcome == "pass"  # type: ignore[union-attr]
        assert store.leases() == {}


def test_damaged_claims_read_through_the_python_api(tmp_path, caplog):
    """lease()/leases() give a Lease marked damaged (never a TypeError later); lease_state says
    stale; describe() says what is wrong; the warning is logged once per claim."""
    path = tmp_path / "s.sqlite"
    me = LeaseOwner.current()
    with RunStore(path) as db:
        assert db.claim("a", LeaseOwner("ci-7", 12, "t-a", "x"))
        assert db.claim("b", LeaseOwner("ci-7", 12, "t-b", "x"))
    edit(
        path, "UPDATE leases SET heartbeat='soon' WHERE run_id='a'", "UPDATE leases SET pid=2147483648 WHERE run_id='b'"
    )
    with caplog.at_level(logging.WARNING, logger="toolwire.store"), RunStore(path) as db:
        a = db.lease("a")
        assert a is not None and a.damaged == "heartbeat 'soon' is not a finite number of seconds"
        assert a.heartbeat == 0.0 and a.pid == 12 and a.host == "ci-7"
        assert lease_state(a, me) == "stale"
        assert a.describe() == "a damaged claim (heartbeat 'soon' is not a finite number of seconds)"
        # another machine's pid past 2**31 is a pid (a Windows one may be): its heartbeat counts
        b = db.leases()["b"]
        assert (b.damaged, b.pid, lease_state(b, me)) == (None, 2**31, "live")
        assert db.leases()["a"].damaged is not None and db.claim("a", me)  # replaced
        assert db.lease("a").token == me.token  # type: ignore[union-attr]
    warned = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage() or "claim of run" in r.getMessage()]
    assert len(warned) == 1 and "the claim of run 'a'" in warned[0], warned


def test_lease_state_of_damaged_values_made_in_python():
    """A Lease built by hand with values no process writes: stale, not a TypeError/OverflowError."""
    me = LeaseOwner("laptop", 100, "mine", "boot/pid:[1]")
    base: dict[str, Any] = dict(
        run_id="r", experiment="e", host="laptop", token="t", scope="boot/pid:[1]", claimed_at=0.0
    )
    now = time.time()
    assert lease_state(Lease(pid=2**31, heartbeat=now, **base), me) == "stale"  # no such process here
    assert lease_state(Lease(pid=-1, heartbeat=now, **base), me) == "stale"
    assert lease_state(Lease(pid=0, heartbeat=now, **base), me) == "stale"
    assert lease_state(Lease(pid=2**70, heartbeat=now, **base), me) == "stale"
    assert lease_state(Lease(pid=os.getppid(), heartbeat=float("nan"), **base), me) == "stale"
    assert lease_state(Lease(pid=os.getppid(), heartbeat=now + 10 * STALE_AFTER, **base), me) == "stale"
    assert lease_state(Lease(pid=os.getppid(), heartbeat=now + 5, **base), me) == "live"  # a clock a bit ahead
