"""The adapter protocol: the canonical request, the codec interface and the model (transport) base.

An adapter is three things:

1. a **codec** of pure functions — ``encode_request``, ``decode_response``, ``decode_stream``,
   ``decode_request`` — speaking the wire format as JSON-ready dicts (the same form as the
   vendor's API reference and the recordings), no I/O, no clocks, no globals;
2. a thin **transport**, a :class:`Model` subclass that hands the encoded body to the vendor SDK
   and feeds the answer back through the codec;
3. a **profile** (:class:`toolwire.profile.Profile`, from :meth:`Model.make_profile`): the
   vendor's rules, checked on every encoded body before it is sent (preflight).

Preflight runs in the :class:`Model` base for every adapter: ``send`` and ``send_stream`` of every
subclass are wrapped so that, before the subclass's code runs, the request is encoded with
``self.codec``, repaired and checked against ``self.profile``; a body that still breaks a rule
raises :class:`~toolwire.errors.RequestRefused` and nothing is sent. The transport then takes the
checked body with :meth:`Model.prepare` (the same dict, no second encode). A transport that
encodes by itself instead still gets the check (refusals), not the repairs.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import re
import weakref
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from json import JSONEncoder as _JSONEncoder
from json import dumps as _json_dumps
from json import loads as _json_loads
from operator import is_ as _is
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypedDict, Union, cast, runtime_checkable

from . import profile as _profile_module
from ._clients import PerLoopClient, client_on_other_loop
from .errors import ConfigurationError, RequestRefused, ToolwireError, UnsupportedToolChoice
from .profile import (
    PreflightState,
    _preflight_pristine,
    _register_record,
    _snapshot,
    history_prints,
    plain_copy,
    strict_bytes,
)
from .profile import preflight as _profile_preflight
from .stream import StopEvent, StreamAssembler, StreamEvent
from .tools import Tool
from .turns import (
    answer_request,
    misplaced_changes,
    moved_result_changes,
    plain_history,
    renumber_reused_ids,
    report_unanswered,
)
from .types import (
    DocumentPart,
    ImagePart,
    Message,
    ProviderToolPart,
    ReasoningPart,
    Response,
    TextPart,
    ToolCall,
    ToolResult,
)

for _record in (Message, TextPart, ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart):
    _register_record(_record)  # plain_copy copies them field by field (the incremental requests' snapshots)
del _record


if TYPE_CHECKING:  # pragma: no cover
    from .profile import Profile, RequestReport
    from .schema.report import TranslationReport

__all__ = [
    "COMMON_SETTINGS",
    "Codec",
    "DeclarationMemo",
    "given_thinking",
    "Model",
    "ModelRequest",
    "NamedToolChoice",
    "ToolChoice",
    "ToolChoiceInput",
    "body_json",
    "check_settings",
    "collect_stream",
    "normalize_tool_choice",
    "on_vendor_host",
    "report_dropped_provider_tool_parts",
    "url_host",
]


class NamedToolChoice(TypedDict):
    """The canonical choice of one named tool: ``{"type": "tool", "name": N}``."""

    type: Literal["tool"]
    name: str


#: Canonical tool choice: ``"auto"``, ``"required"``, ``"none"`` or ``{"type": "tool", "name": N}``.
ToolChoice = Union[Literal["auto", "required", "none"], NamedToolChoice]

#: What a user may pass as ``tool_choice``: a :data:`ToolChoice`, ``"any"`` (same as
#: ``"required"``), ``"tool:<name>"``, ``{"name": N}`` or the OpenAI form
#: ``{"type": "function", "function": {"name": N}}``; ``None`` leaves the vendor default.
ToolChoiceInput = Union[ToolChoice, Literal["any"], str, Mapping[str, Any], None]


def given_thinking(thinking: Any) -> Any:
    """``thinking`` (a request's or a model's canonical reasoning settings) without what gives
    nothing: an ``"effort"`` of ``None`` (no effort chosen: the API's default) is left out, and a
    dict that leaves empty is ``None`` (no thinking setting). Every other value is returned as it
    is (the same object when nothing is left out). Each built-in codec reads ``thinking`` through
    it, so ``{"effort": None}`` is sent as no setting on every API."""
    if type(thinking) is dict and "effort" in thinking and thinking["effort"] is None:
        rest = {k: v for k, v in thinking.items() if k != "effort"}
        return rest or None
    return thinking


def tool_choice_setting_change(
    request: ModelRequest, rule: str, pointer: str, given: Any, sent: Any
) -> list[tuple[Any, ...]]:
    """The preflight report entry (``[(rule, pointer, detail, None, None, True)]``, lossy) for a
    tool choice given twice: the vendor's own field in the model settings (``given``, e.g.
    ``extra_body={"tool_choice": ...}`` or Gemini's ``tool_config``) and the request's canonical
    ``tool_choice``, when what was sent (``sent``, the body's field after repair) is not the
    setting's. Empty when the request has no tool choice (the setting is sent as it is), when
    nothing was sent (another rule left the field out and reports that) or when ``sent`` is the
    setting's value."""
    if request.tool_choice is None or given is None or sent is None or sent == given:
        return []
    return [
        (
            rule,
            pointer,
            f"the tool choice in the model settings ({given!r}) was replaced by the request's tool choice "
            f"{request.tool_choice!r}, sent as {sent!r}: leave tool_choice unset to send the setting's, or "
            "take it out of the settings",
            None,
            None,
            True,
        )
    ]


def normalize_tool_choice(choice: ToolChoiceInput | Any) -> ToolChoice | None:
    """Normalise a user's tool choice to the canonical form.

    Accepts ``None`` (vendor default), ``"auto"``, ``"required"`` (also ``"any"``), ``"none"``,
    ``{"type": "tool", "name": N}``, ``{"name": N}``, ``"tool:N"`` and the OpenAI form
    ``{"type": "function", "function": {"name": N}}``. Anything else raises
    :class:`UnsupportedToolChoice`; nothing ever falls back to ``auto`` silently.
    """
    if choice is None:
        return None
    if isinstance(choice, str):
        if choice in ("auto", "required", "none"):
            return choice
        if choice == "any":
            return "required"
        if choice.startswith("tool:") and len(choice) > 5:
            return {"type": "tool", "name": choice[5:]}
        raise UnsupportedToolChoice(f"tool choice {choice!r} is not one of 'auto', 'required', 'none' or 'tool:<name>'")
    if isinstance(choice, Mapping):
        if choice.get("type") in ("tool", None) and isinstance(choice.get("name"), str):
            return {"type": "tool", "name": choice["name"]}
        fn = choice.get("function")
        if choice.get("type") == "function" and isinstance(fn, dict) and isinstance(fn.get("name"), str):
            return {"type": "tool", "name": fn["name"]}
        if choice.get("type") == "function" and isinstance(choice.get("name"), str):
            return {"type": "tool", "name": choice["name"]}
    raise UnsupportedToolChoice(
        f"tool choice {choice!r} is not a form toolwire can express; use 'auto', 'required', 'none' "
        "or {'type': 'tool', 'name': <tool name>}"
    )


@dataclass
class ModelRequest:
    """Everything one model request needs, vendor-neutral.

    - ``model``: the vendor's model id (without the ``provider:`` prefix).
    - ``messages`` / ``instructions``: the conversation and the system prompt.
    - ``tools``: :class:`~toolwire.tools.Tool` specs (functions are not needed to encode).
    - ``tool_choice``: canonical (see :func:`normalize_tool_choice`); ``None`` = vendor default.
    - ``parallel_tool_calls``: ``False`` asks for at most one call per turn; ``None`` = default.
    - ``max_tokens`` (output tokens), ``temperature``, ``stream``.
    - ``thinking``: canonical reasoning settings or ``None``; the adapters document what they read
      (e.g. ``{"type": "enabled", "budget_tokens": 2048}`` for Anthropic,
      ``{"effort": "low"}`` for OpenAI, ``{"budget": 1024, "include_thoughts": True}`` for Gemini).
      An ``"effort"`` of ``None`` means no effort chosen: it is left out (the API's default), and
      ``{"effort": None}`` alone is the same as ``None`` on every API (:func:`given_thinking`).
    - ``settings``: request fields without a canonical home, by vendor wire name (each adapter
      documents its map, e.g. Anthropic ``metadata``, OpenAI ``store``); ``encode_request``
      copies them into the body and ``decode_request`` fills them.
    - ``conversation``: set by the loop (see the field's comment); leave it ``None``.
    """

    model: str
    messages: list[Message] = field(default_factory=list)
    instructions: str | None = None
    tools: list[Tool[..., Any]] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool = False
    thinking: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    #: Set by the loop: one object per run, the same on every request of the run, while the
    #: conversation only grows (no message already sent is changed, replaced or removed). The
    #: adapter then encodes and checks only what is new since the run's previous request; any
    #: other change (another object, a different history) is encoded and checked whole.
    #: ``None`` (the default): every request is encoded and checked whole.
    conversation: object | None = field(default=None, repr=False, compare=False)

    def tool(self, name: str) -> Tool[..., Any] | None:
        """The first tool in :attr:`tools` whose ``name`` is ``name``, or ``None``."""
        for t in self.tools:
            if t.name == name:
                return t
        return None


@runtime_checkable
class Codec(Protocol):
    """The pure half of an adapter. ``api`` names the wire API (``"anthropic"``,
    ``"openai-chat"``, ``"openai"``, ``"gemini"``)."""

    api: str

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → the vendor's JSON request body (a JSON-ready dict)."""
        ...

    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """The vendor's JSON response body → canonical :class:`Response`. ``request`` (when
        given) supplies the tools' canonical schemas (e.g. Gemini integer coercion)."""
        ...

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """The vendor's parsed stream events (SSE ``data`` objects / chunks, in order) →
        canonical stream events for :class:`~toolwire.stream.StreamAssembler`."""
        ...

    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """A vendor-shaped request body → canonical request (import a recorded history)."""
        ...

    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """The tool's wire declaration for this API (exactly what ``encode_request`` puts in the
        body's tool list) and the report of every schema rewrite or drop it made. Used by
        ``toolwire lint`` (translation findings and per-provider token cost)."""
        ...

    # Optional hooks (looked up with getattr; a codec may leave them out):
    #
    # - ``setting_changes(request, body) -> list[tuple]``: the changes ``encode_request`` made to
    #   the request's own settings (not its messages), as ``(rule, pointer, detail, tool,
    #   call_id, lossy)``, given the body as repaired by the preflight; added to the request's
    #   :class:`~toolwire.profile.RequestReport` (e.g. Anthropic's ``max_tokens`` raised to fit
    #   the thinking budget of ``thinking={"effort": ...}``). A change with the rule and pointer
    #   of one the preflight made replaces it (the same repair, worded in the caller's setting).
    # - ``restate_refusal(request, violations) -> list[Violation]``: the preflight's violations,
    #   with those caused by a setting the codec translated reworded in the caller's terms (the
    #   same rules; the list unchanged when none is).


def report_dropped_provider_tool_parts(request: ModelRequest, report: RequestReport) -> None:
    """Record in ``report`` every part of ``request`` that another API produced and that the
    encoder therefore leaves out, each one lossy change with its pointer the part's place in the
    canonical conversation (``/messages/<i>/parts/<j>``):

    - a :class:`~toolwire.types.ProviderToolPart` with ``part.provider != report.api`` (rule
      ``provider-tool.dropped``): a vendor's server-tool blocks, and the blocks it sent that
      toolwire keeps whole (an image a Gemini model made, an Anthropic ``container_upload``, an
      imported document), mean nothing to another vendor.
      Response-level metadata parts (``kind="metadata"``) are never sent to any vendor and are
      not reported;
    - a :class:`~toolwire.types.ReasoningPart` with ``part.provider != report.api`` (rule
      ``reasoning.dropped``): every adapter drops another vendor's reasoning, since its
      signature or encrypted content is only valid for the vendor that made it (see
      ``docs/providers.md``, "Switching provider mid-conversation")."""
    for change in _dropped_parts(request.messages, report.api, 0):
        report.add(change[0], change[1], change[2], tool=change[3], call_id=change[4], lossy=True)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON-ready value (dicts, lists, strings, numbers, booleans, ``None``),
    made by a JSON round trip (several times faster than :func:`copy.deepcopy` for such values);
    a value JSON cannot take (a tuple, a set, an object) is copied with :func:`copy.deepcopy`."""
    try:
        return _json_loads(_json_dumps(value, ensure_ascii=False, allow_nan=True))
    except (TypeError, ValueError):
        import copy

        return copy.deepcopy(value)


#: Tool fields a declaration cannot depend on (the function run and the design kit's notes), and
#: what toolwire keeps on a tool about its function (``_is_async``: the function and whether it is
#: a coroutine function; an object, which would keep the tool off the strict-bytes path).
_NOT_DECLARED = frozenset({"function", "arguments_model", "meta", "_is_async"})


def _tool_state(tool: Tool) -> dict[str, Any]:
    state = vars(tool).copy()  # the fields, in their order, without the ones never declared
    for k in _NOT_DECLARED:
        state.pop(k, None)
    return state


def _forget_oldest(memo: dict[Any, Any]) -> None:
    """Drop ``memo``'s oldest entry; another thread encoding with the same codec may have dropped
    it (or emptied the memo) first, which is no error."""
    try:
        memo.pop(next(iter(memo)), None)
    except (StopIteration, RuntimeError):  # emptied, or changed while the key was read
        pass


class DeclarationMemo:
    """What a codec's ``translate_tool`` gave for each tool, reused while the tool is unchanged.

    ``memo.declaration(tool, translate)`` returns ``translate(tool)[0]`` — a fresh copy each
    time, so the caller and the preflight repairs may change it — computing it only when this
    tool object was not seen before or any field a declaration can depend on (every field but
    ``function``, ``arguments_model`` and ``meta``, and what toolwire notes on the tool about its
    function) differs from the copy kept when it was
    computed: a tool changed in place (a new description, an edited input schema, a default
    changed from ``1`` to ``True``) is noticed. Holds at most :attr:`size` tools (the least
    recently computed are forgotten). Exceptions of ``translate`` propagate and nothing is kept.

    How "unchanged" is decided: when the tool's fields hold only built-in values, by their
    type-strict serialization (:func:`toolwire.profile.strict_bytes`, made in C: equal bytes mean
    equal values of the same types in the same order), and the declaration is kept as the same
    kind of bytes, rebuilt for each call; otherwise by comparing with a type-strict copy
    (:func:`toolwire.profile._snapshot`) and copying the declaration with
    :func:`toolwire.profile.plain_copy`."""

    size = 256
    #: How many whole tool lists :meth:`unchanged_list` keeps.
    list_size = 8

    __slots__ = ("_memo", "_lists")

    def __init__(self) -> None:
        # id(tool) -> (tool, the fields' strict bytes or a snapshot, the declaration's bytes or a copy, bytes?)
        self._memo: dict[int, tuple[Any, Any, Any, bool]] = {}
        # ids of a list's tools -> (the tools, their fields' strict bytes as one list, their declarations' bytes)
        self._lists: dict[tuple[int, ...], tuple[tuple[Any, ...], bytes, bytes]] = {}

    def unchanged_list(self, tools: list[Any]) -> list[dict[str, Any]] | None:
        """The declarations of ``tools`` (fresh copies, in order, as :meth:`declaration` gives them
        one by one) when this very list of tool objects was passed to :meth:`remember_list` and
        no tool changed since (the same test as :meth:`declaration`, made once for the whole list:
        one serialization and one copy instead of one of each per tool); ``None`` otherwise (then
        ask :meth:`declaration` for each tool and call :meth:`remember_list`)."""
        if len(tools) < 2:
            return None
        hit = self._lists.get(tuple(map(id, tools)))
        if hit is None or not all(map(_is, hit[0], tools)):
            return None
        if strict_bytes([_tool_state(t) for t in tools]) != hit[1]:
            return None
        return _profile_module._unpickle(hit[2])  # type: ignore[no-any-return]

    def remember_list(self, tools: list[Any]) -> None:
        """Keep ``tools`` as one list for :meth:`unchanged_list`, right after :meth:`declaration`
        gave each tool's declaration (from what it keeps for each; a tool whose fields are not
        built-in values only, or a list shorter than 2, is not kept)."""
        if len(tools) < 2:
            return
        memo = self._memo
        decls = []
        for t in tools:
            hit = memo.get(id(t))
            if hit is None or hit[0] is not t or not hit[3]:
                return
            decls.append(_profile_module._unpickle(hit[2]))
        prints = strict_bytes([_tool_state(t) for t in tools])
        kept = strict_bytes(decls)
        if prints is None or kept is None:  # pragma: no cover - built-in values only (checked per tool)
            return
        lists = self._lists
        key = tuple(map(id, tools))
        lists.pop(key, None)
        if len(lists) >= self.list_size:
            _forget_oldest(lists)
        lists[key] = (tuple(tools), prints, kept)

    def __reduce__(self) -> tuple[Any, tuple[()]]:  # copied or pickled empty: it is only a cache
        return (DeclarationMemo, ())

    @staticmethod
    def of(codec: Any) -> DeclarationMemo:
        """The memo kept on ``codec`` (made on first use)."""
        memo = codec.__dict__.get("_declaration_memo")
        if memo is None:
            memo = codec.__dict__["_declaration_memo"] = DeclarationMemo()
        return memo

    def declaration(self, tool: Tool, translate: Any) -> dict[str, Any]:
        """``translate(tool)[0]``, the tool's wire declaration (a JSON-ready dict), as a fresh copy on
        every call; ``translate`` runs again only when ``tool`` was not seen or changed since (see the
        class). Its exceptions propagate."""
        key = id(tool)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is tool:
            if hit[3]:  # the fields' strict bytes: one C serialization, compared as bytes
                if strict_bytes(_tool_state(tool)) == hit[1]:
                    return _profile_module._unpickle(hit[2])  # pickle.loads once the pickler is made
            else:
                try:
                    same = hit[1] == _tool_state(tool)
                except Exception:  # a field whose == raises: compute again
                    same = False
                if same:
                    return plain_copy(hit[2])
        decl = translate(tool)[0]
        state = _tool_state(tool)
        prints = strict_bytes(state)
        kept_decl = strict_bytes(decl) if prints is not None else None
        try:
            if kept_decl is not None:
                kept = (tool, prints, kept_decl, True)
            else:
                kept = (tool, _snapshot(state), plain_copy(decl), False)
        except Exception:  # a field that cannot be copied: not memoised
            return decl
        memo = self._memo
        memo.pop(key, None)
        if len(memo) >= self.size:
            _forget_oldest(memo)
        memo[key] = kept
        return decl


#: Settings every adapter honours (see :class:`Model`). ``extra_body`` (and its older spelling
#: ``settings``) is the escape hatch: a dict of request-body fields sent as given, unchecked.
COMMON_SETTINGS: frozenset[str] = frozenset(
    {
        "max_tokens",
        "temperature",
        "stream",
        "thinking",
        "parallel_tool_calls",
        "api_key",
        "base_url",
        "http_client",
        "timeout",
        "max_retries",
        "retry",
        "extra_body",
        "settings",
    }
)


#: The settings :meth:`Model.build_request` reads into a request's fields, in its order.
#: What to do instead of an ``extra_body`` field the adapter always writes (:attr:`Model.always_written_fields`).
_WRITTEN_HINTS = {
    "max_tokens": "pass max_tokens=... to the model instead",
    "max_output_tokens": "pass max_tokens=... to the model instead",
    "max_completion_tokens": "pass max_tokens=... to the model instead",
    "model": "give the model id in the model string instead",
    "stream": "pass stream=True/False to the model instead",
}

_REQUEST_SETTINGS = ("parallel_tool_calls", "max_tokens", "temperature", "stream", "thinking", "settings", "extra_body")


def check_settings(model_cls: type[Model], settings: Mapping[str, Any], *, shown: str | None = None) -> None:
    """Refuse a setting ``model_cls`` does not know, with the closest known name.

    Known names are :data:`COMMON_SETTINGS`, the class's :attr:`Model.adapter_setting_names` and its
    :meth:`Model.request_fields` (the vendor request-body fields it accepts by wire name). A class
    whose ``request_fields()`` is ``None`` (the default: an adapter that declares nothing) accepts
    any name. Names starting with ``_`` are private and never checked.

    Raises :class:`~toolwire.errors.ConfigurationError`, e.g. ``unknown setting 'max_tokenz' for
    openai:gpt-5; did you mean 'max_tokens'? To send a request field toolwire does not know, pass it
    in extra_body={'max_tokenz': ...}``.
    """
    fields = model_cls.request_fields()
    if fields is None:
        return
    known = COMMON_SETTINGS | model_cls.adapter_setting_names | fields
    unknown = [k for k in settings if k not in known and not k.startswith("_")]
    if not unknown:
        return
    import difflib

    name = unknown[0]
    where = shown or model_cls.provider or model_cls.__name__
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "known settings: " + ", ".join(sorted(known - {"settings"}))
    more = f" (also unknown: {', '.join(repr(k) for k in unknown[1:])})" if unknown[1:] else ""
    raise ConfigurationError(
        f"unknown setting {name!r} for {where}; {hint}{more}{'' if hint.endswith('?') else '.'} "
        f"To send a request field toolwire does not know, pass it in extra_body={{{name!r}: ...}}"
    )


def _base_url_problem(url: str) -> str | None:
    """What makes ``url`` unusable as a ``base_url``, or ``None``: it must be an absolute
    ``http://`` or ``https://`` address with a host (and a numeric port, if any). Otherwise every
    request failed as a connection error, retried as if the network were down, or (an empty one
    for Gemini) went to the vendor's default server instead."""
    # the vendor SDKs send through httpx, which takes only these two schemes: UnsupportedProtocol
    # "Request URL is missing an 'http://' or 'https://' protocol." (seen through the OpenAI SDK
    # in openinterpreter/openinterpreter#994), raised per request as a connection error
    from urllib.parse import urlsplit

    if not url.strip():
        return "is empty"
    if url != url.strip():
        return f"has spaces around it ({url!r:.80})"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as exc:
        return f"is not a URL ({url!r:.80}: {exc})"
    if parts.scheme.lower() not in ("http", "https"):
        got = f"{parts.scheme}://" if parts.scheme and parts.netloc else "no scheme"
        return f"must start with http:// or https:// ({url!r:.80} has {got})"
    if not parts.hostname:
        return f"has no host ({url!r:.80})"
    return None


def url_host(url: Any) -> str | None:
    """The host of ``url`` (lower case, without a trailing dot: ``api.mistral.ai.`` is
    ``api.mistral.ai``), or ``None`` when ``url`` has none or cannot be parsed."""
    from urllib.parse import urlsplit

    try:
        host = urlsplit(str(url)).hostname
    except ValueError:
        return None
    return host.rstrip(".") if host else None


def on_vendor_host(base_url: Any, host: str) -> bool:
    """Whether requests to ``base_url`` go to the vendor's own API at ``host``: ``base_url``
    unset or empty (the SDK's default endpoint), or a URL on that host."""
    return not base_url or url_host(base_url) == host


def check_env_base_url(variable: str, *, shown: str = "the model", empty_is_unset: bool = False) -> None:
    """Refuse the base URL a vendor SDK would read from the environment variable ``variable``
    (used when no ``base_url`` setting is given, e.g. ``ANTHROPIC_BASE_URL``), by the same check as
    a ``base_url`` setting: an absolute ``http://`` or ``https://`` address with a host. An unset
    variable passes; an empty one is refused too, unless ``empty_is_unset`` (an SDK that treats an
    empty variable as unset, as google-genai does). :class:`Model` calls it for its
    :attr:`Model.base_url_env`.

    Raises :class:`~toolwire.errors.ConfigurationError` naming the variable, e.g. ``environment
    variable ANTHROPIC_BASE_URL (the base URL for anthropic:claude-sonnet-4-5) must start with
    http:// or https:// ('localhost:8080' has no scheme): ...``."""
    import os

    value = os.environ.get(variable)
    if value is None or (empty_is_unset and value == ""):
        return
    problem = _base_url_problem(value)
    if problem:
        raise ConfigurationError(
            f"environment variable {variable} (the base URL for {shown}) {problem}: set it to the server's address "
            f"such as 'http://localhost:11434/v1', unset {variable} for the vendor's own server, or pass "
            "base_url=... (which is used instead of the variable)"
        )


def check_base_url(settings: Mapping[str, Any], model_cls: type[Model], *, shown: str) -> None:
    """The ``base_url`` in ``settings``, else the base URL ``model_cls``'s SDK reads from the
    environment (:attr:`Model.base_url_env`), checked as when a model is made: for code that builds
    an SDK client from settings without making a model (a live token count). Raises
    :class:`~toolwire.errors.ConfigurationError` naming the setting or the variable."""
    base_url = settings.get("base_url")
    check_setting_types({"base_url": base_url}, shown=shown)
    if base_url is None and model_cls.base_url_env:
        check_env_base_url(model_cls.base_url_env, shown=shown, empty_is_unset=model_cls.base_url_env_empty_is_unset)


def check_setting_types(settings: Mapping[str, Any], *, shown: str = "the model") -> None:
    """Refuse a common client setting of the wrong type when the model is made, before anything
    is sent (such a value otherwise failed inside the SDK as a raw ``TypeError`` or as a
    "connection error" retried like a network fault, or only after a first failed request):
    ``extra_body`` (and ``settings``) and ``default_headers`` dicts, ``base_url`` an
    ``http://`` or ``https://`` address with a host ,
    ``timeout`` a number of seconds above 0 (or the SDK's timeout object), ``parallel_tool_calls``
    and ``stream`` booleans, ``retry`` and ``max_retries`` as
    :func:`~toolwire.retry.policy_from_settings` reads them.

    Raises :class:`~toolwire.errors.ConfigurationError`."""
    for name in ("extra_body", "settings", "default_headers"):
        value = settings.get(name)
        if value is not None and not isinstance(value, Mapping):
            raise ConfigurationError(
                f"{name} for {shown} must be a dict (field name to value), got {type(value).__name__} {value!r:.60}"
            )
    base_url = settings.get("base_url")
    if base_url is not None and not isinstance(base_url, str):
        raise ConfigurationError(
            f"base_url for {shown} must be text such as 'http://localhost:11434/v1', got {type(base_url).__name__}"
        )
    if isinstance(base_url, str):
        problem = _base_url_problem(base_url)
        if problem:
            raise ConfigurationError(
                f"base_url for {shown} {problem}: give the server's address such as 'http://localhost:11434/v1' "
                "(or leave base_url out for the vendor's own)"
            )
    timeout = settings.get("timeout")
    if timeout is not None and (
        isinstance(timeout, (bool, str, bytes))
        or (isinstance(timeout, (int, float)) and not 0 < timeout < float("inf"))
    ):
        raise ConfigurationError(f"timeout for {shown} must be a number of seconds above 0, got {timeout!r:.60}")
    for name in ("parallel_tool_calls", "stream"):
        flag = settings.get(name)
        if flag is not None and not isinstance(flag, bool):
            raise ConfigurationError(
                f"{name} for {shown} must be True or False, got {type(flag).__name__} {flag!r:.60} "
                "(text such as 'no' would count as true)"
            )
    if "retry" in settings or "max_retries" in settings:
        from .retry import policy_from_settings

        policy_from_settings(settings)


class Model(abc.ABC):
    """A configured model: provider + model id + settings, able to send a :class:`ModelRequest`.

    Subclasses (the transports) implement :meth:`send` (and optionally :meth:`send_stream`).
    Entry points in the ``toolwire.adapters`` group name a subclass; toolwire calls
    ``Subclass(model_id, **settings)``.

    Common settings every adapter honours (:data:`COMMON_SETTINGS`): ``max_tokens``,
    ``temperature``, ``stream`` (use the streaming API and assemble), ``thinking`` (``False``,
    ``{}`` or ``{"effort": None}``: no thinking setting, the API's default),
    ``parallel_tool_calls``, ``api_key``, ``base_url``, ``http_client`` (an ``httpx2`` client,
    e.g. with a ``MockTransport`` in tests), ``timeout`` (seconds), ``max_retries`` and ``retry``
    (toolwire's retry policy, :mod:`toolwire.retry`), and
    ``extra_body`` (a dict of request-body fields sent unchecked, by the vendor's wire name).
    Any other setting must be one of the adapter's :attr:`adapter_setting_names` or
    :meth:`request_fields`, or :class:`~toolwire.errors.ConfigurationError` is raised with the
    closest known name (see :func:`check_settings`).
    """

    provider: str = ""
    #: Request-body fields the adapter writes on every request from the model id, the
    #: conversation and its settings (Anthropic: ``model``, ``messages``, ``max_tokens``): an
    #: ``extra_body`` field of one of these names would be overwritten without a word, so it is
    #: refused when the model is made (:class:`~toolwire.errors.ConfigurationError`). Empty for an
    #: adapter that does not say.
    always_written_fields: ClassVar[Mapping[str, str]] = {}
    codec: Codec | None = None
    #: Setting names the adapter reads itself (codec or transport options such as Anthropic's
    #: ``cache``), beyond :data:`COMMON_SETTINGS`. Adapters fill it.
    adapter_setting_names: ClassVar[frozenset[str]] = frozenset()
    #: The environment variable the vendor SDK reads its base URL from when no ``base_url``
    #: setting is given (``ANTHROPIC_BASE_URL``, ...): checked as ``base_url`` is when the model is
    #: made (:func:`check_env_base_url`). ``None``: the adapter reads none.
    base_url_env: ClassVar[str | None] = None
    #: Whether the SDK treats an empty :attr:`base_url_env` as unset (else an empty one is refused).
    base_url_env_empty_is_unset: ClassVar[bool] = False
    #: Whether this adapter's decoders always give :class:`~toolwire.types.Response` values of the
    #: declared types (``parts`` a list of parts, whole-number usage counts, text ids): the loop
    #: then checks only the stop reason of each answer. ``False`` (a third-party adapter): the loop
    #: also checks the types and corrects what a saved run could not hold, with an
    #: :class:`~toolwire.errors.AdapterWarning`. toolwire's own adapters set it.
    typed_answers: ClassVar[bool] = False

    def __init__(self, model_id: str, **settings: Any) -> None:
        from .secrets import install_log_scrubbing, register_settings

        shown = f"{self.provider}:{model_id}" if self.provider else None
        check_settings(type(self), settings, shown=shown)
        check_setting_types(settings, shown=shown or model_id)
        env = type(self).base_url_env
        if env and settings.get("base_url") is None:
            check_env_base_url(env, shown=shown or model_id, empty_is_unset=type(self).base_url_env_empty_is_unset)
        written = type(self).always_written_fields
        for name in ("extra_body", "settings") if written else ():
            extra = settings.get(name)
            for key in extra if isinstance(extra, Mapping) else ():
                if key in written:
                    raise ConfigurationError(
                        f"{name} field {key!r} for {shown or model_id} is written by toolwire on every request "
                        f"({written[key]}), so the value given here would be overwritten: {_WRITTEN_HINTS.get(key, 'leave it out')}"
                    )
        thinking = settings.get("thinking")
        if thinking is False:  # thinking off, as None (the vendor's default)
            settings = {**settings, "thinking": None}
            thinking = None
        elif isinstance(thinking, Mapping) and not isinstance(thinking, dict):
            settings = {**settings, "thinking": dict(thinking)}
            thinking = settings["thinking"]
        if isinstance(thinking, dict) and (given := given_thinking(thinking)) is not thinking:
            settings = {**settings, "thinking": given}  # {"effort": None}: the API's default
            thinking = given
        if thinking is not None and not isinstance(thinking, dict):
            raise ConfigurationError(
                f"thinking for {shown or type(self).__name__} must be a dict, e.g. {{'effort': 'low'}} (or the vendor's "
                f"own form), got {type(thinking).__name__} {thinking!r}"
            )
        client = settings.get("http_client")
        if client is not None and not callable(getattr(client, "aclose", None)):
            # the adapters drive the SDKs' async clients (AsyncAnthropic, AsyncOpenAI, genai's
            # client.aio), for run_sync too: a sync httpx2.Client failed only on the first request
            # (a TypeError reported as a retryable connection error, or a pydantic error)
            raise ConfigurationError(
                f"http_client for {shown or type(self).__name__} is a {type(client).__module__}."
                f"{type(client).__qualname__}, not an async HTTP client (it has no aclose()): toolwire drives the "
                "SDKs' async clients, also for run_sync; pass an httpx2.AsyncClient, e.g. "
                "httpx2.AsyncClient(transport=httpx2.MockTransport(handler))"
            )
        self.model_id = model_id
        self.settings: dict[str, Any] = dict(settings)
        register_settings(self.settings)  # api_key= and credential headers are scrubbed everywhere
        install_log_scrubbing()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("send", "send_stream"):
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "_toolwire_preflight", False):
                setattr(cls, name, _with_preflight(fn, stream=(name == "send_stream")))

    # -- the profile and preflight ---------------------------------------------------------------
    @classmethod
    def make_profile(cls, **settings: Any) -> Profile:
        """The :class:`~toolwire.profile.Profile` of this API for ``settings`` (the model's
        settings; ``model`` is the model id when known). Adapters override it; the default asks
        the codec (``codec.make_profile(**settings)`` when it has one) and otherwise returns a
        permissive :class:`~toolwire.profile.Profile` named after :attr:`provider`. Used by the
        preflight, ``toolwire lint``, replay and :func:`toolwire.registry.profile`."""
        from .profile import Profile

        codec = cls.__dict__.get("codec") or getattr(cls, "codec", None)
        maker = getattr(codec, "make_profile", None)
        if callable(maker):
            return cast("Profile", maker(**settings))
        return Profile(api=cls.provider or None, **settings)

    @property
    def profile(self) -> Profile:
        """This model's profile (built once from its settings by :meth:`make_profile`)."""
        d: dict[str, Any] = self.__dict__  # type: ignore[assignment]
        prof = d.get("_profile")
        if prof is None:
            prof = d["_profile"] = type(self).make_profile(model=self.model_id, **self.settings)
        return prof

    def prepare(self, request: ModelRequest) -> dict[str, Any]:
        """The wire body to send for ``request``: ``self.codec.encode_request(request)``, repaired
        and checked by :func:`toolwire.profile.preflight`. Inside ``send``/``send_stream`` it returns
        the body the base already checked for this request (one encode per request). Raises
        :class:`~toolwire.errors.RequestRefused` (nothing sent) and the toolwire errors
        ``encode_request`` raises (:class:`~toolwire.errors.ToolNameError`,
        :class:`~toolwire.errors.ConfigurationError`, ...); any other exception of the encoder (a
        value of a shape it does not write, such as hand-edited ``provider_data``) is raised as a
        :class:`~toolwire.errors.ConfigurationError` whose ``__cause__`` it is."""
        d: dict[str, Any] = self.__dict__  # type: ignore[assignment]
        pending = d.get("_prepared")
        if pending:
            hit = pending.get(id(request))
            if hit is not None and hit[0] is request:
                return hit[1]
        body, report = self._preflight(request)
        d["_last_report"] = report
        return body

    def before_encode(self, request: ModelRequest, *, stream: bool) -> ModelRequest:
        """The request as the transport will encode it, called by the base before preflight
        (``stream`` is ``True`` for :meth:`send_stream`). Transports that adjust a request before
        encoding (a continuation id, forced streaming) override it and call ``super()``. Default:
        a copy with ``stream=True`` for :meth:`send_stream`, else ``request`` itself."""
        if stream and not request.stream:
            return dataclasses.replace(request, stream=True)
        return request

    def _preflight(self, request: ModelRequest, *, incremental: bool = False) -> tuple[dict[str, Any], RequestReport]:
        """The body to send for ``request`` and its report: :meth:`_preflight_body`, with the
        codec's optional request-level hooks applied (see :class:`Codec`): ``setting_changes``
        adds the changes it made to the request's settings to the report, and
        ``restate_refusal`` words a refusal in the settings the caller wrote."""
        codec = self.codec
        try:
            body, report = self._preflight_body(request, incremental=incremental)
        except RequestRefused as exc:
            restate = getattr(codec, "restate_refusal", None)
            if restate is None:
                raise
            violations = restate(request, exc.violations)
            if violations == exc.violations:
                raise
            raise RequestRefused(exc.api, violations) from None
        changes = getattr(codec, "setting_changes", None)
        if changes is not None:
            made = changes(request, body)
            if made:
                restated = {(c[0], c[1]) for c in made}
                if any((c.rule, c.pointer) in restated for c in report.changes):
                    report.changes = [c for c in report.changes if (c.rule, c.pointer) not in restated]
                _add_changes(report, made)
        return body, report

    def _preflight_body(
        self, request: ModelRequest, *, incremental: bool = False
    ) -> tuple[dict[str, Any], RequestReport]:
        d: dict[str, Any] = self.__dict__  # type: ignore[assignment]
        if "_profile" not in d:
            self.profile  # noqa: B018 - built (once) outside the guard: a bad setting raises its own error
        try:
            codec = self.codec
            if codec is None:
                raise NotImplementedError(f"{type(self).__name__} has no codec to encode with")
            profile = d.get("_profile") or self.profile
            # a conversation shorter than this is encoded and checked whole (see _Histories.from_messages)
            short = len(request.messages) < _Histories.from_messages
            concatenates = getattr(codec, "concatenates_history", None) if incremental and not short else None
            if request.conversation is not None and callable(concatenates) and concatenates(request):
                key = profile.messages_key
                if key is not None:
                    return _Histories.of(self).preflight(self, codec, profile, key, request)
            # a tool call the history leaves unanswered is answered "not run" (the same on every API)
            given = request
            request, answered = answer_request(request)
            body = codec.encode_request(request)
            if short:
                # checked whole: keeping what was checked (to check only the new entries next time)
                # costs more than checking the few entries again
                state = None
            else:
                state = vars(self).get("_preflight_state")
                if state is None:
                    state = vars(self)["_preflight_state"] = PreflightState()
            body, report = _profile_preflight(profile, body, state=state)
            if answered:
                report_unanswered(report, answered, f"/{profile.messages_key}" if profile.messages_key else "")
            placed = _placed(given.messages, request.messages, answered)
            changes = _part_changes(codec, request, placed, report.api, 0)
            if request is not given:  # answered, renumbered or results moved: the moves are reported too
                changes = moved_result_changes(placed, 0) + changes
            if changes:
                _add_changes(report, changes)
            return body, report
        except ToolwireError:
            raise
        except _ENCODE_FAILURES as exc:
            raise _encode_failure(self, exc) from exc

    @property
    def last_preflight(self) -> RequestReport | None:
        """The :class:`~toolwire.profile.RequestReport` of the last request this model prepared
        (``None`` before the first, or for a model without a codec)."""
        return vars(self).get("_last_report")

    @classmethod
    def request_fields(cls) -> frozenset[str] | None:
        """The vendor request-body fields this adapter accepts as settings, by wire name (e.g.
        ``metadata``, ``stop_sequences``); they are copied into the body. ``None`` (the default)
        means the adapter declares none and any setting name is passed through unchecked."""
        return None

    @classmethod
    def make_codec(cls, **settings: Any) -> Codec:
        """The codec this model uses, configured from ``settings`` (e.g. Gemini's schema field).
        Adapters override; used by ``toolwire lint`` and ``toolwire replay`` without a model id."""
        if cls.codec is None:
            raise NotImplementedError(f"{cls.__name__} has no codec")
        return cls.codec

    def batch_api(self) -> Any:
        """The vendor batch API of this model (a :class:`toolwire.batch.BatchAPI`: submit many
        prepared requests as one job, poll it, read its results), or ``None`` when the API has no
        batch mode (the default). Used by :func:`toolwire.batch.run_batch`."""
        return None

    def credential_problem(self) -> str | None:
        """``None`` when credentials are available, else a sentence naming the variable to set
        (e.g. ``"set ANTHROPIC_API_KEY or pass api_key=..."``). Checked by the CLI before a live run."""
        return None

    @property
    def name(self) -> str:
        """``"provider:model-id"`` (just ``"provider"`` for the offline ``test``/``scripted`` models)."""
        if self.model_id == self.provider:
            return self.provider
        return f"{self.provider}:{self.model_id}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def build_request(
        self,
        messages: list[Message],
        *,
        instructions: str | None = None,
        tools: list[Tool] | None = None,
        tool_choice: ToolChoiceInput = None,
    ) -> ModelRequest:
        """A :class:`ModelRequest` with this model's settings applied. ``tools``: :class:`Tool`
        objects or typed functions (wrapped as ``@tool`` would; a value of another kind raises
        :class:`~toolwire.errors.ToolDefinitionError`)."""
        s = self.settings
        tool_list = list(tools or [])
        for i, t in enumerate(tool_list):
            if type(t) is not Tool and not isinstance(t, Tool):
                tool_list[i] = _as_tool(t)
        known = COMMON_SETTINGS
        fields = {k: v for k, v in s.items() if k not in known and k[:1] != "_"}
        parallel, max_tokens, temperature, stream, thinking, more, extra = map(s.get, _REQUEST_SETTINGS)
        if more or extra:
            fields = dict(more or {}) | dict(extra or {}) | fields
        return ModelRequest(
            model=self.model_id,
            messages=list(messages),
            instructions=instructions,
            tools=tool_list,
            tool_choice=None if tool_choice is None else normalize_tool_choice(tool_choice),
            parallel_tool_calls=parallel,
            max_tokens=max_tokens,
            temperature=temperature,
            stream=bool(stream),
            thinking=thinking,
            settings=fields,
        )

    @abc.abstractmethod
    async def send(self, request: ModelRequest) -> Response:
        """Send one request; return the canonical response. Raises
        :class:`~toolwire.errors.ProviderError` on vendor errors."""

    async def send_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield canonical stream events. Default: one non-streamed :meth:`send`, replayed as events
        that assemble into the same response (reasoning, invalid and cut-off calls included)."""
        from .transport import response_events

        resp = await self.send(request)
        for event in response_events(resp):
            yield event

    def check_streamed(self, response: Response) -> Response:
        """The checks :meth:`send` applies to a response it assembles from a stream, for a response
        the loop assembled from :meth:`send_stream` events (so both give the same
        :class:`Response`). Default: :func:`toolwire.wire.check_tool_calls` (unnamed and
        duplicate-id calls marked invalid); an adapter with further rules overrides it."""
        from .wire import check_tool_calls

        return check_tool_calls(response)

    async def aclose(self) -> None:
        """Release HTTP clients the model created (not ones the user passed in)."""

    #: the SDK client the model made on the running event loop (one per loop, each closed on
    #: its own loop when that loop shuts down; see ``toolwire._clients``)
    _client = PerLoopClient()

    def _client_on_other_loop(self) -> bool:
        """True when ``self._client`` (made by this model: no ``http_client`` setting) is not
        the running event loop's own client, so the adapter makes one for this loop.

        Pooled connections belong to the loop they were opened on and fail on another one
        (``RuntimeError: ... is bound to a different event loop`` / ``Event loop is closed``
        inside ``httpx2``): one model used by ``run_sync`` from several threads (each thread has
        an event loop of its own) or by ``run_sync`` and then ``asyncio.run`` has a client per
        loop. Adapters make a new client then and call :meth:`_client_made` after making one."""
        return client_on_other_loop(self)

    def _client_made(self) -> None:
        """Called by adapters after making ``self._client`` (the per-loop bookkeeping happens
        when it is set)."""


def _dropped_parts(messages: Iterable[Message], api: str, offset: int) -> list[tuple[Any, ...]]:
    """The arguments of :func:`report_dropped_provider_tool_parts`'s changes for ``messages``
    (numbered from ``offset``), to add again on every later request of the conversation: the
    reasoning and provider tool parts of another API, reasoning in a user message (no API takes
    the model's reasoning from the user), and the calls and results in a message of a role no
    API takes them in (:func:`toolwire.turns.misplaced_changes`)."""
    out: list[tuple[Any, ...]] = []
    if not isinstance(messages, Sequence):
        messages = list(messages)
    misplaced = False
    for i, m in enumerate(messages, offset):
        assistant = m.role == "assistant"
        for j, p in enumerate(m.parts):
            if isinstance(p, ReasoningPart) and (p.provider != api or not assistant):
                why = (
                    "a reasoning part goes back only to the API that produced it (its signature or encrypted "
                    "content is valid nowhere else)"
                    if p.provider != api
                    else "reasoning is the model's, and goes back only in an assistant message"
                )
                out.append(
                    (
                        "reasoning.dropped",
                        f"/messages/{i}/parts/{j}",
                        f"{_reasoning_origin(p)} reasoning{'' if assistant else ' in a user message'} was left out: "
                        f"{why}",
                        None,
                        None,
                    )
                )
            elif not misplaced and (
                (isinstance(p, ToolCall) and not assistant) or (isinstance(p, ToolResult) and assistant)
            ):
                misplaced = True
            elif type(p) is ToolResult and p.provider_data:
                out += _kept_result_content(p, api, f"/messages/{i}/parts/{j}")
            elif isinstance(p, ProviderToolPart) and p.provider != api and p.kind != "metadata":
                what = f"{p.vendor_type} block" + (f" ({p.summary})" if p.summary else "")
                out.append(
                    (
                        "provider-tool.dropped",
                        f"/messages/{i}/parts/{j}",
                        f"the {p.provider} {what} was left out: a block kept whole for one provider (a "
                        f"provider tool's call or result, or content toolwire has no part for) goes back only "
                        f"to that provider (the text the model wrote from it is kept)",
                        p.name,
                        p.call_id,
                    )
                )
    if misplaced:
        out += misplaced_changes(messages, offset)
    return out


def _kept_result_content(result: ToolResult, api: str, pointer: str) -> list[tuple[Any, ...]]:
    """The ``provider-tool.dropped`` changes for the content blocks of an imported tool result
    that another API's adapter keeps whole for itself (``provider_data[<api>]["kept_content"]``:
    a description of each, such as ``"search_result block (Q3 figures)"``): content a result's
    parts cannot hold, which the encoding API leaves out."""
    out: list[tuple[Any, ...]] = []
    for owner, own in result.provider_data.items():
        kept = own.get("kept_content") if owner != api and isinstance(own, dict) else None
        if not isinstance(kept, list):
            continue
        by = f"tool {result.name!r}" if result.name is not None else f"call {result.tool_call_id!r}"
        for what in kept:
            out.append(
                (
                    "provider-tool.dropped",
                    pointer,
                    f"the {owner} {what} in the result of {by} was left out: content kept whole for one provider "
                    "goes back only to that provider (the rest of the result is sent)",
                    result.name,
                    result.tool_call_id,
                )
            )
    return out


def _reasoning_origin(p: ReasoningPart) -> str:
    """``"the anthropic"`` / ``"unattributed"``, with the size of the readable text, for a report."""
    who = f"the {p.provider}" if p.provider else "unattributed"
    return f"{who} ({len(p.text)} characters of text)" if p.text else who


def _placed(given: Sequence[Message], answered_messages: Sequence[Message], answered: Any) -> Sequence[Message]:
    """The messages the pointers of a request's lossy changes are numbered in: the caller's own
    (``given``, where a run's conversation has them), with reused call ids renumbered as the
    encoder saw them. The answers to unanswered calls (``answered``, by :func:`answer_request`)
    add messages and parts to the ``answered_messages`` that were encoded; without any, those
    are in the same places."""
    if not answered and (answered_messages is given or _same_places(given, answered_messages)):
        return answered_messages
    return renumber_reused_ids(list(given))[0]


def _same_places(given: Sequence[Message], encoded: Sequence[Message]) -> bool:
    """Whether every part of ``encoded`` is where it was in ``given``: the same part objects in
    the same places of messages of the same roles. (Counting messages and parts is not enough:
    the results moved out of an assistant message they filled go into a new user message in its
    place, as many parts. A part renumbered by :func:`~toolwire.turns.renumber_reused_ids` is a
    copy: the caller then numbers the changes in the given messages, renumbered.)"""
    if encoded is given:
        return True
    return len(given) == len(encoded) and all(
        a is b or (a.role == b.role and len(a.parts) == len(b.parts) and all(map(_is, a.parts, b.parts)))
        for a, b in zip(given, encoded)
    )


def _part_order(change: tuple[Any, ...]) -> tuple[int, ...]:
    """The place in the conversation a change's pointer names (``/messages/3/parts/0`` → (3, 0))."""
    pointer = change[1]
    return tuple(int(x) for x in pointer.split("/") if x.isdigit()) if isinstance(pointer, str) else ()


def _add_changes(report: RequestReport, changes: list[tuple[Any, ...]]) -> None:
    """Add ``(rule, pointer, detail, tool, call_id[, lossy])`` changes to ``report`` (lossy
    unless the sixth item says otherwise), in conversation order (by pointer; a stable sort, so
    the changes of one part keep their order): a request encoded whole and one encoded from the
    previous request's kept changes plus the new messages' report them alike."""
    if len(changes) > 1:
        changes = sorted(changes, key=_part_order)
    for change in changes:
        c: Any = change
        report.add(c[0], c[1], c[2], tool=c[3], call_id=c[4], lossy=c[5] if len(c) > 5 else True)


def _part_changes(
    codec: Any, request: ModelRequest, messages: Sequence[Message], api: str, offset: int
) -> list[tuple[Any, ...]]:
    """:func:`_dropped_parts` and :func:`_left_out` of ``messages`` (numbered from ``offset``):
    nothing, without asking, for a plain history (:func:`~toolwire.turns.plain_history`) sent to
    a codec that sends such a history whole (:func:`_sends_plain_whole`)."""
    if _sends_plain_whole(codec) and plain_history(messages):
        return []
    return _dropped_parts(messages, api, offset) + _left_out(codec, request, messages, offset)


#: codec class -> whether the class that gives its ``left_out_parts`` also declares
#: ``plain_history_sent_whole`` (a subclass overriding the hook alone is asked every time)
_PLAIN_WHOLE: dict[type, bool] = {}


def _sends_plain_whole(codec: Any) -> bool:
    """Whether ``codec`` says its ``left_out_parts`` reports nothing for a plain history
    (:func:`~toolwire.turns.plain_history`): its ``plain_history_sent_whole`` is true, declared
    by the same class that defines its ``left_out_parts`` (a subclass that overrides the hook
    without saying so again is asked every time). A codec without the hook leaves nothing out
    of its own."""
    cls = type(codec)
    declared = _PLAIN_WHOLE.get(cls)
    if declared is None:
        declared = False
        for klass in cls.__mro__:
            d = vars(klass)
            if "left_out_parts" in d:
                declared = "plain_history_sent_whole" in d
                break
        else:
            declared = True  # no hook: nothing of its own to report
        _PLAIN_WHOLE[cls] = declared
    return declared and (
        not hasattr(codec, "left_out_parts") or getattr(codec, "plain_history_sent_whole", False) is True
    )


def _left_out(codec: Any, request: ModelRequest, messages: Sequence[Message], offset: int) -> list[tuple[Any, ...]]:
    """The changes (``(rule, pointer, detail, tool, call_id)``, each lossy) for the parts of
    ``messages`` (numbered from ``offset``) that ``codec`` leaves out of ``request``'s body for
    a reason of its own, from its optional ``left_out_parts(request, messages, offset)``: e.g. the
    OpenAI Responses codec's reasoning items for a model that does not reason."""
    hook = getattr(codec, "left_out_parts", None)
    return list(hook(request, messages, offset)) if hook is not None else []


def _links(messages: Iterable[Message]) -> tuple[set[Any], set[Any], set[Any]]:
    """The call ids, the result ids and every other id linking parts (provider tool parts) of
    ``messages``."""
    calls: set[Any] = set()
    results: set[Any] = set()
    other: set[Any] = set()
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolCall):
                calls.add(p.id)
            elif isinstance(p, ToolResult):
                results.add(p.tool_call_id)
            elif isinstance(p, ProviderToolPart) and p.call_id is not None:
                other.add(p.call_id)
    return calls, results, other


