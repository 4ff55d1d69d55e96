"""Credentials stay out of what a model, a log or a saved file can read.

Two halves:

- **The environment a tool process gets** (:func:`tool_environment`): built from an allow-list
  (:data:`DEFAULT_TOOL_ENV`: ``PATH``, ``HOME``, ``LANG``, ``LC_*``, ``TMPDIR``, …), never from
  the whole environment of the process, so a program a model starts (``env``, ``python -c
  "import os; print(os.environ)"``) cannot read an API key. Users extend the list by name or
  ``*`` pattern, and pass extra variables; a value that is a known credential is dropped even
  from an allowed name.
- **The scrubber** (:func:`scrub`): every occurrence of a known credential in a text is replaced
  with :data:`REDACTED`. Known credentials are

  1. the values of environment variables whose name looks like a credential
     (:data:`CREDENTIAL_NAME`: ``..._API_KEY``, ``..._TOKEN``, ``..._SECRET``, ``PASSWORD``, …),
     read at the time of scrubbing, so a key set after import is covered;
  2. keys given to a model as settings (``api_key=...``, a header value whose name looks like a
     credential in ``default_headers``) — registered when the model is created;
  3. the variables named by ``api_key_env=`` and any value or variable the user registers with
     :func:`register` / :func:`register_env`.

  Values shorter than :data:`MIN_SECRET_LENGTH` characters are not treated as credentials (a
  ``DEBUG_TOKEN=1`` would otherwise blank every ``1``).

toolwire calls the scrubber where text leaves toolwire's hands: every tool result's content
(:class:`~toolwire.types.ToolResult`), the message and body of every
:class:`~toolwire.errors.ProviderError` and :class:`~toolwire.errors.ResponseDecodeError` (and the
text of the vendor SDK's exception it was raised from), log records (once a model is created, see
:func:`install_log_scrubbing`), cassettes written by the pytest plugin, and the checkpoint store.

Not covered: a key the user writes into a prompt or into the instructions; a key in an object a
caller inspects directly (the SDK's request object on the exception's cause still carries the
HTTP headers).
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import threading
from typing import Any, Iterable, Mapping

__all__ = [
    "DEFAULT_TOOL_ENV",
    "CREDENTIAL_NAME",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "tool_environment",
    "register",
    "register_env",
    "unregister",
    "register_settings",
    "known_secrets",
    "scrub",
    "scrub_value",
    "scrub_exception",
    "contains_secret",
    "ScrubFilter",
    "install_log_scrubbing",
]

#: The variables a tool process inherits by default (exact names, or ``*`` patterns). Enough for
#: programs to find executables, their home and temporary directories, the locale and the time
#: zone; Windows needs ``SYSTEMROOT`` (and friends) for any process to start.
DEFAULT_TOOL_ENV: tuple[str, ...] = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
)

#: Environment variable names whose values are treated as credentials (case-insensitive search).
CREDENTIAL_NAME = re.compile(
    r"API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|AUTH_?KEY", re.IGNORECASE
)

#: Shortest value treated as a credential, in characters.
MIN_SECRET_LENGTH = 8

#: What a credential is replaced with.
REDACTED = "[REDACTED]"

_lock = threading.Lock()
_values: set[str] = set()
_env_names: set[str] = set()
_pattern_cache: tuple[frozenset[str], re.Pattern[str] | None] = (frozenset(), None)


def _usable(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if len(value) >= MIN_SECRET_LENGTH else None


#: Bumped whenever the registered values or names change (the scrubber's cache key).
_version = 0
#: ``(version, id(environ), copy of the environment's data, secrets)`` of the last scan.
_known_cache: tuple[int, int, Any, frozenset[str]] | None = None


def _changed() -> None:
    global _version
    _version += 1


def register(value: str) -> None:
    """Treat ``value`` as a credential from now on (scrubbed everywhere, dropped from tool
    environments). Values shorter than :data:`MIN_SECRET_LENGTH` are ignored."""
    v = _usable(value)
    if v is not None:
        with _lock:
            if v not in _values:
                _values.add(v)
                _changed()


def register_env(name: str) -> None:
    """Treat the value of environment variable ``name`` as a credential (read when scrubbing),
    whatever its name looks like."""
    if isinstance(name, str) and name:
        with _lock:
            if name not in _env_names:
                _env_names.add(name)
                _changed()


def unregister(value: str | None = None, *, env: str | None = None) -> None:
    """Forget a registered ``value`` or variable name ``env`` (mainly for tests)."""
    with _lock:
        if value is not None:
            _values.discard(value.strip())
        if env is not None:
            _env_names.discard(env)
        _changed()


def register_settings(settings: Mapping[str, Any]) -> None:
    """Register the credentials in a model's ``settings``: ``api_key``, the variable named by
    ``api_key_env``, and header values (``default_headers``/``headers``) whose header name looks
    like a credential (``authorization``, ``x-api-key``, ``…-token``) or that start with
    ``Bearer ``."""
    if not isinstance(settings, Mapping):
        return
    register(settings.get("api_key"))  # type: ignore[arg-type]
    env = settings.get("api_key_env")
    if isinstance(env, str):
        register_env(env)
    for field in ("default_headers", "headers"):
        headers = settings.get(field)
        if isinstance(headers, Mapping):
            for name, value in headers.items():
                if not isinstance(value, str):
                    continue
                low = str(name).lower()
                if CREDENTIAL_NAME.search(low) or "auth" in low or "key" in low or "cookie" in low:
                    register(value)
                    if value.lower().startswith("bearer "):
                        register(value[7:])


def known_secrets(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every credential the scrubber currently knows (see the module docstring). The scan of
    the process environment is reused while neither the environment nor the registered values
    changed (the environment's contents are compared, not re-scanned)."""
    global _known_cache
    if environ is None:
        env = os.environ
        data = getattr(env, "_data", None)  # CPython's os.environ keeps its contents in a dict
        cached = _known_cache
        if (
            cached is not None
            and data is not None
            and cached[0] == _version
            and cached[1] == id(env)
            and cached[2] == data
        ):
            return cached[3]
        version = _version  # read before the scan: a value registered meanwhile is scanned again next time
        found_all = _scan(env)
        if data is not None:
            _known_cache = (version, id(env), dict(data), found_all)
        return found_all
    return _scan(environ)


