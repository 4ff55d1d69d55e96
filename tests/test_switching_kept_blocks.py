"""Switching provider with blocks toolwire has no canonical part for: a vendor's answer may hold
content toolwire keeps whole for that vendor only (an Anthropic ``container_upload`` or
``compaction`` block, a block type newer than toolwire; a Gemini model image with its thought
signature, an image given as a file; a Responses ``image_generation_call`` or an item
type newer than toolwire). Continued on another API, such a block cannot be sent: it is left out
and said so on the request's report, one lossy ``provider-tool.dropped`` change per block at its
place in the conversation, never dropped without a word. Continued on the API that produced it
(after a detour too, and from a saved conversation), it goes back byte for byte.

The answers are run through the real SDKs (``httpx2.MockTransport``), whole and streamed; the
requests are read as the SDKs sent them.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import toolwire
from toolwire import registry
from toolwire.types import Conversation, DocumentPart, ProviderToolPart

from .all_apis.answers import APIS, text_answer
from .provider_tools.test_server_parts import STREAMERS, anthropic_message, gemini_response, openai_response

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

PNG = base64.b64encode(
    base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
).decode()

#: Blocks of each API's answer that toolwire keeps whole for that API (after the answer's text).
#: anthropic.types.beta: BetaContainerUploadBlock {file_id, type}, BetaCompactionBlock {content,
#: encrypted_content, type, signature}; a block type newer than the SDK.
#: google.genai.types.Part: inline_data (Blob) with thought_signature (an image model's output,
#: https://ai.google.dev/gemini-api/docs/thought-signatures: image parts carry signatures), and
#: file_data (FileData: mime_type, file_uri).
#: openai.types.responses.ResponseOutputItem.ImageGenerationCall {id, result, status, type}; an
#: item type newer than the SDK.
KEPT: dict[str, list[dict[str, Any]]] = {
    "anthropic": [
        {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
        {
            "type": "compaction",
            "content": "Summary: the user asked for the weather in Paris.",
            "encrypted_content": "ZW5jcnlwdGVkLWNvbXBhY3Rpb24=",
        },
        {"type": "fresh_block_type", "payload": {"marker": "ANTHROPIC-NEW-BLOCK"}},
    ],
    "gemini": [
        {"inlineData": {"mimeType": "image/png", "data": PNG}, "thoughtSignature": "R0VNSU5JLUlNQUdFLVNJRw=="},
        {
            "fileData": {
                "mimeType": "image/png",
                "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/GEMINI-FILE",
            }
        },
    ],
    "openai": [
        {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": PNG},
        {"type": "fresh_item_type", "id": "fi_1", "payload": {"marker": "OPENAI-NEW-ITEM"}},
    ],
}
SOURCES = list(KEPT)
MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai-chat": "openai-chat:gpt-4.1",
    "openai": "openai:gpt-4.1",
    "gemini": "gemini:gemini-2.5-flash-image",
}


def answer_with_kept_blocks(api: str) -> dict[str, Any]:
    """``api``'s answer: the text "Here it is." and then the blocks of :data:`KEPT`."""
    if api == "anthropic":
        return anthropic_message([{"type": "text", "text": "Here it is."}, *KEPT[api]])
    if api == "gemini":
        return gemini_response([{"text": "Here it is."}, *KEPT[api]])
    message = {
        "type": "message",
        "id": "msg_k",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Here it is.", "annotations": []}],
    }
    return openai_response([message, *KEPT[api]])


