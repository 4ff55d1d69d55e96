"""toolwire's standing benchmark: ratios against the bare vendor SDKs, measured in one process.

    uv run python benchmarks/suite.py            # everything (about 1-4 minutes on 2 idle cores)
    uv run python benchmarks/suite.py loop long  # only some parts: loop, long, stream, import, payload, tools, own, work
    uv run python benchmarks/suite.py --cpu loop # CPU time instead of wall time (a loaded machine)
    uv run python benchmarks/suite.py --api anthropic loop long   # parts 1, 2, 6, 7 and 8 for some APIs only
    uv run python benchmarks/suite.py --rounds 21 loop   # more rounds in part 1 (default 7): a noisy machine

Not a test (no assertion on time). Every figure is a median over interleaved rounds (toolwire and
its baselines alternate inside each round, so a loaded machine slows both alike), with the spread
(min–max of the per-round ratios). The network is replaced by canned vendor JSON through
``httpx2.MockTransport``, in-process, so what is timed is the client side only.

toolwire runs as a user gets it by default: its retry policy on (the SDKs' own retries are off
inside toolwire, as in the bare loops), preflight, events and limits on.

1. **loop**: a 2-turn tool loop (the model calls a tool, the harness runs it, the model answers) per
   API: toolwire ``run`` (async) and ``run_sync``, with a decorated tool (run in a worker thread),
   with a plain function, streamed on the wire, and with the tool marked ``blocking=False`` (called
   on the event loop, as the bare loops call it); against the bare SDK's public call in a
   hand-written loop, and (OpenAI, Anthropic) against the SDK's documented low-level ``post()``
   with a ready body: the floor, also with its tool run in a worker thread as toolwire runs a
   sync tool by default (``asyncio.to_thread``; the sync floor: a kept thread-pool worker).
2. **long**: a 50-turn loop; per-turn cost at turns 1-10 and 41-50 of toolwire, of the SDK floor
   replaying the very bodies toolwire sent (its ``post()``; Gemini: its API client's request) and
   of the bare SDK's ``create()`` / ``generate_content()`` loop; toolwire's own share is toolwire
   minus that floor, per round.
3. **stream**: assembling one tool call whose arguments arrive in 10-byte deltas, and one text
   part likewise, 100 KB vs 1 MB.
4. **import**: ``import toolwire``, the same with the names a run uses touched, and "ready to send
   with one adapter", each in fresh processes.
5. **payload**: bytes of the tools payload per API for a set of typed functions, against a
   hand-written minimum that carries the same information.
6. **tools**: toolwire's own work to prepare one request (encoding, vendor-rule repairs and checks)
   with 1, 10 and 30 tools declared, against ``json.dumps`` of the very body it prepared (what
   any SDK does with a ready body, and toolwire too before posting).
7. **own**: toolwire's own work in a 2-turn loop against the ``post()`` floor's (OpenAI,
   Anthropic): each loop's time minus the time inside the SDK's ``client.request()``, and
   toolwire's share split into preflight (encoding, vendor-rule repairs and checks), JSON body,
   reading and decoding the answer, and the loop with the rest.
8. **work**: the same 2-turn loop counted instead of timed: Python bytecode instructions per loop,
   toolwire (``run``, ``run_sync``) against the floor (Gemini: the bare loop), split by whose code
   runs them. Deterministic, so it reads the same on a loaded machine; C code is not counted.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import statistics
import subprocess
import sys
import time
import warnings
from typing import Any, AsyncIterator, Awaitable, Callable, Literal

try:
    import httpx2

    import toolwire
    import toolwire.adapter
except ModuleNotFoundError as exc:  # not the project's environment (python3 instead of uv run)
    if __name__ != "__main__":
        raise
    sys.exit(
        f"{exc}: run the benchmark in the project's environment, from the clone: "
        "uv run python benchmarks/suite.py (or .venv/bin/python benchmarks/suite.py)"
    )

ROUNDS = 7
#: The clock of the in-process timings: wall time, or with ``--cpu`` the process's CPU time (all
#: threads), steadier on a machine other jobs are loading (it leaves out time spent waiting).
CLOCK: Callable[[], float] = time.perf_counter


# -- canned vendor answers --------------------------------------------------------------------------


def anthropic_answer(turn: int, last: bool) -> dict:
    content = (
        [{"type": "text", "text": "done"}]
        if last
        else [{"type": "tool_use", "id": f"toolu_{turn}", "name": "lookup", "input": {"q": f"step {turn}"}}]
    )
    return {
        "id": f"msg_{turn}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "end_turn" if last else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def chat_answer(turn: int, last: bool) -> dict:
    msg = (
        {"role": "assistant", "content": "done"}
        if last
        else {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{turn}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"q": f"step {turn}"})},
                }
            ],
        }
    )
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "message": msg, "finish_reason": "stop" if last else "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def responses_answer(turn: int, last: bool) -> dict:
    item = (
        {
            "id": f"msg_{turn}",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }
        if last
        else {
            "id": f"fc_{turn}",
            "type": "function_call",
            "call_id": f"call_{turn}",
            "name": "lookup",
            "arguments": json.dumps({"q": f"step {turn}"}),
            "status": "completed",
        }
    )
    return {
        "id": f"resp_{turn}",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-5",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def gemini_answer(turn: int, last: bool) -> dict:
    part = {"text": "done"} if last else {"functionCall": {"name": "lookup", "args": {"q": f"step {turn}"}}}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
        "responseId": f"r{turn}",
    }


ANSWERS = {
    "anthropic": anthropic_answer,
    "openai-chat": chat_answer,
    "openai": responses_answer,
    "gemini": gemini_answer,
}
MODELS = {"anthropic": "claude-sonnet-4-5", "openai-chat": "gpt-4.1", "openai": "gpt-5", "gemini": "gemini-2.5-flash"}


def _sse(api: str, body: dict) -> str:
    """A whole answer as the vendor's stream (only what the decoders need)."""
    lines: list[str] = []

    def ev(name: str | None, data: dict) -> None:
        if name:
            lines.append(f"event: {name}")
        lines.append("data: " + json.dumps(data))
        lines.append("")

    if api == "anthropic":
        start = dict(body, content=[], stop_reason=None)
        ev("message_start", {"type": "message_start", "message": start})
        for i, block in enumerate(body["content"]):
            if block["type"] == "text":
                ev(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
                ev(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}},
                )
            else:
                ev(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
                ev(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                    },
                )
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        ev("message_stop", {"type": "message_stop"})
    elif api == "openai-chat":
        choice = body["choices"][0]
        msg = choice["message"]
        delta: dict = {"role": "assistant"}
        if msg.get("content"):
            delta["content"] = msg["content"]
        if msg.get("tool_calls"):
            delta["tool_calls"] = [dict(tc, index=i) for i, tc in enumerate(msg["tool_calls"])]
        base = {"id": body["id"], "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
        ev(None, dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]))
        ev(None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]))
        ev(None, dict(base, choices=[], usage=body["usage"]))
        lines.append("data: [DONE]")
        lines.append("")
    elif api == "openai":
        ev("response.created", {"type": "response.created", "response": dict(body, output=[], status="in_progress")})
        for i, item in enumerate(body["output"]):
            ev("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": item})
        ev("response.completed", {"type": "response.completed", "response": body})
    else:
        ev(None, body)
    return "\n".join(lines) + "\n"


def transport_for(api: str, turns: int, *, stream: bool = False) -> httpx2.MockTransport:
    state = {"n": 0}

    def handler(request: httpx2.Request) -> httpx2.Response:
        state["n"] += 1
        n = state["n"]
        body = ANSWERS[api](n, n >= turns)
        if stream:
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=_sse(api, body))
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))

    return httpx2.MockTransport(handler)


