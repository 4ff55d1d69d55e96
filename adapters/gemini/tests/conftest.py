"""Fixtures for the Gemini adapter tests: the real ``google-genai`` SDK with only the network
replaced by ``httpx2.MockTransport`` (helpers in ``gemini_wire_helpers.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import httpx2
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from gemini_wire_helpers import Sent
from toolwire_gemini import GeminiModel


@pytest.fixture
def mock_model() -> Callable[..., GeminiModel]:
    def make(
        handler: Callable[[httpx2.Request], httpx2.Response] | list[httpx2.Response],
        model_id: str = "gemini-2.5-flash",
        **settings: Any,
    ) -> GeminiModel:
        sent: list[Sent] = []
        queue = list(handler) if isinstance(handler, list) else None

        def wrapped(request: httpx2.Request) -> httpx2.Response:
            sent.append(Sent(request))
            if queue is not None:
                return queue.pop(0)
            return handler(request)  # type: ignore[operator]

        settings.setdefault("api_key", "test-key")
        settings.setdefault("max_retries", 0)
        model = GeminiModel(
            model_id, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(wrapped)), **settings
        )
        model.sent = sent  # type: ignore[attr-defined]
        return model

    return make
