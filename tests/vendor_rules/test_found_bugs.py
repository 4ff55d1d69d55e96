"""Bugs the generative suite found, each as a minimal plain test (owner in the docstring).

Every case is encoded with the real codec and passed through the real preflight; the
independent validator judges the body that would be sent.
"""

from __future__ import annotations

import pytest

from toolwire import registry
from toolwire.adapter import ModelRequest
from toolwire.errors import RequestRefused, ToolwireError
from toolwire.tools import Tool
from toolwire.turns import NOT_ANSWERED
from toolwire.types import Message, TextPart, ToolCall, ToolResult
from vendor_rules.strategies import APIS, MODEL_IDS
from vendor_rules.test_generative import send
from vendor_rules.validator import validate

WEATHER = Tool("get_weather", "Forecast for a city.", {"type": "object", "properties": {"city": {"type": "string"}}})
ASK = Message("user", [TextPart("Weather in Paris?")])
CALL = Message("assistant", [ToolCall("call_1", "get_weather", {"city": "Paris"})])


def outcome(api: str, messages: list[Message], tools: list[Tool]) -> str:
    """``"refused"`` (a typed error before sending) or ``"sent"`` — and a sent body must be valid."""
    try:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=tools, messages=messages))
    except RequestRefused:
        return "refused"
    found = validate(api, body)
    assert found == [], f"{api} sent an invalid body: {[str(v) for v in found]}"
    return "sent"


HISTORIES = {
    "trailing": [ASK, CALL],  # the supplied history ends on the model's unanswered call
    "middle": [ASK, CALL, Message("user", [TextPart("Never mind, what about Rome?")])],
}


@pytest.mark.parametrize("where", sorted(HISTORIES))
def test_bug10_unanswered_call_in_a_supplied_history_is_handled_the_same_on_every_api(where):
    """Issue 10 item 4 (fixed): an unanswered call in a supplied history is handled the same way
    on all four APIs. Found: Anthropic answered it with an ``is_error`` result and sent; Chat
    Completions, Responses and Gemini refused it. Chosen: every codec answers it with the same
    ``is_error`` result (``toolwire.turns.NOT_ANSWERED``), first in the message after the call."""
    got = {api: outcome(api, HISTORIES[where], [WEATHER]) for api in APIS}
    assert got == dict.fromkeys(APIS, "sent")
    for api in APIS:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=HISTORIES[where]))
        decoded = registry.codec(api).decode_request(body)
        roles = [m.role for m in decoded.messages]
        results = [(i, r) for i, m in enumerate(decoded.messages) for r in m.tool_results]
        assert len(results) == 1, (api, body)
        i, r = results[0]
        # the answer sits in the user message right after the call, and says the call was not run
        assert roles[i - 1] == "assistant" and decoded.messages[i - 1].tool_calls[0].name == "get_weather", api
        assert r.is_error and NOT_ANSWERED.splitlines()[0] in str(r.content), (api, r)
        assert "Call the tool again" in str(r.content), api
        if where == "middle":  # the user's own text follows the answer, in order
            assert decoded.messages[-1].text.endswith("what about Rome?"), (api, roles)


@pytest.mark.parametrize("api", APIS)  # fixed for Anthropic: rule anthropic.request.tool-blocks-need-tools (repair)
def test_bug10_history_with_tool_calls_but_no_tools_declared_is_never_sent_invalid(api):
    """Owner: rules-anthropic. A history holding a tool call and its result, sent with no tools
    declared (a last summarising turn without tools). Anthropic refuses such a request ('Requests
    which include tool_use or tool_result blocks must define tools.', anthropic-sdk-python#494);
    toolwire sends it. Expected: repaired (e.g. the tools declared again, or the blocks turned to
    text) or refused before sending."""
    history = [ASK, CALL, Message("user", [ToolResult("call_1", "sunny")]), Message("user", [TextPart("Summarise.")])]
    try:
        body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[], messages=history))
    except ToolwireError:
        return
    assert [str(v) for v in validate(api, body)] == []


RESULT_VALUES = [(None, ""), (42, "42"), ({"a": 1}, '{"a": 1}'), ([], ""), ([{"x": 1}], '[{"x": 1}]'), (True, "true")]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("content", "text"), RESULT_VALUES, ids=[repr(v) for v, _ in RESULT_VALUES])
def test_result_content_of_any_value_is_sent_as_its_text(api, content, text):
    """A ``ToolResult`` built by hand with content that is not text or parts (``None``, a
    number, a dict, an empty list) crashed the Chat and Gemini codecs with a bare TypeError,
    or was sent as an empty array the API refuses. Expected: the content a tool returning that
    value gets (its JSON text; ``None`` and ``[]`` → empty text), sent valid on every API."""
    history = [ASK, CALL, Message("user", [ToolResult("call_1", content, name="get_weather")])]
    assert outcome(api, history, [WEATHER]) == "sent"
    body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=history))
    results = [r for m in registry.codec(api).decode_request(body).messages for r in m.tool_results]
    assert [r.text for r in results] == [text], (api, body)


