"""A two-turn tool-calling task through each vendor's batch API (real SDKs, mocked endpoints):
the bodies in the batch equal what the normal path sends, the decoded calls, results and usage,
and a restart mid-poll that resumes the same job instead of submitting again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.batch import BatchPending, BatchRounds

from .fakes import FakeAnthropic, FakeGemini, FakeOpenAI

pytest.importorskip("anthropic")


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two whole numbers. Use it for every sum.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


PROMPT = "What is 2 + 40? Use the add tool."

VENDORS: dict[str, dict[str, Any]] = {
    "anthropic": {"spec": "anthropic:claude-sonnet-4-5", "fake": FakeAnthropic, "key": "sk-ant-test"},
    "openai": {"spec": "openai:gpt-5-mini", "fake": FakeOpenAI, "key": "sk-test"},
    "openai-chat": {"spec": "openai-chat:gpt-4.1", "fake": FakeOpenAI, "key": "sk-test"},
    "gemini": {"spec": "gemini:gemini-2.5-flash", "fake": FakeGemini, "key": "gemini-test-key"},
}


def make_model(vendor: str, fake: Any) -> Any:
    v = VENDORS[vendor]
    return toolwire.model(v["spec"], api_key=v["key"], max_retries=0, http_client=fake.client())


def normal_bodies(vendor: str) -> list[dict[str, Any]]:
    fake = VENDORS[vendor]["fake"]()
    result = toolwire.run_sync(make_model(vendor, fake), PROMPT, tools=[add])
    assert result.text == "The sum is 42."
    return fake.normal


async def batched(vendor: str, fake: Any, runs: int, **options: Any) -> tuple[list[Any], BatchRounds]:
    async with BatchRounds(poll_interval=0, **options) as rounds:
        model = make_model(vendor, fake)
        loops = [toolwire.run(rounds.model(model, key=f"run{i}"), PROMPT, tools=[add]) for i in range(runs)]
        return await rounds.gather(*loops), rounds


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_two_turn_task_through_the_batch_api(vendor: str) -> None:
    expected = normal_bodies(vendor)
    assert len(expected) == 2
    fake = VENDORS[vendor]["fake"]()
    results, rounds = asyncio.run(batched(vendor, fake, runs=2))
    assert rounds.rounds == 2 and fake.creates == 2
    jobs = list(fake.jobs.values())
    # the two loops run concurrently: their requests join each round in either order
    assert sorted(cid for cid, _ in jobs[0]) == ["run0-1", "run1-1"]
    assert sorted(cid for cid, _ in jobs[1]) == ["run0-2", "run1-2"]
    for job, body in zip(jobs, expected):
        for _, sent in job:
            assert sent == body  # exactly what the normal path posts for that turn
    for result in results:
        assert not isinstance(result, BaseException), result
        assert result.text == "The sum is 42."
        assert [t.response.stop_reason for t in result.turns] == ["tool_use", "end_turn"]
        (call,) = result.turns[0].response.tool_calls
        assert (call.name, call.arguments) == ("add", {"a": 2, "b": 40})
        (run,) = result.turns[0].tool_runs
        assert (run.result.content, run.result.is_error) == ("42", False)
        assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.requests) == (250, 50, 2)
        assert result.tool_errors == 0


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_restart_mid_poll_resumes_the_job(vendor: str, tmp_path: Any) -> None:
    journal = tmp_path / "jobs.sqlite"
    fake = VENDORS[vendor]["fake"](polls_before_end=2)
    first, _ = asyncio.run(batched(vendor, fake, runs=2, journal=journal, max_polls=1))
    assert all(isinstance(r, BatchPending) for r in first)
    assert fake.creates == 1
    (job1,) = fake.jobs
    assert first[0].job_ids == [job1] and fake.polls[job1] == 1
    # a new process: new models, new SDK clients, the same journal file and vendor state
    second, _ = asyncio.run(batched(vendor, fake, runs=2, journal=journal))
    assert all(r.text == "The sum is 42." for r in second)
    assert fake.creates == 2  # turn 1 was not submitted again; turn 2 is the second job
    # polled again by the restarted process until it ended (then read once more for its results)
    assert fake.polls[job1] == 1 + fake.polls_before_end + fake.reads_for_results
    assert sorted(cid for cid, _ in fake.jobs[job1]) == ["run0-1", "run1-1"]  # concurrent loops: any order
    # a third process finds every result in the journal: nothing is submitted or polled
    polls = sum(fake.polls.values())
    third, _ = asyncio.run(batched(vendor, fake, runs=2, journal=journal))
    assert [r.text for r in third] == ["The sum is 42."] * 2
    assert fake.creates == 2 and sum(fake.polls.values()) == polls


def test_the_batch_envelopes_as_each_vendor_documents_them() -> None:
    """The wire form of each job, checked against the vendors' references, not against the code."""
    fake = FakeAnthropic()
    asyncio.run(batched("anthropic", fake, runs=1))
    (params,) = [body for _, body in fake.jobs["msgbatch_001"]]
    assert params["model"] == "claude-sonnet-4-5" and params["max_tokens"] == 4096
    assert params["messages"] == [{"role": "user", "content": [{"type": "text", "text": PROMPT}]}]
    assert [t["name"] for t in params["tools"]] == ["add"] and "stream" not in params

    fake = FakeOpenAI()
    asyncio.run(batched("openai", fake, runs=1))
    assert fake.created[0] == {"input_file_id": "file-001", "endpoint": "/v1/responses", "completion_window": "24h"}
    assert fake.upload_fields[0] == {"purpose": "batch", "filename": "toolwire-batch.jsonl"}
    (body,) = [b for _, b in fake.jobs["batch_001"]]
    assert body["model"] == "gpt-5-mini" and body["stream"] is False
    assert body["input"] == [{"role": "user", "content": PROMPT}]
    fake = FakeOpenAI()
    asyncio.run(batched("openai-chat", fake, runs=1))
    assert fake.created[0]["endpoint"] == "/v1/chat/completions"

    fake = FakeGemini()
    asyncio.run(batched("gemini", fake, runs=1))
    created = fake.created[0]
    assert created["path"] == "/v1beta/models/gemini-2.5-flash:batchGenerateContent"
    (entry,) = created["batch"]["inputConfig"]["requests"]["requests"]
    assert entry["metadata"] == {"key": "run0-1"}
    assert entry["request"]["contents"] == [{"role": "user", "parts": [{"text": PROMPT}]}]


