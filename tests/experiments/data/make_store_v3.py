"""How ``store_v3.sqlite`` was made: a run store written by toolwire at schema version 3 (commit
391489b, before the run claims of version 4), holding experiment ``v3-store`` (spec
``store_v3.toml``): run 0 finished, run 1 cut short by a cancellation after its first checkpoint.

Run with that toolwire (``python tests/experiments/data/make_store_v3.py``); kept for reference —
the test reads the file it made."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[2] / "examples" / "sensor_experiment"
sys.path.insert(0, str(EXAMPLE))

from toolwire.experiments import run_experiment  # noqa: E402
from toolwire.experiments.backends.local import LocalBackend  # noqa: E402


class CancelSecond:
    """The local backend, cancelling the experiment at run 1's first checkpoint (run 0 first)."""

    name = "cancel-second"

    async def run(self, exp, runs, recorder):
        task = asyncio.current_task()

        class Watching:
            def started(self, run, state):
                recorder.started(run, state)

            def checkpoint(self, run, state):
                recorder.checkpoint(run, state)
                if run.index == 1:
                    task.cancel()

            def finished(self, run, state, record):
                recorder.finished(run, state, record)

        await LocalBackend(concurrency=1).run(exp, runs, Watching())


def main() -> None:
    work = HERE / "_make"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copy(EXAMPLE / "check.py", work / "check.py")
    shutil.copy(HERE / "store_v3.toml", work / "store_v3.toml")
    store = work / "store_v3.sqlite"
    try:
        asyncio.run(run_experiment(work / "store_v3.toml", store=store, backend=CancelSecond()))
    except asyncio.CancelledError:
        pass
    shutil.copy(store, HERE / "store_v3.sqlite")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
