"""What the property-based fuzz tests of this folder share: their hypothesis settings, the seed
taken from ``TOOLWIRE_FUZZ_SEED`` and a guard that turns a hung example into a failure."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, Callable, Iterator

from hypothesis import HealthCheck, seed, settings

#: ``TOOLWIRE_FUZZ_SEED``: run the fuzz tests from this seed (else derandomized: the same
#: examples on every run, so CI is repeatable).
SEED = os.environ.get("TOOLWIRE_FUZZ_SEED")


def fuzz_settings(examples: int, *, deadline_seconds: float | None = 10) -> Any:
    """Hypothesis settings for ``examples`` examples: derandomized unless a seed is given, no
    example database, the slow-data health checks off (an example drives whole runs through
    the SDKs), and a per-example deadline (``None``: none)."""
    return settings(
        max_examples=examples,
        deadline=None if deadline_seconds is None else timedelta(seconds=deadline_seconds),
        derandomize=SEED is None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def seeded(test: Callable[..., Any]) -> Callable[..., Any]:
    """``test`` run from the seed ``TOOLWIRE_FUZZ_SEED`` when it is set (hypothesis takes a seed
    by its ``@seed`` decorator, not as a setting)."""
    return seed(int(SEED))(test) if SEED else test


@contextmanager
def hang_guard(seconds: int, what: str) -> Iterator[None]:
    """Fail with ``TimeoutError`` (instead of waiting forever) when the block runs longer than
    ``seconds``: hypothesis checks its deadline only once an example returns. ``what`` names
    one example in the message ("one schema"). Without ``SIGALRM`` (Windows) it does nothing."""

    def hung(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{what} took more than {seconds} s: a hang")

    if not hasattr(signal, "SIGALRM"):
        yield
        return
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
