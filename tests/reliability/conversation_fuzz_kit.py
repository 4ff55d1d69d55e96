"""Strategies and checks for the fuzz test of conversations (``test_fuzz_conversations.py``).

:func:`conversations` draws what a user may hand to ``toolwire.run(..., conversation=...)``:
model turns that each vendor's real codec decoded from a synthetic response of that vendor (the
response builders of ``tests/vendor_rules/strategies.py``, so ``provider_data``, ids, reasoning
signatures and encrypted content are what toolwire really keeps; a Gemini signature on a text
part, a Responses message ``phase``, up to 40 parallel calls), switched from vendor to vendor
mid-way, then made awkward the way saved and hand-edited histories are: signatures and encrypted
content stripped, reasoning relabelled to another vendor, parts shuffled, provider_data dropped;
hand-built turns with reasoning from anywhere, empty / white-space / lone-surrogate / NUL / very
long text (and once past Chat Completions' 1 MiB), images in the model's turn, calls with ids and
names in other vendors' formats or reused from earlier calls, invalid and cut-off calls;
consecutive messages of one role, empty messages, a user message between calls and results,
calls with no result, results with no call, before their call or twice, results split over
messages or after text, error results, images and several parts, non-text values; a turn
appended twice; Anthropic cache breakpoints on some text; instructions empty or blank.

The checks read the request body the SDK sent with a small reader per API written here from the
vendors' wire formats (not from the adapters): :func:`wire_calls`, :func:`wire_results`,
:func:`wire_strings`.
"""

from __future__ import annotations

import base64
import copy
import json
import string
import sys
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:  # the independent validator and the vendor response builders
    sys.path.insert(0, _TESTS)

from vendor_rules.strategies import RESPONSE_BUILDERS, _turn_plan  # noqa: E402

from toolwire import registry  # noqa: E402
from toolwire.types import (  # noqa: E402
    Conversation,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
)

APIS = ["anthropic", "openai-chat", "openai", "gemini"]
TOOL_NAMES = ["get_weather", "search_files"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
ALNUM = string.ascii_letters + string.digits

#: text as users, tools and models write it, the awkward kinds included
TEXT = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "\n\t ",
            "Paris",
            "ünïcödé ✓ 日本語 🙂",
            "half an emoji \ud83d",
            "\udc00 low first",
            "zero\u0000byte",
            "\u200b",
            "line1\r\nline2",
            '{"json": true}',
            "</s><|im_end|>",
        ]
    ),
    st.text(max_size=30),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),
    st.integers(2_000, 40_000).map(lambda n: "long " * n),
)
B64 = st.binary(min_size=1, max_size=24).map(lambda b: base64.b64encode(b).decode())
SIG = st.one_of(B64, st.sampled_from(["not base64!", ""]))
IDS = st.one_of(
    st.text(ALNUM, min_size=6, max_size=24).map(lambda s: "toolu_" + s),
    st.text(ALNUM, min_size=6, max_size=24).map(lambda s: "call_" + s),
    st.text(ALNUM, min_size=6, max_size=24).map(lambda s: "fc_" + s),
    st.sampled_from(["function-call-1", "call|1", "tool:1", "a.b", "0", "x" * 300, "ünï", " ", "id with space"]),
    st.text(min_size=1, max_size=12),
)
NAMES = st.one_of(
    st.sampled_from(TOOL_NAMES),
    st.sampled_from(TOOL_NAMES),
    st.sampled_from(["mcp.get:v2", "files.read", "1tool", "a" * 70, "get weather", "ünï", "ns/tool"]),
)
ARGS = st.one_of(
    st.just({}),
    st.dictionaries(
        st.one_of(st.sampled_from(["city", "q", "ünï", "a b", ""]), st.text(max_size=5)),
        st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False), TEXT, st.booleans(), st.none()),
        max_size=3,
    ),
)


def _image(draw: Any) -> ImagePart:
    kind = draw(st.sampled_from(["png", "url", "data-url", "misnamed"]))
    if kind == "png":
        return ImagePart(data=PNG, media_type="image/png")
    if kind == "misnamed":  # PNG bytes declared as JPEG
        return ImagePart(data=PNG, media_type="image/jpeg")
    if kind == "data-url":
        return ImagePart(url="data:image/png;base64," + base64.b64encode(PNG).decode())
    return ImagePart(url="https://example.com/a.png")


def _result_content(draw: Any) -> Any:
    kind = draw(st.sampled_from(["text", "text", "empty", "parts", "image-only", "texts", "value"]))
    if kind == "text":
        return draw(TEXT)
    if kind == "empty":
        return ""
    if kind == "image-only":
        return [_image(draw)]
    if kind == "texts":
        return [TextPart(draw(TEXT)) for _ in range(draw(st.integers(1, 3)))]
    if kind == "value":
        return draw(st.one_of(st.none(), st.integers(), st.just({"k": [1, 2]}), st.just([])))
    return [TextPart(draw(TEXT)), _image(draw)]


