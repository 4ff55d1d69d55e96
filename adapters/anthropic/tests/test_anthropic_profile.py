"""The Anthropic profile as a specification: one request breaking each rule, and what toolwire does
with it (repaired and reported at its pointer, or refused with the rule id and pointer).

The bodies here are written by hand in the ``/v1/messages`` wire format (not produced by the codec),
so the checks are tested independently of the encoder; the tests that send through the SDK are in
``test_anthropic_preflight.py``.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from toolwire_anthropic.profile import RULES, STRICT_LIMITS, AnthropicProfile

from toolwire.schema.report import TranslationReport

P = AnthropicProfile()


class Report:
    """A minimal stand-in recorder with the ``add(rule, pointer, detail, lossy=)`` interface."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, str, str, bool]] = []

    def add(self, rule: str, pointer: str, detail: str, lossy: bool = False, **_: Any) -> None:
        self.changes.append((rule, pointer, detail, lossy))

    def rules(self) -> set[tuple[str, str]]:
        return {(r, p) for r, p, _, _ in self.changes}


def tool(name: str = "get_weather", schema: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": "d",
        "input_schema": schema or {"type": "object", "properties": {"city": {"type": "string"}}},
        **extra,
    }


def body(**over: Any) -> dict[str, Any]:
    b: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    b.update(over)
    return {k: v for k, v in b.items() if v is not None}


WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}
SIG = {"type": "thinking", "thinking": "let me think", "signature": "c2ln"}
TEXT_DOC = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}


def _png_block(width: int, height: int) -> dict[str, Any]:
    """A base64 image block whose PNG header says ``width`` x ``height`` (signature, IHDR length and
    type, then the two sizes as big-endian 32-bit integers; the rest of the chunk is not read)."""
    head = b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR"
    data = head + width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 4
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(data).decode()},
    }


def convo(*messages: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"role": r, "content": copy.deepcopy(c)} for r, c in messages]


