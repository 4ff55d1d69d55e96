"""``toolwire run`` and ``toolwire demo``."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional

import typer

from .._words import plural
from . import app


def _console(stderr: bool = False) -> Any:
    from . import console

    return console(stderr=stderr, highlight=False, soft_wrap=False, emoji=False)


def _e(text: str) -> str:
    """Escape outside text (model output, tool results, error messages) for Rich: a ``[/tmp]`` in
    a result must print as itself, not be read as markup."""
    from rich.markup import escape

    return escape(text)


def _n(value: Any) -> str:
    return "–" if value is None else str(value)


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("\n", "⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_turn(console: Any, turn: Any) -> None:
    """Print one turn: its tool calls with arguments, results (shortened), duration and usage."""
    from rich.table import Table

    resp = turn.response
    u = resp.usage
    usage = (
        "usage not reported"
        if u.input_tokens is None and u.output_tokens is None
        else f"in {_n(u.input_tokens)} / out {_n(u.output_tokens)} tokens"
    )
    console.rule(f"[bold]Turn {turn.number}[/] · stop reason {resp.stop_reason} · {usage}", align="left")
    for part in resp.parts:
        if getattr(part, "type", None) == "reasoning" and part.text:
            console.print(f"[dim]reasoning: {_e(_short(part.text, 200))}[/]")
    if resp.text:
        console.print(f"[cyan]model:[/] {_e(resp.text.strip())}")
    runs = turn.tool_runs
    if runs:
        if len(runs) > 1:
            console.print(f"[magenta]{plural(len(runs), 'tool call')} run in parallel[/]")
        table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
        table.add_column("tool call")
        table.add_column("arguments", overflow="fold", max_width=50)
        table.add_column("result", overflow="fold", max_width=70)
        table.add_column("s", justify="right")
        for r in runs:
            args = (
                json.dumps(r.call.arguments, ensure_ascii=False)
                if r.call.arguments is not None
                else (r.call.raw_arguments or "")
            )
            res = r.result.text
            style = "red" if r.result.is_error else "green"
            flag = "error: " if r.result.is_error else ""
            table.add_row(
                _e(str(r.call.name)),
                _e(_short(args, 100)),
                f"[{style}]{flag}{_e(_short(res, 140))}[/]",
                f"{r.duration:.2f}",
            )
        console.print(table)


def _load_tools(spec: str | list[str]) -> list[Any]:
    """Tools from ``module``, ``module:attr``, ``file.py``, ``file.py:attr`` or
    ``file.py:a,b`` (several names of one module); a list of such specs (``--tools`` given
    several times) adds them all up, in order. Any failure to load becomes a one-line
    ``BadParameter`` (exit 2), never a traceback."""
    specs = [spec] if isinstance(spec, str) else list(spec)
    modules: dict[str, Any] = {}  # each file or module is loaded once, however many specs name it
    tools: list[Any] = []
    for one in specs:
        try:
            # one tool found twice (``b = a`` in the file, ``--tools f.py --tools f.py:a``, or
            # ``f.py:fn,fn`` for a plain function) is one tool, as ``toolwire lint`` counts it; two
            # different tools with one name are still refused by the run
            for t in _load_tools_unchecked(one, modules):
                if not any(t is k or t == k for k in tools):
                    tools.append(t)
        except typer.BadParameter:
            raise
        except SystemExit as exc:
            raise typer.BadParameter(f"loading {one!r} called sys.exit({exc.code!r})") from None
        except Exception as exc:
            raise typer.BadParameter(f"cannot load tools from {one!r}: {type(exc).__name__}: {exc}") from None
    return tools


def _load_module(module_name: str) -> Any:
    path = Path(module_name)
    if path.suffix == ".py" and not path.exists():
        from ..design.lint import _file_hint

        raise typer.BadParameter(f"no such file: {path}{_file_hint(path)}")
    if path.suffix == ".py":
        # a private module name (a tools file called logging.py must not replace the stdlib's), and
        # the file's folder on sys.path, as when running it as a script (its sibling imports work)
        private = f"_toolwire_tools_{abs(hash(str(path.resolve())))}"
        sp = importlib.util.spec_from_file_location(private, path)
        if sp is None or sp.loader is None:
            raise typer.BadParameter(f"cannot load {path}")
        module = importlib.util.module_from_spec(sp)
        folder = str(path.resolve().parent)
        if folder not in sys.path:
            sys.path.append(folder)
        sys.modules[private] = module
        sp.loader.exec_module(module)
        return module
    if path.suffix and path.is_file():  # tools.json, tools.txt: a file, but not a module's name
        raise typer.BadParameter(
            f"{module_name!r} is not a Python file: --tools takes a .py file or a module name "
            "(JSON tool specs are for toolwire lint)"
        )
    if os.sep in module_name or "/" in module_name:  # a path, not a dotted module name
        kind = "a folder" if path.is_dir() else "not a .py file" if path.exists() else "no such file or folder"
        raise typer.BadParameter(f"{module_name!r} is {kind}: --tools takes a .py file or a module name")
    sys.path.insert(0, str(Path.cwd()))
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        raise typer.BadParameter(f"cannot import module {module_name!r}: {exc}") from None


def _plain_functions(module: Any) -> list[str]:
    return [
        name
        for name, v in vars(module).items()
        if inspect.isfunction(v) and v.__module__ == module.__name__ and not name.startswith("_")
    ]


def _load_tools_unchecked(spec: str, modules: dict[str, Any] | None = None) -> list[Any]:
    import difflib

    from ..tools import Tool

    module_name, _, attr = spec.partition(":")
    modules = {} if modules is None else modules
    key = str(Path(module_name).resolve()) if module_name.endswith(".py") else module_name
    if key not in modules:
        modules[key] = _load_module(module_name)
    module = modules[key]
    objs: list[Any] = []
    names = [a.strip() for a in attr.split(",")] if attr else []
    if attr and not all(names):
        raise typer.BadParameter(f"{spec!r}: empty name in the list after ':' (write {module_name}:name1,name2)")
    for one in names:
        try:
            obj = getattr(module, one)
        except AttributeError:
            callables = [
                n
                for n, v in vars(module).items()
                if not n.startswith("_")
                and (isinstance(v, Tool) or inspect.isfunction(v))
                and (isinstance(v, Tool) or v.__module__ == module.__name__)
            ]
            close = difflib.get_close_matches(one, callables, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            listed = f" Its tools and functions: {', '.join(callables)}." if callables else ""
            end = "" if hint or not listed else "."
            raise typer.BadParameter(f"module {module_name!r} has no attribute {one!r}{hint}{end}{listed}") from None
        objs.extend(obj if isinstance(obj, (list, tuple)) else [obj])
    if not attr:
        objs = [v for v in vars(module).values() if isinstance(v, Tool)]
    for o in objs:
        if not isinstance(o, Tool) and not callable(o):
            raise typer.BadParameter(
                f"{spec!r} is a {type(o).__name__}, not a tool, a typed function or a list of them"
            )
    tools = [o if isinstance(o, Tool) else Tool.from_function(o) for o in objs]
    if not tools:
        if attr:
            raise typer.BadParameter(f"{spec!r} is an empty list of tools")
        plain = _plain_functions(module)
        named = f"--tools {module_name}:{','.join(plain[:2])}" if plain else f"--tools {module_name}:function_name"
        raise typer.BadParameter(
            f"{spec!r} defines no tools: only functions decorated with @toolwire.tool are found by the file "
            f"or module name alone. Decorate them, or name them ({named}; several names separated by commas, "
            "or --tools repeated)" + (f"; its functions: {', '.join(plain)}" if plain else "")
        )
    return tools


def _parse_settings(pairs: list[str] | None) -> dict[str, Any]:
    """``["k=v", ...]`` → settings; each value is read as JSON when it is JSON (``512``, ``true``,
    ``{"a": 1}``), else kept as text. A pair without ``=`` or with an empty name (``=512``,
    ``""``) is a usage error, on every command that takes ``--setting``."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            why = (
                "is empty"
                if not pair.strip()
                else f"{pair!r} has no '='"
                if not sep
                else f"{pair!r} has no name before '='"
            )
            raise typer.BadParameter(f"--setting {why}: --setting takes key=value, such as --setting max_tokens=512")
        _utf8_text(pair, f"--setting {key.strip()!r}")
        words = {
            "true": True,
            "false": False,
            "yes": True,
            "no": False,
            "on": True,
            "off": False,
            "none": None,
            "null": None,
        }
        if value.strip().lower() in words:
            out[key.strip()] = words[value.strip().lower()]
            continue
        try:
            out[key.strip()] = json.loads(value, parse_constant=_no_constant)
        except ValueError as exc:
            if "not a number" in str(exc):
                raise typer.BadParameter(f"--setting {key.strip()}: {exc}") from None
            out[key.strip()] = value
    return out


