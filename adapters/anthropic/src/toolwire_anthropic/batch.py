"""Anthropic Message Batches through the ``anthropic`` SDK (``client.messages.batches``).

Vendor facts (https://platform.claude.com/docs/en/build-with-claude/batch-processing and the API
reference https://platform.claude.com/docs/en/api/messages/batches/create):

- a batch is ``POST /v1/messages/batches`` with ``{"requests": [{"custom_id", "params"}]}``
  (SDK ``anthropic.types.messages.batch_create_params.Request``; ``params`` is a Messages request
  body, ``MessageCreateParamsNonStreaming``), at most 100,000 requests or 256 MB;
- ``custom_id``: ``^[a-zA-Z0-9_-]{1,64}$``, unique in the batch;
- ``processing_status`` (``MessageBatch``) is ``in_progress``, ``canceling`` or ``ended``; a batch
  ends when every request succeeded, errored, was canceled or expired, within 24 hours;
- results (``MessageBatchIndividualResponse``, JSONL at ``results_url``, in any order) are
  ``succeeded`` (``message``: a Messages response), ``errored`` (``error``: an ``ErrorResponse``),
  ``canceled`` or ``expired``;
- usage is charged at 50 % of the standard prices ("Pricing" on the batch-processing page).

The bodies are the codec's, checked by the profile, exactly as the normal path posts them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolwire.batch import BatchItem, BatchItemResult, BatchStatus, job_state, json_object_or_none, jsonl_results
from toolwire.errors import ProviderError, ResponseDecodeError

from .codec import _RETRYABLE_ERROR_TYPES, API
from .profile import body_betas, with_beta

if TYPE_CHECKING:  # pragma: no cover
    from .model import AnthropicModel

__all__ = ["AnthropicBatchAPI", "CUSTOM_ID_PATTERN", "ERROR_STATUS"]


#: ``custom_id`` rule of ``MessageBatchRequest`` (API reference: "pattern: ^[a-zA-Z0-9_-]{1,64}$").
CUSTOM_ID_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: The HTTP status of each error type (https://platform.claude.com/docs/en/api/errors), so an
#: errored batch request carries the status the same request would have failed with.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


#: ``MessageBatchResult`` variants (SDK ``MessageBatchSucceededResult``, ``...ErroredResult``,
#: ``...CanceledResult``, ``...ExpiredResult``: ``type`` ``succeeded``/``errored``/``canceled``/``expired``).
RESULT_TYPES = ("succeeded", "errored", "canceled", "expired")


def item_error(result: dict[str, Any]) -> ProviderError:
    """A non-succeeded ``MessageBatchResult`` (as the wire dict) → :class:`ProviderError`:

    - ``errored``: ``message`` = ``error.error.message``, ``error_type`` = ``error.error.type``,
      ``status`` from :data:`ERROR_STATUS`, retryable for the types the normal path retries
      (overloaded, API, rate-limit, timeout errors), ``body`` = the ``ErrorResponse``; an
      ``errored`` result without an error object (or one without a message) says so and is
      retryable (nothing says the request itself is wrong: send it again);
    - ``expired`` / ``canceled``: ``error_type`` ``"expired"`` / ``"canceled"``, no status,
      retryable (the request never ran; send it again).
    """
    kind = result.get("type")
    if kind == "errored":
        outer = json_object_or_none(result.get("error"))
        inner = (json_object_or_none(outer.get("error")) or outer) if outer is not None else {}
        etype = inner.get("type") if isinstance(inner.get("type"), str) else None
        message = inner.get("message") if isinstance(inner.get("message"), str) and inner.get("message") else None
        if message is None:
            what = "no error object" if outer is None else f"an error without a message ({outer})"
            message = (
                f"the batch request errored and the vendor sent {what} "
                "(MessageBatchErroredResult.error); send it again, or through the normal loop to see its error"
            )
        return ProviderError(
            API,
            message,
            status=ERROR_STATUS.get(etype or ""),
            retryable=etype in _RETRYABLE_ERROR_TYPES or etype is None,
            error_type=etype or "errored",
            body=outer,
        )
    what = {
        "expired": "expired before it was processed (a batch ends within 24 hours)",
        "canceled": "was canceled before it was processed",
    }.get(str(kind), f"ended with result type {kind!r}")
    return ProviderError(
        API, f"the batch request {what}; send it again", status=None, retryable=True, error_type=str(kind), body=result
    )


def line_result(job_id: str, number: int, line: dict[str, Any]) -> BatchItemResult:
    """One line of the results file (a ``MessageBatchIndividualResponse`` wire dict) →
    :class:`BatchItemResult`: ``succeeded`` with a ``message`` object → its body (the codec
    decodes it; a message without a ``content`` array is its
    :class:`~toolwire.errors.ResponseDecodeError`); ``errored`` / ``expired`` / ``canceled`` →
    :func:`item_error`; a line without a string ``custom_id``, without a ``result`` object, with a
    result type the SDK does not declare or a ``succeeded`` result without its message →
    :class:`~toolwire.errors.ResponseDecodeError` naming the line and the custom id."""
    cid = line.get("custom_id")
    where = f"batch {job_id}: line {number} of the results"
    again = "the request is submitted again when asked again with the same journal"
    if not isinstance(cid, str):
        return BatchItemResult(
            None, error=ResponseDecodeError(API, f"{where} has no string custom_id: {str(line)[:200]}", "/custom_id")
        )
    result = json_object_or_none(line.get("result"))
    kind = None if result is None else result.get("type")
    if result is None or kind not in RESULT_TYPES:
        got = "no result object" if result is None else f"result type {kind!r}, not one of {', '.join(RESULT_TYPES)}"
        return BatchItemResult(
            cid,
            error=ResponseDecodeError(
                API, f"{where} (request {cid!r}) has {got} (MessageBatchResult); {again}", "/result/type"
            ),
        )
    if kind == "succeeded":
        message = result.get("message")
        if not isinstance(message, dict):
            return BatchItemResult(
                cid,
                error=ResponseDecodeError(
                    API,
                    f"{where} (request {cid!r}) succeeded without a message object (got {message!r}; "
                    f"MessageBatchSucceededResult.message); {again}",
                    "/result/message",
                ),
            )
        return BatchItemResult(cid, body=message)
    return BatchItemResult(cid, error=item_error(result))


#: ``MessageBatch.processing_status`` values (SDK type ``MessageBatch``:
#: ``Literal["in_progress", "canceling", "ended"]``).
PROCESSING_STATUSES = ("in_progress", "canceling", "ended")
RUNNING = ("in_progress", "canceling")


def _batch_id(batch: Any, endpoint: str) -> str:
    """The ``MessageBatch.id`` of an answer, or :class:`ResponseDecodeError` naming ``endpoint`` when
    the answer is not a batch object (an HTML page, ``{}``, a batch without an id)."""
    batch_id = getattr(batch, "id", None)
    if not isinstance(batch_id, str) or not batch_id:
        raise ResponseDecodeError(
            API, f"{endpoint} answered something that is not a MessageBatch with an id: {str(batch)[:200]!r}", "/id"
        )
    return batch_id


class AnthropicBatchAPI:
    """:class:`toolwire.batch.BatchAPI` over ``AsyncAnthropic.messages.batches`` (``create``,
    ``retrieve``, ``results``, ``cancel``), with the model's client (auth, base URL, retries)."""

    provider = API

    def __init__(self, model: AnthropicModel) -> None:
        self.model = model

    def check_custom_id(self, custom_id: str) -> str | None:
        if CUSTOM_ID_PATTERN.fullmatch(custom_id):
            return None
        return "Anthropic custom ids are 1 to 64 characters of letters, digits, '_' and '-' (^[a-zA-Z0-9_-]{1,64}$)"

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from .model import provider_error_from_sdk

        try:
            return await fn(*args, **kwargs)
        except ProviderError:
            raise
        except Exception as exc:
            raise provider_error_from_sdk(exc) from exc

    async def create(self, items: Sequence[BatchItem]) -> str:
        """``messages.batches.create(requests=[{"custom_id", "params": body}])`` → ``MessageBatch.id``.

        A batch holding a request with ``speed`` for a research-preview fast-mode model (Opus 5)
        is created with the ``anthropic-beta: fast-mode-2026-02-01`` header, and one with
        ``thinking.block_binding`` with ``thinking-binding-controls-2026-08-01``, as the normal path
        sends that request (rules ``anthropic.request.speed-model`` and
        ``anthropic.request.thinking-block-binding``; the batch endpoint takes the
        betas of its requests in its own ``anthropic-beta`` header: "All features available in the
        Messages API, including beta features, are available through the Message Batches API")."""
        client = self.model.client
        extra: dict[str, Any] = {}
        betas = [b for it in items if isinstance(it.body, dict) for b in body_betas(it.body)]
        if betas:
            extra["extra_headers"] = with_beta(client, *dict.fromkeys(betas))
        batch = await self._call(
            client.messages.batches.create,
            requests=[{"custom_id": it.custom_id, "params": it.body} for it in items],
            **extra,
        )
        return _batch_id(batch, "messages.batches.create")

    async def retrieve(self, job_id: str) -> BatchStatus:
        """``messages.batches.retrieve(id)``: ``processing_status`` ``ended`` → ``"ended"``,
        ``in_progress`` / ``canceling`` → ``"in_progress"``, anything else ``"unknown"`` (the core
        then stops polling with :class:`~toolwire.batch.BatchStateUnknown`); ``counts`` =
        ``request_counts`` (processing, succeeded, errored, canceled, expired)."""
        batch = await self._call(self.model.client.messages.batches.retrieve, job_id)
        _batch_id(batch, "messages.batches.retrieve")
        vendor_status = str(batch.processing_status)
        raw_counts = getattr(batch, "request_counts", None)
        counts: dict[str, Any] = (
            raw_counts.to_dict() if raw_counts is not None and hasattr(raw_counts, "to_dict") else {}
        )
        return BatchStatus(
            job_id,
            job_state(vendor_status, running=RUNNING, ended=("ended",)),
            vendor_status,
            {k: int(v) for k, v in counts.items() if isinstance(v, int)},
            known=PROCESSING_STATUSES,
            state_field="MessageBatch.processing_status",
        )

    async def results(self, job_id: str, status: BatchStatus) -> list[BatchItemResult]:
        """``messages.batches.results(id)``: the JSONL the SDK streams (read from its decoder's
        ``http_response`` line by line, so one line that is not JSON fails only its own request:
        the SDK's decoder would raise on it and lose every other result); each line →
        :func:`line_result`."""
        decoder = await self._call(self.model.client.messages.batches.results, job_id)
        try:
            data = b"".join([chunk async for chunk in decoder.http_response.aiter_bytes()])
        except ProviderError:
            raise
        except Exception as exc:
            from .model import provider_error_from_sdk

            raise provider_error_from_sdk(exc) from exc
        finally:
            await decoder.close()
        lines, unreadable = jsonl_results(API, job_id, data)
        return unreadable + [line_result(job_id, n, line) for n, line in lines]

    async def cancel(self, job_id: str) -> None:
        """``messages.batches.cancel(id)``."""
        await self._call(self.model.client.messages.batches.cancel, job_id)
