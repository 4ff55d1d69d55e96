"""``toolwire experiment run`` / ``report`` in process, and a checker that rejects editing the data."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
from experiment_helpers import EXAMPLE, MODEL

from toolwire.cli import main
from toolwire.experiments import run_experiment
from toolwire.experiments.report import scoreboard
from toolwire.store import RunStore

SMALL = f"""\
name = "small"
runs = 2
concurrency = 2
store = "out/small.sqlite"
models = [{{ model = "{MODEL}", factory = "sensor_agent:scripted" }}]
[task]
prompt = "The report's mean is far too low; fix it."
project = "toolwire.demo:DATA_DIR"
checker = ["{{python}}", "{EXAMPLE / "check.py"}", "{{project}}"]
[layers]
byte-sizes = "sensor_layers:byte_sizes"
"""


def cli(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_run_then_rerun_then_report(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 0, err
    assert "2 runs done now, 0 finished before: 2 passed, 0 failed, 0 errors" in " ".join(out.split())
    assert "1 layer × 1 model × 2 runs" in " ".join(err.split())
    code, out, err = cli(capsys, "experiment", "run", str(spec))
    assert code == 0, err
    assert "0 runs done now, 2 finished before" in " ".join(out.split())
    code, out, err = cli(capsys, "experiment", "report", str(spec), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    row = next(line for line in out.splitlines() if "byte-sizes" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells == [
        "byte-sizes",
        MODEL,
        "2",
        "2/2 (100%)",
        "6.0",
        "0.0",
        "310",
        "8,673 (8,673–8,673)",
        "$0.0307 ($0.0307–$0.0307)",
    ]
    assert (tmp_path / "rep" / "small.csv").read_text().count("\n") == 3
    assert (tmp_path / "rep" / "small.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = cli(
        capsys, "experiment", "report", str(spec), "--json", "--no-chart", "--out", str(tmp_path / "j")
    )
    data = json.loads(out)
    assert data["cells"][0]["input_tokens_median"] == 8673 and data["cells"][0]["cost_median"] == "0.030669"
    assert data["chart"] is None


def test_bad_spec_and_bad_backend_exit_2_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "bad.toml"
    spec.write_text(SMALL.replace("runs = 2", "runs = -1"))
    code, out, err = cli(capsys, "experiment", "run", str(spec))
    assert code == 2
    assert err.strip() == f"toolwire experiment run: {spec}: runs: must be a whole number ≥ 1, got -1"
    spec.write_text(SMALL)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--backend", "cloud")
    assert code == 2 and "unknown experiment backend 'cloud'; choose one of: local, ray, batch" in err
    code, out, err = cli(capsys, "experiment", "report", str(spec))
    assert code == 2 and "no run store at" in err


def test_batch_backend_refuses_a_model_without_batch_mode_before_any_run(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--backend", "batch", "--quiet")
    assert code == 2
    line = next(x for x in " ".join(err.split()).split("toolwire experiment run: ")[1:])
    assert line.startswith(f"{MODEL} has no batch mode: the vendor batch APIs are Anthropic Message Batches")
    assert not (tmp_path / "out" / "small.sqlite").exists() or RunStore(tmp_path / "out" / "small.sqlite").runs() == []


CHEATER = '''
"""An agent that 'fixes' the report by deleting the dropout rows from the data."""
from toolwire.testing.providers import ScriptedModel, call

SCRIPT = "import pathlib; p = pathlib.Path('data/sensor.csv'); p.write_text(''.join(l for l in p.read_text().splitlines(True) if '-999' not in l))"


def model(run):
    return ScriptedModel("claude-sonnet-4-5", responses=[
        {"text": "I'll drop the bad rows.", "tool_calls": [call("run_command", {"command": ["python", "-c", SCRIPT]})],
         "usage": {"input_tokens": 1000, "output_tokens": 50}},
        {"text": "Now the report.", "tool_calls": [call("run_command", {"command": ["python", "report.py"]})],
         "usage": {"input_tokens": 1200, "output_tokens": 40}},
        {"text": "Fixed: the mean is 21.13 C.", "usage": {"input_tokens": 1300, "output_tokens": 30}},
    ])
'''


def test_the_checker_fails_a_run_that_edited_the_data(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    (tmp_path / "cheater.py").write_text(textwrap.dedent(CHEATER))
    spec = tmp_path / "cheat.toml"
    spec.write_text(SMALL.replace("runs = 2", "runs = 1").replace("sensor_agent:scripted", "cheater:model"))
    summary = asyncio.run(run_experiment(spec))
    (record,) = summary.records
    assert (record.outcome, record.turns, record.tool_errors, record.input_tokens, record.output_tokens) == (
        "fail",
        3,
        0,
        3500,
        120,
    )
    # the report really printed the right mean; the checker failed the run for the data edit
    assert record.check_output.startswith("FAIL: report prints 21.13 C, expected 21.13 C; DATA WAS CHANGED")
    with RunStore(tmp_path / "out" / "small.sqlite") as db:
        (cell,) = scoreboard(db, "small")
    assert (cell.runs, cell.passed, cell.pass_rate) == (1, 0, 0)


ERRS = """
import toolwire
from toolwire.testing.providers import ScriptedModel


