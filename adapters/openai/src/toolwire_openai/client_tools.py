"""OpenAI's client-side Responses tools, answered by your code through toolwire's loop.

The model calls these tools with output items of their own (``shell_call``, ``local_shell_call``,
``apply_patch_call``, ``computer_call``, ``mcp_approval_request``), not ``function_call``s. The
Responses codec decodes each into a :class:`toolwire.ToolCall` (name ``shell``, ``local_shell``,
``apply_patch``, ``computer``, ``mcp:<server_label>``; arguments ``{"action": ...}``,
``{"operation": ...}``, ``{"actions": [...]}``) that the loop runs like any tool, with approval,
hooks, limits and run events, and encodes the result as the output item the API expects
(``shell_call_output``, ``local_shell_call_output``, ``apply_patch_call_output``,
``computer_call_output``, ``mcp_approval_response``).

The factories here return :class:`toolwire.ProviderTool` objects with the function that answers:

- :func:`confined_shell` (``shell``) and :func:`confined_local_shell` (``local_shell``) run the
  commands as programs started in one directory (what a program opens is not confined), without a shell and without credentials;
- :func:`confined_apply_patch` (``apply_patch``) applies the V4A diffs inside one directory;
- :func:`computer` (``computer`` / ``computer_use_preview``) calls your function with each
  action and sends back the screenshot it returns;
- :func:`mcp_server` (``mcp``) answers the server's approval requests through ``approval=`` or
  an ``approve`` function.

Sources: https://platform.openai.com/docs/guides/tools-shell,
https://platform.openai.com/docs/guides/tools-local-shell,
https://platform.openai.com/docs/guides/tools-apply-patch,
https://platform.openai.com/docs/guides/tools-computer-use,
https://platform.openai.com/docs/guides/tools-remote-mcp, and the SDK types named below.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any, Callable

from toolwire._words import plural
from toolwire.errors import ToolError
from toolwire.runstate import confirmed
from toolwire.tools import ProviderTool
from toolwire.types import ImagePart, TextPart

__all__ = [
    "confined_shell",
    "confined_local_shell",
    "confined_apply_patch",
    "computer",
    "mcp_server",
]


#: Variables the model may not set for a local shell command: they change which code a program
#: loads or runs (the dynamic loader's, the interpreters' search paths and start-up options,
#: PATH, bash's exported functions and trace prompt, glibc's iconv modules, git's configuration
#: and helper commands, npm's and pytest's options), which would get around ``allowed_commands``.
_LOADER_VARIABLE = re.compile(
    r"^(LD_|DYLD_|PYTHON|PERL5?LIB$|PERL5?OPT$|RUBYLIB$|RUBYOPT$|NODE_OPTIONS$|NODE_PATH$|PATH$|BASH_ENV$|ENV$"
    r"|BASH_FUNC_|SHELLOPTS$|BASHOPTS$|PS4$|IFS$|GCONV_PATH$|LOCPATH$|GIT_|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$"
    r"|JDK_JAVA_OPTIONS$|LUA_INIT|LUA_C?PATH|PYTEST_|(?i:npm_config_))"
)


def _seconds(timeout_ms: Any, cap: float) -> float:
    if isinstance(timeout_ms, (int, float)) and not isinstance(timeout_ms, bool) and timeout_ms > 0:
        return min(cap, float(timeout_ms) / 1000.0)
    return cap


def _cut(text: str, limit: Any) -> str:
    """The end of ``text`` when ``limit`` (characters) is a positive integer smaller than it."""
    if isinstance(limit, int) and not isinstance(limit, bool) and 0 < limit < len(text):
        return text[-limit:]
    return text


def _strings(action: dict[str, Any], key: str, what: str, example: str) -> list[str]:
    """``action[key]`` when it is a non-empty list of strings, else a :class:`ToolError` saying
    ``action.<key> must be a non-empty list of <what>`` with ``example`` as the hint."""
    value = action.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ToolError(
            f"action.{key} must be a non-empty list of {what}", hint=f"Send e.g. {example}.", retryable=False
        )
    return value


def _with_notes(stderr: str, notes: tuple[str, ...]) -> str:
    return stderr + "".join(f"\n[toolwire: {n}]" for n in notes)


def confined_shell(
    root: str | os.PathLike[str],
    *,
    allowed_commands: list[str] | None = None,
    timeout: float = 30.0,
    env_allow: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> ProviderTool:
    """The Responses ``shell`` tool, declared with a local environment
    (``{"type": "shell", "environment": {"type": "local"}}``, ``FunctionShellToolParam``), whose
    commands run in ``root``.

    Each ``shell_call`` carries ``action`` = ``{"commands": [str, ...], "timeout_ms": int | None,
    "max_output_length": int | None}`` (``ResponseFunctionShellToolCall.Action``). Every command is
    split into words as a shell would (``shlex``) and run as one program by
    :func:`toolwire.design.files.run_program` in ``root``: no shell, so pipes, redirection and
    variables are not available; ``allowed_commands`` (program names, ``None``: any on ``PATH``);
    ``timeout`` in seconds per command (the call's ``timeout_ms`` may ask for less, never more);
    a clean environment (``env_allow``, ``env``) without credentials; background processes
    stopped. The answer is ``shell_call_output`` with one ``{"stdout", "stderr", "outcome"}``
    entry per command (``ResponseFunctionShellCallOutputContentParam``; ``outcome``
    ``{"type": "exit", "exit_code": n}`` or ``{"type": "timeout"}``; a command that cannot start
    has exit code 127 and the reason on stderr), each cut to its last ``max_output_length``
    characters when the call sets it. Raises :class:`~toolwire.errors.ToolDefinitionError` when
    ``root`` is not a directory.

    Confined: the working directory (``root``) and the program (``allowed_commands``). Not
    confined: the arguments, passed on as given, and the files an allowed program opens itself
    (``ls /etc`` lists ``/etc``).
    """
    from toolwire.design.files import run_program
    from toolwire.design.paths import ConfinedRoot

    base = ConfinedRoot(root)

    def shell(action: dict[str, Any]) -> dict[str, Any]:
        commands = _strings(action, "commands", "command lines", '{"commands": ["ls -la"]}')
        limit = action.get("max_output_length")
        seconds = _seconds(action.get("timeout_ms"), float(timeout))
        outputs: list[dict[str, Any]] = []
        for line in commands:
            try:
                argv = shlex.split(line)
                if not argv:
                    raise ToolError("the command is empty", hint="Send a program and its arguments.")
                run = run_program(
                    base, argv, timeout=seconds, allowed_commands=allowed_commands, env_allow=env_allow, env=env
                )
            except (ToolError, ValueError) as exc:
                reason = (
                    exc.render() if isinstance(exc, ToolError) else f"the command cannot be split into words: {exc}"
                )
                outputs.append({"stdout": "", "stderr": reason, "outcome": {"type": "exit", "exit_code": 127}})
                continue
            outcome: dict[str, Any] = (
                {"type": "timeout"} if run.timed_out else {"type": "exit", "exit_code": int(run.exit_code or 0)}
            )
            outputs.append(
                {
                    "stdout": _cut(run.stdout, limit),
                    "stderr": _cut(_with_notes(run.stderr, run.notes), limit),
                    "outcome": outcome,
                }
            )
        result: dict[str, Any] = {"output": outputs}
        if isinstance(limit, int) and not isinstance(limit, bool):
            result["max_output_length"] = limit
        return result

    return ProviderTool("openai", "shell", {"environment": {"type": "local"}}, function=shell)


def confined_local_shell(
    root: str | os.PathLike[str],
    *,
    allowed_commands: list[str] | None = None,
    timeout: float = 30.0,
    env_allow: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> ProviderTool:
    """The Responses ``local_shell`` tool (``{"type": "local_shell"}``, ``LocalShellParam``;
    used by ``codex-mini-latest``) running each call's program in ``root``.

    A ``local_shell_call`` carries ``action`` = ``{"type": "exec", "command": [argv...], "env":
    {...}, "timeout_ms": int | None, "working_directory": str | None, "user": str | None}``
    (``response_output_item.LocalShellCallAction``). ``command`` runs as given (no shell) by
    :func:`toolwire.design.files.run_program`, in ``working_directory`` when it is inside
    ``root`` (else an error result), with the action's ``env`` added to a clean environment
    (except variables that change which code runs: ``LD_*``, ``DYLD_*``, ``PYTHON*``, ``PATH``,
    ``NODE_OPTIONS``, ...);
    ``user`` is ignored (the program runs as this process's user). The answer is
    ``local_shell_call_output`` whose ``output`` is the JSON text ``{"output": stdout and stderr,
    "metadata": {"exit_code": n, "duration_seconds": s, "timed_out": bool}}``. Confined: the
    working directory and the program; not the arguments or the files an allowed program opens.
    """
    from toolwire.design.files import run_program
    from toolwire.design.paths import ConfinedRoot

    base = ConfinedRoot(root)

    def local_shell(action: dict[str, Any]) -> dict[str, Any]:
        command = _strings(action, "command", "strings (the program, then its arguments)", '{"command": ["ls", "-la"]}')
        extra = dict(env or {})
        asked = action.get("env")
        if isinstance(asked, dict):
            extra.update({str(k): str(v) for k, v in asked.items() if not _LOADER_VARIABLE.match(str(k))})
        cwd = action.get("working_directory")
        run = run_program(
            base,
            command,
            cwd=cwd if isinstance(cwd, str) and cwd else ".",
            timeout=_seconds(action.get("timeout_ms"), float(timeout)),
            allowed_commands=allowed_commands,
            env_allow=env_allow,
            env=extra,
        )
        text = run.stdout + (("\n" if run.stdout and not run.stdout.endswith("\n") else "") + run.stderr)
        return {
            "output": _with_notes(text, run.notes),
            "metadata": {
                "exit_code": run.exit_code,
                "duration_seconds": round(run.duration, 3),
                "timed_out": run.timed_out,
            },
        }

    return ProviderTool("openai", "local_shell", function=local_shell)


def confined_apply_patch(root: str | os.PathLike[str]) -> ProviderTool:
    """The Responses ``apply_patch`` tool (``{"type": "apply_patch"}``, ``ApplyPatchToolParam``)
    changing files under ``root``.

    An ``apply_patch_call`` carries ``operation`` (``ResponseApplyPatchToolCall.Operation``):
    ``{"type": "create_file", "path", "diff"}`` (a new file; its parent directories are made; an
    existing file is not overwritten), ``{"type": "update_file", "path", "diff"}`` (the V4A diff
    applied, see :mod:`toolwire_openai.v4a`) or ``{"type": "delete_file", "path"}``. Paths are
    relative to ``root`` or absolute inside it; every path goes through
    :class:`toolwire.design.paths.ConfinedRoot`, so nothing outside ``root`` is read or written.
    The answer is ``apply_patch_call_output`` with ``status`` ``"completed"`` and a line saying
    what changed, or ``"failed"`` and a message the model can act on (the lines not found, the
    path that does not exist).
    """
    from toolwire.design.paths import ConfinedRoot

    from .v4a import PatchError, apply_create_diff, apply_update_diff

    base = ConfinedRoot(root)

    def apply_patch(operation: dict[str, Any]) -> str:
        kind, path, diff = operation.get("type"), operation.get("path"), operation.get("diff")
        if not isinstance(path, str) or not path:
            raise ToolError("operation.path must be a file path", hint="Send the path of the file.", retryable=False)
        try:
            if kind == "create_file":
                p = base.resolve(path)
                if p.exists():
                    raise ToolError(
                        f"{path!r} already exists",
                        hint="Send an update_file operation to change an existing file.",
                        retryable=False,
                    )
                if diff is not None and not isinstance(diff, str):
                    raise ToolError(
                        f"create_file needs operation.diff as text, got {type(diff).__name__}",
                        hint="Send the new file's lines, each starting with '+', in operation.diff.",
                        retryable=False,
                    )
                text = apply_create_diff(diff or "")
                base.resolve(str(p.parent.relative_to(base.root)) or ".")  # still inside the root
                p.parent.mkdir(parents=True, exist_ok=True)
                with open(p, "x", encoding="utf-8", newline="") as fh:
                    fh.write(text)
                return f"created {path} ({plural(len(text.splitlines()), 'line')})"
            if kind == "update_file":
                base.resolve(path, must_exist=True, kind="file")
                if not isinstance(diff, str):
                    raise ToolError("update_file needs a diff", hint="Send the V4A diff in operation.diff.")
                # opened from the root one component at a time: no symbolic link swapped in since
                # the check, and no file with a second (hard link) name outside the root
                with open(base.open_fd(path), encoding="utf-8", newline="") as fh:
                    old = fh.read()
                new = apply_update_diff(old, diff, path)
                with open(base.open_fd(path, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8", newline="") as fh:
                    fh.write(new)
                return f"updated {path} ({len(old.splitlines())} -> {plural(len(new.splitlines()), 'line')})"
            if kind == "delete_file":
                p = base.resolve(path, must_exist=True, kind="file")  # what it names is inside the root
                # a symbolic link is removed itself, never the file it points to
                folder = base.resolve(os.path.dirname(path.rstrip("/")) or ".", must_exist=True, kind="dir")
                link = folder / os.path.basename(path.rstrip("/"))
                if link.is_symlink():
                    link.unlink()
                    return f"deleted the link {path}"
                p.unlink()
                return f"deleted {path}"
        except PatchError as exc:
            raise ToolError(str(exc), retryable=False) from None
        except UnicodeDecodeError:
            raise ToolError(f"{path!r} is not UTF-8 text", hint="Patch text files only.", retryable=False) from None
        except OSError as exc:
            raise ToolError(f"cannot change {path!r}: {exc.strerror or exc}", retryable=False) from None
        raise ToolError(
            f"operation.type {kind!r} is not one of create_file, update_file, delete_file",
            hint="Send one of the three operations.",
            retryable=False,
        )

    return ProviderTool("openai", "apply_patch", function=apply_patch)


def _screenshot(value: Any) -> ImagePart:
    """The screenshot a computer function returned: PNG ``bytes``, an :class:`ImagePart`, or a
    ``data:`` / ``https:`` URL string."""
    if isinstance(value, ImagePart):
        return value
    if isinstance(value, (bytes, bytearray)):
        media = "image/jpeg" if bytes(value[:3]) == b"\xff\xd8\xff" else "image/png"
        return ImagePart(data=bytes(value), media_type=media)
    if isinstance(value, str) and value.startswith(("data:", "https:", "http:")):
        return ImagePart(url=value)
    raise ToolError(
        f"the computer function returned {type(value).__name__}, not a screenshot",
        hint="Return the screenshot as PNG bytes, an ImagePart or a data: URL.",
        retryable=False,
    )


def computer(
    function: Callable[[dict[str, Any]], Any],
    *,
    type: str = "computer",
    display_width: int | None = None,
    display_height: int | None = None,
    environment: str | None = None,
    acknowledge: Callable[[list[dict[str, Any]]], Any] | None = None,
) -> ProviderTool:
    """The Responses computer-use tool (``type`` ``"computer"``, ``ComputerToolParam``, or
    ``"computer_use_preview"``, ``ComputerUsePreviewToolParam``, which needs ``display_width``,
    ``display_height`` in pixels and ``environment``: ``"browser"``, ``"mac"``, ``"windows"``,
    ``"linux"`` or ``"ubuntu"``).

    ``function(action)`` performs one action (``ResponseComputerToolCall`` action objects:
    ``{"type": "click", "x", "y", "button"}``, ``"double_click"``, ``"drag"``, ``"keypress"``,
    ``"move"``, ``"screenshot"``, ``"scroll"``, ``"type"``, ``"wait"``), sync or async, and
    returns the screenshot after it (PNG ``bytes``, an :class:`~toolwire.types.ImagePart` or a
    ``data:`` URL; ``None`` for an action of a batch other than the last). A batched call
    (``actions``) runs each in order; when the last returns no screenshot, ``function`` is called
    with ``{"type": "screenshot"}``. If an action raises, the answer is the screen after it (a
    screenshot action) with the error as text.

    Safety checks: a call with ``pending_safety_checks`` waits for approval (the run stops with a
    ``PendingCall`` naming the checks; resume with ``Approved()`` or ``Denied(reason)``) unless
    ``acknowledge(checks)`` (sync or async) returns true (a ``Denied`` is no acknowledgement;
    an ``acknowledge`` that raises leaves the call waiting, with the error as its reason). Only an approved call runs, and only its answer carries
    ``acknowledged_safety_checks``.
    """
    import inspect

    settings: dict[str, Any] = {}
    if type == "computer_use_preview":
        settings = {"display_width": display_width, "display_height": display_height, "environment": environment}
        missing = [k for k, v in settings.items() if v is None]
        if missing:
            from toolwire.errors import ConfigurationError

            raise ConfigurationError(
                f"computer(type='computer_use_preview') needs {', '.join(missing)} "
                "(ComputerUsePreviewToolParam: display_width and display_height in pixels, environment)"
            )
    is_async = inspect.iscoroutinefunction(function)

    async def act(a: dict[str, Any]) -> Any:
        value = function(a)
        return await value if is_async or inspect.isawaitable(value) else value

    async def run(action: dict[str, Any] | None = None, actions: list[dict[str, Any]] | None = None) -> Any:
        steps = list(actions) if actions is not None else ([action] if action is not None else [])
        if not steps or not all(isinstance(s, dict) for s in steps):
            raise ToolError("the computer call has no action", hint="Send an action object.", retryable=False)
        shot: Any = None
        for step in steps:
            try:
                shot = await act(step)
            except ToolError:
                raise
            except Exception as exc:  # the action failed: show the screen as it is now
                image = _screenshot(await act({"type": "screenshot"}))
                what = step.get("type")
                return [TextPart(f"the {what!r} action failed: {exc.__class__.__name__}: {exc}"), image]
        if shot is None:
            shot = await act({"type": "screenshot"})
        return _screenshot(shot)

    tool = ProviderTool("openai", type, settings or None, function=run)

    async def needs_approval(call: Any) -> str | None:
        item = (call.provider_data.get("openai") or {}).get("client_item") or {}
        checks = item.get("pending_safety_checks") if isinstance(item, dict) else None
        if not isinstance(checks, list) or not checks:
            return None
        # each check is a PendingSafetyCheck object; anything else still asks (shown as sent)
        checks = [c if isinstance(c, dict) else {"message": str(c)} for c in checks]
        if acknowledge is not None and await confirmed(acknowledge(checks)):
            return None
        said = "; ".join(f"{c.get('code') or 'check'}: {c.get('message') or ''}".strip() for c in checks)
        return f"OpenAI's safety checks ask for confirmation: {said}"

    tool.meta["requires_approval"] = needs_approval
    return tool


def mcp_server(
    server_label: str,
    *,
    server_url: str | None = None,
    approve: Callable[[dict[str, Any]], Any] | None = None,
    name: str | None = None,
    **settings: Any,
) -> ProviderTool:
    """A remote MCP server for the Responses ``mcp`` tool (``Mcp`` in
    ``openai.types.responses.tool_param``: ``server_label``, ``server_url`` or
    ``connector_id``, ``require_approval``, ``allowed_tools``, ``headers``, ... as ``settings``)
    whose approval requests toolwire answers.

    OpenAI asks before it sends data to the server (``require_approval`` defaults to asking):
    the response then holds an ``mcp_approval_request`` item, decoded as a tool call named
    ``mcp:<server_label>`` with arguments ``{"server_label", "name", "arguments"}`` (the MCP tool
    and its arguments). Without ``approve``, every such call waits for approval: the run stops
    with a ``PendingCall`` and the resume's ``Approved()`` / ``Denied(reason)`` becomes the
    ``mcp_approval_response`` (``approve`` true, or false with the reason). With ``approve``, it
    is called with the request's arguments (sync or async): true approves, false or a text denies
    (the text is the reason). ``name``: the tool's name in toolwire (default ``mcp_<label>``).
    """
    import inspect

    decl = dict(settings)
    decl["server_label"] = server_label
    if server_url is not None:
        decl["server_url"] = server_url

    async def answer(**request: Any) -> str:
        if approve is None:
            return "approved"
        value = approve(request)
        if inspect.isawaitable(value):
            value = await value
        if value is True:
            return "approved"
        reason = value if isinstance(value, str) and value else "the approve function refused it"
        raise ToolError(reason)

    tool = ProviderTool("openai", "mcp", decl, function=answer, name=name or f"mcp_{server_label}")
    tool.input_schema = {
        "type": "object",
        "properties": {"server_label": {"type": "string"}, "name": {}, "arguments": {}},
    }
    tool.meta["call_names"] = [f"mcp:{server_label}"]
    if approve is None:
        tool.meta["requires_approval"] = lambda call: (
            f"the MCP server {server_label!r} asks to run its tool {(call.arguments or {}).get('name')!r}"
        )
    return tool
