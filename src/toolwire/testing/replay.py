"""Replay of recorded vendor traffic through the real SDKs, the adapters and the shared loop.

For each cassette (VCR-style YAML, see :mod:`toolwire.testing.cassettes`):

1. every recorded response is decoded through the real vendor SDK and the adapter — the SDK's
   ``httpx2`` transport answers from the cassette (``httpx2.MockTransport``);
2. the shared loop (:func:`toolwire.run`) runs on each recorded conversation: the first request
   is built by toolwire from the decoded first recorded request; tool calls are answered with the
   tool results found in the next recorded request; every request toolwire sends is compared
   with the recorded one *at the canonical level* (both decoded with the adapter's
   ``decode_request``): message order and roles, text, tool calls (names, parsed arguments, the
   ids the vendor sent), tool results (which call, content, error flag) and reasoning (byte-equal
   signatures and encrypted content).

Habits of the recording clients (ids they invented when the vendor sent none, an extra
whitespace-only text block, an item id sent as ``call_id``, a tool list that grows, other
instructions sent after an agent hand-off, a call turn sent back without the model's text beside
the calls, one turn's results sent in several messages) are reported
as per-file notes saying what toolwire does instead, not as failures. Anything else is a failure
with a readable diff.

An interaction's API is told by its method and request path (a POST to the profiles'
``recognizes_uri``: the endpoint of a model turn); an interaction on another endpoint (embeddings,
token counting, a GET listing stored completions) is skipped with
a note, and a cassette with nothing to replay fails ("nothing replayable"). A request to a model
endpoint whose body is missing, ``null`` or not a JSON object, or a 2xx response without a body,
is a failure naming the interaction. A recorded vendor error — an HTTP error status, or an error
object sent with a 2xx status — is replayed on its own and must surface as a
:class:`~toolwire.errors.ProviderError`.

Gemini ``streamGenerateContent`` bodies recorded as a JSON array (without ``alt=sse``) cannot be
parsed by the SDK's stream reader, so the replay transport re-frames the array's chunks as SSE
``data:`` events — the same chunks, in order.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

from .._words import plural
from ..adapter import Model, ModelRequest
from ..context import ToolContext
from ..errors import ResponseDecodeError, RunLimitExceeded, ToolwireError
from ..tools import Tool
from ..types import (
    Conversation,
    DocumentPart,
    ImagePart,
    Message,
    ReasoningPart,
    Response,
    TextPart,
    ToolCall,
    ToolResult,
)
from .cassettes import Interaction, MalformedCassette, NotACassette, load_cassette

#: The count a repeated note carries, added when the notes are gathered: " (seen 2 times)".
_SEEN = re.compile(r" \(seen [\d,]+ times?\)$")

__all__ = ["replay_file", "replay_paths", "FileReport", "PROVIDER_FOR_API", "compare_requests"]

#: Which provider (entry point) serves each recorded API.
#: (The recordings folder of the Responses API is called ``openai-responses``; its provider is ``openai``.)
PROVIDER_FOR_API = {
    "anthropic": "anthropic",
    "openai-chat": "openai-chat",
    "openai": "openai",
    "openai-responses": "openai",
    "gemini": "gemini",
}


@dataclass
class FileReport:
    """What :func:`replay_file` found in one cassette: ``file`` (its name as shown), ``api`` (the
    recorded API, ``None`` when unknown), ``notes`` (habits of the recording client and skipped
    interactions: not failures), ``responses`` (one dict per decoded response), ``requests`` (one
    ``{"interaction", "matches", "diff"}`` per request toolwire sent), and the failures ``errors``
    and ``expected_mismatches``. :attr:`ok` when there are none and every request matched."""

    file: str
    api: str | None
    notes: list[str] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expected_mismatches: list[str] = field(default_factory=list)
    _note_counts: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.expected_mismatches and all(r["matches"] for r in self.requests)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"file": str, "api": str or null, "notes": [str], "responses": [objects],
        "requests": [objects]}`` plus ``"errors"`` and ``"expected_mismatches"`` (lists of str) when
        non-empty. A response object holds its ``interaction`` index, stop reasons, ``tool_calls``,
        ``text``, ``usage`` (in tokens) and, for a vendor error, ``error``."""
        d = {
            "file": self.file,
            "api": self.api,
            "notes": self.notes,
            "responses": self.responses,
            "requests": self.requests,
        }
        if self.errors:
            d["errors"] = self.errors
        if self.expected_mismatches:
            d["expected_mismatches"] = self.expected_mismatches
        return d


# ---------------------------------------------------------------------------------------------
# the transport that answers from the cassette


def _response_bytes(inter: Interaction) -> tuple[bytes, dict[str, str]]:
    headers = {}
    for k, v in inter.response_headers.items():
        if k.lower() in ("content-encoding", "content-length", "transfer-encoding"):
            continue  # the body below is already decoded text
        headers[k] = v[0] if isinstance(v, list) and v else str(v)
    text = inter.response_text or ""
    if inter.stream_format == "json-array":
        chunks = json.loads(text)
        text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in chunks)
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["content-type"] = "text/event-stream"
    elif inter.stream_format == "sse":
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["content-type"] = "text/event-stream"
    else:
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["content-type"] = "application/json"
    return text.encode("utf-8"), headers


