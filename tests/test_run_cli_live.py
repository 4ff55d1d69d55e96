"""``toolwire run`` driven by events, with a slow scripted provider: text printed as it streams,
a live status line (waiting for the model / tool NAME) with elapsed time, one line per tool
call, the final answer printed once; ``--save`` writes the state however the run ends."""

from __future__ import annotations

import io
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, text

FINAL = "The answer is 42, as computed by the slow tool."


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    p = tmp_path / "slow_tools.py"
    p.write_text(
        textwrap.dedent('''
        import time
        import toolwire

        @toolwire.tool
        def slow_tool(x: int) -> str:
            """Takes a while."""
            time.sleep(1.0)
            return f"computed {x * 42}"
    ''')
    )
    return p


def _slow_model() -> GatedModel:
    return GatedModel(
        [calls(("c1", "slow_tool", {"x": 1}), say="Let me compute."), text(FINAL)], stream=True, chunk=5, delay=0.06
    )


class Recorder(io.StringIO):
    """A file that keeps each write separately."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, s: str) -> int:
        self.writes.append(s)
        return super().write(s)

    def isatty(self) -> bool:
        return False


def _invoke(monkeypatch: pytest.MonkeyPatch, console: Any, args: list[str]) -> Any:
    from toolwire.cli import app, run_cmd

    model = _slow_model()
    monkeypatch.setattr(run_cmd, "_live_model", lambda spec, what, settings=None: model)
    monkeypatch.setattr(run_cmd, "_console", lambda stderr=False: console)
    return CliRunner().invoke(app, ["run", *args])


def test_terminal_shows_streamed_text_and_a_live_status_line(monkeypatch: pytest.MonkeyPatch, tools_file: Path):
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None, highlight=False, emoji=False)
    res = _invoke(monkeypatch, console, ["--tools", str(tools_file), "compute"])
    assert res.exit_code == 0, res.output
    raw = out.getvalue()
    # the status line, with the elapsed time, for the model and for the named tool
    assert re.search(r"… waiting for the model · \d+\.\d s", raw)
    # seen while the tool ran (it takes 1 s): any elapsed time after the first refresh, however
    # late a loaded machine lets the live display redraw
    assert re.search(r"… tool slow_tool · (?!0\.0 s)\d+\.\d s", raw)
    # the text was on screen in pieces before it was complete (streamed into the live area)
    first_piece = raw.find("The a")
    assert first_piece != -1 and first_piece < raw.find(FINAL)
    # one line per tool call; the summary; no second copy of the answer after the summary
    assert 'tool slow_tool({"x": 1}) → computed 42' in raw
    assert "2 turns · 1 tool call (0 errors)" in raw
    assert FINAL not in raw[raw.find("2 turns") :]


def test_piped_output_streams_text_and_prints_the_answer_once(
    monkeypatch: pytest.MonkeyPatch, tools_file: Path, tmp_path: Path
):
    from rich.console import Console

    rec = Recorder()
    console = Console(file=rec, force_terminal=False, width=120, color_system=None, highlight=False, emoji=False)
    saved = tmp_path / "state.json"
    res = _invoke(monkeypatch, console, ["--tools", str(tools_file), "--save", str(saved), "compute"])
    assert res.exit_code == 0, res.output
    plain = rec.getvalue()
    assert plain.count(FINAL) == 1
    assert "… waiting for the model" not in plain  # no status line off a terminal
    pieces = [w for w in rec.writes if w and w in FINAL]
    assert "".join(pieces) == FINAL and len(pieces) == 10  # written delta by delta as they arrived
    assert plain.index("Let me compute.") < plain.index("tool slow_tool") < plain.index(FINAL)
    from toolwire import RunState

    st = RunState.load(saved)
    assert st.status == "finished" and st.to_result().text == FINAL


def test_limit_stop_exits_3_and_json_mode_prints_the_result(monkeypatch: pytest.MonkeyPatch, tools_file: Path):
    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=False)
    res = _invoke(monkeypatch, console, ["--tools", str(tools_file), "--max-turns", "1", "compute"])
    assert res.exit_code == 3
    res = _invoke(monkeypatch, console, ["--tools", str(tools_file), "--json", "compute"])
    assert res.exit_code == 0
    import json

    doc = json.loads(res.stdout)
    assert doc["text"] == FINAL and doc["stop_reason"] == "end_turn"