def make_model(api: str, answers: list[dict[str, Any]], sent: list[dict[str, Any]], stream: bool = False) -> Any:
    queue = list(answers)

    def respond(request: Any) -> Any:
        sent.append(json.loads(request.content))
        body = queue.pop(0)
        if stream:
            return httpx2.Response(200, content=STREAMERS[api](body), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    return toolwire.model(MODELS[api], api_key="k", max_retries=0, http_client=client, stream=stream)


def first_run(api: str, stream: bool) -> toolwire.RunResult:
    sent: list[dict[str, Any]] = []
    return toolwire.run_sync(make_model(api, [answer_with_kept_blocks(api)], sent, stream), "Make it.")


def dropped(result: toolwire.RunResult) -> list[tuple[str, str, bool]]:
    report = result.turns[0].response.preflight
    return [(c.rule, c.pointer, c.lossy) for c in (report or []) if c.rule == "provider-tool.dropped"]


SWITCHES = [(s, t) for s in SOURCES for t in APIS if s != t]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("source,target", SWITCHES, ids=[f"{s}->{t}" for s, t in SWITCHES])
def test_a_kept_block_left_out_on_another_api_is_reported(source: str, target: str, stream: bool) -> None:
    first = first_run(source, stream)
    answer = first.conversation.messages[1]
    kept = [(j, p) for j, p in enumerate(answer.parts) if isinstance(p, ProviderToolPart)]
    # each block toolwire has no canonical form for is a part of its own, kept whole for its API
    assert [p.raw for _, p in kept] == KEPT[source]
    assert all(p.provider == source and p.kind == "result" for _, p in kept)
    sent: list[dict[str, Any]] = []
    result = toolwire.run_sync(
        make_model(target, [text_answer(target, "ok")], sent), "next", conversation=first.conversation
    )
    assert result.text == "ok"
    (body,) = sent
    text = json.dumps(body)
    assert "Here it is." in text
    for marker in (
        "file_011CNha8iCJcU1wXNR6q4V8w",
        "ZW5jcnlwdGVkLWNvbXBhY3Rpb24=",
        "NEW-BLOCK",
        "GEMINI-FILE",
        "NEW-ITEM",
    ):
        assert marker not in text
    assert PNG[:40] not in text and "R0VNSU5JLUlNQUdFLVNJRw==" not in text
    # said, once per block, where the block is
    assert dropped(result) == [("provider-tool.dropped", f"/messages/1/parts/{j}", True) for j, _ in kept]
    changes = [c for c in result.turns[0].response.preflight if c.rule == "provider-tool.dropped"]
    assert all(source in c.detail and "left out" in c.detail for c in changes)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("source,detour", SWITCHES, ids=[f"{s}->{t}->{s}" for s, t in SWITCHES])
def test_a_kept_block_goes_back_to_its_api_after_a_detour_and_a_save(source: str, detour: str, stream: bool) -> None:
    first = first_run(source, stream)
    sent: list[dict[str, Any]] = []
    away = toolwire.run_sync(
        make_model(detour, [text_answer(detour, "ok")], sent), "next", conversation=first.conversation
    )
    conversation = Conversation.from_json(away.conversation.to_json())
    back_sent: list[dict[str, Any]] = []
    back = toolwire.run_sync(
        make_model(source, [answer_with_kept_blocks(source)], back_sent), "again", conversation=conversation
    )
    assert back.text == "Here it is."
    (body,) = back_sent
    # the answer as the vendor sent it, its kept blocks byte for byte after its text
    if source == "anthropic":
        assert body["messages"][1]["content"] == [{"type": "text", "text": "Here it is."}, *KEPT[source]]
    elif source == "gemini":
        assert body["contents"][1]["parts"] == [{"text": "Here it is."}, *KEPT[source]]
    else:
        assert body["input"][2:4] == KEPT[source]
    for raw in KEPT[source]:
        assert json.dumps(raw) in json.dumps(body)
    assert dropped(back) == []


def test_an_imported_anthropic_document_reaches_another_api() -> None:
    # a user message with a PDF document block (anthropic.types.DocumentBlockParam, base64 source)
    # imported from an Anthropic request body, then continued on each other API: the PDF is a
    # DocumentPart, sent on each (it was left out, reported, before documents had a part); a
    # document by URL has no canonical form and is still left out and reported
    pdf = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}
    by_url = {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": [document, by_url, {"type": "text", "text": "Summarise it."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "It is empty."}]},
        ],
    }
    imported = registry.codec("anthropic").decode_request(body)
    conversation = Conversation(imported.messages)
    assert conversation.messages[0].parts[0] == DocumentPart(b"%PDF-1.4\n%%EOF\n", "application/pdf")
    assert conversation.messages[0].parts[1] == ProviderToolPart("anthropic", "document", by_url, summary="url")
    for target in ("openai-chat", "openai", "gemini"):
        sent: list[dict[str, Any]] = []
        result = toolwire.run_sync(
            make_model(target, [text_answer(target, "ok")], sent), "next", conversation=conversation
        )
        assert pdf in json.dumps(sent[0]) and "Summarise it." in json.dumps(sent[0])
        assert "example.com" not in json.dumps(sent[0])
        assert dropped(result) == [("provider-tool.dropped", "/messages/0/parts/1", True)]
    # and back to Anthropic as it came
    sent = []
    toolwire.run_sync(
        make_model("anthropic", [text_answer("anthropic", "ok")], sent), "next", conversation=conversation
    )
    assert sent[0]["messages"][0]["content"] == [document, by_url, {"type": "text", "text": "Summarise it."}]


