"""`toolwire replay` on the real recordings: every response decodes as expected.json says and every
request the loop builds matches the recorded one at the canonical level."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.testing.replay import replay_paths

ROOT = recordings_dir()
FILES = sorted(ROOT.glob("*/*.yaml")) if ROOT else []
needs_recordings = pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")


@needs_recordings
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_replay_file_matches(path):
    doc = replay_paths([str(path)])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert f.get("expected_mismatches", []) == []
    assert [r for r in f["requests"] if not r["matches"]] == []
    expected = json.loads((ROOT / "expected.json").read_text())["files"][f"{path.parent.name}/{path.name}"]
    assert [r["interaction"] for r in f["responses"]] == [r["interaction"] for r in expected["responses"]]
    for got, want in zip(f["responses"], expected["responses"]):
        assert got["vendor_stop_reason"] == want["stop_reason"]
        assert [c["name"] for c in got["tool_calls"]] == [c["name"] for c in want["tool_calls"]]
        assert [c["arguments"] for c in got["tool_calls"]] == [c["arguments"] for c in want["tool_calls"]]
        assert [None if c["id_synthesized"] else c["id"] for c in got["tool_calls"]] == [
            c["id"] for c in want["tool_calls"]
        ]
        assert got["text"] == want["text"]
        assert got["usage"]["input_tokens"] == want["usage"]["input"]
        # expected.json's "output" is the vendor's output counter; Gemini reports thoughts apart from it
        # and Usage.output_tokens includes them (thinking is billed as output)
        assert got["usage"]["output_tokens"] == want["usage"]["output"] + (
            want["usage"].get("raw", {}).get("thoughtsTokenCount") or 0
        )


@needs_recordings
def test_replay_cli_json_totals():
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "replay", str(ROOT / "anthropic"), "--json"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert set(doc) == {"files", "totals"}
    assert doc["totals"]["files"] == len(list((ROOT / "anthropic").glob("*.yaml")))
    assert doc["totals"]["requests_matched"] == doc["totals"]["requests"]
    first = doc["files"][0]
    assert set(first) >= {"file", "api", "notes", "responses", "requests"}
    assert set(first["responses"][0]) == {
        "interaction",
        "stop_reason",
        "vendor_stop_reason",
        "tool_calls",
        "text",
        "usage",
    }
    assert set(first["responses"][0]["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    }


_ENDPOINTS = (
    "Anthropic …/v1/messages, OpenAI Chat …/chat/completions, OpenAI Responses …/responses, "
    "Gemini …:generateContent and …:streamGenerateContent"
)


def test_replay_reports_failure_exit_code(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "interactions:\n- request: {method: POST, uri: 'https://example.com/x', body: 'not json'}\n  response: {status: {code: 200}, body: {string: '{}'}}\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "replay", str(bad), "--json"], capture_output=True, text=True
    )
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["files"][0]["errors"] == [
        "nothing replayable: none of its 1 interaction is a request to a model endpoint toolwire replays "
        f"({_ENDPOINTS}); it holds requests to /x"
    ]


def test_recorded_vendor_error_surfaces_as_provider_error(tmp_path):
    import yaml

    body = {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    err = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Number of request tokens has exceeded your per-minute rate limit",
        },
    }
    ok = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": "hello"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 2},
    }
    inter = lambda code, payload: {  # noqa: E731
        "request": {
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
            "headers": {},
            "body": json.dumps(body),
        },
        "response": {
            "status": {"code": code},
            "headers": {"content-type": ["application/json"]},
            "body": {"string": json.dumps(payload)},
        },
    }
    path = tmp_path / "rate_limited.yaml"
    path.write_text(yaml.safe_dump({"interactions": [inter(429, err), inter(200, ok)]}))
    doc = replay_paths([str(path)])
    assert doc["ok"]
    first, second = doc["files"][0]["responses"]
    assert first["stop_reason"] == "error"
    assert first["error"] == {
        "status": 429,
        "message": "Number of request tokens has exceeded your per-minute rate limit",
        "retryable": True,
        "error_type": "rate_limit_error",
    }
    assert (second["text"], second["usage"]["input_tokens"]) == ("hello", 5)
    assert doc["totals"]["requests_matched"] == 2


def test_replay_fails_on_empty_folder_and_mixed_apis(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    doc = replay_paths([str(empty)])
    assert doc["ok"] is False
    assert doc["files"][0]["errors"] == ["no cassettes (*.yaml, *.yml, *.yaml.gz) in this folder"]
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(
        "interactions:\n"
        '- request: {method: POST, uri: \'https://api.anthropic.com/v1/messages\', body: \'{"model": "m", "max_tokens": 1, "messages": []}\'}\n'
        "  response: {status: {code: 200}, body: {string: '{}'}}\n"
        '- request: {method: POST, uri: \'https://api.openai.com/v1/chat/completions\', body: \'{"model": "m", "messages": []}\'}\n'
        "  response: {status: {code: 200}, body: {string: '{}'}}\n"
    )
    doc = replay_paths([str(mixed)])
    assert doc["files"][0]["api"] == "anthropic"
    assert (
        "the cassette holds traffic of several APIs (anthropic, openai-chat); each API's interactions are replayed as conversations of their own"
        in doc["files"][0]["notes"]
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions:\n- 'just a string'\n")
    doc = replay_paths([str(broken)])
    assert doc["files"][0]["errors"] == [
        "interaction 0 is malformed: it is a string ('just a string'), not a mapping with 'request' and 'response' "
        "keys (vcrpy's layout)"
    ]


_REQ = "{method: POST, uri: 'https://api.anthropic.com/v1/messages', body: '{}'}"


@pytest.mark.parametrize(
    ("interaction", "why"),
    [
        ("[1, 2]", "it is a list, not a mapping with 'request' and 'response' keys (vcrpy's layout)"),
        (
            "{request: [a, b], response: {status: {code: 200}}}",
            "its 'request' is a list, not a mapping (method, uri, headers, body)",
        ),
        (
            f"{{request: {_REQ}, response: 7}}",
            "its 'response' is a number (7), not a mapping (status, headers, body)",
        ),
        (
            f"{{request: {_REQ}, response: {{status: {{code: abc}}, body: {{string: '{{}}'}}}}}}",
            "its response 'status' code is a string ('abc'), not an HTTP status number such as 200",
        ),
        # a status that is not a whole number was cut to one (200.5 read as 200) or failed on
        # Python's words ("ValueError: cannot convert float NaN to integer")
        (
            f"{{request: {_REQ}, response: {{status: {{code: 200.5}}, body: {{string: '{{}}'}}}}}}",
            "its response 'status' code is a number (200.5), not an HTTP status number such as 200",
        ),
        (
            f"{{request: {_REQ}, response: {{status_code: .nan, content: '{{}}'}}}}",
            "its response 'status' code is a number (nan), not an HTTP status number such as 200",
        ),
        (
            f"{{request: {_REQ}, response: {{status_code: .inf, content: '{{}}'}}}}",
            "its response 'status' code is a number (inf), not an HTTP status number such as 200",
        ),
        (
            f"{{request: {_REQ}, response: {{status: {{code: 200}}, headers: [x], body: {{string: '{{}}'}}}}}}",
            "its response 'headers' is a list, not a mapping of header names to values",
        ),
        (f"{{request: {_REQ}}}", "it has no 'response' (a mapping with status, headers, body, vcrpy's layout)"),
        (
            f"{{request: {_REQ}, response: null}}",
            "it has no 'response' (a mapping with status, headers, body, vcrpy's layout)",
        ),
        (
            "{response: {status: {code: 200}, body: {string: '{}'}}}",
            "it has no 'request' (a mapping with method, uri, headers, body, vcrpy's layout)",
        ),
        (
            "{request: {method: POST, body: '{}'}, response: {status: {code: 200}}}",
            "its 'request' has no 'uri', not the URL the request was sent to",
        ),
        (
            f"{{request: {_REQ}, response: {{body: {{string: '{{}}'}}}}}}",
            "its 'response' has no 'status' code (the HTTP status, such as 200)",
        ),
        (
            f"{{request: {_REQ}, response: {{status: {{code: 200}}, body: 12}}}}",
            "its response 'body' is a number (12), not text, bytes or a mapping with 'string' (or 'type' and "
            "'content')",
        ),
    ],
)
def test_a_malformed_interaction_is_named_in_cassette_terms(tmp_path, interaction, why):
    """The error was Python's: "ValueError: interaction 0 is malformed: AttributeError: 'list'
    object has no attribute 'get'"."""
    broken = tmp_path / "broken.yaml"
    broken.write_text(f"interactions:\n- {interaction}\n")
    doc = replay_paths([str(broken)])
    assert doc["files"][0]["errors"] == [f"interaction 0 is malformed: {why}"]


