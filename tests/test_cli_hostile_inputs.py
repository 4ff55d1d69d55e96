"""``toolwire`` commands given unusual input, run as real processes: one tool found twice by
``run --tools`` is one tool (as ``lint`` counts it), and Ctrl-C anywhere in a command says so in
one line and exits 130, never a silent exit or a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ONE = '''
import toolwire


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''

PLAIN = '''
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''


def _toolwire(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWIRE_")}
    env["COLUMNS"] = "200"
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *argv], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.mark.parametrize(
    ("files", "tools"),
    [
        ({"tools.py": ONE + "\nplus = add\n"}, ["-t", "tools.py"]),  # one Tool under two names
        ({"tools.py": ONE}, ["-t", "tools.py", "-t", "tools.py:add"]),  # the file, then its tool by name
        ({"tools.py": PLAIN}, ["-t", "tools.py:add,add"]),  # a plain function named twice
        ({"tools.py": PLAIN}, ["-t", "tools.py:add", "-t", "tools.py:add"]),
    ],
)
def test_run_keeps_one_tool_found_twice(tmp_path: Path, files: dict[str, str], tools: list[str]) -> None:
    """It was refused: 'two tools are named 'add'; tool names must be unique in a run' (exit 2),
    while ``toolwire lint tools.py`` counted one tool."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    res = _toolwire(["run", "-m", "test", *tools, "--json", "Add"], tmp_path)
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout)
    runs = [run for turn in result["turns"] for run in turn["tool_runs"]]
    assert [run["call"]["name"] for run in runs] == ["add"]  # one tool, called once
    assert result["tool_errors"] == 0
    assert result["text"] == "Tool results:\nadd: 2"


def test_run_still_refuses_two_different_tools_with_one_name(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        ONE + '\n\n@toolwire.tool(name="add")\ndef other(a: int) -> int:\n    """Another."""\n    return a\n'
    )
    res = _toolwire(["run", "-m", "test", "-t", "tools.py", "Add"], tmp_path)
    assert res.returncode == 2
    assert "two tools are named 'add'" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("command", [["run", "-m", "test", "-t", "tools.py", "hi"], ["lint", "tools.py"]])
def test_ctrl_c_while_loading_tools_says_interrupted_and_exits_130(tmp_path: Path, command: list[str]) -> None:
    """It exited 130 without a word (typer turns KeyboardInterrupt into a silent exit): the
    user could not tell an interrupted command from one that ended."""
    ready = tmp_path / "ready"
    (tmp_path / "tools.py").write_text(
        f"import pathlib, time\npathlib.Path({str(ready)!r}).write_text('x')\ntime.sleep(60)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWIRE_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolwire", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
        # as from a terminal: SIGINT at its default, so that Python installs its Ctrl-C handler
        # (a child of a test run started in the background inherits SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ready.exists()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == f"toolwire {command[0]}: interrupted"
    assert out == ""


@pytest.mark.parametrize(
    ("args", "what"),
    [
        ([b"caf\xe9"], "PROMPT is not UTF-8 text: byte 0xE9 at character 4"),
        ([b"-i", b"\xff rules", b"hi"], "--instructions is not UTF-8 text: byte 0xFF at character 1"),
        ([b"-s", b"final_text=caf\xe9", b"hi"], "--setting 'final_text' is not UTF-8 text: byte 0xE9"),
    ],
)
def test_run_refuses_text_arguments_that_are_not_utf8(tmp_path: Path, args: list[bytes], what: str) -> None:
    """A Latin-1 terminal's 'café' (0xE9) reached the model as 'caf\\ufffd' without a word: Python
    reads the byte as a lone surrogate, which a request can only carry as U+FFFD."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWIRE_")}
    env["COLUMNS"] = "300"
    res = subprocess.run(
        [sys.executable.encode(), b"-m", b"toolwire", b"run", b"-m", b"test", *args],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    err = res.stderr.decode("utf-8", "backslashreplace")
    assert res.returncode == 2, err
    assert err.startswith(f"toolwire run: {what}")
    assert len(err.strip().splitlines()) == 1
    assert res.stdout == b""


@pytest.mark.parametrize(
    ("target", "said"),
    [
        # each was "cannot import module ...: No module named ..."
        ("tools.json", "'tools.json' is not a Python file: --tools takes a .py file or a module name"),
        ("tools.txt", "'tools.txt' is not a Python file"),
        ("sub", None),  # a folder given as a path: filled in below
        ("./missing", "'./missing' is no such file or folder"),
    ],
)
def test_run_tools_that_is_not_a_python_file_or_module_says_what_it_is(
    tmp_path: Path, target: str, said: str | None
) -> None:
    (tmp_path / "tools.json").write_text('[{"name": "add", "input_schema": {"type": "object"}}]')
    (tmp_path / "tools.txt").write_text(ONE)
    (tmp_path / "sub").mkdir()
    if target == "sub":
        target = str(tmp_path / "sub")
        said = f"{target!r} is a folder: --tools takes a .py file or a module name"
    res = _toolwire(["run", "-m", "test", "-t", target, "hi"], tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith(f"toolwire run: {said}")
    assert "No module named" not in res.stderr
    assert res.stdout == ""


def test_lint_refuses_an_unknown_ignore_rule_with_the_closest(tmp_path: Path) -> None:
    """``--ignore descripton-missing`` (misspelt) skipped nothing without a word, exit 0."""
    (tmp_path / "tools.py").write_text(ONE)
    res = _toolwire(["lint", "tools.py", "--ignore", "descripton-missing"], tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith(
        "toolwire lint: --ignore: no lint rule 'descripton-missing'. Did you mean 'description-missing'?"
    )
    assert res.stdout == ""
    res = _toolwire(["lint", "tools.py", "--ignore", "description-no-when"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "description-no-when" not in res.stdout


def test_lint_tools_refuses_unknown_select_and_ignore_ids() -> None:
    from toolwire.design.lint import lint_tools
    from toolwire.errors import ConfigurationError
    from toolwire.tools import Tool

    tool = Tool("add", "Add two numbers. Use it to add.", {"type": "object", "properties": {}})
    for kwargs in ({"select": ["schema-invalidd"]}, {"ignore": ["nope"]}):
        with pytest.raises(ConfigurationError) as info:
            lint_tools([tool], ["openai"], token_costs=False, **kwargs)
        assert "no lint rule" in str(info.value)
    # a single id given as text is one id, not its letters
    assert lint_tools([tool], ["openai"], token_costs=False, select="description-missing").findings == []
