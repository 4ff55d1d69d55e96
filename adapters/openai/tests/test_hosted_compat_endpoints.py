"""Hosted OpenAI-compatible endpoints reached through ``openai-chat`` with their ``base_url``:
the fields and values they refuse that OpenAI itself takes, repaired before sending (and reported
on ``Response.preflight``) for that host only; api.openai.com gets the body it always got.

The real ``openai`` SDK sends every request; only the network is replaced.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest
from openai_wire import Server

import toolwire
from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

MISTRAL = "https://api.mistral.ai/v1"


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def _json(body: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))


def _sse(chunks: list[dict[str, Any]]) -> httpx2.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)


def _completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "mistral-small-latest",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _text_chunks(text: str) -> list[dict[str, Any]]:
    base = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "mistral-small-latest"}
    return [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}],
            # Mistral reports usage in the last chunk without being asked
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    ]


def _model(server: Server, base_url: str | None = MISTRAL, **settings: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    if base_url is not None:
        settings["base_url"] = base_url
    return toolwire.model("openai-chat:mistral-small-latest", http_client=client, api_key="k", **settings)


def _rules(result: Any) -> list[str]:
    return [c.rule for t in result.turns for c in (t.response.preflight or [])]


# ----------------------------------------------------------------------------- Mistral


def test_a_streamed_request_to_mistral_carries_no_stream_options() -> None:
    """Mistral's API refuses ``stream_options`` with 422 "Extra inputs are not permitted"
    (``loc: ["body", "stream_options", "include_usage"]``; avante-corp/avante.nvim#2347,
    dnakov/anon-kode#53) and reports usage in its last chunk anyway."""
    server = Server(_sse(_text_chunks("hi")))
    result = toolwire.run_sync(_model(server, stream=True), "hi")
    assert "stream_options" not in server.bodies[0] and server.bodies[0]["stream"] is True
    assert result.text == "hi" and result.usage.input_tokens == 10
    assert _rules(result) == ["openai-chat.server.mistral-stream-options"]
    # OpenAI and other compatible servers still get it
    for base in (None, "http://127.0.0.1:8080/v1"):
        other = Server(_sse(_text_chunks("hi")))
        again = toolwire.run_sync(_model(other, base, stream=True), "hi")
        assert other.bodies[0]["stream_options"] == {"include_usage": True}
        assert _rules(again) == []


def test_the_profile_flags_stream_options_for_mistral_only() -> None:
    from toolwire_openai.profile import OpenAIChatProfile

    body = {
        "model": "mistral-small-latest",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    found = [v.rule for v in OpenAIChatProfile(base_url=MISTRAL).check_request(body)]
    assert found == ["openai-chat.server.mistral-stream-options"]
    for base in ("https://api.openai.com/v1", "https://api.groq.com/openai/v1", None):
        assert OpenAIChatProfile(base_url=base).check_request(body) == []


def _history(call_id: str) -> Conversation:
    return Conversation(
        [
            Message("user", [TextPart("Weather in Paris?")]),
            Message("assistant", [ToolCall(call_id, "get_weather", {"city": "Paris"})]),
            Message("user", [ToolResult(call_id, "sunny in Paris")]),
        ]
    )


def test_call_ids_mistral_refuses_are_sent_as_nine_alphanumeric_characters() -> None:
    """Mistral refuses any other tool call id: "Tool call id was call_0fypS1hVX but must be a-z,
    A-Z, 0-9, with a length of 9." (karthink/gptel#1203; langchain-ai/langchain#24668 maps ids
    from other vendors the same way). A history from another vendor (``toolu_...``), or one with
    an id toolwire synthesized, goes to Mistral with each id replaced by a stable one, the same in
    the call and in its result; Mistral's own ids go as they are."""
    for foreign in ("toolu_01A09q90qw90lq917835lq9", "call_tw1f2e3d4c_0", "abc", ""):
        server = Server(_json(_completion({"content": "It is sunny."})))
        result = toolwire.run_sync(_model(server), "And now?", conversation=_history(foreign), tools=[get_weather])
        messages = server.bodies[0]["messages"]
        call_id = messages[1]["tool_calls"][0]["id"]
        assert re.fullmatch(r"[a-zA-Z0-9]{9}", call_id), call_id
        assert messages[2] == {"role": "tool", "tool_call_id": call_id, "content": "sunny in Paris"}
        assert "openai-chat.server.mistral-call-id" in _rules(result)
        # stable: the same id maps to the same id on the next request
        server2 = Server(_json(_completion({"content": "It is sunny."})))
        toolwire.run_sync(_model(server2), "And now?", conversation=_history(foreign), tools=[get_weather])
        assert server2.bodies[0]["messages"][1]["tool_calls"][0]["id"] == call_id
    own = Server(_json(_completion({"content": "It is sunny."})))
    result = toolwire.run_sync(_model(own), "And now?", conversation=_history("D681PevKs"), tools=[get_weather])
    assert own.bodies[0]["messages"][1]["tool_calls"][0]["id"] == "D681PevKs"
    # no id rewritten (the prompt after the results gets an assistant message before it: see below)
    assert _rules(result) == ["openai-chat.server.mistral-user-after-tool"]
    # OpenAI itself gets the id as it is
    openai = Server(_json(_completion({"content": "It is sunny."})))
    toolwire.run_sync(_model(openai, None), "And now?", conversation=_history("toolu_01A09q90"), tools=[get_weather])
    assert openai.bodies[0]["messages"][1]["tool_calls"][0]["id"] == "toolu_01A09q90"


def test_a_mistral_tool_loop_answers_under_the_id_mistral_sent() -> None:
    server = Server(
        _json(
            _completion(
                {
                    "content": "",
                    "tool_calls": [
                        {"id": "D681PevKs", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
                    ],
                },
                "tool_calls",
            )
        ),
        _json(_completion({"content": "done"})),
    )
    toolwire.run_sync(_model(server), "Weather?", tools=[get_weather])
    assert server.bodies[1]["messages"][-1]["tool_call_id"] == "D681PevKs"


# ------------------------------------------------ Mistral: no user message directly after a tool message

#: The assistant message toolwire puts between them (rule server.mistral-user-after-tool).
BRIDGE = {"role": "assistant", "content": "Tool results received."}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PNG_URL = "data:image/png;base64,iVBORw0KGgoAAAAAAAAAAA=="


def _call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _calls(*calls: dict[str, Any]) -> httpx2.Response:
    return _json(_completion({"content": "", "tool_calls": list(calls)}, "tool_calls"))


def screenshot() -> toolwire.ImagePart:
    """A screenshot of the screen."""
    return toolwire.ImagePart(data=PNG, media_type="image/png")


def test_a_user_message_after_tool_results_reaches_mistral_after_an_assistant_message() -> None:
    """Mistral refuses a user message right after a tool message: 400 "Unexpected role 'user'
    after role 'tool'" (type invalid_request_message_order, code 3230; avante-corp/avante.nvim#2562,
    datapizza-labs/datapizza-ai#98). A run continuing a conversation that ends with tool results
    sends one assistant message between the results and the new prompt; api.openai.com gets the
    two side by side, as before."""
    server = Server(_json(_completion({"content": "Still sunny."})))
    result = toolwire.run_sync(_model(server), "And now?", conversation=_history("D681PevKs"), tools=[get_weather])
    assert server.bodies[0]["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [_call("D681PevKs", "get_weather", '{"city":"Paris"}')]},
        {"role": "tool", "tool_call_id": "D681PevKs", "content": "sunny in Paris"},
        BRIDGE,
        {"role": "user", "content": "And now?"},
    ]
    assert result.text == "Still sunny."
    assert _rules(result) == ["openai-chat.server.mistral-user-after-tool"]
    (change,) = result.turns[0].response.preflight
    assert change.pointer == "/messages/3" and not change.lossy
    # the conversation kept is the user's: the message is only on the wire
    assert [m.role for m in result.conversation.messages] == ["user", "assistant", "user", "user", "assistant"]
    # OpenAI takes a user message after tool messages: nothing added
    openai = Server(_json(_completion({"content": "Still sunny."})))
    again = toolwire.run_sync(_model(openai, None), "And now?", conversation=_history("D681PevKs"), tools=[get_weather])
    assert [m["role"] for m in openai.bodies[0]["messages"]] == ["user", "assistant", "tool", "user"]
    assert openai.bodies[0]["messages"][3] == {"role": "user", "content": "And now?"}
    assert _rules(again) == []


def test_a_run_whose_tool_returns_an_image_reaches_mistral_in_an_order_it_takes() -> None:
    """The images a tool returns go in a user message after the tool messages (Chat's tool
    message takes text only), which Mistral refuses right after a tool message. A whole run: the
    second request carries the assistant message between them, and so does every later request
    of the run (the third, after another tool call, holds the same messages in the same place);
    the first request, with no tool message yet, carries none."""
    server = Server(
        _calls(_call("a1B2c3D4e", "screenshot")),
        _calls(_call("f5G6h7J8k", "get_weather", '{"city":"Oslo"}')),
        _json(_completion({"content": "A sunny screen."})),
    )
    result = toolwire.run_sync(_model(server), "What is on screen?", tools=[screenshot, get_weather])
    assert result.text == "A sunny screen." and len(server.bodies) == 3
    first, second, third = (b["messages"] for b in server.bodies)
    assert first == [{"role": "user", "content": "What is on screen?"}]
    turn_1 = [
        {"role": "user", "content": "What is on screen?"},
        {"role": "assistant", "tool_calls": [_call("a1B2c3D4e", "screenshot")]},
        {
            "role": "tool",
            "tool_call_id": "a1B2c3D4e",
            "content": "(the result is the image(s) in the next user message)",
        },
        BRIDGE,
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Image(s) returned by tool call a1B2c3D4e (screenshot):"},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
            ],
        },
    ]
    assert second == turn_1
    assert third == [
        *turn_1,
        {"role": "assistant", "tool_calls": [_call("f5G6h7J8k", "get_weather", '{"city":"Oslo"}')]},
        {"role": "tool", "tool_call_id": "f5G6h7J8k", "content": "sunny in Oslo"},
    ]
    per_turn = [[c.rule for c in (t.response.preflight or [])] for t in result.turns]
    (change,) = result.turns[1].response.preflight
    assert change.pointer == "/messages/3" and "before this user message" in change.detail
    assert per_turn == [
        [],
        ["openai-chat.server.mistral-user-after-tool"],
        ["openai-chat.server.mistral-user-after-tool"],
    ]
    # the same run against api.openai.com: the image message right after the tool message
    openai = Server(
        _calls(_call("a1B2c3D4e", "screenshot")),
        _calls(_call("f5G6h7J8k", "get_weather", '{"city":"Oslo"}')),
        _json(_completion({"content": "A sunny screen."})),
    )
    again = toolwire.run_sync(_model(openai, None), "What is on screen?", tools=[screenshot, get_weather])
    assert openai.bodies[1]["messages"] == [m for m in turn_1 if m is not BRIDGE]
    assert [m["role"] for m in openai.bodies[2]["messages"]] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
    ]
    assert _rules(again) == []