class Canned:
    """A reusable canned vendor: answers turn ``n`` of a loop; :meth:`reset` starts a new loop.
    Lets the 2-turn loop keep one SDK client (and one toolwire model) across loops, as an
    application does, so that what is timed is the loop and not building clients."""

    def __init__(self, api: str, *, stream: bool = False) -> None:
        self.api, self.stream, self.n, self.turns = api, stream, 0, 2
        self.transport = httpx2.MockTransport(self.handle)

    def reset(self, turns: int) -> None:
        self.n, self.turns = 0, turns

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.n += 1
        body = ANSWERS[self.api](self.n, self.n >= self.turns)
        if self.stream:
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=_sse(self.api, body))
        return httpx2.Response(200, headers={"content-type": "application/json"}, text=json.dumps(body))


#: ``True`` while part 1 runs: clients and models are built once per API and reused.
REUSE = False
_CLIENTS: dict[tuple[str, str], tuple[Canned, Any]] = {}


def _http(api: str, turns: int, kind: str, make: Callable[[Any], Any], stream: bool = False, sync: bool = False) -> Any:
    """The SDK client / model of ``kind`` for ``api`` over an ``httpx2.AsyncClient`` (``sync``:
    an ``httpx2.Client``): a new one on a fresh transport, or (REUSE) the one built before, its
    canned vendor reset for a loop of ``turns``."""
    http = httpx2.Client if sync else httpx2.AsyncClient
    if not REUSE:
        return make(http(transport=transport_for(api, turns, stream=stream)))
    hit = _CLIENTS.get((api, kind))
    if hit is None:
        canned = Canned(api, stream=stream)
        hit = _CLIENTS[(api, kind)] = (canned, make(http(transport=canned.transport)))
    hit[0].reset(turns)
    return hit[1]


async def _aw(value: Any) -> Any:
    """``await`` an async SDK call's coroutine; a sync SDK call's value as it is."""
    return await value if inspect.isawaitable(value) else value


def _kind(sync: bool, stream: bool) -> str:
    return "bare-sync" if sync else "bare-stream" if stream else "bare"


# -- the tool ------------------------------------------------------------------------------------


def lookup_fn(q: str, n: int = 1) -> str:
    """Look something up. Use when you need a fact.

    Args:
        q: What to look up.
        n: How many results.
    """
    return f"result for {q} ({n})"


lookup_fn.__name__ = "lookup"  # the plain function the canned answers call by name
#: The same function decorated (what ``@toolwire.tool`` gives): run in a worker thread.
lookup = toolwire.tool(lookup_fn)
#: Decorated with ``@toolwire.tool(blocking=False)``: called on the event loop, as the bare loops call it.
lookup_inline = toolwire.tool(lookup_fn, blocking=False)
LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "description": "What to look up."},
        "n": {"type": "integer", "description": "How many results.", "default": 1},
    },
    "required": ["q"],
}


# -- bare SDK loops (the hand-written baseline a user would write) -------------------------------


#: The worker threads of the sync baselines run with ``threaded`` (one kept, as toolwire keeps its own).
_POOL: Any = None


async def _run_tool(arguments: dict, threaded: bool, sync: bool) -> str:
    """The bare loops' tool call: ``lookup_fn(**arguments)`` on the caller's thread, or with
    ``threaded`` in a worker thread as toolwire runs a sync tool by default (async loops:
    ``asyncio.to_thread``; sync loops: a kept ``ThreadPoolExecutor`` worker, waited for)."""
    if not threaded:
        return lookup_fn(**arguments)
    if not sync:
        return await asyncio.to_thread(lookup_fn, **arguments)
    global _POOL
    if _POOL is None:
        import concurrent.futures

        _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    return _POOL.submit(lookup_fn, **arguments).result()


async def bare_anthropic(
    turns: int, floor: bool = False, *, sync: bool = False, stream: bool = False, threaded: bool = False
) -> None:
    """The hand-written loop over ``messages.create()`` (``sync``: the sync client; ``stream``:
    the SDK's streaming helper ``messages.stream()`` and its ``get_final_message()``), or with
    ``floor`` the SDK's low-level ``post()`` with a ready body."""
    import anthropic

    client = _http(
        "anthropic",
        turns,
        _kind(sync, stream),
        lambda h: (anthropic.Anthropic if sync else anthropic.AsyncAnthropic)(
            api_key="k", max_retries=0, http_client=h
        ),
        stream=stream,
        sync=sync,
    )
    tools = [{"name": "lookup", "description": lookup.model_description(), "input_schema": LOOKUP_SCHEMA}]
    messages: list[dict] = [{"role": "user", "content": "go"}]
    for _ in range(turns):
        kwargs = {"model": MODELS["anthropic"], "max_tokens": 1024, "messages": messages, "tools": tools}
        if floor:
            resp = await _aw(client.post("/v1/messages", cast_to=object, content=_anthropic_bytes(kwargs)))
            content, stop = resp["content"], resp["stop_reason"]
        else:
            if stream:
                async with client.messages.stream(**kwargs) as events:
                    r = await events.get_final_message()
            else:
                r = await _aw(client.messages.create(**kwargs))
            content, stop = [b.model_dump() for b in r.content], r.stop_reason
        if stop != "tool_use":
            break
        messages.append({"role": "assistant", "content": content})
        results = [
            {"type": "tool_result", "tool_use_id": b["id"], "content": await _run_tool(b["input"], threaded, sync)}
            for b in content
            if b["type"] == "tool_use"
        ]
        messages.append({"role": "user", "content": results})
    if not REUSE:
        await _aw(client.close())


