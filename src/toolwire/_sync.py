"""The event loops behind the synchronous facade (:func:`toolwire.run_sync`).

``asyncio.run`` per call builds and tears down an event loop every time (and on Python 3.11
takes the ``repr()`` of the result). Instead each calling thread keeps one event loop of its
own, created on its first call and reused by its later calls (idle, holding no thread, between
them): the run goes on in the caller's thread, so a call pays no hand-off to another thread.

- the caller's context variables (e.g. the current OpenTelemetry span) are those the coroutine
  sees (the task runs in a copy of the caller's context);
- called from inside a running event loop (a notebook, an async web handler, a synchronous
  callback of a run), the call goes to one long-lived loop in a daemon thread,
  ``toolwire-sync``, and blocks the caller's loop until the run ends, as any synchronous call
  does; called on that thread itself, the nested run gets a fresh loop in a thread of its own
  (no deadlock);
- Ctrl-C while a run goes on in the main thread cancels the run (its state ends
  ``"cancelled"``) and raises ``KeyboardInterrupt``, as ``asyncio.run`` does (a second Ctrl-C
  raises at once); a ``KeyboardInterrupt`` or ``SystemExit`` raised inside the run propagates
  to the caller and the thread's loop keeps serving;
- after ``os.fork()`` the child makes new loops on first use (the parent's are not usable).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import os
import signal
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


#: Bumped in a forked child: a thread's loop made before the fork is not used after it.
_generation = 0
#: The main thread's id (the thread that forked is the child's main thread).
_main_ident = threading.main_thread().ident


def _forget_after_fork() -> None:
    global _current, _lock, _generation, _main_ident
    _current = None
    _lock = threading.Lock()
    _generation += 1
    _main_ident = threading.get_ident()


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


#: Seconds a ``run_sync`` run may block its thread's own loop waiting for a lone synchronous
#: tool call's worker thread, before it waits through the event loop instead: a call done within
#: it hands its result over without waking the loop from another thread (see :func:`tool_wait`).
WAIT_FOR_TOOL = 0.005

#: While blocked, the loop looks this often (seconds) for a callback another thread scheduled on
#: it (``call_soon_threadsafe``, ``run_coroutine_threadsafe``) and stops waiting when it finds one.
WAIT_STEP = 0.0005


def tool_wait() -> float:
    """Seconds the running loop may block for a lone synchronous tool call's outcome: up to
    :data:`WAIT_FOR_TOOL` when the loop runs nothing but this run, else 0. That is: the loop is
    a calling thread's own loop, the current task is the run ``run_sync`` drives on it (not a
    run inside an async tool, nor any other task), no callback is ready and no timer is due
    sooner (the wait ends before the earliest timer). Any other loop (``await run(...)`` in your
    loop, the shared ``toolwire-sync`` loop, a loop without asyncio's ``_ready`` and
    ``_scheduled``) never waits."""
    try:
        tl: _ThreadLoop | None = _local.loop  # this thread's own loop (the run's thread: no hand-off)
    except AttributeError:
        return 0.0
    if tl is None or tl.task is None:
        return 0.0
    loop = tl.loop
    if asyncio._get_running_loop() is not loop or asyncio.current_task(loop) is not tl.task:
        return 0.0
    ready = getattr(loop, "_ready", None)
    scheduled = getattr(loop, "_scheduled", None)
    if ready is None or scheduled is None or ready:
        return 0.0
    wait = WAIT_FOR_TOOL
    if not 0.0 < wait <= 1.0:  # 0, negative or NaN: no wait; more than a second: a second
        wait = 0.0 if not wait > 0.0 else 1.0
    if scheduled:
        wait = min(wait, scheduled[0].when() - loop.time())
    return wait if wait > 0.0 else 0.0


class _ThreadLoop:
    """The event loop of one calling thread (closed when the thread ends)."""

    __slots__ = ("loop", "pid", "generation", "interrupts", "task", "__weakref__")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[Any] | None = None  # the run being driven, while it is
        self.pid = os.getpid()
        self.generation = _generation
        self.interrupts = 0

    def __del__(self) -> None:  # the thread ended (its thread-local data is dropped)
        loop = getattr(self, "loop", None)
        if loop is not None and not loop.is_closed() and not loop.is_running() and self.pid == os.getpid():
            if asyncio._get_running_loop() is None:  # (dropped in a thread that runs no other loop)
                try:  # as asyncio.run does: async generators close (a model's SDK clients, toolwire._clients)
                    loop.run_until_complete(loop.shutdown_asyncgens())
                except Exception:  # pragma: no cover - interpreter shutdown
                    pass
            try:
                loop.close()
            except Exception:  # pragma: no cover - interpreter shutdown
                pass


_local = threading.local()


def _thread_loop() -> _ThreadLoop:
    try:
        tl: _ThreadLoop | None = _local.loop
    except AttributeError:
        tl = None
    if tl is None or tl.generation != _generation or tl.loop.is_closed():
        tl = _local.loop = _ThreadLoop()
        if threading.current_thread() is threading.main_thread():
            # the main thread's loop outlives every module: shut it down at exit, before the
            # interpreter tears modules down (its clients' connections are closed on it, not dropped)
            import atexit
            import weakref

            atexit.register(_shut_down_at_exit, weakref.ref(tl))
    return tl


def _shut_down_at_exit(ref: Any) -> None:
    tl = ref()
    if tl is not None:
        tl.__del__()  # as the end of a thread does; a closed loop is left alone after


# signal.signal / signal.getsignal go through the module's enum wrappers, which try to turn every
# handler into an enum member (raising and formatting a ValueError each time); the C functions do not
try:
    import _signal as _csignal  # pyright: ignore[reportMissingImports]
except ImportError:  # pragma: no cover - other interpreters
    _csignal = signal  # type: ignore[assignment]


def _run_here(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the calling thread's own loop (no loop is running in this thread)."""
    tl = _thread_loop()
    loop = tl.loop
    task = loop.create_task(coro, context=contextvars.copy_context())
    handler: Any = None
    if threading.get_ident() == _main_ident:
        try:
            if _csignal.getsignal(signal.SIGINT) is signal.default_int_handler:

                def on_sigint(signum: int, frame: Any) -> None:
                    tl.interrupts += 1
                    if tl.interrupts == 1 and not task.done():
                        task.cancel()  # the run writes its state and ends cancelled
                        loop.call_soon_threadsafe(lambda: None)  # wake the loop from its wait
                        return
                    raise KeyboardInterrupt()

                handler = on_sigint
                _csignal.signal(signal.SIGINT, handler)
        except ValueError:  # pragma: no cover - an interpreter without signals in its main thread
            handler = None
    tl.interrupts = 0
    tl.task = task
    try:
        while True:
            try:
                return loop.run_until_complete(task)
            except asyncio.CancelledError:
                if tl.interrupts and task.cancelled():
                    raise KeyboardInterrupt() from None
                raise
            except BaseException:
                if task.done() or tl.interrupts > 1:
                    raise  # the run's own outcome, or a second Ctrl-C
                # a KeyboardInterrupt / SystemExit raised in another task of the run (a tool's)
                # stopped the loop: keep driving the run, which sees it and ends with it
                continue
    finally:
        tl.task = None
        if handler is not None and _csignal.getsignal(signal.SIGINT) is handler:
            _csignal.signal(signal.SIGINT, signal.default_int_handler)


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end and return its result (or raise its exception), from any
    thread, inside a running event loop or not: on the calling thread's own loop when no loop
    runs there, else on the facade's loop thread."""
    if asyncio._get_running_loop() is None:  # (no exception to chain to the run's own errors)
        return _run_here(coro)
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
