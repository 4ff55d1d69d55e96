"""OpenAI Chat Completions (``POST /chat/completions``) request rules, from this module's own
reading of the SDK request types (``openai.types.chat.*Param``), the docs and quoted error texts.
Chat also serves OpenAI-compatible servers, so rules those servers enforce are included."""

from __future__ import annotations

import re
from typing import Any, Iterator

from . import _openai_schema as strict
from ._base import Finding, Names, RuleSet, arr, hashable, is_obj, is_str, join, json_object_text, obj, ptr, short

rules = RuleSet("openai-chat")
R = rules.rule

FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
ROLES = Names({"system", "developer", "user", "assistant", "tool", "function"})
#: Content part types allowed per role (ChatCompletion*MessageParam.content).
PARTS = {
    "system": Names({"text"}),
    "developer": Names({"text"}),
    "user": Names({"text", "image_url", "input_audio", "file"}),
    "assistant": Names({"text", "refusal"}),
    "tool": Names({"text"}),
}


def _messages(body: Any) -> list[Any]:
    return arr(obj(body).get("messages"))


def _calls(m: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, c) for i, c in enumerate(arr(obj(m).get("tool_calls"))) if is_obj(c)]


def _function_tools(body: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if is_obj(t) and t.get("type") == "function" and is_obj(t.get("function")):
            yield i, t["function"]


# --- body and messages ---------------------------------------------------------------------------


@R(
    "openai-chat.body.shape",
    "The body is an object with a string `model` and a non-empty `messages` array of objects with a known `role`.",
    "openai.types.chat.completion_create_params.CompletionCreateParamsBase (Required[messages], Required[model]); ChatCompletionMessageParam roles",
)
def body_shape(body: Any) -> Iterator[Finding]:
    if not is_obj(body):
        yield "", f"the request body must be a JSON object, got {short(body)}"
        return
    if not is_str(body.get("model")) or not body.get("model"):
        yield "/model", f"`model` must be a non-empty string, got {short(body.get('model'))}"
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        yield "/messages", f"`messages` must be a non-empty array, got {short(msgs)}"
        return
    for i, m in enumerate(msgs):
        if not is_obj(m):
            yield ptr("messages", i), f"a message must be an object, got {short(m)}"
        elif m.get("role") not in ROLES:
            yield ptr("messages", i, "role"), f"unknown role {short(m.get('role'))}"


@R(
    "openai-chat.message.content",
    "Message content is a string or an array of parts of the kinds the role allows (text for system/developer/tool, text/refusal for assistant).",
    "openai.types.chat.ChatCompletion{System,Developer,User,Assistant,Tool}MessageParam.content",
)
def message_content(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        m = obj(m)
        role = m.get("role")
        if not is_str(role) or role not in PARTS:
            continue
        c = m.get("content")
        if c is None and role in ("assistant", "tool"):
            continue  # openai-chat.message.assistant-empty / tool-shape decide
        if isinstance(c, str):
            continue
        if not isinstance(c, list):
            yield ptr("messages", i, "content"), f"{role} content must be a string or an array of parts, got {short(c)}"
            continue
        for j, p in enumerate(c):
            t = obj(p).get("type")
            if t == "image_url" and role != "user":
                continue  # openai-chat.message.image-role
            if t not in PARTS[role]:
                yield ptr("messages", i, "content", j), f"a {role} message cannot hold a {short(t)} part"
            elif t == "text" and not is_str(obj(p).get("text")):
                yield ptr("messages", i, "content", j, "text"), "text part without a string `text`"


@R(
    "openai-chat.message.file-part",
    "A file part (user messages only) holds `file` with `file_id`, or `file_data` (a base64 data: URL of a PDF: Chat takes PDF files only) and `filename`.",
    "openai.types.chat.chat_completion_content_part_param.File / FileFile (file_data, file_id, filename); OpenAI 'File inputs' guide "
    "(developers.openai.com/api/docs/guides/file-inputs: 'Chat Completions accepts only PDF files as file content parts')",
)
def file_part(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        m = obj(m)
        if m.get("role") != "user" or not isinstance(m.get("content"), list):
            continue
        for j, p in enumerate(m["content"]):
            if obj(p).get("type") != "file":
                continue
            raw = obj(p).get("file")
            at = ptr("messages", i, "content", j, "file")
            if not is_obj(raw):
                yield at, f"a file part needs a `file` object, got {short(raw)}"
                continue
            f = obj(raw)
            if is_str(f.get("file_id")):
                continue
            data = f.get("file_data")
            if not isinstance(data, str) or not data.startswith("data:application/pdf;base64,") or len(data) <= 28:
                yield join(at, "file_data"), f"file_data must be a base64 data: URL of a PDF, got {short(data)}"
            if not is_str(f.get("filename")) or not f.get("filename"):
                yield join(at, "filename"), "a file given by file_data needs a `filename`"


@R(
    "openai-chat.message.image-role",
    "Images (image_url parts) appear only in user messages — not in tool results, assistant or system messages.",
    "API error text \"Invalid 'messages[N]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.\" (OpenHands/OpenHands#7700, openai/openai-node#1030)",
)
def image_role(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        if obj(m).get("role") == "user":
            continue
        for j, p in enumerate(arr(obj(m).get("content"))):
            if obj(p).get("type") == "image_url":
                yield (
                    ptr("messages", i, "content", j),
                    f"image in a {short(obj(m).get('role'))} message; images are only allowed in user messages",
                )


@R(
    "openai-chat.message.image-url",
    "An image_url part carries {image_url: {url: <string>}}.",
    "openai.types.chat.ChatCompletionContentPartImageParam (Required[image_url]: ImageURL(Required[url]))",
)
def image_url(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        for j, p in enumerate(arr(obj(m).get("content"))):
            p = obj(p)
            if p.get("type") == "image_url" and not (
                is_obj(p.get("image_url")) and is_str(p["image_url"].get("url")) and p["image_url"]["url"]
            ):
                yield ptr("messages", i, "content", j, "image_url"), "image_url part needs {url: <string>}"


@R(
    "openai-chat.message.assistant-empty",
    "An assistant message has content or tool_calls.",
    "openai.types.chat.ChatCompletionAssistantMessageParam.content docstring: 'Required unless `tool_calls` or `function_call` is specified.'",
)
def assistant_empty(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        m = obj(m)
        if m.get("role") != "assistant" or m.get("tool_calls") or m.get("function_call"):
            continue
        if m.get("content") is None:  # "" is accepted (recorded)
            yield ptr("messages", i, "content"), "an assistant message without tool_calls needs content"


@R(
    "openai-chat.message.content-length",
    "A message content string, and each text part's text, is at most 1048576 characters; a tool message's content is not an empty array.",
    "API error text \"Invalid 'messages[17].content': string too long. Expected a string with maximum length 1048576\" (gptscript-ai/clio#41); the text-part bound and the empty array are assumed from the same limits",
)
def content_length(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        c = obj(m).get("content")
        if is_str(c) and len(c) > 1048576:
            yield ptr("messages", i, "content"), f"content string has {len(c)} characters (at most 1048576)"
        elif isinstance(c, list):
            if not c and obj(m).get("role") == "tool":
                yield ptr("messages", i, "content"), "a tool message's content is an empty array"
            for j, p in enumerate(c):
                t = obj(p).get("text")
                if is_str(t) and len(t) > 1048576:
                    yield (
                        ptr("messages", i, "content", j, "text"),
                        f"text part has {len(t)} characters (at most 1048576)",
                    )


@R(
    "openai-chat.message.tool-shape",
    "A role:tool message carries a string `tool_call_id` and `content` (string or text parts).",
    "openai.types.chat.ChatCompletionToolMessageParam (Required[content], Required[role], Required[tool_call_id])",
)
def tool_message_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        m = obj(m)
        if m.get("role") != "tool":
            continue
        if not is_str(m.get("tool_call_id")) or not m.get("tool_call_id"):
            yield (
                ptr("messages", i, "tool_call_id"),
                f"a tool message needs a string tool_call_id, got {short(m.get('tool_call_id'))}",
            )
        if "content" not in m or not (is_str(m["content"]) or isinstance(m["content"], list)):
            yield (
                ptr("messages", i, "content"),
                f"a tool message needs content (a string or text parts), got {short(m.get('content'))}",
            )


# --- tool calls -------------------------------------------------------------------------------------


@R(
    "openai-chat.tool-call.shape",
    "A tool call is {id: <string>, type: function, function: {name: <string>, arguments: <string>}} (or a custom call with custom.input).",
    "openai.types.chat.ChatCompletionMessageFunctionToolCallParam (Required[id], Required[function] with Required[name], Required[arguments: str], Required[type])",
)
def tool_call_shape(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        m = obj(m)
        if "tool_calls" not in m:
            continue
        if m.get("role") != "assistant":
            yield ptr("messages", i, "tool_calls"), "only assistant messages carry tool_calls"
        if not isinstance(m["tool_calls"], list):
            yield ptr("messages", i, "tool_calls"), f"tool_calls must be an array, got {short(m['tool_calls'])}"
            continue
        for j, c in enumerate(m["tool_calls"]):
            at = ptr("messages", i, "tool_calls", j)
            if not is_obj(c):
                yield at, f"a tool call must be an object, got {short(c)}"
                continue
            if not is_str(c.get("id")) or not c.get("id"):
                yield at + "/id", f"a tool call needs a string id, got {short(c.get('id'))}"
            if c.get("type") == "custom":
                if not is_obj(c.get("custom")) or not is_str(c["custom"].get("input")):
                    yield at + "/custom", "a custom tool call needs custom.{name, input}"
                continue
            fn = c.get("function")
            if c.get("type") != "function" or not is_obj(fn):
                yield at, "a tool call needs type 'function' and a function object"
                continue
            if not is_str(fn.get("name")) or not fn.get("name"):
                yield at + "/function/name", f"function.name must be a non-empty string, got {short(fn.get('name'))}"
            if not is_str(fn.get("arguments")):
                yield (
                    at + "/function/arguments",
                    f"function.arguments must be a string, got {short(fn.get('arguments'))}",
                )


@R(
    "openai-chat.tool-call.arguments-json",
    "function.arguments holds the text of a JSON object.",
    "API error text 'messages.70.tool_calls.0.function.arguments: arguments must be a valid JSON object string' (justrach/codegraff#752); vLLM rejects malformed history arguments (local-inference-lab/vllm#684)",
)
def arguments_json(body: Any) -> Iterator[Finding]:
    for i, m in enumerate(_messages(body)):
        for j, c in _calls(m):
            fn = obj(c.get("function"))
            if (
                c.get("type", "function") == "function"
                and is_str(fn.get("arguments"))
                and not json_object_text(fn["arguments"])
            ):
                yield (
                    ptr("messages", i, "tool_calls", j, "function", "arguments"),
                    f"arguments {short(fn['arguments'])} is not a JSON object",
                )


@R(
    "openai-chat.tool-call.unique-id",
    "Tool call ids are unique across the request.",
    "API error text \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\" — pairing by id needs unique ids",
)
def unique_id(body: Any) -> Iterator[Finding]:
    seen: set[Any] = set()
    for i, m in enumerate(_messages(body)):
        for j, c in _calls(m):
            k = hashable(c.get("id"))
            if k in seen:
                yield ptr("messages", i, "tool_calls", j, "id"), f"tool call id {short(c.get('id'))} is used twice"
            seen.add(k)


def _tool_run(msgs: list[Any], i: int) -> list[int]:
    """Indices of the role:tool messages directly after message ``i``."""
    out = []
    j = i + 1
    while j < len(msgs) and obj(msgs[j]).get("role") == "tool":
        out.append(j)
        j += 1
    return out


@R(
    "openai-chat.tool-call.answered",
    "Every tool call is answered by a role:tool message in the run of tool messages directly after its assistant message.",
    "API error text \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ...\" (aliasrobotics/cai#111)",
)
def answered(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    for i, m in enumerate(msgs):
        if obj(m).get("role") != "assistant" or not _calls(m) or i == len(msgs) - 1:
            continue
        got = {hashable(obj(msgs[j]).get("tool_call_id")) for j in _tool_run(msgs, i)}
        for j, c in _calls(m):
            if hashable(c.get("id")) not in got:
                yield (
                    ptr("messages", i, "tool_calls", j),
                    f"tool call {short(c.get('id'))} has no role:tool message directly after it",
                )


@R(
    "openai-chat.tool-call.trailing",
    "The request does not end on an assistant message whose tool calls are unanswered.",
    "Same API error as openai-chat.tool-call.answered ('must be followed by tool messages responding to each tool_call_id')",
)
def trailing(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    if msgs and obj(msgs[-1]).get("role") == "assistant":
        for j, c in _calls(msgs[-1]):
            yield (
                ptr("messages", len(msgs) - 1, "tool_calls", j),
                f"the request ends on tool call {short(c.get('id'))} without its answer",
            )


@R(
    "openai-chat.tool-message.orphan",
    "A role:tool message answers a tool call of the assistant message the run of tool messages follows.",
    "API error text \"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.\"",
)
def orphan(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    owner: Any = None
    for i, m in enumerate(msgs):
        role = obj(m).get("role")
        if role == "tool":
            ids = {hashable(c.get("id")) for _, c in _calls(owner)}
            if hashable(obj(m).get("tool_call_id")) not in ids:
                yield (
                    ptr("messages", i),
                    f"tool message for {short(obj(m).get('tool_call_id'))} does not answer a call of the preceding assistant message",
                )
        else:
            owner = m if role == "assistant" else None


@R(
    "openai-chat.tool-message.once",
    "Each tool call is answered by exactly one role:tool message.",
    "toolwire design principle 4 (exactly one result per call) with the pairing rule of \"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'\"",
)
def once(body: Any) -> Iterator[Finding]:
    msgs = _messages(body)
    for i, m in enumerate(msgs):
        if obj(m).get("role") != "assistant":
            continue
        seen: set[Any] = set()
        for j in _tool_run(msgs, i):
            k = hashable(obj(msgs[j]).get("tool_call_id"))
            if k in seen:
                yield ptr("messages", j), f"tool call {short(obj(msgs[j]).get('tool_call_id'))} is answered twice"
            seen.add(k)


# --- tools and request-level settings -------------------------------------------------------------


@R(
    "openai-chat.tools.shape",
    "`tools` is an array of {type: function, function: {name, description?, parameters?, strict?}} (or custom tools).",
    "openai.types.chat.ChatCompletionFunctionToolParam (Required[function]: FunctionDefinition, Required[type])",
)
def tools_shape(body: Any) -> Iterator[Finding]:
    if "tools" not in obj(body):
        return
    tools = obj(body)["tools"]
    if not isinstance(tools, list):
        yield "/tools", f"`tools` must be an array, got {short(tools)}"
        return
    for i, t in enumerate(tools):
        t = t if is_obj(t) else None
        if t is None or t.get("type") not in ("function", "custom"):
            yield ptr("tools", i), f"a tool must be {{type: function, function: ...}}, got {short(tools[i])}"
        elif t["type"] == "function":
            fn = t.get("function")
            if not is_obj(fn):
                yield ptr("tools", i, "function"), "a function tool needs a `function` object"
            elif "parameters" in fn and not is_obj(fn["parameters"]):
                yield (
                    ptr("tools", i, "function", "parameters"),
                    f"parameters must be a JSON Schema object, got {short(fn['parameters'])}",
                )
            elif "strict" in fn and fn["strict"] is not None and not isinstance(fn["strict"], bool):
                yield ptr("tools", i, "function", "strict"), "strict must be a boolean"


@R(
    "openai-chat.tools.name",
    "A function name matches ^[a-zA-Z0-9_-]{1,64}$.",
    "openai.types.shared_params.FunctionDefinition.name docstring: 'Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64.'",
)
def tool_name(body: Any) -> Iterator[Finding]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        fn = obj(obj(t).get("function"))
        if obj(t).get("type") == "function" and (not is_str(fn.get("name")) or not FUNCTION_NAME.fullmatch(fn["name"])):
            yield (
                ptr("tools", i, "function", "name"),
                f"function name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {short(fn.get('name'))}",
            )


@R(
    "openai-chat.schema.root-object",
    'A function\'s parameters schema has `type: "object"` at its root.',
    "API error text \"Invalid schema for function 'f': schema must be a JSON Schema of 'type: \\\"object\\\"', got 'type: \\\"None\\\"'.\"",
)
def schema_root(body: Any) -> Iterator[Finding]:
    for i, fn in _function_tools(body):
        p = fn.get("parameters")
        if is_obj(p) and p.get("type") != "object":
            yield (
                ptr("tools", i, "function", "parameters", "type"),
                f"parameters must have type 'object', got {short(p.get('type'))}",
            )


def _strict_params(body: Any) -> Iterator[tuple[Any, str]]:
    for i, fn in _function_tools(body):
        if fn.get("strict") is True:
            yield fn.get("parameters"), ptr("tools", i, "function", "parameters")


@R(
    "openai-chat.strict.root",
    "A strict function's parameters are an object schema whose root is not anyOf.",
    strict.SRC_DOCS + " ('Root objects must not be anyOf and must be an object')",
)
def strict_root(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.root(s, at)


@R(
    "openai-chat.strict.additional-properties",
    "In a strict schema every object sets additionalProperties: false.",
    "API error text \"Invalid schema for function 'f': In context=(), 'additionalProperties' is required to be supplied and to be false.\" (xemantic/xemantic-ai-tool-schema#37)",
)
def strict_additional(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.additional_properties(s, at)


@R(
    "openai-chat.strict.required-all",
    "In a strict schema every object lists all its properties in `required`.",
    strict.SRC_DOCS
    + " ('All fields must be required'); API error \"'required' is required to be supplied and to be an array including every key in properties\"",
)
def strict_required(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.required_all(s, at)


@R(
    "openai-chat.strict.unsupported-keyword",
    "A strict schema uses none of allOf, not, dependentRequired, dependentSchemas, if/then/else.",
    strict.SRC_DOCS + " (unsupported composition keywords)",
)
def strict_unsupported(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.unsupported(s, at)


@R(
    "openai-chat.strict.ref",
    "In a strict schema a $ref has no sibling keywords and resolves inside the schema.",
    "openai.lib._pydantic.to_strict_json_schema (inlines any $ref that has sibling keys); API error text \"$ref cannot have keywords {'description'}\"",
)
def strict_ref(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.refs(s, at)


@R(
    "openai-chat.strict.limits",
    "A strict schema stays within 5000 object properties, 10 levels of object nesting and 1000 enum values.",
    strict.SRC_DOCS + " (limits)",
)
def strict_limits(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.limits(s, at)


@R(
    "openai-chat.request.parallel-without-tools",
    "parallel_tool_calls is sent only together with tools.",
    "API error text \"Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.\" (Upsonic/Upsonic#323)",
)
def parallel_without_tools(body: Any) -> Iterator[Finding]:
    if "parallel_tool_calls" in obj(body) and not arr(obj(body).get("tools")):
        yield "/parallel_tool_calls", "parallel_tool_calls is set but the request declares no tools"


@R(
    "openai-chat.request.tool-choice-without-tools",
    "tool_choice is sent only together with tools.",
    "API error text \"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.\"",
)
def tool_choice_without_tools(body: Any) -> Iterator[Finding]:
    if "tool_choice" in obj(body) and not arr(obj(body).get("tools")):
        yield "/tool_choice", "tool_choice is set but the request declares no tools"


@R(
    "openai-chat.request.tool-choice-shape",
    "tool_choice is none/auto/required, {type: function, function: {name}} naming a declared function, {type: custom, ...} or {type: allowed_tools, ...}.",
    "openai.types.chat.ChatCompletionToolChoiceOptionParam",
)
def tool_choice_shape(body: Any) -> Iterator[Finding]:
    if "tool_choice" not in obj(body):
        return
    tc = obj(body)["tool_choice"]
    if tc in ("none", "auto", "required"):
        return
    if not is_obj(tc) or tc.get("type") not in ("function", "custom", "allowed_tools"):
        yield "/tool_choice", f"tool_choice must be none, auto, required or a tool object, got {short(tc)}"
        return
    if tc["type"] == "function":
        name = obj(tc.get("function")).get("name")
        names = {hashable(fn.get("name")) for _, fn in _function_tools(body)}
        if not is_str(name):
            yield "/tool_choice/function", "tool_choice {type: function} needs function.name"
        elif names and name not in names:
            yield "/tool_choice/function/name", f"tool_choice names {name!r}, which is not among the declared functions"


#: Chat models without function calling, written from the error reports below (not from the profile).
_TOOLLESS_MODELS = (
    "gpt-5-chat-latest",
    "chatgpt-4o-latest",
    "gpt-4o-search-preview",
    "gpt-4o-mini-search-preview",
    "o1-mini",
    "o1-preview",
    "gpt-4-vision-preview",
)


def toolless_model(model: Any) -> bool:
    """Whether ``model`` (``openai/`` prefix and a ``-YYYY-MM-DD`` snapshot date allowed) is one of
    the models that refuse function tools."""
    if not is_str(model):
        return False
    name = model.split("/")[-1].lower()
    name = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", name)
    return name in _TOOLLESS_MODELS


@R(
    "openai-chat.request.function-calling-model",
    "Function tools are not sent to a model without function calling (gpt-5-chat-latest, chatgpt-4o-latest, the search-preview models, o1-mini, o1-preview).",
    'API error text "tools is not supported in this model. For a list of supported models, refer to https://platform.openai.com/docs/guides/function-calling#models-supporting-function-calling." (sbintuitions/flexeval#242)',
)
def function_calling_model(body: Any) -> Iterator[Finding]:
    if toolless_model(obj(body).get("model")) and any(True for _ in _function_tools(body)):
        yield "/tools", f"{obj(body).get('model')} takes no function tools"
