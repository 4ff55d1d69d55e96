"""Regular expressions from untrusted sources, run with an engine that cannot backtrack.

A pattern a model sends (``search_files``) or a ``pattern`` in an input schema is matched with
`RE2 <https://github.com/google/re2>`_ (the ``google-re2`` distribution), not with Python's
``re``. Python's engine backtracks: ``(a|a)*b`` against 40 ``a`` characters takes longer than the
age of the universe, and it holds the interpreter lock meanwhile, so no tool timeout can fire.
RE2 matches in time linear in the text for every pattern (it builds an automaton, never
backtracks), which is why it was chosen over running Python's ``re`` under a timeout: a thread
cannot be stopped from outside, and a subprocess per match costs milliseconds.

What RE2 does not support — lookahead/lookbehind (``(?=``, ``(?<=``), backreferences (``\\1``),
possessive quantifiers, conditionals — raises :class:`UnsafePatternError` naming the reason
(those are exactly the features that need backtracking). ``\\d``, ``\\w`` and ``\\s`` are ASCII
classes in RE2, as in JSON Schema's ECMA-262 dialect.

Bounds: a pattern longer than :data:`MAX_PATTERN_CHARS` characters is refused; RE2's own memory
bound for the compiled program (:data:`MAX_PROGRAM_BYTES`) refuses patterns such as
``(((a{100}){100}){100})``.
"""

from __future__ import annotations

import functools
from typing import Any

from .errors import ToolwireError

__all__ = ["MAX_PATTERN_CHARS", "MAX_PROGRAM_BYTES", "UnsafePatternError", "compile_pattern", "search"]

#: Longest pattern accepted, in characters.
MAX_PATTERN_CHARS = 4096
#: Memory RE2 may use for one compiled pattern, in bytes (RE2's ``max_mem`` option).
MAX_PROGRAM_BYTES = 8 << 20


class UnsafePatternError(ToolwireError, ValueError):
    """A pattern RE2 cannot run: invalid, longer than :data:`MAX_PATTERN_CHARS`, too large to
    compile, or using a backtracking feature (lookaround, backreference). ``pattern``: the text;
    ``reason``: RE2's explanation; ``bound``: the name of the bound when one was exceeded."""

    def __init__(self, pattern: str, reason: str, bound: str | None = None) -> None:
        self.pattern = pattern
        self.reason = reason
        self.bound = bound
        super().__init__(f"pattern {_shown(pattern)} cannot be used: {reason}")


def _shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 120 else repr(pattern[:120]) + f" (cut, {len(pattern):,} characters)"


def _reason(exc: BaseException) -> str:
    raw = exc.args[0] if exc.args else str(exc)
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    text = str(raw)
    if text.startswith(("b'", 'b"')) and text.endswith(text[1]):
        text = text[2:-1]
    if "invalid perl operator" in text or "invalid escape sequence: \\1" in text or "backreference" in text.lower():
        text += (
            " (lookahead, lookbehind and backreferences need a backtracking engine; patterns run with RE2, "
            "which never backtracks, so they are not supported)"
        )
    elif "pattern too large" in text:
        text += f" (the compiled pattern needs more than {MAX_PROGRAM_BYTES:,} bytes)"
    return text


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str, ignore_case: bool = False, literal: bool = False) -> Any:
    """An RE2 pattern object (``search``/``finditer`` like ``re``). Raises
    :class:`UnsafePatternError` for a pattern RE2 refuses or one longer than
    :data:`MAX_PATTERN_CHARS`."""
    import re2

    if not isinstance(pattern, str):
        raise UnsafePatternError(repr(pattern), f"a pattern must be text, got {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsafePatternError(
            pattern,
            f"it is {len(pattern):,} characters long, more than the bound of {MAX_PATTERN_CHARS:,} (MAX_PATTERN_CHARS)",
            bound="MAX_PATTERN_CHARS",
        )
    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_PROGRAM_BYTES
    options.case_sensitive = not ignore_case
    options.literal = literal
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise UnsafePatternError(
            pattern, _reason(exc), bound="MAX_PROGRAM_BYTES" if "too large" in str(exc) else None
        ) from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (ECMA-262 / JSON Schema ``pattern`` semantics: unanchored) matches
    somewhere in ``text``. Raises :class:`UnsafePatternError` as :func:`compile_pattern`."""
    return compile_pattern(pattern).search(text) is not None
