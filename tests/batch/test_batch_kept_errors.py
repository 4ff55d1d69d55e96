"""A request whose batch result was an error (a billing error, an expired or canceled entry) is
submitted again when asked again with the same journal: before, the journal answered it with the
same stored error forever, even after its cause was fixed (and `experiment run --retry-errors`
could never clear it). Answers are still answered from the journal."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.batch import run_batch
from toolwire.errors import ProviderError

from .fakes import FakeAnthropic

pytest.importorskip("anthropic")


@pytest.mark.parametrize(
    "result",
    [
        {"type": "errored", "error": {"type": "error", "error": {"type": "billing_error", "message": "no credit"}}},
        {"type": "expired"},
        {"type": "canceled"},
    ],
)
def test_a_kept_error_is_submitted_again_and_answers_stay_kept(result: dict[str, Any], tmp_path: Any) -> None:
    journal = tmp_path / "jobs.sqlite"
    broken = {"on": True}
    fake = FakeAnthropic(polls_before_end=0, fail=lambda cid, body: result if cid == "q1" and broken["on"] else None)

    def model() -> Any:
        return toolwire.model(
            "anthropic:claude-sonnet-4-5", api_key="sk-ant-test", max_retries=0, http_client=fake.client()
        )

    m = model()
    asks = {
        "q1": m.build_request([toolwire.Message.user("What is 2 + 40?")]),
        "q2": m.build_request([toolwire.Message.user("What is 1 + 1?")]),
    }
    first = asyncio.run(run_batch(m, asks, journal=journal, poll_interval=0))
    assert isinstance(first["q1"], ProviderError) and not isinstance(first["q2"], BaseException)
    assert fake.creates == 1
    broken["on"] = False  # the cause is fixed (credit added)
    again = asyncio.run(run_batch(model(), asks, journal=journal, poll_interval=0))
    assert not isinstance(again["q1"], BaseException), again["q1"]
    assert again["q2"].text == first["q2"].text  # type: ignore[union-attr]
    assert fake.creates == 2
    assert [cid for cid, _ in list(fake.jobs.values())[-1]] == ["q1"]  # only the errored request went again
