"""Bad vendor answers in batch jobs, through the real SDKs over ``httpx2.MockTransport``: a job in
a state the vendor does not document stops polling with a typed error (not polled forever), polling
is bounded by default, one unreadable result fails only its own request, and results of shapes the
vendors do not document are ``ResponseDecodeError`` naming the job and the custom id."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Callable

import httpx2
import pytest

import toolwire
from toolwire.batch import (
    DEFAULT_MAX_WAIT,
    BatchJournal,
    BatchPending,
    BatchRounds,
    BatchStateUnknown,
    run_batch,
)

from .fakes import FakeAnthropic, FakeGemini, FakeOpenAI, anthropic_answer

pytest.importorskip("anthropic")

VENDORS: dict[str, tuple[str, str]] = {
    "anthropic": ("anthropic:claude-sonnet-4-5", "sk-ant-test"),
    "openai": ("openai:gpt-5-mini", "sk-test"),
    "openai-chat": ("openai-chat:gpt-4.1", "sk-test"),
    "gemini": ("gemini:gemini-2.5-flash", "gemini-test-key"),
}


def make_model(vendor: str, fake: Any) -> Any:
    spec, key = VENDORS[vendor]
    return toolwire.model(spec, api_key=key, max_retries=0, http_client=fake.client())


def ask(model: Any, *ids: str) -> dict[str, Any]:
    return {cid: model.build_request([toolwire.Message.user(f"question {cid}")]) for cid in ids}


def go(model: Any, requests: dict[str, Any], **options: Any) -> dict[str, Any]:
    options.setdefault("poll_interval", 0)
    return asyncio.run(asyncio.wait_for(run_batch(model, requests, **options), 60))


# -- a job in a state the vendor does not document ----------------------------------------------


class _StateOverride:
    """Mixin: the job's state field is replaced by ``state`` (``None``: removed) on every read."""

    state: Any = "weird"
    reads = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)  # type: ignore[misc]
        path = request.url.path
        is_read = request.method == "GET" and ("/batches/" in path) and not path.endswith(("/results", "/content"))
        if not is_read or self.state is False:
            return response
        self.reads += 1
        body = json.loads(response.content)
        holder, key = {
            FakeAnthropic: (body, "processing_status"),
            FakeOpenAI: (body, "status"),
            FakeGemini: (body.get("metadata", {}), "state"),
        }[type(self).__mro__[2]]
        if self.state is None:
            holder.pop(key, None)
        else:
            holder[key] = self.state
        return httpx2.Response(200, json=body)


class OddAnthropic(_StateOverride, FakeAnthropic):
    pass


class OddOpenAI(_StateOverride, FakeOpenAI):
    pass


class OddGemini(_StateOverride, FakeGemini):
    pass


UNKNOWN = {
    "anthropic": (OddAnthropic, "paused", "MessageBatch.processing_status", "/processing_status", "msgbatch_001"),
    "openai": (OddOpenAI, "paused", "Batch.status", "/status", "batch_001"),
    "openai-chat": (OddOpenAI, "paused", "Batch.status", "/status", "batch_001"),
    "gemini": (OddGemini, "BATCH_STATE_PAUSED", "metadata.state", "/metadata/state", "batches/job001"),
}
KNOWN = {
    "anthropic": "in_progress, canceling, ended",
    "openai": "validating, failed, in_progress, finalizing, completed, expired, cancelling, cancelled",
    "gemini": "BATCH_STATE_PENDING, BATCH_STATE_RUNNING, BATCH_STATE_SUCCEEDED, BATCH_STATE_FAILED, "
    "BATCH_STATE_CANCELLED, BATCH_STATE_EXPIRED",
}
KNOWN["openai-chat"] = KNOWN["openai"]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_an_unknown_job_state_stops_polling_with_a_typed_error_and_a_rerun_resumes(vendor: str, tmp_path: Any) -> None:
    fake_type, state, field, pointer, job = UNKNOWN[vendor]
    fake = fake_type()
    fake.state = state
    journal = tmp_path / "jobs.sqlite"
    model = make_model(vendor, fake)
    with pytest.raises(BatchStateUnknown) as caught:
        go(model, ask(model, "q0", "q1"), journal=journal)
    err = caught.value
    assert isinstance(err, BatchPending) and isinstance(err, toolwire.ResponseDecodeError)
    assert (err.api, err.job_id, err.vendor_status, err.pointer) == (vendor, job, state, pointer)
    assert err.job_ids == [job] and err.states == {job: state}
    assert str(err) == (
        f"{vendor}: batch {job} reports {field} {state!r}, not one of the states the vendor documents "
        f"({KNOWN[vendor]}); polling stopped instead of waiting for a state that may never change. "
        f"Unfinished: {job} ({state}); call again with the same requests and journal ({journal}) to resume "
        "polling them (nothing is submitted again)"
    )
    assert fake.reads == 1 and fake.creates == 1  # polled once, not forever
    fake.state = False  # the vendor reports a documented state again
    again = go(make_model(vendor, fake), ask(model, "q0", "q1"), journal=journal)
    assert fake.creates == 1  # the same job was polled, nothing submitted again
    assert all(isinstance(r, toolwire.Response) for r in again.values()), again


