"""Token counts for the OpenAI APIs: offline estimates and the live count.

Offline (no network, no key, no download): the ``o200k_base`` BPE ranks that ship inside
toolwire (``toolwire.design.tokens.count_text``: GPT-4o, GPT-4.1, GPT-5 and the o-series
encoding) over

- the tool set rendered the way OpenAI's published "harmony" prompt format renders function
  tools — a TypeScript ``namespace functions { ... }`` block with ``//`` comments for
  descriptions (:func:`render_openai_tools`), plus :data:`OPENAI_TOOLS_OVERHEAD` once for a
  non-empty set (:func:`estimate_tool_tokens`);
- a whole Chat request with OpenAI's published chat accounting — 3 tokens per message plus
  its role and content, 3 tokens priming the reply, tool-call names and argument text, and the
  tool block (:func:`estimate_chat_input_tokens`). Images are not counted (their cost depends
  on size and ``detail``). Measured against the real ``usage.prompt_tokens`` of the recorded
  Chat requests: see :data:`MEASURED_ERROR`.

Live: :func:`count_input_tokens` calls the SDK's ``responses.input_tokens.count``
(``POST /responses/input_tokens``); a Chat body is first rewritten as a Responses request
(:func:`chat_body_as_responses`), Chat Completions having no counting endpoint.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

__all__ = [
    "estimate_chat_input_tokens",
    "estimate_tool_tokens",
    "render_openai_tools",
    "render_openai_tool",
    "tool_declaration",
    "chat_body_as_responses",
    "count_input_tokens",
    "MEASURED_ERROR",
    "OPENAI_TOOLS_OVERHEAD",
    "INPUT_TOKENS_FIELDS",
]

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

#: Tokens OpenAI adds once when a request carries at least one function tool, beyond the
#: rendered ``namespace functions`` block (measured on 8 recorded Chat Completions requests:
#: predicted minus actual prompt tokens -1..+4).
OPENAI_TOOLS_OVERHEAD = 1

#: Bound on the relative error, from the measurement on the 25 recorded Chat requests
#: (gpt-4o, gpt-4o-mini, gpt-4.1-mini, gpt-5-mini): worst 5.3 %, mean 2.0 % (a test checks it).
MEASURED_ERROR = 0.06

#: Fields ``POST /responses/input_tokens`` accepts (``resources/responses/input_tokens.py``).
INPUT_TOKENS_FIELDS = (
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "reasoning",
    "previous_response_id",
    "conversation",
    "parallel_tool_calls",
    "text",
    "truncation",
)


# -- the harmony rendering of function tools ----------------------------------------------------


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
            line += (
                f" // default: {json.dumps(sub['default']) if not isinstance(sub['default'], str) else sub['default']}"
            )
        out.append(line + "\n")
    return "".join(out)


def render_openai_tool(name: str, description: str, parameters: dict[str, Any] | None) -> str:
    """One tool's block inside ``namespace functions``: a ``// description`` comment and
    ``type name = (_: {...}) => any;``."""
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


def tool_declaration(t: Any) -> tuple[str, str, dict[str, Any]]:
    """``(name, description, parameters)`` of a tool given as a :class:`~toolwire.tools.Tool`,
    a canonical ``{"name", "description", "input_schema"}`` dict, a Chat declaration
    ``{"type": "function", "function": {...}}`` or a flat Responses declaration."""
    if hasattr(t, "input_schema") and hasattr(t, "model_description"):
        return t.name, t.model_description(), t.input_schema
    if isinstance(t, dict) and isinstance(t.get("function"), dict):
        t = t["function"]
    if not isinstance(t, dict):
        raise TypeError(f"not a tool declaration: {t!r}")
    return str(t.get("name", "")), t.get("description") or "", t.get("input_schema") or t.get("parameters") or {}


def render_openai_tools(tools: Sequence[Any]) -> str:
    """The ``namespace functions`` block OpenAI's harmony format builds from function tools
    (one block per tool, see :func:`render_openai_tool`); ``tools`` as :func:`tool_declaration`
    reads them."""
    body = "\n".join(render_openai_tool(*tool_declaration(t)) for t in tools)
    return f"# Tools\n\n## functions\n\nnamespace functions {{\n\n{body}\n}} // namespace functions"


def estimate_tool_tokens(tools: Sequence[Any]) -> int:
    """Exact ``o200k_base`` tokens of :func:`render_openai_tools` plus
    :data:`OPENAI_TOOLS_OVERHEAD`, or 0 for no tools: what the set adds to every request."""
    from toolwire.design.tokens import count_text

    tools = list(tools)
    if not tools:
        return 0
    return count_text(render_openai_tools(tools)) + OPENAI_TOOLS_OVERHEAD


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def estimate_chat_input_tokens(body: dict[str, Any]) -> int:
    """Estimated ``prompt_tokens`` of a ``/chat/completions`` request body (the codec's output).

    Offline and deterministic; needs ``tiktoken`` (a core dependency) and the shipped ranks.
    Accuracy: see :data:`MEASURED_ERROR`. A reasoning model is read from the model id in any
    spelling (:func:`~toolwire_openai.profile.model_key`)."""
    from toolwire.design.tokens import count_text

    from .profile import model_key

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
    tools = [
        t.get("function")
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    if tools:
        total += count_text(render_openai_tools(tools))
    if model_key(body.get("model")).startswith(_REASONING_PREFIXES):
        total += REASONING_MODEL_OVERHEAD
    return total


# -- live count -------------------------------------------------------------------------------


def _chat_content_as_input(content: Any) -> Any:
    if isinstance(content, str) or content is None:
        return content or ""
    parts = []
    for p in content:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "text":
            parts.append({"type": "input_text", "text": p.get("text", "")})
        elif p.get("type") == "image_url":
            url = p.get("image_url", {}).get("url") if isinstance(p.get("image_url"), dict) else p.get("image_url")
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
        elif p.get("type") == "file" and isinstance(p.get("file"), dict):
            # a PDF (File: file_data + filename, or file_id): the same file as an input_file
            f = p["file"]
            parts.append({"type": "input_file", **{k: f[k] for k in ("file_data", "filename", "file_id") if k in f}})
    return parts


def chat_body_as_responses(body: dict[str, Any]) -> dict[str, Any]:
    """A ``/chat/completions`` body rewritten as the ``/responses/input_tokens`` request with the
    same content: messages → input items (system/developer/user/assistant messages, assistant
    ``tool_calls`` → ``function_call`` items, ``role: tool`` → ``function_call_output``),
    function tools flattened, ``tool_choice``/``parallel_tool_calls``/``reasoning_effort``
    carried over."""
    items: list[dict[str, Any]] = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": m.get("tool_call_id", ""),
                    "output": _content_text(m.get("content")),
                }
            )
            continue
        if role == "assistant":
            text = _content_text(m.get("content"))
            if text:
                items.append({"role": "assistant", "content": text})
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                items.append(
                    {
                        "type": "function_call",
                        "call_id": tc.get("id", ""),
                        "name": fn.get("name", ""),
                        "arguments": fn.get("arguments") or "{}",
                    }
                )
            continue
        items.append(
            {
                "role": role if role in ("system", "developer", "user") else "user",
                "content": _chat_content_as_input(m.get("content")),
            }
        )
    out: dict[str, Any] = {"model": body.get("model"), "input": items}
    tools = []
    for t in body.get("tools") or []:
        if isinstance(t, dict) and isinstance(t.get("function"), dict):
            fn = t["function"]
            tools.append(
                {
                    "type": "function",
                    "name": fn.get("name"),
                    "description": fn.get("description") or "",
                    "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
                    "strict": bool(fn.get("strict")),
                }
            )
    if tools:
        out["tools"] = tools
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
            choice = {"type": "function", "name": choice["function"].get("name")}
        if choice is not None:
            out["tool_choice"] = choice
        if body.get("parallel_tool_calls") is not None:
            out["parallel_tool_calls"] = body["parallel_tool_calls"]
    if body.get("reasoning_effort") is not None:
        out["reasoning"] = {"effort": body["reasoning_effort"]}
    return out


async def count_input_tokens(body: dict[str, Any], *, api: str = "openai", client: Any = None, **settings: Any) -> int:
    """``InputTokenCountResponse.input_tokens`` for a Responses ``body`` (only the fields of
    :data:`INPUT_TOKENS_FIELDS` are sent), through ``client.responses.input_tokens.count`` —
    ``client`` an ``openai.AsyncOpenAI``, else one built from ``api_key``/``base_url``/
    ``http_client``/``max_retries`` in ``settings`` (``OPENAI_API_KEY`` by default). Raises
    :class:`~toolwire.errors.ConfigurationError` for an empty or malformed ``base_url`` (or
    ``OPENAI_BASE_URL``), :class:`~toolwire.errors.ProviderError` (``provider=api``) for API and transport errors and
    :class:`~toolwire.errors.ResponseDecodeError` for an answer that is not a count."""
    import openai

    from toolwire.errors import ResponseDecodeError, ToolwireError
    from toolwire.transport import transport_error

    from ._common import provider_error_from_sdk

    if client is None:
        from toolwire.adapter import check_base_url

        from .models import OpenAIResponsesModel

        check_base_url(settings, OpenAIResponsesModel, shown=f"the {api} token count")
        kwargs = {
            k: settings[k]
            for k in ("api_key", "base_url", "http_client", "max_retries", "timeout")
            if settings.get(k) is not None
        }
        client = openai.AsyncOpenAI(**kwargs)
    fields = {k: body[k] for k in INPUT_TOKENS_FIELDS if k in body}
    try:
        result = await client.responses.input_tokens.count(**fields)
    except openai.APIError as exc:
        raise provider_error_from_sdk(exc, api) from exc
    except ToolwireError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ResponseDecodeError(
            api, f"the token count answer is not an InputTokenCountResponse ({type(exc).__name__}: {exc})"
        ) from exc
    except Exception as exc:
        raise transport_error(api, exc) from exc
    try:
        return int(result.input_tokens)
    except (TypeError, ValueError, AttributeError) as exc:
        raise ResponseDecodeError(api, f"the token count answer has no integer input_tokens ({exc})") from exc
