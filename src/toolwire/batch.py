"""Vendor batch APIs: send many model requests as one asynchronous job, at the vendors' batch price.

Anthropic (Message Batches), OpenAI (the Batch API, for Responses and Chat Completions) and Gemini
(batch mode) each take a set of ordinary model requests, run them within 24 hours and charge half
the standard price for them (each adapter's batch module cites its vendor's terms). This module is
the vendor-neutral half: it prepares every request exactly as a normal turn would send it (the
same :class:`~toolwire.adapter.ModelRequest`, encoded by the adapter's codec and checked by its
profile: a request the vendor would refuse raises :class:`~toolwire.errors.RequestRefused` here and
is never submitted), hands the bodies to the adapter's :class:`BatchAPI` (``Model.batch_api()``),
polls the job and decodes every answer with the same codec into a :class:`~toolwire.types.Response`
keyed by the caller's custom id.

A job survives its process: every submitted job and every collected result is written to a
:class:`BatchJournal` (an SQLite file) before anything else happens, keyed by custom id and by a
digest of the exact body. A restarted process that asks for the same requests finds the job and
resumes polling it instead of submitting again, and requests whose results were already collected
are answered from the journal without a new job. (A process killed between the vendor accepting
a job and the journal recording it cannot know that job's id; it submits again.)

Per-request failures are values, never a crash: an errored, expired or cancelled request (or a job
that failed or expired as a whole) comes back as the same typed
:class:`~toolwire.errors.ProviderError` the normal path raises, an answer that does not decode
(an unreadable line of a results file, a result of a shape the vendor does not document, a body
the codec refuses) as :class:`~toolwire.errors.ResponseDecodeError` naming the job and the custom
id — the other requests' results are still delivered — and a refused request as
:class:`~toolwire.errors.RequestRefused`.

Polling is bounded: by default it stops after :data:`DEFAULT_MAX_WAIT` seconds (25 hours: the
vendors' 24-hour window and an hour's grace) with :class:`BatchPending`, and a job in a state its
vendor does not document stops it at once with :class:`BatchStateUnknown`; both name the jobs and
their states, and with a journal file a later call resumes polling the same jobs.

Usage::

    results = await toolwire.batch.run_batch(model, {"q1": request1, "q2": request2}, journal="jobs.sqlite")
    for custom_id, outcome in results.items():
        if isinstance(outcome, toolwire.ToolwireError): ...
        else: outcome.text, outcome.usage

The core imports no vendor SDK: each adapter provides its :class:`BatchAPI` from
``Model.batch_api()`` (``None`` when its API has no batch mode).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import sqlite3
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

from ._words import plural
from .adapter import Model
from .errors import ConfigurationError, ProviderError, ResponseDecodeError, ToolwireError, json_error_at

if TYPE_CHECKING:  # pragma: no cover
    from .adapter import ModelRequest
    from .types import Response

__all__ = [
    "BatchAPI",
    "BatchItem",
    "BatchItemResult",
    "BatchJournal",
    "BatchPending",
    "BatchRounds",
    "BatchStateUnknown",
    "BatchStatus",
    "BatchUnsupported",
    "DEFAULT_MAX_WAIT",
    "batch_api",
    "job_state",
    "json_object",
    "json_object_or_none",
    "jsonl_results",
    "prepare",
    "run_batch",
    "body_digest",
]

#: Canonical job states: ``in_progress`` (the vendor is still working; poll again), ``ended``
#: (every request has a result, an error, or expired; the results can be read) or ``unknown``
#: (the vendor reported a state its documentation does not list: polling stops with
#: :class:`BatchStateUnknown` instead of waiting for a state that may never change).
JobState = Literal["in_progress", "ended", "unknown"]

#: Default bound on polling, in seconds of wall time from the first poll of a call: 25 hours (the
#: vendors run a batch within 24 hours or expire it; an hour's grace for finalizing).
DEFAULT_MAX_WAIT = 25 * 3600.0


class BatchUnsupported(ConfigurationError):
    """The model's API has no batch mode toolwire can drive (e.g. the offline providers, or a
    compatible server). The message names the model and the providers that have one."""


class BatchPending(ToolwireError):
    """Polling stopped (``max_polls`` or ``max_wait`` reached) before every job ended.
    ``job_ids``: the jobs still running; ``states``: each one's last vendor state (``{job_id:
    vendor_status}``, ``""`` when never polled). They are in the journal, so calling
    :func:`run_batch` again with the same requests and journal file resumes polling them without
    submitting anything (with an in-memory journal a new process cannot: the message says so)."""

    def __init__(self, message: str, job_ids: list[str], states: Mapping[str, str] | None = None) -> None:
        self.job_ids: list[str] = list(job_ids)
        self.states: dict[str, str] = dict(states or {})
        super().__init__(message)


class BatchStateUnknown(BatchPending, ResponseDecodeError):
    """A job is in a state its vendor's documentation does not list (e.g. OpenAI ``Batch.status``
    ``"paused"``): toolwire cannot tell whether it will ever end, so polling stops at once instead
    of polling forever. ``job_id``: that job; ``vendor_status``: the state as the vendor sent it;
    ``known``: the states the vendor documents; ``job_ids`` / ``states``: every job still
    unfinished (as :class:`BatchPending`). Both a :class:`BatchPending` (the jobs are in the
    journal; a later call polls them again) and a :class:`~toolwire.errors.ResponseDecodeError`
    (``pointer``: the state field)."""

    def __init__(
        self,
        api: str,
        job_id: str,
        vendor_status: str,
        known: Sequence[str],
        message: str,
        job_ids: list[str],
        states: Mapping[str, str] | None = None,
        pointer: str = "",
    ) -> None:
        self.api = api
        self.pointer = pointer
        self.detail = message
        self.job_id = job_id
        self.vendor_status = vendor_status
        self.known: tuple[str, ...] = tuple(known)
        self.job_ids: list[str] = list(job_ids)
        self.states: dict[str, str] = dict(states or {})
        Exception.__init__(self, message)


@dataclass
class BatchItem:
    """One request of a batch: ``custom_id`` (the caller's key, unique in the batch; each vendor's
    rule is checked by :meth:`BatchAPI.check_custom_id`), the canonical ``request`` and ``body``,
    the wire body exactly as the normal path would send it (encoded, repaired and checked)."""

    custom_id: str
    request: ModelRequest
    body: dict[str, Any]
    report: Any = None


@dataclass
class BatchStatus:
    """A job's state: ``job_id``; ``state`` (:data:`JobState`); ``vendor_status`` (the vendor's own
    value, e.g. Anthropic ``processing_status`` ``"in_progress"``, OpenAI ``status``
    ``"finalizing"``, Gemini ``BATCH_STATE_RUNNING``); ``counts`` (the vendor's request counts by
    its own names); ``error``: a :class:`ProviderError` when the job as a whole failed or expired
    (every request without a result then gets it); ``vendor``: the vendor's job object as its
    wire dict (e.g. OpenAI's ``output_file_id``), for :meth:`BatchAPI.results`."""

    job_id: str
    state: JobState
    vendor_status: str
    counts: dict[str, int] = field(default_factory=dict)
    error: ProviderError | None = None
    vendor: dict[str, Any] = field(default_factory=dict, repr=False)
    #: the states the vendor documents and the field holding them (for the message of
    #: :class:`BatchStateUnknown`), e.g. ``("in_progress", "canceling", "ended")`` and
    #: ``"MessageBatch.processing_status"``
    known: tuple[str, ...] = ()
    state_field: str = ""


def json_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object (a ``dict``), else an empty one: for a field of a
    vendor's batch listing or result line that may be missing, null or of another type."""
    return value if isinstance(value, dict) else {}


def json_object_or_none(value: Any) -> dict[str, Any] | None:
    """``value`` when it is a JSON object (a ``dict``), else ``None``."""
    return value if isinstance(value, dict) else None


def job_state(vendor_status: str, *, running: Collection[str], ended: Collection[str]) -> JobState:
    """The canonical state of a vendor state: ``"ended"`` when it is in ``ended``,
    ``"in_progress"`` when in ``running``, else ``"unknown"`` (:class:`BatchStateUnknown` then
    stops polling). Adapters pass the states their vendor documents."""
    if vendor_status in ended:
        return "ended"
    if vendor_status in running:
        return "in_progress"
    return "unknown"


@dataclass
class BatchItemResult:
    """What a vendor returned for one request: ``custom_id`` and either ``body`` (the response
    body in the form the normal path decodes, a JSON-ready dict) or ``error``: the
    :class:`ProviderError` the normal path would raise, or a
    :class:`~toolwire.errors.ResponseDecodeError` when the vendor's result for it cannot be read.
    ``custom_id`` is ``None`` for a result that cannot be attributed to a request (a results-file
    line without a readable custom id): the core then names it in the error of every request
    left without a result."""

    custom_id: str | None
    body: dict[str, Any] | None = None
    error: ToolwireError | None = None


_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")')


def jsonl_results(
    api: str, job_id: str, data: bytes | str, *, what: str = "results file"
) -> tuple[list[tuple[int, dict[str, Any]]], list[BatchItemResult]]:
    """The lines of a JSONL results file (OpenAI's output and error files, Anthropic's results):
    ``(lines, unreadable)``. ``lines``: ``(line number, object)`` for every line that is a JSON
    object (1-based; blank lines skipped); ``unreadable``: a :class:`BatchItemResult` with a
    :class:`~toolwire.errors.ResponseDecodeError` for every other line (not JSON, not an object,
    not UTF-8) — for the request whose ``"custom_id"`` can still be read from it, else with
    ``custom_id`` ``None``. One bad line never hides the others."""
    if isinstance(data, bytes):
        text = data.decode("utf-8", errors="replace")
    else:
        text = data
    lines: list[tuple[int, dict[str, Any]]] = []
    bad: list[BatchItemResult] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        problem = None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            problem = f"is not JSON ({json_error_at(exc, f'column {exc.colno}')})"
        except RecursionError:
            problem = "is nested too deeply to read"
        else:
            if isinstance(value, dict):
                lines.append((number, value))
                continue
            problem = f"is a JSON {type(value).__name__}, not an object"
        cid: str | None = None
        found = _CUSTOM_ID.search(raw)
        if found:
            try:
                cid = str(json.loads(found.group(1)))
            except ValueError:
                cid = None
        who = f"the result of request {cid!r}" if cid is not None else "a result"
        shown = raw if len(raw) <= 120 else raw[:117] + "..."
        bad.append(
            BatchItemResult(
                cid,
                error=ResponseDecodeError(
                    api,
                    f"batch {job_id}: line {number} of the {what} ({who}) {problem}: {shown!r}; "
                    "the request is submitted again when asked again with the same journal",
                ),
            )
        )
    return lines, bad


@runtime_checkable
class BatchAPI(Protocol):
    """The vendor half of a batch, provided by an adapter (``Model.batch_api()``).

    Every method talks to the vendor through its SDK and raises :class:`ProviderError` for
    transport and API failures (as the normal path does); per-request failures are
    :class:`BatchItemResult` errors, not exceptions.
    """

    #: The API name (``"anthropic"``, ``"openai"``, ``"openai-chat"``, ``"gemini"``).
    provider: str

    def check_custom_id(self, custom_id: str) -> str | None:
        """``None`` when the vendor accepts ``custom_id``, else a sentence saying its rule."""
        ...

    async def create(self, items: Sequence[BatchItem]) -> str:
        """Submit ``items`` as one job; return its id."""
        ...

    async def retrieve(self, job_id: str) -> BatchStatus:
        """The job's current state."""
        ...

    async def results(self, job_id: str, status: BatchStatus) -> list[BatchItemResult]:
        """Every result of an ended job (in any order; missing ones are reported by the core)."""
        ...

    async def cancel(self, job_id: str) -> None:
        """Ask the vendor to cancel the job (requests not yet run end as cancelled)."""
        ...


def batch_api(model: Model) -> BatchAPI:
    """The :class:`BatchAPI` of ``model`` (from its adapter's ``Model.batch_api()``). Raises
    :class:`BatchUnsupported` when its API has no batch mode."""
    maker = getattr(model, "batch_api", None)
    api: Any = maker() if callable(maker) else None
    if api is None:
        raise BatchUnsupported(
            f"{model.name} has no batch mode: the vendor batch APIs are Anthropic Message Batches "
            "(anthropic:...), the OpenAI Batch API (openai:... and openai-chat:... on api.openai.com) "
            "and Gemini batch mode (gemini:...); run this model with the normal loop instead"
        )
    return cast("BatchAPI", api)


def body_digest(body: Mapping[str, Any]) -> str:
    """The SHA-256 hex digest of ``body`` as canonical JSON (sorted keys, no spaces): two requests
    with the same digest send the same bytes of meaning."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prepare(model: Model, custom_id: str, request: ModelRequest) -> BatchItem:
    """The :class:`BatchItem` of ``request``: the body the model's normal (non-streamed) send
    would post — ``before_encode``, encode, preflight repairs and checks, and the transport's
    ``stream_body`` (e.g. ``"stream": false`` on OpenAI) — byte for byte. Raises
    :class:`~toolwire.errors.RequestRefused` (and whatever encoding raises) like a normal send."""
    import dataclasses

    from .wire import without_lone_surrogates

    if request.stream:
        request = dataclasses.replace(request, stream=False)  # a batch request is never streamed
    adjusted = model.before_encode(request, stream=False)
    body, report = model._preflight(adjusted)
    shaper = getattr(model, "stream_body", None)
    sent = cast("dict[str, Any]", shaper(dict(body), False)) if callable(shaper) else dict(body)
    # a batch file or request is serialized by the SDK or as JSONL, not by body_json
    sent = without_lone_surrogates(sent)
    return BatchItem(custom_id, adjusted, sent, report)


# -- the journal -------------------------------------------------------------------------------

_JOURNAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS batch_jobs (
    job_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    state TEXT NOT NULL,
    vendor_status TEXT,
    requests INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    collected INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS batch_items (
    custom_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    job_id TEXT NOT NULL REFERENCES batch_jobs (job_id),
    model TEXT NOT NULL,
    body TEXT,
    error TEXT,
    PRIMARY KEY (custom_id, digest, job_id)
);
CREATE INDEX IF NOT EXISTS batch_items_job ON batch_items (job_id);
"""


class BatchJournal:
    """Where submitted jobs and collected results are kept: the tables ``batch_jobs`` (one row per
    job: ``job_id``, ``provider``, ``model``, ``state``, ``vendor_status``, ``requests``,
    ``created_at`` / ``updated_at`` in Unix seconds, ``collected`` 0/1) and ``batch_items`` (one
    row per submitted request: ``custom_id``, ``digest`` (:func:`body_digest` of its body),
    ``job_id``, ``model``, and once collected ``body`` — the vendor's response body as JSON — or
    ``error`` — the :class:`ProviderError`'s fields as JSON) in the SQLite file ``path``
    (``":memory:"`` for a journal that lives as long as the object).

    The tables may share a file with a :class:`toolwire.store.RunStore` (open the store first: a
    store refuses a new file that holds other tables only). Thread-safe; several processes may
    use one file (SQLite's locking).
    """

    def __init__(self, path: str | Path = ":memory:", *, timeout: float = 30.0) -> None:
        from .store import _Guarded, _use_wal, sqlite_error

        self.path: str = str(path)
        # sqlite3 errors (locked past ``timeout``, a damaged file) become RunStoreError naming the file
        self._lock = _Guarded(self.path, "the batch journal", timeout)
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise ConfigurationError(f"{self.path!r} is a folder, not a batch journal file; give a file path")
        try:
            self._conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                _use_wal(self._conn, timeout)  # (two processes opening one new file at once)
            for statement in _JOURNAL_SCHEMA.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
        except sqlite3.Error as exc:
            raise sqlite_error(self.path, exc, what="the batch journal", timeout=timeout) from None

    def close(self) -> None:
        """Close the SQLite connection. Closing again does nothing; any other call afterwards raises
        :class:`~toolwire.store.RunStoreError`."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> BatchJournal:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _exec(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, params))

    def record_job(self, job_id: str, provider: str, model: str, items: Sequence[tuple[str, str]]) -> None:
        """Record a submitted job and its requests (``(custom_id, digest)`` pairs), in one transaction."""
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO batch_jobs VALUES (?, ?, ?, 'in_progress', NULL, ?, ?, ?, 0)",
                    (job_id, provider, model, len(items), now, now),
                )
                self._conn.executemany(
                    "INSERT OR REPLACE INTO batch_items VALUES (?, ?, ?, ?, NULL, NULL)",
                    [(cid, digest, job_id, model) for cid, digest in items],
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def update_status(self, status: BatchStatus) -> None:
        """Write a job's last seen state."""
        self._exec(
            "UPDATE batch_jobs SET state = ?, vendor_status = ?, updated_at = ? WHERE job_id = ?",
            (status.state, status.vendor_status, time.time(), status.job_id),
        )

    def record_results(self, job_id: str, results: Mapping[tuple[str, str], BatchItemResult]) -> None:
        """Write the results of an ended job (keyed by ``(custom_id, digest)``) and mark it collected."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for (cid, digest), res in results.items():
                    self._conn.execute(
                        "UPDATE batch_items SET body = ?, error = ? WHERE custom_id = ? AND digest = ? AND job_id = ?",
                        (
                            None if res.body is None else json.dumps(res.body, ensure_ascii=False),
                            None if res.error is None else json.dumps(_error_fields(res.error), default=str),
                            cid,
                            digest,
                            job_id,
                        ),
                    )
                self._conn.execute(
                    "UPDATE batch_jobs SET collected = 1, state = 'ended', updated_at = ? WHERE job_id = ?",
                    (time.time(), job_id),
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def record_lost(self, job_id: str, error: ProviderError) -> None:
        """Mark a job the vendor no longer knows as collected: each of its requests without a
        result gets ``error`` (retryable, so :meth:`lookup` lets it be submitted again)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "UPDATE batch_items SET error = ? WHERE job_id = ? AND body IS NULL AND error IS NULL",
                    (json.dumps(_error_fields(error), default=str), job_id),
                )
                self._conn.execute(
                    "UPDATE batch_jobs SET collected = 1, state = 'ended', vendor_status = 'not_found', "
                    "updated_at = ? WHERE job_id = ?",
                    (time.time(), job_id),
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def lookup(self, custom_id: str, digest: str, model: str) -> tuple[str, BatchItemResult | None] | None:
        """The newest job holding this request: ``(job_id, result)`` with ``result`` ``None`` while the
        job is not collected; ``None`` when no job holds it. A collected job's request that came
        back as a retryable error (e.g. expired) is not reused: it is submitted again. Raises
        :class:`~toolwire.store.RunStoreError` (reason ``damaged``) for a collected answer whose
        ``body``/``error`` is not the JSON object the journal wrote (the file was changed)."""
        rows = self._exec(
            "SELECT i.job_id, j.collected, i.body, i.error FROM batch_items i JOIN batch_jobs j USING (job_id) "
            "WHERE i.custom_id = ? AND i.digest = ? AND i.model = ? ORDER BY j.created_at DESC",
            (custom_id, digest, model),
        )
        for job_id, collected, body, error in rows:
            if not collected:
                return job_id, None
            provider = self.provider_of(job_id)
            if body is not None:
                return job_id, BatchItemResult(custom_id, body=self._stored(job_id, custom_id, "body", body))
            err = _error_from_fields(provider, self._stored(job_id, custom_id, "error", error)) if error else None
            if isinstance(err, ProviderError) and not err.retryable:
                return job_id, BatchItemResult(custom_id, error=err)
            # a retryable failure (expired, cancelled, overloaded) or an answer that could not be
            # read: submit it again
            return None
        return None

    def _stored(self, job_id: Any, custom_id: str, column: str, text: Any) -> dict[str, Any]:
        """The JSON object a collected answer's ``column`` holds; raises
        :class:`~toolwire.store.RunStoreError` (reason ``damaged``) when the file was changed and
        it holds something else."""
        from .store import RunStoreError, _show, _sql_text

        try:
            value = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        where = f"job_id={_sql_text(job_id)} AND custom_id={_sql_text(custom_id)}"
        raise RunStoreError(
            f"the batch journal {self.path!r} holds a damaged answer to request {custom_id!r} of batch {job_id}: its "
            f"{column} is {_show(text)}, not a JSON object; the file was changed outside toolwire. To have the "
            f'request submitted again, clear the answer (`sqlite3 {self.path} "UPDATE batch_items SET body=NULL, '
            f'error=NULL WHERE {where}"`), or restore the file from a backup; the rows are left as they are',
            path=self.path,
            reason="damaged",
        )

    def provider_of(self, job_id: str) -> str:
        """The provider name recorded for batch ``job_id`` (as given to :meth:`record_job`), or ``""``
        when the journal has no such job."""
        rows = self._exec("SELECT provider FROM batch_jobs WHERE job_id = ?", (job_id,))
        return rows[0][0] if rows else ""

    def jobs(self) -> list[dict[str, Any]]:
        """Every recorded job as a dict of its ``batch_jobs`` columns, oldest first."""
        cols = ("job_id", "provider", "model", "state", "vendor_status", "requests", "created_at", "updated_at")
        rows = self._exec(f"SELECT {', '.join(cols)}, collected FROM batch_jobs ORDER BY created_at")
        return [dict(zip(cols, r[:-1]), collected=bool(r[-1])) for r in rows]


def _error_fields(err: ToolwireError) -> dict[str, Any]:
    if not isinstance(err, ProviderError):  # an answer that could not be read
        return {
            "kind": "decode",
            "message": getattr(err, "detail", str(err)),
            "pointer": getattr(err, "pointer", ""),
        }
    return {
        "message": err.message,
        "status": err.status,
        "retryable": err.retryable,
        "error_type": err.error_type,
        "body": err.body,
    }


def _error_from_fields(provider: str, d: Mapping[str, Any]) -> ToolwireError:
    if d.get("kind") == "decode":
        return ResponseDecodeError(
            provider, str(d.get("message") or "unreadable batch answer"), str(d.get("pointer") or "")
        )
    return ProviderError(
        provider,
        str(d.get("message") or "batch request failed"),
        status=d.get("status"),
        retryable=bool(d.get("retryable")),
        error_type=d.get("error_type"),
        body=d.get("body"),
    )


# -- running a batch ---------------------------------------------------------------------------


def _journal(journal: BatchJournal | str | Path | None) -> tuple[BatchJournal, bool]:
    if isinstance(journal, BatchJournal):
        return journal, False
    return BatchJournal(journal if journal is not None else ":memory:"), True


_RESEND = "it is submitted again when asked again with the same journal"


def _decode(model: Model, item: BatchItem, res: BatchItemResult, job_id: str) -> Response | ToolwireError:
    if res.error is not None:
        return res.error
    where = f"batch {job_id}, request {item.custom_id!r}"
    codec = model.codec
    if codec is None or not isinstance(res.body, dict):
        return ResponseDecodeError(
            model.provider, f"{where}: the result holds neither an answer nor an error; {_RESEND}"
        )
    try:
        response = codec.decode_response(res.body, item.request)
    except ResponseDecodeError as exc:
        return ResponseDecodeError(exc.api, f"{where}: {exc.detail}; {_RESEND}", exc.pointer)
    except ToolwireError as exc:
        return exc
    except Exception as exc:  # a decoder bug must not lose the other results
        return ResponseDecodeError(
            model.provider, f"{where}: the answer could not be decoded: {type(exc).__name__}: {exc}; {_RESEND}"
        )
    if item.report is not None and len(item.report) and response.preflight is None:
        response.preflight = item.report
    if response.usage.requests == 0:
        response.usage.requests = 1
    return response


def _check_polling(poll_interval: Any, max_polls: Any, max_wait: Any) -> tuple[float, int | None, float | None]:
    """The polling options, checked: a :class:`ConfigurationError` naming the option otherwise."""

    def number(name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ConfigurationError(f"{name} must be a finite number of seconds, 0 or more; got {value!r}")
        return float(value)

    interval = number("poll_interval", poll_interval)
    if max_polls is not None and (isinstance(max_polls, bool) or not isinstance(max_polls, int) or max_polls < 0):
        raise ConfigurationError(f"max_polls must be a whole number, 0 or more, or None; got {max_polls!r}")
    wait = None if max_wait is None else number("max_wait", max_wait)
    return interval, max_polls, wait


def _resume_advice(book: BatchJournal) -> str:
    if book.path == ":memory:":
        return (
            "the journal is in memory, so nothing resumes them after this process: pass journal=PATH "
            "(an SQLite file) to resume later; the jobs keep running at the vendor until they end "
            "(toolwire.batch.batch_api(model).cancel(job_id) cancels one)"
        )
    return f"call again with the same requests and journal ({book.path}) to resume polling them (nothing is submitted again)"


def _pointer(state_field: str) -> str:
    """The JSON pointer of a state field: ``"MessageBatch.processing_status"`` (an SDK type and
    its field) → ``"/processing_status"``, ``"metadata.state"`` → ``"/metadata/state"``."""
    parts = [p for p in state_field.split(".") if p]
    if parts and parts[0][:1].isupper():
        parts = parts[1:]
    return "/" + "/".join(parts) if parts else ""


def _jobs_text(pending: Mapping[str, Any], states: Mapping[str, str]) -> str:
    return ", ".join(f"{j} ({states[j]})" if states.get(j) else j for j in pending)


async def run_batch(
    model: Model,
    requests: Mapping[str, ModelRequest],
    *,
    journal: BatchJournal | str | Path | None = None,
    poll_interval: float = 30.0,
    max_polls: int | None = None,
    max_wait: float | None = DEFAULT_MAX_WAIT,
    on_status: Any = None,
) -> dict[str, Response | ToolwireError]:
    """Send ``requests`` (``{custom_id: ModelRequest}``) through ``model``'s vendor batch API and
    return ``{custom_id: Response or error}`` in the order of ``requests``.

    - Every request is prepared as a normal turn (:func:`prepare`); one the profile refuses maps to
      its :class:`~toolwire.errors.RequestRefused` and is not submitted. A custom id the vendor
      does not accept raises :class:`~toolwire.errors.ConfigurationError` before anything is sent.
    - ``journal``: a :class:`BatchJournal` or the path of its SQLite file (default: in memory, so
      nothing survives the process). Requests already collected there are answered from it;
      requests in a job still running are polled, not submitted again; the rest go into one new job.
    - ``poll_interval``: seconds between polls (vendors finish within 24 hours, usually much
      sooner; 30 s is gentle on their rate limits); ``max_polls``: stop after that many polls of
      unfinished jobs by raising :class:`BatchPending` (``0``: submit and return at once);
      ``max_wait``: stop polling after that many seconds of wall time from the first poll, the
      same way (default :data:`DEFAULT_MAX_WAIT`, 25 hours; ``None``: no bound);
      ``on_status``: called with every :class:`BatchStatus` seen.
    - A job in a state the vendor does not document stops polling at once with
      :class:`BatchStateUnknown` (naming the job, its state and the documented ones).
    - A journal's job the vendor answers HTTP 404 for (deleted, or another account's) is not
      polled again: its requests get a retryable :class:`ProviderError` (``error_type``
      ``"batch_not_found"``) and are submitted again when asked again.
    - A result that cannot be read (a results-file line that is not JSON, a result of an
      undocumented shape, an answer the codec refuses) is a
      :class:`~toolwire.errors.ResponseDecodeError` for that request only, naming the job and the
      custom id; asked again with the same journal, such a request is submitted again, as is one
      whose kept result is an error (errored, canceled or expired at the vendor): only answers
      are answered from the journal.
    - A custom id the results hold more than once keeps its answer over an error line (in any
      order), and a vendor error over a line that cannot be read; results for custom ids never
      submitted are left out.

    Raises :class:`BatchUnsupported` for a model without a batch mode, :class:`BatchPending`
    (and :class:`BatchStateUnknown`), :class:`ConfigurationError` for a bad option or request,
    and :class:`ProviderError` when submitting or polling fails (the journal keeps what was
    submitted).
    """
    poll_interval, max_polls, max_wait = _check_polling(poll_interval, max_polls, max_wait)
    if not isinstance(requests, Mapping):
        raise ConfigurationError(
            f"requests must be a mapping of custom id to ModelRequest, got {type(requests).__name__}"
        )
    from .adapter import ModelRequest as _ModelRequest

    api = batch_api(model)
    items: dict[str, BatchItem] = {}
    out: dict[str, Response | ToolwireError] = {}
    for cid, request in requests.items():
        problem = api.check_custom_id(cid) if isinstance(cid, str) else f"a custom id must be a string, got {cid!r}"
        if problem:
            raise ConfigurationError(f"{model.name}: batch custom id {cid!r} is not accepted: {problem}")
        if not isinstance(request, _ModelRequest):
            raise ConfigurationError(
                f"{model.name}: batch request {cid!r} is a {type(request).__name__}, not a ModelRequest "
                "(build one with model.build_request(messages, ...))"
            )
        try:
            items[cid] = prepare(model, cid, request)
        except ToolwireError as exc:
            out[cid] = exc
    book, owned = _journal(journal)
    try:
        digests = {cid: body_digest(it.body) for cid, it in items.items()}
        waiting: dict[str, list[str]] = {}
        fresh: list[BatchItem] = []
        for cid, item in items.items():
            hit = book.lookup(cid, digests[cid], model.name)
            if hit is None:
                fresh.append(item)
            elif hit[1] is None:
                waiting.setdefault(hit[0], []).append(cid)
            else:
                decoded = _decode(model, item, hit[1], hit[0])
                if isinstance(decoded, ToolwireError):
                    # a kept error (errored, canceled, expired) or an answer that cannot be used:
                    # asked again, it is submitted again (a billing or rate-limit error fixed since
                    # would otherwise be answered from the journal forever)
                    fresh.append(item)
                else:
                    out[cid] = decoded
        if fresh:
            job_id = await api.create(fresh)
            try:
                book.record_job(
                    job_id, api.provider, model.name, [(it.custom_id, digests[it.custom_id]) for it in fresh]
                )
            except ToolwireError as exc:  # the vendor has the job; without the record a restart submits it again
                from .store import RunStoreError

                raise RunStoreError(
                    f"{exc}; batch {job_id} ({plural(len(fresh), 'request')}) was submitted but could not be recorded: "
                    f"cancel it (toolwire.batch.batch_api(model).cancel({job_id!r})) or collect it by hand, "
                    "since asking again would submit its requests again",
                    path=book.path,
                    reason=getattr(exc, "reason", "failed"),
                ) from exc
            waiting.setdefault(job_id, []).extend(it.custom_id for it in fresh)
        polls = 0
        started = time.monotonic()
        pending = dict(waiting)
        states: dict[str, str] = {}
        while pending:
            stop = None
            if max_polls is not None and polls >= max_polls:
                stop = f"after {plural(polls, 'poll')} (max_polls={max_polls})"
            elif max_wait is not None and polls and time.monotonic() - started >= max_wait:
                stop = f"after {time.monotonic() - started:.0f} s of polling (max_wait={max_wait:g} s)"
            if stop is not None:
                raise BatchPending(
                    f"{plural(len(pending), 'batch job')} still running {stop}: {_jobs_text(pending, states)}; "
                    + _resume_advice(book),
                    list(pending),
                    {j: states.get(j, "") for j in pending},
                )
            if polls:
                await asyncio.sleep(poll_interval)
            polls += 1
            for job_id in list(pending):
                try:
                    status = await api.retrieve(job_id)
                except ProviderError as exc:
                    if exc.status != 404:
                        raise
                    # the vendor does not know the job (deleted, or the journal belongs to another
                    # account or key): polling it again would fail the same way forever
                    lost = _lost(api.provider, job_id, exc, book)
                    book.record_lost(job_id, lost)
                    for cid in pending.pop(job_id):
                        out[cid] = lost
                    continue
                states[job_id] = status.vendor_status
                if status.state not in ("in_progress", "ended"):
                    known = f" ({', '.join(status.known)})" if status.known else ""
                    raise BatchStateUnknown(
                        api.provider,
                        job_id,
                        status.vendor_status,
                        status.known,
                        f"{api.provider}: batch {job_id} reports {status.state_field or 'state'} "
                        f"{status.vendor_status!r}, not one of the states the vendor documents{known}; polling "
                        "stopped instead of waiting for a state that may never change. Unfinished: "
                        f"{_jobs_text(pending, states)}; {_resume_advice(book)}",
                        list(pending),
                        {j: states.get(j, "") for j in pending},
                        pointer=_pointer(status.state_field),
                    )
                book.update_status(status)
                if on_status is not None:
                    on_status(status)
                if status.state != "ended":
                    continue
                mine = pending.pop(job_id)
                returned = await api.results(job_id, status)
                got = _by_custom_id(returned)
                unread = [r for r in returned if r.custom_id is None and r.error is not None]
                recorded: dict[tuple[str, str], BatchItemResult] = {}
                for cid in mine:
                    res = got.get(cid)
                    if res is None and unread:
                        res = BatchItemResult(cid, error=_unread(api.provider, job_id, cid, unread))
                    elif res is None:
                        res = BatchItemResult(cid, error=status.error or _missing(api.provider, job_id, cid, status))
                    recorded[(cid, digests[cid])] = res
                # results of this job's other requests (another caller's) are kept too
                for cid, res in got.items():
                    if cid is not None and cid not in mine:
                        rows = book._exec(
                            "SELECT digest FROM batch_items WHERE job_id = ? AND custom_id = ?", (job_id, cid)
                        )
                        for (digest,) in rows:
                            recorded[(cid, digest)] = res
                book.record_results(job_id, recorded)
                for cid in mine:
                    out[cid] = _decode(model, items[cid], recorded[(cid, digests[cid])], job_id)
        return {cid: out[cid] for cid in requests}
    finally:
        if owned:
            book.close()


def _by_custom_id(returned: Sequence[BatchItemResult]) -> dict[str, BatchItemResult]:
    """The results of a job by custom id. A custom id the vendor returned more than once keeps
    its first answer over any error (a request that ran and was billed is not lost to another
    line's error, whatever the order of the lines), else its first vendor error
    (:class:`ProviderError`) over a result that could not be read."""

    def rank(res: BatchItemResult) -> int:
        return 2 if res.body is not None else 1 if isinstance(res.error, ProviderError) else 0

    got: dict[str, BatchItemResult] = {}
    for res in returned:
        if res.custom_id is None:
            continue
        kept = got.get(res.custom_id)
        if kept is None or rank(res) > rank(kept):
            got[res.custom_id] = res
    return got


def _lost(provider: str, job_id: str, exc: ProviderError, book: BatchJournal) -> ProviderError:
    return ProviderError(
        provider,
        f"batch {job_id} (recorded in the journal {book.path}) is not known to the vendor ({exc.message}): "
        "it was deleted, or the journal was written with another account or API key; its requests without a "
        "result are submitted again when asked again with the same journal",
        status=None,
        retryable=True,
        error_type="batch_not_found",
    )


def _unread(provider: str, job_id: str, custom_id: str, unread: list[BatchItemResult]) -> ResponseDecodeError:
    first = unread[0].error
    detail = getattr(first, "detail", str(first))
    more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
    return ResponseDecodeError(
        provider,
        f"batch {job_id} ended without a readable result for request {custom_id!r}; "
        f"{plural(len(unread), 'result')} could not be read, one may be its own: {detail}{more}",
    )


def _missing(provider: str, job_id: str, custom_id: str, status: BatchStatus) -> ProviderError:
    return ProviderError(
        provider,
        f"batch {job_id} ended ({status.vendor_status}) without a result for request {custom_id!r}; "
        "send it again (a new batch, or the normal loop)",
        status=None,
        retryable=True,
        error_type="missing_result",
    )


# -- many tool loops, one batch per round ------------------------------------------------------


class BatchRounds:
    """Many tool loops advanced together, every model turn through the vendor batch API: when every
    loop still running waits for its model, their requests go out as one batch (one per model),
    and each loop continues with its own decoded :class:`~toolwire.types.Response`.

    ::

        async with BatchRounds(journal="jobs.sqlite", poll_interval=60) as rounds:
            runs = [toolwire.run(rounds.model(model, key=f"run{i}"), prompt, tools=tools) for i in range(50)]
            results = await rounds.gather(*runs)

    - :meth:`model` wraps a model for one loop (pass it wherever a model goes: ``toolwire.run``,
      ``run_stream``); ``key`` names the loop: its request of turn ``n`` (``n`` = the assistant
      messages already in the conversation, plus one) has the custom id ``"<key>-<n>"``, so a
      restarted loop that reaches the same turn with the same conversation finds its job or its
      result in the journal (each vendor's custom-id rule applies to it: letters, digits, ``_``
      and ``-`` are safe everywhere). Each loop running at the same time needs its own key: two
      loops of one round with the same key and model are refused with
      :class:`~toolwire.errors.ConfigurationError` (their requests would share one custom id).
    - :meth:`gather` runs the loops; a round is sent when every loop gathered there waits for
      the model (or has ended), one job per model: loops whose models have the same adapter,
      ``provider:model-id`` and settings share a job even when each has its own model object
      (its own HTTP client). A loop whose request failed gets the error the normal path would
      raise (:class:`ProviderError`, :class:`~toolwire.errors.RequestRefused`, ...); when polling
      stops (``max_polls``, ``max_wait``, a job in an unknown state) every waiting loop gets
      :class:`BatchPending` (or :class:`BatchStateUnknown`).
    - ``journal``, ``poll_interval``, ``max_polls``, ``max_wait``, ``on_status``: as
      :func:`run_batch` (checked here: a bad value raises :class:`ConfigurationError`).
      ``rounds`` counts the rounds sent.
    """

    def __init__(
        self,
        *,
        journal: BatchJournal | str | Path | None = None,
        poll_interval: float = 30.0,
        max_polls: int | None = None,
        max_wait: float | None = DEFAULT_MAX_WAIT,
        on_status: Any = None,
    ) -> None:
        self.poll_interval: float
        self.max_polls: int | None
        self.max_wait: float | None
        self.journal: BatchJournal
        self._owned: bool
        self.poll_interval, self.max_polls, self.max_wait = _check_polling(poll_interval, max_polls, max_wait)
        self.journal, self._owned = _journal(journal)
        self.on_status = on_status
        self.rounds: int = 0
        self._live = 0
        self._waiting: list[tuple[Any, str, ModelRequest, asyncio.Future[Any]]] = []
        self._flushing = False
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> BatchRounds:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the journal when this object opened it."""
        if self._owned:
            self.journal.close()
            self._owned = False

    def model(self, inner: Model, key: str) -> Model:
        """A :class:`~toolwire.adapter.Model` that sends ``inner``'s turns through this batch.
        Raises :class:`BatchUnsupported` for a model without a batch mode and
        :class:`~toolwire.errors.ConfigurationError` for a ``key`` whose first custom id
        (``"<key>-1"``) the vendor refuses; a later turn's custom id the vendor refuses (a key
        grown too long) fails that loop only."""
        api = batch_api(inner)  # BatchUnsupported now, not at the first turn
        cid = f"{key}-1" if isinstance(key, str) else None
        problem = api.check_custom_id(cid) if cid is not None else f"a key must be a string, got {key!r}"
        if problem is not None:
            raise _bad_key(inner, cid if cid is not None else repr(key), problem)
        return _RoundModel(self, inner, key)

    async def gather(self, *aws: Any) -> list[Any]:
        """Await the loops ``aws`` (coroutines) together; returns their results or the exceptions
        they raised, in order (one loop's failure never stops the others)."""

        async def one(aw: Any) -> Any:
            try:
                return await aw
            finally:
                self._live -= 1
                self._check()

        self._live += len(aws)
        return list(await asyncio.gather(*(one(a) for a in aws), return_exceptions=True))

    async def _send(self, m: _RoundModel, request: ModelRequest) -> Response:
        turn = 1 + sum(1 for msg in request.messages if msg.role == "assistant")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((m.inner, f"{m.key}-{turn}", request, fut))
        self._check()
        return await fut

    def _check(self) -> None:
        if self._waiting and not self._flushing and len(self._waiting) >= self._live:
            self._flushing = True
            # kept: the event loop holds only a weak reference to a task
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        batch, self._waiting = self._waiting, []
        try:
            groups: dict[str, list[tuple[Any, str, ModelRequest, asyncio.Future[Any]]]] = {}
            for entry in batch:
                groups.setdefault(_group_key(entry[0]), []).append(entry)
            for gkey, group in list(groups.items()):
                # one custom id twice in a job: the vendor (and the results) would hold one request
                # for two loops, each getting the other's answer. Refuse those loops, keep the rest.
                seen: dict[str, int] = {}
                for _, cid, _, _ in group:
                    seen[cid] = seen.get(cid, 0) + 1
                clash = {cid for cid, n in seen.items() if n > 1}
                if not clash:
                    continue
                for _, cid, _, fut in group:
                    if cid in clash and not fut.done():
                        key = cid.rsplit("-", 1)[0]
                        fut.set_exception(
                            ConfigurationError(
                                f"{seen[cid]} loops of one BatchRounds use the key {key!r} with the same model "
                                f"(custom id {cid!r} twice in one batch): give each loop its own key "
                                "(rounds.model(model, key=...)); none of their requests was submitted"
                            )
                        )
                groups[gkey] = [e for e in group if e[1] not in clash]
                if not groups[gkey]:
                    del groups[gkey]
            for gkey, group in list(groups.items()):
                # a custom id the vendor refuses (a key with a space, one grown past 64 characters
                # with the turn number) fails its own loop, not the round (run_batch would refuse
                # the whole group before sending anything)
                api = batch_api(group[0][0])
                kept = []
                for inner, cid, req, fut in group:
                    problem = api.check_custom_id(cid)
                    if problem is None:
                        kept.append((inner, cid, req, fut))
                    elif not fut.done():
                        fut.set_exception(_bad_key(inner, cid, problem))
                groups[gkey] = kept
                if not kept:
                    del groups[gkey]
            if groups:
                self.rounds += 1

            async def send(group: list[tuple[Any, str, ModelRequest, asyncio.Future[Any]]]) -> None:
                inner = group[0][0]
                try:
                    got = await run_batch(
                        inner,
                        {cid: req for _, cid, req, _ in group},
                        journal=self.journal,
                        poll_interval=self.poll_interval,
                        max_polls=self.max_polls,
                        max_wait=self.max_wait,
                        on_status=self.on_status,
                    )
                except BaseException as exc:  # the whole group failed: every loop in it hears why
                    for *_, fut in group:
                        if not fut.done():
                            fut.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                    return
                for _, cid, _, fut in group:
                    outcome = got[cid]
                    if fut.done():
                        continue
                    if isinstance(outcome, BaseException):
                        fut.set_exception(outcome)
                    else:
                        fut.set_result(outcome)

            await asyncio.gather(*(send(g) for g in groups.values()))
        finally:
            self._flushing = False
            self._check()


def _bad_key(model: Model, custom_id: str, problem: str) -> ConfigurationError:
    key = custom_id.rsplit("-", 1)[0]
    return ConfigurationError(
        f"{model.name}: BatchRounds key {key!r} gives the batch custom id {custom_id!r}, which is not accepted: "
        f"{problem}; give the loop a shorter key of letters, digits, '_' and '-' (rounds.model(model, key=...)); "
        "its request was not submitted"
    )


def _group_key(model: Model) -> str:
    """Models that share one batch: the same adapter class, ``provider:model-id`` and settings
    (the HTTP client aside: each run may bring its own), so one of them can prepare, send and
    decode every request of the group exactly as its own model would."""
    settings = {k: v for k, v in model.settings.items() if k != "http_client"}
    extra = {k: v for k, v in vars(model).items() if k.endswith("_settings") and isinstance(v, dict)}
    text = json.dumps([type(model).__qualname__, model.name, settings, extra], sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _RoundModel(Model):
    """One loop's view of a :class:`BatchRounds`: ``inner``'s settings, profile and request
    building; its turns go out in the round's batch."""

    codec = None  # the inner model prepares (encodes and checks) the request in the batch

    def __init__(self, rounds: BatchRounds, inner: Model, key: str) -> None:  # no Model.__init__: a view
        self._rounds = rounds
        self.inner = inner
        self.key = key
        self.provider = inner.provider
        self.model_id = inner.model_id
        self.settings = inner.settings

    @property
    def profile(self) -> Any:
        return self.inner.profile

    def build_request(self, messages: Any, **kwargs: Any) -> ModelRequest:
        return self.inner.build_request(messages, **kwargs)

    def check_streamed(self, response: Response) -> Response:
        return self.inner.check_streamed(response)

    def batch_api(self) -> Any:
        return self.inner.batch_api()

    def credential_problem(self) -> str | None:
        return self.inner.credential_problem()

    async def send(self, request: ModelRequest) -> Response:
        return await self._rounds._send(self, request)

    async def aclose(self) -> None:
        await self.inner.aclose()