class _History:
    """One conversation's last request as encoded (see :class:`_Histories`)."""

    __slots__ = (
        "owner",
        "ctx",
        "messages",
        "prints",
        "snapshots",
        "wire",
        "lead",
        "ids",
        "top",
        "dropped",
        "state",
        "frags",
        "kept",
        "style",
    )

    def __init__(self) -> None:
        self.owner: Any = None  # weak reference to ModelRequest.conversation
        self.ctx: Any = None
        self.messages: list[Message] = []
        # how a message edited in place later (a hook redacting a prompt mid-run) is noticed, so
        # the request is encoded whole: the fingerprint of the messages and context as encoded
        # (``toolwire.profile.history_prints``: a longer conversation's starts with it while
        # nothing in these changed) or, for values it does not take, a copy of each message
        # (``snapshots``) and of the context, compared type-strictly
        self.prints: tuple[bytes, bytes, list[type]] | None = None
        self.snapshots: list[Message] = []
        self.wire: list[Any] = []  # the encoded conversation (before repairs), never changed
        self.lead = 0  # entries the codec puts first whatever the messages (a system message)
        self.ids: set[Any] = set()
        # the body's other fields as encoded: their strict_bytes (with ``prints``) or a copy
        self.top: Any = None
        self.dropped: list[tuple[Any, ...]] = []
        self.state = PreflightState()
        # the JSON bytes of entries of ``wire`` as sent (:func:`body_json`), by ``id()``: only
        # entries of ``wire`` (never changed), kept alive in ``kept`` so an ``id`` stays theirs
        self.frags: dict[int, bytes] = {}
        self.kept: list[Any] = []
        self.style: Any = None  # the encoder the fragments were made with

    def entries_json(self, items: list[Any], c: Any, compact: bool) -> bytes:
        """``items`` (the conversation list of a body sent for this request) as JSON bytes: the
        entries that are entries of :attr:`wire` (the same objects, at the same index) from
        their kept bytes, the others (new entries, and the copies the preflight repaired)
        encoded now (``c``: a C encoder of :data:`_C`); the entries of ``wire`` encoded now are
        kept for the next request."""
        if self.style is not compact:
            self.frags, self.kept, self.style = {}, [], compact
        memo = self.frags
        frags: list[Any] = list(map(memo.get, map(id, items)))
        try:
            i = frags.index(None)
        except ValueError:
            i = len(frags)
        if i < len(frags):
            wire = self.wire
            n = len(wire)
            for j in range(i, len(frags)):
                if frags[j] is None:
                    e = items[j]
                    f = frags[j] = "".join(c(e, 0)).encode()
                    if j < n and wire[j] is e:
                        memo[id(e)] = f
                        self.kept.append(e)
        return b"[" + (b"," if compact else b", ").join(frags) + b"]"


