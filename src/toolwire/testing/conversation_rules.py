"""A validator of the vendors' conversation rules, applied to encoded request bodies.

The SDKs' request types are ``TypedDict``s and check nothing at run time, and the APIs answer a
broken history with a 400 only when you are live. These checks encode the rules the vendors
document (each rule names its source) so tests can prove that an encoded request would be
accepted: every tool call answered in the right place, ids paired, signatures where required,
no foreign reasoning.

``validate_request(api, body) -> list[str]``: the problems found (empty when valid).
"""

from __future__ import annotations

from typing import Any

__all__ = ["validate_request", "RULES"]

#: The rules checked, by API, each with where it comes from.
RULES: dict[str, list[str]] = {
    "anthropic": [
        "messages alternate user/assistant and start with user (Messages API reference: 'consecutive turns of the same role are combined'; toolwire always merges, so two in a row is an error here)",
        "every tool_use id is answered by a tool_result in the very next user message (API error: 'tool_use ids were found without tool_result blocks immediately after')",
        "tool_result blocks come first in that user message, before any text (Anthropic 'Handle tool calls' guide)",
        "a tool_result refers to a tool_use of the previous assistant message; tool_use ids are unique",
        "a thinking block carries a signature and redacted_thinking carries data (extended-thinking docs: blocks go back unmodified)",
        "tool_use.input is a JSON object",
    ],
    "openai-chat": [
        "an assistant message with tool_calls is followed directly by one role:tool message per call id, nothing between them (API behaviour: 400 'tool_call_ids did not have response messages')",
        "a role:tool message answers a tool_call_id of the preceding assistant message",
        "function.arguments is a string holding a JSON object",
    ],
    "openai": [
        "every function_call item is answered by a function_call_output with the same call_id later in the input (API: 'No tool output found for function call')",
        "a function_call_output refers to an earlier function_call's call_id (unless previous_response_id continues a stored response)",
        "a reasoning item carries encrypted_content or an id the server stored (stateless continuation docs)",
        "function_call.arguments is a string holding a JSON object",
    ],
    "gemini": [
        "a model Content with functionCall parts is followed by one user Content holding exactly one functionResponse per call, in call order (API error: 'number of function response parts ... equal to number of function call parts')",
        "functionResponse.name matches its call; ids are echoed when the call had one and absent when it had none",
        "functionCall.args is an object; functionResponse.response is an object",
        "thoughtSignature values are base64 text",
    ],
}


