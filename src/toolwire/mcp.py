"""MCP tools in and out, through the official ``mcp`` Python SDK (the ``mcp`` extra).

**Client** — the tools of an MCP server as toolwire :class:`~toolwire.tools.Tool` objects::

    async with toolwire.mcp.connect("uvx mcp-server-time") as time_server:
        result = await toolwire.run("anthropic:claude-sonnet-4-5", "What time is it in Tokyo?",
                                    tools=time_server.tools)

``connect`` takes a command line (the server is started as a subprocess and spoken to over
stdio), an ``http://`` / ``https://`` URL (streamable HTTP), or an ``mcp`` server object (in
process, for tests). The tools keep the server's input schema: the loop validates the model's
arguments against it, and each vendor adapter translates it for its own API (and reports what it
changed, as for any tool). A call goes to the server with a timeout (``timeout`` seconds, default
30); the MCP result becomes the tool result:

============================  =========================================================
MCP result (``CallToolResult``)  toolwire tool result
============================  =========================================================
``TextContent``               a text part
``ImageContent``              an image part (base64 ``data`` → bytes, ``mimeType``)
``EmbeddedResource`` (text)   a text part ``resource <uri>:`` followed by its text
``EmbeddedResource`` (blob)   an image part for ``image/*``, a document part for
                              ``application/pdf`` or ``text/plain`` (UTF-8), or for PDF
                              bytes typed ``application/octet-stream`` or untyped (the
                              resource's file name as its ``filename``), else a line
                              naming it
``ResourceLink``              a line naming the link (name, uri)
``AudioContent``              a line saying audio was left out (no vendor takes it back)
``structuredContent``         its JSON as text, when the server sent no text block
``isError: true``             ``is_error=True`` with the text of the content (and its images, if any);
                              a text over :data:`MAX_ERROR_CHARS` characters is cut, saying how much
a long successful result       its text over ``max_result_chars`` characters (default
                              :data:`DEFAULT_MAX_RESULT_CHARS`) is cut, saying how much and how to
                              ask for less
a reply that is not MCP       ``is_error=True`` saying so (the server's fault, not the arguments')
============================  =========================================================

A reply with lone surrogate escapes (``"\\ud800"``), which the SDK's JSON parser refuses and drops,
is read again over stdio: each becomes U+FFFD and the result ends with a line saying so.

A tool of the server's list whose definition is not valid MCP is left out (the ``mcp`` SDK would
refuse the whole list for it), with an :class:`MCPListingWarning`; :attr:`MCPToolset.left_out`
names each one and its problem.

A server that says its tool list changed (``notifications/tools/list_changed``) is asked for the
list again; :attr:`MCPToolset.tools` then holds the new list (a run already under way keeps the
tools it started with). The session and the server process end with the ``async with`` block.

**Names.** An MCP tool name may use characters toolwire's common tool-name rule does not allow
(dots, slashes, more than 64 characters). Such a name is rewritten before any vendor sees it:
every character outside ``A-Z a-z 0-9 _ -`` becomes ``_``, a leading digit gets a ``_`` in front,
and a name longer than 64 characters is cut to 55 and ends in ``_`` plus 8 hex digits of its
SHA-256. When tools of two servers are used together (:func:`combine`) and share a name, each
gets its server's prefix (``<prefix>_<name>``; the prefix defaults to the server's name from its
``initialize`` answer). Nothing is renamed silently: :attr:`MCPToolset.renames` maps each new
name to the server's own, and :func:`combine` raises :class:`~toolwire.errors.ToolDefinitionError`
if prefixes still leave two tools with one name. Calls always reach the server under its own name.

**Server** — :func:`serve` / :func:`create_server` publish toolwire tools to any MCP client, with
toolwire's argument validation, its ``is_error`` results that say what to do next, result caps
and confined paths unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import re
import shlex
import warnings
import weakref
from contextlib import AsyncExitStack
from typing import Any, Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, unquote

from ._words import plural
from .errors import MAX_ERROR_CHARS, ConfigurationError, ToolDefinitionError, ToolError, cap_error_text, json_error_at
from .tools import Tool
from .types import DOCUMENT_MEDIA_TYPES, DocumentPart, ImagePart, TextPart, ToolResult
from .wire import without_lone_surrogates

__all__ = [
    "MCPToolset",
    "MCPNameWarning",
    "MCPListingWarning",
    "connect",
    "combine",
    "CombinedTools",
    "list_tools",
    "list_tools_sync",
    "create_server",
    "serve",
    "tool_name_for",
    "result_content",
    "MAX_ERROR_CHARS",
    "DEFAULT_MAX_RESULT_CHARS",
]

#: Seconds one tool call may take (``connect(timeout=...)``).
DEFAULT_TIMEOUT = 30.0
#: Seconds to start the server, complete the MCP handshake and list its tools
#: (``connect(handshake_timeout=...)``).
DEFAULT_HANDSHAKE_TIMEOUT = 30.0
#: Characters of text a successful MCP tool result may give the model
#: (``connect(max_result_chars=...)``): about 25,000 tokens. A longer result keeps its beginning
#: and end with a line saying how much was left out and how to ask for less, so one large answer
#: (a whole file, a database dump) cannot fill the model's context window and make the vendor
#: refuse every later request of the run ("prompt is too long").
DEFAULT_MAX_RESULT_CHARS = 100_000
#: Characters kept from the end of a cut result (see :data:`DEFAULT_MAX_RESULT_CHARS`).
_RESULT_TAIL_CHARS = 2_000
#: The least ``max_result_chars`` (room for the beginning, the note and the end).
_LEAST_RESULT_CHARS = 5_000
#: Seconds a closing session is given to end cleanly before it is cancelled.
_CLOSE_GRACE = 10.0
_NAME_OK = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_BAD_CHAR = re.compile(r"[^A-Za-z0-9_-]")


class MCPNameWarning(UserWarning):
    """An MCP tool was given another name for the model (the mapping is in ``MCPToolset.renames``)."""


class MCPListingWarning(UserWarning):
    """A tool the MCP server listed was left out: its definition is not valid MCP. ``tool``: its
    name as listed (or its place in the list, ``#3 (null)``); ``problem``: the first problem found
    (``inputSchema.type: Input should be 'object'``). ``MCPToolset.left_out`` keeps them too."""

    def __init__(self, message: str, tool: str = "", problem: str = "") -> None:
        super().__init__(message)
        self.tool = tool
        self.problem = problem


def _require_mcp() -> Any:
    try:
        import mcp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            'MCP support needs the mcp SDK: pip install "toolwire[mcp]" (from a clone: pip install ".[mcp]")'
        ) from exc
    return mcp


def _seconds(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ConfigurationError(f"{name} must be a number of seconds > 0, got {value!r}")
    return float(value)


def _result_chars(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < _LEAST_RESULT_CHARS:
        raise ConfigurationError(
            f"max_result_chars must be a whole number of characters ≥ {_LEAST_RESULT_CHARS:,} (or None for no cap), "
            f"got {value!r}"
        )
    return value


def _cap_result_parts(parts: list[Any], limit: int) -> list[Any]:
    """``parts`` (an MCP tool's successful result as toolwire parts) with at most ``limit``
    characters of text in all. When the text parts hold more, the text is cut where the budget
    runs out: a single text keeps its beginning and its last 2,000 characters around a line
    saying how many characters were left out and that the tool should be called asking for less;
    with several text parts the one the budget ends in keeps its beginning and that line, and
    later text parts are left out (images and documents stay in their places)."""
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    total = sum(map(len, texts))
    if total <= limit:
        return parts

    def note(left_out: int) -> str:
        return (
            f"\n[result cut: {left_out:,} of its {total:,} characters left out here (toolwire shows at most "
            f"{limit:,} characters of an MCP tool's result, max_result_chars); to see the rest, call the tool "
            "again asking for less: a narrower query, a smaller range or page]\n"
        )

    room = len(note(total))  # sized for the largest count it can hold
    if len(texts) == 1:
        text = texts[0]
        head = limit - _RESULT_TAIL_CHARS - room
        cut = text[:head] + note(total - head - _RESULT_TAIL_CHARS) + text[total - _RESULT_TAIL_CHARS :]
        return [TextPart(cut) if isinstance(p, TextPart) else p for p in parts]
    budget = limit - room
    out: list[Any] = []
    done = False
    for p in parts:
        if not isinstance(p, TextPart):
            out.append(p)
            continue
        if done:
            continue
        if len(p.text) <= budget:
            out.append(p)
            budget -= len(p.text)
            continue
        kept = sum(len(x.text) for x in out if isinstance(x, TextPart)) + budget
        out.append(TextPart(p.text[:budget] + note(total - kept)))
        done = True
    return out


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which the SDK's task groups raise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


#: JSON-RPC error codes the MCP SDK raises itself (``mcp.types.REQUEST_TIMEOUT`` when a call's
#: read timeout passes, ``mcp.types.CONNECTION_CLOSED`` when the server's stream ends).
_REQUEST_TIMEOUT = -32001
_CONNECTION_CLOSED = -32000
#: The message of the SDK's own CONNECTION_CLOSED error (mcp.shared.jsonrpc_dispatcher).
_CLOSED_MESSAGE = "Connection closed"
#: The advice when the server has gone (it crashed, or the session was closed). Not
#: ``retryable=False``: its rendered "change the arguments" would send the model after arguments
#: that no value can fix.
_SERVER_GONE = "Do not call the tools of this MCP server again in this run; answer without them."
#: The advice when the server's reply to a call cannot be read: no argument is at fault.
_BAD_REPLY_HINT = (
    "This is a fault of the server, not of the arguments: do not call this tool again with other arguments. "
    "Answer without it, or tell the user that the server sent a malformed reply."
)
#: The messages the SDK's streamable HTTP transport gives the JSON-RPC error (code -32700,
#: ``mcp.types.PARSE_ERROR``) it puts in place of a reply it could not parse
#: (mcp.client.streamable_http: "Failed to parse JSON response: ...", "Failed to parse SSE message: ...").
_PARSE_FAILED = ("Failed to parse JSON response:", "Failed to parse SSE message:")
_PARSE_ERROR = -32700
#: What a pydantic validation error's text adds after each problem (its type, the input it saw)
#: and its closing "For further information" line: not for the model.
_PYDANTIC_NOISE = re.compile(r"[ \t]*\[type=[^\n]*|\n[ \t]*For further information visit \S+")
#: Where a reply read again by toolwire says how many lone surrogates it replaced (the result's
#: ``_meta``), and the ``data`` key of the JSON-RPC error put in place of a reply that is no
#: JSON-RPC message.
_REPLACED_KEY = "toolwire/replaced_surrogates"
_INVALID_KEY = "toolwire/invalid_reply"
_SURROGATE = re.compile("[\ud800-\udfff]")


def tool_name_for(name: str) -> str:
    """The name toolwire gives an MCP tool called ``name`` (see the module docs): unchanged when it
    already fits ``[A-Za-z_][A-Za-z0-9_-]{0,63}``, otherwise rewritten by the documented rule."""
    if _NAME_OK.fullmatch(name):
        return name
    new = _BAD_CHAR.sub("_", name) or "_"
    if new[0].isdigit():
        new = "_" + new
    if len(new) > 64:
        new = new[:55] + "_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return new


def _distinct_name(name: str, mcp_name: str, taken: set[str]) -> str:
    """``name`` (a rewritten MCP name that another tool of the server already has) cut to 55
    characters and ended with ``_`` and 8 hex digits of the SHA-256 of the server's own name, as a
    long name is; a further ``_2``, ``_3`` ... in the unlikely case that is taken too."""
    base = name[:55] + "_" + hashlib.sha256(mcp_name.encode("utf-8")).hexdigest()[:8]
    new, k = base, 2
    while new in taken:
        new, k = f"{base[: 64 - len(str(k)) - 1]}_{k}", k + 1
    return new


def _prefixed(prefix: str, name: str) -> str:
    return tool_name_for(f"{_BAD_CHAR.sub('_', prefix)}_{name}")


def _surrogate_note(n: int) -> str:
    if n == 1:
        return (
            "[the MCP server's reply held 1 lone UTF-16 surrogate escape (such as \\ud800), which stands for no "
            "character; it was replaced with U+FFFD]"
        )
    return (
        f"[the MCP server's reply held {n:,} lone UTF-16 surrogate escapes (such as \\ud800), which stand for no "
        "character; each was replaced with U+FFFD]"
    )


def _validation_summary(errors: Sequence[Any], branch: str | None = None) -> str:
    """The first problem of a pydantic validation error as ``field.path: message`` (``branch``:
    the member of a union whose problems to prefer, named first in their location), with the
    number of further problems."""
    chosen = [e for e in errors if branch is not None and tuple(e.get("loc") or ())[:1] == (branch,)] or list(errors)
    if not chosen:
        return "its shape is not the one MCP defines"
    first = chosen[0]
    loc = [str(p) for p in tuple(first.get("loc") or ())]
    if branch is not None and loc[:1] == [branch]:
        loc = loc[1:]
    text = f"{'.'.join(loc)}: {first.get('msg')}" if loc else str(first.get("msg"))
    if len(chosen) > 1:
        text += f"; and {len(chosen) - 1} more problem{'s' if len(chosen) > 2 else ''}"
    return text[:500]


def _scrub(value: Any, count: list[int]) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings replaced with U+FFFD;
    ``count[0]`` is increased by the number replaced."""
    if isinstance(value, str):
        new, n = _SURROGATE.subn("\ufffd", value)
        count[0] += n
        return new
    if isinstance(value, list):
        return [_scrub(v, count) for v in value]
    if isinstance(value, dict):
        return {_scrub(k, count): _scrub(v, count) for k, v in value.items()}
    return value


def _read_again(item: Exception) -> Any:
    """A message the ``mcp`` SDK's transport could not read (it hands the read stream the
    parse error instead), read again; otherwise ``item`` unchanged.

    The SDK drops such a message (it only logs it), so the call it answers waits out its
    timeout. Three kinds are read again:

    - JSON that pydantic's parser refuses but Python's reads: a lone surrogate escape such as
      ``\\ud800`` (half of a UTF-16 pair, no character). Each lone surrogate is replaced with
      U+FFFD; a result says how many in its ``_meta`` (the tool result then says so), an error
      in its message;
    - a reply (an ``id`` with a ``result`` or an ``error``) that is no JSON-RPC message, e.g. a
      ``result`` that is not an object: it becomes a JSON-RPC error for that ``id``, so the call
      is answered at once that the server's reply was not valid;
    - a reply that is not JSON at all but names its request at the start of the line (an ``id``,
      then ``result`` or ``error``), typically a line cut off while the server wrote it: a
      JSON-RPC error for that ``id`` (:func:`_not_json`). Any other line is left to the SDK.
    """
    from pydantic import ValidationError

    if not isinstance(item, ValidationError):
        return item
    errors = item.errors(include_url=False)
    message: Any = None
    for e in errors:
        raw = e.get("input")
        if e.get("type") == "json_invalid" and isinstance(raw, (str, bytes, bytearray)):
            try:
                message = json.loads(raw)
            except ValueError as exc:  # not JSON: a reply cut off is answered, anything else passed over
                return _not_json(raw, item, exc)
            except RecursionError:  # nested deeper than json reads (raised in the SDK's reader, it ends the session)
                return _too_deep(raw, item)
            break
        if isinstance(raw, dict) and "jsonrpc" in raw:  # the whole message, as a union member saw it
            message = raw
            break
    if not isinstance(message, dict):
        return item
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    count = [0]
    message = _scrub(message, count)
    if count[0]:
        result, error = message.get("result"), message.get("error")
        if isinstance(result, dict):
            meta = result.get("_meta")
            result["_meta"] = {**(meta if isinstance(meta, dict) else {}), _REPLACED_KEY: count[0]}
        elif isinstance(error, dict) and isinstance(error.get("message"), str):
            error["message"] = f"{error['message']}\n{_surrogate_note(count[0])}"
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(message, by_name=False))
    except ValidationError as again:
        mid = message.get("id")
        if (
            "method" in message
            or isinstance(mid, bool)
            or not isinstance(mid, (int, str))
            or not ("result" in message or "error" in message)
        ):
            return item  # no reply to a request of ours: nothing waits for it
        detail = _validation_summary(
            again.errors(include_url=False), "JSONRPCResponse" if "result" in message else "JSONRPCError"
        )
        error_data = types.ErrorData(
            code=types.INTERNAL_ERROR, message=f"invalid reply: {detail}", data={_INVALID_KEY: detail}
        )
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=mid, error=error_data))


