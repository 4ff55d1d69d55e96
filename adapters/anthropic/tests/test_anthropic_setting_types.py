"""A request-field setting whose value is not of the JSON type the installed SDK gives that field
(``inference_geo=123`` where ``anthropic.types.MessageCreateParamsBase`` says ``Optional[str]``) is
a ConfigurationError when the model is made (rule ``anthropic.request.field-values``), naming the
type to give and the SDK field: the API refuses such a value with a 400 on every request. Run
through the real SDK over ``httpx2.MockTransport``; a refused setting sends nothing, a right-typed
one is sent as given, and ``extra_body`` stays unchecked."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire.errors import ConfigurationError

_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "hi"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def _attempt(settings: dict[str, Any]) -> tuple[ConfigurationError | None, list[dict[str, Any]]]:
    """Make the model with ``settings`` and run one turn; the refusal (if any) and the bodies sent."""
    sent: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_ANSWER)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    try:
        model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k", http_client=client, **settings)
        assert toolwire.run_sync(model, "hello").text == "hi"
    except ConfigurationError as exc:
        return exc, sent
    return None, sent


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        # a scalar: MessageCreateParamsBase.inference_geo is Optional[str]
        (
            {"inference_geo": 123},
            ["inference_geo 123 is an integer", "a string or null", "MessageCreateParamsBase.inference_geo"],
        ),
        # MessageCreateParamsBase.container: Union[ContainerParams, str, None]
        ({"container": 5}, ["container 5 is an integer", "an object or a string or null"]),
        # inside an object: ContainerParams.id is Optional[str]
        ({"container": {"id": 7}}, ["container.id 7 is an integer", "ContainerParams.id"]),
        # inside a list of a union of objects (the beta's context_management edits, by their type tag)
        (
            {"context_management": {"edits": [{"type": 5}]}},
            ["context_management.edits[0].type 5 is an integer", "'clear_tool_uses_20250919'"],
        ),
        (
            {
                "context_management": {
                    "edits": [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": "3"}}]
                }
            },
            ["context_management.edits[0].keep.value '3' is a string", "an integer", "BetaToolUsesKeepParam.value"],
        ),
        # a bool is not an integer for the API
        (
            {"thinking": {"type": "enabled", "budget_tokens": True}},
            ["thinking.budget_tokens True is a boolean", "an integer", "ThinkingConfigEnabledParam.budget_tokens"],
        ),
        ({"stop_sequences": ["END", 3]}, ["stop_sequences[1] 3 is an integer", "a string"]),
        ({"metadata": {"user_id": 42}}, ["metadata.user_id 42 is an integer", "MetadataParam.user_id"]),
    ],
)
def test_a_setting_of_the_wrong_type_is_refused_before_sending(settings: dict[str, Any], named: list[str]) -> None:
    refused, sent = _attempt(settings)
    assert refused is not None, "the setting was sent"
    message = str(refused)
    for text in named:
        assert text in message
    assert message.endswith("[anthropic.request.field-values]")
    assert sent == []


def test_right_typed_settings_are_sent_as_given() -> None:
    edits = [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 3}}]
    settings = {
        "inference_geo": None,  # Optional[str]: null is a value the SDK types
        "container": {"id": "cont_1"},
        "context_management": {"edits": edits},
        "metadata": {"user_id": None},
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "max_tokens": 4096,
    }
    refused, sent = _attempt(settings)
    assert refused is None
    assert len(sent) == 1
    body = sent[0]
    assert body["inference_geo"] is None
    assert body["container"] == {"id": "cont_1"}
    assert body["context_management"] == {"edits": edits}
    assert body["stop_sequences"] == ["END"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_extra_body_stays_unchecked() -> None:
    refused, sent = _attempt({"extra_body": {"inference_geo": 123}})
    assert refused is None
    assert sent[0]["inference_geo"] == 123


def test_a_setting_of_none_is_sent_as_before() -> None:
    # stop_sequences is Sequence[str], not Optional: None stays the unset it was, not a refusal
    refused, sent = _attempt({"stop_sequences": None})
    assert refused is None and len(sent) == 1


def test_a_str_enum_member_of_an_allowed_value_is_sent_as_its_string() -> None:
    # A ``str`` Enum member is a JSON string (json.dumps writes its value): ``service_tier`` typed
    # Literal['auto', 'standard_only'] takes ServiceTier.AUTO as "auto".
    import enum

    class ServiceTier(enum.StrEnum):
        AUTO = "auto"

    refused, sent = _attempt({"service_tier": ServiceTier.AUTO})
    assert refused is None
    assert sent[0]["service_tier"] == "auto"
