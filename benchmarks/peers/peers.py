"""Peer libraries in toolwire's 2-turn loop benchmark: pydantic-ai, LiteLLM and any-llm.

    uv run --project benchmarks/peers python benchmarks/peers/peers.py           # ~1 min idle, ~3 loaded
    uv run --project benchmarks/peers python benchmarks/peers/peers.py --cpu     # CPU time (a loaded machine)
    uv run --project benchmarks/peers python benchmarks/peers/peers.py --api anthropic --rounds 3

The same loop as part 1 of ``benchmarks/suite.py`` (its canned vendor answers, its tool and its
bare SDK loops are imported from there): the model calls the tool ``lookup``, the harness runs it,
the model answers "done". Each library is driven as its documentation shows a user, with its
client built once and reused across loops:

- **pydantic-ai**: ``Agent(model, tools=[lookup])``, ``await agent.run("go")`` / ``agent.run_sync("go")``,
  ``result.output``; the model classes ``OpenAIChatModel`` / ``AnthropicModel`` / ``GoogleModel`` on
  their providers' ``http_client``.
- **LiteLLM**: the hand-written loop of its function-calling guide over ``litellm.acompletion()`` /
  ``litellm.completion()`` with OpenAI-format tools and messages; OpenAI over
  ``litellm.aclient_session`` / ``litellm.client_session``, Anthropic and Gemini over LiteLLM's own
  HTTP handler passed as ``client=``.
- **any-llm**: ``AnyLLM.create(provider, ...)`` (its "production" way: one client reused), the same
  hand-written loop over ``llm.acompletion()`` / ``llm.completion()`` with the Python function as the tool.

Only the network is replaced, in-process: each library's own HTTP client gets a mock transport
(``httpx2.MockTransport`` or ``httpx.MockTransport``, whichever HTTP library that client is) that
answers with the canned vendor JSON. Every loop of every row is checked, timed runs included: two
requests to the API's own endpoint, the second carrying the tool's result (so the library did run
the tool and send its result back), and, for the peers, "done" returned as the final text; a run
that does not pass fails the benchmark.

Two environments: the current releases of any-llm (anthropic<1) and of pydantic-ai's Google
support (google-genai<3) cannot share one with toolwire's adapters, so those rows run in a worker
process over a second environment (the ``pinned`` group of this folder's pyproject.toml, made by
``uv`` on first use in ``.venv-pinned``). Rounds interleave the rows of both processes: every row
is timed once per round, in a rotating order, and each ratio is the median of the per-round ratios
of that row to the bare SDK loop (and to toolwire) measured in the same round, with the spread
(lowest-highest). Not a test: nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PINNED_ENV = HERE / ".venv-pinned"
APIS = ("openai-chat", "anthropic", "gemini")
#: The distributions whose versions the header prints (those of the process that runs the row).
VERSIONS = ("toolwire", "pydantic-ai-slim", "litellm", "any-llm-sdk", "openai", "anthropic", "google-genai")
ROUNDS = 7
INNER = 10
CLOCK: Callable[[], float] = time.perf_counter

#: (library, API) -> the environment its row runs in; every other row runs in "main".
PINNED = {("any-llm", api) for api in APIS} | {("pydantic-ai", "gemini")}
LIBRARIES = ("pydantic-ai", "litellm", "any-llm")
#: The endpoint each API's requests must reach (a library that called another API fails the check).
ENDPOINTS = {"openai-chat": "/chat/completions", "anthropic": "/v1/messages", "gemini": ":generateContent"}
#: What the tool returns for the canned call ``lookup(q="step 1")``: the second request carries it.
RESULT = b"result for step 1 (1)"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="peers.py",
        description=(
            "toolwire's 2-turn tool loop against pydantic-ai, LiteLLM and any-llm, as ratios to the bare "
            "vendor SDK loop and to toolwire, on OpenAI Chat, Anthropic and Gemini. Run it with "
            "`uv run --project benchmarks/peers python benchmarks/peers/peers.py` (that installs the peers "
            "into this folder's own environments, not the project's)."
        ),
    )
    p.add_argument("--cpu", action="store_true", help="time with the process's CPU clock instead of wall time")
    p.add_argument("--rounds", type=int, default=ROUNDS, help=f"interleaved rounds (default {ROUNDS})")
    p.add_argument("--inner", type=int, default=INNER, help=f"loops per timing (default {INNER})")
    p.add_argument(
        "--api", default=",".join(APIS), help=f"comma-separated APIs (default: {','.join(APIS)})", metavar="API[,API]"
    )
    p.add_argument(
        "--no-pinned",
        action="store_true",
        help="skip the rows of the second environment (any-llm; pydantic-ai on Gemini)",
    )
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # the second environment's process
    args = p.parse_args(argv)
    args.apis = [a.strip() for a in args.api.split(",") if a.strip()]
    unknown = [a for a in args.apis if a not in APIS]
    if unknown:
        p.error(f"unknown API {', '.join(unknown)}; the APIs are {', '.join(APIS)}")
    if args.rounds < 1 or args.inner < 1:
        p.error("--rounds and --inner must be at least 1")
    return args


# -- the canned vendor, checked ------------------------------------------------------------------


def _suite() -> Any:
    if str(HERE.parent) not in sys.path:
        sys.path.insert(0, str(HERE.parent))
    import suite  # benchmarks/suite.py: canned answers, the tool, the bare SDK and toolwire loops

    return suite


class CheckedCanned:
    """The canned vendor of ``benchmarks/suite.py`` for one client, answering over ``httpx2`` or
    ``httpx``, that also records what a loop sent: how many requests, whether each reached the
    API's endpoint, and whether one carried the tool's result. :meth:`check` after each loop."""

    def __init__(self, api: str, *, stream: bool = False) -> None:
        if stream:
            raise ValueError("the peer benchmark measures non-streamed loops only")
        import httpx2

        self.api, self.n, self.turns = api, 0, 2
        self.wrong_endpoint: list[str] = []
        self.results_sent = 0
        self._answer = _suite().ANSWERS[api]
        self._httpx2 = httpx2
        self.transport = httpx2.MockTransport(self._handle2)

    @property
    def httpx_transport(self) -> Any:
        """The same vendor as an ``httpx.MockTransport`` (for clients built on ``httpx``)."""
        import httpx

        self._httpx = httpx
        return httpx.MockTransport(self._handle1)

    def reset(self, turns: int) -> None:
        self.n, self.turns, self.results_sent = 0, turns, 0
        self.wrong_endpoint.clear()

    def _body(self, path: str, content: bytes) -> str:
        self.n += 1
        if not path.endswith(ENDPOINTS[self.api]):
            self.wrong_endpoint.append(path)
        if RESULT in content:
            self.results_sent += 1
        return json.dumps(self._answer(self.n, self.n >= self.turns))

    def _handle2(self, request: Any) -> Any:
        text = self._body(request.url.path, request.content)
        return self._httpx2.Response(200, headers={"content-type": "application/json"}, text=text)

    def _handle1(self, request: Any) -> Any:
        text = self._body(request.url.path, request.content)
        return self._httpx.Response(200, headers={"content-type": "application/json"}, text=text)

    def check(self, label: str, text: object = "done") -> None:
        """Raise unless the loop just run made 2 requests to the endpoint, the second with the
        tool's result, and (``text``) returned "done"."""
        problems = []
        if self.n != 2:
            problems.append(f"{self.n} requests instead of 2")
        if self.wrong_endpoint:
            problems.append(f"requests to {self.wrong_endpoint} (expected ...{ENDPOINTS[self.api]})")
        if self.results_sent != 1:
            problems.append(f"the tool's result {RESULT.decode()!r} sent {self.results_sent} times, not once")
        if text != "done":
            problems.append(f"final text {text!r}, not 'done'")
        if problems:
            raise AssertionError(f"{label} on {self.api}: " + "; ".join(problems))