def test_a_run_stopped_after_tool_calls_continues_on_mistral_with_a_new_prompt() -> None:
    """A run that stopped at max_turns answers its calls "not run" and ends with those results; a
    new run on that conversation adds the user's prompt right after them."""
    server = Server(
        _calls(_call("D681PevKs", "get_weather", '{"city":"Paris"}')), _json(_completion({"content": "ok"}))
    )
    with pytest.raises(toolwire.MaxTurnsExceeded) as stop:
        toolwire.run_sync(_model(server), "Weather in Paris?", tools=[get_weather], max_turns=1)
    stopped = stop.value.result
    assert stopped is not None and stopped.stop_reason == "max_turns"
    result = toolwire.run_sync(_model(server), "Just guess.", conversation=stopped.conversation, tools=[get_weather])
    messages = server.bodies[1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
    assert messages[3] == BRIDGE and messages[4] == {"role": "user", "content": "Just guess."}
    assert result.text == "ok" and _rules(result) == ["openai-chat.server.mistral-user-after-tool"]


def test_the_profile_flags_and_repairs_a_user_message_after_a_tool_message_for_mistral_only() -> None:
    from toolwire_openai.profile import OpenAIChatProfile

    from toolwire.profile import RequestReport

    def body() -> dict[str, Any]:
        return {
            "model": "mistral-small-latest",
            "messages": [
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "tool_calls": [_call("D681PevKs", "get_weather"), _call("Q2w3E4r5T", "get_weather")],
                },
                {"role": "tool", "tool_call_id": "D681PevKs", "content": "sunny"},
                {"role": "tool", "tool_call_id": "Q2w3E4r5T", "content": "rainy"},
                {"role": "user", "content": "Thanks. And tomorrow?"},
                {"role": "user", "content": "In Oslo."},
            ],
        }

    mistral = OpenAIChatProfile(base_url=MISTRAL)
    found = [(v.rule, v.pointer) for v in mistral.check_request(body())]
    assert found == [("openai-chat.server.mistral-user-after-tool", "/messages/4")]
    # only the new messages checked (start): the one at the start still looks back at the tool message
    assert [v.pointer for v in mistral.check_request(body(), start=4)] == ["/messages/4"]
    assert mistral.check_request(body(), start=5) == []
    report = RequestReport("openai-chat")
    fixed = mistral.repair_request(body(), report)
    assert [m["role"] for m in fixed["messages"]] == ["user", "assistant", "tool", "tool", "assistant", "user", "user"]
    assert fixed["messages"][4] == BRIDGE
    assert [(c.rule, c.pointer) for c in report.changes] == [
        ("openai-chat.server.mistral-user-after-tool", "/messages/4")
    ]
    assert mistral.check_request(fixed) == []
    # a tool message followed by an assistant message, or ending the request, needs nothing
    ok = body()
    ok["messages"][4:] = []
    assert mistral.check_request(ok) == []
    for base in ("https://api.openai.com/v1", "http://127.0.0.1:8080/v1", None):
        other = OpenAIChatProfile(base_url=base)
        assert other.check_request(body()) == []
        same = body()
        assert other.repair_request(same, RequestReport("openai-chat")) == body()
    # an image in a tool message (an imported body) moves to a user message after the run: for
    # Mistral with the assistant message before it, for OpenAI without
    image = {"type": "image_url", "image_url": {"url": PNG_URL}}

    def with_image() -> dict[str, Any]:
        out = body()
        out["messages"][3]["content"] = [{"type": "text", "text": "rainy"}, image]
        del out["messages"][4:]
        return out

    report = RequestReport("openai-chat")
    fixed = mistral.repair_request(with_image(), report)
    assert fixed["messages"][3:] == [
        {"role": "tool", "tool_call_id": "Q2w3E4r5T", "content": [{"type": "text", "text": "rainy"}]},
        BRIDGE,
        {"role": "user", "content": [{"type": "text", "text": "Image(s) returned by tool call Q2w3E4r5T:"}, image]},
    ]
    assert [(c.rule, c.pointer) for c in report.changes] == [
        ("openai-chat.conversation.tool-content", "/messages/3/content"),
        ("openai-chat.server.mistral-user-after-tool", "/messages/3"),
    ]
    assert "before the user message holding their images" in report.changes[1].detail
    assert mistral.check_request(fixed) == []
    openai_fixed = OpenAIChatProfile().repair_request(with_image(), RequestReport("openai-chat"))
    assert [m["role"] for m in openai_fixed["messages"]] == ["user", "assistant", "tool", "tool", "user"]


