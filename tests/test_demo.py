"""`toolwire demo`: real tools on a copy of the data, scripted decisions offline, an independent check."""

from __future__ import annotations

import re
import subprocess
import sys

from toolwire import demo

#: What ``toolwire demo`` prints offline, line by line: each turn's text once (the final answer
#: once), one line per tool call (durations and the workspace path normalised; the lines of a
#: parallel turn compared in any order: they are printed as the calls finish).
DEMO_LINES = [
    "toolwire demo (offline): the model's decisions are scripted — no API key needed — while the file tools "
    "really run on a copy of the data. Pass --model provider:model-id to run it live.",
    "workspace (kept after the run, delete it when done): <workdir>",
    "task: The daily report (`python report.py`) prints a mean temperature that is far too low for a greenhouse. "
    "Find out why and fix it, then run the report again and tell me the corrected mean.",
    "Turn 1",
    "First I'll look at what is in the folder and in data/, with each file's size.",
    "2 tool calls run in parallel",
    '  tool list_dir({"path": "."}) → .: 1 directory, 2 files, 631 bytes in files⏎ data/  dir, 1 entry⏎ '
    "README.md  file, 179 bytes, 4 lines⏎ report.py  file,… <t> s",
    '  tool list_dir({"path": "data"}) → data: 0 directories, 1 file, 51,996 bytes (51 KiB) in files⏎ '
    "data/sensor.csv  file, 51,996 bytes (51 KiB), 2,001 lines <t> s",
    "Turn 2",
    "The CSV is about 50 KB (2,001 lines), so instead of reading it I'll search it for suspicious values, read "
    "the small script, and run the report, all at once.",
    "3 tool calls run in parallel",
    '  tool read_file({"path": "report.py"}) →  1| """Daily report: the mean temperature of data/sensor.csv."""⏎'
    "  2| ⏎  3| import csv⏎  4| from pathlib import Path⏎  … <t> s",
    '  tool search_files({"pattern": "-999", "path": "data"}) → 38 matches in 1 file⏎ data/sensor.csv:38: '
    "2026-03-01T03:00,S1,-999⏎ data/sensor.csv:91: 2026-03-01T07:25,S3,-999⏎ data/… <t> s",
    '  tool run_command({"command": ["python", "report.py"]}) → exit code: 0⏎ --- stdout ---⏎ '
    "mean temperature: 1.75 C⏎ --- stderr ---⏎  <t> s",
    "Turn 3",
    "The -999 rows are sensor dropouts and the script averages them. I'll fix the script, not the data.",
    '  tool edit_file({"path": "report.py", "old_text": "    values = [float(row[\\"temperature_c\\"]) …) → '
    'Replaced 1 occurrence in report.py (now 17 lines). Lines 8-13 now read:⏎  8|     with open(path, newline="") '
    "as fh:⏎  9… <t> s",
    "Turn 4",
    "Now I'll run the report again to verify the fix.",
    '  tool run_command({"command": ["python", "report.py"]}) → exit code: 0⏎ --- stdout ---⏎ '
    "mean temperature: 21.13 C⏎ --- stderr ---⏎  <t> s",
    "Turn 5",
    "The CSV marks sensor dropouts with -999, and report.py averaged those rows as if they were readings, which "
    "dragged the mean down. I changed report.py to leave -999 rows out (the data file is untouched). The "
    "corrected mean temperature is 21.13 C.",
    "5 turns · 7 tool calls (0 errors) · usage not reported · cost unpriced · stop reason end_turn",
    "Check",
    "report output: mean temperature: 21.13 C",
    "PASS: report prints 21.13 C, expected 21.13 C; data unchanged",
]


