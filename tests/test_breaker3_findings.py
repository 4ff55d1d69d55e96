"""Breaker 3: hooks and approval, resuming hand-edited saved runs, odd tool fields and values,
MCP servers that misbehave. Each bad input gets a typed toolwire error or an ``is_error`` result
that says what to do next, never an internal exception from inside toolwire."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import toolwire
from toolwire import Limits, Tool, ToolDefinitionError
from toolwire.errors import ConfigurationError

from .all_apis.answers import APIS, text_answer

httpx2 = pytest.importorskip("httpx2")


def _call_answer(api: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A finished answer of ``api`` calling ``name`` with ``args``."""
    text = json.dumps(args)
    if api == "anthropic":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m-1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": args}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if api == "openai-chat":
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "m-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if api == "openai":
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "m-1",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": name,
                    "arguments": text,
                    "status": "completed",
                }
            ],
            "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
        }
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args}}]}, "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12},
    }


def _model(api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]]) -> Any:
    queue = list(answers)

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client)


def _thing() -> str:
    """Do the thing."""
    return "done it"


# ----------------------------------------------------------------------------------------------
# 1. A Tool's fields are checked when it is made and when a run starts


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"timeout": -1}, "timeout must be a number of seconds > 0"),
        ({"timeout": 0}, "timeout must be a number of seconds > 0"),
        ({"timeout": math.nan}, "timeout must be a number of seconds > 0"),
        ({"timeout": "5"}, "timeout must be a number of seconds > 0 or None, got str '5'"),
        ({"timeout": True}, "timeout must be a number of seconds > 0 or None, got bool"),
        pytest.param({"timeout": 10**400}, "that a float holds", id="timeout-huge-int"),
        ({"description": 5}, "description must be text"),
        ({"input_schema": 5}, "input_schema must be a JSON Schema object"),
        ({"function": 5}, "function must be a function"),
        ({"strict": "yes"}, "strict must be True, False or None"),
        ({"returns": 5}, "returns must be text or None"),
        ({"provider_data": None}, "provider_data must be a dict"),
        ({"meta": None}, "meta must be a dict"),
    ],
)
def test_a_tool_field_of_the_wrong_type_is_a_tool_definition_error(fields: dict[str, Any], words: str) -> None:
    base: dict[str, Any] = {"description": "Do the thing.", "function": _thing}
    with pytest.raises(ToolDefinitionError) as info:
        Tool("thing", **{**base, **fields})
    assert words in str(info.value) and "'thing'" in str(info.value)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeout", "5"),
        pytest.param("timeout", 10**400, id="timeout-huge-int"),
        ("returns", 5),
        ("provider_data", None),
    ],
)
def test_a_tool_field_set_after_the_tool_was_made_is_refused_before_any_request(
    api: str, field: str, value: Any
) -> None:
    thing = toolwire.tool(_thing, name="thing")
    setattr(thing, field, value)
    sent: list[dict[str, Any]] = []
    with pytest.raises(ToolDefinitionError, match=field):
        toolwire.run_sync(_model(api, [_call_answer(api, "thing", {}), text_answer(api)], sent), "go", tools=[thing])
    assert sent == []


def test_usable_timeouts_still_work() -> None:
    assert Tool("thing", "d", function=_thing, timeout=math.inf).timeout == math.inf
    assert Tool("thing", "d", function=_thing, timeout=2).timeout == 2
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        _model("anthropic", [_call_answer("anthropic", "thing", {}), text_answer("anthropic", "ok")], sent),
        "go",
        tools=[toolwire.tool(_thing, name="thing", timeout=30)],
        limits=Limits(tool_timeout=math.inf),
    )
    assert result.tool_runs[0].result.content == "done it" and result.text == "ok"


def test_a_tool_timeout_limit_too_large_for_a_float_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="that a float holds"):
        Limits(tool_timeout=10**400)


# ----------------------------------------------------------------------------------------------
# 2. A saved run edited by hand: a field of the wrong type fails on load, naming the field