class _CassetteTransport:
    """Serves the queued interactions' responses in order and keeps the bodies it was sent."""

    def __init__(self) -> None:
        self.queue: list[Interaction] = []
        self.sent: list[dict[str, Any]] = []

    def handler(self, request: Any) -> Any:
        import httpx2

        try:
            self.sent.append(json.loads(request.content.decode("utf-8")) if request.content else {})
        except ValueError:
            self.sent.append({})
        if not self.queue:
            return httpx2.Response(500, json={"error": {"message": "replay: no recorded response left"}})
        inter = self.queue.pop(0)
        body, headers = _response_bytes(inter)
        return httpx2.Response(inter.status or 200, content=body, headers=headers)


def _target(api: str, inter: Interaction, transport: _CassetteTransport) -> tuple[str, dict[str, Any]]:
    """The model id and settings that send ``inter``'s request again through ``transport``: the
    profile's :meth:`~toolwire.profile.Profile.replay_target` (base URL, API version, ...) plus
    the cassette transport."""
    import httpx2

    from ..registry import profile

    model_id, settings = profile(PROVIDER_FOR_API.get(api, api)).replay_target(inter.uri, inter.request_json or {})
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(transport.handler))
    return model_id, {**settings, "api_key": "replay-key", "http_client": client, "max_retries": 0}


class _ReplayModel(Model):
    """Wraps the adapter's model: each turn's request settings (model, tool choice, limits,
    thinking, vendor fields) are taken from the recorded request of that turn, so only the
    conversation is built by the loop."""

    def __init__(
        self,
        inner: Model,
        recorded: list[ModelRequest],
        transport: _CassetteTransport,
        interactions: list[Interaction],
        codec: Any,
    ) -> None:
        super().__init__(inner.model_id)
        self.inner = inner
        self.provider = inner.provider
        self.recorded = recorded
        self.transport = transport
        self.interactions = interactions
        # the adapter's own codec, with the model's settings (a compatible server's origin, ...):
        # the registry's bare codec (``codec``) would read and write another request
        self.codec = inner.codec if getattr(inner, "codec", None) is not None else codec
        self.turn = 0
        self.responses: list[Response] = []
        self.sent_requests: list[ModelRequest] = []
        self.call_results: dict[str, ToolResult] = {}
        #: whether a later recorded request carried other instructions than the first
        self.instructions_changed = False

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def profile(self) -> Any:  # the recorded API's profile (failed turns, preflight)
        return self.inner.profile

    def build_request(
        self,
        messages: list[Message],
        *,
        instructions: str | None = None,
        tools: list[Tool] | None = None,
        tool_choice: Any = None,
    ) -> ModelRequest:
        rec = self.recorded[min(self.turn, len(self.recorded) - 1)]
        if (rec.instructions or None) != (self.recorded[0].instructions or None):
            # the recording client sent other instructions from this turn on (an agent framework
            # handing the conversation to another agent): sent as recorded, with a note
            instructions = rec.instructions
            self.instructions_changed = True
        return ModelRequest(
            model=rec.model,
            messages=list(messages),
            instructions=instructions,
            tools=list(rec.tools),
            tool_choice=rec.tool_choice,
            parallel_tool_calls=rec.parallel_tool_calls,
            max_tokens=rec.max_tokens,
            temperature=rec.temperature,
            stream=rec.stream,
            thinking=rec.thinking,
            settings=dict(rec.settings),
        )

    # the wrapped model checks and repairs each request (its own preflight, with its settings):
    # this wrapper adds none of its own (Model.__init_subclass__ skips a method marked so)
    async def send(self, request: ModelRequest) -> Response:
        inter = self.interactions[self.turn]
        self.transport.queue.append(inter)
        self.sent_requests.append(request)
        try:
            response = await self.inner.send(request)
        finally:
            self.turn += 1
        return self._record(response)

    async def send_stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        """The recorded stream through the adapter's own ``send_stream``, event by event (the
        loop assembles it and hands the response to :meth:`check_streamed`, which records it)."""
        inter = self.interactions[self.turn]
        self.transport.queue.append(inter)
        self.sent_requests.append(request)
        try:
            async for event in self.inner.send_stream(request):
                yield event
        finally:
            self.turn += 1

    send._toolwire_preflight = True  # type: ignore[attr-defined]
    send_stream._toolwire_preflight = True  # type: ignore[attr-defined]

    def check_streamed(self, response: Response) -> Response:
        return self._record(self.inner.check_streamed(response))

    def _record(self, response: Response) -> Response:
        self.responses.append(response)
        # what the recording client answered to each call, from the next recorded request
        if self.turn < len(self.recorded):
            nxt = self.recorded[self.turn]
            results = _trailing_results(nxt.messages)
            # an id answered more than once (a server that gave distinct calls one id, each
            # answered under it) names no one result: those calls take theirs by position
            counts: dict[str, int] = {}
            for r in results:
                counts[r.tool_call_id] = counts.get(r.tool_call_id, 0) + 1
            by_id = {r.tool_call_id: r for r in results if counts[r.tool_call_id] == 1}
            for k, call in enumerate(response.tool_calls):
                r = by_id.get(call.id)
                if r is None and k < len(results):
                    r = results[k]
                if r is not None:
                    self.call_results[call.id] = r
        return response


