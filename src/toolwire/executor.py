"""The tool executor: validate arguments, run tools (concurrently), and turn every outcome —
including every failure — into a :class:`~toolwire.types.ToolResult`.

Every failure becomes an ``is_error`` result whose first line is the error itself and, where
toolwire knows one, whose next line is the next step (``docs/loop.md`` lists the exact texts).
Nothing raised by a tool escapes: the conversation always stays valid for the vendor (every
tool call answered exactly once, in call order).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import json
import math
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from sys import modules as _modules
from typing import Any, Coroutine

from .context import ToolContext
from .errors import ERROR_TAIL_CHARS, MAX_ERROR_CHARS, ToolError, _text_of, cap_error_text, cut_text
from .tools import Tool, start_in_daemon_thread
from .types import DocumentPart, ImagePart, TextPart, ToolCall, ToolResult, loaded_at, loaded_field, loaded_part
from .wire import duplicate_id_invalid

_PROBLEMS_SHOWN = 5  # schema problems quoted in one invalid-arguments result; the rest are counted
#: Characters of one schema problem in an invalid-arguments result (its middle is cut beyond).
_PROBLEM_CHARS = 2_000
#: Characters of a tool name the model sent that an unknown-tool result quotes.
_QUOTED_CHARS = 300

__all__ = ["ToolRun", "ToolExecutor", "Ready", "to_result_content", "TOOL_RUN_STATUSES", "DEFAULT_MAX_CONCURRENT_TOOLS"]

#: Tool calls of one run that run at the same time unless ``Limits.max_concurrent_tools`` says otherwise.
DEFAULT_MAX_CONCURRENT_TOOLS = 16


#: ``ToolRun.status`` values: how the call was answered.
TOOL_RUN_STATUSES = ("ran", "invalid", "limit", "refused", "pending", "cancelled", "deferred")


@dataclass
class ToolRun:
    """One answered tool call: the ``call`` (with the arguments the tool received, when a hook or
    an approval edited them), its ``result``, ``duration`` in seconds (0.0 when the function never
    ran), the 1-based ``turn``, and ``deduplicated`` when an identical non-repeatable call's first
    result was returned instead of running again.

    ``timed_out``: the call ran past its time limit (its result is an error saying so); kept in
    saved run states. ``status`` says how it was answered: ``"ran"`` (the function ran, whatever its outcome),
    ``"invalid"`` (unknown tool or invalid arguments: not run), ``"limit"`` (a limit refused it),
    ``"refused"`` (denied at approval or refused by ``before_tool_call``), ``"deferred"`` (the
    result was supplied by the user), ``"pending"`` (a placeholder: waiting for approval or a
    deferred result) or ``"cancelled"`` (a placeholder: the run stopped before it finished)."""

    call: ToolCall
    result: ToolResult
    duration: float = 0.0
    turn: int = 0
    deduplicated: bool = False
    status: str = "ran"
    #: the call ran past its time limit (its result is an error saying so); for a non-repeatable
    #: write this means the write may have been made anyway (see ToolExecutor)
    timed_out: bool = False

    @property
    def is_error(self) -> bool:
        return self.result.is_error

    def to_dict(self) -> dict[str, Any]:
        """``{"call": object, "result": object, "duration": float, "turn": int}`` (the call's and the
        result's ``to_dict()``, ``duration`` in seconds, ``turn`` 1-based) plus
        ``"deduplicated": true`` when it was, and ``"status"`` (str) when it is not ``"ran"``."""
        d: dict[str, Any] = {
            "call": self.call.to_dict(),
            "result": self.result.to_dict(),
            "duration": self.duration,
            "turn": self.turn,
        }
        if self.deduplicated:
            d["deduplicated"] = True
        if self.status != "ran":
            d["status"] = self.status
        if self.timed_out:
            d["timed_out"] = True
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolRun:
        """Rebuild a tool run from :meth:`to_dict`'s output. Raises ``TypeError`` when ``d`` is not an
        object, and ``TypeError`` / ``ValueError`` naming the field that has the wrong type or value."""
        if not isinstance(d, dict):
            raise TypeError(f"a tool run must be an object, got {type(d).__name__}")
        where = "tool run"
        status = loaded_field(d, "status", (str,), where, "ran")
        if status not in TOOL_RUN_STATUSES:
            raise ValueError(f"tool run status must be one of {TOOL_RUN_STATUSES}, got {status!r}")
        duration = loaded_field(d, "duration", (int, float), where, 0.0)
        if not 0 <= duration < float("inf"):
            raise ValueError(f"tool run duration must be a number of seconds ≥ 0, got {duration!r}")
        return cls(
            loaded_at("call", lambda: loaded_part(d.get("call"), "tool_call", "a tool run's call")),
            loaded_at("result", lambda: loaded_part(d.get("result"), "tool_result", "a tool run's result")),
            duration,
            loaded_field(d, "turn", (int,), where, 0),
            loaded_field(d, "deduplicated", (bool,), where, False),
            status,
            loaded_field(d, "timed_out", (bool,), where, False),
        )


@dataclass
class Ready:
    """A call whose arguments passed every check: the ``tool`` to run, the ``call`` and the
    converted ``arguments`` the function receives (``plan``: what the executor derived from the
    tool for its checks, reused when it runs the call; ``None`` is always correct)."""

    tool: Tool
    call: ToolCall
    arguments: dict[str, Any]
    plan: Any = field(default=None, repr=False, compare=False)


def _holds_parts(value: list[Any] | tuple[Any, ...], depth: int = 0) -> bool:
    """Whether a list holds a ``TextPart``, ``ImagePart`` or ``DocumentPart``, directly or in lists inside it (at
    most 32 levels down, so a self-containing list ends)."""
    for v in value:
        if isinstance(v, (TextPart, ImagePart, DocumentPart)):
            return True
        if isinstance(v, (list, tuple)) and depth < 32 and _holds_parts(v, depth + 1):
            return True
    return False


def _nonempty(part: TextPart | ImagePart | DocumentPart) -> TextPart | ImagePart | DocumentPart:
    """``part``, unless it is an inline image of no bytes, which every API refuses (``ValueError``)."""
    if type(part) is ImagePart and part.data is not None and not part.data:
        raise ValueError(
            "the tool returned an image with no bytes (ImagePart.data is empty), which the model's API "
            "refuses; check that the image was read or rendered, or return text saying it is missing"
        )
    return part


def to_result_content(value: Any) -> str | list[TextPart | ImagePart | DocumentPart]:
    """Turn a tool function's return value into result content.

    (A tool may also return a :class:`~toolwire.types.ToolResult`, which answers its call as it
    is: see the executor.) ``str`` stays text; ``None`` → ``""``; a ``TextPart``/``ImagePart``/``DocumentPart`` or a list of them stays
    parts (in a list holding parts, directly or in lists inside it, each other value becomes
    what it would be alone — text, or the parts of a nested list — and ``None`` is left out); a pydantic model
    → its JSON; dataclasses, dicts, lists, numbers and booleans → JSON text (UTF-8, not ASCII-
    escaped); ``bytes`` (also ``bytearray`` and ``memoryview``) → UTF-8 text if it decodes, else
    an error (``UnicodeDecodeError``); an inline image of no bytes, or a value nested too deeply
    for JSON or ``str()`` (the interpreter's recursion limit) → an error (``ValueError``); an iterator or generator (sync or async) → an error
    (``TypeError``: it may never end, and its ``str()`` says nothing; return a list); anything
    else → ``str()``.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (TextPart, ImagePart, DocumentPart)):
        return [_nonempty(value)]
    if isinstance(value, (list, tuple)) and value and _holds_parts(value):
        parts: list[TextPart | ImagePart | DocumentPart] = []
        for v in value:
            if isinstance(v, (TextPart, ImagePart, DocumentPart)):
                parts.append(_nonempty(v))
            elif v is None:
                continue  # nothing to say (as a lone None is "")
            else:  # a string, bytes, a nested list of parts, a value: as it would be alone
                inner = to_result_content(v)
                parts.extend([TextPart(inner)] if isinstance(inner, str) else inner)
        return parts
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8")
    if isinstance(value, (set, frozenset)):
        return _json(sorted(value, key=repr))
    if (
        isinstance(value, (dict, list, tuple, int, float, bool))
        or dataclasses.is_dataclass(value)
        or hasattr(value, "model_dump_json")
    ):
        return _json(value)
    if isinstance(value, (Iterator, AsyncIterator)) or inspect.isasyncgen(value):
        raise TypeError(
            f"the tool returned a {type(value).__name__} object, which may never end and has no text form; "
            "return a list (e.g. list(...)) or a string instead"
        )
    return str(value)


def _result_of(call: ToolCall, value: Any) -> ToolResult:
    """The result of ``call`` whose function returned ``value``: a :class:`ToolResult` it returned
    itself (to set ``is_error``, or error content with images) answers the call as it is (its
    id set to the call's); any other value becomes content (:func:`to_result_content`)."""
    if isinstance(value, ToolResult):
        return dataclasses.replace(value, tool_call_id=call.id, name=value.name or call.name)
    return ToolResult(call.id, to_result_content(value), False, call.name)


class _ToolExited(Exception):
    """A tool raised ``SystemExit``: carried as an ordinary exception so the event loop survives."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(_describe(exc))
        self.exc = exc


async def _guarded(coro: Any) -> Any:
    try:
        return await coro
    except SystemExit as exc:
        raise _ToolExited(exc) from None


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception as inner:  # an exception whose __str__ raises: described by its class alone
        message = f"(its message could not be read: {type(inner).__name__})"
    if isinstance(exc, UnicodeDecodeError):
        message += " (return text, or bytes encoded as UTF-8)"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _pydantic_problem(exc: Exception) -> str:
    errors: Any = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found: Any = errors()
            first = found[0]
            where = "/" + "/".join(str(p) for p in first.get("loc", ()))
            return f"at {where}: {first.get('msg', exc)}"
        except Exception:
            pass
    return f"{type(exc).__name__}: {exc}"


def _unexpected_parameters(tool: Tool, arguments: dict[str, Any], info: Any = None) -> list[str]:
    """Argument names the tool's function cannot receive (no such parameter and no ``**kwargs``)."""
    if info is None:
        from ._derived import function_info

        info = function_info(tool.function)  # the signature, read once per function
    if info.var_keyword:
        return []
    params = info.parameters
    return sorted(k for k in arguments if k not in params)


_SCALARS = (str, int, bool)


def _copy_arguments(value: Any) -> tuple[Any, bool, bool]:
    """A deep copy of parsed JSON arguments and whether they hold a ``null`` and a float
    anywhere (only then can null-default restoring and integral-float coercion change them).
    Values that are not JSON types are deep-copied and count as holding both."""
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        has_none = has_float = False
        for k, v in value.items():
            if v is None:
                has_none = True
                out[k] = None
            elif isinstance(v, _SCALARS):
                out[k] = v
            elif isinstance(v, float):
                has_float = True
                out[k] = v
            else:
                out[k], n, f = _copy_arguments(v)
                has_none, has_float = has_none or n, has_float or f
        return out, has_none, has_float
    if isinstance(value, list):
        items: list[Any] = []
        has_none = has_float = False
        for v in value:
            c, n, f = _copy_arguments(v)
            items.append(c)
            has_none, has_float = has_none or n, has_float or f
        return items, has_none, has_float
    if value is None:
        return None, True, False
    if isinstance(value, _SCALARS):
        return value, False, False
    if isinstance(value, float):
        return value, False, True
    return copy.deepcopy(value), True, True


_LAZY: Any = None


def _checkers() -> Any:
    """The schema functions :meth:`ToolExecutor.check` uses, imported on first use."""
    global _LAZY
    if _LAZY is None:
        from ._derived import function_info
        from .arguments import argument_bounds
        from .schema.coerce import coerce_arguments, may_coerce
        from .schema.from_function import convert_arguments
        from .schema.validate import validate_arguments, validate_bounded_arguments

        _LAZY = (
            argument_bounds,
            coerce_arguments,
            may_coerce,
            validate_arguments,
            convert_arguments,
            validate_bounded_arguments,
            function_info,
        )
    return _LAZY


def _json(value: Any) -> str:
    """A tool's structured return value as JSON text (strict JSON: what a model, or a program
    reading the result, can parse): pydantic models by their own JSON; dataclasses as dicts; sets
    as lists (sorted when they can be); a float that JSON cannot carry (NaN, ±infinity) as the
    string ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"``; a key that is not text, a number, a bool
    or null as its ``str()``; any other value as its ``str()``."""
    if hasattr(value, "model_dump_json") and callable(value.model_dump_json):
        return str(value.model_dump_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_json_default)
    except (TypeError, ValueError, RecursionError):
        pass
    try:  # a non-finite float or a key JSON has no form for: the value made strict, then written
        return json.dumps(_strict(value), ensure_ascii=False, allow_nan=False, default=_json_default)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return str(value)
    except RecursionError:  # nested past the interpreter's recursion limit: no text form at all
        raise ValueError(
            f"the tool returned a {type(value).__name__} nested too deeply to write as JSON or text (lists and "
            "dicts inside each other many hundreds of levels deep); the tool must return a flatter value"
        ) from None


def _json_default(value: Any) -> Any:
    """``json.dumps`` ``default``: sets as lists, dataclasses as dicts, anything else as text."""
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _strict(value: Any) -> Any:
    """``value`` with the non-finite floats as strings and the keys JSON cannot take as text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _NON_FINITE[repr(value)]
    if isinstance(value, dict):
        return {
            (k if k is None or isinstance(k, (str, int, float, bool)) else str(k)): _strict(v) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return _strict(_json_default(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _strict(dataclasses.asdict(value))
    return value


def _unwire_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """:func:`toolwire.schema.keys.unwire_arguments`: the wire names of property keys an adapter
    renamed (Anthropic refuses keys outside ``^[a-zA-Z0-9_.-]{1,64}$``) back to the schema's."""
    from .schema.keys import unwire_arguments

    return unwire_arguments(schema, arguments)


def _restore_nulls(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Where the model sent ``null`` for a property whose canonical schema does not allow null
    (strict mode made every property required and nullable): use the canonical default, or
    drop the key when the property is optional without a default."""
    try:
        from .schema.strict import restore_defaults  # written with the strict transform
    except ImportError:  # pragma: no cover - transitional
        restore_defaults = None
    if restore_defaults is not None:
        return restore_defaults(schema, arguments)
    return arguments


class _Plan:
    """What :meth:`ToolExecutor.check` and :meth:`ToolExecutor.execute` derive from one tool,
    kept while the tool keeps the same input schema (object and contents), function and
    argument model (checked on every use; anything else is derived again):

    - ``keys``: ``{argument name: (Python types, allowed strings or None)}`` when the input
      schema is flat (:func:`~toolwire.schema.validate.flat_schema`), restricted to the names
      the function takes and, with an argument model, to its fields of exactly ``str``, ``int``,
      ``float`` or ``bool`` (which convert to themselves) of that very type; ``None`` when there
      is no such shortcut. ``required``: the names that must be present.
    - ``info`` / ``is_async``: the function's signature facts and whether it is async.

    A flat arguments object whose every value has its key's type (and is among its strings) is
    then valid, needs no null restoring, coercion or conversion, and has no unexpected name:
    :meth:`ToolExecutor.check` returns its copy at once, as the whole path would."""

    __slots__ = (
        "tool",
        "schema",
        "snapshot",
        "function",
        "model",
        "keys",
        "required",
        "info",
        "is_async",
        "thread_name",
        "field_defaults",
    )

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.schema = schema = tool.input_schema
        self.snapshot = copy.deepcopy(schema)
        self.function = fn = tool.function
        self.model = model = tool.arguments_model
        # Field() defaults the argument model fills (set when the model is built, before any plan;
        # a missing attribute of a pydantic model class costs microseconds to look up per call)
        self.field_defaults = hasattr(model, "__toolwire_field_defaults__")
        self.info: Any = None if fn is None else _checkers()[6](fn)
        self.is_async = False if fn is None else tool.is_async
        self.thread_name = _thread_name(fn)
        self.keys: dict[str, tuple[frozenset[type], frozenset[str] | None]] | None = None
        self.required: tuple[str, ...] = ()
        from .schema.coerce import _non_string_enum
        from .schema.from_function import _plain_fields
        from .schema.validate import flat_schema

        flat = flat_schema(schema)
        if flat is None or _non_string_enum(schema, 0):
            return
        plain = None if model is None else _plain_fields(model)
        if model is not None and plain is None:
            return
        info = self.info
        takes = None if info is None or info.var_keyword else info.parameters
        keys = {}
        for name, (types, strings) in flat.properties.items():
            if takes is not None and name not in takes:
                continue
            if plain is not None:
                field_type = plain.get(name)
                if field_type is None or field_type not in types:
                    continue
                types = frozenset((field_type,))
            keys[name] = (types, strings)
        self.keys, self.required = keys, flat.required

    def current(self, tool: Tool) -> bool:
        return (
            self.tool is tool
            and tool.input_schema is self.schema
            and tool.function is self.function
            and tool.arguments_model is self.model
            and self.schema == self.snapshot
        )


#: plans by ``id(tool)`` (the tool held in its plan, so the id is not reused), across runs; not
#: kept on the tool object itself, whose attributes are its declaration's state
_PLANS: dict[int, _Plan] = {}
_MAX_PLANS = 1024


def _plan_of(tool: Tool) -> _Plan:
    """The tool's current plan (made again when the tool changed)."""
    plan = _PLANS.get(id(tool))
    if plan is None or not plan.current(tool):
        plan = _Plan(tool)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[id(tool)] = plan
    return plan


def _flat_copy(plan: _Plan, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of ``arguments`` when ``plan`` shows them valid as they are (see :class:`_Plan`),
    else ``None`` (the whole check decides)."""
    keys = plan.keys
    if keys is None:
        return None
    for name in plan.required:
        if name not in arguments:
            return None
    for name in arguments:
        if name not in keys:
            return None
        types, strings = keys[name]
        value = arguments[name]
        if type(value) not in types or (strings is not None and value not in strings):
            return None
    return dict(arguments)


class ToolExecutor:
    """Runs the tool calls of one response for one run.

    ``tools``: the run's tools by name; ``default_timeout``: seconds per call when the tool sets
    none (``None`` = no limit); ``run_id``/``state``: passed to tools through
    :class:`~toolwire.context.ToolContext`; ``max_concurrent``: how many tool functions of the run
    run at the same time (default :data:`DEFAULT_MAX_CONCURRENT_TOOLS`); the other calls wait in
    call order and start as running ones finish (:attr:`slots`).
    """

    def __init__(
        self,
        tools: dict[str, Tool],
        *,
        run_id: str,
        default_timeout: float | None = None,
        state: dict[str, Any] | None = None,
        max_concurrent: int | None = None,
        deduplicate: bool = True,
    ) -> None:
        self.tools = tools
        #: whether a non-repeatable tool's identical calls are merged (a run's loop: yes; an MCP
        #: server, which has no run and serves several clients: no)
        self.deduplicate = deduplicate
        self._aliases: dict[str, Tool] | None = None  # built on the first unknown name (see aliases)
        self.run_id = run_id
        self.default_timeout = default_timeout
        self.state: dict[str, Any] = state if state is not None else {}
        self.max_concurrent: int = DEFAULT_MAX_CONCURRENT_TOOLS if max_concurrent is None else max_concurrent
        self._slots: asyncio.Semaphore | None = None
        self._write_cache: dict[str, asyncio.Future[tuple[ToolResult, str]]] = {}
        #: the non-repeatable calls that ran in the run's earlier turns before it was resumed:
        #: ``{call_key: (result, tool call id)}`` (:meth:`remember_write`)
        self._earlier_writes: dict[str, tuple[ToolResult, str]] = {}
        #: the non-repeatable calls that timed out, so may have made their write anyway:
        #: ``{call_key: tool call id}``; an identical later call is not run (:meth:`_run_non_repeatable`)
        self._uncertain_writes: dict[str, str] = {}
        #: per call name: the tool's :class:`_Plan` (checked current on every use)
        self._plans: dict[str, _Plan] = {}
        #: per function (held, so its id is not reused): its signature facts, read once per run
        self._infos: dict[int, tuple[Any, Any]] = {}
        #: ``scope(call, turn)``: a context manager each tool function runs inside (tracing: the
        #: call's ``execute_tool`` span as the current OpenTelemetry context); ``None``: none
        self.scope: Any = None
        #: ``{tool name: the name the model is shown}`` for the tools the API sends under another
        #: name (:meth:`toolwire.profile.Profile.wire_tool_names`, e.g. ``python`` sent to OpenAI as
        #: ``run_python``): the texts given to the model name a tool so (:meth:`seen`)
        self.shown: Mapping[str, str] = {}

    def seen(self, name: Any) -> Any:
        """``name`` (a tool's or a call's) as the model knows it (:attr:`shown`)."""
        shown = self.shown
        return shown.get(name, name) if shown and isinstance(name, str) else name

    @property
    def slots(self) -> asyncio.Semaphore:
        """The concurrency cap: hold it while a tool function runs (FIFO, so calls start in
        order); made on first use (a turn with one call to a synchronous tool never needs it)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        return self._slots

    def _info(self, function: Any) -> Any:
        hit = self._infos.get(id(function))
        if hit is None or hit[0] is not function:
            hit = self._infos[id(function)] = (function, _checkers()[6](function))
        return hit[1]

    @property
    def aliases(self) -> dict[str, Tool]:
        """More call names the tools answer (``meta["call_names"]``: a vendor tool the model calls
        by several names, e.g. Gemini computer use's ``click_at``, ``navigate``, ...), built once."""
        if self._aliases is None:
            self._aliases = {
                n: t
                for t in self.tools.values()
                if t.meta.get("call_names")
                for n in t.meta["call_names"]
                if n not in self.tools
            }
        return self._aliases

    # -- failure texts ----------------------------------------------------------------------
    def _unknown_tool(self, call: ToolCall) -> str:
        # the names the model can call: a vendor tool answered under other names (its
        # ``meta["call_names"]``, e.g. a computer tool's actions) is listed by those names
        names = sorted({self.seen(n) for key, t in self.tools.items() for n in (t.meta.get("call_names") or [key])})
        from .design.suggest import closest  # the design kit's "did you mean", shared with the file tools

        close = closest(call.name, names, cutoff=0.5) if isinstance(call.name, str) and call.name else []
        # the name as the model sent it, cut when long (it is the model's own text, and the
        # names it can call must stay in the answer)
        line = (
            f"Unknown tool {cut_text(repr(self.seen(call.name)), _QUOTED_CHARS, _QUOTED_CHARS // 2)}."
            if isinstance(call.name, str) and call.name
            else f"The tool call has no valid tool name (got {cut_text(repr(call.name), _QUOTED_CHARS, _QUOTED_CHARS // 2)})."
        )
        # a namespaced call (``mcp:<label>``) with the adapter's next step for it
        # (``provider_data["toolwire"]["unknown_tool"]``): only names of that namespace are listed
        ns = str(call.name).partition(":")[0] if ":" in str(call.name) else ""
        own = call.provider_data.get("toolwire") if call.provider_data else None
        step = own.get("unknown_tool") if isinstance(own, dict) else None
        if ns and isinstance(step, str):
            kin = ", ".join(n for n in names if n.startswith(ns + ":")) or "none"
            return f"{line}\nThe {ns}: calls this run answers: {kin}. {step}"
        if isinstance(step, str) and step:
            # the adapter's next step for a call of no namespace (e.g. a pseudo-tool call whose
            # arguments it could not split into tool calls): said before the names
            line = f"{line}\n{step}"
        if not names:
            return line + "\nNo tools are available in this conversation; answer without calling a tool."
        hint = f"Call one of the available tools: {', '.join(names)}."
        if close:
            hint = f"Did you mean {close[0]!r}? " + hint
        return f"{line}\n{hint}"

    def _invalid_arguments(self, call: ToolCall) -> str:
        if call.incomplete:
            if call.invalid and "stream ended" in call.invalid:
                return (
                    f"Tool call {self.seen(call.name)!r} was cut off before its arguments were complete (the response stream ended early), "
                    "so it was not run.\nCall the tool again with the complete arguments."
                )
            return (
                f"Tool call {self.seen(call.name)!r} was cut off by the output-token limit before its arguments were complete, so it was not run.\n"
                "Call the tool again with the complete arguments; keep long values shorter or split the work into several calls."
            )
        reason = call.invalid
        if reason is not None and reason == duplicate_id_invalid(call.id):
            # the id is the one the history holds (a repeat of a call that got an id of its own
            # carries that id: toolwire.wire.reissue_shared_ids)
            return (
                f"Tool call {self.seen(call.name)!r} was not run: {reason} (it repeats the earlier call "
                f"{call.id} of this response, which is the one answered).\nMake a new tool call if you still "
                "need the result."
            )
        if reason is not None and "argument" not in reason and "JSON" not in reason:
            # not about the arguments (e.g. a duplicate call id): say the call was refused
            return f"Tool call {self.seen(call.name)!r} was not run: {reason}.\nMake a new tool call if you still need the result."
        if reason is None:
            kind = {
                list: "array",
                str: "string",
                int: "number",
                float: "number",
                bool: "boolean",
                type(None): "null",
            }.get(type(call.arguments), type(call.arguments).__name__)
            reason = f"arguments must be a JSON object, got {kind}"
        return (
            f"Invalid arguments for tool {self.seen(call.name)!r}: {reason}.\n"
            "Send the arguments again as one JSON object that matches the tool's input schema."
        )

    # -- running ----------------------------------------------------------------------------
    async def run_calls(self, calls: list[ToolCall], turn: int) -> list[ToolRun]:
        """Run ``calls`` concurrently (at most :attr:`max_concurrent` at once); results come back
        in call order."""
        return list(await asyncio.gather(*(self.run_call(c, turn) for c in calls)))

    def refuse(self, call: ToolCall, turn: int, reason: str, status: str = "limit") -> ToolRun:
        """Answer ``call`` without running it (a limit was reached, or ``status`` says why).
        ``reason`` is cut as any error text (:func:`toolwire.errors.cap_error_text`)."""
        result = ToolResult(call.id, cap_error_text(reason), is_error=True, name=call.name)
        return ToolRun(call, result, 0.0, turn, status=status)

    def _invalid(self, call: ToolCall, turn: int, text: str, name: str | None = None) -> ToolRun:
        # the texts quote what the model sent (a name, a value): cut as any error text
        return ToolRun(
            call,
            ToolResult(call.id, cap_error_text(text), is_error=True, name=name if name is not None else call.name),
            0.0,
            turn,
            status="invalid",
        )

    async def run_call(self, call: ToolCall, turn: int) -> ToolRun:
        """Check ``call`` (:meth:`check`) and run it under the concurrency cap."""
        ready = self.check(call, turn)
        if isinstance(ready, ToolRun):
            return ready
        async with self.slots:
            return await self.execute(ready, turn)

    def check(self, call: ToolCall, turn: int) -> Ready | ToolRun:
        """Everything before running: the tool exists, the arguments parse, match the input schema
        (after null-default restoring and integral-float coercion) and convert to the annotated
        types. Returns :class:`Ready`, or the ``is_error`` :class:`ToolRun` (``status="invalid"``)
        the model gets instead. Never raises for model output."""
        name = call.name
        if type(name) is not str:
            name = name if isinstance(name, str) else None
        # the plan of a name seen before in this run holds its tool (the run's tools do not change)
        plan = self._plans.get(name) if name else None  # type: ignore[arg-type]
        if plan is not None:
            tool = plan.tool
        else:
            tool = (self.tools.get(name) or self.aliases.get(name)) if name else None  # aliases: only on a miss
            if tool is None:
                return self._invalid(call, turn, self._unknown_tool(call), name)
        given = call.arguments
        if type(given) is dict and call.invalid is None and not call.incomplete:
            if plan is None or not (
                tool.input_schema is plan.schema
                and tool.function is plan.function
                and tool.arguments_model is plan.model
                and plan.schema == plan.snapshot
            ):
                plan = self._plans[name] = _plan_of(tool)  # type: ignore[index]
            # a flat object of values of the right types: valid as it is (the whole path below
            # would return the same copy)
            if (
                plan.keys is not None
                and not plan.field_defaults  # Field() defaults: filled below
                and (flat := _flat_copy(plan, given)) is not None
            ):
                return Ready(tool, call, flat, plan)
        argument_bounds, coerce_arguments, may_coerce, validate_arguments, convert_arguments, validate_bounded, _ = (
            _checkers()
        )
        if call.is_valid:
            too_deep = argument_bounds(call.arguments)  # before copying or validating (no RecursionError)
            if too_deep is not None:
                call.invalid, call.arguments = too_deep, None
        if not call.is_valid:
            return self._invalid(call, turn, self._invalid_arguments(call))
        schema = tool.input_schema
        try:
            # a deep copy: a tool that changes its arguments must not change the recorded call
            arguments, has_none, has_float = _copy_arguments(call.arguments or {})
            # property keys an API refused were sent renamed: the model's names mapped back
            arguments = _unwire_arguments(schema, arguments)
            # the depth was checked above; only a restored default can add to it
            validate = validate_bounded
            if has_none:  # only a null can be restored to its default
                arguments = _restore_nulls(schema, arguments)
                validate = validate_arguments
            if may_coerce(schema, has_float):  # 2.0 → 2 where the schema says integer
                arguments = coerce_arguments(schema, arguments)
            # ``meta["validate_arguments"] = False`` is for replaying recorded results only
            problems = validate(schema, arguments) if tool.meta.get("validate_arguments", True) else []
        except Exception as exc:  # a schema jsonschema cannot use (e.g. an unresolvable $ref)
            text = (
                f"Tool {self.seen(call.name)!r} cannot check its arguments: its input schema is unusable ({type(exc).__name__}: {exc}).\n"
                "Do not call this tool again in this conversation; tell the user it is misconfigured."
            )
            return self._invalid(call, turn, text)
        if not problems and tool.function is not None and tool.meta.get("validate_arguments", True):
            unexpected = _unexpected_parameters(tool, arguments, self._info(tool.function))
            if unexpected:
                valid = ", ".join(sorted(tool.input_schema.get("properties") or {})) or "(none)"
                text = (
                    f"Invalid arguments for tool {self.seen(call.name)!r}: unexpected propert{'y' if len(unexpected) == 1 else 'ies'} "
                    f"{', '.join(repr(u) for u in unexpected)} (valid: {valid}).\n"
                    "Fix the arguments to match the tool's input schema and call it again."
                )
                return self._invalid(call, turn, text)
        if not problems and tool.arguments_model is not None and tool.meta.get("validate_arguments", True):
            try:
                arguments = convert_arguments(tool.arguments_model, arguments)
            except Exception as exc:  # pydantic refused a value the JSON Schema allowed
                detail = _pydantic_problem(exc)
                text = (
                    f"Invalid arguments for tool {self.seen(call.name)!r}: {detail}.\n"
                    "Fix the arguments to match the tool's input schema and call it again."
                )
                return self._invalid(call, turn, text)
        if problems:
            # jsonschema's messages quote the value: each is cut in its middle, so every problem
            # shown keeps its end (the allowed values, the expected type, the rule)
            shown = "; ".join(
                cut_text(p.render(), _PROBLEM_CHARS, _PROBLEM_CHARS // 2) for p in problems[:_PROBLEMS_SHOWN]
            )
            rest = len(problems) - _PROBLEMS_SHOWN
            more = f"; and {rest} more problem{'s' if rest > 1 else ''}" if rest > 0 else ""
            text = (
                f"Invalid arguments for tool {self.seen(call.name)!r}: {shown}{more}.\n"
                "Fix the arguments to match the tool's input schema and call it again."
            )
            return self._invalid(call, turn, text)
        return Ready(tool, call, arguments)

    async def execute(self, ready: Ready, turn: int) -> ToolRun:
        """Run a checked call (the caller holds a :attr:`slots` place). Every outcome of the
        function becomes the :class:`ToolRun`; only the run's own cancellation propagates."""
        return await self.start(ready, turn)

    def start(self, ready: Ready, turn: int) -> Coroutine[Any, Any, ToolRun]:
        """:meth:`execute` as the coroutine to await (one coroutine layer less)."""
        if self.scope is not None:
            return self._scoped(ready, turn)
        return self._start(ready, turn)

    async def _scoped(self, ready: Ready, turn: int) -> ToolRun:
        with self.scope(ready.call, turn):
            return await self._start(ready, turn)

    def _start(self, ready: Ready, turn: int) -> Coroutine[Any, Any, ToolRun]:
        tool = ready.tool
        if tool.meta and tool.meta.get("non_repeatable") and self.deduplicate:
            return self._run_non_repeatable(tool, ready.call, ready.arguments, turn)
        return self._execute(tool, ready.call, ready.arguments, turn, ready.plan)

    @staticmethod
    def _write_key(tool: Tool, arguments: dict[str, Any]) -> str:
        """The identity of a non-repeatable call: the JSON the model sent (not converted values),
        with the schema's defaults filled in and whole-valued floats as integers, so the same
        action spelled two ways is one call."""
        from .design.idempotent import call_key, same_call_arguments

        model = tool.arguments_model
        nulls = (
            {n for n, f in model.model_fields.items() if not f.is_required() and f.default is None}
            if model is not None
            else ()
        )
        return call_key(tool.name, same_call_arguments(tool.input_schema, arguments or {}, nulls))

    def remember_write(self, run: ToolRun) -> None:
        """Record ``run``, a call answered in an earlier turn of this run (a resumed run's saved
        turns), so that an identical call of a non-repeatable tool later in the run is answered
        with its result instead of running again. Only a call that ran and succeeded counts (a
        failed write may be retried); other tools and runs are ignored."""
        if not self.deduplicate or run.status != "ran" or run.deduplicated:
            return
        if run.result.is_error and not run.timed_out:  # a failed write may be retried
            return
        name = run.call.name
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None and isinstance(name, str):
            tool = self.aliases.get(name)
        if tool is None or not tool.meta or not tool.meta.get("non_repeatable"):
            return
        if not isinstance(run.call.arguments, dict):
            return
        try:
            key = self._write_key(tool, run.call.arguments)
        except Exception:  # arguments the schema cannot read: nothing to match later calls against
            return
        if run.timed_out:
            self._uncertain_writes.setdefault(key, run.call.id)
        else:
            self._earlier_writes.setdefault(key, (run.result, run.call.id))

    def _uncertain(self, tool: Tool, call: ToolCall, turn: int, first_id: str) -> ToolRun:
        """The answer to a non-repeatable call identical to one that timed out (``first_id``): not
        run, since that call's write may have been made after all."""
        text = (
            f"Not run: an identical call to {self.seen(tool.name)!r} earlier in this run (tool call {first_id}) timed "
            "out, and its change may have been made anyway (a synchronous function cannot be stopped and may still "
            "be running; an async one may have been stopped after its effect). It is not run again, so the change "
            "is not made twice.\nCheck whether it took effect (for example with a tool that reads it) before "
            "changing anything; to make a different change, change the arguments."
        )
        return ToolRun(call, ToolResult(call.id, text, True, call.name), 0.0, turn, status="refused")

    async def _run_non_repeatable(self, tool: Tool, call: ToolCall, arguments: dict[str, Any], turn: int) -> ToolRun:
        key = self._write_key(tool, call.arguments or {})
        uncertain = self._uncertain_writes.get(key)
        if uncertain is not None:
            return self._uncertain(tool, call, turn, uncertain)
        earlier = self._earlier_writes.get(key)
        fut = self._write_cache.get(key)
        if earlier is not None or fut is not None:
            first, first_id = earlier if earlier is not None else await asyncio.shield(fut)  # type: ignore[arg-type]
            note = (
                f"\n\nNote: an identical call to {tool.name!r} with the same arguments already ran in this run "
                f"(tool call {first_id}); this is its result and the action was not repeated."
            )
            content: Any = (
                first.content + note if isinstance(first.content, str) else [*first.content, TextPart(note.strip())]
            )
            return ToolRun(call, ToolResult(call.id, content, first.is_error, call.name), 0.0, turn, deduplicated=True)
        fut = asyncio.get_running_loop().create_future()
        self._write_cache[key] = fut
        try:
            run = await self._execute(tool, call, arguments, turn)
        except BaseException:
            self._write_cache.pop(key, None)
            fut.cancel()
            raise
        if run.timed_out:  # it may have made its change anyway: an identical call is not run again
            self._uncertain_writes.setdefault(key, call.id)
        if run.result.is_error:  # a failed write may be retried
            self._write_cache.pop(key, None)
        fut.set_result((run.result, call.id))
        return run

    async def _execute(
        self, tool: Tool, call: ToolCall, arguments: dict[str, Any], turn: int, plan: _Plan | None = None
    ) -> ToolRun:
        fn = tool.function
        if plan is None or plan.function is not fn:
            plan = None
        if fn is not None:
            info = plan.info if plan is not None else self._info(fn)
            for pname in info.context_parameters:
                arguments[pname] = ToolContext(
                    self.run_id, call.id, call.name, turn, f"{self.run_id}:{call.id}", self.state
                )
        timeout = tool.timeout if tool.timeout is not None else self.default_timeout
        start = time.perf_counter()
        # a synchronous function: called on the loop (blocking=False) or, as Tool.call itself
        # runs it (not overridden), in a worker thread; the tool's meta read only when it has any
        if fn is not None and not (plan.is_async if plan is not None else tool.is_async):
            blocking = tool.meta.get("blocking") if tool.meta else None
            if blocking is False:  # called right here (no thread, no task; no timeout can stop it)
                try:
                    if type(tool).call is Tool.call:
                        value = fn(**arguments)
                        if type(value) is not str and inspect.isawaitable(value):
                            value = await value
                    else:
                        value = await tool.call(arguments)
                    result = _result_of(call, value)
                except BaseException as exc:
                    result = _failure(call, _ToolExited(exc) if isinstance(exc, SystemExit) else exc)
                return ToolRun(call, result, time.perf_counter() - start, turn)
            if type(tool).call is Tool.call:
                # in a worker thread, awaited on the one future the thread settles (no task, no
                # asyncio.wait); a timeout: a timer on the loop settles the future first (the
                # thread cannot be stopped: its late outcome is dropped)
                # on a run_sync run's own loop, when nothing else needs it, the loop may block
                # briefly for the outcome instead of being woken (toolwire._sync.tool_wait)
                wait = _tool_wait()
                if wait and timeout is not None and timeout <= wait:
                    wait = 0.0  # the timeout ends the call first: waited for through the loop
                future = start_in_daemon_thread(
                    fn, arguments, plan.thread_name if plan is not None else _thread_name(fn), wait
                )
                timer = (
                    None
                    if timeout is None
                    else asyncio.get_running_loop().call_later(
                        timeout - (time.perf_counter() - start), _time_out, future
                    )
                )
                try:
                    value = await future
                except BaseException as exc:
                    if timer is not None:
                        timer.cancel()
                    if future.cancelled():  # the run itself is being cancelled (the awaiting task cancelled the future)
                        raise
                    result = _failure(call, _ToolExited(exc) if isinstance(exc, SystemExit) else exc)
                else:
                    if timer is not None:
                        timer.cancel()
                    if type(value) is str:
                        result = ToolResult(call.id, value, False, call.name)
                    else:
                        result, timed_out = await self._thread_value(call, value, timeout, start)
                        if timed_out:
                            return ToolRun(call, result, time.perf_counter() - start, turn, timed_out=True)
                return ToolRun(call, result, time.perf_counter() - start, turn)
        task = asyncio.ensure_future(_guarded(tool.call(arguments)))
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        except asyncio.CancelledError:  # the run itself is being cancelled
            task.cancel()
            raise
        if not done:  # toolwire's own time limit
            task.cancel()
            text = self._timed_out_text(call, timeout, tool.is_async)
            return ToolRun(
                call, ToolResult(call.id, text, True, call.name), time.perf_counter() - start, turn, timed_out=True
            )
        else:
            try:
                value = task.result()
                result = _result_of(call, value)
            except BaseException as exc:
                result = _failure(call, exc)
        duration = time.perf_counter() - start
        return ToolRun(call, result, duration, turn)

    def _timed_out_text(self, call: ToolCall, timeout: float | None, stopped: bool) -> str:
        """The error text of a call that ran past ``timeout`` seconds (``stopped``: an async
        function, cancelled; else a thread, which cannot be stopped)."""
        if stopped:
            return (
                f"Tool {self.seen(call.name)!r} timed out after {timeout:g} seconds and was stopped.\n"
                "Try a smaller request (narrower arguments), or a different approach."
            )
        return (
            f"Tool {self.seen(call.name)!r} timed out after {timeout:g} seconds; its result was discarded "
            "(a synchronous function cannot be interrupted and may still be running).\n"
            "Try a smaller request (narrower arguments), or a different approach."
        )

    async def _thread_value(
        self, call: ToolCall, value: Any, timeout: float | None, started: float
    ) -> tuple[ToolResult, bool]:
        """The result of what a worker thread's function returned (``_TIMED_OUT`` when its timer
        fired first) and whether the call timed out; ``started``: the ``time.perf_counter()`` the
        timeout counts from."""
        if value is not _TIMED_OUT and inspect.isawaitable(value):
            # a synchronous function that returned an awaitable: awaited, as Tool.call does,
            # within what is left of the timeout
            left = None if timeout is None else max(0.0, timeout - (time.perf_counter() - started))
            task = asyncio.ensure_future(_guarded(_awaited(value)))
            try:
                done, _ = await asyncio.wait({task}, timeout=left)
            except asyncio.CancelledError:  # the run itself is being cancelled
                task.cancel()
                raise
            if not done:
                task.cancel()
                value = _TIMED_OUT
            else:
                try:
                    value = task.result()
                except BaseException as exc:
                    return _failure(call, exc), False
        if value is _TIMED_OUT:
            return ToolResult(call.id, self._timed_out_text(call, timeout, False), True, call.name), True
        try:
            return _result_of(call, value), False
        except BaseException as exc:  # e.g. bytes that are not UTF-8
            return _failure(call, exc), False


#: What the timer of a timed-out worker-thread call puts in its future.
_TIMED_OUT: Any = object()


def _time_out(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_result(_TIMED_OUT)


async def _awaited(value: Any) -> Any:
    return await value


def _tool_wait() -> float:
    """How long the loop may block for a synchronous tool's worker thread (seconds): nonzero only
    on a ``run_sync`` caller's own loop (``toolwire._sync.tool_wait``), which runs nothing else."""
    sync = _modules.get("toolwire._sync")
    return sync.tool_wait() if sync is not None else 0.0


def _thread_name(function: Any) -> str:
    """The name of the worker thread that runs ``function``."""
    return f"toolwire-tool-{getattr(function, '__name__', 'fn')}"


def threaded(tool: Tool) -> bool:
    """Whether ``tool`` is a synchronous function run in a worker thread by :meth:`Tool.call`
    itself (not overridden by a subclass, not ``blocking=False``): the executor then starts the
    thread and awaits its future directly."""
    return (
        type(tool).call is Tool.call
        and tool.function is not None
        and tool.meta.get("blocking") is not False
        and not tool.is_async
    )


def tool_error_text(exc: ToolError) -> str:
    """The result text of a :class:`ToolError`: :meth:`ToolError.render`, or, when a subclass's
    own ``render`` raises or returns something that is not text, the type and message as for any
    exception."""
    try:
        text = exc.render()
    except Exception:
        text = None
    if not isinstance(text, str):
        return _describe(exc)
    if len(text) > MAX_ERROR_CHARS and type(exc).render is ToolError.render:
        # the next move (hint, valid values, retry advice) follows the message: a long list of
        # values must not push the hint out of the end that cap_error_text keeps, so the message
        # and what follows it are cut each on its own (what follows to half the cap)
        message = _text_of(exc.message)
        if text.startswith(message):
            rest = cut_text(text[len(message) :], MAX_ERROR_CHARS // 2, ERROR_TAIL_CHARS // 4)
            text = cut_text(message, MAX_ERROR_CHARS - len(rest), ERROR_TAIL_CHARS) + rest
    return text


def error_result(call: ToolCall, exc: BaseException) -> ToolResult:
    """The ``is_error`` result answering ``call`` with ``exc``: a :class:`ToolError`'s rendered
    text, any other exception's type and message, cut as any error text
    (:func:`toolwire.errors.cap_error_text`). For a tool's failure and a deferred call answered
    with an exception alike."""
    text = tool_error_text(exc) if isinstance(exc, ToolError) else _describe(exc)
    return ToolResult(call.id, cap_error_text(text), True, call.name)


def _failure(call: ToolCall, exc: BaseException) -> ToolResult:
    """The ``is_error`` result for what a tool function raised. Re-raises ``KeyboardInterrupt``
    and the run's own cancellation."""
    if isinstance(exc, ToolError):
        return error_result(call, exc)
    if isinstance(exc, _ToolExited):
        return error_result(call, exc.exc)
    if isinstance(exc, KeyboardInterrupt):
        raise exc
    if isinstance(exc, asyncio.CancelledError):
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise exc  # the run is being cancelled, not just the tool
        return ToolResult(call.id, "CancelledError: the tool cancelled itself", True, call.name)
    # every tool failure goes back to the model, SystemExit included
    return error_result(call, exc)
