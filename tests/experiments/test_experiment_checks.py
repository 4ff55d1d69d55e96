"""Experiment.from_dict and an Experiment built in Python get the checks a TOML spec gets:
unknown keys refused with the known ones and a "did you mean", names and bounds checked, and
run_experiment refusing such an experiment before anything runs."""

from __future__ import annotations

import asyncio
import copy
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolwire.experiments import Experiment, ExperimentSpecError, ModelEntry, load_spec, run_experiment
from toolwire.experiments.spec import MAX_RUNS, parse_spec

KNOWN_TOP = (
    "checker, checker_env, checker_timeout, concurrency, instructions, layers, max_turns, models, name, project, "
    "prompt, runs, source, spec_dir, store"
)


def _exp(**changes: Any) -> Experiment:
    fields: dict[str, Any] = dict(
        name="e1",
        prompt="Fix it.",
        project="project",
        checker=("{python}", "check.py"),
        layers={"bare": ("mod:attr",)},
        models=(ModelEntry("test:m", {"temperature": 0}),),
        runs=2,
        source="spec.toml",
    )
    fields.update(changes)
    return Experiment(**fields)


def _saved(change: Any) -> dict[str, Any]:
    d = copy.deepcopy(_exp().to_dict())
    change(d)
    return d


def _refused(d: Any) -> ExperimentSpecError:
    with pytest.raises(ExperimentSpecError) as info:
        Experiment.from_dict(d)
    return info.value


# -- 1 and 3: unknown keys ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "near"),
    [
        # before: accepted, checker_timeout silently the default 120.0
        (lambda d: d.update(checker_timout=5), "checker_timout", "checker_timeout"),
        # before: accepted, instructions silently None
        (lambda d: d.update(instruction="Be brief."), "instruction", "instructions"),
        # before: only "prompt: missing", the misspelt key not named
        (lambda d: d.update(prompts=d.pop("prompt")), "prompts", "prompt"),
        (lambda d: d.update(model=d.pop("models")), "model", "models"),
    ],
)
def test_an_unknown_top_level_key_is_refused_with_a_did_you_mean(change, field, near):
    error = _refused(_saved(change))
    assert error.field == field
    assert str(error) == (
        f"spec.toml: {field}: unknown field (the known ones are: {KNOWN_TOP}); did you mean {near!r}?"
    )


def test_an_unknown_key_in_a_model_entry_is_refused():
    # before: accepted, the settings silently {}
    error = _refused(_saved(lambda d: d["models"][0].update(settngs=d["models"][0].pop("settings"))))
    assert error.field == "models[0].settngs"
    assert str(error) == (
        "spec.toml: models[0].settngs: unknown field (the known ones are: factory, model, settings); "
        "did you mean 'settings'?"
    )
    # a misspelt required key is named as such, not only as the missing one
    error = _refused(_saved(lambda d: d["models"][0].update(modle=d["models"][0].pop("model"))))
    assert error.field == "models[0].modle" and str(error).endswith("did you mean 'model'?")


def test_an_unknown_key_with_no_close_match_lists_the_known_ones_only():
    error = _refused(_saved(lambda d: d.update(colour="blue")))
    assert str(error) == f"spec.toml: colour: unknown field (the known ones are: {KNOWN_TOP})"


def test_a_spec_shaped_dict_is_pointed_to_parse_spec():
    # before: "prompt: missing (to_dict() writes it ...)"
    spec = {
        "name": "e1",
        "models": ["test:m"],
        "task": {"prompt": "p", "project": ".", "checker": "true"},
        "layers": {"a": "m:a"},
    }
    error = _refused(spec)
    assert error.field == "task"
    assert "unknown field" in str(error) and "parse_spec" in str(error)


def test_parse_spec_says_did_you_mean_too():
    data = {
        "name": "e1",
        "models": ["test:m"],
        "task": {"prompt": "p", "project": ".", "checker": "true", "checker_timout": 5},
        "layers": {"a": "m:a"},
    }
    with pytest.raises(ExperimentSpecError) as info:
        parse_spec(data)
    assert info.value.field == "task.checker_timout"
    assert str(info.value).endswith("did you mean 'checker_timeout'?")


