"""The command line's shared behaviour: --version, python -m toolwire, help without type noise,
one error format, lint's default providers, and the message without the cli extra."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import toolwire
from toolwire.cli import main


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


def test_version(capsys):
    assert _main(capsys, "--version") == (0, f"toolwire {toolwire.__version__}\n", "")


def test_python_dash_m_toolwire_is_the_same_program():
    proc = subprocess.run([sys.executable, "-m", "toolwire", "--version"], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"toolwire {toolwire.__version__}\n", "")


@pytest.mark.parametrize("command", [[], ["run"], ["demo"], ["lint"], ["replay"]])
def test_help_has_no_type_noise(capsys, command):
    code, out, err = _main(capsys, *command, "--help")
    assert code == 0 and err == ""
    assert "Usage: toolwire" in out and "--help" in out
    for noise in ("<bool>", "<str>", "<int>", "<float>", "<list[", "{prompt}", "{target}", "{paths}"):
        assert noise not in out, (noise, out)


def test_lint_help_names_values_not_types(capsys):
    _, out, _ = _main(capsys, "lint", "--help")
    assert "Usage: toolwire lint [OPTIONS] TARGET" in out
    assert "--provider   -p      PROVIDER" in out


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (["bogus"], "toolwire: No such command 'bogus'. (usage: toolwire --help)\n"),
        (["lint"], "toolwire lint: Missing argument 'target'. (usage: toolwire lint --help)\n"),
        (["replay", "/nonexistent/cassettes"], "toolwire replay: no such file or folder: /nonexistent/cassettes\n"),
        (["lint", "/nonexistent/tools.py"], "toolwire lint: lint target '/nonexistent/tools.py': no such file\n"),
    ],
)
def test_one_error_format(capsys, argv, err):
    code, out, got = _main(capsys, *argv)
    assert (code, out, got) == (2, "", err)


def test_lint_checks_the_installed_providers_by_default(capsys, monkeypatch, tmp_path):
    from toolwire import registry

    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            [
                {
                    "name": "get_weather",
                    "description": "Forecast for a city.",
                    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
                }
            ]
        )
    )
    monkeypatch.setattr(registry, "available_providers", lambda: ["anthropic", "gemini", "test"])
    code, out, err = _main(capsys, "lint", str(tools), "--json")
    doc = json.loads(out)
    assert sorted(doc["summary"]["token_cost"]) == ["anthropic", "gemini"]
    assert {f["provider"] for f in doc["findings"] if f.get("provider")} <= {"anthropic", "gemini"}


def test_without_the_cli_extra_the_script_says_what_to_install():
    code = (
        "import sys; sys.modules['typer'] = None\n"
        "from toolwire import _install; _install._direct_url = lambda: None; _install.installer = lambda: 'pip install'\n"
        "from toolwire.cli import main; main([])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == 'toolwire: the command line needs the cli extra (typer, rich): pip install "toolwire[cli]"\n'
