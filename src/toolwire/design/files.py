"""A ready file toolset built from the design kit: list, read, search, run, edit.

Every path is relative to one root (:class:`~toolwire.design.paths.ConfinedRoot`), every large
answer is capped with a note naming only declared parameters, listings carry sizes so the model
knows what a read will cost, and every failure is a :class:`~toolwire.errors.ToolError` with the
next move.
"""

import codecs
import errno
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable

import pydantic

from .._words import plural
from ..errors import ToolError
from ..secrets import tool_environment
from ..tools import Tool, tool
from .paths import ConfinedRoot, _shown, kind_from_mode, os_reason, shown_name
from .results import Page, capped, count_note, format_size
from .suggest import closest

__all__ = ["file_tools", "SKIP_DIRS", "run_program", "ProgramRun"]

#: Directories that listing and search step over (version control and caches).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
        ".venv",
        ".tox",
    }
)

_REL = (
    "relative to the project root, with '/' separators (e.g. 'src/app.py'; '.' is the root); "
    "absolute paths and '..' outside the root are rejected"
)

_BINARY_SNIFF = 8192
_MAX_LINE_CHARS = 2000
_SEARCH_MAX_FILE = 5 * 1024 * 1024
#: Most entries one list_dir answer shows.
_LIST_CAP = 500
#: Most characters of stdout (and of stderr) run_command returns; the tail is kept.
OUTPUT_CHAR_CAP = 20_000
#: Most lines of stdout (and of stderr) run_command returns; the tail is kept.
OUTPUT_LINE_CAP = 200


