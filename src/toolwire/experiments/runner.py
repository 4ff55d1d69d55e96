"""Running an experiment: the plan (which runs are still missing), one run from start to record,
and :func:`run_experiment`, which hands the missing runs to a backend.

Every backend uses the same pieces, so every backend writes the same records:

- :func:`plan` / :func:`plan_runs` — the runs still to do: every (layer, model, run index) of
  the spec without a finished record (``outcome`` set) in the store. A run with a record but no
  outcome was interrupted: it is planned again as the next ``attempt``, from scratch — unless
  another live process holds its claim (it is running there; see :mod:`toolwire.store`);
- :func:`prepare_project` — a fresh copy of the project folder for one attempt;
- :func:`build_tools` / :func:`build_model` — the layer's tools over that copy, the cell's model;
- :func:`check_project` — the checker's verdict on the copy after the run;
- :func:`make_record` — the :class:`RunRecord` (counts, tokens, cost, outcome) of a run state;
- :func:`start_run`, :func:`record_failure`, :func:`finish_run` — a run's claim and first
  record, its record when it raised, and its checked record when it ended, written through a
  :class:`~toolwire.experiments.backends.Recorder` (every backend records runs with these);
- :func:`execute_run` — all of the above for one run through :func:`toolwire.run_stream`,
  reporting to a :class:`~toolwire.experiments.backends.Recorder` as it goes.

Several processes may run one experiment on one store at once: each claims a run just before it
starts it (:meth:`StoreRecorder.claim`), so every run is done by one process; the runs another
process holds are left to it (:attr:`ExperimentRun.left`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .._words import plural
from ..errors import ConfigurationError, RunLimitExceeded
from ..store import (
    _ANY,
    HEARTBEAT_INTERVAL,
    STALE_AFTER,
    Lease,
    LeaseOwner,
    RunStoreError,
    RunTaken,
    _checked_run,
    lease_state,
)
from .spec import (
    Experiment,
    ExperimentSpecError,
    check_experiment,
    load_spec,
    resolve_reference,
    stops_command,
    validate,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..adapter import Model
    from ..runstate import RunState
    from ..store import RunStore
    from .backends import Recorder

log: logging.Logger = logging.getLogger("toolwire.experiments")

__all__ = [
    "LeftRun",
    "PendingRun",
    "Plan",
    "Progress",
    "RunRecord",
    "StoreRecorder",
    "build_model",
    "build_tools",
    "check_project",
    "claim_run",
    "execute_run",
    "finish_run",
    "make_record",
    "open_store",
    "plan",
    "plan_runs",
    "prepare_project",
    "project_path",
    "record_failure",
    "run_experiment",
    "start_run",
    "work_dir",
]

#: Most characters of the checker's output kept in the record (the tail).
CHECK_OUTPUT_CHARS = 2000
#: Seconds between two looks at the store while ``run_experiment(wait=True)`` waits for the runs
#: other processes hold.
WAIT_INTERVAL = 5.0


@dataclass(frozen=True)
class PendingRun:
    """One run to do: ``experiment`` (name), ``layer``, ``model`` (``"provider:model-id"`` as in
    the spec), ``index`` (0-based within the cell) and ``attempt`` (1 for the first try, more
    after interruptions). Plain data (it pickles). ``run_id`` is
    ``"<experiment>/<layer>/<model>/<index>"``: the same for every attempt."""

    experiment: str
    layer: str
    model: str
    index: int
    attempt: int = 1

    @property
    def run_id(self) -> str:
        return f"{self.experiment}/{self.layer}/{self.model}/{self.index}"

    @property
    def labels(self) -> dict[str, Any]:
        return {"layer": self.layer, "model": self.model, "index": self.index, "attempt": self.attempt}


@dataclass
class RunRecord:
    """What one finished run left: the experiment record of its ``runs`` row.

    ``outcome``: ``"pass"`` / ``"fail"`` (the checker's verdict) or ``"error"`` (the run raised:
    ``error`` says ``"TypeName: message"``); ``status``: the run state's (``finished``,
    ``stopped`` by a limit, ``failed``); ``turns`` (model requests), ``tool_calls``,
    ``tool_errors``; the token totals ``input_tokens``, ``output_tokens``, ``cache_read_tokens``,
    ``cache_write_tokens``, ``reasoning_tokens``, ``cache_write_1h_tokens`` (the part of the cache
    writes priced at the one-hour rate) (``None`` when the vendor reported none);
    ``cost_usd``: the run's cost in US dollars (``Decimal``; ``None`` when unpriced);
    ``wall_time``: seconds from the start of the run to its end (the checker not included);
    ``check_output``: the tail of the checker's output."""

    run: PendingRun
    outcome: str
    status: str
    turns: int
    tool_calls: int
    tool_errors: int
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: Decimal | None = None
    wall_time: float = 0.0
    error: str | None = None
    check_output: str = ""
    cache_write_1h_tokens: int | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"


