"""Without OpenTelemetry installed, every entry point of ``toolwire.tracing`` says what to install
(a ``ConfigurationError`` with the install hint), never a raw ``ModuleNotFoundError``."""

from __future__ import annotations

import sys

import pytest

import toolwire
import toolwire.tracing
from toolwire.errors import ConfigurationError

HINT = 'tracing needs the OpenTelemetry API: pip install "toolwire[tracing]"'


@pytest.fixture
def no_otel(monkeypatch: pytest.MonkeyPatch) -> None:
    """``import opentelemetry`` (and its submodules) fails, as when it is not installed."""
    for name in [m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)


def test_observer_says_what_to_install_as_tracer_does(no_otel: None) -> None:
    """``Tracing().observer(...)`` raised ``ModuleNotFoundError: import of opentelemetry halted``
    while ``tracer()`` gave the ConfigurationError with the install hint."""
    tracing = toolwire.tracing.Tracing()
    with pytest.raises(ConfigurationError) as info:
        tracing.tracer()
    assert str(info.value) == HINT
    with pytest.raises(ConfigurationError) as info:
        tracing.observer(None, toolwire.model("scripted", responses=["hi"]))
    assert str(info.value) == HINT
    assert isinstance(info.value.__cause__, ImportError)


def test_a_run_given_tracing_without_opentelemetry_says_what_to_install(no_otel: None) -> None:
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(toolwire.model("scripted", responses=["hi"]), "hi", tracing=toolwire.tracing.Tracing())
    assert str(info.value) == HINT
    with pytest.raises(ConfigurationError) as info:
        toolwire.tracing.instrument()
    assert str(info.value) == HINT
