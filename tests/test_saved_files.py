"""Saved runs and conversations on disk: a file that is another kind of save, a path that cannot be
written, and ``toolwire run --save`` with such a path (refused before the run, not after it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import toolwire
from toolwire import Conversation, RunResult, RunState
from toolwire.testing import ScriptedModel, call


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two numbers. Use it for sums."""
    return a + b


def _result() -> RunResult:
    model = ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})], "3"])
    return toolwire.run_sync(model, "1+2?", tools=[add], instructions="Be brief.")


def test_a_saved_run_read_as_a_conversation_gives_its_conversation() -> None:
    """Conversation.from_json(state.to_json()) gave an empty conversation, without an error: a run
    saved with RunState.save (or RunResult.to_json) and continued with conversation= lost its
    history silently."""
    result = _result()
    for saved in (result.state.to_json(), result.to_json()):
        conv = Conversation.from_json(saved)
        assert conv == result.conversation
        assert len(conv.messages) == 4 and conv.instructions == "Be brief."
    # JSON that is neither a conversation nor a saved run is refused, naming what it has
    with pytest.raises(ValueError, match=r"not a saved toolwire Conversation: .*no 'messages' list.*'run', 'turns'"):
        Conversation.from_json('{"turns": [], "run": 1}')
    assert Conversation.from_json("{}") == Conversation()  # (an empty conversation saved by hand)


def test_save_to_a_folder_or_an_empty_path_leaves_nothing_behind(tmp_path: Path) -> None:
    """RunState.save to a folder raised and left '<folder>.tmp' beside it; an empty path raised
    pathlib's "PosixPath('.') has an empty name"."""
    state = _result().state
    folder = tmp_path / "runs"
    folder.mkdir()
    with pytest.raises(IsADirectoryError, match="is a folder, not a file"):
        state.save(folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]
    with pytest.raises(ValueError, match="RunState.save needs a file path, got ''"):
        state.save("")
    target = tmp_path / "run.json"
    state.save(target)
    assert RunState.load(target) == state
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json", "runs"]


TOOLS = '''
import pathlib, toolwire

@toolwire.tool
def mark() -> str:
    """Leave a mark. Use it always."""
    pathlib.Path(__file__).with_name("ran").write_text("yes")
    return "marked"
'''


@pytest.mark.parametrize("where", ["folder", "empty"])
def test_toolwire_run_refuses_a_save_path_it_cannot_write_before_running(tmp_path: Path, where: str) -> None:
    """`--save <folder>` ran the whole run (its tools, its requests) and then failed to save it;
    `--save ''` did too, then printed a raw ValueError traceback."""
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "out").mkdir()
    save = str(tmp_path / "out") if where == "folder" else ""
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", "run", "--model", "test", "--tools", "tools.py", "--save", save, "go"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("toolwire run: --save ")
    assert ("is a folder, not a file" if where == "folder" else "needs a file path") in proc.stderr
    assert not (tmp_path / "ran").exists()  # nothing ran
    assert {p.name for p in tmp_path.iterdir()} - {"__pycache__"} == {"out", "tools.py"}
    assert list((tmp_path / "out").iterdir()) == []
