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


@pytest.mark.parametrize(
    "command", [[], ["run"], ["demo"], ["lint"], ["replay"], ["experiment"], ["experiment", "run"]]
)
def test_help_starts_at_its_usage_line(capsys, command):
    """The help began with a blank line (typer pads the usage line above and below)."""
    code, out, _ = _main(capsys, *command, "--help")
    lines = out.splitlines()
    assert code == 0 and lines[0].strip().startswith(f"Usage: {' '.join(['toolwire', *command])} "), out[:200]
    assert lines[1].strip() == ""  # the blank line under the usage line stays


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


GOOD_TOOLS = '''
def get(city: str) -> str:
    """Weather for a city."""
    return "sunny"
'''


def test_set_up_errors_are_one_line_exit_2_not_tracebacks(capsys, tmp_path):
    good = tmp_path / "good.py"
    good.write_text(GOOD_TOOLS)
    other = tmp_path / "other.py"  # another function named get (one tool named twice is kept once)
    other.write_text(GOOD_TOOLS.replace("Weather", "Forecast"))
    code, out, err = _main(capsys, "run", "-m", "test", "-t", f"{good}:get", "-t", f"{other}:get", "hi")
    assert (
        code == 2
        and "two tools are named 'get'" in err
        and "Traceback" not in err
        and len(err.strip().splitlines()) == 1
    )
    code, out, err = _main(
        capsys, "run", "-m", "test", "-t", f"{good}:get", "--save", str(tmp_path / "no" / "x.json"), "hi"
    )
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    assert out == ""  # refused before the run, not after it


@pytest.mark.parametrize("command", ["run", "lint"])
def test_a_known_key_in_a_tools_file_error_is_not_printed(capsys, tmp_path, monkeypatch, command):
    key = "sk-ant-api03-SECRETSECRETSECRET1234567890"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    leak = tmp_path / "leak.py"
    leak.write_text('import os\nraise RuntimeError("cannot start with " + os.environ["ANTHROPIC_API_KEY"])\n')
    argv = ["run", "-m", "test", "-t", str(leak), "hi"] if command == "run" else ["lint", str(leak)]
    code, out, err = _main(capsys, *argv)
    assert code == 2 and "cannot start with" in err
    assert key not in err and key not in out


def test_lint_rules_lists_every_rule_without_a_target(capsys):
    """``toolwire lint --rules`` is what the lint footer points a pip-installed user at (the docs
    folder is only in a clone): each rule's id, severity, cost to the model and fix, exit 0."""
    from toolwire.design.lint import RULES

    code, out, err = _main(capsys, "lint", "--rules")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 2 * len(RULES) == 40
    first = RULES["schema-invalid"]
    assert lines[:2] == [f"schema-invalid (error): {first.why}", f"    fix: {first.fix}"]
    assert [line.split(" (")[0] for line in lines[::2]] == list(RULES)


@pytest.mark.parametrize(
    ("argv", "got"),
    [
        (["lint", "--rules", "tools.py"], "'tools.py'"),
        (["lint", "tools.py", "--rules"], "'tools.py'"),
        (["lint", "--rules", "-p", "anthropic"], "'-p anthropic'"),
    ],
)
def test_lint_rules_with_a_target_or_option_is_refused_not_ignored(capsys, argv, got):
    """``toolwire lint --rules tools.py`` listed the rules and left the file unlinted, without a word."""
    code, out, err = _main(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (
        f"toolwire lint: --rules lists the lint rules and takes no TARGET or other option (got {got}): "
        "run 'toolwire lint --rules' and 'toolwire lint TARGET' separately. (usage: toolwire lint --help)\n"
    )


def test_lint_footer_points_at_lint_rules_not_a_docs_file(tmp_path, capsys):
    tools = tmp_path / "tools.py"
    tools.write_text(
        "import toolwire\n\n@toolwire.tool\ndef add(a: int, b: int) -> int:\n"
        '    """Add two numbers. Use it when asked for a sum."""\n    return a + b\n'
    )
    code, out, _ = _main(capsys, "lint", str(tools), "-p", "anthropic")
    assert code == 0
    footer = " ".join(out.split()[-15:])
    assert footer == "1 tool: 0 errors, 0 warnings, 3 infos (20 rules: toolwire lint --rules lists them)"
    assert "docs/lint.md" not in out


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "abc", "", "1e3", "5_0"])
@pytest.mark.parametrize("command", [["run", "-m", "test", "hi"], ["demo"]])
def test_max_turns_that_is_not_a_whole_number_of_at_least_1_is_one_usage_error_on_run_and_demo(
    capsys, tmp_path, monkeypatch, command, value
):
    """`demo --max-turns 0` printed its banner, made a workspace and ended with "ConfigurationError:
    max_turns must be a whole number ≥ 1, got 0" (run said "--max-turns must be at least 1, got 0");
    a non-integer got typer's "Input should be a valid integer, unable to parse string as an
    integer" on both. Both commands now say the same thing before anything else, exit 2."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a demo workspace would be made here
    code, out, err = _main(capsys, *command[:1], "--max-turns", value, *command[1:])
    name = command[0]
    assert (code, out) == (2, "")
    assert err == (
        f"toolwire {name}: --max-turns must be a whole number of model requests, 1 or more; got {value!r} "
        f"(usage: toolwire {name} --help)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["run", "-m", "test", "hi"], ["demo"]])
def test_max_turns_takes_a_whole_number(capsys, tmp_path, monkeypatch, command):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = _main(capsys, *command[:1], "--max-turns", " +2 ", *command[1:])
    # the demo's scripted model needs more than 2 turns: it stops at the limit (the check then fails)
    assert (code, err) == ((0, "") if command[0] == "run" else (1, "")), err
    if command[0] == "run":
        assert "1 turn" in out
    else:
        assert "stopped:" in out and "2 turns" in out
        assert [p.name.startswith("toolwire-demo-") for p in tmp_path.iterdir()] == [True]