def _as_tool(value: Any) -> Tool:
    """A typed function as its :class:`Tool` (the schema built once per function)."""
    if callable(value):
        from ._derived import tool_for_function

        return tool_for_function(value)
    from .errors import ToolDefinitionError

    raise ToolDefinitionError(f"tools must be Tool objects or typed functions, got {type(value).__name__}")


def _context(request: ModelRequest) -> list[Any]:
    """What the encoding of a conversation entry may depend on besides the messages (compared
    with ``==`` against a copy: a setting changed in place is noticed)."""
    return [
        request.model,
        request.instructions,
        [[type(t).__name__, t.name] for t in request.tools],
        request.tool_choice,
        request.parallel_tool_calls,
        request.max_tokens,
        request.temperature,
        request.stream,
        request.thinking,
        request.settings,
    ]


class _Histories:
    """Incremental encoding of the conversations a model sends (``ModelRequest.conversation``).

    For a codec whose ``concatenates_history(request)`` is true — its encoded conversation of messages
    ``P + T`` is the encoding of ``P`` followed by that of ``T`` whenever ``P`` is *closed* (every
    tool call in ``P`` answered in ``P``), ``T`` shares no tool call or result id with ``P``, the
    role changes between ``P``'s last message and ``T``'s first, and the request's other fields
    are the same — a request that extends the conversation's previous request (the same message
    objects first) is encoded as the previous entries (the very same dicts, never changed) plus
    the encoding of the new messages alone (the codec's optional ``history_lead(request)`` says
    how many entries it puts first whatever the messages, such as a system message; its optional
    ``history_boundary(last, first)`` whether two such entries would be joined). Anything else
    is encoded whole. The preflight then
    checks and repairs only the new entries (:func:`toolwire.profile.preflight` with
    ``pristine=True``). The result is the body and report a whole encode gives, byte for byte."""

    size = 8
    #: Conversations shorter than this many messages are encoded and checked whole: below it the
    #: bookkeeping that lets a request reuse the previous one's entries (fingerprints, links,
    #: copies) costs more than encoding the few messages again. Measured on the 2-turn and
    #: 50-turn benchmarks (docs/performance.md); a request at or past it starts the incremental
    #: encoding (one whole encode that is kept, then only the new messages).
    from_messages = 16

    __slots__ = ("_by_owner", "_last", "_sent")

    def __init__(self) -> None:
        self._by_owner: dict[int, _History] = {}
        self._last: tuple[Any, Any] = (None, None)  # the copies of the last (context, other fields) made
        # the bodies prepared and not posted yet (:func:`body_json`): ``id(conversation list)`` ->
        # ``(that list, the messages key, its _History)``; the list is kept alive, so the id is its own
        self._sent: dict[int, tuple[list[Any], str, _History]] = {}

    def take(self, body: dict[str, Any]) -> tuple[list[Any], str, _History] | None:
        """The registration of ``body``'s conversation list, removed (one post per preparation:
        a retry encodes whole), or ``None``."""
        sent = self._sent
        for hit in sent.values():  # the messages key of the first (they are all this model's)
            items = body.get(hit[1])
            break
        else:
            return None
        hit = sent.pop(id(items), None) if type(items) is list else None
        return hit if hit is not None and hit[0] is items else None

    def __reduce__(self) -> tuple[Any, tuple[()]]:  # copied or pickled empty: it is only a cache
        return (_Histories, ())

    @staticmethod
    def of(model: Model) -> _Histories:
        d: dict[str, Any] = model.__dict__  # type: ignore[assignment]
        h = d.get("_histories")
        if h is None:
            h = d["_histories"] = _Histories()
        return h

    def preflight(
        self, model: Model, codec: Any, profile: Profile, key: str, request: ModelRequest
    ) -> tuple[dict[str, Any], RequestReport]:
        owner = request.conversation
        oid = id(owner)
        by = self._by_owner
        hist = by.get(oid)
        if hist is not None and hist.owner() is not owner:
            hist = None
        messages = request.messages
        ctx = _context(request)
        prints = history_prints(ctx, messages)  # the state as encoded now (nothing runs in between)
        plan = None
        if hist is not None and self._extends(hist, ctx, messages, prints):
            plan = self._tail(hist, codec, profile, key, request)
        if hist is None or plan is None:
            hist = _History()
            plan = self._whole(hist, codec, profile, key, request, owner, ctx, prints)
        body, answered, closed, ids, dropped, ctx, top = plan
        wire = body.get(key)
        state = hist.state
        if type(wire) is list:
            # ``top`` equals the body's other fields (compared, or made from them); it is
            # ``state.top`` when the state holds it (the same object), so no second comparison
            same = state.top is not None and state.top is top
            sent, report = _preflight_pristine(profile, body, key, wire, state, same, closed)
        else:
            sent, report = _profile_preflight(profile, body, state=state)
        if answered:
            report_unanswered(report, answered, f"/{key}")
        if dropped:
            _add_changes(report, dropped)
        # remember this request for the next one of the conversation (only once it passed)
        by.pop(oid, None)
        if closed and type(wire) is list:
            if hist.prints is None:  # compared copies: of the messages not copied yet
                kept = len(hist.snapshots) if hist.messages else 0
                try:
                    hist.snapshots = hist.snapshots[:kept] + _snapshot(messages[kept:])
                except Exception:  # a message that cannot be copied: the next request is encoded whole
                    return sent, report
            else:
                hist.prints = prints
            hist.ctx, hist.top = ctx, top
            hist.messages = list(messages)
            hist.wire = wire
            hist.ids = ids
            hist.dropped = dropped
            if len(by) >= self.size:
                by.pop(next(iter(by)))
            by[oid] = hist
            items = sent.get(key) if type(sent) is dict else None
            if (
                type(items) is list
                and _posts_own_bodies(type(model))
                and not _BODY_HOOK_NAMES.intersection(model.__dict__)
            ):
                pending = self._sent
                if len(pending) >= self.size:
                    pending.pop(next(iter(pending)))
                pending[id(items)] = (items, key, hist)
        return sent, report

    @staticmethod
    def _tail(hist: _History, codec: Any, profile: Profile, key: str, request: ModelRequest) -> tuple[Any, ...] | None:
        """The plan of a request that extends ``hist``'s (the new messages encoded alone), or
        ``None`` when the cut between the old and the new messages is not clean."""
        n = len(hist.messages)
        tail = request.messages[n:]
        calls, results, other = _links(tail)
        if tail and hist.messages and tail[0].role == hist.messages[-1].role:
            return None
        ids = hist.ids
        linked = calls | results | other
        if not ids.isdisjoint(linked):
            return None
        if calls and sum(type(p) is ToolCall or isinstance(p, ToolCall) for m in tail for p in m.parts) != len(calls):
            # a call id used twice in the new messages: the later call is renumbered after its
            # message's place in the whole conversation (turns.renumber_reused_ids), not in the tail
            return None
        part = object.__new__(type(request))  # a shallow copy with the new messages only (replace() is slow)
        part.__dict__.update(request.__dict__)
        part.messages = tail
        answered_tail, answered = answer_request(part)
        tbody = codec.encode_request(answered_tail)
        twire = tbody.get(key)
        lead = hist.lead
        if type(twire) is not list or len(twire) < lead or (lead and twire[:lead] != hist.wire[:lead]):
            return None
        if hist.prints is not None:
            tbody[key] = None  # the other fields, in their places
            if strict_bytes(tbody) != hist.top:
                return None
        elif {k: v for k, v in tbody.items() if k != key} != hist.top:
            return None
        new = twire[lead:]
        if new and len(hist.wire) > lead:
            boundary = getattr(codec, "history_boundary", None)
            if callable(boundary) and boundary(hist.wire[-1], new[0]):
                return None
        tbody[key] = hist.wire + new
        closed = not answered and calls <= results
        dropped = hist.dropped
        if tail:  # (the new messages may all be left out: their parts are reported all the same)
            placed = _placed(tail, answered_tail.messages, answered)
            more = _part_changes(codec, answered_tail, placed, profile.api, n)
            if answered_tail is not part:
                more = moved_result_changes(placed, n) + more
            if more:
                dropped = dropped + more
        return tbody, answered, closed, ids | linked, dropped, hist.ctx, hist.top  # equal: kept

    def _whole(
        self,
        hist: _History,
        codec: Any,
        profile: Profile,
        key: str,
        request: ModelRequest,
        owner: Any,
        ctx: list[Any],
        prints: tuple[bytes, bytes, list[type]] | None,
    ) -> tuple[Any, ...]:
        """The plan of a request encoded whole (``hist`` is new)."""
        answered_req, answered = answer_request(request)  # the codecs do not read request.conversation
        body = codec.encode_request(answered_req)
        calls, results, other = _links(request.messages)
        closed = not answered and calls <= results  # with answers added, the next request is encoded whole
        placed = _placed(request.messages, answered_req.messages, answered)
        dropped = _part_changes(codec, answered_req, placed, profile.api, 0)
        if answered_req is not request:
            dropped = moved_result_changes(placed, 0) + dropped
        try:  # a finished run's entry goes when its conversation object does
            hist.owner = weakref.ref(owner, functools.partial(_forget, self._by_owner, id(owner)))
        except TypeError:  # an owner without weak references: kept alive with the entry
            hist.owner = lambda owner=owner: owner
        lead = getattr(codec, "history_lead", None)
        hist.lead = int(cast(Any, lead)(request)) if callable(lead) else self._lead(codec, request, key)
        top: Any = None
        if closed:
            wire = body.get(key)
            kept = None
            if prints is not None and type(wire) is list:
                body[key] = None  # the other fields, in their places
                kept = strict_bytes(body)
                body[key] = wire
            if kept is not None:  # fingerprints: of the messages and context, and of these fields
                hist.prints = prints
                top = kept
            else:
                top = {k: v for k, v in body.items() if k != key}
                last_ctx, last_top = self._last
                try:  # copies (the values may change later), shared with the last conversation when equal
                    ctx = last_ctx if last_ctx is not None and last_ctx == ctx else _snapshot(ctx)
                    top = last_top if last_top is not None and last_top == top else _snapshot(top)
                except Exception:  # a value that cannot be copied: this conversation is encoded whole
                    closed = False
                else:
                    self._last = (ctx, top)
            if closed:
                hist.state.top = top  # the preflight's token for the same fields (never changed)
        return body, answered, closed, calls | results | other, dropped, ctx, top

    @staticmethod
    def _extends(
        hist: _History, ctx: list[Any], messages: list[Message], prints: tuple[bytes, bytes, list[type]] | None
    ) -> bool:
        prev = hist.messages
        if len(messages) < len(prev) or not all(map(_is, messages, prev)):  # the same objects, not replaced
            return False
        kept = hist.prints
        if kept is not None:  # not edited in place since they were encoded: their bytes come first
            if prints is None:
                return False
            types = prints[2]
            return prints[1].startswith(kept[1]) and prints[0].startswith(kept[0]) and types[: len(kept[2])] == kept[2]
        if prints is not None or hist.ctx != ctx:
            return False
        # each equal to its copy (compared in C, calling the dataclasses' __eq__)
        return messages[: len(prev)] == hist.snapshots

    @staticmethod
    def _lead(codec: Any, request: ModelRequest, key: str) -> int:
        empty = codec.encode_request(dataclasses.replace(request, messages=[], conversation=None))
        wire = empty.get(key)
        return len(wire) if isinstance(wire, list) else 0


