"""The Anthropic Messages profile: every rule toolwire knows the ``/v1/messages`` API enforces, as
data (:data:`RULES`, each with its source) and small functions over the encoded request body.

The codec encodes a canonical request; the preflight then calls :meth:`AnthropicProfile.repair_request`
(changes that keep the request's meaning, each reported) and :meth:`AnthropicProfile.check_request`
(what is still wrong: the request is refused before anything is sent). Input schemas are repaired
tool by tool in :meth:`AnthropicProfile.translate_schema` (see :mod:`toolwire_anthropic.schema`).

Sources are named per rule: the installed ``anthropic`` SDK's types (``anthropic.types.*``), the
vendor documents (``platform.claude.com/docs``), or the API's error text as users quote it in
public issue threads (repository#number). Where sources disagree the rule says so and says which
one toolwire follows.
"""

from __future__ import annotations

import base64
import binascii
import copy
import functools
import json
import re
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from toolwire._words import plural
from toolwire.profile import Action, PrefixFold, Profile, ProviderToolInfo, Rule, Violation
from toolwire.profile import number_leaves as _number_leaves
from toolwire.profile import same_number_types as _same_number_types
from toolwire.schema.keys import has_refused_keys, rename_schema_keys
from toolwire.schema.report import TranslationReport
from toolwire.types import base64_head, decode_data_url, not_image_problem, signature_media_type, url_scheme

from .schema import ROOT_COMBINATORS, is_recursive, repair_root, strict_narrowed, strict_problems, strict_subset

__all__ = [
    "AnthropicProfile",
    "THINKING_BINDING_BETA",
    "PREFIX_CHECK_FROM",
    "runs_prefix_check",
    "RULES",
    "TOOL_NAME_RULE",
    "TOOL_USE_ID_RULE",
    "IMAGE_MEDIA_TYPES",
    "REQUEST_MAX_BYTES",
    "STRICT_LIMITS",
    "FAILED_STOP_REASONS",
    "TOOL_USE_SYSTEM_PROMPT_TOKENS",
    "ESTIMATE_RATIO",
    "ESTIMATE_ERROR",
    "COUNT_TOKENS_FIELDS",
]

API = "anthropic"

#: Tool names: API error text ``tools.N.custom.name: String should match pattern
#: '^[a-zA-Z0-9_-]{1,128}$'`` (modelcontextprotocol/modelcontextprotocol#1345, jedisct1/openapi-mcp#9,
#: 2025-06 onward). Earlier texts quote ``{1,64}`` (modelcontextprotocol/typescript-sdk#413,
#: apify/tester-mcp-client#11, 2025-03/04) and so do older copies of the tool-use docs; the SDK's
#: ``ToolParam.name`` states no pattern. toolwire follows the API's current text: 128.
TOOL_NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")

#: ``tool_use.id`` / ``tool_result.tool_use_id``: API error text ``String should match pattern
#: '^[a-zA-Z0-9_-]+$'`` (HKUDS/nanobot#4356).
TOOL_USE_ID_RULE = re.compile(r"^[a-zA-Z0-9_-]+$")

#: ``anthropic.types.Base64ImageSourceParam.media_type``.
IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def fetches_image_url(url: str) -> bool:
    """Whether an image given by ``url`` can be sent to Anthropic (rule
    ``anthropic.conversation.image-url``): an https URL, which the API fetches, or a ``data:`` URL
    holding bytes, sent as a base64 source. An image a tool returned by any other URL is sent as
    a note (:func:`toolwire.turns.readable_tool_result`); one in a user message is refused."""
    return url_scheme(url) == "https" or (url[:5].lower() == "data:" and decode_data_url(url) is not None)


#: Media type spellings that name an accepted type (repaired, same bytes).
_MEDIA_TYPE_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}

#: Largest base64 image the API takes, in bytes of image data (vision docs: 5 MB per image on the API).
#: The largest Messages request body toolwire sends, in bytes of JSON: the documented 32 MB, read as
#: 32 MiB so that nothing the API could accept is refused (rule ``anthropic.request.size``).
REQUEST_MAX_BYTES = 32 * 1024 * 1024
IMAGE_MAX_BYTES = 5 * 1024 * 1024

#: Largest width or height of an image, in pixels (rule ``anthropic.conversation.image-dimensions``).
IMAGE_MAX_PIXELS = 8000
#: A request holding more images than this (earlier turns and tool results included) takes images of
#: at most :data:`MANY_IMAGES_MAX_PIXELS` per side (rule ``anthropic.request.many-image-dimensions``).
MANY_IMAGES = 20
MANY_IMAGES_MAX_PIXELS = 2000
#: Images plus document pages per request (rule ``anthropic.request.media-count``).
MAX_MEDIA = 100
#: The longest ``title`` of a ``document`` block, in characters (rule
#: ``anthropic.conversation.document-title``; the Messages API's request schema: 1 to 500).
TITLE_MAX_CHARS = 500

#: Strict tool use complexity limits per request (structured-outputs docs, "Schema complexity
#: limits"): strict tools, optional parameters and parameters with union types across all strict
#: schemas. Past them toolwire sends the later tools without ``strict`` (reported, lossy).
STRICT_LIMITS = {"strict_tools": 20, "optional_parameters": 24, "union_parameters": 16}

#: Stop reasons after which the turn's tool calls must not run (``anthropic.types.StopReason``).
FAILED_STOP_REASONS = frozenset({"refusal"})

#: Tokens of Anthropic's tool-use system prompt, added once per request with tools (Anthropic
#: "Tool use — pricing" table: 346 tokens for tool choice auto/none on Claude 4-family models).
TOOL_USE_SYSTEM_PROMPT_TOKENS = 346

#: Measured Anthropic tokens per ``o200k_base`` token of a tool's JSON declaration.
ESTIMATE_RATIO = 1.2

#: How good :meth:`AnthropicProfile.estimate_tokens` is (measured on the recordings).
ESTIMATE_ERROR = (
    "ratio from the one recorded same-model pair that differs only in tool and message text "
    "(claude-haiku-4-5, 542 -> 563 input tokens); the per-model tool-use preamble varied from 299 to 637 "
    "tokens across recordings, so treat per-tool numbers as +-25% and the set overhead as a floor"
)

#: Body fields ``messages.count_tokens`` accepts (``anthropic.types.MessageCountTokensParams``).
COUNT_TOKENS_FIELDS = (
    "messages",
    "model",
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "cache_control",
    "output_config",
    "speed",
)

#: Models that accept ``temperature`` and ``top_p`` together; every later model answers "`temperature`
#: and `top_p` cannot both be specified for this model".
_BOTH_SAMPLERS_OK = re.compile(r"(^|[./])claude-(3|instant|2|(sonnet|opus)-4-(0|2025))")  # also Bedrock/Vertex ids
#: A model id's family and version: ``claude-opus-4-6`` → (4, 6); ``claude-sonnet-4-20250514`` →
#: (4, 0) (a date is not a minor version); also inside provider ids (``anthropic.claude-...``).
_CLAUDE_VERSION = re.compile(r"claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+|preview)(?:[-.](\d{1,2}))?(?![0-9])")


#: Models that refuse a forced tool choice (rule ``anthropic.request.forced-tool-choice-model``):
#: Claude Fable 5.1 and Mythos 5.1, Opus 5.5 and Sonnet 5.5, with dates, dotted gateway spellings
#: and Bedrock/Vertex spellings.
_NO_FORCED_TOOL = re.compile(r"claude-(?:(?:fable|mythos)-5[-.]1|(?:opus|sonnet)-5[-.]5)(?![0-9])")


def model_key(model: Any) -> str:
    """The one spelling every model rule of this profile reads a model id in: without surrounding
    spaces, lower-cased, without a gateway's provider path (``anthropic/``), Bedrock's region and
    provider prefix (``us.anthropic.``) and version suffix (``-v1:0``), or Vertex AI's ``@`` snapshot
    (``claude-sonnet-4-5@20250929`` → ``claude-sonnet-4-5``), a gateway's dotted version dashed
    (``claude-opus-4.6`` → ``claude-opus-4-6``). ``"Claude-Opus-5-5"``,
    ``" claude-opus-5-5 "`` and ``"anthropic/claude-opus-5.5"`` get the rules of ``claude-opus-5-5``;
    a dated snapshot (``claude-opus-4-5-20251101``) keeps its date, which every rule reads past.
    ``""`` for a value that is not a string. The id sent is not changed by this: see
    :func:`model_id_problem` for the spellings the Claude API refuses."""
    return _model_key(model) if isinstance(model, str) else ""


@functools.lru_cache(maxsize=256)
def _model_key(model: str) -> str:
    name = model.strip().lower().rsplit("/", 1)[-1]
    name = name.rpartition("anthropic.")[2].partition("@")[0]
    return re.sub(r"(?<=\d)\.(?=\d)", "-", re.sub(r"-v\d+(:\d+)?$", "", name))


#: The host of the Claude API (the SDK's default ``base_url``), whose model ids are lower case.
CLAUDE_API_HOST = "api.anthropic.com"


def claude_api_endpoint(base_url: Any) -> bool:
    """Whether requests to ``base_url`` go to the Claude API itself: unset or empty (the SDK's
    default, ``https://api.anthropic.com``) or a URL on :data:`CLAUDE_API_HOST`."""
    from toolwire.adapter import on_vendor_host

    return on_vendor_host(base_url, CLAUDE_API_HOST)


def model_id_problem(model_id: Any, base_url: Any = None) -> str | None:
    """Why the Claude API would not find ``model_id`` as written (rule
    ``anthropic.request.model-id``), or ``None``: spaces around it (anywhere), or, when the
    requests go to the Claude API itself (``base_url`` unset or on :data:`CLAUDE_API_HOST`; a
    gateway's own names may differ), a Claude model id not in lower case or in a gateway's
    spelling (``anthropic/claude-sonnet-4-5``, ``claude-sonnet-4.5``); Bedrock's and Vertex AI's
    spellings (``us.anthropic.claude-sonnet-4-5-v1:0``, ``claude-sonnet-4-5@20250929``) are left
    to the client or proxy that takes them. The text says what to write (:func:`model_key`)."""
    if not isinstance(model_id, str):
        return None
    if model_id != model_id.strip():
        return (
            f"model id {model_id!r} has spaces around it; no Claude model id has any (the API answers an id with "
            f"them as an unknown model: 404 not_found_error): write {model_id.strip()!r}"
        )
    if model_id.endswith("/"):
        return (
            f"model id {model_id!r} ends with '/': no model has such an id (the API answers it as an unknown "
            "model: 404 not_found_error); write the model's id, e.g. 'claude-sonnet-4-5'"
        )
    key = model_key(model_id)
    own = _claude_api_id(key)
    if model_id in (key, own) or not key.startswith("claude-"):
        return None
    if "@" in model_id or "anthropic." in model_id.lower() or re.search(r"-v\d+(:\d+)?$", model_id):
        return None  # Bedrock's or Vertex AI's spelling: a client or proxy for those may take it
    if not claude_api_endpoint(base_url):
        return None
    if model_id != model_id.lower():
        return (
            f"model id {model_id!r} is not a Claude model id: they are lower case and the Claude API matches them "
            f'exactly (it answers 404 not_found_error "model: {model_id}"): write {own!r}'
        )
    # a gateway's spelling (anthropic/..., a dotted version): the Claude API knows the model by its own id only
    return (
        f"model id {model_id!r} is a gateway's spelling of a Claude model id; the Claude API answers it "
        f'404 not_found_error "model: {model_id}": write {own!r}'
    )


#: The Claude 1 and 2 ids, whose version the Claude API itself writes with a dot (``claude-2.1``,
#: ``claude-2.0``, ``claude-instant-1.2``, ``claude-1.3``: the "API model name" column of Anthropic's
#: model deprecations page, https://docs.anthropic.com/en/docs/about-claude/model-deprecations; all
#: retired since), in :func:`model_key`'s dashed spelling.
_DOTTED_CLAUDE_IDS = re.compile(r"claude-(?:instant-)?[12]-\d")


def _claude_api_id(key: str) -> str:
    """The Claude API's own spelling of the model :func:`model_key` spells ``key``: ``key`` itself,
    except the Claude 1 and 2 ids, whose version keeps its dot (``claude-2-1`` → ``claude-2.1``,
    ``claude-instant-1-2`` → ``claude-instant-1.2``)."""
    if _DOTTED_CLAUDE_IDS.fullmatch(key):
        head, _, minor = key.rpartition("-")
        return f"{head}.{minor}"
    return key


def claude_version(model: Any) -> tuple[int, int] | None:
    """The (major, minor) version of a Claude model id: ``claude-opus-4-6`` → (4, 6),
    ``claude-sonnet-4-20250514`` → (4, 0), ``us.anthropic.claude-opus-4-7-v1:0`` → (4, 7),
    ``anthropic/claude-opus-4.6`` (a gateway's dotted spelling) → (4, 6),
    ``claude-fable-5`` → (5, 0); ``claude-mythos-preview`` counts as (5, 0) (the Claude 5
    generation); any case and surrounding spaces (:func:`model_key`). ``None`` for an id it
    cannot read."""
    m = _CLAUDE_VERSION.search(model_key(model))
    if m is None:
        return None
    major = 5 if m.group(1) == "preview" else int(m.group(1))
    return major, int(m.group(2) or 0)


def _paused_turn(message: dict[str, Any]) -> bool:
    """An assistant message that holds server-tool blocks (``server_tool_use``,
    ``web_search_tool_result``, ``mcp_tool_use``, ...): a turn paused with ``pause_turn``, which is
    sent back as the last message so the model continues it (not a prefill); or a ``compaction``
    block: a turn handed back with stop reason ``compaction`` (``pause_after_compaction``), which
    the next request continues the same way (``anthropic.lib.tools._beta_runner``: "resume")."""
    return any(
        (t := b.get("type")) in ("server_tool_use", "mcp_tool_use", "compaction")
        or (isinstance(t, str) and t.endswith("_tool_result") and t != "tool_result")
        for b in _blocks(message.get("content"))
    )


def takes_prefill(model: Any) -> bool:
    """Whether ``model`` accepts a conversation that ends with an assistant message (prefill):
    not Claude 4.6 and later ("This model does not support assistant message prefill. The
    conversation must end with a user message."); ``True`` for any id it cannot read."""
    version = claude_version(model)
    return version is None or version < (4, 6)


#: The most output tokens (``max_tokens``) each model takes, as (model-id pattern, tokens), first
#: match wins; a larger value is refused: "max_tokens: 128001 > 64000, which is the maximum allowed
#: number of output tokens for claude-opus-4-5-20251101" (anthropics/claude-code#24451; the same
#: text for claude-sonnet-4-5 in BerriAI/litellm#15715). The figures are the "Max output" rows of
#: the models overview (https://platform.claude.com/docs/en/about-claude/models/overview) and its
#: legacy table; Opus/Sonnet 4.6 and Opus 4.7/4.8 take 128K (their model pages; Effect-TS/effect
#: #7129 and aws-solutions-library-samples/...#424 corrected a 64K cap to it). Claude 3.7 Sonnet
#: takes 128K only with the ``output-128k-2025-02-19`` beta header, which toolwire does not send:
#: 64K here. A model id that matches no pattern (a new model) is not limited by toolwire.
MAX_OUTPUT_TOKENS: tuple[tuple[str, int], ...] = (
    (r"claude-3-(opus|sonnet|haiku)", 4096),
    (r"claude-3-5-(sonnet|haiku)", 8192),
    (r"claude-3-7-sonnet", 64000),
    (r"claude-opus-4(-0|-1)?", 32000),
    (r"claude-(sonnet-4(-0|-5)?|haiku-4-5|opus-4-5)", 64000),
    (r"claude-(sonnet-4-6|opus-4-[678])", 128000),
    (r"claude-(opus|sonnet|haiku|fable|mythos)-5(-\d{1,2})?", 128000),
)
_MAX_OUTPUT = tuple((re.compile(rf"{pattern}(-\d{{8}}|-latest)?"), tokens) for pattern, tokens in MAX_OUTPUT_TOKENS)
#: The smallest limit of the table: a ``max_tokens`` up to it is never looked up.
_LEAST_MAX_OUTPUT = min(tokens for _, tokens in MAX_OUTPUT_TOKENS)


@functools.lru_cache(maxsize=256)
def max_output_tokens(model: str) -> int | None:
    """The most output tokens ``model`` writes in one response (the largest ``max_tokens`` the
    Messages API takes for it), from :data:`MAX_OUTPUT_TOKENS`; ``None`` for an id it does not
    know. Provider ids are read too: Bedrock's ``us.anthropic.claude-sonnet-4-5-20250929-v1:0``
    and Vertex's ``claude-sonnet-4-5@20250929``."""
    name = model_key(model)
    for pattern, tokens in _MAX_OUTPUT:
        if pattern.fullmatch(name):
            return tokens
    return None


#: Block types that belong to one role only (``anthropic.types.MessageParam`` content unions).
_ASSISTANT_ONLY = frozenset({"tool_use", "thinking", "redacted_thinking", "server_tool_use"})
_USER_ONLY = frozenset({"tool_result"})

#: ``anthropic.types.ToolResultBlockParam`` ``Content`` union.
_TOOL_RESULT_BLOCKS = frozenset({"text", "image", "search_result", "document", "tool_reference", "browser_state"})

_THINKING = ("thinking", "redacted_thinking")


def _opening_type(blocks: list[Any]) -> Any:
    """The type of the block an assistant message's own output opens with, for the rules on
    where thinking goes: its first block past any leading server-side tool blocks
    (:func:`server_tool_block_types`), which the API itself puts before the model's thinking when
    a server tool ran first (a recorded claude-sonnet-5 answer with the code-execution tool opens
    with ``server_tool_use`` and ``bash_code_execution_tool_result`` and thinks after them, and
    the API took that message back unchanged: pydantic/pydantic-ai, cassette
    test_code_execution_files_vcr/test_anthropic_code_execution_files_cache_prefix_stable). The
    error text the rules come from names only the first block ("the first block must be thinking
    or redacted_thinking. Found text."); the two sources agree on a text block first. ``None`` for
    a message of server-side blocks only."""
    server = server_tool_block_types()
    for b in blocks:
        t = b.get("type") if isinstance(b, dict) else None
        if t not in server:
            return t
    return None


_MAX_MESSAGES = 100_000
_MAX_CACHE_BREAKPOINTS = 4

#: Prompt caching (https://docs.claude.com/en/docs/build-with-claude/prompt-caching, "Cache
#: limitations"): the minimum cacheable prompt length per model, as (model-id prefix, tokens),
#: first match wins; a shorter prefix is processed uncached without an error.
CACHE_MIN_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
    ("claude-haiku-3", 2048),
)
#: The minimum for every other model (Opus 4.1/4, Sonnet 4.5/4/3.7, ...), same source.
CACHE_MIN_TOKENS_DEFAULT = 1024
#: Breakpoints per request (same source; the API refuses more: "A maximum of 4 blocks with
#: cache_control may be provided").
CACHE_MAX_BREAKPOINTS = _MAX_CACHE_BREAKPOINTS
#: How far back from a breakpoint the API looks for an earlier cache entry, in content blocks
#: (same source, "the system automatically checks for cache hits at all previous content block
#: boundaries (up to approximately 20 blocks before your explicit breakpoint)").
CACHE_LOOKBACK_BLOCKS = 20
_EMPTY_ERROR_TEXT = "error: the tool failed without a message"


def _rule(id: str, summary: str, source: str, action: Action) -> Rule:
    return Rule(id=id, summary=summary, source=source, action=action)


