"""The event loop behind the synchronous facade (:func:`toolwire.run_sync`).

``asyncio.run`` per call builds and tears down an event loop every time (and on Python 3.11
takes the ``repr()`` of the result). Instead one long-lived loop runs in a daemon thread,
``toolwire-sync``, started on first use; each call submits its coroutine there and waits:

- the caller's context variables (e.g. the current OpenTelemetry span) are those the coroutine
  sees (the task runs in a copy of the caller's context);
- called from inside a running event loop (a notebook, an async web handler), the call blocks
  that loop until the run ends, as any synchronous call does, and works;
- called on the facade's own loop thread (a synchronous callback of a run calling
  ``run_sync`` again), the nested run gets a fresh loop in a thread of its own (no deadlock);
- Ctrl-C while waiting cancels the run (its state ends ``"cancelled"``) and raises
  ``KeyboardInterrupt``, as ``asyncio.run`` does; a ``KeyboardInterrupt`` or ``SystemExit``
  raised inside the run propagates to the caller and the loop thread keeps serving;
- after ``os.fork()`` the child starts a new loop thread on its first call (the parent's thread
  does not exist there).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import os
import threading
from typing import Any, Coroutine, TypeVar

__all__ = ["run_coroutine"]

T = TypeVar("T")

#: Seconds a cancelled run gets to write its state after Ctrl-C before the caller raises.
CANCEL_GRACE = 5.0


class _LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self._main, name="toolwire-sync", daemon=True)
        self.thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        while True:
            try:
                self.loop.run_forever()
                return  # stopped on purpose (never, in practice)
            except BaseException:
                # task's future already carries it to the caller; keep serving the others
                continue

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.thread.is_alive() and not self.loop.is_closed()


_lock = threading.Lock()
_current: _LoopThread | None = None


def _forget_after_fork() -> None:
    global _current, _lock
    _current = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _loop_thread() -> _LoopThread:
    global _current
    lt = _current
    if lt is not None and lt.alive():
        return lt
    with _lock:
        lt = _current
        if lt is None or not lt.alive():
            lt = _current = _LoopThread()
    return lt


def _submit(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> tuple[concurrent.futures.Future[T], Any]:
    """Start ``coro`` on ``loop`` in a copy of the caller's context; the concurrent future gets
    its outcome. Returns ``(future, cancel)``."""
    ctx = contextvars.copy_context()
    done: concurrent.futures.Future[T] = concurrent.futures.Future()
    holder: dict[str, asyncio.Task[T]] = {}

    def settle(task: asyncio.Task[T]) -> None:
        if task.cancelled():
            done.cancel()
            done.set_running_or_notify_cancel()
            return
        exc = task.exception()
        if exc is not None:
            done.set_exception(exc)
        else:
            done.set_result(task.result())

    def start() -> None:
        try:
            task = loop.create_task(coro, context=ctx)
        except BaseException as exc:  # pragma: no cover - the loop refused the task
            coro.close()
            done.set_exception(exc)
            return
        holder["task"] = task
        task.add_done_callback(settle)

    def cancel() -> None:
        task = holder.get("task")
        if task is not None:
            task.cancel()

    loop.call_soon_threadsafe(start)
    return done, cancel


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end on the facade's loop and return its result (or raise its
    exception), from any thread, inside a running event loop or not."""
    lt = _loop_thread()
    if threading.current_thread() is lt.thread:
        return _run_in_new_thread(coro)
    done, cancel = _submit(lt.loop, coro)
    try:
        return done.result()
    except KeyboardInterrupt:
        # Ctrl-C while waiting: cancel the run, let it write its state, then raise as asyncio.run does
        lt.loop.call_soon_threadsafe(cancel)
        try:
            done.result(timeout=CANCEL_GRACE)
        except BaseException:
            pass
        raise
    except concurrent.futures.CancelledError:
        raise asyncio.CancelledError() from None


def _run_in_new_thread(coro: Coroutine[Any, Any, T]) -> T:
    """A nested call from the facade's own loop thread: run on a fresh loop in a new thread."""
    ctx = contextvars.copy_context()
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["value"] = ctx.run(asyncio.run, coro)
        except BaseException as exc:
            box["error"] = exc

    t = threading.Thread(target=main, name="toolwire-sync-nested", daemon=True)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