#: The tokens of JSON text :func:`_top_level` reads: a string (escapes kept), or a structural
#: character.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')

#: The start of a line that is a JSON object (white space, then ``{``).
_OBJECT_START = re.compile(r"\s*\{")


def _top_level(raw: str) -> dict[str, str]:
    """The members of the JSON object ``raw`` at its top level, each value as its JSON text
    (stripped), read without recursion however deeply the values nest; ``{}`` when ``raw`` is
    no object, or does not start with one (white space aside: a log line quoting a reply after
    a prefix such as ``DEBUG forwarding {"id": 1, ...`` is no reply). Text that ends inside the
    object (cut off) gives the members read so far, the last one with the part of its value
    that came."""
    out: dict[str, str] = {}
    if _OBJECT_START.match(raw) is None:
        return out
    depth, key, start = 0, None, -1
    for m in _JSON_TOKEN.finditer(raw):
        token = m.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                if key is not None:
                    out[key] = raw[start : m.start()].strip()
                break
        elif depth == 1:
            if token == ":" and key is None:
                return out  # a member without a key: not an object
            if token == ":":
                start = m.end()
            elif token == ",":
                if key is not None:
                    out[key] = raw[start : m.start()].strip()
                key = None
            elif key is None and start <= m.start():  # a string in key position
                try:
                    key = json.loads(token)
                except ValueError:
                    return out
                start = len(raw)  # until its ':'
        elif depth == 0:
            return out
    else:
        if depth >= 1 and key is not None and start >= 0:  # the text ended inside this member (cut off)
            out[key] = raw[start:].strip()
    return out