@pytest.mark.parametrize("vendor", ["openai", "gemini"])
def test_a_job_without_any_state_is_unknown_too(vendor: str) -> None:
    fake_type, *_ = UNKNOWN[vendor]
    fake = fake_type()
    fake.state = None
    model = make_model(vendor, fake)
    with pytest.raises(BatchStateUnknown) as caught:
        go(model, ask(model, "q0"))
    expected = {"openai": "None", "gemini": "BATCH_STATE_UNSPECIFIED"}[vendor]
    assert caught.value.vendor_status == expected
    assert str(caught.value).endswith(
        "the journal is in memory, so nothing resumes them after this process: pass journal=PATH (an SQLite "
        "file) to resume later; the jobs keep running at the vendor until they end "
        "(toolwire.batch.batch_api(model).cancel(job_id) cancels one)"
    )


# -- polling is bounded by default ---------------------------------------------------------------


def test_polling_has_a_bounded_default_everywhere() -> None:
    from toolwire.experiments.backends.batch import BatchBackend

    assert DEFAULT_MAX_WAIT == 90_000.0  # 25 hours: the vendors' 24-hour window and an hour's grace
    assert inspect.signature(run_batch).parameters["max_wait"].default == DEFAULT_MAX_WAIT
    assert BatchRounds().max_wait == DEFAULT_MAX_WAIT
    assert BatchBackend().max_wait == DEFAULT_MAX_WAIT


def test_max_wait_stops_a_job_that_never_ends_and_names_it() -> None:
    fake = FakeAnthropic(polls_before_end=10**9)
    model = make_model("anthropic", fake)
    with pytest.raises(BatchPending) as caught:
        go(model, ask(model, "q0"), poll_interval=0.01, max_wait=0.05)
    err = caught.value
    assert not isinstance(err, BatchStateUnknown)
    assert err.job_ids == ["msgbatch_001"] and err.states == {"msgbatch_001": "in_progress"}
    assert "1 batch job still running after " in str(err) and "s of polling (max_wait=0.05 s): " in str(err)
    assert "msgbatch_001 (in_progress); the journal is in memory" in str(err)
    assert fake.polls["msgbatch_001"] >= 1  # polled, then stopped by the wall-time bound (no count asserted)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"poll_interval": -1}, "poll_interval must be a finite number of seconds, 0 or more; got -1"),
        ({"poll_interval": float("nan")}, "poll_interval must be a finite number of seconds, 0 or more; got nan"),
        ({"poll_interval": "30"}, "poll_interval must be a finite number of seconds, 0 or more; got '30'"),
        ({"max_wait": float("inf")}, "max_wait must be a finite number of seconds, 0 or more; got inf"),
        ({"max_polls": -1}, "max_polls must be a whole number, 0 or more, or None; got -1"),
        ({"max_polls": 1.5}, "max_polls must be a whole number, 0 or more, or None; got 1.5"),
        ({"max_polls": True}, "max_polls must be a whole number, 0 or more, or None; got True"),
    ],
)
def test_bad_polling_options_are_refused_before_anything_is_sent(options: dict[str, Any], message: str) -> None:
    fake = FakeAnthropic()
    model = make_model("anthropic", fake)
    with pytest.raises(toolwire.ConfigurationError) as caught:
        asyncio.run(run_batch(model, ask(model, "q0"), **options))
    assert str(caught.value) == message
    with pytest.raises(toolwire.ConfigurationError) as caught:
        BatchRounds(**options)
    assert str(caught.value) == message
    assert fake.creates == 0