class _NotRegular(Exception):
    """The path turned out not to be a regular file when opened (it was never read)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(kind)


def _open_regular(base: ConfinedRoot, p: Path, write: bool = False):
    """Open ``p`` (inside ``base``) for reading (``write``: reading and writing) only if it is a
    regular file. The open cannot be raced: ``base.open_fd`` resolves the path one component at
    a time from the root with ``O_NOFOLLOW``, so a symbolic link swapped in after the path was
    checked cannot lead outside the root, and a file with several hard links is refused
    (:class:`ToolError`). ``O_NONBLOCK`` makes opening a FIFO return at once instead of waiting
    for a writer; the ``fstat`` of the opened descriptor decides. Raises :class:`_NotRegular`,
    :class:`ToolError` or ``OSError``."""
    flags = (os.O_RDWR if write else os.O_RDONLY) | getattr(os, "O_NONBLOCK", 0)
    fd = base.open_fd(p, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _NotRegular(kind_from_mode(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "r+b" if write else "rb")
    except BaseException:
        os.close(fd)
        raise


def _not_regular(shown: str, exc: _NotRegular) -> ToolError:
    return ToolError(
        f"{shown!r} is a {exc.kind}, not a regular file; it is never opened, since reading it could block or have side effects",
        hint="Pick a regular file; call list_dir to see each entry's kind.",
        retryable=False,
    )


#: The characters ``str.splitlines`` ends a line at (``"\r\n"`` counts once): read_file numbers
#: lines as edit_file's answers do.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: Bytes read_file reads at a time.
_READ_CHUNK = 1 << 20


def _read_lines(base: ConfinedRoot, p: Path, shown: str, first: int, count: int) -> tuple[list[tuple[str, int]], int]:
    """Lines ``first`` .. ``first + count - 1`` (1-based) of the regular text file ``p`` and the
    number of lines in all, read in chunks of :data:`_READ_CHUNK` bytes: memory stays bounded
    whatever the size of the file or of one line. Each line is ``(its first _MAX_LINE_CHARS
    characters, its length in characters)``, without its line break; lines are counted as
    ``str.splitlines`` counts them, bytes that are not UTF-8 decoded as U+FFFD. A file with a NUL
    byte in its first :data:`_BINARY_SNIFF` bytes is a :class:`ToolError` (binary), as is one
    that cannot be opened or read (naming only ``shown``, the model's path)."""
    try:
        with _open_regular(base, p) as f:
            if b"\x00" in f.read(_BINARY_SNIFF):
                size = os.fstat(f.fileno()).st_size
                raise ToolError(
                    f"{shown!r} is a binary file ({format_size(size)}); read_file shows text only",
                    hint="Pick a text file, or run a command that understands this format.",
                    retryable=False,
                )
            f.seek(0)
            return _scan_lines(f, first, count)
    except _NotRegular as exc:
        raise _not_regular(shown, exc) from None
    except OSError as exc:
        raise ToolError(f"cannot read {shown!r}: {os_reason(exc)}", retryable=None) from None


def _scan_lines(f: Any, first: int, count: int) -> tuple[list[tuple[str, int]], int]:
    """See :func:`_read_lines`: the lines of the binary file object ``f`` from where it is."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    last = first + count - 1
    rows: list[tuple[str, int]] = []
    total = 0
    head: list[str] = []
    head_len = length = 0
    partial = cr_pending = False
    while True:
        chunk = f.read(_READ_CHUNK)
        piece = decoder.decode(chunk, final=not chunk)
        if cr_pending and piece:
            cr_pending = False
            if piece[0] == "\n":  # the second half of a "\r\n" split between two chunks
                piece = piece[1:]
        for seg in piece.splitlines(keepends=True):
            if seg.endswith("\r\n"):
                body, ended = seg[:-2], True
            elif seg[-1] in _LINE_BREAKS:
                body, ended = seg[:-1], True
            else:
                body, ended = seg, False
            if first <= total + 1 <= last and head_len < _MAX_LINE_CHARS and body:
                take = body[: _MAX_LINE_CHARS - head_len]
                head.append(take)
                head_len += len(take)
            length += len(body)
            partial = not ended
            if ended:
                total += 1
                if first <= total <= last:
                    rows.append(("".join(head), length))
                head, head_len, length = [], 0, 0
        if piece.endswith("\r"):
            cr_pending = True
        if not chunk:
            break
    if partial:  # a last line without a line break
        total += 1
        if first <= total <= last:
            rows.append(("".join(head), length))
    return rows, total


def _is_binary(base: ConfinedRoot, p: Path) -> bool:
    try:
        with _open_regular(base, p) as f:
            return b"\x00" in f.read(_BINARY_SNIFF)
    except (_NotRegular, OSError, ToolError):
        return False


def _count_lines(base: ConfinedRoot, p: Path) -> int | None:
    """Lines of a regular text file up to 1 MiB (``None`` otherwise); opens nothing else."""
    try:
        with _open_regular(base, p) as f:
            if os.fstat(f.fileno()).st_size > 1024 * 1024:
                return None
            data = f.read()
    except (_NotRegular, OSError, ToolError):
        return None
    if b"\x00" in data[:_BINARY_SNIFF]:
        return None
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def _listdir(base: ConfinedRoot, p: Path) -> list[str]:
    """The names in directory ``p``, listed through a descriptor opened without following a
    link out of the root (see :meth:`ConfinedRoot.open_fd`)."""
    fd = base.open_fd(p, directory=True)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


#: How list_dir shows entries that are neither files nor directories.
_OTHER_KINDS = {
    "outside": "link to outside the root (not followed)",
    "broken": "broken link (its target does not exist)",
    "loop": "link loop (links that point at each other; not followed)",
    "unreadable": "unreadable entry",
}


@dataclass
class _Entry:
    """What a directory entry is, found without opening anything but regular files.

    ``kind``: ``"file"``, ``"dir"``, a special kind (:func:`kind_from_mode`), ``"outside"`` (a
    link whose target is outside the root), ``"broken"`` (a link to nothing), ``"loop"`` (a
    link loop) or ``"unreadable"``; ``target``: the in-root path a link leads to; ``st``: the
    stat of what the entry names (``None`` for links that are not followed)."""

    path: Path
    kind: str
    target: str | None = None
    st: os.stat_result | None = None


def _classify(base: ConfinedRoot, c: Path) -> _Entry:
    try:
        lst = os.lstat(c)
    except OSError:
        return _Entry(c, "unreadable")
    if not stat.S_ISLNK(lst.st_mode):
        return _Entry(c, kind_from_mode(lst.st_mode), None, lst)
    try:
        real = c.resolve(strict=True)
    except RuntimeError:  # Python < 3.13: a loop
        return _Entry(c, "loop")
    except OSError as exc:
        return _Entry(c, "loop" if exc.errno == errno.ELOOP else "broken")
    if not base._inside(real):
        return _Entry(c, "outside")  # no stat: nothing about the target is shown
    try:
        st = os.stat(real)
    except OSError:
        return _Entry(c, "broken")
    return _Entry(c, kind_from_mode(st.st_mode), base.relative(real), st)


def _walk(base: ConfinedRoot, top: Path) -> tuple[list[Path], int]:
    """Regular files under ``top`` (links followed only to regular files inside the root; links
    to directories are not descended), and how many other entries were passed over."""
    out = []
    other = 0
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for fn in sorted(filenames):
            e = _classify(base, Path(dirpath) / fn)
            if e.kind == "file":
                out.append(e.path)
            else:
                other += 1
    return out, other


def file_tools(
    root: str | os.PathLike[str],
    *,
    read_cap_lines: int = 200,
    command_timeout: float = 30.0,
    allowed_commands: list[str] | None = None,
    env_allow: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> list[Tool]:
    """The five file tools over ``root``: ``list_dir``, ``read_file``, ``search_files``,
    ``run_command``, ``edit_file`` (in that order).

    - ``read_cap_lines``: most lines one ``read_file`` call returns (paging by ``offset``/``limit``);
    - ``command_timeout``: seconds before ``run_command`` kills the process (its ``timeout``
      argument may ask for less, never more);
    - ``allowed_commands``: program names ``run_command`` may start (``None``: any program on
      ``PATH``); ``python``/``python3`` fall back to the running interpreter when not on ``PATH``;
    - ``env_allow``: more environment variable names (or ``*`` patterns) ``run_command``'s
      programs inherit, beyond :data:`toolwire.secrets.DEFAULT_TOOL_ENV` (``PATH``, ``HOME``,
      ``LANG``, ``LC_*``, ``TMPDIR``, …); ``env``: variables set for them as given. A program
      never inherits the rest of the environment, so it cannot read an API key (a credential-
      looking name is passed only when ``env_allow`` names it exactly).

    Raises :class:`~toolwire.errors.ToolDefinitionError` when ``root`` is not a directory.
    """
    base = ConfinedRoot(root)
    cap = int(read_cap_lines)
    max_timeout = float(command_timeout)
    allowed = list(allowed_commands) if allowed_commands is not None else None
    env_names = tuple(env_allow)
    env_extra = dict(env or {})

    # -- list_dir ------------------------------------------------------------------------------
    def list_dir(path: str = ".") -> str:
        """List one directory's entries with their kind, size in bytes and line count.

        Call it before read_file to find a file's exact name and to see how big it is, so you
        can page through a large file instead of reading it whole. Line counts are given for
        text files up to 1 MiB. Special files and links out of the root are listed by kind only.

        Args:
            path: Directory {rel}.
        """
        p = base.resolve(path, must_exist=True, kind="dir", missing_hint="Call list_dir with path='.' to see the root.")
        try:
            names = sorted(_listdir(base, p))
        except OSError as exc:
            raise ToolError(f"cannot list {path!r}: {os_reason(exc)}") from None
        entries = [_classify(base, p / n) for n in names]
        entries.sort(key=lambda e: (e.kind != "dir", e.path.name))
        files = sum(1 for e in entries if e.kind == "file")
        dirs = sum(1 for e in entries if e.kind == "dir")
        others = len(entries) - files - dirs
        total_bytes = sum(e.st.st_size for e in entries if e.kind == "file" and e.st is not None)
        rows = []
        # only the entries shown are opened (line counts, entry counts): a directory of many
        # large files is not read whole to show its first _LIST_CAP rows
        for e in entries[:_LIST_CAP]:
            name = shown_name(base.relative(p / e.path.name))
            via = f", link to {shown_name(e.target)}" if e.target is not None else ""
            if e.kind == "dir":
                try:
                    n = plural(len(_listdir(base, e.path)), "entry")
                except ToolError:
                    n = "not listed (it changed into a link out of the root)"
                except OSError as exc:
                    n = f"not readable ({os_reason(exc)})"
                skipped = " (skipped by search_files)" if e.path.name in SKIP_DIRS else ""
                rows.append(f"{name}/  dir, {n}{via}{skipped}")
            elif e.kind == "file":
                size = e.st.st_size if e.st is not None else 0
                lines = _count_lines(base, e.path)
                extra = (
                    f", {plural(lines, 'line')}"
                    if lines is not None
                    else (", binary" if _is_binary(base, e.path) else "")
                )
                if e.st is not None and e.st.st_nlink > 1:
                    extra += f", {e.st.st_nlink} hard links (never opened)"
                rows.append(f"{name}  file, {format_size(size)}{extra}{via}")
            else:
                rows.append(f"{name}  {_OTHER_KINDS.get(e.kind, e.kind + ', never opened')}{via}")
        head = f"{shown_name(base.relative(p))}: {plural(dirs, 'directory')}, {plural(files, 'file')}"
        if others:
            head += f", {plural(others, 'other entry')}"
        head += f", {format_size(total_bytes)} in files"
        tail = ""
        if len(entries) > len(rows):
            tail = f"\n[{count_note(len(rows), len(entries), 'entry')}; call list_dir with a subdirectory path to narrow it.]"
        return head + "\n" + "\n".join(rows) + tail

    # -- read_file -----------------------------------------------------------------------------
    def read_file(
        path: str,
        offset: Annotated[int, pydantic.Field(ge=1)] = 1,
        limit: Annotated[int, pydantic.Field(ge=1, le=cap)] = cap,
    ):
        p = base.resolve(
            path,
            must_exist=True,
            kind="file",
            missing_hint="Call list_dir on the parent directory to see the exact names.",
        )
        start = max(1, int(offset))
        size = max(1, min(int(limit), cap))
        rows, total = _read_lines(base, p, path, start, size)
        if total and offset > total:
            raise ToolError(
                f"offset {offset} is past the end of {path!r}, which has {plural(total, 'line')}",
                hint=f"Call read_file with offset between 1 and {total}.",
                retryable=False,
            )
        end = start + len(rows) - 1
        width = len(str(end))
        out = []
        for i, (line, length) in enumerate(rows, start=start):
            if length > _MAX_LINE_CHARS:
                line += f" [... line cut at {_MAX_LINE_CHARS:,} of {length:,} characters]"
            out.append(f"{i:>{width}}| {line}")
        text = "\n".join(out) + ("\n" if out else "")
        if not total:
            text = f"({path} is empty)\n"
        truncated = end < total
        return Page(
            text,
            "lines",
            start if rows else total + 1,
            end if rows else total,
            total,
            truncated,
            end + 1 if truncated else None,
        )

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
            pattern: Text to look for: a regular expression (RE2 syntax, like Python's without lookaround or backreferences), or plain text when literal is true.
            path: Directory or file to search, {rel}.
            literal: Treat pattern as plain text instead of a regular expression.
            ignore_case: Match letters regardless of case.
            max_matches: Most matching lines to return, at most 500; the total is always counted.
        """
        from ..safe_regex import UnsafePatternError, compile_pattern

        try:  # RE2: matching time is linear in the text for every pattern, so no pattern can hang
            rx = compile_pattern(pattern, ignore_case=bool(ignore_case), literal=bool(literal))
        except UnsafePatternError as exc:
            raise ToolError(
                f"pattern {_shown(pattern)} is not a valid regular expression for this tool (RE2 syntax): {exc.reason}",
                hint="Fix the expression, or call search_files again with literal=true to search for the text as is.",
                retryable=False,
            ) from None
        p = base.resolve(path, must_exist=True, missing_hint="Call list_dir to see what exists.")
        try:
            what = kind_from_mode(os.stat(p).st_mode)
        except OSError as exc:
            raise ToolError(f"cannot search {path!r}: {os_reason(exc)}") from None
        if what not in ("file", "dir"):
            raise ToolError(
                f"{path!r} is a {what}, not a file or directory; search_files opens regular files only",
                hint="Pass a directory or a regular file; call list_dir to see each entry's kind.",
                retryable=False,
            )
        files, _other = ([p], 0) if what == "file" else _walk(base, p)
        shown: list[str] = []
        per_file: dict[str, int] = {}
        total = 0
        searched = 0
        for f in files:
            try:
                with _open_regular(base, f) as fh:
                    if os.fstat(fh.fileno()).st_size > _SEARCH_MAX_FILE:
                        continue
                    data = fh.read()
            except (
                _NotRegular,
                OSError,
                ToolError,
            ):  # not regular, hard-linked, or changed into a link out of the root
                continue
            if b"\x00" in data[:_BINARY_SNIFF]:
                continue
            searched += 1
            text = data.decode("utf-8", errors="replace")
            rel = shown_name(base.relative(f))
            for no, line in enumerate(text.splitlines(), start=1):
                if rx.search(line):
                    total += 1
                    per_file[rel] = per_file.get(rel, 0) + 1
                    if len(shown) < max_matches:
                        s = line if len(line) <= 300 else line[:300] + " [...]"
                        shown.append(f"{rel}:{no}: {s}")
        if not total:
            return (
                f"No matches for {_shown(pattern)} in {shown_name(base.relative(p))} ({searched} text files searched)."
            )
        head = f"{count_note(len(shown), total, 'match')} in {plural(len(per_file), 'file')}"
        body = "\n".join(shown)
        if len(shown) < total:
            counts = ", ".join(f"{k}: {v}" for k, v in sorted(per_file.items(), key=lambda kv: -kv[1])[:20])
            body += (
                f"\n[Matches per file: {counts}. Narrow it with a more specific pattern or a path, "
                f"or raise max_matches (up to 500).]"
            )
        return head + "\n" + body

    # -- run_command ---------------------------------------------------------------------------
    def run_command(
        command: Annotated[list[str], pydantic.Field(min_length=1)],
        timeout: Annotated[float, pydantic.Field(gt=0, le=max_timeout)] = max_timeout,
    ) -> str:
        """Run one program in the project root; return its exit code, stdout and stderr.

        Use it to run tests, scripts or build steps and to check an edit; run it again after a
        change, results are never reused. stdout and stderr are each cut to their last 200
        lines and 20,000 characters; background processes it leaves are stopped.

        Args:
            command: The program and its arguments as a list, e.g. ["python", "scripts/report.py", "--year", "2024"]; no shell, so no pipes, globs or redirection.
            timeout: Seconds before the program is stopped, at most {max_timeout}.
        """
        prog = command[0]
        if not os.path.isdir(base.root):  # (else: "could not start 'ls': No such file or directory")
            raise base._root_gone()
        exe = _resolve_program(base, command, allowed)
        limit = min(float(timeout), max_timeout)
        try:
            run = _run_program(
                [exe, *command[1:]], cwd=base.root, timeout=limit, env=tool_environment(env_names, extra=env_extra)
            )
        except (OSError, ValueError) as exc:
            raise ToolError(
                f"could not start {prog!r}: {os_reason(exc) if isinstance(exc, OSError) else exc}", retryable=False
            ) from None
        shown_cmd = shlex.join(command)
        if run.timed_out:
            parts = [
                f"{shown_cmd} did not finish within {limit:g} s and was stopped (SIGKILL to its process group"
                + (
                    f", which also stopped {plural(len(run.leftovers), 'other process')}: {_procs(run.leftovers)}"
                    if run.leftovers
                    else ""
                )
                + ")"
            ]
            if run.output_open:
                parts.append(
                    "Its output was still held open by a process outside its process group; output up to then is shown."
                )
            out, err = run.stdout.render(40), run.stderr.render(40)
            if out.strip():
                parts.append(f"--- stdout (last part) ---\n{out}")
            if err.strip():
                parts.append(f"--- stderr (last part) ---\n{err}")
            if not out.strip() and not err.strip():
                parts.append("It wrote no output.")
            raise ToolError(
                "\n".join(parts),
                hint="Run a smaller piece of work, or pass a larger timeout if the limit allows.",
                retryable=False,
            )
        code = run.returncode
        status = f"exit code: {code}"
        if code is not None and code < 0:
            try:
                status += f" (killed by signal {signal.Signals(-code).name})"
            except ValueError:
                status += f" (killed by signal {-code})"
        notes = []
        if run.leftovers:
            notes.append(
                f"note: the program exited but left {plural(len(run.leftovers), 'background process')} "
                f"running ({_procs(run.leftovers)}); {'it was' if len(run.leftovers) == 1 else 'they were'} stopped (SIGKILL to its process group)"
            )
        if run.output_open:
            notes.append(
                f"note: the program exited but its output stayed open (held by a process outside its process group); "
                f"output after {limit:g} s was not collected"
            )
        return (
            status + "".join("\n" + n for n in notes) + "\n"
            f"--- stdout ---\n{run.stdout.render(OUTPUT_LINE_CAP)}\n"
            f"--- stderr ---\n{run.stderr.render(OUTPUT_LINE_CAP)}"
        )

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
        p = base.resolve(
            path,
            must_exist=True,
            kind="file",
            missing_hint="Call list_dir on the parent directory to see the exact names.",
        )
        try:
            fh = _open_regular(base, p, write=True)
        except _NotRegular as exc:
            raise _not_regular(path, exc) from None
        except OSError as exc:
            raise ToolError(f"cannot open {path!r} for editing: {os_reason(exc)}", retryable=None) from None
        with fh:
            data = fh.read()
            if b"\x00" in data[:_BINARY_SNIFF]:
                raise ToolError(
                    f"{path!r} is a binary file ({format_size(len(data))}); edit_file changes text files only",
                    hint="Change it with run_command and a program that understands this format.",
                    retryable=False,
                )
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                raise ToolError(
                    f"{path!r} is not UTF-8 text (byte 0x{data[exc.start]:02X} at line {line} cannot be decoded); edit_file "
                    "writes UTF-8 only and would damage the bytes it cannot decode, so the file was not changed",
                    hint="Change it with run_command and a program that reads and writes the file's own encoding "
                    "(e.g. python with open(path, encoding='latin-1')), or convert the file to UTF-8 first.",
                    retryable=False,
                ) from None
            nl = _newline_of(text)
            adapted = False
            count, starts = _occurrences(text, old_text)
            if count == 0:
                old_nl = _with_newlines(old_text, nl)
                if old_nl != old_text:
                    count, starts = _occurrences(text, old_nl)
                    if count:
                        old_text, adapted = old_nl, True
            new_nl = _with_newlines(new_text, nl)
            adapted = adapted or (new_nl != new_text and nl == "\r\n")
            new_text = new_nl
            if count == 0:
                if len(new_text.strip()) >= 8 and new_text in text:
                    at = _line_at(text, text.index(new_text))
                    raise ToolError(
                        f"old_text was not found in {path!r}, but new_text already is (line {at}): the edit looks applied",
                        hint=f"Call read_file with offset={at} to check it.",
                        retryable=False,
                    )
                raise ToolError(
                    f"old_text was not found in {path!r}",
                    hint=_closest_lines(text, old_text)
                    + " Copy the text exactly as read_file shows it, without the line-number prefix.",
                    retryable=False,
                )
            if count > 1:
                per_line: dict[int, int] = {}
                for ln in _lines_at(text, starts[:200]):
                    per_line[ln] = per_line.get(ln, 0) + 1
                items = list(per_line.items())
                shown = ", ".join(f"{ln} ({n} matches)" if n > 1 else str(ln) for ln, n in items[:20])
                more = " and more" if len(items) > 20 or count > len(starts[:200]) else ""
                where = f"line {shown}" if len(items) == 1 else f"lines {shown}{more}"
                overlap = any(b - a < len(old_text) for a, b in zip(starts, starts[1:]))
                raise ToolError(
                    f"old_text occurs {count} times in {path!r} (at {where})"
                    + ("; some of the matches overlap" if overlap else ""),
                    hint="Add surrounding lines to old_text so that it matches exactly one place.",
                    retryable=False,
                )
            i = starts[0]
            new = text[:i] + new_text + text[i + len(old_text) :]
            try:  # the same descriptor that was read: same file (mode, owner kept), whatever the path names now
                # written unbuffered at offset 0, so nothing is left pending in fh to be flushed later
                encoded = new.encode("utf-8")
                _write_all(fh.fileno(), encoded)
                os.ftruncate(fh.fileno(), len(encoded))
            except OSError as exc:
                # a write cut short (disk full, file size limit) left the start of the new text over
                # the old: put the old bytes back (they fit where they were) before answering
                raise _write_failed(fh.fileno(), data, path, exc) from None
            new_lines = new.splitlines()
            total = len(new_lines)
            note = (
                " (old_text and new_text were matched and written with the file's CRLF line endings)" if adapted else ""
            )
            if total == 0:
                return f"Replaced 1 occurrence in {path}; the file is now empty.{note}"
            first = min(_line_at(new, i), total)
            last = min(_line_at(new, i + len(new_text)) if new_text else first, total)
            lo, hi = max(1, first - 2), min(total, last + 2)
            lo = min(lo, hi)
            snippet = "\n".join(f"{n:>{len(str(hi))}}| {new_lines[n - 1]}" for n in range(lo, hi + 1))
            return f"Replaced 1 occurrence in {path} (now {plural(total, 'line')}){note}. Lines {lo}-{hi} now read:\n{snippet}"

    def build(fn: Callable[..., Any]) -> Tool:
        fn.__doc__ = (fn.__doc__ or "").replace("{rel}", _REL).replace("{max_timeout}", f"{max_timeout:g}")
        return tool(fn)

    return [build(list_dir), read_tool, build(search_files), build(run_command), build(edit_file)]


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` at offset 0 of ``fd``, unbuffered, repeating until all of it is written."""
    os.lseek(fd, 0, os.SEEK_SET)
    written = 0
    view = memoryview(data)
    while written < len(data):
        n = os.write(fd, view[written:])
        if n <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        written += n


def _write_failed(fd: int, data: bytes, path: str, exc: OSError) -> ToolError:
    """The answer to an edit whose write failed part way, after writing the file's original
    ``data`` back to ``fd`` (the descriptor that was read): the file unchanged, or, when even
    that fails, a warning that it may be damaged."""
    reason = os_reason(exc)
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
    except OSError as again:
        return ToolError(
            f"cannot write {path!r}: {reason}; putting its old text back failed too ({os_reason(again)}), so the file "
            "may now hold part of the new text",
            hint="Call read_file to see what it holds now, and tell the user if it is damaged.",
            retryable=None,
        )
    return ToolError(
        f"cannot write {path!r}: {reason}; the file was left unchanged",
        hint="The edit was not applied; tell the user (the disk may be full).",
        retryable=None,
    )


def _procs(members: list[tuple[int, str]]) -> str:
    shown = [f"{name} (pid {pid})" if pid else name for pid, name in members[:5]]
    return ", ".join(shown) + (f" and {len(members) - 5} more" if len(members) > 5 else "")


class _Capture:
    """Reads one output pipe to its end on a daemon thread, keeping only the counts (characters,
    line breaks) and the last :data:`OUTPUT_CHAR_CAP` + 2 characters, so a program that writes
    gigabytes costs no memory."""

    _KEEP = OUTPUT_CHAR_CAP + 2

    def __init__(self, pipe) -> None:
        self.pipe = pipe
        self.chars = 0
        self.newlines = 0
        self.tail = ""
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        self.thread = threading.Thread(target=self._read, name="toolwire-run-command-reader", daemon=True)
        self.thread.start()

    def _add(self, text: str) -> None:
        if text:
            self.chars += len(text)
            self.newlines += text.count("\n")
            self.tail = (self.tail + text)[-self._KEEP :]

    def _read(self) -> None:
        fd = self.pipe.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                self._add(self._dec.decode(chunk))
        except (OSError, ValueError):
            pass
        self._add(self._dec.decode(b"", final=True))

    def done(self, timeout: float) -> bool:
        self.thread.join(max(timeout, 0.0))
        if self.thread.is_alive():
            return False
        self.pipe.close()
        return True

    def render(self, max_lines: int) -> str:
        """The last ``max_lines`` lines, at most :data:`OUTPUT_CHAR_CAP` characters of them,
        after a note stating the cut, the caps and the totals when anything is left out."""
        whole = self.chars == len(self.tail)
        body = self.tail[:-1] if self.tail.endswith("\n") else self.tail
        total_lines = self.newlines + (1 if self.chars and not self.tail.endswith("\n") else 0)
        lines = body.split("\n") if body else []
        keep = lines[-max_lines:]
        shown = "\n".join(ln[:-1] if ln.endswith("\r") else ln for ln in keep)
        char_cut = len(shown) > OUTPUT_CHAR_CAP
        if char_cut:
            shown = shown[-OUTPUT_CHAR_CAP:]
        if whole and len(keep) == len(lines) and not char_cut:
            return shown
        shown_lines = shown.count("\n") + 1 if shown else 0
        return (
            f"[... cut: showing the end, {shown_lines:,} of {plural(total_lines, 'line')} and {len(shown):,} of "
            f"{self.chars:,} characters (the cap is {max_lines:,} lines and {OUTPUT_CHAR_CAP:,} characters)]\n" + shown
        )


def not_allowed_message(program: str, allowed: list[str]) -> str:
    """The one-line answer for a program outside ``allowed``, naming the allowed programs:
    ``program 'cat' is not allowed here; the allowed programs are: python, ls`` (used by
    ``run_command``, :func:`run_program` and every confined shell built on them)."""
    names = ", ".join(allowed) if allowed else "(none)"
    return f"program {program!r} is not allowed here; the allowed programs are: {names}"


def _resolve_program(base: ConfinedRoot, command: list[str], allowed: list[str] | None) -> str:
    """The executable for ``command[0]``: on ``PATH``, an absolute path, or a path inside the
    root; ``python``/``python3`` fall back to the running interpreter. Raises :class:`ToolError`
    for a NUL byte, a program outside ``allowed``, or a program that is not found."""
    for i, arg in enumerate(command):
        if "\x00" in arg:
            raise ToolError(
                f"command[{i}] contains a NUL byte, which no program argument can hold",
                hint="Send each argument as plain text without NUL characters.",
                retryable=False,
            )
    prog = command[0]
    if allowed is not None and prog not in allowed:
        guess = closest(prog, allowed)
        raise ToolError(
            not_allowed_message(prog, allowed),
            hint=(f"Did you mean {guess[0]!r}? " if guess else "") + "Use one of the allowed programs.",
            retryable=False,
            valid_values=allowed,
        )
    exe = (
        shutil.which(prog)
        if os.sep not in prog
        else (prog if os.path.isabs(prog) and os.access(prog, os.X_OK) else None)
    )
    if exe is None and prog in ("python", "python3"):
        exe = sys.executable
    if exe is None and os.sep in prog and not os.path.isabs(prog):
        exe = str(base.resolve(prog, must_exist=True, kind="file", param="command[0]"))
    if exe is None:
        raise ToolError(
            f"program {prog!r} was not found on PATH",
            hint="Check the spelling; give the program name alone, arguments as separate list items.",
            retryable=False,
        )
    return exe


@dataclass(frozen=True)
class ProgramRun:
    """What :func:`run_program` saw: ``exit_code`` (``None`` when the program was stopped at the
    time limit; negative when a signal killed it), ``timed_out``, ``stdout`` and ``stderr`` (each
    its last :data:`OUTPUT_LINE_CAP` lines and :data:`OUTPUT_CHAR_CAP` characters, after a note
    saying so when cut), ``notes`` (background processes it left, which were stopped; output held
    open) and ``duration`` in seconds."""

    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    notes: tuple[str, ...] = ()
    duration: float = 0.0


def run_program(
    root: str | os.PathLike[str] | ConfinedRoot,
    command: list[str],
    *,
    cwd: str = ".",
    timeout: float = 30.0,
    allowed_commands: list[str] | None = None,
    env_allow: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> ProgramRun:
    """Run one program the way the ``run_command`` file tool does, and return its outcome as
    data: no shell, ``command`` is the program and its arguments; ``cwd`` a directory inside
    ``root`` (relative to it, or absolute inside it); ``timeout`` in seconds (the whole process
    group is killed at the limit, and background processes it leaves are stopped); the
    environment is :func:`toolwire.secrets.tool_environment` (``env_allow``, ``env``), so no
    credential reaches the program; ``allowed_commands``: program names it may start (``None``:
    any on ``PATH``). Raises :class:`ToolError` (with the next step) for an empty command, a
    program not allowed or not found, a ``cwd`` outside the root, or a program that cannot
    start."""
    base = root if isinstance(root, ConfinedRoot) else ConfinedRoot(root)
    if not command or not all(isinstance(a, str) for a in command):
        raise ToolError(
            "the command must be a non-empty list of strings (the program, then its arguments)",
            hint='Send e.g. ["ls", "-la"].',
            retryable=False,
        )
    exe = _resolve_program(base, list(command), list(allowed_commands) if allowed_commands is not None else None)
    where = base.resolve(cwd, must_exist=True, kind="dir", param="working directory")
    start = time.monotonic()
    try:
        run = _run_program(
            [exe, *command[1:]], cwd=where, timeout=float(timeout), env=tool_environment(tuple(env_allow), extra=env)
        )
    except (OSError, ValueError) as exc:
        raise ToolError(
            f"could not start {command[0]!r}: {os_reason(exc) if isinstance(exc, OSError) else exc}", retryable=False
        ) from None
    notes = []
    if run.leftovers:
        notes.append(
            f"the program left {plural(len(run.leftovers), 'background process')} "
            f"running ({_procs(run.leftovers)}); stopped (SIGKILL to its process group)"
        )
    if run.output_open:
        notes.append("its output stayed open (held by a process outside its process group); the rest was not collected")
    return ProgramRun(
        run.returncode,
        run.timed_out,
        run.stdout.render(OUTPUT_LINE_CAP),
        run.stderr.render(OUTPUT_LINE_CAP),
        tuple(notes),
        time.monotonic() - start,
    )


@dataclass
class _Run:
    returncode: int | None
    timed_out: bool
    leftovers: list[tuple[int, str]]
    output_open: bool
    stdout: _Capture
    stderr: _Capture


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """Live (not zombie) processes of process group ``pgid`` as (pid, command name), read from
    ``/proc``; where there is no ``/proc``, ``[(0, "unknown processes")]`` when the group still
    has a member (``killpg(pgid, 0)``), else ``[]``."""
    if os.name != "posix":
        return []
    if os.path.isdir("/proc/self"):
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat", "rb") as f:
                    raw = f.read().decode("utf-8", "replace")
            except OSError:
                continue
            name = raw[raw.find("(") + 1 : raw.rfind(")")]
            fields = raw[raw.rfind(")") + 2 :].split()
            if len(fields) > 2 and fields[0] not in ("Z", "X") and fields[2] == str(pgid):
                out.append((int(d), name))
        return sorted(out)
    try:
        os.killpg(pgid, 0)
    except OSError:
        return []
    return [(0, "unknown processes")]


def _kill_group(proc: subprocess.Popen) -> None:
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        except OSError:
            pass
    try:
        proc.kill()
    except OSError:
        pass


def _run_program(argv: list[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None) -> _Run:
    """Run ``argv`` in its own session (so it and everything it starts form one process group),
    stdin from ``/dev/null``, reading stdout and stderr on threads. On timeout the whole group is
    killed; when the program exits, group members it left behind are killed too; the pipes are
    read until they close or the deadline (at least 1 s after the exit) passes."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=(os.name == "posix"),
        env=env,
    )
    out, err = _Capture(proc.stdout), _Capture(proc.stderr)
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        proc.wait(timeout=timeout)
        leftovers = _group_members(proc.pid)
        own = os.path.basename(argv[0])
        for _ in range(20):  # a child forked but not yet exec'd still bears the program's name: let it settle
            if not any(name == own for _, name in leftovers):
                break
            time.sleep(0.05)
            leftovers = _group_members(proc.pid) or leftovers
    except subprocess.TimeoutExpired:
        timed_out = True
        leftovers = [m for m in _group_members(proc.pid) if m[0] != proc.pid]
    if timed_out or leftovers:
        _kill_group(proc)
    proc.wait()
    wait = max(deadline - time.monotonic(), 1.0) if not (timed_out or leftovers) else 2.0
    end = time.monotonic() + wait
    open_ = not out.done(end - time.monotonic())
    open_ = not err.done(end - time.monotonic()) or open_
    return _Run(proc.returncode if not timed_out else None, timed_out, leftovers, open_, out, err)


def _newline_of(text: str) -> str:
    """The file's line ending: ``"\\r\\n"`` when most of its line breaks are CRLF, else ``"\\n"``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def _with_newlines(s: str, nl: str) -> str:
    """``s`` with every line break (``\\r\\n`` or ``\\n``) written as ``nl``."""
    flat = s.replace("\r\n", "\n")
    return flat if nl == "\n" else flat.replace("\n", nl)


def _occurrences(text: str, sub: str) -> tuple[int, list[int]]:
    """How many times ``sub`` occurs in ``text``, overlapping matches counted (``"}\\n}"`` is in
    ``"}\\n}\\n}"`` twice), and the start of each."""
    starts = []
    i = text.find(sub)
    while i != -1:
        starts.append(i)
        i = text.find(sub, i + 1)
    return len(starts), starts


def _line_at(text: str, i: int) -> int:
    """1-based number of the line that character ``i`` of ``text`` is on, counting line breaks
    the way read_file does (``str.splitlines``)."""
    return len((text[:i] + "x").splitlines())


def _lines_at(text: str, positions: list[int]) -> list[int]:
    """:func:`_line_at` for ascending ``positions``, in one pass over ``text``."""
    out, line, prev = [], 1, 0
    for i in positions:
        line += len((text[prev:i] + "x").splitlines()) - 1
        prev = i
        out.append(line)
    return out


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
