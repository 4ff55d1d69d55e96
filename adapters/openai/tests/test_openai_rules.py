"""The OpenAI profiles as specifications: one case per rule of each API (Chat Completions and
Responses), case B26 exactly as stated, and the preflight through the real ``openai`` SDK over
``httpx2.MockTransport`` (a refused request is never sent; a repaired one is sent repaired).

Each rule case is a body written in the vendor's wire format that breaks the rule. For a
``refuse`` rule the check names the rule at the expected JSON pointer and the repair leaves it
broken; for ``repair``/``report`` rules the check names it before the repair, nothing after it,
and the repaired body is compared with the exact expected value.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
from typing import Any, Callable

import httpx2
import pytest
from openai_wire import _make, completion, fc_item, json_response, response_body, tool_call
from toolwire_openai import OpenAIChatCodec, OpenAIResponsesCodec
from toolwire_openai.profile import (
    CHAT_RULES,
    RESPONSES_RULES,
    OpenAIChatProfile,
    OpenAIResponsesProfile,
    reasoning_family,
    sanitize_name,
    short_call_id,
)

import toolwire
from toolwire.errors import ConfigurationError, SchemaTranslationError
from toolwire.profile import RequestRefused, RequestReport
from toolwire.tools import Tool
from toolwire.types import Message, ToolCall, ToolResult

CHAT = OpenAIChatProfile()
RESP = OpenAIResponsesProfile()

OBJ = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


# ------------------------------------------------------------------------------------ helpers


def rules_of(violations: list[Any]) -> list[tuple[str, str]]:
    return [(v.rule, v.pointer) for v in violations]


def repaired(profile: Any, body: dict[str, Any]) -> tuple[dict[str, Any], RequestReport]:
    report = RequestReport(profile.api)
    out = profile.repair_request(copy.deepcopy(body), report)
    return out, report


def nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"x": node}, "required": ["x"], "additionalProperties": False}
    return node


# wire shapes of one function tool / one call / one result per API


def chat_tool(
    name: str = "get_weather", params: Any = OBJ, strict: bool | None = None, desc: str = "Weather."
) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": name, "description": desc, "parameters": copy.deepcopy(params)}
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


def resp_tool(
    name: str = "get_weather", params: Any = OBJ, strict: bool | None = False, desc: str = "Weather."
) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": desc,
        "parameters": copy.deepcopy(params),
        "strict": strict,
    }


def chat_body(**kw: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}], "stream": False, **kw}


def resp_body(**kw: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1-mini", "input": [{"role": "user", "content": "hi"}], "stream": False, **kw}


def chat_turn(call_id: str = "call_1", name: str = "get_weather", result: Any = "sunny") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "tool_calls": [tool_call(call_id, name, '{"city": "Paris"}')]},
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def resp_turn(call_id: str = "call_1", name: str = "get_weather", output: Any = "sunny") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": call_id, "name": name, "arguments": '{"city": "Paris"}'},
        {"type": "function_call_output", "call_id": call_id, "output": output},
    ]


#: A 1x1 PNG, as base64.
PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
#: base64 of an HTML error page (what a failed download saved as chart.png holds)
HTML_404 = "PGh0bWw+NDA0IG5vdCBmb3VuZDwvaHRtbD4="


class Api:
    """What a shared case needs to build a body of one API."""

    def __init__(
        self,
        profile: Any,
        tool: Callable[..., dict[str, Any]],
        body: Callable[..., dict[str, Any]],
        params_ptr: str,
        fn_of: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> None:
        self.profile, self.tool, self.body, self.params_ptr, self.fn_of = profile, tool, body, params_ptr, fn_of


CHAT_API = Api(CHAT, chat_tool, chat_body, "/tools/0/function/parameters", lambda b: b["tools"][0]["function"])
RESP_API = Api(RESP, resp_tool, resp_body, "/tools/0/parameters", lambda b: b["tools"][0])


# --------------------------------------------------------------- cases shared by both APIs
# Each: suffix -> (make(api) -> body, pointer(api) -> expected pointer, check(api, repaired body, report) or None)


def _params_after(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    return api.fn_of(body)["parameters"]


SHARED: dict[str, tuple[Callable[[Api], dict[str, Any]], Callable[[Api], str], Any]] = {
    # a value the installed SDK's Literal type does not hold (Anthropic's tier name here)
    "request.field-values": (lambda a: a.body(service_tier="standard_only"), lambda a: "/service_tier", None),
    "tool.name": (
        lambda a: a.body(tools=[a.tool("files.read")]),
        lambda a: a.params_ptr.rsplit("/", 1)[0] + "/name",
        lambda a, b, r: a.fn_of(b)["name"] == "files_read",
    ),
    # "The function name 'python' is reserved for use by this model." (onyx-dot-app/onyx#13235)
    "tool.reserved-name": (
        lambda a: a.body(tools=[a.tool("python")]),
        lambda a: a.params_ptr.rsplit("/", 1)[0] + "/name",
        lambda a, b, r: a.fn_of(b)["name"] == "run_python",
    ),
    "tools.count": (lambda a: a.body(tools=[a.tool(f"t{i}") for i in range(129)]), lambda a: "/tools", None),
    "schema.root-not-object": (
        lambda a: a.body(tools=[a.tool(params={"type": "string"})]),
        lambda a: a.params_ptr + "/type",
        None,
    ),
    "schema.root-combinator": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}},
                        "anyOf": [{"required": ["id"]}, {"required": ["tag"]}],
                    }
                )
            ]
        ),
        lambda a: a.params_ptr + "/anyOf",
        lambda a, b, r: (
            _params_after(a, b)
            == {"type": "object", "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}}}
            and any(c.lossy for c in r.changes)
        ),
    ),
    "schema.shape": (
        lambda a: a.body(tools=[a.tool(params={"type": "object", "properties": [], "required": None})]),
        lambda a: a.params_ptr + "/properties",
        lambda a, b, r: _params_after(a, b) == {"type": "object", "properties": {}},
    ),
    "schema.array-items": (
        lambda a: a.body(
            tools=[a.tool(params={"type": "object", "properties": {"tags": {"type": ["array", "null"]}}})]
        ),
        lambda a: a.params_ptr + "/properties/tags",
        lambda a, b, r: _params_after(a, b)["properties"]["tags"] == {"type": ["array", "null"], "items": {}},
    ),
    "strict.closed-objects": (
        lambda a: a.body(tools=[a.tool(params=OBJ, strict=True)]),
        lambda a: a.params_ptr + "/additionalProperties",
        lambda a, b, r: _params_after(a, b) == {**OBJ, "additionalProperties": False} and a.fn_of(b)["strict"] is True,
    ),
    "strict.all-required": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                        "required": ["a"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/required",
        lambda a, b, r: _params_after(a, b)["required"] == ["a", "b"] and a.fn_of(b)["strict"] is True,
    ),
    "strict.no-default": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"lang": {"type": "string", "default": "en"}},
                        "required": ["lang"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/lang/default",
        lambda a, b, r: (
            _params_after(a, b)
            == {
                "type": "object",
                "properties": {"lang": {"type": "string"}},
                "required": ["lang"],
                "additionalProperties": False,
            }
        ),
    ),
    "strict.keywords": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"q": {"type": "string", "minLength": 1}},
                        "required": ["q"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/q/minLength",
        lambda a, b, r: (
            _params_after(a, b)["properties"]["q"] == {"type": "string"} and any(c.lossy for c in r.changes)
        ),
    ),
    "strict.formats": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"u": {"type": "string", "format": "uri"}},
                        "required": ["u"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/u/format",
        lambda a, b, r: _params_after(a, b)["properties"]["u"] == {"type": "string"},
    ),
    "strict.object-properties": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"opts": {"type": "object", "additionalProperties": False}},
                        "required": ["opts"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/opts",
        lambda a, b, r: (
            _params_after(a, b)["properties"]["opts"]
            == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
        ),
    ),
    "strict.ref-siblings": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "$defs": {"City": {"type": "string"}},
                        "properties": {"c": {"$ref": "#/$defs/City", "description": "target"}},
                        "required": ["c"],
                        "additionalProperties": False,
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/c",
        lambda a, b, r: (
            _params_after(a, b)["properties"]["c"] == {"type": "string", "description": "target"}
            and a.fn_of(b)["strict"] is True
        ),
    ),
    "strict.inexpressible": (
        lambda a: a.body(
            tools=[
                a.tool(
                    params={
                        "type": "object",
                        "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
                        "required": ["tags"],
                    },
                    strict=True,
                )
            ]
        ),
        lambda a: a.params_ptr + "/properties/tags/additionalProperties",
        lambda a, b, r: (
            a.fn_of(b)["strict"] is False
            and _params_after(a, b)["properties"]["tags"]["additionalProperties"] == {"type": "string"}
        ),
    ),
    "strict.size-limits": (
        lambda a: a.body(tools=[a.tool(params=nested(11), strict=True)]),
        lambda a: a.params_ptr,
        lambda a, b, r: a.fn_of(b)["strict"] is False and _params_after(a, b) == nested(11),
    ),
    "request.function-calling-model": (
        lambda a: a.body(model="gpt-5-chat-latest", tools=[a.tool()]),
        lambda a: "/tools",
        None,
    ),
    "request.parallel-without-tools": (
        lambda a: a.body(parallel_tool_calls=False),
        lambda a: "/parallel_tool_calls",
        lambda a, b, r: "parallel_tool_calls" not in b,
    ),
    "request.tool-choice-without-tools": (
        lambda a: a.body(tool_choice="none"),
        lambda a: "/tool_choice",
        lambda a, b, r: "tool_choice" not in b,
    ),
    "request.forced-tool-choice-without-tools": (
        lambda a: a.body(tool_choice="required"),
        lambda a: "/tool_choice",
        None,
    ),
    "request.tool-choice-unknown-tool": (
        lambda a: a.body(
            tools=[a.tool("get_weather")],
            tool_choice=(
                {"type": "function", "function": {"name": "get_time"}}
                if a is CHAT_API
                else {"type": "function", "name": "get_time"}
            ),
        ),
        lambda a: "/tool_choice",
        None,
    ),
    "request.stream-options-without-stream": (
        lambda a: a.body(stream_options={"include_usage": True}),
        lambda a: "/stream_options",
        lambda a, b, r: "stream_options" not in b and b["stream"] is False,
    ),
    "request.temperature-range": (lambda a: a.body(temperature=2.5), lambda a: "/temperature", None),
    "request.top-p-range": (lambda a: a.body(top_p=2), lambda a: "/top_p", None),
    "request.top-logprobs-range": (
        lambda a: a.body(top_logprobs=21, **({"logprobs": True} if a is CHAT_API else {})),
        lambda a: "/top_logprobs",
        None,
    ),
    "conversation.image-media-type": (
        lambda a: a.body(
            **(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "text", "text": "look"},
                                {"type": "image_url", "image_url": {"url": "data:image/bmp;base64,Qk0="}},
                            ],
                        }
                    ]
                }
                if a is CHAT_API
                else {
                    "input": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "input_text", "text": "look"},
                                {"type": "input_image", "image_url": "data:image/bmp;base64,Qk0="},
                            ],
                        }
                    ]
                }
            )
        ),
        lambda a: "/messages/0/content/1/image_url/url" if a is CHAT_API else "/input/0/content/1/image_url",
        None,
    ),
    # a 1x1 PNG declared image/jpeg: sent as data:image/png, reported (not lossy)
    "conversation.image-media-type-data": (
        lambda a: a.body(
            **(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "text", "text": "look"},
                                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + PNG_1PX}},
                            ],
                        }
                    ]
                }
                if a is CHAT_API
                else {
                    "input": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "input_text", "text": "look"},
                                {"type": "input_image", "image_url": "data:image/jpeg;base64," + PNG_1PX},
                            ],
                        }
                    ]
                }
            )
        ),
        lambda a: "/messages/0/content/1/image_url/url" if a is CHAT_API else "/input/0/content/1/image_url",
        lambda a, b, r: (
            (
                b["messages"][0]["content"][1]["image_url"]["url"]
                if a is CHAT_API
                else b["input"][0]["content"][1]["image_url"]
            )
            == "data:image/png;base64," + PNG_1PX
            and [(c.detail, c.lossy) for c in r.changes if c.rule.endswith(".conversation.image-media-type-data")]
            == [("media type 'image/jpeg' sent as 'image/png': the image's bytes are PNG", False)]
        ),
    ),
    # an HTML error page declared image/png (a download saved as chart.png): refused, nothing sent
    "conversation.image-bytes": (
        lambda a: a.body(
            **(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "text", "text": "look"},
                                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + HTML_404}},
                            ],
                        }
                    ]
                }
                if a is CHAT_API
                else {
                    "input": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "input_text", "text": "look"},
                                {"type": "input_image", "image_url": "data:image/png;base64," + HTML_404},
                            ],
                        }
                    ]
                }
            )
        ),
        lambda a: "/messages/0/content/1/image_url/url" if a is CHAT_API else "/input/0/content/1/image_url",
        None,
    ),
    "conversation.image-url": (
        lambda a: a.body(
            **(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "text", "text": "look"},
                                {"type": "image_url", "image_url": {"url": "file:///tmp/chart.png"}},
                            ],
                        }
                    ]
                }
                if a is CHAT_API
                else {
                    "input": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "input_text", "text": "look"},
                                {"type": "input_image", "image_url": "data:image/png;base64,"},
                            ],
                        }
                    ]
                }
            )
        ),
        lambda a: "/messages/0/content/1/image_url/url" if a is CHAT_API else "/input/0/content/1/image_url",
        None,
    ),
    "request.max-tokens-range": (
        lambda a: a.body(**({"max_completion_tokens": 0} if a is CHAT_API else {"max_output_tokens": 15})),
        lambda a: "/max_completion_tokens" if a is CHAT_API else "/max_output_tokens",
        None,
    ),
    "request.sampling-reasoning-model": (
        lambda a: a.body(model="o3-mini", temperature=0.2),
        lambda a: "/temperature",
        None,
    ),
    "request.metadata": (lambda a: a.body(metadata={f"k{i}": "v" for i in range(17)}), lambda a: "/metadata", None),
    "request.identifier-length": (lambda a: a.body(prompt_cache_key="k" * 65), lambda a: "/prompt_cache_key", None),
}


def _chat_call_name_body() -> dict[str, Any]:
    return chat_body(tools=[chat_tool()], messages=chat_turn(name="files.read"))


def _resp_call_name_body() -> dict[str, Any]:
    return resp_body(tools=[resp_tool()], input=resp_turn(name="files.read"))


LONG_ID = "toolu_01" + "A" * 62  # 70 characters: past both bounds

CHAT_ONLY: dict[str, tuple[Callable[[], dict[str, Any]], str, Any]] = {
    "request.penalty-range": (lambda: chat_body(presence_penalty=2.2), "/presence_penalty", None),
    "request.n-range": (lambda: chat_body(n=0), "/n", None),
    "request.stop-values": (lambda: chat_body(stop=["END", 7]), "/stop/1", None),
    "request.logit-bias": (lambda: chat_body(logit_bias={"50256": 101}), "/logit_bias/50256", None),
    "call.name": (
        _chat_call_name_body,
        "/messages/1/tool_calls/0/function/name",
        lambda b, r: b["messages"][1]["tool_calls"][0]["function"]["name"] == "files_read",
    ),
    "call.id-length": (
        lambda: chat_body(tools=[chat_tool()], messages=chat_turn(call_id=LONG_ID)),
        "/messages/1/tool_calls/0/id",
        lambda b, r: (
            b["messages"][1]["tool_calls"][0]["id"] == b["messages"][2]["tool_call_id"] == short_call_id(LONG_ID, 40)
            and len(b["messages"][2]["tool_call_id"]) <= 40
        ),
    ),
    "tool.description-length": (
        lambda: chat_body(tools=[chat_tool(desc="x" * 1500)]),
        "/tools/0/function/description",
        lambda b, r: b["tools"][0]["function"]["description"] == "x" * 1024 and any(c.lossy for c in r.changes),
    ),
    "request.max-tokens-model": (
        lambda: chat_body(model="gpt-4o-2024-08-06", max_tokens=32000),
        None,
        lambda b, r: b["max_tokens"] == 16384 and [c.pointer for c in r.changes] == ["/max_tokens"],
    ),
    "conversation.content-length": (
        lambda: chat_body(tools=[chat_tool()], messages=chat_turn(result="y" * 1_048_577)),
        None,
        lambda b, r: (
            [len(p["text"]) for p in b["messages"][2]["content"]] == [1_048_576, 1]
            and [c.call_id for c in r.changes] == ["call_1"]
        ),
    ),
    "request.messages-count": (lambda: chat_body(messages=[]), "/messages", None),
    "request.penalties-reasoning-model": (
        lambda: chat_body(model="gpt-5-mini", presence_penalty=0.5, frequency_penalty=0),
        None,
        lambda b, r: (
            "presence_penalty" not in b
            and "frequency_penalty" not in b
            and [c.lossy for c in r.changes] == [True, False]
        ),
    ),
    "request.logprobs-reasoning-model": (
        lambda: chat_body(model="gpt-5", logprobs=True, top_logprobs=3),
        None,
        lambda b, r: "logprobs" not in b and "top_logprobs" not in b and [c.lossy for c in r.changes] == [True, True],
    ),
    "request.stop-reasoning-model": (
        lambda: chat_body(model="o3-2025-04-16", stop=["END"]),
        None,
        lambda b, r: "stop" not in b and [c.lossy for c in r.changes] == [True],
    ),
    "request.sampling-search-model": (
        lambda: chat_body(model="gpt-4o-mini-search-preview-2025-03-11", temperature=0.3, top_p=None),
        None,
        lambda b, r: (
            "temperature" not in b
            and "top_p" not in b
            and [(c.pointer, c.lossy) for c in r.changes] == [("/temperature", True), ("/top_p", False)]
        ),
    ),
    "request.parallel-tool-calls-model": (
        lambda: chat_body(model="o4-mini", tools=[chat_tool()], parallel_tool_calls=False),
        None,
        lambda b, r: "parallel_tool_calls" not in b and b["tools"] and [c.lossy for c in r.changes] == [True],
    ),
    "request.tools-reasoning-effort-model": (
        lambda: chat_body(model="gpt-5.4", tools=[chat_tool()], reasoning_effort="high"),
        "/reasoning_effort",
        None,
    ),
    "request.system-role-model": (
        lambda: chat_body(
            model="o1-mini",
            messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
        ),
        None,
        lambda b, r: (
            b["messages"] == [{"role": "user", "content": "Be brief."}, {"role": "user", "content": "hi"}]
            and [(c.pointer, c.lossy) for c in r.changes] == [("/messages/0/role", False)]
        ),
    ),
    "request.reasoning-effort-model": (
        lambda: chat_body(model="gpt-4o", reasoning_effort="high"),
        None,
        lambda b, r: "reasoning_effort" not in b and [c.pointer for c in r.changes] == ["/reasoning_effort"],
    ),
    "request.max-tokens-reasoning-model": (
        lambda: chat_body(model="o3", max_tokens=100),
        "/max_tokens",
        lambda b, r: b.get("max_completion_tokens") == 100 and "max_tokens" not in b,
    ),
    "request.top-logprobs-without-logprobs": (lambda: chat_body(top_logprobs=3), "/top_logprobs", None),
    "request.stop-count": (lambda: chat_body(stop=["a", "b", "c", "d", "e"]), "/stop", None),
    "conversation.calls-answered": (
        lambda: chat_body(
            tools=[chat_tool()],
            messages=[
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "tool_calls": [tool_call("call_1", "get_weather", "{}"), tool_call("call_2", "get_weather", "{}")],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
                {"role": "user", "content": "and?"},
            ],
        ),
        "/messages/1/tool_calls",
        None,
    ),
    "conversation.tool-without-call": (
        lambda: chat_body(
            messages=[{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]
        ),
        "/messages/1",
        None,
    ),
    "conversation.tool-content": (
        lambda: chat_body(
            tools=[chat_tool()],
            messages=chat_turn(
                result=[
                    {"type": "text", "text": "Q3 chart"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                ]
            ),
        ),
        "/messages/2/content/1",
        lambda b, r: (
            b["messages"][2]["content"] == [{"type": "text", "text": "Q3 chart"}]
            and b["messages"][3]
            == {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Image(s) returned by tool call call_1:"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                ],
            }
        ),
    ),
    "conversation.tool-content-parts": (
        lambda: chat_body(
            tools=[chat_tool()], messages=chat_turn(result=[{"type": "input_audio", "input_audio": {"data": "AAAA"}}])
        ),
        "/messages/2/content/0",
        None,
    ),
    "conversation.images-user-only": (
        lambda: chat_body(
            messages=[
                {"role": "user", "content": "draw"},
                {
                    "role": "assistant",
                    "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}],
                },
                {"role": "user", "content": "describe"},
            ]
        ),
        "/messages/1/content",
        None,
    ),
    "conversation.duplicate-call-id": (
        lambda: chat_body(tools=[chat_tool()], messages=[*chat_turn(), *chat_turn()]),
        "/messages/4/tool_calls/0/id",
        None,
    ),
    "conversation.arguments-json": (
        lambda: chat_body(
            tools=[chat_tool()],
            messages=[
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "tool_calls": [tool_call("call_1", "get_weather", '{"city": "Par')]},
                {"role": "tool", "tool_call_id": "call_1", "content": "Error: the arguments were cut off"},
            ],
        ),
        "/messages/1/tool_calls/0/function/arguments",
        lambda b, r: b["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}" and r.lossy,
    ),
    "conversation.tool-calls-count": (
        lambda: chat_body(
            tools=[chat_tool()],
            messages=[
                {"role": "user", "content": "all of them"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [tool_call(f"call_{i}", "get_weather", "{}") for i in range(130)],
                },
                *({"role": "tool", "tool_call_id": f"call_{i}", "content": "sunny"} for i in range(130)),
            ],
        ),
        "/messages/1/tool_calls",
        lambda b, r: (
            [len(m["tool_calls"]) for m in b["messages"] if m["role"] == "assistant"] == [128, 2]
            and b["messages"][130]["role"] == "assistant"
            and [(c.pointer, c.lossy) for c in r.changes] == [("/messages/1/tool_calls", False)]
        ),
    ),
    "conversation.empty-tool-calls": (
        lambda: chat_body(
            messages=[
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello.", "tool_calls": []},
                {"role": "user", "content": "again"},
            ]
        ),
        "/messages/1/tool_calls",
        lambda b, r: (
            b["messages"][1] == {"role": "assistant", "content": "Hello."}
            and [(c.pointer, c.lossy) for c in r.changes] == [("/messages/1/tool_calls", False)]
        ),
    ),
    "conversation.assistant-content": (
        lambda: chat_body(
            messages=[
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None},
                {"role": "user", "content": "again"},
            ]
        ),
        "/messages/1/content",
        lambda b, r: b["messages"][1] == {"role": "assistant", "content": ""},
    ),
}

RESP_ONLY: dict[str, tuple[Callable[[], dict[str, Any]], str, Any]] = {
    "request.reasoning-effort-model": (
        lambda: resp_body(model="gpt-5.1", reasoning={"effort": "minimal", "summary": "auto"}),
        None,
        lambda b, r: b["reasoning"] == {"effort": "low", "summary": "auto"} and [c.lossy for c in r.changes] == [True],
    ),
    "conversation.content-length": (
        lambda: resp_body(tools=[resp_tool()], input=resp_turn(output="y" * 10_485_761)),
        None,
        lambda b, r: (
            [(p["type"], len(p["text"])) for p in b["input"][2]["output"]]
            == [("input_text", 10_485_760), ("input_text", 1)]
            and [c.call_id for c in r.changes] == ["call_1"]
        ),
    ),
    "request.minimal-effort-tools": (
        lambda: resp_body(
            model="gpt-5", reasoning={"effort": "minimal"}, tools=[resp_tool(), {"type": "web_search_preview"}]
        ),
        None,
        lambda b, r: (
            b["reasoning"] == {"effort": "low"}
            and [(c.rule, c.pointer, c.lossy) for c in r.changes]
            == [("openai.request.minimal-effort-tools", "/reasoning/effort", True)]
        ),
    ),
    "request.max-tokens-model": (
        lambda: resp_body(model="gpt-4.1", max_output_tokens=50000),
        None,
        lambda b, r: b["max_output_tokens"] == 32768 and [c.pointer for c in r.changes] == ["/max_output_tokens"],
    ),
    "call.name": (_resp_call_name_body, "/input/1/name", lambda b, r: b["input"][1]["name"] == "files_read"),
    "call.id-length": (
        lambda: resp_body(tools=[resp_tool()], input=resp_turn(call_id=LONG_ID)),
        "/input/1/call_id",
        lambda b, r: (
            b["input"][1]["call_id"] == b["input"][2]["call_id"] == short_call_id(LONG_ID, 64)
            and len(b["input"][1]["call_id"]) <= 64
        ),
    ),
    "request.max-tool-calls-range": (lambda: resp_body(max_tool_calls=0), "/max_tool_calls", None),
    "request.previous-with-conversation": (
        lambda: resp_body(previous_response_id="resp_1", conversation="conv_1"),
        "/previous_response_id",
        None,
    ),
    "request.previous-without-store": (
        lambda: resp_body(previous_response_id="resp_1", store=False),
        "/previous_response_id",
        None,
    ),
    "request.store-false-item-ids": (
        lambda: resp_body(
            model="gpt-5-mini",  # a reasoning model (gpt-4.1 gets no reasoning items at all)
            store=False,
            tools=[resp_tool()],
            input=[
                {"role": "user", "content": "weather?"},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            ],
        ),
        "/input/1",
        lambda b, r: (
            b["input"]
            == [
                {"role": "user", "content": "weather?"},
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            ]
        ),
    ),
    "request.logprobs-reasoning-model": (
        lambda: resp_body(model="gpt-5", top_logprobs=3, include=["message.output_text.logprobs"]),
        None,
        lambda b, r: "top_logprobs" not in b and "include" not in b and [c.lossy for c in r.changes] == [True, True],
    ),
    "request.include-encrypted-reasoning": (
        lambda: resp_body(model="o4-mini", store=False, reasoning={"effort": "low"}),
        None,
        lambda b, r: b["include"] == ["reasoning.encrypted_content"],
    ),
    "request.reasoning-summary-model": (
        lambda: resp_body(model="gpt-5-2025-08-07", reasoning={"effort": "low", "summary": "concise"}),
        None,
        lambda b, r: (
            b["reasoning"] == {"effort": "low", "summary": "detailed"}
            and [(c.rule, c.pointer, c.lossy) for c in r.changes]
            == [("openai.request.reasoning-summary-model", "/reasoning/summary", True)]
        ),
    ),
    "request.reasoning-summary-none": (
        lambda: resp_body(model="gpt-5.1", reasoning={"effort": "low", "summary": "none"}),
        None,
        lambda b, r: (
            b["reasoning"] == {"effort": "low"}
            and [(c.rule, c.pointer, c.lossy) for c in r.changes]
            == [("openai.request.reasoning-summary-none", "/reasoning/summary", False)]
        ),
    ),
    "request.verbosity-model": (
        lambda: resp_body(model="gpt-4o", text={"verbosity": "low", "format": {"type": "text"}}),
        None,
        lambda b, r: (
            b["text"] == {"format": {"type": "text"}}
            and [(c.rule, c.pointer, c.lossy) for c in r.changes]
            == [("openai.request.verbosity-model", "/text/verbosity", True)]
        ),
    ),
    "conversation.call-answered": (
        lambda: resp_body(tools=[resp_tool()], input=[*resp_turn()[:2], {"role": "user", "content": "and?"}]),
        "/input/1",
        None,
    ),
    "conversation.output-without-call": (
        lambda: resp_body(
            input=[
                {"role": "user", "content": "hi"},
                {"type": "function_call_output", "call_id": "call_9", "output": "x"},
            ]
        ),
        "/input/1/call_id",
        None,
    ),
    "conversation.reasoning-followed": (
        lambda: resp_body(
            model="gpt-5-mini",
            input=[
                {"role": "user", "content": "hi"},
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
                {"role": "user", "content": "again"},
            ],
        ),
        "/input/1",
        lambda b, r: b["input"] == [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}],
    ),
    "conversation.duplicate-item-id": (
        lambda: resp_body(
            input=[
                {"role": "user", "content": "hi"},
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "a"}],
                },
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "a"}],
                },
                {"role": "user", "content": "again"},
            ]
        ),
        "/input/2/id",
        None,
    ),
    "conversation.call-fields": (
        lambda: resp_body(
            tools=[resp_tool()],
            input=[
                {"role": "user", "content": "hi"},
                {"type": "function_call", "call_id": "call_1", "name": "get_weather"},
                {"type": "function_call_output", "call_id": "call_1", "output": "x"},
            ],
        ),
        "/input/1/arguments",
        None,
    ),
    "conversation.item-id-prefix": (
        lambda: resp_body(
            tools=[resp_tool()],
            input=[
                {"role": "user", "content": "weather?"},
                {
                    "type": "function_call",
                    "id": "call_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": "{}",
                },
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            ],
        ),
        "/input/1/id",
        lambda b, r: "id" not in b["input"][1] and b["input"][1]["call_id"] == "call_1",
    ),
    "conversation.assistant-parts": (
        lambda: resp_body(
            input=[
                {"role": "user", "content": "hi"},
                {"type": "message", "role": "assistant", "content": [{"type": "input_text", "text": "Hello."}]},
                {"role": "user", "content": "again"},
            ]
        ),
        "/input/1/content/0/type",
        lambda b, r: b["input"][1]["content"] == [{"type": "output_text", "text": "Hello."}],
    ),
    "conversation.reasoning-fields": (
        lambda: resp_body(
            tools=[resp_tool()],
            input=[
                {"role": "user", "content": "weather?"},
                {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA"},
                *resp_turn()[1:],
            ],
        ),
        "/input/1",
        lambda b, r: b["input"][1] == {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": []},
    ),
    # "Unknown parameter: 'input[1].status'." (BerriAI/litellm#13420); reasoning text: "array too
    # long. Expected an array with maximum length 0" (microsoft/agent-framework-go#784)
    "conversation.reasoning-input-fields": (
        lambda: resp_body(
            tools=[resp_tool()],
            input=[
                {"role": "user", "content": "weather?"},
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [],
                    "status": "completed",
                    "content": [{"type": "reasoning_text", "text": "Call get_weather."}],
                    "encrypted_content": "gAAA",
                },
                *resp_turn()[1:],
            ],
        ),
        "/input/1/status",
        lambda b, r: (
            b["input"][1] == {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}
            and [(c.pointer, c.lossy) for c in r.changes if c.rule == "openai.conversation.reasoning-input-fields"]
            == [("/input/1/status", False), ("/input/1/content", False)]
        ),
    ),
    "conversation.output-content": (
        lambda: resp_body(tools=[resp_tool()], input=resp_turn(output=[{"type": "output_text", "text": "sunny"}])),
        "/input/2/output/0",
        None,
    ),
}

#: Rules about answers (not requests): tested below, not through check_request.
ANSWER_RULES = {
    "openai-chat": {"stop.content-filter", "usage.mapping"},
    "openai": {"stop.failed-status", "usage.mapping"},
}
#: Rules the codec applies while encoding (what it leaves out is reported by the adapter):
#: tested through the SDK in test_openai_responses_contract.py.
CODEC_RULES = {
    "openai-chat": {
        "conversation.assistant-image",
        "conversation.tool-result-image-type",
        # tests/all_apis/test_tool_documents.py (the PDF in the user message after the tool messages)
        "conversation.tool-result-document",
        "conversation.reasoning-left-out",
        # tests/test_tool_choice_setting.py (the codec keeps or replaces the setting's tool_choice)
        "request.tool-choice-setting",
    },
    "openai": {
        "conversation.reasoning-left-out",
        "conversation.assistant-image",
        "conversation.tool-result-image-type",
        "request.tool-choice-setting",
    },
}

#: Rules checked when the model is made (a ConfigurationError), not by check_request: tested in
#: test_model_id_refused_when_the_api_would_not_find_it and test_model_id_spellings_through_the_sdk.
CONSTRUCTION_RULES = {"openai-chat": {"request.model-id"}, "openai": {"request.model-id"}}

#: Rules of a hosted compatible server, applied only for its base_url host: tested through the
#: SDK in test_hosted_compat_endpoints.py (Mistral) and test_deepseek_endpoint.py (DeepSeek).
SERVER_RULES = {
    "openai-chat": {
        "server.mistral-stream-options",
        "server.mistral-call-id",
        "server.mistral-user-after-tool",
        "server.mistral-empty-assistant",
        "server.mistral-last-message",
        "server.deepseek-reasoning-content",
    },
    "openai": set(),
}


# ----------------------------------------------------------------------------- rule tables


@pytest.mark.parametrize(
    "rules,api,only",
    [(CHAT_RULES, "openai-chat", CHAT_ONLY), (RESPONSES_RULES, "openai", RESP_ONLY)],
    ids=["chat", "responses"],
)
def test_every_rule_has_a_source_an_action_and_a_case(rules: dict[str, Any], api: str, only: dict[str, Any]) -> None:
    for rid, rule in rules.items():
        assert rid == rule.id and rid.startswith(api + ".")
        assert rule.action in ("repair", "report", "refuse")
        assert len(rule.summary) > 20 and len(rule.source) > 15, rid
    suffixes = {rid[len(api) + 1 :] for rid in rules}
    assert suffixes == (
        set(SHARED) | set(only) | ANSWER_RULES[api] | CODEC_RULES[api] | SERVER_RULES[api] | CONSTRUCTION_RULES[api]
    )


def _run_case(profile: Any, rule_id: str, body: dict[str, Any], pointer: str | None, check: Any) -> None:
    rule = profile.rules[rule_id]
    before = rules_of(profile.check_request(body))
    if pointer is not None:
        assert (rule_id, pointer) in before, before
    else:
        assert not [
            r for r in before if r[0] == rule_id
        ]  # a repair that adds what the API needs: nothing is broken yet
    after_body, report = repaired(profile, body)
    after = rules_of(profile.check_request(after_body))
    if rule.action == "refuse":
        assert check is None
        assert (rule_id, pointer) in after, f"{rule_id} must still refuse after repair: {after}"
        assert not [c for c in report.changes if c.rule == rule_id]
    else:
        assert after == [], after
        assert [c for c in report.changes if c.rule == rule_id], report.changes
        assert check(after_body, report)


@pytest.mark.parametrize("suffix", sorted(SHARED))
@pytest.mark.parametrize("api", [CHAT_API, RESP_API], ids=["chat", "responses"])
def test_shared_rule(api: Api, suffix: str) -> None:
    make, pointer, check = SHARED[suffix]
    _run_case(
        api.profile,
        f"{api.profile.api}.{suffix}",
        make(api),
        pointer(api),
        None if check is None else (lambda b, r: check(api, b, r)),
    )


@pytest.mark.parametrize("suffix", sorted(CHAT_ONLY))
def test_chat_rule(suffix: str) -> None:
    make, pointer, check = CHAT_ONLY[suffix]
    _run_case(CHAT, f"openai-chat.{suffix}", make(), pointer, check)


@pytest.mark.parametrize("suffix", sorted(RESP_ONLY))
def test_responses_rule(suffix: str) -> None:
    make, pointer, check = RESP_ONLY[suffix]
    _run_case(RESP, f"openai.{suffix}", make(), pointer, check)


# -------------------------------------------------------------- rule details beyond one case


def test_valid_bodies_pass_untouched() -> None:
    chat = chat_body(tools=[chat_tool()], tool_choice="auto", parallel_tool_calls=False, messages=chat_turn())
    resp = resp_body(tools=[resp_tool()], tool_choice="auto", parallel_tool_calls=False, input=resp_turn())
    for profile, body in ((CHAT, chat), (RESP, resp)):
        assert profile.check_request(body) == []
        after, report = repaired(profile, body)
        assert after == body and report.changes == []


def test_forced_choice_named_tool_present_is_fine() -> None:
    body = chat_body(tools=[chat_tool()], tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert CHAT.check_request(body) == []
    body = resp_body(tools=[resp_tool()], tool_choice={"type": "function", "name": "get_weather"})
    assert RESP.check_request(body) == []


@pytest.mark.parametrize(
    "model,settings,refused",
    [
        ("o3-mini", {"temperature": 0.2}, True),
        ("o1", {"top_p": 0.5}, True),
        ("gpt-5-mini", {"temperature": 0}, True),
        ("gpt-5", {"temperature": 1}, False),
        ("gpt-5-chat-latest", {"temperature": 0.3}, False),
        ("gpt-5.1", {"temperature": 0.3}, False),
        ("gpt-5.1", {"temperature": 0.3, "reasoning_effort": "none"}, False),
        ("gpt-5.2", {"temperature": 0.3, "reasoning_effort": "high"}, True),
        ("gpt-4.1", {"temperature": 0.3}, False),
        ("gpt-4o", {"temperature": 2.0}, False),
    ],
)
def test_sampling_on_reasoning_models(model: str, settings: dict[str, Any], refused: bool) -> None:
    got = [v.rule for v in CHAT.check_request(chat_body(model=model, **settings))]
    assert ("openai-chat.request.sampling-reasoning-model" in got) is refused
    effort = settings.pop("reasoning_effort", None)
    body = resp_body(model=model, **settings)
    if effort:
        body["reasoning"] = {"effort": effort}
    got = [v.rule for v in RESP.check_request(body)]
    assert ("openai.request.sampling-reasoning-model" in got) is refused


def test_reasoning_family() -> None:
    assert [
        reasoning_family(m)
        for m in (
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "gpt-5",
            "gpt-5-nano",
            "gpt-5.1",
            "gpt-5.2-codex",
            "gpt-5-chat-latest",
            "gpt-4o",
            "omni",
            "o10",
            None,
        )
    ] == ["o", "o", "o", "gpt-5", "gpt-5", "gpt-5.x", "gpt-5.x", None, None, None, None, None]


def test_temperature_range_bounds() -> None:
    for value, bad in ((0, False), (2, False), (-0.1, True), (2.01, True), (True, True), ("1", True)):
        got = [v.rule for v in CHAT.check_request(chat_body(temperature=value))]
        assert ("openai-chat.request.temperature-range" in got) is bad, value


def test_sampling_number_ranges_of_the_sdk_docstrings() -> None:
    # penalties -2..2, n 1..128, top_logprobs 0..20 (both APIs), logit_bias values -100..100 per
    # token id; booleans and strings are not numbers
    cases: list[tuple[str, Any, bool]] = [
        *(
            (key, v, bad)
            for key in ("frequency_penalty", "presence_penalty")
            for v, bad in ((-2, False), (0.5, False), (2, False), (2.2, True), (-2.01, True), (True, True), ("1", True))
        ),
        *(("n", v, bad) for v, bad in ((1, False), (128, False), (0, True), (129, True), (2.0, True), (True, True))),
    ]
    rule = {"frequency_penalty": "penalty-range", "presence_penalty": "penalty-range", "n": "n-range"}
    for key, value, bad in cases:
        got = [v.rule for v in CHAT.check_request(chat_body(**{key: value}))]
        assert (f"openai-chat.request.{rule[key]}" in got) is bad, (key, value)
    for value, bad in ((0, False), (20, False), (21, True), (-1, True), (5.0, True), (False, True)):
        got = [v.rule for v in CHAT.check_request(chat_body(top_logprobs=value, logprobs=True))]
        assert ("openai-chat.request.top-logprobs-range" in got) is bad, value
        got = [v.rule for v in RESP.check_request(resp_body(top_logprobs=value))]
        assert ("openai.request.top-logprobs-range" in got) is bad, value
    for bias, bad in (
        ({"50256": -100, "13": 100}, False),
        ({}, False),
        ({"50256": -101}, True),
        ({"50256": 1.5}, True),
        ({"hello": 5}, True),
        ({"50256": True}, True),
        ([1, 2], True),
    ):
        got = [v.rule for v in CHAT.check_request(chat_body(logit_bias=bias))]
        assert ("openai-chat.request.logit-bias" in got) is bad, bias


def test_upper_bounds_of_n_and_top_logprobs_are_openais_own() -> None:
    # a compatible server sets its own maxima (vLLM: max_logprobs): only the lower bounds and
    # the integer type are checked there
    local = "http://127.0.0.1:8000/v1"
    chat, resp = OpenAIChatProfile(base_url=local), OpenAIResponsesProfile(base_url=local)
    for value, bad in ((50, False), (0, False), (-1, True), (2.0, True)):
        got = [v.rule for v in chat.check_request(chat_body(top_logprobs=value, logprobs=True))]
        assert ("openai-chat.request.top-logprobs-range" in got) is bad, value
        got = [v.rule for v in resp.check_request(resp_body(top_logprobs=value))]
        assert ("openai.request.top-logprobs-range" in got) is bad, value
    for value, bad in ((200, False), (1, False), (0, True), (True, True)):
        got = [v.rule for v in chat.check_request(chat_body(n=value))]
        assert ("openai-chat.request.n-range" in got) is bad, value
    # on OpenAI's own API the maxima hold
    assert "openai-chat.request.n-range" in [v.rule for v in CHAT.check_request(chat_body(n=200))]
    assert "openai.request.top-logprobs-range" in [v.rule for v in RESP.check_request(resp_body(top_logprobs=50))]


@pytest.mark.parametrize(
    "api,settings,field",
    [
        ("openai-chat", {"frequency_penalty": 5}, "frequency_penalty"),
        ("openai-chat", {"presence_penalty": -3}, "presence_penalty"),
        ("openai-chat", {"n": 0}, "n"),
        ("openai-chat", {"n": 500}, "n"),
        ("openai-chat", {"logprobs": True, "top_logprobs": 50}, "top_logprobs"),
        ("openai-chat", {"logit_bias": {"50256": 500}}, "logit_bias"),
        # (given as the stop setting, a stop of another type than the SDK's is refused when the model is
        # made: test_openai_setting_types.py; extra_body sends it to this per-request rule)
        ("openai-chat", {"extra_body": {"stop": ["END", 7]}}, "stop"),
        ("openai-chat", {"extra_body": {"stop": 7}}, "stop"),
        ("openai", {"top_logprobs": 50}, "top_logprobs"),
        ("openai", {"max_tool_calls": 0}, "max_tool_calls"),
        ("openai", {"max_tool_calls": -2}, "max_tool_calls"),
    ],
)
def test_out_of_range_settings_are_refused_before_sending(api: str, settings: dict[str, Any], field: str) -> None:
    model = toolwire.model(f"{api}:gpt-4.1", api_key="k", **settings)
    request = model.build_request([Message("user", [toolwire.TextPart("hi")])])
    with pytest.raises(RequestRefused) as err:
        model.prepare(request)
    assert [v.pointer.split("/")[1] for v in err.value.violations] == [field], err.value


def test_max_tool_calls_is_a_positive_integer() -> None:
    # "Invalid 'max_tool_calls': integer below minimum value. Expected a value >= 1, but got 0 instead."
    for value, bad in (
        (1, False),
        (5, False),
        (None, False),
        (0, True),
        (-1, True),
        (True, True),
        (2.0, True),
        ("3", True),
    ):
        got = [v.rule for v in RESP.check_request(resp_body(max_tool_calls=value))]
        assert ("openai.request.max-tool-calls-range" in got) is bad, value
    # the Chat API has no such field: no rule of Chat reads it
    assert not any("max-tool-calls" in v.rule for v in CHAT.check_request(chat_body(max_tool_calls=0)))


def test_prompt_cache_key_and_safety_identifier_lengths_on_openais_api() -> None:
    # prompt_cache_key at most 64 characters (API error), safety_identifier at most 128 (SDK docstring)
    local = "http://127.0.0.1:8000/v1"
    for profile, body, rid in (
        (CHAT, chat_body, "openai-chat.request.identifier-length"),
        (RESP, resp_body, "openai.request.identifier-length"),
    ):
        for key, most in (("prompt_cache_key", 64), ("safety_identifier", 128)):
            for n, bad in ((1, False), (most, False), (most + 1, True)):
                got = profile.check_request(body(**{key: "x" * n}))
                assert [(v.rule, v.pointer) for v in got if v.rule == rid] == ([(rid, f"/{key}")] if bad else []), (
                    key,
                    n,
                )
        # a compatible server sets its own bounds
        other = type(profile)(base_url=local)
        assert not [v for v in other.check_request(body(prompt_cache_key="x" * 200)) if v.rule == rid]


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
def test_a_long_prompt_cache_key_setting_is_refused_before_sending(api: str) -> None:
    model = toolwire.model(f"{api}:gpt-4.1", api_key="k", prompt_cache_key="session:" + "a" * 64)
    request = model.build_request([Message("user", [toolwire.TextPart("hi")])])
    with pytest.raises(RequestRefused) as err:
        model.prepare(request)
    assert [v.pointer for v in err.value.violations] == ["/prompt_cache_key"]
    assert "72 characters" in str(err.value) and "at most 64" in str(err.value)


@pytest.mark.parametrize("api", ["openai-chat", "openai"])
@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("prompt_cache_key", 12345, "int 12345"),
        ("safety_identifier", ["u1"], "list ['u1']"),
        ("safety_identifier", 7.5, "float 7.5"),
    ],
)
def test_an_identifier_that_is_no_string_is_refused_before_sending(api: str, key: str, value: Any, shown: str) -> None:
    # SDK type Optional[str] (CompletionCreateParamsBase / ResponseCreateParamsBase): a user id
    # passed as a number was sent, and the API answers it with an invalid_type error
    sent: list[Any] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(500)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    # a model's setting: refused when the model is made (the settings' type check)
    with pytest.raises(ConfigurationError) as made:
        toolwire.model(f"{api}:gpt-4.1", api_key="k", max_retries=0, http_client=client, **{key: value})
    assert f"{api}.request.field-values" in str(made.value) and key in str(made.value)
    # a body that carries one (an imported or hand-written request): refused before sending
    profile = CHAT if api == "openai-chat" else RESP
    got = profile.check_request((chat_body if api == "openai-chat" else resp_body)(**{key: value}))
    assert [(v.rule, v.pointer) for v in got if v.rule.endswith("identifier-length")] == [
        (f"{api}.request.identifier-length", f"/{key}")
    ]
    assert any(f"{key} must be a string, got {shown}" in v.message for v in got)
    assert sent == []
    # a compatible server sets its own rules
    other = type(CHAT if api == "openai-chat" else RESP)(base_url="http://127.0.0.1:8000/v1")
    body = chat_body if api == "openai-chat" else resp_body
    assert not [v for v in other.check_request(body(**{key: value})) if v.rule.endswith("identifier-length")]


def test_output_token_limit_bounds() -> None:
    # Chat: at least 1 (max_tokens and max_completion_tokens); Responses: at least 16
    for key in ("max_tokens", "max_completion_tokens"):
        for value, bad in ((1, False), (4096, False), (0, True), (-3, True), (True, True), (1.0, True), ("8", True)):
            got = [v.rule for v in CHAT.check_request(chat_body(**{key: value}))]
            assert ("openai-chat.request.max-tokens-range" in got) is bad, (key, value)
    for value, bad in ((16, False), (32000, False), (15, True), (1, True), (0, True), (False, True), (16.0, True)):
        got = [v.rule for v in RESP.check_request(resp_body(max_output_tokens=value))]
        assert ("openai.request.max-tokens-range" in got) is bad, value
    # the field of the other API is not this API's: no rule reads it
    assert "openai.request.max-tokens-range" not in [v.rule for v in RESP.check_request(resp_body(max_tokens=0))]


def test_store_false_asks_for_encrypted_reasoning_of_reasoning_models() -> None:
    from toolwire.profile import RequestReport

    def include(**kw: Any) -> Any:
        body = RESP.repair_request(resp_body(**kw), RequestReport("openai"))
        return body.get("include")

    # gpt-5 and the o-series reason without a 'reasoning' setting: their reasoning would be lost
    for model in ("gpt-5", "gpt-5-mini", "o4-mini", "gpt-5.2"):
        assert include(model=model, store=False) == ["reasoning.encrypted_content"], model
    assert include(model="my-deployment", store=False, reasoning={"effort": "low"}) == ["reasoning.encrypted_content"]
    # a model known not to reason gets no reasoning setting, so no include (rule request.reasoning-effort-model)
    assert include(model="gpt-4.1", store=False, reasoning={"effort": "low"}) is None
    # not a reasoning model, or stored: nothing added (a model without reasoning refuses the include)
    assert include(model="gpt-4.1", store=False) is None
    assert include(model="gpt-5-chat-latest", store=False) is None
    assert include(model="gpt-5", store=True) is None
    assert include(model="gpt-5", store=False, include=["file_search_call.results"]) == [
        "file_search_call.results",
        "reasoning.encrypted_content",
    ]
    # (the logprobs include is not kept for a reasoning model: rule request.logprobs-reasoning-model)
    assert include(model="gpt-5", store=False, include=["message.output_text.logprobs"]) == [
        "reasoning.encrypted_content"
    ]


def test_unanswered_call_at_the_end_is_refused_on_both_apis() -> None:
    chat = chat_body(tools=[chat_tool()], messages=chat_turn()[:2])
    assert rules_of(CHAT.check_request(chat)) == [("openai-chat.conversation.calls-answered", "/messages/1/tool_calls")]
    resp = resp_body(tools=[resp_tool()], input=resp_turn()[:2])
    assert rules_of(RESP.check_request(resp)) == [("openai.conversation.call-answered", "/input/1")]


def test_outputs_answer_calls_on_the_server_with_previous_response_id() -> None:
    body = resp_body(
        previous_response_id="resp_1", input=[{"type": "function_call_output", "call_id": "call_1", "output": "x"}]
    )
    assert RESP.check_request(body) == []


def test_output_twice_and_tool_message_twice_are_refused() -> None:
    chat = chat_body(
        tools=[chat_tool()], messages=[*chat_turn(), {"role": "tool", "tool_call_id": "call_1", "content": "again"}]
    )
    assert ("openai-chat.conversation.tool-without-call", "/messages/3/tool_call_id") in rules_of(
        CHAT.check_request(chat)
    )
    resp = resp_body(
        tools=[resp_tool()],
        input=[*resp_turn(), {"type": "function_call_output", "call_id": "call_1", "output": "again"}],
    )
    assert ("openai.conversation.output-without-call", "/input/3/call_id") in rules_of(RESP.check_request(resp))


def test_violation_names_the_call_and_the_tool() -> None:
    body = chat_body(
        tools=[chat_tool("files.read")],
        messages=[
            {"role": "user", "content": "x"},
            {"role": "assistant", "tool_calls": [tool_call("call_7", "get_weather", "{}")]},
        ],
    )
    vs = {v.rule: v for v in CHAT.check_request(body)}
    assert vs["openai-chat.tool.name"].tool == "files.read"
    assert vs["openai-chat.conversation.calls-answered"].call_id == "call_7"
    with pytest.raises(RequestRefused) as err:
        raise RequestRefused("openai-chat", list(vs.values()))
    text = str(err.value)
    assert (
        "files.read" in text
        and "call_7" in text
        and "/messages/1/tool_calls" in text
        and "openai-chat.tool.name" in text
    )


def test_call_name_repair_avoids_a_collision_with_a_declared_tool() -> None:
    # 'files.read' would be 'files_read', the name of a declared tool (the history would say the
    # model called it): it is sent under a hashed name no tool has, and the request is valid
    body = chat_body(tools=[chat_tool("files_read")], messages=chat_turn(name="files.read"))
    after, _ = repaired(CHAT, body)
    digest = hashlib.sha256(b"files.read").hexdigest()[:8]
    assert after["messages"][1]["tool_calls"][0]["function"]["name"] == f"files_read_{digest}"
    assert rules_of(CHAT.check_request(after)) == []


def test_short_ids_and_names_are_stable_and_distinct() -> None:
    a, b = "x" * 50, "y" * 50
    assert short_call_id(a, 40) == short_call_id(a, 40) != short_call_id(b, 40)
    assert short_call_id(a, 40) == "call_" + hashlib.sha256(a.encode()).hexdigest()[:32]
    assert short_call_id("call_short", 40) == "call_short"
    assert sanitize_name("github.create_issue") == "github_create_issue"
    assert sanitize_name("Google Search") == "Google_Search"
    long = sanitize_name("n" * 70)
    assert len(long) == 64 and long.startswith("n" * 55 + "_") and long != sanitize_name("n" * 71)


def test_tool_images_from_several_results_go_in_one_user_message_after_the_run() -> None:
    img = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    body = chat_body(
        tools=[chat_tool()],
        messages=[
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "tool_calls": [tool_call("call_1", "get_weather", "{}"), tool_call("call_2", "get_weather", "{}")],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": [img]},
            {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "b"}, img]},
        ],
    )
    after, _ = repaired(CHAT, body)
    assert [m["role"] for m in after["messages"]] == ["user", "assistant", "tool", "tool", "user"]
    assert after["messages"][2]["content"] == [
        {"type": "text", "text": "(the result is the image(s) in the next user message)"}
    ]
    assert after["messages"][4]["content"] == [
        {"type": "text", "text": "Image(s) returned by tool call call_1:"},
        img,
        {"type": "text", "text": "Image(s) returned by tool call call_2:"},
        img,
    ]
    assert CHAT.check_request(after) == []


def test_incremental_check_skips_checked_messages_but_keeps_pairing_context() -> None:
    broken_old = [{"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "call_0", "content": "stray"}]
    body = chat_body(tools=[chat_tool()], messages=[*broken_old, *chat_turn()])
    assert ("openai-chat.conversation.tool-without-call", "/messages/1") in rules_of(CHAT.check_request(body))
    assert CHAT.check_request(body, start=2) == []
    # a start pointing at the tool message still sees the call it answers
    assert CHAT.check_request(body, start=4) == []
    resp = resp_body(tools=[resp_tool()], input=resp_turn())
    assert RESP.check_request(resp, start=2) == []


def test_strict_mode_translation_of_canonical_tools_on_the_wire() -> None:
    for codec in (OpenAIChatCodec(), OpenAIResponsesCodec()):
        decl, report = codec.translate_tool(Tool("now", "Current time.", {"type": "object"}, strict=True))
        fn = decl.get("function", decl)
        assert fn["strict"] is True
        assert fn["parameters"] == {"type": "object", "properties": {}, "additionalProperties": False}
        decl, report = codec.translate_tool(Tool("big", "Deep.", nested(11), strict=True))
        fn = decl.get("function", decl)
        assert fn["strict"] is False and fn["parameters"] == nested(11) and report.strict_possible is False


def test_root_combinator_is_folded_on_the_wire_and_validated_against_the_original() -> None:
    schema = {"type": "object", "allOf": [{"properties": {"tag": {"type": "string"}}, "required": ["tag"]}]}
    tool = Tool("tagger", "Tag.", schema)
    decl, report = OpenAIChatCodec().translate_tool(tool)
    assert decl["function"]["parameters"] == {
        "type": "object",
        "properties": {"tag": {"type": "string"}},
        "required": ["tag"],
    }
    assert tool.input_schema == schema  # the loop validates against this one
    assert [c.pointer for c in report] == ["/allOf/0"]


def test_schema_with_a_non_object_root_raises_naming_rule_and_pointer() -> None:
    report = __import__("toolwire.schema.report", fromlist=["TranslationReport"]).TranslationReport("openai-chat", "t")
    with pytest.raises(SchemaTranslationError) as err:
        CHAT.translate_schema({"type": "array", "items": {"type": "string"}}, report)
    assert err.value.pointer == "/type" and err.value.rule == "openai-chat.schema.root-not-object"


def test_strict_size_bounds() -> None:
    from toolwire_openai._dialect import strict_size

    assert strict_size(nested(10)).over() == [] and strict_size(nested(10)).depth == 10
    assert strict_size(nested(11)).over() == ["objects nested 11 deep (at most 10)"]
    many = {"type": "object", "properties": {"e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}}
    assert strict_size(many).enum_values == 1001 and "1001 enum values (at most 1000)" in strict_size(many).over()
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5001)}}
    assert "5001 properties (at most 5000)" in strict_size(wide).over()
    big_enum = {
        "type": "object",
        "properties": {"e": {"type": "string", "enum": ["x" * 60 + str(i) for i in range(251)]}},
    }
    assert any("in one enum of more than 250 values" in w for w in strict_size(big_enum).over())


def test_turn_failed() -> None:
    assert [CHAT.turn_failed(r) for r in ("content_filter", "stop", "tool_calls", "length", "function_call", None)] == [
        True,
        False,
        False,
        False,
        False,
        False,
    ]
    assert [
        RESP.turn_failed(r)
        for r in (
            "failed",
            "cancelled",
            "incomplete:content_filter",
            "incomplete:max_output_tokens",
            "completed",
            "in_progress",
            None,
        )
    ] == [True, True, True, False, False, True, False]


def test_usage_mapping() -> None:
    u = CHAT.usage(
        {
            "prompt_tokens": 1200,
            "completion_tokens": 300,
            "total_tokens": 1500,
            "prompt_tokens_details": {"cached_tokens": 1000},
            "completion_tokens_details": {"reasoning_tokens": 256},
        }
    )
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens, u.vendor_total_tokens) == (
        1200,
        300,
        1000,
        256,
        1500,
    )
    u = RESP.usage(
        {
            "input_tokens": 80,
            "output_tokens": 20,
            "total_tokens": 100,
            "input_tokens_details": {"cached_tokens": 64},
            "output_tokens_details": {"reasoning_tokens": 12},
        }
    )
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens, u.vendor_total_tokens) == (
        80,
        20,
        64,
        12,
        100,
    )


def test_tool_name_error_reasons() -> None:
    assert CHAT.tool_name_error("get_weather") is None
    assert "'.'" in CHAT.tool_name_error("files.read")
    assert "70 characters" in CHAT.tool_name_error("a" * 70)
    assert CHAT.tool_name_error("") == "it is empty"
    assert RESP.tool_name_error("2fa_check") is None  # OpenAI allows a leading digit


# ------------------------------------------------------ through the real SDK (MockTransport)


def _chat_ok(request: Any) -> Any:
    return json_response(completion({"content": "Hello."}))


def _toolwire_chat_model(handler: Callable[[Any], Any], **settings: Any) -> Any:
    """``toolwire.model("openai-chat:gpt-4.1-mini", **settings)`` whose SDK client sends over a
    MockTransport; requests recorded on ``model.sent``."""
    import httpx2
    from openai_wire import Sent

    sent: list[Any] = []

    def wrapped(request: httpx2.Request) -> httpx2.Response:
        sent.append(Sent(request))
        return handler(request)

    model = toolwire.model(
        "openai-chat:gpt-4.1-mini",
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(wrapped)),
        **settings,
    )
    model.sent = sent
    return model


@pytest.mark.parametrize("tool_choice", [None, "auto", "none"], ids=["unset", "auto", "none"])
def test_b26_no_tools_sends_neither_parallel_tool_calls_nor_tool_choice(tool_choice: Any) -> None:
    model = _toolwire_chat_model(_chat_ok, parallel_tool_calls=False)
    result = toolwire.run_sync(model, "Say hello.", tool_choice=tool_choice)
    assert result.text == "Hello."
    body = model.sent[0].json
    assert model.sent[0].url.endswith("/chat/completions")
    assert "parallel_tool_calls" not in body and "tool_choice" not in body and "tools" not in body
    assert body["messages"] == [{"role": "user", "content": "Say hello."}]


@pytest.mark.parametrize(
    "tool_choice,sent_choice", [(None, None), ("auto", "auto"), ("none", "none")], ids=["unset", "auto", "none"]
)
def test_b26_with_tools_both_are_sent(tool_choice: Any, sent_choice: Any) -> None:
    @toolwire.tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return "sunny"

    model = _toolwire_chat_model(_chat_ok, parallel_tool_calls=False)
    toolwire.run_sync(model, "Weather in Paris?", tools=[get_weather], tool_choice=tool_choice)
    body = model.sent[0].json
    assert body["parallel_tool_calls"] is False
    assert body.get("tool_choice") == sent_choice
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]


def test_b26_sibling_on_responses_through_the_sdk(responses_model: Any) -> None:
    model = responses_model(
        lambda r: json_response(
            response_body(
                [
                    {
                        "id": "msg_1",
                        "type": "message",
                        "status": "completed",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "Hi.", "annotations": []}],
                    }
                ]
            )
        ),
        parallel_tool_calls=False,
    )
    r = asyncio.run(model.send(model.build_request([Message.user("hi")], tool_choice="none")))
    assert r.text == "Hi."
    body = model.sent[0].json
    assert "parallel_tool_calls" not in body and "tool_choice" not in body
    assert [c.rule for c in model.last_preflight.changes] == [
        "openai.request.parallel-without-tools",
        "openai.request.tool-choice-without-tools",
    ]


def test_unanswered_call_is_answered_not_refused(chat_model: Any) -> None:
    """A history ending on an unanswered call: answered "not run" (as on every API) and reported."""
    from toolwire.turns import NOT_ANSWERED, UNANSWERED_RULE

    model = chat_model(_chat_ok)
    history = [Message.user("weather?"), Message("assistant", [ToolCall("call_1", "get_weather", {"city": "Paris"})])]
    tool = Tool("get_weather", "Weather.", OBJ)
    response = asyncio.run(model.send(model.build_request(history, tools=[tool])))
    msgs = model.sent[0].json["messages"]
    assert msgs[2] == {"role": "tool", "tool_call_id": "call_1", "content": "Error: " + NOT_ANSWERED}
    assert [(c.rule, c.call_id) for c in response.preflight] == [(UNANSWERED_RULE, "call_1")]


def test_forced_choice_without_tools_refused_before_sending(chat_model: Any) -> None:
    model = chat_model(_chat_ok)
    with pytest.raises(RequestRefused) as err:
        asyncio.run(model.send(model.build_request([Message.user("hi")], tool_choice="required")))
    assert model.sent == [] and err.value.violations[0].rule == "openai-chat.request.forced-tool-choice-without-tools"


def test_long_foreign_call_id_is_shortened_in_call_and_result_through_the_sdk(chat_model: Any) -> None:
    model = chat_model(_chat_ok)
    history = [
        Message.user("weather?"),
        Message("assistant", [ToolCall(LONG_ID, "get_weather", {"city": "Paris"})]),
        Message("user", [ToolResult(LONG_ID, "sunny")]),
    ]
    asyncio.run(model.send(model.build_request(history, tools=[Tool("get_weather", "Weather.", OBJ)])))
    msgs = model.sent[0].json["messages"]
    short = msgs[1]["tool_calls"][0]["id"]
    assert short == msgs[2]["tool_call_id"] and len(short) <= 40 and short != LONG_ID
    # the same history on the next turn maps to the same id
    model2 = chat_model(_chat_ok)
    asyncio.run(model2.send(model2.build_request(history, tools=[Tool("get_weather", "Weather.", OBJ)])))
    assert model2.sent[0].json["messages"][1]["tool_calls"][0]["id"] == short


def test_store_false_reasoning_without_content_not_sent_through_the_sdk(responses_model: Any) -> None:
    from toolwire.types import ReasoningPart

    model = responses_model(
        lambda r: json_response(response_body([fc_item("call_2", "get_weather", "{}", "fc_2")])), store=False
    )
    reasoning = ReasoningPart(
        text="thinking", provider="openai", provider_data={"openai": {"item_id": "rs_1", "item": {"summary": []}}}
    )
    call = ToolCall(
        "call_1", "get_weather", {"city": "Paris"}, provider_data={"openai": {"item_id": "fc_1", "item": {}}}
    )
    history = [
        Message.user("weather?"),
        Message("assistant", [reasoning, call]),
        Message("user", [ToolResult("call_1", "sunny")]),
    ]
    asyncio.run(model.send(model.build_request(history, tools=[Tool("get_weather", "Weather.", OBJ)])))
    sent = model.sent[0].json["input"]
    assert [i.get("type", "message") for i in sent] == ["message", "function_call", "function_call_output"]
    assert "id" not in sent[1] and sent[1]["call_id"] == "call_1"


def test_incremental_check_after_a_repair_that_drops_an_old_item() -> None:
    """A repair that removes an entry before ``start`` must not make the check skip a new one."""
    from toolwire.profile import preflight

    old = [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_0", "summary": [], "encrypted_content": "gAAA"},
        {"role": "user", "content": "again"},
    ]
    new = [
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"role": "user", "content": "?"},
    ]
    body = resp_body(tools=[resp_tool()], input=[*old, *new])
    profile = OpenAIResponsesProfile()
    report = RequestReport("openai")
    out = profile.repair_request(copy.deepcopy(body), report, start=len(old))
    assert [v.rule for v in profile.check_request(out, start=len(old))] == ["openai.conversation.call-answered"]
    with pytest.raises(RequestRefused):
        preflight(profile, copy.deepcopy(body))


@pytest.mark.parametrize(
    "rules,page", [(CHAT_RULES, "openai-chat.md"), (RESPONSES_RULES, "openai.md")], ids=["chat", "responses"]
)
def test_docs_page_lists_every_rule_with_its_action_and_source(rules: Any, page: str) -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "docs" / "rules" / page
    text = path.read_text(encoding="utf-8")
    for rid, rule in rules.items():
        head = f"### `{rid}`\n"
        assert head in text, rid
        section = text.split(head, 1)[1].split("\n### ", 1)[0]
        assert rule.summary in section and rule.source in section, rid
        assert f"**{rule.action}**" in section, rid
    assert text.count("\n### `") == len(rules)


# ------------------------------------- every rule case again, as a request through the SDK

#: Cases the codec itself already writes validly when the body is imported and re-encoded (the
#: duplicate call is left out with its result, the missing arguments are written "{}", the two
#: items with one id become one message item, the summary is written): the SDK sends a valid body.
NORMALISED_BY_CODEC = {
    # an unanswered call is answered by the codec (toolwire.turns.answer_request), as on every API
    "openai-chat.conversation.calls-answered",
    "openai.conversation.call-answered",
    "openai-chat.conversation.duplicate-call-id",
    "openai.conversation.call-fields",
    "openai.conversation.duplicate-item-id",
    "openai.conversation.reasoning-fields",
    # a reasoning item's status is never sent by the codec (its content is repaired by the preflight:
    # test_openai_reasoning_replay_fields.py)
    "openai.conversation.reasoning-input-fields",
    # a tool named 'python' is renamed by the codec already (its TranslationReport says so)
    "openai-chat.tool.reserved-name",
    "openai.tool.reserved-name",
}
#: Cases the codec refuses with its own typed error while encoding (before preflight, nothing sent).
TYPED_AT_ENCODE = {"tool.name": "ToolNameError", "schema.root-not-object": "SchemaTranslationError"}
#: Cases whose body ``decode_request`` refuses already, naming the same place (the import's kind
#: check: ``CompletionCreateParamsBase.stop`` holds strings); the rule still refuses such a value
#: given as a setting.
REFUSED_AT_IMPORT = {"openai-chat.request.stop-values": "/stop/1"}


def _sdk_cases() -> list[Any]:
    out = []
    for suffix, (make, _ptr, _chk) in sorted(SHARED.items()):
        for api in (CHAT_API, RESP_API):
            out.append(
                pytest.param(
                    api.profile.api, suffix, lambda make=make, api=api: make(api), id=f"{api.profile.api}-{suffix}"
                )
            )
    out += [pytest.param("openai-chat", s, c[0], id=f"openai-chat-{s}") for s, c in sorted(CHAT_ONLY.items())]
    out += [pytest.param("openai", s, c[0], id=f"openai-{s}") for s, c in sorted(RESP_ONLY.items())]
    return out


@pytest.mark.parametrize("api,suffix,make", _sdk_cases())
def test_rule_case_through_the_sdk(api: str, suffix: str, make: Callable[[], dict[str, Any]]) -> None:
    """The case body imported with the codec's ``decode_request`` and sent with the real SDK over
    a MockTransport: a refused rule sends nothing; a repaired one sends a body the profile finds
    valid, with the repair on ``Response.preflight``."""
    from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel

    from toolwire.errors import ToolwireError

    body = make()
    rid = f"{api}.{suffix}"
    rule = (CHAT if api == "openai-chat" else RESP).rules[rid]
    if api == "openai-chat":
        model = _make(OpenAIChatModel, _chat_ok, {"model_id": body["model"]})
    else:
        model = _make(
            OpenAIResponsesModel,
            lambda r: json_response(
                response_body(
                    [
                        {
                            "id": "msg_9",
                            "type": "message",
                            "status": "completed",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
                        }
                    ]
                )
            ),
            {"model_id": body["model"]},
        )
    if suffix in TYPED_AT_ENCODE:
        with pytest.raises(ToolwireError) as err:
            asyncio.run(model.send(model.codec.decode_request(body)))
        assert type(err.value).__name__ == TYPED_AT_ENCODE[suffix] and model.sent == []
        return
    if rid in REFUSED_AT_IMPORT:
        from toolwire.errors import ResponseDecodeError

        with pytest.raises(ResponseDecodeError) as bad:
            model.codec.decode_request(copy.deepcopy(body))
        assert bad.value.pointer == REFUSED_AT_IMPORT[rid]
        return
    request = model.codec.decode_request(copy.deepcopy(body))
    if rule.action == "refuse" and rid not in NORMALISED_BY_CODEC:
        with pytest.raises(RequestRefused) as refused:
            asyncio.run(model.send(request))
        assert rid in refused.value.rules and model.sent == []
        return
    response = asyncio.run(model.send(request))
    assert len(model.sent) == 1
    sent = model.sent[0].json
    assert model.profile.check_request(sent) == []
    if rid in NORMALISED_BY_CODEC:
        assert response.preflight is None or rid not in [c.rule for c in response.preflight]
    else:
        assert rid in [c.rule for c in response.preflight], response.preflight


# ------------------------------------------- a tool imported under a name OpenAI refuses


def _gemini_named_history() -> tuple[list[Message], list[Tool]]:
    tool = Tool(
        "files.read:v2",
        "Read a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        imported_from="gemini",
    )
    other = Tool("files_read_v2", "A different tool whose name the rename would take.", OBJ)
    history = [
        Message.user("read a"),
        Message("assistant", [ToolCall("call_1", "files.read:v2", {"path": "a"})]),
        Message("user", [ToolResult("call_1", "A")]),
    ]
    return history, [tool, other]


def test_imported_name_is_renamed_everywhere_and_calls_decode_back_chat(chat_model: Any) -> None:
    history, tools = _gemini_named_history()
    answer = completion(
        {"tool_calls": [tool_call("call_2", _wire("files.read:v2", tools), '{"path": "b"}')]}, "tool_calls"
    )
    model = chat_model(lambda r: json_response(answer))
    resp = asyncio.run(
        model.send(model.build_request(history, tools=tools, tool_choice={"type": "tool", "name": "files.read:v2"}))
    )
    body = model.sent[0].json
    wire = _wire("files.read:v2", tools)
    assert wire != "files_read_v2" and len(wire) <= 64  # the plain rename is taken by the other tool
    assert [t["function"]["name"] for t in body["tools"]] == [wire, "files_read_v2"]
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == wire
    assert body["tool_choice"] == {"type": "function", "function": {"name": wire}}
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("files.read:v2", {"path": "b"})]
    assert CHAT.check_request(body) == []


def test_imported_name_is_renamed_everywhere_and_calls_decode_back_responses_stream(responses_model: Any) -> None:
    from openai_wire import responses_sse

    history, tools = _gemini_named_history()
    wire = _wire("files.read:v2", tools)
    item = fc_item("call_2", wire, '{"path": "b"}', "fc_2")
    events = [
        {"type": "response.created", "sequence_number": 0, "response": response_body([], status="in_progress")},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {**item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 2,
            "item_id": "fc_2",
            "output_index": 0,
            "delta": '{"path": "b"}',
        },
        {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item},
        {"type": "response.completed", "sequence_number": 4, "response": response_body([item])},
    ]
    model = responses_model(lambda r: responses_sse(events), stream=True)
    resp = asyncio.run(model.send(model.build_request(history, tools=tools)))
    body = model.sent[0].json
    assert [t["name"] for t in body["tools"]] == [wire, "files_read_v2"]
    assert body["input"][1]["name"] == wire
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("files.read:v2", {"path": "b"})]


def test_translate_tool_reports_the_rename() -> None:
    tool = Tool("files.read:v2", "Read.", OBJ, imported_from="gemini")
    for codec in (OpenAIChatCodec(), OpenAIResponsesCodec()):
        decl, report = codec.translate_tool(tool)
        assert decl.get("function", decl)["name"] == "files_read_v2"
        assert [(c.keyword, c.action) for c in report if c.keyword == "name"] == [("name", "rewritten")]


def _wire(name: str, tools: list[Tool]) -> str:
    from toolwire_openai.profile import wire_tool_names

    return wire_tool_names(t.name for t in tools)[name]


def test_every_array_gets_items_and_such_a_schema_is_not_strict() -> None:
    from toolwire_openai._dialect import translate_parameters

    from toolwire.schema.report import TranslationReport

    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "description": "tags"},
            "rows": {"type": "array", "items": {"type": "array"}},
            "typed": {"type": "array", "items": {"type": "string"}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
        },
        "required": ["tags"],
    }
    report = TranslationReport("openai-chat", "t")
    out = translate_parameters(schema, report, strict=False)
    assert out["properties"]["tags"] == {"type": "array", "description": "tags", "items": {}}
    assert out["properties"]["rows"] == {"type": "array", "items": {"type": "array", "items": {}}}
    assert out["properties"]["typed"] == {"type": "array", "items": {"type": "string"}}
    assert "items" not in out["properties"]["pair"]  # the tuple form has its element schemas
    assert {(c.pointer, c.action) for c in report if c.keyword == "items"} == {
        ("/properties/tags/items", "added"),
        ("/properties/rows/items/items", "added"),
    }
    strict_report = TranslationReport("openai-chat", "t")
    translate_parameters(schema, strict_report, strict=True)
    assert strict_report.strict_possible is False  # items: {} has no type: not strict


def test_inline_image_types_openai_reads() -> None:
    def chat(url: str) -> list[str]:
        body = chat_body(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}])
        return [v.rule for v in CHAT.check_request(body)]

    # each with bytes of its format (bytes of no image are rule conversation.image-bytes)
    signed = {
        "image/png": PNG_1PX,
        "image/jpeg": "/9j/4AAQ",
        "image/webp": "UklGRgAAAABXRUJQ",
        "image/gif": "R0lGODlhAQABAAAAACw=",
        "IMAGE/PNG": PNG_1PX,
    }
    for kind, data in signed.items():
        assert chat(f"data:{kind};base64,{data}") == [], kind
    for kind in ("image/bmp", "image/tiff", "image/svg+xml", "application/pdf", "image/jpg"):
        assert chat(f"data:{kind};base64,AAAA") == ["openai-chat.conversation.image-media-type"], kind
    assert chat("https://example.com/cat.bmp") == []  # by URL: the type is not known before the API fetches it
    # a tool's image on Responses (function_call_output) is checked too; entries before start are not
    out = [{"type": "input_image", "image_url": "data:image/tiff;base64,AAAA"}]
    body = resp_body(
        input=[
            {"role": "user", "content": "x"},
            {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": out},
        ]
    )
    assert ("openai.conversation.image-media-type", "/input/2/output/0/image_url") in rules_of(RESP.check_request(body))
    assert "openai.conversation.image-media-type" not in [v.rule for v in RESP.check_request(body, start=3)]


def test_inline_images_whose_bytes_are_no_image() -> None:
    """Rule conversation.image-bytes: declared PNG, JPEG, GIF or WebP (any case, image/jpg too),
    bytes with no image signature; in a function_call_output of a body built by hand too (the codec
    sends a tool's such image as a note). Other types are not judged by their bytes."""

    def chat(url: str) -> list[str]:
        body = chat_body(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}])
        return [v.rule for v in CHAT.check_request(body)]

    for kind in ("image/png", "IMAGE/JPEG", "image/gif", "image/webp"):
        assert chat(f"data:{kind};base64,{HTML_404}") == ["openai-chat.conversation.image-bytes"], kind
    assert chat("data:image/png;base64,e30=") == ["openai-chat.conversation.image-bytes"]  # "{}", JSON
    assert chat("data:image/png;base64,iVBORw==") == []  # a cut-short PNG (or a placeholder): left to the API
    assert chat(f"data:image/jpg;base64,{HTML_404}") == ["openai-chat.conversation.image-media-type"]  # repaired first
    assert chat(f"data:image/heic;base64,{HTML_404}") == ["openai-chat.conversation.image-media-type"]
    out = [{"type": "input_image", "image_url": f"data:image/png;base64,{HTML_404}"}]
    body = resp_body(
        input=[
            {"role": "user", "content": "x"},
            {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": out},
        ]
    )
    (v,) = [v for v in RESP.check_request(body) if v.rule == "openai.conversation.image-bytes"]
    assert v.pointer == "/input/2/output/0/image_url"
    assert "holds bytes that are not an image (they begin '<html>404 not fo...')" in v.message
    after, _report = repaired(RESP, body)
    assert "openai.conversation.image-bytes" in [v.rule for v in RESP.check_request(after)]


@pytest.mark.parametrize(
    ("model", "settings", "sent"),
    [
        ("o3", {"max_tokens": 200_000}, {"max_completion_tokens": 100_000}),  # renamed, then lowered
        ("gpt-5-mini", {"max_completion_tokens": 128_001}, {"max_completion_tokens": 128_000}),
        ("gpt-5-chat-latest", {"max_tokens": 20_000}, {"max_tokens": 16_384}),
        ("ft:gpt-4o-mini-2024-07-18:acme::x1", {"max_tokens": 20_000}, {"max_tokens": 16_384}),
        ("gpt-4o", {"max_tokens": 16_384}, {"max_tokens": 16_384}),  # at the limit: unchanged
        ("my-azure-deployment", {"max_tokens": 500_000}, {"max_tokens": 500_000}),  # unknown: as asked
        ("gpt-5-pro", {"max_completion_tokens": 200_000}, {"max_completion_tokens": 200_000}),
    ],
)
def test_output_tokens_above_the_model_maximum_are_lowered(model: str, settings: dict, sent: dict) -> None:
    body, report = repaired(CHAT, chat_body(model=model, **settings))
    assert {k: body[k] for k in ("max_tokens", "max_completion_tokens") if k in body} == sent
    lowered = [c for c in report.changes if c.rule == "openai-chat.request.max-tokens-model"]
    assert bool(lowered) == (max(sent.values()) < max(settings.values()))
    assert CHAT.check_request(body) == []


def test_output_tokens_lowered_on_the_wire_through_the_sdk(chat_model: Any, responses_model: Any) -> None:
    """``max_tokens=`` above the model's maximum arrives lowered on both APIs, the change on the turn."""
    chat = chat_model(_chat_ok, model_id="gpt-4o-mini", max_tokens=50_000)
    response = asyncio.run(chat.send(chat.build_request([Message.user("hi")])))
    assert chat.sent[0].json["max_completion_tokens"] == 16_384
    assert [(c.rule, c.pointer) for c in response.preflight] == [
        ("openai-chat.request.max-tokens-model", "/max_completion_tokens")
    ]
    ok = response_body(
        [
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi.", "annotations": []}],
            }
        ]
    )
    resp = responses_model(lambda r: json_response(ok), model_id="o4-mini", max_tokens=150_000)
    response = asyncio.run(resp.send(resp.build_request([Message.user("hi")])))
    assert resp.sent[0].json["max_output_tokens"] == 100_000
    assert [(c.rule, c.pointer) for c in response.preflight] == [
        ("openai.request.max-tokens-model", "/max_output_tokens")
    ]


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        ("gpt-5", "none", "minimal"),
        ("gpt-5-mini-2025-08-07", "xhigh", "high"),
        ("gpt-5.1", "minimal", "low"),
        ("gpt-5.1", "none", "none"),
        ("openai/gpt-5.2-pro", "low", "medium"),
        ("gpt-5.2-chat-latest", "high", "medium"),
        ("o3", "minimal", "low"),
        ("o4-mini", "high", "high"),
        ("gpt-4.1-mini", "low", None),
        ("ft:gpt-4o-mini-2024-07-18:org::abc", "low", None),
        ("gpt-5.1-codex-max", "none", "none"),  # not in the table: sent as given
        ("my-azure-deployment", "minimal", "minimal"),
        ("gpt-5", "HIGH", "high"),  # the API's values are lower case
        ("gpt-5-chat-latest", "low", None),  # not a reasoning model ("'reasoning.effort' is not supported")
        ("ft:o4-mini-2025-04-16:org::abc", "minimal", "low"),
        ("gpt-5", "turbo", "turbo"),  # not an effort toolwire knows: sent as given
    ],
)
def test_reasoning_effort_a_model_does_not_take(model: str, effort: str, sent: str | None) -> None:
    """Chat sends ``reasoning_effort``, Responses ``reasoning.effort``: the same table for both."""
    for body, read in (
        (chat_body(model=model, reasoning_effort=effort), lambda b: b.get("reasoning_effort")),
        (
            resp_body(model=model, reasoning={"effort": effort}, include=["reasoning.encrypted_content"], store=False),
            lambda b: (b.get("reasoning") or {}).get("effort"),
        ),
    ):
        profile = CHAT if "messages" in body else RESP
        out, report = repaired(profile, body)
        assert read(out) == sent, (model, effort, out)
        assert bool(report.changes) == (sent != effort)
        if sent is None and "input" in out:  # nothing of reasoning goes to a model that does not reason
            assert "reasoning" not in out and "reasoning.encrypted_content" not in (out.get("include") or [])


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_empty_call_id_is_replaced_in_the_call_and_its_result(api: str) -> None:
    if api == "chat":
        body, profile = chat_body(tools=[chat_tool()], messages=chat_turn(call_id="")), CHAT
        out, report = repaired(profile, body)
        ids = [out["messages"][1]["tool_calls"][0]["id"], out["messages"][2]["tool_call_id"]]
    else:
        body, profile = resp_body(tools=[resp_tool()], input=resp_turn(call_id="")), RESP
        out, report = repaired(profile, body)
        ids = [out["input"][1]["call_id"], out["input"][2]["call_id"]]
    assert ids[0] == ids[1] == short_call_id("", 40) and ids[0].startswith("call_")
    assert {c.rule.split(".", 1)[1] for c in report.changes} == {"call.id-length"}
    assert profile.check_request(out) == []