#: The methods that see a prepared body between the preflight and its encoding (:func:`body_json`).
_BODY_HOOKS = ("send", "send_stream", "prepare", "stream_body", "post", "_posted", "_send_once")
#: The same names: set on the model instance (``model.post = wrapper``), one of them may edit the
#: body as well, so those bodies are encoded whole.
_BODY_HOOK_NAMES = frozenset(_BODY_HOOKS)


@functools.lru_cache(maxsize=64)
def _posts_own_bodies(cls: type) -> bool:
    """Whether every method of ``cls`` that sees a prepared body is toolwire's own (the core's or
    an adapter package's): then nothing changes the body between the preflight and its encoding,
    and the entries of a conversation's earlier requests may be sent as their kept JSON bytes. A
    subclass overriding one (a ``post`` that edits the body) has its bodies encoded whole."""
    for name in _BODY_HOOKS:
        module = getattr(getattr(cls, name, None), "__module__", None) or ""
        if module != "toolwire" and not module.startswith(("toolwire.", "toolwire_")):
            return False
    return True


#: How the SDKs encode a body: ``compact`` (``True``) is ``json.dumps(value, ensure_ascii=False,
#: separators=(",", ":"), allow_nan=False)``, the Stainless SDKs' ``post(body=...)``
#: (``anthropic._utils._json.openapi_dumps``, ``openai._utils._json.openapi_dumps``); ``False`` is
#: ``json.dumps(value)`` with its defaults, google-genai's API client
#: (``BaseApiClient._async_request_once``: ``json.dumps(http_request.data).encode('utf-8')``),
#: except that a NaN or infinity is refused (``allow_nan=False``): json's defaults would write a
#: bare ``NaN`` literal, which is not JSON and which the API cannot parse.
_STYLES = {True: {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False}, False: {"allow_nan": False}}