# -- 2 and 4: names and bounds ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        # before: each accepted by from_dict
        (lambda d: d.update(name="a b/c"), "name", "use only ASCII letters"),
        (lambda d: d.update(name=""), "name", "must be a non-empty string, got ''"),
        (lambda d: d.update(layers={"a/b": ["mod:attr"]}), "layers.a/b", "use only ASCII letters"),
        (lambda d: d.update(layers={}), "layers", "at least one layer"),
        (lambda d: d.update(layers={"a": []}), "layers.a", "names no toolset"),
        (lambda d: d.update(layers={"a": ["attr"]}), "layers.a", "must be 'module:attr'"),
        (lambda d: d.update(models=[]), "models", "must be a list of"),
        (lambda d: d["models"][0].update(model="test"), "models[0].model", "'test:<a name>'"),
        (lambda d: d["models"].append(dict(d["models"][0])), "models[1]", "'test:m' is listed twice"),
        (lambda d: d["models"][0].update(factory="nope"), "models[0].factory", "must be 'module:attr'"),
        (lambda d: d.update(checker=[]), "checker", "is empty"),
        (lambda d: d.update(checker_timeout=float("inf")), "checker_timeout", "finite number of seconds > 0"),
        (lambda d: d.update(checker_env=[""]), "checker_env", "environment variable names"),
        (lambda d: d.update(prompt=" "), "prompt", "must be a non-empty string"),
        (lambda d: d.update(runs=MAX_RUNS + 1), "runs", "at most 1,000,000 runs"),
        # 4: the same sign as the TOML spec's messages (before: ">= 1")
        (lambda d: d.update(runs=0), "runs", "must be a whole number ≥ 1, got 0"),
        (lambda d: d.update(concurrency="3"), "concurrency", "must be a whole number ≥ 1, got '3'"),
    ],
)
def test_from_dict_checks_names_and_bounds_as_a_spec_does(change, field, words):
    error = _refused(_saved(change))
    assert error.field == field
    assert str(error).startswith(f"spec.toml: {field}: ")
    assert words in str(error)


def test_from_dict_does_not_need_the_provider_installed():
    """Reading back a saved experiment (a report) works where its adapter is not installed; running
    it is refused then (below)."""
    exp = Experiment.from_dict(_saved(lambda d: d["models"][0].update(model="nosuchvendor:m")))
    assert exp.model_names == ["nosuchvendor:m"]


def test_a_loaded_spec_round_trips_through_from_dict(tmp_path: Path):
    (tmp_path / "proj").mkdir()
    spec = tmp_path / "spec.toml"
    spec.write_text(
        textwrap.dedent(
            """\
            name = "t"
            models = ["scripted:claude-sonnet-4-5", {model = "test:x", settings = {temperature = 0}}]
            [task]
            prompt = "fix it"
            instructions = "be brief"
            project = "proj"
            checker = "true"
            checker_env = ["HOME"]
            [layers]
            a = "toolwire.design.files:file_tools"
            """
        )
    )
    exp = load_spec(spec)
    assert Experiment.from_dict(exp.to_dict()) == exp


# -- 2: run_experiment with an Experiment built in Python ----------------------------------------


def _direct(tmp_path: Path, **changes: Any) -> Experiment:
    (tmp_path / "proj").mkdir(exist_ok=True)
    fields: dict[str, Any] = dict(
        name="direct",
        prompt="p",
        project="proj",
        checker=("true",),
        layers={"files": ("toolwire.design.files:file_tools",)},
        models=(ModelEntry("test:m"),),
        runs=1,
        store=str(tmp_path / "runs.sqlite"),
        spec_dir=str(tmp_path),
    )
    fields.update(changes)
    return Experiment(**fields)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        # before: ran, recording run ids "a b/c/files/test:m/0" that do not split into their parts
        ({"name": "a b/c"}, "name", "use only ASCII letters"),
        ({"layers": {"x/y": ("toolwire.design.files:file_tools",)}}, "layers.x/y", "use only ASCII letters"),
        # before: ran zero runs and said all was recorded
        ({"runs": 0}, "runs", "must be a whole number ≥ 1, got 0"),
        # before: a str checker ran as the words 't', 'r', 'u', 'e'
        ({"checker": "true"}, "checker", "must be a command"),
        # before: every run an error ("unknown provider")
        ({"models": (ModelEntry("nosuchvendor:m"),)}, "models[0].model", "nosuchvendor"),
        # before: every run an error (the layer cannot load), as load_spec refuses it up front
        ({"layers": {"files": ("toolwire.design.files:nope",)}}, "layers.files", "cannot load"),
        ({"store": ""}, "store", "must be a non-empty string"),
    ],
)
def test_run_experiment_checks_an_experiment_built_in_python(tmp_path: Path, changes, field, words):
    exp = _direct(tmp_path, **changes)
    with pytest.raises(ExperimentSpecError) as info:
        asyncio.run(run_experiment(exp))
    assert info.value.field == field
    assert words in str(info.value)
    assert not (tmp_path / "runs.sqlite").exists()  # nothing ran, nothing was recorded


def test_run_experiment_runs_a_good_experiment_built_in_python(tmp_path: Path):
    summary = asyncio.run(run_experiment(_direct(tmp_path)))
    assert [r.run.run_id for r in summary.records] == ["direct/files/test:m/0"]