def test_fine_tuned_reasoning_model_is_read_as_its_base_model() -> None:
    from toolwire_openai.profile import reasoning_family

    assert reasoning_family("ft:o4-mini-2025-04-16:org::abc") == "o"
    assert reasoning_family("ft:gpt-4o-mini-2024-07-18:org::abc") is None
    out, report = repaired(CHAT, chat_body(model="gpt-4.1", reasoning_effort=2))
    assert "reasoning_effort" not in out and report.changes  # any effort value: the model does not reason


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        ("gpt-5.2", "minimal", "low"),
        ("gpt-5.2", "xhigh", "xhigh"),
        ("gpt-5.2-2025-12-11", "none", "none"),
        ("gpt-5.1-codex", "none", "low"),
        ("gpt-5.1-codex-mini", "minimal", "low"),
        ("gpt-5.1-chat-latest", "high", "medium"),
        ("gpt-5.2-chat-2025-12-11", "high", "medium"),
        ("gpt-5.2-chat-latest", "low", "medium"),
    ],
)
def test_reasoning_efforts_of_later_gpt_5_models(model: str, effort: str, sent: str) -> None:
    for profile, body in (
        (OpenAIResponsesProfile(), resp_body(model=model, reasoning={"effort": effort})),
        (OpenAIChatProfile(), chat_body(model=model, reasoning_effort=effort)),
    ):
        out, _ = repaired(profile, body)
        got = out["reasoning"]["effort"] if "input" in out else out["reasoning_effort"]
        assert got == sent, (model, effort, type(profile).__name__)


