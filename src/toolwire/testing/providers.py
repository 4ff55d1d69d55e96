"""Offline providers for tests and demos: ``test`` and ``scripted``.

- ``toolwire.model("test")`` (:class:`TestModel`): on its first turn it calls every tool (or the
  ones named in ``call_tools``), in parallel, with arguments generated to satisfy each input
  schema; on the next turn it answers with text reporting what the tools returned.
- ``toolwire.model("scripted", responses=[...])`` (:class:`ScriptedModel`): returns the
  responses the test author wrote, in order, or the output of a function of the request.

Both record every :class:`~toolwire.adapter.ModelRequest` they receive in ``.requests``.
No network, no API key, deterministic ids (``call_1``, ``call_2`` … per model instance).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Awaitable, Callable, Iterable, cast

from ..adapter import Model, ModelRequest
from ..errors import ConfigurationError, ToolwireError, _scrubbed, _text_of
from ..types import STOP_REASONS, Message, ReasoningPart, Response, TextPart, ToolCall, ToolResult, Usage

__all__ = ["TestModel", "ScriptedModel", "example_arguments", "call"]


# ----------------------------------------------------------------------------------------------
# Arguments that satisfy a schema


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 32:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return {}
        node: Any = root
        for key in ref[2:].split("/"):
            node = node.get(key.replace("~1", "/").replace("~0", "~"), {}) if isinstance(node, dict) else {}
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**node, **rest}
        seen += 1
    return schema


_FORMAT_EXAMPLES = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "12:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
    "duration": "P1D",
}


def example_arguments(schema: dict[str, Any], *, include_optional: bool = False) -> dict[str, Any]:
    """A JSON object that satisfies ``schema`` (a tool's input schema): required properties get
    a value (the default, const, first enum value, first example, a format example, or a value
    of the declared type within its bounds); optional ones too when ``include_optional``.

    Deterministic. Raises :class:`ConfigurationError` when the result does not validate (e.g. a
    ``pattern`` the generator cannot satisfy) so a test never sends arguments that are wrong
    by accident.
    """
    value = _example(schema, schema, include_optional, depth=0)
    if not isinstance(value, dict):
        value = {}
    from ..schema.validate import validate_arguments

    problems = validate_arguments(schema, value)
    if problems:
        raise ConfigurationError(f"cannot generate arguments satisfying the schema: {problems[0].render()}")
    return value


def _example(schema: Any, root: dict[str, Any], include_optional: bool, depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 12:
        return None
    schema = _resolve(schema, root)
    for key in ("const",):
        if key in schema:
            return copy.deepcopy(schema[key])
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if schema.get("enum"):
        return copy.deepcopy(schema["enum"][0])
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return copy.deepcopy(schema["examples"][0])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            options = [o for o in schema[key] if not (isinstance(o, dict) and o.get("type") == "null")] or schema[key]
            return _example(options[0], root, include_optional, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for sub in schema["allOf"]:
            merged.update(_resolve(sub, root) if isinstance(sub, dict) else {})
        return _example(merged, root, include_optional, depth + 1)
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "null")
    if typ is None:
        typ = "object" if "properties" in schema else "string"
    if typ == "object":
        out: dict[str, Any] = {}
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        for name, sub in props.items():
            if name in required or include_optional:
                out[name] = _example(sub, root, include_optional, depth + 1)
        for name in required - set(props):
            out[name] = "example"
        return out
    if typ == "array":
        n = int(schema.get("minItems", 1 if schema.get("items") else 0))
        item = schema.get("items") or {}
        if isinstance(schema.get("prefixItems"), list):
            return [_example(s, root, include_optional, depth + 1) for s in schema["prefixItems"]]
        return [_example(item, root, include_optional, depth + 1) for _ in range(n)] if item else []
    if typ in ("integer", "number"):
        return _number_example(schema, integer=typ == "integer")
    if typ == "boolean":
        return True
    if typ == "null":
        return None
    # string
    fmt = schema.get("format")
    if fmt in _FORMAT_EXAMPLES:
        return _FORMAT_EXAMPLES[fmt]
    text = "example"
    lo = int(schema.get("minLength", 0))
    hi = schema.get("maxLength")
    if len(text) < lo:
        text = text + "x" * (lo - len(text))
    if hi is not None:
        text = text[: int(hi)]
    return text


def _number_example(schema: dict[str, Any], *, integer: bool) -> int | float:
    """A number inside the schema's bounds (``minimum``/``maximum``/``exclusiveMinimum``/
    ``exclusiveMaximum``, and ``multipleOf`` for integers): 1 when allowed, else the nearest
    allowed value."""
    import math

    lo, hi = schema.get("minimum"), schema.get("maximum")
    xlo, xhi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    step = 1 if integer else 0.5
    low = max(
        [v for v in (lo, None if xlo is None else xlo + (1 if integer else step / 1000)) if v is not None], default=None
    )
    high = min(
        [v for v in (hi, None if xhi is None else xhi - (1 if integer else step / 1000)) if v is not None], default=None
    )
    value: float = 1
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    if integer:
        value = math.ceil(value) if low is not None and value == low else math.floor(value)
        mult = schema.get("multipleOf")
        if isinstance(mult, int) and mult > 0 and value % mult:
            value = value + (mult - value % mult)
        return int(value)
    return float(value)


def call(name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None) -> ToolCall:
    """Shorthand for a scripted tool call (``id`` defaults to ``call_<n>`` in order).

    ``arguments`` (a dict, copied; ``None`` is ``{}``) that is not a dict — a list or text, as a
    model may send — is kept as given, as in ``ToolCall(...)`` or a dict item: the run answers
    the call with an ``is_error`` result saying the arguments must be a JSON object."""
    from collections.abc import Mapping

    if arguments is None:
        arguments = {}
    kept: Any = dict(arguments) if isinstance(arguments, Mapping) else arguments
    return ToolCall(id=id or "", name=name, arguments=kept)


# ----------------------------------------------------------------------------------------------


class _OfflineModel(Model):
    def __init__(self, model_id: str, **settings: Any) -> None:
        # any setting name is taken (a vendor's, so code written for one runs offline), but not an
        # empty one: no provider has it (the vendors' adapters refuse it as an unknown setting)
        for name in settings:
            if not name.strip():
                raise ConfigurationError(
                    f"the {self.provider!r} provider's setting name {name!r} is empty: settings are "
                    "keyword arguments, such as max_tokens=512"
                )
        super().__init__(model_id, **settings)
        self.requests: list[ModelRequest] = []
        self._next_id = 0

    def _id(self) -> str:
        self._next_id += 1
        return f"call_{self._next_id}"

    @classmethod
    def make_codec(cls, **settings: Any) -> Any:
        raise NotImplementedError(f"the {cls.provider!r} provider has no wire format")

    def _refuse_provider_tools(self, request: ModelRequest) -> None:
        """Raise :class:`~toolwire.errors.ProviderToolUnsupported` for a vendor's own tool in
        ``request.tools`` (unless its vendor is this provider), as a vendor adapter lacking the
        tool does before anything is sent."""
        from ..tools import ProviderTool

        for tool in request.tools:
            if isinstance(tool, ProviderTool):
                tool.check_for(self.provider)


class TestModel(_OfflineModel):
    """Calls every tool once with schema-satisfying arguments, then reports the results.

    Settings: ``call_tools`` (list of tool names to call; default all), ``final_text`` (text of
    the final answer instead of the generated report), ``include_optional`` (also fill optional
    parameters); one of the wrong type raises :class:`~toolwire.errors.ConfigurationError` when
    the model is made. Any other setting (a vendor's, such as ``max_tokens``) is accepted and
    ignored, so code written for a vendor runs offline unchanged; it is not checked here. Usage is
    reported as ``None`` tokens (nothing was counted) and 1 request, so a run
    with a token limit stops at its first answer asking for tools, as with a vendor that reports
    no usage ("cannot be checked"; script answers with a ``usage`` to test token limits).
    A conversation whose history already holds an assistant message asking for tools (a saved run
    continued) is answered with the final text at once: the tools are called on the first turn
    only.
    """

    __test__ = False  # not a pytest test class
    provider = "test"

    def __init__(self, model_id: str, **settings: Any) -> None:
        problem = _test_setting_problem(settings)
        if problem is not None:
            raise ConfigurationError(f"the 'test' provider's setting {problem}")
        super().__init__(model_id, **settings)

    async def send(self, request: ModelRequest) -> Response:
        """Answer ``request`` offline, recording it in ``requests``. Until an assistant message has asked
        for tools (and unless ``tool_choice`` is ``"none"``): one ``tool_use`` response calling each
        tool with :func:`example_arguments`; then an ``end_turn`` text, ``final_text`` or a report of
        the last tool results. :class:`~toolwire.errors.ConfigurationError` when ``call_tools`` names a
        tool the request does not offer."""
        self._refuse_provider_tools(request)
        self.requests.append(request)
        last_results: list[ToolResult] = []
        asked = any(m.role == "assistant" and m.tool_calls for m in request.messages)
        if request.messages and request.messages[-1].role == "user":
            last_results = request.messages[-1].tool_results
        names = self.settings.get("call_tools")
        if names is not None:
            unknown = [n for n in names if n not in {t.name for t in request.tools}]
            if unknown:
                from ..errors import ConfigurationError

                raise ConfigurationError(
                    f"call_tools names {', '.join(map(repr, unknown))}, which is not among the request's tools: "
                    f"{sorted(t.name for t in request.tools)}"
                )
        tools = [t for t in request.tools if names is None or t.name in names]
        if not asked and tools and request.tool_choice != "none":
            if isinstance(request.tool_choice, dict):
                tools = [t for t in tools if t.name == request.tool_choice["name"]]
            parts: list[Any] = []
            for t in tools:
                args = example_arguments(t.input_schema, include_optional=bool(self.settings.get("include_optional")))
                parts.append(ToolCall(self._id(), t.name, args, raw_arguments=json.dumps(args, ensure_ascii=False)))
            return Response(
                parts,
                "tool_use",
                "tool_use",
                Usage(requests=1),
                self.model_id,
                f"test-{len(self.requests)}",
                self.provider,
            )
        text = self.settings.get("final_text")
        if text is None:
            if last_results:
                lines = []
                for r in last_results:
                    snippet = r.text if len(r.text) <= 200 else r.text[:200] + "…"
                    lines.append(f"{r.name or r.tool_call_id}: {'error: ' if r.is_error else ''}{snippet}")
                text = "Tool results:\n" + "\n".join(lines)
            else:
                text = "success (no tool calls)"
        return Response(
            [TextPart(text)],
            "end_turn",
            "end_turn",
            Usage(requests=1),
            self.model_id,
            f"test-{len(self.requests)}",
            self.provider,
        )


def _test_setting_problem(settings: dict[str, Any]) -> str | None:
    """What is wrong with the ``test`` provider's own settings, or ``None``."""
    names = settings.get("call_tools")
    if names is not None and (
        isinstance(names, (str, bytes))
        or not isinstance(names, (list, tuple, set, frozenset))
        or not all(isinstance(n, str) for n in names)
    ):
        return f"call_tools must be a list of tool names, such as ['get_weather'], got {names!r:.80}"
    text = settings.get("final_text")
    if text is not None and not isinstance(text, str):
        return f"final_text must be text, got {type(text).__name__} {text!r:.60}"
    flag = settings.get("include_optional")
    if flag is not None and not isinstance(flag, bool):
        return f"include_optional must be True or False, got {type(flag).__name__} {flag!r:.60}"
    return None


ScriptItem = Any

#: The keys of a scripted dict item, and of a tool call written as a dict.
_ITEM_KEYS = frozenset({"text", "tool_calls", "reasoning", "usage", "stop_reason"})
_CALL_KEYS = frozenset({"id", "name", "arguments", "raw_arguments", "invalid"})


def _copied(value: Any) -> Any:
    """A deep copy of a scripted call or response (the script is replayable); one whose values
    nest too deeply to copy (arguments thousands of levels deep, as a model could send) is
    copied one level down, so the loop answers it as it answers such a model."""
    try:
        return copy.deepcopy(value)
    except RecursionError:
        return copy.copy(value)


def _function_name(function: Any) -> str:
    """A scripted function's name as written (``answer``, ``Script.answer``, ``<lambda>``), or its
    ``repr`` for a callable without one (a ``functools.partial``, an object with ``__call__``)."""
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if isinstance(name, str) and name:
        return name
    return _text_of(function)[:100]


def _described(exc: BaseException) -> str:
    """``"KeyError: 'price'"``: the exception's type and text (its type alone when it has none)."""
    text = _text_of(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _scripted_usage(given: dict[Any, Any], n: int) -> Usage:
    """The :class:`Usage` of scripted item ``n``'s ``usage`` dict (``requests`` is always 1).
    Raises :class:`ConfigurationError` for a key that is not a :class:`Usage` counter (with the
    closest) and a count that is not a whole number (or ``None``); a negative count is kept."""
    from dataclasses import fields

    from ..design.suggest import did_you_mean

    names = [f.name for f in fields(Usage)]
    for key in given:
        if key not in names:
            hint = did_you_mean(key, names) if isinstance(key, str) else None
            raise ConfigurationError(
                f"scripted item {n}: usage has no counter {key!r}.{' ' + hint if hint else ''} Its counters, "
                f"toolwire's names on every API: {', '.join(names)}"
            )
    try:
        usage = Usage.from_dict({**given, "requests": 1})
    except TypeError as exc:
        raise ConfigurationError(f"scripted item {n}: {exc}") from None
    # (a negative count is taken as given: it stands for a vendor that sent one, which the loop's
    # token limits treat as a count they cannot check)
    return usage


class ScriptedModel(_OfflineModel):
    """Returns scripted responses in order.

    ``responses`` (setting, a list) items may be: a :class:`Response`; a ``str`` (a final text
    answer); a :class:`ToolCall` or list of them (one response asking for those calls; empty ids
    become ``call_<n>``); a ``dict`` ``{"text": ..., "tool_calls": [...], "reasoning": ...,
    "usage": {...}}``; or a callable ``f(request) -> item`` (sync or async). ``respond`` (setting)
    may instead be one callable used for every request. Raises :class:`ConfigurationError` when
    ``responses`` is not a list (a lone ``"done"`` would be read as four answers, ``"d"``, ``"o"``,
    ...), ``respond`` is not callable, both are given, or the script has no response left; and,
    during a run, when a callable raises an exception that is not a toolwire error (its text names
    the function, the exception is chained as ``__cause__``, and the run's partial state is on
    ``run_state`` as for any error that ends a run). A toolwire error a callable raises (a
    :class:`~toolwire.errors.ProviderError` to test a failed request) ends the run as raised.
    """

    provider = "scripted"

    def __init__(self, model_id: str = "scripted", **settings: Any) -> None:
        super().__init__(model_id, **settings)
        responses = settings.get("responses")
        respond = settings.get("respond")
        if responses is not None and (
            isinstance(responses, (str, bytes, dict, Response, ToolCall)) or not isinstance(responses, Iterable)
        ):
            one = (
                f" (one answer: responses=[{responses!r:.40}])"
                if isinstance(responses, str)
                else " (one item: put it in a list, responses=[item])"
                if isinstance(responses, (Response, ToolCall))
                else ""
            )
            raise ConfigurationError(
                f"the scripted provider's responses must be a list of items, one per request, got "
                f"{type(responses).__name__}{one}"
            )
        if respond is not None and not callable(respond):
            raise ConfigurationError(
                f"the scripted provider's respond must be a function of the request, got {type(respond).__name__}"
            )
        if respond is not None and responses:
            raise ConfigurationError(
                "the scripted provider takes responses=[...] or respond=<function>, not both (respond "
                "answers every request, so the responses would never be used)"
            )
        self._script: list[ScriptItem] = list(responses or [])
        self._respond: Callable[[ModelRequest], Any] | None = respond
        if not self._script and self._respond is None and responses is not None:
            raise ConfigurationError(
                "the scripted provider's responses=[] holds no response: give one item per request, e.g. "
                "responses=[call('get_weather', {'city': 'Paris'}), 'Sunny in Paris.'] (a text is a final answer)"
            )
        if not self._script and self._respond is None:
            raise ConfigurationError(
                "the scripted provider needs responses=[...] or respond=<function> (from Python: "
                "toolwire.model('scripted', responses=[...])); for a model that needs no script, as on the "
                "command line, use the 'test' provider (--model test)"
            )
        self._position = 0

    def build_request(self, messages: list[Message], **kwargs: Any) -> ModelRequest:
        """:meth:`Model.build_request <toolwire.adapter.Model.build_request>`, without the ``responses``
        and ``respond`` settings in ``settings`` (they are the script, not request fields)."""
        req = super().build_request(messages, **kwargs)
        req.settings.pop("responses", None)
        req.settings.pop("respond", None)
        return req

    @property
    def remaining(self) -> int:
        return len(self._script) - self._position

    async def send(self, request: ModelRequest) -> Response:
        """The next scripted item (or ``respond(request)``) as a :class:`Response`, ``request`` recorded
        in ``requests``; a callable item is called with the request and an awaitable awaited.
        :class:`~toolwire.errors.ConfigurationError` when the script has no item left, an item
        cannot be turned into a response, or a callable raises an exception that is not a toolwire
        error (chained as ``__cause__``; a toolwire error it raises propagates unchanged)."""
        self._refuse_provider_tools(request)
        self.requests.append(request)
        n = len(self.requests)
        function: Any = None
        item: Any = None
        if self._respond is not None:
            function = self._respond
            where = "the respond function"
        else:
            if self._position >= len(self._script):
                raise ConfigurationError(
                    f"scripted model has no response left for request {n} "
                    f"(the script has {len(self._script)}): each request takes the next item, and a "
                    "run ends only on a response without tool calls, so end the script with a final "
                    'text answer (e.g. "done") or add one item per extra request'
                )
            item = self._script[self._position]
            self._position += 1
            if callable(item) and not isinstance(item, (Response, ToolCall)):
                function = item
            where = f"scripted item {self._position}, the function"  # (1-based, as in the script)
        if function is not None:
            try:
                item = function(request)
                if hasattr(item, "__await__"):
                    item = await cast("Awaitable[Any]", item)
            except ToolwireError:  # raised on purpose (a ProviderError to test a vendor failure): as raised
                raise
            except Exception as exc:  # the script's own bug: a typed error, so the run keeps its state
                raise ConfigurationError(
                    _scrubbed(  # (a known credential the exception quotes: not repeated here)
                        f"{where} {_function_name(function)} raised {_described(exc)} on request {n}: fix the "
                        "function (its exception is this error's __cause__), or raise a toolwire error such as "
                        "ProviderError from it to test a failed request"
                    )
                ) from exc
        elif hasattr(item, "__await__"):
            item = await cast("Awaitable[Any]", item)
        return self._to_response(item, n)

    def _calls(self, calls: Iterable[Any]) -> list[ToolCall]:
        out = []
        for c in calls:
            if isinstance(c, dict):
                unknown = sorted(set(c) - _CALL_KEYS, key=str)
                if unknown or "name" not in c:
                    raise ConfigurationError(
                        f"a scripted tool call dict takes the keys {', '.join(sorted(_CALL_KEYS))} and needs 'name'; "
                        f"got {sorted(c, key=str)} (toolwire.testing.call(name, arguments) builds one)"
                    )
                c = ToolCall(
                    c.get("id") or "",
                    c["name"],
                    c.get("arguments", {}),
                    raw_arguments=c.get("raw_arguments"),
                    invalid=c.get("invalid"),
                )
            elif isinstance(c, ToolCall):
                c = _copied(c)
            else:
                raise ConfigurationError(
                    f"a scripted tool call must be a ToolCall or a dict, got {type(c).__name__} "
                    "(toolwire.testing.call(name, arguments) builds one)"
                )
            if not c.id:
                c.id = self._id()
            out.append(c)
        return out

    def _to_response(self, item: Any, n: int) -> Response:
        rid = f"scripted-{n}"
        if isinstance(item, Response):
            resp = _copied(item)
            resp.response_id = resp.response_id or rid
            resp.model = resp.model or self.model_id
            resp.provider = resp.provider or self.provider
            if resp.usage.requests == 0:
                resp.usage.requests = 1
            return resp
        if isinstance(item, str):
            return Response(
                [TextPart(item)], "end_turn", "end_turn", Usage(requests=1), self.model_id, rid, self.provider
            )
        if isinstance(item, ToolCall):
            item = [item]
        if isinstance(item, list):
            calls = self._calls(item)
            return Response(list(calls), "tool_use", "tool_use", Usage(requests=1), self.model_id, rid, self.provider)
        if isinstance(item, dict):
            unknown = sorted(set(item) - _ITEM_KEYS, key=str)
            if unknown:
                raise ConfigurationError(
                    f"scripted item {n} has unknown keys {unknown}; a dict item takes {', '.join(sorted(_ITEM_KEYS))}"
                )
            for key in ("text", "reasoning", "stop_reason"):
                if item.get(key) is not None and not isinstance(item[key], str):
                    raise ConfigurationError(f"scripted item {n}: {key!r} must be text, got {type(item[key]).__name__}")
            if item.get("stop_reason") and item["stop_reason"] not in STOP_REASONS:
                raise ConfigurationError(
                    f"scripted item {n}: 'stop_reason' must be one of {', '.join(STOP_REASONS)} (toolwire's stop "
                    f"reasons), got {item['stop_reason']!r:.40}"
                )
            if item.get("tool_calls") is not None and not isinstance(item["tool_calls"], (list, tuple)):
                raise ConfigurationError(
                    f"scripted item {n}: 'tool_calls' must be a list of calls, got {type(item['tool_calls']).__name__}"
                )
            if item.get("usage") is not None and not isinstance(item["usage"], dict):
                raise ConfigurationError(
                    f"scripted item {n}: 'usage' must be a dict of token counts, got {type(item['usage']).__name__}"
                )
            parts: list[Any] = []
            if item.get("reasoning"):
                parts.append(ReasoningPart(item["reasoning"], provider=self.provider))
            if item.get("text"):
                parts.append(TextPart(item["text"]))
            calls = self._calls(item.get("tool_calls") or [])
            parts.extend(calls)
            usage = _scripted_usage(item.get("usage") or {}, n)
            stop = item.get("stop_reason") or ("tool_use" if calls else "end_turn")
            return Response(parts, stop, stop, usage, self.model_id, rid, self.provider)
        raise ConfigurationError(f"cannot turn scripted item of type {type(item).__name__} into a response")
