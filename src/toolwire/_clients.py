"""One SDK client per event loop for a model, closed on its own loop when that loop shuts down.

An SDK client's pooled connections belong to the event loop they were opened on. A model used
on several loops (``run_sync`` from several threads, each with a loop of its own, or
``run_sync`` and then ``asyncio.run``) therefore keeps a client per loop: ``Model._client`` is
a :class:`PerLoopClient`, which reads and writes the running loop's own client. Each client is
closed on the loop it was made on when that loop shuts down (``loop.shutdown_asyncgens()``,
which ``asyncio.run`` and toolwire's own loops call before closing), or when the model is
dropped (the loop's async generator finalizer). A loop closed by hand without
``shutdown_asyncgens()`` (``loop.run_until_complete(...); loop.close()``) closes them too: the
first client made on a loop wraps that loop's ``close`` once so that the clients still open on
it are closed on it just before it closes (a closed loop can run nothing, and a client left
open on it would be garbage-collected on the next loop, as below). Before, a model had one client at a time: the
one it replaced was garbage-collected while another loop ran, and the SDKs'
``AsyncHttpxClientWrapper.__del__`` scheduled its ``aclose()`` on that other loop ("Task
exception was never retrieved ... RuntimeError: Event loop is closed").

The closing is asyncio's own mechanism: each client is held by an async generator started on
its loop (registered by the loop's ``firstiter`` hook) and suspended; ``shutdown_asyncgens``
(or the finalizer hook when the generator is dropped) runs its ``finally``, which awaits the
client's ``close()``. Nothing here imports ``asyncio`` before an event loop exists.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, AsyncIterator

__all__ = ["LoopClients", "PerLoopClient", "client_on_other_loop"]


def _running_loop() -> Any:
    aio = sys.modules.get("asyncio")
    # no event loop can run before asyncio is imported; ``_get_running_loop`` (exported by
    # asyncio, the C accessor behind ``get_running_loop``) answers None instead of raising
    return None if aio is None else aio._get_running_loop()


class LoopClients(dict):  # type: ignore[type-arg]  # {loop: (client, closer)}
    """The SDK clients a model made, by event loop, each with the async generator that closes it
    on that loop. Copied or pickled empty (a loop and a generator are neither)."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (LoopClients, ())


async def _closer(client: Any) -> AsyncIterator[None]:
    try:
        yield
    finally:
        # ``anthropic.AsyncAnthropic.close()`` / ``openai.AsyncOpenAI.close()`` (coroutines);
        # ``google.genai.Client`` closes its async side with ``client.aio.aclose()``
        aio: Any = getattr(client, "aio", None)
        try:
            result = aio.aclose() if hasattr(aio, "aclose") else client.close()
            if hasattr(result, "__await__"):
                await result
        except Exception:  # a client that cannot close leaves nothing else to do
            pass


def _start_closer(client: Any) -> Any:
    """An async generator holding ``client``, started on the running loop (so the loop tracks it)
    and suspended at its ``yield``."""
    agen = _closer(client)
    step: Any = agen.__anext__()
    try:
        step.send(None)
    except StopIteration:
        pass
    return agen


async def _close_all(closers: list[Any]) -> None:
    for agen in closers:
        try:
            await agen.aclose()
        except Exception:  # pragma: no cover - _closer swallows a failing close already
            pass


def _closers_of(loop: Any) -> Any:
    """The closers started on ``loop`` (a ``WeakSet`` of async generators), made on first use by
    wrapping ``loop.close`` (an instance attribute, once per loop) so that closers not finalized
    yet (the loop was not shut down with ``shutdown_asyncgens``) run on the loop before it closes;
    ``None`` when the loop's ``close`` cannot be wrapped (a loop type with read-only methods)."""
    close = loop.close
    closers = getattr(close, "_toolwire_closers", None)
    if closers is not None:
        return closers
    closers = weakref.WeakSet()

    def close_with_clients() -> None:
        pending = [agen for agen in list(closers) if agen.ag_frame is not None and not agen.ag_running]
        # only where the loop can still run: not closed, not running, and no other loop running
        # in this thread (run_until_complete would refuse); else close as the loop would
        if pending and not loop.is_closed() and not loop.is_running() and _running_loop() is None:
            try:
                loop.run_until_complete(_close_all(pending))
            except Exception:  # pragma: no cover - the loop refused: close it anyway
                pass
        close()

    close_with_clients._toolwire_closers = closers  # type: ignore[attr-defined]
    try:
        loop.close = close_with_clients
    except (AttributeError, TypeError):  # e.g. a compiled loop class without an instance dict
        return None
    return closers


class PerLoopClient:
    """``Model._client``: the SDK client the model made on the running event loop.

    Set inside a running loop (and without an ``http_client`` setting: a client the caller
    passed stays one object), the value is kept for that loop only and closed on it when the
    loop shuts down; ``None`` forgets it. Outside a loop, or with ``http_client``, it is a plain
    attribute. Read inside a loop without a client of its own, the plain value is returned (the
    adapter sees with :func:`client_on_other_loop` that it is not this loop's)."""

    def __get__(self, model: Any, owner: Any = None) -> Any:
        if model is None:
            return self
        d = model.__dict__
        clients = d.get("_loop_clients")
        if clients:
            entry = clients.get(_running_loop())
            if entry is not None:
                return entry[0]
        return d.get("_client")

    def __set__(self, model: Any, client: Any) -> None:
        d = model.__dict__
        loop = _running_loop()
        if loop is None or (d.get("settings") or {}).get("http_client") is not None:
            d["_client"] = client
            return
        clients = d.get("_loop_clients")
        if clients is None:
            clients = d.setdefault("_loop_clients", LoopClients())  # atomic: threads may race here
        for old in [lp for lp in list(clients) if lp.is_closed()]:  # shut down: closed already
            clients.pop(old, None)
        if client is None:
            # after ``aclose()``: the dropped closer is finalized on this loop (closing twice is a no-op)
            clients.pop(loop, None)
        else:
            closer = _start_closer(client)
            clients[loop] = (client, closer)
            closers = _closers_of(loop)
            if closers is not None:
                closers.add(closer)


def client_on_other_loop(model: Any) -> bool:
    """True when ``model._client`` is not the running loop's own client (it was made outside a
    loop), so the adapter makes one for this loop; False outside a loop and with an
    ``http_client`` setting."""
    if model.settings.get("http_client") is not None:
        return False
    loop = _running_loop()
    if loop is None:
        return False
    clients = model.__dict__.get("_loop_clients")
    return not (clients and loop in clients)
