"""A non-repeatable write that timed out may have made its change anyway (a thread cannot be
stopped; a cancelled coroutine may have sent its request): an identical call later in the run is
not run again, in this run or after it is resumed."""

from __future__ import annotations

import asyncio
import threading
import time

import toolwire
from toolwire import tool
from toolwire.design.idempotent import non_repeatable
from toolwire.runstate import RunState
from toolwire.testing.providers import call

NOT_RUN = (
    "Not run: an identical call to 'transfer' earlier in this run (tool call call_1) timed out, and its change may "
    "have been made anyway (a synchronous function cannot be stopped and may still be running; an async one may have "
    "been stopped after its effect). It is not run again, so the change is not made twice.\nCheck whether it took "
    "effect (for example with a tool that reads it) before changing anything; to make a different change, change the "
    "arguments."
)


def _transfer(done: list[int], finished: threading.Event, seconds: float):
    @non_repeatable
    @tool(timeout=0.2)
    def transfer(amount: int) -> str:
        """Transfer money. Call it once per transfer.

        Args:
            amount: How much to transfer, in cents.
        """
        time.sleep(seconds)
        done.append(amount)
        finished.set()
        return f"transferred {amount}"

    return transfer


def test_a_timed_out_sync_write_is_not_run_again_with_the_same_arguments() -> None:
    """Before: the second identical call ran while the first was still running, and both made
    the transfer (done == [100, 100])."""
    done: list[int] = []
    finished = threading.Event()
    transfer = _transfer(done, finished, 1.0)
    model = toolwire.model(
        "scripted",
        responses=[
            [call("transfer", {"amount": 100})],
            [call("transfer", {"amount": 100})],
            [call("transfer", {"amount": 250})],
            "done",
        ],
    )
    result = asyncio.run(toolwire.run(model, "go", tools=[transfer]))
    assert finished.wait(10)
    time.sleep(1.5)  # the 250 transfer's thread ends too
    runs = result.tool_runs
    assert [r.timed_out for r in runs] == [True, False, True]
    assert runs[1].result.text == NOT_RUN and runs[1].result.is_error and runs[1].status == "refused"
    assert sorted(done) == [100, 250]  # other arguments are another change: it ran


def test_a_timed_out_async_write_is_not_run_again_either() -> None:
    sent: list[int] = []

    @non_repeatable
    @tool(timeout=0.2)
    async def transfer(amount: int) -> str:
        """Transfer money. Call it once per transfer.

        Args:
            amount: How much to transfer, in cents.
        """
        sent.append(amount)  # the request went out; the answer is slow
        await asyncio.sleep(5)
        return "transferred"

    model = toolwire.model(
        "scripted", responses=[[call("transfer", {"amount": 100})], [call("transfer", {"amount": 100})], "done"]
    )
    result = asyncio.run(toolwire.run(model, "go", tools=[transfer]))
    assert sent == [100]
    assert result.tool_runs[1].result.text == NOT_RUN


def test_a_resumed_run_remembers_the_timed_out_write() -> None:
    done: list[int] = []
    finished = threading.Event()
    transfer = _transfer(done, finished, 0.5)
    first = toolwire.model("scripted", responses=[[call("transfer", {"amount": 100})], "paused"])
    result = asyncio.run(toolwire.run(first, "go", tools=[transfer]))
    assert finished.wait(10)
    saved = RunState.from_json(result.state.to_json())
    assert [r.timed_out for r in saved.tool_runs] == [True]  # kept in the saved state
    again = toolwire.model("scripted", responses=[[call("transfer", {"amount": 100})], "done"])
    resumed = asyncio.run(toolwire.run(again, "go on", tools=[transfer], resume=saved))
    assert done == [100]
    assert resumed.tool_runs[-1].result.text == NOT_RUN
