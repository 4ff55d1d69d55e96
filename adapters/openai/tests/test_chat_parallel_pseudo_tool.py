"""OpenAI Chat answers that call the ``multi_tool_use.parallel`` pseudo-tool.

Some OpenAI models, instead of making parallel tool calls, make one call named
``multi_tool_use.parallel`` whose arguments name the real calls (``{"tool_uses":
[{"recipient_name": "functions.get_weather", "parameters": {...}}, ...]}``; "GPT-4o
hallucinates a nonexistent parallel tool calling mechanism called multi_tool_use.parallel",
prefect-archive/ControlFlow#107; craft-ai-agents/craft-agents-oss#449). toolwire answered it
as an unknown tool, so nothing the model asked for ran. Now the call is split into the calls it
names (ids ``<id>_p<k>``), each run or, for a tool not declared, answered as an unknown tool;
the next request carries the calls as split, every id answered by its own ``tool`` message.

The real ``openai`` SDK sends and reads every request; only the network is replaced.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import Server, chat_sse, completion, json_response, tool_call
from toolwire_openai import OpenAIChatModel

import toolwire
from toolwire import Tool
from toolwire.events import ToolCallReady, ToolCallStarted

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Time in a zone."""
    RAN.append(zone)
    return f"noon in {zone}"


def _uses(*uses: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"tool_uses": [{"recipient_name": r, "parameters": p} for r, p in uses]})


USES = _uses(
    ("functions.get_weather", {"city": "Paris"}),
    ("functions.get_time", {"zone": "UTC"}),
    ("functions.get_weather", {"city": "Rome"}),
)


def _model(server: Server, **settings: Any) -> OpenAIChatModel:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return OpenAIChatModel("gpt-4o", api_key="sk-test", http_client=client, max_retries=0, **settings)


def _check_history(body: dict[str, Any]) -> tuple[list[tuple[str, str, dict[str, Any]]], dict[str, str]]:
    """The assistant message's calls and the tool messages, each id answered exactly once."""
    assistant = next(m for m in body["messages"] if m["role"] == "assistant")
    calls = [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]]
    answers = [m for m in body["messages"] if m["role"] == "tool"]
    assert sorted(m["tool_call_id"] for m in answers) == sorted(c[0] for c in calls)
    return calls, {m["tool_call_id"]: m["content"] for m in answers}


def _run(first: httpx2.Response, tools: list[Any] | None = None, **settings: Any) -> tuple[Any, dict[str, Any]]:
    RAN.clear()
    last = chat_sse([]) if settings.get("stream") else json_response(completion({"content": "done"}))
    if settings.get("stream"):
        last = chat_sse(
            [
                {
                    "id": "c2",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "gpt-4o",
                    "choices": [
                        {"index": 0, "delta": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}
                    ],
                }
            ]
        )
    server = Server(first, last)
    result = toolwire.run_sync(_model(server, **settings), "Weather and time?", tools=tools or [get_weather, get_time])
    return result, server.bodies[1]


SPLIT = [
    ("call_A_p1", "get_weather", {"city": "Paris"}),
    ("call_A_p2", "get_time", {"zone": "UTC"}),
    ("call_A_p3", "get_weather", {"city": "Rome"}),
]


def test_a_parallel_pseudo_call_runs_the_calls_it_names() -> None:
    answer = completion({"tool_calls": [tool_call("call_A", "multi_tool_use.parallel", USES)]}, "tool_calls")
    result, body = _run(json_response(answer))
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    assert result.text == "done"
    calls, answers = _check_history(body)
    assert calls == SPLIT
    assert answers == {"call_A_p1": "sunny in Paris", "call_A_p2": "noon in UTC", "call_A_p3": "sunny in Rome"}