def _scan(env: Mapping[str, str]) -> frozenset[str]:
    with _lock:
        found = set(_values)
        names = set(_env_names)
    for name, value in list(env.items()):
        if name in names or CREDENTIAL_NAME.search(name):
            v = _usable(value)
            if v is not None:
                found.add(v)
    return frozenset(found)


def _pattern() -> re.Pattern[str] | None:
    global _pattern_cache
    secrets = known_secrets()
    cached_for, pattern = _pattern_cache
    if secrets == cached_for:
        return pattern
    pattern = re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True))) if secrets else None
    _pattern_cache = (secrets, pattern)
    return pattern


def scrub(text: Any) -> Any:
    """``text`` with every known credential replaced by :data:`REDACTED`; anything that is not
    a ``str`` is returned unchanged."""
    if not isinstance(text, str) or len(text) < MIN_SECRET_LENGTH:
        return text
    pattern = _pattern()
    if pattern is None:
        return text
    return pattern.sub(REDACTED, text)


def contains_secret(text: Any) -> bool:
    """Whether ``text`` (a ``str``) holds a known credential."""
    if not isinstance(text, str):
        return False
    pattern = _pattern()
    return pattern is not None and pattern.search(text) is not None


def scrub_value(value: Any, _depth: int = 0) -> Any:
    """A JSON-like ``value`` (dicts, lists, strings, bytes) with credentials scrubbed in every
    string (keys included); other objects are returned unchanged. Returns a new container
    only where something changed. Nesting beyond 200 levels is returned as is."""
    pattern = _pattern()  # once per value, not once per string
    if pattern is None:
        return value
    return _scrub_with(pattern, value, _depth)