def _normalised(text: str, workdir: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        line = re.sub(r" ─+$", "", line).rstrip()  # a rule's line drawing, as wide as the terminal
        line = re.sub(r"\d+\.\d\d s$", "<t> s", line).replace(workdir, "<workdir>")
        lines.append(line)
    return _tool_blocks_sorted(lines)


def _tool_blocks_sorted(lines: list[str]) -> list[str]:
    """Each run of consecutive tool lines sorted (parallel calls finish in any order)."""
    out: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("  tool "):
            block.append(line)
            continue
        out.extend(sorted(block))
        block = []
        out.append(line)
    return out[:-1]


def test_demo_offline_prints_each_thing_once(tmp_path):
    work = tmp_path / "w"
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "demo", "--workdir", str(work)],
        capture_output=True,
        text=True,
        env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _normalised(proc.stdout, str(work)) == _tool_blocks_sorted(DEMO_LINES)
    assert proc.stdout.count("The corrected mean temperature is 21.13 C.") == 1  # the final answer once
    assert sum(line.endswith(",-999") for line in (work / "data" / "sensor.csv").read_text().splitlines()) == 38
    assert "!= -999" in (work / "report.py").read_text()


def test_check_fails_on_the_unfixed_copy(tmp_path):
    root = demo.prepare_workspace(tmp_path / "w")
    outcome = demo.check(root)
    assert outcome.passed is False
    assert outcome.reported == 1.75
    assert round(outcome.expected, 2) == 21.13


def test_check_fails_when_the_data_is_edited(tmp_path):
    root = demo.prepare_workspace(tmp_path / "w")
    csv = root / "data" / "sensor.csv"
    csv.write_text("\n".join(line for line in csv.read_text().splitlines() if not line.endswith(",-999")) + "\n")
    outcome = demo.check(root)
    assert outcome.reported == 21.13 and outcome.data_unchanged is False and outcome.passed is False


def test_demo_exits_nonzero_when_check_fails(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from toolwire.cli import _register, app
    from toolwire.testing import ScriptedModel

    _register()
    monkeypatch.setattr(demo, "scripted_model", lambda: ScriptedModel(responses=["I did nothing."]))
    result = CliRunner().invoke(app, ["demo", "--workdir", str(tmp_path / "w")])
    assert result.exit_code == 1
    assert "FAIL: report prints 1.75 C, expected 21.13 C; data unchanged" in result.output


def test_demo_live_without_key_names_the_variable(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from toolwire.cli import _register, app

    _register()
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = CliRunner().invoke(
        app, ["demo", "--model", "anthropic:claude-haiku-4-5", "--workdir", str(tmp_path / "w")]
    )
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.output


def test_run_command_loads_module_attr_and_file(tmp_path, monkeypatch):
    import json as _json
    import subprocess as _sp
    import sys as _sys

    (tmp_path / "mytools.py").write_text(
        "from toolwire import tool\n\n@tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b\n\nTOOLS = [add]\n"
    )
    for spec in ("mytools", "mytools:TOOLS", "mytools.py", "mytools.py:add"):
        proc = _sp.run(
            [_sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--tools", spec, "--json", "add"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, (spec, proc.stderr[-1500:])
        doc = _json.loads(proc.stdout)
        assert doc["text"] == "Tool results:\nadd: 2"
    bad = _sp.run(
        [_sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--tools", "nosuch.py", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "no such file: nosuch.py" in bad.stderr
    missing = _sp.run(
        [_sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--tools", "mytools:nope", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "has no attribute 'nope'" in missing.stderr


def test_cli_prints_outside_text_as_is_and_takes_settings(tmp_path):
    import subprocess as _sp
    import sys as _sys

    (tmp_path / "mk.py").write_text(
        "from toolwire import tool\n\n@tool\ndef t(q: str) -> str:\n    '''Look up. Use when asked.'''\n    return '[/tmp] result [a-z]+x'\n"
    )
    proc = _sp.run(
        [
            _sys.executable,
            "-m",
            "toolwire.cli",
            "run",
            "--model",
            "test",
            "--tools",
            "mk.py",
            "--setting",
            'final_text="done [b]bold[/b]"',
            "x",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "[/tmp] result [a-z]+x" in proc.stdout
    assert "done [b]bold[/b]" in proc.stdout
    assert "usage not reported" in proc.stdout
    bad = _sp.run(
        [_sys.executable, "-m", "toolwire.cli", "run", "--model", "test", "--setting", "novalue", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--setting takes key=value" in bad.stderr
