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


def test_a_key_the_vendor_refuses_is_refused_when_the_loop_is_made() -> None:
    fake = FakeAnthropic()
    rounds = BatchRounds(poll_interval=0)
    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", http_client=fake.client())
    with pytest.raises(ConfigurationError) as caught:
        rounds.model(model, key="run 1")
    assert str(caught.value) == (
        "anthropic:claude-sonnet-4-5: BatchRounds key 'run 1' gives the batch custom id 'run 1-1', which is not "
        "accepted: Anthropic custom ids are 1 to 64 characters of letters, digits, '_' and '-' "
        "(^[a-zA-Z0-9_-]{1,64}$); give the loop a shorter key of letters, digits, '_' and '-' "
        "(rounds.model(model, key=...)); its request was not submitted"
    )
    rounds.close()


def test_a_custom_id_grown_too_long_fails_its_own_loop_not_the_round() -> None:
    # a 62-character key: "<key>-1" has 64 characters, but a conversation with nine assistant
    # turns already makes the next request turn 10, "<key>-10" (65 characters)
    fake = FakeAnthropic()
    long_key = "k" * 62
    history = []
    for i in range(9):
        history += [toolwire.Message.user(f"question {i}"), toolwire.Message.assistant(f"answer {i}")]

    async def main() -> list[Any]:
        async with BatchRounds(poll_interval=0) as rounds:
            model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="sk-ant-test", http_client=fake.client())
            loops = [
                toolwire.run(
                    rounds.model(model, key=long_key),
                    "What is 2 + 40? Use the add tool.",
                    conversation=toolwire.Conversation(history),
                    tools=[add],
                ),
                toolwire.run(rounds.model(model, key="other"), "What is 2 + 40? Use the add tool.", tools=[add]),
            ]
            return await rounds.gather(*loops)

    grown, other = asyncio.run(main())
    assert isinstance(grown, ConfigurationError), grown
    assert f"gives the batch custom id '{long_key}-10', which is not accepted" in str(grown)
    assert not isinstance(other, BaseException), other
    assert other.text == "The sum is 42."
    assert all(cid.startswith("other-") for job in fake.jobs.values() for cid, _ in job)
