"""pytest plugin for testing agents built on toolwire (registered through the ``pytest11`` entry
point, so it is active wherever toolwire is installed).

Record a real run once, replay it offline ever after:

```python
@pytest.mark.toolwire_cassette            # cassette: <test dir>/cassettes/<module>/<test>.yaml
async def test_weather_agent(toolwire_cassette):
    result = await toolwire.run("anthropic:claude-sonnet-4-5", "Weather in Paris?", tools=[get_weather])
    assert result.tool_runs[0].call.arguments == {"city": "Paris"}
```

- ``pytest --toolwire-record`` (or ``TOOLWIRE_RECORD=1``) talks to the real API and (re)writes the
  cassettes; without it the tests replay offline and a request with no recording fails.
- Credentials never reach the file: every value ``toolwire.secrets`` knows as a credential is
  replaced with ``[REDACTED]`` in headers, URI and bodies; the request headers ``authorization``, ``x-api-key``,
  ``x-goog-api-key``, ``api-key``, ``cookie`` and the ``key``/``api_key`` query parameters are
  removed before writing; response ``set-cookie`` and organisation/project headers too.
- The cassettes are vcrpy YAML (vcrpy patches ``httpx2``, the HTTP layer of all three SDKs), the
  same format ``toolwire replay`` reads.

Fixtures: ``toolwire_cassette`` (the active vcrpy cassette), ``toolwire_record_mode``
(``"replay"`` or ``"record"``), ``test_model`` / ``scripted_model`` (offline providers).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

__all__ = ["cassette", "SCRUBBED_REQUEST_HEADERS", "SCRUBBED_QUERY_PARAMETERS", "SCRUBBED_RESPONSE_HEADERS"]

SCRUBBED_REQUEST_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie", "openai-organization",
                            "openai-project", "proxy-authorization")
SCRUBBED_QUERY_PARAMETERS = ("key", "api_key", "api-key", "apikey", "access_token", "token", "auth", "signature", "sig")
SCRUBBED_RESPONSE_HEADERS = ("set-cookie", "openai-organization", "openai-project", "anthropic-organization-id",
                             "x-goog-api-key", "authorization")

#: Any header or query parameter whose name contains one of these words is scrubbed as well
#: (gateway headers such as ``Helicone-Auth`` or ``X-Portkey-Api-Key``).
SENSITIVE_NAME_PARTS = ("auth", "key", "token", "secret", "password", "cookie", "session", "credential", "signature")


# response headers: rate-limit counters ("...-tokens-remaining") are kept, credentials are not
_RESPONSE_SECRET_WORDS = ("auth", "secret", "password", "cookie", "credential", "api-key", "api_key", "apikey")


def _sensitive(name: str, exact: tuple[str, ...]) -> bool:
    low = name.lower()
    return low in exact or any(part in low for part in SENSITIVE_NAME_PARTS)


def _scrub_request(request: Any) -> Any:
    """Remove credentials from a request before vcrpy writes it: sensitive headers, sensitive
    query parameters (``key``, ``api-key``, ``token`` …) and ``user:password@`` in the URI."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    for name in list(request.headers):
        if _sensitive(name, SCRUBBED_REQUEST_HEADERS):
            del request.headers[name]
    parts = urlsplit(request.uri)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not _sensitive(k, SCRUBBED_QUERY_PARAMETERS)])
    request.uri = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    _scrub_known(request)
    return request


def _scrub_known(request: Any) -> None:
    """Known credentials (``toolwire.secrets``) wherever else they are: header values, the URI
    and the body (a key passed in a setting or echoed in a prompt)."""
    from toolwire.secrets import scrub, scrub_value

    for name in list(request.headers):
        value = request.headers[name]
        if isinstance(value, str) and scrub(value) != value:
            request.headers[name] = scrub(value)
    request.uri = scrub(request.uri)
    body = getattr(request, "body", None)
    if body is not None:
        new = scrub_value(body)
        if new is not body:
            request.body = new


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers") or {}
    for name in list(headers):
        low = name.lower()
        if low in SCRUBBED_RESPONSE_HEADERS or any(w in low for w in _RESPONSE_SECRET_WORDS):
            del headers[name]
    from toolwire.secrets import scrub_value

    for name in list(headers):
        headers[name] = scrub_value(headers[name])
    body = response.get("body")
    if isinstance(body, dict) and "string" in body:
        body["string"] = scrub_value(body["string"])
    return response


