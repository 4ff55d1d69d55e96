"""``toolwire experiment run`` and ``toolwire experiment report``."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

import typer

from .._words import plural
from . import app, fail

experiment_app: typer.Typer = typer.Typer(
    name="experiment",
    help="Run tool-layer experiments from a TOML spec and print their scoreboard.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(experiment_app, name="experiment")


def _console(stderr: bool = False) -> Any:
    from . import console as new_console

    console = new_console(stderr=stderr, highlight=False, soft_wrap=False, emoji=False)
    if not console.is_terminal:  # piped or captured: the whole scoreboard, not an 80-column squeeze
        console.width = 180
    return console


def _load(spec: Path, command: str) -> Any:
    from ..errors import ConfigurationError
    from ..experiments import load_spec

    try:
        return load_spec(spec)
    except ConfigurationError as exc:
        fail(command, str(exc), 2)


@experiment_app.command("run", short_help="Run the runs of a spec that are not finished yet (resumable).")
def run_command(
    spec: Path = typer.Argument(..., metavar="SPEC", help="The experiment spec (TOML)."),
    backend: str = typer.Option("local", "--backend", "-b", help="Where the runs run: local, ray or batch."),
    store: Optional[Path] = typer.Option(None, "--store", help="The run store (SQLite) instead of the spec's."),
    concurrency: Optional[int] = typer.Option(
        None, "--concurrency", "-j", min=1, help="Most runs at once (overrides the spec)."
    ),
    ray_address: Optional[str] = typer.Option(
        None, "--ray-address", help="The Ray cluster to join (ray.init(address=...)); default: a local one."
    ),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="Run again the runs whose outcome was an error."),
    keep_projects: bool = typer.Option(
        False, "--keep-projects", help="Keep every run's project copy (local and ray backends)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    poll_interval: Optional[float] = typer.Option(
        None, "--poll-interval", min=0, help="Seconds between polls of a batch job (batch backend; default 30)."
    ),
    max_polls: Optional[int] = typer.Option(
        None, "--max-polls", min=0, help="Stop polling after N polls of a round and exit 75 (batch backend)."
    ),
    max_wait: Optional[float] = typer.Option(
        None,
        "--max-wait",
        min=0,
        help="Stop polling a round after SECONDS and exit 75 (batch backend; default 90000, 25 hours).",
    ),
    wait: bool = typer.Option(
        False,
        "--wait",
        help="When another process runs some of the runs, wait until they are finished (and take over "
        "those whose process dies) instead of exiting 75.",
    ),
    wait_timeout: Optional[float] = typer.Option(
        None,
        "--wait-timeout",
        min=0,
        metavar="SECONDS",
        help="Wait (--wait, which this implies) at most SECONDS from when the waiting begins, then exit 75 "
        "(a run taken over meanwhile is finished first). Default: no limit.",
    ),
) -> None:
    """Run every run of SPEC that has no finished record yet (a rerun after an interruption
    does only the missing runs). Runs another `toolwire experiment run` on the same store is
    running are left to it. Exit codes: 0 all runs recorded, 1 a run could not be done, 2 a bad
    spec or option, 75 the experiment is not complete yet, through no error: runs wait for their
    batch jobs (batch backend: run the same command again to collect them) or still run in
    another process (run the command again later, or with --wait; with --wait-timeout, when the
    wait ran out), 130 interrupted (run the same command again to continue)."""
    from ..batch import BatchPending
    from ..errors import ConfigurationError
    from ..experiments import Progress, run_experiment

    command = "experiment run"
    if backend != "batch":
        given = [
            n
            for n, v in (("--poll-interval", poll_interval), ("--max-polls", max_polls), ("--max-wait", max_wait))
            if v is not None
        ]
        if given:
            # silently ignored, --wait --max-wait N would wait forever
            fail(
                command,
                f"{', '.join(given)} bound(s) the polling of batch jobs (--backend batch) only; the {backend} backend "
                "has no batch job: leave it out (--wait waits until the runs other processes hold are finished; "
                "--wait-timeout SECONDS bounds that wait, or run without --wait to exit 75 at once)",
                2,
            )
    exp = _load(spec, command)
    options: dict[str, Any] = {}
    if backend == "local":
        options = {"concurrency": concurrency, "keep_projects": keep_projects}
    elif backend == "ray":
        options = {"address": ray_address, "concurrency": concurrency, "keep_projects": keep_projects}
    elif backend == "batch":
        options = {"poll_interval": poll_interval, "max_polls": max_polls, "max_wait": max_wait}
    elif concurrency is not None:
        options = {"concurrency": concurrency}
    err = _console(stderr=True)
    state: dict[str, Any] = {"passed": 0, "failed": 0, "errors": 0}
    errored: list[Any] = []  # the records of the runs that ended in an error, in the order they ended
    again = f"{spec}" + (f" --store {store}" if store else "") + (f" --backend {backend}" if backend != "local" else "")
    progress_bar: Any = None
    task: Any = None

    def on_progress(event: Progress) -> None:
        nonlocal task
        if event.kind == "planned":
            elsewhere = f", {event.elsewhere} running in another process" if event.elsewhere else ""
            err.print(
                f"experiment {exp.name}: {plural(event.total, 'run')} "
                f"({plural(len(exp.layers), 'layer')} × {plural(len(exp.models), 'model')} × {plural(exp.runs, 'run')}), "
                f"{event.done} finished before, {event.pending} to run{elsewhere} · backend {backend} · "
                f"store {store or exp.store}"
            )
            if progress_bar is not None:
                task = progress_bar.add_task("runs", total=event.total, completed=event.done, status="")
        elif event.kind == "waiting" and progress_bar is not None and task is not None:
            # every finished run, whoever ran it
            progress_bar.update(
                task, completed=event.done, status=f"waiting for {plural(event.elsewhere, 'run')} elsewhere"
            )
        elif event.kind == "finished" and event.record is not None:
            outcome = event.record.outcome
            key = {"pass": "passed", "fail": "failed"}.get(outcome, "errors")
            state[key] += 1
            if outcome == "error":
                errored.append(event.record)
            if progress_bar is not None and task is not None:
                status = f"{state['passed']} passed · {state['failed']} failed · {plural(state['errors'], 'error')}"
                progress_bar.update(task, advance=1, status=status)

    if not quiet:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        progress_bar = Bar(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=err,
            transient=False,
        )
    try:
        if progress_bar is not None:
            progress_bar.start()
        try:
            summary = asyncio.run(
                run_experiment(
                    exp,
                    backend=backend,
                    store=store,
                    on_progress=on_progress,
                    retry_errors=retry_errors,
                    backend_options={k: v for k, v in options.items() if v is not None},
                    wait=wait or wait_timeout is not None,
                    wait_timeout=wait_timeout,
                )
            )
        finally:
            if progress_bar is not None:
                progress_bar.stop()
    except KeyboardInterrupt:
        _print_errored(err, errored, again)
        err.print("interrupted: the finished runs are recorded; run the same command again to do the rest")
        raise typer.Exit(130)
    except BatchPending as exc:
        _print_errored(err, errored, again)
        err.print(str(exc), soft_wrap=True, markup=False)  # job ids stay whole, to be copied
        raise typer.Exit(75)
    except ConfigurationError as exc:
        _print_errored(err, errored, again)
        fail(command, str(exc), 2)
    _print_errored(err, errored, again)
    out = _console()
    out.print(
        f"{plural(len(summary.records), 'run')} done now, {summary.skipped} finished before: "
        f"{state['passed']} passed, {state['failed']} failed, {plural(state['errors'], 'error')} · records in {summary.store}"
    )
    _print_left(out, summary, again, wait_timeout)
    out.print(f"scoreboard: toolwire experiment report {spec}" + (f" --store {store}" if store else ""))
    if state["errors"]:
        raise typer.Exit(1)
    if summary.running_elsewhere:
        raise typer.Exit(75)


def _print_left(console: Any, summary: Any, again: str, wait_timeout: float | None = None) -> None:
    """What ``experiment run`` left to other processes: how many, which processes, how many of
    them are finished, and what to do about the rest (``wait_timeout``: the --wait-timeout
    given, said when the wait ran out)."""
    if not summary.left:
        return
    holders = list(dict.fromkeys(r.holder.describe() for r in summary.left if r.holder is not None))
    running = len(summary.running_elsewhere)
    where = f" ({', '.join(holders)})" if holders else ""
    if not running:
        state = "all finished there"
    elif running == len(summary.left):
        state = "still running"
    else:
        state = f"{len(summary.left) - running} finished there, {running} still running"
    others = "other processes" if len(holders) > 1 else "another process"
    console.print(
        f"{plural(len(summary.left), 'run')} left to {others}{where}: {state}",
        markup=False,
        soft_wrap=True,
    )
    if running and summary.wait_timed_out:
        console.print(
            f"  stopped waiting after {wait_timeout or 0:g} s (--wait-timeout): the experiment is not complete yet; "
            f"run `toolwire experiment run {again}` again later (with --wait to wait longer), it takes over the runs "
            "of a process that stopped",
            markup=False,
            soft_wrap=True,
        )
    elif running:
        console.print(
            f"  the experiment is not complete yet: `toolwire experiment run {again} --wait` waits for them; "
            "run without --wait later, it takes over the runs of a process that stopped",
            markup=False,
            soft_wrap=True,
        )


#: Most errored runs summarised by ``experiment run`` (the rest are counted; every error is in the store).
ERRORS_SHOWN = 5
#: Most characters of one error message shown.
ERROR_CHARS = 300

#: What to do about a run's error, by the error's type name (the run store keeps its message).
_NEXT_STEP = {
    "ProviderError": "the vendor refused or failed the request: check the model id, the API key and the quota",
    "RequestRefused": "the request breaks a vendor rule (named above): change the tools or settings it names",
    "ResponseDecodeError": "the vendor's answer could not be read",
    "ConfigurationError": "fix the model's settings or the tools as the message says",
    "AdapterNotInstalled": "install the adapter the message names",
    "ProviderNotFound": "fix the provider name in the spec's models",
    "ProviderToolUnsupported": "give this model only its own vendor's provider tools",
    "ExperimentSpecError": "fix the spec field the message names",
}


def _print_errored(console: Any, records: list[Any], again: str) -> None:
    """One short paragraph per errored run (at most :data:`ERRORS_SHOWN`): the run id, the error's
    type and message, and what to do next."""
    if not records:
        return
    console.print(f"{plural(len(records), 'run')} ended in an error:", markup=False)
    for record in records[:ERRORS_SHOWN]:
        text = " ".join(str(record.error or "unknown error").split())
        kind, sep, message = text.partition(": ")
        if not sep or " " in kind:
            kind, message = "error", text
        if len(message) > ERROR_CHARS:
            message = message[: ERROR_CHARS - 1] + "…"
        step = _NEXT_STEP.get(kind, "fix the cause the message gives")
        console.print(
            f"  {record.run.run_id} (attempt {record.run.attempt}): {kind}: {message}", markup=False, soft_wrap=True
        )
        console.print(f"    next: {step}", markup=False, soft_wrap=True)
    if len(records) > ERRORS_SHOWN:
        console.print(f"  … and {plural(len(records) - ERRORS_SHOWN, 'more errored run')}", markup=False)
    console.print(
        f"  then run them again: toolwire experiment run {again} --retry-errors (finished runs are kept); "
        "each error is in the run store's check_output column",
        markup=False,
        soft_wrap=True,
    )


def _frac(value: Fraction | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{float(value):,.{digits}f}"


def _tokens(value: Any) -> str:
    if value is None:
        return "–"
    v = float(value)
    return f"{v:,.0f}" if v == int(v) else f"{v:,.1f}"


def _usd(value: Decimal | None) -> str:
    if value is None:
        return "–"
    return f"${value:,.4f}" if value >= Decimal("0.01") else f"${value:.6f}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, Decimal):
        return str(value)
    return value


def _cost_cell(c: Any) -> str:
    """The cost column: the priced runs' median (min–max), then the runs without a cost and why —
    no usage (the run errored before any model answer), no usage reported (its answers carried no
    token counts), or no price (the price data lacks the model)."""
    reasons = (
        (c.no_usage, "no usage (run errored)"),
        (c.usage_unreported, "no usage reported"),
        (c.unpriced, "no price for the model"),
    )
    missing = [(n, why) for n, why in reasons if n]
    if c.cost_median is None and len(missing) == 1:
        return missing[0][1]  # every run of the cell lacks a cost for the same reason
    notes = [f"{plural(n, 'run')}: {why}" for n, why in missing]
    if c.cost_median is None:
        return "; ".join(notes) or "–"
    return "; ".join([f"{_usd(c.cost_median)} ({_usd(c.cost_min)}–{_usd(c.cost_max)})", *notes])


@experiment_app.command("report", short_help="Print the scoreboard; write the runs as CSV and the chart as PNG.")
def report_command(
    spec: Optional[Path] = typer.Argument(None, metavar="SPEC", help="The experiment spec (TOML)."),
    store: Optional[Path] = typer.Option(None, "--store", help="The run store (SQLite) instead of the spec's."),
    experiment: Optional[str] = typer.Option(
        None, "--experiment", "-e", help="The experiment's name (default: the spec's)."
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Folder for the CSV and the chart (default: beside the store)."
    ),
    chart: bool = typer.Option(True, "--chart/--no-chart", help="Draw the PNG chart (needs the report extra)."),
    as_json: bool = typer.Option(False, "--json", help="Print the scoreboard as JSON."),
) -> None:
    """Print the scoreboard per layer × model — runs, pass rate, turns and tool errors (mean),
    output tokens (mean), input tokens and cost (median, min–max) — and write the runs as CSV
    and a chart of input tokens per run by layer (PNG, log scale). Only the spec's runs count:
    run indexes below its `runs` (SPEC's, else the spec of the last `experiment run`); recorded
    runs beyond it (after `runs` was lowered) are left out and counted on a line of their own."""
    from ..errors import ConfigurationError
    from ..experiments.report import counted_runs, scoreboard, write_report
    from ..store import RunStore

    command = "experiment report"
    if spec is None and (store is None or experiment is None):
        fail(command, "give the SPEC, or --store FILE with --experiment NAME", 2)
    exp = _load(spec, command) if spec is not None else None
    if exp is None:
        assert store is not None and experiment is not None
        store_path, name = store, experiment
    else:
        store_path = store if store is not None else Path(exp.store)
        name = experiment or exp.name
    if not store_path.exists():
        fail(command, f"no run store at {store_path}; run `toolwire experiment run` first", 2)
    try:
        with RunStore(store_path) as db:
            runs = counted_runs(db, name, exp.runs if exp is not None else None)
            cells = scoreboard(db, name, runs=runs)
            files = write_report(db, name, out if out is not None else store_path.parent, chart=chart, runs=runs)
    except ConfigurationError as exc:
        fail(command, str(exc), 2)
    beyond = sum(c.beyond for c in cells)
    if as_json:
        rows = [
            {k: _jsonable(getattr(c, k)) for k in c.__dataclass_fields__} | {"pass_rate": _jsonable(c.pass_rate)}
            for c in cells
        ]
        print(
            json.dumps(
                {
                    "experiment": name,
                    "runs": runs,
                    "beyond": beyond,
                    "cells": rows,
                    "csv": str(files.csv),
                    "chart": str(files.chart) if files.chart else None,
                },
                indent=2,
            )
        )
        return
    from rich.table import Table

    table = Table(title=f"{name}: scoreboard", show_lines=False)
    for col, justify in (
        ("layer", "left"),
        ("model", "left"),
        ("runs", "right"),
        ("pass rate", "right"),
        ("turns (mean)", "right"),
        ("tool errors (mean)", "right"),
        ("output tokens (mean)", "right"),
        ("input tokens: median (min–max)", "right"),
        ("cost: median (min–max)", "right"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for c in cells:
        rate = "–" if c.pass_rate is None else f"{c.passed}/{c.runs} ({float(c.pass_rate):.0%})"
        inputs = (
            "–"
            if c.input_tokens_median is None
            else f"{_tokens(c.input_tokens_median)} ({_tokens(c.input_tokens_min)}–{_tokens(c.input_tokens_max)})"
        )
        cost = _cost_cell(c)
        runs = str(c.runs) + (f" (+{c.unfinished} unfinished)" if c.unfinished else "")
        table.add_row(
            c.layer, c.model, runs, rate, _frac(c.turns), _frac(c.tool_errors), _frac(c.output_tokens, 0), inputs, cost
        )
    console = _console()
    console.print(table)
    if beyond:
        console.print(
            f"left out: {plural(beyond, 'recorded run')} with a run index ≥ runs = {runs} (runs was lowered); "
            "raise runs in the spec to count them again",
            markup=False,
            soft_wrap=True,
        )
    console.print(f"runs as CSV: {files.csv}")
    if files.chart is not None:
        console.print(f"chart: {files.chart}")
