"""Confined paths: a path parameter bound to a root directory.

A model sends paths as text; a tool that opens them must never leave the directory it was given.
:class:`ConfinedRoot` resolves a path the model sent and rejects every escape with an actionable
:class:`~toolwire.errors.ToolError`:

- ``..`` components that climb above the root (``../etc/passwd``, ``src/../../x``);
- absolute paths outside the root (an absolute path *inside* the root is accepted);
- symlinks whose target lies outside the root (checked on the fully resolved path, so a link
  anywhere along the path counts);
- NUL bytes (the OS would truncate the name silently) and lone surrogates no file name can hold;
- anything that is not a string.

A name that does not exist as sent is matched, component by component, against the folder's
entries with each undecodable byte as U+FFFD and in Unicode normal form NFC: a name that is not
UTF-8 reaches a model with U+FFFD in its place, and a decomposed ``é`` looks the same as the
composed one it writes (the one matching entry is used; none when several match).

Use it in a ``@tool`` signature through :func:`confined_path` (an annotated ``str`` carrying the
root and a description that says "relative to the root") plus :func:`confined`, which converts
the argument into a resolved :class:`pathlib.Path` before the function runs::

    docs = confined_path("/srv/docs")

    @tool
    @confined
    def word_count(path: docs) -> int:
        "Count the words of one text file. Use it before reading a file you only need the size of."
        return len(path.read_text().split())
"""

from __future__ import annotations

import errno
import functools
import inspect
import os
import re
import stat
import typing
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Callable

from ..errors import ToolDefinitionError, ToolError
from .suggest import closest

__all__ = ["ConfinedRoot", "ConfinedPath", "confined_path", "confined", "shown_name", "PATH_DESCRIPTION"]

#: The description every confined path parameter carries unless the docstring gives another.
PATH_DESCRIPTION = (
    "Path relative to the root directory, with '/' separators (e.g. 'src/app.py'; '.' is the root). "
    "Absolute paths outside the root and '..' that leave it are rejected."
)


