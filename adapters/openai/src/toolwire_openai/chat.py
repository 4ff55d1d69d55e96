"""The OpenAI Chat Completions codec (``POST /chat/completions``), also used for compatible
servers (vLLM, Ollama, llama.cpp, LM Studio, OpenRouter) through ``base_url``.

Pure functions of their inputs: JSON-ready dicts in, canonical types out.
Field names and rules follow the installed ``openai`` SDK's request/response types
(``types/chat/*``) and the Chat Completions API reference
(https://platform.openai.com/docs/api-reference/chat); the mapping tables are in the adapter's
documentation page (OpenAI).
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any, Iterable, Iterator, cast

from toolwire.adapter import DeclarationMemo, ModelRequest, normalize_tool_choice, tool_choice_setting_change
from toolwire.arguments import dumps_arguments, parse_arguments
from toolwire.errors import ConfigurationError, ProviderError, ResponseDecodeError, UnsupportedToolChoice
from toolwire.schema.report import TranslationReport
from toolwire.stream import (
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
    moved_result_changes,
    place_late_results,
    readable_tool_result,
    system_as_user_changes,
    tool_image_changes,
)
from toolwire.types import (
    DocumentPart,
    ImagePart,
    Message,
    ProviderToolPart,
    ReasoningPart,
    Response,
    StopReason,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
)
from toolwire.wire import Shape, reissue_shared_ids, tool_name

from ._common import (
    ARGUMENT_KINDS,
    ERROR_PREFIX,
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
    DOCUMENT_LABEL,
    IMAGE_LABEL,
    IMAGE_MEDIA_TYPES,
    PARALLEL_BARE_NAME,
    PARALLEL_PSEUDO_TOOL,
    fetches_image_url,
    hosted_server,
    naming_profile,
    real_names,
)

__all__ = ["OpenAIChatCodec", "ChatStreamDecoder", "FINISH_REASONS", "chat_usage", "API"]

API = "openai-chat"

#: ``finish_reason`` → canonical stop reason (``function_call`` is the deprecated functions API).
FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    # compatible servers: Mistral's model_length (the context filled) and error, DeepSeek's
    # insufficient_system_resource (Mistral OpenAPI FinishReason; DeepSeek API docs)
    "model_length": "max_tokens",
    "error": "error",
    "insufficient_system_resource": "error",
}


def _content_pieces(content: list[Any], pointer: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of a content array: ``("text", ...)`` for a text part, ``("thinking", ...)``
    for Mistral's ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}`` (its
    reasoning models); other parts are left out. Raises :class:`ResponseDecodeError` for a part
    that is not an object or a text that is not a string."""
    out: list[tuple[str, str]] = []
    for i, item in enumerate(content):
        item = _SHAPE.obj(item, f"{pointer}/{i}")
        if item.get("type") == "thinking":
            inner = item.get("thinking")
            if isinstance(inner, str):
                pieces = [inner]
            else:
                pieces = [
                    t
                    for j, sub in enumerate(_SHAPE.opt_list(inner, f"{pointer}/{i}/thinking"))
                    if (
                        t := _SHAPE.opt_str(
                            _SHAPE.obj(sub, f"{pointer}/{i}/thinking/{j}").get("text"),
                            f"{pointer}/{i}/thinking/{j}/text",
                        )
                    )
                ]
            text = "".join(pieces)
            if text:
                out.append(("thinking", text))
            continue
        text = _SHAPE.opt_str(item.get("text"), f"{pointer}/{i}/text")
        if text is not None:
            out.append(("text", text))
    return out


def _choice_error(choice: dict[str, Any]) -> ProviderError | None:
    """The :class:`ProviderError` of a choice that carries an ``error`` object (OpenRouter's
    ``finish_reason: "error"`` with ``choices[].error``: the provider behind it failed mid-answer),
    classified as that error sent with its status would be; ``None`` otherwise."""
    err = choice.get("error")
    if not isinstance(err, dict) or not err:
        return None
    return error_in_body(API, {"error": err}, (), TRANSIENT_ERROR_CODES) or ProviderError(
        API, str(err), status=None, retryable=True
    )


#: Settings the codec reads itself and never copies into the body.
CODEC_KEYS = frozenset({"instructions_role", "max_tokens_field", "other_tools"})

#: Request fields the codec writes from canonical fields (everything else round-trips via settings).
_CANONICAL_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_completion_tokens",
        "temperature",
        "reasoning_effort",
        "stream",
    }
)

# the indexes of streamed parts: reasoning first, then text, then tool calls by their index
_REASONING_INDEX = 0
_TEXT_INDEX = 1
_TOOL_INDEX_BASE = 2

_SHAPE = Shape(API)


def chat_usage(u: Any) -> Usage:
    """Chat ``usage`` → :class:`Usage`: ``prompt_tokens`` → input (cache included),
    ``completion_tokens`` → output (reasoning included), ``prompt_tokens_details.cached_tokens``
    → cache_read, ``prompt_tokens_details.cache_write_tokens`` → cache_write,
    ``completion_tokens_details.reasoning_tokens`` → reasoning. ``None`` → empty usage.

    Compatible servers that report cache reads elsewhere: DeepSeek's top-level
    ``prompt_cache_hit_tokens`` and Moonshot's top-level ``cached_tokens`` (both part of
    ``prompt_tokens``) → cache_read, when ``prompt_tokens_details.cached_tokens`` is absent."""
    if not isinstance(u, dict):
        return Usage(requests=1)
    get = u.get
    pt = pt if isinstance(pt := get("prompt_tokens_details"), dict) else _EMPTY
    ct = ct if isinstance(ct := get("completion_tokens_details"), dict) else _EMPTY
    inp, out, total = get("prompt_tokens"), get("completion_tokens"), get("total_tokens")
    cached, written, reasoning = pt.get("cached_tokens"), pt.get("cache_write_tokens"), ct.get("reasoning_tokens")
    if cached is None:
        # DeepSeek: "prompt_cache_hit_tokens" (prompt_tokens = prompt_cache_hit_tokens +
        # prompt_cache_miss_tokens, https://api-docs.deepseek.com/api/create-chat-completion;
        # read by no client that looks only at prompt_tokens_details: NousResearch/hermes-agent#61871,
        # earendil-works/pi#3880); Moonshot: top-level "cached_tokens"
        # (https://platform.kimi.ai/docs/api/chat; earendil-works/pi#8075, aallan/vera-bench#97)
        cached = get("prompt_cache_hit_tokens")
        if cached is None:
            cached = get("cached_tokens")
    return usage_of(inp, out, cached, written, reasoning, total)


_EMPTY: dict[str, Any] = {}


def _image_to_wire(part: ImagePart) -> dict[str, Any]:
    # the declared type: a type its bytes contradict is corrected and reported by the preflight
    # (rule openai-chat.conversation.image-media-type-data)
    url = part.url if part.url is not None else f"data:{part.declared_wire_media_type};base64,{part.base64}"
    image_url: dict[str, Any] = {"url": url}
    extra = part.provider_data.get(API) or {}
    image_url.update(copied(extra.get("image_url") or {}))
    return {"type": "image_url", "image_url": image_url}


def _document_to_wire(part: DocumentPart) -> dict[str, Any]:
    """A user message's content part for a document: a PDF as a ``file`` part with its base64
    ``data:`` URL in ``file_data`` and its ``filename`` (``ChatCompletionContentPartParam`` ``File``;
    Chat Completions takes PDF files only), plain text as a text part headed by its name."""
    if part.media_type == "text/plain":
        return {"type": "text", "text": _document_text(part)}
    pd = part.provider_data.get(API) or {}
    # a filename always, made up when the part has none (also one imported without it): Chat
    # answers file_data without filename with 400 "Missing required parameter:
    # 'messages[1].content[1].file.file_id'" (openai/openai-agents-python#1513,
    # langchain-ai/langchainjs#9570)
    file: dict[str, Any] = {"filename": part.name, "file_data": part.data_url}
    file.update(copied(pd.get("file") or {}))
    return {"type": "file", "file": file}


def _document_text(part: DocumentPart) -> str:
    """A ``text/plain`` document as the text Chat gets: its name, a colon, then its text."""
    return f"{part.name}:\n{part.text}"


def _document_from_wire(item: dict[str, Any]) -> DocumentPart | None:
    """A ``file`` part holding a PDF as a base64 ``data:`` URL → :class:`DocumentPart`
    (``filename`` kept, other fields in ``provider_data``); ``None`` for a file by id or anything
    that would not go back byte-equal (then kept whole, for Chat only)."""
    file = item.get("file")
    if set(item) != {"type", "file"} or not isinstance(file, dict):
        return None
    data, name = file.get("file_data"), file.get("filename")
    extra = {k: v for k, v in file.items() if k not in ("file_data", "filename")}
    if not isinstance(data, str) or (name is not None and not isinstance(name, str)) or "file_id" in extra:
        return None
    return document_from_data_url(data, name, extra, API, "file", ("application/pdf",))  # Chat files: PDF only


def _named_files(wm: dict[str, Any]) -> dict[str, Any]:
    """``wm`` with the made-up name (:attr:`DocumentPart.name`) in each ``file`` part that decodes
    to a document but has no ``filename``: the name the encoder always sends, so the message's
    replay overrides do not take it out again."""
    content = wm.get("content")
    if not isinstance(content, list):
        return wm
    out = dict(wm)
    out["content"] = [
        {**c, "file": {"filename": doc.name, **c["file"]}}
        if isinstance(c, dict)
        and c.get("type") == "file"
        and (doc := _document_from_wire(c)) is not None
        and doc.filename is None
        else c
        for c in content
    ]
    return out


def _image_from_wire(item: dict[str, Any]) -> ImagePart:
    image_url = item.get("image_url") or {}
    url = image_url.get("url", "") if isinstance(image_url, dict) else str(image_url)
    extra = {k: v for k, v in image_url.items() if k != "url"} if isinstance(image_url, dict) else {}
    pd = {API: {"image_url": extra}} if extra else {}
    if url.startswith("data:") and ";base64," in url:
        head, _, data = url.partition(";base64,")
        try:
            return ImagePart(
                data=base64.b64decode(data), media_type=head[5:] or "application/octet-stream", provider_data=pd
            )
        except ValueError:
            pass
    return ImagePart(url=url, provider_data=pd)


def _auto_choice(given: Any) -> bool:
    """Whether a Chat Completions ``tool_choice`` is a form of ``"auto"``: ``"auto"`` itself or
    ``{"type": "allowed_tools", "allowed_tools": {"mode": "auto", ...}}``
    (``ChatCompletionAllowedToolChoiceParam``)."""
    if given == "auto":
        return True
    inner = given.get("allowed_tools") if isinstance(given, dict) and given.get("type") == "allowed_tools" else None
    return isinstance(inner, dict) and inner.get("mode") == "auto"


def _keeps_system(message: Message, role: str) -> bool:
    """Whether another API's system or developer message inside the conversation (``role``, see
    :func:`toolwire.turns.marked_system_role`) is sent with its own role: Chat takes both
    anywhere in ``messages`` (``ChatCompletionMessageParam`` holds
    ``ChatCompletionSystemMessageParam``, role ``"system"``, and
    ``ChatCompletionDeveloperMessageParam``, role ``"developer"``), with text only (their
    ``content``: ``str | Iterable[ChatCompletionContentPartTextParam]``); one with an image,
    a document or any other part is sent as a user message. Tool results in it (a result moved
    there to sit right after its call, :func:`toolwire.turns.place_late_results`) go out as
    ``tool`` messages before it and do not count."""
    if role not in ("system", "developer"):
        return False
    text = False
    for p in message.parts:
        if type(p) is TextPart:
            text = True
        elif not isinstance(p, ToolResult):
            return False
    return text


