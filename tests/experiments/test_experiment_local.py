"""The shipped sensor experiment on the local backend: exact report numbers, records checked
against the raw SQLite rows, the CSV and the chart, interruption and restart."""

from __future__ import annotations

import asyncio
import csv
import sqlite3
from decimal import Decimal

import pytest
from experiment_helpers import EXPECTED_SCOREBOARD, MODEL, RUNS, SPEC, list_price, scoreboard_numbers

from toolwire.experiments import load_spec, run_experiment
from toolwire.experiments.backends.local import LocalBackend
from toolwire.experiments.report import CSV_COLUMNS, run_rows, scoreboard, write_report
from toolwire.store import RunStore


@pytest.fixture(scope="module")
def finished_store(tmp_path_factory):
    """The example run once, uninterrupted, into a fresh store."""
    path = tmp_path_factory.mktemp("sensor") / "sensor.sqlite"
    summary = asyncio.run(run_experiment(SPEC, store=path))
    assert (summary.total, summary.skipped, len(summary.records)) == (9, 0, 9)
    return path


def test_scoreboard_numbers_are_exact(finished_store):
    with RunStore(finished_store) as db:
        cells = scoreboard(db, "sensor-listing")
    assert [(c.layer, c.model) for c in cells] == [("bare-names", MODEL), ("byte-sizes", MODEL), ("file-kit", MODEL)]
    assert scoreboard_numbers(cells) == EXPECTED_SCOREBOARD
    assert all(c.pass_rate == 1 and c.errors == 0 and c.unfinished == 0 and c.unpriced == 0 for c in cells)
    # the one string: sizes in the listing cut the median input tokens of a run 8.1×
    bare, sizes = cells[0], cells[1]
    assert bare.input_tokens_median / sizes.input_tokens_median > 8


def test_every_run_record_matches_its_turn_and_tool_call_rows(finished_store):
    """The run rows against the raw turns/tool_calls rows, with plain SQL, and the cost against
    the list price computed here."""
    conn = sqlite3.connect(finished_store)
    runs = conn.execute(
        "SELECT run_id, variant, run_index, attempt, outcome, status, turns, tool_calls, tool_errors, "
        "input_tokens, output_tokens, cost_usd, wall_time, check_output, experiment FROM runs"
    ).fetchall()
    assert len(runs) == 9
    for run_id, layer, index, attempt, outcome, status, turns, calls, errors, inp, out, cost, wall, check, exp in runs:
        assert run_id == f"sensor-listing/{layer}/{MODEL}/{index}"
        assert (exp, attempt, outcome, status) == ("sensor-listing", 1, "pass", "finished")
        assert (turns, calls, errors, inp, out, Decimal(cost)) == RUNS[(layer, index)]
        n, t_in, t_out = conn.execute(
            "SELECT count(*), sum(input_tokens), sum(output_tokens) FROM turns WHERE run_id=?", (run_id,)
        ).fetchone()
        assert (n, t_in, t_out) == (turns, inp, out)
        c, e = conn.execute("SELECT count(*), sum(is_error) FROM tool_calls WHERE run_id=?", (run_id,)).fetchone()
        assert (c, e) == (calls, errors)
        assert Decimal(cost) == list_price(inp, out)
        assert wall > 0
        assert check.startswith("PASS: report prints 21.13 C, expected 21.13 C; data unchanged")
    # the bare-names runs read the CSV: its 2,001 lines went to the model; the others searched it
    names = dict(
        conn.execute(
            "SELECT variant, group_concat(name) FROM tool_calls JOIN runs USING (run_id) "
            "WHERE run_index=0 GROUP BY variant"
        ).fetchall()
    )
    assert "search_files" not in names["bare-names"] and "search_files" in names["byte-sizes"]
    spec = conn.execute("SELECT spec FROM experiments WHERE name='sensor-listing'").fetchone()[0]
    assert '"bare-names"' in spec
    conn.close()


