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


def _run(m: GatedModel, via: str) -> tuple[Any, list[str]]:
    """Run ``m`` through ``toolwire.run_sync`` or ``run_stream_sync``, recording AdapterWarnings;
    the result's totals, cost and saved state are read too (each raised for some inputs)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if via == "run_sync":
            result = toolwire.run_sync(m, "go", tools=[lookup], max_turns=3)
        else:
            stream = toolwire.run_stream_sync(m, "go", tools=[lookup], max_turns=3)
            for _ in stream:
                pass
            result = stream.result
    assert result is not None
    assert result.usage.requests >= 1
    assert result.cost.total is not None  # (raised TypeError for text counts)
    loaded = RunState.from_json(result.state.to_json())
    assert [t.response.to_dict() for t in loaded.turns] == [t.response.to_dict() for t in result.turns]
    return result, [str(w.message) for w in caught if issubclass(w.category, AdapterWarning)]


@pytest.mark.parametrize("via", ["run_sync", "run_stream_sync"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("given", "kept"),
    [(["stop"], "['stop']"), ({"reason": "stop"}, "{'reason': 'stop'}"), ({"x"}, "{'x'}")],
)
def test_unhashable_stop_reason_does_not_crash_the_run(given: Any, kept: str, stream: bool, via: str) -> None:
    # a list or dict stop reason raised "TypeError: unhashable type: 'list'" out of the run
    result, said = _run(GatedModel([_answer(given)], stream=stream), via)
    first = result.turns[0].response
    assert (first.stop_reason, first.vendor_stop_reason) == ("end_turn", kept)
    assert len(said) == 1 and "'end_turn'" in said[0]


@pytest.mark.parametrize("via", ["run_sync", "run_stream_sync"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("stop", ["end_turn", "stop"])
@pytest.mark.parametrize(
    ("vendor", "kept"), [(5, "5"), (["a"], "['a']"), ({"a": 1}, "{'a': 1}"), (b"fin\xffished", "fin\ufffdished")]
)
def test_vendor_stop_reason_that_is_not_text_is_kept_as_text(
    vendor: Any, kept: str, stop: str, stream: bool, via: str
) -> None:
    # the run finished but its saved state did not load ("vendor_stop_reason must be str or null,
    # got int 5"); bytes raised "Object of type bytes is not JSON serializable" on saving
    result, said = _run(GatedModel([_answer(stop, vendor=vendor)], stream=stream), via)
    first = result.turns[0].response
    assert (first.stop_reason, first.vendor_stop_reason) == ("end_turn", kept)
    assert any("vendor_stop_reason" in s and type(vendor).__name__ in s for s in said)


def test_a_huge_stop_reason_is_cut_in_the_warning() -> None:
    huge = "x" * 1_000_000
    result, said = _run(GatedModel([_answer(huge)]), "run_sync")
    assert result.turns[0].response.vendor_stop_reason == huge  # the adapter's value, whole
    assert len(said) == 1 and len(said[0]) < 1000  # was the whole megabyte in the warning


class _PricedModel(GatedModel):
    """Answers as a priced Anthropic model, so the run's cost is computed from the counts."""

    provider = "anthropic"

    def __init__(self, script: list[Response], **kw: Any) -> None:
        super().__init__(script, **kw)
        self.model_id = "claude-sonnet-4-5"

    async def _next(self, request: Any) -> Response:
        resp = await super()._next(request)
        resp.provider, resp.model = "anthropic", "claude-sonnet-4-5"
        return resp