def test_minimal_effort_is_kept_without_web_search() -> None:
    out, report = repaired(
        OpenAIResponsesProfile(), resp_body(model="gpt-5", reasoning={"effort": "minimal"}, tools=[resp_tool()])
    )
    assert out["reasoning"] == {"effort": "minimal"} and report.changes == []


@pytest.mark.parametrize("strict", [True, False])
def test_root_alternatives_keep_every_definition_of_a_shared_property(strict: bool) -> None:
    """A root anyOf/oneOf is not sent (OpenAI refuses it): a property the alternatives define
    differently takes any of their definitions, never only the first one's."""
    from toolwire_openai._dialect import translate_parameters

    from toolwire.schema.report import TranslationReport

    either_id = {
        "type": "object",
        "anyOf": [
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "required": ["name"]},
        ],
    }
    tagged = {
        "type": "object",
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
            {"properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind", "y"]},
        ],
    }
    out = translate_parameters(either_id, TranslationReport("openai", "t"), strict=strict)
    ids = out["properties"]["id"]["anyOf"]
    assert {"type": "integer"} in ids and {"type": "string"} in ids
    out = translate_parameters(tagged, TranslationReport("openai", "t"), strict=strict)
    assert out["properties"]["kind"] == {"anyOf": [{"const": "a"}, {"const": "b"}]}
    if not strict:  # "kind" is required by every alternative; x and y by one each
        assert out["required"] == ["kind"]


