"""Gemini's computer use tool, answered by your function through toolwire's loop.

With the ``computerUse`` tool declared (``google.genai.types.Tool.computer_use``,
``ComputerUse``: ``environment``, ``excludedPredefinedFunctions``), the model calls predefined
functions (``click_at``, ``type_text_at``, ``navigate``, ...) as ordinary ``functionCall`` parts
with coordinates on a 0-999 grid (https://ai.google.dev/gemini-api/docs/computer-use, "Supported
actions"). :func:`computer_use` returns the :class:`toolwire.ProviderTool` that answers them: the
loop runs each call with your function and the codec sends the ``functionResponse`` the docs
give, ``{"url": <current URL>}`` with the screenshot as an inline image in its ``parts``
(``FunctionResponse.parts``, ``FunctionResponsePart.inline_data``).
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable

from toolwire.context import ToolContext
from toolwire.errors import ToolError
from toolwire.runstate import confirmed
from toolwire.tools import ProviderTool
from toolwire.types import ImagePart, TextPart

__all__ = ["computer_use", "PREDEFINED_FUNCTIONS"]

#: The predefined functions of the computer use tool (the docs' "Supported actions").
PREDEFINED_FUNCTIONS = (
    "open_web_browser",
    "wait_5_seconds",
    "go_back",
    "go_forward",
    "search",
    "navigate",
    "click_at",
    "hover_at",
    "type_text_at",
    "key_combination",
    "scroll_document",
    "scroll_at",
    "drag_and_drop",
)


def _screen(value: Any) -> tuple[ImagePart, str | None]:
    """``(screenshot, url)`` from what the function returned: ``(png_bytes, url)``, PNG ``bytes``,
    an :class:`ImagePart`, or ``(ImagePart, url)``."""
    url = None
    if isinstance(value, tuple) and len(value) == 2:
        value, url = value
    if isinstance(value, (bytes, bytearray)):
        return ImagePart(data=bytes(value), media_type="image/png"), url
    if isinstance(value, ImagePart):
        return value, url
    raise ToolError(
        f"the computer use function returned {type(value).__name__}, not a screenshot",
        hint="Return (png_bytes, current_url), or the PNG bytes alone.",
        retryable=False,
    )


def computer_use(
    function: Callable[[str, dict[str, Any]], Any],
    *,
    environment: str = "ENVIRONMENT_BROWSER",
    excluded_predefined_functions: list[str] | None = None,
    confirm: Callable[[dict[str, Any]], Any] | None = None,
    **settings: Any,
) -> ProviderTool:
    """Gemini's ``computerUse`` tool (``environment``: a ``google.genai.types.Environment`` value,
    default ``"ENVIRONMENT_BROWSER"``; ``excluded_predefined_functions``: names the model may not
    call; other ``ComputerUse`` fields as ``settings`` by their wire names).

    ``function(name, args)`` performs one predefined function (``name`` such as ``"click_at"``,
    ``args`` the model's arguments, e.g. ``{"x": 500, "y": 120}`` on the 0-999 grid), sync or
    async, and returns ``(png_bytes, current_url)`` (or the PNG bytes alone). The answer is the
    ``functionResponse`` with ``response`` ``{"url": current_url}`` and the screenshot in its
    ``parts``. An exception becomes an error answer (``{"error": ...}``).

    Safety: a call whose arguments carry ``safety_decision`` with ``decision ==
    "require_confirmation"`` waits for approval (the run stops with a ``PendingCall`` whose reason
    is the decision's ``explanation``; resume with ``Approved()`` or ``Denied(reason)``) unless
    ``confirm(safety_decision)`` (sync or async) returns true (a ``Denied`` is no confirmation;
    a ``confirm`` that raises leaves the call waiting, with the error as its reason). Only a confirmed call runs; its response carries
    ``"safety_acknowledgement": "true"``. ``safety_decision`` is not passed to ``function``.
    """
    excluded = list(excluded_predefined_functions or [])
    decl: dict[str, Any] = {"environment": environment, **settings}
    if excluded:
        decl["excludedPredefinedFunctions"] = excluded
    is_async = inspect.iscoroutinefunction(function)

    async def run(ctx: ToolContext, **args: Any) -> Any:
        safety = args.pop("safety_decision", None)
        value = function(ctx.tool_name, args)
        if is_async or inspect.isawaitable(value):
            value = await value
        image, url = _screen(value)
        response: dict[str, Any] = {}
        if url is not None:
            response["url"] = url
        if isinstance(safety, dict) and safety.get("decision") == "require_confirmation":
            response["safety_acknowledgement"] = "true"
        return [TextPart(json.dumps(response)), image]

    tool = ProviderTool("gemini", "computerUse", decl, function=run)
    tool.meta["call_names"] = [n for n in PREDEFINED_FUNCTIONS if n not in excluded]

    async def needs_confirmation(call: Any) -> str | None:
        safety = (call.arguments or {}).get("safety_decision")
        if not isinstance(safety, dict) or safety.get("decision") != "require_confirmation":
            return None
        if confirm is not None and await confirmed(confirm(safety)):
            return None
        return str(safety.get("explanation") or "Gemini's safety system asks for confirmation of this action")

    tool.meta["requires_approval"] = needs_confirmation
    return tool
