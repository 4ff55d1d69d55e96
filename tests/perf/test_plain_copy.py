"""The per-request copies and the answer reader's shortcut give what the slow paths give.

``toolwire.profile.plain_copy`` replaced ``copy.deepcopy`` (the snapshots of the messages an
incremental request compares before reusing their encoding) and the JSON round trips (the body
entries a repair may change, the kept declarations): each copy must equal the original, share
nothing mutable with it (an edit of the original is seen by ``==``), and keep what a JSON round
trip would have lost (tuples, non-string keys). ``read_answer`` now parses a JSON body without
the error-wording path; a body that path refuses must still be refused with the same error.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire.profile import plain_copy
from toolwire.types import ImagePart, Message, ProviderToolPart, ReasoningPart, TextPart, ToolCall, ToolResult

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.binary(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4) | st.tuples(inner, inner)
    ),
    max_leaves=25,
)


def _containers(a: Any, b: Any):
    """Pairs of corresponding mutable containers/records of a value and its copy."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            yield x, y
            stack.extend(zip(x.values(), y.values()))
        elif isinstance(x, (list, tuple)):
            if isinstance(x, list):
                yield x, y
            stack.extend(zip(x, y))
        elif hasattr(x, "__dict__"):
            yield x, y
            stack.extend(zip(vars(x).values(), vars(y).values()))


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_a_plain_copy_equals_a_deep_copy_and_shares_nothing_mutable(value):
    copied = plain_copy(value)
    assert copied == copy.deepcopy(value)
    assert type(copied) is type(value)
    for original, mine in _containers(value, copied):
        assert original is not mine


def _messages() -> list[Message]:
    return [
        Message("user", [TextPart("hello", {"k": [1, 2]}), ImagePart(data=b"\x89PNG", media_type="image/png")]),
        Message(
            "assistant",
            [
                ReasoningPart("thinking", signature="sig", provider="anthropic"),
                ToolCall("call_1", "lookup", {"q": "a", "opts": {"n": [1, {"deep": True}]}}),
                ProviderToolPart("anthropic", "web_search_tool_result", {"content": [{"url": "u"}]}, call_id="s1"),
            ],
            {"vendor": {"id": "msg_1"}},
        ),
        Message("user", [ToolResult("call_1", [TextPart("secret 4111"), ImagePart(url="https://x/y.png")])]),
    ]


def test_messages_copy_field_by_field_and_an_edit_anywhere_is_seen():
    messages = _messages()
    copied = plain_copy(messages)
    assert copied == messages == copy.deepcopy(messages)
    for original, mine in _containers(messages, copied):
        assert original is not mine
        assert type(original) is type(mine)

    edits = [
        lambda m: setattr(m[0].parts[0], "text", "changed"),
        lambda m: m[0].parts[0].provider_data["k"].append(3),
        lambda m: m[1].parts[1].arguments["opts"]["n"][1].update(deep=False),
        lambda m: m[1].parts[2].raw["content"][0].update(url="v"),
        lambda m: m[1].provider_data["vendor"].update(id="msg_2"),
        lambda m: setattr(m[2].parts[0].content[0], "text", "[redacted]"),
        lambda m: m[2].parts.append(TextPart("more")),
        lambda m: m[0].parts.__setitem__(0, TextPart("hello", {"k": [1, 2]}, "text")),  # equal: not an edit
    ]
    for i, edit in enumerate(edits):
        messages = _messages()
        copied = plain_copy(messages)
        edit(messages)
        if i == len(edits) - 1:
            assert copied == messages
        else:
            assert copied != messages, i


def test_a_subclass_or_a_foreign_object_is_deep_copied():
    class MyPart(TextPart):
        pass

    class Thing:
        def __init__(self) -> None:
            self.items = [1]

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Thing) and other.items == self.items

    value = {"part": MyPart("x"), "thing": Thing(), "tuple": ([1], {2: "two"})}
    copied = plain_copy(value)
    assert copied == value
    assert type(copied["part"]) is MyPart and copied["part"] is not value["part"]
    assert copied["thing"] is not value["thing"] and copied["thing"].items is not value["thing"].items
    assert copied["tuple"][0] is not value["tuple"][0]
    assert list(copied["tuple"][1]) == [2]  # a non-string key stays as it is (a JSON copy makes it "2")


