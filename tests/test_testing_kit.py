"""The user-facing testing kit: the example agent test records a cassette from a real HTTP server on
loopback, the cassette holds no credential, and the test then passes offline from the cassette."""

from __future__ import annotations

import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Import these before pytester takes its sys.modules snapshot: modules first imported inside a
# pytester test are dropped at teardown, which leaves stale yaml/vcr classes for later tests (and
# a second copy of the Anthropic SDK, whose NOT_GIVEN the adapter's first copy does not know:
# "'NotGiven' object is not iterable" in later tests). The adapters load their SDK lazily, so the
# SDK itself is imported here too.
import anthropic._base_client  # noqa: F401 - imported for the sys.modules snapshot (above)
import pytest
import toolwire_anthropic  # noqa: F401 - imported for the sys.modules snapshot (above)
import vcr.serializers.yamlserializer  # noqa: F401 - imported for the sys.modules snapshot (above)
import yaml  # noqa: F401 - imported for the sys.modules snapshot (above)

from toolwire.testing.replay import replay_paths

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "weather_agent"
SECRET = "sk-ant-secret-DO-NOT-LEAK-1234"


class FakeAnthropic(BaseHTTPRequestHandler):
    """Speaks the Anthropic Messages wire format: a tool call, then the final answer."""

    seen_auth: list[str] = []

    def log_message(self, *args):  # keep test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        FakeAnthropic.seen_auth.append(self.headers.get("authorization") or self.headers.get("x-api-key") or "")
        answered = any(
            isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body["messages"]
        )
        if not answered:
            out = {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 412, "output_tokens": 31},
            }
        else:
            out = {
                "id": "msg_02",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": "It is 18°C and sunny in Paris."}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 530, "output_tokens": 12},
            }
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("set-cookie", "session=abc")
        self.end_headers()
        self.wfile.write(data)


def test_example_records_from_loopback_then_replays_offline(pytester: pytest.Pytester, monkeypatch):
    for name in ("agent.py", "test_agent.py"):
        shutil.copy(EXAMPLE / name, pytester.path / name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAnthropic)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("WEATHER_BASE_URL", base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    try:
        recorded = pytester.runpytest_subprocess("--toolwire-record", "-p", "no:cacheprovider")
    finally:
        server.shutdown()
        server.server_close()
    recorded.assert_outcomes(passed=1)
    assert len(FakeAnthropic.seen_auth) == 2 and SECRET in FakeAnthropic.seen_auth[0]  # the server really saw the key

    cassette = pytester.path / "cassettes" / "test_agent" / "test_agent_calls_the_tool_and_answers.yaml"
    text = cassette.read_text()
    assert SECRET not in text
    assert "authorization" not in text.lower() and "x-api-key" not in text.lower()
    assert "session=abc" not in text
    assert text.count("uri: " + base_url + "/v1/messages") == 2

    # offline: the server is gone and the key is wrong; the cassette answers
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-the-key")
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=1)

    # and toolwire replay reads the same cassette
    doc = replay_paths([str(cassette)])
    assert doc["ok"], doc
    assert doc["totals"]["requests_matched"] == 2


KIT_TESTS = """
import pytest
from agent import weather_agent


@pytest.mark.toolwire_cassette("cassettes/test_agent/test_agent_calls_the_tool_and_answers.yaml")
def test_marker_alone_replays():
    result = weather_agent("What's the weather in Paris?", api_key="replayed", max_retries=0)
    assert result.tool_runs[0].call.arguments == {"city": "Paris"}


@pytest.mark.toolwire_cassette
def test_marker_alone_without_a_cassette():
    weather_agent("What's the weather in Paris?", api_key="replayed", max_retries=0)


@pytest.mark.toolwire_cassette("cassettes/test_agent/test_agent_calls_the_tool_and_answers.yaml", match_body=True)
def test_changed_prompt():
    weather_agent("What's the weather in Oslo?", api_key="replayed", max_retries=0)


def test_no_cassette_at_all():
    weather_agent("What's the weather in Paris?", api_key="sk-not-a-key", max_retries=0)
"""


def _kit_project(pytester: pytest.Pytester) -> None:
    for name in ("agent.py", "conftest.py"):
        shutil.copy(EXAMPLE / name, pytester.path / name)
    cas = pytester.path / "cassettes" / "test_agent"
    cas.mkdir(parents=True)
    shutil.copy(EXAMPLE / "cassettes" / "test_agent" / "test_agent_calls_the_tool_and_answers.yaml", cas)
    pytester.makepyfile(test_kit=KIT_TESTS)


def _section(lines: list[str], title: str) -> list[str]:
    """The lines of one test's report: from its ``____ title ____`` line to the next header."""
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == title)
    out = []
    for line in lines[start + 1 :]:
        if line.startswith(("____", "====")):
            break
        out.append(line)
    return out


