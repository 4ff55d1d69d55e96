"""Settings for the whole test suite (core, adapters and examples).

Property-based tests run the same examples on every run (hypothesis ``derandomize``), so a run
of the README's test command, and CI, passes or fails the same way each time. To explore new
examples, set ``TOOLWIRE_HYPOTHESIS=explore`` (random examples, as hypothesis does by default);
an explicit ``@settings(derandomize=...)`` on a test still wins.
"""

from __future__ import annotations

import os

try:
    from hypothesis import settings
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    settings = None  # type: ignore[assignment]

if settings is not None:
    settings.register_profile("repeatable", derandomize=True, database=None)
    settings.register_profile("explore")
    settings.load_profile("explore" if os.environ.get("TOOLWIRE_HYPOTHESIS") == "explore" else "repeatable")
