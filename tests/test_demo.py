"""`toolwire demo`: real tools on a copy of the data, scripted decisions offline, an independent check."""

from __future__ import annotations

import subprocess
import sys

from toolwire import demo


def test_demo_offline_passes_and_shows_parallel_turn(tmp_path):
    work = tmp_path / "w"
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "demo", "--workdir", str(work)],
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "the model's decisions are scripted" in out
    assert "3 tool calls run in parallel" in out
    assert "mean temperature: 1.75 C" in out  # the skewed report, run by the tool
    assert "The corrected mean temperature is 21.13 C." in out
    assert "PASS: report prints 21.13 C, expected 21.13 C; data unchanged" in out
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
    csv.write_text("\n".join(l for l in csv.read_text().splitlines() if not l.endswith(",-999")) + "\n")
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
