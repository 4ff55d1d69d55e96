# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Checked by pyright in CI (not collected by pytest): the public types keep what users wrote."""

from __future__ import annotations

from typing import assert_type

import toolwire
from toolwire import StopReason, Tool, ToolChoice


@toolwire.tool
def get_weather(city: str, days: int = 1) -> str:
    """Forecast for a city."""
    return f"{city}: {days}"


@toolwire.tool(name="count", strict=True)
async def count_words(text: str) -> int:
    """Count words."""
    return len(text.split())


assert_type(get_weather("Paris"), str)
assert_type(get_weather("Paris", days=3), str)
assert_type(get_weather.name, str)
weather_tool: Tool[[str, int], str] = get_weather
get_weather("Paris", "three")  # pyright: ignore[reportArgumentType]  (a wrong argument type is caught)

choice: ToolChoice = {"type": "tool", "name": "get_weather"}
reason: StopReason = "tool_use"
bad_reason: StopReason = "finished"  # pyright: ignore[reportAssignmentType]  (not a stop reason)

try:
    toolwire.run_sync("test", "hi")
except toolwire.ToolwireError as exc:  # the partial run an error ended is typed (None outside a run)
    assert_type(exc.run_state, toolwire.RunState | None)


async def _events_are_typed() -> None:  # the streams yield RunEvent, not Any
    from toolwire.events import RunEvent, TextDelta

    async for event in toolwire.run_stream("test", "hi"):
        assert_type(event, RunEvent)
        if isinstance(event, TextDelta):
            assert_type(event.text, str)
    for event in toolwire.run_stream_sync("test", "hi"):
        assert_type(event, RunEvent)


async def _events_narrow_through_the_package_attribute() -> None:  # after a plain ``import toolwire``
    texts = [e.text async for e in toolwire.run_stream("test", "hi") if isinstance(e, toolwire.events.TextDelta)]
    assert_type(texts, list[str])
    assert_type(toolwire.errors.ToolError("x").hint, str | None)
