"""A tool that returns an iterator or generator gets an error result that says what to return,
not the object's ``repr`` (which tells the model nothing) and not an endless read."""

import itertools

import pytest

import toolwire
from toolwire.executor import to_result_content


async def _agen():
    yield 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: (i for i in range(3)),
        lambda: map(str, [1, 2]),
        lambda: iter([1]),
        lambda: zip([1], [2]),
        lambda: itertools.count(),  # endless: must not be read
        _agen,
    ],
)
def test_iterators_are_refused_with_a_next_step(make):
    value = make()
    with pytest.raises(TypeError, match=r"return a list \(e\.g\. list\(\.\.\.\)\) or a string"):
        to_result_content(value)


def test_iterables_that_are_not_iterators_keep_their_forms():
    assert to_result_content(range(3)) == "range(0, 3)"  # str(), as before
    assert to_result_content([1, 2]) == "[1, 2]"
    assert to_result_content({"a": 1}) == '{"a": 1}'


@pytest.mark.parametrize("blocking", [True, False])
def test_a_tool_returning_a_generator_gets_an_error_result(blocking):
    @toolwire.tool(blocking=blocking)
    def numbers(n: int) -> str:
        """Numbers below n."""
        return (i for i in range(n))  # type: ignore[return-value]

    r = toolwire.run_sync("test", "x", tools=[numbers])
    (tool_run,) = r.tool_runs
    assert tool_run.result.is_error
    assert "generator" in tool_run.result.text and "return a list" in tool_run.result.text
    assert "<generator object" not in tool_run.result.text


@pytest.mark.parametrize(
    "value",
    [
        toolwire.ImagePart(data=b"", media_type="image/png"),
        ["the chart:", toolwire.ImagePart(data=b"", media_type="image/png")],
    ],
)
def test_an_image_of_no_bytes_is_an_error_result(value):
    with pytest.raises(ValueError, match="image with no bytes"):
        to_result_content(value)

    @toolwire.tool
    def chart() -> str:
        """Render the chart."""
        return value

    r = toolwire.run_sync("test", "x", tools=[chart])
    (tool_run,) = r.tool_runs
    assert tool_run.result.is_error and "image with no bytes" in tool_run.result.text