def test_csv_and_chart(finished_store, tmp_path):
    with RunStore(finished_store) as db:
        files = write_report(db, "sensor-listing", tmp_path)
        rows = run_rows(db, "sensor-listing")
    with open(files.csv, newline="") as fh:
        table = list(csv.reader(fh))
    assert tuple(table[0]) == CSV_COLUMNS
    assert len(table) == 10
    col = {name: i for i, name in enumerate(table[0])}
    got = {
        (r[col["layer"]], int(r[col["run_index"]])): (
            int(r[col["turns"]]),
            int(r[col["tool_calls"]]),
            int(r[col["tool_errors"]]),
            int(r[col["input_tokens"]]),
            int(r[col["output_tokens"]]),
            Decimal(r[col["cost_usd"]]),
        )
        for r in table[1:]
    }
    assert got == RUNS
    assert [r["layer"] for r in rows] == ["bare-names"] * 3 + ["byte-sizes"] * 3 + ["file-kit"] * 3
    data = files.chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(data) < 200_000


class _CancelAfterEdit:
    """A backend that runs the local backend and cancels the whole experiment as soon as one
    chosen run has edited its project copy (mid-run: the copy is changed, the run not over)."""

    name = "cancel-after-edit"

    def __init__(self, victim: str) -> None:
        self.victim = victim
        self.cancelled = False

    async def run(self, exp, runs, recorder):
        task = asyncio.current_task()
        outer = self

        class Watching:
            def started(self, run, state):
                recorder.started(run, state)

            def checkpoint(self, run, state):
                recorder.checkpoint(run, state)
                edited = any(r.call.name == "edit_file" and not r.result.is_error for r in state.tool_runs)
                if run.run_id == outer.victim and edited and not outer.cancelled:
                    outer.cancelled = True
                    task.cancel()

            def finished(self, run, state, record):
                recorder.finished(run, state, record)

        await LocalBackend(concurrency=2).run(exp, runs, Watching())


def test_interrupted_experiment_restarts_only_the_missing_runs(tmp_path):
    store = tmp_path / "sensor.sqlite"
    victim = f"sensor-listing/byte-sizes/{MODEL}/0"
    backend = _CancelAfterEdit(victim)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(run_experiment(SPEC, store=store, backend=backend))
    assert backend.cancelled
    with RunStore(store) as db:
        before = {r.run_id: r for r in db.runs(experiment="sensor-listing")}
    finished = {k: r for k, r in before.items() if r.outcome is not None}
    unfinished = {k: r for k, r in before.items() if r.outcome is None}
    assert victim in unfinished and unfinished[victim].status == "cancelled"
    assert any(t["name"] == "edit_file" and not t["is_error"] for t in RunStore(store).tool_calls(victim))
    assert len(finished) < 9

    summary = asyncio.run(run_experiment(SPEC, store=store))
    assert summary.skipped == len(finished)
    assert sorted(r.run.run_id for r in summary.records) == sorted(set(RUNS_IDS) - set(finished))
    with RunStore(store) as db:
        after = {r.run_id: r for r in db.runs(experiment="sensor-listing")}
        cells = scoreboard(db, "sensor-listing")
    for run_id, old in finished.items():  # kept as they were, not run again
        assert (after[run_id].updated_at, after[run_id].attempt, after[run_id].wall_time) == (
            old.updated_at,
            1,
            old.wall_time,
        )
    for run_id in unfinished:  # started again from scratch, as the next attempt
        assert after[run_id].attempt == 2 and after[run_id].outcome == "pass"
    # a fresh copy: the victim's edit is not there any more, so its restart edits without an error,
    # and the whole scoreboard is the uninterrupted one
    assert after[victim].tool_errors == 0
    assert scoreboard_numbers(cells) == EXPECTED_SCOREBOARD
    # a third call has nothing left to do
    again = asyncio.run(run_experiment(SPEC, store=store))
    assert (again.skipped, again.records) == (9, [])


RUNS_IDS = [f"sensor-listing/{layer}/{MODEL}/{i}" for layer, i in RUNS]


def test_the_example_spec_loads():
    exp = load_spec(SPEC)
    assert list(exp.layers) == ["bare-names", "byte-sizes", "file-kit"]
    assert exp.model_names == [MODEL]
    assert (exp.runs, exp.concurrency) == (3, 3)