def loop(assistant: list[dict[str, Any]], user: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    return convo(("user", [{"type": "text", "text": "weather?"}]), ("assistant", assistant), ("user", user or [RESULT]))


def refused(b: dict[str, Any]) -> set[tuple[str, str]]:
    return {(v.rule, v.pointer) for v in P.check_request(b)}


def test_valid_baseline_has_no_violation() -> None:
    assert P.check_request(body(tools=[tool()], messages=loop([{"type": "text", "text": "checking"}, USE]))) == []


# -- refused: (rule id, pointer) for a request that breaks it ---------------------------------------

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("anthropic.request.service-tier", body(service_tier="priority"), "/service_tier"),
    # values the SDK's Literal types do not hold (anthropic.types.MessageCreateParamsBase)
    ("anthropic.request.field-values", body(model="claude-opus-5-5", speed="turbo"), "/speed"),
    ("anthropic.request.field-values", body(model="claude-sonnet-4-5", speed="FAST"), "/speed"),
    (
        "anthropic.request.field-values",
        body(model="claude-opus-4-7", output_config={"effort": "extreme"}),
        "/output_config/effort",
    ),
    ("anthropic.request.field-values", body(thinking={"type": "on"}), "/thinking/type"),
    (
        "anthropic.request.field-values",
        body(model="claude-opus-4-7", thinking={"type": "adaptive", "display": "full"}),
        "/thinking/display",
    ),
    ("anthropic.request.field-values", body(thinking={"effort": "turbo"}), "/thinking/type"),
    # the request-level cache_control (anthropic.types.CacheControlEphemeralParam: type 'ephemeral', ttl '5m'|'1h')
    ("anthropic.request.field-values", body(cache_control={"type": "ephemeral", "ttl": "2h"}), "/cache_control/ttl"),
    ("anthropic.request.field-values", body(cache_control={"type": "persistent"}), "/cache_control/type"),
    # stop_sequences: SequenceNotStr[str]
    ("anthropic.request.stop-sequences-type", body(stop_sequences=["END", 7]), "/stop_sequences/1"),
    ("anthropic.request.stop-sequences-type", body(stop_sequences="END"), "/stop_sequences"),
    ("anthropic.request.metadata", body(metadata={"session": "x"}), "/metadata/session"),
    # metadata.user_id: maxLength 256 (API reference)
    ("anthropic.request.metadata", body(metadata={"user_id": "u" * 257}), "/metadata/user_id"),
    (
        "anthropic.conversation.prefill-unsupported",
        body(
            model="claude-opus-4-6",
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]), ("assistant", [{"type": "text", "text": "The"}])
            ),
        ),
        "/messages/1",
    ),
    ("anthropic.tool.name", body(tools=[tool("files.read:v2")]), "/tools/0/name"),
    ("anthropic.tool.unique-names", body(tools=[tool(), tool()]), "/tools/1/name"),
    # a custom tool named like an Anthropic tool declared beside it (microsoft/vscode#276110)
    (
        "anthropic.tool.unique-names",
        body(tools=[tool("web_search"), {"type": "web_search_20250305", "name": "web_search"}]),
        "/tools/1/name",
    ),
    (
        "anthropic.tool.web-search-domains-exclusive",
        body(tools=[{**WEB_SEARCH, "allowed_domains": ["example.org"], "blocked_domains": ["spam.example"]}]),
        "/tools/0/blocked_domains",
    ),
    (
        "anthropic.tool.web-search-domains-empty",
        body(tools=[{**WEB_SEARCH, "allowed_domains": []}]),
        "/tools/0/allowed_domains",
    ),
    (
        "anthropic.tool.defer-loading-cache-control",
        body(tools=[{**WEB_SEARCH, "defer_loading": True, "cache_control": {"type": "ephemeral"}}, tool()]),
        "/tools/0/cache_control",
    ),
    ("anthropic.tool.defer-loading-all", body(tools=[tool(defer_loading=True)]), "/tools"),
    (
        "anthropic.tool_use.id",
        body(tools=[tool()], messages=loop([{**USE, "id": "call.1"}], [{**RESULT, "tool_use_id": "call.1"}])),
        "/messages/1/content/0/id",
    ),
    (
        "anthropic.tool_use.unique-ids",
        body(tools=[tool()], messages=loop([USE, USE], [RESULT])),
        "/messages/1/content/1/id",
    ),
    (
        "anthropic.tool_use.input",
        body(tools=[tool()], messages=loop([{**USE, "input": "Paris"}])),
        "/messages/1/content/0/input",
    ),
    ("anthropic.schema.root-type-object", body(tools=[tool(schema={"type": "string"})]), "/tools/0/input_schema/type"),
    (
        "anthropic.schema.root-combinator",
        body(tools=[tool(schema={"type": "object", "oneOf": [{"required": ["a"]}]})]),
        "/tools/0/input_schema/oneOf",
    ),
    (
        "anthropic.schema.root-ref",
        body(tools=[tool(schema={"type": "object", "$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}})]),
        "/tools/0/input_schema/$ref",
    ),
    (
        "anthropic.schema.strict-subset",
        body(
            tools=[
                tool(
                    schema={
                        "type": "object",
                        "properties": {"n": {"type": "integer", "minimum": 1}},
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        "/tools/0/input_schema/properties/n/minimum",
    ),
    (
        "anthropic.schema.strict-recursive",
        body(
            tools=[
                tool(
                    schema={"type": "object", "properties": {"child": {"$ref": "#"}}, "additionalProperties": False},
                    strict=True,
                )
            ]
        ),
        "/tools/0/input_schema/properties/child/$ref",
    ),
    (
        "anthropic.request.strict-limits",
        body(
            tools=[
                tool(f"t{i}", {"type": "object", "properties": {}, "additionalProperties": False}, strict=True)
                for i in range(STRICT_LIMITS["strict_tools"] + 1)
            ]
        ),
        "/tools",
    ),
    ("anthropic.request.max-tokens", body(max_tokens=-1), "/max_tokens"),
    ("anthropic.request.messages-count", body(messages=[]), "/messages"),
    ("anthropic.request.tool-choice-without-tools", body(tool_choice={"type": "any"}), "/tool_choice"),
    (
        "anthropic.request.tool-choice-unknown-tool",
        body(tools=[tool()], tool_choice={"type": "tool", "name": "get_time"}),
        "/tool_choice/name",
    ),
    ("anthropic.request.tool-blocks-need-tools", body(messages=loop([USE])), "/tools"),
    (
        "anthropic.request.disable-parallel-placement",
        body(tools=[tool()], tool_choice={"type": "none", "disable_parallel_tool_use": True}),
        "/tool_choice/disable_parallel_tool_use",
    ),
    (
        "anthropic.request.forced-tool-choice-model",
        body(model="claude-fable-5-1", tools=[tool()], tool_choice={"type": "any"}),
        "/tool_choice/type",
    ),
    (
        "anthropic.request.thinking-forced-tool",
        body(
            max_tokens=4096,
            tools=[tool()],
            tool_choice={"type": "tool", "name": "get_weather"},
            thinking={"type": "enabled", "budget_tokens": 2048},
        ),
        "/tool_choice",
    ),
    (
        "anthropic.request.thinking-budget",
        body(max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 2048}),
        "/thinking/budget_tokens",
    ),
    (
        "anthropic.request.thinking-temperature",
        body(temperature=0.2, thinking={"type": "adaptive"}, model="claude-sonnet-4-6"),
        "/temperature",
    ),
    (
        "anthropic.request.thinking-type-model",
        body(model="claude-opus-4-7", max_tokens=8000, thinking={"type": "enabled", "budget_tokens": 2048}),
        "/thinking/type",
    ),
    (
        "anthropic.request.thinking-sampling",
        body(top_k=5, thinking={"type": "adaptive"}, model="claude-sonnet-4-6"),
        "/top_k",
    ),
    ("anthropic.request.sampling-range", body(temperature=1.5), "/temperature"),
    ("anthropic.request.temperature-and-top-p", body(temperature=0.5, top_p=0.9), "/top_p"),
    (
        "anthropic.request.system-top-level",
        body(messages=[{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi"}]),
        "/messages/0/role",
    ),
    (
        "anthropic.conversation.system-message-placement",
        body(
            model="claude-opus-4-8",
            messages=[
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "again"},
            ],
        ),
        "/messages/2/role",
    ),
    (
        "anthropic.request.cache-control-limit",
        body(
            messages=convo(
                (
                    "user",
                    [{"type": "text", "text": f"part {i}", "cache_control": {"type": "ephemeral"}} for i in range(5)],
                )
            )
        ),
        "",
    ),
    (
        "anthropic.conversation.block-role",
        body(messages=convo(("user", [{"type": "text", "text": "hi"}, SIG]))),
        "/messages/0/content/1",
    ),
    (
        "anthropic.conversation.tool-result-placement",
        body(tools=[tool()], messages=loop([USE], [{"type": "text", "text": "go on"}])),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.tool-results-first",
        body(tools=[tool()], messages=loop([USE], [{"type": "text", "text": "and?"}, RESULT])),
        "/messages/2/content/0",
    ),
    (
        "anthropic.conversation.tool-result-orphan",
        body(tools=[tool()], messages=loop([USE], [RESULT, {**RESULT, "tool_use_id": "toolu_9"}])),
        "/messages/2/content/1",
    ),
    (
        "anthropic.conversation.tool-result-once",
        body(tools=[tool()], messages=loop([USE], [RESULT, RESULT])),
        "/messages/2/content/1",
    ),
    (
        "anthropic.conversation.tool-result-content",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [USE]}])),
        "/messages/2/content/0/content/0",
    ),
    (
        "anthropic.conversation.tool-result-error-content",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [], "is_error": True}])),
        "/messages/2/content/0/content",
    ),
    (
        "anthropic.conversation.empty-text",
        body(messages=convo(("user", [{"type": "text", "text": "  \n"}, {"type": "text", "text": "hi"}]))),
        "/messages/0/content/0",
    ),
    (
        "anthropic.conversation.empty-content",
        body(
            messages=convo(
                ("user", []),
                ("assistant", [{"type": "text", "text": "ok"}]),
                ("user", [{"type": "text", "text": "hi"}]),
            )
        ),
        "/messages/0/content",
    ),
    (
        "anthropic.conversation.final-whitespace",
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]), ("assistant", [{"type": "text", "text": "The answer is "}])
            )
        ),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.thinking-signature",
        body(
            thinking={"type": "adaptive"},
            model="claude-sonnet-4-6",
            tools=[tool()],
            messages=loop([{"type": "thinking", "thinking": "hmm"}, USE]),
        ),
        "/messages/1/content/0/signature",
    ),
    (
        "anthropic.conversation.thinking-first",
        body(
            thinking={"type": "adaptive"},
            model="claude-sonnet-4-6",
            tools=[tool()],
            messages=loop([{"type": "text", "text": "x"}, SIG, USE]),
        ),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.thinking-in-tool-loop",
        body(
            thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, tools=[tool()], messages=loop([USE])
        ),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.thinking-when-disabled",
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]), ("assistant", [SIG, {"type": "text", "text": "So"}])
            )
        ),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.final-block-thinking",
        body(
            thinking={"type": "adaptive"},
            model="claude-sonnet-4-6",
            messages=convo(("user", [{"type": "text", "text": "hi"}]), ("assistant", [SIG])),
        ),
        "/messages/1/content/0",
    ),
    (
        "anthropic.conversation.image-media-type",
        body(
            messages=convo(
                ("user", [{"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": "Qk0="}}])
            )
        ),
        "/messages/0/content/0/source/media_type",
    ),
    (
        "anthropic.conversation.image-size",
        body(
            messages=convo(
                (
                    "user",
                    [
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": base64.b64encode(b"\0" * (5 * 1024 * 1024 + 1)).decode(),
                            },
                        }
                    ],
                )
            )
        ),
        "/messages/0/content/0/source/data",
    ),
    (
        "anthropic.conversation.image-dimensions",
        body(messages=convo(("user", [_png_block(8001, 600)]))),
        "/messages/0/content/0/source/data",
    ),
    (
        "anthropic.request.many-image-dimensions",
        body(messages=convo(("user", [_png_block(2001, 600)] + [_png_block(8, 8)] * 20))),
        "/messages/0/content/0/source/data",
    ),
    (
        "anthropic.request.media-count",
        body(messages=convo(("user", [_png_block(8, 8)] * 101))),
        "/messages",
    ),
    (
        # an HTML error page declared image/png (a failed download saved as chart.png)
        "anthropic.conversation.image-bytes",
        body(
            messages=convo(
                (
                    "user",
                    [
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": base64.b64encode(b"<html>404 not found</html>").decode(),
                            },
                        }
                    ],
                )
            )
        ),
        "/messages/0/content/0/source/data",
    ),
    (
        # a JSON error body declared image/png in a tool_result of a body built by hand
        "anthropic.conversation.image-bytes",
        body(
            tools=[tool()],
            messages=loop(
                [USE],
                [
                    {
                        **RESULT,
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": base64.b64encode(b'{"error": "Forbidden"}').decode(),
                                },
                            }
                        ],
                    }
                ],
            ),
        ),
        "/messages/2/content/0/content/0/source/data",
    ),
    (
        "anthropic.conversation.image-url",
        body(messages=convo(("user", [{"type": "image", "source": {"type": "url", "url": "file:///tmp/chart.png"}}]))),
        "/messages/0/content/0/source/url",
    ),
    (
        "anthropic.conversation.image-url",
        body(
            tools=[tool()],
            messages=loop(
                [USE],
                [{**RESULT, "content": [{"type": "image", "source": {"type": "url", "url": "http://x.test/a.png"}}]}],
            ),
        ),
        "/messages/2/content/0/content/0/source/url",
    ),
    # document blocks (request schema RequestDocumentBlock; citations guide)
    (
        "anthropic.conversation.document-title",
        body(messages=convo(("user", [{**TEXT_DOC, "title": "t" * 501}]))),
        "/messages/0/content/0/title",
    ),
    (
        "anthropic.conversation.document-title",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [{**TEXT_DOC, "title": "t" * 501}]}])),
        "/messages/2/content/0/content/0/title",
    ),
    (
        "anthropic.conversation.document-citations",
        body(messages=convo(("user", [{**TEXT_DOC, "citations": {"enabled": True}}, TEXT_DOC]))),
        "/messages/0/content/1",
    ),
]


