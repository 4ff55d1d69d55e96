"""``toolwire lint mcp:<server>``: an MCP server's tools reviewed per vendor."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

HERE = Path(__file__).parent


def _lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "lint", *args], capture_output=True, text=True, timeout=120
    )


def test_lint_an_mcp_server_over_stdio() -> None:
    out = _lint(f"mcp:{sys.executable} {HERE / 'awkward_server.py'}", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["summary"]["tools"] == 7
    assert report["summary"]["mcp_renames"] == {"files_read": "files.read"}
    found = {(f["rule"], f.get("provider"), f["tool"]) for f in report["findings"]}
    assert {
        ("description-no-when", None, "lookup"),
        ("param-undescribed", None, "set_country"),
        ("translation-change", "gemini", "fail"),
        ("translation-lossy", "anthropic", "lookup"),
    } <= found  # a root anyOf, as MCP servers publish
    lossy = next(
        f
        for f in report["findings"]
        if (f["rule"], f.get("provider"), f["tool"]) == ("translation-lossy", "anthropic", "lookup")
    )
    assert lossy["pointer"] == "/input_schema/anyOf"
    # the 600-value enum is what makes this tool expensive on every vendor
    cost = report["summary"]["token_cost"]
    assert all(cost[p]["tools"]["set_country"] > 1000 for p in ("anthropic", "openai", "openai-chat", "gemini"))


def test_lint_text_output_names_the_rewritten_mcp_name() -> None:
    out = _lint(f"mcp:{sys.executable} {HERE / 'awkward_server.py'}")
    assert out.returncode == 0, out.stderr
    assert "mcp-name files.read is named files_read for the model" in " ".join(out.stdout.split())


def test_lint_an_mcp_server_that_does_not_start() -> None:
    out = _lint(f"mcp:{sys.executable} -c 'import sys; sys.exit(4)'")
    assert out.returncode == 2
    assert out.stderr.startswith("toolwire lint: could not connect to the MCP server")
    assert len(out.stderr.strip().splitlines()) == 1
