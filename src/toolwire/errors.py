"""toolwire's exception types. All derive from :class:`ToolwireError`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .runstate import RunState
    from .types import Usage

__all__ = [
    "ToolwireError",
    "AdapterWarning",
    "ToolDefinitionError",
    "ToolNameError",
    "SchemaError",
    "SchemaTranslationError",
    "UnsupportedToolChoice",
    "ConfigurationError",
    "ProviderNotFound",
    "AdapterNotInstalled",
    "ProviderError",
    "RunLimitExceeded",
    "MaxTurnsExceeded",
    "UsageLimitExceeded",
    "ContextWindowExceeded",
    "ToolError",
    "ResponseDecodeError",
    "ResponseIncomplete",
    "RequestRefused",
    "MAX_ERROR_CHARS",
    "ERROR_TAIL_CHARS",
    "cap_error_text",
]


#: Characters of an error text that reach the model: the text of an exception a tool raised (a
#: :class:`ToolError`'s rendered text included), of an exception given as a deferred call's
#: result, and an MCP server's error text. A longer text keeps its beginning and its last
#: :data:`ERROR_TAIL_CHARS` characters (where a hint or the final exception line usually is) with
#: a line between them saying how much was left out, so one error cannot fill the model's
#: context window and make the vendor refuse the next request. The same figure as a character
#: page of the design kit.
MAX_ERROR_CHARS = 20_000
#: Characters kept from the end of an error text that is cut (see :data:`MAX_ERROR_CHARS`).
ERROR_TAIL_CHARS = 2_000


def cap_error_text(text: str) -> str:
    """``text`` when it has at most :data:`MAX_ERROR_CHARS` characters. A longer text becomes its
    beginning, a line ``[error text cut: N of its M characters left out here]`` and its last
    :data:`ERROR_TAIL_CHARS` characters, :data:`MAX_ERROR_CHARS` characters or fewer in all (so a
    text cut once is not cut again)."""
    return cut_text(text, MAX_ERROR_CHARS, ERROR_TAIL_CHARS)


def cut_text(text: str, limit: int, tail: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its beginning, the line
    ``[error text cut: N of its M characters left out here]`` and its last ``tail`` characters,
    ``limit`` characters or fewer in all (``limit`` well above ``tail`` plus that line)."""
    if len(text) <= limit:
        return text
    note = f"\n[error text cut: {{:,}} of its {len(text):,} characters left out here]\n"
    # the count's own digits change the room left for the beginning: size the note for the
    # largest count it can hold (the whole text's), then fill the beginning up to the limit
    head = limit - tail - len(note.format(len(text)))
    return text[:head] + note.format(len(text) - head - tail) + text[len(text) - tail :]


def json_error_at(exc: ValueError, where: str) -> str:
    """The reason a JSON text could not be decoded, for an error message: the decoder's message
    (``exc.msg`` of a :class:`json.JSONDecodeError`, else ``str(exc)``) followed by ``at
    <where>``, e.g. ``"Unterminated string starting at char 115"``. The decoder's messages that
    already end in "at" ("Unterminated string starting at", "Invalid control character at")
    do not say it twice."""
    msg = str(getattr(exc, "msg", "") or exc).rstrip()
    if msg.endswith(" at"):
        msg = msg[: -len(" at")]
    return f"{msg} at {where}"


class AdapterWarning(UserWarning):
    """An adapter answered with a value toolwire had to correct to go on, e.g. a stop reason that
    is not one of :data:`toolwire.types.STOP_REASONS` (the run continues with the canonical
    one and keeps the adapter's value in ``Response.vendor_stop_reason``). A sign that a
    third-party adapter's decoder needs a fix; toolwire's own adapters never cause it."""


