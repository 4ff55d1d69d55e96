"""The Ray backend: one Ray task per run, over a local Ray instance or a cluster.

Each task does the whole run in a Ray worker (:func:`~toolwire.experiments.runner.execute_run`:
a fresh project copy on the worker's machine, the layer's tools, the model, the checker) and
sends its checkpoints and its record to the driver through a :class:`ray.util.queue.Queue`; the
driver alone writes the run store, in the order each run's messages were sent. So the records
are the ones the local backend writes, and a run cut short (Ctrl-C on the driver, a lost worker)
keeps a record without an outcome and is started again by the next ``toolwire experiment run``.
The driver claims each run before it sends its task (:meth:`toolwire.store.RunStore.claim`): a
run another process holds is left to it; a run another process took over is cancelled.

Needs the ``ray`` extra. On a cluster of several machines, every node must see the spec's folder
(its modules are imported there) and the project folder — a shared filesystem, or Ray's
``runtime_env={"working_dir": ...}`` passed as ``init_options``.
"""

from __future__ import annotations

import asyncio
import os
import queue as queue_module
import sys
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError
from ...store import RunTaken
from ..runner import execute_run, make_record

if TYPE_CHECKING:  # pragma: no cover
    from ...runstate import RunState
    from ..runner import PendingRun, RunRecord
    from ..spec import Experiment
    from . import Recorder

__all__ = ["RayBackend"]


class _QueueRecorder:
    """The recorder a worker uses: every call becomes one message on the driver's queue (run
    states as their JSON, the record as it is: plain data that pickles)."""

    def __init__(self, q: Any) -> None:
        self.q = q

    def started(self, run: PendingRun, state: RunState) -> None:
        self.q.put(("started", run, state.to_json()))

    def checkpoint(self, run: PendingRun, state: RunState) -> None:
        self.q.put(("checkpoint", run, state.to_json()))

    def finished(self, run: PendingRun, state: RunState, record: RunRecord) -> None:
        self.q.put(("finished", run, state.to_json(), record))


def _execute_in_worker(exp: Experiment, run: PendingRun, q: Any, keep_project: bool) -> str:
    """The body of a Ray task: the whole run, reported through the queue. Returns the run id."""
    asyncio.run(execute_run(exp, run, _QueueRecorder(q), keep_project=keep_project))
    return run.run_id