@pytest.mark.parametrize(("rule", "bad", "pointer"), REFUSED, ids=[r for r, _, _ in REFUSED])
def test_check_names_rule_and_pointer(rule: str, bad: dict[str, Any], pointer: str) -> None:
    assert (rule, pointer) in refused(bad)


# -- repaired: the repair keeps the meaning, is reported at its pointer and the result passes -------

REPAIRED: list[tuple[str, dict[str, Any], str]] = [
    (
        "anthropic.conversation.system-message-model",
        body(
            model="claude-sonnet-4-6",
            messages=[{"role": "user", "content": "hi"}, {"role": "system", "content": "be brief"}],
        ),
        "/messages/1/role",
    ),
    (
        "anthropic.tool.defer-loading-cache-control",
        body(tools=[tool(), tool("late", defer_loading=True, cache_control={"type": "ephemeral"})]),
        "/tools/1/cache_control",
    ),
    (
        "anthropic.tool.web-search-domains-empty",
        body(tools=[{**WEB_SEARCH, "allowed_domains": ["example.org"], "blocked_domains": []}]),
        "/tools/0/blocked_domains",
    ),
    ("anthropic.request.stop-sequences-blank", body(stop_sequences=["END", "\n"]), "/stop_sequences"),
    ("anthropic.request.sampling-model", body(model="claude-opus-4-7", temperature=0.2), "/temperature"),
    ("anthropic.request.speed-model", body(model="claude-opus-4-7", speed="fast"), "/speed"),
    ("anthropic.request.thinking-off-model", body(model="claude-opus-5-5", thinking={"type": "disabled"}), "/thinking"),
    (
        "anthropic.request.effort-model",
        body(model="claude-opus-4-6", output_config={"effort": "xhigh"}),
        "/output_config/effort",
    ),
    (
        "anthropic.request.thinking-model",
        body(model="claude-3-5-haiku-20241022", max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}),
        "/thinking",
    ),
    (
        "anthropic.conversation.image-media-type-data",
        body(
            messages=convo(
                (
                    "user",
                    [
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/jpeg",
                                "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
                            },
                        }
                    ],
                )
            )
        ),
        "/messages/0/content/0/source/media_type",
    ),
    ("anthropic.request.max-tokens-model", body(max_tokens=200_000), "/max_tokens"),
    (
        "anthropic.request.tool-blocks-need-tools",
        body(messages=loop([USE]) + convo(("user", [{"type": "text", "text": "Summarise."}]))),
        "/tools",
    ),
    (
        "anthropic.request.tool-choice-without-tools",
        body(tool_choice={"type": "auto", "disable_parallel_tool_use": True}),
        "/tool_choice",
    ),
    (
        "anthropic.request.disable-parallel-placement",
        body(tools=[tool()], tool_choice={"type": "none", "disable_parallel_tool_use": True}),
        "/tool_choice/disable_parallel_tool_use",
    ),
    (
        "anthropic.request.strict-limits",
        body(
            tools=[
                tool(f"t{i}", {"type": "object", "properties": {}, "additionalProperties": False}, strict=True)
                for i in range(STRICT_LIMITS["strict_tools"] + 1)
            ]
        ),
        f"/tools/{STRICT_LIMITS['strict_tools']}/strict",
    ),
    (
        "anthropic.conversation.first-user",
        body(
            messages=convo(
                ("assistant", [{"type": "text", "text": "Hello! How can I help?"}]),
                ("user", [{"type": "text", "text": "weather?"}]),
            )
        ),
        "/messages/0/role",
    ),
    (
        "anthropic.conversation.consecutive-roles",
        body(messages=convo(("user", [{"type": "text", "text": "a"}]), ("user", [{"type": "text", "text": "b"}]))),
        "/messages/1",
    ),
    (
        "anthropic.conversation.tool-results-first",
        body(tools=[tool()], messages=loop([USE], [{"type": "text", "text": "and?"}, RESULT])),
        "/messages/2/content",
    ),
    (
        "anthropic.conversation.tool-result-error-content",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [], "is_error": True}])),
        "/messages/2/content/0/content",
    ),
    (
        "anthropic.conversation.empty-text",
        body(messages=convo(("user", [{"type": "text", "text": "  \n"}, {"type": "text", "text": "hi"}]))),
        "/messages/0/content/0",
    ),
    (
        "anthropic.schema.property-keys",
        body(tools=[tool(schema={"type": "object", "properties": {"filter[id]": {"type": "string"}}})]),
        "/tools/0/input_schema/properties/filter[id]",
    ),
    ("anthropic.request.system-empty-text", body(system=" \n"), "/system"),
    (
        "anthropic.request.system-empty-text",
        body(system=[{"type": "text", "text": "Be brief."}, {"type": "text", "text": ""}]),
        "/system/1",
    ),
    (
        "anthropic.conversation.empty-content",
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]),
                ("assistant", []),
                ("user", [{"type": "text", "text": "hi again"}]),
            )
        ),
        "/messages/1",
    ),
    (
        "anthropic.conversation.final-whitespace",
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]), ("assistant", [{"type": "text", "text": "The answer is "}])
            )
        ),
        "/messages/1/content/0/text",
    ),
    (
        "anthropic.conversation.thinking-in-tool-loop",
        body(
            thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, tools=[tool()], messages=loop([USE])
        ),
        "/thinking",
    ),
    (
        "anthropic.conversation.thinking-when-disabled",
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]), ("assistant", [SIG, {"type": "text", "text": "So"}])
            )
        ),
        "/messages/1/content",
    ),
    (
        "anthropic.conversation.image-media-type",
        body(
            messages=convo(
                ("user", [{"type": "image", "source": {"type": "base64", "media_type": "image/jpg", "data": "/9j/"}}])
            )
        ),
        "/messages/0/content/0/source/media_type",
    ),
    (
        "anthropic.conversation.image-url",
        body(
            messages=convo(
                (
                    "user",
                    [
                        {
                            "type": "image",
                            "source": {
                                "type": "url",
                                "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8"
                                "\nz8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
                            },
                        }
                    ],
                )
            )
        ),
        "/messages/0/content/0/source",
    ),
    (
        "anthropic.conversation.document-title",
        body(messages=convo(("user", [{**TEXT_DOC, "title": ""}]))),
        "/messages/0/content/0/title",
    ),
    (
        "anthropic.conversation.document-title",
        body(messages=convo(("user", [{**TEXT_DOC, "title": "t" * 501}]))),
        "/messages/0/content/0/title",
    ),
    (
        "anthropic.conversation.document-title",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [{**TEXT_DOC, "title": "t" * 501}]}])),
        "/messages/2/content/0/content/0/title",
    ),
    (
        "anthropic.conversation.document-context",
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": [{**TEXT_DOC, "context": ""}]}])),
        "/messages/2/content/0/content/0/context",
    ),
]


@pytest.mark.parametrize(("rule", "bad", "pointer"), REPAIRED, ids=[r for r, _, _ in REPAIRED])
def test_repair_reports_rule_and_pointer_and_passes(rule: str, bad: dict[str, Any], pointer: str) -> None:
    report = Report()
    fixed = P.repair_request(copy.deepcopy(bad), report)
    assert fixed != bad or rule == "anthropic.conversation.first-user"  # reported only, not changed
    assert (rule, pointer) in report.rules()
    assert P.check_request(fixed) == []


