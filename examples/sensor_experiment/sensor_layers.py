"""The tool layers of the sensor experiment.

``bare_names`` and ``byte_sizes`` are the same toolset — toolwire's file tools with reads up to
5,000 lines, and a plain ``list_dir`` — except for one string: the format of a listing row.
One shows a file's name, the other its name and size in bytes. The third layer of the spec is
toolwire's ready file toolset as it ships (``toolwire.design.files:file_tools``: sizes and line
counts in listings, reads capped at 200 lines a call).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from toolwire import tool
from toolwire.design.files import file_tools
from toolwire.design.paths import ConfinedRoot

#: The one string the two layers differ in: how list_dir shows a file.
BARE_NAMES = "{name}"
BYTE_SIZES = "{name}  {size} bytes"


def _layer(root: Path, row: str) -> list[Any]:
    base = ConfinedRoot(root)

    @tool
    def list_dir(path: str = ".") -> str:
        """List the entries of one directory of the project (directories end with '/').

        Args:
            path: Directory relative to the project root ('.' is the root).
        """
        p = base.resolve(path, must_exist=True, kind="dir")
        lines = []
        for name in sorted(os.listdir(p)):
            full = p / name
            if full.is_dir():
                lines.append(f"{name}/")
            else:
                lines.append(row.format(name=name, size=full.stat().st_size))
        return "\n".join(lines) or "(empty)"

    others = [t for t in file_tools(root, read_cap_lines=5000) if t.name != "list_dir"]
    return [list_dir, *others]


def bare_names(root: Path) -> list[Any]:
    """The file tools with a listing of bare names."""
    return _layer(root, BARE_NAMES)


def byte_sizes(root: Path) -> list[Any]:
    """The file tools with a listing of names and byte sizes."""
    return _layer(root, BYTE_SIZES)