@dataclass(frozen=True)
class Progress:
    """A progress event passed to ``on_progress``: ``kind`` is ``"planned"`` (``total`` runs in
    the spec, ``done`` already finished before this call, ``pending`` about to run,
    ``elsewhere`` held by other live processes and left to them), ``"started"`` (``run``),
    ``"finished"`` (``run`` and its ``record``), ``"left"`` (``run``: another process claimed it
    first, or took it over; this process does not run it) or ``"waiting"``
    (``run_experiment(wait=True)``, after each look at the store while other processes still
    hold runs: ``done`` is then every finished run, whoever ran it)."""

    kind: str
    total: int = 0
    done: int = 0
    pending: int = 0
    run: PendingRun | None = None
    record: RunRecord | None = None
    elsewhere: int = 0


# -- the plan -------------------------------------------------------------------------------------
def open_store(exp: Experiment, store: str | Path | None = None) -> RunStore:
    """The experiment's run store (``store`` overrides the spec's path); its folder is created."""
    from ..store import RunStore

    path = Path(store) if store is not None else Path(exp.store)
    path.parent.mkdir(parents=True, exist_ok=True)
    return RunStore(path)


def all_runs(exp: Experiment) -> list[PendingRun]:
    """Every run of the spec as a first attempt, in order (layer, model, index)."""
    return [
        PendingRun(exp.name, layer, model, i)
        for layer in exp.layers
        for model in exp.model_names
        for i in range(exp.runs)
    ]


@dataclass
class Plan:
    """What :func:`plan_runs` found: ``pending`` (the runs to do, in spec order), ``done`` (how
    many of the spec's runs are finished), ``elsewhere`` (the unfinished runs another live
    process holds, with its claim) and ``seen`` (the ``updated_at`` of each pending run's row
    when planned, ``None`` for no row: :meth:`~toolwire.store.RunStore.claim` claims a run only
    if its row is still so)."""

    pending: list[PendingRun]
    done: int
    elsewhere: list[tuple[PendingRun, Lease]] = field(default_factory=list)
    seen: dict[str, float | None] = field(default_factory=dict)


def plan_runs(
    exp: Experiment,
    store: RunStore,
    *,
    retry_errors: bool = False,
    owner: LeaseOwner | None = None,
    stale_after: float = STALE_AFTER,
) -> Plan:
    """The runs still to do (see :class:`Plan`). A run whose record has an outcome is finished
    (``retry_errors``: except those whose outcome is ``error``); one with a record but no
    outcome was interrupted and is planned as its next attempt — unless another live process
    holds its claim (:func:`toolwire.store.lease_state` with ``stale_after``; ``owner``: the
    caller, whose own claims do not count as another's), when it is left to that process. A run
    whose claim is stale is planned: its owner is gone, and the run is taken over. Raises
    :class:`~toolwire.store.RunStoreError` (reason ``damaged``) for a run row changed outside
    toolwire (an ``attempt`` that is not a whole number, ...), planning nothing."""
    me = owner if owner is not None else LeaseOwner.current()
    rows = store.execute("SELECT run_id, attempt, outcome, updated_at FROM runs WHERE experiment=?", (exp.name,))
    for r in rows:  # a value changed outside toolwire: RunStoreError naming the run and the column
        _checked_run(r, str(store.path))
    stored = {r["run_id"]: r for r in rows}
    held = store.leases(experiment=exp.name)
    now = time.time()
    out = Plan([], 0)
    for run in all_runs(exp):
        old = stored.get(run.run_id)
        if old is not None and old["outcome"] is not None and not (retry_errors and old["outcome"] == "error"):
            out.done += 1
            continue
        if old is not None:
            run = PendingRun(run.experiment, run.layer, run.model, run.index, (old["attempt"] or 1) + 1)
        lease = held.get(run.run_id)
        if lease is not None and lease_state(lease, me, now=now, stale_after=stale_after) == "live":
            out.elsewhere.append((run, lease))
            continue
        out.pending.append(run)
        out.seen[run.run_id] = old["updated_at"] if old is not None else None
    return out


def plan(
    exp: Experiment,
    store: RunStore,
    *,
    retry_errors: bool = False,
    owner: LeaseOwner | None = None,
    stale_after: float = STALE_AFTER,
) -> tuple[list[PendingRun], int]:
    """The runs still to do and how many of the spec's runs are finished already
    (:func:`plan_runs`: runs another live process holds are left out of both)."""
    found = plan_runs(exp, store, retry_errors=retry_errors, owner=owner, stale_after=stale_after)
    return found.pending, found.done


# -- the pieces of one run ------------------------------------------------------------------------
def work_dir(exp: Experiment) -> Path:
    """Where project copies live: ``<store>.work/`` beside the run store."""
    store = Path(exp.store)
    return store.with_name(store.name + ".work")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def project_path(exp: Experiment, run: PendingRun) -> Path:
    """Where the project copy of this attempt lives: ``<work dir>/<layer>/<model>/<index>-<attempt>``
    (the same path every time, so a backend that survives a restart finds the copy again; see
    :func:`prepare_project` for when the copy goes elsewhere)."""
    return work_dir(exp) / _safe(run.layer) / _safe(run.model) / f"{run.index}-{run.attempt}"