class ConfinedRoot:
    """A root directory that paths from the model are resolved against.

    ``root`` must be an existing directory (:class:`ToolDefinitionError` otherwise); it is
    resolved once (symlinks followed), so a root that is itself a symlink is fine.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        p = Path(root).expanduser()
        try:
            resolved = p.resolve(strict=True)
        except (FileNotFoundError, RuntimeError, OSError) as exc:
            raise ToolDefinitionError(f"confined root {str(root)!r} does not exist: {exc}") from None
        if not resolved.is_dir():
            raise ToolDefinitionError(f"confined root {str(root)!r} is not a directory")
        self.root = resolved

    def __repr__(self) -> str:
        return f"ConfinedRoot({str(self.root)!r})"

    def relative(self, path: Path) -> str:
        """``path`` (inside the root) as the model should write it: relative, ``/``-separated."""
        rel = path.relative_to(self.root).as_posix()
        return rel or "."

    def _inside(self, p: Path) -> bool:
        return p == self.root or self.root in p.parents

    # -- opens that cannot be raced ---------------------------------------------------------
    def open_fd(
        self,
        path: str | os.PathLike[str],
        flags: int = os.O_RDONLY,
        *,
        directory: bool = False,
        param: str = "path",
        allow_hard_links: bool = False,
    ) -> int:
        """Open ``path`` (relative to the root, or absolute inside it) and return a file
        descriptor, resolving it one component at a time from a descriptor of the root
        (``os.open(..., dir_fd=..., O_NOFOLLOW)``), never through a path the kernel resolves.

        Symbolic links inside the root are followed by reading them (``readlink``) and
        resolving their target the same way; a link whose target leaves the root — even one
        swapped in after :meth:`resolve` checked the path — raises :class:`ToolError`, as do
        ``..`` above the root and more than 40 links. ``directory=True`` opens a directory
        (``flags`` ignored); otherwise the last component is opened with ``flags`` plus
        ``O_NOFOLLOW`` and ``O_NOCTTY``. A regular file with more than one hard link
        (``st_nlink > 1``) is refused unless ``allow_hard_links``: a hard link can name a file
        outside the root, and nothing in the file says where its other names are. The caller
        closes the descriptor. ``OSError`` from the final open (e.g. ``ENOENT``) is raised as is.
        """
        text = os.fspath(path)
        if isinstance(text, str):
            _check_name(text, param)
        raw = Path(text)
        if raw.is_absolute():
            lexical = Path(os.path.normpath(raw))
            if not self._inside(lexical):
                raise ToolError(
                    f"{param} {_shown(text)} is an absolute path outside the root directory", retryable=False
                )
            parts = list(lexical.relative_to(self.root).parts)
            text = self.relative(lexical)  # messages show the path as the model writes it
        else:
            parts = [c for c in text.replace(os.sep, "/").split("/")]
        return self._walk_open(parts, flags, directory, param, text, allow_hard_links)

    @staticmethod
    def _root_gone() -> ToolError:
        return ToolError(
            "the root directory of these tools no longer exists (it was removed or moved), so no path can be used",
            hint="Tell the user that the files this tool works on are gone; do not call the file tools again.",
        )

    def _names_entry(self, path: str) -> bool:
        """Whether ``path`` as sent (white space around it kept) names an entry inside the root."""
        raw = Path(path)
        lexical = Path(os.path.normpath(raw if raw.is_absolute() else self.root / raw))
        return self._inside(lexical) and os.path.lexists(lexical)

    def _as_named(self, lexical: Path) -> Path:
        """``lexical`` (a path inside the root that does not exist) with each missing component
        replaced by the one entry of its folder that has the same name as far as the model can
        tell (:func:`_same_name`); ``lexical`` itself when a component has no such entry, or
        several."""
        if not self._inside(lexical) or lexical == self.root:
            return lexical
        current = self.root
        for comp in lexical.relative_to(self.root).parts:
            nxt = current / comp
            if not os.path.lexists(nxt):
                try:
                    with os.scandir(current) as it:
                        other = _same_name(comp, (e.name for e in it))
                except OSError:
                    return lexical
                if other is None:
                    return lexical
                nxt = current / other
            current = nxt
        return current

    def _walk_open(
        self, parts: list[str], flags: int, directory: bool, param: str, text: str, allow_hard_links: bool
    ) -> int:
        shown = _shown(text)
        escape = ToolError(
            f"{param} {shown} goes through a symbolic link that leads outside the root directory",
            hint="Only files inside the root can be used; pick another path.",
            retryable=False,
        )
        try:
            stack = [os.open(self.root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)]
        except FileNotFoundError:
            raise self._root_gone() from None
        pending = list(reversed(parts))
        links = 0
        try:
            while pending:
                comp = pending.pop()
                if comp in ("", "."):
                    continue
                if comp == "..":
                    if len(stack) == 1:
                        raise ToolError(f"{param} {shown} leaves the root directory through '..'", retryable=False)
                    os.close(stack.pop())
                    continue
                cur = stack[-1]
                try:
                    st = os.stat(comp, dir_fd=cur, follow_symlinks=False)
                except FileNotFoundError:
                    other = _same_name(comp, _entries(cur))
                    if other is not None:  # the name as the model can write it (see _same_name)
                        pending.append(other)
                        continue
                    if pending or directory:
                        raise
                    st = None  # the last component may be created by ``flags`` (O_CREAT)
                if st is not None and stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > _MAX_LINKS:
                        raise ToolError(
                            f"{param} {shown} goes through a symbolic link loop (links that point at each other)",
                            retryable=False,
                        )
                    target = os.readlink(comp, dir_fd=cur)
                    if os.path.isabs(target):
                        lexical = Path(os.path.normpath(target))
                        if not self._inside(lexical):
                            raise escape
                        for fd in stack[1:]:
                            os.close(fd)
                        del stack[1:]
                        pending.extend(reversed(lexical.relative_to(self.root).parts))
                    else:
                        pending.extend(reversed(target.split("/")))
                    continue
                if pending or directory:
                    try:
                        fd = os.open(comp, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=cur)
                    except OSError as exc:
                        if exc.errno == errno.ELOOP:  # became a link since the stat: look again
                            pending.append(comp)
                            links += 1
                            if links > _MAX_LINKS:
                                raise escape from None
                            continue
                        raise
                    stack.append(fd)
                    continue
                try:
                    fd = os.open(comp, flags | _O_NOFOLLOW | _O_NOCTTY | _O_CLOEXEC, dir_fd=cur)
                except OSError as exc:
                    if exc.errno == errno.ELOOP and links < _MAX_LINKS:  # swapped to a link since the stat
                        pending.append(comp)
                        links += 1
                        continue
                    raise
                try:
                    fst = os.fstat(fd)
                    if not allow_hard_links and stat.S_ISREG(fst.st_mode) and fst.st_nlink > 1:
                        raise ToolError(
                            f"{param} {shown} is a file with {fst.st_nlink} hard links; a hard link can name a file outside "
                            "the root directory, so it is not opened",
                            hint="Work on a file that has a single name (copy it inside the root first).",
                            retryable=False,
                        )
                except BaseException:
                    os.close(fd)
                    raise
                return fd
            return os.dup(stack[-1])  # the path named a directory (or the root itself)
        finally:
            for fd in stack:
                os.close(fd)

    def resolve(
        self,
        path: Any,
        *,
        must_exist: bool = False,
        kind: str | None = None,
        param: str = "path",
        missing_hint: str | None = None,
    ) -> Path:
        """Resolve ``path`` (text from the model) to an absolute :class:`Path` inside the root.

        ``must_exist``: raise when nothing is there, with "did you mean" names from the parent
        directory; ``kind``: ``"file"`` or ``"dir"`` to require that kind; ``param``: the
        parameter name used in messages; ``missing_hint``: the next move to suggest when the
        path is missing (e.g. "call list_dir"). Raises :class:`ToolError` (never
        ``OSError``) on every failure.
        """
        if not isinstance(path, str):
            raise ToolError(
                f"{param} must be a string path, got {type(path).__name__}", hint=PATH_DESCRIPTION, retryable=False
            )
        _check_name(path, param)
        try:
            return self._resolve(path, must_exist=must_exist, kind=kind, param=param, missing_hint=missing_hint)
        except OSError as exc:  # ENAMETOOLONG, EACCES, EIO...: never the absolute path the OS names
            raise ToolError(
                f"{param} {_shown(path)} cannot be used: {os_reason(exc)}",
                hint=missing_hint or "Check the path; send a shorter path relative to the root.",
                retryable=False,
            ) from None

    def _resolve(self, path: str, *, must_exist: bool, kind: str | None, param: str, missing_hint: str | None) -> Path:
        if not os.path.isdir(self.root):
            raise self._root_gone()
        text = path.strip() or "."
        if text != path and text != "." and self._names_entry(path):
            text = path  # white space a name really has (' notes.txt'), not white space around a path
        raw = Path(text)
        if text.startswith("~") and not os.path.lexists(self.root / text.split("/", 1)[0]):
            # '~' or '~user' names a home directory, unless the root holds an entry of that name
            # ('~lock.txt', Office's '~$doc.docx'); an unknown user's '~name' is a name in the root
            try:
                raw = Path(text).expanduser()
            except RuntimeError:
                pass
        shown = _shown(path)
        if raw.is_absolute():
            lexical = Path(os.path.normpath(raw))
            if not self._inside(lexical) and not self._inside(_resolve_loose(lexical, param, shown)):
                raise ToolError(
                    f"{param} {shown} is an absolute path outside the root directory",
                    hint="Send a path relative to the root, e.g. 'src/app.py' ('.' is the root itself).",
                    retryable=False,
                )
        else:
            lexical = Path(os.path.normpath(self.root / raw))
            if not self._inside(lexical):
                raise ToolError(
                    f"{param} {shown} leaves the root directory through '..'",
                    hint="Paths are relative to the root and cannot go above it; drop the leading '..' parts.",
                    retryable=False,
                )
        if not os.path.lexists(lexical):
            lexical = self._as_named(lexical)
        resolved = _resolve_loose(lexical, param, shown)
        if not self._inside(resolved):
            raise ToolError(
                f"{param} {shown} goes through a symbolic link that leads outside the root directory",
                hint="Only files inside the root can be used; pick another path.",
                retryable=False,
            )
        if must_exist and not resolved.exists():
            if os.path.islink(lexical):
                raise ToolError(
                    f"{param} {shown} is a broken symbolic link (its target does not exist)",
                    hint=missing_hint or "Pick another path.",
                    retryable=False,
                )
            parent = resolved.parent
            while not parent.exists() and self._inside(parent.parent) and parent != self.root:
                parent = parent.parent
            names = []
            if parent.is_dir() and self._inside(parent):  # never names from outside the root
                try:
                    names = [self.relative(c) for c in parent.iterdir()]
                except OSError:
                    names = []
            want = self.relative(lexical) if self._inside(lexical) else text
            # shown as the model can write them back: an undecodable byte as U+FFFD (see _same_name)
            guesses = [shown_name(g) for g in closest(want, names, n=3)]
            hint = missing_hint or "Check the name and try again."
            if guesses:
                hint = f"Did you mean {' or '.join(repr(g) for g in guesses)}? " + hint
            raise ToolError(f"{param} {shown} does not exist", hint=hint, retryable=False, valid_values=guesses or None)
        if kind in ("file", "dir") and resolved.exists():
            actual = kind_of(resolved)
            if kind == "file" and actual != "file":
                if actual == "dir":
                    raise ToolError(f"{param} {shown} is a directory, not a file", hint=missing_hint, retryable=False)
                raise ToolError(
                    f"{param} {shown} is a {actual}, not a regular file; it is never opened, since reading it could block or have side effects",
                    hint=missing_hint,
                    retryable=False,
                )
            if kind == "dir" and actual != "dir":
                what = "file" if actual == "file" else actual
                raise ToolError(f"{param} {shown} is a {what}, not a directory", hint=missing_hint, retryable=False)
        return resolved


_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_LONE = re.compile("[\ud800-\udfff]")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: Most symbolic links followed while resolving one path (Linux's own limit).
_MAX_LINKS = 40

#: Names of the kinds of directory entries, by ``stat`` mode test.
_KINDS = (
    (stat.S_ISREG, "file"),
    (stat.S_ISDIR, "dir"),
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)


def kind_from_mode(mode: int) -> str:
    """``"file"`` (regular), ``"dir"``, ``"named pipe (FIFO)"``, ``"character device"``,
    ``"block device"``, ``"socket"`` or ``"special file"`` for a ``st_mode``."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "special file"


