"""A reasoning item sent back on the next turn (rule ``openai.conversation.reasoning-input-fields``),
through the real ``openai`` SDK over ``httpx2.MockTransport``: the API refuses a reasoning input
item's ``status`` ("Unknown parameter: 'input[1].status'.", BerriAI/litellm#13420) and, on
api.openai.com, reasoning text in its ``content`` ("Invalid 'input[N].content': array too long.
Expected an array with maximum length 0", microsoft/agent-framework-go#784)."""

from __future__ import annotations

from typing import Any

from openai_wire import fc_item, json_response, response_body

import toolwire
from toolwire.tools import Tool

WEATHER = Tool.from_schema(
    "get_weather",
    "Weather of a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    lambda city: "sunny",
)

REASONING = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Look the weather up."}],
    "content": [{"type": "reasoning_text", "text": "The user wants Paris weather; call get_weather."}],
    "encrypted_content": "gAAAAB-opaque",
    "status": "completed",  # as a compatible server or a gateway writes it
}
MESSAGE = {
    "id": "msg_2",
    "type": "message",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
}


def _run(responses_model: Any, **settings: Any) -> tuple[dict[str, Any], Any]:
    replies = iter(
        [
            response_body([REASONING, fc_item("call_1", "get_weather", '{"city": "Paris"}', "fc_1")]),
            response_body([MESSAGE], rid="resp_TEST2"),
        ]
    )
    model = responses_model(lambda r: json_response(next(replies)), model_id="gpt-5.5", **settings)
    result = toolwire.run_sync(model, "Weather in Paris?", tools=[WEATHER])
    assert result.text == "Sunny."
    second = model.sent[1].json
    (item,) = [it for it in second["input"] if it.get("type") == "reasoning"]
    return item, result


def test_reasoning_goes_back_to_openai_without_status_and_reasoning_text(responses_model: Any) -> None:
    item, result = _run(responses_model)
    assert item == {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Look the weather up."}],
        "encrypted_content": "gAAAAB-opaque",
    }
    changes = [
        (c.pointer, c.lossy)
        for turn in result.turns
        for c in (turn.response.preflight or [])
        if c.rule == "openai.conversation.reasoning-input-fields"
    ]
    assert changes == [("/input/1/content", False)]  # the status was never sent


def test_a_compatible_server_gets_the_reasoning_text_back(responses_model: Any) -> None:
    item, _ = _run(responses_model, base_url="http://localhost:8000/v1")
    assert "status" not in item
    assert item["content"] == REASONING["content"]
    assert item["encrypted_content"] == "gAAAAB-opaque"
