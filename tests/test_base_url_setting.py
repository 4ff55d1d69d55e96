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


# The base URL each vendor SDK reads from the environment when no base_url= is given (read in the
# installed SDKs: anthropic/_client.py `os.environ.get("ANTHROPIC_BASE_URL")` when base_url is None,
# openai/lib/_client_auth.py `os.environ.get("OPENAI_BASE_URL")` likewise, google/genai/_base_url.py
# get_base_url `os.getenv('GOOGLE_GEMINI_BASE_URL')`, used only when not empty).
ENV_VARS = {
    "anthropic:claude-sonnet-4-5": "ANTHROPIC_BASE_URL",
    "openai:gpt-4o": "OPENAI_BASE_URL",
    "openai-chat:gpt-4o": "OPENAI_BASE_URL",
    "gemini:gemini-2.5-flash": "GOOGLE_GEMINI_BASE_URL",
}
BAD_ENV_URLS = [
    ("   ", "is empty"),
    ("localhost:11434/v1", "must start with http:// or https:// ('localhost:11434/v1' has no scheme)"),
    ("ftp://example.com/v1", "('ftp://example.com/v1' has ftp://)"),
    ("http://", "has no host ('http://')"),
    ("http://localhost:port/v1", "is not a URL ('http://localhost:port/v1'"),
    ("http://[::1", "is not a URL ('http://[::1'"),
    (" http://localhost:8080/v1", "has spaces around it"),
]


@pytest.mark.parametrize("spec", sorted(ENV_VARS))
@pytest.mark.parametrize(("url", "says"), BAD_ENV_URLS)
def test_bad_base_url_in_the_environment_is_refused_naming_the_variable(spec, url, says, monkeypatch):
    var = ENV_VARS[spec]
    monkeypatch.setenv(var, url)
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec, api_key="test-key")
    text = str(info.value)
    assert text.startswith(f"environment variable {var} (the base URL for {spec}) ") and says in text, text
    assert "'http://localhost:11434/v1'" in text and f"unset {var}" in text


@pytest.mark.parametrize("spec", ["anthropic:claude-sonnet-4-5", "openai:gpt-4o", "openai-chat:gpt-4o"])
def test_empty_base_url_variable_is_refused_where_the_sdk_sends_to_it(spec, monkeypatch):
    """The Anthropic and OpenAI SDKs take an empty variable as the base URL (only an unset one
    falls back to the vendor's server), so every request would fail."""
    monkeypatch.setenv(ENV_VARS[spec], "")
    with pytest.raises(ConfigurationError, match=rf"^environment variable {ENV_VARS[spec]} \(the base URL for "):
        toolwire.model(spec, api_key="test-key")


def test_empty_gemini_base_url_variable_is_unset_as_for_the_sdk(monkeypatch):
    """google-genai treats an empty GOOGLE_GEMINI_BASE_URL as unset: requests go to its default server."""
    import httpx2

    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "")
    sent = []

    def handler(request):
        sent.append(str(request.url))
        answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
        return httpx2.Response(200, json=answer)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    m = toolwire.model("gemini:gemini-2.5-flash", api_key="test-key", http_client=client)
    assert toolwire.run_sync(m, "hello").text == "hi"
    assert sent[0].startswith("https://generativelanguage.googleapis.com/"), sent


@pytest.mark.parametrize("spec", sorted(ENV_VARS))
def test_base_url_setting_wins_over_a_bad_variable(spec, monkeypatch):
    """A base_url= setting is what the SDK uses: the variable is not read then."""
    monkeypatch.setenv(ENV_VARS[spec], "not a url")
    m = toolwire.model(spec, api_key="test-key", base_url="http://localhost:8080/v1")
    assert m.settings["base_url"] == "http://localhost:8080/v1"


@pytest.mark.parametrize("spec", sorted(ENV_VARS))
@pytest.mark.parametrize("url", ["http://localhost:11434/v1", "https://gateway.example.com/anthropic"])
def test_good_base_url_variable_is_used(spec, url, monkeypatch):
    monkeypatch.setenv(ENV_VARS[spec], url)
    assert toolwire.model(spec, api_key="test-key").model_id


def test_cli_bad_base_url_variable_is_bad_usage(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "localhost:8080")
    with pytest.raises(SystemExit) as info:
        main(["run", "--model", "anthropic:claude-sonnet-4-5", "hi"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith(
        "toolwire run: environment variable ANTHROPIC_BASE_URL (the base URL for anthropic:claude-sonnet-4-5) "
        "must start with http:// or https://"
    ), err


COUNT_ANSWERS = {
    "anthropic": ("ANTHROPIC_BASE_URL", {"input_tokens": 12}),
    "openai": ("OPENAI_BASE_URL", {"object": "response.input_tokens", "input_tokens": 12}),
    "openai-chat": ("OPENAI_BASE_URL", {"object": "response.input_tokens", "input_tokens": 12}),
}


def _count_body(provider):
    from toolwire.adapter import ModelRequest
    from toolwire.types import Message

    codec = type(toolwire.model(f"{provider}:m-1", api_key="k")).make_codec()
    return codec.encode_request(ModelRequest(model="m-1", messages=[Message.user("hi")]))


@pytest.mark.parametrize("provider", sorted(COUNT_ANSWERS))
@pytest.mark.parametrize(("setting", "env"), [({}, "localhost:8080"), ({"base_url": ""}, None)])
def test_live_token_count_checks_the_base_url_it_builds_a_client_with(provider, setting, env, monkeypatch):
    """A live count (Profile.count_tokens) builds its own SDK client from settings: the same check."""
    import asyncio

    import httpx2

    from toolwire.registry import profile

    var, answer = COUNT_ANSWERS[provider]
    body = _count_body(provider)
    if env is not None:
        monkeypatch.setenv(var, env)
    sent = []

    def handler(request):
        sent.append(str(request.url))
        return httpx2.Response(200, json=answer)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    count = profile(provider).count_tokens(body, model="m-1", api_key="k", max_retries=0, http_client=client, **setting)
    with pytest.raises(ConfigurationError) as info:
        asyncio.run(count)
    text = str(info.value)
    assert sent == []
    if env is None:
        assert text.startswith("base_url for the ") and "token count is empty: " in text, text
    else:
        assert text.startswith(f"environment variable {var} (the base URL for the "), text
        assert "token count) must start with http:// or https://" in text, text