@pytest.mark.parametrize(
    "model",
    [
        "gpt-5-chat-latest",
        "chatgpt-4o-latest",
        "gpt-4o-search-preview",
        "gpt-4o-mini-search-preview-2025-03-11",
        "o1-mini",
        "openai/o1-preview-2024-09-12",
        "gpt-4-vision-preview",
    ],
)
def test_models_without_function_calling_are_refused_only_with_tools(model: str) -> None:
    for api in (CHAT_API, RESP_API):
        with_tools = api.profile.check_request(api.body(model=model, tools=[api.tool()]))
        assert "request.function-calling-model" in [v.rule.split(".", 1)[1] for v in with_tools], (api, model)
        without = api.profile.check_request(api.body(model=model))
        assert not [v for v in without if v.rule.endswith("function-calling-model")]


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5.3-chat-latest", "gpt-5.1-chat-latest", "o1", "gpt-4o", "o3-mini"])
def test_models_that_call_functions_are_not_refused(model: str) -> None:
    for api in (CHAT_API, RESP_API):
        found = api.profile.check_request(api.body(model=model, tools=[api.tool()]))
        assert not [v for v in found if v.rule.endswith("function-calling-model")], (api, model)


def test_function_calling_model_refused_before_sending_through_the_sdk(chat_model: Any) -> None:
    @toolwire.tool
    def lookup(q: str) -> str:
        """Look it up."""
        return q

    model = chat_model(_chat_ok, model_id="gpt-5-chat-latest")
    with pytest.raises(RequestRefused) as err:
        toolwire.run_sync(model, "x", tools=[lookup])
    assert model.sent == [] and err.value.violations[0].rule == "openai-chat.request.function-calling-model"
    assert toolwire.run_sync(model, "x").stop_reason == "end_turn"  # without tools the same model runs
    assert len(model.sent) == 1


