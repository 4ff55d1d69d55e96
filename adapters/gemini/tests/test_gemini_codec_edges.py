"""Codec edge cases: imports that must round-trip exactly, and decode details."""

from __future__ import annotations

import pytest
from toolwire_gemini import GeminiCodec

from toolwire.adapter import ModelRequest
from toolwire.stream import assemble
from toolwire.types import Message, ReasoningPart, TextPart, ToolCall, ToolResult

CODEC = GeminiCodec()

SIG = "CikB0e2Kbw5tJ9dw+/="


@pytest.mark.parametrize(
    "body",
    [
        # role "function" for the answers (older Gemini samples), system instruction without role
        {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]},
                {
                    "role": "function",
                    "parts": [{"functionResponse": {"name": "f", "response": {"result": {"ok": True}}}}],
                },
            ],
        },
        # thought part without text, text part with thought:false, signature on text
        {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {
                    "role": "model",
                    "parts": [
                        {"thought": True, "thoughtSignature": SIG},
                        {"text": "answer", "thought": False},
                        {"text": "more", "thoughtSignature": SIG},
                    ],
                },
            ]
        },
        # content without role, inline image in a user turn, executable code kept opaque
        {
            "contents": [
                {"parts": [{"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
                {"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "print(1)"}}]},
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}},
            "generationConfig": {
                "maxOutputTokens": 50,
                "thinkingConfig": {"thinkingLevel": "low"},
                "stopSequences": ["END"],
            },
        },
        # error result, results with ids, a functionResponse with extra fields
        {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"id": "a1", "name": "f", "args": {}}},
                        {"functionCall": {"id": "a2", "name": "g", "args": {}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"id": "a1", "name": "f", "response": {"error": "boom"}}},
                        {
                            "functionResponse": {
                                "id": "a2",
                                "name": "g",
                                "response": {"output": "ok"},
                                "willContinue": False,
                            }
                        },
                    ],
                },
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
        },
    ],
)
def test_import_round_trips_exactly(body: dict) -> None:
    assert CODEC.encode_request(CODEC.decode_request(body)) == body


def test_imported_values_are_canonical() -> None:
    req = CODEC.decode_request(
        {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"id": "a1", "name": "f", "args": {}}},
                        {"functionCall": {"name": "g", "args": {}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"id": "a1", "name": "f", "response": {"error": "boom"}}},
                        {"functionResponse": {"name": "g", "response": {"return_value": "やあ"}}},
                    ],
                },
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
        }
    )
    assert req.instructions == "Be brief."
    assert req.tool_choice == {"type": "tool", "name": "f"}
    calls = req.messages[1].tool_calls
    assert [(c.id, c.id_synthesized) for c in calls] == [("a1", False), ("gemini-import-1-1", True)]
    r1, r2 = req.messages[2].tool_results
    assert (r1.tool_call_id, r1.content, r1.is_error) == ("a1", "boom", True)
    assert (r2.tool_call_id, r2.content, r2.is_error) == ("gemini-import-1-1", '{"return_value":"やあ"}', False)
    # an edited result no longer matches the kept object and is sent as output
    r2.content = "edited"
    body = CODEC.encode_request(req)
    assert body["contents"][2]["parts"][1] == {"functionResponse": {"name": "g", "response": {"output": "edited"}}}


def test_stream_signature_only_part_and_text_runs() -> None:
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}], "responseId": "s"},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}}], "responseId": "s"},
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": SIG}]}, "finishReason": "STOP"}
            ],
            "responseId": "s",
        },
    ]
    resp = assemble(CODEC.decode_stream(chunks), "gemini")
    assert [(type(p).__name__, p.text) for p in resp.parts] == [("TextPart", "Hello"), ("TextPart", "")]
    assert resp.parts[1].provider_data == {"gemini": {"thoughtSignature": SIG}}
    body = CODEC.encode_request(ModelRequest(model="gemini-3-pro", messages=[Message.user("x"), resp.to_message()]))
    assert body["contents"][1]["parts"] == [{"text": "Hello"}, {"text": "", "thoughtSignature": SIG}]


def test_non_object_args_marked_invalid_not_crashing() -> None:
    resp = CODEC.decode_response(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1, 2]}}]},
                    "finishReason": "MALFORMED_FUNCTION_CALL",
                }
            ],
            "responseId": "m",
        }
    )
    call = resp.tool_calls[0]
    assert call.arguments is None and not call.is_valid and "object" in (call.invalid or "")
    assert (resp.stop_reason, resp.vendor_stop_reason) == ("error", "MALFORMED_FUNCTION_CALL")


def test_mixed_history_drops_foreign_reasoning_keeps_gemini_reasoning() -> None:
    gem_call = ToolCall("gemini-r-0", "f", {}, id_synthesized=True, provider_data={"gemini": {"thoughtSignature": SIG}})
    history = [
        Message.user("q"),
        Message("assistant", [ReasoningPart("t", signature="x", provider="gemini"), gem_call], {"gemini": {}}),
        Message("user", [ToolResult("gemini-r-0", "ok", name="f")]),
        Message("assistant", [ReasoningPart("other", encrypted="e", provider="openai"), TextPart("done")]),
    ]
    body = CODEC.encode_request(ModelRequest(model="gemini-2.5-pro", messages=history))
    assert body["contents"][1]["parts"] == [
        {"text": "t", "thought": True, "thoughtSignature": "x"},
        {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": SIG},
    ]
    assert body["contents"][3] == {"role": "model", "parts": [{"text": "done"}]}


# --- usage reports written in proto3 JSON leave zero counters out ------------------------------


def test_missing_candidates_count_in_a_complete_report_is_zero() -> None:
    # gemini-2.5-pro with maxOutputTokens=5 spent the budget on thoughts: no parts, no candidatesTokenCount
    body = {
        "candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}],
        "modelVersion": "gemini-2.5-pro",
        "usageMetadata": {
            "promptTokenCount": 15,
            "thoughtsTokenCount": 2,
            "totalTokenCount": 17,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 15}],
        },
    }
    resp = CODEC.decode_response(body)
    assert (resp.stop_reason, resp.vendor_stop_reason, resp.parts) == ("max_tokens", "MAX_TOKENS", [])
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens) == (
        15,
        2,
        2,
        None,
    )  # thoughts are output


def test_stream_final_report_without_candidates_count_overrides_to_zero() -> None:
    # thought-only chunks, then the answer chunk; the last usageMetadata has no candidatesTokenCount
    chunks = [
        {
            "candidates": [
                {"content": {"parts": [{"text": "**Plan**", "thought": True}], "role": "model"}, "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 30, "totalTokenCount": 97, "thoughtsTokenCount": 67},
        },
        {
            "candidates": [
                {"content": {"parts": [{"text": "3"}], "role": "model"}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 30, "totalTokenCount": 2485, "thoughtsTokenCount": 2455},
        },
    ]
    resp = assemble(CODEC.decode_stream(chunks, ModelRequest("gemini-2.5-flash", [Message.user("q")], stream=True)))
    assert resp.text == "3"
    assert (resp.usage.input_tokens, resp.usage.output_tokens, resp.usage.reasoning_tokens) == (
        30,
        2455,
        2455,
    )  # thoughts are output


def test_partial_report_without_total_keeps_missing_counters_unknown() -> None:
    body = {
        "candidates": [{"content": {"parts": [{"text": "hi"}], "role": "model"}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 7},
    }
    u = CODEC.decode_response(body).usage
    assert (u.input_tokens, u.output_tokens) == (7, None)