def refused(run):
    def respond(request):
        raise toolwire.ProviderError("anthropic", "invalid x-api-key", status=401, error_type="authentication_error")

    return ScriptedModel("claude-sonnet-4-5", respond=respond)
"""

MIXED = f"""\
name = "mixed"
runs = 1
store = "out/mixed.sqlite"
models = [
  {{ model = "scripted:claude-sonnet-4-5", factory = "errs:refused" }},
  {{ model = "scripted:no-such-model-9", factory = "sensor_agent:scripted" }},
]
[task]
prompt = "The report's mean is far too low; fix it."
project = "toolwire.demo:DATA_DIR"
checker = ["{{python}}", "{EXAMPLE / "check.py"}", "{{project}}"]
[layers]
byte-sizes = "sensor_layers:byte_sizes"
"""


def test_run_summarises_each_errored_run_and_report_tells_no_usage_from_no_price(tmp_path, capsys, monkeypatch):
    """An errored run's error is printed by ``experiment run`` (run id, type, message, next step);
    the report says "no usage (run errored)" for it and "no price for the model" for a model the
    price data does not know, instead of "unpriced" for both."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "errs.py").write_text(ERRS)
    spec = tmp_path / "mixed.toml"
    spec.write_text(MIXED)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 1
    assert "2 runs done now, 0 finished before: 1 passed, 0 failed, 1 error" in " ".join(out.split())
    lines = err.splitlines()
    start = lines.index("1 run ended in an error:")
    assert lines[start + 1 : start + 4] == [
        "  mixed/byte-sizes/scripted:claude-sonnet-4-5/0 (attempt 1): ProviderError: anthropic API error (HTTP "
        "401, authentication_error): invalid x-api-key",
        "    next: the vendor refused or failed the request: check the model id, the API key and the quota",
        f"  then run them again: toolwire experiment run {spec} --retry-errors (finished runs are kept); each "
        "error is in the run store's check_output column",
    ]
    code, out, err = cli(capsys, "experiment", "report", str(spec), "--no-chart", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    rows = {
        cells[1]: cells
        for line in out.splitlines()
        if "byte-sizes" in line
        for cells in [[c.strip() for c in line.strip("│ ").split("│")]]
    }
    assert rows["scripted:claude-sonnet-4-5"][2:4] == ["1", "0/1 (0%)"]
    assert rows["scripted:claude-sonnet-4-5"][-1] == "no usage (run errored)"
    assert rows["scripted:no-such-model-9"][-1] == "no price for the model"
    with RunStore(tmp_path / "out" / "mixed.sqlite") as db:
        cells = {c.model: c for c in scoreboard(db, "mixed")}
    assert (cells["scripted:claude-sonnet-4-5"].no_usage, cells["scripted:claude-sonnet-4-5"].unpriced) == (1, 0)
    assert (cells["scripted:no-such-model-9"].no_usage, cells["scripted:no-such-model-9"].unpriced) == (0, 1)


def test_the_cost_cell_lists_what_the_runs_without_a_cost_lack() -> None:
    from decimal import Decimal
    from types import SimpleNamespace

    from toolwire.cli.experiment_cmd import _cost_cell

    def cell(runs, no_usage, unpriced, median=None, unreported=0):
        lo = hi = median
        return SimpleNamespace(
            runs=runs,
            no_usage=no_usage,
            usage_unreported=unreported,
            unpriced=unpriced,
            cost_median=median,
            cost_min=lo,
            cost_max=hi,
        )

    assert _cost_cell(cell(3, 0, 0, Decimal("0.0307"))) == "$0.0307 ($0.0307–$0.0307)"
    assert _cost_cell(cell(3, 1, 0, Decimal("0.0307"))) == "$0.0307 ($0.0307–$0.0307); 1 run: no usage (run errored)"
    assert _cost_cell(cell(3, 2, 1)) == "2 runs: no usage (run errored); 1 run: no price for the model"
    assert _cost_cell(cell(2, 2, 0)) == "no usage (run errored)"
    assert _cost_cell(cell(2, 0, 2)) == "no price for the model"
    assert _cost_cell(cell(2, 0, 0, unreported=2)) == "no usage reported"
    assert _cost_cell(cell(3, 1, 1, unreported=1)) == (
        "1 run: no usage (run errored); 1 run: no usage reported; 1 run: no price for the model"
    )


def test_a_damaged_or_foreign_store_exits_2_with_one_line_saying_what_to_do(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL.replace("runs = 2", "runs = 1"))
    code, _, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 0, err
    store = tmp_path / "out" / "small.sqlite"
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])
    for args in (("run", str(spec), "--quiet"), ("report", str(spec), "--no-chart")):
        code, out, err = cli(capsys, "experiment", *args)
        text = " ".join(err.split())
        assert code == 2, (args, err)
        assert text == (
            f"toolwire experiment {args[0]}: the run store '{store}' is damaged (database disk image is malformed); "
            "restore it from a backup, or move it aside to start a new one (`sqlite3 FILE .recover` may save its rows)"
        )
    store.write_bytes(b"\x00" * 4096)
    code, _, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 2 and "is not an SQLite file (file is not a database)" in " ".join(err.split())