def test_requests_that_are_not_model_requests_are_refused() -> None:
    fake = FakeAnthropic()
    model = make_model("anthropic", fake)
    with pytest.raises(toolwire.ConfigurationError) as caught:
        asyncio.run(run_batch(model, {"q0": "What is 2 + 2?"}))  # type: ignore[dict-item]
    assert str(caught.value) == (
        "anthropic:claude-sonnet-4-5: batch request 'q0' is a str, not a ModelRequest "
        "(build one with model.build_request(messages, ...))"
    )
    with pytest.raises(toolwire.ConfigurationError, match="requests must be a mapping of custom id to ModelRequest"):
        asyncio.run(run_batch(model, [ask(model, "q0")["q0"]]))  # type: ignore[arg-type]
    assert fake.creates == 0


# -- one unreadable results line fails only its own request --------------------------------------


class MangledAnthropic(FakeAnthropic):
    """FakeAnthropic whose results JSONL passes through ``mangle(lines) -> lines``."""

    def __init__(self, mangle: Callable[[list[str]], list[str]], **kw: Any) -> None:
        super().__init__(**kw)
        self.mangle: Callable[[list[str]], list[str]] | None = mangle

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)
        if self.mangle is not None and request.url.path.endswith("/results"):
            lines = self.mangle(response.content.decode().split("\n"))
            return httpx2.Response(200, content="\n".join(lines).encode(), headers=dict(response.headers))
        return response


def _cut(cid: str, keep_id: bool = True) -> Callable[[list[str]], list[str]]:
    """Truncate the line of ``cid`` mid-object (with its custom id still readable, or not)."""

    def mangle(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            if f'"{cid}"' in line:
                line = line[:60] if keep_id else '{"result": {"type": "succe'
            out.append(line)
        return out

    return mangle


def test_anthropic_one_unreadable_line_fails_only_its_request_and_is_sent_again(tmp_path: Any) -> None:
    fake = MangledAnthropic(_cut("q1"))
    journal = tmp_path / "jobs.sqlite"
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1", "q2"), journal=journal)
    assert [got[c].text for c in ("q0", "q2")] == ["Adding.", "Adding."]
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError)
    assert err.detail.startswith(
        "batch msgbatch_001: line 2 of the results file (the result of request 'q1') is not JSON ("
    )
    assert err.detail.endswith("; the request is submitted again when asked again with the same journal")
    # asked again: q0 and q2 come from the journal, only q1 goes out in a new job
    fake.mangle = None
    again = go(make_model("anthropic", fake), ask(model, "q0", "q1", "q2"), journal=journal)
    assert [again[c].text for c in ("q0", "q1", "q2")] == ["Adding."] * 3
    assert fake.creates == 2 and [cid for cid, _ in fake.jobs["msgbatch_002"]] == ["q1"]


def test_an_unreadable_line_without_a_custom_id_is_named_in_the_missing_requests_error() -> None:
    fake = MangledAnthropic(_cut("q1", keep_id=False))
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1"))
    assert got["q0"].text == "Adding."
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError)
    assert err.detail.startswith(
        "batch msgbatch_001 ended without a readable result for request 'q1'; 1 result could not be read, "
        "one may be its own: batch msgbatch_001: line 1 of the results file (a result) is not JSON ("
    )


class MangledOpenAI(FakeOpenAI):
    """FakeOpenAI whose output file lines pass through ``mangle``."""

    def __init__(self, mangle: Callable[[list[str]], list[str]], **kw: Any) -> None:
        super().__init__(**kw)
        self.mangle = mangle

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)
        if request.url.path.endswith("/content") and "/file-out-" in request.url.path:
            return httpx2.Response(200, content="\n".join(self.mangle(response.content.decode().split("\n"))).encode())
        return response


