"""A document (a PDF, plain text) a tool returns reaches the model on every API: Anthropic as a
``document`` block inside the ``tool_result``, Responses as an ``input_file`` part of the
``function_call_output``, Chat (whose tool messages are text only) as a ``file`` part of the user
message after the tool messages, Gemini as an ``inlineData`` part after the function responses.
Before, a tool could not return a document at all (``DocumentPart`` did not exist; an MCP PDF
resource became a line saying it was left out), and an imported Anthropic ``document`` in a
``tool_result`` or a Responses ``input_file`` in a ``function_call_output`` was dropped without a
word when the conversation went to another API."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire import DocumentPart, Message, TextPart
from toolwire.types import ToolResult

from .answers import APIS, text_answer
from .test_tool_images import call_answer
from .test_turns import make_model

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
PDF_B64 = base64.b64encode(PDF).decode()


def _call(api: str, name: str) -> dict[str, Any]:
    """A finished answer of ``api`` calling tool ``name`` with no arguments."""
    return json.loads(json.dumps(call_answer(api)).replace('"chart"', json.dumps(name)))


def _validate(api: str, body: dict[str, Any]) -> list[Any]:
    """The independent validator's findings for ``body`` (tests/vendor_rules: no toolwire code)."""
    tests = str(Path(__file__).resolve().parents[1])
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from vendor_rules.validator import validate

    return validate(api, body)


@toolwire.tool
def report() -> list:
    """Fetch the quarterly report."""
    return [TextPart("the report:"), DocumentPart(PDF, "application/pdf", filename="q3.pdf")]


def _pdf_places(api: str, body: dict[str, Any]) -> list[Any]:
    """Where the PDF sits in a request body of ``api``, as the wire block holding it."""
    if api == "anthropic":
        (result,) = [
            b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b["type"] == "tool_result"
        ]
        return [b for b in result["content"] if b["type"] == "document"]
    if api == "openai":
        (out,) = [i for i in body["input"] if i.get("type") == "function_call_output"]
        return [p for p in out["output"] if p["type"] == "input_file"]
    if api == "openai-chat":
        return [
            p
            for m in body["messages"]
            if m["role"] == "user" and isinstance(m["content"], list)
            for p in m["content"]
            if p["type"] == "file"
        ]
    return [p for c in body["contents"] for p in c["parts"] if "inlineData" in p]


@pytest.mark.parametrize("api", APIS)
def test_a_pdf_a_tool_returns_is_sent_as_a_document(api: str) -> None:
    sent: list[dict[str, Any]] = []
    m = make_model(api, [_call(api, "report"), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "summarise the report", tools=[report])
    assert result.text == "done" and not result.tool_errors
    second = sent[1]
    assert _validate(api, second) == []
    (block,) = _pdf_places(api, second)
    if api == "anthropic":
        assert block == {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
            "title": "q3.pdf",
        }
    elif api == "openai":
        assert block == {
            "type": "input_file",
            "filename": "q3.pdf",
            "file_data": f"data:application/pdf;base64,{PDF_B64}",
        }
    elif api == "openai-chat":
        assert block == {
            "type": "file",
            "file": {"filename": "q3.pdf", "file_data": f"data:application/pdf;base64,{PDF_B64}"},
        }
        (tool_msg,) = [x for x in second["messages"] if x["role"] == "tool"]
        assert tool_msg["content"] == "the report:\n(the result's document(s) are in the next user message)"
        after = second["messages"][second["messages"].index(tool_msg) + 1]
        assert after["role"] == "user"
        assert after["content"][0] == {"type": "text", "text": "Document(s) returned by tool call call_1 (report):"}
    else:
        assert block == {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}}
        (content,) = [c for c in second["contents"] if any("functionResponse" in p for p in c["parts"])]
        assert [next(iter(p)) for p in content["parts"]] == ["functionResponse", "inlineData"]
        assert content["parts"][0]["functionResponse"]["response"] == {
            "output": "the report:\n(the document(s) 'q3.pdf' follow the function responses)"
        }
    report_ = result.turns[-1].response.preflight
    assert report_ is None or not [c for c in report_.changes if c.lossy], report_