def prepare_project(exp: Experiment, run: PendingRun) -> Path:
    """A fresh copy of the project folder for this attempt, at :func:`project_path`, in a folder
    this call creates. When a folder is there already — another process's copy of the same
    attempt (a process that lost its claim while suspended, whose run another process took
    over) or the leftover of a killed one — it is left alone, and the copy goes to a new folder
    beside it, ``<index>-<attempt>.<random>``: a process removes only copies it made. Raises
    :class:`~toolwire.experiments.ExperimentSpecError` when the project is not a folder."""
    import tempfile

    source = exp.project_dir()
    root = project_path(exp, run)
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        root.mkdir()
    except FileExistsError:  # someone else's: never removed here
        root = Path(tempfile.mkdtemp(prefix=f"{root.name}.", dir=root.parent))
    try:
        shutil.copytree(source, root, symlinks=True, dirs_exist_ok=True, copy_function=_copy_entry)
    except shutil.Error as exc:  # entries that could not be copied (copytree goes on, then lists them)
        shutil.rmtree(root, ignore_errors=True)
        raise _copy_failed(exp, source, exc) from None
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root


class _NotCopied(OSError):
    """A project entry that is no file, folder, link or named pipe (a socket, a device)."""


def _copy_entry(src: str, dst: str) -> None:
    """``shutil.copytree``'s copy function for the project folder: a named pipe is made again
    (``mkfifo``; reading it would wait for a writer forever), a socket or a device is refused
    (a device such as ``/dev/zero`` never ends), anything else is copied with ``copy2``."""
    import stat

    mode = os.lstat(src).st_mode
    if stat.S_ISFIFO(mode):
        os.mkfifo(dst, stat.S_IMODE(mode))
        return
    if stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        from ..design.paths import kind_from_mode

        raise _NotCopied(f"it is a {kind_from_mode(mode)}, which cannot be copied")
    shutil.copy2(src, dst)


def _copy_failed(exp: Experiment, source: Path, exc: shutil.Error) -> ExperimentSpecError:
    """The spec error for a project folder ``copytree`` could not copy whole: the first entry
    and why (relative to the folder), how many more, and what to do."""
    problems = [p for p in (exc.args[0] if exc.args and isinstance(exc.args[0], list) else []) if len(p) == 3]
    if not problems:
        return ExperimentSpecError(exp.source, "task.project", f"the project folder could not be copied: {exc}")
    src, _dst, why = problems[0]
    try:
        name = Path(src).relative_to(source).as_posix()
    except ValueError:
        name = str(src)
    why = str(why)
    if why.startswith("[Errno"):  # "[Errno 13] Permission denied: '/abs/path'": the reason alone
        why = why.split("] ", 1)[-1].split(": '", 1)[0]
    more = f" (and {len(problems) - 1} more entr{'y' if len(problems) == 2 else 'ies'})" if len(problems) > 1 else ""
    return ExperimentSpecError(
        exp.source,
        "task.project",
        f"{name!r} in the project folder could not be copied for a run: {why}{more}; remove it from the folder "
        "(a file that cannot be read: make it readable), so that every run gets the whole project",
    )


def build_tools(exp: Experiment, run: PendingRun, root: Path) -> list[Any]:
    """The tools of ``run.layer`` over the project copy ``root`` (see the spec's docs for what a
    layer's ``module:attr`` may be). Raises :class:`ExperimentSpecError` naming the layer."""
    from ..tools import Tool

    exp.import_path()
    tools: list[Any] = []
    for ref in exp.layers[run.layer]:
        where = f"layers.{run.layer}"
        try:
            obj = resolve_reference(ref)
        except BaseException as exc:  # (SystemExit from a module's import too: the run fails, not the command)
            if stops_command(exc):
                raise
            raise ExperimentSpecError(exp.source, where, f"cannot load {ref!r}: {type(exc).__name__}: {exc}") from None
        if callable(obj) and not isinstance(obj, Tool):  # a factory: called with the project copy
            try:
                obj = obj(root)
            except BaseException as exc:
                if stops_command(exc):
                    raise
                raise ExperimentSpecError(
                    exp.source, where, f"{ref!r} failed to build the tools: {type(exc).__name__}: {exc}"
                ) from None
        items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
        for item in items:
            if not isinstance(item, Tool) and not callable(item):
                raise ExperimentSpecError(
                    exp.source, where, f"{ref!r} gave a {type(item).__name__}, not a tool or a list of tools"
                )
            tools.append(item)
    return tools


def build_model(exp: Experiment, run: PendingRun) -> Model:
    """The model of ``run.model``: the factory's result when the spec names one, else
    ``toolwire.model(model, **settings)``."""
    from ..registry import model as resolve_model

    entry = exp.model_entry(run.model)
    if entry.factory:
        exp.import_path()
        try:
            made = resolve_reference(entry.factory)(run)
        except Exception:
            raise
        except BaseException as exc:  # SystemExit and the like from the factory: the run fails, not the command
            if stops_command(exc):
                raise
            field = f"models[{exp.models.index(entry)}].factory" if entry in exp.models else "models"
            raise ExperimentSpecError(
                exp.source, field, f"{entry.factory!r} failed to build the model: {type(exc).__name__}: {exc}"
            ) from None
        return resolve_model(made, **entry.settings)
    return resolve_model(entry.model, **entry.settings)


