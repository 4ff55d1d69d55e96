"""Install hints that work from where the user is.

toolwire's own distribution records how it was installed (PEP 610 ``direct_url.json``): from a
package index (no record), from a local folder such as a clone, from a git URL, or from a wheel
file. A hint that names an adapter or an extra follows the same route, so a user who installed
from a clone is told to install the adapter from that clone's ``adapters/`` folder rather than
from an index that does not have it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["adapter_install_command", "extra_install_command", "installer"]

#: The extras toolwire declares (``pip install "toolwire[testing]"``) and what they install.
EXTRAS = ("anthropic", "openai", "gemini", "testing", "cli", "all")


def installer() -> str:
    """``"pip install"`` where pip is importable, else ``"uv pip install"`` (a uv-made venv has no pip)."""
    return "pip install" if importlib.util.find_spec("pip") is not None else "uv pip install"


def _direct_url() -> dict[str, Any] | None:
    from importlib import metadata

    try:
        text = metadata.distribution("toolwire").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _local_path(url: str) -> Path | None:
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path))


def _quote(arg: str) -> str:
    return f'"{arg}"' if any(c in arg for c in " []@#") else arg


def adapter_install_command(extra: str) -> str:
    """The command that installs the adapter distribution ``toolwire-<extra>`` the way toolwire
    itself was installed, e.g. ``pip install "toolwire[openai]"`` (from an index),
    ``pip install /path/to/clone/adapters/openai`` (from a clone),
    ``pip install "toolwire-openai @ git+file:///path/to/repo@<commit>#subdirectory=adapters/openai"``
    (from a git URL) or the adapter's wheel beside toolwire's own."""
    info = _direct_url()
    pip = installer()
    if info is None:
        return f'{pip} "toolwire[{extra}]"'
    url = str(info.get("url", ""))
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        rev = vcs.get("requested_revision") or vcs.get("commit_id")
        at = f"@{rev}" if rev else ""
        return f'{pip} "toolwire-{extra} @ git+{url}{at}#subdirectory=adapters/{extra}"'
    path = _local_path(url)
    if path is not None:
        if "archive_info" in info and path.is_file():  # a wheel or sdist file: the adapter's sits beside it
            wheels = sorted(path.parent.glob(f"toolwire_{extra}-*.whl"))
            if wheels:
                return f"{pip} {_quote(str(wheels[-1]))}"
            return f"{pip} {_quote(str(path.parent / f'toolwire_{extra}-<version>-py3-none-any.whl'))}"
        folder = path / "adapters" / extra
        if folder.is_dir():
            editable = bool((info.get("dir_info") or {}).get("editable"))
            return f"{pip} {'-e ' if editable else ''}{_quote(str(folder))}"
    return f'{pip} "toolwire[{extra}]"'


def extra_install_command(extra: str) -> str:
    """The command that installs toolwire's extra ``extra`` (e.g. ``testing``) the way toolwire
    itself was installed: ``pip install "toolwire[testing]"`` from an index,
    ``pip install "/path/to/clone[testing]"`` from a clone, and the git URL or wheel likewise."""
    info = _direct_url()
    pip = installer()
    if info is None:
        return f'{pip} "toolwire[{extra}]"'
    url = str(info.get("url", ""))
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        rev = vcs.get("requested_revision") or vcs.get("commit_id")
        at = f"@{rev}" if rev else ""
        return f'{pip} "toolwire[{extra}] @ git+{url}{at}"'
    path = _local_path(url)
    if path is not None:
        editable = bool((info.get("dir_info") or {}).get("editable"))
        return f'{pip} {"-e " if editable else ""}"{path}[{extra}]"'
    return f'{pip} "toolwire[{extra}]"'