#: Every Anthropic Messages rule toolwire checks, by id. ``action``: what toolwire does with a
#: request that breaks it (``repair``: fixed before sending, reported; ``report``: sent, reported;
#: ``refuse``: :class:`~toolwire.profile.RequestRefused` before anything is sent).
RULES: tuple[Rule, ...] = (
    # -- names and ids ------------------------------------------------------------------------
    _rule(
        "anthropic.tool.name",
        "A tool name matches ^[a-zA-Z0-9_-]{1,128}$.",
        "API error text \"tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'\" "
        "(modelcontextprotocol/modelcontextprotocol#1345); older texts and docs say {1,64} "
        "(modelcontextprotocol/typescript-sdk#413); anthropic.types.ToolParam.name states no pattern",
        "repair",
    ),
    _rule(
        "anthropic.tool.unique-names",
        "Tool names are unique within a request, the fixed names of Anthropic's own tools (web_search, "
        "code_execution, bash, str_replace_based_edit_tool, memory, ...) included.",
        'API error text "tools: Tool names must be unique." (eclipse-theia/theia#16122; for a custom tool named '
        "like the Anthropic memory tool declared beside it: microsoft/vscode#276110; a second web_search: "
        "danny-avila/LibreChat#13162, incidentfox/incidentfox#349); anthropic.types.WebSearchTool20250305Param.name "
        "(Required[Literal['web_search']]) and the other versioned tool params fix each such tool's name",
        "refuse",
    ),
    _rule(
        "anthropic.tool.web-search-domains-exclusive",
        "A web_search tool sets allowed_domains or blocked_domains, not both.",
        'anthropic.types.WebSearchTool20250305Param.allowed_domains ("Cannot be used alongside `blocked_domains`"; '
        'the same in WebSearchTool20260209Param and WebSearchTool20260318Param); web search tool docs ("You can use '
        'either allowed_domains or blocked_domains, but not both in the same request"); microsoft/vscode#314275',
        "refuse",
    ),
    _rule(
        "anthropic.tool.web-search-domains-empty",
        "A web_search tool's allowed_domains and blocked_domains are not empty lists: an empty blocked_domains "
        "(it blocks nothing) is left out; an empty allowed_domains is refused.",
        'API error text "tools.0.web_search_20250305.blocked_domains: Empty list of domains is ambiguous. Provide at '
        'least one domain or null." (CherryHQ/cherry-studio#10374; router-for-me/CLIProxyAPI#2681)',
        "repair",
    ),
    _rule(
        "anthropic.tool.defer-loading-cache-control",
        "A tool with defer_loading: true carries no cache_control (its breakpoint moves to the last tool before it "
        "that is not deferred, or is left out when there is none).",
        "API error text \"Tool 'tool_1' cannot have both defer_loading=true and cache_control set. Tools with "
        'defer_loading cannot use prompt caching." (router-for-me/CLIProxyAPI#4561, Wei-Shaw/sub2api#4990)',
        "repair",
    ),
    _rule(
        "anthropic.tool.defer-loading-all",
        "At least one tool is not deferred (defer_loading: true on every tool is refused).",
        'API error text "At least one tool must have defer_loading=false. All tools cannot be deferred." '
        "(https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool#error-handling)",
        "refuse",
    ),
    _rule(
        "anthropic.tool_use.id",
        "tool_use ids and tool_result tool_use_ids match ^[a-zA-Z0-9_-]+$.",
        "API error text \"String should match pattern '^[a-zA-Z0-9_-]+$'\" (HKUDS/nanobot#4356)",
        "repair",
    ),
    _rule(
        "anthropic.tool_use.unique-ids",
        "Every tool_use id in the request is unique.",
        'API error text "messages.1.content.1: `tool_use` ids must be unique" (anthropics/claude-code#20901)',
        "repair",
    ),
    _rule(
        "anthropic.tool_use.input",
        "tool_use.input is a JSON object.",
        "anthropic.types.ToolUseBlockParam.input: Dict[str, object]",
        "refuse",
    ),
    # -- input schema -------------------------------------------------------------------------
    _rule(
        "anthropic.schema.root-type-object",
        'input_schema has "type": "object" at the top level.',
        "anthropic.types.tool_param.InputSchemaTyped.type: Required[Literal['object']]",
        "refuse",
    ),
    _rule(
        "anthropic.schema.root-combinator",
        "input_schema has no oneOf, anyOf or allOf at the top level.",
        'API error text "tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the '
        'top level" (anthropics/claude-code#5973, langchain-ai/langchain#39271)',
        "repair",
    ),
    _rule(
        "anthropic.schema.root-ref",
        "input_schema's top level is an object schema, not a $ref to one.",
        "anthropic.types.tool_param.InputSchemaTyped.type: Required[Literal['object']]",
        "repair",
    ),
    _rule(
        "anthropic.schema.strict-subset",
        "A tool sent with strict: true uses only the strict-tool JSON Schema subset.",
        "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations; "
        "anthropic.lib._parse._transform.transform_schema",
        "repair",
    ),
    _rule(
        "anthropic.schema.strict-recursive",
        "A strict tool's schema is not recursive.",
        "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations "
        "(recursive schemas are not supported)",
        "repair",
    ),
    _rule(
        "anthropic.request.strict-limits",
        "At most 20 strict tools, 24 optional and 16 union-typed parameters across the strict schemas of a request.",
        "https://platform.claude.com/docs/en/build-with-claude/structured-outputs (schema complexity limits); "
        'beyond them: "The compiled grammar is too large" (alphaXiv/agents#49)',
        "repair",
    ),
    # -- request settings ---------------------------------------------------------------------
    _rule(
        "anthropic.request.max-tokens",
        "max_tokens is present and a non-negative integer.",
        "anthropic.types.MessageCreateParamsBase.max_tokens: Required[int] (0 pre-warms the prompt cache)",
        "refuse",
    ),
    _rule(
        "anthropic.request.model-id",
        "The model id is sent as written; every model rule reads it case-insensitively, without surrounding spaces, "
        "provider paths (anthropic/, us.anthropic., -v1:0, @date) or a dotted version (model_key). An id with spaces "
        "around it, or a Claude model id not in lower case sent to the Claude API itself (base_url unset or on "
        "api.anthropic.com), is refused when the model is made (ConfigurationError naming the id to write); through "
        "another base_url (a gateway) the id goes as written. toolwire.model('anthropic: claude-...') drops the spaces.",
        "https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions (every model id and alias is "
        "lower case: claude-{name}-{major}[-{minor}], before 4.6 with a -YYYYMMDD snapshot date); the API matches ids "
        'exactly: 404 not_found_error "model: claude-3-5-sonnet-20241022 " for an id with a trailing space '
        "(mattermost/mattermost-plugin-agents#257), and anthropic/CLAUDE-OPUS-4-7 or Claude-Opus-4-7 fail at the API "
        "while claude-opus-4-7 works (openclaw/openclaw#73715); the Claude 1 and 2 ids keep their dot (claude-2.1, "
        "claude-instant-1.2: https://docs.anthropic.com/en/docs/about-claude/model-deprecations)",
        "refuse",
    ),
    _rule(
        "anthropic.request.max-tokens-model",
        "max_tokens is at most the model's maximum output (Claude Haiku 3: 4096; Sonnet 3.5: 8192; Opus 4/4.1: 32000; "
        "Sonnet 4/4.5, Haiku 4.5, Opus 4.5: 64000; Sonnet/Opus 4.6 and later: 128000).",
        'API error "max_tokens: 128001 > 64000, which is the maximum allowed number of output tokens for '
        'claude-opus-4-5-20251101" (anthropics/claude-code#24451, BerriAI/litellm#15715); "Max output" of '
        "https://platform.claude.com/docs/en/about-claude/models/overview",
        "repair",
    ),
    _rule(
        "anthropic.request.messages-count",
        "messages holds 1 to 100,000 messages.",
        'anthropic.types.MessageCreateParamsBase.messages ("There is a limit of 100,000 messages in a single request")',
        "refuse",
    ),
    _rule(
        "anthropic.request.tool-choice-without-tools",
        "tool_choice is sent only with tools.",
        'anthropic.types.MessageCreateParamsBase.tool_choice ("How the model should use the provided tools"); the '
        "same rule on Chat Completions is the quoted 400 \"'parallel_tool_calls' is only allowed when 'tools' are specified\"",
        "repair",
    ),
    _rule(
        "anthropic.request.tool-blocks-need-tools",
        "A request whose messages hold tool_use or tool_result blocks declares tools.",
        'API error text "Requests which include `tool_use` or `tool_result` blocks must define tools." '
        "(anthropics/anthropic-sdk-python#494)",
        "repair",
    ),
    _rule(
        "anthropic.request.tool-choice-unknown-tool",
        "A tool_choice of type tool names a declared tool.",
        'anthropic.types.ToolChoiceToolParam.name ("The name of the tool to use")',
        "refuse",
    ),
    _rule(
        "anthropic.request.disable-parallel-placement",
        "disable_parallel_tool_use is a field of tool_choice auto, any or tool only.",
        "anthropic.types.ToolChoiceAutoParam / ToolChoiceAnyParam / ToolChoiceToolParam; ToolChoiceNoneParam has no such field",
        "repair",
    ),
    _rule(
        "anthropic.request.thinking-forced-tool",
        "Manual extended thinking (thinking.type 'enabled') allows only tool_choice auto or none.",
        'API error text "Thinking may not be enabled when tool_choice forces tool use." (mastra-ai/mastra#7507); '
        "adaptive thinking accepts forced tools (llm-exe/llm-exe#721, tested live)",
        "refuse",
    ),
    _rule(
        "anthropic.request.forced-tool-choice-model",
        "Claude Fable 5.1, Mythos 5.1, Opus 5.5 and Sonnet 5.5 take tool_choice auto or none only: a forced tool "
        "choice (any, tool) is refused before sending.",
        'API error text "tool_choice: type \\"tool\\" and \\"any\\" are not supported for this model." '
        "(claude-fable-5-1: BerriAI/litellm#39151); the Fable 5.1 migration guide as cited by "
        "withceleste/celeste-python#393 and UKGovernmentBEIS/inspect_ai#5176; "
        'https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5 ("Forced tool use returns an error", '
        "also on Fable 5.1) and https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5. Sources "
        "disagree on Claude Fable 5 and Mythos 5 (pydantic/pydantic-ai#5911 and Yeachan-Heo/gajae-code#482 saw "
        "refusals; celeste-python#393 reads the docs as accepting every type): they are not refused here. Fable 5.2 "
        "and Mythos 5.2 (whose what's-new page lists no change from Fable 5.1 here) and Haiku 5.5 (whose page does "
        "not list it) are not refused either: no source states it for them",
        "refuse",
    ),
    _rule(
        "anthropic.request.thinking-budget",
        "thinking.budget_tokens is at least 1024 and less than max_tokens.",
        'anthropic.types.ThinkingConfigEnabledParam.budget_tokens ("Must be ≥1024 and less than `max_tokens`"); API error '
        'text "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024" (themaximalist/llm.js#30)',
        "refuse",
    ),
    _rule(
        "anthropic.request.tool-choice-setting",
        "A tool choice given both as the request's tool_choice and as Anthropic's own tool_choice in the settings "
        "(extra_body) is sent once: the setting's stands where the request has none (parallel_tool_calls=False "
        "then adds disable_parallel_tool_use to it) or asks for the same type 'auto'; any other request tool "
        "choice replaces it, reported as lossy.",
        "anthropic.types.ToolChoiceAutoParam / ToolChoiceAnyParam (disable_parallel_tool_use belongs to the "
        "chosen type); the same request sent with tool_choice none and parallel_tool_calls false "
        "(QuantumNous/new-api#2763) shows the two settings meet in one field",
        "repair",
    ),
    _rule(
        "anthropic.request.thinking-effort-budget",
        "toolwire's thinking={'effort': E} on a model with manual thinking only (before Claude 4.6) is sent as "
        "budget_tokens (minimal/low 1024, medium 2048, high 4096, xhigh 8192, max 16384), and thinking counts "
        "against max_tokens: with max_tokens unset, max_tokens is raised to the budget plus 4096 for the answer (at "
        "most the model's maximum output) and reported; with max_tokens set, it is kept and a budget that does not "
        "fit below it is lowered (at least 1024) and reported as lossy.",
        'anthropic.types.ThinkingConfigEnabledParam.budget_tokens ("Must be ≥1024 and less than `max_tokens`"); '
        "https://platform.claude.com/docs/en/build-with-claude/extended-thinking (Claude thinks against budget_tokens "
        "before its final answer; its example sends max_tokens 16000 with budget_tokens 10000); the budgets are "
        "LiteLLM's for reasoning_effort on Claude (low 1024, medium 2048, high 4096)",
        "repair",
    ),
    _rule(
        "anthropic.request.stop-sequences-type",
        "stop_sequences is a list of strings: a single string, or an entry that is not a string, is refused before "
        "sending.",
        "anthropic.types.MessageCreateParamsBase.stop_sequences: SequenceNotStr[str] (a sequence of strings that is "
        "not itself a string)",
        "refuse",
    ),
    _rule(
        "anthropic.request.stop-sequences-blank",
        'Each stop sequence holds a character other than whitespace: one of only whitespace ("\\n") is left '
        "out and reported (the answer is not cut there).",
        'API error text "stop_sequences: each stop sequence must contain non-whitespace" (BerriAI/litellm#3286)',
        "repair",
    ),
    _rule(
        "anthropic.request.thinking-type-model",
        "Claude 4.7 and later (Opus 4.7/4.8, the Claude 5 family) take adaptive thinking only, and models before "
        "4.6 take manual thinking only (thinking.type 'enabled' / 'adaptive' is refused before sending; toolwire's "
        "thinking={'effort': ...} is sent in the form each model takes).",
        'API errors ""thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
        '"output_config.effort" to control thinking behavior." (earendil-works/pi#3297, anomalyco/opencode#22863) '
        'and "adaptive thinking is not supported on this model" (Sonnet/Haiku/Opus 4.5: vellum-ai/vellum-assistant'
        '#37276); anthropic.types.ThinkingConfigParam ("Which `type` values are accepted ... depend on the model")',
        "refuse",
    ),
    _rule(
        "anthropic.request.thinking-off-model",
        "thinking {'type': 'disabled'} goes only to a model that can turn thinking off: on Claude Opus 5.5 and the "
        "Fable and Mythos 5, 5.1 and 5.2 models thinking is always on, so it is sent as {'type': 'adaptive'} (what "
        "leaving thinking out means there); Sonnet 5.5 turns up-front thinking off with {'type': 'between_tools'}; "
        "Opus 5 and Haiku 5.5 take it at effort high or below, so an xhigh or max output_config.effort is sent as "
        "high. Each change is reported as lossy.",
        'API error text ""thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and '
        '"output_config.effort" to control thinking behavior." and "Thinking can\'t be disabled" (also on Fable 5.1), '
        "https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5, which says Opus 5 accepts disabled at "
        "effort high or below; https://platform.claude.com/docs/en/models/fable-5/migration-guide (Fable 5 and Mythos 5: "
        "disabled returns a 400; the same text quoted in ex-machina-co/opencode-anthropic-auth#160); "
        "https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2 (adaptive thinking always on); "
        "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 (turn off up-front thinking with "
        "between_tools); vercel/ai @ai-sdk/anthropic 2.0.109 (Haiku 5.5: thinking can be disabled up to high effort). "
        "Sources disagree on Claude Mythos Preview and Opus 4.7 (the Amazon Bedrock adaptive-thinking page lists "
        "disabled as refused there; Anthropic's pages do not): they are sent as asked",
        "repair",
    ),
    _rule(
        "anthropic.conversation.assistant-image",
        "An assistant message holds no image block: an image in one (a history from Gemini, which takes them) is "
        "sent as a short note in its place and reported as lossy.",
        "API error text \"'image' blocks are not permitted within assistant turns\" (epam/ai-dial-adapter-bedrock#306)",
        "repair",
    ),
    _rule(
        "anthropic.conversation.tool-result-image-type",
        "An image a tool returned in a format Anthropic does not read (by its bytes, else its declared type: "
        "not JPEG, PNG, GIF or WebP; an SVG, a BMP, a PDF) is sent as a short note in its place and reported "
        "as lossy, so the run goes on (the result stays in the conversation: refusing it would refuse every "
        "later request of the run). So is an image with no bytes (a result stored by hand).",
        "anthropic.types.Base64ImageSourceParam.media_type (image/jpeg, image/png, image/gif, image/webp); "
        "Claude vision docs (supported formats: JPEG, PNG, GIF, WebP)",
        "repair",
    ),
    _rule(
        "anthropic.request.thinking-model",
        "Claude models before Sonnet 3.7 (Claude 3 Haiku/Sonnet/Opus, Claude 3.5 Haiku/Sonnet, Claude 2 and "
        "Instant) have no extended thinking: a thinking setting other than 'disabled' is left out and reported "
        "as lossy (toolwire's thinking={'effort': ...} included), as a model that does not reason gets none "
        "on OpenAI.",
        "API error text \"'claude-3-5-haiku-20241022' does not support thinking.\" (anthropics/claude-code#12914, "
        "#11388; vibe-log/vibe-log-cli#6); the extended-thinking guide lists Sonnet 3.7 and the Claude 4 models "
        "as the ones that support it (quoted in router-for-me/CLIProxyAPI#1435)",
        "repair",
    ),
    _rule(
        "anthropic.request.effort-model",
        "output_config.effort takes the levels the model has: none before Opus 4.5 (Sonnet and Haiku 4.5, Opus "
        "4.1 and earlier, the Claude 3 family), low to high on Opus 4.5, low to high and max on Opus and Sonnet "
        "4.6 (not xhigh), all five from 4.7 on. An effort the model does not take is lowered to its highest "
        "level below it, or left out on a model without effort, and reported as lossy.",
        'API error text "This model does not support the effort parameter." (Sonnet 4.5: anthropics/claude-code'
        "#30795); https://platform.claude.com/docs/en/build-with-claude/effort (max from Opus 4.6, xhigh from Opus "
        "4.7: BerriAI/litellm#21112, langchain deepagents ANTHROPIC_EFFORTS_NO_MAX); a live check of every level "
        "(xhigh answered 400 on claude-opus-4-6 and claude-sonnet-4-6, max accepted: SkillfulAgents/SuperAgent"
        "#1142); Claude Code runs xhigh as high on Opus 4.6 (anthropics/claude-code#63320, #92387)",
        "repair",
    ),
    _rule(
        "anthropic.request.speed-model",
        "speed is sent only to a model with fast mode: Claude Opus 5.5, Fable 5.2 and Mythos 5.2, and Opus 5 (research "
        "preview, sent with the fast-mode-2026-02-01 beta header). For every other Claude model (Sonnet and Haiku of "
        "any version, Opus 4.8 and earlier, Fable and Mythos before 5.2, the Claude 3 family) and for a fast-mode "
        "model id ending in -fast, speed is left out ('fast' reported as lossy: the answer comes at standard speed). "
        "An Opus, Fable or Mythos model newer than these, and an id toolwire cannot read, are sent speed as asked.",
        "https://platform.claude.com/docs/en/build-with-claude/fast-mode (2026-12: available on Fable 5.2, Mythos 5.2 "
        "and Opus 5.5, research preview on Opus 5 with the beta header; fast mode on Opus 4.8 removed on 2026-11-30, "
        "after which 'requests to claude-opus-4-8 with speed: \"fast\" return an error'; 'Sending speed: fast with "
        "an unsupported model returns an error'; Foundry's fast-mode model ids take no speed); https://code.claude.com/docs/en/fast-mode "
        "('not on Sonnet, Haiku, or other models'); API error text \"'claude-opus-4-7' does not support the "
        "`speed` parameter.\" (NousResearch/hermes-agent#19517); anthropic.types.MessageCreateParamsBase.speed ('Some "
        "models require the `fast-mode-2026-02-01` beta header for any `speed` value'), without it \"speed: Extra "
        'inputs are not permitted" (zed-industries/zed#57707). Sources disagree on Opus 4.7 from 2026-05-12 to '
        "2026-07-24 (the docs gave it fast mode in research preview, quoted in zed-industries/zed#61341; "
        "NousResearch/hermes-agent#48342 saw it refused on 2026-06-18); since 2026-07-24 it errors. Opus 4.6 lost "
        "fast mode on 2026-06-29 and answers at standard speed without an error (zed#61341, hermes-agent#82348). "
        "Both are left out",
        "repair",
    ),
    _rule(
        "anthropic.request.field-values",
        "speed, output_config.effort, thinking.type and thinking.display take the values the installed SDK types "
        "them with (anthropic 2.14: speed 'standard' or 'fast'; effort low, medium, high, xhigh or max; thinking.type "
        "enabled, adaptive, disabled or between_tools; display summarized or omitted; the request-level "
        "cache_control's type ephemeral and ttl 5m or 1h); a thinking object needs a "
        "type and holds only the fields of its type's SDK param (toolwire's {'effort': E} takes none, minimal, low, "
        "medium, high, xhigh or max, and no other key); output_config, cache_control and diagnostics hold only the "
        "keys of their SDK TypedDicts when given as model settings. Another value or field is "
        "refused before sending, naming the allowed ones (and the closest key); given as a model setting it is a "
        "ConfigurationError when the model is made (extra_body sends an object's keys unchecked). A request field "
        "given as a model setting (inference_geo, container, context_management, metadata, stop_sequences, "
        "Anthropic's own thinking object, ...) holds a value of the JSON type the SDK gives it, walked into its "
        "objects and arrays: inference_geo=123, container=5 or context_management={'edits': [{'type': 5}]} is a "
        "ConfigurationError naming the type and the SDK field (a bool is not an integer; an integer is a number; "
        "extra_body is sent unchecked).",
        "anthropic.types.MessageCreateParamsBase.speed: Optional[Literal['standard', 'fast']]; "
        "anthropic.types.OutputConfigParam.effort: Optional[Literal['low', 'medium', 'high', 'xhigh', 'max']]; "
        "anthropic.types.ThinkingConfigParam (ThinkingConfigEnabledParam, ...DisabledParam, ...BetweenToolsParam, "
        "...AdaptiveParam: type Required[Literal[...]], display Optional[Literal['summarized', 'omitted']]); API error "
        '"thinking.adaptive.effort: Extra inputs are not permitted" (Wei-Shaw/sub2api#1619, '
        "immersive-translate/immersive-translate#3818) and thinking.disabled.display (anthropics/claude-code#69618); "
        "the value types: the field annotations of anthropic.types.MessageCreateParamsBase (inference_geo: "
        "Optional[str]; container: Union[ContainerParams, str, None]; stop_sequences: Sequence[str]) and "
        "anthropic.types.beta.MessageCreateParamsBase (context_management: Optional[BetaContextManagementConfigParam]) "
        "and the TypedDicts under them",
        "refuse",
    ),
    _rule(
        "anthropic.request.thinking-block-binding",
        "thinking.block_binding ({'prefix_mismatch_behavior': 'error' | 'drop_block'}, with thinking type adaptive "
        "or enabled) is sent with the anthropic-beta: thinking-binding-controls-2026-08-01 header, which toolwire "
        "adds to the request (to count_tokens and to a batch holding it too), keeping the betas the client sends.",
        'https://platform.claude.com/docs/en/build-with-claude/preserved-thinking ("Both the field and the '
        '`input_transformations` array require the `thinking-binding-controls-2026-08-01` beta header"; sent without '
        'it: 400 ending "block_binding: Extra inputs are not permitted"; "block_binding is accepted alongside '
        "thinking.type: 'adaptive' and thinking.type: 'enabled'\"); anthropic.types.beta.BetaThinkingConfigAdaptiveParam"
        ".block_binding, BetaThinkingBlockBindingParam, BetaThinkingPrefixMismatchBehavior; "
        "anthropic.types.AnthropicBetaParam ('thinking-binding-controls-2026-08-01')",
        "repair",
    ),
    _rule(
        "anthropic.request.thinking-temperature",
        "With thinking enabled or adaptive, temperature is 1 or absent.",
        'API error text "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode" '
        "(MayDay-wpf/snow-app#42)",
        "refuse",
    ),
    _rule(
        "anthropic.request.thinking-sampling",
        "With thinking, top_k is absent and top_p is between 0.95 and 1.",
        "https://platform.claude.com/docs/en/build-with-claude/extended-thinking (thinking is not compatible with "
        "temperature or top_k modifications; top_p may be set between 0.95 and 1)",
        "refuse",
    ),
    _rule(
        "anthropic.request.sampling-model",
        "Claude models after Opus 4.6 (Opus 4.7 and 4.8, the Claude 5 family) take no temperature, top_p or "
        "top_k: each is left out and reported (as lossy unless it is the default, temperature or top_p 1).",
        'API error text "`temperature` is deprecated for this model." (claude-opus-4-7: sipeed/picoclaw#2939, '
        "Mintplex-Labs/anything-llm#5461 on Bedrock; claude-opus-4-8 and claude-fable-5: The-PR-Agent/pr-agent#2456; "
        "sonnet-5: vogler75/monster-mq#168); https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-7 "
        '("Sampling parameters removed": temperature, top_p and top_k, cited by anomalyco/models.dev#1468). The '
        "messages reference says temperature 1.0 is still accepted (expectedparrot/edsl#2458); it is left out all the "
        "same, since it is the default.",
        "repair",
    ),
    _rule(
        "anthropic.request.service-tier",
        "service_tier is 'auto' or 'standard_only'.",
        "anthropic.types.MessageCreateParamsBase.service_tier: Literal['auto', 'standard_only'] (OpenAI's "
        "'priority', 'flex' or 'default' are not Anthropic values)",
        "refuse",
    ),
    _rule(
        "anthropic.request.metadata",
        "metadata is an object holding only user_id (a string of at most 256 characters, or null).",
        "anthropic.types.MetadataParam: TypedDict with the one key user_id: Optional[str] (OpenAI's free-form "
        "metadata pairs are not Anthropic's); API reference of metadata.user_id: maxLength 256 "
        "(platform.claude.com/docs/en/api/messages#metadata, quoted in vercel/ai#12419)",
        "refuse",
    ),
    _rule(
        "anthropic.request.sampling-range",
        "temperature and top_p are between 0 and 1; top_k is a non-negative integer.",
        'Messages API reference (temperature "Ranges from 0.0 to 1.0"); values valid on OpenAI (temperature up to 2) are '
        "out of range here",
        "refuse",
    ),
    _rule(
        "anthropic.request.temperature-and-top-p",
        "Claude 4.1 and later models take temperature or top_p, not both.",
        'API error text "`temperature` and `top_p` cannot both be specified for this model. Please use only one." '
        "(langfuse/langfuse#9882, skydiscover-ai/skydiscover#15)",
        "refuse",
    ),
    _rule(
        "anthropic.request.system-top-level",
        "Instructions go in the top-level system field (a string or text blocks); message roles are user and "
        "assistant, and system for a mid-conversation system message.",
        "anthropic.types.MessageParam: UserMessageParam | AssistantMessageParam | SystemMessageParam (role "
        "Literal['system'], content a string or text blocks); MessageCreateParamsBase.system",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.system-message-model",
        "A system message inside the conversation (role system) is sent only to a model that takes one: Claude "
        "Opus 4.8 and later Opus, Fable and Mythos models, and a model id toolwire cannot read.",
        'https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages ("available on '
        'Claude Opus 4.8 only" when published; "not available on Claude Sonnet 5"); API error text "role '
        "'system' is not supported on this model\" (older models); pydantic/pydantic-ai lists claude-opus-4-8, "
        "claude-opus-5, claude-fable-5 and claude-mythos-5 and measured that Sonnet 5 accepts the message but "
        "ignores it: toolwire takes that list",
        "repair",
    ),
    _rule(
        "anthropic.conversation.system-message-placement",
        "A system message inside the conversation comes right after a user message (or another system message), "
        "and holds text (and the beta tool_addition / tool_removal blocks) only.",
        'Claude Opus 4.8 release notes: role system messages are accepted "immediately after a user turn in the '
        'messages array (subject to placement rules)" (quoted in simonw/llm-anthropic#73); '
        "anthropic.types.SystemMessageParam.content: str | Iterable[TextBlockParam]; "
        'BetaRequestToolAdditionBlockParam / BetaRequestToolRemovalBlockParam ("Mid-conversation directive")',
        "refuse",
    ),
    _rule(
        "anthropic.schema.property-keys",
        "Every property key of an input schema matches ^[a-zA-Z0-9_.-]{1,64}$ (others are sent renamed; the model's "
        "renamed keys reach the tool under its own names).",
        "API error \"tools.0.custom.input_schema.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'\" "
        "(anthropics/claude-code#79418, ComposioHQ/composio#3500)",
        "repair",
    ),
    _rule(
        "anthropic.request.system-empty-text",
        "The system prompt, as a string or as each of its text blocks, holds non-whitespace text.",
        'API error texts "system: text content blocks must be non-empty" (t8y2/dbx#1298, JetBrains/koog#716) and '
        '"system: text content blocks must contain non-whitespace text" (agentjido/req_llm#711)',
        "repair",
    ),
    _rule(
        "anthropic.request.cache-control-limit",
        "At most 4 blocks carry cache_control.",
        'API error text "A maximum of 4 blocks with cache_control may be provided. Found 5."; '
        "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
        "refuse",
    ),
    # -- conversation -------------------------------------------------------------------------
    _rule(
        "anthropic.conversation.first-user",
        "The first message is a user message.",
        "Sources disagree: API error text 'messages: first message must use the \"user\" role' (lobehub/lobehub#1601, "
        "2024; still Bedrock's rule) vs. the first-party API accepting an assistant first "
        "(anthropics/anthropic-sdk-typescript#622) and the SDK's messages docs, which do not require it",
        "report",
    ),
    _rule(
        "anthropic.conversation.consecutive-roles",
        "Consecutive messages of one role are one turn.",
        'anthropic.types.MessageCreateParamsBase.messages ("Consecutive user or assistant turns in your request will '
        'be combined into a single turn")',
        "repair",
    ),
    _rule(
        "anthropic.conversation.block-role",
        "tool_use, thinking and redacted_thinking blocks are assistant content; tool_result blocks are user content.",
        "anthropic.types.MessageParam content unions",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.tool-result-placement",
        "Every tool_use is answered by a tool_result in the very next (user) message.",
        'API error text "`tool_use` ids were found without `tool_result` blocks immediately after: ... Each `tool_use` '
        'block must have a corresponding `tool_result` block in the next message." (anthropics/claude-code#7929)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.tool-results-first",
        "tool_result blocks come first in their user message.",
        "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls (tool results first, text after); "
        "otherwise the placement error above (vercel/ai#8474)",
        "repair",
    ),
    _rule(
        "anthropic.conversation.tool-result-orphan",
        "A tool_result answers a tool_use of the previous assistant message.",
        'API error text "unexpected `tool_use_id` found in `tool_result` blocks: ... Each `tool_result` block must have a '
        'corresponding `tool_use` block in the previous message." (anthropics/claude-code#18947)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.tool-result-once",
        "A tool_use is answered by exactly one tool_result.",
        "follows from the placement and orphan rules (one result per tool_use id); no separate error text found",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.tool-result-content",
        "tool_result content is a string or text, image, search_result, document, tool_reference and browser_state blocks.",
        "anthropic.types.ToolResultBlockParam.content",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.tool-result-error-content",
        "An is_error tool_result has content.",
        'API error text "messages.4.content.0.tool_result: content cannot be empty if `is_error` is true" '
        "(jlevy/markform#153)",
        "repair",
    ),
    _rule(
        "anthropic.conversation.empty-text",
        "Text blocks are non-empty; user (and mid-conversation system) text blocks hold non-whitespace text.",
        'API error texts "messages: text content blocks must be non-empty" (anthropics/claude-code#59812) and '
        '"messages: text content blocks must contain non-whitespace text" (anthropics/claude-code#23369); a recorded '
        'request with a " " text block in an earlier assistant turn was accepted',
        "repair",
    ),
    _rule(
        "anthropic.conversation.empty-content",
        "Every message except a final assistant message has content.",
        'API error text "messages.0: all messages must have non-empty content except for the optional final assistant '
        'message" (anthropics/claude-code#6774)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.prefill-unsupported",
        "Claude 4.6 and later models take no final assistant message (prefill): the conversation ends with a user "
        "message.",
        'API error "This model does not support assistant message prefill. The conversation must end with a user '
        'message." (anomalyco/opencode#18421 for claude-opus-4-6, cortexkit/magic-context#511 for claude-sonnet-4-6)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.final-whitespace",
        "A final assistant message (prefill) does not end with whitespace.",
        'API error text "messages: final assistant content cannot end with trailing whitespace" (tailcallhq/forgecode#1872)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.thinking-signature",
        "thinking blocks carry their signature and redacted_thinking blocks their data, as Anthropic returned them.",
        'anthropic.types.ThinkingBlockParam.signature ("exactly as returned by the API ... a modified block results in a 400"); '
        'API error text "messages.1.content.0.thinking.signature: Field required" (justlovemaki/AIClient2API#437)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.thinking-unsigned",
        "An Anthropic thinking part without its signature (a redacted one without its data), in a history saved or "
        "edited without it, is left out of the request and reported as lossy.",
        'anthropic.types.ThinkingBlockParam.signature (required); API error text "messages.1.content.0.thinking.'
        'signature: Field required" (justlovemaki/AIClient2API#437)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.thinking-prefix-changed",
        "On a model that runs the prefix check on thinking blocks sent back (Claude Fable and Mythos 5.1 and later, "
        "Opus, Sonnet and Haiku 5.5 and later) and without thinking.block_binding 'drop_block': an Anthropic "
        "thinking part recorded as produced under another system prompt or other tools than the request's (a saved "
        "conversation continued with other instructions or tools) makes the request leave out every thinking "
        "block from the start of the conversation up to and including the last such part, reported as lossy, "
        "naming what changed; parts without a recorded prefix are sent as they are.",
        'https://platform.claude.com/docs/en/build-with-claude/preserved-thinking ("If the prefix differs from '
        'what you sent when the block was produced, that block and every later thinking block are invalid"; '
        "removing thinking blocks from the start of the conversation keeps the rest valid; API error text "
        '"messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different '
        'conversation."); models: preserved-thinking/prefix-checks (claude-fable-5-1, claude-fable-5-2, '
        "claude-mythos-5-1, claude-mythos-5-2, claude-opus-5-5, claude-sonnet-5-5, claude-haiku-5-5), where the "
        "Bedrock page claude-messages-thinking-block-binding names Claude Fable 5.1 only: toolwire takes the wider list",
        "repair",
    ),
    _rule(
        "anthropic.conversation.thinking-first",
        "An assistant message that holds thinking blocks starts with one (past any server-side tool blocks it opens with).",
        'API error text "If an assistant message contains any thinking blocks, the first block must be thinking or '
        'redacted_thinking. Found text." (anthropics/claude-code#20705); a recorded claude-sonnet-5 answer that opens '
        "with server_tool_use and bash_code_execution_tool_result and thinks after them was taken back unchanged "
        "(pydantic/pydantic-ai cassette test_anthropic_code_execution_files_cache_prefix_stable): the error names a "
        "text block first, the recording a server tool block first",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.thinking-in-tool-loop",
        "With manual extended thinking, the assistant message whose tool calls are being answered starts with a "
        "thinking block (past any server-side tool blocks it opens with).",
        'API error text "When `thinking` is enabled, a final `assistant` message must start with a thinking block '
        "(preceeding the lastmost set of `tool_use` and `tool_result` blocks) ... To avoid this requirement, disable "
        '`thinking`." (n8n-io/n8n#22550)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.thinking-when-disabled",
        "With thinking off, a final assistant message holds no thinking blocks.",
        'API error text "When thinking is disabled, an `assistant` message in the final position cannot contain '
        '`thinking`." (tailcallhq/forgecode#1853)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.final-block-thinking",
        "A final assistant message does not end with a thinking block.",
        'API error text "The final block in an assistant message cannot be `thinking`." (tailcallhq/forgecode#2107)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.image-media-type",
        "Base64 images are image/jpeg, image/png, image/gif or image/webp.",
        "anthropic.types.Base64ImageSourceParam.media_type",
        "repair",
    ),
    _rule(
        "anthropic.conversation.image-media-type-data",
        "A base64 image's media_type names the format its bytes are in (a PNG declared image/jpeg is sent as "
        "image/png, the change reported).",
        'API error text "messages.18.content.1.image.source.base64.data: Image does not match the provided media type '
        'image/png" (anthropics/claude-code#13131, #12015, #15746)',
        "repair",
    ),
    _rule(
        "anthropic.conversation.image-bytes",
        "A base64 image declared image/png, image/jpeg, image/gif or image/webp holds an image: no bytes, or "
        "bytes with no image signature that are text opening as markup or JSON (an HTML error or login page saved "
        "as a .png, an XML or JSON error body) in a user message are refused before sending. An image a tool returned with such bytes is sent as a short note in its "
        "place and reported as lossy, so the run goes on (the result stays in the conversation: refusing it "
        "would refuse every later request of the run). Types whose signature toolwire does not know are not "
        "judged by their bytes.",
        'API error text "Could not process image" for a .jpg file holding an HTML 404 page, then for every later '
        "request of the session (anthropics/claude-code#19031; the same for an HTML login page in #37111, and for "
        'a stub PNG in #32994); "messages.118.content.4.image.source.base64: image cannot be empty" for an empty '
        "image (anthropics/claude-code#12750)",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.image-url",
        "An image given by URL (an image source of type url, in a user message or a tool_result) holds an https "
        "URL; a data: URL is sent as a base64 source (the same bytes), and any other URL (http, file, ftp, a "
        "relative path, a data: URL without bytes) in a user message is refused. An image a tool returned by such "
        "a URL is sent as a short note in its place and reported as lossy, so the run goes on (the result stays in "
        "the conversation: refusing it would refuse every later request of the run).",
        'API error text "Only HTTPS URLs are supported." (BrokkAi/brokk-app#2269); anthropic.types.URLImageSourceParam '
        "(type 'url', url: str), which ToolResultBlockParam.content takes too (ImageBlockParam.source); "
        "https://platform.claude.com/docs/en/build-with-claude/vision (images by URL: an https URL). Sources disagree "
        "on http: LangChain's Anthropic integration sends http:// URLs as url sources (@langchain/anthropic "
        "_formatImage); toolwire follows the API's error text",
        "repair",
    ),
    _rule(
        "anthropic.request.size",
        "A Messages request body is at most 32 MB (checked on the JSON bytes about to be sent, against 32 MiB).",
        "https://platform.claude.com/docs/en/api/overview#request-size-limits (32 MB for the Messages API, 256 MB for "
        "Message Batches), quoted by an Anthropic maintainer in anthropics/anthropic-sdk-python#938; API error 413 "
        '"request_too_large": "Request exceeds the maximum size" (anthropics/claude-code#14567)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.image-size",
        "A base64 image is at most 5 MB (5,242,880 bytes once decoded).",
        "https://platform.claude.com/docs/en/build-with-claude/vision (API: maximum 5 MB per image). Sources disagree "
        'on what is measured and how much: the API error "image exceeds 5 MB maximum: 6275800 bytes > 5242880 bytes" '
        "counted the base64 text (lobehub/lobehub#14711, ai-ecoverse/slicc#117), while later reports give 10 MB of "
        "base64 (kolega-ai/kolega-code#354, can1357/oh-my-pi#10633); toolwire refuses only what both refuse, "
        "more than 5 MB decoded (6.7 MB of base64).",
        "refuse",
    ),
    _rule(
        "anthropic.conversation.image-dimensions",
        "A base64 image is at most 8000 pixels wide and 8000 pixels high.",
        'API error text "messages.7.content.2.image.source.base64.data: At least one of the image dimensions '
        'exceed max allowed size: 8000 pixels" (anthropics/claude-code#4778, anthropics/claude-code#11576); '
        "https://platform.claude.com/docs/en/build-with-claude/vision (maximum 8000x8000 px per image)",
        "refuse",
    ),
    _rule(
        "anthropic.request.many-image-dimensions",
        "In a request holding more than 20 images (earlier turns and tool results included), every "
        "image is at most 2000 pixels wide and 2000 pixels high.",
        'API error text "messages.19.content.27.image.source.base64.data: At least one of the image dimensions '
        'exceed max allowed size for many-image requests: 2000 pixels" (anthropics/claude-code#24630, '
        "langgenius/dify#11177); https://platform.claude.com/docs/en/build-with-claude/vision (more than 20 "
        "images: 2000x2000 px). Sources disagree: a test of 100 images of 8000x8000 px on claude-3-5-haiku "
        "was accepted (earendil-works/pi#120, 2025-12); the later error texts are followed",
        "refuse",
    ),
    _rule(
        "anthropic.request.media-count",
        "A request holds at most 100 images and document pages (earlier turns and tool results included).",
        'API error texts "Too much media: 0 document pages + 102 images > 100" (anthropics/claude-code#19822) '
        'and "too many images and documents: 104 + 1 > 100" (anthropics/claude-code#23392)',
        "refuse",
    ),
    _rule(
        "anthropic.conversation.document-title",
        f"A document block's title is 1 to {TITLE_MAX_CHARS} characters (or absent): a longer one (a DocumentPart "
        f"filename) is cut to {TITLE_MAX_CHARS} characters, its extension kept (reported, lossy: refused, a tool "
        "result's document would make every later request of the run refused); an empty one says nothing and is "
        "left out (reported).",
        "The Messages API's request schema, RequestDocumentBlock.title (string, minLength 1, maxLength 500, or null; "
        "the OpenAPI document of https://platform.claude.com/docs/en/api/messages, as copied in "
        "wavetermdev/waveterm aiprompts/anthropic-messages-api.md); ansari-project/ansari-backend#158 trims document "
        'titles because the API does "not [accept] titles longer than 500 characters". No quoted error text found',
        "repair",
    ),
    _rule(
        "anthropic.conversation.document-context",
        "A document block's context is at least 1 character (or absent): an empty context says nothing and is left "
        "out (reported).",
        "The Messages API's request schema, RequestDocumentBlock.context (string, minLength 1, or null; the OpenAPI "
        "document of https://platform.claude.com/docs/en/api/messages, as copied in wavetermdev/waveterm "
        "aiprompts/anthropic-messages-api.md). No quoted error text found",
        "repair",
    ),
    _rule(
        "anthropic.conversation.document-citations",
        "Citations are enabled on all or none of the document blocks of a request (earlier turns and tool results "
        "included): a request mixing documents with citations.enabled true and documents without it is refused "
        "before sending, naming the first document that differs from the first one.",
        'https://platform.claude.com/docs/en/build-with-claude/citations ("Currently, citations must be enabled on '
        'all or none of the documents within a request."), quoted in the review of UKGovernmentBEIS/inspect_ai#4527. '
        "No quoted error text found",
        "refuse",
    ),
)