@pytest.mark.parametrize(
    ("model", "verbosity", "sent"),
    [
        ("gpt-4o", "high", None),
        ("gpt-4.1-mini-2025-04-14", "low", None),
        ("gpt-5-chat-latest", "low", None),
        ("ft:gpt-4o-mini-2024-07-18:org::abc", "high", None),
        ("gpt-4o", "medium", "medium"),  # the one value these models take
        ("gpt-5", "low", "low"),
        ("gpt-5-mini", "high", "high"),
        ("gpt-5.1-chat-latest", "low", "low"),  # the later chat models take it (enricoros/big-AGI#930)
        ("o3", "low", "low"),  # not known either way: sent as asked
        ("my-azure-deployment", "low", "low"),
    ],
)
def test_verbosity_a_model_does_not_take(model: str, verbosity: str, sent: str | None) -> None:
    out, report = repaired(RESP, resp_body(model=model, text={"verbosity": verbosity}))
    assert (out.get("text") or {}).get("verbosity") == sent, (model, verbosity, out)
    assert "text" in out or sent is None  # an emptied text object is left out
    assert [c.rule for c in report.changes] == ([] if sent == verbosity else ["openai.request.verbosity-model"])
    assert RESP.check_request(out) == []


def test_verbosity_left_out_on_the_wire_through_the_sdk(responses_model: Any) -> None:
    """``text={"verbosity": "low"}`` set on gpt-4.1 (which answers 400 "Unsupported value: 'verbosity' does not
    support 'low' with this model. Supported values are: 'medium'.") goes without it, reported."""
    ok = response_body(
        [
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi.", "annotations": []}],
            }
        ]
    )
    model = responses_model(lambda r: json_response(ok), model_id="gpt-4.1", text={"verbosity": "low"})
    response = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert "text" not in model.sent[0].json
    assert [(c.rule, c.pointer) for c in response.preflight] == [("openai.request.verbosity-model", "/text/verbosity")]