def test_cassette_layouts_newer_body_wrapper_dates_and_gzip(tmp_path):
    """The newer pytest-recording layout (`body: {type: json, content: ...}`, integer status), header
    values YAML reads as dates, and a gzipped cassette file."""
    import gzip as _gzip

    from toolwire.testing.cassettes import load_cassette

    text = (
        "interactions:\n"
        "- request:\n"
        "    method: POST\n"
        "    uri: https://api.openai.com/v1/chat/completions\n"
        "    body:\n"
        "      type: json\n"
        "      content: {model: gpt-4o, messages: [{role: user, content: hi}]}\n"
        "  response:\n"
        "    status: 400\n"
        "    headers:\n"
        "      openai-version:\n"
        "      - 2020-10-01\n"
        "    body:\n"
        "      type: json\n"
        "      content: {error: {message: 'Invalid temperature', type: invalid_request_error, code: decimal_below_min_value}}\n"
    )
    plain = tmp_path / "wrapped.yaml"
    plain.write_text(text)
    (inter,) = load_cassette(plain)
    assert inter.status == 400
    assert inter.request_json == {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    assert inter.response_headers["openai-version"] == ["2020-10-01"]
    zipped = tmp_path / "wrapped.yaml.gz"
    zipped.write_bytes(_gzip.compress(text.encode()))
    doc = replay_paths([str(tmp_path)])
    assert doc["ok"], doc
    assert [f["responses"][0]["error"]["status"] for f in doc["files"]] == [400, 400]


def test_cassette_of_vcrpys_older_httpx_layout_status_code_and_content(tmp_path):
    """vcrpy's httpx stub before 5.x recorded a response as ``{status_code, http_version, headers,
    content}`` (vcrpy plays it back still); every such file failed whole as "interaction 0 is
    malformed: its 'response' has no 'status' code". Modelled on DataDog/dd-trace-py
    tests/contrib/openai/cassettes/v1/chat_completion_tool_call.yaml."""
    request = {
        "model": "gpt-3.5-turbo",
        "messages": [{"role": "user", "content": "David is at Stanford."}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "extract_student_info",
                    "parameters": {"type": "object", "properties": {"school": {"type": "string"}}},
                },
            }
        ],
    }
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1695747601,
        "model": "gpt-3.5-turbo-0613",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "extract_student_info", "arguments": '{"school": "Stanford"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14},
    }
    path = _cassette(
        tmp_path,
        "legacy.yaml",
        {
            "request": {
                "method": "POST",
                "uri": "https://api.openai.com/v1/chat/completions",
                "headers": {"content-type": ["application/json"]},
                "body": json.dumps(request),
            },
            "response": {
                "status_code": 200,
                "http_version": "HTTP/1.1",
                "headers": {"Content-Type": "application/json"},
                "content": json.dumps(answer, indent=2),
            },
        },
    )
    (inter,) = load_cassette(path)
    assert (inter.status, inter.response_json) == (200, answer)
    doc = replay_paths([str(path)])
    assert doc["ok"], doc
    (f,) = doc["files"]
    assert [c["name"] for c in f["responses"][0]["tool_calls"]] == ["extract_student_info"]
    assert f["requests"] == [{"interaction": 0, "matches": True, "diff": None}]


_ISTR_CASSETTE = """interactions:
- request:
    body: '{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}'
    headers:
      ? !!python/object/apply:multidict._multidict.istr
      - Accept
      : - application/json
      ? !!python/object/new:multidict._multidict.istr
      - Content-Type
      : - application/json
      Content-Length:
      - '97'
    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body:
      string: '{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5", "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 1}}'
    headers:
      Content-Type:
      - application/json
    status:
      code: 200
      message: OK
version: 1
"""


def test_cassette_of_an_aiohttp_client_with_multidict_header_keys(tmp_path):
    """vcrpy records an aiohttp client's request headers with PyYAML's full dumper: each key a
    multidict ``istr`` (``? !!python/object/apply:multidict._multidict.istr [Accept]``). Such a file
    failed whole as "not YAML (could not determine a constructor for the tag ...istr)". Modelled on
    DataDog/dd-trace-py tests/cassettes/anthropic/*.yaml. Another Python tag is still refused."""
    path = tmp_path / "aiohttp.yaml"
    path.write_text(_ISTR_CASSETTE)
    (inter,) = load_cassette(path)
    assert inter.request_headers == {
        "Accept": ["application/json"],
        "Content-Type": ["application/json"],
        "Content-Length": ["97"],
    }
    doc = replay_paths([str(path)])
    assert doc["ok"], doc
    assert doc["files"][0]["responses"][0]["text"] == "hello"
    for tag, problem in (
        ("!!python/object/apply:os.system", "could not determine a constructor for the tag"),
        ("!!python/object/apply:multidict._multidict.CIMultiDict", "could not determine a constructor for the tag"),
    ):
        bad = tmp_path / "bad.yaml"
        bad.write_text(_ISTR_CASSETTE.replace("!!python/object/apply:multidict._multidict.istr", tag))
        (f,) = replay_paths([str(bad)])["files"]
        assert f["errors"][0].startswith(
            f"{bad} is not a recorded cassette: it is not YAML (line 5, column 9: {problem}"
        )
    bad.write_text(_ISTR_CASSETTE.replace("- Accept\n", "- [1, 2]\n", 1))
    (f,) = replay_paths([str(bad)])["files"]
    assert "holds no one string (its text)" in f["errors"][0]


