"""A run that ends at a limit raises an error whose ``run_state`` is the run's state, as every
error that ends a run carries (docs: "set on every error that ends a run"); it was ``None`` on
``MaxTurnsExceeded`` and ``UsageLimitExceeded``, which carried only ``result``."""

from __future__ import annotations

import pytest

import toolwire
from toolwire.errors import MaxTurnsExceeded, UsageLimitExceeded
from toolwire.testing.providers import call


@toolwire.tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def test_max_turns_error_carries_the_run_state() -> None:
    model = toolwire.model("scripted", responses=[[call("lookup", {"q": "a"})], [call("lookup", {"q": "b"})]])
    with pytest.raises(MaxTurnsExceeded) as info:
        toolwire.run_sync(model, "go", tools=[lookup], max_turns=1)
    state = info.value.run_state
    assert state is not None
    assert state.status == "stopped" and state.stop_reason == "max_turns"
    assert state.conversation is info.value.result.conversation
    # the state saves and loads: the run can be resumed from it
    loaded = toolwire.RunState.from_json(state.to_json())
    assert [m.role for m in loaded.conversation.messages] == ["user", "assistant", "user"]


def test_usage_limit_error_carries_the_run_state() -> None:
    model = toolwire.model("scripted", responses=[[call("lookup", {"q": "a"})], [call("lookup", {"q": "b"})], "done"])
    with pytest.raises(UsageLimitExceeded) as info:
        toolwire.run_sync(model, "go", tools=[lookup], limits={"max_tool_calls": 1})
    assert info.value.run_state is not None
    assert info.value.run_state.stop_reason == "usage_limit"