class ToolwireError(Exception):
    """Base class of every error toolwire raises on purpose.

    Every toolwire error survives ``pickle`` (a process pool, Ray, ``multiprocessing``) with its
    message and attributes: it is rebuilt without calling ``__init__`` again, since most take
    other arguments than the message their ``args`` hold.

    ``run_state``: on an error that ended a run (raised out of :func:`toolwire.run`,
    ``run_sync`` or a run stream), the partial run as a :class:`~toolwire.runstate.RunState`
    (status ``"failed"``; its conversation is valid for the vendor and can be fixed and sent
    again, or saved and resumed); ``None`` on an error raised outside a run."""

    #: The partial run this error ended, when it was raised out of a run; else ``None``.
    run_state: RunState | None = None

    def __reduce__(self) -> Any:
        return (_rebuild_error, (type(self), self.args, dict(self.__dict__)))


def _rebuild_error(cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]) -> BaseException:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


def _scrubbed(message: str) -> str:
    """``message`` without known credentials; the exception being handled (the vendor SDK's,
    which the new error is raised from) is scrubbed in place too (see ``toolwire.secrets``)."""
    import sys

    from .secrets import scrub, scrub_exception

    scrub_exception(sys.exc_info()[1])
    return scrub(message)


class ToolDefinitionError(ToolwireError, ValueError):
    """A tool definition is unusable (bad schema, bad paging declaration, bad signature)."""


class ToolNameError(ToolDefinitionError):
    """A tool name breaks the rule every vendor accepts: ``^[A-Za-z_][A-Za-z0-9_-]{0,63}$``."""

    RULE = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"

    def __init__(
        self, name: str, detail: str | None = None, *, api: str | None = None, rule: str | None = None
    ) -> None:
        self.name = name
        self.api = api
        if api is not None:
            reason = detail or (f"it must match {rule}" if rule else "the API does not accept it")
            super().__init__(f"tool name {name!r} breaks the {api} rule: {reason}")
            return
        else:
            msg = (
                f"tool name {name!r} is not accepted by every vendor: it must match {self.RULE} "
                "(a letter or '_' first, then letters, digits, '_' or '-', at most 64 characters)"
            )
        if detail:
            msg += f"; {detail}"
        super().__init__(msg)


class SchemaError(ToolDefinitionError):
    """An input schema is not a valid JSON Schema (Draft 2020-12) object schema."""


class BoundExceeded(ToolwireError, ValueError):
    """An input exceeds one of toolwire's documented bounds (nesting depth, size, node count).

    - ``bound``: the name of the bound (e.g. ``"MAX_SCHEMA_DEPTH"``), documented where it is
      defined and on the reliability docs page;
    - ``limit``: its value; ``found``: what the input had (or ``None`` when counting stopped at
      the bound)."""

    def __init__(self, message: str, *, bound: str, limit: int, found: int | None = None) -> None:
        self.bound = bound
        self.limit = limit
        self.found = found
        super().__init__(message)


class SchemaBoundExceeded(SchemaError, BoundExceeded):
    """An input schema nests deeper or has more nodes than toolwire works through."""


class SchemaTranslationError(ToolwireError, ValueError):
    """A schema cannot be translated for a vendor. ``pointer`` is the JSON pointer of the node."""

    def __init__(self, message: str, pointer: str = "", rule: str | None = None) -> None:
        self.pointer = pointer
        self.rule = rule
        super().__init__(message)


class UnsupportedToolChoice(ToolwireError, ValueError):
    """A tool choice form toolwire (or the selected vendor) cannot express. Never silently ``auto``."""


class ConfigurationError(ToolwireError, ValueError):
    """Settings that cannot work together, or a missing credential (names the variable to set)."""


