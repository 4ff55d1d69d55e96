"""Part 8 of the standing benchmark counts bytecode instructions instead of timing: its counter
must attribute each instruction to the code that ran it and read the same on every run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx2")


def _suite() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import suite  # pyright: ignore[reportMissingImports] - the benchmark itself

    return suite


def test_counts_are_attributed_to_whose_code_runs_them() -> None:
    suite = _suite()
    from toolwire.turns import plain_history

    # toolwire's code (the lambda's own frame, in this test file, counts as neither toolwire nor harness)
    only_toolwire = suite._count_ops(lambda: plain_history([]), awaits=False)
    assert only_toolwire["toolwire"] > 0
    # the lambda lives in this test file, which is neither toolwire nor the benchmark: "sdk"
    assert only_toolwire["harness"] == 0
    # the benchmark's own tool is the harness's
    harness = suite._count_ops(lambda: suite.lookup_fn("x"), awaits=False)
    assert harness["harness"] > 0 and harness["toolwire"] == 0


def test_a_2_turn_loop_counts_the_same_twice_and_more_than_its_parts() -> None:
    suite = _suite()
    api = "openai-chat"

    def loop() -> Any:
        return suite.tw_run(api, 2, tool=suite.lookup_inline)

    first = suite._count_ops(loop)
    second = suite._count_ops(loop)
    # no clock involved: the harness's work counts the same every time and toolwire's nearly so
    # (in a long test process a one-off piece of work left by earlier code, such as a weak
    # reference callback of a conversation freed late, can land in the counted window: seen
    # once, 2.4 % of a loop); the SDK's side includes asyncio's event loop, whose steps can
    # differ by a few dozen instructions from run to run (what the loop finds ready when it looks)
    assert first["harness"] == second["harness"]
    assert abs(first["toolwire"] - second["toolwire"]) <= 0.05 * first["toolwire"]
    assert abs(first["sdk"] - second["sdk"]) <= 0.01 * first["sdk"]
    assert first["toolwire"] > 1000 and first["sdk"] > 1000 and first["harness"] > 0
    # the floor runs next to no toolwire code: the tool's description, which it reads off the
    # decorated tool for its tools list, and in a process where toolwire models were made (the
    # test suite) the log scrubbing toolwire installs on the logging module the SDK logs through
    floor = suite._count_ops(lambda: suite.BARE[api](2, floor=True))
    assert 0 < floor["toolwire"] < 0.02 * first["toolwire"] and floor["sdk"] > 1000
    assert sum(first.values()) > sum(floor.values())