FAILURES = {
    "anthropic": {
        "type": "errored",
        "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: bad"}},
    },
    "openai": {
        "response": {
            "status_code": 400,
            "request_id": "req_x",
            "body": {"error": {"message": "Invalid input", "type": "invalid_request_error", "code": None}},
        },
        "error": None,
    },
    "gemini": {"code": 3, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"},
}
FAILURES["openai-chat"] = FAILURES["openai"]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_an_errored_request_is_the_normal_paths_provider_error(vendor: str) -> None:
    fake = VENDORS[vendor]["fake"](fail=lambda cid, body: FAILURES[vendor] if cid == "run1-1" else None)
    results, _ = asyncio.run(batched(vendor, fake, runs=2))
    assert results[0].text == "The sum is 42."  # the other run is not disturbed
    err = results[1]
    assert isinstance(err, toolwire.ProviderError)
    assert (err.provider, err.status, err.retryable) == (vendor, 400, False)
    assert err.error_type == {"gemini": "INVALID_ARGUMENT"}.get(vendor, "invalid_request_error")
    assert err.message == {
        "anthropic": "messages: bad",
        "gemini": "Request contains an invalid argument.",
    }.get(vendor, "Invalid input")
    assert fake.creates == 2  # the second round holds only the run that goes on


def test_expired_and_canceled_requests_are_retryable_errors_and_are_sent_again(tmp_path: Any) -> None:
    journal = tmp_path / "j.sqlite"
    fake = FakeAnthropic(fail=lambda cid, body: {"type": "expired"})
    (err,), _ = asyncio.run(batched("anthropic", fake, runs=1, journal=journal))
    assert isinstance(err, toolwire.ProviderError)
    assert (err.error_type, err.retryable, err.status) == ("expired", True, None)
    fake.fail = None  # the vendor has capacity again: the same request is submitted again, not reused
    (ok,), _ = asyncio.run(batched("anthropic", fake, runs=1, journal=journal))
    assert ok.text == "The sum is 42." and fake.creates == 3


