"""Findings of the adversarial pass over this session's per-request caches (the earlier messages
guarded by a fingerprint, with compared copies for values the fingerprint does not take): each
test edits a history in place the way a hook or a careless user would and compares the body with
the one a fresh model encodes from nothing."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import toolwire
from toolwire.adapter import ModelRequest
from toolwire.tools import Tool
from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

pytest.importorskip("httpx2")

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-5"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash"),
}

LOOKUP = Tool(
    "lookup",
    "Look something up.",
    {"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]},
)


class NotedMessage(Message):
    """A user's own message class (adds nothing the encoding reads)."""


class NotedCall(ToolCall):
    """A user's own tool call class."""


def _model(api: str) -> Any:
    pytest.importorskip(APIS[api][0])
    return toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0)


def _body(m: Any, messages: list[Message], owner: Any) -> str:
    req: ModelRequest = m.build_request(messages, tools=[LOOKUP])
    req.conversation = owner
    return json.dumps(m._preflight(req, incremental=True)[0])


def _fresh(api: str, m: Any, messages: list[Message]) -> str:
    req = dataclasses.replace(m.build_request(messages, tools=[LOOKUP]), conversation=None)
    return json.dumps(_model(api)._preflight(req)[0])


def _history(message_cls: type[Message], call_cls: type[ToolCall]) -> list[Message]:
    return [
        Message("user", [TextPart("go")]),
        message_cls("assistant", [TextPart("step 0"), call_cls("call_0", "lookup", {"q": 1})]),
        Message("user", [ToolResult("call_0", "result 0")]),
        Message("assistant", [TextPart("step 1"), ToolCall("call_1", "lookup", {"q": 2})]),
        Message("user", [ToolResult("call_1", "result 1")]),
    ]


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize(
    "classes", [(NotedMessage, ToolCall), (Message, NotedCall)], ids=["message-subclass", "call-subclass"]
)
@pytest.mark.parametrize("new", [True, 1.0], ids=["bool", "float"])
def test_an_earlier_subclassed_message_edited_in_place_to_another_number_type_is_sent(
    api: str, classes: tuple[type[Message], type[ToolCall]], new: Any
) -> None:
    """Messages of a subclass are not fingerprinted; their kept copies must still tell ``1`` from
    ``True`` and ``1.0`` (each encodes differently), or the vendor gets the old argument."""
    m = _model(api)
    owner = Conversation()
    history = _history(*classes)
    _body(m, history[:3], owner)
    history[1].parts[1].arguments["q"] = new  # a hook's in-place edit between turns
    got = _body(m, history, owner)
    assert got == _fresh(api, m, history)


class CopiesItself(ToolCall):
    """A subclass that chooses how it is deep-copied: left to ``copy.deepcopy``, as before."""

    def __deepcopy__(self, memo: dict[int, Any]) -> CopiesItself:
        return CopiesItself(self.id, self.name, {k: v for k, v in (self.arguments or {}).items()})


@pytest.mark.parametrize("api", ["openai-chat"])
def test_a_subclass_with_its_own_deepcopy_still_gets_a_body_equal_to_a_fresh_one(api: str) -> None:
    m = _model(api)
    owner = Conversation()
    history = _history(Message, CopiesItself)
    first = _body(m, history[:3], owner)
    assert first == _fresh(api, m, history[:3])
    history[1].parts[1].arguments["q"] = 5
    assert _body(m, history, owner) == _fresh(api, m, history)


# -- a hostile model's out-of-range number -----------------------------------------------------

_ANTHROPIC_CALL = (
    '{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",'
    '"content":[{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"x":1e999}}],'
    '"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}}'
)
_ANTHROPIC_TEXT = (
    '{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5",'
    '"content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,'
    '"usage":{"input_tokens":3,"output_tokens":2}}'
)
_GEMINI_CALL = (
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"x":1e999}}}]},'
    '"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}'
)
_GEMINI_TEXT = (
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"done"}]},"finishReason":"STOP"}],'
    '"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}'
)


@pytest.mark.parametrize(
    ("api", "answers"),
    [("anthropic", (_ANTHROPIC_CALL, _ANTHROPIC_TEXT)), ("gemini", (_GEMINI_CALL, _GEMINI_TEXT))],
)
def test_a_model_sending_1e999_as_an_argument_gets_an_answer_and_the_next_request_is_valid_json(
    api: str, answers: tuple[str, str]
) -> None:
    """The model's own JSON says ``1e999``, which parses to ``inf``: the next request must not
    fail as a "retryable connection error" (Anthropic: the SDK's ``json.dumps`` refuses ``inf``)
    nor carry ``Infinity`` (Gemini), which is not JSON and which the vendor refuses."""
    import asyncio

    httpx2 = pytest.importorskip("httpx2")
    pytest.importorskip(APIS[api][0])
    posted: list[bytes] = []
    queue = list(answers)

    def respond(request: Any) -> Any:
        posted.append(request.content)
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    m = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0, http_client=client)

    def lookup(x: float) -> str:
        """Look something up."""
        return f"got {x}"

    result = asyncio.run(toolwire.run(m, "go", tools=[toolwire.tool(lookup)], max_turns=3))
    assert result.stop_reason == "end_turn" and len(posted) == 2
    json.loads(posted[1], parse_constant=lambda c: pytest.fail(f"{c} sent"))  # valid JSON: no NaN/Infinity


