"""``toolwire experiment run SPEC --backend batch``: a two-turn experiment per vendor API against
mocked batch endpoints through the real SDKs — the records, the batch-priced cost, the same
report as an uninterrupted run after a restart mid-poll, and no job submitted twice."""

from __future__ import annotations

import asyncio
import importlib
import itertools
import sqlite3
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.batch import BatchPending
from toolwire.experiments import run_experiment
from toolwire.experiments.report import scoreboard
from toolwire.store import RunStore

from .fakes import FakeAnthropic, FakeGemini, FakeOpenAI

# (spec, fake, API key, standard $ per million input / output tokens: the vendors' price pages)
VENDORS: dict[str, tuple[str, type, str, Decimal, Decimal]] = {
    "anthropic": ("anthropic:claude-sonnet-4-5", FakeAnthropic, "sk-ant-test", Decimal(3), Decimal(15)),
    "openai": ("openai:gpt-5-mini", FakeOpenAI, "sk-test", Decimal("0.25"), Decimal(2)),
    "openai-chat": ("openai-chat:gpt-4.1", FakeOpenAI, "sk-test", Decimal(2), Decimal(8)),
    "gemini": ("gemini:gemini-2.5-flash", FakeGemini, "gemini-test-key", Decimal("0.30"), Decimal("2.50")),
}

FACTORIES = """
import httpx2
import toolwire

FAKE = None  # the test sets it: the vendor's mocked endpoints


def model(run):
    return toolwire.model({spec!r}, api_key={key!r}, max_retries=0,
                          http_client=httpx2.AsyncClient(transport=FAKE.transport()))


def layer(root):
    @toolwire.tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two whole numbers and write the sum to answer.txt. Use it for every sum.

        Args:
            a: the first number
            b: the second number
        \"\"\"
        (root / "answer.txt").write_text(str(a + b))
        return a + b

    return [add]
"""

SPEC = """
name = "batch-sum"
runs = 2
concurrency = 1
max_turns = 5
store = "sum.sqlite"
models = [{{ model = {spec!r}, factory = "{module}:model" }}]

[task]
prompt = "What is 2 + 40? Use the add tool."
instructions = "You add numbers with the add tool."
project = "project"
checker = ["{{python}}", "-c", "import pathlib, sys; sys.exit(pathlib.Path('answer.txt').read_text() != '42')"]

[layers]
sum = "{module}:layer"
"""

_names = itertools.count()
PROMPT = "What is 2 + 40? Use the add tool."
INSTRUCTIONS = "You add numbers with the add tool."


def write_spec(folder: Path, vendor: str, fake: Any) -> tuple[Path, Any]:
    spec, _, key, *_ = VENDORS[vendor]
    module = f"batch_sum_factories_{next(_names)}"
    (folder / f"{module}.py").write_text(FACTORIES.format(spec=spec, key=key))
    (folder / "project").mkdir()
    (folder / "project" / "README").write_text("sums go to answer.txt\n")
    path = folder / "sum.toml"
    path.write_text(textwrap.dedent(SPEC.format(spec=spec, module=module)))
    import sys

    sys.path.insert(0, str(folder))
    try:
        factories = importlib.import_module(module)
    finally:
        sys.path.remove(str(folder))
    factories.FAKE = fake
    return path, factories


def numbers(store: Path) -> tuple[Any, ...]:
    with RunStore(store) as db:
        (cell,) = scoreboard(db, "batch-sum")
    return (
        cell.runs,
        cell.passed,
        cell.turns,
        cell.tool_errors,
        cell.output_tokens,
        cell.input_tokens_median,
        cell.cost_median,
    )