def test_an_imported_responses_item_without_a_canonical_form_left_out_on_another_api_is_reported() -> None:
    # an item_reference (openai.types.responses.response_input_item_param.ItemReference) and a
    # user message holding a PDF by file id (ResponseInputFileParam) in an imported Responses
    # input, then the conversation continued on each other API (a PDF given inline is a
    # DocumentPart, which every API takes: tests/all_apis/test_tool_documents.py)
    reference = {"type": "item_reference", "id": "msg_earlier"}
    pdf = {"type": "input_file", "file_id": "file-JVBERi0xLjQK"}
    body = {
        "model": "gpt-4.1",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Hello"}, pdf]},
            reference,
            {"role": "user", "content": "And now?"},
        ],
    }
    codec = registry.codec("openai")
    imported = codec.decode_request(json.loads(json.dumps(body)))
    assert codec.encode_request(imported)["input"] == body["input"]  # back to Responses as it came
    conversation = Conversation(imported.messages)
    for target in ("anthropic", "openai-chat", "gemini"):
        sent: list[dict[str, Any]] = []
        result = toolwire.run_sync(make_model(target, [text_answer(target, "ok")], sent), conversation=conversation)
        assert "msg_earlier" not in json.dumps(sent[0]) and "JVBERi0xLjQK" not in json.dumps(sent[0])
        assert "Hello" in json.dumps(sent[0])
        assert dropped(result) == [
            ("provider-tool.dropped", "/messages/0/parts/1", True),
            ("provider-tool.dropped", "/messages/1/parts/0", True),
        ]
    sent = []
    toolwire.run_sync(make_model("openai", [text_answer("openai", "ok")], sent), conversation=conversation)
    assert sent[0]["input"][:3] == body["input"]


def test_an_imported_chat_history_keeps_its_refusals_as_text_and_reports_its_file_parts() -> None:
    # an imported Chat request: a refusal as the message's refusal field and as a content part
    # (ChatCompletionAssistantMessageParam.refusal, ChatCompletionContentPartRefusalParam), a user
    # message with a file and an audio part (ChatCompletionContentPartParam: File, InputAudio)
    file_part = {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}}
    audio_part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "Q1"},
            {"role": "assistant", "content": None, "refusal": "I cannot do that."},
            {"role": "user", "content": "Q2"},
            {"role": "assistant", "content": [{"type": "refusal", "refusal": "Nor that."}]},
            {"role": "user", "content": [{"type": "text", "text": "Summarise."}, file_part, audio_part]},
        ],
    }
    codec = registry.codec("openai-chat")
    imported = codec.decode_request(json.loads(json.dumps(body)))
    assert codec.encode_request(imported)["messages"] == body["messages"]  # back to Chat as it came
    conversation = Conversation(imported.messages)
    for target in ("anthropic", "openai", "gemini"):
        sent: list[dict[str, Any]] = []
        result = toolwire.run_sync(make_model(target, [text_answer(target, "ok")], sent), conversation=conversation)
        text = json.dumps(sent[0])
        # what the model said is text on every API; the PDF (a DocumentPart) is sent on every API,
        # the audio part no other API takes is reported
        assert "I cannot do that." in text and "Nor that." in text
        assert "JVBERi0xLjQK" in text and "UklGRg==" not in text
        assert dropped(result) == [("provider-tool.dropped", "/messages/4/parts/2", True)]
