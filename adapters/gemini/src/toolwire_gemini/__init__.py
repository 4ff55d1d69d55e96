"""toolwire adapter for the Gemini API (``google-genai``).

- :class:`GeminiCodec`: the pure codec (``generateContent`` REST JSON ⇄ canonical types);
- :class:`GeminiModel`: the transport (``provider "gemini"``), loaded lazily through the
  ``toolwire.adapters`` entry point so ``import toolwire`` never imports ``google.genai``;
- :func:`computer_use`: Gemini's computer use tool with the function that answers its calls.

See ``docs/adapters/gemini.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client_tools import computer_use
from .codec import GeminiCodec

if TYPE_CHECKING:  # imported lazily at run time (``__getattr__`` below): google-genai is heavy
    from .model import GeminiModel

__all__ = ["GeminiCodec", "GeminiModel", "computer_use"]


def __getattr__(name: str) -> Any:
    if name == "GeminiModel":
        from .model import GeminiModel

        return GeminiModel
    raise AttributeError(name)