def _paused_state() -> dict[str, Any]:
    """A saved run paused on an approval: one call ran, one waits."""

    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    from toolwire.testing import ScriptedModel, call

    model = ScriptedModel(
        responses=[
            {
                "text": "adding",
                "tool_calls": [call("add", {"a": 1, "b": 2}, id="c1"), call("add", {"a": 3, "b": 4}, id="c2")],
                "usage": {"input_tokens": 5, "output_tokens": 7},
            }
        ]
    )
    result = toolwire.run_sync(model, "add", tools=[add], approval=lambda c: c.id == "c2")
    assert result.stop_reason == "pending"
    return json.loads(result.state.to_json())


def _set(d: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        d = d[key]
    d[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("turns", 0, "tool_runs", 0, "call", "id"), [], "tool_call part: id must be str"),
        (("turns", 0, "tool_runs", 0, "call", "name"), {}, "tool_call part: name must be str"),
        (("turns", 0, "tool_runs", 0, "result", "tool_call_id"), 5, "tool_result part: tool_call_id must be str"),
        (("turns", 0, "tool_runs", 0, "call"), "c1", "a tool run's call must be an object"),
        (("turns", 0, "tool_runs", 0, "status"), "bogus", "tool run status must be one of"),
        (("turns", 0, "tool_runs", 0, "duration"), "fast", "duration must be int or float"),
        (("turns", 0, "tool_runs", 0, "turn"), "1", "turn must be int"),
        (("pending", 0, "call", "name"), 5, "tool_call part: name must be str"),
        (("pending", 0, "call", "id"), ["c2"], "tool_call part: id must be str"),
        (("pending", 0, "reason"), 5, "reason must be str or null"),
        (("turns", 0, "response", "usage", "input_tokens"), "5", "usage: input_tokens must be a whole number"),
        (("turns", 0, "response", "usage", "output_tokens"), 1.5, "usage: output_tokens must be a whole number"),
        (("turns", 0, "response", "stop_reason"), 5, "response: stop_reason must be str"),
        (("turns", 0, "number"), "1", "turn: number must be int"),
        (("conversation", "instructions"), 5, "conversation: instructions must be str or null"),
        (("conversation", "messages", 0, "parts", 0, "provider_data"), {"openai": 5}, "provider_data['openai']"),
        (("conversation", "messages", 0, "parts", 0, "provider_data"), ["x"], "provider_data must be an object"),
        (("run_id",), 5, "run_id must be str"),
    ],
)
def test_a_saved_run_with_a_field_of_the_wrong_type_fails_on_load_naming_it(
    path: tuple[Any, ...], value: Any, words: str
) -> None:
    saved = _paused_state()
    _set(saved, path, value)
    with pytest.raises(ValueError, match="not a saved toolwire RunState") as info:
        toolwire.RunState.from_json(json.dumps(saved))
    assert words in str(info.value)
    as_result = json.loads(toolwire.RunState.from_json(json.dumps(_paused_state())).to_result().to_json())
    if path[0] in as_result:
        _set(as_result, path, value)
        with pytest.raises(ValueError, match="not a saved toolwire RunResult"):
            toolwire.RunResult.from_json(json.dumps(as_result))


def test_a_saved_run_unedited_still_loads_and_resumes() -> None:
    saved = _paused_state()
    state = toolwire.RunState.from_json(json.dumps(saved))
    assert json.loads(state.to_json()) == saved
    assert state.usage.input_tokens == 5

    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    done = toolwire.run_sync(
        toolwire.model("scripted", responses=["3 and 7"]),
        tools=[add],
        resume=state,
        decisions={"c2": toolwire.Approved()},
    )
    assert done.text == "3 and 7"
    assert [r.result.content for r in done.tool_runs] == ["3", "7"]


# ----------------------------------------------------------------------------------------------
# 3. A state given to resume= and changed in code is checked as conversation= is


def _edit_system(st: Any) -> None:
    st.conversation.messages.append(toolwire.Message("system", [toolwire.TextPart("be brief")]))  # type: ignore[arg-type]


