"""``toolwire lint`` option handling: unknown providers, malformed ``--live`` names, a live count
without a key, and the live count in the text report (through the real ``anthropic`` SDK with
only the network replaced)."""

import json

import pytest
from typer.testing import CliRunner

import toolwire.cli.lint_cmd  # noqa: F401 - registers the lint command on the app
from toolwire import Tool
from toolwire.cli import app
from toolwire.design import tokens as tokens_mod
from toolwire.design.lint import check_providers, lint_tools
from toolwire.errors import ConfigurationError

runner = CliRunner()

TOOL_SRC = '''import toolwire
@toolwire.tool
def add(a: int) -> int:
    """Add one. Use when adding.

    Args:
        a: number.
    """
    return a + 1
'''


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "ok_tools.py"
    p.write_text(TOOL_SRC)
    return str(p)


def _one_line_exit_2(res, expected):
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    err = res.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err == expected


@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_unknown_provider_exits_2_listing_the_known_ones(target, as_json):
    res = runner.invoke(app, ["lint", target, "--provider", "anthropic", "--provider", "nope", *as_json])
    _one_line_exit_2(
        res, "toolwire lint: unknown provider 'nope' for lint; known providers: anthropic, openai, openai-chat, gemini"
    )


def test_lint_tools_refuses_unknown_providers_too():
    t = Tool.from_schema("t", "Do t. Use it when asked.", {"type": "object", "properties": {}})
    with pytest.raises(ConfigurationError, match="unknown provider 'openai-responses' for lint"):
        lint_tools([t], providers=["openai-responses"])
    assert check_providers(["gemini", "anthropic", "gemini"]) == ["gemini", "anthropic"]


@pytest.mark.parametrize(
    "live, expected",
    [
        (":", "toolwire lint: --live: model ':' must be 'provider:model-id' with both parts non-empty"),
        (
            "anthropic:",
            "toolwire lint: --live: model 'anthropic:' must be 'provider:model-id' with both parts non-empty",
        ),
        (
            "nope:x",
            "toolwire lint: --live: unknown provider 'nope'; known providers: anthropic, openai, openai-chat, gemini",
        ),
    ],
)
def test_malformed_live_model_exits_2_with_one_line(target, live, expected):
    _one_line_exit_2(runner.invoke(app, ["lint", target, "--live", live]), expected)


def test_live_without_a_key_names_the_variable(target, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    res = runner.invoke(app, ["lint", target, "--live", "anthropic:claude-x", "--json"])
    assert res.exit_code == 0, res.output
    live = json.loads(res.stdout)["summary"]["token_cost_live"]
    assert live == {"anthropic": {"error": "anthropic: set ANTHROPIC_API_KEY (or pass api_key=...)"}}
    text = runner.invoke(app, ["lint", target, "--live", "anthropic:claude-x"])
    assert "live token count (anthropic) failed: anthropic: set ANTHROPIC_API_KEY" in " ".join(text.stdout.split())


def test_live_gemini_without_a_key_names_the_variable(target, monkeypatch):
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    res = runner.invoke(app, ["lint", target, "--live", "gemini:gemini-x", "--json"])
    err = json.loads(res.stdout)["summary"]["token_cost_live"]["gemini"]["error"]
    assert "GEMINI_API_KEY" in err


def test_live_count_is_shown_in_the_text_report(target, monkeypatch):
    """The live count through the real anthropic SDK (network replaced): 10 tokens for the probe
    message, 100 more with the tool declared."""
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")

    def handler(request):
        body = json.loads(request.content)
        return httpx2.Response(200, json={"input_tokens": 10 + 100 * len(body.get("tools") or [])})

    real = tokens_mod.count_tool_tokens_live

    def with_mock_client(tools, provider, model, **kw):
        return real(
            tools,
            provider,
            model,
            api_key="sk-ant-test",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        )

    monkeypatch.setattr(tokens_mod, "count_tool_tokens_live", with_mock_client)
    res = runner.invoke(app, ["lint", target, "--live", "anthropic:claude-x"])
    assert res.exit_code == 0, res.output
    line = " ".join(res.stdout.split())
    assert (
        "Live token count (live: anthropic token-counting endpoint (claude-x)): whole set 100 tokens per turn (add 100)"
    ) in line
    js = runner.invoke(app, ["lint", target, "--live", "anthropic:claude-x", "--json"])
    assert json.loads(js.stdout)["summary"]["token_cost_live"]["anthropic"]["tokens"] == 100


MIXED_SRC = '''import toolwire


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city. Use it when asked about the weather."""
    return "sunny"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _private(x: str) -> str:
    return x
'''


def test_functions_left_out_of_a_file_target_are_named(tmp_path):
    """A file with a decorated tool and a plain function: lint found the tool and said nothing of
    the function (a new user read "1 tool" and thought everything was checked)."""
    path = tmp_path / "mixed.py"
    path.write_text(MIXED_SRC)
    res = runner.invoke(app, ["lint", str(path), "--provider", "anthropic"])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "note: not linted: 1 function without @toolwire.tool (add)" in said
    assert f"name them: {path}:add" in said and "_private" not in said
    res = runner.invoke(app, ["lint", str(path), "--provider", "anthropic", "--json"])
    assert json.loads(res.output)["summary"]["functions_not_linted"] == ["add"]
    named = runner.invoke(app, ["lint", f"{path}:get_weather,add", "--provider", "anthropic", "--json"])
    summary = json.loads(named.output)["summary"]
    assert summary["tools"] == 2 and "functions_not_linted" not in summary
