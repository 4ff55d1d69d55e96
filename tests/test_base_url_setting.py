"""An empty or malformed ``base_url`` is refused when the model is made, naming the setting, on
every provider (it was sent, failed as a connection error and was retried; Gemini dropped an
empty one and went to its default server)."""

from __future__ import annotations

import pytest

import toolwire
from toolwire.cli import main
from toolwire.errors import ConfigurationError

PROVIDERS = ["anthropic:claude-sonnet-4-5", "openai:gpt-4o", "openai-chat:gpt-4o", "gemini:gemini-2.5-flash", "test"]


@pytest.mark.parametrize("spec", PROVIDERS)
@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("localhost:11434/v1", "must start with http:// or https:// ('localhost:11434/v1' has no scheme)"),
        ("api.example.com", "must start with http:// or https://"),
        ("ftp://example.com/v1", "('ftp://example.com/v1' has ftp://)"),
        ("http://", "has no host ('http://')"),
        ("https:///v1", "has no host"),
        ("http://localhost:port/v1", "is not a URL ('http://localhost:port/v1'"),
        (" http://localhost:8080/v1", "has spaces around it"),
    ],
)
def test_bad_base_url_is_refused_when_the_model_is_made(spec, url, says):
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec, base_url=url, api_key="test-key")
    text = str(info.value)
    assert text.startswith("base_url for ") and says in text, text
    assert "'http://localhost:11434/v1'" in text  # what to give instead


@pytest.mark.parametrize("spec", PROVIDERS)
@pytest.mark.parametrize(
    "url", ["http://localhost:11434/v1", "HTTPS://api.example.com", "http://[::1]:8080/v1", "http://10.0.0.2:9"]
)
def test_good_base_url_is_kept(spec, url):
    assert toolwire.model(spec, base_url=url, api_key="test-key").settings["base_url"] == url


def test_cli_empty_base_url_is_bad_usage(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with pytest.raises(SystemExit) as info:
        main(["run", "--model", "anthropic:claude-sonnet-4-5", "--setting", "base_url=", "hi"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("toolwire run: base_url for anthropic:claude-sonnet-4-5 is empty: ") and err.count("\n") == 1