def _user_message(draw: Any) -> Message:
    kind = draw(st.sampled_from(["text", "text", "text", "image", "parts", "empty"]))
    if kind == "empty":
        return Message("user", [])
    if kind == "image":
        return Message("user", [TextPart(draw(TEXT)), _image(draw)])
    if kind == "parts":
        return Message("user", [TextPart(draw(TEXT)) for _ in range(draw(st.integers(1, 3)))])
    return Message("user", [TextPart(draw(TEXT))])


def _decoded_turn(draw: Any) -> Message:
    """A model turn decoded by the real codec of a randomly chosen vendor, then maybe made
    awkward (signatures stripped, reasoning relabelled, provider_data dropped)."""
    source = draw(st.sampled_from(APIS))
    plan = draw(_turn_plan(TOOL_NAMES))
    if draw(st.integers(0, 5)) == 0:  # many parallel calls
        plan["calls"] = [(draw(st.sampled_from(TOOL_NAMES)), {"n": i}) for i in range(draw(st.integers(5, 40)))]
        plan["ids"] = [f"{plan['turn_id']}{i}" for i in range(len(plan["calls"]))]
        plan["cut"] = False
    wire = RESPONSE_BUILDERS[source](plan)
    if source == "gemini" and draw(st.booleans()):  # a signature on a text part (Gemini 3 signs the last part)
        parts = wire["candidates"][0]["content"]["parts"]
        if "text" in parts[-1] and not parts[-1].get("thought"):
            parts[-1]["thoughtSignature"] = draw(B64)
    if source == "openai" and draw(st.booleans()):
        for item in wire["output"]:
            if item["type"] == "message":
                item["phase"] = draw(st.sampled_from(["commentary", "final_answer"]))
    response = registry.codec(source).decode_response(wire)
    msg = response.to_message()
    awkward = draw(st.sampled_from(["none", "none", "none", "strip-sig", "relabel", "no-pd", "shuffle"]))
    for p in msg.parts:
        if isinstance(p, ReasoningPart):
            if awkward == "strip-sig":
                p.signature, p.encrypted = None, None
            elif awkward == "relabel":
                p.provider = draw(st.sampled_from(["anthropic", "openai", "gemini", None, "other"]))
        if awkward == "no-pd":
            p.provider_data = {}  # type: ignore[union-attr]
    if awkward == "no-pd":
        msg.provider_data = {}
    if awkward == "shuffle":
        msg.parts = draw(st.permutations(msg.parts))
    return msg


def _hand_built_turn(draw: Any) -> Message:
    parts: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        parts.append(
            ReasoningPart(
                text=draw(TEXT),
                signature=draw(st.one_of(st.none(), SIG)),
                encrypted=draw(st.one_of(st.none(), SIG)),
                provider=draw(st.sampled_from([None, "anthropic", "openai", "openai-responses", "gemini", "other"])),
            )
        )
    for _ in range(draw(st.integers(0, 2))):
        parts.append(TextPart(draw(TEXT)))
    if draw(st.integers(0, 9)) == 0:  # an image in the model's turn (no API takes one there)
        parts.append(_image(draw))
    n_calls = draw(st.sampled_from([0, 1, 1, 2, 3, 12]))
    for _ in range(n_calls):
        kind = draw(st.sampled_from(["ok", "ok", "ok", "invalid", "incomplete", "synth"]))
        parts.append(
            ToolCall(
                id=draw(IDS),
                name=draw(NAMES),
                arguments=None if kind == "invalid" else draw(ARGS),
                raw_arguments='{"a": ' if kind in ("invalid", "incomplete") else None,
                invalid="cut off" if kind == "invalid" else None,
                incomplete=kind == "incomplete",
                id_synthesized=kind == "synth",
            )
        )
    if draw(st.integers(0, 3)) == 0:
        parts = draw(st.permutations(parts))
    return Message("assistant", parts)