class OpenAIChatCodec:
    """Chat Completions wire format ⇄ canonical types (``api = "openai-chat"``).

    ``OpenAIChatCodec(max_tokens_field="max_completion_tokens")``: the body field that carries
    ``ModelRequest.max_tokens``. OpenAI deprecated ``max_tokens`` in favour of
    ``max_completion_tokens`` (reasoning models reject ``max_tokens``); some older compatible
    servers only read ``max_tokens`` — pass ``max_tokens_field="max_tokens"`` for them.

    ``named_tool_choice``: how a forced tool (``{"type": "tool", "name": N}``) is sent —
    ``"object"`` (default: OpenAI's ``{"type": "function", "function": {"name": N}}``) or
    ``"required"`` (``tool_choice: "required"`` with only tool ``N`` declared: the same constraint
    in the form OpenAI-compatible servers implement; llama.cpp's server reads ``tool_choice`` as a
    string only and silently falls back to ``"auto"`` for the object — ``json_value(body,
    "tool_choice", std::string("auto"))`` in ``tools/server/server-common.cpp``, which logs "Wrong
    type supplied for parameter 'tool_choice'").
    """

    api = API
    #: :meth:`left_out_parts` reports nothing for a plain history (text, tool calls answered in the
    #: next message, text results: :func:`toolwire.turns.plain_history`), so the preflight skips it
    #: for one
    plain_history_sent_whole = True

    def __init__(
        self,
        *,
        max_tokens_field: str = "max_completion_tokens",
        cache: bool | str = False,
        named_tool_choice: str = "object",
    ) -> None:
        if max_tokens_field not in ("max_completion_tokens", "max_tokens"):
            raise ConfigurationError(
                f"openai-chat setting max_tokens_field must be 'max_completion_tokens' or 'max_tokens', got {max_tokens_field!r}"
            )
        if named_tool_choice not in ("object", "required"):
            raise ConfigurationError(
                f"openai-chat setting named_tool_choice must be 'object' or 'required', got {named_tool_choice!r}"
            )
        self.max_tokens_field = max_tokens_field
        self.named_tool_choice = named_tool_choice
        #: the server this codec's model talks to (its base URL; set by the model): the
        #: ``reasoning_content`` a server sent goes back only to that server
        self.origin: str | None = None
        #: prompt caching: ``True`` or a key string sends ``prompt_cache_key`` (see
        #: :func:`~toolwire_openai._common.prompt_cache_key`)
        self.cache = cache

    @property
    def _to_deepseek(self) -> bool:
        """Whether this codec's server (:attr:`origin`) is DeepSeek's API."""
        return self.origin is not None and hosted_server({"base_url": self.origin}) == "deepseek"

    # ------------------------------------------------------------------------------- incremental encoding
    @staticmethod
    def concatenates_history(request: ModelRequest) -> bool:
        """Whether ``messages`` is the encoding of a closed prefix of the conversation followed by
        that of the rest (see ``toolwire.adapter``): yes (each message is encoded on its own;
        only ids link them)."""
        return True

    @staticmethod
    def history_lead(request: ModelRequest) -> int:
        """Entries ``messages`` holds whatever the conversation: the system message, if any."""
        return 0 if request.instructions is None else 1

    # ------------------------------------------------------------------------------- tools
    def translate_tool(self, tool: Tool) -> tuple[dict[str, Any], TranslationReport]:
        """``{"type": "function", "function": {name, description, parameters, strict?}}`` and the
        report. ``Tool.strict`` True → the strict transform (``strict: true``), or ``strict:
        false`` with the original schema when it cannot be strict (report says why); False →
        ``strict: false``; None → no ``strict`` key (the API default, non-strict)."""
        if isinstance(tool, ProviderTool):
            tool.check_for(API)  # Chat Completions has no hosted tools: always raises
        parameters, strict, report = strict_parameters(tool, API)
        name = _wire_name(tool.name, report)
        function: dict[str, Any] = {"name": name, "description": tool.model_description(), "parameters": parameters}
        if strict is not None:
            function["strict"] = strict
        function = apply_overrides(function, (tool.provider_data.get(API) or {}).get("function"))
        decl = apply_overrides(
            {"type": "function", "function": function}, (tool.provider_data.get(API) or {}).get("tool")
        )
        return decl, report

    def _tool_from_wire(self, decl: dict[str, Any], at: str = "") -> Tool:
        fn = decl.get("function") or {}
        check_function_decl(_SHAPE, fn, f"{at}/function")
        strict = fn.get("strict") if isinstance(fn.get("strict"), bool) else None
        schema = schema if isinstance(schema := fn.get("parameters"), dict) else {"type": "object", "properties": {}}
        tool = tool_at(
            lambda: Tool(
                fn.get("name", ""),
                fn.get("description") or "",
                copy.deepcopy(schema),
                None,
                strict=strict,
                imported_from=API,
            ),
            f"{at}/function/name",
        )
        canonical_fn, _ = self.translate_tool(tool)
        pd: dict[str, Any] = {}
        f_over = overrides_for(fn, canonical_fn["function"], set())
        if f_over:
            pd["function"] = f_over
        t_over = overrides_for({k: v for k, v in decl.items() if k != "function"}, {"type": "function"}, set())
        if t_over:
            pd["tool"] = t_over
        if pd:
            tool.provider_data[API] = pd
        return tool

    # ------------------------------------------------------------------------------- encode
    def _tool_choice(self, choice: Any) -> Any:
        if choice is None:
            return None
        if isinstance(choice, str):
            if choice in ("auto", "required", "none"):
                return choice
            raise UnsupportedToolChoice(f"tool choice {choice!r} has no Chat Completions form")
        if isinstance(choice, dict) and choice.get("type") == "tool" and isinstance(choice.get("name"), str):
            return {"type": "function", "function": {"name": choice["name"]}}
        raise UnsupportedToolChoice(f"tool choice {choice!r} has no Chat Completions form")

    def _user_messages(self, msg: Message, answered: set[str] | None = None) -> list[dict[str, Any]]:
        """A canonical user message → ``role: tool`` messages (one per result, first, nothing
        between them), then ONE user message with every result image (labelled with its call id),
        then the user's own content. A result for a call id already answered (``answered``,
        shared across the conversation) is left out: each id is answered once."""
        out: list[dict[str, Any]] = []
        result_images: list[dict[str, Any]] = []
        content: list[dict[str, Any]] = []
        for part in msg.parts:
            if isinstance(part, ToolResult):
                if answered is not None:
                    if part.tool_call_id in answered:
                        continue  # a second result for one id (a duplicate-id call): not sent
                    answered.add(part.tool_call_id)
                # rules conversation.tool-result-image-type and conversation.image-url: a note in place of an
                # image OpenAI cannot read or fetch
                part = readable_tool_result(part, IMAGE_MEDIA_TYPES, fetches_image_url)
                images = (
                    [p for p in part.content if isinstance(p, ImagePart)] if not isinstance(part.content, str) else []
                )
                documents = (
                    [p for p in part.content if isinstance(p, DocumentPart)]
                    if not isinstance(part.content, str)
                    else []
                )
                texts = result_text_parts(part)
                # a tool message is text only (ChatCompletionToolMessageParam): a plain-text document's
                # text goes in it, a PDF in the user message after the tool messages (as images do)
                texts += [_document_text(d) for d in documents if d.media_type == "text/plain"]
                pdfs = [d for d in documents if d.media_type != "text/plain"]
                pd = part.provider_data.get(API) or {}
                if isinstance(part.content, str) or not pd.get("content_list"):
                    # one string, also for a result of several text parts: DeepSeek refuses an array
                    # in a tool message ("invalid type: sequence, expected a string"); an array is
                    # kept only for a result imported as one
                    body: Any = "\n".join(texts)
                else:
                    body = [{"type": "text", "text": t} for t in texts]
                if images and not any(t for t in texts):
                    body = "(the result is the image(s) in the next user message)"
                if pdfs:
                    note = (
                        "(the result's image(s) and document(s) are in the next user message)"
                        if images
                        else "(the result's document(s) are in the next user message)"
                    )
                    if isinstance(body, list):
                        body.append({"type": "text", "text": note})
                    elif body and not (images and not any(t for t in texts)):
                        body = f"{body}\n{note}"
                    else:
                        body = (
                            "(the result is the image(s) and document(s) in the next user message)" if images else note
                        )
                tool_msg = {"role": "tool", "tool_call_id": part.tool_call_id, "content": body}
                out.append(apply_overrides(tool_msg, pd.get("message")))
                if images:
                    label = f"{IMAGE_LABEL}{part.tool_call_id}"  # (profile: relabelled when the id is rewritten)
                    if part.name:
                        label += f" ({part.name})"
                    result_images.append({"type": "text", "text": label + ":"})
                    result_images.extend(_image_to_wire(i) for i in images)
                if pdfs:
                    label = f"{DOCUMENT_LABEL}{part.tool_call_id}"  # (profile: relabelled when the id is rewritten)
                    if part.name:
                        label += f" ({part.name})"
                    result_images.append({"type": "text", "text": label + ":"})
                    result_images.extend(_document_to_wire(d) for d in pdfs)
            elif isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                content.append(_image_to_wire(part))
            elif isinstance(part, DocumentPart):
                content.append(_document_to_wire(part))
            elif isinstance(part, ProviderToolPart):
                if part.provider == API and part.kind != "metadata":
                    content.append(copy.deepcopy(part.raw))  # a file or audio part imported: as it came
            # reasoning / tool calls in a user message have no Chat form: dropped
        if result_images:
            out.append({"role": "user", "content": result_images})
        if content:
            pd = msg.provider_data.get(API) or {}
            role = pd.get("role", "user")
            marked = marked_system_role(msg, API) if msg.provider_data and "role" not in pd else None
            if marked is not None and _keeps_system(msg, marked[1]):
                role = marked[1]  # another API's system / developer message, kept as Chat's own
            if len(content) == 1 and content[0]["type"] == "text" and not pd.get("content_list"):
                user: dict[str, Any] = {"role": role, "content": content[0]["text"]}
            else:
                user = {"role": role, "content": content}
            out.append(apply_overrides(user, pd.get("message")))
        return out

    def _assistant_message(self, msg: Message, sent: set[str] | None = None) -> dict[str, Any] | None:
        """An assistant message. A call whose id was already sent (``sent``, shared across the
        conversation: a duplicate id in one response, marked invalid at decoding) is left out."""
        texts: list[TextPart] = []
        calls: list[ToolCall] = []
        thoughts: list[str] = []
        audio_id: str | None = None
        for p in msg.parts:
            if type(p) is ToolCall or (type(p) is not TextPart and isinstance(p, ToolCall)):
                calls.append(p)
            elif isinstance(p, TextPart):
                spoken = (p.provider_data.get(API) or _EMPTY).get("audio") if p.provider_data else None
                if isinstance(spoken, dict) and _audio_kept(spoken):
                    audio_id = spoken["id"]  # the audio itself goes back by its id, not its transcript
                else:
                    texts.append(p)
            elif isinstance(p, ImagePart):  # images only in user messages: said in text instead
                texts.append(TextPart(ASSISTANT_IMAGE_NOTE))
            elif (
                type(p) is ReasoningPart
                and p.provider == API
                and p.text
                and self.origin is not None
                and (own := p.provider_data.get(API) or _EMPTY).get("field") == "reasoning_content"
                and own.get("origin") == self.origin
            ):
                thoughts.append(p.text)  # back only to the server that sent it (others refuse the field)
        if sent is not None and calls:
            calls = unique_wire_calls(calls, sent)
        pd = msg.provider_data.get(API) or _EMPTY
        out: dict[str, Any] = {"role": "assistant"}
        if texts:
            if len(texts) == 1 and not pd.get("content_list"):
                out["content"] = texts[0].text
            else:
                out["content"] = [{"type": "text", "text": t.text} for t in texts]
        elif pd.get("null_content"):
            out["content"] = None
        elif audio_id is not None:
            out["content"] = None
        elif not calls:
            out["content"] = ""
        if audio_id is not None:
            out["audio"] = {"id": audio_id}
        if calls:
            wire_calls = []
            for c in calls:
                wc = {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_text(c)}}
                cpd = c.provider_data.get(API) if c.provider_data else None
                if cpd and "replay" in cpd:
                    self._replayed(wc, cpd)
                wire_calls.append(apply_overrides(wc, cpd.get("call")) if cpd else wc)
            out["tool_calls"] = wire_calls
            if thoughts:
                # a server that sent its reasoning as reasoning_content (DeepSeek, Qwen, Kimi,
                # llama.cpp) needs it back on a tool-call turn: "the reasoning_content must be fully
                # passed back to the API in all subsequent requests ... the API will return a 400
                # error" (api-docs.deepseek.com guides/thinking_mode, Tool Calls); without calls it
                # is ignored there, so it is not sent (but to DeepSeek, below)
                out["reasoning_content"] = "".join(thoughts)
        elif thoughts and self._to_deepseek:
            # DeepSeek asks for the reasoning of every answer between two user messages with a
            # tool call, and ignores it elsewhere (rule openai-chat.server.deepseek-reasoning-content)
            out["reasoning_content"] = "".join(thoughts)
        if pd and "replay" in pd:
            self._replayed(out, pd)
        return apply_overrides(out, pd.get("message")) if pd else out

    def _replayed(self, wire: dict[str, Any], pd: dict[str, Any]) -> None:
        """Put back into ``wire`` (an assistant message or one of its tool calls) the fields the
        server sent on it to have them back (``pd["replay"]``: OpenRouter's ``reasoning_details``,
        the ``extra_content`` carrying a Gemini ``thought_signature``), when this request goes to
        that same server (``pd["origin"]``): other servers refuse fields they do not know."""
        replay = pd.get("replay")
        if isinstance(replay, dict) and self.origin is not None and pd.get("origin") == self.origin:
            for key, value in replay.items():
                wire.setdefault(key, copy.deepcopy(value))

    @staticmethod
    def setting_changes(request: ModelRequest, body: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The changes :meth:`encode_request` made to ``request``'s settings, for the preflight
        report (``body`` as repaired): a ``tool_choice`` of the settings (``extra_body``) replaced
        by the request's own tool choice (rule ``openai-chat.request.tool-choice-setting``,
        lossy); an ``allowed_tools`` choice in mode ``auto`` is kept under tool choice
        ``"auto"``."""
        given = (request.settings or {}).get("tool_choice")
        sent = body.get("tool_choice")
        return tool_choice_setting_change(request, f"{API}.request.tool-choice-setting", "/tool_choice", given, sent)

    def left_out_parts(self, request: ModelRequest, messages: Any, offset: int) -> list[tuple[Any, ...]]:
        """The parts of ``messages`` (numbered from ``offset``) :meth:`encode_request` does not
        send as given, for the preflight report: images of assistant messages, sent as a note
        (rule ``openai-chat.conversation.assistant-image``; an assistant message's content takes
        text and refusal parts only, ``ChatCompletionAssistantMessageParam``), and images tools
        returned in a format OpenAI does not read, sent as a note (rule
        ``openai-chat.conversation.tool-result-image-type``); reasoning another server sent
        (rule ``openai-chat.conversation.reasoning-left-out``); results answering a call already
        answered and calls repeating an id in one response (each call is answered once:
        :func:`toolwire.turns.duplicate_changes`); and results sent right after their calls
        although assistant messages came between them (not lossy, rule
        ``conversation.result-moved``: Chat keeps each assistant message apart, and each one's
        ``role: tool`` messages must follow it); and another API's system or developer message
        inside the conversation that holds more than text, sent as a user message (rule
        ``conversation.system-message-as-user``; one of text only is sent as Chat's own)."""
        return (
            moved_result_changes(messages, offset, merged_turns=False)
            + assistant_image_changes(messages, offset, API)
            + tool_image_changes(messages, offset, API, IMAGE_MEDIA_TYPES, fetches_image_url)
            + self._other_server_reasoning(messages, offset)
            + duplicate_changes(messages, offset)
            + system_as_user_changes(messages, offset, API, _keeps_system)
        )

    def _other_server_reasoning(self, messages: Any, offset: int) -> list[tuple[Any, ...]]:
        """The lossy changes for reasoning parts of this API that another server sent (their
        recorded ``origin`` is not this codec's): :meth:`_assistant_message` sends reasoning back
        only to the server it came from."""
        out: list[tuple[Any, ...]] = []
        for i, m in enumerate(messages, offset):
            if m.role != "assistant":
                continue
            for j, p in enumerate(m.parts):
                if type(p) is not ReasoningPart or p.provider != API or not p.text:
                    continue
                origin = (p.provider_data.get(API) or _EMPTY).get("origin")
                if origin is not None and origin != self.origin:
                    out.append(
                        (
                            "openai-chat.conversation.reasoning-left-out",
                            f"/messages/{i}/parts/{j}",
                            f"reasoning sent by another server ({origin}) was left out: it goes back only to the "
                            "server that sent it",
                            None,
                            None,
                        )
                    )
        return out

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        """Canonical request → ``/chat/completions`` body.

        - ``instructions`` → a leading ``system`` message (``settings["instructions_role"] =
          "developer"`` sends it as ``developer``);
        - user messages → ``role: tool`` messages for their tool results (one per call, in order,
          directly after the assistant message), then one user message holding every image of
          those results, then the user's own text/images; error results as ``"Error: <text>"``;
        - assistant messages → ``content`` (text) + ``tool_calls`` (arguments re-sent as the raw
          text the model produced when it is still valid, else compact UTF-8 JSON; an invalid
          call as ``"{}"``); reasoning is dropped (OpenAI's Chat takes no reasoning input), except
          the ``reasoning_content`` a compatible server sent with tool calls, which goes back on
          that assistant message (DeepSeek refuses a tool-call turn without it);
        - ``tools`` → :meth:`translate_tool`; ``tool_choice`` → ``"auto"``/``"required"``/
          ``"none"``/``{"type": "function", "function": {"name": N}}``; ``parallel_tool_calls``;
          ``max_tokens`` → ``max_completion_tokens`` (see the constructor); ``temperature``;
          ``thinking["effort"]`` → ``reasoning_effort``; ``stream`` (with
          ``stream_options.include_usage`` unless the settings give ``stream_options``; a
          ``stream_options=None`` setting sends none);
        - tool call ids: each id is sent once and answered once; a later call repeating an id
          (decoded as invalid, see :meth:`decode_response`) is left out together with its result;
        - ``settings``: copied as body fields (not overriding the fields above), except
          :data:`CODEC_KEYS`.

        Raises :class:`UnsupportedToolChoice` for a tool choice Chat cannot express.
        """
        request, _ = answer_request(request)  # unanswered calls: answered "not run", as on every API
        settings = request.settings or {}
        messages: list[dict[str, Any]] = []
        if request.instructions is not None:
            messages.append({"role": settings.get("instructions_role", "system"), "content": request.instructions})
        sent: set[str] = set()
        answered: set[str] = set()
        # each assistant message is its own turn on Chat, its role:tool messages right after it
        # ("An assistant message with 'tool_calls' must be followed by tool messages responding
        # to each 'tool_call_id'"): results placed after a later assistant message move up
        ordered, _ = place_late_results(request.messages, merged_turns=False)
        for msg in ordered:
            if msg.role == "assistant":
                m = self._assistant_message(msg, sent)
                if m is not None:
                    messages.append(m)
            else:
                messages.extend(self._user_messages(msg, answered))
        body: dict[str, Any] = {"model": request.model, "messages": messages}
        tools = []
        choice = self._tool_choice(request.tool_choice)
        if choice == "auto" and _auto_choice(settings.get("tool_choice")):
            # the setting's own automatic choice (allowed_tools in mode auto) is what "auto" asks
            # for: kept (rule openai-chat.request.tool-choice-setting)
            choice = copied(settings["tool_choice"])
        forced = request.tool_choice.get("name") if isinstance(request.tool_choice, dict) else None
        declared = request.tools
        if forced is not None and self.named_tool_choice == "required":
            choice = "required"  # with only the forced tool declared: the server can call nothing else
            declared = [t for t in request.tools if t.name == forced]
        memo = DeclarationMemo.of(self)
        same = memo.unchanged_list(declared)
        for i, t in enumerate(declared):
            decl = same[i] if same is not None else memo.declaration(t, self.translate_tool)
            decl["function"]["name"] = t.name  # the whole set is renamed below, collision-safely, history included
            tools.append(decl)
        if same is None:
            memo.remember_list(declared)
        for pos, decl in settings.get("other_tools") or []:
            # a tool kept from an imported request (a custom tool): one that is not an object or
            # has no type is refused here, as is a function tool whose function is not an object
            # (ChatCompletionFunctionToolParam.function: Required[FunctionDefinition])
            check_imported_provider_tool(API, decl, f"/tools/{pos}")
            if isinstance(decl, dict) and decl.get("type") == "function":
                raise ConfigurationError(
                    f"the {API} function tool at /tools/{pos} of the imported request has a function that is not "
                    "an object (name, description, parameters), which the API refuses, so the request was not "
                    "sent. Correct or remove it in the request you imported."
                )
            tools.insert(pos, copy.deepcopy(decl))
        if tools:
            body["tools"] = tools
        if choice is not None:
            body["tool_choice"] = choice
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_tokens is not None:
            body[self.max_tokens_field] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        thinking = request.thinking
        if thinking:
            effort = thinking.get("effort")
            if self._to_deepseek and isinstance(effort, str):
                effort = effort.strip().lower()  # DeepSeek's efforts are lower case, as OpenAI's
            if self._to_deepseek and "thinking" not in settings:
                # DeepSeek's own switch (api-docs.deepseek.com guides/thinking_mode: {"thinking":
                # {"type": "enabled/disabled"}} in the OpenAI format; effort "none" turns thinking
                # off in its Responses format, so it is sent as the switch here)
                kind = thinking.get("type")
                if effort == "none":
                    kind, effort = "disabled", None
                if kind is not None:
                    body["thinking"] = {"type": kind}
            elif self._to_deepseek and effort == "none":
                effort = (
                    None  # the caller's own thinking field decides; "none" is no effort DeepSeek's OpenAI format takes
                )
            if effort is not None:
                body["reasoning_effort"] = effort
        body["stream"] = bool(request.stream)
        if request.stream and "stream_options" not in settings:
            body["stream_options"] = {"include_usage": True}
        for key, value in settings.items():
            if key in CODEC_KEYS or key in body:
                continue
            if key == "stream_options" and value is None:
                continue  # stream_options=None: none sent (a server that refuses the field; Mistral's API by its host: preflight rule server.mistral-stream-options)
            body[key] = copied(value)
        naming_profile(API).repair_names(body)  # tools named as OpenAI refuses: renamed everywhere
        if "prompt_cache_key" not in body:
            key = prompt_cache_key(self.cache, body)
            if key is not None:
                body["prompt_cache_key"] = key
        return body

    # ------------------------------------------------------------------------------- decode
    def _calls_from_message(self, message: dict[str, Any], cut_off: bool, pointer: str, synth: Any) -> list[ToolCall]:
        calls: list[ToolCall] = []
        raw_calls = message.get("tool_calls")
        if not raw_calls:
            if raw_calls is not None and type(raw_calls) is not list:
                _SHAPE.opt_list(raw_calls, f"{pointer}/tool_calls")  # raises: not an array
            legacy = message.get("function_call")
            if isinstance(legacy, dict) and isinstance(legacy.get("name"), str) and legacy["name"]:
                # the deprecated single function call (finish_reason "function_call"; still sent by
                # some compatible servers): one tool call, with an id of toolwire's own
                raw_calls = [{"type": "function", "function": legacy}]
            else:
                return calls
        for i, tc in enumerate(_SHAPE.opt_list(raw_calls, f"{pointer}/tool_calls")):
            if type(tc) is not dict:
                tc = _SHAPE.obj(tc, f"{pointer}/tool_calls/{i}")
            raw_id = tc.get("id")
            synthesized = not (isinstance(raw_id, str) and raw_id)
            call_id: str = synth(i) if synthesized else raw_id  # type: ignore[assignment]
            if tc.get("type") == "custom":
                custom = _SHAPE.opt_obj(tc.get("custom"), f"{pointer}/tool_calls/{i}/custom")
                name, _ = tool_name(custom.get("name"))
                raw_input = custom.get("input")
                calls.append(
                    ToolCall(
                        id=call_id,
                        name=name,
                        arguments=None,
                        raw_arguments=raw_input if isinstance(raw_input, str) else None,
                        invalid="custom (free-text) tool calls are not supported by toolwire; declare a function tool",
                        id_synthesized=synthesized,
                    )
                )
                continue
            fn = tc.get("function")
            if type(fn) is not dict:
                fn = _SHAPE.opt_obj(fn, f"{pointer}/tool_calls/{i}/function")
            raw = fn.get("arguments")
            if raw is not None and not isinstance(raw, str):  # some compatible servers send an object
                raw_text = None
                args, invalid = (
                    (dict(raw), None)
                    if isinstance(raw, dict)
                    else (None, f"arguments must be a JSON object, got {type(raw).__name__}")
                )
            else:
                raw_text = raw
                args, invalid = parse_arguments(raw)
            name = fn.get("name")
            name_invalid = None
            if not (type(name) is str and name):
                name, name_invalid = tool_name(name)
            # positional, in ToolCall's field order (id, name, arguments, raw_arguments, invalid,
            # incomplete, id_synthesized): half the cost of keywords
            call = ToolCall(call_id, name, args, raw_text, name_invalid or invalid, False, synthesized)
            extra = tc.get("extra_content")
            if isinstance(extra, dict) and extra:
                call.provider_data = {API: _replay({"extra_content": extra}, self.origin)}
            if cut_off and invalid is not None:
                call.incomplete = True
                call.invalid = f"cut off by the output-token limit (finish_reason 'length'): {invalid}"
            calls.append(call)
        return calls

    @_SHAPE.guarded("the Chat Completions response body")
    def decode_response(self, body: dict[str, Any], request: ModelRequest | None = None) -> Response:
        """``ChatCompletion`` JSON → :class:`Response`.

        Uses ``choices[0]`` (toolwire never asks for ``n`` > 1). Parts in order: reasoning text
        that compatible servers send (``reasoning_content`` / ``reasoning``) as a
        ``ReasoningPart(provider="openai-chat")``, ``content`` (or ``refusal``) as text, then
        ``tool_calls``: arguments ``""``/``"null"``/``"{}"`` → ``{}``; text that does not parse to
        an object → an invalid call with the raw text and the parse error; with
        ``finish_reason: "length"`` such a call is also ``incomplete`` (never run).
        ``finish_reason`` → :data:`FINISH_REASONS` (kept raw in ``vendor_stop_reason``); a
        ``refusal`` makes the stop reason ``refusal``; usage per :func:`chat_usage` (a counter
        that is not a non-negative integer, e.g. ``"12"``, is left ``None``).

        Tool calls: a call without an ``id`` gets ``call_tw<hash>_<position>``
        (``id_synthesized=True``; the hash covers the response id, or the body when it has none,
        and the request's message count, so it collides neither with ``call_0``-style vendor ids
        nor with the same body on another turn); a call whose ``name`` is missing or not a string
        is kept with ``invalid`` = :data:`~toolwire_openai._common.NAME_INVALID`; a later call
        repeating an earlier call's id is kept with ``invalid="duplicate tool call id <id> in one
        response"`` (never run; the encoder sends the id once).

        Raises :class:`~toolwire.errors.ResponseDecodeError` (``api="openai-chat"``, JSON pointer
        of the field) for a body that is not an object, ``choices``/``message``/``tool_calls``/
        ``function`` of the wrong JSON type, or ``finish_reason``/``content``/``refusal``/``id``/
        ``model`` that is not a string, or a body without ``choices`` (a required field: ``{}`` is
        not an empty answer). An object with an ``error`` and no ``choices`` (an error sent with
        status 200, as OpenRouter does) raises :class:`ProviderError` with the vendor's message.
        """
        body = _SHAPE.obj(body, "")
        err = error_in_body(API, body, ("choices",), TRANSIENT_ERROR_CODES)
        if err is not None:
            raise err
        if "choices" not in body:
            raise _SHAPE.error("/choices", "the body has no choices array: it is not a chat completion")
        response_id = _SHAPE.opt_str(body.get("id"), "/id")
        model = _SHAPE.opt_str(body.get("model"), "/model")
        choices = _SHAPE.opt_list(body.get("choices"), "/choices")
        if not choices:
            # ChatCompletion.choices is a required list (openai SDK type); an empty or null one
            # carries no answer at all, not an empty end_turn answer.
            raise _SHAPE.error("/choices", "the response has no choices: it carries no answer")
        choice = _SHAPE.obj(choices[0], "/choices/0")
        message = _SHAPE.opt_obj(choice.get("message"), "/choices/0/message")
        finish = _SHAPE.opt_str(choice.get("finish_reason"), "/choices/0/finish_reason")
        failed = _choice_error(choice)
        if failed is not None:
            raise failed
        parts: list[Any] = []
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            field = "reasoning_content" if message.get("reasoning_content") else "reasoning"
            pd: dict[str, Any] = {"field": field}
            if self.origin is not None:
                pd["origin"] = self.origin
            parts.append(ReasoningPart(text=reasoning, provider=API, provider_data={API: pd}))
        content = message.get("content")
        if isinstance(content, str):
            if content:
                parts.append(TextPart(content))
        elif isinstance(content, list):
            for kind, text in _content_pieces(content, "/choices/0/message/content"):
                if kind == "thinking":
                    parts.append(ReasoningPart(text=text, provider=API))
                else:
                    parts.append(TextPart(text))
        elif content is not None:
            raise _SHAPE.bad("/choices/0/message/content", "a string, an array or null", content)
        refusal = _SHAPE.opt_str(message.get("refusal"), "/choices/0/message/refusal")
        if refusal:
            parts.append(TextPart(refusal, provider_data={API: {"refusal": True}}))
        audio = message.get("audio")
        if isinstance(audio, dict) and isinstance(audio.get("transcript"), str) and audio["transcript"]:
            # an audio answer (modalities ["text", "audio"]): its transcript is the text; the id
            # goes back on the assistant message while the server keeps the audio
            # (ChatCompletionAudio.expires_at; ChatCompletionAssistantMessageParam.audio {id})
            kept = {k: audio[k] for k in ("id", "expires_at") if isinstance(audio.get(k), (str, int))}
            parts.append(TextPart(audio["transcript"], provider_data={API: {"audio": kept}}))
        calls = self._calls_from_message(
            message,
            FINISH_REASONS.get(finish or "") == "max_tokens",
            "/choices/0/message",
            lambda pos: synth_call_id(response_id or body, request, pos),
        )
        stop = FINISH_REASONS.get(finish or "", "end_turn")
        if isinstance(refusal, str) and refusal and stop == "end_turn":
            stop = "refusal"
        if calls:
            parts.extend(calls)
            if stop == "end_turn":
                # a forced (named) tool choice ends with finish_reason "stop", and some compatible
                # servers always say "stop": calls to run mean tool_use whatever the vendor wrote
                stop = "tool_use"
        elif stop == "tool_use":
            stop = "end_turn"  # "tool_calls" with no call (vLLM with tool_choice required): nothing to run
        # positional, in Response's field order (parts, stop_reason, vendor_stop_reason, usage,
        # model, response_id, provider): half the cost of keywords
        response = Response(
            parts, cast(StopReason, stop), finish, chat_usage(body.get("usage")), model, response_id, API
        )
        replay: dict[str, Any] = {k: v for k in _REPLAYED_MESSAGE_FIELDS if isinstance(v := message.get(k), list) and v}
        if message.get("reasoning_content") == "" and not _parts_have_reasoning(parts):
            # DeepSeek's thinking mode sometimes reasons nothing and says so with an empty
            # reasoning_content, which a later request must carry back on that turn
            # (rule openai-chat.server.deepseek-reasoning-content)
            replay["reasoning_content"] = ""
        if replay:
            response.provider_data = {API: _replay(replay, self.origin)}
        if "service_tier" in body:
            record_price_context(response, body, API)
        if body.get("moderation") is not None:
            # the moderation results a request's moderation setting asked for
            # (openai.types.chat.ChatCompletion.moderation): kept, never sent back
            response.provider_data.setdefault(API, {})["moderation"] = body["moderation"]
        if isinstance(choice.get("logprobs"), dict):
            # what the logprobs setting asks for (openai.types.chat.chat_completion.ChoiceLogprobs:
            # the content and refusal tokens with their log probabilities): kept, never sent back
            response.provider_data.setdefault(API, {})["logprobs"] = choice["logprobs"]
        if calls:  # without calls these passes have nothing to do
            mark_declared_parallel(calls, request)
            calls = split_parallel_calls(response, calls) or calls
            real_call_names(response, request, calls)
            reissue_shared_ids(calls)
            check_tool_calls(response, calls)
        return response

    def decode_stream(
        self, events: Iterable[dict[str, Any]], request: ModelRequest | None = None
    ) -> Iterator[StreamEvent]:
        """``ChatCompletionChunk`` dicts (SSE ``data`` objects, ``[DONE]`` left out) → canonical
        stream events; see :class:`ChatStreamDecoder`. Pass the assembled response through
        :func:`~toolwire.wire.reissue_shared_ids` (distinct calls sharing one id get
        ids of their own) and :func:`~toolwire_openai._common.check_tool_calls` (unnamed and
        duplicate calls marked) as :meth:`decode_response` does (the transport does)."""
        dec = ChatStreamDecoder(request, self.origin)
        for chunk in events:
            yield from dec.feed(chunk)
        yield from dec.finish()

    @_SHAPE.guarded("the Chat Completions request body")
    def decode_request(self, body: dict[str, Any]) -> ModelRequest:
        """A ``/chat/completions`` request body → :class:`ModelRequest` (import a history).

        - the first message, when ``system``/``developer`` → ``instructions`` (its role kept as
          ``settings["instructions_role"]`` when it is ``developer``); later system/developer
          messages → user messages whose ``provider_data`` keeps the role;
        - ``tool`` messages → :class:`ToolResult` parts of one user message (consecutive ones
          together); a content starting ``"Error: "`` (how this codec writes an error result,
          the API having no flag) becomes ``is_error=True`` with the prefix removed (exactly
          ``"Error:"``: an error result without text); the user message the encoder writes after
          them with the results' images and PDFs (each group headed by toolwire's label naming a
          call id of those tool messages) is put back into those results (text, then images, then
          PDFs; the tool's name from the label; the tool text's note pointing at the message
          removed), any other user message staying one; ``user`` → text/image parts; ``assistant`` → text + tool calls (arguments
          parsed, the raw text kept so it is re-sent byte-exact; arguments given as a JSON object
          are the call's arguments, sent back as their JSON text; another JSON type there makes
          the call invalid);
        - ``tools`` → :class:`Tool` (``strict`` kept three-valued; wire details the canonical
          encoding would not reproduce, such as an absent ``description``, kept in
          ``Tool.provider_data``); a tool name outside toolwire's rule raises
          :class:`~toolwire.errors.ToolNameError`;
        - ``tool_choice`` → canonical (a form toolwire cannot express, e.g. ``allowed_tools``,
          stays in ``settings`` verbatim); ``max_completion_tokens`` → ``max_tokens``;
          ``reasoning_effort`` → ``thinking={"effort": ...}``; ``parallel_tool_calls``,
          ``temperature``, ``stream``;
        - every other field (``n``, ``stream_options``, ``store``, ``metadata``, ``seed``,
          ``max_tokens``, ...) → ``settings`` under its wire name.

        A ``messages`` entry whose ``role`` is empty (``""``) or not a string is left out (the API
        refuses it); one without a role is read as a user message.

        Raises :class:`~toolwire.errors.ResponseDecodeError` (a ``ValueError``) for a body that is
        not an object, ``messages``/``tools`` that are not arrays, a ``messages`` entry that is
        not an object, a function tool's ``description`` / ``parameters`` / ``strict`` of the
        wrong JSON type, or a field of a JSON kind the SDK's ``CompletionCreateParamsBase`` does
        not allow (``tool_choice: 5``, ``metadata: "u1"``), also inside messages and settings
        (a tool message's ``content: 5`` or ``tool_call_id: 5``, ``tool_calls: 5``, a
        ``tool_choice`` naming the function 5, a call's ``arguments: null``; only the kind is
        checked: :func:`~toolwire_openai._common.check_import_types`); the error's ``pointer``
        names the field. A tool name of the
        wrong type or outside the rule raises :class:`~toolwire.errors.ToolNameError` naming the
        declaration's place. A content part of a user or tool message without a ``type`` raises it too
        (pointer ``/messages/<i>/content/<j>/type``; the API refuses it).
        """
        body = _SHAPE.obj(body, "")
        from openai.types.chat.completion_create_params import CompletionCreateParamsBase as params

        check_import_types(_SHAPE, body, params, ("tools",), _IMPORT_ALSO)
        settings: dict[str, Any] = {k: copy.deepcopy(v) for k, v in body.items() if k not in _CANONICAL_FIELDS}
        wire_msgs = list(_SHAPE.opt_list(body.get("messages"), "/messages"))
        for mi, wm in enumerate(wire_msgs):
            # (ChatCompletionMessageParam: an object; one of another JSON type was left out)
            _SHAPE.obj(wm, f"/messages/{mi}")
        position = {id(wm): i for i, wm in enumerate(wire_msgs)}  # for the pointers of errors
        instructions = None
        if (
            wire_msgs
            and isinstance(wire_msgs[0], dict)
            and wire_msgs[0].get("role") in ("system", "developer")
            and isinstance(wire_msgs[0].get("content"), str)
            and set(wire_msgs[0]) == {"role", "content"}
        ):
            first = wire_msgs.pop(0)
            instructions = first["content"]
            if first["role"] != "system":
                settings["instructions_role"] = first["role"]
        messages: list[Message] = []
        run: list[tuple[ToolResult, dict[str, Any]]] = []  # the tool messages just read, with their wire form
        for wm in wire_msgs:
            if not isinstance(wm, dict):
                continue
            role = wm.get("role")
            # a role that is empty or not a string is no message's: refused, as an entry that is not
            # an object is (it was dropped, its text lost). ChatCompletionMessageParam (openai SDK
            # type) is told apart by its literal ``role`` ("system", "developer", "user",
            # "assistant", "tool", "function")
            check_discriminator(_SHAPE, wm, "role", f"/messages/{position[id(wm)]}", "message")
            if role is None:
                # read as a user message: checked as one (ChatCompletionUserMessageParam, openai SDK)
                from openai.types.chat import ChatCompletionUserMessageParam

                check_as_user_message(_SHAPE, wm, ChatCompletionUserMessageParam, ("messages", position[id(wm)]))
            after_run, run = run, []
            if role == "tool":
                run = after_run
                messages_tail = messages[-1] if messages else None
                untyped = untyped_part(wm.get("content"))
                if untyped is not None:
                    # ChatCompletionToolMessageParam.content: Iterable[ChatCompletionContentPartTextParam]
                    # (openai SDK type), whose ``type`` is a required literal; kept, it went back as
                    # it came, to a refusal (as a user part without a type: see _user_from_wire)
                    at = f"/messages/{position[id(wm)]}/content/{untyped}"
                    raise ResponseDecodeError(API, f"the content part at {at} has no type", f"{at}/type")
                result = self._result_from_wire(wm)
                run.append((result, wm))
                if (
                    messages_tail is not None
                    and messages_tail.role == "user"
                    and messages_tail.provider_data.get(API, {}).get("tool_results")
                ):
                    messages_tail.parts.append(result)
                else:
                    messages.append(Message("user", [result], {API: {"tool_results": True}}))
            elif role == "assistant":
                messages.append(self._assistant_from_wire(wm, f"/messages/{position[id(wm)]}"))
            elif not (after_run and self._fold_result_media(wm, after_run)):
                messages.append(self._user_from_wire(wm, f"/messages/{position[id(wm)]}"))
        for m in messages:  # the grouping marker is only needed while decoding
            if m.provider_data.get(API, {}).pop("tool_results", None) and not m.provider_data[API]:
                m.provider_data.pop(API)
        tools: list[Tool] = []
        other: list[list[Any]] = []
        for pos, t in enumerate(_SHAPE.opt_list(body.get("tools"), "/tools")):
            if isinstance(t, dict) and t.get("type", "function") == "function" and isinstance(t.get("function"), dict):
                tools.append(self._tool_from_wire(t, f"/tools/{pos}"))
            else:  # custom (free-text) tools: kept verbatim at their position (settings["other_tools"])
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
        effort = body.get("reasoning_effort")
        return ModelRequest(
            model=body.get("model", ""),
            messages=messages,
            instructions=instructions,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=body.get("parallel_tool_calls"),
            max_tokens=body.get("max_completion_tokens"),
            temperature=body.get("temperature"),
            stream=bool(body.get("stream", False)),
            thinking={"effort": effort} if effort is not None else None,
            settings=settings,
        )

    def _result_from_wire(self, wm: dict[str, Any]) -> ToolResult:
        content = wm.get("content")
        if isinstance(content, list):
            parts: Any = [
                TextPart(i.get("text", "")) for i in content if isinstance(i, dict) and i.get("type") == "text"
            ]
        else:
            parts = content if isinstance(content, str) else ("" if content is None else str(content))
        result = ToolResult(tool_call_id=wm.get("tool_call_id", ""), content=parts)
        mark_error(result)
        self._result_overrides(result, wm)
        return result

    def _result_overrides(self, result: ToolResult, wm: dict[str, Any]) -> None:
        """Record in ``result.provider_data`` how the tool message ``wm`` differs from the one
        :meth:`_user_messages` writes for ``result`` (so re-encoding gives ``wm`` back)."""
        result.provider_data.pop(API, None)
        encoded = self._user_messages(Message("user", [result]))[0]
        over = overrides_for(wm, encoded, set())
        if over:
            result.provider_data[API] = {"message": over}

    def _fold_result_media(self, wm: dict[str, Any], run: list[tuple[ToolResult, dict[str, Any]]]) -> bool:
        """Put back into the results of ``run`` (the tool messages just decoded, with their wire
        form) the images and PDFs :meth:`_user_messages` sent in the user message ``wm`` after
        them: a message holding only, per result, toolwire's label (:data:`IMAGE_LABEL` or
        :data:`DOCUMENT_LABEL`, the call id of a result of ``run``, the tool's name in brackets
        when known, a colon) followed by its images (``image_url`` parts) or PDFs (``file`` parts).
        The note the tool text got in their place is removed. ``False`` (nothing changed) for
        any other message: a user message from another producer stays a user message."""
        content = wm.get("content")
        if set(wm) != {"role", "content"} or wm.get("role") != "user" or not isinstance(content, list):
            return False
        by_id = {r.tool_call_id: r for r, _ in run}
        groups: list[tuple[str, str, str | None, list[Any]]] = []  # (label, call id, tool name, parts)
        for item in content:
            if not isinstance(item, dict):
                return False
            text = item.get("text") if item.get("type") == "text" and set(item) == {"type", "text"} else None
            if isinstance(text, str):
                head = _result_label(text, by_id)
                if head is None or any(g[:2] == head[:2] for g in groups) or (groups and not groups[-1][3]):
                    return False
                groups.append((head[0], head[1], head[2], []))
                continue
            if not groups:
                return False
            if (
                groups[-1][0] == IMAGE_LABEL
                and item.get("type") == "image_url"
                and isinstance(item.get("image_url"), dict)
            ):
                groups[-1][3].append(_image_from_wire(item))
            elif groups[-1][0] == DOCUMENT_LABEL and (doc := _document_from_wire(item)) is not None:
                groups[-1][3].append(doc)
            else:
                return False
        if not groups or not groups[-1][3]:
            return False
        # the media of each result, images before documents (the order the encoder writes them)
        media: dict[str, tuple[list[ImagePart], list[DocumentPart], str | None]] = {}
        for label, call_id, name, parts in groups:
            images, documents, known = media.get(call_id, ([], [], None))
            if label == IMAGE_LABEL:
                images = images + parts
            else:
                documents = documents + parts
            if known is not None and name is not None and known != name:
                return False
            media[call_id] = (images, documents, name if name is not None else known)
        folded: list[tuple[ToolResult, ToolResult, dict[str, Any]]] = []
        for result, twm in run:
            if result.tool_call_id not in media:
                continue
            images, documents, name = media.pop(result.tool_call_id)
            if result.name is not None and name is not None and result.name != name:
                return False
            is_error = result.is_error
            if is_error and result.content == "" and not documents:
                texts: list[TextPart] | None = []  # an error result of images only: "Error:" alone
            else:
                texts = _without_media_note(result.content, bool(images), bool(documents))
            if texts is None:
                return False
            if texts == [TextPart(ERROR_PREFIX.strip())] and not is_error:
                texts, is_error = [], True  # an error result of media only: "Error:" then the note
            new = ToolResult(
                tool_call_id=result.tool_call_id,
                content=[*texts, *images, *documents],
                is_error=is_error,
                name=name if name is not None else result.name,
            )
            folded.append((result, new, twm))
        if media:
            return False  # a label for a call id twice in the run, a result not folded
        # only a message the folded results give back exactly (labels, order, parts): anything
        # else is left as it came
        replaced = {id(r): n for r, n, _ in folded}
        encoded = self._user_messages(Message("user", [replaced.get(id(r), r) for r, _ in run]))
        if not encoded or encoded[-1] != _named_files(wm):
            return False
        for result, new, twm in folded:
            self._result_overrides(new, twm)
            result.content, result.is_error, result.name = new.content, new.is_error, new.name
            result.provider_data = new.provider_data
        return True

    def _user_from_wire(self, wm: dict[str, Any], at: str) -> Message:
        """A user (or system, developer) message at JSON pointer ``at``; raises
        :class:`ResponseDecodeError` for a content part without a ``type``."""
        content = wm.get("content")
        parts: list[Any] = []
        pd: dict[str, Any] = {}
        if wm.get("role") not in ("user", None):
            pd["role"] = wm.get("role")
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif isinstance(content, list):
            for pi, item in enumerate(content):
                if not isinstance(item, dict):
                    continue  # not a content part (the API refuses it: its ``type`` is a literal)
                check_discriminator(_SHAPE, item, "type", f"{at}/content/{pi}", "content part")
                if item.get("type") is None:
                    # kept whole, it went back as it came and the API refused the request: "Missing
                    # required parameter: 'messages[1].content[0].type'." (HTTP 400, a message
                    # object put in a content list: crewAI cassette test_custom_llm_within_crew);
                    # every ChatCompletionContentPartParam (openai SDK type) has a required literal
                    # ``type``. Which part was meant cannot be told: refused, as Anthropic's
                    # import refuses a content block without a type
                    raise ResponseDecodeError(
                        API, f"the content part at {at}/content/{pi} has no type", f"{at}/content/{pi}/type"
                    )
                if item.get("type") == "text":
                    parts.append(TextPart(item.get("text", "")))
                elif item.get("type") == "image_url":
                    parts.append(_image_from_wire(item))
                elif item.get("type") == "file" and (doc := _document_from_wire(item)) is not None:
                    parts.append(doc)
                else:
                    # a part toolwire has no canonical form for (a file, audio, a type newer than the
                    # SDK): kept whole, sent back to Chat as it came; another provider leaves it out
                    # and says so (rule provider-tool.dropped). Kept only in the message's overrides,
                    # as before, it was left out without a word
                    kind = item.get("type")
                    vendor_type = kind if isinstance(kind, str) and kind else "part"
                    parts.append(ProviderToolPart(API, vendor_type, copy.deepcopy(item), "result"))
            if len(parts) == 1 and isinstance(parts[0], TextPart):
                pd["content_list"] = True
        msg = Message("user", parts)
        if pd:
            msg.provider_data[API] = pd
        encoded = self._user_messages(msg)
        over = overrides_for(_named_files(without_blank_parts(wm)), encoded[-1] if encoded else {}, set())
        if over:
            pd["message"] = over
            msg.provider_data[API] = pd
        return msg

    def _assistant_from_wire(self, wm: dict[str, Any], at: str) -> Message:
        """An assistant message at JSON pointer ``at``; raises :class:`ResponseDecodeError` for a
        ``tool_calls`` entry that is not an object, or whose ``id`` or ``function.name`` is not
        text (the SDK's ``ChatCompletionMessageFunctionToolCallParam`` types both ``str``; the API
        checks the types of a history's fields, as for ``function.arguments``: "Invalid type for
        'messages[2].tool_calls[0].function.arguments': expected a string, but got an object
        instead."). An ``id`` or name that is absent or null is read as before."""
        calls = wm.get("tool_calls")
        if isinstance(calls, list):
            for ci, tc in enumerate(calls):
                where = f"{at}/tool_calls/{ci}"
                tc = _SHAPE.obj(tc, where)
                if tc.get("id") is not None:
                    _SHAPE.opt_str(tc.get("id"), f"{where}/id")
                fn = tc.get("function")
                if isinstance(fn, dict) and fn.get("name") is not None:
                    _SHAPE.opt_str(fn.get("name"), f"{where}/function/name")
        wm = _arguments_as_text(wm)
        parts: list[Any] = []
        pd: dict[str, Any] = {}
        content = wm.get("content")
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif isinstance(content, list):
            for item in content:
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    parts.append(TextPart(item["text"]))
                elif isinstance(item, dict) and item.get("type") == "refusal" and isinstance(item.get("refusal"), str):
                    parts.append(TextPart(item["refusal"]))  # what the model said, as a response's refusal is
            if len(parts) == 1:
                pd["content_list"] = True
        elif "content" in wm and content is None:
            pd["null_content"] = True
        refusal = wm.get("refusal")
        if isinstance(refusal, str) and refusal:
            # the model's refusal, text as in a decoded response (the exact message goes back to
            # Chat through the overrides below; another provider gets the text, not nothing)
            parts.append(TextPart(refusal, provider_data={API: {"refusal": True}}))
        for tc in wm.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            fn = fn if isinstance(fn := tc.get("function"), dict) else {}
            raw = fn.get("arguments")
            args, invalid = parse_arguments(raw if isinstance(raw, str) else None)
            call_id = tc.get("id")
            call = ToolCall(
                id=call_id if isinstance(call_id, str) else "",
                name=tool_name(fn.get("name"))[0],
                arguments=args,
                raw_arguments=raw if isinstance(raw, str) else None,
                invalid=invalid,
            )
            canonical = {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call)},
            }
            over = overrides_for(tc, canonical, set())
            if over:
                call.provider_data[API] = {"call": over}
            parts.append(call)
        msg = Message("assistant", parts)
        if pd:
            msg.provider_data[API] = pd
        encoded = self._assistant_message(msg) or {}
        over = overrides_for(wm, encoded, set())
        if over:
            pd["message"] = over
            msg.provider_data[API] = pd
        return msg


