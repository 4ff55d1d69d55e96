"""Chat Completions streams whose tool-call fragments carry ids in unusual ways, read through the
real ``openai`` SDK (only the network replaced): the call is put together as the model made it."""

from __future__ import annotations

from typing import Any

from openai_wire import _make, chat_sse
from toolwire_openai import OpenAIChatModel

import toolwire

BASE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4.1"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def fragment(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        fn["name"] = name
    tc: dict[str, Any] = {"index": index, "function": fn}
    if call_id is not None:
        tc["id"], tc["type"] = call_id, "function"
    return chunk({"tool_calls": [tc]})


def text(answer: str) -> Any:
    return chat_sse([chunk({"role": "assistant", "content": answer}, "stop")])


@toolwire.tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny"


def run(fragments: list[dict[str, Any]]) -> tuple[toolwire.RunResult, Any]:
    answers = [chat_sse([*fragments, chunk({}, "tool_calls")]), text("done")]
    model = _make(OpenAIChatModel, lambda request: answers.pop(0), {"model_id": "gpt-4.1", "stream": True})
    return toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather]), model


def test_a_fresh_id_on_every_fragment_of_one_call_does_not_split_the_call() -> None:
    # mlx-openai-server before cubist38/mlx-openai-server#216 sent a new id with every fragment
    result, model = run(
        [
            fragment(0, "call_a1", "get_weather", ""),
            fragment(0, "call_a2", None, '{"city":'),
            fragment(0, "call_a3", None, ' "Paris"}'),
        ]
    )
    calls = [p for p in result.turns[0].response.parts if isinstance(p, toolwire.ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [("call_a1", "get_weather", {"city": "Paris"})]
    second = model.sent[1].json["messages"]
    assert second[1]["tool_calls"][0]["id"] == "call_a1"
    assert second[2] == {"role": "tool", "tool_call_id": "call_a1", "content": "Paris: sunny"}
    assert result.text == "done"


def test_a_new_id_with_a_name_at_the_same_index_is_still_a_second_call() -> None:
    # servers that send every parallel call at index 0: each call's first fragment has its name
    result, _ = run(
        [
            fragment(0, "call_1", "get_weather", '{"city": "Paris"}'),
            fragment(0, "call_2", "get_weather", '{"city": "Rome"}'),
        ]
    )
    calls = [p for p in result.turns[0].response.parts if isinstance(p, toolwire.ToolCall)]
    assert [(c.id, c.arguments) for c in calls] == [("call_1", {"city": "Paris"}), ("call_2", {"city": "Rome"})]