def test_cassette_marker_alone_block_and_messages(pytester: pytest.Pytester):
    _kit_project(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--toolwire-block-network")
    result.assert_outcomes(passed=1, failed=2, errors=1)
    lines = result.stdout.lines
    assert _section(lines, "ERROR at setup of test_marker_alone_without_a_cassette") == [
        "toolwire: no cassette for this test at cassettes/test_kit/test_marker_alone_without_a_cassette.yaml",
        "  record it once with an API key: pytest --toolwire-record test_kit.py::test_marker_alone_without_a_cassette "
        "(or TOOLWIRE_RECORD=1)",
        "  or test offline without recording: the 'test' and 'scripted' providers",
    ]
    assert _section(lines, "test_changed_prompt") == [
        "toolwire: the cassette cassettes/test_agent/test_agent_calls_the_tool_and_answers.yaml has no recorded answer "
        "for request 1 of this test: POST /v1/messages",
        "  it holds 2 recorded requests, 0 already played; requests are matched in order on method, path, query and body",
        "  the test now sends a different or an extra request; re-record it with an API key: "
        "pytest --toolwire-record test_kit.py::test_changed_prompt",
    ]
    assert _section(lines, "test_no_cassette_at_all") == [
        "toolwire: a real HTTP request was blocked: POST https://api.anthropic.com/v1/messages (--toolwire-block-network)",
        "  replay it from a cassette (@pytest.mark.toolwire_cassette), use the offline 'test' or 'scripted' provider, "
        "or pass http_client= with an httpx2.MockTransport",
    ]


def test_block_network_environment_variable(pytester: pytest.Pytester, monkeypatch):
    _kit_project(pytester)
    monkeypatch.setenv("TOOLWIRE_BLOCK_NETWORK", "1")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "no_cassette_at_all")
    result.assert_outcomes(failed=1)
    assert _section(result.stdout.lines, "test_no_cassette_at_all")[0] == (
        "toolwire: a real HTTP request was blocked: POST https://api.anthropic.com/v1/messages "
        "(TOOLWIRE_BLOCK_NETWORK is set)"
    )


def test_scrubbing_removes_every_credential_form():
    from vcr.request import Request

    from toolwire.testing.pytest_plugin import _scrub_request, _scrub_response

    req = Request(
        "POST",
        "http://gwuser:SECRET-PASSWORD@gw.example:8080/v1/models/x:generateContent?key=K1&api-key=K2&token=K3&alt=sse",
        b"{}",
        {
            "Authorization": "Bearer K4",
            "Helicone-Auth": "Bearer K5",
            "X-Portkey-Api-Key": "K6",
            "content-type": "application/json",
        },
    )
    out = _scrub_request(req)
    text = out.uri + repr(dict(out.headers))
    for secret in ("SECRET-PASSWORD", "gwuser", "K1", "K2", "K3", "K4", "K5", "K6"):
        assert secret not in text
    assert out.uri == "http://gw.example:8080/v1/models/x:generateContent?alt=sse"
    assert dict(out.headers) == {"content-type": "application/json"}
    resp = {"headers": {"set-cookie": ["s=1"], "anthropic-ratelimit-tokens-remaining": ["10"], "x-api-key": ["k"]}}
    assert _scrub_response(resp)["headers"] == {"anthropic-ratelimit-tokens-remaining": ["10"]}


def test_cassette_names_are_unique_and_safe():
    from types import SimpleNamespace

    from toolwire.testing.pytest_plugin import _cassette_name

    names = {
        _cassette_name(SimpleNamespace(nodeid=n, name=n.split("::")[-1]))
        for n in (
            "t.py::TestParis::test_answer",
            "t.py::TestOslo::test_answer",
            "t.py::test_x[a/b]",
            "t.py::test_x[a_b]",
            "t.py::test_x[" + "ü" * 300 + "]",
        )
    }
    assert len(names) == 5
    assert all(len(n) <= 120 and all(c.isalnum() or c in "._-" for c in n) for n in names)
    assert _cassette_name(SimpleNamespace(nodeid="t.py::test_plain", name="test_plain")) == "test_plain"


def test_cassette_context_manager_without_its_file_says_how_to_record_from_code(tmp_path):
    # `cassette(path)` is the context manager for code outside pytest: its missing-file error names
    # `record=True` (what records there), not pytest's --toolwire-record / TOOLWIRE_RECORD, which
    # it does not read.
    from toolwire.testing.pytest_plugin import cassette

    path = tmp_path / "missing.yaml"
    with pytest.raises(FileNotFoundError) as info:
        cassette(path)
    text = str(info.value)
    assert str(path) in text
    assert f"cassette({str(path)!r}, record=True)" in text
    assert "TOOLWIRE_RECORD" not in text


def test_a_request_the_cassette_context_manager_cannot_answer_is_not_retried_and_says_how_to_record(
    tmp_path, monkeypatch
):
    # Outside pytest, cassette(path) left vcrpy's refusal to the SDK: a retryable connection error,
    # sent 3 times (with back-off), whose text advised vcrpy options toolwire's cassette() does not
    # take (allow_playback_repeats, record_mode='new_episodes'). It is now one attempt, not
    # retryable, saying the cassette has no answer for it and how to record one.
    import toolwire
    from toolwire.errors import ProviderError
    from toolwire.testing.pytest_plugin import cassette

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "one.yaml"
    path.write_text(
        "version: 1\ninteractions:\n- request:\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n"
        "    headers: {content-type: [application/json]}\n    body: '{}'\n  response:\n    status: {code: 200, message: OK}\n"
        '    headers: {content-type: [application/json]}\n    body:\n      string: \'{"id": "msg_1", "type": "message", '
        '"role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Hello."}], '
        '"stop_reason": "end_turn", "usage": {"input_tokens": 8, "output_tokens": 3}}\'\n'
    )
    specs = ["anthropic:claude-sonnet-4-5", "openai-chat:gpt-4.1", "openai:gpt-5", "gemini:gemini-2.5-flash"]
    with cassette(path):
        model = toolwire.model(specs[0], api_key="k")
        assert toolwire.run_sync(model, "hi").text == "Hello."
        for spec in specs:  # the first played already; the other APIs' paths are not in it
            with pytest.raises(ProviderError) as info:
                toolwire.run_sync(toolwire.model(spec, api_key="k"), "again")
            err = info.value
            assert (err.retryable, err.attempts) == (False, 1), spec
            text = str(err)
            assert "the cassette has no recorded answer for this request" in text, spec
            assert "cassette(path, record=True)" in text, spec
            assert "allow_playback_repeats" not in text and "new_episodes" not in text, spec
