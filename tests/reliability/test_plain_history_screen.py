"""The preflight's plain-history screen (``toolwire.turns.plain_history``) skips the codecs' checks
for parts they leave out or move. It may only skip them when they would find nothing: for every
history drawn here — plain ones and plain ones with one awkward change — each API's preflight
gives the same body and the same report with the screen as without it, and for every history the
screen calls plain, each codec's own ``left_out_parts`` and the dropped-part check find nothing.
The checkers are the codecs' real checks, not the screen."""

from __future__ import annotations

import base64
from typing import Any

from fuzz_support import fuzz_settings, seeded
from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.adapter as adapter_module
from toolwire.errors import ToolwireError
from toolwire.turns import moved_result_changes, plain_history
from toolwire.types import ImagePart, Message, ProviderToolPart, ReasoningPart, TextPart, ToolCall, ToolResult

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai-chat": "openai-chat:gpt-4.1",
    "openai": "openai:gpt-5",
    "gemini": "gemini:gemini-2.5-flash",
}


def _models() -> dict[str, Any]:
    return {api: toolwire.model(spec, api_key="k") for api, spec in MODELS.items()}


@st.composite
def plain_histories(draw: Any) -> list[Message]:
    """A plain history: user text, then turns of assistant text and calls each answered by the
    next user message (results in any order, text before or after them)."""
    messages = [Message("user", [TextPart(draw(st.sampled_from(["go", "", "hi there"])))])]
    n = 0
    for _ in range(draw(st.integers(0, 4))):
        parts: list[Any] = []
        if draw(st.booleans()):
            parts.append(TextPart("let me look"))
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            n += 1
            calls.append(ToolCall(f"call_{n}", "lookup", {"q": str(n)}))
        parts += calls
        messages.append(Message("assistant", parts))
        if calls:
            results: list[Any] = [
                ToolResult(
                    c.id,
                    draw(st.sampled_from(["ok", "", [TextPart("a"), TextPart("b")]])),
                    is_error=draw(st.booleans()),
                    name="lookup",
                )
                for c in calls
            ]
            results = draw(st.permutations(results))
            if draw(st.booleans()):
                results.append(TextPart("and a note"))
            messages.append(Message("user", list(results)))
        else:
            messages.append(Message("user", [TextPart("more")]))
    return messages


def _awkward(draw: Any, messages: list[Message]) -> list[Message]:
    """``messages`` with one change of a kind some codec leaves out, moves or answers."""
    kind = draw(
        st.sampled_from(
            [
                "image-user",
                "image-assistant",
                "image-result",
                "bad-image-result",
                "reasoning",
                "foreign-reasoning",
                "provider-tool",
                "duplicate-call",
                "duplicate-result",
                "unanswered",
                "moved",
                "call-in-user",
                "result-in-assistant",
                "orphan-result",
            ]
        )
    )
    out = [Message(m.role, list(m.parts)) for m in messages]
    assistants = [i for i, m in enumerate(out) if m.role == "assistant"]
    users = [i for i, m in enumerate(out) if m.role == "user"]
    calls = [(i, p) for i, m in enumerate(out) for p in m.parts if isinstance(p, ToolCall)]
    if kind == "image-user":
        out[draw(st.sampled_from(users))].parts.append(ImagePart(data=PNG, media_type="image/png"))
    elif kind == "image-assistant":
        out.append(Message("assistant", [ImagePart(data=PNG, media_type="image/png")]))
    elif kind in ("image-result", "bad-image-result"):
        data = PNG if kind == "image-result" else b"BM\x00\x00not an image"
        media = "image/png" if kind == "image-result" else "image/bmp"
        out.append(Message("assistant", [ToolCall("img_1", "lookup", {})]))
        out.append(Message("user", [ToolResult("img_1", [ImagePart(data=data, media_type=media)], name="lookup")]))
    elif kind == "reasoning":
        api = draw(st.sampled_from(list(MODELS)))
        out.append(Message("assistant", [ReasoningPart("thinking", signature="sig", provider=api), TextPart("x")]))
    elif kind == "foreign-reasoning":
        out.append(Message("assistant", [ReasoningPart("thinking", provider="elsewhere"), TextPart("x")]))
    elif kind == "provider-tool":
        api = draw(st.sampled_from([*MODELS, "elsewhere"]))
        out.append(Message("assistant", [ProviderToolPart(api, "web_search_call", {"id": "ws_1"}), TextPart("x")]))
    elif kind == "duplicate-call" and calls:
        out.append(Message("assistant", [ToolCall(calls[0][1].id, "lookup", {})]))
        out.append(Message("user", [ToolResult(calls[0][1].id, "again", name="lookup")]))
    elif kind == "duplicate-result" and calls:
        i, c = calls[-1]
        out[i + 1].parts.append(ToolResult(c.id, "twice", name="lookup"))
    elif kind == "unanswered":
        out.append(Message("assistant", [ToolCall("late_1", "lookup", {})]))
    elif kind == "moved":
        out.append(Message("assistant", [ToolCall("late_2", "lookup", {})]))
        out.append(Message(draw(st.sampled_from(["user", "assistant"])), [TextPart("between")]))
        out.append(Message("user", [ToolResult("late_2", "late", name="lookup")]))
    elif kind == "call-in-user":
        out.append(Message("user", [ToolCall("odd_1", "lookup", {})]))
    elif kind == "result-in-assistant" and calls:
        out.append(Message("assistant", [ToolResult(calls[0][1].id, "odd", name="lookup")]))
    elif kind == "orphan-result":
        out.append(Message("user", [ToolResult("nobody", "odd", name="lookup")]))
    else:  # the kind needs calls and the history has none
        out.append(Message("assistant", [ReasoningPart("t", provider="elsewhere")]))
    return out


