"""The experiments page and the API reference document the Python entry points of specs
(parse_spec, Experiment.to_dict / from_dict) and say what a model name must be."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolwire.experiments import ExperimentSpecError
from toolwire.experiments.spec import parse_spec

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_experiments_page_documents_parse_spec_to_dict_and_from_dict():
    page = (DOCS / "experiments.md").read_text(encoding="utf-8")
    for name in ("parse_spec(", "Experiment.to_dict()", "Experiment.from_dict(", "check_experiment("):
        assert name in page, name
    # what from_dict raises for a misspelt key is what it says
    assert "did you mean 'prompt'?" in page


def test_the_api_reference_has_the_experiments_page():
    page = (DOCS / "api" / "experiments.md").read_text(encoding="utf-8")
    entries = set(re.findall(r"^::: (\S+)$", page, flags=re.M))
    assert {
        "toolwire.experiments.spec.load_spec",
        "toolwire.experiments.spec.parse_spec",
        "toolwire.experiments.spec.check_experiment",
        "toolwire.experiments.spec.Experiment",
        "toolwire.experiments.spec.ExperimentSpecError",
        "toolwire.experiments.runner.run_experiment",
    } <= entries
    nav = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    assert "api/experiments.md" in nav and "(experiments.md)" in (DOCS / "api" / "index.md").read_text()


def test_the_models_section_says_plain_test_is_refused_as_the_check_does():
    page = (DOCS / "experiments.md").read_text(encoding="utf-8")
    models = page[page.index("- **Models.**") :].split("\n- **", 1)[0]
    assert 'plain `"test"`' in models and '`"test:<a name>"`' in models
    data = {"name": "e", "models": ["test"], "task": {"prompt": "p", "project": ".", "checker": "true"}}
    with pytest.raises(ExperimentSpecError, match=re.escape("'test:<a name>'")):
        parse_spec({**data, "layers": {"a": "m:a"}})