#: The kinds Chat import takes beyond the SDK's: a call's ``function.arguments`` of another JSON
#: kind than text (``openai.types.chat.ChatCompletionMessageFunctionToolCallParam``'s
#: ``Function.arguments`` is ``str``; :data:`~toolwire_openai._common.ARGUMENT_KINDS`): an object
#: is the call's arguments, sent back as its JSON text (:func:`_arguments_as_text`).
_IMPORT_ALSO = {
    "openai.types.chat.chat_completion_message_function_tool_call_param.Function.arguments": ARGUMENT_KINDS,
}

#: The notes :meth:`OpenAIChatCodec._user_messages` writes in a tool message whose result's images
#: and PDFs it sends in the next user message: (images, documents) → (the note when the result
#: has no text, the note after its text).
_MEDIA_NOTES: dict[tuple[bool, bool], tuple[str, str | None]] = {
    (True, False): ("(the result is the image(s) in the next user message)", None),
    (False, True): (
        "(the result's document(s) are in the next user message)",
        "(the result's document(s) are in the next user message)",
    ),
    (True, True): (
        "(the result is the image(s) and document(s) in the next user message)",
        "(the result's image(s) and document(s) are in the next user message)",
    ),
}


def _result_label(text: str, ids: dict[str, Any]) -> tuple[str, str, str | None] | None:
    """``(label, call id, tool name or None)`` when ``text`` is the label toolwire's Chat codec
    writes before a result's images or PDFs (``"<label><call id>:"`` or ``"<label><call id>
    (<tool>):"``) for a call id in ``ids``; ``None`` for any other text."""
    for label in (IMAGE_LABEL, DOCUMENT_LABEL):
        if not text.startswith(label) or not text.endswith(":"):
            continue
        rest = text[len(label) : -1]
        if rest in ids:
            return label, rest, None
        # the longest id that the text names, then " (<tool>)"
        for call_id in sorted((i for i in ids if rest.startswith(i + " (")), key=len, reverse=True):
            name = rest[len(call_id) + 2 :]
            if name.endswith(")") and len(name) > 1 and "(" not in name[:-1] and ")" not in name[:-1]:
                return label, call_id, name[:-1]
    return None


