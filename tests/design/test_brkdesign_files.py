"""The file tools and confined paths against hostile trees and paths: huge files, many entries,
names the OS cannot take (each failed before its fix)."""

import asyncio
from pathlib import Path
from typing import Any

import pytest

import toolwire.design.files as files_mod
from toolwire.design.files import file_tools


def call(t, **args):
    return asyncio.run(t.call(args))


def tools_of(root: Path, **kw):
    return {t.name: t for t in file_tools(root, **kw)}


def test_list_dir_opens_only_the_entries_it_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    (root / "d").mkdir(parents=True)
    for i in range(520):
        (root / "d" / f"f{i:03d}.txt").write_text("x\n" * 3)
    for i in range(3):
        (root / "d" / f"sub{i}").mkdir()
    opened: list[str] = []
    real_open = files_mod._open_regular

    def counting(base, p, write=False):
        opened.append(Path(p).name)
        return real_open(base, p, write)

    monkeypatch.setattr(files_mod, "_open_regular", counting)
    out = call(tools_of(root)["list_dir"], path="d")
    lines = out.splitlines()
    assert lines[0] == "d: 3 directories, 520 files, 3,120 bytes (3.0 KiB) in files"
    assert lines[1:4] == ["d/sub0/  dir, 0 entries", "d/sub1/  dir, 0 entries", "d/sub2/  dir, 0 entries"]
    assert lines[4] == "d/f000.txt  file, 6 bytes, 3 lines"
    assert lines[500] == "d/f496.txt  file, 6 bytes, 3 lines"
    assert lines[-1] == "[showing 500 of 523 entries; call list_dir with a subdirectory path to narrow it.]"
    assert sorted(set(opened)) == [f"f{i:03d}.txt" for i in range(497)]  # f497..f519 are not shown: never opened


def _peak_bytes(fn) -> tuple[Any, int]:
    import tracemalloc

    tracemalloc.start()
    try:
        value = fn()
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_read_file_of_a_huge_binary_file_reads_only_its_start(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    with open(root / "disk.img", "wb") as f:
        f.truncate(3 * 1024**3)  # sparse: 3 GiB of NUL bytes that take no disk space
    from toolwire.errors import ToolError

    def go():
        with pytest.raises(ToolError) as info:
            call(tools_of(root)["read_file"], path="disk.img")
        return str(info.value)

    message, peak = _peak_bytes(go)
    assert message == "'disk.img' is a binary file (3,221,225,472 bytes (3.0 GiB)); read_file shows text only"
    assert peak < 16 * 1024**2  # it used to read all 3 GiB into memory first


def test_read_file_of_a_long_file_keeps_only_the_page_in_memory(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    with open(root / "big.log", "wb") as f:
        f.write(b"a" * (40 * 1024**2) + b"\n")  # one 40 MiB line
        f.write(b"line\n" * 200_000)
    out, peak = _peak_bytes(lambda: call(tools_of(root)["read_file"], path="big.log", offset=1, limit=3))
    assert out.splitlines() == [
        "1| " + "a" * 2000 + " [... line cut at 2,000 of 41,943,040 characters]",
        "2| line",
        "3| line",
        "[Showing lines 1-3 of 200,001. To read on, call read_file again with offset=4 (limit up to 200).]",
    ]
    assert peak < 16 * 1024**2  # it used to hold the whole file, its text and a list of its lines


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64, 1 << 20])
def test_read_file_numbers_lines_as_str_splitlines_whatever_the_chunk_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    data = (
        "crlf\r\nlone cr\rvt\x0bff\x0cfs\x1cgs\x1drs\x1enel\x85ls\u2028ps\u2029é ü 漢字 😀\r\n\r\n\n\r\r\nend"
    ).encode() + b" bad \xff\xfe utf-8\r"
    (root / "t.txt").write_bytes(data)
    monkeypatch.setattr(files_mod, "_READ_CHUNK", chunk, raising=False)
    expected = data.decode("utf-8", "replace").splitlines()
    out = call(tools_of(root)["read_file"], path="t.txt", offset=1, limit=200)
    width = len(str(len(expected)))
    assert out.splitlines() == [f"{i:>{width}}| {line}" for i, line in enumerate(expected, start=1)]
    page = call(tools_of(root)["read_file"], path="t.txt", offset=12, limit=3)
    assert page.splitlines()[:3] == [f"{i}| {expected[i - 1]}" for i in range(12, 15)]
    assert (
        page.splitlines()[3]
        == f"[Showing lines 12-14 of {len(expected)}. To read on, call read_file again with offset=15 (limit up to 200).]"
    )


