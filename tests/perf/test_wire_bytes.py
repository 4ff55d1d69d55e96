"""The bytes toolwire sends are the bytes the vendor SDK would send for the same body.

The Anthropic transport hands the SDK the body's JSON bytes (``post(content=...)``) instead of
the dict; the SDK's own serialization of the dict (``post(body=...)``) is the reference.
"""

from __future__ import annotations

import asyncio
import json

import httpx2

import toolwire

ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "done"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def lookup(q: str, n: int = 1) -> str:
    """Look something up: “quoted” ünïcode.

    Args:
        q: What to look up.
        n: How many results.
    """
    return q


def test_anthropic_bytes_equal_the_sdks_own_serialization_of_the_body():
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=ANSWER)

    async def main() -> None:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
        m = toolwire.model("anthropic:claude-x", api_key="k", http_client=client, max_retries=0)
        await toolwire.run(m, "Wetter in Köln? 🌧", tools=[lookup], instructions="Be brief — really.")
        assert json.loads(seen[0].content)["messages"][0]["content"] == [{"type": "text", "text": "Wetter in Köln? 🌧"}]
        # the reference: the SDK serializing the same dict itself
        await m.client.post("/v1/messages", cast_to=httpx2.Response, body=json.loads(seen[0].content))
        await client.aclose()

    asyncio.run(main())
    assert len(seen) == 2
    assert seen[0].content == seen[1].content
    assert seen[0].headers["content-type"] == seen[1].headers["content-type"] == "application/json"
    assert "Köln? 🌧".encode() in seen[0].content  # UTF-8, not \\u escapes
