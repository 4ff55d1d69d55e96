"""User-facing text (docstrings, messages, docs) names no internal tracker numbers such as "B07"
and no path into the development folders beside the repository."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(
    r"\b(?:[Cc]ases? )?B\d{2}\b|\b[Cc]ase B\d+\b|\b[Ii]ssues? #?1\d\b|\b(?:DESIGN|design) principle \d+\b"
)
#: Paths into the folders beside the repository that users do not have (the design notes, the
#: vendor notes, the case files), and absolute paths of the development machine.
INTERNAL_PATH = re.compile(
    r"\.\./shared\b|\bshared/(?:cases|recordings/)|DESIGN\.md|vendor-notes\.md|PROTOCOL\.md|/work/"
)
#: Where the test suite's recordings folder is documented as a setting (README, testing kit).
PATH_DOCUMENTED = frozenset({"README.md", "src/toolwire/testing/cassettes.py"})


def _files() -> list[Path]:
    return [
        *ROOT.glob("src/**/*.py"),
        *ROOT.glob("adapters/*/src/**/*.py"),
        *ROOT.glob("docs/**/*.md"),
        ROOT / "README.md",
    ]


def _hits(pattern: re.Pattern[str], skip: frozenset[str] = frozenset()) -> list[str]:
    return [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in _files()
        if str(p.relative_to(ROOT)) not in skip
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_no_internal_case_numbers_in_code_or_docs():
    assert _hits(NUMBER) == []


def test_no_paths_into_the_development_folders_in_code_or_docs():
    assert _hits(INTERNAL_PATH, PATH_DOCUMENTED) == []


def _docstrings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((getattr(node, "lineno", 1), doc))
    return out


def test_docstrings_of_core_and_adapters_are_checked_whole():
    """Docstrings are read as Python sees them (a number split across a line break counts too),
    in every module of ``src/`` and ``adapters/*/src``."""
    modules = [*ROOT.glob("src/**/*.py"), *ROOT.glob("adapters/*/src/**/*.py")]
    assert len([m for m in modules if "adapters" in m.parts]) >= 15 and len(modules) >= 60
    hits = [
        f"{m.relative_to(ROOT)}:{line}: {' '.join(doc.split())[:120]}"
        for m in modules
        if "demo/data" not in m.as_posix()
        for line, doc in _docstrings(m)
        if NUMBER.search(" ".join(doc.split())) or INTERNAL_PATH.search(" ".join(doc.split()))
    ]
    assert hits == []


def test_the_patterns_find_what_they_guard_against():
    for text in ("fixed B25", "see case B7", "case B12", "issue 15 item 4", "design principle 9", "DESIGN principle 1"):
        assert NUMBER.search(text), text
    for text in ("``../shared/DESIGN.md``", "shared/cases/B25", "shared/recordings/anthropic/", "/work/main"):
        assert INTERNAL_PATH.search(text), text
    for text in ("noqa: B004", "HTTP 400", "Base64", "the issue is", "bash_20250124"):
        assert not NUMBER.search(text) and not INTERNAL_PATH.search(text), text
