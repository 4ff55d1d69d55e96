"""``import toolwire`` loads each public name from its module on first use (no timing here)."""

from __future__ import annotations

import subprocess
import sys

import toolwire

HEAVY = {"anthropic", "openai", "google", "pydantic", "jsonschema", "httpx2", "rich", "typer", "yaml", "genai_prices"}


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_import_toolwire_loads_only_the_package_itself():
    out = _run("import sys, toolwire; print(sorted(m for m in sys.modules if m.startswith('toolwire')))")
    assert out == "['toolwire']"


def test_every_public_name_resolves_to_its_module_object_without_heavy_libraries():
    code = (
        "import sys, toolwire\n"
        "for n in toolwire.__all__: getattr(toolwire, n)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    )
    assert _run(code) == "[]"
    from toolwire import errors, loop, registry, runstate, tools, types

    assert toolwire.Tool is tools.Tool and toolwire.tool is tools.tool
    assert toolwire.run is loop.run and toolwire.RunState is runstate.RunState
    assert toolwire.ToolError is errors.ToolError and toolwire.Usage is types.Usage
    assert toolwire.model is registry.model
    assert set(toolwire.__all__) <= set(dir(toolwire))


def test_submodules_are_attributes_and_unknown_names_raise_attribute_error():
    assert _run(
        "import toolwire; print(toolwire.errors.ToolError.__name__, toolwire.adapter.ModelRequest.__name__)"
    ) == ("ToolError ModelRequest")
    assert not hasattr(toolwire, "no_such_name")
    try:
        toolwire.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("no AttributeError")