@pytest.mark.parametrize("api", APIS)
def test_a_plain_text_document_is_sent_on_every_api(api: str) -> None:
    @toolwire.tool
    def notes() -> DocumentPart:
        """Read the notes."""
        return DocumentPart("café at 9\n".encode(), "text/plain; charset=utf-8", filename="notes.txt")

    sent: list[dict[str, Any]] = []
    m = make_model(api, [_call(api, "notes"), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "read", tools=[notes])
    assert result.text == "done" and not result.tool_errors
    second = sent[1]
    assert _validate(api, second) == []
    text = json.dumps(second, ensure_ascii=False)
    if api == "anthropic":
        assert (
            '{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "café at 9\\n"}, "title": "notes.txt"}'
            in text
        )
    elif api == "openai":
        data = base64.b64encode("café at 9\n".encode()).decode()
        assert f'"file_data": "data:text/plain;base64,{data}"' in text
    else:  # Chat takes PDF files only, Gemini gets the text: in the tool's own answer
        assert "notes.txt:\\ncafé at 9\\n" in text


def test_bad_documents_are_refused_with_what_to_do() -> None:
    with pytest.raises(ValueError, match="empty"):
        DocumentPart(b"", "application/pdf")
    with pytest.raises(ValueError, match="not a PDF"):
        DocumentPart(b"<html>404</html>", "application/pdf")
    with pytest.raises(ValueError, match="'application/pdf' or 'text/plain'; extract its text"):
        DocumentPart(b"PK\x03\x04", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    for text_type in ("text/markdown", "text/csv; charset=utf-8", "application/json", "application/ld+json"):
        # text in another text type: the hint says to send it as text/plain (before: "extract its text")
        with pytest.raises(ValueError, match="its bytes are text: give media_type 'text/plain'"):
            DocumentPart(b"# notes", text_type)
    with pytest.raises(ValueError, match="an image goes as ImagePart"):
        DocumentPart(b"\x89PNG\r\n\x1a\n", "image/png")
    with pytest.raises(ValueError, match="not UTF-8"):
        DocumentPart(b"\xff\xfe", "text/plain")
    with pytest.raises(TypeError, match="base64 text: decode it"):
        DocumentPart(PDF_B64, "application/pdf")  # type: ignore[arg-type]


@pytest.mark.parametrize("api", APIS)
def test_a_tool_returning_a_bad_document_gets_an_error_result_and_the_run_goes_on(api: str) -> None:
    @toolwire.tool
    def chart() -> DocumentPart:
        """Fetch it."""
        return DocumentPart(b"<html>login</html>", "application/pdf")

    sent: list[dict[str, Any]] = []
    m = make_model(api, [call_answer(api), text_answer(api, "done")], sent)
    result = toolwire.run_sync(m, "go", tools=[chart])
    assert result.text == "done"
    (run,) = result.turns[0].tool_runs
    assert run.result.is_error and "holds bytes that are not a PDF" in run.result.text
    assert _validate(api, sent[1]) == []


def test_document_round_trip_through_json() -> None:
    r = ToolResult("c1", [TextPart("see"), DocumentPart(PDF, "Application/PDF", filename="q3.pdf")], name="report")
    d = json.loads(json.dumps(r.to_dict()))
    assert d["content"][1] == {
        "type": "document",
        "data_base64": PDF_B64,
        "media_type": "application/pdf",
        "filename": "q3.pdf",
    }
    back = ToolResult.from_dict(d)
    assert back == r and isinstance(back.content, list) and back.content[1].data == PDF  # type: ignore[union-attr]
    conv = toolwire.Conversation([Message.user(["read", DocumentPart(b"hi", "text/plain")])])
    assert toolwire.Conversation.from_json(conv.to_json()) == conv
    with pytest.raises(ValueError, match="at content\\[0\\].*not a PDF"):
        ToolResult.from_dict({"tool_call_id": "c", "content": [{"type": "document", "data_base64": "PGh0bWw+"}]})


# -- an imported history switched to another API ---------------------------------------------------

ANTHROPIC_HISTORY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "tools": [{"name": "report", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "summarise the report"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "report", "input": {}}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [
                        {"type": "text", "text": "the report:"},
                        {
                            "type": "document",
                            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
                            "title": "q3.pdf",
                            "citations": {"enabled": True},
                        },
                    ],
                }
            ],
        },
    ],
}

RESPONSES_HISTORY = {
    "model": "gpt-5",
    "tools": [{"type": "function", "name": "report", "parameters": {"type": "object"}, "strict": False}],
    "input": [
        {"role": "user", "content": "summarise the report"},
        {"type": "function_call", "call_id": "call_1", "name": "report", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "the report:"},
                {"type": "input_file", "filename": "q3.pdf", "file_data": f"data:application/pdf;base64,{PDF_B64}"},
            ],
        },
    ],
}


