"""User-facing text (docstrings, messages, docs) names no internal tracker numbers such as "B07"."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"\b(?:[Cc]ases? )?B\d{2}\b")


def test_no_internal_case_numbers_in_code_or_docs():
    files = [
        *ROOT.glob("src/**/*.py"),
        *ROOT.glob("adapters/*/src/**/*.py"),
        *ROOT.glob("docs/**/*.md"),
        ROOT / "README.md",
    ]
    hits = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in files
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if NUMBER.search(line)
    ]
    assert hits == []
