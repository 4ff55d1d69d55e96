"""The run store: one SQLite file holding runs, their turns and their tool calls.

Two uses share it: **checkpoints** (the state of a run written after every turn and every
finished tool call, so a run survives the death of its process and resumes without re-running a
finished tool) and **run records** (experiments write every run they make, with labels, and
query them afterwards). Only the standard library's :mod:`sqlite3` is used.

Schema (version :data:`SCHEMA_VERSION`; ``PRAGMA user_version`` holds it, and the ``meta`` table
repeats it with the writer's toolwire version):

``runs`` — one row per run
    ``run_id`` (text, primary key), ``model`` (``provider:model-id``), ``status`` (``running``,
    ``finished``, ``paused``, ``stopped``, ``cancelled``, ``failed``), ``stop_reason``, ``error``
    (``"TypeName: message"`` or null), ``experiment`` (text or null), ``labels`` (JSON object),
    ``created_at`` / ``updated_at`` (Unix seconds), the usage totals ``input_tokens``,
    ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``, ``reasoning_tokens``,
    ``requests``, ``cache_write_1h_tokens`` (version 3), the counts ``turns``, ``tool_calls``, ``tool_errors``, and ``state`` — the whole
    run as JSON (the run state's ``to_json()``; a :class:`~toolwire.RunResult`'s when that is
    what was saved): what a resume reads.
``turns`` — one row per model request, primary key (``run_id``, ``number``)
    ``stop_reason``, ``vendor_stop_reason``, the usage counters as in ``runs``, ``text`` (the
    response's visible text) and ``response`` (the canonical response as JSON).
``tool_calls`` — one row per answered tool call, primary key (``run_id``, ``call_id``)
    ``turn``, ``position`` (0-based, in call order), ``name``, ``arguments`` (JSON, as the model
    sent them), ``is_error`` (0/1), ``duration`` (seconds the function ran), ``deduplicated``
    (0/1), ``result`` (the tool result's content as JSON), ``pending`` (0/1: a placeholder for a
    call that waits for approval, a deferred result, or was interrupted).

Version 2 adds the experiment record of a run (written by :mod:`toolwire.experiments`; null for
runs that are not part of an experiment) to ``runs``: ``variant`` (the tool layer), ``run_index``
(0-based, within its cell), ``attempt`` (1 for the first try; a run interrupted mid-way is
started again from scratch, in a fresh copy of its project folder, as the next attempt),
``outcome`` (``pass``, ``fail`` — the checker said so — or ``error`` — the run raised; null while
the run has not finished), ``cost_usd`` (the run's cost in US dollars as an exact decimal string;
null when the price data does not know the model), ``wall_time`` (seconds the run took) and
``check_output`` (the tail of the checker's output); and a table ``experiments`` — one row per
experiment: ``name`` (primary key), ``spec`` (the spec as JSON), ``fingerprint``,
``created_at``/``updated_at``. Version 3 adds ``cache_write_1h_tokens`` to ``runs`` and
``turns`` (the part of ``cache_write_tokens`` written to a one-hour cache, priced at its own
rate). Version 4 adds the table ``leases`` — one row per run a process has claimed (see
:meth:`RunStore.claim`): ``run_id`` (primary key), ``experiment``, the owner's ``host``
(host name), ``pid``, ``token`` (random, one per claiming process) and ``scope`` (the boot and
process-id namespace its pid belongs to; null where unknown), ``claimed_at`` and ``heartbeat``
(Unix seconds of its last sign of life). An older file is upgraded in place when opened (columns
and tables added; the version-3 counts are filled in from the saved run and response JSON, nothing
else rewritten). A file at the current version that lacks a table or column of it (changed outside
toolwire) gets back, empty and with a warning, the tables ``meta``, ``experiments`` and ``leases``
and the columns that may be null or have a default; one lacking another column is refused
(:class:`RunStoreError`, reason ``damaged``).

**Claims.** Several processes may run one experiment on one file (two terminals, a CI job and a
laptop on a shared disk): before a process runs a run it claims it (:meth:`RunStore.claim`, one
``BEGIN IMMEDIATE`` transaction, so two processes never both hold one run), and every write it
makes of the run is refused with :class:`RunTaken` once another process holds the run. A claim
stays live while its owner shows signs of life: its heartbeat is refreshed by every checkpoint and
every :data:`HEARTBEAT_INTERVAL` seconds (:meth:`RunStore.heartbeat`). A claim is *stale* — and
another process may take the run over — when its heartbeat is older than ``stale_after`` seconds
(default :data:`STALE_AFTER`), or at once when its owner ran on this machine and its process is
gone (or the pid is this process's own, under another token). The heartbeat is compared with the
reader's clock: machines sharing a file need clocks that agree within a fraction of
``stale_after``. A claim row no process wrote (changed outside toolwire: see
:attr:`Lease.damaged`, or a heartbeat more than ``stale_after`` ahead of the clock) is stale too,
with a warning on the ``toolwire.store`` logger.

Every text written passes through :func:`toolwire.secrets.scrub_value` first, so no known
credential reaches the file. Writes are transactions in WAL mode: a process killed mid-write
leaves the last complete checkpoint. Several processes may write one file (SQLite's locking;
``timeout`` seconds of waiting for a lock; once a write of a store waited that long in vain, the
next ones wait :data:`LOCKED_RETRY` seconds each until one gets the lock: a file held locked by
a suspended process fails every write after the first at once, not ``timeout`` later each).

Raises :class:`~toolwire.errors.ConfigurationError` for a file written by a newer schema, or
one that is not a toolwire store, and :class:`RunStoreError` (a ``ConfigurationError``) when
SQLite fails on the file at any point — locked by another process past ``timeout``, damaged,
not writable — naming the file and what to do, never a bare :mod:`sqlite3` error. Every value
read back is checked too (the file may have been changed outside toolwire): a row of ``runs``,
``tool_calls`` or ``experiments`` holding a value toolwire never writes there (text in a number
column, an attempt below 1, JSON that does not parse, ...) raises :class:`RunStoreError` with
reason ``damaged``, naming the row, the column and an SQL repair; a damaged ``leases`` row is a
stale claim (see **Claims**).
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, NoReturn

from .errors import ConfigurationError

log: logging.Logger = logging.getLogger("toolwire.store")

__all__ = [
    "EXPERIMENT_COLUMNS",
    "HEARTBEAT_INTERVAL",
    "LOCKED_RETRY",
    "Lease",
    "LeaseOwner",
    "RunStore",
    "RunStoreError",
    "RunTaken",
    "SCHEMA_VERSION",
    "STALE_AFTER",
    "StoredRun",
    "UnknownRunError",
    "lease_state",
]


class RunStoreError(ConfigurationError):
    """SQLite failed on a run store (or batch journal) file: ``path`` and ``reason`` (``locked``,
    ``damaged`` — the file, or a row holding a value toolwire never writes there —,
    ``not-sqlite``, ``unwritable`` or ``failed``; ``exists`` for a new run given the id of a
    stored one; ``unknown`` for an id it does not hold, :class:`UnknownRunError`; ``changed`` for an experiment's spec replaced by another process). The message
    names the file, the error and what to do."""

    def __init__(self, message: str, *, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(message)


class UnknownRunError(RunStoreError, KeyError):
    """A run id the run store does not hold (``reason`` ``"unknown"``; also a ``KeyError``, which
    the store raised before). The message names the id and the file."""

    def __init__(self, run_id: str, path: str) -> None:
        self.run_id = run_id
        super().__init__(
            f"no run {run_id!r} in the run store {path!r}: check the id (RunStore.runs() lists the stored ones)",
            path=path,
            reason="unknown",
        )

    def __str__(self) -> str:  # the message as written (KeyError would quote it)
        return str(self.args[0]) if self.args else ""


def sqlite_error(
    path: str | Path,
    exc: BaseException,
    *,
    what: str = "the run store",
    timeout: float = 30.0,
    waited: str | None = None,
) -> RunStoreError:
    """The :class:`RunStoreError` of an :mod:`sqlite3` error ``exc`` on the file ``path``
    (``timeout``: the seconds a locked file was waited for; ``waited``: those words instead)."""
    text = str(exc)
    low = text.lower()
    where = f"{what} {str(path)!r}"
    if "locked" in low or "busy" in low:
        reason = "locked"
        message = (
            f"{where} is locked by another process (waited {waited or f'{timeout:g} s'}; {text}): another `toolwire "
            "experiment run` on the same file, or a program holding it open? Let it finish, or give another file. "
            "A process suspended in the middle of a write (Ctrl-Z, a laptop asleep) holds the lock until it goes on: "
            "bring it back (`fg`) or end it (`kill PID`)"
        )
    elif "not a database" in low or "file is encrypted" in low:
        reason = "not-sqlite"
        message = f"{where} is not an SQLite file ({text}): give the path of a run store, or a new file name"
    elif "malformed" in low or "corrupt" in low or isinstance(exc, sqlite3.DatabaseError) and "disk image" in low:
        reason = "damaged"
        message = (
            f"{where} is damaged ({text}); restore it from a backup, or move it aside to start a new one "
            "(`sqlite3 FILE .recover` may save its rows)"
        )
    elif any(w in low for w in ("readonly", "read-only", "unable to open", "disk i/o", "full", "permission")):
        reason = "unwritable"
        message = (
            f"{where} cannot be opened or written ({text}): check that its folder exists, the permissions "
            "and the free disk space"
        )
    else:
        reason = "failed"
        message = f"{where} failed: {type(exc).__name__}: {text}"
    return RunStoreError(message, path=str(path), reason=reason)


class _Guarded:
    """A lock whose block turns :mod:`sqlite3` errors into :class:`RunStoreError` naming the file."""

    def __init__(self, path: str | Path, what: str, timeout: float) -> None:
        self._lock = threading.Lock()
        self.path, self.what, self.timeout = path, what, timeout

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.Error):
            raise sqlite_error(self.path, exc, what=self.what, timeout=self.timeout) from exc


def _use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """``PRAGMA journal_mode=WAL`` on ``conn``, tried again while SQLite answers "locked", until
    ``timeout`` seconds have passed (then the :mod:`sqlite3` error propagates).

    Two processes opening one new file at the same instant both switch it from SQLite's first
    journal mode to WAL. The switch raises a lock the connection holds already, and SQLite does
    not call the busy handler then (waiting could deadlock; see "The presence of a busy handler
    does not guarantee that it will be invoked" at https://www.sqlite.org/c3ref/busy_handler.html):
    while the other process holds its write lock, the switch fails at once with "database is
    locked", however long the connection's ``timeout``. Once the other process has switched the
    file, the pragma finds it in WAL mode and returns at once."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            low = str(exc).lower()
            if ("locked" not in low and "busy" not in low) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


#: A parameter not given (``RunStore.resume``'s run_id and model, by position or keyword).
_UNSET: Any = object()

#: Seconds a write waits for the file's lock once an earlier write of the same :class:`RunStore`
#: waited its whole ``timeout`` in vain (a process suspended in the middle of a write holds the
#: lock until it goes on), until a write gets the lock again: the writes that follow — a run's
#: failure record, the other runs' checkpoints, the release of the claims — fail in about this
#: long each instead of ``timeout`` each.
LOCKED_RETRY = 1.0

#: The schema version this module writes (``PRAGMA user_version``).
SCHEMA_VERSION = 4

#: The usage columns of ``runs`` and ``turns`` in the version-1 schema.
_USAGE_V1 = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "requests")
#: Every usage column of ``runs`` and ``turns`` (version 3 added ``cache_write_1h_tokens``, the
#: part of ``cache_write_tokens`` priced at the one-hour cache-write rate).
_USAGE = (*_USAGE_V1, "cache_write_1h_tokens")

#: The columns version 2 added to ``runs`` (name, SQL type).
EXPERIMENT_COLUMNS = (
    ("variant", "TEXT"),
    ("run_index", "INTEGER"),
    ("attempt", "INTEGER"),
    ("outcome", "TEXT"),
    ("cost_usd", "TEXT"),
    ("wall_time", "REAL"),
    ("check_output", "TEXT"),
)

#: Schema upgrades: ``_MIGRATIONS[n]`` takes a version-``n`` file to version ``n + 1``.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        *(f"ALTER TABLE runs ADD COLUMN {name} {kind}" for name, kind in EXPERIMENT_COLUMNS),
        "CREATE TABLE IF NOT EXISTS experiments (name TEXT PRIMARY KEY, spec TEXT NOT NULL, "
        "fingerprint TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL)",
        "CREATE INDEX IF NOT EXISTS runs_experiment_cell ON runs (experiment, variant, model)",
    ),
    # the one-hour cache writes, filled in from the saved JSON (the run's and each turn's usage)
    2: (
        "ALTER TABLE runs ADD COLUMN cache_write_1h_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN cache_write_1h_tokens INTEGER",
        "UPDATE runs SET cache_write_1h_tokens = json_extract(state, '$.usage.cache_write_1h_tokens') "
        "WHERE json_valid(state)",
        "UPDATE turns SET cache_write_1h_tokens = json_extract(response, '$.usage.cache_write_1h_tokens') "
        "WHERE json_valid(response)",
    ),
    # the claims of runs in progress (RunStore.claim); no row for runs nobody holds
    3: (
        "CREATE TABLE IF NOT EXISTS leases (run_id TEXT PRIMARY KEY, experiment TEXT, host TEXT NOT NULL, "
        "pid INTEGER NOT NULL, token TEXT NOT NULL, scope TEXT, claimed_at REAL NOT NULL, heartbeat REAL NOT NULL)",
        "CREATE INDEX IF NOT EXISTS leases_experiment ON leases (experiment)",
        "CREATE INDEX IF NOT EXISTS leases_token ON leases (token)",
    ),
}

