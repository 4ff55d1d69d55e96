"""The import contract: the core package (src/toolwire/**) imports no vendor SDK and no adapter.

Read with ``ast`` (every ``import`` and ``from … import`` anywhere in a module, function bodies
included, plus ``importlib.import_module("…")`` / ``__import__("…")`` with a literal name), so a
lazy import inside a function counts as much as one at the top. ``tiktoken`` is allowed: it is a
tokenizer library (the core ships its own ``o200k_base`` ranks as a generic estimator), not a
vendor API SDK; what a vendor's tokenizer and prompt rendering are lives in the adapters.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "toolwire"

#: Top-level modules the core must not import: the vendor SDKs (and their namespace packages).
FORBIDDEN_ROOTS = ("anthropic", "openai", "google")
#: Prefix of every adapter distribution's module.
ADAPTER_PREFIX = "toolwire_"


def _forbidden(module: str) -> bool:
    root = module.split(".", 1)[0]
    return root in FORBIDDEN_ROOTS or root.startswith(ADAPTER_PREFIX)


def imports_in(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every absolute import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in ("import_module", "__import__"):
                out.append((node.lineno, node.args[0].value))
    return out


def violations(root: Path) -> list[str]:
    """``"file:line imports module"`` for every forbidden import under ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for line, module in imports_in(path):
            if _forbidden(module):
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


def test_core_imports_no_vendor_sdk_and_no_adapter() -> None:
    assert CORE.is_dir()
    files = list(CORE.rglob("*.py"))
    assert len(files) > 30  # the whole package is read, not an empty folder
    assert violations(CORE) == []


def test_the_check_catches_planted_violations(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .sub import x\nimport json\n")
    (pkg / "sub" / "__init__.py").write_text("x = 1\n")
    (pkg / "sub" / "lazy.py").write_text(
        "def f():\n    import anthropic\n    from openai import OpenAI\n    return OpenAI\n"
        "def g():\n    from google import genai\n    import importlib\n    return importlib.import_module('toolwire_gemini')\n"
    )
    (pkg / "fine.py").write_text(
        "import tiktoken\nfrom toolwire.errors import ToolwireError\nimport openai_like_name_but_not\n"
    )
    assert violations(pkg) == [
        "sub/lazy.py:2 imports anthropic",
        "sub/lazy.py:3 imports openai",
        "sub/lazy.py:6 imports google",
        "sub/lazy.py:8 imports toolwire_gemini",
    ]


def test_planting_a_vendor_import_in_a_copy_of_the_core_fails_the_contract(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "toolwire"
    shutil.copytree(CORE, copy, ignore=shutil.ignore_patterns("data", "__pycache__"))
    target = copy / "errors.py"
    target.write_text(target.read_text() + "\n\ndef _sneaky():\n    import anthropic  # planted\n")
    assert [v for v in violations(copy) if v.startswith("errors.py")] == [
        f"errors.py:{len(target.read_text().splitlines())} imports anthropic"
    ]