def test_a_cyclic_value_is_copied_as_deepcopy_copies_it():
    value: dict[str, Any] = {"a": [1]}
    value["self"] = value
    copied = plain_copy(value)
    assert copied["self"] is copied and copied is not value and copied["a"] is not value["a"]


def test_a_record_with_slots_is_copied_slot_by_slot():
    from dataclasses import dataclass

    from toolwire.profile import _register_record

    @dataclass(slots=True)
    class Slotted:
        a: list[int]
        b: str = "x"

    _register_record(Slotted)
    value = Slotted([1, 2])
    copied = plain_copy(value)
    assert copied == value and copied.a is not value.a
    value.a.append(3)
    assert copied != value


# -- the answer reader's shortcut ------------------------------------------------------------------


class _Raw:
    """A read-whole response (what the SDKs hand back for a request that was not streamed)."""

    def __init__(self, data: bytes, content_type: str | None = "application/json") -> None:
        import httpx2

        headers = {"content-type": content_type} if content_type else {}
        self.response = httpx2.Response(200, headers=headers, content=data)
        self.response.read()


@pytest.mark.parametrize(
    "data",
    [
        b'{"id": "msg_1", "content": []}',
        b'\xef\xbb\xbf{"a": 1}',
        b'  {"a": "\\ud83d half an emoji"}  ',
        b'{"a": "\\ud83d\\ude00 a whole one", "\\udc00key": ["\\ud800"]}',
        b"[1, 2]",
        b"",
        b"   ",
        b"\xff\xfe{}",
        b'{"a": 1',
        b"<html>bad gateway</html>",
        b'\xef\xbb\xbf\xef\xbb\xbf{"a": 1}',
        b"[" * 100_000 + b"]" * 100_000,
        b'"just a string"',
    ],
)
def test_read_answer_gives_the_value_or_the_error_parse_json_body_gives(data):
    import asyncio

    from toolwire.errors import ResponseDecodeError
    from toolwire.transport import parse_json_body, read_answer

    try:
        expected: Any = parse_json_body("anthropic", data, status=200, content_type="application/json")
    except ResponseDecodeError as exc:
        expected = exc
    try:
        got: Any = asyncio.run(read_answer("anthropic", _Raw(data).response, arrays=True)).body
    except ResponseDecodeError as exc:
        got = exc
    if isinstance(expected, ResponseDecodeError):
        assert isinstance(got, ResponseDecodeError) and str(got) == str(expected)
    elif isinstance(expected, (dict, list)):
        assert got == expected
        assert json.dumps(got) == json.dumps(expected)
    else:  # a JSON string: not an answer
        assert isinstance(got, ResponseDecodeError) and "must be a JSON object" in str(got)


# -- the event-stream reader's shortcut (lines ending at LF only) -----------------------------------

sse_lines = st.lists(
    st.one_of(
        st.just(""),
        st.builds(lambda v: f"data: {v}", st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=12)),
        st.builds(lambda v: f"data:{v}", st.sampled_from(["{}", '{"a": "\\ud83d"}', "[DONE]", "é ☃ \U0001f600"])),
        st.builds(lambda v: f"event: {v}", st.sampled_from(["ping", "message_start", "error"])),
        st.just(": a comment"),
        st.just("id: 7"),
        st.just("\ufeffdata: bom"),
    ),
    max_size=14,
)


def _read_sse(data: bytes, cuts: list[int], *, mask_offset: bool = False) -> Any:
    import asyncio

    from toolwire.errors import ProviderError, ResponseDecodeError
    from toolwire.transport import sse_events

    pieces, last = [], 0
    for c in sorted({min(max(c, 0), len(data)) for c in cuts}):
        pieces.append(data[last:c])
        last = c
    pieces.append(data[last:])

    async def chunks():
        for p in pieces:
            if p:
                yield p

    async def go() -> Any:
        try:
            return [(e.event, e.data) async for e in sse_events("test", chunks())]
        except (ResponseDecodeError, ProviderError) as exc:  # the bytes read differ between LF and CRLF lines
            text = re.sub(r"\(\d+ bytes read\)", "(n bytes read)", str(exc))
            return re.sub(r"offset \d+", "offset N", text) if mask_offset else text

    return asyncio.run(go())


