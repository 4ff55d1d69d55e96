"""An assistant message with more tool calls than the Chat API takes in one message (128): the
API refuses the next request ("Invalid 'messages[2].tool_calls': array too long. Expected an array
with maximum length 128"), so the calls are sent as consecutive assistant messages of at most 128,
each followed by its tool messages. Driven through the real SDK over httpx2.MockTransport."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_wire import _make, chat_sse, completion, json_response, tool_call
from toolwire_openai import OpenAIChatModel
from toolwire_openai.profile import CHAT_MAX_MESSAGE_CALLS, OpenAIChatProfile

import toolwire
from toolwire.profile import RequestRefused, RequestReport


def _history(ncalls: int) -> list[dict[str, Any]]:
    calls = [tool_call(f"call_{i}", "lookup", json.dumps({"i": i})) for i in range(ncalls)]
    tools = [{"role": "tool", "tool_call_id": f"call_{i}", "content": f"r{i}"} for i in range(ncalls)]
    return [
        {"role": "user", "content": "look up all"},
        {"role": "assistant", "content": "on it", "tool_calls": calls},
        *tools,
        {"role": "user", "content": "and?"},
    ]


def _shape(messages: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(role, number of calls or the index in a tool message's call id) per message."""
    out = []
    for m in messages:
        if m["role"] == "assistant":
            out.append(("assistant", len(m.get("tool_calls") or [])))
        elif m["role"] == "tool":
            out.append(("tool", int(m["tool_call_id"].split("_")[1])))
        else:
            out.append((m["role"], 0))
    return out


def test_the_bound_is_128() -> None:
    assert CHAT_MAX_MESSAGE_CALLS == 128


def test_more_than_128_calls_are_split_into_groups_each_followed_by_its_results() -> None:
    profile = OpenAIChatProfile()
    body = {"model": "gpt-4.1", "messages": _history(300)}
    report = RequestReport("openai-chat")
    out = profile.repair_request(body, report)
    shape = _shape(out["messages"])
    assert shape == [
        ("user", 0),
        ("assistant", 128),
        *[("tool", i) for i in range(128)],
        ("assistant", 128),
        *[("tool", i) for i in range(128, 256)],
        ("assistant", 44),
        *[("tool", i) for i in range(256, 300)],
        ("user", 0),
    ]
    first, second = out["messages"][1], out["messages"][130]
    assert first["content"] == "on it" and second["content"] is None
    sent_ids = [c["id"] for m in out["messages"] if m["role"] == "assistant" for c in m["tool_calls"]]
    assert sent_ids == [f"call_{i}" for i in range(300)]
    assert profile.check_request(out) == []
    (change,) = [c for c in report.changes if c.rule == "openai-chat.conversation.tool-calls-count"]
    assert change.pointer == "/messages/1/tool_calls" and not change.lossy


def test_128_calls_are_left_as_they_are_and_129_are_refused_unrepaired() -> None:
    profile = OpenAIChatProfile()
    body = {"model": "gpt-4.1", "messages": _history(128)}
    out = profile.repair_request(json.loads(json.dumps(body)), RequestReport("openai-chat"))
    assert out["messages"] == body["messages"]
    got = profile.check_request({"model": "gpt-4.1", "messages": _history(129)})
    assert [(v.rule, v.pointer) for v in got] == [
        ("openai-chat.conversation.tool-calls-count", "/messages/1/tool_calls")
    ]


def test_tool_messages_in_another_order_follow_their_own_group() -> None:
    messages = _history(130)
    tools = messages[2:-1]
    messages[2:-1] = list(reversed(tools))
    out = OpenAIChatProfile().repair_request({"model": "gpt-4.1", "messages": messages}, RequestReport("openai-chat"))
    shape = _shape(out["messages"])
    assert shape[1] == ("assistant", 128)
    assert sorted(i for _, i in shape[2:130]) == list(range(128))
    assert shape[130] == ("assistant", 2)
    assert sorted(i for _, i in shape[131:133]) == [128, 129]