def _utf8_text(value: str, what: str) -> str:
    """``value`` (a command-line argument) when it is UTF-8 text; a usage error naming the first
    byte that is not. Python reads a non-UTF-8 byte of ``argv`` (a Latin-1 terminal's ``é``,
    0xE9) as a lone surrogate (``surrogateescape``), which a request can only carry as U+FFFD:
    the model would read ``caf\ufffd`` for ``café`` without a word."""
    for i, ch in enumerate(value):
        if "\udc80" <= ch <= "\udcff":
            raise typer.BadParameter(
                f"{what} is not UTF-8 text: byte 0x{ord(ch) - 0xDC00:02X} at character {i + 1} "
                "(set the terminal's encoding to UTF-8, or write the text as UTF-8)"
            )
    return value


def _max_turns(value: str) -> int:
    """``--max-turns`` as given (``run`` and ``demo`` alike): a whole number, 1 or more, written
    in ASCII digits; anything else (``0``, ``-1``, ``1.5``, ``abc``) is one usage error (exit 2)
    before anything is printed or sent."""
    import re

    text = value.strip()
    if re.fullmatch(r"\+?[0-9]+", text) and int(text) >= 1:
        return int(text)
    raise typer.BadParameter(f"--max-turns must be a whole number of model requests, 1 or more; got {value!r}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a vendor accepts")


