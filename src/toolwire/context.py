"""What a tool function may ask the loop for: declare a parameter annotated
:class:`ToolContext` (any name) and the loop passes it in; it is never part of the input schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolContext"]


@dataclass
class ToolContext:
    """Per-call context.

    - ``run_id``: unique id of the current run (stable for the whole ``run()``);
    - ``tool_call_id``: the id of the call being answered; ``tool_name``; ``turn`` (1-based);
    - ``idempotency_key``: ``"<run_id>:<tool_call_id>"`` — send it to external APIs that accept
      one (ticket creation, payments, messages) so a retried request is not applied twice;
    - ``state``: a dict shared by all calls of the run (``run(..., state=...)``).
    """

    run_id: str
    tool_call_id: str
    tool_name: str
    turn: int
    idempotency_key: str
    state: dict[str, Any] = field(default_factory=dict)