# ------------------------------------------------ Mistral: empty assistant messages, the last message


def test_an_empty_answer_is_not_sent_back_to_mistral() -> None:
    """Mistral refuses an assistant message with neither content nor tool calls, an empty string
    included: 400 "Assistant message must have either content or tool_calls, but not none." (type
    invalid_request_assistant_message, code 3240; zed-industries/zed#47579). A run whose model
    answered nothing, continued with a new prompt, sends the conversation without that message;
    after tool results, the prompt then gets the assistant message before it."""
    server = Server(_json(_completion({"content": ""})), _json(_completion({"content": "Hello."})))
    first = toolwire.run_sync(_model(server), "Hi")
    assert first.text == "" and [m.role for m in first.conversation.messages] == ["user", "assistant"]
    result = toolwire.run_sync(_model(server), "Anyone there?", conversation=first.conversation)
    assert server.bodies[1]["messages"] == [
        {"role": "user", "content": "Hi"},
        {"role": "user", "content": "Anyone there?"},
    ]
    assert result.text == "Hello." and _rules(result) == ["openai-chat.server.mistral-empty-assistant"]
    (change,) = result.turns[0].response.preflight
    assert change.pointer == "/messages/1" and not change.lossy
    # after tool results: the empty answer is left out and the prompt follows an assistant message
    # (the run itself asks again with "Please continue." after an empty answer to tool results)
    tools = Server(
        _calls(_call("D681PevKs", "get_weather", '{"city":"Paris"}')),
        _json(_completion({"content": ""})),
        _json(_completion({"content": "Sunny."})),
    )
    result = toolwire.run_sync(_model(tools), "Weather in Paris?", tools=[get_weather])
    assert result.text == "Sunny."
    assert tools.bodies[2]["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [_call("D681PevKs", "get_weather", '{"city":"Paris"}')]},
        {"role": "tool", "tool_call_id": "D681PevKs", "content": "sunny in Paris"},
        BRIDGE,
        {"role": "user", "content": "Please continue."},
    ]
    assert _rules(result) == [
        "openai-chat.server.mistral-empty-assistant",
        "openai-chat.server.mistral-user-after-tool",
    ]
    # OpenAI takes the empty message (written as content "")
    openai = Server(_json(_completion({"content": ""})), _json(_completion({"content": "Hello."})))
    first = toolwire.run_sync(_model(openai, None), "Hi")
    again = toolwire.run_sync(_model(openai, None), "Anyone there?", conversation=first.conversation)
    assert openai.bodies[1]["messages"][1] == {"role": "assistant", "content": ""}
    assert _rules(again) == []