# ---------------------------------------------------------------------------------------------
# small helpers over the wire body
# ---------------------------------------------------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as blocks (a string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _block_pointer(mi: int, content: Any, bi: int) -> str:
    return f"/messages/{mi}/content" if isinstance(content, str) else f"/messages/{mi}/content/{bi}"


def _ptr(mi: int, bi: int | None) -> str:
    """The pointer of block ``bi`` of message ``mi`` (``None``: the message's string content)."""
    return f"/messages/{mi}/content" if bi is None else f"/messages/{mi}/content/{bi}"


def _blank(text: Any) -> bool:
    return isinstance(text, str) and not text.strip()


def _repair_removed_sampling(body: dict[str, Any], report: Any) -> None:
    """``temperature``, ``top_p`` and ``top_k`` left out for a model that takes none of them
    (Claude 4.7 and later by :func:`claude_version`; rule ``anthropic.request.sampling-model``):
    "`temperature` is deprecated for this model." Reported as lossy unless the value is the
    default (temperature or top_p 1)."""
    model = body.get("model")
    version = claude_version(model)
    if version is None or version < (4, 7):
        return
    for key in ("temperature", "top_p", "top_k"):
        if key not in body:
            continue
        value = body.pop(key)
        default = key != "top_k" and type(value) in (int, float) and value == 1
        report.add(
            "anthropic.request.sampling-model",
            f"/{key}",
            f"{key} {value!r} left out: {model} takes no temperature, top_p or top_k (the API refuses "
            'them: "`temperature` is deprecated for this model.")',
            lossy=value is not None and not default,
        )


#: Claude model ids without extended thinking (before Sonnet 3.7): Claude 2 and Instant, the
#: Claude 3 family and Claude 3.5 Haiku/Sonnet, with their dated, ``-latest`` and Bedrock/Vertex
#: spellings (``anthropic.claude-3-5-sonnet-20240620-v1:0``, ``claude-3-5-haiku@20241022``).
_NO_THINKING = re.compile(r"claude-(?:instant|2(?![0-9])|3-(?:5-)?(?:haiku|sonnet|opus)(?![a-z]))")


def thinks(model: Any) -> bool:
    """Whether ``model`` may be sent a thinking setting (``False`` only for a Claude model known
    to have no extended thinking; ``True`` for any id toolwire cannot read)."""
    return _NO_THINKING.search(model_key(model)) is None


