"""o1-mini and o1-preview take no system or developer message ("Unsupported value:
'messages[0].role' does not support 'system' with this model."): rule
``openai-chat.request.system-role-model`` sends the instructions as a user message, through
``toolwire.model`` and the real ``openai`` SDK over ``httpx2.MockTransport``, on every turn of a
run; other models keep their system message."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai_wire import completion

import toolwire

RULE = "openai-chat.request.system-role-model"


def _model(spec: str, **settings: Any) -> Any:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(
            200, headers={"content-type": "application/json"}, text=json.dumps(completion({"content": "Hello."}))
        )

    model: Any = toolwire.model(
        spec,
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        **settings,
    )
    model.sent = sent
    return model


@pytest.mark.parametrize("model_id", ["o1-mini", "o1-preview", "o1-mini-2024-09-12"])
@pytest.mark.parametrize("role", [None, "developer"], ids=["system", "developer"])
def test_instructions_go_as_a_user_message_on_every_turn(model_id: str, role: str | None) -> None:
    settings = {"instructions_role": role} if role else {}
    model = _model(f"openai-chat:{model_id}", **settings)
    first = toolwire.run_sync(model, "Say hello.", instructions="Answer in French.")
    assert first.text == "Hello."
    second = toolwire.run_sync(model, "Again.", conversation=first.conversation)
    assert second.text == "Hello."
    assert [b["messages"][0] for b in model.sent] == [{"role": "user", "content": "Answer in French."}] * 2
    assert model.sent[0]["messages"][1] == {"role": "user", "content": "Say hello."}
    changes = [(c.rule, c.pointer, c.lossy) for c in model.last_preflight.changes]
    assert changes == [(RULE, "/messages/0/role", False)]


@pytest.mark.parametrize("model_id", ["o1", "o3-mini", "gpt-4.1", "o1-pro"])
def test_other_models_keep_the_system_message(model_id: str) -> None:
    model = _model(f"openai-chat:{model_id}")
    toolwire.run_sync(model, "Say hello.", instructions="Answer in French.")
    assert model.sent[0]["messages"][0] == {"role": "system", "content": "Answer in French."}
    assert model.last_preflight is None or RULE not in [c.rule for c in model.last_preflight.changes]
