"""A request body nested deeper than Python's recursion limit (a dict handed to decode_request)
is a typed decode error on every API, not a RecursionError."""

from typing import Any

import pytest

from toolwire import registry
from toolwire.errors import ResponseDecodeError


def _deep(n: int = 5000) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(n):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize(
    ("api", "body"),
    [
        (
            "anthropic",
            {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}], "metadata": _deep()},
        ),
        ("openai-chat", {"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": _deep()}),
        ("openai", {"model": "m", "input": "hi", "metadata": _deep()}),
        ("gemini", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": _deep()}),
    ],
)
def test_too_deep_body_is_a_typed_error(api: str, body: dict[str, Any]) -> None:
    with pytest.raises(ResponseDecodeError, match="RecursionError"):
        registry.codec(api).decode_request(body)
