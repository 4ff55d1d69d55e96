"""A ready file toolset built from the design kit: list, read, search, run, edit.

Every path is relative to one root (:class:`~toolwire.design.paths.ConfinedRoot`), every large
answer is capped with a note naming only declared parameters, listings carry sizes so the model
knows what a read will cost, and every failure is a :class:`~toolwire.errors.ToolError` with the
next move.
"""



import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pydantic

from ..errors import ToolError
from ..tools import Tool, tool
from .paths import ConfinedRoot
from .results import capped, count_note, format_size, page_lines
from .suggest import closest

__all__ = ["file_tools", "SKIP_DIRS"]

#: Directories that listing and search step over (version control and caches).
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                       "node_modules", ".venv", ".tox"})

_REL = ("relative to the project root, with '/' separators (e.g. 'src/app.py'; '.' is the root); "
        "absolute paths and '..' outside the root are rejected")

_BINARY_SNIFF = 8192
_MAX_LINE_CHARS = 2000
_SEARCH_MAX_FILE = 5 * 1024 * 1024


def _is_binary(p: Path) -> bool:
    try:
        with p.open("rb") as f:
            return b"\x00" in f.read(_BINARY_SNIFF)
    except OSError:
        return False


def _read_text(p: Path, shown: str) -> str:
    if _is_binary(p):
        raise ToolError(f"{shown!r} is a binary file ({format_size(p.stat().st_size)}); read_file shows text only",
                        hint="Pick a text file, or run a command that understands this format.", retryable=False)
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"cannot read {shown!r}: {exc.strerror or exc}", retryable=None) from None


def _count_lines(p: Path) -> int | None:
    try:
        if p.stat().st_size > 1024 * 1024:
            return None
        with p.open("rb") as f:
            data = f.read()
        if b"\x00" in data[:_BINARY_SNIFF]:
            return None
        return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    except OSError:
        return None