def _c_encoders() -> dict[bool, Any]:
    """Per style, the C encoder ``json.dumps`` builds per call (``JSONEncoder.iterencode``), built
    once, without the circular-reference markers (a shared dict would be state between calls):
    ``encoder(value, 0)`` is a list of strings that join to ``json.dumps(value, **style)``, and a
    cycle raises ``RecursionError`` instead of json's ``ValueError`` (the caller then asks
    ``json.dumps``). Empty on a Python without json's C accelerator."""
    from json import encoder as jenc

    make = getattr(jenc, "c_make_encoder", None)
    if make is None:  # pragma: no cover - a Python without the C accelerator
        return {}
    default = _JSONEncoder().default  # raises TypeError for a value JSON cannot take, as in json.dumps
    return {
        True: make(None, default, jenc.encode_basestring, None, ":", ",", False, False, False),
        False: make(None, default, jenc.encode_basestring_ascii, None, ": ", ", ", False, False, False),
    }


_C = _c_encoders()
#: Below this many conversation entries a body is encoded whole (one C call is cheaper than
#: looking up and joining the pieces).
_PIECES_FROM = 8


def _dumps_bytes(body: Any, compact: bool) -> bytes | None:
    """``json.dumps(body, **_STYLES[compact]).encode()``, or ``None`` when json refuses a value."""
    c = _C.get(compact)
    try:
        if c is not None:
            try:
                return "".join(c(body, 0)).encode()
            except RecursionError:  # a cycle (or a body nested too deeply): as json.dumps says
                pass
        return _json_dumps(body, **_STYLES[compact]).encode()
    except UnicodeEncodeError:  # a lone surrogate (a str UTF-8 cannot carry): see below
        pass
    except (TypeError, ValueError):  # json refuses it
        return None
    # Text holding a lone UTF-16 surrogate (a tool's output decoded with ``surrogateescape``, as
    # ``os.listdir`` gives for a file name that is not UTF-8; half an emoji) cannot be UTF-8: the
    # SDK's own encoder would fail on every attempt. Each lone surrogate is sent as U+FFFD, as
    # toolwire does for the ones an answer spells; a pair of surrogates is the one character it
    # spells (UTF-16 round trip).
    try:
        text = _json_dumps(body, **_STYLES[compact])
    except (TypeError, ValueError):
        return None
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