def _error(message: str, code: int) -> NoReturn:
    """One line ``toolwire <command>: <message>`` on standard error, then exit ``code``."""
    from . import error

    error(message, code)


def _run_error_code(exc: BaseException, state: Any) -> int:
    """The exit code of an error that ended a run: 2 (bad usage) when it was raised before the
    run's first answer for what the command line asked — a setting the vendor's rules refuse
    (``--setting max_tokens=abc``), a tool it cannot express, a prompt it cannot take — so no
    request was sent; 1 for a failure found while running (the vendor's error, a malformed
    answer, anything after the first answer)."""
    from ..errors import ProviderError, ResponseDecodeError, RunLimitExceeded

    if isinstance(exc, (ProviderError, ResponseDecodeError, RunLimitExceeded)):
        return 1
    return 1 if getattr(state, "turns", None) else 2


def _live_model(spec: str | None, what: str, settings: dict[str, Any] | None = None) -> Any:
    """Resolve ``spec`` (or ``$TOOLWIRE_MODEL``) with ``settings``; a bad spec or missing
    credentials exit 2 with one line naming what to do."""
    import toolwire

    from ..errors import ToolwireError

    try:
        m = toolwire.model(spec, **(settings or {}))
    except ToolwireError as exc:
        text = str(exc)
        if spec is None:
            text += " (on the command line: --model provider:model-id)"
        _error(f"{text}", 2)
    except TypeError as exc:  # a setting the provider does not take
        _error(f"{str(exc)}", 2)
    # the settings are checked before the credentials (a request is built and checked, nothing
    # is sent), so a bad --setting is reported with a missing key, not only once a key is given
    refused = None
    try:
        m.prepare(m.build_request([toolwire.Message.user("(settings check)")]))
    except ToolwireError as exc:
        refused = str(exc)
    except NotImplementedError:  # a model without a codec (the offline test models): nothing to check
        pass
    problem = m.credential_problem()
    if problem:
        missing = f"{m.name} {what}: {problem} (on the command line: --setting api_key=...)"
        _error(f"{refused}; also, {missing}" if refused else missing, 2)
    if refused:
        _error(refused, 2)
    return m


