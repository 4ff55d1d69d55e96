"""The state of one run: the object every stop leaves behind, saved and loaded as JSON.

:class:`RunState` is the single record of a run, finished or not:

- ``run_id`` and ``model`` (``provider:model-id``);
- ``conversation``: the whole conversation so far — **always valid for the vendor**: every tool
  call in it has exactly one result, in the position the vendor demands. A call that has no real
  result yet (waiting for approval, for a deferred result, or interrupted by a cancellation)
  holds a placeholder ``is_error`` result that says so and is listed in ``pending``;
- ``turns``: one :class:`Turn` per model request (its ``Response``, ``Usage`` and the
  :class:`~toolwire.executor.ToolRun` of each of its tool calls, placeholders included); a
  response cut off by a stop mid-stream is kept as a turn with ``interrupted`` set (its streamed
  text is in ``turn.response``; it is *not* in the conversation, which ends at the last complete
  message so that resuming simply asks the model again);
- ``pending``: the :class:`PendingCall` list — calls waiting for a decision (``"approval"``),
  for a result toolwire does not produce (``"deferred"``), or interrupted before they finished
  (``"interrupted"``);
- ``status``: ``"running"``, ``"finished"``, ``"paused"`` (pending calls wait for the user),
  ``"stopped"`` (a limit: ``max_turns``, token or tool-call limits), ``"cancelled"`` (task
  cancellation, ``KeyboardInterrupt``, a timeout, a closed stream) or ``"failed"`` (an exception:
  a provider error after its retries, an exception in a hook); ``stop_reason`` and ``error``
  (``"TypeName: message"``) say more;
- ``usage`` (property): the summed :class:`~toolwire.types.Usage` of all turns, in tokens (a
  request that failed, retried or not, adds nothing: see :class:`Turn`).

Where to get it: ``toolwire.run_stream(...)`` returns a :class:`~toolwire.loop.RunStream` whose
``.state`` is this object, updated in place as the run goes and consistent after any stop
(including a ``CancelledError``, which still propagates: a cancelled task ends cancelled). A
finished or paused run's :class:`RunResult` gives it as ``result.state``; a
:class:`~toolwire.errors.ToolwireError` escaping a run carries it as ``exc.run_state``.

Resuming: ``toolwire.run(model, tools=..., resume=state, decisions={call_id: ...})`` (or
``run_stream``) continues the same run (same ``run_id``, turn numbers continue). It never re-runs
a tool call that has a result: only pending calls are dealt with — approved ones run (edited
arguments are validated again), denied ones are answered with an ``is_error`` result giving the
reason, deferred ones take the supplied result, interrupted ones run again unless a decision
says otherwise — and then the loop asks the model for the next turn.

``RunState.to_json()`` / ``RunState.from_json()`` round-trip exactly (``from_json(s.to_json())
== s``; a non-finite float, which strict JSON cannot hold, is written and read back as its text
``"Infinity"``, ``"-Infinity"`` or ``"NaN"``), so a run survives a process restart (the tools are passed again on resume; functions
are never saved). Builders on top of this (checkpoint stores, experiment records) should save
``state.to_json()`` after the events they care about — every ``ToolFinished`` and
``TurnFinished`` leaves ``state`` valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .errors import ConfigurationError
from .executor import ToolRun
from .types import (
    Conversation,
    Response,
    ToolCall,
    ToolResult,
    Usage,
    finite_json,
    finite_json_loads,
    loaded_at,
    loaded_field,
    loaded_part,
)

if TYPE_CHECKING:  # pragma: no cover - pathlib (and urllib.parse, ipaddress) only to save or load a file
    from pathlib import Path

__all__ = [
    "RunState",
    "RunResult",
    "Turn",
    "PendingCall",
    "Approved",
    "Denied",
    "RUN_STATUSES",
    "PENDING_KINDS",
    "confirmed",
]

RUN_STATUSES = ("running", "finished", "paused", "stopped", "cancelled", "failed")
PENDING_KINDS = ("approval", "deferred", "interrupted")
#: ``RunResult.stop_reason`` of a run that stopped with pending calls (approval or deferred).
PENDING_STOP = "pending"

_FORMAT = "toolwire.RunState"
_VERSION = 1


def _dumps(d: dict[str, Any], **kwargs: Any) -> str:
    """Strict JSON text (literal UTF-8): a non-finite number is written as its text (see
    :func:`finite_json`); a lone surrogate (half an emoji a model sent) cannot be UTF-8, so then
    the text is written with ASCII escapes, which still round-trips."""
    kwargs.setdefault("allow_nan", False)
    try:
        text = json.dumps(d, ensure_ascii=False, **kwargs)
    except ValueError:  # "Out of range float values are not JSON compliant"
        d = finite_json(d)
        text = json.dumps(d, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(d, ensure_ascii=True, **kwargs)
    return text


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be an object, got {type(value).__name__}")
    return value


def _check_usage(d: dict[str, Any]) -> None:
    """A saved run's ``usage`` (the turns' total, written for people and other tools; the loaded
    run adds up its turns again) must still be an object of counts when present."""
    usage = d.get("usage")
    if usage is not None:
        loaded_at("usage", lambda: Usage.from_dict(usage))


def _conversation(d: dict[str, Any], *, required: bool) -> Conversation:
    saved = d["conversation"] if required else d.get("conversation")
    if saved is None and not required:
        return Conversation()
    return loaded_at("conversation", lambda: Conversation.from_dict(_object(saved, "the conversation")))


def _turns(d: dict[str, Any], where: str) -> list[Turn]:
    turns = [
        loaded_at(f"turns[{i}]", lambda t=t: Turn.from_dict(t))
        for i, t in enumerate(loaded_field(d, "turns", (list,), where, []))
    ]
    problem = turn_numbering_problem(turns) or tool_run_turn_problem(turns)
    if problem is not None:
        raise ValueError(problem)
    return turns


def turn_numbering_problem(turns: list[Turn]) -> str | None:
    """What is wrong with the numbers of ``turns`` (a repeated number, turns out of order, a gap),
    or ``None``: the turns of a run are numbered 1, 2, 3, ... in the order they are listed (a
    resumed run numbers its next turn after them, and a run store keys them by number)."""
    for i, t in enumerate(turns):
        if t.number != i + 1:
            earlier = next((j for j in range(i) if turns[j].number == t.number), None)
            why = f"the number of turns[{earlier}] too" if earlier is not None else "out of order"
            return (
                f"at turns[{i}]: turn: number must be {i + 1} (the turns of a run are numbered 1, 2, 3, ... in the "
                f"order they are listed), got {t.number!r}, {why}; put the turns in the order they were taken and "
                "number them so"
            )
    return None


def tool_run_turn_problem(turns: list[Turn]) -> str | None:
    """What is wrong with the ``turn`` recorded on the tool runs of ``turns``, or ``None``: a tool
    run answers a call of the turn that holds it, so its ``turn`` is that turn's number (a whole
    number, not ``true``/``false``)."""
    for i, t in enumerate(turns):
        for j, r in enumerate(t.tool_runs):
            n = r.turn
            if type(n) is not int or n != t.number:
                return (
                    f"at turns[{i}].tool_runs[{j}]: tool run: turn must be {t.number} (the number of the turn that "
                    f"holds it: a tool run answers a call of its own turn), got {type(n).__name__} {n!r:.40}; "
                    f"set it to {t.number}"
                )
    return None


#: The stop reasons a run that stopped at a limit records (status ``"stopped"``).
_LIMIT_STOPS = ("max_turns", "usage_limit")


def status_problem(status: str, stop_reason: str | None, pending: list[PendingCall], turns: list[Turn]) -> str | None:
    """What is wrong when a saved run's ``status`` and ``stop_reason`` disagree with each other or
    with its ``pending`` calls and ``turns`` (a state no run leaves behind), or ``None``:

    - a ``"finished"`` run has no pending calls;
    - a ``"paused"`` run (calls wait for a decision) was not stopped by the model: its stop
      reason is ``"pending"`` (or, for a run that also hit a limit or stopped, what
      :attr:`RunResult.stop_reason` says), never a model's stop reason such as ``"end_turn"``;
    - a ``"stopped"`` run stopped at a limit (its stop reason is ``"max_turns"`` or
      ``"usage_limit"``) or because its last response filled the model's context window
      (:class:`~toolwire.errors.ContextWindowExceeded`: its stop reason is that response's);
    - a pending call belongs to one of the turns (its ``turn`` is at most the last turn's
      number): the calls of a run are the calls its turns made."""
    from .types import STOP_REASONS

    if status == "finished" and pending:
        ids = [p.call.id for p in pending]
        return (
            f"status is 'finished' but it lists pending tool calls {ids}; a finished run has none. If the calls "
            "still wait for their decisions (the conversation answers them with a placeholder), set the status to "
            "'paused'; if they were answered, remove them from pending"
        )
    if status == "paused" and stop_reason in STOP_REASONS:
        return (
            f"status is 'paused' (tool calls wait for a decision) but its stop_reason is the model's "
            f"{stop_reason!r}; a paused run's stop_reason is 'pending'. Set it to 'pending' (and status 'finished' "
            "with no pending calls if the run really ended)"
        )
    # a run whose response filled the context window stops with that response's stop reason
    # (loop._ends_with_calls: ContextWindowExceeded, e.g. Anthropic's model_context_window_exceeded
    # read as "max_tokens")
    own = turns[-1].response.stop_reason if turns else None
    if status == "stopped" and stop_reason not in _LIMIT_STOPS and (stop_reason is None or stop_reason != own):
        return (
            f"status is 'stopped' (a limit stopped the run) but its stop_reason is {stop_reason!r}, not one of "
            f"{', '.join(repr(s) for s in _LIMIT_STOPS)} nor the stop reason of its last response (a response that "
            "filled the context window); set the stop_reason to the limit that stopped it"
        )
    last = turns[-1].number if turns else 0
    for i, p in enumerate(pending):
        if p.turn > last:
            has = f"the last turn is {last}" if turns else "it has no turns"
            return (
                f"at pending[{i}]: pending call: turn is {p.turn}, but {has}; a pending call belongs to a turn "
                "of the run (the one whose tool call it is): set its turn to that turn's number"
            )
    return None


def _unknown_keys(d: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    """``ValueError`` naming the first key of ``d`` that is not in ``known`` (and the closest known
    ones): a misspelled ``"pendng"`` would otherwise be left out without a word (its calls lost)."""
    for key in d:
        if key not in known:
            from .design.suggest import did_you_mean

            hint = did_you_mean(key, known) if isinstance(key, str) else None
            raise ValueError(
                f"{where}: unknown key {key!r}." + (f" {hint}" if hint else "") + f" The keys are {', '.join(known)}"
            )


_STATE_KEYS = (
    "format",
    "version",
    "run_id",
    "model",
    "status",
    "stop_reason",
    "error",
    "usage",
    "pending",
    "turns",
    "conversation",
)
_RESULT_KEYS = ("text", "stop_reason", "model", "run_id", "usage", "tool_errors", "turns", "conversation", "pending")
_TURN_KEYS = ("number", "response", "tool_runs", "interrupted")
_PENDING_KEYS = ("call", "turn", "kind", "reason", "approved", "arguments")


def _pending(d: dict[str, Any], where: str) -> list[PendingCall]:
    return [
        loaded_at(f"pending[{i}]", lambda p=p: PendingCall.from_dict(_object(p, "a pending call")))
        for i, p in enumerate(loaded_field(d, "pending", (list,), where, []))
    ]


@dataclass
class Turn:
    """One model request and what followed: the ``response``, its ``usage`` (tokens) and the
    ``tool_runs`` that answered its tool calls (empty on the final turn), in call order.

    ``interrupted``: ``None`` for a complete turn; ``"cancelled"``/``"failed"`` when the run
    stopped while this response was still streaming (``response`` then holds what had arrived:
    its text, with ``stop_reason="error"``). A ``"failed"`` turn's usage counts nothing
    (``input_tokens`` and ``output_tokens`` 0, ``requests`` 0: a request that failed is counted
    in no total; what its stream had reported is on the error, ``ProviderError.usage``); a
    ``"cancelled"`` one keeps the counts its stream had reported."""

    number: int
    response: Response
    tool_runs: list[ToolRun] = field(default_factory=list)
    interrupted: str | None = None

    @property
    def usage(self) -> Usage:
        return self.response.usage

    def to_dict(self) -> dict[str, Any]:
        """``{"number": int, "response": object, "tool_runs": [objects]}`` (``number`` 1-based, the
        response's and each run's ``to_dict()``) plus ``"interrupted"`` (str) when set."""
        d = {
            "number": self.number,
            "response": self.response.to_dict(),
            "tool_runs": [r.to_dict() for r in self.tool_runs],
        }
        if self.interrupted is not None:
            d["interrupted"] = self.interrupted
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Turn:
        """Rebuild a turn from :meth:`to_dict`'s output. ``KeyError`` when ``response`` or ``number`` is
        missing; ``ValueError`` when ``number`` is below 1 or a key is not one of :meth:`to_dict`'s;
        ``TypeError`` when a field has the wrong type. Errors inside the response or a tool run say where (``at tool_runs[0].call: ...``)
        and keep their type, but for a missing field (``ValueError``)."""
        if not isinstance(d, dict):
            raise TypeError(f"a turn must be an object, got {type(d).__name__}")
        _unknown_keys(d, _TURN_KEYS, "turn")
        response = d["response"]
        if not isinstance(response, dict):
            raise TypeError(f"a turn's response must be an object, got {type(response).__name__}")
        number = loaded_field(d, "number", (int,), "turn", d["number"])
        if number < 1:
            raise ValueError(f"turn: number must be 1 or more (turns count from 1), got {number}")
        runs = loaded_field(d, "tool_runs", (list,), "turn", [])
        return cls(
            number,
            loaded_at("response", lambda: Response.from_dict(response)),
            [
                loaded_at(f"tool_runs[{j}]", lambda r=r: ToolRun.from_dict(_object(r, "a tool run")))
                for j, r in enumerate(runs)
            ],
            loaded_field(d, "interrupted", (str, type(None)), "turn"),
        )


@dataclass
class PendingCall:
    """A tool call without its real result yet.

    - ``call``: the :class:`~toolwire.types.ToolCall` as the model sent it (``call.id`` is the
      key of its decision);
    - ``turn``: the 1-based turn it belongs to;
    - ``kind``: ``"approval"`` (a person must approve or deny it), ``"deferred"`` (toolwire does
      not run this tool: supply its result), ``"interrupted"`` (the run stopped before it
      finished; a resume runs it again unless a decision says otherwise);
    - ``reason``: why (e.g. the approval policy's message, or ``"cancelled"``);
    - ``approved``: an interrupted call a person had approved: a resume runs it again without
      asking a second time;
    - ``arguments``: for such a call approved with edited arguments
      (``Approved(arguments=...)``), those arguments: a resume runs it with them (``call`` keeps
      the model's); ``None`` otherwise.
    """

    call: ToolCall
    turn: int
    kind: Literal["approval", "deferred", "interrupted"]
    reason: str | None = None
    approved: bool = False
    arguments: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"call": object, "turn": int, "kind": str}`` (the call's ``to_dict()``, ``turn`` 1-based)
        plus ``"reason"`` (str) when set, ``"approved": true`` when approved and ``"arguments"``
        (object) when set."""
        d: dict[str, Any] = {"call": self.call.to_dict(), "turn": self.turn, "kind": self.kind}
        if self.reason is not None:
            d["reason"] = self.reason
        if self.approved:
            d["approved"] = True
        if self.arguments is not None:
            d["arguments"] = self.arguments
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PendingCall:
        """Rebuild a pending call from :meth:`to_dict`'s output. ``KeyError`` when ``kind`` or ``turn``
        is missing; ``ValueError`` for an unknown ``kind`` or key, a ``turn`` below 1 or a missing
        ``call``; ``TypeError`` when ``d`` is not an object or a field (the call's included) has the wrong
        type: ``approved`` must be
        ``true`` or ``false`` and ``arguments`` an object or ``null`` (either may be left out)."""
        _object(d, "a pending call")
        _unknown_keys(d, _PENDING_KEYS, "pending call")
        kind = d["kind"]
        if kind not in PENDING_KINDS:
            raise ValueError(f"pending call kind must be one of {PENDING_KINDS}, got {kind!r}")
        arguments = loaded_field(d, "arguments", (dict, type(None)), "pending call")
        turn = loaded_field(d, "turn", (int,), "pending call", d["turn"])
        if turn < 1:
            raise ValueError(f"pending call: turn must be 1 or more (turns count from 1), got {turn}")
        return cls(
            loaded_at("call", lambda: loaded_part(d["call"], "tool_call", "a pending call's call")),
            turn,
            kind,
            loaded_field(d, "reason", (str, type(None)), "pending call"),
            loaded_field(d, "approved", (bool,), "pending call", False),
            None if arguments is None else dict(arguments),
        )


@dataclass(frozen=True)
class Approved:
    """Decision for a pending call: run it. ``arguments`` (a dict) replaces the model's arguments;
    they are validated against the tool's input schema again, and an invalid edit is answered with
    the usual ``is_error`` result instead of running."""

    arguments: dict[str, Any] | None = None


@dataclass(frozen=True)
class Denied:
    """Decision for a pending call (or what a ``before_tool_call`` hook returns): do not run it.
    The model gets an ``is_error`` result saying the call was refused and giving ``reason``.

    ``reason`` is text or ``None``; ``None`` or an empty text tells the model that no reason was
    given. Any other type raises :class:`~toolwire.errors.ConfigurationError` here."""

    reason: str | None = "no reason given"

    def __post_init__(self) -> None:
        if self.reason is not None and not isinstance(self.reason, str):
            raise ConfigurationError(
                "Denied(reason) takes the reason as text (what the model is told) or None, "
                f'got {type(self.reason).__name__}; write Denied("why the call is refused")'
            )


async def confirmed(answer: Any) -> bool:
    """Whether the answer of a function that confirms a vendor's safety check without a pause
    (``acknowledge=``, ``confirm=`` of the client-side tool factories) confirms it: an awaitable
    is awaited first (the function may be async), a :class:`Denied` never confirms, anything else
    by its truth value. What the function or the truth test raises propagates (the approval
    policy it runs in then leaves the call waiting, with the error as its reason)."""
    import inspect

    if inspect.isawaitable(answer):
        answer = await answer
    if isinstance(answer, Denied):
        return False
    return bool(answer)


#: The statuses of a run that did not end, which :meth:`RunState.to_result` writes as the
#: result's stop reason (a model never gives them).
_UNENDED = frozenset({"cancelled", "failed", "running"})


@dataclass
class RunResult:
    """What a run produced.

    - ``text``: the final response's visible text; ``stop_reason``: its canonical stop reason,
      the limit that stopped the run (``"max_turns"``, ``"usage_limit"``), or ``"pending"`` when
      the run stopped with ``pending`` calls waiting for approval or a deferred result;
    - ``conversation``: the whole conversation, valid for the vendor (every tool call answered),
      ready to be passed back to :func:`~toolwire.run` to continue;
    - ``turns``: per-turn responses, usage and tool runs; ``usage``: the totals (tokens);
    - ``tool_runs``: every tool call with its result and duration (seconds), in order;
    - ``tool_errors``: how many tool results were ``is_error``; ``model``: ``provider:model-id``;
    - ``pending``: the :class:`PendingCall` list (empty unless ``stop_reason == "pending"``);
      resume with ``toolwire.run(model, tools=..., resume=result, decisions={...})``.

    ``to_json()``/``from_json()`` round-trip exactly (``RunResult.from_json(r.to_json()) == r``; a
    non-finite float is written and read back as its text, as :meth:`RunState.to_json` says).
    """

    text: str
    conversation: Conversation
    turns: list[Turn]
    stop_reason: str
    model: str
    run_id: str
    pending: list[PendingCall] = field(default_factory=list)

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

    @property
    def state(self) -> RunState:
        """This result as a :class:`RunState` (``"paused"`` when calls are pending, else
        ``"stopped"`` for a limit or ``"finished"``), e.g. to save it or to resume it. A result
        made by :meth:`RunState.to_result` from a run that was ``"cancelled"``, ``"failed"`` or
        still ``"running"`` (its ``stop_reason`` is that word) gives that status back, so the run
        can still be resumed."""
        stop: str | None = self.stop_reason
        if stop in _UNENDED:
            status, stop = stop, None
        elif self.pending:
            status = "paused"
        else:
            status = "stopped" if stop in ("max_turns", "usage_limit") else "finished"
        return RunState(self.run_id, self.model, self.conversation, self.turns, list(self.pending), status, stop)

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "stop_reason", "model", "run_id": str, "usage": object, "tool_errors": int,
        "turns": [objects], "conversation": object}`` plus ``"pending": [objects]`` when calls are
        pending. ``usage`` (the turns' total, in tokens) and ``tool_errors`` are written for readers;
        :meth:`from_dict` computes them again from the turns."""
        d = {
            "text": self.text,
            "stop_reason": self.stop_reason,
            "model": self.model,
            "run_id": self.run_id,
            "usage": self.usage.to_dict(),
            "tool_errors": self.tool_errors,
            "turns": [t.to_dict() for t in self.turns],
            "conversation": self.conversation.to_dict(),
        }
        if self.pending:
            d["pending"] = [p.to_dict() for p in self.pending]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunResult:
        """Rebuild a result from :meth:`to_dict`'s output. ``TypeError`` when ``d`` is not an object or
        a field has the wrong type (a saved ``usage`` included); ``KeyError`` when ``text``,
        ``stop_reason``, ``model``, ``run_id`` or ``conversation`` is missing; ``ValueError`` for a
        key that is not one of :meth:`to_dict`'s, turns not numbered 1, 2, 3, ... in order, a tool
        run whose ``turn`` is not the number of the turn holding it, and a result no run ends with
        (pending calls with a model's stop reason such as ``"end_turn"``, a pending call of a turn
        after the last). Errors inside the turns, pending calls or conversation say where (``at turns[0]...``) and
        keep their type, but for a missing field (``ValueError``)."""
        where = "run result"
        if not isinstance(d, dict):
            raise TypeError(f"a saved run must be an object, got {type(d).__name__}")
        _unknown_keys(d, _RESULT_KEYS, "run result")
        _check_usage(d)
        result = cls(
            text=loaded_field(d, "text", (str,), where, d["text"]),
            conversation=_conversation(d, required=True),
            turns=_turns(d, where),
            stop_reason=loaded_field(d, "stop_reason", (str,), where, d["stop_reason"]),
            model=loaded_field(d, "model", (str,), where, d["model"]),
            run_id=loaded_field(d, "run_id", (str,), where, d["run_id"]),
            pending=_pending(d, where),
        )
        st = result.state
        problem = status_problem(st.status, st.stop_reason, st.pending, st.turns)
        if problem is not None:
            raise ValueError(f"run result: {problem}")
        return result

    def to_json(self, **kwargs: Any) -> str:
        """Strict JSON text (literal UTF-8): a non-finite float is written as its text
        (``"Infinity"``, ``"-Infinity"``, ``"NaN"``). Text holding a lone surrogate (e.g. half an
        emoji a model sent) cannot be UTF-8: then that text is written with ASCII escapes, which
        still round-trips."""
        return _dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> RunResult:
        """Rebuild a saved run; raises ``ValueError`` naming what is wrong when ``text`` is not one
        (not JSON, a number JSON cannot hold such as ``Infinity`` or ``1e999``, an unknown key,
        a field of the wrong type, turns not numbered 1, 2, 3, ... in order)."""
        try:
            return cls.from_dict(finite_json_loads(text))
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
            raise ValueError(f"not a saved toolwire RunResult: {type(exc).__name__}: {exc}") from None


def save_path(path: Any) -> Path:
    """``path`` as the :class:`~pathlib.Path` of a file a state can be saved to: ``ValueError``
    when it is empty (or names no file, like ``"."``), ``IsADirectoryError`` when it is a folder.
    Whether the folder exists and can be written is left to the write."""
    from pathlib import Path

    if isinstance(path, str) and not path.strip():
        raise ValueError(f"RunState.save needs a file path, got {path!r}")
    p = Path(path)
    if not p.name or p.name == "..":
        raise ValueError(f"RunState.save needs a file path, got {str(path)!r}")
    if p.is_dir():
        raise IsADirectoryError(f"{str(p)!r} is a folder, not a file: give a file path such as {str(p / 'run.json')!r}")
    return p


@dataclass
class RunState:
    """The whole state of one run, finished or not (see the module docstring for the fields and
    the guarantees). Save with :meth:`to_json` / :meth:`save`, load with :meth:`from_json` /
    :meth:`load`, continue with ``toolwire.run(model, tools=..., resume=state)``."""

    run_id: str
    model: str | None = None
    conversation: Conversation = field(default_factory=Conversation)
    turns: list[Turn] = field(default_factory=list)
    pending: list[PendingCall] = field(default_factory=list)
    status: str = "running"
    stop_reason: str | None = None
    error: str | None = None

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
    def completed_results(self) -> list[ToolResult]:
        """The real results so far (placeholders of pending calls left out), in order."""
        waiting = {p.call.id for p in self.pending}
        return [r.result for r in self.tool_runs if r.call.id not in waiting]

    @property
    def resumable(self) -> bool:
        """``True`` unless the run finished: a resume has something to do (pending calls, or a
        model request that was interrupted or never answered)."""
        return self.status != "finished"

    def to_result(self) -> RunResult:
        """The state as a :class:`RunResult` (``text`` of the last complete turn)."""
        from .loop import _final_text  # the same rule as the loop's

        complete = [t for t in self.turns if t.interrupted is None]
        return RunResult(
            _final_text(complete),
            self.conversation,
            list(self.turns),
            self.stop_reason or self.status,
            self.model or "",
            self.run_id,
            list(self.pending),
        )

    # -- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "toolwire.RunState", "version": 1, "run_id": str, "status": str, "model",
        "stop_reason", "error": str or null, "usage": object, "pending": [objects], "turns":
        [objects], "conversation": object}``; every key is always present. ``usage`` (the turns'
        total, in tokens) is written for readers and computed again on load."""
        d: dict[str, Any] = {
            "format": _FORMAT,
            "version": _VERSION,
            "run_id": self.run_id,
            "model": self.model,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "error": self.error,
            "usage": self.usage.to_dict(),
            "pending": [p.to_dict() for p in self.pending],
            "turns": [t.to_dict() for t in self.turns],
            "conversation": self.conversation.to_dict(),
        }
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        """Rebuild a state from :meth:`to_dict`'s output, or from :meth:`RunResult.to_dict`'s (its
        ``state``). ``TypeError`` when ``d`` is not an object or a field has the wrong type;
        ``KeyError`` when ``run_id`` is missing; ``ValueError`` for a ``format`` other than
        ``"toolwire.RunState"`` (a saved run without one is read too), an unknown ``status`` or a
        ``version`` that is not 1 (a newer one: upgrade toolwire), a key that is not one of
        :meth:`to_dict`'s (or of a turn's or pending call's), turns not numbered 1, 2, 3, ...
        in the order listed, a tool run whose ``turn`` is not the number of the turn holding it,
        and a ``status`` that disagrees with the rest (see :func:`status_problem`: a
        ``"finished"`` run with pending calls, a ``"paused"`` one with a model's stop reason such
        as ``"end_turn"``, a ``"stopped"`` one without its limit, a pending call of a turn after
        the last). Errors inside the turns, pending calls or conversation say where and
        keep their type, but for a missing field (``ValueError``)."""
        if not isinstance(d, dict):
            raise TypeError(f"a saved run must be an object, got {type(d).__name__}")
        if "format" in d and d["format"] != _FORMAT:
            fmt = d["format"]
            raise ValueError(
                f"run state: format must be {_FORMAT!r} (what RunState.to_dict writes), "
                f"got {type(fmt).__name__} {fmt!r:.40}"
            )
        if "format" not in d and "text" in d and "stop_reason" in d:  # a saved RunResult
            return RunResult.from_dict(d).state
        version = d.get("version", _VERSION)
        if type(version) is not int or version < 1:
            raise ValueError(
                f"run state: version must be a whole number from 1 to {_VERSION} (the format version toolwire "
                f"writes), got {type(version).__name__} {version!r:.40}"
            )
        if version > _VERSION:
            raise ValueError(
                f"this run state has format version {version!r}; this toolwire reads version {_VERSION} "
                "and earlier: upgrade toolwire to load it"
            )
        _unknown_keys(d, _STATE_KEYS, "run state")  # (after the version: a newer one may add keys)
        _check_usage(d)
        status = d.get("status", "running")
        if status not in RUN_STATUSES:
            raise ValueError(f"run status must be one of {RUN_STATUSES}, got {status!r}")
        where = "run state"
        state = cls(
            run_id=loaded_field(d, "run_id", (str,), where, d["run_id"]),
            model=loaded_field(d, "model", (str, type(None)), where),
            conversation=_conversation(d, required=False),
            turns=_turns(d, where),
            pending=_pending(d, where),
            status=status,
            stop_reason=loaded_field(d, "stop_reason", (str, type(None)), where),
            error=loaded_field(d, "error", (str, type(None)), where),
        )
        problem = status_problem(state.status, state.stop_reason, state.pending, state.turns)
        if problem is not None:
            raise ValueError(f"run state: {problem}")
        return state

    def to_json(self, **kwargs: Any) -> str:
        """Strict JSON text (literal UTF-8; ASCII escapes when the text holds a lone surrogate): a
        non-finite float (``math.inf``, ``nan``) is written as its text ``"Infinity"``,
        ``"-Infinity"`` or ``"NaN"`` (and loads back as that text), since the bare words Python's
        ``json`` would write are refused by other JSON readers and by :meth:`from_json`."""
        return _dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> RunState:
        """Rebuild a saved state (a saved :class:`RunResult` is accepted too); raises ``ValueError``
        naming what is wrong and where when ``text`` is neither: not JSON, a number JSON cannot
        hold (the bare ``Infinity``/``NaN``, a literal such as ``1e999``), an unknown key (with the
        closest known ones), a field of the wrong type, turns not numbered 1, 2, 3, ... in order, a
        state no run leaves behind (see :meth:`from_dict`)."""
        try:
            return cls.from_dict(finite_json_loads(text))
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
            raise ValueError(f"not a saved toolwire RunState: {type(exc).__name__}: {exc}") from None

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8), replacing the file atomically (through
        ``<path>.tmp``, removed again when the write fails). Raises ``ValueError`` for an empty
        path, ``IsADirectoryError`` for a folder, and the ``OSError`` of a path that cannot be
        written (a missing folder, no permission)."""
        from pathlib import Path

        p = save_path(path)
        text = self.to_json()  # before the file is touched
        tmp = p.with_name(p.name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> RunState:
        """Read a state written by :meth:`save`; ``ValueError`` naming the file when it is not one
        (not UTF-8 text included); the ``OSError`` of a file that cannot be read."""
        from pathlib import Path

        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"not a saved toolwire RunState: {str(path)!r} is not UTF-8 text (byte {exc.start}: {exc.reason})"
            ) from None
        try:
            return cls.from_json(text)
        except ValueError as exc:
            raise ValueError(f"{exc} (file {str(path)!r})") from None
