"""Planted credentials, routed every way an attacker (a hostile model or a hostile server) could
route one, never reach a tool result, an error, a log, a RunResult, a saved run or a cassette.

The keys are planted in the environment (by the vendors' own variable names and a custom
``..._TOKEN``), passed as ``api_key=``, passed as a gateway header setting, and registered by
hand; a tool reads and returns them, ``run_command`` dumps its environment, the server echoes
every request header in a 401 body. The count of planted-key occurrences over all surfaces
must be 0, while each surface is checked to be non-empty and the keys to have been in play.
"""

from __future__ import annotations

import io
import json
import logging
import traceback

import pytest
from reliability_wire import APIS, Loopback, model, text_body, tool_body, tool_results_in

import toolwire
from toolwire import secrets
from toolwire.design.files import file_tools
from toolwire.errors import ProviderError, ToolError

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

ENV_KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-PLANTEDenvANTHROPIC0001",
    "OPENAI_API_KEY": "sk-proj-PLANTEDenvOPENAI0002",
    "GEMINI_API_KEY": "AIzaPLANTEDenvGEMINI0003",
    "MY_SERVICE_TOKEN": "tok-PLANTEDcustomENV0004",
}
SETTING_KEY = "sk-PLANTEDapiKeySetting0005"
HEADER_KEY = "gw-PLANTEDgatewayHeader0006"
CUSTOM_KEY = "cust-PLANTEDregistered0007"
PLANTED = [*ENV_KEYS.values(), SETTING_KEY, HEADER_KEY, CUSTOM_KEY]


def hits(texts: list[str]) -> int:
    return sum(t.count(k) for t in texts for k in PLANTED)


@pytest.fixture
def planted(monkeypatch):
    for k, v in ENV_KEYS.items():
        monkeypatch.setenv(k, v)
    secrets.register(CUSTOM_KEY)
    yield
    secrets.unregister(CUSTOM_KEY)
    secrets.unregister(SETTING_KEY)
    secrets.unregister(HEADER_KEY)


@toolwire.tool
def leak() -> str:
    """Return the credentials this process holds. Use when asked for them."""
    import os

    return " ".join(
        [os.environ["ANTHROPIC_API_KEY"], os.environ["MY_SERVICE_TOKEN"], SETTING_KEY, CUSTOM_KEY, HEADER_KEY]
    )


@toolwire.tool
def leak_error() -> str:
    """Fail with a credential in the message. Use when asked to fail."""
    import os

    raise ToolError(f"bad key {os.environ['OPENAI_API_KEY']}", hint=f"use {CUSTOM_KEY} instead")


def test_the_checker_counts_planted_keys():
    assert hits([f"a {SETTING_KEY} b {CUSTOM_KEY}{CUSTOM_KEY}"]) == 3
    assert hits(["nothing here"]) == 0


def test_a_tool_process_gets_the_allow_listed_environment_only(planted, tmp_path, monkeypatch):
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("PROJECT_FLAG", "on")
    tools = {t.name: t for t in file_tools(tmp_path, env_allow=["PROJECT_*"], env={"EXTRA": "1"})}
    dump = "import os, json; print(json.dumps(dict(os.environ)))"
    out = tools["run_command"].function(command=["python", "-c", dump])
    env = json.loads(out.split("--- stdout ---\n", 1)[1].split("\n--- stderr ---", 1)[0])
    assert not set(ENV_KEYS) & set(env)
    assert env["LC_ALL"] == "C.UTF-8" and env["PROJECT_FLAG"] == "on" and env["EXTRA"] == "1"
    assert set(env) <= {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "TMPDIR",
        "TMP",
        "TEMP",
        "LC_ALL",
        "LC_CTYPE",
        "PROJECT_FLAG",
        "EXTRA",
    } | {k for k in env if k.startswith("LC_")}
    assert hits([out]) == 0


def test_a_credential_looking_variable_needs_its_exact_name(planted):
    env = secrets.tool_environment(["MY_*"])
    assert "MY_SERVICE_TOKEN" not in env
    assert secrets.tool_environment(["MY_SERVICE_TOKEN"])["MY_SERVICE_TOKEN"] == ENV_KEYS["MY_SERVICE_TOKEN"]


