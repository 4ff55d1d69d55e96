"""Capped results with paging, and cost hints.

A tool that can return a lot must say how much there is and how to get the rest, in terms of
parameters it really has. :func:`capped` declares the cap with the tool, checks at definition
time that the paging parameters exist in the input schema (raising
:class:`~toolwire.errors.ToolDefinitionError` otherwise) and generates the "more available" note
from those declared names only. The cheap answer then carries the price of the expensive one:
``total``, ``truncated`` and ``next_offset`` (see :class:`Page`), sizes in listings
(:func:`format_size`) and match counts (:func:`count_note`).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ToolDefinitionError, ToolError
from ..tools import Tool

__all__ = [
    "Page",
    "CapSpec",
    "page_lines",
    "page_chars",
    "paging_note",
    "capped",
    "cap_of",
    "format_size",
    "count_note",
    "LINE_CHARS",
]


@dataclass
class Page:
    """One page of a longer text.

    - ``text``: the part shown; ``unit``: ``"lines"`` or ``"characters"``;
    - ``start``/``end``: first and last unit shown (lines: 1-based inclusive; characters:
      0-based start, exclusive end); ``total``: units in the whole text;
    - ``truncated``: more follows; ``next_offset``: the offset value that reads on (``None``
      when nothing follows).
    """

    text: str
    unit: str
    start: int
    end: int
    total: int
    truncated: bool
    next_offset: int | None

    def to_dict(self) -> dict[str, Any]:
        """The page without its text: ``{"unit": str, "start": int, "end": int, "total": int,
        "truncated": bool, "next_offset": int or null}``."""
        return {
            "unit": self.unit,
            "start": self.start,
            "end": self.end,
            "total": self.total,
            "truncated": self.truncated,
            "next_offset": self.next_offset,
        }


def page_lines(text: str, offset: int = 1, limit: int | None = None, cap: int = 200) -> Page:
    """Lines ``offset`` .. ``offset + min(limit, cap) - 1`` of ``text`` (1-based ``offset``;
    values below 1 count as 1). An offset past the end gives an empty page whose ``start`` is
    ``total + 1``. Line endings are kept as in the text."""
    lines = text.splitlines(keepends=True)
    total = len(lines)
    start = max(1, int(offset or 1))
    size = cap if limit is None else max(1, min(int(limit), cap))
    chunk = lines[start - 1 : start - 1 + size]
    end = start + len(chunk) - 1
    truncated = end < total
    return Page(
        "".join(chunk),
        "lines",
        start if chunk else total + 1,
        end if chunk else total,
        total,
        truncated,
        end + 1 if truncated else None,
    )


def page_chars(text: str, offset: int = 0, limit: int | None = None, cap: int = 20_000) -> Page:
    """Characters ``offset`` .. ``offset + min(limit, cap)`` of ``text`` (0-based ``offset``)."""
    total = len(text)
    start = max(0, int(offset or 0))
    size = cap if limit is None else max(1, min(int(limit), cap))
    chunk = text[start : start + size]
    end = start + len(chunk)
    truncated = end < total
    return Page(chunk, "characters", start, end, total, truncated, end if truncated else None)


def format_size(n: int) -> str:
    """Bytes for a model: ``"812 bytes"``, ``"238,112 bytes (233 KiB)"``, ``"5,242,880 bytes (5.0 MiB)"``."""
    if n < 1024:
        return f"{n:,} bytes"
    for unit, div in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= div:
            v = n / div
            return f"{n:,} bytes ({v:.1f} {unit})" if v < 10 else f"{n:,} bytes ({v:,.0f} {unit})"
    return f"{n:,} bytes"  # pragma: no cover


def count_note(
    shown: int, total: int, noun: str, *, plural: str | None = None, how_to_narrow: str | None = None
) -> str:
    """``"3 matches"`` or ``"showing 100 of 1,342 matches"`` + how to narrow when truncated.
    ``plural`` defaults to ``noun + "s"`` (``"es"`` after s/x/ch/sh, ``"ies"`` after a consonant + y)."""
    if plural is None:
        from .._words import plural_of

        plural = plural_of(noun)
    if shown >= total:
        return f"{total:,} {noun if total == 1 else plural}"
    note = f"showing {shown:,} of {total:,} {plural}"
    return f"{note}; {how_to_narrow}" if how_to_narrow else note


@dataclass(frozen=True)
class CapSpec:
    """A cap declared with a tool (stored as ``tool.meta["cap"]``).

    ``unit``: ``"lines"`` or ``"characters"``; ``size``: most units per call; ``offset``: the
    declared parameter that says where to start; ``limit``: the declared parameter that says
    how many (``None`` when the tool has none).
    """

    unit: str
    size: int
    offset: str
    limit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"unit": "lines" or "characters", "size": int, "offset": str, "limit": str or null}``: what
        is stored as ``tool.meta["cap"]``."""
        return {"unit": self.unit, "size": self.size, "offset": self.offset, "limit": self.limit}

    @classmethod
    def from_meta(cls, meta: Any) -> CapSpec | None:
        """The cap of a ``tool.meta["cap"]`` value: a :class:`CapSpec` as it is, a :meth:`to_dict` dict
        rebuilt (no ``unit``: ``"lines"``; no ``size``: 0); ``None`` for anything else, a dict without
        ``offset`` included. A ``size`` that ``int()`` cannot read raises its ``ValueError`` /
        ``TypeError``."""
        if isinstance(meta, CapSpec):
            return meta
        if isinstance(meta, dict) and "offset" in meta:
            return cls(meta.get("unit", "lines"), int(meta.get("size", 0)), meta["offset"], meta.get("limit"))
        return None

    def parameters(self) -> list[str]:
        """The declared paging parameter names: ``offset``, then ``limit`` when there is one."""
        return [p for p in (self.offset, self.limit) if p]


