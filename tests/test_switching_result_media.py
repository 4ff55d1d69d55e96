"""A history written by toolwire on OpenAI Chat or Gemini, whose tool results carry an image and a
PDF, imported with ``decode_request`` and continued on another API: the image and the PDF reach
the target inside the tool result (Anthropic ``tool_result`` content, Responses
``function_call_output.output``), not as a user message, and the source's note pointing at them
is gone.
"""

from __future__ import annotations

import json

import pytest

from toolwire import registry
from toolwire.adapter import ModelRequest
from toolwire.testing.conversation_rules import validate_request
from toolwire.tools import Tool
from toolwire.types import DocumentPart, ImagePart, Message, TextPart, ToolCall, ToolResult

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00"
    b"\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82"
)
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
MODEL = {
    "openai-chat": "gpt-4.1",
    "openai": "gpt-5",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-3-flash-preview",
}


def _history() -> list[Message]:
    return [
        Message("user", [TextPart("chart and report please")]),
        Message("assistant", [ToolCall(id="call_1", name="chart", arguments={"q": "sales"})]),
        Message(
            "user",
            [
                ToolResult(
                    "call_1",
                    [
                        TextPart("here it is"),
                        ImagePart(data=PNG, media_type="image/png"),
                        DocumentPart(PDF, filename="r.pdf"),
                    ],
                    name="chart",
                )
            ],
        ),
    ]


PAIRS = [("openai-chat", "anthropic"), ("openai-chat", "openai"), ("gemini", "anthropic"), ("gemini", "openai")]


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_imported_result_media_stay_in_the_result(source: str, target: str) -> None:
    src, dst = registry.codec(source), registry.codec(target)
    tool = Tool.from_schema(
        "chart", "Draw a chart. Use for sales questions.", {"type": "object", "properties": {"q": {"type": "string"}}}
    )
    written = src.encode_request(ModelRequest(model=MODEL[source], messages=_history(), tools=[tool]))
    imported = src.decode_request(json.loads(json.dumps(written)))
    imported.model = MODEL[target]
    body = dst.encode_request(imported)
    assert validate_request(target, body) == []
    text = json.dumps(body)
    assert "next user message" not in text and "follow the function responses" not in text
    if target == "anthropic":
        last = body["messages"][-1]
        assert [b["type"] for b in last["content"]] == ["tool_result"]
        assert [c["type"] for c in last["content"][0]["content"]] == ["text", "image", "document"]
        assert last["content"][0]["content"][0]["text"] == "here it is"
    else:
        items = body["input"]
        assert [i.get("type", i.get("role")) for i in items] == ["user", "function_call", "function_call_output"]
        output = items[-1]["output"]
        assert [o["type"] for o in output] == ["input_text", "input_image", "input_file"]
        assert output[0]["text"] == "here it is"


def test_anthropic_result_media_round_trip() -> None:
    # Anthropic carries images and documents inside tool_result content: nothing to fold, and
    # encode -> decode gives the results back (tool_result has no tool name: imported without one)
    codec = registry.codec("anthropic")
    history = _history()
    body = codec.encode_request(ModelRequest(model=MODEL["anthropic"], messages=history, max_tokens=100))
    decoded = codec.decode_request(json.loads(json.dumps(body)))
    (result,) = decoded.messages[-1].parts
    (want,) = history[-1].parts
    assert isinstance(result, ToolResult) and isinstance(want, ToolResult)
    assert (result.tool_call_id, result.content, result.is_error, result.name) == (
        want.tool_call_id,
        want.content,
        want.is_error,
        None,
    )
