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


# -- a run's record (the runs table), an experiment's spec, a run's tool calls ------------------------
DAMAGED_RUNS = {
    # case: (column, value, the run left unfinished, the commands that read the column)
    "attempt-text": ("attempt", "two", True, ("run", "report")),
    "attempt-huge": ("attempt", 2**63 - 1, True, ("run", "report")),
    "attempt-zero": ("attempt", 0, True, ("run", "report")),
    "attempt-real": ("attempt", 1.5, True, ("run", "report")),
    "updated-at-text": ("updated_at", "noon", True, ("run", "report")),
    "outcome-blob": ("outcome", b"pass", False, ("run", "report")),
    "run-index-text": ("run_index", "one", False, ("report",)),
    "cost-text": ("cost_usd", "cheap", False, ("report",)),
    "cost-infinite": ("cost_usd", "Infinity", False, ("report",)),
    "turns-text": ("turns", "many", False, ("report",)),
    "input-tokens-text": ("input_tokens", "lots", False, ("report",)),
    "wall-time-text": ("wall_time", "slow", False, ("report",)),
    "created-at-text": ("created_at", "x", False, ("report",)),
    "model-blob": ("model", b"\xff", False, ("report",)),
}

EXPECTED = {
    "attempt": "a whole number from 1 to 2147483647, or NULL",
    "updated_at": "a finite number of Unix seconds",
    "created_at": "a finite number of Unix seconds",
    "outcome": "text or NULL",
    "run_index": "a whole number ≥ 0, or NULL",
    "cost_usd": "a finite decimal number as text, or NULL",
    "turns": "a whole number ≥ 0",
    "input_tokens": "a whole number, or NULL",
    "wall_time": "a finite number of seconds, or NULL",
    "model": "text",
}


@pytest.mark.parametrize("case", sorted(DAMAGED_RUNS))
def test_a_damaged_run_record_stops_run_and_report_with_one_line_saying_what_to_do(store_copy, case):
    """A column of a run's row changed by hand to a value of the wrong type or range: `experiment
    run` and `report` crashed (TypeError on attempt + 1, InvalidOperation on the cost, TypeError
    in the means; OverflowError writing attempt 2**63) or went on with it. Now each command that
    reads the column exits 2 with one line naming the file, the run, the column, the value and
    the fix; no row of runs changes."""
    column, value, unfinished, commands = DAMAGED_RUNS[case]
    db = store_copy / "shared.sqlite"
    if unfinished:
        edit(db, f"UPDATE runs SET outcome=NULL WHERE run_id='{RUN1}'")
    edit(db, f"UPDATE runs SET {column}=? WHERE run_id='{RUN1}'", params=(value,))
    before = dump(db)
    for command in ("run", "report"):
        args = ("run", "shared.toml", "--quiet") if command == "run" else ("report", "shared.toml", "--no-chart")
        code, text = toolwire(store_copy, "experiment", *args)
        assert "Traceback" not in text, text
        if command not in commands:
            assert code == 0, text
            continue
        assert code == 2, text
        assert one_line(text) == one_line(
            f"toolwire experiment {command}: the run store '{db}' holds a damaged run '{RUN1}': its {column} is "
            f"{value!r}, not {EXPECTED[column]}; the file was changed outside toolwire. Set the column right "
            f"(e.g. `sqlite3 {db} \"UPDATE runs SET {column}=NULL WHERE run_id='{RUN1}'\"`"
            + ("" if "NULL" in EXPECTED[column] else " with the right value instead of NULL")
            + ") or restore the file from a backup; the rows are left as they are"
        ), text
    assert dump(db) == before
    assert not (store_copy / "shared.sqlite.work").exists() or not any((store_copy / "shared.sqlite.work").iterdir())