def _anthropic_bytes(body: dict) -> bytes:
    """The Anthropic floor's ready body: its JSON bytes, serialized as the SDK's ``post(body=...)``
    would (compact, UTF-8), handed to ``post(content=...)``. toolwire's Anthropic adapter sends
    its bodies this way (``post(body=...)`` walks and copies the whole history first), so the
    floor does too: a floor that does more work than toolwire would flatter toolwire."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


async def bare_chat(
    turns: int, floor: bool = False, *, sync: bool = False, stream: bool = False, threaded: bool = False
) -> None:
    """The hand-written loop over ``chat.completions.create()`` (``stream``: the SDK's helper
    ``chat.completions.stream()`` and its ``get_final_completion()``), or ``post()``."""
    import openai

    client = _http(
        "openai-chat",
        turns,
        _kind(sync, stream),
        lambda h: (openai.OpenAI if sync else openai.AsyncOpenAI)(api_key="k", max_retries=0, http_client=h),
        stream=stream,
        sync=sync,
    )
    tools = [
        {
            "type": "function",
            "function": {"name": "lookup", "description": lookup.model_description(), "parameters": LOOKUP_SCHEMA},
        }
    ]
    messages: list[dict] = [{"role": "user", "content": "go"}]
    for _ in range(turns):
        kwargs = {"model": MODELS["openai-chat"], "messages": messages, "tools": tools}
        if floor:
            resp = await _aw(
                client.post(
                    "/chat/completions", cast_to=object, body=kwargs, options={"security": {"bearer_auth": True}}
                )
            )
            msg = resp["choices"][0]["message"]
        else:
            if stream:
                async with client.chat.completions.stream(**kwargs) as events:
                    r = await events.get_final_completion()
            else:
                r = await _aw(client.chat.completions.create(**kwargs))
            msg = r.choices[0].message.model_dump(exclude_none=True)
        calls = msg.get("tool_calls") or []
        if not calls:
            break
        messages.append(msg)
        for c in calls:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "content": await _run_tool(json.loads(c["function"]["arguments"]), threaded, sync),
                }
            )
    if not REUSE:
        await _aw(client.close())


async def bare_responses(
    turns: int, floor: bool = False, *, sync: bool = False, stream: bool = False, threaded: bool = False
) -> None:
    """The hand-written loop over ``responses.create()`` (``stream``: the SDK's helper
    ``responses.stream()`` and its ``get_final_response()``), or ``post()``."""
    import openai

    client = _http(
        "openai",
        turns,
        _kind(sync, stream),
        lambda h: (openai.OpenAI if sync else openai.AsyncOpenAI)(api_key="k", max_retries=0, http_client=h),
        stream=stream,
        sync=sync,
    )
    tools = [
        {
            "type": "function",
            "name": "lookup",
            "description": lookup.model_description(),
            "parameters": LOOKUP_SCHEMA,
            "strict": False,
        }
    ]
    items: list[dict] = [{"role": "user", "content": "go"}]
    for _ in range(turns):
        kwargs = {"model": MODELS["openai"], "input": items, "tools": tools}
        if floor:
            resp = await _aw(
                client.post("/responses", cast_to=object, body=kwargs, options={"security": {"bearer_auth": True}})
            )
            output = resp["output"]
        else:
            if stream:
                async with client.responses.stream(**kwargs) as events:
                    r = await events.get_final_response()
            else:
                r = await _aw(client.responses.create(**kwargs))
            output = [o.model_dump(exclude_none=True) for o in r.output]
        calls = [o for o in output if o["type"] == "function_call"]
        if not calls:
            break
        items.extend(output)
        for c in calls:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": c["call_id"],
                    "output": await _run_tool(json.loads(c["arguments"]), threaded, sync),
                }
            )
    if not REUSE:
        await _aw(client.close())


async def bare_gemini(turns: int, floor: bool = False, *, sync: bool = False, stream: bool = False) -> None:
    """The hand-written loop over ``generate_content()`` (``sync``: ``client.models``, else
    ``client.aio.models``; ``stream``: ``generate_content_stream()``, its chunks' parts joined).
    Gemini's SDK documents no lower-level path: there is no ``floor``."""
    from google import genai
    from google.genai import types

    def make(h: Any) -> Any:
        if not _gemini_takes_client():
            return genai.Client(api_key="k")
        options = types.HttpOptions(httpx_client=h) if sync else types.HttpOptions(httpx_async_client=h)
        return genai.Client(api_key="k", http_options=options)

    client = _http("gemini", turns, _kind(sync, stream), make, stream=stream, sync=sync)
    models = client.models if sync else client.aio.models
    decl = types.FunctionDeclaration(
        name="lookup", description=lookup.model_description(), parameters_json_schema=LOOKUP_SCHEMA
    )
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[decl])])
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="go")])]
    for _ in range(turns):
        if stream:
            parts: list[Any] = []
            async for chunk in await models.generate_content_stream(
                model=MODELS["gemini"], contents=contents, config=config
            ):
                parts.extend(chunk.candidates[0].content.parts or [])
            cand = types.Content(role="model", parts=parts)
        else:
            r = await _aw(models.generate_content(model=MODELS["gemini"], contents=contents, config=config))
            cand = r.candidates[0].content
        calls = [p.function_call for p in cand.parts or [] if p.function_call]
        if not calls:
            break
        contents.append(cand)
        contents.append(
            types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            name=c.name, response={"result": lookup_fn(**(c.args or {}))}
                        )
                    )
                    for c in calls
                ],
            )
        )


def _gemini_takes_client() -> bool:
    from google.genai import types

    return "httpx_async_client" in types.HttpOptions.model_fields


#: The APIs parts 1, 2 and 6 measure (``--api`` narrows them).
APIS = list(ANSWERS)
BARE = {"anthropic": bare_anthropic, "openai-chat": bare_chat, "openai": bare_responses, "gemini": bare_gemini}
HAS_FLOOR = ("anthropic", "openai-chat", "openai")


async def tw_run(api: str, turns: int, *, tool: Any = lookup, stream: bool = False) -> None:
    extra = {"stream": True} if stream else {}
    m = _http(
        api,
        turns,
        "tw-stream" if stream else "tw",
        lambda h: toolwire.model(f"{api}:{MODELS[api]}", api_key="k", http_client=h, **extra),
        stream=stream,
    )
    await toolwire.run(m, "go", tools=[tool], max_turns=turns)


def tw_run_sync(api: str, turns: int, *, tool: Any = lookup) -> None:
    m = _http(
        api,
        turns,
        "tw-sync",
        lambda h: toolwire.model(f"{api}:{MODELS[api]}", api_key="k", http_client=h),
    )
    toolwire.run_sync(m, "go", tools=[tool], max_turns=turns)


# -- measurement ---------------------------------------------------------------------------------


def _time_async(fn: Callable[[], Awaitable[None]], inner: int) -> float:
    async def go() -> float:
        start = CLOCK()
        for _ in range(inner):
            await fn()
        return (CLOCK() - start) / inner

    return asyncio.run(go())


def _time_sync(fn: Callable[[], None], inner: int) -> float:
    start = CLOCK()
    for _ in range(inner):
        fn()
    return (CLOCK() - start) / inner


def _ratio_line(label: str, mine: list[float], base: list[float]) -> str:
    ratios = [a / b for a, b in zip(mine, base)]
    return (
        f"  {label:<56} {statistics.median(mine) * 1000:8.2f} ms  vs {statistics.median(base) * 1000:8.2f} ms"
        f"  ratio {statistics.median(ratios):5.2f}x  ({min(ratios):.2f}-{max(ratios):.2f})"
    )


def part_loop() -> None:
    global REUSE
    print("\n1. 2-turn loop, median of interleaved rounds (ms per loop; SDK clients and models built once)")
    REUSE = True
    try:
        _part_loop()
    finally:
        REUSE = False


def _part_loop() -> None:
    inner = 10
    for api in APIS:
        bare = BARE[api]
        floor = api in HAS_FLOOR
        # name -> (timer, one loop); timed in a rotating order, so that no measurement always
        # comes first in its round (or always after the same one)
        cases: dict[str, tuple[Callable[..., float], Callable[[], Any]]] = {
            "bare": (_time_async, lambda: bare(2)),
            "bare_sync": (_time_async, lambda: bare(2, sync=True)),
            "bare_stream": (_time_async, lambda: bare(2, stream=True)),
            "async": (_time_async, lambda: tw_run(api, 2)),
            "sync": (_time_sync, lambda: tw_run_sync(api, 2)),
            "plain": (_time_async, lambda: tw_run(api, 2, tool=lookup_fn)),
            "plain_sync": (_time_sync, lambda: tw_run_sync(api, 2, tool=lookup_fn)),
            "stream": (_time_async, lambda: tw_run(api, 2, stream=True)),
            "inline": (_time_async, lambda: tw_run(api, 2, tool=lookup_inline)),
            "inline_sync": (_time_sync, lambda: tw_run_sync(api, 2, tool=lookup_inline)),
        }
        if floor:
            cases["floor"] = (_time_async, lambda: bare(2, floor=True))
            cases["floor_sync"] = (_time_async, lambda: bare(2, floor=True, sync=True))
            cases["floor_thread"] = (_time_async, lambda: bare(2, floor=True, threaded=True))
            cases["floor_sync_thread"] = (_time_async, lambda: bare(2, floor=True, sync=True, threaded=True))
        rows: dict[str, list[float]] = {k: [] for k in cases}
        for timer, fn in cases.values():
            timer(fn, 2)  # warm-up: imports, caches, clients
        names = list(cases)
        for r in range(ROUNDS):
            shift = r * 3 % len(names)
            for name in names[shift:] + names[:shift]:
                timer, fn = cases[name]
                rows[name].append(timer(fn, inner))
        print(f" {api}")
        for key, base, label in (
            ("async", "bare", "toolwire run (async) / bare SDK loop"),
            ("sync", "bare", "toolwire run_sync / bare SDK loop"),
            ("sync", "bare_sync", "toolwire run_sync / bare sync SDK loop"),
            ("plain", "bare", "toolwire run, plain function / bare SDK loop"),
            ("plain_sync", "bare_sync", "toolwire run_sync, plain function / bare sync SDK"),
            ("stream", "bare", "toolwire run, streamed on the wire / bare SDK loop"),
            ("stream", "bare_stream", "toolwire run, streamed / SDK streaming helper loop"),
            ("inline", "bare", "toolwire run, tool blocking=False / bare SDK loop"),
            ("inline_sync", "bare", "toolwire run_sync, tool blocking=False / bare SDK loop"),
            ("inline_sync", "bare_sync", "toolwire run_sync, blocking=False / bare sync SDK"),
            ("async", "floor", "toolwire run (async) / SDK post() floor"),
            ("inline", "floor", "toolwire run, blocking=False / post() floor"),
            ("sync", "floor_sync", "toolwire run_sync / sync SDK post() floor"),
            ("inline_sync", "floor_sync", "toolwire run_sync, blocking=False / sync post() floor"),
            ("async", "floor_thread", "toolwire run / post() floor, tool in to_thread"),
            ("sync", "floor_sync_thread", "toolwire run_sync / sync floor, tool in a thread"),
        ):
            if key in rows and base in rows:
                print(_ratio_line(label, rows[key], rows[base]))


