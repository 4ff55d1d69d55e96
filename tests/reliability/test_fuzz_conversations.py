"""Fuzzed conversations (histories handed to ``toolwire.run(..., conversation=...)``): one request
each on six targets through the real SDKs, only the network replaced by ``httpx2.MockTransport``
(the answer is a canned final text): Anthropic (and with extended thinking on), OpenAI Chat
Completions, OpenAI Responses, Gemini 2.5 and Gemini 3.

:mod:`conversation_fuzz_kit` draws the histories: model turns decoded by each vendor's real codec
(reasoning with and without signatures or encrypted content, provider_data), switched between
vendors, made awkward (signatures stripped, reasoning relabelled, empty / white-space / lone
surrogate / very long text, consecutive messages of one role, empty messages, calls without a
result, results without a call or before it, second results, duplicate and foreign ids and names,
many parallel calls, error results, images and several parts, cache breakpoints, a turn appended
twice, instructions empty or blank). Invariants, from the vendors' rules:

1. a run either raises a typed toolwire error (:class:`~toolwire.errors.ToolwireError`) with a
   message, before anything is sent, or sends exactly one request; never another exception, never
   a hang (a deadline per example and an alarm);
2. the body sent passes the independent validator (``tests/vendor_rules/validator``, written from
   the vendors' documents and error texts), is UTF-8 and holds no lone surrogate;
3. nothing is lost unsaid: every tool call and every tool result of the input is in the body (a
   result matched to a sent result holding its texts) or named by a lossy change in
   ``Response.preflight`` at its place in the run's conversation; every text, reasoning text and
   the instructions that are not blank are in the body, or reported the same way (a lossy change
   about a reasoning item with a pointer into the body also counts: such a pointer names no part);
4. the run does not change the conversation it was handed.

Budget: :data:`EXAMPLES` (30) conversations x 6 targets, derandomized, about 10 s; set
``TOOLWIRE_FUZZ_SEED`` to explore others and ``TOOLWIRE_FUZZ_EXAMPLES`` for more (several
thousand ran clean when it was written). :func:`_found` holds the minimised conversations it
found toolwire getting wrong, run on every target every time.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from typing import Any

import httpx2
import pytest
from conversation_fuzz_kit import (
    TOOL_NAMES,
    conversations,
    dump,
    fix_surrogates,
    snapshot,
    wire_calls,
    wire_results,
    wire_strings,
)
from fuzz_support import fuzz_settings, hang_guard, seeded
from hypothesis import given
from reliability_wire import text_body
from vendor_rules.validator import validate

import toolwire
from toolwire.errors import ToolwireError
from toolwire.tools import Tool
from toolwire.types import Conversation, Message, ReasoningPart, TextPart, ToolCall, ToolResult

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

EXAMPLES = int(os.environ.get("TOOLWIRE_FUZZ_EXAMPLES", "30"))
OUTCOMES: Counter[str] = Counter()

#: The targets: (name, API, model id, model settings). Anthropic with extended thinking on (its
#: thinking rules then hold for the tool loop) and Gemini 3 (thought signatures required) beside
#: each API's plain model.
TARGETS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("anthropic", "anthropic", "claude-sonnet-4-5", {}),
    ("anthropic/thinking", "anthropic", "claude-sonnet-4-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
    ("openai-chat", "openai-chat", "gpt-4.1", {}),
    ("openai", "openai", "gpt-5", {}),
    ("gemini", "gemini", "gemini-2.5-flash", {}),
    ("gemini-3", "gemini", "gemini-3-flash-preview", {}),
]
_MODELS: dict[str, tuple[Any, dict[str, Any]]] = {}


def _model(target: str) -> tuple[Any, dict[str, Any]]:
    """One model per target (building SDK clients is the slow part); ``holder["handler"]`` answers."""
    if target not in _MODELS:
        _, api, model_id, extra = next(t for t in TARGETS if t[0] == target)
        holder: dict[str, Any] = {}
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: holder["handler"](r)))
        _MODELS[target] = (
            toolwire.model(f"{api}:{model_id}", api_key="k", max_retries=0, http_client=client, **extra),
            holder,
        )
    return _MODELS[target]


def _tool(name: str) -> Tool:
    return Tool.from_schema(
        name, f"{name} tool.", {"type": "object", "properties": {"city": {"type": "string"}}}, lambda **kw: "ok"
    )


TOOLS = [_tool(n) for n in TOOL_NAMES]
_LONE = re.compile("[\ud800-\udfff]")


def run_api(target: str, conv: Conversation, prompt: Any) -> list[str]:
    """One request of ``conv`` (and ``prompt``) on ``target``; the invariant violations found."""
    model, holder = _model(target)
    api = model.provider
    sent: list[bytes] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content)
        return httpx2.Response(200, json=text_body(api, "final answer"))

    holder["handler"] = handler
    before = snapshot(conv)
    problems: list[str] = []
    try:
        result = toolwire.run_sync(model, prompt, conversation=conv, tools=TOOLS, max_turns=1)
    except ToolwireError as exc:
        OUTCOMES[f"{target}: {type(exc).__name__}"] += 1
        if sent:
            problems.append(f"{type(exc).__name__} raised after sending: {exc}")
        if not str(exc).strip():
            problems.append(f"{type(exc).__name__} without a message")
        return problems
    except Exception as exc:  # any other exception is a finding
        OUTCOMES[f"{target}: {type(exc).__name__}"] += 1
        return [f"{type(exc).__name__}: {exc}"[:1500]]
    OUTCOMES[f"{target}: sent"] += 1
    if conv != before:
        problems.append("the run changed the conversation it was handed")
    if len(sent) != 1:
        return problems + [f"{len(sent)} requests sent"]
    raw = sent[0]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(f"body is not UTF-8: {exc}")
    body = json.loads(raw)
    lone = [s for s in wire_strings(body, keys=True) if _LONE.search(s)]
    if lone:
        problems.append(f"body holds a lone surrogate: {lone[0][:80]!r}")
    problems.extend(str(v) for v in validate(api, body))
    report = result.turns[0].response.preflight
    changes = list(report.changes) if report is not None else []
    problems.extend(_losses(api, conv, result.conversation, body, changes))
    return problems


def _reported(changes: list[Any], pointer: str, whole: bool = True) -> bool:
    """Whether a lossy change of the report is about the part at ``pointer`` (the canonical
    conversation's ``/messages/<i>/parts/<j>``): at it, or with ``whole=False`` inside it."""
    return any(
        c.lossy and (c.pointer == pointer or (not whole and c.pointer.startswith(pointer + "/"))) for c in changes
    )


def _pieces(r: ToolResult) -> list[str]:
    """The texts of a result that are not blank, as UTF-8 can carry them."""
    texts = [r.content] if isinstance(r.content, str) else [p.text for p in r.content if isinstance(p, TextPart)]
    return [fix_surrogates(t).strip() for t in texts if t.strip()]


def _losses(
    api: str, conv: Conversation, sent_conv: Conversation, body: dict[str, Any], changes: list[Any]
) -> list[str]:
    """What of ``conv`` (the history handed over) is neither in ``body`` nor reported; the
    report's pointers are into the run's conversation ``sent_conv`` (``conv`` with the answers
    to unanswered calls put in), where each part of ``conv`` is found by identity."""
    problems: list[str] = []
    at = {id(p): f"/messages/{i}/parts/{j}" for i, m in enumerate(sent_conv.messages) for j, p in enumerate(m.parts)}
    parts = [
        (at.get(id(p), f"?/messages/{i}/parts/{j}"), p)
        for i, m in enumerate(conv.messages)
        for j, p in enumerate(m.parts)
    ]
    strings = [fix_surrogates(s) for s in wire_strings(body)]
    blob = "\n".join(strings)
    # a text an API takes in pieces (Chat's 1 MiB content limit: consecutive text parts) is whole here
    joined = "".join(fix_surrogates(s) for s in wire_strings(body, skip=frozenset({"type"})))
    n_calls = sum(1 for _, p in parts if isinstance(p, ToolCall))
    n_reported = sum(1 for where, p in parts if isinstance(p, ToolCall) and _reported(changes, where))
    n_sent = len(wire_calls(api, body))
    if n_sent < n_calls - n_reported:
        problems.append(f"{n_calls} tool calls in, {n_sent} sent, {n_reported} reported left out")
    # each result of the input matched to its own result of the body holding its texts (a blank
    # result, whose text says nothing, to any); a maximum matching (augmenting paths)
    wire = ["\n".join(fix_surrogates(s) for s in wire_strings(content)) for _, content in wire_results(api, body)]
    inputs = [(w, p) for w, p in parts if isinstance(p, ToolResult) and not _reported(changes, w)]
    fits = [[k for k, text in enumerate(wire) if all(t in text for t in _pieces(r))] for _, r in inputs]
    owner: dict[int, int] = {}

    def place(n: int, seen: set[int]) -> bool:
        for k in fits[n]:
            if k not in seen:
                seen.add(k)
                if k not in owner or place(owner[k], seen):
                    owner[k] = n
                    return True
        return False

    for n in range(len(inputs)):
        if not place(n, set()):
            where, r = inputs[n]
            problems.append(f"tool result {where} for {r.tool_call_id!r} lost unsaid: {r.text[:80]!r}")
    instructions = conv.instructions or ""
    if instructions.strip() and fix_surrogates(instructions).strip() not in blob:
        problems.append(f"instructions lost unsaid: {instructions[:80]!r}")
    for where, p in parts:
        if isinstance(p, ReasoningPart) and p.text.strip():
            text = fix_surrogates(p.text).strip()
            # a repair of the preflight reports a pointer into the body, which names no part here:
            # a lossy change about a reasoning item there is taken as this part's
            in_body = any(
                c.lossy and not c.pointer.startswith("/messages/") and "reasoning" in c.detail for c in changes
            )
            if text not in blob and text not in joined and not _reported(changes, where) and not in_body:
                problems.append(f"reasoning {where} ({p.provider}) lost unsaid: {p.text[:80]!r}")
        if isinstance(p, TextPart) and p.text.strip():
            text = fix_surrogates(p.text).strip()
            if text not in blob and text not in joined and not _reported(changes, where, whole=False):
                problems.append(f"text {where} lost unsaid: {p.text[:80]!r}")
    return problems


def one_conversation(conv: Conversation, prompt: Any) -> list[str]:
    return [f"{target}: {p}" for target, *_ in TARGETS for p in run_api(target, conv, prompt)]


def test_fuzzed_conversations_are_sent_valid_or_refused_and_lose_nothing_unsaid():
    for target, *_ in TARGETS:
        _model(target)

    @seeded
    @fuzz_settings(EXAMPLES)
    @given(drawn=conversations())
    def check(drawn: tuple[Conversation, Any]) -> None:
        conv, prompt = drawn
        with hang_guard(60, "one conversation"):
            problems = one_conversation(conv, prompt)
        assert not problems, dump(conv, prompt) + "\n" + "\n".join(problems)

    check()


def _u(text: str) -> Message:
    return Message("user", [TextPart(text)])


def _call(cid: str, name: str = "get_weather", **kw: Any) -> ToolCall:
    return ToolCall(cid, name, {"city": "Paris"}, **kw)


def _res(cid: str, text: str, name: str | None = "get_weather", **kw: Any) -> ToolResult:
    return ToolResult(cid, text, name=name, **kw)


def _found() -> list[Any]:
    """Conversations the fuzz test found toolwire getting wrong (minimised), each failing on the
    code before its fix; built fresh for each test (a run must not share parts between them)."""
    return [
        pytest.param(
            Conversation(
                [
                    _u("a, then b"),
                    Message("assistant", [_call("call_0")]),
                    Message("user", [_res("call_0", "result A")]),
                    Message("assistant", [_call("call_0")]),
                    Message("assistant", []),
                    Message("user", [_res("call_0", "result B")]),
                ]
            ),
            None,
            id="reused-id-answered-after-an-empty-assistant-message",
        ),
        pytest.param(
            Conversation(
                [
                    _u("weather?"),
                    Message("assistant", [_call("c1")]),
                    Message("user", [_res("c1", "first"), _res("c1", "second")]),
                    Message("assistant", [TextPart("ok")]),
                    Message("user", [_res("c1", "again")]),
                ]
            ),
            None,
            id="second-results-for-one-call",
        ),
        pytest.param(
            Conversation(
                [
                    _u("weather?"),
                    Message(
                        "assistant",
                        [_call("toolu_1"), _call("toolu_1", invalid="duplicate tool call id toolu_1 in one response")],
                    ),
                    Message("user", [_res("toolu_1", "sunny"), _res("toolu_1", "not run: id repeated", is_error=True)]),
                ]
            ),
            "and now?",
            id="call-repeating-an-id-in-its-response",
        ),
        pytest.param(
            Conversation([Message("user", [_res("c1", "early"), TextPart("hi")]), Message("assistant", [_call("c1")])]),
            "next",
            id="result-before-its-call",
        ),
        pytest.param(
            Conversation(
                [
                    _u("q"),
                    Message("assistant", [_call("c0")]),
                    Message("user", [_res("c0", "a")]),
                    Message("assistant", [_call("c0")]),
                    Message("assistant", [ReasoningPart("hmm", provider="other"), TextPart("Let me see.")]),
                    _u("go on"),
                ]
            ),
            None,
            id="pointers-after-an-answer-only-the-request-holds",
        ),
        pytest.param(
            Conversation(
                [
                    _u("weather, then files"),
                    Message("assistant", [_call("x")]),
                    Message("assistant", [_call("a"), _call("b", "search_files")]),
                    Message("user", [_res("x", "X"), _res("a", "A"), _res("b", "B", "search_files")]),
                ]
            ),
            None,
            id="answers-to-consecutive-assistant-messages",
        ),
        pytest.param(
            Conversation([Message("assistant", [TextPart("Hello, how can I help?")]), _u(" ")]),
            "weather?",
            id="history-starting-with-the-model",
        ),
        pytest.param(
            Conversation(
                [
                    _u("hi"),
                    Message(
                        "assistant",
                        [
                            ReasoningPart("Let me think.", provider="anthropic"),
                            ReasoningPart("Still thinking.", signature="", provider="anthropic"),
                            ReasoningPart("Hmm.", encrypted="", provider="openai"),
                            ReasoningPart("Hm.", provider="openai"),
                            ReasoningPart(
                                "The user wants weather.",
                                provider="openai-chat",
                                provider_data={
                                    "openai-chat": {"field": "reasoning_content", "origin": "api.deepseek.com"}
                                },
                            ),
                            TextPart("Hello."),
                        ],
                    ),
                    _u("more"),
                ]
            ),
            None,
            id="reasoning-that-cannot-go-back",
        ),
    ]


#: Targets that must send (not refuse) a found conversation: where the fix was a refusal turned
#: into a valid request.
MUST_SEND = {"answers-to-consecutive-assistant-messages": {"gemini", "gemini-3", "anthropic", "openai"}}


@pytest.mark.parametrize("conv,prompt", _found())
def test_conversations_found_by_the_fuzz_test_hold_every_invariant(
    conv: Conversation, prompt: Any, request: pytest.FixtureRequest
) -> None:
    problems = one_conversation(conv, prompt)
    assert not problems, "\n".join(problems)
    for target in MUST_SEND.get(request.node.callspec.id, ()):
        model, holder = _model(target)
        holder["handler"] = lambda r, api=model.provider: httpx2.Response(200, json=text_body(api, "done"))
        assert toolwire.run_sync(model, prompt, conversation=conv, tools=TOOLS, max_turns=1).text == "done", target


def test_zz_report_conversation_fuzz_outcomes():
    if OUTCOMES:
        print("\nconversation fuzz outcomes:", dict(sorted(OUTCOMES.items())))
