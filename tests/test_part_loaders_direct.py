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
