"""toolwire: LLM tool calling that works the same against every major vendor.

``import toolwire`` is light: no pydantic, jsonschema or vendor SDK is imported until used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    AdapterNotInstalled,
    ConfigurationError,
    MaxTurnsExceeded,
    ProviderError,
    ProviderNotFound,
    RequestRefused,
    ResponseDecodeError,
    RunLimitExceeded,
    SchemaError,
    SchemaTranslationError,
    ToolError,
    ToolDefinitionError,
    ToolNameError,
    ToolwireError,
    UnsupportedToolChoice,
    UsageLimitExceeded,
)
from .adapter import Model, ModelRequest, normalize_tool_choice
from .registry import available_providers, model
from .tools import Tool, tool
from .types import (
    Conversation,
    ImagePart,
    Message,
    ReasoningPart,
    Response,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
)

__version__ = "0.1.0"

_LAZY = {
    "run": ("toolwire.loop", "run"),
    "run_sync": ("toolwire.loop", "run_sync"),
    "RunResult": ("toolwire.loop", "RunResult"),
    "ToolRun": ("toolwire.loop", "ToolRun"),
    "Limits": ("toolwire.loop", "Limits"),
}

if TYPE_CHECKING:  # pragma: no cover
    from .loop import Limits, RunResult, ToolRun, run, run_sync


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'toolwire' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


__all__ = [
    "AdapterNotInstalled", "ConfigurationError", "Conversation", "ImagePart", "Limits", "MaxTurnsExceeded",
    "Message", "Model", "ModelRequest", "ProviderError", "ProviderNotFound", "ReasoningPart", "RequestRefused", "Response", "ResponseDecodeError",
    "RunLimitExceeded", "RunResult", "SchemaError", "SchemaTranslationError", "TextPart", "Tool", "ToolCall",
    "ToolDefinitionError", "ToolError", "ToolNameError", "ToolResult", "ToolRun", "ToolwireError",
    "UnsupportedToolChoice", "Usage", "UsageLimitExceeded", "available_providers", "model",
    "normalize_tool_choice", "run", "run_sync", "tool",
]
