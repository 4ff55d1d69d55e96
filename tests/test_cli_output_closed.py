"""A reader that stops reading (``toolwire run ... | head -1``) is not a failure of the run:
every command stops quietly with exit code 141 (128 + SIGPIPE, as a shell reports a program
the signal killed), never 1 (a provider error) or 2 (bad usage), and never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXIT_OUTPUT_CLOSED = 141  # toolwire.cli.EXIT_OUTPUT_CLOSED

CASSETTE = Path(__file__).parent / "cassettes" / "llama_server" / "cut_off.yaml"


def _closed_stdout(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``toolwire argv`` with its standard output a pipe whose reader is closed before the
    command writes a byte: every write to it fails with EPIPE, deterministically."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWIRE_")}
    env["COLUMNS"] = "100"
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolwire", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(
        "import toolwire\n\n\n@toolwire.tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b\n"
    )
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--model", "test", "hi"],
        ["run", "--model", "test", "--json", "hi"],
        ["demo"],
        ["replay", str(CASSETTE)],
        ["replay", "--json", str(CASSETTE)],
    ],
    ids=["run", "run-json", "demo", "replay", "replay-json"],
)
def test_closed_output_exits_141_without_a_word(tmp_path, argv):
    argv = [*argv, "--workdir", str(tmp_path / "work")] if argv == ["demo"] else argv
    code, err = _closed_stdout(argv, tmp_path)
    assert (code, err) == (EXIT_OUTPUT_CLOSED, "")
    assert EXIT_OUTPUT_CLOSED == 128 + 13


@pytest.mark.parametrize("as_json", [False, True])
def test_lint_closed_output_exits_141(tmp_path, tools_file, as_json):
    code, err = _closed_stdout(["lint", *(["--json"] if as_json else []), str(tools_file)], tmp_path)
    assert (code, err) == (EXIT_OUTPUT_CLOSED, "")


def test_run_closed_output_still_saves_the_state(tmp_path, tools_file):
    state = tmp_path / "state.json"
    code, err = _closed_stdout(
        ["run", "--model", "test", "--tools", str(tools_file), "--save", str(state), "add 2 and 3"], tmp_path
    )
    assert (code, err) == (EXIT_OUTPUT_CLOSED, "")
    saved = json.loads(state.read_text())
    assert saved["conversation"]["messages"][0]["parts"][0]["text"] == "add 2 and 3"


def test_head_dash_1_through_a_shell(tmp_path, tools_file):
    """The breaker's own command: ``toolwire run ... | head -1`` as a shell runs it."""
    prompt = "\\n".join(f"line {i}" for i in range(11000))
    script = (
        f'"{sys.executable}" -m toolwire run --model test --json "$(printf "{prompt}")" | head -1 >/dev/null; '
        'echo "${PIPESTATUS[0]}"'
    )
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.stdout.strip() == str(EXIT_OUTPUT_CLOSED) and proc.stderr == ""


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["--version"],
        ["run", "--help"],
        ["demo", "--help"],
        ["lint", "--help"],
        ["replay", "--help"],
        ["experiment"],
        ["experiment", "--help"],
        ["experiment", "run", "--help"],
        ["experiment", "report", "--help"],
    ],
    ids=lambda argv: " ".join(argv) or "no-args",
)
def test_help_and_version_on_closed_output_exit_141_without_a_word(tmp_path, argv):
    """``toolwire run --help | head -1``: the help (printed by typer through rich, whose own
    console exits 1 on a broken pipe) and ``--version`` stop like every command's output."""
    code, err = _closed_stdout(argv, tmp_path)
    assert (code, err) == (EXIT_OUTPUT_CLOSED, "")


def test_run_help_head_dash_1_through_a_shell(tmp_path):
    """The reported command as a shell runs it."""
    script = f'"{sys.executable}" -m toolwire run --help | head -1; echo "status=${{PIPESTATUS[0]}}"'
    env = {**os.environ, "COLUMNS": "100"}
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    lines = proc.stdout.splitlines()
    # the output fits a pipe's buffer, so a fast writer may finish before head exits: 0 is fine then
    assert lines[-1] in (f"status={EXIT_OUTPUT_CLOSED}", "status=0") and proc.stderr == "", proc
    assert len(lines) == 2  # head's one line (the help's first line is blank padding), then the status


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["--version"]])
def test_help_and_version_still_exit_0_when_read(tmp_path, argv):
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.strip()