_CASSETTE_IS = (
    "A cassette is the YAML file of HTTP interactions (vcrpy's format, a top-level 'interactions' list) that "
    "toolwire's pytest plugin writes: mark a test @pytest.mark.toolwire_cassette and run pytest --toolwire-record "
    "once with an API key (see 'Testing your agent' in the docs)"
)


@pytest.mark.parametrize(
    "content, why",
    [
        (
            "Install it:\n\n    pip install toolwire\n\ndef get_weather(city: str) -> str:\n",
            "it is not YAML (line 5, column 34: mapping values are not allowed here)",
        ),
        ("just some words\n", "it holds plain text, not a recording's 'interactions' list"),
        ("name: x\nversion: 1\n", "it holds a mapping without 'interactions', not a recording's 'interactions' list"),
        ("- 1\n- 2\n", "it holds a YAML list, not a recording's 'interactions' list"),
        ("", "it is empty"),
    ],
)
def test_replay_of_a_file_that_is_not_a_cassette_says_so(tmp_path, content, why):
    """A file that is not a recording (README.md) is named as such, with what a cassette is and how
    to record one, not the YAML parser's ScannerError."""
    path = tmp_path / "README.md"
    path.write_text(content)
    doc = replay_paths([str(path)])
    assert doc["ok"] is False
    assert doc["files"][0]["errors"] == [f"{path} is not a recorded cassette: {why}. {_CASSETTE_IS}"]


def test_replay_cli_of_a_markdown_file_prints_no_yaml_traceback(tmp_path):
    path = tmp_path / "README.md"
    path.write_bytes(b"\x80 not text")
    out = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "replay", str(path), "--json"], capture_output=True, text=True
    )
    assert out.returncode == 1
    (error,) = json.loads(out.stdout)["files"][0]["errors"]
    assert (
        error
        == f"{path} is not a recorded cassette: it is not YAML (not UTF-8 text: invalid start byte). {_CASSETTE_IS}"
    )


def _laughs(levels: int) -> list[str]:
    """YAML lines defining anchors a0..a<levels-1>, each a list of nine aliases of the one before:
    a few hundred bytes that expand to 9**levels values when read as data."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return lines


def test_replay_of_a_yaml_alias_bomb_stops_at_once(tmp_path):
    """Nested aliases ('billion laughs') in a body: reading the body as JSON text expanded them to
    some 3.4 billion strings (MemoryError after a minute under a 6 GB cap, the machine's memory
    otherwise). The file is refused before any body is read, naming what it does."""
    path = tmp_path / "bomb.yaml"
    path.write_text(
        "\n".join(
            _laughs(10)
            + [
                "interactions:",
                "- request: {method: POST, uri: 'https://api.anthropic.com/v1/messages', body: {x: *a9}}",
                "  response: {status: {code: 200, message: OK}, body: {x: *a9}}",
            ]
        )
        + "\n"
    )
    started = time.monotonic()
    doc = replay_paths([str(path)])
    assert time.monotonic() - started < 5
    (error,) = doc["files"][0]["errors"]
    assert error.startswith(
        f"{path} is not a recorded cassette: its YAML aliases (*name) expand to more than 1,000,000 values "
        "beyond the file's own"
    ), error


def test_a_cassette_with_a_few_aliases_still_loads(tmp_path):
    """A recording may repeat a structure through an anchor (PyYAML's dumper writes one for an
    object it meets twice): a small expansion is read as before."""
    path = tmp_path / "aliases.yaml"
    path.write_text(
        "interactions:\n"
        "- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions', headers: &h {a: [b]},"
        ' body: \'{"model": "gpt-4o", "messages": []}\'}\n'
        "  response: {status: {code: 200, message: OK}, headers: *h, body: {string: '{}'}}\n"
    )
    (inter,) = load_cassette(path)
    assert inter.request_headers == {"a": ["b"]} and inter.response_headers == {"a": ["b"]}


def test_replay_of_yaml_nested_too_deeply_says_so(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("interactions: " + "[" * 50_000 + "]" * 50_000 + "\n")
    doc = replay_paths([str(path)])
    assert doc["files"][0]["errors"] == [
        f"{path} is not a recorded cassette: its YAML nests too deeply to read (lists or mappings "
        f"thousands of levels deep). {_CASSETTE_IS}"
    ]


def test_replay_of_a_gzip_bomb_stops_at_the_size_bound(tmp_path, monkeypatch):
    """A gzipped file was decompressed whole (some 10 MB of gzip hold 10 GB of zeros); it is read
    up to MAX_UNZIPPED_BYTES (512 MiB; lowered here so the test stays small)."""
    import gzip

    from toolwire.testing import cassettes

    monkeypatch.setattr(cassettes, "MAX_UNZIPPED_BYTES", 1000)
    path = tmp_path / "zeros.yaml.gz"
    path.write_bytes(gzip.compress(b"interactions: []\n" + b" " * 5000))
    doc = replay_paths([str(path)])
    assert doc["files"][0]["errors"] == [
        f"{path} is not a recorded cassette: it decompresses to more than 1,000 bytes (a recording is far "
        f"smaller). {_CASSETTE_IS}"
    ]


_ANSWER = (
    '{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5", "content": '
    '[{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": null, '
    '"usage": {"input_tokens": 5, "output_tokens": 2}}'
)


def _interaction(uri: str, body: object, answer: str = _ANSWER, method: str = "POST") -> dict:
    request: dict = {"method": method, "uri": uri, "headers": {}}
    if body is not ...:
        request["body"] = body
    return {
        "request": request,
        "response": {
            "status": {"code": 200},
            "headers": {"content-type": ["application/json"]},
            "body": {"string": answer},
        },
    }


def _cassette(tmp_path, name: str, *interactions: dict):
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": list(interactions)}, allow_unicode=True))
    return path


def _replay_cli(path) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "replay", str(path), "--json"], capture_output=True, text=True
    )
    return proc.returncode, json.loads(proc.stdout)


_MESSAGES = json.dumps(
    {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("null", "the request body is JSON null"),
        (..., "the request has no body"),
        (None, "the request has no body"),
        ("", "the request has no body"),
        ("[1, 2]", "the request body is a JSON array"),
        ('"hi"', "the request body is a JSON string"),
        ("7", "the request body is a JSON number"),
        ("not json", "the request body is not JSON ('not json')"),
    ],
)
def test_replay_of_a_request_that_is_not_an_object_is_a_failure_naming_the_interaction(tmp_path, body, problem):
    """A recorded request to a model endpoint whose body is JSON null or missing was skipped with a
    note and the file counted ok (exit 0); not JSON, it failed the file with Python's
    JSONDecodeError. It is a failure naming the interaction, its endpoint and what the body is,
    and the interactions beside it still replay."""
    path = _cassette(
        tmp_path,
        "rec.yaml",
        _interaction("https://api.anthropic.com/v1/messages", _MESSAGES),
        _interaction("https://api.anthropic.com/v1/messages?beta=true", body),
    )
    code, doc = _replay_cli(path)
    assert code == 1
    (f,) = doc["files"]
    assert (f["file"], f["api"]) == (str(path), "anthropic")
    assert f["errors"] == [
        f"interaction 1 (POST /v1/messages): {problem} (a request to this endpoint is a JSON object); "
        "it cannot be replayed"
    ]
    assert [r["interaction"] for r in f["responses"]] == [0]
    assert doc["totals"]["files_ok"] == 0


def test_replay_of_a_response_without_a_body_is_a_failure_naming_the_interaction(tmp_path):
    """It was replayed as a live answer cut off by the network ("the connection or a proxy cut the
    answer; sending the request again may get the whole answer")."""
    path = _cassette(tmp_path, "rec.yaml", _interaction("https://api.anthropic.com/v1/messages", _MESSAGES, ""))
    code, doc = _replay_cli(path)
    assert code == 1
    assert doc["files"][0]["errors"] == [
        "interaction 0 (POST /v1/messages): the recorded response (HTTP 200) has no body; there is no answer to replay"
    ]


_EMBEDDING = (
    '{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}], '
    '"model": "text-embedding-3-small", "usage": {"prompt_tokens": 1, "total_tokens": 1}}'
)


@pytest.mark.parametrize(
    ("uri", "body", "answer"),
    [
        ("https://api.openai.com/v1/embeddings", '{"model": "text-embedding-3-small", "input": "hi"}', _EMBEDDING),
        ("https://api.openai.com/v1/completions", '{"model": "gpt-3.5-turbo-instruct", "prompt": "hi"}', "{}"),
        (
            "https://api.openai.com/v1/responses/input_tokens",
            '{"model": "gpt-4o", "input": "hi"}',
            '{"input_tokens": 3}',
        ),
        ("https://api.anthropic.com/v1/messages/count_tokens", _MESSAGES, '{"input_tokens": 8}'),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens",
            '{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}',
            '{"totalTokens": 3}',
        ),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:embedContent",
            '{"content": {"parts": [{"text": "hi"}]}}',
            '{"embedding": {"values": [0.1]}}',
        ),
        (
            "http://localhost:11434/api/chat",
            '{"model": "llama3", "messages": [{"role": "user", "content": "hi"}]}',
            "{}",
        ),
    ],
)
def test_replay_skips_an_endpoint_that_is_not_a_model_turn_and_says_so(tmp_path, uri, body, answer):
    """An embeddings request (its body has the `input` of a Responses request) was decoded by the
    Responses adapter and failed as "the body has no output array"; a token count was decoded as a
    message. The API is told by the request's path: another endpoint is skipped with a note naming
    it, beside the conversation that replays; alone, the file fails as "nothing replayable"."""
    from urllib.parse import urlsplit

    path = urlsplit(uri).path
    mixed = _cassette(
        tmp_path,
        "mixed.yaml",
        _interaction(uri, body, answer),
        _interaction("https://api.anthropic.com/v1/messages", _MESSAGES),
    )
    code, doc = _replay_cli(mixed)
    assert code == 0, doc
    (f,) = doc["files"]
    assert "errors" not in f and f["api"] == "anthropic"
    assert f["notes"] == [f"interaction 0 (POST {path}) is not a request to a model endpoint toolwire replays; skipped"]
    assert [(r["interaction"], r["text"]) for r in f["responses"]] == [(1, "hello")]
    alone = _cassette(tmp_path, "alone.yaml", _interaction(uri, body, answer), _interaction(uri, body, answer))
    code, doc = _replay_cli(alone)
    assert code == 1
    (f,) = doc["files"]
    assert f["api"] is None and f["responses"] == [] and f["requests"] == []
    assert f["errors"] == [
        f"nothing replayable: none of its 2 interactions is a request to a model endpoint toolwire replays "
        f"({_ENDPOINTS}); it holds requests to {path}"
    ]