def test_a_request_ending_with_an_answer_is_refused_for_mistral_before_sending() -> None:
    """Mistral answers only after a user or tool message, or continues an assistant message sent
    with ``prefix: true``: 400 "Expected last role User or Tool (or Assistant with prefix True) for
    serving but got assistant" (huggingface/smolagents#757, NEKOparapa/AiNiee#641). A run on a
    conversation ending with an answer and no new prompt is refused with that said, nothing sent;
    OpenAI takes it; the message sent as a prefix goes."""
    history = Conversation([Message.user("Hi"), Message("assistant", [TextPart("Hello! How can I")])])
    server = Server()
    with pytest.raises(toolwire.RequestRefused) as refused:
        toolwire.run_sync(_model(server), conversation=history)
    assert server.bodies == []
    (violation,) = refused.value.violations
    assert violation.rule == "openai-chat.server.mistral-last-message" and violation.pointer == "/messages/1"
    assert "pass a prompt" in violation.message and "prefix" in violation.message
    openai = Server(_json(_completion({"content": "Hello."})))
    toolwire.run_sync(_model(openai, None), conversation=history)
    assert openai.bodies[0]["messages"][-1] == {"role": "assistant", "content": "Hello! How can I"}
    prefix = {"openai-chat": {"message": {"set": {"prefix": True}}}}
    history.messages[-1] = Message("assistant", [TextPart("Hello! How can I")], provider_data=prefix)
    ok = Server(_json(_completion({"content": "Hello! How can I help?"})))
    toolwire.run_sync(_model(ok), conversation=history)
    assert ok.bodies[0]["messages"][-1] == {"role": "assistant", "content": "Hello! How can I", "prefix": True}


