"""What a schema translation changed, so lint and logs can show it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["SchemaChange", "TranslationReport", "json_pointer"]


def json_pointer(path: tuple[Any, ...] | list[Any]) -> str:
    """RFC 6901 pointer for a path of keys/indexes (``("properties", "a/b")`` → ``/properties/a~1b``)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass
class SchemaChange:
    """One rewrite: ``pointer`` (JSON pointer into the *original* input schema), ``action``
    (``removed``, ``rewritten``, ``inlined``, ``added``, ``stringified``, ``nullable``,
    ``required``, ``unsupported``), the ``keyword`` concerned, a human ``detail``, and
    ``lossy`` (information the model would have used is gone)."""

    pointer: str
    action: str
    keyword: str
    detail: str
    lossy: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{"pointer": str, "action": str, "keyword": str, "detail": str, "lossy": bool}``; every key
        is always present."""
        return {
            "pointer": self.pointer,
            "action": self.action,
            "keyword": self.keyword,
            "detail": self.detail,
            "lossy": self.lossy,
        }


@dataclass
class TranslationReport:
    """All changes one translation made for one tool and one API.

    ``api``: the target (e.g. ``"gemini"``, ``"openai-chat"``); ``tool``: the tool name;
    ``strict_possible``: for strict transforms, whether the schema could be made strict
    (``None`` when not applicable).
    """

    api: str
    tool: str = ""
    changes: list[SchemaChange] = field(default_factory=list)
    strict_possible: bool | None = None

    def add(self, pointer: str, action: str, keyword: str, detail: str, lossy: bool = False) -> None:
        """Record one rewrite: appends a :class:`SchemaChange` with these fields to :attr:`changes`."""
        self.changes.append(SchemaChange(pointer, action, keyword, detail, lossy))

    def __iter__(self) -> Iterator[SchemaChange]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    @property
    def lossy(self) -> bool:
        return any(c.lossy for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        """``{"api": str, "tool": str, "strict_possible": bool or null, "changes": [objects]}``, each
        change's :meth:`SchemaChange.to_dict`, in the order they were made."""
        return {
            "api": self.api,
            "tool": self.tool,
            "strict_possible": self.strict_possible,
            "changes": [c.to_dict() for c in self.changes],
        }