def _repair_thinking_model(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.request.thinking-model``: ``thinking`` (and an ``output_config.effort``)
    left out for a model without extended thinking, unless it is ``{"type": "disabled"}``."""
    thinking = body["thinking"]
    if isinstance(thinking, dict) and thinking.get("type") == "disabled":
        return
    del body["thinking"]
    model = body.get("model")
    report.add(
        "anthropic.request.thinking-model",
        "/thinking",
        f"thinking {thinking!r} left out: {model} has no extended thinking (the API refuses it: "
        f"\"'{model}' does not support thinking.\")",
        lossy=True,
    )
    oc = body.get("output_config")
    if isinstance(oc, dict) and "effort" in oc:
        rest = {k: v for k, v in oc.items() if k != "effort"}
        if rest:
            body["output_config"] = rest
        else:
            del body["output_config"]


#: ``output_config.effort`` levels, lowest first (``anthropic.types.OutputConfigParam.effort``).
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
#: Claude ids from before the Claude 4 naming (``claude-3-7-sonnet``, ``claude-3-5-haiku``, ``claude-2``,
#: ``claude-instant``), which :func:`claude_version` does not read: none takes an effort.
_OLD_CLAUDE = re.compile(r"claude-(?:instant|2(?![0-9])|3-)")
_OPUS_4_5 = re.compile(r"claude-opus-4[-.]5(?![0-9])")


def effort_levels(model: Any) -> frozenset[str] | None:
    """The ``output_config.effort`` levels ``model`` takes (rule ``anthropic.request.effort-model``):
    none before Opus 4.5, low to high on Opus 4.5, low to high and max on the 4.6 models, ``None``
    (every level, or a model toolwire cannot read) from 4.7 on."""
    version = claude_version(model)
    if version is None:
        return frozenset() if _OLD_CLAUDE.search(model_key(model)) else None
    if version >= (4, 7):
        return None
    if version == (4, 6):
        return frozenset({"low", "medium", "high", "max"})
    if version == (4, 5) and _OPUS_4_5.search(model_key(model)):
        return frozenset({"low", "medium", "high"})
    return frozenset()


def _repair_effort_model(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.request.effort-model``: an ``output_config.effort`` the model does not take
    lowered to its highest level below it (``xhigh`` → ``high`` on Opus 4.6), or left out (with
    ``output_config`` when nothing else is in it) on a model without effort; reported as lossy."""
    oc = body["output_config"]
    if not isinstance(oc, dict) or not isinstance(effort := oc.get("effort"), str) or effort not in EFFORT_LEVELS:
        return
    model = body.get("model")
    levels = effort_levels(model)
    if levels is None or effort in levels:
        return
    lower = [x for x in EFFORT_LEVELS[: EFFORT_LEVELS.index(effort)] if x in levels]
    if lower:
        oc["effort"] = lower[-1]
        detail = (
            f"output_config.effort {effort!r} sent as {lower[-1]!r}: {model} takes "
            f"{', '.join(x for x in EFFORT_LEVELS if x in levels)}"
        )
    else:
        del oc["effort"]
        if not oc:
            del body["output_config"]
        detail = (
            f"output_config.effort {effort!r} left out: {model} has no effort setting (the API refuses it: "
            '"This model does not support the effort parameter.")'
        )
    report.add("anthropic.request.effort-model", "/output_config/effort", detail, lossy=True)


#: Claude models with fast mode (``speed: "fast"``) on the Claude API, as (family, major, minor), each
#: with whether the API takes ``speed`` (any value) from it only with the :data:`FAST_MODE_BETA` header
#: (rule ``anthropic.request.speed-model``). The fast-mode docs (2026-12): available on Claude Fable 5.2,
#: Mythos 5.2 and Opus 5.5, in research preview (beta header) on Opus 5. Dated and provider spellings
#: (``claude-opus-5-5-20261020``, ``anthropic/claude-opus-5.5``) are the same model.
FAST_MODE_MODELS: Mapping[tuple[str, int, int], bool] = MappingProxyType(
    {
        ("opus", 5, 5): False,
        ("fable", 5, 2): False,
        ("mythos", 5, 2): False,
        ("opus", 5, 0): True,
    }
)
#: The ``anthropic-beta`` value a research-preview fast-mode model needs for any ``speed`` value
#: (``anthropic.types.AnthropicBetaParam``; ``MessageCreateParamsBase.speed``: "Some models require
#: the `fast-mode-2026-02-01` beta header for any `speed` value"); without it the API answers
#: "speed: Extra inputs are not permitted" (zed-industries/zed#57707).
FAST_MODE_BETA = "fast-mode-2026-02-01"
#: The ``anthropic-beta`` value ``thinking.block_binding`` needs (rule
#: ``anthropic.request.thinking-block-binding``; ``anthropic.types.AnthropicBetaParam``;
#: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking: "Both the field and the
#: `input_transformations` array require the `thinking-binding-controls-2026-08-01` beta header";
#: without it "block_binding: Extra inputs are not permitted").
THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
#: The newest version of each family with fast mode that toolwire knows; a later one (a model newer
#: than this table) is sent ``speed`` as asked.
_FAST_MODE_NEWEST = {
    family: max((v[1], v[2]) for v in FAST_MODE_MODELS if v[0] == family)
    for family in {f for f, _, _ in FAST_MODE_MODELS}
}
#: A Claude id's family and version (``claude-opus-5-5`` → ("opus", 5, 5); ``claude-opus-5-20260723``
#: → ("opus", 5, 0); ``claude-mythos-preview`` → ("mythos", 5, 0)), as :func:`claude_version` reads it.
_CLAUDE_FAMILY = re.compile(r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+|preview)(?:[-.](\d{1,2}))?(?![0-9])")
#: A fast-mode deployment id: Microsoft Foundry's fast-mode model ids end in ``-fast`` and take no
#: ``speed`` (the deployment sets it); gateways spell them so too (``anthropic/claude-opus-4.8-fast``).
_FAST_MODEL_ID = re.compile(r"claude-[a-z0-9.-]*-fast(?![a-z0-9])")


def _claude_model(model: Any) -> tuple[str, int, int] | None:
    m = _CLAUDE_FAMILY.search(model_key(model))
    if m is None:
        return None
    if m.group(2) == "preview":
        return m.group(1), 5, 0
    return m.group(1), int(m.group(2)), int(m.group(3) or 0)


def has_fast_mode(model: Any) -> bool:
    """Whether ``model`` may be sent ``speed`` (rule ``anthropic.request.speed-model``).

    ``True`` for the models of :data:`FAST_MODE_MODELS` (Opus 5.5, Fable 5.2, Mythos 5.2, Opus 5),
    for an Opus, Fable or Mythos model newer than every one toolwire knows (``claude-opus-6``: the
    API's own answer decides) and for an id toolwire cannot read as a Claude model. ``False`` for
    every other Claude model (Sonnet and Haiku of any version, Opus 4.8 and earlier, Fable and
    Mythos before 5.2, the Claude 3 family) and for a fast-mode deployment id ending in ``-fast``."""
    if _FAST_MODEL_ID.search(model_key(model)):
        return False
    key = _claude_model(model)
    if key is None:
        return not _OLD_CLAUDE.search(model_key(model))
    if key in FAST_MODE_MODELS:
        return True
    newest = _FAST_MODE_NEWEST.get(key[0])
    return newest is not None and (key[1], key[2]) > newest


#: The first version of each Claude family that runs the prefix check on the thinking blocks a
#: request sends back (preserved thinking: a block is valid only while the ``system``, ``tools``
#: and earlier messages are what the request that produced it sent). Sources disagree on the list:
#: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks lists
#: claude-fable-5-1, claude-fable-5-2, claude-mythos-5-1, claude-mythos-5-2, claude-opus-5-5,
#: claude-sonnet-5-5 and claude-haiku-5-5 ("Starting with Claude Fable 5.1", preserved-thinking);
#: the Bedrock page claude-messages-thinking-block-binding names Claude Fable 5.1 only. toolwire
#: takes the wider list, and every later version of these families (rule
#: ``anthropic.conversation.thinking-prefix-changed``).
PREFIX_CHECK_FROM: Mapping[str, tuple[int, int]] = MappingProxyType(
    {"fable": (5, 1), "mythos": (5, 1), "opus": (5, 5), "sonnet": (5, 5), "haiku": (5, 5)}
)


def runs_prefix_check(model: Any) -> bool:
    """Whether ``model`` checks each thinking block sent back against the prefix it was produced
    under (:data:`PREFIX_CHECK_FROM`): ``claude-fable-5-1``, ``claude-opus-5-5``,
    ``us.anthropic.claude-sonnet-5-5-v1:0`` → ``True``; ``claude-sonnet-4-5``, ``claude-opus-5``,
    ``claude-mythos-preview`` and an id toolwire cannot read → ``False``."""
    return _runs_prefix_check(model) if isinstance(model, str) else False


@functools.lru_cache(maxsize=64)
def _runs_prefix_check(model: str) -> bool:
    key = _claude_model(model)
    if key is None:
        return False
    first = PREFIX_CHECK_FROM.get(key[0])
    return first is not None and (key[1], key[2]) >= first


def with_beta(client: Any, beta: str, *more: str) -> dict[str, str]:
    """The ``anthropic-beta`` header for a request that needs ``beta`` (and ``more``): the betas the
    client already sends (its ``default_headers``, or its HTTP client's headers) with these added,
    comma-separated as the API reads them, so a per-request header does not replace them."""
    values: list[str] = []
    for headers in (
        getattr(client, "default_headers", None),
        getattr(getattr(client, "_client", None), "headers", None),
    ):
        try:
            value = headers.get("anthropic-beta") if headers is not None else None
        except Exception:  # an odd headers object: only the needed beta is sent
            value = None
        if isinstance(value, str):
            values += [v.strip() for v in value.split(",") if v.strip()]
    values += [beta, *more]
    return {"anthropic-beta": ",".join(dict.fromkeys(values))}


def body_betas(body: Mapping[str, Any]) -> list[str]:
    """The ``anthropic-beta`` values a Messages body needs, in this order: :data:`FAST_MODE_BETA`
    for ``speed`` on a research-preview fast-mode model (rule ``anthropic.request.speed-model``),
    :data:`THINKING_BINDING_BETA` for a ``thinking`` object holding ``block_binding`` (rule
    ``anthropic.request.thinking-block-binding``)."""
    out: list[str] = []
    if "speed" in body and fast_mode_beta(body.get("model")):
        out.append(FAST_MODE_BETA)
    thinking = body.get("thinking")
    if isinstance(thinking, Mapping) and "block_binding" in thinking:
        out.append(THINKING_BINDING_BETA)
    return out


def fast_mode_beta(model: Any) -> bool:
    """Whether a request to ``model`` carrying ``speed`` needs the ``anthropic-beta:``
    :data:`FAST_MODE_BETA` header (the research-preview fast-mode models: Opus 5)."""
    key = _claude_model(model)
    return key is not None and FAST_MODE_MODELS.get(key, False)


#: Request fields the installed SDK types with a closed set of values (rule
#: ``anthropic.request.field-values``), as paths into ``anthropic.types.MessageCreateParamsBase``:
#: ``speed`` (``Optional[Literal["standard", "fast"]]``), ``output_config.effort``
#: (``OutputConfigParam.effort``: low, medium, high, xhigh, max), ``thinking.type`` (the
#: ``ThinkingConfigParam`` members: enabled, disabled, between_tools, adaptive) and
#: ``thinking.display`` (summarized, omitted). ``service_tier`` has its own rule.
FIELD_VALUE_PATHS: tuple[tuple[str, ...], ...] = (
    ("speed",),
    ("output_config", "effort"),
    ("thinking", "type"),
    ("thinking", "display"),
    # the request-level cache_control (anthropic.types.CacheControlEphemeralParam: type 'ephemeral',
    # ttl '5m' or '1h')
    ("cache_control", "type"),
    ("cache_control", "ttl"),
)
_CROSS_PROVIDER_EFFORTS = "none, minimal, low, medium, high, xhigh or max"


@functools.lru_cache(maxsize=1)
def _thinking_fields() -> dict[str, frozenset[str]]:
    """``thinking.type`` → the fields that type of thinking object takes, read from the installed
    SDK's ``ThinkingConfigParam`` members (anthropic 2.14: enabled → type, budget_tokens,
    display; adaptive → type, display; disabled and between_tools → type), plus ``block_binding``
    where the beta's ``BetaThinkingConfigParam`` member of that type has it (adaptive, enabled)."""
    import typing

    from anthropic.types import ThinkingConfigParam
    from anthropic.types.beta import BetaThinkingConfigParam

    out: dict[str, frozenset[str]] = {}
    for params, only in ((ThinkingConfigParam, None), (BetaThinkingConfigParam, "block_binding")):
        for member in typing.get_args(params):
            hints = typing.get_type_hints(member)
            kinds = [a for a in typing.get_args(hints.get("type")) if isinstance(a, str)]
            for inner in typing.get_args(hints.get("type")):
                kinds += [a for a in typing.get_args(inner) if isinstance(a, str)]
            for kind in kinds:
                fields = frozenset(member.__annotations__)
                if only is None:
                    out[kind] = fields
                elif only in fields and kind in out:
                    # the beta's block_binding (rule anthropic.request.thinking-block-binding), sent
                    # with its anthropic-beta header: anthropic.types.beta.BetaThinkingConfigAdaptiveParam
                    # and BetaThinkingConfigEnabledParam
                    out[kind] = out[kind] | {only}
    return out


def _block_binding_problems(binding: Any) -> list[tuple[str, str]]:
    """Rule ``anthropic.request.field-values`` for ``thinking.block_binding``: ``null`` or an object
    whose one field ``prefix_mismatch_behavior`` is ``null``, ``"error"`` or ``"drop_block"``
    (``anthropic.types.beta.BetaThinkingBlockBindingParam``, ``BetaThinkingPrefixMismatchBehavior``)."""
    import typing

    from anthropic.types.beta import BetaThinkingPrefixMismatchBehavior

    values = [v for v in typing.get_args(BetaThinkingPrefixMismatchBehavior) if isinstance(v, str)]
    allowed = " or ".join(map(repr, values))
    if binding is None:
        return []
    if not isinstance(binding, Mapping):
        return [
            (
                "/thinking/block_binding",
                f"thinking.block_binding must be an object such as {{'prefix_mismatch_behavior': 'drop_block'}}, "
                f"got {binding!r} (anthropic.types.beta.BetaThinkingBlockBindingParam)",
            )
        ]
    out = []
    for key in binding:
        if key != "prefix_mismatch_behavior":
            out.append(
                (
                    f"/thinking/block_binding/{key}",
                    f"thinking.block_binding has no field {key!r}; its one field is prefix_mismatch_behavior "
                    f"({allowed}) (anthropic.types.beta.BetaThinkingBlockBindingParam)",
                )
            )
    value = binding.get("prefix_mismatch_behavior")
    if value is not None and value not in values:
        out.append(
            (
                "/thinking/block_binding/prefix_mismatch_behavior",
                f"thinking.block_binding.prefix_mismatch_behavior must be {allowed}, got {value!r} "
                "(anthropic.types.beta.BetaThinkingPrefixMismatchBehavior)",
            )
        )
    return out


#: Request objects whose keys :func:`field_value_problems` checks against the SDK's TypedDicts (the
#: thinking object has its own check by type; metadata has rule ``anthropic.request.metadata``; the
#: tool choice is the codec's own).
_KEYED_OBJECTS = ("output_config", "cache_control", "diagnostics")


def field_value_problems(body: Mapping[str, Any], *, keys: bool = False) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each field of :data:`FIELD_VALUE_PATHS` in ``body`` whose value
    the installed SDK's ``MessageCreateParamsBase`` does not allow (read from its ``Literal``
    types, :func:`toolwire.profile.literal_field_values`), and for a ``thinking`` object without a
    ``type`` (toolwire's ``{"effort": E}`` with an effort it does not know arrives so). Each message
    names the values to use. With ``keys`` (a model's settings, not a body: ``extra_body`` stays the
    way to send a field the installed SDK does not know yet), also each key of ``output_config``,
    ``cache_control`` and ``diagnostics`` that the SDK's TypedDict for it does not have."""
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from toolwire.profile import literal_value_problems

    out = literal_value_problems(
        body, MessageCreateParamsBase, FIELD_VALUE_PATHS, "anthropic.types.MessageCreateParamsBase"
    )
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, Mapping) else None
    fields = _thinking_fields().get(kind) if isinstance(kind, str) else None
    if isinstance(thinking, Mapping) and fields is not None:
        for key in thinking:
            if key not in fields:
                hint = (
                    ": the effort goes in output_config={'effort': ...}, or use toolwire's thinking={'effort': ...}"
                    if key == "effort"
                    else ""
                )
                out.append(
                    (
                        f"/thinking/{key}",
                        f"thinking {{'type': {kind!r}}} has no field {key!r} (the API answers \"thinking.{kind}.{key}: "
                        f'Extra inputs are not permitted"); it takes {", ".join(sorted(fields))}{hint}',
                    )
                )
    if (
        isinstance(thinking, Mapping)
        and fields is not None
        and "block_binding" in thinking
        and "block_binding" in fields
    ):
        out += _block_binding_problems(thinking["block_binding"])
    objects = {k: body[k] for k in _KEYED_OBJECTS if isinstance(body.get(k), Mapping)} if keys else None
    if objects:  # their keys, as the SDK's TypedDicts give them ("output_config.efort: Extra inputs are not permitted")
        from toolwire.profile import object_key_problems

        out += object_key_problems(objects, MessageCreateParamsBase, "anthropic.types.MessageCreateParamsBase")
    if isinstance(thinking, Mapping) and thinking and "type" not in thinking:
        out.append(
            (
                "/thinking/type",
                f"thinking {dict(thinking)!r} has no type: use Anthropic's {{'type': 'enabled', 'budget_tokens': N}}, "
                "{'type': 'adaptive'}, {'type': 'disabled'} or {'type': 'between_tools'}, or toolwire's "
                f"{{'effort': E}} with E one of {_CROSS_PROVIDER_EFFORTS} (anthropic.types.ThinkingConfigParam)",
            )
        )
    return out