class RayBackend:
    """Runs each pending run as a Ray task.

    - ``address``: the cluster to join (``ray.init(address=...)``: ``"auto"``,
      ``"ray://host:10001"``); ``None`` starts a local Ray instance for the experiment and stops
      it afterwards. When Ray is already initialised in this process (``ray.init`` called by
      you), that instance is used and left running;
    - ``concurrency``: most runs in flight (default: the spec's ``concurrency``);
    - ``num_cpus``: CPUs a run's task reserves (default 1);
    - ``init_options``: more ``ray.init`` arguments (e.g. ``runtime_env``), used only when this
      backend starts Ray;
    - ``keep_projects``: keep each run's project copy on its worker's machine.

    Raises :class:`~toolwire.errors.ConfigurationError` when Ray is not installed.
    """

    name = "ray"

    def __init__(
        self,
        *,
        address: str | None = None,
        concurrency: int | None = None,
        num_cpus: float = 1,
        init_options: dict[str, Any] | None = None,
        keep_projects: bool = False,
    ) -> None:
        self.address = address
        self.concurrency = concurrency
        self.num_cpus = num_cpus
        self.init_options: dict[str, Any] = dict(init_options or {})
        self.keep_projects = keep_projects

    def _ray(self) -> Any:
        if self.address is None and "ray" not in sys.modules:
            # a local instance's workers run this same Python: Ray's `uv run` integration (on by
            # default under `uv run`) would instead package the current folder as a working_dir
            # and start every worker through `uv run`
            os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
        try:
            import ray
        except ImportError:
            from ..._install import extra_install_command

            raise ConfigurationError(f"the ray backend needs Ray: {extra_install_command('ray')}") from None
        return ray

    async def run(self, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None:
        """Run each of ``runs`` as a Ray task (at most ``concurrency``, else the spec's, in flight),
        claiming it first (a run another process holds is skipped); this process alone writes the
        workers' reports to ``recorder``. Joins ``address`` or starts a local instance when Ray is not
        initialised, and then shuts it down at the end. :class:`~toolwire.errors.ConfigurationError`
        when Ray is not installed."""
        ray = self._ray()
        from ray.util.queue import Queue

        started_here = False
        if not ray.is_initialized():
            options = {"include_dashboard": False, **self.init_options}
            await asyncio.to_thread(ray.init, address=self.address, **options)
            started_here = True
        try:
            await self._run(ray, Queue(), exp, runs, recorder)
        finally:
            if started_here:
                ray.shutdown()

    async def _run(self, ray: Any, q: Any, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None:
        from ...runstate import RunState

        task = ray.remote(_execute_in_worker).options(num_cpus=self.num_cpus, max_retries=0)
        limit = self.concurrency or exp.concurrency
        todo = list(runs)
        in_flight: dict[Any, PendingRun] = {}
        last_state: dict[str, str] = {}
        done: set[str] = set()
        lost: set[str] = set()  # taken over by another process: its messages are dropped
        claim = getattr(recorder, "claim", None)

        def apply(message: tuple[Any, ...]) -> None:
            kind, run, state_json = message[0], message[1], message[2]
            if run.run_id in lost:
                return
            state = RunState.from_json(state_json)
            last_state[run.run_id] = state_json
            try:
                if kind == "started":
                    recorder.started(run, state)
                elif kind == "checkpoint":
                    recorder.checkpoint(run, state)
                else:
                    recorder.finished(run, state, message[3])
                    done.add(run.run_id)
            except RunTaken:
                lost.add(run.run_id)
                for ref, r in in_flight.items():
                    if r.run_id == run.run_id:
                        ray.cancel(ref, force=True)

        def drain(wait: float) -> list[tuple[Any, ...]]:
            out = []
            try:
                out.append(q.get(block=wait > 0, timeout=wait if wait > 0 else None))
                size = q.qsize()
                if size:
                    out.extend(q.get_nowait_batch(size))
            except queue_module.Empty:  # ray.util.queue.Empty is one
                pass
            return out

        try:
            while todo or in_flight:
                while todo and len(in_flight) < limit:
                    run = todo.pop(0)
                    if claim is not None and not claim(run):  # another process holds it
                        continue
                    in_flight[task.remote(exp, run, q, self.keep_projects)] = run
                for message in await asyncio.to_thread(drain, 0.2):
                    apply(message)
                ready, _ = await asyncio.to_thread(ray.wait, list(in_flight), num_returns=len(in_flight), timeout=0)
                if not ready:
                    continue
                # a task returns after its last message was queued: take them before closing it
                for message in await asyncio.to_thread(drain, 0):
                    apply(message)
                for ref in ready:
                    run = in_flight.pop(ref)
                    try:
                        await asyncio.to_thread(ray.get, ref)
                    except Exception as exc:  # the worker died or the task failed outside the run
                        if run.run_id not in done and run.run_id not in lost:
                            state = (
                                RunState.from_json(last_state[run.run_id])
                                if run.run_id in last_state
                                else RunState(run.run_id, run.model)
                            )
                            try:
                                if run.run_id not in last_state:
                                    recorder.started(run, state)
                                state.status, state.error = "failed", f"{type(exc).__name__}: {exc}"
                                recorder.finished(run, state, make_record(run, state, passed=None, error=state.error))
                            except RunTaken:
                                lost.add(run.run_id)
                            done.add(run.run_id)
        finally:
            if in_flight:
                for ref in in_flight:
                    ray.cancel(ref, force=True)
            for message in drain(0):  # what arrived before the stop is kept
                apply(message)
