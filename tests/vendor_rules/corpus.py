"""The breakage corpus: for every validator rule, small request bodies that break it (and only it),
plus valid bodies the validator must accept. Hand-written fixtures, not recordings.

``CASES``: list of :class:`Case` (api, rule id that must be flagged — and the only one —, body).
``VALID``: list of (api, name, body) that must give no violation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Case:
    api: str
    rule: str
    name: str
    body: Any
    also: tuple[str, ...] = ()

    @property
    def expected(self) -> set[str]:
        return {self.rule, *self.also}

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.name}"


CASES: list[Case] = []
VALID: list[tuple[str, str, Any]] = []


def case(
    api: str,
    rule: str,
    name: str,
    base: Callable[[], Any],
    mutate: Callable[[Any], Any] | None = None,
    also: tuple[str, ...] = (),
) -> None:
    """A broken body: ``base()`` changed by ``mutate``; it must be flagged by ``rule`` and by the
    rules in ``also`` (a breakage that naturally breaks two rules), and by no other rule."""
    body = base()
    if mutate is not None:
        mutate(body)  # in place; the return value is ignored
    CASES.append(Case(api, rule, name, body, also))


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
STRICT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


# =============================================================================================
# Anthropic
# =============================================================================================


def a_base() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Be brief.",
        "tools": [{"name": "get_weather", "description": "Forecast.", "input_schema": copy.deepcopy(SCHEMA)}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [
                            {"type": "text", "text": "sunny"},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                        ],
                    },
                    {"type": "text", "text": "Thanks."},
                ],
            },
        ],
    }


def a_think() -> dict[str, Any]:
    b = a_base()
    b["max_tokens"] = 4096
    b["thinking"] = {"type": "enabled", "budget_tokens": 2048}
    b["messages"][1]["content"].insert(0, {"type": "thinking", "thinking": "plan", "signature": "c2lnbmF0dXJl"})
    b["messages"][2]["content"].pop()  # the tool loop is ongoing: the last user turn is results only
    return b


def a_plain() -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [{"role": "user", "content": "Hi"}]}


VALID += [
    ("anthropic", "tool-loop", a_base()),
    ("anthropic", "thinking-loop", a_think()),
    ("anthropic", "plain", a_plain()),
    ("anthropic", "temperature-opus-4-6", {**a_plain(), "model": "claude-opus-4-6", "temperature": 0.2}),
    ("anthropic", "top-k-dated-opus-4", {**a_plain(), "model": "claude-opus-4-20250514", "top_k": 5}),
    (
        "anthropic",
        "redacted+prefill",
        {
            **a_plain(),
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "max_tokens": 2000,
            "messages": [
                {"role": "user", "content": "Hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "redacted_thinking", "data": "ZW5j"}, {"type": "text", "text": "Hello"}],
                },
            ],
        },
    ),
    (
        "anthropic",
        "whitespace-earlier-text",
        {
            **a_base(),
            "messages": [
                a_base()["messages"][0],
                {
                    **a_base()["messages"][1],
                    "content": [{"type": "text", "text": " "}, a_base()["messages"][1]["content"][1]],
                },
                a_base()["messages"][2],
            ],
        },
    ),
]

A = "anthropic"
case(A, "anthropic.body.shape", "not-an-object", lambda: ["messages"])
case(A, "anthropic.body.shape", "no-max-tokens", a_plain, lambda b: b.pop("max_tokens"))
case(A, "anthropic.settings.typed-values", "openai-service-tier", a_plain, lambda b: b.update(service_tier="priority"))
case(A, "anthropic.settings.typed-values", "free-form-metadata", a_plain, lambda b: b.update(metadata={"session": "x"}))
case(
    A,
    "anthropic.cache.ttl-order",
    "hour-after-five-minutes",
    a_plain,
    lambda b: b.update(
        tools=[{"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
        system=[{"type": "text", "text": "s", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
    ),
)
case(
    A,
    "anthropic.sampling.removed",
    "temperature-opus-4-7",
    a_plain,
    lambda b: b.update(model="claude-opus-4-7", temperature=0.2),
)
case(A, "anthropic.sampling.removed", "top-k-sonnet-5", a_plain, lambda b: b.update(model="claude-sonnet-5", top_k=5))
case(
    A,
    "anthropic.sampling.removed",
    "top-p-bedrock-opus-4-8",
    a_plain,
    lambda b: b.update(model="anthropic.claude-opus-4-8-v1:0", top_p=0.9),
)
case(
    A,
    "anthropic.tool-choice.forced-model",
    "any-fable-5-1",
    a_base,
    lambda b: b.update(model="claude-fable-5-1", tool_choice={"type": "any"}),
)
VALID.append(
    ("anthropic", "forced-tool-fable-5", {**a_base(), "model": "claude-fable-5", "tool_choice": {"type": "any"}})
)
case(
    A,
    "anthropic.tool-choice.forced-model",
    "tool-opus-5-5",
    a_base,
    lambda b: b.update(model="claude-opus-5-5", tool_choice={"type": "tool", "name": "get_weather"}),
)
case(
    A,
    "anthropic.tool-choice.forced-model",
    "any-sonnet-5-5",
    a_base,
    lambda b: b.update(model="claude-sonnet-5-5", tool_choice={"type": "any"}),
)
VALID.append(
    ("anthropic", "forced-tool-haiku-5-5", {**a_base(), "model": "claude-haiku-5-5", "tool_choice": {"type": "any"}})
)
case(
    A,
    "anthropic.effort.model",
    "xhigh-opus-4-6",
    a_plain,
    lambda b: b.update(model="claude-opus-4-6", output_config={"effort": "xhigh"}),
)
case(
    A,
    "anthropic.effort.model",
    "effort-sonnet-4-5",
    a_plain,
    lambda b: b.update(model="claude-sonnet-4-5", output_config={"effort": "low"}),
)
VALID.append(
    ("anthropic", "max-effort-opus-4-6", {**a_plain(), "model": "claude-opus-4-6", "output_config": {"effort": "max"}})
)
VALID.append(
    (
        "anthropic",
        "xhigh-effort-opus-4-7",
        {**a_plain(), "model": "claude-opus-4-7", "output_config": {"effort": "xhigh"}},
    )
)
case(A, "anthropic.speed.model", "fast-opus-4-7", a_plain, lambda b: b.update(model="claude-opus-4-7", speed="fast"))
case(
    A, "anthropic.speed.model", "fast-sonnet-4-6", a_plain, lambda b: b.update(model="claude-sonnet-4-6", speed="fast")
)
case(
    A,
    "anthropic.thinking.disabled-model",
    "disabled-opus-5-5",
    a_plain,
    lambda b: b.update(model="claude-opus-5-5", thinking={"type": "disabled"}),
)
case(
    A,
    "anthropic.thinking.disabled-model",
    "disabled-max-opus-5",
    a_plain,
    lambda b: b.update(model="claude-opus-5", thinking={"type": "disabled"}, output_config={"effort": "max"}),
)
VALID.append(
    ("anthropic", "disabled-sonnet-5", {**a_plain(), "model": "claude-sonnet-5", "thinking": {"type": "disabled"}})
)
case(A, "anthropic.speed.model", "fast-opus-4-8", a_plain, lambda b: b.update(model="claude-opus-4-8", speed="fast"))
case(A, "anthropic.speed.model", "fast-sonnet-5", a_plain, lambda b: b.update(model="claude-sonnet-5", speed="fast"))
case(A, "anthropic.speed.model", "fast-haiku-5-5", a_plain, lambda b: b.update(model="claude-haiku-5-5", speed="fast"))
# a leading assistant message: accepted by the first-party API (anthropics/anthropic-sdk-typescript#622)
VALID.append(
    (
        "anthropic",
        "starts-with-assistant",
        {**a_plain(), "messages": [{"role": "assistant", "content": "Hello"}, *a_plain()["messages"]]},
    )
)
VALID.append(("anthropic", "fast-opus-5-5", {**a_plain(), "model": "claude-opus-5-5", "speed": "fast"}))
VALID.append(("anthropic", "fast-fable-5-2", {**a_plain(), "model": "claude-fable-5-2", "speed": "fast"}))
case(A, "anthropic.body.shape", "empty-messages", a_plain, lambda b: b.update(messages=[]))
case(A, "anthropic.system.shape", "system-number", a_plain, lambda b: b.update(system=5))
case(
    A, "anthropic.message.shape", "role-tool", a_plain, lambda b: b["messages"].append({"role": "tool", "content": "x"})
)
case(
    A,
    "anthropic.message.shape",
    "unknown-block",
    a_plain,
    lambda b: b["messages"][0].update(content=[{"type": "video", "url": "x"}]),
)
case(
    A,
    "anthropic.message.alternation",
    "two-user-turns",
    a_plain,
    lambda b: b["messages"].append({"role": "user", "content": "again"}),
)
case(
    A,
    "anthropic.message.block-role",
    "redacted-thinking-in-user",
    a_plain,
    lambda b: b["messages"][0].update(
        content=[{"type": "text", "text": "Hi"}, {"type": "redacted_thinking", "data": "ZW5j"}]
    ),
)
case(A, "anthropic.text.non-empty", "empty-string-content", a_plain, lambda b: b["messages"][0].update(content=""))
case(
    A, "anthropic.text.non-empty", "empty-text-block", a_base, lambda b: b["messages"][1]["content"][0].update(text="")
)
case(
    A,
    "anthropic.image.source",
    "bmp-image",
    a_base,
    lambda b: b["messages"][2]["content"][0]["content"][1]["source"].update(media_type="image/bmp"),
)
case(
    A,
    "anthropic.image.source",
    "png-declared-jpeg",
    a_base,
    lambda b: b["messages"][2]["content"][0]["content"][1]["source"].update(media_type="image/jpeg"),
)
PDF_B64 = "JVBERi0xLjQKJSVFT0YK"  # "%PDF-1.4\n%%EOF\n"


def a_documents() -> dict[str, Any]:
    """A PDF and a plain-text document in the tool's result and a PDF in the user's turn."""
    b = a_base()
    b["messages"][2]["content"][0]["content"] += [
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
            "title": "q3.pdf",
        },
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}},
    ]
    b["messages"][0]["content"] = [
        {"type": "text", "text": "Weather in Paris?"},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
    ]
    return b


VALID.append(("anthropic", "documents", a_documents()))
case(
    A,
    "anthropic.document.source",
    "text-declared-pdf",
    a_documents,
    lambda b: b["messages"][2]["content"][0]["content"][3]["source"].update(media_type="application/pdf"),
)
case(
    A,
    "anthropic.document.source",
    "base64-docx",
    a_documents,
    lambda b: b["messages"][2]["content"][0]["content"][2]["source"].update(media_type="application/msword"),
)
case(
    A,
    "anthropic.document.source",
    "empty-pdf-in-user-turn",
    a_documents,
    lambda b: b["messages"][0]["content"].__setitem__(
        1, {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": ""}}
    ),
)
case(A, "anthropic.tool_use.shape", "input-string", a_base, lambda b: b["messages"][1]["content"][1].update(input="{}"))
case(
    A,
    "anthropic.tool_use.shape",
    "foreign-id",
    a_base,
    lambda b: (
        b["messages"][1]["content"][1].update(id="call|1"),
        b["messages"][2]["content"][0].update(tool_use_id="call|1"),
    ),
)
case(
    A,
    "anthropic.tool_use.unique-id",
    "same-id-twice",
    a_base,
    lambda b: b["messages"].extend(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Rome"}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "rain"}]},
        ]
    ),
)
case(
    A,
    "anthropic.tool_use.answered",
    "answered-by-text",
    a_base,
    lambda b: b["messages"][2].update(content=[{"type": "text", "text": "never mind"}]),
)
case(A, "anthropic.tool_use.trailing", "ends-on-call", a_base, lambda b: b["messages"].pop())
case(
    A,
    "anthropic.tool_result.orphan",
    "unknown-id",
    a_base,
    lambda b: b["messages"][2]["content"].insert(1, {"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}),
)
case(
    A,
    "anthropic.tool_result.once",
    "answered-twice",
    a_base,
    lambda b: b["messages"][2]["content"].insert(
        1, {"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"}
    ),
)
case(A, "anthropic.tool_result.first", "text-before-result", a_base, lambda b: b["messages"][2]["content"].reverse())
case(
    A,
    "anthropic.tool_result.shape",
    "is-error-string",
    a_base,
    lambda b: b["messages"][2]["content"][0].update(is_error="yes"),
)
case(
    A,
    "anthropic.tool_result.shape",
    "tool-use-inside-result",
    a_base,
    lambda b: b["messages"][2]["content"][0].update(
        content=[{"type": "tool_use", "id": "x", "name": "y", "input": {}}]
    ),
)
case(
    A,
    "anthropic.thinking.shape",
    "no-signature",
    a_base,
    lambda b: b["messages"][1]["content"].insert(0, {"type": "thinking", "thinking": "foreign"}),
)
case(
    A,
    "anthropic.thinking.first",
    "text-before-thinking",
    a_base,
    lambda b: b["messages"][1]["content"].insert(1, {"type": "thinking", "thinking": "t", "signature": "c2ln"}),
)
case(A, "anthropic.thinking.tool-loop", "loop-without-thinking", a_think, lambda b: b["messages"][1]["content"].pop(0))
case(
    A,
    "anthropic.thinking.final-without-thinking",
    "prefill-with-thinking",
    a_plain,
    lambda b: b["messages"].append(
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "t", "signature": "c2ln"}, {"type": "text", "text": "So"}],
        }
    ),
)
# thinking always on (no thinking field means adaptive) or between_tools: a paused turn sent back
# to be continued keeps its thinking blocks
_PAUSED_THINKING = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "t", "signature": "c2ln"},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
    ],
}
case(
    A,
    "anthropic.thinking.final-without-thinking",
    "paused-with-thinking-haiku-5-5",
    a_plain,
    lambda b: (b.update(model="claude-haiku-5-5"), b["messages"].append(_PAUSED_THINKING)),
)
VALID += [
    (
        "anthropic",
        "paused-thinking-fable-5-2",
        {**a_plain(), "model": "claude-fable-5-2", "messages": [*a_plain()["messages"], _PAUSED_THINKING]},
    ),
    (
        "anthropic",
        "paused-thinking-between-tools",
        {
            **a_plain(),
            "model": "claude-sonnet-5-5",
            "thinking": {"type": "between_tools"},
            "messages": [*a_plain()["messages"], _PAUSED_THINKING],
        },
    ),
]
case(A, "anthropic.tools.shape", "tool-without-schema", a_plain, lambda b: b.update(tools=[{"name": "f"}]))
case(
    A,
    "anthropic.tools.name",
    "dotted-name",
    a_plain,
    lambda b: b.update(tools=[{"name": "mcp.get", "input_schema": {"type": "object"}}]),
)
case(
    A,
    "anthropic.tools.unique-name",
    "declared-twice",
    a_base,
    lambda b: b["tools"].append(copy.deepcopy(b["tools"][0])),
)
case(
    A,
    "anthropic.tools.web-search-domains",
    "both-lists",
    a_base,
    lambda b: b["tools"].append(
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "allowed_domains": ["a.org"],
            "blocked_domains": ["b.org"],
        }
    ),
)
case(
    A,
    "anthropic.tools.web-search-domains",
    "empty-blocked-list",
    a_base,
    lambda b: b["tools"].append({"type": "web_search_20250305", "name": "web_search", "blocked_domains": []}),
)
VALID.append(
    (
        "anthropic",
        "web-search-one-domain-list",
        {
            **a_plain(),
            "tools": [
                {
                    "type": "web_search_20250305",
                    "name": "web_search",
                    "blocked_domains": ["b.org"],
                    "allowed_domains": None,
                }
            ],
        },
    )
)
case(A, "anthropic.tools.defer-loading", "all-deferred", a_base, lambda b: b["tools"][0].update(defer_loading=True))
case(
    A,
    "anthropic.tools.defer-loading",
    "deferred-breakpoint",
    a_base,
    lambda b: b["tools"].append(
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "defer_loading": True,
            "cache_control": {"type": "ephemeral"},
        }
    ),
)
case(A, "anthropic.tools.required-for-history", "calls-without-tools", a_base, lambda b: b.pop("tools"))
case(
    A,
    "anthropic.schema.root-object",
    "root-string",
    a_plain,
    lambda b: b.update(tools=[{"name": "f", "input_schema": {"type": "string"}}]),
)
case(
    A,
    "anthropic.schema.root-combinator",
    "root-anyof",
    a_plain,
    lambda b: b.update(
        tools=[
            {
                "name": "f",
                "input_schema": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
                },
            }
        ]
    ),
)
case(
    A,
    "anthropic.schema.valid",
    "bad-type-name",
    a_plain,
    lambda b: b.update(
        tools=[{"name": "f", "input_schema": {"type": "object", "properties": {"a": {"type": "strng"}}}}]
    ),
)
case(A, "anthropic.tool_choice.shape", "required-type", a_base, lambda b: b.update(tool_choice={"type": "required"}))
case(
    A,
    "anthropic.tool_choice.without-tools",
    "auto-without-tools",
    a_plain,
    lambda b: b.update(tool_choice={"type": "auto"}),
)
case(
    A,
    "anthropic.tool_choice.unknown-tool",
    "names-undeclared",
    a_base,
    lambda b: b.update(tool_choice={"type": "tool", "name": "nope"}),
)
case(A, "anthropic.thinking.forced-tool", "thinking-with-any", a_think, lambda b: b.update(tool_choice={"type": "any"}))
case(A, "anthropic.thinking.budget", "budget-below-1024", a_think, lambda b: b["thinking"].update(budget_tokens=512))
case(A, "anthropic.thinking.budget", "budget-above-max", a_think, lambda b: b.update(max_tokens=2048))


# =============================================================================================
# OpenAI Chat Completions
# =============================================================================================


def c_tool(strict: bool = False) -> dict[str, Any]:
    fn: dict[str, Any] = {
        "name": "get_weather",
        "description": "Forecast.",
        "parameters": copy.deepcopy(STRICT if strict else SCHEMA),
    }
    if strict:
        fn["strict"] = True
    return {"type": "function", "function": fn}


def c_base() -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "tools": [c_tool(), {**c_tool(True), "function": {**c_tool(True)["function"], "name": "get_weather_strict"}}],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "rain"}]},
            {"role": "user", "content": "And tomorrow?"},
        ],
    }


def c_plain() -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Hi"}]}


VALID += [
    ("openai-chat", "tool-loop", c_base()),
    ("openai-chat", "plain", c_plain()),
    (
        "openai-chat",
        "empty-assistant-string",
        {
            **c_plain(),
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": ""},
                {"role": "user", "content": "?"},
            ],
        },
    ),
]

C = "openai-chat"


def c_documents() -> dict[str, Any]:
    """A PDF a tool returned, in the user message after the tool messages, and one by file id."""
    b = c_base()
    b["messages"][-1]["content"] = [
        {"type": "text", "text": "Document(s) returned by tool call call_1 (get_weather):"},
        {"type": "file", "file": {"filename": "q3.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}},
        {"type": "file", "file": {"file_id": "file-abc"}},
    ]
    return b


VALID.append((C, "documents", c_documents()))
case(
    C,
    "openai-chat.message.file-part",
    "text-file-data",
    c_documents,
    lambda b: b["messages"][-1]["content"][1]["file"].update(file_data="data:text/plain;base64,aGk="),
)
case(
    C,
    "openai-chat.message.file-part",
    "no-filename",
    c_documents,
    lambda b: b["messages"][-1]["content"][1]["file"].pop("filename"),
)
case(C, "openai-chat.body.shape", "messages-missing", lambda: {"model": "gpt-4.1"})
case(
    C,
    "openai-chat.body.shape",
    "role-model",
    c_plain,
    lambda b: b["messages"].append({"role": "model", "content": "x"}),
)
case(
    C,
    "openai-chat.message.content",
    "image-part-in-system-as-file",
    c_plain,
    lambda b: b["messages"].insert(0, {"role": "system", "content": [{"type": "file", "file": {"file_id": "f"}}]}),
)
case(C, "openai-chat.message.content", "content-number", c_plain, lambda b: b["messages"][0].update(content=3))
case(
    C,
    "openai-chat.message.image-role",
    "image-in-tool-message",
    c_base,
    lambda b: b["messages"][4]["content"].append({"type": "image_url", "image_url": {"url": "https://x/y.png"}}),
)
case(
    C,
    "openai-chat.message.image-url",
    "image-url-missing",
    c_base,
    lambda b: b["messages"][1]["content"][1].update(image_url={}),
)
case(
    C,
    "openai-chat.message.assistant-empty",
    "assistant-null",
    c_plain,
    lambda b: b["messages"].extend([{"role": "assistant", "content": None}, {"role": "user", "content": "?"}]),
)
case(C, "openai-chat.message.tool-shape", "tool-without-content", c_base, lambda b: b["messages"][3].pop("content"))
case(
    C,
    "openai-chat.message.content-length",
    "tool-content-over-1MiB",
    c_base,
    lambda b: b["messages"][3].update(content="x" * 1_048_577),
)
case(
    C,
    "openai-chat.message.content-length",
    "tool-content-empty-array",
    c_base,
    lambda b: b["messages"][3].update(content=[]),
)
case(
    C,
    "openai-chat.tool-call.shape",
    "arguments-object",
    c_base,
    lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments={"city": "Paris"}),
)
case(
    C,
    "openai-chat.tool-call.arguments-json",
    "cut-off-arguments",
    c_base,
    lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments='{"city": "Par'),
)
case(
    C,
    "openai-chat.tool-call.arguments-json",
    "blank-arguments",
    c_base,
    lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments=""),
)
case(
    C,
    "openai-chat.tool-call.unique-id",
    "same-id-later",
    c_base,
    lambda b: b["messages"].extend(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        ]
    ),
)
case(C, "openai-chat.tool-call.answered", "one-unanswered", c_base, lambda b: b["messages"].pop(4))
case(C, "openai-chat.tool-call.trailing", "ends-on-calls", c_base, lambda b: b.update(messages=b["messages"][:3]))
case(
    C,
    "openai-chat.tool-message.orphan",
    "unknown-call-id",
    c_base,
    lambda b: b["messages"].insert(5, {"role": "tool", "tool_call_id": "call_9", "content": "?"}),
)
case(
    C,
    "openai-chat.tool-message.orphan",
    "answer-after-user-turn",
    c_base,
    lambda b: (
        b["messages"].append({"role": "tool", "tool_call_id": "call_2", "content": "late"}),
        b["messages"].pop(4),
    ),
    also=("openai-chat.tool-call.answered",),
)
case(
    C,
    "openai-chat.tool-message.once",
    "answered-twice",
    c_base,
    lambda b: b["messages"].insert(4, {"role": "tool", "tool_call_id": "call_1", "content": "again"}),
)
case(C, "openai-chat.tools.shape", "unknown-tool-type", c_plain, lambda b: b.update(tools=[{"type": "retrieval"}]))
case(
    C,
    "openai-chat.tools.name",
    "name-with-space",
    c_plain,
    lambda b: b.update(
        tools=[{"type": "function", "function": {"name": "get weather", "parameters": {"type": "object"}}}]
    ),
)
case(
    C,
    "openai-chat.schema.root-object",
    "root-array",
    c_plain,
    lambda b: b.update(tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}]),
)
case(
    C,
    "openai-chat.strict.root",
    "strict-root-anyof",
    c_plain,
    lambda b: b.update(
        tools=[
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "strict": True,
                    "parameters": {
                        "type": "object",
                        "properties": {},
                        "required": [],
                        "additionalProperties": False,
                        "anyOf": [{"type": "object", "properties": {}, "required": [], "additionalProperties": False}],
                    },
                },
            }
        ]
    ),
)
case(
    C,
    "openai-chat.strict.additional-properties",
    "nested-open-object",
    c_base,
    lambda b: (
        b["tools"][1]["function"]["parameters"]["properties"].update(
            opts={"type": "object", "properties": {}, "required": []}
        )
        or b["tools"][1]["function"]["parameters"]["required"].append("opts")
    ),
)
case(
    C,
    "openai-chat.strict.required-all",
    "optional-field",
    c_base,
    lambda b: b["tools"][1]["function"]["parameters"]["required"].pop(),
)
case(
    C,
    "openai-chat.strict.unsupported-keyword",
    "allof",
    c_base,
    lambda b: b["tools"][1]["function"]["parameters"]["properties"]["city"].update(allOf=[{"type": "string"}]),
)
case(
    C,
    "openai-chat.strict.ref",
    "ref-with-description",
    c_base,
    lambda b: (
        b["tools"][1]["function"]["parameters"].update({"$defs": {"City": {"type": "string"}}}),
        b["tools"][1]["function"]["parameters"]["properties"].update(city={"$ref": "#/$defs/City", "description": "d"}),
    ),
)
case(
    C,
    "openai-chat.strict.ref",
    "dangling-ref",
    c_base,
    lambda b: b["tools"][1]["function"]["parameters"]["properties"].update(city={"$ref": "#/$defs/Nope"}),
)
case(
    C,
    "openai-chat.strict.limits",
    "huge-enum",
    c_base,
    lambda b: b["tools"][1]["function"]["parameters"]["properties"]["city"].update(enum=[f"c{i}" for i in range(1001)]),
)
case(
    C,
    "openai-chat.request.function-calling-model",
    "chat-latest-with-tools",
    c_base,
    lambda b: b.update(model="gpt-5-chat-latest"),
)
case(
    C,
    "openai-chat.request.function-calling-model",
    "search-preview-snapshot-with-tools",
    c_base,
    lambda b: b.update(model="openai/gpt-4o-mini-search-preview-2025-03-11"),
)
VALID.append(("openai-chat", "toolless-model-without-tools", {**c_plain(), "model": "gpt-5-chat-latest"}))
case(
    C,
    "openai-chat.request.parallel-without-tools",
    "parallel-no-tools",
    c_plain,
    lambda b: b.update(parallel_tool_calls=False),
)
case(
    C,
    "openai-chat.request.tool-choice-without-tools",
    "choice-no-tools",
    c_plain,
    lambda b: b.update(tool_choice="none"),
)
case(
    C,
    "openai-chat.request.tool-choice-shape",
    "choice-undeclared",
    c_base,
    lambda b: b.update(tool_choice={"type": "function", "function": {"name": "nope"}}),
)


# =============================================================================================
# OpenAI Responses
# =============================================================================================


def _deep(n: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(n):
        node = {"type": "object", "properties": {"x": node}, "required": ["x"], "additionalProperties": False}
    return node


def r_base() -> dict[str, Any]:
    return {
        "model": "gpt-5",
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Forecast.",
                "parameters": copy.deepcopy(SCHEMA),
                "strict": False,
            },
            {"type": "function", "name": "get_weather_strict", "parameters": copy.deepcopy(STRICT), "strict": True},
        ],
        "tool_choice": "auto",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Weather?"},
                    {"type": "input_image", "image_url": "data:image/png;base64," + PNG},
                ],
            },
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "encrypted_content": "ZW5j",
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
            },
            {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "rain"}]},
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
            },
            {"role": "user", "content": "Thanks"},
        ],
    }


VALID += [
    ("openai", "tool-loop", r_base()),
    ("openai", "string-input", {"model": "gpt-5", "input": "Hi"}),
    (
        "openai",
        "continued",
        {
            "model": "gpt-5",
            "previous_response_id": "resp_1",
            "input": [{"type": "function_call_output", "call_id": "call_9", "output": "x"}],
        },
    ),
    ("openai-responses", "old-label", {"model": "gpt-5", "input": "Hi"}),
]

O = "openai"  # noqa: E741 - a one-letter alias in the case tables, as A and G are
case(O, "openai.body.shape", "input-number", lambda: {"model": "gpt-5", "input": 7})
case(
    O,
    "openai.body.shape",
    "chat-tool-message",
    r_base,
    lambda b: b["input"].append({"type": "tool", "tool_call_id": "call_1", "content": "x"}),
)
case(
    O,
    "openai.message.shape",
    "assistant-input-text",
    r_base,
    lambda b: b["input"].insert(7, {"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}),
)
case(O, "openai.message.shape", "role-tool", r_base, lambda b: b["input"].append({"role": "tool", "content": "x"}))
case(O, "openai.item.id-prefix", "foreign-item-id", r_base, lambda b: b["input"][2].update(id="toolu_01"))
case(O, "openai.function_call.shape", "no-name", r_base, lambda b: b["input"][3].pop("name"))
case(O, "openai.function_call.arguments-json", "cut-off", r_base, lambda b: b["input"][3].update(arguments='{"ci'))
case(
    O,
    "openai.function_call.unique-id",
    "same-call-id",
    r_base,
    lambda b: b["input"].insert(
        3, {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
    ),
)
case(O, "openai.function_call.answered", "unanswered", r_base, lambda b: b["input"].pop(5))
case(O, "openai.function_call.trailing", "ends-on-call", r_base, lambda b: b.update(input=b["input"][:4]))
case(
    O,
    "openai.function_call_output.orphan",
    "unknown-call-id",
    r_base,
    lambda b: b["input"].insert(6, {"type": "function_call_output", "call_id": "call_9", "output": "?"}),
)
case(
    O,
    "openai.function_call_output.orphan",
    "output-before-call",
    r_base,
    lambda b: b["input"].insert(0, b["input"].pop(4)),
    also=("openai.function_call.answered",),
)
case(
    O,
    "openai.function_call_output.once",
    "answered-twice",
    r_base,
    lambda b: b["input"].insert(6, {"type": "function_call_output", "call_id": "call_2", "output": "again"}),
)
case(
    O,
    "openai.function_call_output.shape",
    "output-object",
    r_base,
    lambda b: b["input"][4].update(output={"text": "x"}),
)
case(O, "openai.reasoning.shape", "no-summary", r_base, lambda b: b["input"][1].pop("summary"))
case(
    O,
    "openai.reasoning.following-item",
    "reasoning-before-user",
    r_base,
    lambda b: b["input"].insert(7, {"type": "reasoning", "id": "rs_2", "summary": []}),
)
case(O, "openai.tools.shape", "tool-not-object", r_base, lambda b: b["tools"].append("get_weather"))
case(O, "openai.tools.name", "name-with-colon", r_base, lambda b: b["tools"][0].update(name="ns:get"))
case(
    O, "openai.schema.root-object", "root-string", r_base, lambda b: b["tools"][0].update(parameters={"type": "string"})
)
case(
    O,
    "openai.strict.root",
    "strict-root-anyof",
    r_base,
    lambda b: b["tools"][1]["parameters"].update(anyOf=[copy.deepcopy(STRICT)]),
)
case(
    O,
    "openai.strict.additional-properties",
    "root-open",
    r_base,
    lambda b: b["tools"][1]["parameters"].pop("additionalProperties"),
)
case(O, "openai.strict.required-all", "optional-field", r_base, lambda b: b["tools"][1]["parameters"]["required"].pop())
case(
    O,
    "openai.strict.unsupported-keyword",
    "not",
    r_base,
    lambda b: b["tools"][1]["parameters"]["properties"]["city"].update({"not": {"const": "x"}}),
)
case(
    O,
    "openai.strict.ref",
    "ref-sibling",
    r_base,
    lambda b: (
        b["tools"][1]["parameters"].update({"$defs": {"C": {"type": "string"}}}),
        b["tools"][1]["parameters"]["properties"].update(city={"$ref": "#/$defs/C", "default": "x"}),
    ),
)
case(O, "openai.strict.limits", "too-deep", r_base, lambda b: b["tools"][1].update(parameters=_deep(12)))
case(
    O,
    "openai.request.tool-choice-shape",
    "choice-undeclared",
    r_base,
    lambda b: b.update(tool_choice={"type": "function", "name": "nope"}),
)
case(O, "openai.request.function-calling-model", "o1-mini-with-tools", r_base, lambda b: b.update(model="o1-mini"))


# =============================================================================================
# Gemini
# =============================================================================================


def g_base() -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "get_weather", "description": "Forecast.", "parametersJsonSchema": copy.deepcopy(SCHEMA)},
                    {
                        "name": "mcp.get_time",
                        "parameters": {"type": "OBJECT", "properties": {"zone": {"type": "STRING", "enum": ["utc"]}}},
                    },
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"},
                    {"functionCall": {"id": "fc_2", "name": "get_weather", "args": {"city": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}},
                    {"functionResponse": {"id": "fc_2", "name": "get_weather", "response": {"output": "rain"}}},
                ],
            },
            {"role": "model", "parts": [{"text": "Sunny, then rain.", "thought_signature": "c2ln"}]},
            {"role": "user", "parts": [{"text": "Thanks"}]},
        ],
    }


VALID += [("gemini", "tool-loop", g_base()), ("gemini", "plain", {"contents": [{"parts": [{"text": "Hi"}]}]})]

G = "gemini"
case(G, "gemini.body.shape", "no-contents", lambda: {"generationConfig": {}})
case(G, "gemini.content.role", "role-assistant", g_base, lambda b: b["contents"][4].update(role="assistant"))
case(G, "gemini.content.parts-non-empty", "empty-parts", g_base, lambda b: b["contents"][4].update(parts=[]))
case(
    G,
    "gemini.part.one-data-field",
    "text-and-call",
    g_base,
    lambda b: b["contents"][3]["parts"][0].update(inlineData={"mimeType": "image/png", "data": PNG}),
)
case(
    G,
    "gemini.part.one-data-field",
    "signature-only",
    g_base,
    lambda b: b["contents"][3]["parts"].append({"thoughtSignature": "c2ln"}),
)
case(G, "gemini.part.unknown-field", "id-on-part", g_base, lambda b: b["contents"][1]["parts"][0].update(id="x"))
case(
    G,
    "gemini.part.thought-signature",
    "not-base64",
    g_base,
    lambda b: b["contents"][1]["parts"][0].update(thoughtSignature="not base64!"),
)
case(
    G,
    "gemini.part.thought-signature",
    "thought-in-user",
    g_base,
    lambda b: b["contents"][4]["parts"].append({"text": "t", "thought": True}),
)
case(
    G,
    "gemini.inline-data.shape",
    "no-mime",
    g_base,
    lambda b: b["contents"][0]["parts"][1]["inlineData"].pop("mimeType"),
)
case(
    G,
    "gemini.function-call.shape",
    "args-string",
    g_base,
    lambda b: b["contents"][1]["parts"][0]["functionCall"].update(args="{}"),
)
case(
    G,
    "gemini.function-response.shape",
    "response-string",
    g_base,
    lambda b: b["contents"][2]["parts"][0]["functionResponse"].update(response="sunny"),
)
case(
    G,
    "gemini.function-call.role",
    "call-in-user",
    g_base,
    lambda b: b["contents"][4]["parts"].append({"functionCall": {"name": "get_weather", "args": {}}}),
)
case(
    G,
    "gemini.function-call.role",
    "response-in-model",
    g_base,
    lambda b: b["contents"][3]["parts"].append({"functionResponse": {"name": "get_weather", "response": {}}}),
    also=("gemini.function-response.position",),
)
case(
    G,
    "gemini.function-call.position",
    "call-after-model",
    g_base,
    lambda b: (
        b["contents"].insert(4, {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]})
        or b["contents"].insert(
            5, {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {}}}]}
        )
    ),
)
case(
    G,
    "gemini.function-response.position",
    "response-after-text",
    g_base,
    lambda b: b["contents"].append(
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {}}}]}
    ),
)
case(
    G,
    "gemini.function-response.count",
    "extra-response",
    g_base,
    lambda b: b["contents"][2]["parts"].append(
        {"functionResponse": {"name": "get_weather", "response": {"output": "?"}}}
    ),
)
case(
    G,
    "gemini.function-response.count",
    "split-responses",
    g_base,
    lambda b: b["contents"].insert(3, {"role": "user", "parts": [b["contents"][2]["parts"].pop()]}),
    also=("gemini.function-response.match", "gemini.function-response.position"),
)
case(
    G,
    "gemini.function-response.match",
    "id-not-echoed",
    g_base,
    lambda b: b["contents"][2]["parts"][1]["functionResponse"].pop("id"),
)
case(
    G,
    "gemini.function-response.match",
    "wrong-name",
    g_base,
    lambda b: b["contents"][2]["parts"][0]["functionResponse"].update(name="other"),
)
case(G, "gemini.function-call.trailing", "ends-on-call", g_base, lambda b: b.update(contents=b["contents"][:2]))
case(
    G,
    "gemini.tools.shape",
    "declarations-object",
    g_base,
    lambda b: b["tools"].append({"functionDeclarations": {"name": "x"}}),
)
case(
    G,
    "gemini.tools.name",
    "starts-with-digit",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1].update(name="1tool"),
)
case(
    G,
    "gemini.schema.exclusive",
    "both-schemas",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][0].update(parameters={"type": "OBJECT", "properties": {}}),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "additional-properties",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"].update(additionalProperties=False),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "type-list",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"]["zone"].update(
        type=["STRING", "NULL"]
    ),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "integer-enum",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"]["zone"].update(enum=[1, 2]),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "empty-enum-member",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"]["zone"].update(enum=["UTC", ""]),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "anyof-with-description",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"].update(
        either={"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "description": "A name or a number."}
    ),
)
case(
    G,
    "gemini.schema.parameters-subset",
    "properties-on-string",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"].update(
        data={"type": "STRING", "properties": {"id": {"type": "STRING"}}}
    ),
)
case(
    G,
    "gemini.schema.parameter-name",
    "dash-in-name",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][1]["parameters"]["properties"].update(
        {"time-zone": {"type": "STRING"}}
    ),
)
case(
    G,
    "gemini.schema.json-root-object",
    "root-array",
    g_base,
    lambda b: b["tools"][0]["functionDeclarations"][0].update(
        parametersJsonSchema={"type": "array", "items": {"type": "string"}}
    ),
)
case(
    G,
    "gemini.tool-config.mode",
    "mode-required",
    g_base,
    lambda b: b["toolConfig"].update(functionCallingConfig={"mode": "REQUIRED"}),
)
case(
    G,
    "gemini.tool-config.allowed-names-mode",
    "names-with-auto",
    g_base,
    lambda b: b["toolConfig"]["functionCallingConfig"].update(mode="AUTO"),
)
case(
    G,
    "gemini.tool-config.allowed-names-declared",
    "undeclared-name",
    g_base,
    lambda b: b["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"].append("nope"),
)


# --- built-in tools with functions, thinking by model, minimal effort with web search ----------------

case(
    G,
    "gemini.tools.built-in-with-functions",
    "search-and-functions",
    g_base,
    lambda b: b["tools"].append({"googleSearch": {}}),
)
case(
    G,
    "gemini.tools.built-in-with-functions",
    "code-execution-flag-false",
    g_base,
    lambda b: (
        b["tools"].append({"code_execution": {}}),
        b["toolConfig"].update(includeServerSideToolInvocations=False),
    ),
)
VALID.append(
    (
        "gemini",
        "search-and-functions-flagged",
        (
            lambda b: (
                b["tools"].append({"googleSearch": {}}),
                b["toolConfig"].update(includeServerSideToolInvocations=True),
                b,
            )[-1]
        )(g_base()),
    )
)
case(A, "anthropic.thinking.model", "haiku-3-5-enabled", a_think, lambda b: b.update(model="claude-3-5-haiku-20241022"))
case(
    A,
    "anthropic.thinking.model",
    "bedrock-sonnet-3-5-adaptive",
    a_plain,
    lambda b: b.update(model="anthropic.claude-3-5-sonnet-20240620-v1:0", thinking={"type": "adaptive"}),
)
VALID.append(
    (
        "anthropic",
        "haiku-3-5-thinking-disabled",
        {**a_plain(), "model": "claude-3-5-haiku-20241022", "thinking": {"type": "disabled"}},
    )
)
case(
    O,
    "openai.reasoning.minimal-web-search",
    "minimal-with-web-search",
    r_base,
    lambda b: (b.update(reasoning={"effort": "minimal"}), b["tools"].append({"type": "web_search"})),
)
case(
    G,
    "gemini.cache.held-fields",
    "cached-with-tools",
    g_base,
    lambda b: b.update(cachedContent="cachedContents/abc"),
    also=(),
)
