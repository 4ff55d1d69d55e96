"""``toolwire demo``: a small, realistic agent on a real task.

The task: ``report.py`` averages ``data/sensor.csv``, whose ``-999`` dropout rows skew the mean.
The agent must find out why and fix the *script* (not the data) with the ready file toolset
(:func:`toolwire.design.files.file_tools`), confined to a temporary copy of the data folder.

Offline (the default) the model's decisions come from a scripted provider that follows a good
path — sizes first, search instead of reading the whole CSV, a parallel turn, the fix in the
script — while the tools really run. Live (``--model provider:id`` with the vendor's API key) a
real model decides. Either way the same check decides pass or fail: run the report in the copy
and compare its mean with the mean of the non-dropout readings computed here, and make sure the
CSV is unchanged.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_DIR",
    "TASK",
    "INSTRUCTIONS",
    "prepare_workspace",
    "expected_mean",
    "check",
    "scripted_model",
    "CheckResult",
]

DATA_DIR = Path(__file__).parent / "data"
DROPOUT = -999.0

TASK = (
    "The daily report (`python report.py`) prints a mean temperature that is far too low for a "
    "greenhouse. Find out why and fix it, then run the report again and tell me the corrected mean."
)

INSTRUCTIONS = (
    "You are a careful engineer working in a project folder through file tools. Look at sizes "
    "before reading files, prefer searching over reading large files, fix code rather than data, "
    "and verify a fix by running it."
)

_OLD_LINE = '    values = [float(row["temperature_c"]) for row in rows]'
_NEW_LINES = (
    "    # -999 marks a sensor dropout, not a reading: leave it out of the mean\n"
    '    values = [float(row["temperature_c"]) for row in rows if float(row["temperature_c"]) != -999]'
)


def prepare_workspace(target: Path | None = None) -> Path:
    """Copy the demo data folder to ``target`` (a new temporary folder by default); return it."""
    root = Path(target) if target is not None else Path(tempfile.mkdtemp(prefix="toolwire-demo-"))
    if root.exists() and not root.is_dir():
        raise FileExistsError(f"{root} is a file; give an empty or new folder")
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; give an empty or new folder")
    shutil.copytree(DATA_DIR, root, dirs_exist_ok=True)
    return root


def expected_mean(csv_path: Path) -> float:
    """Mean of ``temperature_c`` over the rows that are not ``-999`` dropouts."""
    with open(csv_path, newline="") as fh:
        values = [float(r["temperature_c"]) for r in csv.DictReader(fh)]
    good = [v for v in values if v != DROPOUT]
    return sum(good) / len(good)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class CheckResult:
    """The verdict of :func:`check`: ``passed`` (the report exited 0 and printed a mean within
    0.006 of ``expected`` rounded to 2 decimals, and the CSV is unchanged), ``expected`` and
    ``reported`` (the means in °C; ``reported`` ``None`` when the report printed none),
    ``data_unchanged`` (the CSV's SHA-256 is the original's) and ``report_output`` (the report's
    stdout and stderr)."""

    passed: bool
    expected: float
    reported: float | None
    data_unchanged: bool
    report_output: str

    def summary(self) -> str:
        """One line: ``PASS`` or ``FAIL``, the mean printed and the one expected (°C, 2 decimals), and
        whether the data file was left unchanged."""
        got = "no mean printed" if self.reported is None else f"{self.reported:.2f} C"
        data = "data unchanged" if self.data_unchanged else "DATA WAS CHANGED (the fix belongs in the script)"
        verdict = "PASS" if self.passed else "FAIL"
        return f"{verdict}: report prints {got}, expected {self.expected:.2f} C; {data}"


def check(root: Path) -> CheckResult:
    """Run ``report.py`` in ``root`` and compare with :func:`expected_mean` of the original CSV."""
    original_csv = DATA_DIR / "data" / "sensor.csv"
    want = expected_mean(original_csv)
    csv_path = root / "data" / "sensor.csv"
    unchanged = csv_path.exists() and _sha256(csv_path) == _sha256(original_csv)
    proc = subprocess.run([sys.executable, "report.py"], cwd=root, capture_output=True, text=True, timeout=60)
    out = (proc.stdout + proc.stderr).strip()
    m = re.search(r"mean temperature:\s*(-?\d+(?:\.\d+)?)", proc.stdout)
    got = float(m.group(1)) if m else None
    passed = proc.returncode == 0 and got is not None and abs(got - round(want, 2)) < 0.006 and unchanged
    return CheckResult(passed, want, got, unchanged, out)


def _final_answer(request: Any) -> str:
    """The scripted final answer, written from what the last tool result really said."""
    last = request.messages[-1].tool_results[-1].text if request.messages and request.messages[-1].tool_results else ""
    m = re.search(r"mean temperature:\s*(-?\d+(?:\.\d+)?)", last)
    mean = m.group(1) if m else "unknown"
    return (
        "The CSV marks sensor dropouts with -999, and report.py averaged those rows as if they were "
        "readings, which dragged the mean down. I changed report.py to leave -999 rows out (the data "
        f"file is untouched). The corrected mean temperature is {mean} C."
    )


def scripted_model() -> Any:
    """The scripted provider that plays the model's part offline: a good path through the task."""
    from ..testing.providers import ScriptedModel, call

    return ScriptedModel(
        "demo-scripted",
        responses=[
            {
                "text": "First I'll look at what is in the folder and in data/, with each file's size.",
                "tool_calls": [call("list_dir", {"path": "."}), call("list_dir", {"path": "data"})],
            },
            {
                "text": "The CSV is about 50 KB (2,001 lines), so instead of reading it I'll search it for suspicious values, "
                "read the small script, and run the report, all at once.",
                "tool_calls": [
                    call("read_file", {"path": "report.py"}),
                    call("search_files", {"pattern": "-999", "path": "data"}),
                    call("run_command", {"command": ["python", "report.py"]}),
                ],
            },
            {
                "text": "The -999 rows are sensor dropouts and the script averages them. I'll fix the script, not the data.",
                "tool_calls": [call("edit_file", {"path": "report.py", "old_text": _OLD_LINE, "new_text": _NEW_LINES})],
            },
            {
                "text": "Now I'll run the report again to verify the fix.",
                "tool_calls": [call("run_command", {"command": ["python", "report.py"]})],
            },
            _final_answer,
        ],
    )