def cassette(path: str | Path, *, record: bool = False, match_body: bool = False) -> Any:
    """A vcrpy cassette context manager over ``path``.

    ``record=False`` replays only (``record_mode="none"``: an unrecorded request raises
    ``vcr.errors.CannotOverwriteExistingCassetteException``); ``record=True`` talks to the network
    and rewrites the file (``record_mode="all"``). Credentials are scrubbed before writing.
    Requests are matched in order on method, path and query — not on the host, so a cassette
    recorded through a compatible server or a proxy replays against the default endpoint.
    ``match_body=True`` also requires the request body to be the recorded one, so a test whose
    prompt, tools or settings changed fails instead of replaying a stale answer.
    """
    try:
        import vcr
    except ImportError:
        raise ImportError(
            "toolwire's cassettes need vcrpy: pip install \"toolwire[testing]\" (or add vcrpy to your test dependencies)"
        ) from None

    path = Path(path)
    if not record and not path.exists():
        raise FileNotFoundError(
            f"no cassette at {path}; record it once with `pytest --toolwire-record` (or TOOLWIRE_RECORD=1) and an API key"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    my_vcr = vcr.VCR(
        record_mode="all" if record else "none",
        filter_headers=list(SCRUBBED_REQUEST_HEADERS),
        filter_query_parameters=list(SCRUBBED_QUERY_PARAMETERS),
        before_record_request=_scrub_request,
        before_record_response=_scrub_response,
        decode_compressed_response=True,
        match_on=["method", "path", "query", *(["body"] if match_body else [])],
    )
    return my_vcr.use_cassette(str(path), allow_playback_repeats=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolwire")
    group.addoption("--toolwire-record", action="store_true", default=False,
                    help="toolwire: call the real APIs and (re)write the cassettes instead of replaying them")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "toolwire_cassette(path=None, match_body=False): replay (or with --toolwire-record, record) this test's vendor traffic; "
        "default path <test dir>/cassettes/<module>/<test name>.yaml",
    )


def _record_mode(config: pytest.Config) -> str:
    if config.getoption("--toolwire-record", default=False) or os.environ.get("TOOLWIRE_RECORD", "").strip().lower() not in (
        "", "0", "false", "no", "off"):
        return "record"
    return "replay"


def _cassette_name(node: Any) -> str:
    """A file name unique per test: the class path and test name (parametrize id included),
    reduced to ``[A-Za-z0-9._-]``; when that loses information or is long, a short hash of the
    full node id keeps different tests apart."""
    import hashlib
    import re

    parts = [p for p in node.nodeid.split("::")[1:]]
    raw = ".".join(parts) or node.name
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", raw.replace("[", "-").replace("]", "")).strip("._") or "test"
    if safe != raw.replace("[", "-").replace("]", "") or len(safe) > 120:
        digest = hashlib.sha256(node.nodeid.encode("utf-8")).hexdigest()[:10]
        safe = f"{safe[:100]}-{digest}"
    return safe


@pytest.fixture
def toolwire_record_mode(request: pytest.FixtureRequest) -> str:
    """``"record"`` with ``--toolwire-record`` / ``TOOLWIRE_RECORD=1``, else ``"replay"``."""
    return _record_mode(request.config)


@pytest.fixture
def toolwire_cassette(request: pytest.FixtureRequest, toolwire_record_mode: str) -> Iterator[Any]:
    """The active cassette for this test (see the module docstring)."""
    marker = request.node.get_closest_marker("toolwire_cassette")
    explicit = (marker.args[0] if marker and marker.args else None) or (marker.kwargs.get("path") if marker else None)
    test_file = Path(str(request.node.fspath))
    if explicit:
        path = Path(explicit)
        if not path.is_absolute():
            path = test_file.parent / path
    else:
        path = test_file.parent / "cassettes" / test_file.stem / f"{_cassette_name(request.node)}.yaml"
    match_body = bool(marker.kwargs.get("match_body", False)) if marker else False
    with cassette(path, record=toolwire_record_mode == "record", match_body=match_body) as cas:
        yield cas


@pytest.fixture
def test_model() -> Any:
    """A fresh offline ``test`` model (calls every tool once, then reports)."""
    from .providers import TestModel

    return TestModel("test")


@pytest.fixture
def scripted_model() -> Any:
    """A factory: ``scripted_model(responses=[...])`` → a fresh :class:`ScriptedModel`."""
    from .providers import ScriptedModel

    def make(**settings: Any) -> Any:
        return ScriptedModel("scripted", **settings)

    return make
