"""Smoke test of one installed toolwire, run with the interpreter of a fresh environment.

    python smoke_install.py --providers openai,openai-chat [--cli] [--testing] [--hint gemini]

Checks: ``import toolwire`` and its version; ``py.typed`` in toolwire and in every installed
adapter; the expected providers found through the ``toolwire.adapters`` entry points;
``toolwire demo`` passes (``--cli``) or the script names the cli extra (without it); the cassette
kit's libraries import (``--testing``); and with ``--hint P``: the adapter of P is missing, the
``AdapterNotInstalled`` hint names a command, that command really installs it from where toolwire
came from, and P then resolves. Prints one line per check; exits 1 on the first failure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata, resources
from pathlib import Path

ADAPTER_MODULES = {
    "anthropic": "toolwire_anthropic",
    "openai": "toolwire_openai",
    "openai-chat": "toolwire_openai",
    "gemini": "toolwire_gemini",
}


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        raise SystemExit(1)


def script(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--providers", default="")
    ap.add_argument("--cli", action="store_true")
    ap.add_argument("--testing", action="store_true")
    ap.add_argument("--hint", default="")
    args = ap.parse_args()
    expected = [p for p in args.providers.split(",") if p]

    import toolwire

    check(toolwire.__version__ == metadata.version("toolwire"), f"import toolwire {toolwire.__version__}")
    modules = {"toolwire"} | {ADAPTER_MODULES[p] for p in expected}
    for mod in sorted(modules):
        check(resources.files(mod).joinpath("py.typed").is_file(), f"{mod}/py.typed present")
    found = toolwire.available_providers()
    check(all(p in found for p in expected) and "test" in found, f"entry points: {', '.join(found)}")
    for p in expected:
        m = toolwire.model(f"{p}:some-model")
        check(m.provider == p, f"toolwire.model('{p}:some-model') -> {type(m).__name__}")

    if args.cli:
        work = tempfile.mkdtemp(prefix="toolwire-demo-")
        proc = subprocess.run(
            [script("toolwire"), "demo", "--workdir", work], capture_output=True, text=True, timeout=300
        )
        check(proc.returncode == 0, f"toolwire demo exit {proc.returncode}")
        proc = subprocess.run(
            [sys.executable, "-m", "toolwire", "--version"], capture_output=True, text=True, timeout=60
        )
        check(
            proc.stdout.strip() == f"toolwire {toolwire.__version__}",
            f"python -m toolwire --version: {proc.stdout.strip()}",
        )
    else:
        proc = subprocess.run([script("toolwire"), "demo"], capture_output=True, text=True, timeout=60)
        check(proc.returncode == 2 and "cli extra" in proc.stderr, f"without the cli extra: {proc.stderr.strip()}")
        command = proc.stderr.strip().rsplit(": ", 1)[-1]
        check(command.startswith(("pip install", "uv pip install")), f"cli hint is a command: {command}")

    if args.testing:
        for mod in ("vcr", "yaml", "httpx2"):
            importlib.import_module(mod)
        check(True, "testing extra: vcr, yaml, httpx2 import")

    if args.hint:
        try:
            toolwire.model(f"{args.hint}:some-model")
        except toolwire.AdapterNotInstalled as exc:
            message = str(exc)
        else:
            message = ""
        check(bool(message), f"AdapterNotInstalled: {message}")
        command = message.split(": ", 1)[1]
        argv = shlex.split(command)
        if argv[0] == "pip":
            argv = [sys.executable, "-m", "pip", *argv[1:], "-q"]
        elif argv[:2] == ["uv", "pip"]:
            argv = [os.environ.get("UV", "uv"), *argv[1:], "--python", sys.executable, "-q"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        check(
            proc.returncode == 0,
            f"the hint's command works: {command}" + (f"\n{proc.stderr[-2000:]}" if proc.returncode else ""),
        )
        out = subprocess.run(
            [sys.executable, "-c", f"import toolwire; print(toolwire.model('{args.hint}:m').provider)"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        check(out.stdout.strip() == args.hint, f"then toolwire.model('{args.hint}:m') resolves")


if __name__ == "__main__":
    main()
