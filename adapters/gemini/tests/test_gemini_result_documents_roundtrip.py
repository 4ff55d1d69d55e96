"""A tool result's PDFs survive encode → ``decode_request`` on Gemini.

Gemini's ``functionResponse.parts`` (``google.genai.types.FunctionResponsePart``) carries images,
so the codec sends a result's PDFs as ``inlineData`` parts after the Content's function responses,
the response's text naming them ("(the document(s) 'a.pdf' follow the function responses)").
Decoding puts those parts back into the result they belong to (with their names) and removes the
note, so a provider switch after importing a Gemini history sends the PDF inside the tool result.

Bodies are built by the real codec; call ids are not compared (calls from another API carry no
Gemini id, so the import makes them up).
"""

from __future__ import annotations

from typing import Any

from toolwire_gemini import GeminiCodec

from toolwire.adapter import ModelRequest
from toolwire.types import DocumentPart, ImagePart, Message, TextPart, ToolCall, ToolResult

G = GeminiCodec()
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00"
    b"\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82"
)
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
PDF2 = b"%PDF-1.7\n% second\n%%EOF\n"


def _messages(results: list[ToolResult], after: list[Any] | None = None) -> list[Message]:
    calls = [ToolCall(id=r.tool_call_id, name=r.name or "tool", arguments={}) for r in results]
    return [
        Message("user", [TextPart("show me")]),
        Message("assistant", list(calls)),
        Message("user", [*results, *(after or [])]),
    ]


def _check(results: list[ToolResult], after: list[Any] | None = None) -> None:
    messages = _messages(results, after)
    body = G.encode_request(ModelRequest(model="gemini-2.5-flash", messages=messages))
    decoded = G.decode_request(body)
    assert len(decoded.messages) == 3
    got = decoded.messages[-1].parts
    want = messages[-1].parts
    assert len(got) == len(want), got
    for g, w in zip(got, want):
        if isinstance(w, ToolResult):
            assert isinstance(g, ToolResult)
            assert (g.name, g.is_error, g.content) == (w.name, w.is_error, w.content)
        else:
            assert g == w
    again = G.encode_request(decoded)
    assert again["contents"] == body["contents"]


CASES: dict[str, list[ToolResult]] = {
    "pdf only": [ToolResult("c1", [DocumentPart(PDF, filename="report.pdf")], name="report")],
    "pdf without a filename": [ToolResult("c1", [DocumentPart(PDF)], name="report")],
    "text, image and pdf": [
        ToolResult(
            "c1",
            [TextPart("all:"), ImagePart(data=PNG, media_type="image/png"), DocumentPart(PDF, filename="a.pdf")],
            name="bundle",
        )
    ],
    "image and pdf, no text": [
        ToolResult(
            "c1", [ImagePart(data=PNG, media_type="image/png"), DocumentPart(PDF, filename="a.pdf")], name="bundle"
        )
    ],
    "two pdfs": [
        ToolResult("c1", [DocumentPart(PDF, filename="it's.pdf"), DocumentPart(PDF2, filename="b, c.pdf")], name="docs")
    ],
    "two results, pdf on the second": [
        ToolResult("c1", "plain", name="lookup"),
        ToolResult("c2", [TextPart("see"), DocumentPart(PDF2, filename="x.pdf")], name="report"),
    ],
    "two results, both with pdfs": [
        ToolResult("c1", [DocumentPart(PDF, filename="one.pdf")], name="a"),
        ToolResult("c2", [DocumentPart(PDF2, filename="two.pdf")], name="b"),
    ],
    "error with a pdf": [ToolResult("c1", [DocumentPart(PDF, filename="r.pdf")], is_error=True, name="report")],
}


def test_gemini_result_pdfs_decode_back_into_the_results() -> None:
    for label, results in CASES.items():
        try:
            _check(results)
        except AssertionError as e:
            raise AssertionError(f"{label}: {e}") from e


def test_gemini_user_pdf_after_the_results_stays_the_users() -> None:
    # the user's own PDF, after a result's PDF: the result's is folded, the user's stays
    _check(
        [ToolResult("c1", [DocumentPart(PDF, filename="r.pdf")], name="report")],
        after=[TextPart("and mine:"), DocumentPart(PDF2)],
    )


def _body(response_text: str, after: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "report", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "report", "response": {"output": response_text}}}, *after],
            },
        ]
    }


def test_gemini_pdf_after_a_response_without_toolwires_note_stays() -> None:
    pdf = {"inlineData": {"mimeType": "application/pdf", "data": DocumentPart(PDF).base64}}
    for text in (
        "done",  # no note: the PDF is the user's
        "(the document(s) 'a.pdf', 'b.pdf' follow the function responses)",  # two named, one sent
        "(the document(s) a.pdf follow the function responses)",  # not toolwire's quoting
    ):
        body = _body(text, [pdf])
        decoded = G.decode_request(body)
        result, doc = decoded.messages[-1].parts
        assert isinstance(result, ToolResult) and result.content == text, text
        assert isinstance(doc, DocumentPart)
        assert G.encode_request(decoded)["contents"] == body["contents"]