#: A ``\\uXXXX`` escape of a UTF-16 surrogate in ASCII JSON (``ensure_ascii=True``): a high one and
#: the low one after it (a pair), or a low one alone; the run of backslashes before it decides
#: whether the ``\\`` starts an escape (an odd count) or is text (an even count).
_SURROGATE_ESCAPE_RUN = re.compile(rb"(\\+)u(d[89ab][0-9a-f]{2})(\\ud[c-f][0-9a-f]{2})?|(\\+)u(d[c-f][0-9a-f]{2})")


def _lone_surrogate_escapes_replaced(data: bytes) -> bytes:
    """ASCII JSON ``data`` with every escape of a lone UTF-16 surrogate (``\\ud800`` not followed by
    a low surrogate's escape, or a low one alone) written as ``\\ufffd``; pairs and text that
    merely looks like an escape (after an escaped backslash) are kept. Servers refuse the lone
    ones: "The request body is not valid JSON: no low surrogate in string"."""

    def fix(m: re.Match[bytes]) -> bytes:
        run = m.group(1)
        if run is None:  # a low surrogate with no high one before it
            run = m.group(4)
            return m.group(0) if len(run) % 2 == 0 else run[:-1] + b"\\ufffd"
        low = m.group(3)
        if len(run) % 2 == 0:  # text: backslashes, then "ud8.."; an escape of a lone low one may follow
            return run + b"u" + m.group(2) + (b"\\ufffd" if low else b"")
        return m.group(0) if low else run[:-1] + b"\\ufffd"

    return _SURROGATE_ESCAPE_RUN.sub(fix, data)


