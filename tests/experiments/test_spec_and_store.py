"""Spec errors name the field; the run store's version-2 schema and its upgrade from version 1."""

from __future__ import annotations

import re
import sqlite3
import textwrap

import pytest

from toolwire.errors import ConfigurationError
from toolwire.experiments import ExperimentSpecError, load_spec
from toolwire.store import SCHEMA_VERSION, RunStore

GOOD = """\
name = "t"
runs = 2
models = ["scripted:claude-sonnet-4-5"]
[task]
prompt = "fix it"
project = "proj"
checker = "true"
[layers]
a = "toolwire.design.files:file_tools"
"""


def write(tmp_path, text):
    (tmp_path / "proj").mkdir(exist_ok=True)
    p = tmp_path / "spec.toml"
    p.write_text(textwrap.dedent(text))
    return p


def test_a_good_spec_loads(tmp_path):
    exp = load_spec(write(tmp_path, GOOD))
    assert (exp.name, exp.runs, exp.concurrency, exp.max_turns, exp.checker) == ("t", 2, 4, 30, ("true",))
    assert exp.store == str(tmp_path / "t.sqlite")
    assert exp.project_dir() == tmp_path / "proj"


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda s: s.replace("runs = 2", "runs = 0"), "runs", "whole number ≥ 1"),
        (lambda s: s.replace('checker = "true"\n', ""), "task.checker", "missing"),
        (lambda s: s.replace('checker = "true"', "checker = 3"), "task.checker", "a string or a list"),
        (lambda s: s.replace('project = "proj"', 'project = "nowhere"'), "task.project", "is not a folder"),
        (lambda s: s.replace('"toolwire.design.files:file_tools"', '"file_tools"'), "layers.a", "'module:attr'"),
        (
            lambda s: s.replace('"toolwire.design.files:file_tools"', '"toolwire.design.files:nope"'),
            "layers.a",
            "cannot load",
        ),
        (lambda s: s.replace('["scripted:claude-sonnet-4-5"]', '["claude"]'), "models[0]", "'provider:model-id'"),
        (
            lambda s: s.replace('["scripted:claude-sonnet-4-5"]', '["test"]'),
            "models[0]",
            "write the offline provider as 'test:<a name>' (e.g. 'test:baseline')",
        ),
        (
            lambda s: s.replace('["scripted:claude-sonnet-4-5"]', '["scriptd:claude-sonnet-4-5"]'),
            "models[0]",
            "unknown provider 'scriptd' in 'scriptd:claude-sonnet-4-5'; did you mean 'scripted:claude-sonnet-4-5'?",
        ),
        (
            lambda s: s.replace('["scripted:claude-sonnet-4-5"]', '[{ model = "nosuch:x" }]'),
            "models[0].model",
            "unknown provider 'nosuch' in 'nosuch:x'; known providers: ",
        ),
        (
            lambda s: s.replace(
                '["scripted:claude-sonnet-4-5"]', '[{ model = "scripted:x", factory = "no_such_module:f" }]'
            ),
            "models[0].factory",
            "cannot load",
        ),
        (lambda s: s.replace("runs = 2", "runs = 2\nconcurency = 3"), "concurency", "unknown field"),
        (lambda s: s.replace('prompt = "fix it"', 'prompt = "fix it"\ntimeout = 3'), "task.timeout", "unknown field"),
        (lambda s: s.replace('name = "t"', 'name = "a b"'), "name", "ASCII letters (A-Z, a-z), digits"),
        (lambda s: s.replace('name = "t"\n', ""), "name", "missing"),
        (lambda s: s + "oops = [", "", "not valid TOML"),
    ],
)
def test_a_bad_spec_names_the_field(tmp_path, change, field, words):
    path = write(tmp_path, change(GOOD))
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert isinstance(info.value, ConfigurationError)
    assert info.value.field == field
    prefix = f"{path}: {field}: " if field else f"{path}: "
    assert str(info.value).startswith(prefix) and words in str(info.value)


def test_a_missing_spec_file_is_a_configuration_error(tmp_path):
    with pytest.raises(ExperimentSpecError, match="cannot read the spec"):
        load_spec(tmp_path / "none.toml")


