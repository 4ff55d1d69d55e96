"""toolwire adapter for the Anthropic Messages API (``toolwire-anthropic``).

- :class:`AnthropicCodec`: pure encode/decode of the ``/v1/messages`` wire JSON;
- :class:`AnthropicProfile`: the Messages API's rules (each with its source), checked on every
  encoded request before it is sent;
- :class:`AnthropicModel`: the transport over the installed ``anthropic`` SDK, registered as the
  ``anthropic`` provider (``toolwire.model("anthropic:<model-id>")``);
- :func:`confined_bash`, :func:`confined_text_editor`: Anthropic's bash and text editor tools
  with the functions that answer their calls, rooted in one directory (bash confines its working directory and program, not the files a program opens); :func:`computer`: the
  computer toolset, answered by your function.

The SDK is imported only when a request is sent.
"""

from .client_tools import computer, confined_bash, confined_text_editor
from .codec import AnthropicCodec, StreamDecoder, map_stop_reason, usage_from_wire
from .model import AnthropicModel, provider_error_from_sdk
from .profile import AnthropicProfile

__all__ = [
    "AnthropicCodec",
    "AnthropicModel",
    "AnthropicProfile",
    "StreamDecoder",
    "map_stop_reason",
    "provider_error_from_sdk",
    "usage_from_wire",
    "confined_bash",
    "confined_text_editor",
    "computer",
]