#: Rules checked where the body's JSON bytes exist (the model's ``post``), not by ``check_request``;
#: each has its own test in test_anthropic_preflight.py.
CHECKED_ON_SEND = {
    "anthropic.request.size",
    # the beta header added on send: test_anthropic_preserved_thinking.py
    "anthropic.request.thinking-block-binding",
}
#: Rules the codec reports for what it does not send as given (``left_out_parts``); tested in
#: test_assistant_images_are_reported_as_lossy below and (thinking-unsigned)
#: test_anthropic_contract.py::test_unsigned_thinking_is_left_out_and_reported.
REPORTED_BY_CODEC = {
    "anthropic.conversation.assistant-image",
    "anthropic.conversation.tool-result-image-type",
    "anthropic.conversation.thinking-unsigned",
    # test_anthropic_preserved_thinking.py::test_a_continuation_with_other_instructions_or_tools_leaves_the_stale_thinking_out
    "anthropic.conversation.thinking-prefix-changed",
    # test_anthropic_effort_budget.py
    "anthropic.request.thinking-effort-budget",
    # tests/test_tool_choice_setting.py (the codec keeps or replaces the setting's tool_choice)
    "anthropic.request.tool-choice-setting",
}


#: Rules checked when the model is made (a ConfigurationError), not by ``check_request``; tested in
#: test_model_id_refused_when_the_claude_api_would_not_find_it below and in
#: test_anthropic_preflight.py::test_model_id_spellings_through_the_sdk.
CHECKED_AT_CONSTRUCTION = {"anthropic.request.model-id"}


def test_every_rule_has_a_test() -> None:
    covered = (
        {r for r, _, _ in REFUSED}
        | {r for r, _, _ in REPAIRED}
        | CHECKED_ON_SEND
        | REPORTED_BY_CODEC
        | CHECKED_AT_CONSTRUCTION
    )
    assert {r.id for r in RULES} - covered == set()


def test_rules_state_summary_source_and_action() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert r.id.startswith("anthropic.") and r.summary and r.source and r.action in ("repair", "report", "refuse")
    assert P.rules["anthropic.schema.root-combinator"].action == "repair"


# -- repair details -----------------------------------------------------------------------------------


def test_repaired_values() -> None:
    r = Report()
    fixed = P.repair_request(
        body(
            messages=convo(
                ("user", [{"type": "text", "text": "hi"}]),
                ("assistant", [{"type": "text", "text": "The answer is \n"}]),
            )
        ),
        r,
    )
    assert fixed["messages"][1]["content"] == [{"type": "text", "text": "The answer is"}]
    fixed = P.repair_request(
        body(tools=[tool()], messages=loop([USE], [{**RESULT, "content": "", "is_error": True}])), Report()
    )
    assert fixed["messages"][2]["content"][0]["content"] == "error: the tool failed without a message"
    fixed = P.repair_request(
        body(tools=[tool()], messages=loop([USE], [{"type": "text", "text": "and?"}, RESULT])), Report()
    )
    assert [b["type"] for b in fixed["messages"][2]["content"]] == ["tool_result", "text"]
    fixed = P.repair_request(body(messages=convo(("user", [{"type": "text", "text": "a"}]), ("user", "b"))), Report())
    assert fixed["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ]


def test_thinking_dropped_for_foreign_tool_loop_is_lossy_and_kept_with_own_thinking() -> None:
    r = Report()
    fixed = P.repair_request(
        body(
            thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, tools=[tool()], messages=loop([USE])
        ),
        r,
    )
    assert "thinking" not in fixed and any(
        rule == "anthropic.conversation.thinking-in-tool-loop" and lossy for rule, _, _, lossy in r.changes
    )
    own = body(
        thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, tools=[tool()], messages=loop([SIG, USE])
    )
    assert P.repair_request(own, Report())["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    # adaptive thinking: the model may answer a turn without thinking, and the history stays as it is
    assert (
        P.check_request(
            body(thinking={"type": "adaptive"}, model="claude-sonnet-4-6", tools=[tool()], messages=loop([USE]))
        )
        == []
    )
    # a new user turn (no tool_result at the end) does not need thinking in earlier turns
    new_turn = body(
        thinking={"type": "enabled", "budget_tokens": 1024},
        max_tokens=4096,
        tools=[tool()],
        messages=loop([USE])
        + convo(("assistant", [{"type": "text", "text": "Sunny."}]), ("user", [{"type": "text", "text": "thanks"}])),
    )
    assert P.check_request(new_turn) == []


def test_sampling_settings_valid_values_pass() -> None:
    assert P.check_request(body(temperature=1, thinking={"type": "adaptive"}, model="claude-sonnet-4-6")) == []
    assert P.check_request(body(top_p=0.95, thinking={"type": "adaptive"}, model="claude-sonnet-4-6")) == []
    assert P.check_request(body(temperature=0.2, top_p=0.9, model="claude-3-5-haiku-20241022")) == []
    assert (
        P.check_request(
            body(
                max_tokens=4096,
                thinking={"type": "enabled", "budget_tokens": 1024},
                tools=[tool()],
                tool_choice={"type": "auto"},
            )
        )
        == []
    )
    assert (
        P.check_request(
            body(tools=[tool()], thinking={"type": "adaptive"}, model="claude-sonnet-4-6", tool_choice={"type": "any"})
        )
        == []
    )


def test_incremental_check_skips_checked_history_but_keeps_placement() -> None:
    bad_old = convo(("user", [{"type": "text", "text": " "}]), ("assistant", [{"type": "text", "text": "ok"}]))
    msgs = bad_old + convo(
        ("user", [{"type": "text", "text": "weather?"}]),
        ("assistant", [USE]),
        ("user", [{"type": "text", "text": "no result"}]),
    )
    b = body(tools=[tool()], messages=msgs)
    assert ("anthropic.conversation.empty-text", "/messages/0/content/0") in refused(b)
    late = {(v.rule, v.pointer) for v in P.check_request(b, start=4)}
    assert ("anthropic.conversation.empty-text", "/messages/0/content/0") not in late
    assert ("anthropic.conversation.tool-result-placement", "/messages/3/content/0") in late


def test_tool_name_rule_is_128_characters() -> None:
    assert P.tool_name_error("a" * 128) is None
    assert "129 characters" in P.tool_name_error("a" * 129)
    assert "'.'" in P.tool_name_error("files.read")


# -- input schema ---------------------------------------------------------------------------------------


def test_root_ref_is_merged() -> None:
    schema = {
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
    }
    report = TranslationReport(api="anthropic", tool="t")
    out = P.translate_schema(schema, report)
    assert out == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "$defs": schema["$defs"],
    }
    assert [(c.pointer, c.action) for c in report] == [("/$ref", "inlined")]


def test_root_allof_with_conflicting_member_is_lossy() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"a": {"maxLength": 3}, "b": {"type": "integer"}}}, {"type": "array"}],
    }
    report = TranslationReport(api="anthropic", tool="t")
    out = P.translate_schema(schema, report)
    assert out == {
        "type": "object",
        "properties": {"a": {"allOf": [{"type": "string"}, {"maxLength": 3}]}, "b": {"type": "integer"}},
    }
    assert [(c.pointer, c.lossy) for c in report] == [("/allOf/0", False), ("/allOf/1", True)]


def test_root_oneof_of_object_shapes_offers_every_property() -> None:
    schema = {
        "type": "object",
        "oneOf": [
            {"properties": {"path": {"type": "string"}}, "required": ["path"]},
            {
                "properties": {"url": {"type": "string", "format": "uri"}, "path": {"type": "integer"}},
                "required": ["url"],
            },
        ],
    }
    report = TranslationReport(api="anthropic", tool="t")
    out = P.translate_schema(schema, report)
    assert out == {
        "type": "object",
        "properties": {
            "path": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "url": {"type": "string", "format": "uri"},
        },
    }
    assert [(c.pointer, c.keyword, c.lossy) for c in report] == [("/oneOf", "oneOf", True)]


