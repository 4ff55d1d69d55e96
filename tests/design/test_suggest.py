from toolwire.design.suggest import closest, did_you_mean


def test_closest():
    names = ["read_file", "list_dir", "search_files", "run_command", "edit_file"]
    assert closest("read_files", names) == ["read_file"]
    assert closest("readfile", names)[0] == "read_file"
    assert closest("zzz", names) == []
    assert closest("README", ["README.md", "src", "setup.py"]) == ["README.md"]
    assert closest("Makefile", ["makefile", "Makefile.am"])[0] == "makefile"
    assert closest("x", []) == []


def test_did_you_mean():
    assert did_you_mean("lst_dir", ["list_dir", "edit_file"]) == "Did you mean 'list_dir'?"
    assert did_you_mean("zzz", ["a"]) is None
    assert did_you_mean("edit", ["edit_file", "edit_dir"]) == "Did you mean 'edit_dir' or 'edit_file'?"