@pytest.mark.parametrize("api", list(APIS))
def test_an_earlier_call_with_ordered_dict_arguments_edited_in_place_to_another_number_type_is_sent(api: str) -> None:
    """Arguments of a dict subclass are not fingerprinted; their kept copy must be type-strict too."""
    from collections import OrderedDict

    m = _model(api)
    owner = Conversation()
    history = _history(Message, ToolCall)
    history[1].parts[1].arguments = OrderedDict(q=1)
    _body(m, history[:3], owner)
    history[1].parts[1].arguments["q"] = True
    assert _body(m, history, owner) == _fresh(api, m, history)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"x": 1e999}', "too large for a 64-bit float"),
        ('{"x": [1, {"y": -1e400}]}', "too large for a 64-bit float"),
        ('{"x": ' + "1" * 5000 + "}", "send smaller numbers"),  # more digits than int() converts
    ],
)
def test_argument_text_with_a_number_json_cannot_carry_back_is_invalid_with_a_next_step(text: str, words: str) -> None:
    from toolwire.arguments import parse_arguments

    arguments, reason = parse_arguments(text)
    assert arguments is None and reason is not None and words in reason


def test_finite_floats_in_argument_text_still_parse() -> None:
    from toolwire.arguments import parse_arguments

    assert parse_arguments('{"x": 1.5e300, "y": -0.0, "z": 2}') == ({"x": 1.5e300, "y": -0.0, "z": 2}, None)


def test_a_1e999_argument_is_answered_as_an_error_with_a_next_step() -> None:
    """The call is not run: the model gets an ``is_error`` result saying to send finite numbers."""
    import asyncio

    httpx2 = pytest.importorskip("httpx2")
    pytest.importorskip(APIS["anthropic"][0])
    posted: list[bytes] = []
    queue = [_ANTHROPIC_CALL, _ANTHROPIC_TEXT]

    def respond(request: Any) -> Any:
        posted.append(request.content)
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    m = toolwire.model(f"anthropic:{APIS['anthropic'][1]}", api_key="k", max_retries=0, http_client=client)
    ran: list[float] = []

    def lookup(x: float) -> str:
        """Look something up."""
        ran.append(x)
        return "ok"

    asyncio.run(toolwire.run(m, "go", tools=[toolwire.tool(lookup)], max_turns=3))
    assert ran == []
    result = json.loads(posted[1])["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "finite" in json.dumps(result["content"])


def _sse(events: list[str], named: bool = False) -> str:
    return "".join((f"event: {json.loads(e)['type']}\n" if named else "") + f"data: {e}\n\n" for e in events)


_ANTHROPIC_START = (
    '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    '"model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,'
    '"usage":{"input_tokens":3,"output_tokens":1}}}'
)


def _anthropic_stream(block: str, delta: str, stop: str) -> str:
    return _sse(
        [
            _ANTHROPIC_START,
            '{"type":"content_block_start","index":0,"content_block":' + block + "}",
            '{"type":"content_block_delta","index":0,"delta":' + delta + "}",
            '{"type":"content_block_stop","index":0}',
            '{"type":"message_delta","delta":{"stop_reason":"' + stop + '","stop_sequence":null},'
            '"usage":{"output_tokens":2}}',
            '{"type":"message_stop"}',
        ],
        named=True,
    )


_EVERY_PATH = {
    "openai-chat": (
        False,
        '{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,'
        '"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",'
        '"function":{"name":"lookup","arguments":"{\\"x\\": 1e999}"}}]},"finish_reason":"tool_calls"}],'
        '"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
        '{"id":"c2","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,'
        '"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],'
        '"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
    ),
    "openai": (
        False,
        '{"id":"r1","object":"response","created_at":1,"model":"gpt-5","status":"completed","output":'
        '[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"lookup","arguments":'
        '"{\\"x\\": 1e999}","status":"completed"}],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}',
        '{"id":"r2","object":"response","created_at":1,"model":"gpt-5","status":"completed","output":'
        '[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":'
        '"output_text","text":"done","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}',
    ),
    "anthropic": (
        True,
        _anthropic_stream(
            '{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}',
            '{"type":"input_json_delta","partial_json":"{\\"x\\": 1e999}"}',
            "tool_use",
        ),
        _anthropic_stream('{"type":"text","text":""}', '{"type":"text_delta","text":"done"}', "end_turn"),
    ),
    "gemini": (True, _sse([_GEMINI_CALL]), _sse([_GEMINI_TEXT])),
}


@pytest.mark.parametrize("api", list(_EVERY_PATH))
def test_a_1e999_argument_is_not_run_on_the_other_paths_and_the_next_request_is_json(api: str) -> None:
    """The same out-of-range number on the paths not covered above: OpenAI Chat and Responses
    (arguments as JSON text), Anthropic and Gemini streamed."""
    import asyncio

    httpx2 = pytest.importorskip("httpx2")
    pytest.importorskip(APIS[api][0])
    streamed, call, text = _EVERY_PATH[api]
    posted: list[bytes] = []
    queue = [call, text]

    def respond(request: Any) -> Any:
        posted.append(request.content)
        kind = "text/event-stream" if streamed else "application/json"
        return httpx2.Response(200, headers={"content-type": kind}, text=queue.pop(0))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    settings = {"stream": True} if streamed else {}
    m = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0, http_client=client, **settings)
    ran: list[float] = []

    def lookup(x: float) -> str:
        """Look something up."""
        ran.append(x)
        return "ok"

    result = asyncio.run(toolwire.run(m, "go", tools=[toolwire.tool(lookup)], max_turns=3))
    assert result.stop_reason == "end_turn" and len(posted) == 2 and ran == []
    json.loads(posted[1], parse_constant=lambda c: pytest.fail(f"{c} sent"))
    assert "finite number" in posted[1].decode()
