"""The Anthropic Messages codec: canonical request/response ↔ the ``/v1/messages`` wire JSON.

Pure functions only (no I/O, no clocks, no globals), speaking the same JSON as Anthropic's API
reference and recorded Messages API traffic. The transport that sends the
body through the ``anthropic`` SDK lives in :mod:`toolwire_anthropic.model`.

Wire facts this module relies on (Messages API, ``anthropic`` SDK 2.14 types):

- ``system`` is a string or a list of text blocks; ``messages[].content`` is a string or a list of
  content blocks (``text``, ``image``, ``tool_use``, ``tool_result``, ``thinking``,
  ``redacted_thinking``, plus server-tool and document blocks).
- Every ``tool_use`` must be answered by a ``tool_result`` in the *next* user message, and the
  ``tool_result`` blocks come first in that message's content (API error text: "tool_use ids were
  found without tool_result blocks immediately after").
- ``thinking`` / ``redacted_thinking`` blocks go back unmodified, in order
  (``types/thinking_block_param.py``: a modified block gives 400).
- Stream events: ``message_start``, ``content_block_start/delta/stop``, ``message_delta`` (usage is
  *cumulative*, ``types/message_delta_usage.py``), ``message_stop``, ``ping``, ``error``.

See ``docs/adapters/anthropic.md`` for the mapping tables and the documented choices.
"""

from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
import functools
import hashlib
import json
import operator
import re
from typing import Any, Callable, Iterable, Iterator, TypeVar, cast

from toolwire._words import plural
from toolwire.adapter import (
    DeclarationMemo,
    ModelRequest,
    given_thinking,
    normalize_tool_choice,
    tool_choice_setting_change,
)
from toolwire.errors import ProviderError, ResponseDecodeError, ToolwireError, UnsupportedToolChoice
from toolwire.profile import Violation, strict_bytes
from toolwire.schema.report import TranslationReport
from toolwire.stream import (
    ProviderToolDone,
    ReasoningDelta,
    ResponseStart,
    StopEvent,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from toolwire.tools import ProviderTool, Tool, check_imported_provider_tool
from toolwire.transport import error_in_body
from toolwire.turns import (
    ASSISTANT_IMAGE_NOTE,
    NOT_ANSWERED,
    answer_request,
    assistant_image_changes,
    duplicate_changes,
    moved_result_changes,
    readable_tool_result,
    system_as_user_changes,
    tool_image_changes,
)
from toolwire.types import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    ProviderToolPart,
    ReasoningPart,
    Response,
    StopReason,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
)
from toolwire.wire import (
    NAME_INVALID,
    SHAPE_ERRORS,
    Shape,
    check_tool_calls,
    duplicate_id_invalid,
    json_kind,
    mark_duplicate_ids,
    tool_name,
    usage_int,
)

from .profile import (
    IMAGE_MEDIA_TYPES,
    TOOL_NAME_RULE,
    TOOL_USE_ID_RULE,
    AnthropicProfile,
    claude_version,
    fetches_image_url,
    max_output_tokens,
    runs_prefix_check,
    server_tool_block_types,
    thinks,
)

__all__ = [
    "AnthropicCodec",
    "API",
    "DEFAULT_MAX_TOKENS",
    "STOP_REASON_MAP",
    "SETTINGS_MAP",
    "map_stop_reason",
    "usage_from_wire",
    "StreamDecoder",
    "NAME_INVALID",
    "duplicate_id_invalid",
    "mark_duplicate_ids",
    "check_tool_calls",
    "wire_tool_names",
]

API = "anthropic"

#: ``max_tokens`` is required by the Messages API; used when the request leaves it unset.
DEFAULT_MAX_TOKENS = 4096

#: Anthropic ``stop_reason`` → canonical stop reason (``types/stop_reason.py``; ``compaction`` is
#: ``anthropic.types.beta.BetaStopReason``'s: a turn handed back after its ``compaction`` block,
#: under ``pause_after_compaction``, which the next request continues, as the SDK's own tool
#: runner does, ``anthropic.lib.tools._beta_runner._STOP_REASON_STEPS``: "resume").
STOP_REASON_MAP: dict[str, str] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    "compaction": "pause_turn",
    "model_context_window_exceeded": "max_tokens",
}

#: Request fields ``decode_request`` puts in ``ModelRequest.settings`` and ``encode_request`` copies
#: back. Keys are the wire names, except the toolwire keys marked (toolwire) below.
SETTINGS_MAP: dict[str, str] = {
    "metadata": "wire field, copied as is",
    "stop_sequences": "wire field, copied as is",
    "top_p": "wire field, copied as is",
    "top_k": "wire field, copied as is",
    "service_tier": "wire field, copied as is",
    "container": "wire field, copied as is",
    "output_config": "wire field, copied as is",
    "inference_geo": "wire field, copied as is",
    "speed": "wire field, copied as is",
    "diagnostics": "wire field, copied as is",
    "cache_control": "wire field (top-level automatic caching), copied as is",
    "mcp_servers": "wire field, copied as is",
    "context_management": "wire field, copied as is",
    "system_cache_control": "(toolwire) cache_control of the system text block; its presence makes "
    "encode_request send system as one text block",
    "server_tools": "(toolwire) vendor-hosted tool declarations (web search, code execution, ...), "
    "each {'position': index in tools, 'tool': declaration}",
}

#: Keys of ``ModelRequest.settings`` that are toolwire's own and never copied into the body.
_TOOLWIRE_SETTING_KEYS = frozenset({"system_cache_control", "server_tools"})

#: Request fields with a canonical home (everything else goes to ``settings``).
_CANONICAL_FIELDS = frozenset(
    {"model", "messages", "system", "tools", "tool_choice", "max_tokens", "temperature", "stream", "thinking"}
)

#: Opaque per-block fields kept in ``provider_data["anthropic"]`` and sent back unchanged.
_TEXT_EXTRAS = ("cache_control", "citations")
_IMAGE_EXTRAS = ("cache_control",)
#: The fields of a document block other than its source and title, kept for the round trip.
_DOCUMENT_EXTRAS = ("cache_control", "citations", "context")
_TOOL_USE_EXTRAS = ("cache_control", "caller", "toolset_name")
_TOOL_RESULT_EXTRAS = ("cache_control", "toolset_name")

#: Anthropic's tool_use id pattern (rule ``anthropic.tool_use.id``, see :mod:`toolwire_anthropic.profile`).
_ID_RULE = TOOL_USE_ID_RULE

#: Error types of an SSE ``error`` event (or error body) that a retry may fix.
_RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})

#: ``error.details.error_code`` of a 429 that is no rate limit but a spend limit reached, which a
#: retry does not lift (``anthropic._error_classes.ERROR_CLASSES``: (429,
#: "enforced_spend_limit_reached"), "The organization has crossed the monthly API usage threshold
#: of its API tier"; (429, "contract_spend_limit_reached"), "The organization has reached the
#: spend limit of its contract"). ``ramp_limit_exceeded`` is not one: "Retry after the time in the
#: `retry-after` header".
SPEND_LIMIT_ERROR_CODES = frozenset({"enforced_spend_limit_reached", "contract_spend_limit_reached"})

_EPHEMERAL = {"type": "ephemeral"}
_B = TypeVar("_B")

#: ``ToolCall.invalid`` of a call whose ``name`` is absent, empty or not a JSON string.

# ---------------------------------------------------------------------------------------------
# shape checks (malformed vendor bodies → ResponseDecodeError, never a raw Python error)
# ---------------------------------------------------------------------------------------------


_S = Shape(API)
_bad, _obj, _opt_obj, _opt_list, _opt_str, _guarded = _S.bad, _S.obj, _S.opt_obj, _S.opt_list, _S.opt_str, _S.guarded
_json_kind, _counter, _tool_name, _SHAPE_ERRORS = json_kind, usage_int, tool_name, SHAPE_ERRORS


def _index(value: Any, pointer: str) -> int:
    """A stream block ``index``: a non-negative JSON integer."""
    return _S.index(value, pointer)


def _synth_id(seed: Any, request: ModelRequest | None, position: int) -> str:
    """A tool call id for a ``tool_use`` block sent without a usable ``id``:
    ``toolu_tw<16 hex>_<position>``, the hex a SHA-256 of the message id (or the whole message
    when it has none) and the number of messages in ``request`` (so the same body decoded on a
    later turn of the conversation gets other ids). Matches Anthropic's id pattern."""
    turn = len(request.messages) if request is not None else None
    text = json.dumps([seed, turn], sort_keys=True, ensure_ascii=False, default=str)
    return f"toolu_tw{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}_{position}"


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def map_stop_reason(raw: str | None, has_tool_calls: bool = False) -> str:
    """Anthropic ``stop_reason`` → canonical (see :data:`STOP_REASON_MAP`).

    An unknown or missing value maps to ``"tool_use"`` when the response holds client tool calls
    and ``"end_turn"`` otherwise; the raw value is always kept in ``vendor_stop_reason``.
    """
    if isinstance(raw, str) and raw in STOP_REASON_MAP:
        return STOP_REASON_MAP[raw]
    return "tool_use" if has_tool_calls else "end_turn"


def usage_from_wire(u: dict[str, Any] | None, *, requests: int = 0) -> Usage:
    """Anthropic ``usage`` (or ``message_delta.usage``) → :class:`~toolwire.types.Usage`, in tokens,
    with the meaning ``Usage`` has on every API (``anthropic.types.Usage``):

    - ``input_tokens`` = ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``:
      Anthropic's own ``input_tokens`` counts only the tokens after the last cache breakpoint, so
      the cached parts are added to give every input token of the request;
    - ``cache_read_tokens`` = ``cache_read_input_tokens``, ``cache_write_tokens`` =
      ``cache_creation_input_tokens`` (parts of ``input_tokens``);
    - ``cache_write_1h_tokens`` = ``cache_creation.ephemeral_1h_input_tokens`` (``CacheCreation``
      in the SDK: the part of the cache writes made with a one-hour TTL, billed at a higher rate);
    - ``output_tokens`` = ``output_tokens`` (thinking included: the SDK documents it as "the
      inclusive, authoritative total used for billing"); ``reasoning_tokens`` =
      ``output_tokens_details.thinking_tokens`` (a part of it).
    - each ``usage.iterations`` entry of type ``compaction`` (beta: the request that wrote a
      compaction summary) is added to these counters: "A `compaction` entry's tokens are not
      included in the top-level `usage` fields" (``anthropic.types.beta.BetaIterationsUsage``),
      and they are billed; the other entries (``message``, ``advisor_message``,
      ``fallback_message``) are not added.

    Absent or ``null`` fields stay ``None`` (a stream update then leaves the earlier value; the
    stream decoder merges the cumulative counters before mapping them); so do counters that are
    not non-negative integers (e.g. ``"12"``) and a ``usage`` that is not an object: usage is never
    passed through with the wrong type.
    """
    if type(u) is dict:  # decoded JSON (no dict subclass): the fields read without a call each
        details = u["output_tokens_details"] if "output_tokens_details" in u else None
        own = u["input_tokens"] if "input_tokens" in u else None
        read = u["cache_read_input_tokens"] if "cache_read_input_tokens" in u else None
        write = u["cache_creation_input_tokens"] if "cache_creation_input_tokens" in u else None
        out = u["output_tokens"] if "output_tokens" in u else None
    else:
        u = u if isinstance(u, dict) else {}
        details = u.get("output_tokens_details")
        own = u.get("input_tokens")
        read = u.get("cache_read_input_tokens")
        write = u.get("cache_creation_input_tokens")
        out = u.get("output_tokens")
    # a plain non-negative int is taken as is; anything else goes through the shared rule (usage_int)
    if type(own) is not int or own < 0:
        own = _counter(own)
    if read is not None and (type(read) is not int or read < 0):
        read = _counter(read)
    if write is not None and (type(write) is not int or write < 0):
        write = _counter(write)
    if type(out) is not int or out < 0:
        out = _counter(out)
    hour = None
    if "cache_creation" in u:
        creation = u["cache_creation"]
        if isinstance(creation, dict):
            hour = _counter(creation.get("ephemeral_1h_input_tokens"))
            if hour is not None and (write is None or hour > write):
                hour = None  # not a part of the cache writes: left out rather than over-priced
    if "iterations" in u and type(iterations := u["iterations"]) is list:
        # a compaction's own request: "A `compaction` entry's tokens are not included in the
        # top-level `usage` fields" (anthropic.types.beta.BetaIterationsUsage), yet billed: added
        for entry in iterations:
            if type(entry) is not dict or entry.get("type") != "compaction":
                continue
            e_own, e_out = _counter(entry.get("input_tokens")), _counter(entry.get("output_tokens"))
            e_read, e_write = (
                _counter(entry.get("cache_read_input_tokens")),
                _counter(entry.get("cache_creation_input_tokens")),
            )
            if e_own is not None or e_read or e_write:
                own = (own or 0) + (e_own or 0)
            if e_out is not None:
                out = (out or 0) + e_out
            if e_read:
                read = (read or 0) + e_read
            if e_write:
                write = (write or 0) + e_write
                creation = entry.get("cache_creation")
                e_hour = _counter(creation.get("ephemeral_1h_input_tokens")) if isinstance(creation, dict) else None
                if e_hour and e_hour <= e_write:
                    hour = (hour or 0) + e_hour
    # Usage(input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
    #       tool_use_prompt_tokens, requests, vendor_total_tokens, cache_write_1h_tokens)
    return Usage(
        None if own is None else own + (read or 0) + (write or 0),
        out,
        read,
        write,
        None if details is None else _counter(details.get("thinking_tokens")) if isinstance(details, dict) else None,
        None,
        requests,
        None,
        hour,
    )


