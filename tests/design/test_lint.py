import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolwire.cli.lint_cmd  # noqa: F401 - registers the lint command on the app
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
    assert data["summary"]["errors"] == sum(1 for f in data["findings"] if f["severity"] == "error") >= 3
    assert set(data["summary"]["token_cost"]) == {"anthropic", "openai", "openai-chat", "gemini"}


def test_json_specs_target_and_provider_selection():
    code, out = _run(str(FIX / "bad_specs.json"), "--provider", "anthropic", "--provider", "gemini", "--json")
    assert code == 1
    data = json.loads(out)
    got = {(f["rule"], f["tool"], f.get("provider")) for f in data["findings"] if f["rule"] != "token-cost"}
    assert got == {
        ("provider-name", "weather.lookup", "anthropic"),  # gemini accepts dots; anthropic does not
        ("translation-change", "weather.lookup", "anthropic"),  # ... so the Anthropic adapter sends it renamed
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
        "from toolwire.design.files import file_tools\ndef make():\n    return file_tools('.')\n"
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
    assert [t.name for t in tools] == [
        "run_node",
        "search",
        "fetch_rows",
        "read_text",
        "tag_notes",
        "set_flag",
        "set_flag",
    ]


def test_cap_note_naming_an_undeclared_parameter():
    t = Tool.from_schema(
        "rows",
        "Rows of a table. Use it after list_tables.",
        {"type": "object", "properties": {"table": {"type": "string", "description": "Table name."}}},
    )
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
    assert (
        any(f["rule"] == "param-ambiguous-name" and f["tool"] == "get_page" for f in json.loads(out)["findings"])
        is False
    )  # described
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


@pytest.mark.parametrize(
    "codec, rule, severity, pointer",
    [
        (_NoReport(), "translation-unavailable", "info", ""),
        (_Fails(), "translation-error", "error", "/input_schema/properties/tree"),
        (_Reports(), "translation-change", "info", "/input_schema/properties/a/format"),
    ],
)
def test_translation_findings_from_adapters(monkeypatch, codec, rule, severity, pointer):
    import toolwire.registry

    monkeypatch.setattr(toolwire.registry, "codec", lambda provider, **kw: codec)
    t = Tool.from_schema(
        "t",
        "Do a thing. Use it first.",
        {"type": "object", "properties": {"a": {"type": "string", "format": "date", "description": "Day."}}},
    )
    f = [x for x in lint_tools([t], ["anthropic"]).findings if x.rule.startswith("translation")]
    assert [(x.rule, x.severity, x.pointer, x.provider) for x in f] == [(rule, severity, pointer, "anthropic")]


def test_rules_are_documented():
    doc = (Path(__file__).parents[2] / "docs" / "lint.md").read_text()
    for rid, rule in RULES.items():
        assert f"`{rid}`" in doc, rid
        assert rule.severity in ("error", "warning", "info") and rule.why and rule.fix


# -- targets that cannot be loaded: one line on stderr, exit 2 -----------------------------------


@pytest.mark.parametrize(
    "filename, content, suffix, expected",
    [
        (
            "badimport.py",
            "import nonexistent_mod_xyz\n",
            "",
            "importing '{path}' failed: ModuleNotFoundError: No module named 'nonexistent_mod_xyz' (badimport.py, line 1)",
        ),
        (
            "raises.py",
            "def make():\n    raise ValueError('boom')\n",
            ":make",
            "calling make() failed: ValueError: boom (raises.py, line 2)",
        ),
        (
            "exits.py",
            "import sys\nsys.exit(0)\n",
            "",
            "importing '{path}' called sys.exit(0); a tool module must not exit when imported",
        ),
        ("exits3.py", "raise SystemExit('bye')\n", "", "importing '{path}' called sys.exit('bye')"),
        ("binary.json", b"\xff\xfe", "", "not readable JSON ('utf-8' codec can't decode byte 0xff in position 0"),
        (
            "descint.json",
            '[{"name":"t","description":5,"input_schema":{"type":"object"}}]',
            "",
            "item 0 ('t'): \"description\" must be a string, got int",
        ),
        (
            "schemastr.json",
            '[{"name":"t","description":"Do t. Use it when asked.","input_schema":"object"}]',
            "",
            "item 0 ('t'): the input schema must be an object, got str",
        ),
        ("notlist.json", '{"name": "t"}', "", "must hold a list of tool specs"),
    ],
)
def test_unloadable_targets_exit_2_with_one_line(tmp_path, filename, content, suffix, expected):
    p = tmp_path / filename
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    res = runner.invoke(app, ["lint", str(p) + suffix, "--json"])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    err = res.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"toolwire lint: lint target {str(p) + suffix!r}")
    assert expected.format(path=str(p)) in err