@pytest.mark.parametrize(
    ("model", "summary", "sent"),
    [
        ("gpt-5", "concise", "detailed"),
        ("openai/gpt-5-2025-08-07", "concise", "detailed"),
        ("gpt-5", "auto", "auto"),
        ("gpt-5", "detailed", "detailed"),
        ("computer-use-preview", "detailed", "concise"),
        ("computer-use-preview-2025-03-11", "detailed", "concise"),
        ("computer-use-preview", "concise", "concise"),
        ("o4-mini", "concise", "concise"),  # not known to refuse it: sent as asked
        ("gpt-5-mini", "concise", "concise"),
        ("my-azure-deployment", "concise", "concise"),
    ],
)
def test_reasoning_summary_a_model_does_not_take(model: str, summary: str, sent: str) -> None:
    out, report = repaired(RESP, resp_body(model=model, reasoning={"summary": summary}))
    assert out["reasoning"]["summary"] == sent, (model, summary, out)
    assert [c.rule for c in report.changes if "summary" in c.rule] == (
        [] if sent == summary else ["openai.request.reasoning-summary-model"]
    )
    assert RESP.check_request(out) == []


def test_reasoning_summary_sent_as_the_model_takes_it_through_the_sdk(responses_model: Any) -> None:
    """``thinking={"summary": "concise"}`` on gpt-5 (which answers 400 "Unsupported value: 'concise' is not
    supported with the 'gpt-5-2025-08-07' model. Supported values are: 'detailed'.") goes as 'detailed'."""
    ok = response_body(
        [
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi.", "annotations": []}],
            }
        ]
    )
    model = responses_model(
        lambda r: json_response(ok), model_id="gpt-5", thinking={"effort": "low", "summary": "concise"}
    )
    response = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert model.sent[0].json["reasoning"] == {"effort": "low", "summary": "detailed"}
    assert [(c.rule, c.pointer) for c in response.preflight] == [
        ("openai.request.reasoning-summary-model", "/reasoning/summary")
    ]


