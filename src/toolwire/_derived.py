"""What toolwire derives from a function, a tool or a schema, computed once and reused.

Building an input schema from type hints costs milliseconds; reading a function's signature,
its context parameters or a schema's bounds costs tens of microseconds. None of it changes
between runs unless the function or the schema does, so each is cached, keyed so that a change
is noticed:

- **functions** by the function object *and* its fingerprint (:func:`function_fingerprint`:
  code object, defaults, annotations, docstring, names, ``__wrapped__``, ``__signature__``). A
  function redefined, re-decorated or given new defaults or annotations misses the cache; the
  entry dies with the function (weak keys).
- **schemas** by the dict object *and* a copy of its contents: a hit needs the same object with
  equal contents (a dict comparison, much cheaper than re-deriving), so a schema changed in
  place is derived again.

Nothing here is vendor-specific; ``docs/performance.md`` lists the caches.
"""

from __future__ import annotations

import copy
import threading
import types
import weakref
from typing import Any, Callable

__all__ = ["function_fingerprint", "tool_for_function", "function_info", "schema_derived", "FunctionInfo"]

_lock = threading.Lock()


def function_fingerprint(function: Any) -> tuple[Any, ...] | None:
    """What a function's tool is built from, as a comparable tuple; ``None`` for callables
    that are not plain Python functions (bound methods, partials, callable objects: never
    cached)."""
    if type(function) is not types.FunctionType:
        return None
    d = function.__dict__
    return (
        function.__code__,
        function.__defaults__,
        function.__kwdefaults__,
        tuple(function.__annotations__.items()),
        function.__doc__,
        function.__name__,
        function.__qualname__,
        function.__module__,
        d.get("__wrapped__"),
        d.get("__signature__"),
    )


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an annotation whose __eq__ fails: treat as changed
        return False


class _FunctionCache:
    """``function -> (fingerprint, value)``, weakly keyed."""

    def __init__(self) -> None:
        self._data: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()

    def get(self, function: Any, make: Callable[[], Any]) -> Any:
        fp = function_fingerprint(function)
        if fp is None:
            return make()
        hit = self._data.get(function)
        if hit is not None and _same(hit[0], fp):
            return hit[1]
        value = make()
        with _lock:
            self._data[function] = (fp, value)
        return value

    def clear(self) -> None:
        with _lock:
            self._data.clear()


_TOOLS = _FunctionCache()
_INFO = _FunctionCache()


def tool_for_function(function: Any) -> Any:
    """The :class:`~toolwire.tools.Tool` a run builds for a plain function passed as a tool
    (``tools=[fn]``): ``Tool.from_function(fn)``, built once per function and fingerprint.
    Raises what ``Tool.from_function`` raises (not cached)."""
    global _Tool
    if _Tool is None:  # (toolwire.tools imports this module: looked up once, on first use)
        from .tools import Tool

        _Tool = Tool
    tool_class = _Tool
    return _TOOLS.get(function, lambda: tool_class.from_function(function))


#: toolwire.tools.Tool, looked up by the first :func:`tool_for_function`
_Tool: Any = None


class FunctionInfo:
    """The parts of a tool function's signature the executor reads per call."""

    __slots__ = ("context_parameters", "parameters", "var_keyword", "signature_ok")

    def __init__(self, function: Any) -> None:
        import inspect

        from .schema.from_function import context_parameters

        self.context_parameters: tuple[str, ...] = tuple(context_parameters(function))
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            self.signature_ok = False
            self.parameters: frozenset[str] = frozenset()
            self.var_keyword = True
            return
        self.signature_ok = True
        self.parameters = frozenset(params)
        self.var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def function_info(function: Any) -> FunctionInfo:
    """:class:`FunctionInfo` of ``function`` (context parameters, parameter names, whether it
    takes ``**kwargs``), cached by function and fingerprint."""
    return _INFO.get(function, lambda: FunctionInfo(function))  # type: ignore[no-any-return]


class _SchemaEntry:
    __slots__ = ("schema", "snapshot", "values")

    def __init__(self, schema: Any) -> None:
        self.schema = schema  # held: its id cannot be reused while the entry lives
        self.snapshot = copy.deepcopy(schema)
        self.values: dict[str, Any] = {}


_SCHEMAS: dict[int, _SchemaEntry] = {}
_MAX_SCHEMAS = 1024


def schema_derived(schema: Any, key: str, make: Callable[[], Any]) -> Any:
    """``make()`` for ``schema`` under ``key`` (e.g. ``"validator"``, ``"coerce-enum"``), computed once per
    schema object while its contents stay equal to what they were when first seen. Raises what
    ``make`` raises (nothing cached then)."""
    if type(schema) is not dict and not isinstance(schema, dict):
        return make()
    sid = id(schema)
    entry = _SCHEMAS.get(sid)
    if entry is None or entry.schema is not schema or not _same(schema, entry.snapshot):
        try:
            entry = _SchemaEntry(schema)
        except Exception:  # a value deepcopy refuses: derive without caching
            return make()
        with _lock:
            if len(_SCHEMAS) >= _MAX_SCHEMAS:
                _SCHEMAS.clear()
            _SCHEMAS[sid] = entry
    values = entry.values
    if key in values:
        return values[key]
    value = make()
    values[key] = value
    return value


def clear() -> None:
    """Forget every cached derivation (tests; never needed for correctness)."""
    _TOOLS.clear()
    _INFO.clear()
    with _lock:
        _SCHEMAS.clear()
