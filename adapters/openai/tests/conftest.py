"""Fixtures for the OpenAI adapter tests (helpers in ``openai_wire.py``, importable from tests)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import httpx2
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from openai_wire import _make
from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel


@pytest.fixture
def chat_model() -> Callable[..., OpenAIChatModel]:
    def make(handler: Callable[[httpx2.Request], httpx2.Response], **settings: Any) -> OpenAIChatModel:
        return _make(OpenAIChatModel, handler, settings)

    return make


@pytest.fixture
def responses_model() -> Callable[..., OpenAIResponsesModel]:
    def make(handler: Callable[[httpx2.Request], httpx2.Response], **settings: Any) -> OpenAIResponsesModel:
        return _make(OpenAIResponsesModel, handler, settings)

    return make
