"""Experiment.from_dict on untrusted dicts (a run store's row, a JSON file): a missing key or a
wrong type is an ExperimentSpecError naming the field and what it must be (the bounds in the
words a TOML spec's errors use: "≥ 1", not ">= 1")."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from toolwire.experiments.spec import Experiment, ExperimentSpecError, ModelEntry


def _exp() -> Experiment:
    return Experiment(
        name="e1",
        prompt="Fix it.",
        project="project",
        checker=("{python}", "check.py"),
        layers={"bare": ("mod:attr",), "two": ("a:b", "c:d")},
        models=(ModelEntry("test:m", {"temperature": 0}), ModelEntry("scripted:x", {}, "mod:factory")),
        runs=2,
        source="spec.toml",
    )


def test_to_dict_round_trips():
    exp = _exp()
    assert Experiment.from_dict(json.loads(json.dumps(exp.to_dict()))) == exp


def _broken(change: Any) -> dict[str, Any]:
    d = copy.deepcopy(_exp().to_dict())
    change(d)
    return d


@pytest.mark.parametrize(
    "change, field, words",
    [
        (lambda d: d.pop("name"), "name", "missing"),
        (lambda d: d.pop("models"), "models", "missing"),
        (lambda d: d.update(runs="3"), "runs", "must be a whole number ≥ 1, got '3'"),
        (lambda d: d.update(runs=True), "runs", "must be a whole number ≥ 1, got True"),
        (lambda d: d.update(max_turns=0), "max_turns", "must be a whole number ≥ 1, got 0"),
        (lambda d: d.update(name=5), "name", "must be text, got int"),
        (lambda d: d.update(checker="python check.py"), "checker", "must be a list of text, got str"),
        (lambda d: d.update(checker=["a", None]), "checker[1]", "must be text, got null"),
        (lambda d: d.update(layers=["mod:attr"]), "layers", "must be an object of layer name -> list"),
        (lambda d: d.update(layers={"bare": "mod:attr"}), "layers.bare", "must be a list of text, got str"),
        (lambda d: d.update(models={"model": "test:m"}), "models", "must be a list of model objects, got dict"),
        (lambda d: d.update(models=["test:m"]), "models[0]", "must be an object with 'model', got str"),
        (lambda d: d["models"][1].pop("model"), "models[1].model", "missing"),
        (lambda d: d["models"][0].update(settings=[1]), "models[0].settings", "must be an object, got list"),
        (lambda d: d["models"][0].update(factory=7), "models[0].factory", "must be text or null, got int"),
        (
            lambda d: d.update(checker_timeout="fast"),
            "checker_timeout",
            "must be a finite number of seconds > 0, got 'fast'",
        ),
        (lambda d: d.update(instructions=["x"]), "instructions", "must be text or null, got list"),
        (lambda d: d.update(checker_env="PATH"), "checker_env", "must be a list of text, got str"),
    ],
)
def test_a_missing_key_or_wrong_type_names_the_field(change, field, words):
    # before: KeyError, TypeError, AttributeError, or an Experiment holding the wrong types
    with pytest.raises(ExperimentSpecError) as info:
        Experiment.from_dict(_broken(change))
    assert info.value.field == field
    assert str(info.value).startswith(f"spec.toml: {field}: ")
    assert words in str(info.value)


@pytest.mark.parametrize("value", [None, [], "e1", 3])
def test_a_value_that_is_not_an_object(value):
    with pytest.raises(ExperimentSpecError, match=r"^<saved experiment>: an experiment must be an object"):
        Experiment.from_dict(value)  # type: ignore[arg-type]


def test_a_deep_value_is_named_without_recursion_error():
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ExperimentSpecError, match=r"runs: must be a whole number ≥ 1, got \[\[\[") as info:
        Experiment.from_dict(_broken(lambda d: d.update(runs=deep)))
    assert len(str(info.value)) < 200
