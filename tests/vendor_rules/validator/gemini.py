"""Gemini ``generateContent`` request rules, from this module's own reading of the SDK types
(``google.genai.types``), the REST reference and quoted error texts.

The REST API reads proto JSON, which accepts both camelCase and snake_case field names; both are
accepted here wherever the SDK or a recording uses them."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterator

from ._base import Finding, Names, RuleSet, arr, hashable, is_obj, is_str, join, obj, ptr, short

rules = RuleSet("gemini")
R = rules.rule

FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
MODES = {"AUTO", "ANY", "NONE", "VALIDATED"}

#: Part fields (google.genai.types.Part) in both spellings: the ``data`` oneof and the metadata.
DATA_FIELDS = {
    "text": "text",
    "inlineData": "inline_data",
    "fileData": "file_data",
    "functionCall": "function_call",
    "functionResponse": "function_response",
    "executableCode": "executable_code",
    "codeExecutionResult": "code_execution_result",
    "toolCall": "tool_call",
    "toolResponse": "tool_response",
}
META_FIELDS = {
    "thought": "thought",
    "thoughtSignature": "thought_signature",
    "videoMetadata": "video_metadata",
    "partMetadata": "part_metadata",
    "mediaResolution": "media_resolution",
}
PART_KEYS = Names({*DATA_FIELDS, *DATA_FIELDS.values(), *META_FIELDS, *META_FIELDS.values()})

#: Keys of the OpenAPI-subset ``Schema`` the Gemini API accepts under ``parameters``
#: (https://ai.google.dev/api/caching#Schema), in both spellings.
SCHEMA_KEYS = Names(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "properties",
        "required",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "min_items",
        "max_items",
        "min_length",
        "max_length",
        "min_properties",
        "max_properties",
        "any_of",
        "property_ordering",
    }
)


def g(d: Any, camel: str, snake: str) -> Any:
    """A field under either spelling."""
    d = obj(d)
    return d[camel] if camel in d else d.get(snake)


def _contents(body: Any) -> list[Any]:
    return arr(obj(body).get("contents"))


def _parts(c: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, p) for i, p in enumerate(arr(obj(c).get("parts"))) if is_obj(p)]


def _calls(c: Any) -> list[tuple[int, Any]]:
    return [
        (i, g(p, "functionCall", "function_call")) for i, p in _parts(c) if "functionCall" in p or "function_call" in p
    ]


def _responses(c: Any) -> list[tuple[int, Any]]:
    return [
        (i, g(p, "functionResponse", "function_response"))
        for i, p in _parts(c)
        if "functionResponse" in p or "function_response" in p
    ]


def _role(c: Any) -> Any:
    r = obj(c).get("role")
    return "user" if r is None else r


# --- body, contents, parts ------------------------------------------------------------------


@R(
    "gemini.body.shape",
    "The body is an object with a non-empty `contents` array of Content objects.",
    "google.genai.types.GenerateContentParameters.contents; API error 'Unable to submit request because it must include at least one parts field' / 'contents is not specified'",
)
def body_shape(body: Any) -> Iterator[Finding]:
    if not is_obj(body):
        yield "", f"the request body must be a JSON object, got {short(body)}"
        return
    cs = body.get("contents")
    if not isinstance(cs, list) or not cs:
        yield "/contents", f"`contents` must be a non-empty array, got {short(cs)}"
        return
    for i, c in enumerate(cs):
        if not is_obj(c):
            yield ptr("contents", i), f"a Content must be an object, got {short(c)}"


@R(
    "gemini.content.role",
    "A Content's role is 'user' or 'model' (absent means user).",
    "google.genai.types.Content.role docstring: 'Must be either 'user' or 'model'. If not set, the service will default to 'user'.'",
)
def content_role(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        if is_obj(c) and _role(c) not in ("user", "model"):
            yield ptr("contents", i, "role"), f"role must be 'user' or 'model', got {short(obj(c).get('role'))}"


@R(
    "gemini.content.parts-non-empty",
    "Every Content has a non-empty `parts` array.",
    "API error text 'GenerateContentRequest.contents[1].parts: contents.parts must not be empty.' (vercel/ai#3775)",
)
def parts_non_empty(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        if is_obj(c) and (not isinstance(c.get("parts"), list) or not c["parts"]):
            yield ptr("contents", i, "parts"), "contents.parts must not be empty"


@R(
    "gemini.part.one-data-field",
    "Every Part is an object holding exactly one data field (text, inlineData, fileData, functionCall, functionResponse, ...).",
    "API error text \"contents[2].parts[1].data: required oneof field 'data' must have one initialized field\" (54xzh/FLIT#69); google.genai.types.Part",
)
def one_data_field(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, p in enumerate(arr(obj(c).get("parts"))):
            if not is_obj(p):
                yield ptr("contents", i, "parts", j), f"a Part must be an object, got {short(p)}"
                continue
            n = sum(1 for k in p if k in DATA_FIELDS or k in DATA_FIELDS.values())
            if n != 1:
                yield ptr("contents", i, "parts", j), f"a Part must hold exactly one data field, found {n}"


@R(
    "gemini.part.unknown-field",
    "A Part carries only the fields the API knows.",
    "API error text 'Invalid JSON payload received. Unknown name \"id\" at 'contents[1].parts[0]': Cannot find field.' (Chevey339/kelivo#543)",
)
def unknown_field(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, p in _parts(c):
            for k in p:
                if k not in PART_KEYS:
                    yield ptr("contents", i, "parts", j, k), f"unknown Part field {k!r}"


def _is_base64(v: Any) -> bool:
    if not is_str(v) or not v:
        return False
    for alt in (None, b"-_"):
        try:
            base64.b64decode(v, altchars=alt, validate=True)
            return True
        except (binascii.Error, ValueError):
            continue
    return False


@R(
    "gemini.part.thought-signature",
    "A thoughtSignature is base64 text, and thought parts and signatures appear only in model contents.",
    "google.genai.types.Part.thought_signature: bytes (base64 in proto JSON); Part.thought docstring: 'Indicates if the part is thought from the model.'",
)
def thought_signature(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, p in _parts(c):
            sig_key = (
                "thoughtSignature"
                if "thoughtSignature" in p
                else "thought_signature"
                if "thought_signature" in p
                else None
            )
            if sig_key and not _is_base64(p[sig_key]):
                yield ptr("contents", i, "parts", j, sig_key), "thoughtSignature is not base64 text"
            if _role(c) != "model" and (sig_key or p.get("thought") is True):
                yield (
                    ptr("contents", i, "parts", j),
                    "thought parts and thought signatures belong to model contents only",
                )


@R(
    "gemini.inline-data.shape",
    "inlineData carries a mimeType string and base64 `data`.",
    "google.genai.types.Blob (mime_type: str, data: bytes — base64 in proto JSON)",
)
def inline_data(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, p in _parts(c):
            if "inlineData" not in p and "inline_data" not in p:
                continue
            blob = g(p, "inlineData", "inline_data")
            if not is_str(g(blob, "mimeType", "mime_type")) or not _is_base64(obj(blob).get("data")):
                yield ptr("contents", i, "parts", j), "inlineData needs a mimeType and base64 data"


# --- function calls and responses -----------------------------------------------------------


@R(
    "gemini.function-call.shape",
    "A functionCall has a non-empty string name, an object `args` (when present) and a string `id` (when present).",
    "google.genai.types.FunctionCall (name: Required per docstring, args: dict[str, Any], id: Optional[str])",
)
def call_shape(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, fc in _calls(c):
            at = ptr("contents", i, "parts", j)
            if not is_obj(fc):
                yield at, f"functionCall must be an object, got {short(fc)}"
                continue
            if not is_str(fc.get("name")) or not fc.get("name"):
                yield at, f"functionCall needs a name, got {short(fc.get('name'))}"
            if "args" in fc and not is_obj(fc["args"]):
                yield at, f"functionCall.args must be an object, got {short(fc['args'])}"
            if "id" in fc and not is_str(fc["id"]):
                yield at, f"functionCall.id must be a string, got {short(fc['id'])}"


@R(
    "gemini.function-response.shape",
    "A functionResponse has a string name and an object `response`.",
    "google.genai.types.FunctionResponse (name: 'Required', response: dict[str, Any])",
)
def response_shape(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        for j, fr in _responses(c):
            at = ptr("contents", i, "parts", j)
            if not is_obj(fr) or not is_str(fr.get("name")) or not fr.get("name"):
                yield at, f"functionResponse needs a name, got {short(obj(fr).get('name'))}"
            elif not is_obj(fr.get("response")):
                yield at, f"functionResponse.response must be an object, got {short(fr.get('response'))}"


@R(
    "gemini.function-call.role",
    "functionCall parts appear only in model contents and functionResponse parts only in user contents.",
    "google.genai.types.Tool docstring ('Provide a FunctionResponse for each function call in the next turn'); Content.role ('user' or 'model')",
)
def call_role(body: Any) -> Iterator[Finding]:
    for i, c in enumerate(_contents(body)):
        if _role(c) != "model":
            for j, _ in _calls(c):
                yield ptr("contents", i, "parts", j), "functionCall in a non-model content"
        if _role(c) == "model":
            for j, _ in _responses(c):
                yield ptr("contents", i, "parts", j), "functionResponse in a model content"


@R(
    "gemini.function-call.position",
    "A model content holding function calls comes right after a user content (a user turn or a function response turn).",
    "API error text 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.' (google-gemini/gemini-cli#11814)",
)
def call_position(body: Any) -> Iterator[Finding]:
    cs = _contents(body)
    for i, c in enumerate(cs):
        if _role(c) == "model" and _calls(c) and (i == 0 or _role(cs[i - 1]) != "user"):
            yield (
                ptr("contents", i),
                "a function call turn must come immediately after a user turn or a function response turn",
            )


@R(
    "gemini.function-response.position",
    "A content holding function responses comes right after the model content holding the function calls.",
    "API error text 'Please ensure that function response turn comes immediately after a function call turn.' (langchain-ai/langchain#27799)",
)
def response_position(body: Any) -> Iterator[Finding]:
    cs = _contents(body)
    for i, c in enumerate(cs):
        if _responses(c) and (i == 0 or _role(cs[i - 1]) != "model" or not _calls(cs[i - 1])):
            yield ptr("contents", i), "a function response turn must come immediately after a function call turn"


@R(
    "gemini.function-response.count",
    "The content after a function call turn holds as many functionResponse parts as the turn has functionCall parts.",
    "API error text 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.' (google-gemini/gemini-cli#4217)",
)
def response_count(body: Any) -> Iterator[Finding]:
    cs = _contents(body)
    for i, c in enumerate(cs):
        if _role(c) != "model" or not _calls(c) or i + 1 >= len(cs):
            continue
        n, m = len(_calls(c)), len(_responses(cs[i + 1]))
        if n != m:
            yield ptr("contents", i + 1), f"{m} functionResponse parts answer {n} functionCall parts of contents[{i}]"


@R(
    "gemini.function-response.match",
    "Each function call is answered by a functionResponse with its name, and with its id when the call had one.",
    "google.genai.types.FunctionCall.id docstring ('the client to execute the function_call and return the response with the matching id'); FunctionResponse.name ('Should match FunctionDeclaration.name')",
)
def response_match(body: Any) -> Iterator[Finding]:
    cs = _contents(body)
    for i, c in enumerate(cs):
        if _role(c) != "model" or not _calls(c) or i + 1 >= len(cs):
            continue
        pool = [obj(fr) for _, fr in _responses(cs[i + 1])]
        for j, fc in _calls(c):
            fc = obj(fc)
            want = (hashable(fc.get("name")), hashable(fc.get("id")) if "id" in fc else None)
            hit = next(
                (
                    k
                    for k, fr in enumerate(pool)
                    if (hashable(fr.get("name")), hashable(fr.get("id")) if "id" in fc else None) == want
                ),
                None,
            )
            if hit is None:
                yield (
                    ptr("contents", i, "parts", j),
                    f"function call {short(fc.get('name'))} (id {short(fc.get('id'))}) has no matching functionResponse in contents[{i + 1}]",
                )
            else:
                pool.pop(hit)


@R(
    "gemini.function-call.trailing",
    "The contents do not end on a model turn whose function calls are unanswered.",
    "google.genai.types.Tool docstring: 'Provide a FunctionResponse for each function call in the next turn'",
)
def call_trailing(body: Any) -> Iterator[Finding]:
    cs = _contents(body)
    if cs and _role(cs[-1]) == "model":
        for j, fc in _calls(cs[-1]):
            yield (
                ptr("contents", len(cs) - 1, "parts", j),
                f"the request ends on function call {short(obj(fc).get('name'))} without its response",
            )


# --- tools and tool config ---------------------------------------------------------------------


def _declarations(body: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    for i, t in enumerate(arr(obj(body).get("tools"))):
        key = "functionDeclarations" if "functionDeclarations" in obj(t) else "function_declarations"
        for j, d in enumerate(arr(obj(t).get(key))):
            if is_obj(d):
                yield ptr("tools", i, key, j), d


@R(
    "gemini.tools.shape",
    "`tools` is an array of Tool objects; functionDeclarations is an array of declaration objects.",
    "google.genai.types.Tool.function_declarations: Optional[list[FunctionDeclaration]]",
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
            yield ptr("tools", i), f"a Tool must be an object, got {short(t)}"
            continue
        for key in ("functionDeclarations", "function_declarations"):
            if key in t:
                if not isinstance(t[key], list):
                    yield ptr("tools", i, key), "functionDeclarations must be an array"
                else:
                    for j, d in enumerate(t[key]):
                        if not is_obj(d):
                            yield ptr("tools", i, key, j), f"a FunctionDeclaration must be an object, got {short(d)}"


@R(
    "gemini.tools.name",
    "A function name starts with a letter or underscore and holds only a-z, A-Z, 0-9, _ . : - (at most 128).",
    "google.genai.types.FunctionDeclaration.name docstring: 'Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128.'",
)
def tool_name(body: Any) -> Iterator[Finding]:
    for at, d in _declarations(body):
        if not is_str(d.get("name")) or not FUNCTION_NAME.fullmatch(d["name"]):
            yield join(at, "name"), f"function name {short(d.get('name'))} breaks the Gemini naming rule"


def _params(d: dict[str, Any]) -> tuple[str | None, Any]:
    for k in ("parameters",):
        if k in d:
            return k, d[k]
    return None, None


def _json_params(d: dict[str, Any]) -> tuple[str | None, Any]:
    for k in ("parametersJsonSchema", "parameters_json_schema"):
        if k in d:
            return k, d[k]
    return None, None


@R(
    "gemini.schema.exclusive",
    "A declaration sends `parameters` or `parametersJsonSchema`, never both.",
    "google.genai.types.FunctionDeclaration.parameters_json_schema docstring: 'This field is mutually exclusive with `parameters`.'",
)
def schema_exclusive(body: Any) -> Iterator[Finding]:
    for at, d in _declarations(body):
        if _params(d)[0] and _json_params(d)[0]:
            yield at, "parameters and parametersJsonSchema are mutually exclusive"


def _subset(node: Any, at: str, depth: int = 0) -> Iterator[Finding]:
    if depth > 100:
        return
    if not is_obj(node):
        yield at, f"a schema must be an object, got {short(node)}"
        return
    for k in node:
        if k not in SCHEMA_KEYS:
            yield join(at, k), f"Unknown name {k!r} in the OpenAPI-subset Schema"
    t = node.get("type")
    if "type" in node and (not is_str(t) or t.upper() not in TYPES):
        yield join(at, "type"), f"type must be one of {sorted(TYPES)} (a single string), got {short(t)}"
    if "enum" in node and (not isinstance(node["enum"], list) or not all(is_str(e) for e in node["enum"])):
        yield join(at, "enum"), "enum values must be strings"
    elif "enum" in node and "" in node["enum"]:
        yield join(at, "enum", node["enum"].index("")), "an enum member cannot be empty"
    others = [k for k in node if k not in ("anyOf", "any_of")]
    if ("anyOf" in node or "any_of" in node) and others:
        yield at, f"anyOf must be the only field of its node, found also {sorted(others)}"
    if is_str(t) and t.upper() != "OBJECT":
        for k in ("properties", "required"):
            if k in node:
                yield join(at, k), f"{k}: only allowed for OBJECT type (type is {t!r})"
    props = node.get("properties")
    if "properties" in node:
        if not is_obj(props):
            yield join(at, "properties"), "properties must be an object"
        else:
            for name, s in props.items():
                yield from _subset(s, join(at, "properties", name), depth + 1)
    if "items" in node:
        yield from _subset(node["items"], join(at, "items"), depth + 1)
    for key in ("anyOf", "any_of"):
        if key in node:
            if not isinstance(node[key], list):
                yield join(at, key), "anyOf must be an array"
            else:
                for i, s in enumerate(node[key]):
                    yield from _subset(s, join(at, key, i), depth + 1)


@R(
    "gemini.schema.parameters-subset",
    "`parameters` uses only the OpenAPI-subset Schema: its known keys, a single upper- or lower-case type name, string enums without an empty member, anyOf alone in its node, properties/required only on OBJECT nodes.",
    "Gemini REST reference Schema (https://ai.google.dev/api/caching#Schema); API errors 'Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field.' (Laisky/one-api#60), '...enum[3]: cannot be empty' (sbroenne/mcp-server-excel#607), 'When using any_of, it must be the only field set.' (langchain-ai/langchain-google#1216), '...properties: only allowed for OBJECT type' (anomalyco/opencode#11889)",
)
def parameters_subset(body: Any) -> Iterator[Finding]:
    for at, d in _declarations(body):
        k, s = _params(d)
        if k is not None and s is not None:
            yield from _subset(s, join(at, k))


@R(
    "gemini.schema.parameter-name",
    "Parameter names (top-level property names of `parameters`) start with a letter or underscore, hold only a-z, A-Z, 0-9, _ and are at most 64 long.",
    "google.genai.types.FunctionDeclaration.parameters docstring: 'Parameter names must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64.'",
)
def parameter_name(body: Any) -> Iterator[Finding]:
    for at, d in _declarations(body):
        k, s = _params(d)
        for name in obj(obj(s).get("properties")):
            if not PARAMETER_NAME.fullmatch(name):
                yield (
                    join(at, k or "parameters", "properties", name),
                    f"parameter name {name!r} breaks the Gemini parameter-name rule",
                )


@R(
    "gemini.schema.json-root-object",
    "`parametersJsonSchema` is a JSON Schema object describing an object.",
    "google.genai.types.FunctionDeclaration.parameters_json_schema docstring: 'The schema must describe an object where the properties are the parameters to the function.'",
)
def json_root_object(body: Any) -> Iterator[Finding]:
    for at, d in _declarations(body):
        k, s = _json_params(d)
        if k is not None and (not is_obj(s) or s.get("type") != "object"):
            yield (
                join(at, k),
                f"parametersJsonSchema must be an object schema with type 'object', got {short(obj(s).get('type') if is_obj(s) else s)}",
            )


def _fcc(body: Any) -> tuple[str, Any]:
    tc = obj(obj(body).get("toolConfig") if "toolConfig" in obj(body) else obj(body).get("tool_config"))
    key = "functionCallingConfig" if "functionCallingConfig" in tc else "function_calling_config"
    base = "/toolConfig" if "toolConfig" in obj(body) else "/tool_config"
    return join(base, key), tc.get(key)


@R(
    "gemini.tool-config.mode",
    "functionCallingConfig.mode is AUTO, ANY, NONE or VALIDATED.",
    "google.genai.types.FunctionCallingConfigMode",
)
def tool_config_mode(body: Any) -> Iterator[Finding]:
    at, fcc = _fcc(body)
    if fcc is None:
        return
    if not is_obj(fcc):
        yield at, f"functionCallingConfig must be an object, got {short(fcc)}"
    elif "mode" in fcc and (not is_str(fcc["mode"]) or fcc["mode"].upper() not in MODES):
        yield join(at, "mode"), f"mode must be one of {sorted(MODES)}, got {short(fcc['mode'])}"


@R(
    "gemini.tool-config.allowed-names-mode",
    "allowedFunctionNames is set only with mode ANY (or VALIDATED).",
    "google.genai.types.FunctionCallingConfig.allowed_function_names docstring: 'Only set when the Mode is ANY.'; FunctionCallingConfigMode.VALIDATED docstring extends it to VALIDATED",
)
def allowed_names_mode(body: Any) -> Iterator[Finding]:
    at, fcc = _fcc(body)
    names = g(fcc, "allowedFunctionNames", "allowed_function_names")
    mode = obj(fcc).get("mode")
    if names is not None and not (is_str(mode) and mode.upper() in ("ANY", "VALIDATED")):
        yield at, f"allowedFunctionNames is set with mode {short(mode)}; it is only valid with ANY"


@R(
    "gemini.tool-config.allowed-names-declared",
    "allowedFunctionNames names declared functions.",
    "google.genai.types.FunctionCallingConfig.allowed_function_names docstring: 'Function names should match FunctionDeclaration.name.'",
)
def allowed_names_declared(body: Any) -> Iterator[Finding]:
    at, fcc = _fcc(body)
    names = g(fcc, "allowedFunctionNames", "allowed_function_names")
    if names is None:
        return
    declared = {hashable(d.get("name")) for _, d in _declarations(body)}
    if not isinstance(names, list):
        yield at, "allowedFunctionNames must be an array of names"
        return
    for k, n in enumerate(names):
        if hashable(n) not in declared:
            yield at, f"allowedFunctionNames[{k}] = {short(n)} is not a declared function"


#: Tool fields (google.genai.types.Tool) run by Google itself, in both spellings. Not
#: functionDeclarations, and not computerUse, whose actions the application carries out.
BUILT_IN_TOOLS = {
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "google_search_retrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
    "url_context",
    "googleMaps",
    "google_maps",
    "fileSearch",
    "file_search",
    "enterpriseWebSearch",
    "enterprise_web_search",
    "retrieval",
}


@R(
    "gemini.tools.built-in-with-functions",
    "A request with both built-in tools (googleSearch, codeExecution, urlContext, ...) and function declarations sets toolConfig.includeServerSideToolInvocations to true (Gemini 3; Gemini 2.x refuses the mix whatever is set).",
    "API errors 'Please enable tool_config.include_server_side_tool_invocations to use Built-in tools with Function calling.' (owndev/Open-WebUI-Functions#159) and 'Tool use with function calling is unsupported' (googleapis/go-genai#323); ai.google.dev/gemini-api/docs/tool-combination",
)
def built_in_with_functions(body: Any) -> Iterator[Finding]:
    if not any(True for _ in _declarations(body)):
        return
    built_in = [
        ptr("tools", i, k) for i, t in enumerate(arr(obj(body).get("tools"))) for k in obj(t) if k in BUILT_IN_TOOLS
    ]
    if not built_in:
        return
    tc = obj(body).get("toolConfig", obj(body).get("tool_config"))
    flag = g(obj(tc), "includeServerSideToolInvocations", "include_server_side_tool_invocations")
    if flag is not True:
        yield (
            built_in[0],
            "built-in tools with function declarations need toolConfig.includeServerSideToolInvocations: true",
        )


@R(
    "gemini.cache.held-fields",
    "A request naming cachedContent sets no systemInstruction, tools or toolConfig (the cached content holds them).",
    "API error 'CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.' (BerriAI/litellm#17304)",
)
def cache_held_fields(body: Any) -> Iterator[Finding]:
    b = obj(body)
    if not (b.get("cachedContent") or b.get("cached_content")):
        return
    for camel, snake in (
        ("systemInstruction", "system_instruction"),
        ("tools", "tools"),
        ("toolConfig", "tool_config"),
    ):
        for key in dict.fromkeys((camel, snake)):
            if key in b:
                yield f"/{key}", f"{key} cannot be sent with cachedContent"