def test_a_version_1_store_is_upgraded_in_place(tmp_path):
    """A file written by the version-1 schema keeps its runs and gains the experiment columns."""
    from toolwire.store import _SCHEMA

    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(_SCHEMA)
    conn.execute(
        "INSERT INTO runs (run_id, model, status, labels, created_at, updated_at, turns, tool_calls, tool_errors, state) "
        "VALUES ('r1', 'test', 'finished', '{}', 1.0, 2.0, 3, 4, 1, '{}')"
    )
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with RunStore(path) as db:
        run = db.get("r1")
        assert (run.turns, run.tool_calls, run.tool_errors, run.outcome, run.variant) == (3, 4, 1, None, None)
        db.update_run("r1", variant="v", run_index=0, attempt=1, outcome="pass", cost_usd="0.5", wall_time=1.5)
        run = db.get("r1")
        assert (run.variant, run.run_index, run.attempt, run.outcome, run.cost_usd, run.wall_time) == (
            "v",
            0,
            1,
            "pass",
            "0.5",
            1.5,
        )
        with pytest.raises(ValueError, match="unknown experiment column"):
            db.update_run("r1", turns=9)
        with pytest.raises(KeyError):
            db.update_run("nope", outcome="pass")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert dict(conn.execute("SELECT key, value FROM meta"))["schema_version"] == "4"
    conn.close()


def test_checkpoints_keep_the_experiment_columns(tmp_path):
    """RunStore.save is an upsert: a checkpoint after update_run keeps the outcome columns."""
    from toolwire.runstate import RunState

    with RunStore(tmp_path / "s.sqlite") as db:
        state = RunState("r", "test")
        db.save(state, experiment="e")
        db.update_run("r", variant="v", outcome="fail")
        db.save(state)
        run = db.get("r")
        assert (run.experiment, run.variant, run.outcome) == ("e", "v", "fail")
        db.save_experiment("e", {"layers": {"v": []}}, fingerprint="f")
        assert db.experiment("e")["spec"] == {"layers": {"v": []}} and db.experiments() == ["e"]


def test_the_checker_gets_no_credentials_and_its_verdict_is_its_exit_status(tmp_path, monkeypatch):
    from toolwire.experiments.runner import check_project_sync

    monkeypatch.setenv("VENDOR_API_KEY", "sk-test-0123456789abcdef")
    monkeypatch.setenv("MY_SETTING", "on")
    show = "import os, sys; print(sorted(k for k in ('VENDOR_API_KEY', 'MY_SETTING', 'TOOLWIRE_PROJECT') if k in os.environ)); sys.exit(int(sys.argv[1]))"
    base = GOOD.replace('checker = "true"', f'checker = ["{{python}}", "-c", "{show}", "0"]')
    exp = load_spec(write(tmp_path, base))
    assert check_project_sync(exp, tmp_path) == (True, "['TOOLWIRE_PROJECT']")
    exp = load_spec(write(tmp_path, base.replace('"0"]', '"3"]\nchecker_env = ["MY_SETTING"]')))
    assert check_project_sync(exp, tmp_path) == (False, "['MY_SETTING', 'TOOLWIRE_PROJECT']\n(exit status 3)")
    exp = load_spec(write(tmp_path, GOOD.replace('checker = "true"', 'checker = "no-such-program-here"')))
    passed, output = check_project_sync(exp, tmp_path)
    assert not passed and output.startswith("the checker 'no-such-program-here' could not start")


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_adv_a_checker_timeout_that_is_not_finite_is_refused(tmp_path, value):
    path = write(tmp_path, GOOD.replace('checker = "true"', f'checker = "true"\nchecker_timeout = {value}'))
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert info.value.field == "task.checker_timeout" and "finite number of seconds > 0" in str(info.value)


def test_adv_more_runs_than_the_bound_are_refused_before_planning(tmp_path):
    from toolwire.experiments.spec import MAX_RUNS

    assert MAX_RUNS == 1_000_000
    path = write(tmp_path, GOOD.replace("runs = 2", "runs = 100000000"))
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert info.value.field == "runs" and "at most 1,000,000 runs" in str(info.value)
    # exactly at the bound is accepted: 500,000 runs × 1 layer × 2 models
    two = GOOD.replace("runs = 2", "runs = 500000").replace(
        '["scripted:claude-sonnet-4-5"]', '["scripted:a", "scripted:b"]'
    )
    assert load_spec(write(tmp_path, two)).runs == 500_000
    with pytest.raises(ExperimentSpecError, match="is 1,000,002 runs"):
        load_spec(write(tmp_path, two.replace("runs = 500000", "runs = 500001")))


def test_adv_a_checker_printing_bytes_that_are_not_utf8_still_gives_a_verdict(tmp_path):
    from toolwire.experiments.runner import check_project_sync

    code = "import sys; sys.stdout.buffer.write(bytes(range(256))); sys.exit(int(sys.argv[1]))"
    base = GOOD.replace('checker = "true"', f'checker = ["{{python}}", "-c", "{code}", "0"]')
    passed, output = check_project_sync(load_spec(write(tmp_path, base)), tmp_path)
    assert passed and "\ufffd" in output and "ABC" in output
    passed, output = check_project_sync(load_spec(write(tmp_path, base.replace('"0"]', '"1"]'))), tmp_path)
    assert not passed and output.endswith("(exit status 1)")