#: Columns every run store's ``runs`` table has had since schema version 1.
_V1_RUN_COLUMNS = frozenset({"run_id", "model", "status", "created_at", "updated_at", "state"})

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    stop_reason TEXT,
    error TEXT,
    experiment TEXT,
    labels TEXT NOT NULL DEFAULT '{{}}',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    {", ".join(f"{u} INTEGER" for u in _USAGE_V1)},
    turns INTEGER NOT NULL DEFAULT 0,
    tool_calls INTEGER NOT NULL DEFAULT 0,
    tool_errors INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_experiment ON runs (experiment);
CREATE TABLE IF NOT EXISTS turns (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    stop_reason TEXT,
    vendor_stop_reason TEXT,
    {", ".join(f"{u} INTEGER" for u in _USAGE_V1)},
    text TEXT NOT NULL,
    response TEXT NOT NULL,
    PRIMARY KEY (run_id, number)
);
CREATE TABLE IF NOT EXISTS tool_calls (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    position INTEGER NOT NULL,
    name TEXT,
    arguments TEXT,
    is_error INTEGER NOT NULL,
    duration REAL NOT NULL,
    deduplicated INTEGER NOT NULL DEFAULT 0,
    pending INTEGER NOT NULL DEFAULT 0,
    result TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
"""


#: The tables of the current schema that a file may lack and get back empty (their rows are made
#: as runs go: a missing one lost nothing more by being created again).
_ADDABLE_TABLES = ("meta", "experiments", "leases")
_SHAPE: dict[str, Any] = {}


def _schema_shape() -> dict[str, Any]:
    """The current schema, from a new in-memory store: ``tables`` (name → ``PRAGMA table_info``
    rows), ``sql`` (name → its ``CREATE`` statements, the table's and its indexes')."""
    if not _SHAPE:
        conn = sqlite3.connect(":memory:")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            for version in sorted(_MIGRATIONS):
                for statement in _MIGRATIONS[version]:
                    if not statement.startswith("UPDATE"):
                        conn.execute(statement)
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            _SHAPE["tables"] = {n: conn.execute(f"PRAGMA table_info({n})").fetchall() for n in names}
            _SHAPE["sql"] = {
                n: [
                    r[0]
                    for r in conn.execute(
                        "SELECT sql FROM sqlite_master WHERE tbl_name=? AND sql IS NOT NULL ORDER BY type DESC", (n,)
                    )
                ]
                for n in names
            }
        finally:
            conn.close()
    return _SHAPE


def _dumps(value: Any) -> str:
    """Strict JSON text of ``value`` (secrets scrubbed): a non-finite number is written as its
    text (``"Infinity"``), as ``RunState.to_json`` writes it, so that SQLite's JSON functions (and
    the loaders) read every stored row."""
    from .secrets import scrub_value

    value = scrub_value(value)
    try:
        text = json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError as exc:
        if "Out of range float" not in str(exc):
            raise
        from .types import finite_json

        value = finite_json(value)
        text = json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: ASCII escapes round-trip
        text = json.dumps(value, ensure_ascii=True, default=str, allow_nan=False)
    return text


#: Seconds between the heartbeats a process writes for the runs it holds (besides the one every
#: checkpoint writes).
HEARTBEAT_INTERVAL = 30.0
#: Seconds without a heartbeat after which a claim is stale and another process may take the run
#: over (six missed heartbeats).
STALE_AFTER = 180.0


class RunTaken(Exception):
    """A process does not hold the run ``run_id`` (:meth:`RunStore.claim`): another live process
    holds it, it changed since it was planned, or — ``lost`` — this process held it but another
    one took it over after this one's heartbeat went stale. The process must stop the run and
    write nothing more of it; ``holder`` is the other process's :class:`Lease` (``None`` when
    nobody holds it now, e.g. it finished meanwhile)."""

    def __init__(self, run_id: str, holder: Lease | None = None, *, lost: bool = False) -> None:
        self.run_id = run_id
        self.holder = holder
        self.lost = lost
        who = f" by {holder.describe()}" if holder is not None else ""
        if lost:
            message = f"the run {run_id!r} was taken over{who}: this process's claim went stale"
        else:
            message = f"the run {run_id!r} is held{who} or changed since it was planned"
        super().__init__(message)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read().strip() or None
    except (OSError, ValueError):
        return None


def _scope() -> str | None:
    """This process's boot id and process-id namespace (``"<boot id>/pid:[<inode>]"``): two
    processes whose pids can be compared share it. ``None`` where the system does not say
    (not Linux)."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        namespace: str | None = os.readlink("/proc/self/ns/pid")
    except (OSError, AttributeError):
        namespace = None
    if boot is None and namespace is None:
        return None
    return f"{boot or '?'}/{namespace or '?'}"