@pytest.mark.parametrize("source, body", [("anthropic", ANTHROPIC_HISTORY), ("openai", RESPONSES_HISTORY)])
@pytest.mark.parametrize("api", APIS)
def test_an_imported_tool_result_document_survives_a_switch(source: str, body: dict[str, Any], api: str) -> None:
    codec: Any = toolwire.model(f"{source}:m-1", api_key="k").codec
    imported = codec.decode_request(json.loads(json.dumps(body)))
    (result,) = imported.messages[-1].tool_results
    assert isinstance(result.content, list)
    (doc,) = [p for p in result.content if isinstance(p, DocumentPart)]
    assert (doc.data, doc.filename) == (PDF, "q3.pdf")
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    conv = toolwire.Conversation(imported.messages)
    out = toolwire.run_sync(m, "what does it say?", tools=[report], conversation=conv)
    assert out.text == "done"
    assert _validate(api, sent[0]) == []
    lossy = [c for c in out.turns[0].response.preflight.changes if c.lossy] if out.turns[0].response.preflight else []
    assert lossy == []
    (block,) = _pdf_places(api, sent[0])
    assert PDF_B64 in json.dumps(block)
    if api == source:  # the same API: the block goes back as it came
        wire = sent[0]["messages"][2]["content"][0] if api == "anthropic" else sent[0]["input"][2]
        expected = body["messages"][2]["content"][0] if api == "anthropic" else body["input"][2]
        assert wire == expected


def _with_kept_block(source: str) -> dict[str, Any]:
    """The imported history of ``source`` with a block no canonical part holds added to the tool's
    result: an Anthropic search_result (SearchResultBlockParam), a Responses input_file by file id."""
    body = json.loads(json.dumps(ANTHROPIC_HISTORY if source == "anthropic" else RESPONSES_HISTORY))
    if source == "anthropic":
        body["messages"][2]["content"][0]["content"].append(
            {
                "type": "search_result",
                "source": "https://example.com/q3",
                "title": "Q3 figures",
                "content": [{"type": "text", "text": "revenue up"}],
            }
        )
    else:
        body["input"][2]["output"].append({"type": "input_file", "file_id": "file-q3annex"})
    return body


@pytest.mark.parametrize("source", ["anthropic", "openai"])
@pytest.mark.parametrize("api", APIS)
def test_tool_result_content_no_part_holds_is_reported_when_left_out(source: str, api: str) -> None:
    body = _with_kept_block(source)
    codec: Any = toolwire.model(f"{source}:m-1", api_key="k").codec
    imported = codec.decode_request(json.loads(json.dumps(body)))
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    out = toolwire.run_sync(m, "and?", tools=[report], conversation=toolwire.Conversation(imported.messages))
    assert _validate(api, sent[0]) == []
    changes = out.turns[0].response.preflight.changes if out.turns[0].response.preflight else []
    dropped = [(c.rule, c.pointer, c.lossy, c.detail) for c in changes if c.rule == "provider-tool.dropped"]
    text = json.dumps(sent[0])
    assert PDF_B64 in text  # the document of the result is sent on every API
    if api == source:  # back to its own API as it came, nothing left out
        assert dropped == []
        assert ("Q3 figures" if source == "anthropic" else "file-q3annex") in text
        return
    assert "revenue up" not in text and "file-q3annex" not in text
    kept = (
        "anthropic search_result block (Q3 figures https://example.com/q3)"
        if source == "anthropic"
        else "openai input_file part (file-q3annex)"
    )
    assert dropped == [
        (
            "provider-tool.dropped",
            "/messages/2/parts/0",
            True,
            f"the {kept} in the result of call {'toolu_1' if source == 'anthropic' else 'call_1'!r} was left out: "
            "content kept whole for one provider goes back only to that provider (the rest of the result is sent)",
        )
    ]


def test_a_pdf_too_large_for_anthropic_is_refused_before_sending() -> None:
    # the Messages API takes request bodies of at most 32 MB (rule anthropic.request.size): a
    # 33 MiB PDF a tool returned is refused before the second request is sent, saying what to do
    from toolwire.errors import RequestRefused

    @toolwire.tool
    def scan() -> DocumentPart:
        """Scan it."""
        return DocumentPart(b"%PDF-1.4\n" + bytes(33 * 1024 * 1024), "application/pdf", filename="scan.pdf")

    sent: list[dict[str, Any]] = []
    m = make_model("anthropic", [_call("anthropic", "scan"), text_answer("anthropic", "done")], sent)
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(m, "read the scan", tools=[scan])
    (v,) = exc.value.violations
    assert v.rule == "anthropic.request.size" and "send fewer or smaller images and documents" in v.message
    assert len(sent) == 1