def _edit_str_part(st: Any) -> None:
    st.conversation.messages.append(toolwire.Message("user", ["and then?"]))  # type: ignore[list-item]


def _edit_dict_message(st: Any) -> None:
    st.conversation.messages.append({"role": "user", "content": "and then?"})


@pytest.mark.parametrize("api", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (_edit_system, "the saved run's conversation message 4 has role 'system'"),
        (_edit_str_part, "the saved run's conversation message 4, part 0, is a str"),
        (_edit_dict_message, "the saved run's conversation message 4 is a dict"),
        (lambda st: setattr(st.conversation, "instructions", 5), "conversation.instructions must be text"),
        (lambda st: setattr(st.conversation, "messages", None), "conversation.messages must be a list"),
        (lambda st: setattr(st, "conversation", None), "the saved run's conversation must be a toolwire.Conversation"),
        (lambda st: setattr(st, "turns", None), "the saved run's turns must be a list of toolwire Turn"),
        (lambda st: st.pending.append("c9"), "got a str in it"),
        (lambda st: setattr(st, "status", "done"), "the saved run's status must be one of"),
        (lambda st: setattr(st, "run_id", 5), "run_id must be non-empty text"),
    ],
)
def test_a_saved_state_changed_in_code_is_a_configuration_error_before_any_request(
    api: str, edit: Any, words: str
) -> None:
    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    from toolwire.testing import ScriptedModel, call

    first = toolwire.run_sync(ScriptedModel(responses=[[call("add", {"a": 1, "b": 2})], "3"]), "add", tools=[add])
    state = toolwire.RunState.from_json(first.state.to_json())
    edit(state)
    sent: list[dict[str, Any]] = []
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(_model(api, [text_answer(api)], sent), "and then?", tools=[add], resume=state)
    assert words in str(info.value)
    assert sent == []  # (before: the message was left out of the request unsaid, or a raw TypeError)


# ----------------------------------------------------------------------------------------------
# 4. provider_data edited by hand in a shape the adapter does not write: a ConfigurationError
#    saying nothing was sent (was a raw TypeError/AttributeError from inside the encoder)


def _history(api: str, where: str, own: dict[str, Any]) -> Any:
    pd = {api: own}
    text = toolwire.TextPart("adding", provider_data=pd if where == "text" else {})
    call = toolwire.ToolCall("c1", "add", {"a": 1}, provider_data=pd if where == "call" else {})
    answer = toolwire.Message("assistant", [text, call], pd if where == "message" else {})
    return toolwire.Conversation(
        [toolwire.Message.user("add"), answer, toolwire.Message("user", [toolwire.ToolResult("c1", "1", name="add")])]
    )


@pytest.mark.parametrize(
    ("api", "where", "own"),
    [
        ("anthropic", "message", {"blocks": 5}),
        ("openai-chat", "call", {"call": 5}),
        ("openai", "text", {"item": 5}),
        ("openai", "call", {"item": "x"}),
        ("openai", "message", {"opaque": 5}),
    ],
)
def test_provider_data_of_a_shape_the_adapter_does_not_write_is_a_configuration_error(
    api: str, where: str, own: dict[str, Any]
) -> None:
    @toolwire.tool
    def add(a: int) -> int:
        """Add one number."""
        return a

    sent: list[dict[str, Any]] = []
    with pytest.raises(ConfigurationError, match=f"{api}: request not sent: it could not be encoded") as info:
        toolwire.run_sync(_model(api, [text_answer(api)], sent), conversation=_history(api, where, own), tools=[add])
    assert "provider_data" in str(info.value) and "report" in str(info.value)
    assert isinstance(info.value.__cause__, (TypeError, AttributeError, ValueError))  # the encoder's own error
    assert sent == []


# ----------------------------------------------------------------------------------------------
# 5. Hooks: what they return and what they change in place


@toolwire.tool
def secret(account: str, limit: int = 1000) -> str:
    """Read an account's secret notes."""
    return f"{account}: password=hunter2 (limit {limit})"