def _too_deep(raw: str | bytes | bytearray, item: Exception) -> Any:
    """A JSON-RPC error for the reply ``raw``, nested deeper than Python's JSON reader takes, so
    that the call it answers is answered at once that the reply could not be read; ``item``
    (dropped by the SDK) when ``raw`` is no reply to a request of ours."""
    return _unreadable_reply(raw, item, "it is nested too deeply to read")


def _not_json(raw: str | bytes | bytearray, item: Exception, exc: ValueError) -> Any:
    """A JSON-RPC error for the reply ``raw`` that is not valid JSON, e.g. a line cut off while
    the server wrote it (a crash, a kill, a buffer written in two pieces), when the start of the
    line names the request it answers (its ``id``, then ``result`` or ``error``): the call is
    answered at once that the reply could not be read, instead of waiting out its timeout.
    ``item`` (dropped by the SDK, as the SDK drops any line it cannot read) for anything else: a
    line that is no JSON-RPC at all, such as a log line a server printed on stdout."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw
    pos = getattr(exc, "pos", None)
    msg = str(getattr(exc, "msg", "") or "")
    if msg.startswith("Unterminated string") or (isinstance(pos, int) and pos >= len(text.rstrip())):
        detail = "it is not valid JSON: the line ends before the reply does"
    else:
        detail = "it is not valid JSON: " + (
            json_error_at(exc, f"character {pos}") if isinstance(pos, int) else str(exc)
        )
    return _unreadable_reply(text, item, detail)


def _unreadable_reply(raw: str | bytes | bytearray, item: Exception, detail: str) -> Any:
    """A JSON-RPC error saying ``detail`` for the reply ``raw`` that could not be read, so that
    the call it answers is answered at once; ``item`` when ``raw`` is no reply to a request of
    ours (no ``id`` with a ``result`` or ``error``)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw
    members = _top_level(text)
    mid_text = members.get("id", "")
    if "method" in members or not ("result" in members or "error" in members) or len(mid_text) > 200:
        return item
    try:
        mid = json.loads(mid_text)
    except ValueError:
        return item
    if isinstance(mid, bool) or not isinstance(mid, (int, str)):
        return item
    error_data = types.ErrorData(
        code=types.INTERNAL_ERROR, message=f"invalid reply: {detail}", data={_INVALID_KEY: detail}
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=mid, error=error_data))


class _ListingGuard:
    """Keeps one malformed tool of a ``tools/list`` reply from losing all the others.

    The ``mcp`` SDK checks a ``tools/list`` page as a whole against the session's protocol
    version: one tool whose definition is not valid MCP (an ``inputSchema`` whose ``type`` is not
    ``"object"``, a name that is not text, a description that is a number) fails the whole page,
    so ``connect`` failed and none of the server's tools could be used. The guard sees the
    requests written (:meth:`sent`) and the replies read (:meth:`received`) on the transport's
    streams; in a reply to ``tools/list`` each tool is checked alone, the same way, and a tool that
    fails is left out of the page before the SDK reads it, its name and first problem kept in
    :attr:`left_out` for :meth:`MCPToolset.refresh` to report."""

    def __init__(self) -> None:
        #: the ids of the tools/list requests written and not yet answered
        self.pending: set[str] = set()
        #: the session's protocol version (set once the handshake is done)
        self.version: str | None = None
        #: ``(the name as listed, its first problem)`` of each tool left out since last taken
        self.left_out: list[tuple[str, str]] = []

    def sent(self, item: Any) -> None:
        message = getattr(item, "message", None)
        mid = getattr(message, "id", None)
        if getattr(message, "method", None) == "tools/list" and mid is not None:
            self.pending.add(str(mid))

    def received(self, item: Any) -> Any:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        message = getattr(item, "message", None)
        if not isinstance(message, types.JSONRPCResponse) or str(message.id) not in self.pending:
            return item
        self.pending.discard(str(message.id))
        listed = message.result.get("tools")
        page = {k: v for k, v in message.result.items() if k != "tools"}
        ttl = page.get("ttlMs")  # the SDK floors a negative one to 0 before it checks the page
        if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl < 0:
            page["ttlMs"] = 0
        if not isinstance(listed, list) or self._problem(page) is not None:
            return item  # the page itself is not MCP: the SDK says so
        kept = []
        for number, spec in enumerate(listed, 1):
            problem = self._problem(page, spec)
            if problem is None:
                kept.append(spec)
                continue
            name = spec.get("name") if isinstance(spec, dict) else None
            if not isinstance(name, str):  # named by its place in the page
                what = f"name {json.dumps(name, default=str)[:60]}" if isinstance(spec, dict) else json.dumps(spec)[:60]
                name = f"#{number} ({what})"
            self.left_out.append((name, problem))
        if len(kept) == len(listed):
            return item
        reply = types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result={**message.result, "tools": kept})
        return SessionMessage(reply, metadata=getattr(item, "metadata", None))

    def _problem(self, page: dict[str, Any], *spec: Any) -> str | None:
        """The first problem of one listed tool ``spec`` as the SDK would find it in ``page`` (the
        reply's other fields) holding only that tool (``inputSchema.type: Input should be
        'object'``); without ``spec``, the problem of the page holding no tool. ``None`` when
        there is none."""
        import mcp_types as types
        from mcp_types import methods
        from pydantic import ValidationError

        try:
            if self.version is not None:
                try:
                    methods.validate_server_result("tools/list", self.version, {**page, "tools": list(spec)})
                except ValidationError:
                    raise
                except (KeyError, ValueError):  # a version the SDK has no surface for: as the SDK does
                    pass
            if spec:
                types.Tool.model_validate(spec[0], by_name=False)
        except ValidationError as exc:
            errors = [
                {**e, "loc": tuple(e.get("loc") or ())[2:]}
                if tuple(e.get("loc") or ())[:2] in (("tools", 0), ("tools", "0"))
                else e
                for e in exc.errors(include_url=False)
            ]
            return _validation_summary(errors)
        except Exception:  # a check that fails otherwise: the SDK decides, as before
            return None
        return None


class _ReadAgain:
    """A transport's read stream whose unreadable messages are read again (:func:`_read_again`)
    and whose ``tools/list`` replies lose only their malformed tools (:class:`_ListingGuard`)."""

    def __init__(self, inner: Any, guard: _ListingGuard | None = None) -> None:
        self._inner = inner
        self._guard = guard

    def __getattr__(self, name: str) -> Any:  # last_context and the like
        return getattr(self._inner, name)

    def _seen(self, item: Any) -> Any:
        if isinstance(item, Exception):
            item = _read_again(item)
        if self._guard is not None and not isinstance(item, Exception):
            item = self._guard.received(item)
        return item

    async def receive(self) -> Any:
        return self._seen(await self._inner.receive())

    def __aiter__(self) -> _ReadAgain:
        return self

    async def __anext__(self) -> Any:
        return self._seen(await self._inner.__anext__())

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _ReadAgain:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