def validate_request(api: str, body: dict[str, Any]) -> list[str]:
    """Check an encoded request body of ``api`` (``anthropic``, ``openai-chat``,
    ``openai``, ``gemini``); return human-readable problems, empty when valid."""
    fn = {
        "anthropic": _anthropic,
        "openai-chat": _chat,
        "openai": _responses,
        "gemini": _gemini,
    }.get(api)
    if fn is None:
        raise ValueError(f"unknown api {api!r}; expected one of {sorted(RULES)}")
    return fn(body)


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _anthropic(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    msgs = body.get("messages") or []
    if msgs and msgs[0].get("role") != "user":
        problems.append("messages[0] must be a user message")
    seen_ids: set[str] = set()
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role not in ("user", "assistant"):
            problems.append(f"messages[{i}].role is {role!r}")
        if i and msgs[i - 1].get("role") == role:
            problems.append(f"messages[{i}] repeats role {role!r} (merge consecutive same-role messages)")
        blocks = _blocks(m.get("content"))
        if role == "assistant":
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            for b in uses:
                if not isinstance(b.get("input"), dict):
                    problems.append(f"messages[{i}] tool_use {b.get('id')!r}: input is not an object")
                if b.get("id") in seen_ids:
                    problems.append(f"messages[{i}] tool_use id {b.get('id')!r} is used twice")
                seen_ids.add(b.get("id"))
            for b in blocks:
                if b.get("type") == "thinking" and not b.get("signature"):
                    problems.append(f"messages[{i}] thinking block without signature (foreign or altered reasoning)")
                if b.get("type") == "redacted_thinking" and not b.get("data"):
                    problems.append(f"messages[{i}] redacted_thinking block without data")
            if uses:
                nxt = msgs[i + 1] if i + 1 < len(msgs) else None
                if nxt is None:
                    continue  # the request ends on the model's calls: nothing to answer yet
                if nxt.get("role") != "user":
                    problems.append(f"messages[{i}] tool_use blocks are not followed by a user message")
                    continue
                nblocks = _blocks(nxt.get("content"))
                results = [b for b in nblocks if b.get("type") == "tool_result"]
                answered = [b.get("tool_use_id") for b in results]
                for b in uses:
                    if b.get("id") not in answered:
                        problems.append(f"tool_use {b.get('id')!r} (messages[{i}]) has no tool_result in messages[{i + 1}]")
                kinds = [b.get("type") for b in nblocks]
                if results and kinds[: len(results)] != ["tool_result"] * len(results):
                    problems.append(f"messages[{i + 1}]: tool_result blocks must come before other content")
                extra = set(answered) - {b.get("id") for b in uses}
                for e in sorted(x for x in extra if x):
                    problems.append(f"messages[{i + 1}]: tool_result {e!r} answers no tool_use of messages[{i}]")
        elif role == "user":
            prev_uses = set()
            if i and msgs[i - 1].get("role") == "assistant":
                prev_uses = {b.get("id") for b in _blocks(msgs[i - 1].get("content")) if b.get("type") == "tool_use"}
            for b in blocks:
                if b.get("type") == "tool_result" and b.get("tool_use_id") not in prev_uses:
                    problems.append(f"messages[{i}]: tool_result {b.get('tool_use_id')!r} answers no tool_use of the previous message")
                if b.get("type") in ("thinking", "redacted_thinking", "tool_use"):
                    problems.append(f"messages[{i}]: a user message cannot hold {b.get('type')} blocks")
    return problems


def _json_object_text(value: Any) -> bool:
    import json

    if not isinstance(value, str):
        return False
    try:
        return isinstance(json.loads(value), dict)
    except ValueError:
        return False


def _chat(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    msgs = body.get("messages") or []
    i = 0
    while i < len(msgs):
        m = msgs[i]
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            ids = []
            for c in m["tool_calls"]:
                fn = c.get("function") or {}
                if c.get("type", "function") == "function" and not _json_object_text(fn.get("arguments")):
                    problems.append(f"messages[{i}] tool call {c.get('id')!r}: arguments {fn.get('arguments')!r} is not a JSON object string")
                ids.append(c.get("id"))
            if len(set(ids)) != len(ids):
                problems.append(f"messages[{i}] repeats a tool call id")
            j = i + 1
            answered = []
            while j < len(msgs) and msgs[j].get("role") == "tool":
                answered.append(msgs[j].get("tool_call_id"))
                j += 1
            if j == len(msgs) and not answered:
                i = j
                continue  # ends on the model's calls
            for cid in ids:
                if cid not in answered:
                    problems.append(f"tool call {cid!r} (messages[{i}]) has no role:tool message directly after it")
            for a in answered:
                if a not in ids:
                    problems.append(f"role:tool message for {a!r} answers no call of messages[{i}]")
            i = j
            continue
        if role == "tool":
            problems.append(f"messages[{i}] is a role:tool message that does not follow an assistant message with tool_calls")
        i += 1
    return problems


def _responses(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    items = body.get("input")
    if isinstance(items, str) or items is None:
        return problems
    continued = bool(body.get("previous_response_id") or body.get("conversation"))
    calls: dict[str, int] = {}
    outputs: dict[str, int] = {}
    for i, it in enumerate(items):
        typ = it.get("type")
        if typ == "function_call":
            cid = it.get("call_id")
            if not cid:
                problems.append(f"input[{i}] function_call without call_id")
            if cid in calls:
                problems.append(f"input[{i}] repeats call_id {cid!r}")
            calls[cid] = i
            if not _json_object_text(it.get("arguments")):
                problems.append(f"input[{i}] function_call {cid!r}: arguments {it.get('arguments')!r} is not a JSON object string")
        elif typ == "function_call_output":
            cid = it.get("call_id")
            if cid not in calls and not continued:
                problems.append(f"input[{i}] function_call_output {cid!r} answers no earlier function_call")
            outputs[cid] = i
        elif typ == "reasoning":
            if not it.get("encrypted_content") and not it.get("id"):
                problems.append(f"input[{i}] reasoning item with neither encrypted_content nor id")
    for cid, idx in calls.items():
        if cid not in outputs:
            rest = items[idx + 1:]
            if all(r.get("type") in ("function_call", "reasoning") or (r.get("type") == "message" and r.get("role") == "assistant") for r in rest):
                continue  # the input ends on the model's calls: nothing to answer yet
            problems.append(f"function_call {cid!r} (input[{idx}]) has no function_call_output")
        elif outputs[cid] < idx:
            problems.append(f"function_call_output {cid!r} comes before its function_call")
    return problems


def _is_base64(value: Any) -> bool:
    """Standard or URL-safe base64 (proto JSON accepts both for ``bytes`` fields)."""
    import base64
    import binascii

    if not isinstance(value, str) or not value:
        return False
    for altchars in (None, b"-_"):
        try:
            base64.b64decode(value, altchars=altchars, validate=True)
            return True
        except (binascii.Error, ValueError):
            continue
    return False


def _gemini(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    contents = body.get("contents") or []
    for i, c in enumerate(contents):
        parts = c.get("parts") or []
        for p in parts:
            sig = p.get("thoughtSignature", p.get("thought_signature"))
            if sig is not None:
                if not _is_base64(sig):
                    problems.append(f"contents[{i}] thoughtSignature is not base64 text")
        calls = [p.get("functionCall", p.get("function_call")) for p in parts if "functionCall" in p or "function_call" in p]
        if c.get("role") == "model" and calls:
            for fc in calls:
                if not isinstance(fc.get("args", {}), dict):
                    problems.append(f"contents[{i}] functionCall {fc.get('name')!r}: args is not an object")
            if i + 1 >= len(contents):
                continue  # ends on the model's calls
            nxt = contents[i + 1]
            rparts = [p.get("functionResponse", p.get("function_response")) for p in nxt.get("parts") or []
                      if "functionResponse" in p or "function_response" in p]
            if nxt.get("role") not in ("user", "function", None) or len(rparts) != len(calls):
                problems.append(
                    f"contents[{i}] has {len(calls)} functionCall parts but contents[{i + 1}] has {len(rparts)} functionResponse parts"
                )
                continue
            for k, (fc, fr) in enumerate(zip(calls, rparts)):
                if fc.get("name") != fr.get("name"):
                    problems.append(f"contents[{i + 1}] functionResponse {k} is named {fr.get('name')!r}, its call {fc.get('name')!r}")
                if fc.get("id") != fr.get("id"):
                    problems.append(f"contents[{i + 1}] functionResponse {k} id {fr.get('id')!r} does not echo call id {fc.get('id')!r}")
                if not isinstance(fr.get("response"), dict):
                    problems.append(f"contents[{i + 1}] functionResponse {k}: response is not an object")
        elif c.get("role") != "model" and calls:
            problems.append(f"contents[{i}] is not a model turn but holds functionCall parts")
    return problems