def _hooked(api: str, sent: list[dict[str, Any]], **hooks: Any) -> Any:
    answers = [_call_answer(api, "secret", {"account": "main"}), text_answer(api, "ok")]
    return toolwire.run_sync(_model(api, answers, sent), "notes?", tools=[secret], **hooks)


def _set_content(run: Any) -> None:
    run.result.content = 5


def _set_ids(run: Any) -> None:
    run.result.tool_call_id = "zzz"
    run.call.id = "other"


def _redact(run: Any) -> None:
    run.result.content = run.result.text.replace("hunter2", "***")


@pytest.mark.parametrize("api", APIS)
def test_after_tool_call_edits_in_place_are_checked_like_a_returned_result(api: str) -> None:
    sent: list[dict[str, Any]] = []
    result = _hooked(api, sent, after_tool_call=_set_content)  # (before: a TypeError in the encoder)
    assert result.tool_runs[0].result.content == "5" and result.text == "ok"
    assert toolwire.RunResult.from_json(result.to_json()) == result

    sent = []
    result = _hooked(api, sent, after_tool_call=_set_ids)  # (before: RequestRefused, the ids no longer paired)
    run = result.tool_runs[0]
    assert run.result.tool_call_id == run.call.id == result.conversation.messages[1].tool_calls[0].id
    assert result.text == "ok" and len(sent) == 2

    sent = []
    result = _hooked(api, sent, after_tool_call=_redact)
    assert "hunter2" not in json.dumps(sent[1]) and "password=***" in json.dumps(sent[1])


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (b"\x89PNG\r\n", "after_tool_call gave a result toolwire cannot send for 'secret' (UnicodeDecodeError"),
        (toolwire.Denied("no"), "after_tool_call returned toolwire.Denied, but the tool has already run"),
        (iter([1, 2]), "after_tool_call gave a result toolwire cannot send"),
    ],
)
def test_after_tool_call_returning_what_cannot_be_sent_is_a_configuration_error(value: Any, words: str) -> None:
    sent: list[dict[str, Any]] = []
    with pytest.raises(ConfigurationError) as info:
        _hooked("anthropic", sent, after_tool_call=lambda run: value)
    assert words in str(info.value)
    assert len(sent) == 1  # the answer with the call was read; nothing more was sent


def test_before_tool_call_edits_in_place_are_new_arguments() -> None:
    def cap(call: Any) -> None:
        call.arguments["limit"] = 10  # in place, returning None: before, silently ignored

    sent: list[dict[str, Any]] = []
    result = _hooked("anthropic", sent, before_tool_call=cap)
    assert result.tool_runs[0].result.content == "main: password=hunter2 (limit 10)"
    assert result.tool_runs[0].call.arguments == {"account": "main", "limit": 10}
    # the conversation keeps the call as the model sent it
    assert result.conversation.messages[1].tool_calls[0].arguments == {"account": "main"}

    def bad(call: Any) -> None:
        call.arguments["limit"] = "ten"

    result = _hooked("anthropic", [], before_tool_call=bad)
    assert (
        result.tool_runs[0].status == "invalid" and "'ten' is not of type 'integer'" in result.tool_runs[0].result.text
    )


# ----------------------------------------------------------------------------------------------
# 6. Chat codec settings of an unknown value are configuration errors (were plain ValueErrors)


@pytest.mark.parametrize(
    ("setting", "words"),
    [("max_tokens_field", "max_tokens_field must be"), ("named_tool_choice", "named_tool_choice must be")],
)
def test_a_chat_codec_setting_of_an_unknown_value_is_a_configuration_error(setting: str, words: str) -> None:
    sent: list[dict[str, Any]] = []

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer("openai-chat"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    with pytest.raises(ConfigurationError, match=words) as info:
        model = toolwire.model("openai-chat:m-1", api_key="k", http_client=client, **{setting: "x"})
        toolwire.run_sync(model, "hi")
    assert "got 'x'" in str(info.value) and "could not be encoded" not in str(info.value)
    assert sent == []