def _replace(cid: str, new: Callable[[dict[str, Any]], Any]) -> Callable[[list[str]], list[str]]:
    def mangle(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            if f'"{cid}"' in line:
                value = new(json.loads(line))
                line = value if isinstance(value, str) else json.dumps(value)
            out.append(line)
        return out

    return mangle


@pytest.mark.parametrize("vendor", ["openai", "openai-chat"])
def test_openai_one_unreadable_output_line_fails_only_its_request(vendor: str) -> None:
    fake = MangledOpenAI(_replace("q1", lambda line: json.dumps(line)[:50]))
    model = make_model(vendor, fake)
    got = go(model, ask(model, "q0", "q1", "q2"))
    assert all(isinstance(got[c], toolwire.Response) for c in ("q0", "q2"))
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError) and err.api == vendor
    assert err.detail.startswith(
        "batch batch_001: line 2 of the output file file-out-batch_001 (the result of request 'q1') is not JSON ("
    )


OPENAI_LINES: dict[str, tuple[Callable[[dict[str, Any]], Any], type, str]] = {
    "200-not-json-body": (
        lambda line: line | {"response": line["response"] | {"body": "<html>Bad gateway</html>"}},
        toolwire.ResponseDecodeError,
        "batch batch_001: line 2 of the output file file-out-batch_001 (request 'q1') has status_code 200 but a "
        "JSON str, not a response object: '<html>Bad gateway</html>'; the request is submitted again when asked "
        "again with the same journal",
    ),
    "200-null-body": (
        lambda line: line | {"response": line["response"] | {"body": None}},
        toolwire.ResponseDecodeError,
        "batch batch_001: line 2 of the output file file-out-batch_001 (request 'q1') has status_code 200 but no "
        "body, not a response object: 'None'; the request is submitted again when asked again with the same journal",
    ),
    "neither": (
        lambda line: {"id": line["id"], "custom_id": "q1", "response": None, "error": None},
        toolwire.ResponseDecodeError,
        "batch batch_001: line 2 of the output file file-out-batch_001 (request 'q1') has neither a response with "
        "a status_code nor an error object: {'id': 'batch_req_q1', 'custom_id': 'q1', 'response': None, 'error': "
        "None}; the request is submitted again when asked again with the same journal",
    ),
    "expired-without-message": (
        lambda line: {"id": line["id"], "custom_id": "q1", "response": None, "error": {"code": "batch_expired"}},
        toolwire.ProviderError,
        "the batch request ended with error code 'batch_expired' and no message (BatchError.message); send it again",
    ),
}


@pytest.mark.parametrize("case", sorted(OPENAI_LINES))
def test_openai_result_lines_of_undocumented_shapes(case: str) -> None:
    change, kind, message = OPENAI_LINES[case]
    fake = MangledOpenAI(_replace("q1", change))
    model = make_model("openai-chat", fake)
    got = go(model, ask(model, "q0", "q1", "q2"))
    assert all(isinstance(got[c], toolwire.Response) for c in ("q0", "q2"))
    err = got["q1"]
    assert type(err) is kind
    assert (err.detail if isinstance(err, toolwire.ResponseDecodeError) else err.message) == message
    if case == "expired-without-message":
        assert (err.retryable, err.error_type, err.status) == (True, "batch_expired", None)


def test_openai_200_line_with_an_error_body_is_the_normal_paths_provider_error() -> None:
    error = {"error": {"message": "The server had an error", "type": "server_error", "code": None}}
    fake = MangledOpenAI(_replace("q1", lambda line: line | {"response": line["response"] | {"body": error}}))
    model = make_model("openai-chat", fake)
    got = go(model, ask(model, "q0", "q1"))
    assert isinstance(got["q0"], toolwire.Response)
    err = got["q1"]
    assert isinstance(err, toolwire.ProviderError)
    assert (err.message, err.error_type) == ("The server had an error", "server_error")


# -- Anthropic results of undocumented shapes ----------------------------------------------------