def _replay_tools(tools: list[Tool], model: _ReplayModel) -> list[Tool]:
    out = []
    for t in tools:

        def answer(_ctx: ToolContext, **_arguments: Any) -> Any:
            recorded = model.call_results.get(_ctx.tool_call_id)
            if recorded is None:
                raise RuntimeError("replay: the recording has no result for this call")
            if recorded.is_error:
                from ..errors import ToolError

                raise ToolError(recorded.text if isinstance(recorded.content, str) else recorded.text)
            return recorded.content

        answer.__annotations__ = {"_ctx": ToolContext}
        nt = Tool(
            t.name,
            t.description,
            t.input_schema,
            answer,
            strict=t.strict,
            returns=t.returns,
            provider_data=dict(t.provider_data),
            meta={"validate_arguments": False},
        )
        out.append(nt)
    return out


# ---------------------------------------------------------------------------------------------
# canonical comparison


def _content_key(content: Any) -> Any:
    if isinstance(content, str):
        return content
    out = []
    for p in content:
        if isinstance(p, TextPart):
            out.append(("text", p.text))
        elif isinstance(p, ImagePart):
            out.append(("image", p.media_type, p.base64, p.url))
        elif isinstance(p, DocumentPart):
            out.append(("document", p.media_type, p.base64))
        else:
            out.append((getattr(p, "type", "?"),))
    if len(out) == 1 and out[0][0] == "text":
        return out[0][1]
    return out


def _canon_message(m: Message, ignore_ids: set[str]) -> dict[str, Any]:
    text_parts = [p.text for p in m.parts if isinstance(p, TextPart)]
    calls = []
    results = []
    reasoning = []
    images = []
    for p in m.parts:
        if isinstance(p, ToolCall):
            calls.append(
                {
                    "id": None if p.id_synthesized or p.id in ignore_ids else p.id,
                    "name": p.name,
                    "arguments": p.arguments if p.invalid is None else p.raw_arguments,
                }
            )
        elif isinstance(p, ToolResult):
            results.append({"content": _content_key(p.content), "is_error": p.is_error})
        elif isinstance(p, ReasoningPart):
            reasoning.append({"signature": p.signature, "encrypted": p.encrypted})
        elif isinstance(p, ImagePart):
            images.append((p.media_type, p.base64, p.url))
    return {
        "role": m.role,
        "text": "".join(text_parts),
        "text_blocks": text_parts,
        "tool_calls": calls,
        "tool_results": results,
        "reasoning": reasoning,
        "images": images,
    }


_SHARED_ID_NOTE = (
    "the server gave distinct tool calls of one answer the same id; toolwire runs and answers each "
    "under an id of its own (<id>_<position>)"
)


def _reissued(sent: Any, recorded: Any, recorded_ids: list[Any]) -> bool:
    """Whether ``sent`` is the id toolwire gave a call sharing the ``recorded`` id with another
    call of its answer (``<id>_<position>``, see :func:`toolwire.wire.reissue_shared_ids`)."""
    return (
        isinstance(sent, str)
        and isinstance(recorded, str)
        and recorded_ids.count(recorded) > 1
        and sent.startswith(recorded + "_")
    )


def _result_ids(m: Message) -> list[str]:
    return [p.tool_call_id for p in m.parts if isinstance(p, ToolResult)]


def _results_only(m: Message) -> bool:
    """A user message that holds tool results and nothing else."""
    return m.role == "user" and bool(m.parts) and all(isinstance(p, ToolResult) for p in m.parts)


def _join_result_runs(messages: list[Message]) -> list[Message]:
    """``messages`` with each run of consecutive results-only user messages joined into one (the
    results of one turn's calls, which a recording client may send one message each)."""
    out: list[Message] = []
    for m in messages:
        if out and _results_only(m) and _results_only(out[-1]):
            out[-1] = Message("user", [*out[-1].parts, *m.parts], dict(out[-1].provider_data))
        else:
            out.append(m)
    return out


def _trailing_results(messages: list[Message]) -> list[ToolResult]:
    """The tool results that end ``messages``: those of the last message and of the results-only
    user messages right before it (a turn's results sent one message each)."""
    if not messages:
        return []
    results = list(messages[-1].tool_results)
    k = len(messages) - 2
    while results and k >= 0 and _results_only(messages[k]):
        results = [*messages[k].tool_results, *results]
        k -= 1
    return results


_SPLIT_RESULTS_NOTE = (
    "the recording client sent the results of one turn's tool calls in separate messages; toolwire sends "
    "them together in one message"
)

_DROPPED_TEXT_NOTE = (
    "the recording client dropped the text the model wrote beside its tool calls when it sent the turn back; "
    "toolwire sends the model's turn back as it came"
)


#: The recorded HTTP statuses by which a vendor refused a request for what it held (Anthropic
#: 400 ``invalid_request_error`` and 413 ``request_too_large``, OpenAI 400, Gemini 400
#: ``INVALID_ARGUMENT``, 422 of Chat-compatible servers). Another 4xx (401, 403, 404, 408, 409,
#: 429) says nothing about the request's content: toolwire refusing it is still a failure.
_CONTENT_REFUSED = frozenset({400, 413, 422})


_ERROR_TEXT_NOTE = (
    "an error result answering a call is worded by toolwire, not as the recording client worded its own "
    "(both answered the call as an error)"
)