@pytest.mark.parametrize(
    ("uri", "api"),
    [
        ("https://api.anthropic.com/v1/messages?beta=true", "anthropic"),
        ("https://proxy.example/anthropic/v1/messages", "anthropic"),
        ("https://api.openai.com/v1/chat/completions", "openai-chat"),
        (
            "https://example.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
            "openai-chat",
        ),
        ("https://api.openai.com/v1/responses", "openai"),
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent", "gemini"),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "gemini",
        ),
        ("https://api.openai.com/v1/embeddings", None),
        ("https://api.openai.com/v1/responses/resp_123", None),
        ("https://api.anthropic.com/v1/messages/count_tokens", None),
        ("https://api.anthropic.com/v1/messages/batches", None),
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens", None),
    ],
)
def test_a_recorded_interactions_api_is_told_by_its_path(tmp_path, uri, api):
    """Whatever the body looks like: here every body is a Responses-shaped one (`input`)."""
    path = _cassette(tmp_path, "one.yaml", _interaction(uri, '{"model": "m", "input": "hi"}'))
    (inter,) = load_cassette(path)
    assert inter.api == api


@pytest.mark.parametrize(
    ("method", "uri", "answer"),
    [
        # the OpenAI SDK's chat.completions.list(): GET /chat/completions (stored completions)
        ("GET", "https://api.openai.com/v1/chat/completions?limit=2", '{"object": "list", "data": []}'),
        ("get", "https://api.anthropic.com/v1/messages", "{}"),
        # the OpenAI SDK's beta.threads.messages.create(): POST /threads/{thread_id}/messages
        (
            "POST",
            "https://api.openai.com/v1/threads/thread_1/messages",
            '{"id": "msg_x", "object": "thread.message"}',
        ),
    ],
)
def test_replay_skips_a_request_that_is_not_a_model_turn_by_method_or_by_a_path_sharing_the_tail(
    tmp_path, method, uri, answer
):
    """A GET listing stored chat completions was taken for a Chat model turn and failed the file
    ("the request has no body"); an Assistants thread message was taken for an Anthropic
    Messages request and failed ("nothing to send"). Both are skipped with a note."""
    from urllib.parse import urlsplit

    body = '{"role": "user", "content": "hi"}' if method == "POST" else ...
    path = _cassette(
        tmp_path,
        "mixed.yaml",
        _interaction(uri, body, answer, method=method),
        _interaction("https://api.anthropic.com/v1/messages", _MESSAGES),
    )
    code, doc = _replay_cli(path)
    (f,) = doc["files"]
    assert (code, f.get("errors"), f["api"]) == (0, None, "anthropic")
    assert f["notes"] == [
        f"interaction 0 ({method} {urlsplit(uri).path}) is not a request to a model endpoint toolwire replays; skipped"
    ]
    assert [(r["interaction"], r["text"]) for r in f["responses"]] == [(1, "hello")]


