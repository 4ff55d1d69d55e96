"""Public names, provider-name typos, checked model settings and install hints (exact texts)."""

from __future__ import annotations

import warnings

import pytest

import toolwire
from toolwire import AdapterNotInstalled, ConfigurationError, ProviderNotFound, _install, registry

KNOWN = "anthropic, gemini, openai, openai-chat, scripted, test"


# -- public API ------------------------------------------------------------------------------------
def test_user_names_are_exported_from_toolwire():
    from toolwire.context import ToolContext
    from toolwire.loop import Limits, RunResult, ToolRun, Turn

    assert toolwire.ToolContext is ToolContext
    assert (toolwire.Limits, toolwire.RunResult, toolwire.ToolRun, toolwire.Turn) == (Limits, RunResult, ToolRun, Turn)
    for name in toolwire.__all__:
        assert getattr(toolwire, name) is not None, name
    for moved in ("ModelRequest", "Codec", "normalize_tool_choice"):
        assert moved not in toolwire.__all__


@pytest.mark.parametrize("name", ["ModelRequest", "Codec", "normalize_tool_choice"])
def test_adapter_author_names_warn_when_taken_from_toolwire(name):
    import toolwire.adapter

    with pytest.warns(DeprecationWarning) as caught:
        value = getattr(toolwire, name)
    assert value is getattr(toolwire.adapter, name)
    assert str(caught[0].message) == (
        f"toolwire.{name} moved to toolwire.adapter.{name} (the adapter-author API); "
        f"import it from there: from toolwire.adapter import {name}"
    )


def test_adapter_module_imports_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from toolwire.adapter import Codec, ModelRequest, normalize_tool_choice  # noqa: F401 - the import is the test


def test_tool_keeps_the_function_callable():
    @toolwire.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    assert isinstance(add, toolwire.Tool)
    assert add(1) == 3 and add(1, b=5) == 6

    @toolwire.tool(name="shout", strict=True)
    def loud(text: str) -> str:
        return text.upper()

    assert (loud.name, loud.strict, loud("hi")) == ("shout", True, "HI")


# -- provider names --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "opnai:gpt-5",
            f"unknown provider 'opnai' in 'opnai:gpt-5'; did you mean 'openai:gpt-5'? known providers: {KNOWN}",
        ),
        (
            "Anthropc:claude-sonnet-4-5",
            "unknown provider 'Anthropc' in 'Anthropc:claude-sonnet-4-5'; did you mean "
            f"'anthropic:claude-sonnet-4-5'? known providers: {KNOWN}",
        ),
        (
            "openai-responses:gpt-5",
            "unknown provider 'openai-responses' in 'openai-responses:gpt-5'; did you mean "
            f"'openai:gpt-5'? known providers: {KNOWN}",
        ),
        ("mistral:large", f"unknown provider 'mistral' in 'mistral:large'; known providers: {KNOWN}"),
    ],
)
def test_provider_typo_suggests_the_spelling(spec, message):
    with pytest.raises(ProviderNotFound) as info:
        toolwire.model(spec)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "openai/gpt-5",
            "model 'openai/gpt-5' has no provider; did you mean 'openai:gpt-5'? "
            "toolwire model names are 'provider:model-id'",
        ),
        (
            "gemni/gemini-2.5-flash",
            "model 'gemni/gemini-2.5-flash' has no provider; did you mean "
            "'gemini:gemini-2.5-flash'? toolwire model names are 'provider:model-id'",
        ),
    ],
)
def test_slash_instead_of_colon_suggests_the_spelling(spec, message):
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec)
    assert str(info.value) == message


def test_spaces_around_the_model_id_are_dropped():
    # no vendor's model id has any; the APIs answer an id with them as an unknown model
    assert registry.parse_model_name(" anthropic : claude-opus-5-5 ") == ("anthropic", "claude-opus-5-5")
    assert registry.parse_model_name("openai-chat:\tgpt-5.2") == ("openai-chat", "gpt-5.2")
    with pytest.raises(ConfigurationError):
        registry.parse_model_name("anthropic:   ")


