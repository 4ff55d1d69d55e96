"""Offline regression tests from the committed llama-server recordings (tests/cassettes/llama_server/).

Each cassette was recorded by the live suite (``run_live.sh --toolwire-record``) against a real
llama.cpp server and SmolLM2-135M-Instruct; here the same scenario runs again with the cassette
answering (no server, no network) and must decode and do exactly what the recording summary
says, and keep the scenario's invariants. The recorded deviations of the server are pinned with
their exact values below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scenarios import SCENARIOS, check

from toolwire.testing.pytest_plugin import cassette

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes" / "llama_server"
BASE = "http://127.0.0.1:8080/v1"  # any loopback URL: cassettes match on method, path and query
RECORDED = sorted(p.name.removesuffix(".yaml") for p in CASSETTES.glob("*.yaml"))


def replay(name: str) -> dict:
    with cassette(CASSETTES / f"{name}.yaml"):
        return SCENARIOS[name](BASE)


@pytest.mark.parametrize("name", RECORDED)
def test_recording_replays_to_its_summary(name: str) -> None:
    s = replay(name)
    assert s == json.loads((CASSETTES / f"{name}.summary.json").read_text())
    check(name, s)


def test_every_scenario_has_a_recording() -> None:
    assert RECORDED == sorted(SCENARIOS)


def test_toolwire_replay_passes_on_the_recordings() -> None:
    """``toolwire replay tests/cassettes``: every recorded response decodes and every request
    toolwire sends again matches the recorded one."""
    from toolwire.testing.replay import replay_paths

    doc = replay_paths([str(CASSETTES.parent)])
    totals = doc["totals"]
    assert totals["files"] == len(RECORDED) and totals["files_ok"] == totals["files"], doc["files"]
    assert totals["errors"] == 0 and totals["requests_matched"] == totals["requests"]
