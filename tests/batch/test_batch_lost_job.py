"""A job in the journal that the vendor no longer knows (HTTP 404 on polling: deleted at the
vendor, or a journal used with another account or API key) used to make every later call raise
the same 404 for every request of the call, forever: nothing said which job, and its requests
could never be sent again. Now that job's requests come back as a retryable ProviderError naming
the job and what happened, the other requests of the call are answered, and asking again submits
them again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.batch import BatchPending, run_batch
from toolwire.errors import ProviderError

from .fakes import FakeAnthropic, FakeGemini, FakeOpenAI

pytest.importorskip("anthropic")

VENDORS: dict[str, tuple[str, Any, str]] = {
    "anthropic": ("anthropic:claude-sonnet-4-5", FakeAnthropic, "sk-ant-test"),
    "openai": ("openai:gpt-5-mini", FakeOpenAI, "sk-test"),
    "gemini": ("gemini:gemini-2.5-flash", FakeGemini, "gemini-test-key"),
}


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_job_the_vendor_no_longer_knows_is_reported_and_sent_again(vendor: str, tmp_path: Any) -> None:
    spec, fake_class, key = VENDORS[vendor]
    journal = tmp_path / "jobs.sqlite"
    fake = fake_class(polls_before_end=0)

    def model() -> Any:
        return toolwire.model(spec, api_key=key, max_retries=0, http_client=fake.client())

    m = model()
    q1 = {"q1": m.build_request([toolwire.Message.user("What is 2 + 40?")])}
    with pytest.raises(BatchPending) as info:
        asyncio.run(run_batch(m, q1, journal=journal, poll_interval=0, max_polls=0))
    (lost_job,) = info.value.job_ids
    fake.jobs.clear()  # the vendor forgot the job
    m = model()
    both = {**q1, "q2": m.build_request([toolwire.Message.user("What is 1 + 1?")])}
    got = asyncio.run(run_batch(m, both, journal=journal, poll_interval=0))
    err = got["q1"]
    assert isinstance(err, ProviderError) and err.retryable and err.status is None
    assert err.error_type == "batch_not_found"
    assert lost_job in str(err) and "submitted again" in str(err)
    assert not isinstance(got["q2"], BaseException), got["q2"]  # the other request is answered
    creates = fake.creates
    # asked again: the lost request is submitted again (a new job) and answered
    again = asyncio.run(run_batch(model(), both, journal=journal, poll_interval=0))
    assert all(not isinstance(r, BaseException) for r in again.values()), again
    assert fake.creates == creates + 1
    assert [cid for cid, _ in list(fake.jobs.values())[-1]] == ["q1"]


def test_another_polling_error_still_raises(tmp_path: Any) -> None:
    """Only "not found" marks a job lost: a server error while polling propagates (the job is
    still in the journal and polled again next time)."""
    journal = tmp_path / "jobs.sqlite"
    fake = FakeAnthropic(polls_before_end=0)
    m = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", max_retries=0, http_client=fake.client())
    q1 = {"q1": m.build_request([toolwire.Message.user("What is 2 + 40?")])}
    with pytest.raises(BatchPending):
        asyncio.run(run_batch(m, q1, journal=journal, poll_interval=0, max_polls=0))
    handle = fake.handle

    def broken(request: Any) -> Any:
        import httpx2

        if request.method == "GET":
            return httpx2.Response(500, json={"type": "error", "error": {"type": "api_error", "message": "boom"}})
        return handle(request)

    fake.handle = broken  # type: ignore[method-assign]
    m = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", max_retries=0, http_client=fake.client())
    with pytest.raises(ProviderError, match="boom"):
        asyncio.run(run_batch(m, q1, journal=journal, poll_interval=0))
    fake.handle = handle  # type: ignore[method-assign]
    m = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", max_retries=0, http_client=fake.client())
    got = asyncio.run(run_batch(m, q1, journal=journal, poll_interval=0))
    assert not isinstance(got["q1"], BaseException) and fake.creates == 1
