"""Server-side provider-tool results as canonical parts (``toolwire.ProviderToolPart``), per vendor:

- decoded from the response (whole and streamed, through the real SDKs over ``httpx2.MockTransport``),
  kept in the conversation and in a saved run, and sent back byte for byte to the same vendor;
- left out of another vendor's request, with one lossy ``provider-tool.dropped`` entry per part in
  the request's preflight report.

Every fixture is written from the vendor SDK's own types and validated against them here
(``anthropic.types.Message``, ``openai.types.responses.Response``,
``google.genai.types.GenerateContentResponse``), so a fixture the vendor could not send fails.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire import ProviderTool, ProviderToolPart
from toolwire.types import Conversation, Message, TextPart

# -- fixtures in each vendor's wire format ------------------------------------------------------------------------------

#: anthropic.types: ServerToolUseBlock, CodeExecutionToolResultBlock (content CodeExecutionResultBlock),
#: WebFetchToolResultBlock (content WebFetchBlock with a DocumentBlock), TextBlock.
ANTHROPIC_CONTENT = [
    {"type": "server_tool_use", "id": "srvtoolu_A", "name": "code_execution", "input": {"code": "print(6 * 7)"}},
    {
        "type": "code_execution_tool_result",
        "tool_use_id": "srvtoolu_A",
        "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "", "return_code": 0, "content": []},
    },
    {"type": "server_tool_use", "id": "srvtoolu_B", "name": "web_fetch", "input": {"url": "https://example.org/a"}},
    {
        "type": "web_fetch_tool_result",
        "tool_use_id": "srvtoolu_B",
        "content": {
            "type": "web_fetch_result",
            "url": "https://example.org/a",
            "retrieved_at": "2026-11-30T10:00:00Z",
            "content": {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "A page."},
                "title": "A",
                "citations": None,
            },
        },
    },
    {"type": "text", "text": "It prints 42.", "citations": None},
]


def anthropic_message(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "msg_pt",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 20,
            "output_tokens": 9,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 1},
        },
    }


#: openai.types.responses: ResponseFunctionWebSearch, ResponseCodeInterpreterToolCall (outputs: logs),
#: ResponseFileSearchToolCall (results: Result), ResponseOutputMessage.
OPENAI_OUTPUT = [
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "toolwire release"},
    },
    {
        "type": "code_interpreter_call",
        "id": "ci_1",
        "status": "completed",
        "code": "print(6 * 7)",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "42\n"}],
    },
    {
        "type": "file_search_call",
        "id": "fs_1",
        "status": "completed",
        "queries": ["release notes"],
        "results": [{"file_id": "file_1", "filename": "notes.md", "score": 0.9, "text": "v1 is out"}],
    },
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It prints 42.", "annotations": []}],
    },
]


def openai_response(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_pt",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4.1",
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 20,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 9,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 29,
        },
    }


#: google.genai.types: Part.executable_code (ExecutableCode), Part.code_execution_result
#: (CodeExecutionResult), Candidate.grounding_metadata (GroundingMetadata: web_search_queries,
#: grounding_chunks[].web), Candidate.url_context_metadata (UrlContextMetadata.url_metadata).
GEMINI_PARTS = [
    {"executableCode": {"language": "PYTHON", "code": "print(6 * 7)"}},
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}},
    {"text": "It prints 42."},
]
GEMINI_GROUNDING = {
    "webSearchQueries": ["toolwire release"],
    "groundingChunks": [{"web": {"uri": "https://example.org/r", "title": "example.org"}}],
}
GEMINI_URL_CONTEXT = {
    "urlMetadata": [{"retrievedUrl": "https://example.org/a", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}]
}


def gemini_response(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0, **candidate}],
        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 9, "totalTokenCount": 29},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r_pt",
    }


def test_the_fixtures_are_valid_vendor_responses() -> None:
    import anthropic.types as at
    import google.genai.types as gt
    import openai.types.responses as ot

    m = at.Message.model_validate(anthropic_message(ANTHROPIC_CONTENT))
    assert [type(b).__name__ for b in m.content] == [
        "ServerToolUseBlock",
        "CodeExecutionToolResultBlock",
        "ServerToolUseBlock",
        "WebFetchToolResultBlock",
        "TextBlock",
    ]
    r = ot.Response.model_validate(openai_response(OPENAI_OUTPUT))
    assert [type(i).__name__ for i in r.output] == [
        "ResponseFunctionWebSearch",
        "ResponseCodeInterpreterToolCall",
        "ResponseFileSearchToolCall",
        "ResponseOutputMessage",
    ]
    g = gt.GenerateContentResponse.model_validate(
        gemini_response(GEMINI_PARTS, groundingMetadata=GEMINI_GROUNDING, urlContextMetadata=GEMINI_URL_CONTEXT)
    )
    cand = g.candidates[0]
    assert cand.content.parts[0].executable_code.code == "print(6 * 7)"
    assert cand.content.parts[1].code_execution_result.output == "42\n"
    assert cand.grounding_metadata.grounding_chunks[0].web.uri == "https://example.org/r"
    assert cand.url_context_metadata.url_metadata[0].retrieved_url == "https://example.org/a"


# -- models over a mock transport, whole or streamed -------------------------------------------------------------------


def sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    out = []
    for e in events:
        head = f"event: {e['type']}\n" if named and "type" in e else ""
        out.append(f"{head}data: {json.dumps(e)}\n\n")
    return "".join(out).encode()


def anthropic_stream(message: dict[str, Any]) -> bytes:
    start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 20, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(message["content"]):
        if block["type"] == "server_tool_use":  # the input arrives as input_json_delta fragments
            events.append({"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}})
            text = json.dumps(block["input"])
            for j in range(0, len(text), 5):
                delta = {"type": "input_json_delta", "partial_json": text[j : j + 5]}
                events.append({"type": "content_block_delta", "index": i, "delta": delta})
        elif block["type"] == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            delta = {"type": "text_delta", "text": block["text"]}
            events.append({"type": "content_block_delta", "index": i, "delta": delta})
        else:  # server tool results arrive whole at content_block_start
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return sse(events)


def openai_stream(resp: dict[str, Any]) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**resp, "status": "in_progress", "output": []}}
    ]
    for i, item in enumerate(resp["output"]):
        added = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []
        events.append({"type": "response.output_item.added", "output_index": i, "item": added})
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append({"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": text})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": resp})
    for n, e in enumerate(events):
        e["sequence_number"] = n
    return sse(events)


def gemini_stream(body: dict[str, Any]) -> bytes:
    """The parts one chunk each; the grounding metadata and usage in the last chunk (as the API streams)."""
    cand = body["candidates"][0]
    chunks = []
    parts = cand["content"]["parts"]
    for k, part in enumerate(parts):
        c: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if k == len(parts) - 1:
            c.update({key: v for key, v in cand.items() if key not in ("content", "index")})
        chunk = {"candidates": [c], "modelVersion": body["modelVersion"], "responseId": body["responseId"]}
        if k == len(parts) - 1:
            chunk["usageMetadata"] = body["usageMetadata"]
        chunks.append(chunk)
    return sse(chunks, named=False)


STREAMERS = {"anthropic": anthropic_stream, "openai": openai_stream, "gemini": gemini_stream}
SPECS = {"anthropic": "anthropic:claude-sonnet-4-5", "openai": "openai:gpt-4.1", "gemini": "gemini:gemini-2.5-flash"}
KEYS = {"anthropic": "sk-ant-test", "openai": "sk-test", "gemini": "gemini-test-key"}


URLS: list[str] = []


def make_model(provider: str, answers: list[dict[str, Any]], *, stream: bool = False) -> tuple[Any, list[Any]]:
    sent: list[Any] = []
    queue = list(answers)

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        URLS.append(str(request.url))
        body = queue.pop(0)
        if stream:
            return httpx2.Response(
                200, content=STREAMERS[provider](body), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=body)

    model = toolwire.model(
        SPECS[provider],
        api_key=KEYS[provider],
        max_retries=0,
        stream=stream,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


FIRST = {
    "anthropic": anthropic_message(ANTHROPIC_CONTENT),
    "openai": openai_response(OPENAI_OUTPUT),
    "gemini": gemini_response(GEMINI_PARTS, groundingMetadata=GEMINI_GROUNDING, urlContextMetadata=GEMINI_URL_CONTEXT),
}
SECOND = {
    "anthropic": anthropic_message([{"type": "text", "text": "ok"}]),
    "openai": openai_response(
        [{**OPENAI_OUTPUT[3], "content": [{"type": "output_text", "text": "ok", "annotations": []}]}]
    ),
    "gemini": gemini_response([{"text": "ok"}]),
}
TOOLS = {
    "anthropic": [
        ProviderTool("anthropic", "code_execution_20250825"),
        ProviderTool("anthropic", "web_fetch_20250910"),
    ],
    "openai": [
        ProviderTool("openai", "web_search"),
        ProviderTool("openai", "code_interpreter", {"container": {"type": "auto"}}),
        ProviderTool("openai", "file_search", {"vector_store_ids": ["vs_1"]}),
    ],
    "gemini": [
        ProviderTool("gemini", "codeExecution"),
        ProviderTool("gemini", "googleSearch"),
        ProviderTool("gemini", "urlContext"),
    ],
}

#: What each vendor's first answer decodes to: (vendor_type, kind, name, call_id, summary).
EXPECTED_PARTS = {
    "anthropic": [
        ("server_tool_use", "call", "code_execution", "srvtoolu_A", 'code_execution {"code": "print(6 * 7)"}'),
        ("code_execution_tool_result", "result", "code_execution", "srvtoolu_A", "return code 0; stdout: 42"),
        ("server_tool_use", "call", "web_fetch", "srvtoolu_B", 'web_fetch {"url": "https://example.org/a"}'),
        ("web_fetch_tool_result", "result", "web_fetch", "srvtoolu_B", "https://example.org/a"),
    ],
    "openai": [
        ("web_search_call", "result", "web_search", "ws_1", "search toolwire release (completed)"),
        ("code_interpreter_call", "result", "code_interpreter", "ci_1", "print(6 * 7) - logs: 42 (completed)"),
        ("file_search_call", "result", "file_search", "fs_1", "release notes - 1 result (completed)"),
    ],
    "gemini": [
        ("executableCode", "call", "codeExecution", None, "PYTHON: print(6 * 7)"),
        ("codeExecutionResult", "result", "codeExecution", None, "OUTCOME_OK: 42"),
        (
            "groundingMetadata",
            "metadata",
            "googleSearch",
            None,
            "searched: toolwire release - 1 source: example.org <https://example.org/r>",
        ),
        (
            "urlContextMetadata",
            "metadata",
            "urlContext",
            None,
            "https://example.org/a URL_RETRIEVAL_STATUS_SUCCESS",
        ),
    ],
}


def sent_history(provider: str, body: dict[str, Any]) -> Any:
    """The first answer as the second request carries it back."""
    if provider == "anthropic":
        return body["messages"][1]["content"]
    if provider == "openai":
        return body["input"][1:5]
    return body["contents"][1]["parts"]


#: The first answer as the vendor takes it back: everything it sent, in its order (Gemini's
#: grounding and URL-context metadata are Candidate fields, not Content parts: nothing to send).
WANT_BACK = {
    "anthropic": [
        *ANTHROPIC_CONTENT[:4],
        {"type": "text", "text": "It prints 42."},  # citations: null is not sent (an absent field)
    ],
    "openai": OPENAI_OUTPUT,
    "gemini": GEMINI_PARTS,
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_round_trip_declare_decode_send_back_unchanged(provider: str, stream: bool) -> None:
    model, sent = make_model(provider, [FIRST[provider], SECOND[provider]], stream=stream)
    result = toolwire.run_sync(model, "What does print(6 * 7) print?", tools=TOOLS[provider])
    streamed = ("alt=sse" in URLS[-1]) if provider == "gemini" else sent[0].get("stream") is True
    assert streamed is stream  # the SDK asked for the stream (or not) and decoded what came back
    # the loop's first turn: text, and the server-side parts decoded, none of them run as a tool call
    first = result.turns[0].response
    assert first.text == "It prints 42." and first.tool_calls == [] and result.tool_runs == []
    got = [(p.vendor_type, p.kind, p.name, p.call_id, p.summary) for p in first.provider_tool_parts]
    assert got == EXPECTED_PARTS[provider]
    assert all(p.provider == provider for p in first.provider_tool_parts)
    # raw is the vendor's block exactly
    raws = [p.raw for p in first.provider_tool_parts if p.kind != "metadata"]
    want_raw = {"anthropic": ANTHROPIC_CONTENT[:4], "openai": OPENAI_OUTPUT[:3], "gemini": GEMINI_PARTS[:2]}
    assert raws == want_raw[provider]
    # kept in the conversation and in a saved run
    conv = Conversation.from_json(result.conversation.to_json())
    assert conv.messages[1].provider_tool_parts == first.provider_tool_parts
    # sent back byte for byte, at their place, when the conversation continues with the same vendor
    again = toolwire.run_sync(model, "Thanks", conversation=conv, tools=TOOLS[provider])
    assert again.text == "ok"
    assert sent_history(provider, sent[1]) == WANT_BACK[provider]
    # the server blocks byte for byte: same keys, same order, same values as the vendor sent them
    for raw in want_raw[provider]:
        assert json.dumps(raw) in json.dumps(sent[1])
    assert len(model.last_preflight) == 0  # nothing dropped, nothing repaired


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_run_stream_carries_the_same_parts_as_a_whole_response(provider: str) -> None:
    whole, _ = make_model(provider, [FIRST[provider]])
    a = toolwire.run_sync(whole, "q", tools=TOOLS[provider]).conversation.messages[1]
    streamed, _ = make_model(provider, [FIRST[provider]], stream=True)
    run = toolwire.run_stream_sync(streamed, "q", tools=TOOLS[provider])
    events = list(run)
    assert run.result is not None and events
    b = run.result.conversation.messages[1]
    assert b.provider_tool_parts == a.provider_tool_parts and len(a.provider_tool_parts) >= 3
    assert [type(p).__name__ for p in b.parts] == [type(p).__name__ for p in a.parts]
    assert run.state.conversation.messages[1].provider_tool_parts == a.provider_tool_parts


# -- a provider switch: left out, with a report -----------------------------------------------------------------------


def history_from(provider: str) -> list[Message]:
    model, _ = make_model(provider, [FIRST[provider]])
    result = toolwire.run_sync(model, "What does print(6 * 7) print?", tools=TOOLS[provider])
    return [*result.conversation.messages, Message.user("And 6 * 8?")]


def wire_text(body: dict[str, Any]) -> str:
    return json.dumps(body)


@pytest.mark.parametrize(
    "source,target",
    [
        (s, t)
        for s in ("anthropic", "openai", "gemini")
        for t in ("anthropic", "openai", "openai-chat", "gemini")
        if s != t
    ],
)
def test_a_provider_switch_leaves_the_parts_out_and_reports_each(source: str, target: str) -> None:
    history = history_from(source)
    answers = {
        "anthropic": SECOND["anthropic"],
        "openai": SECOND["openai"],
        "gemini": SECOND["gemini"],
        "openai-chat": {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        },
    }
    sent: list[Any] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=answers[target])

    spec = {**SPECS, "openai-chat": "openai-chat:gpt-4.1"}[target]
    model = toolwire.model(
        spec,
        api_key=KEYS.get(target, "sk-test"),
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    result = toolwire.run_sync(model, conversation=Conversation(history))
    assert result.text == "ok"
    body = wire_text(sent[0])
    # none of the source's server blocks reached the other vendor; the model's text did
    for marker in ("srvtoolu_A", "ws_1", "ci_1", "fs_1", "executableCode", "codeExecutionResult"):
        assert marker not in body
    assert "It prints 42." in body
    report = result.turns[0].response.preflight
    dropped = [c for c in report if c.rule == "provider-tool.dropped"]
    parts = [p for p in history[1].parts if isinstance(p, ProviderToolPart) and p.kind != "metadata"]
    assert len(dropped) == len(parts) > 0 and all(c.lossy for c in dropped)
    positions = [j for j, p in enumerate(history[1].parts) if p in parts]
    assert [c.pointer for c in dropped] == [f"/messages/1/parts/{j}" for j in positions]
    assert [c.call_id for c in dropped] == [p.call_id for p in parts]
    assert all(source in c.detail and "left out" in c.detail for c in dropped)


def test_a_saved_part_reloads_and_old_positional_blocks_still_replay() -> None:
    part = ProviderToolPart(
        "anthropic", "web_search_tool_result", {"type": "web_search_tool_result"}, name="web_search"
    )
    again = Message.from_dict(Message("assistant", [part, TextPart("x")]).to_dict())
    assert again.parts[0] == part and again.provider_tool_parts == [part]
    # a conversation saved before these parts existed kept server blocks positionally: still sent back
    old = {
        "role": "assistant",
        "parts": [{"type": "text", "text": "done"}],
        "provider_data": {"anthropic": {"blocks": [{"position": 0, "block": copy.deepcopy(ANTHROPIC_CONTENT[0])}]}},
    }
    model, sent = make_model("anthropic", [SECOND["anthropic"]])
    asyncio.run(model.send(model.build_request([Message.user("q"), Message.from_dict(old), Message.user("more")])))
    assert sent[0]["messages"][1]["content"] == [ANTHROPIC_CONTENT[0], {"type": "text", "text": "done"}]


def test_anthropic_pause_turn_with_a_server_tool_continues_with_the_block_sent_back() -> None:
    """A long server-tool turn may stop with ``pause_turn`` (anthropic.types.StopReason); the loop
    sends the paused content back as the last assistant message and the API continues it."""
    paused = {**anthropic_message(ANTHROPIC_CONTENT[:1]), "stop_reason": "pause_turn"}
    rest = anthropic_message(ANTHROPIC_CONTENT[1:2] + [{"type": "text", "text": "It prints 42."}])
    model, sent = make_model("anthropic", [paused, rest])
    result = toolwire.run_sync(model, "What does print(6 * 7) print?", tools=TOOLS["anthropic"])
    assert result.text == "It prints 42." and len(sent) == 2
    assert sent[1]["messages"][-1] == {"role": "assistant", "content": [ANTHROPIC_CONTENT[0]]}
    kinds = [(p.kind, p.call_id) for m in result.conversation.messages for p in m.provider_tool_parts]
    assert kinds == [("call", "srvtoolu_A"), ("result", "srvtoolu_A")]


@pytest.mark.parametrize(
    "part, says",
    [
        ({"raw": "garbage"}, "raw must be a JSON object"),
        ({"raw": [1, 2]}, "raw must be a JSON object"),
        ({"raw": {}, "kind": "bogus"}, "kind must be"),
        ({"provider": None}, "provider must be"),
    ],
)
def test_adv5_a_malformed_provider_tool_part_in_a_history_is_refused(part, says):
    from toolwire.errors import ConfigurationError
    from toolwire.types import Conversation

    d = {"type": "provider_tool", "provider": "anthropic", "vendor_type": "x", "raw": {}} | part
    history = {"messages": [{"role": "assistant", "parts": [d]}]}
    with pytest.raises(ConfigurationError, match=says):
        Conversation.from_dict(history)


@pytest.mark.parametrize("missing", ["provider", "vendor_type", "raw"])
def test_adv5_a_provider_tool_part_missing_a_field_names_it(missing):
    from toolwire.errors import ConfigurationError
    from toolwire.types import ProviderToolPart

    d = {"type": "provider_tool", "provider": "anthropic", "vendor_type": "x", "raw": {}}
    del d[missing]
    with pytest.raises(ConfigurationError, match=f"has no '{missing}'"):
        ProviderToolPart.from_dict(d)


# -- run events: ProviderToolCalled / ProviderToolResult --------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_provider_tool_parts_are_run_events_before_the_response(provider: str, stream: bool) -> None:
    from toolwire import events as ev

    model, _ = make_model(provider, [FIRST[provider]], stream=stream)
    run = toolwire.run_stream_sync(model, "q", tools=TOOLS[provider])
    seen = list(run)
    got = [
        (type(e).__name__, e.turn, e.part.vendor_type, e.part.kind, e.part.name)
        for e in seen
        if isinstance(e, (ev.ProviderToolCalled, ev.ProviderToolResult))
    ]
    # the independent expectation: kind "call" → ProviderToolCalled, everything else → ProviderToolResult
    want = [
        ("ProviderToolCalled" if kind == "call" else "ProviderToolResult", 1, vtype, kind, name)
        for vtype, kind, name, _cid, _summary in EXPECTED_PARTS[provider]
    ]
    assert got == want
    # every one of them before the turn's ResponseFinished, and the same parts the response holds
    finished = next(i for i, e in enumerate(seen) if isinstance(e, ev.ResponseFinished))
    tool_events = [e for e in seen if isinstance(e, (ev.ProviderToolCalled, ev.ProviderToolResult))]
    assert all(seen.index(e) < finished for e in tool_events)
    assert [e.part for e in tool_events] == seen[finished].response.provider_tool_parts
    # the index is the part's position in the response
    parts = seen[finished].response.parts
    if not stream:
        assert [parts[e.index] for e in tool_events] == [e.part for e in tool_events]


def test_provider_tool_events_are_turn_span_events() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import toolwire.tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model, _ = make_model("anthropic", [FIRST["anthropic"]])
    toolwire.run_sync(model, "q", tools=TOOLS["anthropic"], tracing=toolwire.tracing.Tracing(provider))
    chat = [s for s in exporter.get_finished_spans() if s.name.startswith("chat ")]
    assert len(chat) == 1
    got = [(e.name, dict(e.attributes or {})) for e in chat[0].events]
    assert got == [
        (
            "toolwire.provider_tool",
            {
                "gen_ai.tool.name": name,
                "gen_ai.tool.type": "extension",
                "toolwire.provider_tool.type": vtype,
                "toolwire.provider_tool.kind": kind,
                "gen_ai.tool.call.id": cid,
            },
        )
        for vtype, kind, name, cid, _summary in EXPECTED_PARTS["anthropic"]
    ]


def test_toolwire_run_shows_provider_tools_on_its_status_line_and_one_line_per_result() -> None:
    import io

    from rich.console import Console

    from toolwire import events as ev
    from toolwire.cli.run_cmd import LiveView

    out = io.StringIO()
    view = LiveView(Console(file=out, force_terminal=False, width=200))
    shown: list[str | None] = []
    view.set_status = shown.append  # type: ignore[method-assign]
    call = ProviderToolPart("anthropic", "server_tool_use", {"type": "server_tool_use"}, "call", "web_search", "s1")
    done = ProviderToolPart(
        "anthropic", "web_search_tool_result", {"type": "x"}, "result", "web_search", "s1", "2 results: a.org"
    )
    view.handle(ev.ProviderToolCalled(turn=1, index=0, part=call))
    view.handle(ev.ProviderToolResult(turn=1, index=1, part=done))
    assert shown == ["anthropic runs web_search", "waiting for the model"]
    assert out.getvalue() == "  anthropic tool web_search → 2 results: a.org\n"
