"""``toolwire run --setting ...`` refused before any request is bad usage (exit 2, one line), on
every provider: not 1, which is kept for a failure found while running (a vendor's error, an
error after the first answer)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolwire import ProviderError
from toolwire.errors import ConfigurationError

sys.path.insert(0, str(Path(__file__).parent))
from streaming_helpers import GatedModel, calls, text

from toolwire.cli import main

# no retries: a request that was sent would fail fast as a ProviderError (no network here; a
# base_url is left out: on another server OpenAI's effort check does not apply)
NOWHERE = ["--setting", "max_retries=0"]
PROVIDERS = ["anthropic:claude-sonnet-4-5", "openai:gpt-4o", "openai-chat:gpt-4o", "gemini:gemini-2.5-flash"]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "test-key")
    monkeypatch.delenv("TOOLWIRE_MODEL", raising=False)


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("max_tokens=abc", "got 'abc'"),
        ("max_tokens=-5", "got -5"),
        ("temperature=hot", "temperature must be"),
        ('thinking={"effort": "bogus"}', "'bogus'"),
        ("thinking=true", "thinking for"),
        ("stream=maybe", "stream for"),
        ("bogus_key=1", "unknown setting 'bogus_key'"),
    ],
)
def test_a_setting_refused_before_any_request_is_bad_usage(capsys, provider, setting, says):
    code, out, err = _main(capsys, "run", "--model", provider, *NOWHERE, "--setting", setting, "hi")
    assert (code, out) == (2, "")
    assert err.startswith("toolwire run: ") and err.count("\n") == 1 and says in err, err
    assert "API error" not in err  # nothing was sent


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_bad_setting_is_reported_without_a_key_too(capsys, monkeypatch, provider):
    """Without an API key only "needs credentials" was reported: the bad setting came up only
    once a key was given. Both are reported now, the setting first."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = _main(capsys, "run", "--model", provider, *NOWHERE, "--setting", "max_tokens=abc", "hi")
    assert (code, out) == (2, "")
    assert err.startswith("toolwire run: ") and err.count("\n") == 1, err
    assert "got 'abc'" in err and f"; also, {provider} needs credentials: set " in err, err
    assert err.index("got 'abc'") < err.index("needs credentials")


@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_demo_and_json_mode_too(capsys, as_json, tmp_path):
    code, _, err = _main(
        capsys, "run", *as_json, "--model", PROVIDERS[0], *NOWHERE, "--setting", "max_tokens=abc", "hi"
    )
    assert code == 2 and "max_tokens" in err
    code, _, err = _main(
        capsys,
        "demo",
        "--workdir",
        str(tmp_path / "w"),
        "--model",
        PROVIDERS[1],
        *NOWHERE,
        "--setting",
        "max_tokens=abc",
    )
    assert code == 2 and err.startswith("toolwire demo: ") and "max_output_tokens" in err


class _FailsOn(GatedModel):
    """Answers from its script, then raises ``error`` on request ``at``."""

    def __init__(self, script: list, at: int, error: Exception) -> None:
        super().__init__(script)
        self.at, self.error = at, error

    async def send(self, request):  # type: ignore[override]
        if len(self.requests) + 1 == self.at:
            self.requests.append(request)
            raise self.error
        return await super().send(request)


def _run_with(monkeypatch, capsys, model, tmp_path) -> tuple[int, str]:
    from toolwire.cli import run_cmd

    tools = tmp_path / "tools.py"
    tools.write_text(
        "import toolwire\n\n\n@toolwire.tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b\n"
    )
    monkeypatch.setattr(run_cmd, "_live_model", lambda spec, what, settings=None: model)
    code, _, err = _main(capsys, "run", "--tools", str(tools), "add 2 and 3")
    return code, err


def test_an_error_after_the_first_answer_is_still_a_run_failure(monkeypatch, capsys, tmp_path):
    model = _FailsOn([calls(("c1", "add", {"a": 2, "b": 3}))], 2, ConfigurationError("refused on turn 2"))
    assert _run_with(monkeypatch, capsys, model, tmp_path) == (1, "toolwire run: refused on turn 2\n")


def test_a_provider_error_on_the_first_request_is_still_a_run_failure(monkeypatch, capsys, tmp_path):
    model = _FailsOn([text("never")], 1, ProviderError("scripted", "overloaded", status=400))
    code, err = _run_with(monkeypatch, capsys, model, tmp_path)
    assert code == 1 and "overloaded" in err


@pytest.mark.parametrize(
    ("pair", "why"),
    [
        ("=512", "'=512' has no name before '='"),
        (" =v", "' =v' has no name before '='"),
        ("", "is empty"),
        ("  ", "is empty"),
        ("max_tokens", "'max_tokens' has no '='"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [["run", "--model", "test", "hi"], ["run", "--model", "scripted", "hi"], ["demo", "--model", "test"]],
)
def test_a_setting_without_a_name_or_an_equals_sign_is_one_usage_error_on_every_command(
    capsys, tmp_path, command, pair, why
):
    """Every command that takes --setting (run, demo) says which of the two is missing, exit 2,
    before anything is sent or made ("--setting takes key=value, got '=512'" said neither)."""
    name = command[0]
    extra = ["--workdir", str(tmp_path / "w")] if name == "demo" else []
    code, out, err = _main(capsys, *command[:1], *extra, *command[1:3], "--setting", pair, *command[3:])
    assert (code, out) == (2, "")
    assert err == (
        f"toolwire {name}: --setting {why}: --setting takes key=value, such as --setting max_tokens=512 "
        f"(usage: toolwire {name} --help)\n"
    )
    assert not (tmp_path / "w").exists()
