"""A scripted agent for the sensor experiment: the experiment runs offline, on the ``scripted``
provider, under a model id the price data knows (so every run is priced as that model).

It is a small policy that reacts to what the tools really return, as a careful model would:
when the data folder's listing shows that ``sensor.csv`` is large, it searches the CSV for odd
values instead of reading it; when the listing shows bare names, it reads the CSV whole (and on
odd-numbered runs reads it once more). On every third run its first edit misquotes the line (a
tool error) before the right one. Token counts are measured from the request the agent is sent —
about four characters a token, as the vendors' own rough guide — so a listing that makes the
agent read the whole CSV makes every later request larger, exactly as with a real model.

Spec entry: ``{model = "scripted:claude-sonnet-4-5", factory = "sensor_agent:scripted"}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolwire.testing.providers import ScriptedModel, call

#: A file at least this big is searched, never read whole (the agent's rule).
LARGE = 10_000

_OLD = '    values = [float(row["temperature_c"]) for row in rows]'
_WRONG = '    values = [float(row["temperature"]) for row in rows]'
_NEW = (
    "    # -999 marks a sensor dropout, not a reading: leave it out of the mean\n"
    '    values = [float(row["temperature_c"]) for row in rows if float(row["temperature_c"]) != -999]'
)
_SIZE = re.compile(r"sensor\.csv\b[^\n]*?([\d,]+) bytes")


def _tokens(chars: int) -> int:
    return (chars + 3) // 4


def _request_chars(request: Any) -> int:
    n = len(request.instructions or "")
    n += sum(len(json.dumps(t.spec(), sort_keys=True)) for t in request.tools)
    for m in request.messages:
        for p in m.parts:
            text = getattr(p, "text", None)
            if isinstance(text, str):
                n += len(text)
            args = getattr(p, "arguments", None)
            if args is not None:
                n += len(json.dumps(args, sort_keys=True)) + len(getattr(p, "name", "") or "")
    return n


def _results(request: Any) -> list[str]:
    return [r.text for m in request.messages for r in m.tool_results]


class SensorAgent:
    """``respond(request)`` for :class:`~toolwire.testing.providers.ScriptedModel`; ``index`` is
    the run's index in its cell."""

    def __init__(self, index: int) -> None:
        self.index = index

    def _plan(self, data_listing: str) -> list[Any]:
        m = _SIZE.search(data_listing)
        large = m is not None and int(m.group(1).replace(",", "")) >= LARGE
        steps: list[Any] = []
        if large:
            steps.append(
                (
                    "sensor.csv is large, so I'll search it for odd values instead of reading it, "
                    "and read the small script and run the report.",
                    [
                        call("search_files", {"pattern": "-999", "path": "data"}),
                        call("read_file", {"path": "report.py"}),
                        call("run_command", {"command": ["python", "report.py"]}),
                    ],
                )
            )
        else:
            steps.append(
                (
                    "I'll read the data and the script, and run the report.",
                    [
                        call("read_file", {"path": "data/sensor.csv"}),
                        call("read_file", {"path": "report.py"}),
                        call("run_command", {"command": ["python", "report.py"]}),
                    ],
                )
            )
            if self.index % 2 == 1:
                steps.append(
                    ("Let me look at the readings once more.", [call("read_file", {"path": "data/sensor.csv"})])
                )
        if self.index % 3 == 2:
            steps.append(
                (
                    "The -999 rows are dropouts; I'll fix the script.",
                    [call("edit_file", {"path": "report.py", "old_text": _WRONG, "new_text": _NEW})],
                )
            )
        steps.append(
            (
                "The -999 rows are sensor dropouts and the script averages them; I'll fix the script, not the data.",
                [call("edit_file", {"path": "report.py", "old_text": _OLD, "new_text": _NEW})],
            )
        )
        steps.append(("Now I'll run the report again.", [call("run_command", {"command": ["python", "report.py"]})]))
        return steps

    def __call__(self, request: Any) -> dict[str, Any]:
        done = sum(1 for m in request.messages if m.role == "assistant")
        results = _results(request)
        if done == 0:
            text, calls = "First I'll see what is in the project folder.", [call("list_dir", {"path": "."})]
        elif done == 1:
            text, calls = "Now the data folder.", [call("list_dir", {"path": "data"})]
        else:
            steps = self._plan(results[1] if len(results) > 1 else "")
            if done - 2 < len(steps):
                text, calls = steps[done - 2]
            else:
                m = re.search(r"mean temperature:\s*(-?\d+(?:\.\d+)?)", results[-1] if results else "")
                text = (
                    "report.py averaged the -999 dropout rows as readings. I changed the script to leave them "
                    f"out (the data is untouched); the corrected mean temperature is {m.group(1) if m else 'unknown'} C."
                )
                calls = []
        out_chars = len(text) + sum(len(json.dumps(c.arguments, sort_keys=True)) + len(c.name) for c in calls)
        usage = {"input_tokens": _tokens(_request_chars(request)), "output_tokens": _tokens(out_chars) + 10}
        return {"text": text, "tool_calls": calls, "usage": usage}


def scripted(run: Any) -> ScriptedModel:
    """The model factory of the spec: a scripted model under the run's model id (the part after
    ``scripted:``), playing :class:`SensorAgent` for the run's index."""
    _, _, model_id = run.model.partition(":")
    return ScriptedModel(model_id or "scripted", respond=SensorAgent(run.index))
