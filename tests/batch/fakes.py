"""Stateful fakes of the three vendors' batch endpoints, served to the real SDKs over
``httpx2.MockTransport``. Each fake also serves the vendor's normal endpoint, so one task can run
through the normal path and through the batch path against the same scripted answers.

A fake's ``answer(body)`` (the "model") decides every answer from the request body alone: the
first turn asks for the ``add`` tool, a turn that carries its result answers with text. Usage
grows with the turn so sums are checkable.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable

import httpx2

Handler = Callable[[httpx2.Request], httpx2.Response]

#: usage per turn (input, output) the fakes report, identical on every vendor
USAGE = {1: (100, 20), 2: (150, 30)}


class FakeBatches:
    """Common state: every created job's requests, polls per job, a count of normal-path posts."""

    #: polls answered "still running" before a job ends
    polls_before_end = 1
    #: job reads the SDK makes to fetch an ended job's results (Anthropic's ``results()`` retrieves first)
    reads_for_results = 0

    def __init__(self, *, polls_before_end: int = 1, fail: Callable[[str, dict], Any] | None = None) -> None:
        self.polls_before_end = polls_before_end
        self.jobs: dict[str, list[tuple[str, dict[str, Any]]]] = {}  # job id → [(custom id, body)]
        self.polls: Counter[str] = Counter()
        self.normal: list[dict[str, Any]] = []  # bodies posted to the normal endpoint
        self.normal_headers: list[dict[str, str]] = []  # their request headers
        self.create_headers: list[dict[str, str]] = []  # the request headers of each job created
        self.creates = 0
        self.fail = fail  # custom id, body → a vendor error (instead of an answer) or None
        self.job_failure: dict[str, Any] | None = None  # fields that make an ended job a failed one

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handle)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=self.transport())

    def handle(self, request: httpx2.Request) -> httpx2.Response:  # pragma: no cover - overridden
        raise NotImplementedError

    def ended(self, job_id: str) -> bool:
        self.polls[job_id] += 1
        return self.polls[job_id] > self.polls_before_end


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_turn(body: dict[str, Any]) -> int:
    return 1 + sum(1 for m in body["messages"] if m["role"] == "assistant")


def anthropic_answer(body: dict[str, Any]) -> dict[str, Any]:
    n = anthropic_turn(body)
    inp, out = USAGE[n]
    if n == 1:
        content = [
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 40}},
        ]
        stop = "tool_use"
    else:
        result = body["messages"][-1]["content"][0]
        content = [{"type": "text", "text": f"The sum is {result['content']}."}]
        stop = "end_turn"
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": out},
    }


class FakeAnthropic(FakeBatches):
    """``POST /v1/messages`` (normal), ``POST /v1/messages/batches``, ``GET
    /v1/messages/batches/{id}`` (``MessageBatch``) and ``GET .../results`` (JSONL of
    ``MessageBatchIndividualResponse``)."""

    reads_for_results = 1

    def batch(self, job_id: str, ended: bool) -> dict[str, Any]:
        n = len(self.jobs[job_id])
        counts = {"processing": n, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            errored = sum(1 for cid, b in self.jobs[job_id] if self.fail and self.fail(cid, b))
            counts = counts | {"processing": 0, "succeeded": n - errored, "errored": errored}
        return {
            "id": job_id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": "2026-12-01T10:00:00Z",
            "expires_at": "2026-12-02T10:00:00Z",
            "ended_at": "2026-12-01T10:05:00Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"https://api.anthropic.com/v1/messages/batches/{job_id}/results" if ended else None,
        }

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if request.method == "POST" and path == "/v1/messages":
            body = json.loads(request.content)
            self.normal.append(body)
            self.normal_headers.append(dict(request.headers))
            return httpx2.Response(200, json=anthropic_answer(body))
        if request.method == "POST" and path == "/v1/messages/batches":
            self.creates += 1
            self.create_headers.append(dict(request.headers))
            job_id = f"msgbatch_{self.creates:03d}"
            self.jobs[job_id] = [(r["custom_id"], r["params"]) for r in json.loads(request.content)["requests"]]
            return httpx2.Response(200, json=self.batch(job_id, False))
        parts = path.split("/")
        if request.method == "GET" and len(parts) == 5 and parts[3] == "batches":
            job_id = parts[4]
            if job_id not in self.jobs:
                return httpx2.Response(
                    404, json={"type": "error", "error": {"type": "not_found_error", "message": "no such batch"}}
                )
            return httpx2.Response(200, json=self.batch(job_id, self.ended(job_id)))
        if request.method == "GET" and len(parts) == 6 and parts[5] == "results":
            lines = []
            for cid, body in reversed(self.jobs[parts[4]]):  # results come in any order
                err = self.fail(cid, body) if self.fail else None
                result = err or {"type": "succeeded", "message": anthropic_answer(body)}
                lines.append(json.dumps({"custom_id": cid, "result": result}))
            return httpx2.Response(
                200, content="\n".join(lines).encode(), headers={"content-type": "application/binary"}
            )
        return httpx2.Response(404, json={"type": "error", "error": {"type": "not_found_error", "message": path}})


# -- OpenAI (Responses and Chat Completions) ----------------------------------------------------


def responses_answer(body: dict[str, Any]) -> dict[str, Any]:
    n = 1 + sum(1 for item in body["input"] if item.get("type") == "function_call")
    inp, out = USAGE[n]
    if n == 1:
        output = [
            {
                "type": "function_call",
                "id": "fc_01",
                "call_id": "call_01",
                "name": "add",
                "arguments": '{"a": 2, "b": 40}',
                "status": "completed",
            }
        ]
    else:
        result = body["input"][-1]["output"]
        output = [
            {
                "type": "message",
                "id": "msg_02",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": f"The sum is {result}.", "annotations": []}],
            }
        ]
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1764583200,
        "status": "completed",
        "model": body["model"],
        "output": output,
        "usage": {
            "input_tokens": inp,
            "output_tokens": out,
            "total_tokens": inp + out,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def chat_answer(body: dict[str, Any]) -> dict[str, Any]:
    n = 1 + sum(1 for m in body["messages"] if m["role"] == "assistant")
    inp, out = USAGE[n]
    if n == 1:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_01", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 40}'}}
            ],
        }
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": f"The sum is {body['messages'][-1]['content']}."}
        finish = "stop"
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1764583200,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out},
    }


