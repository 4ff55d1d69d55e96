"""The offline ``test`` provider's own settings are type-checked when the model is made; a
vendor's settings are accepted and ignored (code written for a vendor runs offline unchanged)."""

from __future__ import annotations

import re

import pytest

import toolwire


@pytest.mark.parametrize(
    ("setting", "value", "says"),
    [
        ("final_text", 3, "final_text must be text, got int 3"),
        ("call_tools", "get_weather", "call_tools must be a list of tool names"),
        ("call_tools", ["get_weather", 7], "call_tools must be a list of tool names"),
        ("include_optional", "yes", "include_optional must be True or False, got str 'yes'"),
    ],
)
def test_the_test_providers_own_settings_of_the_wrong_type_are_refused_when_the_model_is_made(
    setting: str, value: object, says: str
) -> None:
    with pytest.raises(toolwire.ConfigurationError, match=re.escape(says)):
        toolwire.model("test", **{setting: value})


def test_the_test_provider_accepts_and_ignores_a_vendors_settings_and_its_own_of_the_right_type() -> None:
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found {q}"

    m = toolwire.model("test", max_tokens=1024, temperature=0.2, final_text="done", call_tools=("lookup",))
    result = toolwire.run_sync(m, "go", tools=[lookup])
    assert result.text == "done"
    assert [r.result.text for r in result.tool_runs] == ["found example"]
    assert m.settings["max_tokens"] == 1024


@pytest.mark.parametrize("provider", ["test", "scripted"])
@pytest.mark.parametrize("name", ["", " "])
def test_the_offline_providers_refuse_an_empty_setting_name(provider: str, name: str) -> None:
    """They took any name, an empty one too (a vendor's adapter refuses it as an unknown setting)."""
    with pytest.raises(toolwire.ConfigurationError) as info:
        toolwire.model(provider, **{name: 1})
    assert str(info.value) == (
        f"the {provider!r} provider's setting name {name!r} is empty: settings are keyword arguments, "
        "such as max_tokens=512"
    )