def test_reasoning_summary_none_leaves_other_summaries_alone() -> None:
    for summary in ("auto", "concise", "detailed", None):
        body = resp_body(model="o4-mini", reasoning={"summary": summary})
        out, report = repaired(RESP, body)
        assert out["reasoning"] == {"summary": summary} and report.changes == []
    out, report = repaired(RESP, resp_body(model="o4-mini", reasoning={"summary": "none"}))
    assert out["reasoning"] == {} and [c.rule for c in report.changes] == ["openai.request.reasoning-summary-none"]


@pytest.mark.parametrize("value", [5, "tag", ["a"]])
def test_metadata_that_is_not_an_object_is_refused(value: Any) -> None:
    for api in (CHAT_API, RESP_API):
        found = [(v.rule.split(".", 1)[1], v.pointer) for v in api.profile.check_request(api.body(metadata=value))]
        assert ("request.metadata", "/metadata") in found
    assert not [v for v in CHAT.check_request(chat_body(metadata={"k": "v"})) if v.rule.endswith("metadata")]


def test_top_p_range_bounds() -> None:
    for value, bad in ((0, False), (1, False), (0.5, False), (-0.1, True), (1.01, True), (True, True), ("x", True)):
        for api in (CHAT_API, RESP_API):
            got = [v.rule.split(".", 1)[1] for v in api.profile.check_request(api.body(top_p=value))]
            assert ("request.top-p-range" in got) is bad, (api, value)


def test_arrays_without_items_get_items_inside_combinators_maps_and_definitions(responses_model: Any) -> None:
    """The API checks every schema in ``parameters`` for 'array schema missing items' (its error
    context reaches into a type list: "In context=('properties', 'interaction', 'type', '1'),
    array schema missing items", campfirein/byterover-cli#42), so an array inside ``oneOf``,
    ``allOf``, a ``$defs`` entry's ``allOf``, ``additionalProperties``, ``patternProperties`` or
    ``not`` gets ``items: {}`` too. Found by the schema fuzz test."""
    schema = {
        "type": "object",
        "properties": {
            "v": {"oneOf": [{"type": "array"}, {"type": "string"}]},
            "w": {"allOf": [{"type": "array"}, {"maxItems": 3}]},
            "m": {"type": "object", "additionalProperties": {"type": "array"}},
            "p": {"type": "object", "patternProperties": {"^x-": {"type": "array"}}},
            "n": {"type": "string", "not": {"type": "array"}},
            "d": {"$ref": "#/$defs/Tags"},
        },
        "$defs": {"Tags": {"allOf": [{"type": "array"}]}},
    }
    tool = Tool.from_schema("put", "Put values.", schema, lambda **kw: "ok")
    model = responses_model(lambda request: json_response(response_body([])))
    toolwire.run_sync(model, "put", tools=[tool])
    params = model.sent[0].json["tools"][0]["parameters"]
    props = params["properties"]
    assert props["v"]["oneOf"][0] == {"type": "array", "items": {}}
    assert props["w"]["allOf"][0] == {"type": "array", "items": {}}
    assert props["m"]["additionalProperties"] == {"type": "array", "items": {}}
    assert props["p"]["patternProperties"]["^x-"] == {"type": "array", "items": {}}
    assert props["n"]["not"] == {"type": "array", "items": {}}
    assert params["$defs"]["Tags"]["allOf"][0] == {"type": "array", "items": {}}
    assert OpenAIChatCodec().translate_tool(tool)[0]["function"]["parameters"] == params


# ------------------------------------------------------------ model id spellings (request.model-id)