def test_the_profile_leaves_out_empty_answers_and_refuses_a_last_answer_for_mistral_only() -> None:
    from toolwire_openai.profile import OpenAIChatProfile

    from toolwire.profile import RequestReport

    def body(*answers: Any) -> dict[str, Any]:
        messages: list[Any] = [{"role": "user", "content": "Hi"}]
        for a in answers:
            messages += [{"role": "assistant", **a}, {"role": "user", "content": "Again?"}]
        return {"model": "mistral-small-latest", "messages": messages}

    empty = ({}, {"content": None}, {"content": ""}, {"content": []}, {"content": [{"type": "text", "text": ""}]})
    mistral = OpenAIChatProfile(base_url=MISTRAL)
    found = [(v.rule, v.pointer) for v in mistral.check_request(body(*empty))]
    assert found == [("openai-chat.server.mistral-empty-assistant", f"/messages/{k}/content") for k in (1, 3, 5, 7, 9)]
    report = RequestReport("openai-chat")
    fixed = mistral.repair_request(body(*empty, {"content": "Yes."}), report)
    assert fixed["messages"] == [
        {"role": "user", "content": "Hi"},
        *[{"role": "user", "content": "Again?"}] * 5,
        {"role": "assistant", "content": "Yes."},
        {"role": "user", "content": "Again?"},
    ]
    assert [c.pointer for c in report.changes] == [f"/messages/{k}" for k in (1, 3, 5, 7, 9)]
    assert mistral.check_request(fixed) == []
    # a whitespace answer, or one holding thinking, has content: sent as it is
    kept = body({"content": " "}, {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}]})
    assert mistral.check_request(kept) == []
    # the last message
    last = body({"content": "Yes."})
    del last["messages"][-1]
    assert [(v.rule, v.pointer) for v in mistral.check_request(last)] == [
        ("openai-chat.server.mistral-last-message", "/messages/1")
    ]
    assert [(v.rule, v.pointer) for v in mistral.check_request(last, start=2)] == [
        ("openai-chat.server.mistral-last-message", "/messages/1")
    ]
    last["messages"][-1]["prefix"] = True
    assert mistral.check_request(last) == []
    ends_with_tool = {
        "model": "mistral-small-latest",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "tool_calls": [_call("D681PevKs", "get_weather")]},
            {"role": "tool", "tool_call_id": "D681PevKs", "content": "sunny"},
        ],
    }
    assert mistral.check_request(ends_with_tool) == []
    # other servers: an empty answer is written "" (conversation.assistant-content), a last answer goes
    del last["messages"][-1]["prefix"]
    for base in ("https://api.openai.com/v1", None):
        other = OpenAIChatProfile(base_url=base)
        assert other.check_request(last) == []
        report = RequestReport("openai-chat")
        out = other.repair_request(body({"content": None}, {"content": ""}), report)
        assert [m.get("content") for m in out["messages"]] == ["Hi", "", "Again?", "", "Again?"]
        assert [c.rule for c in report.changes] == ["openai-chat.conversation.assistant-content"]