def test_report_out_that_cannot_be_written_exits_2_naming_it(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL.replace("runs = 2", "runs = 1"))
    assert cli(capsys, "experiment", "run", str(spec), "--quiet")[0] == 0
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    code, _, err = cli(capsys, "experiment", "report", str(spec), "--no-chart", "--out", str(taken))
    assert code == 2
    assert " ".join(err.split()) == (
        f"toolwire experiment report: cannot write the report into '{taken}': {taken}: it is a file, not a "
        "folder; give a folder you can write"
    )
    assert taken.read_text() == "not a folder"


def test_a_changed_task_is_not_mixed_into_the_runs_of_the_old_one(tmp_path, capsys, monkeypatch):
    """Changing the prompt and running again counted the old runs as finished runs of the new task
    in one scoreboard cell; the fingerprint was stored but never compared."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL.replace("runs = 2", "runs = 1"))
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 0, err
    spec.write_text(SMALL.replace("runs = 2", "runs = 2").replace("far too low; fix it.", "wrong; fix it."))
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 2 and "different" in err and "new name" in err
    # more runs of the same task are fine
    spec.write_text(SMALL)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--quiet")
    assert code == 0, err
    assert "1 runs done now, 1 finished before" in " ".join(
        out.split()
    ) or "1 run done now, 1 finished before" in " ".join(out.split())


def test_batch_polling_options_are_refused_with_another_backend(tmp_path, capsys, monkeypatch):
    """--wait --max-wait 5 on the local backend waited forever (the batch option was ignored)."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--wait", "--max-wait", "5")
    assert code == 2 and "--max-wait bound(s) the polling of batch jobs (--backend batch) only" in err
    assert not (tmp_path / "out").exists() and out == ""
    code, out, err = cli(capsys, "experiment", "run", str(spec), "--backend", "ray", "--max-polls", "2")
    assert code == 2 and "--max-polls" in err and "the ray backend has no batch job" in err
