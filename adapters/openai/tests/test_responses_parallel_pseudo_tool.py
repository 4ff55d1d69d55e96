"""OpenAI Responses answers that call the ``multi_tool_use.parallel`` pseudo-tool.

Some OpenAI models make one call named ``multi_tool_use.parallel`` whose arguments name the real
calls (``{"tool_uses": [{"recipient_name": "functions.get_weather", "parameters": {...}}, ...]}``;
prefect-archive/ControlFlow#107, craft-ai-agents/craft-agents-oss#449) instead of parallel tool
calls. On the Responses API it arrives as a ``function_call`` output item of that name, and
toolwire answered it as an unknown tool: nothing the model asked for ran. Now it is split into the
calls it names (ids ``<call_id>_p<k>``), streamed or not, each runs once, and the next request
carries the original ``function_call`` item as it came followed by ONE ``function_call_output``
for its ``call_id`` holding the results of all of them (a Responses call is answered by its own
``call_id``; with ``previous_response_id`` the stored response holds the original item). A
pseudo-call whose arguments cannot be split gets an ``is_error`` output naming the field to fix.

The real ``openai`` SDK sends and reads every request; only the network is replaced.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import Server, fc_item, json_response, response_body, responses_sse
from toolwire_openai import OpenAIResponsesModel
from toolwire_openai.profile import OpenAIResponsesProfile

import toolwire
from toolwire import Tool

RAN: list[str] = []


def get_weather(city: str) -> str:
    """Weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Time in a zone."""
    RAN.append(zone)
    return f"noon in {zone}"


def _uses(*uses: tuple[str, Any]) -> str:
    return json.dumps({"tool_uses": [{"recipient_name": r, "parameters": p} for r, p in uses]})


USES = _uses(
    ("functions.get_weather", {"city": "Paris"}),
    ("functions.get_time", {"zone": "UTC"}),
    ("functions.get_weather", {"city": "Rome"}),
)
ITEM = fc_item("call_A", "multi_tool_use.parallel", USES, "fc_A")


def _model(server: Server, **settings: Any) -> OpenAIResponsesModel:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return OpenAIResponsesModel("gpt-4o", api_key="sk-test", http_client=client, max_retries=0, **settings)


def _done_text(stream: bool) -> httpx2.Response:
    msg = {
        "id": "msg_2",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "done", "annotations": []}],
    }
    body = response_body([msg], rid="resp_TEST2")
    if not stream:
        return json_response(body)
    return responses_sse(
        [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {**body, "output": [], "status": "in_progress"},
            },
            {"type": "response.output_item.done", "sequence_number": 1, "output_index": 0, "item": msg},
            {"type": "response.completed", "sequence_number": 2, "response": body},
        ]
    )


def _streamed(item: dict[str, Any]) -> httpx2.Response:
    """The stream of an answer holding the one ``function_call`` item ``item``, its arguments in
    two deltas."""
    args = item["arguments"]
    return responses_sse(
        [
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
                "item_id": item["id"],
                "output_index": 0,
                "delta": args[:20],
            },
            {
                "type": "response.function_call_arguments.delta",
                "sequence_number": 3,
                "item_id": item["id"],
                "output_index": 0,
                "delta": args[20:],
            },
            {
                "type": "response.function_call_arguments.done",
                "sequence_number": 4,
                "item_id": item["id"],
                "output_index": 0,
                "arguments": args,
            },
            {"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": item},
            {"type": "response.completed", "sequence_number": 6, "response": response_body([item])},
        ]
    )


def _run(
    item: dict[str, Any], *, stream: bool = False, tools: list[Any] | None = None, **settings: Any
) -> tuple[Any, dict[str, Any]]:
    RAN.clear()
    first = _streamed(item) if stream else json_response(response_body([item]))
    server = Server(first, _done_text(stream))
    model = _model(server, stream=stream, **settings)
    result = toolwire.run_sync(model, "Weather and time?", tools=tools or [get_weather, get_time])
    assert len(server.bodies) == 2
    return result, server.bodies[1]


def _calls_and_outputs(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    items = body["input"]
    return (
        [i for i in items if i.get("type") == "function_call"],
        [i for i in items if i.get("type") == "function_call_output"],
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_calls_named_run_once_and_one_output_answers_the_original_call(stream: bool) -> None:
    result, body = _run(ITEM, stream=stream)
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    assert result.text == "done"
    assert [(c.id, c.name, c.arguments) for c in result.turns[0].response.tool_calls] == [
        ("call_A_p1", "get_weather", {"city": "Paris"}),
        ("call_A_p2", "get_time", {"zone": "UTC"}),
        ("call_A_p3", "get_weather", {"city": "Rome"}),
    ]
    calls, outputs = _calls_and_outputs(body)
    assert calls == [ITEM]  # the item as it came: item id, call_id, name, arguments text, status
    assert [o["call_id"] for o in outputs] == ["call_A"]
    assert json.loads(outputs[0]["output"]) == [
        {"recipient_name": "functions.get_weather", "is_error": False, "output": "sunny in Paris"},
        {"recipient_name": "functions.get_time", "is_error": False, "output": "noon in UTC"},
        {"recipient_name": "functions.get_weather", "is_error": False, "output": "sunny in Rome"},
    ]
    # the output right after its call, and nothing else of the turn on the wire
    at = body["input"].index(ITEM)
    assert body["input"][at + 1]["type"] == "function_call_output"
    assert len(body["input"]) == at + 2
    assert OpenAIResponsesProfile().check_request(body) == []


def test_with_previous_response_id_only_the_one_output_is_sent() -> None:
    _, body = _run(ITEM, continuation="previous_response_id")
    assert body["previous_response_id"] == "resp_TEST1"
    assert [i["type"] for i in body["input"]] == ["function_call_output"]
    assert body["input"][0]["call_id"] == "call_A"
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    assert len(json.loads(body["input"][0]["output"])) == 3


def test_an_unknown_recipient_is_an_error_entry_of_the_joined_output() -> None:
    uses = _uses(("functions.get_weather", {"city": "Paris"}), ("functions.launch", {"what": "rocket"}))
    item = fc_item("call_A", "multi_tool_use.parallel", uses, "fc_A")
    _, body = _run(item)
    assert RAN == ["Paris"]
    calls, outputs = _calls_and_outputs(body)
    assert calls == [item]
    (output,) = outputs
    first, second = json.loads(output["output"])
    assert first == {"recipient_name": "functions.get_weather", "is_error": False, "output": "sunny in Paris"}
    assert second["recipient_name"] == "functions.launch"
    assert second["is_error"] is True
    assert second["output"].startswith("Unknown tool 'launch'.")
    assert "get_time, get_weather" in second["output"]


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ('"three calls"', "arguments must be a JSON object"),
        ('{"tool_uses": {"recipient_name": "functions.get_weather"}}', "tool_uses is a JSON object, not a list"),
        ('{"uses": []}', "its arguments have no tool_uses list"),
        ('{"tool_uses": []}', "tool_uses is an empty list"),
        ('{"tool_uses": ["functions.get_weather"]}', "tool_uses[0] is a JSON string, not an object"),
        (
            _uses(("functions.get_weather", {"city": "Paris"}), ("functions.get_time", "UTC")),
            "tool_uses[1].parameters is a JSON string, not an object",
        ),
        ('{"tool_uses": [{"parameters": {}}]}', "tool_uses[0].recipient_name is a JSON null, not a string"),
        ('{"tool_uses": [{"recipient_name": "functions.", "parameters": {}}]}', "names no tool"),
    ],
    ids=["not-object", "not-list", "no-tool-uses", "empty", "use-not-object", "parameters", "no-recipient", "no-name"],
)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_payload_that_cannot_be_split_is_answered_with_what_to_fix(arguments: str, why: str, stream: bool) -> None:
    item = fc_item("call_A", "multi_tool_use.parallel", arguments, "fc_A")
    result, body = _run(item, stream=stream)
    assert RAN == []
    assert result.text == "done"
    calls, outputs = _calls_and_outputs(body)
    # not renamed: the item as the model sent it (arguments that are not an object are sent as
    # {}, as for any invalid call)
    assert calls == [item if arguments.startswith("{") else {**item, "arguments": "{}"}]
    (output,) = outputs
    assert output["call_id"] == "call_A"
    text = output["output"]
    assert text.startswith("Error: Unknown tool 'multi_tool_use.parallel'.\n")
    assert why in text
    assert "Call each tool directly as its own function call" in text
    assert text.endswith("Call one of the available tools: get_time, get_weather.")
    assert OpenAIResponsesProfile().check_request(body) == []


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_recipient_named_as_a_renamed_tool_runs_that_tool(stream: bool) -> None:
    # a tool named python is sent as run_python (a name OpenAI keeps for its own tool): the
    # model names it functions.run_python
    seen: list[str] = []
    python = Tool.from_schema(
        "python",
        "Run Python code.",
        {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
        lambda code: seen.append(code) or "4",
    )
    uses = _uses(("functions.run_python", {"code": "2+2"}), ("functions.get_time", {"zone": "UTC"}))
    item = fc_item("call_A", "multi_tool_use.parallel", uses, "fc_A")
    result, body = _run(item, stream=stream, tools=[python, get_time])
    assert [t["name"] for t in body["tools"]] == ["run_python", "get_time"]
    assert seen == ["2+2"] and RAN == ["UTC"]
    assert [c.name for c in result.turns[0].response.tool_calls] == ["python", "get_time"]
    _, outputs = _calls_and_outputs(body)
    assert json.loads(outputs[0]["output"]) == [
        {"recipient_name": "functions.run_python", "is_error": False, "output": "4"},
        {"recipient_name": "functions.get_time", "is_error": False, "output": "noon in UTC"},
    ]


def test_an_image_result_goes_in_a_labelled_parts_output() -> None:
    png = (
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
        b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
    )

    def snapshot(city: str) -> list[Any]:
        """A picture of a city."""
        RAN.append(city)
        return [toolwire.TextPart(f"{city} now"), toolwire.ImagePart(png, "image/png")]

    uses = _uses(("functions.snapshot", {"city": "Paris"}), ("functions.get_time", {"zone": "UTC"}))
    item = fc_item("call_A", "multi_tool_use.parallel", uses, "fc_A")
    _, body = _run(item, tools=[snapshot, get_time])
    assert sorted(RAN) == ["Paris", "UTC"]
    calls, outputs = _calls_and_outputs(body)
    assert calls == [item]
    (output,) = outputs
    parts = output["output"]
    assert [p["type"] for p in parts] == ["input_text", "input_image", "input_text"]
    assert parts[0]["text"] == "tool_uses[0] functions.snapshot:\nParis now"
    assert parts[1]["image_url"].startswith("data:image/png;base64,")
    assert parts[2]["text"] == "tool_uses[1] functions.get_time:\nnoon in UTC"


def test_a_long_run_of_split_and_plain_calls_pairs_every_call_with_one_output() -> None:
    # past 16 messages a request reuses the previous request's entries and encodes only the new
    # messages: the joined outputs stay right there too
    RAN.clear()
    answers = [
        json_response(
            response_body(
                [
                    fc_item(
                        f"call_X{n}",
                        "multi_tool_use.parallel",
                        _uses(("functions.get_weather", {"city": f"a{n}"}), ("functions.get_time", {"zone": f"z{n}"})),
                        f"fc_X{n}",
                    ),
                    fc_item(f"call_R{n}", "get_weather", json.dumps({"city": f"r{n}"}), f"fc_R{n}"),
                    fc_item(
                        f"call_Y{n}",
                        "multi_tool_use.parallel",
                        _uses(("functions.get_weather", {"city": f"b{n}"})),
                        f"fc_Y{n}",
                    ),
                ],
                rid=f"resp_{n}",
            )
        )
        for n in range(10)
    ]
    server = Server(*answers, _done_text(False))
    result = toolwire.run_sync(_model(server), "Go.", tools=[get_weather, get_time], max_turns=20)
    assert result.text == "done"
    assert len(RAN) == 40 and len(set(RAN)) == 40  # each named call ran once
    for body in server.bodies:
        calls, outputs = _calls_and_outputs(body)
        assert [c["call_id"] for c in calls] == [o["call_id"] for o in outputs]
        assert len({c["call_id"] for c in calls}) == len(calls)
        assert OpenAIResponsesProfile().check_request(body) == []
    calls, outputs = _calls_and_outputs(server.bodies[-1])
    assert [c["call_id"] for c in calls[-3:]] == ["call_X9", "call_R9", "call_Y9"]
    assert [c["name"] for c in calls[-3:]] == ["multi_tool_use.parallel", "get_weather", "multi_tool_use.parallel"]
    assert json.loads(outputs[-3]["output"]) == [
        {"recipient_name": "functions.get_weather", "is_error": False, "output": "sunny in a9"},
        {"recipient_name": "functions.get_time", "is_error": False, "output": "noon in z9"},
    ]
    assert outputs[-2]["output"] == "sunny in r9"


def test_calls_waiting_for_approval_resume_from_json_and_join() -> None:
    RAN.clear()
    server = Server(json_response(response_body([ITEM])), _done_text(False))
    model = _model(server)
    first = toolwire.run_sync(model, "Weather and time?", tools=[get_weather, get_time], approval={"get_time"})
    assert first.stop_reason == "pending"
    assert [(p.call.id, p.call.name) for p in first.pending] == [("call_A_p2", "get_time")]
    assert sorted(RAN) == ["Paris", "Rome"] and len(server.bodies) == 1
    saved = toolwire.RunResult.from_json(first.to_json())
    done = toolwire.run_sync(
        model, tools=[get_weather, get_time], resume=saved, decisions={"call_A_p2": toolwire.Approved()}
    )
    assert done.text == "done"
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    calls, outputs = _calls_and_outputs(server.bodies[1])
    assert calls == [ITEM]
    assert [o["call_id"] for o in outputs] == ["call_A"]
    assert [e["output"] for e in json.loads(outputs[0]["output"])] == ["sunny in Paris", "noon in UTC", "sunny in Rome"]


# -- the bare name "parallel" ----------------------------------------------------------------------
# Azure OpenAI gpt-5.4 sends the same wrapper as a function_call named just "parallel"
# (vercel/ai#19067). It is the wrapper only in its exact shape and when no tool of that name is
# declared; otherwise it is an ordinary call.


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_call_named_parallel_in_the_wrapper_shape_is_split_and_joined(stream: bool) -> None:
    item = fc_item("call_B", "parallel", USES, "fc_B")
    result, body = _run(item, stream=stream)
    assert sorted(RAN) == ["Paris", "Rome", "UTC"]
    assert [(c.id, c.name) for c in result.turns[0].response.tool_calls] == [
        ("call_B_p1", "get_weather"),
        ("call_B_p2", "get_time"),
        ("call_B_p3", "get_weather"),
    ]
    calls, outputs = _calls_and_outputs(body)
    assert calls == [item]
    assert [o["call_id"] for o in outputs] == ["call_B"]
    assert [e["output"] for e in json.loads(outputs[0]["output"])] == ["sunny in Paris", "noon in UTC", "sunny in Rome"]
    assert OpenAIResponsesProfile().check_request(body) == []


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_declared_tool_named_parallel_gets_its_own_call(stream: bool) -> None:
    got: list[Any] = []
    parallel = Tool.from_schema(
        "parallel",
        "Run several lookups.",
        {"type": "object", "properties": {"tool_uses": {"type": "array"}}, "required": ["tool_uses"]},
        lambda tool_uses: got.append(tool_uses) or "ran them",
    )
    item = fc_item("call_B", "parallel", USES, "fc_B")
    result, body = _run(item, stream=stream, tools=[parallel, get_weather, get_time])
    assert RAN == [] and len(got) == 1 and len(got[0]) == 3
    assert [(c.id, c.name) for c in result.turns[0].response.tool_calls] == [("call_B", "parallel")]
    _, outputs = _calls_and_outputs(body)
    assert [(o["call_id"], o["output"]) for o in outputs] == [("call_B", "ran them")]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_call_named_parallel_of_another_shape_is_an_unknown_tool(stream: bool) -> None:
    # a recipient without "functions.": not the wrapper's shape, so an ordinary (unknown) call
    args = _uses(("get_weather", {"city": "Paris"}))
    item = fc_item("call_B", "parallel", args, "fc_B")
    result, body = _run(item, stream=stream)
    assert RAN == []
    (call,) = result.turns[0].response.tool_calls
    assert (call.id, call.name) == ("call_B", "parallel")
    _, outputs = _calls_and_outputs(body)
    assert outputs[0]["output"].startswith("Error: Unknown tool 'parallel'.")
