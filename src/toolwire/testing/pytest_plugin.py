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
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from .._words import plural

__all__ = [
    "cassette",
    "scrubbed_names",
    "SCRUBBED_REQUEST_HEADERS",
    "SCRUBBED_QUERY_PARAMETERS",
    "SCRUBBED_RESPONSE_HEADERS",
]

#: Request headers, query parameters and response headers always scrubbed (HTTP's own credential
#: carriers); each installed adapter's profile adds its API's names
#: (:attr:`~toolwire.profile.Profile.credential_headers`, ``credential_query_params``,
#: ``private_response_headers``), see :func:`scrubbed_names`.
SCRUBBED_REQUEST_HEADERS = ("authorization", "proxy-authorization", "cookie")
SCRUBBED_QUERY_PARAMETERS = ("key", "api_key", "api-key", "apikey", "access_token", "token", "auth", "signature", "sig")
SCRUBBED_RESPONSE_HEADERS = ("set-cookie", "authorization")


def scrubbed_names() -> dict[str, tuple[str, ...]]:
    """The names scrubbed from recordings: ``{"request_headers", "query_parameters",
    "response_headers"}``, the generic ones above plus every installed profile's (lower case)."""
    from toolwire.registry import installed_profiles

    req, query, resp = list(SCRUBBED_REQUEST_HEADERS), list(SCRUBBED_QUERY_PARAMETERS), list(SCRUBBED_RESPONSE_HEADERS)
    for prof in installed_profiles().values():
        req += [h.lower() for h in getattr(prof, "credential_headers", ())]
        query += [q.lower() for q in getattr(prof, "credential_query_params", ())]
        resp += [h.lower() for h in getattr(prof, "private_response_headers", ())]
        resp += [h.lower() for h in getattr(prof, "credential_headers", ())]
    return {
        "request_headers": tuple(dict.fromkeys(req)),
        "query_parameters": tuple(dict.fromkeys(query)),
        "response_headers": tuple(dict.fromkeys(resp)),
    }


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
        if _sensitive(name, scrubbed_names()["request_headers"]):
            del request.headers[name]
    parts = urlsplit(request.uri)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = urlencode(
        [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _sensitive(k, scrubbed_names()["query_parameters"])
        ]
    )
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
        if low in scrubbed_names()["response_headers"] or any(w in low for w in _RESPONSE_SECRET_WORDS):
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
        from .._install import extra_install_command

        raise ImportError(
            f"toolwire's cassettes need vcrpy: {extra_install_command('testing')} (or add vcrpy to your test dependencies)"
        ) from None

    path = Path(path)
    if not record and not path.exists():
        # this context manager does not read --toolwire-record or TOOLWIRE_RECORD (the pytest
        # fixture does, and checks the file itself first): name what records here
        raise FileNotFoundError(
            f"no cassette at {path}; record it once with an API key: cassette({str(path)!r}, record=True) "
            "(in a pytest test marked @pytest.mark.toolwire_cassette: pytest --toolwire-record)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    my_vcr = vcr.VCR(
        record_mode=vcr.record_mode.RecordMode.ALL if record else vcr.record_mode.RecordMode.NONE,
        filter_headers=list(scrubbed_names()["request_headers"]),
        filter_query_parameters=list(scrubbed_names()["query_parameters"]),
        before_record_request=_scrub_request,
        before_record_response=_scrub_response,
        decode_compressed_response=True,
        match_on=["method", "path", "query", *(["body"] if match_body else [])],
    )
    return my_vcr.use_cassette(str(path), allow_playback_repeats=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    """pytest hook: the ``toolwire`` options ``--toolwire-record`` (call the real APIs and rewrite the
    cassettes; also ``TOOLWIRE_RECORD=1``) and ``--toolwire-block-network`` (fail a test that sends
    a real HTTP request; also ``TOOLWIRE_BLOCK_NETWORK=1``)."""
    group = parser.getgroup("toolwire")
    group.addoption(
        "--toolwire-record",
        action="store_true",
        default=False,
        help="toolwire: call the real APIs and (re)write the cassettes instead of replaying them",
    )
    group.addoption(
        "--toolwire-block-network",
        action="store_true",
        default=False,
        help="toolwire: fail any test that sends a real HTTP request (loopback servers excepted); "
        "also TOOLWIRE_BLOCK_NETWORK=1. Always on while a cassette replays",
    )


def pytest_configure(config: pytest.Config) -> None:
    """pytest hook: registers the ``toolwire_cassette(path=None, match_body=False)`` marker."""
    config.addinivalue_line(
        "markers",
        "toolwire_cassette(path=None, match_body=False): replay (or with --toolwire-record, record) this test's vendor traffic; "
        "default path <test dir>/cassettes/<module>/<test name>.yaml",
    )


def _record_mode(config: pytest.Config) -> str:
    if config.getoption("--toolwire-record", default=False) or _truthy(os.environ.get("TOOLWIRE_RECORD")):
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


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def _block_network_option(config: pytest.Config) -> bool:
    return bool(config.getoption("--toolwire-block-network", default=False)) or _truthy(
        os.environ.get("TOOLWIRE_BLOCK_NETWORK")
    )


#: Hosts a blocked test may still reach: servers the test runs on this machine.
_LOOPBACK_HOSTS = ("localhost", "::1", "[::1]")


def _is_loopback(host: str) -> bool:
    return host in _LOOPBACK_HOSTS or host.startswith("127.")


def _blocked_message(request: Any, why: str) -> str:
    return (
        f"toolwire: a real HTTP request was blocked: {request.method} {request.url.scheme}://{request.url.host}"
        f"{request.url.path} ({why})\n"
        "  replay it from a cassette (@pytest.mark.toolwire_cassette), use the offline 'test' or 'scripted' "
        "provider, or pass http_client= with an httpx2.MockTransport"
    )


class _TransportGuard:
    """Wraps the ``httpx2`` transports every vendor SDK sends through, for one test: requests to
    hosts other than loopback fail the test (``pytest.fail``: a ``BaseException``, so no SDK
    retries it) while blocking is on, and a request a replaying cassette has no answer for fails
    the test with a short report instead of a traceback."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        *,
        why: str | None,
        cassette_path: Path | None = None,
        nodeid: str = "",
        match_body: bool = False,
    ) -> None:
        self.monkeypatch = monkeypatch
        self.why = why
        self.cassette_path = cassette_path
        self.nodeid = nodeid
        self.match_body = match_body
        self.sent = 0

    def install(self) -> None:
        import httpx2

        for cls, name in ((httpx2.HTTPTransport, "handle_request"), (httpx2.MockTransport, "handle_request")):
            self.monkeypatch.setattr(cls, name, self._wrap_sync(getattr(cls, name), real=cls is httpx2.HTTPTransport))
        for cls, name in (
            (httpx2.AsyncHTTPTransport, "handle_async_request"),
            (httpx2.MockTransport, "handle_async_request"),
        ):
            self.monkeypatch.setattr(
                cls, name, self._wrap_async(getattr(cls, name), real=cls is httpx2.AsyncHTTPTransport)
            )

    def _check(self, request: Any, real: bool) -> None:
        self.sent += 1
        if real and self.why and not _is_loopback(str(request.url.host)):
            pytest.fail(_blocked_message(request, self.why), pytrace=False)

    def _mismatch(self, exc: BaseException, request: Any) -> NoReturn:
        cas = getattr(exc, "cassette", None)
        recorded = len(cas) if cas is not None else 0
        played = getattr(cas, "play_count", 0) if cas is not None else 0
        what = "method, path, query and body" if self.match_body else "method, path and query"
        pytest.fail(
            f"toolwire: the cassette {self.cassette_path} has no recorded answer for request {self.sent} of this test: "
            f"{request.method} {request.url.path}\n"
            f"  it holds {plural(recorded, 'recorded request')}, {played} already played; requests are matched in order on {what}\n"
            f"  the test now sends a different or an extra request; re-record it with an API key: "
            f"pytest --toolwire-record {self.nodeid}",
            pytrace=False,
        )

    def _wrap_sync(self, original: Any, *, real: bool) -> Any:
        guard = self

        def handle_request(transport: Any, request: Any) -> Any:
            guard._check(request, real)
            try:
                return original(transport, request)
            except Exception as exc:
                if type(exc).__name__ != "CannotOverwriteExistingCassetteException":
                    raise
                refused = exc
            guard._mismatch(refused, request)  # outside the except: the report has no chained traceback

        return handle_request

    def _wrap_async(self, original: Any, *, real: bool) -> Any:
        guard = self

        async def handle_async_request(transport: Any, request: Any) -> Any:
            guard._check(request, real)
            try:
                return await original(transport, request)
            except Exception as exc:
                if type(exc).__name__ != "CannotOverwriteExistingCassetteException":
                    raise
                refused = exc
            guard._mismatch(refused, request)  # outside the except: the report has no chained traceback

        return handle_async_request


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@pytest.fixture(autouse=True)
def _toolwire_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Autouse: a test marked ``toolwire_cassette`` gets its cassette even without asking for the
    fixture, and ``--toolwire-block-network`` / ``TOOLWIRE_BLOCK_NETWORK=1`` blocks real requests."""
    if request.node.get_closest_marker("toolwire_cassette") is not None:
        request.getfixturevalue("toolwire_cassette")
        yield
        return
    if _block_network_option(request.config) and _record_mode(request.config) != "record":
        mp = pytest.MonkeyPatch()
        why = (
            "--toolwire-block-network"
            if request.config.getoption("--toolwire-block-network", default=False)
            else "TOOLWIRE_BLOCK_NETWORK is set"
        )
        try:
            _TransportGuard(mp, why=why).install()
        except ImportError:  # no httpx2: nothing can send through it
            pass
        try:
            yield
        finally:
            mp.undo()
        return
    yield


@pytest.fixture
def toolwire_cassette(request: pytest.FixtureRequest, toolwire_record_mode: str) -> Iterator[Any]:
    """The active cassette for this test (see the module docstring).

    While replaying, real requests are blocked (loopback excepted) and a request the cassette has
    no answer for fails the test with a three-line report; a missing cassette file fails it at
    setup with the command that records it."""
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
    record = toolwire_record_mode == "record"
    if not record and not path.exists():
        pytest.fail(
            f"toolwire: no cassette for this test at {_relative(path)}\n"
            f"  record it once with an API key: pytest --toolwire-record {request.node.nodeid} (or TOOLWIRE_RECORD=1)\n"
            "  or test offline without recording: the 'test' and 'scripted' providers",
            pytrace=False,
        )
    try:
        cm = cassette(path, record=record, match_body=match_body)
    except ImportError as exc:
        pytest.fail(f"toolwire: {exc}", pytrace=False)
    with cm as cas:
        mp = pytest.MonkeyPatch()
        if not record:
            # vcrpy's record_mode "none" already answers every request from the file or refuses it
            _TransportGuard(
                mp, why=None, cassette_path=Path(_relative(path)), nodeid=request.node.nodeid, match_body=match_body
            ).install()
        try:
            yield cas
        finally:
            mp.undo()


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