def multipart(request: httpx2.Request) -> dict[str, Any]:
    """The fields of a multipart upload: ``{name: text}``, the file as bytes and its ``filename``."""
    import email.parser
    import email.policy

    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.content)
    out: dict[str, Any] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "file":
            out["file"] = part.get_payload(decode=True)
            out["filename"] = part.get_filename()
        else:
            out[name] = part.get_payload(decode=True).decode()
    return out


class FakeOpenAI(FakeBatches):
    """``POST /v1/responses`` and ``/v1/chat/completions`` (normal), ``POST /v1/files``
    (multipart, ``purpose=batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}`` (``Batch``)
    and ``GET /v1/files/{id}/content`` (the output and error JSONL)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.files: dict[str, bytes] = {}
        self.upload_fields: list[dict[str, Any]] = []  # the non-file fields of each upload
        self.created: list[dict[str, Any]] = []  # the batches.create bodies
        self.endpoints: dict[str, str] = {}

    def answer(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        return responses_answer(body) if url == "/v1/responses" else chat_answer(body)

    def batch(self, job_id: str, ended: bool) -> dict[str, Any]:
        n = len(self.jobs[job_id])
        failed = sum(1 for cid, b in self.jobs[job_id] if self.fail and self.fail(cid, b)) if ended else 0
        out: dict[str, Any] = {
            "id": job_id,
            "object": "batch",
            "endpoint": self.endpoints[job_id],
            "input_file_id": f"file-in-{job_id}",
            "completion_window": "24h",
            "status": "completed" if ended else "in_progress",
            "created_at": 1764583200,
            "request_counts": {"total": n, "completed": (n - failed) if ended else 0, "failed": failed},
            "output_file_id": None,
            "error_file_id": None,
        }
        if ended and self.job_failure is not None:
            return out | self.job_failure
        if ended:
            ok, bad = [], []
            for cid, body in self.jobs[job_id]:
                err = self.fail(cid, body) if self.fail else None
                if err is None:
                    response = {
                        "status_code": 200,
                        "request_id": f"req_{cid}",
                        "body": self.answer(out["endpoint"], body),
                    }
                    ok.append({"id": f"batch_req_{cid}", "custom_id": cid, "response": response, "error": None})
                else:
                    bad.append({"id": f"batch_req_{cid}", "custom_id": cid} | err)
            self.files[f"file-out-{job_id}"] = "\n".join(json.dumps(x) for x in reversed(ok)).encode()
            out["output_file_id"] = f"file-out-{job_id}"
            if bad:
                self.files[f"file-err-{job_id}"] = "\n".join(json.dumps(x) for x in bad).encode()
                out["error_file_id"] = f"file-err-{job_id}"
        return out

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if request.method == "POST" and path in ("/v1/responses", "/v1/chat/completions"):
            body = json.loads(request.content)
            self.normal.append(body)
            return httpx2.Response(200, json=self.answer(path, body))
        if request.method == "POST" and path == "/v1/files":
            fields = multipart(request)
            data = fields.pop("file")
            fid = f"file-{len(self.files) + 1:03d}"
            self.files[fid] = data
            self.upload_fields.append(fields)
            return httpx2.Response(
                200,
                json={
                    "id": fid,
                    "object": "file",
                    "bytes": len(data),
                    "created_at": 1764583200,
                    "filename": "toolwire-batch.jsonl",
                    "purpose": "batch",
                    "status": "processed",
                },
            )
        if request.method == "POST" and path == "/v1/batches":
            created = json.loads(request.content)
            self.created.append(created)
            self.creates += 1
            job_id = f"batch_{self.creates:03d}"
            lines = [json.loads(line) for line in self.files[created["input_file_id"]].decode().splitlines() if line]
            assert all(line["method"] == "POST" and line["url"] == created["endpoint"] for line in lines)
            self.jobs[job_id] = [(line["custom_id"], line["body"]) for line in lines]
            self.endpoints[job_id] = created["endpoint"]
            return httpx2.Response(200, json=self.batch(job_id, False))
        parts = path.split("/")
        if request.method == "GET" and len(parts) == 4 and parts[2] == "batches":
            if parts[3] not in self.jobs:
                return httpx2.Response(
                    404, json={"error": {"message": "No batch found", "type": "invalid_request_error"}}
                )
            return httpx2.Response(200, json=self.batch(parts[3], self.ended(parts[3])))
        if request.method == "GET" and len(parts) == 5 and parts[2] == "files" and parts[4] == "content":
            return httpx2.Response(200, content=self.files[parts[3]])
        return httpx2.Response(404, json={"error": {"message": f"no route {path}", "type": "invalid_request_error"}})


# -- Gemini ------------------------------------------------------------------------------------


def gemini_answer(body: dict[str, Any]) -> dict[str, Any]:
    n = 1 + sum(1 for c in body["contents"] if c.get("role") == "model")
    inp, out = USAGE[n]
    if n == 1:
        parts: list[dict[str, Any]] = [{"functionCall": {"name": "add", "args": {"a": 2, "b": 40}}}]
    else:
        (part,) = body["contents"][-1]["parts"]
        parts = [{"text": f"The sum is {part['functionResponse']['response']['output']}."}]
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": inp, "candidatesTokenCount": out, "totalTokenCount": inp + out},
        "modelVersion": "gemini-2.5-flash",
        "responseId": f"resp-{n}",
    }


class FakeGemini(FakeBatches):
    """``POST models/{m}:generateContent`` (normal), ``POST models/{m}:batchGenerateContent`` and
    ``GET batches/{id}`` (the batch operation, with inline responses once it ended)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.created: list[dict[str, Any]] = []

    def operation(self, job_id: str, ended: bool) -> dict[str, Any]:
        n = len(self.jobs[job_id])
        meta: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": "models/gemini-2.5-flash",
            "displayName": "toolwire",
            "createTime": "2026-12-01T10:00:00Z",
            "state": "BATCH_STATE_SUCCEEDED" if ended else "BATCH_STATE_RUNNING",
            "batchStats": {"requestCount": str(n), "pendingRequestCount": str(0 if ended else n)},
        }
        if ended:
            responses = []
            for cid, body in reversed(self.jobs[job_id]):
                err = self.fail(cid, body) if self.fail else None
                entry = {"error": err} if err else {"response": gemini_answer(body)}
                responses.append(entry | {"metadata": {"key": cid}})
            meta["output"] = {"inlinedResponses": {"inlinedResponses": responses}}
            meta["batchStats"]["successfulRequestCount"] = str(n)
        if ended and self.job_failure is not None:
            meta.pop("output")
            return {"name": job_id, "metadata": meta | {"state": "BATCH_STATE_FAILED"}, "done": True} | self.job_failure
        return {"name": job_id, "metadata": meta, "done": ended}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith(":generateContent"):
            body = json.loads(request.content)
            self.normal.append(body)
            return httpx2.Response(200, json=gemini_answer(body))
        if request.method == "POST" and path.endswith(":batchGenerateContent"):
            created = json.loads(request.content)
            self.created.append(created | {"path": path})
            self.creates += 1
            job_id = f"batches/job{self.creates:03d}"
            reqs = created["batch"]["inputConfig"]["requests"]["requests"]
            self.jobs[job_id] = [(r["metadata"]["key"], r["request"]) for r in reqs]
            return httpx2.Response(200, json=self.operation(job_id, False))
        if request.method == "GET" and "/batches/" in path:
            job_id = "batches/" + path.rsplit("/batches/", 1)[1]
            if job_id not in self.jobs:
                return httpx2.Response(
                    404, json={"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}
                )
            return httpx2.Response(200, json=self.operation(job_id, self.ended(job_id)))
        return httpx2.Response(404, json={"error": {"code": 404, "message": f"no route {path}", "status": "NOT_FOUND"}})
