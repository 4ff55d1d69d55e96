"""The events of a run: what ``toolwire.run_stream(...)`` yields, in order.

Every event is an immutable (frozen) dataclass. One run yields::

    RunStarted
    ( TurnStarted                                  # a request is being sent: waiting for the model
      ( TextDelta | ReasoningDelta | ToolCallStarted | ToolCallArgumentsDelta
        | ProviderToolCalled | ProviderToolResult )*
      ResponseFinished                             # the whole Response of this turn
      ToolCallReady*                               # one per tool call, in call order
      ( ToolCallPending | ToolStarted | ToolFinished )*
      TurnFinished )*                              # the Turn: response, usage, tool runs
    RunFinished                                    # the RunResult

(``RetryScheduled`` may come between ``TurnStarted`` and the first delta when a request is sent
again after a retryable error.) A resumed run starts with ``RunStarted(resumed=True)``, then the
tool events of the pending calls it settles and the ``TurnFinished`` of their turn.

The same events come whether or not the request is streamed on the wire (the model setting
``stream``): a whole response is emitted as one delta per text, reasoning and tool-call part.
``run()`` is this stream consumed to its end, so its :class:`~toolwire.runstate.RunResult` is
the one in ``RunFinished``; concatenating the deltas of a turn gives the text of that turn's
``Response``, and the ``ToolFinished`` runs of all turns are ``RunResult.tool_runs``.

``turn`` is the 1-based turn number everywhere; ``index`` is the part's position in the
response as the stream numbered it (use it to tell apart several text or tool-call parts).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, Union, get_args

if TYPE_CHECKING:  # pragma: no cover
    from .executor import ToolRun
    from .runstate import PendingCall, RunResult, Turn
    from .types import ProviderToolPart, Response, ToolCall, Usage

__all__ = [
    "RunStarted",
    "TurnStarted",
    "TextDelta",
    "ReasoningDelta",
    "ToolCallStarted",
    "ToolCallArgumentsDelta",
    "ProviderToolCalled",
    "ProviderToolResult",
    "ResponseFinished",
    "ToolCallReady",
    "ToolCallPending",
    "ToolStarted",
    "ToolFinished",
    "TurnFinished",
    "RetryScheduled",
    "RunFinished",
    "RunEvent",
]


@dataclass(frozen=True)
class RunStarted:
    """The run began (or, with ``resumed=True``, a saved run continues). ``model`` is
    ``provider:model-id``."""

    run_id: str
    model: str
    resumed: bool = False


@dataclass(frozen=True)
class TurnStarted:
    """Request number ``turn`` is being sent; until its first delta the run waits for the model."""

    turn: int


@dataclass(frozen=True)
class TextDelta:
    """Visible text as it arrives (the whole text of a part when the wire is not streamed)."""

    turn: int
    index: int
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """Readable reasoning ("thinking") text as it arrives (empty reasoning sends none)."""

    turn: int
    index: int
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model began a tool call. ``id`` is the vendor's id (a synthesized or colliding id may
    be renumbered before ``ToolCallReady``, which has the final one)."""

    turn: int
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallArgumentsDelta:
    """Argument text of the call at ``index`` exactly as it arrives (not parsed; vendors that
    send the arguments as an object, such as Gemini, send no deltas)."""

    turn: int
    index: int
    text: str


@dataclass(frozen=True)
class ProviderToolCalled:
    """The model used one of the vendor's own server-side tools: ``part`` is the
    :class:`~toolwire.types.ProviderToolPart` with ``kind == "call"`` (Anthropic
    ``server_tool_use``, Gemini ``executableCode`` / ``toolCall``) at ``index``. The vendor runs
    it; toolwire only reports it (``part.name``, ``part.summary``). Client-side vendor tools
    (bash, text editor, shell, apply_patch, computer) are tool calls: they get
    ``ToolCallStarted`` / ``ToolStarted`` / ``ToolFinished`` like any tool."""

    turn: int
    index: int
    part: ProviderToolPart


@dataclass(frozen=True)
class ProviderToolResult:
    """What one of the vendor's own server-side tools returned: ``part`` is the
    :class:`~toolwire.types.ProviderToolPart` with ``kind`` ``"result"`` (Anthropic
    ``web_search_tool_result``, a Responses ``web_search_call`` / ``file_search_call`` /
    ``mcp_call`` item, Gemini ``codeExecutionResult``) or ``"metadata"`` (Gemini
    ``groundingMetadata`` / ``urlContextMetadata``) at ``index``."""

    turn: int
    index: int
    part: ProviderToolPart


