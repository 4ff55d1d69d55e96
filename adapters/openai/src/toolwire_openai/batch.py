"""The OpenAI Batch API through the ``openai`` SDK, for Responses and Chat Completions.

Vendor facts (https://platform.openai.com/docs/guides/batch and the API reference of
``POST /v1/batches``; SDK types ``openai.types.batch_create_params.BatchCreateParams`` and
``openai.types.batch.Batch``):

- the requests are a JSONL file, one ``{"custom_id", "method": "POST", "url", "body"}`` per line,
  uploaded with ``files.create(purpose="batch")`` (at most 50,000 requests and 200 MB per file);
  every line of one batch goes to the same ``endpoint``: ``/v1/responses`` or
  ``/v1/chat/completions`` here;
- ``batches.create(input_file_id=..., endpoint=..., completion_window="24h")`` (``24h`` is the only
  window the SDK type allows);
- ``Batch.status``: ``validating``, ``in_progress``, ``finalizing`` (running) and ``completed``,
  ``failed`` (the file did not validate: ``errors.data``), ``expired``, ``cancelling``,
  ``cancelled``; an expired or cancelled batch still returns the results it finished;
- results are JSONL lines ``{"custom_id", "response": {"status_code", "body"}, "error"}`` in the
  file ``output_file_id`` (succeeded) and ``error_file_id`` (failed), read with
  ``files.content(id)``, in any order;
- batch requests cost 50 % of the standard price ("Batch API" on https://openai.com/api/pricing/).

The bodies are the codecs', checked by the profiles, exactly as the normal path posts them
(``"stream": false`` included).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolwire.batch import (
    BatchItem,
    BatchItemResult,
    BatchStatus,
    job_state,
    json_object,
    json_object_or_none,
    jsonl_results,
)
from toolwire.errors import ProviderError, ResponseDecodeError

if TYPE_CHECKING:  # pragma: no cover
    from .models import _OpenAIModel

__all__ = ["OpenAIBatchAPI", "ENDPOINTS", "ENDED"]


#: The batch ``endpoint`` of each API (``BatchCreateParams.endpoint``).
ENDPOINTS = {"openai": "/v1/responses", "openai-chat": "/v1/chat/completions"}

#: ``Batch.status`` values after which nothing more will run.
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
#: ``Batch.status`` values of a job still running (``cancelling`` ends as ``cancelled``).
RUNNING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
#: Every ``Batch.status`` the SDK type declares (``openai.types.batch.Batch.status``), in its order.
STATUSES = ("validating", "failed", "in_progress", "finalizing", "completed", "expired", "cancelling", "cancelled")

#: The longest ``custom_id`` accepted (the guide: a unique string; 64 characters is what the
#: Batch API documents for metadata keys and what the other vendors allow: kept portable).
MAX_CUSTOM_ID = 64


def line_error(api: str, line: dict[str, Any]) -> ProviderError:
    """A result line that did not succeed → :class:`ProviderError`: a ``response`` with an error
    ``status_code`` gives that status, the body's ``error.message`` and ``error.type`` (or
    ``code``), retryable as the normal path (408/409/429/5xx); an ``error`` object (``code``,
    ``message``, e.g. ``batch_expired``) gives no status, retryable for ``batch_expired`` and
    ``batch_cancelled`` (the request never ran)."""
    response = json_object_or_none(line.get("response"))
    if response is not None and isinstance(response.get("status_code"), int) and response["status_code"] >= 400:
        status = response["status_code"]
        body = response.get("body")
        err = json_object(json_object(body).get("error"))
        etype = err.get("type") or err.get("code")
        message = err.get("message") if isinstance(err.get("message"), str) and err.get("message") else None
        return ProviderError(
            api,
            message or f"the batch request failed with HTTP {status}: {body}",
            status=status,
            retryable=ProviderError.is_retryable_status(status),
            error_type=None if etype is None else str(etype),
            body=body,
        )
    err = json_object(line.get("error"))
    code = err.get("code")
    retryable = code in ("batch_expired", "batch_cancelled")
    message = err.get("message") if isinstance(err.get("message"), str) and err.get("message") else None
    if message is None:
        what = f"error code {code!r}" if code is not None else "an error object without a code"
        message = f"the batch request ended with {what} and no message (BatchError.message); " + (
            "send it again" if retryable else "send it through the normal loop to see the vendor's error"
        )
    return ProviderError(
        api,
        message,
        status=None,
        retryable=retryable,
        error_type=None if code is None else str(code),
        body=line,
    )


class OpenAIBatchAPI:
    """:class:`toolwire.batch.BatchAPI` over ``AsyncOpenAI.files`` and ``AsyncOpenAI.batches``,
    with the model's client (key, organization, project, base URL, retries)."""

    def __init__(self, model: _OpenAIModel) -> None:
        self.model = model
        self.provider: str = model.api
        self.endpoint: str = ENDPOINTS[model.api]

    def check_custom_id(self, custom_id: str) -> str | None:
        if 0 < len(custom_id) <= MAX_CUSTOM_ID:
            return None
        return f"custom ids are 1 to {MAX_CUSTOM_ID} characters"

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from ._common import provider_error_from_sdk

        try:
            return await fn(*args, **kwargs)
        except ProviderError:
            raise
        except Exception as exc:
            raise provider_error_from_sdk(exc, self.provider) from exc

    def input_file(self, items: Sequence[BatchItem]) -> bytes:
        """The JSONL input file: one ``{"custom_id", "method": "POST", "url": endpoint, "body"}`` per item."""
        lines = [
            json.dumps(
                {"custom_id": it.custom_id, "method": "POST", "url": self.endpoint, "body": it.body},
                ensure_ascii=False,
                separators=(",", ":"),
            )
            for it in items
        ]
        return ("\n".join(lines) + "\n").encode("utf-8")

    async def create(self, items: Sequence[BatchItem]) -> str:
        """Upload the input file (``files.create(purpose="batch")``), then
        ``batches.create(input_file_id, endpoint, completion_window="24h")`` → ``Batch.id``."""
        client = self.model.client
        uploaded = await self._call(
            client.files.create, file=("toolwire-batch.jsonl", self.input_file(items)), purpose="batch"
        )
        file_id = self._id(uploaded, "files.create", "FileObject")
        batch = await self._call(
            client.batches.create, input_file_id=file_id, endpoint=self.endpoint, completion_window="24h"
        )
        return self._id(batch, "batches.create", "Batch")

    def _id(self, answer: Any, endpoint: str, kind: str) -> str:
        """The ``id`` of an SDK answer (``FileObject``, ``Batch``), or
        :class:`~toolwire.errors.ResponseDecodeError` naming ``endpoint`` when the answer has none
        (an HTML page, ``{}``): sending ``None`` on as an id, or recording the job as ``"None"``,
        would only fail later under another name."""
        value = getattr(answer, "id", None)
        if not isinstance(value, str) or not value:
            raise ResponseDecodeError(
                self.provider,
                f"{endpoint} answered something that is not a {kind} with an id: {str(answer)[:200]!r}; "
                "nothing was recorded, so asking again submits the requests again",
                "/id",
            )
        return value

    async def retrieve(self, job_id: str) -> BatchStatus:
        """``batches.retrieve(id)``: ended for :data:`ENDED` statuses; ``counts`` =
        ``request_counts`` (total, completed, failed). A ``failed`` batch carries the joined
        ``errors.data`` messages as its error (not retryable: the file must change); ``expired``
        and ``cancelled`` batches an error for the requests they did not finish (retryable)."""
        batch = await self._call(self.model.client.batches.retrieve, job_id)
        if not isinstance(getattr(batch, "id", None), str):
            raise ResponseDecodeError(
                self.provider,
                f"batches.retrieve({job_id!r}) answered something that is not a Batch: {str(batch)[:200]!r}",
            )
        raw_counts = getattr(batch, "request_counts", None)
        counts: dict[str, Any] = (
            raw_counts.to_dict() if raw_counts is not None and hasattr(raw_counts, "to_dict") else {}
        )
        status = str(getattr(batch, "status", None))
        error: ProviderError | None = None
        if status == "failed":
            errors = getattr(batch, "errors", None)
            data = [e for e in (getattr(errors, "data", None) or []) if hasattr(e, "code")]
            text = (
                "; ".join(f"{e.code or 'error'}: {e.message or 'no message'}" for e in data)
                or "the vendor gave no reason (Batch.errors is empty)"
            )
            error = ProviderError(
                self.provider,
                f"the batch failed: {text}",
                status=None,
                retryable=False,
                error_type=(data[0].code if data and data[0].code else "batch_failed"),
                body=batch.to_dict(mode="json"),
            )
        elif status in ("expired", "cancelled"):
            error = ProviderError(
                self.provider,
                f"the batch {status} before this request ran (a batch has 24 hours); send it again",
                status=None,
                retryable=True,
                error_type=f"batch_{status}",
            )
        return BatchStatus(
            job_id,
            job_state(status, running=RUNNING, ended=ENDED),
            status,
            {k: int(v) for k, v in counts.items() if isinstance(v, int)},
            error,
            batch.to_dict(mode="json"),
            known=STATUSES,
            state_field="Batch.status",
        )

    async def _file(self, job_id: str, file_id: Any, what: str) -> list[BatchItemResult]:
        if not isinstance(file_id, str) or not file_id:
            return []
        content = await self._call(self.model.client.files.content, file_id)
        lines, unreadable = jsonl_results(self.provider, job_id, content.content, what=f"{what} {file_id}")
        return unreadable + [self.line_result(job_id, f"line {n} of the {what} {file_id}", line) for n, line in lines]

    def line_result(self, job_id: str, where: str, line: dict[str, Any]) -> BatchItemResult:
        """One result line (``{"custom_id", "response": {"status_code", "body"}, "error"}``) →
        :class:`BatchItemResult`: a 2xx ``status_code`` with an object ``body`` gives that body
        (the codec decodes it; an error object in it is the normal path's
        :class:`ProviderError`); an error ``status_code`` or an ``error`` object a
        :func:`line_error`; a line without a string ``custom_id``, a 2xx whose body is not an
        object, or a line with neither a response nor an error a
        :class:`~toolwire.errors.ResponseDecodeError` naming the line and the custom id."""
        cid = line.get("custom_id")
        if not isinstance(cid, str):
            return BatchItemResult(
                None,
                error=ResponseDecodeError(
                    self.provider, f"batch {job_id}: {where} has no string custom_id: {str(line)[:200]}", "/custom_id"
                ),
            )
        again = "the request is submitted again when asked again with the same journal"
        response = json_object_or_none(line.get("response"))
        code = response.get("status_code") if response is not None else None
        if isinstance(code, int) and not isinstance(code, bool) and 200 <= code < 300:
            body = response.get("body") if response is not None else None
            if isinstance(body, dict):
                return BatchItemResult(cid, body=body)
            got = f"a JSON {type(body).__name__}" if body is not None else "no body"
            return BatchItemResult(
                cid,
                error=ResponseDecodeError(
                    self.provider,
                    f"batch {job_id}: {where} (request {cid!r}) has status_code {code} but {got}, "
                    f"not a response object: {str(body)[:200]!r}; {again}",
                    "/response/body",
                ),
            )
        if (isinstance(code, int) and code >= 400) or isinstance(line.get("error"), dict):
            return BatchItemResult(cid, error=line_error(self.provider, line))
        return BatchItemResult(
            cid,
            error=ResponseDecodeError(
                self.provider,
                f"batch {job_id}: {where} (request {cid!r}) has neither a response with a status_code nor an "
                f"error object: {str(line)[:200]}; {again}",
                "/response",
            ),
        )

    async def results(self, job_id: str, status: BatchStatus) -> list[BatchItemResult]:
        """The lines of ``output_file_id`` and ``error_file_id`` (``files.content``), each through
        :meth:`line_result`; a line that is not JSON fails only the request whose custom id it
        shows (:func:`toolwire.batch.jsonl_results`)."""
        out = await self._file(job_id, status.vendor.get("output_file_id"), "output file")
        return out + await self._file(job_id, status.vendor.get("error_file_id"), "error file")

    async def cancel(self, job_id: str) -> None:
        """``batches.cancel(id)``."""
        await self._call(self.model.client.batches.cancel, job_id)
