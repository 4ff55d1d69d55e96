"""The user's test: records once against a real API (`pytest --toolwire-record`), replays offline."""

import os

import pytest
from agent import weather_agent


@pytest.mark.toolwire_cassette
def test_agent_calls_the_tool_and_answers(toolwire_cassette):
    # While recording, point at the real API (or, as in toolwire's own test, at a server on loopback).
    settings = {}
    if os.environ.get("WEATHER_BASE_URL"):
        settings["base_url"] = os.environ["WEATHER_BASE_URL"]
    result = weather_agent(
        "What's the weather in Paris?", api_key=os.environ.get("ANTHROPIC_API_KEY", "replayed"), **settings
    )
    assert [r.call.name for r in result.tool_runs] == ["get_weather"]
    assert result.tool_runs[0].call.arguments == {"city": "Paris"}
    assert result.tool_runs[0].result.content == "18°C, sunny"
    assert "18" in result.text  # the model used the tool's answer
    assert result.tool_errors == 0
    assert (result.usage.input_tokens or 0) > 0  # None when a provider reports no usage
