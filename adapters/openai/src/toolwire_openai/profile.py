"""The vendor rules of OpenAI Chat Completions (``openai-chat``) and Responses (``openai``).

One profile per API (:class:`OpenAIChatProfile`, :class:`OpenAIResponsesProfile`), each in
two schema modes (``strict=False``, the default, and ``strict=True``: how a tool declared
``Tool(strict=True)`` is translated). Every rule is a :class:`~toolwire.profile.Rule` in
:data:`CHAT_RULES` / :data:`RESPONSES_RULES` with its source (SDK type, vendor document, or the
API error text users quote) and what toolwire does when a request breaks it:

- ``repair``: rewritten before sending without changing what was meant, and reported;
- ``report``: a documented loss (e.g. a schema keyword the API cannot take, sent without it;
  arguments are still validated against the original schema), reported;
- ``refuse``: :class:`~toolwire.profile.RequestRefused` before anything is sent, naming the
  tool or call, the JSON pointer into the request body and the rule id.

The checks are pure functions of the encoded request body; ``check_request(body, start=n)``
checks only the messages (Chat) or input items (Responses) from index ``n`` on, plus the little
context before them that a pairing rule needs. The documentation lists every rule with its
summary and source (pages "OpenAI Chat Completions rules" and "OpenAI Responses rules").
"""

from __future__ import annotations

import base64
import bisect
import functools
import hashlib
import json
import re
from types import MappingProxyType
from typing import Any, Container, Iterable, Iterator, Mapping, Sequence

from toolwire._words import plural
from toolwire.profile import Action, PrefixFold, Profile, Rule, Violation, rule_table
from toolwire.profile import number_leaves as _number_leaves
from toolwire.profile import same_number_types as _same_number_types
from toolwire.schema.report import TranslationReport
from toolwire.types import base64_head, not_image_problem, signature_media_type, url_scheme

from ._dialect import parameter_problems, translate_parameters

__all__ = [
    "OpenAIChatProfile",
    "OpenAIResponsesProfile",
    "CHAT_RULES",
    "RESPONSES_RULES",
    "TOOL_NAME_RULE",
    "RESERVED_TOOL_NAMES",
    "MAX_TOOLS",
    "CHAT_MAX_CALL_ID",
    "RESPONSES_MAX_CALL_ID",
    "CHAT_MAX_DESCRIPTION",
    "sanitize_name",
    "short_call_id",
    "reasoning_family",
    "wire_tool_names",
    "history_name",
    "real_names",
]

CHAT = "openai-chat"
RESPONSES = "openai"

#: Tool and call names (``FunctionDefinition.name``: "Must be a-z, A-Z, 0-9, or contain
#: underscores and dashes, with a maximum length of 64").
TOOL_NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: Function names OpenAI keeps for its models' own tools, each with the name a function tool of
#: that name is sent under (rule ``tool.reserved-name``): "The function name 'python' is reserved
#: for use by this model. Please use a different function name." (param ``tools``).
RESERVED_TOOL_NAMES: Mapping[str, str] = {"python": "run_python"}
#: The pseudo-tool some OpenAI models call instead of making parallel tool calls: one call named
#: ``multi_tool_use.parallel`` whose arguments are ``{"tool_uses": [{"recipient_name":
#: "functions.<tool>", "parameters": {...}}, ...]}`` ("GPT-4o hallucinates a nonexistent parallel
#: tool calling mechanism called multi_tool_use.parallel", prefect-archive/ControlFlow#107; GPT-5.x
#: "sometimes hallucinate a synthetic tool called multi_tool_use.parallel",
#: craft-ai-agents/craft-agents-oss#449; Azure OpenAI, Azure/azure-rest-api-specs#32329).
PARALLEL_PSEUDO_TOOL = "multi_tool_use.parallel"
#: The same wrapper under its bare name: "On the Responses API the name arrives as the bare leaf
#: parallel, not the multi_tool_use.parallel spelling in the earlier reports" (vercel/ai#19067,
#: with the payloads; Azure OpenAI gpt-5.4 in the fix that followed, vercel/ai#19098). Taken as
#: the wrapper only when the request declares no tool of that name and every ``recipient_name``
#: reads ``functions.<tool>``.
PARALLEL_BARE_NAME = "parallel"
PARALLEL_WRAPPER_NAMES = frozenset({PARALLEL_PSEUDO_TOOL, PARALLEL_BARE_NAME})
#: At most this many tools per request (API error "Invalid 'tools': array too long. Expected an
#: array with maximum length 128").
MAX_TOOLS = 128
#: Chat ``tool_calls[].id`` length bound (API error "Invalid 'messages[2].tool_calls[0].id':
#: string too long. Expected a string with maximum length 40").
CHAT_MAX_CALL_ID = 40
#: At most this many tool calls in one Chat assistant message (API error "Invalid
#: 'messages[2].tool_calls': array too long. Expected an array with maximum length 128, but got an
#: array with length 200 instead.", openai/openai-dotnet#317).
CHAT_MAX_MESSAGE_CALLS = 128
#: At most this many messages in one Chat request on OpenAI's own API (API error "Invalid
#: 'messages': array too long. Expected an array with maximum length 2048, but got an array with
#: length 2050 instead.", obot-platform/obot#1009).
CHAT_MAX_MESSAGES = 2048
#: The longest ``prompt_cache_key`` and ``safety_identifier`` OpenAI's API takes, in characters
#: (API error "Invalid 'prompt_cache_key': string too long. Expected a string with maximum length
#: 64"; SDK docstring of safety_identifier: "with a maximum length of 128 characters").
IDENTIFIER_LIMITS: Mapping[str, int] = MappingProxyType({"prompt_cache_key": 64, "safety_identifier": 128})
#: Chat message ``content`` string length bound (API error "Invalid 'messages[17].content': string
#: too long. Expected a string with maximum length 1048576, but got a string with length 1744259
#: instead.").
CHAT_MAX_CONTENT = 1_048_576
#: The longest text one Responses input string takes (a message's content, a
#: ``function_call_output``'s output, one text part), in characters: "Invalid
#: 'input[0].content': string too long. Expected a string with maximum length 10485760"
#: (VectorlyApp/bluebox#31; the same for ``input[N].output``, code string_above_max_length).
RESPONSES_MAX_TEXT = 10_485_760
#: Responses ``call_id`` length bound (API error "Invalid 'input[95].call_id': string too long.
#: Expected a string with maximum length 64").
RESPONSES_MAX_CALL_ID = 64
#: Chat ``function.description`` length bound (API error "Invalid 'tools[0].function.description':
#: string too long. Expected a string with maximum length 1024").
CHAT_MAX_DESCRIPTION = 1024
#: ``metadata``: at most 16 pairs, keys up to 64 characters, values up to 512 (SDK
#: ``completion_create_params.metadata`` / ``response_create_params.metadata``).
METADATA_LIMITS = (16, 64, 512)

#: The text of the assistant message sent between a tool message and a user message right after
#: it to Mistral's API (rule ``openai-chat.server.mistral-user-after-tool``): the same on every
#: request, so the conversation's prefix stays the same from turn to turn.
MISTRAL_BRIDGE_TEXT = "Tool results received."

_SDK_NAME = (
    'openai.types.shared_params.FunctionDefinition.name ("Must be a-z, A-Z, 0-9, or contain underscores and '
    "dashes, with a maximum length of 64\"); API error \"Invalid 'tools[0].function.name': string does not match "
    "pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.\""
)
_SO_DOC = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"