def paging_note(page: Page, tool_name: str, spec: CapSpec) -> str:
    """The note appended to a truncated page. It names only ``spec``'s declared parameters::

    [Showing lines 1-200 of 5,120. To read on, call read_file with offset=201 (limit up to 200).]
    """
    if not page.truncated:
        return ""
    span = f"{page.start:,}-{page.end:,}" if page.unit == "lines" else f"{page.start:,}-{page.end:,}"
    more = f"call {tool_name} again with {spec.offset}={page.next_offset}"
    if spec.limit:
        more += f" ({spec.limit} up to {spec.size})"
    return f"[Showing {page.unit} {span} of {page.total:,}. To read on, {more}.]"


def cap_of(tool: Tool) -> CapSpec | None:
    """The tool's declared cap, or ``None``."""
    return CapSpec.from_meta(tool.meta.get("cap"))


def _check(tool: Tool, spec: CapSpec) -> None:
    props = (tool.input_schema or {}).get("properties") or {}
    missing = [p for p in spec.parameters() if p not in props]
    if missing:
        raise ToolDefinitionError(
            f"tool {tool.name!r} declares a {spec.unit} cap paged by {', '.join(repr(p) for p in spec.parameters())}, "
            f"but its input schema does not declare {', '.join(repr(m) for m in missing)} "
            f"(declared: {', '.join(sorted(props)) or 'none'}); the note telling the model how to read on would name "
            "a parameter it cannot send. Add the parameter or name an existing one."
        )
    for p in spec.parameters():
        t = props[p].get("type") if isinstance(props[p], dict) else None
        if t not in ("integer", "number", ["integer", "null"], None):
            raise ToolDefinitionError(
                f"tool {tool.name!r}: paging parameter {p!r} must be an integer, its schema says {t!r}"
            )


#: Characters of one line a ``lines`` cap shows by default (:func:`capped`'s ``line_chars``;
#: ``read_file`` cuts its lines there too).
LINE_CHARS = 2_000


def _cut_lines(text: str, line_chars: int) -> str:
    """``text`` with every line longer than ``line_chars`` characters cut there, the cut said on
    the line (``[... line cut at 2,000 of 5,000,000 characters]``); line endings kept."""
    if len(text) <= line_chars:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if len(body) > line_chars:
            line = (
                f"{body[:line_chars]} [... line cut at {line_chars:,} of {len(body):,} characters]{line[len(body) :]}"
            )
        out.append(line)
    return "".join(out)


def _as_text(result: Any) -> str | None:
    """What a capped function returned, as the text to page: a ``str`` as it is, a list or tuple
    of strings as one line each, any other value the loop would send as text (a dict, a list, a
    number, bytes: :func:`toolwire.executor.to_result_content`) as that text; ``None`` for a
    value that is not text (a :class:`~toolwire.types.ToolResult`, image or text parts), which
    is returned as it is."""
    from ..executor import to_result_content
    from ..types import ToolResult

    if isinstance(result, str):
        return result
    if isinstance(result, (list, tuple)) and result and all(isinstance(x, str) for x in result):
        return "\n".join(result)
    if isinstance(result, ToolResult):
        return None
    content = to_result_content(result)  # (raises as the loop would: a generator, bytes not UTF-8)
    return content if isinstance(content, str) else None


