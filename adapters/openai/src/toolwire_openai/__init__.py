"""toolwire adapter for OpenAI: Chat Completions (``openai-chat``, also OpenAI-compatible
servers through ``base_url``) and Responses (``openai``) — two codecs, one distribution.

- :class:`OpenAIChatCodec` / :class:`OpenAIResponsesCodec`: pure wire codecs;
- :class:`OpenAIChatModel` / :class:`OpenAIResponsesModel`: transports over the installed
  ``openai`` SDK (``AsyncOpenAI`` over ``httpx2``).

See ``docs/adapters/openai.md``.
"""

from .chat import ChatStreamDecoder, OpenAIChatCodec
from .models import OpenAIChatModel, OpenAIResponsesModel
from .responses import OpenAIResponsesCodec, ResponsesStreamDecoder

__all__ = [
    "OpenAIChatCodec",
    "OpenAIResponsesCodec",
    "ChatStreamDecoder",
    "ResponsesStreamDecoder",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
]
