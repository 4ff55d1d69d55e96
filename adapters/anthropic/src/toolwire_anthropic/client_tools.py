"""Anthropic's client-side tools (bash, text editor) run over toolwire's confined file tools.

The model knows these tools from training and calls them with Anthropic's input shape
(https://docs.claude.com/en/docs/agents-and-tools/tool-use/bash-tool and
https://docs.claude.com/en/docs/agents-and-tools/tool-use/text-editor-tool). Your code runs them.
:func:`confined_text_editor` and :func:`confined_bash` return :class:`toolwire.ProviderTool`
objects rooted in one directory. Every path the text editor is given goes through
:class:`toolwire.design.paths.ConfinedRoot`, so a path outside the root is an error result
the model can act on, never a read or a write outside it. Bash confines only its working
directory and which program starts: the program's arguments are passed on as given, and what an
allowed program opens (``ls /etc``, ``python -c "open('/etc/hostname')"``) is not confined.
"""

from __future__ import annotations

import builtins
import os
import shlex
from typing import Any

from toolwire._words import plural
from toolwire.context import ToolContext
from toolwire.errors import ToolError
from toolwire.tools import ProviderTool

__all__ = ["confined_text_editor", "confined_bash", "computer"]


def _by_name(root: str | os.PathLike[str], **kwargs: Any) -> dict[str, Any]:
    from toolwire.design.files import file_tools

    return {t.name: t for t in file_tools(root, **kwargs)}


