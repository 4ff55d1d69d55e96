"""Experiments: tool layers measured over repeated runs of one task, on several models.

An experiment spec (TOML, :mod:`toolwire.experiments.spec`) names a task (a prompt, a project
folder copied fresh for every run, a checker command that decides pass or fail), tool layers
(each a toolset, ``module:attr``), models and runs per cell. :func:`run_experiment` runs every
cell (layer × model) that many times through a backend (local, Ray, vendor batch APIs), writing
one record per run, per turn and per tool call to the SQLite run store
(:class:`toolwire.store.RunStore`) as the runs go; run it again after an interruption and it does
only the missing runs. :func:`scoreboard` and :func:`write_report`
(:mod:`toolwire.experiments.report`) read the records back: the scoreboard per layer × model, a
CSV of every run and a chart of input tokens per run by layer.

The command line: ``toolwire experiment run SPEC`` and ``toolwire experiment report SPEC``.
"""

from __future__ import annotations

from .report import scoreboard, write_report
from .runner import (
    ExperimentRun,
    PendingRun,
    Progress,
    RunRecord,
    StoreRecorder,
    build_model,
    build_tools,
    check_project,
    execute_run,
    make_record,
    plan,
    prepare_project,
    run_experiment,
    run_experiment_sync,
)
from .spec import Experiment, ExperimentSpecError, ModelEntry, check_experiment, load_spec, parse_spec

__all__ = [
    "Experiment",
    "ExperimentRun",
    "ExperimentSpecError",
    "ModelEntry",
    "PendingRun",
    "Progress",
    "RunRecord",
    "StoreRecorder",
    "build_model",
    "build_tools",
    "check_experiment",
    "check_project",
    "execute_run",
    "load_spec",
    "make_record",
    "parse_spec",
    "plan",
    "prepare_project",
    "run_experiment",
    "run_experiment_sync",
    "scoreboard",
    "write_report",
]
