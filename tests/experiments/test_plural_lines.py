"""``toolwire experiment run`` counts in the singular for 1: "experiment x: 1 run (1 layer × 1
model × 1 run)", "1 run done now, 0 finished before: 0 passed, 0 failed, 1 error" (was "1 runs",
"1 errors"), the plural for 2."""

from __future__ import annotations

import textwrap

import pytest
from experiment_helpers import EXAMPLE

from toolwire.cli import main


def _spec(tmp_path, runs: int) -> str:
    (tmp_path / "broken_agent.py").write_text(
        textwrap.dedent(
            """
            from toolwire.testing import ScriptedModel

            def answer(request):
                return {"txt": "typo"}["text"]

            def scripted(run):
                return ScriptedModel("claude-sonnet-4-5", respond=answer)
            """
        )
    )
    spec = tmp_path / "broken.toml"
    spec.write_text(
        textwrap.dedent(
            f"""\
            name = "broken"
            runs = {runs}
            store = "out/broken.sqlite"
            models = [{{ model = "scripted:claude-sonnet-4-5", factory = "broken_agent:scripted" }}]
            [task]
            prompt = "Fix the report."
            project = "toolwire.demo:DATA_DIR"
            checker = ["{{python}}", "{EXAMPLE / "check.py"}", "{{project}}"]
            [layers]
            byte-sizes = "sensor_layers:byte_sizes"
            """
        )
    )
    return str(spec)


@pytest.mark.parametrize(
    ("runs", "planned", "done"),
    [
        (
            1,
            "experiment broken: 1 run (1 layer × 1 model × 1 run)",
            "1 run done now, 0 finished before: 0 passed, 0 failed, 1 error",
        ),
        (
            2,
            "experiment broken: 2 runs (1 layer × 1 model × 2 runs)",
            "2 runs done now, 0 finished before: 0 passed, 0 failed, 2 errors",
        ),
    ],
)
def test_run_counts(tmp_path, capsys, monkeypatch, runs: int, planned: str, done: str) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit) as info:
        main(["experiment", "run", _spec(tmp_path, runs), "--quiet"])
    out, err = capsys.readouterr()
    assert info.value.code == 1, err
    assert planned in " ".join(err.split())
    assert done in " ".join(out.split())
    assert f"{runs} run{'s' if runs > 1 else ''} ended in an error:" in err
    assert "ConfigurationError" in err and "the respond function answer raised KeyError: 'text'" in " ".join(
        err.split()
    )
