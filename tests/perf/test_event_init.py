"""The run events keep the frozen dataclass behaviour with a faster ``__init__`` (fields written
into the instance dict, not one ``object.__setattr__`` call each): the same parameters and
defaults, equal instances, the same hash, repr, pickling and ``dataclasses.replace``, still frozen.
Checked against a frozen dataclass of the same fields made here by :mod:`dataclasses` itself."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import events

CLASSES = [getattr(events, name) for name in events.__all__ if name != "RunEvent"]


def reference(cls: type) -> type:
    """A frozen dataclass with ``cls``'s fields, as :mod:`dataclasses` generates it (made once)."""
    ref = _REFERENCES.get(cls)
    if ref is None:
        ref = _REFERENCES[cls] = _make_reference(cls)
    return ref


_REFERENCES: dict[type, type] = {}


def _make_reference(cls: type) -> type:
    return dataclasses.make_dataclass(
        cls.__name__,
        [
            (f.name, f.type, dataclasses.field(default=f.default))
            if f.default is not dataclasses.MISSING
            else (f.name, f.type)
            for f in dataclasses.fields(cls)
        ],
        frozen=True,
    )


def test_every_event_class_is_covered() -> None:
    assert len(CLASSES) == 16
    assert all(dataclasses.is_dataclass(c) and c.__dataclass_params__.frozen for c in CLASSES)  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_same_signature_as_the_generated_init(cls: type) -> None:
    mine, theirs = inspect.signature(cls), inspect.signature(reference(cls))
    assert [(p.name, p.kind, p.default) for p in mine.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_instances_equal_the_generated_ones(cls: type, data: st.DataObject) -> None:
    ref = reference(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = [data.draw(st.one_of(st.integers(), st.text(max_size=5), st.none()), label=n) for n in names]
    positional, by_name = cls(*values), cls(**dict(zip(names, values)))
    expected = ref(*values)
    assert vars(positional) == vars(by_name) == vars(expected)
    assert positional == by_name and hash(positional) == hash(by_name) == hash(expected)
    assert repr(positional) == repr(expected)
    assert pickle.loads(pickle.dumps(positional)) == positional
    assert dataclasses.asdict(positional) == dataclasses.asdict(expected)
    changed = dataclasses.replace(positional, **{names[0]: "changed"})
    assert type(changed) is cls and getattr(changed, names[0]) == "changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(positional, names[0], 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(positional, names[0])


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_defaults_and_wrong_arguments_as_before(cls: type) -> None:
    ref = reference(cls)
    required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    given_args = {n: n for n in required}
    assert vars(cls(**given_args)) == vars(ref(**given_args))  # defaults filled in the same way
    with pytest.raises(TypeError):
        cls()
    with pytest.raises(TypeError):
        cls(**given_args, not_a_field=1)
    with pytest.raises(TypeError):
        cls(*range(len(dataclasses.fields(cls)) + 1))


def test_a_subclass_still_gets_its_own_generated_init() -> None:
    @dataclasses.dataclass(frozen=True)
    class Tagged(events.TurnStarted):
        tag: str = "x"

    t = Tagged(3, "y")
    assert (t.turn, t.tag) == (3, "y") and t == Tagged(turn=3, tag="y")
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.turn = 4  # type: ignore[misc]
