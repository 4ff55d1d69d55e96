"""The ``toolwire`` command line (typer + rich).

Each sub-command lives in its own module and registers itself on :data:`app`:
``demo`` and ``run`` (``toolwire.cli.run_cmd``), ``lint`` (``toolwire.cli.lint_cmd``),
``replay`` (``toolwire.cli.replay_cmd``).
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="toolwire",
    help="LLM tool calling that works the same against every major vendor.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

@app.callback()
def _root() -> None:
    """LLM tool calling that works the same against every major vendor."""


_COMMAND_MODULES = ("toolwire.cli.run_cmd", "toolwire.cli.lint_cmd", "toolwire.cli.replay_cmd")


def _register() -> None:
    for name in _COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command not written yet
            if exc.name != name:
                raise


def main() -> None:
    """Entry point of the ``toolwire`` script."""
    _register()
    app()
