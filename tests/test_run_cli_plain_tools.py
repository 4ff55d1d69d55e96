"""``toolwire run --tools``: a file of plain (undecorated) functions is refused with the fix in the
message, and ``file.py:name`` turns a named plain function into a tool, as ``tools=[fn]`` does."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

PLAIN = '''
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _helper() -> None:
    pass
'''


def _run(args: list[str]):
    from toolwire.cli import app, run_cmd  # noqa: F401  (run_cmd registers the command)

    return CliRunner().invoke(app, ["run", "--model", "test", *args])


def test_a_file_of_plain_functions_is_refused_with_how_to_name_them(tmp_path: Path) -> None:
    path = tmp_path / "tools.py"
    path.write_text(PLAIN)
    import typer

    from toolwire.cli.run_cmd import _load_tools_unchecked

    res = _run(["--tools", str(path), "Weather?"])
    assert res.exit_code == 2
    assert "defines no tools" in res.output
    try:
        _load_tools_unchecked(str(path))
    except typer.BadParameter as exc:
        said = str(exc)
    else:
        raise AssertionError("a file of plain functions was accepted")
    assert said == (
        f"'{path}' defines no tools: only functions decorated with @toolwire.tool are found by the file or module "
        f"name alone. Decorate them, or name them (--tools {path}:get_weather; several names separated by "
        "commas, or --tools repeated); its functions: get_weather"
    )


def test_a_named_plain_function_runs_as_a_tool(tmp_path: Path) -> None:
    path = tmp_path / "tools.py"
    path.write_text(PLAIN)
    res = _run(["--tools", f"{path}:get_weather", "Weather?"])
    assert res.exit_code == 0, res.output
    assert "get_weather: sunny in " in res.output


TWO = (
    PLAIN
    + '''

def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''
)


def _names(spec) -> list[str]:
    from toolwire.cli.run_cmd import _load_tools

    return [t.name for t in _load_tools(spec)]


def test_repeated_tools_options_add_up_and_comma_lists_name_several(tmp_path: Path) -> None:
    path = tmp_path / "weather.py"
    path.write_text(TWO)
    assert _names([f"{path}:get_weather", f"{path}:add"]) == ["get_weather", "add"]
    assert _names(f"{path}:get_weather,add") == ["get_weather", "add"]
    assert _names(f"{path}:add, get_weather") == ["add", "get_weather"]
    # through the command line: both tools are offered to the model (the test model calls each tool once)
    res = _run(["--tools", f"{path}:get_weather", "--tools", f"{path}:add", "--json", "Weather?"])
    assert res.exit_code == 0, res.output
    assert '"get_weather"' in res.output and '"add"' in res.output


def test_a_misspelt_name_lists_the_module_functions_and_the_closest_one(tmp_path: Path) -> None:
    import typer

    from toolwire.cli.run_cmd import _load_tools

    path = tmp_path / "weather.py"
    path.write_text(TWO)
    try:
        _load_tools(f"{path}:get_weather,ad")
    except typer.BadParameter as exc:
        said = str(exc)
    else:
        raise AssertionError("a misspelt tool name was accepted")
    assert said == (
        f"module '{path}' has no attribute 'ad'; did you mean 'add'? Its tools and functions: get_weather, add."
    )
    res = _run(["--tools", f"{path}:ad", "Weather?"])
    assert res.exit_code == 2 and "did you mean 'add'?" in res.output


def test_cli_messages_for_a_missing_name_or_file_read_as_sentences(tmp_path: Path, capsys) -> None:
    """A new user's findings: a name with no close match ran into the list ("has no attribute
    'nope' Its tools..."), the line began with click's "Invalid value:", and a misspelt file got
    no suggestion."""
    import pytest

    from toolwire.cli import main

    path = tmp_path / "weather.py"
    path.write_text(TWO)
    with pytest.raises(SystemExit) as info:
        main(["run", "--model", "test", "--tools", f"{path}:nope", "Weather?"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith(f"toolwire run: module '{path}' has no attribute 'nope'. Its tools and functions: ")
    with pytest.raises(SystemExit):
        main(["run", "--model", "test", "--tools", str(tmp_path / "weathr.py"), "Weather?"])
    err = capsys.readouterr().err
    assert "Invalid value" not in err and "no such file:" in err and "did you mean 'weather.py'?" in err