def part_long() -> None:
    print(
        "\n2. 50-turn loop: ms per turn at turns 1-10 and 41-50 (medians over those turns of every round).\n"
        "   toolwire's own share = toolwire's time for a turn minus the SDK floor's for the same turn,\n"
        "   replaying the very bodies toolwire sent (OpenAI/Anthropic post(); Gemini: its API client's\n"
        "   request), in the same round (which of the two runs first alternates); growth = own share at\n"
        "   41-50 over 1-10 (spread: the rounds' own growths, lowest-highest). calls/turn own: function\n"
        "   calls per turn of toolwire minus those of the floor replay (cProfile, one untimed run: no\n"
        "   noise), at 1-10 -> 41-50"
    )
    turns, rounds = 50, 9
    for api in APIS:
        # the bare create() / generate_content() loop re-validates the whole history each turn
        # (30-130 ms per turn at 41-50 off Anthropic): a few rounds give its figure, and it is far
        # from toolwire's; Anthropic's bare loop is close to toolwire's, so it runs every round
        bare_rounds = rounds if api == "anthropic" else 3
        _, bodies = _long_toolwire(api, turns)  # warm-up; toolwire's bodies are the same every run
        tw: list[list[float]] = []
        fl: list[list[float]] = []
        bare: list[list[float]] = []
        for r in range(rounds):
            if r % 2:
                fl.append(_gaps(_long_floor(api, bodies)))
                tw.append(_gaps(_long_toolwire(api, turns)[0]))
            else:
                tw.append(_gaps(_long_toolwire(api, turns)[0]))
                fl.append(_gaps(_long_floor(api, bodies)))
            if r < bare_rounds:
                times: list[float] = []
                client = httpx2.AsyncClient(transport=_stamping(transport_for(api, turns), times))
                asyncio.run(_bare_with_client(api, turns, client))
                bare.append(_gaps(times))

        def early(rows: list[list[float]]) -> float:
            return statistics.median(g for row in rows for g in row[:10])

        def late(rows: list[list[float]]) -> float:
            return statistics.median(g for row in rows for g in row[-10:])

        own = [[a - b for a, b in zip(t, f)] for t, f in zip(tw, fl)]  # per turn, paired in its round
        own_e, own_l = early(own), late(own)
        growths = [late([row]) / early([row]) for row in own if early([row]) > 0]
        growth = (
            f"{own_l / own_e:4.2f}x ({min(growths):.2f} to {max(growths):.2f})"
            if own_e > 0 and growths
            else "n/a (no own share at 1-10)"
        )
        vs_bare = [late([t]) / late([b]) for t, b in zip(tw, bare)]
        calls = _long_calls(api, turns)
        print(
            f"  {api:<12} toolwire {early(tw):5.2f} -> {late(tw):5.2f}  floor {early(fl):5.2f} -> {late(fl):5.2f}  "
            f"own share {own_e:5.2f} -> {own_l:5.2f}, growth {growth}\n"
            f"  {'':<12} bare SDK at 41-50 {late(bare):7.2f}, toolwire / bare {statistics.median(vs_bare):5.2f}x"
            f" ({min(vs_bare):.2f}-{max(vs_bare):.2f}, {len(vs_bare)} rounds)"
            f"   calls/turn own {calls[0]:6.0f} -> {calls[1]:6.0f} ({calls[1] / calls[0]:4.2f}x)"
        )


def _gaps(times: list[float]) -> list[float]:
    """ms per turn from the request time stamps of one run: the gap before each next request."""
    return [(b - a) * 1000 for a, b in zip(times, times[1:])]


def _long_toolwire(api: str, turns: int) -> tuple[list[float], list[tuple[str, bytes]]]:
    """One toolwire run of ``turns`` turns: its request time stamps and the bodies it sent (kept
    as bytes: parsing them here would charge the benchmark's own work to toolwire's turns)."""
    times: list[float] = []
    bodies: list[tuple[str, bytes]] = []
    client = httpx2.AsyncClient(transport=_stamping(transport_for(api, turns), times, bodies))
    m = toolwire.model(f"{api}:{MODELS[api]}", api_key="k", http_client=client)
    asyncio.run(toolwire.run(m, "go", tools=[lookup], max_turns=turns))
    return times, bodies


def _long_floor(api: str, bodies: list[tuple[str, bytes]]) -> list[float]:
    times: list[float] = []
    parsed = [(path, json.loads(body)) for path, body in bodies]
    client = httpx2.AsyncClient(transport=_stamping(transport_for(api, len(bodies)), times))
    asyncio.run(_floor_replay(api, parsed, client))
    return times


def _long_calls(api: str, turns: int) -> tuple[float, float]:
    """Function calls per turn at turns 1-10 and 41-50 (medians of the gaps) of a toolwire run
    minus those of the floor replaying its bodies, counted by ``cProfile`` on the event loop's
    thread (a C profiler; the count does not depend on the clock or on the machine's load). It
    counts calls, not their size: work inside one C call that grows with the history (JSON
    serialization, comparing two lists) is one call at any length."""
    import cProfile

    def counts(fn: Callable[[], Any], marks: list[int]) -> None:
        prof = cProfile.Profile()

        def stamp() -> None:  # the calls so far, read without stopping the profiler
            prof.disable()
            marks.append(_total_calls(prof))
            prof.enable()

        STAMP_HOOK.append(stamp)
        try:
            prof.runcall(fn)
        finally:
            STAMP_HOOK.remove(stamp)

    tw_marks: list[int] = []
    fl_marks: list[int] = []
    sent: list[tuple[str, bytes]] = []
    counts(lambda: sent.extend(_long_toolwire(api, turns)[1]), tw_marks)
    parsed = [(path, json.loads(body)) for path, body in sent]

    def floor() -> None:
        client = httpx2.AsyncClient(transport=_stamping(transport_for(api, len(parsed)), []))
        asyncio.run(_floor_replay(api, parsed, client))

    counts(floor, fl_marks)

    def per_turn(marks: list[int]) -> tuple[float, float]:
        # medians, as for the times: the first turn also pays one-time work (a lazy import, the
        # SDK's first-request checks), which is not per-turn work
        gaps = [b - a for a, b in zip(marks, marks[1:])]
        return statistics.median(gaps[:10]), statistics.median(gaps[-10:])

    tw, fl = per_turn(tw_marks), per_turn(fl_marks)
    return tw[0] - fl[0], tw[1] - fl[1]