def test_replay_of_a_server_giving_two_distinct_calls_one_id(tmp_path):
    """A compatible server gave both calls id X and the recording client answered both under X.
    toolwire runs them as X and X_1: the replay gave call X the result recorded for the later
    call (the last one under X) and failed on the ids; it pairs the results by position and says
    what toolwire does instead in a note."""
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    first = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    calls = [
        {"id": "X", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": c})}}
        for c in "AB"
    ]
    answer = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": calls},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    results = [{"role": "tool", "tool_call_id": "X", "content": f"sunny in {c}"} for c in "AB"]
    second = {**first, "messages": [*first["messages"], {"role": "assistant", "content": None, "tool_calls": calls}]}
    second["messages"] += results
    done = {
        **answer,
        "id": "c2",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    }
    uri = "http://127.0.0.1:8080/v1/chat/completions"
    path = _cassette(
        tmp_path,
        "shared.yaml",
        _interaction(uri, json.dumps(first), json.dumps(answer)),
        _interaction(uri, json.dumps(second), json.dumps(done)),
    )
    doc = replay_paths([str(path)])
    (f,) = doc["files"]
    assert [(c["id"], c["arguments"]) for c in f["responses"][0]["tool_calls"]] == [
        ("X", {"city": "A"}),
        ("X_1", {"city": "B"}),
    ]
    assert [(r["interaction"], r["matches"], r["diff"]) for r in f["requests"]] == [(0, True, None), (1, True, None)]
    assert f["notes"] == [
        "the server gave distinct tool calls of one answer the same id; toolwire runs and answers each under "
        "an id of its own (<id>_<position>) (seen 1 time)"
    ]
    assert doc["ok"]


def test_a_downloaded_image_beside_the_model_turn_does_not_break_the_cassette(tmp_path):
    """A client that downloads an image before sending it inline records the download: a GET whose
    response body is the image's bytes (vcrpy writes them as YAML binary). The file failed whole
    as "interaction 0 is malformed: its response 'body' is bytes that are not UTF-8 text"; the
    download is skipped like any endpoint that is not a model turn, and the model turn replays."""
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"
    download = {
        "request": {"method": "GET", "uri": "https://example.com/cat.png", "headers": {}, "body": None},
        "response": {"status": {"code": 200}, "headers": {"content-type": ["image/png"]}, "body": {"string": png}},
    }
    path = _cassette(
        tmp_path, "download.yaml", download, _interaction("https://api.anthropic.com/v1/messages", _MESSAGES)
    )
    code, doc = _replay_cli(path)
    assert code == 0, doc
    (f,) = doc["files"]
    assert "errors" not in f
    assert f["notes"] == ["interaction 0 (GET /cat.png) is not a request to a model endpoint toolwire replays; skipped"]
    assert [(r["interaction"], r["text"]) for r in f["responses"]] == [(1, "hello")]
    # a model turn whose answer is such bytes is still a broken recording
    broken = _interaction("https://api.anthropic.com/v1/messages", _MESSAGES)
    broken["response"]["body"] = {"string": png}
    code, doc = _replay_cli(_cassette(tmp_path, "broken.yaml", broken))
    assert code == 1
    assert "its response 'body' is bytes that are not UTF-8 text" in doc["files"][0]["errors"][0]


def test_a_request_the_vendor_refused_and_toolwire_refuses_too_is_not_a_failure(tmp_path):
    """A recording of a request the vendor refused (HTTP 400) that toolwire's preflight refuses
    before sending replays as that outcome, with a note; the same request recorded with a 200 is
    still a failure (toolwire would refuse what the vendor took)."""
    body = json.dumps(
        {
            "model": "claude-haiku-4-5",
            "max_tokens": 100,
            "temperature": 1.5,
            "messages": [{"role": "user", "content": "hi"}],
        }
    )
    refused = _interaction("https://api.anthropic.com/v1/messages", body)
    refused["response"]["status"] = {"code": 400}
    refused["response"]["body"] = {
        "string": json.dumps(
            {"type": "error", "error": {"type": "invalid_request_error", "message": "temperature: range: 0..1"}}
        )
    }
    code, doc = _replay_cli(_cassette(tmp_path, "refused.yaml", refused))
    assert code == 0, doc
    (f,) = doc["files"]
    assert "errors" not in f
    (note,) = f["notes"]
    assert note.startswith(
        "interaction 0: the vendor refused this request (HTTP 400); toolwire refuses it before sending"
    )
    assert "anthropic.request.sampling-range" in note
    assert f["responses"][0]["error"]["error_type"] == "request_refused"
    taken = _interaction("https://api.anthropic.com/v1/messages", body)
    code, doc = _replay_cli(_cassette(tmp_path, "taken.yaml", taken))
    assert code == 1
    assert "sampling-range" in doc["files"][0]["errors"][0]


def _unknown_tool_cassette(tmp_path, name: str, recorded_result: dict, tool: str = "list_files"):
    tools = [{"name": "get_file", "description": "Read a file.", "input_schema": {"type": "object"}}]
    first = {
        "model": "claude-haiku-4-5",
        "max_tokens": 100,
        "tools": tools,
        "messages": [{"role": "user", "content": "go"}],
    }
    call = {"type": "tool_use", "id": "toolu_01A", "name": tool, "input": {}}
    second = dict(
        first,
        messages=[
            *first["messages"],
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", **recorded_result}]},
        ],
    )
    called = json.loads(_ANSWER)
    called.update(content=[call], stop_reason="tool_use")
    return _cassette(
        tmp_path,
        name,
        _interaction("https://api.anthropic.com/v1/messages", json.dumps(first), json.dumps(called)),
        _interaction("https://api.anthropic.com/v1/messages", json.dumps(second)),
    )


def test_an_error_result_worded_by_the_recording_client_is_a_note_not_a_mismatch(tmp_path):
    """The model called a tool no request declares, under a name no toolwire tool can have
    ('1list': Anthropic takes a leading digit); the recording client answered with its own error
    text, toolwire answers the call as unknown in its own words: both refused the call, so the
    request matches (with a note)."""
    theirs = {"content": "Unknown tool name: '1list'. Available tools: 'get_file'", "is_error": True}
    code, doc = _replay_cli(_unknown_tool_cassette(tmp_path, "error.yaml", theirs, tool="1list"))
    assert code == 0, doc
    (f,) = doc["files"]
    assert [r["matches"] for r in f["requests"]] == [True, True]
    assert any("worded by toolwire" in n for n in f["notes"])
    # a call the recording client ran (a tool it made available mid-conversation, in an item no
    # request's tools list holds) is answered with the recorded result, and said so
    ran = {"content": "a.txt b.txt", "is_error": False}
    code, doc = _replay_cli(_unknown_tool_cassette(tmp_path, "ran.yaml", ran))
    assert code == 0, doc
    (f,) = doc["files"]
    assert [r["matches"] for r in f["requests"]] == [True, True]
    assert any("answered calls to tools no request declares (list_files)" in n for n in f["notes"])


def test_replay_sends_each_request_through_the_models_own_codec(tmp_path):
    """A compatible server's reasoning (DeepSeek's reasoning_content) goes back only to the server
    that sent it, which the model's codec knows by its base_url. Replay checked every request a
    second time with a bare codec that knows no server: the reasoning was left out and DeepSeek's
    rule refused the request that the recording shows DeepSeek took."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "roll_dice",
                "description": "Roll a die.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    first = {"model": "deepseek-reasoner", "messages": [{"role": "user", "content": "Roll."}], "tools": tools}
    thought = "I should roll the die."
    call = {"id": "call_00_a", "type": "function", "function": {"name": "roll_dice", "arguments": "{}"}}
    answer1 = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "deepseek-v4-flash",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "",
                    "reasoning_content": thought,
                    "tool_calls": [{"index": 0, **call}],
                },
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }
    second = dict(
        first,
        messages=[
            *first["messages"],
            {"role": "assistant", "content": "", "reasoning_content": thought, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_00_a", "content": "4"},
        ],
    )
    answer2 = {
        "id": "c2",
        "object": "chat.completion",
        "created": 2,
        "model": "deepseek-v4-flash",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "You rolled 4.", "reasoning_content": "Done."},
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    }
    url = "https://api.deepseek.com/chat/completions"
    path = _cassette(
        tmp_path,
        "deepseek.yaml",
        _interaction(url, json.dumps(first), json.dumps(answer1)),
        _interaction(url, json.dumps(second), json.dumps(answer2)),
    )
    code, doc = _replay_cli(path)
    assert code == 0, doc
    (f,) = doc["files"]
    assert [r["matches"] for r in f["requests"]] == [True, True]
    assert f["responses"][1]["text"] == "You rolled 4."


@pytest.mark.parametrize("status", [401, 404, 429])
def test_a_request_recorded_with_a_non_content_4xx_that_toolwire_refuses_still_fails(tmp_path, status):
    """A 401 / 404 / 429 says nothing about what the request held (a bad key, a missing model, a
    rate limit): toolwire refusing that request before sending is still a failure, not a note."""
    body = json.dumps(
        {
            "model": "claude-haiku-4-5",
            "max_tokens": 100,
            "temperature": 1.5,
            "messages": [{"role": "user", "content": "hi"}],
        }
    )
    limited = _interaction("https://api.anthropic.com/v1/messages", body)
    limited["response"]["status"] = {"code": status}
    limited["response"]["body"] = {
        "string": json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})
    }
    code, doc = _replay_cli(_cassette(tmp_path, "limited.yaml", limited))
    assert code == 1, doc
    (err,) = doc["files"][0]["errors"]
    assert f"recorded HTTP {status} gave RequestRefused" in err and "sampling-range" in err


# ---------------------------------------------------------------------------------------------
# habits of a recording client seen in real traffic (crewAI's cassettes): a call turn sent back
# without the text the model wrote beside its calls, and a Gemini turn's function responses
# sent back one Content each. The vendors took both (HTTP 200).

_ADD_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
_GEMINI_URI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"


def _dropped_text_conversation(api: str) -> tuple[str, list[tuple[dict, dict]]]:
    """(uri, [(request, answer), (request, answer)]): the model says "I'll add them." beside a
    call of add(2, 3); the recording client sends the call turn back without that text."""
    said = "I'll add them."
    if api == "anthropic":
        tools = [{"name": "add", "description": "Add.", "input_schema": _ADD_SCHEMA}]
        first = {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [{"role": "user", "content": "2+3?"}]}
        first["tools"] = tools
        call = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}
        usage = {"input_tokens": 5, "output_tokens": 2}
        answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
        answer |= {"content": [{"type": "text", "text": said}, call], "stop_reason": "tool_use", "usage": usage}
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}]}
        second = {**first, "messages": [*first["messages"], {"role": "assistant", "content": [call]}, result]}
        done = {**answer, "id": "msg_2", "content": [{"type": "text", "text": "5"}], "stop_reason": "end_turn"}
        return "https://api.anthropic.com/v1/messages", [(first, answer), (second, done)]
    if api == "openai-chat":
        tools = [{"type": "function", "function": {"name": "add", "parameters": _ADD_SCHEMA}}]
        first = {"model": "gpt-4o", "messages": [{"role": "user", "content": "2+3?"}], "tools": tools}
        calls = [{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]
        usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
        msg = {"role": "assistant", "content": said, "tool_calls": calls}
        answer = {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o", "usage": usage}
        answer["choices"] = [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]
        sent_back = [{"role": "assistant", "content": None, "tool_calls": calls}]
        sent_back.append({"role": "tool", "tool_call_id": "call_1", "content": "5"})
        second = {**first, "messages": [*first["messages"], *sent_back]}
        done = {**answer, "id": "c2"}
        done["choices"] = [{"index": 0, "message": {"role": "assistant", "content": "5"}, "finish_reason": "stop"}]
        return "https://api.openai.com/v1/chat/completions", [(first, answer), (second, done)]
    if api == "openai-responses":
        tools = [{"type": "function", "name": "add", "parameters": _ADD_SCHEMA}]
        first = {"model": "gpt-4o", "input": [{"role": "user", "content": "2+3?"}], "tools": tools}
        call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add"}
        call |= {"arguments": '{"a": 2, "b": 3}', "status": "completed"}
        text = {"type": "output_text", "text": said, "annotations": []}
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]}
        usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
        answer = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4o"}
        answer |= {"output": [message, call], "usage": usage, "tool_choice": "auto", "tools": tools}
        answer |= {"parallel_tool_calls": True}
        result = {"type": "function_call_output", "call_id": "call_1", "output": "5"}
        second = {**first, "input": [*first["input"], call, result]}
        done_text = {**message, "id": "msg_2", "content": [{**text, "text": "5"}]}
        done = {**answer, "id": "resp_2", "output": [done_text]}
        return "https://api.openai.com/v1/responses", [(first, answer), (second, done)]
    tools = [{"functionDeclarations": [{"name": "add", "description": "Add.", "parameters": _ADD_SCHEMA}]}]
    first = {"contents": [{"role": "user", "parts": [{"text": "2+3?"}]}], "tools": tools}
    call = {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}}
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}
    content = {"role": "model", "parts": [{"text": said}, call]}
    answer = {"candidates": [{"content": content, "finishReason": "STOP", "index": 0}], "usageMetadata": usage}
    response = {"functionResponse": {"name": "add", "response": {"result": 5}}}
    second = {**first, "contents": [*first["contents"], {"role": "model", "parts": [call]}]}
    second["contents"].append({"role": "user", "parts": [response]})
    done_content = {"role": "model", "parts": [{"text": "5"}]}
    done = {"candidates": [{"content": done_content, "finishReason": "STOP", "index": 0}], "usageMetadata": usage}
    return _GEMINI_URI, [(first, answer), (second, done)]


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "openai-responses", "gemini"])
def test_a_call_turn_sent_back_without_its_text_is_a_note_not_a_mismatch(tmp_path, api):
    """A recording client (crewAI, cassette test_anthropic_agent_kickoff_structured_output_with_tools)
    sent the model's call turn back without the text the model wrote beside the calls; the vendor
    took it. toolwire sends the turn back as it came (text and calls): the replay failed the
    request on "text ... vs recorded ''"; it is a note saying so."""
    uri, turns = _dropped_text_conversation(api)
    path = _cassette(tmp_path, f"{api}.yaml", *(_interaction(uri, json.dumps(q), json.dumps(a)) for q, a in turns))
    doc = replay_paths([str(path)])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert [(r["interaction"], r["matches"], r["diff"]) for r in f["requests"]] == [(0, True, None), (1, True, None)]
    assert f["responses"][0]["text"] == "I'll add them."
    assert f["notes"] == [
        "the recording client dropped the text the model wrote beside its tool calls when it sent the "
        "turn back; toolwire sends the model's turn back as it came (seen 1 time)"
    ]
    assert doc["ok"]


def _gemini_split_responses(tmp_path, trailing_text: str | None):
    """Two parallel calls answered in two user Contents of one functionResponse each (crewAI,
    cassette TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_agent_kickoff;
    the API answered HTTP 200), optionally followed by a user text Content."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    tools = [{"functionDeclarations": [{"name": "weather", "description": "Weather.", "parameters": schema}]}]
    first = {"contents": [{"role": "user", "parts": [{"text": "Paris and Rome?"}]}], "tools": tools}
    calls = [{"functionCall": {"name": "weather", "args": {"city": c}}} for c in ("Paris", "Rome")]
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}
    answer = {
        "candidates": [{"content": {"role": "model", "parts": calls}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage,
    }
    contents = [*first["contents"], {"role": "model", "parts": calls}]
    for city, degrees in (("Paris", 18), ("Rome", 24)):
        response = {"name": "weather", "response": {"result": f"{degrees} in {city}"}}
        contents.append({"role": "user", "parts": [{"functionResponse": response}]})
    if trailing_text is not None:
        contents.append({"role": "user", "parts": [{"text": trailing_text}]})
    done_content = {"role": "model", "parts": [{"text": "18 and 24."}]}
    done = {"candidates": [{"content": done_content, "finishReason": "STOP", "index": 0}], "usageMetadata": usage}
    return _cassette(
        tmp_path,
        "split.yaml",
        _interaction(_GEMINI_URI, json.dumps(first), json.dumps(answer)),
        _interaction(_GEMINI_URI, json.dumps({**first, "contents": contents}), json.dumps(done)),
    )


_SPLIT_NOTE = (
    "the recording client sent the results of one turn's tool calls in separate messages; toolwire sends "
    "them together in one message (seen 1 time)"
)


def test_gemini_function_responses_sent_one_content_each_replay_as_one_conversation(tmp_path):
    """The second request was taken for a new conversation (it did not extend the first by one
    results turn) and failed on "message count: toolwire sent 3, recorded 4". It continues the
    first: toolwire answers both calls with the recorded results, sends them in one Content (the
    form of Gemini's parallel function calling docs) and the difference is a note."""
    doc = replay_paths([str(_gemini_split_responses(tmp_path, None))])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert [(r["interaction"], r["matches"], r["diff"]) for r in f["requests"]] == [(0, True, None), (1, True, None)]
    assert [c["arguments"] for c in f["responses"][0]["tool_calls"]] == [{"city": "Paris"}, {"city": "Rome"}]
    assert f["responses"][1]["text"] == "18 and 24."
    assert f["notes"] == [_SPLIT_NOTE]
    assert doc["ok"]


def test_gemini_function_responses_one_content_each_then_a_user_text_still_match(tmp_path):
    """The same with a user text Content after the responses (crewAI's "Analyze the tool result.
    ..."): a new conversation from that request, whose rebuilt request matches with the note."""
    doc = replay_paths([str(_gemini_split_responses(tmp_path, "Analyze the tool result."))])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert [(r["interaction"], r["matches"], r["diff"]) for r in f["requests"]] == [(0, True, None), (1, True, None)]
    assert f["notes"] == [_SPLIT_NOTE]
    assert doc["ok"]


_UNTYPED_PART_BODY = json.dumps(
    {
        "model": "gpt-4o-mini",
        "messages": [
            {
                "role": "user",
                "content": [{"role": "system", "content": "You are Say Hi."}, {"role": "user", "content": "hi"}],
            }
        ],
    }
)
_UNTYPED_REFUSAL = json.dumps(
    {
        "error": {
            "message": "Missing required parameter: 'messages[0].content[0].type'.",
            "type": "invalid_request_error",
            "param": "messages[0].content[0].type",
            "code": "missing_required_parameter",
        }
    }
)


@pytest.mark.parametrize("status", [400, 200])
def test_a_recorded_request_toolwire_refuses_to_read(tmp_path, status):
    """A message put inside a Chat content list (crewAI cassette test_custom_llm_within_crew: the
    API answered HTTP 400 "Missing required parameter: 'messages[1].content[0].type'."). toolwire
    refuses to read such a request (a content part without a type). When the vendor refused it
    too, that is the recorded outcome without the round trip: a note and a request_refused error
    record, as for a preflight refusal; when the vendor took it, a failure."""
    interaction = _interaction("https://api.openai.com/v1/chat/completions", _UNTYPED_PART_BODY, _UNTYPED_REFUSAL)
    interaction["response"]["status"] = {"code": status}
    doc = replay_paths([str(_cassette(tmp_path, "untyped.yaml", interaction))])
    (f,) = doc["files"]
    refusal = (
        "openai-chat: malformed body at /messages/0/content/0/type: the content part at /messages/0/content/0 "
        "has no type"
    )
    if status == 400:
        assert f.get("errors", []) == []
        assert f["notes"] == [
            f"interaction 0: the vendor refused this request (HTTP 400); toolwire refuses to read it: {refusal}"
        ]
        assert [r["error"] for r in f["responses"]] == [
            {"status": None, "message": refusal, "retryable": False, "error_type": "request_refused"}
        ]
        assert doc["ok"]
    else:
        assert f["errors"] == [f"interaction 0: decode_request failed: ResponseDecodeError: {refusal}"]
        assert not doc["ok"]


#: One request body of each API, asking "hi", and the path of its model endpoint.
_HI = {
    "anthropic": (
        "https://api.anthropic.com/v1/messages",
        {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]},
    ),
    "openai-chat": (
        "https://example-resource.openai.azure.com/openai/deployments/gpt-4-1-mini/chat/completions?api-version=2024-02-01",
        {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]},
    ),
    "openai": ("https://api.openai.com/v1/responses", {"model": "gpt-4.1-mini", "input": "hi"}),
    "gemini": (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ),
}


