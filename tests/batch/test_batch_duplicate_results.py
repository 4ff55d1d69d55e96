"""A results file that holds one custom id more than once (a vendor fault): the request's answer is
kept over an error line of the same id, whatever the order of the lines, and a vendor error over a
line that cannot be read; the answer is what the journal keeps, so asking again submits nothing."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

import toolwire

from .test_batch_bad_answers import MangledAnthropic, MangledOpenAI, ask, go, make_model

pytest.importorskip("anthropic")

ERRORED = {
    "custom_id": "q1",
    "result": {
        "type": "errored",
        "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "duplicate line"}},
    },
}


def _twice(extra: Any, *, before: bool) -> Callable[[list[str]], list[str]]:
    """Add ``extra`` (a line) next to q1's line: before it or after it."""

    def mangle(lines: list[str]) -> list[str]:
        out: list[str] = []
        for line in lines:
            if '"q1"' in line:
                out.extend([extra, line] if before else [line, extra])
            else:
                out.append(line)
        return out

    return mangle


@pytest.mark.parametrize("before", [False, True], ids=["error-after", "error-before"])
def test_anthropic_an_answer_is_kept_over_a_duplicate_error_line(before: bool, tmp_path: Any) -> None:
    fake = MangledAnthropic(_twice(json.dumps(ERRORED), before=before))
    journal = tmp_path / "jobs.sqlite"
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1"), journal=journal)
    assert [got[c].text for c in ("q0", "q1")] == ["Adding.", "Adding."]
    # the journal kept the answer: asked again, nothing is submitted
    again = go(make_model("anthropic", fake), ask(model, "q0", "q1"), journal=journal)
    assert again["q1"].text == "Adding." and fake.creates == 1


def test_anthropic_a_vendor_error_is_kept_over_an_unreadable_line_of_the_same_id() -> None:
    def mangle(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            if '"q1"' in line:
                out += [json.dumps(ERRORED), '{"custom_id": "q1", "result": {"type": "succ']
            else:
                out.append(line)
        return out

    fake = MangledAnthropic(mangle)
    model = make_model("anthropic", fake)
    got = go(model, ask(model, "q0", "q1"))
    err = got["q1"]
    assert isinstance(err, toolwire.ProviderError)
    assert (err.status, err.error_type, err.message) == (400, "invalid_request_error", "duplicate line")


@pytest.mark.parametrize("vendor", ["openai", "openai-chat"])
def test_openai_an_answer_is_kept_over_a_duplicate_error_line(vendor: str) -> None:
    def failed(line: dict[str, Any]) -> str:
        bad = dict(line, response={"status_code": 500, "body": {"error": {"message": "boom", "type": "server_error"}}})
        return json.dumps(line) + "\n" + json.dumps(bad)

    from .test_batch_bad_answers import _replace

    fake = MangledOpenAI(_replace("q1", failed))
    model = make_model(vendor, fake)
    got = go(model, ask(model, "q0", "q1"))
    assert isinstance(got["q1"], toolwire.Response), got["q1"]
    assert got["q1"].tool_calls[0].arguments == {"a": 2, "b": 40}
