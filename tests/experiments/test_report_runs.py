"""The report counts the spec's runs: after ``runs`` is lowered, the recorded runs with a run index
at or above it are left out of the scoreboard, the CSV and the chart, and counted as left out."""

from __future__ import annotations

import asyncio
import csv
import json
import shutil
from pathlib import Path

import pytest
from experiment_helpers import EXAMPLE, MODEL

from toolwire.cli import main
from toolwire.errors import ConfigurationError
from toolwire.experiments import run_experiment
from toolwire.experiments.report import counted_runs, run_rows, scoreboard
from toolwire.store import RunStore

DATA = Path(__file__).parent / "data"

SPEC = f"""\
name = "lowered"
runs = {{runs}}
concurrency = 3
store = "lowered.sqlite"
models = [{{{{ model = "{MODEL}", factory = "sensor_agent:scripted" }}}}]
[task]
prompt = "The report's mean is far too low; fix it."
project = "toolwire.demo:DATA_DIR"
checker = ["{{{{python}}}}", "{EXAMPLE / "check.py"}", "{{{{project}}}}"]
[layers]
byte-sizes = "sensor_layers:byte_sizes"
"""


def cli(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_lowering_runs_leaves_the_runs_beyond_it_out_of_the_report(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "lowered.toml"
    spec.write_text(SPEC.format(runs=3))
    assert len(asyncio.run(run_experiment(spec)).records) == 3
    store = tmp_path / "lowered.sqlite"
    spec.write_text(SPEC.format(runs=2))

    # the report of the lowered spec: two runs per cell, one recorded run left out
    code, out, err = cli(capsys, "experiment", "report", str(spec), "--no-chart", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    row = next(line for line in out.splitlines() if "byte-sizes" in line)
    assert [c.strip() for c in row.strip("│ ").split("│")][2:4] == ["2", "2/2 (100%)"]
    assert "left out: 1 recorded run with a run index ≥ runs = 2 (runs was lowered)" in " ".join(out.split())
    with open(tmp_path / "rep" / "lowered.csv", newline="") as fh:
        assert sorted(int(r["run_index"]) for r in csv.DictReader(fh)) == [0, 1]
    code, out, err = cli(capsys, "experiment", "report", str(spec), "--json", "--no-chart", "--out", str(tmp_path))
    data = json.loads(out)
    assert (data["runs"], data["beyond"]) == (2, 1)
    assert (data["cells"][0]["runs"], data["cells"][0]["passed"], data["cells"][0]["beyond"]) == (2, 2, 1)

    with RunStore(store) as db:
        # in Python: runs= given, or else the spec the last `experiment run` recorded (still 3)
        (cell,) = scoreboard(db, "lowered", runs=2)
        assert (cell.runs, cell.passed, cell.beyond, cell.unfinished) == (2, 2, 1, 0)
        assert counted_runs(db, "lowered") == 3 and scoreboard(db, "lowered")[0].runs == 3
        assert [r["run_index"] for r in run_rows(db, "lowered", runs=1)] == [0]
        with pytest.raises(ConfigurationError, match="runs must be a whole number ≥ 1, got 0"):
            scoreboard(db, "lowered", runs=0)
    # `experiment run` on the lowered spec runs nothing, keeps the third run, records runs = 2
    summary = asyncio.run(run_experiment(spec))
    assert (summary.total, summary.skipped, summary.records) == (2, 2, [])
    with RunStore(store) as db:
        assert len(db.runs(experiment="lowered")) == 3
        (cell,) = scoreboard(db, "lowered")
        assert (cell.runs, cell.beyond) == (2, 1)
    # the --store/--experiment form reads the recorded spec
    code, out, err = cli(
        capsys,
        "experiment",
        "report",
        "--store",
        str(store),
        "--experiment",
        "lowered",
        "--no-chart",
        "--out",
        str(tmp_path),
    )
    assert code == 0 and "left out: 1 recorded run" in " ".join(out.split())
    # raising runs again counts the run again: nothing was deleted
    spec.write_text(SPEC.format(runs=3))
    code, out, err = cli(capsys, "experiment", "report", str(spec), "--no-chart", "--out", str(tmp_path))
    row = next(line for line in out.splitlines() if "byte-sizes" in line)
    assert [c.strip() for c in row.strip("│ ").split("│")][2:4] == ["3", "3/3 (100%)"] and "left out" not in out


def test_an_unfinished_run_beyond_runs_is_left_out_not_counted_unfinished(tmp_path):
    """The version-3 file of ``data/``: run 0 finished, run 1 cut short."""
    path = tmp_path / "store_v3.sqlite"
    shutil.copy(DATA / "store_v3.sqlite", path)
    with RunStore(path) as db:
        (cell,) = scoreboard(db, "v3-store")
        assert (cell.runs, cell.unfinished, cell.beyond) == (1, 1, 0)
        (cell,) = scoreboard(db, "v3-store", runs=1)
        assert (cell.runs, cell.passed, cell.unfinished, cell.beyond) == (1, 1, 0, 1)
