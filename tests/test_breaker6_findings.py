"""Findings of the adversarial pass over the session-6 request-body work (JSON bodies assembled
from the kept bytes of a conversation's earlier entries, ``toolwire.adapter.body_json``).

Real SDKs over ``httpx2.MockTransport``; the vendor answers are the benchmark's canned ones
(``benchmarks/suite.py``): each turn calls the ``lookup`` tool, the last one ends the turn.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire

#: The incremental encoding runs from a conversation's second request (see conftest.py).
pytestmark = pytest.mark.usefixtures("incremental_from_start")

httpx2 = pytest.importorskip("httpx2")

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5", "messages"),
    "openai-chat": ("toolwire_openai", "gpt-4.1", "messages"),
    "openai": ("toolwire_openai", "gpt-5", "input"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash", "contents"),
}


def _suite() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import suite  # pyright: ignore[reportMissingImports]

    return suite


def _model(api: str, turns: int, posted: list[bytes]) -> Any:
    pytest.importorskip(APIS[api][0])
    inner = _suite().transport_for(api, turns)

    def handler(request: Any) -> Any:
        posted.append(request.content)
        return inner.handler(request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", http_client=client, max_retries=0)


@pytest.mark.parametrize("hook", ["post", "stream_body"])
@pytest.mark.parametrize("api", list(APIS))
def test_b6_an_instance_hook_editing_the_body_has_each_edit_sent(api: str, hook: str) -> None:
    """A hook set on the model INSTANCE (``model.post = wrapper``, as one wraps a method to log
    or patch a body) that edits the first conversation entry in place on every request: each
    request must carry that request's edit. Was: from the third request on, the entry went as
    its kept bytes from an earlier request (marks [1, 2, 2, 2] / [1, 2, 3, 3])."""
    turns, key = 4, APIS[api][2]
    posted: list[bytes] = []
    m = _model(api, turns, posted)
    original = getattr(m, hook)
    count = [0]

    async def patched_post(body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        body[key][0]["mark"] = count[0]
        return await original(body, *args, **kwargs)

    def patched_stream_body(body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        body = original(body, *args, **kwargs)
        body[key][0]["mark"] = count[0]
        return body

    setattr(m, hook, patched_post if hook == "post" else patched_stream_body)
    suite = _suite()
    result = asyncio.run(toolwire.run(m, "go", tools=[suite.lookup], max_turns=turns))
    assert result.stop_reason == "end_turn"
    assert [json.loads(p)[key][0].get("mark") for p in posted] == [1, 2, 3, 4]


def _lister(q: str, n: int = 1) -> str:
    """List files.

    Args:
        q: Where.
        n: How many.
    """
    # a file name that is not UTF-8, as os.listdir() decodes it (surrogateescape), and an emoji
    # spelled as its two UTF-16 halves
    return "report-" + b"\xff".decode("utf-8", "surrogateescape") + ".txt \ud83d\ude00"


_lister.__name__ = "lookup"


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "openai"])
def test_b6_a_lone_surrogate_in_a_tool_result_or_prompt_is_sent_as_valid_utf8(api: str) -> None:
    """A tool returning ``os.listdir()``-style text with a lone surrogate, and a prompt holding
    one: UTF-8 cannot carry it, so the body goes with U+FFFD in its place (a pair of halves as
    the one character they spell). Was: every request failed inside the SDK's encoder and the
    run stopped with ``ProviderError`` "connection error (UnicodeEncodeError: ...)
    (retryable)", which no retry could mend."""
    turns = 3
    posted: list[bytes] = []
    m = _model(api, turns, posted)
    prompt = "look in dir-" + b"\xfe".decode("utf-8", "surrogateescape")
    result = asyncio.run(toolwire.run(m, prompt, tools=[toolwire.tool(_lister)], max_turns=turns))
    assert result.stop_reason == "end_turn" and len(posted) == turns
    for body in posted:
        text = body.decode("utf-8")  # strict: valid UTF-8
        assert "look in dir-\ufffd" in text
    assert "report-\ufffd.txt \U0001f600" in posted[-1].decode("utf-8")


