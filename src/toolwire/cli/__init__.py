"""The ``toolwire`` command line (typer + rich, the ``cli`` extra).

Each sub-command lives in its own module and registers itself on :data:`app`:
``demo`` and ``run`` (``toolwire.cli.run_cmd``), ``lint`` (``toolwire.cli.lint_cmd``),
``replay`` (``toolwire.cli.replay_cmd``). ``python -m toolwire`` is the same program.

Every command reports an error the same way: one line ``toolwire <command>: <message>`` on
standard error (usage errors add the ``--help`` command to run), then exit code 2 for bad usage
or set-up, 1 for a failure found while running. Output closed by its reader (``| head -1``)
stops the command (or its ``--help``, or ``--version``) quietly with exit code 141, as a shell
reports a program killed by SIGPIPE. Ctrl-C exits 130 (``toolwire <command>: interrupted``).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from toolwire.errors import ToolwireError

if TYPE_CHECKING:
    import typer
else:
    try:
        import typer
    except ImportError:  # the cli extra is not installed: main() says how to install it
        typer = None

_HAVE_TYPER = typer is not None

__all__ = ["EXIT_OUTPUT_CLOSED", "OutputClosed", "app", "console", "error", "fail", "main"]

EXIT_OUTPUT_CLOSED = 141
"""Exit code when the reader of the output went away (``toolwire run ... | head -1``): 128 + 13
(SIGPIPE), what a shell reports for a program the signal killed."""


class OutputClosed(Exception):
    """Standard output or error was closed by its reader while a command wrote to it.

    Not an ``OSError``: click turns a broken pipe into exit 1, which toolwire keeps for
    failures found while running. :func:`main` exits :data:`EXIT_OUTPUT_CLOSED` on it."""


@functools.cache
def _console_type() -> type:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich's own exits 1
            self.quiet = True
            raise OutputClosed

    return _Console


def console(stderr: bool = False, **kwargs: Any) -> Any:
    """A ``rich.console.Console`` for a command's output whose broken pipe raises
    :class:`OutputClosed` (rich's default raises ``SystemExit(1)``)."""
    return _console_type()(stderr=stderr, **kwargs)


class _Interrupted(Exception):
    """Ctrl-C in a command that does not handle it itself (while loading tools, linting, replaying);
    :func:`main` prints ``toolwire <command>: interrupted`` and exits 130."""


def _stops_on_closed_output(callback: Any) -> Any:
    """``callback`` (a command) with a ``BrokenPipeError`` turned into :class:`OutputClosed`
    before click sees it (click would exit 1), and Ctrl-C into :class:`_Interrupted` (typer
    would exit 130 without a word)."""
    if getattr(callback, "_toolwire_output_closed", False):
        return callback

    @functools.wraps(callback)
    def command(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except BrokenPipeError:
            raise OutputClosed from None
        except KeyboardInterrupt:  # typer turns it into a silent exit 130; main() says so first
            raise _Interrupted from None

    command._toolwire_output_closed = True  # type: ignore[attr-defined]
    return command


def _wrap_commands(typer_app: Any) -> None:
    for info in typer_app.registered_commands:
        if info.callback is not None:
            info.callback = _stops_on_closed_output(info.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _wrap_commands(group.typer_instance)


def _output_closed() -> NoReturn:
    """Exit :data:`EXIT_OUTPUT_CLOSED` without a word: the output's reader is gone. Standard output
    is pointed at ``os.devnull`` so the interpreter's last flush does not fail again (the way the
    Python documentation's note on SIGPIPE advises)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file behind sys.stdout (captured in a test)
        pass
    raise SystemExit(EXIT_OUTPUT_CLOSED)


def _version(value: bool) -> None:
    if value:
        from toolwire import __version__

        try:
            print(f"toolwire {__version__}", flush=True)
        except BrokenPipeError:  # typer would exit 1 on it
            raise OutputClosed from None
        raise typer.Exit(0)


if _HAVE_TYPER:
    app: typer.Typer = typer.Typer(
        name="toolwire",
        help="LLM tool calling that works the same against every major vendor.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the toolwire version and exit."
        ),
    ) -> None:
        """LLM tool calling that works the same against every major vendor."""


_COMMAND_MODULES = (
    "toolwire.cli.run_cmd",
    "toolwire.cli.lint_cmd",
    "toolwire.cli.replay_cmd",
    "toolwire.cli.experiment_cmd",
)


def _register() -> None:
    for name in _COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command not written yet
            if exc.name != name:
                raise
    if _HAVE_TYPER:
        _wrap_commands(app)


def _click() -> Any:
    """The click that typer runs on (typer 0.2x ships its own copy as ``typer._click``)."""
    try:
        from typer import _click as click  # type: ignore[attr-defined]
    except ImportError:
        import click
    return click


def _exit_types(click: Any) -> tuple[type[BaseException], ...]:
    return tuple(t for t in (getattr(click.exceptions, "Exit", None), getattr(click, "Exit", None)) if t)


def _abort_types(click: Any) -> tuple[type[BaseException], ...]:
    return tuple(t for t in (getattr(click.exceptions, "Abort", None), getattr(click, "Abort", None)) if t)


def fail(command: str, message: str, code: int = 2) -> NoReturn:
    """Print ``toolwire <command>: <message>`` on standard error (one line, never wrapped or
    styled) and exit with ``code`` (2: bad usage or set-up; 1: a failure while running)."""
    from toolwire.secrets import scrub  # a message may quote an error that quotes a key

    prog = f"toolwire {command}" if command else "toolwire"
    print(f"{prog}: {scrub(' '.join(str(message).split()))}", file=sys.stderr)
    raise typer.Exit(code)


def current_command() -> str:
    """The name of the sub-command being run (``run``, ``demo``, ...), or ``""`` outside one."""
    ctx = None
    for where in ("typer._click.globals", "click.globals"):
        try:
            ctx = importlib.import_module(where).get_current_context(silent=True)
        except (ImportError, AttributeError):
            continue
        break
    return str(getattr(ctx, "info_name", "") or "") if ctx is not None and getattr(ctx, "parent", None) else ""


def error(message: str, code: int = 2) -> NoReturn:
    """:func:`fail` for the sub-command being run."""
    fail(current_command() or "", message, code)


def _quiet_help_types() -> None:
    """Help without type noise: no ``<bool>`` after flags, ``TARGET`` rather than ``<str>`` /
    ``{target}``, the option's name (``--provider PROVIDER``) rather than ``<list[str]>``."""
    from typer import core

    def option_type(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        if self.metavar is not None:
            return self.metavar
        return str(self.name or "value").upper()

    def argument_type(self: Any, ctx: Any) -> str | None:
        return None

    def argument_usage(self: Any) -> str:
        name = self.metavar if self.metavar is not None else str(self.name).upper()
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    if hasattr(core, "TyperOption") and hasattr(core.TyperOption, "display_type_rich"):
        core.TyperOption.display_type_rich = option_type  # type: ignore[method-assign]
    if hasattr(core, "TyperArgument") and hasattr(core.TyperArgument, "display_type_rich"):
        core.TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign]
        core.TyperArgument._rich_display_name = lambda self: (  # type: ignore[method-assign]
            (self.metavar or str(self.name).upper()) + ("..." if self.nargs != 1 else "")
        )
    if hasattr(core, "TyperArgument") and hasattr(core.TyperArgument, "_usage_display_name"):
        core.TyperArgument._usage_display_name = argument_usage  # type: ignore[method-assign]


def _help_stops_on_closed_output() -> None:
    """The help (``toolwire run --help | head -1``) stops on a closed output as a command's output
    does: typer prints it through a rich console of its own (``typer.rich_utils``), whose broken
    pipe exits 1; it is made a :func:`console` one, which raises :class:`OutputClosed`."""
    try:
        from typer import rich_utils
    except ImportError:  # typer without rich prints the help through click
        return
    if isinstance(getattr(rich_utils, "Console", None), type):
        rich_utils.Console = _console_type()  # type: ignore[misc]


def _help_without_leading_blank_line() -> None:
    """The help (``toolwire run --help``) starts at its ``Usage:`` line: typer pads the usage
    line with a blank line on each side (``typer.rich_utils``), so the help began with an empty
    line; the blank line under it, which sets it apart from the rest, is kept."""
    try:
        from rich.padding import Padding
        from rich.text import Text
        from typer import rich_utils
    except ImportError:  # typer without rich prints the help through click
        return
    if getattr(rich_utils, "Padding", None) is not Padding:
        return  # done already, or a typer that pads otherwise

    def padding(renderable: Any, pad: Any = (0, 0, 0, 0), **kwargs: Any) -> Padding:
        if pad == 1 and isinstance(renderable, Text) and renderable.plain.lstrip().startswith("Usage:"):
            pad = (0, 1, 1, 1)  # (top, right, bottom, left)
        return Padding(renderable, pad, **kwargs)

    rich_utils.Padding = padding  # type: ignore[misc,assignment]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``toolwire`` script and of ``python -m toolwire``."""
    if not _HAVE_TYPER:
        from toolwire._install import extra_install_command

        print(
            f"toolwire: the command line needs the cli extra (typer, rich): {extra_install_command('cli')}",
            file=sys.stderr,
        )
        raise SystemExit(2)
    click = _click()
    _register()
    _quiet_help_types()
    _help_stops_on_closed_output()
    _help_without_leading_blank_line()
    args = sys.argv[1:] if argv is None else argv
    try:
        code = app(args=args, prog_name="toolwire", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `toolwire` alone: the help was printed
            raise SystemExit(0) from None
        where = exc.ctx.command_path if exc.ctx is not None else "toolwire"
        from toolwire.secrets import scrub

        message = scrub(" ".join(exc.format_message().split()))
        if message.startswith("Invalid value: "):  # click's prefix of a bare BadParameter (no option named)
            message = message[len("Invalid value: ") :]
        print(f"{where}: {message} (usage: {where} --help)", file=sys.stderr)
        raise SystemExit(2) from None
    except (typer.Exit, *_exit_types(click)) as exc:  # typer.Exit / click's Exit
        raise SystemExit(getattr(exc, "exit_code", getattr(exc, "code", 1))) from None
    except (_Interrupted, KeyboardInterrupt, *_abort_types(click)):
        where = " ".join(["toolwire", *args[:1]]) if args and not args[0].startswith("-") else "toolwire"
        print(f"{where}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except (OutputClosed, BrokenPipeError):
        _output_closed()
    except (ToolwireError, OSError) as exc:  # a set-up problem (two tools with one name, a path to save to)
        from toolwire.secrets import scrub

        where = " ".join(["toolwire", *args[:1]]) if args and not args[0].startswith("-") else "toolwire"
        print(f"{where}: {scrub(' '.join(f'{type(exc).__name__}: {exc}'.split()))}", file=sys.stderr)
        raise SystemExit(2) from None
    raise SystemExit(code if isinstance(code, int) else 0)