def compare_requests(
    sent: ModelRequest, recorded: ModelRequest, *, synthesized_ids: set[str] | None = None
) -> tuple[bool, str | None, list[str]]:
    """Compare two decoded requests at the canonical level.

    Returns ``(matches, diff, notes)``: ``diff`` is a readable description of every difference
    that is not a known recording-client habit; ``notes`` describe the habits found.
    """
    synthesized = set(synthesized_ids or ())
    # ids the adapter synthesized while importing the sent body (the vendor sent none)
    synthesized |= {c.id for m in sent.messages for c in m.tool_calls if c.id_synthesized}
    notes: list[str] = []
    diffs: list[str] = []
    recorded_messages = list(recorded.messages)
    # the results of one turn's calls sent in several messages (a Gemini functionResponse per
    # Content: the API took it, crewAI cassette TestGeminiNativeToolCalling.test_gemini_parallel_
    # native_tool_calling_test_agent_kickoff) are compared as the one message toolwire sends
    joined = _join_result_runs(recorded_messages)
    if len(joined) != len(recorded_messages) and len(_join_result_runs(sent.messages)) == len(sent.messages):
        recorded_messages = joined
        notes.append(_SPLIT_RESULTS_NOTE)
    if len(sent.messages) != len(recorded_messages):
        diffs.append(f"message count: toolwire sent {len(sent.messages)}, recorded {len(recorded_messages)}")
    # calls whose ids were synthesized by toolwire: compare by position, note invented ids
    call_pos: dict[str, tuple[int, int]] = {}
    for i, (a, b) in enumerate(zip(sent.messages, recorded_messages)):
        ca, cb = _canon_message(a, synthesized), _canon_message(b, set())
        where = f"message {i} ({a.role})"
        if ca["role"] != cb["role"]:
            diffs.append(f"{where}: role {ca['role']!r} vs recorded {cb['role']!r}")
            continue
        if ca["text"] != cb["text"]:
            if ca["text"].strip() == cb["text"].strip() and [t for t in cb["text_blocks"] if t.strip()] == [
                t for t in ca["text_blocks"] if t.strip()
            ]:
                notes.append(
                    "the recording client added a whitespace-only text block to an assistant turn; toolwire sends the model's text as it came"
                )
            elif a.role == "assistant" and not cb["text"].strip() and ca["tool_calls"] and cb["tool_calls"]:
                # the model's text beside its calls left out of the turn sent back (the vendor took
                # it: crewAI cassette test_anthropic_agent_kickoff_structured_output_with_tools);
                # the calls themselves are compared below
                notes.append(_DROPPED_TEXT_NOTE)
            else:
                diffs.append(f"{where}: text {ca['text']!r} vs recorded {cb['text']!r}")
        if len(ca["tool_calls"]) != len(cb["tool_calls"]):
            diffs.append(f"{where}: {plural(len(ca['tool_calls']), 'tool call')} vs recorded {len(cb['tool_calls'])}")
        for k, (x, y) in enumerate(zip(ca["tool_calls"], cb["tool_calls"])):
            if x["name"] != y["name"] or x["arguments"] != y["arguments"]:
                diffs.append(
                    f"{where} tool call {k}: {x['name']}({json.dumps(x['arguments'], ensure_ascii=False)}) vs recorded "
                    f"{y['name']}({json.dumps(y['arguments'], ensure_ascii=False)})"
                )
            if x["id"] is None and y["id"] is not None:
                notes.append(
                    "the vendor sent no tool call ids; the recording client invented its own and sent them back; "
                    "toolwire keeps its synthesized ids internal and sends none"
                )
            elif x["id"] is not None and y["id"] != x["id"]:
                if (
                    isinstance(y["id"], str)
                    and y["id"].startswith("fc_")
                    and isinstance(x["id"], str)
                    and x["id"].startswith("call_")
                ):
                    notes.append(
                        "the recording client sent the function_call item id (fc_…) as call_id; toolwire sends "
                        "the call_id (call_…) the vendor gave, which is what function_call_output refers to"
                    )
                elif _reissued(x["id"], y["id"], [c["id"] for c in cb["tool_calls"]]):
                    notes.append(_SHARED_ID_NOTE)
                else:
                    diffs.append(f"{where} tool call {k}: id {x['id']!r} vs recorded {y['id']!r}")
            call_pos[str(k)] = (i, k)
        if len(ca["tool_results"]) != len(cb["tool_results"]):
            diffs.append(
                f"{where}: {plural(len(ca['tool_results']), 'tool result')} vs recorded {len(cb['tool_results'])}"
            )
        for k, (x, y) in enumerate(zip(ca["tool_results"], cb["tool_results"])):
            if x != y and x.get("is_error") is True and y.get("is_error") is True:
                # both harnesses refused the call (an unknown tool, invalid arguments): each words
                # its own error, so the text is not compared
                notes.append(_ERROR_TEXT_NOTE)
            elif x != y:
                diffs.append(
                    f"{where} tool result {k}: {json.dumps(x, ensure_ascii=False)[:300]} vs recorded {json.dumps(y, ensure_ascii=False)[:300]}"
                )
        ra, rb = _result_ids(a), _result_ids(b)
        for k, (x, y) in enumerate(zip(ra, rb)):
            if x != y and x not in synthesized:
                if y.startswith("fc_") and x.startswith("call_"):
                    continue  # noted with the call
                if _reissued(x, y, rb):
                    continue  # noted with the call
                diffs.append(f"{where} tool result {k}: answers {x!r} vs recorded {y!r}")
        if ca["reasoning"] != cb["reasoning"]:

            def opaque(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
                return [r for r in rs if r["signature"] or r["encrypted"]]

            if opaque(ca["reasoning"]) == opaque(cb["reasoning"]):
                notes.append(
                    "the recording client dropped reasoning text that carried no signature; toolwire sends the "
                    "model's turn back unchanged, as the vendors document"
                )
            else:
                diffs.append(f"{where}: reasoning {ca['reasoning']} vs recorded {cb['reasoning']}")
        if ca["images"] != cb["images"]:
            diffs.append(f"{where}: images differ")
    if (sent.instructions or None) != (recorded.instructions or None):
        diffs.append(f"instructions {sent.instructions!r} vs recorded {recorded.instructions!r}")
    return (not diffs, "\n".join(diffs) if diffs else None, notes)


# ---------------------------------------------------------------------------------------------


def _response_record(index: int, resp: Response) -> dict[str, Any]:
    calls = []
    for c in resp.tool_calls:
        d: dict[str, Any] = {
            "id": c.id,
            "id_synthesized": c.id_synthesized,
            "name": c.name,
            "arguments": c.arguments if c.invalid is None else None,
        }
        if c.invalid is not None:
            d["invalid"] = c.invalid
        calls.append(d)
    u = resp.usage
    return {
        "interaction": index,
        "stop_reason": resp.stop_reason,
        "vendor_stop_reason": resp.vendor_stop_reason,
        "tool_calls": calls,
        "text": resp.text or None,
        "usage": {
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "cache_read_tokens": u.cache_read_tokens,
            "cache_write_tokens": u.cache_write_tokens,
            "reasoning_tokens": u.reasoning_tokens,
        },
    }


def _extends(prev: ModelRequest, prev_resp_calls: int, nxt: ModelRequest) -> bool:
    """``nxt`` continues ``prev`` by exactly the model's turn and the results of its calls."""
    if prev_resp_calls == 0:
        return False
    added = nxt.messages[len(prev.messages) + 1 :]
    if len(nxt.messages) < len(prev.messages) + 2 or nxt.messages[len(prev.messages)].role != "assistant":
        return False
    # the results in one message, or one message each (a Gemini functionResponse per Content)
    if not all(_results_only(m) for m in added):
        return False
    return sum(len(m.tool_results) for m in added) == prev_resp_calls


async def _replay_segment(
    api: str, inters: list[Interaction], recorded: list[ModelRequest], report: FileReport, codec: Any
) -> None:
    from ..loop import run
    from ..registry import model as resolve_model

    transport = _CassetteTransport()
    model_id, settings = _target(api, inters[0], transport)
    inner = resolve_model(f"{PROVIDER_FOR_API.get(api, api)}:{model_id}", **settings)
    rm = _ReplayModel(inner, recorded, transport, inters, codec)
    first = recorded[0]
    all_tools: dict[str, Tool] = {}
    for r in recorded:
        for t in r.tools:
            all_tools.setdefault(t.name, t)
    if len(all_tools) > len(first.tools):
        report.notes.append(
            f"interactions {inters[0].index}-{inters[-1].index}: the recording client offered more tools in "
            "later requests; each request is sent with the tools the recording offered at that point"
        )
    # calls the recording client answered to tools no request declares (tools it made available
    # mid-conversation in a vendor item toolwire keeps opaque, such as Responses additional_tools):
    # answered with the recorded results too, as the recording client answered them
    undeclared = sorted(
        {c.name for r in recorded for m in r.messages for c in m.tool_calls if c.name and c.name not in all_tools}
    )
    for name in undeclared:
        try:
            all_tools[name] = Tool(name, "", {"type": "object"})
        except ToolwireError:
            continue  # a name no toolwire tool can have: the loop answers the call as unknown
    if undeclared:
        report.notes.append(
            f"interactions {inters[0].index}-{inters[-1].index}: the recording client answered calls to tools "
            f"no request declares ({', '.join(undeclared)}); replayed with the recorded results"
        )
    tools = _replay_tools(list(all_tools.values()), rm)
    conv = Conversation(list(first.messages), first.instructions)
    try:
        await run(rm, tools=tools, conversation=conv, max_turns=len(inters))
    except RunLimitExceeded:
        pass  # the recording ends on a tool call (or the next request starts a new conversation)
    except ToolwireError as exc:
        report.errors.append(f"interaction {inters[max(min(rm.turn, len(inters)) - 1, 0)].index}: {exc}")
    except Exception as exc:  # anything else is a toolwire bug: report it on the interaction
        report.errors.append(
            f"interaction {inters[max(min(rm.turn, len(inters)) - 1, 0)].index}: {type(exc).__name__}: {exc}"
        )
    finally:
        await inner.aclose()
        await settings["http_client"].aclose()
    if rm.instructions_changed:
        report.notes.append(
            f"interactions {inters[0].index}-{inters[-1].index}: the recording client sent other instructions in "
            "later requests (an agent handing the conversation to another); each request is sent with the "
            "instructions the recording sent at that point"
        )
    for k, resp in enumerate(rm.responses):
        report.responses.append(_response_record(inters[k].index, resp))
        if resp.stop_reason == "error" and resp.vendor_stop_reason is None:
            report.errors.append(
                f"interaction {inters[k].index}: the recorded response ended without a stop reason "
                "(a stream cut off before its terminal event?)"
            )
    synthesized = {c.id for resp in rm.responses for c in resp.tool_calls if c.id_synthesized}
    for k, sent_body in enumerate(transport.sent):
        if k >= len(inters):
            break
        try:
            sent_req = codec.decode_request(sent_body)
        except Exception as exc:  # a body the adapter cannot read back is a failure
            report.requests.append(
                {"interaction": inters[k].index, "matches": False, "diff": f"cannot decode the sent body: {exc}"}
            )
            continue
        ok, diff, notes = compare_requests(sent_req, recorded[k], synthesized_ids=synthesized)
        for n in notes:
            report._note_counts[n] = report._note_counts.get(n, 0) + 1
        report.requests.append({"interaction": inters[k].index, "matches": ok, "diff": diff})
    report.notes = [n for n in report.notes if not _SEEN.search(n)]
    report.notes += [f"{n} (seen {plural(c, 'time')})" for n, c in report._note_counts.items()]


#: The endpoints ``toolwire replay`` decodes, as its messages name them: a model turn of each API.
_REPLAYED_ENDPOINTS = (
    "Anthropic …/v1/messages, OpenAI Chat …/chat/completions, OpenAI Responses …/responses, "
    "Gemini …:generateContent and …:streamGenerateContent"
)


def _path(uri: str) -> str:
    """The path of a recorded URI (no host, no query: a query may have held a key)."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(uri).path or "/"
    except ValueError:
        return "(an unreadable URI)"


def _request_body_problem(inter: Interaction) -> str | None:
    """What keeps a request to a model endpoint from being replayed — ``"the request body is JSON
    null"`` — or ``None`` when its body is a JSON object."""
    text = inter.request_text
    if text is None or not text.strip():
        return "the request has no body"
    try:
        body = json.loads(text)
    except ValueError:
        shown = text.strip()
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        return f"the request body is not JSON ({shown!r})"
    if isinstance(body, dict):
        return None
    kind = {type(None): "JSON null", list: "a JSON array", str: "a JSON string", bool: "a JSON boolean"}
    return f"the request body is {kind.get(type(body), 'a JSON number')}"


async def replay_file(path: str | Path, display_name: str | None = None) -> FileReport:
    """Replay one cassette; see the module docstring."""

    inters = load_cassette(path)
    apis = list(dict.fromkeys(i.api for i in inters if i.api))  # in order of first appearance
    api = apis[0] if apis else None
    report = FileReport(display_name or str(path), api)
    if not inters:
        report.errors.append("the cassette holds no interactions")
        return report
    usable: list[Interaction] = []
    for i in inters:
        where = f"interaction {i.index} ({i.method} {_path(i.uri)})"
        if i.api is None:
            report.notes.append(f"{where} is not a request to a model endpoint toolwire replays; skipped")
            continue
        problem = _request_body_problem(i)
        if problem is not None:
            report.errors.append(
                f"{where}: {problem} (a request to this endpoint is a JSON object); it cannot be replayed"
            )
            continue
        if 200 <= i.status < 300 and not (i.response_text or "").strip():
            report.errors.append(
                f"{where}: the recorded response (HTTP {i.status}) has no body; there is no answer to replay"
            )
            continue
        usable.append(i)
    if api is None or (not usable and not report.errors):
        shown = sorted({_path(i.uri) for i in inters})
        report.errors.append(
            f"nothing replayable: none of its {plural(len(inters), 'interaction')} is a request to a model endpoint "
            f"toolwire replays ({_REPLAYED_ENDPOINTS}); it holds requests to "
            + ", ".join(shown[:5])
            + (f" and {plural(len(shown) - 5, 'other path')}" if len(shown) > 5 else "")
        )
        return report
    if len(apis) > 1:
        report.notes.append(
            f"the cassette holds traffic of several APIs ({', '.join(apis)}); each API's interactions "
            "are replayed as conversations of their own"
        )
    for one in apis:
        await _replay_api(one, [i for i in usable if i.api == one], report)
    report.responses.sort(key=lambda r: r["interaction"])
    report.requests.sort(key=lambda r: r["interaction"])
    return report


async def _replay_api(api: str, usable: list[Interaction], report: FileReport) -> None:
    from ..registry import codec as get_codec
    from ..registry import profile

    codec = get_codec(PROVIDER_FOR_API.get(api, api))
    prof = profile(PROVIDER_FOR_API.get(api, api))
    decoded: list[ModelRequest] = []
    kept: list[Interaction] = []
    for i in usable:
        try:
            req = codec.decode_request(i.request_json)
            if i.stream_format is not None or prof.requested_stream(i.uri, i.request_json):
                req.stream = True  # some APIs say "stream" in the URL, not in the body
            decoded.append(req)
            kept.append(i)
        except ResponseDecodeError as exc:
            if i.status not in _CONTENT_REFUSED:
                report.errors.append(f"interaction {i.index}: decode_request failed: {type(exc).__name__}: {exc}")
                return
            # the vendor refused the recorded request for what it held, and toolwire refuses to
            # read it: the outcome the recording shows, reached without a round trip
            report.responses.append(_refused_record(i.index, str(exc)))
            report.notes.append(
                f"interaction {i.index}: the vendor refused this request (HTTP {i.status}); toolwire refuses "
                f"to read it: {exc}"
            )
        except Exception as exc:
            report.errors.append(f"interaction {i.index}: decode_request failed: {type(exc).__name__}: {exc}")
            return
    usable = kept
    # a vendor error is replayed on its own: an HTTP error status, or an error object sent with a
    # 2xx status (Azure OpenAI, OpenRouter and other gateways answer so)
    failed = {i.index for i, req in zip(usable, decoded) if not _answered(i, codec, req)}
    # split into conversations: a request that does not extend the previous one starts a new loop
    segments: list[tuple[list[Interaction], list[ModelRequest]]] = []
    for inter, req in zip(usable, decoded):
        if segments:
            prev_inters, prev_reqs = segments[-1]
            calls = _count_calls(prev_inters[-1], codec, prev_reqs[-1])
            if (
                inter.index not in failed
                and prev_inters[-1].index not in failed
                and _extends(prev_reqs[-1], calls, req)
            ):
                prev_inters.append(inter)
                prev_reqs.append(req)
                continue
        segments.append(([inter], [req]))
    for seg_inters, seg_reqs in segments:
        if len(seg_inters) == 1 and seg_inters[0].index in failed:
            await _replay_error(api, seg_inters[0], seg_reqs[0], report)
            continue
        await _replay_segment(api, seg_inters, seg_reqs, report, codec)


def _error_record(index: int) -> dict[str, Any]:
    """The response record of an interaction that ended in an error, before its ``error`` is set."""
    return {
        "interaction": index,
        "stop_reason": "error",
        "vendor_stop_reason": None,
        "tool_calls": [],
        "text": None,
        "usage": {
            k: None
            for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
        },
    }


def _refused_record(index: int, message: str) -> dict[str, Any]:
    """The response record of a request toolwire refuses before sending (``error_type``
    ``"request_refused"``, no status: nothing was sent)."""
    record = _error_record(index)
    record["error"] = {"status": None, "message": message, "retryable": False, "error_type": "request_refused"}
    return record


async def _replay_error(api: str, inter: Interaction, recorded: ModelRequest, report: FileReport) -> None:
    """A recorded vendor error: it must surface as toolwire's typed ProviderError (status and
    vendor message kept); the request toolwire sends is still compared with the recorded one."""
    from ..errors import ProviderError
    from ..registry import codec as get_codec
    from ..registry import model as resolve_model

    transport = _CassetteTransport()
    model_id, settings = _target(api, inter, transport)
    inner = resolve_model(f"{PROVIDER_FOR_API.get(api, api)}:{model_id}", **settings)
    transport.queue.append(inter)
    record = _error_record(inter.index)
    try:
        resp = await inner.send(recorded)
        record = _response_record(inter.index, resp)
    except ProviderError as exc:
        record["error"] = {
            "status": exc.status,
            "message": exc.message,
            "retryable": exc.retryable,
            "error_type": exc.error_type,
        }
        if 200 <= inter.status < 300:
            read = f"HTTP {exc.status} read from the body" if exc.status is not None else "no HTTP status in the body"
            report.notes.append(
                f"interaction {inter.index}: the vendor sent an error object with HTTP {inter.status}; toolwire "
                f"raises it as a ProviderError ({read})"
            )
        elif exc.status != inter.status:
            report.errors.append(
                f"interaction {inter.index}: recorded HTTP {inter.status} surfaced as status {exc.status}"
            )
    except ToolwireError as exc:
        from ..errors import RequestRefused

        if isinstance(exc, RequestRefused) and inter.status in _CONTENT_REFUSED:
            # the vendor refused the recorded request, and toolwire refuses it before sending:
            # the outcome the recording shows, reached without a round trip
            record["error"] = {
                "status": None,
                "message": str(exc),
                "retryable": False,
                "error_type": "request_refused",
            }
            report.notes.append(
                f"interaction {inter.index}: the vendor refused this request (HTTP {inter.status}); toolwire "
                f"refuses it before sending: {exc}"
            )
        else:
            report.errors.append(
                f"interaction {inter.index}: recorded HTTP {inter.status} gave {type(exc).__name__}: {exc}"
            )
    finally:
        await inner.aclose()
        await settings["http_client"].aclose()
    report.responses.append(record)
    if transport.sent:
        codec = get_codec(PROVIDER_FOR_API.get(api, api))
        ok, diff, notes = compare_requests(codec.decode_request(transport.sent[0]), recorded)
        for n in notes:
            report._note_counts[n] = report._note_counts.get(n, 0) + 1
        report.requests.append({"interaction": inter.index, "matches": ok, "diff": diff})


def _answered(inter: Interaction, codec: Any, request: ModelRequest) -> bool:
    """Whether ``inter`` holds an answer: a 2xx status and, for a whole (not streamed) body, not
    an error object the adapter reads as a :class:`~toolwire.errors.ProviderError`."""
    from ..errors import ProviderError

    if not 200 <= inter.status < 300:
        return False
    if inter.stream_format is not None:
        return True
    try:
        codec.decode_response(inter.response_json, request)
    except ProviderError:
        return False
    except Exception:  # a body the adapter cannot read: the replay reports it on the turn
        return True
    return True


def _count_calls(inter: Interaction, codec: Any, request: ModelRequest) -> int:
    try:
        if inter.stream_format:
            from ..stream import assemble

            chunks = inter.stream_chunks
            if inter.stream_format == "sse":
                chunks = [c for c in chunks if isinstance(c, dict)]  # every documented event is an object
            return len(assemble(codec.decode_stream(chunks, request)).tool_calls)
        return len(codec.decode_response(inter.response_json, request).tool_calls)
    except Exception:
        return 0


def check_expected(report: FileReport, expected: dict[str, Any]) -> None:
    """Compare the decoded responses with an ``expected.json`` entry (recordings README layout).
    An entry that does not have that layout is reported on the file, never raised."""
    try:
        _check_expected(report, expected)
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
        report.expected_mismatches.append(
            f"expected.json entry for this file is malformed ({type(exc).__name__}: {exc})"
        )


def _check_expected(report: FileReport, expected: dict[str, Any]) -> None:
    by_index = {r["interaction"]: r for r in report.responses}
    for exp in expected.get("responses", []):
        got = by_index.get(exp["interaction"])
        where = f"interaction {exp['interaction']}"
        if got is None:
            report.expected_mismatches.append(f"{where}: not decoded")
            continue
        if got["vendor_stop_reason"] != exp["stop_reason"]:
            report.expected_mismatches.append(
                f"{where}: stop reason {got['vendor_stop_reason']!r}, expected {exp['stop_reason']!r}"
            )
        want_calls = [(c["id"], c["name"], c["arguments"]) for c in exp["tool_calls"]]
        have_calls = [(None if c["id_synthesized"] else c["id"], c["name"], c["arguments"]) for c in got["tool_calls"]]
        if want_calls != have_calls:
            report.expected_mismatches.append(f"{where}: tool calls {have_calls}, expected {want_calls}")
        if got["text"] != exp["text"]:
            report.expected_mismatches.append(f"{where}: text {got['text']!r}, expected {exp['text']!r}")
        u = exp.get("usage") or {}
        # expected.json lists the vendor's own primary counters; the profile says which of them the
        # normalised Usage (input with cache, output with reasoning) came from
        primary_in, primary_out = _primary(report.api, got["usage"])
        if u.get("input") is not None and primary_in != u["input"]:
            report.expected_mismatches.append(
                f"{where}: input tokens {primary_in} (vendor counter; Usage.input_tokens "
                f"{got['usage']['input_tokens']}), expected {u['input']}"
            )
        if u.get("output") is not None and primary_out != u["output"]:
            report.expected_mismatches.append(
                f"{where}: output tokens {primary_out} (vendor counter; Usage.output_tokens "
                f"{got['usage']['output_tokens']}), expected {u['output']}"
            )


def _primary(api: str | None, usage: dict[str, Any]) -> tuple[int | None, int | None]:
    from ..registry import cached_profile
    from ..types import Usage

    prof = cached_profile(PROVIDER_FOR_API.get(api or "", api or "")) if api else None
    u = Usage.from_dict(usage)
    return prof.primary_usage(u) if prof is not None else (u.input_tokens, u.output_tokens)


def _find_expected(path: Path) -> tuple[Path, dict[str, Any]] | None:
    for parent in [path if path.is_dir() else path.parent, *path.resolve().parents]:
        candidate = parent / "expected.json"
        if candidate.is_file():
            try:
                return candidate.parent, json.loads(candidate.read_text())
            except ValueError:
                return None
    return None


def replay_paths(paths: list[str]) -> dict[str, Any]:
    """Replay every cassette under ``paths`` (files or folders); return the ``--json`` document
    ``{"files": [...], "totals": {...}}``. Responses are checked against an ``expected.json``
    found beside or above the files (the recordings README layout) when there is one."""
    files: list[tuple[str, Path]] = []
    missing: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(
                f
                for pattern in ("*.yaml", "*.yml", "*.yaml.gz", "*.yml.gz")
                for f in path.rglob(pattern)
                if f.is_file()
            )
            if not found:
                missing.append(f"{p}: no cassettes (*.yaml, *.yml, *.yaml.gz) in this folder")
            for f in found:
                files.append((str(f) if p.endswith("/") else str(Path(p) / f.relative_to(path)), f))
        elif path.is_file():
            files.append((p, path))
        else:
            missing.append(f"{p}: no such file or folder")

    async def go() -> list[FileReport]:
        out = []
        for shown, f in files:
            try:
                rep = await replay_file(f, shown)
            except (NotACassette, MalformedCassette) as exc:  # says what is wrong, in cassette terms
                rep = FileReport(shown, None, errors=[str(exc)])
            except Exception as exc:  # a broken cassette is a failure of that file, not of the run
                rep = FileReport(shown, None, errors=[f"{type(exc).__name__}: {exc}"])
            found = _find_expected(f)
            if found is not None:
                base, doc = found
                try:
                    key = f.resolve().relative_to(base.resolve()).as_posix()
                except ValueError:
                    key = None
                files_map = doc.get("files") if isinstance(doc, dict) else None
                entry = files_map.get(key) if isinstance(files_map, dict) and key else None
                if entry is not None and not rep.errors:  # a file that failed to replay is already a failure
                    check_expected(rep, entry)
            out.append(rep)
        return out

    reports = asyncio.run(go())
    reports += [FileReport(m.split(": ", 1)[0], None, errors=[m.split(": ", 1)[1]]) for m in missing]
    totals = {
        "files": len(reports),
        "files_ok": sum(1 for r in reports if r.ok),
        "responses": sum(len(r.responses) for r in reports),
        "tool_calls": sum(len(x["tool_calls"]) for r in reports for x in r.responses),
        "requests": sum(len(r.requests) for r in reports),
        "requests_matched": sum(1 for r in reports for x in r.requests if x["matches"]),
        "expected_mismatches": sum(len(r.expected_mismatches) for r in reports),
        "errors": sum(len(r.errors) for r in reports),
        "notes": sum(len(r.notes) for r in reports),
    }
    return {
        "files": [r.to_dict() for r in reports],
        "totals": totals,
        "ok": bool(reports) and all(r.ok for r in reports),
    }
