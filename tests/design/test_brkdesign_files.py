"""The file tools and confined paths against hostile trees and paths: huge files, many entries,
names the OS cannot take (each failed before its fix)."""

import asyncio
from pathlib import Path

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
