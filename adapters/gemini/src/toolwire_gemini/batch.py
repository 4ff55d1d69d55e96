"""Gemini batch mode (Gemini API ``models.batchGenerateContent``) through the ``google-genai`` SDK.

Vendor facts (https://ai.google.dev/gemini-api/docs/batch-mode and the API reference
https://ai.google.dev/api/batch-mode; SDK ``google.genai.batches`` and ``types.BatchJob``,
``InlinedRequest``, ``InlinedResponse``, ``JobState``):

- a job is ``POST models/{model}:batchGenerateContent`` with
  ``{"batch": {"displayName", "inputConfig": {"requests": {"requests": [{"request": <a
  generateContent body>, "metadata": {"key": <custom id>}}]}}}}`` — the wire form the SDK's
  ``batches.create(model=..., src=[InlinedRequest...])`` builds (``_CreateBatchJobParameters_to_mldev``,
  ``_BatchJobSource_to_mldev``, ``_InlinedRequest_to_mldev``); inline requests total at most 20 MB;
- the answer and ``GET batches/{id}`` (the SDK's ``batches.get``) are an operation whose
  ``metadata.state`` is ``BATCH_STATE_PENDING``, ``BATCH_STATE_RUNNING`` (running),
  ``BATCH_STATE_SUCCEEDED``, ``BATCH_STATE_FAILED``, ``BATCH_STATE_CANCELLED`` or
  ``BATCH_STATE_EXPIRED`` (``t_job_state`` maps them to ``JOB_STATE_*``); a job runs within 24
  hours (its target turnaround) or expires;
- the results are ``metadata.output.inlinedResponses.inlinedResponses`` (``_BatchJob_from_mldev``,
  ``_BatchJobDestination_from_mldev``): ``{"response": GenerateContentResponse, "metadata"}`` or
  ``{"error": google.rpc.Status, "metadata"}``;
- batch requests cost 50 % of the standard price ("Batch Mode" on
  https://ai.google.dev/gemini-api/docs/pricing and the batch-mode page).

Why the SDK's API client and not ``batches.create(src=[InlinedRequest])``: the typed path converts
every request from ``GenerateContentConfig`` again (the same per-call transformation the normal
transport skips, see :mod:`toolwire_gemini.model`) and ``batches.get`` returns the answers as
pydantic models whose ``thoughtSignature`` bytes no longer serialise to the bytes the API sent.
Posting the codec's body through ``client.aio._api_client`` (auth, base URL and version, retries,
typed ``APIError``) keeps every request in the batch identical to the normal path's and every
answer exactly as the API sent it, which the codec decodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolwire.batch import BatchItem, BatchItemResult, BatchStatus, job_state, json_object
from toolwire.errors import ProviderError, ResponseDecodeError, ToolwireError
from toolwire.transport import snippet

from .codec import API

if TYPE_CHECKING:  # pragma: no cover
    from .model import GeminiModel

__all__ = ["GeminiBatchAPI", "ENDED", "GRPC_HTTP_STATUS"]


#: ``metadata.state`` values after which nothing more will run.
ENDED = frozenset({"BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED", "BATCH_STATE_CANCELLED", "BATCH_STATE_EXPIRED"})
#: ``metadata.state`` values of a job still running.
RUNNING = frozenset({"BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"})
#: Every batch state the SDK maps (``google.genai._transformers.t_job_state``), in its order;
#: ``BATCH_STATE_UNSPECIFIED`` (or no state at all) is not a state a job can be polled in.
STATES = (
    "BATCH_STATE_UNSPECIFIED",
    "BATCH_STATE_PENDING",
    "BATCH_STATE_RUNNING",
    "BATCH_STATE_SUCCEEDED",
    "BATCH_STATE_FAILED",
    "BATCH_STATE_CANCELLED",
    "BATCH_STATE_EXPIRED",
)

#: ``google.rpc.Code`` → (name, HTTP status), the mapping documented on each code in
#: https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto: an errored batch
#: request carries the status the same request would have failed with.
GRPC_HTTP_STATUS = {
    1: ("CANCELLED", 499),
    2: ("UNKNOWN", 500),
    3: ("INVALID_ARGUMENT", 400),
    4: ("DEADLINE_EXCEEDED", 504),
    5: ("NOT_FOUND", 404),
    6: ("ALREADY_EXISTS", 409),
    7: ("PERMISSION_DENIED", 403),
    8: ("RESOURCE_EXHAUSTED", 429),
    9: ("FAILED_PRECONDITION", 400),
    10: ("ABORTED", 409),
    11: ("OUT_OF_RANGE", 400),
    12: ("UNIMPLEMENTED", 501),
    13: ("INTERNAL", 500),
    14: ("UNAVAILABLE", 503),
    15: ("DATA_LOSS", 500),
    16: ("UNAUTHENTICATED", 401),
}


def status_error(err: Any, what: str = "the batch request") -> ProviderError:
    """A ``google.rpc.Status`` (``code``, ``message``, maybe ``status``) → :class:`ProviderError`
    with the HTTP status and name of its code (:data:`GRPC_HTTP_STATUS`), retryable as the normal
    path (408/409/429/5xx)."""
    err = err if isinstance(err, dict) else {"message": str(err)}
    code = err.get("code")
    name, status = GRPC_HTTP_STATUS.get(code, (None, None)) if isinstance(code, int) else (None, None)
    if isinstance(code, int) and 400 <= code < 600:  # an HTTP code given as is
        status = code
    etype = err.get("status") if isinstance(err.get("status"), str) else name
    message = err.get("message") if isinstance(err.get("message"), str) and err.get("message") else None
    return ProviderError(
        API,
        message or f"{what} failed: {snippet(json.dumps(err, default=str))}",
        status=status,
        retryable=status is not None and ProviderError.is_retryable_status(status),
        error_type=etype,
        body=err,
    )


class GeminiBatchAPI:
    """:class:`toolwire.batch.BatchAPI` over Gemini batch mode, through the model's SDK client."""

    provider = API

    def __init__(self, model: GeminiModel) -> None:
        self.model = model

    def check_custom_id(self, custom_id: str) -> str | None:
        return None if custom_id else "a custom id (the request's metadata key) must not be empty"

    async def _request(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        from .model import _provider_error

        api_client = self.model.client().aio._api_client
        try:
            raw = await api_client.async_request(method, path, body)
        except ToolwireError:
            raise
        except Exception as exc:
            raise _provider_error(exc) from exc
        try:
            data = json.loads(raw.body) if isinstance(raw.body, (str, bytes)) and raw.body else None
        except ValueError as exc:
            raise ResponseDecodeError(API, f"the batch answer is not JSON: {snippet(str(raw.body))}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ResponseDecodeError(
                API, f"the batch answer is not a batch operation (no name): {snippet(str(raw.body))}"
            )
        return data

    async def create(self, items: Sequence[BatchItem]) -> str:
        """``POST models/{model}:batchGenerateContent`` with every item's body as an inline request
        (``metadata.key`` = its custom id) → the job's ``name`` (``batches/...``)."""
        model = self.model.model_id
        name = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        requests = [{"request": it.body, "metadata": {"key": it.custom_id}} for it in items]
        body = {"batch": {"displayName": "toolwire", "inputConfig": {"requests": {"requests": requests}}}}
        data = await self._request("post", f"{name}:batchGenerateContent", body)
        return str(data["name"])

    async def retrieve(self, job_id: str) -> BatchStatus:
        """``GET batches/{id}``: ended for :data:`ENDED` states; ``counts`` = the metadata's
        ``batchStats`` (``requestCount``, ``successfulRequestCount``, ...). A failed job carries
        its ``error`` (a ``google.rpc.Status``); expired and cancelled jobs a retryable error for
        the requests they did not finish."""
        data = await self._request("get", job_id, {})
        meta = json_object(data.get("metadata"))
        state = str(meta.get("state") or "BATCH_STATE_UNSPECIFIED")
        stats = json_object(meta.get("batchStats"))
        counts = {}
        for k, v in stats.items():
            try:
                counts[k] = int(v)  # int64 counters arrive as JSON strings
            except (TypeError, ValueError):
                continue
        error: ProviderError | None = None
        if state == "BATCH_STATE_FAILED":
            error = status_error(data.get("error") or {"message": "the batch failed"}, "the batch")
        elif state in ("BATCH_STATE_EXPIRED", "BATCH_STATE_CANCELLED"):
            word = "expired" if state.endswith("EXPIRED") else "was cancelled"
            error = ProviderError(
                API,
                f"the batch {word} before this request ran (a batch has 24 hours); send it again",
                status=None,
                retryable=True,
                error_type=state,
            )
        return BatchStatus(
            job_id,
            job_state(state, running=RUNNING, ended=ENDED),
            state,
            counts,
            error,
            data,
            known=STATES[1:],
            state_field="metadata.state",
        )

    async def results(self, job_id: str, status: BatchStatus) -> list[BatchItemResult]:
        """The inline responses of the ended job (read from the operation :meth:`retrieve` got):
        ``response`` → the body the codec decodes (one with neither candidates nor
        promptFeedback is its :class:`~toolwire.errors.ResponseDecodeError`); ``error`` →
        :func:`status_error`; an entry that is not an object, has no string ``metadata.key``, or
        has neither a response object nor an error →
        :class:`~toolwire.errors.ResponseDecodeError` naming its position (and key)."""
        meta = json_object(status.vendor.get("metadata"))
        output = json_object(meta.get("output"))
        box = json_object(output.get("inlinedResponses"))
        entries = box.get("inlinedResponses") or []
        where = f"batch {job_id}: metadata.output.inlinedResponses.inlinedResponses"
        again = "the request is submitted again when asked again with the same journal"
        if not isinstance(entries, list):
            return [
                BatchItemResult(
                    None, error=ResponseDecodeError(API, f"{where} is not an array: {snippet(str(entries))}")
                )
            ]
        out: list[BatchItemResult] = []
        for i, entry in enumerate(entries):
            md = json_object(entry.get("metadata")) if isinstance(entry, dict) else {}
            cid = md.get("key")
            if not isinstance(entry, dict) or not isinstance(cid, str):
                problem = "is not an object" if not isinstance(entry, dict) else "has no string metadata.key"
                out.append(
                    BatchItemResult(
                        None, error=ResponseDecodeError(API, f"{where}[{i}] {problem}: {snippet(str(entry))}", f"/{i}")
                    )
                )
            elif isinstance(entry.get("response"), dict):
                out.append(BatchItemResult(cid, body=entry["response"]))
            elif entry.get("error") is not None:
                out.append(BatchItemResult(cid, error=status_error(entry["error"])))
            else:
                out.append(
                    BatchItemResult(
                        cid,
                        error=ResponseDecodeError(
                            API,
                            f"{where}[{i}] (request {cid!r}) has neither a response object nor an error "
                            f"(InlinedResponse): {snippet(str(entry))}; {again}",
                            f"/{i}",
                        ),
                    )
                )
        return out

    async def cancel(self, job_id: str) -> None:
        """``POST batches/{id}:cancel``."""
        from .model import _provider_error

        api_client = self.model.client().aio._api_client
        try:
            await api_client.async_request("post", f"{job_id}:cancel", {})
        except Exception as exc:
            raise _provider_error(exc) from exc
