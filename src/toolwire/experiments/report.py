"""The scoreboard of an experiment, read back from its run store: per layer × model, how many
runs finished, how many passed, and what they cost.

- :func:`run_rows` — one dict per finished run (the CSV's rows);
- :func:`scoreboard` — one :class:`Cell` per layer × model, in the spec's order: ``runs``,
  ``passed`` / ``pass_rate``, ``turns`` and ``tool_errors`` (means), ``output_tokens`` (mean),
  ``input_tokens`` and ``cost_usd`` (median, min and max). Means and medians are exact
  (:class:`fractions.Fraction` for counts, :class:`decimal.Decimal` for dollars);
- :func:`write_csv`, :func:`write_chart` (input tokens per run by layer, log scale; needs the
  ``report`` extra, matplotlib, drawn with its non-interactive Agg backend) and
  :func:`write_report` (both, beside each other).

Only finished runs count (those with an outcome); runs still running or interrupted are counted
in ``Cell.unfinished``. Only the spec's runs count: those whose run index is below its ``runs``
(``runs=`` given here, else the spec recorded by the last ``experiment run``). After ``runs`` was
lowered, the recorded runs beyond it are left out of every number, the CSV and the chart, and
counted in ``Cell.beyond``; raising ``runs`` again counts them again (nothing is deleted). A run without a cost is one of three kinds: ``Cell.no_usage`` counts runs
that got no model answer at all (they ended in an error before the first turn: nothing to price),
``Cell.usage_unreported`` runs whose answers carried no token counts, ``Cell.unpriced`` runs with
token counts the price data cannot price (it does not know the model). The cost columns cover the
priced runs only.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import ConfigurationError

if TYPE_CHECKING:  # pragma: no cover
    from ..store import RunStore, StoredRun

__all__ = [
    "CSV_COLUMNS",
    "Cell",
    "counted_runs",
    "run_rows",
    "scoreboard",
    "write_chart",
    "write_csv",
    "write_report",
]

#: The CSV's columns, in order (one row per finished run).
CSV_COLUMNS = (
    "experiment",
    "layer",
    "model",
    "run_index",
    "attempt",
    "outcome",
    "status",
    "turns",
    "tool_calls",
    "tool_errors",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_write_1h_tokens",
    "reasoning_tokens",
    "cost_usd",
    "wall_time",
)


@dataclass(frozen=True)
class Cell:
    """One layer × model of the scoreboard (see the module docs). Token and cost statistics are
    ``None`` when no finished run of the cell reported them. ``beyond``: recorded runs of the
    cell whose run index is not below the spec's ``runs`` (it was lowered), left out of every
    other number."""

    layer: str
    model: str
    runs: int
    passed: int
    errors: int
    unfinished: int
    unpriced: int
    no_usage: int
    usage_unreported: int
    turns: Fraction | None
    tool_errors: Fraction | None
    output_tokens: Fraction | None
    input_tokens_median: Fraction | None
    input_tokens_min: int | None
    input_tokens_max: int | None
    cost_median: Decimal | None
    cost_min: Decimal | None
    cost_max: Decimal | None
    beyond: int = 0

    @property
    def pass_rate(self) -> Fraction | None:
        return Fraction(self.passed, self.runs) if self.runs else None


def _order(store: RunStore, experiment: str) -> tuple[list[str], list[str]]:
    """The layers and models in the recorded spec's order (what is not text there is skipped:
    the order is all it gives)."""
    row = store.experiment(experiment)
    if row is None:
        return [], []
    spec = row["spec"]
    layers, models = spec.get("layers"), spec.get("models")
    return (
        [k for k in layers if isinstance(k, str)] if isinstance(layers, (dict, list)) else [],
        [m["model"] for m in models if isinstance(m, dict) and isinstance(m.get("model"), str)]
        if isinstance(models, list)
        else [],
    )


#: The outcomes a finished run's record holds.
OUTCOMES = ("pass", "fail", "error")


def _check_outcome(store: RunStore, r: StoredRun) -> None:
    """Raise :class:`~toolwire.store.RunStoreError` for an outcome the scoreboard cannot count."""
    if r.outcome is None or r.outcome in OUTCOMES:
        return
    from ..store import RunStoreError

    path = str(store.path)
    run_id = r.run_id.replace("'", "''")
    raise RunStoreError(
        f"the run store {path!r} holds a run the report cannot count, {r.run_id!r}: its outcome is {r.outcome!r}, "
        f"not pass, fail or error (or NULL while unfinished); the file was changed outside toolwire. Set it right "
        f"(e.g. `sqlite3 {path} \"UPDATE runs SET outcome=NULL WHERE run_id='{run_id}'\"`: the next `experiment "
        "run` runs it again) or restore the file from a backup; the rows are left as they are",
        path=path,
        reason="damaged",
    )


def counted_runs(store: RunStore, experiment: str, runs: int | None = None) -> int | None:
    """How many runs per cell the report counts: ``runs`` when given, else the ``runs`` of the
    spec recorded for ``experiment`` (``None``: no limit known, every recorded run counts).
    Raises :class:`~toolwire.errors.ConfigurationError` for a ``runs`` that is not a whole
    number ≥ 1."""
    if runs is None:
        row = store.experiment(experiment)
        value = row["spec"].get("runs") if row is not None and isinstance(row["spec"], dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ConfigurationError(f"runs must be a whole number ≥ 1, got {runs!r}")
    return runs


def _beyond(r: StoredRun, limit: int | None) -> bool:
    return limit is not None and r.run_index is not None and r.run_index >= limit


def _cell(r: StoredRun) -> tuple[str, str]:
    return (r.variant if r.variant is not None else str(r.labels.get("layer", "")), str(r.labels.get("model", r.model)))


def run_rows(
    store: RunStore, experiment: str, *, finished_only: bool = True, runs: int | None = None
) -> list[dict[str, Any]]:
    """The runs of ``experiment`` as dicts with the :data:`CSV_COLUMNS` keys (``cost_usd`` a
    ``Decimal`` or ``None``), ordered by layer and model as in the spec, then run index. Runs
    whose index is not below ``runs`` (default: the recorded spec's, see :func:`counted_runs`)
    are left out. Raises :class:`~toolwire.errors.ConfigurationError` when the store has no
    such experiment, and :class:`~toolwire.store.RunStoreError` (reason ``damaged``) for a row
    changed outside toolwire (a column of the wrong type, an outcome other than ``pass``,
    ``fail``, ``error`` or null, a recorded spec that is not a JSON object)."""
    if store.experiment(experiment) is None and not store.runs(experiment=experiment):
        known = store.experiments()
        raise ConfigurationError(
            f"the run store {str(store.path)!r} has no experiment {experiment!r}"
            + (f"; it has: {', '.join(known)}" if known else "; run `toolwire experiment run SPEC` first")
        )
    limit = counted_runs(store, experiment, runs)
    layers, models = _order(store, experiment)
    out = []
    for r in store.runs(experiment=experiment):
        _check_outcome(store, r)
        if (finished_only and r.outcome is None) or _beyond(r, limit):
            continue
        layer, model = _cell(r)
        out.append(
            {
                "experiment": experiment,
                "layer": layer,
                "model": model,
                "run_index": r.run_index,
                "attempt": r.attempt,
                "outcome": r.outcome,
                "status": r.status,
                "turns": r.turns,
                "tool_calls": r.tool_calls,
                "tool_errors": r.tool_errors,
                **{
                    k: r.usage.get(k)
                    for k in (
                        "input_tokens",
                        "output_tokens",
                        "cache_read_tokens",
                        "cache_write_tokens",
                        "cache_write_1h_tokens",
                        "reasoning_tokens",
                    )
                },
                "cost_usd": Decimal(r.cost_usd) if r.cost_usd is not None else None,
                "wall_time": r.wall_time,
            }
        )

    def key(row: dict[str, Any]) -> tuple[int, int, str, str, int]:
        li = layers.index(row["layer"]) if row["layer"] in layers else len(layers)
        mi = models.index(row["model"]) if row["model"] in models else len(models)
        return (li, mi, row["layer"], row["model"], row["run_index"] if row["run_index"] is not None else -1)

    out.sort(key=key)
    return out


def _mean(values: Sequence[int | None]) -> Fraction | None:
    xs = [v for v in values if v is not None]
    return Fraction(sum(xs), len(xs)) if xs else None


def _median(values: Sequence[int | None]) -> Fraction | None:
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    n = len(xs)
    return Fraction(xs[n // 2]) if n % 2 else Fraction(xs[n // 2 - 1] + xs[n // 2], 2)


def scoreboard(store: RunStore, experiment: str, *, runs: int | None = None) -> list[Cell]:
    """One :class:`Cell` per layer × model that has runs, in the spec's order, counting the runs
    whose index is below ``runs`` (default: the recorded spec's, see :func:`counted_runs`)."""
    rows = run_rows(store, experiment, runs=runs)
    limit = counted_runs(store, experiment, runs)
    unfinished: dict[tuple[str, str], int] = {}
    beyond: dict[tuple[str, str], int] = {}
    for r in store.runs(experiment=experiment):
        if _beyond(r, limit):
            beyond[_cell(r)] = beyond.get(_cell(r), 0) + 1
        elif r.outcome is None:
            unfinished[_cell(r)] = unfinished.get(_cell(r), 0) + 1
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        cells.setdefault((row["layer"], row["model"]), []).append(row)
    for cell in (*unfinished, *beyond):
        cells.setdefault(cell, [])
    layers, models = _order(store, experiment)

    def key(cell: tuple[str, str]) -> tuple[int, int, str, str]:
        return (
            layers.index(cell[0]) if cell[0] in layers else len(layers),
            models.index(cell[1]) if cell[1] in models else len(models),
            *cell,
        )

    out = []
    for cell in sorted(cells, key=key):
        rs = cells[cell]
        inputs = [r["input_tokens"] for r in rs if r["input_tokens"] is not None]
        costs = sorted(r["cost_usd"] for r in rs if r["cost_usd"] is not None)
        out.append(
            Cell(
                layer=cell[0],
                model=cell[1],
                runs=len(rs),
                passed=sum(1 for r in rs if r["outcome"] == "pass"),
                errors=sum(1 for r in rs if r["outcome"] == "error"),
                unfinished=unfinished.get(cell, 0),
                unpriced=sum(1 for r in rs if r["cost_usd"] is None and r["turns"] and r["input_tokens"] is not None),
                no_usage=sum(1 for r in rs if r["cost_usd"] is None and not r["turns"]),
                usage_unreported=sum(
                    1 for r in rs if r["cost_usd"] is None and r["turns"] and r["input_tokens"] is None
                ),
                turns=_mean([r["turns"] for r in rs]),
                tool_errors=_mean([r["tool_errors"] for r in rs]),
                output_tokens=_mean([r["output_tokens"] for r in rs]),
                input_tokens_median=_median(inputs),
                input_tokens_min=min(inputs) if inputs else None,
                input_tokens_max=max(inputs) if inputs else None,
                cost_median=statistics.median(costs) if costs else None,
                cost_min=costs[0] if costs else None,
                cost_max=costs[-1] if costs else None,
                beyond=beyond.get(cell, 0),
            )
        )
    return out


def write_csv(rows: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """Write ``rows`` (from :func:`run_rows`) as CSV with a header of :data:`CSV_COLUMNS`."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for row in rows:
            w.writerow(["" if row.get(c) is None else row.get(c) for c in CSV_COLUMNS])
    return p


def write_chart(rows: Sequence[dict[str, Any]], path: str | Path, *, title: str | None = None) -> Path:
    """Draw input tokens per run by layer (one column of dots per layer, one colour per model,
    a bar at each cell's median; the y axis logarithmic) and save it as PNG. Needs matplotlib
    (the ``report`` extra); raises :class:`~toolwire.errors.ConfigurationError` saying how to
    install it when it is missing."""
    try:
        import matplotlib
    except ImportError:
        from .._install import extra_install_command

        raise ConfigurationError(f"the chart needs matplotlib: {extra_install_command('report')}") from None
    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    layers = list(dict.fromkeys(r["layer"] for r in rows))
    models = list(dict.fromkeys(r["model"] for r in rows))
    fig = Figure(figsize=(7.5, 4.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.7 / max(1, len(models))
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    for mi, model in enumerate(models):
        xs, ys = [], []
        medians = []
        for li, layer in enumerate(layers):
            vals = [
                r["input_tokens"] for r in rows if r["layer"] == layer and r["model"] == model and r["input_tokens"]
            ]
            centre = li + (mi - (len(models) - 1) / 2) * width
            n = len(vals)
            for k, v in enumerate(sorted(vals)):
                xs.append(centre + ((k - (n - 1) / 2) * (width * 0.6 / max(1, n - 1)) if n > 1 else 0.0))
                ys.append(v)
            med = _median(vals)
            if med is not None:
                medians.append((centre, float(med)))
        colour = colours[mi % len(colours)]
        ax.scatter(xs, ys, s=28, color=colour, alpha=0.8, label=model, zorder=3)
        for centre, med in medians:
            ax.hlines(med, centre - width * 0.45, centre + width * 0.45, colors=colour, linewidth=2.2, zorder=4)
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator

    def tokens(v: float, _pos: Any) -> str:
        return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(tokens))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _pos: ""))
    ax.set_xticks(range(len(layers)))
    ax.set_xticklabels(layers)
    ax.set_xlim(-0.6, len(layers) - 0.4)
    ax.set_xlabel("tool layer")
    ax.set_ylabel("input tokens per run (log scale)")
    ax.set_title(title or "Input tokens per run by tool layer (bar: median)")
    ax.grid(axis="y", which="both", alpha=0.3, zorder=0)
    ax.legend(loc="best", fontsize="small", frameon=False)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, format="png")
    return p


@dataclass(frozen=True)
class ReportFiles:
    """Where :func:`write_report` wrote the CSV and the chart (``chart`` is ``None`` when it was
    not drawn)."""

    csv: Path
    chart: Path | None


def write_report(
    store: RunStore, experiment: str, out_dir: str | Path, *, chart: bool = True, runs: int | None = None
) -> ReportFiles:
    """Write ``<experiment>.csv`` and (``chart``) ``<experiment>.png`` into ``out_dir`` (created
    when missing), of the runs whose index is below ``runs`` (see :func:`counted_runs`). Raises
    :class:`~toolwire.errors.ConfigurationError` naming ``out_dir`` when it cannot be written (a
    file, no permission, a full disk)."""
    rows = run_rows(store, experiment, runs=runs)
    out = Path(out_dir)
    try:
        if out.exists() and not out.is_dir():
            raise NotADirectoryError(20, "it is a file, not a folder", str(out))
        csv_path = write_csv(rows, out / f"{experiment}.csv")
        png = (
            write_chart(rows, out / f"{experiment}.png", title=f"{experiment}: input tokens per run (bar: median)")
            if chart
            else None
        )
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise ConfigurationError(
            f"cannot write the report into {str(out)!r}: {where}: {exc.strerror or exc}; give a folder you can write"
        ) from None
    return ReportFiles(csv_path, png)
