"""The shared loop: send → the model asks for tools → run them → feed results back → repeat.

``await toolwire.run(model, prompt, tools=...)`` (async) and ``toolwire.run_sync(...)``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from .errors import ConfigurationError, MaxTurnsExceeded, ToolDefinitionError, UsageLimitExceeded
from .executor import ToolExecutor, ToolRun
from .adapter import Model, normalize_tool_choice
from .tools import Tool
from .turns import answer_unanswered, settle_calls
from .types import Conversation, ImagePart, Message, Part, Response, TextPart, Usage

__all__ = ["run", "run_sync", "RunResult", "Turn", "Limits", "ToolRun"]


@dataclass
class Limits:
    """Bounds on one run. ``None`` means unbounded.

    - ``max_tool_calls``: tool calls run in the whole run (calls beyond it are answered with an
      ``is_error`` result and not run);
    - ``max_input_tokens`` / ``max_output_tokens`` / ``max_total_tokens``: summed ``Usage`` over
      the run's requests, in tokens, checked after each response (``input_tokens`` is the
      vendor's own counter: Anthropic's leaves out cache reads and writes);
    - ``tool_timeout``: seconds one tool call may run when its ``Tool.timeout`` is unset.
    """

    max_tool_calls: int | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    tool_timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_tool_calls", "max_input_tokens", "max_output_tokens", "max_total_tokens"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ConfigurationError(f"Limits.{name} must be a whole number ≥ 0 or None, got {value!r}")
        t = self.tool_timeout
        if t is not None and (not isinstance(t, (int, float)) or isinstance(t, bool) or not t > 0):
            raise ConfigurationError(f"Limits.tool_timeout must be a number of seconds > 0 or None, got {t!r}")

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("max_tool_calls", "max_input_tokens", "max_output_tokens", "max_total_tokens", "tool_timeout")}


@dataclass
class Turn:
    """One model request and what followed: the ``response``, its ``usage`` (tokens) and the
    ``tool_runs`` that answered its tool calls (empty on the final turn)."""

    number: int
    response: Response
    tool_runs: list[ToolRun] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        return self.response.usage

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "response": self.response.to_dict(), "tool_runs": [r.to_dict() for r in self.tool_runs]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Turn:
        return cls(d["number"], Response.from_dict(d["response"]), [ToolRun.from_dict(r) for r in d.get("tool_runs", [])])


@dataclass
class RunResult:
    """What a run produced.

    - ``text``: the final response's visible text; ``stop_reason``: its canonical stop reason
      (or the limit that stopped the run: ``"max_turns"``, ``"usage_limit"``);
    - ``conversation``: the whole conversation, valid for the vendor (every tool call answered),
      ready to be passed back to :func:`run` to continue;
    - ``turns``: per-turn responses, usage and tool runs; ``usage``: the totals (tokens);
    - ``tool_runs``: every tool call with its result and duration (seconds), in order;
    - ``tool_errors``: how many tool results were ``is_error``; ``model``: ``provider:model-id``.

    ``to_json()``/``from_json()`` round-trip exactly (``RunResult.from_json(r.to_json()) == r``).
    """

    text: str
    conversation: Conversation
    turns: list[Turn]
    stop_reason: str
    model: str
    run_id: str

    @property
    def usage(self) -> Usage:
        total = Usage()
        for t in self.turns:
            total = total + t.usage
        return total

    @property
    def tool_runs(self) -> list[ToolRun]:
        return [r for t in self.turns for r in t.tool_runs]

    @property
    def cost(self) -> Any:
        """What the run cost in US dollars (:class:`toolwire.pricing.RunCost`): per turn, in
        total, and attributed to each tool call; unpriced (never free) for models the price data
        does not know."""
        from .pricing import run_cost

        return run_cost(self)

    @property
    def tool_errors(self) -> int:
        return sum(1 for r in self.tool_runs if r.result.is_error)

    @property
    def response(self) -> Response | None:
        return self.turns[-1].response if self.turns else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "stop_reason": self.stop_reason,
            "model": self.model,
            "run_id": self.run_id,
            "usage": self.usage.to_dict(),
            "tool_errors": self.tool_errors,
            "turns": [t.to_dict() for t in self.turns],
            "conversation": self.conversation.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunResult:
        return cls(
            text=d["text"],
            conversation=Conversation.from_dict(d["conversation"]),
            turns=[Turn.from_dict(t) for t in d.get("turns", [])],
            stop_reason=d["stop_reason"],
            model=d["model"],
            run_id=d["run_id"],
        )

    def to_json(self, **kwargs: Any) -> str:
        """JSON text (literal UTF-8). Text holding a lone surrogate (e.g. half an emoji a model sent)
        cannot be UTF-8: then that text is written with ASCII escapes, which still round-trips."""
        text = json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(self.to_dict(), ensure_ascii=True, **kwargs)
        return text

    @classmethod
    def from_json(cls, text: str) -> RunResult:
        """Rebuild a saved run; raises ``ValueError`` naming what is wrong when ``text`` is not one."""
        try:
            return cls.from_dict(json.loads(text))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"not a saved toolwire RunResult: {type(exc).__name__}: {exc}") from None


def _as_tools(tools: Iterable[Any] | None) -> dict[str, Tool]:
    out: dict[str, Tool] = {}
    for t in tools or ():
        if not isinstance(t, Tool):
            if callable(t):
                t = Tool.from_function(t)
            else:
                raise ToolDefinitionError(f"tools must be Tool objects or typed functions, got {type(t).__name__}")
        if t.name in out:
            raise ToolDefinitionError(f"two tools are named {t.name!r}; tool names must be unique in a run")
        out[t.name] = t
    return out


def _prompt_message(prompt: Any) -> Message | None:
    if prompt is None:
        return None
    if isinstance(prompt, Message):
        return prompt
    if isinstance(prompt, str):
        # empty text (or only white space) is no prompt: vendors refuse empty text blocks
        return Message.user(prompt) if prompt.strip() else None
    if isinstance(prompt, (TextPart, ImagePart)):
        return Message("user", [prompt])
    if isinstance(prompt, (list, tuple)):
        parts: list[Part] = []
        for p in prompt:
            if isinstance(p, str):
                parts.append(TextPart(p))
            elif isinstance(p, (TextPart, ImagePart)):
                parts.append(p)
            else:
                raise ConfigurationError(f"a prompt list may hold text, TextPart or ImagePart items, got {type(p).__name__}")
        return Message("user", parts)
    raise ConfigurationError(f"prompt must be text, a Message or a list of parts, got {type(prompt).__name__}")


def _usage_exceeded(limits: Limits | None, usage: Usage) -> str | None:
    if limits is None:
        return None
    if limits.max_input_tokens is not None and (usage.input_tokens or 0) > limits.max_input_tokens:
        return f"input tokens {usage.input_tokens} exceeded the limit of {limits.max_input_tokens}"
    if limits.max_output_tokens is not None and (usage.output_tokens or 0) > limits.max_output_tokens:
        return f"output tokens {usage.output_tokens} exceeded the limit of {limits.max_output_tokens}"
    if limits.max_total_tokens is not None and usage.total_tokens > limits.max_total_tokens:
        return f"total tokens {usage.total_tokens} exceeded the limit of {limits.max_total_tokens}"
    return None


async def run(
    model: Any,
    prompt: Any = None,
    *,
    tools: Sequence[Any] | None = None,
    instructions: str | None = None,
    tool_choice: Any = None,
    max_turns: int = 20,
    limits: Limits | None = None,
    conversation: Conversation | None = None,
    state: dict[str, Any] | None = None,
    on_turn: Callable[[Turn], Any] | None = None,
    run_id: str | None = None,
) -> RunResult:
    """Run the tool loop until the model answers without asking for a tool.

    - ``model``: ``"provider:model-id"``, a config mapping, or a :class:`~toolwire.adapter.Model`
      (see :func:`toolwire.model`);
    - ``prompt``: the user's text (or a :class:`Message` / list of parts) appended to
      ``conversation`` (a new one when ``None``, with ``instructions`` as its system prompt);
      empty or white-space text is no prompt, and with no conversation either the run raises
      :class:`~toolwire.errors.ConfigurationError` before any request (on every API);
    - ``tools``: :class:`Tool` objects or typed functions (wrapped with ``@tool``);
    - ``tool_choice``: ``"auto"``, ``"required"``, ``"none"`` or ``{"type": "tool", "name": N}``
      for the *first* request; later requests use ``"auto"`` when it was ``required`` or a named
      tool (otherwise the model could never stop);
    - ``max_turns``: the most model requests in this run (≥ 1);
    - ``limits``: :class:`Limits`; ``state``: a dict every :class:`~toolwire.context.ToolContext`
      shares; ``on_turn``: called (awaited if async) after each turn, e.g. to print it.

    Returns a :class:`RunResult`. Raises :class:`~toolwire.errors.MaxTurnsExceeded` or
    :class:`~toolwire.errors.UsageLimitExceeded` (each carrying the partial ``result`` whose
    conversation is still valid: unrun calls are answered with ``is_error`` results), and
    :class:`~toolwire.errors.ProviderError` when the vendor call fails.
    """
    from .registry import model as resolve_model

    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise ConfigurationError(f"max_turns must be a whole number ≥ 1, got {max_turns!r}")
    if isinstance(limits, dict):
        limits = Limits(**limits)
    elif limits is not None and not isinstance(limits, Limits):
        raise ConfigurationError(f"limits must be a toolwire.Limits (or a dict of its fields), got {type(limits).__name__}")
    m: Model = resolve_model(model)
    tool_map = _as_tools(tools)
    choice = normalize_tool_choice(tool_choice)
    if isinstance(choice, dict) and choice["name"] not in tool_map:
        raise ConfigurationError(f"tool_choice names {choice['name']!r}, which is not among the tools: {sorted(tool_map)}")
    # a copy: continuing a run never changes the conversation of the run it continues
    conv = Conversation(list(conversation.messages), conversation.instructions) if conversation is not None else Conversation(instructions=instructions)
    if conversation is not None and instructions is not None:
        conv.instructions = instructions
    # a call the supplied history left unanswered is answered "not answered" (same on every API)
    conv.messages, _ = answer_unanswered(conv.messages)
    msg = _prompt_message(prompt)
    if msg is not None:
        conv.append(msg)
    if not conv.messages:  # same on every API: no request without a message
        raise ConfigurationError("nothing to send: the prompt is empty and there is no conversation; "
                                 "pass a prompt (non-empty text, a Message or parts) or a conversation to continue")
    rid = run_id or uuid.uuid4().hex
    limits = limits or Limits()
    executor = ToolExecutor(tool_map, run_id=rid, default_timeout=limits.tool_timeout, state=state)
    turns: list[Turn] = []
    calls_run = 0

    def result(stop: str) -> RunResult:
        # the final answer: the last response's text, preceded by the text of the responses that
        # paused just before it (pause_turn continues the same answer)
        pieces: list[str] = []
        for t in reversed(turns):
            if pieces and not (t.response.stop_reason == "pause_turn" and not t.tool_runs):
                break
            pieces.append(t.response.text)
        return RunResult("".join(reversed(pieces)), conv, turns, stop, m.name, rid)

    for number in range(1, max_turns + 1):
        request = m.build_request(conv.messages, instructions=conv.instructions, tools=list(tool_map.values()), tool_choice=choice)
        response = await m.send(request)
        if response.usage.requests == 0:
            response.usage.requests = 1
        _unique_synthesized_ids(response, conv)
        settle_calls(response, m.profile)  # cut-off calls and failed turns: answered, never run
        conv.append(response.to_message())
        turn = Turn(number, response)
        turns.append(turn)
        calls = response.tool_calls
        total = sum((t.usage for t in turns), Usage())
        over = _usage_exceeded(limits, total)
        if over is not None and (calls or response.stop_reason == "pause_turn"):
            # a finished answer is returned even past a limit; the limit stops further requests
            if calls:
                turn.tool_runs = [executor.refuse(c, number, f"Not run: the run stopped because {over}.") for c in calls]
                conv.append(Message("user", [r.result for r in turn.tool_runs]))
            await _notify(on_turn, turn)
            raise UsageLimitExceeded(f"usage limit reached: {over}", result("usage_limit"))
        if not calls:
            await _notify(on_turn, turn)
            if response.stop_reason == "pause_turn":
                if number < max_turns:
                    continue  # server-side tool loop paused: send the conversation again as is
                raise MaxTurnsExceeded(
                    f"the model paused its turn (pause_turn) after {max_turns} requests (max_turns={max_turns})", result("max_turns")
                )
            return result(response.stop_reason)
        if number == max_turns:
            turn.tool_runs = [
                executor.refuse(c, number, f"Not run: the run reached its limit of {max_turns} model requests (max_turns).")
                for c in calls
            ]
            conv.append(Message("user", [r.result for r in turn.tool_runs]))
            await _notify(on_turn, turn)
            raise MaxTurnsExceeded(
                f"the model still asked for tools after {max_turns} requests (max_turns={max_turns})", result("max_turns")
            )
        allowed = len(calls)
        if limits.max_tool_calls is not None:
            allowed = max(0, min(allowed, limits.max_tool_calls - calls_run))
        runs = await executor.run_calls(calls[:allowed], number)
        refused = [
            executor.refuse(c, number, f"Not run: the run reached its limit of {limits.max_tool_calls} tool calls (max_tool_calls).")
            for c in calls[allowed:]
        ]
        calls_run += allowed
        turn.tool_runs = runs + refused
        conv.append(Message("user", [r.result for r in turn.tool_runs]))
        await _notify(on_turn, turn)
        if refused:
            raise UsageLimitExceeded(
                f"tool call limit reached: {limits.max_tool_calls} tool calls (max_tool_calls)", result("usage_limit")
            )
        if choice == "required" or isinstance(choice, dict):
            choice = "auto"
    raise AssertionError("unreachable")  # pragma: no cover


def _unique_synthesized_ids(response: Response, conv: Conversation) -> None:
    """Re-number an id toolwire synthesized (never sent to the vendor) that collides with an id
    already in the conversation or in the same response, so every result pairs with one call."""
    seen = {c.id for m in conv.messages for c in m.tool_calls}
    in_response: set[str] = set()
    for call in response.tool_calls:
        if call.id_synthesized and call.id in seen:
            n = 2
            while f"{call.id}-{n}" in seen:
                n += 1
            call.id = f"{call.id}-{n}"
        elif call.id in in_response and call.invalid is None:
            # the vendor repeated an id inside one response: the later call cannot be paired safely
            call.invalid = f"duplicate tool call id {call.id} in one response"
        elif call.id in seen and call.id not in in_response:
            # an id already used in an earlier turn (servers that number calls call_0… per
            # response): re-number it so its result pairs with it; the vendor's id is kept
            original = call.id
            n = 2
            while f"{original}_{n}" in seen:
                n += 1
            call.id = f"{original}_{n}"
            call.provider_data.setdefault("toolwire", {})["vendor_id"] = original
        seen.add(call.id)
        in_response.add(call.id)


async def _notify(callback: Callable[[Turn], Any] | None, turn: Turn) -> None:
    if callback is None:
        return
    value = callback(turn)
    if inspect.isawaitable(value):
        await value


def run_sync(model: Any, prompt: Any = None, **kwargs: Any) -> RunResult:
    """:func:`run` for synchronous code (starts an event loop; not for use inside one)."""
    try:
        asyncio.get_running_loop()
        inside_loop = True
    except RuntimeError:
        inside_loop = False
    if inside_loop:
        raise RuntimeError("run_sync() was called inside a running event loop; use 'await toolwire.run(...)' there")
    return asyncio.run(run(model, prompt, **kwargs))  # outside the except: errors are not chained to it
