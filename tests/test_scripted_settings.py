"""``toolwire.model("scripted", ...)`` given a script of the wrong shape: refused with a
``ConfigurationError`` when the model is made, never read wrong (a lone ``"done"`` was four
answers, ``"d"``, ``"o"``, ...) or a ``TypeError`` from inside the provider."""

from __future__ import annotations

from typing import Any

import pytest

import toolwire
from toolwire.errors import ConfigurationError
from toolwire.testing import call


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        # was a run answering "d" (the string read as a list of one-letter answers)
        (
            {"responses": "done"},
            "responses must be a list of items, one per request, got str (one answer: responses=['done'])",
        ),
        # was a run answering "text" (the dict's keys)
        ({"responses": {"text": "hi"}}, "responses must be a list of items, one per request, got dict"),
        ({"responses": 5}, "got int"),  # was TypeError: 'int' object is not iterable
        ({"responses": call("add", {})}, "got ToolCall (one item: put it in a list, responses=[item])"),
        ({"respond": 5}, "respond must be a function of the request, got int"),  # TypeError at send time
        # was respond used and the responses never
        ({"respond": lambda request: "x", "responses": ["y"]}, "takes responses=[...] or respond=<function>, not both"),
    ],
)
def test_a_script_of_the_wrong_shape_is_refused_when_the_model_is_made(settings: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.model("scripted", **settings)
    assert said in str(info.value)


def test_a_list_tuple_or_generator_of_items_is_still_a_script() -> None:
    for responses in (["a", "b"], ("a", "b"), (x for x in ["a", "b"])):
        model = toolwire.model("scripted", responses=responses)
        assert toolwire.run_sync(model, "hi").text == "a"
        assert model.remaining == 1


@pytest.mark.parametrize(("arguments", "kind"), [([1, 2], "array"), ("a=1", "string"), (5, "number")])
def test_call_with_arguments_that_are_not_an_object_is_answered_as_from_a_model(arguments: Any, kind: str) -> None:
    """``call("add", [1, 2])`` raised TypeError (``dict([1, 2])``) and ``call("add", "a=1")``
    ValueError, while ``ToolCall("c", "add", [1, 2])`` and a dict item take such arguments as a
    model's: the run answers with an is_error result."""

    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = toolwire.model("scripted", responses=[call("add", arguments), "done"])
    result = toolwire.run_sync(model, "hi", tools=[add])
    (run,) = result.tool_runs
    assert run.call.arguments == arguments
    assert run.result.is_error
    assert f"arguments must be a JSON object, got {kind}" in run.result.text
    assert result.text == "done"


def test_an_empty_responses_list_is_named_as_empty_not_as_missing() -> None:
    # responses=[] was refused with "the scripted provider needs responses=[...]", as if none was given
    import pytest

    from toolwire.errors import ConfigurationError
    from toolwire.testing import ScriptedModel

    with pytest.raises(ConfigurationError) as info:
        ScriptedModel(responses=[])
    text = str(info.value)
    assert "responses=[] holds no response" in text and "one item per request" in text
    with pytest.raises(ConfigurationError, match=r"^the scripted provider needs responses=\[\.\.\.\] or respond="):
        ScriptedModel()