def setting_type_problems(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(JSON pointer, message)`` for each request-field setting (a model setting sent as the
    request field of its name: :meth:`~toolwire_anthropic.AnthropicModel.request_fields`) whose value
    cannot be of the type the installed SDK gives that field (:func:`toolwire.profile.value_type_problems`):
    ``anthropic.types.MessageCreateParamsBase``, and for a field only the beta API types
    (``context_management``, ``mcp_servers``) ``anthropic.types.beta.MessageCreateParamsBase``.
    The API refuses such a value with a 400 ("inference_geo: Input should be a valid string").
    ``thinking`` is read in Anthropic's own form only (with a ``type``); the common settings
    (``max_tokens``, ``temperature``, ...) have their own checks; a setting of ``None`` (unset) and
    ``extra_body`` are sent unchecked."""
    from anthropic.types.beta.message_create_params import MessageCreateParamsBase as BetaParams
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from toolwire.adapter import COMMON_SETTINGS
    from toolwire.profile import value_type_problems

    from .codec import _CANONICAL_FIELDS

    plain, beta = _request_field_names()
    given: dict[str, Any] = {}
    given_beta: dict[str, Any] = {}
    for name, value in settings.items():
        if value is None or name in COMMON_SETTINGS or name in _CANONICAL_FIELDS:
            continue  # (a setting of None is sent as null, as before: left to the API and the per-request rules)
        if name in plain:
            given[name] = value
        elif name in beta:
            given_beta[name] = value
    thinking = settings.get("thinking")
    if isinstance(thinking, Mapping) and "type" in thinking:
        given["thinking"] = thinking
    return value_type_problems(given, MessageCreateParamsBase) + value_type_problems(given_beta, BetaParams)


@functools.lru_cache(maxsize=1)
def _request_field_names() -> tuple[frozenset[str], frozenset[str]]:
    """The fields of ``anthropic.types.MessageCreateParamsBase`` and of the beta's."""
    import typing

    from anthropic.types.beta.message_create_params import MessageCreateParamsBase as BetaParams
    from anthropic.types.message_create_params import MessageCreateParamsBase

    return frozenset(typing.get_type_hints(MessageCreateParamsBase)), frozenset(typing.get_type_hints(BetaParams))


def _repair_speed_model(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.request.speed-model``: ``speed`` left out for a model without fast mode
    (lossy unless it is ``"standard"`` or null, the default) and for a fast-mode deployment id
    (lossy only for ``"standard"``: the deployment answers in fast mode)."""
    model = body.get("model")
    if has_fast_mode(model) or body["speed"] not in (None, "standard", "fast"):
        return  # (a value the SDK does not type is refused: rule anthropic.request.field-values)
    speed = body.pop("speed")
    if _FAST_MODEL_ID.search(model_key(model)):
        report.add(
            "anthropic.request.speed-model",
            "/speed",
            f"speed {speed!r} left out: {model} is a fast-mode model id, which selects the speed itself "
            "and takes no speed field" + ("; the answer comes in fast mode" if speed == "standard" else ""),
            lossy=speed == "standard",
        )
        return
    documented = ", ".join(f"claude-{f}-{a}" + (f"-{b}" if b else "") for f, a, b in FAST_MODE_MODELS)
    report.add(
        "anthropic.request.speed-model",
        "/speed",
        f"speed {speed!r} left out: {model} has no fast mode (it is on {documented}; the API refuses "
        "speed for other models or runs them at standard speed)"
        + ("; the answer comes at standard speed" if speed not in (None, "standard") else ""),
        lossy=speed not in (None, "standard"),
    )


#: Models that cannot turn thinking off (rule ``anthropic.request.thinking-off-model``): thinking is
#: always adaptive, and ``{"type": "disabled"}`` answers 400. Sonnet 5.5 turns up-front thinking off
#: with ``{"type": "between_tools"}`` instead; Opus 5 and Haiku 5.5 take ``disabled`` at effort high
#: or below. As (family, major, minor), read by :func:`_claude_model`.
_THINKING_ALWAYS_ON = frozenset(
    {("opus", 5, 5)} | {(family, 5, minor) for family in ("fable", "mythos") for minor in (0, 1, 2)}
)
_THINKING_OFF_BETWEEN_TOOLS = frozenset({("sonnet", 5, 5)})
_THINKING_OFF_UP_TO_HIGH = frozenset({("opus", 5, 0), ("haiku", 5, 5)})


def _repair_thinking_off_model(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.request.thinking-off-model``: ``thinking: {"type": "disabled"}`` sent in the
    form the model takes (a new dict: the caller's setting may be shared), each change lossy."""
    model = body.get("model")
    key = _claude_model(model) if "mythos-preview" not in model_key(model) else None
    if key in _THINKING_ALWAYS_ON:
        body["thinking"] = {"type": "adaptive"}
        report.add(
            "anthropic.request.thinking-off-model",
            "/thinking",
            f"thinking {{'type': 'disabled'}} sent as {{'type': 'adaptive'}}: {model} cannot turn thinking off (the "
            "API refuses it: '\"thinking.type.disabled\" is not supported for this model.'); to think less, lower "
            "output_config.effort (toolwire's thinking={'effort': 'low'})",
            lossy=True,
        )
    elif key in _THINKING_OFF_BETWEEN_TOOLS:
        body["thinking"] = {"type": "between_tools"}
        report.add(
            "anthropic.request.thinking-off-model",
            "/thinking",
            f"thinking {{'type': 'disabled'}} sent as {{'type': 'between_tools'}}: {model} turns up-front thinking off "
            "that way and still writes short notes between tool calls",
            lossy=True,
        )
    elif key in _THINKING_OFF_UP_TO_HIGH:
        oc = body.get("output_config")
        effort = oc.get("effort") if isinstance(oc, dict) else None
        if isinstance(oc, dict) and effort in ("xhigh", "max"):
            body["output_config"] = {**oc, "effort": "high"}
            report.add(
                "anthropic.request.thinking-off-model",
                "/output_config/effort",
                f"output_config.effort {effort!r} sent as 'high': {model} takes thinking {{'type': 'disabled'}} only "
                "at effort high or below",
                lossy=True,
            )


def _repair_blank_system(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.request.system-empty-text``: a system prompt of only whitespace (a string,
    or text blocks each empty or whitespace-only) is left out; blank text blocks among others are
    dropped (a new list: the body's own may be shared). A ``cache_control`` on a dropped block
    goes with it (reported as lossy: that cache breakpoint is gone)."""
    system = body["system"]
    if _blank(system):
        del body["system"]
        report.add("anthropic.request.system-empty-text", "/system", "empty or whitespace-only system prompt left out")
        return
    if type(system) is not list:
        return
    keep = [b for b in system if not (isinstance(b, dict) and b.get("type") == "text" and _blank(b.get("text")))]
    if len(keep) == len(system):
        return
    for i, b in enumerate(system):
        if not any(b is k for k in keep):
            report.add(
                "anthropic.request.system-empty-text",
                f"/system/{i}",
                "empty or whitespace-only system text block left out"
                + (" with its cache_control breakpoint" if b.get("cache_control") is not None else ""),
                lossy=b.get("cache_control") is not None,
            )
    if keep:
        body["system"] = keep
    else:
        del body["system"]


def _thinking_on(body: dict[str, Any]) -> bool:
    """Whether the request has thinking on: ``thinking.type`` enabled, adaptive or between_tools,
    or no ``thinking`` at all to a model whose thinking is always on (:data:`_THINKING_ALWAYS_ON`:
    leaving it out means adaptive there)."""
    t = body.get("thinking")
    if isinstance(t, dict):
        return t.get("type") in ("enabled", "adaptive", "between_tools")
    model = body.get("model")
    if t is not None or "mythos-preview" in model_key(model):
        return False  # (sources disagree on Claude Mythos Preview: see thinking-off-model)
    return _claude_model(model) in _THINKING_ALWAYS_ON


def _thinking_manual(body: dict[str, Any]) -> bool:
    """Manual extended thinking (``thinking.type == "enabled"``): the mode the API's "must start
    with a thinking block" rule is quoted for; in adaptive mode the model itself may answer a turn
    without thinking."""
    t = body.get("thinking")
    return isinstance(t, dict) and t.get("type") == "enabled"


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str)]


def _tool_loop_assistant(msgs: list[Any]) -> int | None:
    """Index of the assistant message whose tool calls the request is answering (the "final
    assistant message" of the thinking rule): the last assistant message, when it is the last
    message or the message after it holds tool_result blocks."""
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if isinstance(m, dict) and m.get("role") == "assistant":
            if i == len(msgs) - 1:
                return i
            nxt = msgs[i + 1]
            if isinstance(nxt, dict) and any(b.get("type") == "tool_result" for b in _blocks(nxt.get("content"))):
                return i
            return None
    return None


def _turn_start_exact(msgs: list[Any], i: int) -> int:
    """The first message of the turn holding message ``i`` (consecutive dict messages of one role),
    as ``_check_messages`` finds it; ``-1`` when that meets a dict subclass (read the slow way)."""
    while i > 0:
        a, b = msgs[i - 1], msgs[i]
        if type(a) is not dict or type(b) is not dict:
            if isinstance(a, dict) and isinstance(b, dict):
                return -1
            return i
        if (a["role"] if "role" in a else None) != (b["role"] if "role" in b else None):
            return i
        i -= 1
    return i


def _image_bytes(data: str) -> int:
    return (len(data) * 3) // 4 - data[-2:].count("=") if data else 0


def _add_cache_controls(n: int, _i: int, m: Any) -> int:
    """``n`` plus the blocks of message ``m`` carrying ``cache_control``."""
    content = m.get("content") if isinstance(m, dict) else None
    if not isinstance(content, list):
        return n
    for b in content:
        if not isinstance(b, dict):
            continue
        n += b.get("cache_control") is not None
        inner = b.get("content")
        if isinstance(inner, list):
            n += sum(1 for c in inner if isinstance(c, dict) and c.get("cache_control") is not None)
    return n


def _add_tool_use_ids(seen: set[str], _i: int, m: Any) -> set[str]:
    """``seen`` (changed in place) plus the ``tool_use`` ids of message ``m`` when it is an
    assistant message."""
    if isinstance(m, dict) and m.get("role") == "assistant":
        seen.update(
            b["id"] for b in _blocks(m.get("content")) if b.get("type") == "tool_use" and isinstance(b.get("id"), str)
        )
    return seen


def _zero() -> int:
    return 0


def _schema_params(schema: Any) -> tuple[int, int]:
    """(optional parameters, parameters with union types) of a schema, counted over every object."""
    optional = union = 0
    stack = [schema]
    while stack:
        s = stack.pop()
        if isinstance(s, list):
            stack.extend(s)
            continue
        if not isinstance(s, dict):
            continue
        props = s.get("properties")
        if isinstance(props, dict):
            req = set(s.get("required") or [])
            for name, sub in props.items():
                if name not in req:
                    optional += 1
                if isinstance(sub, dict) and ("anyOf" in sub or isinstance(sub.get("type"), list)):
                    union += 1
        for k, v in s.items():
            if k in ("properties", "$defs") and isinstance(v, dict):
                stack.extend(v.values())
            elif k in ("items", "anyOf", "allOf"):
                stack.append(v)
    return optional, union


# ---------------------------------------------------------------------------------------------
# the profile
# ---------------------------------------------------------------------------------------------


#: Client-side tools: the model calls them with ``tool_use`` and your code runs them
#: (https://docs.claude.com/en/docs/agents-and-tools/tool-use/overview, "Client tools" / "Anthropic-
#: defined tools"); every other Anthropic-defined tool runs on Anthropic's servers.
CLIENT_TOOL_PREFIXES = ("bash_", "text_editor_", "computer_", "memory_")

#: The input the model sends to the client-side tools, as JSON Schema. Bash:
#: https://docs.claude.com/en/docs/agents-and-tools/tool-use/bash-tool ("command", or "restart":
#: true). Text editor: https://docs.claude.com/en/docs/agents-and-tools/tool-use/text-editor-tool
#: (commands view, str_replace, create, insert; text_editor_20250124 also undo_edit;
#: text_editor_20250728 adds view's max_characters setting, not an input field).
CLIENT_TOOL_INPUT: dict[str, dict[str, Any]] = {
    "bash_": {"type": "object", "properties": {"command": {"type": "string"}, "restart": {"type": "boolean"}}},
    "text_editor_": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": ["view", "str_replace", "create", "insert", "undo_edit"]},
            "path": {"type": "string"},
            "file_text": {"type": "string"},
            "old_str": {"type": "string"},
            "new_str": {"type": "string"},
            "insert_line": {"type": "integer"},
            "insert_text": {"type": "string"},
            "view_range": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["command", "path"],
    },
}


@functools.lru_cache(maxsize=1)
def anthropic_provider_tools() -> Mapping[str, ProviderToolInfo]:
    """Every Anthropic-defined tool type of the installed SDK (``anthropic.types.ToolUnionParam``
    members and their ``type``/``name`` literals), with its side (:data:`CLIENT_TOOL_PREFIXES`)
    and, for bash and the text editor, the input schema (:data:`CLIENT_TOOL_INPUT`)."""
    import typing

    from anthropic.types import ToolUnionParam

    out: dict[str, ProviderToolInfo] = {}
    for member in typing.get_args(ToolUnionParam):
        ann = getattr(member, "__annotations__", {})

        def text(x: Any) -> str:
            return str(getattr(x, "__forward_arg__", x) or "")

        types = re.findall(r"'([^']+)'", text(ann.get("type")))
        names = re.findall(r"Literal\['([^']+)'\]", text(ann.get("name")))
        for t in types:
            if t == "custom":
                continue
            side = "client" if t.startswith(CLIENT_TOOL_PREFIXES) else "server"
            schema = next((copy.deepcopy(v) for k, v in CLIENT_TOOL_INPUT.items() if t.startswith(k)), None)
            out[t] = ProviderToolInfo(
                t, names[0] if names else None, side, schema, f"anthropic.types.{member.__name__}"
            )
    return MappingProxyType(out)


@functools.lru_cache(maxsize=1)
def server_tool_block_types() -> frozenset[str]:
    """The content-block types that carry a server-side tool's call or result, read from the
    installed SDK: the members of ``anthropic.types.ContentBlock`` and
    ``anthropic.types.beta.BetaContentBlock`` whose ``type`` literal is ``server_tool_use`` /
    ``mcp_tool_use`` or ends in ``_tool_result`` (``web_search_tool_result``,
    ``code_execution_tool_result``, ``web_fetch_tool_result``, ``mcp_tool_result``, ...). The
    client ``tool_result`` block is not among them. The codec decodes these blocks into
    :class:`~toolwire.types.ProviderToolPart` values."""
    import typing

    from anthropic.types import ContentBlock
    from anthropic.types.beta import BetaContentBlock

    found: set[str] = set()
    for union in (ContentBlock, BetaContentBlock):
        inner = typing.get_args(union)[0] if typing.get_origin(union) is typing.Annotated else union
        for member in typing.get_args(inner):
            field = getattr(member, "model_fields", {}).get("type")
            for t in typing.get_args(field.annotation) if field is not None else ():
                if isinstance(t, str) and (t in ("server_tool_use", "mcp_tool_use") or t.endswith("_tool_result")):
                    found.add(t)
    found.discard("tool_result")
    return frozenset(found)


#: toolwire_anthropic.codec.wire_tool_names, looked up by the first call of
#: :meth:`AnthropicProfile.wire_tool_names`
_codec_wire_tool_names: Any = None


class AnthropicProfile(Profile):
    """Anthropic Messages (``POST /v1/messages``): one mode (strict is per tool).

    See :data:`RULES` for the rules and ``docs/rules/anthropic.md`` for what toolwire does with each.
    """

    api = API
    #: genai-prices provider id (``genai_prices/data.py``) and OpenTelemetry GenAI
    #: ``gen_ai.provider.name`` (semconv ``GenAiProviderNameValues.ANTHROPIC``).
    pricing_provider: str | None = "anthropic"
    telemetry_provider_name: str | None = "anthropic"
    rules: Mapping[str, Rule] = {r.id: r for r in RULES}
    messages_key: str | None = "messages"
    #: Request headers carrying the key (the SDK sends ``Authorization: Bearer``; the REST docs use ``x-api-key``).
    credential_headers: tuple[str, ...] = ("x-api-key", "authorization")
    #: Response headers naming the account (scrubbed from recordings).
    private_response_headers: tuple[str, ...] = ("anthropic-organization-id",)
    token_estimate_exact = False
    token_estimate_method = (
        "estimate: o200k_base count of each JSON declaration x 1.2, plus Anthropic's tool-use system prompt "
        "(346 tokens) once; Anthropic publishes no tokenizer"
    )

    #: Incremental repairs (:attr:`toolwire.profile.Profile.repair_window`): a message's repairs
    #: read only itself, whether it is the last message, and its neighbours (merges, results first).
    repair_window: int | None = 2

    # what the checks fold over a growing history, kept between requests (see PrefixFold); the
    # class values stand for a profile made without __init__ (copied by hand)
    _cache_controls: PrefixFold | None = None
    _tool_use_ids: PrefixFold | None = None
    #: (repaired messages list, start as encoded, start in the repaired list): set by repair_request
    _mapped_start: tuple[Any, int, int] | None = None
    #: (JSON copy of the fields other than messages, their number leaves, their check results)
    _top_memo: tuple[Any, Any, Any] | None = None

    def __init__(self, api: str | None = None, **settings: Any) -> None:
        super().__init__(api, **settings)
        self._cache_controls = PrefixFold(_add_cache_controls, _zero)
        self._tool_use_ids = PrefixFold(_add_tool_use_ids, set)

    def __repr__(self) -> str:
        return "AnthropicProfile()"

    def provider_tools(self) -> Mapping[str, ProviderToolInfo]:
        """Anthropic's own tools, by type: every member of the installed SDK's
        ``anthropic.types.ToolUnionParam`` with a ``type`` other than ``custom`` (its ``type`` and
        ``name`` literals read from the TypedDict annotations), see :func:`anthropic_provider_tools`."""
        return anthropic_provider_tools()

    def provider_tool_problems(self, tool_type: str, settings: Mapping[str, Any]) -> list[str]:
        """The declaration ``{"type", "name" (when the API fixes one), **settings}`` checked
        against its SDK type (the ``anthropic.types.*Param`` TypedDict named by the tool's
        ``source``), see :func:`toolwire.profile.declaration_problems`."""
        import anthropic.types

        from toolwire.profile import declaration_problems

        info = self.provider_tools().get(tool_type)
        sdk_type = getattr(anthropic.types, info.source.rpartition(".")[2], None) if info is not None else None
        if info is None or sdk_type is None:
            return []
        named = {"name": info.name} if info.name is not None else {}  # a toolset entry carries no name
        return declaration_problems({"type": tool_type, **named, **settings}, sdk_type)

    def cache_min_tokens(self, model: str | None = None) -> int | None:
        """The minimum cacheable prompt length of ``model`` (``settings["model"]`` when not
        given; read by :func:`model_key`), in tokens: :data:`CACHE_MIN_TOKENS`, else
        :data:`CACHE_MIN_TOKENS_DEFAULT`."""
        key = model_key(model or self.settings.get("model") or "")
        for prefix, tokens in CACHE_MIN_TOKENS:
            if key.startswith(prefix):
                return tokens
        return CACHE_MIN_TOKENS_DEFAULT

    def recognizes_model_id(self, model_id: str) -> bool:
        """``claude-*``: every Claude model id on the Messages API starts with it (the models
        overview, https://docs.anthropic.com/en/docs/about-claude/models: ``claude-sonnet-4-5``,
        ``claude-opus-4-1``, ``claude-3-5-haiku-latest``)."""
        return model_id.strip().lower().startswith("claude-")

    # -- recordings ---------------------------------------------------------------------------
    def recognizes_uri(self, uri: str) -> bool:
        """``POST …/v1/messages``, the endpoint of a model turn (any host: proxies keep the path).
        Not ``/v1/messages/count_tokens`` (its answer is a count, not a message) nor the batch
        endpoints (``/v1/messages/batches``), nor another API's ``…/messages`` (OpenAI's
        ``/v1/threads/{thread_id}/messages``): replay skips those."""
        from urllib.parse import urlsplit

        # the SDK posts every turn to base URL + "/v1/messages" (anthropic.resources.messages.Messages.create)
        return urlsplit(str(uri)).path.rstrip("/").endswith("/v1/messages")

    def recognizes_body(self, body: Any) -> bool:
        """A Messages body: ``messages`` and the required ``max_tokens``, no message with a Chat
        Completions role (``system``, ``developer``, ``tool``) and no Chat-shaped tool (``function``)."""
        if not (isinstance(body, dict) and isinstance(body.get("messages"), list) and "max_tokens" in body):
            return False
        if any(isinstance(m, dict) and m.get("role") not in ("user", "assistant") for m in body["messages"]):
            return False
        return not any(isinstance(t, dict) and "function" in t for t in body.get("tools") or [])

    # -- names --------------------------------------------------------------------------------
    def tool_name_error(self, name: object) -> str | None:
        """``None`` when ``name`` is a valid Anthropic tool name, else why not (rule ``anthropic.tool.name``)."""
        if not isinstance(name, str):
            return f"a tool name must be a string, got {type(name).__name__}"
        if TOOL_NAME_RULE.fullmatch(name):
            return None
        if not name:
            return "it is empty; Anthropic needs ^[a-zA-Z0-9_-]{1,128}$"
        if len(name) > 128:
            return f"it is {len(name)} characters long; Anthropic allows at most 128 (^[a-zA-Z0-9_-]{{1,128}}$)"
        bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_-"))})
        return (
            "it contains "
            + ", ".join(repr(c) for c in bad)
            + "; Anthropic allows letters, digits, '_' and '-' (^[a-zA-Z0-9_-]{1,128}$)"
        )

    # -- input schema -------------------------------------------------------------------------
    def translate_schema(
        self, schema: dict[str, Any], report: TranslationReport, *, strict: bool = False
    ) -> dict[str, Any]:
        """The ``input_schema`` to send for ``schema`` (never modified): root ``$ref`` merged, root
        combinators folded or removed (rules ``anthropic.schema.root-ref``/``root-combinator``),
        and, when the tool is sent with ``strict: true``, the strict-tool subset
        (``anthropic.schema.strict-subset``). Every change is in ``report`` with its pointer into
        ``schema``; ``report.strict_possible`` is ``False`` when ``strict`` must be dropped (a
        recursive schema, rule ``anthropic.schema.strict-recursive``; a typed map or a tuple,
        which the strict subset would narrow to empty values; a required name no property
        declares, which a closed object could never hold)."""
        out = rename_schema_keys(repair_root(schema, report), report)  # rule anthropic.schema.property-keys
        if not strict:
            return out
        loop = is_recursive(out)
        if loop is not None:
            report.strict_possible = False
            report.add(
                loop,
                "unsupported",
                "$ref",
                "the schema is recursive, which strict tools do not support: the tool is sent without strict "
                "(arguments are still validated against the original schema)",
                lossy=True,
            )
            return out
        shape = strict_narrowed(out)
        if shape is not None:
            report.strict_possible = False
            what = (
                "a required name no property declares cannot be sent under a strict tool's schema, whose objects "
                "are closed (no call would be valid)"
                if shape[1] == "required"
                else f"{shape[1]} (a map's or a tuple's items) cannot be expressed in a strict tool's schema, which "
                "would allow only an empty value there"
            )
            report.add(
                shape[0],
                "unsupported",
                shape[1],
                f"{what}: the tool is sent without strict (arguments are still validated against the original schema)",
                lossy=True,
            )
            return out
        report.strict_possible = True
        return strict_subset(out, report)

    # -- checks -------------------------------------------------------------------------------
    def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
        """Every rule the encoded ``/v1/messages`` body still breaks (pure). ``start``: index of the
        first message not checked before (earlier messages are only read as context for the
        placement rules). Pointers are RFC 6901 into ``body``.

        The rules on the body's fields other than ``messages`` (tools, tool choice, thinking,
        sampling, ``system``, ``max_tokens``) are checked once per distinct value of those fields
        (reused while they are equal to the last ones checked); the conversation rules are checked
        over the new messages in one pass."""
        if not isinstance(body, dict):
            return [Violation("anthropic.request.messages-count", "", "the request body is not a JSON object")]
        tools_found, before, after, top_cc, has_tools = self._check_top(body)
        out: list[Violation] = [*tools_found, *before] if tools_found or before else []
        msgs = body.get("messages")
        if not has_tools and any(
            b.get("type") in ("tool_use", "tool_result")
            for m in msgs or []
            if isinstance(m, dict)
            for b in _blocks(m.get("content"))
        ):
            out.append(
                Violation(
                    "anthropic.request.tool-blocks-need-tools",
                    "/tools",
                    "the messages hold tool_use or tool_result blocks, so the request must declare tools",
                )
            )
        if after:
            out += after
        start = max(0, int(start or 0)) if start else 0
        mapped = self._mapped_start
        if mapped is not None and mapped[0] is msgs and mapped[1] == start:
            start = mapped[2]  # the repair dropped or merged messages before start: same message, new index
        # the usual conversation first (one pass that proves no rule is broken), else every rule
        quick = self._quick_check_messages(body, msgs, start) if type(msgs) is list else None
        if quick is not None:
            n = top_cc + quick[0]
        else:
            fold = self._cache_controls
            if fold is not None and isinstance(msgs, list):
                n = top_cc + fold.fold(msgs)
            else:
                n = top_cc
                for i, m in enumerate(msgs or []):
                    n = _add_cache_controls(n, i, m)
        if n > _MAX_CACHE_BREAKPOINTS:
            out.append(
                Violation(
                    "anthropic.request.cache-control-limit",
                    "",
                    f"{n} blocks carry cache_control; Anthropic allows at most {_MAX_CACHE_BREAKPOINTS}",
                )
            )
        if quick is not None:
            if quick[1]:
                out += quick[1]
            return out
        out.extend(self._check_messages(body, start))
        if type(msgs) is list:
            out.extend(_media_violations(msgs, start))
            out.extend(_citation_violations(msgs, start))
        return out

    def _tools_with_refused_keys(self, tools: list[Any]) -> bool:
        """Whether a tool of ``tools`` has an input-schema property key Anthropic refuses (rule
        ``anthropic.schema.property-keys``). Reused while the tools are equal to the last ones
        looked at (a JSON copy of them is kept): the declarations rarely change within a run."""
        memo = self.__dict__.get("_keys_memo")
        if memo is not None and memo[0] == tools:
            return memo[1]
        found = any(
            type(t) is dict and type(schema := t.get("input_schema")) is dict and has_refused_keys(schema)
            for t in tools
        )
        try:
            kept = json.loads(json.dumps(tools))
        except (TypeError, ValueError):
            kept = None
        self.__dict__["_keys_memo"] = (kept, found) if kept is not None and kept == tools else None
        return found

    def _check_top(
        self, body: dict[str, Any]
    ) -> tuple[tuple[Violation, ...], tuple[Violation, ...], tuple[Violation, ...], int, bool]:
        """The checks of ``body``'s fields other than ``messages``: (tool violations, settings
        violations before and after the place of the message-dependent tool-blocks rule, the
        ``cache_control`` blocks among those fields, whether a tool is declared). Reused while
        those fields are equal (``==``, numbers of the same types) to the last ones checked; a JSON
        copy of them is kept."""
        top = body.copy()
        if "messages" in top:
            del top["messages"]
        memo = self._top_memo
        # == holds between True, 1 and 1.0, which these checks tell apart: the numbers' types are compared too
        if memo is not None and memo[0] == top and _same_number_types(top, memo[1]):
            return memo[2]
        tools = top.get("tools")
        found = tuple(self._tool_violations(tools)) if tools else ()
        before, after = self._check_settings(top)
        n = 1 if top.get("cache_control") is not None else 0
        for t in tools or []:
            n += isinstance(t, dict) and t.get("cache_control") is not None
        system = top.get("system")
        for b in system if isinstance(system, list) else []:
            n += isinstance(b, dict) and b.get("cache_control") is not None
        has_tools = any(isinstance(t, dict) for t in tools or [])
        result = (found, tuple(before), tuple(after), n, has_tools)
        try:
            kept = json.loads(json.dumps(top))
        except (TypeError, ValueError):
            self._top_memo = None
        else:
            self._top_memo = (kept, _number_leaves(kept), result) if kept == top else None
        return result

    def _tool_violations(self, tools: Any) -> tuple[Violation, ...] | list[Violation]:
        """:func:`_check_tools` of ``tools`` (memoized on their JSON text)."""
        try:
            text = json.dumps(tools, sort_keys=True, default=str)
        except TypeError:  # keys that do not sort (an int next to strings): JSON sends them as strings
            text = json.dumps(tools, default=str)
        return _check_tools(text)

    def _check_settings(self, body: dict[str, Any]) -> tuple[list[Violation], list[Violation]]:
        """The rules on the request's settings (``body`` without its messages), as the violations
        before and after the place of the tool-blocks rule (which reads the messages)."""
        before: list[Violation] = []
        out: list[Violation] = []
        add = lambda rule, ptr, msg, **kw: out.append(Violation(rule, ptr, msg, **kw))  # noqa: E731
        mt = body.get("max_tokens")
        if isinstance(mt, bool) or not isinstance(mt, int) or mt < 0:
            before.append(
                Violation(
                    "anthropic.request.max-tokens",
                    "/max_tokens",
                    f"max_tokens must be a non-negative integer (the Messages API requires it), got {mt!r}",
                )
            )
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        tc = body.get("tool_choice")
        if isinstance(tc, dict):
            ttype = tc.get("type")
            if not tools and ttype in ("any", "tool"):
                add(
                    "anthropic.request.tool-choice-without-tools",
                    "/tool_choice",
                    f"tool_choice {ttype!r} forces a tool call but the request declares no tools; declare the tool or drop the tool choice",
                )
            if ttype == "tool" and tools and tc.get("name") not in _tool_names(body):
                add(
                    "anthropic.request.tool-choice-unknown-tool",
                    "/tool_choice/name",
                    f"tool_choice names {tc.get('name')!r}, which is not one of the declared tools {_tool_names(body)}",
                    tool=tc.get("name") if isinstance(tc.get("name"), str) else None,
                )
            if ttype == "none" and "disable_parallel_tool_use" in tc:
                add(
                    "anthropic.request.disable-parallel-placement",
                    "/tool_choice/disable_parallel_tool_use",
                    "disable_parallel_tool_use is not a field of tool_choice 'none'",
                )
        thinking = body.get("thinking")
        ttype = thinking.get("type") if isinstance(thinking, dict) else None
        version = claude_version(body.get("model"))
        if ttype == "enabled" and version is not None and version >= (4, 7):
            add(
                "anthropic.request.thinking-type-model",
                "/thinking/type",
                f"{body.get('model')} takes no manual thinking (thinking.type 'enabled'): send "
                "thinking={'type': 'adaptive'} with output_config={'effort': ...}, or toolwire's thinking={'effort': ...}",
            )
        elif ttype == "adaptive" and version is not None and version < (4, 6):
            add(
                "anthropic.request.thinking-type-model",
                "/thinking/type",
                f"{body.get('model')} takes no adaptive thinking: send thinking={{'type': 'enabled', "
                "'budget_tokens': N}, or toolwire's thinking={'effort': ...}",
            )
        if (
            isinstance(tc, dict)
            and tc.get("type") in ("any", "tool")
            and _NO_FORCED_TOOL.search(model_key(body.get("model")))
        ):
            add(
                "anthropic.request.forced-tool-choice-model",
                "/tool_choice/type",
                f"{body.get('model')} takes tool_choice 'auto' or 'none' only, not {tc.get('type')!r} (a forced tool "
                "call): use tool_choice 'auto' and ask for the tool in the prompt, or a model that takes forced tools",
            )
        if ttype == "enabled" and isinstance(thinking, dict):
            if isinstance(tc, dict) and tc.get("type") in ("any", "tool"):
                add(
                    "anthropic.request.thinking-forced-tool",
                    "/tool_choice",
                    f"manual extended thinking (thinking.type 'enabled') allows only tool_choice 'auto' or 'none', got "
                    f"{tc.get('type')!r}; use tool_choice 'auto', or "
                    + (
                        "leave thinking out of this request"
                        if version is not None and version < (4, 6)  # adaptive thinking from Claude 4.6 on
                        else "adaptive thinking ({'type': 'adaptive'}) where the model supports forced tools"
                    ),
                )
            budget = thinking.get("budget_tokens")
            if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1024:
                add(
                    "anthropic.request.thinking-budget",
                    "/thinking/budget_tokens",
                    f"thinking.budget_tokens must be an integer of at least 1024, got {budget!r}",
                )
            elif isinstance(mt, int) and not isinstance(mt, bool) and 0 <= mt <= budget:
                # (a max_tokens below 0 is refused once, by rule anthropic.request.max-tokens)
                add(
                    "anthropic.request.thinking-budget",
                    "/thinking/budget_tokens",
                    f"thinking.budget_tokens ({budget}) must be less than max_tokens ({mt}); raise max_tokens or lower the budget",
                )
        temp, top_p, top_k = body.get("temperature"), body.get("top_p"), body.get("top_k")
        if ttype in ("enabled", "adaptive"):
            if temp is not None and temp != 1:
                add(
                    "anthropic.request.thinking-temperature",
                    "/temperature",
                    f"temperature may only be 1 (or unset) when thinking is {ttype}, got {temp!r}",
                )
            if top_k is not None:
                add("anthropic.request.thinking-sampling", "/top_k", f"top_k cannot be set when thinking is {ttype}")
            if isinstance(top_p, (int, float)) and not isinstance(top_p, bool) and not (0.95 <= top_p <= 1):
                add(
                    "anthropic.request.thinking-sampling",
                    "/top_p",
                    f"top_p must be between 0.95 and 1 when thinking is {ttype}, got {top_p!r}",
                )
        for key, value in (("temperature", temp), ("top_p", top_p)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1
            ):
                add(
                    "anthropic.request.sampling-range",
                    f"/{key}",
                    f"{key} must be a number from 0 to 1 on Anthropic, got {value!r}",
                )
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
            add("anthropic.request.sampling-range", "/top_k", f"top_k must be a non-negative integer, got {top_k!r}")
        for pointer, message in field_value_problems(body):
            add("anthropic.request.field-values", pointer, message)
        if "service_tier" in body and body["service_tier"] not in ("auto", "standard_only"):
            add(
                "anthropic.request.service-tier",
                "/service_tier",
                f"service_tier must be 'auto' or 'standard_only' on Anthropic, got {body['service_tier']!r}",
            )
        if "stop_sequences" in body and body["stop_sequences"] is not None:
            stops = body["stop_sequences"]
            if not isinstance(stops, list):
                add(
                    "anthropic.request.stop-sequences-type",
                    "/stop_sequences",
                    f"stop_sequences must be a list of strings, got {type(stops).__name__} {stops!r}: "
                    f"write stop_sequences=[{stops!r}]"
                    if isinstance(stops, str)
                    else f"stop_sequences must be a list of strings, got {type(stops).__name__}",
                )
            else:
                for i, stop in enumerate(stops):
                    if not isinstance(stop, str):
                        add(
                            "anthropic.request.stop-sequences-type",
                            f"/stop_sequences/{i}",
                            f"a stop sequence must be a string, got {stop!r}",
                        )
        if "metadata" in body:
            meta = body["metadata"]
            if not isinstance(meta, dict):
                add("anthropic.request.metadata", "/metadata", f"metadata must be an object, got {type(meta).__name__}")
            else:
                for key in meta:
                    if key != "user_id":
                        add(
                            "anthropic.request.metadata",
                            f"/metadata/{key}",
                            f"metadata takes only user_id on Anthropic, not {key!r}",
                        )
                uid = meta.get("user_id")
                if uid is not None and not isinstance(uid, str):
                    add("anthropic.request.metadata", "/metadata/user_id", f"user_id must be a string, got {uid!r}")
                elif isinstance(uid, str) and len(uid) > 256:
                    add(
                        "anthropic.request.metadata",
                        "/metadata/user_id",
                        f"user_id is {len(uid)} characters; the API takes at most 256: send a hash of it (an "
                        "opaque id, as the API asks)",
                    )
        model = body.get("model")
        if temp is not None and top_p is not None and not _BOTH_SAMPLERS_OK.search(model_key(model)):
            add(
                "anthropic.request.temperature-and-top-p",
                "/top_p",
                f"model {model!r} takes temperature or top_p, not both; set only one",
            )
        system = body.get("system")
        if (
            system is not None
            and not isinstance(system, str)
            and not (isinstance(system, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in system))
        ):
            add("anthropic.request.system-top-level", "/system", "system must be a string or a list of text blocks")
        elif _blank(system):
            add("anthropic.request.system-empty-text", "/system", "the system prompt must hold non-whitespace text")
        elif isinstance(system, list):
            for i, b in enumerate(system):
                if not (isinstance(b.get("text"), str) and b["text"].strip()):
                    add(
                        "anthropic.request.system-empty-text",
                        f"/system/{i}/text",
                        "each system text block must hold non-whitespace text",
                    )
        return before, out

    def _check_messages(self, body: dict[str, Any], start: int) -> list[Violation]:
        """The conversation rules, over the messages from ``start`` (with the turns before it
        they are checked against), in one pass; pointers are built only for violations."""
        out: list[Violation] = []
        add = lambda rule, ptr, msg, **kw: out.append(Violation(rule, ptr, msg, **kw))  # noqa: E731
        msgs = body.get("messages")
        if not isinstance(msgs, list) or not msgs:
            add(
                "anthropic.request.messages-count",
                "/messages",
                "messages must be a non-empty list: no message with content is left (empty and whitespace-only "
                "text is left out, Anthropic refuses it); send a message with text, an image or a tool result",
            )
            return out
        if len(msgs) > _MAX_MESSAGES:
            add(
                "anthropic.request.messages-count",
                "/messages",
                f"{len(msgs)} messages; Anthropic allows at most {_MAX_MESSAGES}",
            )
        n = len(msgs)
        lo = min(max(0, start - 1), n - 1)
        # context: the whole turn holding the last checked message and, when that is a user turn,
        # the assistant turn before it (a user turn's results are checked against it)

        def turn_start(i: int) -> int:
            while (
                i > 0
                and isinstance(msgs[i - 1], dict)
                and isinstance(msgs[i], dict)
                and msgs[i - 1].get("role") == msgs[i].get("role")
            ):
                i -= 1
            return i

        lo = turn_start(lo)
        if lo > 0 and isinstance(msgs[lo], dict) and msgs[lo].get("role") == "user":
            lo = turn_start(lo - 1)
        folds = self._tool_use_ids
        if folds is not None:
            seen_ids: set[str] = folds.fold(msgs, lo, set)
        else:  # a profile made without __init__ (copied by hand)
            seen_ids = set()
            for i, m in enumerate(msgs[:lo]):
                _add_tool_use_ids(seen_ids, i, m)
        check_block = self._check_block
        # turns: consecutive messages of one role (the API combines them); entries (mi, bi, block),
        # bi None for a string content (its one text block)
        turns: list[tuple[str, list[tuple[int, int | None, dict[str, Any]]]]] = []
        for mi in range(lo, n):
            m = msgs[mi]
            if not isinstance(m, dict):
                add(
                    "anthropic.request.system-top-level",
                    f"/messages/{mi}",
                    "a message must be an object with role and content",
                )
                continue
            role, content = m.get("role"), m.get("content")
            if role == "system":
                _check_system_message(
                    msgs, mi, add
                )  # (not a turn: the turns around it are read as if it were not there)
                continue
            if role != "user" and role != "assistant":
                add(
                    "anthropic.request.system-top-level",
                    f"/messages/{mi}/role",
                    f"message role must be 'user', 'assistant' or 'system', got {role!r}; instructions go in the "
                    "top-level system field",
                )
                continue
            final = mi == n - 1
            entries: list[tuple[int, int | None, dict[str, Any]]]
            if isinstance(content, str):
                entries = [(mi, None, {"type": "text", "text": content})]
                empty = not content
            elif isinstance(content, list):
                entries = [(mi, bi, b) for bi, b in enumerate(b for b in content if isinstance(b, dict))]
                empty = not entries
            else:
                add(
                    "anthropic.conversation.empty-content",
                    f"/messages/{mi}/content",
                    "content must be a string or a list of blocks",
                )
                continue
            if empty and not (final and role == "assistant"):
                add(
                    "anthropic.conversation.empty-content",
                    f"/messages/{mi}/content",
                    "every message except a final assistant message must have content",
                )
            if role == "assistant" and entries:
                first = _opening_type([e[2] for e in entries])
                if first not in _THINKING and any(e[2].get("type") in _THINKING for e in entries):
                    at = next(i for i, e in enumerate(entries) if e[2].get("type") == first)
                    add(
                        "anthropic.conversation.thinking-first",
                        _ptr(mi, entries[at][1]),
                        f"an assistant message holding thinking blocks must start with one, found {first!r}",
                    )
            for _, bi, b in entries:
                check_block(role, mi, bi, b, seen_ids, add, final=final)
            if turns and turns[-1][0] == role:
                turns[-1][1].extend(entries)
            else:
                turns.append((role, entries))
        # placement: every tool_use answered exactly once by the next turn, results first
        prev_role: str | None = None
        prev_entries: list[tuple[int, int | None, dict[str, Any]]] = []
        for role, entries in turns:
            if role != "user":
                prev_role, prev_entries = role, entries
                continue
            uses: dict[Any, tuple[int, int | None]] = (
                {b.get("id"): (mi, bi) for mi, bi, b in prev_entries if b.get("type") == "tool_use"}
                if prev_role == "assistant"
                else {}
            )
            answered: dict[Any, tuple[int, int | None]] = {}
            nres = 0
            for mi, bi, r in entries:
                if r.get("type") != "tool_result":
                    continue
                nres += 1
                rid = r.get("tool_use_id")
                if rid not in uses:
                    add(
                        "anthropic.conversation.tool-result-orphan",
                        _ptr(mi, bi),
                        f"tool_result {rid!r} answers no tool_use of the previous assistant message; drop it or include its call",
                        call_id=rid if isinstance(rid, str) else None,
                    )
                elif rid in answered:
                    add(
                        "anthropic.conversation.tool-result-once",
                        _ptr(mi, bi),
                        f"tool_use {rid!r} is already answered at {_ptr(*answered[rid])}",
                        call_id=rid,
                    )
                else:
                    answered[rid] = (mi, bi)
            if nres and any(e[2].get("type") != "tool_result" for e in entries[:nres]):
                first_other = next((mi, bi) for mi, bi, b in entries if b.get("type") != "tool_result")
                add(
                    "anthropic.conversation.tool-results-first",
                    _ptr(*first_other),
                    "tool_result blocks must come first in their user message",
                )
            for uid, at in uses.items():
                if uid not in answered:
                    add(
                        "anthropic.conversation.tool-result-placement",
                        _ptr(*at),
                        f"tool_use {uid!r} has no tool_result in the next message",
                        call_id=uid if isinstance(uid, str) else None,
                    )
            prev_role, prev_entries = role, entries
        self._check_final(body, msgs, add)
        return out

    @staticmethod
    def _check_final(body: dict[str, Any], msgs: list[Any], add: Any) -> None:
        """The rules on the final assistant message and, with manual thinking, on the assistant
        message whose tool calls the request answers."""
        n = len(msgs)
        thinking = body.get("thinking")
        thinking_type = thinking.get("type") if isinstance(thinking, dict) else None
        last = msgs[-1] if isinstance(msgs[-1], dict) else {}
        if last.get("role") == "assistant" and not takes_prefill(body.get("model")) and not _paused_turn(last):
            add(
                "anthropic.conversation.prefill-unsupported",
                f"/messages/{n - 1}",
                f"model {body.get('model')!r} does not take a final assistant message (prefill): end the conversation "
                "with a user message",
            )
        if last.get("role") == "assistant":
            lblocks = _blocks(last.get("content"))
            lptr = lambda bi: _block_pointer(n - 1, last.get("content"), bi)  # noqa: E731
            if lblocks and lblocks[-1].get("type") in _THINKING:
                add(
                    "anthropic.conversation.final-block-thinking",
                    lptr(len(lblocks) - 1),
                    "a final assistant message cannot end with a thinking block",
                )
            if not _thinking_on(body):
                for bi, b in enumerate(lblocks):
                    if b.get("type") in _THINKING:
                        add(
                            "anthropic.conversation.thinking-when-disabled",
                            lptr(bi),
                            "with thinking off, a final assistant message cannot hold thinking blocks",
                        )
            if lblocks and lblocks[-1].get("type") == "text":
                text = lblocks[-1].get("text")
                if isinstance(text, str) and text != text.rstrip():
                    add(
                        "anthropic.conversation.final-whitespace",
                        lptr(len(lblocks) - 1),
                        "a final assistant message cannot end with whitespace",
                    )
        if thinking_type == "enabled":
            ai = _tool_loop_assistant(msgs)
            if ai is not None:
                ab = _blocks(msgs[ai].get("content"))
                if any(b.get("type") == "tool_use" for b in ab) and _opening_type(ab) not in _THINKING:
                    add(
                        "anthropic.conversation.thinking-in-tool-loop",
                        _block_pointer(ai, msgs[ai].get("content"), 0),
                        "with thinking on, the assistant message whose tool calls are answered must start with a thinking block",
                    )

    def _quick_check_messages(
        self, body: dict[str, Any], msgs: list[Any], start: int
    ) -> tuple[int, list[Violation]] | None:
        """The usual conversation checked in one pass over the messages from ``start`` (with the
        turns before it they are checked against, as :meth:`_check_messages` reads them): the
        ``cache_control`` blocks of all messages and the violations, or ``None`` as soon as a
        message or block is outside what this pass knows to be valid — a block type other than
        text, ``tool_use``, a ``tool_result`` with text (or no) content, thinking; anything a rule
        may refuse; two consecutive messages of one role — and then :meth:`_check_messages`
        checks every rule. So this pass never decides a violation itself, except those of
        :meth:`_check_final` (run for a final assistant message or with thinking set)."""
        n = len(msgs)
        if not n or n > _MAX_MESSAGES:
            return None
        # the context, as _check_messages computes it: the turn of the message before start and,
        # for a user turn, the assistant turn before it
        lo = start - 1 if start > 0 else 0
        lo = _turn_start_exact(msgs, lo if lo < n else n - 1)
        if lo > 0:
            m = msgs[lo]
            if type(m) is dict and "role" in m and m["role"] == "user":
                lo = _turn_start_exact(msgs, lo - 1)
        if lo < 0:
            return None
        fold = self._tool_use_ids
        if fold is None:
            return None
        seen = fold.fold(msgs, lo, set)  # tool_use ids of the messages before lo (a copy)
        cc = 0
        uses: dict[Any, bool] | None = None  # the previous assistant message's tool_use ids -> answered
        prev_role = None
        rule = TOOL_USE_ID_RULE.fullmatch
        for mi in range(lo, n):
            m = msgs[mi]
            if type(m) is not dict:
                return None
            role = m["role"] if "role" in m else None
            if role == prev_role or (role != "user" and role != "assistant"):
                return None
            content = m["content"] if "content" in m else None
            user = role == "user"
            if type(content) is str:
                # one text block: "" is refused, so is whitespace-only user text
                if not content or (user and not content.strip()):
                    return None
                if user:
                    if uses:
                        return None  # a tool_use of the previous message left unanswered
                    uses = None
                else:
                    uses = {}
                prev_role = role
                continue
            if type(content) is not list or not content:
                return None
            if user:
                answered = 0
                other = False
                for b in content:
                    if type(b) is not dict:
                        return None
                    if "cache_control" in b and b["cache_control"] is not None:
                        cc += 1
                    btype = b["type"] if "type" in b else None
                    if btype == "tool_result":
                        if other:
                            return None  # tool_result blocks must come first
                        rid = b["tool_use_id"] if "tool_use_id" in b else None
                        if type(rid) is not str or rule(rid) is None:
                            return None
                        if uses is None or rid not in uses or uses[rid]:
                            return None  # an orphan, or answered twice
                        uses[rid] = True
                        answered += 1
                        rc = b["content"] if "content" in b else None
                        if type(rc) is str:
                            if "is_error" in b and b["is_error"] is True and not rc.strip():
                                return None
                        elif rc is not None or ("is_error" in b and b["is_error"] is True):
                            return None
                        continue
                    if btype != "text" or ("content" in b and type(b["content"]) is list):
                        return None
                    text = b["text"] if "text" in b else None
                    if type(text) is not str or not text.strip():
                        return None
                    other = True
                if uses and answered != len(uses):
                    return None  # a tool_use of the previous message left unanswered
                uses = None
            else:
                uses = {}
                thinking_first = None
                for b in content:
                    if type(b) is not dict or ("content" in b and type(b["content"]) is list):
                        return None
                    if "cache_control" in b and b["cache_control"] is not None:
                        cc += 1
                    btype = b["type"] if "type" in b else None
                    if thinking_first is None:
                        thinking_first = btype in _THINKING
                    if btype == "text":
                        text = b["text"] if "text" in b else None
                        if type(text) is not str or not text:
                            return None
                    elif btype == "tool_use":
                        uid = b["id"] if "id" in b else None
                        if type(uid) is not str or rule(uid) is None or uid in seen or uid in uses:
                            return None
                        inp = b["input"] if "input" in b else None
                        if type(inp) is not dict and not isinstance(inp, dict):
                            return None
                        uses[uid] = False
                        seen.add(uid)
                    elif btype == "thinking" or btype == "redacted_thinking":
                        if not thinking_first:
                            return None  # an assistant message holding thinking must start with it
                        key = "signature" if btype == "thinking" else "data"
                        sig = b[key] if key in b else None
                        if type(sig) is not str or not sig:
                            return None
                    else:
                        return None
            prev_role = role
        found: list[Violation] = []
        if prev_role == "assistant" or "thinking" in body:
            add = lambda rule, ptr, msg, **kw: found.append(Violation(rule, ptr, msg, **kw))  # noqa: E731
            self._check_final(body, msgs, add)
        fold = self._cache_controls
        if fold is not None:
            cc += fold.fold(msgs, lo)
        else:
            for i in range(lo):
                cc = _add_cache_controls(cc, i, msgs[i])
        return cc, found

    @staticmethod
    def _check_block(
        role: str, mi: int, bi: int | None, b: dict[str, Any], seen_ids: set[str], add: Any, *, final: bool
    ) -> None:
        """The rules on one content block (``bi`` ``None``: the message's string content)."""
        btype = b.get("type")
        if btype == "text":
            text = b.get("text")
            # "" is refused everywhere; whitespace-only text in user content is refused too, while an
            # earlier assistant turn's " " block is accepted (recorded: llm tools_parallel stream)
            if not isinstance(text, str) or text == "" or (role == "user" and not text.strip()):
                add("anthropic.conversation.empty-text", _ptr(mi, bi), "text blocks must hold non-whitespace text")
            return
        if role == "user" and btype in _ASSISTANT_ONLY:
            add("anthropic.conversation.block-role", _ptr(mi, bi), f"a user message cannot hold {btype} blocks")
        if role == "assistant" and btype in _USER_ONLY:
            add("anthropic.conversation.block-role", _ptr(mi, bi), f"an assistant message cannot hold {btype} blocks")
        if btype == "image":
            _check_image(_ptr(mi, bi), b, add)
        elif btype == "document":
            _check_document(_ptr(mi, bi), b, add)
        elif btype == "tool_use":
            uid = b.get("id")
            if not isinstance(uid, str) or not TOOL_USE_ID_RULE.fullmatch(uid):
                add(
                    "anthropic.tool_use.id",
                    f"{_ptr(mi, bi)}/id",
                    f"tool_use id {uid!r} does not match ^[a-zA-Z0-9_-]+$",
                    call_id=uid if isinstance(uid, str) else None,
                )
            elif uid in seen_ids:
                add(
                    "anthropic.tool_use.unique-ids",
                    f"{_ptr(mi, bi)}/id",
                    f"tool_use id {uid!r} is used twice in the request",
                    call_id=uid,
                )
            if isinstance(uid, str):
                seen_ids.add(uid)
            if not isinstance(b.get("input"), dict):
                add(
                    "anthropic.tool_use.input",
                    f"{_ptr(mi, bi)}/input",
                    "tool_use.input must be a JSON object",
                    call_id=uid if isinstance(uid, str) else None,
                )
        elif btype == "tool_result":
            rid = b.get("tool_use_id")
            cid = rid if isinstance(rid, str) else None
            if not isinstance(rid, str) or not TOOL_USE_ID_RULE.fullmatch(rid):
                add(
                    "anthropic.tool_use.id",
                    f"{_ptr(mi, bi)}/tool_use_id",
                    f"tool_use_id {rid!r} does not match ^[a-zA-Z0-9_-]+$",
                    call_id=cid,
                )
            content = b.get("content")
            if isinstance(content, list):
                for ci, c in enumerate(content):
                    ctype = c.get("type") if isinstance(c, dict) else None
                    if ctype == "text":
                        if not (isinstance(c.get("text"), str) and c["text"].strip()):
                            add(
                                "anthropic.conversation.empty-text",
                                f"{_ptr(mi, bi)}/content/{ci}",
                                "text blocks must hold non-whitespace text",
                                call_id=cid,
                            )
                    elif ctype not in _TOOL_RESULT_BLOCKS:
                        add(
                            "anthropic.conversation.tool-result-content",
                            f"{_ptr(mi, bi)}/content/{ci}",
                            f"a tool_result cannot hold {ctype!r} blocks (text, image, search_result, document, tool_reference, browser_state)",
                            call_id=cid,
                        )
                    elif ctype == "image":
                        _check_image(f"{_ptr(mi, bi)}/content/{ci}", c, add)
                    elif ctype == "document":
                        _check_document(f"{_ptr(mi, bi)}/content/{ci}", c, add, call_id=cid)
            elif content is not None and not isinstance(content, str):
                add(
                    "anthropic.conversation.tool-result-content",
                    f"{_ptr(mi, bi)}/content",
                    "tool_result content must be a string or a list of blocks",
                    call_id=cid,
                )
            if b.get("is_error") is True and (content is None or content == [] or _blank(content)):
                add(
                    "anthropic.conversation.tool-result-error-content",
                    f"{_ptr(mi, bi)}/content",
                    "an is_error tool_result must have content saying what went wrong",
                    call_id=cid,
                )
        elif btype == "thinking":
            if not (isinstance(b.get("signature"), str) and b["signature"]):
                add(
                    "anthropic.conversation.thinking-signature",
                    f"{_ptr(mi, bi)}/signature",
                    "a thinking block must carry the signature Anthropic returned with it",
                )
        elif btype == "redacted_thinking":
            if not (isinstance(b.get("data"), str) and b["data"]):
                add(
                    "anthropic.conversation.thinking-signature",
                    f"{_ptr(mi, bi)}/data",
                    "a redacted_thinking block must carry its data",
                )

    # -- repairs ------------------------------------------------------------------------------
    def repair_request(self, body: dict[str, Any], report: Any, *, start: int = 0, settled: int = 0) -> dict[str, Any]:
        """``body`` with every meaning-keeping repair applied, in place (the encoded body is the
        codec's fresh dict; no copy of a long history is made each turn) and returned. Each repair
        is recorded with ``report.add(rule, pointer, detail, lossy=...)``; pointers are into the
        body as encoded.

        Repairs: ``max_tokens`` above the model's maximum output lowered to it; strict dropped
        past the strict limits (lossy); an empty ``blocked_domains`` of a web search tool left out; a
        tool choice ``auto``/``none``
        without tools dropped; ``disable_parallel_tool_use`` off a ``none`` choice; image media
        type spellings (``image/jpg`` → ``image/jpeg``); ``thinking`` left out for a model
        without extended thinking (lossy); ``thinking`` ``disabled`` sent in the form the model takes
        (lossy); an ``output_config.effort`` the model does not take lowered
        or left out (lossy); ``speed`` left out for a model without fast mode (lossy for ``fast``); ``temperature``/``top_p``/``top_k`` left
        out for Claude 4.7 and later (lossy unless the default); empty and whitespace-only text blocks
        dropped; an empty ``is_error`` result given a text; empty messages dropped and
        consecutive same-role messages merged (results first); tool results moved first; with
        thinking on and an answered assistant message that does not start with thinking (a
        history from another provider), ``thinking`` left out of this request (lossy); with
        thinking off, thinking blocks dropped from a final assistant message; trailing
        whitespace stripped from a final assistant message; the first message being an
        assistant message reported (not changed).

        ``settled``: the messages before it need no repair and are left as they are (neither
        changed nor read for repairs; see :attr:`repair_window`)."""
        if not isinstance(body, dict):
            return body
        mt = body["max_tokens"] if "max_tokens" in body else None
        if type(mt) is int and mt > _LEAST_MAX_OUTPUT and type(model := body.get("model")) is str:
            most = max_output_tokens(model)
            if most is not None and mt > most:
                body["max_tokens"] = most
                report.add(
                    "anthropic.request.max-tokens-model",
                    "/max_tokens",
                    f"max_tokens {mt} sent as {most}: {model} writes at most {most} output tokens",
                )
        if "thinking" in body and not thinks(body.get("model")):
            _repair_thinking_model(body, report)
        thinking = body.get("thinking")
        if isinstance(thinking, dict) and thinking.get("type") == "disabled":
            _repair_thinking_off_model(body, report)
        if "output_config" in body:
            _repair_effort_model(body, report)
        if "speed" in body:
            _repair_speed_model(body, report)
        if "tools" in body and _any_strict(body["tools"]):
            _repair_strict_limits(body, report)
        if "tools" in body and type(body["tools"]) is list and self._tools_with_refused_keys(body["tools"]):
            _repair_property_keys(body, report)
        if "tools" in body and type(body["tools"]) is list:
            _repair_web_search_domains(body, report)
            _repair_deferred_cache_control(body, report)
        tc = body["tool_choice"] if "tool_choice" in body else None
        if tc is not None and isinstance(tc, dict):
            tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
            if not tools and tc.get("type") in ("auto", "none"):
                del body["tool_choice"]
                report.add(
                    "anthropic.request.tool-choice-without-tools",
                    "/tool_choice",
                    f"tool_choice {tc.get('type')!r} left out: the request declares no tools",
                )
            elif tc.get("type") == "none" and "disable_parallel_tool_use" in tc:
                del tc["disable_parallel_tool_use"]
                report.add(
                    "anthropic.request.disable-parallel-placement",
                    "/tool_choice/disable_parallel_tool_use",
                    "left out: tool_choice 'none' has no disable_parallel_tool_use",
                )
        if "system" in body:
            _repair_blank_system(body, report)
        if "stop_sequences" in body and isinstance(body["stop_sequences"], list):
            seqs = body["stop_sequences"]
            keep = [x for x in seqs if not _blank(x)]
            if len(keep) != len(seqs):
                body["stop_sequences"] = keep
                if not keep:
                    del body["stop_sequences"]
                report.add(
                    "anthropic.request.stop-sequences-blank",
                    "/stop_sequences",
                    f"{plural(len(seqs) - len(keep), 'stop sequence')} of only whitespace left out: "
                    f"{[x for x in seqs if _blank(x)]!r}",
                    lossy=True,
                )
        if "temperature" in body or "top_p" in body or "top_k" in body:
            _repair_removed_sampling(body, report)
        msgs = body["messages"] if "messages" in body else None
        if type(msgs) is not list and not isinstance(msgs, list):
            return body
        if any(
            type(m) is dict and "role" in m and m["role"] == "system" for m in msgs[settled:]
        ) and not takes_system_messages(body.get("model")):
            msgs = body["messages"] = _system_messages_as_user(msgs, settled, body.get("model"), report)
        if not (body["tools"] if "tools" in body else None):
            used = list(
                dict.fromkeys(
                    b.get("name")
                    for m in msgs
                    if isinstance(m, dict)
                    for b in _blocks(m.get("content"))
                    if b.get("type") == "tool_use" and isinstance(b.get("name"), str)
                )
            )
            has_results = any(
                b.get("type") == "tool_result" for m in msgs if isinstance(m, dict) for b in _blocks(m.get("content"))
            )
            if used or has_results:
                body["tools"] = [
                    {
                        "name": n,
                        "description": "Declared again because the conversation holds calls to it; not callable in this request.",
                        "input_schema": {"type": "object"},
                    }
                    for n in (used or ["tool"])
                ]
                if not isinstance(body.get("tool_choice"), dict):
                    body["tool_choice"] = {"type": "none"}
                report.add(
                    "anthropic.request.tool-blocks-need-tools",
                    "/tools",
                    f"the history holds tool calls but the request declares no tools: {plural(len(body['tools']), 'tool')} declared "
                    "again with an open schema and tool_choice 'none', so nothing can be called in this request",
                )
        first = msgs[0] if msgs else None
        if type(first) is dict:
            first_role = first["role"] if "role" in first else None
        else:
            first_role = first.get("role") if isinstance(first, dict) else None
        if first_role == "assistant":
            report.add(
                "anthropic.conversation.first-user",
                "/messages/0/role",
                "the first message is an assistant message: the Anthropic API accepts it, Bedrock and older API versions refuse it",
            )
        settled = max(0, min(int(settled or 0), len(msgs) - 1)) if settled else 0
        if _needs_no_message_repair(msgs, settled):
            # the usual conversation: no block to repair or leave out, no turns to merge or reorder
            # (what the loop below would find, in one pass); each message stays where it is
            n = len(msgs)
            self._mapped_start = (msgs, start, start if 0 <= start <= n else (0 if start < 0 else n))
        else:
            for mi in range(settled, len(msgs)):
                m = msgs[mi]
                if isinstance(m, dict):
                    _repair_message(mi, m, report, final=mi == len(msgs) - 1)
            body["messages"], where = _merge_turns(msgs, report, settled)
            # ``start`` indexes the body as encoded; the check reads the repaired list
            landed = [w for i in range(min(start, len(where)), len(where)) if (w := where[i]) is not None]
            self._mapped_start = (body["messages"], start, min(landed) if landed else len(body["messages"]))
            msgs = body["messages"]
        if "thinking" in body and _thinking_manual(body):
            ai = _tool_loop_assistant(msgs)
            if ai is not None:
                ab = _blocks(msgs[ai].get("content"))
                if any(b.get("type") == "tool_use" for b in ab) and _opening_type(ab) not in _THINKING:
                    thinking = body.pop("thinking")
                    report.add(
                        "anthropic.conversation.thinking-in-tool-loop",
                        "/thinking",
                        f"thinking ({thinking.get('type')}) left out of this request: the assistant message at /messages/{ai} "
                        "whose tool calls are being answered has no thinking block (it came from another provider or was "
                        "sent without thinking); Anthropic requires one then",
                        lossy=True,
                    )
        last = msgs[-1] if msgs else None
        if type(last) is dict:
            if "role" not in last or last["role"] != "assistant":
                return body
        elif not isinstance(last, dict) or last.get("role") != "assistant":
            return body
        if isinstance(last.get("content"), list):
            if not _thinking_on(body):
                kept = [b for b in last["content"] if not (isinstance(b, dict) and b.get("type") in _THINKING)]
                if len(kept) != len(last["content"]):
                    report.add(
                        "anthropic.conversation.thinking-when-disabled",
                        f"/messages/{len(msgs) - 1}/content",
                        "thinking blocks left out of the final assistant message: thinking is off",
                    )
                    last["content"] = kept
            content = last["content"]
            blank = 0
            while (
                blank < len(content)
                and isinstance(content[-1 - blank], dict)
                and content[-1 - blank].get("type") == "text"
                and isinstance(content[-1 - blank].get("text"), str)
                and not content[-1 - blank]["text"].strip()
            ):
                blank += 1
            if blank:  # trailing blank text blocks: nothing to continue from, left out
                at = f"/messages/{len(msgs) - 1}/content/{len(content) - blank}"
                if blank == len(content):
                    msgs.pop()  # an assistant message of only whitespace: no prefill at all
                    report.add(
                        "anthropic.conversation.final-whitespace",
                        f"/messages/{len(msgs)}",
                        "a final assistant message of only whitespace left out",
                    )
                    return body
                last["content"] = content = content[: len(content) - blank]
                report.add(
                    "anthropic.conversation.final-whitespace",
                    at,
                    "trailing whitespace-only text blocks left out of the final assistant message",
                )
            if (
                content
                and isinstance(content[-1], dict)
                and content[-1].get("type") == "text"
                and isinstance(content[-1].get("text"), str)
            ):
                text = content[-1]["text"]
                if text != text.rstrip() and text.strip():
                    content[-1]["text"] = text.rstrip()
                    report.add(
                        "anthropic.conversation.final-whitespace",
                        f"/messages/{len(msgs) - 1}/content/{len(content) - 1}/text",
                        "trailing whitespace stripped from the final assistant message",
                    )
        elif isinstance(last.get("content"), str):
            text = last["content"]
            if text != text.rstrip() and text.strip():
                last["content"] = text.rstrip()
                report.add(
                    "anthropic.conversation.final-whitespace",
                    f"/messages/{len(msgs) - 1}/content",
                    "trailing whitespace stripped from the final assistant message",
                )
            elif not text.strip():
                msgs.pop()
                report.add(
                    "anthropic.conversation.final-whitespace",
                    f"/messages/{len(msgs)}",
                    "a final assistant message of only whitespace left out",
                )
        return body

    # -- stop reasons -------------------------------------------------------------------------
    def wire_tool_names(self, names: Sequence[str]) -> Mapping[str, str]:
        """``{name: wire name}`` of the tools sent under another name (rule ``anthropic.tool.name``:
        a name Anthropic refuses, :func:`toolwire_anthropic.codec.wire_tool_names`)."""
        global _codec_wire_tool_names
        if _codec_wire_tool_names is None:  # (the codec imports this module: looked up once, on first use)
            from .codec import wire_tool_names

            _codec_wire_tool_names = wire_tool_names
        return _codec_wire_tool_names(names)

    def turn_failed(self, vendor_stop_reason: str | None) -> bool:
        """Whether a turn that stopped with Anthropic's ``stop_reason`` failed, so its tool calls
        are answered and not run: ``refusal`` (the model declined; ``stop_details.category`` says
        why). ``pause_turn`` (a server-tool loop paused: send the turn back as is),
        ``max_tokens`` and ``model_context_window_exceeded`` (output cut off: only a trailing,
        cut-off call is not run) are not failures (``anthropic.types.StopReason``)."""
        return vendor_stop_reason in FAILED_STOP_REASONS

    def context_window_full(self, vendor_stop_reason: str | None) -> bool:
        """``model_context_window_exceeded``: "The response filled the model's context window.
        Treat the response as truncated" (Anthropic, "Handling stop reasons";
        ``anthropic.types.StopReason``). A cut-off call is not run, and the run stops rather than
        send a conversation that no longer fits."""
        return vendor_stop_reason == "model_context_window_exceeded"

    def primary_usage(self, usage: Any) -> tuple[int | None, int | None]:
        """Anthropic's own ``usage.input_tokens`` (which leaves the cache reads and writes out of
        what toolwire's ``input_tokens`` counts) and ``usage.output_tokens``."""
        inp = usage.input_tokens
        if inp is not None:
            inp -= (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
        return inp, usage.output_tokens

    # -- tokens -------------------------------------------------------------------------------
    def estimate_tokens(self, tool_declarations: Sequence[dict[str, Any]]) -> int:
        """Offline estimate of the input tokens the tool declarations (``tools[]`` entries as sent)
        add to every request: ``round(o200k(json declaration) * ESTIMATE_RATIO)`` per tool plus
        :data:`TOOL_USE_SYSTEM_PROMPT_TOKENS` once for a non-empty set. Anthropic publishes no
        tokenizer; see :data:`ESTIMATE_ERROR` for how good this is."""
        from toolwire.design.tokens import count_text

        decls = list(tool_declarations or [])
        total = sum(
            round(count_text(json.dumps(d, ensure_ascii=False, sort_keys=True)) * ESTIMATE_RATIO) for d in decls
        )
        return total + (TOOL_USE_SYSTEM_PROMPT_TOKENS if decls else 0)

    async def count_tokens(self, body: dict[str, Any], **settings: Any) -> int | None:
        """Input tokens of ``body`` counted live by Anthropic (``POST /v1/messages/count_tokens``
        through the SDK's ``messages.count_tokens``; costs an API call, no output tokens).

        ``settings``: ``client`` (an ``anthropic.AsyncAnthropic``), or ``api_key`` /
        ``base_url`` / ``http_client`` / ``timeout`` / ``max_retries`` to build one (the key from
        ``ANTHROPIC_API_KEY`` otherwise). Only the fields the endpoint takes
        (:data:`COUNT_TOKENS_FIELDS`) are sent. Returns ``MessageTokensCount.input_tokens``.
        Raises :class:`~toolwire.errors.ConfigurationError` for an empty or malformed ``base_url``
        (or ``ANTHROPIC_BASE_URL``), :class:`~toolwire.errors.ProviderError` for API and transport errors and
        :class:`~toolwire.errors.ResponseDecodeError` for an answer that is not a token count."""
        import anthropic

        from toolwire.errors import ResponseDecodeError, ToolwireError
        from toolwire.transport import transport_error

        from .model import provider_error_from_sdk

        client = settings.get("client")
        if client is None:
            from toolwire.adapter import check_base_url

            from .model import AnthropicModel

            check_base_url(settings, AnthropicModel, shown="the anthropic token count")
            kwargs = {
                k: settings[k]
                for k in ("api_key", "base_url", "http_client", "timeout", "max_retries")
                if settings.get(k) is not None
            }
            client = anthropic.AsyncAnthropic(**kwargs)
        fields = {k: body[k] for k in COUNT_TOKENS_FIELDS if k in body}
        betas = body_betas(fields)  # rules anthropic.request.speed-model and thinking-block-binding
        if betas:
            fields["extra_headers"] = with_beta(client, *betas)
        try:
            result = await client.messages.count_tokens(**fields)
        except anthropic.APIError as exc:
            raise provider_error_from_sdk(exc) from exc
        except ToolwireError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ResponseDecodeError(
                API, f"the token count answer is not a MessageTokensCount ({type(exc).__name__}: {exc})"
            ) from exc
        except Exception as exc:
            raise transport_error(API, exc) from exc
        tokens = getattr(result, "input_tokens", None)
        if type(tokens) is not int or tokens < 0:
            raise ResponseDecodeError(
                API, f"the token count answer is not a MessageTokensCount: input_tokens is {tokens!r}, not a count"
            )
        return tokens


# ---------------------------------------------------------------------------------------------
# tools (memoized: the same declarations are sent every turn)
# ---------------------------------------------------------------------------------------------


def _duplicate_name(at: str, name: str, first: int, tools: list[Any]) -> Violation:
    """Rule ``anthropic.tool.unique-names``: the tool at ``at`` repeats the name of the tool at
    ``/tools/<first>``; when one of them is an Anthropic-defined tool (``web_search_20250305``,
    ``bash_20250124``, ``memory_20250818``, ...), whose name is fixed, the message says to rename
    the other one."""
    here = tools[int(at.rsplit("/", 1)[1])]
    fixed = [
        t.get("type")
        for t in (tools[first], here)
        if isinstance(t, dict) and isinstance(t.get("type"), str) and t.get("type") != "custom"
    ]
    if fixed:
        how = f"; the Anthropic tool {fixed[0]!r} has this name and no other: give your tool another name"
    else:
        how = ": give one of them another name"
    return Violation(
        "anthropic.tool.unique-names",
        f"{at}/name",
        f"tool name {name!r} is already declared at /tools/{first}{how}",
        tool=name,
    )


@lru_cache(maxsize=64)
def _check_tools_cached(tools_json: str) -> tuple[Violation, ...]:
    tools = json.loads(tools_json)
    out: list[Violation] = []
    seen: dict[str, int] = {}
    for i, t in enumerate(tools if isinstance(tools, list) else []):
        if isinstance(t, dict) and _is_web_search(t):
            out.extend(_web_search_domain_violations(i, t))
        if not isinstance(t, dict):
            continue
        name = t.get("name")
        at = f"/tools/{i}"
        if "input_schema" not in t or t.get("type") not in (None, "custom"):
            # a server (or Anthropic-defined client) tool: its own versioned shape, whose fixed name
            # ("web_search", "bash", "memory", ...) counts among the request's tool names
            if isinstance(name, str):
                if name in seen:
                    out.append(_duplicate_name(at, name, seen[name], tools))
                seen.setdefault(name, i)
            continue
        why = AnthropicProfile().tool_name_error(name)
        if why is not None:
            out.append(
                Violation(
                    "anthropic.tool.name",
                    f"{at}/name",
                    f"tool name {name!r} is not valid for Anthropic: {why}",
                    tool=name if isinstance(name, str) else None,
                )
            )
        if isinstance(name, str):
            if name in seen:
                out.append(_duplicate_name(at, name, seen[name], tools))
            seen.setdefault(name, i)
        schema = t.get("input_schema")
        tool = name if isinstance(name, str) else None
        if isinstance(schema, dict) and has_refused_keys(schema):
            out.append(
                Violation(
                    "anthropic.schema.property-keys",
                    f"{at}/input_schema",
                    "a property key does not match ^[a-zA-Z0-9_.-]{1,64}$",
                    tool=tool,
                )
            )
        if not isinstance(schema, dict) or schema.get("type") != "object":
            out.append(
                Violation(
                    "anthropic.schema.root-type-object",
                    f"{at}/input_schema/type",
                    f'input_schema must have "type": "object" at the top level, got {schema.get("type") if isinstance(schema, dict) else schema!r}',
                    tool=tool,
                )
            )
            continue
        for key in ROOT_COMBINATORS:
            if key in schema:
                out.append(
                    Violation(
                        "anthropic.schema.root-combinator",
                        f"{at}/input_schema/{key}",
                        f"input_schema cannot have {key} at the top level",
                        tool=tool,
                    )
                )
        if "$ref" in schema:
            out.append(
                Violation(
                    "anthropic.schema.root-ref",
                    f"{at}/input_schema/$ref",
                    "input_schema's top level must be an object schema, not a $ref",
                    tool=tool,
                )
            )
        if t.get("strict") is True:
            loop = is_recursive(schema)
            if loop is not None:
                out.append(
                    Violation(
                        "anthropic.schema.strict-recursive",
                        f"{at}/input_schema{loop}",
                        "a strict tool's schema cannot be recursive",
                        tool=tool,
                    )
                )
            for ptr, what in strict_problems(schema):
                out.append(
                    Violation(
                        "anthropic.schema.strict-subset",
                        f"{at}/input_schema{ptr if ptr != '/' else ''}",
                        what,
                        tool=tool,
                    )
                )
    declared = [(i, t) for i, t in enumerate(tools) if isinstance(t, dict)] if isinstance(tools, list) else []
    for i, t in declared:
        if t.get("defer_loading") is True and t.get("cache_control") is not None:
            out.append(
                Violation(
                    "anthropic.tool.defer-loading-cache-control",
                    f"/tools/{i}/cache_control",
                    "a tool with defer_loading: true cannot carry cache_control (deferred tools are not cached): "
                    "put the breakpoint on a tool that is not deferred",
                    tool=t.get("name") if isinstance(t.get("name"), str) else None,
                )
            )
    if declared and all(t.get("defer_loading") is True for _, t in declared):
        out.append(
            Violation(
                "anthropic.tool.defer-loading-all",
                "/tools",
                "every tool has defer_loading: true; Anthropic needs at least one tool that is not deferred (the "
                "tool search tool, say: ProviderTool('anthropic', 'tool_search_tool_regex_20251119'))",
            )
        )
    strict = [t for t in tools if isinstance(t, dict) and t.get("strict") is True] if isinstance(tools, list) else []
    optional = union = 0
    for t in strict:
        o, u = _schema_params(t.get("input_schema"))
        optional, union = optional + o, union + u
    if (
        len(strict) > STRICT_LIMITS["strict_tools"]
        or optional > STRICT_LIMITS["optional_parameters"]
        or union > STRICT_LIMITS["union_parameters"]
    ):
        out.append(
            Violation(
                "anthropic.request.strict-limits",
                "/tools",
                f"{len(strict)} strict tools with {optional} optional and {union} union-typed parameters exceed Anthropic's "
                f"limits ({STRICT_LIMITS['strict_tools']} tools, {STRICT_LIMITS['optional_parameters']} optional, "
                f"{STRICT_LIMITS['union_parameters']} union-typed)",
            )
        )
    return tuple(out)


def _is_web_search(t: dict[str, Any]) -> bool:
    """An Anthropic web search tool declaration (``web_search_20250305``, ``web_search_20260209``, ...)."""
    return isinstance(t.get("type"), str) and t["type"].startswith("web_search_")


def _web_search_domain_violations(i: int, t: dict[str, Any]) -> list[Violation]:
    """Rules ``anthropic.tool.web-search-domains-exclusive`` and ``-empty`` on the web search tool
    ``t`` at ``/tools/i``."""
    out: list[Violation] = []
    name = t.get("name") if isinstance(t.get("name"), str) else None
    for key in ("allowed_domains", "blocked_domains"):
        if t.get(key) == []:
            out.append(
                Violation(
                    "anthropic.tool.web-search-domains-empty",
                    f"/tools/{i}/{key}",
                    f'{key} is an empty list, which Anthropic refuses as ambiguous ("Provide at least one domain or '
                    'null"): name at least one domain, or leave the setting out to search every domain',
                    tool=name,
                )
            )
    if t.get("allowed_domains") not in (None, []) and t.get("blocked_domains") not in (None, []):
        out.append(
            Violation(
                "anthropic.tool.web-search-domains-exclusive",
                f"/tools/{i}/blocked_domains",
                "a web search tool takes allowed_domains or blocked_domains, not both: keep the list of domains to "
                "search (allowed_domains) or the list to leave out (blocked_domains)",
                tool=name,
            )
        )
    return out


def _repair_web_search_domains(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.tool.web-search-domains-empty``: an empty ``blocked_domains`` of a web
    search tool (it blocks nothing, so leaving it out keeps the meaning) is left out, in a new tools
    list and a new declaration (the body's own are not changed). An empty ``allowed_domains`` is
    left for the check to refuse: it could mean no domain at all."""
    tools = body["tools"]
    fixed = None
    for i, t in enumerate(tools):
        if type(t) is dict and "blocked_domains" in t and t["blocked_domains"] == [] and _is_web_search(t):
            if fixed is None:
                fixed = list(tools)
            fixed[i] = {k: v for k, v in t.items() if k != "blocked_domains"}
            report.add(
                "anthropic.tool.web-search-domains-empty",
                f"/tools/{i}/blocked_domains",
                "an empty blocked_domains (it blocks nothing) left out: Anthropic refuses an empty list of domains",
            )
    if fixed is not None:
        body["tools"] = fixed


def _repair_deferred_cache_control(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.tool.defer-loading-cache-control``: the ``cache_control`` of a tool with
    ``defer_loading: true`` moves to the last tool before it that is neither deferred nor already
    a breakpoint (the cached prefix then ends where the deferred tools, which are not in the
    prompt, begin), or is left out when there is none (lossy: no breakpoint in the tools). A new
    tools list and new declarations; the body's own are not changed."""
    tools = body["tools"]
    fixed = None
    for i, t in enumerate(tools):
        if not (type(t) is dict and t.get("defer_loading") is True and t.get("cache_control") is not None):
            continue
        if fixed is None:
            fixed = list(tools)
        cc = t["cache_control"]
        fixed[i] = {k: v for k, v in t.items() if k != "cache_control"}
        to = next(
            (
                j
                for j in range(i - 1, -1, -1)
                if type(fixed[j]) is dict
                and fixed[j].get("defer_loading") is not True
                and fixed[j].get("cache_control") is None
            ),
            None,
        )
        if to is not None:
            fixed[to] = {**fixed[to], "cache_control": cc}
        report.add(
            "anthropic.tool.defer-loading-cache-control",
            f"/tools/{i}/cache_control",
            f"cache_control of a deferred tool (defer_loading: true) moved to /tools/{to}"
            if to is not None
            else "cache_control of a deferred tool (defer_loading: true) left out: no tool before it can carry it",
            lossy=to is None,
        )
    if fixed is not None:
        body["tools"] = fixed


def _repair_property_keys(body: dict[str, Any], report: Any) -> None:
    """Rule ``anthropic.schema.property-keys``: the property keys of an encoded body's tools that
    Anthropic refuses renamed (:func:`toolwire.schema.keys.rename_schema_keys`; a new tools list,
    the body's own is not changed). The loop maps the model's renamed keys back to the tool's
    names (:func:`toolwire.schema.keys.unwire_arguments`)."""
    tools = body["tools"]
    fixed = None
    for i, t in enumerate(tools):
        schema = t.get("input_schema") if type(t) is dict else None
        if type(schema) is dict and has_refused_keys(schema):
            tr = TranslationReport(api=API, tool=str(t.get("name")))
            if fixed is None:
                fixed = list(tools)
            fixed[i] = {**t, "input_schema": rename_schema_keys(schema, tr)}
            for c in tr:
                report.add("anthropic.schema.property-keys", f"/tools/{i}/input_schema{c.pointer}", c.detail)
    if fixed is not None:
        body["tools"] = fixed


def _check_tools(tools_json: str) -> list[Violation]:
    return list(_check_tools_cached(tools_json))


def _any_strict(tools: Any) -> bool:
    """Whether :func:`_repair_strict_limits` has anything to look at: a tool declared with
    ``strict: true`` (or one it reads through a dict subclass)."""
    if type(tools) is not list:
        return isinstance(tools, list)
    for t in tools:
        if type(t) is dict:
            if "strict" in t and t["strict"] is True:
                return True
        elif isinstance(t, dict):
            return True
    return False


def _repair_strict_limits(body: dict[str, Any], report: Any) -> None:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return
    count = optional = union = 0
    for i, t in enumerate(tools):
        if not (isinstance(t, dict) and t.get("strict") is True):
            continue
        o, u = _schema_params(t.get("input_schema"))
        if (
            count + 1 > STRICT_LIMITS["strict_tools"]
            or optional + o > STRICT_LIMITS["optional_parameters"]
            or union + u > STRICT_LIMITS["union_parameters"]
        ):
            del t["strict"]
            report.add(
                "anthropic.request.strict-limits",
                f"/tools/{i}/strict",
                f"tool {t.get('name')!r} sent without strict: the request is past Anthropic's strict limits "
                f"({STRICT_LIMITS['strict_tools']} strict tools, {STRICT_LIMITS['optional_parameters']} optional and "
                f"{STRICT_LIMITS['union_parameters']} union-typed parameters); its arguments are still validated",
                lossy=True,
            )
            continue
        count, optional, union = count + 1, optional + o, union + u


def _repair_image(ptr: str, b: dict[str, Any], report: Any) -> None:
    src = b.get("source")
    if isinstance(src, dict) and src.get("type") == "url":
        url = src.get("url")
        found = decode_data_url(url) if type(url) is str else None
        if found is None:
            return
        declared, raw = found
        mt = signature_media_type(raw) or _MEDIA_TYPE_ALIASES.get(declared, declared) or "application/octet-stream"
        b["source"] = src = {"type": "base64", "media_type": mt, "data": base64.b64encode(raw).decode("ascii")}
        report.add(
            "anthropic.conversation.image-url",
            f"{ptr}/source",
            f"a data: URL image ({mt}) sent as a base64 source, the same bytes (Anthropic fetches only https URLs)",
        )
    if isinstance(src, dict) and src.get("type") == "base64":
        mt = src.get("media_type")
        if isinstance(mt, str) and mt not in IMAGE_MEDIA_TYPES:
            low = mt.strip().lower()
            wire = _MEDIA_TYPE_ALIASES.get(low, low if low in IMAGE_MEDIA_TYPES else None)
            if wire is not None:
                src["media_type"] = wire
                report.add(
                    "anthropic.conversation.image-media-type",
                    f"{ptr}/source/media_type",
                    f"media type {mt!r} sent as {src['media_type']!r} (the same image format)",
                )
        actual = _data_media_type(src.get("data"))
        declared = src.get("media_type")
        if actual is not None and declared != actual:
            src["media_type"] = actual
            report.add(
                "anthropic.conversation.image-media-type-data",
                f"{ptr}/source/media_type",
                f"media type {declared!r} sent as {actual!r}: the image's bytes are {actual.split('/')[1].upper()}",
            )


def _data_media_type(data: Any) -> str | None:
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` by the first bytes of a
    base64 image (its signature), or ``None`` for another format or text that is not base64."""
    if type(data) is not str or len(data) < 16:
        return None
    head = data[:64]
    if not head.isascii() or any(c in head for c in " \t\r\n"):
        head = "".join(head.split())
    try:
        raw = base64.b64decode(head[:16], validate=True)
    except (binascii.Error, ValueError):
        return None
    from toolwire.types import signature_media_type

    return signature_media_type(raw)


def _check_image(ptr: str, b: dict[str, Any], add: Any) -> None:
    src = b.get("source")
    if isinstance(src, dict) and src.get("type") == "url":
        url = src.get("url")
        if type(url) is not str or not fetches_image_url(url):
            add("anthropic.conversation.image-url", f"{ptr}/source/url", _image_url_problem(url))
        return
    if isinstance(src, dict) and src.get("type") == "base64":
        mt = src.get("media_type")
        if mt not in IMAGE_MEDIA_TYPES:
            add(
                "anthropic.conversation.image-media-type",
                f"{ptr}/source/media_type",
                f"image media type {mt!r} is not one Anthropic takes ({', '.join(sorted(IMAGE_MEDIA_TYPES))}); convert the image",
            )
        data = src.get("data")
        if mt in IMAGE_MEDIA_TYPES and isinstance(data, str) and (head := base64_head(data)) is not None:
            problem = not_image_problem(head, mt)
            if problem is not None:
                add(
                    "anthropic.conversation.image-bytes",
                    f"{ptr}/source/data",
                    f"the image declared {mt!r} holds {problem}, which Anthropic refuses. "
                    "Check that the file was read or downloaded whole (not an error page, not empty) and pass the "
                    "image's bytes, or leave the image out",
                )
        if isinstance(data, str) and _image_bytes(data) > IMAGE_MAX_BYTES:
            add(
                "anthropic.conversation.image-size",
                f"{ptr}/source/data",
                f"the image is {_image_bytes(data)} bytes; Anthropic takes at most {IMAGE_MAX_BYTES} (5 MB) per image: downscale it",
            )


def _image_url_problem(url: Any) -> str:
    """What is wrong with an image source URL that is not https, and what to do instead."""
    bytes_hint = "read the image and pass its bytes, ImagePart(data=..., media_type='image/png')"
    if type(url) is not str:
        return f"an image URL must be a string, got {type(url).__name__}: {bytes_hint}"
    shown = url if len(url) <= 80 else url[:77] + "..."
    scheme = url_scheme(url)
    if scheme == "data":
        return f"the data: URL {shown!r} holds no image bytes (empty, or its base64 does not decode): {bytes_hint}"
    if scheme == "http":
        return (
            f'image URL {shown!r} is http: Anthropic fetches only https URLs ("Only HTTPS URLs are supported."); '
            f"give an https URL or {bytes_hint}"
        )
    from toolwire.types import url_kind

    what = url_kind(url)
    return f"image URL {shown!r} is {what}, which Anthropic cannot fetch (https URLs only): {bytes_hint}"


def _check_document(ptr: str, b: dict[str, Any], add: Any, *, call_id: str | None = None) -> None:
    """Rules ``anthropic.conversation.document-title`` and ``document-context`` on one document
    block (at ``ptr``; ``call_id``: the tool call whose result holds it)."""
    title = b.get("title")
    if type(title) is str and not 0 < len(title) <= TITLE_MAX_CHARS:
        add(
            "anthropic.conversation.document-title",
            f"{ptr}/title",
            f"the document's title (its filename) is {len(title)} characters; Anthropic takes at most "
            f"{TITLE_MAX_CHARS}: give the document a shorter filename (DocumentPart(filename=...))"
            if title
            else "the document's title is empty; Anthropic takes a title of at least 1 character or none",
            call_id=call_id,
        )
    if b.get("context") == "":
        add(
            "anthropic.conversation.document-context",
            f"{ptr}/context",
            "the document's context is empty; Anthropic takes a context of at least 1 character or none",
            call_id=call_id,
        )


def _short_title(title: str) -> str:
    """``title`` cut to :data:`TITLE_MAX_CHARS` characters, its end (a file extension such as
    ``.pdf``, at most 16 characters after the last dot) kept after an ellipsis."""
    dot = title.rfind(".")
    tail = title[dot:] if dot > 0 and len(title) - dot <= 16 else ""
    return title[: TITLE_MAX_CHARS - len(tail) - 1] + "\u2026" + tail


def _repair_document(ptr: str, b: dict[str, Any], report: Any) -> None:
    """An empty ``title`` or ``context`` of a document block left out (they say nothing; the API
    takes at least 1 character or none), and a title over :data:`TITLE_MAX_CHARS` characters cut
    to it (reported, lossy: refused, a tool result's document would make every later request of
    the run, and its resumption, refused), in place."""
    for key, rule in (("title", "document-title"), ("context", "document-context")):
        if b.get(key) == "":
            del b[key]
            report.add(f"anthropic.conversation.{rule}", f"{ptr}/{key}", f"an empty document {key} left out")
    title = b.get("title")
    if type(title) is str and len(title) > TITLE_MAX_CHARS:
        b["title"] = _short_title(title)
        report.add(
            "anthropic.conversation.document-title",
            f"{ptr}/title",
            f"the document's title (its filename) of {len(title)} characters cut to {TITLE_MAX_CHARS}, the most "
            "Anthropic takes",
            lossy=True,
        )


def _cites(b: dict[str, Any]) -> bool:
    """Whether a document block has citations enabled (``citations: {"enabled": true}``)."""
    c = b.get("citations")
    return type(c) is dict and c.get("enabled") is True


def _documents(m: Any, mi: int, found: list[tuple[str, bool, str | None]]) -> None:
    """Add the document blocks of message ``m`` (index ``mi``), tool results' included, to
    ``found`` as ``(pointer, citations enabled, tool_use_id of the result holding it or None)``."""
    content = m.get("content") if type(m) is dict else None
    if type(content) is not list:
        return
    for bi, b in enumerate(content):
        if type(b) is not dict:
            continue
        btype = b.get("type")
        if btype == "document":
            found.append((_ptr(mi, bi), _cites(b), None))
        elif btype == "tool_result" and type(inner := b.get("content")) is list:
            rid = b.get("tool_use_id")
            for ci, c in enumerate(inner):
                if type(c) is dict and c.get("type") == "document":
                    found.append((f"{_ptr(mi, bi)}/content/{ci}", _cites(c), rid if type(rid) is str else None))


def _citation_violations(msgs: list[Any], start: int) -> list[Violation]:
    """Rule ``anthropic.conversation.document-citations``, checked when a message from ``start``
    holds a document (otherwise the earlier, checked request had the same documents): citations
    on all documents of the request or on none; the violation names the first document whose
    setting differs from the first document's."""
    new: list[tuple[str, bool, str | None]] = []
    for mi in range(start, len(msgs)):
        _documents(msgs[mi], mi, new)
    if not new:
        return []
    docs: list[tuple[str, bool, str | None]] = []
    for mi in range(start):
        _documents(msgs[mi], mi, docs)
    docs += new
    on = sum(1 for _, cites, _ in docs if cites)
    if on == 0 or on == len(docs):
        return []
    first = docs[0][1]
    ptr, _, call_id = next(d for d in docs if d[1] != first)
    return [
        Violation(
            "anthropic.conversation.document-citations",
            ptr,
            f"citations on {on} of the request's {len(docs)} documents; Anthropic takes citations on all documents "
            "of a request or on none: enable them on every document (provider_data {'anthropic': {'citations': "
            "{'enabled': True}}}) or on none",
            call_id=call_id,
        )
    ]


def _media_blocks(m: Any, mi: int, found: list[tuple[str, dict[str, Any], str | None]]) -> int:
    """Add the image blocks of message ``m`` (index ``mi``), tool results' included, to ``found``
    as ``(pointer, block, tool_use_id of the result holding it or None)``; return how many
    document blocks it holds."""
    content = m.get("content") if type(m) is dict else None
    if type(content) is not list:
        return 0
    documents = 0
    for bi, b in enumerate(content):
        if type(b) is not dict:
            continue
        btype = b.get("type")
        if btype == "image":
            found.append((_ptr(mi, bi), b, None))
        elif btype == "document":
            documents += 1
        elif btype == "tool_result" and type(inner := b.get("content")) is list:
            rid = b.get("tool_use_id")
            for ci, c in enumerate(inner):
                if type(c) is dict:
                    if c.get("type") == "image":
                        found.append((f"{_ptr(mi, bi)}/content/{ci}", c, rid if type(rid) is str else None))
                    elif c.get("type") == "document":
                        documents += 1
    return documents


def _base64_dimensions(b: dict[str, Any]) -> tuple[int, int] | None:
    """The pixel dimensions of a base64 image block, or ``None`` (another source, unreadable)."""
    src = b.get("source")
    if type(src) is not dict or src.get("type") != "base64" or type(data := src.get("data")) is not str:
        return None
    from .images import image_dimensions

    return image_dimensions(data)


def _media_violations(msgs: list[Any], start: int) -> list[Violation]:
    """The request-wide image rules, checked when a message from ``start`` holds an image or a
    document (otherwise the earlier, checked request had the same images):
    ``anthropic.conversation.image-dimensions`` for the new base64 images,
    ``anthropic.request.many-image-dimensions`` and ``anthropic.request.media-count`` over all."""
    new: list[tuple[str, dict[str, Any], str | None]] = []
    new_documents = 0
    for mi in range(start, len(msgs)):
        new_documents += _media_blocks(msgs[mi], mi, new)
    if not new and not new_documents:
        return []
    images: list[tuple[str, dict[str, Any], str | None]] = []
    documents = 0
    for mi in range(start):
        documents += _media_blocks(msgs[mi], mi, images)
    first_new = len(images)
    images += new
    documents += new_documents
    out: list[Violation] = []
    if len(images) + documents > MAX_MEDIA:
        out.append(
            Violation(
                "anthropic.request.media-count",
                "/messages",
                f"the request holds {plural(len(images), 'image')} and {plural(documents, 'document')} (each at least one "
                "page); "
                f"Anthropic takes at most {MAX_MEDIA} images and document pages per request: leave older "
                "images out of the conversation (for example, replace them with a text note) or start a new one",
            )
        )
    many = len(images) > MANY_IMAGES
    for k, (ptr, b, call_id) in enumerate(images):
        if k < first_new and not many:
            continue  # an earlier image, checked on its own before
        dims = _base64_dimensions(b)
        if dims is None:
            continue
        side = max(dims)
        if side > IMAGE_MAX_PIXELS and k >= first_new:
            out.append(
                Violation(
                    "anthropic.conversation.image-dimensions",
                    f"{ptr}/source/data",
                    f"the image is {dims[0]}x{dims[1]} pixels; Anthropic takes at most {IMAGE_MAX_PIXELS} "
                    "pixels per side: downscale it (or crop it into parts)",
                    call_id=call_id,
                )
            )
        elif many and side > MANY_IMAGES_MAX_PIXELS:
            out.append(
                Violation(
                    "anthropic.request.many-image-dimensions",
                    f"{ptr}/source/data",
                    f"the image is {dims[0]}x{dims[1]} pixels and the request holds {len(images)} images; "
                    f"with more than {MANY_IMAGES} images Anthropic takes at most {MANY_IMAGES_MAX_PIXELS} "
                    f"pixels per side: downscale the images to {MANY_IMAGES_MAX_PIXELS} pixels per side, or "
                    "leave older images out of the conversation",
                    call_id=call_id,
                )
            )
    return out


#: The blocks a system message inside the conversation may hold: text, and the beta directives
#: that add or withdraw a deferred tool (anthropic.types.beta.BetaRequestToolAdditionBlockParam,
#: BetaRequestToolRemovalBlockParam).
_SYSTEM_MESSAGE_BLOCKS = frozenset({"text", "tool_addition", "tool_removal"})


def takes_system_messages(model: Any) -> bool:
    """Whether ``model`` takes a system message inside ``messages`` (``role: "system"``; rule
    ``anthropic.conversation.system-message-model``): Claude Opus 4.8 and later Opus models, and
    every Fable and Mythos model → ``True``; Sonnet and Haiku of any version (Sonnet 5 takes the
    message but ignores it), Opus 4.7 and earlier and the Claude 3 family → ``False``; an id
    toolwire cannot read as a Claude model → ``True`` (the API's answer decides)."""
    key = _claude_model(model)
    if key is None:
        return not _OLD_CLAUDE.search(model_key(model))
    family, major, minor = key
    if family == "opus":
        return (major, minor) >= (4, 8)
    return family in ("fable", "mythos")


def _check_system_message(msgs: list[Any], mi: int, add: Any) -> None:
    """The rules on the system message at ``msgs[mi]``: it follows a user message (or another
    system message) and holds a non-empty string or text / tool_addition / tool_removal blocks."""
    prev = msgs[mi - 1] if mi > 0 else None
    prev_role = prev.get("role") if isinstance(prev, dict) else None
    if prev_role != "user" and prev_role != "system":
        where = "the first message" if mi == 0 else f"after an {prev_role} message" if prev_role else "misplaced"
        add(
            "anthropic.conversation.system-message-placement",
            f"/messages/{mi}/role",
            f"a system message must come right after a user message, this one is {where}; put it after the next "
            "user message, or put standing instructions in the top-level system field (instructions=)",
        )
    content = msgs[mi].get("content")
    if isinstance(content, str):
        if not content.strip():
            add(
                "anthropic.conversation.empty-text",
                f"/messages/{mi}/content",
                "a system message must hold non-whitespace text",
            )
        return
    if not isinstance(content, list) or not content:
        add(
            "anthropic.conversation.empty-content",
            f"/messages/{mi}/content",
            "a system message must hold a string or a non-empty list of text blocks",
        )
        return
    for bi, b in enumerate(content):
        btype = b.get("type") if isinstance(b, dict) else None
        if btype not in _SYSTEM_MESSAGE_BLOCKS:
            add(
                "anthropic.conversation.system-message-placement",
                f"/messages/{mi}/content/{bi}",
                f"a system message holds text blocks only, found {btype!r}; put it in a user message",
            )
        elif btype == "text":
            text = b.get("text")
            if not isinstance(text, str) or not text.strip():
                add(
                    "anthropic.conversation.empty-text",
                    f"/messages/{mi}/content/{bi}",
                    "text blocks must hold non-whitespace text",
                )


def _system_messages_as_user(msgs: list[Any], settled: int, model: Any, report: Any) -> list[Any]:
    """``msgs`` (a new list) with each system message from ``settled`` sent as a user message with
    its text (its tool_addition / tool_removal blocks left out), for a model that takes no system
    message inside the conversation; each change reported as lossy."""
    out = list(msgs)
    for mi in range(settled, len(out)):
        m = out[mi]
        if type(m) is not dict or m.get("role") != "system":
            continue
        content = m.get("content")
        blocks = _as_list(content)
        kept = [b for b in blocks if not (isinstance(b, dict) and b.get("type") in ("tool_addition", "tool_removal"))]
        dropped = len(blocks) - len(kept)
        out[mi] = {**m, "role": "user", "content": content if isinstance(content, str) else kept}
        report.add(
            "anthropic.conversation.system-message-model",
            f"/messages/{mi}/role",
            f"system message sent as a user message: {model!r} takes no system message inside the conversation "
            "(Claude Opus 4.8 and later Opus, Fable and Mythos models do)"
            + (f"; its {plural(dropped, 'tool_addition / tool_removal block')} left out" if dropped else ""),
            lossy=True,
        )
    return out


#: The roles whose whitespace-only text is left out (the API refuses it: "text content blocks
#: must contain non-whitespace text"): a user message, and a system message inside the
#: conversation, which holds the same text blocks (anthropic.types.SystemMessageParam).
_WHITESPACE_DROPPED = ("user", "system")


def _repair_message(mi: int, m: dict[str, Any], report: Any, *, final: bool) -> None:
    content = m.get("content")
    if isinstance(content, str):
        if content and m.get("role") in _WHITESPACE_DROPPED and not content.strip():
            m["content"] = []
            report.add("anthropic.conversation.empty-text", f"/messages/{mi}/content", "whitespace-only text left out")
        return
    if not isinstance(content, list):
        return
    user = m.get("role") in _WHITESPACE_DROPPED
    kept: list[Any] | None = None  # a new list once a block is left out
    for bi, b in enumerate(content):
        if isinstance(b, dict):
            btype = b.get("type")
            if btype == "text":
                text = b.get("text")
                if isinstance(text, str) and (text == "" or (user and not text.strip())):
                    report.add(
                        "anthropic.conversation.empty-text",
                        f"/messages/{mi}/content/{bi}",
                        "empty or whitespace-only text block left out",
                    )
                    if kept is None:
                        kept = content[:bi]
                    continue
            elif btype == "image":
                _repair_image(f"/messages/{mi}/content/{bi}", b, report)
            elif btype == "document":
                _repair_document(f"/messages/{mi}/content/{bi}", b, report)
            elif btype == "tool_result":
                _repair_result(f"/messages/{mi}/content/{bi}", b, report)
        if kept is not None:
            kept.append(b)
    if kept is not None:
        m["content"] = kept


def _needs_no_message_repair(msgs: list[Any], settled: int) -> bool:
    """Whether :func:`_repair_message` and :func:`_merge_turns` leave the messages from
    ``settled`` as they are and report nothing, decided in one pass over the usual shapes
    (``False`` as soon as a message or block is outside them: they then run and decide): every
    message a dict with role ``user``/``assistant`` and the other role than the one before it,
    content a non-blank string or a non-empty list of dict blocks; text blocks hold text
    (non-blank in a user message); ``tool_result`` blocks come first in a user message and hold a
    string (not blank with ``is_error``) or no content; no image or document blocks."""
    n = len(msgs)
    prev_role = None
    if settled:
        p = msgs[settled - 1]  # the message a merge or the results-first repair would join
        if type(p) is not dict:
            return False
        prev_role = p["role"] if "role" in p else None
        if prev_role == "user" and not _results_lead(p):
            return False
    for mi in range(settled, n):
        m = msgs[mi]
        if type(m) is not dict:
            return False
        role = m["role"] if "role" in m else None
        if role == prev_role or (role != "user" and role != "assistant"):
            return False
        user = role == "user"
        content = m["content"] if "content" in m else None
        if type(content) is str:
            if not content or (user and not content.strip()):
                return False
        elif type(content) is list and content:
            other = False
            for b in content:
                if type(b) is not dict:
                    return False
                btype = b["type"] if "type" in b else None
                if btype == "text":
                    text = b["text"] if "text" in b else None
                    if type(text) is str:
                        if not text or (user and not text.strip()):
                            return False
                    elif isinstance(text, str):
                        return False  # a str subclass: read the slow way
                    other = True
                elif btype == "tool_result":
                    if other and user:
                        return False
                    rc = b["content"] if "content" in b else None
                    error = "is_error" in b and b["is_error"] is True
                    if type(rc) is str:
                        if error and not rc.strip():
                            return False
                    elif rc is not None or error:
                        return False
                elif btype == "image" or btype == "document":
                    return False
                else:
                    other = True
        else:
            return False
        prev_role = role
    return True


def _results_lead(m: dict[str, Any]) -> bool:
    """Whether no block of ``m``'s content list comes before a ``tool_result`` block without
    being one (:func:`_merge_turns`' results-first rule needs nothing)."""
    blocks = m["content"] if "content" in m else None
    if type(blocks) is not list:
        return not isinstance(blocks, list)
    other = False
    for b in blocks:
        if type(b) is dict and "type" in b and b["type"] == "tool_result":
            if other:
                return False
        elif isinstance(b, dict) and type(b) is not dict:
            return False  # a dict subclass: read the slow way
        else:
            other = True
    return True


def _repair_result(ptr: str, b: dict[str, Any], report: Any) -> None:
    """A ``tool_result`` block's repairs (empty text blocks left out, image media types, an empty
    ``is_error`` result given a text), in place."""
    rc = b.get("content")
    if isinstance(rc, list):
        rkept: list[Any] | None = None
        for ci, c in enumerate(rc):
            if isinstance(c, dict):
                ctype = c.get("type")
                if ctype == "text" and _blank(c.get("text")):
                    report.add(
                        "anthropic.conversation.empty-text",
                        f"{ptr}/content/{ci}",
                        "empty or whitespace-only text block left out",
                    )
                    if rkept is None:
                        rkept = rc[:ci]
                    continue
                if ctype == "image":
                    _repair_image(f"{ptr}/content/{ci}", c, report)
                elif ctype == "document":
                    _repair_document(f"{ptr}/content/{ci}", c, report)
            if rkept is not None:
                rkept.append(c)
        if rkept is not None:
            b["content"] = rc = rkept
    if b.get("is_error") is True and (rc is None or rc == [] or rc == "" or _blank(rc)):
        b["content"] = _EMPTY_ERROR_TEXT
        report.add(
            "anthropic.conversation.tool-result-error-content",
            f"{ptr}/content",
            f"an is_error result without content is sent as {_EMPTY_ERROR_TEXT!r}",
        )


def _merge_turns(msgs: list[Any], report: Any, settled: int = 0) -> tuple[list[Any], list[int | None]]:
    """Drop messages left without content (except a final assistant message), merge consecutive
    messages of one role (the API would combine them) and put tool results first. Returns the new
    list and, for each original message, the index it landed at (``None``: dropped). The first
    ``settled`` messages need none of this (an earlier request found so) and are kept as they are."""
    out: list[Any] = list(msgs[:settled])
    where: list[int | None] = list(range(settled))
    n = len(msgs)
    for mi in range(settled, n):
        m = msgs[mi]
        role = m.get("role") if isinstance(m, dict) else None
        if role == "system" and (m.get("content") == [] or m.get("content") == ""):
            # a system message inside the conversation left without text (its whitespace-only
            # text left out): dropped like a user message; it is never merged with another
            report.add("anthropic.conversation.empty-content", f"/messages/{mi}", "a message without content left out")
            where.append(None)
            continue
        if role != "user" and role != "assistant":
            where.append(len(out))
            out.append(m)
            continue
        content = m.get("content")
        empty = content == [] or content == ""
        if empty and not (mi == n - 1 and role == "assistant"):
            report.add("anthropic.conversation.empty-content", f"/messages/{mi}", "a message without content left out")
            where.append(None)
            continue
        if out and not empty and isinstance(out[-1], dict) and out[-1].get("role") == role:
            if len(out) <= settled:  # never the case (settled messages merge with nothing): copy anyway
                out[-1] = dict(out[-1])
            prev = out[-1]
            prev["content"] = _as_list(prev.get("content")) + _as_list(content)
            report.add(
                "anthropic.conversation.consecutive-roles",
                f"/messages/{mi}",
                f"merged into the {role} message before it (the API combines consecutive turns of one role)",
            )
            where.append(len(out) - 1)
            continue
        where.append(len(out))
        out.append(m)
    for i in range(max(0, settled - 1), len(out)):
        m = out[i]
        if not (isinstance(m, dict) and m.get("role") == "user"):
            continue
        blocks = m.get("content")
        if not isinstance(blocks, list):
            continue
        other = False  # a block that is not a result seen before a result: results go first
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                if other:
                    break
            else:
                other = True
        else:
            continue
        if i < settled:  # never the case (settled messages need no repair): copy anyway
            m = out[i] = dict(m)
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        m["content"] = results + [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        report.add(
            "anthropic.conversation.tool-results-first",
            f"/messages/{i}/content",
            "tool_result blocks moved before the other blocks",
        )
    return out, where


def _as_list(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


def rule_ids() -> Iterable[str]:
    """Every rule id, in table order."""
    return (r.id for r in RULES)
