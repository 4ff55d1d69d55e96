"""Usage means the same on every API: on every recorded response, the decoded Usage equals the
normalised meaning computed here, independently of the adapters, from the vendor's raw counters
that expected.json lists (input includes cache reads and writes, output includes reasoning)."""

from __future__ import annotations

import json

import pytest

from toolwire.testing.cassettes import recordings_dir
from toolwire.testing.replay import replay_paths

ROOT = recordings_dir()
needs_recordings = pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")


def normalised(folder: str, raw: dict) -> dict:
    """The documented meaning, from the vendor's own field names (docs/rules/index.md)."""
    g = lambda k: raw.get(k) or 0  # noqa: E731
    if folder == "anthropic":
        return {
            "input_tokens": g("input_tokens") + g("cache_read_input_tokens") + g("cache_creation_input_tokens"),
            "output_tokens": g("output_tokens"),
        }
    if folder == "openai-chat":
        return {"input_tokens": g("prompt_tokens"), "output_tokens": g("completion_tokens")}
    if folder == "openai-responses":
        return {"input_tokens": g("input_tokens"), "output_tokens": g("output_tokens")}
    if folder == "gemini":
        return {
            "input_tokens": g("promptTokenCount") + g("toolUsePromptTokenCount"),
            "output_tokens": g("candidatesTokenCount") + g("thoughtsTokenCount"),
        }
    raise AssertionError(folder)


def parts(folder: str, raw: dict) -> dict:
    if folder == "anthropic":
        return {
            "cache_read_tokens": raw.get("cache_read_input_tokens"),
            "cache_write_tokens": raw.get("cache_creation_input_tokens"),
        }
    if folder in ("openai-chat", "openai-responses"):
        return {"cache_read_tokens": raw.get("cached_tokens"), "reasoning_tokens": raw.get("reasoning_tokens")}
    return {"reasoning_tokens": raw.get("thoughtsTokenCount")}


@needs_recordings
def test_every_recorded_usage_has_the_normalised_meaning() -> None:
    expected = json.loads((ROOT / "expected.json").read_text())["files"]
    compared = 0
    with_cache_or_reasoning = 0
    for name, entry in sorted(expected.items()):
        folder = name.split("/")[0]
        doc = replay_paths([str(ROOT / name)])
        got = {r["interaction"]: r["usage"] for r in doc["files"][0]["responses"]}
        for want in entry["responses"]:
            raw = (want.get("usage") or {}).get("raw")
            if not raw or want["interaction"] not in got:
                continue
            u = got[want["interaction"]]
            assert {k: u[k] for k in ("input_tokens", "output_tokens")} == normalised(folder, raw), (
                name,
                want["interaction"],
                raw,
            )
            for k, v in parts(folder, raw).items():
                if v is not None:
                    assert u[k] == v, (name, want["interaction"], k)
                    with_cache_or_reasoning += bool(v)
            # a part is never larger than its whole; the vendor's own total agrees where it reports one
            assert (u.get("cache_read_tokens") or 0) + (u.get("cache_write_tokens") or 0) <= u["input_tokens"]
            assert (u.get("reasoning_tokens") or 0) <= u["output_tokens"]
            total = raw.get("total_tokens", raw.get("totalTokenCount"))
            if total is not None:
                assert u["input_tokens"] + u["output_tokens"] == total, (name, want["interaction"], raw)
            compared += 1
    assert compared >= 90 and with_cache_or_reasoning >= 20  # most recordings, reasoning ones included
