"""The spec's own code (a module it imports, a layer or model factory) calling sys.exit or raising
another BaseException: a spec error, or that run's error, never the whole command ending."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from toolwire.experiments import ExperimentSpecError, run_experiment

SPEC = """\
name = "exits"
runs = 2
max_turns = 3
models = [{{ model = "scripted:claude-sonnet-4-5", factory = "{model}" }}]
[task]
prompt = "go"
project = "proj"
checker = ["{{python}}", "-c", "pass"]
[layers]
kit = "{layer}"
"""

CODE = """\
import sys

import toolwire
from toolwire.design.files import file_tools
from toolwire.testing.providers import call


class Odd(BaseException):
    pass


def agent(run):
    return toolwire.model("scripted", responses=[[call("list_dir", {})], "done"])


def agent_exits(run):
    sys.exit("no model today")


def tools_exit(root):
    sys.exit("the layer gave up")


def tools_odd(root):
    raise Odd("an odd failure")


def tools(root):
    return file_tools(root)
"""


def _spec(tmp_path: Path, layer: str, model: str = "spec_exits_code:agent") -> Path:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.txt").write_text("a\n")
    (tmp_path / "spec_exits_code.py").write_text(CODE)
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(SPEC.format(layer=layer, model=model)))
    return path


def test_a_layer_module_calling_sys_exit_on_import_is_a_spec_error(tmp_path: Path) -> None:
    """Before: the command ended with exit status 3 and no word."""
    spec = _spec(tmp_path, "exits_on_import:tools")
    with pytest.raises(ExperimentSpecError) as info:
        asyncio.run(run_experiment(spec))
    assert str(info.value) == f"{spec}: layers.kit: cannot load 'exits_on_import:tools': SystemExit: 3"


@pytest.mark.parametrize(
    ("layer", "model", "error"),
    [
        (
            "spec_exits_code:tools_exit",
            "spec_exits_code:agent",
            "ExperimentSpecError: {spec}: layers.kit: 'spec_exits_code:tools_exit' failed to build the tools: SystemExit: "
            "the layer gave up",
        ),
        (
            "spec_exits_code:tools_odd",
            "spec_exits_code:agent",
            "ExperimentSpecError: {spec}: layers.kit: 'spec_exits_code:tools_odd' failed to build the tools: Odd: an odd failure",
        ),
        (
            "spec_exits_code:tools",
            "spec_exits_code:agent_exits",
            "ExperimentSpecError: {spec}: models[0].factory: 'spec_exits_code:agent_exits' failed to build the model: "
            "SystemExit: no model today",
        ),
    ],
)
def test_a_factory_that_exits_fails_its_runs_only(tmp_path: Path, layer: str, model: str, error: str) -> None:
    """Before: the command ended at the first run (exit 1, the bare message or a traceback) and
    that run stayed 'running' in the store with no outcome."""
    spec = _spec(tmp_path, layer, model)
    summary = asyncio.run(run_experiment(spec))
    assert [(r.outcome, r.error) for r in summary.records] == [("error", error.format(spec=spec))] * 2
