"""``toolwire lint TARGET``: review tool definitions before the first run."""

from __future__ import annotations

import json
from typing import Any, Optional

import typer
from typer.core import TyperCommand

from toolwire._words import plural
from toolwire.cli import _click, app


def _e(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _parse_live(name: str) -> tuple[str, str]:
    """``--live provider:model`` → ``(provider, model_id)``. Raises
    :class:`~toolwire.errors.ConfigurationError` for a malformed name or an unknown provider."""
    from toolwire.design.lint import DEFAULT_PROVIDERS
    from toolwire.errors import ConfigurationError
    from toolwire.registry import parse_model_name

    try:
        prov, model_id = parse_model_name(name)
    except ConfigurationError as exc:
        raise ConfigurationError(f"--live: {exc}") from exc
    if prov not in DEFAULT_PROVIDERS:
        raise ConfigurationError(f"--live: unknown provider {prov!r}; known providers: {', '.join(DEFAULT_PROVIDERS)}")
    return prov, model_id


def _print_rules(value: bool) -> None:
    """``--rules``: print each lint rule (id, severity, what it costs the model, the fix) and exit
    0, before the target is asked for (an eager option, like ``--help``)."""
    if not value:
        return
    from toolwire.design.lint import RULES

    for rule in RULES.values():
        typer.echo(f"{rule.id} ({rule.severity}): {rule.why}\n    fix: {rule.fix}")
    raise typer.Exit(0)


class _LintCommand(TyperCommand):
    """``toolwire lint``, refusing ``--rules`` with anything but ``--help`` beside it: the eager
    ``--rules`` lists the rules and exits before a TARGET or another option is read, so a file
    named with it would go unlinted without a word."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if "--rules" in args:
            others = [a for a in args if a not in ("--rules", "--help")]
            if others:
                raise _click().exceptions.UsageError(
                    f"--rules lists the lint rules and takes no TARGET or other option (got {' '.join(others)!r}): "
                    "run 'toolwire lint --rules' and 'toolwire lint TARGET' separately.",
                    ctx=ctx,
                )
        return super().parse_args(ctx, args)


def _live_cost(tools: list, prov: str, model_id: str) -> dict:
    """The live count as the summary's ``token_cost_live[prov]`` entry: the cost, or
    ``{"error": ...}`` naming the variable to set (the model's ``credential_problem()``), the
    provider without an endpoint (its profile counts nothing), or the vendor's error."""
    from toolwire.design.tokens import count_tool_tokens_live

    try:
        import toolwire

        problem = toolwire.model(f"{prov}:{model_id}").credential_problem()
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    if problem:
        return {"error": f"{prov}: {problem}"}
    try:
        return count_tool_tokens_live(tools, prov, model_id).to_dict()
    except NotImplementedError as exc:
        return {"error": str(exc)}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}


def _installed_providers() -> list[str] | None:
    """The lint providers whose adapters are installed (``None``, meaning all four, when none is:
    the name rules and token estimates still apply, translation findings say what is missing)."""
    from toolwire.design.lint import DEFAULT_PROVIDERS
    from toolwire.registry import available_providers

    installed = set(available_providers())
    return [p for p in DEFAULT_PROVIDERS if p in installed] or None


@app.command("lint", cls=_LintCommand)
def lint(
    target: str = typer.Argument(
        ...,
        help="A module (every top-level Tool), module:attr or module:a,b (Tools, typed functions, lists or factories), a Python file (file.py, file.py:attr, file.py:a,b), a JSON file of tool specs, or an MCP server: 'mcp:<command line>' (started over stdio) or 'mcp:<http(s) URL>'.",
    ),
    provider: Optional[list[str]] = typer.Option(
        None,
        "--provider",
        "-p",
        help="Provider to check (repeatable): anthropic, openai, openai-chat, gemini. Default: those whose adapters are installed (all four when none is).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {findings, summary} as JSON."),
    ambiguous: Optional[list[str]] = typer.Option(
        None, "--ambiguous", help="Another parameter name to treat as ambiguous (repeatable)."
    ),
    ignore: Optional[list[str]] = typer.Option(None, "--ignore", help="Rule id to skip (repeatable)."),
    live_model: Optional[str] = typer.Option(
        None,
        "--live",
        help="Also count tokens with the vendor's endpoint for this provider:model (needs its API key and network; Anthropic, OpenAI and Gemini count with their own endpoints, openai-chat with the Responses one).",
    ),
    rules: bool = typer.Option(
        False,
        "--rules",
        help="List every rule (id, severity, what it costs the model, fix) and exit; takes no TARGET or other option.",
        is_eager=True,
        callback=_print_rules,
    ),
) -> None:
    """Check tool definitions: descriptions, ambiguous parameters, names of undeclared parameters,
    what each provider's adapter rewrites, provider name rules, and per-turn token cost.
    Exits 1 when an error is found, 2 when the target cannot be loaded or an option is unusable
    (an unknown --provider, a malformed or unknown --live model)."""
    from toolwire.design.lint import RULES, check_providers, lint_tools, load_tools_noting_functions
    from toolwire.errors import ConfigurationError, ToolwireError
    from toolwire.secrets import scrub  # an import error may quote a key the tools file read

    try:
        providers = check_providers(provider) if provider else _installed_providers()
        live = _parse_live(live_model) if live_model is not None else None
    except ToolwireError as exc:
        typer.echo(f"toolwire lint: {scrub(str(exc))}", err=True)
        raise typer.Exit(2)
    renames: dict = {}
    left_out: dict[str, str] = {}
    skipped: list[str] = []
    try:
        if target.startswith("mcp:"):
            import warnings

            from toolwire.mcp import MCPListingWarning, list_tools_sync

            with warnings.catch_warnings(record=True) as seen:  # the renames are reported below
                warnings.simplefilter("always")
                tools, renames = list_tools_sync(target[4:])
            for w in seen:  # the tools left out, their definitions not being valid MCP
                if isinstance(w.message, MCPListingWarning):
                    left_out[w.message.tool] = w.message.problem
        else:
            tools, skipped = load_tools_noting_functions(target)
    except ToolwireError as exc:
        typer.echo(f"toolwire lint: {scrub(str(exc))}", err=True)
        raise typer.Exit(2)
    except Exception as exc:  # anything load_tools did not foresee: still one line, exit 2
        typer.echo(
            f"toolwire lint: cannot load {target!r}: {type(exc).__name__}: {scrub(' '.join(str(exc).split()))[:300]}",
            err=True,
        )
        raise typer.Exit(2)
    try:
        report = lint_tools(tools, providers=providers, ambiguous_names=ambiguous or None, ignore=ignore or None)
    except ConfigurationError as exc:  # an unknown --ignore rule id (the target may register rules)
        typer.echo(f"toolwire lint: --{scrub(str(exc))} (toolwire lint --rules lists them)", err=True)
        raise typer.Exit(2)
    if skipped:
        report.summary["functions_not_linted"] = skipped
    if renames:
        report.summary["mcp_renames"] = renames
    # a tool the server listed whose definition is not valid MCP is left out of every run: an error
    exit_code = max(report.exit_code, 1) if left_out else report.exit_code
    if left_out:
        report.summary["mcp_left_out"] = left_out
    if live is not None:
        report.summary.setdefault("token_cost_live", {})[live[0]] = _live_cost(tools, *live)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        raise typer.Exit(exit_code)

    from rich.table import Table

    from . import console as new_console

    console = new_console()
    colour = {"error": "red", "warning": "yellow", "info": "dim"}
    for new, old in renames.items():
        console.print(
            f"[dim]info   [/] [bold]mcp-name[/] {_e(old)} is named {_e(new)} for the model "
            "(letters, digits, '_' and '-', at most 64 characters)",
            highlight=False,
        )
    for name, problem in left_out.items():
        console.print(
            f"[red]error  [/] [bold]mcp-left-out[/] {_e(name)}: its definition is not valid MCP ({_e(problem)}); "
            "the tool is left out of every run, the others are used. Fix its definition in the server",
            highlight=False,
        )
    shown = [f for f in report.findings if f.rule != "token-cost"]
    for f in shown:
        where = f"{f.tool}{f.pointer}"
        prov = f" [{f.provider}]" if f.provider else ""
        console.print(
            f"[{colour[f.severity]}]{f.severity:<7}[/] [bold]{f.rule}[/]{_e(prov)} {_e(where)}", highlight=False
        )
        console.print(f"        {f.message}", highlight=False, markup=False)
        console.print(f"        fix: {f.fix}", highlight=False, markup=False)
    costs = report.summary.get("token_cost") or {}
    if costs:
        table = Table(title="Per-turn tokens of the tool definitions")
        table.add_column("tool")
        provs = [p for p, c in costs.items() if "tools" in c]
        for p in provs:
            table.add_column(p + ("" if costs[p]["exact"] else " (est.)"), justify="right")
        from ..design.tokens import tool_label

        for t in tools:  # a vendor's own tool is labelled (vendor/type): two vendors' tools may share a name
            label = tool_label(t)
            table.add_row(_e(label), *[str(costs[p]["tools"].get(label, "")) for p in provs])
        table.add_row("[bold]whole set[/]", *[f"[bold]{costs[p]['tokens']}[/]" for p in provs])
        console.print(table)
    cache = report.summary.get("prompt_cache") or {}
    short: list[str] = []  # the APIs whose minimum cached prefix the tool set alone does not reach
    for prov, saving in cache.items():
        if not saving["cacheable_alone"]:
            short.append(f"{prov} {saving['tokens']} of {saving['min_prefix_tokens']}")
            continue
        console.print(
            f"Prompt caching ({prov}, setting cache=True): each later request reads {saving['tokens']} tokens "
            f"of tool definitions from the cache; cached prefixes start at {saving['min_prefix_tokens']} tokens "
            "(the tool definitions alone reach it)",
            highlight=False,
            markup=False,
        )
    if short:  # one line, not one per API: for a small tool set it is the same story everywhere
        console.print(
            f"Prompt caching (setting cache=True): the tool definitions alone are under "
            f"{'each API' + chr(39) + 's' if len(short) > 1 else 'the'} minimum cached prefix "
            f"({', '.join(short)} tokens); later requests read them from the cache once the "
            "instructions and history add the rest",
            highlight=False,
            markup=False,
        )
    for prov, cost in (report.summary.get("token_cost_live") or {}).items():
        if "error" in cost:
            console.print(f"[red]live token count ({_e(prov)}) failed:[/] {_e(str(cost['error']))}", highlight=False)
        else:
            per = ", ".join(f"{name} {n}" for name, n in cost["tools"].items())
            console.print(
                f"Live token count ({cost['method']}): whole set {cost['tokens']} tokens per turn"
                f"{' (' + per + ')' if per else ''}",
                highlight=False,
                markup=False,
            )
    s = report.summary
    if skipped:
        console.print(  # (only a target without names has functions left out: it is the module or file)
            f"note: not linted: {plural(len(skipped), 'function')} without @toolwire.tool ({', '.join(skipped)}); "
            f"to lint them as tools, name them: {target}:{','.join(skipped)}",
            highlight=False,
            markup=False,
        )
    console.print(
        f"{plural(s['tools'], 'tool')}: {plural(s['errors'], 'error')}, {plural(s['warnings'], 'warning')}, {plural(s['infos'], 'info')} "
        f"({len(RULES)} rules: toolwire lint --rules lists them)"
        + (f"; {plural(len(left_out), 'MCP tool')} left out" if left_out else ""),
        highlight=False,
    )
    raise typer.Exit(exit_code)