def _int_within(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) from ``low`` to ``high``."""
    return type(value) is int and low <= value <= high


def _rules(prefix: str, rows: Iterable[tuple[str, str, str, Action]]) -> Mapping[str, Rule]:
    return rule_table(
        *(
            Rule(id=f"{prefix}.{suffix}", summary=summary, source=source, action=action)
            for suffix, summary, source, action in rows
        )
    )


def _shared_rows(call_id_max: int, call_id_error: str, tools_ptr: str) -> list[tuple[str, str, str, Action]]:
    """Rules both APIs share (same wording, per-API prefix and bounds)."""
    return [
        (
            "request.tool-choice-setting",
            "A tool choice given both as the request's tool_choice and as the API's own tool_choice in the settings "
            "(extra_body) is sent once: the setting's stands where the request has none, and tool_choice 'auto' "
            "keeps a setting that is a form of auto (allowed_tools in mode auto), also on the turns after a forced "
            "first call; any other request tool choice replaces it, reported as lossy.",
            "openai SDK types ChatCompletionAllowedToolChoiceParam and ToolChoiceAllowedParam (allowed_tools, mode "
            "'auto' or 'required'), which toolwire's canonical tool choice cannot express; "
            "microsoft/agent-framework#5322 (allowed_tools tool choice support)",
            "repair",
        ),
        (
            "request.field-values",
            "A request field the installed SDK types with a closed set of values takes one of them (Chat: "
            "service_tier, reasoning_effort, verbosity, prompt_cache_retention; Responses: service_tier, "
            "reasoning.effort, reasoning.summary, reasoning.generate_summary, reasoning.context, text.verbosity, "
            "truncation, prompt_cache_retention); another value is refused before sending, naming the allowed ones "
            "(given as a model setting: a ConfigurationError when the model is made). Checked only for api.openai.com: "
            "a compatible server (base_url elsewhere) may take its own values (Groq's service_tier 'on_demand'). An "
            "object field given as a model setting (reasoning, text, prompt, stream_options, web_search_options, ...) "
            "holds only the keys the SDK's TypedDict gives it: another key is a ConfigurationError naming the keys and "
            "the closest one. A request field given as a model setting holds a value of the JSON type the SDK gives it, "
            "walked into its objects and arrays (user=5, store='yes', top_logprobs=True, "
            "stream_options={'include_usage': 'yes'}, text={'format': {'name': 5, ...}}): another is a "
            "ConfigurationError naming the type and the SDK field (a bool is not an integer; an integer is a number; "
            "extra_body is sent unchecked).",
            "openai.types.chat.completion_create_params.CompletionCreateParamsBase (service_tier: Optional[Literal["
            "'auto', 'default', 'flex', 'scale', 'priority', 'fast']], reasoning_effort: openai.types.shared."
            "ReasoningEffort, verbosity, prompt_cache_retention) and openai.types.responses.response_create_params."
            "ResponseCreateParamsBase (service_tier also 'ultrafast'; reasoning: openai.types.shared_params.Reasoning; "
            "text: ResponseTextConfigParam.verbosity; truncation: Literal['auto', 'disabled']), read from the installed "
            "SDK; API error \"Unknown parameter: 'reasoning.enabled'.\" (code unknown_parameter) for a key the "
            "object does not have (shinpei710/ccr-plugin-openai-res#2, openkursar/hello-halo#83); the value types: the "
            "field annotations of those TypedDicts and the TypedDicts under them (user: str, store: Optional[bool], "
            "stream_options: ChatCompletionStreamOptionsParam), API error in the form \"Invalid type for 'user': "
            'expected a string, but got an integer instead." (code invalid_type)',
            "refuse",
        ),
        (
            "request.model-id",
            "The model id is sent as written; every model rule reads it in one spelling (model_key: any case, without "
            "surrounding spaces, a provider path such as openai/, or the ft: prefix of a fine-tuned model, whose base "
            "model's rules apply). An id with spaces around it, or one whose base model is not in lower case sent to "
            "api.openai.com (base_url and OPENAI_BASE_URL unset, or on api.openai.com), is refused when the model is "
            "made (ConfigurationError naming the id to write); a compatible server's own names (base_url elsewhere) go "
            "as written.",
            'API error "The model `GPT-4o` does not exist or you do not have access to it." for GPT-4o, where gpt-4o '
            "works (rksm/org-ai#110; the same for GPT-4 in whyiyhw/chatgpt-wechat#66); https://platform.openai.com/docs/models "
            "(every model id is lower case; a fine-tuned id keeps its own suffix, ft:<base model>:<org>:<suffix>:<id>)",
            "refuse",
        ),
        (
            "conversation.image-media-type",
            "An inline (data URL) image is PNG, JPEG, WEBP or GIF (image/jpg is sent as image/jpeg).",
            'OpenAI "Images and vision" guide (supported file types: PNG, JPEG, WEBP, non-animated GIF); API error "You '
            "uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', "
            "'gif', 'webp']\" (marketing-factory/ai-filemetadata#19)",
            "refuse",
        ),
        (
            "conversation.image-media-type-data",
            "An inline (data URL) image's media type names the format its bytes are in (a PNG declared image/jpeg "
            "is sent as data:image/png, the change reported).",
            "openai.types.chat.chat_completion_content_part_image_param.ImageURL.url and "
            'openai.types.responses.ResponseInputImageParam.image_url ("base64 encoded image in a data URL": the data '
            "URL's type says what the bytes are); API error \"Expected a base64-encoded data URL with an image MIME "
            "type ... but got unsupported MIME type 'application/octet-stream'\" for image bytes under another type. "
            'No source shows OpenAI refusing a PNG declared image/jpeg (Anthropic does: "Image does not match the '
            'provided media type image/png", anthropics/claude-code#13131); toolwire sends the type the bytes name '
            "on every API",
            "repair",
        ),
        (
            "conversation.image-bytes",
            "An inline (data URL) image declared image/png, image/jpeg, image/gif or image/webp holds an image: no "
            "bytes, or bytes with no image signature that are text opening as markup or JSON (an HTML error or login "
            "page saved as a .png, an XML or JSON error body) in a user message are refused before sending. An image a tool returned with such bytes is sent as a short note in its place "
            "and reported as lossy, so the run goes on (the result stays in the conversation: refusing it would refuse "
            "every later request of the run). Types whose signature toolwire does not know are not judged by their "
            "bytes.",
            'API error "The image data you provided does not represent a valid image. Please check your input and try '
            "again with one of the supported image formats: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].\" "
            "(code invalid_value, param input), after which every later request of the session failed the same way "
            "(openai/codex#3097, #4946; there the bytes were an SVG's text). No source shows the exact answer to an "
            "HTML page declared image/png on OpenAI; Anthropic and Gemini refuse such bytes (anthropics/claude-code"
            '#19031, google-gemini/gemini-cli#5882) and the data URL says its bytes are an image ("base64 encoded '
            'image in a data URL", openai.types.responses.ResponseInputImageParam.image_url)',
            "refuse",
        ),
        (
            "conversation.image-url",
            "An image URL (Chat image_url.url; Responses input_image.image_url, in a message or a "
            "function_call_output) is an http(s) URL or a data: URL holding base64 image data; a local path, a "
            "file:, ftp: or javascript: URL and a data: URL without base64 bytes in a user message are refused. An "
            "image a tool returned by such a URL is sent as a short note in its place and reported as lossy, so the "
            "run goes on (the result stays in the conversation: refusing it would refuse every later request of the "
            "run).",
            'openai.types.chat.chat_completion_content_part_image_param.ImageURL.url ("Either a URL of the image or '
            'the base64 encoded image data"); openai.types.responses.ResponseInputImageParam.image_url ("A fully '
            'qualified URL or base64 encoded image in a data URL"); API errors "Invalid image URL: '
            "'messages[0].content[1].image_url.url'. Expected a base64-encoded data URL with an image MIME type "
            "(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.\" "
            "(Alibaba-NLP/OmniSearch#3) and \"Invalid 'input[101].content[1].image_url'. Expected a base64-encoded "
            'data URL with an image MIME type ..., but got empty base64-encoded bytes." (anomalyco/opencode#23983)',
            "refuse",
        ),
        (
            "conversation.tool-result-image-type",
            "An image a tool returned in a format OpenAI does not read (by its bytes, else its declared type: "
            "not PNG, JPEG, WEBP or GIF; an SVG, a BMP) is sent as a short note in its place and reported as "
            "lossy, so the run goes on (the result stays in the conversation: refusing it would refuse every "
            "later request of the run). So is an image with no bytes (a result stored by hand).",
            'OpenAI "Images and vision" guide (supported file types: PNG, JPEG, WEBP, non-animated GIF); API error "You '
            "uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', "
            "'gif', 'webp']\" (marketing-factory/ai-filemetadata#19)",
            "repair",
        ),
        # names and ids
        (
            "tool.name",
            "A tool name is 1 to 64 characters of a-z, A-Z, 0-9, '_' and '-' (a tool imported from another "
            "provider under a name OpenAI refuses, e.g. 'files.read:v2', is sent renamed, 'files_read_v2', the same way in the "
            "declaration, the history and the tool choice; the model's calls to it run the tool).",
            _SDK_NAME,
            "repair",
        ),
        (
            "tool.reserved-name",
            "A function tool is not named 'python', the name OpenAI keeps for its models' own Python tool: such "
            "a tool is sent as 'run_python' (when another tool of the request has that name, as 'python_' plus "
            "8 hex digits of a hash), the same way in the declaration, the history's calls and the tool choice; "
            "the model's calls to it run the tool, and the texts toolwire gives the model (error results, the hint "
            "after a call against a forced choice) name it 'run_python' too. Done on every server: the codecs rename "
            "without knowing the host.",
            "API error \"The function name 'python' is reserved for use by this model. Please use a different function "
            'name." (type invalid_request_error, param tools): o4-mini on Chat Completions (avante-corp/avante.nvim#1890, '
            "which renamed its tool run_python in #1901) and on Responses (UKGovernmentBEIS/inspect_ai#1784; aliased "
            "in #1736); every GPT model on api.openai.com since 2026-07-21, Azure OpenAI not yet then "
            "(onyx-dot-app/onyx#13235, renamed to run_python); gpt-5.6-sol on the Codex Responses backend "
            "(Kohaku-Lab/KohakuTerrarium#80)",
            "repair",
        ),
        (
            "call.name",
            "A tool call in the history carries a name under the same rule (a call imported from another vendor, "
            "e.g. 'files.read', is renamed deterministically, 'files_read', everywhere it appears; when that is a declared "
            "tool's name, as its first 55 characters plus '_' and 8 hex digits of its SHA-256).",
            "API error \"Invalid 'messages[9].tool_calls[0].function.name': string does not match pattern\" (mcp-use/mcp-use#90)",
            "repair",
        ),
        (
            "call.id-length",
            f"A tool call id is 1 to {call_id_max} characters (a longer id from another vendor, or an "
            "empty one from a compatible server's history, is replaced by a stable short one in the "
            "call and in its result).",
            call_id_error + "; API error \"Invalid 'input[4].call_id': empty string. Expected a string "
            'with minimum length 1, but got an empty string instead." (code empty_string)',
            "repair",
        ),
        (
            "tools.count",
            f"At most {MAX_TOOLS} tools per request.",
            "API error \"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with "
            'length 133 instead." (code array_above_max_length)',
            "refuse",
        ),
        # schema, both modes
        (
            "schema.root-not-object",
            "The input schema is an object schema at the top level ('type': 'object'; a missing type "
            "is added, another type is refused).",
            "API error \"Invalid schema for function 'json': schema must be a JSON Schema of 'type: \"object\"', got 'type: "
            '"None"\'." (browserbase/stagehand#1159)',
            "refuse",
        ),
        (
            "schema.root-combinator",
            "No oneOf/anyOf/allOf/enum/not at the top level of the input schema (object allOf branches "
            "are merged into the root; alternatives are offered as optional properties and the choice between them is not sent).",
            "API error \"schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.\" "
            "(chatanywhere/GPT_API_free#403); Structured Outputs: 'Root objects must not be anyOf and must be an object'",
            "report",
        ),
        (
            "schema.shape",
            "'properties' is an object and 'required' an array ([] and null are repaired).",
            "API errors \"[] is not of type 'object', 'boolean'\" (prism-php/prism#746) and \"None is not of type 'array'\" "
            "(yomorun/yomo#860)",
            "repair",
        ),
        (
            "schema.array-items",
            "Every array schema has 'items' ('items': {}, any element, is added; such an array cannot be strict).",
            "API error \"Invalid schema for function 'X': In context=('properties', 'paths'), array schema missing "
            'items." (sigoden/aichat#1049, mark3labs/mcphost#35)',
            "repair",
        ),
        # strict mode
        (
            "strict.closed-objects",
            "Strict mode: every object schema has 'additionalProperties': false (added; an open map "
            "cannot be strict, see strict.inexpressible).",
            "API error \"Invalid schema for function 'x': In context=(), 'additionalProperties' is required to be supplied and "
            'to be false." (code invalid_function_parameters); ' + _SO_DOC,
            "repair",
        ),
        (
            "strict.all-required",
            "Strict mode: every property is listed in 'required' (an optional property with a default "
            "becomes nullable; null means 'use the default', which the loop restores).",
            _SO_DOC,
            "repair",
        ),
        (
            "strict.no-default",
            "Strict mode: 'default' is not permitted (removed; restored by the loop).",
            "API error \"'default' is not permitted\" (openai/openai-agents-python#4390)",
            "repair",
        ),
        (
            "strict.keywords",
            "Strict mode accepts only the Structured Outputs subset of keywords (type, properties, required, "
            "additionalProperties, items, enum, const, anyOf, $ref, $defs, description, title, pattern, format, numeric bounds, "
            "minItems/maxItems); others are removed, and still enforced by argument validation.",
            _SO_DOC,
            "report",
        ),
        (
            "strict.formats",
            "Strict mode: 'format' is one of date-time, time, date, duration, email, hostname, ipv4, ipv6, "
            "uuid (others removed, still enforced by argument validation).",
            _SO_DOC,
            "report",
        ),
        (
            "strict.object-properties",
            "Strict mode: every object schema has 'properties' (and 'required'), even when empty.",
            "API error \"Invalid schema for function 'xxx': In context=(), object schema missing properties.\" "
            "(spring-projects/spring-ai#4776)",
            "repair",
        ),
        (
            "strict.inexpressible",
            "A schema strict mode cannot express (an open map, a schema without 'type', not, if/then/"
            "else, several allOf branches, tuple items, a required name no property declares) is sent with "
            "'strict': false and the original schema.",
            "API error \"In context=('properties', 'slide_instructions', 'items'), schema must have a 'type' key.\" "
            "(can1357/oh-my-pi#210); " + _SO_DOC,
            "report",
        ),
        (
            "strict.ref-siblings",
            "Strict mode: a $ref has no sibling keywords (the target is inlined and the siblings merged into it).",
            "API error \"$ref cannot have keywords {'description'}\"; openai.lib._pydantic.to_strict_json_schema inlines a $ref "
            "with sibling keys",
            "repair",
        ),
        (
            "strict.size-limits",
            "Strict mode bounds: objects nested at most 10 deep, at most 5000 properties, 1000 enum values, "
            "120000 characters of names and enum/const values, 15000 characters in one enum of more than 250 values; a schema "
            "past them is sent with 'strict': false.",
            _SO_DOC,
            "report",
        ),
        # request-level
        (
            "request.parallel-without-tools",
            "'parallel_tool_calls' is sent only together with 'tools' (dropped otherwise).",
            "API error \"Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
            'specified." (Upsonic/Upsonic#323; camel-ai/camel#3706)',
            "repair",
        ),
        (
            "request.tool-choice-without-tools",
            "'tool_choice' 'auto' or 'none' is sent only together with 'tools' (dropped "
            "otherwise: without tools the model cannot call one anyway).",
            "API error \"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.\" "
            "(writer/writer-framework#1013)",
            "repair",
        ),
        (
            "request.forced-tool-choice-without-tools",
            "A tool choice that forces a call ('required' or a named tool) needs tools to call.",
            "API error \"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.\" "
            "(writer/writer-framework#1013)",
            "refuse",
        ),
        (
            "request.function-calling-model",
            "Function (and custom) tools are sent only to a model that calls functions: not to "
            "gpt-5-chat-latest, chatgpt-4o-latest, the search-preview models (gpt-4o-search-preview, "
            "gpt-4o-mini-search-preview), o1-mini, o1-preview or gpt-4-vision-preview.",
            'API errors "tools is not supported in this model. For a list of supported models, refer to '
            'https://platform.openai.com/docs/guides/function-calling#models-supporting-function-calling." '
            "(gpt-5-chat-latest: sbintuitions/flexeval#242; the same with 'functions', community.openai.com "
            'thread 1337048) and "tools not supported" for the search-preview models (danny-avila/LibreChat#9877); '
            "o1-preview: Integuru-AI/Integuru#5; gpt-4-vision-preview and chatgpt-4o-latest: the models pages list "
            "no function calling. Later chat models (gpt-5.3-chat-latest) call functions (anomalyco/models.dev#1290)",
            "refuse",
        ),
        (
            "request.tool-choice-unknown-tool",
            "A named tool choice names a tool declared in 'tools'.",
            f"{tools_ptr}; vllm-project/vllm#40311 (tool_choice/tools validation aligned with the OpenAI API)",
            "refuse",
        ),
        (
            "request.stream-options-without-stream",
            "'stream_options' is sent only with 'stream': true (dropped otherwise).",
            'SDK docstring of stream_options: "Only set this when you set `stream: true`."',
            "repair",
        ),
        (
            "request.temperature-range",
            "'temperature' is between 0 and 2.",
            'SDK docstring of temperature: "What sampling temperature to use, between 0 and 2."',
            "refuse",
        ),
        (
            "request.top-p-range",
            "'top_p' is a number from 0 to 1 (a probability mass).",
            'SDK docstring of top_p: "the model considers the results of the tokens with top_p probability mass. So '
            '0.1 means only the tokens comprising the top 10% probability mass are considered." (a share of 1); '
            "huggingface/text-generation-inference#2228 (OpenAI's valid range is 0.0 to 1.0)",
            "refuse",
        ),
        (
            "request.top-logprobs-range",
            "'top_logprobs' is an integer from 0 (to 20 on api.openai.com; a compatible server, base_url elsewhere, "
            "may take more: vLLM's limit is its max_logprobs setting).",
            'SDK docstring of top_logprobs: "An integer between 0 and 20 specifying the maximum number of most '
            'likely tokens to return at each token position"',
            "refuse",
        ),
        (
            "request.sampling-reasoning-model",
            "Reasoning models (o1, o3, o4 families and gpt-5, gpt-5-mini, gpt-5-nano, ...; "
            "gpt-5.1 and later unless reasoning effort is 'none') take only the default temperature and top_p (1).",
            "API error \"Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is "
            "supported.\" (code unsupported_value); vercel/ai#10932 (gpt-5.1 with reasoning effort 'none' takes them)",
            "refuse",
        ),
        (
            "request.metadata",
            "'metadata' has at most 16 pairs, keys up to 64 characters and string values up to 512.",
            'SDK docstring of metadata: "Set of 16 key-value pairs ... Keys are strings with a maximum length of 64 characters. '
            'Values are strings with a maximum length of 512 characters."',
            "refuse",
        ),
        (
            "request.identifier-length",
            f"On api.openai.com 'prompt_cache_key' is a string of at most {IDENTIFIER_LIMITS['prompt_cache_key']} "
            f"characters and 'safety_identifier' one of at most {IDENTIFIER_LIMITS['safety_identifier']} (a longer "
            "key: send a hash of it; a value that is no string, such as a number, is refused too); a compatible "
            "server, base_url elsewhere, sets its own bounds.",
            "SDK types of prompt_cache_key and safety_identifier: Optional[str]; API error \"Invalid 'prompt_cache_key': string too long. Expected a string with maximum length 64, but "
            'got a string with length 72 instead." (code string_above_max_length; theopenco/llmgateway#3110, '
            'earendil-works/pi#4719); SDK docstring of safety_identifier: "a string that uniquely identifies each '
            'user, with a maximum length of 128 characters"',
            "refuse",
        ),
    ]


CHAT_RULES: Mapping[str, Rule] = _rules(
    CHAT,
    [
        *_shared_rows(
            CHAT_MAX_CALL_ID,
            "API error \"Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string "
            'with maximum length 40, but got a string with length 44 instead." (Portkey-AI/gateway#1062)',
            "SDK ChatCompletionNamedToolChoiceParam",
        ),
        (
            "tool.description-length",
            f"A tool description is at most {CHAT_MAX_DESCRIPTION} characters (a longer one is cut to "
            f"{CHAT_MAX_DESCRIPTION} and the cut reported).",
            "API error \"Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, "
            'but got a string with length 3542 instead." (code string_above_max_length)',
            "report",
        ),
        (
            "conversation.tool-result-document",
            "A document a tool returned goes where Chat takes it: a tool message is text only, so a PDF is sent as a file part (file_data, a base64 data: URL, and filename) of the user message after the tool messages, labelled with the call id, and the tool message says so; a plain-text document's text goes in the tool message (Chat takes PDF files only). Nothing is left out.",
            'openai SDK types ChatCompletionToolMessageParam.content (text parts only) and chat_completion_content_part_param.File (file_data, filename); OpenAI "File inputs" guide (developers.openai.com/api/docs/guides/file-inputs: "Chat Completions accepts only PDF files as file content parts")',
            "repair",
        ),
        (
            "conversation.assistant-image",
            "An assistant message holds no image (its content takes text and refusal parts only): an image in "
            "one is sent as a short note in its place and reported as lossy.",
            "openai SDK types ChatCompletionAssistantMessageParam.content (text and refusal parts) and "
            "ResponseOutputMessageParam.content (output_text and refusal); the API drops or refuses other parts",
            "repair",
        ),
        (
            "conversation.reasoning-left-out",
            "Reasoning a compatible server sent (reasoning_content) goes back only to that server, on an "
            "assistant message with tool calls; reasoning another server sent is left out and reported as lossy.",
            "openai SDK type ChatCompletionAssistantMessageParam (no reasoning field); "
            'api-docs.deepseek.com guides/thinking_mode, Tool Calls ("the reasoning_content must be fully passed '
            'back to the API in all subsequent requests"), a field the other servers do not take',
            "repair",
        ),
        (
            "conversation.content-length",
            f"A message's content text is at most {CHAT_MAX_CONTENT:,} characters: longer text (a tool result "
            "reading a big file) is sent as consecutive text parts of at most that many characters, the same "
            "text in order. The bound on one text part of a content array is taken to be the same (not seen "
            "in an error text).",
            "API error \"Invalid 'messages[17].content': string too long. Expected a string with maximum length "
            '1048576, but got a string with length 1744259 instead." (gptscript-ai/clio#41)',
            "repair",
        ),
        (
            "request.stop-reasoning-model",
            "'stop' is not sent to a reasoning model (o1, o3, o4-mini, gpt-5 and later, not their -chat "
            "variants nor o3-mini): dropped and reported (the text is not cut at the stop sequence).",
            "API error \"Unsupported parameter: 'stop' is not supported with this model.\" (o3: crewAIInc/crewAI#2738; "
            "o4-mini: langgenius/dify#18971; gpt-5: FlowiseAI/Flowise#5046; gpt-5.2: huggingface/smolagents#1893; "
            "o1-preview: crewAIInc/crewAI#1908); o3-mini takes it (huggingface/smolagents#1211)",
            "repair",
        ),
        (
            "request.penalties-reasoning-model",
            "'presence_penalty' and 'frequency_penalty' are not sent to the o-series and the gpt-5 "
            "family (gpt-5, gpt-5-mini, gpt-5-nano): dropped and reported.",
            "API error \"Unsupported parameter: 'presence_penalty' is not supported with this model.\" (gpt-5-mini: "
            "nextai-translator/nextai-translator#1781; o3-mini: TabbyML/tabby#3974); stanford-crfm/helm#3617 removes "
            "both penalties for the o-series",
            "repair",
        ),
        (
            "request.logprobs-reasoning-model",
            "'logprobs' and 'top_logprobs' are not sent to a reasoning model (the o-series, gpt-5 and later, "
            "not the -chat variants): dropped and reported (the answer carries no log probabilities).",
            "API errors \"Unsupported parameter: 'logprobs' is not supported with this model.\" (gpt-5: "
            'sashabaranov/go-openai#1061) and "You are not allowed to request logprobs from this model" (o4-mini: '
            "confident-ai/deepeval#2184; deepeval lists gpt-5, gpt-5.1 and gpt-5.2 without log probabilities, #2805); "
            'UKGovernmentBEIS/inspect_ai#2739 ("logprobs are not supported for reasoning models")',
            "repair",
        ),
        (
            "request.sampling-search-model",
            "The search-preview models (gpt-4o-search-preview, gpt-4o-mini-search-preview) take no "
            "'temperature', 'top_p', 'presence_penalty' or 'frequency_penalty': dropped and reported.",
            'API error "Model incompatible request arguments supplied: frequency_penalty, presence_penalty, '
            'temperature, top_p" (ChatGPTNextWeb/NextChat#6569); the web search guide: the search models '
            '"do not support" these parameters',
            "repair",
        ),
        (
            "request.parallel-tool-calls-model",
            "'parallel_tool_calls' is not sent to o1, o3, o3-mini or o4-mini on Chat Completions: dropped and "
            "reported (the model may then call several tools in one turn; toolwire runs them all).",
            "API error \"Unsupported parameter: 'parallel_tool_calls' is not supported with this model.\" (o3-mini: "
            "browser-use/web-ui#648; o4-mini: evalstate/fast-agent#279; o3: langchain-ai/langgraph-supervisor-py#125)",
            "repair",
        ),
        (
            "request.tools-reasoning-effort-model",
            "GPT-5.4 (with a reasoning effort other than 'none'), GPT-5.5 and GPT-5.6 (unless the reasoning "
            "effort is 'none': they reason by default) take no function tools on Chat Completions: such a "
            "request is refused before sending; the Responses API takes both.",
            'API errors "Function tools with reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. '
            'Please use /v1/responses instead." (param reasoning_effort; pipecat-ai/pipecat#4043, '
            "BerriAI/litellm#23156, openai/openai-openapi#541), the same for gpt-5.5 (charmbracelet/crush#2913, "
            'Science-Discovery/Aether#1026) and "... for gpt-5.6-terra in /v1/chat/completions. To use function '
            "tools, use /v1/responses or set reasoning_effort to 'none'.\" (GEMISIS/leviath#333, "
            "danny-avila/LibreChat#14231; gpt-5.6-luna and -sol: fazer-ai/agents#66). Without reasoning_effort, "
            "gpt-5.5 and gpt-5.6 are refused too (jeffdafoe/llm-memory-api#178; BerriAI/litellm#34569 and "
            "fazer-ai/agents#74 measured: not sent 400, 'low' 400, 'none' 200), gpt-5.4 is not (its default "
            "effort is 'none': livekit/agents#5022; gpt-5.4-mini with tools works, fazer-ai/agents#66). Sources "
            "disagree on gpt-5.2 (livekit/agents#5088 says it is refused too; no error text quotes it): it is "
            "sent as asked, as are later models and names with a router's prefix",
            "refuse",
        ),
        (
            "request.system-role-model",
            "o1-mini and o1-preview take no system or developer message: such a message (the instructions) is "
            "sent as a user message with the same content, in the same place, and reported.",
            "API errors \"Unsupported value: 'messages[0].role' does not support 'system' with this model.\" "
            "(param messages[0].role, code unsupported_value; o1-mini: pydantic/pydantic-ai#974, "
            "microsoft/agent-framework#1077, which found o1-mini the only model refusing it among OpenAI's chat "
            "models; o1-preview: BerriAI/litellm#5671) and \"... does not support 'developer' with this model.\" "
            "(o1-mini and o1-preview: lobehub/lobehub#5704, QuantumNous/new-api#847); o1 (2024-12-17 and later) "
            "takes both (openai/openai-dotnet#330). BerriAI/litellm#5666 sends such a message as a user message too",
            "repair",
        ),
        (
            "request.messages-count",
            f"'messages' holds at least one message, and at most {CHAT_MAX_MESSAGES} on api.openai.com (a compatible "
            "server, base_url elsewhere, sets its own bound).",
            "API error \"Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty "
            "array instead.\" (code empty_array; CopilotKit/CopilotKit#529); API error \"Invalid 'messages': array "
            'too long. Expected an array with maximum length 2048, but got an array with length 2050 instead." '
            "(obot-platform/obot#1009)",
            "refuse",
        ),
        (
            "request.max-tokens-range",
            "'max_tokens' and 'max_completion_tokens' are integers of at least 1.",
            "API error \"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.\" "
            "(code integer_below_min_value; recorded in envoyproxy/ai-gateway's OpenAI test cassettes)",
            "refuse",
        ),
        (
            "request.max-tokens-model",
            "'max_tokens' and 'max_completion_tokens' are at most the model's maximum output (gpt-4o: 16384; "
            "gpt-4.1: 32768; o1, o3, o4-mini: 100000; gpt-5: 128000; gpt-3.5-turbo and gpt-4-turbo: 4096; ...).",
            'API error "max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you '
            'provided 32000." (enoch3712/ExtractThinker#346, ChatGPTNextWeb/NextChat#3195); "Max output tokens" of '
            "https://platform.openai.com/docs/models",
            "repair",
        ),
        (
            "request.reasoning-effort-model",
            "A reasoning effort is one the model takes (gpt-5, gpt-5-mini, gpt-5-nano: minimal to high; "
            "gpt-5.1: none, low, medium, high; o1, o3, o4-mini: low to high; ...): another is sent as the "
            "nearest one it takes; a model that does not reason (gpt-4o, gpt-4.1, gpt-3.5) gets none.",
            "API errors \"Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values "
            "are: 'none', 'low', 'medium', and 'high'.\" (anomalyco/opencode#4451), \"Unsupported value: 'xhigh' is "
            "not supported with the 'gpt-5-mini' model. Supported values are: 'minimal', 'low', 'medium', and "
            '\'high\'." (microsoft/vscode#301045), "Unrecognized request argument supplied: reasoning_effort" '
            "(gpt-4o-mini, davidmigloz/langchain_dart#712), \"Unsupported parameter: 'reasoning.effort' is not "
            'supported with this model." (gpt-4.1, BoundaryML/baml#2708)',
            "repair",
        ),
        (
            "request.max-tokens-reasoning-model",
            "Reasoning models take 'max_completion_tokens', not 'max_tokens' (renamed; the "
            "meaning is the same: the bound includes reasoning tokens).",
            'SDK docstring of max_tokens: "deprecated in favor of `max_completion_tokens`, and is not compatible with o-series '
            "models\"; API error \"Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead.\"",
            "repair",
        ),
        (
            "request.top-logprobs-without-logprobs",
            "'top_logprobs' needs 'logprobs': true.",
            'SDK docstring of top_logprobs: "`logprobs` must be set to `true` if this parameter is used."',
            "refuse",
        ),
        (
            "request.penalty-range",
            "'frequency_penalty' and 'presence_penalty' are numbers from -2 to 2.",
            'SDK docstrings of frequency_penalty and presence_penalty: "Number between -2.0 and 2.0."; API error '
            "\"2.2 is greater than the maximum of 2 - 'presence_penalty'\" (openai/openai-python#287)",
            "refuse",
        ),
        (
            "request.n-range",
            "'n' (choices per request) is an integer from 1 (to 128 on api.openai.com; a compatible server, base_url "
            "elsewhere, sets its own maximum).",
            'SDK type of n (Optional[int], "How many chat completion choices to generate"); API error "Invalid '
            "'n': integer above maximum value. Expected a value <= 128, but got 130 instead.\" "
            "(thisisartium/continuous-alignment-testing#25)",
            "refuse",
        ),
        (
            "request.logit-bias",
            "'logit_bias' maps token ids (digit strings) to integers from -100 to 100.",
            'SDK type of logit_bias (Dict[str, int]) and its docstring: "maps tokens (specified by their token ID '
            'in the tokenizer) to an associated bias value from -100 to 100"',
            "refuse",
        ),
        (
            "request.stop-count",
            "'stop' holds at most 4 sequences.",
            'SDK docstring of stop: "Up to 4 sequences"',
            "refuse",
        ),
        (
            "request.stop-values",
            "'stop' is a string or a list of strings (an entry of another type is refused).",
            "SDK type of stop: Union[str, SequenceNotStr[str], None]",
            "refuse",
        ),
        # conversation
        (
            "conversation.calls-answered",
            "An assistant message with tool_calls is followed directly by one role:tool message per "
            "call id (nothing between them), also at the end of the request.",
            "API error \"An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: call_...\"",
            "refuse",
        ),
        (
            "conversation.tool-without-call",
            "A role:tool message answers a call of the assistant message right before its run of tool messages, once.",
            "API error \"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
            "'tool_calls'.\"",
            "refuse",
        ),
        (
            "conversation.tool-content",
            "A role:tool message's content is a string or text parts; images of a result go in one "
            "user message after the run of tool messages, labelled with the call id as sent. The codec "
            "always encodes a tool's images so (nothing to report); a body whose tool message holds "
            "images (imported or built by hand) has them moved there, reported.",
            "openai.types.chat.ChatCompletionToolMessageParam (content: str | Iterable[ChatCompletionContentPartTextParam]); API "
            "error \"Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an "
            'image URL."',
            "repair",
        ),
        (
            "conversation.tool-content-parts",
            "A role:tool message carries no parts other than text (and images, moved).",
            "openai.types.chat.ChatCompletionToolMessageParam",
            "refuse",
        ),
        (
            "conversation.images-user-only",
            "Images (image_url parts) appear only in user messages.",
            "API error \"Image URLs are only allowed for messages with role 'user', but this message with role 'assistant' "
            'contains an image URL." (openai/openai-node#1030)',
            "refuse",
        ),
        (
            "conversation.duplicate-call-id",
            "A tool call id appears once in the request (results are paired by id).",
            "API error \"An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'\" (pairing by id needs unique ids)",
            "refuse",
        ),
        (
            "conversation.arguments-json",
            "A tool call's function.arguments is the text of a JSON object (text that is not is "
            'sent as "{}"; its result already says the call was invalid).',
            'API error "messages.70.tool_calls.0.function.arguments: arguments must be a valid JSON object string" '
            "(justrach/codegraff#752)",
            "report",
        ),
        (
            "conversation.empty-tool-calls",
            "An assistant message's tool_calls, when sent, holds at least one call: an empty list (a history "
            "saved from an SDK's parsed message, an OpenAI-compatible server's answer) is left out (not lossy: "
            "it calls nothing).",
            "API error \"Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
            'but got an empty array instead." (param messages[1].tool_calls, code empty_array; '
            "openai/openai-python#2061, whose .parse() returned tool_calls []; home-assistant/core#118577; "
            'openai/openai-node#1341); compatible servers refuse it too: "Empty tool_calls is not supported in '
            'message" (Qwen, smallmain/vscode-unify-chat-provider#65)',
            "repair",
        ),
        (
            "conversation.tool-calls-count",
            f"An assistant message carries at most {CHAT_MAX_MESSAGE_CALLS} tool calls: one with more (a model's "
            "answer with that many parallel calls, a history from another API) is sent as consecutive assistant "
            f"messages of at most {CHAT_MAX_MESSAGE_CALLS} calls, each followed by the tool messages answering its "
            "calls (not lossy: the same calls and results, in order); to DeepSeek's API each of them carries the "
            "message's reasoning_content (rule openai-chat.server.deepseek-reasoning-content).",
            "API error \"Invalid 'messages[2].tool_calls': array too long. Expected an array with maximum length 128, "
            'but got an array with length 200 instead." (code array_above_max_length; openai/openai-dotnet#317)',
            "repair",
        ),
        (
            "conversation.assistant-content",
            "An assistant message without tool_calls has content (an empty string is written).",
            'openai.types.chat.ChatCompletionAssistantMessageParam.content: "Required unless `tool_calls` or `function_call` is '
            'specified."',
            "repair",
        ),
        # stop reasons and usage
        (
            "stop.content-filter",
            "finish_reason 'content_filter' means the turn failed: its tool calls are answered, not run.",
            "openai.types.chat.chat_completion.Choice.finish_reason ('content_filter' if content was omitted by a content filter)",
            "report",
        ),
        (
            "usage.mapping",
            "prompt_tokens includes cached tokens (prompt_tokens_details.cached_tokens); completion_tokens includes "
            "reasoning (completion_tokens_details.reasoning_tokens); both map as they are, total_tokens is kept. "
            "Compatible servers' own fields are read where OpenAI's are absent: DeepSeek's top-level "
            "prompt_cache_hit_tokens and Moonshot's top-level cached_tokens are the cached tokens; a stream's "
            "usage may come in choices[0].usage (Moonshot) or x_groq.usage (Groq).",
            "openai.types.CompletionUsage; https://api-docs.deepseek.com/api/create-chat-completion "
            "(prompt_cache_hit_tokens, NousResearch/hermes-agent#61871); https://platform.kimi.ai/docs/api/chat "
            "(cached_tokens, earendil-works/pi#8075; streamed usage in the choice, earendil-works/pi#2017); "
            "Groq's x_groq.usage (vercel/ai#1651)",
            "repair",
        ),
        # hosted OpenAI-compatible servers, recognised by the host of base_url (HOSTED_SERVERS);
        # none of these applies to api.openai.com
        (
            "server.mistral-stream-options",
            "To Mistral's API (base_url on api.mistral.ai or codestral.mistral.ai), 'stream_options' is "
            "not sent: it refuses the field, and reports usage in the last chunk of a stream without being asked.",
            'Mistral API error 422 "Extra inputs are not permitted" with loc ["body", "stream_options", '
            '"include_usage"] (avante-corp/avante.nvim#2347, dnakov/anon-kode#53); Mistral\'s chat completion '
            "request (docs.mistral.ai/api, Chat) has no stream_options field",
            "repair",
        ),
        (
            "server.mistral-call-id",
            "To Mistral's API, a tool call id is exactly 9 characters of a-z, A-Z, 0-9 (an id from another "
            "vendor, e.g. 'toolu_01A09q90qw90lq917835lq9', or one toolwire synthesized, is sent as a stable "
            "9-character id derived from it, in the call and in its result; Mistral's own ids go as they are).",
            'Mistral API error 400 "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of '
            '9." (type invalid_function_call, code 3280; karthink/gptel#1203, anomalyco/opencode#1680); '
            "langchain-ai/langchain#24668 maps other vendors' ids the same way",
            "repair",
        ),
        (
            "server.mistral-user-after-tool",
            "To Mistral's API, a user message does not directly follow a tool message (a new prompt after tool "
            "results, or the user message holding the images a tool returned): an assistant message with the "
            f"text {MISTRAL_BRIDGE_TEXT!r} is sent between them; the results and the user message go as they "
            "are, and the conversation kept is unchanged. The text is not empty: Mistral refuses an assistant "
            "message with empty content too.",
            "Mistral API error 400 \"Unexpected role 'user' after role 'tool'\" (type invalid_request_message_order, "
            "code 3230; avante-corp/avante.nvim#2562, datapizza-labs/datapizza-ai#98, zed-industries/zed#37021); "
            "an assistant message between them is the fix of avante-corp/avante.nvim#2695 and "
            'zed-industries/zed#31736; an empty one is refused with "Assistant message must have either content '
            'or tool_calls, but not none." (type invalid_request_assistant_message, code 3240; '
            "zed-industries/zed#47579). badlogic/pi-mono's OpenAI-compatible provider turned its bridge off for "
            'Mistral ("no longer requires this as of Dec 2024"); reports against api.mistral.ai since '
            "(datapizza-labs/datapizza-ai#98, December 2025) still quote the error",
            "repair",
        ),
        (
            "server.mistral-empty-assistant",
            "To Mistral's API, an assistant message without tool calls has content: one with no content or "
            "empty content (a turn where the model wrote nothing) is not sent (a user message it leaves right "
            "after a tool message then gets the assistant message of server.mistral-user-after-tool).",
            'Mistral API error 400 "Assistant message must have either content or tool_calls, but not none." '
            '(type invalid_request_assistant_message, code 3240; for content "": zed-industries/zed#47579; '
            "solbrowse/extension#16, OpenHands/OpenHands#8685); zed-industries/zed#47579 and badlogic/pi-mono "
            "leave such messages out the same way",
            "repair",
        ),
        (
            "server.mistral-last-message",
            "To Mistral's API, the last message is a user or tool message, or an assistant message sent as a "
            "prefix of the answer ('prefix': true, which the answer continues): a request ending with another "
            "assistant message (a conversation continued without a new prompt) is refused; pass a prompt.",
            'Mistral API error 400 "Expected last role User or Tool (or Assistant with prefix True) for serving '
            'but got assistant" (type invalid_request_error; huggingface/smolagents#757, NEKOparapa/AiNiee#641); '
            "Mistral's chat completion request (docs.mistral.ai/api, Chat), "
            'AssistantMessage.prefix: "Set this to `true` when adding an assistant message as prefix to condition '
            "the model response\". vercel/ai's Mistral provider sends a last assistant message with prefix: true "
            "instead, which changes what is asked (a continuation of that message, not a new one)",
            "refuse",
        ),
        (
            "server.deepseek-reasoning-content",
            "To DeepSeek's API (base_url on api.deepseek.com) in thinking mode (the default of deepseek-v4-flash, "
            "deepseek-v4-pro and deepseek-reasoner; deepseek-chat only with thinking {'type': 'enabled'}), every "
            "assistant message with tool calls carries the reasoning_content DeepSeek sent with it, an empty one "
            "included; DeepSeek's own reasoning goes back on its answers without calls too (ignored there when no tool "
            "was called). A tool-call turn without it (another provider's or server's, or one whose reasoning was "
            "not kept) is refused before sending: send the conversation with thinking off (thinking={'type': "
            "'disabled'}, sent as DeepSeek's own field) or run it on DeepSeek from its start. No placeholder is written: "
            "sources disagree on which one DeepSeek takes.",
            'DeepSeek API errors "Missing `reasoning_content` field in the assistant message at message index 2. For '
            'more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls" '
            '(deepseek-reasoner: continuedev/continue#11285, langgenius/dify-official-plugins#2306) and "The '
            '`reasoning_content` in the thinking mode must be passed back to the API." (deepseek-v4: '
            "anomalyco/opencode#25356, Gitlawb/openclaude#876; a model switched to mid-run: "
            "NousResearch/hermes-agent#14973); https://api-docs.deepseek.com/guides/thinking_mode (thinking on by "
            "default; between two user messages with a tool call, reasoning_content must be passed back, else 400; "
            'without one it is ignored; {"thinking": {"type": "enabled/disabled"}}); deepseek-chat and '
            "deepseek-reasoner route to deepseek-v4-flash non-thinking and thinking (retired 2026-07-24). An empty "
            "reasoning_content DeepSeek sent must go back too (craft-ai-agents/craft-agents-oss#703, "
            'claude-code-best/claude-code#403). Placeholders for another vendor\'s turn disagree: "" '
            '(NousResearch/hermes-agent#16500), " " because V4 Pro refused "" (NousResearch/hermes-agent#18263), '
            '"." refused (can1357/oh-my-pi#897). Turning thinking off: deepseek-ai/awesome-deepseek-agent#35',
            "refuse",
        ),
    ],
)

RESPONSES_RULES: Mapping[str, Rule] = _rules(
    RESPONSES,
    [
        *_shared_rows(
            RESPONSES_MAX_CALL_ID,
            "API error \"Invalid 'input[95].call_id': string too long. Expected a string with "
            'maximum length 64, but got a string with length 116 instead." (AnswerDotAI/fastllm#45)',
            "SDK ToolChoiceFunctionParam",
        ),
        (
            "request.max-tokens-range",
            "'max_output_tokens' is an integer of at least 16.",
            "API error \"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 "
            'instead." (code integer_below_min_value; vectorize-io/hindsight#58, earendil-works/pi#6265)',
            "refuse",
        ),
        (
            "request.max-tokens-model",
            "'max_output_tokens' is at most the model's maximum output (gpt-4o: 16384; gpt-4.1: 32768; o1, o3, "
            "o4-mini: 100000; gpt-5: 128000; ...).",
            '"Max output tokens" of https://platform.openai.com/docs/models; Chat Completions refuses more for the same '
            'models ("max_tokens is too large: 32000. This model supports at most 16384 completion tokens", '
            "enoch3712/ExtractThinker#346); the Responses API's own error text was not found",
            "repair",
        ),
        (
            "request.reasoning-effort-model",
            "A reasoning effort is one the model takes (gpt-5, gpt-5-mini, gpt-5-nano: minimal to high; "
            "gpt-5.1: none, low, medium, high; o1, o3, o4-mini: low to high; ...): another is sent as the "
            "nearest one it takes; a model that does not reason (gpt-4o, gpt-4.1, gpt-3.5) gets none.",
            "API errors \"Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values "
            "are: 'none', 'low', 'medium', and 'high'.\" (anomalyco/opencode#4451), \"Unsupported value: 'xhigh' is "
            "not supported with the 'gpt-5-mini' model. Supported values are: 'minimal', 'low', 'medium', and "
            '\'high\'." (microsoft/vscode#301045), "Unrecognized request argument supplied: reasoning_effort" '
            "(gpt-4o-mini, davidmigloz/langchain_dart#712), \"Unsupported parameter: 'reasoning.effort' is not "
            'supported with this model." (gpt-4.1, BoundaryML/baml#2708)',
            "repair",
        ),
        (
            "conversation.assistant-image",
            "An assistant message holds no image (its content takes text and refusal parts only): an image in "
            "one is sent as a short note in its place and reported as lossy.",
            "openai SDK types ChatCompletionAssistantMessageParam.content (text and refusal parts) and "
            "ResponseOutputMessageParam.content (output_text and refusal); the API drops or refuses other parts",
            "repair",
        ),
        (
            "conversation.content-length",
            f"One text of the input (a message's content, a function_call_output's output, a text part) is at most "
            f"{RESPONSES_MAX_TEXT:,} characters: longer text (a tool result reading a big file) is sent as "
            "consecutive text parts of at most that many characters, the same text in order.",
            "API error \"Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, "
            'but got a string with length 62114761 instead." (VectorlyApp/bluebox#31; the same for input[N].output, '
            "code string_above_max_length)",
            "repair",
        ),
        (
            "request.minimal-effort-tools",
            "Reasoning effort 'minimal' is not used with the web_search tool: such a request is sent with "
            "effort 'low'.",
            "API error \"The following tools cannot be used with reasoning.effort 'minimal': web_search.\" "
            "(param tools; openai/codex#3559)",
            "repair",
        ),
        (
            "request.max-tool-calls-range",
            "'max_tool_calls' is an integer of at least 1 (to let the model call no tool, use tool_choice 'none').",
            "API error \"Invalid 'max_tool_calls': integer below minimum value. Expected a value >= 1, but got 0 "
            'instead." (quoted in mckinsey/agents-at-scale-marketplace#324; ogx-ai/ogx#4062 mirrors the check); '
            "SDK type of max_tool_calls: Optional[int]",
            "refuse",
        ),
        (
            "request.previous-with-conversation",
            "'previous_response_id' is not sent together with 'conversation'.",
            'SDK docstring of previous_response_id: "Cannot be used in conjunction with `conversation`."',
            "refuse",
        ),
        (
            "request.previous-without-store",
            "'previous_response_id' names a stored response: it cannot be used with 'store': "
            "false (use continuation='stateless' or store=True).",
            "API error code previous_response_not_found \"Previous response with id 'resp_...' not found.\" with store=false "
            "(bigduu/Bamboo-agent#513)",
            "refuse",
        ),
        (
            "request.store-false-item-ids",
            "With 'store': false, nothing is looked up by id: a reasoning item without "
            "encrypted_content is dropped, and the items of its turn go without their ids, so the API does not look for it "
            "(call_id still pairs results).",
            "API error \"Item with id 'rs_...' not found. Items are not persisted when `store` is set to false. Try again with "
            "`store` set to true, or remove this item from your input.\" (anomalyco/opencode#7724); \"Item 'fc_...' of type "
            "'function_call' was provided without its required 'reasoning' item: 'rs_...'.\" (mastra-ai/mastra#8738; "
            "laravel/ai#1052)",
            "repair",
        ),
        (
            "request.logprobs-reasoning-model",
            "'top_logprobs' and the 'message.output_text.logprobs' include are not sent to a reasoning model (the "
            "o-series, gpt-5 and later, not the -chat variants): dropped and reported.",
            'UKGovernmentBEIS/inspect_ai#2739 (Responses logprobs: "not supported for reasoning models"); the Chat '
            "API's error \"Unsupported parameter: 'logprobs' is not supported with this model.\" (gpt-5: "
            "sashabaranov/go-openai#1061)",
            "repair",
        ),
        (
            "request.reasoning-summary-none",
            "A reasoning summary of 'none' (no summary) is sent by leaving 'reasoning.summary' out: the API takes "
            "only 'auto', 'concise' and 'detailed'.",
            "API error \"Invalid value: 'none'. Supported values are: 'concise', 'detailed', and 'auto'.\" (param "
            "reasoning.summary, code invalid_value; openai/codex#7845); SDK openai.types.shared_params.Reasoning.summary "
            "(Literal['auto', 'concise', 'detailed'] or null)",
            "repair",
        ),
        (
            "request.reasoning-summary-model",
            "A reasoning summary is one the model gives: gpt-5 gives no 'concise' summary (sent as 'detailed'), "
            "computer-use-preview no 'detailed' one (sent as 'concise'); 'auto' and other models go as asked.",
            "API errors \"Unsupported value: 'concise' is not supported with the 'gpt-5-2025-08-07' model. Supported "
            "values are: 'detailed'.\" (param reasoning.summary, code unsupported_value; openai/codex#2376, "
            "openai/codex#2625) and \"Unsupported value: 'detailed' is not supported with the "
            "'computer-use-preview-2025-03-11' model. Supported values are: 'concise'.\" "
            "(openai/openai-cua-sample-app#37)",
            "repair",
        ),
        (
            "request.verbosity-model",
            "'text.verbosity' other than 'medium' is not sent to a model that takes only 'medium' (the GPT-4 and "
            "GPT-3.5 families, chatgpt-4o-latest, gpt-5-chat-latest): dropped and reported (the model answers at its "
            "default length).",
            "API error \"Unsupported value: 'verbosity' does not support 'low' with this model. Supported values are: "
            "'medium'.\" (param verbosity, code unsupported_value; gpt-4o: google-deepmind/concordia#164); "
            "gpt-5-chat-latest refuses it, gpt-5.1-chat-latest takes it (enricoros/big-AGI#930); the GPT-5 "
            "family takes low, medium and high (enricoros/big-AGI#947)",
            "repair",
        ),
        (
            "request.include-encrypted-reasoning",
            "With 'store': false and 'reasoning' set or a reasoning model (o-series, gpt-5 family, which "
            "reason without it), 'include' asks for 'reasoning.encrypted_content' so the reasoning can be carried to the "
            "next turn (added).",
            'SDK docstring of include: "`reasoning.encrypted_content`: ... enables reasoning items to be used in multi-turn '
            'conversations when using the Responses API statelessly (like when the `store` parameter is set to `false`...)"',
            "repair",
        ),
        # conversation
        (
            "conversation.call-answered",
            "Every function_call item is answered by a function_call_output with the same call_id "
            "(unless the call lives on the server: previous_response_id or conversation).",
            'API error "No tool output found for function call call_..."',
            "refuse",
        ),
        (
            "conversation.output-without-call",
            "A function_call_output answers an earlier function_call's call_id (or a tool search the client ran: "
            "a tool_search_call with execution 'client'), once.",
            'API error "No tool call found for function call output with call_id call_...." (microsoft/vscode#320060); '
            "a function_call_output answering a client tool_search_call was taken (HTTP 200, a recorded gpt-5.6 "
            "request in pydantic/pydantic-ai's cassettes)",
            "refuse",
        ),
        (
            "conversation.reasoning-followed",
            "A reasoning item is followed by the item it was produced with (a reasoning item "
            "left alone, e.g. after another vendor's turn was dropped, is removed).",
            "API error \"Item 'rs_...' of type 'reasoning' was provided without its required following item.\"",
            "repair",
        ),
        (
            "conversation.duplicate-item-id",
            "An item id appears once in the input.",
            'API error "Duplicate item found with id fc_.... Remove duplicate items from your input and try again."',
            "refuse",
        ),
        (
            "conversation.call-fields",
            "A function_call item has a string call_id, name and arguments.",
            "openai.types.responses.ResponseFunctionToolCallParam (call_id, name, arguments: Required[str])",
            "refuse",
        ),
        (
            "conversation.item-id-prefix",
            "An item id, when sent, has its kind's prefix: fc_ for function_call, rs_ for reasoning, "
            "msg_ for message (another id is left out; call_id pairs results).",
            "API error \"Invalid 'input[2].id': 'msg_...'. Expected an ID that begins with 'fc'.\" (continuedev/continue#11785)",
            "repair",
        ),
        (
            "conversation.assistant-parts",
            "An assistant message's content parts are output_text or refusal (input_text parts "
            "are written as output_text; a part of another type as output_text with its text, or "
            "left out when it has none).",
            "API error \"Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.\"; "
            "openai.types.responses.ResponseOutputMessageParam.content",
            "repair",
        ),
        (
            "conversation.reasoning-fields",
            "A reasoning item has an id and a summary list (a missing summary is written as []; "
            "an item without id is not sent).",
            "openai.types.responses.ResponseReasoningItemParam (id: Required[str], summary: Required[Iterable[Summary]])",
            "repair",
        ),
        (
            "conversation.reasoning-input-fields",
            "A reasoning item sent back carries no 'status' (a field of the output: the API refuses it on a reasoning "
            "input item) and, to api.openai.com, no reasoning text 'content' (the API takes none back; the item's id or "
            "encrypted_content carries the reasoning): both are left out, not lossy. The codec never sends a reasoning "
            "item's status; a compatible server (base_url elsewhere) gets the content as it sent it.",
            "API errors \"Unknown parameter: 'input[1].status'.\" (code unknown_parameter) for a reasoning item sent "
            "back with its status (gpt-5: BerriAI/litellm#13420; gpt-5.6-sol, the same item without status taken: "
            "digitallyinduced/haskell-agent#689; OpenAI's own reasoning items carry none, lidge-jun/opencodex#2252) and "
            "\"Invalid 'input[N].content': array too long. Expected an array with maximum length 0\" for reasoning "
            "text sent back (microsoft/agent-framework-go#784); zyycn/codex-proxy-rs#201 measured both on gpt-5.5 "
            "(status: unknown_parameter; non-empty content: array_above_max_length; the item without them taken). "
            "openai.types.responses.ResponseReasoningItemParam types both fields, so the SDK does not say so",
            "repair",
        ),
        (
            "conversation.reasoning-left-out",
            "Reasoning items go only to a model that reasons, and only to the endpoint that issued them "
            "(they are left out otherwise, with the hosted call items of their turn and the item ids after them; "
            "call_id still pairs the results).",
            'API error "Reasoning input items can only be provided to a reasoning or computer use model. Remove '
            'reasoning items from your input and try again." (openai/openai-agents-python#569); "Encrypted content '
            'could not be decrypted or parsed" (openai/codex#17541)',
            "repair",
        ),
        (
            "conversation.output-content",
            "A function_call_output's output is a string or a list of input_text, input_image and input_file parts.",
            "openai.types.responses.response_input_item_param.FunctionCallOutput.output (str | "
            "ResponseFunctionCallOutputItemListParam)",
            "refuse",
        ),
        # stop reasons and usage
        (
            "stop.failed-status",
            "status 'failed' or 'cancelled', and 'incomplete' for content_filter, mean the turn failed: its "
            "tool calls are answered, not run ('incomplete' for max_output_tokens is a cut-off turn, handled as such).",
            "openai.types.responses.Response.status / IncompleteDetails.reason",
            "report",
        ),
        (
            "usage.mapping",
            "input_tokens includes cached tokens (input_tokens_details.cached_tokens); output_tokens includes "
            "reasoning (output_tokens_details.reasoning_tokens); both map as they are, total_tokens is kept.",
            "openai.types.responses.ResponseUsage",
            "repair",
        ),
    ],
)


# ---------------------------------------------------------------------------------- helpers

#: Hosted OpenAI-compatible servers whose own rules the Chat profile applies (rules
#: ``server.*``), by the host of the ``base_url`` setting (else ``OPENAI_BASE_URL``): Mistral's
#: API (La Plateforme, and Codestral's endpoint, the same API) and DeepSeek's API.
HOSTED_SERVERS: Mapping[str, str] = {
    "api.mistral.ai": "mistral",
    "codestral.mistral.ai": "mistral",
    "api.deepseek.com": "deepseek",
}


#: A tool call id Mistral's API takes (rule ``server.mistral-call-id``).
MISTRAL_CALL_ID = re.compile(r"[a-zA-Z0-9]{9}")
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


#: How the Chat codec labels the images a tool returned, in the user message after the tool
#: messages (``"Image(s) returned by tool call <id> (<tool>):"``).
IMAGE_LABEL = "Image(s) returned by tool call "
#: How the Chat codec labels the PDF documents a tool returned, in the same user message.
DOCUMENT_LABEL = "Document(s) returned by tool call "


def _relabel_images(message: Any, renamed: dict[str, str]) -> None:
    """In ``message`` (the user message after a run of tool messages), the labels of the images
    those tools returned name the call ids as sent (``renamed``: old id → id sent), so the model
    can tell which call each image answers."""
    if type(message) is not dict or message.get("role") != "user" or not isinstance(message.get("content"), list):
        return
    for part in message["content"]:
        text = part.get("text") if type(part) is dict and part.get("type") == "text" else None
        label = next((x for x in (IMAGE_LABEL, DOCUMENT_LABEL) if isinstance(text, str) and text.startswith(x)), None)
        if isinstance(text, str) and label is not None:
            rest = text[len(label) :]
            for old, new in renamed.items():
                if rest.startswith(old) and rest[len(old) : len(old) + 1] in ("", " ", ":"):
                    part["text"] = label + new + rest[len(old) :]
                    break


def mistral_call_id(call_id: str) -> str:
    """``call_id`` if Mistral's API takes it (:data:`MISTRAL_CALL_ID`: 9 characters of a-z, A-Z,
    0-9), else 9 such characters from its SHA-256 (stable: the same id maps to the same one on
    every turn, in the call and in its result). Mistral refuses any other id: "Tool call id was
    call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9." (karthink/gptel#1203)."""
    if type(call_id) is str and MISTRAL_CALL_ID.fullmatch(call_id):
        return call_id
    n = int.from_bytes(hashlib.sha256(str(call_id).encode("utf-8", "surrogatepass")).digest()[:8], "big")
    out = []
    for _ in range(9):
        n, r = divmod(n, 62)
        out.append(_BASE62[r])
    return "".join(out)


