"""Each part type's own ``from_dict`` checks its fields' types as :func:`part_from_dict` does: a
saved part loaded directly with a field of the wrong type is refused naming the field, not
rebuilt into a part that fails later (an ``int`` tool call id sent to a vendor)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.types import (
    DocumentPart,
    ImagePart,
    ProviderToolPart,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    part_from_dict,
)

_GOOD: list[tuple[type, dict[str, Any]]] = [
    (TextPart, {"type": "text", "text": "hi"}),
    (ImagePart, {"type": "image", "url": "https://example.com/a.png", "media_type": "image/png"}),
    (DocumentPart, {"type": "document", "data_base64": "JVBERi0xLjQK", "media_type": "application/pdf"}),
    (ReasoningPart, {"type": "reasoning", "text": "because", "signature": "sig"}),
    (ToolCall, {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"q": "x"}}),
    (ToolResult, {"type": "tool_result", "tool_call_id": "c1", "content": "ok", "name": "lookup"}),
    (
        ProviderToolPart,
        {"type": "provider_tool", "provider": "anthropic", "vendor_type": "web_search_tool_result", "raw": {}},
    ),
]

#: (part type, field, a value of the wrong type)
_BAD = [
    (ImagePart, "media_type", 5),
    (ImagePart, "url", ["https://example.com/a.png"]),
    (DocumentPart, "filename", 5),
    (ReasoningPart, "text", 5),
    (ReasoningPart, "signature", {"s": 1}),
    (ReasoningPart, "encrypted", 1.5),
    (ToolCall, "id", 5),
    (ToolCall, "name", None),
    (ToolCall, "arguments", ["x"]),
    (ToolCall, "raw_arguments", {"q": "x"}),
    (ToolCall, "invalid", True),
    (ToolResult, "tool_call_id", 5),
    (ToolResult, "name", 7),
    (ProviderToolPart, "name", 5),
    (ProviderToolPart, "call_id", 5),
    (ProviderToolPart, "summary", None),
]


@pytest.mark.parametrize("cls,saved", _GOOD, ids=[c.__name__ for c, _ in _GOOD])
def test_a_good_part_loads_the_same_directly_and_through_part_from_dict(cls: type, saved: dict[str, Any]) -> None:
    direct = cls.from_dict(saved)  # type: ignore[attr-defined]
    assert direct == part_from_dict(saved)
    assert type(direct) is cls


@pytest.mark.parametrize("cls,field,value", _BAD, ids=[f"{c.__name__}.{f}" for c, f, _ in _BAD])
def test_a_field_of_the_wrong_type_is_refused_by_the_part_s_own_loader(cls: type, field: str, value: Any) -> None:
    saved = dict(next(d for c, d in _GOOD if c is cls))
    saved[field] = value
    with pytest.raises(TypeError, match=rf"{field} must be") as direct:
        cls.from_dict(saved)  # type: ignore[attr-defined]
    with pytest.raises(TypeError) as through:
        part_from_dict(saved)
    assert str(direct.value) == str(through.value)


_LOADERS = [TextPart, ImagePart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart]


@pytest.mark.parametrize("cls", _LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("given", [None, [], "text", 5, [{"text": "x"}]], ids=repr)
def test_a_part_that_is_not_an_object(cls: Any, given: Any) -> None:
    # each loader called directly raised AttributeError ("'NoneType' object has no attribute 'get'")
    with pytest.raises(TypeError, match=r"part must be an object, got " + type(given).__name__):
        cls.from_dict(given)


def _nested(depth: int) -> list[Any]:
    """A list nested ``depth`` deep (as a Python value: JSON text this deep does not load)."""
    top: list[Any] = []
    cur = top
    for _ in range(depth):
        nxt: list[Any] = []
        cur.append(nxt)
        cur = nxt
    return top


@pytest.mark.parametrize(
    ("cls", "d", "field"),
    [
        (None, {"type": "FIELD"}, "unknown part type"),
        (ImagePart, {"data_base64": "FIELD", "media_type": "image/png"}, "data_base64"),
        (ToolCall, {"id": "c1", "name": "FIELD"}, "name"),
        (ToolCall, {"id": "c1", "name": "f", "raw_arguments": "FIELD"}, "raw_arguments"),
        (ToolResult, {"tool_call_id": "c1", "is_error": "FIELD"}, "is_error"),
        (ProviderToolPart, {"provider": "FIELD", "vendor_type": "t", "raw": {}}, "provider"),
        (ProviderToolPart, {"provider": "anthropic", "vendor_type": "FIELD", "raw": {}}, "vendor_type"),
        (ProviderToolPart, {"provider": "anthropic", "vendor_type": "t", "raw": {}, "kind": "FIELD"}, "kind"),
    ],
)
@pytest.mark.parametrize("value", ["nested", "huge"])
def test_a_deeply_nested_or_huge_field_is_named_shortly(cls: Any, d: dict[str, Any], field: str, value: str) -> None:
    # the error message held repr(value): RecursionError for a value nested 5,000 deep, the whole
    # megabyte for a huge one
    bad: Any = _nested(5000) if value == "nested" else ["x" * 1_000_000]
    d = {k: (bad if v == "FIELD" else v) for k, v in d.items()}
    load = part_from_dict if cls is None else cls.from_dict
    with pytest.raises((TypeError, ValueError)) as caught:
        load(d)
    assert field in str(caught.value)
    assert len(str(caught.value)) < 400