#: Each model rule as a body that breaks it for the model id given, per API.
CHAT_MODEL_RULE_BODIES: dict[str, Callable[[str], dict[str, Any]]] = {
    "reasoning-effort-model": lambda m: chat_body(model=m, reasoning_effort="minimal"),
    "max-tokens-model": lambda m: chat_body(model=m, max_completion_tokens=1_000_000),
    "max-tokens-reasoning-model": lambda m: chat_body(model=m, max_tokens=100),
    "stop-reasoning-model": lambda m: chat_body(model=m, stop=["END"]),
    "penalties-reasoning-model": lambda m: chat_body(model=m, presence_penalty=0.5),
    "logprobs-reasoning-model": lambda m: chat_body(model=m, logprobs=True, top_logprobs=2),
    "sampling-search-model": lambda m: chat_body(model=m, temperature=0.3),
    "parallel-tool-calls-model": lambda m: chat_body(model=m, tools=[chat_tool()], parallel_tool_calls=False),
    "function-calling-model": lambda m: chat_body(model=m, tools=[chat_tool()]),
    "sampling-reasoning-model": lambda m: chat_body(model=m, temperature=0.3),
}
RESP_MODEL_RULE_BODIES: dict[str, Callable[[str], dict[str, Any]]] = {
    "reasoning-effort-model": lambda m: resp_body(model=m, reasoning={"effort": "minimal"}),
    "reasoning-summary-model": lambda m: resp_body(model=m, reasoning={"summary": "concise"}),
    "max-tokens-model": lambda m: resp_body(model=m, max_output_tokens=1_000_000),
    "verbosity-model": lambda m: resp_body(model=m, text={"verbosity": "low"}),
    "logprobs-reasoning-model": lambda m: resp_body(model=m, top_logprobs=2),
    "sampling-reasoning-model": lambda m: resp_body(model=m, temperature=0.3),
}


def _openai_outcome(profile: Any, b: dict[str, Any]) -> tuple[Any, ...]:
    out, report = repaired(profile, b)
    out.pop("model", None)
    return rules_of(profile.check_request(b)), out, [(c.rule, c.pointer, c.lossy) for c in report.changes]


@pytest.mark.parametrize(
    ("canonical", "spellings"),
    [
        ("gpt-5.2", ["GPT-5.2", " gpt-5.2 ", "openai/GPT-5.2", "ft:GPT-5.2:my-org::AbC123"]),
        ("gpt-5.2-2025-12-11", ["GPT-5.2-2025-12-11"]),
        ("gpt-5", ["GPT-5-2025-08-07", "Gpt-5"]),
        ("o3-mini", ["O3-Mini", "o3-mini-2025-01-31"]),
        ("o4-mini", ["O4-Mini-2025-04-16"]),
        ("gpt-4o", ["GPT-4o", "gpt-4o-2024-08-06"]),
        ("gpt-4o-search-preview", ["GPT-4o-Search-Preview-2025-03-11"]),
        ("chatgpt-4o-latest", ["ChatGPT-4o-Latest"]),
    ],
)
def test_every_model_rule_reads_every_spelling_of_the_model_id(canonical: str, spellings: list[str]) -> None:
    for profile, bodies in ((CHAT, CHAT_MODEL_RULE_BODIES), (RESP, RESP_MODEL_RULE_BODIES)):
        for rule, make in bodies.items():
            want = _openai_outcome(profile, make(canonical))
            for spelling in spellings:
                assert _openai_outcome(profile, make(spelling)) == want, (profile.api, rule, spelling)


def test_model_lookups_read_every_spelling() -> None:
    from toolwire_openai.profile import max_output_tokens, model_key, reasoning_efforts, takes_reasoning_items
    from toolwire_openai.tokens import estimate_chat_input_tokens

    assert model_key(" OpenAI/GPT-5.2 ") == "gpt-5.2" and model_key("ft:GPT-4o-mini:org::AbC") == "gpt-4o-mini"
    assert model_key(None) == ""
    for spelling in ("GPT-4.1", " gpt-4.1", "openai/GPT-4.1-2025-04-14"):
        assert max_output_tokens(spelling) == 32768 and reasoning_efforts(spelling) == ()
        assert takes_reasoning_items(spelling) is False
    # the token estimate adds the reasoning models' hidden prompt for every spelling
    base = {"messages": [{"role": "user", "content": "hi"}]}
    assert estimate_chat_input_tokens({**base, "model": "GPT-5"}) == estimate_chat_input_tokens(
        {**base, "model": "gpt-5"}
    )
    assert estimate_chat_input_tokens({**base, "model": "openai/o3"}) > estimate_chat_input_tokens(
        {**base, "model": "gpt-4.1"}
    )


@pytest.mark.parametrize(
    ("model_id", "base_url", "problem"),
    [
        ("gpt-5.2", None, None),
        ("gpt-5.2-2025-12-11", "https://api.openai.com/v1", None),
        ("ft:gpt-4o-mini-2024-07-18:my-org:custom:AbC123xY", None, None),  # a fine-tune's own suffix
        ("GPT-4o", None, "write 'gpt-4o'"),
        ("GPT-5.2", "https://api.openai.com/v1", "write 'gpt-5.2'"),
        ("ft:GPT-4o-mini:my-org::AbC", None, "write 'ft:gpt-4o-mini:my-org::AbC'"),
        ("meta-llama/Llama-3.1-8B", "http://localhost:8000/v1", None),  # a compatible server's own name
        ("GPT-5.2", "https://my-resource.openai.azure.com/openai/v1", None),
        (" gpt-5.2", None, "write 'gpt-5.2'"),
        ("Qwen/Qwen3-8B\t", "http://localhost:8000/v1", "write 'Qwen/Qwen3-8B'"),
    ],
)
def test_model_id_refused_when_the_api_would_not_find_it(model_id: str, base_url: Any, problem: Any) -> None:
    from toolwire_openai.profile import model_id_problem

    found = model_id_problem(model_id, base_url)
    assert (found is None) if problem is None else (found is not None and found.endswith(problem)), found


def test_model_id_spellings_through_the_sdk(monkeypatch: Any) -> None:
    """A compatible server's (or a gateway's) mixed-case OpenAI id gets that model's rules and is
    sent as written; to api.openai.com it is refused when the model is made."""
    from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel

    from toolwire.errors import ConfigurationError

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    gateway = "https://llm-gateway.example/v1"
    model = _make(
        OpenAIChatModel,
        _chat_ok,
        {"model_id": "OpenAI/GPT-5.2", "base_url": gateway, "reasoning_effort": "minimal", "stop": ["END"]},
    )
    response = asyncio.run(model.send(model.build_request([Message.user("hi")])))
    sent = model.sent[0].json
    # gpt-5.2 takes no 'minimal' (sent as the nearest it takes) and no stop sequences
    assert sent["model"] == "OpenAI/GPT-5.2" and sent["reasoning_effort"] == "low" and "stop" not in sent
    assert {c.rule for c in response.preflight.changes} >= {
        "openai-chat.request.reasoning-effort-model",
        "openai-chat.request.stop-reasoning-model",
    }
    for cls, api in ((OpenAIChatModel, "openai-chat"), (OpenAIResponsesModel, "openai")):
        with pytest.raises(ConfigurationError, match=rf"write 'gpt-5.2' \[{api}.request.model-id\]"):
            _make(cls, _chat_ok, {"model_id": "GPT-5.2"})
        with pytest.raises(ConfigurationError, match="spaces around it"):
            _make(cls, _chat_ok, {"model_id": "gpt-5.2 "})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    assert _make(OpenAIChatModel, _chat_ok, {"model_id": "Qwen/Qwen3-8B"}).model_id == "Qwen/Qwen3-8B"
    assert toolwire.model("openai: gpt-5.2", api_key="k").model_id == "gpt-5.2"


# ------------------------------------------------------------ values the SDK types (request.field-values)


@pytest.mark.parametrize(
    ("profile", "field", "bad", "pointer"),
    [
        (CHAT, "reasoning_effort", "turbo", "/reasoning_effort"),
        (CHAT, "verbosity", "loud", "/verbosity"),
        (CHAT, "prompt_cache_retention", "1h", "/prompt_cache_retention"),
        (CHAT, "service_tier", "ultrafast", "/service_tier"),  # a Responses-only tier in this SDK
        (RESP, "reasoning", {"effort": "turbo"}, "/reasoning/effort"),
        (RESP, "reasoning", {"summary": "short"}, "/reasoning/summary"),
        (RESP, "text", {"verbosity": "loud"}, "/text/verbosity"),
        (RESP, "truncation", "middle", "/truncation"),
        (RESP, "service_tier", "premium", "/service_tier"),
        # an object field given as another kind of value (was sent unchecked)
        (RESP, "reasoning", "high", "/reasoning"),
        (RESP, "reasoning", 1, "/reasoning"),
        (RESP, "text", ["low"], "/text"),
    ],
)
def test_a_value_the_sdk_does_not_type_is_refused(profile: Any, field: str, bad: Any, pointer: str) -> None:
    make = chat_body if profile is CHAT else resp_body
    body = make(model="my-deployment", **{field: bad})  # a model toolwire has no table for: nothing repairs it
    fixed, _ = repaired(profile, body)
    found = [(v.rule, v.pointer) for v in profile.check_request(fixed)]
    assert (f"{profile.api}.request.field-values", pointer) in found
    # the values the SDK types pass; a compatible server's own values are its business
    good = {
        "reasoning_effort": "high",
        "verbosity": "low",
        "prompt_cache_retention": "24h",
        "truncation": "auto",
        "reasoning": None,  # (null: the SDK types it Optional)
        "text": {},
    }
    ok = make(model="my-deployment", service_tier="flex", **({field: good[field]} if field in good else {}))
    assert not [v for v in profile.check_request(ok) if v.rule.endswith("field-values")]
    other = type(profile)(base_url="https://api.groq.com/openai/v1")
    assert not [v for v in other.check_request(body) if v.rule.endswith("field-values")]


def test_setting_values_through_the_sdk(monkeypatch: Any) -> None:
    """An unknown value given as a setting is a ConfigurationError when the model is made (for
    api.openai.com); one that reaches the body otherwise is refused before anything is sent; a
    compatible server gets its own values."""
    from toolwire_openai import OpenAIChatModel, OpenAIResponsesModel

    from toolwire.errors import ConfigurationError

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for cls, settings, named in (
        (OpenAIChatModel, {"service_tier": "premium"}, "'priority'"),
        (OpenAIChatModel, {"reasoning_effort": "turbo"}, "'xhigh'"),
        (OpenAIChatModel, {"thinking": {"effort": "turbo"}}, "'minimal'"),
        (OpenAIResponsesModel, {"reasoning": {"summary": "short"}}, "'concise'"),
        (OpenAIResponsesModel, {"text": {"verbosity": "loud"}}, "'low'"),
        (OpenAIResponsesModel, {"thinking": {"effort": "turbo"}}, "'minimal'"),
        (
            OpenAIResponsesModel,
            {"reasoning": "high"},
            r"reasoning 'high' is not an object: give one, such as \{'effort'",
        ),
        (OpenAIResponsesModel, {"text": 1}, r"text 1 is not an object"),
    ):
        with pytest.raises(ConfigurationError, match=named):
            _make(cls, _chat_ok, {"model_id": "gpt-5.2", **settings})
    # the values the SDK types, in any case for toolwire's own thinking effort, are accepted
    _make(OpenAIChatModel, _chat_ok, {"model_id": "gpt-5.2", "service_tier": "flex", "thinking": {"effort": "High"}})
    model = _make(OpenAIChatModel, _chat_ok, {"model_id": "gpt-5.2", "extra_body": {"verbosity": "loud"}})
    with pytest.raises(RequestRefused) as info:
        asyncio.run(model.send(model.build_request([Message.user("hi")])))
    assert [(v.rule, v.pointer) for v in info.value.violations] == [("openai-chat.request.field-values", "/verbosity")]
    assert model.sent == []
    groq = _make(
        OpenAIChatModel,
        _chat_ok,
        {
            "model_id": "llama-3.3-70b-versatile",
            "base_url": "https://api.groq.com/openai/v1",
            "service_tier": "on_demand",
        },
    )
    asyncio.run(groq.send(groq.build_request([Message.user("hi")])))
    assert groq.sent[0].json["service_tier"] == "on_demand"


def test_every_mislabelled_image_of_an_entry_is_repaired_and_the_input_kept() -> None:
    """Several mislabelled inline images in one message, and one in a later tool output: each is
    sent with the type its bytes name, one change each, and the caller's body is not changed."""
    png_as_jpeg = "data:image/jpeg;base64," + PNG_1PX
    png_as_webp = "data:image/webp;base64," + PNG_1PX
    png = "data:image/png;base64," + PNG_1PX
    chat = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": png_as_jpeg, "detail": "low"}},
                    {"type": "text", "text": "and"},
                    {"type": "image_url", "image_url": {"url": png_as_webp}},
                ],
            },
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": png_as_jpeg}}]},
        ]
    }
    body = CHAT_API.body(**copy.deepcopy(chat))
    kept = copy.deepcopy(body)
    after, report = repaired(CHAT, body)
    assert body == kept
    parts = after["messages"][0]["content"]
    assert [parts[0]["image_url"], parts[1], parts[2]["image_url"]] == [
        {"url": png, "detail": "low"},
        {"type": "text", "text": "and"},
        {"url": png},
    ]
    assert after["messages"][1]["content"][0]["image_url"] == {"url": png}
    assert [c.pointer for c in report.changes if c.rule.endswith("image-media-type-data")] == [
        "/messages/0/content/0/image_url/url",
        "/messages/0/content/2/image_url/url",
        "/messages/1/content/0/image_url/url",
    ]
    resp = {
        "input": [
            *resp_turn(output=[{"type": "input_image", "image_url": png_as_jpeg}]),
            {"role": "user", "content": [{"type": "input_image", "image_url": png_as_webp}]},
        ]
    }
    body = RESP_API.body(**copy.deepcopy(resp))
    kept = copy.deepcopy(body)
    after, report = repaired(RESP, body)
    assert body == kept
    assert after["input"][2]["output"] == [{"type": "input_image", "image_url": png}]
    assert after["input"][3]["content"] == [{"type": "input_image", "image_url": png}]
    assert [c.pointer for c in report.changes if c.rule.endswith("image-media-type-data")] == [
        "/input/2/output/0/image_url",
        "/input/3/content/0/image_url",
    ]
