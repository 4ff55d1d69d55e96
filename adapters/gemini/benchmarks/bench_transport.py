"""Measure the cost of the two ways to send a Gemini request through google-genai (DESIGN principle 9).

Not a test: run by hand, no network (httpx2.MockTransport answers every request):

    uv run python adapters/gemini/benchmarks/bench_transport.py [--repeat 40]

For a history of N tool-calling turns (each: a model Content with a signed functionCall and a
user Content with its functionResponse) it times, per call (median over --repeat runs):

- ``sdk``:  ``client.aio.models.generate_content(contents=..., config=...)`` — the public path; the
  SDK validates the history into pydantic models, converts and re-serialises it, and parses the
  response into ``GenerateContentResponse`` (AFC disabled);
- ``lean``: ``GeminiCodec.encode_request`` + ``client.aio._api_client.async_request`` +
  ``GeminiCodec.decode_response`` — the path ``GeminiModel`` uses (same auth, retries, errors);
- ``codec``: ``encode_request`` + ``decode_response`` alone (no SDK, no HTTP).

The mock transport's own cost is in both ``sdk`` and ``lean``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import statistics
import time

import httpx2
from google import genai
from google.genai import types
from toolwire_gemini import GeminiCodec

from toolwire.adapter import ModelRequest
from toolwire.tools import Tool
from toolwire.types import Message, TextPart, ToolCall, ToolResult

RESPONSE = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {"name": "lookup", "args": {"q": "weather in Paris", "limit": 3}},
                        "thoughtSignature": base64.b64encode(b"s" * 300).decode(),
                    }
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 1200,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 80,
        "totalTokenCount": 1300,
    },
    "modelVersion": "gemini-2.5-flash",
    "responseId": "bench-response",
}

TOOL = Tool.from_schema(
    "lookup",
    "Look something up.",
    {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "query"}, "limit": {"type": "integer"}},
        "required": ["q"],
    },
)


def history(turns: int) -> list[Message]:
    messages = [Message.user("Plan a trip; look things up as needed.")]
    sig = base64.b64encode(b"s" * 300).decode()
    for i in range(turns):
        call = ToolCall(
            id=f"gemini-r{i}-0",
            name="lookup",
            arguments={"q": f"question {i}", "limit": 3},
            id_synthesized=True,
            provider_data={"gemini": {"thoughtSignature": sig}},
        )
        messages.append(Message("assistant", [TextPart(f"Looking up item {i}."), call], {"gemini": {}}))
        messages.append(Message("user", [ToolResult(call.id, "result text " * 40, name="lookup")]))
    return messages


def make_client() -> genai.Client:
    body = json.dumps(RESPONSE)
    transport = httpx2.MockTransport(
        lambda request: httpx2.Response(200, text=body, headers={"content-type": "application/json"})
    )
    return genai.Client(
        api_key="bench",
        http_options=types.HttpOptions(
            api_version="v1beta", httpx_async_client=httpx2.AsyncClient(transport=transport)
        ),
    )


async def run(turns: int, repeat: int) -> dict[str, float]:
    codec = GeminiCodec()
    client = make_client()
    request = ModelRequest(model="gemini-2.5-flash", messages=history(turns), instructions="Be brief.", tools=[TOOL])
    body = codec.encode_request(request)
    config = types.GenerateContentConfig(
        system_instruction=body["systemInstruction"],
        tools=body["tools"],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )

    async def sdk() -> None:
        await client.aio.models.generate_content(model="gemini-2.5-flash", contents=body["contents"], config=config)

    async def lean() -> None:
        wire = codec.encode_request(request)
        raw = await client.aio._api_client.async_request("post", "models/gemini-2.5-flash:generateContent", wire, None)
        codec.decode_response(json.loads(raw.body), request)

    async def codec_only() -> None:
        wire = codec.encode_request(request)
        json.dumps(wire)
        codec.decode_response(RESPONSE, request)

    out = {}
    for name, fn in (("sdk", sdk), ("lean", lean), ("codec", codec_only)):
        await fn()  # warm up
        samples = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            await fn()
            samples.append((time.perf_counter() - t0) * 1000)
        out[name] = statistics.median(samples)
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    print(f"{'turns':>5}  {'sdk ms':>8}  {'lean ms':>8}  {'codec ms':>8}")
    for turns in (1, 10, 25, 50):
        r = await run(turns, args.repeat)
        print(f"{turns:>5}  {r['sdk']:>8.2f}  {r['lean']:>8.2f}  {r['codec']:>8.2f}")


if __name__ == "__main__":
    asyncio.run(main())