def _without_media_note(content: Any, images: bool, documents: bool) -> list[TextPart] | None:
    """The text parts of a decoded tool result's ``content`` without the note the encoder wrote in
    place of its ``images``/``documents`` (none for images after text); ``None`` when the text
    does not hold the note the encoder would have written."""
    alone, after = _MEDIA_NOTES[(images, documents)]
    if isinstance(content, str):
        if content == alone:
            return []
        if after is None:
            return [TextPart(content)] if content else None
        suffix = "\n" + after
        if content.endswith(suffix) and len(content) > len(suffix):
            return [TextPart(content[: -len(suffix)])]
        return None
    parts = [p for p in content if isinstance(p, TextPart)]
    if len(parts) == 1 and parts[0].text == alone and parts[0].provider_data == {}:
        return []  # as a text part (how the compatible-server profile writes it)
    if after is None:
        return parts if any(p.text for p in parts) else None
    if len(parts) > 1 and parts[-1].text == after and parts[-1].provider_data == {}:
        return parts[:-1]
    return None


def _arguments_as_text(wm: dict[str, Any]) -> dict[str, Any]:
    """``wm`` (an imported assistant message) with each tool call's ``function.arguments`` that
    is a JSON value other than text (an object, as some compatible servers and gateways return
    it: Portkey-AI/gateway#768) replaced by its JSON text, so it is decoded the way the response
    decoder decodes it (an object is the call's arguments; another JSON type makes the call
    invalid, naming the type) and sent back as the text the API requires ("Invalid type for
    'messages[2].tool_calls[0].function.arguments': expected a string, but got an object
    instead.", aaif-goose/goose-mobile#20). ``wm`` itself is not changed."""
    calls = wm.get("tool_calls")
    if not isinstance(calls, list):
        return wm
    out: list[Any] = []
    changed = False
    for tc in calls:
        fn = tc.get("function") if isinstance(tc, dict) else None
        raw = fn.get("arguments") if isinstance(fn, dict) else None
        if isinstance(fn, dict) and raw is not None and not isinstance(raw, str):
            try:
                text = json.dumps(raw, ensure_ascii=False, separators=(",", ":"))
            except (TypeError, ValueError):  # not a JSON value (a body built in Python)
                text = json.dumps(repr(raw))
            tc = {**tc, "function": {**fn, "arguments": text}}
            changed = True
        out.append(tc)
    return {**wm, "tool_calls": out} if changed else wm