# -- the rows ------------------------------------------------------------------------------------

#: A row: (is it timed as a sync call, one loop). The loop runs the 2-turn loop once and checks it.
Row = tuple[bool, Callable[[], Any]]


def _bare_rows(api: str) -> dict[str, Row]:
    """The bare SDK loops and toolwire's of ``benchmarks/suite.py``, over this file's checked canned
    vendor (part 1's REUSE: one client / model per row, built on first use)."""
    s = _suite()
    s.Canned = CheckedCanned  # the suite builds its canned vendors by this name
    s.REUSE = True
    kinds = {"bare": "bare", "bare sync": "bare-sync", "toolwire": "tw", "toolwire sync": "tw-sync"}

    def canned(row: str) -> CheckedCanned:
        return s._CLIENTS[(api, kinds[row])][0]

    async def bare() -> None:
        await s.BARE[api](2)
        canned("bare").check("bare SDK loop", "done")

    async def bare_sync() -> None:
        await s.BARE[api](2, sync=True)
        canned("bare sync").check("bare sync SDK loop", "done")

    async def tw() -> None:
        await s.tw_run(api, 2)
        canned("toolwire").check("toolwire run", "done")

    def tw_sync() -> None:
        s.tw_run_sync(api, 2)
        canned("toolwire sync").check("toolwire run_sync", "done")

    # the suite times its bare sync loop as a coroutine too (the sync client called inside it)
    return {
        "bare": (False, bare),
        "bare sync": (False, bare_sync),
        "toolwire": (False, tw),
        "toolwire sync": (True, tw_sync),
    }