class LiveView:
    """What ``toolwire run`` shows while a run goes, driven by its events (:mod:`toolwire.events`).

    Text is printed as it streams; on a terminal a live status line under it says what the run
    waits for — the model, a named tool (several when they run in parallel), a retry — with the
    elapsed time; each answered tool call gets one line. The final answer is the streamed text
    itself: it is printed once. Off a terminal (piped) there is no status line."""

    def __init__(self, console: Any) -> None:
        import time

        self.console = console
        self.clock: Callable[[], float] = time.monotonic
        self.line = ""  # the streamed text after the last newline (on a terminal, shown in the live area)
        self.status: str | None = None
        self.since: float = self.clock()
        self.running: dict[str, str] = {}  # tool call id → tool name
        self.live: Any = None
        self.wrote_text = False

    # -- the live area ------------------------------------------------------------------------
    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.text import Text

        items: list[Any] = []
        if self.line:
            items.append(Text(self.line))
        if self.status:
            items.append(Text(f"… {self.status} · {self.clock() - self.since:.1f} s", style="dim"))
        return Group(*items)

    def start(self) -> None:
        if self.console.is_terminal:
            from rich.live import Live

            self.live = Live(self, console=self.console, refresh_per_second=12, transient=True)
            self.live.start()

    def stop(self) -> None:
        self.flush()
        self.set_status(None)
        if self.live is not None:
            self.live.stop()
            self.live = None

    def set_status(self, status: str | None) -> None:
        if status != self.status:
            self.status, self.since = status, self.clock()
        if self.live is not None:
            self.live.refresh()

    # -- text ---------------------------------------------------------------------------------
    def text(self, piece: str) -> None:
        self.wrote_text: bool = True
        if self.live is None:  # not a terminal: write as it comes
            self.console.file.write(piece)
            self.console.file.flush()
            self.line = piece.rsplit("\n", 1)[-1] if "\n" in piece else self.line + piece
            return
        self.line += piece
        if "\n" in self.line:
            done, self.line = self.line.rsplit("\n", 1)
            self.console.print(done, markup=False, highlight=False, soft_wrap=True)
        self.live.refresh()

    def flush(self) -> None:
        """End the streamed text's last line."""
        if self.live is None:
            if self.line:
                self.console.file.write("\n")
                self.console.file.flush()
        elif self.line:
            self.console.print(self.line, markup=False, highlight=False, soft_wrap=True)
        self.line: str = ""

    def print(self, *args: Any, **kwargs: Any) -> None:
        self.flush()
        self.console.print(*args, **kwargs)

    # -- events -------------------------------------------------------------------------------
    def _tool_status(self) -> None:
        names = list(self.running.values())
        if not names:
            self.set_status(None)
        elif len(names) == 1:
            self.set_status(f"tool {names[0]}")
        else:
            shown = ", ".join(dict.fromkeys(names))
            self.set_status(f"tools {shown} ({len(names)} running)")

    def handle(self, event: Any) -> None:
        from .. import events as ev

        if isinstance(event, ev.TurnStarted):
            self.set_status("waiting for the model")
        elif isinstance(event, ev.TextDelta):
            self.text(event.text)
        elif isinstance(event, ev.ReasoningDelta):
            self.set_status("waiting for the model (reasoning)")
        elif isinstance(event, ev.ToolCallStarted):
            self.set_status(f"waiting for the model (writing a call to {event.name})")
        elif isinstance(event, ev.ResponseFinished):
            self.flush()
            self.set_status(None)
        elif isinstance(event, ev.RetryScheduled):
            self.set_status(f"retry {event.attempt} in {event.delay:.1f} s after {event.error}")
        elif isinstance(event, ev.ProviderToolCalled):
            part = event.part
            self.set_status(f"{part.provider} runs {part.name or part.vendor_type}")
        elif isinstance(event, ev.ProviderToolResult):
            part = event.part
            self.print(
                f"  [cyan]{_e(part.provider)} tool[/] {_e(part.name or part.vendor_type)}"
                + (f" → {_e(_short(part.summary, 120))}" if part.summary else "")
            )
            self.set_status("waiting for the model")
        elif isinstance(event, ev.ToolStarted):
            self.running[event.call.id] = str(event.call.name)
            self._tool_status()
        elif isinstance(event, ev.ToolCallPending):
            p = event.pending
            self.print(f"[yellow]  waiting:[/] {_e(str(p.call.name))} ({_e(p.kind)}: {_e(p.reason or '')})")
        elif isinstance(event, ev.ToolFinished):
            self.running.pop(event.run.call.id, None)
            r = event.run
            args = (
                json.dumps(r.call.arguments, ensure_ascii=False)
                if r.call.arguments is not None
                else (r.call.raw_arguments or "")
            )
            style = "red" if r.result.is_error else "green"
            flag = "error: " if r.result.is_error else ""
            self.print(
                f"  [{style}]tool[/] {_e(str(r.call.name))}({_e(_short(args, 80))}) → [{style}]{flag}{_e(_short(r.result.text, 120))}[/] "
                f"[dim]{r.duration:.2f} s[/]"
            )
            self._tool_status()
        elif isinstance(event, ev.TurnFinished):
            self.set_status(None)


