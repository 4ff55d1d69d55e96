"""Object-valued request fields given as settings hold only the keys the installed SDK's request
type gives them (rule ``request.field-values``): OpenAI answers another key with "Unknown
parameter: 'reasoning.budget'.", on every request of the run. A typo is a ConfigurationError when
the model is made, naming the keys and the closest one; a compatible server is not checked."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.errors import ConfigurationError


@pytest.mark.parametrize(
    ("spec", "settings", "named"),
    [
        ("openai:gpt-5", {"reasoning": {"effort": "low", "budget": 5}}, ["reasoning has no field 'budget'", "effort"]),
        ("openai:gpt-5", {"text": {"verbosty": "low"}}, ["text has no field 'verbosty'", "did you mean 'verbosity'?"]),
        ("openai:gpt-5", {"prompt": {"idd": "pmpt_1"}}, ["prompt has no field 'idd'", "did you mean 'id'?"]),
        (
            "openai-chat:gpt-5",
            {"stream_options": {"include_usag": True}},
            ["stream_options has no field 'include_usag'", "did you mean 'include_usage'?"],
        ),
        (
            "openai-chat:gpt-4o",
            {"web_search_options": {"context_size": "low"}},
            ["web_search_options has no field 'context_size'", "search_context_size"],
        ),
    ],
)
def test_a_key_the_sdk_does_not_give_the_object_is_a_configuration_error(
    spec: str, settings: dict[str, Any], named: list[str]
) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec, api_key="k", **settings)
    message = str(info.value)
    for text in named:
        assert text in message
    assert "request.field-values]" in message and "extra_body" in message


def test_the_keys_the_sdk_types_are_sent() -> None:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        body = {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "hi", "annotations": []}],
                }
            ],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        }
        return httpx2.Response(200, json=body)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    model = toolwire.model(
        "openai:gpt-5",
        api_key="k",
        http_client=client,
        reasoning={"effort": "low", "summary": "auto"},
        text={"verbosity": "low"},
    )
    assert toolwire.run_sync(model, "hello").text == "hi"
    assert sent[0]["reasoning"] == {"effort": "low", "summary": "auto"}
    assert sent[0]["text"] == {"verbosity": "low"}


def test_a_compatible_server_takes_its_own_keys() -> None:
    model = toolwire.model(
        "openai-chat:local", base_url="http://localhost:8080/v1", api_key="k", stream_options={"continuous_usage": 1}
    )
    assert model.settings["stream_options"] == {"continuous_usage": 1}
