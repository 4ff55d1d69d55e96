"""What a run's project copy does with the entries a real project folder may hold besides files,
folders and links."""

from __future__ import annotations

import os
import socket
import stat
import textwrap
from pathlib import Path

import pytest

from toolwire.experiments import ExperimentSpecError, load_spec
from toolwire.experiments.runner import PendingRun, prepare_project

SPEC = """\
name = "t"
runs = 1
models = ["scripted:claude-sonnet-4-5"]
[task]
prompt = "fix it"
project = "proj"
checker = "true"
[layers]
a = "toolwire.design.files:file_tools"
"""


def _spec(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "data.txt").write_text("data\n")
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(SPEC))
    return path


def _run() -> PendingRun:
    return PendingRun("t/a/scripted:claude-sonnet-4-5/0", "a", "scripted:claude-sonnet-4-5", 0, 1)


def test_a_named_pipe_is_made_again_in_the_copy(tmp_path: Path) -> None:
    """Before, the copy failed ('`.../proj/pipe` is a named pipe') and the command ended with
    exit 2 and Python's list of (source, destination, reason) tuples."""
    exp = load_spec(_spec(tmp_path))
    os.mkfifo(tmp_path / "proj" / "pipe", 0o640)
    root = prepare_project(exp, _run())
    assert stat.S_ISFIFO(os.lstat(root / "pipe").st_mode)
    assert stat.S_IMODE(os.lstat(root / "pipe").st_mode) == 0o640
    assert (root / "data.txt").read_text() == "data\n"


def test_a_socket_is_a_spec_error_naming_it_and_what_to_do(tmp_path: Path) -> None:
    """Before: OSError '[('/abs/proj/dev.sock', '/abs/...', "[Errno 6] No such device or address:
    '/abs/proj/dev.sock'")]'."""
    spec = _spec(tmp_path)
    exp = load_spec(spec)
    short = Path(os.getcwd())
    os.chdir(tmp_path / "proj")  # (a socket's path has a short length limit)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind("dev.sock")
    finally:
        os.chdir(short)
    with pytest.raises(ExperimentSpecError) as info:
        prepare_project(exp, _run())
    assert str(info.value) == (
        f"{spec}: task.project: 'dev.sock' in the project folder could not be copied for a run: it is a socket, "
        "which cannot be copied; remove it from the folder (a file that cannot be read: make it readable), so "
        "that every run gets the whole project"
    )
    assert info.value.field == "task.project"
    work = tmp_path / "t.sqlite.work" / "a" / "scripted_claude-sonnet-4-5"
    assert list(work.iterdir()) == []  # the half-made copy is removed


def test_a_file_that_cannot_be_read_is_named_with_the_reason_alone(tmp_path: Path, monkeypatch) -> None:
    """The OS's reason without the absolute path it names (a file of mode 000, read by a user that is
    not root, fails so; the read is made to fail here, as the tests may run as root)."""
    import shutil

    spec = _spec(tmp_path)
    exp = load_spec(spec)
    (tmp_path / "proj" / "locked.txt").write_text("x")
    (tmp_path / "proj" / "more.txt").write_text("x")
    real = shutil.copy2

    def copy2(src: str, dst: str) -> object:
        if Path(src).name != "data.txt":
            raise PermissionError(13, "Permission denied", src)
        return real(src, dst)

    monkeypatch.setattr(shutil, "copy2", copy2)
    with pytest.raises(ExperimentSpecError) as info:
        prepare_project(exp, _run())
    text = str(info.value)
    assert text.startswith(f"{spec}: task.project: '")
    assert "' in the project folder could not be copied for a run: Permission denied (and 1 more entry);" in text
    assert str(tmp_path) not in text.split("task.project:", 1)[1]
