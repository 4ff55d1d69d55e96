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
:class:`~toolwire.errors.ProviderError` the normal path raises, an answer that does not decode as
:class:`~toolwire.errors.ResponseDecodeError`, a refused request as
:class:`~toolwire.errors.RequestRefused`.

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
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

from .adapter import Model
from .errors import ConfigurationError, ProviderError, ToolwireError

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
    "BatchStatus",
    "BatchUnsupported",
    "batch_api",
    "prepare",
    "run_batch",
    "body_digest",
]

#: Canonical job states: ``in_progress`` (the vendor is still working; poll again) or ``ended``
#: (every request has a result, an error, or expired; the results can be read).
JobState = Literal["in_progress", "ended"]


class BatchUnsupported(ConfigurationError):
    """The model's API has no batch mode toolwire can drive (e.g. the offline providers, or a
    compatible server). The message names the model and the providers that have one."""


class BatchPending(ToolwireError):
    """Polling stopped (``max_polls`` reached) before every job ended. ``job_ids``: the jobs still
    running; they are in the journal, so calling :func:`run_batch` again with the same requests
    resumes polling them without submitting anything."""

    def __init__(self, message: str, job_ids: list[str]) -> None:
        self.job_ids = list(job_ids)
        super().__init__(message)


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


@dataclass
class BatchItemResult:
    """What a vendor returned for one request: ``custom_id`` and either ``body`` (the response
    body in the form the normal path decodes, a JSON-ready dict) or ``error`` (the
    :class:`ProviderError` the normal path would raise)."""

    custom_id: str
    body: dict[str, Any] | None = None
    error: ProviderError | None = None


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

    if request.stream:
        request = dataclasses.replace(request, stream=False)  # a batch request is never streamed
    adjusted = model.before_encode(request, stream=False)
    body, report = model._preflight(adjusted)
    shaper = getattr(model, "stream_body", None)
    sent = cast("dict[str, Any]", shaper(dict(body), False)) if callable(shaper) else dict(body)
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
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            for statement in _JOURNAL_SCHEMA.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
        except sqlite3.DatabaseError as exc:
            raise ConfigurationError(f"{self.path!r} cannot hold a batch journal: {exc}") from None

    def close(self) -> None:
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

    def lookup(self, custom_id: str, digest: str, model: str) -> tuple[str, BatchItemResult | None] | None:
        """The newest job holding this request: ``(job_id, result)`` with ``result`` ``None`` while the
        job is not collected; ``None`` when no job holds it. A collected job's request that came
        back as a retryable error (e.g. expired) is not reused: it is submitted again."""
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
                return job_id, BatchItemResult(custom_id, body=json.loads(body))
            err = _error_from_fields(provider, json.loads(error)) if error else None
            if err is not None and not err.retryable:
                return job_id, BatchItemResult(custom_id, error=err)
            return None  # a retryable failure (expired, cancelled, overloaded): submit it again
        return None

    def provider_of(self, job_id: str) -> str:
        rows = self._exec("SELECT provider FROM batch_jobs WHERE job_id = ?", (job_id,))
        return rows[0][0] if rows else ""

    def jobs(self) -> list[dict[str, Any]]:
        """Every recorded job as a dict of its ``batch_jobs`` columns, oldest first."""
        cols = ("job_id", "provider", "model", "state", "vendor_status", "requests", "created_at", "updated_at")
        rows = self._exec(f"SELECT {', '.join(cols)}, collected FROM batch_jobs ORDER BY created_at")
        return [dict(zip(cols, r[:-1]), collected=bool(r[-1])) for r in rows]


def _error_fields(err: ProviderError) -> dict[str, Any]:
    return {
        "message": err.message,
        "status": err.status,
        "retryable": err.retryable,
        "error_type": err.error_type,
        "body": err.body,
    }


def _error_from_fields(provider: str, d: Mapping[str, Any]) -> ProviderError:
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


def _decode(model: Model, item: BatchItem, res: BatchItemResult) -> Response | ToolwireError:
    if res.error is not None:
        return res.error
    codec = model.codec
    assert codec is not None and res.body is not None
    try:
        response = codec.decode_response(res.body, item.request)
    except ToolwireError as exc:
        return exc
    except Exception as exc:  # a decoder bug must not lose the other results
        from .errors import ResponseDecodeError

        return ResponseDecodeError(
            model.provider, f"the batch answer could not be decoded: {type(exc).__name__}: {exc}"
        )
    if item.report is not None and len(item.report) and response.preflight is None:
        response.preflight = item.report
    if response.usage.requests == 0:
        response.usage.requests = 1
    return response


