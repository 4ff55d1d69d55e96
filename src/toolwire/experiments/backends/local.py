"""The local backend (the default): every run in this process, as asyncio tasks, at most the
spec's ``concurrency`` (or ``concurrency=`` given here) at a time. Tools run in worker threads,
as :func:`toolwire.run` runs them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..runner import execute_run

if TYPE_CHECKING:  # pragma: no cover
    from ..runner import PendingRun
    from ..spec import Experiment
    from . import Recorder

__all__ = ["LocalBackend"]


class LocalBackend:
    """Runs the pending runs concurrently in this process. ``concurrency`` overrides the
    spec's; ``keep_projects`` keeps each run's project copy (under ``<store>.work/``) for
    inspection instead of removing it after the checker."""

    name = "local"

    def __init__(self, *, concurrency: int | None = None, keep_projects: bool = False) -> None:
        self.concurrency = concurrency
        self.keep_projects = keep_projects

    async def run(self, exp: Experiment, runs: list[PendingRun], recorder: Recorder) -> None:
        """Run ``runs`` as asyncio tasks in this process, at most ``concurrency`` (else the spec's) at a
        time, each through :func:`~toolwire.experiments.runner.execute_run`; returns when all are done.
        A run's own failure is recorded, not raised; an exception that escapes one, or a cancellation,
        cancels the others and propagates."""
        limit = asyncio.Semaphore(self.concurrency or exp.concurrency)

        async def one(run: PendingRun) -> None:
            async with limit:
                await execute_run(exp, run, recorder, keep_project=self.keep_projects)

        tasks = [asyncio.ensure_future(one(r)) for r in runs]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