@pytest.mark.parametrize("api", APIS)
def test_planted_keys_reach_no_surface(api, planted, tmp_path):
    from toolwire.testing.pytest_plugin import cassette

    seen_headers: list[dict[str, str]] = []

    def ok(method, path, headers, body):
        seen_headers.append(headers)
        n = tool_results_in(api, json.loads(body))
        if n == 0:
            calls = [
                ("call_1", "leak", {}),
                ("call_2", "leak_error", {}),
                ("call_3", "run_command", {"command": ["python", "-c", "import os; print(dict(os.environ))"]}),
            ]
            return 200, "application/json", json.dumps(tool_body(api, calls)).encode()
        return 200, "application/json", json.dumps(text_body(api, "all done")).encode()

    def unauthorized(method, path, headers, body):
        # a hostile (or careless) server quoting every header, the key included
        return 401, "application/json", json.dumps({**_err(api, "invalid key in " + json.dumps(headers))}).encode()

    log = io.StringIO()
    handler = logging.StreamHandler(log)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    surfaces: list[str] = []
    try:
        tools = [leak, leak_error, *[t for t in file_tools(tmp_path) if t.name == "run_command"]]
        extra = {"default_headers": {"X-Gateway-Auth": HEADER_KEY}} if api.startswith("openai") else {}
        if not extra:  # only the OpenAI adapters take extra headers; the same registration path
            secrets.register_settings({"default_headers": {"X-Gateway-Auth": HEADER_KEY}})
        with Loopback(ok) as srv:
            m = model(api, srv.url, api_key=SETTING_KEY, **extra)
            path = tmp_path / "cassette.yaml"
            with cassette(path, record=True):
                result = toolwire.run_sync(m, "show me the keys", tools=tools)
            logging.getLogger("toolwire.test").warning("the key is %s", ENV_KEYS["GEMINI_API_KEY"])
        with Loopback(unauthorized) as srv:
            bad = model(api, srv.url, api_key=SETTING_KEY, **extra)
            with pytest.raises(ProviderError) as info:
                toolwire.run_sync(bad, "hi")
        err = info.value
        surfaces += [r.result.text for r in result.tool_runs]
        surfaces += [
            result.to_json(),
            result.conversation.to_json()
            if hasattr(result.conversation, "to_json")
            else json.dumps(result.conversation.to_dict()),
        ]
        surfaces += [path.read_text()]
        surfaces += [
            str(err),
            repr(err),
            err.message,
            json.dumps(err.body, default=str),
            "".join(traceback.format_exception(type(err), err, err.__traceback__)),
        ]
        surfaces += [log.getvalue()]
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    # the keys were really in play: the tool returned them, the server got the key, the error quoted headers
    assert len(result.tool_runs) == 3
    assert "[REDACTED]" in result.tool_runs[0].result.text and result.tool_runs[1].result.is_error
    assert "[REDACTED]" in result.tool_runs[1].result.text
    assert any(SETTING_KEY in " ".join(h.values()) for h in seen_headers)
    assert "[REDACTED]" in str(err) and "[REDACTED]" in log.getvalue()
    assert all(surfaces), "every surface holds text"
    assert hits(surfaces) == 0
    print(f"\nplanted-key hits ({api}): 0 over {len(surfaces)} surfaces, {sum(map(len, surfaces)):,} characters")


def _err(api: str, message: str) -> dict:
    from reliability_wire import error_body

    return error_body(api, 401, message)


def test_scrub_value_and_exceptions(planted):
    body = {"error": {"message": f"key {CUSTOM_KEY}", "list": [CUSTOM_KEY.encode(), 3]}, CUSTOM_KEY: "x"}
    out = secrets.scrub_value(body)
    assert hits([json.dumps(out, default=lambda b: b.decode())]) == 0
    assert out["error"]["list"] == [b"[REDACTED]", 3]
    try:
        try:
            raise RuntimeError(f"sdk said {ENV_KEYS['OPENAI_API_KEY']}")
        except RuntimeError:
            raise ProviderError("openai", "wrapped", status=401)
    except ProviderError as exc:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    assert "sdk said [REDACTED]" in text and hits([text]) == 0


def test_short_values_are_not_credentials(monkeypatch):
    monkeypatch.setenv("DEBUG_TOKEN", "1")
    assert secrets.scrub("1 and 11") == "1 and 11"
