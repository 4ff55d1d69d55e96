"""``toolwire replay``: recorded vendor traffic through the real SDKs, the adapters and the loop."""

from __future__ import annotations

import json

import typer

from .._words import plural
from . import app


@app.command("replay")
def replay_command(
    paths: list[str] = typer.Argument(..., help="Cassette files or folders of them (VCR-style YAML)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {files, totals}."),
) -> None:
    """Decode every recorded response and re-run the loop on every recorded conversation.

    Exits 1 when any response, request or expected value does not match.
    """
    from pathlib import Path

    from ..testing.replay import replay_paths
    from . import fail

    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        fail("replay", f"no such file or folder: {', '.join(missing)}")
    doc = replay_paths(paths)
    if as_json:
        print(json.dumps({"files": doc["files"], "totals": doc["totals"]}, ensure_ascii=False, indent=2))
    else:
        _print_report(doc)
    if not doc["ok"]:
        raise typer.Exit(1)


def _print_report(doc: dict) -> None:
    from rich.markup import escape as _e

    from . import console as new_console

    console = new_console(highlight=False)
    for f in doc["files"]:
        bad = f.get("errors") or f.get("expected_mismatches") or any(not r["matches"] for r in f["requests"])
        mark = "[red]FAIL[/]" if bad else "[green]ok[/]"
        console.rule(f"{mark} {_e(f['file'])} ({_e(f['api'] or 'unknown API')})", align="left")
        reqs = {r["interaction"]: r for r in f["requests"]}
        for r in f["responses"]:
            calls = ", ".join(f"{c['name']}({json.dumps(c['arguments'], ensure_ascii=False)})" for c in r["tool_calls"])
            u = r["usage"]
            text = (r["text"] or "").replace("\n", " ")
            text = text if len(text) <= 80 else text[:79] + "…"
            req = reqs.get(r["interaction"])
            sent = "" if req is None else (" · request matches" if req["matches"] else " · [red]request differs[/]")
            console.print(
                f"  #{r['interaction']} {r['stop_reason']} ({r['vendor_stop_reason']}) · in {u['input_tokens']} / out {u['output_tokens']}{sent}"
            )
            if calls:
                console.print(f"     calls: {_e(calls)}")
            if text:
                console.print(f"     text: {_e(text)}")
            if req is not None and req["diff"]:
                console.print(f"     [red]{_e(req['diff'])}[/]")
        for n in f["notes"]:
            console.print(f"  [yellow]note:[/] {_e(n)}")
        for e in f.get("errors", []) + f.get("expected_mismatches", []):
            console.print(f"  [red]{_e(e)}[/]")
    t = doc["totals"]
    console.rule("Totals", align="left")
    console.print(
        f"{t['files_ok']}/{plural(t['files'], 'file')} ok · {plural(t['responses'], 'response')} · "
        f"{plural(t['tool_calls'], 'tool call')} · {t['requests_matched']}/{plural(t['requests'], 'request')} matched · "
        f"{plural(t['expected_mismatches'], 'expected mismatch')} · {plural(t['errors'], 'error')} · "
        f"{plural(t['notes'], 'note')}"
    )
