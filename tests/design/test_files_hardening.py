"""The file tools against what a real tree holds: special files, link loops, links out of the
root, CRLF and non-UTF-8 files, huge or never-ending program output, background processes."""

import asyncio
import os
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

from toolwire.design.files import OUTPUT_CHAR_CAP, _NotRegular, _open_regular, file_tools
from toolwire.design.paths import ConfinedRoot
from toolwire.errors import ToolError

# a per-process offset for the sleep durations below: concurrent test runs never match each other's processes
_U = 3700 + (os.getpid() % 50000) * 100

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, process groups and /proc are POSIX")


def call(t, **args):
    return asyncio.run(t.call(args))


def call_guarded(t, **args):
    """Run a call on a thread so that a regression that blocks (opening a FIFO waits for a
    writer forever) fails the test instead of hanging the suite."""
    box: dict = {}

    def go():
        try:
            box["value"] = call(t, **args)
        except BaseException as exc:
            box["error"] = exc

    th = threading.Thread(target=go, daemon=True)
    th.start()
    th.join(60)
    assert not th.is_alive(), f"{t.name}{args} blocked (it opened a special file)"
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    r.mkdir()
    (r / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "secret.txt").write_text("s" * 1234 + "\n")
    return r


def tools_of(root: Path, **kw):
    return {t.name: t for t in file_tools(root, **kw)}


def assert_no_abs(text: str, root: Path) -> None:
    assert str(root.parent) not in text and str(root.resolve().parent) not in text, text


# -- special files ---------------------------------------------------------------------------


@posix_only
def test_fifo_is_listed_by_kind_and_never_opened(root: Path):
    os.mkfifo(root / "pipe")
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / "events")
    (root / "sub" / "notes.txt").write_text("pipe dreams\n")
    t = tools_of(root)
    out = call_guarded(t["list_dir"])
    assert out.splitlines() == [
        ".: 1 directory, 1 file, 1 other entry, 11 bytes in files",
        "sub/  dir, 2 entries",
        "a.txt  file, 11 bytes, 2 lines",
        "pipe  named pipe (FIFO), never opened",
    ]
    with pytest.raises(ToolError) as ei:
        call_guarded(t["read_file"], path="pipe")
    assert (
        ei.value.message
        == "path 'pipe' is a named pipe (FIFO), not a regular file; it is never opened, since reading it could block or have side effects"
    )
    # search walks past the FIFO and reads the regular file next to it
    assert call_guarded(t["search_files"], pattern="pipe").splitlines() == [
        "1 match in 1 file",
        "sub/notes.txt:1: pipe dreams",
    ]
    with pytest.raises(ToolError, match="is a named pipe \\(FIFO\\), not a file or directory"):
        call_guarded(t["search_files"], pattern="x", path="sub/events")
    with pytest.raises(ToolError, match="named pipe"):
        call_guarded(t["edit_file"], path="pipe", old_text="a", new_text="b")
    with pytest.raises(ToolError, match="is a named pipe \\(FIFO\\), not a directory"):
        call_guarded(t["list_dir"], path="pipe")


@posix_only
def test_open_regular_decides_on_the_opened_descriptor(root: Path):
    # the check is made on what was opened (fstat), so a name swapped for a FIFO after a stat
    # still is not read; O_NONBLOCK makes the open itself return at once
    os.mkfifo(root / "p")
    with pytest.raises(_NotRegular) as ei:
        _open_regular(ConfinedRoot(root), root / "p")
    assert ei.value.kind == "named pipe (FIFO)"
    with _open_regular(ConfinedRoot(root), root / "a.txt") as f:
        assert f.read() == b"alpha\nbeta\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="creating a device node needs root")