def _audio_kept(audio: dict[str, Any]) -> bool:
    """Whether an audio answer can still be referred to by its id: it has one and its
    ``expires_at`` (Unix seconds) is not past ("no longer be accessible on the server for use in
    multi-turn conversations" after it, ``ChatCompletionAudio.expires_at``); else its transcript
    is sent as text."""
    if not isinstance(audio.get("id"), str) or not audio["id"]:
        return False
    expires = audio.get("expires_at")
    if isinstance(expires, int) and not isinstance(expires, bool):
        import time

        return expires > time.time()
    return True


#: Assistant-message fields holding reasoning state a compatible server needs back on the next
#: request (``_replay``): OpenRouter's ``reasoning_details``; LiteLLM's ``thinking_blocks``
#: (Claude's signed thinking blocks, which Anthropic requires before a tool call's result when
#: thinking is on; usestrix/strix#242, google/adk-python#5712).
_REPLAYED_MESSAGE_FIELDS = ("reasoning_details", "thinking_blocks")


def _parts_have_reasoning(parts: list[Any]) -> bool:
    """Whether ``parts`` hold reasoning text (a :class:`ReasoningPart` that is not empty)."""
    return any(type(p) is ReasoningPart and p.text for p in parts)


def _replay(fields: dict[str, Any], origin: str | None) -> dict[str, Any]:
    """The ``provider_data`` of a message or tool call whose ``fields`` go back to the server
    ``origin`` that sent them (``OpenAIChatCodec._replayed``). Gemini 3 behind an
    OpenAI-compatible endpoint refuses a tool-call turn without them: "Function call is missing a
    thought_signature in functionCall parts" (OpenRouter: "Gemini models require OpenRouter
    reasoning details to be preserved in each request", massgen/MassGen#624,
    microsoft/agent-framework#2947; Google's own endpoint: ``extra_content.google.thought_signature``
    on each tool call, 8monkey-ai/hebo-gateway#226)."""
    out: dict[str, Any] = {"replay": fields}
    if origin is not None:
        out["origin"] = origin
    return out


