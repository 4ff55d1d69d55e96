"""The MkDocs site builds in strict mode (every warning is an error)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_docs_build_strict(tmp_path):
    if shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists():
        pytest.fail("mkdocs is not installed; it is a dev dependency (uv sync installs it)")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists()
    # each included file is in the page, and no include line is left as text (a formatter that
    # rewrites ``--8<-- "file"`` in a python block turns it into ``--8 < --"file"``)
    examples = (tmp_path / "site" / "examples" / "index.html").read_text(encoding="utf-8")
    agent = (ROOT / "examples" / "weather_agent" / "agent.py").read_text(encoding="utf-8")
    first_def = next(line for line in agent.splitlines() if line.startswith("def "))
    assert first_def.split("(")[0].split()[-1] in examples
    for page in (tmp_path / "site").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "--8 &lt; --" not in text and "--8&lt;--" not in text, page


def _blocks(page: str) -> dict[str, str]:
    """The page's python code blocks that start with a ``# <file name>`` line, by file name."""
    import re

    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    out = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        first = block.splitlines()[0]
        if first.startswith("# ") and first.endswith(".py"):
            out[first[2:]] = block
    return out


def test_quickstart_offline_test_runs_as_written(tmp_path, monkeypatch):
    blocks = _blocks("quickstart.md")
    assert set(blocks) == {"weather.py", "test_weather.py"}
    for name, code in blocks.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict = {}
    exec(compile(blocks["test_weather.py"], str(tmp_path / "test_weather.py"), "exec"), namespace)
    namespace["test_the_agent_uses_the_forecast"]()
    import weather

    assert weather.get_weather("Paris") == "Sunny in Paris for the next 1 day(s)."


def test_testing_page_canned_answers_are_valid_sdk_types_and_run(tmp_path, monkeypatch):
    blocks = _blocks("testing.md")
    code = blocks["test_canned_responses.py"]
    namespace: dict = {}
    exec(compile(code, str(tmp_path / "test_canned_responses.py"), "exec"), namespace)
    import anthropic.types
    import google.genai.types
    import openai.types.chat
    import openai.types.responses

    # each body is a valid instance of the installed SDK's response type (pydantic, extra fields allowed)
    assert anthropic.types.Message.model_validate(namespace["ANTHROPIC"]).content[0].text == "Sunny in Paris."
    chat = openai.types.chat.ChatCompletion.model_validate(namespace["OPENAI_CHAT"])
    assert chat.choices[0].message.content == "Sunny in Paris."
    assert (
        openai.types.responses.Response.model_validate(namespace["OPENAI_RESPONSES"]).output_text == "Sunny in Paris."
    )
    gemini = google.genai.types.GenerateContentResponse.model_validate(namespace["GEMINI"])
    assert gemini.text == "Sunny in Paris."
    namespace["test_each_api_answers_from_a_canned_body"]()
    namespace["test_a_streamed_answer_arrives_in_pieces"]()


def test_testing_page_two_tool_agent_runs_offline_on_each_api(tmp_path):
    code = _blocks("testing.md")["test_two_tool_agent.py"]
    namespace: dict = {}
    exec(compile(code, str(tmp_path / "test_two_tool_agent.py"), "exec"), namespace)
    import anthropic.types
    import google.genai.types
    import openai.types.chat
    import openai.types.responses

    # every canned body is a valid instance of the installed SDK's response type
    calls, final = (anthropic.types.Message.model_validate(b) for b in namespace["ANTHROPIC_STEPS"])
    assert [c.name for c in calls.content] == ["get_weather", "get_time"]
    assert final.content[0].text == namespace["FINAL"]
    calls, final = (openai.types.chat.ChatCompletion.model_validate(b) for b in namespace["OPENAI_CHAT_STEPS"])
    assert [c.function.name for c in calls.choices[0].message.tool_calls] == ["get_weather", "get_time"]
    assert final.choices[0].message.content == namespace["FINAL"]
    calls, final = (openai.types.responses.Response.model_validate(b) for b in namespace["OPENAI_RESPONSES_STEPS"])
    assert [i.name for i in calls.output] == ["get_weather", "get_time"] and final.output_text == namespace["FINAL"]
    calls, final = (google.genai.types.GenerateContentResponse.model_validate(b) for b in namespace["GEMINI_STEPS"])
    assert [c.name for c in calls.function_calls] == ["get_weather", "get_time"] and final.text == namespace["FINAL"]
    namespace["test_a_two_tool_agent_runs_offline_on_each_api"]()
    # the stepping handler refuses a request beyond its answers (a 500 the run reports, not a hang)
    respond = namespace["Stepping"]([])
    import httpx2

    assert respond(httpx2.Request("POST", "https://example.invalid", json={})).status_code == 500


def test_provider_tools_page_confined_bash_example_runs_offline(tmp_path, monkeypatch, capsys):
    """The provider-tools page's complete example (canned Messages API answers over a MockTransport)
    runs as written: the bash tool is declared, run in ``project/`` and answered."""
    import re

    text = (ROOT / "docs" / "provider-tools.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "httpx2.MockTransport" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "provider-tools.md", "exec"), {})
    out = capsys.readouterr().out
    assert "exit code: 0" in out and "Python 3." in out and "2" in out.splitlines()


def test_cost_page_price_example_prints_what_the_comment_says(capsys):
    import re

    text = (ROOT / "docs" / "cost.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "price(toolwire.Usage(" in b)
    exec(compile("import toolwire\n" + code, "cost.md", "exec"), {})
    printed = capsys.readouterr().out.strip()
    assert re.search(r"# (\S+) \(a Decimal\)", code).group(1) == printed


def test_the_model_members_the_docs_use_are_in_the_api_reference():
    """Every public ``Model`` member a page writes as ``model.<name>`` / ``Model.<name>``
    (``model.prepare``, ``model.last_preflight``, ``model.profile``) is in the member list of
    the API reference's ``toolwire.adapter.Model`` entry, so the reference documents it."""
    import re

    from toolwire.adapter import Model

    docs = Path(__file__).resolve().parent.parent / "docs"
    entry = re.search(
        r"::: toolwire\.adapter\.Model\n\s+options:\n\s+members: \[([^\]]*)\]", (docs / "api" / "models.md").read_text()
    )
    assert entry is not None
    listed = {m.strip() for m in entry.group(1).split(",")}
    used = {
        name
        for page in docs.rglob("*.md")
        for name in re.findall(r"\b(?:model|Model)\.([a-z][a-z0-9_]*)\b", page.read_text(encoding="utf-8"))
        if hasattr(Model, name)
    }
    assert {"prepare", "last_preflight", "profile", "build_request", "send"} <= used
    assert sorted(used - listed) == []


def test_no_source_or_doc_file_holds_a_merge_conflict_marker():
    # src/toolwire/testing/replay.py's module docstring (shown by help() and the API reference)
    # carried both sides of a merge conflict, '<<<<<<< HEAD' to '>>>>>>> 8c4747d (...)'.
    import re

    marker = re.compile(r"^(<{7} |={7}$|>{7} )", re.M)
    roots = [ROOT / "src", ROOT / "docs", ROOT / "tests", ROOT / "examples", ROOT / "benchmarks", ROOT / "adapters"]
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if path.suffix not in (".py", ".md", ".toml", ".yaml", ".yml", ".json") or not path.is_file():
                continue
            if ".venv" in path.parts or "node_modules" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [
                f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}" for m in marker.finditer(text)
            ]
    assert found == []