@pytest.mark.parametrize("api", list(APIS))
def test_b6_a_hand_built_tool_call_with_bytes_arguments_is_a_typed_error_before_any_request(api: str) -> None:
    """A conversation whose earlier tool call (built by hand, or edited) carries ``bytes`` in its
    arguments: ``ConfigurationError`` saying what to send, and nothing posted. Was: a bare
    ``TypeError`` from ``json.dumps`` (OpenAI Chat and Responses) or ``ProviderError``
    "connection error (TypeError: ...) (retryable)" (Anthropic, Gemini), retried in vain."""
    from toolwire.errors import ConfigurationError
    from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

    posted: list[bytes] = []
    m = _model(api, 2, posted)
    history = [
        Message("user", [TextPart("hi")]),
        Message("assistant", [ToolCall(id="call_9", name="lookup", arguments={"q": b"\x00raw"})]),
        Message("user", [ToolResult(tool_call_id="call_9", content="r")]),
        Message("user", [TextPart("next")]),
    ]
    suite = _suite()
    with pytest.raises(ConfigurationError, match="JSON cannot carry.*bytes"):
        asyncio.run(toolwire.run(m, None, conversation=Conversation(history), tools=[suite.lookup], max_turns=2))
    assert posted == []


def test_b6_a_nan_in_a_hand_built_anthropic_tool_call_is_a_typed_error_before_any_request() -> None:
    """The same with a NaN (the Anthropic SDK's encoder refuses it: ``allow_nan=False``). Was:
    ``ProviderError`` "connection error (ValueError: Out of range float values are not JSON
    compliant) (retryable)"."""
    from toolwire.errors import ConfigurationError
    from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

    posted: list[bytes] = []
    m = _model("anthropic", 2, posted)
    history = [
        Message("user", [TextPart("hi")]),
        Message("assistant", [ToolCall(id="call_9", name="lookup", arguments={"q": float("nan")})]),
        Message("user", [ToolResult(tool_call_id="call_9", content="r")]),
        Message("user", [TextPart("next")]),
    ]
    suite = _suite()
    with pytest.raises(ConfigurationError, match="JSON cannot carry.*not JSON compliant"):
        asyncio.run(toolwire.run(m, None, conversation=Conversation(history), tools=[suite.lookup], max_turns=2))
    assert posted == []


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("api", list(APIS))
def test_b6_a_non_finite_number_in_a_hand_built_tool_call_is_never_sent_as_a_bare_literal(
    api: str, value: float
) -> None:
    """A NaN or infinity in an earlier tool call's arguments (built by hand, or edited): either a
    ``ConfigurationError`` before anything is posted, or a body that is strict JSON (no bare
    ``NaN`` / ``Infinity`` literal anywhere, also not inside the arguments text Chat and Responses
    carry as a string). Was, on Gemini: the body held ``{"q": NaN}`` (google-genai's ``json.dumps``
    defaults), which the API cannot parse."""
    from toolwire.errors import ConfigurationError
    from toolwire.types import Conversation, Message, TextPart, ToolCall, ToolResult

    posted: list[bytes] = []
    m = _model(api, 2, posted)
    history = [
        Message("user", [TextPart("hi")]),
        Message("assistant", [ToolCall(id="call_9", name="lookup", arguments={"q": value})]),
        Message("user", [ToolResult(tool_call_id="call_9", content="r")]),
        Message("user", [TextPart("next")]),
    ]
    suite = _suite()

    def strict(text: str) -> Any:
        def refuse(name: str) -> Any:
            raise ValueError(f"non-JSON literal {name}")

        return json.loads(text, parse_constant=refuse)

    try:
        asyncio.run(toolwire.run(m, None, conversation=Conversation(history), tools=[suite.lookup], max_turns=2))
    except ConfigurationError as exc:
        assert "JSON cannot carry" in str(exc)
        assert posted == []
        return
    assert posted
    for body in posted:
        doc = strict(body.decode("utf-8"))
        for entry in doc.get(APIS[api][2], []):  # arguments carried as JSON text must be strict too
            for call in entry.get("tool_calls", []) if isinstance(entry, dict) else []:
                strict(call["function"]["arguments"])
            if isinstance(entry, dict) and entry.get("type") == "function_call":
                strict(entry["arguments"])