def _merge_details(into: list[dict[str, Any]], pieces: list[Any]) -> None:
    """Fold streamed ``reasoning_details`` ``pieces`` into ``into``: a piece of the same ``type``
    and ``index`` as the last one continues it (its strings appended, other fields set), any
    other starts a new entry."""
    for piece in pieces:
        if not isinstance(piece, dict):
            continue
        last = into[-1] if into else None
        if last is not None and last.get("type") == piece.get("type") and last.get("index") == piece.get("index"):
            for key, value in piece.items():
                if isinstance(value, str) and isinstance(last.get(key), str) and key not in ("type", "format", "id"):
                    last[key] += value
                elif value is not None:
                    last[key] = copy.deepcopy(value)
        else:
            into.append(copy.deepcopy(piece))


class ChatStreamDecoder:
    """Incremental Chat stream decoder: :meth:`feed` one chunk, get canonical events;
    :meth:`finish` at the end of the stream.

    - the first chunk's ``id``/``model`` → :class:`ResponseStart`;
    - ``delta.content`` → :class:`TextDelta`; ``delta.reasoning_content``/``delta.reasoning``
      (compatible servers) → :class:`ReasoningDelta`;
    - ``delta.tool_calls[]`` are joined by ``index``: the fragment that first names an index
      starts the call (its ``id`` and ``name`` come once), later ``function.arguments`` pieces
      are appended (so are later pieces of a name split across deltas; a name sent again whole
      replaces it); a server that sends a whole call in one fragment works the same, and so does
      one that sends every call with the same ``index`` but its own ``id`` (a fragment whose
      ``id`` differs from the open call's starts a new call). A call without an ``id`` gets
      ``call_tw<hash>_<position>`` (``id_synthesized=True``, see
      :func:`~toolwire_openai._common.synth_call_id`);
    - ``finish_reason`` ends every started call (:class:`ToolCallEnd`) and gives the stop
      reason; a stream that stops without one was cut off: the calls stay unended (the
      assembler marks them incomplete, never run) and the stop reason is ``"error"`` with
      ``vendor_stop_reason=None``; so is a stream whose ``[DONE]`` came before any chunk carried
      the choice (nothing of the answer arrived);
    - ``usage`` (the final chunk with empty ``choices`` when ``stream_options.include_usage``
      was requested, or any chunk that carries it) → :class:`UsageUpdate`;
    - a chunk carrying an ``error`` object raises the same :class:`ProviderError` as that error
      sent as an HTTP error or a 200 body (:func:`toolwire.transport.error_in_body`: ``status``
      from an integer ``error.code``, else ``None``; ``retryable`` by
      :func:`toolwire.retry.classify`, or for a transient ``type`` or ``code``:
      :data:`~toolwire_openai._common.TRANSIENT_ERROR_CODES`); a chunk of
      the wrong shape (``choices``/``delta``/``tool_calls`` of the wrong JSON type, a negative
      or non-integer tool-call ``index``) raises :class:`~toolwire.errors.ResponseDecodeError`.
    """

    def __init__(self, request: ModelRequest | None = None, origin: str | None = None) -> None:
        self.request = request
        self.origin = origin  # the server (see OpenAIChatCodec.origin), recorded on its reasoning
        self.service_tier: str | None = None
        self.moderation: Any = None  # the moderation results, from the chunk that carries them
        self.logprobs: dict[str, Any] = {}  # the chunks' logprobs, their token lists joined
        self._real_names = real_names(request.tools) if request is not None else {}
        self._declares_parallel = declares_parallel(request)
        self.started = False
        self.response_id: str | None = None
        self.calls: dict[int, int] = {}  # vendor tool-call index → canonical index of its open call
        self.call_ids: dict[int, str] = {}  # canonical index → call id
        self.call_names: dict[int, str] = {}
        self.call_raw_names: dict[int, str] = {}  # canonical index → the name as sent so far
        self.call_synthesized: dict[int, bool] = {}
        self.order: list[int] = []  # canonical indexes, in arrival order
        self.finish_reason: str | None = None
        self.refusal = False
        self.details: dict[str, list[dict[str, Any]]] = {}  # streamed reasoning_details / thinking_blocks, folded
        #: the stream carried a reasoning_content field (an empty one included) / reasoning text
        self.reasoning_field = False
        self.reasoning_text = False
        self.call_extra: dict[int, dict[str, Any]] = {}  # canonical index → its extra_content
        #: a chunk carried the answer's choice (index 0): a ``[DONE]`` before any did not end an answer
        self._choice_seen: bool = False  # a chunk carried the choice (a [DONE] before one is a cut stream)

    @_SHAPE.guarded("a Chat Completions stream chunk")
    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        """The canonical events of one chunk (a non-object chunk gives none)."""
        out: list[StreamEvent] = []
        if not isinstance(chunk, dict):
            return out
        if isinstance(chunk.get("error"), dict):
            # the same ProviderError as the error sent with its HTTP status (toolwire.retry):
            # llama.cpp streams {"error": {"code": 500, "message": ..., "type": "server_error"}}
            # (tools/server/server-common.cpp format_error_response), so the status is its code
            raise error_in_body(
                API, {"error": chunk["error"]}, (), TRANSIENT_ERROR_CODES
            ) or ProviderError(  # pragma: no branch
                API, str(chunk["error"]), status=None, retryable=False, body=chunk
            )
        if not self.started:
            self.started: bool = True
            self.response_id = _SHAPE.opt_str(chunk.get("id"), "/id")
            out.append(ResponseStart(self.response_id, _SHAPE.opt_str(chunk.get("model"), "/model")))
        if "service_tier" in chunk and isinstance(tier := chunk["service_tier"], str):
            self.service_tier = tier  # the tier that served the request (priced by it)
        if "moderation" in chunk and chunk["moderation"] is not None:
            self.moderation = chunk["moderation"]  # (openai.types.chat.ChatCompletionChunk.moderation)
        # the usual shapes are taken as they are; anything else goes through the shape checks
        choices = chunk.get("choices")
        if type(choices) is not list:
            choices = _SHAPE.opt_list(choices, "/choices")
        choice_usage: dict[str, Any] | None = None
        for ci, choice in enumerate(choices):
            if type(choice) is not dict:
                choice = _SHAPE.obj(choice, f"/choices/{ci}")
            if choice.get("index", 0) != 0:
                continue
            self._choice_seen = True
            if "usage" in choice and type(choice["usage"]) is dict and choice["usage"]:
                # Moonshot streams its usage in the choice, not in the chunk (earendil-works/pi#2017)
                choice_usage = choice["usage"]
            if "logprobs" in choice and type(lp := choice["logprobs"]) is dict:
                # each chunk's tokens (ChoiceLogprobs of ChatCompletionChunk), joined in order
                for key, tokens in lp.items():
                    if type(tokens) is list:
                        self.logprobs.setdefault(key, []).extend(tokens)
                    elif tokens is not None:
                        self.logprobs[key] = tokens
                    else:
                        self.logprobs.setdefault(key, None)
            delta = choice.get("delta")
            if type(delta) is not dict:
                delta = _SHAPE.opt_obj(delta, f"/choices/{ci}/delta")
            if type(delta.get("reasoning_content")) is str:
                self.reasoning_field: bool = True  # (null, as some servers send it, is no field)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                self.reasoning_text: bool = True
                field = "reasoning_content" if delta.get("reasoning_content") else "reasoning"
                pd: dict[str, Any] = {"field": field}
                if self.origin is not None:
                    pd["origin"] = self.origin
                out.append(ReasoningDelta(_REASONING_INDEX, text=reasoning, provider=API, provider_data={API: pd}))
            for key in _REPLAYED_MESSAGE_FIELDS:
                details = delta.get(key)
                if type(details) is list and details:
                    _merge_details(self.details.setdefault(key, []), details)
            content = delta.get("content")
            if type(content) is list:
                # Mistral's reasoning models stream content parts: {"type": "text", "text"} and
                # {"type": "thinking", "thinking": [{"type": "text", "text"}]}
                for kind, text in _content_pieces(content, f"/choices/{ci}/delta/content"):
                    if kind == "thinking":
                        out.append(ReasoningDelta(_REASONING_INDEX, text=text, provider=API))
                    else:
                        out.append(TextDelta(_TEXT_INDEX, text))
                content = None
            if content is not None and type(content) is not str:
                content = _SHAPE.opt_str(content, f"/choices/{ci}/delta/content")
            if content:
                out.append(TextDelta(_TEXT_INDEX, content))
            refusal = delta.get("refusal")
            if refusal is not None and type(refusal) is not str:
                refusal = _SHAPE.opt_str(refusal, f"/choices/{ci}/delta/refusal")
            if refusal:
                self.refusal: bool = True
                out.append(TextDelta(_TEXT_INDEX, refusal, {API: {"refusal": True}}))
            calls = delta.get("tool_calls")
            if calls is not None:
                if type(calls) is not list:
                    calls = _SHAPE.opt_list(calls, f"/choices/{ci}/delta/tool_calls")
                for pos, tc in enumerate(calls):
                    if type(tc) is not dict:
                        tc = _SHAPE.obj(tc, f"/choices/{ci}/delta/tool_calls/{pos}")
                    self._tool_fragment(tc, pos, ci, out)
            finish = choice.get("finish_reason")
            if finish is not None and type(finish) is not str:
                finish = _SHAPE.opt_str(finish, f"/choices/{ci}/finish_reason")
            if finish:
                self.finish_reason = finish
            if "error" in choice:
                failed = _choice_error(choice)
                if failed is not None:
                    raise failed
        usage = chunk.get("usage")
        if not (isinstance(usage, dict) and usage):
            # the chunk's own usage wins; else Moonshot's in the choice, or Groq's in the last
            # chunk's "x_groq": {"id", "usage": {prompt_tokens, completion_tokens, ...}}
            # (vercel/ai#1651, traceloop/openllmetry#4439)
            usage = choice_usage
            groq = chunk.get("x_groq") if usage is None else None
            if isinstance(groq, dict) and isinstance(groq.get("usage"), dict):
                usage = groq["usage"]
        if isinstance(usage, dict) and usage:
            out.append(UsageUpdate(chat_usage(usage)))
        return out

    def _tool_fragment(self, tc: dict[str, Any], pos: int, ci: int, out: list[StreamEvent]) -> None:
        """The events of one ``tool_calls`` entry (at ``/choices/<ci>/delta/tool_calls/<pos>``), appended to ``out``."""
        idx = tc.get("index")
        if type(idx) is not int or idx < 0:
            idx = _SHAPE.index(idx, f"/choices/{ci}/delta/tool_calls/{pos}/index", default=pos)
        fn = tc.get("function")
        if type(fn) is not dict:
            fn = _SHAPE.opt_obj(fn, f"/choices/{ci}/delta/tool_calls/{pos}/function")
        raw_id = tc.get("id")
        vendor_id = raw_id if isinstance(raw_id, str) and raw_id else None
        index = self.calls.get(idx)
        raw_name = fn.get("name")
        if (
            index is not None
            and type(raw_name) is str
            and raw_name
            and (vendor_id is None or vendor_id == self.call_ids[index])
            and (so_far := self.call_raw_names.get(index))
        ):
            # a later piece of the open call's name: a name may be split across deltas ("the first
            # delta might have get_ and the second might have weather", openai/openai-agents-python#326;
            # Gemini's endpoint: continuedev/continue#5849), so a piece is appended; a name sent
            # again whole, or growing (MiniMax via NVIDIA NIM resends it in every chunk,
            # NousResearch/hermes-agent#8259), replaces the name so far
            raw_name = raw_name if raw_name.startswith(so_far) else so_far + raw_name
            if raw_name == so_far:
                raw_name = None  # the same name again: nothing new
        if raw_name is None:
            name = ""  # a later fragment of a call (the usual delta) carries no name
        else:
            name, name_invalid = tool_name(raw_name)
            name = (
                "" if name_invalid else self._real_names.get(name, name)
            )  # a nameless call: check_tool_calls marks it invalid
        if (
            index is not None
            and vendor_id is not None
            and vendor_id != self.call_ids[index]
            and raw_name is None
            and self.call_names[index]
        ):
            # A fragment with another id but no name continues the open call at its index: a
            # call's first fragment carries its name ("id and type -> one complete chunk,
            # function.name -> one complete chunk, function.arguments -> streamed across
            # multiple chunks", elastic/kibana#240691), while some servers send a fresh id on every fragment
            # (mlx-openai-server before cubist38/mlx-openai-server#216). The first id is kept.
            vendor_id = self.call_ids[index]
        if index is None or (vendor_id is not None and vendor_id != self.call_ids[index]):
            index = _TOOL_INDEX_BASE + len(self.order)
            self.calls[idx] = index
            self.order.append(index)
            call_id = vendor_id or synth_call_id(self.response_id or tc, self.request, len(self.order) - 1)
            self.call_ids[index] = call_id
            self.call_names[index] = name
            self.call_synthesized[index] = vendor_id is None
            if type(raw_name) is str and raw_name:
                self.call_raw_names[index] = raw_name
            out.append(ToolCallStart(index, call_id, name, id_synthesized=vendor_id is None))
        elif type(raw_name) is str and raw_name and raw_name != self.call_raw_names.get(index):
            # the name came after the call started, or grew (a later piece, see above)
            self.call_raw_names[index] = raw_name
            self.call_names[index] = name
            out.append(ToolCallStart(index, self.call_ids[index], name, id_synthesized=self.call_synthesized[index]))
        extra = tc.get("extra_content")
        if isinstance(extra, dict) and extra:
            self.call_extra.setdefault(index, {}).update(copy.deepcopy(extra))
        args = fn.get("arguments")
        if isinstance(args, str):
            if args:
                out.append(ToolCallDelta(index, args))
        elif isinstance(args, dict):  # a server that sends an object
            out.append(ToolCallDelta(index, dumps_arguments(args)))
        elif args is not None:  # a number, array, ...: kept as text so the call is invalid with the reason
            out.append(ToolCallDelta(index, json.dumps(args, ensure_ascii=False)))

    def ended(self) -> None:
        """The stream's ``data: [DONE]`` arrived: it is complete even without a ``finish_reason``
        (servers that send none: NVIDIA NIM on tool calls, some gateways), so :meth:`finish`
        closes it as a stop (``tool_use`` with calls), not as cut off."""
        self.done = True

    @_SHAPE.guarded("a Chat Completions stream")
    def finish(self) -> list[StreamEvent]:
        """The closing events: with a ``finish_reason`` (or after ``[DONE]`` when a chunk carried
        the choice), a :class:`ToolCallEnd` per call and the :class:`StopEvent`; otherwise (the
        stream was cut off, or ended by ``[DONE]`` before any choice), only ``StopEvent("error")``."""
        # Nothing to take from a final message here (unlike the Responses decoder, which takes the
        # items of ``response.completed``'s output the stream did not give): a Chat stream has no
        # event that carries the finished message, every chunk holds only its ``choices[].delta``
        # (openai ``types/chat/chat_completion_chunk.py``, ``ChoiceDelta``), so what the server
        # did not stream is nowhere in the stream.
        if not self.finish_reason and not (getattr(self, "done", False) and self._choice_seen):
            # cut off: no finish_reason and no [DONE], or a [DONE] after chunks that never carried
            # the choice (only usage or Azure's prompt_filter_results, ``choices: []``), which
            # delivered nothing of the answer (a whole body without choices is refused too)
            return [StopEvent("error", None)]
        ends = [
            ToolCallEnd(index)
            if index not in self.call_extra
            else ToolCallEnd(
                index, provider_data={API: _replay({"extra_content": self.call_extra[index]}, self.origin)}
            )
            for index in self.order
        ]
        if self._real_names or self._declares_parallel:
            for end in ends:
                name = self.call_names.get(end.index)
                if name != PARALLEL_PSEUDO_TOOL and name != PARALLEL_BARE_NAME:
                    continue
                # the request's renamed tools (wire name -> own name), for the split of this
                # call into the calls it names, whose recipients name tools as sent on the
                # wire; a bare "parallel" the request declares is that tool's call, never split
                # (split_parallel_calls)
                own: dict[str, Any] = {}
                if self._real_names:
                    own["real_names"] = dict(self._real_names)
                if name == PARALLEL_BARE_NAME and self._declares_parallel:
                    own["declared"] = True
                if own:
                    end.provider_data = {**(end.provider_data or {}), "toolwire": own}
        out: list[StreamEvent] = list(ends)
        stop = FINISH_REASONS.get(self.finish_reason or "", "end_turn")
        if self.refusal and stop == "end_turn":
            stop = "refusal"
        if stop == "end_turn" and self.order:
            stop = "tool_use"
        elif stop == "tool_use" and not self.order:
            stop = "end_turn"  # "tool_calls" with no call: nothing to run
        replay: dict[str, Any] = dict(self.details)
        if self.reasoning_field and not self.reasoning_text:
            replay["reasoning_content"] = ""  # as decode_response: DeepSeek's empty reasoning goes back
        pd = _replay(replay, self.origin) if replay else {}
        if self.service_tier in PRICED_TIERS:
            pd["price_context"] = {"service_tier": self.service_tier}
        if self.moderation is not None:
            pd["moderation"] = self.moderation
        if self.logprobs:
            pd["logprobs"] = self.logprobs
        out.append(
            StopEvent(stop, self.finish_reason, provider_data={API: pd}) if pd else StopEvent(stop, self.finish_reason)
        )
        return out