def _cost_text(result: Any) -> str:
    """``$0.004215`` (``$0.004215 so far; 1 turn unpriced``), or ``cost unpriced`` — never $0
    for a model the price data does not know."""
    try:
        cost = result.cost
    except Exception as exc:
        return f"cost unknown ({type(exc).__name__})"
    if cost.total.priced and cost.total.total_usd is not None:
        return f"cost ${cost.total.total_usd:.6f}"
    if cost.priced_usd:
        return f"cost ${cost.priced_usd:.6f} + {plural(cost.unpriced_turns, 'unpriced turn')}"
    return "cost unpriced"


def _result_json(result: Any) -> str:
    """The RunResult as JSON with its ``cost`` (:meth:`toolwire.pricing.RunCost.to_dict`) added."""
    data = json.loads(result.to_json())
    try:
        data["cost"] = result.cost.to_dict()
    except Exception as exc:
        data["cost"] = {"priced": False, "reason": f"{type(exc).__name__}: {exc}"}
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate a model sent: escape instead of failing to print
        text = json.dumps(data, indent=2, ensure_ascii=True)
    return text


def _summary(console: Any, result: Any) -> None:
    u = result.usage
    usage = (
        "usage not reported"
        if u.input_tokens is None and u.output_tokens is None
        else f"tokens in {_n(u.input_tokens)} / out {_n(u.output_tokens)}"
    )
    console.print(
        f"[dim]{plural(len(result.turns), 'turn')} · {plural(len(result.tool_runs), 'tool call')} ({plural(result.tool_errors, 'error')}) · "
        f"{usage} · {_cost_text(result)} · stop reason {result.stop_reason}[/]"
    )


class DemoView(LiveView):
    """:class:`LiveView` with a rule line per turn and a note when a turn's tool calls run in
    parallel (``toolwire demo``)."""

    def handle(self, event: Any) -> None:
        from .. import events as ev

        if isinstance(event, ev.TurnStarted):
            self.flush()
            self.console.rule(f"[bold]Turn {event.turn}[/]", align="left")
        super().handle(event)
        if isinstance(event, ev.ResponseFinished) and len(event.response.tool_calls) > 1:
            self.print(f"[magenta]{plural(len(event.response.tool_calls), 'tool call')} run in parallel[/]")


def show_run(console: Any, stream: Any, view: LiveView | None = None) -> Any:
    """Drive ``stream`` (a :class:`toolwire.loop.SyncRunStream`) to its end, showing it on
    ``console`` with ``view`` (a :class:`LiveView` by default); returns the ``RunFinished`` event.
    Errors propagate (the stream's state holds the partial run)."""
    from .. import events as ev

    view = view if view is not None else LiveView(console)
    view.start()
    finished = None
    try:
        for event in stream:
            view.handle(event)
            if isinstance(event, ev.RunFinished):
                finished = event
    finally:
        view.stop()
    return finished


