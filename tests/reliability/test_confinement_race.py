"""Confinement that cannot be raced: a writer thread swaps a path component between a real
file/directory inside the root and a symbolic link to outside it, while read_file, edit_file,
list_dir and search_files run against that path. Whatever the interleaving, nothing outside
the root is read, listed or written (bounded counts; no timing assertions). Hard links to files
outside the root are refused."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from toolwire.design.files import file_tools
from toolwire.design.paths import ConfinedRoot
from toolwire.errors import ToolError

pytestmark = pytest.mark.skipif(os.name != "posix" or not hasattr(os, "O_NOFOLLOW"), reason="POSIX no-follow opens")

ROUNDS = 400
SECRET = "SECRET-OUTSIDE-THE-ROOT"


@pytest.fixture
def world(tmp_path: Path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (outside / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside one\n")
    (root / "f.txt").write_text("inside one\n")
    (outside / "d" / "f.txt").write_text(SECRET + " one\n")
    (outside / "d" / "only-outside.txt").write_text(SECRET + "\n")
    (outside / "secret.txt").write_text(SECRET + " one\n")
    return root, outside


def _exchange():
    """``renameat2(RENAME_EXCHANGE)`` (Linux): swaps two names atomically, so the path is always
    either the real entry or the link, never missing; ``None`` where it is not available."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    AT_FDCWD, RENAME_EXCHANGE = -100, 2

    def exchange(a: Path, b: Path) -> None:
        if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")

    return exchange


class Swapper(threading.Thread):
    """Swaps ``name`` (a file or directory in the root) with a symbolic link to ``target`` and
    back, until stopped (at most ``limit`` swaps): atomically where ``renameat2`` exists, else by
    rename and symlink."""

    def __init__(self, root: Path, name: str, target: Path, limit: int = 200_000) -> None:
        super().__init__(daemon=True)
        self.path, self.hold, self.target = root / name, root / f".{name}.hold", target
        self.stop = threading.Event()
        self.swaps = 0
        self.limit = limit
        self.exchange = _exchange()
        if self.exchange is not None:
            self.link = root / f".{name}.link"
            os.symlink(target, self.link)

    def run(self) -> None:
        while not self.stop.is_set() and self.swaps < self.limit:
            if self.exchange is not None:
                self.exchange(self.path, self.link)  # now the link
                self.exchange(self.path, self.link)  # now the real entry again
            else:
                os.rename(self.path, self.hold)
                os.symlink(self.target, self.path)
                os.unlink(self.path)
                os.rename(self.hold, self.path)
            self.swaps += 1

    def __enter__(self) -> Swapper:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join(30)
        assert not self.is_alive()


def attempt(fn, **kw) -> str:
    try:
        return "ok:" + fn(**kw)
    except ToolError as exc:
        return "refused:" + exc.render()


def test_reads_never_escape_while_a_file_is_swapped_for_a_link(world):
    root, outside = world
    tools = {t.name: t.function for t in file_tools(root)}
    with Swapper(root, "f.txt", outside / "secret.txt") as sw:
        outcomes = [attempt(tools["read_file"], path="f.txt") for _ in range(ROUNDS)]
    assert not [o for o in outcomes if SECRET in o]
    ok = sum(o.startswith("ok:") for o in outcomes)
    print(f"\nread_file vs file swap: {ok} read inside, {ROUNDS - ok} refused, {sw.swaps} swaps")
    assert ok + sum(o.startswith("refused:") for o in outcomes) == ROUNDS


def test_reads_lists_and_searches_never_escape_while_a_directory_is_swapped(world):
    root, outside = world
    tools = {t.name: t.function for t in file_tools(root)}
    with Swapper(root, "d", outside / "d") as sw:
        outcomes = []
        for _ in range(ROUNDS // 4):
            outcomes.append(attempt(tools["read_file"], path="d/f.txt"))
            outcomes.append(attempt(tools["list_dir"], path="d"))
            outcomes.append(attempt(tools["search_files"], pattern="SECRET|inside", path="d"))
            outcomes.append(attempt(tools["list_dir"], path="."))
    leaked = [o for o in outcomes if SECRET in o or "only-outside" in o]
    assert leaked == []
    print(
        f"\nread/list/search vs directory swap: {sum(o.startswith('ok:') for o in outcomes)} ok of {len(outcomes)}, {sw.swaps} swaps"
    )


def test_edits_never_write_outside_while_the_path_is_swapped(world):
    root, outside = world
    tools = {t.name: t.function for t in file_tools(root)}
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    words = ["one", "two"]
    done = 0
    with Swapper(root, "d", outside / "d"), Swapper(root, "f.txt", outside / "secret.txt"):
        for i in range(ROUNDS // 2):
            for path in ("d/f.txt", "f.txt"):
                out = attempt(
                    tools["edit_file"],
                    path=path,
                    old_text=f"inside {words[i % 2]}",
                    new_text=f"inside {words[(i + 1) % 2]}",
                )
                assert SECRET not in out
                done += out.startswith("ok:")
    after = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    assert after == before
    print(f"\nedit_file vs swaps: {done} edits made inside, outside unchanged")


def test_hard_links_to_outside_files_are_refused(world):
    root, outside = world
    os.link(outside / "secret.txt", root / "hard.txt")
    tools = {t.name: t.function for t in file_tools(root)}
    for fn, kw in (
        (tools["read_file"], {"path": "hard.txt"}),
        (tools["edit_file"], {"path": "hard.txt", "old_text": "one", "new_text": "two"}),
    ):
        with pytest.raises(ToolError) as info:
            fn(**kw)
        assert (
            info.value.message
            == "path 'hard.txt' is a file with 2 hard links; a hard link can name a file outside the root directory, so it is not opened"
        )
    assert "hard.txt  file, 28 bytes, 2 hard links (never opened)" in tools["list_dir"](path=".")
    assert SECRET not in tools["search_files"](pattern="SECRET")
    assert (outside / "secret.txt").read_text() == SECRET + " one\n"


def test_open_fd_follows_links_inside_the_root_only(world):
    root, outside = world
    base = ConfinedRoot(root)
    (root / "rel").symlink_to("d")
    (root / "abs").symlink_to(root / "d" / "f.txt")
    (root / "up").symlink_to("d/../f.txt")
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "d" / "esc").symlink_to("../../outside/secret.txt")

    def read(path: str) -> str:
        fd = base.open_fd(path)
        try:
            return os.read(fd, 100).decode()
        finally:
            os.close(fd)

    assert read("rel/f.txt") == read("abs") == read("up") == "inside one\n"
    with pytest.raises(ToolError, match="leaves the root directory through"):
        read("d/esc")
    with pytest.raises(ToolError, match="symbolic link loop"):
        read("loop1")
    with pytest.raises(ToolError, match="leaves the root directory through '..'"):
        read("../outside/secret.txt")
    with pytest.raises(ToolError, match="outside the root"):
        read(str(outside / "secret.txt"))
    fd = base.open_fd("rel", directory=True)
    try:
        assert sorted(os.listdir(fd)) == ["esc", "f.txt"]
    finally:
        os.close(fd)
