"""The run store keeps every usage counter the cost depends on: ``cache_write_1h_tokens`` (the part
of the cache writes priced at the one-hour rate) in ``runs`` and ``turns``, summed like the others,
and an experiment's record and CSV carry it too. A file written before the column existed is
upgraded in place, the counts filled in from the saved JSON."""

from __future__ import annotations

import sqlite3

from toolwire.runstate import RunResult, Turn
from toolwire.store import _SCHEMA, SCHEMA_VERSION, RunStore
from toolwire.types import Conversation, Message, Response, TextPart, Usage


def _result(run_id: str = "r1") -> RunResult:
    usages = [
        Usage(input_tokens=1000, output_tokens=10, cache_write_tokens=800, cache_write_1h_tokens=500, requests=1),
        Usage(input_tokens=1200, output_tokens=20, cache_read_tokens=800, cache_write_tokens=300, requests=1),
        Usage(input_tokens=1500, output_tokens=30, cache_write_tokens=200, cache_write_1h_tokens=200, requests=1),
    ]
    turns = [
        Turn(i + 1, Response([TextPart(f"t{i}")], usage=u, model="claude-sonnet-4-5")) for i, u in enumerate(usages)
    ]
    conv = Conversation([Message.user("hi"), *[t.response.to_message() for t in turns]])
    return RunResult("t2", conv, turns, "end_turn", "anthropic:claude-sonnet-4-5", run_id)


def test_the_runs_and_turns_rows_hold_the_one_hour_cache_writes(tmp_path):
    result = _result()
    assert result.usage.cache_write_1h_tokens == 700
    with RunStore(tmp_path / "runs.sqlite") as db:
        db.save(result)
        run = db.get("r1")
        assert run.usage["cache_write_tokens"] == 1300
        assert run.usage["cache_write_1h_tokens"] == 700
        rows = db.execute("SELECT number, cache_write_tokens, cache_write_1h_tokens FROM turns ORDER BY number")
        assert [tuple(r) for r in rows] == [(1, 800, 500), (2, 300, None), (3, 200, 200)]


def test_a_version_2_file_gains_the_column_filled_from_the_saved_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    # a version-2 file, as the previous toolwire wrote it
    conn = sqlite3.connect(path)
    conn.executescript(_SCHEMA)
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with RunStore(path) as db:  # (this toolwire: upgraded, then the column dropped to fake version 2)
        db.save(_result())
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE runs DROP COLUMN cache_write_1h_tokens")
    conn.execute("ALTER TABLE turns DROP COLUMN cache_write_1h_tokens")
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()
    with RunStore(path) as db:
        assert db.get("r1").usage["cache_write_1h_tokens"] == 700
        rows = db.execute("SELECT cache_write_1h_tokens FROM turns ORDER BY number")
        assert [r[0] for r in rows] == [500, None, 200]
        db.save(_result("r2"))
        assert db.get("r2").usage["cache_write_1h_tokens"] == 700
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_the_experiment_record_and_csv_carry_the_one_hour_cache_writes(tmp_path):
    from toolwire.experiments.report import CSV_COLUMNS
    from toolwire.experiments.runner import PendingRun, make_record

    result = _result()
    record = make_record(PendingRun("e", "layer", "anthropic:claude-sonnet-4-5", 0), result.state, passed=True)
    assert (record.cache_write_tokens, record.cache_write_1h_tokens) == (1300, 700)
    assert CSV_COLUMNS.index("cache_write_1h_tokens") == CSV_COLUMNS.index("cache_write_tokens") + 1
