"""A user's agent: the example that docs/testing.md walks through."""

from __future__ import annotations

import toolwire


@toolwire.tool
def get_weather(city: str) -> str:
    """Current weather for a city. Use when the user asks about the weather somewhere.

    Args:
        city: City name in English, e.g. "Paris".
    """
    forecasts = {"Paris": "18°C, sunny", "Oslo": "4°C, rain"}
    if city not in forecasts:
        raise toolwire.ToolError(
            f"no forecast for {city!r}",
            hint="Ask for one of the listed cities.",
            valid_values=sorted(forecasts),
            retryable=False,
        )
    return forecasts[city]


def weather_agent(question: str, model: str = "anthropic:claude-haiku-4-5", **settings) -> toolwire.RunResult:
    return toolwire.run_sync(
        toolwire.model(model, **settings),
        question,
        tools=[get_weather],
        instructions="Answer weather questions with the get_weather tool.",
    )