ANTHROPIC_RESULTS: dict[str, tuple[Any, type, str, str]] = {
    "content-null": (
        lambda body: {"type": "succeeded", "message": anthropic_answer(body) | {"content": None}},
        toolwire.ResponseDecodeError,
        "/content",
        "batch msgbatch_001, request 'q1': the body has no content array: it is not a Messages response; "
        "it is submitted again when asked again with the same journal",
    ),
    "content-missing": (
        lambda body: {
            "type": "succeeded",
            "message": {k: v for k, v in anthropic_answer(body).items() if k != "content"},
        },
        toolwire.ResponseDecodeError,
        "/content",
        "batch msgbatch_001, request 'q1': the body has no content array: it is not a Messages response; "
        "it is submitted again when asked again with the same journal",
    ),
    "no-message": (
        lambda body: {"type": "succeeded"},
        toolwire.ResponseDecodeError,
        "/result/message",
        "batch msgbatch_001: line 1 of the results (request 'q1') succeeded without a message object (got None; "
        "MessageBatchSucceededResult.message); the request is submitted again when asked again with the same journal",
    ),
    "unknown-type": (
        lambda body: {"type": "paused"},
        toolwire.ResponseDecodeError,
        "/result/type",
        "batch msgbatch_001: line 1 of the results (request 'q1') has result type 'paused', not one of succeeded, "
        "errored, canceled, expired (MessageBatchResult); the request is submitted again when asked again with "
        "the same journal",
    ),
    "errored-without-error": (
        lambda body: {"type": "errored"},
        toolwire.ProviderError,
        "",
        "the batch request errored and the vendor sent no error object (MessageBatchErroredResult.error); send it "
        "again, or through the normal loop to see its error",
    ),
}


@pytest.mark.parametrize("case", sorted(ANTHROPIC_RESULTS))
def test_anthropic_results_of_undocumented_shapes(case: str) -> None:
    make, kind, pointer, message = ANTHROPIC_RESULTS[case]
    fake = FakeAnthropic(fail=lambda cid, body: make(body) if cid == "q1" else None)
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1"))
    assert got["q0"].text == "Adding."
    err = got["q1"]
    assert type(err) is kind
    if isinstance(err, toolwire.ResponseDecodeError):
        assert (err.detail, err.pointer) == (message, pointer)
    else:
        assert (err.message, err.retryable, err.error_type, err.status) == (message, True, "errored", None)


# -- Gemini inline responses of undocumented shapes ----------------------------------------------


class OddEntriesGemini(FakeGemini):
    """FakeGemini whose inline responses pass through ``change(entries) -> entries``."""

    def __init__(self, change: Callable[[list[Any]], list[Any]], **kw: Any) -> None:
        super().__init__(**kw)
        self.change = change

    def operation(self, job_id: str, ended: bool) -> dict[str, Any]:
        op = super().operation(job_id, ended)
        if ended:
            box = op["metadata"]["output"]["inlinedResponses"]
            box["inlinedResponses"] = self.change(box["inlinedResponses"])
        return op


def _gemini_q1(new: Callable[[dict[str, Any]], Any]) -> Callable[[list[Any]], list[Any]]:
    return lambda entries: [new(e) if e["metadata"]["key"] == "q1" else e for e in entries]


GEMINI_ENTRIES: dict[str, tuple[Callable[[list[Any]], list[Any]], str]] = {
    "no-candidates": (
        _gemini_q1(lambda e: e | {"response": {"usageMetadata": gemini_answer_usage(), "modelVersion": "x"}}),
        "batch batches/job001, request 'q1': the body has neither candidates nor promptFeedback: it is not a "
        "GenerateContentResponse; it is submitted again when asked again with the same journal",
    ),
    "neither": (
        _gemini_q1(lambda e: {"metadata": e["metadata"]}),
        "batch batches/job001: metadata.output.inlinedResponses.inlinedResponses[0] (request 'q1') has neither a "
        "response object nor an error (InlinedResponse): \"{'metadata': {'key': 'q1'}}\"; the request is submitted "
        "again when asked again with the same journal",
    ),
    "no-key": (
        _gemini_q1(lambda e: {"response": e["response"]}),
        "batch batches/job001 ended without a readable result for request 'q1'; 1 result could not be read, "
        "one may be its own: batch batches/job001: metadata.output.inlinedResponses.inlinedResponses[0] has no "
        "string metadata.key: ",
    ),
}


