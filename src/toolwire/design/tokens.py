"""Per-turn token cost of tool definitions, offline and live.

Every request re-sends the tool definitions, so their size is paid on every turn of a run.
This module counts that price.

Offline (default, no network, no key):

- the tokenizer is OpenAI's ``tiktoken`` with the ``o200k_base`` BPE ranks that ship inside
  toolwire (``toolwire/design/data/o200k_base.tiktoken.gz``; its SHA-256 is checked against the
  hash tiktoken itself pins for OpenAI's published file, so the ranks are byte-identical and no
  download ever happens). ``o200k_base`` is the encoding of GPT-4o, GPT-4.1, GPT-5 and the
  o-series (tiktoken ``model.py``).
- OpenAI (``openai``, ``openai-chat``): the tool set is rendered the way
  OpenAI's published "harmony" prompt format renders function tools (a TypeScript
  ``namespace functions { ... }`` block with ``//`` comments for descriptions) and tokenized
  exactly. :data:`OPENAI_TOOLS_OVERHEAD` tokens are added once for a non-empty set.
- Anthropic and Gemini do not publish their tokenizers. Their count is an *estimate*: the
  o200k count of the tool's JSON declaration times a per-vendor ratio measured against real
  ``usage`` numbers in recorded requests (:data:`ESTIMATE_ERROR` states the measured error).
  Anthropic adds a fixed tool-use system prompt per request when tools are present
  (Anthropic "Tool use — pricing" table: 346 tokens for tool choice ``auto``/``none`` on
  Claude 4-family models), kept as :data:`ANTHROPIC_TOOL_SYSTEM_PROMPT`.

Live (needs a key and network; see :func:`count_tool_tokens_live`): Anthropic
``POST /v1/messages/count_tokens`` and OpenAI ``POST /responses/input_tokens`` accept tools,
so the cost of a tool is the count with it minus the count without it. The Gemini Developer
API's ``countTokens`` does not accept tools (google-genai raises ``ValueError`` when
``config.tools`` is set outside Vertex AI), so Gemini has no live count for tools.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Sequence

from ..tools import Tool

__all__ = [
    "encoding",
    "count_text",
    "render_openai_tools",
    "ToolCost",
    "SetCost",
    "tool_costs",
    "count_tool_tokens_live",
    "OPENAI_TOOLS_OVERHEAD",
    "ANTHROPIC_TOOL_SYSTEM_PROMPT",
    "ESTIMATE_RATIO",
    "ESTIMATE_ERROR",
    "COST_PROVIDERS",
]

#: SHA-256 of OpenAI's ``o200k_base.tiktoken`` as pinned in ``tiktoken_ext/openai_public.py``.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

#: Tokens OpenAI adds once when a request carries at least one function tool, beyond the
#: rendered ``namespace functions`` block (measured on 8 recorded Chat Completions requests:
#: predicted minus actual prompt tokens -1..+4; see docs/lint.md).
OPENAI_TOOLS_OVERHEAD = 1

#: Anthropic's tool-use system prompt, added once per request with tools (tool choice auto/none).
ANTHROPIC_TOOL_SYSTEM_PROMPT = 346

#: Measured Anthropic/Gemini tokens per o200k token of the tool's JSON declaration.
ESTIMATE_RATIO: dict[str, float] = {"anthropic": 1.2, "gemini": 1.0}

#: Measured error of the estimates (see docs/lint.md for the method).
ESTIMATE_ERROR: dict[str, str] = {
    "gemini": "measured on 9 recorded generateContent requests: mean absolute error 8.8 tokens; "
    "within 11 tokens on 8 of them, 39 tokens over on a request with two parameterless tools",
    "anthropic": "ratio from the one recorded same-model pair that differs only in tool and message text "
    "(claude-haiku-4-5, 542 -> 563 input tokens); the per-model tool-use preamble varied from 299 to 637 "
    "tokens across recordings, so treat per-tool numbers as +-25% and the set overhead as a floor",
}

#: Providers :func:`tool_costs` knows how to count.
COST_PROVIDERS = ("openai", "openai-chat", "anthropic", "gemini")


@lru_cache(maxsize=1)
def encoding() -> Any:
    """The exact ``o200k_base`` :class:`tiktoken.Encoding`, built from the BPE file shipped in
    toolwire (never downloaded). Raises :class:`RuntimeError` if the shipped file is damaged."""
    import tiktoken

    raw = resources.files("toolwire.design").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    data = gzip.decompress(raw)
    digest = hashlib.sha256(data).hexdigest()
    if digest != O200K_SHA256:
        raise RuntimeError(f"toolwire's o200k_base.tiktoken is damaged (sha256 {digest}, expected {O200K_SHA256})")
    import base64

    ranks = {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}
    pat_str = "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    )
    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=pat_str,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )


def count_text(text: str) -> int:
    """Exact ``o200k_base`` token count of ``text`` (special-token text counted as plain text)."""
    return len(encoding().encode(text, disallowed_special=()))


# -- OpenAI rendering ---------------------------------------------------------------------------

def _ts_type(schema: Any, indent: str, defs: dict[str, Any], depth: int = 0) -> str:
    if not isinstance(schema, dict) or depth > 8:
        return "any"
    if "$ref" in schema and isinstance(schema["$ref"], str):
        ref = schema["$ref"].rsplit("/", 1)[-1]
        return _ts_type(defs.get(ref, {}), indent, defs, depth + 1)
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json.dumps(v) for v in schema["enum"]) or "never"
    if "const" in schema:
        return json.dumps(schema["const"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_ts_type(s, indent, defs, depth + 1) for s in schema[key]) or "any"
    t = schema.get("type")
    if isinstance(t, list):
        return " | ".join(_ts_type({**schema, "type": x}, indent, defs, depth + 1) for x in t)
    if t in ("integer", "number"):
        return "number"
    if t == "string":
        return "string"
    if t == "boolean":
        return "boolean"
    if t == "null":
        return "null"
    if t == "array":
        item = _ts_type(schema.get("items", {}), indent, defs, depth + 1)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if t == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if not props:
            return "object"
        return "{\n" + _ts_props(schema, indent + "", defs, depth + 1) + indent + "}"
    return "any"


def _ts_props(schema: dict[str, Any], indent: str, defs: dict[str, Any], depth: int) -> str:
    required = set(schema.get("required") or [])
    out = []
    for name, sub in (schema.get("properties") or {}).items():
        sub = sub if isinstance(sub, dict) else {}
        desc = sub.get("description")
        if desc:
            for line in str(desc).splitlines():
                out.append(f"{indent}// {line}\n")
        opt = "" if name in required else "?"
        line = f"{indent}{name}{opt}: {_ts_type(sub, indent, defs, depth)},"
        if "default" in sub:
            line += f" // default: {json.dumps(sub['default']) if not isinstance(sub['default'], str) else sub['default']}"
        out.append(line + "\n")
    return "".join(out)


def _render_openai_tool(name: str, description: str, parameters: dict[str, Any] | None) -> str:
    lines = ""
    text = " ".join(description.split())  # measured: multi-line descriptions fit best as one line
    if text:
        lines += f"// {text}\n"
    params = parameters or {}
    defs = dict(params.get("$defs") or params.get("definitions") or {})
    if params.get("properties"):
        lines += f"type {name} = (_: {{\n{_ts_props(params, '', defs, 0)}}}) => any;\n"
    else:
        lines += f"type {name} = () => any;\n"
    return lines


def render_openai_tools(tools: Sequence[Tool | dict[str, Any]]) -> str:
    """The ``namespace functions`` block OpenAI's harmony format builds from function tools
    (one ``// description`` comment and one ``type name = (_: {...}) => any;`` per tool)."""
    body = "\n".join(_render_openai_tool(*_name_desc_schema(t)) for t in tools)
    return f"# Tools\n\n## functions\n\nnamespace functions {{\n\n{body}\n}} // namespace functions"


def _name_desc_schema(t: Tool | dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    if isinstance(t, Tool):
        return t.name, t.model_description(), t.input_schema
    return t["name"], t.get("description") or "", t.get("input_schema") or t.get("parameters") or {}


def _json_declaration(t: Tool | dict[str, Any]) -> str:
    name, desc, schema = _name_desc_schema(t)
    return json.dumps({"name": name, "description": desc, "input_schema": schema}, ensure_ascii=False, separators=(",", ":"))


# -- public cost API ----------------------------------------------------------------------------

@dataclass
class ToolCost:
    """Per-turn tokens one tool definition costs: ``tool``, ``provider``, ``tokens``,
    ``exact`` (True only for OpenAI's tokenizer; the rendering itself is the published format)."""

    tool: str
    provider: str
    tokens: int
    exact: bool


@dataclass
class SetCost:
    """Per-turn tokens the whole set costs for one provider: the sum of the tools plus the
    once-per-request overhead (``overhead``). ``method`` says how it was counted."""

    provider: str
    tokens: int
    overhead: int
    exact: bool
    method: str
    tools: list[ToolCost] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "tokens": self.tokens,
            "overhead": self.overhead,
            "exact": self.exact,
            "method": self.method,
            "tools": {c.tool: c.tokens for c in self.tools},
        }


def _family(provider: str) -> str:
    if provider.startswith("openai"):
        return "openai"
    return provider


def tool_costs(tools: Iterable[Tool | dict[str, Any]], provider: str) -> SetCost:
    """Offline per-turn cost of ``tools`` for ``provider`` (one of :data:`COST_PROVIDERS`).

    OpenAI: exact o200k count of each tool's rendering (a tool's cost is its own block inside
    the namespace; the set adds the namespace header and :data:`OPENAI_TOOLS_OVERHEAD`).
    Anthropic/Gemini: ``round(o200k(json declaration) * ESTIMATE_RATIO[provider])`` per tool,
    Anthropic adding :data:`ANTHROPIC_TOOL_SYSTEM_PROMPT` once. Raises :class:`ValueError` for
    an unknown provider.
    """
    tools = list(tools)
    fam = _family(provider)
    if fam not in ("openai", "anthropic", "gemini"):
        raise ValueError(f"no token-cost model for provider {provider!r}; known: {', '.join(COST_PROVIDERS)}")
    if fam == "openai":
        per = [ToolCost(_name_desc_schema(t)[0], provider, count_text(_render_openai_tool(*_name_desc_schema(t))), True) for t in tools]
        if not tools:
            return SetCost(provider, 0, 0, True, "o200k_base (tiktoken, exact) over the harmony namespace rendering", per)
        total = count_text(render_openai_tools(tools)) + OPENAI_TOOLS_OVERHEAD
        return SetCost(provider, total, total - sum(c.tokens for c in per), True,
                       "o200k_base (tiktoken, exact) over the harmony namespace rendering", per)
    ratio = ESTIMATE_RATIO[fam]
    per = [ToolCost(_name_desc_schema(t)[0], provider, round(count_text(_json_declaration(t)) * ratio), False) for t in tools]
    overhead = ANTHROPIC_TOOL_SYSTEM_PROMPT if (fam == "anthropic" and tools) else 0
    err = ESTIMATE_ERROR.get(fam, "unmeasured")
    return SetCost(provider, sum(c.tokens for c in per) + overhead, overhead, False,
                   f"estimate: o200k_base count of the JSON declaration x {ratio} ({err})", per)


def count_tool_tokens_live(tools: Sequence[Tool], provider: str, model: str, *, client: Any = None,
                           probe: str = "Hi") -> SetCost:
    """Count the per-turn cost of ``tools`` with the vendor's own token-counting endpoint.

    ``anthropic``: ``client.messages.count_tokens`` (``POST /v1/messages/count_tokens``);
    ``openai``/``openai-chat``: ``client.responses.input_tokens.count``
    (``POST /responses/input_tokens``; Chat Completions has no counting endpoint, the Responses
    count is used for both). The cost of each tool is the count of a one-message request
    (``probe``) with that tool minus the count without tools; the set's cost likewise.
    ``client`` is an SDK client (``anthropic.Anthropic`` / ``openai.OpenAI``), built from the
    environment when omitted. Gemini raises :class:`NotImplementedError`: the Gemini Developer
    API's ``countTokens`` does not accept tools (Vertex AI only).
    """
    fam = _family(provider)
    tools = list(tools)
    if fam == "anthropic":
        if client is None:
            import anthropic

            client = anthropic.Anthropic()
        from ..registry import codec as _codec

        try:
            c = _codec("anthropic")
            decl = [c.translate_tool(t)[0] for t in tools]
        except Exception:
            decl = [{"name": t.name, "description": t.model_description(), "input_schema": t.input_schema} for t in tools]
        msgs = [{"role": "user", "content": probe}]

        def count(ds: list[dict[str, Any]]) -> int:
            kw: dict[str, Any] = {"model": model, "messages": msgs}
            if ds:
                kw["tools"] = ds
            return int(client.messages.count_tokens(**kw).input_tokens)
    elif fam == "openai":
        if client is None:
            import openai

            client = openai.OpenAI()
        decl = [{"type": "function", "name": t.name, "description": t.model_description(),
                 "parameters": t.input_schema, "strict": bool(t.strict)} for t in tools]

        def count(ds: list[dict[str, Any]]) -> int:
            kw: dict[str, Any] = {"model": model, "input": probe}
            if ds:
                kw["tools"] = ds
            return int(client.responses.input_tokens.count(**kw).input_tokens)
    elif fam == "gemini":
        raise NotImplementedError(
            f"no live token count for {provider!r}: the Gemini Developer API's countTokens does not accept tools "
            "(only Vertex AI does); use the offline estimate"
        )
    else:
        raise NotImplementedError(f"no live token count for {provider!r}: only anthropic, openai and openai-chat have one")
    base = count([])
    per = [ToolCost(t.name, provider, count([d]) - base, True) for t, d in zip(tools, decl)]
    total = count(decl) - base if decl else 0
    return SetCost(provider, total, total - sum(c.tokens for c in per), True, f"live: {provider} token-counting endpoint ({model})", per)