@app.command("run")
def run_command(
    prompt: str = typer.Argument(..., help="The user's message."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="provider:model-id (default: $TOOLWIRE_MODEL)."),
    tools: Optional[list[str]] = typer.Option(
        None,
        "--tools",
        "-t",
        help="file.py or module (its @toolwire.tool functions), or file.py:name / module:name (a tool, a typed "
        "function or a list of them); several names with commas (file.py:a,b). Repeatable: every --tools adds "
        "its tools.",
    ),
    instructions: Optional[str] = typer.Option(None, "--instructions", "-i", help="System prompt."),
    max_turns: str = typer.Option(
        "20", "--max-turns", metavar="N", help="Most model requests (a whole number, 1 or more)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the RunResult as JSON instead of the live view."),
    setting: Optional[list[str]] = typer.Option(
        None,
        "--setting",
        "-s",
        help="Model setting key=value (repeatable), e.g. base_url=http://localhost:11434/v1, max_tokens=512, stream=true.",
    ),
    save: Optional[str] = typer.Option(
        None, "--save", help="Write the run's state (JSON) to this file when it ends, however it ends."
    ),
) -> None:
    """Run the tool loop once: streamed text as it arrives, a status line, one line per tool call."""
    import toolwire

    from ..errors import ToolwireError

    turns = _max_turns(max_turns)
    _utf8_text(prompt, "PROMPT")
    if instructions is not None:
        _utf8_text(instructions, "--instructions")
    if save is not None:  # found out before the run, not after it
        from ..runstate import save_path

        try:
            save_to = save_path(save)
        except (ValueError, IsADirectoryError) as exc:
            raise typer.BadParameter(f"--save {save!r}: {exc}") from None
        if not save_to.parent.is_dir():
            raise typer.BadParameter(f"--save {save!r}: the folder {str(save_to.parent)!r} does not exist")
    else:
        save_to = None
    tool_list = _load_tools(tools) if tools else []
    m = _live_model(model, "needs credentials", _parse_settings(setting))
    console = _console(stderr=as_json)
    stream = toolwire.run_stream_sync(m, prompt, tools=tool_list, instructions=instructions, max_turns=turns)
    try:
        if as_json:
            from ..events import RunFinished

            finished = None
            for event in stream:
                if isinstance(event, RunFinished):  # the last event
                    finished = event
        else:
            finished = show_run(console, stream)
    except KeyboardInterrupt:
        _console(True).print(
            "[yellow]cancelled:[/] the run was interrupted"
            + (f"; its state is in {_e(str(save_to))}" if save_to else "")
        )
        raise typer.Exit(130)
    except ToolwireError as exc:
        _error(f"{str(exc)}", _run_error_code(exc, stream.state))
    finally:
        stream.close()
        if save_to is not None:
            stream.state.save(save_to)
    assert finished is not None  # the stream always ends with its finished event
    result = finished.result
    if finished.error is not None:
        _console(True).print(f"[yellow]stopped:[/] {_e(str(finished.error))}")
        if as_json:
            print(_result_json(result))
        raise typer.Exit(3)
    if as_json:
        print(_result_json(result))
        return
    _summary(console, result)


@app.command("demo")
def demo_command(
    model: Optional[str] = typer.Option(
        None,
        "--model",
        "-m",
        help="provider:model-id to run live (needs its API key). Default: offline, scripted decisions.",
    ),
    workdir: Optional[Path] = typer.Option(
        None, "--workdir", help="Empty or new folder for the copy of the data (default: a temporary folder)."
    ),
    max_turns: str = typer.Option(
        "12", "--max-turns", metavar="N", help="Most model requests (a whole number, 1 or more)."
    ),
    setting: Optional[list[str]] = typer.Option(
        None, "--setting", "-s", help="Model setting key=value for --model (repeatable)."
    ),
) -> None:
    """Run a small agent on a real task with real file tools, then check its result."""
    import toolwire

    from .. import demo
    from ..design.files import file_tools
    from ..errors import ToolwireError

    turns = _max_turns(max_turns)
    console = _console()
    if model is None and setting:
        _error("--setting applies to a live model: pass --model provider:model-id too", 2)
    if model is None:
        m = demo.scripted_model()
        console.print(
            "[bold]toolwire demo[/] (offline): the model's decisions are [bold]scripted[/] — no API key needed — "
            "while the file tools really run on a copy of the data. Pass [bold]--model provider:model-id[/] to run it live."
        )
    else:
        m = _live_model(model, "runs live and needs an API key", _parse_settings(setting))
        console.print(
            f"[bold]toolwire demo[/] (live): {m.name} makes the decisions; the file tools run on a copy of the data."
        )
    try:
        root = demo.prepare_workspace(workdir)
    except (OSError, FileExistsError) as exc:
        _error(f"cannot use --workdir {str(workdir)}: {str(exc)}", 2)
    console.print(f"[dim]workspace (kept after the run, delete it when done): {_e(str(root))}[/]")
    console.print(f"[bold]task:[/] {demo.TASK}")
    tools = file_tools(root)
    # event-driven like `toolwire run`: each text, tool call and the final answer printed once
    stream = toolwire.run_stream_sync(m, demo.TASK, tools=tools, instructions=demo.INSTRUCTIONS, max_turns=turns)
    try:
        finished = show_run(console, stream, view=DemoView(console))
    except ToolwireError as exc:
        _error(f"{str(exc)}", _run_error_code(exc, stream.state))
    finally:
        stream.close()
    if finished is not None and finished.error is not None:
        console.print(f"[yellow]stopped:[/] {_e(str(finished.error))}")
    if finished is not None:
        _summary(console, finished.result)
    outcome = demo.check(root)
    console.rule("[bold]Check", align="left")
    console.print(f"report output: {_e(outcome.report_output)}")
    style = "green" if outcome.passed else "red"
    console.print(f"[{style}]{_e(outcome.summary())}[/]")
    if not outcome.passed:
        raise typer.Exit(1)
