"""Shape checks shared by every codec's decoders (vendor-neutral).

A vendor body that does not have its documented shape must never surface as a raw
``KeyError``/``TypeError``: the decoders check what they read with :class:`Shape` (one per API)
and wrap their entry points with :meth:`Shape.guarded`, so the caller gets a
:class:`~toolwire.errors.ResponseDecodeError` naming the API and the JSON pointer. Also here: the
rule for usage counters, for tool-call names, and for ids repeated within one response, which
are the same for all four APIs. ``import toolwire`` does not load this module.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any, Callable, Iterable, TypeVar

from .errors import ResponseDecodeError, ToolwireError
from .types import Response, ToolCall

_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")

__all__ = [
    "NAME_INVALID",
    "SHAPE_ERRORS",
    "Shape",
    "json_kind",
    "usage_int",
    "tool_name",
    "duplicate_id_invalid",
    "mark_duplicate_ids",
    "reissue_shared_ids",
    "check_tool_calls",
    "json_copy",
    "without_lone_surrogates",
]

_ATOMS = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Any, _depth: int = 0) -> Any:
    """A deep copy of a JSON-ready value (nothing shared with ``value``, every type kept):
    strings, numbers, booleans and ``None`` as they are (immutable), plain dicts and lists rebuilt
    item by item, anything else (a tuple, an object, a structure nested deeper than a few levels)
    by :func:`copy.deepcopy`. Cheaper than ``deepcopy`` for the small values (tool-call
    arguments, kept vendor fields) the codecs copy on every encode."""
    t = type(value)
    if t in _ATOMS:
        return value
    if _depth < 4:
        if t is dict:
            return {k: json_copy(v, _depth + 1) for k, v in value.items()}
        if t is list:
            return [json_copy(v, _depth + 1) for v in value]
    if t is dict or t is list:
        return _nested_copy(value)
    return copy.deepcopy(value)


def _nested_copy(root: dict[Any, Any] | list[Any]) -> Any:
    """A deep copy of plain dicts and lists without recursion, so that no nesting depth raises
    ``RecursionError`` (``copy.deepcopy`` fails below 500 levels; a tool's arguments or result
    can be deeper). A container met twice (shared, or a cycle) is copied once, as ``deepcopy``
    does; values of other types are copied with ``deepcopy``."""
    memo: dict[int, Any] = {}
    out: Any = {} if type(root) is dict else []
    memo[id(root)] = out
    stack: list[tuple[Any, Any]] = [(root, out)]
    while stack:
        src, dst = stack.pop()
        pairs = src.items() if type(src) is dict else enumerate(src)
        add: Any = dst.__setitem__ if type(dst) is dict else (lambda _k, item, _append=dst.append: _append(item))
        for k, v in pairs:
            tv = type(v)
            new: Any
            if tv in _ATOMS:
                new = v
            elif tv is dict or tv is list:
                new = memo.get(id(v))
                if new is None:
                    new = memo[id(v)] = {} if tv is dict else []
                    stack.append((v, new))
            else:
                new = copy.deepcopy(v)
            add(k, new)
    return out


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> Any:
    """A JSON-ready ``value`` in which every string (keys too) holding a lone UTF-16 surrogate
    (a tool's output decoded with ``surrogateescape``, half an emoji) has it replaced by U+FFFD
    and a pair of halves joined into the character it spells; ``value`` itself when no string
    holds one. For bodies sent by paths that serialize them outside :func:`toolwire.adapter.body_json`
    (token counts, batch files): UTF-8 cannot carry a lone surrogate (``UnicodeEncodeError``)
    and servers refuse its JSON escape ("no low surrogate in string")."""

    def fix(text: str) -> str:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")

    def walk(v: Any) -> Any:
        stack: list[tuple[Any, Any]] = []
        root = _fresh(v)
        if root is v:
            return fix(v) if type(v) is str and _LONE_SURROGATE.search(v) else v
        stack.append((v, root))
        while stack:
            src, dst = stack.pop()
            items = src.items() if isinstance(src, dict) else enumerate(src)
            for k, item in items:
                new = _fresh(item)
                if new is not item:
                    stack.append((item, new))
                elif type(item) is str and _LONE_SURROGATE.search(item):
                    new = fix(item)
                if isinstance(dst, dict):
                    dst[fix(k) if type(k) is str and _LONE_SURROGATE.search(k) else k] = new
                else:
                    dst.append(new)
        return root

    return walk(value) if _holds_lone_surrogate(value) else value


def _fresh(v: Any) -> Any:
    return {} if isinstance(v, dict) else [] if isinstance(v, (list, tuple)) else v


def _holds_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str or isinstance(v, str):
            if _LONE_SURROGATE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(k for k in v if isinstance(k, str))
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


#: ``ToolCall.invalid`` of a call whose ``name`` is absent, empty or not a JSON string.
NAME_INVALID = "the tool name is missing or not a string"
#: ``invalid`` of a call whose arguments object holds NaN or infinity (a literal such as ``1e999``
#: parsed to infinity): JSON cannot carry it back to the vendor
NON_FINITE_INVALID = (
    "arguments hold a number JSON cannot carry (NaN, or one too large for a 64-bit float such as "
    "1e999): send finite numbers"
)

#: Python errors that mean "the body does not have the documented shape"; the decode entry points
#: turn any of them into :class:`~toolwire.errors.ResponseDecodeError`.
SHAPE_ERRORS = (LookupError, TypeError, AttributeError, AssertionError, ValueError, ArithmeticError, RecursionError)

_F = TypeVar("_F", bound=Callable[..., Any])


def json_kind(value: Any) -> str:
    """The JSON type name of a decoded value (``null``, ``boolean``, ``number``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def usage_int(value: Any) -> int | None:
    """A usage counter: a non-negative JSON integer (an integral float such as ``12.0`` counts);
    anything else (a string like ``"12"``, a negative number, an object) is treated as absent
    (``None``), never passed through — the same rule for all four APIs."""
    if type(value) is int:  # the common case, decoded JSON
        return value if value >= 0 else None
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else None


class Shape:
    """Shape checks for one API: each raises :class:`ResponseDecodeError` (``api``, a message
    naming the expected and received JSON types, the JSON ``pointer``)."""

    def __init__(self, api: str) -> None:
        self.api = api

    def bad(self, pointer: str, expected: str, value: Any) -> ResponseDecodeError:
        """The :class:`ResponseDecodeError` (returned, for the caller to raise) for a value of the wrong
        JSON type at ``pointer``: ``"<pointer> must be <expected>, got a JSON <type>"`` (``the body``
        for the empty pointer)."""
        return ResponseDecodeError(
            self.api, f"{pointer or 'the body'} must be {expected}, got a JSON {json_kind(value)}", pointer
        )

    def error(self, pointer: str, message: str) -> ResponseDecodeError:
        """A :class:`ResponseDecodeError` with ``message`` as given at ``pointer`` (returned, for the
        caller to raise)."""
        return ResponseDecodeError(self.api, message, pointer)

    def obj(self, value: Any, pointer: str) -> dict[str, Any]:
        """``value`` when it is a JSON object, else :class:`ResponseDecodeError` at ``pointer``."""
        if not isinstance(value, dict):
            raise self.bad(pointer, "an object", value)
        return value

    def opt_obj(self, value: Any, pointer: str) -> dict[str, Any]:
        """An optional object: absent/``null`` → ``{}``."""
        return {} if value is None else self.obj(value, pointer)

    def opt_list(self, value: Any, pointer: str) -> list[Any]:
        """An optional array: absent/``null`` → ``[]``; any other non-array raises."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.bad(pointer, "an array", value)
        return value

    def opt_str(self, value: Any, pointer: str) -> str | None:
        """An optional string: absent/``null`` → ``None``; any other non-string raises."""
        if value is None or isinstance(value, str):
            return value
        raise self.bad(pointer, "a string", value)

    def field_types(
        self, body: Any, sdk_type: Any, skip: Any = (), *, proto_json: bool = False, problems: Any = None
    ) -> None:
        """Raises :class:`ResponseDecodeError` at the first field of the imported request ``body``
        (top-level fields, walked into their arrays and objects) whose value cannot be of the type
        the vendor SDK's request type ``sdk_type`` gives it (:func:`toolwire.profile.value_type_problems`:
        ``{"max_tokens": "x"}`` against ``anthropic.types.MessageCreateParamsBase`` raises at
        ``/max_tokens``); fields named in ``skip`` (those the codec walks itself), ``null`` ones
        and fields the SDK does not type are not checked. ``problems``: the adapter's own
        ``(pointer, message)`` checker to use instead of ``value_type_problems`` (called with
        the fields)."""
        from .profile import value_type_problems

        if not isinstance(body, dict):
            return
        fields = {k: v for k, v in body.items() if v is not None and k not in skip}
        found = (
            problems(fields) if problems is not None else value_type_problems(fields, sdk_type, proto_json=proto_json)
        )
        if found:
            pointer, message = found[0]
            raise self.error(pointer, message)

    def opt_base64(self, value: Any, pointer: str) -> str | None:
        """An optional opaque value the vendor validates when it is sent back (e.g. Gemini's
        ``thoughtSignature``, base64 bytes in the SDK's ``Part.thought_signature``): a string of
        the standard or URL-safe base64 alphabet, padding optional; anything else raises, so a
        value the vendor would refuse on the next request is refused when it arrives."""
        text = self.opt_str(value, pointer)
        if text is not None and (not _BASE64.fullmatch(text) or len(text.rstrip("=")) % 4 == 1):
            shown = repr(text[:60]) + ("…" if len(text) > 60 else "")
            raise self.error(pointer, f"{pointer} must be base64 text, got {shown}")
        return text

    def index(self, value: Any, pointer: str, default: int | None = None) -> int:
        """A stream index: a non-negative JSON integer (``default`` when absent, if given)."""
        if value is None and default is not None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.bad(pointer, "a non-negative integer", value)
        return value

    def guarded(self, what: str) -> Callable[[_F], _F]:
        """Decorator: a raw Python error raised while decoding (a shape the explicit checks did
        not foresee) becomes :class:`ResponseDecodeError` naming the API; toolwire's own errors
        (``ProviderError``, ``ResponseDecodeError``, ``UnsupportedToolChoice``, ...) pass unchanged."""
        api = self.api

        def deco(fn: _F) -> _F:
            @functools.wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                try:
                    return fn(*args, **kwargs)
                except ToolwireError:
                    raise
                except SHAPE_ERRORS as exc:
                    raise ResponseDecodeError(
                        api, f"{what} does not have the documented shape ({type(exc).__name__}: {exc})"
                    ) from exc

            return wrapper  # type: ignore[return-value]

        return deco


def tool_name(value: Any) -> tuple[str, str | None]:
    """``(name, invalid)`` for a tool call's ``name``: a non-empty string is the name; anything
    else gives ``""`` (absent/``null``/empty) or the value's JSON text, with :data:`NAME_INVALID`."""
    if isinstance(value, str) and value:
        return value, None
    if value is None or value == "":
        return "", NAME_INVALID
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True), NAME_INVALID
    except (TypeError, ValueError):
        return str(value), NAME_INVALID


def duplicate_id_invalid(call_id: str) -> str:
    """``ToolCall.invalid`` of a later call that repeats an earlier call's id in one response."""
    return f"duplicate tool call id {call_id} in one response"


def mark_duplicate_ids(calls: Iterable[ToolCall]) -> None:
    """Mark every call repeating the id of an earlier call of the same response invalid
    (:func:`duplicate_id_invalid`): never run, answered with an ``is_error`` result by the loop;
    the encoders send only the first call with an id, answered once."""
    seen: set[str] = set()
    for call in calls:
        if call.id in seen:
            call.invalid = duplicate_id_invalid(call.id)
        seen.add(call.id)


def reissue_shared_ids(calls: list[ToolCall], *, valid_only: bool = False) -> None:
    """Give each call that repeats the id of an earlier, *different* call of the same response
    (another name or other arguments) an id of its own: ``<id>_<position>`` (``position`` the
    call's place among the response's calls, with more ``_`` while that is taken). Each such call
    is one the model made: it runs and is answered under its own id, and that id is the one sent
    back. Servers and proxies that give every call of an answer one id exist on Chat Completions
    (xorbitsai/inference#4237, MiMo/Kimi proxies in can1357/oh-my-pi#2055) and Claude on Bedrock
    has put the tool's name in the id of two calls (bvcyber/Cyber-AutoAgent-ng#72); an id is free
    text to every API as long as each result names its call's id, and ``_`` and digits are
    allowed in every API's ids (Anthropic ``^[a-zA-Z0-9_-]+$``). A repeat of the very same call
    (same name and arguments under one id: mudler/LocalAI#9722 streams one call at two indexes)
    takes the id of the call it repeats — its own, or the new id that call got (calls ``B``,
    ``B'``, ``B'`` under one id ``B``: the third becomes a repeat of ``B_1``) — so
    :func:`mark_duplicate_ids` marks it a duplicate of that call: never run twice.
    ``valid_only=True`` leaves the calls already marked ``invalid`` as they are (their ids still
    count as taken, and a later, different valid call sharing the id of one gets an id of its own,
    as without it): the run loop's pass over a response an adapter has checked already."""
    if len(calls) < 2:
        return
    taken = {c.id for c in calls}
    if len(taken) == len(calls):
        return
    first: dict[str, list[ToolCall]] = {}
    for position, call in enumerate(calls):
        earlier = first.get(call.id)
        if earlier is None:
            first[call.id] = [call]
            continue
        if valid_only and call.invalid is not None:
            continue  # (an invalid call first with its id holds it, as above)
        same = next((e for e in earlier if _same_call(call, e)), None)
        if same is not None:
            # the very same call again: a duplicate (not run twice), under the id of the call it
            # repeats (``B_2`` when that call got an id of its own), so its text names the call
            # the history holds
            call.id = same.id
            continue
        new = f"{call.id}_{position}"
        while new in taken:
            new += "_"
        taken.add(new)
        earlier.append(call)  # (a later repeat of this call is still a duplicate of it)
        call.id = new
        first[new] = [call]


def _same_call(a: ToolCall, b: ToolCall) -> bool:
    if a.name != b.name:
        return False
    if a.arguments is not None or b.arguments is not None:
        return a.arguments == b.arguments
    return a.raw_arguments == b.raw_arguments


def check_tool_calls(response: Response) -> Response:
    """Mark the tool calls of a finished response that cannot be run: no usable name →
    :data:`NAME_INVALID`; a number its arguments object cannot carry back as JSON (a literal such
    as ``1e999`` parsed to infinity) → an ``invalid`` reason asking for a finite number; a
    distinct calls sharing an id → ids of their own (:func:`reissue_shared_ids`); the very same
    call repeated under one id → :func:`duplicate_id_invalid`. Returns ``response``.
    The codecs' ``decode_response`` and the transports' streamed ``send`` call it; a stream
    assembled by hand from ``decode_stream`` can be passed through it."""
    calls = response.tool_calls
    for call in calls:
        if (not isinstance(call.name, str) or not call.name) and call.invalid is None:
            call.name = call.name if isinstance(call.name, str) else str(call.name)
            call.invalid = NAME_INVALID
        elif call.invalid is None and call.arguments and call.raw_arguments is None:
            # arguments the answer carried as a JSON object (Anthropic ``input``, Gemini ``args``):
            # a literal such as 1e999 parsed to infinity, which no request body can carry back
            # (the SDK's json.dumps raises "Out of range float values are not JSON compliant")
            args = call.arguments
            if type(args) is dict and _FLAT_FINITE.issuperset(map(type, args.values())):
                continue  # strings, integers, booleans and nulls only: no float to be infinite
            try:
                _finite_encode(args, 0)
            except ValueError as exc:
                if "Out of range float" in str(exc):
                    call.invalid = NON_FINITE_INVALID
                    # the call stays in the conversation: its copy sent back must be JSON, so each
                    # such number is kept as its text ("Infinity", "-Infinity", "NaN")
                    call.arguments = _finite_copy(call.arguments)
            except (TypeError, RecursionError):
                pass  # not from a JSON answer; other checks speak for it
    reissue_shared_ids(calls)
    mark_duplicate_ids(calls)
    return response


#: refuses inf/NaN with "Out of range float values are not JSON compliant" (json module)
_FINITE_JSON = json.JSONEncoder(allow_nan=False)


def _make_finite_encode() -> Callable[[Any, int], Any]:
    """``_FINITE_JSON``'s C encoder, built once (``JSONEncoder.encode`` builds one per call):
    ``encoder(value, 0)`` encodes ``value`` or raises as ``_FINITE_JSON.encode`` does. It keeps
    no circular-reference markers (``markers=None``), so an exception leaves nothing behind for
    the next value; a cyclic value raises :class:`RecursionError` instead."""
    from json import encoder as jenc

    make = getattr(jenc, "c_make_encoder", None)
    if make is None:  # pragma: no cover - a Python without the C accelerator
        return lambda value, _level: _FINITE_JSON.encode(value)
    return make(None, _FINITE_JSON.default, jenc.encode_basestring_ascii, None, ": ", ", ", False, False, False)


_finite_encode = _make_finite_encode()
#: Value types that are never a non-finite number (a flat arguments object of only these needs no check).
_FLAT_FINITE = frozenset({str, int, bool, type(None)})


def _finite_copy(value: Any) -> Any:
    """``value`` with every NaN/infinity float replaced by its JSON-less spelling as a string."""
    if isinstance(value, float) and value - value != 0.0:
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_copy(v) for v in value]
    return value
