import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolwire.cli.lint_cmd  # noqa: F401  registers the command
from toolwire import Tool, tool
from toolwire.cli import app
from toolwire.design import lint as lint_mod
from toolwire.design.files import file_tools
from toolwire.design.lint import RULES, lint_tools, load_tools
from toolwire.schema.report import TranslationReport

FIX = Path(__file__).parent / "fixtures"
runner = CliRunner()


def _run(*args):
    res = runner.invoke(app, ["lint", *args])
    return res.exit_code, res.stdout


def test_bad_tool_set_reports_every_rule():
    code, out = _run(str(FIX / "bad_tools.py"), "--json")
    assert code == 1
    data = json.loads(out)
    got = {(f["rule"], f["tool"], f["pointer"], f.get("provider")) for f in data["findings"]}
    expected = {
        ("description-missing", "run_node", "/description", None),
        ("param-ambiguous-name", "run_node", "/input_schema/properties/script", None),
        ("description-one-word", "search", "/description", None),
        ("param-ambiguous-name", "search", "/input_schema/properties/query", None),
        ("param-undescribed", "search", "/input_schema/properties/max_results", None),
        ("undeclared-parameter", "fetch_rows", "/description", None),
        ("description-no-when", "fetch_rows", "/description", None),
        ("description-no-when", "read_text", "/description", None),
        ("param-ambiguous-name", "read_text", "/input_schema/properties/path", None),
        ("translation-lossy", "tag_notes", "/input_schema/properties/tags/additionalProperties", "openai"),
        ("translation-lossy", "tag_notes", "/input_schema/properties/tags/additionalProperties", "openai-chat"),
        ("translation-change", "tag_notes", "/input_schema/additionalProperties", "openai"),
        ("provider-name", "set_flag", "/input_schema/properties/flag.name", "gemini"),
        ("duplicate-name", "set_flag", "/name", None),
        ("token-cost", "run_node", "", "openai"),
    }
    assert expected <= got, expected - got
    by_rule = {f["rule"]: f for f in data["findings"]}
    for f in data["findings"]:
        assert set(f) >= {"rule", "severity", "tool", "pointer", "message", "fix"}
        assert f["severity"] == ("info" if f["rule"] == "translation-change" else f["severity"])
    assert by_rule["description-missing"]["severity"] == "error"
    assert by_rule["undeclared-parameter"]["severity"] == "error"
    assert "'page'" in by_rule["undeclared-parameter"]["message"]
    assert by_rule["translation-lossy"]["severity"] == "warning"
    assert data["summary"]["errors"] == sum(1 for f in data["findings"] if f["severity"] == "error") >= 4
    assert set(data["summary"]["token_cost"]) == {"anthropic", "openai", "openai-chat", "gemini"}


def test_json_specs_target_and_provider_selection():
    code, out = _run(str(FIX / "bad_specs.json"), "--provider", "anthropic", "--provider", "gemini", "--json")
    assert code == 1
    data = json.loads(out)
    got = {(f["rule"], f["tool"], f.get("provider")) for f in data["findings"] if f["rule"] != "token-cost"}
    assert got == {
        ("provider-name", "weather.lookup", "anthropic"),  # gemini accepts dots; anthropic does not
        ("description-one-word", "weather.lookup", None),
        ("param-ambiguous-name", "weather.lookup", None),
        ("undeclared-parameter", "get_page", None),  # `cursor` is named, only `page` is declared
    }
    assert data["summary"]["providers"] == ["anthropic", "gemini"]


def test_file_toolset_is_clean():
    tools = file_tools(Path(__file__).parent)
    report = lint_tools(tools)
    assert report.errors == [] and report.warnings == []
    assert {f.rule for f in report.findings} == {"token-cost"}
    assert report.exit_code == 0


def test_cli_module_attr_target_and_exit_zero(tmp_path, monkeypatch):
    (tmp_path / "mytools.py").write_text(
        "from toolwire.design.files import file_tools\n"
        "def make():\n    return file_tools('.')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out = _run("mytools:make")
    assert code == 0, out
    assert "5 tools: 0 errors, 0 warnings" in out
    code, out = _run("no_such_module_xyz")
    assert code == 2


def test_module_target_collects_top_level_tools():
    tools = load_tools(str(FIX / "bad_tools.py"))
    assert [t.name for t in tools] == ["run_node", "search", "fetch_rows", "read_text", "tag_notes", "set_flag", "set_flag"]


def test_cap_note_naming_an_undeclared_parameter():
    t = Tool.from_schema("rows", "Rows of a table. Use it after list_tables.",
                         {"type": "object", "properties": {"table": {"type": "string", "description": "Table name."}}})
    t.meta["cap"] = {"unit": "lines", "size": 50, "offset": "offset", "limit": "limit"}
    f = [x for x in lint_tools([t], ["openai"]).findings if x.rule == "undeclared-parameter"]
    assert len(f) == 1 and "'offset', 'limit'" in f[0].message and "call rows again with offset=51" in f[0].message


def test_extendable_ambiguous_names():
    @tool
    def deploy(env: str) -> str:
        """Deploy the current build. Use it after the tests pass."""
        return ""

    assert "param-ambiguous-name" not in lint_tools([deploy], ["openai"]).rules()
    r = lint_tools([deploy], ["openai"], ambiguous_names={"env": "an environment name or a .env file"})
    assert "param-ambiguous-name" in r.rules()
    code, out = _run(str(FIX / "bad_specs.json"), "--ambiguous", "page", "--json", "-p", "openai")
    assert any(f["rule"] == "param-ambiguous-name" and f["tool"] == "get_page" for f in json.loads(out)["findings"]) is False  # described
    assert "env" not in lint_mod.AMBIGUOUS_NAMES  # the default list is not mutated


class _NoReport:
    api = "fake"

    def translate_tool(self, tool):
        raise NotImplementedError("translate_tool is not written yet")


class _Fails:
    api = "fake"

    def translate_tool(self, tool):
        from toolwire.errors import SchemaTranslationError

        raise SchemaTranslationError("recursive $ref cannot be inlined", pointer="/properties/tree")


class _Reports:
    api = "fake"

    def translate_tool(self, tool):
        r = TranslationReport("fake", tool.name)
        r.add("/properties/a/format", "removed", "format", "format is not supported")
        return {}, r


@pytest.mark.parametrize("codec, rule, severity, pointer", [
    (_NoReport(), "translation-unavailable", "info", ""),
    (_Fails(), "translation-error", "error", "/input_schema/properties/tree"),
    (_Reports(), "translation-change", "info", "/input_schema/properties/a/format"),
])
def test_translation_findings_from_adapters(monkeypatch, codec, rule, severity, pointer):
    import toolwire.registry

    monkeypatch.setattr(toolwire.registry, "codec", lambda provider, **kw: codec)
    t = Tool.from_schema("t", "Do a thing. Use it first.", {"type": "object", "properties": {"a": {"type": "string", "format": "date", "description": "Day."}}})
    f = [x for x in lint_tools([t], ["anthropic"]).findings if x.rule.startswith("translation")]
    assert [(x.rule, x.severity, x.pointer, x.provider) for x in f] == [(rule, severity, pointer, "anthropic")]


def test_rules_are_documented():
    doc = (Path(__file__).parents[2] / "docs" / "lint.md").read_text()
    for rid, rule in RULES.items():
        assert f"`{rid}`" in doc, rid
        assert rule.severity in ("error", "warning", "info") and rule.why and rule.fix
