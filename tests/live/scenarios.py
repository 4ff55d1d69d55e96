"""The live scenarios, shared by the live suite (a real llama-server) and the offline replay of
their committed cassettes (tests/cassettes/llama_server/).

Each scenario runs ``toolwire.run`` against ``openai-chat`` with a custom ``base_url`` (the way a
user points toolwire at llama.cpp) and returns a :func:`summary` of what toolwire decoded and
did: the requests sent, each turn's stop reason and usage, each tool call (name, arguments, how it
was answered) and the error raised. Assertions are on these, never on the model's wording.

Every scenario starts from the same short conversation (:func:`example_conversation`): one earlier
exchange in which the assistant called get_weather and got its result. SmolLM2-135M was not trained
on tool calls; with that one example in its context it writes a ``<tool_call>`` at once, and the
server's grammar then holds it to the declared tools and their input schemas. Without it, llama.cpp
lets a model write text before the first tool call even with ``tool_choice: "required"``, and this
model writes text until ``max_tokens``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import httpx2

import toolwire
from toolwire.errors import ProviderError, RunLimitExceeded, ToolError

MODEL = "openai-chat:smollm2-135m-instruct"
# Sampling pinned so a recording is reproducible on the same build: greedy decoding, one seed.
SAMPLING = {"temperature": 0.0, "seed": 7}

RAN: list[str] = []


def example_conversation() -> toolwire.Conversation:
    """One earlier exchange: a get_weather call, its result, the answer (sent as history by the adapter)."""
    call = toolwire.ToolCall(id="call_example_1", name="get_weather", arguments={"city": "London"})
    return toolwire.Conversation(
        messages=[
            toolwire.Message.user("What is the weather in London? Use the get_weather tool."),
            toolwire.Message(role="assistant", parts=[call]),
            toolwire.Message(
                role="user",
                parts=[toolwire.ToolResult(tool_call_id=call.id, content="rainy, 12 C in London", name="get_weather")],
            ),
            toolwire.Message.assistant("It is rainy and 12 C in London."),
        ]
    )


def get_weather(city: str) -> str:
    """Current weather for a city, e.g. get_weather(city="Paris")."""
    RAN.append(f"get_weather:{city}")
    return f"sunny, 21 C in {city}"


def get_time(zone: str) -> str:
    """Current local time in a time zone, e.g. get_time(zone="Europe/Paris")."""
    RAN.append(f"get_time:{zone}")
    return f"12:00 in {zone}"


def lookup_stock(symbol: str) -> str:
    """Stock price for a ticker symbol."""
    RAN.append(f"lookup_stock:{symbol}")
    raise ToolError("the stock service is down", hint="answer without the price", retryable=True)


class Counter:
    """An httpx2 client whose requests are counted (what reached the server, retries included)."""

    def __init__(self) -> None:
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []

        async def hook(request: httpx2.Request) -> None:
            self.requests += 1
            self.bodies.append(json.loads(request.content))

        self.client = httpx2.AsyncClient(event_hooks={"request": [hook]}, timeout=120.0)


def make_model(base_url: str, counter: Counter, **settings: Any) -> Any:
    return toolwire.model(MODEL, base_url=base_url, http_client=counter.client, **(SAMPLING | settings))


def summary(result: Any, counter: Counter, error: BaseException | None = None) -> dict[str, Any]:
    """What toolwire decoded and did, as plain data."""
    out: dict[str, Any] = {"requests": counter.requests, "ran": list(RAN)}
    if counter.bodies:
        first = counter.bodies[0]
        out["first_request"] = {
            "tool_choice": first.get("tool_choice"),
            "tools": [t["function"]["name"] for t in first.get("tools", [])],
            "max_tokens": first.get("max_tokens"),
            "max_completion_tokens": first.get("max_completion_tokens"),
            "stream": first.get("stream"),
        }
    if len(counter.bodies) > 1:  # what the next request sent back after the first turn's tool calls
        out["fed_back"] = [m.get("content") for m in counter.bodies[1]["messages"] if m.get("role") == "tool"][-1:]
    if result is not None:
        out["turns"] = [
            {
                "stop_reason": t.response.stop_reason,
                "vendor_stop_reason": t.response.vendor_stop_reason,
                "input_tokens": t.response.usage.input_tokens,
                "output_tokens": t.response.usage.output_tokens,
                "calls": [
                    {
                        "name": c.name,
                        "arguments": c.arguments,
                        "raw_arguments": c.raw_arguments,
                        "incomplete": c.incomplete,
                        "invalid": c.invalid is not None,
                    }
                    for c in t.response.tool_calls
                ],
                "runs": [{"name": r.call.name, "status": r.status, "is_error": r.result.is_error} for r in t.tool_runs],
            }
            for t in result.turns
        ]
        out["stop_reason"] = result.stop_reason
    if error is not None:
        out["error"] = {
            "type": type(error).__name__,
            "status": getattr(error, "status", None),
            "error_type": getattr(error, "error_type", None),
            "retryable": getattr(error, "retryable", None),
            "message": getattr(error, "message", str(error)),
        }
    return out


def _run(base_url: str, prompt: str, tools: list[Callable[..., Any]], **kwargs: Any) -> dict[str, Any]:
    RAN.clear()
    settings = kwargs.pop("settings", {})
    counter = Counter()
    model = make_model(base_url, counter, **settings)

    async def go() -> dict[str, Any]:
        try:
            result = await toolwire.run(model, prompt, tools=tools, conversation=example_conversation(), **kwargs)
        except RunLimitExceeded as exc:
            return summary(exc.result, counter, exc)
        except ProviderError as exc:
            return summary(None, counter, exc)
        finally:
            await counter.client.aclose()
        return summary(result, counter)

    return asyncio.run(go())


WEATHER = "What is the weather in Paris? Use the get_weather tool."


def required_call(base_url: str, stream: bool = False) -> dict[str, Any]:
    """tool_choice "required": a tool call, run, and (not streamed) its result sent back in a second turn."""
    return _run(
        base_url,
        WEATHER,
        [get_weather],
        tool_choice="required",
        max_turns=1 if stream else 2,
        settings={"stream": stream, "max_tokens": 48},
    )


def forced_named(base_url: str, named_tool_choice: str | None = None) -> dict[str, Any]:
    """A forced tool (get_time) against a prompt that asks for the other one (get_weather)."""
    settings: dict[str, Any] = {"max_tokens": 48}
    if named_tool_choice is not None:
        settings["named_tool_choice"] = named_tool_choice
    return _run(
        base_url,
        WEATHER,
        [get_weather, get_time],
        tool_choice={"type": "tool", "name": "get_time"},
        max_turns=2,  # a second request: the first turn's calls are answered (run or refused), not cut by the limit
        settings=settings,
    )


def choice_none(base_url: str) -> dict[str, Any]:
    """tool_choice "none": no tool call is possible."""
    return _run(base_url, WEATHER, [get_weather], tool_choice="none", settings={"max_tokens": 32})


def cut_off(base_url: str, stream: bool = False) -> dict[str, Any]:
    """A required call cut off by max_tokens (8 tokens: inside the call's JSON)."""
    return _run(
        base_url,
        WEATHER,
        [get_weather],
        tool_choice="required",
        max_turns=1,
        settings={"stream": stream, "max_tokens": 8},
    )


def tool_raises(base_url: str) -> dict[str, Any]:
    """A tool that raises ToolError: the model gets an error result and the run goes on."""
    return _run(
        base_url,
        "What is the stock price of ACME? Use the lookup_stock tool.",
        [lookup_stock],
        tool_choice="required",
        max_turns=2,
        settings={"max_tokens": 96},
    )


SCENARIOS: dict[str, Callable[[str], dict[str, Any]]] = {
    "required_call": required_call,
    "required_call_streamed": lambda url: required_call(url, stream=True),
    "forced_named_sent_as_required": forced_named,
    "forced_named_object_ignored": lambda url: forced_named(url, "object"),
    "cut_off": cut_off,
    "cut_off_streamed": lambda url: cut_off(url, stream=True),
}
# choice_none and tool_raises are kept as functions for a developer's run; the committed set is
# kept small (one tool-call turn takes seconds on a CPU, minutes on a loaded one)


def check(name: str, s: dict[str, Any]) -> None:
    """The invariants of scenario ``name`` (true whatever the model writes)."""
    turns = s.get("turns", [])
    first = s["first_request"]
    assert first["max_tokens"] is not None and first["max_completion_tokens"] is None  # the compatible form
    for t in turns:
        if t["stop_reason"] != "error":
            assert t["input_tokens"] > 0 and t["output_tokens"] > 0, t
        for c, r in zip(t["calls"], t["runs"]):
            # a call is run only when complete and valid; anything else is answered, never run
            if c["incomplete"] or c["invalid"]:
                assert r["status"] == "invalid" or r["status"] == "cancelled", (c, r)
    limit_only = s.get("error", {}).get("type") in (None, "MaxTurnsExceeded")  # a second call is the model's choice
    if name.startswith("required_call"):
        assert limit_only, s
        assert first["tool_choice"] == "required" and first["stream"] is name.endswith("streamed")
        # the grammar admits only get_weather calls; with the example conversation the model calls at once
        calls, runs = turns[0]["calls"], turns[0]["runs"]
        assert calls and turns[0]["stop_reason"] == "tool_use", turns[0]
        assert all(c["name"] == "get_weather" for c in calls) and len(runs) == len(calls), turns[0]
        for c, r in zip(calls, runs):
            # arguments are validated against the input schema: a valid call runs, any other is answered
            valid = isinstance(c["arguments"], dict) and isinstance(c["arguments"].get("city"), str)
            # max_turns=1 (streamed): the run ends after this turn, so even a valid call is answered, not run
            expected = ("limit" if name.endswith("streamed") else "ran") if valid and not c["incomplete"] else "invalid"
            assert r["status"] == expected, (c, r)
            assert json.loads(c["raw_arguments"]) == c["arguments"] or not valid, c
        assert s["ran"] == [
            f"get_weather:{c['arguments']['city']}" for c, r in zip(calls, runs) if r["status"] == "ran"
        ]
        if not name.endswith("streamed"):  # the second turn got the tool result back (auto from then on)
            assert s["requests"] == 2 and len(turns) >= 1, s
            if s["ran"]:
                assert s["fed_back"] and s["fed_back"][0].startswith("sunny, 21 C in "), s
    elif name == "forced_named_sent_as_required":
        assert first["tool_choice"] == "required" and first["tools"] == ["get_time"]
        assert turns[0]["calls"] and turns[0]["stop_reason"] == "tool_use", turns[0]  # required: the grammar
        assert all(c["name"] == "get_time" for c in turns[0]["calls"])  # the only tool declared
    elif name == "forced_named_object_ignored":
        assert first["tool_choice"] == {"type": "function", "function": {"name": "get_time"}}
        assert first["tools"] == ["get_weather", "get_time"]
        for r in turns[0]["runs"]:
            if r["name"] != "get_time":
                assert r["status"] == "invalid" and r["is_error"], r  # contradicts the forced choice: not run
        assert not any(x.startswith("get_weather:") for x in s["ran"]), s  # never run silently
    elif name == "choice_none":
        assert first["tool_choice"] == "none"
        assert turns[0]["calls"] == [] and turns[0]["stop_reason"] in ("end_turn", "max_tokens")
    elif name.startswith("cut_off"):
        assert s["ran"] == [], s  # a cut-off call is never run
        if "error" in s:  # the server could not parse the cut output: not retried
            assert s["error"]["retryable"] is False and s["requests"] == 1, s
        else:
            assert turns[0]["stop_reason"] == "max_tokens", turns[0]
    elif name == "tool_raises":
        assert limit_only, s
        assert turns[0]["runs"] and turns[0]["runs"][0]["status"] == "ran" and turns[0]["runs"][0]["is_error"]
        assert s["ran"][0].startswith("lookup_stock:")
