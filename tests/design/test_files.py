import asyncio
import sys
from pathlib import Path

import pytest

from toolwire.design.files import file_tools
from toolwire.errors import ToolError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return compute(2)\n\n\ndef compute(x):\n    return x * 21\n")
    (root / "big.log").write_text("".join(f"event {i}\n" for i in range(1, 1001)))
    (root / "data.bin").write_bytes(b"\x00\x01\x02" * 100)
    (root / "report.py").write_text(
        "import sys\nfrom src.app import main\nprint('answer', main())\nprint('warn: slow', file=sys.stderr)\nsys.exit(3)\n"
    )
    (root / "src" / "__init__.py").write_text("")
    (tmp_path / "outside.txt").write_text("secret\n")
    return root


@pytest.fixture
def tools(project: Path):
    return {t.name: t for t in file_tools(project, read_cap_lines=100, command_timeout=20)}


def call(t, **args):
    return asyncio.run(t.call(args))


def test_names_and_order(tools):
    assert list(tools) == ["list_dir", "read_file", "search_files", "run_command", "edit_file"]
    assert tools["read_file"].meta["cap"] == {"unit": "lines", "size": 100, "offset": "offset", "limit": "limit"}
    assert tools["read_file"].input_schema["properties"]["limit"]["maximum"] == 100


def test_list_dir_sizes_and_counts(tools):
    out = call(tools["list_dir"])
    lines = out.splitlines()
    # big.log: 1000 lines of "event N\n" = 9,893 bytes; data.bin 300; report.py 109
    assert lines[0] == ".: 1 directory, 3 files, 10,302 bytes (10 KiB) in files"
    assert "src/  dir, 2 entries" in lines
    assert "big.log  file, 9,893 bytes (9.7 KiB), 1,000 lines" in lines
    assert "data.bin  file, 300 bytes, binary" in lines
    out = call(tools["list_dir"], path="src")
    assert "src/app.py  file, 70 bytes, 6 lines" in out.splitlines()
    with pytest.raises(ToolError, match="is a file, not a directory"):
        call(tools["list_dir"], path="big.log")


def test_read_file_paging(tools):
    out = call(tools["read_file"], path="big.log")
    assert out.splitlines()[0] == "  1| event 1"
    assert (
        out.splitlines()[-1]
        == "[Showing lines 1-100 of 1,000. To read on, call read_file again with offset=101 (limit up to 100).]"
    )
    out = call(tools["read_file"], path="big.log", offset=995, limit=10)
    assert out.splitlines() == [f"{i:>4}| event {i}" for i in range(995, 1001)]
    with pytest.raises(ToolError) as ei:
        call(tools["read_file"], path="big.log", offset=2000)
    assert "past the end" in ei.value.message and "1,000 lines" in ei.value.message


def test_read_file_errors(tools):
    with pytest.raises(ToolError) as ei:
        call(tools["read_file"], path="src/ap.py")
    assert ei.value.valid_values == ["src/app.py"] and "list_dir" in ei.value.hint
    with pytest.raises(ToolError, match="binary file"):
        call(tools["read_file"], path="data.bin")
    with pytest.raises(ToolError, match="is a directory"):
        call(tools["read_file"], path="src")
    with pytest.raises(ToolError, match="leaves the root"):
        call(tools["read_file"], path="../outside.txt")


def test_search_files(tools):
    out = call(tools["search_files"], pattern=r"def \w+")
    assert out.splitlines() == ["2 matches in 1 file", "src/app.py:1: def main():", "src/app.py:5: def compute(x):"]
    out = call(tools["search_files"], pattern="event 1", literal=True, max_matches=3)
    assert out.splitlines()[0] == "showing 3 of 112 matches in 1 file"
    assert "[Matches per file: big.log: 112." in out and "max_matches" in out
    assert call(tools["search_files"], pattern="nothing here").startswith("No matches for 'nothing here'")
    with pytest.raises(ToolError) as ei:
        call(tools["search_files"], pattern="compute(")
    assert "not a valid regular expression" in ei.value.message and "literal=true" in ei.value.hint
    assert call(tools["search_files"], pattern="compute(", literal=True).splitlines()[0] == "2 matches in 1 file"


def test_run_command_real_exit_code_and_streams(tools):
    out = call(tools["run_command"], command=["python", "report.py"])
    assert out == "exit code: 3\n--- stdout ---\nanswer 42\n--- stderr ---\nwarn: slow"


def test_run_command_timeout_and_refusals(project: Path):
    (project / "sleepy.py").write_text("import time\nprint('started', flush=True)\ntime.sleep(30)\n")
    t = {x.name: x for x in file_tools(project, command_timeout=20, allowed_commands=["python"])}
    with pytest.raises(ToolError) as ei:
        call(t["run_command"], command=["python", "sleepy.py"], timeout=10)  # time to start and print
    assert "did not finish within 10 s" in ei.value.message and "started" in ei.value.message
    with pytest.raises(ToolError) as ei:
        call(t["run_command"], command=["pyhton", "report.py"])
    assert ei.value.valid_values == ["python"] and "Did you mean 'python'?" in ei.value.hint
    t2 = {x.name: x for x in file_tools(project)}
    with pytest.raises(ToolError, match="not found on PATH"):
        call(t2["run_command"], command=["no-such-program-xyz"])


def test_run_command_runs_in_root_without_shell(tools, project: Path):
    out = call(tools["run_command"], command=[sys.executable, "-c", "import os; print(os.getcwd())"])
    assert out.splitlines()[2] == str(project.resolve())
    out = call(tools["run_command"], command=["python", "-c", "import sys; print(sys.argv[1:])", "a b", "$HOME", "*"])
    assert "['a b', '$HOME', '*']" in out


def test_edit_file(tools, project: Path):
    out = call(
        tools["edit_file"], path="src/app.py", old_text="    return x * 21\n", new_text="    return x * 20 + x\n"
    )
    assert out.startswith("Replaced 1 occurrence in src/app.py (now 6 lines).")
    assert "6|     return x * 20 + x" in out
    assert (project / "src" / "app.py").read_text().endswith("return x * 20 + x\n")
    # the report still prints 42: commands are never reused
    assert "answer 42" in call(tools["run_command"], command=["python", "report.py"])
    # the same edit again: old text gone, new text there -> says it looks applied
    with pytest.raises(ToolError) as ei:
        call(tools["edit_file"], path="src/app.py", old_text="    return x * 21\n", new_text="    return x * 20 + x\n")
    assert "already is (line 6)" in ei.value.message and "offset=6" in ei.value.hint


def test_edit_file_missing_and_ambiguous(tools):
    with pytest.raises(ToolError) as ei:
        call(tools["edit_file"], path="src/app.py", old_text="def computer(y):", new_text="x")
    assert ei.value.message == "old_text was not found in 'src/app.py'"
    assert "The closest text is at line 5:\n5| def compute(x):" in ei.value.hint
    with pytest.raises(ToolError) as ei:
        call(tools["edit_file"], path="src/app.py", old_text="return", new_text="yield")
    assert ei.value.message == "old_text occurs 2 times in 'src/app.py' (at lines 2, 6)"
    assert "surrounding lines" in ei.value.hint
