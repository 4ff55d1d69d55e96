"""The OpenAI Responses codec (``POST /responses``).

Pure functions of their inputs. Field names and rules follow the installed ``openai`` SDK's
``types/responses/*`` and the Responses API reference
(https://platform.openai.com/docs/api-reference/responses); mapping tables are in the adapter's
documentation page (OpenAI).

Opaque per-item data lives in ``provider_data["openai"]``:

- tool call: ``{"item_id": "fc_…", "item": {other item keys, e.g. status}}`` — ``ToolCall.id``
  is the ``call_id`` that ``function_call_output`` must reference;
- reasoning: ``ReasoningPart(provider="openai", encrypted=<encrypted_content>)`` with
  ``{"item_id": "rs_…", "item": {summary, status, content, …}}``; its ``text`` is the summary
  text joined with blank lines (read-only: the item goes back from ``item``, byte-exact);
- text: ``{"item_id": "msg_…", "item": {role, status, phase, …}, "part": {annotations, …}}``;
- the response: ``Response.provider_data["openai"] = {"response_id": "resp_…"}``,
  copied to the assistant message so ``previous_response_id`` continuation can find it.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any, Callable, Iterable, Iterator, Sequence, cast

from toolwire._words import plural
from toolwire.adapter import (
    DeclarationMemo,
    ModelRequest,
    given_thinking,
    normalize_tool_choice,
    tool_choice_setting_change,
)
from toolwire.arguments import parse_arguments
from toolwire.errors import ProviderError, ResponseDecodeError, UnsupportedToolChoice
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
    answer_request,
    assistant_image_changes,
    duplicate_changes,
    marked_system_role,
    readable_tool_result,
    tool_image_changes,
)
from toolwire.types import (
    DocumentPart,
    ImagePart,
    Message,
    ProviderToolPart,
    ReasoningPart,
    Response,
    Role,
    StopReason,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
)
from toolwire.wire import Shape, json_kind, tool_name

from ._common import (
    ARGUMENT_KINDS,
    PRICED_TIERS,
    TRANSIENT_ERROR_CODES,
    apply_overrides,
    arguments_text,
    check_as_user_message,
    check_discriminator,
    check_function_decl,
    check_import_types,
    check_tool_calls,
    copied,
    declares_parallel,
    document_from_data_url,
    mark_declared_parallel,
    mark_error,
    overrides_for,
    prompt_cache_key,
    real_call_names,
    record_price_context,
    result_text_parts,
    split_parallel_calls,
    strict_parameters,
    synth_call_id,
    tool_at,
    unique_wire_calls,
    untyped_part,
    usage_of,
    without_blank_parts,
)
from ._common import (
    wire_name as _wire_name,
)
from .profile import (
    IMAGE_MEDIA_TYPES,
    PARALLEL_BARE_NAME,
    PARALLEL_PSEUDO_TOOL,
    RESPONSES_CLIENT_CALL_ITEMS,
    RESPONSES_CLIENT_CALLS,
    fetches_image_url,
    naming_profile,
    real_names,
    responses_hosted_item_types,
    takes_reasoning_items,
)

#: The preflight rule of reasoning items the codec leaves out (see ``left_out_parts``).
REASONING_LEFT_OUT = "openai.conversation.reasoning-left-out"

__all__ = [
    "OpenAIResponsesCodec",
    "ResponsesStreamDecoder",
    "responses_usage",
    "stop_reason_of",
    "hosted_item_part",
    "API",
]

API = "openai"

#: Settings the codec reads itself and never copies into the body.
CODEC_KEYS = frozenset({"instructions_role", "other_tools"})

_CANONICAL_FIELDS = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_output_tokens",
        "temperature",
        "stream",
    }
)

#: ``incomplete_details.reason`` → canonical stop reason.
INCOMPLETE_REASONS = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
    "max_messages": "max_tokens",
    "steered": "end_turn",
}

_SLOT = 1000  # stream part index = output_index * _SLOT + content_index

_SHAPE = Shape(API)


def responses_usage(u: Any) -> Usage:
    """Responses ``usage`` → :class:`Usage`: ``input_tokens`` (cache included),
    ``output_tokens`` (reasoning included), ``input_tokens_details.cached_tokens`` →
    cache_read, ``input_tokens_details.cache_write_tokens`` → cache_write,
    ``output_tokens_details.reasoning_tokens`` → reasoning."""
    if not isinstance(u, dict):
        return Usage(requests=1)
    get = u.get
    it = it if isinstance(it := get("input_tokens_details"), dict) else _EMPTY
    ot = ot if isinstance(ot := get("output_tokens_details"), dict) else _EMPTY
    inp, out, total = get("input_tokens"), get("output_tokens"), get("total_tokens")
    cached, written, reasoning = it.get("cached_tokens"), it.get("cache_write_tokens"), ot.get("reasoning_tokens")
    return usage_of(inp, out, cached, written, reasoning, total)


_EMPTY: dict[str, Any] = {}


def _conversation_id(value: Any) -> str | None:
    """The id of a Responses ``conversation`` (a string, or ``{"id": ...}``), else ``None``."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value else None


def _response_data(rid: str | None, conversation: Any) -> dict[str, Any]:
    """``Response.provider_data`` of a response: ``{"openai": {"response_id", "conversation"}}``
    (the server conversation it was added to, when it names one)."""
    if not rid:
        return {}
    data: dict[str, Any] = {"response_id": rid}
    conv = _conversation_id(conversation)
    if conv is not None:
        data["conversation"] = conv
    return {API: data}


#: Response fields kept whole in ``Response.provider_data["openai"]`` (``openai.types.responses.Response``):
#: what a request setting asked for (``moderation``: the results of moderated completions;
#: ``prompt_cache_diagnostics``: why the cache missed, asked with ``prompt_cache_options``), what
#: the API left out of the input (``input_transformations``: reasoning items withheld from the
#: model) and what OpenAI's own tools used, billed apart from ``usage`` (``tool_usage``).
RESPONSE_EXTRAS = ("moderation", "prompt_cache_diagnostics", "input_transformations", "tool_usage")


def response_extras(resp: Any) -> dict[str, Any]:
    """The :data:`RESPONSE_EXTRAS` a Response object carries (``null`` ones left out)."""
    if type(resp) is not dict:
        return {}
    return {k: resp[k] for k in RESPONSE_EXTRAS if k in resp and resp[k] is not None}


def stop_reason_of(resp: dict[str, Any], pointer: str = "") -> tuple[str, str | None]:
    """``(canonical, vendor)`` stop reason of a Response object, which has no finish reason.

    ``vendor`` is ``status``, plus ``":" + incomplete_details.reason`` when present (e.g.
    ``"incomplete:max_output_tokens"``). Canonical: ``failed``/``cancelled`` → ``error``;
    ``incomplete`` → :data:`INCOMPLETE_REASONS`; otherwise ``tool_use`` when the output holds a
    ``function_call`` or ``custom_tool_call`` item (the model waits for its output), ``refusal`` when a message holds a ``refusal`` part, else ``end_turn``.
    Raises :class:`~toolwire.errors.ResponseDecodeError` when ``status`` or the reason is not a
    string (``pointer``: where ``resp`` sits, e.g. ``/response`` in a stream event).
    """
    status = _SHAPE.opt_str(resp.get("status"), f"{pointer}/status")
    details = _SHAPE.opt_obj(resp.get("incomplete_details"), f"{pointer}/incomplete_details")
    reason = _SHAPE.opt_str(details.get("reason"), f"{pointer}/incomplete_details/reason")
    vendor = None if status is None else (f"{status}:{reason}" if reason else str(status))
    if status in ("failed", "cancelled"):
        return "error", vendor
    if status == "incomplete":
        return INCOMPLETE_REASONS.get(reason or "", "max_tokens"), vendor
    output = output if isinstance(output := resp.get("output"), list) else []
    if any(
        isinstance(i, dict) and (i.get("type") in ("function_call", "custom_tool_call") or _is_client_call(i))
        for i in output
    ):
        return "tool_use", vendor
    for item in output:
        if isinstance(item, dict) and item.get("type") == "message" and isinstance(item.get("content"), list):
            if any(isinstance(c, dict) and c.get("type") == "refusal" for c in item["content"]):
                return "refusal", vendor
    return "end_turn", vendor


def _summary_text(item: dict[str, Any], at: str) -> str:
    texts = []
    for i, entry in enumerate(_SHAPE.opt_list(item.get("summary"), f"{at}/summary")):
        entry = _SHAPE.obj(entry, f"{at}/summary/{i}")
        texts.append(_SHAPE.opt_str(entry.get("text"), f"{at}/summary/{i}/text") or "")
    if not texts:
        for i, c in enumerate(_SHAPE.opt_list(item.get("content"), f"{at}/content")):
            if isinstance(c, dict) and c.get("type") == "reasoning_text":
                texts.append(_SHAPE.opt_str(c.get("text"), f"{at}/content/{i}/text") or "")
    return "\n\n".join(t for t in texts if t)


def _reasoning_part(item: dict[str, Any], at: str = "", origin: str | None = None) -> ReasoningPart:
    rest = {k: copied(v) for k, v in item.items() if k not in ("type", "id", "encrypted_content")}
    pd: dict[str, Any] = {"item_id": item.get("id"), "item": rest}
    if origin is not None:  # the endpoint that issued it: only that endpoint can decrypt it
        pd["origin"] = origin
    if "encrypted_content" in item and item["encrypted_content"] is None:
        pd["null_encrypted"] = True
    encrypted = _SHAPE.opt_str(item.get("encrypted_content"), f"{at}/encrypted_content")
    return ReasoningPart(text=_summary_text(item, at), encrypted=encrypted, provider=API, provider_data={API: pd})


#: Why a ``custom_tool_call`` is never run (see :func:`_as_custom_call`).
CUSTOM_CALL_INVALID = "custom (free-text) tool calls are not supported by toolwire; declare a function tool"


def _as_custom_call(call: ToolCall, item: dict[str, Any]) -> ToolCall:
    """Turn the call decoded from a ``custom_tool_call`` item (a free-text ``input`` for a tool
    declared ``{"type": "custom"}``) into an invalid call that is never run but goes back on the
    wire as the same ``custom_tool_call`` item, answered by a ``custom_tool_call_output`` (the
    API pairs a custom call only with that output type). ``raw_arguments`` keeps the ``input``
    text; ``provider_data["openai"]["custom"]`` marks it."""
    raw_input = item.get("input")
    call.arguments = None
    call.raw_arguments = raw_input if isinstance(raw_input, str) else None
    call.invalid = CUSTOM_CALL_INVALID
    call.incomplete = False
    rest = {k: copied(v) for k, v in item.items() if k not in ("type", "id", "call_id", "name", "input")}
    pd: dict[str, Any] = {"custom": True, "item": rest}
    if item.get("id") is not None:
        pd["item_id"] = item["id"]
    call.provider_data = {API: pd}
    return call


def _call_from_item(item: dict[str, Any], cut_off: bool, synth: Callable[[], str] | None = None) -> ToolCall:
    """A ``function_call`` item → :class:`ToolCall`.

    ``arguments`` is a JSON string on the wire; an object (sent by some compatible servers) is
    taken as the arguments as it is (``raw_arguments=None``); any other JSON type makes the call
    invalid. ``id`` = ``call_id``, else the item ``id``, else ``synth()``
    (``id_synthesized=True`` unless ``call_id`` was given). A ``name`` that is missing or not a
    string makes the call invalid (:data:`~toolwire_openai._common.NAME_INVALID`).
    """
    raw = item.get("arguments")
    if isinstance(raw, dict):
        args, invalid, raw_text = dict(raw), None, None
    elif raw is None or isinstance(raw, str):
        args, invalid = parse_arguments(raw)
        raw_text = raw
    else:
        args, invalid, raw_text = None, f"arguments must be a JSON object, got a JSON {json_kind(raw)}", None
    rest = {k: copied(v) for k, v in item.items() if k not in ("type", "id", "call_id", "name", "arguments")}
    pd: dict[str, Any] = {"item": rest}
    if "id" in item:
        pd["item_id"] = item["id"]
    call_id, item_id = item.get("call_id"), item.get("id")
    has_call_id = isinstance(call_id, str) and bool(call_id)
    if isinstance(call_id, str) and call_id:
        the_id = call_id
    elif isinstance(item_id, str) and item_id:
        the_id = item_id
    else:
        the_id = synth() if synth is not None else ""
    name, name_invalid = tool_name(item.get("name"))
    # positional, in ToolCall's field order (id, name, arguments, raw_arguments, invalid,
    # incomplete, id_synthesized, provider_data): half the cost of keywords
    call = ToolCall(the_id, name, args, raw_text, name_invalid or invalid, False, not has_call_id, {API: pd})
    if invalid is not None and (cut_off or item.get("status") == "incomplete"):
        call.incomplete = True
        call.invalid = f"cut off by the output-token limit: {invalid}"
    return call


def parallel_record(call: ToolCall, k: int, recipient: str) -> dict[str, Any]:
    """The ``provider_data`` of call ``k`` (1-based) split from the ``multi_tool_use.parallel``
    call ``call`` (:func:`~toolwire_openai._common.split_parallel_calls`):
    ``{"openai": {"parallel": {"call": <the function_call item as received>, "item_id": <its
    item id, when it had one>, "index": k, "recipient_name": recipient}}}``. The encoder sends the
    original item back in place of the calls split from it, followed by one
    ``function_call_output`` for its ``call_id`` holding their results: a Responses call is
    answered by its own ``call_id`` (a stored response, reached by ``previous_response_id``,
    holds the original item and waits for that id's output), and the history then says what the
    model did."""
    pd = call.provider_data.get(API) or {}
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": arguments_text(call),
    }
    item.update(copied(pd.get("item") or {}))
    par: dict[str, Any] = {"call": item, "index": k, "recipient_name": recipient}
    if pd.get("item_id") is not None:
        par["item_id"] = copied(pd["item_id"])
    return {API: {"parallel": par}}


def _parallel_of(call: ToolCall) -> dict[str, Any] | None:
    """The ``parallel`` record of a call split from a ``multi_tool_use.parallel`` call
    (:func:`parallel_record`), or ``None``."""
    pd = call.provider_data.get(API)
    par = pd.get("parallel") if type(pd) is dict else None
    if type(par) is not dict or type(item := par.get("call")) is not dict or type(item.get("call_id")) is not str:
        return None
    return par