@pytest.mark.parametrize("via", ["run_sync", "run_stream_sync"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("field", "value", "read"),
    [
        ("input_tokens", "12", None),
        ("input_tokens", 12.0, 12),
        ("input_tokens", 1.5, None),
        ("input_tokens", float("nan"), None),
        ("input_tokens", True, None),
        ("output_tokens", [5], None),
        ("output_tokens", float("inf"), None),
        ("cache_read_tokens", "3", None),
        ("reasoning_tokens", "2", None),
        ("cache_write_1h_tokens", 2.5, None),
    ],
)
def test_usage_counts_that_are_not_whole_numbers(field: str, value: Any, read: Any, stream: bool, via: str) -> None:
    # text counts made result.usage or result.cost raise TypeError ("unsupported operand type(s)
    # for -: 'int' and 'str'"); floats, bools, NaN made the saved state refuse to load
    from toolwire import Usage

    usage = Usage(input_tokens=10, output_tokens=5, requests=1)
    setattr(usage, field, value)
    m = _PricedModel([Response([TextPart("done")], "end_turn", usage=usage)], stream=stream)
    result, said = _run(m, via)
    assert getattr(result.turns[0].response.usage, field) == read
    assert getattr(result.usage, field) == read
    assert len(said) == 1 and field in said[0] and "not whole numbers" in said[0]
    # priced from the corrected counts; unpriced (never free) when an input or output count is gone
    priced = read is not None or field not in ("input_tokens", "output_tokens")
    assert result.cost.total.priced is priced


@pytest.mark.parametrize("value", [2.5, "2", None, [1], True])
def test_requests_that_is_not_a_whole_number_counts_one(value: Any) -> None:
    from toolwire import Usage

    usage = Usage(input_tokens=10, output_tokens=5)
    usage.requests = value
    result, said = _run(_PricedModel([Response([TextPart("done")], "end_turn", usage=usage)]), "run_sync")
    assert result.usage.requests == 1
    assert len(said) == 1 and "requests" in said[0]


@pytest.mark.parametrize(
    ("attr", "value", "expected"),
    [
        ("usage", None, {"input_tokens": None, "requests": 1}),
        ("usage", {"input_tokens": 7, "output_tokens": "x"}, {"input_tokens": 7, "output_tokens": None}),
        ("model", 5, {"model": "5"}),
        ("response_id", 99, {"response_id": "99"}),
        ("provider_data", [1, 2], {"provider_data": {}}),
    ],
)
def test_response_fields_of_the_wrong_type(attr: str, value: Any, expected: dict[str, Any]) -> None:
    # usage None raised AttributeError ('NoneType' object has no attribute 'requests'), a list
    # provider_data TypeError making the turn's message; an int model or id made the state unloadable
    class Odd(GatedModel):
        async def _next(self, request: Any) -> Response:
            resp = await super()._next(request)
            setattr(resp, attr, value)
            return resp

    result, said = _run(Odd([_answer("end_turn")]), "run_sync")
    got = result.turns[0].response.to_dict()
    for key, want in expected.items():
        if key in ("input_tokens", "output_tokens", "requests"):
            assert got["usage"][key] == want, key
        else:
            assert got[key] == want, key
    assert len(said) == 1


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")

    __repr__ = __str__


def _deep(depth: int) -> list[Any]:
    top: list[Any] = []
    cur = top
    for _ in range(depth):
        nxt: list[Any] = []
        cur.append(nxt)
        cur = nxt
    return top


@pytest.mark.parametrize("where", ["stop_reason", "vendor_stop_reason"])
@pytest.mark.parametrize("odd", ["deep", "unprintable"])
def test_a_stop_reason_without_a_usable_text_form(where: str, odd: str) -> None:
    # repr/str of a list nested 5,000 deep raised RecursionError out of the run; a value whose
    # str() raises, its own error
    value: Any = _deep(5000) if odd == "deep" else _Unprintable()

    class Odd(GatedModel):
        async def _next(self, request: Any) -> Response:
            resp = await super()._next(request)  # (the script is deep-copied: the value is set after)
            setattr(resp, where, value)
            return resp

    result, said = _run(Odd([_answer("end_turn")]), "run_sync")
    first = result.turns[0].response
    assert first.stop_reason == "end_turn"
    assert isinstance(first.vendor_stop_reason, str) and len(first.vendor_stop_reason) < 100
    assert len(said) == 1 and len(said[0]) < 1000


@pytest.mark.parametrize("via", ["run_sync", "run_stream_sync"])
@pytest.mark.parametrize(
    ("parts", "text", "said_part"),
    [
        (None, "", "parts is None"),
        ("hello", "hello", "parts is str"),
        (["hel", "lo"], "hello", "parts[0] is text"),
        ([{"type": "text", "text": "hi"}], "hi", "parts[0] is a dict"),
        ([{"type": "nonsense"}, TextPart("ok")], "ok", "parts[0] (dict) left out: unknown part type"),
        ([5, TextPart("ok")], "ok", "parts[0] (int) left out"),
        ((TextPart("a"), TextPart("b")), "ab", "parts is tuple"),
    ],
    ids=["none", "str", "str-items", "dict-item", "bad-dict", "int-item", "tuple"],
)
def test_parts_that_are_not_a_list_of_parts(parts: Any, text: str, said_part: str, via: str) -> None:
    # parts None raised "TypeError: 'NoneType' object is not iterable", a text item
    # "AttributeError: 'str' object has no attribute 'to_dict'" out of the run
    class Odd(GatedModel):
        async def send(self, request: Any) -> Response:
            resp = await self._next(request)
            resp.parts = parts
            return resp

    result, said = _run(Odd([_answer("end_turn")]), via)
    assert result.text == text
    assert all(type(p) is TextPart for p in result.turns[0].response.parts)
    assert len(said) == 1 and said_part in said[0]


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ({"mine": "x"}, {}),
        ({"mine": {"a": 1}, "other": 5}, {"mine": {"a": 1}}),
        ({"mine": {"when": object()}}, {}),
        ({"mine": {"a": 1}, "bad": {"b": {1, 2}}}, {"mine": {"a": 1}}),
    ],
    ids=["str-entry", "int-entry", "object-value", "set-value"],
)
def test_provider_data_entries_a_saved_run_cannot_hold_are_left_out(
    value: dict[str, Any], kept: dict[str, Any]
) -> None:
    """An entry that is not an object (the loader refuses it) or holds a value JSON cannot write
    (``to_json`` raised): left out with a warning naming its key, the rest kept, so the run's
    state saves and loads."""

    class Odd(GatedModel):
        async def _next(self, request: Any) -> Response:
            resp = await super()._next(request)
            resp.provider_data = value
            return resp

    result, said = _run(Odd([_answer("end_turn")]), "run_sync")
    assert result.turns[0].response.provider_data == kept
    loaded = RunState.from_json(result.state.to_json())
    assert loaded.turns[0].response.provider_data == kept
    assert len(said) == 1 and "provider_data" in said[0]
    for key in set(value) - set(kept):
        assert repr(key) in said[0]