def _pydantic_ai(api: str, sync: bool) -> Callable[[], Any]:
    import httpx2
    from pydantic_ai import Agent

    s = _suite()
    c = CheckedCanned(api)
    # pydantic-ai's providers take an httpx2 client (the timeout: its Google provider warns on httpx's default)
    http = httpx2.AsyncClient(transport=c.transport, timeout=600)
    if api == "openai-chat":
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        model: Any = OpenAIChatModel(s.MODELS[api], provider=OpenAIProvider(api_key="k", http_client=http))
    elif api == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        model = AnthropicModel(s.MODELS[api], provider=AnthropicProvider(api_key="k", http_client=http))
    else:
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        model = GoogleModel(s.MODELS[api], provider=GoogleProvider(api_key="k", http_client=http))
    # Anthropic: the bare loop's max_tokens (1024). Left unset, pydantic-ai sends the model's maximum
    # output (64000 for this model) and, over the SDK's non-streaming limit for it, streams the request.
    settings: Any = {"max_tokens": 1024} if api == "anthropic" else None
    agent = Agent(model, tools=[s.lookup_fn], model_settings=settings)
    label = "pydantic-ai " + ("Agent.run_sync" if sync else "Agent.run")

    if sync:

        def loop_sync() -> None:
            c.reset(2)
            c.check(label, agent.run_sync("go").output)

        return loop_sync

    async def loop() -> None:
        c.reset(2)
        c.check(label, (await agent.run("go")).output)

    return loop


LITELLM_MODELS = {
    "openai-chat": "openai/gpt-4.1",
    "anthropic": "anthropic/claude-sonnet-4-5",
    "gemini": "gemini/gemini-2.5-flash",
}


def _openai_tools() -> list[dict]:
    s = _suite()
    return [
        {
            "type": "function",
            "function": {"name": "lookup", "description": s.lookup.model_description(), "parameters": s.LOOKUP_SCHEMA},
        }
    ]


