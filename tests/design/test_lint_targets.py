"""Every ``toolwire lint TARGET`` form docs/lint.md documents works, through the real CLI:
``pkg.module``, ``pkg.module:attr``, ``pkg.module:a,b``, ``file.py``, ``file.py:attr``,
``file.py:a,b`` (several plain typed functions of one file, as ``toolwire run --tools`` takes
them), ``tools.json``; a misspelt file, module or name exits 2 with one line naming the closest
one ("did you mean ...?")."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterator

import pytest
from typer.testing import CliRunner

import toolwire.cli.lint_cmd  # noqa: F401 - registers the lint command on the app
from toolwire.cli import app
from toolwire.design.lint import load_tools

runner = CliRunner()

TOOLS = '''
import toolwire


def add(a: int, b: int) -> int:
    """Add two integers. Use it for sums."""
    return a + b


def multiply(a: int, b: int) -> int:
    """Multiply two integers. Use it for products."""
    return a * b


@toolwire.tool
def echo(text: str) -> str:
    """Echo the text back. Use it to repeat something."""
    return text


def make():
    return [echo]


NOT_A_TOOL = 3
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "lintme_tools.py").write_text(TOOLS)
    spec = [
        {"name": "lookup", "description": "Look a word up. Use it for definitions.", "input_schema": {"type": "object"}}
    ]
    (tmp_path / "lintme_tools.json").write_text(json.dumps(spec))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("lintme_tools", None)


def _names(target: str) -> list[str]:
    """The names of the tools the CLI lints for ``target`` (counted by the CLI, named by
    ``load_tools``, which the CLI calls)."""
    res = runner.invoke(app, ["lint", target, "--json", "-p", "openai"])
    assert res.exit_code in (0, 1), res.output
    names = sorted(t.name for t in load_tools(target))
    assert json.loads(res.stdout)["summary"]["tools"] == len(names)
    return names


def _error(target: str) -> str:
    res = runner.invoke(app, ["lint", target, "--json", "-p", "openai"])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    err = res.stderr.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"toolwire lint: lint target {target!r}"), err
    return err


@pytest.mark.parametrize(
    ("target", "names"),
    [
        ("lintme_tools", ["echo"]),
        ("lintme_tools:echo", ["echo"]),
        ("lintme_tools:make", ["echo"]),
        ("lintme_tools:add", ["add"]),
        ("lintme_tools:add,multiply", ["add", "multiply"]),
        ("lintme_tools.py", ["echo"]),
        ("lintme_tools.py:add", ["add"]),
        ("lintme_tools.py:add,multiply", ["add", "multiply"]),
        ("lintme_tools.py:add, echo", ["add", "echo"]),
        ("lintme_tools.py:echo,make", ["echo"]),  # the same tool twice is linted once
        ("lintme_tools.json", ["lookup"]),
    ],
)
def test_every_documented_target_form_loads_its_tools(folder: Path, target: str, names: list[str]) -> None:
    assert _names(target) == names


def test_an_absolute_file_path_with_several_names(folder: Path) -> None:
    assert _names(f"{folder / 'lintme_tools.py'}:multiply,add") == ["add", "multiply"]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            "lintme_tools.py:ad",
            "the module has no 'ad'; did you mean 'add'? Its tools and functions: add, multiply, echo, make.",
        ),
        ("lintme_tools:add,mutiply", "the module has no 'mutiply'; did you mean 'multiply'?"),
        ("lintme_tool.py", "no such file; did you mean 'lintme_tools.py'?"),
        ("lintme_tool.json", "no such file; did you mean 'lintme_tools.json'?"),
        ("lintme_tool", "no module named 'lintme_tool' on the import path; did you mean 'lintme_tools'?"),
        ("json.decodr", "no module named 'json.decodr' on the import path; did you mean 'json.decoder'"),
        (
            "lintme_tools.py:add,,multiply",
            "an empty name after ':' (write lintme_tools.py:name or lintme_tools.py:name1,name2)",
        ),
        ("lintme_tools.py:", "an empty name after ':'"),
        ("lintme_tools.py:NOT_A_TOOL", "'NOT_A_TOOL' is a int, not a Tool or a list of Tools"),
        ("lintme_tools.py:make.x", "'make' has no 'x'"),
    ],
)
def test_a_misspelt_target_exits_2_with_the_closest_name(folder: Path, target: str, expected: str) -> None:
    assert expected in _error(target)


def test_a_module_of_plain_functions_only_says_how_to_name_them(folder: Path) -> None:
    (folder / "plain_only.py").write_text(TOOLS.replace("@toolwire.tool\n", ""))
    err = _error("plain_only.py")
    assert "defines no Tool at top level" in err
    assert "name them: plain_only.py:add,multiply; its functions: add, multiply, echo, make" in err
