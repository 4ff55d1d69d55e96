"""Counted nouns in what toolwire prints are singular for 1: "1 file", not "1 files" (the replay
totals said "1/1 files ok · 1 responses · 1 tool calls · 1/1 requests matched", lint's schema
findings "at most 1 item(s)", the file tools' listings "1 directories, 1 files, 1 entries")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

import toolwire
from toolwire.cli import main
from toolwire.design.files import file_tools


def test_plural() -> None:
    from toolwire._words import plural

    assert [plural(n, "tool call") for n in (0, 1, 2)] == ["0 tool calls", "1 tool call", "2 tool calls"]
    assert [plural(n, "entry") for n in (1, 2)] == ["1 entry", "2 entries"]
    assert [plural(n, "expected mismatch") for n in (1, 2)] == ["1 expected mismatch", "2 expected mismatches"]
    assert plural(1_500, "process") == "1,500 processes"
    assert plural(2, "child", "children") == "2 children"


_TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather in a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]


def _cassette(path, city: str) -> None:
    body = {
        "model": "claude-haiku-4-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": f"Weather in {city}?"}],
        "tools": _TOOLS,
    }
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": city}}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 2},
    }
    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
            "headers": {},
            "body": json.dumps(body),
        },
        "response": {
            "status": {"code": 200},
            "headers": {"content-type": ["application/json"]},
            "body": {"string": json.dumps(answer)},
        },
    }
    path.write_text(yaml.safe_dump({"interactions": [interaction]}))


@pytest.mark.parametrize(
    ("files", "totals"),
    [
        (
            1,
            "1/1 file ok · 1 response · 1 tool call · 1/1 request matched · 0 expected mismatches · 0 errors · 0 notes",
        ),
        (
            2,
            "2/2 files ok · 2 responses · 2 tool calls · 2/2 requests matched · 0 expected mismatches · 0 errors · "
            "0 notes",
        ),
    ],
)
def test_replay_totals_line(tmp_path, files: int, totals: str) -> None:
    paths = []
    for i, city in enumerate(["Paris", "Oslo"][:files]):
        paths.append(tmp_path / f"rec{i}.yaml")
        _cassette(paths[-1], city)
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "replay", *map(str, paths)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == totals


def _lint_messages(capsys, tmp_path, n: int) -> list[str]:
    schema = {
        "type": "object",
        "properties": {
            "values": {
                "type": "array",
                "description": "The values.",
                "prefixItems": [*({"type": "string"} for _ in range(n)), {"not": {}}],
            },
            "tags": {
                "type": "array",
                "description": "The tags.",
                "contains": {"type": "string"},
                "minContains": n,
                "maxItems": 0,
            },
        },
        "required": ["values"],
    }
    spec = tmp_path / "tools.json"
    spec.write_text(json.dumps([{"name": "pick", "description": "Pick values.", "input_schema": schema}]))
    with pytest.raises(SystemExit):
        main(["lint", str(spec), "-p", "anthropic", "--json"])
    report = json.loads(capsys.readouterr().out)
    return [f["message"] for f in report["findings"] if f["rule"] == "schema-unsatisfiable"]


@pytest.mark.parametrize(
    ("n", "items", "matching"), [(1, "1 item", "1 matching item"), (2, "2 items", "2 matching items")]
)
def test_lint_schema_findings(capsys, tmp_path, n: int, items: str, matching: str) -> None:
    messages = _lint_messages(capsys, tmp_path, n)
    assert any(
        f"The array at /input_schema/properties/values can therefore hold at most {items}." in m for m in messages
    )
    assert any(f'"contains" needs {matching} but "maxItems" is 0, so no array fits' in m for m in messages)


def test_list_dir_counts(tmp_path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    list_dir = next(t for t in file_tools(tmp_path) if t.name == "list_dir")
    text = (
        toolwire.run_sync(
            toolwire.model("scripted", responses=[toolwire.testing.call("list_dir", {"path": "."}), "done"]),
            "list",
            tools=[list_dir],
        )
        .tool_runs[0]
        .result.text
    )
    lines = text.splitlines()
    assert lines[0] == ".: 1 directory, 1 file, 2 bytes in files"
    assert lines[1] == "one/  dir, 1 entry"
    assert lines[2] == "b.txt  file, 2 bytes, 1 line"


@pytest.mark.parametrize(("cap", "said"), [(1, "1 tool call"), (2, "2 tool calls")])
def test_tool_call_limit_texts(cap: int, said: str) -> None:
    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    calls = [toolwire.testing.call("add", {"a": i, "b": i}) for i in range(3)]
    model = toolwire.model("scripted", responses=[calls, "done"])
    with pytest.raises(toolwire.UsageLimitExceeded) as info:
        toolwire.run_sync(model, "add", tools=[add], limits=toolwire.Limits(max_tool_calls=cap))
    assert (
        info.value.result.tool_runs[-1].result.content
        == f"Not run: the run reached its limit of {said} (max_tool_calls)."
    )
    assert str(info.value).startswith(f"tool call limit reached: {said} (max_tool_calls); ")
