"""An empty prompt with no conversation sends nothing, on every API: a typed error before any
request (the vendors refuse a request with no messages or an empty text block)."""

from __future__ import annotations

import httpx2
import pytest
from reliability_wire import APIS, text_body

import toolwire
from toolwire.errors import ConfigurationError
from toolwire.types import Conversation, Message

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_gemini")


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("prompt", [None, "", "  \n"], ids=["none", "empty", "blank"])
def test_empty_prompt_sends_no_request(api, prompt):
    sent: list[bytes] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content)
        return httpx2.Response(200, json=text_body(api))

    m = toolwire.model(
        f"{api}:m-1",
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(m, prompt)
    assert str(info.value).startswith("nothing to send: the prompt is empty and there is no conversation")
    assert sent == []
    # with a conversation, an empty prompt continues it as it is
    conv = Conversation([Message.user("hello")])
    assert toolwire.run_sync(m, prompt, conversation=conv).text == "done"
    assert len(sent) == 1
