"""The canonical tool spec and the ``@tool`` decorator.

A tool is four strings the model reads (name, description, input schema, what it returns)
plus the function the model never sees.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from .errors import SchemaError, ToolDefinitionError, ToolNameError

__all__ = [
    "Tool",
    "ProviderTool",
    "tool",
    "TOOL_NAME_RULE",
    "check_tool_name",
    "check_tool_name_for",
    "check_imported_provider_tool",
]

P = ParamSpec("P")
if TYPE_CHECKING:
    # A bare ``Tool`` in an annotation reads as ``Tool[..., Any]`` (PEP 696 default), not as a
    # tool whose return type is unknown; at run time the plain TypeVar (no import of
    # typing_extensions at ``import toolwire``).
    from typing_extensions import TypeVar as _DefaultTypeVar

    R = _DefaultTypeVar("R", default=Any)
else:
    R = TypeVar("R")

#: toolwire's own tool-name rule for the tools users write (a letter or ``_`` first, then letters,
#: digits, ``_`` or ``-``, at most 64 characters), chosen so every API accepts the name; each
#: API's own, wider rule is its profile's (:func:`check_tool_name_for`).
TOOL_NAME_RULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


def check_tool_name_for(api: str, name: Any) -> str:
    """Return ``name`` if ``api``'s own rule accepts it, else raise :class:`ToolNameError` naming
    the tool, the API and the reason. The rule is the API's profile's
    (:meth:`toolwire.profile.Profile.tool_name_error`, through the registry); an API whose adapter
    is not installed gets toolwire's common rule (:func:`check_tool_name`). The codecs check every
    declared tool with it before encoding, so a name another vendor allowed (an imported history)
    fails here with a clear message rather than as a 400 from the API."""
    from .registry import cached_profile

    prof = cached_profile(api) if isinstance(api, str) and api else None
    if prof is None:
        return check_tool_name(name)
    reason = (
        prof.tool_name_error(name) if isinstance(name, str) else f"a tool name is a string, got {type(name).__name__}"
    )
    if reason:
        raise ToolNameError(str(name), reason, api=api)
    return name


def check_tool_name(name: str) -> str:
    """Return ``name`` if it matches :data:`TOOL_NAME_RULE`; raise :class:`ToolNameError` naming
    the tool and the rule otherwise (no silent renaming: a renamed tool would no longer match
    what the user wrote in prompts and descriptions)."""
    if not isinstance(name, str) or not TOOL_NAME_RULE.fullmatch(name):
        detail = None
        if isinstance(name, str):
            if len(name) > 64:
                detail = f"it is {len(name)} characters long"
            elif name[:1].isdigit():
                detail = "it starts with a digit"
            elif name:
                bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_-"))})
                if bad:
                    detail = "it contains " + ", ".join(repr(c) for c in bad)
            else:
                detail = "it is empty"
        raise ToolNameError(str(name), detail)
    return name


def timeout_problem(value: Any) -> str | None:
    """``None`` when ``value`` is a usable timeout in seconds (``None``, or a number > 0 that a
    float holds: ``math.inf`` waits for ever), else what is wrong with it."""
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return f"must be a number of seconds > 0 or None, got {type(value).__name__} {value!r}"
    try:
        seconds = float(value)
    except OverflowError:
        return (
            "must be a number of seconds > 0 that a float holds (or math.inf), "
            f"got an integer of {int(value).bit_length()} bits"
        )
    if not seconds > 0:  # also NaN
        return f"must be a number of seconds > 0 or None, got {value!r}"
    return None


def _field_problem(t: Tool[..., Any]) -> str | None:
    if not isinstance(t.description, str):
        return f"description must be text, got {type(t.description).__name__}"
    if not isinstance(t.input_schema, dict):
        return f"input_schema must be a JSON Schema object (a dict), got {type(t.input_schema).__name__}"
    if t.function is not None and not callable(t.function):
        return f"function must be a function (sync or async) or None, got {type(t.function).__name__}"
    if t.strict is not None and not isinstance(t.strict, bool):
        return f"strict must be True, False or None, got {type(t.strict).__name__} {t.strict!r}"
    if t.returns is not None and not isinstance(t.returns, str):
        return f"returns must be text or None, got {type(t.returns).__name__}"
    problem = timeout_problem(t.timeout)
    if problem is not None:
        return f"timeout {problem}"
    if not isinstance(t.provider_data, dict):
        return f"provider_data must be a dict, got {type(t.provider_data).__name__}"
    if not isinstance(t.meta, dict):
        return f"meta must be a dict, got {type(t.meta).__name__}"
    return None


_NOT_JSON: Any = object()


def _json_value(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` made of JSON values only (tuples as lists), or ``_NOT_JSON`` when it
    holds anything else (a function, an object, a NaN or infinity, a key that is not text, or
    nesting deeper than 100 levels)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else _NOT_JSON
    if depth >= 100:
        return _NOT_JSON
    if isinstance(value, (list, tuple)):
        items = [_json_value(v, depth + 1) for v in value]
        return _NOT_JSON if any(v is _NOT_JSON for v in items) else items
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return _NOT_JSON
        pairs = {k: _json_value(v, depth + 1) for k, v in value.items()}
        return _NOT_JSON if any(v is _NOT_JSON for v in pairs.values()) else pairs
    return _NOT_JSON


def _json_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The entries of a tool's ``meta`` that JSON holds (see :meth:`Tool.to_dict`)."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key == "cap" and callable(getattr(value, "parameters", None)) and callable(getattr(value, "to_dict", None)):
            value = value.to_dict()  # a CapSpec, stored as @tool(cap=...) stores it
        kept = _json_value(value) if isinstance(key, str) else _NOT_JSON
        if kept is not _NOT_JSON:
            out[key] = kept
    return out


@dataclass
class Tool(Generic[P, R]):
    """A tool the model can call.

    Generic in the function's parameters and return type: ``@tool`` on
    ``def get_weather(city: str) -> str`` gives a ``Tool[(city: str), str]``, so calling the tool
    directly (``get_weather("Paris")``) is type-checked like the function.

    - ``name``: matches :data:`TOOL_NAME_RULE`.
    - ``description``: what the tool does and when to call it.
    - ``input_schema``: a JSON Schema (Draft 2020-12) object schema for the arguments.
    - ``function``: the Python callable (sync or async) that receives the validated arguments as
      keyword arguments; ``None`` for a tool imported from a vendor request.
    - ``strict``: three-valued: ``True``/``False`` are sent as the vendor's ``strict`` flag,
      ``None`` sends nothing (or the vendor default).
    - ``returns``: a short text saying what the tool returns (part of what the model reads;
      appended to the description by :meth:`model_description`).
    - ``timeout``: seconds the loop lets one call run before answering with an ``is_error`` result.
    - ``provider_data``: opaque per-API fields from an imported request (e.g. ``cache_control``).
    - ``meta``: free-form data for the design kit (result caps, idempotency, cost hints).
    """

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    function: Callable[P, R] | None = None
    strict: bool | None = None
    returns: str | None = None
    timeout: float | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    #: For tools built from a typed function: the pydantic model that converts the JSON arguments
    #: to the annotated types before the call (see ``schema.from_function.convert_arguments``).
    arguments_model: Any = field(default=None, repr=False, compare=False)
    #: The API a tool was imported from (``decode_request``): its name is then checked against
    #: that API's own rule (its profile, :func:`check_tool_name_for`) instead of the common one,
    #: so any history the vendor accepted can be imported.
    imported_from: str | None = None

    def __post_init__(self) -> None:
        if self.imported_from is not None and not isinstance(self.imported_from, str):
            raise ToolDefinitionError(
                f"tool {self.name!r}: imported_from must be an API name or None, got {type(self.imported_from).__name__}"
            )
        if self.imported_from:
            check_tool_name_for(self.imported_from, self.name)
        else:
            check_tool_name(self.name)
        self.check_fields()

    def check_fields(self) -> None:
        """Raise :class:`ToolDefinitionError` naming the field when one has the wrong type:
        ``description`` text, ``input_schema`` a dict, ``function`` callable or ``None``,
        ``strict`` ``True``/``False``/``None``, ``returns`` text or ``None``, ``timeout`` a number
        of seconds > 0 or ``None``, ``provider_data`` and ``meta`` dicts. Checked when the tool is
        made and again when a run starts (a field set after the tool was made)."""
        problem = _field_problem(self)
        if problem is not None:
            raise ToolDefinitionError(f"tool {self.name!r}: {problem}")

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_schema(
        cls,
        name: str,
        description: str,
        input_schema: dict[str, Any] | None = None,
        function: Callable[..., Any] | None = None,
        *,
        strict: bool | None = None,
        returns: str | None = None,
        timeout: float | None = None,
        schema: dict[str, Any] | None = None,
    ) -> Tool[..., Any]:
        """Build a tool from raw JSON Schema: ``input_schema`` (a dict, the JSON Schema of the
        arguments object; ``schema=`` is the same argument under its earlier name).

        Raises :class:`SchemaError` when the input schema is not a valid Draft 2020-12 schema
        whose top-level ``type`` is ``"object"``, :class:`ToolNameError` for a bad name, and
        ``TypeError`` when no input schema is given, or both ``input_schema`` and ``schema``.
        """
        from .schema import check_input_schema

        if schema is not None:
            if input_schema is not None:
                raise TypeError(
                    "Tool.from_schema() got both input_schema and schema (the same argument): give input_schema"
                )
            input_schema = schema
        if input_schema is None:
            raise TypeError(
                f"Tool.from_schema() needs the input schema of tool {name!r}: "
                "Tool.from_schema(name, description, input_schema={'type': 'object', 'properties': {...}})"
            )
        schema = input_schema
        check_input_schema(schema, tool_name=name)
        return cls(name, description, schema, function, strict=strict, returns=returns, timeout=timeout)

    @staticmethod
    def from_function(
        function: Callable[P, R],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        timeout: float | None = None,
        blocking: bool = True,
    ) -> Tool[P, R]:
        """Build a tool from a typed Python function (see :func:`tool`)."""
        from .schema.from_function import describe_function

        if not isinstance(blocking, bool):
            raise ToolDefinitionError(f"blocking must be True or False, got {type(blocking).__name__}")
        if name is not None and (not isinstance(name, str) or not name):
            raise ToolDefinitionError(
                f"tool {getattr(function, '__name__', '?')!r}: name must be non-empty text, got {name!r} "
                "(leave it out to use the function's name)"
            )
        if not blocking and (inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)):
            raise ToolDefinitionError(
                f"tool {name or getattr(function, '__name__', '?')!r}: blocking=False is for synchronous functions; "
                "an async function already runs on the event loop. Remove blocking=False."
            )
        if inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function):
            raise ToolDefinitionError(
                f"tool {name or getattr(function, '__name__', '?')!r}: a generator function's body runs only when it "
                "is iterated, so as a tool it would never run; return the values (a list, or text) instead of yielding them"
            )
        desc = describe_function(function)
        return Tool(
            name or function.__name__,
            description if description is not None else desc.description,
            desc.input_schema,
            function,
            strict=strict,
            returns=desc.returns,
            timeout=timeout,
            meta={} if blocking else {"blocking": False},
            arguments_model=desc.arguments_model,
        )

    # -- what the model reads -----------------------------------------------------------------
    def model_description(self) -> str:
        """The description sent to the vendor: ``description`` plus ``Returns: …`` when set."""
        if self.returns and self.returns not in self.description:
            sep = "\n\n" if self.description else ""
            return f"{self.description}{sep}Returns: {self.returns}"
        return self.description

    def spec(self) -> dict[str, Any]:
        """The canonical JSON spec ``{"name", "description", "input_schema"}`` (+ ``strict`` when set)."""
        d: dict[str, Any] = {
            "name": self.name,
            "description": self.model_description(),
            "input_schema": self.input_schema,
        }
        if self.strict is not None:
            d["strict"] = self.strict
        return d

    def to_dict(self) -> dict[str, Any]:
        """``{"name": str, "description": str, "input_schema": object}`` (the ``description`` as set,
        without ``returns``) plus ``"strict"`` (bool), ``"returns"`` (str), ``"timeout"`` (seconds)
        and ``"imported_from"`` (API name) when not ``None``, ``"provider_data"`` when non-empty,
        ``"meta"`` (object) when it has an entry that is a JSON value, and for a
        :class:`ProviderTool` ``"provider_tool": {"vendor": str, "type": str, "settings": object}``.

        Not saved: ``function`` and ``arguments_model`` (code: give the function again when you
        rebuild the tool), and the ``meta`` entries whose value is not made of JSON values (text,
        numbers, ``True``/``False``/``None``, lists and objects with text keys) — a function such as
        a ``requires_approval`` policy, any other object, a NaN or infinity. A
        :class:`~toolwire.design.results.CapSpec` under ``"cap"`` is written as its ``to_dict()``
        (as ``@tool(cap=...)`` stores it), a tuple as a list. The ``meta`` written is a copy."""
        d: dict[str, Any] = {"name": self.name, "description": self.description, "input_schema": self.input_schema}
        for k in ("strict", "returns", "timeout", "imported_from"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.provider_data:
            d["provider_data"] = self.provider_data
        meta = _json_meta(self.meta)
        if meta:
            d["meta"] = meta
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tool[..., Any]:
        """Rebuild a tool from :meth:`to_dict`'s output, without a function (give it one, or answer its
        calls yourself); a dict with ``"provider_tool"`` gives a :class:`ProviderTool`.

        Checked as :meth:`from_schema` checks a tool: ``input_schema`` must be a valid Draft
        2020-12 schema with ``"type": "object"`` at the top (:class:`SchemaError` naming the tool
        and the JSON pointer); missing or ``null``, it is the empty object schema. ``KeyError`` when
        ``name`` is missing; :class:`ToolNameError` for a bad name; :class:`ToolDefinitionError`
        naming the tool and the field when ``d`` is not an object, ``provider_data`` is not an
        object of objects (API name to that API's data), ``meta`` is not an object (or ``null``),
        ``ProviderTool.from_dict`` is given no ``provider_tool`` object, or another
        field has the wrong type (all three are ``ValueError`` subclasses). A provider tool's
        vendor, type and settings are checked by :class:`ProviderTool`
        (:class:`~toolwire.errors.ConfigurationError`, or
        :class:`~toolwire.errors.ProviderToolUnsupported` when the vendor's adapter is not installed
        or does not list the type)."""
        from .types import _pd

        if not isinstance(d, dict):
            raise ToolDefinitionError(f"a saved tool must be an object, got {type(d).__name__}")
        name = d["name"]
        meta = d.get("meta")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise ToolDefinitionError(f"tool {name!r}: meta must be an object, got {type(meta).__name__}")
        try:
            provider_data = _pd(d.get("provider_data"))
        except TypeError as exc:
            raise ToolDefinitionError(f"tool {name!r}: {exc}") from None
        if "provider_tool" in d or issubclass(cls, ProviderTool):
            return ProviderTool._from_saved(d, dict(meta))
        tool = cls(  # the name and the other fields checked as for any tool, the schema below
            name,
            d.get("description", ""),
            {"type": "object", "properties": {}},
            None,
            strict=d.get("strict"),
            returns=d.get("returns"),
            timeout=d.get("timeout"),
            provider_data=provider_data,
            meta=dict(meta),
            imported_from=d.get("imported_from"),
        )
        schema = d.get("input_schema")
        if schema is not None:
            from .schema import check_input_schema

            check_input_schema(schema, tool_name=name)
            tool.input_schema = schema
        return tool

    # -- calling ------------------------------------------------------------------------------
    @property
    def is_async(self) -> bool:
        fn = self.function
        known = self.__dict__.get("_is_async")
        if known is not None and known[0] is fn:  # read once per function object
            return bool(known[1])
        inner = fn
        while isinstance(inner, functools.partial):
            inner = inner.func
        value = inspect.iscoroutinefunction(inner) or inspect.iscoroutinefunction(getattr(inner, "__call__", None))  # noqa: B004 - an async __call__
        self.__dict__["_is_async"] = (fn, value)
        return value

    @property
    def runs_inline(self) -> bool:
        """``True`` for a synchronous function marked ``meta["blocking"] = False``
        (``@tool(blocking=False)``): it is called directly on the event loop, not in a worker
        thread."""
        return self.meta.get("blocking") is False and self.function is not None and not self.is_async

    async def call(self, arguments: dict[str, Any]) -> Any:
        """Run the function with ``arguments`` as keyword arguments: async functions are awaited,
        sync ones run in a worker thread (or, marked ``blocking=False``, directly on the event
        loop). Raises whatever the function raises."""
        if self.function is None:
            raise RuntimeError(
                f"tool {self.name!r} has no function to run (a Tool made with function=None, or read from a "
                "vendor request): give it a function, or list it in deferred= and answer its calls yourself"
            )
        if self.is_async:
            fn: Callable[..., Any] = self.function
            return await fn(**arguments)
        if self.meta.get("blocking") is False:
            direct: Callable[..., Any] = self.function
            result = direct(**arguments)
        else:
            result = await run_in_daemon_thread(self.function, arguments)
        if inspect.isawaitable(result):
            result = await result
        return result

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Calling the tool calls the underlying function directly (handy in tests)."""
        if self.function is None:
            raise RuntimeError(f"tool {self.name!r} has no function")
        return self.function(*args, **kwargs)


class ProviderTool(Tool):
    """One of a vendor's own tools, declared in the canonical model:
    ``ProviderTool(vendor, type, settings=None, *, function=None, name=None)``.

    - ``vendor``: the provider whose API has the tool (``"anthropic"``, ``"openai"`` for
      Responses, ``"gemini"``);
    - ``type``: its wire type, as the vendor SDK spells it: Anthropic ``"web_search_20250305"``,
      ``"code_execution_20250825"``, ``"web_fetch_20250910"``, ``"bash_20250124"``,
      ``"text_editor_20250728"``; Responses ``"web_search"``, ``"file_search"``; Gemini
      ``"googleSearch"``, ``"codeExecution"``, ``"urlContext"`` (the adapter's profile lists them:
      ``registry.profile(vendor).provider_tools()``);
    - ``settings``: the tool's own fields, sent as given (e.g. ``{"max_uses": 3}``,
      ``{"vector_store_ids": ["vs_1"]}``);
    - ``function``: for a **client-side** tool (Anthropic bash and text editor; Responses shell,
      local shell, apply_patch and computer; Gemini computer use), the function that runs it. The
      model calls it like a function tool, with the vendor's input shape (``input_schema`` comes
      from the profile, e.g. bash ``{"command": str, "restart": bool}``, Responses shell
      ``{"action": {...}}``), and the loop calls ``function(**input)``; the adapters' factories
      (``toolwire_anthropic.confined_bash``, ``toolwire_openai.confined_shell``,
      ``toolwire_gemini.computer_use``, ...) build these tools with their functions. A
      client-side tool without a function is refused before the request
      (:meth:`require_function`). **Server-side** tools take no function: the vendor runs them
      and their calls and results come back as :class:`~toolwire.types.ProviderToolPart` parts
      of the assistant message.

    The tool name is the one the API fixes (Anthropic ``"bash"``, ``"str_replace_based_edit_tool"``,
    ``"web_search"``), else the type. Raises :class:`~toolwire.errors.ConfigurationError` when
    ``vendor`` or ``type`` is not a string, ``settings`` is not a dict of JSON values, or it sets
    ``type``/``name``. Raises :class:`~toolwire.errors.ProviderToolUnsupported`
    when the vendor's installed adapter does not list ``type``; sending the tool to another
    provider raises it too, before the request. Settings that do not fit the vendor SDK's type for
    the declaration (an unknown field, a value of the wrong type, a required field missing:
    :meth:`settings_problems`) are accepted here, reported by ``toolwire lint``, and refused with
    :class:`~toolwire.errors.ConfigurationError` before a request with the tool is sent.
    """

    def __init__(
        self,
        vendor: str,
        type: str,
        settings: dict[str, Any] | None = None,
        *,
        function: Callable[..., Any] | None = None,
        name: str | None = None,
        description: str = "",
        timeout: float | None = None,
    ) -> None:
        import json

        from .errors import ConfigurationError, ProviderToolUnsupported
        from .registry import cached_profile

        if not isinstance(vendor, str) or not vendor:
            raise ConfigurationError(
                f"ProviderTool: vendor must be a provider name such as 'anthropic', got {vendor!r}"
            )
        if not isinstance(type, str) or not type:
            raise ConfigurationError(f"ProviderTool: type must be the tool's wire type (a string), got {type!r}")
        if settings is not None and not isinstance(settings, Mapping):
            raise ConfigurationError(
                f"ProviderTool: settings must be a dict of the tool's own fields, got {settings.__class__.__name__}"
            )
        for key in settings or {}:
            if not isinstance(key, str):
                raise ConfigurationError(f"ProviderTool: settings keys must be strings, got {key!r}")
            if key in ("type", "name"):
                raise ConfigurationError(
                    f"ProviderTool: settings may not set {key!r} (it is fixed by the tool's type); "
                    "pass type= or name= instead"
                )
        try:
            json.dumps(dict(settings or {}), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ConfigurationError(f"ProviderTool: settings must be JSON-serialisable: {exc}") from exc

        prof = cached_profile(vendor)
        known = dict(prof.provider_tools()) if prof is not None else {}
        info = known.get(type)
        if info is None:
            offered = ", ".join(sorted(known)) or "none"
            raise ProviderToolUnsupported(
                f"{vendor} has no provider tool of type {type!r} (its provider tools: {offered})",
                provider=vendor,
                vendor=vendor,
                tool_type=type,
            )
        schema = dict(info.input_schema) if info.input_schema else {"type": "object", "properties": {}}
        super().__init__(name or info.name or type, description, schema, function=function, timeout=timeout)
        self.vendor = vendor
        self.type = type
        self.settings: dict[str, Any] = dict(settings or {})
        self.side: Any = info.side

    def __repr__(self) -> str:
        return f"ProviderTool({self.vendor!r}, {self.type!r}, {self.settings!r})"

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Tool.to_dict` plus ``"provider_tool": {"vendor": str, "type": str, "settings":
        object}``, from which :meth:`Tool.from_dict` rebuilds the provider tool (a client-side
        tool's ``function`` is not saved: give it again)."""
        d = super().to_dict()
        d["provider_tool"] = {"vendor": self.vendor, "type": self.type, "settings": dict(self.settings)}
        return d

    @classmethod
    def _from_saved(cls, d: dict[str, Any], meta: dict[str, Any]) -> ProviderTool:
        """The provider tool of a :meth:`to_dict` output (``d["provider_tool"]`` present), with
        ``meta``; its vendor, type and settings are checked as when it is made."""
        name = d["name"]
        saved = d.get("provider_tool")
        if not isinstance(saved, dict):
            raise ToolDefinitionError(
                f"tool {name!r}: provider_tool must be an object (vendor, type, settings), got {type(saved).__name__}"
            )
        tool = cls(
            saved.get("vendor"),  # type: ignore[arg-type]  # checked by __init__
            saved.get("type"),  # type: ignore[arg-type]
            saved.get("settings"),
            name=name,
            description=d.get("description", ""),
            timeout=d.get("timeout"),
        )
        tool.meta = meta
        return tool

    async def call(self, arguments: dict[str, Any]) -> Any:
        """Run a client-side tool's ``function``. Raises ``RuntimeError`` when there is none
        (a server-side tool: the vendor runs it, toolwire cannot)."""
        if self.function is None:
            raise RuntimeError(
                f"tool {self.name!r} is {self.vendor}'s own tool {self.type!r}, run by {self.vendor} itself; "
                f"toolwire has no function to run it. Send it only to {self.vendor}, or pass function=... "
                "for a client-side tool."
            )
        return await super().call(arguments)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProviderTool):
            return NotImplemented
        return (self.vendor, self.type, self.settings, self.name, self.function) == (
            other.vendor,
            other.type,
            other.settings,
            other.name,
            other.function,
        )

    __hash__ = None  # type: ignore[assignment]

    def require_function(self, factory: str) -> None:
        """Raise :class:`~toolwire.errors.ConfigurationError` when this is a client-side tool
        (``side == "client"``) without a ``function`` and not deferred (``meta["deferred"]``):
        the model's calls to it would have nothing to answer them, and the vendor refuses a
        conversation with an unanswered call. ``factory`` names the ready function that builds
        the tool (e.g. ``"toolwire_anthropic.confined_bash(root)"``). Called by the adapters
        before encoding a request."""
        if self.side != "client" or self.function is not None or self.meta.get("deferred"):
            return
        from .errors import ConfigurationError

        raise ConfigurationError(
            f"the provider tool {self.name!r} ({self.vendor} {self.type!r}) is run by your code, but it has no "
            f"function, so the model's calls to it could not be answered. Use {factory}, pass function=... "
            "taking the vendor's input, or set meta['deferred'] = True to answer its calls yourself."
        )

    def settings_problems(self) -> list[str]:
        """What is wrong with :attr:`settings` for the vendor, one sentence each: an unknown field
        (with the closest field name: "did you mean ...?"), a value of the wrong type
        (``"max_uses: Input should be a valid integer"``), a required field missing — checked
        against the vendor SDK's type for the declaration by the adapter's profile
        (``Profile.provider_tool_problems``). Empty when they fit, or when the vendor's adapter is
        not installed. The one check behind both ``toolwire lint``'s ``provider-tool-settings``
        rule and the refusal in :meth:`check_for`."""
        import json

        try:
            text = json.dumps(self.settings, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            return [f"the settings are not JSON values: {exc}"]
        return list(_provider_tool_problems(self.vendor, self.type, text))

    def declaration_type(self) -> str:
        """The vendor SDK's type for this tool's declaration (its profile's ``source``, e.g.
        ``"anthropic.types.WebSearchTool20250305Param"``); ``""`` when the adapter is not installed."""
        from .registry import cached_profile

        prof = cached_profile(self.vendor)
        info = dict(prof.provider_tools()).get(self.type) if prof is not None else None
        return str(getattr(info, "source", "") or "")

    def check_for(self, provider: str) -> None:
        """Raise :class:`~toolwire.errors.ProviderToolUnsupported` unless ``provider`` is this
        tool's vendor, and :class:`~toolwire.errors.ConfigurationError` when its settings do not
        fit the vendor SDK's declaration type (:meth:`settings_problems`: the message names the
        tool, each field, what the type expects and the closest field name). Called by the adapters
        before encoding a request, so neither is ever sent."""
        from .errors import ConfigurationError, ProviderToolUnsupported

        if provider == self.vendor:
            problems = [] if _SETTINGS_REVIEWED.get() else self.settings_problems()
            if problems:
                sdk_type = self.declaration_type()
                shown = f" ({sdk_type})" if sdk_type else ""
                raise ConfigurationError(
                    f"provider tool {self.name!r} ({self.vendor} {self.type!r}): its settings do not fit the "
                    f"vendor SDK's declaration type{shown}, so the request was not sent: {'; '.join(problems)}. "
                    "Correct the settings to that type's field names and value types."
                )
            return
        from .registry import cached_profile

        prof = cached_profile(provider)
        offered = ", ".join(sorted(prof.provider_tools())) if prof is not None else ""
        raise ProviderToolUnsupported(
            f"the provider tool {self.name!r} ({self.vendor} {self.type!r}) exists only on {self.vendor}; "
            f"{provider} cannot run it (its provider tools: {offered or 'none'}). Remove it from the tools "
            f"for {provider}, or declare that provider's own tool.",
            provider=provider,
            vendor=self.vendor,
            tool_type=self.type,
        )


#: Set while ``toolwire lint`` reviews tools: it reports bad provider-tool settings itself
#: (rule ``provider-tool-settings``), so translating such a tool for its other reviews does not raise.
_SETTINGS_REVIEWED: ContextVar[bool] = ContextVar("toolwire_provider_tool_settings_reviewed", default=False)


@contextmanager
def provider_tool_settings_reviewed() -> Iterator[None]:
    """Within this block :meth:`ProviderTool.check_for` does not refuse settings that do not fit
    (``toolwire lint`` reports them as findings instead); everything else is checked as usual."""
    token = _SETTINGS_REVIEWED.set(True)
    try:
        yield
    finally:
        _SETTINGS_REVIEWED.reset(token)


def check_imported_provider_tool(vendor: str, declaration: Any, pointer: str) -> None:
    """Raise :class:`~toolwire.errors.ConfigurationError` when ``declaration`` (a provider tool's
    wire declaration kept verbatim from an imported request, at ``pointer`` of the body, e.g.
    ``"/tools/2"``) is of a type ``vendor``'s profile lists and has a field value its SDK type
    does not take (``{"type": "web_search_20250305", "max_uses": "three"}``) or lacks a required
    field: the vendor refuses it. The message names the tool type, the field and what the vendor
    SDK's declaration type expects.
    A declaration that is not a JSON object, or whose ``type`` is missing or not a non-empty
    string, is refused the same way (every member of the vendor's tool union is an object with a
    ``type``: ``anthropic.types.ToolUnionParam``, whose one member without a required ``type`` is
    a tool of your own with ``name`` and ``input_schema``; ``openai.types.responses.ToolParam``).
    A field the SDK's type does not list is let through (a newer API field an installed SDK may
    not know), as is a declaration of a type the profile does not list; nothing is raised
    within :func:`provider_tool_settings_reviewed`."""
    import json

    from .errors import ConfigurationError
    from .registry import cached_profile
    from .wire import json_kind

    if _SETTINGS_REVIEWED.get():
        return
    if not isinstance(declaration, Mapping):
        raise ConfigurationError(
            f"the {vendor} tool at {pointer} of the imported request is a JSON {json_kind(declaration)}, not an "
            "object, which the API refuses, so the request was not sent. Correct or remove it in the request you "
            "imported."
        )
    tool_type = declaration.get("type")
    if not isinstance(tool_type, str) or not tool_type:
        what = "has no type" if tool_type is None else f"has the type {json.dumps(tool_type, default=str)[:60]}"
        mine = " (a tool of your own needs a name and an input_schema)" if vendor == "anthropic" else ""
        raise ConfigurationError(
            f"the {vendor} tool at {pointer} of the imported request {what}{mine}, which the API refuses, so the "
            "request was not sent. Correct or remove it in the request you imported."
        )
    prof = cached_profile(vendor) if isinstance(tool_type, str) else None
    if prof is None or tool_type not in prof.provider_tools():
        return
    settings = {k: v for k, v in declaration.items() if k not in ("type", "name")}
    try:
        text = json.dumps(settings, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return
    problems = [p for p in _provider_tool_problems(vendor, tool_type, text) if not p.startswith("unknown field ")]
    if problems:
        raise ConfigurationError(
            f"the {vendor} provider tool {tool_type!r} at {pointer} of the imported request does not fit the "
            f"vendor SDK's declaration type, which the API refuses, so the request was not sent: "
            f"{'; '.join(problems)}. Correct the declaration in the request you imported."
        )


@functools.lru_cache(maxsize=512)
def _provider_tool_problems(vendor: str, tool_type: str, settings_json: str) -> tuple[str, ...]:
    """``Profile.provider_tool_problems`` of ``vendor``, cached by the settings' JSON text (each
    check builds a pydantic validator: done once per distinct declaration, not every request)."""
    import json

    from .registry import cached_profile

    prof = cached_profile(vendor)
    if prof is None:
        return ()
    return tuple(prof.provider_tool_problems(tool_type, json.loads(settings_json)))


class _DaemonWorkers:
    """Daemon threads reused for synchronous tool calls: each call gets a thread of its own
    (an idle one, or a new one when none is idle), so calls still run in parallel and a
    timed-out call that keeps running holds only its own thread. A thread idle for
    :attr:`IDLE_SECONDS` ends; after ``fork`` the child starts with none.

    A thread counts itself idle as soon as its job returned, *before* it hands the outcome over
    (``deliver``): the hand-over wakes the caller, whose next call may be submitted at once, and
    then finds this thread idle instead of starting another one."""

    IDLE_SECONDS = 30.0

    def __init__(self) -> None:
        import queue
        import threading

        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._idle = 0

    def submit(self, job: Callable[[], Any], name: str, deliver: Callable[[Any], None] | None = None) -> None:
        """Run ``job()`` in a thread named ``name``; then, if given, ``deliver(what job returned)``
        (in the same thread, after the thread counted itself idle; it must not raise)."""
        import threading

        with self._lock:
            if self._idle:
                self._idle -= 1  # reserved: exactly one idle thread takes this job
                self._jobs.put((job, name, deliver))
                return
        threading.Thread(target=self._work, args=(job, deliver), name=name, daemon=True).start()

    def _work(self, job: Callable[[], Any], deliver: Callable[[Any], None] | None) -> None:
        import queue
        import threading

        me = threading.current_thread()
        while True:
            outcome = job()
            job = None  # type: ignore[assignment] - drop references while idle
            with self._lock:
                self._idle += 1  # before the hand-over (see the class docstring)
            if deliver is not None:
                deliver(outcome)
                deliver = None
            outcome = None
            while True:
                try:
                    job, name, deliver = self._jobs.get(timeout=self.IDLE_SECONDS)
                    if me.name != name:  # a reused thread is named after the tool it runs now
                        me.name = name
                    break
                except queue.Empty:
                    with self._lock:
                        if self._jobs.empty():
                            self._idle -= 1
                            return
                        # a job was reserved for an idle thread just now: take it


_workers: _DaemonWorkers | None = None


def _reset_workers() -> None:
    global _workers
    _workers = None


def _get_workers() -> _DaemonWorkers:
    global _workers
    w = _workers
    if w is None:
        import os

        w = _workers = _DaemonWorkers()
        if hasattr(os, "register_at_fork") and not _fork_hook_installed:
            _install_fork_hook()
    return w


_fork_hook_installed = False


def _install_fork_hook() -> None:
    global _fork_hook_installed
    import os

    os.register_at_fork(after_in_child=_reset_workers)  # the child has no worker threads
    _fork_hook_installed = True


async def run_in_daemon_thread(function: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    """Run a synchronous function in a daemon thread of its own and await its result.

    Unlike ``asyncio.to_thread`` (the default executor), an abandoned call — one whose timeout
    passed — neither blocks ``asyncio.run``'s shutdown nor the interpreter's exit: a Python thread
    cannot be killed, so a timed-out synchronous tool may keep running, but nobody waits for it.
    Threads are reused between calls (one call per thread at a time), so a call does not pay
    for starting a thread. The function runs in a copy of the caller's context (contextvars).
    """
    return await start_in_daemon_thread(function, arguments)


def start_in_daemon_thread(
    function: Callable[..., Any], arguments: dict[str, Any], name: str | None = None, wait: float = 0.0
) -> Any:
    """Start ``function(**arguments)`` in a reused daemon thread (see :func:`run_in_daemon_thread`)
    and return the ``asyncio.Future`` of the running loop that gets its outcome: its return value,
    or what it raised (``StopIteration`` as ``RuntimeError``, which a future cannot hold). The
    future is settled once, from the worker thread through ``call_soon_threadsafe``; a future
    already done (cancelled, or set by a caller's own timeout) is left as it is. ``name``: the
    thread's name (default ``toolwire-tool-<function name>``).

    ``wait`` (seconds, default 0): block the calling thread, and so its event loop, for up to
    that long for the outcome before returning; an outcome that arrives within it is set on the
    future here, without waking the loop from another thread. The wait ends early when another
    thread schedules a callback on the loop (looked for every ``toolwire._sync.WAIT_STEP``
    seconds). Only for a loop that has nothing else to run meanwhile (see
    ``toolwire._sync.tool_wait``)."""
    import asyncio
    import contextvars

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    ctx = contextvars.copy_context()
    thread_name = name if name is not None else f"toolwire-tool-{getattr(function, '__name__', 'fn')}"

    def target() -> tuple[bool, Any]:
        return _outcome(ctx, function, arguments)

    if wait > 0:
        return _start_and_wait(loop, future, target, thread_name, wait)

    def deliver(outcome: tuple[bool, Any]) -> None:
        try:
            loop.call_soon_threadsafe(_settle, future, *outcome)
        except RuntimeError:  # the loop is gone: nobody is waiting any more
            pass

    (_workers or _get_workers()).submit(target, thread_name, deliver)
    return future


def _outcome(ctx: Any, function: Callable[..., Any], arguments: dict[str, Any]) -> tuple[bool, Any]:
    """``(True, function(**arguments))`` run in ``ctx``, or ``(False, what it raised)``."""
    try:
        return True, ctx.run(function, **arguments)
    except BaseException as exc:  # delivered to the awaiting task, which decides
        if isinstance(exc, (StopIteration, GeneratorExit)):
            # asyncio futures refuse StopIteration; a GeneratorExit thrown into the awaiting
            # coroutines would close them instead of reaching the call's error handling
            exc = _as_runtime_error(exc)
        return False, exc


def _settle(future: Any, ok: bool, value: Any) -> None:
    """Set the outcome on ``future``, unless it is done already (cancelled, or timed out by the
    caller: the outcome is dropped)."""
    if future.done():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def _as_runtime_error(exc: BaseException) -> RuntimeError:
    """``StopIteration("x")`` → ``RuntimeError("StopIteration: x")`` (likewise ``GeneratorExit``)."""
    kind = type(exc).__name__
    return RuntimeError(f"{kind}: {exc}" if str(exc) else kind)


def _start_and_wait(loop: Any, future: Any, target: Callable[[], Any], thread_name: str, wait: float) -> Any:
    """:func:`start_in_daemon_thread` with ``wait``: the worker hands its outcome over through a
    lock the caller waits on; past ``wait`` the caller gives up waiting and the worker settles
    the future through the loop instead (a small lock decides which of the two happens)."""
    import threading

    guard = threading.Lock()
    handed = threading.Lock()
    handed.acquire()
    box: list[Any] = []  # [outcome] handed over here, or [None] once the caller stopped waiting

    def deliver(outcome: tuple[bool, Any]) -> None:
        with guard:
            if not box:  # the caller is still waiting (or has not started to): hand over here
                box.append(outcome)
                handed.release()
                return
        try:
            loop.call_soon_threadsafe(_settle, future, *outcome)
        except RuntimeError:  # the loop is gone
            pass

    (_workers or _get_workers()).submit(target, thread_name, deliver)
    from ._sync import WAIT_STEP

    ready = getattr(loop, "_ready", None)  # the loop's ready callbacks (asyncio's BaseEventLoop)
    left = wait
    while True:
        step = left if left < WAIT_STEP else WAIT_STEP
        if handed.acquire(timeout=step):
            break
        left -= step
        if left <= 0.0 or ready is None or ready:  # over, or the loop has something to run
            with guard:
                if not box:
                    box.append(None)  # from now on the worker settles the future through the loop
                    return future
            break  # handed over just now
    _settle(future, *box[0])
    return future


@overload
def tool(
    function: Callable[P, R],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    blocking: bool = True,
) -> Tool[P, R]: ...


@overload
def tool(
    function: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    blocking: bool = True,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    function: Callable[P, R] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    blocking: bool = True,
    **unknown: Any,
) -> Tool[P, R] | Callable[[Callable[P, R]], Tool[P, R]]:
    """Decorator: turn a typed function (sync or async) into a :class:`Tool`.

    The input schema comes from the type hints (pydantic), each parameter's description from
    the docstring (Google, NumPy or Sphinx style), the tool description from the docstring's
    text and ``returns`` from its Returns section. Usable bare (``@tool``) or with options
    (``@tool(name=..., strict=True, timeout=5.0)``). Raises :class:`ToolNameError` or
    :class:`~toolwire.errors.ToolDefinitionError` at definition time.

    A synchronous function runs in a worker thread, so a slow or blocking one never stalls the
    event loop, calls of one response run at the same time and ``timeout`` is honoured.
    ``blocking=False`` says the function returns quickly and never blocks (no I/O, no sleep, no
    lock waits, no ``asyncio.run``): it is then called directly on the event loop, which saves
    the hand-off to a thread (about 0.1-0.3 ms per call), but nothing else on that loop runs
    while it runs, calls of one response run one after another, and ``timeout`` cannot stop it.
    Stored as ``meta["blocking"] = False``. ``blocking=False`` on an ``async def`` raises
    :class:`~toolwire.errors.ToolDefinitionError` (an async function already runs on the loop).
    """

    if unknown:
        _refuse_tool_keywords(unknown)

    def wrap(fn: Callable[P, R]) -> Tool[P, R]:
        return Tool.from_function(
            fn, name=name, description=description, strict=strict, timeout=timeout, blocking=blocking
        )

    if function is not None:
        return wrap(function)
    return wrap


_TOOL_KEYWORDS = ("blocking", "description", "name", "strict", "timeout")


def _refuse_tool_keywords(unknown: Mapping[str, Any]) -> None:
    """``TypeError`` for keywords :func:`tool` does not take, with the nearest valid one, and for
    ``meta=`` where meta goes (Python's own error named neither)."""
    import difflib

    hints = []
    for key in unknown:
        if key == "meta":
            hints.append(
                "'meta' (set it on the tool it returns: "
                'my_tool = toolwire.tool(fn); my_tool.meta["requires_approval"] = True)'
            )
            continue
        close = difflib.get_close_matches(key, _TOOL_KEYWORDS, n=1, cutoff=0.6)
        hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise TypeError(
        f"tool() got unexpected keyword argument{'s' if len(hints) > 1 else ''} {', '.join(hints)}. "
        f"It takes the function and the keywords: {', '.join(_TOOL_KEYWORDS)}."
    )


def _ensure_schema_error(msg: str) -> SchemaError:  # pragma: no cover - helper for typing
    return SchemaError(msg)