def test_text_part_needs_text_and_a_saved_conversation_with_none_text_is_a_value_error():
    import toolwire

    with pytest.raises(TypeError, match="TextPart.text must be a str, not NoneType"):
        TextPart(None)  # type: ignore[arg-type]
    saved = '{"messages": [{"role": "user", "parts": [{"type": "text", "text": null}]}]}'
    with pytest.raises(ValueError, match="not a saved toolwire Conversation"):
        toolwire.Conversation.from_json(saved)


@pytest.mark.parametrize("kind", ["Conversation", "RunResult", "RunState"])
def test_a_saved_text_nested_too_deep_is_a_value_error_not_a_recursion_error(kind):
    import toolwire

    deep = "[" * 200_000 + "]" * 200_000
    loader = getattr(toolwire, kind).from_json
    with pytest.raises(ValueError, match=f"not a saved toolwire {kind}"):
        loader(deep)
    with pytest.raises(ValueError, match=f"not a saved toolwire {kind}"):
        loader('{"messages": ' + deep + "}")


@pytest.mark.parametrize("api", APIS)
def test_empty_call_id_from_a_compatible_server_history_is_sent_valid(api):
    """A history from an OpenAI-compatible server whose call and result carry the id ``""``:
    the OpenAI APIs refuse it ("Invalid 'input[4].call_id': empty string. Expected a string with
    minimum length 1"). Expected: one stable non-empty id in the call and in its result."""
    history = [
        ASK,
        Message("assistant", [ToolCall("", "get_weather", {"city": "Paris"})]),
        Message("user", [ToolResult("", "sunny", name="get_weather")]),
    ]
    assert outcome(api, history, [WEATHER]) == "sent"
    body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=history))
    decoded = registry.codec(api).decode_request(body).messages
    call = [c for m in decoded for c in m.tool_calls][0]
    result = [r for m in decoded for r in m.tool_results][0]
    assert result.text == "sunny"
    if api != "gemini":  # Gemini pairs by name and position; it sends no id toolwire did not receive from it
        assert call.id and result.tool_call_id == call.id, body


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "gemini"])
def test_request_without_messages_is_refused_before_sending(api):
    """An empty conversation: Chat answers "Invalid 'messages': empty array", Gemini
    "contents is not specified", Anthropic refuses an empty ``messages``."""
    with pytest.raises(RequestRefused, match="messages-count|contents-count"):
        send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=[]))


def test_chat_tool_result_over_one_mebibyte_is_sent_whole_as_text_parts():
    """Chat refuses a content string over 1,048,576 characters ("Invalid 'messages[17].content':
    string too long"). A tool that reads a big log file: the text is sent whole, as consecutive
    text parts of at most that many characters, and the change is reported."""
    big = "log line\n" * 130_000  # 1,170,000 characters
    history = [ASK, CALL, Message("user", [ToolResult("call_1", big, name="get_weather")])]
    assert outcome("openai-chat", history, [WEATHER]) == "sent"
    body = send("openai-chat", ModelRequest(model=MODEL_IDS["openai-chat"], tools=[WEATHER], messages=history))
    tool = [m for m in body["messages"] if m["role"] == "tool"][0]
    assert [len(p["text"]) for p in tool["content"]] == [1_048_576, 1_170_000 - 1_048_576]
    assert "".join(p["text"] for p in tool["content"]) == big


def test_result_content_that_has_no_text_form_is_a_type_error_naming_the_field():
    with pytest.raises(TypeError, match="ToolResult.content must be text"):
        ToolResult("call_1", b"\xff\xfe")


def test_values_inside_a_parts_list_become_what_they_would_be_alone():
    """A nested list of parts kept its image (it became the list's repr, losing the image);
    ``None`` inside a list is left out (it became "null"), bytes are their text (not "b'hi'")."""
    from toolwire.types import ImagePart

    image = ImagePart(data=b"\x89PNG\r\n\x1a\n" + b"\0" * 8, media_type="image/png")
    nested = ToolResult("call_1", [TextPart("see"), [image]]).content
    assert [type(p).__name__ for p in nested] == ["TextPart", "ImagePart"] and nested[1] is image
    mixed = ToolResult("call_1", [TextPart("a"), None, b"hi", {"x": 1}]).content
    assert [p.text for p in mixed] == ["a", "hi", '{"x": 1}']