def _litellm(api: str, sync: bool) -> Callable[[], Any]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # its model list from the package, not the network
    import httpx
    import litellm
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, HTTPHandler

    s = _suite()
    c = CheckedCanned(api)
    tools = _openai_tools()
    extra: dict[str, Any] = {}
    if api == "openai-chat":  # LiteLLM's OpenAI path builds the OpenAI SDK client on these sessions
        if sync:
            litellm.client_session = httpx.Client(transport=c.httpx_transport)
        else:
            litellm.aclient_session = httpx.AsyncClient(transport=c.httpx_transport)
    elif sync:
        extra["client"] = HTTPHandler(client=httpx.Client(transport=c.httpx_transport))
    else:
        extra["client"] = AsyncHTTPHandler(transport=c.httpx_transport)
    model = LITELLM_MODELS[api]
    label = "litellm " + ("completion" if sync else "acompletion")

    def answer(messages: list, msg: Any) -> bool:
        """Append the model's message and the tool results (the guide's loop); False when it answered."""
        if not msg.tool_calls:
            return False
        messages.append(msg)
        for tc in msg.tool_calls:
            result = s.lookup_fn(**json.loads(tc.function.arguments))
            messages.append({"tool_call_id": tc.id, "role": "tool", "name": tc.function.name, "content": result})
        return True

    if sync:

        def loop_sync() -> None:
            c.reset(2)
            messages: list = [{"role": "user", "content": "go"}]
            while True:
                r = litellm.completion(model=model, messages=messages, tools=tools, api_key="k", **extra)
                if not answer(messages, r.choices[0].message):
                    break
            c.check(label, r.choices[0].message.content)

        return loop_sync

    async def loop() -> None:
        c.reset(2)
        messages: list = [{"role": "user", "content": "go"}]
        while True:
            r = await litellm.acompletion(model=model, messages=messages, tools=tools, api_key="k", **extra)
            if not answer(messages, r.choices[0].message):
                break
        c.check(label, r.choices[0].message.content)

    return loop


ANY_LLM_PROVIDERS = {"openai-chat": "openai", "anthropic": "anthropic", "gemini": "gemini"}


def _any_llm(api: str, sync: bool) -> Callable[[], Any]:
    import httpx2
    from any_llm import AnyLLM

    s = _suite()
    c = CheckedCanned(api)
    if api == "openai-chat":  # the OpenAI SDK (3.x) is built on httpx2
        client_args: dict[str, Any] = {"http_client": httpx2.AsyncClient(transport=c.transport)}
    elif api == "anthropic":  # any-llm pins the Anthropic SDK 0.x, built on httpx
        import httpx

        client_args = {"http_client": httpx.AsyncClient(transport=c.httpx_transport)}
    else:
        from google.genai import types

        client_args = {"http_options": types.HttpOptions(httpx_async_client=httpx2.AsyncClient(transport=c.transport))}
    llm = AnyLLM.create(ANY_LLM_PROVIDERS[api], api_key="k", **client_args)
    model = s.MODELS[api]
    label = "any-llm " + ("completion" if sync else "acompletion")

    def answer(messages: list, msg: Any) -> bool:
        if not msg.tool_calls:
            return False
        messages.append(msg)
        for tc in msg.tool_calls:
            result = s.lookup_fn(**json.loads(tc.function.arguments))
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": result})
        return True

    if sync:

        def loop_sync() -> None:
            c.reset(2)
            messages: list = [{"role": "user", "content": "go"}]
            while True:
                r = llm.completion(model=model, messages=messages, tools=[s.lookup_fn])
                if not answer(messages, r.choices[0].message):
                    break
            c.check(label, r.choices[0].message.content)

        return loop_sync

    async def loop() -> None:
        c.reset(2)
        messages: list = [{"role": "user", "content": "go"}]
        while True:
            r = await llm.acompletion(model=model, messages=messages, tools=[s.lookup_fn])
            if not answer(messages, r.choices[0].message):
                break
        c.check(label, r.choices[0].message.content)

    return loop


