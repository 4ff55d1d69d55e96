"""A request that extends the previous one of its conversation costs toolwire the same number of
function calls whatever the history's length (counted, not timed): a check that walks the whole
conversation with a call per message or part makes each turn of a long run dearer than the last.
The Gemini inline-data size check did so (2,189 calls a turn at turns 41-50 of the 50-turn
benchmark against 972 at turns 1-10)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import toolwire
from toolwire import Conversation, Message, TextPart, Tool, ToolCall, ToolResult

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5"),
    "openai-chat": ("toolwire_openai", "gpt-4.1"),
    "openai": ("toolwire_openai", "gpt-4.1"),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash"),
}
LOOKUP = Tool("lookup", "Look something up.", {"type": "object", "properties": {"q": {"type": "string"}}})


def _history(turns: int) -> list[Message]:
    msgs = [Message("user", [TextPart("go")])]
    for k in range(turns):
        msgs.append(Message("assistant", [TextPart(f"step {k}"), ToolCall(f"call_{k}", "lookup", {"q": str(k)})]))
        msgs.append(Message("user", [ToolResult(f"call_{k}", f"result {k}", name="lookup")]))
    return msgs


def _calls_of_last_request(api: str, turns: int) -> int:
    """toolwire's function calls preparing the request at ``turns`` tool turns, after the
    conversation's earlier requests were prepared (each extends the one before)."""
    pytest.importorskip(APIS[api][0])
    m = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0)
    owner = Conversation()
    history = _history(turns)
    count = 0

    def prof(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and ("/toolwire/" in frame.f_code.co_filename or "toolwire_" in frame.f_code.co_filename):
            count += 1

    for n in range(3, len(history) + 1, 2):
        req = m.build_request(history[:n], tools=[LOOKUP])
        req.conversation = owner
        last = n + 2 > len(history)
        if last:
            sys.setprofile(prof)
        try:
            m._preflight(req, incremental=True)
        finally:
            sys.setprofile(None)
    return count


@pytest.mark.parametrize("api", list(APIS))
def test_a_request_extending_a_long_history_makes_no_more_calls_than_a_short_ones(api: str) -> None:
    short, long = _calls_of_last_request(api, 12), _calls_of_last_request(api, 60)
    assert short > 0
    assert long <= short * 1.1 + 5, (short, long)
