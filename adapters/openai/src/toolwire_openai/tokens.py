"""Offline input-token estimate for Chat Completions (no endpoint exists; no download at run time).

Uses the ``o200k_base`` BPE ranks that ship inside toolwire (``toolwire.design.tokens``:
GPT-4o, GPT-4.1, GPT-5 and the o-series encoding) and OpenAI's published chat accounting:
3 tokens per message plus its role and content, 3 tokens priming the reply, tool-call names and
argument text, and the tool set rendered as the ``namespace functions`` block the models see
(``toolwire.design.tokens.render_openai_tools``). Images are not counted (their cost depends on
size and ``detail``). Measured against the real ``usage.prompt_tokens`` of the recorded Chat
requests: see :data:`MEASURED_ERROR` and ``docs/adapters/openai.md``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["estimate_chat_input_tokens", "MEASURED_ERROR"]

#: Per-message and reply-priming overheads of OpenAI's chat format (OpenAI cookbook,
#: "How to count tokens with tiktoken": 3 per message, 3 for the assistant reply).
TOKENS_PER_MESSAGE = 3
REPLY_PRIMING = 3
#: Tokens around each tool call in an assistant message (id/name framing), and extra per call
#: when one message holds several (parallel calls are wrapped once more); fitted on recordings.
TOKENS_PER_TOOL_CALL = 9
TOKENS_PER_PARALLEL_CALL = 6
#: Hidden prompt tokens reasoning models (gpt-5*, o1/o3/o4*) add; measured on ONE recording
#: (gpt-5-mini, 83 and 91 tokens on its two requests), so treat it as rough.
REASONING_MODEL_OVERHEAD = 85
_REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")

#: Bound on the relative error, from the measurement on the 25 recorded Chat requests
#: (gpt-4o, gpt-4o-mini, gpt-4.1-mini, gpt-5-mini): worst 5.3 %, mean 2.0 %
#: (``adapters/openai/tests/test_openai_tokens.py`` checks it).
MEASURED_ERROR = 0.06


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def estimate_chat_input_tokens(body: dict[str, Any]) -> int:
    """Estimated ``prompt_tokens`` of a ``/chat/completions`` request body (the codec's output).

    Offline and deterministic; needs ``tiktoken`` (a core dependency) and the shipped ranks.
    Accuracy: see :data:`MEASURED_ERROR`."""
    from toolwire.design.tokens import count_text, render_openai_tools

    total = REPLY_PRIMING
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        total += TOKENS_PER_MESSAGE + count_text(str(msg.get("role", "")))
        total += count_text(_content_text(msg.get("content")))
        calls = msg.get("tool_calls") or []
        for tc in calls:
            fn = tc.get("function") or {}
            total += TOKENS_PER_TOOL_CALL + count_text(fn.get("name", "")) + count_text(fn.get("arguments", "") or "")
            if len(calls) > 1:
                total += TOKENS_PER_PARALLEL_CALL
    tools = [t.get("function") for t in body.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("function"), dict)]
    if tools:
        decls = [{"name": f.get("name", ""), "description": f.get("description") or "", "input_schema": f.get("parameters") or {}} for f in tools]
        total += count_text(render_openai_tools(decls))
    if str(body.get("model", "")).startswith(_REASONING_PREFIXES):
        total += REASONING_MODEL_OVERHEAD
    return total
