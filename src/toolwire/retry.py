"""Retries owned by toolwire: one classification of vendor errors and one retry policy.

Every toolwire transport (Anthropic, OpenAI Chat Completions and Responses, Gemini, and any
OpenAI-compatible server) sends a request through :meth:`RetryPolicy.delay_for`: the vendor SDKs'
own retries are switched off (the adapters build their clients with ``max_retries=0``, and Gemini
with one ``HttpRetryOptions`` attempt), so every attempt is visible — each retry is announced
before its wait as a :class:`RetryNotice` (the run loop turns it into a
:class:`toolwire.events.RetryScheduled` event, which the CLI's status line shows) — and can be
stopped (``max_retries=0`` or ``retry=False``).

**Classified once.** :func:`classify` decides whether an error can succeed on a retry, from the
HTTP status, the vendor's error type and its message — the same answer whether the error came as
an HTTP status, as an error object in a 200 body, or as an error chunk inside an event stream:

- 400, 401, 403, 404, 405, 413, 422 (and every other 4xx but the three below): the request itself
  is wrong and will be refused again — **not retried**;
- 408 (timeout), 409 (conflict), 429 (rate limit): **retried** (except a 429 whose error code an
  adapter names a used-up quota or spend limit, :func:`toolwire.transport.stainless_error`);
- 5xx: **retried** (a server's transient failure), **except** when the message says the request
  itself cannot be served — e.g. llama.cpp's ``500 "The model produced output that does not
  match the expected … format"`` (``common/chat.cpp``: the output parser failed, and with the
  same prompt and sampling it fails again), a server started without the set-up tool calling
  needs (llama.cpp's ``500 "tools param requires --jinja flag"``), or a context-size error sent
  as 5xx (:data:`PERMANENT_5XX_MESSAGES` lists the phrases);
- no status (a connection failure, a timeout, an error chunk inside a stream with no code): the
  caller's own ``retryable`` stands (connection errors and timeouts are retryable; an error chunk
  is when its type is a transient one, e.g. ``overloaded_error``).

**The end of the retries.** The error raised is the last attempt's, with ``attempts`` set
(:meth:`ProviderError.gave_up <toolwire.errors.ProviderError.gave_up>`; the text says how many
attempts failed, or why a retryable error was not sent again: :meth:`RetryPolicy.why_not`). A
failed attempt's usage is counted in no total: what it had reported is on its
:class:`RetryNotice` (``usage``) or on the last error (``usage``).

**Waits.** The delay before attempt ``n + 1`` is ``initial_delay * multiplier ** (n - 1)``, capped
at ``max_delay``, with ±``jitter`` of it drawn at random; a ``retry-after`` (or ``retry-after-ms``)
header the server sent wins when it is not longer than ``max_retry_after`` — a longer one is not
waited for: the error is raised at once (a quota reset hours away is not a retry).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

if TYPE_CHECKING:  # pragma: no cover - imported by a policy's first jitter draw (_Rng)
    import random

__all__ = [
    "RetryPolicy",
    "RetryNotice",
    "DEFAULT_POLICY",
    "NO_RETRY",
    "PERMANENT_5XX_MESSAGES",
    "classify",
    "retry_after_seconds",
    "policy_from_settings",
    "listening",
    "notify",
]

#: Phrases in a 5xx error's message that say the request itself cannot be served (retrying the
#: same request gives the same error). Matched case-insensitively.
PERMANENT_5XX_MESSAGES: tuple[str, ...] = (
    # llama.cpp common/chat.cpp: "The model produced output that does not match the expected
    # <format> format" (HTTP 500, type server_error) — the tool-call parser failed on the output.
    "does not match the expected",
    # llama.cpp tools/server: "the request exceeds the available context size, try increasing it"
    # (sent with 400 type exceed_context_size_error by current builds, 500 by older ones).
    "exceeds the available context size",
    # vLLM / llama.cpp template errors surface as 500 with these words.
    "chat template",
    "failed to parse",
    # llama.cpp tools/server (utils.hpp, oaicompat params): a server started without --jinja
    # answers a request with tools, or with a tool_choice other than "auto", with 500 server_error
    # "tools param requires --jinja flag" / "tool_choice param requires --jinja flag"; builds from
    # before --jinja answered "Unsupported param: tools". The server's set-up refuses the
    # request, so every retry gets the same answer.
    "requires --jinja flag",
    "unsupported param:",
)

_permanent: Any = None  # PERMANENT_5XX_MESSAGES as one pattern, compiled on the first 5xx classified


def _permanent_match(message: str) -> bool:
    global _permanent
    if _permanent is None:
        import re

        _permanent = re.compile("|".join(re.escape(p) for p in PERMANENT_5XX_MESSAGES), re.IGNORECASE)
    return _permanent.search(message) is not None


def classify(status: int | None, message: str | None = None, *, default: bool = False) -> bool:
    """Whether an error with HTTP ``status`` and ``message`` can succeed when the same request is
    sent again (the rules in this module's docstring). ``default`` is returned for ``status=None``
    (no HTTP status: the caller knows whether it was a connection failure or a stream chunk)."""
    if status is None or isinstance(status, bool):
        return default
    if status in (408, 409, 429):
        return True
    if 500 <= status <= 599:
        return not (message and _permanent_match(message))
    return False


def retry_after_seconds(headers: Mapping[str, str] | Any, now: float | None = None) -> float | None:
    """The wait a server asked for, in seconds: ``retry-after-ms`` (milliseconds, as OpenAI and
    Anthropic send it), else ``retry-after`` as seconds or an HTTP date (RFC 9110 §10.2.3). ``None``
    when neither is present or readable. ``headers`` is any mapping with ``.get``."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            try:
                value = float(ms) / 1000.0
            except (TypeError, ValueError):
                value = -1.0  # unreadable: fall back to retry-after
            if math.isfinite(value) and value >= 0:
                return value
        ra = headers.get("retry-after")
    except Exception:
        return None
    if ra is None:
        return None
    ra = str(ra).strip()
    try:
        value = float(ra)
        return value if math.isfinite(value) and value >= 0 else None
    except ValueError:
        pass
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryNotice:
    """A request failed with a retryable error and will be sent again after ``delay`` seconds.
    ``attempt`` is the number of the next attempt (2 for the first retry); ``error`` is the
    :class:`~toolwire.errors.ProviderError` that failed. Yielded by a transport's
    ``send_stream`` before it waits (and passed to the :func:`listening` callback for ``send``);
    :class:`~toolwire.stream.StreamAssembler` starts the response over at it."""

    attempt: int
    delay: float
    error: Any

    def describe(self) -> str:
        """``"ProviderError: <message>"`` (the form of ``RetryScheduled.error``)."""
        return f"{type(self.error).__name__}: {self.error}"

    @property
    def usage(self) -> Any:
        """The token counts the failed attempt had reported before it failed
        (:attr:`ProviderError.usage <toolwire.errors.ProviderError.usage>`), ``None`` when none;
        counted in no usage total (the ``usage`` of ``RetryScheduled``)."""
        return getattr(self.error, "usage", None)


class _Rng:
    """A policy's own jitter source: a ``random.Random`` made on the first draw (so ``random`` is
    imported by the first retry, not by ``import toolwire``)."""

    __slots__ = ("_random",)

    def __init__(self) -> None:
        self._random: random.Random | None = None

    def random(self) -> float:
        r = self._random
        if r is None:
            import random

            r = self._random = random.Random()
        return r.random()


#: The most attempts a policy may make (``max_retries`` at most 99): more is a mistake, not a policy.
MAX_ATTEMPTS = 100


@dataclass(frozen=True)
class RetryPolicy:
    """How toolwire retries a failed request (the model setting ``retry=``; ``max_retries=N``
    sets only :attr:`max_attempts` to ``N + 1``).

    - ``max_attempts``: attempts in all, the first included (default 3: two retries, the number
      the vendor SDKs used to make by themselves); 1 = never retry;
    - ``initial_delay`` / ``multiplier`` / ``max_delay`` (seconds): exponential backoff, default
      0.5 s, doubling, at most 8 s; ``jitter``: the fraction of each delay drawn at random
      (default 0.25: ±25 %);
    - ``honor_retry_after``: wait what a ``retry-after`` header says (default ``True``);
      ``max_retry_after``: a longer requested wait is not waited for — the error is raised
      (default 60 s).

    ``max_attempts`` is at most 100 and every number must be finite and >= 0, else
    :class:`~toolwire.errors.ConfigurationError` at construction.

    Only errors whose ``retryable`` is true are retried (:func:`classify`); a stream is retried
    only until a part of its answer arrived (:func:`toolwire.stream.carries_answer`).
    """

    max_attempts: int = 3
    initial_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 8.0
    jitter: float = 0.25
    honor_retry_after: bool = True
    max_retry_after: float = 60.0
    #: the jitter source: anything with ``random()`` (e.g. ``random.Random(seed)``); by default a
    #: ``random.Random`` of the policy's own, made on its first draw
    rng: random.Random | _Rng = field(default_factory=_Rng, compare=False, repr=False)

    def __post_init__(self) -> None:
        from .errors import ConfigurationError

        if (
            not isinstance(self.max_attempts, int)
            or isinstance(self.max_attempts, bool)
            or not 1 <= self.max_attempts <= MAX_ATTEMPTS
        ):
            raise ConfigurationError(
                f"retry: max_attempts must be an integer from 1 to {MAX_ATTEMPTS}, got {self.max_attempts!r}"
            )
        for name in ("initial_delay", "multiplier", "max_delay", "jitter", "max_retry_after"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise ConfigurationError(f"retry: {name} must be a finite number >= 0, got {value!r}")
        if self.jitter > 1:
            raise ConfigurationError(f"retry: jitter is a fraction of the delay (0 to 1), got {self.jitter!r}")

    def backoff(self, attempt: int) -> float:
        """The wait after failed attempt number ``attempt`` (1-based) without a server hint."""
        # Multiply step by step and stop at the cap, so a huge multiplier cannot overflow.
        base = min(self.max_delay, float(self.initial_delay))
        for _ in range(min(max(0, attempt - 1), MAX_ATTEMPTS)):
            if base >= self.max_delay or base == 0:
                break
            base = min(self.max_delay, base * self.multiplier)
        if self.jitter:
            base *= 1 + self.jitter * (2 * self.rng.random() - 1)
        return max(0.0, base)

    def delay_for(self, error: BaseException, attempt: int) -> float | None:
        """Seconds to wait before sending again after ``error`` ended attempt ``attempt``
        (1-based), or ``None`` when it is not retried: the error is not retryable, the attempts
        are used up, or the server asked for a wait longer than ``max_retry_after``."""
        if attempt >= self.max_attempts or not getattr(error, "retryable", False):
            return None
        hint = getattr(error, "retry_after", None)
        if self.honor_retry_after and isinstance(hint, (int, float)) and not isinstance(hint, bool):
            if hint > self.max_retry_after:
                return None
            return float(hint)
        return self.backoff(attempt)

    def why_not(self, error: BaseException, attempt: int, *, streamed: bool = False) -> str:
        """Why ``error``, which ended attempt ``attempt`` (1-based), is not sent again, in words
        (the note :meth:`ProviderError.gave_up <toolwire.errors.ProviderError.gave_up>` adds to
        the error's text): ``streamed`` — part of the answer had already been streamed —, the
        error is not retryable, the attempts are used up, or the server asked for a longer wait
        than ``max_retry_after``."""
        if streamed:
            return (
                "part of the answer had already been streamed (what arrived cannot be taken back: send the "
                "request again for a whole answer; in a run, resume from the error's run_state)"
            )
        if not getattr(error, "retryable", False):
            return "this error is not retried"
        if attempt >= self.max_attempts:
            return f"max_attempts={self.max_attempts}"
        hint = getattr(error, "retry_after", None)
        if self.honor_retry_after and isinstance(hint, (int, float)) and hint > self.max_retry_after:
            return f"the server asked to wait {hint:g} s, longer than max_retry_after={self.max_retry_after:g} s"
        return "the retry policy stopped"  # pragma: no cover - delay_for gave a delay


#: The default: three attempts, 0.5 s then 1 s (±25 %), ``retry-after`` honoured up to 60 s.
DEFAULT_POLICY = RetryPolicy()
#: Never retry (``retry=False`` or ``max_retries=0``).
NO_RETRY = RetryPolicy(max_attempts=1)


def policy_from_settings(settings: Mapping[str, Any]) -> RetryPolicy:
    """The policy a model's settings ask for: ``retry`` (a :class:`RetryPolicy`, a dict of its
    fields, ``False``/``None`` for never, ``True`` for the default), else ``max_retries`` (retries
    after the first attempt), else :data:`DEFAULT_POLICY`. Both given: ``max_retries`` overrides
    ``max_attempts``. Raises :class:`~toolwire.errors.ConfigurationError` for anything else."""
    from .errors import ConfigurationError

    spec = settings.get("retry", True)
    if isinstance(spec, RetryPolicy):
        policy = spec
    elif spec is True:
        policy = DEFAULT_POLICY
    elif spec is False or spec is None:
        policy = NO_RETRY
    elif isinstance(spec, Mapping):
        try:
            policy = RetryPolicy(**dict(spec))
        except TypeError as exc:
            raise ConfigurationError(
                f"retry: {exc}; the fields are max_attempts, initial_delay, multiplier, max_delay, jitter, "
                "honor_retry_after, max_retry_after"
            ) from exc
    else:
        raise ConfigurationError(
            f"retry must be a RetryPolicy, a dict of its fields, True or False, got {type(spec).__name__}"
        )
    retries = settings.get("max_retries")
    if retries is not None and spec is not False:
        if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries < MAX_ATTEMPTS:
            raise ConfigurationError(f"max_retries must be an integer from 0 to {MAX_ATTEMPTS - 1}, got {retries!r}")
        import dataclasses

        policy = dataclasses.replace(policy, max_attempts=retries + 1)
    return policy


_listener: contextvars.ContextVar[Callable[[RetryNotice], None] | None] = contextvars.ContextVar(
    "toolwire_retry_listener", default=None
)


@contextlib.contextmanager
def listening(callback: Callable[[RetryNotice], None]) -> Iterator[None]:
    """Within the block (and in tasks created in it), every retry a transport schedules calls
    ``callback(notice)`` before its wait. The run loop uses it to emit ``RetryScheduled``."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def notify(notice: RetryNotice) -> None:
    """Pass ``notice`` to the current :func:`listening` callback, if any (its errors are ignored:
    a broken listener never stops a retry)."""
    cb = _listener.get()
    if cb is not None:
        try:
            cb(notice)
        except Exception:  # pragma: no cover - a listener's own bug
            pass