# ---------------------------------------------------------------------------------------------
# a tool call the server refused to hand over (Groq's tool_use_failed)
# ---------------------------------------------------------------------------------------------

#: The ``error.code`` of a Chat-compatible server that checked the model's tool call itself and
#: refused to return it: Groq answers HTTP 400 (or, streaming, an ``event: error`` after the deltas
#: so far) with ``{"error": {"code": "tool_use_failed", "failed_generation": <what the model
#: wrote>, "message": "Tool call validation failed: ... did not match schema: ..."}}``, also
#: "Tool choice is required, but model did not call a tool" with an empty ``failed_generation``
#: (recorded Groq traffic in pydantic/pydantic-ai's cassettes, test_groq/test_tool_use_failed_error*).
#: The model's output is at fault, not the request: a retry of the same request may succeed.
TOOL_USE_FAILED = "tool_use_failed"


def tool_use_failed(error_body: Any) -> tuple[str, str] | None:
    """``(message, failed_generation)`` of a server error that refused the model's tool call
    (``error.code`` ``tool_use_failed``, :data:`TOOL_USE_FAILED`), read from a
    :class:`~toolwire.errors.ProviderError`'s ``body`` (the ``error`` object, or the body holding
    it); ``None`` for any other error."""
    if not isinstance(error_body, dict):
        return None
    inner = error_body.get("error")
    err: dict[str, Any] = inner if isinstance(inner, dict) else error_body
    if err.get("code") != TOOL_USE_FAILED:
        return None
    message = err.get("message")
    generation = err.get("failed_generation")
    return (
        message if isinstance(message, str) else "",
        generation if isinstance(generation, str) else "",
    )