def kind_of(p: Path) -> str:
    """The kind of what ``p`` names, symlinks followed (see :func:`kind_from_mode`). Raises
    ``OSError`` when it cannot be stat'ed."""
    return kind_from_mode(os.stat(p).st_mode)


def os_reason(exc: BaseException) -> str:
    """The reason of an ``OSError`` without the file name the OS attached (which would show an
    absolute path): ``"File name too long"``, ``"Permission denied"``."""
    return getattr(exc, "strerror", None) or type(exc).__name__


def _check_name(path: str, param: str) -> None:
    """Raise :class:`ToolError` when ``path`` holds a character no file name can hold: a NUL
    byte, or a lone UTF-16 surrogate outside the range that stands for an undecodable byte
    (``os.fsencode`` refuses it; the OS would never be asked)."""
    if "\x00" in path:
        raise ToolError(
            f"{param} contains a NUL byte, which no file name can hold",
            hint="Send the path as plain text without control characters.",
            retryable=False,
        )
    try:
        os.fsencode(path)
    except UnicodeError:
        raise ToolError(
            f"{param} {_shown(path)} holds a character no file name can hold (a lone surrogate, U+D800-U+DFFF)",
            hint="Send the path as plain text, as list_dir shows it.",
            retryable=False,
        ) from None


