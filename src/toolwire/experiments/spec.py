"""Experiment specs: a TOML file naming the task, the tool layers, the models and the runs.

A spec (every relative path is relative to the spec file's folder, which is also put first on
``sys.path`` so that ``module:attr`` references to modules beside the spec import)::

    name = "sensor-listing"        # the experiment's name: the key of its records
    runs = 3                       # runs per cell (one cell = one layer × one model)
    concurrency = 4                # most runs at the same time
    max_turns = 30                 # most model requests per run
    store = "sensor.sqlite"        # the run store (SQLite); default "<name>.sqlite" beside the spec
    models = ["anthropic:claude-sonnet-4-5", "openai:gpt-5-mini"]

    [task]
    prompt = "The daily report prints a mean that is far too low. Find out why and fix it."
    instructions = "You work in a project folder through file tools."   # optional system prompt
    project = "project"            # a folder (or "module:attr" naming one), copied fresh per run
    checker = ["{python}", "check.py", "{project}"]   # exit status 0 = pass
    checker_timeout = 120          # seconds
    checker_env = []               # more environment variables the checker may see

    [layers]                       # each a toolset: "module:attr" (or a list of them)
    bare-names = "sensor_layers:bare_names"
    byte-sizes = "sensor_layers:byte_sizes"

A layer's ``module:attr`` is a :class:`~toolwire.Tool`, a list of tools and typed functions, or
any other callable, which is called with the run's project folder (a :class:`pathlib.Path`) and
returns such a list (e.g. :func:`toolwire.design.files.file_tools`) — tools that work on files
must be built per run, over that run's fresh copy.

A model is a ``"provider:model-id"`` string or a table ``{model = "provider:model-id", settings
= {...}, factory = "module:attr"}``: ``settings`` are passed to :func:`toolwire.model`;
``factory`` (optional) is called once per run with the :class:`~toolwire.experiments.PendingRun`
and returns the model to use (a :class:`~toolwire.adapter.Model`, a string or a mapping) — the
way to run an experiment offline on the ``scripted`` provider under a model id the price data
knows, e.g. ``model = "scripted:claude-sonnet-4-5"``. ``model`` is the key of the cell in the
records and the report, and the price key of its usage.

The checker is a command (a list of words, or one string split like a shell would) run after
every run with the project copy as its working folder; ``{project}`` (the copy), ``{spec_dir}``
(the spec's folder) and ``{python}`` (this Python interpreter) are replaced in every word, and
``TOOLWIRE_PROJECT`` is set to the copy. It runs code the model may have edited, so its
environment is the one tools get (:func:`toolwire.secrets.tool_environment`: no credentials)
plus the names in ``checker_env``. Exit status 0 means the run passed; anything else, or
running past ``checker_timeout``, means it failed. Keep what the checker compares against (the
true answer, a hash of data the model must not edit) outside the project folder.

:func:`load_spec` raises :class:`ExperimentSpecError` (a
:class:`~toolwire.errors.ConfigurationError`) naming the file and the field for a bad spec.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import math
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from .._words import plural
from ..errors import ConfigurationError

__all__ = [
    "Experiment",
    "ExperimentSpecError",
    "ModelEntry",
    "check_experiment",
    "load_spec",
    "parse_spec",
    "resolve_reference",
]

_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
#: An experiment or layer name (a key of the records, part of file and column names): ASCII only,
#: matched whole (``fullmatch``: ``$`` alone lets a trailing newline through).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_NAME_RULE = "use only ASCII letters (A-Z, a-z), digits (0-9), '.', '_' and '-', starting with a letter or a digit"
MAX_RUNS = 1_000_000
"""Most runs (runs × layers × models) one experiment may hold; a spec asking for more is refused."""

_TOP_KEYS = {"name", "runs", "concurrency", "max_turns", "store", "models", "task", "layers"}
_TASK_KEYS = {"prompt", "instructions", "project", "checker", "checker_timeout", "checker_env"}
_MODEL_KEYS = {"model", "settings", "factory"}
#: The keys of :meth:`Experiment.to_dict` (what :meth:`Experiment.from_dict` reads).
_SAVED_KEYS = (_TOP_KEYS - {"task"}) | _TASK_KEYS | {"spec_dir", "source"}


class ExperimentSpecError(ConfigurationError):
    """A spec that cannot run: the message names the spec file and the field (e.g.
    ``sensor.toml: task.checker: ...``). Attribute ``field``: the dotted field name."""

    def __init__(self, source: str, field_name: str, message: str) -> None:
        self.source = source
        self.field = field_name
        where = f"{source}: {field_name}: " if field_name else f"{source}: "
        super().__init__(where + message)


@dataclass(frozen=True)
class ModelEntry:
    """One model of a spec: ``model`` (``"provider:model-id"``, the cell's key), ``settings``
    (passed to :func:`toolwire.model`) and ``factory`` (``"module:attr"`` or ``None``)."""

    model: str
    settings: dict[str, Any] = field(default_factory=dict)
    factory: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"model": str, "settings": dict, "factory": str or null}`` (``settings`` a shallow
        copy)."""
        return {"model": self.model, "settings": dict(self.settings), "factory": self.factory}


@dataclass(frozen=True)
class Experiment:
    """A loaded spec (see the module docs for the fields). Plain data: it pickles, so it can be
    sent to other processes (a Ray worker) and rebuilt there.

    ``layers`` keeps the spec's order: ``{name: ["module:attr", ...]}``; ``checker`` is the
    command as a list of words (placeholders not yet replaced); ``spec_dir`` the folder relative
    paths and ``module:attr`` imports are resolved from; ``store`` the run store's path.
    """

    name: str
    prompt: str
    project: str
    checker: tuple[str, ...]
    layers: dict[str, tuple[str, ...]]
    models: tuple[ModelEntry, ...]
    runs: int = 1
    concurrency: int = 4
    max_turns: int = 30
    instructions: str | None = None
    checker_timeout: float = 120.0
    checker_env: tuple[str, ...] = ()
    store: str = ""
    spec_dir: str = "."
    source: str = "<spec>"

    # -- derived ----------------------------------------------------------------------------
    @property
    def model_names(self) -> list[str]:
        return [m.model for m in self.models]

    def model_entry(self, model: str) -> ModelEntry:
        """The :class:`ModelEntry` whose ``model`` is ``model`` (``"provider:model-id"``); ``KeyError``
        when the experiment has none."""
        for m in self.models:
            if m.model == model:
                return m
        raise KeyError(f"the experiment {self.name!r} has no model {model!r}")

    def project_dir(self) -> Path:
        """The project folder every run gets a fresh copy of. Raises :class:`ExperimentSpecError`
        when it is not a folder."""
        self.import_path()
        if _REF.match(self.project) and not (Path(self.spec_dir) / self.project).exists():
            try:
                value = resolve_reference(self.project)
            except BaseException as exc:
                if stops_command(exc):
                    raise
                raise ExperimentSpecError(self.source, "task.project", f"cannot load {self.project!r}: {exc}") from None
            path = Path(value)
        else:
            path = Path(self.project)
            if not path.is_absolute():
                path = Path(self.spec_dir) / path
        if not path.is_dir():
            raise ExperimentSpecError(self.source, "task.project", f"{str(path)!r} is not a folder")
        return path

    def import_path(self) -> None:
        """Put the spec's folder first on ``sys.path`` (once), so its ``module:attr`` imports."""
        folder = str(Path(self.spec_dir).resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)

    def checker_command(self, project: Path) -> list[str]:
        """The checker's words with ``{project}``, ``{spec_dir}`` and ``{python}`` replaced."""
        subs = {"{project}": str(project), "{spec_dir}": str(Path(self.spec_dir).resolve()), "{python}": sys.executable}
        out = []
        for word in self.checker:
            for k, v in subs.items():
                word = word.replace(k, v)
            out.append(word)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what the run store keeps in its ``experiments`` table)."""
        return {
            "name": self.name,
            "prompt": self.prompt,
            "instructions": self.instructions,
            "project": self.project,
            "checker": list(self.checker),
            "checker_timeout": self.checker_timeout,
            "checker_env": list(self.checker_env),
            "layers": {k: list(v) for k, v in self.layers.items()},
            "models": [m.to_dict() for m in self.models],
            "runs": self.runs,
            "concurrency": self.concurrency,
            "max_turns": self.max_turns,
            "store": self.store,
            "spec_dir": self.spec_dir,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Experiment:
        """Rebuild an experiment from :meth:`to_dict`'s output (e.g. read back from a run store or
        a JSON file) and check it as :func:`parse_spec` checks a spec: names, ``module:attr``
        references, ``provider:model-id`` models, bounds (whole numbers ≥ 1, a finite
        ``checker_timeout`` > 0, at most :data:`MAX_RUNS` runs). Whether a model's provider is
        installed, the project folder exists and the layers import is not checked here (a saved
        experiment reads back anywhere); :func:`run_experiment` checks that before it runs.

        Raises :class:`ExperimentSpecError` naming the field (``name``, ``layers.<name>``,
        ``models[0].model``...) and what it must be when ``d`` is not a mapping, a key is unknown
        (a misspelt key is named, with the known ones and the closest: ``checker_timout: unknown
        field (...); did you mean 'checker_timeout'?``), a required key is missing (``name``,
        ``prompt``, ``project``, ``checker``, ``layers``, ``models`` or a model's ``model``,
        ``runs``, ``concurrency``, ``max_turns``), or a value has the wrong type or is out of
        bounds (``runs`` ``"3"`` or ``0``, ``layers`` a list, a name with a space)."""
        src = "<saved experiment>"
        if not isinstance(d, Mapping):
            raise ExperimentSpecError(src, "", f"an experiment must be an object (a dict), got {type(d).__name__}")
        given_source = d.get("source", "<spec>")
        if isinstance(given_source, str):
            src = given_source
        hint = None
        if "task" in d:  # a spec's shape (a [task] table), not to_dict's
            hint = "from_dict takes what to_dict() writes (the task's fields at the top level); check a spec's table with parse_spec()"
        _unknown(src, "", d, _SAVED_KEYS, hint=hint)

        def need(key: str) -> Any:
            if key not in d:
                raise ExperimentSpecError(src, key, "missing (to_dict() writes it; the saved experiment is incomplete)")
            return d[key]

        def text(key: str, value: Any, optional: bool = False) -> Any:
            if (value is None and optional) or isinstance(value, str):
                return value
            what = "text or null" if optional else "text"
            raise ExperimentSpecError(src, key, f"must be {what}, got {_type_name(value)}")

        def texts(key: str, value: Any) -> tuple[str, ...]:
            if not isinstance(value, (list, tuple)):
                raise ExperimentSpecError(src, key, f"must be a list of text, got {_type_name(value)}")
            for i, item in enumerate(value):
                if not isinstance(item, str):
                    raise ExperimentSpecError(src, f"{key}[{i}]", f"must be text, got {_type_name(item)}")
            return tuple(value)

        for key in ("name", "prompt", "project", "checker", "layers", "models", "runs", "concurrency", "max_turns"):
            need(key)
        layers = d["layers"]
        if not isinstance(layers, Mapping):
            raise ExperimentSpecError(
                src, "layers", f"must be an object of layer name -> list of 'module:attr', got {_type_name(layers)}"
            )
        models = d["models"]
        if not isinstance(models, (list, tuple)):
            raise ExperimentSpecError(src, "models", f"must be a list of model objects, got {_type_name(models)}")
        entries = []
        for i, m in enumerate(models):
            where = f"models[{i}]"
            if not isinstance(m, Mapping):
                raise ExperimentSpecError(src, where, f"must be an object with 'model', got {_type_name(m)}")
            _unknown(src, where, m, _MODEL_KEYS)
            if "model" not in m:
                raise ExperimentSpecError(src, f"{where}.model", "missing")
            settings = m.get("settings") or {}
            if not isinstance(settings, Mapping):
                raise ExperimentSpecError(src, f"{where}.settings", f"must be an object, got {_type_name(settings)}")
            entries.append(
                ModelEntry(
                    text(f"{where}.model", m["model"]),
                    dict(settings),
                    text(f"{where}.factory", m.get("factory"), optional=True),
                )
            )
        timeout = d.get("checker_timeout", 120.0)
        exp = cls(
            name=text("name", d["name"]),
            prompt=text("prompt", d["prompt"]),
            project=text("project", d["project"]),
            checker=texts("checker", d["checker"]),
            layers={text("layers", k): texts(f"layers.{k}", v) for k, v in layers.items()},
            models=tuple(entries),
            runs=d["runs"],
            concurrency=d["concurrency"],
            max_turns=d["max_turns"],
            instructions=text("instructions", d.get("instructions"), optional=True),
            checker_timeout=timeout,
            checker_env=texts("checker_env", d.get("checker_env") or ()),
            store=text("store", d.get("store", "")),
            spec_dir=text("spec_dir", d.get("spec_dir", ".")),
            source=src if "source" in d else "<spec>",
        )
        check_experiment(exp, providers=False)
        return replace(exp, checker_timeout=float(timeout))

    def fingerprint(self) -> str:
        """A hash of what decides a run's outcome (task, layers, models, max_turns): two specs
        with the same fingerprint make comparable runs."""
        d = self.to_dict()
        keep = {k: d[k] for k in ("prompt", "instructions", "project", "checker", "layers", "models", "max_turns")}
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _shown(value: Any) -> str:
    """``value`` for an error message: its type and a short repr (never a huge or deep one)."""
    from ..types import _shown as shown

    return f"{_type_name(value)} {shown(value)}"


def stops_command(exc: BaseException) -> bool:
    """Whether ``exc``, raised by the spec's own code (a module it imports, a layer or model
    factory), stops the command: ``KeyboardInterrupt`` and a cancellation do. Anything else —
    ``SystemExit`` (a module or factory calling ``sys.exit``) and other ``BaseException``
    subclasses included — is that code's failure, reported as such."""
    import asyncio

    return isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError, GeneratorExit))