def _scrub_with(pattern: re.Pattern[str], value: Any, _depth: int) -> Any:
    if _depth > 200:
        return value
    if isinstance(value, str):
        return value if len(value) < MIN_SECRET_LENGTH else pattern.sub(REDACTED, value)
    if isinstance(value, (bytes, bytearray)):
        try:
            text = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return value
        out = _scrub_with(pattern, text, _depth)
        return value if out == text else out.encode("utf-8")
    if isinstance(value, dict):
        new = {_scrub_with(pattern, k, _depth + 1): _scrub_with(pattern, v, _depth + 1) for k, v in value.items()}
        return value if all(a is b for a, b in zip(new.values(), value.values())) and list(new) == list(value) else new
    if isinstance(value, (list, tuple)):
        items = [_scrub_with(pattern, v, _depth + 1) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def scrub_exception(exc: BaseException | None, _seen: set[int] | None = None) -> None:
    """Scrub, in place, the text of ``exc`` and of the exceptions it was raised from: its
    ``args`` and its ``message``/``body``/``doc`` attributes (the vendor SDKs keep the error body
    there), so a printed traceback shows no credential."""
    seen = _seen if _seen is not None else set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        try:
            if any(contains_secret(a) for a in exc.args if isinstance(a, str)):
                exc.args = tuple(scrub(a) for a in exc.args)
            for attr in ("message", "body", "doc", "msg"):
                if attr in getattr(exc, "__dict__", {}):
                    old = exc.__dict__[attr]
                    new = scrub_value(old)
                    if new is not old:
                        exc.__dict__[attr] = new
        except Exception:
            pass
        exc = exc.__cause__ or exc.__context__


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs credentials from a record's message (formatted with its
    arguments) and from its exception text. Add it to a handler to cover records of any logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Scrub ``record`` in place and return ``True`` (no record is dropped): a message holding a
        known credential becomes its formatted text scrubbed (``args`` emptied); the exception, the
        ones it was raised from and ``exc_text`` are scrubbed too."""
        _scrub_record(record)
        return True


def _scrub_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:
        return
    if contains_secret(message):
        record.msg, record.args = scrub(message), ()
    if record.exc_info and record.exc_info[1] is not None:
        scrub_exception(record.exc_info[1])
    if record.exc_text:
        record.exc_text = scrub(record.exc_text)


_installed = False


def install_log_scrubbing() -> None:
    """Scrub every log record created from now on, whatever its logger or handler (the vendor
    SDKs log requests at ``DEBUG``). Wraps :func:`logging.getLogRecordFactory` once; records are
    only created for enabled levels, so disabled logging costs nothing. Called when a model is
    created; idempotent."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _scrub_record(record)
        return record

    logging.setLogRecordFactory(factory)


def _matches(name: str, patterns: Iterable[str]) -> bool:
    for p in patterns:
        if any(ch in p for ch in "*?["):
            if fnmatch.fnmatchcase(name, p):
                return True
        elif name == p:
            return True
    return False


def tool_environment(
    allow: Iterable[str] = (), *, extra: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a process a tool starts: the variables of ``environ`` (default: this
    process's) whose names match :data:`DEFAULT_TOOL_ENV` or ``allow`` (exact names or ``*``
    patterns), then ``extra`` (set as given). A variable whose name looks like a credential
    (:data:`CREDENTIAL_NAME`), or whose value is a known credential, is passed only when
    ``allow`` names it exactly (not through a pattern). Returns a new ``dict``."""
    env = os.environ if environ is None else environ
    allow = tuple(allow)
    secrets = known_secrets()
    out: dict[str, str] = {}
    for name, value in env.items():
        if name in allow:  # named exactly: the user's explicit choice
            out[name] = value
            continue
        if not _matches(name, DEFAULT_TOOL_ENV) and not _matches(name, allow):
            continue
        if CREDENTIAL_NAME.search(name) or value.strip() in secrets:
            continue
        out[name] = value
    if extra:
        out.update({str(k): str(v) for k, v in extra.items()})
    return out
