"""``toolwire.profile.value_type_problems``: a value walked against a hand-written request type
(``TypedDict`` fields, ``Required``/``NotRequired``, ``Annotated``, unions, ``Literal`` tags,
lists, mappings), with JSON's types: a bool is not an integer, an integer is a number, ``None``
fits ``Optional``; an open type (``object``, ``Any``, a class the walker cannot read) takes anything."""

from __future__ import annotations

from typing import Annotated, Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Union

import pytest
from typing_extensions import NotRequired, Required, TypedDict

from toolwire.profile import value_type_problems


class Keep(TypedDict, total=False):
    type: Required[Literal["tool_uses"]]
    value: int


class ClearEdit(TypedDict, total=False):
    type: Required[Literal["clear"]]
    keep: Keep
    trigger: NotRequired[Annotated[Optional[float], "a note"]]


class CompactEdit(TypedDict, total=False):
    type: Required[Literal["compact"]]
    instructions: Optional[str]


class Management(TypedDict, total=False):
    edits: Iterable[Union[ClearEdit, CompactEdit]]


class Opaque:
    """A class that is neither a TypedDict nor a pydantic model: the walker cannot read it."""


class Body(TypedDict, total=False):
    geo: Optional[str]
    count: int
    ratio: float
    flag: bool
    mode: Literal["a", "b"]
    stops: Sequence[str]
    tags: List[str]  # noqa: UP006 (typing.List, as the SDKs write it)
    labels: Dict[str, str]  # noqa: UP006
    extra: Dict[str, object]  # noqa: UP006
    plain: list[int]
    anything: Any
    thing: object
    either: Union[str, Opaque]
    management: Optional[Management]
    by_name: Mapping[str, int]


def _pointers(fields: dict[str, Any]) -> list[str]:
    return [pointer for pointer, _ in value_type_problems(fields, Body)]


def test_right_values_pass() -> None:
    fields = {
        "geo": None,
        "count": 3,
        "ratio": 1,  # an integer where a number is typed
        "flag": False,
        "mode": "b",
        "stops": ["x"],
        "tags": ("a", "b"),
        "labels": {"k": "v"},
        "extra": {"k": [1, {"x": None}]},
        "anything": {1, 2},
        "thing": 5,
        "either": 5,  # a union with a member the walker cannot read is open
        "management": {"edits": [{"type": "clear", "keep": {"type": "tool_uses", "value": 2}, "trigger": 0.5}]},
        "by_name": {"a": 1},
        "unknown_field": 5,  # fields the type does not have are not read
    }
    assert value_type_problems(fields, Body) == []
    assert value_type_problems({"management": None}, Body) == []
    assert value_type_problems({"management": {"edits": [{"type": "compact", "instructions": None}]}}, Body) == []


@pytest.mark.parametrize(
    ("fields", "pointer", "words"),
    [
        ({"count": True}, "/count", "count True is a boolean, but the API takes an integer there"),
        ({"plain": [1, True]}, "/plain/1", "plain[1] True is a boolean, but the API takes an integer there"),
        ({"count": 1.5}, "/count", "is a number, but the API takes an integer"),
        ({"ratio": True}, "/ratio", "ratio True is a boolean, but the API takes a number there"),
        ({"ratio": "0.5"}, "/ratio", "is a string, but the API takes a number"),
        ({"flag": 1}, "/flag", "flag 1 is an integer, but the API takes true or false there"),
        ({"geo": 123}, "/geo", "geo 123 is an integer, but the API takes a string or null there"),
        ({"mode": "c"}, "/mode", "the API takes one of 'a', 'b' there"),
        ({"stops": "x"}, "/stops", "stops 'x' is a string, but the API takes an array there"),
        ({"tags": ["a", 2]}, "/tags/1", "tags[1] 2 is an integer, but the API takes a string"),
        ({"labels": {"k": 5}}, "/labels/k", "labels.k 5 is an integer"),
        ({"by_name": {"a": False}}, "/by_name/a", "by_name.a False is a boolean, but the API takes an integer"),
        ({"management": "x"}, "/management", "the API takes an object or null"),
        ({"management": {"edits": {"type": "clear"}}}, "/management/edits", "is an object, but the API takes an array"),
        (
            {"management": {"edits": [{"type": 5}]}},
            "/management/edits/0/type",
            "type 5 is an integer, but the API takes one of 'clear', 'compact' there",
        ),
        (
            {"management": {"edits": [{"type": "clear", "keep": {"type": "tool_uses", "value": True}}]}},
            "/management/edits/0/keep/value",
            "management.edits[0].keep.value True is a boolean, but the API takes an integer there",
        ),
        (
            {"management": {"edits": [{"type": "compact", "instructions": 3}]}},
            "/management/edits/0/instructions",
            "instructions 3 is an integer, but the API takes a string or null",
        ),
        (
            {"management": {"edits": [{"type": "clear", "trigger": "soon"}]}},
            "/management/edits/0/trigger",
            "trigger 'soon' is a string, but the API takes a number or null",
        ),
    ],
)
def test_a_value_of_another_type_is_named_at_its_pointer(fields: dict[str, Any], pointer: str, words: str) -> None:
    problems = value_type_problems(fields, Body)
    assert [p for p, _ in problems] == [pointer]
    assert words in problems[0][1]
    assert f"{__name__}." in problems[0][1]  # the SDK type the expectation comes from


def test_the_message_names_the_field_of_the_nested_type() -> None:
    [(_, message)] = value_type_problems({"management": {"edits": [{"type": "clear", "keep": {"value": "2"}}]}}, Body)
    assert message.endswith(f"(the SDK types it {__name__}.Keep.value)")


