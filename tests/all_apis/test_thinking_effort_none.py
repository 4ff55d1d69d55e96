"""``thinking={"effort": None}``: no effort given, so the API's default, the same on every API.
Anthropic refused it when the model was made, Gemini sent it as thinkingLevel NONE and refused the
request, OpenAI Responses sent ``reasoning: {"effort": null}``, Chat left it out. Now every API
sends the request a model without ``thinking`` sends (through the real SDKs, only the network
replaced), and a hand-built request's ``thinking={"effort": None}`` encodes as ``thinking=None``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire import Message
from toolwire.adapter import ModelRequest

from .answers import APIS
from .test_turns import make_model, text_answer

httpx2 = pytest.importorskip("httpx2")


def _sent(api: str, **settings: Any) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []
    model = make_model(api, [text_answer(api, "done")], sent)
    model = toolwire.model(
        f"{api}:m-1", api_key="k", max_retries=0, http_client=model.settings["http_client"], **settings
    )
    response = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert response.text == "done"
    return sent[0]


@pytest.mark.parametrize("thinking", [{"effort": None}, {}], ids=["effort None", "empty"])
@pytest.mark.parametrize("api", APIS)
def test_thinking_with_no_effort_is_sent_as_no_thinking_setting(api: str, thinking: dict[str, Any]) -> None:
    assert _sent(api, thinking=thinking) == _sent(api)


@pytest.mark.parametrize("api", APIS)
def test_a_hand_built_request_with_effort_none_encodes_as_no_thinking(api: str) -> None:
    model = toolwire.model(f"{api}:m-1", api_key="k")
    codec = model.codec
    assert codec is not None
    base = ModelRequest(model="m-1", messages=[Message.user("hi")])
    given = ModelRequest(model="m-1", messages=[Message.user("hi")], thinking={"effort": None})
    assert codec.encode_request(given) == codec.encode_request(base)
