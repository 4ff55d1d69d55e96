"""The peer-library benchmark (benchmarks/peers/) without its own environment.

The benchmark runs in environments of its own (pydantic-ai, LiteLLM and any-llm are no
dependency of toolwire): these tests check that it stays out of the project's lock, that its
command-line help works without the peer libraries, and that its run checker fails a loop that
did not run the tool. No timing here.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "benchmarks" / "peers"
PEER_DISTRIBUTIONS = ("pydantic-ai-slim", "litellm", "any-llm-sdk")


def _load_peers():
    spec = importlib.util.spec_from_file_location("peer_benchmark", PEERS / "peers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_peer_libraries_are_pinned_in_their_own_lock_and_not_in_the_projects():
    main_lock = tomllib.loads((ROOT / "uv.lock").read_text())
    main_names = {p["name"] for p in main_lock["package"]}
    assert not main_names & set(PEER_DISTRIBUTIONS), main_names & set(PEER_DISTRIBUTIONS)
    main = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert all("benchmarks" not in m for m in main["tool"]["uv"]["workspace"]["members"])
    peers = tomllib.loads((PEERS / "pyproject.toml").read_text())
    assert peers["tool"]["uv"]["workspace"]["members"] == []  # its own workspace root: uv looks no further up
    peer_lock = tomllib.loads((PEERS / "uv.lock").read_text())
    pinned = {p["name"]: p for p in peer_lock["package"]}
    for dist in PEER_DISTRIBUTIONS:
        assert pinned[dist]["source"] == {"registry": "https://pypi.org/simple"}, dist
    # toolwire and its adapters come from this checkout
    assert pinned["toolwire"]["source"] == {"editable": "../../"}
    assert pinned["toolwire-anthropic"]["source"] == {"editable": "../../adapters/anthropic"}


def test_the_help_runs_without_the_peer_libraries():
    out = subprocess.run(
        [sys.executable, str(PEERS / "peers.py"), "--help"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "usage: peers.py" in out.stdout
    for word in ("pydantic-ai", "LiteLLM", "any-llm", "--cpu", "--rounds", "--api"):
        assert word in out.stdout, word


def test_an_unknown_api_is_refused_with_the_known_ones():
    out = subprocess.run(
        [sys.executable, str(PEERS / "peers.py"), "--api", "openai"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "unknown API openai; the APIs are openai-chat, anthropic, gemini" in out.stderr


def test_the_run_checker_fails_a_loop_that_did_not_send_the_tools_result():
    httpx2 = pytest.importorskip("httpx2")
    peers = _load_peers()
    canned = peers.CheckedCanned("anthropic")
    client = httpx2.Client(transport=canned.transport, base_url="https://api.anthropic.com")

    def loop(second_body: bytes, path: str = "/v1/messages") -> str:
        canned.reset(2)
        first = client.post("/v1/messages", content=b'{"messages":[{"role":"user","content":"go"}]}').json()
        assert first["content"][0]["type"] == "tool_use"  # the canned vendor's first answer calls the tool
        return client.post(path, content=second_body).json()["content"][0]["text"]

    good = b'{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"result for step 1 (1)"}]}'
    canned.check("loop", loop(good))  # two requests, the result sent once, "done" answered: passes

    with pytest.raises(AssertionError, match="sent 0 times, not once"):
        canned.check("loop", loop(b'{"content":"no tool was run"}'))
    with pytest.raises(AssertionError, match="requests to"):
        canned.check("loop", loop(good, path="/v1/complete"))
    assert loop(good) == "done"
    with pytest.raises(AssertionError, match="final text 'nothing', not 'done'"):
        canned.check("loop", "nothing")
    canned.reset(2)
    with pytest.raises(AssertionError, match="0 requests instead of 2"):
        canned.check("loop", "done")