def test_a_run_whose_model_asks_for_200_calls_sends_them_in_groups() -> None:
    calls = [tool_call(f"call_{i}", "lookup", json.dumps({"i": i})) for i in range(200)]
    answers = [
        json_response(completion({"tool_calls": calls}, finish_reason="tool_calls")),
        json_response(completion({"content": "done"})),
    ]

    def handler(request: Any) -> Any:
        return answers.pop(0)

    model = _make(OpenAIChatModel, handler, {"model_id": "gpt-4.1"})

    @toolwire.tool
    def lookup(i: int) -> str:
        """Look up one item.

        Args:
            i: the item's number
        """
        return f"item {i}"

    result = toolwire.run_sync(model, "look up 200 items", tools=[lookup])
    assert result.text == "done"
    assert len(result.tool_runs) == 200
    second = model.sent[1].json["messages"]
    assert _shape(second) == [
        ("user", 0),
        ("assistant", 128),
        *[("tool", i) for i in range(128)],
        ("assistant", 72),
        *[("tool", i) for i in range(128, 200)],
    ]
    assert [m["content"] for m in second if m["role"] == "tool"][:2] == ["item 0", "item 1"]


def _long_conversation(n: int) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(n)]


def test_more_than_2048_messages_are_refused_on_openais_api_only() -> None:
    from toolwire_openai.profile import CHAT_MAX_MESSAGES

    assert CHAT_MAX_MESSAGES == 2048
    openai_api = OpenAIChatProfile()
    assert openai_api.check_request({"model": "gpt-4.1", "messages": _long_conversation(2047)}) == []
    assert openai_api.check_request({"model": "gpt-4.1", "messages": _long_conversation(2048)}) == []
    got = openai_api.check_request({"model": "gpt-4.1", "messages": _long_conversation(2049)})
    assert [(v.rule, v.pointer) for v in got] == [("openai-chat.request.messages-count", "/messages")]
    assert "2049 messages" in got[0].message and "at most 2048" in got[0].message
    # the bound is checked on each request of a growing conversation (start past the old messages)
    got = openai_api.check_request({"model": "gpt-4.1", "messages": _long_conversation(2050)}, start=2049)
    assert [v.rule for v in got] == ["openai-chat.request.messages-count"]
    # a compatible server sets its own bound
    local = OpenAIChatProfile(base_url="http://127.0.0.1:8000/v1")
    assert local.check_request({"model": "m", "messages": _long_conversation(3000)}) == []


def test_a_run_past_2048_messages_stops_before_sending_and_keeps_what_it_did() -> None:
    from toolwire.types import Message, TextPart

    history = [Message("user" if i % 2 == 0 else "assistant", [TextPart(f"m{i}")]) for i in range(2048)]
    model = _make(OpenAIChatModel, lambda request: json_response(completion({"content": "x"})), {"model_id": "gpt-4.1"})
    conversation = toolwire.Conversation(messages=history)
    with pytest.raises(RequestRefused) as refused:
        toolwire.run_sync(model, "and now?", conversation=conversation)
    assert model.sent == []
    assert [v.rule for v in refused.value.violations] == ["openai-chat.request.messages-count"]
    assert "at most 2048" in str(refused.value)
    assert conversation.messages == history  # left as it was: nothing lost, nothing half-added


def test_deepseek_gets_its_reasoning_back_on_every_group_of_a_split_message() -> None:
    """DeepSeek's thinking mode refuses an assistant message with tool calls but no
    reasoning_content ("Missing `reasoning_content` field in the assistant message"): each group
    of a split message carries the reasoning DeepSeek sent with the calls."""
    calls = [tool_call(f"call_{i}", "lookup", json.dumps({"i": i})) for i in range(200)]
    answers = [
        json_response(
            completion({"tool_calls": calls, "reasoning_content": "Look them all up."}, finish_reason="tool_calls")
        ),
        json_response(completion({"content": "done", "reasoning_content": "All found."})),
    ]
    model = _make(
        OpenAIChatModel,
        lambda request: answers.pop(0),
        {"model_id": "deepseek-v4-flash", "base_url": "https://api.deepseek.com"},
    )

    @toolwire.tool
    def lookup(i: int) -> str:
        """Look up one item.

        Args:
            i: the item's number
        """
        return f"item {i}"

    result = toolwire.run_sync(model, "look up 200 items", tools=[lookup])
    assert result.text == "done"
    second = model.sent[1].json["messages"]
    assert [(len(m["tool_calls"]), m.get("reasoning_content")) for m in second if m["role"] == "assistant"] == [
        (128, "Look them all up."),
        (72, "Look them all up."),
    ]