def failed_generation_calls(generation: str, seed: Any) -> list[ToolCall]:
    """The tool calls in a ``failed_generation``: the JSON the model wrote for its call(s),
    ``{"name": ..., "arguments": {...}}`` (arguments an object or JSON text) or a list of such
    objects; each gets a synthesized id (``call_tw<hash>_<position>``, ``id_synthesized``).
    Their arguments are left for the run's own check against the tool's input schema, which
    answers the call with an ``is_error`` result naming what is wrong. ``[]`` when the text holds
    no such call (prose, an empty string, JSON of another shape)."""
    try:
        value = json.loads(generation) if generation.strip() else None
    except (ValueError, RecursionError):
        return []
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    for pos, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            return []
        raw = item.get("arguments", item.get("parameters"))
        # an object is checked as the JSON text it came in would be: json.loads took NaN /
        # Infinity, which no request can carry back (they are not JSON), so the call is answered
        # "not valid JSON" rather than the next request failing to encode
        text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        args, invalid = parse_arguments(text)
        calls.append(ToolCall(synth_call_id(seed, None, pos), item["name"], args, text, invalid, False, True))
    return calls


def tool_use_failed_parts(message: str, generation: str, seed: Any) -> tuple[list[Any], str, dict[str, Any]]:
    """``(parts, stop_reason, provider_data)`` of the answer toolwire makes of a refused tool call:
    the call(s) the model wrote (stop reason ``tool_use``: the run checks and answers them), else
    the text it wrote with stop reason ``error`` (the run tells the model what the server said and
    asks again: :meth:`~toolwire_openai.profile.OpenAIChatProfile.unparsed_call_feedback`). The
    server's message rides in ``provider_data["openai-chat"]["tool_use_failed"]``."""
    pd = {API: {"tool_use_failed": message[:2000]}}
    calls = failed_generation_calls(generation, [message, generation])
    if calls:
        return list(calls), "tool_use", pd
    parts: list[Any] = [TextPart(generation)] if generation.strip() else []
    return parts, "error", pd