def confined_text_editor(
    root: str | os.PathLike[str], *, type: str = "text_editor_20250728", settings: dict[str, Any] | None = None
) -> ProviderTool:
    """Anthropic's text editor tool (``type``, default ``text_editor_20250728``, name
    ``str_replace_based_edit_tool``) working on files under ``root``.

    Commands, with Anthropic's input fields: ``view`` (a file: its numbered lines, ``view_range``
    ``[first, last]`` with ``-1`` for the end; a directory: its entries), ``str_replace``
    (``old_str`` must occur exactly once), ``create`` (``file_text``; an existing file is not
    overwritten), ``insert`` (``insert_text``, or ``new_str`` for older versions, after line
    ``insert_line``; ``0`` is the top). ``undo_edit`` is answered with an error result. Paths are
    relative to ``root``, or absolute inside it. ``settings``: the tool's own fields (e.g.
    ``{"max_characters": 10000}``). Raises :class:`~toolwire.errors.ToolDefinitionError` when
    ``root`` is not a directory.
    """
    from toolwire.design.paths import ConfinedRoot

    tools = _by_name(root)
    base = ConfinedRoot(root)

    def editor(
        command: str,
        path: str,
        file_text: str | None = None,
        old_str: str | None = None,
        new_str: str | None = None,
        insert_line: int | None = None,
        insert_text: str | None = None,
        view_range: list[int] | None = None,
    ) -> str:
        if command == "view":
            p = base.resolve(path, must_exist=True)
            if p.is_dir():
                return tools["list_dir"](path)
            if view_range:
                first = max(1, int(view_range[0]))
                last = int(view_range[1]) if len(view_range) > 1 else -1
                limit = 200 if last == -1 else max(1, min(200, last - first + 1))
                return tools["read_file"](path, offset=first, limit=limit)
            return tools["read_file"](path)
        if command == "str_replace":
            if old_str is None:
                raise ToolError(
                    "str_replace needs old_str", hint="Send old_str with the exact text to replace.", retryable=False
                )
            return tools["edit_file"](path, old_str, new_str or "")
        if command == "create":
            p = base.resolve(path)
            if p.exists():
                raise ToolError(
                    f"{path!r} already exists", hint="Use str_replace to change an existing file.", retryable=False
                )
            if not p.parent.is_dir():
                raise ToolError(
                    f"the directory of {path!r} does not exist",
                    hint="Create files in an existing directory.",
                    retryable=False,
                )
            with open(p, "x", encoding="utf-8") as fh:
                fh.write(file_text or "")
            return f"created {path} ({plural(len((file_text or '').splitlines()), 'line')})"
        if command == "insert":
            text = insert_text if insert_text is not None else new_str
            if text is None or insert_line is None:
                raise ToolError("insert needs insert_line and insert_text", hint="Send both fields.", retryable=False)
            base.resolve(path, must_exist=True, kind="file")
            # opened from the root one component at a time: no symbolic link swapped in since the
            # check, and no file with a second (hard link) name outside the root
            with open(base.open_fd(path), encoding="utf-8", newline="") as fh:
                lines = fh.read().splitlines(keepends=True)
            if not 0 <= insert_line <= len(lines):
                raise ToolError(
                    f"insert_line {insert_line} is outside 0..{len(lines)}",
                    hint="Pick a line in the file.",
                    retryable=False,
                )
            added = text if text.endswith("\n") else text + "\n"
            lines.insert(insert_line, added)
            with open(base.open_fd(path, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8", newline="") as fh:
                fh.write("".join(lines))
            return f"inserted {plural(len(added.splitlines()), 'line')} after line {insert_line} of {path}"
        raise ToolError(
            f"the command {command!r} is not supported here",
            hint="Use view, str_replace, create or insert.",
            retryable=False,
        )

    return ProviderTool("anthropic", type, settings, function=editor)


def confined_bash(
    root: str | os.PathLike[str],
    *,
    type: str = "bash_20250124",
    allowed_commands: list[str] | None = None,
    timeout: float = 30.0,
) -> ProviderTool:
    """Anthropic's bash tool (``type``, default ``bash_20250124``, name ``bash``) running each
    ``command`` as one program in ``root``, without a shell: the text is split as a shell would
    split words (``shlex``), then run by toolwire's confined ``run_command``
    (``allowed_commands``, ``timeout`` in seconds, a clean environment without credentials,
    background processes stopped). Pipes, redirection and variables are not available; a
    ``restart`` input is answered as done, since nothing persists between commands.

    Confined: the working directory (``root``) and the program (``allowed_commands``; any other
    is answered with an error listing the allowed ones). Not confined: the arguments, which are
    passed on as given, and the files an allowed program opens itself (``ls /etc`` lists
    ``/etc``), so allow only programs you would let read anything this process can.
    """
    run = _by_name(root, allowed_commands=allowed_commands, command_timeout=timeout)["run_command"]

    def bash(command: str | None = None, restart: bool = False) -> str:
        if restart:
            return "restarted (each command runs in a new process)"
        if not command or not command.strip():
            raise ToolError("no command given", hint="Send the command to run in the command field.", retryable=False)
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ToolError(
                f"the command cannot be split into words: {exc}", hint="Close the quotes.", retryable=False
            ) from None
        return run(argv)

    return ProviderTool("anthropic", type, function=bash)


def computer(
    function: Any, *, type: str = "computer_toolset_20260801", configs: dict[str, Any] | None = None
) -> ProviderTool:
    """Anthropic's computer toolset (``type``, default ``computer_toolset_20260801``,
    ``anthropic.types.ComputerToolset20260801Param``: one ``tools`` entry without a name, with
    optional per-member ``configs``), answered by ``function``.

    The model calls the toolset's members as ``tool_use`` blocks named after them (``left_click``,
    ``type``, ``key``, ``scroll``, ``screenshot``, ``zoom``, ...: the SDK's
    ``anthropic.types.ComputerMemberName``) with ``toolset_name: "computer"``, e.g.
    ``ComputerLeftClickToolUseBlock`` ``{"name": "left_click", "input": {"coordinate": [x, y]}}``.
    ``function(name, input)`` performs one (sync or async) and returns the screenshot after it as
    PNG ``bytes`` or an :class:`~toolwire.types.ImagePart` (the ``tool_result`` then holds the
    image), or text (a ``str``, or a list of ``TextPart`` / ``ImagePart``); anything else
    (``None``, a tuple) is answered with an error result saying what to return. Each ``tool_result`` carries the call's ``toolset_name``
    (``ToolResultBlockParam.toolset_name``).
    """
    import inspect

    from anthropic.types.computer_member_name import COMPUTER_MEMBER_NAME_VALUES

    from toolwire.types import ImagePart, TextPart

    is_async = inspect.iscoroutinefunction(function)

    async def run(ctx: ToolContext, **input: Any) -> Any:
        value = function(ctx.tool_name, input)
        if is_async or inspect.isawaitable(value):
            value = await value
        if isinstance(value, (bytes, bytearray)):
            media = "image/jpeg" if bytes(value[:3]) == b"\xff\xd8\xff" else "image/png"
            return ImagePart(data=bytes(value), media_type=media)
        if isinstance(value, (str, ImagePart)) or (
            isinstance(value, list) and value and all(isinstance(v, (ImagePart, TextPart)) for v in value)
        ):
            return value
        # anything else (None, a tuple, a number) would reach the model as its repr()
        raise ToolError(
            f"the computer function returned {builtins.type(value).__name__} for {ctx.tool_name!r}, "
            "not a screenshot or text",
            hint="Return the screenshot as PNG bytes or an ImagePart (or text saying what happened).",
            retryable=False,
        )

    tool = ProviderTool("anthropic", type, {"configs": configs} if configs is not None else None, function=run)
    tool.meta["call_names"] = list(COMPUTER_MEMBER_NAME_VALUES)
    return tool
