"""Two loops of one BatchRounds given the same key would send the same custom id in one round:
the batch then holds one request for both and each loop would get the other's answer. They are
refused with a ConfigurationError naming the key; the other loops of the round go on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.batch import BatchRounds
from toolwire.errors import ConfigurationError

from .fakes import FakeAnthropic

pytest.importorskip("anthropic")


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two whole numbers. Use it for every sum.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


def test_two_loops_with_one_key_are_refused_and_the_others_finish() -> None:
    fake = FakeAnthropic()

    async def main() -> list[Any]:
        async with BatchRounds(poll_interval=0) as rounds:
            model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", http_client=fake.client())
            loops = [
                toolwire.run(rounds.model(model, key=key), f"What is 2 + 40? ({i}) Use the add tool.", tools=[add])
                for i, key in enumerate(["same", "same", "other"])
            ]
            return await rounds.gather(*loops)

    first, second, other = asyncio.run(main())
    for result in (first, second):
        assert isinstance(result, ConfigurationError), result
        assert "'same'" in str(result) and "own key" in str(result)
    assert not isinstance(other, BaseException), other
    assert other.text == "The sum is 42."
    # no request of the shared key was ever submitted
    assert all(cid.startswith("other-") for job in fake.jobs.values() for cid, _ in job)