PEERS = {"pydantic-ai": _pydantic_ai, "litellm": _litellm, "any-llm": _any_llm}
#: How each peer row is labelled in the output (async, sync).
PEER_LABELS = {
    "pydantic-ai": ("pydantic-ai Agent.run", "pydantic-ai Agent.run_sync"),
    "litellm": ("LiteLLM acompletion loop", "LiteLLM completion loop"),
    "any-llm": ("any-llm acompletion loop", "any-llm completion loop"),
}


def row_names(api: str, env: str) -> list[str]:
    """The rows of ``api`` that run in ``env`` ("main" or "pinned")."""
    names = ["bare", "bare sync", "toolwire", "toolwire sync"] if env == "main" else []
    for lib in LIBRARIES:
        if ((lib, api) in PINNED) == (env == "pinned"):
            names += [lib, lib + " sync"]
    return names


def make_row(api: str, name: str, rows: dict[tuple[str, str], Row]) -> Row:
    key = (api, name)
    if key not in rows:
        if name in ("bare", "bare sync", "toolwire", "toolwire sync"):
            for n, row in _bare_rows(api).items():
                rows[(api, n)] = row
        else:
            lib, _, sync = name.partition(" ")
            rows[key] = (bool(sync), PEERS[lib](api, bool(sync)))
    return rows[key]


def time_row(row: Row, inner: int) -> float:
    """Seconds per loop over ``inner`` loops (sync rows called directly; async ones in one asyncio.run)."""
    sync, fn = row
    if sync:
        start = CLOCK()
        for _ in range(inner):
            fn()
        return (CLOCK() - start) / inner

    async def go() -> float:
        start = CLOCK()
        for _ in range(inner):
            await fn()  # type: ignore[misc]
        return (CLOCK() - start) / inner

    return asyncio.run(go())


def versions() -> dict[str, str]:
    out = {}
    for dist in VERSIONS:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


# -- the second environment's process ------------------------------------------------------------


def worker() -> None:
    """Serve the pinned rows over stdin/stdout, one JSON command per line: ``{"rows": api}`` ->
    the row names; ``{"prepare": [api, ...]}`` -> every row made (imports, clients);
    ``{"time": [api, name, inner]}`` -> seconds per loop; ``{"versions": true}``."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # a library's print must not reach the protocol stream
    rows: dict[tuple[str, str], Row] = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if "rows" in cmd:
                reply: Any = row_names(cmd["rows"], "pinned")
            elif "prepare" in cmd:  # imports and clients, while the coordinator makes its own
                reply = [
                    make_row(api, name, rows) and name for api in cmd["prepare"] for name in row_names(api, "pinned")
                ]
            elif "versions" in cmd:
                reply = versions()
            else:
                api, name, inner = cmd["time"]
                reply = time_row(make_row(api, name, rows), inner)
            out.write(json.dumps({"ok": reply}) + "\n")
        except BaseException as e:  # reported to the coordinator, which stops the run
            traceback.print_exc()  # to stderr, which the coordinator's terminal shows
            out.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")


class Worker:
    """The coordinator's handle on the worker process of the pinned environment."""

    def __init__(self, cpu: bool) -> None:
        uv = os.environ.get("UV") or shutil.which("uv")
        if not uv:
            raise SystemExit("peers.py runs its second environment with uv; run it with `uv run` (see --help)")
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")}
        env["UV_PROJECT_ENVIRONMENT"] = str(PINNED_ENV)
        cmd = [uv, "run", "--project", str(HERE), "--no-default-groups", "--group", "pinned"]
        cmd += ["python", str(Path(__file__).resolve()), "--worker"] + (["--cpu"] if cpu else [])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def ask(self, **cmd: Any) -> Any:
        self.send(**cmd)
        return self.receive()

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> Any:
        assert self.proc.stdout
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the pinned environment's worker exited (code {self.proc.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise SystemExit(f"pinned environment: {reply['error']}")
        return reply["ok"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- the coordinator -----------------------------------------------------------------------------


def _line(label: str, mine: list[float], base: list[float]) -> str:
    ratios = [a / b for a, b in zip(mine, base)]
    return (
        f"  {label:<52} {statistics.median(mine) * 1000:8.2f} ms  vs {statistics.median(base) * 1000:7.2f} ms"
        f"  ratio {statistics.median(ratios):5.2f}x  ({min(ratios):.2f}-{max(ratios):.2f})"
    )


def measure(api: str, args: argparse.Namespace, rows: dict, pinned: Worker | None) -> dict[str, list[float]]:
    """Every row of ``api`` timed once per round, rotating the order; a warm-up loop first."""
    where = {n: "main" for n in row_names(api, "main")}
    if pinned is not None:
        where.update({n: "pinned" for n in pinned.ask(rows=api)})

    def timed(name: str, inner: int) -> float:
        if where[name] == "pinned":
            assert pinned is not None
            return pinned.ask(time=[api, name, inner])
        return time_row(make_row(api, name, rows), inner)

    for name in where:
        timed(name, 2)  # warm-up: imports, clients, caches (and the first check of every row)
    names = list(where)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.rounds):
        shift = r * 3 % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(timed(name, args.inner))
    return times