def test_saved_image_with_bad_base64_is_a_value_error_not_an_empty_image():
    import toolwire

    saved = '{"messages": [{"role": "user", "parts": [{"type": "image", "data_base64": "!!!", "media_type": "image/png"}]}]}'
    with pytest.raises(ValueError, match="not a saved toolwire Conversation"):
        toolwire.Conversation.from_json(saved)


@pytest.mark.parametrize("api", APIS)
def test_result_of_only_empty_text_parts_is_sent_valid(api):
    """Anthropic was sent ``"content": []`` (the empty text blocks left out, nothing in their place)."""
    history = [ASK, CALL, Message("user", [ToolResult("call_1", [TextPart(""), TextPart("")], name="get_weather")])]
    assert outcome(api, history, [WEATHER]) == "sent"
    body = send(api, ModelRequest(model=MODEL_IDS[api], tools=[WEATHER], messages=history))
    assert '"content": []' not in __import__("json").dumps(body)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"data": b"zz", "media_type": 5}, TypeError, "ImagePart.media_type must be a str"),
        ({"data": "iVBORw0KGgo=", "media_type": "image/png"}, TypeError, "base64.b64decode"),
        ({"url": 3}, TypeError, "ImagePart.url must be a str"),
        ({"media_type": "image/png"}, ValueError, "needs either data"),
    ],
)
def test_an_image_part_of_wrong_types_is_refused_when_made_naming_the_field(kwargs, error, words):
    from toolwire import ImagePart

    with pytest.raises(error, match=words.replace(".", r"\.")):
        ImagePart(**kwargs)


def test_image_part_bytes_like_data_is_kept_as_bytes_and_media_type_parameters_are_not_sent():
    from toolwire import ImagePart

    part = ImagePart(data=bytearray(b"not an image"), media_type="image/png; charset=binary")
    assert type(part.data) is bytes and part.data == b"not an image"
    assert part.wire_media_type == "image/png"


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("raw_arguments", 5, "raw_arguments must be str or null, got int"),
        ("arguments", "[]", "arguments must be dict or null, got str"),
        ("id", None, "id must be str, got NoneType"),
    ],
)
def test_a_saved_call_with_a_wrongly_typed_field_fails_on_load_naming_it(field, value, words):
    import json

    import toolwire

    conv = toolwire.Conversation(
        [toolwire.Message.user("x"), toolwire.Message("assistant", [ToolCall(id="a", name="f", arguments={})])]
    )
    saved = json.loads(conv.to_json())
    saved["messages"][1]["parts"][0][field] = value
    with pytest.raises(ValueError, match=words):
        toolwire.Conversation.from_json(json.dumps(saved))


def test_message_user_takes_a_list_of_parts():
    from toolwire import ImagePart, Message

    png = bytes.fromhex("89504e470d0a1a0a")
    msg = Message.user(["What is this?", ImagePart(data=png, media_type="image/png")])
    assert [type(p).__name__ for p in msg.parts] == ["TextPart", "ImagePart"]
    assert msg.parts[0].text == "What is this?"
    with pytest.raises(TypeError, match="part 1 is a int"):
        Message.user(["a", 1])


def _sent_or_refused(api: str, model: str, tools: list, **kw) -> tuple[str, dict | None]:
    try:
        body = send(api, ModelRequest(model=model, tools=tools, messages=[ASK], **kw))
    except RequestRefused:
        return "refused", None
    found = validate(api, body)
    assert found == [], f"{api} {model} sent an invalid body: {[str(v) for v in found]}"
    return "sent", body


def test_built_in_tools_with_functions_gemini_2_refused_gemini_3_flagged():
    from toolwire.tools import ProviderTool

    tools = [WEATHER, ProviderTool("gemini", "googleSearch", {})]
    assert _sent_or_refused("gemini", "gemini-2.5-flash", tools)[0] == "refused"
    how, body = _sent_or_refused("gemini", "gemini-3-pro-preview", tools)
    assert how == "sent" and body["toolConfig"]["includeServerSideToolInvocations"] is True


def test_thinking_to_a_claude_without_extended_thinking_is_left_out():
    for thinking in ({"effort": "high"}, {"type": "enabled", "budget_tokens": 2048}):
        how, body = _sent_or_refused(
            "anthropic", "claude-3-5-haiku-20241022", [WEATHER], thinking=thinking, max_tokens=4096
        )
        assert how == "sent" and "thinking" not in body, thinking


def test_minimal_effort_with_web_search_is_raised_to_low():
    from toolwire.tools import ProviderTool

    how, body = _sent_or_refused(
        "openai", "gpt-5", [WEATHER, ProviderTool("openai", "web_search", {})], thinking={"effort": "minimal"}
    )
    assert how == "sent" and body["reasoning"]["effort"] == "low"
