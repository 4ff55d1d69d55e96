""" "Did you mean" suggestions for actionable errors (unknown tool, unknown file, bad enum value)."""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(name: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """Up to ``n`` of ``candidates`` most similar to ``name``, best first.

    Similarity is ``difflib.SequenceMatcher.ratio`` on lower-cased text; a candidate is kept when
    its ratio is at least ``cutoff`` and within 0.15 of the best one (so one clear match is not
    padded with poor ones). A candidate equal to ``name`` ignoring case, or one that starts with
    ``name`` (``"README"`` → ``"README.md"``), ranks first. Returns ``[]`` when nothing is close.
    """
    cands = [c for c in dict.fromkeys(str(c) for c in candidates) if c != name]
    if not cands or n <= 0:
        return []
    low = name.lower()
    scored = []
    for c in cands:
        cl = c.lower()
        if cl == low:
            score = 2.0
        elif low and len(low) >= 3 and (cl.startswith(low) or low.startswith(cl)):
            score = 1.5 + difflib.SequenceMatcher(None, low, cl).ratio() / 10
        else:
            score = difflib.SequenceMatcher(None, low, cl).ratio()
        scored.append((score, c))
    scored.sort(key=lambda sc: (-sc[0], sc[1]))
    best = scored[0][0]
    if best < cutoff:
        return []
    floor = max(cutoff, best - 0.15) if best <= 1.0 else 1.0
    return [c for s, c in scored if s >= floor][:n]


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3) -> str | None:
    """``"Did you mean 'a' or 'b'?"`` for the :func:`closest` candidates, or ``None``."""
    found = closest(name, candidates, n=n)
    if not found:
        return None
    quoted = [repr(f) for f in found]
    if len(quoted) == 1:
        return f"Did you mean {quoted[0]}?"
    return f"Did you mean {', '.join(quoted[:-1])} or {quoted[-1]}?"