def test_strict_schema_transform_and_recursive_drop() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date"},
            "n": {"type": "integer", "maximum": 9},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
        },
        "required": ["when"],
    }
    report = TranslationReport(api="anthropic", tool="t")
    out = P.translate_schema(schema, report, strict=True)
    assert out == {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date"},
            "n": {"type": "integer", "description": "{maximum: 9}"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "{minItems: 2}"},
            "kind": {"anyOf": [{"const": "a"}, {"const": "b"}]},
        },
        "required": ["when"],
        "additionalProperties": False,
    }
    assert report.strict_possible is True
    assert P.check_request(body(tools=[tool(schema=out, strict=True)])) == []
    rec = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    report = TranslationReport(api="anthropic", tool="t")
    assert P.translate_schema(rec, report, strict=True) == rec
    assert report.strict_possible is False and [(c.pointer, c.lossy) for c in report] == [
        ("/properties/child/$ref", True)
    ]


def test_turn_failed() -> None:
    assert P.turn_failed("refusal") is True
    for reason in (
        "end_turn",
        "tool_use",
        "max_tokens",
        "stop_sequence",
        "pause_turn",
        "model_context_window_exceeded",
        None,
    ):
        assert P.turn_failed(reason) is False


def test_estimate_tokens() -> None:
    assert P.estimate_tokens([]) == 0
    one = P.estimate_tokens([tool()])
    two = P.estimate_tokens([tool(), tool("get_time")])
    assert one > 346 and two > one and (two - 346) > (one - 346)


def test_incremental_check_reads_the_answered_call_before_start() -> None:
    # the previous turn ended on the results (start = 3): the next check starts after them and must
    # still pair the new results with the new call, and the old results with the old call
    msgs = loop([USE]) + convo(
        ("assistant", [{**USE, "id": "toolu_2"}]), ("user", [{**RESULT, "tool_use_id": "toolu_2"}])
    )
    b = body(tools=[tool()], messages=msgs)
    for start in range(len(msgs) + 1):
        assert P.check_request(b, start=start) == [], start


def test_docs_page_lists_every_rule_with_its_action() -> None:
    from pathlib import Path

    page = Path(__file__).resolve().parents[3] / "docs" / "rules" / "anthropic.md"
    text = page.read_text(encoding="utf-8")
    for r in RULES:
        assert f"| `{r.id}` ({r.action}) |" in text, r.id


def test_incremental_start_follows_repairs_that_drop_messages() -> None:
    from toolwire.profile import PreflightState, RequestRefused, preflight

    # an empty user message early in the history is dropped by the repair on every turn; the new
    # messages (a call left unanswered) must still be checked at their new index
    head = convo(
        ("user", [{"type": "text", "text": "hi"}]),
        *[m for i in range(4) for m in (("assistant", [{"type": "text", "text": f"ok {i}"}]), ("user", []))],
        ("assistant", [{"type": "text", "text": "still here"}]),
        ("user", [{"type": "text", "text": "weather?"}]),
    )
    state = PreflightState()
    preflight(P, body(tools=[tool()], messages=copy.deepcopy(head)), state=state)
    bad = head + convo(
        ("assistant", [USE]),
        ("user", [{"type": "text", "text": "no result"}]),
        ("assistant", [{"type": "text", "text": "hm"}]),
        ("user", [{"type": "text", "text": "go on"}]),
        ("assistant", [{"type": "text", "text": "hm"}]),
        ("user", [{"type": "text", "text": "go on"}]),
    )
    with pytest.raises(RequestRefused) as info:
        preflight(P, body(tools=[tool()], messages=copy.deepcopy(bad)), state=state)
    assert "anthropic.conversation.tool-result-placement" in info.value.rules


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        # no effort parameter: left out (output_config with it, when nothing else is in it)
        ("claude-sonnet-4-5", "high", None),
        ("claude-haiku-4-5-20251001", "low", None),
        ("claude-opus-4-1", "medium", None),
        ("claude-3-7-sonnet-20250219", "high", None),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "medium", None),
        # Opus 4.5: low, medium, high
        ("claude-opus-4-5", "max", "high"),
        ("claude-opus-4-5-20251101", "xhigh", "high"),
        ("claude-opus-4-5", "medium", "medium"),
        # the 4.6 models: low, medium, high, max (not xhigh)
        ("claude-opus-4-6", "xhigh", "high"),
        ("claude-sonnet-4-6", "xhigh", "high"),
        ("claude-sonnet-4-6", "max", "max"),
        ("anthropic.claude-opus-4-6-v1:0", "xhigh", "high"),
        # 4.7 and later, and ids toolwire cannot read: sent as asked
        ("claude-opus-4-7", "xhigh", "xhigh"),
        ("claude-opus-4-8", "max", "max"),
        ("claude-sonnet-5", "xhigh", "xhigh"),
        ("claude-fable-5-1", "max", "max"),
        ("claude-haiku-5", "xhigh", "xhigh"),
        ("my-proxy-model", "xhigh", "xhigh"),
    ],
)
def test_effort_sent_as_each_model_takes_it(model: str, effort: str, sent: str | None) -> None:
    r = Report()
    fixed = P.repair_request(body(model=model, output_config={"effort": effort}), r)
    changes = [(p, lossy) for rule, p, _, lossy in r.changes if rule == "anthropic.request.effort-model"]
    if sent is None:
        assert "output_config" not in fixed and changes == [("/output_config/effort", True)]
    else:
        assert fixed["output_config"] == {"effort": sent}
        assert changes == ([] if sent == effort else [("/output_config/effort", True)])
    # the rest of output_config is kept
    fixed = P.repair_request(body(model=model, output_config={"effort": effort, "format": {"type": "json_schema"}}), r)
    assert fixed["output_config"]["format"] == {"type": "json_schema"}


@pytest.mark.parametrize(
    ("model", "speed", "kept", "lossy"),
    [
        ("claude-opus-4-7", "fast", False, True),
        ("claude-sonnet-4-6", "fast", False, True),
        ("claude-haiku-4-5", "fast", False, True),
        ("claude-opus-4-5-20251101", "fast", False, True),
        ("claude-3-7-sonnet-latest", "fast", False, True),
        ("claude-opus-4-7", "standard", False, False),
        ("claude-opus-4-7", None, False, False),
        # fast mode lost: Opus 4.6 answers at standard speed, Opus 4.8's was removed on 2026-11-30
        ("claude-opus-4-6", "fast", False, True),
        ("claude-opus-4-8", "fast", False, True),
        ("claude-opus-4-8-20260528", "fast", False, True),
        # the Claude 5 models without fast mode: Sonnet and Haiku, Fable and Mythos before 5.2
        ("claude-sonnet-5", "fast", False, True),
        ("claude-sonnet-5-5", "fast", False, True),
        ("claude-haiku-5-5", "fast", False, True),
        ("claude-fable-5", "fast", False, True),
        ("claude-fable-5-1", "fast", False, True),
        ("claude-mythos-5", "fast", False, True),
        ("claude-mythos-5-1", "fast", False, True),
        ("claude-mythos-preview", "fast", False, True),
        ("claude-sonnet-6", "fast", False, True),
        # documented with fast mode, with dates and provider spellings
        ("claude-opus-5-5", "fast", True, False),
        ("claude-opus-5-5-20261020", "fast", True, False),
        ("anthropic/claude-opus-5.5", "fast", True, False),
        ("claude-fable-5-2", "fast", True, False),
        ("claude-mythos-5-2", "fast", True, False),
        ("claude-opus-5", "fast", True, False),
        ("claude-opus-5", "standard", True, False),
        # a fast-mode deployment id (Foundry's, OpenRouter's): the id selects fast mode
        ("claude-opus-5-5-fast", "fast", False, False),
        ("anthropic/claude-opus-4.8-fast", "fast", False, False),
        ("claude-opus-5-5-fast", "standard", False, True),
        # newer than toolwire knows in a family with fast mode, and ids toolwire cannot read
        ("claude-opus-5-6", "fast", True, False),
        ("claude-opus-6", "fast", True, False),
        ("claude-fable-5-3", "fast", True, False),
        ("my-gateway-model", "fast", True, False),
    ],
)
def test_speed_left_out_for_models_without_fast_mode(model: str, speed: str | None, kept: bool, lossy: bool) -> None:
    r = Report()
    fixed = P.repair_request({**body(model=model), "speed": speed}, r)  # speed null too (the SDK's Optional)
    changes = [(p, flag) for rule, p, _, flag in r.changes if rule == "anthropic.request.speed-model"]
    if kept:
        assert fixed["speed"] == speed and changes == []
    else:
        assert "speed" not in fixed and changes == [("/speed", lossy)]