def _tail(text: str) -> str:
    return text if len(text) <= CHECK_OUTPUT_CHARS else "…" + text[-CHECK_OUTPUT_CHARS:]


def check_project_sync(exp: Experiment, root: Path) -> tuple[bool, str]:
    """Run the checker in ``root``: ``(passed, output)``. Exit status 0 passes; another status,
    a checker that cannot start, or one running past ``checker_timeout`` fails. Its environment
    is the one tools get (:func:`toolwire.secrets.tool_environment`: no credentials) plus the
    spec's ``checker_env`` names and ``TOOLWIRE_PROJECT``.

    It runs as the file tools' ``run_command`` runs a program: in a process group of its own,
    stdin from ``/dev/null`` (a checker waiting for input gets end of file, not the terminal),
    its output read as UTF-8 with replacement characters (bytes that are not UTF-8 still give a
    verdict) keeping only the tail; on timeout the whole group is killed, and processes it left
    running when it exited are killed too (the output says so), so no checker outlives its run."""
    from ..design.files import _run_program
    from ..secrets import tool_environment

    argv = exp.checker_command(root)
    # the checker runs code the model may have written: no credentials in its environment
    env = tool_environment(exp.checker_env, extra={"TOOLWIRE_PROJECT": str(root)})
    try:
        run = _run_program(list(argv), cwd=root, timeout=exp.checker_timeout, env=env)
    except OSError as exc:
        return False, f"the checker {argv[0]!r} could not start: {exc.strerror or exc}"
    out = (run.stdout.tail + run.stderr.tail).strip()
    notes = []
    if run.timed_out:
        notes.append(f"the checker ran past {exp.checker_timeout:g} s and was stopped (with every process it started)")
    elif run.leftovers:
        names = ", ".join(sorted({name for _, name in run.leftovers}))
        notes.append(f"(the checker left {plural(len(run.leftovers), 'process')} running: {names}; they were stopped)")
    if run.returncode not in (0, None):
        notes.append(f"(exit status {run.returncode})")
    text = "\n".join([out, *notes]).strip()
    return run.returncode == 0 and not run.timed_out, _tail(text)


async def check_project(exp: Experiment, root: Path) -> tuple[bool, str]:
    """:func:`check_project_sync` in a worker thread."""
    return await asyncio.to_thread(check_project_sync, exp, root)