def body_json(model: Model, body: dict[str, Any], *, compact: bool = True) -> bytes | None:
    """See :func:`_body_json`; with ``compact=False`` (ASCII JSON) the escape of a lone UTF-16
    surrogate is sent as ``\\ufffd``, as the UTF-8 form sends the character U+FFFD."""
    out = _body_json(model, body, compact=compact)
    if not compact and out is not None and b"\\ud" in out:
        return _lone_surrogate_escapes_replaced(out)
    return out


def _body_json(model: Model, body: dict[str, Any], *, compact: bool = True) -> bytes | None:
    """The JSON bytes (UTF-8) of a wire ``body`` that ``model`` is about to post, byte for byte
    ``json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()`` (the
    Anthropic and OpenAI SDKs' encoding of ``post(body=...)``), or with ``compact=False``
    ``json.dumps(body, allow_nan=False).encode()`` (google-genai's, refusing a NaN). For the adapters' ``post``: hand the SDK these
    bytes (``post(content=...)``) instead of the dict.

    A body the model prepared for a conversation that extends its previous request (see
    ``ModelRequest.conversation``) is encoded without re-encoding the earlier entries of its
    conversation list: those are the very same objects, never changed, and their bytes from the
    earlier requests are reused (each body's own registration is used once: a retry, or a body
    posted twice, is encoded whole). ``None`` when JSON cannot carry a value (a ``datetime``, a
    NaN with ``compact=True``, a cycle): the caller then hands the SDK the dict, whose own encoder
    handles it or raises its own error. A lone UTF-16 surrogate in a string (UTF-8 cannot carry
    it) is sent as U+FFFD."""
    hit = None
    if type(body) is dict:
        histories = model.__dict__.get("_histories")
        if histories is not None and histories._sent:
            hit = histories.take(body)
    c = _C.get(compact)
    if hit is None or c is None or len(hit[0]) < _PIECES_FROM:
        return _dumps_bytes(body, compact)
    items, key, hist = hit
    try:
        listed = hist.entries_json(items, c, compact)
        # the fields before and after the conversation list, each a dict encoded whole (json's
        # own key conversion and order), joined around the list's bytes
        head: dict[Any, Any] = {}
        tail: dict[Any, Any] = {}
        part = head
        for k, v in body.items():
            if v is items and k == key and part is head:
                part = tail
            else:
                part[k] = v
        sep = "," if compact else ", "
        out = "".join(c(head, 0))[:-1] + (sep if head else "") + "".join(c(key, 0)) + (":" if compact else ": ")
        return out.encode() + listed + (sep + "".join(c(tail, 0))[1:] if tail else "}").encode()
    except (TypeError, ValueError, RecursionError):  # json refuses a value, or a cycle: as json.dumps says
        return _dumps_bytes(body, compact)