def _streamed(uses: str) -> httpx2.Response:
    """A stream of one ``multi_tool_use.parallel`` call with the arguments ``uses`` in two pieces."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    start = {
        "index": 0,
        "id": "call_A",
        "type": "function",
        "function": {"name": "multi_tool_use.parallel", "arguments": ""},
    }
    chunks = [
        chunk({"role": "assistant", "tool_calls": [start]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": uses[:20]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": uses[20:]}}]}),
        chunk({}, "tool_calls"),
    ]
    return chat_sse(chunks)


def test_a_streamed_parallel_pseudo_call_runs_the_calls_it_names() -> None:
    result, body = _run(_streamed(USES), stream=True)
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    calls, _ = _check_history(body)
    assert calls == SPLIT
    assert [c.id for c in result.turns[0].response.tool_calls] == ["call_A_p1", "call_A_p2", "call_A_p3"]


def test_a_recipient_not_declared_is_answered_as_an_unknown_tool() -> None:
    uses = _uses(("functions.get_weather", {"city": "Paris"}), ("functions.launch", {"what": "rocket"}))
    answer = completion({"tool_calls": [tool_call("call_A", "multi_tool_use.parallel", uses)]}, "tool_calls")
    _, body = _run(json_response(answer))
    assert RAN == ["Paris"]
    calls, answers = _check_history(body)
    assert [c[:2] for c in calls] == [("call_A_p1", "get_weather"), ("call_A_p2", "launch")]
    assert answers["call_A_p1"] == "sunny in Paris"
    assert answers["call_A_p2"].startswith("Error: Unknown tool 'launch'.")


def test_a_pseudo_call_of_another_shape_stays_an_unknown_tool_saying_what_to_fix() -> None:
    odd = json.dumps({"tool_uses": [{"recipient_name": "functions.get_weather", "parameters": "Paris"}]})
    answer = completion({"tool_calls": [tool_call("call_A", "multi_tool_use.parallel", odd)]}, "tool_calls")
    _, body = _run(json_response(answer))
    assert RAN == []
    calls, answers = _check_history(body)
    assert [c[0] for c in calls] == ["call_A"]
    # before, only "Unknown tool" and the tool names: nothing said why the call was not split
    assert answers["call_A"] == (
        "Error: Unknown tool 'multi_tool_use.parallel'.\n"
        "This multi_tool_use.parallel call was not split into tool calls: tool_uses[0].parameters is a JSON "
        "string, not an object. Call each tool directly as its own function call, or send the arguments "
        '{"tool_uses": [{"recipient_name": "functions.<tool name>", "parameters": {<that tool\'s arguments>}}, '
        "...]}.\nCall one of the available tools: get_time, get_weather."
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_recipient_named_as_a_renamed_tool_runs_that_tool(stream: bool) -> None:
    # a tool named python is sent as run_python (a name OpenAI keeps for its own tool), so the
    # model names it functions.run_python; before, a streamed split kept that wire name and the
    # call was answered "Unknown tool 'run_python'" (the non-streamed split mapped it back)
    seen: list[str] = []
    python = Tool.from_schema(
        "python",
        "Run Python code.",
        {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
        lambda code: seen.append(code) or "4",
    )
    uses = _uses(("functions.run_python", {"code": "2+2"}), ("functions.get_time", {"zone": "UTC"}))
    if stream:
        first = _streamed(uses)
    else:
        first = json_response(
            completion({"tool_calls": [tool_call("call_A", "multi_tool_use.parallel", uses)]}, "tool_calls")
        )
    result, body = _run(first, tools=[python, get_time], stream=stream)
    assert [t["function"]["name"] for t in body["tools"]] == ["run_python", "get_time"]
    assert seen == ["2+2"] and RAN == ["UTC"]
    assert [(c.id, c.name) for c in result.turns[0].response.tool_calls] == [
        ("call_A_p1", "python"),
        ("call_A_p2", "get_time"),
    ]
    calls, answers = _check_history(body)
    assert [c[:2] for c in calls] == [("call_A_p1", "run_python"), ("call_A_p2", "get_time")]
    assert answers == {"call_A_p1": "4", "call_A_p2": "noon in UTC"}


def test_a_call_named_parallel_in_the_wrapper_shape_is_split() -> None:
    """The bare name Azure OpenAI gpt-5.4 uses for the wrapper (vercel/ai#19067)."""
    answer = completion({"tool_calls": [tool_call("call_A", "parallel", USES)]}, "tool_calls")
    _, body = _run(json_response(answer))
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    calls, _ = _check_history(body)
    assert calls == SPLIT


def test_a_declared_tool_named_parallel_gets_its_own_call() -> None:
    got: list[Any] = []
    parallel = Tool.from_schema(
        "parallel",
        "Run several lookups.",
        {"type": "object", "properties": {"tool_uses": {"type": "array"}}, "required": ["tool_uses"]},
        lambda tool_uses: got.append(tool_uses) or "ran them",
    )
    answer = completion({"tool_calls": [tool_call("call_A", "parallel", USES)]}, "tool_calls")
    _, body = _run(json_response(answer), tools=[parallel, get_weather, get_time])
    assert RAN == [] and len(got) == 1
    calls, answers = _check_history(body)
    assert [c[:2] for c in calls] == [("call_A", "parallel")]
    assert answers == {"call_A": "ran them"}


def test_streamed_events_pair_the_split_calls_with_the_wrapper_by_parallel_of() -> None:
    RAN.clear()
    done = chat_sse(
        [
            {
                "id": "c2",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
            }
        ]
    )
    model = _model(Server(_streamed(USES), done), stream=True)
    events = list(toolwire.run_stream_sync(model, "Weather and time?", tools=[get_weather, get_time]))
    started = [e.id for e in events if isinstance(e, ToolCallStarted)]
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert started == ["call_A"]
    assert [c.id for c in ready] == ["call_A_p1", "call_A_p2", "call_A_p3"]
    assert {c.provider_data["toolwire"]["parallel_of"] for c in ready} == {"call_A"}
