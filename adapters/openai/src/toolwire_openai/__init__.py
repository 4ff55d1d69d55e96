"""toolwire adapter for OpenAI: Chat Completions (``openai-chat``, also OpenAI-compatible
servers through ``base_url``) and Responses (``openai``) — two codecs, one distribution.

- :class:`OpenAIChatCodec` / :class:`OpenAIResponsesCodec`: pure wire codecs;
- :class:`OpenAIChatModel` / :class:`OpenAIResponsesModel`: transports over the installed
  ``openai`` SDK (``AsyncOpenAI`` over ``httpx2``);
- :func:`confined_shell`, :func:`confined_local_shell`, :func:`confined_apply_patch`,
  :func:`computer`, :func:`mcp_server`: OpenAI's client-side Responses tools with the functions
  that answer their calls (:mod:`toolwire_openai.client_tools`).

See ``docs/adapters/openai.md``.
"""

from .chat import ChatStreamDecoder, OpenAIChatCodec
from .client_tools import computer, confined_apply_patch, confined_local_shell, confined_shell, mcp_server
from .models import OpenAIChatModel, OpenAIResponsesModel
from .responses import OpenAIResponsesCodec, ResponsesStreamDecoder

__all__ = [
    "OpenAIChatCodec",
    "OpenAIResponsesCodec",
    "ChatStreamDecoder",
    "ResponsesStreamDecoder",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "confined_shell",
    "confined_local_shell",
    "confined_apply_patch",
    "computer",
    "mcp_server",
]
