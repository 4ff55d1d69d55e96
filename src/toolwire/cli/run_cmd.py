"""``toolwire run`` and ``toolwire demo``."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from . import app


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False, emoji=False)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


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
    usage = ("usage not reported" if u.input_tokens is None and u.output_tokens is None
             else f"in {_n(u.input_tokens)} / out {_n(u.output_tokens)} tokens")
    console.rule(f"[bold]Turn {turn.number}[/] · stop reason {resp.stop_reason} · {usage}", align="left")
    for part in resp.parts:
        if getattr(part, "type", None) == "reasoning" and part.text:
            console.print(f"[dim]reasoning: {_e(_short(part.text, 200))}[/]")
    if resp.text:
        console.print(f"[cyan]model:[/] {_e(resp.text.strip())}")
    runs = turn.tool_runs
    if runs:
        if len(runs) > 1:
            console.print(f"[magenta]{len(runs)} tool calls run in parallel[/]")
        table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
        table.add_column("tool call")
        table.add_column("arguments", overflow="fold", max_width=50)
        table.add_column("result", overflow="fold", max_width=70)
        table.add_column("s", justify="right")
        for r in runs:
            args = json.dumps(r.call.arguments, ensure_ascii=False) if r.call.arguments is not None else (r.call.raw_arguments or "")
            res = r.result.text
            style = "red" if r.result.is_error else "green"
            flag = "error: " if r.result.is_error else ""
            table.add_row(_e(str(r.call.name)), _e(_short(args, 100)), f"[{style}]{flag}{_e(_short(res, 140))}[/]", f"{r.duration:.2f}")
        console.print(table)


def _load_tools(spec: str) -> list[Any]:
    """Tools from ``module``, ``module:attr``, ``file.py`` or ``file.py:attr``; any failure to
    load becomes a one-line ``BadParameter`` (exit 2), never a traceback."""
    try:
        return _load_tools_unchecked(spec)
    except typer.BadParameter:
        raise
    except SystemExit as exc:
        raise typer.BadParameter(f"loading {spec!r} called sys.exit({exc.code!r})") from None
    except Exception as exc:
        raise typer.BadParameter(f"cannot load tools from {spec!r}: {type(exc).__name__}: {exc}") from None


def _load_tools_unchecked(spec: str) -> list[Any]:
    from ..tools import Tool

    module_name, _, attr = spec.partition(":")
    path = Path(module_name)
    if path.suffix == ".py" and not path.exists():
        raise typer.BadParameter(f"no such file: {path}")
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
    else:
        sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise typer.BadParameter(f"cannot import module {module_name!r}: {exc}") from None
    if attr:
        try:
            obj = getattr(module, attr)
        except AttributeError:
            raise typer.BadParameter(f"module {module_name!r} has no attribute {attr!r}") from None
        objs = obj if isinstance(obj, (list, tuple)) else [obj]
    else:
        objs = [v for v in vars(module).values() if isinstance(v, Tool)]
    for o in objs:
        if not isinstance(o, Tool) and not callable(o):
            raise typer.BadParameter(f"{spec!r} is a {type(o).__name__}, not a tool, a typed function or a list of them")
    tools = [o if isinstance(o, Tool) else Tool.from_function(o) for o in objs]
    if not tools:
        raise typer.BadParameter(f"{spec!r} defines no tools")
    return tools


def _parse_settings(pairs: list[str] | None) -> dict[str, Any]:
    """``["k=v", ...]`` → settings; each value is read as JSON when it is JSON (``512``, ``true``,
    ``{"a": 1}``), else kept as text. A pair without ``=`` is a usage error."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"--setting takes key=value, got {pair!r}")
        words = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False, "none": None, "null": None}
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a vendor accepts")


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
        _console(True).print(f"[red]error:[/] {_e(text)}")
        raise typer.Exit(2)
    except TypeError as exc:  # a setting the provider does not take
        _console(True).print(f"[red]error:[/] {_e(str(exc))}")
        raise typer.Exit(2)
    problem = m.credential_problem()
    if problem:
        _console(True).print(f"[red]error:[/] {_e(m.name)} {what}: {_e(problem)} (on the command line: --setting api_key=...)")
        raise typer.Exit(2)
    return m