def rows(store: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(store)
    try:
        return conn.execute(
            "SELECT run_index, outcome, turns, tool_calls, tool_errors, input_tokens, output_tokens, cost_usd "
            "FROM runs ORDER BY run_index"
        ).fetchall()
    finally:
        conn.close()


def batch_cost(vendor: str) -> Decimal:
    *_, inp, out = VENDORS[vendor]
    return (250 * inp + 50 * out) / Decimal(1_000_000) / 2  # half the standard price


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_two_turn_experiment_on_the_batch_backend(vendor: str, tmp_path: Path) -> None:
    fake = VENDORS[vendor][1]()
    spec, factories = write_spec(tmp_path, vendor, fake)
    summary = asyncio.run(run_experiment(spec, backend="batch", backend_options={"poll_interval": 0}))
    assert (summary.total, summary.skipped, len(summary.records)) == (2, 0, 2)
    cost = batch_cost(vendor)
    got = [r[:-1] + (Decimal(r[-1]),) for r in rows(tmp_path / "sum.sqlite")]
    assert got == [(i, "pass", 2, 1, 0, 250, 50, cost) for i in range(2)]
    assert fake.creates == 2  # one batch per round: both runs' turn 1, then both runs' turn 2
    assert [len(job) for job in fake.jobs.values()] == [2, 2]
    # the bodies in the batch are the ones the normal path sends for the same task
    assert fake.normal == []
    normal = type(fake)()
    factories.FAKE = normal
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = toolwire.run_sync(
        factories.model(None), PROMPT, tools=factories.layer(scratch), instructions=INSTRUCTIONS, max_turns=5
    )
    assert result.text == "The sum is 42." and len(normal.normal) == 2
    first, second = fake.jobs.values()
    assert [body for _, body in first] == [normal.normal[0]] * 2
    assert [body for _, body in second] == [normal.normal[1]] * 2
    assert numbers(tmp_path / "sum.sqlite") == (2, 2, 2, 0, 50, 250, cost)


@pytest.mark.parametrize("vendor", ["anthropic", "gemini"])
def test_a_restart_mid_poll_resumes_the_same_jobs_and_gives_the_same_report(vendor: str, tmp_path: Path) -> None:
    fake = VENDORS[vendor][1](polls_before_end=2)
    spec, _ = write_spec(tmp_path, vendor, fake)
    with pytest.raises(BatchPending, match="run the same command again") as stopped:
        asyncio.run(run_experiment(spec, backend="batch", backend_options={"poll_interval": 0, "max_polls": 1}))
    (job1,) = fake.jobs
    assert stopped.value.job_ids == [job1] and fake.creates == 1
    assert [r[1] for r in rows(tmp_path / "sum.sqlite")] == [None, None]  # interrupted, not finished
    summary = asyncio.run(run_experiment(spec, backend="batch", backend_options={"poll_interval": 0}))
    assert len(summary.records) == 2
    assert fake.creates == 2  # turn 1 was polled again, not submitted again
    assert fake.polls[job1] == 1 + fake.polls_before_end + fake.reads_for_results
    conn = sqlite3.connect(tmp_path / "sum.sqlite")
    attempts = conn.execute("SELECT attempt FROM runs ORDER BY run_index").fetchall()
    conn.close()
    assert attempts == [(1,), (1,)]  # resumed from the checkpoints, not started again
    uninterrupted = tmp_path / "again"
    uninterrupted.mkdir()
    spec2, _ = write_spec(uninterrupted, vendor, VENDORS[vendor][1]())
    asyncio.run(run_experiment(spec2, backend="batch", backend_options={"poll_interval": 0}))
    assert numbers(tmp_path / "sum.sqlite") == numbers(uninterrupted / "sum.sqlite")
    assert rows(tmp_path / "sum.sqlite") == rows(uninterrupted / "sum.sqlite")
    # a third invocation has nothing to do
    again = asyncio.run(run_experiment(spec, backend="batch", backend_options={"poll_interval": 0}))
    assert (again.skipped, len(again.records), fake.creates) == (2, 0, 2)


def test_the_backend_is_found_by_name() -> None:
    from toolwire.experiments.backends import get_backend

    backend = get_backend("batch", poll_interval=5, max_polls=3)
    assert (backend.name, backend.poll_interval, backend.max_polls) == ("batch", 5.0, 3)


def test_toolwire_experiment_run_backend_batch(tmp_path: Path, capsys: Any) -> None:
    from toolwire.cli import main

    fake = FakeAnthropic(polls_before_end=0)  # each job has ended at its first poll: no wait
    spec, _ = write_spec(tmp_path, "anthropic", fake)
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", str(spec), "--backend", "batch", "--quiet"])
    out, err = capsys.readouterr()
    assert info.value.code in (0, None), err
    assert "2 runs done now, 0 finished before: 2 passed, 0 failed, 0 errors" in out
    assert fake.creates == 2
    with pytest.raises(SystemExit) as info:
        main(["experiment", "report", str(spec), "--no-chart"])
    out, err = capsys.readouterr()
    assert info.value.code in (0, None), err
    assert "sum" in out and "claude-sonnet-4-5" in out


def test_the_cli_stops_at_max_polls_with_exit_75_and_a_rerun_collects(tmp_path: Path, capsys: Any) -> None:
    from toolwire.cli import main

    fake = FakeGemini(polls_before_end=1)
    spec, _ = write_spec(tmp_path, "gemini", fake)
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", str(spec), "--backend", "batch", "--quiet", "--max-polls", "1"])
    _, err = capsys.readouterr()
    assert info.value.code == 75
    assert "2 runs wait for batch job batches/job001 (BATCH_STATE_RUNNING); run the same command again" in err
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", str(spec), "--backend", "batch", "--quiet", "--poll-interval", "0"])
    out, _ = capsys.readouterr()
    assert info.value.code in (0, None)
    assert "2 runs done now" in out and fake.creates == 2


def test_a_job_in_an_unknown_state_keeps_the_runs_waiting_and_a_rerun_collects(tmp_path: Path, capsys: Any) -> None:
    """A vendor state the docs do not list stops the round (exit 75, the state named); the runs keep
    their checkpoints and a later run of the same command polls the same job."""
    from toolwire.cli import main

    from .test_batch_bad_answers import OddOpenAI

    fake = OddOpenAI()
    fake.state = "paused"
    spec, _ = write_spec(tmp_path, "openai", fake)
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", str(spec), "--backend", "batch", "--quiet", "--poll-interval", "0"])
    _, err = capsys.readouterr()
    assert info.value.code == 75
    assert (
        "2 runs wait for batch job batch_001 (paused); polling stopped on a state the vendor does not "
        "document (batch_001: 'paused'); run the same command again to collect their results" in err
    )
    assert [r[1] for r in rows(tmp_path / "sum.sqlite")] == [None, None] and fake.reads == 1
    fake.state = False
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", str(spec), "--backend", "batch", "--quiet", "--poll-interval", "0"])
    out, _ = capsys.readouterr()
    assert info.value.code in (0, None)
    assert "2 runs done now, 0 finished before: 2 passed" in out and fake.creates == 2


def test_bad_batch_backend_options_are_a_configuration_error(tmp_path: Path, capsys: Any) -> None:
    from toolwire.experiments.backends import get_backend

    with pytest.raises(toolwire.ConfigurationError) as caught:
        get_backend("batch", poll_interval="soon")
    assert str(caught.value) == "poll_interval must be a finite number of seconds, 0 or more; got 'soon'"
    with pytest.raises(toolwire.ConfigurationError, match="max_wait must be a finite number of seconds"):
        get_backend("batch", max_wait=-5)