def test_damaged_records_read_through_the_python_api(tmp_path):
    """get()/runs()/load()/load_state()/tool_calls()/experiment()/experiments(): RunStoreError
    (reason damaged) naming the run and the column, never a TypeError or JSONDecodeError."""
    import asyncio

    from toolwire import tool
    from toolwire.store import RunStoreError
    from toolwire.testing.providers import ScriptedModel, call

    @tool
    def echo(x: int) -> int:
        """Echo x."""
        return x

    path = tmp_path / "s.sqlite"
    with RunStore(path) as db:
        asyncio.run(db.run(ScriptedModel(responses=[[call("echo", {"x": 1})], "done"]), "go", tools=[echo], run_id="r"))
        db.save_experiment("e", {"runs": 1}, fingerprint="f")
        (tc,) = db.tool_calls("r")
    assert tc["arguments"] == {"x": 1}

    def damaged(statement: str, read, words: str) -> None:
        fresh = tmp_path / f"copy-{abs(hash(statement))}.sqlite"
        with RunStore(path) as db:  # a consistent copy of the store (WAL included)
            db.execute(f"VACUUM INTO '{fresh}'")
        edit(fresh, statement)
        with RunStore(fresh) as db, pytest.raises(RunStoreError) as info:
            read(db)
        assert info.value.reason == "damaged" and info.value.path == str(fresh)
        assert words in str(info.value), str(info.value)

    damaged("UPDATE runs SET turns='x'", lambda db: db.get("r"), "its turns is 'x', not a whole number ≥ 0")
    damaged("UPDATE runs SET tool_errors=-1", lambda db: db.runs(), "its tool_errors is -1, not a whole number ≥ 0")
    damaged("UPDATE runs SET state=x'00'", lambda db: db.load("r"), "its state is b'\\x00', not text")
    damaged(
        "UPDATE runs SET state='{\"run_id\": 5'",
        lambda db: db.load_state("r"),
        "the saved run 'r' in the run store",
    )
    damaged(
        "UPDATE tool_calls SET arguments='{x'",
        lambda db: db.tool_calls("r"),
        "a damaged tool call of run 'r': its arguments is '{x', not JSON text",
    )
    damaged(
        "UPDATE tool_calls SET is_error='yes'",
        lambda db: db.tool_calls("r"),
        "its is_error is 'yes', not 0 or 1",
    )
    damaged(
        "UPDATE tool_calls SET result=x'00'", lambda db: db.tool_calls("r"), "its result is b'\\x00', not JSON text"
    )
    damaged(
        "UPDATE experiments SET spec='{not json'",
        lambda db: db.experiment("e"),
        "the spec of experiment 'e' in the run store",
    )
    damaged("UPDATE experiments SET spec='[1, 2]'", lambda db: db.experiment("e"), "is not a JSON object")
    damaged("UPDATE experiments SET name=x'01'", lambda db: db.experiments(), "its name is b'\\x01', not text")
    damaged(
        "UPDATE experiments SET fingerprint=x'01'",
        lambda db: db.save_experiment("e", {}, fingerprint="f", owner=LeaseOwner.current()),
        "its fingerprint is b'\\x01', not text or NULL",
    )


def test_values_the_store_would_refuse_to_read_are_refused_when_written(tmp_path):
    """update_run() wrote any value (attempt='two', wall_time='slow'), which every later read of
    the run then refused: now ValueError, nothing written."""
    import asyncio

    path = tmp_path / "s.sqlite"
    with RunStore(path) as db:
        asyncio.run(db.run("test", "hi", run_id="r"))
        bad: list[tuple[str, Any]] = [("attempt", "two"), ("attempt", 0), ("wall_time", "slow"), ("cost_usd", "x")]
        for column, value in bad:
            fields: dict[str, Any] = {column: value}
            with pytest.raises(ValueError, match=f"{column} {value!r} is not"):
                db.update_run("r", **fields)
        db.update_run("r", attempt=2, wall_time=1.5, cost_usd="0.01")
        run = db.get("r")
        assert (run.attempt, run.wall_time, run.cost_usd) == (2, 1.5, "0.01")  # type: ignore[union-attr]


def test_a_spec_that_is_not_json_stops_report_and_run_writes_it_again(store_copy):
    """The stored spec of the experiment changed by hand to text that is not JSON: `report`
    crashed with JSONDecodeError (an array: AttributeError). Now it exits 2 saying how to write it
    again; `experiment run` with the same spec does (same fingerprint: nothing else changes), and
    the report is whole again."""
    db = store_copy / "shared.sqlite"
    for bad in ("{not json", "[1, 2]"):
        edit(db, "UPDATE experiments SET spec=?", params=(bad,))
        runs = dump(db)
        for args in (("shared.toml",), ("--store", "shared.sqlite", "--experiment", "shared")):
            code, text = toolwire(store_copy, "experiment", "report", *args, "--no-chart")
            assert code == 2 and "Traceback" not in text, text
            named = db if args[0] == "shared.toml" else "shared.sqlite"  # as given
            assert f"the spec of experiment 'shared' in the run store '{named}' is not a JSON object" in one_line(text)
            assert "`toolwire experiment run SPEC` with the experiment's spec writes it again" in one_line(text)
        code, text = toolwire(store_copy, "experiment", "run", "shared.toml", "--quiet")
        assert code == 0 and "0 runs done now, 2 finished before" in one_line(text), text
        assert dump(db) == runs
        code, text = toolwire(store_copy, "experiment", "report", "shared.toml", "--no-chart")
        assert code == 0 and "2/2 (100%)" in text, text