def report(api: str, times: dict[str, list[float]]) -> None:
    print(f" {api}")
    print(_line("toolwire run / bare SDK loop", times["toolwire"], times["bare"]))
    print(_line("toolwire run_sync / bare sync SDK loop", times["toolwire sync"], times["bare sync"]))
    for lib in LIBRARIES:
        for sync, label in zip((False, True), PEER_LABELS[lib]):
            name = lib + (" sync" if sync else "")
            if name not in times:
                continue
            bare, tw = ("bare sync", "toolwire sync") if sync else ("bare", "toolwire")
            print(_line(f"{label} / bare {'sync ' if sync else ''}SDK loop", times[name], times[bare]))
            print(_line(f"{label} / toolwire {'run_sync' if sync else 'run'}", times[name], times[tw]))


def main(argv: list[str] | None = None) -> None:
    global CLOCK
    args = parse_args(argv)
    if args.cpu:
        CLOCK = time.process_time
    warnings.filterwarnings("ignore", message=r"The model '.*' is deprecated", category=DeprecationWarning)
    # LiteLLM's own serialization of the OpenAI SDK's tool-call types, on every call it makes
    warnings.filterwarnings("ignore", message=r"Pydantic serializer warnings", category=UserWarning)
    if args.worker:
        worker()
        return
    started = time.perf_counter()
    pinned = None if args.no_pinned else Worker(args.cpu)
    try:
        if pinned:
            pinned.send(prepare=args.apis)
        rows: dict = {}
        for api in args.apis:  # the libraries imported and the clients built in both processes at once
            for name in row_names(api, "main"):
                make_row(api, name, rows)
        if pinned:
            pinned.receive()
        here = versions()
        there = pinned.ask(versions=True) if pinned else {}
        clock = "CPU time (--cpu)" if args.cpu else "wall time"
        print(f"Python {sys.version.split()[0]}, {args.rounds} rounds of {args.inner} loops, {clock}")
        print("  main environment:   " + ", ".join(f"{k} {v}" for k, v in here.items()))
        if pinned:
            print("  pinned environment: " + ", ".join(f"{k} {v}" for k, v in there.items()))
        print(
            "2-turn loop, ms per loop (median over rounds) and the median of the per-round ratios (spread); "
            "clients built once"
        )
        for api in args.apis:
            report(api, measure(api, args, rows, pinned))
        print(f"took {time.perf_counter() - started:.0f} s (wall), environments' start and imports included")
    finally:
        if pinned:
            pinned.close()


if __name__ == "__main__":
    main()
