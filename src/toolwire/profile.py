"""Vendor profiles: every rule of one wire API, stated as data and small functions, checked
before a request is sent.

The core holds no vendor table. Each adapter ships one :class:`Profile` subclass per API and
mode and returns it from :meth:`toolwire.adapter.Model.make_profile`; the core asks it through
:func:`toolwire.registry.profile` (lint, token costs, validation, cassette scrubbing, replay) and
the :class:`~toolwire.adapter.Model` base runs :func:`preflight` on every encoded request body:

1. :meth:`Profile.repair_request` rewrites what can be fixed without changing what the user meant
   and records each rewrite in a :class:`RequestReport`;
2. :meth:`Profile.check_request` lists what still breaks a rule (:class:`Violation`);
3. a non-empty list raises :class:`~toolwire.errors.RequestRefused` *before* the vendor SDK is
   called, naming the tool or call, the JSON pointer and the rule.

How to write a profile (adapter authors)::

    from toolwire.profile import Profile, Rule, Violation, rule_table

    class AcmeProfile(Profile):
        api = "acme"
        messages_key = "messages"          # the body's conversation list (incremental checks)
        rules = rule_table(
            Rule("acme.tool.name", "Tool names match ^[a-z_]{1,64}$.",
                 "https://docs.acme.example/tools#names", "refuse"),
        )

        def tool_name_error(self, name):
            return None if NAME.fullmatch(name) else "must match ^[a-z_]{1,64}$"

        def check_request(self, body, *, start=0):
            out = []
            for i, t in enumerate(body.get("tools", [])):
                reason = self.tool_name_error(t["name"])
                if reason:
                    out.append(Violation("acme.tool.name", f"/tools/{i}/name", reason, tool=t["name"]))
            return out

    class AcmeModel(Model):
        @classmethod
        def make_profile(cls, **settings):
            return AcmeProfile(**settings)

Every :class:`Rule` cites its ``source`` (a vendor document URL, an SDK type name, or the
vendor's quoted error text) and says what toolwire does when a request breaks it: ``repair``
(rewritten and reported), ``report`` (a documented loss, reported; the request is sent) or
``refuse`` (:class:`~toolwire.errors.RequestRefused` before sending).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from io import BytesIO
from itertools import chain, repeat
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Collection, Iterable, Iterator, Literal, Mapping, Sequence

from .errors import RequestRefused

__all__ = [
    "Action",
    "Rule",
    "Violation",
    "RequestChange",
    "RequestReport",
    "RequestRefused",
    "Profile",
    "rule_table",
    "preflight",
    "declaration_problems",
    "literal_field_values",
    "literal_value_problems",
    "value_type_problems",
    "COMMON_TOOL_NAME",
    "PrefixFold",
    "plain_copy",
]

Action = Literal["repair", "report", "refuse"]

#: The canonical tool-name rule toolwire's own :class:`~toolwire.tools.Tool` enforces (the
#: default :meth:`Profile.tool_name_error` for adapters that state none of their own).
COMMON_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class Rule:
    """One vendor rule.

    - ``id``: stable dotted id, API first (``"anthropic.schema.root-combinator"``);
    - ``summary``: the rule in one sentence;
    - ``source``: where it comes from — a vendor document URL, an SDK type
      (``"anthropic.types.ToolParam"``) or the vendor's quoted error text;
    - ``action``: what toolwire does when a request breaks it: ``"repair"``, ``"report"`` or
      ``"refuse"``.
    """

    id: str
    summary: str
    source: str
    action: Action

    def __post_init__(self) -> None:
        if self.action not in ("repair", "report", "refuse"):
            raise ValueError(f"rule {self.id!r}: action must be 'repair', 'report' or 'refuse', got {self.action!r}")
        if not self.source:
            raise ValueError(f"rule {self.id!r} has no source (vendor doc URL, SDK type or quoted error text)")

    def to_dict(self) -> dict[str, str]:
        """``{"id": str, "summary": str, "source": str, "action": "repair" | "report" | "refuse"}``."""
        return {"id": self.id, "summary": self.summary, "source": self.source, "action": self.action}


def rule_table(*rules: Rule) -> Mapping[str, Rule]:
    """A read-only ``{rule.id: rule}`` mapping; raises :class:`ValueError` on a duplicate id."""
    table: dict[str, Rule] = {}
    for r in rules:
        if r.id in table:
            raise ValueError(f"duplicate rule id {r.id!r}")
        table[r.id] = r
    return MappingProxyType(table)


@dataclass(frozen=True)
class Violation:
    """A rule a request body breaks.

    - ``rule``: the :attr:`Rule.id`;
    - ``pointer``: RFC 6901 JSON pointer into the *encoded* request body (``"/tools/2/name"``);
    - ``message``: what is wrong and what to do about it;
    - ``tool`` / ``call_id``: the tool name or tool call id concerned, when there is one.
    """

    rule: str
    pointer: str
    message: str
    tool: str | None = None
    call_id: str | None = None

    def __str__(self) -> str:
        who = []
        if self.tool:
            who.append(f"tool {self.tool!r}")
        if self.call_id:
            who.append(f"call {self.call_id!r}")
        head = (", ".join(who) + " ") if who else ""
        return f"{head}at {self.pointer or '/'}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict[str, Any]:
        """``{"rule": str, "pointer": str, "message": str, "tool": str or null, "call_id": str or
        null}``; every key is always present."""
        return {
            "rule": self.rule,
            "pointer": self.pointer,
            "message": self.message,
            "tool": self.tool,
            "call_id": self.call_id,
        }


@dataclass(frozen=True)
class RequestChange:
    """One repair preflight made to a request body: the ``rule`` repaired, the JSON ``pointer``
    (into the body as encoded, before the repair), a human ``detail``, the ``tool`` / ``call_id``
    concerned, and ``lossy`` (information the model would have used is gone: a reported loss)."""

    rule: str
    pointer: str
    detail: str
    tool: str | None = None
    call_id: str | None = None
    lossy: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{"rule": str, "pointer": str, "detail": str, "tool": str or null, "call_id": str or null,
        "lossy": bool}``; every key is always present."""
        return {
            "rule": self.rule,
            "pointer": self.pointer,
            "detail": self.detail,
            "tool": self.tool,
            "call_id": self.call_id,
            "lossy": self.lossy,
        }


