"""Names a model cannot write back exactly — bytes that are not UTF-8 (listed with U+FFFD, as every
text sent to a model has them) and a Unicode normal form other than the one the model writes — are
reached by the name as the model writes it, through ConfinedRoot and the file toolset."""

from __future__ import annotations

import asyncio
import os
import unicodedata
from pathlib import Path

import pytest

from toolwire.design.files import file_tools
from toolwire.design.paths import ConfinedRoot
from toolwire.errors import ToolError
from toolwire.executor import ToolExecutor
from toolwire.types import ToolCall

NOT_UTF8 = b"caf\xe9.txt"  # Latin-1, as an old archive holds it
NFD = unicodedata.normalize("NFD", "résumé.txt")  # as macOS tools write it


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    Path(os.fsdecode(os.path.join(os.fsencode(root), NOT_UTF8))).write_text("latin name\n")
    (root / NFD).write_text("decomposed name\n")
    sub = os.path.join(os.fsencode(root), b"d\xe9p")
    os.mkdir(sub)
    Path(os.fsdecode(os.path.join(sub, b"inner.txt"))).write_text("inner\n")
    return root


def _call(root: Path, name: str, **arguments: object) -> tuple[bool, str]:
    tools = {t.name: t for t in file_tools(root)}

    async def go() -> tuple[bool, str]:
        run = await ToolExecutor(tools, run_id="r").run_call(ToolCall(id="1", name=name, arguments=arguments), 0)
        return run.result.is_error, run.result.text

    return asyncio.run(go())


def test_resolve_and_open_fd_take_the_name_as_a_model_writes_it(tree: Path) -> None:
    """Before: "path 'caf\\ufffd.txt' does not exist / Did you mean 'caf\\\\udce9.txt'?" for a name
    the model can never send (a lone surrogate is sent to it as U+FFFD, and its own are read as
    U+FFFD), and 'résumé.txt' (composed) missed the decomposed file it looks the same as."""
    r = ConfinedRoot(tree)
    latin = Path(os.fsdecode(os.path.join(os.fsencode(tree), NOT_UTF8))).resolve()
    assert r.resolve("caf\ufffd.txt", must_exist=True) == latin
    assert r.resolve("résumé.txt", must_exist=True) == (tree / NFD).resolve()
    assert r.resolve("d\ufffdp/inner.txt", must_exist=True, kind="file").read_text() == "inner\n"
    for name, text in (("caf\ufffd.txt", b"latin name\n"), ("résumé.txt", b"decomposed name\n")):
        fd = r.open_fd(name)
        try:
            assert os.read(fd, 100) == text
        finally:
            os.close(fd)


def test_a_missing_name_suggests_names_the_model_can_send(tree: Path) -> None:
    with pytest.raises(ToolError) as info:
        ConfinedRoot(tree).resolve("cafe.txt", must_exist=True)
    assert info.value.valid_values == ["caf\ufffd.txt"]
    assert "Did you mean 'caf\ufffd.txt'?" in info.value.render()


def test_two_names_the_model_cannot_tell_apart_are_not_guessed(tree: Path) -> None:
    Path(os.fsdecode(os.path.join(os.fsencode(tree), b"caf\xe8.txt"))).write_text("other\n")
    with pytest.raises(ToolError) as info:
        ConfinedRoot(tree).resolve("caf\ufffd.txt", must_exist=True)
    assert str(info.value) == "path 'caf\ufffd.txt' does not exist"


def test_the_file_tools_reach_them(tree: Path) -> None:
    assert _call(tree, "read_file", path="caf\ufffd.txt") == (False, "1| latin name\n")
    assert _call(tree, "read_file", path="résumé.txt") == (False, "1| decomposed name\n")
    assert _call(tree, "read_file", path="d\ufffdp/inner.txt") == (False, "1| inner\n")
    error, text = _call(tree, "edit_file", path="caf\ufffd.txt", old_text="latin", new_text="LATIN")
    assert not error, text
    assert Path(os.fsdecode(os.path.join(os.fsencode(tree), NOT_UTF8))).read_text() == "LATIN name\n"
    error, text = _call(tree, "search_files", pattern="inner", path="d\ufffdp")
    assert (error, text.splitlines()[0]) == (False, "1 match in 1 file")


