"""toolwire.profile.json_kind_problems: the JSON kind of each top-level field against the kinds
the SDK's request type allows it (only the kind; a Literal's values are not checked)."""

from __future__ import annotations

from typing import Literal, Optional, TypedDict

from toolwire.profile import json_kind_problems


class _Choice(TypedDict, total=False):
    type: str


class _Params(TypedDict, total=False):
    effort: Optional[Literal["low", "high"]]
    choice: Literal["auto", "none"] | _Choice
    count: int
    ratio: float
    tags: list[str]
    anything: object


def test_a_value_of_another_kind_is_named_at_its_field() -> None:
    problems = json_kind_problems(
        {"effort": 5, "choice": 5, "count": 1.5, "ratio": "x", "tags": "a", "anything": 1, "other": 2}, _Params
    )
    assert [p for p, _ in problems] == ["/effort", "/choice", "/count", "/ratio", "/tags"]
    assert "effort 5 is an integer, but the API takes a string there" in problems[0][1]
    assert "takes a string or an object there" in problems[1][1]


def test_a_value_of_an_allowed_kind_passes_whatever_its_value() -> None:
    fields = {"effort": "max", "choice": {"type": "x"}, "count": 3, "ratio": 2, "tags": ["a"], "anything": {}}
    assert json_kind_problems(fields, _Params) == []
    assert json_kind_problems({"effort": None}, _Params) == []