#: Called at each request a stamping transport receives (the call counter of part 2).
STAMP_HOOK: list[Callable[[], None]] = []


def _stamping(
    inner: httpx2.MockTransport, times: list[float], bodies: list[tuple[str, bytes]] | None = None
) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        times.append(CLOCK())
        for hook in STAMP_HOOK:
            hook()
        if bodies is not None:
            bodies.append((request.url.path, request.content))
        return inner.handler(request)  # type: ignore[attr-defined]

    return httpx2.MockTransport(handler)


async def _floor_replay(api: str, bodies: list[tuple[str, dict]], client: httpx2.AsyncClient) -> None:
    """The SDK's leanest path with ready bodies: the bodies toolwire sent, posted in order."""
    if api == "gemini":
        from google import genai
        from google.genai import types

        g = genai.Client(
            api_key="k", http_options=types.HttpOptions(httpx_async_client=client) if _gemini_takes_client() else None
        )
        api_client = g.aio._api_client
        for path, body in bodies:
            await api_client.async_request("post", path.split("/v1beta/", 1)[-1], body, None)
        return
    import anthropic
    import openai

    if api == "anthropic":
        ac = anthropic.AsyncAnthropic(api_key="k", max_retries=0, http_client=client)
        for _path, body in bodies:
            await ac.post("/v1/messages", cast_to=object, content=_anthropic_bytes(body))
    else:
        oc = openai.AsyncOpenAI(api_key="k", max_retries=0, http_client=client)
        path = "/chat/completions" if api == "openai-chat" else "/responses"
        for _path, body in bodies:
            await oc.post(path, cast_to=object, body=body, options={"security": {"bearer_auth": True}})
    await client.aclose()


async def _bare_with_client(api: str, turns: int, client: httpx2.AsyncClient) -> None:
    # the bare loops build their own client; swap in the stamping one
    original = transport_for

    def patched(a: str, t: int, *, stream: bool = False) -> Any:
        return client._transport

    globals()["transport_for"] = patched
    try:
        await BARE[api](turns)
    finally:
        globals()["transport_for"] = original


