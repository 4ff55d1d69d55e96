"""The shared loop: send → the model asks for tools → run them → feed results back → repeat.

The loop is a stream of events (:mod:`toolwire.events`): ``toolwire.run_stream(model, prompt,
...)`` yields them as the run goes and ``await toolwire.run(...)`` is that stream consumed to its
end, so streaming, approval, hooks, the CLI's live view and ``run()`` are all the same loop.
``toolwire.run_sync(...)`` / ``toolwire.run_stream_sync(...)`` are the synchronous facades.
The run's state (:class:`~toolwire.runstate.RunState`) is on the stream as ``.state``.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import os as _os
from dataclasses import dataclass, fields, replace
from os import urandom as _urandom
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Generator, Iterable, Iterator, Mapping, Sequence

from . import stream as _wire
from ._derived import tool_for_function
from ._words import plural
from .adapter import Model, normalize_tool_choice
from .errors import (
    AdapterWarning,
    ConfigurationError,
    ContextWindowExceeded,
    MaxTurnsExceeded,
    ToolDefinitionError,
    ToolwireError,
    UsageLimitExceeded,
)
from .events import (
    ProviderToolCalled,
    ProviderToolResult,
    ReasoningDelta,
    ResponseFinished,
    RetryScheduled,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallPending,
    ToolCallReady,
    ToolCallStarted,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from .executor import DEFAULT_MAX_CONCURRENT_TOOLS, Ready, ToolExecutor, ToolRun, error_result, to_result_content
from .retry import RetryNotice
from .retry import _listener as _retry_listener
from .runstate import (
    PENDING_STOP,
    RUN_STATUSES,
    Approved,
    Denied,
    PendingCall,
    RunResult,
    RunState,
    Turn,
    status_problem,
    tool_run_turn_problem,
    turn_numbering_problem,
)
from .tools import Tool, timeout_problem
from .turns import answer_unanswered, context_window_full, settle_calls
from .types import (
    STOP_REASONS,
    Conversation,
    DocumentPart,
    ImagePart,
    Message,
    Part,
    ProviderToolPart,
    ReasoningPart,
    Response,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
    _shown,
    user_parts,
)
from .wire import reissue_shared_ids

if TYPE_CHECKING:
    from decimal import Decimal  # imported when a cost limit is checked

__all__ = [
    "run",
    "run_sync",
    "run_stream",
    "run_stream_sync",
    "RunStream",
    "SyncRunStream",
    "RunResult",
    "RunState",
    "Turn",
    "Limits",
    "ToolRun",
    "PendingCall",
    "Approved",
    "Denied",
]


@dataclass
class Limits:
    """Bounds on one run. ``None`` means unbounded.

    - ``max_tool_calls``: tool calls run in the whole run (calls beyond it are answered with an
      ``is_error`` result and not run, and the run stops with ``UsageLimitExceeded``);
    - ``max_calls_per_tool``: ``{tool name: most calls in the run}``; a call past its tool's
      limit is answered with an ``is_error`` result naming the limit and the run goes on
      (a tool's ``meta["max_calls"]`` sets the same for that tool);
    - ``max_input_tokens`` / ``max_output_tokens`` / ``max_total_tokens``: summed ``Usage`` over
      the run's requests, in tokens, checked after each response (``input_tokens`` counts every
      input token, cache reads and writes included, on every API: see :class:`~toolwire.types.Usage`).
      A response without the count a limit needs (a server, or an offline ``test``/``scripted``
      answer, that reports no usage) stops the run with ``UsageLimitExceeded``: an unknown count
      is never taken as 0;
    - ``tool_timeout``: seconds one tool call may run when its ``Tool.timeout`` is unset;
    - ``max_concurrent_tools``: tool functions running at the same time (default 16); the other
      calls of a response wait in call order and start as running ones finish;
    - ``max_cost_usd``: US dollars the run's requests may cost (priced with ``genai-prices``,
      see :mod:`toolwire.pricing`), checked after each response like the token limits. A model
      the price data does not know cannot be held to a cost limit: the run then stops with
      ``UsageLimitExceeded`` after the first unpriced response instead of running unpriced.
    """

    max_tool_calls: int | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    tool_timeout: float | None = None
    max_concurrent_tools: int = DEFAULT_MAX_CONCURRENT_TOOLS
    max_calls_per_tool: dict[str, int] | None = None
    max_cost_usd: float | Decimal | None = None

    def __post_init__(self) -> None:
        self.check_fields()
        if self.max_calls_per_tool is not None:  # a copy: the caller's mapping may change later
            self.max_calls_per_tool = dict(self.max_calls_per_tool)

    def check_fields(self) -> None:
        """Raise :class:`~toolwire.errors.ConfigurationError` naming the field, what it holds and
        what to write when a field has the wrong type or range: the token and call counts whole
        numbers ≥ 0 (``True`` is not a number here), ``max_cost_usd`` a finite ``int``, ``float``
        or ``Decimal`` ≥ 0, ``tool_timeout`` a number of seconds > 0, ``max_concurrent_tools`` a
        whole number ≥ 1, ``max_calls_per_tool`` a mapping of tool names to whole numbers ≥ 0
        (``None`` leaves a limit out, except for ``max_concurrent_tools``). Checked when the
        limits are made and again when a run starts (a field set after they were made)."""
        problem = _limits_problem(self)
        if problem is not None:
            raise ConfigurationError(problem)

    def to_dict(self) -> dict[str, Any]:
        """Every field by name, JSON-ready (``None`` where unbounded): counts and tokens as int,
        ``tool_timeout`` in seconds (a float; ``math.inf`` stays the float infinity, which Python's
        ``json`` writes as the bare word ``Infinity`` that strict JSON readers refuse: write it with
        ``allow_nan=False`` after :func:`toolwire.types.finite_json`, which gives the text
        ``"Infinity"``, read back by :meth:`from_dict`), ``max_calls_per_tool`` as a new dict of tool name to int,
        ``max_cost_usd`` in US dollars: an int or float as it is, a ``Decimal`` as its exact
        decimal string (``"0.10"``), as the cost reports write amounts. :meth:`from_dict` rebuilds
        the same limits (``Limits.from_dict(d) == limits``); ``Limits(**d)`` and ``run(limits=d)``
        take numbers only, so they rebuild limits whose ``max_cost_usd`` is not a ``Decimal``."""
        cost = self.max_cost_usd
        return {
            "max_tool_calls": self.max_tool_calls,
            "max_input_tokens": self.max_input_tokens,
            "max_output_tokens": self.max_output_tokens,
            "max_total_tokens": self.max_total_tokens,
            "tool_timeout": self.tool_timeout,
            "max_concurrent_tools": self.max_concurrent_tools,
            "max_calls_per_tool": None if self.max_calls_per_tool is None else dict(self.max_calls_per_tool),
            "max_cost_usd": cost if cost is None or isinstance(cost, (int, float)) else str(cost),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Limits:
        """Rebuild limits from :meth:`to_dict`'s output (JSON-loaded or not): the fields as the
        constructor takes them, and ``max_cost_usd`` also as a decimal string (``"0.10"``, read
        exactly as a ``Decimal``), ``tool_timeout`` also as the text ``"Infinity"`` (no limit, as
        strict JSON writes ``math.inf``). Every key is optional. Raises
        :class:`~toolwire.errors.ConfigurationError` when ``d`` is not an object, a key is not a
        field (naming the closest fields), ``max_cost_usd`` is text that is not a decimal number,
        or a field has the wrong type or range (as :meth:`check_fields` says)."""
        if not isinstance(d, Mapping):
            raise ConfigurationError(
                f"Limits.from_dict takes an object of Limits fields (what Limits.to_dict() writes), "
                f"got {type(d).__name__}"
            )
        kwargs: dict[str, Any] = {}
        for key, value in d.items():
            if not isinstance(key, str):
                raise ConfigurationError(f"Limits has no field {key!r}: the fields are named by text")
            kwargs[key] = value
        if kwargs.get("tool_timeout") == "Infinity":  # math.inf written as strict JSON
            kwargs["tool_timeout"] = float("inf")
        cost = kwargs.get("max_cost_usd")
        if isinstance(cost, str):
            from decimal import Decimal, InvalidOperation

            try:
                kwargs["max_cost_usd"] = Decimal(cost)
            except InvalidOperation:
                raise ConfigurationError(
                    "Limits.max_cost_usd must be a number of US dollars ≥ 0 (in a saved dict, a number or a "
                    f'decimal string such as "0.5") or null, got str {cost!r:.40}'
                ) from None
        return cls(**kwargs)


def _got(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _check_tool_meta(t: Tool) -> None:
    """A tool's flags (``meta["deferred"]``, ``["non_repeatable"]``, ``["blocking"]``,
    ``["validate_arguments"]``) and ``meta["requires_approval"]`` (``True``/``False``,
    a function of the call, or tool names) of another type raise :class:`ConfigurationError` when
    the run starts, naming the tool; ``"no"`` was read as true (deferred), and a wrong approval
    policy failed only when the tool was first called, mid-run."""
    example = t.name if t.name.isidentifier() else "tool"
    # the flags: read as true or false where they are used ("no" would be true)
    for key, write in (
        ("deferred", "True"),
        ("non_repeatable", "True"),
        ("blocking", "False"),
        ("validate_arguments", "False"),
    ):
        flag = t.meta.get(key)
        if flag is not None and not isinstance(flag, bool):
            raise ConfigurationError(
                f"tool {t.name!r}: meta[{key!r}] must be True, False or None, got {_got(flag)}; "
                f'write e.g. {example}.meta["{key}"] = {write}'
            )
    policy = t.meta.get("requires_approval")
    if policy is not None and not (isinstance(policy, (bool, set, frozenset, list, tuple)) or callable(policy)):
        raise ConfigurationError(
            f"tool {t.name!r}: meta['requires_approval'] must be True, False, None, a function of the "
            f"call returning true or a reason text, or a set of tool names, got {_got(policy)}; "
            f'write e.g. {example}.meta["requires_approval"] = True'
        )


def _whole_at_least(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _limits_problem(limits: Limits) -> str | None:
    """What is wrong with a field of ``limits`` (the message of :meth:`Limits.check_fields`), or ``None``."""
    cost = limits.max_cost_usd
    if cost is not None:
        from decimal import Decimal

        write = "write e.g. Limits(max_cost_usd=0.5)"
        if isinstance(cost, bool) or not isinstance(cost, (int, float, Decimal)):
            return (
                "Limits.max_cost_usd must be a number of US dollars ≥ 0 (an int, a float or a Decimal) or None, "
                f"got {_got(cost)}; {write}"
            )
        exact = cost if isinstance(cost, Decimal) else Decimal(str(cost)) if isinstance(cost, float) else Decimal(cost)
        if not exact.is_finite() or exact < 0:
            return f"Limits.max_cost_usd must be a number of US dollars ≥ 0 (finite) or None, got {cost!r}; {write}"
    for name, example in (
        ("max_tool_calls", 50),
        ("max_input_tokens", 200_000),
        ("max_output_tokens", 200_000),
        ("max_total_tokens", 200_000),
    ):
        value = getattr(limits, name)
        if value is not None and not _whole_at_least(value, 0):
            return f"Limits.{name} must be a whole number ≥ 0 or None, got {_got(value)}; write e.g. Limits({name}={example})"
    problem = timeout_problem(limits.tool_timeout)
    if problem is not None:
        return f"Limits.tool_timeout {problem}; write e.g. Limits(tool_timeout=30.0)"
    c = limits.max_concurrent_tools
    if not _whole_at_least(c, 1):
        return (
            f"Limits.max_concurrent_tools must be a whole number ≥ 1, got {_got(c)}; "
            f"write e.g. Limits(max_concurrent_tools={DEFAULT_MAX_CONCURRENT_TOOLS})"
        )
    per = limits.max_calls_per_tool
    if per is not None:
        write = 'write e.g. Limits(max_calls_per_tool={"web_search": 5})'
        if not isinstance(per, Mapping):
            return (
                f"Limits.max_calls_per_tool must map tool names to whole numbers ≥ 0, got {type(per).__name__}; {write}"
            )
        for k, v in per.items():
            if not isinstance(k, str):
                return (
                    "Limits.max_calls_per_tool must map tool names (text) to whole numbers ≥ 0, "
                    f"got the key {_got(k)}; {write}"
                )
            if not _whole_at_least(v, 0):
                return f"Limits.max_calls_per_tool[{k!r}] must be a whole number ≥ 0, got {_got(v)}; {write}"
    return None


def _limits_init_naming_fields(init: Callable[..., None]) -> Callable[..., None]:
    """``Limits.__init__`` raising :class:`~toolwire.errors.ConfigurationError` for a keyword that
    is not a field (``max_tokens=``), with the closest fields and all of them, where Python's own
    ``TypeError`` names neither. The dataclass stays as it is: its fields, ``replace``, equality,
    copying and pickling (which do not call ``__init__`` with other keywords) are unchanged."""
    import functools

    @functools.wraps(init)  # keeps the signature of the fields for help() and inspect
    def __init__(self: Limits, *args: Any, **kwargs: Any) -> None:
        names = [f.name for f in fields(Limits)]
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            raise ConfigurationError(_unknown_limits_message(unknown[0], names))
        init(self, *args, **kwargs)

    return __init__


def _unknown_limits_message(name: str, names: list[str]) -> str:
    from .design.suggest import did_you_mean

    line = f"Limits has no field {name!r}."
    hint = did_you_mean(name, names)
    if hint:
        line += f" {hint}"
    if name in ("max_tokens", "max_completion_tokens"):  # the vendors' per-response output bound
        line += (
            " The output tokens of one response are a model setting: "
            "toolwire.model('provider:model-id', max_tokens=1024); Limits bound the whole run."
        )
    return f"{line} Its fields: {', '.join(names)}."


Limits.__init__ = _limits_init_naming_fields(Limits.__init__)  # type: ignore[method-assign]

#: The limits of a run given none (read only by the loop, never changed).
_NO_LIMITS = Limits()
#: The running usage total of a run without token limits (never read, never changed).
_NO_USAGE = Usage()
#: How many responses in a row whose tool call the API could not parse are fed back to the model
#: (:meth:`toolwire.profile.Profile.unparsed_call_feedback`) before the run ends with stop reason
#: ``error``.
_UNPARSED_CALL_RETRIES = 2


def _ends_with_calls(response: Response, profile: Any) -> tuple[str, str, Any, str] | None:
    """For a response with tool calls that ends the run without running them, the arguments of
    ``_Loop._end_refusing`` after the calls (the text of their ``is_error`` results, the stop
    reason, the error class or ``None``, its message); ``None`` for a response whose calls go on
    as usual.

    - A refusal (the model declined, or its output was filtered): the run ends with it, as a
      refusal without calls does.
    - A response that filled the context window (:meth:`~toolwire.profile.Profile.context_window_full`):
      another request would not fit; :class:`~toolwire.errors.ContextWindowExceeded`."""
    if response.stop_reason == "refusal":
        return (
            "Not run: the model's response ended as a refusal "
            f"(stop reason {response.vendor_stop_reason!r}), so its tool calls were not run.",
            "refusal",
            None,
            "",
        )
    if context_window_full(response, profile):
        return (
            "Not run: the response stopped because the conversation filled the model's context "
            "window, so the run stopped before running tools.",
            response.stop_reason,
            ContextWindowExceeded,
            f"the conversation filled the model's context window (stop reason "
            f"{response.vendor_stop_reason!r}) while the model was asking for tools; shorten or "
            "summarise result.conversation, then continue with run(model, conversation=...)",
        )
    return None


#: The user message the loop sends after an empty answer to tool results (:func:`_empty_after_results`):
#: Anthropic's documented last resort for "Empty responses with end_turn" is a continuation prompt,
#: a user message "Please continue"
#: (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
EMPTY_ANSWER_PROMPT = "Please continue."


def _empty_after_results(messages: Sequence[Message], response: Response) -> bool:
    """Whether ``response`` (the last of ``messages``) is an empty answer to tool results: it
    ended the turn (``end_turn``) with no text but white space, no tool call and no provider
    tool part (reasoning does not count), and the message before it holds tool results.

    Models do this: Claude ("Sometimes Claude returns an empty response (exactly 2-3 tokens with
    no content) with stop_reason: "end_turn". This typically happens ... particularly after tool
    results", https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons) and
    Gemini (``finishReason: STOP`` with no parts: BerriAI/litellm#24442, google/adk-js#344,
    AstrBotDevs/AstrBot#6735)."""
    if response.stop_reason != "end_turn" or len(messages) < 2:
        return False
    for p in response.parts:
        if type(p) is TextPart:
            if p.text.strip():
                return False
        elif type(p) is not ReasoningPart:
            return False
    before = messages[-2]
    return before.role == "user" and any(type(p) is ToolResult for p in before.parts)


def _unparsed_call_feedback(profile: Any, response: Response) -> str | None:
    """The profile's feedback for a response whose tool call the API could not parse, or
    ``None`` (also when the profile has no such check or its check fails)."""
    check = getattr(profile, "unparsed_call_feedback", None)
    if check is None:
        return None
    try:
        text = check(response)
    except Exception:
        return None
    return text if isinstance(text, str) and text else None


def _as_tools(tools: Iterable[Any] | None) -> dict[str, Tool]:
    out: dict[str, Tool] = {}
    if isinstance(tools, Tool) or (callable(tools) and not isinstance(tools, Iterable)):
        tools = [tools]  # one tool given as itself, not in a list
    elif tools is not None and not isinstance(tools, Iterable):
        raise ToolDefinitionError(
            f"tools must be a list of Tool objects or typed functions, got {type(tools).__name__}"
        )
    for t in tools or ():
        if type(t) is not Tool and not isinstance(t, Tool):
            if callable(t):
                t = tool_for_function(t)  # the schema is built once per function (and rebuilt if it changes)
            else:
                raise ToolDefinitionError(f"tools must be Tool objects or typed functions, got {type(t).__name__}")
        t.check_fields()  # a field set after the tool was made (tool.timeout = "5")
        if t.name in out:
            raise ToolDefinitionError(f"two tools are named {t.name!r}; tool names must be unique in a run")
        out[t.name] = t
    return out


#: The fields of :class:`Limits` (a ``limits=`` mapping naming another is refused).
_LIMIT_FIELDS = frozenset(f.name for f in fields(Limits))


def _prompt_message(prompt: Any) -> Message | None:
    if prompt is None:
        return None
    if type(prompt) is str or isinstance(prompt, str):
        # empty text (or only white space) is no prompt: vendors refuse empty text blocks
        return Message.user(prompt) if prompt.strip() else None
    if isinstance(prompt, Message):
        _check_message(prompt, "the prompt message")
        return prompt
    if isinstance(prompt, (TextPart, ImagePart, DocumentPart)):
        return Message("user", [prompt])
    if isinstance(prompt, (list, tuple)):
        try:
            return Message("user", user_parts(prompt))
        except TypeError as exc:
            raise ConfigurationError(
                f"a prompt list may hold text, TextPart, ImagePart or DocumentPart items: {exc}"
            ) from None
    raise ConfigurationError(f"prompt must be text, a Message or a list of parts, got {type(prompt).__name__}")


_PART_TYPES = (TextPart, ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart)


def _check_message(msg: Any, where: str) -> None:
    """Raise :class:`ConfigurationError` when ``msg`` is not a message every adapter can encode
    as it stands: a ``Message`` whose role is ``"user"`` or ``"assistant"``, whose parts are a
    list of toolwire parts (tool calls only in assistant messages, tool results only in user
    messages) and whose ``provider_data`` is a dict. (Adapters leave out what they cannot
    place, so a malformed message would otherwise be dropped from the request unsaid.)"""
    if not isinstance(msg, Message):
        raise ConfigurationError(
            f"{where} is a {type(msg).__name__}, not a toolwire Message: build it with "
            "Message('user' | 'assistant', [parts]) or Message.from_dict(saved)"
        )
    if msg.role not in ("user", "assistant"):
        raise ConfigurationError(
            f"{where} has role {msg.role!r}; a Message's role is 'user' or 'assistant' (system text goes in "
            "instructions=, tool results go as ToolResult parts of a 'user' message)"
        )
    parts: Any = msg.parts
    if not isinstance(parts, list):
        raise ConfigurationError(
            f"{where} has parts of type {type(parts).__name__}; parts must be a list of parts such as "
            "[TextPart('...')] (Message.user(text) builds a user message from text)"
        )
    for j, part in enumerate(parts):
        if not isinstance(part, _PART_TYPES):
            hint = (
                "wrap text in TextPart(text)"
                if isinstance(part, str)
                else "turn a saved part into one with toolwire.types.part_from_dict(d)"
                if isinstance(part, Mapping)
                else "use TextPart, ImagePart, ToolCall or ToolResult"
            )
            raise ConfigurationError(f"{where}, part {j}, is a {type(part).__name__}, not a toolwire part: {hint}")
        if msg.role == "user" and isinstance(part, ToolCall):
            raise ConfigurationError(
                f"{where}, part {j}, is a ToolCall in a 'user' message; tool calls belong in 'assistant' messages"
            )
        if msg.role == "assistant" and isinstance(part, ToolResult):
            raise ConfigurationError(
                f"{where}, part {j}, is a ToolResult in an 'assistant' message; tool results belong in the "
                "'user' message after the call"
            )
        if msg.role == "assistant" and isinstance(part, DocumentPart):
            # no API takes a document in a model turn: it would be left out of every request
            raise ConfigurationError(
                f"{where}, part {j}, is a DocumentPart in an 'assistant' message; documents go in a 'user' "
                "message or in a tool result"
            )
    if not isinstance(msg.provider_data, dict):
        raise ConfigurationError(
            f"{where} has provider_data of type {type(msg.provider_data).__name__}; it must be a dict (or left out)"
        )


def _checked_conversation(conversation: Any, what: str = "conversation=") -> Conversation:
    """A copy of ``conversation`` (a :class:`Conversation`) for a new run, after checking it and
    its messages; :class:`ConfigurationError` saying what to pass instead otherwise (``what``:
    how the errors name it)."""
    if not isinstance(conversation, Conversation):
        if isinstance(conversation, RunResult):
            hint = "pass result.conversation (or resume=result to continue a paused run)"
        elif isinstance(conversation, str):
            hint = "load saved JSON text with toolwire.Conversation.from_json(text)"
        elif isinstance(conversation, Mapping):
            hint = "load a saved dict with toolwire.Conversation.from_dict(d)"
        elif isinstance(conversation, (list, tuple)):
            hint = "wrap a list of toolwire Messages as toolwire.Conversation(messages)"
        else:
            hint = "pass a toolwire.Conversation (e.g. result.conversation)"
        verb = "takes" if what.endswith("=") else "must be"
        raise ConfigurationError(f"{what} {verb} a toolwire.Conversation, got {type(conversation).__name__}: {hint}")
    name = what.rstrip("=")
    messages: Any = conversation.messages
    if not isinstance(messages, (list, tuple)):
        raise ConfigurationError(f"{name}.messages must be a list of toolwire Messages, got {type(messages).__name__}")
    instructions: Any = conversation.instructions
    if instructions is not None and not isinstance(instructions, str):
        raise ConfigurationError(f"{name}.instructions must be text (or None), got {type(instructions).__name__}")
    for i, msg in enumerate(messages):
        _check_message(msg, f"{name} message {i}")
    return Conversation(list(messages), instructions)


#: The limit each "... exceeded the limit of ..." text of the limits below is about.
_LIMIT_OF = {
    "input tokens ": "Limits.max_input_tokens",
    "output tokens ": "Limits.max_output_tokens",
    "total tokens ": "Limits.max_total_tokens",
    "cost $": "Limits.max_cost_usd",
}


def _go_on(limit: str | None) -> str:
    """What a limit error says to do next: continue the run from its conversation (the way the
    loop docs give), with ``limit`` raised when the run needs more of it."""
    then = f" and a higher {limit} if it needs more" if limit else ""
    return f"to go on, continue the run with run(model, tools=..., conversation=exc.conversation){then}"


def _usage_limit_text(over: str) -> str:
    """The text of the ``UsageLimitExceeded`` a token or cost limit raises (``over``: what
    :func:`_usage_exceeded` or :func:`_cost_exceeded` said): the limit named and what to do."""
    limit = next((name for head, name in _LIMIT_OF.items() if over.startswith(head)), None)
    if limit is None:  # a limit that cannot be checked: its text says what the check needs
        return f"usage limit reached: {over}; {_go_on(None)} once the limit can be checked (or without it)"
    return f"usage limit reached: {over} ({limit}); {_go_on(limit)}"


def _cost_exceeded(limits: Limits | None, spent: Any) -> str | None:
    """``spent``: the run's :class:`~toolwire.pricing.Cost` so far (``None`` when no cost limit)."""
    if limits is None or limits.max_cost_usd is None or spent is None:
        return None
    from decimal import Decimal

    if not spent.priced:
        return f"the cost limit of ${limits.max_cost_usd} cannot be checked: {spent.reason}"
    if spent.total_usd > Decimal(str(limits.max_cost_usd)):
        return f"cost ${spent.total_usd:.6f} exceeded the limit of ${limits.max_cost_usd}"
    return None


#: What to do when a response lacks a token count a limit needs, by provider: the offline
#: providers (toolwire.testing) are held to the token limits as a vendor is (a test of limit
#: handling behaves as in production), and say how to give their answers a usage.
_NO_COUNT_ADVICE = {
    "scripted": (
        "the scripted answer carries no usage: give it one, e.g. {'text': 'ok', 'usage': "
        "{'input_tokens': 12, 'output_tokens': 5}} or Response(..., usage=Usage(12, 5)), or leave the "
        "token limits out of the run"
    ),
    "test": (
        "the 'test' provider counts no tokens: test token limits with the 'scripted' provider and answers "
        "that carry a 'usage', or leave the token limits out of the run"
    ),
}
_NO_COUNT_DEFAULT = "a server that sends no usage: have it report usage, or leave the token limits out for it"


def _usage_exceeded(limits: Limits | None, usage: Usage, response: Response | None = None) -> str | None:
    """Why the token limits stop the run after a response: a limit passed by ``usage`` (the
    run's sum), or one that ``response``'s usage lacks the count to check, as the cost limit
    stops a run it cannot price (an unknown count is not 0, on the offline ``test`` and
    ``scripted`` providers too)."""
    if limits is None:
        return None
    last = response.usage if response is not None else None
    if last is not None and response is not None:
        for limit, needs in (
            ("max_input_tokens", ("input_tokens",)),
            ("max_output_tokens", ("output_tokens",)),
            ("max_total_tokens", ("input_tokens", "output_tokens")),
        ):
            if getattr(limits, limit) is not None:
                for counter in needs:
                    count = getattr(last, counter)
                    if type(count) is int and count < 0:  # a vendor's negative count: summed, it would hide tokens used
                        return (
                            f"the token limit {limit}={getattr(limits, limit)} cannot be checked: the response "
                            f"reported a negative {counter.split('_')[0]} token count ({count})"
                        )
                    if count is None:
                        advice = _NO_COUNT_ADVICE.get(response.provider or "", _NO_COUNT_DEFAULT)
                        if response.provider == "scripted" and (last.input_tokens, last.output_tokens) != (None, None):
                            advice = (  # a usage with some counts: the one missing is named
                                f"the scripted answer's usage has no {counter!r}: add it, e.g. {{'usage': "
                                "{'input_tokens': 12, 'output_tokens': 5}}, or leave the token limits out of the run"
                            )
                        return (
                            f"the token limit {limit}={getattr(limits, limit)} cannot be checked: the response "
                            f"reported no {counter.split('_')[0]} token count ({advice})"
                        )
    if limits.max_input_tokens is not None and (usage.input_tokens or 0) > limits.max_input_tokens:
        return f"input tokens {usage.input_tokens} exceeded the limit of {limits.max_input_tokens}"
    if limits.max_output_tokens is not None and (usage.output_tokens or 0) > limits.max_output_tokens:
        return f"output tokens {usage.output_tokens} exceeded the limit of {limits.max_output_tokens}"
    if limits.max_total_tokens is not None and usage.total_tokens > limits.max_total_tokens:
        return f"total tokens {usage.total_tokens} exceeded the limit of {limits.max_total_tokens}"
    return None


def _final_text(turns: Sequence[Turn]) -> str:
    """The final answer: the last response's text, preceded by the text of the responses that
    paused just before it (pause_turn continues the same answer)."""
    last: str | None = None
    earlier: list[str] | None = None  # (only after a pause_turn)
    for t in reversed(turns):
        if last is None:
            last = t.response.text
            continue
        if not (t.response.stop_reason == "pause_turn" and not t.tool_runs):
            break
        if earlier is None:
            earlier = [t.response.text]
        else:
            earlier.append(t.response.text)
    if last is None:
        return ""
    return last if earlier is None else "".join([*reversed(earlier), last])


def _unique_synthesized_ids(
    response: Response, seen: set[str] | Conversation, calls: list[ToolCall] | None = None
) -> None:
    """Re-number an id toolwire synthesized (never sent to the vendor) that collides with an id
    already in the conversation (``seen``: the ids so far, updated here, or the
    :class:`Conversation` itself) or in the same response, so every result pairs with one call."""
    if type(seen) is not set and isinstance(seen, Conversation):
        seen = {c.id for m in seen.messages for c in m.tool_calls}
    if calls is None:
        calls = response.tool_calls
    in_response: set[str] | None = None  # made by the second call (a lone call needs none)
    ahead: set[str] | None = None  # every id of this response, made by the first re-numbering
    for call in calls:
        if call.id_synthesized and call.id in seen:
            # (a new id is none a call of this response carries either: a later call with that
            # id would be taken for a duplicate of this one and never run)
            ahead = {c.id for c in calls} if ahead is None else ahead
            n = 2
            while f"{call.id}-{n}" in seen or f"{call.id}-{n}" in ahead:
                n += 1
            call.id = f"{call.id}-{n}"
        elif in_response is not None and call.id in in_response and call.invalid is None:
            # the vendor repeated an id inside one response: the later call cannot be paired safely
            call.invalid = f"duplicate tool call id {call.id} in one response"
        elif call.id in seen and (in_response is None or call.id not in in_response):
            # an id already used in an earlier turn (servers that number calls call_0… per
            # response): re-number it so its result pairs with it; the vendor's id is kept
            original = call.id
            ahead = {c.id for c in calls} if ahead is None else ahead
            n = 2
            while f"{original}_{n}" in seen or f"{original}_{n}" in ahead:
                n += 1
            call.id = f"{original}_{n}"
            call.provider_data.setdefault("toolwire", {})["vendor_id"] = original
        seen.add(call.id)
        if in_response is None:
            in_response = {call.id}
        else:
            in_response.add(call.id)


async def _notify(callback: Callable[[Turn], Any] | None, turn: Turn) -> None:
    if callback is None:
        return
    value = callback(turn)
    if inspect.isawaitable(value):
        await value


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _calls_cap(limits: Limits) -> str:
    """``"1 tool call"``, ``"5 tool calls"``: the ``max_tool_calls`` of ``limits`` (one that is set)."""
    return plural(limits.max_tool_calls or 0, "tool call")


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception as inner:  # an exception whose __str__ raises: described by its class alone
        text = f"(its message could not be read: {type(inner).__name__})"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- answer texts (docs/approval.md lists them) ----------------------------------------------------
# Each names the tool as the model knows it (``name``: ``_Loop._seen``, e.g. ``run_python`` for
# the tool ``python`` on OpenAI), since the text goes back to the model.
def _text_denied(name: Any, reason: Any) -> str:
    given = reason is not None and str(reason).strip()
    return (
        f"Not run: the user refused this call to {name!r}." + (f" Reason: {reason}" if given else "") + "\n"
        "Do not make the same call again; continue without it, or ask the user what to do instead."
    )


def _text_hook_refused(name: Any, reason: str | None) -> str:
    why = f": {reason}" if reason is not None and reason.strip() else " (no reason was given)."
    return f"Not run: the call to {name!r} was refused{why}\nDo not make the same call again; continue without it."


def _text_per_tool_limit(name: Any, limit: int) -> str:
    return (
        f"Not run: tool {name!r} reached its limit of {limit} call{'' if limit == 1 else 's'} in this run "
        f"(max_calls_per_tool).\nDo not call {name!r} again in this run; answer with the results you have."
    )


def _text_waiting(name: Any, kind: str) -> str:
    if kind == "approval":
        return f"Not run yet: this call to {name!r} is waiting for the user's approval."
    return f"Not run yet: the result of this call to {name!r} has not arrived."


def _text_cancelled(name: Any, started: bool, why: str) -> str:
    if started:
        return (
            f"Cancelled: the run was stopped ({why}) while tool {name!r} was running, so it has no result; "
            "it may have partly run."
        )
    return f"Not run: the run was stopped ({why}) before tool {name!r} started."


class _Failure:
    """An exception of a hook (or of toolwire itself) inside a tool task: it stops the run."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class _Batch:
    """The tool calls of one turn that are being run: where their answers go (``tasks``: the
    calls run as tasks by index; ``direct``: the index of the one call run without a task,
    awaited by the loop itself, if any; ``started`` / ``done``: indexes)."""

    __slots__ = ("number", "turn", "message", "tasks", "direct", "started", "done")

    def __init__(self, number: int, turn: Turn, message: Message, direct: int | None = None) -> None:
        self.number = number
        self.turn = turn
        self.message = message
        self.tasks: dict[int, asyncio.Task[Any]] = {}
        self.direct = direct
        self.started: set[int] = set()
        self.done: set[int] = set()


class _Loop:
    """One run: the configuration, the :class:`RunState` and the event generator."""

    def __init__(
        self,
        m: Model,
        state: RunState,
        *,
        tool_map: dict[str, Tool[..., Any]],
        choice: Any,
        max_turns: int,
        limits: Limits,
        on_turn: Any,
        context_state: dict[str, Any] | None,
        approval: Any,
        deferred: frozenset[str],
        before: Any,
        after: Any,
        decisions: Mapping[str, Any] | None,
        resumed: bool,
    ) -> None:
        self.m = m
        self.state = state
        self.tool_map = tool_map
        self.tool_list: list[Tool[..., Any]] = list(tool_map.values())
        self.choice: Any = choice
        self.max_turns = max_turns
        self.limits = limits
        self.on_turn = on_turn
        self.approval = approval
        self.deferred = deferred
        self.before = before
        self.after = after
        self.decisions: dict[str, Any] = dict(decisions) if decisions else {}
        self.resumed = resumed
        #: ids of the calls a decision approved in this run: their edited arguments, else None
        self._approved: dict[str, dict[str, Any] | None] = {}
        self.executor: ToolExecutor = ToolExecutor(
            tool_map,
            run_id=state.run_id,
            default_timeout=limits.tool_timeout,
            state=context_state,
            max_concurrent=limits.max_concurrent_tools,
        )
        self.executor.shown = _shown_names(m, tool_map)
        # counters, walked once here (never per turn)
        self.seen_ids: set[str] = {c.id for msg in state.conversation.messages for c in msg.tool_calls}
        #: the summed usage, kept only when a token limit reads it (RunResult.usage sums the turns)
        self.token_limited: bool = limits is not _NO_LIMITS and (
            limits.max_input_tokens is not None
            or limits.max_output_tokens is not None
            or limits.max_total_tokens is not None
        )
        self.total: Usage = state.usage if self.token_limited else _NO_USAGE
        self.calls_run: int = 0
        #: how many more times in a row an unparsed call is fed back (Profile.unparsed_call_feedback)
        self.feedback_left: int = _UNPARSED_CALL_RETRIES
        #: whether an empty answer to tool results is still asked again (once per round of tools)
        self.empty_left: int = 1
        self.per_tool: dict[str, int] = {}
        for r in state.tool_runs if state.turns else ():
            if r.status in ("ran", "invalid", "refused", "deferred"):
                self.calls_run += 1
            if r.status == "ran":  # a resumed run: its earlier non-repeatable writes are not repeated
                self.executor.remember_write(r)
            if r.status in ("ran", "deferred"):
                self.per_tool[r.call.name] = self.per_tool.get(r.call.name, 0) + 1
        self.per_tool_limits: dict[str, int] = (
            {} if limits is _NO_LIMITS or not limits.max_calls_per_tool else dict(limits.max_calls_per_tool)
        )
        for t in self.tool_list:
            if not t.meta:
                continue
            _check_tool_meta(t)
            mc = t.meta.get("max_calls")
            if mc is None:
                continue
            if not _whole_at_least(mc, 0):
                # checked as Limits.max_calls_per_tool checks its values (was: any other value,
                # "5", 5.0 or True, silently set no limit, and -1 refused every call)
                raise ConfigurationError(
                    f"tool {t.name!r}: meta['max_calls'] must be a whole number ≥ 0 (its per-tool call "
                    f'limit) or None, got {_got(mc)}; write e.g. {t.name if t.name.isidentifier() else "tool"}.meta["max_calls"] = 5'
                )
            if t.name not in self.per_tool_limits:
                self.per_tool_limits[t.name] = mc
        self._asm: _wire.StreamAssembler | None = None
        self._asm_turn = 0
        self._batch: _Batch | None = None
        #: calls the supplied history left unanswered, answered by run(): reported on the first turn
        self.unanswered: list[ToolCall] = []
        #: set by :meth:`RunStream.finish` when no one can see the events (no observer): from the
        #: next turn on, only ``RunFinished`` is built and yielded (the state is the same)
        self.quiet = False
        #: whether the event generator started (a stream closed before its first event did not)
        self.started: bool = False
        #: the result of the RunFinished yielded (see RunStream.result)
        self.result: RunResult | None = None
        self.finished: RunFinished | None = (
            None  # the run's RunFinished, once built (finish() after the events were read)
        )

    @property
    def turn_limit_texts(self) -> tuple[str, str, str]:
        """The texts of a max_turns stop: a call's answer, the error, the error after pause_turn."""
        n = self.max_turns
        return (
            f"Not run: the run reached its limit of {plural(n, 'model request')} (max_turns).",
            f"the model still asked for tools after {plural(n, 'request')} (max_turns={n}); {_go_on('max_turns')}",
            f"the model paused its turn (pause_turn) after {plural(n, 'request')} (max_turns={n}); {_go_on('max_turns')}",
        )

    def _ask_again(self, profile: Any, response: Response, messages: list[Message]) -> bool:
        """For a response without tool calls that does not end the run: append the user message
        that asks the model again to ``messages`` and return ``True``, or return ``False``.

        - a call the API could not parse (:meth:`~toolwire.profile.Profile.unparsed_call_feedback`):
          the model is told, at most :data:`_UNPARSED_CALL_RETRIES` times in a row;
        - an empty answer to tool results (:func:`_empty_after_results`): asked again once per
          round of tools, with :data:`EMPTY_ANSWER_PROMPT`."""
        if response.stop_reason == "error" and self.feedback_left:
            feedback = _unparsed_call_feedback(profile, response)
            if feedback is not None:
                self.feedback_left -= 1
                messages.append(Message("user", [TextPart(feedback)]))
                return True
        if self.empty_left and _empty_after_results(messages, response):
            self.empty_left = 0
            messages.append(Message("user", [TextPart(EMPTY_ANSWER_PROMPT)]))
            return True
        return False

    # -- the event stream ---------------------------------------------------------------------
    async def events(self) -> AsyncIterator[Any]:
        self.started = True
        st = self.state
        was = st.status
        st.status, st.stop_reason, st.error = "running", None, None
        if not self.quiet:
            try:
                yield RunStarted(st.run_id, self.m.name, self.resumed)
            except GeneratorExit:  # the stream closed at its first event: the run never started
                self._stop("cancelled", "the event stream was closed")
                raise
        try:
            if self._answered_already() is not None:
                async for ev in self._end_answered(was):
                    yield ev
                return
            if st.pending:
                async for ev in self._settle_pending():  # (a state without turns: ConfigurationError)
                    yield ev
                last = st.turns[-1]
                yield TurnFinished(last.number, last)
                if self.on_turn is not None:
                    await _notify(self.on_turn, last)
                if st.pending:
                    yield self._finish(PENDING_STOP)
                    return
            st, m, conv, limits, ex = self.state, self.m, self.state.conversation, self.limits, self.executor
            messages = conv.messages
            base = len(st.turns)  # each pass of the loop adds one turn
            for k in range(1, self.max_turns + 1):
                n = base + k
                # ``loud``: the events of this turn are built and yielded (someone iterates them)
                loud = not self.quiet
                if loud:
                    yield TurnStarted(n)
                request = m.build_request(
                    conv.messages, instructions=conv.instructions, tools=self.tool_list, tool_choice=self.choice
                )
                request.conversation = conv  # append-only during the run: the adapter encodes only what is new
                if request.stream:
                    asm = self._asm = _wire.StreamAssembler(m.provider or None)
                    self._asm_turn = n
                    attempt = 1
                    events = m.send_stream(request)
                    try:
                        async for sev in events:
                            if type(sev) not in _STREAM_EVENTS and isinstance(sev, RetryNotice):
                                # the transport will send it again: the answer starts over (what
                                # came, an id or usage, was the failed attempt's: its usage goes
                                # with the event, into no total)
                                asm.feed(sev)
                                attempt = sev.attempt
                                yield RetryScheduled(n, sev.attempt, sev.delay, sev.describe(), sev.usage)
                                continue
                            asm.feed(sev)
                            if loud and (ev := _delta(n, sev)) is not None:
                                yield ev
                    finally:
                        aclose = getattr(events, "aclose", None)
                        if aclose is not None:
                            await aclose()
                    # (a cut stream raises: its part stays in the turn record)
                    response = _streamed_response(m, asm, attempt)
                    self._asm = None
                    _settle_answer(m, response)
                else:
                    if not loud or not _retries(m):
                        # (quiet: the retries' notices have no one to go to; the model retries all the same)
                        response = await m.send(request)
                    else:
                        req = _Request(m, request)
                        if req.advance() and not req.notices:  # answered without waiting
                            response = req.response
                        else:
                            response = None
                            async for item in _send_noting(req, n):
                                if isinstance(item, RetryScheduled):
                                    yield item
                                else:
                                    response = item
                    assert response is not None
                    _settle_answer(m, response)  # (before its parts are read for the events)
                    if loud:
                        for ev in _whole(n, response):
                            yield ev
                if self.unanswered:  # reported on the turn whose request first carried the answers
                    response.preflight = _report_unanswered(m, response.preflight, self.unanswered)
                    self.unanswered = []
                calls = response.tool_calls
                if calls:
                    # distinct calls sharing an id get ids of their own on every provider (the
                    # adapters' decoders do it already; a scripted or custom provider may not)
                    reissue_shared_ids(calls, valid_only=True)
                    _unique_synthesized_ids(response, self.seen_ids, calls)
                settle_calls(response, m.profile)  # cut-off calls and failed turns: answered, never run
                messages.append(response.to_message())
                turn = Turn(n, response)
                st.turns.append(turn)
                if self.token_limited:
                    self.total = self.total + response.usage
                if limits.max_cost_usd is not None:
                    self._add_cost(response)
                if loud:
                    yield ResponseFinished(n, response)
                    calls = response.tool_calls  # again: read after the event, as the consumer left it
                choice = self.choice
                if calls:
                    if type(choice) is dict:
                        checked = [_against_forced_choice(c, n, choice, ex.seen) or ex.check(c, n) for c in calls]
                    else:
                        checked = [ex.check(c, n) for c in calls]
                    if loud:
                        for c, r in zip(calls, checked):
                            yield ToolCallReady(n, c, r.result.text if isinstance(r, ToolRun) else None)
                else:
                    checked = []
                over = _usage_exceeded(limits, self.total, response) if self.token_limited else None
                if over is None and limits.max_cost_usd is not None:
                    over = _cost_exceeded(limits, self.__dict__.get("_spent"))
                if calls and (ending := _ends_with_calls(response, m.profile)) is not None:
                    async for ev in self._end_refusing(turn, calls, *ending):
                        yield ev
                    return
                if over is not None and (calls or response.stop_reason == "pause_turn"):
                    # a finished answer is returned even past a limit; the limit stops further requests
                    async for ev in self._end_refusing(
                        turn,
                        calls,
                        f"Not run: the run stopped because {over}.",
                        "usage_limit",
                        UsageLimitExceeded,
                        _usage_limit_text(over),
                    ):
                        yield ev
                    return
                if not calls:
                    if loud:
                        yield TurnFinished(n, turn)
                    if self.on_turn is not None:
                        await _notify(self.on_turn, turn)
                    if k < self.max_turns and self._ask_again(m.profile, response, messages):
                        continue
                    if response.stop_reason == "pause_turn":
                        if k < self.max_turns:
                            continue  # server-side tool loop paused: send the conversation again as is
                        yield self._finish(
                            "max_turns",
                            MaxTurnsExceeded,
                            self.turn_limit_texts[2],
                        )
                        return
                    yield self._finish(response.stop_reason)
                    return
                if k == self.max_turns:
                    async for ev in self._end_refusing(
                        turn,
                        calls,
                        self.turn_limit_texts[0],
                        "max_turns",
                        MaxTurnsExceeded,
                        self.turn_limit_texts[1],
                    ):
                        yield ev
                    return
                self.feedback_left = _UNPARSED_CALL_RETRIES
                self.empty_left = 1
                allowed = ncalls = len(calls)
                if limits.max_tool_calls is not None:
                    allowed = max(0, min(allowed, limits.max_tool_calls - self.calls_run))
                self.calls_run += allowed
                # every call answered at once (placeholders for the ones still to run), so the
                # conversation is valid at every point of the turn
                runs: list[ToolRun] = []
                jobs: list[tuple[int, Ready]] = []
                pending: list[PendingCall] = []
                # a tool with no meta, no deferred names, no approval policy: none of their checks apply
                asks = bool(self.deferred) or self.approval is not None
                counts = bool(self.per_tool_limits)
                njobs = 0
                for i, (c, r) in enumerate(zip(calls, checked)):
                    if i >= allowed:
                        runs.append(
                            ex.refuse(
                                c,
                                n,
                                f"Not run: the run reached its limit of {_calls_cap(limits)} (max_tool_calls).",
                            )
                        )
                    elif type(r) is not Ready:  # a ToolRun: answered without running
                        runs.append(r)  # type: ignore[arg-type]
                    elif counts and (limit_run := self._per_tool_refusal(r, n)) is not None:
                        runs.append(limit_run)
                    elif (asks or r.tool.meta) and self._is_deferred(r.tool):
                        if counts:
                            self._count(r.call)
                        pending.append(
                            PendingCall(c, n, "deferred", "toolwire does not run this tool: supply its result")
                        )
                        runs.append(self._placeholder(c, n, "deferred"))
                    elif (
                        (asks or r.tool.meta)
                        and self._may_ask(r.tool)
                        and (why := await self._approval_needed(r)) is not None
                    ):
                        pending.append(PendingCall(c, n, "approval", why))
                        runs.append(self._placeholder(c, n, "approval"))
                    else:
                        if counts:
                            self._count(r.call)
                        jobs.append((i, r))
                        njobs += 1
                        runs.append(self._placeholder(c, n, "running"))
                msg = self._answer_all(turn, runs)
                if pending:
                    st.pending.extend(pending)
                if loud:
                    for r in runs:
                        if r.status not in ("pending", "cancelled"):
                            yield ToolFinished(n, r)
                    for p in pending:
                        yield ToolCallPending(n, p)
                if (
                    njobs == 1
                    and self.before is None
                    and self.after is None
                    and type(tool := (ready := jobs[0][1]).tool).call is Tool.call
                    and (fn := tool.function) is not None
                    and not (
                        ready.plan.is_async if ready.plan is not None and ready.plan.function is fn else tool.is_async
                    )
                ):  # _run_batch's first case (see _direct_job), one generator less
                    i = jobs[0][0]
                    b = self._batch = _Batch(n, turn, msg, direct=i)
                    if loud:
                        yield ToolStarted(n, ready.call)
                    b.started.add(i)
                    run = await ex.start(ready, n)
                    turn.tool_runs[i] = run  # (_place; the batch is over, nothing reads b.done)
                    msg.parts[i] = run.result
                    self._batch = None
                    if loud:
                        yield ToolFinished(n, run)
                elif jobs:
                    async for ev in self._run_batch(n, turn, msg, jobs):
                        yield ev
                if loud:
                    yield TurnFinished(n, turn)
                if self.on_turn is not None:
                    await _notify(self.on_turn, turn)
                if allowed < ncalls:
                    yield self._finish(
                        "usage_limit",
                        UsageLimitExceeded,
                        f"tool call limit reached: {_calls_cap(limits)} (max_tool_calls); "
                        + _go_on("Limits.max_tool_calls"),
                    )
                    return
                if st.pending:
                    yield self._finish(PENDING_STOP)
                    return
                if self.choice == "required" or isinstance(self.choice, dict):
                    self.choice = "auto"
            raise AssertionError("unreachable")  # pragma: no cover
        except GeneratorExit:
            self._stop("cancelled", "the event stream was closed")
            await self._reap()
            raise
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            self._stop("cancelled", type(exc).__name__)
            await self._reap()
            raise
        except BaseException as exc:
            self._stop("failed", _describe(exc))
            await self._reap()
            if isinstance(exc, ToolwireError):
                exc.run_state = st
            raise

    def _add_cost(self, response: Response) -> None:
        """Add what ``response`` cost to the run's spending (``Limits.max_cost_usd``)."""
        from .pricing import Cost, price_turn

        m, st = self.m, self.state
        base_url = m.settings.get("base_url")
        spent = self.__dict__.get("_spent")
        if spent is None:  # a resumed run: what its earlier turns cost counts too (each at its vendor's price)
            spent = Cost.zero()
            for t in st.turns[:-1]:
                spent = spent + price_turn(t.response, m.name, base_url=base_url)
        self._spent = spent + price_turn(response, m.name, base_url=base_url)

    async def _end_refusing(
        self,
        turn: Turn,
        calls: list[ToolCall],
        text: str,
        stop: str,
        error: type[ToolwireError] | None,
        message: str,
    ) -> AsyncIterator[Any]:
        """End the run at a limit: every call of ``turn`` answered with ``text`` (not run), the
        turn finished, then ``RunFinished`` with ``error(message)`` (no error: the run finished
        with stop reason ``stop``)."""
        n = turn.number
        if calls:
            self._answer_all(turn, [self.executor.refuse(c, n, text) for c in calls])
            for r in turn.tool_runs:
                yield ToolFinished(n, r)
        yield TurnFinished(n, turn)
        if self.on_turn is not None:
            await _notify(self.on_turn, turn)
        yield self._finish(stop, error, message)

    async def _end_answered(self, was: str) -> AsyncIterator[Any]:
        """End a resumed run whose last turn is already the model's final answer (it failed after
        that answer, in ``on_turn``, or it had finished): nothing is asked of the model, since
        sending the conversation again would ask for a continuation of the answer. A turn whose
        ``on_turn`` failed is announced again."""
        final = self._answered_already()
        assert final is not None
        if was != "finished":
            if not self.quiet:
                yield TurnFinished(final.number, final)
            if self.on_turn is not None:
                await _notify(self.on_turn, final)
        yield self._finish(final.response.stop_reason)

    def _answered_already(self) -> Turn | None:
        """The last turn of a resumed run without pending calls when the conversation ends with
        its final answer (an assistant message without tool calls, the turn not paused nor
        failed); else ``None``."""
        st = self.state
        if not self.resumed or st.pending or not st.turns:
            return None
        last = st.turns[-1]
        resp = last.response
        messages = st.conversation.messages
        if (
            resp is None
            or resp.tool_calls
            or resp.stop_reason in ("pause_turn", "error")
            or not messages
            or messages[-1].role != "assistant"
            or messages[-1].tool_calls
        ):
            return None
        return last

    def _finish(self, stop: str, error: type[ToolwireError] | None = None, message: str = "") -> RunFinished:
        st = self.state
        result = RunResult(
            _final_text(st.turns), st.conversation, st.turns, stop, self.m.name, st.run_id, list(st.pending)
        )
        st.stop_reason = stop
        st.status = "stopped" if error is not None else ("paused" if st.pending else "finished")
        self.result = result  # RunStream.result (the RunFinished built here is yielded at once)
        err = None
        if error is not None:
            err = error(message, result)
            err.run_state = st  # (set on every error that ends a run, a limit's included)
        self.finished = RunFinished(result, err)
        return self.finished

    # -- tool calls -------------------------------------------------------------------------
    def _answer_all(self, turn: Turn, runs: list[ToolRun]) -> Message:
        turn.tool_runs = runs
        msg = Message("user", [r.result for r in runs])
        self.state.conversation.messages.append(msg)
        return msg

    def _placeholder(self, call: ToolCall, n: int, kind: str) -> ToolRun:
        # toolwire's own text about a tool of the run: nothing in it to scrub
        if kind == "running":
            return ToolRun(
                call,
                ToolResult._own(
                    call.id,
                    f"Not run: the run was stopped (not finished) before tool {self.executor.seen(call.name)!r} started.",
                    call.name,
                ),
                0.0,
                n,
                status="cancelled",
            )
        return ToolRun(
            call,
            ToolResult._own(call.id, _text_waiting(self.executor.seen(call.name), kind), call.name),
            0.0,
            n,
            status="pending",
        )

    def _count(self, call: ToolCall) -> None:
        self.per_tool[call.name] = self.per_tool.get(call.name, 0) + 1

    def _per_tool_refusal(self, ready: Ready, n: int) -> ToolRun | None:
        limit = self.per_tool_limits.get(ready.tool.name)
        if limit is not None and self.per_tool.get(ready.tool.name, 0) >= limit:
            return self.executor.refuse(ready.call, n, _text_per_tool_limit(self.executor.seen(ready.call.name), limit))
        return None

    def _may_ask(self, tool: Tool) -> bool:
        """Whether an approval policy applies to ``tool`` at all (else no call of it waits)."""
        return self.approval is not None or tool.meta.get("requires_approval") is not None

    def _is_deferred(self, tool: Tool) -> bool:
        return bool(tool.meta.get("deferred")) or tool.name in self.deferred

    async def _approval_needed(self, ready: Ready) -> str | None:
        """``None`` when the call may run now, else the reason it waits for approval."""
        policy = ready.tool.meta.get("requires_approval")
        if policy is None:
            policy = self.approval
        if policy is None or policy is False:
            return None
        if policy is True:
            return "this tool requires approval"
        if isinstance(policy, (set, frozenset, list, tuple)):
            return "this tool requires approval" if ready.tool.name in policy else None
        if callable(policy):
            try:
                value = await _maybe_await(policy(copy.deepcopy(ready.call)))
            except Exception as exc:  # fails closed: a person decides, the run keeps what it did
                return f"the approval policy raised {_describe(exc)}; decide this call yourself"
            if isinstance(value, str):
                return value or None
            if isinstance(value, (Approved, Denied)):  # a decision is not the policy's to make
                return (
                    f"the approval policy returned {value!r}, not true, false or a reason text (a policy says "
                    "which calls wait; decisions= answers them); decide this call yourself"
                )
            try:
                asks = bool(value)
            except Exception as exc:  # an answer whose truth cannot be told: fails closed as a raise
                return (
                    f"the approval policy raised {_describe(exc)} (telling whether its answer "
                    f"{type(value).__name__} is true); decide this call yourself"
                )
            return "the approval policy asked for approval" if asks else None
        raise ConfigurationError(
            f"approval must be True, a collection of tool names or a function of the call, got {type(policy).__name__}"
        )

    async def _before(self, ready: Ready, n: int) -> Ready | ToolRun:
        if self.before is None:
            return ready
        seen = copy.deepcopy(ready.call)  # the hook's copy: the conversation keeps the model's call
        value = await _maybe_await(self.before(seen))
        if value is None:
            if seen.arguments == ready.call.arguments and repr(seen.arguments) == repr(ready.call.arguments):
                return ready
            value = seen.arguments  # edited in place (call.arguments["limit"] = 10): new arguments
        if isinstance(value, Denied):
            return self.executor.refuse(
                ready.call, n, _text_hook_refused(self.executor.seen(ready.call.name), value.reason), status="refused"
            )
        if isinstance(value, ToolCall):
            value = value.arguments
        if isinstance(value, dict):
            checked = self.executor.check(replace(ready.call, arguments=copy.deepcopy(value)), n)
            return checked
        raise ConfigurationError(
            f"before_tool_call must return None, new arguments (a dict) or toolwire.Denied(reason), got {type(value).__name__}"
        )

    async def _after(self, run: ToolRun) -> ToolRun:
        if self.after is None:
            return run
        # the hook sees a copy: the call and result in the conversation change only through what
        # it returns, or through its edits of run.result checked as a returned ToolResult is
        seen = replace(run, call=copy.deepcopy(run.call), result=copy.deepcopy(run.result))
        value = await _maybe_await(self.after(seen))
        if value is None:
            if seen.result == run.result:
                return run
            value = seen.result  # edited in place (run.result.content = ...)
        if isinstance(value, Denied):
            raise ConfigurationError(
                "after_tool_call returned toolwire.Denied, but the tool has already run; refuse calls in "
                "before_tool_call, or return toolwire.ToolResult(..., is_error=True) to replace the result"
            )
        try:
            if isinstance(value, ToolResult):
                result = replace(
                    value, tool_call_id=run.call.id, name=value.name if isinstance(value.name, str) else run.call.name
                )
            else:
                result = ToolResult(run.call.id, to_result_content(value), run.result.is_error, run.call.name)
        except Exception as exc:
            raise ConfigurationError(
                f"after_tool_call gave a result toolwire cannot send for {run.call.name!r} ({_describe(exc)}); return "
                "None (keep the result), text, a value with a JSON form, TextPart/ImagePart/DocumentPart parts or a "
                "toolwire.ToolResult"
            ) from exc
        return replace(run, result=result)

    async def _pipeline(self, n: int, i: int, ready: Ready, queue: asyncio.Queue[Any]) -> ToolRun | None:
        b = self._batch
        try:
            async with self.executor.slots:
                step = await self._before(ready, n)
                if isinstance(step, ToolRun):
                    run = step
                else:
                    if b is not None:
                        b.started.add(i)
                    queue.put_nowait(ToolStarted(n, step.call))
                    run = await self._after(await self.executor.execute(step, n))
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a hook failed: the run stops with it
            queue.put_nowait(_Failure(exc))
            return None
        queue.put_nowait((i, run))
        return run

    @staticmethod
    def _place(b: _Batch, i: int, run: ToolRun) -> None:
        b.turn.tool_runs[i] = run
        b.message.parts[i] = run.result
        b.done.add(i)

    def _direct_job(self, jobs: list[tuple[int, Ready]]) -> tuple[int, Ready] | None:
        """The one job of a batch that the loop awaits itself, else ``None``: one call to a
        synchronous tool and no hooks. It runs without a task and a queue and cannot outlive a
        cancellation (its thread's future is cancelled with the run); the cap on running tools is
        not taken, since one call cannot reach it."""
        if len(jobs) == 1 and self.before is None and self.after is None and _direct(jobs[0][1].tool):
            return jobs[0]
        return None

    async def _run_batch(self, n: int, turn: Turn, msg: Message, jobs: list[tuple[int, Ready]]) -> AsyncIterator[Any]:
        if not jobs:
            return
        if (one := self._direct_job(jobs)) is not None:
            i, ready = one
            b = self._batch = _Batch(n, turn, msg, direct=i)
            yield ToolStarted(n, ready.call)
            b.started.add(i)
            run = await self.executor.execute(ready, n)
            self._place(b, i, run)
            self._batch = None
            yield ToolFinished(n, run)
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()
        b = self._batch = _Batch(n, turn, msg)
        for i, ready in jobs:
            b.tasks[i] = asyncio.ensure_future(self._pipeline(n, i, ready, queue))
        left = len(jobs)
        while left:
            item = await queue.get()
            if isinstance(item, ToolStarted):
                yield item
                continue
            if isinstance(item, _Failure):
                raise item.exc
            i, run = item
            self._place(b, i, run)
            left -= 1
            yield ToolFinished(n, run)
        self._batch = None

    async def _settle_pending(self) -> AsyncIterator[Any]:
        """Resume: answer the pending calls of the last turn from ``decisions`` (approved ones and
        interrupted ones run; denied ones are refused; deferred ones take the supplied result)."""
        st, ex = self.state, self.executor
        last = st.turns[-1] if st.turns else None
        msg = st.conversation.messages[-1] if st.conversation.messages else None
        index = {r.call.id: i for i, r in enumerate(last.tool_runs)} if last is not None else {}
        ids = {p.call.id for p in st.pending}
        unknown = sorted(set(self.decisions) - ids)
        if unknown:
            raise ConfigurationError(
                f"decisions name tool calls that are not pending: {unknown}; pending: {sorted(ids)}"
            )
        listed: set[str] = set()
        for p in st.pending:
            if p.call.id in listed:  # its decision would run (or answer) it twice
                raise ConfigurationError(
                    f"cannot resume: pending tool call {p.call.id} is listed twice in the saved run's pending calls "
                    "(was the state edited?); keep one entry per call"
                )
            listed.add(p.call.id)
            i = index.get(p.call.id)
            if i is not None and last is not None and last.tool_runs[i].status not in ("pending", "cancelled"):
                raise ConfigurationError(
                    f"cannot resume: pending tool call {p.call.id} already has its result in the saved run "
                    f"(status {last.tool_runs[i].status!r}), and a call with a result is never run again "
                    "(was the state edited?); remove it from the pending calls"
                )
            if (
                last is None
                or msg is None
                or i is None
                or p.turn != last.number
                or msg.role != "user"
                or i >= len(msg.parts)
                or getattr(msg.parts[i], "tool_call_id", None) != p.call.id
            ):
                raise ConfigurationError(
                    f"cannot resume: pending tool call {p.call.id} is not answered by a placeholder in the last message of the "
                    "saved conversation (was the state edited?); a pending call is a call of the last turn, which the "
                    "conversation's last message answers with its placeholder: remove the entry, or put back its "
                    "call, turn number and placeholder"
                )
        n = last.number  # type: ignore[union-attr]
        b = _Batch(n, last, msg)  # type: ignore[arg-type]
        still: list[PendingCall] = []
        jobs: list[tuple[int, Ready]] = []
        placed: list[tuple[int, ToolRun]] = []
        announce: list[Any] = []
        for p in st.pending:
            i = index[p.call.id]
            d = self.decisions.get(p.call.id, _MISSING)
            if isinstance(d, Denied):
                placed.append((i, ex.refuse(p.call, n, _text_denied(ex.seen(p.call.name), d.reason), status="refused")))
                continue
            if d is _MISSING and p.kind in ("approval", "deferred"):
                still.append(p)
                continue
            if p.kind == "deferred" or (p.kind == "interrupted" and d is not _MISSING and not isinstance(d, Approved)):
                if isinstance(d, Approved):
                    raise ConfigurationError(
                        f"tool call {p.call.id} is deferred: supply its result (a value or a ToolResult), not Approved()"
                    )
                placed.append((i, ToolRun(p.call, _supplied_result(p.call, d), 0.0, n, status="deferred")))
                continue
            # approved, or interrupted without a decision: run it (again)
            if p.kind == "approval" and not isinstance(d, Approved):
                raise ConfigurationError(
                    f"the decision for tool call {p.call.id} must be toolwire.Approved(...) or toolwire.Denied(reason), got {type(d).__name__}"
                )
            call = p.call
            edit = d.arguments if isinstance(d, Approved) else p.arguments if p.approved else None
            if edit is not None:
                if not isinstance(edit, dict):
                    raise ConfigurationError(f"Approved(arguments=...) takes a dict, got {type(edit).__name__}")
                call = replace(call, arguments=copy.deepcopy(edit), raw_arguments=None, invalid=None)
            if isinstance(d, Approved) or p.approved:
                # interrupted again, it is not asked about a second time (and keeps the edit)
                self._approved[call.id] = copy.deepcopy(edit)
            r = ex.check(call, n)
            if isinstance(r, ToolRun):
                placed.append((i, r))
            elif (limit_run := self._per_tool_refusal(r, n)) is not None:
                placed.append((i, limit_run))
            elif d is _MISSING and self._is_deferred(r.tool):
                # interrupted before it was deferred: it waits for its result now
                q = PendingCall(p.call, n, "deferred", "toolwire does not run this tool: supply its result")
                still.append(q)
                placed.append((i, self._placeholder(p.call, n, "deferred")))
                announce.append(ToolCallPending(n, q))
            elif d is _MISSING and not p.approved and (why := await self._approval_needed(r)) is not None:
                # interrupted without a decision: a call that needs approval is asked about again
                q = PendingCall(p.call, n, "approval", why)
                still.append(q)
                placed.append((i, self._placeholder(p.call, n, "approval")))
                announce.append(ToolCallPending(n, q))
            else:
                self._count(r.call)
                jobs.append((i, r))
        # nothing awaited from here until the batch: the state changes in one step
        for i, run in placed:
            if run.status == "deferred":
                self._count(run.call)
            self._place(b, i, run)
        st.pending = still
        for _i, run in placed:
            if run.status != "pending":
                yield ToolFinished(n, run)
        for e in announce:
            yield e
        async for ev in self._run_batch(n, last, msg, jobs):  # type: ignore[arg-type]
            yield ev

    # -- stopping ---------------------------------------------------------------------------
    def _stop(self, status: str, why: str) -> None:
        """Leave the state valid after an exception, a cancellation or a closed stream."""
        st = self.state
        st.status, st.error = status, why
        st.stop_reason = None
        if self._asm is not None:  # stopped mid-stream: keep what arrived, out of the conversation
            try:
                partial = self._asm.response()
            except Exception:  # pragma: no cover - defensive: the half-assembled parts are unusable
                partial = Response()
            parts: list[Part] = [p for p in partial.parts if isinstance(p, (TextPart, ReasoningPart))]
            # A request that failed counts no tokens and no request, as an unstreamed one that
            # failed adds no turn at all: what its stream had reported is on the error
            # (ProviderError.usage). A stream the run's own caller stopped keeps its counts.
            usage = Usage(input_tokens=0, output_tokens=0) if status == "failed" else partial.usage
            st.turns.append(
                Turn(
                    self._asm_turn,
                    Response(parts, "error", None, usage, partial.model, partial.response_id, partial.provider),
                    interrupted=status,
                )
            )
            self._asm = None
        reason = "cancelled" if status == "cancelled" else why
        msgs = st.conversation.messages
        if (
            msgs
            and msgs[-1].role == "assistant"
            and msgs[-1].tool_calls
            and st.turns
            and st.turns[-1].interrupted is None
        ):
            # stopped between the response and its answers (at an event, in an approval policy):
            # answer every call, to be run (or asked about) again on resume
            turn = st.turns[-1]
            calls = msgs[-1].tool_calls
            self._answer_all(
                turn,
                [
                    ToolRun(
                        c,
                        ToolResult(c.id, _text_cancelled(self.executor.seen(c.name), False, reason), True, c.name),
                        0.0,
                        turn.number,
                        status="cancelled",
                    )
                    for c in calls
                ],
            )
            st.pending.extend(self._interrupted(c, turn.number, reason) for c in calls)
        b = self._batch
        if b is not None:
            running: list[tuple[int, asyncio.Task[Any] | None]] = list(b.tasks.items())
            if b.direct is not None:
                running.append((b.direct, None))
            for i, task in running:
                if i in b.done:
                    continue
                if task is None:
                    pass  # awaited by the loop itself: its wait was ended by this stop
                elif task.done() and not task.cancelled() and task.exception() is None and task.result() is not None:
                    self._place(b, i, task.result())
                    continue
                else:
                    task.cancel()
                call = b.turn.tool_runs[i].call
                self._place(
                    b,
                    i,
                    ToolRun(
                        call,
                        ToolResult(
                            call.id,
                            _text_cancelled(self.executor.seen(call.name), i in b.started, reason),
                            True,
                            call.name,
                        ),
                        0.0,
                        b.number,
                        status="cancelled",
                    ),
                )
                st.pending.append(self._interrupted(call, b.number, reason))
        self._interrupt_waiting(reason)

    def _interrupted(self, call: ToolCall, n: int, why: str) -> PendingCall:
        """The pending entry of a call the stop interrupted (approved, with its edited arguments,
        when a decision approved it)."""
        if call.id not in self._approved:
            return PendingCall(call, n, "interrupted", why)
        return PendingCall(call, n, "interrupted", why, True, copy.deepcopy(self._approved[call.id]))

    def _interrupt_waiting(self, reason: str) -> None:
        """After a stop: list as interrupted the calls of the last turn that were still waiting
        to run, answered only by a placeholder and not pending — the run stopped after the turn's
        calls were answered but before its batch started them (the stream closed at a
        ``ToolFinished`` or ``ToolCallPending`` that comes first), or, on a resume, after the
        decisions were applied (approved calls are no longer pending until they run). A resume
        runs them; the pending calls are sorted in call order."""
        st = self.state
        msgs = st.conversation.messages
        if not st.turns or not msgs or msgs[-1].role != "user" or st.turns[-1].interrupted is not None:
            return
        turn, msg = st.turns[-1], msgs[-1]
        known = {p.call.id for p in st.pending}
        for i, r in enumerate(turn.tool_runs):
            c = r.call
            if (
                r.status not in ("cancelled", "pending")
                or c.id in known
                or i >= len(msg.parts)
                or getattr(msg.parts[i], "tool_call_id", None) != c.id
            ):
                continue
            run = ToolRun(
                c,
                ToolResult(c.id, _text_cancelled(self.executor.seen(c.name), False, reason), True, c.name),
                0.0,
                turn.number,
                status="cancelled",
            )
            turn.tool_runs[i], msg.parts[i] = run, run.result
            st.pending.append(self._interrupted(c, turn.number, reason))
        if st.pending:
            order = {r.call.id: k for k, r in enumerate(turn.tool_runs)}
            st.pending.sort(key=lambda p: (p.turn, order.get(p.call.id, 0)))

    async def _reap(self) -> None:
        """Let the cancelled tool tasks finish their cancellation (briefly: a tool that ignores it
        is abandoned, its answer already written as cancelled)."""
        b, self._batch = self._batch, None
        if b is None:
            return
        tasks = [t for t in b.tasks.values() if not t.done()]
        if tasks:
            try:
                await asyncio.wait(tasks, timeout=1.0)
            except BaseException:  # cancelled again while cleaning up: the state is already written
                pass
        for t in b.tasks.values():
            if t.done() and not t.cancelled():
                t.exception()  # retrieved: no "exception was never retrieved" warning


_MISSING: Any = object()


def _supplied_result(call: ToolCall, value: Any) -> ToolResult:
    """The result a user supplied for a deferred (or interrupted) call."""
    if isinstance(value, ToolResult):
        return replace(value, tool_call_id=call.id, name=value.name or call.name)
    if isinstance(value, BaseException):  # a ToolError included: as a tool raising it
        return error_result(call, value)
    try:
        content = to_result_content(value)
    except Exception as exc:  # bytes that are not UTF-8, a __str__ that raises: as a tool returning it
        return ToolResult(call.id, _describe(exc), True, call.name)
    return ToolResult(call.id, content, False, call.name)


def _direct(tool: Tool) -> bool:
    """A tool whose call the loop may await without a task of its own: a synchronous function run
    in a worker thread (its future is cancelled with the run) or called on the loop
    (``blocking=False``), through :meth:`Tool.call` itself."""
    return type(tool).call is Tool.call and tool.function is not None and not tool.is_async


def _shown_names(m: Model, tool_map: Mapping[str, Tool]) -> Mapping[str, str]:
    """``{tool name: wire name}`` of the run's tools that ``m``'s API sends under another name
    (:meth:`toolwire.profile.Profile.wire_tool_names`), for the texts the loop gives the model."""
    if not tool_map:
        return {}
    try:
        shown = m.profile.wire_tool_names(list(tool_map))
    except Exception:  # a third-party profile failing here: the texts name each tool by its own name
        return {}
    return dict(shown) if shown else {}


def _against_forced_choice(call: ToolCall, n: int, choice: Any, seen: Any = None) -> ToolRun | None:
    """The error run for a call to another tool than the one this request forced
    (``tool_choice={"type": "tool", "name": N}``), else ``None``. A server that cannot express a
    forced tool may ignore it (llama.cpp's server falls back to ``"auto"`` for the object form):
    such a call is answered, never run. ``seen(name)``: a tool's name as the model knows it
    (:meth:`toolwire.executor.ToolExecutor.seen`: the tool ``python`` is ``run_python`` on
    OpenAI), which the text names, since the model can call only that."""
    if not isinstance(choice, dict) or choice.get("type") != "tool" or call.name == choice.get("name"):
        return None
    forced = choice.get("name")
    if seen is not None:
        forced, called = seen(forced), seen(call.name)
    else:
        called = call.name
    text = (
        f"Not run: this request forced the tool {forced!r} (tool_choice), but the model called {called!r}; "
        f"the server did not apply the forced choice. Call {forced!r} instead."
    )
    return ToolRun(call, ToolResult(call.id, text, is_error=True, name=call.name), 0.0, n, status="invalid")


class _Pass:
    """Awaiting it hands ``value`` — what a coroutine driven by hand yielded (a future, or
    ``None`` for a bare yield) — to the task running the loop, and resumes with what the task
    sends or throws: the body of ``yield from``, one step at a time."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, Any, None]:
        yield self.value


def _retries(m: Any) -> bool:
    """Whether ``m`` may send a request again (a retry policy of more than one attempt)."""
    policy = getattr(m, "retry_policy", None)
    return policy is not None and getattr(policy, "max_attempts", 1) > 1


class _Request:
    """One request of a model that retries, driven by the loop step by step instead of running
    as a task: each step runs the request's coroutine (``m.send(request)``) up to its next wait
    with the retry listener set, so the notices of the retries it schedules are collected here
    and the loop yields them as ``RetryScheduled`` while the request waits (before each retry's
    sleep). The listener is set only while the request's own code runs."""

    __slots__ = ("coro", "notices", "step", "response", "finished")

    def __init__(self, m: Any, request: Any) -> None:
        self.coro = m.send(request)
        self.notices: list[RetryNotice] = []
        self.step: Any = None
        self.response: Any = None
        self.finished = False

    def advance(self, thrown: BaseException | None = None) -> bool:
        """Run the request up to its next wait (resumed with ``thrown`` raised inside it, when
        given); ``True`` once it finished with :attr:`response`. Raises what the request raises."""
        token = _retry_listener.set(self.notices.append)
        try:
            self.step = self.coro.send(None) if thrown is None else self.coro.throw(thrown)
            return False
        except StopIteration as stop:
            self.finished = True
            self.response = stop.value
            return True
        except BaseException:
            self.finished = True
            raise
        finally:
            _retry_listener.reset(token)


async def _send_noting(req: _Request, n: int) -> AsyncIterator[Any]:
    """The rest of a :class:`_Request` that waits: a ``RetryScheduled`` for each retry it
    announced (before its wait), then the response. What the task running the loop throws in
    while the request waits (a cancellation) is raised inside the request, as it would be in a
    task of its own; closed early, the request is cancelled and left to finish its cleanup."""
    try:
        while True:
            while req.notices:
                notice = req.notices.pop(0)
                yield RetryScheduled(n, notice.attempt, notice.delay, notice.describe(), notice.usage)
            thrown: BaseException | None = None
            try:
                await _Pass(req.step)
            except BaseException as exc:  # thrown into this task: the request gets it
                thrown = exc
            if req.advance(thrown):
                break
    finally:
        if not req.finished:  # closed while the request waits: cancel it, as a task is cancelled
            await _abandon(req.coro)
    while req.notices:  # pragma: no cover - a notice is always followed by a wait
        notice = req.notices.pop(0)
        yield RetryScheduled(n, notice.attempt, notice.delay, notice.describe(), notice.usage)
    yield req.response


async def _abandon(coro: Any) -> None:
    """Cancel a request's coroutine suspended in :func:`_send_noting` and drive it to its end (its
    cleanup may await); what it raises is dropped."""
    thrown: BaseException | None = asyncio.CancelledError()
    while True:
        try:
            step = coro.send(None) if thrown is None else coro.throw(thrown)
        except BaseException:
            return
        thrown = None
        try:
            await _Pass(step)
        except BaseException as exc:
            thrown = exc


#: The canonical stream event classes (an event of exactly one of them is no RetryNotice).
_STREAM_EVENTS = frozenset(
    (
        _wire.ResponseStart,
        _wire.TextDelta,
        _wire.ReasoningDelta,
        _wire.ToolCallStart,
        _wire.ToolCallDelta,
        _wire.ToolCallEnd,
        _wire.UsageUpdate,
        _wire.ProviderToolDone,
        _wire.StopEvent,
    )
)


def _delta(n: int, sev: Any) -> Any:
    """The run event of one canonical stream event (``None`` for those that carry no delta)."""
    if isinstance(sev, _wire.TextDelta):
        return TextDelta(n, sev.index, sev.text) if sev.text else None
    if isinstance(sev, _wire.ReasoningDelta):
        return ReasoningDelta(n, sev.index, sev.text) if sev.text else None
    if isinstance(sev, _wire.ToolCallStart):
        return ToolCallStarted(n, sev.index, sev.id, sev.name)
    if isinstance(sev, _wire.ToolCallDelta):
        return ToolCallArgumentsDelta(n, sev.index, sev.arguments_fragment) if sev.arguments_fragment else None
    if isinstance(sev, _wire.ProviderToolDone):
        return _provider_tool_event(n, sev.index, sev.part)
    return None


def _provider_tool_event(n: int, index: int, part: ProviderToolPart) -> Any:
    return (ProviderToolCalled if part.kind == "call" else ProviderToolResult)(n, index, part)


def _whole(n: int, response: Response) -> Iterator[Any]:
    """A whole (not streamed) response as the same deltas a stream would give."""
    for i, part in enumerate(response.parts):
        if isinstance(part, TextPart):
            if part.text:
                yield TextDelta(n, i, part.text)
        elif isinstance(part, ReasoningPart):
            if part.text:
                yield ReasoningDelta(n, i, part.text)
        elif isinstance(part, ToolCall):
            yield ToolCallStarted(n, i, part.id, part.name)
            if part.raw_arguments:
                yield ToolCallArgumentsDelta(n, i, part.raw_arguments)
        elif isinstance(part, ProviderToolPart):
            yield _provider_tool_event(n, i, part)


class RunStream:
    """The handle of one run: an async iterator of its events (:mod:`toolwire.events`) and its
    state.

    - ``async for event in stream`` yields the events as the run goes, each typed
      :data:`toolwire.events.RunEvent` (narrow with ``isinstance`` or ``match``);
    - ``state``: the :class:`~toolwire.runstate.RunState`, updated in place and valid after any
      stop — a cancelled task (``asyncio.wait_for``, ``asyncio.timeout``, Ctrl-C, a closed web
      request) still ends cancelled, and ``stream.state`` holds the partial run: completed tool
      results kept, running tools answered as cancelled, streamed text kept in the turn record;
    - ``result``: the :class:`RunResult` once ``RunFinished`` was yielded, else ``None``;
    - ``await stream.finish()``: consume the remaining events and return the result (raising
      :class:`~toolwire.errors.RunLimitExceeded` for a limit stop, as :func:`run` does);
    - ``async with toolwire.run_stream(...) as stream:`` closes the run when the block is left
      early (the state then says ``"cancelled"``, ``error="the event stream was closed"``).
    """

    def __init__(self, loop: _Loop, tracing: Any = None) -> None:
        self._loop = loop
        self.state: RunState = loop.state
        self._events: Any = loop.events()  # an async generator: aclose() ends it
        self._observer: Any = None
        if tracing is not None:
            self._observer = tracing.observer(self, loop.m)
            # each tool runs inside its execute_tool span (its own spans become children of it)
            loop.executor.scope = getattr(self._observer, "tool_scope", None)
            # the observer reads the events inside an async generator of its own, so that a
            # stream dropped without aclose() (``async for ... break``) still ends its spans: Python
            # closes an abandoned async generator (asyncio's finaliser), which reaches _observed
            self._events = _observed(self._events, self._observer)

    @property
    def result(self) -> RunResult | None:
        """The :class:`RunResult` once ``RunFinished`` was yielded, else ``None``."""
        return self._loop.result

    @property
    def run_id(self) -> str:
        return self.state.run_id

    def __aiter__(self) -> AsyncIterator[RunEvent]:
        # ``async for`` iterates the generator itself (the loop's own, or the tracing one around
        # it): one coroutine per event less (``__anext__`` would only pass the event on)
        return self._events

    async def __anext__(self) -> RunEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the run (if it is still going) and leave its state valid."""
        await self._events.aclose()
        loop = self._loop
        if not loop.started and self.state.status == "running":  # closed before its first event
            loop.started = True  # (its events can no longer be read)
            loop._stop("cancelled", "the event stream was closed")
        if self._observer is not None:
            self._observer.closed()

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def finish(self) -> RunResult:
        """Consume the remaining events; return the :class:`RunResult`. Raises what :func:`run`
        raises."""
        finished: RunFinished | None = None
        if self._observer is None:  # no one sees the events from here on: the loop builds only RunFinished
            self._loop.quiet = True
        async for event in self._events:
            if type(event) is RunFinished:
                finished = event
        return _finished_result(finished or self._loop.finished, self._loop)


async def _observed(events: Any, observer: Any) -> AsyncIterator[Any]:
    """``events`` (the loop's generator), each shown to the tracing ``observer`` before it is
    yielded; the observer is told how the events ended: consumed to the end, failed with an
    exception (a cancellation included) or closed early — by ``aclose()`` or, for a stream that
    was dropped unclosed, by the interpreter's async-generator finaliser."""
    try:
        while True:
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                break
            observer(event)
            yield event
    except GeneratorExit:
        try:
            await events.aclose()
        finally:
            observer.closed()
        raise
    except BaseException as exc:
        observer.failed(exc)
        raise
    observer.closed()


#: toolwire.registry.model_for_run and toolwire.tracing.active, imported by the first run
_resolve_model: Any = None
_active_tracing: Any = None


def run_stream(
    model: Any,
    prompt: Any = None,
    *,
    tools: Sequence[Any] | None = None,
    instructions: str | None = None,
    tool_choice: Any = None,
    max_turns: int = 20,
    limits: Limits | Mapping[str, Any] | None = None,
    conversation: Conversation | None = None,
    state: dict[str, Any] | None = None,
    on_turn: Callable[[Turn], Any] | None = None,
    run_id: str | None = None,
    approval: Any = None,
    deferred: Iterable[str] | None = None,
    before_tool_call: Callable[[ToolCall], Any] | None = None,
    after_tool_call: Callable[[ToolRun], Any] | None = None,
    resume: RunState | RunResult | None = None,
    decisions: Mapping[str, Any] | None = None,
    tracing: Any = None,
) -> RunStream:
    """Start the tool loop as a stream of events; returns the :class:`RunStream` handle.

    Takes the arguments of :func:`run`. Argument errors raise :class:`ConfigurationError` here,
    before anything is sent. The run starts when the stream is first iterated.
    """
    global _resolve_model, _active_tracing
    if _resolve_model is None:
        from .registry import model_for_run  # a model string is resolved once per event loop
        from .tracing import active

        _resolve_model, _active_tracing = model_for_run, active
    if type(max_turns) is not int and (not isinstance(max_turns, int) or isinstance(max_turns, bool)) or max_turns < 1:
        raise ConfigurationError(f"max_turns must be a whole number ≥ 1, got {max_turns!r}")
    if limits is None:
        pass
    elif type(limits) is Limits or isinstance(limits, Limits):
        limits.check_fields()  # a field set after the limits were made (limits.max_cost_usd = "1")
    elif isinstance(limits, Mapping):
        bad = [k for k in limits if k not in _LIMIT_FIELDS]
        if bad:
            from .design.suggest import did_you_mean

            hint = did_you_mean(bad[0], sorted(_LIMIT_FIELDS)) if isinstance(bad[0], str) else None
            raise ConfigurationError(
                f"limits has no field {', '.join(map(repr, bad))}; the fields are {', '.join(sorted(_LIMIT_FIELDS))}"
                + (f". {hint}" if hint else "")
            )
        limits = Limits(**limits)
    else:
        raise ConfigurationError(
            f"limits must be a toolwire.Limits (or a dict of its fields), got {type(limits).__name__}"
        )
    if before_tool_call is not None or after_tool_call is not None:
        for name, hook in (("before_tool_call", before_tool_call), ("after_tool_call", after_tool_call)):
            if hook is not None and not callable(hook):
                raise ConfigurationError(f"{name} must be a function (sync or async), got {type(hook).__name__}")
    if run_id is not None and (not isinstance(run_id, str) or not run_id or not _utf8(run_id)):
        raise ConfigurationError(f"run_id must be non-empty text (UTF-8, no lone surrogates), got {run_id!r}")
    if instructions is not None and not isinstance(instructions, str):
        raise ConfigurationError(f"instructions must be text (or None), got {type(instructions).__name__}")
    if on_turn is not None and not callable(on_turn):
        raise ConfigurationError(
            f"on_turn must be a function (sync or async) of the turn, got {type(on_turn).__name__}"
        )
    if approval is not None and not (isinstance(approval, (bool, set, frozenset, list, tuple)) or callable(approval)):
        raise ConfigurationError(
            f"approval must be True, a collection of tool names or a function of the call, got {type(approval).__name__}"
        )
    if deferred is not None and isinstance(deferred, str):
        deferred = [deferred]
    elif deferred is not None and not isinstance(deferred, Iterable):
        raise ConfigurationError(f"deferred= takes tool names (a list of text), got {type(deferred).__name__}")
    if decisions is not None:
        _check_decisions_shape(decisions)
    m: Model = _resolve_model(model)
    tool_map = _as_tools(tools)
    choice = normalize_tool_choice(tool_choice)
    if type(choice) is dict and choice["name"] not in tool_map:
        raise ConfigurationError(_not_among_tools("tool_choice", choice["name"], tool_map))
    for name in approval if approval is not None and isinstance(approval, (set, frozenset, list, tuple)) else ():
        _check_tool_name("approval", name)
        if name not in tool_map:
            raise ConfigurationError(_not_among_tools("approval", name, tool_map))
    for name in deferred or ():
        _check_tool_name("deferred", name)
        if name not in tool_map:
            raise ConfigurationError(_not_among_tools("deferred", name, tool_map))
    # a limit on a name the run lacks would never apply (an MCP tool 'files.read' is 'files_read'
    # for the model, and combine() prefixes colliding names): said, as for approval= and deferred=
    for name in limits.max_calls_per_tool or () if limits is not None else ():
        if name not in tool_map:
            raise ConfigurationError(_not_among_tools("Limits.max_calls_per_tool", name, tool_map))
    if decisions and resume is None:
        raise ConfigurationError("decisions= answers the pending calls of a saved run: pass that run as resume=")
    msg = _prompt_message(prompt)
    unanswered: list[ToolCall] = []
    if resume is not None:
        if conversation is not None:
            raise ConfigurationError("pass either resume= (a saved run) or conversation=, not both")
        saved = resume.state if isinstance(resume, RunResult) else resume
        if not isinstance(saved, RunState):
            raise ConfigurationError(
                f"resume= takes a RunState or a RunResult (e.g. RunState.from_json(text)), got {type(resume).__name__}"
            )
        _check_saved(saved)
        if msg is not None and saved.pending:
            raise ConfigurationError(
                "the saved run has pending tool calls: resume it with decisions= first, then send a new prompt"
            )
        if decisions and not saved.pending:
            raise ConfigurationError(
                f"decisions name tool calls that are not pending: {sorted(decisions)}; the saved run has no pending calls"
            )
        if decisions:
            _check_decisions(saved.pending, decisions)
        st = _resumable_copy(saved)
        st.model = m.name  # continuing on another model is allowed
        if run_id is not None:
            st.run_id = run_id
        if instructions is not None:
            st.conversation.instructions = instructions
    else:
        # a copy: continuing a run never changes the conversation of the run it continues
        conv = (
            _checked_conversation(conversation) if conversation is not None else Conversation(instructions=instructions)
        )
        if conversation is not None and instructions is not None:
            conv.instructions = instructions
        # a call the supplied history left unanswered is answered "not answered" (same on every API)
        conv.messages, unanswered = answer_unanswered(conv.messages)
        st = RunState(run_id or _new_run_id(), m.name, conv)
    if msg is not None:
        st.conversation.messages.append(msg)
    if not st.conversation.messages:  # same on every API: no request without a message
        raise ConfigurationError(
            "nothing to send: the prompt is empty and there is no conversation; "
            "pass a prompt (non-empty text, a Message or parts) or a conversation to continue"
        )
    loop = _Loop(
        m,
        st,
        tool_map=tool_map,
        choice=choice,
        max_turns=max_turns,
        limits=limits or _NO_LIMITS,
        on_turn=on_turn,
        context_state=state,
        approval=approval,
        deferred=frozenset(deferred or ()),
        before=before_tool_call,
        after=after_tool_call,
        decisions=decisions,
        resumed=resume is not None,
    )
    loop.unanswered = unanswered
    return RunStream(loop, _active_tracing(tracing))


def _check_tool_name(setting: str, name: Any) -> None:
    """:class:`ConfigurationError` when ``name``, given in ``approval=`` or ``deferred=``, is not
    text (a list inside the list, a number)."""
    if not isinstance(name, str):
        raise ConfigurationError(
            f"{setting} names {_shown(name)}, which is not a tool name (text); "
            f"give the names of the tools as a list of text, e.g. {setting}=['transfer']"
        )


def _check_decisions_shape(decisions: Any) -> None:
    """:class:`ConfigurationError` when ``decisions=`` is not a mapping of tool call ids (text) to
    decisions: a list of pairs, a set or a bare id, keys that are no text."""
    example = "e.g. decisions={'call_1': toolwire.Approved()}"
    if not isinstance(decisions, Mapping):
        raise ConfigurationError(
            f"decisions= takes a dict of tool call id to decision, got {type(decisions).__name__}; {example} "
            "(the ids are the pending calls' call.id)"
        )
    for cid in decisions:
        if not isinstance(cid, str):
            raise ConfigurationError(
                f"decisions= keys are tool call ids (text), got {type(cid).__name__} {_shown(cid)}; {example}"
            )


def _check_decisions(pending: Sequence[PendingCall], decisions: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigurationError` for a decision that cannot apply: one for a call that is
    not pending, one that is not ``Approved``/``Denied`` for a call waiting for approval, an
    ``Approved`` for a deferred call, ``Approved(arguments=...)`` that is not a dict. Checked when
    the stream is made, before any event (the loop checks them again as it applies them)."""
    kinds = {p.call.id: p.kind for p in pending}
    unknown = sorted(set(decisions) - kinds.keys())
    if unknown:
        raise ConfigurationError(f"decisions name tool calls that are not pending: {unknown}; pending: {sorted(kinds)}")
    for cid, d in decisions.items():
        kind = kinds[cid]
        if kind == "deferred" and isinstance(d, Approved):
            raise ConfigurationError(
                f"tool call {cid} is deferred: supply its result (a value or a ToolResult), not Approved()"
            )
        if kind == "approval" and not isinstance(d, (Approved, Denied)):
            raise ConfigurationError(
                f"the decision for tool call {cid} must be toolwire.Approved(...) or toolwire.Denied(reason), got {type(d).__name__}"
            )
        if isinstance(d, Approved) and d.arguments is not None and not isinstance(d.arguments, dict):
            raise ConfigurationError(f"Approved(arguments=...) takes a dict, got {type(d.arguments).__name__}")


def _new_run_id() -> str:
    """A random run id: the hex form of a version-4 UUID (``uuid.uuid4().hex``), without
    building the ``UUID`` object. The random bytes are read from ``os.urandom`` for
    :data:`_RUN_IDS_PER_READ` ids at a time (one system call, not one per run); each id is taken
    once (``next`` on a list iterator is atomic: two threads never get the same one), and a
    forked child drops the ids its parent read (it reads its own)."""
    rid = next(_run_ids, None)
    return rid if rid is not None else _read_run_ids()


#: How many run ids one ``os.urandom`` read makes.
_RUN_IDS_PER_READ = 64
_run_ids: Iterator[str] = iter(())


def _read_run_ids() -> str:
    global _run_ids
    raw = bytearray(_urandom(16 * _RUN_IDS_PER_READ))
    for k in range(0, len(raw), 16):
        raw[k + 6] = (raw[k + 6] & 0x0F) | 0x40  # version 4 (RFC 4122 §4.4)
        raw[k + 8] = (raw[k + 8] & 0x3F) | 0x80  # the RFC 4122 variant
    ids = [raw[k : k + 16].hex() for k in range(0, len(raw), 16)]
    _run_ids = iter(ids[1:])
    return ids[0]


def _forget_run_ids() -> None:
    global _run_ids
    _run_ids = iter(())


if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_forget_run_ids)  # a child never repeats its parent's ids


def _report_unanswered(m: Model, report: Any, calls: list[ToolCall]) -> Any:
    """``report`` (a turn's ``Response.preflight``, or ``None``) with the answers to ``calls``
    recorded first (rule ``conversation.unanswered-call``)."""
    from .profile import RequestReport
    from .turns import report_unanswered

    profile = m.profile
    if report is None:
        report = RequestReport(profile.api or m.provider)
    return report_unanswered(report, calls, f"/{profile.messages_key}" if profile.messages_key else "")


def _check_saved(saved: RunState) -> None:
    """Raise :class:`ConfigurationError` when ``saved`` (a state given to ``resume=``, perhaps
    changed in code since it was loaded) is not one a run can continue: its conversation is
    checked as ``conversation=`` is, its turns and pending calls must be lists of ``Turn`` and
    ``PendingCall``, its ``run_id`` text and its ``status`` a known one."""
    _checked_conversation(saved.conversation, "the saved run's conversation")
    for name, kind in (("turns", Turn), ("pending", PendingCall)):
        items: Any = getattr(saved, name)
        wrong = (
            type(items).__name__
            if not isinstance(items, list)
            else next((f"a {type(x).__name__} in it" for x in items if not isinstance(x, kind)), None)
        )
        if wrong is not None:
            raise ConfigurationError(
                f"the saved run's {name} must be a list of toolwire {kind.__name__} objects, got {wrong}; "
                "load a saved run with RunState.from_json(text)"
            )
    if not isinstance(saved.run_id, str) or not saved.run_id:
        raise ConfigurationError(f"the saved run's run_id must be non-empty text, got {saved.run_id!r:.40}")
    if saved.status not in RUN_STATUSES:
        raise ConfigurationError(f"the saved run's status must be one of {RUN_STATUSES}, got {saved.status!r:.40}")
    _check_saved_consistent(saved)


def _check_saved_consistent(saved: RunState) -> None:
    """Raise :class:`ConfigurationError` when the parts of ``saved`` disagree (a state edited by
    hand or put together in code), before anything runs: a resume of such a state would run a
    call with arguments the model never sent, run a call that already has its result, or number
    turns twice. The turns must be numbered 1, 2, 3, ... in order, each tool run recording the
    number of its turn; the status must agree with the rest (``runstate.status_problem``: a
    ``"finished"`` run has no pending calls, a ``"paused"`` one no model stop reason); every tool run's call is a call of the conversation; a pending call (and an
    unanswered call of the last turn) is the call of that id in the conversation's last assistant
    message, with the same name and arguments, and the conversation still answers it with its
    placeholder."""
    edited = "(was the state edited?)"
    problem = turn_numbering_problem(saved.turns) or tool_run_turn_problem(saved.turns)
    if problem is not None:
        raise ConfigurationError(f"cannot resume: the saved run's {problem.removeprefix('at ')} {edited}")
    problem = status_problem(saved.status, saved.stop_reason, saved.pending, saved.turns)
    if problem is not None:
        head, sep, rest = problem.partition("; ")
        raise ConfigurationError(f"cannot resume: the saved run's {head.removeprefix('at ')} {edited}{sep}{rest}")
    msgs = saved.conversation.messages
    in_conversation = {c.id for m in msgs if m.role == "assistant" for c in m.tool_calls}
    for t in saved.turns:
        for r in t.tool_runs:
            if r.call.id not in in_conversation:
                raise ConfigurationError(
                    f"cannot resume: turn {t.number} records a run of tool call {r.call.id!r}, which is not a tool "
                    f"call of the saved conversation {edited}; the turns record the conversation's calls. To go on "
                    "from an edited conversation, start a new run with conversation=state.conversation"
                )
    last = saved.turns[-1] if saved.turns else None
    if last is None or len(msgs) < 2 or msgs[-1].role != "user" or msgs[-2].role != "assistant":
        return  # (a pending call without its place is refused as the pending calls are settled)
    sent = {c.id: c for c in msgs[-2].tool_calls}
    answers = {getattr(part, "tool_call_id", None): part for part in msgs[-1].parts}
    runs = {r.call.id: r for r in last.tool_runs}
    waiting: list[tuple[str, ToolCall]] = [(f"pending tool call {p.call.id!r}", p.call) for p in saved.pending]
    waiting += [
        (f"tool call {r.call.id!r} of turn {last.number} (not run yet)", r.call)
        for r in last.tool_runs
        if r.status in ("pending", "cancelled")
    ]
    for what, call in waiting:
        model_call = sent.get(call.id)
        run = runs.get(call.id)
        if model_call is None or (run is not None and run.status not in ("pending", "cancelled")):
            continue  # refused as the pending calls are settled (no place, or a result already)
        if model_call.name != call.name or model_call.arguments != call.arguments:
            raise ConfigurationError(
                f"cannot resume: {what} is {_shown_call(call)}, but the conversation's call {call.id!r} (what the "
                f"model sent) is {_shown_call(model_call)} {edited}; put back the model's name and arguments, and to "
                f"run it with other arguments resume with decisions={{{call.id!r}: toolwire.Approved(arguments=...)}}"
            )
        answer = answers.get(call.id)
        if run is not None and answer is not None and answer != run.result:
            raise ConfigurationError(
                f"cannot resume: {what} waits for its result, but the saved conversation answers it with "
                f"{_shown(getattr(answer, 'text', answer))} instead of its placeholder {_shown(run.result.text)} "
                f"{edited}; a call with a result is never run again. If that is its result, record it in the tool "
                "run (status 'ran') and remove the call from pending; else put the placeholder back"
            )


def _shown_call(call: ToolCall) -> str:
    return f"{_shown(call.name)} with arguments {_shown(call.arguments)}"


def _resumable_copy(saved: RunState) -> RunState:
    """A copy the resumed run may change without changing ``saved`` (lists copied; the last
    message and turn, whose placeholders get replaced, copied too)."""
    msgs = list(saved.conversation.messages)
    if msgs:
        last = msgs[-1]
        msgs[-1] = Message(last.role, list(last.parts), dict(last.provider_data))
    turns = list(saved.turns)
    pending = list(saved.pending)
    if turns:
        t = turns[-1]
        turns[-1] = Turn(t.number, t.response, list(t.tool_runs), t.interrupted)
        # A call of the last turn answered only by a placeholder and not pending has no result
        # yet: a state saved while its run was still going (a stream left without closing it, a
        # process that died — also while a resume ran the calls it had approved, whose
        # "waiting for approval" placeholder stays until they finish) or one whose pending list
        # lost an entry. It is an interrupted call, run (or asked about) again, as after a close;
        # left out, it would stay unanswered for good. (An approval given before a crash is not
        # in the saved state: such a call is asked about again.)
        known = {p.call.id for p in pending}
        unlisted = [
            PendingCall(r.call, t.number, "interrupted", "the run stopped before this call finished")
            for r in t.tool_runs
            if r.status in ("cancelled", "pending") and r.call.id not in known
        ]
        if unlisted:
            order = {r.call.id: k for k, r in enumerate(t.tool_runs)}
            pending = sorted(pending + unlisted, key=lambda p: (p.turn, order.get(p.call.id, 0)))
    return RunState(
        saved.run_id,
        saved.model,
        Conversation(msgs, saved.conversation.instructions),
        turns,
        pending,
        saved.status,
        saved.stop_reason,
        saved.error,
    )


#: The keyword arguments :func:`run_stream` takes; :func:`run`, :func:`run_sync` and
#: :func:`run_stream_sync` pass theirs on and check the names first (see ``_check_run_arguments``).
def _not_among_tools(setting: str, name: Any, tool_map: Mapping[str, Any]) -> str:
    """The message for a ``setting`` of :func:`run_stream` naming ``name``, which is not one of the
    run's tools: the tools, and the closest names when there are any (``"refnd"`` → ``'refund'``)."""
    from .design.suggest import did_you_mean  # the "did you mean" of unknown tool calls and file names

    line = f"{setting} names {name!r}, which is not among the tools: {sorted(tool_map)}"
    hint = did_you_mean(name, sorted(tool_map)) if isinstance(name, str) and name else None
    return f"{line}. {hint}" if hint else line


_RUN_PARAMETERS: frozenset[str] = frozenset(
    name for name in inspect.signature(run_stream).parameters if name not in ("model", "prompt")
)


def _check_run_arguments(function: str, kwargs: Mapping[str, Any]) -> None:
    """Raise ``TypeError`` naming ``function`` and the nearest valid name for each keyword that
    :func:`run_stream` does not take (``tool=`` for ``tools=``, ``max_turn=`` for ``max_turns=``).
    Without it Python's own error names ``run_stream()``, which the caller never called."""
    unknown = [name for name in kwargs if name not in _RUN_PARAMETERS]
    if not unknown:
        return
    import difflib

    hints = []
    limit_fields = {f.name for f in fields(Limits)}
    for name in unknown:
        if name in limit_fields:  # a Limits field given to run() itself
            hints.append(f"{name!r} (a Limits field: limits=toolwire.Limits({name}=...))")
            continue
        close = difflib.get_close_matches(name, sorted(_RUN_PARAMETERS), n=1, cutoff=0.6)
        hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise TypeError(
        f"{function}() got unexpected keyword argument{'s' if len(unknown) > 1 else ''} {', '.join(hints)}. "
        f"It takes model, prompt and the keywords: {', '.join(sorted(_RUN_PARAMETERS))}."
    )


async def run(model: Any, prompt: Any = None, **kwargs: Any) -> RunResult:
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
    - ``max_turns``: the most model requests in this call (≥ 1);
    - ``limits``: :class:`Limits`; ``state``: a dict every :class:`~toolwire.context.ToolContext`
      shares; ``on_turn``: called (awaited if async) after each turn, e.g. to print it;
    - ``approval``: which calls wait for a person — ``True`` (all), a collection of tool names,
      or a function of the :class:`ToolCall` (sync or async) returning true (or a reason text)
      when the call needs approval (one that raises, or answers with no truth value or with an
      ``Approved``/``Denied``, makes the call wait: it fails closed); a tool's
      ``meta["requires_approval"]`` (``True`` or such a function) takes precedence. The run then stops with ``stop_reason="pending"`` and
      ``RunResult.pending``;
    - ``deferred``: names of tools toolwire does not run (also ``meta["deferred"] = True``): the
      run stops with their calls pending, to be resumed with their results;
    - ``before_tool_call(call)``: sync or async, gets a copy of the call; return ``None`` (run
      as is, or with the arguments it changed in place), a dict (new arguments, validated again)
      or ``toolwire.Denied(reason)`` (not run; the model is told why);
    - ``after_tool_call(run)``: sync or async, gets a copy of the :class:`ToolRun`; return
      ``None`` (keep the result, or the one it changed in place) or a :class:`ToolResult` / any
      content to replace the result. A hook returning what cannot be used raises
      :class:`ConfigurationError`; an exception in a hook stops the run (and propagates); the
      state stays valid;
    - ``resume``: a saved :class:`RunState` or :class:`RunResult` to continue; ``decisions``:
      ``{tool_call_id: toolwire.Approved(arguments=None) | toolwire.Denied(reason) | result}``
      for its pending calls (a deferred call takes its result: a value, a ``ToolResult`` or a
      :class:`ToolError`). Finished tool calls are never run again; a saved run whose parts
      disagree (a ``"finished"`` one listing pending calls, a pending call that is not the
      conversation's call of that id, turns misnumbered) raises
      :class:`~toolwire.errors.ConfigurationError` before anything runs;
    - ``tracing``: a :class:`toolwire.tracing.Tracing` — OpenTelemetry spans for this run (the
      default is the one set by :func:`toolwire.tracing.instrument`, if any).

    Returns a :class:`RunResult`. Raises :class:`~toolwire.errors.MaxTurnsExceeded` or
    :class:`~toolwire.errors.UsageLimitExceeded` (each carrying the partial ``result`` whose
    conversation is still valid: unrun calls are answered with ``is_error`` results), and
    :class:`~toolwire.errors.ProviderError` when the vendor call fails (with the partial run as
    ``exc.run_state``). For the partial run after a cancellation, run through
    :func:`run_stream` and read ``stream.state``.
    """
    if not _RUN_PARAMETERS.issuperset(kwargs):
        _check_run_arguments("run", kwargs)
    return await run_stream(model, prompt, **kwargs).finish()


def run_sync(model: Any, prompt: Any = None, **kwargs: Any) -> RunResult:
    """:func:`run` for synchronous code: takes the same arguments, returns the
    :class:`RunResult` and raises what :func:`run` raises.

    The run goes on in the calling thread, on an event loop that thread keeps for its later
    ``run_sync`` calls (no new loop per call, no hand-off to another thread); the caller's
    context variables are seen by the run. Called inside a running event loop it runs on one
    long-lived loop in a daemon thread (``toolwire-sync``) and blocks the caller's loop until
    the run ends (prefer ``await toolwire.run(...)`` there). Ctrl-C cancels the run and raises
    ``KeyboardInterrupt``."""
    global _run_coroutine
    if not _RUN_PARAMETERS.issuperset(kwargs):
        _check_run_arguments("run_sync", kwargs)
    if _run_coroutine is None:
        from ._sync import run_coroutine  # (a function-level "from" import costs microseconds per call)

        _run_coroutine = run_coroutine
    return _run_coroutine(run(model, prompt, **kwargs))  # (run_stream runs inside the loop)


#: toolwire._sync.run_coroutine, imported by the first run_sync
_run_coroutine: Any = None


def _no_running_loop(what: str, instead: str) -> None:
    try:
        asyncio.get_running_loop()
        inside_loop = True
    except RuntimeError:
        inside_loop = False
    if inside_loop:
        raise RuntimeError(f"{what} was called inside a running event loop; use '{instead}' there")


class SyncRunStream:
    """:class:`RunStream` for synchronous code: ``for event in toolwire.run_stream_sync(...)``.

    The run advances while the next event is awaited (tools pause between events). ``state``
    and ``result`` as on :class:`RunStream`; Ctrl-C stops the run (the state says
    ``"cancelled"``) and raises ``KeyboardInterrupt``; leaving a ``with`` block or calling
    :meth:`close` early stops it too. :meth:`finish` consumes the rest and returns the result.
    """

    def __init__(self, stream: RunStream) -> None:
        self._stream = stream
        self._runner: asyncio.Runner | None = asyncio.Runner()
        self.state: RunState = stream.state

    @property
    def result(self) -> RunResult | None:
        return self._stream.result

    def __iter__(self) -> SyncRunStream:
        return self

    def __next__(self) -> RunEvent:
        if self._runner is None:
            raise StopIteration
        try:
            return self._runner.run(self._stream.__anext__())
        except StopAsyncIteration:
            self.close()
            raise StopIteration from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop the run if it is still going (state valid) and close the event loop."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        try:
            runner.run(self._stream.aclose())
        except Exception:  # the event loop is unusable (e.g. Ctrl-C landed inside a tool): write the state directly
            if self.state.status == "running":
                self._stream._loop._stop("cancelled", "KeyboardInterrupt")
        finally:
            try:
                runner.close()
            except Exception:  # pragma: no cover - a loop broken by the interrupt
                pass

    def __del__(self) -> None:  # dropped without close() (a ``break`` out of the loop): stopped as close() stops it
        if getattr(self, "_runner", None) is None:
            return
        try:
            asyncio.get_running_loop()
            return  # (garbage collected inside a running loop: the runner cannot run here)
        except RuntimeError:
            pass
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def __enter__(self) -> SyncRunStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def finish(self) -> RunResult:
        """Consume the remaining events; return the :class:`RunResult` (also once every event
        was read). Raises what :func:`run` raises."""
        finished: RunFinished | None = None
        for event in self:
            if type(event) is RunFinished:
                finished = event
        return _finished_result(finished or self._stream._loop.finished, self._stream._loop)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: :data:`~toolwire.types.STOP_REASONS` as a set: every turn's stop reason is looked up in it.
_CANONICAL_STOPS = frozenset(STOP_REASONS)

#: Stop reasons other libraries and wire formats use, lower-cased, → the canonical one (OpenAI
#: Chat's ``finish_reason`` values, Gemini's ``finishReason`` values, the Responses API's
#: ``incomplete_details.reason`` values, as toolwire's own adapters map them).
_STOP_ALIASES: dict[str, str] = {
    "stop": "end_turn",
    "end": "end_turn",
    "completed": "end_turn",
    "eos": "end_turn",
    "length": "max_tokens",
    "max_output_tokens": "max_tokens",
    "model_length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "tool_call": "tool_use",
    "content_filter": "refusal",
    "safety": "refusal",
    "recitation": "refusal",
    "blocklist": "refusal",
    "prohibited_content": "refusal",
    "spii": "refusal",
    "failed": "error",
    "cancelled": "error",
    "malformed_function_call": "error",
}


#: The ``Usage`` fields, in order (each a whole number of tokens or ``None``; ``requests`` a whole number).
_USAGE_FIELDS = tuple(Usage.__dataclass_fields__)


def _settle_answer(m: Model, response: Response) -> None:
    """What the loop makes sure of in every answer: its usage holds whole numbers
    (:func:`_whole_usage`), it counts one request at least, its stop reason is canonical
    (:func:`_canonical_stop`, for a third-party adapter's own value) and the vendor's stop
    reason is text, so the run's saved state loads again."""
    if not m.typed_answers:  # (toolwire's own decoders give these types: no pass over each answer)
        parts = response.parts
        if type(parts) is not list or not all(type(p) in _PART_CLASSES for p in parts):
            _settle_parts(m, response)
        usage = response.usage
        if type(usage) is not Usage or any(
            type(v) is not int and (v is not None or k == "requests") for k, v in usage.__dict__.items()
        ):
            _whole_usage(m, response)
    if response.usage.requests == 0:
        response.usage.requests = 1
    stop = response.stop_reason
    if type(stop) is not str or stop not in _CANONICAL_STOPS:
        _canonical_stop(m, response)
    elif response.vendor_stop_reason is not None and type(response.vendor_stop_reason) is not str:
        response.vendor_stop_reason = _stop_text(m, response.vendor_stop_reason)
    if not m.typed_answers:  # (a third-party adapter: its ids and provider_data checked too)
        _settle_fields(m, response)


#: The types a response's ``model`` and ``response_id`` may have.
_TEXT_OR_NONE = (str, type(None))


def _settle_fields(m: Model, response: Response) -> None:
    """``model`` and ``response_id`` that are not text (or ``None``) as text, a
    ``provider_data`` that is not a dict as an empty one, and each of its entries that is not a
    dict or holds a value JSON cannot write left out, with an
    :class:`~toolwire.errors.AdapterWarning`: the turn's message could not be made from such a
    ``provider_data``, nor the saved state written or loaded with such an entry or id."""
    fixed: list[str] = []
    for name in ("model", "response_id"):
        v = getattr(response, name)
        if v is not None and type(v) is not str:
            setattr(response, name, _as_text(v))
            if not isinstance(v, str):
                fixed.append(f"{name}={_shown(v)} kept as text")
    pd: Any = response.provider_data
    if not isinstance(pd, dict):
        response.provider_data = {}
        if pd is not None:
            fixed.append(f"provider_data of type {type(pd).__name__} left out (it must be a dict of API name to dict)")
    else:
        for key in list(pd):
            own = pd[key]
            if not isinstance(own, dict):
                why = f"is a {type(own).__name__}, not a dict"
            else:
                try:  # what a saved run writes (RunState.to_json)
                    json.dumps(own, ensure_ascii=False)
                    continue
                except (TypeError, ValueError, RecursionError) as exc:
                    why = f"holds a value JSON cannot write ({_shown(str(exc))})"
            del pd[key]
            fixed.append(f"provider_data[{_shown(key)}] left out: it {why}")
    if fixed:
        _adapter_warning(m, "the adapter answered with " + "; ".join(fixed) + ". Fix the adapter's decoder")


#: The part classes an answer's parts are (a subclass is checked with isinstance).
_PART_CLASSES = frozenset((TextPart, ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart))


def _settle_parts(m: Model, response: Response) -> None:
    """Give ``response`` (from an adapter whose ``parts`` is not a list of parts) one that is:
    ``None`` is no part, another iterable (a tuple, a generator) its items; an item that is text
    is a :class:`TextPart`, a dict is loaded as a saved part (:func:`part_from_dict`), anything
    else is left out. Warns (:class:`~toolwire.errors.AdapterWarning`) naming what was
    corrected. Without this the run raised ``TypeError`` or ``AttributeError`` (``'str' object
    has no attribute 'to_dict'``) on reading the turn."""
    from .types import part_from_dict

    given: Any = response.parts
    fixed: list[str] = []
    if given is None:
        items: list[Any] = []
        fixed.append("parts is None, not a list")
    elif isinstance(given, (str, bytes, dict)) or not hasattr(given, "__iter__"):
        items = [given]
        fixed.append(f"parts is {type(given).__name__}, not a list")
    else:
        items = list(given)
        if type(given) is not list:
            fixed.append(f"parts is {type(given).__name__}, not a list")
    parts: list[Any] = []
    for i, p in enumerate(items):
        if type(p) in _PART_CLASSES or isinstance(p, tuple(_PART_CLASSES)):
            parts.append(p)
        elif isinstance(p, str):
            parts.append(TextPart(str.__str__(p)))
            fixed.append(f"parts[{i}] is text, read as a TextPart")
        else:
            try:
                parts.append(part_from_dict(p))
                fixed.append(f"parts[{i}] is a dict, loaded as a saved part")
            except (TypeError, ValueError, KeyError) as exc:
                fixed.append(f"parts[{i}] ({type(p).__name__}) left out: {exc}")
    response.parts = parts
    if fixed:
        _adapter_warning(
            m,
            "the adapter answered with parts that are not toolwire parts ("
            + "; ".join(fixed)
            + "). Build TextPart, ToolCall, ... in the adapter's decoder",
        )


def _adapter_warning(m: Model, said: str) -> None:
    import warnings

    warnings.warn(f"{m.name}: {said}", AdapterWarning, stacklevel=3)


def _whole_usage(m: Model, response: Response) -> None:
    """Give ``response`` (from an adapter whose usage is not a :class:`Usage` of whole numbers)
    one that is: a whole float (``3.0``) is that number, any other count that is not an int (a
    fraction, NaN, text, a bool, a list) is ``None`` (not reported), ``requests`` that is not a
    whole number is 1; a ``usage`` that is not a ``Usage`` at all is read as one field by field
    when it is a dict, else empty. Warns (:class:`~toolwire.errors.AdapterWarning`) naming what
    was corrected. Without this the run's totals or cost raised ``TypeError`` or its saved state
    did not load."""
    given: Any = response.usage
    if isinstance(given, Usage):
        counts: dict[str, Any] = {k: getattr(given, k, None) for k in _USAGE_FIELDS}
    elif isinstance(given, dict):
        counts = {k: given.get(k) for k in _USAGE_FIELDS}
    else:
        counts = {}
    fixed: list[str] = []
    if not isinstance(given, Usage):
        fixed.append(f"usage is {type(given).__name__}, not toolwire.Usage")
    whole: dict[str, int | None] = {}
    for k in _USAGE_FIELDS:
        v = counts.get(k)
        if type(v) is int or (v is None and k != "requests"):
            whole[k] = v
            continue
        if type(v) is float and v.is_integer():
            n: int | None = int(v)
        else:
            n = 1 if k == "requests" else None
        whole[k] = n
        if k in counts:
            fixed.append(f"{k}={_shown(v)} read as {n!r}")
    if whole["requests"] is None:  # pragma: no cover - set to 1 above
        whole["requests"] = 1
    response.usage = Usage(**whole)  # type: ignore[arg-type]  # requests is never None here
    if fixed:
        _adapter_warning(
            m,
            "the adapter answered with token counts that are not whole numbers ("
            + "; ".join(fixed)
            + "); the run goes on with these. Report counts as int (None when the vendor gave none) "
            "in the adapter's decoder",
        )


def _as_text(value: Any) -> str:
    """``value`` as plain ``str``: a ``str`` subclass's own text, ``bytes`` decoded (UTF-8, bad
    bytes replaced), anything else ``str(value)``."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    try:
        return str(value)
    except (Exception, RecursionError):  # a str() that raises, a list nested thousands deep
        return _shown(value)


def _stop_text(m: Model, value: Any) -> str:
    """A vendor stop reason that is not ``str`` as text (a ``bytes`` value decoded), with an
    :class:`~toolwire.errors.AdapterWarning`; a ``str`` subclass as plain ``str``, unsaid."""
    text = _as_text(value)
    if isinstance(value, str):
        return text
    _adapter_warning(
        m,
        f"the adapter answered with vendor_stop_reason {_shown(value)} ({type(value).__name__}, not "
        "str); the run keeps it as text. Set vendor_stop_reason to the vendor's value as str in "
        "the adapter's decoder",
    )
    return text


def _canonical_stop(m: Model, response: Response) -> None:
    """Give ``response`` (from an adapter that set a stop reason toolwire does not know) a
    canonical stop reason, keeping the adapter's own value in ``vendor_stop_reason`` when that
    is unset, and warn (:class:`~toolwire.errors.AdapterWarning`). A value of another wire
    format is mapped (``"stop"`` → ``end_turn``, ``"length"`` → ``max_tokens``, ...); any other
    value is ``tool_use`` when the answer holds tool calls, else ``end_turn``. Without this the
    run's saved state would hold a stop reason :meth:`RunState.from_json` refuses."""
    given: Any = response.stop_reason
    vendor: Any = response.vendor_stop_reason
    if isinstance(given, str) and str.__str__(given) in _CANONICAL_STOPS:
        # a str subclass (an enum) of a canonical value: that value, nothing to say
        response.stop_reason = str.__str__(given)  # type: ignore[assignment]
        if vendor is not None and type(vendor) is not str:
            response.vendor_stop_reason = _stop_text(m, vendor)
        return
    # (any value: a list or dict is not hashable, so it is never looked up as one)
    key = str.strip(given).lower() if isinstance(given, str) else ""
    stop = _STOP_ALIASES.get(key) or (key if key in _CANONICAL_STOPS else None)
    if stop is None:
        stop = "tool_use" if response.tool_calls else "end_turn"
    if vendor is None and given is not None:
        response.vendor_stop_reason = _as_text(given)
    elif vendor is not None and type(vendor) is not str:
        response.vendor_stop_reason = _stop_text(m, vendor)
    response.stop_reason = stop  # type: ignore[assignment]
    _adapter_warning(
        m,
        f"the adapter answered with stop reason {_shown(given)}, which is not one of "
        f"toolwire's ({', '.join(STOP_REASONS)}); the run goes on with {stop!r} and keeps the "
        "adapter's value in Response.vendor_stop_reason. Map the vendor's value to a canonical "
        "one in the adapter's decoder",
    )


#: Why a stream cut off in a run after part of its answer is not sent again, and how to go on.
_CUT_STREAM_WHY = (
    "its events had already been streamed; the run's state keeps what arrived (the error's run_state, or "
    "stream.state): continue the run with run(model, tools=..., resume=that state), which asks the model again"
)


def _streamed_response(m: Model, asm: Any, attempt: int = 1) -> Response:
    """The response a stream assembled, checked as :meth:`Model.send` checks it; a stream that
    ended before the vendor's end raises the retryable ``ProviderError`` of
    :func:`toolwire.stream.cut_off` (not retried here: its events were already seen), saying it
    ended ``attempt`` (the number of the stream's attempt) and carrying the counts the stream
    had reported (``usage``). Events that replay one whole JSON body (``StopEvent.whole``) are
    never cut off: the body is taken as :meth:`Model.send` takes it."""
    response = m.check_streamed(asm.response())
    cut = None if asm.whole else _wire.cut_off(response, m.provider or None)
    if cut is not None:
        if _wire.has_counts(response.usage):
            _wire.note_failed_usage(cut, _wire.reported_usage(None, response.usage))
        raise cut.gave_up(attempt, _CUT_STREAM_WHY)
    return response


def _finished_result(finished: RunFinished | None, loop: _Loop) -> RunResult:
    """The result of a stream's run: its ``RunFinished`` (the one just read, or the one read
    before :meth:`RunStream.finish` was called), raising its limit error; a stream closed before
    the run finished raises ``RuntimeError`` naming the state it left."""
    if finished is None:
        st = loop.state
        raise RuntimeError(
            f"the run did not finish (its state says {st.status!r}"
            + (f": {st.error}" if st.error else "")
            + "); the stream was closed or failed before it ended, see stream.state"
        )
    if finished.error is not None:
        raise finished.error
    return finished.result


def run_stream_sync(model: Any, prompt: Any = None, **kwargs: Any) -> SyncRunStream:
    """:func:`run_stream` for synchronous code (not for use inside a running event loop)."""
    _no_running_loop("run_stream_sync()", "toolwire.run_stream(...)")
    if kwargs.keys() - _RUN_PARAMETERS:
        _check_run_arguments("run_stream_sync", kwargs)
    return SyncRunStream(run_stream(model, prompt, **kwargs))