def test_each_wrong_value_is_reported() -> None:
    assert _pointers({"count": "1", "flag": "yes", "geo": "ok"}) == ["/count", "/flag"]


def test_a_type_it_cannot_read_is_not_checked() -> None:
    assert value_type_problems({"count": "1"}, Opaque) == []
    assert value_type_problems({"count": "1"}, dict) == []


class Node(TypedDict, total=False):
    name: str
    children: list[Node]


class Tree(TypedDict, total=False):
    root: Node


def test_a_recursive_type_is_walked_and_a_value_too_deep_or_holding_itself_is_not_a_crash() -> None:
    assert [p for p, _ in value_type_problems({"root": {"children": [{"name": 3}]}}, Tree)] == ["/root/children/0/name"]
    deep: dict[str, Any] = {"name": "leaf"}
    for _ in range(5000):
        deep = {"children": [deep]}
    assert value_type_problems({"root": deep}, Tree) == []
    cyclic: dict[str, Any] = {"name": "a", "children": []}
    cyclic["children"].append(cyclic)
    assert value_type_problems({"root": cyclic}, Tree) == []


class _Tiered(TypedDict, total=False):
    tier: Literal["auto", "standard_only"]
    flag: Literal[True]
    count: Optional[int]


def test_a_str_enum_member_is_the_json_string_it_is_written_as() -> None:
    import enum

    class Tier(enum.StrEnum):
        AUTO = "auto"
        OTHER = "other"

    assert value_type_problems({"tier": Tier.AUTO}, _Tiered) == []
    assert [p for p, _ in value_type_problems({"tier": Tier.OTHER}, _Tiered)] == ["/tier"]
    # True == 1 in Python, but the JSON values differ
    assert [p for p, _ in value_type_problems({"flag": 1}, _Tiered)] == ["/flag"]
    assert [p for p, _ in value_type_problems({"tier": 1.0, "flag": True}, _Tiered)] == ["/tier"]


@pytest.mark.parametrize("value", [1.0, "1e3", "12", " 7", -4.0, "-2"])
def test_proto_json_takes_an_integral_number_or_text_for_an_integer(value: Any) -> None:
    assert value_type_problems({"count": value}, _Tiered, proto_json=True) == []


@pytest.mark.parametrize("value", [1.5, "1.5", "NaN", "Infinity", "", "x", float("inf"), True])
def test_proto_json_refuses_a_fraction_or_non_number_for_an_integer(value: Any) -> None:
    assert [p for p, _ in value_type_problems({"count": value}, _Tiered, proto_json=True)] == ["/count"]


def test_plain_json_still_refuses_an_integral_float_for_an_integer() -> None:
    assert [p for p, _ in value_type_problems({"count": 1.0}, _Tiered)] == ["/count"]


# -- open_variants: an imported body, whose codec keeps a variant it does not know whole ----------
class Custom(TypedDict, total=False):
    type: Optional[Literal["custom"]]  # (as anthropic.types.ToolParam.type)
    name: Required[str]
    schema: Dict[str, object]  # noqa: UP006


class Toolset(TypedDict, total=False):
    type: Required[Literal["toolset"]]  # no name field: any object without a type fitted it


class Holder(TypedDict, total=False):
    tools: Iterable[Union[Custom, Toolset]]
    edits: Iterable[Union[ClearEdit, CompactEdit]]


def _open(fields: dict[str, Any]) -> list[str]:
    return [pointer for pointer, _ in value_type_problems(fields, Holder, open_variants=True)]


def test_open_variants_leaves_an_object_of_an_unknown_tag_unchecked() -> None:
    edits = [{"type": "newer", "keep": 5}, {"type": "compact", "instructions": 5}]
    assert _open({"edits": edits}) == ["/edits/1/instructions"]
    assert [p for p, _ in value_type_problems({"edits": edits}, Holder)] == ["/edits/0/type", "/edits/1/instructions"]
    assert _open({"tools": [{"type": "newer_2099", "name": 5}]}) == []


def test_open_variants_does_not_let_a_member_without_the_required_tag_fit() -> None:
    # (without it, Toolset, which has no ``name``, fitted {"name": 5} with no error at all)
    assert _open({"tools": [{"name": 5, "schema": "x"}]}) == ["/tools/0/name", "/tools/0/schema"]
    assert _open({"tools": [{"type": "custom", "name": 5}, {"type": None, "name": "f"}]}) == ["/tools/0/name"]
    assert _open({"tools": [{"type": "toolset"}, {"name": "f", "schema": {}}]}) == []


class Blob(TypedDict, total=False):
    data: Optional[bytes]


class Proto(TypedDict, total=False):
    blobs: Optional[List[Blob]]  # noqa: UP006
    names: Optional[List[str]]  # noqa: UP006


def test_proto_json_reads_bytes_as_base64_text_and_one_object_as_a_one_item_list() -> None:
    # (https://protobuf.dev/programming-guides/json/: bytes are base64 text; the Gemini API takes
    # one message for a repeated field of messages, a scalar for a repeated scalar field it does not)
    def pointers(fields: dict[str, Any]) -> list[str]:
        return [pointer for pointer, _ in value_type_problems(fields, Proto, proto_json=True)]

    assert pointers({"blobs": [{"data": "aGk="}], "names": ["a"]}) == []
    assert pointers({"blobs": [{"data": 5}]}) == ["/blobs/0/data"]
    assert pointers({"blobs": {"data": "aGk="}}) == []
    assert pointers({"blobs": {"data": 5}}) == ["/blobs/data"]
    assert pointers({"names": "a"}) == ["/names"]
    assert [p for p, _ in value_type_problems({"blobs": {"data": "aGk="}}, Proto)] == ["/blobs"]