def _walk(base: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for fn in sorted(filenames):
            out.append(Path(dirpath) / fn)
    return out


def file_tools(root: str | os.PathLike[str], *, read_cap_lines: int = 200, command_timeout: float = 30.0,
               allowed_commands: list[str] | None = None) -> list[Tool]:
    """The five file tools over ``root``: ``list_dir``, ``read_file``, ``search_files``,
    ``run_command``, ``edit_file`` (in that order).

    - ``read_cap_lines``: most lines one ``read_file`` call returns (paging by ``offset``/``limit``);
    - ``command_timeout``: seconds before ``run_command`` kills the process (its ``timeout``
      argument may ask for less, never more);
    - ``allowed_commands``: program names ``run_command`` may start (``None``: any program on
      ``PATH``); ``python``/``python3`` fall back to the running interpreter when not on ``PATH``.

    Raises :class:`~toolwire.errors.ToolDefinitionError` when ``root`` is not a directory.
    """
    base = ConfinedRoot(root)
    cap = int(read_cap_lines)
    max_timeout = float(command_timeout)
    allowed = list(allowed_commands) if allowed_commands is not None else None


    # -- list_dir ------------------------------------------------------------------------------
    def list_dir(path: str = ".") -> str:
        """List one directory's entries with their kind, size in bytes and line count.

        Call it before read_file to find a file's exact name and to see how big it is, so you
        can page through a large file instead of reading it whole. Line counts are given for
        text files up to 1 MiB.

        Args:
            path: Directory {rel}.
        """
        p = base.resolve(path, must_exist=True, kind="dir", missing_hint="Call list_dir with path='.' to see the root.")
        try:
            children = sorted(p.iterdir(), key=lambda c: (not c.is_dir(), c.name))
        except OSError as exc:
            raise ToolError(f"cannot list {path!r}: {exc.strerror or exc}") from None
        rows = []
        files = dirs = 0
        total_bytes = 0
        for c in children:
            name = base.relative(c) if base._inside(c.resolve()) else c.name
            if c.is_dir():
                dirs += 1
                try:
                    n = sum(1 for _ in c.iterdir())
                except OSError:
                    n = 0
                skipped = " (skipped by search_files)" if c.name in SKIP_DIRS else ""
                rows.append(f"{name}/  dir, {n} entries{skipped}")
            else:
                files += 1
                try:
                    size = c.stat().st_size
                except OSError:
                    size = 0
                total_bytes += size
                lines = _count_lines(c)
                extra = f", {lines:,} lines" if lines is not None else (", binary" if _is_binary(c) else "")
                rows.append(f"{name}  file, {format_size(size)}{extra}")
        head = f"{base.relative(p)}: {dirs} directories, {files} files, {format_size(total_bytes)} in files"
        shown = rows[:500]
        tail = ""
        if len(rows) > len(shown):
            tail = f"\n[{count_note(len(shown), len(rows), 'entry')}; call list_dir with a subdirectory path to narrow it.]"
        return head + "\n" + "\n".join(shown) + tail

    # -- read_file -----------------------------------------------------------------------------
    def read_file(
        path: str,
        offset: Annotated[int, pydantic.Field(ge=1)] = 1,
        limit: Annotated[int, pydantic.Field(ge=1, le=cap)] = cap,
    ):
        p = base.resolve(path, must_exist=True, kind="file",
                         missing_hint="Call list_dir on the parent directory to see the exact names.")
        text = _read_text(p, path)
        page = page_lines(text, offset, limit, cap)
        if page.total and offset > page.total:
            raise ToolError(f"offset {offset} is past the end of {path!r}, which has {page.total:,} lines",
                            hint=f"Call read_file with offset between 1 and {page.total}.", retryable=False)
        width = len(str(page.end))
        out = []
        for i, line in enumerate(page.text.splitlines(), start=page.start):
            if len(line) > _MAX_LINE_CHARS:
                line = line[:_MAX_LINE_CHARS] + f" [... line cut at {_MAX_LINE_CHARS:,} of {len(line):,} characters]"
            out.append(f"{i:>{width}}| {line}")
        page.text = "\n".join(out) + ("\n" if out else "")
        if not page.total:
            page.text = f"({path} is empty)\n"
        return page

    read_file.__doc__ = f"""Read a text file, {cap} lines at most per call, each line prefixed with its number.

        Use it after list_dir or search_files has shown which file and which lines you need; for
        a long file pass offset and limit to read only the part you need.

        Args:
            path: File {_REL}.
            offset: 1-based number of the first line to return.
            limit: How many lines to return, at most {cap}.
        """
    read_file.__doc__ = read_file.__doc__.replace("{rel}", _REL)
    read_tool = capped(lines=cap, offset="offset", limit="limit")(tool(read_file))

    # -- search_files --------------------------------------------------------------------------
    def search_files(
        pattern: str,
        path: str = ".",
        literal: bool = False,
        ignore_case: bool = False,
        max_matches: Annotated[int, pydantic.Field(ge=1, le=500)] = 100,
    ) -> str:
        """Search the contents of text files for a pattern; return matching lines with counts.

        Each match is shown as path:line: text, with the total number of matches per file. Use
        it to find where a name is defined or used before reading a file, instead of reading
        files one by one.

        Args:
            pattern: Text to look for: a Python regular expression, or plain text when literal is true.
            path: Directory or file to search, {rel}.
            literal: Treat pattern as plain text instead of a regular expression.
            ignore_case: Match letters regardless of case.
            max_matches: Most matching lines to return, at most 500; the total is always counted.
        """
        flags = re.IGNORECASE if ignore_case else 0
        try:
            rx = re.compile(re.escape(pattern) if literal else pattern, flags)
        except re.error as exc:
            raise ToolError(f"pattern {pattern!r} is not a valid regular expression: {exc}",
                            hint="Fix the expression, or call search_files again with literal=true to search for the text as is.",
                            retryable=False) from None
        p = base.resolve(path, must_exist=True, missing_hint="Call list_dir to see what exists.")
        files = [p] if p.is_file() else _walk(p)
        shown: list[str] = []
        per_file: dict[str, int] = {}
        total = 0
        skipped = 0
        for f in files:
            try:
                if f.stat().st_size > _SEARCH_MAX_FILE or _is_binary(f):
                    skipped += 1
                    continue
                if not base._inside(f.resolve()):
                    continue
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            rel = base.relative(f)
            for no, line in enumerate(text.splitlines(), start=1):
                if rx.search(line):
                    total += 1
                    per_file[rel] = per_file.get(rel, 0) + 1
                    if len(shown) < max_matches:
                        s = line if len(line) <= 300 else line[:300] + " [...]"
                        shown.append(f"{rel}:{no}: {s}")
        if not total:
            return f"No matches for {pattern!r} in {base.relative(p)} ({len(files) - skipped} text files searched)."
        head = f"{count_note(len(shown), total, 'match')} in {len(per_file)} files"
        body = "\n".join(shown)
        if len(shown) < total:
            counts = ", ".join(f"{k}: {v}" for k, v in sorted(per_file.items(), key=lambda kv: -kv[1])[:20])
            body += (f"\n[Matches per file: {counts}. Narrow it with a more specific pattern or a path, "
                     f"or raise max_matches (up to 500).]")
        return head + "\n" + body

    # -- run_command ---------------------------------------------------------------------------
    out_cap = 200

    def run_command(
        command: Annotated[list[str], pydantic.Field(min_length=1)],
        timeout: Annotated[float, pydantic.Field(gt=0, le=max_timeout)] = max_timeout,
    ) -> str:
        """Run one program in the project root; return its exit code, stdout and stderr.

        Use it to run tests, scripts or build steps and to check an edit; run it again after a
        change, results are never reused. stdout and stderr are each cut to their last 200
        lines.

        Args:
            command: The program and its arguments as a list, e.g. ["python", "scripts/report.py", "--year", "2024"]; no shell, so no pipes, globs or redirection.
            timeout: Seconds before the program is stopped, at most {max_timeout}.
        """
        prog = command[0]
        if allowed is not None and prog not in allowed:
            guess = closest(prog, allowed)
            raise ToolError(f"program {prog!r} is not allowed here",
                            hint=(f"Did you mean {guess[0]!r}? " if guess else "") + "Use one of the allowed programs.",
                            retryable=False, valid_values=allowed)
        exe = shutil.which(prog) if os.sep not in prog else (prog if os.path.isabs(prog) and os.access(prog, os.X_OK) else None)
        if exe is None and prog in ("python", "python3"):
            exe = sys.executable
        if exe is None and os.sep in prog and not os.path.isabs(prog):
            exe = str(base.resolve(prog, must_exist=True, param="command[0]"))
        if exe is None:
            raise ToolError(f"program {prog!r} was not found on PATH",
                            hint="Check the spelling; give the program name alone, arguments as separate list items.",
                            retryable=False)
        try:
            proc = subprocess.run([exe, *command[1:]], cwd=base.root, capture_output=True, timeout=min(timeout, max_timeout),
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            partial = _tail((exc.stdout or b"").decode("utf-8", "replace"), 40)
            raise ToolError(f"{' '.join(command)} did not finish within {min(timeout, max_timeout):g} s and was stopped"
                            + (f"; its last output:\n{partial}" if partial.strip() else ""),
                            hint="Run a smaller piece of work, or pass a larger timeout if the limit allows.",
                            retryable=False) from None
        except OSError as exc:
            raise ToolError(f"could not start {prog!r}: {exc.strerror or exc}", retryable=False) from None
        stdout = proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
        return (f"exit code: {proc.returncode}\n"
                f"--- stdout ---\n{_tail(stdout, out_cap)}\n"
                f"--- stderr ---\n{_tail(stderr, out_cap)}")

    # -- edit_file -----------------------------------------------------------------------------
    def edit_file(
        path: str,
        old_text: Annotated[str, pydantic.Field(min_length=1)],
        new_text: str,
    ) -> str:
        """Replace one exact occurrence of old_text with new_text in a text file.

        Use it to change an existing file after reading the lines you change; include enough
        surrounding lines in old_text to make it unique. The answer shows the changed lines.

        Args:
            path: File {rel}.
            old_text: The exact text to replace, including indentation; it must occur exactly once in the file.
            new_text: The text that replaces old_text; may be empty to delete it.
        """
        p = base.resolve(path, must_exist=True, kind="file",
                         missing_hint="Call list_dir on the parent directory to see the exact names.")
        text = _read_text(p, path)
        count = text.count(old_text)
        if count == 0:
            if len(new_text.strip()) >= 8 and new_text in text:
                at = text[: text.index(new_text)].count("\n") + 1
                raise ToolError(f"old_text was not found in {path!r}, but new_text already is (line {at}): the edit looks applied",
                                hint=f"Call read_file with offset={at} to check it.", retryable=False)
            raise ToolError(f"old_text was not found in {path!r}",
                            hint=_closest_lines(text, old_text) + " Copy the text exactly as read_file shows it, without the line-number prefix.",
                            retryable=False)
        if count > 1:
            lines = []
            start = 0
            while (i := text.find(old_text, start)) != -1:
                lines.append(text[:i].count("\n") + 1)
                start = i + 1
            shown = ", ".join(str(n) for n in lines[:20])
            raise ToolError(f"old_text occurs {count} times in {path!r} (at lines {shown})",
                            hint="Add surrounding lines to old_text so that it matches exactly one place.", retryable=False)
        i = text.index(old_text)
        new = text[:i] + new_text + text[i + len(old_text):]
        try:
            p.write_text(new, encoding="utf-8")
        except OSError as exc:
            raise ToolError(f"cannot write {path!r}: {exc.strerror or exc}") from None
        first = text[:i].count("\n") + 1
        new_lines = new.splitlines()
        last = first + max(new_text.count("\n"), 0)
        lo, hi = max(1, first - 2), min(len(new_lines), last + 2)
        snippet = "\n".join(f"{n:>{len(str(hi))}}| {new_lines[n - 1]}" for n in range(lo, hi + 1))
        return f"Replaced 1 occurrence in {path} (now {len(new_lines):,} lines). Lines {lo}-{hi} now read:\n{snippet}"

    def build(fn):
        fn.__doc__ = (fn.__doc__ or "").replace("{rel}", _REL).replace("{max_timeout}", f"{max_timeout:g}")
        return tool(fn)

    return [build(list_dir), read_tool, build(search_files), build(run_command), build(edit_file)]


def _tail(text: str, n: int) -> str:
    lines = text.splitlines()
    if len(lines) <= n:
        return text.rstrip("\n")
    return f"[... {len(lines) - n:,} earlier lines not shown, {len(lines):,} in all]\n" + "\n".join(lines[-n:])


def _closest_lines(text: str, old_text: str) -> str:
    import difflib

    lines = text.splitlines()
    want = [ln for ln in old_text.splitlines() if ln.strip()] or [old_text]
    first = want[0].strip()
    best, best_i = 0.0, -1
    for i, ln in enumerate(lines):
        r = difflib.SequenceMatcher(None, first, ln.strip()).ratio()
        if r > best:
            best, best_i = r, i
    if best_i < 0 or best < 0.5:
        return "No similar line found; call read_file to see the current text."
    lo, hi = best_i, min(len(lines), best_i + len(want))
    shown = "\n".join(f"{n + 1}| {lines[n]}" for n in range(lo, hi))
    return f"The closest text is at line {best_i + 1}:\n{shown}\n"
