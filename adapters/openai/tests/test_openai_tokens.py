"""The offline Chat input-token estimate against the real ``prompt_tokens`` of every recorded
Chat request (skipped without recordings), and determinism on a hand-written body."""

from __future__ import annotations

import pytest
from toolwire_openai.tokens import MEASURED_ERROR, estimate_chat_input_tokens

from toolwire.testing.cassettes import load_cassette, recordings_dir


def _pairs() -> list[tuple[int, int]]:
    root = recordings_dir()
    if root is None or not (root / "openai-chat").is_dir():
        pytest.skip("shared/recordings/openai-chat not found")
    out = []
    for f in sorted((root / "openai-chat").glob("*.yaml")):
        for it in load_cassette(f):
            if it.stream_format == "sse":
                usage = [c["usage"] for c in it.stream_chunks if isinstance(c, dict) and c.get("usage")]
                u = usage[-1] if usage else None
            else:
                u = (it.response_json or {}).get("usage")
            if u and it.request_json:
                out.append((estimate_chat_input_tokens(it.request_json), u["prompt_tokens"]))
    return out


def test_estimate_within_measured_error_on_recordings() -> None:
    pairs = _pairs()
    assert len(pairs) >= 10
    errors = [abs(est - real) / real for est, real in pairs]
    assert max(errors) <= MEASURED_ERROR
    assert sum(errors) / len(errors) <= 0.05


def test_estimate_counts_messages_tools_and_calls() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]}
    base = estimate_chat_input_tokens(body)
    assert base == 3 + 3 + 1 + 1  # priming + per-message + "user" + "hello"
    with_tool = estimate_chat_input_tokens(
        body
        | {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Weather.",
                        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                    },
                }
            ]
        }
    )
    assert with_tool > base + 10


def test_chat_model_count_tokens_is_offline(chat_model) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from toolwire.types import Message

    def no_network(request):  # type: ignore[no-untyped-def]
        raise AssertionError("count_tokens must not send a request")

    model = chat_model(no_network)
    n = asyncio.run(model.count_tokens(model.build_request([Message.user("hello")], instructions="Be brief.")))
    assert n == estimate_chat_input_tokens(
        model.codec.encode_request(model.build_request([Message.user("hello")], instructions="Be brief."))
    )
    assert model.sent == []