#: The largest process id a claim may name: POSIX pids are signed 32-bit numbers, Windows ones
#: unsigned 32-bit. A claim naming another number was not written by a process.
_MAX_PID = 2**32 - 1
#: The largest process id of a POSIX system (``pid_t`` is a signed 32-bit number).
_MAX_POSIX_PID = 2**31 - 1


def _pid_alive(pid: int) -> bool | None:
    """Whether process ``pid`` of this machine exists (a zombie does not); ``None`` when it
    cannot be told (Windows, where signal 0 would end the process). A number no process of a
    POSIX system can have (not a whole number from 1 to 2**31 - 1) is no process: ``False``."""
    if os.name != "posix":
        return None
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _MAX_POSIX_PID:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except (OSError, OverflowError):
        return None
    stat = _read(f"/proc/{pid}/stat")
    if stat is not None and ")" in stat:
        fields = stat.rsplit(")", 1)[1].split()
        if fields and fields[0] in ("Z", "X"):  # exited, not yet reaped by its parent
            return False
    return True


#: The warnings already logged, so a damaged row read at every look is reported once.
_WARNED: set[tuple[str, ...]] = set()
_WARNED_LOCK = threading.Lock()


def _warn_once(key: tuple[str, ...], message: str) -> None:
    with _WARNED_LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    log.warning("%s", message)


def _show(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a damaged column may hold a large blob)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class LeaseOwner:
    """Who claims runs: ``host`` (host name), ``pid``, ``token`` (random, unique to this owner)
    and ``scope`` (boot id and pid namespace; ``None`` where unknown). :meth:`current` makes one
    for this process; an experiment run makes one per call."""

    host: str
    pid: int
    token: str
    scope: str | None = None

    @classmethod
    def current(cls) -> LeaseOwner:
        """A new owner for this process, with a fresh random token."""
        return cls(socket.gethostname(), os.getpid(), secrets.token_hex(8), _scope())


@dataclass(frozen=True)
class Lease:
    """One row of ``leases``: the claim of ``run_id`` by ``host``/``pid``/``token``/``scope``,
    made at ``claimed_at``, last alive at ``heartbeat`` (Unix seconds).

    ``damaged``: what is wrong with a row changed outside toolwire (``None`` for a sound one):
    a column of the wrong type, a heartbeat or claim time that is not a finite number, a pid
    that is not a whole number from 1 to 2**32 - 1. Such a column reads as ``0``/``0.0``/``""``
    and the claim counts as stale (:func:`lease_state`): it holds nothing of the user's, and the
    process that replaces it runs the run as its next attempt."""

    run_id: str
    experiment: str | None
    host: str
    pid: int
    token: str
    scope: str | None
    claimed_at: float
    heartbeat: float
    damaged: str | None = None

    def describe(self) -> str:
        """``"pid 4242 on host ci-7"`` (``"a damaged claim (…)"`` for a damaged one)."""
        if self.damaged is not None:
            return f"a damaged claim ({self.damaged})"
        return f"pid {self.pid} on host {self.host}"


def lease_state(lease: Lease, me: LeaseOwner, *, now: float | None = None, stale_after: float = STALE_AFTER) -> str:
    """``"mine"`` (``me`` holds it), ``"live"`` (another process holds it) or ``"stale"`` (the
    run may be taken over): stale when the heartbeat is older than ``stale_after`` seconds, or
    when the owner ran on this machine (same host name and scope) and its process is gone, or
    has this process's pid under another token (an earlier process that had the same pid).
    A claim that no process wrote is stale too, with a warning: a damaged row
    (:attr:`Lease.damaged`), a heartbeat that is not a finite number, or one more than
    ``stale_after`` seconds ahead of this machine's clock (the file was changed, or the other
    machine's clock is that far off: clocks must agree to well within ``stale_after``)."""
    if lease.token == me.token:
        return "mine"
    if lease.damaged is not None:
        return "stale"
    now = time.time() if now is None else now
    beat = lease.heartbeat
    if isinstance(beat, bool) or not isinstance(beat, (int, float)) or not math.isfinite(beat):
        return "stale"
    if now - beat > stale_after:
        return "stale"
    if beat - now > stale_after:
        _warn_once(
            ("future", str(lease.run_id), str(lease.token), repr(beat)),
            f"the claim of run {lease.run_id!r} ({lease.describe()}) is not one a process wrote: its heartbeat "
            f"lies {beat - now:.4g} s ahead of this machine's clock, more than stale_after ({stale_after:g} s); "
            "the file was changed outside toolwire, or that machine's clock is wrong. The claim counts as stale: "
            "the run is taken over",
        )
        return "stale"
    if lease.host == me.host and lease.scope == me.scope:
        if lease.pid == me.pid or _pid_alive(lease.pid) is False:
            return "stale"
    return "live"


def _lease(row: sqlite3.Row, path: str = "") -> Lease:
    """The :class:`Lease` of a ``leases`` row, every column checked (see :attr:`Lease.damaged`);
    a damaged row is reported once with a warning."""
    problems: list[str] = []

    def text(name: str, nullable: bool) -> Any:
        value = row[name]
        if isinstance(value, str) or (value is None and nullable):
            return value
        problems.append(f"{name} {_show(value)} is not text")
        return None if nullable else ""

    def seconds(name: str) -> float:
        value = row[name]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
        problems.append(f"{name} {_show(value)} is not a finite number of seconds")
        return 0.0

    run_id, experiment, host = text("run_id", False), text("experiment", True), text("host", False)
    pid = row["pid"]
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _MAX_PID:
        problems.append(f"pid {_show(pid)} is not a process id")
        pid = 0
    token, scope = text("token", False), text("scope", True)
    claimed_at, heartbeat = seconds("claimed_at"), seconds("heartbeat")
    damaged = "; ".join(problems) or None
    if damaged is not None:
        _warn_once(
            ("damaged", path, repr(row["run_id"]), damaged),
            f"the claim of run {_show(row['run_id'])} in the run store {path!r} is damaged ({damaged}): the file "
            "was changed outside toolwire. The claim counts as stale: the run is taken over by the next process "
            "that claims it",
        )
    return Lease(run_id, experiment, host, pid, token, scope, claimed_at, heartbeat, damaged)


#: ``RunStore.claim(seen=...)`` not given: the run's row is not compared.
_ANY: Any = object()

#: The largest attempt number read or written (a number past it was not written by toolwire).
_MAX_ATTEMPT = 2**31 - 1


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return _is_int(value) and value >= 0


def _is_attempt(value: Any) -> bool:
    return _is_int(value) and 1 <= value <= _MAX_ATTEMPT


def _is_flag(value: Any) -> bool:
    return value in (0, 1) and _is_int(value)