def capped(
    *,
    lines: int | None = None,
    chars: int | None = None,
    offset: str = "offset",
    limit: str | None = "limit",
    line_chars: int = LINE_CHARS,
) -> Callable[[Any], Tool]:
    """Declare a cap with paging on a tool (put it above ``@tool``, or on a plain function,
    which is turned into a :class:`Tool` first).

    Exactly one of ``lines``/``chars`` gives the cap. ``offset`` (and ``limit``, unless
    ``None``) must be parameters of the input schema, else :class:`ToolDefinitionError` is
    raised here, at definition time. The function returns the *whole* text (a ``str``; a list
    of strings is taken as its lines, and any other value the loop sends as text — a dict, a
    list, a number — is paged as that text), or an already cut :class:`Page`; the wrapper cuts it
    by the call's ``offset``/``limit`` values and, when more follows, appends the note from
    :func:`paging_note`. With a ``lines`` cap each line shown is cut at ``line_chars``
    characters (default 2,000), the cut said on the line, so one huge line (minified code, a
    JSON dump) cannot make the answer huge. A :class:`~toolwire.types.ToolResult` or image parts
    are returned as they are. An offset past the end of the text raises
    :class:`~toolwire.errors.ToolError` ("offset 500 is past the end (total 10 lines)"), so the
    model gets an error result, not an empty success. The spec is stored as
    ``tool.meta["cap"]`` so ``toolwire lint`` can check it.
    """
    if (lines is None) == (chars is None):
        raise ToolDefinitionError("capped() needs exactly one of lines= or chars=")
    size = int(lines if lines is not None else chars)  # type: ignore[arg-type]
    if size <= 0:
        raise ToolDefinitionError("capped(): the cap must be a positive number")
    if isinstance(line_chars, bool) or not isinstance(line_chars, int) or line_chars <= 0:
        raise ToolDefinitionError(f"capped(): line_chars must be a whole number > 0, got {line_chars!r}")
    spec = CapSpec("lines" if lines is not None else "characters", size, offset, limit)

    def apply(target: Any) -> Tool:
        t = target if isinstance(target, Tool) else Tool.from_function(target)
        _check(t, spec)
        fn = t.function
        if fn is None:
            t.meta["cap"] = spec.to_dict()
            return t
        props = t.input_schema.get("properties", {})
        default_offset = props.get(spec.offset, {}).get("default", 1 if spec.unit == "lines" else 0)
        default_limit = props.get(spec.limit, {}).get("default") if spec.limit else None

        def finish(result: Any, kwargs: dict[str, Any]) -> Any:
            if isinstance(result, Page):
                page = result
            else:
                text = _as_text(result)
                if text is None:
                    return result
                off = kwargs.get(spec.offset, default_offset)
                lim = kwargs.get(spec.limit, default_limit) if spec.limit else None
                page = (page_lines if spec.unit == "lines" else page_chars)(text, off, lim, spec.size)
                if spec.unit == "lines":
                    page.text = _cut_lines(page.text, line_chars)
            if not page.text:
                off = kwargs.get(spec.offset, default_offset)
                first = 1 if spec.unit == "lines" else 0
                try:
                    past = int(off) > first and (
                        int(off) > page.total if spec.unit == "lines" else int(off) >= page.total
                    )
                except (TypeError, ValueError):
                    past = False
                if past:
                    last = page.total if spec.unit == "lines" else page.total - 1
                    where = f"{spec.offset} between {first} and {last}" if page.total else f"{spec.offset}={first}"
                    raise ToolError(
                        f"{spec.offset} {off} is past the end (total {page.total:,} {spec.unit})",
                        hint=f"Call {t.name} again with {where}.",
                        retryable=False,
                    )
            note = paging_note(page, t.name, spec)
            if not note:
                return page.text
            sep = "" if page.text.endswith("\n") or not page.text else "\n"
            return f"{page.text}{sep}{note}"

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                return finish(await fn(*args, **kwargs), kwargs)

            t.function = acall
        else:

            @functools.wraps(fn)
            def call(*args: Any, **kwargs: Any) -> Any:
                return finish(fn(*args, **kwargs), kwargs)

            t.function = call
        t.meta["cap"] = spec.to_dict()
        return t

    return apply