def test_a_model_without_a_batch_mode_says_so() -> None:
    from toolwire.batch import BatchUnsupported

    with pytest.raises(BatchUnsupported, match="has no batch mode"):
        BatchRounds().model(toolwire.model("test"), key="k")
    chat = toolwire.model("openai-chat:llama", base_url="http://localhost:8080/v1")
    with pytest.raises(BatchUnsupported, match="openai-chat:llama has no batch mode"):
        BatchRounds().model(chat, key="k")


def test_a_custom_id_the_vendor_refuses_is_a_configuration_error() -> None:
    fake = FakeAnthropic()
    with pytest.raises(toolwire.ConfigurationError) as caught:  # when the loop's model is made
        asyncio.run(_one_with_key(fake, "run/1"))
    assert "^[a-zA-Z0-9_-]{1,64}$" in str(caught.value) and fake.creates == 0


async def _one_with_key(fake: Any, key: str) -> tuple[list[Any], BatchRounds]:
    async with BatchRounds(poll_interval=0) as rounds:
        m = rounds.model(make_model("anthropic", fake), key=key)
        return await rounds.gather(toolwire.run(m, PROMPT, tools=[add])), rounds


def test_batch_usage_is_priced_at_the_batch_rate() -> None:
    from decimal import Decimal

    from toolwire.pricing import price

    usage = toolwire.Usage(input_tokens=250, output_tokens=50)
    for spec in ("anthropic:claude-sonnet-4-5", "openai:gpt-5-mini", "gemini:gemini-2.5-flash"):
        normal = price(usage, spec).total_usd
        batch = price(usage, spec, processing="batch").total_usd
        assert normal and batch == normal / 2, spec
    # claude-sonnet-4-5: $3 / $15 per million standard (genai-prices), $1.50 / $7.50 batched
    assert price(usage, "anthropic:claude-sonnet-4-5", processing="batch").total_usd == Decimal("0.00075")


def test_loops_with_their_own_model_objects_share_one_job_per_round() -> None:
    fake = FakeAnthropic()

    async def main() -> list[Any]:
        async with BatchRounds(poll_interval=0) as rounds:
            loops = [
                toolwire.run(rounds.model(make_model("anthropic", fake), key=f"own{i}"), PROMPT, tools=[add])
                for i in range(3)
            ]
            return await rounds.gather(*loops)

    results = asyncio.run(main())
    assert [r.text for r in results] == ["The sum is 42."] * 3
    assert fake.creates == 2 and [len(j) for j in fake.jobs.values()] == [3, 3]
    # a different setting is a different job: its requests differ
    fake = FakeAnthropic()

    async def mixed() -> list[Any]:
        async with BatchRounds(poll_interval=0) as rounds:
            a = rounds.model(make_model("anthropic", fake), key="a")
            b = rounds.model(toolwire.model(make_model("anthropic", fake), max_tokens=512), key="b")
            return await rounds.gather(*(toolwire.run(m, PROMPT, tools=[add]) for m in (a, b)))

    assert [r.text for r in asyncio.run(mixed())] == ["The sum is 42."] * 2
    assert fake.creates == 4
    assert sorted(body["max_tokens"] for job in fake.jobs.values() for _, body in job) == [512, 512, 4096, 4096]