def _short(text: Any, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _hosted_summary(item: dict[str, Any]) -> str:
    """One readable line for a hosted-tool item: the search query or opened URL
    (``web_search_call.action``), the queries and result count (``file_search_call``), the code
    and its logs (``code_interpreter_call``), the MCP tool and its output or error
    (``mcp_call``), the shell command (``local_shell_call``/``shell_call``), else the status."""
    t = item.get("type")
    bits: list[str] = []
    action = item.get("action")
    if t == "web_search_call" and isinstance(action, dict):
        what = action.get("query") or action.get("url") or action.get("pattern") or ""
        bits.append(f"{action.get('type') or 'search'} {what}".strip())
    elif t == "file_search_call":
        bits.append("; ".join(q for q in _as_list(item.get("queries")) if isinstance(q, str)))
        if isinstance(item.get("results"), list):
            bits.append(plural(len(item["results"]), "result"))
    elif t == "code_interpreter_call":
        bits.append(str(item.get("code") or ""))
        logs = [o.get("logs") for o in _as_list(item.get("outputs")) if isinstance(o, dict) and o.get("logs")]
        bits += [f"logs: {x}" for x in logs]
    elif t in ("mcp_call", "mcp_approval_request"):
        bits.append(f"{item.get('server_label') or ''}.{item.get('name') or ''} {item.get('arguments') or ''}".strip())
        if item.get("error"):
            bits.append(f"error: {item['error']}")
        elif item.get("output"):
            bits.append(str(item["output"]))
    elif isinstance(action, dict) and action.get("command"):
        cmd = action["command"]
        bits.append(" ".join(cmd) if isinstance(cmd, list) else str(cmd))
    text = " - ".join(b for b in bits if b)
    status = item.get("status")
    return _short(f"{text} ({status})" if text and isinstance(status, str) else text or str(status or t or ""))


def hosted_item_part(item: dict[str, Any]) -> ProviderToolPart:
    """An item of one of OpenAI's own tools
    (:func:`~toolwire_openai.profile.responses_hosted_item_types`: ``web_search_call``,
    ``file_search_call``, ``code_interpreter_call``, ...), or any other output item toolwire has
    no canonical form for (``compaction``, a type newer than the SDK), as a :class:`ProviderToolPart`: ``raw``
    a copy of the item as received; ``name`` its type without ``_call`` / ``_output``;
    ``call_id`` its ``call_id``, else its ``id``; ``kind`` ``"call"`` for the items the
    application answers (:data:`~toolwire_openai.profile.RESPONSES_CLIENT_CALL_ITEMS`), else
    ``"result"`` (a hosted item holds the vendor's call and its outcome together)."""
    t = str(item.get("type"))
    cid = item.get("call_id") if isinstance(item.get("call_id"), str) else item.get("id")
    return ProviderToolPart(
        provider=API,
        vendor_type=t,
        raw=copy.deepcopy(item),
        kind="call" if t in RESPONSES_CLIENT_CALL_ITEMS else "result",
        name=t.removesuffix("_output").removesuffix("_call"),
        call_id=cid if isinstance(cid, str) else None,
        summary=_hosted_summary(item),
    )


#: ``vendor_type`` of a content part of an imported user message that had no type.
_CONTENT_PART = "input_content"


def _is_content_part(part: ProviderToolPart) -> bool:
    """Whether ``part`` is a content part of a user message (``input_file``, ... : the
    ``input_*`` types of ``openai.types.responses.ResponseInputContentParam``), not an input item
    of its own (item types never start with ``input_``)."""
    return part.vendor_type.startswith("input_")


def _is_client_call(item: dict[str, Any]) -> bool:
    """Whether the output item is one the application answers (see :func:`client_call_from_item`)."""
    t = item.get("type")
    if t == "mcp_approval_request":
        return True
    if t not in RESPONSES_CLIENT_CALLS:
        return False
    env = item.get("environment")
    # a shell_call run by OpenAI in its container is a hosted item (FunctionShellToolParam.environment)
    return not (t == "shell_call" and isinstance(env, dict) and env.get("type") == "container_reference")


#: What an approval request of an MCP server no tool of the run answers says to do.
_MCP_UNKNOWN = (
    "To answer approval requests from the MCP server {label!r}, add "
    "toolwire_openai.mcp_server({label!r}, server_url=...) to the run's tools."
)


def client_call_from_item(item: dict[str, Any]) -> ToolCall | None:
    """An output item the application answers as a :class:`ToolCall` the loop runs, else
    ``None``: ``local_shell_call`` / ``shell_call`` / ``apply_patch_call`` / ``computer_call``
    (:data:`~toolwire_openai.profile.RESPONSES_CLIENT_CALLS`: name ``local_shell`` / ``shell`` /
    ``apply_patch`` / ``computer``, arguments ``{"action": ...}``, ``{"operation": ...}`` or, for a
    batched computer call, ``{"actions": [...]}``) and ``mcp_approval_request`` (name
    ``mcp:<server_label>``, arguments ``{"server_label", "name", "arguments"}`` with the MCP
    tool's arguments parsed). A ``shell_call`` run in an OpenAI container
    (``environment.type == "container_reference"``) is not the application's: ``None``.
    ``ToolCall.id`` is the item's ``call_id`` (``id`` for an approval request);
    ``provider_data["openai"]["client_item"]`` keeps the item as received, which is what goes
    back on the wire."""
    if not _is_client_call(item):
        return None
    t = item.get("type")
    pd: dict[str, dict[str, Any]] = {API: {"client_item": copy.deepcopy(item)}}
    if t == "mcp_approval_request":
        label = item.get("server_label") if isinstance(item.get("server_label"), str) else ""
        raw = item.get("arguments")
        args, invalid = parse_arguments(raw) if raw is None or isinstance(raw, str) else (None, "arguments not text")
        the_id = str(item.get("id") or "")
        arguments = {"server_label": label, "name": item.get("name"), "arguments": args if invalid is None else raw}
        # the next step when no tool of the run answers this server (the loop's unknown-tool error)
        pd["toolwire"] = {"unknown_tool": _MCP_UNKNOWN.format(label=label)}
        return ToolCall(id=the_id, name=f"mcp:{label}", arguments=arguments, provider_data=pd)
    name, field = RESPONSES_CLIENT_CALLS[str(t)]
    if t == "computer_call" and item.get("action") is None and isinstance(item.get("actions"), list):
        field = "actions"
    value = item.get(field)
    cid = item.get("call_id") if isinstance(item.get("call_id"), str) and item.get("call_id") else item.get("id")
    ok = isinstance(value, list) if field == "actions" else isinstance(value, dict)
    return ToolCall(
        id=cid if isinstance(cid, str) else "",
        name=name,
        arguments={field: copy.deepcopy(value)} if ok else None,
        invalid=None if ok else f"the {t} item has no {field} object in its arguments",
        provider_data=pd,
    )


#: The ready function that builds each client-side Responses tool with its function.
CLIENT_TOOL_FACTORIES = {
    "shell": "toolwire_openai.confined_shell(root)",
    "local_shell": "toolwire_openai.confined_local_shell(root)",
    "apply_patch": "toolwire_openai.confined_apply_patch(root)",
    "computer": "toolwire_openai.computer(function)",
    "computer_use_preview": "toolwire_openai.computer(function, type='computer_use_preview', ...)",
}


def _require_answerer(tool: ProviderTool) -> None:
    """Refuse, before the request, a client-side tool without a function (its calls could not be
    answered) and an MCP server whose tool calls need approval (``require_approval`` other than
    ``"never"``; the API's default asks for approval: https://platform.openai.com/docs/guides/tools-remote-mcp)
    without the function that answers the approval requests."""
    if tool.type == "mcp":
        if tool.function is None and not tool.meta.get("deferred") and tool.settings.get("require_approval") != "never":
            from toolwire.errors import ConfigurationError

            raise ConfigurationError(
                f"the MCP server {tool.settings.get('server_label')!r} asks for approval before its tools run "
                "(require_approval is not 'never'), and nothing here answers those requests. Use "
                "toolwire_openai.mcp_server(server_label, server_url=...) (approvals through toolwire's approval=, "
                "or its approve= function), or set require_approval='never'."
            )
        return
    env = tool.settings.get("environment")
    if tool.type == "shell" and isinstance(env, dict) and str(env.get("type", "")).startswith("container"):
        return  # a shell in OpenAI's container: run by OpenAI (FunctionShellToolParam.environment)
    tool.require_function(CLIENT_TOOL_FACTORIES.get(tool.type, "ProviderTool(..., function=...)"))


def _client_item(call: ToolCall) -> dict[str, Any] | None:
    item = (call.provider_data.get(API) or {}).get("client_item")
    return item if isinstance(item, dict) else None


#: The output item types that carry the ``caller`` of the call they answer
#: (``openai.types.responses.ResponseInputItemParam``: ``FunctionCallOutput``, ``ShellCallOutput``,
#: ``ApplyPatchCallOutput``; ``ResponseCustomToolCallOutputParam``).
_CALLER_OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "shell_call_output", "apply_patch_call_output"}
)


def _call_caller(call: ToolCall) -> dict[str, Any] | None:
    """The ``caller`` object of the output item a call came in (``{"type": "program",
    "caller_id": ...}`` for a call made by a programmatic-tool-calling program, ``{"type":
    "direct"}``), else ``None``."""
    pd = call.provider_data.get(API)
    if not pd:
        return None
    item = pd.get("client_item") or pd.get("item")
    caller = item.get("caller") if type(item) is dict else None
    return caller if type(caller) is dict else None


def _with_caller(items: list[dict[str, Any]], call_id: str, callers: dict[str, dict[str, Any]] | None) -> None:
    """Give each output item of ``items`` answering ``call_id`` the ``caller`` of its call
    (``callers``: call id → caller), unless it has one: a program made the call and waits for the
    output (the OpenAI Agents SDK answers the same way, copying the call's ``caller``)."""
    caller = callers.get(call_id) if callers else None
    if caller is None:
        return
    for item in items:
        if item.get("type") in _CALLER_OUTPUTS and "caller" not in item:
            item["caller"] = copy.deepcopy(caller)


#: A 1x1 transparent PNG: the screenshot of a ``computer_call_output`` when no screenshot exists
#: (the API requires one, ``ResponseComputerToolCallOutputScreenshotParam``); the text after it
#: says why.
_BLANK_PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def _result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "\n".join(p.text for p in result.content if isinstance(p, TextPart))


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _shell_outputs(value: Any) -> list[dict[str, Any]] | None:
    """``value`` when it is a list of ``ResponseFunctionShellCallOutputContentParam`` objects
    (``stdout``, ``stderr`` strings, ``outcome`` ``{"type": "exit", "exit_code": int}`` or
    ``{"type": "timeout"}``), else ``None``."""
    if not isinstance(value, list):
        return None
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("stdout"), str):
            return None
        if not isinstance(entry.get("stderr"), str) or not isinstance(entry.get("outcome"), dict):
            return None
        outcome = entry["outcome"]
        if outcome.get("type") == "exit":
            if not isinstance(outcome.get("exit_code"), int) or isinstance(outcome.get("exit_code"), bool):
                return None
        elif outcome.get("type") != "timeout":
            return None
    return value


