"""Experiment backends: what runs the pending runs of an experiment.

A backend is an object with a ``name`` and one coroutine method::

    class Backend(Protocol):
        name: str

        async def run(self, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None: ...

:func:`~toolwire.experiments.run_experiment` loads the spec, opens the run store, works out the
runs still to do (:func:`~toolwire.experiments.runner.plan`: every layer × model × run index
without a finished record; an interrupted run comes back as its next ``attempt``) and awaits
``backend.run(exp, runs, recorder)`` once. The backend must, for every run in ``runs``:

0. claim it — :func:`~toolwire.experiments.runner.claim_run` ``(run, recorder)``, which
   :func:`~toolwire.experiments.runner.start_run` does first — and leave it alone when that
   raises :class:`~toolwire.store.RunTaken` (another process on the same store holds it);
1. get a fresh project copy — :func:`~toolwire.experiments.runner.prepare_project` ``(exp, run)``
   (a deterministic folder per attempt under ``<store>.work/``, so a backend that survives a
   restart finds it again);
2. build the layer's tools over that copy and the cell's model —
   :func:`~toolwire.experiments.runner.build_tools` ``(exp, run, root)``,
   :func:`~toolwire.experiments.runner.build_model` ``(exp, run)``;
3. call ``recorder.started(run, state)`` once with the run's initial
   :class:`~toolwire.runstate.RunState` (``run_id=run.run_id``), then
   ``recorder.checkpoint(run, state)`` as the run goes (after every finished tool call and
   turn: the state must be valid, as :func:`toolwire.run_stream` keeps it);
4. when the run is over, run the checker — :func:`~toolwire.experiments.runner.check_project`
   ``(exp, root)`` → ``(passed, output)`` — build the record with
   :func:`~toolwire.experiments.runner.make_record` ``(run, state, passed=..., check_output=...,
   wall_time=..., error=...)`` (``passed=None`` and ``error="TypeName: message"`` for a run that
   raised) and call ``recorder.finished(run, state, record)``;
5. never let one run's failure stop the others; let a cancellation propagate (the runs it cut
   short keep their records without an outcome and are redone next time);
6. stop a run, writing nothing more of it, when a recorder call raises
   :class:`~toolwire.store.RunTaken` (another process took it over after this one's claim went
   stale).

:func:`~toolwire.experiments.runner.execute_run` ``(exp, run, recorder)`` does steps 1–4 for one
run through :func:`toolwire.run_stream`; the local and Ray backends call it (the Ray backend in a
worker, with a recorder that forwards to the driver, which alone writes the store and claims each
run before sending its task). A backend that
drives turns itself (the batch backend) uses the pieces and the same recorder calls, so every
backend writes the same records and gives the same report.

``recorder`` methods are synchronous, thread-safe and quick (an SQLite write each).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...errors import ConfigurationError

if TYPE_CHECKING:  # pragma: no cover
    from ...runstate import RunState
    from ..runner import PendingRun, RunRecord
    from ..spec import Experiment

__all__ = ["BACKENDS", "Backend", "Recorder", "get_backend"]


@runtime_checkable
class Recorder(Protocol):
    """Where a backend reports its runs (the run store, through
    :class:`~toolwire.experiments.runner.StoreRecorder`)."""

    def started(self, run: PendingRun, state: RunState) -> None:
        """A new attempt of ``run`` begins (replaces an earlier attempt's record). A recorder may
        also have ``claim(run) -> bool`` (the :class:`~toolwire.experiments.runner.StoreRecorder`
        has): called before the run's project copy is made, ``False`` leaves the run to the
        process that holds it."""

    def checkpoint(self, run: PendingRun, state: RunState) -> None:
        """Save ``state`` (turns and tool calls so far)."""

    def finished(self, run: PendingRun, state: RunState, record: RunRecord) -> None:
        """The run is over: save ``state`` and write ``record`` (outcome, cost, wall time)."""


@runtime_checkable
class Backend(Protocol):
    """Runs the pending runs of an experiment (see the module docs for the contract)."""

    name: str

    async def run(self, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None:
        """Run every run of ``runs`` of ``exp``, reporting each to ``recorder`` as the module docs
        say; return when all are done. One run's failure is recorded, never raised; a
        cancellation propagates."""
        ...


#: Backend names and where their classes live (imported when chosen).
BACKENDS = {
    "local": "toolwire.experiments.backends.local:LocalBackend",
    "ray": "toolwire.experiments.backends.ray_backend:RayBackend",
    "batch": "toolwire.experiments.backends.batch:BatchBackend",
}


def get_backend(name: str, **options: Any) -> Backend:
    """The backend called ``name`` (``local``, ``ray``, ``batch``) built with ``options``.
    Raises :class:`~toolwire.errors.ConfigurationError` for an unknown name or a backend whose
    module is not available."""
    where = BACKENDS.get(name)
    if where is None:
        raise ConfigurationError(f"unknown experiment backend {name!r}; choose one of: {', '.join(BACKENDS)}")
    module_name, _, attr = where.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ConfigurationError(f"the {name!r} backend is not available in this toolwire") from None
        raise
    return getattr(module, attr)(**options)