def test_model_ids_with_slashes_still_parse():
    assert registry.parse_model_name("openai-chat:meta-llama/Llama-3.1-8B") == (
        "openai-chat",
        "meta-llama/Llama-3.1-8B",
    )


# -- settings --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec", ["openai:gpt-5", "openai-chat:gpt-4.1", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"]
)
def test_misspelt_setting_is_refused_with_did_you_mean(spec):
    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec, max_tokenz=5)
    assert str(info.value) == (
        f"unknown setting 'max_tokenz' for {spec}; did you mean 'max_tokens'? "
        "To send a request field toolwire does not know, pass it in extra_body={'max_tokenz': ...}"
    )


def test_unknown_setting_without_a_close_match_lists_the_known_ones():
    with pytest.raises(ConfigurationError) as info:
        toolwire.model("gemini:gemini-2.5-flash", zzz=1)
    assert str(info.value) == (
        "unknown setting 'zzz' for gemini:gemini-2.5-flash; known settings: api_key, api_version, base_url, cache, "
        "cachedContent, cached_content, extra_body, foreign_thought_signature, generationConfig, generation_config, "
        "http_client, location, max_retries, max_tokens, parallel_tool_calls, project, retry, retry_options, "
        "safetySettings, safety_settings, schema_mode, stream, systemInstruction, system_instruction, temperature, "
        "thinking, timeout, toolConfig, tool_config, vertexai. "
        "To send a request field toolwire does not know, pass it in extra_body={'zzz': ...}"
    )


def test_adapter_settings_and_vendor_fields_are_accepted():
    # a vendor request field by wire name (from the SDK's request-params type) and an adapter option
    m = toolwire.model("anthropic:claude-sonnet-4-5", metadata={"user_id": "u1"}, cache=True, top_k=3)
    req = m.build_request([])
    assert req.settings == {"metadata": {"user_id": "u1"}, "top_k": 3}
    assert toolwire.model("openai:gpt-5", store=False).build_request([]).settings == {"store": False}
    assert toolwire.model("openai-chat:gpt-4.1", seed=7).build_request([]).settings == {"seed": 7}


def test_extra_body_is_the_escape_hatch():
    m = toolwire.model("openai-chat:llama3", base_url="http://127.0.0.1:11434/v1", extra_body={"num_ctx": 8192})
    assert m.build_request([]).settings == {"num_ctx": 8192}
    # the older spelling keeps working
    m = toolwire.model("openai-chat:llama3", settings={"num_ctx": 4096})
    assert m.build_request([]).settings == {"num_ctx": 4096}


def test_model_variant_settings_are_checked_too():
    base = toolwire.model("openai:gpt-5")
    with pytest.raises(
        ConfigurationError, match=r"^unknown setting 'temprature' for openai:gpt-5; did you mean 'temperature'\?"
    ):
        toolwire.model(base, temprature=0.2)
    assert toolwire.model(base, temperature=0.2).settings["temperature"] == 0.2


def test_mapping_settings_are_checked():
    with pytest.raises(
        ConfigurationError, match=r"^unknown setting 'max_token' for openai:gpt-5; did you mean 'max_tokens'\?"
    ):
        toolwire.model({"model": "openai:gpt-5", "settings": {"max_token": 10}})


def test_offline_providers_accept_any_setting():
    # the test providers declare no request fields: a test may carry any setting to inspect the request
    assert toolwire.model("test", anything=1).settings == {"anything": 1}


# -- install hints ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("direct_url", "expected"),
    [
        (None, 'pip install "toolwire[openai]"'),
        (
            {"url": "file:///srv/toolwire.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
            'pip install "toolwire-openai @ git+file:///srv/toolwire.git@abc123#subdirectory=adapters/openai"',
        ),
        (
            {
                "url": "file:///srv/toolwire.git",
                "vcs_info": {"vcs": "git", "commit_id": "abc", "requested_revision": "main"},
            },
            'pip install "toolwire-openai @ git+file:///srv/toolwire.git@main#subdirectory=adapters/openai"',
        ),
    ],
)
def test_adapter_install_hint_follows_how_toolwire_was_installed(monkeypatch, direct_url, expected):
    monkeypatch.setattr(_install, "_direct_url", lambda: direct_url)
    monkeypatch.setattr(_install, "installer", lambda: "pip install")
    assert _install.adapter_install_command("openai") == expected


