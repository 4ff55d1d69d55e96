"""OpenAI Responses (``POST /responses``) request rules, from this module's own reading of the SDK
request types (``openai.types.responses.*Param``), the docs and quoted error texts.

Provider label ``openai`` (old data: ``openai-responses``)."""

from __future__ import annotations

import re
from typing import Any, Iterator

from . import _openai_schema as strict
from ._base import Finding, Names, RuleSet, arr, hashable, is_obj, is_str, json_object_text, obj, ptr, short

rules = RuleSet("openai")
R = rules.rule

FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: ``type`` of every ResponseInputItemParam member (openai.types.responses.response_input_item_param).
ITEM_TYPES = Names(
    {
        "message",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "web_search_call",
        "function_call",
        "function_call_output",
        "tool_search_call",
        "tool_search_output",
        "additional_tools",
        "configuration_update",
        "reasoning",
        "compaction",
        "image_generation_call",
        "code_interpreter_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "mcp_call",
        "custom_tool_call_output",
        "custom_tool_call",
        "compaction_trigger",
        "item_reference",
        "program",
        "program_output",
    }
)
#: Items the model produced (what a reasoning item may precede).
OUTPUT_KINDS = Names(
    {
        "function_call",
        "custom_tool_call",
        "file_search_call",
        "computer_call",
        "web_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "tool_search_call",
    }
)
#: Item-id prefixes the API checks ("Expected an ID that begins with 'fc'").
ID_PREFIX = {"function_call": "fc", "reasoning": "rs", "message": "msg"}
INPUT_PARTS = Names({"input_text", "input_image", "input_file"})
OUTPUT_PARTS = Names({"output_text", "refusal"})


def _items(body: Any) -> list[Any]:
    return arr(obj(body).get("input"))


def _kind(item: Any) -> Any:
    """An item's kind: its ``type``, or ``message`` for the easy form ({role, content})."""
    it = obj(item)
    if "type" in it:
        return it["type"]
    return "message" if "role" in it else None


def _continued(body: Any) -> bool:
    return bool(obj(body).get("previous_response_id") or obj(body).get("conversation"))


@R(
    "openai.body.shape",
    "The body is an object with a string `model`; `input` is a string or an array of item objects of known kinds.",
    "openai.types.responses.response_create_params.ResponseCreateParamsBase (input: Union[str, ResponseInputParam]); ResponseInputItemParam members",
)
def body_shape(body: Any) -> Iterator[Finding]:
    if not is_obj(body):
        yield "", f"the request body must be a JSON object, got {short(body)}"
        return
    if not is_str(body.get("model")) or not body.get("model"):
        yield "/model", f"`model` must be a non-empty string, got {short(body.get('model'))}"
    inp = body.get("input")
    if inp is None or isinstance(inp, str):
        return
    if not isinstance(inp, list):
        yield "/input", f"`input` must be a string or an array of items, got {short(inp)}"
        return
    for i, it in enumerate(inp):
        if not is_obj(it):
            yield ptr("input", i), f"an input item must be an object, got {short(it)}"
        elif _kind(it) not in ITEM_TYPES:
            yield ptr("input", i, "type"), f"unknown input item kind {short(_kind(it))}"