JOB_FAILURES = {
    "openai": {
        "status": "failed",
        "errors": {
            "object": "list",
            "data": [{"code": "invalid_json_line", "line": 1, "message": "This line is not parseable as valid JSON."}],
        },
    },
    "gemini": {"error": {"code": 3, "message": "The batch input is invalid.", "status": "INVALID_ARGUMENT"}},
}


@pytest.mark.parametrize("vendor", ["openai", "gemini"])
def test_a_job_that_failed_as_a_whole_fails_each_of_its_requests(vendor: str) -> None:
    fake = VENDORS[vendor]["fake"]()
    fake.job_failure = JOB_FAILURES[vendor]
    results, _ = asyncio.run(batched(vendor, fake, runs=2))
    for err in results:
        assert isinstance(err, toolwire.ProviderError) and not err.retryable
        if vendor == "openai":
            assert err.error_type == "invalid_json_line"
            assert err.message == "the batch failed: invalid_json_line: This line is not parseable as valid JSON."
        else:
            assert (err.error_type, err.status, err.message) == ("INVALID_ARGUMENT", 400, "The batch input is invalid.")


class _AnthropicAnswering(FakeAnthropic):
    """FakeAnthropic whose batch create or retrieve answer is replaced (adversarial trial findings 6, 8)."""

    def __init__(self, case: str) -> None:
        super().__init__()
        self.case = case
        self.retrieves = 0

    def handle(self, request: Any) -> Any:
        import json

        import httpx2

        path = request.url.path
        if request.method == "POST" and path == "/v1/messages/batches":
            if self.case == "create_html":
                return httpx2.Response(200, content=b"<html>oops</html>", headers={"content-type": "text/html"})
            if self.case == "create_empty":
                return httpx2.Response(200, json={})
        if self.case == "status_weird" and request.method == "GET" and len(path.split("/")) == 5:
            self.retrieves += 1
            answer = json.loads(super().handle(request).content)
            answer["processing_status"] = "weird"
            return httpx2.Response(200, json=answer)
        return super().handle(request)


@pytest.mark.parametrize("case", ["create_html", "create_empty"])
def test_anthropic_batch_create_answer_that_is_not_a_batch_is_a_decode_error_adv6(case: str) -> None:
    from toolwire.batch import run_batch

    fake = _AnthropicAnswering(case)
    model = make_model("anthropic", fake)
    requests = {"q0": model.build_request([toolwire.Message.user("hi")])}
    with pytest.raises(toolwire.ResponseDecodeError, match=r"messages\.batches\.create answered .*not a MessageBatch"):
        asyncio.run(asyncio.wait_for(run_batch(model, requests, poll_interval=0), 30))


def test_anthropic_unknown_processing_status_is_a_decode_error_not_polled_forever_adv8() -> None:
    from toolwire.batch import run_batch

    fake = _AnthropicAnswering("status_weird")
    model = make_model("anthropic", fake)
    requests = {"q0": model.build_request([toolwire.Message.user("hi")])}
    with pytest.raises(
        toolwire.ResponseDecodeError,
        match=r"batch msgbatch_001 reports MessageBatch.processing_status .weird., not one of the states",
    ):
        asyncio.run(asyncio.wait_for(run_batch(model, requests, poll_interval=0), 30))
    assert fake.retrieves == 1


