"""What ``import toolwire; toolwire.tool; toolwire.run`` loads (module sets, no timing): the
standard-library modules only saving a run state to a file (``pathlib``, and with it
``urllib.parse``, ``ipaddress``, ``fnmatch``), a retry's jitter (``random``) or a retry-after
date (``email``) need are imported when first used, not with toolwire."""

from __future__ import annotations

import subprocess
import sys

NOT_AT_IMPORT = ["pathlib", "urllib.parse", "ipaddress", "fnmatch", "random", "email.utils"]


def _modules(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_tool_and_run_do_not_load_the_modules_only_saving_or_retrying_needs() -> None:
    loaded = _modules("import toolwire; toolwire.tool; toolwire.run")
    assert {"toolwire.loop", "toolwire.tools", "toolwire.retry", "toolwire.runstate"} <= loaded
    assert sorted(m for m in NOT_AT_IMPORT if m in loaded) == []


def test_the_lazy_pieces_still_work_when_used(tmp_path) -> None:
    code = f"""
import sys, toolwire
from toolwire.retry import DEFAULT_POLICY, RetryPolicy, classify
from toolwire.runstate import RunState
assert 'random' not in sys.modules
d = DEFAULT_POLICY.backoff(1)
assert 0.375 <= d <= 0.625, d  # 0.5 s +-25 %
assert 'random' in sys.modules
import random
seeded = [RetryPolicy(rng=random.Random(7)).backoff(2) for _ in range(2)]
assert seeded[0] == seeded[1]  # a policy's own rng is used
assert classify(500, 'Chat Template error') is False and classify(500, 'boom') is True
state = RunState(run_id='r1')
state.save({str(tmp_path / "state.json")!r})
assert RunState.load({str(tmp_path / "state.json")!r}).to_json() == state.to_json()
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