@pytest.mark.parametrize("api", list(_HI))
def test_an_error_object_recorded_with_status_200_is_a_vendor_error_not_a_failure(tmp_path, api):
    # Azure OpenAI's content filter, recorded with status 200 and the HTTP status in the error
    # object (openllmetry cassette
    # packages/opentelemetry-instrumentation-openai/tests/traces/cassettes/test_azure/test_prompt_content_filtering.yaml)
    import yaml

    from .all_apis.answers import text_answer

    uri, body = _HI[api]
    message = "The response was filtered due to the prompt triggering Azure Content management policy."
    refused = {"error": {"message": message, "type": None, "param": "prompt", "code": "content_filter", "status": 400}}

    def inter(payload):
        return {
            "request": {"method": "POST", "uri": uri, "headers": {}, "body": json.dumps(body)},
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps(payload)},
            },
        }

    path = tmp_path / "filtered.yaml"
    path.write_text(yaml.safe_dump({"interactions": [inter(refused), inter(text_answer(api, "a joke"))]}))
    doc = replay_paths([str(path)])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert doc["ok"]
    first, second = f["responses"]
    assert (first["interaction"], first["stop_reason"]) == (0, "error")
    assert first["error"] == {"status": 400, "message": message, "retryable": False, "error_type": "content_filter"}
    assert (second["interaction"], second["text"]) == (1, "a joke")
    assert f["notes"] == [
        "interaction 0: the vendor sent an error object with HTTP 200; toolwire raises it as a ProviderError "
        "(HTTP 400 read from the body)"
    ]
    assert [r["matches"] for r in f["requests"]] == [True, True]