#: The most entries of one folder :func:`_same_name` looks through (a folder of millions of
#: files is not read whole to find a name that is not there).
_MAX_NAME_SCAN = 100_000


#: Control characters (C0, DEL, C1): in a name they would break a listing's lines ("a\nb.txt"
#: shows as two entries, and a name can forge a line of its own) or act on a terminal.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown_name(name: str) -> str:
    """``name`` (a file name or a path) as the file tools show it and a model can write it back:
    each lone surrogate (an undecodable byte of the name, read with ``surrogateescape``) as
    U+FFFD, which is what a model is sent in its place, and each control character as an escape
    (``\\n``, ``\\t``, ``\\x1b``) so that a listing keeps one line per entry. A path sent in this
    form reaches the file (:meth:`ConfinedRoot.resolve`)."""
    if _LONE.search(name):
        name = name.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if _CONTROL.search(name):
        name = _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), name)
    return name


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFC", shown_name(name))


def _same_name(wanted: str, names: Any) -> str | None:
    """The one name among ``names`` (a folder's entries) that ``wanted`` (a path component the
    model sent, which no entry has exactly) stands for, or ``None`` (no such name, or several).

    Three kinds of names are not written back exactly by a model: a name holding bytes that are
    not UTF-8 (listed with U+FFFD in their place, as every text sent to a model has it), a name
    holding control characters (listed escaped, :func:`shown_name`) and a name in another
    Unicode normal form than the model writes (a decomposed ``é``, as macOS tools write it, looks
    the same as the composed one). Names are compared as :func:`shown_name` shows them, in normal
    form NFC; at most :data:`_MAX_NAME_SCAN` entries are looked at."""
    key = _name_key(wanted)
    found: str | None = None
    for i, name in enumerate(names):
        if i >= _MAX_NAME_SCAN:
            return None
        if name != wanted and _name_key(name) == key:
            if found is not None:
                return None  # two entries stand for the name: none is chosen
            found = name
    return found