def _extras(block: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """The opaque fields of ``block`` named in ``keys`` (``null`` values dropped) as provider_data."""
    if type(block) is not dict:
        found = {k: block[k] for k in keys if block.get(k) is not None}
        return {API: found} if found else {}
    found = None
    for k in keys:
        if k in block and block[k] is not None:
            if found is None:
                found = {}
            found[k] = block[k]
    return {API: found} if found else {}


def _own(provider_data: dict[str, Any] | None) -> dict[str, Any]:
    if not provider_data:
        return _NONE
    value = provider_data.get(API)
    return value if isinstance(value, dict) else _NONE


#: The empty provider data of a part (shared: read only).
_NONE: dict[str, Any] = {}


#: ``budget_tokens`` for the cross-provider ``thinking={"effort": ...}`` (the values LiteLLM
#: uses for ``reasoning_effort`` on Claude: low 1024, medium 2048, high 4096; ``minimal`` takes
#: the API's minimum, 1024; ``xhigh`` and ``max`` double from ``high``).
EFFORT_BUDGETS = {"minimal": 1024, "low": 1024, "medium": 2048, "high": 4096, "xhigh": 8192, "max": 16384}


def _adaptive_effort(thinking: Any, model: Any) -> str | None:
    """``output_config.effort`` for the cross-provider ``{"effort": E}`` on a model that thinks
    adaptively (Claude 4.6 and later: :func:`_thinking_wire` sends ``{"type": "adaptive"}``),
    ``None`` otherwise. ``minimal`` → ``low`` (``OutputConfigParam.effort`` takes low, medium,
    high, xhigh and max)."""
    if not isinstance(thinking, dict) or "type" in thinking or "effort" not in thinking:
        return None
    effort = thinking["effort"]
    level = effort.strip().lower() if isinstance(effort, str) else None
    if level not in EFFORT_BUDGETS or not _thinks_adaptively(model):
        return None
    return "low" if level == "minimal" else level


def _thinks_adaptively(model: Any) -> bool:
    """Claude 4.6 and later: adaptive thinking with ``output_config.effort`` (4.7 and later
    refuse manual thinking: '"thinking.type.enabled" is not supported for this model. Use
    "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.')."""
    version = claude_version(model)
    return version is not None and version >= (4, 6)


#: The output tokens kept for the answer beside an effort's thinking budget when the caller set no
#: ``max_tokens`` (thinking tokens count against ``max_tokens``): the default an answer has
#: without thinking.
EFFORT_ANSWER_ROOM = DEFAULT_MAX_TOKENS

#: The rule of how the cross-provider effort is sent as manual thinking (profile.RULES).
EFFORT_BUDGET_RULE = "anthropic.request.thinking-effort-budget"


def _manual_effort(thinking: Any, model: Any) -> str | None:
    """The level (lower case) of a cross-provider ``{"effort": E}`` that is sent as manual
    thinking with a budget (:data:`EFFORT_BUDGETS`): a known level other than ``none``, on a
    model that thinks (:func:`~toolwire_anthropic.profile.thinks`) and does not think adaptively
    (before Claude 4.6); ``None`` otherwise."""
    if not isinstance(thinking, dict) or "type" in thinking or "effort" not in thinking:
        return None
    effort = thinking["effort"]
    level = effort.strip().lower() if isinstance(effort, str) else None
    if level not in EFFORT_BUDGETS or _thinks_adaptively(model) or not thinks(model):
        return None
    return level


def _effort_left_out(thinking: Any, model: Any, body: dict[str, Any]) -> tuple[Any, ...] | None:
    """The report of rule ``anthropic.request.thinking-model`` for a cross-provider ``{"effort":
    E}`` (a known level other than ``none``) that the preflight left out of ``body`` because
    ``model`` has no extended thinking, naming the setting the caller wrote (the preflight's own
    report quotes the ``thinking`` object it was encoded to); ``None`` for any other case."""
    if not isinstance(thinking, dict) or "type" in thinking or "effort" not in thinking or "thinking" in body:
        return None
    effort = thinking["effort"]
    level = effort.strip().lower() if isinstance(effort, str) else None
    if level not in EFFORT_BUDGETS or thinks(model):
        return None
    return (
        "anthropic.request.thinking-model",
        "/thinking",
        f"thinking={{'effort': {level!r}}} left out: {model} has no extended thinking (the API refuses "
        f"thinking: \"'{model}' does not support thinking.\")",
        None,
        None,
        True,
    )


def _effort_max_tokens(level: str, model: Any) -> int:
    """``max_tokens`` for effort ``level`` when the caller set none: its budget plus
    :data:`EFFORT_ANSWER_ROOM`, at most the model's maximum output (when toolwire knows it)."""
    wanted = EFFORT_BUDGETS[level] + EFFORT_ANSWER_ROOM
    most = max_output_tokens(model) if isinstance(model, str) else None
    return wanted if most is None else max(min(wanted, most), DEFAULT_MAX_TOKENS)


def _default_max_tokens(request: ModelRequest) -> int:
    """``max_tokens`` for a request that sets none: :data:`DEFAULT_MAX_TOKENS`, or room for the
    thinking budget of a cross-provider effort sent as manual thinking (:func:`_effort_max_tokens`)."""
    thinking = request.thinking
    level = _manual_effort(given_thinking(thinking), request.model) if thinking else None
    return DEFAULT_MAX_TOKENS if level is None else _effort_max_tokens(level, request.model)


def _thinking_wire(thinking: Any, max_tokens: Any, model: Any = None) -> Any:
    """The ``thinking`` field for a request's thinking settings: Anthropic's own object
    (``{"type": "enabled", "budget_tokens": N}``, ``{"type": "adaptive"}``, ``{"type":
    "disabled"}``) unchanged; the cross-provider ``{"effort": E}`` (what OpenAI and Gemini take)
    without a ``type`` → ``{"type": "disabled"}`` for ``"none"``, else manual thinking with
    :data:`EFFORT_BUDGETS` tokens, kept below ``max_tokens`` (the body's, and the model's most
    output: ``budget_tokens`` must be at least 1024 and less than ``max_tokens``,
    ``anthropic.types.ThinkingConfigEnabledParam``; a budget lowered is reported by
    :meth:`AnthropicCodec.setting_changes`). An effort toolwire does not know is sent as given
    (the API names what it takes). On Claude 4.6 and later the effort is sent as ``{"type":
    "adaptive"}`` with ``output_config.effort`` (:func:`_adaptive_effort`): 4.7 and later refuse
    manual thinking."""
    if not isinstance(thinking, dict) or "type" in thinking or "effort" not in thinking:
        return copy.deepcopy(thinking)
    effort = thinking["effort"]
    level = effort.strip().lower() if isinstance(effort, str) else None
    if level == "none":
        return {"type": "disabled"}
    if level not in EFFORT_BUDGETS:
        return copy.deepcopy(thinking)
    if _thinks_adaptively(model):
        return {"type": "adaptive"}  # the effort goes in output_config (_adaptive_effort)
    budget = EFFORT_BUDGETS[level]
    cap = max_tokens if type(max_tokens) is int else None
    most = max_output_tokens(model) if isinstance(model, str) else None
    if cap is not None and most is not None:
        cap = min(cap, most)  # the preflight lowers a larger max_tokens to the model's most
    if cap is not None and cap - 1 < budget:
        budget = max(1024, cap - 1)  # below 1025 max_tokens the preflight refuses (restate_refusal words it)
    return {"type": "enabled", "budget_tokens": budget}


def _choice_words(choice: Any) -> str:
    """The tool choice as the caller wrote it (canonical form)."""
    if isinstance(choice, dict) and choice.get("type") == "tool":
        return f"{{'type': 'tool', 'name': {choice.get('name')!r}}} (a forced call of {choice.get('name')!r})"
    return repr(choice)


def _pending_container(messages: list[Message]) -> str | None:
    """The container id to send back with the last assistant message's: its response's
    ``container.id`` when that turn may have code execution pending, ``None`` otherwise (a
    caller's own ``container`` setting always wins). The API refuses the next request without it
    ("container_id is required when there are pending tool uses generated by code execution with
    tools"; the SDKs propagate ``container.id`` the same way, anthropics/anthropic-sdk-python#1150),
    and the tool uses generated by code execution include server tools called from the sandbox
    (anthropics/anthropic-sdk-python#1801). So it is sent when that message

    - holds a tool call with a ``caller`` (programmatic tool calling), or a server-tool call block
      (``server_tool_use``, ...) whose ``caller`` is not ``{"type": "direct"}`` (a web fetch or
      search run by the code: its result may still be pending), or
    - ends the request: the turn is being continued (``pause_turn``, "provide the response back
      as-is ... to let the model continue", ``anthropic.types.Message.stop_reason``), and it goes
      on in the container it paused in."""
    for mi in range(len(messages) - 1, -1, -1):
        m = messages[mi]
        if m.role != "assistant":
            continue
        if mi != len(messages) - 1 and not any(_by_code(p) for p in m.parts):
            return None
        own = m.provider_data.get(API) if isinstance(m.provider_data, dict) else None
        container = own.get("container") if isinstance(own, dict) else None
        cid = container.get("id") if isinstance(container, dict) else container
        return cid if isinstance(cid, str) and cid else None
    return None


def _by_code(p: Any) -> bool:
    """Whether ``p`` is a tool use code execution made: a tool call with a ``caller``, or one of
    this API's server-tool call blocks with a ``caller`` that is not ``{"type": "direct"}``
    (``anthropic.types.ServerToolUseBlock.caller``: ``DirectCaller | ServerToolCaller |
    ServerToolCaller20260120``)."""
    if isinstance(p, ToolCall):
        return isinstance(p.provider_data.get(API), dict) and bool(p.provider_data[API].get("caller"))
    if isinstance(p, ProviderToolPart) and p.provider == API and p.kind == "call" and isinstance(p.raw, dict):
        caller = p.raw.get("caller")
        return bool(caller) and not (isinstance(caller, dict) and caller.get("type") == "direct")
    return False


def _wire_id(call_id: str) -> str:
    """A tool call id as sent to Anthropic (rule ``anthropic.tool_use.id``): unchanged when it
    matches ``^[a-zA-Z0-9_-]+$`` (every Anthropic id and toolwire's synthesized ids do); otherwise
    every other character becomes ``_`` and ``_`` plus 8 hex digits of the original id's SHA-256 is
    appended, so the mapping is deterministic (a call and its result still pair, on every turn)
    and two ids that differ only in those characters (``call.1``, ``call:1``) stay distinct."""
    if _ID_RULE.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{re.sub(r'[^a-zA-Z0-9_-]', '_', call_id)}_{digest}"


def _sanitize_name(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)


def _hashed_name(name: str) -> str:
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{_sanitize_name(name)[:119]}_{digest}"


def wire_tool_names(names: Iterable[str]) -> dict[str, str]:
    """The names a request's tools are sent under, for the names Anthropic refuses (rule
    ``anthropic.tool.name``: ``^[a-zA-Z0-9_-]{1,128}$``): a tool imported from another provider's
    history (Gemini allows ``.`` and ``:``, e.g. ``files.read:v2``) is sent as the name with each
    other character replaced by ``_`` (``files_read_v2``), cut to 128 characters; when that is
    taken by another tool of the request (or too long), as the first 119 characters plus ``_`` and
    8 hex digits of the name's SHA-256. Deterministic for a tool set, so the declaration, the
    ``tool_use`` blocks of the history and the tool choice agree on every turn, and
    :meth:`AnthropicCodec.decode_response` maps the model's calls back to the real name. Valid
    names are not in the result (sent unchanged)."""
    return dict(_wire_names(tuple(n for n in names if isinstance(n, str))))


@functools.lru_cache(maxsize=256)
def _wire_names(names: tuple[str, ...]) -> dict[str, str]:
    """:func:`wire_tool_names` of a tuple of names (memoized: the same tools are sent every turn;
    the dict returned is shared and never changed)."""
    used = {n for n in names if TOOL_NAME_RULE.fullmatch(n)}
    if len(used) == len(names):
        return {}  # every name valid (the usual case): none renamed
    out: dict[str, str] = {}
    for n in names:
        if n in used or n in out:
            continue
        w = _sanitize_name(n)
        if not w or len(w) > 128 or w in used:
            w = _hashed_name(n)
        out[n] = w
        used.add(w)
    return out


def _history_name(name: str, names: dict[str, str]) -> str:
    """A ``tool_use`` name in the history as sent: the request's mapping, else (a tool no longer
    declared) the hashed form when Anthropic refuses it."""
    if name in names:
        return names[name]
    return name if TOOL_NAME_RULE.fullmatch(name) else _hashed_name(name)


_NAME = operator.attrgetter("name")
_STR_ONLY = {str}


def _request_names(request: ModelRequest) -> dict[str, str]:
    """:func:`wire_tool_names` of ``request``'s tools (shared, never changed)."""
    names = tuple(map(_NAME, request.tools))
    try:
        return _wire_names(names) if not names or set(map(type, names)) == _STR_ONLY else wire_tool_names(names)
    except TypeError:  # pragma: no cover - a name that cannot be hashed
        return wire_tool_names(names)


@functools.lru_cache(maxsize=256)
def _inverse(names: tuple[str, ...]) -> dict[str, str]:
    return {w: n for n, w in _wire_names(names).items()}


def _real_names(request: ModelRequest | None) -> dict[str, str]:
    """Wire name → the tool's own name, for the renamed tools of ``request`` (shared, never changed)."""
    if request is None or not request.tools:
        return {}
    names = tuple(map(_NAME, request.tools))
    if set(map(type, names)) != _STR_ONLY:
        return {w: n for n, w in wire_tool_names(names).items()}
    return _inverse(names) if _wire_names(names) else {}


#: Response fields kept whole in ``Response.provider_data["anthropic"]``: the stop fields, the
#: server-tool container, and ``input_transformations`` (what the API changed in the request's
#: input before the model read it: the thinking blocks it dropped, or let through although they
#: failed the prefix check; sent with the ``thinking-binding-controls-2026-08-01`` beta:
#: ``anthropic.types.beta.BetaMessage.input_transformations``,
#: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking).
#: Also ``diagnostics`` (why the prompt cache missed, asked for with the ``diagnostics`` setting:
#: ``anthropic.types.Message.diagnostics``) and ``context_management`` (the context edits the API
#: applied, asked for with the ``context_management`` setting:
#: ``anthropic.types.beta.BetaMessage.context_management``): answers to settings toolwire sends.
_RESPONSE_FIELDS = (
    "stop_sequence",
    "stop_details",
    "container",
    "input_transformations",
    "diagnostics",
    "context_management",
)

#: ``usage`` fields that :class:`~toolwire.types.Usage` has no counter for, kept whole in
#: ``Response.provider_data["anthropic"]["usage"]`` (``anthropic.types.Usage``,
#: ``anthropic.types.beta.BetaUsage``): the server tools' billed requests (``server_tool_use``:
#: web searches and fetches), the tier and region that served the request, the per-iteration
#: breakdown (``iterations``) and the outcome of a fallback credit (``fallback_credit``).
_USAGE_EXTRAS = ("server_tool_use", "service_tier", "inference_geo", "iterations", "fallback_credit")


def _usage_extras(usage: Any) -> dict[str, Any] | None:
    """The :data:`_USAGE_EXTRAS` of an answer's ``usage`` (``null`` ones left out), or ``None``."""
    if type(usage) is not dict:
        return None
    found = {k: usage[k] for k in _USAGE_EXTRAS if k in usage and usage[k] is not None}
    return found or None


def _price_context(usage: Any) -> dict[str, str] | None:
    """What the answer's ``usage`` says about how the request was served that changes its price
    (``anthropic.types.Usage.speed``: ``"fast"`` when fast mode served it), as the price
    context :func:`toolwire.pricing.price` reads from ``provider_data["anthropic"]["price_context"]``
    (genai-prices prices fast mode with ``{"speed": "fast"}``); ``None`` otherwise."""
    speed = usage.get("speed") if type(usage) is dict else None
    return {"speed": speed} if isinstance(speed, str) and speed and speed != "standard" else None


#: Why a refusal before any output costs nothing (``provider_data["anthropic"]["not_billed"]``,
#: read by :func:`toolwire.pricing.price_turn`): "When a refusal arrives before Claude generates
#: any output, you are not billed for the request on the Claude API, and the usage counts in that
#: response are informational only" (Anthropic, "Streaming refusals"). Said of the Claude API only:
#: a gateway or cloud platform bills as it does.
REFUSAL_NOT_BILLED = "the Claude API does not bill a request refused before any output"


def _note_not_billed(response: Response) -> None:
    """Mark a refusal without any output (no content block, or only empty text blocks) as not
    billed."""
    if any(type(p) is not TextPart or p.text for p in response.parts):
        return
    pd = response.provider_data.get(API)
    if not isinstance(pd, dict):
        pd = response.provider_data[API] = {}
    pd["not_billed"] = REFUSAL_NOT_BILLED


def _decode_usual(body: Any, request: ModelRequest | None) -> Response | None:
    """:meth:`AnthropicCodec.decode_response` of the usual answer, in one pass with no
    intermediate values: a JSON object (no ``error`` type) whose ``id``, ``model`` and
    ``stop_reason`` are strings or ``null`` and whose content is text blocks and ``tool_use``
    blocks with a non-empty string id and name and an object input, none carrying an opaque
    field (``cache_control``, ``citations``, ``caller``, ``toolset_name``). ``None`` for anything
    else: the full decoding then reads (and checks) it."""
    if type(body) is not dict or "content" not in body:
        return None
    content = body["content"]
    if type(content) is not list or ("type" in body and body["type"] == "error"):
        return None
    message_id = body["id"] if "id" in body else None
    model = body["model"] if "model" in body else None
    raw_stop = body["stop_reason"] if "stop_reason" in body else None
    if not (
        (message_id is None or type(message_id) is str)
        and (model is None or type(model) is str)
        and (raw_stop is None or type(raw_stop) is str)
    ):
        return None
    parts: list[Part] = []
    real: dict[str, str] | None = None
    calls = False
    for b in content:
        if type(b) is not dict:
            return None
        btype = b["type"] if "type" in b else None
        if btype == "text":
            text = b["text"] if "text" in b else None
            if (
                type(text) is not str
                or ("cache_control" in b and b["cache_control"] is not None)
                or ("citations" in b and b["citations"] is not None)
            ):
                return None
            parts.append(TextPart(text, {}, "text"))
        elif btype == "tool_use":
            raw_id = b["id"] if "id" in b else None
            name = b["name"] if "name" in b else None
            raw_input = b["input"] if "input" in b else None
            if (
                type(raw_id) is not str
                or not raw_id
                or type(name) is not str
                or not name
                or type(raw_input) is not dict
                or ("cache_control" in b and b["cache_control"] is not None)
                or ("caller" in b and b["caller"] is not None)
                or ("toolset_name" in b and b["toolset_name"] is not None)
            ):
                return None
            if real is None:
                real = _real_names(request)
            if name in real:
                name = real[name]  # a renamed tool (rule anthropic.tool.name): the real name
            # ToolCall(id, name, arguments, raw_arguments, invalid, incomplete, id_synthesized, provider_data)
            parts.append(ToolCall(raw_id, name, dict(raw_input), None, None, False, False, {}, "tool_call"))
            calls = True
        else:
            return None
    stop: Any = STOP_REASON_MAP[raw_stop] if raw_stop in STOP_REASON_MAP else "tool_use" if calls else "end_turn"
    if stop == "max_tokens" and parts and type(parts[-1]) is ToolCall:
        last = parts[-1]
        last.incomplete = True  # type: ignore[union-attr]
        last.invalid = "the response hit max_tokens inside this tool call; its input may be cut off"  # type: ignore[union-attr]
    pd: dict[str, Any] = {}
    for k in _RESPONSE_FIELDS:
        if k in body and body[k] is not None:
            pd[k] = body[k]
    if "usage" in body:
        if (ctx := _price_context(body["usage"])) is not None:
            pd["price_context"] = ctx
        if (extras := _usage_extras(body["usage"])) is not None:
            pd["usage"] = extras
    # Response(parts, stop_reason, vendor_stop_reason, usage, model, response_id, provider, provider_data)
    response = Response(
        parts,
        stop,
        raw_stop,
        usage_from_wire(body["usage"] if "usage" in body else None, requests=1),
        model,
        message_id,
        API,
        {API: pd} if pd else {},
    )
    # the calls' names, finite arguments and unique ids (an answer without calls has nothing to mark)
    return check_tool_calls(response) if calls else response


def _error_from_event(data: dict[str, Any]) -> ProviderError:
    err = err if isinstance(err := data.get("error"), dict) else {}
    etype = err.get("type")
    return ProviderError(
        API,
        str(err.get("message") or data),
        status=None,
        retryable=etype in _RETRYABLE_ERROR_TYPES,
        error_type=etype,
        body=data,
    )


# ---------------------------------------------------------------------------------------------
# decoding content blocks (shared by decode_response and decode_request)
# ---------------------------------------------------------------------------------------------


def _decode_image(block: dict[str, Any]) -> ImagePart | None:
    src = block.get("source")
    if not isinstance(src, dict):
        return None  # kept opaque, re-sent as received
    pd = _extras(block, _IMAGE_EXTRAS)
    if src.get("type") == "base64" and isinstance(src.get("data"), str):
        try:
            data = base64.b64decode(src["data"], validate=True)
        except (binascii.Error, ValueError):
            return None
        if base64.b64encode(data).decode("ascii") != src["data"]:
            return None  # not canonical base64: keep the block opaque so it goes back byte-equal
        media_type = src.get("media_type")
        return ImagePart(
            data=data,
            media_type=media_type if isinstance(media_type, str) and media_type else "application/octet-stream",
            provider_data=pd,
        )
    if src.get("type") == "url" and isinstance(src.get("url"), str):
        return ImagePart(url=src["url"], provider_data=pd)
    return None


def _decode_document(block: dict[str, Any]) -> DocumentPart | None:
    """A ``document`` block of a PDF given as base64 or of plain text → :class:`DocumentPart`
    (``title`` as its ``filename``; ``citations``, ``context``, ``cache_control`` kept in
    ``provider_data``), so the document reaches another API too; ``None`` for any other document
    (by URL, by file id, of content blocks) or one that would not go back byte-equal (then kept
    whole, for Anthropic only)."""
    src = block.get("source")
    title = block.get("title")
    if not isinstance(src, dict) or set(block) - {"type", "source", "title", *_DOCUMENT_EXTRAS}:
        return None
    if title is not None and not isinstance(title, str):
        return None
    data = src.get("data")
    if set(src) != {"type", "media_type", "data"} or not isinstance(data, str):
        return None
    try:
        if src.get("type") == "base64" and src.get("media_type") == "application/pdf":
            raw = base64.b64decode(data, validate=True)
            if base64.b64encode(raw).decode("ascii") != data:
                return None  # not canonical base64: kept whole so it goes back byte-equal
            part = DocumentPart(raw, "application/pdf", title)
        elif src.get("type") == "text" and src.get("media_type") == "text/plain":
            part = DocumentPart(data.encode("utf-8"), "text/plain", title)
        else:
            return None
    except (binascii.Error, ValueError):  # not base64, no bytes, not a PDF, a lone surrogate
        return None
    part.provider_data = _extras(block, _DOCUMENT_EXTRAS)
    return part


def _decode_tool_use(block: dict[str, Any], synth: Callable[[], str]) -> ToolCall:
    """A ``tool_use`` block → :class:`ToolCall`. A missing/empty/non-string ``id`` gets
    ``synth()`` (``id_synthesized=True``); a missing or non-string ``name`` makes the call invalid
    (:data:`NAME_INVALID`); an ``input`` that is not an object makes it invalid too."""
    raw_input = block.get("input")
    if isinstance(raw_input, dict):
        args, invalid = dict(raw_input), None
    elif raw_input is None:
        args, invalid = {}, None
    else:
        args, invalid = None, f"tool_use input must be a JSON object, got a JSON {_json_kind(raw_input)}"
    name, name_invalid = _tool_name(block.get("name"))
    raw_id = block.get("id")
    has_id = isinstance(raw_id, str) and bool(raw_id)
    return ToolCall(
        id=raw_id if isinstance(raw_id, str) and raw_id else synth(),
        name=name,
        arguments=args,
        invalid=name_invalid or invalid,
        id_synthesized=not has_id,
        provider_data=_extras(block, _TOOL_USE_EXTRAS),
    )


def _decode_result_content(
    content: Any,
) -> tuple[str | list[TextPart | ImagePart | DocumentPart], list[dict[str, Any]]]:
    """``tool_result.content`` → canonical content plus opaque blocks (``{"position", "block"}``)."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    parts: list[TextPart | ImagePart | DocumentPart] = []
    opaque: list[dict[str, Any]] = []
    for i, b in enumerate(content if isinstance(content, list) else []):
        btype = b.get("type") if isinstance(b, dict) else None
        if btype == "text" and isinstance(b.get("text"), str):
            parts.append(TextPart(b["text"], _extras(b, _TEXT_EXTRAS)))
            continue
        if btype == "image":
            img = _decode_image(b)
            if img is not None:
                parts.append(img)
                continue
        if btype == "document":
            doc = _decode_document(b)
            if doc is not None:
                parts.append(doc)
                continue
        opaque.append({"position": i, "block": copy.deepcopy(b)})
    return parts, opaque


def _decode_blocks(
    content: Any, *, role: str, pointer: str = "/content", synth: Callable[[int], str] | None = None
) -> list[Part]:
    """A message's content (string or block list) → canonical parts, in the blocks' order.

    Server-side tool blocks (``server_tool_use``, ``web_search_tool_result``, ... :func:`server_tool_part`)
    become :class:`ProviderToolPart` values at their place; so does every other block toolwire has
    no canonical part for (documents, search results, container uploads, compaction blocks, an
    image whose source cannot be read back byte-equal, a type newer than toolwire:
    :func:`kept_block_part`). ``pointer`` is the JSON pointer of ``content`` (for error
    messages); ``synth(position)`` gives the id of a ``tool_use`` block without one. Raises
    :class:`ResponseDecodeError` when ``content`` is neither a string nor an array, a block is not
    an object, its ``type`` is missing, empty or not a string, or a known block's text field is
    not a string.
    """
    if isinstance(content, str):
        return [TextPart(content)]
    parts: list[Part] = []
    calls = 0
    for i, b in enumerate(_opt_list(content, pointer)):
        at = f"{pointer}/{i}"
        b = _obj(b, at)
        btype = b.get("type")
        if type(btype) is not str or not btype:  # a block of any type is kept whole: its type is text
            raise _untyped_block(btype, at)
        if btype == "text":
            text = b.get("text")
            if not isinstance(text, str):
                raise _bad(f"{at}/text", "a string", text)
            parts.append(TextPart(text, _extras(b, _TEXT_EXTRAS)))
        elif btype == "image" and (img := _decode_image(b)) is not None:
            parts.append(img)
        elif btype == "document" and (doc := _decode_document(b)) is not None:
            parts.append(doc)
        elif btype == "tool_use":
            position = calls
            parts.append(_decode_tool_use(b, lambda: synth(position) if synth else f"toolu_tw_{position}"))
            calls += 1
        elif btype == "tool_result":
            # ToolResultBlockParam (anthropic SDK): ``tool_use_id: str``, ``content`` text or a list
            # of blocks; another type became the id "1" or an empty result
            if b.get("tool_use_id") is not None and not isinstance(b.get("tool_use_id"), str):
                raise _bad(f"{at}/tool_use_id", "a string", b.get("tool_use_id"))
            if b.get("content") is not None and not isinstance(b.get("content"), (str, list)):
                raise _bad(f"{at}/content", "a string or an array", b.get("content"))
            rc, rc_opaque = _decode_result_content(b.get("content"))
            pd = _extras(b, _TOOL_RESULT_EXTRAS)
            if rc_opaque:
                pd.setdefault(API, {})["content_blocks"] = rc_opaque
                # what another API leaves out of this result (and reports): toolwire.adapter
                pd[API]["kept_content"] = [_kept_description(o["block"]) for o in rc_opaque]
            if "content" not in b:
                pd.setdefault(API, {})["content_absent"] = True
            use_id = b.get("tool_use_id")
            parts.append(
                ToolResult(
                    use_id if isinstance(use_id, str) else str(use_id or ""),
                    rc,
                    b.get("is_error") is True,
                    provider_data=pd,
                )
            )
        elif btype == "thinking":
            text = _opt_str(b.get("thinking"), f"{at}/thinking")
            sig = _opt_str(b.get("signature"), f"{at}/signature")
            parts.append(ReasoningPart(text=text or "", signature=sig, provider=API))
        elif btype == "redacted_thinking":
            parts.append(ReasoningPart(encrypted=_opt_str(b.get("data"), f"{at}/data"), provider=API))
        elif btype in server_tool_block_types():
            parts.append(server_tool_part(b))
        else:
            parts.append(kept_block_part(b))
    return parts


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _server_tool_summary(b: dict[str, Any]) -> str:
    """One readable line for a server-tool block: the tool and its input for a call
    (``server_tool_use``/``mcp_tool_use``), else what the result holds: the error code
    (``*_tool_result_error``), the URLs and titles found (``web_search_result``), the fetched
    URL (``web_fetch_result``), the return code and output (``code_execution_result``,
    ``bash_code_execution_result``), or the result's text."""
    if b.get("type") in ("server_tool_use", "mcp_tool_use"):
        return _short(f"{b.get('name')} {json.dumps(b.get('input'), ensure_ascii=False, sort_keys=True)}")
    c = b.get("content")
    if isinstance(c, dict):
        if c.get("error_code") is not None:
            return f"error: {c['error_code']}"
        bits = [str(c["url"])] if c.get("url") else []
        if c.get("return_code") is not None:
            bits.append(f"return code {c['return_code']}")
        bits += [f"{k}: {_short(c[k], 80)}" for k in ("stdout", "stderr") if isinstance(c.get(k), str) and c[k]]
        return "; ".join(bits) or str(c.get("type") or "")
    if isinstance(c, list):
        found = [x for x in c if isinstance(x, dict) and x.get("url")]
        if found:
            shown = "; ".join(f"{x.get('title') or ''} <{x['url']}>".strip() for x in found[:3])
            return _short(
                f"{len(found)} result{'s' if len(found) != 1 else ''}: {shown}{' ...' if len(found) > 3 else ''}"
            )
        return _short(" ".join(x["text"] for x in c if isinstance(x, dict) and isinstance(x.get("text"), str)))
    return _short(c) if isinstance(c, str) else ""


def server_tool_part(block: dict[str, Any]) -> ProviderToolPart:
    """A server-side tool block (one of :func:`~toolwire_anthropic.profile.server_tool_block_types`)
    as a :class:`ProviderToolPart`: ``raw`` is a copy of the block as received; ``kind`` is
    ``"call"`` for ``server_tool_use``/``mcp_tool_use`` (``call_id`` its ``id``, ``name`` its
    ``name``) and ``"result"`` otherwise (``call_id`` its ``tool_use_id``; ``name`` the tool the
    type names, ``web_search_tool_result`` → ``web_search``)."""
    btype = str(block.get("type"))
    if btype in ("server_tool_use", "mcp_tool_use"):
        cid, name, kind = block.get("id"), block.get("name"), "call"
    else:
        cid, name, kind = block.get("tool_use_id"), btype.removesuffix("_tool_result"), "result"
    return ProviderToolPart(
        provider=API,
        vendor_type=btype,
        raw=copy.deepcopy(block),
        kind=kind,  # type: ignore[arg-type]
        name=name if isinstance(name, str) else None,
        call_id=cid if isinstance(cid, str) else None,
        summary=_server_tool_summary(block),
    )


def _untyped_block(btype: Any, at: str) -> ResponseDecodeError:
    """The error for a content block whose ``type`` is missing, empty or not text: such a block
    cannot be kept and sent back (every ``ContentBlockParam`` of the SDK is discriminated by a
    literal ``type``; a block without one is refused by the API)."""
    if btype is None or btype == "":
        return ResponseDecodeError(API, f"the content block at {at} has no type", f"{at}/type")
    return _bad(f"{at}/type", "a string", btype)


def kept_block_part(block: dict[str, Any]) -> ProviderToolPart:
    """A block toolwire has no canonical part for (a ``document`` or ``search_result`` of an
    imported request, a ``container_upload`` or ``compaction`` block of an answer, an image whose
    source cannot be read back byte-equal, a block type newer than toolwire) as a
    :class:`ProviderToolPart` kept whole for Anthropic: ``raw`` a copy of the block, sent back as
    received at its place; ``vendor_type`` its type; ``kind`` ``"result"``. Another API leaves it
    out and the preflight report says so (rule ``provider-tool.dropped``); kept in the message's
    ``provider_data``, as toolwire did before, it was left out without a word."""
    btype = block.get("type")
    summary = ""
    if btype == "container_upload":
        summary = _short(f"file {block.get('file_id')}")
    elif btype == "compaction" and isinstance(block.get("content"), str):
        summary = _short(block["content"])
    elif btype == "document":
        title, src = block.get("title"), block.get("source")
        kind = src.get("media_type") or src.get("type") if isinstance(src, dict) else None
        summary = _short(" ".join(str(x) for x in (title, kind) if isinstance(x, str) and x))
    return ProviderToolPart(
        provider=API,
        vendor_type=btype if isinstance(btype, str) and btype else "block",
        raw=copy.deepcopy(block),
        kind="result",
        summary=summary,
    )


def _kept_description(block: Any) -> str:
    """``"search_result block (Q3 figures)"``: a block of a tool result kept whole, for a report."""
    if not isinstance(block, dict):
        return "content block"
    part = kept_block_part(block)
    summary = part.summary
    if not summary and block.get("type") == "search_result":
        summary = _short(" ".join(str(block[k]) for k in ("title", "source") if isinstance(block.get(k), str)))
    return f"{part.vendor_type} block" + (f" ({summary})" if summary else "")


def _encode_provider_tool(p: ProviderToolPart) -> dict[str, Any] | None:
    """This API's server-tool block or block kept whole, exactly as received; ``None`` (left
    out, and reported by the preflight) for another provider's."""
    return copy.deepcopy(p.raw) if p.provider == API and p.kind != "metadata" else None


# ---------------------------------------------------------------------------------------------
# encoding content blocks
# ---------------------------------------------------------------------------------------------


def _encode_image(p: ImagePart) -> dict[str, Any]:
    if p.data is not None:
        block: dict[str, Any] = {
            "type": "image",
            "source": {"type": "base64", "media_type": p.media_type, "data": p.base64},
        }
    else:
        block = {"type": "image", "source": {"type": "url", "url": p.url}}
    block.update(_own(p.provider_data))
    return block


def _encode_document(p: DocumentPart) -> dict[str, Any]:
    """A ``document`` block: a PDF as a base64 source, plain text as a text source
    (``Base64PDFSourceParam``, ``PlainTextSourceParam``), ``filename`` as its ``title``."""
    if p.media_type == "text/plain":
        source: dict[str, Any] = {"type": "text", "media_type": "text/plain", "data": p.data.decode("utf-8")}
    else:
        source = {"type": "base64", "media_type": "application/pdf", "data": p.base64}
    block: dict[str, Any] = {"type": "document", "source": source}
    if p.filename is not None:
        block["title"] = p.filename
    if p.provider_data:
        block.update({k: v for k, v in _own(p.provider_data).items() if k in _DOCUMENT_EXTRAS})
    return block


def _encode_text(p: TextPart) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": p.text}
    if p.provider_data:
        block.update({k: v for k, v in _own(p.provider_data).items() if k in _TEXT_EXTRAS})
    return block


def _insert_opaque(blocks: list[_B], opaque: list[dict[str, Any]] | None) -> list[_B | dict[str, Any]]:
    """``blocks`` with the opaque blocks an imported message recorded put back at their positions
    (a ``None`` in ``blocks`` is a placeholder the caller drops afterwards)."""
    if not opaque:
        return list(blocks)
    out: list[_B | dict[str, Any]] = list(blocks)
    for item in sorted(opaque, key=lambda o: o.get("position", len(out))):
        pos = item.get("position")
        pos = len(out) if not isinstance(pos, int) else min(max(pos, 0), len(out))
        out.insert(pos, copy.deepcopy(item["block"]))
    return out


def _encode_result(r: ToolResult) -> dict[str, Any]:
    own = _own(r.provider_data)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": _wire_id(r.tool_call_id)}
    if isinstance(r.content, str):
        content: Any = r.content
        if not own:  # the usual result: a string, no vendor fields
            block["content"] = content
            if r.is_error:
                block["is_error"] = True
            return block
    else:
        content = []
        # rules conversation.tool-result-image-type and conversation.image-url: images Anthropic cannot
        # read, or fetch, go as notes
        for p in readable_tool_result(r, IMAGE_MEDIA_TYPES, fetches_image_url).content:
            if isinstance(p, TextPart):
                if p.text:
                    content.append(_encode_text(p))
            elif isinstance(p, ImagePart):
                content.append(_encode_image(p))
            elif isinstance(p, DocumentPart):
                content.append(_encode_document(p))
        content = _insert_opaque(content, own.get("content_blocks"))
        if not content:
            content = ""  # only empty text parts (left out): an empty result, as a string
    if not (own.get("content_absent") and content in ("", [])):
        block["content"] = content
    if r.is_error:
        block["is_error"] = True
    block.update({k: v for k, v in own.items() if k in _TOOL_RESULT_EXTRAS})
    return block


def _encode_reasoning(p: ReasoningPart) -> dict[str, Any] | None:
    """A reasoning part → its thinking block, or ``None`` when it must not be sent.

    Only parts produced by Anthropic (``provider == "anthropic"``) go back, byte-for-byte; reasoning
    from other providers is dropped (its signatures mean nothing to Anthropic), and so is an
    Anthropic thinking part without a signature, or a redacted one without its data (the API
    requires them; rule ``anthropic.conversation.thinking-unsigned``, reported by
    :meth:`AnthropicCodec.left_out_parts`).
    """
    if p.provider != API:
        return None
    if p.encrypted and not p.text and not p.signature:
        return {"type": "redacted_thinking", "data": p.encrypted}
    if not p.signature:
        return None
    return {"type": "thinking", "thinking": p.text, "signature": p.signature}


def _unsigned_thinking_changes(messages: Any, offset: int) -> list[tuple[str, str, str, str | None, str | None]]:
    """The lossy changes (rule ``anthropic.conversation.thinking-unsigned``) for the Anthropic
    reasoning parts of ``messages`` (numbered from ``offset``) that :func:`_encode_reasoning`
    leaves out for want of their signature or data."""
    return [
        (
            "anthropic.conversation.thinking-unsigned",
            f"/messages/{i}/parts/{j}",
            "an Anthropic thinking part without its signature was left out: the API takes a thinking block back "
            "only with the signature it returned",
            None,
            None,
        )
        for i, m in enumerate(messages, offset)
        if m.role == "assistant"
        for j, p in enumerate(m.parts)
        if isinstance(p, ReasoningPart) and p.provider == API and _encode_reasoning(p) is None
    ]


# ---------------------------------------------------------------------------------------------
# preserved thinking: the prefix a thinking block was produced under
# ---------------------------------------------------------------------------------------------

#: The keys of ``provider_data["anthropic"]`` of a thinking part that record the prefix the block
#: was produced under: the first 16 hex digits of the SHA-256 of the producing request's
#: ``system`` and of its ``tools``, each as canonical JSON (sorted keys, compact, UTF-8) without
#: ``cache_control`` (which the API's prefix check ignores). Rule
#: ``anthropic.conversation.thinking-prefix-changed``.
PREFIX_SYSTEM_KEY = "prefix_system"
PREFIX_TOOLS_KEY = "prefix_tools"
PREFIX_CHANGED_RULE = "anthropic.conversation.thinking-prefix-changed"


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _without_cache_control(items: Any) -> Any:
    """A ``system`` block list or a ``tools`` list without the blocks' top-level ``cache_control``
    (where the API takes it); anything else as it is. Shallow: only a block that holds one is copied."""
    if type(items) is not list:
        return items
    return [
        {k: v for k, v in b.items() if k != "cache_control"} if type(b) is dict and "cache_control" in b else b
        for b in items
    ]


def _drops_stale_blocks(request: ModelRequest) -> bool:
    """Whether stale thinking is left out of ``request`` (rule
    ``anthropic.conversation.thinking-prefix-changed``): its model runs the prefix check and its
    ``thinking`` does not ask the API to drop what fails it (``block_binding`` ``drop_block``)."""
    if not runs_prefix_check(request.model):
        return False
    thinking = request.thinking
    binding = thinking.get("block_binding") if isinstance(thinking, dict) else None
    return not (isinstance(binding, dict) and binding.get("prefix_mismatch_behavior") == "drop_block")


def _stale_thinking(messages: Any, prints: tuple[str, str]) -> tuple[int, int, int, set[str]] | None:
    """The last Anthropic thinking part of ``messages`` whose recorded prefix differs from
    ``prints`` (the request's ``(system, tools)`` fingerprints), as ``(message index, part index,
    number of Anthropic thinking parts up to it, what changed: "instructions" and/or "tools")``,
    or ``None``. Parts without a recorded prefix are never stale."""
    last: tuple[int, int] | None = None
    changed: set[str] = set()
    count = 0
    counted = 0
    p: Any
    for mi, m in enumerate(messages):
        if m.role != "assistant":
            continue
        for pi, p in enumerate(m.parts):
            if type(p) is not ReasoningPart and not isinstance(p, ReasoningPart):
                continue
            if p.provider != API:
                continue
            count += 1
            own = p.provider_data.get(API) if p.provider_data else None
            if type(own) is not dict or PREFIX_SYSTEM_KEY not in own or PREFIX_TOOLS_KEY not in own:
                continue
            s_changed = own[PREFIX_SYSTEM_KEY] != prints[0]
            t_changed = own[PREFIX_TOOLS_KEY] != prints[1]
            if s_changed or t_changed:
                last = (mi, pi)
                counted = count
                if s_changed:
                    changed.add("instructions")
                if t_changed:
                    changed.add("tools")
    return None if last is None else (last[0], last[1], counted, changed)


def _without_thinking_to(messages: list[Message], mi: int, pi: int) -> list[Message]:
    """``messages`` without their reasoning parts up to and including part ``pi`` of message
    ``mi`` (new message objects where a part is left out; the given ones are not changed)."""
    out = list(messages)
    for i in range(mi + 1):
        m = messages[i]
        if m.role != "assistant":
            continue
        parts = [p for j, p in enumerate(m.parts) if not (isinstance(p, ReasoningPart) and (i < mi or j <= pi))]
        if len(parts) != len(m.parts):
            out[i] = dataclasses.replace(m, parts=parts)
    return out


def _prefix_changed_change(
    request: ModelRequest, stale: tuple[int, int, int, set[str]], offset: int
) -> tuple[Any, ...]:
    mi, pi, n, changed = stale
    what = " and ".join(
        w for k, w in (("instructions", "the instructions (system prompt)"), ("tools", "the tools")) if k in changed
    )
    blocks = "thinking block" if n == 1 else f"{n} thinking blocks"
    return (
        PREFIX_CHANGED_RULE,
        f"/messages/{mi + offset}/parts/{pi}",
        f"{blocks} of the conversation left out, up to this one: {what} differ from those the thinking was "
        f'produced with, and {request.model} refuses such a block (400 "The block is bound to a different '
        'conversation") and every thinking block after it; the model answers without that reasoning. To keep '
        "it, continue the conversation with the instructions and tools it was produced with, or set "
        "thinking={'type': 'adaptive', 'block_binding': {'prefix_mismatch_behavior': 'drop_block'}} to have the "
        "API drop only the blocks that fail its check",
        None,
        None,
    )


#: The part classes (none derives from another): a part of exactly one of them is dispatched on
#: its class; an instance of a subclass by ``isinstance`` in each encoder's own order.
_PART_TYPES = frozenset({TextPart, ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart})
_ASSISTANT_ORDER = (ReasoningPart, TextPart, ImagePart, ProviderToolPart, ToolCall)
_USER_ORDER = (TextPart, ImagePart, DocumentPart, ToolResult, ProviderToolPart)


def _kind(p: Any, order: tuple[type, ...]) -> type | None:
    """The part class of ``order`` that ``p`` is the first instance of (``None``: none)."""
    for cls in order:
        if isinstance(p, cls):
            return cls
    return None


def _encode_assistant_parts(
    m: Message,
    sent_ids: set[str] | None = None,
    names: dict[str, str] | None = None,
    added: list[str] | None = None,
) -> list[dict[str, Any]]:
    """An assistant message's blocks. A tool call whose id was already sent (``sent_ids``, shared
    across the conversation: a duplicate id in one response, or an id repeated from an earlier
    turn) is left out, so every ``tool_use`` id in the body is unique and answered once.
    ``added`` (when given) receives every id this message adds to ``sent_ids``, in order."""
    sent_ids = set() if sent_ids is None else sent_ids
    blocks: list[dict[str, Any]] = []
    p: Any  # dispatched on its class below
    for p in m.parts:
        kind = type(p)
        if kind not in _PART_TYPES or kind is ToolResult:
            kind = _kind(p, _ASSISTANT_ORDER)
        if kind is ReasoningPart:
            b = _encode_reasoning(p)
            if b is not None:
                blocks.append(b)
        elif kind is TextPart:
            if p.text:  # the API rejects empty text blocks
                blocks.append(_encode_text(p) if p.provider_data else {"type": "text", "text": p.text})
        elif kind is ImagePart:
            # "'image' blocks are not permitted within assistant turns": said in text instead
            blocks.append({"type": "text", "text": ASSISTANT_IMAGE_NOTE})
        elif kind is DocumentPart:  # an assistant turn holds no document block: said in text instead
            blocks.append(
                {"type": "text", "text": f"[document {p.name!r} not shown: an assistant turn holds no documents]"}
            )
        elif kind is ProviderToolPart:
            if (raw := _encode_provider_tool(p)) is not None:
                blocks.append(raw)
        elif kind is ToolCall:
            wid = _wire_id(p.id)
            if p.id in sent_ids or wid in sent_ids:
                continue  # a later call with an id already used: the API needs unique tool_use ids
            sent_ids.add(p.id)
            sent_ids.add(wid)
            if added is not None:
                added.append(p.id)
                if wid != p.id:
                    added.append(wid)
            block = {
                "type": "tool_use",
                "id": wid,
                "name": _history_name(p.name, names or _NONE) if isinstance(p.name, str) else p.name,
                "input": p.arguments if isinstance(p.arguments, dict) else {},
            }
            if p.provider_data:
                block.update({k: v for k, v in _own(p.provider_data).items() if k in _TOOL_USE_EXTRAS})
            blocks.append(block)
    if not m.provider_data:
        return blocks  # no opaque blocks to put back
    return _insert_opaque(blocks, _own(m.provider_data).get("blocks"))


def _encode_user_parts(m: Message, skip_results: set[str]) -> list[dict[str, Any]]:
    """A user message's blocks; results whose call is in the history (``skip_results``) are left out
    here because :func:`_encode_messages` places them right after their call. Opaque block
    positions count the message's own blocks, results included, so they are inserted first."""
    blocks: list[dict[str, Any] | None] = []
    # a result left out leaves a placeholder only where opaque blocks are put back by position
    opaque = _own(m.provider_data).get("blocks") if m.provider_data else None
    p: Any  # dispatched on its class below
    for p in m.parts:
        kind = type(p)
        if kind not in _PART_TYPES or kind is ReasoningPart or kind is ToolCall:
            kind = _kind(p, _USER_ORDER)
        if kind is TextPart:
            if p.text:
                blocks.append(_encode_text(p) if p.provider_data else {"type": "text", "text": p.text})
        elif kind is ImagePart:
            blocks.append(_encode_image(p))
        elif kind is DocumentPart:
            blocks.append(_encode_document(p))
        elif kind is ToolResult:
            if p.tool_call_id not in skip_results:
                blocks.append(_encode_result(p))
            elif opaque:
                blocks.append(None)
        elif kind is ProviderToolPart:
            if (raw := _encode_provider_tool(p)) is not None:
                blocks.append(raw)
        # reasoning and tool calls never belong to a user turn: dropped
    if not opaque:
        return cast("list[dict[str, Any]]", blocks)
    placed = _insert_opaque(blocks, opaque)
    return [b for b in placed if b is not None]


def _is_system_message(m: Message) -> bool:
    """Whether canonical ``m`` is a system message inside the conversation (a user message whose
    ``provider_data["anthropic"]["role"]`` is ``"system"``, as :meth:`AnthropicCodec.decode_request`
    makes one), sent as ``{"role": "system", ...}``."""
    return m.role == "user" and _own(m.provider_data).get("role") == "system"


def _results_first(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    other = False
    for b in blocks:
        if b.get("type") != "tool_result":
            other = True
        elif other:
            break
    else:
        return list(blocks)  # already results first
    results = [b for b in blocks if b.get("type") == "tool_result"]
    return results + [b for b in blocks if b.get("type") != "tool_result"]


def _encode_messages(messages: list[Message], names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Canonical messages → Anthropic ``messages`` with the ordering rules enforced.

    1. Tool results are placed in the user message right after the assistant message holding
       their calls, whatever message they sit in canonically, first in that message.
    2. A call with no result anywhere gets an ``is_error`` result saying so
       (:data:`toolwire.turns.NOT_ANSWERED`, as on every API: the conversation is always valid for
       the vendor); a later duplicate result is dropped. The result answering a call is the first
       one with its id in a message after the call's (else one in the call's own message); a
       result placed before its call answers nothing and is not sent.
       A call repeating an id already sent (duplicate ids in one response, marked invalid by
       :func:`mark_duplicate_ids`) is left out with its result: the first call with the id is
       answered by the first result with that id, once.
    3. Consecutive messages of the same role are merged (results stay first).
    A result whose call is not in the history stays in its own message.
    """
    call_ids: set[str] = set()
    call_at: dict[str, int] = {}  # the message index of the first call with each id
    all_results: list[tuple[int, ToolResult]] = []
    p: Any  # dispatched on its class below
    for mi, m in enumerate(messages):
        if m.role == "assistant":
            for p in m.parts:
                kind = type(p)
                if kind is ToolCall:
                    call_ids.add(p.id)
                    call_at.setdefault(p.id, mi)
                elif kind is ToolResult:
                    all_results.append((mi, p))
                elif kind not in _PART_TYPES:
                    if isinstance(p, ToolCall):
                        call_ids.add(p.id)
                        call_at.setdefault(p.id, mi)
                    elif isinstance(p, ToolResult):
                        all_results.append((mi, p))
        else:
            for p in m.parts:
                kind = type(p)
                if kind is ToolResult or (kind not in _PART_TYPES and isinstance(p, ToolResult)):
                    all_results.append((mi, p))
    # each call is answered by the first result with its id in a later message; failing that, by
    # one in the call's own message; a result placed before its call answers nothing
    results: dict[str, ToolResult] = {}
    late: list[ToolResult] = []
    for mi, r in all_results:
        at = call_at.get(r.tool_call_id)
        if at is None:
            continue
        if mi > at:
            results.setdefault(r.tool_call_id, r)
        elif mi == at:
            late.append(r)
    for r in late:
        results.setdefault(r.tool_call_id, r)
    result_order: dict[str, int] | None = None  # made when a message's answers need sorting

    out: list[dict[str, Any]] = []
    last_role: str | None = None  # the role of out[-1]

    placed: set[str] = set()
    sent_ids: set[str] = set()
    for m in messages:
        if m.role == "assistant":
            added: list[str] = []
            blocks = _encode_assistant_parts(m, sent_ids, names, added)
            if blocks:
                if last_role == "assistant":
                    out[-1]["content"] = out[-1]["content"] + blocks
                else:
                    out.append({"role": "assistant", "content": blocks})
                    last_role = "assistant"
            if not added:
                continue  # no tool_use sent: nothing to answer
            # answer exactly the tool_use blocks just sent (each id once, duplicates left out)
            new = set(added)
            calls = m.tool_calls
            ids = list(dict.fromkeys(c.id for c in calls if c.id in new and c.id not in placed))
            if not ids:
                continue
            if len(ids) > 1:
                if result_order is None:
                    result_order = {rid: i for i, rid in enumerate(results)}
                order = result_order
                ids.sort(key=lambda i: order.get(i, len(order)))
            answer = []
            toolsets = None
            for c in calls:
                if c.provider_data:
                    ts = _own(c.provider_data).get("toolset_name")
                    if toolsets is None:
                        toolsets = {}
                    toolsets[c.id] = ts
                elif toolsets is not None:
                    toolsets[c.id] = None
            for cid in ids:
                placed.add(cid)
                r = results.get(cid) or ToolResult(cid, NOT_ANSWERED, is_error=True)
                block = _encode_result(r)
                if toolsets is not None and isinstance(toolsets.get(cid), str):
                    # a toolset member's result names the toolset of its tool_use
                    # (anthropic.types.ToolResultBlockParam.toolset_name)
                    block.setdefault("toolset_name", toolsets[cid])
                answer.append(block)
            if last_role == "user":
                out[-1]["content"] = _results_first(out[-1]["content"] + answer)
            else:
                out.append({"role": "user", "content": _results_first(answer)})
                last_role = "user"
        elif m.provider_data and _is_system_message(m):
            # a system message inside the conversation: a message of its own, never merged (the
            # preflight checks where it may go and which models take it)
            blocks = _encode_user_parts(m, skip_results=call_ids)
            if blocks:
                out.append({"role": "system", "content": blocks})
                last_role = "system"
        else:
            blocks = _encode_user_parts(m, skip_results=call_ids)
            if blocks:
                if last_role == "user":
                    out[-1]["content"] = _results_first(out[-1]["content"] + blocks)
                else:
                    out.append({"role": "user", "content": _results_first(blocks)})
                    last_role = "user"
    return out


# ---------------------------------------------------------------------------------------------
# the stream decoder (incremental; decode_stream and the transport both use it)
# ---------------------------------------------------------------------------------------------


#: Known delta types → the block kinds they may arrive for.
_DELTA_KINDS: dict[str, tuple[str, ...]] = {
    "text_delta": ("text",),
    "citations_delta": ("text",),
    "input_json_delta": ("tool_call", "opaque"),
    "thinking_delta": ("reasoning",),
    "signature_delta": ("reasoning",),
    "compaction_delta": ("opaque",),
}


def _merge_compaction_delta(block: dict[str, Any], delta: dict[str, Any]) -> None:
    """A ``compaction_delta`` (``anthropic.types.beta.BetaCompactionContentBlockDelta{content,
    encrypted_content}``) folded into its ``compaction`` block, whose summary the block's start
    leaves out: ``content`` is appended (it may come in several deltas,
    anthropics/anthropic-sdk-python#1830), ``encrypted_content`` replaces the one so far; a ``null``
    leaves the field as it was (a null ``content`` is a failed compaction, which the API takes as a
    no-op: it must not become ``""``, which it refuses)."""
    content = _opt_str(delta.get("content"), "/delta/content")
    if content is not None:
        so_far = block.get("content")
        block["content"] = (so_far if isinstance(so_far, str) else "") + content
    encrypted = delta.get("encrypted_content")
    if encrypted is not None:
        block["encrypted_content"] = encrypted


def _merge_unknown_delta(block: dict[str, Any], delta: dict[str, Any]) -> None:
    """A delta of a type this version does not know, for a block kept whole (a block type it does
    not know either): folded in the way every documented delta is (``text_delta.text`` onto
    ``text``, ``thinking_delta.thinking`` onto ``thinking``, ``compaction_delta.content`` onto
    ``content``): a string field appended to the block's field of the same name (when that is a
    string or unset), any other non-null value put in its place. Never dropped: the block goes
    back to the API with what the stream carried."""
    for k, v in delta.items():
        if k == "type" or v is None:
            continue
        so_far = block.get(k)
        if isinstance(v, str) and (so_far is None or isinstance(so_far, str)):
            block[k] = (so_far or "") + v
        else:
            block[k] = copy.deepcopy(v)


#: The usage counters of a message's input, fixed for the request (message_delta repeats them)
_INPUT_COUNTERS = frozenset({"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"})


class StreamDecoder:
    """Turns Anthropic SSE ``data`` objects into canonical stream events, one event at a time.

    ``feed(data)`` returns the canonical events for one SSE event; ``ping``, unknown events and
    non-object events give none; an ``error`` event raises
    :class:`~toolwire.errors.ProviderError` (``status=None``, ``retryable`` for
    ``overloaded_error``/``api_error``/``rate_limit_error``/``timeout_error``).
    The content-block ``index`` is the canonical index. ``input_json_delta`` fragments are passed on
    for the shared assembler to join (an empty buffer means ``{}``). ``message_delta``
    usage is cumulative and overwrites. Server-tool blocks (their ``input`` joined from
    ``input_json_delta`` fragments) are delivered whole at their ``content_block_stop`` as
    :class:`~toolwire.stream.ProviderToolDone`; so are other blocks toolwire has no canonical
    part for (documents, container uploads, compaction blocks, unknown types:
    :func:`kept_block_part`), rebuilt here with their deltas folded in (``compaction_delta``:
    :func:`_merge_compaction_delta`; a delta type this version does not know:
    :func:`_merge_unknown_delta`). A block the stream never stopped is kept in the final
    :class:`StopEvent`'s ``provider_data["anthropic"]["blocks"]``.

    A tool call is ended (:class:`ToolCallEnd`) only by its ``content_block_stop``: a block the
    stream never closed stays open and the assembler marks the call incomplete (never run).
    :meth:`finish` gives the vendor's ``stop_reason`` when ``message_delta`` carried one; a stream
    that ended with neither a stop reason nor ``message_stop`` (cut off), or whose ``message_stop``
    came with nothing before it, gives ``"error"`` with ``vendor_stop_reason=None``, never ``end_turn``.

    Raises :class:`~toolwire.errors.ResponseDecodeError` (``api="anthropic"``, the block index
    in the message) for an event that breaks the stream's order: a block index started twice, a
    delta or stop for a block never started or already stopped, a known delta type for a block of
    another kind (``input_json_delta`` on a text block), a block started without a ``type`` (missing
    or empty), or a field of the wrong JSON type.
    """

    def __init__(self, request: ModelRequest | None = None, *, codec: AnthropicCodec | None = None) -> None:
        self._request = request
        self._codec = codec  # records the request's prefix on thinking parts (reasoning_provider_data)
        self._record: dict[str, Any] | None | bool = False  # False: not asked yet
        self._real_names = _real_names(request)
        self._kinds: dict[int, str] = {}
        self._types: dict[int, str] = {}
        self._closed: set[int] = set()
        self._start_input: dict[int, Any] = {}
        self._had_fragment: dict[int, bool] = {}
        self._citations: dict[int, list[Any]] = {}
        self._opaque: dict[int, dict[str, Any]] = {}
        self._opaque_json: dict[int, list[str]] = {}
        self._stop: str | None = None
        self._stop_pd: dict[str, Any] = {}
        self._usage: dict[str, Any] = {}  # the cumulative raw counters so far (message_start, then message_delta)
        self._has_calls = False
        self._calls = 0
        self._message_id: str | None = None
        self._ended = False  # message_stop seen
        self._stopped = False
        self._opened = False  # message_start seen

    def feed(self, data: dict[str, Any]) -> list[StreamEvent]:
        """The canonical events of one SSE ``data`` object. A raw Python error from a shape the
        checks did not foresee becomes :class:`~toolwire.errors.ResponseDecodeError`."""
        try:
            if type(data) is dict:  # decoded JSON: its fields read without a call each
                etype = data["type"] if "type" in data else None
            elif isinstance(data, dict):
                etype = data.get("type")
            else:
                return []
            if etype == "content_block_delta":  # most events: checked first, inline
                index = data.get("index")
                if type(index) is not int or index < 0:
                    index = _index(index, "/index")
                delta = data.get("delta")
                if type(delta) is not dict:
                    delta = _obj(delta, "/delta")
                return self._block_delta(index, delta)
            return self._feed(data, etype)
        except ToolwireError:
            raise
        except _SHAPE_ERRORS as exc:  # as the codec's other decoders (toolwire.wire.Shape.guarded)
            raise ResponseDecodeError(
                API, f"an Anthropic stream event does not have the documented shape ({type(exc).__name__}: {exc})"
            ) from exc

    def _feed(self, data: dict[str, Any], etype: Any) -> list[StreamEvent]:
        if etype == "message_start":
            self._opened = True
            msg = _opt_obj(data.get("message"), "/message")
            self._message_id = _opt_str(msg.get("id"), "/message/id")
            out: list[StreamEvent] = [ResponseStart(self._message_id, _opt_str(msg.get("model"), "/message/model"))]
            if msg.get("input_transformations") is not None:  # final here ("the array is final in message_start")
                self._stop_pd["input_transformations"] = msg["input_transformations"]
            for k in ("diagnostics", "context_management"):
                if msg.get(k) is not None:
                    self._stop_pd[k] = msg[k]
            if isinstance(msg.get("usage"), dict) and msg["usage"]:
                out.append(self._usage_update(msg["usage"]))
            # a message_start may already carry content (not seen in practice); decode it the same way
            for i, block in enumerate(_opt_list(msg.get("content"), "/message/content")):
                out.extend(self._block_start(i, _obj(block, f"/message/content/{i}"), f"/message/content/{i}"))
                out.extend(self._block_stop(i))
            return out
        if etype == "content_block_start":
            index = data.get("index")
            if type(index) is not int or index < 0:
                index = _index(index, "/index")
            return self._block_start(index, _obj(data.get("content_block"), "/content_block"), "/content_block")
        if etype == "content_block_delta":
            index = _index(data.get("index"), "/index")
            return self._block_delta(index, _obj(data.get("delta"), "/delta"))
        if etype == "content_block_stop":
            index = data.get("index")
            if type(index) is not int or index < 0:
                index = _index(index, "/index")
            return self._block_stop(index)
        if etype == "message_delta":
            out = []
            delta = data.get("delta")
            if type(delta) is not dict:
                delta = _opt_obj(delta, "/delta")
            usage = data.get("usage")
            if usage and type(usage) is dict or (isinstance(usage, dict) and usage):
                out.append(self._usage_update(usage))
            stop = delta.get("stop_reason")
            if stop is not None and type(stop) is not str:
                stop = _opt_str(stop, "/delta/stop_reason")
            if stop is not None:
                self._stop = stop
            if data.get("input_transformations") is not None:
                # after a server-side model fallback mid-stream: the serving model's entries replace
                # message_start's (anthropic.types.beta.BetaRawMessageDeltaEvent.input_transformations)
                self._stop_pd["input_transformations"] = data["input_transformations"]
            if data.get("context_management") is not None:
                # the edits applied (anthropic.types.beta.BetaRawMessageDeltaEvent.context_management)
                self._stop_pd["context_management"] = data["context_management"]
            if len(delta) > 1:  # more than the stop reason: the other stop fields kept
                exact = type(delta) is dict
                for k in ("stop_sequence", "stop_details", "container"):
                    value = (delta[k] if k in delta else None) if exact else delta.get(k)
                    if value is not None:
                        self._stop_pd[k] = delta[k]
            return out
        if etype == "message_stop":
            # Nothing to take from a final message here (unlike the Responses decoder, which takes
            # the items of ``response.completed``'s output the stream did not give): an Anthropic
            # stream has no event that carries the finished message. ``message_stop`` has only its
            # ``type`` (anthropic ``types/raw_message_stop_event.py``) and ``message_delta`` only
            # the stop fields and usage (``raw_message_delta_event.py``); a block is only ever in
            # a ``content_block_start`` or in ``message_start``'s content (read above).
            self._ended = True
            return self.finish()
        if etype == "error":
            raise _error_from_event(data)
        return []  # ping and event types this version does not know

    @_guarded("an Anthropic stream")
    def finish(self) -> list[StreamEvent]:
        """The closing :class:`StopEvent` (once; also emitted if the stream had no ``message_stop``).

        Stop reason: the vendor's ``message_delta.stop_reason`` when one arrived; else, after
        ``message_stop`` (following ``message_start`` or a block), ``tool_use``/``end_turn`` by
        content; else (the stream was cut off) ``"error"`` with ``vendor_stop_reason=None``."""
        if self._stopped:
            return []
        self._stopped = True
        pd = dict(self._stop_pd)
        if (ctx := _price_context(self._usage)) is not None:
            pd["price_context"] = ctx
        if (extras := _usage_extras(self._usage)) is not None:
            pd["usage"] = extras
        if self._opaque:
            pd["blocks"] = [{"position": i, "block": self._opaque[i]} for i in sorted(self._opaque)]
        if self._stop is None and (not self._ended or not (self._opened or self._kinds)):
            # no stop reason and no message_stop: the stream was cut off; nor is a message_stop
            # with nothing before it (no message_start, no block) an answer: a message stream
            # opens with message_start (the SDK's accumulator, anthropic.lib.streaming._messages,
            # raises 'Unexpected event order, got ... before "message_start"' otherwise)
            stop = "error"
        else:
            stop = map_stop_reason(self._stop, self._has_calls)
        return [StopEvent(stop, self._stop, {API: pd} if pd else None)]

    def _usage_update(self, usage: dict[str, Any]) -> UsageUpdate:
        """Merge a (cumulative) usage object into the counters so far and map the whole: a
        ``message_delta`` carrying ``input_tokens`` but not the cache counters keeps the cache
        counters of ``message_start`` in the sum. An input-side counter of 0 does not replace a
        count ``message_start`` gave: the API's cumulative counters repeat it
        (``anthropic.types.MessageDeltaUsage``), while compatible servers write 0 there
        ("Set ``input_tokens=0`` in ``message_delta`` usage", sgl-project/sglang#20830;
        envoyproxy/ai-gateway#1631)."""
        kept = self._usage
        for k, v in usage.items():
            if v is not None:
                if v == 0 and k in _INPUT_COUNTERS and kept.get(k):
                    continue
                kept[k] = v
        return UsageUpdate(usage_from_wire(kept))

    def _synth(self, block: dict[str, Any], position: int) -> str:
        return _synth_id(self._message_id or block, self._request, position)

    def _block_start(self, index: int, block: dict[str, Any], at: str) -> list[StreamEvent]:
        if index in self._kinds:
            raise ResponseDecodeError(
                API, f"content block {index} was started twice (it is already a {self._types[index]} block)", "/index"
            )
        btype = block.get("type")
        if type(btype) is not str or not btype:  # a block of any type is kept whole: its type is text
            raise _untyped_block(btype, at)
        self._types[index] = str(btype)
        if btype == "text":
            self._kinds[index] = "text"
            text = _opt_str(block.get("text"), f"{at}/text")
            pd = _extras(block, ("cache_control",))
            if block.get("citations"):
                self._citations[index] = list(_opt_list(block["citations"], f"{at}/citations"))
                pd.setdefault(API, {})["citations"] = list(self._citations[index])
            return [TextDelta(index, text or "", pd or None)]
        if btype == "thinking":
            self._kinds[index] = "reasoning"
            text = _opt_str(block.get("thinking"), f"{at}/thinking")
            sig = _opt_str(block.get("signature"), f"{at}/signature")
            return [
                ReasoningDelta(index, text=text or "", signature=sig or None, provider=API, provider_data=self._pd())
            ]
        if btype == "redacted_thinking":
            self._kinds[index] = "reasoning"
            data = _opt_str(block.get("data"), f"{at}/data")
            return [ReasoningDelta(index, encrypted=data, provider=API, provider_data=self._pd())]
        if btype == "tool_use":
            self._kinds[index] = "tool_call"
            self._has_calls = True
            self._start_input[index] = block.get("input")
            position = self._calls
            self._calls += 1
            call = _decode_tool_use(block, lambda: self._synth(block, position))
            pd = _extras(block, _TOOL_USE_EXTRAS)
            name = self._real_names.get(call.name, call.name)
            return [ToolCallStart(index, call.id, name, call.id_synthesized, pd or None)]
        self._kinds[index] = "opaque"
        self._opaque[index] = copy.deepcopy(block)
        return []

    def _pd(self) -> dict[str, Any] | None:
        """The provider data of a thinking part of this answer: the prefix of the request
        (:meth:`AnthropicCodec.reasoning_provider_data`, asked once per stream), a new dict each."""
        record = self._record
        if record is False:
            codec = self._codec
            record = self._record = codec.reasoning_provider_data(self._request) if codec is not None else None
        return {API: dict(record)} if isinstance(record, dict) else None

    def _block_delta(self, index: int, delta: dict[str, Any]) -> list[StreamEvent]:
        kind = self._kinds.get(index)
        if kind is None:
            raise ResponseDecodeError(
                API, f"content_block_delta for content block {index}, which was never started", "/index"
            )
        if index in self._closed:
            raise ResponseDecodeError(
                API, f"content_block_delta for content block {index} after its content_block_stop", "/index"
            )
        dtype = delta.get("type")
        if dtype == "text_delta" and kind == "text":  # the usual deltas first, checked as below
            text = delta.get("text")
            return [TextDelta(index, text if type(text) is str else _opt_str(text, "/delta/text") or "")]
        if dtype == "input_json_delta" and kind == "tool_call":
            frag = delta.get("partial_json")
            if type(frag) is not str:
                frag = _opt_str(frag, "/delta/partial_json") or ""
            if not self._had_fragment.get(index) and frag.strip():
                self._had_fragment[index] = True
            return [ToolCallDelta(index, frag)]
        allowed = _DELTA_KINDS.get(dtype) if isinstance(dtype, str) else None
        if allowed is None:
            if kind == "opaque":  # the content of a block kept whole: folded in, never dropped
                _merge_unknown_delta(self._opaque[index], delta)
            return []  # a delta type this version does not know
        if kind not in allowed:
            raise ResponseDecodeError(
                API,
                f"a {dtype} arrived for content block {index}, which is a {self._types[index]} block",
                "/delta/type",
            )
        if dtype == "text_delta":
            return [TextDelta(index, _opt_str(delta.get("text"), "/delta/text") or "")]
        if dtype == "citations_delta":
            self._citations.setdefault(index, []).append(delta.get("citation"))
            return [TextDelta(index, "", {API: {"citations": list(self._citations[index])}})]
        if dtype == "input_json_delta":
            frag = _opt_str(delta.get("partial_json"), "/delta/partial_json") or ""
            if kind == "tool_call":
                self._had_fragment[index] = self._had_fragment.get(index, False) or bool(frag.strip())
                return [ToolCallDelta(index, frag)]
            self._opaque_json.setdefault(index, []).append(frag)
            return []
        if dtype == "thinking_delta":
            return [ReasoningDelta(index, text=_opt_str(delta.get("thinking"), "/delta/thinking") or "", provider=API)]
        if dtype == "compaction_delta":
            _merge_compaction_delta(self._opaque[index], delta)
            return []
        # signature_delta
        return [ReasoningDelta(index, signature=_opt_str(delta.get("signature"), "/delta/signature"), provider=API)]

    def _block_stop(self, index: int) -> list[StreamEvent]:
        kind = self._kinds.get(index)
        if kind is None:
            raise ResponseDecodeError(
                API, f"content_block_stop for content block {index}, which was never started", "/index"
            )
        if index in self._closed:
            raise ResponseDecodeError(API, f"content block {index} was stopped twice", "/index")
        self._closed.add(index)
        if kind == "tool_call":
            start = self._start_input.get(index)
            if not self._had_fragment.get(index) and isinstance(start, dict) and start:
                return [ToolCallEnd(index, arguments=start)]  # input given whole at block start
            if not self._had_fragment.get(index) and start is not None and not isinstance(start, dict):
                return [
                    ToolCallEnd(index, raw_arguments=json.dumps(start, ensure_ascii=False))
                ]  # not an object: invalid
            return [ToolCallEnd(index)]
        if kind == "opaque" and index in self._opaque_json:
            text = "".join(self._opaque_json.pop(index))
            if text.strip():
                try:
                    self._opaque[index]["input"] = json.loads(text)
                except json.JSONDecodeError:
                    self._opaque[index]["input"] = text
        if kind == "opaque" and self._types.get(index) in ("server_tool_use", "mcp_tool_use"):
            # a call's input is required when it goes back (ServerToolUseBlockParam.input,
            # MCPToolUseBlockParam.input): a start without it and no fragments is no input, {}
            # (as a client tool_use gets)
            self._opaque[index].setdefault("input", {})
        if kind == "opaque" and self._types.get(index) in server_tool_block_types():
            return [ProviderToolDone(index, server_tool_part(self._opaque.pop(index)))]
        if kind == "opaque":
            return [ProviderToolDone(index, kept_block_part(self._opaque.pop(index)))]
        return []


def _cache_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The breakpoints of a request: the tool definitions, ``system`` blocks, message content
    blocks and the blocks of a block's own ``content`` list (a ``tool_result``'s) that carry
    ``cache_control``, in the order the API reads them (tools, system, messages) — the places
    the profile's preflight counts. Nothing inside them is one: a tool parameter named
    ``cache_control`` (under ``input_schema``) or a ``tool_use`` input with that key is data,
    not a breakpoint."""
    found: list[dict[str, Any]] = []

    def add(blocks: Any) -> None:
        for b in blocks if isinstance(blocks, list) else ():
            if isinstance(b, dict) and b.get("cache_control") is not None:
                found.append(b)

    add(body.get("tools"))
    add(body.get("system"))
    for m in body.get("messages") or ():
        content = m.get("content") if isinstance(m, dict) else None
        for b in content if isinstance(content, list) else ():
            if not isinstance(b, dict):
                continue
            add([b])
            add(b.get("content"))  # a tool_result's (or search_result's) own blocks
    return found


def _lengthen_ttls_before_an_hour(found: list[dict[str, Any]]) -> None:
    """In ``found`` (:func:`_cache_blocks`), a breakpoint of the default 5-minute TTL that comes
    before one of ``"ttl": "1h"`` is given the 1-hour TTL: the API refuses a longer TTL after a
    shorter one (the prompt-caching docs: "cache entries with longer TTL must appear before
    shorter TTLs"), as when ``cache=True`` marks the last tool and ``system_cache_control`` asks
    for 1h. Only the default breakpoints toolwire placed carry no ``ttl``; a 1-hour write costs
    2x the input rate instead of 1.25x."""
    last_hour = max((i for i, b in enumerate(found) if _ttl(b) == "1h"), default=0)
    for block in found[:last_hour]:
        cc = block["cache_control"]
        if isinstance(cc, dict) and cc.get("type") == "ephemeral" and "ttl" not in cc:
            block["cache_control"] = {**cc, "ttl": "1h"}  # a new dict: the old one may be shared


def _ttl(block: dict[str, Any]) -> Any:
    cc = block["cache_control"]
    return cc.get("ttl") if isinstance(cc, dict) else None


# ---------------------------------------------------------------------------------------------
# the codec
# ---------------------------------------------------------------------------------------------


def _client_tool_factory(tool_type: str) -> str:
    """The ready function that builds an Anthropic client-side tool with its function."""
    if tool_type.startswith("bash_"):
        return "toolwire_anthropic.confined_bash(root)"
    if tool_type.startswith("text_editor_"):
        return "toolwire_anthropic.confined_text_editor(root)"
    if tool_type.startswith("computer_toolset_"):
        return "toolwire_anthropic.computer(function)"
    return "ProviderTool(..., function=...)"


def _check_server_tool_name(declaration: Any, pointer: str) -> None:
    """Raise :class:`~toolwire.errors.ConfigurationError` when an Anthropic tool kept from an
    imported request is of a type whose name the API fixes (``anthropic.types`` tool params:
    ``WebSearchTool20250305Param.name: Required[Literal["web_search"]]``, ``ToolBash20250124Param.name:
    Required[Literal["bash"]]``, ...) and its ``name`` is missing or another: the API refuses it.
    The settings check (:func:`toolwire.tools.check_imported_provider_tool`) reads the fields
    other than ``type`` and ``name``."""
    from toolwire.errors import ConfigurationError

    from .profile import anthropic_provider_tools

    if not isinstance(declaration, dict):
        return
    tool_type = declaration.get("type")
    info = anthropic_provider_tools().get(tool_type) if isinstance(tool_type, str) else None
    fixed = info.name if info is not None else None
    if fixed is None or declaration.get("name") == fixed:
        return
    given = declaration.get("name")
    what = "has no name" if given is None else f"is named {json.dumps(given, default=str)[:80]}"
    raise ConfigurationError(
        f"the anthropic provider tool {tool_type!r} at {pointer} of the imported request {what}; the API "
        f"takes it only as name {fixed!r}, so the request was not sent. Correct the declaration in the request "
        "you imported."
    )


def _check_import_types(body: dict[str, Any]) -> None:
    """Raises :class:`ResponseDecodeError` at the first top-level field of an imported request
    body of a JSON type the API does not take there (they were dropped, such as a ``system`` of
    5, or carried along for the API to refuse). ``system`` is ``Union[str,
    Iterable[TextBlockParam]]`` (anthropic.types.MessageCreateParamsBase; ``TextBlockParam``:
    ``type: Required[Literal["text"]]``, ``text: Required[str]``); the other fields are checked
    against the SDK's ``MessageCreateParamsBase`` (the beta's for a beta-only field such as
    ``mcp_servers``). ``messages`` and ``tools`` have their own checks, ``tool_choice`` only its
    JSON type here."""
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list):
            raise _bad("/system", "a string or an array of text blocks (anthropic.types.TextBlockParam)", system)
        for i, block in enumerate(system):
            if not isinstance(block, dict) or block.get("type") != "text":
                kind = f"a {block.get('type')!r} block" if isinstance(block, dict) else f"a JSON {json_kind(block)}"
                raise _S.error(
                    f"/system/{i}",
                    f"/system/{i} is {kind}: system takes text blocks only "
                    "({'type': 'text', 'text': ...}; anthropic.types.TextBlockParam)",
                )
            if not isinstance(block.get("text"), str):
                raise _bad(f"/system/{i}/text", "a string", block.get("text"))
    from anthropic.types.beta.message_create_params import MessageCreateParamsBase as BetaParams
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from toolwire.profile import value_type_problems

    from .profile import _request_field_names

    plain, _ = _request_field_names()

    def problems(fields: dict[str, Any]) -> list[tuple[str, str]]:
        return value_type_problems({k: v for k, v in fields.items() if k in plain}, MessageCreateParamsBase) + (
            value_type_problems({k: v for k, v in fields.items() if k not in plain}, BetaParams)
        )

    # (tool_choice: an object, anthropic.types.ToolChoiceParam is a union of TypedDicts; one of a
    # type toolwire has no canonical form for is UnsupportedToolChoice, below)
    if body.get("tool_choice") is not None and not isinstance(body["tool_choice"], dict):
        raise _bad("/tool_choice", "an object (anthropic.types.ToolChoiceParam)", body["tool_choice"])
    _S.field_types(body, None, ("messages", "tools", "system", "tool_choice"), problems=problems)
    _check_nested_import_types(body)
    # stream: Literal[True] / Literal[False] (anthropic.types.MessageCreateParamsStreaming /
    # MessageCreateParamsNonStreaming); temperature, which the installed SDK's params no longer
    # type: "temperature number" (Messages API reference, https://docs.claude.com/en/api/messages)
    stream, temperature = body.get("stream"), body.get("temperature")
    if stream is not None and not isinstance(stream, bool):
        raise _bad("/stream", "a boolean", stream)
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, (int, float))):
        raise _bad("/temperature", "a number", temperature)


def _check_nested_import_types(body: dict[str, Any]) -> None:
    """Raises :class:`ResponseDecodeError` at the first value inside ``messages``, ``tools`` or
    ``tool_choice`` of an imported request body whose JSON type is not the one the SDK's
    ``MessageCreateParamsBase`` gives it, walked through its blocks, tools and their fields
    (:func:`toolwire.profile.value_type_problems`): a ``tool_use`` block's ``input`` that is not an
    object (``ToolUseBlockParam.input: Dict[str, object]``) or its ``id``/``name`` not text, a
    tool's ``input_schema`` not an object (``ToolParam.input_schema``) or ``name`` not text,
    ``tool_choice.name`` not text (``ToolChoiceToolParam.name: str``), a block's
    ``cache_control`` not an object... Such values were turned into invalid calls, synthesized
    ids, the name ``"5"``, or a ``ToolNameError`` without the field's place. A block or
    tool_choice of a ``type`` the SDK does not list is not checked here (the codec keeps it whole,
    or refuses it as :class:`UnsupportedToolChoice`), nor are provider tools and ``tools`` entries
    that are not objects (kept as they came and refused when sent, with the settings check
    ``toolwire lint`` runs, and :func:`_check_server_tool_name`); the beta's
    ``MessageCreateParamsBase`` is asked before refusing a value (a beta block may take it)."""
    fields = {k: body[k] for k in ("messages", "tool_choice") if body.get(k) is not None}
    tools = body.get("tools")
    if isinstance(tools, list):
        # (a tool of your own: anthropic.types.ToolParam, ``type: Optional[Literal["custom"]]``)
        fields["tools"] = [t if isinstance(t, dict) and t.get("type") in (None, "custom") else {} for t in tools]
    if not fields:
        return
    from anthropic.types.beta.message_create_params import MessageCreateParamsBase as BetaParams
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from toolwire.profile import value_type_problems

    found = value_type_problems(fields, MessageCreateParamsBase, open_variants=True)
    if not found:
        return
    beta = {pointer for pointer, _ in value_type_problems(fields, BetaParams, open_variants=True)}
    for pointer, message in found:
        if pointer in beta:
            raise _S.error(pointer, message)


class AnthropicCodec:
    """Codec for the Anthropic Messages API (``POST /v1/messages``); ``api = "anthropic"``.

    ``cache=True`` turns on prompt caching: ``encode_request`` puts ``cache_control:
    {"type": "ephemeral"}`` on the newest message, on the previous turn's cache point, on the last
    tool definition and on the system prompt (see :meth:`_place_cache_breakpoints`), within
    Anthropic's limit of 4 breakpoints per request and leaving breakpoints the request already
    carries in place.
    """

    api = API
    #: :meth:`left_out_parts` reports nothing for a plain history (text, tool calls answered in the
    #: next message, text results: :func:`toolwire.turns.plain_history`), so the preflight skips it
    #: for one
    plain_history_sent_whole = True

    def __init__(self, *, cache: bool = False) -> None:
        self.cache: bool = bool(cache)
        #: Whether the answers decoded here come from the Claude API itself (set by
        #: :class:`~toolwire_anthropic.AnthropicModel` from its base URL): a refusal there before
        #: any output is marked as not billed (see :data:`REFUSAL_NOT_BILLED`).
        self.claude_api: bool = False
        self.profile: AnthropicProfile = AnthropicProfile()
        # preserved thinking (rule anthropic.conversation.thinking-prefix-changed): the fingerprints
        # of the (system, tools) values seen, by their strict bytes (a few; computed once per value),
        # and those of the last request encoded, read back when its answer is decoded
        self._prints_memo: dict[bytes, tuple[str, str]] = {}
        self._prints_slot: tuple[Any, Any, Any, tuple[str, str]] | None = None

    def __repr__(self) -> str:
        return f"AnthropicCodec(cache={self.cache})"

    def __getstate__(self) -> dict[str, Any]:
        # copied or pickled without the fingerprints kept for the last requests (only a cache)
        state = dict(self.__dict__)
        state["_prints_memo"] = {}
        state["_prints_slot"] = None
        return state

    # -- incremental encoding (toolwire.adapter: the loop's requests of one run) -----------------
    def concatenates_history(self, request: ModelRequest) -> bool:
        """Whether the ``messages`` of a body are the encoding of a closed prefix of the
        conversation followed by that of the rest (see ``toolwire.adapter``): yes, except with
        prompt caching on (the breakpoints move with the newest message)."""
        return not self.cache

    @staticmethod
    def history_lead(request: ModelRequest) -> int:
        """Entries ``messages`` holds whatever the conversation: none (``system`` is a field)."""
        return 0

    @staticmethod
    def history_boundary(last: Any, first: Any) -> bool:
        """Whether two consecutive encoded messages would be merged (:func:`_encode_messages`
        joins consecutive messages of one role)."""
        if type(last) is dict and type(first) is dict:
            return (last["role"] if "role" in last else None) == (first["role"] if "role" in first else None)
        return not (isinstance(last, dict) and isinstance(first, dict)) or last.get("role") == first.get("role")

    # -- tools --------------------------------------------------------------------------------
    def make_profile(self, **settings: Any) -> AnthropicProfile:
        """The Anthropic Messages :class:`~toolwire_anthropic.profile.AnthropicProfile`."""
        return AnthropicProfile(**settings)

    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """The tool's ``tools[]`` entry: ``{"name", "description", "input_schema"}`` plus
        ``strict`` only when ``tool.strict`` is not ``None``, plus the tool's opaque Anthropic
        fields (``cache_control``, ``defer_loading``, ``input_examples``, ...).

        Anthropic takes JSON Schema (draft 2020-12, ``$ref``/``$defs`` included) nearly as is; the
        profile's :meth:`~toolwire_anthropic.profile.AnthropicProfile.translate_schema` repairs
        the top level (no ``oneOf``/``anyOf``/``allOf`` and no ``$ref`` there) and, for
        ``strict=True``, the strict-tool subset. The report lists every change with its pointer
        into ``tool.input_schema`` (which is not modified: the loop validates arguments against
        it); a recursive schema is sent without ``strict`` (``report.strict_possible`` is
        ``False``, the change lossy).

        A name Anthropic refuses (``^[a-zA-Z0-9_-]{1,128}$``, e.g. a Gemini name ``files.read:v2``
        imported from another provider's history) is sent renamed (see :func:`wire_tool_names`),
        reported under the keyword ``name``; the model's calls to the new name run the tool.
        """
        if isinstance(tool, ProviderTool):
            # one of Anthropic's own tools: {"type", "name" (the one the API fixes), settings...}
            tool.check_for(API)
            info = self.profile.provider_tools()[tool.type]
            wire: dict[str, Any] = {"type": tool.type}
            if info.name is not None:
                wire["name"] = info.name
            wire.update(copy.deepcopy(tool.settings))
            return wire, TranslationReport(api=API, tool=tool.name, strict_possible=None)
        report = TranslationReport(api=API, tool=tool.name, strict_possible=None)
        name = tool.name
        if self.profile.tool_name_error(name) is not None:
            name = wire_tool_names([tool.name])[tool.name]
            report.add(
                "",
                "rewritten",
                "name",
                f"the tool name {tool.name!r} is sent as {name!r}: Anthropic allows only ^[a-zA-Z0-9_-]{{1,128}}$; "
                f"the model's calls to {name!r} run {tool.name!r}",
            )
        schema = self.profile.translate_schema(tool.input_schema, report, strict=tool.strict is True)
        wire: dict[str, Any] = {"name": name, "description": tool.model_description(), "input_schema": schema}
        if tool.strict is not None and not (tool.strict is True and report.strict_possible is False):
            wire["strict"] = tool.strict
        wire.update(_own(tool.provider_data))
        return wire, report

    # -- requests -----------------------------------------------------------------------------
    def left_out_parts(self, request: ModelRequest, messages: Any, offset: int) -> list[tuple[Any, ...]]:
        """The parts of ``messages`` (numbered from ``offset``) :meth:`encode_request` does not
        send as given, for the preflight report: images of assistant messages, sent as a note
        (rule ``anthropic.conversation.assistant-image``: "'image' blocks are not permitted
        within assistant turns"), and images tools returned in a format Anthropic does not read
        (rule ``anthropic.conversation.tool-result-image-type``); results answering a call
        already answered, calls repeating an id in one response and results placed before their
        call (each call is answered once, by a result after it: :func:`toolwire.turns.duplicate_changes`);
        Anthropic thinking parts without their signature (rule
        ``anthropic.conversation.thinking-unsigned``); the thinking left out because the
        instructions or tools changed since it was produced (one change at the last such part,
        rule ``anthropic.conversation.thinking-prefix-changed``); and results sent right after
        their call's assistant message although other assistant messages came between them (not
        lossy, rule ``conversation.result-moved``); and another API's system or developer
        message inside the conversation, sent as user text (rule
        ``conversation.system-message-as-user``)."""
        changes = (
            moved_result_changes(messages, offset, merged_turns=False)
            + assistant_image_changes(messages, offset, API)
            + tool_image_changes(messages, offset, API, IMAGE_MEDIA_TYPES, fetches_image_url)
            + duplicate_changes(messages, offset, before_call=True)
            + _unsigned_thinking_changes(messages, offset)
            # another API's system or developer message inside the conversation goes as user
            # text: Anthropic's own (anthropic.types.SystemMessageParam) is taken only right
            # after a user turn and by some models (rules anthropic.conversation.system-message-
            # placement and -model), where the other API put none of these conditions on it
            + system_as_user_changes(messages, offset, API)
        )
        if _drops_stale_blocks(request):
            prints = self._request_prints(request)
            stale = _stale_thinking(messages, prints) if prints is not None else None
            if stale is not None:
                changes.append(_prefix_changed_change(request, stale, offset))
        return changes

    # -- preserved thinking -------------------------------------------------------------------
    def _prefix_prints(self, system: Any, tools: Any) -> tuple[str, str]:
        """The fingerprints (:data:`PREFIX_SYSTEM_KEY`, :data:`PREFIX_TOOLS_KEY`) of a body's
        ``system`` and ``tools`` as sent: the system prompt in the form the body takes once the
        prompt-caching breakpoints are placed (one text block with ``cache=True``),
        ``cache_control`` left out of both. Computed once per distinct value (kept by its strict
        bytes, a few at a time)."""
        if self.cache and isinstance(system, str) and system:
            system = [{"type": "text", "text": system}]
        else:
            system = _without_cache_control(system)
        tools = _without_cache_control(tools)
        key = strict_bytes((system, tools))
        memo = self._prints_memo
        if key is not None:
            hit = memo.get(key)
            if hit is not None:
                return hit
        prints = (_digest(system), _digest(tools))
        if key is not None:
            if len(memo) >= 8:
                memo.clear()  # a few values at a time (a run has one)
            memo[key] = prints
        return prints

    def _request_prints(self, request: ModelRequest) -> tuple[str, str] | None:
        """The fingerprints of ``request``'s ``system`` and ``tools`` as :meth:`encode_request`
        sends them: those of the request it encoded last when ``request`` is (a copy of) it, else
        from an encoding of the request without its messages. ``None`` when it cannot be encoded."""
        slot = self._prints_slot
        if (
            slot is not None
            and slot[0] is request.tools
            and slot[1] is request.instructions
            and slot[2] is request.settings
        ):
            return slot[3]
        try:
            body = self.encode_request(dataclasses.replace(request, messages=[], conversation=None))
        except Exception:  # (it was encoded and sent: this does not happen) no fingerprint is recorded
            return None
        return self._prefix_prints(body.get("system"), body.get("tools"))

    def reasoning_provider_data(self, request: ModelRequest | None) -> dict[str, str] | None:
        """What ``provider_data["anthropic"]`` of a thinking part decoded from the answer to
        ``request`` records: ``{"prefix_system": <16 hex digits>, "prefix_tools": <16 hex digits>}``,
        the fingerprints of the request's ``system`` and ``tools`` (:meth:`_prefix_prints`), which
        a later request compares with its own (rule
        ``anthropic.conversation.thinking-prefix-changed``); ``None`` without a request."""
        if request is None:
            return None
        prints = self._request_prints(request)
        if prints is None:
            return None
        return {PREFIX_SYSTEM_KEY: prints[0], PREFIX_TOOLS_KEY: prints[1]}

    @staticmethod
    def setting_changes(request: ModelRequest, body: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The changes :meth:`encode_request` made to ``request``'s settings, for the preflight
        report (``body`` as repaired), rule ``anthropic.request.thinking-effort-budget``: for the
        cross-provider ``thinking={"effort": E}`` sent as manual thinking (before Claude 4.6),
        ``max_tokens`` raised above the default 4096 to hold the effort's ``budget_tokens`` and
        an answer when the caller set no ``max_tokens`` (not lossy); the budget lowered below a
        ``max_tokens`` the caller set (lossy: the model thinks less than the effort asks, and
        the answer keeps only what is left). On a model without extended thinking, the effort
        the preflight left out is reported as the caller wrote it (rule
        ``anthropic.request.thinking-model``), not as the manual thinking it was encoded to.
        A ``tool_choice`` of the settings (``extra_body``) that the request's own tool choice
        replaced is reported too (rule ``anthropic.request.tool-choice-setting``, lossy)."""
        given, sent = (request.settings or {}).get("tool_choice"), body.get("tool_choice")
        if isinstance(sent, dict) and isinstance(given, dict) and "disable_parallel_tool_use" not in given:
            sent = {k: v for k, v in sent.items() if k != "disable_parallel_tool_use"}  # parallel_tool_calls's own
        replaced = tool_choice_setting_change(
            request, "anthropic.request.tool-choice-setting", "/tool_choice", given, sent
        )
        return replaced + AnthropicCodec._thinking_setting_changes(request, body)

    @staticmethod
    def _thinking_setting_changes(request: ModelRequest, body: dict[str, Any]) -> list[tuple[Any, ...]]:
        given = given_thinking(request.thinking) if request.thinking else None
        unthinking = _effort_left_out(given, request.model, body)
        if unthinking is not None:
            return [unthinking]
        level = _manual_effort(given, request.model)
        thinking = body.get("thinking") if level is not None else None
        if not (isinstance(thinking, dict) and thinking.get("type") == "enabled"):
            return []  # no effort sent as manual thinking (or the preflight left thinking out)
        assert level is not None
        budget, mt, full = thinking.get("budget_tokens"), body.get("max_tokens"), EFFORT_BUDGETS[level]
        if type(budget) is not int or type(mt) is not int:
            return []
        said = f"thinking={{'effort': {level!r}}}"
        changes: list[tuple[Any, ...]] = []
        if request.max_tokens is None and mt > DEFAULT_MAX_TOKENS:
            changes.append(
                (
                    EFFORT_BUDGET_RULE,
                    "/max_tokens",
                    f"max_tokens sent as {mt} (max_tokens was not set; the default is {DEFAULT_MAX_TOKENS}): "
                    f"{said} thinks with budget_tokens {budget} on {request.model}, and thinking counts "
                    f"against max_tokens, so {mt - budget} tokens are left for the answer",
                    None,
                    None,
                    False,
                )
            )
        if budget < full:
            changes.append(
                (
                    EFFORT_BUDGET_RULE,
                    "/thinking/budget_tokens",
                    f"{said} asks for budget_tokens {full}; sent as {budget} to stay below max_tokens {mt} "
                    f"(budget_tokens must be less than max_tokens), which leaves {plural(mt - budget, 'token')} for "
                    f"the answer: set max_tokens to at least {full + EFFORT_ANSWER_ROOM}, or leave it unset "
                    "(toolwire then makes room for the effort)",
                    None,
                    None,
                    True,
                )
            )
        return changes

    @staticmethod
    def restate_refusal(request: ModelRequest, violations: list[Any]) -> list[Any]:
        """``violations`` with those the cross-provider ``thinking={"effort": E}`` caused, when it
        is sent as manual thinking (before Claude 4.6), worded in the settings the caller wrote
        (the effort, ``tool_choice``, ``max_tokens``) instead of ``thinking.type`` and
        ``budget_tokens``, which the caller never wrote: rule ``anthropic.request.thinking-forced-tool``
        (a forced tool choice) and ``anthropic.request.thinking-budget`` (a ``max_tokens`` of
        1024 or less leaves no room for the least budget, 1024)."""
        level = _manual_effort(given_thinking(request.thinking), request.model) if request.thinking else None
        if level is None:
            return violations
        said = f"thinking={{'effort': {level!r}}}"
        out = []
        for v in violations:
            if v.rule == "anthropic.request.thinking-forced-tool":
                v = Violation(
                    v.rule,
                    v.pointer,
                    f"{said} is sent to {request.model} as manual extended thinking (the only thinking it "
                    "takes), which allows only tool_choice 'auto' or 'none', but tool_choice is "
                    f"{_choice_words(normalize_tool_choice(request.tool_choice))}: drop thinking for this run "
                    "(leave thinking unset, or {'effort': 'none'}), or use tool_choice 'auto' and ask for the "
                    "tool in the prompt",
                    v.tool,
                    v.call_id,
                )
            elif v.rule == "anthropic.request.thinking-budget":
                mt = request.max_tokens
                v = Violation(
                    v.rule,
                    "/max_tokens",
                    f"{said} on {request.model} needs a thinking budget of at least 1024 tokens, which must be less than "
                    f"max_tokens, but max_tokens is {mt!r}: set max_tokens above 1024 (at least "
                    f"{EFFORT_BUDGETS[level] + EFFORT_ANSWER_ROOM} for the full {level!r} budget and an answer), "
                    "leave max_tokens unset (toolwire then makes room for the effort), or leave thinking out",
                    v.tool,
                    v.call_id,
                )
            out.append(v)
        return out

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → the ``/v1/messages`` JSON body.

        The body is what the codec can say; the Anthropic rules that depend on the whole request
        (thinking with a forced tool choice, sampling settings with thinking, budgets, ...) are
        checked by the preflight (:class:`~toolwire_anthropic.profile.AnthropicProfile`), which
        raises :class:`~toolwire.errors.RequestRefused` before sending. Raises
        :class:`~toolwire.errors.UnsupportedToolChoice` for a tool choice form it cannot express.
        Tools whose names Anthropic refuses are sent renamed (:func:`wire_tool_names`), the same
        way in the declarations, the history's ``tool_use`` blocks and the tool choice.
        """
        request, _ = answer_request(request)  # unanswered calls: answered "not run", as on every API
        choice = normalize_tool_choice(request.tool_choice)
        thinking = given_thinking(request.thinking)  # {"effort": None}: no setting
        settings = dict(request.settings or {})
        names = _request_names(request)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens if request.max_tokens is not None else _default_max_tokens(request),
            "messages": None,  # (encoded below, once the thinking to leave out is known)
        }
        if request.instructions is not None:
            sys_cc = settings.get("system_cache_control")
            if sys_cc is not None:
                body["system"] = [{"type": "text", "text": request.instructions, "cache_control": sys_cc}]
            else:
                body["system"] = request.instructions
        tools = []
        memo = DeclarationMemo.of(self)
        same = memo.unchanged_list(request.tools)
        for i, t in enumerate(request.tools):
            # another vendor's tool: ProviderToolUnsupported first (translate_tool raises it)
            decl = same[i] if same is not None else memo.declaration(t, self.translate_tool)
            if isinstance(t, ProviderTool):
                t.require_function(_client_tool_factory(t.type))
            if t.name in names:
                decl["name"] = names[t.name]
            tools.append(decl)
        if same is None:
            memo.remember_list(request.tools)
        for entry in (
            sorted(settings.get("server_tools") or [], key=lambda e: e.get("position", len(tools)))
            if "server_tools" in settings
            else ()
        ):
            pos = entry.get("position")
            pos = len(tools) if not isinstance(pos, int) else min(max(pos, 0), len(tools))
            # a server tool kept from an imported request: one with a field of the wrong type
            # (anthropic.types.WebSearchTool20250305Param.max_uses: int, ...) is refused here
            check_imported_provider_tool(API, entry["tool"], f"/tools/{pos}")
            _check_server_tool_name(entry["tool"], f"/tools/{pos}")
            tools.insert(pos, copy.deepcopy(entry["tool"]))
        if tools:
            body["tools"] = tools
        tc = self._encode_tool_choice(choice, request.parallel_tool_calls)
        given = settings.get("tool_choice")  # Anthropic's own form, from extra_body
        if (
            tc is not None
            and isinstance(given, dict)
            and given.get("type") in ("auto", "any", "tool", "none")
            and (choice is None or (choice == "auto" and given.get("type") == "auto"))
        ):
            # the setting's choice stands where the request has none (parallel_tool_calls=False alone
            # made an "auto" of it) or asks for the same "auto" (rule anthropic.request.tool-choice-setting)
            tc = copy.deepcopy(given)
            if request.parallel_tool_calls is False and tc["type"] != "none":
                tc.setdefault("disable_parallel_tool_use", True)
        if tc is not None and tc.get("type") == "tool" and isinstance(tc.get("name"), str):
            tc["name"] = _history_name(tc["name"], names)
        if tc is not None and (tools or tc["type"] in ("any", "tool")):
            # without tools, auto/none (and disable_parallel_tool_use) mean nothing and are left out
            # (rule anthropic.request.tool-choice-without-tools); a forced choice is left for the
            # preflight to refuse
            body["tool_choice"] = tc
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if thinking:  # (an empty setting is none: "thinking": {} would be refused, it names no type)
            body["thinking"] = _thinking_wire(thinking, body["max_tokens"], request.model)
            effort = _adaptive_effort(thinking, request.model)
            if effort is not None:
                given = settings.get("output_config")  # the caller's own output_config (its effort wins)
                body["output_config"] = {"effort": effort, **(copy.deepcopy(given) if isinstance(given, dict) else {})}
        messages = request.messages
        drops = _drops_stale_blocks(request)
        if drops or "thinking" in body or runs_prefix_check(request.model):
            # preserved thinking: the fingerprints of system and tools, recorded on the answer's
            # thinking parts (reasoning_provider_data) and compared with those the history's
            # thinking parts recorded (rule anthropic.conversation.thinking-prefix-changed)
            prints = self._prefix_prints(body.get("system"), body.get("tools"))
            self._prints_slot = (request.tools, request.instructions, request.settings, prints)
            if drops:
                stale = _stale_thinking(messages, prints)
                if stale is not None:
                    messages = _without_thinking_to(messages, stale[0], stale[1])
        body["messages"] = _encode_messages(messages, names)
        if request.stream:
            body["stream"] = True
        for k, v in settings.items() if settings else ():
            if k not in _TOOLWIRE_SETTING_KEYS and k not in body:
                body[k] = copy.deepcopy(v)
        if "container" not in body:
            container = _pending_container(request.messages)
            if container is not None:
                body["container"] = container
        if self.cache:
            self._place_cache_breakpoints(body)
        return body

    @staticmethod
    def _encode_tool_choice(choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        if choice is None:
            tc: dict[str, Any] | None = {"type": "auto"} if parallel is False else None
        elif choice == "auto":
            tc = {"type": "auto"}
        elif choice == "required":
            tc = {"type": "any"}
        elif choice == "none":
            return {"type": "none"}  # disable_parallel_tool_use does not exist on "none"
        elif isinstance(choice, dict) and choice.get("type") == "tool":
            tc = {"type": "tool", "name": choice["name"]}
        else:  # pragma: no cover - normalize_tool_choice already raised
            raise UnsupportedToolChoice(f"tool choice {choice!r} cannot be sent to Anthropic")
        if tc is not None and parallel is False:
            tc["disable_parallel_tool_use"] = True
        return tc

    @staticmethod
    def _place_cache_breakpoints(body: dict[str, Any]) -> None:
        """Put ``cache_control: {"type": "ephemeral"}`` where a cached prefix pays, within
        :data:`~toolwire_anthropic.profile.CACHE_MAX_BREAKPOINTS` (4) counting the breakpoints the
        request already carries, in this order of priority:

        1. the last block of the newest message (writes the whole prefix for the next turn);
        2. the last block of the user message before the newest assistant turn (where the
           previous request wrote its cache: read back even when a turn added more than the
           API's 20-block lookback);
        3. the last tool definition (tools change least: read even when the conversation changed);
        4. the system prompt (sent as one text block, with its breakpoint or without).

        Thinking blocks cannot carry ``cache_control``, nor empty or blank text blocks, which the
        preflight leaves out (the nearest earlier block of the message does). A prefix shorter than the model's minimum
        (:meth:`~toolwire_anthropic.profile.AnthropicProfile.cache_min_tokens`) is simply not
        cached by the API (no error, no write charged)."""
        from .profile import CACHE_MAX_BREAKPOINTS

        given = _cache_blocks(body)  # the caller's own breakpoints
        budget = CACHE_MAX_BREAKPOINTS - len(given) - (body.get("cache_control") is not None)

        def mark_last_block(msg: dict[str, Any]) -> bool:
            content: Any = msg.get("content")
            if isinstance(content, str):
                msg["content"] = content = [{"type": "text", "text": content}]
            for block in reversed(content or []):
                if not isinstance(block, dict) or block.get("type") in ("thinking", "redacted_thinking"):
                    continue  # thinking blocks cannot carry cache_control
                if block.get("type") == "text" and isinstance(block.get("text"), str) and not block["text"].strip():
                    continue  # an empty or blank text block is left out of the request (and its breakpoint with it)
                if block.get("cache_control") is not None:
                    return False
                block["cache_control"] = dict(_EPHEMERAL)
                return True
            return False

        system = body.get("system")
        if isinstance(system, str) and system:
            # one form on every request, with its breakpoint or without (when the caller's own
            # breakpoints leave none for it): a thinking block is valid only while the system
            # prompt it was produced under is sent again unchanged, cache_control aside
            # (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking)
            body["system"] = [{"type": "text", "text": system}]
        msgs = body.get("messages") or []
        targets: list[Callable[[], bool]] = []
        if msgs:
            targets.append(lambda: mark_last_block(msgs[-1]))
            last_assistant = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("role") == "assistant"), None)
            if last_assistant is not None and last_assistant > 0 and last_assistant - 1 != len(msgs) - 1:
                prev = msgs[last_assistant - 1]
                targets.append(lambda: mark_last_block(prev))
        tools = body.get("tools") or []

        def mark_tools() -> bool:
            # a deferred tool (defer_loading: true) is not in the prompt and cannot carry a breakpoint
            # (rule anthropic.tool.defer-loading-cache-control): the last tool that is not deferred does
            last = next((t for t in reversed(tools) if t.get("defer_loading") is not True), None)
            if last is None or last.get("cache_control") is not None:
                return False
            last["cache_control"] = dict(_EPHEMERAL)
            return True

        def mark_system() -> bool:
            system = body.get("system")
            if (
                isinstance(system, list)
                and system
                and isinstance(system[-1], dict)
                and system[-1].get("cache_control") is None
            ):
                system[-1]["cache_control"] = dict(_EPHEMERAL)
                return True
            return False

        targets += [mark_tools, mark_system]
        for mark in targets:
            if budget <= 0:
                break
            if mark():
                budget -= 1
        if any(_ttl(b) == "1h" for b in given):  # only a caller's breakpoint asks for an hour
            _lengthen_ttls_before_an_hour(_cache_blocks(body))

    @_guarded("the Anthropic request body")
    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """An Anthropic request body → canonical :class:`ModelRequest`.

        Messages become canonical parts (text, image, tool call, tool result, reasoning); consecutive
        messages of one role become one canonical message, as the API combines them into one turn
        ("consecutive user or assistant turns in your request will be combined into a single turn",
        Messages API reference) and :meth:`encode_request` sends them so. Only the
        declared opaque vendor fields ride in ``provider_data["anthropic"]`` (``cache_control``,
        ``citations``, ``caller``, ``toolset_name``; thinking signatures and redacted data are the
        reasoning part's own fields; blocks with no canonical form are kept whole with their
        position). Fields without a canonical home go to ``settings`` (see :data:`SETTINGS_MAP`).
        ``system`` given as several text blocks is joined with a blank line (its block split is
        not kept).

        Raises :class:`~toolwire.errors.ResponseDecodeError` (a ``ValueError``) for a body that is
        not an object, ``messages`` that is not an array of objects, a role other than
        ``user``/``assistant``, content of the wrong JSON type (see :meth:`decode_response`), a
        ``system`` that is neither text nor an array of text blocks, or another top-level field
        (``tool_choice``, ``thinking``, ``metadata``, ``max_tokens``, ...) of a type the SDK's
        ``MessageCreateParamsBase`` does not give it; the error's ``pointer`` names the field.
        """
        body = _obj(body, "")
        _check_import_types(body)
        messages: list[Message] = []
        for mi, m in enumerate(_opt_list(body.get("messages"), "/messages")):
            m = _obj(m, f"/messages/{mi}")
            role = m.get("role")
            if role == "system":
                # a system message inside the conversation (anthropic.types.SystemMessageParam): a
                # user message marked as one, sent back as a system message of its own (never
                # combined with the turns around it); another provider reads it as a user message
                parts = _decode_blocks(m.get("content"), role="user", pointer=f"/messages/{mi}/content")
                messages.append(Message("user", parts, {API: {"role": "system"}}))
                continue
            if role not in ("user", "assistant"):
                raise ResponseDecodeError(
                    API,
                    f"message role must be 'user', 'assistant' or 'system', got {role!r}",
                    f"/messages/{mi}/role",
                )
            parts = _decode_blocks(
                m.get("content"),
                role=role,
                pointer=f"/messages/{mi}/content",
                synth=lambda pos, mi=mi: _synth_id(["import", mi], None, pos),
            )
            if messages and messages[-1].role == role and not _is_system_message(messages[-1]):
                # the API combines consecutive turns of one role into a single turn (and the encoder
                # sends them so): import them as that one turn
                messages[-1].parts.extend(parts)
                continue
            messages.append(Message(role, parts))

        settings: dict[str, Any] = {}
        instructions: str | None = None
        system = body.get("system")
        if isinstance(system, str):
            instructions = system
        elif isinstance(system, list) and system:
            texts = [b["text"] for b in system]  # (text blocks: _check_import_types)
            instructions = "\n\n".join(texts)
            cc = next(
                (b.get("cache_control") for b in reversed(system) if isinstance(b, dict) and b.get("cache_control")),
                None,
            )
            if cc is not None:
                settings["system_cache_control"] = copy.deepcopy(cc)

        tools: list[Tool] = []
        server_tools: list[dict[str, Any]] = []
        for i, t in enumerate(_opt_list(body.get("tools"), "/tools")):
            if isinstance(t, dict) and "input_schema" in t and t.get("type") in (None, "custom"):
                extras = {
                    k: copy.deepcopy(v)
                    for k, v in t.items()
                    if k not in ("name", "description", "input_schema", "strict") and v is not None
                }
                tools.append(
                    Tool(
                        t["name"],
                        t.get("description") or "",
                        copy.deepcopy(t["input_schema"]),
                        strict=t.get("strict"),
                        provider_data={API: extras} if extras else {},
                        imported_from=API,
                    )
                )
            else:
                server_tools.append({"position": i, "tool": copy.deepcopy(t)})
        if server_tools:
            settings["server_tools"] = server_tools

        tool_choice: Any = None
        parallel: bool | None = None
        tc = body.get("tool_choice")
        if isinstance(tc, dict):
            ttype = tc.get("type")
            tool_choice = (
                {"auto": "auto", "any": "required", "none": "none"}.get(ttype) if isinstance(ttype, str) else None
            )
            if ttype == "tool":
                tool_choice = {"type": "tool", "name": tc.get("name")}
            if tool_choice is None:
                raise UnsupportedToolChoice(f"Anthropic tool_choice {tc!r} has no canonical form")
            if tc.get("disable_parallel_tool_use") is True:
                parallel = False

        for k, v in body.items():
            if k not in _CANONICAL_FIELDS:
                settings[k] = copy.deepcopy(v)

        return ModelRequest(
            model=body.get("model", ""),
            messages=messages,
            instructions=instructions,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel,
            max_tokens=body.get("max_tokens"),
            temperature=body.get("temperature"),
            stream=bool(body.get("stream", False)),
            thinking=copy.deepcopy(body.get("thinking")) if body.get("thinking") is not None else None,
            settings=settings,
        )

    # -- responses ----------------------------------------------------------------------------
    @_guarded("the Anthropic response body")
    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """An Anthropic ``Message`` JSON body → canonical :class:`Response`.

        ``text`` → :class:`TextPart`; ``tool_use`` → :class:`ToolCall` (``input`` is already an
        object); ``thinking``/``redacted_thinking`` → :class:`ReasoningPart` (``provider="anthropic"``,
        signature / ``encrypted`` kept byte-for-byte); server-tool blocks and every other block
        toolwire has no canonical part for (``container_upload``, ``compaction``, a type newer than
        toolwire) → :class:`ProviderToolPart` at their place, kept whole (they are not client
        tool calls). A body whose ``type`` is ``"error"``, or an object with an ``error`` and no
        ``content``/``type`` (an error sent with status 200 by a proxy), raises
        :class:`ProviderError`. When the stop
        reason is ``max_tokens`` a trailing ``tool_use`` block is marked ``incomplete`` (its input
        may be cut off) and is never run.

        Tool calls that cannot be run are kept but marked invalid (the loop answers them with an
        ``is_error`` result): a missing or non-string ``name`` (:data:`NAME_INVALID`), a later
        call repeating an earlier call's ``id`` (:func:`duplicate_id_invalid`). A ``tool_use``
        without a usable ``id`` gets a synthesized one (``toolu_tw<hash>_<position>``, the hash
        of the message id and the request's message count). Usage counters that are not
        non-negative integers are left ``None``.

        Raises :class:`~toolwire.errors.ResponseDecodeError` (``api="anthropic"``, with the JSON
        pointer of the field) when the body is not an object, has no ``content`` (a required
        field: ``{}`` is not an empty answer), ``content`` is not an array of objects, a block has no ``type`` (missing or empty), a block's ``type``, a text/thinking field or ``stop_reason``/``id``/``model`` is not a string.
        """
        usual = _decode_usual(body, request)
        if usual is not None:
            if self.claude_api and usual.vendor_stop_reason == "refusal":
                _note_not_billed(usual)
            return usual
        body = _obj(body, "")
        if body.get("type") == "error":
            raise _error_from_event(body)
        err = error_in_body(API, body, ("content", "type"), _RETRYABLE_ERROR_TYPES)
        if err is not None:
            raise err
        if body.get("content") is None:  # missing or null: Message.content is a required array
            raise ResponseDecodeError(API, "the body has no content array: it is not a Messages response", "/content")
        message_id = _opt_str(body.get("id"), "/id")
        model = _opt_str(body.get("model"), "/model")
        raw_stop = _opt_str(body.get("stop_reason"), "/stop_reason")
        parts = _decode_blocks(
            body.get("content"),
            role="assistant",
            pointer="/content",
            synth=lambda pos: _synth_id(message_id or body, request, pos),
        )
        if request is not None:
            record = None
            for p in parts:
                if type(p) is ReasoningPart and p.provider == API:
                    if record is None:
                        record = self.reasoning_provider_data(request)
                        if record is None:
                            break
                    p.provider_data = {API: dict(record)}
        calls = [p for p in parts if isinstance(p, ToolCall)]
        real = _real_names(request)
        for c in calls:
            if c.name in real:
                c.name = real[c.name]  # a renamed tool (rule anthropic.tool.name): the real name
        stop = map_stop_reason(raw_stop, bool(calls))
        if stop == "max_tokens" and parts and isinstance(parts[-1], ToolCall):
            parts[-1].incomplete = True
            parts[-1].invalid = (
                parts[-1].invalid or "the response hit max_tokens inside this tool call; its input may be cut off"
            )
        pd: dict[str, Any] = {}
        for k in _RESPONSE_FIELDS:
            if body.get(k) is not None:
                pd[k] = body[k]
        if (ctx := _price_context(body.get("usage"))) is not None:
            pd["price_context"] = ctx
        if (extras := _usage_extras(body.get("usage"))) is not None:
            pd["usage"] = extras
        response = check_tool_calls(
            Response(
                parts=parts,
                stop_reason=cast(StopReason, stop),
                vendor_stop_reason=raw_stop,
                usage=usage_from_wire(body.get("usage"), requests=1),
                model=model,
                response_id=message_id,
                provider=API,
                provider_data={API: pd} if pd else {},
            )
        )
        if self.claude_api and raw_stop == "refusal":
            _note_not_billed(response)
        return response

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """Anthropic SSE ``data`` objects, in order → canonical stream events (see
        :class:`StreamDecoder`, which also lists the :class:`ResponseDecodeError` cases). Feed them
        to :class:`toolwire.stream.StreamAssembler` to get the same :class:`Response` as
        :meth:`decode_response` would give for the finished message; pass that through
        :func:`check_tool_calls` to mark unnamed and duplicate-id calls as the non-streamed path does."""
        dec = StreamDecoder(request, codec=self)
        for data in events:
            if isinstance(data, dict):
                yield from dec.feed(data)
        yield from dec.finish()