def _is_finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_usd(value: Any) -> bool:
    from decimal import Decimal, InvalidOperation

    if not isinstance(value, str):
        return False
    try:
        return Decimal(value).is_finite()
    except (InvalidOperation, ValueError):
        return False


def _is_json(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


#: What each column of ``runs`` may hold when read back (see the module docs): the check, whether
#: NULL is allowed, and the words of the error. ``labels`` is checked by :class:`StoredRun`.
_RUN_COLUMNS: dict[str, tuple[Any, bool, str]] = {
    "run_id": (_is_text, False, "text"),
    "model": (_is_text, False, "text"),
    "status": (_is_text, False, "text"),
    "stop_reason": (_is_text, True, "text or NULL"),
    "error": (_is_text, True, "text or NULL"),
    "experiment": (_is_text, True, "text or NULL"),
    "created_at": (_is_finite, False, "a finite number of Unix seconds"),
    "updated_at": (_is_finite, False, "a finite number of Unix seconds"),
    **{u: (_is_int, True, "a whole number, or NULL") for u in _USAGE},
    "turns": (_is_count, False, "a whole number ≥ 0"),
    "tool_calls": (_is_count, False, "a whole number ≥ 0"),
    "tool_errors": (_is_count, False, "a whole number ≥ 0"),
    "state": (_is_text, False, "text"),
    "variant": (_is_text, True, "text or NULL"),
    "run_index": (_is_count, True, "a whole number ≥ 0, or NULL"),
    "attempt": (_is_attempt, True, f"a whole number from 1 to {_MAX_ATTEMPT}, or NULL"),
    "outcome": (_is_text, True, "text or NULL"),
    "cost_usd": (_is_usd, True, "a finite decimal number as text, or NULL"),
    "wall_time": (_is_finite, True, "a finite number of seconds, or NULL"),
    "check_output": (_is_text, True, "text or NULL"),
}

#: The same for the columns of ``tool_calls``.
_TOOL_CALL_COLUMNS: dict[str, tuple[Any, bool, str]] = {
    "run_id": (_is_text, False, "text"),
    "call_id": (_is_text, False, "text"),
    "turn": (_is_int, False, "a whole number"),
    "position": (_is_int, False, "a whole number"),
    "name": (_is_text, True, "text or NULL"),
    "arguments": (_is_json, True, "JSON text or NULL"),
    "is_error": (_is_flag, False, "0 or 1"),
    "duration": (_is_finite, False, "a finite number of seconds"),
    "deduplicated": (_is_flag, False, "0 or 1"),
    "pending": (_is_flag, False, "0 or 1"),
    "result": (_is_json, False, "JSON text"),
}

#: The same for the columns of ``experiments``.
_EXPERIMENT_COLUMNS: dict[str, tuple[Any, bool, str]] = {
    "name": (_is_text, False, "text"),
    "spec": (_is_text, False, "text"),
    "fingerprint": (_is_text, True, "text or NULL"),
    "created_at": (_is_finite, False, "a finite number of Unix seconds"),
    "updated_at": (_is_finite, False, "a finite number of Unix seconds"),
}


def _sql_text(value: Any) -> str:
    """``value`` as an SQL string literal."""
    return "'" + str(value).replace("'", "''") + "'"


def _checked(
    row: sqlite3.Row, path: str, columns: Mapping[str, tuple[Any, bool, str]], what: str, table: str, key: str
) -> None:
    """Raise :class:`RunStoreError` (reason ``damaged``) for the first column of ``row`` (those
    of it that ``columns`` knows) holding a value toolwire never writes there: the file was
    changed outside toolwire. The message names the file, the row (``what`` and its ``key``
    column), the column, the value, and an SQL statement that repairs it."""
    names = row.keys()
    for name in names:
        rule = columns.get(name)
        if rule is None:
            continue
        check, nullable, expected = rule
        value = row[name]
        if (value is None and nullable) or (value is not None and check(value)):
            continue
        ident = row[key] if key in names else None
        where = f"WHERE {key}={_sql_text(ident)}" if isinstance(ident, str) else "WHERE ..."
        if table == "tool_calls" and "run_id" in names and isinstance(row["run_id"], str):
            where += f" AND run_id={_sql_text(row['run_id'])}"
        instead = "" if nullable else " with the right value instead of NULL"
        raise RunStoreError(
            f"the run store {path!r} holds {what}: its {name} is {_show(value)}, not {expected}; the file was "
            f'changed outside toolwire. Set the column right (e.g. `sqlite3 {path} "UPDATE {table} SET {name}=NULL '
            f'{where}"`{instead}) or restore the file from a backup; the rows are left as they are',
            path=path,
            reason="damaged",
        )


def _checked_run(row: sqlite3.Row, path: str) -> None:
    """:func:`_checked` for a row (or some columns) of ``runs``."""
    run_id = row["run_id"] if "run_id" in row.keys() else None
    _checked(row, path, _RUN_COLUMNS, f"a damaged run {_show(run_id)}", "runs", "run_id")


def _check_record(fields: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for a value of an experiment column that a read would refuse."""
    for name, value in fields.items():
        check, nullable, expected = _RUN_COLUMNS[name]
        if not ((value is None and nullable) or (value is not None and check(value))):
            raise ValueError(f"{name} {_show(value)} is not {expected}")


class StoredRun:
    """One row of ``runs``: ``run_id``, ``model``, ``status``, ``stop_reason``, ``error``,
    ``experiment``, ``labels`` (dict), ``created_at``/``updated_at`` (Unix seconds), ``usage``
    (dict of the usage counters), ``turns``, ``tool_calls``, ``tool_errors``, ``state`` (the
    saved JSON text), and the experiment record (schema version 2; ``None`` outside an
    experiment): ``variant``, ``run_index``, ``attempt``, ``outcome``, ``cost_usd`` (exact
    decimal string), ``wall_time`` (seconds), ``check_output``. Raises :class:`RunStoreError`
    (reason ``damaged``, naming the column and an SQL repair) for a row changed outside
    toolwire: a column of the wrong type or range, labels that are not JSON."""

    def __init__(self, row: sqlite3.Row, path: str = "") -> None:
        _checked_run(row, path)  # a column changed outside toolwire: RunStoreError naming it
        self.run_id: str = row["run_id"]
        self.model: str = row["model"]
        self.status: str = row["status"]
        self.stop_reason: str | None = row["stop_reason"]
        self.error: str | None = row["error"]
        self.experiment: str | None = row["experiment"]
        try:
            labels = json.loads(row["labels"] or "{}")
        except (TypeError, ValueError) as exc:
            raise RunStoreError(
                f"the labels of run {row['run_id']!r} in the run store {path!r} are not JSON ({exc}); the file was "
                "changed outside toolwire: set the column to '{}' or delete the row",
                path=path,
                reason="damaged",
            ) from exc
        self.labels: dict[str, Any] = labels if isinstance(labels, dict) else {"value": labels}
        self.created_at: float = row["created_at"]
        self.updated_at: float = row["updated_at"]
        self.usage: dict[str, int | None] = {u: row[u] for u in _USAGE}
        self.turns: int = row["turns"]
        self.tool_calls: int = row["tool_calls"]
        self.tool_errors: int = row["tool_errors"]
        self.state: str = row["state"]
        keys = row.keys()
        self.variant: str | None = row["variant"] if "variant" in keys else None
        self.run_index: int | None = row["run_index"] if "run_index" in keys else None
        self.attempt: int | None = row["attempt"] if "attempt" in keys else None
        self.outcome: str | None = row["outcome"] if "outcome" in keys else None
        self.cost_usd: str | None = row["cost_usd"] if "cost_usd" in keys else None
        self.wall_time: float | None = row["wall_time"] if "wall_time" in keys else None
        self.check_output: str | None = row["check_output"] if "check_output" in keys else None

    def __repr__(self) -> str:
        return f"StoredRun({self.run_id!r}, {self.model!r}, status={self.status!r}, turns={self.turns})"


class RunStore:
    """A run store in the SQLite file ``path`` (created with its schema when missing).

    - :meth:`save` (alias :meth:`checkpoint`) writes a run — a run state or a
      :class:`~toolwire.RunResult` — with its turns and tool calls, in one transaction;
    - :meth:`load` returns the saved JSON of a run, :meth:`load_state` the run state rebuilt from
      it (to pass as ``resume=``), :meth:`get` / :meth:`runs` the rows, :meth:`tool_calls` a run's
      tool calls;
    - :meth:`checkpointer` gives an event callback that saves when a new run starts and after
      every finished tool call and every finished turn;
    - :meth:`claim`, :meth:`heartbeat`, :meth:`release`, :meth:`lease` / :meth:`leases` — the
      claims that keep two processes from running one run (module docs); ``save``,
      ``update_run`` and ``delete`` take the claim's ``owner=`` to write only while it holds it.

    Thread-safe (one connection, one lock). Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path: Path = Path(path)
        self._lock = _Guarded(self.path, "the run store", timeout)
        self._timeout = timeout
        self._stuck = False  # a write waited the whole timeout in vain: the next ones wait LOCKED_RETRY
        if self.path.is_dir():
            raise ConfigurationError(f"{str(path)!r} is a folder, not a run store file; give a file path")
        try:
            self._conn = sqlite3.connect(str(self.path), timeout=timeout, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise sqlite_error(path, exc, timeout=timeout) from None
        self._conn.row_factory = sqlite3.Row
        try:
            self._refuse_foreign()  # before the switch to WAL: another program's file is left as it is
            _use_wal(self._conn, timeout)
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self._conn.close()
            raise sqlite_error(path, exc, timeout=timeout) from None
        except BaseException:
            self._conn.close()
            raise

    def _refuse_foreign(self) -> None:
        """Raise :class:`ConfigurationError` when the file is an SQLite database that is not a
        run store (another program's, e.g. one with a ``runs`` table of its own) or one written
        by a newer toolwire; nothing in the file is changed. A new (empty) file passes."""
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise ConfigurationError(
                f"the run store {str(self.path)!r} has schema version {version}, newer than this "
                f"toolwire's {SCHEMA_VERSION}; upgrade toolwire to read it"
            )
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version < 0 or (version > 0 and not {"runs", "turns", "tool_calls"} <= tables):
            raise ConfigurationError(
                f"{str(self.path)!r} is not a toolwire run store: schema version {version} "
                f"with tables {', '.join(sorted(tables)) or '(none)'}; give the path of a run store, or a new file name"
            )
        if version == 0 and tables:
            # a file toolwire made has its schema version set in the transaction that made its tables,
            # so tables without a version are another program's (MLflow's file has a runs table too)
            columns = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)")} if "runs" in tables else set()
            if not _V1_RUN_COLUMNS <= columns:
                raise ConfigurationError(
                    f"{str(self.path)!r} is an SQLite file but not a toolwire run store "
                    f"(tables: {', '.join(sorted(tables))}); give the path of a run store, or a new file name"
                )

    def _migrate(self) -> None:
        self._refuse_foreign()  # (again: another process may have changed the file meanwhile)
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            from . import __version__ as toolwire_version

            with self._tx():
                version = self._conn.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:  # (another process may have created it meanwhile)
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self._conn.execute(statement)
                    self._conn.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?), ('written_by', ?)",
                        ("1", f"toolwire {toolwire_version}"),
                    )
                    self._conn.execute("PRAGMA user_version=1")
                    version = 1
        while version < SCHEMA_VERSION:
            from . import __version__ as toolwire_version

            with self._tx():
                now = self._conn.execute("PRAGMA user_version").fetchone()[0]
                if now != version:  # another process upgraded it meanwhile
                    version = now
                    continue
                for statement in _MIGRATIONS[version]:
                    self._conn.execute(statement)
                version += 1
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?), ('written_by', ?)",
                    (str(version), f"toolwire {toolwire_version}"),
                )
                self._conn.execute(f"PRAGMA user_version={version}")
        self._repair_shape()

    def _lacks(self) -> tuple[list[str], list[tuple[str, Any]]]:
        """The tables and the columns (table, ``PRAGMA table_info`` row) of the current schema that
        the file lacks."""
        shape = _schema_shape()["tables"]
        have = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        tables = [t for t in shape if t not in have]
        columns = []
        for table, infos in shape.items():
            if table in have:
                present = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
                columns += [(table, info) for info in infos if info[1] not in present]
        return tables, columns

    def _repair_shape(self) -> None:
        """Give a file at the current version the tables and columns of the current schema it
        lacks (changed outside toolwire, or written by a build that had no such table): the
        tables of :data:`_ADDABLE_TABLES` are created empty, a column that may be null is added
        empty, with a warning each; a missing column every row needs raises
        :class:`RunStoreError` (reason ``damaged``)."""
        if self._lacks() == ([], []):
            return
        path = str(self.path)
        with self._tx():  # again inside the transaction: another process may have repaired it
            tables, columns = self._lacks()
            for table in tables:
                if table not in _ADDABLE_TABLES:  # pragma: no cover - refused before (not a run store)
                    raise RunStoreError(
                        f"the run store {path!r} (schema version {SCHEMA_VERSION}) has no table {table}: the file was "
                        "changed outside toolwire, or is not a run store; restore it from a backup, or give another file",
                        path=path,
                        reason="damaged",
                    )
            for table, (_, name, _kind, notnull, default, pk) in columns:
                if pk or (notnull and default is None):
                    raise RunStoreError(
                        f"the run store {path!r} (schema version {SCHEMA_VERSION}) has no column {table}.{name}, which "
                        "every row needs: the file was changed outside toolwire, or is not a run store; restore it "
                        "from a backup, or give another file",
                        path=path,
                        reason="damaged",
                    )
            for table in tables:
                for statement in _schema_shape()["sql"][table]:
                    self._conn.execute(
                        statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1).replace(
                            "CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1
                        )
                    )
                _warn_once(
                    ("table", path, table),
                    f"the run store {path!r} (schema version {SCHEMA_VERSION}) had no table {table}; it was created "
                    "(empty): the file was changed outside toolwire, or written by a toolwire build without it",
                )
            for table, (_, name, kind, notnull, default, _pk) in columns:
                # (only columns that may be null, or have a default, get here)
                declaration = f"{name} {kind}" + (" NOT NULL" if notnull else "")
                if default is not None:
                    declaration += f" DEFAULT {default}"
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {declaration}")
                _warn_once(
                    ("column", path, table, name),
                    f"the run store {path!r} (schema version {SCHEMA_VERSION}) had no column {table}.{name}; it was "
                    "added (empty): the file was changed outside toolwire, or written by a toolwire build without it",
                )

    class _Tx:
        def __init__(self, store: RunStore) -> None:
            self.store = store
            self.conn = store._conn

        def __enter__(self) -> None:
            self.store._begin()

        def __exit__(self, exc_type: Any, *rest: Any) -> None:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")

    def _tx(self) -> RunStore._Tx:
        return RunStore._Tx(self)

    def _begin(self) -> None:
        """``BEGIN IMMEDIATE``: wait for the file's write lock — ``timeout`` seconds, or
        :data:`LOCKED_RETRY` once a write of this store waited ``timeout`` in vain, until one gets
        the lock again — then hold it until ``COMMIT``/``ROLLBACK``."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            low = str(exc).lower()
            if "locked" not in low and "busy" not in low:
                raise
            short = min(self._timeout, LOCKED_RETRY)
            if self._stuck:
                raise sqlite_error(
                    self.path,
                    exc,
                    timeout=short,
                    waited=f"{short:g} s, after an earlier write of this process waited {self._timeout:g} s in vain",
                ) from None
            self._stuck = True
            self._conn.execute(f"PRAGMA busy_timeout={int(short * 1000)}")
            raise
        if self._stuck:
            self._stuck = False
            self._conn.execute(f"PRAGMA busy_timeout={int(self._timeout * 1000)}")

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the SQLite connection (claims stay in the file until released or stale).
        Closing again does nothing; any other call afterwards raises :class:`RunStoreError`."""
        with self._lock:
            self._conn.close()

    # -- writing ----------------------------------------------------------------------------
    def save(
        self,
        run: Any,
        *,
        experiment: str | None = None,
        labels: Mapping[str, Any] | None = None,
        owner: LeaseOwner | None = None,
        record: Mapping[str, Any] | None = None,
        fresh: bool = False,
        release: bool = False,
    ) -> None:
        """Write ``run`` (anything with ``run_id``, ``model``, ``turns`` and ``to_dict()``: a run
        state or a :class:`~toolwire.RunResult`) with all its turns and tool calls, replacing
        what was stored for that ``run_id``; ``experiment``/``labels`` are kept from an earlier
        save when not given. One transaction: a reader sees the previous or the new run, never
        half of one. ``owner``: write only while ``owner`` holds the run's claim (its heartbeat is
        refreshed in the same transaction); raises :class:`RunTaken` (``lost=True``), writing
        nothing, when it does not. In the same transaction: ``fresh`` first removes the stored
        run (a new attempt replaces the earlier one's row, turns and tool calls), ``record`` sets
        experiment-record columns as :meth:`update_run` does, and ``release`` drops ``owner``'s
        claim (the run is over): a process killed in between leaves the old row or the new one,
        never half. Raises ``ValueError`` for an unknown ``record`` column, or a value of one that
        :meth:`update_run` refuses, and :class:`~toolwire.errors.ConfigurationError` (a
        ``ValueError``) when the turns are not numbered 1, 2, 3, ... in order."""
        known = {name for name, _ in EXPERIMENT_COLUMNS}
        bad = sorted(set(record or {}) - known)
        if bad:
            raise ValueError(f"unknown experiment column(s) {bad}; the columns are {sorted(known)}")
        _check_record(record or {})
        d = run.to_dict()
        status = getattr(run, "status", None) or ("finished" if getattr(run, "stop_reason", None) else "running")
        turns = list(getattr(run, "turns", []) or [])
        from .runstate import turn_numbering_problem

        problem = turn_numbering_problem(turns)
        if problem is not None:  # the turns are stored under their numbers: a repeat fails half-way
            raise ConfigurationError(f"cannot save run {run.run_id!r}: {problem.removeprefix('at ')}")
        usage = run.usage.to_dict() if hasattr(run, "usage") and hasattr(run.usage, "to_dict") else {}
        pending_ids = {getattr(getattr(p, "call", None), "id", None) for p in getattr(run, "pending", []) or []}
        now = time.time()
        tool_rows = []
        stored_ids: set[str] = set()
        for t in turns:
            for i, r in enumerate(getattr(t, "tool_runs", []) or []):
                # a call repeating an id (the decoder marks the later one of a response invalid;
                # it is answered, never run) is stored under "<id>#<turn>.<position>": the key is
                # (run_id, call_id), and the run's state keeps the call as the model sent it
                row_id = r.call.id if r.call.id not in stored_ids else f"{r.call.id}#{t.number}.{i}"
                stored_ids.add(row_id)
                tool_rows.append(
                    (
                        run.run_id,
                        row_id,
                        t.number,
                        i,
                        r.call.name,
                        _dumps(r.call.arguments),
                        int(r.result.is_error),
                        float(r.duration or 0.0),
                        int(bool(getattr(r, "deduplicated", False))),
                        int(r.call.id in pending_ids),
                        _dumps(r.result.to_dict().get("content")),
                    )
                )
        turn_rows = [
            (
                run.run_id,
                t.number,
                t.response.stop_reason,
                t.response.vendor_stop_reason,
                *[getattr(t.response.usage, u, None) for u in _USAGE],
                _scrub_text(t.response.text),
                _dumps(t.response.to_dict()),
            )
            for t in turns
        ]
        errors = sum(row[6] for row in tool_rows)
        state = _dumps(d)
        with self._lock, self._tx():
            if owner is not None:
                self._hold(run.run_id, owner, now)
            if fresh:
                self._conn.execute("DELETE FROM runs WHERE run_id=?", (run.run_id,))
            old = self._conn.execute(
                "SELECT created_at, experiment, labels FROM runs WHERE run_id=?", (run.run_id,)
            ).fetchone()
            created = old["created_at"] if old else now
            exp = experiment if experiment is not None else (old["experiment"] if old else None)
            lab = _dumps(dict(labels)) if labels is not None else (old["labels"] if old else "{}")
            self._conn.execute("DELETE FROM tool_calls WHERE run_id=?", (run.run_id,))
            self._conn.execute("DELETE FROM turns WHERE run_id=?", (run.run_id,))
            # an upsert, not a replace: the experiment columns (version 2) written by
            # update_run() survive every checkpoint
            columns = (
                "model",
                "status",
                "stop_reason",
                "error",
                "experiment",
                "labels",
                "created_at",
                "updated_at",
                *_USAGE,
                "turns",
                "tool_calls",
                "tool_errors",
                "state",
            )
            self._conn.execute(
                f"INSERT INTO runs (run_id, {', '.join(columns)}) VALUES ({', '.join('?' * (1 + len(columns)))}) "
                f"ON CONFLICT (run_id) DO UPDATE SET {', '.join(f'{c}=excluded.{c}' for c in columns)}",
                (
                    run.run_id,
                    run.model or "",
                    status,
                    getattr(run, "stop_reason", None),
                    _scrub_text(getattr(run, "error", None)),
                    exp,
                    lab,
                    created,
                    now,
                    *[usage.get(u) for u in _USAGE],
                    len(turns),
                    len(tool_rows),
                    errors,
                    state,
                ),
            )
            self._conn.executemany(
                f"INSERT INTO turns (run_id, number, stop_reason, vendor_stop_reason, {', '.join(_USAGE)}, text, "
                f"response) VALUES ({', '.join('?' * (6 + len(_USAGE)))})",
                turn_rows,
            )
            self._conn.executemany("INSERT INTO tool_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tool_rows)
            if record:
                self._conn.execute(
                    f"UPDATE runs SET {', '.join(f'{k}=?' for k in record)} WHERE run_id=?",
                    (*(_scrub_text(v) if isinstance(v, str) else v for v in record.values()), run.run_id),
                )
            if release and owner is not None:
                self._conn.execute("DELETE FROM leases WHERE run_id=? AND token=?", (run.run_id, owner.token))

    checkpoint = save

    def checkpointer(
        self, state: Any, *, experiment: str | None = None, labels: Mapping[str, Any] | None = None
    ) -> Any:
        """A callback ``on_event(event)`` that saves ``state`` (a run state updated in place by
        the loop) when a new run starts (``RunStarted`` without ``resumed``, as :meth:`drive`),
        after every event whose class name is ``ToolFinished`` or ``TurnFinished``, and after the
        run's last event (``RunFinished``/``RunStopped``)."""
        names = {"ToolFinished", "TurnFinished", "RunFinished", "RunStopped", "RunFailed", "RunCancelled"}

        def on_event(event: Any) -> None:
            kind = type(event).__name__
            if kind in names or (kind == "RunStarted" and not getattr(event, "resumed", False)):
                self.save(state, experiment=experiment, labels=labels)

        return on_event

    async def drive(
        self, stream: Any, *, experiment: str | None = None, labels: Mapping[str, Any] | None = None
    ) -> Any:
        """Consume a :class:`~toolwire.loop.RunStream`, saving its state when a new run starts
        (``RunStarted``: a process that dies during the first model request leaves a run that
        :meth:`resume` asks again), after every finished tool call (``ToolFinished``), every
        finished turn (``TurnFinished``) and at the end — also when the run stops with an
        exception or a cancellation, which then propagates (the saved state is the partial run,
        resumable with :meth:`resume`). Returns the :class:`~toolwire.RunResult`; raises what
        ``toolwire.run`` raises."""
        finished = None
        try:
            async for event in stream:
                kind = type(event).__name__
                if kind in ("ToolFinished", "TurnFinished") or (kind == "RunStarted" and not event.resumed):
                    # (a resumed run is stored already; its decisions are not checkpointed before
                    # the calls they approve have run: see docs/reliability.md)
                    self.save(stream.state, experiment=experiment, labels=labels)
                elif kind == "RunFinished":
                    finished = event
        finally:
            self.save(stream.state, experiment=experiment, labels=labels)
        if finished is None:  # pragma: no cover - the loop ends with RunFinished or raises
            raise RuntimeError("the run ended without a result")
        if finished.error is not None:
            raise finished.error
        return finished.result

    async def run(
        self,
        model: Any,
        prompt: Any = None,
        *,
        experiment: str | None = None,
        labels: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """``toolwire.run(model, prompt, **kwargs)`` with a checkpoint in this store when it
        starts and after every finished tool call and turn (see :meth:`drive`). A new run (no ``resume=``) whose
        ``run_id`` is already stored raises :class:`RunStoreError` before anything runs (it
        would replace the stored run's turns and tool calls): resume it with :meth:`resume`,
        :meth:`delete` it first, or choose another id."""
        from .loop import run_stream

        run_id = kwargs.get("run_id")
        if kwargs.get("resume") is None and isinstance(run_id, str):
            with self._lock:
                row = self._conn.execute("SELECT status FROM runs WHERE run_id=?", (run_id,)).fetchone()
            if row is not None:
                raise RunStoreError(
                    f"a run {run_id!r} is already stored in {str(self.path)!r} (status {row[0]!r}); "
                    f"continue it with store.resume({run_id!r}, model, ...), delete it with "
                    f"store.delete({run_id!r}), or pass another run_id",
                    path=str(self.path),
                    reason="exists",
                )
        return await self.drive(run_stream(model, prompt, **kwargs), experiment=experiment, labels=labels)

    async def resume(self, run_id: Any = _UNSET, model: Any = _UNSET, /, **kwargs: Any) -> Any:
        """Continue the saved run ``run_id`` (after a crash, a cancellation or a stop) with
        checkpoints: finished tool calls are not run again; calls that were running when it
        stopped run again. Pass the same ``tools=``. ``run_id`` and ``model`` may be given by
        position or by keyword. Raises :class:`UnknownRunError` (a ``KeyError``) for an unknown run and
        :class:`~toolwire.errors.ConfigurationError` for ``run_id=`` given beside a positional
        ``run_id``, or ``resume=`` (the run goes on under its own id, from its saved state)."""
        if run_id is _UNSET and "run_id" in kwargs:
            run_id = kwargs.pop("run_id")
        if model is _UNSET and "model" in kwargs:
            model = kwargs.pop("model")
        if run_id is _UNSET or model is _UNSET:
            missing = " and ".join(n for n, v in (("'run_id'", run_id), ("'model'", model)) if v is _UNSET)
            raise TypeError(f"RunStore.resume() missing required argument {missing}")
        clash = sorted({"run_id", "resume"} & kwargs.keys())
        if clash:
            raise ConfigurationError(
                f"RunStore.resume() got {', '.join(clash)}=: the run {run_id!r} continues under its own id from its "
                "saved state; leave them out (to start a new run, use RunStore.run)"
            )
        return await self.run(model, resume=self.load_state(run_id), **kwargs)

    def update_run(self, run_id: str, *, owner: LeaseOwner | None = None, release: bool = False, **fields: Any) -> None:
        """Set experiment-record columns of a stored run (``variant``, ``run_index``, ``attempt``,
        ``outcome``, ``cost_usd``, ``wall_time``, ``check_output``; see the module docs). Text is
        scrubbed of known credentials. ``owner``: only while it holds the run's claim (else
        :class:`RunTaken`, nothing written); ``release``: drop that claim in the same transaction
        (the run is over). Raises :class:`UnknownRunError` (a ``KeyError``) for an unknown run, ``ValueError`` for an unknown
        column or a value the store would refuse to read back (``attempt`` a whole number from 1
        to 2**31 - 1, ``run_index`` one ≥ 0, ``cost_usd`` a finite decimal number as text,
        ``wall_time`` a finite number, the others text; ``None`` for each)."""
        known = {name for name, _ in EXPERIMENT_COLUMNS}
        bad = sorted(set(fields) - known)
        if bad:
            raise ValueError(f"unknown experiment column(s) {bad}; the columns are {sorted(known)}")
        _check_record(fields)
        if not fields and not release:
            return
        values = [_scrub_text(v) if isinstance(v, str) else v for v in fields.values()]
        now = time.time()
        with self._lock, self._tx():
            if owner is not None:
                self._hold(run_id, owner, now)
            cur = self._conn.execute(
                f"UPDATE runs SET {''.join(f'{k}=?, ' for k in fields)}updated_at=? WHERE run_id=?",
                (*values, now, run_id),
            )
            if cur.rowcount == 0:
                raise UnknownRunError(run_id, str(self.path))
            if release and owner is not None:
                self._conn.execute("DELETE FROM leases WHERE run_id=? AND token=?", (run_id, owner.token))

    def save_experiment(
        self,
        name: str,
        spec: Mapping[str, Any],
        *,
        fingerprint: str | None = None,
        owner: LeaseOwner | None = None,
        stale_after: float = STALE_AFTER,
    ) -> bool:
        """Write (or replace) the ``experiments`` row of ``name`` with its ``spec`` (JSON-ready);
        ``True`` when written. With ``owner`` given, a ``fingerprint`` that differs from the
        stored one is refused — ``False``, nothing written — while the experiment has runs or
        another live process holds a claim of it (:func:`lease_state`); the stale claims of the
        experiment are dropped when the fingerprint changes. One ``BEGIN IMMEDIATE``
        transaction: of two processes saving two specs of one experiment at once, the second sees
        the first's (and :meth:`claim` with ``fingerprint`` refuses the runs of a spec replaced
        meanwhile)."""
        now = time.time()
        with self._lock, self._tx():
            if owner is not None and fingerprint is not None:
                row = self._conn.execute("SELECT name, fingerprint FROM experiments WHERE name=?", (name,)).fetchone()
                if row is not None:
                    self._checked_experiment(row)
                if row is not None and row["fingerprint"] and row["fingerprint"] != fingerprint:
                    if self._conn.execute("SELECT 1 FROM runs WHERE experiment=? LIMIT 1", (name,)).fetchone():
                        return False
                    leases = self._conn.execute("SELECT * FROM leases WHERE experiment=?", (name,)).fetchall()
                    if any(
                        lease_state(_lease(r, str(self.path)), owner, now=now, stale_after=stale_after) == "live"
                        for r in leases
                    ):
                        return False
                    self._conn.execute("DELETE FROM leases WHERE experiment=?", (name,))
            self._conn.execute(
                "INSERT INTO experiments (name, spec, fingerprint, created_at, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET spec=excluded.spec, fingerprint=excluded.fingerprint, "
                "updated_at=excluded.updated_at",
                (name, _dumps(dict(spec)), fingerprint, now, now),
            )
        return True

    def _checked_experiment(self, row: sqlite3.Row) -> None:
        name = row["name"] if "name" in row.keys() else None
        _checked(row, str(self.path), _EXPERIMENT_COLUMNS, f"a damaged experiment {_show(name)}", "experiments", "name")

    def experiment(self, name: str) -> dict[str, Any] | None:
        """The ``experiments`` row of ``name`` (``spec`` decoded from JSON), or ``None``. Raises
        :class:`RunStoreError` (reason ``damaged``) for a row changed outside toolwire: a column
        of the wrong type, a spec that is not a JSON object."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM experiments WHERE name=?", (name,)).fetchone()
        if row is None:
            return None
        self._checked_experiment(row)
        d = dict(row)
        try:
            spec = json.loads(d["spec"])
        except (ValueError, RecursionError) as exc:
            spec, problem = None, f"{type(exc).__name__}: {exc}"
        else:
            problem = f"a JSON {type(spec).__name__}"
        if not isinstance(spec, dict):
            path = str(self.path)
            raise RunStoreError(
                f"the spec of experiment {name!r} in the run store {path!r} is not a JSON object ({problem}); the "
                "file was changed outside toolwire. `toolwire experiment run SPEC` with the experiment's spec writes "
                "it again (the runs already finished are not run again); or set it to {} "
                f"(`sqlite3 {path} \"UPDATE experiments SET spec='{{}}' WHERE name={_sql_text(name)}\"`: the report "
                "then counts every recorded run and orders the cells by name)",
                path=path,
                reason="damaged",
            )
        d["spec"] = spec
        return d

    def experiments(self) -> list[str]:
        """The names of the experiments recorded in this store, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT name FROM experiments ORDER BY created_at, name").fetchall()
        for r in rows:
            self._checked_experiment(r)
        return [r[0] for r in rows]

    def delete(self, run_id: str, *, owner: LeaseOwner | None = None) -> bool:
        """Remove a run with its turns and tool calls; ``True`` when there was one. ``owner``:
        only while it holds the run's claim (else :class:`RunTaken`, nothing removed); the claim
        itself stays."""
        with self._lock, self._tx():
            if owner is not None:
                self._hold(run_id, owner, time.time())
            cur = self._conn.execute("DELETE FROM runs WHERE run_id=?", (run_id,))
        return cur.rowcount > 0

    # -- claims -----------------------------------------------------------------------------
    def claim(
        self,
        run_id: str,
        owner: LeaseOwner,
        *,
        experiment: str | None = None,
        seen: float | None = _ANY,
        stale_after: float = STALE_AFTER,
        fingerprint: str | None = None,
    ) -> bool:
        """Claim the run ``run_id`` for ``owner`` before running it: ``True`` when ``owner`` now
        holds it (also when it held it already), ``False`` when another live process holds it
        (see :func:`lease_state`) or — ``seen`` given — when the run's ``runs`` row changed since
        the caller read it (``seen``: the row's ``updated_at`` then, ``None`` for no row; another
        process started or finished the run meanwhile). A stale claim is replaced. One
        ``BEGIN IMMEDIATE`` transaction: of several processes claiming one run at the same
        instant, exactly one gets it. ``fingerprint`` (with ``experiment``): raises
        :class:`RunStoreError` (reason ``changed``), claiming nothing, when the ``experiments``
        row of ``experiment`` holds another fingerprint — another process saved a different
        spec of the experiment since this one saved its own."""
        now = time.time()
        with self._lock, self._tx():
            if fingerprint is not None and experiment is not None:
                row = self._conn.execute(
                    "SELECT name, fingerprint FROM experiments WHERE name=?", (experiment,)
                ).fetchone()
                if row is not None:
                    self._checked_experiment(row)
                if row is not None and row["fingerprint"] and row["fingerprint"] != fingerprint:
                    raise RunStoreError(
                        f"the experiment {experiment!r} in the run store {str(self.path)!r} was saved meanwhile by "
                        "another process with a different spec (prompt, instructions, project, checker, layers, "
                        "models or max_turns): its runs and these would be counted in one scoreboard; give the "
                        "changed experiment a new name, or use another store",
                        path=str(self.path),
                        reason="changed",
                    )
            if seen is not _ANY:
                row = self._conn.execute("SELECT updated_at FROM runs WHERE run_id=?", (run_id,)).fetchone()
                if (row[0] if row is not None else None) != seen:
                    return False
            held = self._conn.execute("SELECT * FROM leases WHERE run_id=?", (run_id,)).fetchone()
            if (
                held is not None
                and lease_state(_lease(held, str(self.path)), owner, now=now, stale_after=stale_after) == "live"
            ):
                return False
            self._conn.execute(
                "INSERT INTO leases (run_id, experiment, host, pid, token, scope, claimed_at, heartbeat) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET experiment=excluded.experiment, "
                "host=excluded.host, pid=excluded.pid, token=excluded.token, scope=excluded.scope, "
                "claimed_at=excluded.claimed_at, heartbeat=excluded.heartbeat",
                (run_id, experiment, owner.host, owner.pid, owner.token, owner.scope, now, now),
            )
        return True

    def _hold(self, run_id: str, owner: LeaseOwner, now: float) -> None:
        """Inside a write transaction: raise :class:`RunTaken` unless ``owner`` holds ``run_id``;
        refresh its heartbeat."""
        cur = self._conn.execute("UPDATE leases SET heartbeat=? WHERE run_id=? AND token=?", (now, run_id, owner.token))
        if cur.rowcount == 0:
            row = self._conn.execute("SELECT * FROM leases WHERE run_id=?", (run_id,)).fetchone()
            raise RunTaken(run_id, _lease(row, str(self.path)) if row is not None else None, lost=True)

    def heartbeat(self, owner: LeaseOwner) -> int:
        """Refresh the heartbeat of every claim ``owner`` holds; returns how many it holds."""
        with self._lock, self._tx():
            cur = self._conn.execute("UPDATE leases SET heartbeat=? WHERE token=?", (time.time(), owner.token))
        return cur.rowcount

    def release(self, owner: LeaseOwner, run_id: str | None = None) -> int:
        """Drop ``owner``'s claim of ``run_id`` (``None``: all its claims); returns how many were
        dropped. A run released unfinished may be taken at once by another process."""
        sql, args = "DELETE FROM leases WHERE token=?", [owner.token]
        if run_id is not None:
            sql += " AND run_id=?"
            args.append(run_id)
        with self._lock, self._tx():
            cur = self._conn.execute(sql, args)
        return cur.rowcount

    def lease(self, run_id: str) -> Lease | None:
        """The claim on ``run_id`` (live or stale), or ``None``."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM leases WHERE run_id=?", (run_id,)).fetchone()
        return _lease(row, str(self.path)) if row is not None else None

    def leases(self, *, experiment: str | None = None) -> dict[str, Lease]:
        """The claims (live or stale) by run id, optionally of one ``experiment``."""
        sql, args = "SELECT * FROM leases", []
        if experiment is not None:
            sql += " WHERE experiment=?"
            args.append(experiment)
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        leases = [_lease(r, str(self.path)) for r in rows]
        return {lease.run_id: lease for lease in leases}

    # -- reading ----------------------------------------------------------------------------
    def get(self, run_id: str) -> StoredRun | None:
        """The ``runs`` row of ``run_id``, or ``None``. Raises :class:`RunStoreError` (reason
        ``damaged``) for a row changed outside toolwire (a column of the wrong type or range),
        as :meth:`runs` and :meth:`load` do."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM runs WHERE run_id=?", (run_id,)).fetchone()
        return StoredRun(row, str(self.path)) if row is not None else None

    def load(self, run_id: str) -> str:
        """The saved JSON of ``run_id``. Raises :class:`UnknownRunError` (a ``KeyError`` too) naming
        it when it is not stored."""
        run = self.get(run_id)
        if run is None:
            raise UnknownRunError(run_id, str(self.path))
        return run.state

    def load_state(self, run_id: str) -> Any:
        """The saved run rebuilt: a run state (``toolwire.runstate.RunState``) when the saved
        JSON is one, else a :class:`~toolwire.RunResult`. Raises :class:`UnknownRunError` (a ``KeyError``) for an unknown
        run and :class:`RunStoreError` (reason ``damaged``) when the saved JSON is neither, or is the
        state of a run with another ``run_id`` than its row's (changed outside toolwire)."""
        text = self.load(run_id)
        loaded: Any = None
        as_state: ValueError | None = None
        try:
            from .runstate import RunState  # type: ignore[import-not-found]

            loaded = RunState.from_json(text)
        except ImportError:
            pass
        except ValueError as exc:
            as_state = exc
        if loaded is None:
            from .loop import RunResult

            try:
                loaded = RunResult.from_json(text)
            except ValueError as exc:
                # a saved run state's own error, not what reading it as a result says
                told = as_state if as_state is not None and '"toolwire.RunState"' in text else exc
                self._damaged_state(run_id, f"cannot be read back ({told})")
        if loaded.run_id != run_id:
            # save() writes the row under the state's own run_id: a resume would go on under the
            # other id, in another row, and leave this one to be resumed (and run) again
            self._damaged_state(run_id, f"holds the state of another run, {_show(loaded.run_id)}")
        return loaded

    def _damaged_state(self, run_id: str, what: str) -> NoReturn:
        path = str(self.path)
        raise RunStoreError(
            f"the saved run {run_id!r} in the run store {path!r} {what}; the file was changed "
            f"outside toolwire: restore it from a backup, or remove the run (store.delete({run_id!r})) and run "
            "it again",
            path=path,
            reason="damaged",
        ) from None

    def runs(self, *, experiment: str | None = None, status: str | None = None) -> list[StoredRun]:
        """Stored runs (optionally of one ``experiment`` / with one ``status``), oldest first."""
        sql, args = "SELECT * FROM runs", []
        where = []
        if experiment is not None:
            where.append("experiment=?")
            args.append(experiment)
        if status is not None:
            where.append("status=?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY created_at, run_id", args).fetchall()
        return [StoredRun(r, str(self.path)) for r in rows]

    def tool_calls(self, run_id: str) -> list[dict[str, Any]]:
        """The tool calls of ``run_id`` in order (turn, position), each a dict of its columns
        with ``arguments`` and ``result`` decoded from JSON. Raises :class:`RunStoreError`
        (reason ``damaged``) for a row changed outside toolwire."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM tool_calls WHERE run_id=? ORDER BY turn, position", (run_id,)
            ).fetchall()
        out = []
        for r in rows:
            _checked(
                r, str(self.path), _TOOL_CALL_COLUMNS, f"a damaged tool call of run {run_id!r}", "tool_calls", "call_id"
            )
            d = dict(r)
            d["arguments"] = json.loads(d["arguments"]) if d["arguments"] is not None else None
            d["result"] = json.loads(d["result"])
            d["is_error"], d["deduplicated"], d["pending"] = (
                bool(d["is_error"]),
                bool(d["deduplicated"]),
                bool(d["pending"]),
            )
            out.append(d)
        return out

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Run one SQL statement (e.g. an experiment's report query) and return its rows."""
        with self._lock:
            return self._conn.execute(sql, parameters).fetchall()

    def __iter__(self) -> Iterator[StoredRun]:
        return iter(self.runs())


def _scrub_text(text: Any) -> Any:
    from .secrets import scrub

    return scrub(text)