def _forget(by: dict[int, _History], oid: int, ref: Any) -> None:
    """The weak reference callback of a conversation gone: its entry (under the ``id`` it had) is
    released, unless another conversation's entry took that key since. One lookup, whatever the
    number of conversations held (it was a scan of them all: work that varied with how many
    conversations earlier code had left for the garbage collector)."""
    h = by.get(oid)
    if h is not None and h.owner is ref:
        del by[oid]


#: What an encoder raises on a value of a shape it does not write (a part's ``provider_data``
#: edited by hand, a field set to another type after it was made): turned into a
#: :class:`ConfigurationError` by :func:`_encode_failure` (toolwire's own errors pass as they are).
_ENCODE_FAILURES = (TypeError, AttributeError, KeyError, IndexError, ValueError)


def _encode_failure(model: Model, exc: BaseException) -> ConfigurationError:
    """The :class:`ConfigurationError` to raise for ``exc`` (not a toolwire error), raised while
    encoding a request of ``model``: it says that nothing was sent, why, and what to do."""
    try:
        detail = f"{type(exc).__name__}: {exc}"
    except Exception:  # an exception whose text cannot be read
        detail = type(exc).__name__
    api = getattr(model.codec, "api", None) or model.provider
    return ConfigurationError(
        f"{api}: request not sent: it could not be encoded ({detail[:300]}). A message part, its provider_data "
        "or a tool holds a value of a shape this adapter does not write, most often provider_data edited by hand "
        "in a saved run: load the saved run unedited, or remove the provider_data that was changed. If nothing "
        "was edited, this is a toolwire bug: please report it with this message."
    )


def _with_preflight(fn: Any, *, stream: bool) -> Any:
    """Wrap a subclass's ``send`` / ``send_stream``: preflight the request before its code runs."""

    def enter(self: Model, request: Any) -> tuple[int | None, Any]:
        """``(key, report)``: ``key`` is set when this call prepared the request (and must
        release it: :func:`leave`)."""
        if self.codec is None or (type(request) is not ModelRequest and not isinstance(request, ModelRequest)):
            return None, None
        d: dict[str, Any] = self.__dict__  # type: ignore[assignment]
        pending = d.get("_prepared")
        if pending is None:
            pending = d["_prepared"] = {}
        key = id(request)
        hit = pending.get(key)
        if hit is not None and hit[0] is request:  # an outer wrapper (super().send) already did it
            return None, hit[2]
        try:
            adjusted = self.before_encode(request, stream=stream)
        except ToolwireError:
            raise
        except _ENCODE_FAILURES as exc:
            raise _encode_failure(self, exc) from exc
        body, report = self._preflight(adjusted, incremental=True)
        pending[key] = (request, body, report)
        d["_last_report"] = report
        return key, report

    def leave(self: Model, key: int | None) -> None:
        if key is not None:
            self.__dict__["_prepared"].pop(key, None)

    if stream:

        @functools.wraps(fn)
        async def send_stream(
            self: Model, request: ModelRequest, *args: Any, **kwargs: Any
        ) -> AsyncIterator[StreamEvent]:
            owner, report = enter(self, request)
            attach = report is not None and bool(report.changes)
            events = fn(self, request, *args, **kwargs)
            try:
                async for ev in events:
                    if attach and isinstance(ev, StopEvent) and ev.preflight is None:
                        # the streamed turn carries the report too (Response.preflight once assembled)
                        ev = dataclasses.replace(ev, preflight=report)
                    yield ev
            finally:
                leave(self, owner)
                # stopped early (the consumer closed this generator): the transport's stream is
                # closed now, on this task, not left suspended for the garbage collector
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()

        send_stream._toolwire_preflight = True  # type: ignore[attr-defined]
        return send_stream

    @functools.wraps(fn)
    async def send(self: Model, request: ModelRequest, *args: Any, **kwargs: Any) -> Response:
        owner, report = enter(self, request)
        try:
            response = await fn(self, request, *args, **kwargs)
        finally:
            leave(self, owner)
        if report is not None and report.changes and isinstance(response, Response) and response.preflight is None:
            response.preflight = report
        return response

    send._toolwire_preflight = True  # type: ignore[attr-defined]
    return send


async def collect_stream(events: AsyncIterator[StreamEvent], provider: str | None) -> Response:
    """Assemble an async stream of canonical events into a :class:`Response`."""
    asm = StreamAssembler(provider)
    async for ev in events:
        asm.feed(ev)
    return asm.response()