@dataclass(frozen=True)
class ResponseFinished:
    """The model's whole answer for ``turn`` (the same :class:`~toolwire.types.Response` that
    ends up in ``TurnFinished.record``)."""

    turn: int
    response: Response


@dataclass(frozen=True)
class ToolCallReady:
    """A tool call of the response, its arguments parsed and validated. ``error`` is ``None``
    when it can run, else the ``is_error`` text the model will get instead (unknown tool,
    invalid or cut-off arguments)."""

    turn: int
    call: ToolCall
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class ToolCallPending:
    """The call waits: for approval (``pending.kind == "approval"``) or for a result supplied by
    the user (``"deferred"``). The run stops with it after the other calls of the turn ran."""

    turn: int
    pending: PendingCall


@dataclass(frozen=True)
class ToolStarted:
    """The tool function starts (after ``before_tool_call``; ``call.arguments`` are the ones it
    receives). At most ``Limits.max_concurrent_tools`` tools run at once; the rest wait before
    this event."""

    turn: int
    call: ToolCall


@dataclass(frozen=True)
class ToolFinished:
    """A tool call was answered: ``run.result`` (a :class:`~toolwire.types.ToolResult`, after
    ``after_tool_call``) and ``run.duration`` in seconds. Also sent for calls answered without
    running (invalid, refused by a limit or a hook, denied); ``run.status`` says which."""

    turn: int
    run: ToolRun


@dataclass(frozen=True)
class TurnFinished:
    """Turn ``turn`` is complete: ``record`` is its :class:`~toolwire.runstate.Turn` (response,
    usage, tool runs)."""

    turn: int
    record: Turn

    @property
    def response(self) -> Response:
        return self.record.response

    @property
    def usage(self) -> Usage:
        return self.record.usage


@dataclass(frozen=True)
class RetryScheduled:
    """A request failed with a retryable error and will be sent again after ``delay`` seconds
    (``attempt`` is the number of the next attempt, 2 for the first retry; ``error`` says what
    failed, ``"TypeName: message"``). ``usage``: the token counts the failed attempt had
    reported before it failed (a :class:`~toolwire.types.Usage`, e.g. the input count of an
    Anthropic stream's ``message_start``), ``None`` when it reported none; no usage total counts
    them (the turn's usage is the attempt that answered). Emitted by the retry policy of the
    loop."""

    turn: int
    attempt: int
    delay: float
    error: str
    usage: Usage | None = None


@dataclass(frozen=True)
class RunFinished:
    """The run ended with ``result`` (finished, paused with pending calls, or stopped by a
    limit). ``error`` is the :class:`~toolwire.errors.RunLimitExceeded` that ``run()`` raises for
    a limit stop (``None`` otherwise). A run stopped by an exception or a cancellation yields no
    ``RunFinished``: the iterator raises, and the stream's ``state`` holds the partial run."""

    result: RunResult
    error: Any = None


RunEvent = Union[
    RunStarted,
    TurnStarted,
    TextDelta,
    ReasoningDelta,
    ToolCallStarted,
    ToolCallArgumentsDelta,
    ProviderToolCalled,
    ProviderToolResult,
    ResponseFinished,
    ToolCallReady,
    ToolCallPending,
    ToolStarted,
    ToolFinished,
    TurnFinished,
    RetryScheduled,
    RunFinished,
]


def _direct_init(cls: type) -> None:
    """Give the frozen dataclass ``cls`` an ``__init__`` with the same parameters (names, order,
    defaults, annotations) that writes the fields into the instance ``__dict__`` directly, as
    ``object.__setattr__`` does for them. The generated ``__init__`` of a frozen dataclass makes one
    ``object.__setattr__`` call per field (a plain assignment is refused), which made building an
    event about three times slower; the instance is the same (equal, same hash, still frozen).
    Written the way :mod:`dataclasses` writes its own ``__init__`` (source text, ``exec``)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    defaults = {f"_d_{f.name}": f.default for f in fields(cls) if f.default is not MISSING}  # type: ignore[arg-type]
    params = ", ".join(f"{n}=_d_{n}" if f"_d_{n}" in defaults else n for n in names)
    body = "".join(f"    d[{n!r}] = {n}\n" for n in names)
    scope: dict[str, Any] = dict(defaults)
    exec(f"def __init__(self, {params}):\n    d = self.__dict__\n{body}", scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[misc]


list(map(_direct_init, get_args(RunEvent)))  # every event class, each once