def _handoff_cassette(api: str) -> list[tuple[str, dict, dict]]:
    """A two-turn conversation of ``api`` in which the recording client (an agent framework handing
    the conversation to another agent) sends other instructions in its second request: ``(uri,
    request body, answer)`` per turn."""
    from .all_apis.answers import text_answer

    desc, schema = "Hand the conversation to agent B", {"type": "object", "properties": {}}
    result = '{"assistant": "B"}'
    if api == "anthropic":
        uri = "https://api.anthropic.com/v1/messages"
        tools = [{"name": "transfer_to_b", "description": desc, "input_schema": schema}]
        call = {"type": "tool_use", "id": "toolu_01", "name": "transfer_to_b", "input": {}}
        answer = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [call],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 4},
        }
        base = {"model": "claude-haiku-4-5", "max_tokens": 100, "tools": tools}
        first = {**base, "system": "A routes.", "messages": [{"role": "user", "content": "hi"}]}
        second = {
            **base,
            "system": "B answers.",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [call]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": result}]},
            ],
        }
    elif api == "openai-chat":
        uri = "https://api.openai.com/v1/chat/completions"
        tools = [{"type": "function", "function": {"name": "transfer_to_b", "description": desc, "parameters": schema}}]
        call = {"id": "call_1", "type": "function", "function": {"name": "transfer_to_b", "arguments": "{}"}}
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13},
        }
        user = {"role": "user", "content": "hi"}
        first = {
            "model": "gpt-4.1-mini",
            "tools": tools,
            "messages": [{"role": "system", "content": "A routes."}, user],
        }
        second = {
            "model": "gpt-4.1-mini",
            "tools": tools,
            "messages": [
                {"role": "system", "content": "B answers."},
                user,
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_1", "content": result},
            ],
        }
    elif api == "openai":
        uri = "https://api.openai.com/v1/responses"
        tools = [
            {"type": "function", "name": "transfer_to_b", "description": desc, "parameters": schema, "strict": False}
        ]
        call = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "transfer_to_b",
            "arguments": "{}",
            "status": "completed",
        }
        answer = {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-4.1-mini",
            "status": "completed",
            "output": [call],
            "usage": {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        }
        user = {"role": "user", "content": "hi"}
        first = {"model": "gpt-4.1-mini", "tools": tools, "instructions": "A routes.", "input": [user]}
        second = {
            "model": "gpt-4.1-mini",
            "tools": tools,
            "instructions": "B answers.",
            "input": [user, call, {"type": "function_call_output", "call_id": "call_1", "output": result}],
        }
    else:
        uri = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        tools = [{"functionDeclarations": [{"name": "transfer_to_b", "description": desc, "parameters": schema}]}]
        call = {"functionCall": {"name": "transfer_to_b", "args": {}}}
        answer = {
            "candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "totalTokenCount": 13},
            "modelVersion": "gemini-2.5-flash",
        }
        user = {"role": "user", "parts": [{"text": "hi"}]}
        first = {"tools": tools, "systemInstruction": {"parts": [{"text": "A routes."}]}, "contents": [user]}
        second = {
            "tools": tools,
            "systemInstruction": {"parts": [{"text": "B answers."}]},
            "contents": [
                user,
                {"role": "model", "parts": [call]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "transfer_to_b", "response": {"assistant": "B"}}}],
                },
            ],
        }
    return [(uri, first, answer), (uri, second, text_answer(api, "B here."))]


