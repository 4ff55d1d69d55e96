"""Fail when a public symbol of toolwire or an adapter loses its declared type.

Runs ``pyright --verifytypes <package> --ignoreexternal --outputjson`` for the core and each
adapter and lists every public symbol pyright marks with an error (a missing annotation, a type
that is partially unknown, an ambiguous override). A symbol not in ``KNOWN`` fails the check, as
does a ``KNOWN`` entry that no longer appears (so the list only shrinks). Run from the repository
root: ``uv run python scripts/check_type_completeness.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

PACKAGES = ("toolwire", "toolwire_anthropic", "toolwire_openai", "toolwire_gemini")

#: Symbols left as they are, each with why.
KNOWN = {
    # The demo's sample project, which the demo agent reads and runs: a user's plain script, kept
    # without annotations on purpose.
    "toolwire.demo.data.report.mean_temperature": "demo sample code",
    "toolwire.demo.data.report.here": "demo sample code",
    # Each adapter's model narrows the base class's ``codec: Codec | None`` to its own codec
    # class; annotating the narrower type is an incompatible override of a mutable attribute.
    "toolwire_anthropic.model.AnthropicModel.codec": "narrowed codec",
    "toolwire_anthropic.batch.AnthropicBatchAPI.__init__": "takes the model above",
    "toolwire_gemini.model.GeminiModel.codec": "narrowed codec",
    "toolwire_gemini.batch.GeminiBatchAPI.__init__": "takes the model above",
    "toolwire_openai.models.OpenAIChatModel.codec": "narrowed codec",
    "toolwire_openai.models.OpenAIResponsesModel.codec": "narrowed codec",
}


def flagged(package: str) -> tuple[float, set[str]]:
    """The package's completeness score (0..1) and the names of its symbols with an error."""
    out = subprocess.run(
        ["pyright", "--verifytypes", package, "--ignoreexternal", "--outputjson"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        report = json.loads(out.stdout)["typeCompleteness"]
    except (ValueError, KeyError):
        sys.exit(f"pyright --verifytypes {package} gave no report:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    names = {
        s["name"]
        for s in report["symbols"]
        if s.get("isExported", True) and any(d.get("severity") == "error" for d in s.get("diagnostics", ()))
    }
    return float(report["completenessScore"]), names


def main() -> int:
    found: set[str] = set()
    for package in PACKAGES:
        score, names = flagged(package)
        found |= names
        print(f"{package}: type completeness {score:.1%}, {len(names)} symbol(s) flagged")
    new = sorted(found - KNOWN.keys())
    gone = sorted(k for k in KNOWN if k not in found)
    for name in new:
        print(f"NEW: {name} has a missing or partially unknown type (annotate it)")
    for name in gone:
        print(f"FIXED: {name} is no longer flagged: remove it from KNOWN in {__file__}")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
