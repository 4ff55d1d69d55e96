import os
from pathlib import Path

import pytest

from toolwire import tool
from toolwire.design.paths import PATH_DESCRIPTION, ConfinedPath, ConfinedRoot, confined, confined_path
from toolwire.errors import ToolDefinitionError, ToolError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# readme\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


def _err(root: ConfinedRoot, path, **kw) -> ToolError:
    with pytest.raises(ToolError) as ei:
        root.resolve(path, **kw)
    return ei.value


def test_inside_paths_resolve(tree: Path):
    r = ConfinedRoot(tree)
    assert r.resolve("src/app.py") == (tree / "src" / "app.py").resolve()
    assert r.resolve(".") == tree.resolve()
    assert r.resolve("") == tree.resolve()
    assert r.resolve("src/../README.md") == (tree / "README.md").resolve()  # '..' that stays inside is fine
    assert r.resolve(str(tree / "README.md")) == (tree / "README.md").resolve()  # absolute inside the root
    assert r.relative(r.resolve("src/app.py")) == "src/app.py"


def test_dotdot_escape(tree: Path):
    r = ConfinedRoot(tree)
    for p in ("../secret.txt", "src/../../secret.txt", "./src/../../../etc/passwd"):
        e = _err(r, p)
        assert "leaves the root directory through '..'" in e.message
        assert e.retryable is False and "relative to the root" in e.hint


def test_absolute_outside(tree: Path):
    r = ConfinedRoot(tree)
    e = _err(r, str(tree.parent / "secret.txt"))
    assert "absolute path outside the root" in e.message
    assert "relative to the root" in e.hint
    assert "absolute path outside" in _err(r, "/etc/passwd").message


def test_symlink_leading_out(tree: Path):
    (tree / "link_out").symlink_to(tree.parent / "secret.txt")
    (tree / "dir_out").symlink_to(tree.parent, target_is_directory=True)
    (tree / "link_in").symlink_to(tree / "README.md")
    r = ConfinedRoot(tree)
    assert "symbolic link that leads outside" in _err(r, "link_out").message
    assert "symbolic link that leads outside" in _err(r, "dir_out/secret.txt").message
    assert r.resolve("link_in") == (tree / "README.md").resolve()  # a link that stays inside is fine


def test_nul_byte_and_non_string(tree: Path):
    r = ConfinedRoot(tree)
    assert "NUL byte" in _err(r, "src/app.py\x00.txt").message
    assert "must be a string" in _err(r, 42).message


def test_missing_with_did_you_mean(tree: Path):
    r = ConfinedRoot(tree)
    e = _err(r, "src/ap.py", must_exist=True, missing_hint="Call list_dir to see the names.")
    assert e.message == "path 'src/ap.py' does not exist"
    assert e.valid_values == ["src/app.py"]
    assert e.hint.startswith("Did you mean 'src/app.py'?") and e.hint.endswith("Call list_dir to see the names.")
    e = _err(r, "README.md", kind="dir")
    assert "is a file, not a directory" in e.message


def test_root_must_be_a_directory(tmp_path: Path):
    with pytest.raises(ToolDefinitionError):
        ConfinedRoot(tmp_path / "nope")


def test_in_a_tool_signature(tree: Path):
    docs = confined_path(tree)

    @tool
    @confined
    def line_count(path: docs) -> int:
        """Count the lines of one text file. Use it before reading a file whole."""
        return len(path.read_text().splitlines())

    assert line_count.input_schema == {
        "type": "object",
        "properties": {"path": {"type": "string", "description": PATH_DESCRIPTION}},
        "required": ["path"],
    }
    assert line_count(path="src/app.py") == 1
    with pytest.raises(ToolError, match="leaves the root"):
        line_count(path="../secret.txt")

    @tool
    @confined(root=tree, must_exist=True)
    def size(path: ConfinedPath) -> int:
        """Size of a file in bytes. Use it before reading a large file.

        Args:
            path: File relative to the project root.
        """
        return path.stat().st_size

    assert size.input_schema["properties"]["path"]["description"] == "File relative to the project root."
    assert size(path="README.md") == 9
    with pytest.raises(ToolError, match="does not exist"):
        size(path="READ.md")

    with pytest.raises(ToolDefinitionError, match="no root was given"):

        @confined
        def bad(path: ConfinedPath) -> int:
            return 0


def test_async_tool_with_confined_path(tree: Path):
    import asyncio

    docs = confined_path(tree)

    @tool
    @confined
    async def first_line(path: docs) -> str:
        """First line of a text file. Use it to peek at a file before reading it."""
        return path.read_text().splitlines()[0]

    assert asyncio.run(first_line.call({"path": "README.md"})) == "# readme"
    with pytest.raises(ToolError):
        asyncio.run(first_line.call({"path": os.sep + "etc" + os.sep + "hostname"}))