@pytest.mark.parametrize("api", list(_HI))
def test_instructions_the_recording_client_changed_mid_conversation_are_a_note_not_a_mismatch(tmp_path, api):
    # An agent handing the conversation to another sends the second agent's instructions from then
    # on (openllmetry cassette
    # packages/opentelemetry-instrumentation-openai-agents/tests/cassettes/test_openai_agents/test_agent_with_handoff_spans.yaml:
    # "You decide which agent to handoff to." then "Agent A does something.")
    import yaml

    interactions = [
        {
            "request": {"method": "POST", "uri": uri, "headers": {}, "body": json.dumps(body)},
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps(answer)},
            },
        }
        for uri, body, answer in _handoff_cassette(api)
    ]
    path = tmp_path / "handoff.yaml"
    path.write_text(yaml.safe_dump({"interactions": interactions}))
    doc = replay_paths([str(path)])
    (f,) = doc["files"]
    assert f.get("errors", []) == []
    assert f["requests"] == [
        {"interaction": 0, "matches": True, "diff": None},
        {"interaction": 1, "matches": True, "diff": None},
    ]
    assert [r["tool_calls"][0]["name"] if r["tool_calls"] else r["text"] for r in f["responses"]] == [
        "transfer_to_b",
        "B here.",
    ]
    assert f["notes"] == [
        "interactions 0-1: the recording client sent other instructions in later requests (an agent handing "
        "the conversation to another); each request is sent with the instructions the recording sent at that point"
    ]
    assert doc["ok"]

    # the same conversation with the second request's instructions left as the first's replays
    # without the note
    same = [(uri, body, answer) for uri, body, answer in _handoff_cassette(api)]
    first_body = same[0][1]
    second_body = dict(same[1][1])
    for key in ("system", "instructions", "systemInstruction"):
        if key in first_body:
            second_body[key] = first_body[key]
    if api == "openai-chat":
        second_body["messages"] = [first_body["messages"][0], *second_body["messages"][1:]]
    interactions[1]["request"]["body"] = json.dumps(second_body)
    path.write_text(yaml.safe_dump({"interactions": interactions}))
    doc = replay_paths([str(path)])
    assert doc["ok"] and doc["files"][0]["notes"] == []
