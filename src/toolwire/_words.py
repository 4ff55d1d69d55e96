"""Counted nouns in the text toolwire prints or returns: ``"1 file"``, ``"2 files"``."""

from __future__ import annotations

__all__ = ["plural", "plural_of"]


def plural_of(noun: str) -> str:
    """The plural of an English ``noun`` (its last word): ``+ "es"`` after s/x/ch/sh
    (``"match"`` → ``"matches"``), ``"ies"`` for a consonant + y (``"entry"`` → ``"entries"``),
    else ``+ "s"``."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` (with thousands separators) and ``noun``, in the plural unless ``n`` is 1:
    ``plural(1, "tool call")`` is ``"1 tool call"``, ``plural(2, "tool call")`` ``"2 tool calls"``,
    ``plural(0, "entry")`` ``"0 entries"``. ``many`` gives an irregular plural (default
    :func:`plural_of`)."""
    return f"{n:,} {noun if n == 1 else (many if many is not None else plural_of(noun))}"