def hosted_server(settings: Mapping[str, Any]) -> str | None:
    """The hosted compatible server a model's settings point at (a value of
    :data:`HOSTED_SERVERS`: ``"mistral"``, ``"deepseek"``), or ``None`` (api.openai.com, a local server, any
    other)."""
    import os

    from toolwire.adapter import url_host

    base = settings.get("base_url") or os.environ.get("OPENAI_BASE_URL")
    if not base:
        return None
    host = url_host(base)  # "api.mistral.ai." is the same host
    return HOSTED_SERVERS.get(host) if host else None


def deepseek_thinking(body: Mapping[str, Any]) -> bool:
    """Whether a ``/chat/completions`` body for DeepSeek's API asks for thinking mode (rule
    ``openai-chat.server.deepseek-reasoning-content``): ``thinking: {"type": "enabled"}`` does,
    ``{"type": "disabled"}`` does not; without it, every model but ``deepseek-chat`` (the
    non-thinking alias) thinks (api-docs.deepseek.com guides/thinking_mode: "The thinking toggle
    defaults to enabled")."""
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind == "enabled":
        return True
    if kind == "disabled":
        return False
    return model_key(body.get("model")) != "deepseek-chat"


def sanitize_name(name: str) -> str:
    """A name under :data:`TOOL_NAME_RULE`, deterministically: characters outside it become
    ``_``; a name longer than 64 keeps 55 characters plus ``_`` and 8 hex of its SHA-256."""
    if isinstance(name, str) and TOOL_NAME_RULE.fullmatch(name):
        return name
    text = str(name)
    clean = re.sub(r"[^a-zA-Z0-9_-]", "_", text) or "_"
    if len(clean) > 64:
        clean = clean[:55] + "_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return clean


def _hashed_name(name: str) -> str:
    clean = re.sub(r"[^a-zA-Z0-9_-]", "_", name)
    return clean[:55] + "_" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def wire_tool_names(names: Iterable[Any]) -> dict[str, str]:
    """The names a request's tools are sent under, for the names OpenAI refuses
    (:data:`TOOL_NAME_RULE`): a tool imported from another provider's history (Gemini allows
    ``.`` and ``:``, e.g. ``files.read:v2``) is sent as :func:`sanitize_name` gives
    (``files_read_v2``), a tool named as one of OpenAI's own (:data:`RESERVED_TOOL_NAMES`:
    ``python``) as the name given there (``run_python``); when that is taken by another tool of
    the request, as its first 55 characters plus ``_`` and 8 hex digits of the name's SHA-256.
    Deterministic for a tool set,
    so the declaration, the calls of the history and the tool choice agree on every turn, and the
    codecs map the model's calls back to the real name. Valid names are not in the result."""
    return dict(_wire_names(tuple(n for n in names if isinstance(n, str))))


@functools.lru_cache(maxsize=256)
def _wire_names(names: tuple[str, ...]) -> dict[str, str]:
    """:func:`wire_tool_names` of a tuple of names, memoized (the same tools are sent every turn;
    the dict returned is shared and never changed)."""
    used = {n for n in names if TOOL_NAME_RULE.fullmatch(n) and n not in RESERVED_TOOL_NAMES}
    if len(used) == len(names):
        return {}  # every name valid (the usual case): none renamed
    out: dict[str, str] = {}
    for n in names:
        if n in used or n in out:
            continue
        w = RESERVED_TOOL_NAMES.get(n) or sanitize_name(n)
        if w in used:
            w = _hashed_name(n)
        out[n] = w
        used.add(w)
    return out


def history_call_name(name: str, declared: Container[Any]) -> str:
    """The name a history call of ``name`` (refused by :data:`TOOL_NAME_RULE`: a call of a name the
    model made up, e.g. ``get weather``, or imported from another vendor) is sent under:
    :func:`sanitize_name`, unless that is the name of a tool the request declares (``get_weather``),
    which would tell the model it called that tool: then the first 55 characters plus ``_`` and 8
    hex digits of the name's SHA-256 (``get_weather_1a2b3c4d``), a name no tool has."""
    new = sanitize_name(name)
    return _hashed_name(name) if new in declared else new


def history_name(name: Any, names: Mapping[str, str]) -> Any:
    """A call name of the history as sent: the request's mapping (:func:`wire_tool_names`), else
    (a tool no longer declared) :func:`sanitize_name` when OpenAI refuses it."""
    if not isinstance(name, str):
        return name
    if name in names:
        return names[name]
    return name if TOOL_NAME_RULE.fullmatch(name) else sanitize_name(name)


def real_names(tools: Iterable[Any]) -> dict[str, str]:
    """Wire name → the tool's own name, for the renamed tools among ``tools`` (Tool objects)."""
    names = tuple(n for t in tools if isinstance(n := getattr(t, "name", None), str))
    return dict(_real_names(names)) if _wire_names(names) else {}


@functools.lru_cache(maxsize=256)
def _real_names(names: tuple[str, ...]) -> dict[str, str]:
    return {w: n for n, w in _wire_names(names).items()}


def _rename_rule(name: str) -> str:
    """The rule a tool is renamed under: ``tool.reserved-name`` for a name OpenAI keeps
    (:data:`RESERVED_TOOL_NAMES`), ``tool.name`` for one it refuses."""
    return "tool.reserved-name" if name in RESERVED_TOOL_NAMES else "tool.name"


def _long_content(content: Any, limit: int = CHAT_MAX_CONTENT) -> bool:
    """A message content (or Responses ``output``) holding text over ``limit`` characters (a
    string, or a text part of an array)."""
    if type(content) is str:
        return len(content) > limit
    if isinstance(content, list):
        return any(isinstance(p, dict) and isinstance(t := p.get("text"), str) and len(t) > limit for p in content)
    return False


#: The content part types an assistant message takes as input
#: (``openai.types.responses.ResponseOutputMessageParam.content``).
_ASSISTANT_PARTS = ("output_text", "refusal")


def _assistant_parts(content: list[Any]) -> tuple[list[Any], list[Any]]:
    """Rule ``conversation.assistant-parts``: an assistant message's content parts as the API
    takes them, and the types of the parts of another kind that were rewritten or left out.
    ``input_text`` → ``output_text`` (the same part); a part of another type (one a newer API
    answers with, or a malformed one) → an ``output_text`` part holding its ``text``, or nothing
    when it has no text. Parts that are not objects are kept (the check names them)."""
    out: list[Any] = []
    other: list[Any] = []
    for p in content:
        if not isinstance(p, dict) or p.get("type") in _ASSISTANT_PARTS:
            out.append(p)
        elif p.get("type") == "input_text":
            out.append({**p, "type": "output_text"})
        else:
            other.append(p.get("type"))
            if isinstance(p.get("text"), str) and p["text"]:
                out.append({"type": "output_text", "text": p["text"], "annotations": []})
    return out, other


def _long_text(value: Any) -> bool:
    """:func:`_long_content` at the Responses bound, :data:`RESPONSES_MAX_TEXT`."""
    return _long_content(value, RESPONSES_MAX_TEXT)


def _cut_texts(
    value: Any, limit: int, part_type: str, text_types: tuple[str, ...] | None
) -> tuple[list[Any], list[tuple[int, int]]]:
    """``value`` (a string, or a list of parts) as parts, every text over ``limit`` characters cut
    into consecutive parts of at most that many (the same text in order; a string becomes one
    ``part_type`` part first; only parts of ``text_types`` are cut, any when ``None``), and the
    ``(characters, parts)`` of each cut."""
    parts: list[Any] = [{"type": part_type, "text": value}] if isinstance(value, str) else list(value or [])
    out: list[Any] = []
    cuts: list[tuple[int, int]] = []
    for p in parts:
        cuttable = isinstance(p, dict) and (text_types is None or p.get("type") in text_types)
        text = p.get("text") if cuttable else None
        if isinstance(text, str) and len(text) > limit:
            pieces = [text[k : k + limit] for k in range(0, len(text), limit)]
            out.extend({**p, "text": piece} for piece in pieces)
            cuts.append((len(text), len(pieces)))
        else:
            out.append(p)
    return out, cuts


def short_call_id(call_id: str, limit: int) -> str:
    """``call_id`` if it is 1 to ``limit`` characters, else ``call_<hex>`` (a SHA-256 prefix,
    stable: the same long or empty id maps to the same id on every turn, in the call and in its
    result). The API refuses both: "string too long. Expected a string with maximum length 40"
    and "Invalid 'input[4].call_id': empty string. Expected a string with minimum length 1"."""
    if not isinstance(call_id, str) or 0 < len(call_id) <= limit:
        return call_id
    return "call_" + hashlib.sha256(call_id.encode("utf-8")).hexdigest()[: min(32, limit - 5)]


#: The host of OpenAI's own API (the SDK's default ``base_url``), whose model ids are lower case.
OPENAI_API_HOST = "api.openai.com"


def model_key(model: Any) -> str:
    """The one spelling every model rule of the OpenAI profiles reads a model id in: without a
    provider path (``openai/``) and surrounding spaces, lower-cased, and for a fine-tuned model
    (``ft:<base model>:<org>:<suffix>:<id>``) its base model. ``"GPT-5.2"``, ``" gpt-5.2 "``
    and ``"openai/gpt-5.2"`` get the rules of ``gpt-5.2``; a dated snapshot
    (``gpt-5.2-2025-12-11``) keeps its date, which every model table reads past. ``""`` for a
    value that is not a string. The id sent is not changed by this: see :func:`model_id_problem`."""
    return _model_key(model) if isinstance(model, str) else ""


@functools.lru_cache(maxsize=256)
def _model_key(model: str) -> str:
    name = model.rsplit("/", 1)[-1].strip().lower()
    if name.startswith("ft:"):  # ft:<base model>:<org>:<suffix>:<id>: the base model's rules
        name = name[3:].partition(":")[0]
    return name


def model_id_problem(model_id: Any, base_url: Any = None) -> str | None:
    """Why OpenAI's API would not find ``model_id`` as written (rule ``request.model-id``), or
    ``None``: spaces around it (anywhere), or a base model not in lower case (``GPT-4o``; a
    fine-tuned id's own suffix may have capitals) when the requests go to OpenAI's API itself
    (``base_url`` unset or on :data:`OPENAI_API_HOST`: a compatible server's names, such as
    ``meta-llama/Llama-3.1-8B``, are its own). The text says what to write."""
    if not isinstance(model_id, str):
        return None
    if model_id != model_id.strip():
        return (
            f"model id {model_id!r} has spaces around it; no model id has any (the API answers an id with them as "
            f"a model that does not exist): write {model_id.strip()!r}"
        )
    ft = model_id[:3].lower() == "ft:"
    base = model_id[3:].partition(":")[0] if ft else model_id
    if base == base.lower() or not to_openai_api(base_url):
        return None
    fixed = "ft:" + base.lower() + model_id[3 + len(base) :] if ft else model_id.lower()
    return (
        f"model id {model_id!r} is not an OpenAI model id: they are lower case and the API matches them exactly (it "
        f'answers "The model `{model_id}` does not exist or you do not have access to it."): write {fixed!r}'
    )


#: Request fields the installed SDK types with a closed set of values (rule ``request.field-values``),
#: as paths into ``CompletionCreateParamsBase`` (Chat) and ``ResponseCreateParamsBase`` (Responses).
CHAT_FIELD_VALUE_PATHS: tuple[tuple[str, ...], ...] = (
    ("service_tier",),
    ("reasoning_effort",),
    ("verbosity",),
    ("prompt_cache_retention",),
)
RESPONSES_FIELD_VALUE_PATHS: tuple[tuple[str, ...], ...] = (
    ("service_tier",),
    ("reasoning", "effort"),
    ("reasoning", "summary"),
    ("reasoning", "generate_summary"),
    ("reasoning", "context"),
    ("text", "verbosity"),
    ("truncation",),
    ("prompt_cache_retention",),
)


def field_value_problems(body: Mapping[str, Any], api: str) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each field of ``body`` (a ``"openai-chat"`` or ``"openai"``
    request) at :data:`CHAT_FIELD_VALUE_PATHS` / :data:`RESPONSES_FIELD_VALUE_PATHS` whose value the
    installed SDK's request type does not allow (its ``Literal`` values, read by
    :func:`toolwire.profile.literal_field_values`); each message names the values to use."""
    from toolwire.profile import literal_value_problems

    if api == CHAT:
        from openai.types.chat.completion_create_params import CompletionCreateParamsBase

        where = "openai.types.chat.completion_create_params.CompletionCreateParamsBase"
        return literal_value_problems(body, CompletionCreateParamsBase, CHAT_FIELD_VALUE_PATHS, where)
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

    where = "openai.types.responses.response_create_params.ResponseCreateParamsBase"
    return literal_value_problems(body, ResponseCreateParamsBase, RESPONSES_FIELD_VALUE_PATHS, where)


def field_key_problems(fields: Mapping[str, Any], api: str) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each key of an object-valued request field of ``fields``
    (``reasoning``, ``text``, ``stream_options``, ``prompt``, ...) that the installed SDK's request
    type does not give that object (rule ``request.field-values``; :func:`toolwire.profile.object_key_problems`):
    OpenAI answers such a key with "Unknown parameter: 'reasoning.budget'."."""
    from toolwire.profile import object_key_problems

    if api == CHAT:
        from openai.types.chat.completion_create_params import CompletionCreateParamsBase

        return object_key_problems(
            fields, CompletionCreateParamsBase, "openai.types.chat.completion_create_params.CompletionCreateParamsBase"
        )
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

    return object_key_problems(
        fields, ResponseCreateParamsBase, "openai.types.responses.response_create_params.ResponseCreateParamsBase"
    )