def test_install_hint_from_a_clone_names_the_adapter_folder(monkeypatch, tmp_path):
    (tmp_path / "adapters" / "gemini").mkdir(parents=True)
    monkeypatch.setattr(_install, "_direct_url", lambda: {"url": tmp_path.as_uri(), "dir_info": {}})
    monkeypatch.setattr(_install, "installer", lambda: "pip install")
    monkeypatch.setattr(registry, "_entry_points", lambda: {})
    with pytest.raises(AdapterNotInstalled) as info:
        toolwire.model("gemini:gemini-2.5-flash")
    assert (
        str(info.value)
        == f"provider 'gemini' needs its adapter toolwire-gemini: pip install {tmp_path / 'adapters' / 'gemini'}"
    )
    assert _install.extra_install_command("testing") == f'pip install "{tmp_path}[testing]"'


def test_install_hint_from_a_wheel_names_the_adapter_wheel(monkeypatch, tmp_path):
    core = tmp_path / "toolwire-0.1.0-py3-none-any.whl"
    core.write_bytes(b"")
    adapter = tmp_path / "toolwire_openai-0.1.0-py3-none-any.whl"
    adapter.write_bytes(b"")
    monkeypatch.setattr(_install, "_direct_url", lambda: {"url": core.as_uri(), "archive_info": {}})
    monkeypatch.setattr(_install, "installer", lambda: "uv pip install")
    assert _install.adapter_install_command("openai") == f"uv pip install {adapter}"


@pytest.mark.parametrize("settings", [{"vertexai": True}, {"project": "p", "location": "us-central1"}])
def test_vertex_ai_settings_are_refused_not_ignored(settings):
    """The Gemini adapter speaks the Developer API only: Vertex settings must not be accepted and
    then silently ignored (the request would go to generativelanguage.googleapis.com)."""
    with pytest.raises(ConfigurationError, match="Vertex AI is not supported yet") as info:
        toolwire.model("gemini:gemini-2.5-flash", api_key="k", **settings)
    for name in settings:
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("spec", "field", "hint"),
    [
        ("anthropic:claude-sonnet-4-5", "max_tokens", "pass max_tokens=... to the model instead"),
        ("anthropic:claude-sonnet-4-5", "messages", "leave it out"),
        ("openai-chat:gpt-5", "stream", "pass stream=True/False to the model instead"),
        ("openai:gpt-5", "input", "leave it out"),
        ("openai:gpt-5", "model", "give the model id in the model string instead"),
        ("gemini:gemini-2.5-flash", "contents", "leave it out"),
    ],
)
def test_an_extra_body_field_the_adapter_always_writes_is_refused(spec: str, field: str, hint: str) -> None:
    """extra_body's fields go into the body as given, except one the adapter writes on every
    request itself: extra_body={"max_tokens": 100} on Anthropic was overwritten by the default
    4096 without a word."""

    with pytest.raises(ConfigurationError) as info:
        toolwire.model(spec, api_key="k", extra_body={field: 1})
    message = str(info.value)
    assert f"extra_body field {field!r}" in message and "would be overwritten" in message and hint in message


def test_other_extra_body_fields_are_sent_as_given() -> None:
    from toolwire.types import Message, TextPart

    model = toolwire.model("anthropic:claude-sonnet-4-5", api_key="k", extra_body={"top_k": 5, "brand_new": {"a": 1}})
    body = model.prepare(model.build_request([Message("user", [TextPart("hi")])]))
    assert body["top_k"] == 5 and body["brand_new"] == {"a": 1}