@pytest.mark.parametrize(
    ("ref", "words"),
    [
        ("os:sep", "'os:sep' is a str, not a tool"),
        ("os:path", "'os:path' is a module, not a tool"),
        ("os:getcwd", "'os:getcwd' does not take the project folder"),
    ],
)
def test_adv_a_layer_that_is_not_a_toolset_is_refused_at_spec_check(tmp_path, ref, words):
    path = write(tmp_path, GOOD.replace('"toolwire.design.files:file_tools"', f'"{ref}"'))
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert info.value.field == "layers.a" and words in str(info.value)


def _gone(pid: int, deadline: float = 30.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie), polled up to ``deadline`` seconds."""
    import os
    import time

    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        time.sleep(0.05)
    return False


def _checker(tmp_path, script: str, timeout: float = 60) -> tuple[bool, str]:
    from toolwire.experiments.runner import check_project_sync

    base = GOOD.replace('checker = "true"', f'checker = ["sh", "-c", "{script}"]\nchecker_timeout = {timeout}')
    return check_project_sync(load_spec(write(tmp_path, base)), tmp_path)


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="reads /proc")
def test_adv_a_hanging_checker_is_stopped_with_every_process_it_started(tmp_path):
    passed, output = _checker(tmp_path, "sleep 300 & echo $! > bg.pid; sleep 300", timeout=3)
    assert (passed, output) == (False, "the checker ran past 3 s and was stopped (with every process it started)")
    assert _gone(int((tmp_path / "bg.pid").read_text()))  # the background child did not outlive it


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="reads /proc")
def test_adv_a_checker_leaving_a_process_behind_keeps_its_verdict_and_the_process_is_stopped(tmp_path):
    passed, output = _checker(tmp_path, "sleep 300 & echo $! > bg.pid; echo checked")
    assert passed
    # the child is named after the shell until it execs sleep (on a loaded machine that can take a while)
    assert re.fullmatch(r"checked\n\(the checker left 1 process running: (sleep|sh); they were stopped\)", output)
    assert _gone(int((tmp_path / "bg.pid").read_text()))


def test_adv_a_checker_reading_stdin_gets_end_of_file_not_a_hang(tmp_path):
    passed, output = _checker(tmp_path, "read line || echo no-input")
    assert (passed, output) == (True, "no-input")


def test_adv_a_spec_that_is_not_utf8_names_the_byte(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_bytes(b'name = "t"\n\xff\xfe')
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert str(info.value) == f"{path}: not valid TOML: byte 11 is not UTF-8 (a TOML file is UTF-8 text)"


NAME_RULE = "use only ASCII letters (A-Z, a-z), digits (0-9), '.', '_' and '-', starting with a letter or a digit"


@pytest.mark.parametrize(
    ("change", "field", "got"),
    [
        (lambda s: s.replace("\na = ", '\n"café" = '), "layers.café", "'café'"),
        (lambda s: s.replace("\na = ", '\n"名前" = '), "layers.名前", "'名前'"),
        (lambda s: s.replace("\na = ", '\n"a b" = '), "layers.a b", "'a b'"),
        (lambda s: s.replace("\na = ", '\n"-a" = '), "layers.-a", "'-a'"),
        (lambda s: s.replace("\na = ", '\n"a\\n" = '), "layers.a\n", "'a\\n'"),
        (lambda s: s.replace('name = "t"', 'name = "café"'), "name", "'café'"),
        (lambda s: s.replace('name = "t"', 'name = "t\\n"'), "name", "'t\\n'"),
    ],
    ids=[
        "accented",
        "cjk",
        "space",
        "leading-dash",
        "trailing-newline-layer",
        "accented-name",
        "trailing-newline-name",
    ],
)
def test_a_name_says_exactly_which_characters_it_takes(tmp_path, change, field, got):
    """The rule is ASCII only ("letters" read as any letter: 'café' was refused as not letters)."""
    path = write(tmp_path, change(GOOD))
    with pytest.raises(ExperimentSpecError) as info:
        load_spec(path)
    assert info.value.field == field
    assert str(info.value) == f"{path}: {field}: {NAME_RULE}, got {got}"


@pytest.mark.parametrize("name", ["A-1", "0.b_c", "x"])
def test_names_of_the_rule_are_taken(tmp_path, name):
    exp = load_spec(write(tmp_path, GOOD.replace("\na = ", f'\n"{name}" = ').replace('name = "t"', f'name = "{name}"')))
    assert exp.name == name and list(exp.layers) == [name]