def test_white_space_a_name_really_has_is_kept(tmp_path: Path) -> None:
    """Before, the path was stripped first: ' notes.txt' was read as 'notes.txt', missing, with the
    suggestion ' notes.txt', which was stripped again, so the file could never be reached."""
    (tmp_path / " notes.txt").write_text("leading\n")
    (tmp_path / "draft.txt ").write_text("trailing\n")
    (tmp_path / "plain.txt").write_text("plain\n")
    r = ConfinedRoot(tmp_path)
    assert r.resolve(" notes.txt", must_exist=True) == (tmp_path / " notes.txt").resolve()
    assert r.resolve("draft.txt ", must_exist=True) == (tmp_path / "draft.txt ").resolve()
    assert r.resolve("  plain.txt\n", must_exist=True) == (tmp_path / "plain.txt").resolve()  # still forgiven
    assert _call(tmp_path, "read_file", path=" notes.txt") == (False, "1| leading\n")


def test_control_characters_in_names_are_listed_escaped_and_reached_so(tmp_path: Path) -> None:
    """Before, 'new\\nline.txt' was listed over two lines (a name can forge a listing line of its
    own) and an escape sequence reached the text as it was."""
    (tmp_path / "new\nline.txt").write_text("nl\n")
    (tmp_path / "forged\nsecret.txt  file, 10 bytes, 1 line").write_text("x\n")
    (tmp_path / "esc\x1b[31mred.txt").write_text("esc\n")
    error, listing = _call(tmp_path, "list_dir", path=".")
    assert not error
    assert listing.splitlines()[1:] == [
        "esc\\x1b[31mred.txt  file, 4 bytes, 1 line",
        "forged\\nsecret.txt  file, 10 bytes, 1 line  file, 2 bytes, 1 line",
        "new\\nline.txt  file, 3 bytes, 1 line",
    ]
    assert _call(tmp_path, "read_file", path="new\\nline.txt") == (False, "1| nl\n")
    assert _call(tmp_path, "read_file", path="new\nline.txt") == (False, "1| nl\n")
    assert _call(tmp_path, "read_file", path="esc\\x1b[31mred.txt") == (False, "1| esc\n")
    error, found = _call(tmp_path, "search_files", pattern="nl")
    assert (error, found) == (False, "1 match in 1 file\nnew\\nline.txt:1: nl")


def test_a_root_that_was_removed_is_said_so_by_every_tool(tmp_path: Path) -> None:
    """Before: list_dir and search_files answered "ValueError: '/tmp/...' is not in the subpath of
    '/tmp/...'" (absolute paths, from suggestions looked for in the root's parent), read_file
    "path 'a.txt' does not exist", run_command "could not start 'ls': No such file or directory"."""
    import shutil

    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    tools = {t.name: t for t in file_tools(root)}
    shutil.rmtree(root)
    gone = (
        "the root directory of these tools no longer exists (it was removed or moved), so no path can be used\n"
        "Tell the user that the files this tool works on are gone; do not call the file tools again."
    )

    async def go(name: str, **arguments: object) -> tuple[bool, str]:
        run = await ToolExecutor(tools, run_id="r").run_call(ToolCall(id="1", name=name, arguments=arguments), 0)
        return run.result.is_error, run.result.text

    for name, arguments in (
        ("list_dir", {}),
        ("read_file", {"path": "a.txt"}),
        ("search_files", {"pattern": "a"}),
        ("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}),
        ("run_command", {"command": ["ls"]}),
    ):
        assert asyncio.run(go(name, **arguments)) == (True, gone), name
    r = ConfinedRoot(tmp_path)
    r.root = root  # (as if made before the removal)
    with pytest.raises(ToolError) as info:
        r.open_fd("a.txt")
    assert info.value.render() == gone
