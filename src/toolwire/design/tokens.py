"""Per-turn token cost of tool definitions, offline and live, asked of each API's profile.

Every request re-sends the tool definitions, so their size is paid on every turn of a run.
This module counts that price; what a vendor's tokenizer and prompt rendering are is a fact of
that vendor, so the count itself comes from the API's profile
(:meth:`toolwire.profile.Profile.estimate_tokens` offline, :meth:`~toolwire.profile.Profile.count_tokens`
live), found through the registry. Third-party adapters get the same lint output.

The core keeps one generic tokenizer: OpenAI's ``tiktoken`` library with the ``o200k_base`` BPE
ranks that ship inside toolwire (``toolwire/design/data/o200k_base.tiktoken.gz``; its SHA-256 is
checked against the hash tiktoken pins for the published file, so no download ever happens).
:func:`count_text` is what the default profile's estimate and the adapters' estimates build on.

Offline: each tool's cost is the profile's estimate for that tool's wire declaration (exactly as
the codec sends it) less the once-per-request part; the set's cost is the estimate for all of
them. Live (:func:`count_tool_tokens_live`): the count of a one-message request with a tool minus
the count without it, through the vendor's counting endpoint; an API without one says so.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Sequence

from ..tools import Tool

__all__ = [
    "encoding",
    "count_text",
    "ToolCost",
    "SetCost",
    "tool_costs",
    "count_tool_tokens_live",
    "COST_PROVIDERS",
]

#: SHA-256 of OpenAI's ``o200k_base.tiktoken`` as pinned in ``tiktoken_ext/openai_public.py``.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

#: Providers ``toolwire lint`` counts by default (any installed provider with a codec works).
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


# -- public cost API ----------------------------------------------------------------------------


@dataclass
class ToolCost:
    """Per-turn tokens one tool definition costs: ``tool`` (its :func:`tool_label`),
    ``provider``, ``tokens``, ``exact`` (the API publishes its tokenizer and rendering, and the
    profile uses them)."""

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
        """JSON-ready: ``{"provider": str, "tokens": int, "overhead": int, "exact": bool, "method": str,
        "tools": {label: int}}``, in tokens per turn; ``tools`` maps each tool's :func:`tool_label` to
        its own cost."""
        return {
            "provider": self.provider,
            "tokens": self.tokens,
            "overhead": self.overhead,
            "exact": self.exact,
            "method": self.method,
            "tools": {c.tool: c.tokens for c in self.tools},
        }


def tool_label(tool: Tool) -> str:
    """How a tool is named in token tables and the ``token_cost`` summary: its name, and for a
    vendor's own tool (:class:`~toolwire.tools.ProviderTool`) also ``(vendor/type)``, e.g.
    ``"web_search (anthropic/web_search_20250305)"`` — two vendors' tools may share a name."""
    vendor, wire_type = getattr(tool, "vendor", None), getattr(tool, "type", None)
    if isinstance(vendor, str) and isinstance(wire_type, str):
        return f"{tool.name} ({vendor}/{wire_type})"
    return tool.name


def _as_tool(t: Tool | dict[str, Any]) -> Tool:
    if isinstance(t, Tool):
        return t
    schema = t.get("input_schema") or t.get("parameters") or {"type": "object", "properties": {}}
    return Tool(name=t["name"], description=t.get("description") or "", input_schema=schema)


def _provider_parts(provider: str) -> tuple[Any, Any]:
    """The codec and profile of ``provider``; :class:`ValueError` naming the known ones otherwise."""
    from ..errors import ProviderNotFound
    from ..registry import codec, profile

    try:
        return codec(provider), profile(provider)
    except (ProviderNotFound, NotImplementedError) as exc:
        raise ValueError(
            f"no token-cost model for provider {provider!r} ({exc}); known: {', '.join(COST_PROVIDERS)}"
        ) from exc


def tool_costs(tools: Iterable[Tool | dict[str, Any]], provider: str) -> SetCost:
    """Offline per-turn cost of ``tools`` for ``provider``, from its profile's
    :meth:`~toolwire.profile.Profile.estimate_tokens` over the codec's wire declarations.

    A tool's cost is its own part; the set adds the once-per-request part (``overhead``: what the
    estimate gives beyond the tools' own parts, e.g. a tool-use system prompt), found as
    ``2 * estimate([d]) - estimate([d, d])`` on the first tool. Raises :class:`ValueError` for a
    provider whose adapter is not installed (or has no codec).
    """
    tools = [_as_tool(t) for t in tools]
    codec, prof = _provider_parts(provider)
    decls = [codec.translate_tool(t)[0] for t in tools]
    method = prof.token_estimate_method
    exact = bool(prof.token_estimate_exact)
    if not decls:
        return SetCost(provider, 0, 0, exact, method, [])
    total = int(prof.estimate_tokens(decls))
    fixed = max(0, 2 * int(prof.estimate_tokens(decls[:1])) - int(prof.estimate_tokens([decls[0], decls[0]])))
    per = [
        ToolCost(tool_label(t), provider, int(prof.estimate_tokens([d])) - fixed, exact) for t, d in zip(tools, decls)
    ]
    return SetCost(provider, total, total - sum(c.tokens for c in per), exact, method, per)


def count_tool_tokens_live(
    tools: Sequence[Tool], provider: str, model: str, *, probe: str = "Hi", **settings: Any
) -> SetCost:
    """Count the per-turn cost of ``tools`` with the vendor's own token-counting endpoint,
    through the API's profile (:meth:`~toolwire.profile.Profile.count_tokens`; it costs API
    calls, no output tokens). The cost of each tool is the count of a one-message request
    (``probe``) with that tool minus the count without tools; the set's cost likewise.
    ``settings`` go to the profile's count (``api_key``, ``base_url``, ``http_client`` — an
    ``httpx2.AsyncClient`` —, ``client``: an async SDK client). Raises
    :class:`NotImplementedError` when the API has no counting endpoint that takes tools, and
    :class:`~toolwire.errors.ProviderError` for vendor errors.
    """
    from ..adapter import ModelRequest
    from ..types import Message

    tools = [_as_tool(t) for t in tools]
    try:
        codec, prof = _provider_parts(provider)
    except ValueError as exc:
        raise NotImplementedError(str(exc)) from exc

    def body(ts: list[Tool]) -> dict[str, Any]:
        return codec.encode_request(ModelRequest(model=model, messages=[Message("user", [_text(probe)])], tools=ts))

    async def counts() -> tuple[int, list[int], int]:
        base = await prof.count_tokens(body([]), model=model, **settings)
        if base is None:
            raise NotImplementedError(
                f"no live token count for {provider!r}: its adapter has no token-counting endpoint; "
                "use the offline estimate"
            )
        each = [int(await prof.count_tokens(body([t]), model=model, **settings) or 0) for t in tools]
        whole = int(await prof.count_tokens(body(tools), model=model, **settings) or 0) if tools else int(base)
        return int(base), each, whole

    base, each, whole = _run(counts())
    per = [ToolCost(tool_label(t), provider, n - base, True) for t, n in zip(tools, each)]
    total = whole - base if tools else 0
    return SetCost(
        provider,
        total,
        total - sum(c.tokens for c in per),
        True,
        f"live: {provider} token-counting endpoint ({model})",
        per,
    )


def _text(s: str) -> Any:
    from ..types import TextPart

    return TextPart(s)


def _run(coro: Any) -> Any:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    raise RuntimeError(
        "count_tool_tokens_live() was called inside a running event loop; await the profile's count_tokens there"
    )
