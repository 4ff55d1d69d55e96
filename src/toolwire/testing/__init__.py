"""Testing support: offline providers (``test``, ``scripted``), cassette reading, and the pytest
plugin (``toolwire.testing.pytest_plugin``, registered by entry point)."""

from __future__ import annotations

from .providers import ScriptedModel, TestModel, call, example_arguments

__all__ = ["ScriptedModel", "TestModel", "call", "example_arguments"]