async def run_batch(
    model: Model,
    requests: Mapping[str, ModelRequest],
    *,
    journal: BatchJournal | str | Path | None = None,
    poll_interval: float = 30.0,
    max_polls: int | None = None,
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
      ``on_status``: called with every :class:`BatchStatus` seen.

    Raises :class:`BatchUnsupported` for a model without a batch mode, :class:`BatchPending`, and
    :class:`ProviderError` when submitting or polling fails (the journal keeps what was submitted).
    """
    api = batch_api(model)
    items: dict[str, BatchItem] = {}
    out: dict[str, Response | ToolwireError] = {}
    for cid, request in requests.items():
        problem = api.check_custom_id(cid) if isinstance(cid, str) else f"a custom id must be a string, got {cid!r}"
        if problem:
            raise ConfigurationError(f"{model.name}: batch custom id {cid!r} is not accepted: {problem}")
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
                out[cid] = _decode(model, item, hit[1])
        if fresh:
            job_id = await api.create(fresh)
            book.record_job(job_id, api.provider, model.name, [(it.custom_id, digests[it.custom_id]) for it in fresh])
            waiting.setdefault(job_id, []).extend(it.custom_id for it in fresh)
        polls = 0
        pending = dict(waiting)
        while pending:
            if max_polls is not None and polls >= max_polls:
                raise BatchPending(
                    f"{len(pending)} batch job(s) still running after {polls} poll(s): {', '.join(pending)}; "
                    "call again with the same requests and journal to resume polling",
                    list(pending),
                )
            if polls:
                await asyncio.sleep(poll_interval)
            polls += 1
            for job_id in list(pending):
                status = await api.retrieve(job_id)
                book.update_status(status)
                if on_status is not None:
                    on_status(status)
                if status.state != "ended":
                    continue
                mine = pending.pop(job_id)
                got = {r.custom_id: r for r in await api.results(job_id, status)}
                recorded: dict[tuple[str, str], BatchItemResult] = {}
                for cid in mine:
                    res = got.get(cid)
                    if res is None:
                        res = BatchItemResult(cid, error=status.error or _missing(api.provider, job_id, cid, status))
                    recorded[(cid, digests[cid])] = res
                # results of this job's other requests (another caller's) are kept too
                for cid, res in got.items():
                    if cid not in mine:
                        rows = book._exec(
                            "SELECT digest FROM batch_items WHERE job_id = ? AND custom_id = ?", (job_id, cid)
                        )
                        for (digest,) in rows:
                            recorded[(cid, digest)] = res
                book.record_results(job_id, recorded)
                for cid in mine:
                    out[cid] = _decode(model, items[cid], recorded[(cid, digests[cid])])
        return {cid: out[cid] for cid in requests}
    finally:
        if owned:
            book.close()


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
      and ``-`` are safe everywhere).
    - :meth:`gather` runs the loops; a round is sent when every loop gathered there waits for
      the model (or has ended), one job per model: loops whose models have the same adapter,
      ``provider:model-id`` and settings share a job even when each has its own model object
      (its own HTTP client). A loop whose request failed gets the error the normal path would
      raise (:class:`ProviderError`, :class:`~toolwire.errors.RequestRefused`, ...); when polling
      stops at ``max_polls`` every waiting loop gets :class:`BatchPending`.
    - ``journal``, ``poll_interval``, ``max_polls``, ``on_status``: as :func:`run_batch`.
      ``rounds`` counts the rounds sent.
    """

    def __init__(
        self,
        *,
        journal: BatchJournal | str | Path | None = None,
        poll_interval: float = 30.0,
        max_polls: int | None = None,
        on_status: Any = None,
    ) -> None:
        self.journal, self._owned = _journal(journal)
        self.poll_interval = poll_interval
        self.max_polls = max_polls
        self.on_status = on_status
        self.rounds = 0
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
        """A :class:`~toolwire.adapter.Model` that sends ``inner``'s turns through this batch."""
        batch_api(inner)  # BatchUnsupported now, not at the first turn
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