@pytest.mark.parametrize(
    ("model", "effort", "thinking", "sent_effort", "lossy"),
    [
        # thinking always on: disabled is sent as adaptive (what omitting it means there)
        ("claude-opus-5-5", None, {"type": "adaptive"}, None, True),
        ("claude-fable-5", "low", {"type": "adaptive"}, "low", True),
        ("claude-fable-5-1", None, {"type": "adaptive"}, None, True),
        ("claude-fable-5-2-20261110", None, {"type": "adaptive"}, None, True),
        ("claude-mythos-5", None, {"type": "adaptive"}, None, True),
        ("anthropic/claude-mythos-5.2", None, {"type": "adaptive"}, None, True),
        # Sonnet 5.5: between_tools is its lowest setting
        ("claude-sonnet-5-5", "high", {"type": "between_tools"}, "high", True),
        # Opus 5 and Haiku 5.5 take disabled at effort high or below
        ("claude-opus-5", "max", {"type": "disabled"}, "high", True),
        ("claude-haiku-5-5", "xhigh", {"type": "disabled"}, "high", True),
        ("claude-opus-5", "high", {"type": "disabled"}, "high", None),
        ("claude-haiku-5-5", None, {"type": "disabled"}, None, None),
        # models that take disabled as it is, and ids toolwire cannot place
        ("claude-sonnet-5", "max", {"type": "disabled"}, "max", None),
        ("claude-opus-4-8", None, {"type": "disabled"}, None, None),
        ("claude-mythos-preview", None, {"type": "disabled"}, None, None),
        ("claude-opus-6", None, {"type": "disabled"}, None, None),
        ("my-gateway-model", None, {"type": "disabled"}, None, None),
    ],
)
def test_thinking_off_sent_in_the_form_the_model_takes(
    model: str, effort: str | None, thinking: dict[str, Any], sent_effort: str | None, lossy: bool | None
) -> None:
    r = Report()
    given = {"type": "disabled"}
    b = body(model=model, thinking=given, output_config={"effort": effort} if effort else None)
    fixed = P.repair_request(b, r)
    assert fixed["thinking"] == thinking and given == {"type": "disabled"}  # the caller's dict is not changed
    assert (fixed.get("output_config") or {}).get("effort") == sent_effort
    changes = [(flag) for rule, _, _, flag in r.changes if rule == "anthropic.request.thinking-off-model"]
    assert changes == ([] if lossy is None else [lossy])
    assert "anthropic.request.thinking-off-model" not in [v.rule for v in P.check_request(fixed)]


@pytest.mark.parametrize(
    ("model", "beta"),
    [
        ("claude-opus-5", True),
        ("claude-opus-5-20260723", True),
        ("claude-opus-5-5", False),
        ("claude-fable-5-2", False),
        ("claude-opus-6", False),
        ("my-gateway-model", False),
        (None, False),
    ],
)
def test_fast_mode_beta_header_models(model: Any, beta: bool) -> None:
    from toolwire_anthropic.profile import fast_mode_beta

    assert fast_mode_beta(model) is beta


CC = {"type": "ephemeral"}


def test_blank_system_prompt_left_out_and_blank_system_blocks_dropped() -> None:
    # a blank string and all-blank blocks: the field goes; a blank block among others: that block goes
    for system in ("", "  \t\n", [{"type": "text", "text": ""}], [{"type": "text", "text": " ", "cache_control": CC}]):
        assert ("anthropic.request.system-empty-text", "/system" if isinstance(system, str) else "/system/0/text") in (
            refused(body(system=system))
        )
        r = Report()
        fixed = P.repair_request(body(system=copy.deepcopy(system)), r)
        assert "system" not in fixed and P.check_request(fixed) == []
    original = [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "\n", "cache_control": CC}]
    b = body(system=original)
    r = Report()
    fixed = P.repair_request(b, r)
    assert fixed["system"] == [{"type": "text", "text": "Be brief."}]
    assert len(original) == 2  # the body's own list is not changed in place
    assert [(rule, lossy) for rule, _, _, lossy in r.changes] == [("anthropic.request.system-empty-text", True)]
    # text that is not blank passes untouched, with no report
    r = Report()
    assert P.repair_request(body(system=" Be brief. "), r)["system"] == " Be brief. " and not r.rules()


def test_prefill_is_refused_from_claude_4_6_on_but_not_for_a_paused_turn() -> None:
    from toolwire_anthropic.profile import takes_prefill

    for model, ok in [
        ("claude-sonnet-4-5", True),
        ("claude-sonnet-4-20250514", True),
        ("claude-opus-4-1-20250805", True),
        ("claude-3-5-sonnet-20241022", True),
        ("claude-haiku-4-5-20251001", True),
        ("claude-opus-4-6", False),
        ("claude-sonnet-4-6-20260301", False),
        ("anthropic.claude-opus-4-6-v1:0", False),
        ("claude-opus-5", False),
        ("my-proxy-model", True),
    ]:
        assert takes_prefill(model) is ok, model
    prefill = convo(("user", [{"type": "text", "text": "hi"}]), ("assistant", [{"type": "text", "text": "The"}]))
    assert refused(body(model="claude-sonnet-4-5", messages=prefill)) == set()
    # a turn paused with pause_turn goes back as the last message so the model continues it
    paused = convo(
        ("user", [{"type": "text", "text": "search"}]),
        (
            "assistant",
            [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            ],
        ),
    )
    assert not any(
        r == "anthropic.conversation.prefill-unsupported"
        for r, _ in refused(body(model="claude-opus-4-6", messages=paused))
    )


@pytest.mark.parametrize(
    ("model", "left_out"),
    [
        ("claude-3-5-haiku-20241022", True),
        ("claude-3-5-sonnet-latest", True),
        ("claude-3-opus-20240229", True),
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", True),
        ("claude-3-5-haiku@20241022", True),
        ("claude-2.1", True),
        ("claude-3-7-sonnet-20250219", False),
        ("claude-haiku-4-5", False),
        ("claude-sonnet-4-5", False),
        ("my-proxy-alias", False),
    ],
)
def test_thinking_left_out_only_for_models_without_extended_thinking(model: str, left_out: bool) -> None:
    report = Report()
    sent = P.repair_request(
        body(model=model, max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}), report
    )
    assert ("thinking" not in sent) is left_out
    assert (("anthropic.request.thinking-model", "/thinking") in report.rules()) is left_out


def test_disabled_thinking_is_kept_for_models_without_extended_thinking() -> None:
    report = Report()
    sent = P.repair_request(body(model="claude-3-5-haiku-20241022", thinking={"type": "disabled"}), report)
    assert sent["thinking"] == {"type": "disabled"}
    assert report.rules() == set()


