"""Fixtures shared by the whole suite.

``mock``: models over ``httpx2.MockTransport`` answering canned wire bodies, recording what was
sent (used by the caching and provider-tool tests).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

pytest_plugins = ["pytester"]


class Sent(list):
    """The JSON bodies the SDK posted, in order."""


@pytest.fixture
def mock() -> Callable[..., tuple[Any, Sent]]:
    """``mock(spec, answers, **settings)`` → ``(model, sent)``: the model of ``spec`` with a test
    API key, no retries and an HTTP client whose transport answers each request with the next of
    ``answers`` (JSON bodies, status 200) and appends the request's JSON body to ``sent``."""
    import httpx2

    import toolwire

    def make(spec: str, answers: list[dict[str, Any]], **settings: Any) -> tuple[Any, Sent]:
        sent = Sent()
        queue = list(answers)

        def respond(request: httpx2.Request) -> httpx2.Response:
            sent.append(json.loads(request.content))
            return httpx2.Response(200, json=queue.pop(0))

        provider = spec.partition(":")[0]
        key = {"anthropic": "sk-ant-test", "gemini": "gemini-test-key"}.get(provider, "sk-test")
        model = toolwire.model(
            spec,
            api_key=key,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
            **settings,
        )
        return model, sent

    return make


@pytest.fixture
def incremental_from_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Incremental request encoding from a conversation's second request on, whatever its length.

    By default a conversation is encoded whole until it has ``_Histories.from_messages``
    messages (cheaper for short ones); the tests of the incremental machinery use short
    conversations, so they lower the threshold to 0 to exercise it from the first turn."""
    from toolwire.adapter import _Histories

    monkeypatch.setattr(_Histories, "from_messages", 0)