@settings(max_examples=300, deadline=None)
@given(sse_lines, st.lists(st.integers(0, 400), max_size=6), st.booleans(), st.booleans())
@example(lines=["", "data: \ud800"], cuts=[], bom=False, bad_byte=False)  # invalid UTF-8 in line 2
def test_an_lf_stream_reads_as_the_same_stream_read_line_by_line(lines, cuts, bom, bad_byte):
    """LF-only streams take the block-decoding path; the same lines ending CRLF go line by line
    (the path every stream took before); both must give the same events, or the same error
    (an invalid byte's offset included when it is in the first line, where both offsets agree;
    after that a CRLF stream has read one byte more per line, so only the offset may differ)."""
    text = "\n".join(lines) + "\n"
    lf = ("\ufeff" if bom else "").encode() + text.encode("utf-8", "surrogatepass")
    crlf = ("\ufeff" if bom else "").encode() + text.replace("\n", "\r\n").encode("utf-8", "surrogatepass")
    if bad_byte:
        lf, crlf = b"\xff" + lf, b"\xff" + crlf
    try:
        text.encode("utf-8")
        later_invalid = False
    except UnicodeEncodeError:  # a lone surrogate: invalid UTF-8 in some line, maybe after the first,
        later_invalid = True  # where a CRLF stream has read more bytes, so only its offset differs
    assert _read_sse(lf, cuts, mask_offset=later_invalid) == _read_sse(crlf, cuts, mask_offset=later_invalid)
    assert _read_sse(lf, cuts) == _read_sse(lf, [])


# -- snapshots are type-strict: 1, True and 1.0 are == in Python but encode differently ------------


def test_a_snapshot_notices_a_value_changed_to_an_equal_value_of_another_type():
    from toolwire.profile import _snapshot

    nan = float("nan")
    for before, after in [(1, True), (True, 1), (1, 1.0), (0, False), (0.0, -0.0), (0, 0.0), (2, 2.0)]:
        value = {"args": {"x": before}, "list": [before], "tuple": (before,)}
        snap = _snapshot(value)
        assert value == snap and not (value != snap)
        for edit in (
            lambda v: v["args"].update(x=after),
            lambda v: v["list"].__setitem__(0, after),
            lambda v: v.update(tuple=(after,)),
        ):
            edited = {"args": {"x": before}, "list": [before], "tuple": (before,)}
            edit(edited)
            assert edited == value  # Python's == cannot tell them apart
            assert edited != snap and not (edited == snap), (before, after)
    same_nan = {"x": nan}
    assert same_nan == _snapshot(same_nan)  # the same NaN object: unchanged


def test_a_message_snapshot_notices_a_type_only_edit_of_a_field_or_an_argument():
    from toolwire.profile import _snapshot

    def convo() -> list[Message]:
        return [
            Message("assistant", [ToolCall("call_1", "lookup", {"exact": 1, "n": 2.0})]),
            Message("user", [ToolResult("call_1", "ok", is_error=False)]),
        ]

    messages = convo()
    snap = _snapshot(messages)
    assert messages == snap
    edits = [
        lambda m: m[0].parts[0].arguments.update(exact=True),
        lambda m: m[0].parts[0].arguments.update(n=2),
        lambda m: setattr(m[1].parts[0], "is_error", 0),
    ]
    for edit in edits:
        edited = convo()
        edit(edited)
        assert edited == messages and edited != snap


def test_a_tool_schema_default_changed_to_an_equal_value_of_another_type_is_declared_anew():
    from toolwire.adapter import DeclarationMemo
    from toolwire.tools import Tool

    tool = Tool(
        name="t",
        description="d",
        input_schema={"type": "object", "properties": {"x": {"type": "integer", "default": 1}}},
    )
    calls: list[Any] = []

    def translate(t: Any) -> tuple[dict[str, Any], None]:
        calls.append(1)
        return {"name": t.name, "parameters": json.loads(json.dumps(t.input_schema))}, None

    memo = DeclarationMemo()
    first = memo.declaration(tool, translate)
    assert memo.declaration(tool, translate) == first and len(calls) == 1
    tool.input_schema["properties"]["x"]["default"] = True
    again = memo.declaration(tool, translate)
    assert len(calls) == 2 and again["parameters"]["properties"]["x"]["default"] is True
