"""toolwire.profile.json_kind_problems: the JSON kind of each top-level field against the kinds
the SDK's request type allows it (only the kind; a Literal's values are not checked)."""

from __future__ import annotations

from typing import Iterable, Literal, Optional, TypedDict, Union

from typing_extensions import Required

from toolwire.profile import json_kind_problems, nested_kind_problems


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


# nested_kind_problems: the same check walked into arrays and objects through the SDK's TypedDicts


class _Text(TypedDict, total=False):
    type: Required[Literal["text"]]
    text: Required[str]


class _Image(TypedDict, total=False):
    type: Required[Literal["image"]]
    url: Required[str]
    detail: Literal["low", "high"]


class _Ref(TypedDict, total=False):
    type: Optional[Literal["ref"]]
    id: str


class _Msg(TypedDict, total=False):
    role: Required[Literal["user"]]
    content: Required[Union[str, Iterable[Union[_Text, _Image]]]]
    name: str


class _Body(TypedDict, total=False):
    messages: Iterable[Union[_Msg, _Ref]]
    tags: dict[str, str]


def _where(fields: dict[str, object], **kw: object) -> list[str]:
    return [p for p, _ in nested_kind_problems(fields, _Body, **kw)]  # type: ignore[arg-type]


def test_nested_values_of_another_kind_are_named_at_their_place() -> None:
    assert _where({"messages": [{"role": "user", "content": 5}]}) == ["/messages/0/content"]
    assert _where({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}) == [
        "/messages/0/content/0/text"
    ]
    assert _where({"messages": [{"role": "user", "content": [5]}]}) == ["/messages/0/content/0"]
    assert _where({"tags": {"a": 1}}) == ["/tags/a"]
    (problem,) = nested_kind_problems({"messages": [{"role": "user", "content": {}}]}, _Body)
    assert "messages[0].content {} is an object, but the API takes a string or an array there" in problem[1]
    assert "_Msg.content" in problem[1]


def test_null_passes_where_the_field_is_not_required_only() -> None:
    assert _where({"messages": [{"role": "user", "content": "x", "name": None}]}) == []
    assert _where({"messages": [{"role": "user", "content": None}]}) == ["/messages/0/content"]


def test_literal_values_are_not_checked_and_an_unknown_tag_is_not_looked_into() -> None:
    # a value the SDK does not list, a part type newer than the SDK, a key it does not know
    assert _where({"messages": [{"role": "user", "content": [{"type": "image", "url": "u", "detail": "max"}]}]}) == []
    assert _where({"messages": [{"role": "user", "content": [{"type": "audio", "text": 5}]}]}) == []
    assert _where({"messages": [{"role": "user", "content": "x", "extra": 5}]}) == []
    # an object missing the required tag of every member is not looked into either
    assert _where({"messages": [{"content": 5}]}) == []


def test_the_member_that_knows_the_keys_is_read_not_one_with_only_optional_tags() -> None:
    # _Ref fits any object by its tags (its only tag is optional) but knows none of these keys
    assert _where({"messages": [{"role": "user", "content": 5}]}) == ["/messages/0/content"]
    assert _where({"messages": [{"id": 5}]}) == ["/messages/0/id"]


def test_open_fields_and_further_kinds() -> None:
    source = f"{__name__}._Msg.content"
    assert _where({"messages": [{"role": "user", "content": 5}]}, open_fields={source}) == []
    assert _where({"messages": [{"role": "user", "content": 5}]}, also={source: ("an integer",)}) == []
    assert _where({"messages": [{"role": "user", "content": None}]}, also={source: ("an integer",)}) == [
        "/messages/0/content"
    ]


class _Choice2(TypedDict, total=False):
    type: Required[Literal["function"]]
    name: str


class _Body2(TypedDict, total=False):
    choice: Union[Literal["auto"], _Choice2]
    parts: Iterable[_Choice2]


def test_a_tag_of_the_wrong_kind_is_refused_at_the_tag_but_not_in_a_list_entry() -> None:
    assert [p for p, _ in nested_kind_problems({"choice": {"type": 5}}, _Body2)] == ["/choice/type"]
    assert nested_kind_problems({"choice": {"type": "newer"}}, _Body2) == []  # a value the SDK does not list
    assert nested_kind_problems({"parts": [{"type": 5}]}, _Body2) == []  # the importers leave such an entry out
