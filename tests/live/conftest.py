"""The live suite: a real llama.cpp ``llama-server`` on loopback (scripts/llama_server/run_live.sh
builds it, fetches the model, starts the server and runs this folder).

``TOOLWIRE_LIVE_BASE_URL`` is the server's ``/v1`` URL. Without it every live test skips with one
reason (one line in pytest's summary); with ``TOOLWIRE_LIVE_REQUIRED=1`` (what ``.ci/run`` sets)
a missing server is a failure instead. ``pytest --toolwire-record tests/live`` also rewrites the
committed cassettes in tests/cassettes/llama_server/ from the live traffic.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the scenarios module, shared with the replay tests

SKIP_REASON = (
    "live llama-server suite skipped: no server (TOOLWIRE_LIVE_BASE_URL is unset); run scripts/llama_server/run_live.sh"
)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


@pytest.fixture(scope="session")
def live_base_url() -> str:
    url = os.environ.get("TOOLWIRE_LIVE_BASE_URL")
    if not url:
        if _truthy(os.environ.get("TOOLWIRE_LIVE_REQUIRED")):
            pytest.fail("TOOLWIRE_LIVE_REQUIRED is set but TOOLWIRE_LIVE_BASE_URL is not: the live suite cannot run")
        pytest.skip(SKIP_REASON)
    return url


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """With TOOLWIRE_LIVE_REQUIRED=1 a skipped live test counts as failed."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _truthy(os.environ.get("TOOLWIRE_LIVE_REQUIRED")) and item.get_closest_marker("live"):
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid}: skipped, but TOOLWIRE_LIVE_REQUIRED is set: the live suite must run"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "live: needs the real llama-server (TOOLWIRE_LIVE_BASE_URL)")
