"""The rules on ``document`` blocks, through the real ``anthropic`` SDK over ``httpx2.MockTransport``.

The Messages API's request schema (the OpenAPI document of the API reference) gives a document's
``title`` 1 to 500 characters (or null) and its ``context`` at least 1 character (or null); the
citations guide says citations "must be enabled on all or none of the documents within a request".
So: an empty title or context is left out (it says nothing), a longer title is cut to 500
characters, its extension kept, and reported as lossy (refused, a tool's document would make every
later request of the run, and its resumption, refused), and a request whose documents mix
citations on and off is refused, naming the first document that differs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from toolwire_anthropic import profile
from toolwire_anthropic.profile import AnthropicProfile

from toolwire import DocumentPart, Message, ToolCall, ToolResult, tool
from toolwire.profile import RequestRefused

PDF = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"
CITE = {"anthropic": {"citations": {"enabled": True}}}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def ok() -> list[Any]:
    """One Messages API answer (a text block), in the wire format."""
    body = {
        "id": "msg_01TEST",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    return [httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))]


@tool
def fetch_report() -> str:
    """Fetch the report."""
    return ""


def test_the_limit_is_500_characters() -> None:
    assert profile.TITLE_MAX_CHARS == 500


def test_a_title_over_500_characters_is_cut_to_500_keeping_its_extension(mock_model: Any) -> None:
    model = mock_model(ok())
    long = "q" * 497 + ".pdf"  # 501 characters
    resp = run(model.send(model.build_request([Message.user(["Read it.", DocumentPart(PDF, filename=long)])])))
    title = model.sent[0].json["messages"][0]["content"][1]["title"]
    assert len(title) == 500 and title == "q" * 495 + "\u2026.pdf"
    (change,) = [c for c in resp.preflight.changes if c.rule == "anthropic.conversation.document-title"]
    assert change.pointer == "/messages/0/content/1/title" and change.lossy
    assert "501 characters cut to 500" in change.detail


def test_a_title_of_500_characters_is_sent_as_it_is(mock_model: Any) -> None:
    model = mock_model(ok())
    name = "é" * 496 + ".pdf"  # 500 characters (more bytes): the API counts characters
    run(model.send(model.build_request([Message.user(["Read it.", DocumentPart(PDF, filename=name)])])))
    assert model.sent[0].json["messages"][0]["content"][1]["title"] == name


def test_a_long_title_from_a_tool_does_not_stop_the_run(mock_model: Any) -> None:
    # a tool's result stays in the conversation: refused, every later request (and a resumption)
    # would be refused too; cut, the run goes on
    model = mock_model(ok() + ok())
    history = [
        Message.user("Get the report."),
        Message("assistant", [ToolCall("toolu_01", "fetch_report", {})]),
        Message("user", [ToolResult("toolu_01", [DocumentPart(PDF, filename="r" * 600)], name="fetch_report")]),
    ]
    for _ in range(2):
        run(model.send(model.build_request(history, tools=[fetch_report])))
    for sent in model.sent:
        title = sent.json["messages"][2]["content"][0]["content"][0]["title"]
        assert len(title) == 500 and title == "r" * 499 + "\u2026"  # no extension to keep


def test_an_empty_title_is_left_out_and_reported(mock_model: Any) -> None:
    model = mock_model(ok())
    run(
        model.send(model.build_request([Message.user(["Read it.", DocumentPart(b"notes", "text/plain", filename="")])]))
    )
    block = model.sent[0].json["messages"][0]["content"][1]
    assert block == {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}


def test_an_empty_context_is_left_out() -> None:
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}, "context": ""}
    body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": [doc]}]}
    changes: list[tuple[str, str]] = []

    class Report:
        def add(self, rule: str, pointer: str, detail: str, lossy: bool = False, **_: Any) -> None:
            changes.append((rule, pointer))

    fixed = AnthropicProfile().repair_request(body, Report())
    assert "context" not in fixed["messages"][0]["content"][0]
    assert changes == [("anthropic.conversation.document-context", "/messages/0/content/0/context")]


def test_documents_mixing_citations_on_and_off_are_refused(mock_model: Any) -> None:
    model = mock_model(ok())
    cited = DocumentPart(PDF, filename="a.pdf", provider_data=CITE)
    plain = DocumentPart(b"notes", "text/plain", filename="b.txt")
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request([Message.user(["Compare.", cited, plain])])))
    (v,) = info.value.violations
    assert (v.rule, v.pointer) == ("anthropic.conversation.document-citations", "/messages/0/content/2")
    assert "citations on 1 of the request's 2 documents" in v.message
    assert model.sent == []


def test_citations_on_every_document_or_none_are_sent(mock_model: Any) -> None:
    model = mock_model(ok() + ok())
    both = [
        DocumentPart(PDF, filename="a.pdf", provider_data=CITE),
        DocumentPart(b"n", "text/plain", provider_data=CITE),
    ]
    run(model.send(model.build_request([Message.user(["Compare.", *both])])))
    assert [b.get("citations") for b in model.sent[0].json["messages"][0]["content"][1:]] == [{"enabled": True}] * 2
    run(
        model.send(
            model.build_request([Message.user(["Compare.", DocumentPart(PDF), DocumentPart(b"n", "text/plain")])])
        )
    )
    assert len(model.sent) == 2


def test_a_document_a_tool_returned_with_citations_off_after_one_with_them_is_refused(mock_model: Any) -> None:
    # the earlier prompt's document has citations on; the tool's document (later turn) has none
    model = mock_model(ok())
    history = [
        Message.user(["Get the report.", DocumentPart(PDF, filename="brief.pdf", provider_data=CITE)]),
        Message("assistant", [ToolCall("toolu_01", "fetch_report", {})]),
        Message("user", [ToolResult("toolu_01", [DocumentPart(PDF, filename="report.pdf")], name="fetch_report")]),
    ]
    with pytest.raises(RequestRefused) as info:
        run(model.send(model.build_request(history, tools=[fetch_report])))
    (v,) = info.value.violations
    assert (v.rule, v.pointer) == ("anthropic.conversation.document-citations", "/messages/2/content/0/content/0")
    assert v.call_id == "toolu_01"