def _entries(dir_fd: int) -> list[str]:
    """The names in the folder ``dir_fd`` (at most :data:`_MAX_NAME_SCAN` + 1); none when it cannot be read."""
    try:
        with os.scandir(dir_fd) as it:
            out = []
            for e in it:
                out.append(e.name)
                if len(out) > _MAX_NAME_SCAN:
                    break
            return out
    except OSError:
        return []


def _shown(path: str, limit: int = 200) -> str:
    """``path`` as quoted in a message, cut to ``limit`` characters."""
    return repr(path) if len(path) <= limit else repr(path[:limit]) + f" (cut, {len(path):,} characters)"


def _resolve_loose(p: Path, param: str = "path", shown: str | None = None) -> Path:
    try:
        return p.resolve(strict=False)
    except RuntimeError:  # Python < 3.13: symlink loop
        pass
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
    raise ToolError(
        f"{param} {shown or '(path)'} goes through a symbolic link loop (links that point at each other)",
        hint="Pick another path; call list_dir to see which entries are link loops.",
        retryable=False,
    ) from None


class _Confinement:
    """Annotation marker: this ``str`` parameter is a path confined to ``root`` (``None``: the
    root is given to :func:`confined`)."""

    def __init__(self, root: ConfinedRoot | None) -> None:
        self.root = root

    def __repr__(self) -> str:
        return f"Confined({self.root!r})"


def _path_field() -> Any:
    import pydantic

    # WithJsonSchema (not Field): the docstring's own description, when present, still wins,
    # and an absent one does not erase this default.
    return pydantic.WithJsonSchema({"type": "string", "description": PATH_DESCRIPTION})


def confined_path(root: str | os.PathLike[str] | ConfinedRoot) -> Any:
    """An annotation for a ``@tool`` parameter: a path relative to ``root``.

    The input schema shows ``{"type": "string", "description": PATH_DESCRIPTION}`` (a docstring
    description of the parameter replaces it); :func:`confined` turns the argument into a
    resolved :class:`Path` inside ``root`` or answers the model with a :class:`ToolError`.
    """
    r = root if isinstance(root, ConfinedRoot) else ConfinedRoot(root)
    return Annotated[str, _path_field(), _Confinement(r)]


#: A confined path whose root is given to :func:`confined` (``@confined(root=...)``).
ConfinedPath = Annotated[str, _path_field(), _Confinement(None)]


def _confinements(function: Callable[..., Any]) -> dict[str, _Confinement]:
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(
            f"cannot read the type hints of {getattr(function, '__name__', function)!r}: {exc}"
        ) from None
    out = {}
    for name, hint in hints.items():
        marker = _confinement_in(hint, name, getattr(function, "__name__", function))
        if marker is not None:
            out[name] = marker
    return out


