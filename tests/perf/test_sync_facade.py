"""The synchronous facade runs on the calling thread's own event loop, reused between calls.

No timing here: each test checks where a run goes on (which thread, which loop), that the loop
is reused and closed with its thread, and that Ctrl-C, errors and nested calls behave as
``asyncio.run`` would.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import threading
from typing import Any

import pytest

import toolwire
from toolwire import _sync
from toolwire.testing import ScriptedModel, call


def _loop_and_thread() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    seen: list[Any] = []

    async def where(q: str) -> str:
        """Says where it runs."""
        seen.append((asyncio.get_running_loop(), threading.current_thread()))
        return "here"

    toolwire.run_sync(ScriptedModel(responses=[call("where", {"q": "a"}), "done"]), "go", tools=[where])
    return seen[0]


def test_run_sync_runs_on_the_calling_thread_and_reuses_its_loop():
    loop1, thread1 = _loop_and_thread()
    loop2, thread2 = _loop_and_thread()
    assert thread1 is threading.current_thread() and thread2 is thread1
    assert loop2 is loop1 and not loop1.is_running() and not loop1.is_closed()


def test_each_thread_has_its_own_loop_closed_when_the_thread_ends():
    mine, _ = _loop_and_thread()
    box: dict[str, Any] = {}

    def other() -> None:
        box["loop"], box["thread"] = _loop_and_thread()

    t = threading.Thread(target=other)
    t.start()
    t.join(timeout=120)
    assert box["thread"] is t and box["loop"] is not mine
    del t, box["thread"]
    gc.collect()
    assert box["loop"].is_closed()


def test_run_sync_from_a_sync_callback_of_a_sync_run_uses_the_facade_thread():
    inner: list[Any] = []

    def on_turn(turn: Any) -> None:  # runs on the caller's loop: a running loop in this thread
        if not inner:
            inner.append(_loop_and_thread())

    outer = toolwire.run_sync(ScriptedModel(responses=[call("x", {}), "done"]), "go", on_turn=on_turn)
    assert outer.text == "done"
    ((loop, thread),) = inner
    assert thread.name == "toolwire-sync" and thread is not threading.current_thread()


def test_a_run_cancelled_by_ctrl_c_ends_cancelled_and_raises_keyboard_interrupt():
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        pytest.skip("needs the default SIGINT handler in the main thread")
    seen: list[str] = []

    async def wait(q: str) -> str:
        """Waits to be stopped."""
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the run goes on
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")  # the run was cancelled: no KeyboardInterrupt inside the tool
            raise
        return "not stopped"

    states: list[Any] = []

    async def main() -> Any:
        stream = toolwire.run_stream(ScriptedModel(responses=[call("wait", {"q": "a"}), "done"]), "go", tools=[wait])
        states.append(stream.state)
        return await stream.finish()

    with pytest.raises(KeyboardInterrupt):
        _sync.run_coroutine(main())
    assert seen == ["cancelled"]
    assert states[0].status == "cancelled"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    assert toolwire.run_sync(ScriptedModel(responses=["still works"]), "go").text == "still works"


def test_an_error_leaves_the_loop_usable_and_the_next_run_sees_new_context():
    with pytest.raises(toolwire.MaxTurnsExceeded):
        toolwire.run_sync(ScriptedModel(responses=[call("x", {})]), "go", max_turns=1)
    loop1, _ = _loop_and_thread()
    assert _loop_and_thread()[0] is loop1