def make_record(
    run: PendingRun,
    state: RunState,
    *,
    passed: bool | None,
    check_output: str = "",
    wall_time: float = 0.0,
    error: str | None = None,
    processing: str | None = None,
) -> RunRecord:
    """The :class:`RunRecord` of a run state: ``passed`` is the checker's verdict (``None`` with
    ``error`` for a run that raised). The cost is the run's priced total
    (:attr:`toolwire.RunResult.cost`; ``processing="batch"``: at the vendors' batch rate, see
    :func:`toolwire.pricing.run_cost`)."""
    from ..pricing import run_cost

    usage = state.usage
    cost = run_cost(state.to_result(), processing=processing).total if state.turns else None
    runs = state.tool_runs
    if error is not None or passed is None:
        outcome = "error"
    else:
        outcome = "pass" if passed else "fail"
    return RunRecord(
        run=run,
        outcome=outcome,
        status=state.status,
        turns=len(state.turns),
        tool_calls=len(runs),
        tool_errors=sum(1 for r in runs if r.result.is_error),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        cache_write_1h_tokens=usage.cache_write_1h_tokens,
        cost_usd=cost.total_usd if cost is not None and cost.priced else None,
        wall_time=wall_time,
        error=error,
        check_output=check_output,
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def claim_run(run: PendingRun, recorder: Recorder) -> None:
    """Claim ``run`` through ``recorder.claim(run)`` when the recorder has that method (the
    :class:`StoreRecorder` has; a recorder without it claims nothing). Raises
    :class:`~toolwire.store.RunTaken` when another process holds the run: leave it alone."""
    claim = getattr(recorder, "claim", None)
    if claim is not None and not claim(run):
        raise RunTaken(run.run_id)


def start_run(exp: Experiment, run: PendingRun, recorder: Recorder) -> tuple[Path, RunState]:
    """Begin a fresh attempt of ``run``: its claim (:func:`claim_run`: raises
    :class:`~toolwire.store.RunTaken` when another process holds it, before anything is made), a
    new project copy (:func:`prepare_project`) and the run's initial
    :class:`~toolwire.runstate.RunState` (status ``running``), reported with
    ``recorder.started``. Returns ``(project copy, state)``."""
    from ..runstate import RunState

    claim_run(run, recorder)
    root = prepare_project(exp, run)
    state = RunState(run.run_id, run.model, status="running")
    try:
        recorder.started(run, state)
    except RunTaken:  # taken over meanwhile (this process's claim went stale): the copy is this one's
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root, state


def record_failure(
    run: PendingRun,
    state: RunState,
    recorder: Recorder,
    exc: BaseException,
    t0: float,
    *,
    processing: str | None = None,
) -> RunRecord:
    """Record a run that raised ``exc`` (a provider error, a broken factory or layer): a state
    still ``running`` becomes ``failed`` with the error; the record has outcome ``error`` and
    ``error="TypeName: message"``; ``t0``: the run's start (``time.monotonic()``). The turns and
    tool calls it did stay in ``state``, so they are kept."""
    if state.status == "running":
        state.status, state.error = "failed", _describe(exc)
    record = make_record(
        run, state, passed=None, wall_time=time.monotonic() - t0, error=_describe(exc), processing=processing
    )
    recorder.finished(run, state, record)
    return record


async def finish_run(
    exp: Experiment,
    run: PendingRun,
    state: RunState,
    root: Path,
    recorder: Recorder,
    error: BaseException | None,
    t0: float,
    *,
    processing: str | None = None,
) -> RunRecord:
    """Record a run that ended (``error``: the ``RunFinished`` event's, e.g. a limit): the
    checker's verdict on ``root`` (:func:`check_project`; a run stopped by a limit is still
    checked), the record, ``recorder.finished``. ``wall_time`` ends before the checker runs."""
    wall = time.monotonic() - t0
    if error is not None and not isinstance(error, RunLimitExceeded):  # pragma: no cover - defensive
        record = make_record(run, state, passed=None, wall_time=wall, error=_describe(error), processing=processing)
    else:
        passed, output = await check_project(exp, root)
        record = make_record(run, state, passed=passed, check_output=output, wall_time=wall, processing=processing)
    recorder.finished(run, state, record)
    return record


def open_run_stream(
    exp: Experiment, run: PendingRun, model: Any, tools: list[Any], resume: RunState | None = None
) -> Any:
    """:func:`toolwire.run_stream` for one run of ``exp``: from its prompt and instructions with
    ``exp.max_turns``, or continuing ``resume`` (a saved run state) with the turns it has left
    (at least one)."""
    from ..loop import run_stream

    if resume is not None:
        return run_stream(model, None, tools=tools, max_turns=max(1, exp.max_turns - len(resume.turns)), resume=resume)
    return run_stream(
        model, exp.prompt, tools=tools, instructions=exp.instructions, max_turns=exp.max_turns, run_id=run.run_id
    )


async def follow_run(stream: Any, run: PendingRun, recorder: Recorder) -> BaseException | None:
    """Consume the events of ``stream`` (from :func:`open_run_stream`) with a checkpoint after
    every finished tool call and turn; returns the ``RunFinished`` event's error (a limit), or
    ``None``. What the stream raises propagates; a checkpoint refused because another process
    took the run over (:class:`~toolwire.store.RunTaken`) closes the stream (the run stops) and
    propagates."""
    error: BaseException | None = None
    try:
        async for event in stream:
            kind = type(event).__name__
            if kind in ("ToolFinished", "TurnFinished"):
                recorder.checkpoint(run, stream.state)
            elif kind == "RunFinished" and event.error is not None:
                error = event.error
    except RunTaken:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
        raise
    return error


async def execute_run(
    exp: Experiment, run: PendingRun, recorder: Recorder, *, keep_project: bool = False
) -> RunRecord | None:
    """Do one run from scratch and report it: its claim, a fresh project copy, the layer's
    tools, the model, :func:`toolwire.run_stream` with a checkpoint after every finished tool
    call and turn, the checker, the record. A run that raises (a provider error, a broken
    factory) is recorded with outcome ``error``; a run stopped by a limit is still checked. A
    cancellation (or ``KeyboardInterrupt``) propagates after the partial run is checkpointed,
    leaving its record without an outcome, so the next :func:`run_experiment` starts it again.
    Returns ``None``, writing nothing, when another process holds the run, or took it over
    while it ran (:class:`~toolwire.store.RunTaken`: the run stops there)."""
    t0 = time.monotonic()
    try:
        root, state = start_run(exp, run, recorder)
    except RunTaken:
        return None
    try:
        try:
            tools = build_tools(exp, run, root)
            stream = open_run_stream(exp, run, build_model(exp, run), tools)
        except Exception as exc:
            return record_failure(run, state, recorder, exc, t0)
        state = stream.state
        try:
            error = await follow_run(stream, run, recorder)
        except (asyncio.CancelledError, KeyboardInterrupt):
            try:
                recorder.checkpoint(run, stream.state)
            except RunTaken:  # another process has it now: nothing of this attempt to keep
                pass
            raise
        except RunTaken:
            raise
        except Exception as exc:
            return record_failure(run, stream.state, recorder, exc, t0)
        return await finish_run(exp, run, stream.state, root, recorder, error, t0)
    except RunTaken:
        return None
    finally:
        if not keep_project:
            shutil.rmtree(root, ignore_errors=True)
            _remove_empty_parents(root.parent, work_dir(exp))


def _remove_empty_parents(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents up to ``top`` (included) while they are empty."""
    while True:
        try:
            folder.rmdir()
        except OSError:  # not empty (another run's copy), or gone
            return
        if folder == top or top not in folder.parents:
            return
        folder = folder.parent


# -- the recorder that writes the store -----------------------------------------------------------
class StoreRecorder:
    """The :class:`~toolwire.experiments.backends.Recorder` that writes the run store, as
    ``owner`` (a :class:`~toolwire.store.LeaseOwner`; default: a new one for this process).

    ``claim`` claims a run before it starts (:meth:`~toolwire.store.RunStore.claim`, comparing
    its row with ``seen[run_id]`` — the ``updated_at`` it had when planned — when given): ``False``
    leaves it to the process that holds it. On ``started`` (which claims first when that was not
    done) the earlier attempt's rows (if any) are replaced by a new run row with the experiment
    columns set and no outcome; ``checkpoint`` saves the run state (turns and tool calls
    included) and refreshes the claim's heartbeat; ``finished`` saves it once more, writes the
    outcome, cost, wall time and checker output and drops the claim. Each of these steps is one
    transaction (a process killed during one leaves the step done or not at all). Every write is made only
    while ``owner`` holds the claim: when another process took the run over, it raises
    :class:`~toolwire.store.RunTaken` and writes nothing. The runs left to other processes are
    in :attr:`left` (run id → the run and the other process's claim, ``None`` when nobody held
    it any more: it had finished). ``on_progress`` (optional) gets a :class:`Progress` for every
    start, finish and run left. Thread-safe (the store is)."""

    def __init__(
        self,
        store: RunStore,
        exp: Experiment,
        on_progress: Callable[[Progress], Any] | None = None,
        *,
        owner: LeaseOwner | None = None,
        seen: dict[str, float | None] | None = None,
        stale_after: float = STALE_AFTER,
    ) -> None:
        self.store = store
        self.exp = exp
        self.on_progress = on_progress
        self.owner: LeaseOwner = owner if owner is not None else LeaseOwner.current()
        self.seen: dict[str, float | None] = dict(seen or {})
        self.stale_after = stale_after
        self.left: dict[str, tuple[PendingRun, Lease | None]] = {}
        self._fingerprint = exp.fingerprint()
        self._held: set[str] = set()
        self._lock = threading.Lock()

    def _leave(self, run: PendingRun) -> None:
        with self._lock:
            self._held.discard(run.run_id)
            self.left[run.run_id] = (run, self.store.lease(run.run_id))
        if self.on_progress is not None:
            self.on_progress(Progress("left", run=run))

    def claim(self, run: PendingRun) -> bool:
        """Claim ``run`` for this recorder's owner: ``True`` when it may run it."""
        if run.run_id in self._held:
            return True
        try:
            ok = self.store.claim(
                run.run_id,
                self.owner,
                experiment=run.experiment,
                seen=self.seen.get(run.run_id, _ANY),
                stale_after=self.stale_after,
                fingerprint=self._fingerprint,
            )
        except RunStoreError as exc:
            if exc.reason != "changed":
                raise
            raise ExperimentSpecError(self.exp.source, "", str(exc)) from None
        if not ok:
            self._leave(run)
            return False
        with self._lock:
            self._held.add(run.run_id)
            self.left.pop(run.run_id, None)
        return True

    def _guarded(self, run: PendingRun, write: Callable[[], Any]) -> None:
        try:
            write()
        except RunTaken:
            self._leave(run)
            raise

    def started(self, run: PendingRun, state: RunState) -> None:
        """Claim ``run`` (unless :meth:`claim` did) and, in one transaction, replace an earlier attempt's
        rows with a new run row for ``state`` (experiment columns set, no outcome).
        :class:`~toolwire.store.RunTaken`, nothing written, when another process holds the run."""
        if not self.claim(run):
            raise RunTaken(run.run_id, self.left.get(run.run_id, (run, None))[1])
        owner = self.owner

        def write() -> None:  # one transaction: the new attempt's row replaces the old one's whole
            self.store.save(
                state,
                experiment=run.experiment,
                labels=run.labels,
                owner=owner,
                fresh=True,
                record={"variant": run.layer, "run_index": run.index, "attempt": run.attempt},
            )

        self._guarded(run, write)
        if self.on_progress is not None:
            self.on_progress(Progress("started", run=run))

    def checkpoint(self, run: PendingRun, state: RunState) -> None:
        """Save ``state`` (turns and tool calls so far) and refresh the claim's heartbeat, in one
        transaction; :class:`~toolwire.store.RunTaken`, nothing written, when another process took the
        run over (it is then in :attr:`left`)."""
        self._guarded(
            run, lambda: self.store.save(state, experiment=run.experiment, labels=run.labels, owner=self.owner)
        )

    def finished(self, run: PendingRun, state: RunState, record: RunRecord) -> None:
        """Save ``state`` once more with ``record``'s outcome, cost (US dollars, a decimal string), wall
        time (seconds) and checker output (else its error), and drop the claim, in one transaction;
        :class:`~toolwire.store.RunTaken`, nothing written, when another process took the run over."""

        def write() -> None:  # one transaction: the final state with its outcome, the claim dropped
            self.store.save(
                state,
                experiment=run.experiment,
                labels=run.labels,
                owner=self.owner,
                release=True,
                record={
                    "outcome": record.outcome,
                    "cost_usd": None if record.cost_usd is None else str(record.cost_usd),
                    "wall_time": record.wall_time,
                    "check_output": record.check_output or (record.error or ""),
                },
            )

        self._guarded(run, write)
        with self._lock:
            self._held.discard(run.run_id)
        if self.on_progress is not None:
            self.on_progress(Progress("finished", run=run, record=record))


class _Heartbeat:
    """A daemon thread refreshing the heartbeat of ``owner``'s claims every ``interval`` seconds
    while an experiment runs (a run between checkpoints — a long tool call, a slow model — keeps
    its claim). A failed refresh (the file locked for long) is logged and tried again next time."""

    def __init__(self, store: RunStore, owner: LeaseOwner, interval: float) -> None:
        self.store, self.owner, self.interval = store, owner, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="toolwire-claim-heartbeat", daemon=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.store.heartbeat(self.owner)
            except Exception as exc:  # the next beat tries again; a stale claim is the worst case
                log.warning("could not refresh the claims' heartbeat in %s: %s", self.store.path, exc)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


# -- the whole experiment -------------------------------------------------------------------------
@dataclass(frozen=True)
class LeftRun:
    """A run :func:`run_experiment` left to another process: ``run``, ``holder`` (that process's
    claim when the run was left; ``None`` when the run had finished meanwhile and nobody held
    it) and ``finished`` (whether it had an outcome, and no live claim, when the call returned)."""

    run: PendingRun
    holder: Lease | None
    finished: bool


@dataclass
class ExperimentRun:
    """What :func:`run_experiment` did: ``total`` runs in the spec, ``skipped`` (finished before),
    ``records`` (the runs done now, in the order they finished), ``left`` (the runs other
    processes held, left to them; see :class:`LeftRun`), the ``store`` path and
    ``wait_timed_out`` (``run_experiment(wait=True, wait_timeout=...)`` stopped waiting for
    runs other processes still held)."""

    total: int
    skipped: int
    records: list[RunRecord] = field(default_factory=list)
    store: str = ""
    left: list[LeftRun] = field(default_factory=list)
    wait_timed_out: bool = False

    @property
    def running_elsewhere(self) -> list[LeftRun]:
        """The runs left to other processes that were not finished when the call returned."""
        return [r for r in self.left if not r.finished]


async def run_experiment(
    spec: Experiment | str | Path,
    *,
    backend: Any = "local",
    store: str | Path | None = None,
    on_progress: Callable[[Progress], Any] | None = None,
    retry_errors: bool = False,
    backend_options: dict[str, Any] | None = None,
    wait: bool = False,
    stale_after: float = STALE_AFTER,
    heartbeat_interval: float = HEARTBEAT_INTERVAL,
    wait_interval: float = WAIT_INTERVAL,
    wait_timeout: float | None = None,
) -> ExperimentRun:
    """Run every run of ``spec`` (a spec path or a loaded :class:`Experiment`) that has no
    finished record yet, through ``backend`` (``"local"``, ``"ray"``, ``"batch"`` or a
    :class:`~toolwire.experiments.backends.Backend`); ``store`` overrides the spec's run store.
    Finished runs are never repeated; interrupted ones start again in a fresh project copy.

    Other processes may run the same experiment on the same store at the same time: each run is
    claimed just before it starts (:class:`StoreRecorder`), so it runs in one process only; the
    runs another live process holds are left to it and listed in :attr:`ExperimentRun.left`
    (``wait``: instead, wait until they are finished — looking every ``wait_interval`` seconds —
    and take over those whose process is gone; ``wait_timeout``: stop waiting once that many
    seconds have passed since the wait began, with :attr:`ExperimentRun.wait_timed_out` set — a
    run taken over meanwhile is finished first; ``None``: no limit). A claim lives while its process refreshes it (at
    every checkpoint and every ``heartbeat_interval`` seconds); it is stale after
    ``stale_after`` seconds without a refresh, or at once when its process ran on this machine
    and is gone (:func:`toolwire.store.lease_state`). The claims still held when the call ends
    (a cancellation) are dropped, so the next call takes those runs at once.

    An :class:`Experiment` passed in (built in Python, or by :meth:`Experiment.from_dict`) is
    checked as :func:`~toolwire.experiments.load_spec` checks a spec file before anything runs:
    its names, bounds and models (:func:`~toolwire.experiments.spec.check_experiment`), its
    project folder and that its layers and factories import; its ``store`` (or the ``store``
    argument) must be a path.

    Raises :class:`~toolwire.experiments.ExperimentSpecError` for a bad spec or experiment and
    :class:`~toolwire.errors.ConfigurationError` for an unknown backend, intervals that are
    not finite numbers of seconds > 0 (``stale_after`` must exceed ``heartbeat_interval``), or a
    ``wait_timeout`` that is neither ``None`` nor a finite number of seconds ≥ 0."""
    from .backends import get_backend

    for name, value in (
        ("stale_after", stale_after),
        ("heartbeat_interval", heartbeat_interval),
        ("wait_interval", wait_interval),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ConfigurationError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    if wait_timeout is not None and (
        isinstance(wait_timeout, bool)
        or not isinstance(wait_timeout, (int, float))
        or not 0 <= wait_timeout < float("inf")
    ):
        raise ConfigurationError(f"wait_timeout must be None or a finite number of seconds ≥ 0, got {wait_timeout!r}")
    if stale_after <= heartbeat_interval:
        raise ConfigurationError(
            f"stale_after ({stale_after:g} s) must be longer than heartbeat_interval ({heartbeat_interval:g} s), "
            "or the claims of live processes go stale between their heartbeats; a few heartbeats' worth is usual"
        )
    if isinstance(spec, Experiment):
        # built in Python or by Experiment.from_dict: the checks load_spec gives a spec file, so a
        # name that would make run ids that do not split, or a layer that cannot load, runs nothing
        check_experiment(spec)
        validate(spec)
        exp = spec
    else:
        exp = load_spec(spec)
    if store is not None:
        from dataclasses import replace

        exp = replace(exp, store=str(Path(store).resolve()))
    if not isinstance(exp.store, str) or not exp.store.strip():
        raise ExperimentSpecError(
            exp.source,
            "store",
            f"must be a non-empty string (the run store's path), got {exp.store!r}; "
            "give Experiment(store=...) or run_experiment(..., store=...)",
        )
    be = get_backend(backend, **(backend_options or {})) if isinstance(backend, str) else backend
    if not hasattr(be, "run"):
        raise ConfigurationError(f"backend must be a name or an object with run(), got {type(backend).__name__}")
    db = open_store(exp)
    try:
        owner = LeaseOwner.current()
        # the check and the save in one transaction (and every claim compares the fingerprint
        # again): two processes started at once with two specs of one experiment never both run
        if not db.save_experiment(
            exp.name, exp.to_dict(), fingerprint=exp.fingerprint(), owner=owner, stale_after=stale_after
        ):
            # runs of another task, layers or models would be counted with these in one scoreboard
            raise ExperimentSpecError(
                exp.source,
                "",
                f"the store {str(db.path)!r} already holds runs of experiment {exp.name!r} made with a different "
                "prompt, instructions, project, checker, layers, models or max_turns (or another process is "
                "running them now): give the changed experiment a new name, or use another store (changing runs "
                "or concurrency alone is fine)",
            )
        found = plan_runs(exp, db, retry_errors=retry_errors, owner=owner, stale_after=stale_after)
        total = len(found.pending) + found.done + len(found.elsewhere)
        summary = ExperimentRun(total, found.done, store=str(db.path))

        def progress(event: Progress) -> None:
            if event.kind == "finished" and event.record is not None:
                summary.records.append(event.record)
            if on_progress is not None:
                on_progress(event)

        recorder = StoreRecorder(db, exp, progress, owner=owner, seen=found.seen, stale_after=stale_after)
        left: dict[str, tuple[PendingRun, Lease | None]] = {run.run_id: (run, lease) for run, lease in found.elsewhere}
        progress(
            Progress(
                "planned", total=total, done=found.done, pending=len(found.pending), elsewhere=len(found.elsewhere)
            )
        )
        pending = found.pending
        waiting_since: float | None = None  # (time.monotonic() of the first wait)
        with _Heartbeat(db, owner, heartbeat_interval):
            try:
                while True:
                    if pending:
                        await be.run(exp, pending, recorder)
                    if not wait:
                        break
                    # (errors are retried once per call, not on every look)
                    found = plan_runs(exp, db, owner=owner, stale_after=stale_after)
                    recorder.seen.update(found.seen)
                    left.update((run.run_id, (run, lease)) for run, lease in found.elsewhere)
                    pending = found.pending
                    if not pending and not found.elsewhere:
                        break
                    if not pending:
                        now = time.monotonic()
                        waiting_since = now if waiting_since is None else waiting_since
                        pause = wait_interval
                        if wait_timeout is not None:
                            left_s = wait_timeout - (now - waiting_since)
                            if left_s <= 0:
                                summary.wait_timed_out = True
                                break
                            pause = min(pause, left_s)
                        progress(Progress("waiting", total=total, done=found.done, elsewhere=len(found.elsewhere)))
                        await asyncio.sleep(pause)
            finally:
                db.release(owner)  # runs cut short: another process may take them at once
        left.update(recorder.left)
        summary.left = _left_runs(db, exp, owner, left, {r.run.run_id for r in summary.records}, stale_after)
        return summary
    finally:
        db.close()


def _left_runs(
    db: RunStore,
    exp: Experiment,
    owner: LeaseOwner,
    left: dict[str, tuple[PendingRun, Lease | None]],
    done_here: set[str],
    stale_after: float,
) -> list[LeftRun]:
    """The runs left to other processes (and not done here in the end), with whether they are
    finished now."""
    if not left:
        return []
    rows = db.execute("SELECT run_id, outcome FROM runs WHERE experiment=?", (exp.name,))
    for r in rows:
        _checked_run(r, str(db.path))
    outcome = {r["run_id"]: r["outcome"] for r in rows}
    held = db.leases(experiment=exp.name)
    now = time.time()
    out = []
    for run_id, (run, holder) in left.items():
        if run_id in done_here:
            continue
        lease = held.get(run_id)
        busy = lease is not None and lease_state(lease, owner, now=now, stale_after=stale_after) == "live"
        out.append(LeftRun(run, holder, outcome.get(run_id) is not None and not busy))
    return out


def run_experiment_sync(spec: Experiment | str | Path, **kwargs: Any) -> ExperimentRun:
    """:func:`run_experiment` for code without an event loop."""
    return asyncio.run(run_experiment(spec, **kwargs))