def gemini_answer_usage() -> dict[str, Any]:
    return {"promptTokenCount": 5, "totalTokenCount": 5}


@pytest.mark.parametrize("case", sorted(GEMINI_ENTRIES))
def test_gemini_inline_responses_of_undocumented_shapes(case: str) -> None:
    change, message = GEMINI_ENTRIES[case]
    fake = OddEntriesGemini(change)
    model = make_model("gemini", fake)
    got = go(model, ask(model, "q0", "q1"))
    assert isinstance(got["q0"], toolwire.Response)
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError) and err.api == "gemini"
    if case == "no-key":
        assert err.detail.startswith(message)
    else:
        assert err.detail == message


def test_gemini_expired_job_without_output_fails_each_request_as_retryable() -> None:
    fake = _StatesGemini("BATCH_STATE_EXPIRED")
    model = make_model("gemini", fake)
    got = go(model, ask(model, "q0", "q1"))
    for err in got.values():
        assert isinstance(err, toolwire.ProviderError)
        assert (err.retryable, err.error_type, err.status) == (True, "BATCH_STATE_EXPIRED", None)
        assert err.message == "the batch expired before this request ran (a batch has 24 hours); send it again"


class _StatesGemini(FakeGemini):
    def __init__(self, final: str) -> None:
        super().__init__()
        self.final = final

    def operation(self, job_id: str, ended: bool) -> dict[str, Any]:
        op = super().operation(job_id, ended)
        if ended:
            op["metadata"].pop("output", None)
            op["metadata"]["state"] = self.final
        return op


def test_a_journal_keeps_an_unreadable_answer_as_a_decode_error_and_sends_it_again(tmp_path: Any) -> None:
    """The journal row of an unreadable line is a decode error, read back as one (not a retryable
    ProviderError and not lost)."""
    fake = MangledAnthropic(_cut("q0"))
    journal = tmp_path / "jobs.sqlite"
    model = make_model("anthropic", fake)
    go(model, ask(model, "q0"), journal=journal)
    with BatchJournal(journal) as book:
        (row,) = book._exec("SELECT body, error FROM batch_items")
    assert row[0] is None
    stored = json.loads(row[1])
    assert stored["kind"] == "decode" and stored["message"].startswith("batch msgbatch_001: line 1 of the results")


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [
        ("body", "{cut", "its body is '{cut', not a JSON object"),
        ("body", "[1]", "its body is '[1]', not a JSON object"),
        ("error", "oops", "its error is 'oops', not a JSON object"),
        ("error", "5", "its error is '5', not a JSON object"),
    ],
)
def test_a_journal_answer_changed_by_hand_is_a_typed_error_not_a_crash(
    tmp_path: Any, column: str, value: str, words: str
) -> None:
    """A collected answer in the journal (the experiment store's file with the batch backend)
    changed outside toolwire: asking again crashed with JSONDecodeError or AttributeError. Now a
    RunStoreError (reason damaged) names the request and how to have it submitted again; the
    row is left as it is and nothing is submitted."""
    import sqlite3

    from toolwire.store import RunStoreError

    fake = FakeAnthropic()
    journal = tmp_path / "jobs.sqlite"
    model = make_model("anthropic", fake)
    assert go(model, ask(model, "q0"), journal=journal)["q0"].text
    conn = sqlite3.connect(journal)
    conn.execute(f"UPDATE batch_items SET {column}=?" + (", body=NULL" if column == "error" else ""), (value,))
    conn.commit()
    conn.close()
    with pytest.raises(RunStoreError) as caught:
        go(model, ask(model, "q0"), journal=journal)
    err = caught.value
    assert err.reason == "damaged" and err.path == str(journal) and fake.creates == 1
    assert str(err).startswith(
        f"the batch journal {str(journal)!r} holds a damaged answer to request 'q0' of batch msgbatch_001: {words}; "
        "the file was changed outside toolwire."
    )
    assert "UPDATE batch_items SET body=NULL, error=NULL WHERE job_id='msgbatch_001' AND custom_id='q0'" in str(err)
    with BatchJournal(journal) as book:
        assert book._exec(f"SELECT {column} FROM batch_items") == [(value,)]


