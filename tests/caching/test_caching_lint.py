"""``toolwire lint`` reports what a cached prefix saves on the tool definitions."""

from __future__ import annotations

import json

import pytest

from toolwire.cli import main
from toolwire.design.lint import lint_tools
from toolwire.tools import Tool

BIG = Tool(
    "search_tickets",
    "Search the ticket tracker. Use it before answering any question about a ticket. " * 80,
    {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "words to search for"}},
        "required": ["query"],
    },
)
SMALL = Tool("ping", "Check the service answers. Use it when a call failed.", {"type": "object", "properties": {}})


def test_prompt_cache_summary_matches_the_token_cost() -> None:
    report = lint_tools([BIG, SMALL], ["anthropic", "openai", "gemini"])
    costs, cache = report.summary["token_cost"], report.summary["prompt_cache"]
    assert set(cache) == {"anthropic", "openai", "gemini"}
    for p in cache:
        assert cache[p]["tokens"] == costs[p]["tokens"] > 0
    assert cache["anthropic"]["min_prefix_tokens"] == 1024 and cache["openai"]["min_prefix_tokens"] == 1024
    assert cache["gemini"]["min_prefix_tokens"] == 1024
    # the long description pushes the set past 1024 tokens everywhere; the small tool alone does not
    assert all(c["cacheable_alone"] for c in cache.values())
    small = lint_tools([SMALL], ["anthropic"]).summary["prompt_cache"]["anthropic"]
    assert small["cacheable_alone"] is False and small["tokens"] < 1024


def test_cli_prints_the_saving(capsys, tmp_path) -> None:
    specs = tmp_path / "tools.json"
    specs.write_text(
        json.dumps([{"name": SMALL.name, "description": SMALL.description, "input_schema": SMALL.input_schema}])
    )
    with pytest.raises(SystemExit):
        main(["lint", str(specs), "--provider", "openai"])
    out = capsys.readouterr().out
    tokens = lint_tools([SMALL], ["openai"]).summary["token_cost"]["openai"]["tokens"]
    assert (
        "Prompt caching (setting cache=True): the tool definitions alone are under the minimum cached prefix "
        f"(openai {tokens} of 1024 tokens); later requests read them from the cache once the instructions and "
        "history add the rest"
    ) in " ".join(out.split())


def test_cli_says_once_that_a_small_tool_set_is_below_every_minimum(capsys, tmp_path) -> None:
    """A small tool set gets one caching line for all four APIs, not a paragraph each; a set
    past the minimum gets its own line per API."""
    specs = tmp_path / "tools.json"
    specs.write_text(
        json.dumps([{"name": SMALL.name, "description": SMALL.description, "input_schema": SMALL.input_schema}])
    )
    with pytest.raises(SystemExit):
        main(["lint", str(specs)])
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("Prompt caching") == 1
    costs = lint_tools([SMALL]).summary["token_cost"]
    listed = ", ".join(f"{p} {costs[p]['tokens']} of 1024" for p in ("anthropic", "openai", "openai-chat", "gemini"))
    assert f"under each API's minimum cached prefix ({listed} tokens)" in out