def test_a_document_in_an_assistant_message_is_refused_saying_where_it_goes() -> None:
    # no API takes a document in a model turn: before, Chat, Responses and Gemini left it out of
    # the request without a word
    conv = toolwire.Conversation([Message.user("hi"), Message("assistant", [DocumentPart(PDF)])])
    m = toolwire.model("openai:gpt-5", api_key="k")
    with pytest.raises(toolwire.ConfigurationError, match="a DocumentPart in an 'assistant' message; documents go in"):
        toolwire.run_sync(m, "and?", conversation=conv)


GEMINI_TEXT_HISTORY = {
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "summarise the notes"},
                {"inlineData": {"mimeType": "text/plain", "data": base64.b64encode(b"clause 1: pay on time").decode()}},
            ],
        },
        {"role": "model", "parts": [{"text": "They say to pay on time."}]},
    ]
}


@pytest.mark.parametrize("api", APIS)
def test_an_imported_gemini_plain_text_blob_is_a_document_on_every_api(api: str) -> None:
    # Gemini takes plain text as inlineData; before, the import read it as an ImagePart of type
    # text/plain, which every other API refused as an image it cannot read
    codec: Any = toolwire.model("gemini:m-1", api_key="k").codec
    imported = codec.decode_request(json.loads(json.dumps(GEMINI_TEXT_HISTORY)))
    (doc,) = [p for p in imported.messages[0].parts if not isinstance(p, TextPart)]
    assert isinstance(doc, DocumentPart) and doc.text == "clause 1: pay on time"
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    out = toolwire.run_sync(m, "and?", conversation=toolwire.Conversation(imported.messages))
    assert out.text == "done"
    assert _validate(api, sent[0]) == []
    pf = out.turns[0].response.preflight
    assert [c for c in pf.changes if c.lossy] == [] if pf else True
    if api == "gemini":  # back as it came
        assert sent[0]["contents"][0] == GEMINI_TEXT_HISTORY["contents"][0]
    elif api == "openai":
        assert sent[0]["input"][0]["content"][1] == {
            "type": "input_file",
            "filename": "document.txt",
            "file_data": "data:text/plain;base64," + base64.b64encode(b"clause 1: pay on time").decode(),
        }
    else:
        assert "clause 1: pay on time" in json.dumps(sent[0])


@pytest.mark.parametrize("extra, refused", [(0, False), (1, True)])
def test_a_pdf_of_exactly_gemini_s_50_mb_is_sent_and_one_byte_more_refused(extra: int, refused: bool) -> None:
    # "at most 50 MB" inline (rule gemini.conversation.document-size, read as MiB): before, the
    # size was read from the base64 length without its padding, so a PDF of exactly 50 MiB
    # (base64 ending in '=') counted one byte more and was refused
    from toolwire.errors import RequestRefused

    size = 50 * 1024 * 1024 + extra
    head = b"%PDF-1.4\n"

    @toolwire.tool
    def scan() -> DocumentPart:
        """Scan it."""
        return DocumentPart(head + bytes(size - len(head)), "application/pdf", filename="scan.pdf")

    sent: list[dict[str, Any]] = []
    m = make_model("gemini", [_call("gemini", "scan"), text_answer("gemini", "done")], sent)
    if refused:
        with pytest.raises(RequestRefused) as exc:
            toolwire.run_sync(m, "read the scan", tools=[scan])
        assert [v.rule for v in exc.value.violations] == ["gemini.conversation.document-size"]
        assert len(sent) == 1
        return
    out = toolwire.run_sync(m, "read the scan", tools=[scan])
    assert out.text == "done" and len(sent) == 2
    (blob,) = [p["inlineData"] for c in sent[1]["contents"] for p in c["parts"] if "inlineData" in p]
    assert len(base64.b64decode(blob["data"])) == size