def setting_type_problems(settings: Mapping[str, Any], api: str) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each request-field setting (a model setting sent as the
    request field of its name) whose value cannot be of the type the installed SDK's request type
    gives that field (:func:`toolwire.profile.value_type_problems`; rule ``request.field-values``):
    ``CompletionCreateParamsBase`` (Chat) or ``ResponseCreateParamsBase`` (Responses). OpenAI
    answers such a value with a 400 ("Invalid type for 'user': expected a string, but got an
    integer instead."). The common settings (``max_tokens``, ``temperature``, ``thinking``, ...)
    and toolwire's own codec keys have their own checks; a setting of ``None`` (unset) and
    ``extra_body`` are sent unchecked."""
    from toolwire.adapter import COMMON_SETTINGS
    from toolwire.profile import value_type_problems

    if api == CHAT:
        from openai.types.chat.completion_create_params import CompletionCreateParamsBase as params

        from .chat import CODEC_KEYS as own

        written = {"model", "messages", "tools", "tool_choice"}
    else:
        from openai.types.responses.response_create_params import ResponseCreateParamsBase as params

        from .responses import CODEC_KEYS as own

        written = {"model", "input", "tools", "tool_choice"}
    # (a setting of None is sent as null, as before: the SDK's unset, left to the API)
    given = {
        k: v
        for k, v in settings.items()
        if v is not None and k not in COMMON_SETTINGS and k not in own and k not in written
    }
    return value_type_problems(given, params)


def to_openai_api(base_url: Any) -> bool:
    """Whether requests with ``base_url`` (a setting, else ``OPENAI_BASE_URL``) go to OpenAI's own
    API (:data:`OPENAI_API_HOST`, the default), not to a compatible server."""
    from toolwire.adapter import on_vendor_host

    return on_vendor_host(base_url, OPENAI_API_HOST)


_O_SERIES = re.compile(r"^o[134](-|$)")
_GPT5 = re.compile(r"^gpt-5(\.(\d+))?(-|$)")


def reasoning_family(model: Any) -> str | None:
    """``"o"`` (o1, o3, o4 families), ``"gpt-5"`` (gpt-5, gpt-5-mini, gpt-5-nano, gpt-5-pro,
    ...), ``"gpt-5.x"`` (gpt-5.1 and later) or ``None`` (any other model, including the
    ``-chat`` variants, which are not reasoning models). A provider prefix such as
    ``openai/`` is ignored."""
    if type(model) is not str:
        return _reasoning_family(model) if isinstance(model, str) else None
    return _reasoning_family(model)


@functools.lru_cache(maxsize=256)
def _reasoning_family(model: str) -> str | None:
    name = model_key(model)
    if "-chat" in name:
        return None
    if _O_SERIES.match(name):
        return "o"
    m = _GPT5.match(name)
    if m:
        return "gpt-5.x" if m.group(1) else "gpt-5"
    return None


#: Models known not to reason (GPT-4 and GPT-3.5 families, ChatGPT snapshots, the ``-chat``
#: variants of GPT-5): the Responses API refuses reasoning items sent to them.
_NON_REASONING = re.compile(r"^(gpt-4|gpt-3\.5|chatgpt-|gpt-5(\.\d+)?-chat)")


#: The reasoning effort scale, lowest first (SDK ``openai.types.shared.ReasoningEffort``).
EFFORT_SCALE = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

#: The reasoning efforts a model takes, for the models whose set is known from the API's own
#: error texts (a dated snapshot such as ``gpt-5-mini-2025-08-07`` shares its model's set):
#: ``()`` for a model that does not reason ("Unrecognized request argument supplied:
#: reasoning_effort" for gpt-4o-mini, davidmigloz/langchain_dart#712; "Unsupported parameter:
#: 'reasoning.effort' is not supported with this model." for gpt-4.1, BoundaryML/baml#2708).
REASONING_EFFORTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # GPT-4 and GPT-3.5 families, ChatGPT snapshots: no reasoning
    (r"gpt-4(o|\.1|\.5|-turbo)?(-[a-z0-9.-]+)?|gpt-3\.5-turbo(-[a-z0-9-]+)?|chatgpt-4o-latest", ()),
    # "Unsupported parameter: 'reasoning.effort' is not supported with this model." for
    # gpt-5-chat-latest (Laisky/one-api#120, logancyang/obsidian-copilot#1712)
    (r"gpt-5-chat-latest", ()),
    # o-series: "Currently supported values are low, medium, and high" (SDK docstring of
    # reasoning_effort before GPT-5)
    (r"o1|o3|o3-mini|o3-pro|o4-mini", ("low", "medium", "high")),
    # "Unsupported value: 'xhigh' is not supported with the 'gpt-5-mini' model. Supported values
    # are: 'minimal', 'low', 'medium', and 'high'." (microsoft/vscode#301045; 'none' for gpt-5-mini:
    # Nutlope/aicommits#356)
    (r"gpt-5|gpt-5-mini|gpt-5-nano", ("minimal", "low", "medium", "high")),
    # "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values
    # are: 'none', 'low', 'medium', and 'high'." (anomalyco/opencode#4451)
    (r"gpt-5\.1", ("none", "low", "medium", "high")),
    # "'none' is not supported with the 'gpt-5.1-codex' model. Supported values are: 'low',
    # 'medium', and 'high'" (openai/codex#6647, answered by an OpenAI maintainer)
    (r"gpt-5\.1-codex(-mini)?", ("low", "medium", "high")),
    # "Unsupported value: 'minimal' is not supported with the 'gpt-5.2' model. Supported values
    # are: 'none', 'low', 'medium', 'high', and 'xhigh'." (CherryHQ/cherry-studio#11864)
    (r"gpt-5\.2", ("none", "low", "medium", "high", "xhigh")),
    # "Unsupported value: 'high' is not supported with the 'gpt-5.1-chat-latest' model. Supported
    # values are: 'medium'." (Laisky/one-api#266)
    (r"gpt-5\.1-chat(-latest)?", ("medium",)),
    # "... with the 'gpt-5.2-pro' model. Supported values are: 'medium', 'high', and 'xhigh'."
    # (CherryHQ/cherry-studio#11920)
    (r"gpt-5\.2-pro", ("medium", "high", "xhigh")),
    # "Unsupported value: 'low' is not supported with the 'gpt-5.2-chat-latest' model. Supported
    # values are: 'medium'." (anomalyco/opencode#10295); its dated snapshot the same: "'high' is not
    # supported with the 'gpt-5.2-chat-2025-12-11' model. Supported values are: 'medium'."
    # (Laisky/one-api#285)
    (r"gpt-5\.2-chat(-latest)?", ("medium",)),
)
_EFFORTS = tuple(
    (re.compile(rf"(?:{pattern})(-\d{{4}}-\d{{2}}-\d{{2}})?"), efforts) for pattern, efforts in REASONING_EFFORTS
)


@functools.lru_cache(maxsize=256)
def reasoning_efforts(model: str) -> tuple[str, ...] | None:
    """The reasoning efforts ``model`` takes, from :data:`REASONING_EFFORTS`: ``()`` for a model
    that does not reason, ``None`` for a model whose set toolwire does not know (its effort is
    sent as given). A provider prefix such as ``openai/``, the ``ft:`` of a fine-tuned model and
    surrounding spaces are ignored."""
    name = model_key(model)
    for pattern, efforts in _EFFORTS:
        if pattern.fullmatch(name):
            return efforts
    return None


def _model_name(model: str) -> str:
    """``model`` read by :func:`model_key`."""
    return model_key(model)


#: Reasoning summaries a model refuses, and the one it names instead (rule
#: ``request.reasoning-summary-model``), with their dated snapshots: "Unsupported value: 'concise'
#: is not supported with the 'gpt-5-2025-08-07' model. Supported values are: 'detailed'."
#: (openai/codex#2376) and "Unsupported value: 'detailed' is not supported with the
#: 'computer-use-preview-2025-03-11' model. Supported values are: 'concise'."
#: (openai/openai-cua-sample-app#37). 'auto' (the best summary the model gives) is not changed.
REASONING_SUMMARIES: tuple[tuple[str, Mapping[str, str]], ...] = (
    (r"gpt-5", {"concise": "detailed"}),
    (r"computer-use-preview", {"detailed": "concise"}),
)
_SUMMARIES = tuple(
    (re.compile(rf"(?:{pattern})(-\d{{4}}-\d{{2}}-\d{{2}})?"), swaps) for pattern, swaps in REASONING_SUMMARIES
)


@functools.lru_cache(maxsize=256)
def _summary_for(name: str) -> Mapping[str, str]:
    """The summary swaps of :data:`REASONING_SUMMARIES` for the model ``name`` (``{}`` if none)."""
    for pattern, swaps in _SUMMARIES:
        if pattern.fullmatch(name):
            return swaps
    return {}


#: Models that take no function tools (rule ``request.function-calling-model``), with their dated snapshots.
_NO_FUNCTIONS = re.compile(
    r"gpt-5-chat-latest|chatgpt-4o-latest|gpt-4o(-mini)?-search-preview(-\d{4}-\d{2}-\d{2})?"
    r"|o1-mini(-\d{4}-\d{2}-\d{2})?|o1-preview(-\d{4}-\d{2}-\d{2})?"
    r"|gpt-4-vision-preview|gpt-4-1106-vision-preview"
)

#: Chat models that take function tools only with reasoning effort 'none' (rule
#: ``request.tools-reasoning-effort-model``), with their variants and dated snapshots: GPT-5.4
#: (whose default effort is 'none', so only an effort asked for is refused) and GPT-5.5 and
#: GPT-5.6 (which reason by default, so a request without an effort is refused too).
_TOOLS_EFFORT_ASKED = re.compile(r"gpt-5\.4(-mini|-nano|-pro)?(-\d{4}-\d{2}-\d{2})?")
_TOOLS_EFFORT_DEFAULT = re.compile(r"gpt-5\.[56](-(?!chat)[a-z]+)?(-\d{4}-\d{2}-\d{2})?")


def tools_effort_problem(model: Any, effort: Any) -> str | None:
    """Why Chat Completions refuses function tools for ``model`` at reasoning ``effort`` (the
    body's ``reasoning_effort``, ``None`` when not sent), or ``None`` when it takes them (rule
    ``request.tools-reasoning-effort-model``). A name with a router's prefix (``openai/gpt-5.5``)
    is not judged: the router may send it to the Responses API."""
    if type(model) is not str or "/" in model or effort == "none":
        return None
    name = model.strip().lower()
    if _TOOLS_EFFORT_DEFAULT.fullmatch(name):
        said = f"reasoning effort {effort!r}" if effort is not None else "its default reasoning effort (it reasons)"
    elif effort is not None and _TOOLS_EFFORT_ASKED.fullmatch(name):
        said = f"reasoning effort {effort!r}"
    else:
        return None
    return (
        f"{model} takes no function tools on Chat Completions with {said} (the API answers "
        f"'Function tools with reasoning_effort are not supported for {model} in /v1/chat/completions'): "
        f"use the Responses API (model 'openai:{model}'), which takes both, or set thinking={{'effort': 'none'}}"
    )


#: Chat models that take no system or developer message (rule ``request.system-role-model``),
#: with their dated snapshots.
_NO_SYSTEM_ROLE = re.compile(r"(o1-mini|o1-preview)(-\d{4}-\d{2}-\d{2})?")


#: The Chat search models (rule ``request.sampling-search-model``), with their dated snapshots.
_SEARCH_MODEL = re.compile(r"gpt-4o(-mini)?-search-preview(-\d{4}-\d{2}-\d{2})?")

#: Chat Completions models that refuse ``parallel_tool_calls`` (rule
#: ``request.parallel-tool-calls-model``), with their dated snapshots.
_NO_PARALLEL = re.compile(r"(o1|o3|o3-mini|o4-mini)(-\d{4}-\d{2}-\d{2})?")


@functools.lru_cache(maxsize=256)
def _refuses_stop(model: str) -> bool:
    """Whether a Chat model refuses ``stop`` (rule ``request.stop-reasoning-model``): the
    reasoning models (o1, o3, o4-mini, gpt-5 and later, not their ``-chat`` variants), except
    o3-mini and o1-mini."""
    name = _model_name(model)
    if re.fullmatch(r"(o3-mini|o1-mini)(-\d{4}-\d{2}-\d{2})?", name):
        return False
    return _reasoning_family(name) is not None


def nearest_effort(effort: str, allowed: tuple[str, ...]) -> str:
    """The effort of ``allowed`` nearest to ``effort`` on :data:`EFFORT_SCALE` (the higher one
    on a tie: a model asked to reason keeps reasoning)."""
    at = EFFORT_SCALE.index(effort) if effort in EFFORT_SCALE else EFFORT_SCALE.index("medium")
    return min(allowed, key=lambda e: (abs(EFFORT_SCALE.index(e) - at), -EFFORT_SCALE.index(e)))


def takes_reasoning_items(model: Any) -> bool:
    """Whether Responses input may carry reasoning items for ``model``: ``False`` only for a model
    known not to reason (gpt-4o, gpt-4.1, gpt-3.5, chatgpt-4o, gpt-5-chat...), which refuses them
    ("Reasoning input items can only be provided to a reasoning or computer use model. Remove
    reasoning items from your input and try again.", openai/openai-agents-python#569); ``True``
    for reasoning models and for any name toolwire does not know (an Azure deployment name, a
    proxy's alias), which get the reasoning as before. A provider prefix such as ``openai/``, the
    ``ft:`` of a fine-tuned model and surrounding spaces are ignored."""
    return _takes_reasoning_items(model) if type(model) is str else True


@functools.lru_cache(maxsize=256)
def _takes_reasoning_items(model: str) -> bool:
    return not _NON_REASONING.match(model_key(model))


#: The most output tokens each model writes in one response, as (model-name pattern, tokens),
#: first match wins; a dated snapshot (``-2024-08-06``) matches its family. Chat Completions
#: refuses a larger ``max_tokens`` / ``max_completion_tokens``: "max_tokens is too large: 32000.
#: This model supports at most 16384 completion tokens, whereas you provided 32000."
#: (enoch3712/ExtractThinker#346, gpt-4o; the same text for gpt-3.5-turbo-1106 and
#: gpt-4-1106-preview at 4096 in ChatGPTNextWeb/NextChat#3195). The figures are the "Max output
#: tokens" of each model's page (https://platform.openai.com/docs/models). A name that matches no
#: pattern (a newer model, an Azure deployment, a proxy's alias) is not limited by toolwire.
MAX_OUTPUT_TOKENS: tuple[tuple[str, int], ...] = (
    (r"gpt-3\.5-turbo(-\d{4})?", 4096),
    (r"gpt-4(-0314|-0613)?", 8192),
    (r"gpt-4-(turbo(-preview)?|1106-preview|0125-preview|vision-preview)", 4096),
    (r"gpt-4o-2024-05-13", 4096),
    (r"gpt-4o(-mini)?|chatgpt-4o-latest", 16384),
    (r"gpt-4\.1(-mini|-nano)?", 32768),
    (r"gpt-4\.5-preview", 16384),
    (r"o1-preview", 32768),
    (r"o1-mini", 65536),
    (r"o1(-pro)?|o3(-mini|-pro)?|o4-mini", 100000),
    (r"gpt-5(\.[12])?-chat-latest", 16384),
    (r"gpt-5(-mini|-nano|-codex)?|gpt-5\.1(-codex(-mini|-max)?)?|gpt-5\.2", 128000),
)
_MAX_OUTPUT = tuple(
    (re.compile(rf"(?:{pattern})(-\d{{4}}-\d{{2}}-\d{{2}})?"), tokens) for pattern, tokens in MAX_OUTPUT_TOKENS
)


@functools.lru_cache(maxsize=256)
def max_output_tokens(model: str) -> int | None:
    """The most output tokens ``model`` writes in one response (reasoning tokens included), from
    :data:`MAX_OUTPUT_TOKENS`; ``None`` for a name it does not know. A provider prefix such as
    ``openai/``, the ``ft:`` of a fine-tuned model (its base model's limit) and surrounding
    spaces are ignored."""
    name = model_key(model)
    for pattern, tokens in _MAX_OUTPUT:
        if pattern.fullmatch(name):
            return tokens
    return None


def _note(
    report: Any,
    rule: str,
    pointer: str,
    detail: str,
    *,
    lossy: bool = False,
    tool: str | None = None,
    call_id: str | None = None,
) -> None:
    """Record one request repair on ``report`` (a :class:`~toolwire.profile.RequestReport`)."""
    if report is not None:
        report.add(rule, pointer, detail, tool=tool, call_id=call_id, lossy=lossy)


def _after_tool(messages: list[Any], i: int) -> bool:
    """Whether ``messages[i - 1]`` is a ``role: tool`` message (Mistral's API takes no user message
    right after one: rule ``openai-chat.server.mistral-user-after-tool``)."""
    return i > 0 and type(prev := messages[i - 1]) is dict and prev.get("role") == "tool"


def _empty_assistant(m: dict[str, Any]) -> bool:
    """Whether the assistant message ``m`` has no tool calls and no content: none, ``""``, ``[]``
    or only empty text parts (Mistral's API refuses it: rule
    ``openai-chat.server.mistral-empty-assistant``)."""
    if m.get("tool_calls"):
        return False
    content = m.get("content")
    if content is None or content == "":
        return True
    if type(content) is list:
        return not any(not isinstance(p, dict) or p.get("type") != "text" or p.get("text") for p in content)
    return False


def _json_object_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if len(value) <= 4096 and type(value) is str:
        return _json_object_text_memo(value)  # the same call's arguments are checked every turn
    try:
        return isinstance(json.loads(value), dict)
    except ValueError:
        return False


@functools.lru_cache(maxsize=512)
def _json_object_text_memo(value: str) -> bool:
    try:
        return isinstance(json.loads(value), dict)
    except ValueError:
        return False


#: Values the conversation checks met before and found fine, looked up with ``in`` (no call) on the
#: checks' fast paths (a miss takes the full check, which adds the value when it is fine): tool
#: names that match :data:`TOOL_NAME_RULE`, and arguments texts (at most 4096 characters) that
#: are the text of a JSON object. Bounded: emptied when full.
_GOOD_NAMES: set[str] = set()
_OBJECT_TEXTS: set[str] = set()
_KNOWN_MAX = 4096


def _known_good_name(name: Any) -> bool:
    """Whether ``name`` matches :data:`TOOL_NAME_RULE` and is not one of
    :data:`RESERVED_TOOL_NAMES` (remembered in :data:`_GOOD_NAMES`)."""
    if type(name) is not str or not TOOL_NAME_RULE.fullmatch(name) or name in RESERVED_TOOL_NAMES:
        return False
    if len(_GOOD_NAMES) >= _KNOWN_MAX:
        _GOOD_NAMES.clear()
    _GOOD_NAMES.add(name)
    return True


def _known_object_text(value: Any) -> bool:
    """:func:`_json_object_text` of ``value``, remembered in :data:`_OBJECT_TEXTS` when true."""
    if not _json_object_text(value):
        return False
    if type(value) is str and len(value) <= 4096:
        if len(_OBJECT_TEXTS) >= _KNOWN_MAX:
            _OBJECT_TEXTS.clear()
        _OBJECT_TEXTS.add(value)
    return True


def _reasoning_output_fields(item: dict[str, Any], openai_api: bool) -> list[tuple[str, str]]:
    """The fields of the reasoning input ``item`` the API refuses, as ``(key, why)`` (rule
    ``openai.conversation.reasoning-input-fields``): ``status``, and to api.openai.com
    (``openai_api``) a ``content`` list that is not empty (reasoning text)."""
    out = []
    if "status" in item:
        out.append(("status", "the API takes no status on a reasoning input item"))
    content = item.get("content")
    if openai_api and isinstance(content, list) and content:
        out.append(("content", "api.openai.com takes no reasoning text back (the id or encrypted_content carries it)"))
    return out


#: The id prefix of each Responses item kind (item ids the API issues: fc_..., rs_..., msg_...).
ITEM_ID_PREFIX = {"function_call": "fc", "reasoning": "rs", "message": "msg"}


def _esc(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


#: The image types OpenAI reads inline ("Images and vision": PNG, JPEG, WEBP, non-animated GIF).
IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


#: The text of base64 (standard alphabet, padded or not), as a data: URL image carries it.
_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def fetches_image_url(url: str) -> bool:
    """Whether OpenAI takes an image given by ``url`` (rule ``conversation.image-url``, Chat and
    Responses): an http(s) URL, or a ``data:`` URL holding base64 text. An image a tool returned
    by any other URL is sent as a note (:func:`toolwire.turns.readable_tool_result`); one in a
    user message is refused."""
    if url[:5].lower() != "data:":
        return url_scheme(url) in ("https", "http")
    head, _, text = url[5:].partition(",")
    return head.lower().endswith(";base64") and _BASE64_TEXT.fullmatch(text) is not None


def _image_urls(items: Any, start: int, key: str) -> Iterator[tuple[int, str, int, dict[str, Any], str, str]]:
    """``(entry index, field, part index, part, url, pointer)`` for each image URL in the
    conversation entries from ``start``: a Chat ``image_url`` part's ``image_url.url`` or a
    Responses ``input_image``'s ``image_url``, in a message's ``content`` or a
    ``function_call_output``'s ``output``. Entries and parts of other shapes are passed over."""
    if type(items) is not list:
        return
    for i in range(max(0, start), len(items)):
        item = items[i]
        if type(item) is not dict:
            continue
        for field in ("content", "output"):
            parts = item.get(field)
            if type(parts) is not list:
                continue
            for j, part in enumerate(parts):
                if type(part) is not dict:
                    continue
                kind = part.get("type")
                if kind == "image_url":
                    inner = part.get("image_url")
                    url = inner.get("url") if isinstance(inner, dict) else None
                    where = f"/{key}/{i}/{field}/{j}/image_url/url"
                elif kind == "input_image":
                    url = part.get("image_url")
                    where = f"/{key}/{i}/{field}/{j}/image_url"
                else:
                    continue
                if isinstance(url, str):
                    yield i, field, j, part, url, where


def _image_problems(items: Any, start: int, key: str, violation: Any) -> list[Violation]:
    """Rules ``conversation.image-url``, ``conversation.image-media-type-data``,
    ``conversation.image-bytes`` and ``conversation.image-media-type`` over the conversation
    entries from ``start``: each image URL (a Chat ``image_url`` part, a Responses
    ``input_image`` in a message or a ``function_call_output``) that is neither an http(s) URL
    nor a data: URL of base64 bytes, and each inline image (a ``data:`` URL) whose bytes are of
    another image type than declared, are no image at all (declared PNG, JPEG, GIF or WebP,
    with no image signature), or whose media type OpenAI does not read. The type of an image by
    http(s) URL is not looked at (it is not known before the API fetches it)."""
    out: list[Violation] = []
    for _i, _field, _j, _part, url, where in _image_urls(items, start, key):
        if not fetches_image_url(url):
            out.append(violation("conversation.image-url", where, _image_url_problem(url, url_scheme(url))))
            continue
        if url[:5].lower() != "data:":
            continue
        media = url[5:].split(";", 1)[0].split(",", 1)[0].strip().lower()
        actual = _data_url_signature(url)
        if actual is not None and actual != media:
            out.append(
                violation(
                    "conversation.image-media-type-data",
                    where,
                    f"the image is declared {media!r} but its bytes are {actual.split('/')[1].upper()}; "
                    f"send it as {actual!r}",
                )
            )
            continue
        if media in IMAGE_MEDIA_TYPES and (head := base64_head(url.partition(",")[2])) is not None:
            problem = not_image_problem(head, media)
            if problem is not None:
                out.append(
                    violation(
                        "conversation.image-bytes",
                        where,
                        f"the image declared {media!r} holds {problem}, which OpenAI refuses. Check that the file "
                        "was read or downloaded whole (not an error page, not empty) and pass the image's bytes, "
                        "or leave the image out",
                    )
                )
            continue
        if media not in IMAGE_MEDIA_TYPES:
            out.append(
                violation(
                    "conversation.image-media-type",
                    where,
                    f"image type {media!r} is not one OpenAI reads ({', '.join(sorted(IMAGE_MEDIA_TYPES))}); "
                    "convert the image to PNG or JPEG (a PDF goes as a file, not an image)",
                )
            )
    return out


def _data_url_signature(url: str) -> str | None:
    """The image type the first bytes of a base64 ``data:`` URL name (PNG, JPEG, GIF, WebP by their
    signature), or ``None`` (another format, not base64, or not a data URL)."""
    if url[:5].lower() != "data:":
        return None
    head, _, text = url[5:].partition(",")
    if not head.lower().endswith(";base64"):
        return None
    start = "".join(text[:64].split())[:16]
    try:
        raw = base64.b64decode(start, validate=True)
    except ValueError:
        return None
    return signature_media_type(raw)


def _repair_image_data(items: Any, settled: int, key: str, rule: str, report: Any) -> None:
    """Rule ``conversation.image-media-type-data``: each inline image (a Chat ``image_url`` part,
    a Responses ``input_image`` in a message or a ``function_call_output``) of the entries from
    ``settled`` on whose data URL declares another type than its bytes' signature names is sent
    with that type (the entry and the part are replaced, not changed in place), the change
    reported (not lossy: the image is the same)."""
    for i, field, j, part, url, where in list(_image_urls(items, settled, key)):
        actual = _data_url_signature(url)
        declared = url[5:].split(";", 1)[0].split(",", 1)[0].strip().lower()
        if actual is None or actual == declared:
            continue
        fixed = f"data:{actual};base64,{url.partition(',')[2]}"
        inner = part["image_url"]
        new_part = {**part, "image_url": {**inner, "url": fixed} if isinstance(inner, dict) else fixed}
        item = items[i]
        parts = item[field]
        items[i] = {**item, field: [*parts[:j], new_part, *parts[j + 1 :]]}
        _note(
            report,
            rule,
            where,
            f"media type {declared!r} sent as {actual!r}: the image's bytes are {actual.split('/')[1].upper()}",
        )


def _image_url_problem(url: str, scheme: str) -> str:
    """What is wrong with an image URL OpenAI does not take, and what to do instead."""
    shown = url if len(url) <= 80 else url[:77] + "..."
    todo = "read the image and pass its bytes, ImagePart(data=..., media_type='image/png')"
    if scheme == "data":
        return f"the data: URL {shown!r} holds no base64 image bytes (empty, or not base64): {todo}"
    from toolwire.types import url_kind

    what = url_kind(url)
    return f"image URL {shown!r} is {what}, which OpenAI cannot fetch (http(s) or base64 data: URLs only): {todo}"


def _image_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ("image_url", "input_image", "image")


def _sampling_problem(body: dict[str, Any], effort: Any) -> list[tuple[str, str]]:
    """``(pointer, message)`` for temperature/top_p a reasoning model refuses."""
    family = reasoning_family(body.get("model"))
    if family is None or (family == "gpt-5.x" and (effort in (None, "none"))):
        return []
    out = []
    for key in ("temperature", "top_p"):
        value = body.get(key)
        if value is not None and value != 1:
            out.append(
                (
                    f"/{key}",
                    f"model {body.get('model')!r} takes only the default {key} (1), got {value!r}; leave "
                    f"{key} unset" + (" or set reasoning effort 'none'" if family == "gpt-5.x" else ""),
                )
            )
    return out


# --------------------------------------------------------------------------------- profiles


#: The minimum cached prompt length (see :meth:`_OpenAIProfile.cache_min_tokens`).
PROMPT_CACHE_MIN_TOKENS = 1024


def _chat_call_ids(seen: set[str], _i: int, m: Any) -> set[str]:
    """``seen`` (changed in place) plus the tool call ids of Chat message ``m``."""
    if isinstance(m, dict) and isinstance(m.get("tool_calls"), list):
        seen.update(c["id"] for c in m["tool_calls"] if isinstance(c, dict) and isinstance(c.get("id"), str))
    return seen


def _responses_ids_start() -> tuple[dict[str, int], set[str], set[str]]:
    return {}, set(), set()


def _copy_responses_ids(
    acc: tuple[dict[str, int], set[str], set[str]],
) -> tuple[dict[str, int], set[str], set[str]]:
    return dict(acc[0]), set(acc[1]), set(acc[2])


def _responses_ids(
    acc: tuple[dict[str, int], set[str], set[str]], i: int, it: Any
) -> tuple[dict[str, int], set[str], set[str]]:
    """``acc`` = (first index of each call_id, answered call_ids, item ids), changed in place for
    Responses input item ``it`` at index ``i``."""
    if not isinstance(it, dict):
        return acc
    calls, answered, item_ids = acc
    iid = it.get("id")
    if isinstance(iid, str) and iid:
        item_ids.add(iid)
    typ = it.get("type")
    if typ in ("function_call", "custom_tool_call"):
        cid = it.get("call_id")
        if isinstance(cid, str):
            calls.setdefault(cid, i)
    elif typ in ("function_call_output", "custom_tool_call_output"):
        cid = it.get("call_id")
        if isinstance(cid, str):
            answered.add(cid)
    elif typ in _CLIENT_SEARCH_ITEMS:
        _note_client_search(it, i, calls, answered)
    return acc


#: The items of a tool search the client runs (``tool_search`` tool with ``execution: "client"``).
_CLIENT_SEARCH_ITEMS = ("tool_search_call", "tool_search_output")


def _note_client_search(it: dict[str, Any], i: int, calls: dict[str, int], answered: set[str]) -> None:
    """Count a client-run tool search: its ``tool_search_call`` is a call that a later output
    answers, its ``tool_search_output`` an answer. The openai SDK types
    (``ResponseInputItemParam.ToolSearchCall`` and ``ResponseToolSearchOutputItemParamParam``: a
    ``call_id`` and ``execution: "server" | "client"``) pair them by ``call_id``; the API also
    took a ``function_call_output`` as the answer to a client tool search (a recorded gpt-5.6
    request: pydantic/pydantic-ai cassette test_tool_availability_portability_matrix[R5-T3-native-search],
    HTTP 200). Such a call is not required to be answered here: no source says the API refuses
    one left open. A server-run search (``execution: "server"``) is answered by the server."""
    cid = it.get("call_id")
    if not isinstance(cid, str):
        return
    if it.get("type") != "tool_search_call":
        answered.add(cid)
    elif it.get("execution") == "client":
        calls.setdefault(cid, i)


#: The families of OpenAI model ids (:meth:`_OpenAIProfile.recognizes_model_id`).
_OPENAI_MODEL_ID = re.compile(r"(gpt-|chatgpt-|o[134](-|$))")


class _OpenAIProfile(Profile):
    #: genai-prices provider id (``genai_prices/data.py``) and OpenTelemetry GenAI
    #: ``gen_ai.provider.name`` (semconv ``GenAiProviderNameValues.OPENAI``), both APIs.
    pricing_provider: str | None = "openai"
    telemetry_provider_name: str | None = "openai"
    """What both OpenAI profiles share. ``strict``: the schema mode of :meth:`translate_schema`."""

    api = ""
    token_limit_minimums: tuple[tuple[str, int], ...] = ()

    def wire_tool_names(self, names: Sequence[str]) -> Mapping[str, str]:
        """``{name: wire name}`` of the tools sent under another name (:func:`wire_tool_names`:
        rule ``tool.name``, a name OpenAI refuses, and rule ``tool.reserved-name``, ``python``
        sent as ``run_python``)."""
        return wire_tool_names(names)

    def provider_tools(self) -> Mapping[str, Any]:
        """None on Chat Completions (``ChatCompletionToolUnionParam`` holds only ``function`` and
        ``custom`` tools); the Responses profile lists OpenAI's hosted tools."""
        from types import MappingProxyType

        return MappingProxyType({}) if self.api != RESPONSES else responses_provider_tools()

    def provider_tool_problems(self, tool_type: str, settings: Mapping[str, Any]) -> list[str]:
        """Responses: the declaration ``{"type", **settings}`` checked against its SDK type (the
        ``openai.types.responses.*ToolParam`` TypedDict named by the tool's ``source``), see
        :func:`toolwire.profile.declaration_problems`. Chat Completions has no provider tools."""
        if self.api != RESPONSES:
            return []
        import importlib

        from toolwire.profile import declaration_problems

        info = responses_provider_tools().get(tool_type)
        sdk_type = None
        if info is not None:
            module, _, name = info.source.rpartition(".")
            sdk_type = getattr(importlib.import_module(module), name, None)
        if info is None or sdk_type is None:
            return []
        return declaration_problems({"type": tool_type, **settings}, sdk_type)

    def cache_min_tokens(self, model: str | None = None) -> int | None:
        """1024: OpenAI caches prompts of 1024 tokens or more, automatically
        (https://platform.openai.com/docs/guides/prompt-caching, "Caching is enabled automatically
        for prompts that are 1024 tokens or longer"); ``prompt_cache_key`` routes requests that
        share a prefix to the same cache."""
        return PROMPT_CACHE_MIN_TOKENS

    rules: Mapping[str, Rule] = {}
    call_id_max = 64
    credential_headers: tuple[str, ...] = ("authorization", "api-key")
    private_response_headers: tuple[str, ...] = ("openai-organization", "openai-project")
    token_estimate_exact = True
    token_estimate_method = (
        "o200k_base (tiktoken, exact) over the harmony 'namespace functions' rendering of the tools, "
        "plus 1 token once for a non-empty set"
    )
    _endpoint = ""

    #: Incremental repairs (:attr:`toolwire.profile.Profile.repair_window`): an entry's repairs
    #: read only itself and its neighbours (a run of tool messages, the item after a reasoning item).
    repair_window: int | None = 2

    def __init__(self, api: str | None = None, *, strict: bool = False, **settings: Any) -> None:
        super().__init__(api, **settings)
        self.strict: bool = bool(strict)
        # what the checks fold over a growing history, kept between requests (see PrefixFold)
        self._history_ids = PrefixFold(self._id_step, self._id_start)

    #: PrefixFold step and start of the ids the checks collect from earlier entries (per API)
    _id_step: Any = None
    _id_start: Any = None

    def _tool_problems_of(self, tools: list[Any]) -> tuple[list[Violation], set[str]]:  # pragma: no cover
        raise NotImplementedError

    def _tools_checked(self, tools: list[Any]) -> tuple[list[Violation], set[str]]:
        """:meth:`_tool_problems_of` ``tools``, reused while the declarations are equal to the
        last ones checked, numbers of the same types (a pure check of the declarations alone)."""
        memo = getattr(self, "_tools_memo", None)
        if memo is not None and memo[0] == tools and _same_number_types(tools, memo[3]):
            return memo[1], memo[2]
        found, names = self._tool_problems_of(tools)
        try:
            kept = json.loads(json.dumps(tools))
        except (TypeError, ValueError):
            self._tools_memo = None
        else:
            self._tools_memo = (kept, found, names, _number_leaves(kept)) if kept == tools else None
        return found, names

    def _top_checked(self, body: dict[str, Any], key: str, check: Any) -> tuple[Violation, ...]:
        """``check(top)`` of ``top``, the body's fields other than its conversation (``key``),
        reused while those fields are equal to the last ones checked (``==``, with the types of
        every number in them compared too, since ``True == 1 == 1.0``); a JSON copy of them is
        kept. ``check`` reads nothing but ``top``."""
        top = body.copy()
        top.pop(key, None)
        memo = getattr(self, "_top_memo", None)
        if memo is not None and memo[0] == top and _same_number_types(top, memo[1]):
            return memo[2]
        found = tuple(check(top))
        try:
            kept = json.loads(json.dumps(top))
        except (TypeError, ValueError):
            self._top_memo = None
        else:
            self._top_memo = (kept, _number_leaves(kept), found) if kept == top else None
        return found

    def _top_repaired(self, body: dict[str, Any], report: Any, key: str, repair: Any) -> Any:
        """``repair(body, report)`` (the repairs of the body's fields other than its
        conversation ``key``, which return what the conversation's repairs need from them),
        skipped while those fields are equal to the last ones it left unchanged without a note
        (``==``, with the type of every number compared too): then it would again change
        nothing and note nothing, and its result is the one kept. Any other body is repaired."""
        top = body.copy()
        top.pop(key, None)
        memo = getattr(self, "_top_repair_memo", None)
        if memo is not None and memo[0] == top and _same_number_types(top, memo[1]):
            return memo[2]
        before = len(report) if report is not None else -1
        kept: Any = None
        try:  # a JSON copy of the fields as they are before the repairs (which change them in place)
            kept = json.loads(json.dumps(top))
        except (TypeError, ValueError):
            pass
        leaves = _number_leaves(kept) if kept is not None and kept == top else None
        if leaves is not None and not _same_number_types(top, leaves):
            leaves = None
        result = repair(body, report)
        self._top_repair_memo = None
        if leaves is not None and report is not None and len(report) == before:
            after = body.copy()
            after.pop(key, None)
            if after == kept and _same_number_types(after, leaves):
                self._top_repair_memo = (kept, leaves, result)
        return result

    def _folded_ids(self, items: list[Any], upto: int, copy: Any = None) -> Any:
        fold = getattr(self, "_history_ids", None)
        if fold is None:  # a profile made without __init__ (copied by hand)
            fold = self._history_ids = PrefixFold(self._id_step, self._id_start)
        return fold.fold(items, upto, copy)

    def recognizes_model_id(self, model_id: str) -> bool:
        """``gpt-*``, ``chatgpt-*`` and the o-series (``o1``, ``o3-mini``, ``o4-mini``): the model
        id families of OpenAI's models page (https://platform.openai.com/docs/models) and of the
        ``ModelIdsShared`` enum of the OpenAPI spec (openai/openai-openapi: ``gpt-4o``,
        ``chatgpt-4o-latest``, ``o1``, ``o3-mini``, ``o4-mini``); both APIs serve them. A
        fine-tuned model's id (``ft:gpt-4o-mini:org::id``) is read by its base model."""
        key = model_id.strip().lower()
        if key.startswith("ft:"):
            key = key[3:]
        return _OPENAI_MODEL_ID.match(key) is not None

    # -- recordings ----------------------------------------------------------------------------
    def recognizes_uri(self, uri: str) -> bool:
        """Whether ``uri`` is this API's model-turn endpoint (``…/chat/completions`` or
        ``…/responses``; any host and prefix: proxies keep the path). Not the paths under it
        (``/responses/input_tokens``, ``/responses/{id}``, ``/chat/completions/{id}``): their
        answers are not a model turn, and replay skips them."""
        from urllib.parse import urlsplit

        path = urlsplit(str(uri)).path.rstrip("/")
        return bool(self._endpoint) and path.endswith(self._endpoint)

    def replay_target(self, uri: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """``body["model"]`` and ``base_url`` = the URI's origin and path up to the endpoint
        (``https://api.openai.com/v1``), so the SDK sends to the recorded URL again."""
        from urllib.parse import urlsplit

        parts = urlsplit(str(uri))
        prefix = parts.path.rsplit(self._endpoint, 1)[0] if self._endpoint in parts.path else parts.path
        return str(body.get("model") or "unknown"), {"base_url": f"{parts.scheme}://{parts.netloc}{prefix}"}

    def rule(self, suffix: str) -> str:
        """The full rule id for ``suffix`` (e.g. ``"tool.name"``)."""
        rid = f"{self.api}.{suffix}"
        assert rid in self.rules, rid
        return rid

    def violation(
        self, suffix: str, pointer: str, message: str, *, tool: str | None = None, call_id: str | None = None
    ) -> Violation:
        return Violation(rule=self.rule(suffix), pointer=pointer, message=message, tool=tool, call_id=call_id)

    # -- names ---------------------------------------------------------------------------------
    def tool_name_error(self, name: object) -> str | None:
        """``None`` when ``name`` matches :data:`TOOL_NAME_RULE`, else why not."""
        if not isinstance(name, str):
            return f"a tool name is a string, got {type(name).__name__}"
        if TOOL_NAME_RULE.fullmatch(name):
            return None
        if not name:
            return "it is empty"
        if len(name) > 64:
            return f"it is {len(name)} characters long (at most 64)"
        bad = sorted({c for c in name if not re.fullmatch(r"[a-zA-Z0-9_-]", c)})
        return "it contains " + ", ".join(repr(c) for c in bad) + " (allowed: a-z, A-Z, 0-9, '_' and '-')"

    # -- schema --------------------------------------------------------------------------------
    def translate_schema(self, schema: dict[str, Any], report: TranslationReport) -> dict[str, Any]:
        """The ``parameters`` to send for ``schema`` in this profile's mode (see
        :func:`toolwire_openai._dialect.translate_parameters`; in strict mode
        ``report.strict_possible`` says whether ``strict: true`` may be sent)."""
        if not report.api:
            report.api = self.api
        return translate_parameters(schema, report, strict=self.strict)

    def _tool_problems(self, decl: Any, i: int, fn_ptr: str, fn: dict[str, Any]) -> list[Violation]:
        out = []
        name = fn.get("name")
        err = self.tool_name_error(name)
        if err is not None:
            out.append(
                self.violation(
                    "tool.name", f"{fn_ptr}/name", f"tool name {name!r} breaks the rule: {err}", tool=str(name)
                )
            )
        if decl.get("type", "function") != "function":
            return out  # custom/hosted tools: their own shapes
        if name in RESERVED_TOOL_NAMES:
            out.append(
                self.violation(
                    "tool.reserved-name",
                    f"{fn_ptr}/name",
                    f"the function name {name!r} is reserved by OpenAI for its models' own tool",
                    tool=str(name),
                )
            )
        for suffix, pointer, message in parameter_problems(
            fn.get("parameters"), strict=fn.get("strict") is True, base=f"{fn_ptr}/parameters"
        ):
            out.append(self.violation(suffix, pointer, message, tool=str(name)))
        return out

    # -- incremental checks ---------------------------------------------------------------------
    def _remember_start(self, repaired: list[Any], origins: list[int], start: int) -> None:
        """Map ``start`` (an index into the conversation as encoded) to the repaired list, whose
        entries may have moved (a dropped reasoning item, an inserted user message), so
        :meth:`check_request` of that list starts at the same entry."""
        # origins never decrease (entries are repaired in order): the entries before start, by bisection
        self._start_map = (repaired, start, bisect.bisect_left(origins, start))

    def _mapped_start(self, items: Any, start: int) -> int:
        m = getattr(self, "_start_map", None)
        if m is not None and m[0] is items and m[1] == start:  # the list itself: an id could be reused
            return m[2]
        return start

    # -- stop reasons ---------------------------------------------------------------------------
    def turn_failed(self, vendor_stop_reason: str | None) -> bool:  # pragma: no cover - per API
        raise NotImplementedError

    # -- request-level checks shared ------------------------------------------------------------
    @functools.cached_property
    def _to_openai_api(self) -> bool:
        """Whether this profile's requests go to OpenAI's own API (:func:`to_openai_api` of its
        ``base_url`` setting, else ``OPENAI_BASE_URL``)."""
        import os

        return to_openai_api(self.settings.get("base_url") or os.environ.get("OPENAI_BASE_URL"))

    def _common_request_problems(
        self, body: dict[str, Any], tools: list[Any], names: set[str], effort: Any
    ) -> list[Violation]:
        out: list[Violation] = []
        if self._to_openai_api:
            for pointer, message in field_value_problems(body, self.api):
                out.append(self.violation("request.field-values", pointer, message))
        if len(tools) > MAX_TOOLS:
            out.append(
                self.violation(
                    "tools.count",
                    "/tools",
                    f"{len(tools)} tools; the API takes at most {MAX_TOOLS} "
                    "(declare fewer, or split them between agents)",
                )
            )
        choice = body.get("tool_choice")
        if not tools:
            if body.get("parallel_tool_calls") is not None:
                out.append(
                    self.violation(
                        "request.parallel-without-tools",
                        "/parallel_tool_calls",
                        "parallel_tool_calls is only allowed when tools are specified",
                    )
                )
            if choice in ("auto", "none"):
                out.append(
                    self.violation(
                        "request.tool-choice-without-tools",
                        "/tool_choice",
                        "tool_choice is only allowed when tools are specified",
                    )
                )
            elif choice is not None:
                out.append(
                    self.violation(
                        "request.forced-tool-choice-without-tools",
                        "/tool_choice",
                        f"tool choice {choice!r} forces a tool call but the request declares no tools; "
                        "declare the tool or use tool choice 'auto'",
                    )
                )
        else:
            model = body.get("model")
            if names and isinstance(model, str) and _NO_FUNCTIONS.fullmatch(_model_name(model)):
                out.append(
                    self.violation(
                        "request.function-calling-model",
                        "/tools",
                        f"{model} does not call functions (the API answers 'tools is not supported in this "
                        "model'); use a model that does (gpt-5, gpt-4.1, gpt-4o...) for a run with tools",
                    )
                )
            forced = self._forced_name(choice)
            if forced is not None and forced not in names:
                out.append(
                    self.violation(
                        "request.tool-choice-unknown-tool",
                        "/tool_choice",
                        f"tool choice names {forced!r}, which is not among the declared tools {sorted(names)}",
                        tool=forced,
                    )
                )
        if body.get("stream_options") is not None and body.get("stream") is not True:
            out.append(
                self.violation(
                    "request.stream-options-without-stream",
                    "/stream_options",
                    "stream_options is only allowed with stream: true",
                )
            )
        for key, least in self.token_limit_minimums:
            value = body.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                out.append(
                    self.violation(
                        "request.max-tokens-range",
                        f"/{key}",
                        f"{key} must be an integer of at least {least} on this API, got {value!r}; "
                        f"set max_tokens to {least} or more",
                    )
                )
        temp = body.get("temperature")
        if temp is not None and (isinstance(temp, bool) or not isinstance(temp, (int, float)) or not 0 <= temp <= 2):
            out.append(
                self.violation(
                    "request.temperature-range", "/temperature", f"temperature must be between 0 and 2, got {temp!r}"
                )
            )
        top_p = body.get("top_p")
        if top_p is not None and (
            isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 <= top_p <= 1
        ):
            out.append(self.violation("request.top-p-range", "/top_p", f"top_p must be between 0 and 1, got {top_p!r}"))
        top_logprobs = body.get("top_logprobs")
        # the upper bound is OpenAI's own (a compatible server sets its own: vLLM's max_logprobs)
        most_logprobs = 20 if self._to_openai_api else 2**31 - 1
        if top_logprobs is not None and not _int_within(top_logprobs, 0, most_logprobs):
            out.append(
                self.violation(
                    "request.top-logprobs-range",
                    "/top_logprobs",
                    f"top_logprobs must be an integer from 0 to 20, got {top_logprobs!r}"
                    if self._to_openai_api
                    else f"top_logprobs must be an integer of at least 0, got {top_logprobs!r}",
                )
            )
        for pointer, message in _sampling_problem(body, effort):
            out.append(self.violation("request.sampling-reasoning-model", pointer, message))
        meta = body.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            out.append(
                self.violation(
                    "request.metadata",
                    "/metadata",
                    f"metadata must be an object of string keys and values, got {type(meta).__name__}",
                )
            )
        if isinstance(meta, dict):
            n, kmax, vmax = METADATA_LIMITS
            if len(meta) > n:
                out.append(self.violation("request.metadata", "/metadata", f"{len(meta)} metadata pairs (at most {n})"))
            for k, v in meta.items():
                if len(str(k)) > kmax or (isinstance(v, str) and len(v) > vmax) or not isinstance(v, str):
                    out.append(
                        self.violation(
                            "request.metadata",
                            f"/metadata/{_esc(k)}",
                            f"metadata keys are at most {kmax} characters and values strings of at most {vmax}",
                        )
                    )
        if self._to_openai_api:
            for key, most in IDENTIFIER_LIMITS.items():
                value = body.get(key)
                if value is not None and not isinstance(value, str):
                    out.append(
                        self.violation(
                            "request.identifier-length",
                            f"/{key}",
                            f"{key} must be a string, got {type(value).__name__} {value!r:.40}: send str() of it, or a "
                            "hash of it",
                        )
                    )
                elif isinstance(value, str) and len(value) > most:
                    out.append(
                        self.violation(
                            "request.identifier-length",
                            f"/{key}",
                            f"{key} is {len(value)} characters; the API takes at most {most}: send a hash of it "
                            "(the same key gives the same hash)",
                        )
                    )
        return out

    def _forced_name(self, choice: Any) -> str | None:  # pragma: no cover - per API
        raise NotImplementedError

    def _common_repairs(self, body: dict[str, Any], report: Any) -> None:
        has_tools = bool(body.get("tools"))
        if not has_tools:
            if "tools" in body and body["tools"] == []:
                body.pop("tools")
            if body.get("parallel_tool_calls") is not None:
                value = body.pop("parallel_tool_calls")
                _note(
                    report,
                    self.rule("request.parallel-without-tools"),
                    "/parallel_tool_calls",
                    f"parallel_tool_calls={value!r} not sent: the request has no tools",
                )
            if body.get("tool_choice") in ("auto", "none"):
                value = body.pop("tool_choice")
                _note(
                    report,
                    self.rule("request.tool-choice-without-tools"),
                    "/tool_choice",
                    f"tool_choice={value!r} not sent: the request has no tools",
                )
            elif "tool_choice" in body and body["tool_choice"] is None:
                body.pop("tool_choice")
            if body.get("parallel_tool_calls", 0) is None:
                body.pop("parallel_tool_calls")
        model = body.get("model")
        most = max_output_tokens(model) if type(model) is str else None
        if most is not None:
            for key, _ in self.token_limit_minimums:
                asked = body.get(key)
                if type(asked) is int and asked > most:
                    body[key] = most
                    _note(
                        report,
                        self.rule("request.max-tokens-model"),
                        f"/{key}",
                        f"{key} {asked} sent as {most}: {model} writes at most {most} output tokens",
                    )
        if type(model) is str:
            self._repair_effort(body, model, report)
        if body.get("stream_options") is not None and body.get("stream") is not True:
            body.pop("stream_options")
            _note(
                report,
                self.rule("request.stream-options-without-stream"),
                "/stream_options",
                "stream_options not sent: the request is not streamed",
            )

    def _repair_effort(self, body: dict[str, Any], model: str, report: Any) -> None:
        """Rule ``request.reasoning-effort-model``: a reasoning effort the model does not take is
        sent as the nearest one it takes; to a model that does not reason, none is sent (Chat
        ``reasoning_effort``; Responses ``reasoning.effort``, and with it the rest of
        ``reasoning`` and the ``reasoning.encrypted_content`` include)."""
        chat = "input" not in body
        holder = body if chat else body.get("reasoning")
        key = "reasoning_effort" if chat else "effort"
        effort = holder.get(key) if isinstance(holder, dict) else None
        if effort is None or not isinstance(holder, dict):
            return
        if not chat and effort == "minimal":
            effort = self._repair_minimal_with_web_search(body, holder, report)
        allowed = reasoning_efforts(model)
        if allowed is None or (allowed and type(effort) is not str) or effort in allowed:
            return  # (an effort that is not a string goes as given to a reasoning model: the API names the values)
        pointer = "/reasoning_effort" if chat else "/reasoning/effort"
        if allowed:
            level = effort.strip().lower()
            if level not in EFFORT_SCALE:
                return  # not an effort toolwire knows: sent as given (the API names the values it takes)
            holder[key] = new = nearest_effort(level, allowed)
            _note(
                report,
                self.rule("request.reasoning-effort-model"),
                pointer,
                f"reasoning effort {effort!r} sent as {new!r}: {model} takes {', '.join(allowed)}",
                lossy=True,
            )
            return
        if chat:
            body.pop("reasoning_effort")
        else:
            body.pop("reasoning")
            include = body.get("include")
            if isinstance(include, list) and "reasoning.encrypted_content" in include:
                body["include"] = [x for x in include if x != "reasoning.encrypted_content"]
                if not body["include"]:
                    body.pop("include")
        _note(
            report,
            self.rule("request.reasoning-effort-model"),
            pointer,
            f"reasoning effort {effort!r} not sent: {model} does not reason",
            lossy=True,
        )

    def _repair_minimal_with_web_search(self, body: dict[str, Any], reasoning: dict[str, Any], report: Any) -> str:
        """Rule ``request.minimal-effort-tools`` (Responses): the API refuses reasoning effort
        ``minimal`` with a ``web_search`` tool (any of its versions, ``web_search_preview`` too):
        the effort is raised to ``low``, the nearest one it takes with them. Returns the effort
        sent."""
        tools = body.get("tools")
        if type(tools) is not list:
            return "minimal"
        named = sorted(
            {
                t["type"]
                for t in tools
                if type(t) is dict and type(t.get("type")) is str and t["type"].startswith("web_search")
            }
        )
        if not named:
            return "minimal"
        reasoning["effort"] = "low"
        _note(
            report,
            self.rule("request.minimal-effort-tools"),
            "/reasoning/effort",
            f"reasoning effort 'minimal' sent as 'low': the API does not take 'minimal' with {', '.join(named)}",
            lossy=True,
        )
        return "low"

    def _repair_parameters(self, fn: dict[str, Any], fn_ptr: str, report: Any) -> None:
        """Non-strict shape repairs of an encoded declaration, and a strict declaration that
        breaks strict rules re-translated (or sent with strict: false)."""
        params = fn.get("parameters")
        if not isinstance(params, dict):
            return
        strict = fn.get("strict") is True
        problems = parameter_problems(params, strict=strict)
        if not problems:
            return
        tr = TranslationReport(api=self.api, tool=str(fn.get("name", "")))
        try:
            fixed = translate_parameters(params, tr, strict=strict)
        except Exception:
            return
        if strict and tr.strict_possible is False:
            fn["strict"] = False
            sized = all(c.keyword == "size" for c in tr if c.action == "unsupported")
            _note(
                report,
                self.rule("strict.size-limits" if sized else "strict.inexpressible"),
                f"{fn_ptr}/strict",
                "the parameters cannot be strict: sent with strict: false ("
                + "; ".join(c.detail for c in tr if c.action == "unsupported")
                + ")",
                lossy=True,
            )
        fn["parameters"] = fixed
        for c in tr:
            if c.action != "unsupported":
                _note(
                    report,
                    self._schema_rule(c.keyword, strict),
                    f"{fn_ptr}/parameters{c.pointer}",
                    c.detail,
                    lossy=c.lossy,
                )

    def _schema_rule(self, keyword: str, strict: bool) -> str:
        if keyword in ("oneOf", "anyOf", "allOf", "enum", "not"):
            return self.rule("schema.root-combinator")
        if keyword == "items":
            return self.rule("schema.array-items")
        if keyword in ("type",):
            return self.rule("schema.root-not-object") if not strict else self.rule("strict.all-required")
        if keyword in ("properties", "required") and not strict:
            return self.rule("schema.shape")
        if not strict:
            return self.rule("schema.shape")
        return {
            "additionalProperties": self.rule("strict.closed-objects"),
            "required": self.rule("strict.all-required"),
            "default": self.rule("strict.no-default"),
            "format": self.rule("strict.formats"),
            "$ref": self.rule("strict.ref-siblings"),
            "properties": self.rule("strict.object-properties"),
        }.get(keyword, self.rule("strict.keywords"))

    # -- tokens ------------------------------------------------------------------------------------
    def estimate_tokens(self, tool_declarations: Sequence[dict[str, Any]]) -> int:
        """Offline per-request tokens of a tool set: the exact ``o200k_base`` count of the
        ``namespace functions`` block OpenAI's models see, plus the fixed overhead (see
        :mod:`toolwire_openai.tokens`). Accepts wire declarations of either API, canonical
        ``{"name", "description", "input_schema"}`` dicts or :class:`~toolwire.tools.Tool`."""
        from .tokens import estimate_tool_tokens

        return estimate_tool_tokens(tool_declarations)

    def usage(self, raw: Any) -> Any:  # pragma: no cover - per API
        raise NotImplementedError


class OpenAIChatProfile(_OpenAIProfile):
    """Chat Completions (``POST /chat/completions``) rules; see :data:`CHAT_RULES`.

    ``OpenAIChatProfile(strict=False, **settings)``: ``strict`` selects the schema mode of
    :meth:`translate_schema`; settings are kept (``base_url`` etc.); the host of ``base_url``
    (else ``OPENAI_BASE_URL``) selects the ``server.*`` rules of a hosted compatible server
    (:data:`HOSTED_SERVERS`), which never apply to api.openai.com.
    """

    api = CHAT
    rules = CHAT_RULES
    call_id_max = CHAT_MAX_CALL_ID
    #: the hosted compatible server the settings point at (:func:`hosted_server`), whose
    #: ``server.*`` rules apply; ``None``: OpenAI's rules only
    server: str | None = None
    #: ``(field, least value)`` of the output-token limits (rule ``request.max-tokens-range``)
    token_limit_minimums: tuple[tuple[str, int], ...] = (("max_tokens", 1), ("max_completion_tokens", 1))
    messages_key: str | None = "messages"
    #: A message's repairs read only itself, except a run of tool messages whose images go after
    #: the run, and (Mistral's API) a user message, which reads the message before it to put an
    #: assistant message between a tool message and itself: the earlier messages are left as they
    #: are (see :meth:`_repair_messages`), so the repairs start at the first new message
    #: (:attr:`toolwire.profile.Profile.repair_window`).
    repair_window: int | None = 0
    _id_step = staticmethod(_chat_call_ids)  # type: ignore[has-type]
    _id_start = staticmethod(set)
    _endpoint = "/chat/completions"

    def __init__(self, api: str | None = None, *, strict: bool = False, **settings: Any) -> None:
        super().__init__(api, strict=strict, **settings)
        self.server = hosted_server(settings)

    def recognizes_body(self, body: Any) -> bool:
        """A body with ``messages`` that is not a Messages-API body (``system`` with
        ``max_tokens``) nor a Responses or Gemini one."""
        return (
            isinstance(body, dict)
            and isinstance(body.get("messages"), list)
            and "input" not in body
            and "contents" not in body
            and not ("system" in body and "max_tokens" in body)
        )

    def _forced_name(self, choice: Any) -> str | None:
        if isinstance(choice, dict) and choice.get("type") == "function":
            fn = choice.get("function") or {}
            return fn.get("name") if isinstance(fn, dict) else None
        return None

    def turn_failed(self, vendor_stop_reason: str | None) -> bool:
        """``finish_reason`` ``content_filter`` → True; ``stop``, ``tool_calls``, ``length``
        (cut off: handled as a cut-off turn), ``function_call`` and ``None`` → False."""
        return vendor_stop_reason == "content_filter"

    def unparsed_call_feedback(self, response: Any) -> str | None:
        """For an answer a Chat-compatible server refused because the model's tool call failed
        its check (Groq's ``tool_use_failed``: the call did not parse, or a tool call was required
        and the model wrote text), with no call toolwire could read from what the model wrote:
        the server's message and what to do, sent back to the model so it can call the tool
        again. ``None`` for any other response."""
        if getattr(response, "vendor_stop_reason", None) != "tool_use_failed" or response.tool_calls:
            return None
        pd = response.provider_data.get(self.api) if isinstance(response.provider_data, dict) else None
        said = pd.get("tool_use_failed") if isinstance(pd, dict) else None
        quoted = f" The server said: {said[:500]}" if isinstance(said, str) and said.strip() else ""
        return (
            f"Your last answer was refused by the server, so nothing was run.{quoted}\nCall one of the tools, "
            "with its arguments as a JSON object matching the tool's parameters."
        )

    def usage(self, raw: Any) -> Any:
        """Chat ``usage`` → :class:`~toolwire.types.Usage` (see :data:`CHAT_RULES` ``usage.mapping``)."""
        from .chat import chat_usage

        return chat_usage(raw)

    # -- checks -----------------------------------------------------------------------------------
    def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
        """Every rule breach of a ``/chat/completions`` body (pure). Messages before ``start``
        (already checked on an earlier turn) are skipped, except the assistant message whose
        calls the tool messages at ``start`` answer. The rules on the fields other than
        ``messages`` are checked once per distinct value of those fields."""
        out = list(self._top_checked(body, "messages", self._request_problems))
        messages = body.get("messages")
        out.extend(self._message_problems(messages, start))
        out.extend(_image_problems(messages, start, "messages", self.violation))
        if self.server == "deepseek" and type(messages) is list and deepseek_thinking(body):
            for i, m in enumerate(messages):
                if type(m) is dict and m.get("role") == "assistant" and m.get("tool_calls"):
                    if type(m.get("reasoning_content")) is not str:
                        out.append(
                            self.violation(
                                "server.deepseek-reasoning-content",
                                f"/messages/{i}",
                                f"messages[{i}] calls tools without the reasoning_content DeepSeek sent with it "
                                "(a turn of another provider or server?): DeepSeek's thinking mode refuses it; send "
                                "the conversation with thinking off (thinking={'type': 'disabled'}, DeepSeek's own switch) or run "
                                "it on DeepSeek from its start",
                            )
                        )
        if (
            self.server == "mistral"
            and type(messages) is list
            and messages
            and type(last := messages[-1]) is dict
            and last.get("role") == "assistant"
            and last.get("prefix") is not True
        ):
            out.append(
                self.violation(
                    "server.mistral-last-message",
                    f"/messages/{len(messages) - 1}",
                    "the request ends with an assistant message, and Mistral's API answers only after a user or "
                    "tool message: pass a prompt (or, to have the answer continue that message, send it as a "
                    "prefix: provider_data {'openai-chat': {'message': {'set': {'prefix': True}}}})",
                )
            )
        return out

    def _request_problems(self, body: dict[str, Any]) -> list[Violation]:
        """The rules on the body's fields other than ``messages``."""
        out: list[Violation] = []
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        found, names = self._tools_checked(tools)
        out.extend(found)
        out.extend(self._common_request_problems(body, tools, names, body.get("reasoning_effort")))
        if body.get("max_tokens") is not None and reasoning_family(body.get("model")) is not None:
            out.append(
                self.violation(
                    "request.max-tokens-reasoning-model",
                    "/max_tokens",
                    f"model {body.get('model')!r} takes max_completion_tokens, not max_tokens",
                )
            )
        if any(type(t) is dict and t.get("type", "function") == "function" for t in tools):
            problem = tools_effort_problem(body.get("model"), body.get("reasoning_effort"))
            if problem is not None:
                pointer = "/reasoning_effort" if body.get("reasoning_effort") is not None else "/tools"
                out.append(self.violation("request.tools-reasoning-effort-model", pointer, problem))
        if body.get("top_logprobs") is not None and body.get("logprobs") is not True:
            out.append(
                self.violation(
                    "request.top-logprobs-without-logprobs", "/top_logprobs", "top_logprobs needs logprobs: true"
                )
            )
        for key in ("frequency_penalty", "presence_penalty"):
            value = body.get(key)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or not -2 <= value <= 2
            ):
                out.append(
                    self.violation("request.penalty-range", f"/{key}", f"{key} must be from -2 to 2, got {value!r}")
                )
        n = body.get("n")
        # the upper bound is OpenAI's own (a compatible server sets its own)
        if n is not None and not _int_within(n, 1, 128 if self._to_openai_api else 2**31 - 1):
            out.append(
                self.violation(
                    "request.n-range",
                    "/n",
                    (
                        f"n must be an integer from 1 to 128, got {n!r}"
                        if self._to_openai_api
                        else f"n must be an integer of at least 1, got {n!r}"
                    )
                    + " (toolwire reads the first choice; leave n unset)",
                )
            )
        bias = body.get("logit_bias")
        if bias is not None:
            if not isinstance(bias, dict):
                out.append(
                    self.violation(
                        "request.logit-bias",
                        "/logit_bias",
                        f"logit_bias must be an object of token ids to integers, got {type(bias).__name__}",
                    )
                )
            else:
                for token, value in bias.items():
                    if not (isinstance(token, str) and token.isdigit() and token.isascii()) or not _int_within(
                        value, -100, 100
                    ):
                        out.append(
                            self.violation(
                                "request.logit-bias",
                                f"/logit_bias/{_esc(token)}",
                                f"logit_bias maps token ids (digit strings such as '50256') to integers from -100 "
                                f"to 100, got {token!r}: {value!r}",
                            )
                        )
        stop = body.get("stop")
        if isinstance(stop, list) and len(stop) > 4:
            out.append(self.violation("request.stop-count", "/stop", f"{len(stop)} stop sequences (at most 4)"))
        if isinstance(stop, list):
            for i, item in enumerate(stop):
                if not isinstance(item, str):
                    out.append(
                        self.violation(
                            "request.stop-values", f"/stop/{i}", f"a stop sequence must be a string, got {item!r}"
                        )
                    )
        elif stop is not None and not isinstance(stop, str):
            out.append(
                self.violation(
                    "request.stop-values", "/stop", f"stop must be a string or a list of strings, got {stop!r}"
                )
            )
        if self.server == "mistral" and "stream_options" in body:
            out.append(
                self.violation(
                    "server.mistral-stream-options", "/stream_options", "Mistral's API does not take stream_options"
                )
            )
        return out

    def _tool_problems_of(self, tools: list[Any]) -> tuple[list[Violation], set[str]]:
        """The violations of the declarations ``tools`` and the names they declare."""
        out: list[Violation] = []
        names: set[str] = set()
        for i, decl in enumerate(tools):
            if not isinstance(decl, dict):
                continue
            if decl.get("type", "function") == "function" and isinstance(decl.get("function"), dict):
                fn = decl["function"]
                if isinstance(fn_name := fn.get("name"), str):  # a missing name is reported, not listed
                    names.add(fn_name)
                out.extend(self._tool_problems(decl, i, f"/tools/{i}/function", fn))
                desc = fn.get("description")
                if isinstance(desc, str) and len(desc) > CHAT_MAX_DESCRIPTION:
                    out.append(
                        self.violation(
                            "tool.description-length",
                            f"/tools/{i}/function/description",
                            f"the description is {len(desc)} characters (at most {CHAT_MAX_DESCRIPTION})",
                            tool=str(fn.get("name")),
                        )
                    )
            elif decl.get("type") == "custom" and isinstance(decl.get("custom"), dict):
                name = decl["custom"].get("name")
                if isinstance(name, str):
                    names.add(name)
                err = self.tool_name_error(name)
                if err:
                    out.append(
                        self.violation(
                            "tool.name", f"/tools/{i}/custom/name", f"tool name {name!r}: {err}", tool=str(name)
                        )
                    )
        return out, names

    def _message_problems(self, messages: Any, start: int) -> list[Violation]:
        out: list[Violation] = []
        if not isinstance(messages, list):
            return out
        if not messages:
            return [self.violation("request.messages-count", "/messages", "messages must hold at least one message")]
        if len(messages) > CHAT_MAX_MESSAGES and self._to_openai_api:
            out.append(
                self.violation(
                    "request.messages-count",
                    "/messages",
                    f"the request has {len(messages)} messages as sent (toolwire's repairs may add some, e.g. an "
                    f"assistant message of more than {CHAT_MAX_MESSAGE_CALLS} tool calls is sent as several); OpenAI's "
                    f"Chat Completions API takes at most {CHAT_MAX_MESSAGES} in one request: go on in a new "
                    "conversation that starts from a summary of this one",
                )
            )
        start = self._mapped_start(messages, start)
        n = len(messages)
        begin = max(0, min(start, n))
        if begin < n and type(messages[begin]) is dict and messages[begin].get("role") == "tool":
            # the tool messages at `start` answer the assistant message before their run: check
            # from it (a run that ended before `start` was checked whole by an earlier request)
            back = begin
            while back > 0 and isinstance(messages[back - 1], dict) and messages[back - 1].get("role") == "tool":
                back -= 1
            if (
                back > 0
                and isinstance(messages[back - 1], dict)
                and messages[back - 1].get("role") == "assistant"
                and messages[back - 1].get("tool_calls")
            ):
                begin = back - 1
        seen_ids: set[str] = self._folded_ids(messages, begin, set)
        if self.server == "mistral":
            i = self._clean_groups(messages, begin, n, seen_ids, MISTRAL_CALL_ID, mistral=True)
        else:
            i = self._clean_groups(messages, begin, n, seen_ids)
        while i < len(messages):
            m = messages[i]
            if not isinstance(m, dict):
                i += 1
                continue
            role = m.get("role")
            at = f"/messages/{i}"
            content = m.get("content")
            if role not in ("user", "tool") and isinstance(content, list) and any(_image_part(p) for p in content):
                out.append(
                    self.violation(
                        "conversation.images-user-only",
                        f"{at}/content",
                        f"a {role} message cannot carry images; put them in a user message",
                    )
                )
            calls = m.get("tool_calls") if role == "assistant" else None
            if type(calls) is list and not calls:
                out.append(
                    self.violation(
                        "conversation.empty-tool-calls",
                        f"{at}/tool_calls",
                        "tool_calls is an empty list; leave the field out of a message that calls nothing",
                    )
                )
            if type(calls) is list and len(calls) > CHAT_MAX_MESSAGE_CALLS:
                out.append(
                    self.violation(
                        "conversation.tool-calls-count",
                        f"{at}/tool_calls",
                        f"an assistant message carries {len(calls)} tool calls; the API takes at most "
                        f"{CHAT_MAX_MESSAGE_CALLS}: send them as several assistant messages, each followed by its "
                        "tool messages",
                    )
                )
            if role == "assistant" and not calls and self.server == "mistral" and _empty_assistant(m):
                out.append(
                    self.violation(
                        "server.mistral-empty-assistant",
                        f"{at}/content",
                        "an assistant message without tool_calls needs content that is not empty (Mistral's API)",
                    )
                )
            elif role == "assistant" and not calls and content is None:
                out.append(
                    self.violation(
                        "conversation.assistant-content",
                        f"{at}/content",
                        "an assistant message without tool_calls needs content",
                    )
                )
            if calls:
                ids: list[Any] = []  # every id as sent, strings or not, to find the repeats
                for k, c in enumerate(calls if isinstance(calls, list) else []):
                    if not isinstance(c, dict):
                        continue
                    cid = c.get("id")
                    if cid in ids or (isinstance(cid, str) and cid in seen_ids):
                        out.append(
                            self.violation(
                                "conversation.duplicate-call-id",
                                f"{at}/tool_calls/{k}/id",
                                f"tool call id {cid!r} is used twice",
                                call_id=cid if isinstance(cid, str) else None,
                            )
                        )
                    if isinstance(cid, str):
                        seen_ids.add(cid)
                    ids.append(cid)
                    if isinstance(cid, str) and not 0 < len(cid) <= CHAT_MAX_CALL_ID:
                        out.append(
                            self.violation(
                                "call.id-length",
                                f"{at}/tool_calls/{k}/id",
                                f"tool call id is {len(cid)} characters (1 to {CHAT_MAX_CALL_ID})",
                                call_id=cid,
                            )
                        )
                    if self.server == "mistral" and isinstance(cid, str) and not MISTRAL_CALL_ID.fullmatch(cid):
                        out.append(
                            self.violation(
                                "server.mistral-call-id",
                                f"{at}/tool_calls/{k}/id",
                                f"tool call id {cid!r} is not 9 characters of a-z, A-Z, 0-9 (Mistral's API)",
                                call_id=cid,
                            )
                        )
                    fn = fn if isinstance(fn := c.get("function"), dict) else {}
                    if c.get("type", "function") == "function" and not _json_object_text(fn.get("arguments")):
                        out.append(
                            self.violation(
                                "conversation.arguments-json",
                                f"{at}/tool_calls/{k}/function/arguments",
                                f"arguments {str(fn.get('arguments'))[:60]!r} is not the text of a JSON object",
                                call_id=cid if isinstance(cid, str) else None,
                            )
                        )
                    if c.get("type", "function") == "function" and self.tool_name_error(fn.get("name")) is not None:
                        out.append(
                            self.violation(
                                "call.name",
                                f"{at}/tool_calls/{k}/function/name",
                                f"tool call name {fn.get('name')!r}: {self.tool_name_error(fn.get('name'))}",
                                call_id=cid if isinstance(cid, str) else None,
                            )
                        )
                j = i + 1
                answered: list[str] = []
                while j < len(messages) and isinstance(messages[j], dict) and messages[j].get("role") == "tool":
                    tm = messages[j]
                    tid = tm.get("tool_call_id")
                    tat = f"/messages/{j}"
                    if tid not in ids or tid in answered:
                        out.append(
                            self.violation(
                                "conversation.tool-without-call",
                                f"{tat}/tool_call_id",
                                f"role:tool message for {tid!r} answers no unanswered call of messages[{i}]",
                                call_id=tid if isinstance(tid, str) else None,
                            )
                        )
                    else:
                        answered.append(tid)
                    out.extend(self._tool_content_problems(tm.get("content"), tat, tid))
                    j += 1
                for cid in ids:
                    if cid not in answered:
                        out.append(
                            self.violation(
                                "conversation.calls-answered",
                                f"{at}/tool_calls",
                                f"tool call {cid!r} has no role:tool message directly after the assistant "
                                "message; answer every call (an error result is an answer)",
                                call_id=cid if isinstance(cid, str) else None,
                            )
                        )
                i = j
                continue
            if role == "tool":
                tid = m.get("tool_call_id")
                out.append(
                    self.violation(
                        "conversation.tool-without-call",
                        f"{at}",
                        "a role:tool message must follow an assistant message with tool_calls",
                        call_id=tid if isinstance(tid, str) else None,
                    )
                )
            elif role == "user" and self.server == "mistral" and _after_tool(messages, i):
                out.append(
                    self.violation(
                        "server.mistral-user-after-tool",
                        at,
                        "a user message directly after a tool message (Mistral's API wants an assistant "
                        "message between them)",
                    )
                )
            i += 1
        return out

    @staticmethod
    def _clean_groups(
        messages: list[Any],
        i: int,
        n: int,
        seen_ids: set[str],
        id_rule: re.Pattern[str] | None = None,
        mistral: bool = False,
    ) -> int:
        """The index of the first message from ``i`` on whose check might find a violation (``n``
        when none), the ids of the tool calls before it added to ``seen_ids`` as the full check
        adds them: a pass of look-ups over the usual shapes, any other message left to the full
        check. Fine without a look: a user message; a system or developer message with text
        content; an assistant message with text content and no tool calls; an assistant message
        with string or no content whose calls each have a new string id of at most
        :data:`CHAT_MAX_CALL_ID` characters, type ``function``, a name under the name rule and a
        JSON object's text as arguments, directly followed by one tool message with string
        content per call, in any order, answering nothing else. ``id_rule``: a pattern every
        call id must match too (a hosted server's rule, :data:`MISTRAL_CALL_ID`); ``mistral``:
        Mistral's rules too (a user message directly after a tool message, an assistant message
        with empty content are not fine)."""
        good, texts = _GOOD_NAMES, _OBJECT_TEXTS
        while i < n:
            m = messages[i]
            if type(m) is not dict:
                return i
            role = m.get("role")
            if role == "user":
                if mistral and _after_tool(messages, i):
                    return i
                i += 1
                continue
            content = m.get("content")
            if role != "assistant":
                if (role == "system" or role == "developer") and type(content) is str:
                    i += 1
                    continue
                return i
            calls = m.get("tool_calls")
            if not calls:
                if calls is not None or type(content) is not str or (mistral and not content):
                    return i
                i += 1
                continue
            if type(calls) is not list or not (content is None or type(content) is str):
                return i
            if len(calls) > CHAT_MAX_MESSAGE_CALLS:
                return i
            ids: list[str] = []
            for c in calls:
                if type(c) is not dict:
                    return i
                cid = c.get("id")
                fn = c.get("function")
                if (
                    type(cid) is not str
                    or not 0 < len(cid) <= CHAT_MAX_CALL_ID
                    or cid in seen_ids
                    or cid in ids
                    or type(fn) is not dict
                    or c.get("type", "function") != "function"
                    or (id_rule is not None and not id_rule.fullmatch(cid))
                ):
                    return i
                name = fn.get("name")
                if type(name) is not str or (name not in good and not _known_good_name(name)):
                    return i
                args = fn.get("arguments")
                if type(args) is not str or (args not in texts and not _known_object_text(args)):
                    return i
                ids.append(cid)
            j = i + 1
            answered: list[Any] = []
            while j < n:
                tm = messages[j]
                if type(tm) is not dict or tm.get("role") != "tool":
                    break
                tid = tm.get("tool_call_id")
                if tid not in ids or tid in answered or type(tm.get("content")) is not str:
                    return i
                answered.append(tid)
                j += 1
            if len(answered) != len(ids):
                return i
            seen_ids.update(ids)
            i = j
        return n

    def _tool_content_problems(self, content: Any, at: str, tid: Any) -> list[Violation]:
        if isinstance(content, str) or not isinstance(content, list):
            return []
        out = []
        for k, part in enumerate(content):
            if _image_part(part):
                out.append(
                    self.violation(
                        "conversation.tool-content",
                        f"{at}/content/{k}",
                        "a role:tool message cannot carry images",
                        call_id=tid if isinstance(tid, str) else None,
                    )
                )
            elif not (isinstance(part, dict) and part.get("type") == "text"):
                out.append(
                    self.violation(
                        "conversation.tool-content-parts",
                        f"{at}/content/{k}",
                        "a role:tool message carries only text parts",
                        call_id=tid if isinstance(tid, str) else None,
                    )
                )
        return out

    # -- repairs ----------------------------------------------------------------------------------
    def repair_request(self, body: dict[str, Any], report: Any, *, start: int = 0, settled: int = 0) -> dict[str, Any]:
        """Rewrite ``body`` (in place, and returned) where a rule can be met without changing
        what was meant; every rewrite is recorded on ``report``. See the ``repair`` and
        ``report`` rules of :data:`CHAT_RULES`. The messages before ``settled`` need no repair
        and are left as they are (see :attr:`repair_window`). The repairs of the fields other than
        ``messages`` run once per distinct value of those fields (see :meth:`_top_repaired`)."""
        declared = self._top_repaired(body, report, "messages", self._repair_top)
        messages = body.get("messages")
        if isinstance(messages, list) and isinstance(model := body.get("model"), str):
            if _NO_SYSTEM_ROLE.fullmatch(_model_name(model)):
                self._system_as_user(messages, model, report, settled)
        if isinstance(messages, list):
            origins: list[int] = []
            repaired = body["messages"] = self._repair_messages(messages, declared, report, origins, settled)
            _repair_image_data(repaired, settled, "messages", self.rule("conversation.image-media-type-data"), report)
            if repaired is messages:  # nothing moved
                self._start_map = (repaired, start, min(max(start, 0), len(repaired)))
            else:
                self._remember_start(repaired, origins, start)
        return body

    def _system_as_user(self, messages: list[Any], model: str, report: Any, settled: int) -> None:
        """Rule ``request.system-role-model``: each system or developer message from ``settled`` on
        is sent as a user message with the same content (the entry is replaced, not changed in
        place), for a model that takes neither role."""
        for i in range(max(0, settled), len(messages)):
            m = messages[i]
            if type(m) is dict and m.get("role") in ("system", "developer"):
                messages[i] = {**m, "role": "user"}
                _note(
                    report,
                    self.rule("request.system-role-model"),
                    f"/messages/{i}/role",
                    f"{m['role']} message sent as a user message: {model} takes no {m['role']} message",
                )

    def _repair_top(self, body: dict[str, Any], report: Any) -> set[Any]:
        """The repairs of the body's fields other than ``messages`` (the tool names also in the
        history's calls); returns the declared function names."""
        self._common_repairs(body, report)
        self.repair_names(body, report)
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        declared = {
            t["function"].get("name") for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)
        }
        for i, decl in enumerate(tools):
            if not isinstance(decl, dict) or not isinstance(decl.get("function"), dict):
                continue
            fn = decl["function"]
            desc = fn.get("description")
            if isinstance(desc, str) and len(desc) > CHAT_MAX_DESCRIPTION:
                fn["description"] = desc[:CHAT_MAX_DESCRIPTION]
                _note(
                    report,
                    self.rule("tool.description-length"),
                    f"/tools/{i}/function/description",
                    f"description of tool {fn.get('name')!r} cut from {len(desc)} to {CHAT_MAX_DESCRIPTION} characters",
                    lossy=True,
                )
            self._repair_parameters(fn, f"/tools/{i}/function", report)
        model = body.get("model")
        if type(model) is str:
            self._repair_reasoning_params(body, model, report)
        if self.server == "mistral" and "stream_options" in body:
            value = body.pop("stream_options")
            _note(
                report,
                self.rule("server.mistral-stream-options"),
                "/stream_options",
                f"stream_options={value!r} not sent: Mistral's API refuses the field (it reports usage in the "
                "last chunk without it)",
            )
        if body.get("max_tokens") is not None and reasoning_family(body.get("model")) is not None:
            value = body.pop("max_tokens")
            if body.get("max_completion_tokens") is None:
                body["max_completion_tokens"] = value
            _note(
                report,
                self.rule("request.max-tokens-reasoning-model"),
                "/max_tokens",
                f"max_tokens={value!r} sent as max_completion_tokens (model {body.get('model')!r})",
            )
        return declared

    def _repair_reasoning_params(self, body: dict[str, Any], model: str, report: Any) -> None:
        """Rules ``request.stop-reasoning-model``, ``request.penalties-reasoning-model``,
        ``request.logprobs-reasoning-model`` and ``request.parallel-tool-calls-model``."""
        if body.get("stop") is not None and _refuses_stop(model):
            value = body.pop("stop")
            _note(
                report,
                self.rule("request.stop-reasoning-model"),
                "/stop",
                f"stop={value!r} not sent: {model} does not take stop sequences",
                lossy=True,
            )
        if reasoning_family(model) in ("o", "gpt-5"):
            for key in ("presence_penalty", "frequency_penalty"):
                if body.get(key) is not None:
                    value = body.pop(key)
                    _note(
                        report,
                        self.rule("request.penalties-reasoning-model"),
                        f"/{key}",
                        f"{key}={value!r} not sent: {model} does not take it",
                        lossy=value != 0,
                    )
        if ("logprobs" in body or "top_logprobs" in body) and reasoning_family(model) is not None:
            for key in ("logprobs", "top_logprobs"):
                if key in body:
                    value = body.pop(key)
                    _note(
                        report,
                        self.rule("request.logprobs-reasoning-model"),
                        f"/{key}",
                        f"{key}={value!r} not sent: {model} gives no log probabilities",
                        lossy=value not in (None, False, 0),
                    )
        if _SEARCH_MODEL.fullmatch(_model_name(model)):
            for key in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
                if key in body:
                    value = body.pop(key)
                    _note(
                        report,
                        self.rule("request.sampling-search-model"),
                        f"/{key}",
                        f"{key}={value!r} not sent: {model} does not take it",
                        lossy=value is not None,
                    )
        if body.get("parallel_tool_calls") is not None and _NO_PARALLEL.fullmatch(_model_name(model)):
            value = body.pop("parallel_tool_calls")
            _note(
                report,
                self.rule("request.parallel-tool-calls-model"),
                "/parallel_tool_calls",
                f"parallel_tool_calls={value!r} not sent: {model} does not take it",
                lossy=value is False,
            )

    def repair_names(self, body: dict[str, Any], report: Any = None) -> dict[str, str]:
        """Rename the declared function tools whose names OpenAI refuses (:func:`wire_tool_names`),
        the same way in the named tool choice and in the history's calls; returns the mapping
        (real name → wire name). The codec calls it too, so its bodies never carry such a name."""
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        names = []
        for t in tools:
            if isinstance(t, dict) and t.get("type", "function") == "function":
                fn = t.get("function")
                if isinstance(fn, dict) and isinstance(n := fn.get("name"), str):
                    names.append(n)
        good = _GOOD_NAMES
        if all(n in good for n in names):
            return {}  # every name known to meet the rule (the usual case): none renamed
        mapping = _wire_names(tuple(names))
        if not mapping:
            for n in names:
                _known_good_name(n)
            return {}
        mapping = dict(mapping)
        for i, t in enumerate(tools):
            fn = t.get("function") if isinstance(t, dict) else None
            if isinstance(fn, dict) and fn.get("name") in mapping:
                _note(
                    report,
                    self.rule(_rename_rule(fn["name"])),
                    f"/tools/{i}/function/name",
                    f"tool {fn['name']!r} sent as {mapping[fn['name']]!r}; the model's calls to it run {fn['name']!r}",
                    tool=fn["name"],
                )
                fn["name"] = mapping[fn["name"]]
        choice = body.get("tool_choice")
        if (
            isinstance(choice, dict)
            and isinstance(choice.get("function"), dict)
            and choice["function"].get("name") in mapping
        ):
            choice["function"]["name"] = mapping[choice["function"]["name"]]
        for m in body.get("messages") or []:
            for c in (m.get("tool_calls") or []) if isinstance(m, dict) else []:
                fn = c.get("function") if isinstance(c, dict) else None
                if isinstance(fn, dict) and fn.get("name") in mapping:
                    fn["name"] = mapping[fn["name"]]
        return mapping

    def _repair_messages(
        self, messages: list[Any], declared: set[Any], report: Any, origins: list[int] | None, settled: int = 0
    ) -> list[Any]:
        """``messages`` repaired from ``settled`` on: the same list when no message needed a
        repair (the usual case, found by one pass of look-ups: no copy, ``origins`` left
        unfilled), else a new list with ``origins`` (the index in ``messages`` each entry comes
        from) filled when given."""
        n = len(messages)
        settled = max(0, min(int(settled or 0), n))
        bridge = self.server == "mistral"
        if bridge:
            i = self._clean_messages(messages, settled, n, MISTRAL_CALL_ID, mistral=True)
        else:
            i = self._clean_messages(messages, settled, n)
        if i == n:
            return messages
        out: list[Any] = list(messages[:i])
        if origins is None:
            origins = []
        origins.extend(range(i))
        while i < len(messages):
            m = messages[i]
            if not isinstance(m, dict):
                out.append(m)
                origins.append(i)
                i += 1
                continue
            at = f"/messages/{i}"
            if m.get("role") == "assistant":
                if bridge and _empty_assistant(m):
                    _note(
                        report,
                        self.rule("server.mistral-empty-assistant"),
                        at,
                        "assistant message with no content and no tool calls not sent (Mistral's API refuses it)",
                    )
                    i += 1
                    continue
                self._split_content(m, f"{at}/content", report)
                calls = m.get("tool_calls")
                if type(calls) is list and not calls:
                    del m["tool_calls"]
                    calls = None
                    _note(
                        report,
                        self.rule("conversation.empty-tool-calls"),
                        f"{at}/tool_calls",
                        "an empty tool_calls list not sent (the message calls nothing)",
                    )
                if not calls and m.get("content") is None:
                    m["content"] = ""
                    _note(report, self.rule("conversation.assistant-content"), f"{at}/content", "empty content written")
                for k, c in enumerate(calls if isinstance(calls, list) else []):
                    if not isinstance(c, dict):
                        continue
                    self._repair_call_id(c, "id", f"{at}/tool_calls/{k}/id", report)
                    fn = c.get("function")
                    if (
                        isinstance(fn, dict)
                        and c.get("type", "function") == "function"
                        and not _json_object_text(fn.get("arguments"))
                    ):
                        _note(
                            report,
                            self.rule("conversation.arguments-json"),
                            f"{at}/tool_calls/{k}/function/arguments",
                            f"arguments {str(fn.get('arguments'))[:60]!r} are not a JSON object: sent as '{{}}'",
                            lossy=True,
                            call_id=c.get("id") if isinstance(c.get("id"), str) else None,
                        )
                        fn["arguments"] = "{}"
                    if (
                        isinstance(fn, dict)
                        and self.tool_name_error(fn.get("name")) is not None
                        and isinstance(fn.get("name"), str)
                    ):
                        new = history_call_name(fn["name"], declared)
                        _note(
                            report,
                            self.rule("call.name"),
                            f"{at}/tool_calls/{k}/function/name",
                            f"call name {fn['name']!r} sent as {new!r}",
                        )
                        fn["name"] = new
                out.append(m)
                origins.append(i)
                i += 1
                continue
            if m.get("role") == "tool":
                # a run of tool messages: ids shortened like their calls, images moved after the run
                images: list[dict[str, Any]] = []
                renamed: dict[str, str] = {}
                while i < len(messages) and isinstance(messages[i], dict) and messages[i].get("role") == "tool":
                    tm = messages[i]
                    was = tm.get("tool_call_id")
                    self._repair_call_id(tm, "tool_call_id", f"/messages/{i}/tool_call_id", report)
                    if isinstance(was, str) and tm.get("tool_call_id") != was:
                        renamed[was] = tm["tool_call_id"]
                    self._split_content(tm, f"/messages/{i}/content", report)
                    content = tm.get("content")
                    if isinstance(content, list) and any(_image_part(p) for p in content):
                        moved = [p for p in content if _image_part(p)]
                        kept = [p for p in content if not _image_part(p)]
                        if not any(isinstance(p, dict) and p.get("text") for p in kept):
                            kept = [
                                {"type": "text", "text": "(the result is the image(s) in the next user message)"}
                            ] + [p for p in kept if not (isinstance(p, dict) and p.get("type") == "text")]
                        tm["content"] = kept
                        images.append({"type": "text", "text": f"{IMAGE_LABEL}{tm.get('tool_call_id')}:"})
                        images.extend(moved)
                        _note(
                            report,
                            self.rule("conversation.tool-content"),
                            f"/messages/{i}/content",
                            f"{plural(len(moved), 'image')} of the result for {tm.get('tool_call_id')!r} moved to a user message "
                            "after the tool messages",
                        )
                    out.append(tm)
                    origins.append(i)
                    i += 1
                if renamed and i < len(messages):
                    _relabel_images(messages[i], renamed)  # the codec's image message names the ids as sent
                if images:
                    if bridge:
                        out.append(
                            self._bridge(
                                f"/messages/{i - 1}",
                                report,
                                "after the tool messages, before the user message holding their images",
                            )
                        )
                        origins.append(i - 1)
                    out.append({"role": "user", "content": images})
                    origins.append(i - 1)
                continue
            if bridge and m.get("role") == "user" and out and type(out[-1]) is dict and out[-1].get("role") == "tool":
                out.append(self._bridge(at, report, "before this user message"))
                origins.append(i)
            self._split_content(m, f"{at}/content", report)
            out.append(m)
            origins.append(i)
            i += 1
        return self._split_long_calls(out, origins, report)

    def _split_long_calls(self, messages: list[Any], origins: list[int], report: Any) -> list[Any]:
        """``messages`` with each assistant message of more than :data:`CHAT_MAX_MESSAGE_CALLS`
        tool calls sent as consecutive assistant messages of at most that many (the first keeps
        the message's other fields, the next ones carry only their calls, and to DeepSeek's API the
        message's ``reasoning_content``, which its thinking mode wants on each), each followed by the
        tool messages of the run after it that answer its calls, in their order (a tool message
        answering none of them stays in the last group); ``origins`` (the source index of each
        entry) rewritten to match (rule ``conversation.tool-calls-count``)."""
        most = CHAT_MAX_MESSAGE_CALLS
        if not any(
            type(m) is dict
            and m.get("role") == "assistant"
            and type(c := m.get("tool_calls")) is list
            and len(c) > most
            for m in messages
        ):
            return messages
        out: list[Any] = []
        where: list[int] = []
        i = 0
        while i < len(messages):
            m = messages[i]
            calls = m.get("tool_calls") if type(m) is dict and m.get("role") == "assistant" else None
            if type(calls) is not list or len(calls) <= most:
                out.append(m)
                where.append(origins[i])
                i += 1
                continue
            end = i + 1
            while end < len(messages) and type(messages[end]) is dict and messages[end].get("role") == "tool":
                end += 1
            groups = [calls[k : k + most] for k in range(0, len(calls), most)]
            placed: set[int] = set()
            rest: dict[str, Any] = {"role": "assistant", "content": None}
            if self.server == "deepseek" and type(thought := m.get("reasoning_content")) is str:
                # DeepSeek's thinking mode refuses an assistant message with tool calls but no
                # reasoning_content (rule server.deepseek-reasoning-content): each group carries
                # the reasoning DeepSeek sent with the calls
                rest["reasoning_content"] = thought
            for g, group in enumerate(groups):
                out.append(dict(m, tool_calls=group) if g == 0 else dict(rest, tool_calls=group))
                where.append(origins[i])
                ids = {c.get("id") for c in group if type(c) is dict}
                for t in range(i + 1, end):
                    if t not in placed and (g == len(groups) - 1 or messages[t].get("tool_call_id") in ids):
                        out.append(messages[t])
                        where.append(origins[t])
                        placed.add(t)
            _note(
                report,
                self.rule("conversation.tool-calls-count"),
                f"/messages/{origins[i]}/tool_calls",
                f"{len(calls)} tool calls sent as {len(groups)} assistant messages of at most {most} calls, each "
                "followed by the tool messages answering its calls",
            )
            i = end
        # the later groups' messages come from the same message, and tool messages may come in
        # another order: origins made non-decreasing, as the start's bisection needs (an entry
        # placed after one of a later origin counts as that late: checked again, never skipped)
        for k in range(1, len(where)):
            if where[k] < where[k - 1]:
                where[k] = where[k - 1]
        origins[:] = where
        return out

    def _bridge(self, pointer: str, report: Any, where: str) -> dict[str, Any]:
        """The assistant message sent between a tool message and a user message right after it
        (rule ``server.mistral-user-after-tool``), recorded on ``report`` at ``pointer`` (into the
        body as encoded) with ``where`` it goes."""
        _note(
            report,
            self.rule("server.mistral-user-after-tool"),
            pointer,
            f"assistant message {MISTRAL_BRIDGE_TEXT!r} sent {where}: Mistral's API takes no user message "
            "directly after a tool message",
        )
        return {"role": "assistant", "content": MISTRAL_BRIDGE_TEXT}

    def _split_content(self, m: dict[str, Any], pointer: str, report: Any) -> None:
        """A message's content text longer than :data:`CHAT_MAX_CONTENT` characters (a string, or
        a text part of a content array) → consecutive text parts of at most that many characters
        (rule ``conversation.content-length``): the same text, in order."""
        content = m.get("content")
        if not _long_content(content):
            return
        m["content"], cuts = _cut_texts(content, CHAT_MAX_CONTENT, "text", ("text",))
        for length, pieces in cuts:
            _note(
                report,
                self.rule("conversation.content-length"),
                pointer,
                f"{length:,} characters of {m.get('role')} content sent as {pieces} text parts",
                call_id=m.get("tool_call_id") if isinstance(m.get("tool_call_id"), str) else None,
            )

    @staticmethod
    def _clean_messages(
        messages: list[Any], i: int, n: int, id_rule: re.Pattern[str] | None = None, mistral: bool = False
    ) -> int:
        """The index of the first message from ``i`` on that a repair might change (``n`` when
        none): a pass that only reads, taking any message out of the usual shapes as one to
        repair (the full repair then decides). A message needs no repair when: an assistant
        message has content or tool calls, each call's id (a string) has at most
        :data:`CHAT_MAX_CALL_ID` characters, its function's name matches the name rule and its
        arguments are the text of a JSON object; a tool message's call id has at most
        :data:`CHAT_MAX_CALL_ID` characters and its content is a string (no image to move); no
        message's content text is longer than :data:`CHAT_MAX_CONTENT` characters. ``id_rule``: a
        pattern every call id (in a call or a tool message) must match too (a hosted server's
        rule, :data:`MISTRAL_CALL_ID`); ``mistral``: Mistral's rules too (a user message directly
        after a tool message, an assistant message without tool calls whose content is not a
        string that is not empty need a repair)."""
        good, texts = _GOOD_NAMES, _OBJECT_TEXTS
        while i < n:
            m = messages[i]
            if type(m) is not dict:
                return i
            role = m.get("role")
            if role == "assistant":
                calls = m.get("tool_calls")
                if _long_content(m.get("content")):
                    return i
                if not calls:
                    content = m.get("content")
                    if calls is not None or content is None or (mistral and (type(content) is not str or not content)):
                        return i
                elif type(calls) is not list or len(calls) > CHAT_MAX_MESSAGE_CALLS:
                    return i
                else:
                    for c in calls:
                        if type(c) is not dict:
                            return i
                        cid = c.get("id")
                        fn = c.get("function")
                        if type(cid) is str and not 0 < len(cid) <= CHAT_MAX_CALL_ID or type(fn) is not dict:
                            return i
                        if id_rule is not None and not (type(cid) is str and id_rule.fullmatch(cid)):
                            return i
                        name = fn.get("name")
                        if type(name) is not str or (name not in good and not _known_good_name(name)):
                            return i
                        args = fn.get("arguments")
                        if type(args) is not str or (args not in texts and not _known_object_text(args)):
                            return i
            elif role == "tool":
                cid = m.get("tool_call_id")
                content = m.get("content")
                if (
                    type(cid) is str
                    and not 0 < len(cid) <= CHAT_MAX_CALL_ID
                    or type(content) is not str
                    or len(content) > CHAT_MAX_CONTENT
                    or (id_rule is not None and not (type(cid) is str and id_rule.fullmatch(cid)))
                ):
                    return i
            elif mistral and role == "user" and _after_tool(messages, i):
                return i
            elif _long_content(m.get("content")):
                return i
            i += 1
        return n

    def _repair_call_id(self, obj: dict[str, Any], key: str, pointer: str, report: Any) -> None:
        cid = obj.get(key)
        if self.server == "mistral":
            if isinstance(cid, str) and (new := mistral_call_id(cid)) != cid:
                obj[key] = new
                _note(
                    report,
                    self.rule("server.mistral-call-id"),
                    pointer,
                    f"call id {cid!r} sent as {new!r} (Mistral's API takes 9 characters of a-z, A-Z, 0-9)",
                    call_id=cid,
                )
            return
        if isinstance(cid, str) and (new := short_call_id(cid, CHAT_MAX_CALL_ID)) != cid:
            obj[key] = new
            _note(
                report, self.rule("call.id-length"), pointer, f"call id {cid!r} ({len(cid)} characters) sent as {new!r}"
            )

    # -- tokens -----------------------------------------------------------------------------------
    async def count_tokens(self, body: dict[str, Any], **settings: Any) -> int | None:
        """Input tokens of a Chat body counted live: Chat Completions has no counting endpoint,
        so the body is rewritten as a Responses request (the same model, messages as input
        items, tools flattened) and counted with ``responses.input_tokens.count``
        (``POST /responses/input_tokens``). ``settings``: ``client`` (an ``openai.AsyncOpenAI``)
        or ``api_key``/``base_url``/``http_client``. Raises
        :class:`~toolwire.errors.ProviderError` like a request."""
        from .tokens import chat_body_as_responses, count_input_tokens

        return await count_input_tokens(chat_body_as_responses(body), api=CHAT, **settings)


#: Responses tool types whose calls the application answers (their output items are not function
#: calls: the codec decodes them as tool calls, see :data:`RESPONSES_CLIENT_CALLS`); every other
#: non-function type runs on OpenAI's side (https://platform.openai.com/docs/guides/tools).
RESPONSES_CLIENT_TOOLS = frozenset({"computer", "computer_use_preview", "local_shell", "shell", "apply_patch"})

#: The tool name toolwire gives each client-side Responses tool (the API's declarations carry no
#: name): the name of the tool calls decoded from its items and of the :class:`toolwire.ProviderTool`.
RESPONSES_CLIENT_TOOL_NAMES = {
    "computer": "computer",
    "computer_use_preview": "computer",
    "local_shell": "local_shell",
    "shell": "shell",
    "apply_patch": "apply_patch",
}

#: Output item type → (the tool call name, the item field that holds the call's input). The loop
#: runs them as tool calls whose arguments are ``{field: item[field]}``: ``local_shell_call.action``
#: (``openai.types.responses.response_output_item.LocalShellCallAction``), ``shell_call.action``
#: (``ResponseFunctionShellToolCall.Action``), ``apply_patch_call.operation``
#: (``ResponseApplyPatchToolCall.Operation``), ``computer_call.action`` or, batched,
#: ``computer_call.actions`` (``ResponseComputerToolCall``).
RESPONSES_CLIENT_CALLS = {
    "local_shell_call": ("local_shell", "action"),
    "shell_call": ("shell", "action"),
    "apply_patch_call": ("apply_patch", "operation"),
    "computer_call": ("computer", "action"),
}

_OBJ: dict[str, Any] = {"type": "object"}

#: The input schema of each client-side Responses tool's calls (the shapes above).
RESPONSES_CLIENT_TOOL_INPUT: dict[str, dict[str, Any]] = {
    "local_shell": {"type": "object", "properties": {"action": _OBJ}, "required": ["action"]},
    "shell": {"type": "object", "properties": {"action": _OBJ}, "required": ["action"]},
    "apply_patch": {"type": "object", "properties": {"operation": _OBJ}, "required": ["operation"]},
    "computer": {"type": "object", "properties": {"action": _OBJ, "actions": {"type": "array", "items": _OBJ}}},
}


@functools.lru_cache(maxsize=1)
def responses_provider_tools() -> Mapping[str, Any]:
    """OpenAI's own Responses tools by type: the ``type`` literals of the members of the installed
    SDK's ``openai.types.responses.ToolParam`` union other than ``function``, ``custom`` and
    ``namespace``."""
    import typing
    from types import MappingProxyType

    import openai.types.responses as responses
    from openai.types.responses import tool_param

    from toolwire.profile import ProviderToolInfo

    out: dict[str, Any] = {}
    for member in typing.get_args(tool_param.ToolParam):
        ann = getattr(member, "__annotations__", {}).get("type")
        for t in re.findall(r"'([^']+)'", str(getattr(ann, "__forward_arg__", ann) or "")):
            if t in ("function", "custom", "namespace"):
                continue
            side = "client" if t in RESPONSES_CLIENT_TOOLS else "server"
            name = RESPONSES_CLIENT_TOOL_NAMES.get(t)
            schema = RESPONSES_CLIENT_TOOL_INPUT.get(name) if name else None
            # the type by its public name where the package exports it (FileSearchToolParam, ...);
            # the union's nested members (Mcp, CodeInterpreter, ImageGeneration, LocalShell, ...)
            # are defined, and only reachable, in openai.types.responses.tool_param
            where = "openai.types.responses" if hasattr(responses, member.__name__) else tool_param.__name__
            out[t] = ProviderToolInfo(t, name, side, schema, f"{where}.{member.__name__}")
    return MappingProxyType(out)


#: Responses items toolwire decodes canonically (messages, reasoning, function and custom tool
#: calls and their outputs) or that are no tool's (``compaction``): not hosted-tool items (the codec
#: still keeps a ``compaction`` item as a provider-tool part, so it goes back in the next request).
_CANONICAL_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "compaction",
    }
)

#: Responses items the application answers (the client side of :data:`RESPONSES_CLIENT_TOOLS`,
#: and an MCP approval request): tool calls in a response; ``kind="call"`` provider-tool parts when
#: they come in an imported request (with their outputs).
RESPONSES_CLIENT_CALL_ITEMS = frozenset(
    {"computer_call", "local_shell_call", "shell_call", "apply_patch_call", "mcp_approval_request"}
)


@functools.lru_cache(maxsize=1)
def responses_hosted_item_types() -> frozenset[str]:
    """The output item types of OpenAI's own tools in the installed SDK: the ``type`` literals of
    the members of ``openai.types.responses.ResponseOutputItem`` (``web_search_call``,
    ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``, ``mcp_call``,
    ``computer_call``, ``*_output``, ...) other than messages, reasoning, function and custom tool
    calls and their outputs, and ``compaction``. The codec decodes these items into
    :class:`~toolwire.types.ProviderToolPart` values."""
    import typing

    from openai.types.responses import ResponseOutputItem

    union = ResponseOutputItem
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    found: set[str] = set()
    for member in typing.get_args(union):
        field = getattr(member, "model_fields", {}).get("type")
        for t in typing.get_args(field.annotation) if field is not None else ():
            if isinstance(t, str) and t not in _CANONICAL_ITEMS:
                found.add(t)
    return frozenset(found)


class OpenAIResponsesProfile(_OpenAIProfile):
    """Responses (``POST /responses``) rules; see :data:`RESPONSES_RULES`.

    ``OpenAIResponsesProfile(strict=False, **settings)``: as :class:`OpenAIChatProfile`.
    """

    api = RESPONSES
    rules = RESPONSES_RULES
    call_id_max = RESPONSES_MAX_CALL_ID
    #: ``(field, least value)`` of the output-token limit (rule ``request.max-tokens-range``)
    token_limit_minimums: tuple[tuple[str, int], ...] = (("max_output_tokens", 16),)
    messages_key: str | None = "input"
    #: An item's repairs read only itself, except a reasoning item (dropped when no item follows
    #: it, and then the ids of its turn's items): such a drop changes the entries, so the items
    #: before `start` a repair left as they were keep needing nothing; the repairs start at the
    #: first new item (:attr:`toolwire.profile.Profile.repair_window`).
    repair_window: int | None = 0
    _endpoint = "/responses"
    _id_step = staticmethod(_responses_ids)
    _id_start = staticmethod(_responses_ids_start)

    def recognizes_body(self, body: Any) -> bool:
        """A body with ``input`` (a string or a list of items) and no Gemini ``contents``."""
        return isinstance(body, dict) and "input" in body and "contents" not in body

    def _forced_name(self, choice: Any) -> str | None:
        if isinstance(choice, dict) and choice.get("type") == "function":
            return choice.get("name")
        return None

    def turn_failed(self, vendor_stop_reason: str | None) -> bool:
        """The codec's vendor stop reason is ``status`` or ``status:incomplete_reason``:
        ``failed``, ``cancelled``, ``incomplete:content_filter``, and a response left
        ``in_progress``/``queued`` → True; ``completed``, ``incomplete:max_output_tokens`` (a
        cut-off turn) and others → False."""
        if not isinstance(vendor_stop_reason, str):
            return False
        status, _, reason = vendor_stop_reason.partition(":")
        if status in ("failed", "cancelled", "in_progress", "queued"):
            return True
        return status == "incomplete" and reason == "content_filter"

    def usage(self, raw: Any) -> Any:
        """Responses ``usage`` → :class:`~toolwire.types.Usage` (``usage.mapping``)."""
        from .responses import responses_usage

        return responses_usage(raw)

    # -- checks -----------------------------------------------------------------------------------
    def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
        """Every rule breach of a ``/responses`` body (pure). Input items before ``start`` are
        only read for the call ids and item ids they define. The rules on the fields other than
        ``input`` are checked once per distinct value of those fields."""
        out = list(self._top_checked(body, "input", self._request_problems))
        out.extend(self._input_problems(body, start))
        out.extend(_image_problems(body.get("input"), start, "input", self.violation))
        return out

    def _request_problems(self, body: dict[str, Any]) -> list[Violation]:
        """The rules on the body's fields other than ``input``."""
        out: list[Violation] = []
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        found, names = self._tools_checked(tools)
        out.extend(found)
        reasoning = reasoning if isinstance(reasoning := body.get("reasoning"), dict) else {}
        out.extend(self._common_request_problems(body, tools, names, reasoning.get("effort")))
        most = body.get("max_tool_calls")
        if most is not None and not (type(most) is int and most >= 1):
            out.append(
                self.violation(
                    "request.max-tool-calls-range",
                    "/max_tool_calls",
                    f"max_tool_calls must be an integer of at least 1, got {most!r}; to let the model call no tool, "
                    "use tool_choice='none'",
                )
            )
        if body.get("previous_response_id") and body.get("conversation"):
            out.append(
                self.violation(
                    "request.previous-with-conversation",
                    "/previous_response_id",
                    "previous_response_id cannot be used together with conversation",
                )
            )
        if body.get("previous_response_id") and body.get("store") is False:
            out.append(
                self.violation(
                    "request.previous-without-store",
                    "/previous_response_id",
                    "with store: false no response is stored, so previous_response_id cannot be found; use "
                    "continuation='stateless' (the default) or store=True",
                )
            )
        return out

    def _tool_problems_of(self, tools: list[Any]) -> tuple[list[Violation], set[str]]:
        """The violations of the declarations ``tools`` and the names they declare."""
        out: list[Violation] = []
        names: set[str] = set()
        for i, decl in enumerate(tools):
            if isinstance(decl, dict) and decl.get("type") in ("function", "custom"):
                if isinstance(decl_name := decl.get("name"), str):  # a missing name is reported, not listed
                    names.add(decl_name)
                out.extend(self._tool_problems(decl, i, f"/tools/{i}", decl))
        return out, names

    def _input_problems(self, body: dict[str, Any], start: int) -> list[Violation]:
        out: list[Violation] = []
        items = body.get("input")
        if not isinstance(items, list):
            return out
        continued = bool(body.get("previous_response_id") or body.get("conversation"))
        store_false = body.get("store") is False
        start = self._mapped_start(items, start)
        begin = max(0, min(start, len(items)))
        # the entries before begin: only their ids are read (the ids of the last request's whole
        # input, kept at the end of its check, when they are this input's first entries)
        last = getattr(self, "_input_ids", None)
        if last is not None and len(last[0]) == begin and items[:begin] == last[0]:
            calls, answered, item_ids = _copy_responses_ids(last[1])
        else:
            calls, answered, item_ids = self._folded_ids(items, begin, _copy_responses_ids)
        new_calls: list[str] = []  # the calls first seen from begin on, in order (those checked for an output)
        begin = self._clean_inputs(items, begin, len(items), (calls, answered, item_ids), new_calls, continued)
        for i in range(begin, len(items)):
            it = items[i]
            if not isinstance(it, dict):
                continue
            typ = it.get("type")
            at = f"/input/{i}"
            new = i >= begin
            iid = it.get("id")
            kind = "message" if typ is None and "role" in it else typ
            if (
                new
                and kind in ITEM_ID_PREFIX
                and iid is not None
                and not (isinstance(iid, str) and iid.startswith(ITEM_ID_PREFIX[kind]))
            ):
                out.append(
                    self.violation(
                        "conversation.item-id-prefix",
                        f"{at}/id",
                        f"a {kind} item id must begin with {ITEM_ID_PREFIX[kind]!r}, got {iid!r}",
                    )
                )
            if new and kind == "message" and it.get("role") == "assistant" and isinstance(it.get("content"), list):
                for k, part in enumerate(it["content"]):
                    if isinstance(part, dict) and part.get("type") not in ("output_text", "refusal"):
                        out.append(
                            self.violation(
                                "conversation.assistant-parts",
                                f"{at}/content/{k}/type",
                                f"an assistant message part of type {part.get('type')!r}; only output_text and refusal",
                            )
                        )
            if new and typ == "reasoning" and (not isinstance(iid, str) or not isinstance(it.get("summary"), list)):
                out.append(
                    self.violation(
                        "conversation.reasoning-fields", at, "a reasoning item needs an id and a summary list"
                    )
                )
            if new and typ == "reasoning":
                for key, why in _reasoning_output_fields(it, self._to_openai_api):
                    out.append(self.violation("conversation.reasoning-input-fields", f"{at}/{key}", why))
            if isinstance(iid, str) and iid:
                if iid in item_ids and new:
                    out.append(
                        self.violation(
                            "conversation.duplicate-item-id",
                            f"{at}/id",
                            f"item id {iid!r} appears twice; item ids must be unique across the conversation: "
                            "give each answer's items new ids, or drop the earlier copy",
                        )
                    )
                item_ids.add(iid)
            if typ in ("function_call", "custom_tool_call"):
                cid = it.get("call_id")
                if new:
                    arg_key = "arguments" if typ == "function_call" else "input"
                    for key in ("call_id", "name", arg_key):
                        if not isinstance(it.get(key), str):
                            out.append(
                                self.violation(
                                    "conversation.call-fields",
                                    f"{at}/{key}",
                                    f"a {typ} item needs a string {key}",
                                    call_id=cid if isinstance(cid, str) else None,
                                )
                            )
                    if isinstance(cid, str) and not 0 < len(cid) <= RESPONSES_MAX_CALL_ID:
                        out.append(
                            self.violation(
                                "call.id-length",
                                f"{at}/call_id",
                                f"call_id is {len(cid)} characters (1 to {RESPONSES_MAX_CALL_ID})",
                                call_id=cid,
                            )
                        )
                    if (
                        typ == "function_call"
                        and isinstance(it.get("name"), str)
                        and it["name"] != PARALLEL_PSEUDO_TOOL  # (see _repair_items)
                        and self.tool_name_error(it["name"]) is not None
                    ):
                        out.append(
                            self.violation(
                                "call.name",
                                f"{at}/name",
                                f"call name {it['name']!r}: {self.tool_name_error(it['name'])}",
                                call_id=cid,
                            )
                        )
                if isinstance(cid, str) and cid not in calls:
                    calls[cid] = i
                    new_calls.append(cid)
            elif typ in ("function_call_output", "custom_tool_call_output"):
                cid = it.get("call_id")
                if new:
                    if (cid not in calls and not continued) or cid in answered:
                        out.append(
                            self.violation(
                                "conversation.output-without-call",
                                f"{at}/call_id",
                                f"output for {cid!r} answers no earlier unanswered call",
                                call_id=cid if isinstance(cid, str) else None,
                            )
                        )
                    if typ == "function_call_output":
                        out.extend(self._output_problems(it.get("output"), at, cid))
                if isinstance(cid, str):
                    answered.add(cid)
            elif typ in _CLIENT_SEARCH_ITEMS:
                _note_client_search(it, i, calls, answered)
            elif typ == "reasoning" and new:
                nxt = items[i + 1] if i + 1 < len(items) else None
                if not (
                    isinstance(nxt, dict)
                    and (
                        nxt.get("type") in ("function_call", "custom_tool_call", "reasoning")
                        or (nxt.get("type", "message") == "message" and nxt.get("role") == "assistant")
                        or nxt.get("type") not in (None, "message", "function_call_output", "custom_tool_call_output")
                    )
                ):
                    out.append(
                        self.violation(
                            "conversation.reasoning-followed",
                            at,
                            f"reasoning item {iid!r} is not followed by the item it was produced with",
                        )
                    )
                if store_false and not it.get("encrypted_content"):
                    out.append(
                        self.violation(
                            "request.store-false-item-ids",
                            at,
                            f"with store: false the reasoning item {iid!r} needs its encrypted_content",
                        )
                    )
        for cid in new_calls:
            if cid not in answered:
                idx = calls[cid]
                out.append(
                    self.violation(
                        "conversation.call-answered",
                        f"/input/{idx}",
                        f"function call {cid!r} has no function_call_output; answer every call (an error "
                        "result is an answer)",
                        call_id=cid,
                    )
                )
        # the loop above collected the ids of every item as the fold does (_responses_ids): the
        # value of the fold over the whole input, for the next request's entries before its start
        self._input_ids = (list(items), (calls, answered, item_ids))
        return out

    def _output_problems(self, output: Any, at: str, cid: Any) -> list[Violation]:
        if isinstance(output, str):
            return []
        if not isinstance(output, list):
            return [
                self.violation(
                    "conversation.output-content",
                    f"{at}/output",
                    "output must be a string or a list of parts",
                    call_id=cid if isinstance(cid, str) else None,
                )
            ]
        out = []
        for k, part in enumerate(output):
            if not (isinstance(part, dict) and part.get("type") in ("input_text", "input_image", "input_file")):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                out.append(
                    self.violation(
                        "conversation.output-content",
                        f"{at}/output/{k}",
                        f"output part of type {kind!r}; only input_text, input_image and input_file",
                        call_id=cid if isinstance(cid, str) else None,
                    )
                )
        return out

    # -- repairs ----------------------------------------------------------------------------------
    def repair_request(self, body: dict[str, Any], report: Any, *, start: int = 0, settled: int = 0) -> dict[str, Any]:
        """Rewrite ``body`` (in place, and returned) where a rule can be met without changing
        what was meant; every rewrite is recorded on ``report``. See the ``repair`` and
        ``report`` rules of :data:`RESPONSES_RULES`. The input items before ``settled`` need no
        repair and are left as they are (see :attr:`repair_window`). The repairs of the fields
        other than ``input`` run once per distinct value of those fields (see
        :meth:`_top_repaired`)."""
        declared, store_false = self._top_repaired(body, report, "input", self._repair_top)
        items = body.get("input")
        if isinstance(items, list):
            origins: list[int] = []
            repaired = body["input"] = self._repair_items(items, declared, store_false, report, origins, settled)
            _repair_image_data(repaired, settled, "input", self.rule("conversation.image-media-type-data"), report)
            if repaired is items:  # nothing moved
                self._start_map = (repaired, start, min(max(start, 0), len(repaired)))
            else:
                self._remember_start(repaired, origins, start)
        return body

    def _repair_top(self, body: dict[str, Any], report: Any) -> tuple[set[Any], bool]:
        """The repairs of the body's fields other than ``input`` (the tool names also in the
        input's calls); returns the declared tool names and whether ``store`` is false."""
        self._common_repairs(body, report)
        self.repair_names(body, report)
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        declared = {t.get("name") for t in tools if isinstance(t, dict)}
        for i, decl in enumerate(tools):
            if isinstance(decl, dict) and decl.get("type") == "function":
                self._repair_parameters(decl, f"/tools/{i}", report)
        if reasoning_family(body.get("model")) is not None:
            self._repair_logprobs(body, report)
        reasoning = body.get("reasoning")
        if isinstance(reasoning, dict) and reasoning.get("summary") == "none":
            del reasoning["summary"]
            _note(
                report,
                self.rule("request.reasoning-summary-none"),
                "/reasoning/summary",
                "reasoning summary 'none' not sent: no summary is asked for by leaving it out",
            )
        if isinstance(reasoning, dict) and reasoning.get("summary") in ("concise", "detailed"):
            self._repair_summary(body, reasoning, report)
        if isinstance(body.get("text"), dict) and "verbosity" in body["text"]:
            self._repair_verbosity(body, report)
        store_false = body.get("store") is False
        if store_false and (isinstance(body.get("reasoning"), dict) or reasoning_family(body.get("model")) is not None):
            include = body.get("include")
            if include is None or (isinstance(include, list) and "reasoning.encrypted_content" not in include):
                body["include"] = [*(include or []), "reasoning.encrypted_content"]
                _note(
                    report,
                    self.rule("request.include-encrypted-reasoning"),
                    "/include",
                    "'reasoning.encrypted_content' added to include (store: false)",
                )
        return declared, store_false

    def _repair_summary(self, body: dict[str, Any], reasoning: dict[str, Any], report: Any) -> None:
        """Rule ``request.reasoning-summary-model``: a reasoning summary the model refuses sent as
        the one it names (:data:`REASONING_SUMMARIES`)."""
        model = body.get("model")
        if type(model) is not str:
            return
        asked = reasoning["summary"]
        sent = _summary_for(_model_name(model)).get(asked)
        if sent is None:
            return
        reasoning["summary"] = sent
        _note(
            report,
            self.rule("request.reasoning-summary-model"),
            "/reasoning/summary",
            f"reasoning summary {asked!r} sent as {sent!r}: {model} gives no {asked!r} summary",
            lossy=True,
        )

    def _repair_verbosity(self, body: dict[str, Any], report: Any) -> None:
        """Rule ``request.verbosity-model``: ``text.verbosity`` other than ``medium`` left out for
        a model that takes only ``medium`` (an emptied ``text`` object with it)."""
        model = body.get("model")
        text = body["text"]
        value = text.get("verbosity")
        if value in (None, "medium") or type(model) is not str or reasoning_efforts(model) != ():
            return
        del text["verbosity"]
        if not text:
            del body["text"]
        _note(
            report,
            self.rule("request.verbosity-model"),
            "/text/verbosity",
            f"verbosity {value!r} not sent: {model} takes only 'medium'",
            lossy=True,
        )

    def _repair_logprobs(self, body: dict[str, Any], report: Any) -> None:
        """Rule ``request.logprobs-reasoning-model``: ``top_logprobs`` and the logprobs include
        left out for a reasoning model."""
        model = body.get("model")
        if "top_logprobs" in body:
            value = body.pop("top_logprobs")
            _note(
                report,
                self.rule("request.logprobs-reasoning-model"),
                "/top_logprobs",
                f"top_logprobs={value!r} not sent: {model} gives no log probabilities",
                lossy=value not in (None, 0),
            )
        include = body.get("include")
        if isinstance(include, list) and "message.output_text.logprobs" in include:
            body["include"] = [x for x in include if x != "message.output_text.logprobs"]
            if not body["include"]:
                del body["include"]
            _note(
                report,
                self.rule("request.logprobs-reasoning-model"),
                "/include",
                f"'message.output_text.logprobs' not asked for: {model} gives no log probabilities",
                lossy=True,
            )

    def repair_names(self, body: dict[str, Any], report: Any = None) -> dict[str, str]:
        """As :meth:`OpenAIChatProfile.repair_names`, for ``tools[].name``, a named
        ``tool_choice`` and the input's ``function_call`` items."""
        tools = tools if isinstance(tools := body.get("tools"), list) else []
        names = [t.get("name") for t in tools if isinstance(t, dict) and t.get("type") == "function"]
        good = _GOOD_NAMES
        if all(type(n) is str and n in good for n in names):
            return {}  # every name known to meet the rule (the usual case): none renamed
        mapping = wire_tool_names(names)
        if not mapping:
            for n in names:
                _known_good_name(n)
            return mapping
        for i, t in enumerate(tools):
            if isinstance(t, dict) and t.get("type") == "function" and t.get("name") in mapping:
                _note(
                    report,
                    self.rule(_rename_rule(t["name"])),
                    f"/tools/{i}/name",
                    f"tool {t['name']!r} sent as {mapping[t['name']]!r}; the model's calls to it run {t['name']!r}",
                    tool=t["name"],
                )
                t["name"] = mapping[t["name"]]
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "function" and choice.get("name") in mapping:
            choice["name"] = mapping[choice["name"]]
        items = body.get("input")
        for it in items if isinstance(items, list) else []:
            if isinstance(it, dict) and it.get("type") == "function_call" and it.get("name") in mapping:
                it["name"] = mapping[it["name"]]
        return mapping

    def _repair_items(
        self,
        items: list[Any],
        declared: set[Any],
        store_false: bool,
        report: Any,
        origins: list[int],
        settled: int = 0,
    ) -> list[Any]:
        """``items`` repaired from ``settled`` on: the same list when no item needed a repair
        (found by :meth:`_clean_items`; ``origins`` left unfilled), else a new list with
        ``origins`` (the index in ``items`` each entry comes from) filled."""
        n = len(items)
        settled = max(0, min(int(settled or 0), n))
        # the items from `settled` on that need no repair (the usual case): left as they are
        settled = self._clean_items(items, settled, n)
        if settled == n:
            return items
        kept: list[Any] = []
        kept_from: list[int] = []
        strip_ids = False  # after a dropped reasoning item: the items of its turn go without their ids
        for i in range(settled, len(items)):
            it = items[i]
            if not isinstance(it, dict):
                kept.append(it)
                kept_from.append(i)
                continue
            typ = it.get("type")
            at = f"/input/{i}"
            kind = "message" if typ is None and "role" in it else typ
            if (
                kind in ITEM_ID_PREFIX
                and it.get("id") is not None
                and not (isinstance(it["id"], str) and it["id"].startswith(ITEM_ID_PREFIX[kind]))
                and kind != "reasoning"
            ):
                _note(
                    report,
                    self.rule("conversation.item-id-prefix"),
                    f"{at}/id",
                    f"item id {it['id']!r} is not a {kind} id ({ITEM_ID_PREFIX[kind]}_...): not sent",
                )
                it = {k: v for k, v in it.items() if k != "id"}
            if (
                kind == "message"
                and it.get("role") == "assistant"
                and isinstance(it.get("content"), list)
                and any(isinstance(p, dict) and p.get("type") not in _ASSISTANT_PARTS for p in it["content"])
            ):
                content, other = _assistant_parts(it["content"])
                if any(isinstance(p, dict) and p.get("type") == "input_text" for p in it["content"]):
                    _note(
                        report,
                        self.rule("conversation.assistant-parts"),
                        f"{at}/content",
                        "input_text parts of an assistant message written as output_text",
                    )
                if other:
                    _note(
                        report,
                        self.rule("conversation.assistant-parts"),
                        f"{at}/content",
                        f"assistant message parts of type {', '.join(sorted({repr(t) for t in other}))} written as "
                        "output_text with their text (left out when they have none)",
                        lossy=True,
                    )
                if not content:
                    continue  # nothing of the message can be sent
                it = {**it, "content": content}
            if typ == "reasoning":
                if not isinstance(it.get("id"), str) or not it["id"].startswith("rs"):
                    _note(
                        report,
                        self.rule("conversation.reasoning-fields"),
                        at,
                        f"reasoning item without a reasoning id ({it.get('id')!r}): not sent",
                        lossy=True,
                    )
                    strip_ids = True
                    continue
                if not isinstance(it.get("summary"), list):
                    it = {**it, "summary": []}
                    _note(report, self.rule("conversation.reasoning-fields"), f"{at}/summary", "summary: [] written")
                extra = _reasoning_output_fields(it, self._to_openai_api)
                if extra:
                    for key, why in extra:
                        _note(
                            report,
                            self.rule("conversation.reasoning-input-fields"),
                            f"{at}/{key}",
                            f"{key} of reasoning item {it['id']!r} not sent: {why}",
                        )
                    it = {k: v for k, v in it.items() if k not in dict(extra)}
            if typ == "reasoning" and store_false and not it.get("encrypted_content"):
                _note(
                    report,
                    self.rule("request.store-false-item-ids"),
                    at,
                    f"reasoning item {it.get('id')!r} without encrypted_content not sent (store: false)",
                    lossy=True,
                )
                strip_ids = True
                continue
            own_turn = typ in ("function_call", "custom_tool_call", "reasoning") or (
                typ in ("message", None) and it.get("role") == "assistant"
            )
            if not own_turn:
                strip_ids = False
            elif strip_ids and it.get("id") and typ != "reasoning":
                _note(
                    report,
                    self.rule("request.store-false-item-ids"),
                    f"{at}/id",
                    f"item id {it['id']!r} not sent: its reasoning item was not sent (call_id pairs the result)",
                )
                it = {k: v for k, v in it.items() if k != "id"}
            if typ in ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output"):
                cid = it.get("call_id")
                if isinstance(cid, str) and (new := short_call_id(cid, RESPONSES_MAX_CALL_ID)) != cid:
                    it["call_id"] = new
                    _note(
                        report,
                        self.rule("call.id-length"),
                        f"{at}/call_id",
                        f"call_id {cid!r} ({len(cid)} characters) sent as {new!r}",
                    )
            if (
                typ == "function_call"
                and isinstance(it.get("name"), str)
                # the model's own multi_tool_use.parallel call goes back as it came (the codec
                # answers it by its call_id with the results of the calls split from it): an item
                # the API produced, taken back as input (every output item is input;
                # ResponseFunctionToolCallParam.name is a plain str, and this rule's evidence is
                # Chat's messages[].tool_calls[].function.name pattern)
                and it["name"] != PARALLEL_PSEUDO_TOOL
                and self.tool_name_error(it["name"]) is not None
            ):
                newname = history_call_name(it["name"], declared)
                _note(report, self.rule("call.name"), f"{at}/name", f"call name {it['name']!r} sent as {newname!r}")
                it["name"] = newname
            if typ == "function_call_output" and _long_text(it.get("output")):
                it = {**it, "output": self._split_text(it["output"], "input_text", f"{at}/output", report, it)}
            elif kind == "message" and _long_text(it.get("content")):
                part = "output_text" if it.get("role") == "assistant" else "input_text"
                it = {**it, "content": self._split_text(it["content"], part, f"{at}/content", report, it)}
            kept.append(it)
            kept_from.append(i)
        # a reasoning item must be followed by its item: drop orphans (e.g. the rest of that turn was another vendor's)
        out: list[Any] = list(items[:settled])
        origins.extend(range(settled))
        for k, it in enumerate(kept):
            if isinstance(it, dict) and it.get("type") == "reasoning":
                nxt = kept[k + 1] if k + 1 < len(kept) else None
                follows = isinstance(nxt, dict) and (
                    nxt.get("type") in ("function_call", "custom_tool_call", "reasoning")
                    or (nxt.get("type", "message") == "message" and nxt.get("role") == "assistant")
                    or nxt.get("type") not in (None, "message", "function_call_output", "custom_tool_call_output")
                )
                if not follows:
                    _note(
                        report,
                        self.rule("conversation.reasoning-followed"),
                        f"/input/{kept_from[k]}",
                        f"reasoning item {it.get('id')!r} has no following item: not sent",
                        lossy=True,
                    )
                    continue
            out.append(it)
            origins.append(kept_from[k])
        return out

    def _split_text(self, value: Any, part_type: str, pointer: str, report: Any, item: dict[str, Any]) -> list[Any]:
        """Rule ``conversation.content-length``: ``value`` (a string, or a list of parts) with every
        text over :data:`RESPONSES_MAX_TEXT` characters cut into consecutive parts of at most that
        many characters (``part_type`` for a string: ``input_text``, or ``output_text`` in an
        assistant message), the same text in order."""
        out, cuts = _cut_texts(value, RESPONSES_MAX_TEXT, part_type, None)
        for length, pieces in cuts:
            _note(
                report,
                self.rule("conversation.content-length"),
                pointer,
                f"{length:,} characters sent as {pieces} text parts",
                call_id=item.get("call_id") if isinstance(item.get("call_id"), str) else None,
            )
        return out

    @staticmethod
    def _clean_items(items: list[Any], i: int, n: int) -> int:
        """The index of the first input item from ``i`` on that a repair might change or drop
        (``n`` when none): a pass that only reads, any item out of the usual shapes taken as one
        to repair (the full repair then decides). No repair: a ``function_call`` with no id or an
        ``fc`` id, a ``call_id`` of at most :data:`RESPONSES_MAX_CALL_ID` characters and a name
        under the name rule (or not a string: reported by the check); a ``function_call_output``
        with such a ``call_id``; a message with no id or a ``msg`` id whose assistant content
        (text, or a list) has no ``input_text`` part. Reasoning items and every other type take
        the full repair (a reasoning item may be dropped, which changes the items after it)."""
        good = _GOOD_NAMES
        while i < n:
            it = items[i]
            if type(it) is not dict:
                return i
            typ = it.get("type")
            if typ == "function_call":
                iid = it.get("id")
                if iid is not None and not (type(iid) is str and iid.startswith("fc")):
                    return i
                cid = it.get("call_id")
                if type(cid) is str and not 0 < len(cid) <= RESPONSES_MAX_CALL_ID:
                    return i
                name = it.get("name")
                if type(name) is str:
                    if name not in good and not _known_good_name(name):
                        return i
                elif isinstance(name, str):
                    return i  # a str subclass: the full repair
            elif typ == "function_call_output":
                cid = it.get("call_id")
                if (
                    type(cid) is not str
                    and cid is not None
                    or type(cid) is str
                    and not 0 < len(cid) <= RESPONSES_MAX_CALL_ID
                    or _long_text(it.get("output"))
                ):
                    return i
            elif typ == "message" or (typ is None and "role" in it):
                iid = it.get("id")
                if iid is not None and not (type(iid) is str and iid.startswith("msg")):
                    return i
                if _long_text(it.get("content")):
                    return i
                if it.get("role") == "assistant":
                    content = it.get("content")
                    if type(content) is list:
                        for p in content:
                            if type(p) is not dict or p.get("type") not in _ASSISTANT_PARTS:
                                return i
                    elif content is not None and type(content) is not str:
                        return i
            else:
                return i
            i += 1
        return n

    @staticmethod
    def _clean_inputs(
        items: list[Any],
        i: int,
        n: int,
        acc: tuple[dict[str, int], set[str], set[str]],
        new_calls: list[str],
        continued: bool,
    ) -> int:
        """The index of the first input item from ``i`` on whose check might find a violation
        (``n`` when none), having added the ids of the items before it to ``acc`` (calls,
        answered call ids, item ids) and ``new_calls`` as the full check adds them: a pass of
        look-ups over the usual shapes, any other item left to the full check. Fine without a
        look: a ``function_call`` with no id or a new ``fc`` id, a string ``call_id`` of at most
        :data:`RESPONSES_MAX_CALL_ID` characters, a string name under the name rule and string
        arguments; a ``function_call_output`` with no id or a new one, answering a call made
        before it (or any call of a continued response) not answered yet, with string output; a
        message with no id or a new ``msg`` id whose assistant content holds only
        ``output_text`` and ``refusal`` parts."""
        calls, answered, item_ids = acc
        good = _GOOD_NAMES
        while i < n:
            it = items[i]
            if type(it) is not dict:
                return i
            typ = it.get("type")
            iid = it.get("id")
            if typ == "function_call":
                if iid is not None and not (type(iid) is str and iid.startswith("fc")):
                    return i
                cid = it.get("call_id")
                name = it.get("name")
                if (
                    type(cid) is not str
                    or not 0 < len(cid) <= RESPONSES_MAX_CALL_ID
                    or type(name) is not str
                    or type(it.get("arguments")) is not str
                    or (name not in good and not _known_good_name(name))
                ):
                    return i
                if iid:
                    if iid in item_ids:
                        return i
                    item_ids.add(iid)
                if cid not in calls:
                    calls[cid] = i
                    new_calls.append(cid)
            elif typ == "function_call_output":
                cid = it.get("call_id")
                if (
                    type(cid) is not str
                    or (cid not in calls and not continued)
                    or cid in answered
                    or type(it.get("output")) is not str
                ):
                    return i
                if iid is not None:
                    if type(iid) is not str or iid in item_ids:
                        return i
                    if iid:
                        item_ids.add(iid)
                answered.add(cid)
            elif typ == "message" or (typ is None and "role" in it):
                if iid is not None and not (type(iid) is str and iid.startswith("msg")):
                    return i
                if it.get("role") == "assistant":
                    content = it.get("content")
                    if type(content) is list:
                        for p in content:
                            if type(p) is not dict or (pt := p.get("type")) != "output_text" and pt != "refusal":
                                return i
                    elif content is not None and type(content) is not str:
                        return i
                if iid:
                    if iid in item_ids:
                        return i
                    item_ids.add(iid)
            else:
                return i
            i += 1
        return n

    # -- tokens -----------------------------------------------------------------------------------
    async def count_tokens(self, body: dict[str, Any], **settings: Any) -> int | None:
        """Input tokens of a Responses body counted live with ``responses.input_tokens.count``
        (``POST /responses/input_tokens``: instructions, input items, tools). ``settings``:
        ``client`` (an ``openai.AsyncOpenAI``) or ``api_key``/``base_url``/``http_client``.
        Raises :class:`~toolwire.errors.ProviderError` like a request."""
        from .tokens import count_input_tokens

        return await count_input_tokens(body, api=RESPONSES, **settings)


_NAMING: dict[str, OpenAIChatProfile | OpenAIResponsesProfile] = {}


def naming_profile(api: str) -> OpenAIChatProfile | OpenAIResponsesProfile:
    """One shared profile of ``api`` for :meth:`~OpenAIChatProfile.repair_names` calls without a
    report (the codecs' renaming; it reads no profile state): made once, not per request."""
    p = _NAMING.get(api)
    if p is None:
        p = _NAMING[api] = OpenAIChatProfile() if api == CHAT else OpenAIResponsesProfile()
    return p


def profile_for(api: str, *, strict: bool = False, **settings: Any) -> _OpenAIProfile:
    """The profile of ``api`` (``"openai-chat"`` or ``"openai"``; ``"openai-responses"``
    accepted as the old name)."""
    if api == CHAT:
        return OpenAIChatProfile(strict=strict, **settings)
    if api in (RESPONSES, "openai-responses"):
        return OpenAIResponsesProfile(strict=strict, **settings)
    raise ValueError(f"no OpenAI profile for {api!r}")