def part_stream() -> None:
    print(
        "\n3. stream assembly, 100 KB vs 1 MB arriving in 10-byte deltas (linear = 10x). Each round times\n"
        "   each size 5 times (3 on the SDK paths) and takes each size's median, paired (which size goes\n"
        "   first alternates; 11 rounds, 5 on the SDK paths); ratio = median of the per-round ratios\n"
        "   (lowest-highest). calls/delta: function calls per delta at 100 KB / 1 MB, counted by cProfile\n"
        "   in one untimed run per size (equal = linear work, free of timing noise); gc: collections\n"
        "   (generation 0/1/2) while timed"
    )
    from toolwire.stream import StreamAssembler, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart

    def assembler_call(size: int) -> Callable[[], Any]:
        text = json.dumps({"data": "x" * (size - 12)})

        def go() -> Any:
            asm = StreamAssembler("bench")
            asm.feed(ToolCallStart(index=0, id="c1", name="f"))
            for i in range(0, len(text), 10):  # each delta a string object of its own, as decoded
                asm.feed(ToolCallDelta(index=0, arguments_fragment=text[i : i + 10]))
            asm.feed(ToolCallEnd(index=0))
            return asm.response()

        return go

    def assembler_text(size: int) -> Callable[[], Any]:
        text = "abcdefghij" * (size // 10)

        def go() -> Any:
            asm = StreamAssembler("bench")
            for i in range(0, len(text), 10):
                asm.feed(TextDelta(index=0, text=text[i : i + 10]))
            return asm.response()

        return go

    def deltas_alone(size: int) -> Callable[[], Any]:
        text = json.dumps({"data": "x" * (size - 12)})

        def go() -> None:  # the harness's own part of the rows above: the deltas made and dropped
            for i in range(0, len(text), 10):
                ToolCallDelta(index=0, arguments_fragment=text[i : i + 10])

        return go

    # the real path: the vendor's SSE bytes through the SDK's HTTP layer, the adapter's decoder and
    # the assembler (Model.send_stream), and a whole streamed toolwire.run answering in text
    def sse_call(size: int) -> Callable[[], Any]:
        body = _anthropic_sse_of(size, "tool")
        m = _streaming_model(body)
        req = m.build_request([toolwire.Message.user("go")])
        from toolwire.adapter import collect_stream

        return lambda: asyncio.run(collect_stream(m.send_stream(req), "anthropic"))

    def run_text(size: int) -> Callable[[], Any]:
        m = _streaming_model(_anthropic_sse_of(size, "text"))
        return lambda: toolwire.run_sync(m, "go")

    rows = (
        # the assembler alone is quick (10-20 ms at 100 KB): more rounds, for a steadier median
        ("assembler, tool-call arguments", assembler_call, 11, 5),
        ("assembler, text", assembler_text, 11, 5),
        ("for scale: the deltas alone, no assembler", deltas_alone, 11, 5),
        ("Anthropic SSE via SDK + adapter, tool call", sse_call, 5, 3),
        ("toolwire.run streamed (Anthropic), text", run_text, 5, 3),
    )
    for label, make, rounds, reps in rows:
        small, big = make(100_000), make(1_000_000)
        small()  # warm-up: imports, caches, first allocations
        big()
        calls = (_count_calls(small), _count_calls(big))
        gcs = [0, 0, 0]

        def on_gc(phase: str, info: dict) -> None:
            if phase == "start":
                gcs[info["generation"]] += 1

        times_s: list[float] = []
        times_b: list[float] = []
        ratios: list[float] = []
        gc.callbacks.append(on_gc)
        try:
            for r in range(rounds):
                # both sizes timed alike (the same number of runs, their median), so that
                # neither is more exposed to a stray pause than the other
                if r % 2:  # alternate which size goes first
                    bigs = [_timed(big) for _ in range(reps)]
                    smalls = [_timed(small) for _ in range(reps)]
                else:
                    smalls = [_timed(small) for _ in range(reps)]
                    bigs = [_timed(big) for _ in range(reps)]
                t_small, t_big = statistics.median(smalls), statistics.median(bigs)
                times_s.append(t_small)
                times_b.append(t_big)
                ratios.append(t_big / t_small)
        finally:
            gc.callbacks.remove(on_gc)
        deltas = (100_000 // 10, 1_000_000 // 10)
        print(
            f"  {label:<44} 100 KB {statistics.median(times_s) * 1000:7.1f} ms  1 MB {statistics.median(times_b) * 1000:8.1f} ms"
            f"  ratio {statistics.median(ratios):5.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
            f"  calls/delta {calls[0] / deltas[0]:.2f} / {calls[1] / deltas[1]:.2f}"
            f"  gc {gcs[0]}/{gcs[1]}/{gcs[2]}"
        )


def _timed(fn: Callable[[], Any]) -> float:
    start = CLOCK()
    fn()
    return CLOCK() - start


def _count_calls(fn: Callable[[], Any]) -> int:
    """Python and C function calls made by one run of ``fn``, counted by ``cProfile``
    (deterministic: no clock involved)."""
    import cProfile

    prof = cProfile.Profile()
    prof.runcall(fn)
    return _total_calls(prof)


def _total_calls(prof: Any) -> int:
    """Calls so far, summed over the profiler's raw entries, one per code object. (Not
    ``pstats.Stats(prof).total_calls``: pstats keys functions by file, line and name, and
    functions sharing those, such as every dataclass's generated ``__eq__`` at ``<string>:2``,
    overwrite one another there, so their calls would go uncounted.)"""
    return sum(entry.callcount for entry in prof.getstats())


def _anthropic_sse_of(size: int, kind: str) -> bytes:
    """An Anthropic Messages stream whose one block (a tool call's ``input_json_delta`` or a text
    block's ``text_delta``) carries ``size`` bytes in 10-byte deltas."""
    out: list[str] = []

    def ev(name: str, data: dict) -> None:
        out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")

    msg = dict(anthropic_answer(1, kind == "text"), content=[], stop_reason=None)
    ev("message_start", {"type": "message_start", "message": msg})
    if kind == "tool":
        block = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}
        text = json.dumps({"q": "x" * (size - 9)})
        delta = lambda piece: {"type": "input_json_delta", "partial_json": piece}  # noqa: E731
    else:
        block = {"type": "text", "text": ""}
        text = "abcdefghij" * (size // 10)
        delta = lambda piece: {"type": "text_delta", "text": piece}  # noqa: E731
    ev("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
    for i in range(0, len(text), 10):
        ev("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta(text[i : i + 10])})
    ev("content_block_stop", {"type": "content_block_stop", "index": 0})
    stop = "tool_use" if kind == "tool" else "end_turn"
    ev(
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}},
    )
    ev("message_stop", {"type": "message_stop"})
    return "".join(out).encode()


def _streaming_model(body: bytes) -> Any:
    """A streaming Anthropic model whose canned vendor sends ``body`` in 16 KB chunks, as reads
    from a socket arrive (one chunk of many megabytes would time a split no network makes)."""

    class Chunks(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for i in range(0, len(body), 16384):
                yield body[i : i + 16384]

    transport = httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Chunks())
    )
    return toolwire.model(
        f"anthropic:{MODELS['anthropic']}",
        api_key="k",
        http_client=httpx2.AsyncClient(transport=transport),
        stream=True,
    )


def part_import() -> None:
    print("\n4. cold import in fresh processes (median of 15, minus a bare interpreter)")

    import os

    # as installed code runs: compiled bytecode written once and then used (a development shell
    # with PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module on every import)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def wall(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        return time.perf_counter() - start

    base, imp, used, ready, stdlib = [], [], [], [], []
    code_stdlib = "import json, typing, dataclasses, inspect, enum, re"
    # the names are loaded on first use: what a program pays once it touches what a run needs
    code_used = "import toolwire; toolwire.tool, toolwire.run, toolwire.run_sync, toolwire.Tool, toolwire.ToolError"
    code_ready = (
        "import toolwire, httpx2; toolwire.model('openai-chat:gpt-4.1', api_key='k', http_client=httpx2.AsyncClient())"
    )
    wall(code_ready)  # warm-up: bytecode written
    for _ in range(15):
        base.append(wall("pass"))
        imp.append(wall("import toolwire"))
        used.append(wall(code_used))
        ready.append(wall(code_ready))
        stdlib.append(wall(code_stdlib))
    b = statistics.median(base)
    print(f"  import toolwire                  {(statistics.median(imp) - b) * 1000:7.1f} ms")
    print(f"  ... and toolwire.tool/run used   {(statistics.median(used) - b) * 1000:7.1f} ms")
    print(f"  ready to send (openai-chat)      {(statistics.median(ready) - b) * 1000:7.1f} ms")
    print(f"  for scale: {code_stdlib}  {(statistics.median(stdlib) - b) * 1000:7.1f} ms")


def part_payload() -> None:
    print("\n5. tools payload: bytes per API vs the hand-written minimum with the same information")
    from toolwire.registry import codec

    def weather(city: str, days: int = 1, unit: str = "celsius") -> str:
        """Forecast for a city. Use when asked about the weather.

        Args:
            city: City name, e.g. "Paris".
            days: Days to forecast, 1 to 7.
            unit: "celsius" or "fahrenheit".
        """
        return ""

    def search(query: str, limit: int = 10) -> list[str]:
        """Search the notes. Use before reading a note.

        Args:
            query: Words to look for.
            limit: Most results to return.
        """
        return []

    def tag(note_id: int, tags: list[str], mode: Literal["add", "remove"] = "add", color: str | None = None) -> str:
        """Tag a note. Use to organise notes.

        Args:
            note_id: The note's number.
            tags: Tags to add or remove.
            mode: Add or remove the tags.
            color: Color of new tags.
        """
        return ""

    tools = [toolwire.tool(weather), toolwire.tool(search), toolwire.tool(tag)]

    # the information, written by hand: names, descriptions, parameter descriptions, types,
    # required, defaults (nothing else)
    info = {
        "weather": (
            "Forecast for a city. Use when asked about the weather.",
            {
                "city": {"type": "string", "description": 'City name, e.g. "Paris".'},
                "days": {"type": "integer", "description": "Days to forecast, 1 to 7.", "default": 1},
                "unit": {"type": "string", "description": '"celsius" or "fahrenheit".', "default": "celsius"},
            },
            ["city"],
        ),
        "search": (
            "Search the notes. Use before reading a note.",
            {
                "query": {"type": "string", "description": "Words to look for."},
                "limit": {"type": "integer", "description": "Most results to return.", "default": 10},
            },
            ["query"],
        ),
        "tag": (
            "Tag a note. Use to organise notes.",
            {
                "note_id": {"type": "integer", "description": "The note's number."},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags to add or remove."},
                "mode": {
                    "type": "string",
                    "enum": ["add", "remove"],
                    "description": "Add or remove the tags.",
                    "default": "add",
                },
                "color": {"type": "string", "description": "Color of new tags."},
            },
            ["note_id", "tags"],
        ),
    }

    def schema(props: dict, required: list) -> dict:
        return {"type": "object", "properties": props, "required": required}

    # each API's own envelope, as its SDK types require it (the smallest declaration it accepts)
    envelopes = {
        # anthropic.types.ToolParam: name, input_schema (type object), description
        "anthropic": lambda n, d, p, r: {"name": n, "description": d, "input_schema": schema(p, r)},
        # openai.types.chat.ChatCompletionFunctionToolParam: type + function{name, description, parameters}
        "openai-chat": lambda n, d, p, r: {
            "type": "function",
            "function": {"name": n, "description": d, "parameters": schema(p, r)},
        },
        # openai.types.responses.FunctionToolParam: name, parameters, strict, type are Required
        "openai": lambda n, d, p, r: {
            "type": "function",
            "name": n,
            "description": d,
            "parameters": schema(p, r),
            "strict": False,
        },
        # google.genai.types.FunctionDeclaration: name, description, parametersJsonSchema
        "gemini": lambda n, d, p, r: {"name": n, "description": d, "parametersJsonSchema": schema(p, r)},
    }

    def size(obj: Any) -> int:
        return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())

    def tokens(obj: Any) -> int:  # toolwire's offline estimate (the same counter for both sides)
        from toolwire.design.tokens import count_text

        return count_text(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))

    neutral = size([{"name": n, "description": d, "properties": p, "required": r} for n, (d, p, r) in info.items()])
    print(f"  the information alone (no API envelope): {neutral} bytes")
    for api in ANSWERS:
        c = codec(api)
        decls = [c.translate_tool(t)[0] for t in tools]
        body = c.encode_request(toolwire.adapter.ModelRequest(model=MODELS[api], tools=tools))
        sent = body.get("tools")
        if api == "gemini":
            sent = [d for t in sent for d in t.get("functionDeclarations", [])]
        assert size(sent) == size(decls), (api, "translate_tool differs from the body's tools")
        hand = [envelopes[api](n, d, p, r) for n, (d, p, r) in info.items()]
        minimum, mine = size(hand), size(decls)
        tok_min, tok_mine = tokens(hand), tokens(decls)
        print(
            f"  {api:<12} toolwire {mine:5d} bytes {tok_mine:4d} tokens   hand-written minimum {minimum:5d} bytes"
            f" {tok_min:4d} tokens   ratio {mine / minimum:5.3f}x bytes, {tok_mine / tok_min:5.3f}x tokens"
        )