@pytest.mark.parametrize(
    "provider", ["openai:gpt-4o", "openai-chat:gpt-4o", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"]
)
def test_a_batch_item_holds_no_lone_surrogate_and_its_file_encodes(provider: str) -> None:
    """A batch body is serialized by the SDK or as a JSONL file, not by the sending path: a lone
    surrogate (a file name that is not UTF-8) crashed the UTF-8 encoding or went as an escape
    servers refuse. It is sent as U+FFFD, a pair as its character."""
    import json

    from toolwire.batch import batch_api, prepare

    model = toolwire.model(provider, api_key="k")
    request = model.build_request([toolwire.Message.user("file a\ud800b.txt \ud83d\ude00")])
    item = prepare(model, "req-1", request)
    text = json.dumps(item.body, ensure_ascii=False)
    assert "a\ufffdb.txt \U0001f600" in text
    text.encode("utf-8")  # no lone surrogate left
    if provider.startswith("openai"):
        line = batch_api(model).input_file([item]).decode("utf-8")  # type: ignore[attr-defined]
        assert "a\ufffdb.txt" in line


@pytest.mark.parametrize(("model_id", "beta"), [("claude-opus-5", True), ("claude-opus-5-5", False)])
def test_anthropic_batch_sends_the_fast_mode_beta_the_normal_path_sends(model_id: str, beta: bool) -> None:
    """speed on a research-preview fast-mode model (Opus 5) needs the fast-mode beta header on
    the normal path; a batch holding that request is created with it too (the API otherwise
    answers the request "speed: Extra inputs are not permitted")."""
    fake = FakeAnthropic()
    model = toolwire.model(
        f"anthropic:{model_id}", api_key="sk-ant-test", max_retries=0, http_client=fake.client(), speed="fast"
    )
    assert toolwire.run_sync(model, PROMPT, tools=[add]).text == "The sum is 42."
    normal = [h.get("anthropic-beta") for h in fake.normal_headers]
    assert normal == (["fast-mode-2026-02-01"] * 2 if beta else [None, None])

    async def batched_fast() -> Any:
        async with BatchRounds(poll_interval=0) as rounds:
            return await toolwire.run(rounds.model(model, key="run0"), PROMPT, tools=[add])

    assert asyncio.run(batched_fast()).text == "The sum is 42."
    assert [h.get("anthropic-beta") for h in fake.create_headers] == normal
    assert all(body["speed"] == "fast" for job in fake.jobs.values() for _, body in job)


class _OpenAICreateAnswering(FakeOpenAI):
    """FakeOpenAI whose ``path`` (``/v1/files`` or ``/v1/batches``) answers ``answer`` to a POST."""

    def __init__(self, path: str, answer: Any) -> None:
        super().__init__()
        self.path, self.answer_with = path, answer

    def handle(self, request: Any) -> Any:
        import httpx2

        if request.method == "POST" and request.url.path == self.path:
            self.created.append({"path": self.path})
            if isinstance(self.answer_with, bytes):
                return httpx2.Response(200, content=self.answer_with, headers={"content-type": "text/html"})
            return httpx2.Response(200, json=self.answer_with)
        return super().handle(request)


@pytest.mark.parametrize(
    ("path", "answer", "what"),
    [
        ("/v1/files", {}, "files.create answered something that is not a FileObject with an id"),
        ("/v1/batches", {}, "batches.create answered something that is not a Batch with an id"),
        ("/v1/batches", {"id": None, "object": "batch"}, "batches.create answered something that is not a Batch"),
        ("/v1/batches", b"<html>oops</html>", "batches.create answered something that is not a Batch"),
    ],
)
def test_openai_batch_create_answer_without_an_id_is_a_decode_error(path: str, answer: Any, what: str) -> None:
    from toolwire.batch import BatchJournal, run_batch

    fake = _OpenAICreateAnswering(path, answer)
    model = make_model("openai", fake)
    requests = {"q0": model.build_request([toolwire.Message.user("hi")])}
    with BatchJournal() as journal:
        with pytest.raises(toolwire.ResponseDecodeError) as caught:
            asyncio.run(asyncio.wait_for(run_batch(model, requests, poll_interval=0, journal=journal), 30))
        assert what in caught.value.detail
        assert journal.jobs() == []  # no job recorded under the id "None"