@app.command("run")
def run_command(
    prompt: str = typer.Argument(..., help="The user's message."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="provider:model-id (default: $TOOLWIRE_MODEL)."),
    tools: Optional[str] = typer.Option(None, "--tools", "-t", help="module, module:attr or file.py defining the tools."),
    instructions: Optional[str] = typer.Option(None, "--instructions", "-i", help="System prompt."),
    max_turns: int = typer.Option(20, "--max-turns", help="Most model requests."),
    as_json: bool = typer.Option(False, "--json", help="Print the RunResult as JSON instead of the turn report."),
    setting: Optional[List[str]] = typer.Option(None, "--setting", "-s", help="Model setting key=value (repeatable), e.g. base_url=http://localhost:11434/v1, max_tokens=512."),
) -> None:
    """Run the tool loop once and show each turn (tool calls, results, usage)."""
    import toolwire
    from ..errors import RunLimitExceeded, ToolwireError

    if max_turns < 1:
        raise typer.BadParameter(f"--max-turns must be at least 1, got {max_turns}")
    tool_list = _load_tools(tools) if tools else []
    m = _live_model(model, "needs credentials", _parse_settings(setting))
    console = _console(stderr=as_json)
    try:
        result = toolwire.run_sync(m, prompt, tools=tool_list, instructions=instructions, max_turns=max_turns,
                                   on_turn=None if as_json else (lambda t: render_turn(console, t)))
    except RunLimitExceeded as exc:
        result = exc.result
        _console(True).print(f"[yellow]stopped:[/] {_e(str(exc))}")
        if as_json:
            print(result.to_json(indent=2))
        raise typer.Exit(3)
    except ToolwireError as exc:
        _console(True).print(f"[red]error:[/] {_e(str(exc))}")
        raise typer.Exit(1)
    if as_json:
        print(result.to_json(indent=2))
        return
    u = result.usage
    console.rule("[bold]Result", align="left")
    console.print(result.text, markup=False, soft_wrap=True)
    console.print(
        f"[dim]{_plural(len(result.turns), 'turn')} · {_plural(len(result.tool_runs), 'tool call')} ({_plural(result.tool_errors, 'error')}) · "
        f"tokens in {_n(u.input_tokens)} / out {_n(u.output_tokens)} · stop reason {result.stop_reason}[/]"
    )


@app.command("demo")
def demo_command(
    model: Optional[str] = typer.Option(None, "--model", "-m", help="provider:model-id to run live (needs its API key). Default: offline, scripted decisions."),
    workdir: Optional[Path] = typer.Option(None, "--workdir", help="Empty or new folder for the copy of the data (default: a temporary folder)."),
    max_turns: int = typer.Option(12, "--max-turns", help="Most model requests."),
    setting: Optional[List[str]] = typer.Option(None, "--setting", "-s", help="Model setting key=value for --model (repeatable)."),
) -> None:
    """Run a small agent on a real task with real file tools, then check its result."""
    import toolwire
    from .. import demo
    from ..design.files import file_tools
    from ..errors import RunLimitExceeded, ToolwireError

    console = _console()
    if model is None and setting:
        _console(True).print("[red]error:[/] --setting applies to a live model: pass --model provider:model-id too")
        raise typer.Exit(2)
    if model is None:
        m = demo.scripted_model()
        console.print(
            "[bold]toolwire demo[/] (offline): the model's decisions are [bold]scripted[/] — no API key needed — "
            "while the file tools really run on a copy of the data. Pass [bold]--model provider:model-id[/] to run it live."
        )
    else:
        m = _live_model(model, "runs live and needs an API key", _parse_settings(setting))
        console.print(f"[bold]toolwire demo[/] (live): {m.name} makes the decisions; the file tools run on a copy of the data.")
    try:
        root = demo.prepare_workspace(workdir)
    except (OSError, FileExistsError) as exc:
        _console(True).print(f"[red]error:[/] cannot use --workdir {_e(str(workdir))}: {_e(str(exc))}")
        raise typer.Exit(2)
    console.print(f"[dim]workspace (kept after the run, delete it when done): {_e(str(root))}[/]")
    console.print(f"[bold]task:[/] {demo.TASK}")
    tools = file_tools(root)
    try:
        result = toolwire.run_sync(m, demo.TASK, tools=tools, instructions=demo.INSTRUCTIONS, max_turns=max_turns,
                                   on_turn=lambda t: render_turn(console, t))
        final = result.text
        console.rule("[bold]Final answer", align="left")
        console.print(final, markup=False, soft_wrap=True)
        u = result.usage
        console.print(f"[dim]{_plural(len(result.turns), 'turn')} · {_plural(len(result.tool_runs), 'tool call')} ({_plural(result.tool_errors, 'error')}) · "
                      f"tokens in {_n(u.input_tokens)} / out {_n(u.output_tokens)}[/]")
    except RunLimitExceeded as exc:
        console.print(f"[yellow]stopped:[/] {_e(str(exc))}")
    except ToolwireError as exc:
        _console(True).print(f"[red]error:[/] {_e(str(exc))}")
        raise typer.Exit(1)
    outcome = demo.check(root)
    console.rule("[bold]Check", align="left")
    console.print(f"report output: {_e(outcome.report_output)}")
    style = "green" if outcome.passed else "red"
    console.print(f"[{style}]{_e(outcome.summary())}[/]")
    if not outcome.passed:
        raise typer.Exit(1)