def test_a_results_line_nested_too_deeply_fails_only_its_request() -> None:
    def deep(lines: list[str]) -> list[str]:
        return ['{"custom_id": "q1", "result": ' + "[" * 100_000 if '"q1"' in line else line for line in lines]

    fake = MangledAnthropic(deep)
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1"))
    assert got["q0"].text == "Adding."
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError)
    assert err.detail.startswith(
        "batch msgbatch_001: line 1 of the results file (the result of request 'q1') is nested too deeply to read: "
    )


def test_a_job_the_journal_cannot_record_is_named_so_it_can_be_cancelled(tmp_path: Any) -> None:
    import sqlite3

    from toolwire.store import RunStoreError

    path = tmp_path / "jobs.sqlite"
    BatchJournal(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        fake = FakeAnthropic()
        model = make_model("anthropic", fake)
        with BatchJournal(path, timeout=0.2) as book:
            with pytest.raises(RunStoreError) as caught:
                go(model, ask(model, "q0"), journal=book)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = caught.value
    assert err.reason == "locked" and fake.creates == 1
    assert str(err).startswith(f"the batch journal {str(path)!r} is locked by another process (waited 0.2 s; ")
    assert str(err).endswith(
        "; batch msgbatch_001 (1 request) was submitted but could not be recorded: cancel it "
        "(toolwire.batch.batch_api(model).cancel('msgbatch_001')) or collect it by hand, since asking again "
        "would submit its requests again"
    )


@pytest.mark.parametrize(
    ("vendor", "change", "pointer", "detail"),
    [
        (
            "openai-chat",
            {"choices": None},
            "/choices",
            "batch batch_001, request 'q1': ",
        ),
        (
            "openai",
            {"output": None},
            "/output",
            "batch batch_001, request 'q1': ",
        ),
    ],
)
def test_openai_200_bodies_without_their_answer_are_decode_errors_naming_the_request(
    vendor: str, change: dict[str, Any], pointer: str, detail: str
) -> None:
    fake = MangledOpenAI(
        _replace("q1", lambda line: line | {"response": line["response"] | {"body": line["response"]["body"] | change}})
    )
    model = make_model(vendor, fake)
    got = go(model, ask(model, "q0", "q1"))
    assert isinstance(got["q0"], toolwire.Response)
    err = got["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError) and err.pointer == pointer
    assert err.detail.startswith(detail)
    assert err.detail.endswith("; it is submitted again when asked again with the same journal")


def test_openai_failed_batch_with_errors_missing_their_fields_says_so() -> None:
    fake = FakeOpenAI()
    fake.job_failure = {"status": "failed", "errors": {"object": "list", "data": [{"line": 1}]}}
    model = make_model("openai", fake)
    got = go(model, ask(model, "q0"))
    err = got["q0"]
    assert isinstance(err, toolwire.ProviderError) and not err.retryable
    assert (err.message, err.error_type) == ("the batch failed: error: no message", "batch_failed")
    fake = FakeOpenAI()
    fake.job_failure = {"status": "failed", "errors": None}
    got = go(make_model("openai", fake), ask(model, "q0"))
    assert got["q0"].message == "the batch failed: the vendor gave no reason (Batch.errors is empty)"


def test_an_output_line_cut_inside_a_string_names_the_column_once() -> None:
    """The decoder's "Unterminated string starting at" was followed by " at column N"."""
    fake = MangledOpenAI(_replace("q1", lambda line: '{"custom_id": "q1", "response": "cut'))
    model = make_model("openai", fake)
    err = go(model, ask(model, "q0", "q1"))["q1"]
    assert isinstance(err, toolwire.ResponseDecodeError)
    assert "(the result of request 'q1') is not JSON (Unterminated string starting at column 33)" in err.detail
