"""Anthropic Messages (``POST /v1/messages``) request rules, from this module's own reading.

Sources: the SDK's request TypedDicts (``anthropic.types.*Param`` in the installed SDK), the
Messages API and tool-use docs, and the error texts users quote (issue threads named below).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ._base import Finding, Names, RuleSet, arr, hashable, is_int, is_obj, is_str, join, obj, ptr, short

rules = RuleSet("anthropic")
R = rules.rule

TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")
IMAGE_MEDIA = Names({"image/jpeg", "image/png", "image/gif", "image/webp"})

#: ``ContentBlockParam`` members (anthropic.types.content_block_param) by their ``type``.
BLOCK_TYPES = Names(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
    }
)
#: Blocks only the model writes: never in a user turn.
ASSISTANT_ONLY = Names({"thinking", "redacted_thinking", "tool_use", "server_tool_use"})
#: Blocks only the caller writes: never in an assistant turn.
USER_ONLY = Names({"tool_result", "container_upload"})
#: ``ToolResultBlockParam.Content`` members.
RESULT_CONTENT_TYPES = Names({"text", "image", "search_result", "document", "tool_reference", "browser_state"})


def _messages(body: Any) -> list[Any]:
    return arr(obj(body).get("messages"))


def _blocks(content: Any) -> list[tuple[int | None, dict[str, Any]]]:
    """(index, block) for every object block; a string content is one text block (index None)."""
    if isinstance(content, str):
        return [(None, {"type": "text", "text": content})]
    return [(i, b) for i, b in enumerate(arr(content)) if is_obj(b)]


def _bptr(mi: int, bi: int | None, *rest: Any) -> str:
    return ptr("messages", mi, "content") if bi is None else ptr("messages", mi, "content", bi, *rest)


def _uses(m: Any) -> list[tuple[int | None, dict[str, Any]]]:
    return [(i, b) for i, b in _blocks(obj(m).get("content")) if b.get("type") == "tool_use"]


def _thinking_on(body: Any) -> bool:
    """Thinking on: enabled, adaptive or between_tools; or no thinking field to a model where
    thinking cannot be off (Opus 5.5, Fable and Mythos 5.0-5.2: leaving it out means adaptive)."""
    b = obj(body)
    if "thinking" in b:
        return obj(b["thinking"]).get("type") in ("enabled", "adaptive", "between_tools")
    model = b.get("model")
    m = (
        re.search(r"claude-(opus|fable|mythos)-(\d+)(?:[-.](\d{1,2}))?(?!\d)", model)
        if isinstance(model, str)
        else None
    )
    if m is None:
        return False
    version = (int(m.group(2)), int(m.group(3) or 0))
    return (m.group(1) == "opus" and version == (5, 5)) or (
        m.group(1) != "opus" and version in {(5, 0), (5, 1), (5, 2)}
    )


# --- body -------------------------------------------------------------------------------------


@R(
    "anthropic.body.shape",
    "The body is an object with `model` (string), `max_tokens` (integer >= 0) and a non-empty `messages` array.",
    "anthropic.types.MessageCreateParamsBase (Required[model], Required[max_tokens], Required[messages])",
)
def body_shape(body: Any) -> Iterator[Finding]:
    if not is_obj(body):
        yield "", f"the request body must be a JSON object, got {short(body)}"
        return
    if not is_str(body.get("model")) or not body.get("model"):
        yield "/model", f"`model` must be a non-empty string, got {short(body.get('model'))}"
    mt = body.get("max_tokens")
    if not is_int(mt) or mt < 0:
        yield "/max_tokens", f"`max_tokens` must be an integer >= 0, got {short(mt)}"
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        yield "/messages", f"`messages` must be a non-empty array, got {short(msgs)}"


@R(
    "anthropic.system.shape",
    "`system` is a string or an array of text blocks.",
    "anthropic.types.MessageCreateParamsBase.system: Union[str, Iterable[TextBlockParam]]",
)
def system_shape(body: Any) -> Iterator[Finding]:
    if "system" not in obj(body):
        return
    s = obj(body)["system"]
    if isinstance(s, str):
        return
    if not isinstance(s, list):
        yield "/system", f"`system` must be a string or an array of text blocks, got {short(s)}"
        return
    for i, b in enumerate(s):
        if not is_obj(b) or b.get("type") != "text" or not is_str(b.get("text")):
            yield ptr("system", i), f"a system block must be {{type: text, text: <string>}}, got {short(b)}"


# --- messages -----------------------------------------------------------------------------------


@R(
    "anthropic.message.shape",
    "Every message is an object with `role` user or assistant (or system) and `content` (string or array of blocks with a string `type`).",
    "anthropic.types.MessageParam = UserMessageParam | AssistantMessageParam | SystemMessageParam (Required[role], Required[content])",
)
def message_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        if not is_obj(m):
            yield ptr("messages", i), f"a message must be an object, got {short(m)}"
            continue
        if m.get("role") not in ("user", "assistant", "system"):
            yield ptr("messages", i, "role"), f"role must be 'user' or 'assistant', got {short(m.get('role'))}"
        c = m.get("content")
        if isinstance(c, str):
            continue
        if not isinstance(c, list):
            yield ptr("messages", i, "content"), f"content must be a string or an array of blocks, got {short(c)}"
            continue
        for j, b in enumerate(c):
            if not is_obj(b) or not is_str(b.get("type")):
                yield (
                    ptr("messages", i, "content", j),
                    f"a content block must be an object with a string `type`, got {short(b)}",
                )
            elif b["type"] not in BLOCK_TYPES:
                yield ptr("messages", i, "content", j, "type"), f"unknown content block type {b['type']!r}"
            elif m.get("role") == "system" and b["type"] != "text":
                yield ptr("messages", i, "content", j, "type"), "a system message holds only text blocks"


# No rule that the first message is a user message: the API's 2024 error text ("messages: first
# message must use the \"user\" role", lobehub/lobehub#1601) is no longer the first-party API's
# behaviour. A leading assistant message succeeds on the Anthropic API and fails only on Bedrock
# (anthropics/anthropic-sdk-typescript#622), and anthropic.types.MessageCreateParamsBase.messages
# no longer asks for it ("You can specify a single user-role message, or you can include multiple
# user and assistant messages").


@R(
    "anthropic.message.alternation",
    "User and assistant messages alternate (toolwire merges same-role turns; the API would silently combine them).",
    "anthropic.types.MessageCreateParamsBase.messages docstring: 'Consecutive user or assistant turns in your request will be combined into a single turn'",
)
def alternation(body: Any) -> Iterator[Finding]:
    prev = None
    for i, m in enumerate(_messages(body)):
        role = obj(m).get("role")
        if role in ("user", "assistant") and role == prev:
            yield ptr("messages", i, "role"), f"two {role} messages in a row (messages {i - 1} and {i}); merge them"
        prev = role


@R(
    "anthropic.message.block-role",
    "Model-only blocks (thinking, redacted_thinking, tool_use, server_tool_use) appear only in assistant turns; tool_result only in user turns.",
    "Anthropic tool-use guide (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use): tool_use comes in the assistant response, tool_result goes back in a user message",
)
def block_role(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        role = obj(m).get("role")
        for j, b in _blocks(obj(m).get("content")):
            t = b.get("type")
            if role == "user" and t in ASSISTANT_ONLY:
                yield _bptr(i, j, "type"), f"a user message cannot hold a {t} block"
            if role == "assistant" and t in USER_ONLY:
                yield _bptr(i, j, "type"), f"an assistant message cannot hold a {t} block"


@R(
    "anthropic.text.non-empty",
    "Text blocks (and string contents) are not empty strings, in messages, tool results and `system` (a whitespace-only block in an earlier assistant turn is accepted: recorded).",
    "API error text 'messages: text content blocks must be non-empty' (anthropics/claude-code#59812, AnswerDotAI/fastllm#44)",
)
def text_non_empty(body: Any) -> Iterator[Finding]:
    def bad(t: Any) -> bool:
        return t == ""

    for i, m in enumerate(_messages(body)):
        c = obj(m).get("content")
        if bad(c):
            yield ptr("messages", i, "content"), "message content is an empty string"
        for j, b in enumerate(arr(c)):
            b = obj(b)
            if b.get("type") == "text" and bad(b.get("text")):
                yield ptr("messages", i, "content", j, "text"), "empty text block"
            if b.get("type") == "tool_result":
                for k, rb in enumerate(arr(b.get("content"))):
                    rb = obj(rb)
                    if rb.get("type") == "text" and bad(rb.get("text")):
                        yield (
                            ptr("messages", i, "content", j, "content", k, "text"),
                            "empty text block in a tool_result",
                        )
    for j, b in enumerate(arr(obj(body).get("system"))):
        if obj(b).get("type") == "text" and bad(obj(b).get("text")):
            yield ptr("system", j, "text"), "empty system text block"


@R(
    "anthropic.image.source",
    "An image block has `source` {type: base64, media_type in jpeg/png/gif/webp matching the data's signature, data: string} or {type: url, url: string} or {type: file, file_id}.",
    "anthropic.types.ImageBlockParam / Base64ImageSourceParam (media_type Literal['image/jpeg','image/png','image/gif','image/webp']) / URLImageSourceParam; "
    "API error 'Image does not match the provided media type image/png' (anthropics/claude-code#13131)",
)
def image_source(body: Any) -> Iterator[Finding]:
    def check(b: dict[str, Any], at: str) -> Iterator[Finding]:
        src = b.get("source")
        if not is_obj(src):
            yield join(at, "source"), f"an image block needs a `source` object, got {short(src)}"
            return
        t = src.get("type")
        if t == "base64":
            if src.get("media_type") not in IMAGE_MEDIA:
                yield (
                    join(at, "source", "media_type"),
                    f"media_type must be one of {sorted(IMAGE_MEDIA)}, got {short(src.get('media_type'))}",
                )
            if not is_str(src.get("data")) or not src.get("data"):
                yield join(at, "source", "data"), "a base64 image needs non-empty `data`"
            else:
                real = _signature_type(src["data"])
                if real is not None and src.get("media_type") in IMAGE_MEDIA and src["media_type"] != real:
                    yield (
                        join(at, "source", "media_type"),
                        f"media_type {src['media_type']} but the data is {real} (the API: 'Image does not match the provided media type')",
                    )
        elif t == "url":
            if not is_str(src.get("url")) or not src.get("url"):
                yield join(at, "source", "url"), "a url image needs a `url` string"
        elif t == "file":
            if not is_str(src.get("file_id")):
                yield join(at, "source", "file_id"), "a file image needs a `file_id` string"
        else:
            yield join(at, "source", "type"), f"image source type must be base64, url or file, got {short(t)}"

    for i, m in enumerate(_messages(body)):
        for j, b in enumerate(arr(obj(m).get("content"))):
            b = obj(b)
            if b.get("type") == "image":
                yield from check(b, ptr("messages", i, "content", j))
            if b.get("type") == "tool_result":
                for k, rb in enumerate(arr(b.get("content"))):
                    if obj(rb).get("type") == "image":
                        yield from check(obj(rb), ptr("messages", i, "content", j, "content", k))


@R(
    "anthropic.document.source",
    "A document block has `source` {type: base64, media_type: application/pdf, data: non-empty string} or {type: text, media_type: text/plain, data: string} or {type: url, url} or {type: file, file_id} or {type: content, content}; in a user turn or a tool_result.",
    "anthropic.types.DocumentBlockParam.source: Base64PDFSourceParam (media_type Literal['application/pdf']), PlainTextSourceParam (media_type Literal['text/plain']), URLPDFSourceParam, FileDocumentSourceParam, ContentBlockSourceParam",
)
def document_source(body: Any) -> Iterator[Finding]:
    def check(b: dict[str, Any], at: str) -> Iterator[Finding]:
        raw = b.get("source")
        if not is_obj(raw):
            yield join(at, "source"), f"a document block needs a `source` object, got {short(raw)}"
            return
        src = obj(raw)
        t, mt, data = src.get("type"), src.get("media_type"), src.get("data")
        if t == "base64":
            if mt != "application/pdf":
                yield join(at, "source", "media_type"), f"a base64 document is application/pdf, got {short(mt)}"
            if not is_str(data) or not data:
                yield join(at, "source", "data"), "a base64 document needs non-empty `data`"
        elif t == "text":
            if mt != "text/plain":
                yield join(at, "source", "media_type"), f"a text document is text/plain, got {short(mt)}"
            if not is_str(data):
                yield join(at, "source", "data"), "a text document needs string `data`"
        elif t == "url":
            if not is_str(src.get("url")) or not src.get("url"):
                yield join(at, "source", "url"), "a url document needs a `url` string"
        elif t == "file":
            if not is_str(src.get("file_id")):
                yield join(at, "source", "file_id"), "a file document needs a `file_id` string"
        elif t != "content":
            yield (
                join(at, "source", "type"),
                f"document source type must be base64, text, url, file or content, got {short(t)}",
            )

    for i, m in enumerate(_messages(body)):
        for j, b in enumerate(arr(obj(m).get("content"))):
            b = obj(b)
            if b.get("type") == "document":
                yield from check(b, ptr("messages", i, "content", j))
            if b.get("type") == "tool_result":
                for k, rb in enumerate(arr(b.get("content"))):
                    if obj(rb).get("type") == "document":
                        yield from check(obj(rb), ptr("messages", i, "content", j, "content", k))


# --- tool calls and results ------------------------------------------------------------------


def _signature_type(data: str) -> str | None:
    """The image type a base64 string's first bytes announce (PNG, JPEG, GIF, WebP signatures)."""
    import base64
    import binascii

    try:
        head = base64.b64decode("".join(data[:100].split())[:20], validate=True)
    except (binascii.Error, ValueError):
        return None
    for magic, offset, kind in (
        (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
        (b"\xff\xd8", 0, "image/jpeg"),
        (b"GIF8", 0, "image/gif"),
        (b"WEBP", 8, "image/webp"),
    ):
        if head[offset : offset + len(magic)] == magic:
            return kind
    return None


@R(
    "anthropic.tool_use.shape",
    "A tool_use block has a string `id` matching ^[a-zA-Z0-9_-]+$, a string `name` and an object `input`.",
    "anthropic.types.ToolUseBlockParam (Required[id], Required[name], Required[input: Dict]); id pattern from the API error 'String should match pattern ^[a-zA-Z0-9_-]+$' (HKUDS/nanobot#4356)",
)
def tool_use_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        for j, b in _uses(m):
            if not is_str(b.get("id")) or not TOOL_USE_ID.fullmatch(b["id"]):
                yield _bptr(i, j, "id"), f"tool_use id must match ^[a-zA-Z0-9_-]+$, got {short(b.get('id'))}"
            if not is_str(b.get("name")) or not b.get("name"):
                yield _bptr(i, j, "name"), f"tool_use name must be a non-empty string, got {short(b.get('name'))}"
            if not is_obj(b.get("input")):
                yield _bptr(i, j, "input"), f"tool_use input must be a JSON object, got {short(b.get('input'))}"


@R(
    "anthropic.tool_use.unique-id",
    "tool_use ids are unique across the request.",
    "API error text 'messages.1.content.1: `tool_use` ids must be unique' (trycua/cua#524)",
)
def tool_use_unique(body: Any) -> Iterator[Finding]:
    seen: set[Any] = set()
    for i, m in enumerate(_messages(body)):
        for j, b in _uses(m):
            k = hashable(b.get("id"))
            if k in seen:
                yield _bptr(i, j, "id"), f"tool_use id {short(b.get('id'))} is used twice"
            seen.add(k)


def _answer_of(msgs: list[Any], i: int) -> Any:
    nxt = msgs[i + 1] if i + 1 < len(msgs) else None
    return nxt if obj(nxt).get("role") == "user" else None


@R(
    "anthropic.tool_use.answered",
    "Every tool_use is answered by a tool_result in the very next message, which is a user message.",
    "API error text '`tool_use` ids were found without `tool_result` blocks immediately after: ... Each `tool_use` block must have a corresponding `tool_result` block in the next message.' (anthropics/claude-code#8210)",
)
def tool_use_answered(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    for i, m in enumerate(msgs):
        if obj(m).get("role") != "assistant" or i == len(msgs) - 1:
            continue  # the request's last message is anthropic.tool_use.trailing
        nxt = _answer_of(msgs, i)
        answered = {
            hashable(b.get("tool_use_id"))
            for _, b in _blocks(obj(nxt).get("content"))
            if b.get("type") == "tool_result"
        }
        for j, b in _uses(m):
            if hashable(b.get("id")) not in answered:
                yield _bptr(i, j), f"tool_use {short(b.get('id'))} has no tool_result in messages[{i + 1}]"


@R(
    "anthropic.tool_use.trailing",
    "The request does not end on an assistant message holding tool_use blocks (an unanswered call).",
    "Same API error as anthropic.tool_use.answered: 'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'",
)
def tool_use_trailing(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    if msgs and obj(msgs[-1]).get("role") == "assistant":
        for j, b in _uses(msgs[-1]):
            yield _bptr(len(msgs) - 1, j), f"the request ends on tool_use {short(b.get('id'))} without its tool_result"


@R(
    "anthropic.tool_result.orphan",
    "Every tool_result answers a tool_use of the immediately preceding assistant message.",
    "API error text 'unexpected `tool_use_id` found in `tool_result` blocks: ... Each `tool_result` block must have a corresponding `tool_use` block in the previous message.' (anthropics/claude-code#18947)",
)
def tool_result_orphan(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    for i, m in enumerate(msgs):
        if obj(m).get("role") != "user":
            continue
        prev = msgs[i - 1] if i else None
        ids = {hashable(b.get("id")) for _, b in _uses(prev)} if obj(prev).get("role") == "assistant" else set()
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") == "tool_result" and hashable(b.get("tool_use_id")) not in ids:
                yield (
                    _bptr(i, j, "tool_use_id"),
                    f"tool_result {short(b.get('tool_use_id'))} answers no tool_use of messages[{i - 1}]",
                )


@R(
    "anthropic.tool_result.once",
    "A tool_use is answered by exactly one tool_result.",
    "toolwire design principle 4 (every tool call gets exactly one result) applied to the pairing rule of the API error '`tool_use` ids were found without `tool_result` blocks immediately after'",
)
def tool_result_once(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        seen: set[Any] = set()
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") != "tool_result":
                continue
            k = hashable(b.get("tool_use_id"))
            if k in seen:
                yield _bptr(i, j, "tool_use_id"), f"tool_use {short(b.get('tool_use_id'))} is answered twice"
            seen.add(k)


@R(
    "anthropic.tool_result.first",
    "In the user message answering tool calls, the tool_result blocks come before any other block.",
    "API error text 'Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.' (anthropics/claude-code#37); tool-use guide: tool_result blocks first, text after",
)
def tool_result_first(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        if obj(m).get("role") != "user":
            continue
        other_seen = False
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") == "tool_result":
                if other_seen:
                    yield _bptr(i, j), "tool_result block after other content; tool_result blocks must come first"
                    break
            else:
                other_seen = True


@R(
    "anthropic.tool_result.shape",
    "A tool_result has a string `tool_use_id`, `content` a string or an array of text/image/search_result/document blocks, `is_error` a boolean.",
    "anthropic.types.ToolResultBlockParam (Required[tool_use_id]; content: Union[str, Iterable[Content]]; is_error: bool)",
)
def tool_result_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") != "tool_result":
                continue
            if not is_str(b.get("tool_use_id")):
                yield _bptr(i, j, "tool_use_id"), f"tool_use_id must be a string, got {short(b.get('tool_use_id'))}"
            if "is_error" in b and not isinstance(b["is_error"], bool):
                yield _bptr(i, j, "is_error"), f"is_error must be a boolean, got {short(b['is_error'])}"
            c = b.get("content")
            if c is None or isinstance(c, str):
                continue
            if not isinstance(c, list):
                yield _bptr(i, j, "content"), f"tool_result content must be a string or an array, got {short(c)}"
                continue
            for k, rb in enumerate(c):
                if not is_obj(rb) or rb.get("type") not in RESULT_CONTENT_TYPES:
                    yield (
                        _bptr(i, j, "content", k),
                        f"a tool_result may hold text, image, search_result or document blocks, got {short(rb)}",
                    )
                elif rb["type"] == "text" and not is_str(rb.get("text")):
                    yield _bptr(i, j, "content", k, "text"), "text block without a string `text`"


# --- thinking ---------------------------------------------------------------------------------


@R(
    "anthropic.thinking.shape",
    "A thinking block carries string `thinking` and a non-empty `signature`; redacted_thinking carries non-empty `data`.",
    "anthropic.types.ThinkingBlockParam (Required[signature], Required[thinking]) / RedactedThinkingBlockParam (Required[data]); 'Thinking blocks must be passed back unmodified'",
)
def thinking_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") == "thinking":
                if not is_str(b.get("signature")) or not b.get("signature"):
                    yield _bptr(i, j, "signature"), "thinking block without a signature (foreign or altered reasoning)"
                if not is_str(b.get("thinking")):
                    yield _bptr(i, j, "thinking"), "thinking block without a string `thinking`"
            elif b.get("type") == "redacted_thinking" and (not is_str(b.get("data")) or not b.get("data")):
                yield _bptr(i, j, "data"), "redacted_thinking block without `data`"


@R(
    "anthropic.thinking.first",
    "In an assistant message that holds thinking blocks, the first block is a thinking or redacted_thinking block.",
    "API error text 'If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.' (anthropics/claude-code#20705)",
)
def thinking_first(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        if obj(m).get("role") != "assistant":
            continue
        blocks = _blocks(obj(m).get("content"))
        kinds = [b.get("type") for _, b in blocks]
        if any(k in ("thinking", "redacted_thinking") for k in kinds) and kinds[0] not in (
            "thinking",
            "redacted_thinking",
        ):
            yield (
                _bptr(i, blocks[0][0]),
                f"the first block must be thinking or redacted_thinking, found {short(kinds[0])}",
            )


@R(
    "anthropic.thinking.tool-loop",
    "With thinking enabled, the assistant message whose tool_use blocks the final user message answers starts with a thinking block.",
    "API error text 'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)' (OpenRouterTeam/ai-sdk-provider#162, n8n-io/n8n#22550)",
)
def thinking_tool_loop(body: Any) -> Iterator[Finding]:
    if obj(obj(body).get("thinking")).get("type") != "enabled":
        return
    msgs = _messages(body)
    if len(msgs) < 2 or obj(msgs[-1]).get("role") != "user":
        return
    last = _blocks(obj(msgs[-1]).get("content"))
    if not last or any(b.get("type") != "tool_result" for _, b in last):
        return  # a new user turn: the tool loop is over
    prev = msgs[-2]
    blocks = _blocks(obj(prev).get("content"))
    if (
        obj(prev).get("role") == "assistant"
        and _uses(prev)
        and blocks[0][1].get("type") not in ("thinking", "redacted_thinking")
    ):
        yield (
            _bptr(len(msgs) - 2, blocks[0][0]),
            "thinking is enabled but the assistant turn of the ongoing tool loop does not start with a thinking block",
        )


@R(
    "anthropic.thinking.final-without-thinking",
    "With thinking disabled, a final assistant message (prefill) holds no thinking blocks.",
    "API error text 'When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`.' (tailcallhq/forgecode#1195)",
)
def thinking_final(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    if not msgs or _thinking_on(body) or obj(msgs[-1]).get("role") != "assistant":
        return
    for j, b in _blocks(obj(msgs[-1]).get("content")):
        if b.get("type") in ("thinking", "redacted_thinking"):
            yield _bptr(len(msgs) - 1, j), "thinking block in the final assistant message while thinking is disabled"


# --- tools and request settings ----------------------------------------------------------------


def _custom_tools(body: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if is_obj(t) and t.get("type") in (None, "custom"):
            yield i, t


@R(
    "anthropic.tools.shape",
    "`tools` is an array of objects; a custom tool has a `name` and an object `input_schema`.",
    "anthropic.types.ToolParam (Required[name], Required[input_schema]); MessageCreateParamsBase.tools: Iterable[ToolUnionParam]",
)
def tools_shape(body: Any) -> Iterator[Finding]:
    if "tools" not in obj(body):
        return
    tools = obj(body)["tools"]
    if not isinstance(tools, list):
        yield "/tools", f"`tools` must be an array, got {short(tools)}"
        return
    for i, t in enumerate(tools):
        if not is_obj(t):
            yield ptr("tools", i), f"a tool must be an object, got {short(t)}"
        elif t.get("type") in (None, "custom") and not is_obj(t.get("input_schema")):
            yield (
                ptr("tools", i, "input_schema"),
                f"a custom tool needs an object `input_schema`, got {short(t.get('input_schema'))}",
            )


@R(
    "anthropic.tools.name",
    "A tool name matches ^[a-zA-Z0-9_-]{1,128}$.",
    "API error text \"tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'\" (home-assistant/core#147760)",
)
def tool_name(body: Any) -> Iterator[Finding]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if is_obj(t) and (not is_str(t.get("name")) or not TOOL_NAME.fullmatch(t["name"])):
            yield ptr("tools", i, "name"), f"tool name must match ^[a-zA-Z0-9_-]{{1,128}}$, got {short(t.get('name'))}"


@R(
    "anthropic.tools.unique-name",
    "Tool names are unique.",
    "API error text 'tools: Tool names must be unique.' (Messages API)",
)
def tool_unique(body: Any) -> Iterator[Finding]:
    seen: set[Any] = set()
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if is_obj(t):
            k = hashable(t.get("name"))
            if k in seen:
                yield ptr("tools", i, "name"), f"tool name {short(t.get('name'))} is declared twice"
            seen.add(k)


@R(
    "anthropic.tools.web-search-domains",
    "A web search tool (type web_search_*) gives allowed_domains or blocked_domains, never both, and never an empty list.",
    "anthropic.types.WebSearchTool20250305Param docstrings ('Cannot be used alongside `blocked_domains`'); API error text "
    "'tools.0.web_search_20250305.blocked_domains: Empty list of domains is ambiguous. Provide at least one domain or null.' "
    "(CherryHQ/cherry-studio#10374)",
)
def web_search_domains(body: Any) -> Iterator[Finding]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if not (is_obj(t) and is_str(t.get("type")) and t["type"].startswith("web_search_")):
            continue
        given = [k for k in ("allowed_domains", "blocked_domains") if t.get(k) is not None]
        for k in given:
            if t[k] == []:
                yield ptr("tools", i, k), f"{k} is an empty list"
        if len(given) == 2:
            yield ptr("tools", i), "allowed_domains and blocked_domains are both given"


@R(
    "anthropic.tools.defer-loading",
    "Some tool is loaded up front (not every tool has defer_loading true), and no deferred tool is a cache breakpoint.",
    "tool search tool docs, error handling ('At least one tool must have defer_loading=false. All tools cannot be "
    "deferred.'); API error text \"Tool '...' cannot have both defer_loading=true and cache_control set\" "
    "(router-for-me/CLIProxyAPI#4561)",
)
def defer_loading(body: Any) -> Iterator[Finding]:
    tools = [(i, t) for i, t in enumerate(arr(obj(body).get("tools"))) if is_obj(t)]
    for i, t in tools:
        if t.get("defer_loading") is True and t.get("cache_control") is not None:
            yield ptr("tools", i, "cache_control"), "a deferred tool carries cache_control"
    if tools and all(t.get("defer_loading") is True for _, t in tools):
        yield "/tools", "every tool is deferred"


@R(
    "anthropic.schema.root-object",
    'A custom tool\'s input_schema has `type: "object"` at its root.',
    "anthropic.types.tool_param.InputSchemaTyped (type: Required[Literal['object']])",
)
def schema_root_object(body: Any) -> Iterator[Finding]:
    for i, t in _custom_tools(body):
        s = t.get("input_schema")
        if is_obj(s) and s.get("type") != "object":
            yield (
                ptr("tools", i, "input_schema", "type"),
                f"input_schema.type must be 'object', got {short(s.get('type'))}",
            )


@R(
    "anthropic.schema.root-combinator",
    "A custom tool's input_schema has no oneOf, anyOf or allOf at its root.",
    "API error text 'tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level' (anthropics/claude-code#5319)",
)
def schema_root_combinator(body: Any) -> Iterator[Finding]:
    for i, t in _custom_tools(body):
        s = obj(t.get("input_schema"))
        for k in ("oneOf", "anyOf", "allOf"):
            if k in s:
                yield ptr("tools", i, "input_schema", k), f"input_schema does not support {k} at the top level"


@R(
    "anthropic.schema.valid",
    "A custom tool's input_schema is a valid JSON Schema (draft 2020-12).",
    "anthropic.types.ToolParam.input_schema docstring: '[JSON schema](https://json-schema.org/draft/2020-12) for this tool's input'",
)
def schema_valid(body: Any) -> Iterator[Finding]:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    for i, t in _custom_tools(body):
        s = t.get("input_schema")
        if not is_obj(s):
            continue
        try:
            Draft202012Validator.check_schema(s)
        except SchemaError as e:
            yield ptr("tools", i, "input_schema", *e.path), f"not a valid draft 2020-12 schema: {e.message[:120]}"
        except RecursionError:
            yield ptr("tools", i, "input_schema"), "schema too deeply nested to check"


@R(
    "anthropic.tools.required-for-history",
    "A request whose messages hold tool_use or tool_result blocks declares tools.",
    "API error text 'Requests which include tool_use or tool_result blocks must define tools.' (anthropics/anthropic-sdk-python#494)",
)
def tools_for_history(body: Any) -> Iterator[Finding]:
    if arr(obj(body).get("tools")):
        return
    for i, m in enumerate(_messages(body)):
        for j, b in _blocks(obj(m).get("content")):
            if b.get("type") in ("tool_use", "tool_result"):
                yield _bptr(i, j), f"a {b['type']} block in a request that declares no tools"
                return


@R(
    "anthropic.tool_choice.shape",
    "`tool_choice` is {type: auto|any|none} or {type: tool, name: <string>}; disable_parallel_tool_use is a boolean and not on none.",
    "anthropic.types.ToolChoiceParam = ToolChoiceAutoParam | ToolChoiceAnyParam | ToolChoiceToolParam | ToolChoiceNoneParam",
)
def tool_choice_shape(body: Any) -> Iterator[Finding]:
    if "tool_choice" not in obj(body):
        return
    tc = obj(body)["tool_choice"]
    if not is_obj(tc) or tc.get("type") not in ("auto", "any", "tool", "none"):
        yield "/tool_choice", f"tool_choice must be an object with type auto, any, tool or none, got {short(tc)}"
        return
    if tc["type"] == "tool" and (not is_str(tc.get("name")) or not tc.get("name")):
        yield "/tool_choice/name", "tool_choice {type: tool} needs a tool `name`"
    if "disable_parallel_tool_use" in tc and (
        tc["type"] == "none" or not isinstance(tc["disable_parallel_tool_use"], bool)
    ):
        yield (
            "/tool_choice/disable_parallel_tool_use",
            "disable_parallel_tool_use is a boolean on auto, any or tool choices",
        )


@R(
    "anthropic.tool_choice.without-tools",
    "A tool_choice other than none is sent only together with tools.",
    "API error text 'tool_choice: tool_choice may only be specified while providing tools' (recalled from the Messages API; no public thread found in the search corpus)",
)
def tool_choice_without_tools(body: Any) -> Iterator[Finding]:
    tc = obj(obj(body).get("tool_choice"))
    if tc and tc.get("type") != "none" and not arr(obj(body).get("tools")):
        yield "/tool_choice", "tool_choice is set but the request declares no tools"


@R(
    "anthropic.tool_choice.unknown-tool",
    "A tool_choice {type: tool} names a declared tool.",
    "anthropic.types.ToolChoiceToolParam.name docstring: 'The name of the tool to use.'",
)
def tool_choice_unknown(body: Any) -> Iterator[Finding]:
    tc = obj(obj(body).get("tool_choice"))
    names = {hashable(obj(t).get("name")) for t in arr(obj(body).get("tools"))}
    if tc.get("type") == "tool" and is_str(tc.get("name")) and names and tc["name"] not in names:
        yield "/tool_choice/name", f"tool_choice names {tc['name']!r}, which is not among the declared tools"


@R(
    "anthropic.thinking.forced-tool",
    "Manual extended thinking ({type: enabled}) is not combined with a tool_choice that forces tool use (any or tool).",
    "API error text 'Thinking may not be enabled when tool_choice forces tool use.' (mastra-ai/mastra#7507, langchain-ai/langchain#35544)",
)
def thinking_forced(body: Any) -> Iterator[Finding]:
    if obj(obj(body).get("thinking")).get("type") == "enabled" and obj(obj(body).get("tool_choice")).get("type") in (
        "any",
        "tool",
    ):
        yield "/tool_choice", "thinking is enabled, so tool_choice may only be auto or none"


@R(
    "anthropic.thinking.budget",
    "thinking {type: enabled} has an integer budget_tokens >= 1024 and below max_tokens.",
    "anthropic.types.ThinkingConfigEnabledParam.budget_tokens docstring ('Must be ≥1024 and less than `max_tokens`')",
)
def thinking_budget(body: Any) -> Iterator[Finding]:
    th = obj(obj(body).get("thinking"))
    if th.get("type") != "enabled":
        return
    b = th.get("budget_tokens")
    if not is_int(b) or b < 1024:
        yield "/thinking/budget_tokens", f"budget_tokens must be an integer >= 1024, got {short(b)}"
    elif is_int(obj(body).get("max_tokens")) and b >= obj(body)["max_tokens"]:
        yield "/thinking/budget_tokens", f"budget_tokens ({b}) must be less than max_tokens ({obj(body)['max_tokens']})"


# --- sampling by model --------------------------------------------------------------------------

#: claude-<family>-<major>[-<minor>] (a dated suffix is not a minor version); mythos is Claude 5
_CLAUDE_ID = re.compile(r"claude-[a-z]+-(\d+)(?:[-.](\d{1,2}))?(?!\d)")


def _after_opus_4_6(model: Any) -> bool:
    if not is_str(model):
        return False
    if "claude-mythos" in model:
        return True
    m = _CLAUDE_ID.search(model)
    return m is not None and (int(m.group(1)), int(m.group(2) or 0)) >= (4, 7)


@R(
    "anthropic.sampling.removed",
    "Claude models after Opus 4.6 (Opus 4.7/4.8, Claude 5) are sent no temperature, top_p or top_k.",
    "API error text '`temperature` is deprecated for this model.' (sipeed/picoclaw#2939, The-PR-Agent/pr-agent#2456); "
    "platform.claude.com whats-new-claude-4-7, 'Sampling parameters removed'",
)
def sampling_removed(body: Any) -> Iterator[Finding]:
    if not _after_opus_4_6(obj(body).get("model")):
        return
    for key in ("temperature", "top_p", "top_k"):
        if key in obj(body):
            yield f"/{key}", f"{body['model']} takes no {key}"


@R(
    "anthropic.cache.ttl-order",
    "Read in the order tools, system, messages, no cache_control of ttl 1h comes after one of the default 5 minutes.",
    "https://docs.claude.com/en/docs/build-with-claude/prompt-caching (mixing TTLs: longer TTLs must appear before shorter ones)",
)
def cache_ttl_order(body: Any) -> Iterator[Finding]:
    marks: list[tuple[str, str]] = []

    def walk(x: Any, at: str) -> None:
        if is_obj(x):
            cc = x.get("cache_control")
            if is_obj(cc):
                marks.append((join(at, "cache_control"), cc.get("ttl") or "5m"))
            for k, v in x.items():
                walk(v, join(at, str(k)))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, join(at, str(i)))

    for key in ("tools", "system", "messages"):
        walk(obj(body).get(key), "/" + key)
    seen_short = False
    for where, ttl in marks:
        if ttl == "1h" and seen_short:
            yield where, "a 1h cache breakpoint after a 5-minute one"
        elif ttl != "1h":
            seen_short = True


@R(
    "anthropic.settings.typed-values",
    "service_tier is auto or standard_only; metadata holds only user_id (a string or null).",
    "anthropic.types.MessageCreateParamsBase.service_tier Literal['auto','standard_only']; anthropic.types.MetadataParam (user_id only)",
)
def settings_typed_values(body: Any) -> Iterator[Finding]:
    b = obj(body)
    if "service_tier" in b and b["service_tier"] not in ("auto", "standard_only"):
        yield "/service_tier", f"service_tier {short(b['service_tier'])} is not auto or standard_only"
    if "metadata" in b:
        meta = b["metadata"]
        if not is_obj(meta):
            yield "/metadata", "metadata must be an object"
        else:
            for k in meta:
                if k != "user_id":
                    yield join("/metadata", k), f"metadata key {k!r} is not user_id"


#: Claude ids from before extended thinking (Sonnet 3.7 was the first to think).
_BEFORE_THINKING = re.compile(r"claude-(instant|2([.-]\d)?(?!\d)|3-(5-)?(haiku|sonnet|opus))")


@R(
    "anthropic.thinking.model",
    "No thinking (other than type 'disabled') is sent to a Claude model without extended thinking (Claude 2, Instant, 3 and 3.5).",
    "API error text \"'claude-3-5-haiku-20241022' does not support thinking.\" (anthropics/claude-code#12914); extended-thinking docs' list of supported models (Sonnet 3.7 and later)",
)
def thinking_model(body: Any) -> Iterator[Finding]:
    model = obj(body).get("model")
    th = obj(body).get("thinking")
    if not is_str(model) or "thinking" not in obj(body) or not _BEFORE_THINKING.search(model):
        return
    if is_obj(th) and th.get("type") == "disabled":
        return
    yield "/thinking", f"{model} has no extended thinking"


@R(
    "anthropic.tool-choice.forced-model",
    "Claude Fable 5.1, Mythos 5.1, Opus 5.5 and Sonnet 5.5 are sent no forced tool_choice (type any or tool).",
    'API error text \'tool_choice: type "tool" and "any" are not supported for this model.\' (claude-fable-5-1, '
    "BerriAI/litellm#39151); platform.claude.com what's-new pages of Opus 5.5 and Sonnet 5.5 (forced tool use "
    "returns an error)",
)
def forced_tool_choice_model(body: Any) -> Iterator[Finding]:
    model = obj(body).get("model")
    if not isinstance(model, str):
        return
    m = re.search(r"claude-(fable|mythos|opus|sonnet)-(\d+)[-.](\d{1,2})(?!\d)", model)
    if m is None:
        return
    refused = {("fable", "5", "1"), ("mythos", "5", "1"), ("opus", "5", "5"), ("sonnet", "5", "5")}
    if (m.group(1), m.group(2), m.group(3)) not in refused:
        return
    tc = obj(body).get("tool_choice")
    if is_obj(tc) and tc.get("type") in ("any", "tool"):
        yield "/tool_choice/type", f"{model} takes no forced tool choice"


#: Effort levels by model, from the effort docs: Opus 4.5 has low/medium/high; the 4.6 models add max
#: (not xhigh); 4.7 and later take all five; every earlier Claude model has no effort at all.
_EFFORT_4_5_OPUS = ("low", "medium", "high")
_EFFORT_4_6 = ("low", "medium", "high", "max")


def _effort_allowed(model: str) -> tuple[str, ...] | None:
    if "claude-mythos" in model:
        return None
    if re.search(r"claude-(instant|2(?!\d)|3[-.])", model):
        return ()
    m = _CLAUDE_ID.search(model)
    if m is None:
        return None
    version = (int(m.group(1)), int(m.group(2) or 0))
    if version >= (4, 7):
        return None
    if version == (4, 6):
        return _EFFORT_4_6
    if version == (4, 5) and "opus" in m.group(0):
        return _EFFORT_4_5_OPUS
    return ()


@R(
    "anthropic.effort.model",
    "output_config.effort is a level the model has: none before Opus 4.5, low/medium/high on Opus 4.5, "
    "low/medium/high/max on the 4.6 models.",
    "API error text 'This model does not support the effort parameter.' (anthropics/claude-code#30795); "
    "platform.claude.com build-with-claude/effort; xhigh answered 400 on claude-opus-4-6 and claude-sonnet-4-6 "
    "(SkillfulAgents/SuperAgent#1142)",
)
def effort_model(body: Any) -> Iterator[Finding]:
    model = obj(body).get("model")
    oc = obj(body).get("output_config")
    if not is_str(model) or not is_obj(oc) or not is_str(oc.get("effort")):
        return
    allowed = _effort_allowed(model)
    if allowed is not None and oc["effort"] not in allowed:
        yield "/output_config/effort", f"{model} takes no effort {short(oc['effort'])}"


#: The fast-mode docs' supported models (2026-12): family, major, minor. Opus 5 also needs the
#: fast-mode-2026-02-01 beta header, which is a header, not a body field, so not checked here.
_FAST_MODE = {("opus", 5, 5), ("fable", 5, 2), ("mythos", 5, 2), ("opus", 5, 0)}
_FAMILY_ID = re.compile(r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+|preview)(?:[-.](\d{1,2}))?(?!\d)")


@R(
    "anthropic.speed.model",
    "speed goes only to a model with fast mode: Opus 5.5, Fable 5.2, Mythos 5.2 and Opus 5; not to Sonnet or "
    "Haiku, Opus 4.8 and earlier, Fable or Mythos before 5.2, the Claude 3 family, nor to a -fast model id.",
    "platform.claude.com build-with-claude/fast-mode (Fable 5.2, Mythos 5.2, Opus 5.5; Opus 5 in research preview; "
    "Opus 4.8's fast mode removed 2026-11-30; Foundry -fast ids take no speed); code.claude.com fast-mode (not on "
    "Sonnet, Haiku or other models); API error text \"'claude-opus-4-7' does not support the `speed` parameter.\" "
    "(NousResearch/hermes-agent#19517)",
)
def speed_model(body: Any) -> Iterator[Finding]:
    model = obj(body).get("model")
    if "speed" not in obj(body) or not isinstance(model, str):
        return
    if re.search(r"claude-[a-z0-9.-]*-fast(?![a-z0-9])", model.lower()):
        yield "/speed", f"{model} is a fast-mode model id: no speed field"
        return
    if re.search(r"claude-(instant|2(?!\d)|3[-.])", model):
        yield "/speed", f"{model} has no fast mode"
        return
    m = _FAMILY_ID.search(model)
    if m is None:
        return
    family = m.group(1)
    version = (5, 0) if m.group(2) == "preview" else (int(m.group(2)), int(m.group(3) or 0))
    if (family, *version) in _FAST_MODE:
        return
    newest = max(((a, b) for f, a, b in _FAST_MODE if f == family), default=None)
    if newest is None or version <= newest:  # a later Opus, Fable or Mythos is not judged
        yield "/speed", f"{model} has no fast mode"


@R(
    "anthropic.thinking.disabled-model",
    "thinking type disabled is not sent to Opus 5.5 or the Fable and Mythos 5/5.1/5.2 models (thinking always on) "
    "nor to Sonnet 5.5 (between_tools instead); Opus 5 and Haiku 5.5 take it at effort high or below.",
    "platform.claude.com what's-new pages of Opus 5.5 (thinking can't be disabled; Opus 5: at effort high or below), "
    'Fable 5.2 and Sonnet 5.5; the Fable 5 migration guide; API error text \'"thinking.type.disabled" is not '
    "supported for this model.'",
)
def thinking_disabled_model(body: Any) -> Iterator[Finding]:
    model = obj(body).get("model")
    thinking = obj(body).get("thinking")
    if not isinstance(model, str) or not is_obj(thinking) or thinking.get("type") != "disabled":
        return
    m = re.search(r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[-.](\d{1,2}))?(?!\d)", model)
    if m is None:
        return
    key = (m.group(1), int(m.group(2)), int(m.group(3) or 0))
    if key in {("opus", 5, 5), ("sonnet", 5, 5)} or (
        key[0] in ("fable", "mythos") and key[1:] in {(5, 0), (5, 1), (5, 2)}
    ):
        yield "/thinking/type", f"{model} cannot turn thinking off"
        return
    oc = obj(body).get("output_config")
    if key in {("opus", 5, 0), ("haiku", 5, 5)} and is_obj(oc) and oc.get("effort") in ("xhigh", "max"):
        yield "/output_config/effort", f"{model} takes thinking disabled only at effort high or below"