def _results_for(draw: Any, calls: list[ToolCall], earlier: list[str]) -> list[Message]:
    """The user message(s) answering ``calls``, the awkward ways included."""

    def result(call_id: str, name: str | None) -> ToolResult:
        return ToolResult(
            call_id,
            _result_content(draw),
            is_error=draw(st.booleans()),
            name=draw(st.sampled_from([name, name, None, "other_name"])),
        )

    results = [result(c.id, c.name) for c in calls]
    how = draw(
        st.sampled_from(
            ["all", "all", "all", "none", "some", "twice", "orphan", "split", "reversed", "text-first", "text-after"]
        )
    )
    if how == "none":
        results = []
    elif how == "some":
        results = results[: len(results) // 2]
    elif how == "twice" and results:
        results.append(result(results[0].tool_call_id, results[0].name))
    elif how == "orphan":
        results.append(result(draw(st.one_of(IDS, st.sampled_from(earlier or ["call_x"]))), "get_weather"))
    elif how == "reversed":
        results.reverse()
    if how == "split" and len(results) > 1:
        return [Message("user", [r]) for r in results]
    if how == "text-first":
        return [Message("user", [TextPart(draw(TEXT)), *results])]
    if how == "text-after":
        return [Message("user", [*results, TextPart(draw(TEXT))])]
    if not results:
        return []
    return [Message("user", list(results))]


@st.composite
def conversations(draw: Any) -> tuple[Conversation, Any]:
    """``(conversation, prompt)``: a history as users hand it over, and the run's prompt
    (``None``, empty text, or text)."""
    msgs: list[Message] = []
    if draw(st.integers(0, 7)) != 0:  # now and then the history starts with the model
        msgs.append(_user_message(draw))
    ids: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        turn = _decoded_turn(draw) if draw(st.booleans()) else _hand_built_turn(draw)
        if draw(st.integers(0, 5)) == 0 and ids:  # an id an earlier call already has
            for p in turn.parts:
                if isinstance(p, ToolCall):
                    p.id = draw(st.sampled_from(ids))
                    break
        msgs.append(turn)
        calls = turn.tool_calls
        ids.extend(c.id for c in calls)
        if draw(st.integers(0, 5)) == 0:  # two assistant messages in a row
            msgs.append(_hand_built_turn(draw))
            calls = calls + msgs[-1].tool_calls
            ids.extend(c.id for c in msgs[-1].tool_calls)
        if draw(st.integers(0, 6)) == 0:  # a user message before the results
            msgs.append(_user_message(draw))
        msgs.extend(_results_for(draw, calls, ids))
        if draw(st.integers(0, 3)) == 0:
            msgs.append(_user_message(draw))
        if draw(st.integers(0, 9)) == 0:  # the same turn and its answers appended again (a replay bug)
            msgs.extend(copy.deepcopy(msgs[msgs.index(turn) :]))
    for m in msgs:  # cache breakpoints set by hand on a few text parts (Anthropic cache_control)
        for p in m.parts:
            if isinstance(p, TextPart) and draw(st.integers(0, 7)) == 0:
                p.provider_data = {**p.provider_data, "anthropic": {"cache_control": {"type": "ephemeral"}}}
    if draw(st.integers(0, 19)) == 0:  # past Chat Completions' 1 048 576 characters in one content
        msgs.append(Message("user", [TextPart("x" * 1_100_000)]))
    instructions = draw(st.sampled_from([None, None, "Be brief.", "", "  \n", "Rules: \ud800", "long " * 5000]))
    prompt = draw(st.sampled_from([None, None, "next", "", "  "]))
    return Conversation(msgs, instructions), prompt


# =============================================================================================
# reading a sent body, per API (from the vendors' wire formats)
# =============================================================================================


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def wire_calls(api: str, body: dict[str, Any]) -> list[tuple[Any, Any]]:
    """``(call id, name)`` of every tool call the body holds, in order."""
    out: list[tuple[Any, Any]] = []
    if api == "anthropic":
        for m in body.get("messages", []):
            for b in _list(m.get("content")):
                if b.get("type") == "tool_use":
                    out.append((b.get("id"), b.get("name")))
    elif api == "openai-chat":
        for m in body.get("messages", []):
            for c in m.get("tool_calls") or []:
                out.append((c.get("id"), (c.get("function") or {}).get("name")))
    elif api == "openai":
        for it in _list(body.get("input")):
            if it.get("type") == "function_call":
                out.append((it.get("call_id"), it.get("name")))
    else:
        for c in body.get("contents", []):
            for p in c.get("parts", []):
                if "functionCall" in p:
                    out.append((p["functionCall"].get("id"), p["functionCall"].get("name")))
    return out


def wire_results(api: str, body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """``(answered call id or Gemini name, content)`` of every tool result the body holds."""
    out: list[tuple[str | None, Any]] = []
    if api == "anthropic":
        for m in body.get("messages", []):
            for b in _list(m.get("content")):
                if b.get("type") == "tool_result":
                    out.append((b.get("tool_use_id"), b.get("content")))
    elif api == "openai-chat":
        for m in body.get("messages", []):
            if m.get("role") == "tool":
                out.append((m.get("tool_call_id"), m.get("content")))
    elif api == "openai":
        for it in _list(body.get("input")):
            if it.get("type") == "function_call_output":
                out.append((it.get("call_id"), it.get("output")))
    else:
        for c in body.get("contents", []):
            for p in c.get("parts", []):
                if "functionResponse" in p:
                    fr = p["functionResponse"]
                    out.append((fr.get("id") or fr.get("name"), fr.get("response")))
    return out


def wire_strings(value: Any, keys: bool = False, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every string value in a JSON body, in document order (and every key, with ``keys``;
    leaving out the values under the keys in ``skip``)."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            if keys:
                out.extend(v)
            stack.extend(reversed([x for k, x in v.items() if k not in skip]))
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return out


def fix_surrogates(text: str) -> str:
    """``text`` as UTF-8 can carry it: each lone surrogate as U+FFFD (what any sender must do)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def snapshot(conv: Conversation) -> Any:
    return copy.deepcopy(conv)


def dump(conv: Conversation, prompt: Any) -> str:
    text = json.dumps({"prompt": prompt, **conv.to_dict()}, ensure_ascii=True, default=repr)
    return text if len(text) < 6000 else text[:6000] + "…"