@pytest.mark.parametrize(
    ("prop", "keyword"),
    [
        ({"type": "object", "patternProperties": {"^X-": {"type": "string"}}}, "patternProperties"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "additionalProperties"),
        ({"type": "object", "additionalProperties": True}, "additionalProperties"),
        ({"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False}, "prefixItems"),
    ],
)
def test_a_strict_tool_with_a_map_or_tuple_is_sent_without_strict(prop: dict, keyword: str) -> None:
    from toolwire.schema.report import TranslationReport

    schema = {"type": "object", "properties": {"p": prop, "q": {"type": "string"}}, "required": ["q"]}
    report = TranslationReport("anthropic", "t")
    out = P.translate_schema(schema, report, strict=True)
    assert report.strict_possible is False
    assert out["properties"]["p"] == prop  # sent whole, not narrowed to an empty value
    assert [(c.pointer, c.lossy) for c in report.changes] == [(f"/properties/p/{keyword}", True)]
    # a plain object keeps strict
    report = TranslationReport("anthropic", "t")
    P.translate_schema({"type": "object", "properties": {"q": {"type": "string"}}}, report, strict=True)
    assert report.strict_possible is True


def test_assistant_images_are_reported_as_lossy() -> None:
    import toolwire
    from toolwire.types import ImagePart, Message, TextPart

    png = bytes.fromhex("89504e470d0a1a0a") + b"0" * 20
    m = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k")
    body = m.prepare(
        m.build_request(
            [
                Message.user("hi"),
                Message("assistant", [TextPart("here"), ImagePart(data=png, media_type="image/png")]),
                Message.user("ok"),
            ]
        )
    )
    assert [b["type"] for b in body["messages"][1]["content"]] == ["text", "text"]
    assert [(c.rule, c.pointer, c.lossy) for c in m.last_preflight.changes] == [
        ("anthropic.conversation.assistant-image", "/messages/1/parts/1", True)
    ]


def test_an_empty_thinking_setting_sends_no_thinking() -> None:
    import toolwire
    from toolwire.types import Message

    m = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k", thinking={})
    assert "thinking" not in m.prepare(m.build_request([Message.user("hi")]))


@pytest.mark.parametrize(
    "model, refused",
    [
        ("claude-fable-5-1", True),
        ("claude-mythos-5-1-20260901", True),
        ("us.anthropic.claude-fable-5-1-v1:0", True),
        # "Forced tool use returns an error" (what's new in Opus 5.5 and in Sonnet 5.5)
        ("claude-opus-5-5", True),
        ("claude-sonnet-5-5", True),
        ("anthropic/claude-opus-5.5", True),
        ("claude-fable-5", False),
        ("claude-mythos-5", False),
        ("claude-opus-4-8", False),
        ("claude-opus-5", False),
        ("claude-sonnet-5", False),
        ("claude-haiku-5-5", False),
        ("claude-fable-5-10", False),
        ("claude-opus-5-50", False),
    ],
)
def test_forced_tool_choice_refused_only_on_the_models_that_refuse_it(model: str, refused: bool) -> None:
    for choice in ({"type": "any"}, {"type": "tool", "name": "get_weather"}):
        found = [v.rule for v in P.check_request(body(model=model, tools=[tool()], tool_choice=choice))]
        assert ("anthropic.request.forced-tool-choice-model" in found) is refused, (model, choice)
    for choice in ({"type": "auto"}, {"type": "none"}):
        found = [v.rule for v in P.check_request(body(model=model, tools=[tool()], tool_choice=choice))]
        assert "anthropic.request.forced-tool-choice-model" not in found


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        # dotted version ids (gateways such as OpenRouter write anthropic/claude-opus-4.6): read as
        # the same version as the dashed id, not as 4.0
        ("anthropic/claude-opus-4.6", "max", "max"),
        ("anthropic/claude-opus-4.6", "xhigh", "high"),
        ("claude-sonnet-4.6", "max", "max"),
        ("claude-opus-4.7", "xhigh", "xhigh"),
        ("anthropic/claude-opus-4.8", "max", "max"),
        ("anthropic/claude-opus-4.5", "high", "high"),
        ("anthropic/claude-sonnet-4.5", "high", None),
    ],
)
def test_effort_reads_dotted_model_versions(model: str, effort: str, sent: str | None) -> None:
    r = Report()
    fixed = P.repair_request(body(model=model, output_config={"effort": effort}), r)
    assert (fixed.get("output_config") or {}).get("effort") == sent


@pytest.mark.parametrize(
    ("model", "kept"),
    [("anthropic/claude-opus-5.5", True), ("claude-opus-4.6", False), ("anthropic/claude-opus-4.8", False)],
)
def test_speed_reads_dotted_model_versions(model: str, kept: bool) -> None:
    fixed = P.repair_request(body(model=model, speed="fast"), Report())
    assert ("speed" in fixed) is kept


@pytest.mark.parametrize(
    ("model", "thinking", "kept"),
    [
        # thinking is always on there: no thinking setting means adaptive, so a continued final
        # assistant message keeps its thinking blocks
        ("claude-fable-5-2", None, True),
        ("claude-opus-5-5", None, True),
        ("claude-sonnet-5-5", {"type": "between_tools"}, True),
        ("claude-sonnet-4-6", {"type": "adaptive"}, True),
        # thinking off by default (or sources disagree): they are left out, as the API asks
        ("claude-sonnet-4-6", None, False),
        ("claude-haiku-5-5", None, False),
        ("claude-mythos-preview", None, False),
        ("claude-opus-5", {"type": "disabled"}, False),
    ],
)
def test_final_assistant_thinking_kept_where_thinking_is_on(model: str, thinking: Any, kept: bool) -> None:
    msgs = convo(("user", [{"type": "text", "text": "hi"}]), ("assistant", [SIG, {"type": "text", "text": "So"}]))
    bad = body(model=model, messages=msgs, **({"thinking": thinking} if thinking is not None else {}))
    report = Report()
    fixed = P.repair_request(copy.deepcopy(bad), report)
    assert (fixed["messages"][1]["content"][0] == SIG) is kept
    assert (("anthropic.conversation.thinking-when-disabled", "/messages/1/content") in report.rules()) is not kept
    assert [v.rule for v in P.check_request(bad) if "thinking-when" in v.rule] == (
        [] if kept else ["anthropic.conversation.thinking-when-disabled"]
    )


# -- model id spellings -------------------------------------------------------------------------------

#: Each model rule, as a body that breaks it for the model id given (every rule read from the model id).
MODEL_RULE_BODIES: dict[str, Any] = {
    "forced-tool-choice-model": lambda m: body(model=m, tools=[tool()], tool_choice={"type": "any"}),
    "thinking-off-model": lambda m: body(model=m, thinking={"type": "disabled"}),
    "sampling-model": lambda m: body(model=m, temperature=0.5, top_k=5),
    "speed-model": lambda m: body(model=m, speed="fast"),
    "max-tokens-model": lambda m: body(model=m, max_tokens=200_000),
    "thinking-model": lambda m: body(model=m, max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}),
    "effort-model": lambda m: body(model=m, output_config={"effort": "xhigh"}),
    "thinking-type-model": lambda m: body(
        model=m, max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}
    ),
    "temperature-and-top-p": lambda m: body(model=m, temperature=0.5, top_p=0.9),
    "prefill-unsupported": lambda m: body(
        model=m,
        messages=convo(("user", [{"type": "text", "text": "hi"}]), ("assistant", [{"type": "text", "text": "A"}])),
    ),
    "thinking-when-disabled": lambda m: body(
        model=m,
        messages=convo(("user", [{"type": "text", "text": "hi"}]), ("assistant", [SIG, {"type": "text", "text": "A"}])),
    ),
}


def _outcome(b: dict[str, Any]) -> tuple[Any, ...]:
    """What the profile does with ``b``: its violations, and the repaired body and its repairs (the
    model id left out: it is sent as written)."""
    report = Report()
    fixed = P.repair_request(copy.deepcopy(b), report)
    fixed.pop("model", None)
    return (
        sorted((v.rule, v.pointer) for v in P.check_request(b)),
        fixed,
        sorted((r, p, lossy) for r, p, _, lossy in report.changes),
    )


