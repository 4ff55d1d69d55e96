"""A third-party adapter answering with a stop reason that is not canonical (an OpenAI-style
``"stop"``, a Gemini-style ``"MAX_TOKENS"``, a value of its own): the run keeps the vendor's value
in ``vendor_stop_reason`` and goes on with the canonical one, so the saved run loads again."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import toolwire
from toolwire import Response, RunState, TextPart, ToolCall
from toolwire.errors import AdapterWarning
from toolwire.types import STOP_REASONS

from .streaming_helpers import GatedModel


@toolwire.tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def _answer(stop: Any, *, calls: bool = False, vendor: str | None = None) -> Response:
    parts: list[Any] = (
        [ToolCall("c1", "lookup", {"q": "x"}, raw_arguments='{"q": "x"}')] if calls else [TextPart("done")]
    )
    return Response(parts, stop_reason=stop, vendor_stop_reason=vendor)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("given", "calls", "expected"),
    [
        ("stop", False, "end_turn"),
        ("STOP", False, "end_turn"),
        ("length", False, "max_tokens"),
        ("MAX_TOKENS", False, "max_tokens"),
        ("content_filter", False, "refusal"),
        ("SAFETY", False, "refusal"),
        ("tool_calls", True, "tool_use"),
        ("something_new", False, "end_turn"),
        ("something_new", True, "tool_use"),
        ("", False, "end_turn"),
        (None, False, "end_turn"),
        (7, False, "end_turn"),
    ],
)
def test_unknown_stop_reason_is_normalised_and_the_run_saves(
    given: Any, calls: bool, expected: str, stream: bool
) -> None:
    script = [_answer(given, calls=calls)]
    if calls:
        script.append(_answer("stop"))
    m = GatedModel(script, stream=stream)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = toolwire.run_sync(m, "go", tools=[lookup], max_turns=3)
    first = result.turns[0].response
    assert first.stop_reason == expected
    assert first.stop_reason in STOP_REASONS
    # the stream assembler reads an empty or missing stop reason as end_turn itself (nothing
    # for the loop to correct); every other value is the adapter's, kept as text
    assembled = stream and given in ("", None)
    assert first.vendor_stop_reason == (None if given is None or assembled else str(given))
    if calls:
        assert result.turns[0].tool_runs[0].result.text == "found x"
        assert result.stop_reason == "end_turn"
        assert len(result.turns) == 2
    else:
        assert result.stop_reason == expected
    # the saved run loads again, stop reasons as they were normalised
    loaded = RunState.from_json(result.state.to_json())
    assert [t.response.stop_reason for t in loaded.turns] == [t.response.stop_reason for t in result.turns]
    # said, naming the adapter's value and the canonical one the run went on with
    said = [str(w.message) for w in caught if issubclass(w.category, AdapterWarning)]
    if assembled:
        assert said == []
    else:
        # one per turn answered so: the second turn of a run with calls answers "stop"
        assert len(said) == (2 if calls else 1)
        assert repr(given) in said[0] and repr(expected) in said[0]
        if calls:
            assert "'stop'" in said[1] and "'end_turn'" in said[1]


def test_vendor_stop_reason_given_by_the_adapter_is_kept() -> None:
    m = GatedModel([_answer("stop", vendor="finish:stop")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = toolwire.run_sync(m, "go", tools=[lookup])
    assert result.turns[0].response.stop_reason == "end_turn"
    assert result.turns[0].response.vendor_stop_reason == "finish:stop"


def test_canonical_stop_reasons_are_untouched() -> None:
    for stop in ("end_turn", "max_tokens", "stop_sequence", "refusal"):
        m = GatedModel([_answer(stop, vendor=None)])
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning for a canonical value
            result = toolwire.run_sync(m, "go", tools=[lookup])
        assert result.turns[0].response.stop_reason == stop
        assert result.turns[0].response.vendor_stop_reason is None
