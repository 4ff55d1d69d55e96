"""The batch backend: every turn of every pending run through the vendors' batch APIs.

``toolwire experiment run SPEC --backend batch`` advances all pending runs together, one turn per
round: when every run waits for its model, their requests go out as one batch per model
(Anthropic Message Batches, the OpenAI Batch API, Gemini batch mode: half the standard price,
up to 24 hours per round), and each run then runs its tools and joins the next round
(:class:`toolwire.batch.BatchRounds`). The records, the checker and the report are the local
backend's; the cost of a run is priced at the batch rate (``processing="batch"`` in
:func:`toolwire.pricing.run_cost`).

The spec's ``concurrency`` does not apply: every pending run is in every round (a batch holds
tens of thousands of requests).

Restarts: submitted jobs and collected results are kept in the run store's file (the tables of
:class:`toolwire.batch.BatchJournal`), and every run is checkpointed after each turn and tool
call. A restarted experiment resumes each interrupted run from its last checkpoint, in its
project copy, when that checkpoint ends on a finished turn (the usual case: the run was waiting
for a batch); its next request is then the one already submitted, so the restarted process polls
the same job instead of submitting it again. A run cut off in the middle of its tools starts
again in a fresh copy (a new attempt), as on the other backends. Each run is claimed before it
starts or resumes (:meth:`toolwire.store.RunStore.claim`), so a second process on the same store
leaves the runs this one holds alone.

Options (``backend_options`` / ``get_backend("batch", ...)``): ``poll_interval`` (seconds between
polls, default 30), ``max_polls`` (stop after that many polls of an unfinished round: the
experiment then raises :class:`toolwire.batch.BatchPending` and the next run of the same command
collects the results; default: no count), ``max_wait`` (the same after that many seconds of
polling a round; default :data:`toolwire.batch.DEFAULT_MAX_WAIT`, 25 hours) and ``journal``
(another SQLite file for the jobs; default: the run store). A job in a state its vendor does not
document stops the round the same way, with :class:`toolwire.batch.BatchStateUnknown` (the runs
keep their checkpoints; the same command run later polls the job again).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._words import plural
from ...batch import DEFAULT_MAX_WAIT, BatchPending, BatchRounds, BatchStateUnknown, _check_polling
from ...store import RunTaken

if TYPE_CHECKING:  # pragma: no cover
    from ...runstate import RunState
    from ..runner import PendingRun
    from ..spec import Experiment
    from . import Recorder

__all__ = ["BatchBackend", "custom_key"]


def custom_key(run_id: str) -> str:
    """The batch key of a run: ``"r"`` and 24 hex digits of the SHA-256 of its run id (run ids
    hold ``/`` and ``:``, which custom ids may not); turn ``n`` of the run is ``"<key>-<n>"``."""
    return "r" + hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:24]


def _resumable(state: RunState) -> bool:
    """A checkpoint a run can continue from in its old project copy: nothing pending, and every
    tool call of its last turn finished (so the copy holds exactly what the state says)."""
    if state.pending or state.status in ("finished", "stopped"):
        return False
    if not state.turns:
        return True
    last = state.turns[-1]
    if last.interrupted is not None:
        return False
    return all(r.status not in ("pending", "cancelled") for r in last.tool_runs)


class BatchBackend:
    """Runs an experiment's pending runs through the vendors' batch APIs (module docs)."""

    name = "batch"

    def __init__(
        self,
        *,
        poll_interval: float = 30.0,
        max_polls: int | None = None,
        max_wait: float | None = DEFAULT_MAX_WAIT,
        journal: str | Path | None = None,
        concurrency: int | None = None,
    ) -> None:
        del concurrency  # every pending run is in every round (module docs)
        self.poll_interval: float
        self.max_polls: int | None
        self.max_wait: float | None
        self.poll_interval, self.max_polls, self.max_wait = _check_polling(poll_interval, max_polls, max_wait)
        self.journal = journal
        #: rounds sent by the last :meth:`run`
        self.rounds = 0

    async def run(self, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None:
        """Advance ``runs`` one batch per round until every one has finished. Raises
        :class:`~toolwire.batch.BatchPending` when ``max_polls`` stopped the polling (the runs
        waiting then keep their checkpoints and project copies for the next invocation)."""
        self._check_batch_modes(exp, runs)
        journal = self.journal if self.journal is not None else exp.store
        async with BatchRounds(
            journal=journal, poll_interval=self.poll_interval, max_polls=self.max_polls, max_wait=self.max_wait
        ) as rounds:
            outcomes = await rounds.gather(*(self._one(exp, run, recorder, rounds) for run in runs))
            self.rounds: int = rounds.rounds
        waiting = [o for o in outcomes if isinstance(o, BatchPending)]
        for o in outcomes:
            if isinstance(o, BaseException) and not isinstance(o, (BatchPending, Exception)):
                raise o
        if waiting:
            jobs = sorted({j for w in waiting for j in w.job_ids})
            states = {j: s for w in waiting for j, s in w.states.items() if s}
            shown = ", ".join(f"{j} ({states[j]})" if j in states else j for j in jobs)
            odd = list(
                dict.fromkeys(f"{w.job_id}: {w.vendor_status!r}" for w in waiting if isinstance(w, BatchStateUnknown))
            )
            why = f"; polling stopped on a state the vendor does not document ({', '.join(odd)})" if odd else ""
            raise BatchPending(
                f"{plural(len(waiting), 'run')} {'waits' if len(waiting) == 1 else 'wait'} for batch "
                f"{'job' if len(jobs) == 1 else 'jobs'} {shown}{why}; run the same command again "
                "to collect their results (nothing is submitted again)",
                jobs,
                states,
            )

    @staticmethod
    def _check_batch_modes(exp: Experiment, runs: list[PendingRun]) -> None:
        """Raise :class:`~toolwire.batch.BatchUnsupported` before any run starts when a model of
        ``runs`` has no batch mode (a model that cannot be built is left to its runs' errors)."""
        from ...batch import BatchUnsupported, batch_api
        from ..runner import build_model

        seen: set[str] = set()
        for run in runs:
            if run.model in seen:
                continue
            seen.add(run.model)
            try:
                model = build_model(exp, run)
            except Exception:
                continue
            try:
                batch_api(model)
            except BatchUnsupported:
                raise
            except Exception:
                continue

    def _resume_point(self, exp: Experiment, run: PendingRun, recorder: Recorder) -> tuple[Any, Path] | None:
        from ..runner import project_path

        if run.attempt <= 1:
            return None
        store = getattr(recorder, "store", None)
        root = project_path(exp, dataclasses.replace(run, attempt=run.attempt - 1))
        if store is None or not root.is_dir():
            return None
        try:
            state = store.load_state(run.run_id)
        except Exception:
            return None
        return (state, root) if _resumable(state) else None

    async def _one(self, exp: Experiment, run: PendingRun, recorder: Recorder, rounds: BatchRounds) -> Any:
        from ..runner import (
            build_model,
            build_tools,
            claim_run,
            finish_run,
            follow_run,
            open_run_stream,
            record_failure,
            start_run,
        )

        t0 = time.monotonic()
        try:
            claim_run(run, recorder)  # another process holds the run: leave it (and its copy) alone
        except RunTaken:
            return None
        resume = self._resume_point(exp, run, recorder)
        if resume is not None:
            state, root = resume
        else:
            try:
                root, state = start_run(exp, run, recorder)
            except RunTaken:
                return None
        keep = False
        try:
            try:
                tools = build_tools(exp, run, root)
                model = rounds.model(build_model(exp, run), key=custom_key(run.run_id))
                stream = open_run_stream(exp, run, model, tools, resume=state if resume is not None else None)
            except Exception as exc:
                return record_failure(run, state, recorder, exc, t0, processing="batch")
            try:
                error = await follow_run(stream, run, recorder)
            except BatchPending as exc:  # polling stopped: the run waits for its batch
                recorder.checkpoint(run, stream.state)
                keep = True
                return exc
            except (asyncio.CancelledError, KeyboardInterrupt):
                keep = True
                try:
                    recorder.checkpoint(run, stream.state)
                except RunTaken:
                    pass
                raise
            except RunTaken:
                raise
            except Exception as exc:
                return record_failure(run, stream.state, recorder, exc, t0, processing="batch")
            return await finish_run(exp, run, stream.state, root, recorder, error, t0, processing="batch")
        except RunTaken:
            # another process took the run over (this one's claim went stale): it may be resuming
            # from this very copy, so the copy stays
            keep = True
            return None
        finally:
            if not keep:
                shutil.rmtree(root, ignore_errors=True)
