""""Did you mean" suggestions for actionable errors (unknown tool, unknown file, bad enum value)."""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(name: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.5) -> list[str]:
    """Up to ``n`` of ``candidates`` most similar to ``name``, best first (``difflib`` ratio at
    least ``cutoff``). A candidate equal to ``name`` ignoring case ranks first; a candidate that
    contains ``name`` (or is contained in it) is kept even below the cutoff, so ``"readme"``
    finds ``"README.md"``. Returns ``[]`` when nothing is close."""
    cands = list(dict.fromkeys(str(c) for c in candidates))
    if not cands or n <= 0:
        return []
    low = name.lower()
    exact_ci = [c for c in cands if c.lower() == low and c != name]
    close = difflib.get_close_matches(name, cands, n=n, cutoff=cutoff)
    close_ci = [c for c in difflib.get_close_matches(low, [c.lower() for c in cands], n=n, cutoff=cutoff)]
    by_low = {}
    for c in cands:
        by_low.setdefault(c.lower(), c)
    contained = [c for c in cands if low and len(low) >= 3 and (low in c.lower() or c.lower() in low)]
    out: list[str] = []
    for c in exact_ci + close + [by_low[x] for x in close_ci] + sorted(contained, key=len):
        if c != name and c not in out:
            out.append(c)
    return out[:n]


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3) -> str | None:
    """``"Did you mean 'a' or 'b'?"`` for the :func:`closest` candidates, or ``None``."""
    found = closest(name, candidates, n=n)
    if not found:
        return None
    quoted = [repr(f) for f in found]
    if len(quoted) == 1:
        return f"Did you mean {quoted[0]}?"
    return f"Did you mean {', '.join(quoted[:-1])} or {quoted[-1]}?"
