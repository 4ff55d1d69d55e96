"""A run store given another program's SQLite file: refused, naming it, and the file left as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolwire.errors import ConfigurationError
from toolwire.store import RunStore


def _mlflow_like(path: Path) -> None:
    """A database of another program with a table named runs (MLflow's backend store has one)."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE runs (run_uuid TEXT PRIMARY KEY, name TEXT, status TEXT)")
    conn.execute("CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO runs VALUES ('abc', 'baseline', 'FINISHED')")
    conn.commit()
    conn.close()


def test_another_programs_file_with_a_runs_table_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """Before: "the run store failed: OperationalError: no such column: experiment", and the file
    had been switched to WAL journal mode (a -wal and -shm file beside it from then on)."""
    path = tmp_path / "mlflow.db"
    _mlflow_like(path)
    before = path.read_bytes()
    with pytest.raises(ConfigurationError) as info:
        RunStore(path)
    assert str(info.value) == (
        f"{str(path)!r} is an SQLite file but not a toolwire run store (tables: experiments, runs); "
        "give the path of a run store, or a new file name"
    )
    assert path.read_bytes() == before
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("SELECT * FROM runs").fetchall() == [("abc", "baseline", "FINISHED")]
    finally:
        conn.close()


def test_a_newer_store_is_refused_without_being_changed(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.execute("CREATE TABLE runs (x)")
    conn.commit()
    conn.close()
    with pytest.raises(ConfigurationError, match="schema version 99, newer than this toolwire's"):
        RunStore(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.close()


def test_a_new_and_an_empty_file_still_become_stores(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    for path in (tmp_path / "new.sqlite", empty):
        with RunStore(path) as store:
            assert store.runs() == []