def part_tools() -> None:
    print(
        "\n6. one request's preparation (encoding, repairs, checks) by number of tools declared, against"
        " json.dumps of the body prepared (median of 7 interleaved rounds; microseconds per request)"
    )
    import timeit

    def make(i: int) -> Any:
        def fn(city: str, days: int = 3, units: str = "metric") -> str:
            return city

        fn.__name__ = f"forecast_{i}"
        fn.__doc__ = f"Forecast number {i} for a city.\n\nArgs:\n    city: the city\n    days: how many days\n    units: metric or imperial"
        return toolwire.tool(fn)

    msgs = [toolwire.Message("user", [toolwire.TextPart("hi")])]
    for api in APIS:
        cells = []
        for n in (1, 10, 30):
            model = toolwire.model(f"{api}:{MODELS[api]}", api_key="k")
            tools = [make(i) for i in range(n)]
            request = model.before_encode(model.build_request(msgs, tools=tools), stream=False)
            body = model.prepare(request)
            number = max(20, 2000 // n)
            mine, dumps = [], []
            for _ in range(7):
                mine.append(min(timeit.repeat(lambda: model.prepare(request), number=number, repeat=3)) / number)
                dumps.append(min(timeit.repeat(lambda: json.dumps(body), number=number, repeat=3)) / number)
            m, d = statistics.median(mine) * 1e6, statistics.median(dumps) * 1e6
            cells.append(f"{n:2d} tool{'s' if n > 1 else ' '} {m:6.1f} us ({m / d:4.2f}x json.dumps {d:5.1f} us)")
        print(f"  {api:<12} " + "   ".join(cells))


def part_own() -> None:
    print(
        "\n7. toolwire's own work per 2-turn loop (tool blocking=False), against the floor's: each loop's time\n"
        "   minus the time spent inside the SDK's client.request() (the HTTP request through the SDK and\n"
        "   the canned transport; the floor's also parses the answer's JSON, which toolwire reads itself),\n"
        "   for toolwire and for the post() floor in the same round; toolwire's\n"
        f"   own time split by what it does (medians of {OWN_ROUNDS} interleaved rounds of 20 loops; microseconds\n"
        "   per loop; each timed piece adds about 1 us of timing). Each figure is a median of its own (own = the\n"
        "   median of the per-round differences), so the parts need not add up to the total exactly"
    )
    apis = [a for a in APIS if a in HAS_FLOOR]
    if not apis:
        print(f"  nothing to measure: part 7 needs an API with a post() floor ({', '.join(HAS_FLOOR)})")
    for api in apis:
        _own_for(api)


#: Rounds of part 7.
OWN_ROUNDS = 15


def _own_for(api: str) -> None:
    """Part 7 for one API: the SDK's ``request()`` and some of toolwire's functions wrapped with
    timers (restored after), then toolwire's loop and the floor's timed in interleaved rounds."""
    import importlib

    from toolwire import adapter as tw_adapter
    from toolwire import transport as tw_transport

    sdk = importlib.import_module(("anthropic" if api == "anthropic" else "openai") + "._base_client")
    model = toolwire.model(f"{api}:{MODELS[api]}", api_key="k")
    spent: dict[str, float] = {}
    clock = time.perf_counter

    def timed_async(fn: Any, key: str) -> Any:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return await fn(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + clock() - start

        return wrapper

    def timed_sync(fn: Any, key: str) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + clock() - start

        return wrapper

    codec_class = type(model.codec)
    # the outermost send of the model's class (an adapter may wrap Transport.send: OpenAI Chat
    # turns a server's refused tool call into the model's answer), so its preflight is inside
    sender = next(c for c in type(model).__mro__ if "send" in c.__dict__)
    patches = [
        (sdk.AsyncAPIClient, "request", timed_async, "sdk"),
        (sender, "send", timed_async, "send"),
        (tw_adapter.Model, "_preflight", timed_sync, "preflight"),
        (codec_class, "encode_request", timed_sync, "encode"),
        (tw_adapter, "_dumps_bytes", timed_sync, "json"),
        (tw_transport, "read_answer", timed_async, "read"),
        (codec_class, "decode_response", timed_sync, "decode"),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _, _ in patches]
    rows: dict[str, list[float]] = {}
    global REUSE
    REUSE = True
    try:
        for owner, name, wrap, key in patches:
            setattr(owner, name, wrap(owner.__dict__[name], key))
        loops = 20

        async def measure(which: str) -> dict[str, float]:
            spent.clear()
            start = clock()
            for _ in range(loops):
                if which == "tw":
                    await tw_run(api, 2, tool=lookup_inline)
                else:
                    await BARE[api](2, floor=True)
            out = {k: v / loops for k, v in spent.items()}
            out["total"] = (clock() - start) / loops
            return out

        async def rounds() -> None:
            for which in ("tw", "floor"):  # warm-up
                await measure(which)
            for r in range(OWN_ROUNDS):
                for which in ("tw", "floor") if r % 2 == 0 else ("floor", "tw"):
                    got = await measure(which)
                    for k, v in got.items():
                        rows.setdefault(f"{which}.{k}", []).append(v)

        asyncio.run(rounds())
    finally:
        REUSE = False
        for owner, name, fn in saved:
            setattr(owner, name, fn)

    def med(key: str) -> float:
        return statistics.median(rows.get(key) or [0.0]) * 1e6

    tw_own = [t - s for t, s in zip(rows["tw.total"], rows["tw.sdk"])]
    fl_own = [t - s for t, s in zip(rows["floor.total"], rows["floor.sdk"])]
    ratio = statistics.median(a / b for a, b in zip(tw_own, fl_own))
    own, floor_own = statistics.median(tw_own) * 1e6, statistics.median(fl_own) * 1e6
    pre, enc, js, rd, dec = med("tw.preflight"), med("tw.encode"), med("tw.json"), med("tw.read"), med("tw.decode")
    # the rest of a request: the transport's own steps (posting, retry policy, the SDK's request
    # options, releasing the answer), i.e. send() minus the parts timed inside it
    sending = med("tw.send") - med("tw.sdk") - pre - js - rd - dec
    print(
        f"  {api:<12} toolwire {med('tw.total'):7.0f} (SDK request {med('tw.sdk'):6.0f}, own {own:5.0f})   "
        f"floor {med('floor.total'):6.0f} (SDK request {med('floor.sdk'):6.0f}, own {floor_own:5.0f})   "
        f"own / floor's own {ratio:4.2f}x"
    )
    print(
        f"  {'':<12} own: preflight {pre:4.0f} (encoding {enc:4.0f}, vendor rules and the rest {pre - enc:4.0f}), "
        f"JSON body {js:3.0f}, reading the answer {rd:3.0f}, decoding it {dec:3.0f}, "
        f"the transport's other steps {sending:3.0f}, the loop (tool call included) {own - pre - js - rd - dec - sending:4.0f}"
    )


def part_work() -> None:
    print(
        "\n8. work counted, not timed: Python bytecode instructions executed per 2-turn loop (tool blocking=False),\n"
        "   toolwire against the post() floor (Gemini: the bare generate_content() loop), async and sync, split by\n"
        "   whose code runs them: toolwire's, the SDK's and the HTTP client's (with the standard library), and\n"
        f"   the harness's (the canned transport and the tool). Counted with sys.settrace over {WORK_LOOPS} loops after\n"
        "   a warm-up, the garbage collector off: no clock, so toolwire's count is the same on every machine and run of this command\n"
        "   (the SDK side's, which holds asyncio's loop, within a few dozen). C code (json, pickle, pydantic-core)\n"
        "   runs no bytecode and is not counted; set it beside the timings of parts 1 and 7"
    )
    for api in APIS:
        floor = api in HAS_FLOOR
        for sync in (False, True):
            # as part 1 times them: run_sync called in a plain loop; the others awaited in one
            # event loop (the sync floor: the bare loop over the SDK's sync client)
            if sync:
                mine = _count_ops(lambda: tw_run_sync(api, 2, tool=lookup_inline), awaits=False)
            else:
                mine = _count_ops(lambda: tw_run(api, 2, tool=lookup_inline))
            base = _count_ops(lambda: BARE[api](2, floor=floor, sync=sync))
            label = f"{api} {'run_sync' if sync else 'run'}"
            against = "floor" if floor else "bare"
            print(
                f"  {label:<22} toolwire {sum(mine.values()):7,.0f} (toolwire {mine['toolwire']:6,.0f}, SDK and HTTP "
                f"{mine['sdk']:6,.0f}, harness {mine['harness']:4,.0f})   {against} {sum(base.values()):7,.0f} (SDK and "
                f"HTTP {base['sdk']:7,.0f}, harness {base['harness']:4,.0f})   "
                f"{sum(mine.values()) / sum(base.values()):4.2f}x"
            )


#: Loops counted per figure of part 8 (after a warm-up of as many).
WORK_LOOPS = 10


def _counting_on(tracer: Any) -> tuple[Any, bool]:
    """Start counting with ``tracer``; returns what :func:`_counting_off` restores: the trace
    function in place before (a coverage tool's, under pytest --cov) and whether the garbage
    collector was on. The collector is off while counting: a collection runs Python callbacks
    (weak references' ``_remove``) whenever the heap's allocations happen to trigger it, which
    would make the count differ from run to run."""
    before = sys.gettrace(), gc.isenabled()
    gc.collect()
    gc.disable()
    sys.settrace(tracer)
    return before


def _counting_off(before: tuple[Any, bool]) -> None:
    sys.settrace(before[0])
    if before[1]:
        gc.enable()


def _count_ops(fn: Callable[[], Any], *, awaits: bool = True) -> dict[str, float]:
    """Bytecode instructions per call of ``fn`` (``WORK_LOOPS`` calls after as many uncounted
    ones; ``awaits``: ``fn()`` is awaited, every call in one event loop), keyed ``toolwire`` (toolwire's core and adapters), ``harness`` (this file: the canned
    transport, the tool, the bare loops' own lines) and ``sdk`` (everything else: the vendor
    SDK, httpx2, asyncio and the rest of the standard library)."""
    global REUSE
    counts = {"toolwire": 0, "sdk": 0, "harness": 0}
    here = __file__

    def whose(filename: str) -> str:
        if filename == here:
            return "harness"
        if "toolwire" in filename and ("/src/toolwire/" in filename or "/toolwire_" in filename):
            return "toolwire"
        return "sdk"

    own = _counting_off.__code__  # (the counter's own call that ends the counting is not counted)

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is own:
            return None
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True
        key = whose(frame.f_code.co_filename)

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode":
                counts[key] += 1
            return local

        return local

    async def awaited() -> None:  # (an async fn: every loop in one event loop, as _time_async)
        for _ in range(WORK_LOOPS):
            await fn()
        before = _counting_on(tracer)
        try:
            for _ in range(WORK_LOOPS):
                await fn()
        finally:
            _counting_off(before)

    REUSE = True
    try:
        if awaits:
            asyncio.run(awaited())
        else:
            for _ in range(WORK_LOOPS):
                fn()
            before = _counting_on(tracer)
            try:
                for _ in range(WORK_LOOPS):
                    fn()
            finally:
                _counting_off(before)
    finally:
        REUSE = False
    return {k: v / WORK_LOOPS for k, v in counts.items()}


PARTS = {
    "loop": part_loop,
    "long": part_long,
    "stream": part_stream,
    "import": part_import,
    "payload": part_payload,
    "tools": part_tools,
    "own": part_own,
    "work": part_work,
}


def _parse(argv: list[str]) -> Any:
    """The command line: parts to run (none = all) and the options; a bad one exits 2 with usage."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="uv run python benchmarks/suite.py",
        description="toolwire's standing benchmark: ratios against the bare vendor SDKs, in one process.",
        epilog=f"parts: {', '.join(PARTS)} (none = all; all of them take 1-4 minutes on 2 idle cores)",
    )
    parser.add_argument("parts", nargs="*", metavar="PART", help="parts to run, in this order (default: all)")
    parser.add_argument("--cpu", action="store_true", help="CPU time of the process instead of wall time")
    parser.add_argument(
        "--api",
        action="append",
        metavar="API[,API]",
        help=f"only these APIs in parts 1, 2, 6, 7 and 8 ({', '.join(ANSWERS)}; 'openai' is OpenAI Responses)",
    )
    parser.add_argument("--rounds", metavar="N", help=f"rounds in part 1 (default {ROUNDS}), for a noisy machine")
    args = parser.parse_args(argv)
    unknown_parts = [a for a in args.parts if a not in PARTS]
    if unknown_parts:
        parser.error(f"unknown part {', '.join(unknown_parts)}; the parts are {', '.join(PARTS)} (none = all)")
    if args.api is not None:
        wanted = [a.strip() for given in args.api for a in given.split(",")]
        unknown = [a for a in wanted if a not in ANSWERS]
        if unknown:
            parser.error(f"unknown API {', '.join(map(repr, unknown))}; the APIs are {', '.join(ANSWERS)}")
        args.api = list(dict.fromkeys(wanted))
    if args.rounds is not None:
        try:
            args.rounds = int(args.rounds)
        except ValueError:
            parser.error("--rounds takes a whole number of rounds, such as --rounds 21")
        if args.rounds < 1:
            parser.error("--rounds takes at least 1 round")
    return args


def main(argv: list[str] | None = None) -> None:
    global CLOCK, ROUNDS
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.cpu:
        CLOCK = time.process_time
    if args.api is not None:
        APIS[:] = args.api
    if args.rounds is not None:
        ROUNDS = args.rounds
    chosen = args.parts or list(PARTS)
    clock = "CPU time (--cpu)" if CLOCK is time.process_time else "wall time"
    rounds = f", {ROUNDS} round{'s' if ROUNDS != 1 else ''} in part 1" if "loop" in chosen else ""
    print(f"toolwire {toolwire.__version__}, Python {sys.version.split()[0]}, {clock}{rounds}")
    with warnings.catch_warnings():
        # The Anthropic SDK warns on every process's first request for a model in its
        # anthropic._data.DEPRECATED_MODELS ("The model 'claude-sonnet-4-5' is deprecated and will
        # reach end-of-life on ..."): the benchmark keeps that model id so its numbers stay
        # comparable with earlier runs, and the warning is not part of the output.
        warnings.filterwarnings("ignore", message=r"The model '.*' is deprecated", category=DeprecationWarning)
        for name in chosen:
            PARTS[name]()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("\ninterrupted: the parts finished above stand, the one running was not measured", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # the output's reader left (``| head``): nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
