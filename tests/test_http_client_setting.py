"""``http_client=`` must be an async HTTP client: the adapters drive the SDKs' async clients (for
``run_sync`` too). A sync ``httpx2.Client`` used to be accepted and to fail only on the first
request, as a retryable connection error (Anthropic, OpenAI) or a pydantic error (Gemini)."""

from __future__ import annotations

import pytest

import toolwire
from toolwire.errors import ConfigurationError

httpx2 = pytest.importorskip("httpx2")

SPECS = ["anthropic:claude-sonnet-4-5", "openai:gpt-5", "openai-chat:gpt-4.1", "gemini:gemini-2.5-flash"]


@pytest.mark.parametrize("spec", SPECS)
def test_a_sync_http_client_is_refused_when_the_model_is_made(spec: str) -> None:
    pytest.importorskip(
        {"anthropic": "toolwire_anthropic", "gemini": "toolwire_gemini"}.get(spec.split(":")[0], "toolwire_openai")
    )
    with httpx2.Client() as sync_client:
        with pytest.raises(ConfigurationError, match=r"httpx2\._client\.Client|not an async HTTP client") as info:
            toolwire.model(spec, api_key="k", http_client=sync_client)
    assert "httpx2.AsyncClient" in str(info.value)  # says what to pass instead


@pytest.mark.parametrize("spec", SPECS)
def test_an_async_http_client_is_taken(spec: str) -> None:
    pytest.importorskip(
        {"anthropic": "toolwire_anthropic", "gemini": "toolwire_gemini"}.get(spec.split(":")[0], "toolwire_openai")
    )
    m = toolwire.model(spec, api_key="k", http_client=httpx2.AsyncClient())
    assert m.settings["http_client"] is not None
