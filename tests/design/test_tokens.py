import hashlib

from toolwire import Tool
from toolwire.design.tokens import (ANTHROPIC_TOOL_SYSTEM_PROMPT, O200K_SHA256, count_text, encoding,
                                    render_openai_tools, tool_costs)

WEATHER = Tool.from_schema(
    "get_weather", "Current weather for a city. Use it when the user asks about weather.",
    {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
     "required": ["city"]},
)
NOW = Tool.from_schema("get_time", "Current UTC time. Use it before scheduling.", {"type": "object", "properties": {}})


def test_o200k_is_exact_and_offline():
    # token ids tiktoken's own o200k_base gives for this text
    assert encoding().encode("hello world") == [24912, 2375]
    assert count_text("") == 0
    assert count_text("<|endoftext|>") > 1  # special-token text counts as text


def test_openai_rendering():
    assert render_openai_tools([WEATHER, NOW]) == (
        "# Tools\n\n## functions\n\nnamespace functions {\n\n"
        "// Current weather for a city. Use it when the user asks about weather.\n"
        "type get_weather = (_: {\n"
        "// City name, e.g. Paris\n"
        "city: string,\n"
        "unit?: \"celsius\" | \"fahrenheit\", // default: celsius\n"
        "}) => any;\n\n"
        "// Current UTC time. Use it before scheduling.\n"
        "type get_time = () => any;\n"
        "\n} // namespace functions"
    )


def test_token_costs_for_a_fixed_set():
    openai = tool_costs([WEATHER, NOW], "openai")
    assert openai.exact is True
    assert {c.tool: c.tokens for c in openai.tools} == {"get_weather": 56, "get_time": 18}
    assert openai.tokens == count_text(render_openai_tools([WEATHER, NOW])) + 1 == 86
    assert tool_costs([WEATHER, NOW], "openai-chat").tokens == 86
    anth = tool_costs([WEATHER, NOW], "anthropic")
    assert anth.exact is False and anth.overhead == ANTHROPIC_TOOL_SYSTEM_PROMPT and anth.tokens == 471
    assert {c.tool: c.tokens for c in anth.tools} == {"get_weather": 90, "get_time": 35}
    gem = tool_costs([WEATHER, NOW], "gemini")
    assert {c.tool: c.tokens for c in gem.tools} == {"get_weather": 75, "get_time": 29}
    assert gem.tokens == 104 and gem.overhead == 0
    assert tool_costs([], "anthropic").tokens == 0


def test_shipped_bpe_file_matches_tiktokens_pinned_hash():
    import gzip
    from importlib import resources

    raw = resources.files("toolwire.design").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == O200K_SHA256