class _WatchedWrites:
    """A transport's write stream whose requests the :class:`_ListingGuard` sees."""

    def __init__(self, inner: Any, guard: _ListingGuard) -> None:
        self._inner = inner
        self._guard = guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any) -> None:
        self._guard.sent(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedWrites:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


class _ReadAgainTransport:
    """An ``mcp`` transport (an async context manager giving ``(read, write)`` streams) whose read
    stream reads unreadable messages again, and whose ``tools/list`` replies lose only their
    malformed tools (``guard``)."""

    def __init__(self, inner: Any, guard: _ListingGuard | None = None) -> None:
        self._inner = inner
        self._guard = guard

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        if self._guard is None:
            return _ReadAgain(read), write
        return _ReadAgain(read, self._guard), _WatchedWrites(write, self._guard)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


def _is_transport(target: Any) -> bool:
    """Whether ``target`` (given to :class:`MCPToolset`) is an ``mcp`` transport (an async context
    manager giving read and write streams), not a server object run in process."""
    from mcp.server.lowlevel import Server

    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:  # pragma: no cover - depends on the SDK
        MCPServer = Server
    return not isinstance(target, (Server, MCPServer)) and hasattr(target, "__aenter__")


def _cut_repr(value: Any, limit: int = 100) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _writable(arguments: Any) -> bool:
    """Whether pydantic's serializer (the one the ``mcp`` SDK writes a request with) takes
    ``arguments``: a value nested deeper than its limit raises ``ValueError`` ("Maximum
    serialization depth exceeded"), whether in the arguments sent or in the reply read."""
    import pydantic_core

    try:
        pydantic_core.to_json(arguments)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def _invalid_reply(server: str, detail: str, what: str = "a reply that is not a valid MCP tool result") -> ToolError:
    return ToolError(
        f"the MCP server {server!r} sent {what} ({detail}); the call may have run, but its result cannot be read",
        hint=_BAD_REPLY_HINT,
    )


# -- MCP result → toolwire tool result ------------------------------------------------------------


def _get(obj: Any, *names: str) -> Any:
    for n in names:
        if isinstance(obj, dict):
            if n in obj:
                return obj[n]
        elif hasattr(obj, n):
            return getattr(obj, n)
    return None


def _image(data: Any, mime: Any, what: str) -> ImagePart | TextPart:
    try:
        raw = base64.b64decode(str(data), validate=True)
    except (ValueError, TypeError):
        return TextPart(f"[{what}: the server sent image data that is not base64; left out]")
    return ImagePart(data=raw, media_type=str(mime or "application/octet-stream"))


def _document(data: Any, mime: str, uri: Any) -> DocumentPart | TextPart:
    """A PDF blob of an embedded resource as a document part (named by the last segment of its
    URI), or a line saying why it was left out (not base64, not a PDF)."""
    try:
        raw = base64.b64decode(str(data), validate=True)
    except (ValueError, TypeError):
        return TextPart(f"[resource {uri}: the server sent document data that is not base64; left out]")
    name = unquote(str(uri or "").rstrip("/").rsplit("/", 1)[-1]) or None
    try:
        return DocumentPart(raw, mime, filename=name)
    except ValueError as exc:
        return TextPart(f"[resource {uri} ({mime}) left out: {exc}]")


def _is_pdf_blob(data: Any) -> bool:
    """Whether ``data`` is base64 text of bytes that begin as a PDF does (``%PDF-``)."""
    try:
        return base64.b64decode(str(data)[:16], validate=True).startswith(b"%PDF-")
    except (ValueError, TypeError):
        return False


def result_content(result: Any) -> tuple[list[TextPart | ImagePart | DocumentPart], bool]:
    """Map an MCP ``CallToolResult`` (the SDK object or its JSON dict) to toolwire content parts
    and the error flag, by the table in the module docs."""
    parts: list[TextPart | ImagePart | DocumentPart] = []
    blocks = _get(result, "content") or []
    for block in blocks:
        kind = _get(block, "type")
        if kind == "text":
            parts.append(TextPart(str(_get(block, "text") or "")))
        elif kind == "image":
            parts.append(_image(_get(block, "data"), _get(block, "mime_type", "mimeType"), "image"))
        elif kind == "audio":
            mime = _get(block, "mime_type", "mimeType")
            parts.append(TextPart(f"[audio ({mime}) left out: the model's API does not take audio in tool results]"))
        elif kind == "resource":
            res = _get(block, "resource")
            uri = _get(res, "uri")
            text = _get(res, "text")
            if text is not None:
                parts.append(TextPart(f"resource {uri}:\n{text}"))
            else:
                mime = str(_get(res, "mime_type", "mimeType") or "")
                base = mime.split(";", 1)[0].strip().lower()
                blob = _get(res, "blob")
                if base.startswith("image/"):
                    parts.append(_image(blob, mime, f"resource {uri}"))
                elif base in DOCUMENT_MEDIA_TYPES:
                    # a PDF, or plain text sent as a blob (as toolwire's own server sends a
                    # text/plain DocumentPart)
                    parts.append(_document(blob, mime, uri))
                elif base in ("", "application/octet-stream") and _is_pdf_blob(blob):
                    # a PDF a server sends with no type or the generic binary one
                    parts.append(_document(blob, "application/pdf", uri))
                else:
                    parts.append(TextPart(f"[binary resource {uri} ({mime or 'unknown type'}) left out]"))
        elif kind == "resource_link":
            label = _get(block, "name") or _get(block, "uri")
            parts.append(TextPart(f"resource link: {label} <{_get(block, 'uri')}>"))
        else:
            parts.append(TextPart(f"[MCP content of type {kind!r} left out]"))
    structured = _get(result, "structured_content", "structuredContent")
    if structured is not None and not any(isinstance(p, TextPart) and p.text for p in parts):
        parts.append(TextPart(json.dumps(structured, ensure_ascii=False, default=str)))
    return parts, bool(_get(result, "is_error", "isError"))


# -- client --------------------------------------------------------------------------------------


class MCPToolset:
    """An open session with one MCP server and its tools as toolwire tools.

    Build it with :func:`connect` and use it as an async context manager; iterating it (or
    :attr:`tools`) gives the :class:`~toolwire.tools.Tool` objects, so it can be passed straight
    to ``toolwire.run(..., tools=toolset)``.

    - ``prefix``: the prefix :func:`combine` uses on a name collision (default: the server's name).
    - ``timeout``: seconds one call may take before it is answered as an ``is_error`` timeout.
    - ``handshake_timeout``: seconds entering the ``async with`` block may take (server start,
      MCP handshake, first tool list) before it raises :class:`~toolwire.errors.ConfigurationError`.
    - :attr:`renames`: ``{toolwire name: MCP name}`` for every tool whose name was changed.
    - :attr:`left_out`: ``{name as listed: first problem}`` for every tool the server listed whose
      definition is not valid MCP (left out, with an :class:`MCPListingWarning`).
    - :attr:`server_name`: the server's name from its ``initialize`` / discovery answer.
    """

    def __init__(
        self,
        target: Any,
        *,
        prefix: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        label: str | None = None,
        handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
    ) -> None:
        if prefix is not None and (not isinstance(prefix, str) or not prefix.strip()):
            raise ConfigurationError(
                f"prefix must be non-empty text (the start of the tool names on a collision, e.g. 'github'), "
                f"or None for the server's name; got {prefix!r}"
            )
        self._target = target
        self.prefix = prefix
        self.timeout = timeout
        self.handshake_timeout: float = _seconds("handshake_timeout", handshake_timeout)
        #: Characters of text a successful result gives the model (``None``: no cap); see
        #: :data:`DEFAULT_MAX_RESULT_CHARS`.
        self.max_result_chars: int | None = _result_chars(max_result_chars)
        self.label: str = label or (target if isinstance(target, str) else type(target).__name__)
        self.server_name: str = ""
        self.renames: dict[str, str] = {}
        self.refreshes: int = 0
        self._tools: list[Tool] = []
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._refresh_lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()
        self._warned: set[str] = set()
        self._deferred_warnings: list[str | Warning] | None = None
        self._guard = _ListingGuard()
        #: ``{name as listed: its first problem}`` of the tools the server listed that were left
        #: out, their definitions not being valid MCP (each said once with an MCPListingWarning)
        self.left_out: dict[str, str] = {}
        self._combined_lists: dict[int, weakref.ref[CombinedTools]] = {}  # combine() lists to keep current

    # iteration / access
    @property
    def tools(self) -> list[Tool]:
        """The server's tools as toolwire tools (a new list after each refresh)."""
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"<MCPToolset {self.server_name or self.label!r}: {plural(len(self._tools), 'tool')}>"

    # lifecycle
    async def __aenter__(self) -> MCPToolset:
        """Start (or reach) the server, complete the MCP handshake and list its tools, within
        :attr:`handshake_timeout` seconds. Raises :class:`~toolwire.errors.ConfigurationError`
        when the server cannot be started, fails the handshake, or does not finish it in time
        (the server process is then stopped)."""
        _require_mcp()
        if self._owner is not None:
            raise ConfigurationError(f"the MCP session with {self.label!r} is already open")
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        closing = asyncio.Event()
        self._closing = closing
        self._deferred_warnings = []
        # The session lives in a task of its own, so that a handshake cut off by the timeout is
        # unwound inside the task that opened it (the SDK's anyio task groups require that).
        owner = loop.create_task(self._own_session(ready, closing), name=f"mcp session {self.label}")
        self._owner = owner
        try:
            await asyncio.wait({owner, ready}, timeout=self.handshake_timeout, return_when="FIRST_COMPLETED")
        except BaseException:  # cancelled while connecting: stop the server too
            self._deferred_warnings = None
            await self._stop_owner(graceful=False)
            raise
        deferred, self._deferred_warnings = self._deferred_warnings or [], None
        if ready.done() and not ready.cancelled() and ready.exception() is None:
            owner.add_done_callback(self._session_ended)
            for message in deferred:  # in the caller's code, not the session's task
                warnings.warn(message, MCPNameWarning, stacklevel=2)
            return self
        exc: BaseException | None = None
        if ready.done() and not ready.cancelled():
            exc = ready.exception()
        elif owner.done() and not owner.cancelled():
            exc = owner.exception()
        timed_out = not ready.done() and not owner.done()
        await self._stop_owner(graceful=False)
        if timed_out:
            raise ConfigurationError(
                f"the MCP server {self.label!r} did not complete the MCP handshake (initialize and tools/list) "
                f"within {self.handshake_timeout:g} s; the server was stopped. Check that the command starts an "
                "MCP server speaking on stdio (or that the URL is an MCP endpoint), or allow it more time: "
                "connect(..., handshake_timeout=SECONDS)"
            )
        if isinstance(exc, ConfigurationError):
            raise exc
        cause = _leaf(exc) if exc is not None else RuntimeError("the session ended during the handshake")
        from pydantic import ValidationError

        if isinstance(cause, ValidationError):  # the SDK could not read an answer of the handshake
            raise ConfigurationError(
                f"could not connect to the MCP server {self.label!r}: it answered the handshake (initialize or "
                f"tools/list) with a reply that is not valid MCP ({_validation_summary(cause.errors(include_url=False))}); "
                "the server must be fixed (or updated) before its tools can be used"
            ) from exc
        raise ConfigurationError(
            f"could not connect to the MCP server {self.label!r}: {type(cause).__name__}: {cause}"
        ) from exc

    async def _own_session(self, ready: asyncio.Future[None], closing: asyncio.Event) -> None:
        """The session's own task: connect, list the tools, then hold the session open until
        :meth:`aclose`."""
        from mcp.client import Client

        try:
            async with AsyncExitStack() as stack:
                from mcp.client.stdio import StdioServerParameters, stdio_client

                target = self._target
                if isinstance(target, StdioServerParameters):
                    # a reply the SDK cannot parse is read again, not dropped (_read_again)
                    target = _ReadAgainTransport(stdio_client(target), self._guard)
                elif isinstance(target, str):  # a URL
                    from mcp.client.streamable_http import streamable_http_client

                    target = _ReadAgainTransport(streamable_http_client(target), self._guard)
                elif _is_transport(target):  # streamable HTTP with headers (connect), or the caller's own
                    target = _ReadAgainTransport(target, self._guard)
                client = Client(target, message_handler=self._on_message, read_timeout_seconds=self.timeout)
                self._client = await stack.enter_async_context(client)
                self._guard.version = getattr(client.session, "protocol_version", None)
                info = client.server_info
                self.server_name = str(getattr(info, "name", "") or "") if info is not None else ""
                await self.refresh()
                await self._listen_for_changes(stack)
                if not ready.done():
                    ready.set_result(None)
                await closing.wait()
        except BaseException as exc:
            self._client = None
            if not ready.done():
                if isinstance(exc, Exception):
                    ready.set_exception(exc)
                    return  # reported by __aenter__
                ready.cancel()
            raise
        finally:
            self._client = None

    def _session_ended(self, task: asyncio.Task[None]) -> None:
        self._client = None  # calls now answer "no longer connected"
        if not task.cancelled():
            task.exception()  # retrieved: a session that broke later is not reported as unhandled

    async def _stop_owner(self, *, graceful: bool = True) -> None:
        """End the session's task: with ``graceful``, let it close the session (the SDK then ends
        the server process) for up to a few seconds before cancelling it."""
        owner, self._owner = self._owner, None
        if owner is None:
            return
        if self._closing is not None:
            self._closing.set()
        if graceful and not owner.done():
            try:
                await asyncio.wait_for(asyncio.shield(owner), timeout=_CLOSE_GRACE)
            except Exception:  # timed out, or the session broke while closing
                pass
        if not owner.done():
            owner.cancel()
        try:
            await owner
        except BaseException:  # its outcome was already reported (or the session is being dropped)
            pass

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """End the session (and the server process, for a stdio server)."""
        for task in list(self._background):
            task.cancel()
        self._client = None
        await self._stop_owner()

    async def _listen_for_changes(self, stack: AsyncExitStack) -> None:
        """On 2026-07-28 sessions a server announces tool-list changes only to clients that
        listen (``subscriptions/listen``); earlier sessions send the notification unasked
        (handled by :meth:`_on_message`)."""
        caps = getattr(self._client, "server_capabilities", None)
        tools_cap = getattr(caps, "tools", None)
        if tools_cap is None or not getattr(tools_cap, "list_changed", False):
            return
        try:
            subscription = await stack.enter_async_context(self._client.listen(tools_list_changed=True))
        except Exception:  # older protocol (ListenNotSupportedError) or a server that refuses: notifications only
            return

        async def follow() -> None:
            try:
                async for _event in subscription:
                    await self.refresh()
            except Exception:  # the stream dropped: the tools stay as they were last listed
                return

        task = asyncio.get_running_loop().create_task(follow())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed" and self._client is not None:
            task = asyncio.get_running_loop().create_task(self.refresh())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def refresh(self) -> list[Tool]:
        """Ask the server for its tool list again (every page) and rebuild :attr:`tools`."""
        if self._client is None:
            raise ConfigurationError("the MCP session is not open; use 'async with toolwire.mcp.connect(...)'")
        async with self._refresh_lock:
            self._guard.left_out.clear()  # (what an earlier listing left out is told by its own refresh)
            listed: list[Any] = []
            cursor = None
            cursors: set[str] = set()
            names: set[str] = set()
            for _ in range(1000):  # a server that pages forever is cut off
                page = await self._client.list_tools(cursor=cursor, cache_mode="refresh")
                for spec in page.tools:
                    # a name listed again (the same tool on two pages, a page served twice) is one
                    # tool: the first listing is kept, so the run does not fail on a duplicate name
                    if str(spec.name) in names:
                        self._warn_once(
                            f"listed {spec.name!r}",
                            f"the MCP server {self.server_name or self.label!r} lists a tool named {str(spec.name)!r} "
                            "more than once; the first one listed is used",
                        )
                        continue
                    names.add(str(spec.name))
                    listed.append(spec)
                cursor = page.next_cursor
                if not cursor or cursor in cursors:  # a cursor served again would list the same pages
                    break
                cursors.add(cursor)
            left_out: dict[str, str] = {}
            for name, problem in self._guard.left_out:
                left_out[name] = problem
                self._warn_once(
                    f"left out {name!r} {problem}",
                    MCPListingWarning(
                        f"the MCP server {self.server_name or self.label!r} lists a tool {name!r} whose definition is "
                        f"not valid MCP ({problem}); it was left out, the server's other tools are used. Fix the "
                        "tool's definition in the server to use it",
                        name,
                        problem,
                    ),
                )
            self._guard.left_out.clear()
            self.left_out = left_out
            tools: list[Tool] = []
            renames: dict[str, str] = {}
            # names the server's tools already have that need no rewriting: a rewritten name
            # that would equal one of them, or another rewritten name, is made distinct
            taken = {str(spec.name) for spec in listed if _NAME_OK.fullmatch(str(spec.name))}
            for spec in listed:
                tools.append(self._tool(spec, renames, taken))
            self._tools = tools
            self.renames = renames
            self.refreshes += 1
            for key, ref in list(self._combined_lists.items()):  # combine()'s renames, applied again
                combined = ref()
                if combined is None:
                    del self._combined_lists[key]
                else:
                    combined._toolset_refreshed()
            return list(tools)

    def _tool(self, spec: Any, renames: dict[str, str], taken: set[str]) -> Tool:
        mcp_name = str(spec.name)
        name = tool_name_for(mcp_name)
        if name != mcp_name:
            if name in taken:  # files.read and "files read" both rewrite to files_read
                name = _distinct_name(name, mcp_name, taken)
            taken.add(name)
            renames[name] = mcp_name
        if name != mcp_name:
            self._warn_once(
                mcp_name,
                f"MCP tool {mcp_name!r} of {self.server_name or self.label!r} is named {name!r} for the model "
                "(toolwire's tool-name rule: letters, digits, '_' and '-', at most 64 characters)",
            )
        schema = spec.input_schema if isinstance(spec.input_schema, dict) else {"type": "object", "properties": {}}
        description = spec.description or (getattr(spec, "title", None) or "")
        annotations = getattr(spec, "annotations", None)
        # calling again is safe only when the server says so (MCP's defaults: readOnlyHint false,
        # idempotentHint false, i.e. a call may change something, and twice may change it twice)
        repeatable = annotations is not None and (
            getattr(annotations, "read_only_hint", None) is True
            or getattr(annotations, "idempotent_hint", None) is True
        )
        tool = Tool(name, description, dict(schema), self._caller(mcp_name, repeatable), timeout=self.timeout)
        mcp_meta: dict[str, Any] = {"server": self.server_name or self.label, "name": mcp_name}
        tool.meta["mcp"] = mcp_meta
        if (
            annotations is not None
            and getattr(annotations, "read_only_hint", None) is False
            and getattr(annotations, "idempotent_hint", None) is False
        ):
            mcp_meta["side_effects"] = True
        return tool

    def _warn_once(self, key: str, message: str | Warning) -> None:
        """``message`` as a warning (an :class:`MCPNameWarning` when it is text), once per ``key``
        for this toolset."""
        if key in self._warned:
            return
        self._warned.add(key)
        if self._deferred_warnings is not None:  # while connecting: warned from __aenter__
            self._deferred_warnings.append(message)
        else:
            warnings.warn(message, MCPNameWarning, stacklevel=4)

    def _caller(self, mcp_name: str, repeatable: bool = False) -> Any:
        """The function of the tool ``mcp_name``; ``repeatable``: the server's annotations say a
        call may be made again (read-only or idempotent), which decides what a timeout advises."""
        from pydantic import ValidationError

        def timed_out() -> ToolError:
            if repeatable:
                return ToolError(
                    f"the MCP server did not answer within {self.timeout:g} s",
                    retryable=True,
                    hint="Try again once, or answer without this tool.",
                )
            return ToolError(
                f"the MCP server did not answer within {self.timeout:g} s; the call may still have been carried out",
                hint="Check whether it took effect (for example with a tool that reads it) before calling it again: "
                "the server does not mark this tool read-only or idempotent, so a second call may do it twice.",
            )

        async def call_mcp_tool(**arguments: Any) -> Any:
            client = self._client
            if client is None:
                raise ToolError(
                    f"the MCP server {self.server_name or self.label!r} is no longer connected",
                    hint=_SERVER_GONE,
                )
            server = self.server_name or self.label
            # a lone UTF-16 surrogate (which UTF-8 cannot carry) would kill the SDK's writer task, and
            # with it the session for every later call: sent as U+FFFD, as the loop sends it to a model
            arguments = without_lone_surrogates(arguments)
            try:
                result = await client.call_tool(mcp_name, arguments, read_timeout_seconds=self.timeout)
            except ValidationError as exc:  # the reply is JSON-RPC, its result no CallToolResult
                raise _invalid_reply(server, _validation_summary(exc.errors(include_url=False))) from exc
            except TimeoutError as exc:
                raise timed_out() from exc
            except Exception as exc:
                code = getattr(getattr(exc, "error", None), "code", None)
                message = getattr(getattr(exc, "error", None), "message", None) or str(exc)
                data = getattr(getattr(exc, "error", None), "data", None)
                if isinstance(data, dict) and isinstance(data.get(_INVALID_KEY), str):  # put there by _read_again
                    raise _invalid_reply(server, data[_INVALID_KEY]) from exc
                if code is None and (
                    isinstance(exc, RecursionError) or (isinstance(exc, ValueError) and "depth" in message)
                ):
                    # pydantic's serializer, in the SDK, on a value nested past its limit ("Maximum
                    # serialization depth exceeded"): the arguments written, or the reply checked
                    detail = message.strip().splitlines()[0][:500] if message.strip() else type(exc).__name__
                    if not _writable(arguments):
                        raise ToolError(
                            f"the call was not sent to the MCP server {server!r}: its arguments could not be "
                            f"written as JSON ({detail})",
                            hint="Send arguments nested less deeply.",
                        ) from exc
                    raise _invalid_reply(server, detail) from exc
                if code == _PARSE_ERROR and message.startswith(_PARSE_FAILED):
                    # the SDK's HTTP transport could not parse the reply (mcp.client.streamable_http)
                    detail = _PYDANTIC_NOISE.sub("", message)  # its [type=..., input_value=...] and URL lines
                    detail = " ".join(detail.split())[:500]
                    raise _invalid_reply(server, detail) from exc
                if isinstance(exc, RuntimeError) and (
                    "output schema" in message or message.startswith("Invalid structured content returned by tool")
                ):
                    # the SDK checks structuredContent against the tool's declared outputSchema
                    # (mcp.client.session.ClientSession.validate_tool_result)
                    detail = message.strip().splitlines()[0][:500] if message.strip() else type(exc).__name__
                    raise _invalid_reply(
                        server, detail, "a result that does not match the output schema it declared for the tool"
                    ) from exc
                if code == _REQUEST_TIMEOUT:  # the SDK's own read timeout (mcp.types.REQUEST_TIMEOUT)
                    raise timed_out() from exc
                if code == _CONNECTION_CLOSED and message == _CLOSED_MESSAGE:
                    # the server process ended: the SDK's own error (mcp.types.CONNECTION_CLOSED, "Connection
                    # closed"); a server answering a call with an error of code -32000 (JSON-RPC's range of
                    # server errors) is still there, and its message is a refusal like any other
                    raise ToolError(
                        f"the MCP server {server!r} closed the connection ({message})",
                        hint=_SERVER_GONE,
                    ) from exc
                message = message if message.strip() else "it gave no message"  # cut, if long, as any tool error
                raise ToolError(
                    f"the MCP server refused the call ({'code ' + str(code) + ': ' if code is not None else ''}{message})",
                    hint="Check the tool name and arguments against the tool's input schema.",
                ) from exc
            parts, is_error = result_content(result)
            meta = getattr(result, "meta", None)
            replaced = meta.get(_REPLACED_KEY) if isinstance(meta, dict) else None
            note = [TextPart(_surrogate_note(replaced))] if isinstance(replaced, int) and replaced > 0 else []
            if is_error:
                text = "\n".join(p.text for p in parts if isinstance(p, TextPart)) or "the tool reported an error"
                text = "\n".join([cap_error_text(text), *(p.text for p in note)])
                shown = [p for p in parts if isinstance(p, (ImagePart, DocumentPart))]
                if shown:
                    # an error that shows something (a screenshot of the failure, a PDF report): its
                    # images and documents are kept, after the error text
                    return ToolResult("", [TextPart(text), *shown], True)
                raise ToolError(text)
            if self.max_result_chars is not None:
                parts = _cap_result_parts(parts, self.max_result_chars)
            if note:
                if all(isinstance(p, TextPart) for p in parts):
                    return "\n".join(p.text for p in [*parts, *note] if isinstance(p, TextPart))
                parts = [*parts, *note]
            if len(parts) == 1 and isinstance(parts[0], TextPart):
                return parts[0].text
            return parts or ""

        call_mcp_tool.__name__ = f"mcp_{tool_name_for(mcp_name)}"
        return call_mcp_tool


def connect(
    server: Any,
    *,
    prefix: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
) -> MCPToolset:
    """Open an MCP server's tools: ``async with connect(server) as toolset: ...``.

    ``server`` is one of:

    - a command line string (``"uvx mcp-server-time"``, split like a shell would) or a list of
      arguments: the server is started as a subprocess and spoken to over stdio. Its environment
      is the ``mcp`` SDK's safe default (``PATH``, ``HOME``, ``LANG``, ... — no API keys) plus
      ``env``; ``cwd`` is its working directory;
    - an ``http://`` or ``https://`` URL: streamable HTTP (``headers`` are sent with each request);
    - an ``mcp`` server object (``mcp.server.lowlevel.Server`` or ``MCPServer``), connected in process.

    ``timeout``: seconds a tool call may take (default 30; its result is then an ``is_error``
    timeout). ``handshake_timeout``: seconds entering the ``async with`` block may take to start
    the server, complete the MCP handshake (``initialize``) and list the tools (default 30; a
    server started with ``uvx`` for the first time downloads its package in that time).
    ``max_result_chars``: characters of text a successful tool result gives the model (default
    :data:`DEFAULT_MAX_RESULT_CHARS`, 100,000, about 25,000 tokens; at least 5,000; ``None`` for no
    cap): a longer result keeps its beginning and end with a line saying how much was left out
    and that the tool should be called asking for less.
    Raises :class:`~toolwire.errors.ConfigurationError` for a bad setting (a timeout that is not
    a number of seconds > 0, a ``max_result_chars`` below 5,000), and on entering the block when the server cannot be started, fails
    the handshake, or does not finish it within ``handshake_timeout`` (the server process is then
    stopped; the message says so and names the setting).
    """
    _require_mcp()
    _seconds("timeout", timeout)
    _seconds("handshake_timeout", handshake_timeout)
    _result_chars(max_result_chars)
    target: Any
    label: str
    if isinstance(server, (list, tuple)) or (isinstance(server, str) and not re.match(r"https?://", server)):
        from mcp.client.stdio import StdioServerParameters

        try:
            argv = shlex.split(server) if isinstance(server, str) else [str(a) for a in server]
        except ValueError as exc:  # an unbalanced quote
            raise ConfigurationError(f"cannot read the MCP server command {server!r}: {exc}") from None
        if not argv:
            raise ConfigurationError("connect() needs a command line, a URL or a server object; got an empty command")
        if env is not None and (
            not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise ConfigurationError(
                f"env must map names to text (e.g. {{'LOG_LEVEL': 'debug'}}), got {_cut_repr(env)}: give each value as a str"
            )
        if cwd is not None and not isinstance(cwd, (str, os.PathLike)):
            raise ConfigurationError(f"cwd must be a folder path (text), got {_cut_repr(cwd)}")
        if cwd is not None and not os.path.isdir(cwd):
            # (else the start fails with "No such file or directory", which reads as the command missing)
            raise ConfigurationError(
                f"cwd {_cut_repr(os.fspath(cwd))} is not a folder: give the folder to start the server in"
            )
        # bytes on the server's stdout that are not UTF-8 (a print of binary data) are read as
        # U+FFFD: with the SDK's default "strict" the reader dies silently and every later call
        # waits out its timeout
        target = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env=dict(env) if env is not None else None,
            cwd=os.fspath(cwd) if cwd is not None else None,
            encoding_error_handler="replace",
        )
        label = shlex.join(argv)  # (quoted as a shell would need it: it can be copied and run)
    elif isinstance(server, str):
        target = server
        label = server
        if headers is not None and (
            not isinstance(headers, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
            or any(c in "\r\n" for k, v in headers.items() for c in k + v)
        ):
            raise ConfigurationError(
                f"headers must map header names to text on one line (e.g. {{'Authorization': 'Bearer ...'}}), "
                f"got {_cut_repr(type(headers).__name__ if not isinstance(headers, Mapping) else list(headers))}"
            )
        if headers:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            target = streamable_http_client(
                server, http_client=httpx2.AsyncClient(headers=headers, follow_redirects=True)
            )
    else:
        target = server
        label = getattr(server, "name", None) or type(server).__name__
    return MCPToolset(
        target,
        prefix=prefix,
        timeout=timeout,
        label=label,
        handshake_timeout=handshake_timeout,
        max_result_chars=max_result_chars,
    )


async def list_tools(server: Any, **options: Any) -> tuple[list[Tool], dict[str, str]]:
    """Connect, list the server's tools and disconnect: ``(tools, renames)``. The tools keep their
    definitions (for ``toolwire lint``) but can no longer be called."""
    async with connect(server, **options) as ts:
        return ts.tools, dict(ts.renames)


def list_tools_sync(server: Any, **options: Any) -> tuple[list[Tool], dict[str, str]]:
    """:func:`list_tools` from synchronous code (the ``toolwire lint mcp:<server>`` target)."""
    return asyncio.run(list_tools(server, **options))


def combine(*toolsets: Iterable[Tool]) -> list[Tool]:
    """The tools of several MCP toolsets (or plain tool lists) as one list for a run.

    Where two MCP servers publish the same tool name, each of those tools is renamed
    ``<prefix>_<name>`` with its toolset's ``prefix`` (default: the server's name) and the rename
    is recorded in that toolset's :attr:`MCPToolset.renames`; calls still reach the server under
    its own name. Raises :class:`~toolwire.errors.ToolDefinitionError` when a collision remains
    (two plain tools, or prefixes that are equal too).

    The list stays current: when one of the servers' tool lists is refreshed (the server said it
    changed), the list is rebuilt in place by the same rule, so the renames are applied again to
    the new tools (a tool that now collides is prefixed, one that no longer does keeps its name)
    and each toolset's :attr:`~MCPToolset.renames` says so. A run takes its tools when it starts,
    so a run under way keeps the ones it started with. Should a refreshed list leave a collision
    no prefix resolves, the list keeps its previous tools and an :class:`MCPNameWarning` says why.
    """
    return CombinedTools(toolsets)


class CombinedTools(list[Tool]):
    """What :func:`combine` returns: a ``list`` of :class:`~toolwire.tools.Tool` that is rebuilt
    in place whenever one of its MCP toolsets refreshes its tool list."""

    def __init__(self, toolsets: Sequence[Iterable[Tool]]) -> None:
        super().__init__()
        self._sources: list[Any] = []
        for ts in toolsets:
            if isinstance(ts, MCPToolset):
                self._sources.append(ts)
                continue
            if isinstance(ts, (str, bytes)) or not isinstance(ts, Iterable):
                raise ToolDefinitionError(
                    f"combine() takes toolsets and lists of tools or typed functions, got {type(ts).__name__}"
                )
            plain: list[Tool] = []
            for t in ts:
                if not isinstance(t, Tool):
                    if not callable(t):
                        raise ToolDefinitionError(
                            f"combine() takes toolsets and lists of tools or typed functions, got {type(t).__name__}"
                        )
                    t = Tool.from_function(t)
                plain.append(t)
            self._sources.append(plain)
        self._added: dict[int, dict[str, str]] = {}  # id(toolset) -> the renames this list added
        self._announced: set[tuple[int, str]] = set()
        self[:] = self._combined(stacklevel=4)
        for ts in self._sources:
            if isinstance(ts, MCPToolset):
                ts._combined_lists[id(self)] = weakref.ref(self)

    def _toolset_refreshed(self) -> None:
        """Called by :meth:`MCPToolset.refresh`: rebuild from the toolsets' current tools."""
        try:
            new = self._combined(stacklevel=2)
        except ToolDefinitionError as exc:
            warnings.warn(f"the combined tool list was not updated: {exc}", MCPNameWarning, stacklevel=2)
            return
        self[:] = new

    def _combined(self, *, stacklevel: int) -> list[Tool]:
        owners: list[tuple[Tool, Any]] = []
        for ts in self._sources:
            for t in ts.tools if isinstance(ts, MCPToolset) else ts:
                owners.append((t, ts))
        count: dict[str, int] = {}
        for t, _ in owners:
            count[t.name] = count.get(t.name, 0) + 1
        out: list[Tool] = []
        added: dict[int, dict[str, str]] = {}
        notes: list[str] = []
        for t, ts in owners:
            if count[t.name] > 1 and isinstance(ts, MCPToolset):
                prefix = ts.prefix or ts.server_name or ts.label
                new = _prefixed(prefix, t.name)
                out.append(
                    Tool(
                        new,
                        t.description,
                        t.input_schema,
                        t.function,
                        strict=t.strict,
                        returns=t.returns,
                        timeout=t.timeout,
                        meta=dict(t.meta),
                    )
                )
                added.setdefault(id(ts), {})[new] = (t.meta.get("mcp") or {}).get("name", t.name)
                if (id(ts), new) not in self._announced:
                    self._announced.add((id(ts), new))
                    notes.append(
                        f"MCP tool {t.name!r} of {prefix!r} is named {new!r} for the model: another server has "
                        f"a tool named {t.name!r}"
                    )
            else:
                out.append(t)
        seen: dict[str, Tool] = {}
        for t in out:
            if t.name in seen:
                a = (seen[t.name].meta.get("mcp") or {}).get("server", "a plain tool")
                b = (t.meta.get("mcp") or {}).get("server", "a plain tool")
                raise ToolDefinitionError(
                    f"two tools are named {t.name!r} ({a} and {b}); give the MCP toolsets different prefixes: "
                    "toolwire.mcp.connect(..., prefix='...')"
                )
            seen[t.name] = t
        # the renames: what this list added before is taken back, what it adds now recorded
        for ts in self._sources:
            if not isinstance(ts, MCPToolset):
                continue
            for name, mcp_name in self._added.get(id(ts), {}).items():
                if ts.renames.get(name) == mcp_name and name not in added.get(id(ts), {}):
                    del ts.renames[name]
            ts.renames.update(added.get(id(ts), {}))
        self._added = added
        for note in notes:
            warnings.warn(note, MCPNameWarning, stacklevel=stacklevel)
        return out


# -- server --------------------------------------------------------------------------------------


def _checked_parts(content: Any) -> str | list[TextPart | ImagePart | DocumentPart]:
    """A result's content with each part made again through its own checks
    (``TextPart``/``ImagePart.__post_init__``): a field a tool set after making the part, of a type
    the part does not take (``ImagePart.data = "<base64 text>"``, ``media_type = 5``), raises the
    part's own ``TypeError``/``ValueError`` here instead of failing inside the MCP handler."""
    import dataclasses

    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TypeError(f"ToolResult.content must be text or a list of parts, not {type(content).__name__}")
    parts: list[TextPart | ImagePart | DocumentPart] = []
    for p in content:
        if not isinstance(p, (TextPart, ImagePart, DocumentPart)):
            raise TypeError(f"a result part must be a TextPart, an ImagePart or a DocumentPart, not {type(p).__name__}")
        parts.append(dataclasses.replace(p))
    return parts


def _served_image(part: ImagePart, types: Any) -> Any:
    """The MCP content for an image a served tool returned: an ``ImageContent`` whose
    ``mimeType`` is the format its bytes are (a JPEG declared ``image/png`` is sent as
    ``image/jpeg``: the model APIs refuse an image whose bytes do not match its type), or, for
    bytes that are no image at all (an HTML error page saved as ``chart.png``), a text saying so —
    the client's model API would refuse that request and every later one holding the image."""
    from .turns import not_image_tool_note
    from .types import HEAD_BYTES, not_image_problem, signature_media_type

    data = part.data or b""
    head = data[:HEAD_BYTES]
    problem = not_image_problem(head, part.media_type)
    if problem is not None:
        return types.TextContent(type="text", text=not_image_tool_note(part.media_type, problem))
    mime = signature_media_type(head) or part.media_type or "image/png"
    return types.ImageContent(type="image", data=part.base64 or "", mime_type=without_lone_surrogates(mime))


def create_server(
    tools: Sequence[Any], *, name: str = "toolwire", version: str = "", instructions: str | None = None
) -> Any:
    """An ``mcp`` low-level ``Server`` that publishes ``tools`` (``Tool`` objects or typed functions).

    ``tools/list`` answers each tool's name, description (with its ``Returns:`` text) and input
    schema; ``tools/call`` runs the call through toolwire's executor: arguments are validated
    against the input schema and converted to the annotated types, failures come back as
    ``isError`` results whose text says what to do next, exactly as the loop feeds them to a model;
    a result part with a field of a type the part does not take (``ImagePart.data`` set to text
    after the part was made) is an ``isError`` result naming the field, not a JSON-RPC error.
    A non-repeatable tool's identical calls are not merged here (a server has no run, and one
    client's identical call must not get another client's result): each call runs. A lone UTF-16
    surrogate in anything the server sends (a result or error text, a description or schema, the
    ``name``, ``version`` or ``instructions``), which UTF-8 cannot carry, is sent as U+FFFD. Run it
    with :func:`serve` or any ``mcp`` transport.
    """
    _require_mcp()
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from .executor import ToolExecutor
    from .loop import _as_tools
    from .types import ToolCall

    tool_map = _as_tools(tools)
    executor = ToolExecutor(tool_map, run_id=f"mcp-{name}", deduplicate=False)
    counter = {"n": 0}

    # Every text the server writes is passed through without_lone_surrogates(): a lone UTF-16 surrogate (a tool's output
    # decoded with surrogateescape, half an emoji) cannot be written as UTF-8, and the SDK's writer
    # task dies on it, ending the server for every client. It is sent as U+FFFD, as the loop sends it.
    listing = [
        types.Tool(
            name=t.name,
            description=without_lone_surrogates(t.model_description()),
            input_schema=without_lone_surrogates(t.input_schema),
        )
        for t in tool_map.values()
    ]

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        counter["n"] += 1
        call = ToolCall(id=f"mcp_{counter['n']}", name=params.name, arguments=dict(params.arguments or {}))
        # each call on an executor of its own: an MCP server has no run (and this SDK gives no
        # stable client identity per request), so a non-repeatable tool's record of identical calls
        # is not kept across calls, which could hand one client another client's result
        run = await executor.run_call(call, counter["n"])
        content: list[Any] = []
        result = run.result
        try:
            parts = _checked_parts(result.content)
        except (TypeError, ValueError) as exc:
            text = (
                f"Tool {params.name!r} ran, but its result cannot be sent over MCP: {exc}. The tool must return "
                "text, TextPart(text) and ImagePart(data=<image bytes>, media_type='image/png') or "
                "ImagePart(url='https://...') parts; do not call it again for the same result."
            )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=cap_error_text(text))], is_error=True
            )
        if isinstance(parts, str):
            content.append(types.TextContent(type="text", text=without_lone_surrogates(parts)))
        else:
            for p in parts:
                if isinstance(p, TextPart):
                    content.append(types.TextContent(type="text", text=without_lone_surrogates(p.text)))
                elif isinstance(p, ImagePart) and p.data is not None:
                    content.append(_served_image(p, types))
                elif isinstance(p, ImagePart):
                    content.append(types.TextContent(type="text", text=without_lone_surrogates(f"image: {p.url}")))
                elif isinstance(p, DocumentPart):  # an embedded resource with the document's bytes
                    uri = "file:///" + quote(without_lone_surrogates(p.name))
                    res = types.BlobResourceContents(uri=uri, mime_type=p.media_type, blob=p.base64)
                    content.append(types.EmbeddedResource(type="resource", resource=res))
        return types.CallToolResult(content=content, is_error=result.is_error)

    return Server(
        without_lone_surrogates(name),
        version=without_lone_surrogates(version),
        instructions=without_lone_surrogates(instructions),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        get_tool_input_schema=lambda n: tool_map[n].input_schema if n in tool_map else None,
    )


async def serve(
    tools: Sequence[Any], *, name: str = "toolwire", version: str = "", instructions: str | None = None
) -> None:
    """Serve ``tools`` over stdio until the client closes the connection (see :func:`create_server`).

    A script that does ``asyncio.run(toolwire.mcp.serve([...]))`` is an MCP server any client can
    start (``{"command": "python", "args": ["my_tools.py"]}`` in its configuration)."""
    _require_mcp()
    from mcp.server.stdio import stdio_server

    server = create_server(tools, name=name, version=version, instructions=instructions)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