@pytest.mark.parametrize(
    ("base_url", "foreign"),
    [
        (MISTRAL, "toolu_01A09q90qw90lq917835lq9"),  # Mistral: 9 alphanumeric characters
        (None, "toolu_" + "x" * 60),  # OpenAI: at most 40 characters
    ],
)
def test_the_label_of_a_tools_images_names_the_call_id_as_sent(base_url: str | None, foreign: str) -> None:
    """The images a tool returned go in a user message after the tool messages, labelled with
    the call they answer: the label names the id as sent, not the id it was rewritten from."""
    history = Conversation(
        [
            Message("user", [TextPart("Show me")]),
            Message("assistant", [ToolCall(foreign, "screenshot", {})]),
            Message(
                "user",
                [
                    ToolResult(
                        foreign,
                        [TextPart("The screen now:"), toolwire.ImagePart(data=PNG, media_type="image/png")],
                        name="screenshot",
                    )
                ],
            ),
        ]
    )
    server = Server(_json(_completion({"content": "I see it."})))
    toolwire.run_sync(_model(server, base_url), "What is on it?", conversation=history, tools=[screenshot])
    messages = server.bodies[0]["messages"]
    sent_id = messages[1]["tool_calls"][0]["id"]
    assert sent_id != foreign and messages[2]["tool_call_id"] == sent_id
    labels = [
        p["text"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
        if p.get("type") == "text" and p["text"].startswith("Image(s)")
    ]
    assert labels == [f"Image(s) returned by tool call {sent_id} (screenshot):"]
    assert foreign not in json.dumps(server.bodies[0])


def test_mistral_host_with_a_trailing_dot_is_mistral() -> None:
    """``api.mistral.ai.`` (a fully qualified host name) is the same server: its rules apply."""
    server = Server(_json(_completion({"content": "It is sunny."})))
    toolwire.run_sync(
        _model(server, "https://api.mistral.ai./v1"),
        "And now?",
        conversation=_history("toolu_01A09q90qw90lq917835lq9"),
        tools=[get_weather],
    )
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", server.bodies[0]["messages"][1]["tool_calls"][0]["id"])


@pytest.mark.parametrize("provider", ["openai-chat:gpt-4.1", "openai:gpt-4.1"])
def test_a_base_url_that_is_not_a_url_is_a_configuration_error(provider: str) -> None:
    with pytest.raises(
        toolwire.ConfigurationError, match=r"^base_url for openai(-chat)?:gpt-4.1 is not a URL \('https://\[::1'"
    ):
        toolwire.model(provider, api_key="k", base_url="https://[::1")


@pytest.mark.parametrize("provider", ["openai-chat:gpt-4.1", "openai:gpt-4.1"])
def test_an_openai_base_url_variable_that_is_not_a_url_is_a_configuration_error(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``OPENAI_BASE_URL`` is read like ``base_url=`` (was a raw ValueError from the host check)."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://[::1")
    with pytest.raises(
        toolwire.ConfigurationError,
        match=r"^environment variable OPENAI_BASE_URL \(the base URL for openai(-chat)?:gpt-4.1\) is not a URL \('http://\[::1'",
    ):
        toolwire.model(provider, api_key="k")
    # a base_url= setting is the one used: the variable is not read then
    assert toolwire.model(provider, api_key="k", base_url="http://localhost:8080/v1")


@pytest.mark.parametrize(
    ("provider", "setting"),
    [("openai-chat:gpt-5", {"service_tier": "bogus"}), ("openai:gpt-5", {"truncation": "bogus"})],
)
@pytest.mark.parametrize("base_url", ["https://api.openai.com./v1", "https://API.OpenAI.com/v1"])
def test_api_openai_com_with_a_trailing_dot_or_capitals_is_openai_for_the_field_values(
    provider: str, setting: dict[str, Any], base_url: str
) -> None:
    """``api.openai.com.`` is OpenAI's own API for every rule: the field values are checked when
    the model is made, as for the model id (the host check skipped them for the dotted host)."""
    with pytest.raises(toolwire.ConfigurationError, match=r"is not a value the API takes"):
        toolwire.model(provider, api_key="k", base_url=base_url, **setting)