def resolve_reference(ref: str) -> Any:
    """Import ``"module:attr"`` and return the attribute (``attr`` may be dotted). Raises
    ``ImportError``/``AttributeError`` with the reason."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{ref!r} is not 'module:attr'")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(
                f"{obj.__name__ if hasattr(obj, '__name__') else obj!r} has no attribute {part!r}"
            ) from None
    return obj


def _int(source: str, name: str, value: Any, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ExperimentSpecError(source, name, f"must be a whole number ≥ {low}, got {_repr(value)}")
    return value


def _text(source: str, name: str, value: Any, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise ExperimentSpecError(source, name, f"must be a non-empty string, got {_repr(value)}")
    return value


def _repr(value: Any) -> str:
    """``value``'s repr for a message, short (a huge or deeply nested value is cut), a tuple shown
    as the list a spec or a saved experiment writes."""
    from ..types import _shown as shown

    return shown(list(value) if isinstance(value, tuple) else value)


def _unknown(source: str, where: str, table: Mapping[str, Any], known: set[str], *, hint: str | None = None) -> None:
    """Refuse the first key of ``table`` not in ``known``, naming the known ones and the closest
    (``difflib``) when one is close: a misspelt key is never dropped silently."""
    import difflib

    extra = sorted((k for k in table if k not in known), key=str)
    if extra:
        key = str(extra[0])
        prefix = f"{where}." if where else ""
        message = f"unknown field (the known ones are: {', '.join(sorted(known))})"
        near = difflib.get_close_matches(key, sorted(known), n=1)
        if hint:
            message += f"; {hint}"
        elif near:
            message += f"; did you mean {near[0]!r}?"
        raise ExperimentSpecError(source, prefix + key, message)


def _ref(source: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or not _REF.match(value):
        raise ExperimentSpecError(source, name, f"must be 'module:attr' (e.g. 'my_tools:toolset'), got {_repr(value)}")
    return value


def check_experiment(
    exp: Experiment, *, task: str = "", model_fields: Sequence[str] | None = None, providers: bool = True
) -> None:
    """Check an :class:`Experiment`'s values as a spec's are checked: names (ASCII letters,
    digits, ``.``, ``_``, ``-``), non-empty texts, whole numbers ≥ 1, a finite ``checker_timeout``
    > 0, a non-empty checker command, ``module:attr`` layers and factories, ``provider:model-id``
    models listed once, at most :data:`MAX_RUNS` runs; with ``providers``, also that each model's
    provider is installed (a model with a factory may name any provider). It imports nothing of
    the spec's (:func:`validate` does that).

    ``task`` prefixes the task's field names in errors (``"task."`` for a TOML spec, whose task
    is a table); ``model_fields`` names each model's field (default ``models[i].model``). Raises
    :class:`ExperimentSpecError` naming the first bad field."""
    source = exp.source
    name = _text(source, "name", exp.name)
    if not _NAME.fullmatch(name):
        raise ExperimentSpecError(source, "name", f"{_NAME_RULE}, got {name!r}")
    runs = _int(source, "runs", exp.runs, 1)
    _int(source, "concurrency", exp.concurrency, 1)
    _int(source, "max_turns", exp.max_turns, 1)

    _text(source, f"{task}prompt", exp.prompt)
    if exp.instructions is not None:
        _text(source, f"{task}instructions", exp.instructions)
    _text(source, f"{task}project", exp.project)
    checker = exp.checker
    if not isinstance(checker, (list, tuple)) or not all(isinstance(w, str) for w in checker):
        raise ExperimentSpecError(
            source, f"{task}checker", f"must be a command: a list of strings, got {_repr(checker)}"
        )
    if not checker or not checker[0].strip():
        raise ExperimentSpecError(source, f"{task}checker", "is empty; give the command that decides pass or fail")
    timeout = exp.checker_timeout
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not math.isfinite(timeout) or timeout <= 0:
        raise ExperimentSpecError(
            source, f"{task}checker_timeout", f"must be a finite number of seconds > 0, got {_repr(timeout)}"
        )
    env = exp.checker_env
    if not isinstance(env, (list, tuple)) or not all(isinstance(n, str) and n for n in env):
        raise ExperimentSpecError(
            source, f"{task}checker_env", f"must be a list of environment variable names, got {_repr(env)}"
        )

    layers = exp.layers
    if not isinstance(layers, Mapping) or not layers:
        raise ExperimentSpecError(source, "layers", 'must be a table with at least one layer (name = "module:attr")')
    for lname, refs in layers.items():
        if not isinstance(lname, str) or not _NAME.fullmatch(lname):
            raise ExperimentSpecError(source, f"layers.{lname}", f"{_NAME_RULE}, got {lname!r}")
        if not isinstance(refs, (list, tuple)):
            raise ExperimentSpecError(source, f"layers.{lname}", f"must be a list of 'module:attr', got {_repr(refs)}")
        if not refs:
            raise ExperimentSpecError(source, f"layers.{lname}", "names no toolset")
        for ref in refs:
            _ref(source, f"layers.{lname}", ref)

    models = exp.models
    if not isinstance(models, (list, tuple)) or not models:
        raise ExperimentSpecError(source, "models", "must be a list of 'provider:model-id' strings or model tables")
    seen: set[str] = set()
    for i, entry in enumerate(models):
        where = f"models[{i}]"
        if not isinstance(entry, ModelEntry):
            raise ExperimentSpecError(source, where, f"must be a ModelEntry, got {_repr(entry)}")
        field_name = model_fields[i] if model_fields is not None else f"{where}.model"
        model = _text(source, field_name, entry.model)
        if not isinstance(entry.settings, Mapping):
            raise ExperimentSpecError(source, f"{where}.settings", "must be a table of model settings")
        if entry.factory is not None:
            _ref(source, f"{where}.factory", entry.factory)
        provider, sep, model_id = model.partition(":")
        if not sep or not provider or not model_id:
            offline = model.strip() in ("test", "scripted")
            raise ExperimentSpecError(
                source,
                field_name,
                f"must be 'provider:model-id' (e.g. 'anthropic:claude-sonnet-4-5'), got {model!r}"
                + (
                    f"; an experiment names each model, so write the offline provider as "
                    f"'{model.strip()}:<a name>' (e.g. '{model.strip()}:baseline')"
                    if offline
                    else ""
                ),
            )
        if model in seen:
            raise ExperimentSpecError(source, where, f"{model!r} is listed twice")
        seen.add(model)
        if (
            providers and entry.factory is None
        ):  # the provider must exist and be installed (a factory's label may be anything)
            from ..errors import ProviderNotFound
            from ..registry import _factory

            try:
                _factory(provider, shown=model)
            except ProviderNotFound as exc:
                raise ExperimentSpecError(source, field_name, str(exc)) from None

    total = runs * len(layers) * len(models)
    if total > MAX_RUNS:
        raise ExperimentSpecError(
            source,
            "runs",
            f"{plural(runs, 'run')} × {plural(len(layers), 'layer')} × {plural(len(models), 'model')} is {total:,} runs; "
            f"an experiment holds at most {MAX_RUNS:,} runs, lower runs or split the experiment",
        )


def parse_spec(data: Mapping[str, Any], *, source: str = "<spec>", spec_dir: str | Path = ".") -> Experiment:
    """Check a spec already read from TOML (a dict of the spec's tables: ``name``, ``models``,
    ``task``, ``layers`` and the optional fields) and return the :class:`Experiment`; relative
    paths (the store) are resolved from ``spec_dir``. Checks what :func:`check_experiment`
    checks, the provider of each model without a factory included; it imports nothing (the
    project and the layers are checked by :func:`load_spec`). Raises :class:`ExperimentSpecError`
    naming the first bad field: an unknown key (with the known ones and the closest), a missing
    one, a wrong type or a value out of bounds."""
    _unknown(source, "", data, _TOP_KEYS)
    for required in ("name", "models", "task", "layers"):
        if required not in data:
            raise ExperimentSpecError(source, required, "missing (required)")
    name = _text(source, "name", data["name"])

    task = data["task"]
    if not isinstance(task, Mapping):
        raise ExperimentSpecError(source, "task", "must be a table ([task])")
    _unknown(source, "task", task, _TASK_KEYS)
    for required in ("prompt", "project", "checker"):
        if required not in task:
            raise ExperimentSpecError(source, f"task.{required}", "missing (required)")
    checker_raw = task["checker"]
    if isinstance(checker_raw, str):
        try:
            checker = tuple(shlex.split(checker_raw))
        except ValueError as exc:
            raise ExperimentSpecError(source, "task.checker", f"cannot split {checker_raw!r}: {exc}") from None
    elif isinstance(checker_raw, list) and all(isinstance(w, str) for w in checker_raw):
        checker = tuple(checker_raw)
    else:
        raise ExperimentSpecError(
            source, "task.checker", f"must be a command: a string or a list of strings, got {_repr(checker_raw)}"
        )
    checker_env = task.get("checker_env", [])
    if not isinstance(checker_env, list):
        raise ExperimentSpecError(
            source, "task.checker_env", f"must be a list of environment variable names, got {_repr(checker_env)}"
        )

    layers_raw = data["layers"]
    if not isinstance(layers_raw, Mapping) or not layers_raw:
        raise ExperimentSpecError(source, "layers", 'must be a table with at least one layer (name = "module:attr")')
    layers = {lname: tuple(value if isinstance(value, list) else [value]) for lname, value in layers_raw.items()}

    models_raw = data["models"]
    if isinstance(models_raw, (str, Mapping)):
        models_raw = [models_raw]
    if not isinstance(models_raw, list) or not models_raw:
        raise ExperimentSpecError(source, "models", "must be a list of 'provider:model-id' strings or model tables")
    models: list[ModelEntry] = []
    model_fields: list[str] = []
    for i, m in enumerate(models_raw):
        where = f"models[{i}]"
        if isinstance(m, str):
            models.append(ModelEntry(m))
            model_fields.append(where)
        elif isinstance(m, Mapping):
            _unknown(source, where, m, _MODEL_KEYS)
            if "model" not in m:
                raise ExperimentSpecError(source, f"{where}.model", "missing (required): 'provider:model-id'")
            settings = m.get("settings") or {}
            if not isinstance(settings, Mapping):
                raise ExperimentSpecError(source, f"{where}.settings", "must be a table of model settings")
            models.append(ModelEntry(m["model"], dict(settings), m.get("factory")))
            model_fields.append(f"{where}.model")
        else:
            raise ExperimentSpecError(source, where, f"must be 'provider:model-id' or a table, got {_repr(m)}")

    spec_dir = Path(spec_dir)
    store = _text(source, "store", data.get("store", f"{name}.sqlite"))
    store_path = Path(store) if Path(store).is_absolute() else spec_dir / store
    timeout = task.get("checker_timeout", 120)
    exp = Experiment(
        name=name,
        prompt=task["prompt"],
        project=task["project"],
        checker=checker,
        layers=layers,
        models=tuple(models),
        runs=data.get("runs", 1),
        concurrency=data.get("concurrency", 4),
        max_turns=data.get("max_turns", 30),
        instructions=task.get("instructions"),
        checker_timeout=timeout,
        checker_env=tuple(checker_env),
        store=str(store_path),
        spec_dir=str(spec_dir),
        source=source,
    )
    check_experiment(exp, task="task.", model_fields=model_fields)
    return replace(exp, checker_timeout=float(timeout))


def load_spec(path: str | Path, *, check: bool = True) -> Experiment:
    """Read and check the TOML spec at ``path``. With ``check`` (the default) the project
    folder must exist and every layer and factory must import. Raises
    :class:`ExperimentSpecError` naming the file and the field."""
    p = Path(path)
    source = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExperimentSpecError(source, "", f"cannot read the spec: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 (https://toml.io/en/v1.0.0#spec)
        raise ExperimentSpecError(
            source, "", f"not valid TOML: byte {exc.start} is not UTF-8 (a TOML file is UTF-8 text)"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentSpecError(source, "", f"not valid TOML: {exc}") from None
    exp = parse_spec(data, source=source, spec_dir=p.resolve().parent)
    if check:
        validate(exp)
    return exp


def _check_layer_value(source: str, where: str, ref: str, obj: Any) -> None:
    """Refuse a layer value that is not a tool, a list of tools, or a factory taking the project folder."""
    from ..tools import Tool

    if isinstance(obj, (list, tuple)):
        for item in obj:
            if not isinstance(item, Tool) and not callable(item):
                raise ExperimentSpecError(
                    source, where, f"{ref!r} holds a {type(item).__name__}, not a tool; list tools or typed functions"
                )
        return
    if isinstance(obj, Tool):
        return
    if callable(obj) and not isinstance(obj, type):
        try:
            inspect.signature(obj).bind(Path("."))
        except TypeError:
            raise ExperimentSpecError(
                source, where, f"{ref!r} does not take the project folder; a layer factory is called as factory(path)"
            ) from None
        except ValueError:  # no signature to inspect (some builtins): checked when the run builds its tools
            pass
        return
    raise ExperimentSpecError(
        source,
        where,
        f"{ref!r} is a {type(obj).__name__}, not a tool, a list of tools, or a factory taking the project folder",
    )


def validate(exp: Experiment) -> None:
    """Check that the project folder exists and that every layer and factory imports."""
    exp.project_dir()
    exp.import_path()
    for lname, refs in exp.layers.items():
        for ref in refs:
            try:
                obj = resolve_reference(ref)
            except BaseException as exc:  # (a module that calls sys.exit on import too)
                if stops_command(exc):
                    raise
                raise ExperimentSpecError(
                    exp.source, f"layers.{lname}", f"cannot load {ref!r}: {type(exc).__name__}: {exc}"
                ) from None
            _check_layer_value(exp.source, f"layers.{lname}", ref, obj)
    for i, m in enumerate(exp.models):
        if m.factory:
            try:
                obj = resolve_reference(m.factory)
            except BaseException as exc:
                if stops_command(exc):
                    raise
                raise ExperimentSpecError(
                    exp.source, f"models[{i}].factory", f"cannot load {m.factory!r}: {type(exc).__name__}: {exc}"
                ) from None
            if not callable(obj):
                raise ExperimentSpecError(exp.source, f"models[{i}].factory", f"{m.factory!r} is not callable")