class ProviderToolUnsupported(ConfigurationError):
    """A provider tool (:class:`toolwire.ProviderTool`) the target API does not have: another
    vendor's tool, or a type the vendor's SDK does not list. Raised before any request is sent;
    the message lists the provider tool types the target API offers. Attributes: ``provider``
    (the target API), ``vendor`` and ``tool_type`` (the tool's)."""

    def __init__(
        self, message: str, *, provider: str | None = None, vendor: str | None = None, tool_type: str | None = None
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.vendor = vendor
        self.tool_type = tool_type


class ProviderNotFound(ToolwireError, LookupError):
    """``provider:model`` names a provider no installed adapter registers (lists the known ones)."""


class AdapterNotInstalled(ProviderNotFound):
    """A known provider whose adapter distribution is not installed (names the extra to install)."""


class ResponseDecodeError(ToolwireError, ValueError):
    """A vendor body (response, stream event or imported request) does not have the shape its API
    documents. ``api``: the wire API; ``pointer``: JSON pointer of the offending field (``""`` for
    the whole body); ``usage``: for a malformed event in a stream, the token counts
    (:class:`~toolwire.types.Usage`) the stream had reported before it (e.g. the input count of
    Anthropic's ``message_start``, a Gemini usage chunk), ``None`` when it reported none or the
    body was not a stream. As for :attr:`ProviderError.usage`, no usage total counts them."""

    #: the counts the stream had reported before the malformed event, if any (counted in no total)
    usage: Usage | None = None

    def __init__(self, api: str, message: str, pointer: str = "") -> None:
        message = _scrubbed(message)
        self.api = api
        self.pointer = pointer
        #: the message without the ``"<api>: malformed body at <pointer>: "`` prefix
        self.detail = message
        where = f" at {pointer}" if pointer else ""
        super().__init__(f"{api}: malformed body{where}: {message}")


class ResponseBoundExceeded(ResponseDecodeError, BoundExceeded):
    """A vendor body or stream event nests arrays and objects deeper than
    :data:`toolwire.transport.MAX_BODY_DEPTH` outside a tool call's arguments (``bound`` is
    ``"MAX_BODY_DEPTH"``; ``pointer`` names the first value nested too deeply). No documented
    answer nests so deep: it comes from a broken or hostile server, and toolwire stops reading
    it instead of recursing until the interpreter raises ``RecursionError``. Not retried (the
    same answer would likely come again); its text says to check ``base_url``, any proxy before
    the API and the server."""

    def __init__(self, api: str, message: str, pointer: str = "", *, bound: str, limit: int) -> None:
        message = _scrubbed(message)
        self.api = api
        self.pointer = pointer
        self.detail = message
        steps = pointer.split("/")[1:]
        shown = pointer if len(steps) <= 12 else "/" + "/".join(steps[:8]) + f"/… ({len(steps) - 8} steps more)"
        where = f" at {shown}" if pointer else ""
        # (ResponseDecodeError.__init__'s super() would reach BoundExceeded without its keywords)
        BoundExceeded.__init__(self, f"{api}: malformed body{where}: {message}", bound=bound, limit=limit)


class RequestRefused(ToolwireError, ValueError):
    """A request toolwire knows the vendor would refuse; raised by preflight *before* anything is
    sent. ``api``: the target API; ``violations``: every
    :class:`~toolwire.profile.Violation` (rule id, JSON pointer into the encoded body, message,
    tool / call concerned). The message names the tool or call, the pointer and the rule of each."""

    def __init__(self, api: str, violations: list[Any]) -> None:
        self.api = api
        self.violations: list[Any] = list(violations)
        shown = "; ".join(str(v) for v in self.violations[:5])
        more = f" (and {len(self.violations) - 5} more)" if len(self.violations) > 5 else ""
        n = len({getattr(v, "rule", v) for v in self.violations})
        places = len(self.violations)
        where = f" in {places} places" if places > n else ""
        super().__init__(
            f"{api}: request not sent, it breaks {n} vendor rule{'s' if n != 1 else ''}{where}: {shown}{more}"
        )

    @property
    def rules(self) -> list[str]:
        """The ids of the rules broken, in order, each once."""
        return list(dict.fromkeys(v.rule for v in self.violations))


class ProviderError(ToolwireError):
    """A vendor API call failed.

    - ``provider``: API name; ``status``: HTTP status (``None`` for connection errors/timeouts);
    - ``message``: the vendor's own error message; ``error_type``: the vendor's error type when given;
    - ``retryable``: whether retrying the same request could help (429, 408, 409, 5xx, 529,
      connection errors, timeouts);
    - ``body``: the decoded error body when there was one;
    - ``retry_after``: the wait in seconds the server asked for (``retry-after`` /
      ``retry-after-ms`` header), ``None`` when it sent none (see :mod:`toolwire.retry`);
    - ``attempts``: how many times the request was sent, the attempt that failed with this
      error included (1 when it was not retried). When a model's retries end with this error,
      its text says so after the vendor's: ``"...: Overloaded (retryable); failed after 3
      attempts (max_attempts=3)"``, or why a retryable error was not sent again (``"not
      retried: part of the answer had already been streamed"``);
    - ``usage``: the token counts (:class:`~toolwire.types.Usage`) the failed attempt had
      reported before it failed — e.g. the input count of Anthropic's ``message_start``, a
      Gemini usage chunk, the ``usage`` of a Responses ``response.failed`` — ``None`` when it
      reported none. No usage total counts them (a failed attempt adds nothing to
      ``Response.usage``, ``RunResult.usage``, the token limits or the cost).
    """

    #: how many times the request was sent (set by the transport that retried it)
    attempts: int = 1
    #: the counts the failed attempt reported before it failed, if any (counted in no total)
    usage: Usage | None = None

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        error_type: str | None = None,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        message = _scrubbed(message if isinstance(message, str) else str(message))
        from .secrets import scrub_value

        body = scrub_value(body)
        self.provider = provider
        self.status: int | None = status if isinstance(status, int) and not isinstance(status, bool) else None
        self.message = message
        self.retryable: bool = bool(retryable)
        self.error_type: str | None = (
            error_type if error_type is None or isinstance(error_type, str) else str(error_type)
        )
        self.body = body
        self.retry_after: float | None = (
            float(retry_after) if isinstance(retry_after, (int, float)) and not isinstance(retry_after, bool) else None
        )
        status, message, error_type = self.status, self.message, self.error_type
        where = f"HTTP {status}" if status is not None else "no HTTP status"
        super().__init__(
            f"{provider} API error ({where}{', ' + error_type if error_type else ''}): {message}"
            f"{' (retryable)' if retryable else ''}"
        )

    def gave_up(self, attempts: int, why: str | None = None) -> ProviderError:
        """Mark this error as the one that ended a request after ``attempts`` attempts: sets
        :attr:`attempts` and adds to the error's text how many attempts failed, and ``why`` (the
        reason a retryable error was not sent again), e.g. ``"; failed after 3 attempts
        (max_attempts=3)"``. Nothing is added to a first attempt's error that is not retryable
        (its text already says no retry could help). Returns the error itself; done once (a
        second call changes nothing)."""
        if self.__dict__.get("_gave_up"):
            return self
        self._gave_up = True
        self.attempts = attempts
        if attempts > 1:
            note = f"failed after {attempts} attempts" + (f" ({why})" if why else "")
        elif why and self.retryable:
            note = f"not retried: {why}"
        else:
            note = None
        if note is not None and self.args and isinstance(self.args[0], str):
            self.args: tuple[Any, ...] = (f"{self.args[0]}; {note}", *self.args[1:])
        return self

    @staticmethod
    def is_retryable_status(status: int | None) -> bool:
        """HTTP 408, 409, 429 and every 5xx may succeed on retry (adapters refine this with the
        vendor's own signal, e.g. an ``x-should-retry`` header)."""
        return status is None or status in (408, 409, 429) or status >= 500


class ResponseIncomplete(ProviderError, ResponseDecodeError):
    """A successful (2xx) answer whose body is empty, or JSON that ends before its last value
    does (cut inside an object, an array or a string): the connection, or a proxy before the
    API, cut it. Nothing of the answer is used. Both a :class:`ResponseDecodeError` (``api``,
    ``pointer`` ``""``, ``detail``) and a retryable :class:`ProviderError` (``status`` the HTTP
    status, ``error_type`` ``"incomplete_body"``, ``retryable`` ``True``), so the model's retry
    policy sends the request again, as it does for a stream that ends before its first event or
    before the vendor's end."""

    def __init__(self, api: str, message: str, *, status: int | None = None) -> None:
        message = _scrubbed(message)
        self.provider = api
        self.status: int | None = status if isinstance(status, int) and not isinstance(status, bool) else None
        self.message = message
        self.retryable: bool = True
        self.error_type: str | None = "incomplete_body"
        self.body: Any = None
        self.retry_after: float | None = None
        self.api = api
        self.pointer = ""
        self.detail = message
        # (both bases' __init__ call super() with other arguments: the text is set here)
        Exception.__init__(self, f"{api}: malformed body: {message} (retryable)")


class RunLimitExceeded(ToolwireError):
    """A run stopped at a limit. ``result`` is the partial :class:`~toolwire.RunResult`; its
    ``conversation`` is still valid for the vendor (every tool call answered)."""

    def __init__(self, message: str, result: Any) -> None:
        self.result = result
        super().__init__(message)

    @property
    def conversation(self) -> Any:
        return self.result.conversation


class MaxTurnsExceeded(RunLimitExceeded):
    """The model still asked for tools after ``max_turns`` model requests."""


class UsageLimitExceeded(RunLimitExceeded):
    """A :class:`~toolwire.Limits` bound (tokens, tool calls, requests) was reached."""


class ContextWindowExceeded(RunLimitExceeded):
    """The model's response stopped because the conversation filled its context window (the
    vendor's stop reason says so, e.g. Anthropic's ``model_context_window_exceeded``) while it
    was asking for tools. The calls are answered with ``is_error`` results, not run, and no
    further request is sent (it would not fit). ``result.conversation`` is valid: shorten or
    summarise it, then continue with ``run(model, conversation=...)``."""


def _text_of(value: Any) -> str:
    """``value`` as text for a message: itself when it is a ``str``, else its ``str()``, or its
    type when ``str()`` raises."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception as exc:
        return f"({type(value).__name__} whose text could not be read: {type(exc).__name__})"


class ToolError(ToolwireError):
    """Raise from a tool function to tell the model what went wrong and what to do next.

    - ``message``: the error itself (first line of the result the model reads);
    - ``hint``: the next move (e.g. "call list_dir to see the file names");
    - ``retryable``: ``True`` when the same call may succeed later, ``False`` when the arguments
      must change, ``None`` when unknown;
    - ``valid_values``: the values that would have been accepted, when known.

    The loop renders it with :meth:`render` into an ``is_error`` tool result, the same text for
    every vendor (the OpenAI adapters add their ``Error: `` prefix, having no error flag).
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        retryable: bool | None = None,
        valid_values: list[Any] | tuple[Any, ...] | None = None,
    ) -> None:
        self.message = message
        self.hint = hint
        self.retryable = retryable
        self.valid_values: list[Any] | None = list(valid_values) if valid_values is not None else None
        super().__init__(message)

    def render(self) -> str:
        """``message``, then the hint, then valid values and the retry advice, one per line. A
        field that is not text is shown as its ``str()`` (one whose ``str()`` raises, by its
        type), so rendering never fails."""
        lines = [_text_of(self.message)]
        if self.hint:
            lines.append(_text_of(self.hint))
        if self.valid_values:
            shown = ", ".join(_text_of(v) for v in self.valid_values[:50])
            more = f" (and {len(self.valid_values) - 50} more)" if len(self.valid_values) > 50 else ""
            lines.append(f"Valid values: {shown}{more}")
        if self.retryable is True:
            lines.append("Retrying the same call may succeed.")
        elif self.retryable is False:
            lines.append("Retrying the same call will fail again; change the arguments.")
        return "\n".join(lines)
