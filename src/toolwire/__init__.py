"""toolwire: LLM tool calling that works the same against every major vendor.

What an application needs is importable from here: :func:`tool` and :class:`Tool`,
:func:`run` / :func:`run_sync` and what they return, :func:`model`, the conversation types,
:class:`ToolContext` and the errors. What an adapter author needs (``ModelRequest``, ``Codec``,
``normalize_tool_choice``, ``collect_stream``) lives in :mod:`toolwire.adapter`.

``import toolwire`` is light: each name is loaded from its module on first use, and no
pydantic, jsonschema or vendor SDK is imported until used.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: importing typing alone costs more than this whole file)

__version__ = "0.1.0"

#: Every public name, loaded from its module on first use (PEP 562): ``import toolwire`` itself
#: imports none of them, so it costs only this file; ``toolwire.tool`` (say) imports what it needs.
_LAZY = {
    "Model": ("toolwire.adapter", "Model"),
    "NamedToolChoice": ("toolwire.adapter", "NamedToolChoice"),
    "ToolChoice": ("toolwire.adapter", "ToolChoice"),
    "ToolChoiceInput": ("toolwire.adapter", "ToolChoiceInput"),
    "ToolContext": ("toolwire.context", "ToolContext"),
    **{
        name: ("toolwire.errors", name)
        for name in (
            "AdapterNotInstalled",
            "ConfigurationError",
            "ContextWindowExceeded",
            "MaxTurnsExceeded",
            "ProviderError",
            "ProviderNotFound",
            "RequestRefused",
            "ResponseDecodeError",
            "RunLimitExceeded",
            "SchemaError",
            "SchemaTranslationError",
            "ToolDefinitionError",
            "ToolError",
            "ToolNameError",
            "ToolwireError",
            "UnsupportedToolChoice",
            "UsageLimitExceeded",
        )
    },
    "available_providers": ("toolwire.registry", "available_providers"),
    "model": ("toolwire.registry", "model"),
    "ProviderTool": ("toolwire.tools", "ProviderTool"),
    "Tool": ("toolwire.tools", "Tool"),
    "tool": ("toolwire.tools", "tool"),
    **{
        name: ("toolwire.types", name)
        for name in (
            "Conversation",
            "DocumentPart",
            "ImagePart",
            "Message",
            "ProviderToolPart",
            "ReasoningPart",
            "Response",
            "StopReason",
            "TextPart",
            "ToolCall",
            "ToolResult",
            "Usage",
        )
    },
    "run": ("toolwire.loop", "run"),
    "run_sync": ("toolwire.loop", "run_sync"),
    "RunResult": ("toolwire.loop", "RunResult"),
    "ToolRun": ("toolwire.loop", "ToolRun"),
    "Limits": ("toolwire.loop", "Limits"),
    "run_stream": ("toolwire.loop", "run_stream"),
    "run_stream_sync": ("toolwire.loop", "run_stream_sync"),
    "RunStream": ("toolwire.loop", "RunStream"),
    "RunState": ("toolwire.runstate", "RunState"),
    "PendingCall": ("toolwire.runstate", "PendingCall"),
    "Approved": ("toolwire.runstate", "Approved"),
    "Denied": ("toolwire.runstate", "Denied"),
    "Turn": ("toolwire.runstate", "Turn"),
}

#: Adapter-author names that used to be importable from ``toolwire``; they still are, with a
#: ``DeprecationWarning``, until 0.2 (code written against 0.1 keeps running and is told where
#: the name lives now).
_MOVED_TO_ADAPTER = ("ModelRequest", "Codec", "normalize_tool_choice")

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    # the submodules a user reaches as attributes after a plain ``import toolwire``
    # (``toolwire.events.TextDelta``, ``toolwire.errors.ToolError``): loaded by ``__getattr__``
    # at run time, declared here so that a type checker sees their names and not ``Any``
    from . import adapter as adapter
    from . import batch as batch
    from . import context as context
    from . import design as design
    from . import errors as errors
    from . import events as events
    from . import experiments as experiments
    from . import mcp as mcp
    from . import pricing as pricing
    from . import profile as profile
    from . import registry as registry
    from . import retry as retry
    from . import runstate as runstate
    from . import schema as schema
    from . import secrets as secrets
    from . import store as store
    from . import testing as testing
    from . import tools as tools
    from . import tracing as tracing
    from . import transport as transport
    from . import types as types
    from .adapter import Model, NamedToolChoice, ToolChoice, ToolChoiceInput
    from .context import ToolContext
    from .errors import (
        AdapterNotInstalled,
        ConfigurationError,
        ContextWindowExceeded,
        MaxTurnsExceeded,
        ProviderError,
        ProviderNotFound,
        RequestRefused,
        ResponseDecodeError,
        RunLimitExceeded,
        SchemaError,
        SchemaTranslationError,
        ToolDefinitionError,
        ToolError,
        ToolNameError,
        ToolwireError,
        UnsupportedToolChoice,
        UsageLimitExceeded,
    )
    from .loop import Limits, RunResult, RunStream, ToolRun, run, run_stream, run_stream_sync, run_sync
    from .registry import available_providers, model
    from .runstate import Approved, Denied, PendingCall, RunState, Turn
    from .tools import ProviderTool, Tool, tool
    from .types import (
        Conversation,
        DocumentPart,
        ImagePart,
        Message,
        ProviderToolPart,
        ReasoningPart,
        Response,
        StopReason,
        TextPart,
        ToolCall,
        ToolResult,
        Usage,
    )


def __getattr__(name: str) -> Any:
    import importlib

    if name in _MOVED_TO_ADAPTER:
        import warnings

        warnings.warn(
            f"toolwire.{name} moved to toolwire.adapter.{name} (the adapter-author API); "
            f"import it from there: from toolwire.adapter import {name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("toolwire.adapter"), name)
    target = _LAZY.get(name)
    if target is None:
        if not name.startswith("_"):  # a submodule used as an attribute (``toolwire.errors.X``)
            try:
                return importlib.import_module(f"toolwire.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"toolwire.{name}":
                    raise
        import difflib
        import sys

        guess = difflib.get_close_matches(name, __all__, n=1)
        hint = f"; did you mean toolwire.{guess[0]}?" if guess else ""
        raise AttributeError(f"module 'toolwire' has no attribute {name!r}{hint}", name=name, obj=sys.modules[__name__])
    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AdapterNotInstalled",
    "Approved",
    "ConfigurationError",
    "ContextWindowExceeded",
    "Conversation",
    "Denied",
    "DocumentPart",
    "ImagePart",
    "Limits",
    "MaxTurnsExceeded",
    "Message",
    "Model",
    "NamedToolChoice",
    "PendingCall",
    "ProviderError",
    "ProviderNotFound",
    "ProviderToolPart",
    "ReasoningPart",
    "RequestRefused",
    "Response",
    "ResponseDecodeError",
    "RunLimitExceeded",
    "RunResult",
    "RunState",
    "RunStream",
    "SchemaError",
    "SchemaTranslationError",
    "StopReason",
    "TextPart",
    "Tool",
    "ProviderTool",
    "ToolCall",
    "ToolChoice",
    "ToolChoiceInput",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolNameError",
    "ToolResult",
    "ToolRun",
    "ToolwireError",
    "Turn",
    "UnsupportedToolChoice",
    "Usage",
    "UsageLimitExceeded",
    "__version__",
    "available_providers",
    "model",
    "run",
    "run_stream",
    "run_stream_sync",
    "run_sync",
    "tool",
]
