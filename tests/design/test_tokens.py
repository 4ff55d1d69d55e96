import hashlib

import pytest

from toolwire import Tool
from toolwire.design.tokens import O200K_SHA256, count_text, encoding, tool_costs
from toolwire.registry import codec, profile

WEATHER = Tool.from_schema(
    "get_weather",
    "Current weather for a city. Use it when the user asks about weather.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["city"],
    },
)
NOW = Tool.from_schema("get_time", "Current UTC time. Use it before scheduling.", {"type": "object", "properties": {}})


def test_o200k_is_exact_and_offline():
    # token ids tiktoken's own o200k_base gives for this text
    assert encoding().encode("hello world") == [24912, 2375]
    assert count_text("") == 0
    assert count_text("<|endoftext|>") > 1  # special-token text counts as text


def test_openai_rendering_lives_in_the_adapter():
    tokens = pytest.importorskip("toolwire_openai.tokens")
    assert tokens.render_openai_tools([WEATHER, NOW]) == (
        "# Tools\n\n## functions\n\nnamespace functions {\n\n"
        "// Current weather for a city. Use it when the user asks about weather.\n"
        "type get_weather = (_: {\n"
        "// City name, e.g. Paris\n"
        "city: string,\n"
        'unit?: "celsius" | "fahrenheit", // default: celsius\n'
        "}) => any;\n\n"
        "// Current UTC time. Use it before scheduling.\n"
        "type get_time = () => any;\n"
        "\n} // namespace functions"
    )


def test_token_costs_come_from_the_profile_over_the_wire_declarations():
    pytest.importorskip("toolwire_openai")
    openai = tool_costs([WEATHER, NOW], "openai")
    assert openai.exact is True
    # a tool's cost is what it adds to the set (its block with its separator), exact
    assert {c.tool: c.tokens for c in openai.tools} == {"get_weather": 55, "get_time": 17}
    tokens = pytest.importorskip("toolwire_openai.tokens")
    assert openai.tokens == count_text(tokens.render_openai_tools([WEATHER, NOW])) + 1 == 86
    assert openai.overhead == 86 - 55 - 17
    assert tool_costs([WEATHER, NOW], "openai-chat").tokens == 86
    for provider in ("anthropic", "gemini"):
        pytest.importorskip(f"toolwire_{provider}")
        cost = tool_costs([WEATHER, NOW], provider)
        c, p = codec(provider), profile(provider)
        decls = [c.translate_tool(t)[0] for t in (WEATHER, NOW)]
        assert cost.exact is False
        assert cost.tokens == p.estimate_tokens(decls) and cost.tokens == cost.overhead + sum(
            x.tokens for x in cost.tools
        )
        assert all(x.tokens > 0 for x in cost.tools)
        assert cost.method == p.token_estimate_method
    anth = tool_costs([WEATHER, NOW], "anthropic")
    # the tool-use system prompt is the once-per-request part
    assert anth.overhead == 346  # Anthropic's tool-use system prompt ("Tool use" pricing table), once per request
    assert tool_costs([], "anthropic").tokens == 0 and tool_costs([], "gemini").overhead == 0


def test_unknown_provider_has_no_cost_model():
    with pytest.raises(ValueError, match="no token-cost model"):
        tool_costs([WEATHER], "nope")


def test_shipped_bpe_file_matches_tiktokens_pinned_hash():
    import gzip
    from importlib import resources

    raw = resources.files("toolwire.design").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == O200K_SHA256
