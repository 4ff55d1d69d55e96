"""A long successful MCP tool result is cut to ``max_result_chars`` characters of text (default
100,000), saying how much was left out and how to ask for less; images stay; ``None`` sends it
whole. Against a real MCP server over stdio."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import toolwire.mcp as twm
from toolwire.errors import ConfigurationError
from toolwire.types import ImagePart, TextPart

SERVER = [sys.executable, str(Path(__file__).parent / "big_result_server.py")]
NOTE = re.compile(
    r"\n\[result cut: ([\d,]+) of its ([\d,]+) characters left out here \(toolwire shows at most ([\d,]+) "
    r"characters of an MCP tool's result, max_result_chars\); to see the rest, call the tool again asking "
    r"for less: a narrower query, a smaller range or page\]\n"
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _count(text: str) -> int:
    return int(text.replace(",", ""))


async def test_a_result_over_the_default_cap_keeps_its_beginning_and_end_and_says_what_was_left_out() -> None:
    assert twm.DEFAULT_MAX_RESULT_CHARS == 100_000
    async with twm.connect(SERVER) as ts:
        dump = {t.name: t for t in ts}["dump"]
        small = await dump.call({"n": 100_000})  # at the cap: whole
        assert small == "BEGIN" + "x" * 99_992 + "END"
        big = await dump.call({"n": 1_000_000})
    assert isinstance(big, str) and len(big) <= 100_000
    m = NOTE.search(big)
    assert m is not None
    head, tail = big[: m.start()], big[m.end() :]
    assert head.startswith("BEGIN") and set(head[5:]) == {"x"}
    assert tail.endswith("END") and len(tail) == 2_000
    assert _count(m.group(2)) == 1_000_000 and _count(m.group(3)) == 100_000
    assert _count(m.group(1)) == 1_000_000 - len(head) - len(tail)  # what is left out, exactly


async def test_several_text_parts_are_cut_where_the_budget_ends_and_images_stay() -> None:
    async with twm.connect(SERVER, max_result_chars=10_000) as ts:
        report = {t.name: t for t in ts}["report"]
        parts = await report.call({"n": 6_000})
    assert [type(p) for p in parts] == [TextPart, ImagePart, TextPart]
    assert parts[0] == TextPart("a" * 6_000)
    assert isinstance(parts[1], ImagePart) and parts[1].data[:4] == b"\x89PNG"
    m = NOTE.search(parts[2].text)
    assert m is not None and m.end() == len(parts[2].text)
    kept_b = parts[2].text[: m.start()]
    assert set(kept_b) == {"b"}
    assert 6_000 + len(parts[2].text) <= 10_000
    assert _count(m.group(2)) == 18_000
    assert _count(m.group(1)) == 18_000 - 6_000 - len(kept_b)


async def test_no_cap_sends_the_whole_result() -> None:
    async with twm.connect(SERVER, max_result_chars=None) as ts:
        dump = {t.name: t for t in ts}["dump"]
        whole = await dump.call({"n": 300_000})
    assert len(whole) == 300_000 and "result cut" not in whole


@pytest.mark.parametrize("bad", [0, 4_999, 1.5e5, True, "100000"])
def test_a_cap_that_is_no_whole_number_of_at_least_5000_is_a_configuration_error(bad: object) -> None:
    with pytest.raises(ConfigurationError, match=r"max_result_chars must be a whole number of characters ≥ 5,000"):
        twm.connect(SERVER, max_result_chars=bad)  # type: ignore[arg-type]