@st.composite
def histories(draw: Any) -> list[Message]:
    messages = draw(plain_histories())
    return messages if draw(st.booleans()) else _awkward(draw, messages)


def _preflight(model: Any, messages: list[Message]) -> Any:
    request = model.build_request(messages, tools=[toolwire.Tool.from_schema("lookup", "Look up.", {"type": "object"})])
    try:
        body, report = model._preflight(request)
    except ToolwireError as exc:
        return ("refused", type(exc).__name__, str(exc))
    return body, [(c.rule, c.pointer, c.detail, c.tool, c.call_id, c.lossy) for c in report.changes]


MODELS_BUILT = _models()


@seeded
@given(messages=histories())
@fuzz_settings(300)
def test_the_screen_changes_no_body_and_no_report(messages: list[Message]) -> None:
    for api, model in MODELS_BUILT.items():
        with_screen = _preflight(model, messages)
        original = adapter_module._sends_plain_whole
        adapter_module._sends_plain_whole = lambda codec: False
        try:
            without = _preflight(model, messages)
        finally:
            adapter_module._sends_plain_whole = original
        assert with_screen == without, api


@seeded
@given(messages=histories())
@fuzz_settings(300)
def test_a_plain_history_has_nothing_left_out_on_any_api(messages: list[Message]) -> None:
    if not plain_history(messages):
        return
    assert moved_result_changes(messages, 0) == []
    for api, model in MODELS_BUILT.items():
        request = model.build_request(messages)
        assert adapter_module._dropped_parts(messages, api, 0) == []
        assert list(model.codec.left_out_parts(request, messages, 0)) == [], api
        assert moved_result_changes(messages, 0, merged_turns=False) == []


def test_the_histories_drawn_are_plain_and_not() -> None:
    plain = [Message("user", [TextPart("go")])]
    plain += [Message("assistant", [TextPart("x"), ToolCall("c1", "lookup", {}), ToolCall("c2", "lookup", {})])]
    plain += [Message("user", [ToolResult("c2", "b"), ToolResult("c1", [TextPart("a")]), TextPart("note")])]
    assert plain_history(plain)
    assert plain_history([])
    not_plain = {
        "unanswered": plain[:2],
        "image": [*plain, Message("user", [ImagePart(data=PNG, media_type="image/png")])],
        "reasoning": [*plain, Message("assistant", [ReasoningPart("t", signature="s", provider="anthropic")])],
        "call in a user message": [*plain, Message("user", [ToolCall("c3", "lookup", {})])],
        "result in an assistant message": [*plain, Message("assistant", [ToolResult("c1", "x")])],
        "second result": [*plain[:2], Message("user", [ToolResult("c1", "a"), ToolResult("c1", "b")]), plain[2]],
        "reused id": [
            *plain,
            Message("assistant", [ToolCall("c1", "lookup", {})]),
            Message("user", [ToolResult("c1", "x")]),
        ],
        "result later": [*plain[:2], Message("user", [TextPart("wait")]), plain[2]],
        "image result": [
            *plain[:2],
            Message("user", [ToolResult("c1", [ImagePart(data=PNG, media_type="image/png")]), ToolResult("c2", "b")]),
        ],
    }
    for why, messages in not_plain.items():
        assert not plain_history(messages), why


def test_a_codec_subclass_that_reports_more_is_still_asked() -> None:
    model = toolwire.model(MODELS["anthropic"], api_key="k")
    base = type(model.codec)

    class Reporting(base):  # type: ignore[misc, valid-type]
        def left_out_parts(self, request: Any, messages: Any, offset: int) -> list[tuple[Any, ...]]:
            return [("custom.left-out", f"/messages/{offset}", "left out by this codec", None, None)]

    model.codec = Reporting()
    messages = [Message("user", [TextPart("go")])]
    assert plain_history(messages)
    _, report = model._preflight(model.build_request(messages))
    assert [c.rule for c in report.changes] == ["custom.left-out"]


def test_gemini_with_a_cached_content_still_reports_its_held_settings() -> None:
    model = toolwire.model(MODELS["gemini"], api_key="k", cache="cachedContents/abc")
    request = model.build_request([Message("user", [TextPart("go")])], instructions="be brief")
    _, report = model._preflight(request)
    assert [c.rule for c in report.changes] == ["gemini.request.cache-held-settings"]