@dataclass
class RequestReport:
    """Every repair preflight made to one request for one API (``api``). Empty when the body
    needed none. Shown on the turn (``Response.preflight``) and by ``toolwire lint``."""

    api: str
    changes: list[RequestChange] = field(default_factory=list)

    def add(
        self,
        rule: str,
        pointer: str,
        detail: str,
        *,
        tool: str | None = None,
        call_id: str | None = None,
        lossy: bool = False,
    ) -> None:
        """Record one repair: appends a :class:`RequestChange` with these fields to :attr:`changes`."""
        self.changes.append(RequestChange(rule, pointer, detail, tool, call_id, lossy))

    def __iter__(self) -> Iterator[RequestChange]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __bool__(self) -> bool:  # a report object is always "there"; test emptiness with len()
        return True

    @property
    def lossy(self) -> bool:
        return any(c.lossy for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        """``{"api": str, "changes": [objects]}``, each change's :meth:`RequestChange.to_dict`, in the
        order they were made."""
        return {"api": self.api, "changes": [c.to_dict() for c in self.changes]}


@dataclass(frozen=True)
class ProviderToolInfo:
    """One of a vendor's own tools, as its profile describes it.

    - ``type``: the wire type (``"bash_20250124"``, ``"web_search"``, ``"googleSearch"``);
    - ``name``: the tool name the API fixes for it (Anthropic ``"bash"``), else ``None``;
    - ``side``: ``"server"`` (the vendor runs it and returns its results in the response) or
      ``"client"`` (the model calls it like a function tool and your code runs it);
    - ``input_schema``: for a client tool, the JSON Schema of the input the model sends;
    - ``source``: where the fact comes from (SDK type name, vendor doc URL).
    """

    type: str
    name: str | None = None
    side: str = "server"
    input_schema: dict[str, Any] | None = None
    source: str = ""


class Profile:
    """The rules of one wire API in one mode. Subclass it in the adapter; every method has a
    permissive default so a third-party adapter works before it states any rule.

    Class attributes:

    - ``api``: the provider name (``"anthropic"``, ``"openai"``, ``"openai-chat"``, ``"gemini"``);
    - ``rules``: every rule by id (:func:`rule_table`), listed by the docs and ``toolwire lint``;
    - ``messages_key``: the body key holding the conversation list (``"messages"``, ``"input"``,
      ``"contents"``), so preflight checks only what is new since the last turn; ``None`` when the
      API has none;
    - ``credential_headers`` / ``credential_query_params``: request header and query parameter
      names (lower case) that carry credentials, scrubbed from recorded cassettes;
    - ``private_response_headers``: response headers naming the account or organisation, scrubbed;
    - ``pricing_provider``: the provider id in genai-prices' price data (``None``: unpriced);
    - ``telemetry_provider_name``: the OpenTelemetry GenAI ``gen_ai.provider.name`` value
      (``None``: not in the semantic conventions).

    ``Profile(**settings)`` receives the model's settings (``model`` is the model id when known);
    a mode-dependent profile (strict or not, a schema field) reads them. Unknown settings are kept
    in :attr:`settings` and otherwise ignored.

    The methods, all pure unless noted:

    - :meth:`tool_name_error` — ``None`` if a tool name is valid for this API, else the reason;
    - :meth:`translate_schema` — the input-schema dialect repair (records each change);
    - :meth:`check_request` — the violations left in an encoded body;
    - :meth:`repair_request` — repairs that keep meaning, each recorded in a :class:`RequestReport`;
    - :meth:`turn_failed` — whether a vendor stop reason means the turn failed;
    - :meth:`context_window_full` — whether a vendor stop reason means the context window filled;
    - :meth:`unparsed_call_feedback` — what to tell a model whose tool call the API could not parse;
    - :meth:`estimate_tokens` — offline token estimate of tool declarations;
    - :meth:`count_tokens` — live count through the vendor SDK (async; ``None`` when the API has
      no counting endpoint);
    - :meth:`recognizes_uri` / :meth:`recognizes_body` — whether a recorded request belongs to
      this API (replay and cassettes go by the URI alone).
    """

    api: str = ""
    rules: Mapping[str, Rule] = MappingProxyType({})
    messages_key: str | None = "messages"
    credential_headers: tuple[str, ...] = ()
    credential_query_params: tuple[str, ...] = ()
    private_response_headers: tuple[str, ...] = ()
    pricing_provider: str | None = None
    telemetry_provider_name: str | None = None
    #: Incremental repairs (``None``: the profile repairs the whole body every time). An integer
    #: ``w`` promises: when :func:`preflight` calls ``repair_request(body, report, start=s,
    #: settled=k)`` with ``k = s - w`` — which it does only when the body's fields other than the
    #: conversation are those of the last request that passed, its first ``s`` conversation entries
    #: are that request's, and that request's repairs left all of them unchanged — the repair
    #: neither changes nor re-repairs the entries before ``k`` (they need nothing: a whole-body
    #: repair would leave them as they are, because no rule relates one of them to an entry ``w``
    #: or more places after it) and repairs the rest exactly as a whole-body repair would.
    repair_window: int | None = None

    def __init__(self, api: str | None = None, **settings: Any) -> None:
        if api is not None:
            self.api = api
        self.settings: dict[str, Any] = dict(settings)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.api} ({len(self.rules)} rules)>"

    # -- names and schemas ---------------------------------------------------------------------
    def tool_name_error(self, name: object) -> str | None:
        """``None`` if ``name`` is a valid tool name for this API, else the reason (one sentence
        naming the rule). ``name`` is whatever a request body carries, so a value that is not a
        string gets a reason too. Default: toolwire's common rule :data:`COMMON_TOOL_NAME`."""
        if isinstance(name, str) and COMMON_TOOL_NAME.fullmatch(name):
            return None
        return f"it must match {COMMON_TOOL_NAME.pattern}"

    def translate_schema(self, schema: dict[str, Any], report: Any) -> dict[str, Any]:
        """The input schema rewritten into this API's dialect; every change recorded in ``report``
        (a :class:`~toolwire.schema.report.TranslationReport`). Raises
        :class:`~toolwire.errors.SchemaTranslationError` naming the pointer for what cannot be
        translated. Default: the schema unchanged."""
        return schema

    # -- requests ------------------------------------------------------------------------------
    def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
        """Every rule the encoded request ``body`` still breaks, as :class:`Violation` values;
        empty when it is valid. Pure. ``start`` is the index (in ``body[messages_key]``) of the
        first conversation entry not yet checked by an earlier turn: entries before it were valid
        and unchanged, so a profile may skip them (it may still read them for context). Default:
        no rule, no violation."""
        return []

    def repair_request(self, body: dict[str, Any], report: RequestReport, *, start: int = 0) -> dict[str, Any]:
        """``body`` with every repair that keeps the user's meaning applied, each recorded with
        :meth:`RequestReport.add`. May modify ``body`` in place and return it. Repairs that rename
        or remap (ids, names) must be deterministic so the whole conversation stays consistent.
        Default: unchanged."""
        return body

    def turn_failed(self, vendor_stop_reason: str | None) -> bool:
        """Whether the vendor's own stop reason (``Response.vendor_stop_reason``) means the turn
        failed (the tool calls in it must be answered and not run). Default: ``False``."""
        return False

    def unparsed_call_feedback(self, response: Any) -> str | None:
        """For a response that ended with no tool call because the API could not parse the call
        the model wrote (Gemini's ``MALFORMED_FUNCTION_CALL``), the text the loop sends back to
        the model as a user message so it can call the tool again (the loop does so at most
        twice in a row, within ``max_turns``); ``None`` for any other response. On the other
        APIs such a call arrives as a call with invalid arguments, answered with an ``is_error``
        result. Default: ``None``."""
        return None

    def wire_tool_names(self, names: Sequence[str]) -> Mapping[str, str]:
        """For the tool names of a request (``names``), ``{name: wire name}`` of each tool this API
        sends under another name (a name the vendor refuses or keeps for its own tools): the name
        the model is shown and calls. The loop names tools so in the texts it gives the model
        (error results, hints). Default: ``{}`` (every tool sent under its own name)."""
        return {}

    def context_window_full(self, vendor_stop_reason: str | None) -> bool:
        """Whether the vendor's own stop reason says the response stopped because the
        conversation filled the model's context window (not the output-token limit): its tool
        calls are answered, not run, and the run stops, since another request would not fit.
        Default: ``False``."""
        return False

    # -- tokens --------------------------------------------------------------------------------
    #: Whether :meth:`estimate_tokens` is exact for this API (a published tokenizer and rendering).
    token_estimate_exact: bool = False
    #: One line saying how :meth:`estimate_tokens` counts (shown by ``toolwire lint``).
    token_estimate_method: str = "estimate: o200k_base count of the JSON declarations"

    def estimate_tokens(self, tool_declarations: Sequence[dict[str, Any]]) -> int:
        """Offline estimate of the input tokens the wire ``tool_declarations`` (exactly as the
        codec puts them in the body) add to every request; ``0`` for none. Default: the
        ``o200k_base`` count of their compact JSON (a generic tokenizer, not this API's)."""
        if not tool_declarations:
            return 0
        from .design.tokens import count_text

        return sum(count_text(json.dumps(d, separators=(",", ":"), ensure_ascii=False)) for d in tool_declarations)

    async def count_tokens(self, body: dict[str, Any], **settings: Any) -> int | None:
        """Input tokens of the encoded request ``body`` counted live by the vendor (an API call
        through the vendor SDK; ``settings`` as the model's: ``api_key``, ``base_url``,
        ``http_client``, ...). ``None`` when the API has no counting endpoint. Raises
        :class:`~toolwire.errors.ProviderError` for vendor errors. Default: ``None``."""
        return None

    # -- provider tools ------------------------------------------------------------------------
    def provider_tools(self) -> Mapping[str, ProviderToolInfo]:
        """The vendor's own tools this API takes, by wire type (e.g. Anthropic
        ``"web_search_20250305"``, Responses ``"web_search"``, Gemini ``"googleSearch"``), read
        from the vendor SDK's types by the adapter. Default: none."""
        return MappingProxyType({})

    def provider_tool_problems(self, tool_type: str, settings: Mapping[str, Any]) -> list[str]:
        """What is wrong with the ``settings`` of this API's provider tool ``tool_type`` (one
        sentence each: an unknown field with the closest known one, a value of the wrong shape),
        checked against the vendor SDK's type for the declaration; empty when they fit. Read by
        ``toolwire lint``. Default: nothing checked."""
        return []

    # -- prompt caching ------------------------------------------------------------------------
    def cache_min_tokens(self, model: str | None = None) -> int | None:
        """The shortest prompt prefix, in input tokens, the vendor caches for ``model`` (a shorter
        prefix is sent and billed uncached, without an error); ``None`` when this API has no
        prompt caching or the adapter states no minimum. Read by ``toolwire lint`` to report what
        a cached prefix saves. Default: ``None``."""
        return None

    # -- usage ---------------------------------------------------------------------------------
    def primary_usage(self, usage: Any) -> tuple[int | None, int | None]:
        """The vendor's own primary input and output counters for a normalised
        :class:`~toolwire.types.Usage` (what the API itself reported as its input and output
        count, before toolwire added cache or reasoning parts to them). Used to compare decoded
        responses with recordings that list the vendor's counters. Default: unchanged."""
        return usage.input_tokens, usage.output_tokens

    def recognizes_model_id(self, model_id: str) -> bool:
        """Whether ``model_id`` (written without a provider, ``"gpt-5"``) names one of this
        vendor's models by its family prefix, so that :func:`toolwire.model` can suggest
        ``"<provider>:<model_id>"``. A hint only: nothing is refused or routed by it. Default no."""
        return False

    # -- recordings ----------------------------------------------------------------------------
    def recognizes_uri(self, uri: str) -> bool:
        """Whether a request URI is this API's model-turn endpoint, the one whose request and
        answer the adapter decodes (``toolwire replay`` and cassette reading decide an
        interaction's API by its URI alone; other endpoints of the vendor, such as token counting
        or embeddings, are not replayed). Default no."""
        return False

    def recognizes_body(self, body: Any) -> bool:
        """Whether a request body has this API's shape (for :func:`toolwire.testing.cassettes.detect_api`
        given a body, asked only when no profile recognised the URI; replay does not ask it, as
        another endpoint's body can have the same shape: an embeddings request has ``input``). Default no."""
        return False

    def requested_stream(self, uri: str, body: Any) -> bool:
        """Whether a recorded request to ``uri`` asked for a streamed answer. Default: the body's
        ``"stream": true`` (APIs that say it in the URL override this)."""
        return isinstance(body, dict) and body.get("stream") is True

    def replay_target(self, uri: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The model id and model settings (``base_url``, API version, ...) that send a recorded
        request to ``uri`` again, for ``toolwire replay``. Default: ``body["model"]`` and the
        URI's origin as ``base_url``."""
        from urllib.parse import urlsplit

        parts = urlsplit(uri)
        return str(body.get("model") or "unknown"), {"base_url": f"{parts.scheme}://{parts.netloc}"}


def declaration_problems(declaration: Mapping[str, Any], sdk_type: Any) -> list[str]:
    """The problems of a tool ``declaration`` (a JSON object) against ``sdk_type``, the vendor
    SDK's type for it (a ``TypedDict`` such as ``anthropic.types.WebSearchTool20250305Param`` or a
    pydantic model such as ``google.genai.types.GoogleSearch``, handed over by the adapter): each
    field the type does not have (with the closest field name), then each validation error of
    :class:`pydantic.TypeAdapter` (on the declaration's JSON text; strict for a ``TypedDict``) as
    ``"<field path>: <message>"``. Empty when it fits."""
    import difflib

    from pydantic import BaseModel, TypeAdapter, ValidationError

    model = isinstance(sdk_type, type) and issubclass(sdk_type, BaseModel)
    if model:
        fields = sdk_type.model_fields
        known = set(fields) | {f.alias for f in fields.values() if f.alias}
    else:
        known = set(getattr(sdk_type, "__required_keys__", ())) | set(getattr(sdk_type, "__optional_keys__", ()))
    listed = model or hasattr(sdk_type, "__required_keys__")  # a type with no fields has none to set
    problems: list[str] = []
    for key in declaration:
        if listed and key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; its fields: {', '.join(sorted(known)) or 'none'}"
            problems.append(f"unknown field {key!r}{hint}")
    try:  # as the vendor reads it: JSON; a TypedDict strictly (a number sent as text is an error),
        # a pydantic model by its own configuration (it parses its timestamps and enums from text)
        TypeAdapter(sdk_type).validate_json(json.dumps(dict(declaration)), strict=None if model else True)
    except ValidationError as exc:
        for err in exc.errors():
            if err.get("type") == "extra_forbidden":
                continue  # reported above with the closest name
            where = "/".join(str(x) for x in err.get("loc", ())) or "(the declaration)"
            problems.append(f"{where}: {err.get('msg')}")
    except Exception as exc:  # the SDK's own validator failed on a value of the wrong type
        # google-genai's enumerations read a value with value.upper() (google.genai._common
        # CaseInSensitiveEnum._missing_), which raises AttributeError for a number or a list
        if not model:
            return [*problems, f"(the declaration): the SDK type could not read it ({type(exc).__name__}: {exc})"]
        misfits: list[str] = []
        named = _enum_names(dict(declaration), [sdk_type], (), misfits)
        try:
            TypeAdapter(sdk_type).validate_json(json.dumps(named))
        except ValidationError as again:
            for err in again.errors():
                if err.get("type") != "extra_forbidden":
                    where = "/".join(str(x) for x in err.get("loc", ())) or "(the declaration)"
                    misfits.append(f"{where}: {err.get('msg')}")
        except Exception as again:  # as above, for a value _enum_names does not reach
            misfits.append(f"(the declaration): the SDK type could not read it ({type(again).__name__}: {again})")
        problems += misfits
    return problems


def _enum_names(value: Any, types: list[Any], path: tuple[str, ...], misfits: list[str]) -> Any:
    """A copy of ``value`` (JSON read as one of ``types``: pydantic models, enumerations, lists of
    them) in which each enumeration's value that is not text is a member's name, for the SDK's
    validator to read the rest: an integer is taken as the vendor's proto3 JSON takes it ("Parsers
    accept both enum names and integer values", protobuf.dev/programming-guides/json), any other
    value is added to ``misfits`` as ``"<path>: Input should be one of ..."``. A model's fields are
    read by name or alias."""
    import enum
    import typing

    from pydantic import BaseModel

    for tp in types:
        if typing.get_origin(tp) is list and isinstance(value, list):
            item_types = [m for a in typing.get_args(tp) for m in _type_members(a)]
            return [_enum_names(item, item_types, (*path, str(i)), misfits) for i, item in enumerate(value)]
        if isinstance(tp, type) and issubclass(tp, enum.Enum) and not isinstance(value, str):
            members = list(tp)
            if not (type(value) is int and members):
                allowed = ", ".join(repr(m.value) for m in members)
                misfits.append(f"{'/'.join(path) or '(the declaration)'}: Input should be one of {allowed}")
            return members[0].value if members else value
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(value, dict):
            fields: dict[str, Any] = {}
            for name, field in tp.model_fields.items():
                fields[name] = field
                if field.alias:
                    fields[field.alias] = field
            return {
                key: _enum_names(item, _type_members(fields[key].annotation), (*path, str(key)), misfits)
                if key in fields
                else item
                for key, item in value.items()
            }
    return value


def _type_members(tp: Any) -> list[Any]:
    """``tp`` without ``Annotated``, ``Required``/``NotRequired``/``ReadOnly`` and type aliases,
    a ``Union``/``Optional`` flattened into its members."""
    import types
    import typing

    alias = getattr(tp, "__value__", None)  # a ``type X = ...`` alias
    if alias is not None and typing.get_origin(tp) is None:
        return _type_members(alias)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated or getattr(origin, "_name", None) in ("Required", "NotRequired", "ReadOnly"):
        return _type_members(args[0])
    if origin is typing.Union or origin is types.UnionType:
        return [m for a in args for m in _type_members(a)]
    return [tp]


def _field_types(sdk_type: Any, path: tuple[str, ...]) -> list[Any] | None:
    """The types the members of ``sdk_type`` (a ``TypedDict`` or a union of them) give the field at
    ``path``, one step per field name through every member that has it; ``None`` when no member
    has the field or the SDK module leaves a forward reference unresolved."""
    import typing

    level = [sdk_type]
    for name in path:
        found = []
        for tp in level:
            for member in _type_members(tp):
                if not (isinstance(member, type) and hasattr(member, "__total__")):
                    continue  # not a TypedDict
                try:
                    hints = typing.get_type_hints(member, include_extras=True)
                except Exception:  # a forward reference the SDK module cannot resolve
                    return None
                if name in hints:
                    found.append(hints[name])
        if not found:
            return None
        level = found
    return level


@functools.lru_cache(maxsize=256)
def object_only_field(sdk_type: Any, path: tuple[str, ...]) -> bool:
    """Whether the vendor SDK types the field at ``path`` of ``sdk_type`` (as
    :func:`literal_field_values` reads it) as an object or null only: every member of its type a
    ``TypedDict`` or ``None``. ``False`` when no member has the field or the type admits another
    kind of value."""
    level = _field_types(sdk_type, path)
    if level is None:
        return False
    members = [m for tp in level for m in _type_members(tp)]
    return bool(members) and all(m is type(None) or (isinstance(m, type) and hasattr(m, "__total__")) for m in members)


@functools.lru_cache(maxsize=256)
def literal_field_values(sdk_type: Any, path: tuple[str, ...]) -> tuple[tuple[Any, ...], bool] | None:
    """The values the field at ``path`` of ``sdk_type`` may take, when the vendor SDK types it
    with ``Literal`` values only: ``(values, nullable)`` (``nullable``: ``Optional``, JSON null
    allowed). ``sdk_type`` is a ``TypedDict`` (or a union of them) as the SDKs type a request body,
    handed over by the adapter (``anthropic.types.MessageCreateParamsBase``); each step of
    ``path`` names a field of the members that have it (``("thinking", "type")`` reads every member
    of the ``thinking`` union). ``None`` when the type also admits other values (``str``, a number,
    an object: the SDK names no closed set) or no member has the field."""
    import typing

    level = _field_types(sdk_type, path)
    if level is None:
        return None
    values: list[Any] = []
    nullable = False
    for tp in level:
        for member in _type_members(tp):
            if member is type(None):
                nullable = True
            elif typing.get_origin(member) is Literal:
                values.extend(typing.get_args(member))
            else:
                return None
    return tuple(dict.fromkeys(values)), nullable


@functools.lru_cache(maxsize=256)
def object_field_keys(sdk_type: Any, name: str) -> frozenset[str] | None:
    """The field names the vendor SDK gives the object field ``name`` of ``sdk_type`` (a request
    body ``TypedDict``, as :func:`literal_field_values` reads it): the keys of every ``TypedDict``
    member of its type, required or not. ``None`` when the SDK types the field as something else
    than objects (a string, a list, a mapping of any keys) or has no such field."""
    if not object_only_field(sdk_type, (name,)):
        return None
    keys: set[str] = set()
    for tp in _field_types(sdk_type, (name,)) or ():
        for member in _type_members(tp):
            if isinstance(member, type) and hasattr(member, "__total__"):
                keys |= set(getattr(member, "__required_keys__", ())) | set(getattr(member, "__optional_keys__", ()))
    return frozenset(keys) or None


def object_key_problems(fields: Mapping[str, Any], sdk_type: Any, where: str = "") -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each key of an object-valued field of ``fields`` (request
    body fields, such as a model's settings) that the SDK's ``TypedDict`` for that field does not
    have (:func:`object_field_keys`): ``reasoning={"effort": "low", "budget": 5}`` at
    ``/reasoning/budget``. The APIs refuse such a key ("Unknown parameter: 'reasoning.budget'.",
    "output_config.efort: Extra inputs are not permitted"). The message names the keys the field
    takes and the closest one; a field the installed SDK does not know yet can still be sent in
    ``extra_body``. Fields the SDK leaves open, and values that are not objects, are not read."""
    import difflib

    out: list[tuple[str, str]] = []
    for name, value in fields.items():
        if not isinstance(value, Mapping) or not isinstance(name, str):
            continue
        keys = object_field_keys(sdk_type, name)
        if keys is None:
            continue
        for key in value:
            if key in keys:
                continue
            close = difflib.get_close_matches(str(key), sorted(keys), 1, 0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            sdk = f" ({where})" if where else ""
            out.append(
                (
                    f"/{name}/{key}",
                    f"{name} has no field {key!r}{hint}: it takes {', '.join(sorted(keys))}{sdk}; a field the "
                    "installed SDK does not know yet can go in extra_body={...}",
                )
            )
    return out


def literal_value_problems(
    body: Mapping[str, Any], sdk_type: Any, paths: Iterable[tuple[str, ...]], where: str = ""
) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each field of ``body`` at one of ``paths`` whose value is not
    one the SDK type allows (:func:`literal_field_values`; a field the SDK leaves open, or absent,
    is not checked). ``where`` names the SDK type in the message. The message names the allowed
    values. An object on the way to such a field (``reasoning`` of ``reasoning.effort``) given as
    another kind of value than an object or null (``reasoning="high"``) is a problem too, once,
    at its own pointer: the SDK types it as an object."""
    out: list[tuple[str, str]] = []
    not_objects: set[tuple[str, ...]] = set()
    for path in paths:
        holder: Any = body
        for k, name in enumerate(path[:-1]):
            parent = holder
            holder = holder.get(name) if isinstance(holder, Mapping) else None
            if holder is None or isinstance(holder, Mapping) or not isinstance(parent, Mapping):
                continue
            at = tuple(path[: k + 1])
            if at not in not_objects and object_only_field(sdk_type, at):
                not_objects.add(at)
                allowed = literal_field_values(sdk_type, tuple(path))
                example = (
                    f"{{{path[k + 1]!r}: {allowed[0][0]!r}}}"
                    if allowed and allowed[0] and k + 2 == len(path)
                    else "{...}"
                )
                sdk = f" ({where})" if where else ""
                out.append(
                    (
                        "/" + "/".join(at),
                        f"{'.'.join(at)} {holder!r} is not an object: give one, such as {example}{sdk}",
                    )
                )
            holder = None
            break
        if not isinstance(holder, Mapping) or path[-1] not in holder:
            continue
        value = holder[path[-1]]
        allowed = literal_field_values(sdk_type, tuple(path))
        if allowed is None:
            continue
        values, nullable = allowed
        if (value is None and nullable) or (isinstance(value, str) and value in values):
            continue
        names = ", ".join(repr(v) for v in values) + (" or null" if nullable else "")
        sdk = f" ({where})" if where else ""
        out.append(
            (
                "/" + "/".join(path),
                f"{'.'.join(path)} {value!r} is not a value the API takes: use one of {names}{sdk}",
            )
        )
    return out


#: A value's kind as JSON names it, for :func:`value_type_problems`' messages.
def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"


#: Generic origins read as JSON arrays (``Iterable[X]``, ``Sequence[X]``, ``List[X]``, ...).
_ARRAY_ORIGINS = frozenset(
    {"list", "tuple", "set", "frozenset", "Sequence", "MutableSequence", "Iterable", "Collection", "SequenceNotStr"}
)
_OBJECT_ORIGINS = frozenset({"dict", "Mapping", "MutableMapping"})


class _Open(Exception):
    """The type leaves the value open (``Any``, ``object``, a type the walker cannot read)."""


@functools.lru_cache(maxsize=512)
def _object_fields(tp: Any) -> dict[str, tuple[Any, str]] | None:
    """The fields of a ``TypedDict`` or pydantic model ``tp``: wire name → (type, the SDK name of
    the field as ``Type.field``); ``None`` when ``tp`` is neither or its hints do not resolve."""
    import typing

    name = getattr(tp, "__qualname__", repr(tp))
    module = getattr(tp, "__module__", "")
    shown = f"{module}.{name}" if module and not module.startswith("builtins") else name
    if isinstance(tp, type) and hasattr(tp, "__total__") and hasattr(tp, "__required_keys__"):
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
        except Exception:  # a forward reference the SDK module cannot resolve
            return None
        return {k: (v, f"{shown}.{k}") for k, v in hints.items()}
    fields = getattr(tp, "model_fields", None) if isinstance(tp, type) else None
    if isinstance(fields, dict):  # a pydantic model (google.genai.types): its names and aliases
        out: dict[str, tuple[Any, str]] = {}
        for k, f in fields.items():
            entry = (getattr(f, "annotation", Any), f"{shown}.{k}")
            out[k] = entry
            alias = getattr(f, "alias", None)
            if isinstance(alias, str):
                out[alias] = entry
        return out
    return None


def _describe(tp: Any) -> str:
    """What a JSON value of type ``tp`` (one member, no union) is, in words."""
    import enum
    import typing

    if tp is type(None):
        return "null"
    if typing.get_origin(tp) is Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(tp))
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if tp is bytes:
        return "base64 text"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "a string"
    origin = typing.get_origin(tp) or tp
    name = getattr(origin, "__name__", "")
    if name in _ARRAY_ORIGINS:
        return "an array"
    if name in _OBJECT_ORIGINS or _object_fields(tp) is not None:
        return "an object"
    return repr(tp)


def _type_errors(
    value: Any, tp: Any, path: tuple[Any, ...], source: str, proto: bool = False, open_variants: bool = False
) -> list[tuple[tuple[Any, ...], str, str, Any]]:
    """The ``(path, expected, SDK source, value)`` of each place where ``value`` cannot be of type
    ``tp`` (read as proto3 JSON with ``proto``); raises :class:`_Open` when ``tp`` leaves ``value`` open
    (with ``open_variants``, also when ``value`` is an object whose tag fits no object member:
    :func:`_tag_mismatch`)."""

    members = _type_members(tp)
    if not members:
        raise _Open
    ranked: list[tuple[tuple[bool, int], list[tuple[tuple[Any, ...], str, str, Any]]]] = []
    here: list[str] = []
    other_tags = False
    for m in members:
        if open_variants and isinstance(value, Mapping) and _tag_mismatch(value, m, True):
            other_tags = True  # (another variant: it would rank after any whose tag fits, so it is not walked)
            continue
        errors = _member_errors(value, m, path, source, proto, open_variants)
        if errors is None:  # the value is not of this member's kind at all
            here.append(_describe(m))
            continue
        if not errors:
            return []
        ranked.append(((False if open_variants else _tag_mismatch(value, m), len(errors)), errors))
    if other_tags and not ranked:
        raise _Open  # a variant the SDK does not know (a block type newer than it): the codec keeps it whole
    if not ranked:
        return [(path, _either(here), source, value)]
    least = min(rank for rank, _ in ranked)
    tied = [errors for rank, errors in ranked if rank == least]
    if len(tied) == 1:
        return tied[0]
    # several members of the value's kind fail alike: one problem per place, naming what each takes
    merged: dict[tuple[Any, ...], tuple[list[str], list[str], Any]] = {}
    for errors in tied:
        for p, expected, src, v in errors:
            entry = merged.setdefault(p, ([], [], v))
            entry[0].append(expected)
            entry[1].append(src)
    if len(merged) > len(tied[0]):  # the members disagree on where: the value as a whole fits none
        return [(path, _either([_describe(m) for m in members]), source, value)]
    return [(p, _either(exp), ", ".join(dict.fromkeys(src)), v) for p, (exp, src, v) in merged.items()]


def _either(expected: list[str]) -> str:
    """The words of :func:`_describe` for several types joined: ``one of`` lists made one."""
    values = [e[len("one of ") :] for e in expected if e.startswith("one of ")]
    rest = [e for e in expected if not e.startswith("one of ")]
    if values:
        rest.insert(0, "one of " + ", ".join(values))
    return " or ".join(dict.fromkeys(rest))


def _tag_mismatch(value: Any, m: Any, variants: bool = False) -> bool:
    """Whether ``value`` (an object) gives a field that ``m`` (an object type) types with
    ``Literal`` values only (a tag such as ``type``) another value: ``m`` is then another kind of
    object than the one meant, and ranks after the members whose tags fit. With ``variants``
    (a union of tagged variants, :func:`value_type_problems` ``open_variants``), a tag typed
    ``Optional[Literal[...]]`` counts too (``anthropic.types.ToolParam.type``), and so does a
    ``Required`` tag ``value`` leaves out."""
    if not isinstance(value, Mapping):
        return False
    for k, values, required, optional in _tags(m, variants):
        if k not in value:
            if required:
                return True
            continue
        if optional and value[k] is None:
            continue  # (Optional: null is no other tag)
        if not any(_same_json_value(value[k], a) for a in values):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _tags(m: Any, variants: bool) -> tuple[tuple[str, tuple[Any, ...], bool, bool], ...]:
    """The tag fields of object type ``m`` for :func:`_tag_mismatch`: ``(name, the literal values,
    whether it must be given, whether null fits)``; with ``variants`` an ``Optional[Literal]``
    field is a tag and a ``Required`` one must be given."""
    import typing

    out: list[tuple[str, tuple[Any, ...], bool, bool]] = []
    for k, (ftp, _) in (_object_fields(m) or {}).items():
        every = _type_members(ftp)
        members = [x for x in every if x is not type(None)] if variants else every
        if not members or not all(typing.get_origin(x) is Literal for x in members):
            continue
        values = tuple(a for x in members for a in typing.get_args(x))
        out.append((k, values, variants and _required(m, ftp), variants and len(members) < len(every)))
    return tuple(out)


def _required(m: Any, ftp: Any) -> bool:
    """Whether the field of ``TypedDict`` ``m`` typed ``ftp`` (read with its extras) must be given:
    ``Required[...]``, or any field of a total ``TypedDict`` not ``NotRequired[...]`` (read from the
    hint: ``__required_keys__`` misses the ``Required`` of a module with string annotations)."""
    import typing

    name = getattr(typing.get_origin(ftp), "_name", None)
    if name == "Required":
        return True
    return bool(getattr(m, "__total__", False)) and name != "NotRequired"


def _same_json_value(value: Any, literal: Any) -> bool:
    """Whether ``value`` is the JSON value ``literal`` (a ``Literal`` argument): equal and of the
    same JSON kind — ``True == 1`` in Python but the JSON values differ, while a ``str`` (or
    ``int``) subclass such as a ``str`` Enum member is written as the plain value by ``json.dumps``."""
    if value != literal:
        return False
    if isinstance(literal, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(literal, bool)
    for kind in (str, int):
        if isinstance(literal, kind):
            return isinstance(value, kind)
    return type(value) is type(literal)


def _integral_text_or_number(value: str | float) -> bool:
    """Whether ``value`` (a float, or text in proto3 JSON) is a finite number of integral value."""
    import math

    if isinstance(value, str):
        text = value.strip()
        if not text or text.lower() in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            return False
        if text.lstrip("-").isdigit():
            return True
        try:
            number = float(text)
        except ValueError:
            return False
    else:
        number = float(value)
    return math.isfinite(number) and number.is_integer()


def _member_errors(
    value: Any, m: Any, path: tuple[Any, ...], source: str, proto: bool = False, open_variants: bool = False
) -> list[tuple[tuple[Any, ...], str, str, Any]] | None:
    """:func:`_type_errors` for one union member ``m``: ``None`` when ``value`` is not of ``m``'s
    kind, the errors inside it otherwise (empty: it fits); raises :class:`_Open`."""
    import enum
    import typing

    if m is Any or m is object:
        raise _Open
    if m is type(None):
        return [] if value is None else None
    origin = typing.get_origin(m)
    if origin is Literal:
        args = typing.get_args(m)
        return [] if any(_same_json_value(value, a) for a in args) else None
    if m is bool:
        return [] if isinstance(value, bool) else None
    if m is int:
        # proto3 JSON (https://protobuf.dev/programming-guides/json/, int32/int64): "Either numbers
        # or strings are accepted. ... Exponent notation (such as 1e2) is also accepted": a number
        # or text of an integral value (1.0, "1e3") is that integer
        if proto and isinstance(value, (str, float)) and not isinstance(value, bool):
            return [] if _integral_text_or_number(value) else None
        return [] if isinstance(value, int) and not isinstance(value, bool) else None
    if m is float:  # an integer is a JSON number too
        if proto and isinstance(value, str):  # "1.5", "NaN", "Infinity" as text
            try:
                float(value)
            except ValueError:
                return None
            return []
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if m is str:
        return [] if isinstance(value, str) else None
    if m is bytes and proto:
        # proto3 JSON (https://protobuf.dev/programming-guides/json/, bytes): "JSON value will be
        # the data encoded as a string using standard base64 encoding"
        return [] if isinstance(value, str) else None
    if isinstance(m, type) and issubclass(m, enum.Enum):
        kinds = {type(e.value) for e in m} | ({int} if proto else set())  # proto3 JSON: by name or number
        return [] if any(isinstance(value, k) for k in kinds) and not isinstance(value, bool) else None
    name = getattr(origin or m, "__name__", "")
    if name in _ARRAY_ORIGINS:
        args = typing.get_args(m)
        if proto and isinstance(value, Mapping) and args and _holds_objects(args[0]):
            # proto3 JSON, as the Gemini API reads it, takes one message for a repeated field of
            # messages (a recorded request's "tools": {...} was answered HTTP 200; Vertex AI's REST
            # samples write "parts": {"text": ...}): the object is that one item
            return _type_errors(value, args[0], path, source, proto, open_variants)
        if not isinstance(value, (list, tuple)):
            return None
        out: list[tuple[tuple[Any, ...], str, str, Any]] = []
        for i, item in enumerate(value):
            if not args:
                break
            item_tp = args[0] if name != "tuple" or (len(args) == 2 and args[1] is Ellipsis) else args[i % len(args)]
            try:
                out += _type_errors(item, item_tp, (*path, i), source, proto, open_variants)
            except _Open:
                continue
        return out
    if name in _OBJECT_ORIGINS:
        if not isinstance(value, Mapping):
            return None
        args = typing.get_args(m)
        out = []
        for k, item in value.items():
            if len(args) == 2:
                try:
                    out += _type_errors(item, args[1], (*path, k), source, proto, open_variants)
                except _Open:
                    continue
        return out
    fields = _object_fields(m)
    if fields is None:
        raise _Open  # a class the walker does not read (a protocol, a file type, ...)
    if not isinstance(value, Mapping):
        return None
    out = []
    for k, item in value.items():
        field = fields.get(k) if isinstance(k, str) else None
        if field is None:
            continue  # unknown keys are object_key_problems' (and the vendor's) to name
        try:
            out += _type_errors(item, field[0], (*path, k), field[1], proto, open_variants)
        except _Open:
            continue
    return out


def _holds_objects(tp: Any) -> bool:
    """Whether a member of ``tp`` is an object type (a ``TypedDict``, a pydantic model, a mapping)."""
    import typing

    for m in _type_members(tp):
        name = getattr(typing.get_origin(m) or m, "__name__", "")
        if name in _OBJECT_ORIGINS or _object_fields(m) is not None:
            return True
    return False


def value_type_problems(
    fields: Mapping[str, Any], sdk_type: Any, *, proto_json: bool = False, open_variants: bool = False
) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each value in ``fields`` (request-body fields, such as a
    model's settings) that cannot be of the type the vendor SDK gives that field in ``sdk_type``
    (a request body ``TypedDict`` such as ``anthropic.types.MessageCreateParamsBase``, or a
    pydantic model, handed over by the adapter), walked into arrays, mappings and nested objects:
    ``inference_geo=123`` where the SDK says ``Optional[str]`` is refused at ``/inference_geo``.

    JSON types: ``bool`` is not an integer, an integer is a number (``float``), ``None`` fits
    ``Optional``, a ``Literal`` takes its own values, a ``Union`` any member; arrays are lists or
    tuples. Fields the SDK does not type, keys an object type does not have, and values under a
    type the walker cannot read (``object``, ``Any``, a class that is not a ``TypedDict`` or
    pydantic model) are not checked. Each message names the expected type and the SDK field it
    comes from (``module.Type.field``).

    A ``str`` or ``int`` subclass (a ``StrEnum`` member) is the JSON string or integer it is written as.

    With ``proto_json`` (an API that reads its body as proto3 JSON, such as Gemini's), integer
    and number fields also take their value as text (``"5"``, ``"1e3"``, ``"NaN"``), an integer
    field a number of integral value (``1.0``), and enum fields a number,
    as https://protobuf.dev/programming-guides/json/ says parsers accept (and ``bytes`` fields base64 text);
    a repeated field of objects also takes one object, read as a one-item list (as the Gemini API does).

    With ``open_variants`` (an imported body, whose codec keeps a variant it does not know whole),
    an object whose tag (a field typed with ``Literal`` values only, such as a content block's
    ``type``) fits no object member of its union is not checked, instead of being refused as
    none of them: a block type newer than the SDK."""
    hints = _object_fields(sdk_type)
    if hints is None:
        return []
    out: list[tuple[str, str]] = []
    for name, value in fields.items():
        field = hints.get(name) if isinstance(name, str) else None
        if field is None:
            continue
        try:
            errors = _type_errors(value, field[0], (name,), field[1], proto_json, open_variants)
        except (_Open, RecursionError):  # (a value nested past the interpreter's depth, or holding itself)
            continue
        for path, expected, source, got in errors:
            shown = str(path[0]) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])
            out.append(
                (
                    "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path),
                    f"{shown} {got!r:.60} is {_json_kind(got)}, but the API takes {expected} there "
                    f"(the SDK types it {source})",
                )
            )
    return out


def json_kind_problems(fields: Mapping[str, Any], sdk_type: Any) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each value in ``fields`` (the top-level fields of a request
    body) whose JSON kind (string, number, boolean, object, array, null) is none of those the
    vendor SDK's request type ``sdk_type`` (a ``TypedDict``) allows that field: ``{"metadata":
    "u1"}`` where ``CompletionCreateParamsBase.metadata`` is ``Optional[Metadata]`` (an object)
    is refused at ``/metadata``. Only the kind is checked, not the value inside it nor a
    ``Literal``'s value (a compatible server may take values the SDK does not list), unlike
    :func:`value_type_problems`. A field the SDK does not type, or types with a type whose kind
    cannot be read (``object``, ``Any``, a class), is not checked."""
    hints = _object_fields(sdk_type)
    if hints is None:
        return []
    out: list[tuple[str, str]] = []
    for name, value in fields.items():
        field = hints.get(name) if isinstance(name, str) else None
        if field is None:
            continue
        kinds = _kinds(field[0])
        if kinds is None:
            continue
        got = _json_kind(value)
        if got in kinds or (got == "an integer" and "a number" in kinds):
            continue
        shown = " or ".join(sorted(kinds - {"null"})) or "null"
        out.append(
            (
                "/" + name.replace("~", "~0").replace("/", "~1"),
                f"{name} {value!r:.60} is {got}, but the API takes {shown} there (the SDK types it {field[1]})",
            )
        )
    return out


def nested_kind_problems(
    fields: Mapping[str, Any],
    sdk_type: Any,
    *,
    open_fields: Collection[str] = (),
    also: Mapping[str, Collection[str]] | None = None,
    at: tuple[str | int, ...] = (),
) -> list[tuple[str, str]]:
    """:func:`json_kind_problems` walked into the values: ``(JSON pointer, message)`` for each
    place in ``fields`` (the fields of a request body, or of one object of it) whose JSON kind is
    none of those the vendor SDK's type allows there, reading arrays item by item and objects
    field by field through the SDK's ``TypedDict`` s: ``{"messages": [..., {"role": "tool",
    "content": 5}]}`` against ``CompletionCreateParamsBase`` is refused at
    ``/messages/1/content`` (``ChatCompletionToolMessageParam.content`` is text or an array).

    As in :func:`json_kind_problems` only kinds are checked, never a ``Literal``'s values (a
    compatible server, or an API newer than the SDK, takes values the SDK does not list). A
    ``null`` passes where the SDK's type is ``Optional`` and in an object's field the SDK does not
    require (the API reads it as absent: a Responses ``function_call`` item sent with ``"status":
    null`` by pydantic-ai got a 200, recording ``pai_simple_response_with_tool_call``), not in a
    required one (``FunctionCallOutput.output``). An object under a union of ``TypedDict`` s is
    read as each member whose tag fields (those typed with ``Literal`` values only, such as
    ``role`` or ``type``) it does not contradict and whose required tags it has, of those the
    members that know the most of its keys; one that fits none (a content part of a type newer
    than the SDK) is not looked into, nor is a value under a type whose kind cannot be read
    (``object``, ``Any``, a class). When several members fit the tags, the value passes when it
    fits one of them. A tag of another kind than every member's (``tool_choice: {"type": 5}``) is
    refused at the tag, except in an array entry (a message, item or content part of a blank
    ``type`` or ``role``, which the importers leave out).

    ``open_fields``: SDK fields (named as in the messages, ``module.Type.field``) not to check,
    those the caller reads in its own way; ``also``: SDK field → further kinds (as
    :func:`_json_kind` names them: ``"an object"``, ...) the caller accepts there beyond the SDK's
    (they are not named in the message, which says what the API takes); ``at``: the place of
    ``fields`` in the body (``("messages", 2)``), which the pointers and messages start with."""
    hints = _object_fields(sdk_type)
    if hints is None:
        return []
    out: list[tuple[str, str]] = []
    for name, value in fields.items():
        field = hints.get(name) if isinstance(name, str) else None
        if field is None or field[1] in open_fields:
            continue
        try:
            errors = _kind_errors(value, _kind_plan(field[0]), (*at, name), field[1], open_fields, also or {})
        except RecursionError:  # (a value nested past the interpreter's depth, or holding itself)
            continue
        for path, kinds, source, got in errors:
            shown = str(path[0]) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])
            expected = " or ".join(sorted(kinds - {"null"})) or "null"
            if got is None:
                said = f"{shown} is null"
            else:
                try:
                    text = json.dumps(got, ensure_ascii=False)
                except (TypeError, ValueError):  # (not a JSON value: a body built in Python)
                    text = repr(got)
                said = f"{shown} {text:.60} is {_json_kind(got)}"
            out.append(
                (
                    "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path),
                    f"{said}, but the API takes {expected} there (the SDK types it {source})",
                )
            )
    return out


#: :func:`_json_kind` of the plain JSON types, looked up by ``type(value)`` (the walk's common case).
_KIND_OF: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    dict: "an object",
    list: "an array",
    type(None): "null",
}


class _KindPlan:
    """What :func:`nested_kind_problems` reads of one SDK type, worked out once per type
    (:func:`_kind_plan`): the JSON kinds it allows, and for arrays, mappings and ``TypedDict`` s
    how to read what they hold (their plans resolved on first use)."""

    __slots__ = ("kinds", "open", "arrays", "mapping", "objects", "loose", "index")

    def __init__(self, tp: Any) -> None:
        import enum
        import typing

        kinds: set[str] = set()
        self.open = False
        #: per array member: its item types (one, or one per position), ``None`` when untyped
        self.arrays: list[tuple[Any, ...] | None] = []
        self.mapping: list[Any] | None = None  # [value type, its plan once resolved] of a Dict member
        self.objects: list[_ObjectPlan] = []
        for m in _type_members(tp):
            origin = typing.get_origin(m)
            if m is Any or m is object:
                self.open = True
            elif (scalar := _scalar_kinds(m)) is not None:
                kinds.update(scalar)
            elif isinstance(m, type) and issubclass(m, enum.Enum):
                kinds.update(_json_kind(e.value) for e in m)
            elif getattr(origin or m, "__name__", "") in _ARRAY_ORIGINS:
                kinds.add("an array")
                args = typing.get_args(m)
                self.arrays.append(None if not args else args[:1] if len(args) == 1 or args[1] is Ellipsis else args)
            elif getattr(origin or m, "__name__", "") in _OBJECT_ORIGINS:
                kinds.add("an object")
                args = typing.get_args(m)
                if len(args) == 2 and self.mapping is None:
                    self.mapping = [args[1], None]
                else:
                    self.open = True
            elif (fields := _object_fields(m)) is not None:
                kinds.add("an object")
                self.objects.append(_ObjectPlan(m, fields))
            else:
                self.open = True  # a type whose kind the walker cannot read (a class, a file type)
        self.kinds = frozenset(kinds)
        # the objects by the value of their first required tag (a union of 30 item types is read
        # through the one its ``type`` names), and those without one
        self.loose: list[tuple[int, _ObjectPlan]] = []
        self.index: dict[str, dict[tuple[str, Any], list[tuple[int, _ObjectPlan]]]] = {}
        for n, o in enumerate(self.objects):
            tag = next((t for t in o.tags if t[2]), None)
            if tag is None:
                self.loose.append((n, o))
                continue
            table = self.index.setdefault(tag[0], {})
            for v in tag[1]:
                table.setdefault(v, []).append((n, o))

    def candidates(self, value: Mapping[str, Any]) -> list[_ObjectPlan]:
        """The objects ``value`` may be by its tags (:meth:`_ObjectPlan.fits`), in union order."""
        found = list(self.loose)
        for key, table in self.index.items():
            got = value.get(key)
            if isinstance(got, (str, int, float)):
                found += table.get((_KIND_OF.get(type(got)) or _json_kind(got), got), ())
        if len(found) > 1:
            found.sort(key=lambda e: e[0])
        return [o for _, o in found if o.fits(value)]


@functools.lru_cache(maxsize=1024)
def _kind_plan(tp: Any) -> _KindPlan:
    return _KindPlan(tp)


class _ObjectPlan:
    """One ``TypedDict`` of a union (:class:`_KindPlan`): its fields (wire name → [type, SDK
    source, required, plan once resolved]) and its tags, the fields it types with ``Literal``
    values only (``null`` aside: ``type: Optional[Literal["message"]]``)."""

    __slots__ = ("fields", "tags")

    def __init__(self, m: Any, fields: dict[str, tuple[Any, str]]) -> None:
        import typing

        self.fields: dict[str, list[Any]] = {}
        tags: list[tuple[str, frozenset[tuple[str, Any]], bool]] = []
        for k, (ftp, source) in fields.items():
            required = _key_required(m, k, ftp)
            self.fields[k] = [ftp, source, required, None]
            members = [x for x in _type_members(ftp) if x is not type(None)]
            if members and all(typing.get_origin(x) is Literal for x in members):
                values = frozenset((_json_kind(a), a) for x in members for a in typing.get_args(x))
                tags.append((k, values, required))
        self.tags = tuple(tags)

    def fits(self, value: Mapping[str, Any]) -> bool:
        """Whether ``value`` may be this type by its tags: each present (and not ``null``) with
        one of its values, each this type requires present. A tag of the wrong kind fits no type."""
        for k, values, required in self.tags:
            if k not in value:
                if required:
                    return False
                continue
            got = value[k]
            if got is None:
                continue
            if (
                not isinstance(got, (str, int, float))
                or (_KIND_OF.get(type(got)) or _json_kind(got), got) not in values
            ):
                return False
        return True


def _kind_errors(
    value: Any,
    plan: _KindPlan,
    path: tuple[Any, ...],
    source: str,
    open_fields: Collection[str],
    also: Mapping[str, Collection[str]],
) -> list[tuple[tuple[Any, ...], frozenset[str], str, Any]]:
    """The ``(path, kinds allowed, SDK source, value)`` of each place in ``value`` whose JSON kind
    the type of ``plan`` does not allow (:func:`nested_kind_problems`)."""
    if plan.open:
        return []
    got = _KIND_OF.get(type(value)) or _json_kind(value)
    if got not in plan.kinds:
        if got in also.get(source, ()):
            return []
        return [(path, plan.kinds, source, value)]
    if got == "an array":
        tries = []
        for items in plan.arrays:
            if items is None:
                return []
            plans = [_kind_plan(t) for t in items]
            errors = []
            for i, item in enumerate(value):
                errors += _kind_errors(item, plans[i % len(plans)], (*path, i), source, open_fields, also)
            if not errors:
                return []
            tries.append(errors)
        return _fewest(tries)
    if got != "an object":
        return []
    if plan.mapping is not None:
        entry = plan.mapping
        if entry[1] is None:
            entry[1] = _kind_plan(entry[0])
        errors = []
        for k, item in value.items():
            errors += _kind_errors(item, entry[1], (*path, k), source, open_fields, also)
        return errors
    # the members the object may be by its tags, of those the ones that know the most of its keys
    # (``{"role": "user", "content": 5}`` is a message, not an ``ItemReference``, whose only tag
    # is optional and which has neither field)
    fit = plan.candidates(value)
    if not fit and plan.objects and not (path and isinstance(path[-1], int)):
        # an object that fits no member because its tag is of another kind than every member's
        # (``tool_choice: {"type": 5}``): refused at the tag. An array entry's is not (a message,
        # item or content part of a blank type, which the importers leave out)
        return _tag_kind_errors(value, plan, path)
    if len(fit) > 1:
        known = [sum(k in o.fields for k in value) for o in fit]
        fit = [o for o, n in zip(fit, known) if n == max(known)]
    tries = []
    for o in fit:
        errors = []
        for k, item in value.items():
            entry = o.fields.get(k) if isinstance(k, str) else None
            if entry is None or entry[1] in open_fields or (item is None and not entry[2]):
                continue
            if entry[3] is None:
                entry[3] = _kind_plan(entry[0])
            errors += _kind_errors(item, entry[3], (*path, k), entry[1], open_fields, also)
        if not errors:
            return []
        tries.append(errors)
    return _fewest(tries)


def _tag_kind_errors(
    value: Mapping[str, Any], plan: _KindPlan, path: tuple[Any, ...]
) -> list[tuple[tuple[Any, ...], frozenset[str], str, Any]]:
    """The error at the first tag of ``value`` whose kind is none of those the object members of
    ``plan`` give that tag (a ``type`` of 5 where each member's is a string literal); ``[]`` when
    the tags are of the right kinds (a value the SDK does not list)."""
    by_key: dict[str, tuple[set[str], str]] = {}
    for o in plan.objects:
        for k, values, _required_tag in o.tags:
            kinds, source = by_key.setdefault(k, (set(), o.fields[k][1]))
            kinds.update(kind for kind, _ in values)
    for k, (kinds, source) in by_key.items():
        got = value.get(k)
        if got is not None and (_KIND_OF.get(type(got)) or _json_kind(got)) not in kinds:
            return [((*path, k), frozenset(kinds), source, got)]
    return []


def _key_required(m: Any, key: str, hint: Any) -> bool:
    """Whether the ``TypedDict`` ``m`` requires its field ``key`` (typed ``hint``, extras kept)."""
    import typing

    # (the SDK's modules postpone their annotations, so ``__required_keys__`` misses a
    # ``Required[...]`` of a ``total=False`` TypedDict: read from the hint itself)
    if getattr(typing.get_origin(hint), "_name", None) == "Required":
        return True
    return (
        key in getattr(m, "__required_keys__", ()) and getattr(typing.get_origin(hint), "_name", None) != "NotRequired"
    )


def _fewest(
    tries: list[list[tuple[tuple[Any, ...], frozenset[str], str, Any]]],
) -> list[tuple[tuple[Any, ...], frozenset[str], str, Any]]:
    """Of the errors of a value read as each of several union members (each list non-empty), those
    of the member it comes nearest to (the fewest errors); members tied with it that fail at the
    same first place add the kinds they take there (``Message.content``, an array, and
    ``EasyInputMessageParam.content``, text or an array: "a string or an array")."""
    if not tries:
        return []
    least = min(len(t) for t in tries)
    tied = [t for t in tries if len(t) == least]
    first = tied[0]
    path, kinds, source, value = first[0]
    for other in tied[1:]:
        if other[0][0] == path and other[0][1] != kinds:
            kinds = kinds | other[0][1]
            source = f"{source}, {other[0][2]}" if other[0][2] != source else source
    return [(path, kinds, source, value), *first[1:]]


def _scalar_kinds(m: Any) -> tuple[str, ...] | None:
    """The JSON kinds (as :func:`_json_kind` names them) of a union member that is a scalar type:
    ``None`` → null, a ``Literal``'s values, ``bool``, ``int``, ``float`` (a number or an integer),
    ``str``; ``None`` for any other member."""
    import typing

    if m is type(None):
        return ("null",)
    if typing.get_origin(m) is Literal:
        return tuple(_json_kind(a) for a in typing.get_args(m))
    if m is bool:
        return ("a boolean",)
    if m is int:
        return ("an integer",)
    if m is float:
        return ("a number", "an integer")
    if m is str:
        return ("a string",)
    return None


def _kinds(tp: Any) -> frozenset[str] | None:
    """The JSON kinds (as :func:`_json_kind` names them) a value of type ``tp`` may have, ``None``
    when a member's kind cannot be read."""
    import typing

    kinds: set[str] = set()
    for m in _type_members(tp):
        origin = typing.get_origin(m)
        if (scalar := _scalar_kinds(m)) is not None:
            kinds.update(scalar)
        elif isinstance(m, type) and hasattr(m, "__total__"):
            kinds.add("an object")
        elif (
            m in (dict, Mapping)
            or origin in (dict, Mapping)
            or getattr(origin, "__name__", "")
            in (
                "Mapping",
                "MutableMapping",
                "Dict",
            )
        ):
            kinds.add("an object")
        elif (origin is not None and getattr(origin, "__name__", "") in _ARRAY_ORIGINS) or getattr(
            m, "__name__", ""
        ) in _ARRAY_ORIGINS:
            kinds.add("an array")
        else:
            return None
    return frozenset(kinds) if kinds else None


class PrefixFold:
    """A value folded over the first entries of a list that grows between calls (a request's
    conversation), computed for the new entries only.

    ``PrefixFold(step, initial)``; ``fold(items, upto)`` returns the value of ``step(value, i,
    items[i])`` applied for ``i`` in ``range(upto)``, starting from ``initial()`` — reusing the
    value of the previous call when that call's entries are the first entries of ``items``
    (compared with ``==``, which is immediate for the same objects), so only the entries after
    them are stepped through. ``step`` may change ``value`` in place; the value returned belongs
    to the fold: pass ``copy`` to get one the caller may change. For profile checks of a growing history (ids used
    so far, counts). Use module-level functions for ``step`` and ``initial`` (profiles are
    pickled with their models)."""

    __slots__ = ("_step", "_initial", "_entries", "_value", "_lock")

    def __init__(self, step: Any, initial: Any) -> None:
        import threading

        self._step = step
        self._initial = initial
        self._entries: list[Any] = []
        self._value: Any = None
        self._lock = threading.Lock()  # one model's checks may run in several threads

    def fold(self, items: Sequence[Any], upto: int | None = None, copy: Any = None) -> Any:
        """The folded value (``copy(value)`` when ``copy`` is given: a copy the caller may change)."""
        n = len(items)
        if upto is None or upto > n:
            upto = n
        elif upto < 0:
            upto = 0
        with self._lock:
            prev = self._entries
            head = items[:upto]
            if type(head) is not list:
                head = list(head)
            if prev and prev == head[: len(prev)]:  # the same first entries (the same objects: a C pass)
                value, begin = self._value, len(prev)
            else:
                value, begin = self._initial(), 0
            if begin < upto:
                step = self._step
                for i in range(begin, upto):
                    value = step(value, i, items[i])
            self._entries = head
            self._value = value
            return value if copy is None else copy(value)

    def __reduce__(self) -> tuple[Any, tuple[Any, Any]]:  # copied or pickled empty: it is only a cache
        return (PrefixFold, (self._step, self._initial))


def _messages(body: Any, key: str | None) -> list[Any] | None:
    if key is None or not isinstance(body, dict):
        return None
    items = body.get(key)
    return items if isinstance(items, list) else None


class PreflightState:
    """What one model remembers between turns so preflight checks only the new part of the
    conversation: a copy of the body's conversation list as encoded (before repair) the last
    time it passed. A new body whose conversation starts with exactly that list is checked from
    its end; any other body (an edited history) is checked whole."""

    __slots__ = ("checked", "clean", "top")

    def __init__(self) -> None:
        self.checked: list[Any] | None = None
        #: how many leading entries of ``checked`` the last repair left as they were
        #: (kept for bodies preflighted with ``pristine=True``; else 0)
        self.clean: int = 0
        #: the last body's fields other than the conversation (``pristine=True`` only)
        self.top: dict[str, Any] | None = None

    def start(self, profile: Profile, body: dict[str, Any]) -> int:
        """Index of the first conversation entry of ``body`` not yet checked."""
        prev = self.checked
        if not prev:
            return 0
        key = profile.messages_key
        items = body.get(key) if key is not None and type(body) is dict else None
        if type(items) is not list:
            return 0
        k = len(prev)
        return k if items[:k] == prev else 0  # a shorter list is never equal to prev

    def snapshot(self, profile: Profile, body: dict[str, Any], start: int) -> list[Any] | None:
        """A copy of the conversation list of ``body`` (only the entries from ``start`` are
        copied; the earlier ones are the stored copies already)."""
        items = _messages(body, profile.messages_key)
        if items is None:
            return None
        head = self.checked[:start] if (start and self.checked) else []
        return head + _snapshot(items[start:])  # compared only: type-strict (1 is not True)


@functools.lru_cache(maxsize=256)
def _takes_start(fn: Any) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "start" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def preflight(
    profile: Profile, body: dict[str, Any], *, state: PreflightState | None = None, pristine: bool = False
) -> tuple[dict[str, Any], RequestReport]:
    """Repair then check an encoded request ``body`` against ``profile``.

    Returns ``(body, report)``: the body to send (repaired) and the :class:`RequestReport` of the
    repairs. Raises :class:`~toolwire.errors.RequestRefused` with every remaining
    :class:`Violation` when the body still breaks a rule — nothing is sent. With ``state``, only
    the conversation entries that are new since the last successful call are checked (the
    ``start`` passed to :meth:`Profile.repair_request` and :meth:`Profile.check_request`).

    ``pristine=True`` says the caller keeps the conversation entries of ``body`` unchanged and
    may pass the same entry objects again with the next request (incremental encoding): then
    nothing here changes them — repairs work on copies of the entries they may change (the body
    returned shares the others) — ``state`` keeps references instead of copies, and, for a
    profile with a :attr:`Profile.repair_window`, entries an earlier request found needing no
    repair are not repaired again. The body returned and the report are the same either way.
    """
    key = profile.messages_key
    items = _messages(body, key) if pristine else None
    if items is None:
        report = RequestReport(profile.api)
        start = state.start(profile, body) if state is not None else 0
        snap = state.snapshot(profile, body, start) if state is not None else None
        repaired = _repair(profile, body, report, start)
        violations = profile.check_request(repaired, start=start)
        if violations:
            raise RequestRefused(profile.api, list(violations))
        if state is not None:
            state.checked, state.clean, state.top = snap, 0, None
        return repaired, report
    # pristine: the caller keeps the conversation entries of ``body`` (and hands the same objects
    # back next turn), so they are never changed here; the repair works on copies of those it may
    # change, and the entries an earlier turn found needing no repair are neither copied nor repaired
    assert key is not None
    same_top = False
    if state is not None and state.top is not None:
        same_top = state.top == {k: v for k, v in body.items() if k != key}
    return _preflight_pristine(profile, body, key, items, state, same_top)


def _preflight_pristine(
    profile: Profile,
    body: dict[str, Any],
    key: str,
    items: list[Any],
    state: PreflightState | None,
    same_top: bool,
    keep_top: bool = True,
) -> tuple[dict[str, Any], RequestReport]:
    """:func:`preflight` with ``pristine=True`` of a body whose conversation list is ``items``
    (``body[key]``); ``same_top`` says whether the body's fields other than the conversation
    equal ``state.top`` (the caller compared them). ``keep_top=False``: the caller does not keep
    ``state`` for another request unless ``state.top`` was set already, so no copy of the
    fields is made for it."""
    report = RequestReport(profile.api)
    start = state.start(profile, body) if state is not None else 0
    window = profile.repair_window
    kept_top = state.top if (same_top and state is not None) else None
    if state is not None and not same_top and keep_top:
        try:  # copied before the repairs, which may change the body's fields in place
            kept_top = plain_copy({k: v for k, v in body.items() if k != key})
        except Exception:  # pragma: no cover - a body field that cannot be copied: no incremental repair
            kept_top = None
    settled = 0
    if same_top and window is not None and start > window and state is not None and state.clean >= start:
        settled = start - window
    work = dict(body)
    work[key] = items[:settled] + plain_copy(items[settled:])
    if settled:
        repaired = profile.repair_request(work, report, start=start, settled=settled)  # type: ignore[call-arg]
    else:
        repaired = _repair(profile, work, report, start)
    violations = profile.check_request(repaired, start=start)
    if violations:
        raise RequestRefused(profile.api, list(violations))
    if state is not None:
        out = repaired.get(key) if type(repaired) is dict else None
        clean = settled
        if type(out) is list:
            for a, b in zip(out[settled:], items[settled:]):
                if a != b:
                    break
                clean += 1
        else:
            clean = 0
        state.checked, state.clean, state.top = items[:], clean, kept_top
    return repaired, report


def _repair(profile: Profile, body: dict[str, Any], report: RequestReport, start: int) -> dict[str, Any]:
    if _takes_start(type(profile).repair_request):
        return profile.repair_request(body, report, start=start)
    # a profile written against the first draft of the contract: repairs the whole body
    return profile.repair_request(body, report)


#: Immutable values :func:`plain_copy` shares instead of copying.
_ATOMIC = frozenset({str, int, float, bool, type(None), bytes})
#: Types whose instances :func:`plain_copy` copies attribute by attribute (``_register_record``).
_RECORDS: dict[type, tuple[str, ...] | None] = {}
#: The registered types without slots (their whole state is their ``__dict__``): the fingerprints take them.
_RECORD_TYPES: set[type] = set()
_LISTS = frozenset({list})


def _register_record(cls: type) -> None:
    """Let :func:`plain_copy` copy instances of exactly ``cls`` (not subclasses) field by field:
    a new instance (``__init__`` not called) whose attributes are plain copies of the original's.
    For plain data classes whose equality depends on their attributes only (toolwire's
    :class:`~toolwire.types.Message` and part types); a class with ``__slots__`` is copied slot
    by slot."""
    slots: tuple[str, ...] | None = None
    if "__slots__" in vars(cls):
        names: list[str] = []
        for klass in cls.__mro__:
            declared = vars(klass).get("__slots__", ())
            names.extend([declared] if isinstance(declared, str) else declared)
        if "__dict__" in names:  # slots and a __dict__: not handled, deep-copied instead
            _RECORDS.pop(cls, None)
            _RECORD_TYPES.discard(cls)
            return
        slots = tuple(n for n in names if n != "__weakref__")
    _RECORDS[cls] = slots
    if slots is None:
        _RECORD_TYPES.add(cls)
    else:
        _RECORD_TYPES.discard(cls)


def plain_copy(value: Any) -> Any:
    """A deep copy of ``value`` equal to it (``==``) and sharing nothing mutable with it. Built-in
    values (dicts, lists, tuples, sets, strings, numbers, bytes) and instances of toolwire's
    message and part types are copied by a round trip through the C pickler, which takes nothing
    else (exact: a tuple stays a tuple, a non-string key stays as it is, ``1``, ``True`` and
    ``1.0`` stay apart; a record is rebuilt attribute by attribute without ``__init__``). A value
    holding anything else (a subclass, a foreign object, a cycle) is copied by a walk that copies
    dicts, lists and the registered record types and hands the rest to :func:`copy.deepcopy`.
    Strings, numbers and bytes are immutable, so a copy of one is the value itself."""
    if type(value) in _ATOMIC:
        return value
    buf = BytesIO()
    try:
        p = (_PICKLER or _pickler())(buf, 5)
        p.fast = True
        p.dump(value)
        return _unpickle(buf.getvalue())
    except Exception:
        pass
    try:
        return _copy(value)
    except RecursionError:
        import copy

        return copy.deepcopy(value)


class _Exact:
    """A number or boolean in a snapshot (:func:`_snapshot`): equal only to a value of the very
    same type and value. Python's ``1 == True == 1.0`` (and ``0.0 == -0.0``) would let an edit
    from one to another pass as "unchanged", though each encodes differently (``1``, ``true``,
    ``1.0``); the same object always compares equal (a NaN kept as it was)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        v = self.value
        if other is v:
            return True
        if type(other) is not type(v) or other != v:
            return False
        return type(v) is not float or v != 0.0 or str(v) == str(other)  # -0.0 is not 0.0

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"_Exact({self.value!r})"


def number_leaves(value: Any) -> tuple[tuple[tuple[Any, ...], type], ...]:
    """For adapters' memos of checked request fields. ``(path, type)`` of every ``bool``/``int``/``float`` leaf of a JSON value: ``==`` holds
    between ``True``, ``1`` and ``1.0``, which the checks tell apart, so a memo keyed by ``==``
    compares these leaves' types too (:func:`same_number_types`)."""
    out: list[tuple[tuple[Any, ...], type]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        t = type(v)
        if t is dict:
            stack.extend((x, (*path, k)) for k, x in v.items())
        elif t is list:
            stack.extend((x, (*path, i)) for i, x in enumerate(v))
        elif t is bool or t is int or t is float:
            out.append((path, t))
    return tuple(out)


def same_number_types(value: Any, leaves: tuple[tuple[tuple[Any, ...], type], ...]) -> bool:
    """Whether ``value`` (``==`` to the value ``leaves`` were taken from) has a leaf of the same
    type at each path."""
    try:
        for path, t in leaves:
            v = value
            for k in path:
                v = v[k]
            if type(v) is not t:
                return False
    except (LookupError, TypeError):  # pragma: no cover - == holds, so every path exists
        return False
    return True


def _snapshot(value: Any) -> Any:
    """A copy of ``value`` kept only to be compared with it later (``value == snapshot``): as
    :func:`plain_copy`, but every number and boolean held as an :class:`_Exact`,
    so the comparison is type-strict where ``==`` is not. A cyclic value raises
    :class:`RecursionError`."""
    t = type(value)
    if t is dict:
        return {k: v if type(v) is str else _snapshot(v) for k, v in value.items()}
    if t is list:
        return [v if type(v) is str else _snapshot(v) for v in value]
    if t is str or value is None or t is bytes:
        return value
    if t is int or t is bool or t is float:
        return _Exact(value)
    if t is tuple:
        return tuple(_snapshot(v) for v in value)
    if isinstance(value, dict):  # a dict subclass (an OrderedDict): its items, type-strict
        return {k: v if type(v) is str else _snapshot(v) for k, v in value.items()}
    if isinstance(value, list):  # a list subclass: its items, type-strict
        return [v if type(v) is str else _snapshot(v) for v in value]
    if (t in _RECORDS and _RECORDS[t] is None) or _record_subclass(t):
        new = object.__new__(t)
        new.__dict__.update({k: v if type(v) is str else _snapshot(v) for k, v in value.__dict__.items()})
        return new
    return plain_copy(value)


def _record_subclass(t: type) -> bool:
    """Whether ``t`` subclasses a registered record type and keeps its whole state in its
    ``__dict__`` (no ``__slots__`` anywhere): its snapshot is made attribute by attribute, so its
    numbers stay type-strict too (a user's ``Message`` or part subclass edited from ``1`` to
    ``True`` in place is noticed; a deep copy compared with ``==`` would not see it). A subclass
    that says how it is copied (``__deepcopy__``, ``__reduce__``, ``__getstate__``, ...) is left
    to :func:`copy.deepcopy`."""
    if t in _RECORDS or not _RECORD_TYPES or not issubclass(t, tuple(_RECORD_TYPES)):
        return False
    return not any(n in vars(k) for k in t.__mro__ if k is not object and k not in _RECORDS for n in _COPY_HOOKS)


#: What a class defines to choose how :func:`copy.deepcopy` copies it (or to keep state outside its ``__dict__``).
_COPY_HOOKS = ("__slots__", "__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")


def _copy(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: v if type(v) in _ATOMIC else _copy(v) for k, v in value.items()}
    if t is list:
        return [v if type(v) in _ATOMIC else _copy(v) for v in value]
    if t in _ATOMIC:
        return value
    if t in _RECORDS:
        new = object.__new__(t)
        slots = _RECORDS[t]
        if slots is None:
            new.__dict__.update({k: v if type(v) in _ATOMIC else _copy(v) for k, v in value.__dict__.items()})
        else:
            for name in slots:
                try:
                    v = object.__getattribute__(value, name)
                except AttributeError:
                    continue
                object.__setattr__(new, name, v if type(v) in _ATOMIC else _copy(v))
        return new
    import copy

    return copy.deepcopy(value)


# -- fingerprints: type-strict "unchanged?" checks made by C code --------------------------------
#
# The incremental requests (``toolwire.adapter._Histories``) must notice an earlier message edited
# in place. Comparing each earlier message with a kept copy costs Python calls per message per
# turn (the dataclasses' ``__eq__``, a type-strict wrapper per number). Instead, each request's
# history is serialized once by the C pickler into two byte strings whose first bytes are the
# serialization of the earlier messages: the next request only checks that its own bytes start
# with the kept ones (``bytes.startswith``). Same bytes mean the same values of the same types:
# the pickler writes ``True``, ``1`` and ``1.0`` (and ``0.0`` / ``-0.0``) differently, keeps key
# order, tells a tuple from a list, and here takes only exact built-in values and toolwire's own
# record types (anything else -- a subclass, a foreign object -- makes the fingerprint ``None``
# and the caller compares kept copies instead).
#
# Why a prefix of bytes is a prefix of items: each item of the two lists is a tuple of at least 4
# elements, which the pickler writes as MARK, the elements, TUPLE; its memo is off (``fast``), so an
# item's bytes depend on that item only. Parsing the same bytes gives the same open MARKs; the old
# bytes end where exactly one MARK (the list's) is open, and inside an item of the new list at
# least two are, so the new list's items end at the same places as the old ones: its first items
# have the old items' bytes, that is, the same values.


class _NotPlain(Exception):
    """A value the fingerprints do not take (the caller falls back to compared copies)."""


_PICKLER: Any = None  # the strict pickler class, made on first use (``import pickle`` is not free)


def _pickler() -> Any:
    global _PICKLER
    import pickle

    class _StrictPickler(pickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:  # called for anything but exact built-in values
            t = type(obj)
            if t in _RECORDS and _RECORDS[t] is None:  # a part inside a part (a tool result's content)
                return (_record, (t,), obj.__dict__)
            if obj is _record or (t is type and obj in _RECORDS):
                return NotImplemented  # the class and the rebuild function: by name
            raise _NotPlain(t.__name__)

    _PICKLER = _StrictPickler
    globals()["_unpickle"] = pickle.loads
    return _StrictPickler


def _record(cls: type) -> Any:
    """A record rebuilt by :func:`plain_copy` (its attributes are set after)."""
    return object.__new__(cls)


def _unpickle(data: bytes) -> Any:  # pragma: no cover - replaced by pickle.loads in _pickler()
    import pickle

    return pickle.loads(data)


_PAD = (None, None, None, None)
_NONES = repeat(None)
_PARTS = attrgetter("parts")
_ROLE_DATA = attrgetter("role", "provider_data")
_from_lists = chain.from_iterable


def history_prints(ctx: Sequence[Any], messages: Sequence[Any]) -> tuple[bytes, bytes, list[type]] | None:
    """The fingerprint of a request's conversation: ``(heads, parts, part_types)``, where
    ``heads`` serializes ``ctx`` (what else the encoding depends on) and each message's role,
    ``provider_data`` and part count, ``parts`` each part's attributes, and ``part_types`` lists
    the parts' classes. For a longer conversation that starts with the same messages, unchanged,
    and the same ``ctx``, each byte string starts with this one's and the list with this list;
    any edit of an earlier message (in place or not, anywhere inside it, to a value of another
    type or a re-ordered dict) breaks that. ``None`` when a message or ``ctx`` holds something
    else than exact built-in values and toolwire's message and part types."""
    records = _RECORD_TYPES
    try:
        if not records.issuperset(map(type, messages)) or not _LISTS.issuperset(map(type, map(_PARTS, messages))):
            return None
        parts = list(_from_lists(map(_PARTS, messages)))
        types = list(map(type, parts))
        if not records.issuperset(types):
            return None
        buf = BytesIO()
        p = (_PICKLER or _pickler())(buf, 3)
        p.fast = True  # no memo: an item's bytes depend on that item only
        p.dump(
            [
                (*ctx, None, None, None),
                _PAD,
                *zip(map(_ROLE_DATA, messages), map(len, map(_PARTS, messages)), _NONES, _NONES),
            ]
        )
        cut = buf.tell()
        p.dump([_PAD, _PAD, *zip(map(vars, parts), _NONES, _NONES, _NONES)])
        data = buf.getvalue()
    except Exception:  # something the strict pickler refuses (or cannot take: a cycle)
        return None
    # each ends with APPENDS, STOP: the items' bytes are what a longer list starts with
    return data[: cut - 2], data[cut:-2], types


def strict_bytes(value: Any) -> bytes | None:
    """A type-strict serialization of ``value`` (exact built-in values only; see
    :func:`history_prints`): two values with the same bytes are equal, with the same types and
    key order. ``None`` for anything else."""
    buf = BytesIO()
    try:
        p = (_PICKLER or _pickler())(buf, 3)
        p.fast = True
        p.dump(value)
    except Exception:
        return None
    return buf.getvalue()


def all_rules(profiles: Iterable[Profile]) -> list[Rule]:
    """Every rule of ``profiles``, by id, each once (for docs and lint listings)."""
    seen: dict[str, Rule] = {}
    for p in profiles:
        for rid, r in p.rules.items():
            seen.setdefault(rid, r)
    return list(seen.values())