def _confinement_in(hint: Any, name: str, where: Any, depth: int = 0, in_items: bool = False) -> _Confinement | None:
    """The confinement a parameter's annotation carries: on the annotation itself, inside an
    ``Annotated``, an ``Optional``/``Union``, or on the items of one ``list``/``tuple``/``set``/
    ``Sequence`` (every item is confined; ``Optional[list[...]]`` too). A confined path anywhere
    else (a dict's values, a list of lists) raises :class:`ToolDefinitionError`: it would reach
    the function unchecked."""
    for meta in getattr(hint, "__metadata__", ()):
        if isinstance(meta, _Confinement):
            return meta
    args = typing.get_args(hint)
    if not args or depth > 8:
        return None
    origin = typing.get_origin(hint)
    import collections.abc
    import types

    if origin is Annotated:  # Annotated[T, Field(...)]: T's confinement
        return _confinement_in(args[0], name, where, depth + 1, in_items)
    union = origin in (typing.Union, types.UnionType)
    sequence = origin in (list, tuple, set, frozenset) or origin in (
        collections.abc.Sequence,
        collections.abc.Set,
        collections.abc.Iterable,
    )
    found = [
        m
        for a in args
        if a is not Ellipsis and (m := _confinement_in(a, name, where, depth + 1, in_items or sequence)) is not None
    ]
    if not found:
        return None
    if union or (sequence and not in_items):
        return found[0]
    raise ToolDefinitionError(
        f"@confined on {where!r}: parameter {name!r} holds a confined path inside {hint!r}, which is not checked; "
        "use the confined path type directly, in an Optional, or as the items of a list"
    )


def confined(
    function: Callable[..., Any] | None = None,
    *,
    root: str | os.PathLike[str] | ConfinedRoot | None = None,
    must_exist: bool = False,
) -> Any:
    """Decorator (put it under ``@tool``): convert every :data:`ConfinedPath` /
    :func:`confined_path` parameter to a resolved :class:`Path` before the function runs.

    ``root`` binds bare :data:`ConfinedPath` parameters; ``must_exist`` additionally requires
    the path to exist (with "did you mean" suggestions). Raises :class:`ToolDefinitionError` at
    definition time when a bare :data:`ConfinedPath` has no root or no parameter is confined.
    """

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        bound = ConfinedRoot(root) if root is not None and not isinstance(root, ConfinedRoot) else root
        found = _confinements(fn)
        if not found:
            raise ToolDefinitionError(
                f"@confined on {fn.__name__!r}: no parameter is annotated ConfinedPath or confined_path(root)"
            )
        roots: dict[str, ConfinedRoot] = {}
        for name, marker in found.items():
            r = marker.root or bound
            if r is None:
                raise ToolDefinitionError(
                    f"@confined on {fn.__name__!r}: parameter {name!r} is a ConfinedPath but no root was given; "
                    "use @confined(root=...) or annotate it with confined_path(root)"
                )
            roots[name] = r
        sig = inspect.signature(fn)

        def confine(value: Any, r: ConfinedRoot, name: str) -> Any:
            if value is None:
                return None  # an Optional path not given
            if isinstance(value, (str, os.PathLike)):
                return r.resolve(os.fspath(value), must_exist=must_exist, param=name)
            if isinstance(value, (list, tuple, set, frozenset)):
                return type(value)(confine(v, r, name) for v in value)  # type: ignore[call-arg]
            raise ValueError(f"{name!r} must be a path (text), got {type(value).__name__}")

        def convert(args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
            ba = sig.bind(*args, **kwargs)
            ba.apply_defaults()  # a default path is confined too ("." is the root, not the process's folder)
            for name, r in roots.items():
                if name in ba.arguments:
                    ba.arguments[name] = confine(ba.arguments[name], r, name)
            return ba

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                ba = convert(args, kwargs)
                return await fn(*ba.args, **ba.kwargs)

            return awrapper

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            ba = convert(args, kwargs)
            return fn(*ba.args, **ba.kwargs)

        return wrapper

    if function is not None:
        return wrap(function)
    return wrap