def test_a_split_that_takes_a_history_past_2048_messages_says_the_count_is_as_sent() -> None:
    """A history of 2048 messages holding a message of 129 calls is 2049 messages once split: the
    refusal says the count is of the messages as sent, which the repairs grew, not a count the
    caller cannot find in their own history."""
    history = _history(129)  # user, assistant (129 calls), 129 tool messages, user: 132 messages
    messages = _long_conversation(2048 - len(history)) + history
    assert len(messages) == 2048
    profile = OpenAIChatProfile()
    body = profile.repair_request({"model": "gpt-4.1", "messages": messages}, RequestReport("openai-chat"))
    (v,) = profile.check_request(body)
    assert v.rule == "openai-chat.request.messages-count"
    assert v.message.startswith(
        "the request has 2049 messages as sent (toolwire's repairs may add some, e.g. an "
        "assistant message of more than 128 tool calls is sent as several)"
    )


def _streamed_calls(calls: list[dict[str, Any]]) -> Any:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4.1"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}, "finish_reason": None}]}
    ]
    for n, c in enumerate(calls):
        chunks.append(
            {**base, "choices": [{"index": 0, "delta": {"tool_calls": [{**c, "index": n}]}, "finish_reason": None}]}
        )
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chat_sse(chunks)


def _streamed_text(text: str) -> Any:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4.1"}
    return chat_sse(
        [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}]
    )


def test_every_request_of_a_streamed_run_with_two_257_call_turns_and_images_is_valid() -> None:
    """The later requests of a run (repaired incrementally from the first new message) still send
    every message of at most 128 calls, each directly followed by the tool messages of its calls,
    the images of the results after them."""

    def calls(t: int) -> list[dict[str, Any]]:
        return [tool_call(f"c{t}_{i}", "lookup", json.dumps({"i": i})) for i in range(257)]

    answers = [_streamed_calls(calls(0)), _streamed_calls(calls(1)), _streamed_text("done"), _streamed_text("bye")]
    model = _make(OpenAIChatModel, lambda request: answers.pop(0), {"model_id": "gpt-4.1", "stream": True})

    @toolwire.tool
    def lookup(i: int) -> Any:
        """Look up one item.

        Args:
            i: the item's number
        """
        if i % 100 == 0:
            return [f"item {i}", toolwire.ImagePart(url=f"https://example.com/{i}.png")]
        return f"item {i}"

    result = toolwire.run_sync(model, "look up", tools=[lookup])
    again = toolwire.run_sync(model, "and now?", conversation=result.conversation, tools=[lookup])
    assert (result.text, again.text, len(model.sent)) == ("done", "bye", 4)
    for k, sent in enumerate(model.sent):
        messages = sent.json["messages"]
        groups = []
        for i, m in enumerate(messages):
            if m["role"] == "assistant" and m.get("tool_calls"):
                j = i + 1
                while j < len(messages) and messages[j]["role"] == "tool":
                    j += 1
                answered = sorted(t["tool_call_id"] for t in messages[i + 1 : j])
                assert answered == sorted(c["id"] for c in m["tool_calls"]), (k, i)
                groups.append(len(m["tool_calls"]))
        assert groups == [[], [128, 128, 1], [128, 128, 1] * 2, [128, 128, 1] * 2][k]
    last = model.sent[3].json["messages"]
    images = [m for m in last if m["role"] == "user" and isinstance(m["content"], list)]
    assert len(images) == 2 and sum(p["type"] == "image_url" for m in images for p in m["content"]) == 6


def test_max_tool_calls_has_no_upper_bound_of_toolwires_own() -> None:
    from toolwire_openai.profile import OpenAIResponsesProfile

    body = {"model": "gpt-4.1", "input": "hi", "max_tool_calls": 10**20}
    assert not [v for v in OpenAIResponsesProfile().check_request(body) if "max-tool-calls" in v.rule]


def test_the_start_of_a_growing_conversation_maps_past_a_split_with_tools_in_another_order() -> None:
    # tool messages answering a 130-call message in reverse order: after the split the origins
    # are not in order; the next request's new messages must still be checked (a bad one refused)
    profile = OpenAIChatProfile()
    messages = _history(130)[:-1]
    messages[2:] = list(reversed(messages[2:]))
    new = [
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("call_x", "lookup", "{}")]},
    ]  # a call left unanswered: refused
    body = {"model": "gpt-4.1", "messages": [*messages, *new]}
    out = profile.repair_request(json.loads(json.dumps(body)), RequestReport("openai-chat"), start=len(messages))
    got = profile.check_request(out, start=len(messages))
    assert any(v.pointer.startswith(f"/messages/{len(out['messages']) - 1}") for v in got), got