def test_a_name_in_the_root_that_starts_with_a_tilde_is_that_name(tmp_path: Path) -> None:
    from toolwire.design.paths import ConfinedRoot
    from toolwire.errors import ToolError

    root = tmp_path / "proj"
    root.mkdir()
    (root / "~lock.txt").write_text("held\n")
    (root / "~$report.docx").write_bytes(b"owner\n")
    base = ConfinedRoot(root)
    assert base.resolve("~lock.txt", must_exist=True) == root / "~lock.txt"
    assert base.resolve("~$report.docx", must_exist=True) == root / "~$report.docx"
    assert call(tools_of(root)["read_file"], path="~lock.txt") == "1| held\n"
    # an unknown user's home is no home: a name in the root that is missing, not a RuntimeError
    with pytest.raises(ToolError, match=r"^path '~nosuchuser_tw/x' does not exist$"):
        base.resolve("~nosuchuser_tw/x", must_exist=True)
    # the home directory itself is still outside the root
    with pytest.raises(ToolError, match="is an absolute path outside the root directory"):
        base.resolve("~/notes.txt")


@pytest.mark.parametrize("path", ["\ud800", "src/a\udfff.py"])
def test_a_path_with_a_lone_surrogate_is_a_tool_error(tmp_path: Path, path: str) -> None:
    from toolwire.design.paths import ConfinedRoot
    from toolwire.errors import ToolError

    base = ConfinedRoot(tmp_path)
    for attempt in (
        lambda: base.resolve(path),
        lambda: base.resolve(path, must_exist=True),
        lambda: base.open_fd(path),
    ):
        with pytest.raises(ToolError) as info:
            attempt()
        assert (
            str(info.value)
            == f"path {path!r} holds a character no file name can hold (a lone surrogate, U+D800-U+DFFF)"
        )


_EDIT_AT_FILE_SIZE_LIMIT = """
import asyncio, resource, signal, sys
from pathlib import Path
from toolwire.design.files import file_tools
from toolwire.errors import ToolError

root = Path(sys.argv[1])
original = (root / "f.txt").read_bytes()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (len(original) + 100, resource.RLIM_INFINITY))
edit = {t.name: t for t in file_tools(root)}["edit_file"]
try:
    asyncio.run(edit.call({"path": "f.txt", "old_text": "first\\n", "new_text": "X" * 5000 + "\\n"}))
except ToolError as exc:
    print(exc.render())
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGXFSZ"), reason="RLIMIT_FSIZE is POSIX")
def test_an_edit_whose_write_fails_part_way_leaves_the_file_unchanged(tmp_path: Path) -> None:
    import subprocess
    import sys

    original = ("first\n" + "keep me\n" * 1000).encode()
    (tmp_path / "f.txt").write_bytes(original)
    out = subprocess.run(
        [sys.executable, "-c", _EDIT_AT_FILE_SIZE_LIMIT, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "cannot write 'f.txt': File too large; the file was left unchanged",
        "The edit was not applied; tell the user (the disk may be full).",
    ]
    assert (tmp_path / "f.txt").read_bytes() == original  # it used to hold 8,106 bytes of the new text's start