@pytest.mark.parametrize(
    ("canonical", "spellings"),
    [
        # the API takes the id; a gateway or the user may write it in other cases, with spaces or paths
        ("claude-opus-5-5", ["Claude-Opus-5-5", "CLAUDE-OPUS-5-5", " claude-opus-5-5 ", "anthropic/Claude-Opus-5.5"]),
        ("claude-opus-4-5-20251101", ["Claude-Opus-4-5-20251101", "us.anthropic.Claude-Opus-4-5-20251101-v1:0"]),
        ("claude-opus-4-6", ["Claude-Opus-4.6", "claude-opus-4-6@20260205", "anthropic.claude-opus-4-6-v1"]),
        ("claude-3-5-haiku-20241022", ["Claude-3-5-Haiku-20241022", "claude-3-5-haiku@20241022"]),
        ("claude-fable-5-1", ["Claude-Fable-5-1", "claude-fable-5.1"]),
        ("claude-opus-5", ["Claude-Opus-5-20260723", "CLAUDE-OPUS-5"]),
        ("claude-mythos-preview", ["Claude-Mythos-Preview"]),
        ("claude-sonnet-4-20250514", ["Claude-Sonnet-4-20250514"]),
    ],
)
@pytest.mark.parametrize("rule", sorted(MODEL_RULE_BODIES))
def test_every_model_rule_reads_every_spelling_of_the_model_id(canonical: str, spellings: list[str], rule: str) -> None:
    make = MODEL_RULE_BODIES[rule]
    want = _outcome(make(canonical))
    for spelling in spellings:
        assert _outcome(make(spelling)) == want, (rule, spelling)


def test_model_lookups_read_every_spelling() -> None:
    from toolwire_anthropic.profile import fast_mode_beta, max_output_tokens, model_key

    assert model_key(" Anthropic/Claude-Opus-4.6 ") == "claude-opus-4-6"
    assert model_key("us.anthropic.claude-opus-4-6-v1:0") == "claude-opus-4-6"
    assert model_key(None) == ""
    for spelling in ("Claude-Opus-4-5", " claude-opus-4-5", "anthropic/claude-opus-4.5"):
        assert P.cache_min_tokens(spelling) == 4096, spelling
        assert max_output_tokens(spelling) == 64000, spelling
    assert fast_mode_beta("Claude-Opus-5") is True and fast_mode_beta("CLAUDE-OPUS-5-5") is False


@pytest.mark.parametrize(
    ("model_id", "base_url", "problem"),
    [
        ("claude-opus-5-5", None, None),
        ("claude-opus-5-5-20261020", None, None),
        ("Claude-Opus-5-5", None, "write 'claude-opus-5-5'"),
        ("CLAUDE-SONNET-4-5", "https://api.anthropic.com", "write 'claude-sonnet-4-5'"),
        ("Claude-Opus-5-5", "https://llm-gateway.example/anthropic", None),  # a gateway's own name
        ("My-Proxy-Alias", None, None),  # not a Claude id: the API's own answer decides
        (" claude-opus-5-5", None, "write 'claude-opus-5-5'"),
        ("claude-opus-5-5\n", "https://llm-gateway.example", "write 'claude-opus-5-5'"),
        # another service's spelling, to the Claude API itself (a new user's 404 before)
        ("claude-sonnet-4.5", None, "write 'claude-sonnet-4-5'"),
        ("anthropic/claude-sonnet-4-5", "https://api.anthropic.com/", "write 'claude-sonnet-4-5'"),
        ("us.anthropic.claude-sonnet-4-5-v1:0", None, None),  # Bedrock's and Vertex AI's spellings: their
        ("claude-sonnet-4-5@20250929", None, None),  # clients' or a proxy's to judge
        ("anthropic/claude-sonnet-4-5", "https://openrouter.ai/api", None),  # the gateway's own name
        ("claude-sonnet-4-5-20250929", None, None),  # a dated snapshot is the Claude API's own id
        ("claude-sonnet-4-5/", None, "write the model's id, e.g. 'claude-sonnet-4-5'"),
        # the Claude 1 and 2 ids had a dotted version: the API's own ids (model deprecations page;
        # the Claude API answered "model": "claude-2.1" with a message: openllmetry cassette
        # packages/opentelemetry-instrumentation-langchain/tests/cassettes/test_llms/test_anthropic.yaml)
        ("claude-2.1", None, None),
        ("claude-2.0", "https://api.anthropic.com", None),
        ("claude-instant-1.2", None, None),
        ("claude-1.3", None, None),
        ("anthropic/claude-2.1", None, "write 'claude-2.1'"),
        ("Claude-Instant-1.2", None, "write 'claude-instant-1.2'"),
        ("claude-sonnet-4.5", "https://api.anthropic.com", "write 'claude-sonnet-4-5'"),
        ("anthropic/", "https://llm-gateway.example", "write the model's id, e.g. 'claude-sonnet-4-5'"),
    ],
)
def test_model_id_refused_when_the_claude_api_would_not_find_it(model_id: str, base_url: Any, problem: Any) -> None:
    from toolwire_anthropic.profile import model_id_problem

    found = model_id_problem(model_id, base_url)
    assert (found is None) if problem is None else (found is not None and found.endswith(problem)), found


@pytest.mark.parametrize("speed", ["turbo", "FAST", "", 1, True])
def test_a_speed_the_sdk_does_not_type_is_refused_not_dropped(speed: Any) -> None:
    """Rule anthropic.request.field-values: an unknown speed is refused on every model, naming the
    values (the speed-model repair does not drop it silently on a model without fast mode)."""
    for model in ("claude-opus-5-5", "claude-sonnet-4-5", "my-gateway-model"):
        report = Report()
        fixed = P.repair_request(body(model=model, speed=speed), report)
        assert fixed["speed"] == speed and report.changes == []
        (v,) = [v for v in P.check_request(fixed) if v.rule == "anthropic.request.field-values"]
        assert v.pointer == "/speed" and "'fast'" in v.message and "'standard'" in v.message
    for ok in ("fast", "standard", None):
        assert "anthropic.request.field-values" not in [v.rule for v in P.check_request(body(speed=ok))]


def test_a_real_image_after_long_white_space_is_not_reported_as_holding_no_bytes() -> None:
    """Base64 text padded with more white space than the first window read (a block built by hand,
    indented or wrapped): the head read was empty, and the PNG was refused as holding "no bytes"."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(40)
    source = {"type": "base64", "media_type": "image/png", "data": "\n" * 200 + base64.b64encode(png).decode()}
    bad = body(messages=convo(("user", [{"type": "image", "source": source}])))
    assert "anthropic.conversation.image-bytes" not in [v.rule for v in P.check_request(bad)]


def test_metadata_user_id_up_to_256_characters_passes() -> None:
    for n in (1, 255, 256):
        assert P.check_request(body(metadata={"user_id": "u" * n})) == [], n
    (v,) = P.check_request(body(metadata={"user_id": "u" * 300}))
    assert v.pointer == "/metadata/user_id" and "300 characters" in v.message and "at most 256" in v.message


@pytest.mark.parametrize(
    "bad, rule, said",
    [
        (
            body(stop_sequences=["END", "\n"]),
            "anthropic.request.stop-sequences-blank",
            "1 stop sequence of only whitespace left out: ['\\n']",
        ),
        (
            body(stop_sequences=["END", "\n", " "]),
            "anthropic.request.stop-sequences-blank",
            "2 stop sequences of only whitespace left out: ['\\n', ' ']",
        ),
        (
            body(messages=loop([USE]) + convo(("user", [{"type": "text", "text": "Summarise."}]))),
            "anthropic.request.tool-blocks-need-tools",
            "the history holds tool calls but the request declares no tools: 1 tool declared again",
        ),
        (
            body(
                messages=loop(
                    [USE, {**USE, "id": "toolu_2", "name": "get_time"}], [RESULT, {**RESULT, "tool_use_id": "toolu_2"}]
                )
                + convo(("user", [{"type": "text", "text": "Summarise."}]))
            ),
            "anthropic.request.tool-blocks-need-tools",
            "the history holds tool calls but the request declares no tools: 2 tools declared again",
        ),
    ],
)
def test_counted_repairs_say_one_in_the_singular(bad: dict[str, Any], rule: str, said: str) -> None:
    # the reports read "1 stop sequence(s)", "1 tool(s) declared"
    report = Report()
    P.repair_request(copy.deepcopy(bad), report)
    (detail,) = [d for r, _, d, _ in report.changes if r == rule]
    assert detail.startswith(said)