def client_output_items(item: dict[str, Any], result: ToolResult, shots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The input items that answer the client call ``item`` with ``result`` (output item types
    of ``openai.types.responses.ResponseInputItemParam``):

    - ``shell_call`` → ``shell_call_output`` (``ShellCallOutput``): ``output`` is the list of
      per-command ``{stdout, stderr, outcome}`` objects when the result text is the JSON object
      ``{"output": [...], "max_output_length": n}`` (what :func:`toolwire_openai.confined_shell`
      returns), else one entry: the text as ``stdout`` with exit code 0, or, for an error
      result, as ``stderr`` with exit code 1; ``max_output_length`` as returned, else the
      action's;
    - ``local_shell_call`` → ``local_shell_call_output`` (``LocalShellCallOutput``: ``id`` the
      call's ``call_id``, ``output`` "a JSON string of the output"): the result text when it is a
      JSON object, else ``{"output": text, "metadata": {"exit_code": 0 or 1}}``;
    - ``apply_patch_call`` → ``apply_patch_call_output`` (``ApplyPatchCallOutput``): ``status``
      ``"failed"`` for an error result, else ``"completed"``, the text as ``output``;
    - ``computer_call`` → ``computer_call_output`` (``ComputerCallOutput``): the result's last
      image as the ``computer_screenshot`` (an image of an earlier answer in the request when the
      result has none, e.g. a denied call; a blank image when there is none at all), and
      ``acknowledged_safety_checks`` = the call's ``pending_safety_checks`` only when the result
      is not an error (the function ran, so the checks were accepted); text of the result goes in
      a user message after it;
    - ``mcp_approval_request`` → ``mcp_approval_response`` (``McpApprovalResponse``):
      ``approve`` true unless the result is an error (denied), whose text is the ``reason``.

    ``shots``: the screenshots sent so far in this request (appended to)."""
    t = item.get("type")
    cid = item.get("call_id") if isinstance(item.get("call_id"), str) else item.get("id")
    text = _result_text(result)
    err = result.is_error
    if t == "shell_call":
        data = _json_object(text)
        outputs = _shell_outputs(data.get("output")) if data is not None else None
        if outputs is None:
            entry = {"stdout": "", "stderr": text, "outcome": {"type": "exit", "exit_code": 1}}
            if not err:
                entry = {"stdout": text, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
            outputs = [entry]
        out: dict[str, Any] = {"type": "shell_call_output", "call_id": cid, "output": copy.deepcopy(outputs)}
        action: dict[str, Any] = item["action"] if isinstance(item.get("action"), dict) else {}
        mol = data.get("max_output_length") if data is not None else None
        mol = mol if isinstance(mol, int) else action.get("max_output_length")
        if isinstance(mol, int) and not isinstance(mol, bool):
            out["max_output_length"] = mol
        return [out]
    if t == "local_shell_call":
        data = _json_object(text)
        output = text if data is not None else json.dumps({"output": text, "metadata": {"exit_code": 1 if err else 0}})
        return [{"type": "local_shell_call_output", "id": cid, "output": output}]
    if t == "apply_patch_call":
        return [
            {
                "type": "apply_patch_call_output",
                "call_id": cid,
                "status": "failed" if err else "completed",
                "output": text,
            }
        ]
    if t == "mcp_approval_request":
        resp: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": item.get("id"),
            "approve": not err,
        }
        if err and text:
            resp["reason"] = text
        return [resp]
    # computer_call
    images = [p for p in result.content if isinstance(p, ImagePart)] if not isinstance(result.content, str) else []
    if images:
        image = images[-1]
        url = image.url if image.url is not None else f"data:{image.wire_media_type};base64,{image.base64}"
        shot: dict[str, Any] = {"type": "computer_screenshot", "image_url": url}
        shots.append(shot)
    elif shots:
        shot = shots[-1]
    else:
        shot = {"type": "computer_screenshot", "image_url": _BLANK_PNG}
        text = (text + "\n" if text else "") + "(No screenshot is available: the image is blank.)"
    answer: dict[str, Any] = {"type": "computer_call_output", "call_id": cid, "output": copy.deepcopy(shot)}
    checks = item.get("pending_safety_checks")
    if not err and isinstance(checks, list) and checks:
        answer["acknowledged_safety_checks"] = copy.deepcopy(checks)
    out_items = [answer]
    if text.strip():
        said = f"The computer action failed: {text}" if err else text
        out_items.append({"role": "user", "content": [{"type": "input_text", "text": said}]})
    return out_items


def _text_parts(item: dict[str, Any], at: str = "") -> list[TextPart]:
    meta = {k: copied(v) for k, v in item.items() if k not in ("type", "id", "content")}
    parts = []
    for i, c in enumerate(_SHAPE.opt_list(item.get("content"), f"{at}/content")):
        c = _SHAPE.obj(c, f"{at}/content/{i}")
        key = "refusal" if c.get("type") == "refusal" else "text"
        text = _SHAPE.opt_str(c.get(key), f"{at}/content/{i}/{key}")
        part_meta = {k: copied(v) for k, v in c.items() if k not in ("text", "refusal")}
        pd = {"item_id": item.get("id"), "item": meta, "part": part_meta}
        parts.append(TextPart(text or "", provider_data={API: pd}))
    return parts


def _client_output(item: dict[str, Any]) -> bool:
    """Whether input item ``item`` is an output the client sent (a ``*_output`` item: the answer
    to a call, in the user's turn), not one the server produced in the model's turn: a
    ``tool_search_output`` with ``execution: "server"`` (openai SDK type
    ``ResponseToolSearchOutputItemParamParam``) is the server's own search result, returned
    beside its ``tool_search_call`` in the response's output."""
    return str(item.get("type")).endswith("_output") and item.get("execution") != "server"


def _from_caller(item: dict[str, Any]) -> bool:
    """Whether input item ``item`` comes from the caller's side of the conversation by its
    ``role`` (``developer``, ``system``, ``user``), not from the model: an ``additional_tools``
    item (openai SDK type ``ResponseInputItemParam.AdditionalTools``: ``role: "developer"``, the
    tools made available from that point on) sits in the caller's turn."""
    return item.get("role") in ("developer", "system", "user")


class _Joined:
    """What one request's encoding knows of the calls split from ``multi_tool_use.parallel``
    calls (:func:`parallel_record`): ``parallel`` (split call id → record), ``groups`` (original
    ``call_id`` → the split calls' ids), ``results`` (split call id → its first result), and the
    original ``call_id``s whose item (``sent``) and output (``answered``) are on the wire."""

    __slots__ = ("parallel", "groups", "results", "sent", "answered")

    def __init__(self, parallel: dict[str, dict[str, Any]], groups: dict[str, list[str]]) -> None:
        self.parallel = parallel
        self.groups = groups
        self.results: dict[str, ToolResult] = {}
        self.sent: set[str] = set()
        self.answered: set[str] = set()


class OpenAIResponsesCodec:
    """Responses wire format ⇄ canonical types (``api = "openai"``).

    ``OpenAIResponsesCodec(cache=False, origin=None)``: ``True`` or a key string sends
    ``prompt_cache_key`` (see :func:`~toolwire_openai._common.prompt_cache_key`). ``origin``: the
    endpoint the requests go to (the model's base URL); reasoning decoded here records it, and
    encrypted reasoning from another endpoint is not sent back (see :meth:`encode_request`)."""

    api = API
    #: :meth:`left_out_parts` reports nothing for a plain history (text, tool calls answered in the
    #: next message, text results: :func:`toolwire.turns.plain_history`), so the preflight skips it
    #: for one
    plain_history_sent_whole = True

    def __init__(self, *, cache: bool | str = False, origin: str | None = None) -> None:
        self.cache = cache
        self.origin = origin

    # ------------------------------------------------------------------------------- incremental encoding
    @staticmethod
    def concatenates_history(request: ModelRequest) -> bool:
        """Whether ``input`` is the encoding of a closed prefix of the conversation followed by
        that of the rest (see ``toolwire.adapter``): yes, unless ``previous_response_id`` or
        ``conversation`` is set (then only the items after that response are sent)."""
        settings = request.settings or {}
        return not (settings.get("previous_response_id") or settings.get("conversation"))

    @staticmethod
    def history_lead(request: ModelRequest) -> int:
        """Entries ``input`` holds whatever the conversation: the instructions as a message when
        ``instructions_role`` is set."""
        return 1 if request.instructions is not None and (request.settings or {}).get("instructions_role") else 0

    # ------------------------------------------------------------------------------- tools
    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """``{"type": "function", "name", "description", "parameters", "strict"}`` and the report.

        The SDK's ``FunctionToolParam`` requires the keys ``parameters`` and ``strict``, so both
        are always sent: ``Tool.strict`` True → the strict transform (or ``strict: false`` with the
        original schema when it cannot be strict — the report says why); False or None →
        ``strict: false`` (the API documents ``true`` as its default, which would reject or
        reinterpret a schema that was not made strict). An imported declaration that left a key
        out, or sent ``description: null``, is reproduced from ``Tool.provider_data``.
        """
        if isinstance(tool, ProviderTool):
            tool.check_for(API)  # one of OpenAI's hosted tools: {"type", settings...}
            return {"type": tool.type} | copy.deepcopy(tool.settings), TranslationReport(API, tool.name)
        parameters, strict, report = strict_parameters(tool, API)
        name = _wire_name(tool.name, report)
        decl: dict[str, Any] = {
            "type": "function",
            "name": name,
            "description": tool.model_description(),
            "parameters": parameters,
            "strict": bool(strict),
        }
        return apply_overrides(decl, tool.provider_data.get(API)), report

    def _tool_from_wire(self, decl: dict[str, Any], at: str = "") -> Tool:
        check_function_decl(_SHAPE, decl, at)
        strict = decl.get("strict") if isinstance(decl.get("strict"), bool) else None
        schema = schema if isinstance(schema := decl.get("parameters"), dict) else {"type": "object", "properties": {}}
        tool = tool_at(
            lambda: Tool(
                decl.get("name", ""),
                decl.get("description") or "",
                copy.deepcopy(schema),
                None,
                strict=strict,
                imported_from=API,
            ),
            f"{at}/name",
        )
        canonical, _ = self.translate_tool(tool)
        over = overrides_for(decl, canonical, set())
        if over:
            tool.provider_data[API] = over
        return tool

    # ------------------------------------------------------------------------------- encode
    def _tool_choice(self, choice: Any) -> Any:
        if choice is None:
            return None
        if isinstance(choice, str) and choice in ("auto", "required", "none"):
            return choice
        if isinstance(choice, dict) and choice.get("type") == "tool" and isinstance(choice.get("name"), str):
            return {"type": "function", "name": choice["name"]}
        raise UnsupportedToolChoice(f"tool choice {choice!r} has no Responses form")

    @staticmethod
    def _image(part: ImagePart) -> dict[str, Any]:
        # the declared type: a type its bytes contradict is corrected and reported by the preflight
        # (rule openai.conversation.image-media-type-data)
        url = part.url if part.url is not None else f"data:{part.declared_wire_media_type};base64,{part.base64}"
        out = {"type": "input_image", "image_url": url, "detail": "auto"}
        out.update(copied((part.provider_data.get(API) or {}).get("part") or {}))
        return out

    @staticmethod
    def _document(part: DocumentPart) -> dict[str, Any]:
        """An ``input_file`` part (``ResponseInputFileParam`` / ``ResponseInputFileContentParam``):
        ``file_data`` a base64 ``data:`` URL, ``filename`` the part's name (made up from the type
        when it has none, also for a part imported without one: OpenAI answers ``file_data``
        without ``filename`` with 400 "Missing required parameter", laravel/ai#324,
        openai/openai-agents-js#88)."""
        pd = part.provider_data.get(API) or {}
        out: dict[str, Any] = {"type": "input_file", "filename": part.name, "file_data": part.data_url}
        out.update(copied(pd.get("part") or {}))
        return out

    def _user_items(
        self,
        msg: Message,
        answered: set[str] | None = None,
        custom: set[str] | None = None,
        client: dict[str, dict[str, Any]] | None = None,
        shots: list[dict[str, Any]] | None = None,
        callers: dict[str, dict[str, Any]] | None = None,
        joined: _Joined | None = None,
    ) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        content: list[dict[str, Any]] = []
        for part in msg.parts:
            if isinstance(part, ToolResult):
                if joined is not None and (par := joined.parallel.get(part.tool_call_id)) is not None:
                    # a result of a call split from a multi_tool_use.parallel call: the results of
                    # all its calls go in one function_call_output for the original call_id
                    origin_id = par["call"]["call_id"]
                    if origin_id not in joined.answered:
                        joined.answered.add(origin_id)
                        item = {
                            "type": "function_call_output",
                            "call_id": origin_id,
                            "output": self._joined_output(joined, origin_id),
                        }
                        if callers and origin_id in callers:
                            item["caller"] = copy.deepcopy(callers[origin_id])
                        items.append(item)
                    continue
                if answered is not None:
                    if part.tool_call_id in answered:
                        continue  # a second result for one call_id (a duplicate-id call): not sent
                    answered.add(part.tool_call_id)
                # rules conversation.tool-result-image-type and conversation.image-url: a note in place of an
                # image OpenAI cannot read or fetch
                part = readable_tool_result(part, IMAGE_MEDIA_TYPES, fetches_image_url)
                if client and part.tool_call_id in client:  # a shell / apply_patch / computer / MCP approval answer
                    answers = client_output_items(client[part.tool_call_id], part, shots if shots is not None else [])
                    if callers:
                        _with_caller(answers, part.tool_call_id, callers)
                    items.extend(answers)
                    continue
                pd = part.provider_data.get(API) or {}
                texts = result_text_parts(part)
                images = (
                    [p for p in part.content if isinstance(p, ImagePart)] if not isinstance(part.content, str) else []
                )
                documents = (
                    [p for p in part.content if isinstance(p, DocumentPart)]
                    if not isinstance(part.content, str)
                    else []
                )
                if isinstance(part.content, str) and not images:
                    output: Any = "\n".join(texts)
                else:
                    # the result's parts in their order (FunctionCallOutput.output takes input_text,
                    # input_image and input_file parts): a document a tool returned is an input_file
                    keep_empty = not (images or documents)
                    output = []
                    at = 0  # the next of ``texts`` (the result's text parts, the first with an error's prefix)
                    if isinstance(part.content, str) or not any(isinstance(p, TextPart) for p in part.content):
                        output.extend({"type": "input_text", "text": t} for t in texts if t or keep_empty)
                        at = len(texts)
                    for p in part.content if not isinstance(part.content, str) else ():
                        if isinstance(p, TextPart):
                            t = texts[at]
                            at += 1
                            if t or keep_empty:
                                output.append({"type": "input_text", "text": t})
                        elif isinstance(p, ImagePart):
                            output.append(self._image(p))
                        elif isinstance(p, DocumentPart):
                            output.append(self._document(p))
                kind = "custom_tool_call_output" if custom and part.tool_call_id in custom else "function_call_output"
                item = {"type": kind, "call_id": part.tool_call_id, "output": output}
                if callers and part.tool_call_id in callers:
                    item["caller"] = copy.deepcopy(callers[part.tool_call_id])
                items.append(apply_overrides(item, pd.get("item")))
            elif isinstance(part, TextPart):
                content.append({"type": "input_text", "text": part.text})
            elif isinstance(part, ImagePart):
                content.append(self._image(part))
            elif isinstance(part, DocumentPart):
                content.append(self._document(part))
            elif isinstance(part, ProviderToolPart):
                if part.provider == API and part.kind != "metadata":
                    if _is_content_part(part):
                        content.append(copy.deepcopy(part.raw))  # e.g. an input_file of an imported message
                    else:
                        items.append(copy.deepcopy(part.raw))  # e.g. a computer_call_output, as received
        if content:
            pd = msg.provider_data.get(API) or {}
            role = pd.get("role", "user")
            marked = marked_system_role(msg, API) if msg.provider_data and "role" not in pd else None
            if marked is not None:
                # another API's system / developer message inside the conversation, sent as
                # Responses' own: an input message takes either role, with any input content
                # (openai.types.responses.EasyInputMessageParam: role Literal["user",
                # "assistant", "system", "developer"], content str |
                # ResponseInputMessageContentListParam)
                role = marked[1]
            if len(content) == 1 and content[0]["type"] == "input_text" and not pd.get("content_list"):
                item = {"role": role, "content": content[0]["text"]}
            else:
                item = {"role": role, "content": content}
            items.append(apply_overrides(item, pd.get("message")))
        return items

    def _joined_output(self, joined: _Joined, origin_id: str) -> str | list[dict[str, Any]]:
        """The ``output`` of the one ``function_call_output`` answering the
        ``multi_tool_use.parallel`` call ``origin_id``: its calls' results in the order of its
        ``tool_uses``. Text results: a JSON array with one ``{"recipient_name": <as the model
        wrote it>, "is_error": bool, "output": <the result's text>}`` per use (a call with no
        result: ``is_error`` true, output ``"no result"``). When a result holds images or
        documents: ``input_text`` / ``input_image`` / ``input_file`` parts
        (``FunctionCallOutput.output``), each use headed by an ``input_text`` that names it
        (``tool_uses[<i>] <recipient_name>``, with ``(error)`` for an error result)."""
        entries: list[tuple[dict[str, Any], ToolResult | None]] = []
        for call_id in joined.groups.get(origin_id, ()):
            result = joined.results.get(call_id)
            if result is not None:
                # rules conversation.tool-result-image-type and conversation.image-url, as for any result
                result = readable_tool_result(result, IMAGE_MEDIA_TYPES, fetches_image_url)
            entries.append((joined.parallel[call_id], result))
        rich = any(
            r is not None
            and not isinstance(r.content, str)
            and any(isinstance(p, (ImagePart, DocumentPart)) for p in r.content)
            for _, r in entries
        )
        if not rich:
            return json.dumps(
                [
                    {
                        "recipient_name": par.get("recipient_name"),
                        "is_error": True if r is None else bool(r.is_error),
                        "output": "no result" if r is None else _result_text(r),
                    }
                    for par, r in entries
                ],
                ensure_ascii=False,
            )
        output: list[dict[str, Any]] = []
        for i, (par, r) in enumerate(entries):
            error = r is None or r.is_error
            head = f"tool_uses[{i}] {par.get('recipient_name')}{' (error)' if error else ''}:"
            if r is None:
                output.append({"type": "input_text", "text": f"{head} no result"})
                continue
            texts = (
                [r.content] if isinstance(r.content, str) else [p.text for p in r.content if isinstance(p, TextPart)]
            )
            output.append({"type": "input_text", "text": "\n".join([head, *texts])})
            for p in r.content if not isinstance(r.content, str) else ():
                if isinstance(p, ImagePart):
                    output.append(self._image(p))
                elif isinstance(p, DocumentPart):
                    output.append(self._document(p))
        return output

    def _assistant_items(
        self, msg: Message, sent: set[str] | None = None, reasoning: bool = True, joined: _Joined | None = None
    ) -> list[dict[str, Any]]:
        keep = {id(c) for c in unique_wire_calls(msg.tool_calls, sent)} if sent is not None else None
        items: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None  # the output message item being filled
        current_id: Any = None  # its item id
        foreign = False  # a reasoning item of this turn was another endpoint's: no item ids after it
        other: bool | None = None  # the turn came from another endpoint (found when first needed)
        # item ids this answer's items were sent with: an answer repeating one (a vendor glitch)
        # would make every later request refused ("Duplicate item found with id rs_...")
        ids: set[str] = set()
        for part in msg.parts:
            if isinstance(part, TextPart):
                pd = part.provider_data.get(API) or {}
                if "item" in pd:  # text of an output message item: regroup by item id
                    if current is None or current_id != pd.get("item_id"):
                        current = {"type": "message"}
                        current_id = pd.get("item_id")
                        if (
                            current_id is not None
                            and not foreign
                            and not (isinstance(current_id, str) and current_id in ids)
                        ):
                            current["id"] = current_id  # (an id repeated in the answer is left out)
                            if isinstance(current_id, str):
                                ids.add(current_id)
                        current.update(copied(pd["item"]))
                        current["content"] = []
                        items.append(current)
                    part_meta = copied(pd.get("part") or {"type": "output_text", "annotations": []})
                    key = "refusal" if part_meta.get("type") == "refusal" else "text"
                    current["content"].append({**part_meta, key: part.text})
                else:  # text from elsewhere (the loop, another vendor): an easy assistant message
                    current = None
                    items.append(apply_overrides({"role": "assistant", "content": part.text}, pd.get("easy")))
                continue
            current = None
            if isinstance(part, ImagePart):  # images only in user messages: said in text instead
                items.append({"role": "assistant", "content": ASSISTANT_IMAGE_NOTE})
                continue
            if isinstance(part, ReasoningPart):
                if part.provider != API:
                    continue  # another vendor's reasoning cannot be sent to Responses: dropped
                pd = part.provider_data.get(API) or {}
                origin = pd.get("origin")
                if not reasoning or (origin is not None and self.origin is not None and origin != self.origin):
                    # a model known not to reason refuses reasoning items ("Reasoning input items
                    # can only be provided to a reasoning or computer use model",
                    # openai/openai-agents-python#569); or
                    # issued by another endpoint (api.openai.com vs an Azure deployment, ...), whose
                    # encrypted_content this one cannot decrypt: 400 invalid_encrypted_content
                    # "Encrypted content could not be decrypted or parsed" (openai/codex#17541); the
                    # item is not sent, nor the ids of the items after it in its turn, which would
                    # need it ("provided without its required 'reasoning' item")
                    foreign = True
                    current = None
                    continue
                if pd.get("item_id") is None and not part.encrypted:
                    continue  # nothing the API could resolve (reported by left_out_parts)
                if isinstance(pd.get("item_id"), str) and pd["item_id"] in ids:
                    continue  # a later copy of a reasoning item this answer holds already (its id is required)
                item: dict[str, Any] = {"type": "reasoning"}
                if pd.get("item_id") is not None:
                    item["id"] = pd["item_id"]
                    if isinstance(pd["item_id"], str):
                        ids.add(pd["item_id"])
                item.update(copied(pd.get("item") or {}))
                item.setdefault("summary", [])
                # an output field the API refuses on a reasoning input item: "Unknown parameter:
                # 'input[1].status'." (rule openai.conversation.reasoning-input-fields)
                item.pop("status", None)
                if part.encrypted is not None or pd.get("null_encrypted"):
                    item["encrypted_content"] = part.encrypted
                items.append(item)
            elif isinstance(part, ToolCall):
                if keep is not None and id(part) not in keep:
                    continue  # a later call repeating a call_id already sent
                pd = part.provider_data.get(API) or {}
                if isinstance(pd.get("client_item"), dict):  # a shell / computer / ... call: its item as received
                    items.append(copy.deepcopy(pd["client_item"]))
                    continue
                par = joined.parallel.get(part.id) if joined is not None else None
                if joined is not None and par is not None:
                    # a call split from a multi_tool_use.parallel call: the original function_call
                    # item goes back in their place, once (its output joins their results)
                    origin_id = par["call"]["call_id"]
                    if origin_id in joined.sent:
                        continue
                    joined.sent.add(origin_id)
                    item = copied(par["call"])
                    fc_id = par.get("item_id")
                    if fc_id is not None and not foreign and not (isinstance(fc_id, str) and fc_id in ids):
                        item["id"] = fc_id
                        if isinstance(fc_id, str):
                            ids.add(fc_id)
                    items.append(item)
                    continue
                if pd.get("custom"):  # a custom (free-text) tool call goes back as itself
                    item = {
                        "type": "custom_tool_call",
                        "call_id": part.id,
                        "name": part.name,
                        "input": part.raw_arguments or "",
                    }
                else:
                    item = {
                        "type": "function_call",
                        "call_id": part.id,
                        "name": part.name,
                        "arguments": arguments_text(part),
                    }
                fc_id = pd.get("item_id")
                if fc_id is not None and not foreign and not (isinstance(fc_id, str) and fc_id in ids):
                    item["id"] = fc_id  # (an id repeated in the answer is left out: call_id pairs the output)
                    if isinstance(fc_id, str):
                        ids.add(fc_id)
                item.update(copied(pd.get("item") or {}))
                items.append(item)
            elif isinstance(part, ProviderToolPart):
                if part.provider == API and part.kind != "metadata":
                    if other is None:
                        other = self._other_endpoint(msg)
                    if other and isinstance(part.raw, dict) and ("id" in part.raw or "encrypted_content" in part.raw):
                        # the turn came from another endpoint (its reasoning says so): an item it
                        # encrypted (a compaction item) or stored by id cannot be read here, wherever
                        # it stands in the turn ("Encrypted content could not be decrypted or parsed")
                        continue
                    if foreign and isinstance(part.raw, dict) and "id" in part.raw:
                        # a hosted call item (web_search_call ...) after a reasoning item left out:
                        # its id is required (ResponseFunctionWebSearchParam.id) and would need that
                        # reasoning ("'web_search_call' was provided without its required 'reasoning'
                        # item"), so the item is left out; the answer that used it is still sent
                        continue
                    if isinstance(part.raw, dict) and isinstance(part.raw.get("id"), str):
                        if part.raw["id"] in ids:
                            continue  # a later copy of an item this answer holds already
                        ids.add(part.raw["id"])
                    items.append(copy.deepcopy(part.raw))  # as received; another provider's: left out, reported
        return items

    def _other_endpoint(self, msg: Message) -> bool:
        """Whether the assistant message ``msg`` came from an endpoint other than this codec's
        (``origin``): one of its reasoning parts was recorded with another origin."""
        if self.origin is None:
            return False
        for p in msg.parts:
            if type(p) is ReasoningPart and p.provider == API:
                origin = (p.provider_data.get(API) or {}).get("origin")
                if origin is not None and origin != self.origin:
                    return True
        return False

    @staticmethod
    def setting_changes(request: ModelRequest, body: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The changes :meth:`encode_request` made to ``request``'s settings, for the preflight
        report (``body`` as repaired): a ``tool_choice`` of the settings (``extra_body``) replaced
        by the request's own tool choice (rule ``openai.request.tool-choice-setting``, lossy); an
        ``allowed_tools`` choice in mode ``auto`` is kept under tool choice ``"auto"``."""
        given = (request.settings or {}).get("tool_choice")
        sent = body.get("tool_choice")
        return tool_choice_setting_change(request, f"{API}.request.tool-choice-setting", "/tool_choice", given, sent)

    def left_out_parts(
        self, request: ModelRequest, messages: Sequence[Message], offset: int
    ) -> list[tuple[str, str, str, str | None, str | None]]:
        """The parts of ``messages`` (numbered from ``offset``, pointers into the canonical
        conversation) that :meth:`encode_request` leaves out of ``request``'s body although they
        came from this API, as ``(rule, pointer, detail, tool, call_id)`` for the request's
        preflight report (each a lossy change, rule ``openai.conversation.reasoning-left-out``):
        reasoning items, when ``request.model`` is known not to reason or the reasoning was
        issued by another endpoint, and the hosted call items of their turn (whose required id
        needs the reasoning). Nothing with ``previous_response_id`` or ``conversation`` (the server
        holds that history). Also reasoning of this API with neither an item id nor encrypted
        content (rule ``openai.conversation.reasoning-fields``: nothing to send), results answering
        a call already answered and calls repeating an id in one response (each call is answered
        once: :func:`toolwire.turns.duplicate_changes`)."""
        if (request.settings or {}).get("previous_response_id") or (request.settings or {}).get("conversation"):
            return tool_image_changes(messages, offset, API, IMAGE_MEDIA_TYPES, fetches_image_url)
        reasoning = takes_reasoning_items(request.model)
        out: list[tuple[str, str, str, str | None, str | None]] = list(assistant_image_changes(messages, offset, API))
        out += tool_image_changes(messages, offset, API, IMAGE_MEDIA_TYPES, fetches_image_url)
        out += duplicate_changes(messages, offset)
        for i, msg in enumerate(messages, offset):
            if msg.role != "assistant":
                continue
            foreign = False
            other = self._other_endpoint(msg)
            for j, part in enumerate(msg.parts):
                if isinstance(part, ReasoningPart) and part.provider == API:
                    origin = (part.provider_data.get(API) or {}).get("origin")
                    if not reasoning:
                        why = f"{request.model} does not reason and refuses reasoning items"
                    elif origin is not None and self.origin is not None and origin != self.origin:
                        why = f"it was issued by another endpoint ({origin}), whose encrypted reasoning this one cannot read"
                    else:
                        if (part.provider_data.get(API) or {}).get("item_id") is None and not part.encrypted:
                            # what encode_request leaves out: nothing the API could resolve it by
                            out.append(
                                (
                                    "openai.conversation.reasoning-fields",
                                    f"/messages/{i}/parts/{j}",
                                    "a reasoning item without an id or encrypted content was left out: the API "
                                    "takes a reasoning item back by its id (ResponseReasoningItemParam.id)",
                                    None,
                                    None,
                                )
                            )
                        continue
                    foreign = True
                    out.append(
                        (
                            REASONING_LEFT_OUT,
                            f"/messages/{i}/parts/{j}",
                            f"a reasoning item was left out: {why}",
                            None,
                            None,
                        )
                    )
                elif (
                    isinstance(part, ProviderToolPart)
                    and part.provider == API
                    and part.kind != "metadata"
                    and isinstance(part.raw, dict)
                    and (
                        (other and ("id" in part.raw or "encrypted_content" in part.raw))
                        or (foreign and "id" in part.raw)
                    )
                ):
                    out.append(
                        (
                            REASONING_LEFT_OUT,
                            f"/messages/{i}/parts/{j}",
                            f"the {part.vendor_type} item was left out with the reasoning item of its turn, which its id needs",
                            part.name,
                            part.call_id,
                        )
                    )
        return out

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → ``/responses`` body.

        - ``instructions`` → the ``instructions`` field (``settings["instructions_role"]`` =
          ``"developer"``/``"system"`` sends it as a leading input message instead);
        - messages → input items in order: user text/images as a user message (string content
          for one text), tool results as ``function_call_output`` items (error results as
          ``"Error: <text>"``, images as ``input_image`` parts of ``output``); assistant messages
          → their reasoning items (this API's only, with ``encrypted_content`` and the summary
          exactly as received), message items and ``function_call`` items in the order the model
          produced them (stateless continuation); another vendor's reasoning is dropped;
        - ``settings["previous_response_id"]`` (continuation on the server) → only the items after
          the assistant message that response produced (or after the last assistant message) are
          sent; with ``settings["conversation"]`` (a server-side conversation, which keeps every
          item of its responses) only the items after the last assistant message this API
          answered are sent;
        - ``tools`` → :meth:`translate_tool`; ``tool_choice`` → ``"auto"``/``"required"``/
          ``"none"``/``{"type": "function", "name": N}``; ``parallel_tool_calls``;
          ``max_tokens`` → ``max_output_tokens``; ``temperature``; ``thinking`` (``effort``,
          ``summary``) → ``reasoning``; ``stream``;
        - ``settings``: copied as body fields (``store``, ``include``, ``reasoning`` extras,
          ``previous_response_id``, ``metadata``, …) without overriding the fields above;
        - each ``call_id`` is sent once and answered once: a later call repeating one (decoded as
          invalid, see :meth:`decode_response`) is left out together with its output;
        - the calls split from a ``multi_tool_use.parallel`` call (see :meth:`decode_response`) go
          back as that call's ``function_call`` item as it came (item id, ``call_id``, name,
          arguments text), followed by one ``function_call_output`` for its ``call_id`` holding
          their results in the order of its ``tool_uses``: a JSON array of ``{"recipient_name",
          "is_error", "output"}``, or, when a result holds images or documents, content parts
          with each use's results headed by ``tool_uses[<i>] <recipient_name>:``;
        - each item id of one answer is sent once (the API refuses "Duplicate item found with id
          ..."): a later reasoning or hosted-tool item repeating an id of the same answer is left
          out, a later message or function_call item is sent without its id.

        Raises :class:`UnsupportedToolChoice` for a tool choice Responses cannot express.
        """
        request, _ = answer_request(request)  # unanswered calls: answered "not run", as on every API
        settings = request.settings or {}
        messages = list(request.messages)
        # the calls answered by another item type than function_call_output, read from the whole
        # history: with previous_response_id or a conversation the call itself is not sent, but its
        # answer must still be of its type ("No tool output found for custom tool call call_...")
        custom: set[str] = set()
        client: dict[str, dict[str, Any]] = {}
        # answers to a call a program made carry its caller (FunctionCallOutput.caller, ...)
        callers: dict[str, dict[str, Any]] = {}
        # the calls split from a multi_tool_use.parallel call (parallel_record): their call id ->
        # their record, and the original call's call_id -> its calls' ids in their order
        parallel: dict[str, dict[str, Any]] = {}
        groups: dict[str, list[str]] = {}
        for m in messages:  # (one pass over the history's calls; only those with this API's data matter)
            if m.role != "assistant":
                continue
            for c in m.tool_calls:
                pd = c.provider_data.get(API)
                if not pd:
                    continue
                if pd.get("custom"):
                    custom.add(c.id)
                if (item := _client_item(c)) is not None:
                    client[c.id] = item
                if (caller := _call_caller(c)) is not None:
                    callers[c.id] = caller
                if "parallel" in pd and (par := _parallel_of(c)) is not None and c.id not in parallel:
                    parallel[c.id] = par
                    origin = par["call"]
                    groups.setdefault(origin["call_id"], []).append(c.id)
                    if type(caller := origin.get("caller")) is dict:
                        callers[origin["call_id"]] = caller
        prev = settings.get("previous_response_id")
        if prev:
            # the server holds everything up to the response `prev`: send only what came after it
            assistants = [i for i, m in enumerate(messages) if m.role == "assistant"]
            matching = [i for i in assistants if (messages[i].provider_data.get(API) or {}).get("response_id") == prev]
            cut = matching[-1] if matching else (assistants[-1] if assistants else None)
            if cut is not None:
                messages = messages[cut + 1 :]
        elif settings.get("conversation"):
            # a server-side conversation holds every item of its responses and of the input sent
            # with them: what came up to its last response is there already (sending it again is
            # refused: "Duplicate item found with id rs_..."); the responses of another
            # conversation (or none) are not, and their history is sent
            conv = _conversation_id(settings["conversation"])
            served = [
                i
                for i, m in enumerate(messages)
                if m.role == "assistant"
                and conv is not None
                and (m.provider_data.get(API) or {}).get("conversation") == conv
            ]
            if served:
                messages = messages[served[-1] + 1 :]
        items: list[dict[str, Any]] = []
        role = settings.get("instructions_role")
        if request.instructions is not None and role:
            items.append({"role": role, "content": request.instructions})
        sent: set[str] = set()
        answered: set[str] = set()
        shots: list[dict[str, Any]] = []
        reasoning = takes_reasoning_items(request.model)
        joined: _Joined | None = None
        if parallel:
            joined = _Joined(parallel, groups)
            for msg in messages:  # the results of the split calls, joined into one output each
                if msg.role != "assistant":
                    for part in msg.parts:
                        if isinstance(part, ToolResult) and part.tool_call_id in parallel:
                            joined.results.setdefault(part.tool_call_id, part)
        for msg in messages:
            msg_items = (
                self._assistant_items(msg, sent, reasoning, joined)
                if msg.role == "assistant"
                else self._user_items(msg, answered, custom, client, shots, callers, joined)
            )
            for pos, opaque in (msg.provider_data.get(API) or {}).get("opaque") or []:
                msg_items.insert(pos, copy.deepcopy(opaque))
            items.extend(msg_items)
        body: dict[str, Any] = {"model": request.model, "input": items}
        if request.instructions is not None and not role:
            body["instructions"] = request.instructions
        tools = []
        memo = DeclarationMemo.of(self)
        same = memo.unchanged_list(request.tools)
        for i, t in enumerate(request.tools):
            # another vendor's tool: ProviderToolUnsupported first (translate_tool raises it)
            decl = same[i] if same is not None else memo.declaration(t, self.translate_tool)
            if isinstance(t, ProviderTool):
                _require_answerer(t)
            if not isinstance(t, ProviderTool):  # a hosted tool has no name
                decl["name"] = t.name  # the whole set is renamed below, collision-safely, history included
            tools.append(decl)
        if same is None:
            memo.remember_list(request.tools)
        for pos, decl in settings.get("other_tools") or []:
            # a hosted tool kept from an imported request: one with a field of the wrong type
            # (openai.types.responses.FileSearchToolParam.vector_store_ids: a list, ...) is refused here
            check_imported_provider_tool(API, decl, f"/tools/{pos}")
            tools.insert(pos, copy.deepcopy(decl))
        if tools:
            body["tools"] = tools
        choice = self._tool_choice(request.tool_choice)
        given = settings.get("tool_choice")
        if choice == "auto" and (
            given == "auto"
            or (isinstance(given, dict) and given.get("type") == "allowed_tools" and given.get("mode") == "auto")
        ):
            # the setting's own automatic choice (allowed_tools in mode auto) is what "auto" asks
            # for: kept (rule openai.request.tool-choice-setting)
            choice = copied(given)
        if choice is not None:
            body["tool_choice"] = choice
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_tokens is not None:
            body["max_output_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if thinking := given_thinking(request.thinking):  # {"effort": None}: no setting
            reasoning = copied(settings.get("reasoning") or {})
            reasoning.update({k: v for k, v in thinking.items() if k in ("effort", "summary")})
            body["reasoning"] = reasoning
        body["stream"] = bool(request.stream)
        for key, value in settings.items():
            if key in CODEC_KEYS or key in body:
                continue
            body[key] = copied(value)
        naming_profile(API).repair_names(body)  # tools named as OpenAI refuses: renamed everywhere
        if "prompt_cache_key" not in body:
            key = prompt_cache_key(self.cache, body)
            if key is not None:
                body["prompt_cache_key"] = key
        return body

    # ------------------------------------------------------------------------------- decode
    @_SHAPE.guarded("the Responses response body")
    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """Response JSON → :class:`Response`: ``output`` items in order (reasoning →
        :class:`ReasoningPart`, message content → :class:`TextPart` per ``output_text``/``refusal``
        part, ``function_call`` → :class:`ToolCall` with ``id = call_id``; the items of OpenAI's
        own tools, ``web_search_call``, ``file_search_call``, ``code_interpreter_call``, ... →
        :class:`~toolwire.types.ProviderToolPart` (:func:`hosted_item_part`), sent back unchanged,
        and so are ``compaction`` items and items of a type this SDK does not know).
        Arguments ``""``/``"null"``/``"{}"`` → ``{}``;
        unparseable text → an invalid call; with ``incomplete:max_output_tokens`` (or an item
        ``status: incomplete``) such a call is also ``incomplete``. Stop reason per
        :func:`stop_reason_of`; usage per :func:`responses_usage` (a counter that is not a
        non-negative integer is left ``None``). A ``failed`` response with an ``error`` object
        raises :class:`ProviderError`.

        ``function_call`` items (see :func:`_call_from_item`): ``arguments`` sent as an object is
        accepted as the arguments; a missing/non-string ``name`` → invalid call
        (:data:`~toolwire_openai._common.NAME_INVALID`); a later call repeating an earlier
        ``call_id`` → ``invalid="duplicate tool call id <id> in one response"`` (never run, the
        encoder sends the id once); no ``call_id`` and no item ``id`` → ``call_tw<hash>_<n>``.
        A call of the ``multi_tool_use.parallel`` pseudo-tool some models make in place of
        parallel calls is split into the calls its ``tool_uses`` name, ids ``<call_id>_p<k>``
        (:func:`~toolwire_openai._common.split_parallel_calls`; :meth:`encode_request` answers the
        original call with their results joined); one whose arguments cannot be split stays a call
        to an unknown tool whose ``is_error`` text names the field to fix.

        Raises :class:`~toolwire.errors.ResponseDecodeError` (``api="openai"``, JSON
        pointer of the field) for a body that is not an object, ``output`` that is not an array of
        objects, or ``status``/text/summary/``id``/``model`` fields of the wrong JSON type, or a
        body without ``output`` (a required field: ``{}`` is not an empty answer). An object with
        an ``error`` and neither ``output`` nor ``object`` (an error sent with status 200, as
        OpenRouter does) raises :class:`ProviderError` with the vendor's message."""
        body = _SHAPE.obj(body, "")
        err = error_in_body(API, body, ("output", "object", "status"), TRANSIENT_ERROR_CODES)
        if err is not None:
            raise err
        if body.get("output") is None and body.get("status") != "failed":
            # Response.output is a required list (openai SDK type): missing or null is not a response.
            raise _SHAPE.error("/output", "the body has no output array: it is not a response object")
        if body.get("status") == "failed" and isinstance(body.get("error"), dict):
            raise _failed(body)
        stop, vendor = stop_reason_of(body)
        cut_off = stop == "max_tokens"
        rid = _SHAPE.opt_str(body.get("id"), "/id")
        model = _SHAPE.opt_str(body.get("model"), "/model")
        parts: list[Any] = []
        calls: list[ToolCall] = []
        for i, item in enumerate(_SHAPE.opt_list(body.get("output"), "/output")):
            at = f"/output/{i}"
            if type(item) is not dict:
                item = _SHAPE.obj(item, at)
            kind = item.get("type")
            if kind == "reasoning":
                parts.append(_reasoning_part(item, at, self.origin))
            elif kind == "message":
                parts.extend(_text_parts(item, at))
            elif kind == "function_call" or kind == "custom_tool_call":
                position = len(calls)
                call = _call_from_item(item, cut_off, lambda: synth_call_id(rid or body, request, position))
                if kind == "custom_tool_call":
                    _as_custom_call(call, item)
                parts.append(call)
                calls.append(call)
            elif (client_call := client_call_from_item(item)) is not None:
                parts.append(client_call)
                calls.append(client_call)
            elif isinstance(kind, str) and kind:
                # a hosted tool's item, a compaction item, or a type this SDK does not know yet: kept
                # as it came, so it goes back in the next request (every output item is input); an
                # item without a type (or an empty one) is not kept, as the API refuses it as input
                # (ResponseInputItemParam is discriminated by a literal ``type``)
                parts.append(hosted_item_part(item))
        # positional, in Response's field order (parts, stop_reason, vendor_stop_reason, usage,
        # model, response_id, provider, provider_data): half the cost of keywords
        response = Response(
            parts,
            cast(StopReason, stop),
            vendor,
            responses_usage(body.get("usage")),
            model,
            rid,
            API,
            _response_data(rid, body.get("conversation")),
        )
        if "service_tier" in body:
            record_price_context(response, body, API)
        if extras := response_extras(body):
            own = response.provider_data.get(API)
            response.provider_data[API] = {**own, **extras} if isinstance(own, dict) else extras
        if calls:  # without calls these passes have nothing to do
            mark_declared_parallel(calls, request)
            calls = split_parallel_calls(response, calls, parallel_record) or calls
            real_call_names(response, request, calls)
            check_tool_calls(response, calls)
        return response

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """Responses SSE ``data`` objects (each with its ``type``) → canonical stream events; see
        :class:`ResponsesStreamDecoder`. Pass the assembled response through
        :func:`~toolwire_openai._common.split_parallel_calls` (with
        :func:`parallel_record`) and :func:`~toolwire_openai._common.check_tool_calls` to split
        ``multi_tool_use.parallel`` calls and mark unnamed and duplicate-id calls as
        :meth:`decode_response` does (the transport does)."""
        dec = ResponsesStreamDecoder(request, self.origin)
        for ev in events:
            yield from dec.feed(ev)
        yield from dec.finish()

    @_SHAPE.guarded("the Responses request body")
    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """A ``/responses`` request body → :class:`ModelRequest` (import a history).

        - ``instructions`` → ``instructions``; else a first input message with role
          ``developer``/``system`` and string content → ``instructions`` with
          ``settings["instructions_role"]`` keeping the role; later ones → user messages whose
          ``provider_data`` keeps the role;
        - user messages and ``function_call_output`` items → user messages (consecutive outputs
          together, each a :class:`ToolResult`; an output starting ``"Error: "`` becomes
          ``is_error=True`` with the prefix removed); reasoning, message and ``function_call`` items →
          assistant messages (consecutive ones together), with every item field kept in
          ``provider_data`` so the same items go back unchanged;
        - ``tools`` → :class:`Tool` (``strict`` three-valued; absent or ``null`` keys kept);
          ``tool_choice`` → canonical (other forms stay in ``settings``);
          ``max_output_tokens`` → ``max_tokens``; ``reasoning.effort``/``summary`` →
          ``thinking``; everything else (``include``, ``store``, ``previous_response_id``,
          ``reasoning`` extras, …) → ``settings`` under its wire name.

        An ``input`` item whose ``type`` is empty (``""``) or not a string is left out (the API refuses it as input; an output item of that kind is left
        out by :meth:`decode_response` too); an item of a non-empty type toolwire does not know is
        kept whole and sent back as it came.

        Raises :class:`~toolwire.errors.ResponseDecodeError` (a ``ValueError``) for a body that is
        not an object, ``input`` that is neither a string nor an array, an ``input`` entry that is
        not an object, items of the wrong shape, a function tool's ``description`` /
        ``parameters`` / ``strict`` of the wrong JSON type, or a field of a JSON kind the SDK's
        ``ResponseCreateParamsBase`` does not allow (``tool_choice: 5``, ``text: "json"``), also
        inside items and settings (a ``function_call_output``'s ``output: null``, a
        ``function_call``'s ``arguments: null``, a message's ``content: 5``, ``text.format: 5``, a
        ``tool_choice`` naming the function 5; only the kind is checked:
        :func:`~toolwire_openai._common.check_import_types`); the error's ``pointer`` names the
        field. A tool name of the wrong type or outside the rule
        raises :class:`~toolwire.errors.ToolNameError` naming the declaration's place. A content part without a ``type`` in a user message or a
        ``function_call_output``'s ``output`` raises it too (pointer ``/input/<i>/content/<j>/type``).
        """
        body = _SHAPE.obj(body, "")
        from openai.types.responses.response_create_params import ResponseCreateParamsBase as params

        check_import_types(_SHAPE, body, params, ("tools", "instructions"), _IMPORT_ALSO)
        settings: dict[str, Any] = {k: copy.deepcopy(v) for k, v in body.items() if k not in _CANONICAL_FIELDS}
        thinking = None
        if isinstance(settings.get("reasoning"), dict):
            from openai.types.shared_params import Reasoning

            # (effort and summary become the canonical thinking: their kinds as
            # openai.types.shared_params.Reasoning types them, at /reasoning/<field>)
            from toolwire.profile import json_kind_problems

            wrong = json_kind_problems({k: v for k, v in settings["reasoning"].items() if v is not None}, Reasoning)
            if wrong:
                raise _SHAPE.error(f"/reasoning{wrong[0][0]}", f"reasoning.{wrong[0][1]}")
            reasoning = settings.pop("reasoning")
            thinking = {k: v for k, v in reasoning.items() if k in ("effort", "summary")}
            rest = {k: v for k, v in reasoning.items() if k not in ("effort", "summary")}
            if rest:
                settings["reasoning"] = rest
            thinking = thinking or None
            if thinking is None:
                settings["reasoning"] = reasoning
        raw_input = body.get("input")
        items = (
            [{"role": "user", "content": raw_input}]
            if isinstance(raw_input, str)
            else list(_SHAPE.opt_list(raw_input, "/input"))
        )
        if isinstance(raw_input, list):
            for ii, item in enumerate(items):
                # (ResponseInputItemParam: an object; one of another JSON type was left out)
                _SHAPE.obj(item, f"/input/{ii}")
        position = {id(item): i for i, item in enumerate(items)}  # for the pointers of errors
        # ResponseCreateParamsBase.instructions: Optional[str] (a list of items is only what a
        # Response object reports for a prompt's instructions, never a request field)
        instructions = _SHAPE.opt_str(body.get("instructions"), "/instructions")
        if (
            "instructions" not in body
            and items
            and isinstance(items[0], dict)
            and items[0].get("role") in ("developer", "system")
            and isinstance(items[0].get("content"), str)
            and set(items[0]) == {"role", "content"}
        ):
            first = items.pop(0)
            instructions = first["content"]
            settings["instructions_role"] = first["role"]
        messages: list[Message] = []

        def tail(role: Role) -> Message:
            if messages and messages[-1].role == role and not messages[-1].provider_data.get(API, {}).get("closed"):
                return messages[-1]
            m = Message(role, [])
            messages.append(m)
            return m

        calls_before = 0
        for item in items:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            # a type that is empty or not a string is no item's: refused, as an entry that is not an
            # object is (it was dropped, its text lost). ResponseInputItemParam (openai SDK type) is
            # told apart by its literal ``type`` ("message", "function_call", ...), optional only
            # on a message, where it is absent, not empty
            check_discriminator(_SHAPE, item, "type", f"/input/{position[id(item)]}", "input item")
            if kind in responses_hosted_item_types():
                role = (
                    "user"
                    if _client_output(item) or kind == "mcp_approval_response" or _from_caller(item)
                    else "assistant"
                )
                tail(role).parts.append(hosted_item_part(item))
            elif kind not in (None, "message", "function_call_output", "reasoning", "function_call"):
                # any other item toolwire has no canonical form for (an item reference, a type newer
                # than the SDK): kept whole as a part, sent back as it came; another provider leaves
                # it out and says so (rule provider-tool.dropped). Kept in the message's
                # provider_data, as before, it was left out without a word
                tail("user" if _client_output(item) or _from_caller(item) else "assistant").parts.append(
                    hosted_item_part(item)
                )
                continue
            if kind in ("function_call", "function_call_output"):
                # ResponseFunctionToolCallParam (``call_id``, ``name``) and FunctionCallOutput
                # (``call_id``) type these ``str`` (openai SDK); one of another type became "" or
                # the tool name "5". Absent or null is read as before
                for key in ("call_id", "name") if kind == "function_call" else ("call_id",):
                    if item.get(key) is not None:
                        _SHAPE.opt_str(item.get(key), f"/input/{position[id(item)]}/{key}")
            if kind == "function_call_output":
                untyped = untyped_part(item.get("output"))
                if untyped is not None:
                    # FunctionCallOutput.output: str or a list of ResponseInputTextContentParam,
                    # ResponseInputImageContentParam, ResponseInputFileContentParam (openai SDK
                    # types), each with a required literal ``type``; kept, it went back as it came
                    at = f"/input/{position[id(item)]}/output/{untyped}"
                    raise ResponseDecodeError(API, f"the content part at {at} has no type", f"{at}/type")
                tail("user").parts.append(self._result_from_item(item))
            elif kind == "reasoning":
                tail("assistant").parts.append(_reasoning_part(item, f"/input/{position[id(item)]}"))
            elif kind == "function_call":
                # the calls before this one (only this branch adds calls) name a made-up id; summed
                # over the messages for every call, importing n calls took n² steps (20,000: 5 s)
                n = calls_before
                calls_before += 1
                tail("assistant").parts.append(
                    _call_from_item(item, False, lambda: synth_call_id(["import", n], None, n))
                )
            elif kind in (None, "message") and item.get("role") == "assistant":
                if isinstance(item.get("content"), list):
                    tail("assistant").parts.extend(_text_parts(item, f"/input/{position[id(item)]}"))
                else:
                    m = tail("assistant")
                    part = TextPart(item.get("content") or "")
                    extra = overrides_for(item, {"role": "assistant", "content": part.text}, set())
                    if extra:
                        part.provider_data[API] = {"easy": extra}
                    m.parts.append(part)
            elif kind in (None, "message"):
                if not isinstance(item.get("role"), str):
                    # read as a user message: checked as one (EasyInputMessageParam, openai SDK);
                    # a role that is not text (5, ["user"]) is refused there (its role is a Literal
                    # string), not kept as a user message's that went back as it came
                    from openai.types.responses import EasyInputMessageParam

                    check_as_user_message(_SHAPE, item, EasyInputMessageParam, ("input", position[id(item)]))
                # an empty role is no message's either (read as a user message that kept it)
                check_discriminator(_SHAPE, item, "role", f"/input/{position[id(item)]}", "message")
                messages.append(self._user_from_item(item, f"/input/{position[id(item)]}"))
                messages[-1].provider_data.setdefault(API, {})["closed"] = True
        for m in messages:
            pd = m.provider_data.get(API)
            if pd is not None:
                pd.pop("closed", None)
                if not pd:
                    m.provider_data.pop(API)
        tools: list[Tool] = []
        other: list[list[Any]] = []
        for pos, t in enumerate(_SHAPE.opt_list(body.get("tools"), "/tools")):
            if isinstance(t, dict) and t.get("type") == "function":
                tools.append(self._tool_from_wire(t, f"/tools/{pos}"))
            else:  # hosted / custom tools: kept verbatim at their position (settings["other_tools"])
                other.append([pos, copy.deepcopy(t)])
        if other:
            settings["other_tools"] = other
        choice = body.get("tool_choice")
        tool_choice = None
        if choice is not None:
            try:
                tool_choice = normalize_tool_choice(choice)
            except UnsupportedToolChoice:
                settings["tool_choice"] = copy.deepcopy(choice)
        return ModelRequest(
            model=body.get("model", ""),
            messages=messages,
            instructions=instructions,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=body.get("parallel_tool_calls"),
            max_tokens=body.get("max_output_tokens"),
            temperature=body.get("temperature"),
            stream=bool(body.get("stream", False)),
            thinking=thinking,
            settings=settings,
        )

    def _result_from_item(self, item: dict[str, Any]) -> ToolResult:
        output = item.get("output")
        kept: list[str] = []  # output parts no canonical part holds: kept in the item's overrides
        if isinstance(output, list):
            content: Any = []
            for o in output:
                if not isinstance(o, dict):
                    continue
                before = len(content)
                if o.get("type") == "input_text":
                    content.append(TextPart(o.get("text", "")))
                elif o.get("type") == "input_image" and o.get("image_url"):
                    url = o["image_url"]
                    # "detail": "auto" is what the encoder writes (_image): not an imported detail
                    extra = {
                        k: v
                        for k, v in o.items()
                        if k not in ("type", "image_url") and not (k == "detail" and v == "auto")
                    }
                    pd = {API: {"part": extra}} if extra else {}
                    if url.startswith("data:") and ";base64," in url:
                        head, _, data = url.partition(";base64,")
                        content.append(ImagePart(data=base64.b64decode(data), media_type=head[5:], provider_data=pd))
                    else:
                        content.append(ImagePart(url=url, provider_data=pd))
                elif o.get("type") == "input_file" and (doc := _document_from_wire(o)) is not None:
                    content.append(doc)
                if len(content) == before:
                    kind = o.get("type")
                    name = o.get("filename") or o.get("file_id") or o.get("file_url")
                    kept.append(
                        f"{kind if isinstance(kind, str) else 'output'} part"
                        + (f" ({name})" if isinstance(name, str) else "")
                    )
        else:
            content = output if isinstance(output, str) else ("" if output is None else str(output))
        result = ToolResult(tool_call_id=item.get("call_id") or "", content=content)
        mark_error(result)
        encoded = self._user_items(Message("user", [result]))[0]
        over = overrides_for(_named_files(item, "output"), encoded, set())
        if over:
            result.provider_data[API] = {"item": over}
            if kept:  # what another API leaves out of this result (and reports): toolwire.adapter
                result.provider_data[API]["kept_content"] = kept
        return result

    def _user_from_item(self, item: dict[str, Any], at: str) -> Message:
        """A user (or system, developer) message item at JSON pointer ``at``; raises
        :class:`ResponseDecodeError` for a content part without a ``type``."""
        content = item.get("content")
        parts: list[Any] = []
        pd: dict[str, Any] = {}
        if item.get("role") not in ("user", None):
            pd["role"] = item.get("role")
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif isinstance(content, list):
            for pi, c in enumerate(content):
                if not isinstance(c, dict):
                    continue  # not a content part (the API refuses it: its ``type`` is a literal)
                check_discriminator(_SHAPE, c, "type", f"{at}/content/{pi}", "content part")
                if c.get("type") is None:
                    # every ResponseInputContentParam (openai SDK type: input_text, input_image,
                    # input_file, ...) has a required literal ``type``; kept whole it went back as
                    # it came, to a refusal (the Chat API's own: "Missing required parameter:
                    # 'messages[1].content[0].type'.", crewAI cassette test_custom_llm_within_crew),
                    # or the import failed on a KeyError. Refused, as Anthropic's import refuses a
                    # content block without a type
                    raise ResponseDecodeError(
                        API, f"the content part at {at}/content/{pi} has no type", f"{at}/content/{pi}/type"
                    )
                if c.get("type") == "input_text":
                    parts.append(TextPart(c.get("text", "")))
                elif c.get("type") == "input_image" and c.get("image_url"):
                    r = self._result_from_item({"type": "function_call_output", "call_id": "", "output": [c]})
                    parts.extend(p for p in r.content if isinstance(p, ImagePart))
                elif c.get("type") == "input_file" and (doc := _document_from_wire(c)) is not None:
                    parts.append(doc)
                else:
                    # a content part toolwire has no canonical form for (input_file, an image by
                    # file_id, a type newer than the SDK): kept whole, sent back as it came; another
                    # provider leaves it out and says so (rule provider-tool.dropped). Kept only in
                    # the message's overrides, as before, it was left out without a word
                    kind = c.get("type")
                    parts.append(ProviderToolPart(API, str(kind or _CONTENT_PART), copy.deepcopy(c), "result"))
            if len(parts) == 1 and isinstance(parts[0], TextPart):
                pd["content_list"] = True
        msg = Message("user", parts, {API: pd} if pd else {})
        encoded = self._user_items(msg)
        over = overrides_for(_named_files(without_blank_parts(item), "content"), encoded[-1] if encoded else {}, set())
        if over:
            pd["message"] = over
            msg.provider_data[API] = pd
        return msg


#: The kinds Responses import takes beyond the SDK's: a ``function_call`` item's ``arguments`` of
#: another JSON kind than text (``openai.types.responses.ResponseFunctionToolCallParam.arguments``
#: is ``str``; :data:`~toolwire_openai._common.ARGUMENT_KINDS`), read by :func:`_call_from_item`.
_IMPORT_ALSO = {
    "openai.types.responses.response_function_tool_call_param.ResponseFunctionToolCallParam.arguments": ARGUMENT_KINDS,
}


def _named_files(item: dict[str, Any], key: str) -> dict[str, Any]:
    """``item`` with the made-up name (:attr:`DocumentPart.name`) in each ``input_file`` of its
    ``key`` list that decodes to a document but has no ``filename``: the name the encoder always
    sends, so the item's replay overrides do not take it out again."""
    parts = item.get(key)
    if not isinstance(parts, list):
        return item
    out = dict(item)
    out[key] = [
        {"type": "input_file", "filename": doc.name, **p}
        if isinstance(p, dict)
        and p.get("type") == "input_file"
        and (doc := _document_from_wire(p)) is not None
        and doc.filename is None
        else p
        for p in parts
    ]
    return out


def _document_from_wire(part: dict[str, Any]) -> DocumentPart | None:
    """An ``input_file`` part holding a PDF or plain text as a base64 ``data:`` URL in
    ``file_data`` → :class:`DocumentPart` (``filename`` kept; the part's other fields in
    ``provider_data``), so the document reaches another API too. ``None`` for a file by id or URL,
    another type, or data that would not go back byte-equal (then kept whole, for this API only)."""
    data, name = part.get("file_data"), part.get("filename")
    if not isinstance(data, str) or (name is not None and not isinstance(name, str)):
        return None
    extra = {k: v for k, v in part.items() if k not in ("type", "file_data", "filename")}
    if "file_id" in extra or "file_url" in extra:
        return None
    return document_from_data_url(data, name, extra, API, "part", ("application/pdf", "text/plain"))


def _stream_error(ev: dict[str, Any]) -> ProviderError:
    """The :class:`ProviderError` of a streamed ``error`` event: flat (``ResponseErrorEvent``:
    ``code``, ``message``, ``param`` at the top) or, as the API sends it, nested
    (``{"type": "error", "sequence_number", "error": {"type", "code", "message", "param"}}``,
    openai/openai-dotnet#881; the SDK's ``_streaming`` reads ``data["error"]``)."""
    err = ev["error"] if isinstance(ev.get("error"), dict) else ev
    code = err.get("code") if isinstance(err.get("code"), str) else None
    etype = err.get("type") if isinstance(err.get("type"), str) and err is not ev else None
    message = err.get("message")
    if not isinstance(message, str) or not message:
        message = json.dumps(err, ensure_ascii=False, sort_keys=True, default=str)
    return ProviderError(
        API,
        message,
        status=None,
        retryable=code in TRANSIENT_ERROR_CODES or etype in TRANSIENT_ERROR_CODES,
        error_type=code or etype,
        body=ev,
    )


def _failed(resp: dict[str, Any]) -> ProviderError:
    """The :class:`ProviderError` of a response whose ``status`` is ``failed`` (a whole body, or
    the ``response`` of a streamed ``response.failed``): its ``error`` object's message and
    ``code`` (retryable for a transient code), the body kept, and the ``usage`` the failed
    response reports (``Response.usage``, openai ``types/responses/response.py``; also inside
    ``ResponseFailedEvent.response``) as the error's ``usage``: the counts of a failed attempt,
    which no usage total includes."""
    err = resp["error"]
    exc = ProviderError(
        API,
        str(err.get("message") or err),
        status=None,
        retryable=err.get("code") in TRANSIENT_ERROR_CODES,
        error_type=err.get("code"),
        body=resp,
    )
    usage = resp.get("usage")
    if isinstance(usage, dict) and usage:
        exc.usage = responses_usage(usage)
        exc.usage.requests = 1
    return exc


_TERMINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed", "response.cancelled")


def _content_key(item: dict[str, Any]) -> str | None:
    """What an output item is known by apart from its id and position: a ``function_call``'s
    ``call_id`` (the id its output answers), a ``message``'s text (its ``output_text`` and
    ``refusal`` parts joined), a ``reasoning`` item's summary text; ``None`` for another item or
    one without them."""
    t = item.get("type")
    if t == "function_call":
        cid = item.get("call_id")
        return cid if type(cid) is str and cid else None
    if t == "message" and type(content := item.get("content")) is list:
        texts = [c.get("text") if c.get("type") != "refusal" else c.get("refusal") for c in content if type(c) is dict]
        return "".join(t for t in texts if type(t) is str) or None
    if t == "reasoning" and type(summary := item.get("summary")) is list:
        # its summary parts, joined as the stream decoder joins their deltas
        texts = [c.get("text") for c in summary if type(c) is dict]
        return "\n\n".join(t for t in texts if type(t) is str) or None
    return None


class ResponsesStreamDecoder:
    """Incremental Responses stream decoder (events keyed by ``output_index``).

    - ``response.created``/``in_progress`` → :class:`ResponseStart` (id, model);
    - ``response.output_item.added`` with a ``function_call`` → :class:`ToolCallStart` (``call_id``
      and ``name`` come only here; the ``fc_`` item id goes to ``provider_data``);
    - ``response.function_call_arguments.delta`` → :class:`ToolCallDelta`; ``.done`` is kept
      (the finished item's ``arguments`` come first, at ``output_item.done``);
    - ``response.output_text.delta``/``refusal.delta`` → :class:`TextDelta`;
    - ``response.reasoning_summary_text.delta``/``reasoning_text.delta`` → :class:`ReasoningDelta`
      as they arrive (summary parts joined by a blank line); the finished item's text is
      authoritative (the rest of it, or ``final_text`` when it differs from the deltas);
    - ``response.output_item.done`` → the final item: a call ends with the item's ``arguments``
      (:class:`ToolCallEnd`; an ``arguments`` object is taken as is), a reasoning item (complete
      ``encrypted_content`` only here) → :class:`ReasoningDelta`, a message item's
      ids/annotations merged into its text parts;
    - ``response.completed``/``incomplete``/``failed`` → usage and the stop reason
      (:func:`stop_reason_of`); a ``failed`` response with an ``error`` object or an ``error`` event raises
      :class:`ProviderError` (``status=None``).

    A call is ended by its ``output_item.done``, or, when the server sent none, by
    ``response.completed`` (the call's item in its ``output``, else the ``arguments`` of the
    call's ``function_call_arguments.done``, else its deltas; the stop reason is then
    ``tool_use``). Each terminal event (``response.completed``, ``incomplete``, ``failed``)
    gives the events of each item of its response's ``output`` the stream did not give (all of
    them after a stream that delivered nothing of the output), as their ``output_item.done``
    would, each in its place (matched by item id, else by output index; see
    :meth:`_unstreamed`); an item the stream gave keeps what it streamed. A ``function_call``
    item ``status: incomplete`` whose arguments do not parse is an incomplete call, as in
    :meth:`OpenAIResponsesCodec.decode_response`. A call still open at another terminal event
    (``response.incomplete``, ``failed``) ends only with its item in that event's output or the
    arguments of its ``function_call_arguments.done``; one with only its deltas, or still open when
    the stream ends without a terminal event, stays open and the assembler marks it incomplete
    (never run). A stream
    that ends without one of the terminal events gives ``StopEvent("error")`` with ``vendor_stop_reason=None``.

    Raises :class:`~toolwire.errors.ResponseDecodeError` (``api="openai"``, naming the
    ``output_index``) when an output index is added twice or finished twice, when an event does
    not fit the item at its output index (text deltas for a ``function_call`` item, argument
    deltas for a message, a ``done`` item of another type), or a field has the wrong JSON type
    (in an item of the terminal response's output the stream did not give, the pointer is
    ``/response/output/<i>``: an item that is not an object, a message ``content`` that is not
    an array, ...), for a terminal ``output`` that is not an array (``/response/output``), and
    for a terminal response without ``output`` (absent or ``null``) after a stream that gave no
    output item, unless its ``status`` is ``failed`` (after streamed items, those are the answer).
    """

    def __init__(self, request: ModelRequest | None = None, origin: str | None = None) -> None:
        self.request = request
        self.origin = origin  # the endpoint, recorded on reasoning (see OpenAIResponsesCodec)
        self._real_names = real_names(request.tools) if request is not None else {}
        self._declares_parallel = declares_parallel(request)
        self.started = False
        self.response_id: str | None = None
        self.text_seen: set[int] = set()
        self.calls_open: set[int] = set()
        self.kinds: dict[int, str] = {}  # output_index → item type
        self.added: set[int] = set()
        self.done: set[int] = set()
        self.stopped = False
        #: output_index → the reasoning text streamed so far (summary or reasoning-text deltas),
        #: and the (event type, summary/content index) its last delta belonged to
        self.reasoning_text: dict[int, list[str]] = {}
        self.reasoning_at: dict[int, tuple[str, int]] = {}
        #: output_index → the (call_id, item id) its ``output_item.added`` gave, and the final
        #: argument text its ``function_call_arguments.done`` gave (see :meth:`_settle`)
        self.call_keys: dict[int, tuple[str | None, str | None]] = {}
        self.arguments_done: dict[int, str] = {}
        #: item id → the output index the stream gave it (see :meth:`_unstreamed`)
        self.ids: dict[str, int] = {}
        #: output_index → a message's streamed text (its deltas, or its done item's text), to
        #: know it again in ``response.completed``'s output under another id (:meth:`_unstreamed`)
        self.message_text: dict[int, list[str]] = {}
        #: output_index → a finished reasoning item's summary text (the same, for reasoning)
        self.reasoning_key: dict[int, str] = {}

    def _start(self, resp: dict[str, Any] | None) -> Iterator[StreamEvent]:
        if not self.started:
            self.started: bool = True
            resp = _SHAPE.opt_obj(resp, "/response")
            rid = _SHAPE.opt_str(resp.get("id"), "/response/id")
            self.response_id = rid
            yield ResponseStart(
                rid, _SHAPE.opt_str(resp.get("model"), "/response/model"), _response_data(rid, resp.get("conversation"))
            )

    def _kind(self, oi: int, kind: str, event: str) -> None:
        """Record that output item ``oi`` is a ``kind`` item; raise when it is another kind."""
        known = self.kinds.get(oi)
        if known is not None and known != kind:
            raise _SHAPE.error(
                "/output_index", f"{event} for output_index {oi}, which is a {known} item, not a {kind} item"
            )
        self.kinds[oi] = kind

    def _note_id(self, item_id: Any, oi: int) -> None:
        """Record that the stream gave the item ``item_id`` (when a non-empty string) the output index ``oi``."""
        if type(item_id) is str and item_id and item_id not in self.ids:
            self.ids[item_id] = oi

    def _not_done(self, oi: int, event: str) -> None:
        if oi in self.done:
            raise _SHAPE.error("/output_index", f"{event} for output_index {oi} after its response.output_item.done")

    @_SHAPE.guarded("a Responses stream event")
    def feed(self, ev: dict[str, Any]) -> list[StreamEvent]:
        """The canonical events of one SSE event (a non-object event gives none)."""
        if self.started and type(ev) is dict:
            # the usual events, text and argument deltas, checked inline as in _feed
            kind = ev.get("type")
            if kind == "response.output_text.delta" or kind == "response.function_call_arguments.delta":
                oi = ev.get("output_index")
                delta = ev.get("delta")
                if type(oi) is int and oi >= 0 and (delta is None or type(delta) is str) and oi not in self.done:
                    if oi not in self.kinds:  # the item's first event
                        self._note_id(ev.get("item_id"), oi)
                    if kind == "response.function_call_arguments.delta":
                        self._kind(oi, "function_call", kind)
                        return [ToolCallDelta(oi * _SLOT, delta)] if oi in self.calls_open and delta else []
                    ci = ev.get("content_index", 0)
                    if type(ci) is int and 0 <= ci < _SLOT:
                        self._kind(oi, "message", kind)
                        index = oi * _SLOT + ci
                        self.text_seen.add(index)
                        if not delta:
                            return []
                        self.message_text.setdefault(oi, []).append(delta)
                        return [TextDelta(index, delta)]
        return list(self._feed(ev))

    def _feed(self, ev: dict[str, Any]) -> Iterator[StreamEvent]:
        if not isinstance(ev, dict):
            return
        kind = ev.get("type")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            yield from self._start(ev.get("response"))
            return
        if kind == "error":
            raise _stream_error(ev)
        yield from self._start(None)
        if kind == "response.output_item.added":
            oi = _SHAPE.index(ev.get("output_index"), "/output_index")
            item = _SHAPE.obj(ev.get("item"), "/item")
            t = str(item.get("type"))
            if oi in self.added:
                raise _SHAPE.error("/output_index", f"output_index {oi} was added twice")
            self.added.add(oi)
            self._note_id(item.get("id"), oi)
            self._kind(oi, t, kind)
            if t == "function_call":
                rest = {
                    k: copy.deepcopy(v)
                    for k, v in item.items()
                    if k not in ("type", "id", "call_id", "name", "arguments", "status")
                }
                pd: dict[str, Any] = {"item": rest}
                if item.get("id") is not None:
                    pd["item_id"] = item["id"]
                call = self._call(item, oi)
                own = self._wrapper_marks(call.name)
                # the request's renamed tools, for the split of this call into the calls it names,
                # whose recipients name tools as sent (split_parallel_calls)
                pd_all: dict[str, Any] = {API: pd, "toolwire": own} if own else {API: pd}
                self.calls_open.add(oi)
                call_id, item_id = item.get("call_id"), item.get("id")
                self.call_keys[oi] = (
                    call_id if isinstance(call_id, str) and call_id else None,
                    item_id if isinstance(item_id, str) and item_id else None,
                )
                yield ToolCallStart(
                    oi * _SLOT,
                    call.id,
                    self._real_names.get(call.name, call.name),
                    id_synthesized=call.id_synthesized,
                    provider_data=pd_all,
                )
        elif kind == "response.function_call_arguments.delta":
            oi = _SHAPE.index(ev.get("output_index"), "/output_index")
            self._kind(oi, "function_call", kind)
            self._not_done(oi, kind)
            self._note_id(ev.get("item_id"), oi)
            delta = _SHAPE.opt_str(ev.get("delta"), "/delta")
            if oi in self.calls_open and delta:
                yield ToolCallDelta(oi * _SLOT, delta)
        elif kind == "response.function_call_arguments.done":
            # kept for a call its server never finishes (_settle); the finished item, when it
            # comes, still gives the arguments. Not checked further: it was never read before.
            oi, final = ev.get("output_index"), ev.get("arguments")
            if type(oi) is int and oi in self.calls_open and oi not in self.done and isinstance(final, str):
                self.arguments_done[oi] = final
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            oi = _SHAPE.index(ev.get("output_index"), "/output_index")
            self._kind(oi, "message", kind)
            self._not_done(oi, kind)
            self._note_id(ev.get("item_id"), oi)
            ci = _SHAPE.index(ev.get("content_index"), "/content_index", default=0)
            if ci >= _SLOT:
                raise _SHAPE.error(
                    "/content_index", f"content_index {ci} is out of range (at most {_SLOT - 1} parts per message)"
                )
            index = oi * _SLOT + ci
            self.text_seen.add(index)
            delta = _SHAPE.opt_str(ev.get("delta"), "/delta")
            if delta:
                self.message_text.setdefault(oi, []).append(delta)
                yield TextDelta(index, delta)
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            # streamed live; the finished item (output_item.done) still gives the whole text
            oi = _SHAPE.index(ev.get("output_index"), "/output_index")
            self._kind(oi, "reasoning", kind)
            self._not_done(oi, kind)
            self._note_id(ev.get("item_id"), oi)
            field = "summary_index" if kind == "response.reasoning_summary_text.delta" else "content_index"
            at = (kind, _SHAPE.index(ev.get(field), f"/{field}", default=0))
            delta = _SHAPE.opt_str(ev.get("delta"), "/delta")
            if delta:
                sofar = self.reasoning_text.setdefault(oi, [])
                if sofar and self.reasoning_at.get(oi) != at:
                    delta = "\n\n" + delta  # a new summary part: joined as the finished item's parts are
                self.reasoning_at[oi] = at
                sofar.append(delta)
                yield ReasoningDelta(oi * _SLOT, text=delta, provider=API)
        elif kind == "response.output_item.done":
            oi = _SHAPE.index(ev.get("output_index"), "/output_index")
            item = _SHAPE.obj(ev.get("item"), "/item")
            self._note_id(item.get("id"), oi)
            yield from self._item_done(item, oi, "/item")
        elif kind in _TERMINAL_EVENTS:
            resp = _SHAPE.opt_obj(ev.get("response"), "/response")
            if resp.get("status") == "failed" and isinstance(resp.get("error"), dict):
                raise _failed(resp)
            if isinstance(resp.get("usage"), dict) and resp["usage"]:
                yield UsageUpdate(responses_usage(resp["usage"]))
            stop, vendor = stop_reason_of(resp, "/response")
            # every terminal event holds the whole Response (ResponseCompletedEvent,
            # ResponseIncompleteEvent, ResponseFailedEvent: ``response: Response``, openai SDK
            # types), whose ``output`` lists every item, those the stream never gave included
            yield from self._unstreamed(resp)
            yield from self._settle(resp, kind == "response.completed" and stop not in ("max_tokens", "error"))
            if stop == "end_turn" and self.calls_open:
                # the stream delivered calls its completed response's output does not list (an
                # empty output, router-for-me/CLIProxyAPI#2626): the model waits for their results
                stop = "tool_use"
            self.stopped = True
            tier = resp.get("service_tier")
            pd = response_extras(resp)
            if isinstance(tier, str) and tier in PRICED_TIERS:  # the tier that served it, priced by it
                pd["price_context"] = {"service_tier": tier}
            yield StopEvent(stop, vendor, provider_data={API: pd}) if pd else StopEvent(stop, vendor)

    def _unstreamed(self, resp: dict[str, Any]) -> Iterator[StreamEvent]:
        """At the terminal event (``response.completed``, ``incomplete``, ``failed``,
        ``cancelled``): the events of each item of its response's ``output`` the stream did not
        finish, as its ``output_item.done`` would give them. The terminal response is the whole
        answer (the SDK's own stream helper returns it as the final response:
        ``openai.lib.streaming.responses``, ``get_final_response()``), and some servers and
        proxies stream only part of it: nothing at all before the terminal event, or one
        message's text deltas while a ``function_call``, reasoning item or second message comes
        only in the terminal ``output``.

        Each terminal item is matched to the item the stream gave: by item ``id`` (the item's
        ``id``, or the ``item_id`` of its deltas), else by its position, which is the stream's
        ``output_index`` (``ResponseOutputItemAddedEvent.output_index``: "The index of the output
        item that was added", openai SDK type) when the stream gave an item of the same type
        there, else (ids and an order of the server's own) by what it is
        (:func:`_content_key`: a call's ``call_id``, a message's text, a reasoning item's summary). An item the stream gave
        keeps what it streamed (no text twice); one it never
        finished is finished by the terminal copy (a message's ids and annotations, a reasoning
        item's ``encrypted_content``), except an announced ``function_call``, which
        :meth:`_settle` ends at ``response.completed`` and which stays open (cut off) otherwise.
        An item the stream did not give goes at its position; a position
        the stream gave another item (a server that numbered its output otherwise) puts it after
        every item. An item that is not an object raises :class:`ResponseDecodeError` at
        ``/response/output/<i>``, as in :meth:`OpenAIResponsesCodec.decode_response`; one without
        a ``type`` is left out as it is there (the API refuses it as input). An ``output`` that is
        not an array raises it at ``/response/output``; one that is absent or ``null`` leaves the
        streamed items the answer, and raises it when the stream gave no item (but for a
        ``failed`` response, which stands without output)."""
        output = resp.get("output")
        if output is None:
            # ``Response.output`` is a required list (openai SDK type): a proxy that streamed the
            # items may leave the final list out, and they are the answer; with nothing streamed
            # there is no answer (a whole body without ``output`` is refused too), except a
            # failed response, which stands without output (as in decode_response)
            if not self.kinds and resp.get("status") != "failed":
                raise _SHAPE.error(
                    "/response/output",
                    "the terminal event's response has no output array and the stream gave no output item",
                )
            return
        if type(output) is not list:
            raise _SHAPE.bad("/response/output", "an array", output)
        if not output:
            return
        matched: dict[int, int] = {}  # position in output → the stream's output index
        claimed: set[int] = set()
        for p, item in enumerate(output):
            if type(item) is dict and type(item_id := item.get("id")) is str:
                oi = self.ids.get(item_id)
                if oi is not None and oi in self.kinds and oi not in claimed:
                    matched[p] = oi
                    claimed.add(oi)
        for p, item in enumerate(output):
            if p not in matched and p in self.kinds and p not in claimed:
                if type(item) is not dict or item.get("type") == self.kinds[p]:
                    matched[p] = p
                    claimed.add(p)
        if len(claimed) < len(self.kinds) and len(matched) < len(output):
            # a streamed item listed under another id at another position (a proxy that gives
            # the completed items ids of its own and its own order): a call is its call_id, a
            # message its text, a reasoning item its summary
            for p, item in enumerate(output):
                if p in matched or type(item) is not dict:
                    continue
                key = _content_key(item)
                if key is None:
                    continue
                for oi in sorted(self.kinds):
                    if oi not in claimed and self.kinds[oi] == item.get("type") and self._streamed_key(oi) == key:
                        matched[p] = oi
                        claimed.add(oi)
                        break
        free = max(len(output), max(self.kinds, default=-1) + 1)  # after every position
        for p, item in enumerate(output):
            at = f"/response/output/{p}"
            oi = matched.get(p)
            if oi is not None:  # streamed: finished here only when its own done never came
                if (
                    oi in self.done
                    or oi in self.calls_open
                    or type(item) is not dict
                    or item.get("type") != self.kinds.get(oi)
                ):
                    continue
            else:
                item = _SHAPE.obj(item, at)
                if p in self.kinds:
                    oi, free = free, free + 1
                else:
                    oi = p
            yield from self._item_done(item, oi, at)

    def _streamed_key(self, oi: int) -> str | None:
        """What the item the stream gave at ``oi`` is known by when its ids do not say
        (:func:`_content_key`): a call's ``call_id``, a message's text."""
        kind = self.kinds.get(oi)
        if kind == "function_call":
            return self.call_keys.get(oi, (None, None))[0]
        if kind == "message" and oi in self.message_text:
            return "".join(self.message_text[oi])
        if kind == "reasoning":
            if oi in self.reasoning_key:
                return self.reasoning_key[oi]
            if (
                oi in self.reasoning_text
                and self.reasoning_at.get(oi, ("",))[0] == "response.reasoning_summary_text.delta"
            ):
                return "".join(self.reasoning_text[oi])
        return None

    def _item_done(self, item: dict[str, Any], oi: int, at: str) -> Iterator[StreamEvent]:
        """The events of the finished ``item`` at output index ``oi`` (its ``output_item.done``, or
        its copy in ``response.completed``; ``at`` is the item's JSON pointer, for errors)."""
        t = str(item.get("type"))
        if oi in self.done:
            raise _SHAPE.error("/output_index", f"output_index {oi} was finished twice (response.output_item.done)")
        self._kind(oi, t, "response.output_item.done")
        self.done.add(oi)
        if t == "function_call":
            if oi not in self.call_keys and type(cid := item.get("call_id")) is str and cid:
                self.call_keys[oi] = (cid, None)
            yield from self._end_call(item, oi)
        elif t == "custom_tool_call":
            call = _as_custom_call(self._call(item, oi), item)
            yield ToolCallStart(
                oi * _SLOT,
                call.id,
                self._real_names.get(call.name, call.name),
                id_synthesized=call.id_synthesized,
                provider_data=call.provider_data,
            )
            yield ToolCallEnd(oi * _SLOT, raw_arguments=call.raw_arguments or "", provider_data=call.provider_data)
        elif (client_call := client_call_from_item(item)) is not None:
            yield ToolCallStart(oi * _SLOT, client_call.id, client_call.name, provider_data=client_call.provider_data)
            yield ToolCallEnd(
                oi * _SLOT,
                arguments=client_call.arguments,
                raw_arguments=None if client_call.arguments is not None else "",
                provider_data=client_call.provider_data,
                invalid=client_call.invalid,
            )
        elif t == "reasoning":
            part = _reasoning_part(item, at, self.origin)
            text, final = part.text, None
            streamed = self.reasoning_text.pop(oi, None)
            if (key := _content_key(item)) is not None:
                self.reasoning_key[oi] = key
            if streamed is not None:  # the deltas gave the text so far: the rest, or all of it anew
                sofar = "".join(streamed)
                if text.startswith(sofar):
                    text = text[len(sofar) :]
                elif text:
                    text, final = "", text
                # (an item without text keeps the streamed text)
            yield ReasoningDelta(
                oi * _SLOT,
                text=text,
                encrypted=part.encrypted,
                provider=API,
                provider_data=part.provider_data,
                final_text=final,
            )
        elif t == "message":
            parts = _text_parts(item, at)
            if len(parts) > _SLOT:
                raise _SHAPE.error(f"{at}/content", f"a message item with more than {_SLOT} content parts")
            if oi not in self.message_text and (text := _content_key(item)) is not None:
                self.message_text[oi] = [text]  # (a message given whole, without deltas)
            for ci, part in enumerate(parts):
                index = oi * _SLOT + ci
                text = "" if index in self.text_seen else part.text
                yield TextDelta(index, text, part.provider_data)
        elif (
            isinstance(item.get("type"), str) and item["type"]
        ):  # hosted, compaction, unknown: kept (see decode_response)
            yield ProviderToolDone(oi * _SLOT, hosted_item_part(item))

    def _wrapper_marks(self, name: Any) -> dict[str, Any] | None:
        """What a call named as the parallel wrapper carries for :func:`split_parallel_calls`: the
        request's renamed tools (``real_names``) and, for a bare ``parallel`` the request declares
        as a tool, ``declared``; ``None`` for any other call."""
        own: dict[str, Any] = {}
        if name == PARALLEL_PSEUDO_TOOL or name == PARALLEL_BARE_NAME:
            if self._real_names:
                own["real_names"] = dict(self._real_names)
            if name == PARALLEL_BARE_NAME and self._declares_parallel:
                own["declared"] = True
        return own or None

    def _end_call(self, item: dict[str, Any], oi: int) -> Iterator[StreamEvent]:
        """The events that end the ``function_call`` at output index ``oi`` with the finished
        ``item`` (its ``output_item.done``, or its copy in ``response.completed``)."""
        call = self._call(item, oi)
        if own := self._wrapper_marks(call.name):
            call.provider_data["toolwire"] = own  # (see the added event)
        if oi not in self.calls_open:
            self.calls_open.add(oi)
            yield ToolCallStart(oi * _SLOT, call.id, self._real_names.get(call.name, call.name), call.id_synthesized)
        raw = item.get("arguments")
        if isinstance(raw, dict):
            yield ToolCallEnd(oi * _SLOT, arguments=dict(raw), provider_data=call.provider_data)
        elif raw is None or isinstance(raw, str):
            # an item ``status: incomplete`` whose text does not parse was cut off, as in
            # decode_response (_call_from_item), whatever the response's stop reason
            cut = call.incomplete
            yield ToolCallEnd(
                oi * _SLOT,
                raw_arguments=raw or "",
                provider_data=call.provider_data,
                invalid=call.invalid if cut else None,
                incomplete=cut,
            )
        else:  # a number, array, ...: its JSON text, so the call is invalid with the reason
            yield ToolCallEnd(
                oi * _SLOT, raw_arguments=json.dumps(raw, ensure_ascii=False), provider_data=call.provider_data
            )

    def _settle(self, resp: dict[str, Any], completed: bool = True) -> Iterator[StreamEvent]:
        """End the calls still open when the terminal event arrives: some OpenAI-compatible
        servers and proxies never send a call's ``response.output_item.done`` ("Some
        OpenAI-compatible backends/proxies omit per-item done events on a successful
        completion", NousResearch/hermes-agent#92764), and their ``response.completed`` carries
        the whole ``output`` or an empty one. The completed response says every item is
        finished, so each open call ends with, in this order: the ``function_call`` item of
        ``response.output`` with its ``call_id`` (or item ``id``), the ``arguments`` of its
        ``response.function_call_arguments.done`` (``ResponseFunctionCallArgumentsDoneEvent.arguments``,
        "the function-call arguments", openai SDK type), or its streamed argument deltas. At
        another terminal event (``completed`` false: ``response.incomplete``, ``failed``) the
        answer was cut, so only the first two end a call (the item, with its own ``status``, as
        :meth:`OpenAIResponsesCodec.decode_response` reads it); a call with only its deltas stays
        open and the assembler marks it incomplete. A
        call ends once: one its ``output_item.done`` ended is not open."""
        output = resp.get("output")
        items = (
            [i for i in output if type(i) is dict and i.get("type") == "function_call"] if type(output) is list else []
        )
        for oi in sorted(self.calls_open - self.done):
            call_id, item_id = self.call_keys.get(oi, (None, None))
            item = next(
                (
                    i
                    for i in items
                    if (call_id is not None and i.get("call_id") == call_id)
                    or (item_id is not None and i.get("id") == item_id)
                ),
                None,
            )
            if not completed and item is None and oi not in self.arguments_done:
                continue  # cut off: stays open
            self.done.add(oi)
            if item is not None:
                yield from self._end_call(item, oi)
            elif oi in self.arguments_done:
                yield ToolCallEnd(oi * _SLOT, raw_arguments=self.arguments_done[oi])
            else:
                yield ToolCallEnd(oi * _SLOT)

    def _call(self, item: dict[str, Any], oi: int) -> ToolCall:
        """The call of a ``function_call`` item at output index ``oi`` (a synthesized id uses
        ``oi`` as its position, so the item's ``added`` and ``done`` events agree). A name that is
        missing or not a string becomes ``""`` (the transport's check marks the call invalid)."""
        call = _call_from_item(item, False, lambda: synth_call_id(self.response_id or ["item", oi], self.request, oi))
        if tool_name(item.get("name"))[1] is not None:
            call.name = ""
        return call

    @_SHAPE.guarded("a Responses stream")
    def finish(self) -> list[StreamEvent]:
        """``StopEvent("error", None)`` when the stream ended without ``response.completed``/
        ``incomplete``/``failed``/``cancelled`` (cut off); nothing otherwise."""
        if self.stopped:
            return []
        self.stopped: bool = True
        return [StopEvent("error", None)]
