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

from toolwire.batch import BatchItem, BatchItemResult, BatchStatus
from toolwire.errors import ProviderError, ResponseDecodeError

from .codec import _RETRYABLE_ERROR_TYPES, API

if TYPE_CHECKING:  # pragma: no cover
    from .model import AnthropicModel

__all__ = ["AnthropicBatchAPI", "CUSTOM_ID_PATTERN", "ERROR_STATUS"]


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _obj_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


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


def item_error(result: dict[str, Any]) -> ProviderError:
    """A non-succeeded ``MessageBatchResult`` (as the wire dict) → :class:`ProviderError`:

    - ``errored``: ``message`` = ``error.error.message``, ``error_type`` = ``error.error.type``,
      ``status`` from :data:`ERROR_STATUS`, retryable for the types the normal path retries
      (overloaded, API, rate-limit, timeout errors), ``body`` = the ``ErrorResponse``;
    - ``expired`` / ``canceled``: ``error_type`` ``"expired"`` / ``"canceled"``, no status,
      retryable (the request never ran; send it again).
    """
    kind = result.get("type")
    if kind == "errored":
        outer = _obj(result.get("error"))
        inner = _obj_or_none(outer.get("error")) or outer
        etype = inner.get("type") if isinstance(inner.get("type"), str) else None
        message = inner.get("message") if isinstance(inner.get("message"), str) and inner.get("message") else None
        return ProviderError(
            API,
            message or f"the batch request errored: {outer}",
            status=ERROR_STATUS.get(etype or ""),
            retryable=etype in _RETRYABLE_ERROR_TYPES,
            error_type=etype,
            body=outer,
        )
    what = {
        "expired": "expired before it was processed (a batch ends within 24 hours)",
        "canceled": "was canceled before it was processed",
    }.get(str(kind), f"ended with result type {kind!r}")
    return ProviderError(
        API, f"the batch request {what}; send it again", status=None, retryable=True, error_type=str(kind), body=result
    )


#: ``MessageBatch.processing_status`` values (SDK type ``MessageBatch``:
#: ``Literal["in_progress", "canceling", "ended"]``).
PROCESSING_STATUSES = ("in_progress", "canceling", "ended")


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
        """``messages.batches.create(requests=[{"custom_id", "params": body}])`` → ``MessageBatch.id``."""
        batches = self.model.client.messages.batches
        batch = await self._call(
            batches.create, requests=[{"custom_id": it.custom_id, "params": it.body} for it in items]
        )
        return _batch_id(batch, "messages.batches.create")

    async def retrieve(self, job_id: str) -> BatchStatus:
        """``messages.batches.retrieve(id)``: ``processing_status`` ``ended`` → ``"ended"``;
        ``counts`` = ``request_counts`` (processing, succeeded, errored, canceled, expired)."""
        batch = await self._call(self.model.client.messages.batches.retrieve, job_id)
        _batch_id(batch, "messages.batches.retrieve")
        if batch.processing_status not in PROCESSING_STATUSES:
            # An unknown state would otherwise be polled as "still running" forever.
            raise ResponseDecodeError(
                API,
                f"messages.batches.retrieve answered processing_status {batch.processing_status!r}, not one of "
                f"{', '.join(PROCESSING_STATUSES)} (MessageBatch.processing_status)",
                "/processing_status",
            )
        counts = batch.request_counts.to_dict() if batch.request_counts is not None else {}
        return BatchStatus(
            job_id,
            "ended" if batch.processing_status == "ended" else "in_progress",
            str(batch.processing_status),
            {k: int(v) for k, v in counts.items() if isinstance(v, int)},
        )

    async def results(self, job_id: str, status: BatchStatus) -> list[BatchItemResult]:
        """``messages.batches.results(id)``: each ``MessageBatchIndividualResponse`` as its wire dict
        (``to_dict(mode="json")``: the keys the API sent); a ``succeeded`` result's ``message`` is the
        body the codec decodes, any other result an :func:`item_error`."""
        decoder = await self._call(self.model.client.messages.batches.results, job_id)
        out: list[BatchItemResult] = []
        try:
            async for entry in decoder:
                d = entry.to_dict(mode="json")
                result = _obj(d.get("result"))
                cid = str(d.get("custom_id"))
                if result.get("type") == "succeeded" and isinstance(result.get("message"), dict):
                    out.append(BatchItemResult(cid, body=result["message"]))
                else:
                    out.append(BatchItemResult(cid, error=item_error(result)))
        except ProviderError:
            raise
        except Exception as exc:
            from .model import provider_error_from_sdk

            raise provider_error_from_sdk(exc) from exc
        return out

    async def cancel(self, job_id: str) -> None:
        """``messages.batches.cancel(id)``."""
        await self._call(self.model.client.messages.batches.cancel, job_id)