def test_module_output_during_import_keeps_json_clean(tmp_path):
    (tmp_path / "noisy.py").write_text(
        "print('hello from import')\n"
        "from toolwire import tool\n"
        '@tool\ndef ping() -> str:\n    """Answer pong. Use it to check the connection first."""\n    return \'pong\'\n'
    )
    res = runner.invoke(app, ["lint", str(tmp_path / "noisy.py"), "--json", "-p", "openai"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["summary"]["tools"] == 1
    assert "hello from import" in res.stderr


# -- schema-invalid ---------------------------------------------------------------------------------


def _schema_findings(schema):
    t = lint_mod._spec_tool("t", "Do t. Use it when asked.", schema, None)
    return [
        (f.pointer, f.message.split(" — ")[0])
        for f in lint_tools([t], ["openai"], token_costs=False).findings
        if f.rule == "schema-invalid"
    ]


@pytest.mark.parametrize(
    "schema, expected",
    [
        (
            {"type": "string"},
            [
                (
                    "/input_schema/type",
                    "tool 't': input schema must have \"type\": \"object\" at the top level, got 'string'",
                )
            ],
        ),
        (
            {"properties": {}},
            [("/input_schema/type", 'tool \'t\': input schema must have "type": "object" at the top level, got None')],
        ),
        (
            {"type": "object", "properties": {"x": {"type": "nonsense"}}},
            [
                (
                    "/input_schema/properties/x/type",
                    "tool 't': input schema is not valid JSON Schema (Draft 2020-12) at /properties/x/type: "
                    "'nonsense' is not valid under any of the given schemas",
                )
            ],
        ),
        (
            {"type": "object", "properties": [{"x": 1}]},
            [
                (
                    "/input_schema/properties",
                    "tool 't': input schema is not valid JSON Schema (Draft 2020-12) at /properties: "
                    "[{'x': 1}] is not of type 'object'",
                )
            ],
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/Missing"}, "y": {"items": {"$ref": "#/definitions/Gone"}}},
            },
            [
                (
                    "/input_schema/properties/x/$ref",
                    "\"$ref\": '#/$defs/Missing' points nowhere (the schema root has no '$defs')",
                ),
                (
                    "/input_schema/properties/y/items/$ref",
                    "\"$ref\": '#/definitions/Gone' points nowhere (the schema root has no 'definitions')",
                ),
            ],
        ),
        (
            {"type": "object", "$defs": {"A": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/B"}}},
            [("/input_schema/properties/x/$ref", "\"$ref\": '#/$defs/B' points nowhere (#/$defs has no 'B')")],
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#nowhere"}}},
            [
                (
                    "/input_schema/properties/x/$ref",
                    "\"$ref\": '#nowhere' points nowhere (no \"$anchor\": 'nowhere' is defined in the schema)",
                )
            ],
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json#/A"}}},
            [
                (
                    "/input_schema/properties/x/$ref",
                    "\"$ref\": 'https://example.com/s.json#/A' points outside this input schema, "
                    "which no provider fetches and toolwire cannot resolve",
                )
            ],
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/properties/y/type"}, "y": {"type": "string"}}},
            [
                (
                    "/input_schema/properties/x/$ref",
                    "\"$ref\": '#/properties/y/type' points nowhere (it leads to a str, not a schema)",
                )
            ],
        ),
    ],
)
def test_schema_invalid_findings(schema, expected):
    assert _schema_findings(schema) == expected


def test_schema_invalid_accepts_every_form_of_local_ref():
    schema = {
        "type": "object",
        "$defs": {
            "a/b": {"type": "string"},
            "c~d": {"type": "integer"},
            "e f": {"type": "boolean"},
            "Node": {"$anchor": "node", "type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
        },
        "properties": {
            "slash": {"$ref": "#/$defs/a~1b"},
            "tilde": {"$ref": "#/$defs/c~0d"},
            "space": {"$ref": "#/$defs/e%20f"},
            "anchor": {"$ref": "#node"},
            "root": {"$ref": "#"},
            "first": {"$ref": "#/properties/slash"},
            "$ref": {"type": "string", "description": "a property named $ref is not a reference"},
            "mode": {"enum": [{"$ref": "#/nowhere"}], "description": "enum values are data"},
        },
    }
    assert _schema_findings(schema) == []


def test_schema_invalid_is_an_error_on_the_cli(tmp_path):
    p = tmp_path / "dangling.json"
    p.write_text(
        json.dumps(
            [
                {
                    "name": "e",
                    "description": "Do e. Use it when asked.",
                    "input_schema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}},
                }
            ]
        )
    )
    code, out = _run(str(p), "--json", "-p", "anthropic")
    assert code == 1
    f = [x for x in json.loads(out)["findings"] if x["rule"] == "schema-invalid"]
    assert [(x["severity"], x["pointer"]) for x in f] == [("error", "/input_schema/properties/x/$ref")]


def test_a_crashing_rule_becomes_a_finding(monkeypatch):
    def boom(tool, ctx):
        raise KeyError("surprise")
        yield  # pragma: no cover

    monkeypatch.setitem(RULES, "description-missing", lint_mod.Rule("description-missing", "error", "w", "f", boom))
    t = Tool.from_schema("t", "Do t. Use it when asked.", {"type": "object", "properties": {}})
    f = [x for x in lint_tools([t], ["openai"]).findings if x.rule == "description-missing"]
    assert [(x.severity, x.tool, x.message) for x in f] == [
        ("error", "t", "this check could not run: KeyError: 'surprise'")
    ]


@pytest.mark.parametrize(
    "defs, pointers",
    [
        (
            {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            ["/input_schema/$defs/a/$ref", "/input_schema/$defs/b/$ref", "/input_schema/properties/x/$ref"],
        ),
        ({"a": {"$ref": "#/$defs/a"}}, ["/input_schema/$defs/a/$ref", "/input_schema/properties/x/$ref"]),
        ({"a": {"type": "object", "properties": {"child": {"$ref": "#/$defs/a"}}}}, []),  # recursion with a value
    ],
)
def test_a_ref_chain_that_comes_back_to_itself_is_schema_invalid(defs, pointers):
    """Validation against such a schema never ends: every call failed with "input schema is
    unusable (RecursionError)", while lint found nothing."""
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a"}}}
    found = _schema_findings(schema)
    assert sorted(p for p, _ in found) == pointers
    assert all("leads back to itself" in m for _, m in found)
