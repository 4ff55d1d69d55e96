"""Applying the V4A diffs of the Responses ``apply_patch`` tool.

The model sends one file operation per ``apply_patch_call`` (``openai.types.responses.
ResponseApplyPatchToolCall.operation``): ``create_file`` with a ``diff`` whose every line is
``+`` and the text after it, ``update_file`` with a V4A diff, ``delete_file`` without one
(https://platform.openai.com/docs/guides/tools-apply-patch). A V4A update diff is a series of
hunks; a hunk may start with ``@@`` lines naming a line to find first (``@@ def total():``, a
bare ``@@`` names none), then lines of context (`` ``), removals (``-``) and additions (``+``),
found by their text rather than by line numbers; ``*** End of File`` after a hunk anchors it at
the end of the file.

OpenAI's Agents SDK has an applier (``agents.apply_diff``), but importing it loads the whole
Agents SDK (7.5 s measured on the development machine) and pins an older ``websockets`` than the
Gemini SDK takes, so this module applies the format itself. Every failure is a
:class:`PatchError` whose message says which lines were not found and what to send instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PatchError", "apply_create_diff", "apply_update_diff"]

_END_OF_FILE = "*** End of File"


class PatchError(ValueError):
    """A diff that cannot be applied: the message says why and what to send instead."""


@dataclass
class _Hunk:
    anchors: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)  # context and removed lines, in order
    new: list[str] = field(default_factory=list)  # context and added lines, in order
    kinds: list[str] = field(default_factory=list)  # each line's ' ', '-' or '+', in the diff's order
    at_end: bool = False
    changes: int = 0


def _diff_lines(diff: str) -> list[str]:
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in diff.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def apply_create_diff(diff: str) -> str:
    """The text of a new file from a ``create_file`` diff: every line is ``+`` then the line.
    The result ends with a newline when it is not empty. Raises :class:`PatchError` for a line
    without the ``+``."""
    out: list[str] = []
    for no, line in enumerate(_diff_lines(diff), start=1):
        if line.startswith("*** "):
            break  # an envelope line ("*** End Patch"): the file's content ended before it
        if not line.startswith("+"):
            raise PatchError(
                f"line {no} of the create_file diff does not start with '+': {line[:80]!r}. "
                "Every line of a new file's diff is '+' followed by the line's text."
            )
        out.append(line[1:])
    return "\n".join(out) + "\n" if out else ""


def _parse(diff: str) -> list[_Hunk]:
    hunks: list[_Hunk] = []
    current: _Hunk | None = None
    for no, line in enumerate(_diff_lines(diff), start=1):
        if line == "@@" or line.startswith("@@ "):
            if current is None or current.old or current.new:
                current = _Hunk()
                hunks.append(current)
            anchor = line[3:]
            if anchor.strip():
                current.anchors.append(anchor)
            continue
        if line == _END_OF_FILE:
            if current is not None:
                current.at_end = True
            current = None
            continue
        if line.startswith("***"):
            if line.startswith(("*** Begin Patch", "*** End Patch", "*** Update File:")):
                continue  # the patch envelope of the text format, sent by some models inside the diff
            raise PatchError(f"line {no} of the diff is not a diff line: {line[:80]!r}")
        if current is None:
            current = _Hunk()
            hunks.append(current)
        kind, text = (line[0], line[1:]) if line else (" ", "")
        current.kinds.append(kind)
        if kind == " ":
            current.old.append(text)
            current.new.append(text)
        elif kind == "-":
            current.old.append(text)
            current.changes += 1
        elif kind == "+":
            current.new.append(text)
            current.changes += 1
        else:
            raise PatchError(
                f"line {no} of the diff starts with {kind!r}: {line[:80]!r}. Each line starts with ' ' (context), "
                "'-' (removed) or '+' (added); a hunk may start with '@@' and a line to find."
            )
    return [h for h in hunks if h.changes]


def _find(lines: list[str], block: list[str], start: int, at_end: bool) -> int:
    """Where ``block`` starts in ``lines`` at or after ``start`` (exact text first, then ignoring
    trailing, then all surrounding white space); ``-1`` when nowhere."""
    if not block:
        return len(lines) if at_end else start
    size = len(block)
    for norm in (lambda s: s, str.rstrip, str.strip):
        want = [norm(b) for b in block]
        head = want[0]
        candidates = range(start, len(lines) - size + 1)
        if at_end:
            candidates = [len(lines) - size, *candidates] if len(lines) >= size else []
        for i in candidates:
            # the first line decides most places at once (a whole-block comparison at every line
            # made a long hunk that is not in a long file take minutes)
            if i >= 0 and norm(lines[i]) == head and [norm(x) for x in lines[i : i + size]] == want:
                return i
    return -1


def _replacement(hunk: _Hunk, found: list[str]) -> list[str]:
    """What replaces ``found`` (the file's lines the hunk's context and removed lines matched):
    the file's own text for each context line (a match that ignored white space must not change
    it), the diff's text for each added line."""
    out: list[str] = []
    at = 0  # the next line of ``found``
    for kind in hunk.kinds:
        if kind == "+":
            out.append(hunk.new[len(out)])
            continue
        if kind == " ":
            out.append(found[at])
        at += 1
    return out


def _find_anchor(lines: list[str], anchor: str, start: int) -> int:
    for norm in (lambda s: s, str.strip):
        for i in range(start, len(lines)):
            if norm(lines[i]) == norm(anchor):
                return i + 1
    return -1


def apply_update_diff(text: str, diff: str, path: str = "the file") -> str:
    """``text`` with the V4A ``update_file`` diff applied, hunk after hunk, each searched after
    the previous one. Line endings of ``text`` (``\\r\\n`` or ``\\n``) and its final newline are
    kept, and so is the file's own text of each context line (also when it matched only without
    its trailing or surrounding white space): only removed and added lines change. Raises
    :class:`PatchError` when a hunk's ``@@`` line or its context and removed lines
    are not in ``text`` after the previous hunk, or when the diff changes nothing."""
    crlf = "\r\n" in text
    body = text.replace("\r\n", "\n")
    final_newline = body.endswith("\n")
    lines = body[:-1].split("\n") if final_newline else (body.split("\n") if body else [])
    hunks = _parse(diff)
    if not hunks:
        raise PatchError(
            f"the diff for {path} has no added or removed lines. Send '-' lines for the text to remove and '+' "
            "lines for the text to add, with a few ' ' context lines around them."
        )
    cursor = 0
    for n, hunk in enumerate(hunks, start=1):
        for anchor in hunk.anchors:
            found = _find_anchor(lines, anchor, cursor)
            if found < 0:
                raise PatchError(
                    f"hunk {n} of the diff for {path} starts at the line {anchor.strip()!r}, which is not in the "
                    f"file after line {cursor}. Read the file again and use a line it has after '@@ '."
                )
            cursor = found
        at = _find(lines, hunk.old, cursor, hunk.at_end)
        if at < 0:
            shown = "\n".join(hunk.old[:12]) + ("\n..." if len(hunk.old) > 12 else "")
            raise PatchError(
                f"hunk {n} of the diff for {path}: these context and removed lines are not in the file"
                f"{' after line ' + str(cursor) if cursor else ''}:\n{shown}\n"
                "Read the file again and send a diff whose ' ' and '-' lines are copied from it exactly."
            )
        lines[at : at + len(hunk.old)] = _replacement(hunk, lines[at : at + len(hunk.old)])
        cursor = at + len(hunk.new)
    out = "\n".join(lines) + ("\n" if lines and (final_newline or not text) else "")
    return out.replace("\n", "\r\n") if crlf else out
