"""``toolwire lint TARGET``: review tool definitions before the first run."""

from __future__ import annotations

import json
from typing import List, Optional

import typer

from toolwire.cli import app


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


@app.command("lint")
def lint(
    target: str = typer.Argument(..., help="A module (every top-level Tool), module:attr, a Python file, or a JSON file of tool specs."),
    provider: Optional[List[str]] = typer.Option(None, "--provider", "-p", help="Provider to check (repeatable): anthropic, openai, openai-chat, gemini. Default: all four."),
    as_json: bool = typer.Option(False, "--json", help="Print {findings, summary} as JSON."),
    ambiguous: Optional[List[str]] = typer.Option(None, "--ambiguous", help="Another parameter name to treat as ambiguous (repeatable)."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Rule id to skip (repeatable)."),
    live_model: Optional[str] = typer.Option(None, "--live", help="Also count tokens with the vendor's endpoint for this provider:model (needs its API key and network; Anthropic and OpenAI only)."),
) -> None:
    """Check tool definitions: descriptions, ambiguous parameters, names of undeclared parameters,
    what each provider's adapter rewrites, provider name rules, and per-turn token cost.
    Exits 1 when an error is found, 2 when the target cannot be loaded."""
    from toolwire.design.lint import RULES, lint_tools, load_tools
    from toolwire.errors import ToolwireError

    try:
        tools = load_tools(target)
    except ToolwireError as exc:
        typer.echo(f"toolwire lint: {exc}", err=True)
        raise typer.Exit(2)
    except Exception as exc:  # anything load_tools did not foresee: still one line, exit 2
        typer.echo(f"toolwire lint: cannot load {target!r}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}", err=True)
        raise typer.Exit(2)
    report = lint_tools(tools, providers=provider or None, ambiguous_names=ambiguous or None, ignore=ignore or None)
    if live_model:
        from toolwire.design.tokens import count_tool_tokens_live
        from toolwire.registry import parse_model_name

        prov, model_id = parse_model_name(live_model)
        try:
            report.summary.setdefault("token_cost_live", {})[prov] = count_tool_tokens_live(tools, prov, model_id).to_dict()
        except Exception as exc:  # no key, no network, or no endpoint for tools
            report.summary.setdefault("token_cost_live", {})[prov] = {"error": f"{type(exc).__name__}: {exc}"}
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        raise typer.Exit(report.exit_code)

    from rich.console import Console
    from rich.table import Table

    console = Console()
    colour = {"error": "red", "warning": "yellow", "info": "dim"}
    shown = [f for f in report.findings if f.rule != "token-cost"]
    for f in shown:
        where = f"{f.tool}{f.pointer}"
        prov = f" [{f.provider}]" if f.provider else ""
        console.print(f"[{colour[f.severity]}]{f.severity:<7}[/] [bold]{f.rule}[/]{prov} {where}", highlight=False)
        console.print(f"        {f.message}", highlight=False, markup=False)
        console.print(f"        fix: {f.fix}", highlight=False, markup=False)
    costs = report.summary.get("token_cost") or {}
    if costs:
        table = Table(title="Per-turn tokens of the tool definitions")
        table.add_column("tool")
        provs = [p for p, c in costs.items() if "tools" in c]
        for p in provs:
            table.add_column(p + ("" if costs[p]["exact"] else " (est.)"), justify="right")
        for t in tools:
            table.add_row(t.name, *[str(costs[p]["tools"].get(t.name, "")) for p in provs])
        table.add_row("[bold]whole set[/]", *[f"[bold]{costs[p]['tokens']}[/]" for p in provs])
        console.print(table)
    s = report.summary
    console.print(f"{_plural(s['tools'], 'tool')}: {_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}, {_plural(s['infos'], 'info')} "
                  f"({len(RULES)} rules; see docs/lint.md)", highlight=False)
    raise typer.Exit(report.exit_code)
