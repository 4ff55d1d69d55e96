"""The sensor experiment on the Ray backend (a local Ray instance, started once for this module):
the same records and the same exact report as on the local backend."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from dataclasses import replace

import pytest
from experiment_helpers import EXPECTED_SCOREBOARD, MODEL, RUNS, SPEC, scoreboard_numbers

# before Ray is imported (it reads them then): no usage statistics, and workers that run this
# Python rather than Ray's `uv run` integration (which would package the repository for them)
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_UV_RUN_RUNTIME_ENV"] = "0"
ray = pytest.importorskip("ray")

from toolwire.experiments import load_spec, run_experiment  # noqa: E402
from toolwire.experiments.backends import get_backend  # noqa: E402
from toolwire.experiments.report import run_rows, scoreboard  # noqa: E402
from toolwire.store import RunStore  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster():
    """One local Ray instance for the module. Ray's raylet gives its agents a fixed 15 s to
    start and then exits (ray-project/ray#65983); on a starved machine that can happen, so the
    start is tried twice, and a machine where Ray itself cannot start skips these tests with
    Ray's reason rather than failing them."""
    error = None
    for _ in range(2):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            break
        except Exception as exc:  # Ray's own start-up failure, before any toolwire code runs
            error = exc
            ray.shutdown()
    else:
        pytest.skip(f"a local Ray instance could not start on this machine: {error}")
    yield
    ray.shutdown()


def _rows(path):
    conn = sqlite3.connect(path)
    runs = conn.execute(
        "SELECT run_id, variant, run_index, attempt, outcome, status, turns, tool_calls, tool_errors, "
        "input_tokens, output_tokens, cost_usd FROM runs ORDER BY run_id"
    ).fetchall()
    turns = conn.execute(
        "SELECT run_id, number, stop_reason, input_tokens, output_tokens, text FROM turns ORDER BY run_id, number"
    ).fetchall()
    calls = conn.execute(
        "SELECT run_id, turn, position, name, arguments, is_error, result FROM tool_calls ORDER BY run_id, turn, position"
    ).fetchall()
    conn.close()
    return runs, turns, calls


def test_ray_backend_writes_the_same_records_and_report_as_local(ray_cluster, tmp_path):
    backend = get_backend("ray")
    assert type(backend).__name__ == "RayBackend"
    summary = asyncio.run(run_experiment(SPEC, store=tmp_path / "ray.sqlite", backend=backend))
    assert (summary.total, summary.skipped, len(summary.records)) == (9, 0, 9)
    with RunStore(tmp_path / "ray.sqlite") as db:
        cells = scoreboard(db, "sensor-listing")
        rows = run_rows(db, "sensor-listing")
    assert scoreboard_numbers(cells) == EXPECTED_SCOREBOARD
    got = {
        (r["layer"], r["run_index"]): (
            r["turns"],
            r["tool_calls"],
            r["tool_errors"],
            r["input_tokens"],
            r["output_tokens"],
            r["cost_usd"],
        )
        for r in rows
    }
    assert got == RUNS
    assert ray.is_initialized()  # the backend used the running instance and left it running

    # the local backend on the same spec: row for row the same records (turns and tool calls too)
    asyncio.run(run_experiment(SPEC, store=tmp_path / "local.sqlite"))
    ray_runs, ray_turns, ray_calls = _rows(tmp_path / "ray.sqlite")
    local_runs, local_turns, local_calls = _rows(tmp_path / "local.sqlite")
    assert ray_runs == local_runs and len(ray_runs) == 9
    assert ray_turns == local_turns and len(ray_turns) == sum(v[0] for v in RUNS.values())
    assert ray_calls == local_calls and len(ray_calls) == sum(v[1] for v in RUNS.values())


def test_ray_backend_resumes_an_interrupted_experiment(ray_cluster, tmp_path):
    """Runs recorded as finished are skipped on Ray too; a record without an outcome is redone."""
    store = tmp_path / "ray.sqlite"
    spec = replace(load_spec(SPEC), runs=1)
    asyncio.run(run_experiment(spec, store=store, backend="ray"))
    victim = f"sensor-listing/file-kit/{MODEL}/0"
    with RunStore(store) as db:
        db.update_run(victim, outcome=None)  # as if the run had been cut short
    again = asyncio.run(run_experiment(spec, store=store, backend="ray"))
    assert again.skipped == 2 and [r.run.run_id for r in again.records] == [victim]
    with RunStore(store) as db:
        run = db.get(victim)
    assert (run.attempt, run.outcome, run.turns, run.usage["input_tokens"]) == (2, "pass", 6, 9736)
