"""The live suite: toolwire against a real llama.cpp llama-server (scripts/llama_server/run_live.sh).

Skips with one reason without a server. With ``--toolwire-record`` each scenario's traffic is
written to tests/cassettes/llama_server/<scenario>.yaml (and its summary next to it), which
tests/live/test_llama_cassettes.py replays offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scenarios import SCENARIOS, check

from toolwire.testing.pytest_plugin import cassette

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes" / "llama_server"

pytestmark = pytest.mark.live


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name: str, live_base_url: str, toolwire_record_mode: str) -> None:
    if toolwire_record_mode == "record":
        with cassette(CASSETTES / f"{name}.yaml", record=True):
            s = SCENARIOS[name](live_base_url)
        (CASSETTES / f"{name}.summary.json").write_text(json.dumps(s, indent=2, sort_keys=True) + "\n")
    else:
        s = SCENARIOS[name](live_base_url)
    check(name, s)