def test_an_outcome_the_report_cannot_count_stops_it_and_a_spec_of_odd_shape_only_loses_the_order(store_copy):
    """An outcome other than pass/fail/error was counted as a failure without a word; a recorded
    spec whose layers or models are not what toolwire writes crashed the report (TypeError)."""
    db = store_copy / "shared.sqlite"
    edit(db, f"UPDATE runs SET outcome='passed' WHERE run_id='{RUN1}'")
    code, text = toolwire(store_copy, "experiment", "report", "shared.toml", "--no-chart")
    assert code == 2 and "Traceback" not in text, text
    assert f"holds a run the report cannot count, '{RUN1}': its outcome is 'passed', not pass, fail or error" in (
        one_line(text)
    )
    edit(db, f"UPDATE runs SET outcome='pass' WHERE run_id='{RUN1}'")
    edit(db, """UPDATE experiments SET spec='{"runs": 2, "layers": 5, "models": [1, {"model": 2}]}'""")
    code, text = toolwire(store_copy, "experiment", "report", "shared.toml", "--no-chart")
    assert code == 0 and "2/2 (100%)" in text, text


# -- a store at version 4 without a table or a column of version 4 ---------------------------------
def test_a_version_4_store_without_its_leases_table_gets_it_back(store_copy):
    """A file at schema version 4 whose leases table is missing (written before claims existed,
    or dropped): `experiment run` failed with "no such table: leases". Now opening it creates the
    table (empty: a claim is made per run), with a warning, and the runs stay as they were."""
    db = store_copy / "shared.sqlite"
    edit(db, f"UPDATE runs SET outcome=NULL WHERE run_id='{RUN1}'", "DROP TABLE leases")
    finished = dump(db)[0]
    code, text = toolwire(store_copy, "experiment", "run", "shared.toml", "--quiet")
    assert code == 0 and "Traceback" not in text, text
    assert "1 runs done now, 1 finished before" in one_line(text) or "1 run done now" in one_line(text), text
    assert f"the run store '{db}' (schema version 4) had no table leases; it was created" in one_line(text)
    conn = sqlite3.connect(db)
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
    assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")} >= {
        "leases_experiment",
        "leases_token",
    }
    conn.close()
    assert dump(db)[0] == finished
    with RunStore(db) as store:
        assert store.get(RUN1).attempt == 2  # type: ignore[union-attr]


def test_a_missing_column_is_added_back_or_the_file_refused(tmp_path, caplog):
    """A version-4 file lacking a column that may be null (the experiment record's, the one-hour
    cache writes) gets it back, empty; one lacking a column every row needs (runs.state) is
    refused with a clear RunStoreError instead of a bare sqlite3 error at the first write."""
    from toolwire.store import RunStoreError

    path = tmp_path / "s.sqlite"
    with RunStore(path) as db:
        import asyncio

        asyncio.run(db.run("test", "hi", run_id="r"))
        db.update_run("r", variant="v", attempt=3)
    edit(
        path,
        "ALTER TABLE runs DROP COLUMN attempt",
        "ALTER TABLE turns DROP COLUMN cache_write_1h_tokens",
        "ALTER TABLE tool_calls DROP COLUMN pending",
    )
    with caplog.at_level(logging.WARNING, logger="toolwire.store"), RunStore(path) as db:
        run = db.get("r")
        assert (run.variant, run.attempt, run.status) == ("v", None, "finished")  # type: ignore[union-attr]
        db.update_run("r", attempt=4)
        assert db.get("r").attempt == 4  # type: ignore[union-attr]
        assert db.tool_calls("r") == []  # (the test model calls no tool) read with the column back
    conn = sqlite3.connect(path)
    assert [r[2:5] for r in conn.execute("PRAGMA table_info(tool_calls)") if r[1] == "pending"] == [("INTEGER", 1, "0")]
    conn.close()
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "had no column runs.attempt; it was added (empty)" in said
    assert "had no column turns.cache_write_1h_tokens; it was added (empty)" in said
    edit(path, "ALTER TABLE runs DROP COLUMN state")
    with pytest.raises(RunStoreError) as info:
        RunStore(path)
    assert info.value.reason == "damaged"
    assert str(info.value) == (
        f"the run store '{path}' (schema version 4) has no column runs.state, which every row needs: the file was "
        "changed outside toolwire, or is not a run store; restore it from a backup, or give another file"
    )