@R(
    "openai.message.shape",
    "A message item has role user/assistant/system/developer and content (string, or parts: input_text/input_image/input_file for user, system and developer; output_text/refusal for assistant).",
    "openai.types.responses.EasyInputMessageParam / ResponseOutputMessageParam.Content (output_text | refusal) / ResponseInputMessageContentListParam; API error \"Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.\"",
)
def message_shape(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        if _kind(it) != "message":
            continue
        it = obj(it)
        role = it.get("role")
        if role not in ("user", "assistant", "system", "developer"):
            yield ptr("input", i, "role"), f"unknown message role {short(role)}"
            continue
        c = it.get("content")
        if isinstance(c, str):
            continue
        if not isinstance(c, list):
            yield ptr("input", i, "content"), f"message content must be a string or an array of parts, got {short(c)}"
            continue
        allowed = OUTPUT_PARTS if role == "assistant" else INPUT_PARTS
        for j, p in enumerate(c):
            t = obj(p).get("type")
            if t not in allowed:
                yield (
                    ptr("input", i, "content", j, "type"),
                    f"a {role} message cannot hold a {short(t)} part (allowed: {sorted(allowed)})",
                )
            elif t in ("input_text", "output_text") and not is_str(obj(p).get("text")):
                yield ptr("input", i, "content", j, "text"), "text part without a string `text`"


@R(
    "openai.item.id-prefix",
    "An item id, when sent, has the prefix of its kind: fc_ for function_call, rs_ for reasoning, msg_ for message.",
    "API error text \"Invalid 'input[2].id': 'msg_...'. Expected an ID that begins with 'fc'.\" (continuedev/continue#11785)",
)
def id_prefix(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        k = _kind(it)
        if is_str(k) and k in ID_PREFIX and "id" in obj(it) and obj(it)["id"] is not None:
            v = obj(it)["id"]
            if not is_str(v) or not v.startswith(ID_PREFIX[k]):
                yield ptr("input", i, "id"), f"a {k} item id must begin with {ID_PREFIX[k]!r}, got {short(v)}"


@R(
    "openai.function_call.shape",
    "A function_call item has string call_id, name and arguments.",
    "openai.types.responses.ResponseFunctionToolCallParam (Required[arguments: str], Required[call_id], Required[name], Required[type])",
)
def function_call_shape(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        if _kind(it) != "function_call":
            continue
        for key in ("call_id", "name", "arguments"):
            v = obj(it).get(key)
            if not is_str(v) or (key != "arguments" and not v):
                yield (
                    ptr("input", i, key),
                    f"function_call {key} must be a {'non-empty ' if key != 'arguments' else ''}string, got {short(v)}",
                )


@R(
    "openai.function_call.arguments-json",
    "function_call.arguments holds the text of a JSON object.",
    "API error text 'arguments must be a valid JSON object string' (justrach/codegraff#752); vLLM's /v1/responses rejects malformed history arguments (local-inference-lab/vllm#684)",
)
def arguments_json(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        a = obj(it).get("arguments")
        if _kind(it) == "function_call" and is_str(a) and not json_object_text(a):
            yield ptr("input", i, "arguments"), f"arguments {short(a)} is not a JSON object"


@R(
    "openai.function_call.unique-id",
    "function_call call_ids are unique across the input.",
    "API error text 'No tool output found for function call <call_id>.' — outputs pair with calls by call_id, so ids must be unique",
)
def unique_call_id(body: Any) -> Iterator[Finding]:
    seen: set[Any] = set()
    for i, it in enumerate(_items(body)):
        if _kind(it) == "function_call":
            k = hashable(obj(it).get("call_id"))
            if k in seen:
                yield ptr("input", i, "call_id"), f"call_id {short(obj(it).get('call_id'))} is used twice"
            seen.add(k)


def _outputs_after(items: list[Any], i: int) -> set[Any]:
    return {hashable(obj(x).get("call_id")) for x in items[i + 1 :] if _kind(x) == "function_call_output"}


def _trailing_calls(items: list[Any]) -> set[int]:
    """Indices of the function_calls in the final run of model output (reasoning, calls, assistant
    messages) that no later item answers: the input ends on them."""
    out: set[int] = set()
    j = len(items) - 1
    while j >= 0 and (
        _kind(items[j]) in OUTPUT_KINDS | {"reasoning"}
        or (_kind(items[j]) == "message" and obj(items[j]).get("role") == "assistant")
    ):
        if _kind(items[j]) == "function_call":
            out.add(j)
        j -= 1
    return out


@R(
    "openai.function_call.answered",
    "Every function_call is answered by a later function_call_output with its call_id.",
    "API error text 'No tool output found for function call call_...' (openai Responses API; lace-ai/gai#49)",
)
def answered(body: Any) -> Iterator[Finding]:
    items = _items(body)
    trailing = _trailing_calls(items)
    for i, it in enumerate(items):
        if (
            _kind(it) == "function_call"
            and i not in trailing
            and hashable(obj(it).get("call_id")) not in _outputs_after(items, i)
        ):
            yield ptr("input", i), f"function_call {short(obj(it).get('call_id'))} has no function_call_output"


@R(
    "openai.function_call.trailing",
    "The input does not end on function_call items without their outputs.",
    "Same API error as openai.function_call.answered ('No tool output found for function call')",
)
def trailing(body: Any) -> Iterator[Finding]:
    items = _items(body)
    for i in sorted(_trailing_calls(items)):
        yield (
            ptr("input", i),
            f"the input ends on function_call {short(obj(items[i]).get('call_id'))} without its output",
        )


@R(
    "openai.function_call_output.orphan",
    "A function_call_output answers an earlier function_call of the input (unless previous_response_id or conversation continues stored items).",
    "API error text 'No tool call found for function call output with call_id call_...' (james-6-23/codex2api#414)",
)
def orphan(body: Any) -> Iterator[Finding]:
    if _continued(body):
        return
    seen: set[Any] = set()
    for i, it in enumerate(_items(body)):
        if _kind(it) == "function_call":
            seen.add(hashable(obj(it).get("call_id")))
        elif _kind(it) == "function_call_output" and hashable(obj(it).get("call_id")) not in seen:
            yield (
                ptr("input", i, "call_id"),
                f"function_call_output {short(obj(it).get('call_id'))} answers no earlier function_call",
            )


@R(
    "openai.function_call_output.once",
    "A function_call is answered by exactly one function_call_output.",
    "toolwire design principle 4 (exactly one result per call) with the call_id pairing of 'No tool call found for function call output'",
)
def once(body: Any) -> Iterator[Finding]:
    seen: set[Any] = set()
    for i, it in enumerate(_items(body)):
        if _kind(it) == "function_call_output":
            k = hashable(obj(it).get("call_id"))
            if k in seen:
                yield ptr("input", i, "call_id"), f"call_id {short(obj(it).get('call_id'))} is answered twice"
            seen.add(k)


@R(
    "openai.function_call_output.shape",
    "A function_call_output has a string call_id and output: a string or an array of input_text/input_image/input_file parts.",
    "openai.types.responses.response_input_item_param.FunctionCallOutput (Required[output]: str | ResponseFunctionCallOutputItemListParam)",
)
def output_shape(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        if _kind(it) != "function_call_output":
            continue
        it = obj(it)
        if not is_str(it.get("call_id")) or not it.get("call_id"):
            yield (
                ptr("input", i, "call_id"),
                f"function_call_output needs a string call_id, got {short(it.get('call_id'))}",
            )
        out = it.get("output")
        if isinstance(out, str):
            continue
        if not isinstance(out, list):
            yield ptr("input", i, "output"), f"output must be a string or an array of parts, got {short(out)}"
            continue
        for j, p in enumerate(out):
            if obj(p).get("type") not in INPUT_PARTS:
                yield (
                    ptr("input", i, "output", j),
                    f"an output part must be input_text, input_image or input_file, got {short(p)}",
                )


@R(
    "openai.reasoning.shape",
    "A reasoning item carries a string id and a summary array of summary_text parts.",
    "openai.types.responses.ResponseReasoningItemParam (Required[id], Required[summary]: Iterable[Summary{text, type: summary_text}])",
)
def reasoning_shape(body: Any) -> Iterator[Finding]:
    for i, it in enumerate(_items(body)):
        if _kind(it) != "reasoning":
            continue
        it = obj(it)
        if not is_str(it.get("id")) or not it.get("id"):
            yield ptr("input", i, "id"), "a reasoning item needs the id the API gave it"
        if not isinstance(it.get("summary"), list):
            yield ptr("input", i, "summary"), f"a reasoning item needs a summary array, got {short(it.get('summary'))}"
        else:
            for j, s in enumerate(it["summary"]):
                if obj(s).get("type") != "summary_text" or not is_str(obj(s).get("text")):
                    yield (
                        ptr("input", i, "summary", j),
                        f"a summary part is {{type: summary_text, text}}, got {short(s)}",
                    )
        if "encrypted_content" in it and it["encrypted_content"] is not None and not is_str(it["encrypted_content"]):
            yield ptr("input", i, "encrypted_content"), "encrypted_content must be a string"


@R(
    "openai.reasoning.following-item",
    "A reasoning item is followed (after any further reasoning items) by the output item it preceded: a function call or an assistant message.",
    "API error text \"Item 'rs_...' of type 'reasoning' was provided without its required following item.\" (continuedev/continue#8933, vercel/ai#7099)",
)
def reasoning_following(body: Any) -> Iterator[Finding]:
    items = _items(body)
    for i, it in enumerate(items):
        if _kind(it) != "reasoning":
            continue
        j = i + 1
        while j < len(items) and _kind(items[j]) == "reasoning":
            j += 1
        nxt = items[j] if j < len(items) else None
        ok = _kind(nxt) in OUTPUT_KINDS or (_kind(nxt) == "message" and obj(nxt).get("role") == "assistant")
        if not ok:
            yield ptr("input", i), "reasoning item without its following output item (a call or an assistant message)"


# --- tools and request-level settings -------------------------------------------------------


def _function_tools(body: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        if is_obj(t) and t.get("type") == "function":
            yield i, t


@R(
    "openai.tools.shape",
    "`tools` is an array of objects with a string `type`; a function tool's parameters is an object or null and strict a boolean or null (both may be absent: recorded requests omit strict).",
    "openai.types.responses.FunctionToolParam (parameters: Optional[dict], strict: Optional[bool], Required[type])",
)
def tools_shape(body: Any) -> Iterator[Finding]:
    if "tools" not in obj(body):
        return
    tools = obj(body)["tools"]
    if not isinstance(tools, list):
        yield "/tools", f"`tools` must be an array, got {short(tools)}"
        return
    for i, t in enumerate(tools):
        if not is_obj(t) or not is_str(t.get("type")):
            yield ptr("tools", i), f"a tool must be an object with a string type, got {short(t)}"
            continue
        if t["type"] != "function":
            continue
        if not (t.get("parameters") is None or is_obj(t["parameters"])):
            yield (
                ptr("tools", i, "parameters"),
                f"parameters must be a schema object or null, got {short(t.get('parameters'))}",
            )
        if not (t.get("strict") is None or isinstance(t["strict"], bool)):
            yield ptr("tools", i, "strict"), f"strict must be a boolean or null, got {short(t.get('strict'))}"


@R(
    "openai.tools.name",
    "A function name matches ^[a-zA-Z0-9_-]{1,64}$.",
    "API error text \"Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.\"; length as openai.types.shared_params.FunctionDefinition.name (max 64)",
)
def tool_name(body: Any) -> Iterator[Finding]:
    for i, t in _function_tools(body):
        if not is_str(t.get("name")) or not FUNCTION_NAME.fullmatch(t["name"]):
            yield (
                ptr("tools", i, "name"),
                f"function name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {short(t.get('name'))}",
            )


@R(
    "openai.schema.root-object",
    'A function\'s parameters schema has `type: "object"` at its root.',
    "API error text \"Invalid schema for function 'f': schema must be a JSON Schema of 'type: \\\"object\\\"', got 'type: \\\"None\\\"'.\"",
)
def schema_root(body: Any) -> Iterator[Finding]:
    for i, t in _function_tools(body):
        p = t.get("parameters")
        if is_obj(p) and p.get("type") != "object":
            yield (
                ptr("tools", i, "parameters", "type"),
                f"parameters must have type 'object', got {short(p.get('type'))}",
            )


def _strict_params(body: Any) -> Iterator[tuple[Any, str]]:
    for i, t in _function_tools(body):
        if t.get("strict") is True:
            yield t.get("parameters"), ptr("tools", i, "parameters")


@R(
    "openai.strict.root",
    "A strict function's parameters are an object schema whose root is not anyOf.",
    strict.SRC_DOCS + " ('Root objects must not be anyOf and must be an object')",
)
def strict_root(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.root(s, at)


@R(
    "openai.strict.additional-properties",
    "In a strict schema every object sets additionalProperties: false.",
    "API error text \"Invalid schema for function 'filesystem-set_permissions': In context=('properties', 'permissions'), 'additionalProperties' is required to be supplied and to be false.\" (lastmile-ai/openai-agents-mcp#2, param tools[22].parameters)",
)
def strict_additional(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.additional_properties(s, at)


@R(
    "openai.strict.required-all",
    "In a strict schema every object lists all its properties in `required`.",
    strict.SRC_DOCS + " ('All fields must be required')",
)
def strict_required(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.required_all(s, at)


@R(
    "openai.strict.unsupported-keyword",
    "A strict schema uses none of allOf, not, dependentRequired, dependentSchemas, if/then/else.",
    strict.SRC_DOCS + " (unsupported composition keywords)",
)
def strict_unsupported(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.unsupported(s, at)


@R(
    "openai.strict.ref",
    "In a strict schema a $ref has no sibling keywords and resolves inside the schema.",
    "openai.lib._pydantic.to_strict_json_schema (inlines any $ref that has sibling keys); API error text \"$ref cannot have keywords {'description'}\"",
)
def strict_ref(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.refs(s, at)


@R(
    "openai.strict.limits",
    "A strict schema stays within 5000 object properties, 10 levels of object nesting and 1000 enum values.",
    strict.SRC_DOCS + " (limits)",
)
def strict_limits(body: Any) -> Iterator[Finding]:
    for s, at in _strict_params(body):
        yield from strict.limits(s, at)


@R(
    "openai.request.tool-choice-shape",
    "tool_choice is none/auto/required or a tool object; {type: function, name} names a declared function.",
    "openai.types.responses.response_create_params.ToolChoice (ToolChoiceOptions | ToolChoiceFunctionParam{name, type} | ToolChoiceAllowedParam | ...)",
)
def tool_choice_shape(body: Any) -> Iterator[Finding]:
    if "tool_choice" not in obj(body):
        return
    tc = obj(body)["tool_choice"]
    if tc in ("none", "auto", "required"):
        return
    if not is_obj(tc) or not is_str(tc.get("type")):
        yield "/tool_choice", f"tool_choice must be none, auto, required or a tool object, got {short(tc)}"
        return
    if tc["type"] == "function":
        names = {hashable(t.get("name")) for _, t in _function_tools(body)}
        if not is_str(tc.get("name")):
            yield "/tool_choice/name", "tool_choice {type: function} needs a name"
        elif tc["name"] not in names:
            yield "/tool_choice/name", f"tool_choice names {tc['name']!r}, which is not among the declared functions"


@R(
    "openai.reasoning.minimal-web-search",
    "Reasoning effort 'minimal' is not sent together with a web_search tool.",
    "API error \"The following tools cannot be used with reasoning.effort 'minimal': web_search.\" (openai/codex#3559)",
)
def minimal_web_search(body: Any) -> Iterator[Finding]:
    if obj(obj(body).get("reasoning")).get("effort") != "minimal":
        return
    for i, t in enumerate(arr(obj(body).get("tools"))):
        kind = obj(t).get("type")
        if is_str(kind) and kind.startswith("web_search"):
            yield ptr("tools", i), f"{kind} cannot be used with reasoning effort 'minimal'"


@R(
    "openai.request.function-calling-model",
    "Function tools are not sent to a model without function calling (gpt-5-chat-latest, chatgpt-4o-latest, o1-mini, o1-preview, ...).",
    'API error text "tools is not supported in this model. For a list of supported models, refer to https://platform.openai.com/docs/guides/function-calling#models-supporting-function-calling." (sbintuitions/flexeval#242)',
)
def function_calling_model(body: Any) -> Iterator[Finding]:
    from .openai_chat import toolless_model

    if toolless_model(obj(body).get("model")) and any(True for _ in _function_tools(body)):
        yield "/tools", f"{obj(body).get('model')} takes no function tools"