@pytest.mark.parametrize(
    "blob",
    [
        {"mimeType": "application/pdf", "data": base64.b64encode(b"<html>login</html>").decode()},
        {"mimeType": "application/PDF", "data": PDF_B64},
        {"mimeType": "audio/mp3", "data": base64.b64encode(b"ID3\x03\x00").decode()},
    ],
    ids=["html-typed-pdf", "pdf-type-in-capitals", "audio"],
)
@pytest.mark.parametrize("api", APIS)
def test_an_imported_gemini_blob_no_document_or_image_is_kept_for_gemini(blob: dict[str, str], api: str) -> None:
    # before, any inlineData of a user turn that was no PDF document decoded to an ImagePart of its
    # type: every other API then refused the whole request ("image media type 'application/pdf'
    # ... convert the image"); now it is kept whole for Gemini, as the other adapters keep a block
    # they have no part for, and another API leaves it out and reports it
    body = {"contents": [{"role": "user", "parts": [{"text": "read"}, {"inlineData": blob}]}]}
    codec: Any = toolwire.model("gemini:m-1", api_key="k").codec
    imported = codec.decode_request(json.loads(json.dumps(body)))
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    out = toolwire.run_sync(m, "and?", conversation=toolwire.Conversation(imported.messages))
    assert out.text == "done" and _validate(api, sent[0]) == []
    pf = out.turns[0].response.preflight
    dropped = [c.rule for c in pf.changes if c.lossy] if pf else []
    if api == "gemini":
        assert sent[0]["contents"][0]["parts"][:2] == body["contents"][0]["parts"]
        assert dropped == []
    else:
        assert blob["data"] not in json.dumps(sent[0])
        assert dropped == ["provider-tool.dropped"]


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_an_imported_pdf_without_a_filename_gets_one_back_to_openai(api: str) -> None:
    # OpenAI answers file_data without filename with 400 "Missing required parameter:
    # 'messages[1].content[1].file.file_id'" (openai/openai-agents-python#1513,
    # langchain-ai/langchainjs#9570; Responses: laravel/ai#324). Before, a PDF imported without a
    # filename went back without one, a request the API refuses.
    url = f"data:application/pdf;base64,{PDF_B64}"
    if api == "openai-chat":
        body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "file", "file": {"file_data": url}}]}]}
    else:
        body = {"model": "m", "input": [{"role": "user", "content": [{"type": "input_file", "file_data": url}]}]}
    codec: Any = toolwire.model(f"{api}:m-1", api_key="k").codec
    imported = codec.decode_request(json.loads(json.dumps(body)))
    sent: list[dict[str, Any]] = []
    m = make_model(api, [text_answer(api, "done")], sent)
    assert toolwire.run_sync(m, "and?", conversation=toolwire.Conversation(imported.messages)).text == "done"
    assert _validate(api, sent[0]) == []
    if api == "openai-chat":
        assert sent[0]["messages"][0]["content"][0] == {
            "type": "file",
            "file": {"filename": "document.pdf", "file_data": url},
        }
    else:
        assert sent[0]["input"][0]["content"][0] == {"type": "input_file", "filename": "document.pdf", "file_data": url}


def test_an_imported_tool_result_pdf_without_a_filename_gets_one_back_to_responses() -> None:
    url = f"data:application/pdf;base64,{PDF_B64}"
    body = json.loads(json.dumps(RESPONSES_HISTORY))
    body["input"][2]["output"][1] = {"type": "input_file", "file_data": url}
    codec: Any = toolwire.model("openai:m-1", api_key="k").codec
    imported = codec.decode_request(body)
    sent: list[dict[str, Any]] = []
    m = make_model("openai", [text_answer("openai", "done")], sent)
    toolwire.run_sync(m, "and?", tools=[report], conversation=toolwire.Conversation(imported.messages))
    assert sent[0]["input"][2]["output"][1] == {"type": "input_file", "filename": "document.pdf", "file_data": url}


@toolwire.tool
def mixed() -> list:
    """A result of a document, text, an image and text, in that order."""
    from .test_turns import _PNG_1PX

    return [DocumentPart(PDF, filename="q3.pdf"), "between", toolwire.ImagePart(_PNG_1PX, "image/png"), "after"]


def test_responses_keeps_a_results_parts_in_their_order() -> None:
    sent: list[dict[str, Any]] = []
    m = make_model("openai", [_call("openai", "mixed"), text_answer("openai", "done")], sent)
    toolwire.run_sync(m, "go", tools=[mixed])
    (out,) = [i for i in sent[1]["input"] if i.get("type") == "function_call_output"]
    assert [(p["type"], p.get("text")) for p in out["output"]] == [
        ("input_file", None),
        ("input_text", "between"),
        ("input_image", None),
        ("input_text", "after"),
    ]
    assert _validate("openai", sent[1]) == []


def test_chat_says_both_the_images_and_the_documents_moved() -> None:
    sent: list[dict[str, Any]] = []
    m = make_model("openai-chat", [_call("openai-chat", "mixed"), text_answer("openai-chat", "done")], sent)
    toolwire.run_sync(m, "go", tools=[mixed])
    (tool_msg,) = [x for x in sent[1]["messages"] if x["role"] == "tool"]
    assert tool_msg["content"] == "between\nafter\n(the result's image(s) and document(s) are in the next user message)"
    after = sent[1]["messages"][sent[1]["messages"].index(tool_msg) + 1]
    assert [p["type"] for p in after["content"]] == ["text", "image_url", "text", "file"]