def test_character_device_inside_root(root: Path):
    os.mknod(root / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    t = tools_of(root)
    assert "null  character device, never opened" in call_guarded(t["list_dir"]).splitlines()
    with pytest.raises(ToolError, match="is a character device, not a regular file"):
        call_guarded(t["read_file"], path="null")


# -- links -------------------------------------------------------------------------------------


def test_link_loops_are_listed_not_raised(root: Path):
    os.symlink(root / "l1", root / "l2")
    os.symlink(root / "l2", root / "l1")
    os.symlink("self", root / "self")
    t = tools_of(root)
    out = call_guarded(t["list_dir"])
    assert out.splitlines() == [
        ".: 0 directories, 1 file, 3 other entries, 11 bytes in files",
        "a.txt  file, 11 bytes, 2 lines",
        "l1  link loop (links that point at each other; not followed)",
        "l2  link loop (links that point at each other; not followed)",
        "self  link loop (links that point at each other; not followed)",
    ]
    for name, tool_name, extra in (
        ("l1", "read_file", {}),
        ("self/x.txt", "read_file", {}),
        ("l2", "edit_file", {"old_text": "a", "new_text": "b"}),
    ):
        with pytest.raises(ToolError) as ei:
            call(t[tool_name], path=name, **extra)
        assert "symbolic link loop" in ei.value.message and "list_dir" in ei.value.hint
        assert_no_abs(ei.value.render(), root)
    assert call(t["search_files"], pattern="beta").splitlines() == ["1 match in 1 file", "a.txt:2: beta"]


def test_links_out_of_the_root_show_no_metadata(root: Path, tmp_path: Path):
    outside_dir = tmp_path / "elsewhere"
    outside_dir.mkdir()
    for i in range(7):
        (outside_dir / f"f{i}").write_text("x\n")
    os.symlink(tmp_path / "secret.txt", root / "p")
    os.symlink(outside_dir, root / "e")
    os.symlink("a.txt", root / "inside")
    os.symlink("gone.txt", root / "dangling")
    t = tools_of(root)
    out = call_guarded(t["list_dir"])
    assert out.splitlines() == [
        ".: 0 directories, 2 files, 3 other entries, 22 bytes in files",
        "a.txt  file, 11 bytes, 2 lines",
        "dangling  broken link (its target does not exist)",
        "e  link to outside the root (not followed)",
        "inside  file, 11 bytes, 2 lines, link to a.txt",
        "p  link to outside the root (not followed)",
    ]
    assert "1,235" not in out and "7 entries" not in out
    assert_no_abs(out, root)
    with pytest.raises(ToolError, match="broken symbolic link"):
        call(t["read_file"], path="dangling")
    # search never reads through the links out of the root
    assert call(t["search_files"], pattern="sss", literal=True).startswith(
        "No matches for 'sss' in . (2 text files searched)"
    )


# -- other OS errors -------------------------------------------------------------------------


def test_os_errors_become_tool_errors_without_the_root(root: Path):
    t = tools_of(root)
    for name in ("list_dir", "read_file", "search_files", "edit_file"):
        args = {"path": "a" * 300}
        if name == "search_files":
            args["pattern"] = "x"
        if name == "edit_file":
            args.update(old_text="a", new_text="b")
        with pytest.raises(ToolError) as ei:
            call(t[name], **args)
        assert "cannot be used: File name too long" in ei.value.message and "(cut, 300 characters)" in ei.value.message
        assert_no_abs(ei.value.render(), root)


def test_run_command_nul_byte_is_a_tool_error(root: Path):
    t = tools_of(root)
    with pytest.raises(ToolError) as ei:
        call(t["run_command"], command=["echo", "a\x00b"])
    assert ei.value.message == "command[1] contains a NUL byte, which no program argument can hold"
    assert ei.value.retryable is False


# -- edit_file keeps the bytes it was not asked to change --------------------------------------


def test_edit_file_keeps_crlf(root: Path):
    t = tools_of(root)
    p = root / "crlf.txt"
    p.write_bytes(b"a\r\nx = 1\r\nb\r\n")
    out = call(t["edit_file"], path="crlf.txt", old_text="x = 1", new_text="x = 2")
    assert p.read_bytes() == b"a\r\nx = 2\r\nb\r\n"
    assert out.startswith("Replaced 1 occurrence in crlf.txt (now 3 lines). Lines 1-3 now read:")
    # old_text copied from read_file has '\n'; it is matched, and new_text written, with CRLF
    out = call(t["edit_file"], path="crlf.txt", old_text="a\nx = 2\n", new_text="a\nx = 3\ny = 4\n")
    assert p.read_bytes() == b"a\r\nx = 3\r\ny = 4\r\nb\r\n"
    assert "matched and written with the file's CRLF line endings" in out


def test_edit_file_lf_file_stays_lf(root: Path):
    t = tools_of(root)
    p = root / "lf.txt"
    p.write_bytes(b"one\ntwo\n")
    call(t["edit_file"], path="lf.txt", old_text="one\r\ntwo", new_text="uno\r\ndos")
    assert p.read_bytes() == b"uno\ndos\n"


def test_edit_file_refuses_non_utf8(root: Path):
    t = tools_of(root)
    p = root / "latin1.txt"
    p.write_bytes(b"x = 1\ncaf\xe9\n")
    with pytest.raises(ToolError) as ei:
        call(t["edit_file"], path="latin1.txt", old_text="x = 1", new_text="x = 2")
    assert ei.value.message.startswith("'latin1.txt' is not UTF-8 text (byte 0xE9 at line 2 cannot be decoded)")
    assert "run_command" in ei.value.hint and ei.value.retryable is False
    assert p.read_bytes() == b"x = 1\ncaf\xe9\n"


def test_edit_file_counts_overlapping_and_same_line_matches(root: Path):
    t = tools_of(root)
    p = root / "braces.txt"
    p.write_bytes(b"}\n}\n}\n")
    with pytest.raises(ToolError) as ei:
        call(t["edit_file"], path="braces.txt", old_text="}\n}", new_text="]")
    assert ei.value.message == "old_text occurs 2 times in 'braces.txt' (at lines 1, 2); some of the matches overlap"
    assert p.read_bytes() == b"}\n}\n}\n"
    (root / "ab.txt").write_text("ab ab\nab\n")
    with pytest.raises(ToolError) as ei:
        call(t["edit_file"], path="ab.txt", old_text="ab", new_text="x")
    assert ei.value.message == "old_text occurs 3 times in 'ab.txt' (at lines 1 (2 matches), 2)"
    (root / "aaa.txt").write_text("aaa\n")
    with pytest.raises(ToolError) as ei:
        call(t["edit_file"], path="aaa.txt", old_text="aa", new_text="b")
    assert (
        ei.value.message == "old_text occurs 2 times in 'aaa.txt' (at line 1 (2 matches)); some of the matches overlap"
    )


def test_edit_file_snippet_after_deleting(root: Path):
    t = tools_of(root)
    (root / "one.txt").write_text("only line\n")
    assert (
        call(t["edit_file"], path="one.txt", old_text="only line\n", new_text="")
        == "Replaced 1 occurrence in one.txt; the file is now empty."
    )
    assert (root / "one.txt").read_bytes() == b""
    (root / "tail.txt").write_text("1\n2\n3\n4\n5\n")
    out = call(t["edit_file"], path="tail.txt", old_text="4\n5\n", new_text="")
    assert out == "Replaced 1 occurrence in tail.txt (now 3 lines). Lines 1-3 now read:\n1| 1\n2| 2\n3| 3"


# -- run_command -------------------------------------------------------------------------------


def test_run_command_caps_characters_of_one_long_line(root: Path):
    t = tools_of(root)
    out = call(t["run_command"], command=[sys.executable, "-c", "print('x' * 1_000_000); print('y' * 10, end='')"])
    lines = out.split("\n")
    assert lines[:3] == [
        "exit code: 0",
        "--- stdout ---",
        f"[... cut: showing the end, 2 of 2 lines and {OUTPUT_CHAR_CAP:,} of 1,000,011 characters "
        f"(the cap is 200 lines and {OUTPUT_CHAR_CAP:,} characters)]",
    ]
    assert lines[3] == "x" * (OUTPUT_CHAR_CAP - 11) and lines[4] == "y" * 10
    assert len(out) < OUTPUT_CHAR_CAP + 300


def test_run_command_line_cap_states_totals(root: Path):
    t = tools_of(root)
    out = call(t["run_command"], command=[sys.executable, "-c", "for i in range(1, 501): print(i)"])
    lines = out.split("\n")
    assert (
        lines[2]
        == f"[... cut: showing the end, 200 of 500 lines and 799 of 1,892 characters (the cap is 200 lines and {OUTPUT_CHAR_CAP:,} characters)]"
    )
    assert lines[3] == "301" and lines[202] == "500" and lines[203] == "--- stderr ---"


def _alive(marker: str) -> list[int]:
    """PIDs of live (not zombie) processes whose command line contains ``marker``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\x00", b" ").decode()
            st = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        if marker in cmd and st[st.rfind(")") + 2] not in "ZX":
            out.append(int(d))
    return out


def _none_alive(marker: str, deadline: float = 30.0) -> list[int]:
    """``[]`` once no live process's command line contains ``marker`` (polled: a process killed
    with SIGKILL may still be running its exit on a loaded machine); else the live PIDs."""
    end = time.monotonic() + deadline
    while True:
        pids = _alive(marker)
        if not pids or time.monotonic() > end:
            return pids
        time.sleep(0.05)


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="counts processes through /proc")


@posix_only
@needs_proc
def test_run_command_stops_background_children_it_leaves(root: Path):
    t = tools_of(root, command_timeout=60)
    out = call(t["run_command"], command=["sh", "-c", f"sleep {_U + 17} & echo started"])
    assert out.startswith("exit code: 0\nnote: the program exited but left 1 background process running (sleep (pid ")
    assert "it was stopped (SIGKILL to its process group)" in out
    assert out.endswith("--- stdout ---\nstarted\n--- stderr ---\n")
    assert _none_alive(f"sleep {_U + 17}") == []


@posix_only
@needs_proc
def test_run_command_timeout_kills_the_group_and_shows_stderr(root: Path):
    t = tools_of(root, command_timeout=60)
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen(['sleep', '{_U + 18}'])\n"
        "print('out-line', flush=True)\n"
        "print('err-line', file=sys.stderr, flush=True)\n"
        f"time.sleep({_U + 19})\n"
    )
    with pytest.raises(ToolError) as ei:
        # 10 s: time for the interpreter to start, spawn the child and print, however loaded the machine
        call(t["run_command"], command=[sys.executable, "-c", script], timeout=10)
    msg = ei.value.message
    assert msg.startswith(f"{sys.executable} -c 'import subprocess, sys, time\n")
    assert (
        "' did not finish within 10 s and was stopped (SIGKILL to its process group, which also stopped 1 other process: sleep (pid "
        in msg
    )
    assert "--- stdout (last part) ---\nout-line" in msg
    assert "--- stderr (last part) ---\nerr-line" in msg
    assert _none_alive(f"sleep {_U + 18}") == []


@posix_only
def test_run_command_reports_the_killing_signal(root: Path):
    t = tools_of(root)
    out = call(
        t["run_command"], command=[sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"]
    )
    assert out.startswith("exit code: -15 (killed by signal SIGTERM)\n")


@posix_only
@needs_proc
def test_run_command_output_held_open_outside_the_group(root: Path):
    # a process that leaves the program's session (setsid) keeps stdout open after the program
    # exits: the pipes are read only until the deadline, and the answer says so
    t = tools_of(root, command_timeout=60)
    script = f"import os, subprocess\nsubprocess.Popen(['sleep', '{_U + 21}'], start_new_session=True)\nprint('parent done')\n"
    try:
        out = call(t["run_command"], command=[sys.executable, "-c", script], timeout=10)  # time to start
    finally:
        for pid in _alive(f"sleep {_U + 21}"):
            os.kill(pid, 9)
    assert out.startswith(
        "exit code: 0\nnote: the program exited but its output stayed open (held by a process outside "
        "its process group); output after 10 s was not collected\n"
    )
    assert "--- stdout ---\nparent done\n" in out
