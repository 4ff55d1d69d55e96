"""A function tool named ``python`` (rule ``tool.reserved-name`` of both APIs), through the real
``openai`` SDK over ``httpx2.MockTransport``: OpenAI refuses the name ("The function name
'python' is reserved for use by this model. Please use a different function name.", param
``tools``; onyx-dot-app/onyx#13235, avante-corp/avante.nvim#1890), so the tool is sent as
``run_python`` in the declaration, the history and the tool choice, and the model's calls to
``run_python`` run the real tool."""

from __future__ import annotations

import asyncio
from typing import Any

from openai_wire import completion, fc_item, json_response, response_body, responses_sse, tool_call
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai.profile import OpenAIChatProfile, OpenAIResponsesProfile

import toolwire
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

CODE = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}


def _python(ran: list[str]) -> Tool:
    def run(code: str) -> str:
        ran.append(code)
        return "4"

    return Tool.from_schema("python", "Run Python code.", CODE, run)


def _history() -> list[Message]:
    return [
        Message.user("2+2 in Python?"),
        Message("assistant", [ToolCall("call_1", "python", {"code": "print(1+1)"})]),
        Message("user", [ToolResult("call_1", "2")]),
        Message.user("and 2+2?"),
    ]


def test_chat_sends_python_as_run_python_and_runs_the_tool(chat_model: Any) -> None:
    ran: list[str] = []
    replies = iter(
        [
            completion({"tool_calls": [tool_call("call_2", "run_python", '{"code": "print(2+2)"}')]}, "tool_calls"),
            completion({"content": "4"}),
        ]
    )
    model = chat_model(lambda r: json_response(next(replies)))
    history = _history()
    result = toolwire.run_sync(
        model,
        history[-1].text,
        conversation=toolwire.Conversation(history[:-1]),
        tools=[_python(ran)],
        tool_choice={"type": "tool", "name": "python"},
        max_turns=2,
    )
    first = model.sent[0].json
    assert [t["function"]["name"] for t in first["tools"]] == ["run_python"]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "run_python"}}
    assert [c["function"]["name"] for m in first["messages"] for c in m.get("tool_calls") or []] == ["run_python"]
    assert ran == ["print(2+2)"]  # the model's call to run_python ran the tool named python
    assert result.text == "4"
    assert OpenAIChatProfile().check_request(first) == []


def test_responses_stream_sends_python_as_run_python_and_decodes_the_call_back(responses_model: Any) -> None:
    item = fc_item("call_2", "run_python", '{"code": "print(2+2)"}', "fc_2")
    events = [
        {"type": "response.created", "sequence_number": 0, "response": response_body([], status="in_progress")},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {**item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 2,
            "item_id": "fc_2",
            "output_index": 0,
            "delta": '{"code": "print(2+2)"}',
        },
        {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item},
        {"type": "response.completed", "sequence_number": 4, "response": response_body([item])},
    ]
    model = responses_model(lambda r: responses_sse(events), stream=True)
    resp = asyncio.run(model.send(model.build_request(_history(), tools=[_python([])])))
    body = model.sent[0].json
    assert [t["name"] for t in body["tools"]] == ["run_python"]
    assert [it["name"] for it in body["input"] if it.get("type") == "function_call"] == ["run_python"]
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("python", {"code": "print(2+2)"})]
    assert OpenAIResponsesProfile().check_request(body) == []


def test_python_beside_a_tool_named_run_python_gets_a_hashed_name(chat_model: Any) -> None:
    from toolwire_openai.profile import wire_tool_names

    other = Tool.from_schema("run_python", "Another tool.", CODE, lambda code: "")
    wire = wire_tool_names(["python", "run_python"])["python"]
    assert wire.startswith("python_") and len(wire) == len("python_") + 8
    model = chat_model(lambda r: json_response(completion({"content": "ok"})))
    asyncio.run(model.send(model.build_request([Message.user("hi")], tools=[_python([]), other])))
    assert [t["function"]["name"] for t in model.sent[0].json["tools"]] == [wire, "run_python"]


def test_translate_tool_reports_the_reserved_name() -> None:
    tool = _python([])
    for codec in (OpenAIChatCodec(), OpenAIResponsesCodec()):
        decl, report = codec.translate_tool(tool)
        assert decl.get("function", decl)["name"] == "run_python"
        (change,) = [c for c in report if c.keyword == "name"]
        assert change.action == "rewritten" and "keeps that function name" in change.detail


def _get_weather() -> Tool:
    return Tool.from_schema("get_weather", "Weather for a city.", {"type": "object", "properties": {}}, lambda: "sun")


def test_a_call_against_a_forced_python_names_the_tool_as_the_model_knows_it(chat_model: Any) -> None:
    """A forced choice of the tool ``python`` (sent as ``run_python``) that the server did not
    apply: the error result told the model to "Call 'python' instead", a name it was never shown
    (it knows the tool as ``run_python``), so it could not follow the hint."""
    replies = iter(
        [
            completion({"tool_calls": [tool_call("call_2", "get_weather", "{}")]}, "tool_calls"),
            completion({"content": "ok"}),
        ]
    )
    model = chat_model(lambda r: json_response(next(replies)))
    ran: list[str] = []
    result = toolwire.run_sync(
        model,
        "2+2 in Python?",
        tools=[_python(ran), _get_weather()],
        tool_choice={"type": "tool", "name": "python"},
        max_turns=2,
    )
    assert model.sent[0].json["tool_choice"] == {"type": "function", "function": {"name": "run_python"}}
    (run,) = result.tool_runs
    assert run.status == "invalid" and ran == []
    text = run.result.text
    assert "Call 'run_python' instead." in text and "forced the tool 'run_python'" in text
    assert "'python'" not in text
    # the body of the next request carries the same text to the model
    (answer,) = [m for m in model.sent[1].json["messages"] if m["role"] == "tool"]
    assert "Call 'run_python' instead." in answer["content"]


def test_errors_about_a_call_to_python_name_run_python(chat_model: Any) -> None:
    """The model's call to ``run_python`` with bad arguments: the error result names the tool as
    the model called it (``run_python``), not by its own name ``python``, which the model was
    never shown; so do the "unknown tool" hint's list of tools."""
    replies = iter(
        [
            completion(
                {
                    "tool_calls": [
                        tool_call("call_2", "run_python", '{"code": 5}'),
                        tool_call("call_3", "pyhton", "{}"),
                    ]
                },
                "tool_calls",
            ),
            completion({"content": "ok"}),
        ]
    )
    model = chat_model(lambda r: json_response(next(replies)))
    result = toolwire.run_sync(model, "2+2 in Python?", tools=[_python([]), _get_weather()], max_turns=2)
    bad, unknown = (r.result.text for r in result.tool_runs)
    assert "Invalid arguments for tool 'run_python'" in bad and "'python'" not in bad
    assert "Call one of the available tools: get_weather, run_python." in unknown
    assert "'python'" not in unknown
