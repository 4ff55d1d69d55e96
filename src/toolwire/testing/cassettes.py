"""Reading VCR-style cassettes (vcrpy / pytest-recording YAML) of vendor API traffic.

Handles the three body encodings found in real cassettes:

1. ``parsed_body``: the JSON stored as a YAML mapping;
2. ``body: {string: '<text>'}`` (or ``body: '<text>'`` for requests): raw text;
3. ``body: {string: !!binary <base64>}``: raw bytes, gzip-compressed when they start with the
   gzip magic ``1f 8b`` (``Content-Encoding: gzip``).

A response recorded by vcrpy's older httpx stub (``status_code`` and ``content`` in place of
``status`` and ``body``) is read as the usual layout; the multidict ``istr`` header keys vcrpy
writes for an aiohttp client are read as text (the file is read with PyYAML's safe loader).

Decoded response text is one JSON object, Server-Sent Events, or a JSON array of chunks
(Gemini ``streamGenerateContent`` without ``alt=sse``).
"""

from __future__ import annotations

import gzip
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "shared_dir",
    "recordings_dir",
    "Interaction",
    "SSEEvent",
    "load_cassette",
    "MalformedCassette",
    "NotACassette",
    "parse_sse",
    "detect_api",
    "decode_body",
]


def shared_dir() -> Path | None:
    """The read-only ``shared/`` folder beside the repository (``$TOOLWIRE_SHARED`` overrides),
    or ``None`` when it is absent (tests that need it skip)."""
    import os

    env = os.environ.get("TOOLWIRE_SHARED")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").exists() and (parent / "src" / "toolwire").exists():
            candidates.append(parent.parent / "shared")
            break
    candidates.append(Path.cwd().parent / "shared")
    for c in candidates:
        if (c / "recordings").is_dir():
            return c
    return None


def recordings_dir() -> Path | None:
    """``shared/recordings`` or ``None`` when absent."""
    d = shared_dir()
    return d / "recordings" if d else None


@dataclass
class SSEEvent:
    """One Server-Sent Event: ``event`` name (or ``None``) and ``data`` (parsed JSON, or the raw
    text when it is not JSON, e.g. ``[DONE]``)."""

    event: str | None
    data: Any


@dataclass
class Interaction:
    """One recorded HTTP round trip, bodies decoded."""

    index: int
    method: str
    uri: str
    request_headers: dict[str, list[str] | str]
    request_text: str | None
    status: int
    response_headers: dict[str, list[str] | str]
    response_text: str | None
    api: str | None = None
    stream_format: str | None = None  # None, "sse" or "json-array"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def request_json(self) -> Any:
        return None if not self.request_text else json.loads(self.request_text)

    @property
    def response_json(self) -> Any:
        """The response body as JSON (an object, or for a JSON-array stream the list of chunks)."""
        if self.stream_format == "sse" or not self.response_text:
            return None
        return json.loads(self.response_text)

    @property
    def sse_events(self) -> list[SSEEvent]:
        if self.stream_format != "sse" or self.response_text is None:
            return []
        return parse_sse(self.response_text)

    @property
    def stream_chunks(self) -> list[Any]:
        """Parsed stream payloads in order: SSE ``data`` objects (``[DONE]`` and non-JSON data
        dropped), or the chunks of a JSON-array stream. Empty for a non-streamed response."""
        if self.stream_format == "sse":
            return [e.data for e in self.sse_events if isinstance(e.data, (dict, list))]
        if self.stream_format == "json-array":
            return list(self.response_json)
        return []

    def header(self, name: str, *, response: bool = True) -> str | None:
        """The value of header ``name`` (any case) in the response headers, or the request headers with
        ``response=False``: the first value when it was recorded as a list; ``None`` when absent."""
        headers = self.response_headers if response else self.request_headers
        for k, v in headers.items():
            if k.lower() == name.lower():
                return v[0] if isinstance(v, list) and v else (v if isinstance(v, str) else None)
        return None


def decode_body(body: Any, parsed: Any = None) -> str | None:
    """Return a recorded body as text (see the module docstring for the encodings)."""
    if parsed is not None:
        return json.dumps(parsed, ensure_ascii=False)
    if body is None:
        return None
    if isinstance(body, dict):
        if "string" in body:
            body = body["string"]
        elif "content" in body and body.get("type") in ("json", "text", "bytes", "binary", "base64"):
            # the newer pytest-recording/pydantic-ai layout: {type: json|text, content: ...}
            content = body["content"]
            if body["type"] == "json" and not isinstance(content, str):
                return json.dumps(content, ensure_ascii=False)
            if body["type"] in ("base64",) and isinstance(content, str):
                import base64

                body = base64.b64decode(content)
            else:
                body = content
        else:
            return json.dumps(body, ensure_ascii=False)
    if isinstance(body, bytes):
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        return body.decode("utf-8")
    if isinstance(body, str):
        return body
    raise ValueError(f"unsupported cassette body of type {type(body).__name__}")


def parse_sse(text: str) -> list[SSEEvent]:
    """Split Server-Sent Events (blank-line separated; ``\\n`` or ``\\r\\n``) into events. Multiple
    ``data:`` lines of one event are joined with ``\\n`` (the SSE rule); comment lines are ignored."""
    events: list[SSEEvent] = []
    name: str | None = None
    data_lines: list[str] = []

    def flush() -> None:
        nonlocal name, data_lines
        if data_lines or name is not None:
            raw = "\n".join(data_lines)
            try:
                data: Any = json.loads(raw)
            except json.JSONDecodeError:
                data = raw
            events.append(SSEEvent(name, data))
        name, data_lines = None, []

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            flush()
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if key == "event":
            name = value
        elif key == "data":
            data_lines.append(value)
    flush()
    return events


def detect_api(uri: str, body: Any = None) -> str | None:
    """The provider a recorded request belongs to, asked of every installed adapter's profile:
    the first whose :meth:`~toolwire.profile.Profile.recognizes_uri` accepts the request URI
    (the API's model-turn endpoint), else, when ``body`` is given, the first whose
    :meth:`~toolwire.profile.Profile.recognizes_body` accepts the body; ``None`` when none does.

    :func:`load_cassette` (and so ``toolwire replay``) passes the URI alone: a body's shape does
    not tell the endpoint (an embeddings request has the ``input`` of a Responses one), so a
    request to another endpoint gets ``None`` and is skipped, not decoded as the wrong API."""
    from ..registry import installed_profiles

    profiles = installed_profiles()
    for name, prof in profiles.items():
        try:
            if prof.recognizes_uri(uri):
                return name
        except Exception:
            continue
    if body is not None:
        for name, prof in profiles.items():
            try:
                if prof.recognizes_body(body):
                    return name
            except Exception:
                continue
    return None


def _stream_format(uri: str, request_json: Any, headers: dict[str, Any], text: str | None) -> str | None:
    ctype = ""
    for k, v in headers.items():
        if k.lower() == "content-type":
            ctype = (v[0] if isinstance(v, list) else v) or ""
    if "text/event-stream" in ctype:
        return "sse"
    if text is not None:
        stripped = text.lstrip()
        if stripped.startswith("event:") or stripped.startswith("data:"):
            return "sse"
        if stripped.startswith("[") and _requested_stream(uri, request_json):
            return "json-array"  # a stream of chunks sent as one JSON array
    return None


def _requested_stream(uri: str, body: Any) -> bool:
    """Whether the recorded request asked for a streamed answer, asked of the profile that
    recognises it (:meth:`~toolwire.profile.Profile.requested_stream`)."""
    from ..registry import cached_profile

    api = detect_api(uri)
    prof = cached_profile(api) if api else None
    if prof is None:
        return isinstance(body, dict) and body.get("stream") is True
    try:
        return bool(prof.requested_stream(uri, body))
    except Exception:
        return False


class NotACassette(ValueError):
    """A file given as a cassette that is not one: not YAML (or not gzipped YAML), or YAML
    without the ``interactions`` list of a recording. The message names the file, says what a
    cassette is and how to record one, and keeps the YAML parser's detail to its position and
    problem."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(
            f"{path} is not a recorded cassette: {why}. A cassette is the YAML file of HTTP "
            "interactions (vcrpy's format, a top-level 'interactions' list) that toolwire's pytest "
            "plugin writes: mark a test @pytest.mark.toolwire_cassette and run pytest --toolwire-record "
            "once with an API key (see 'Testing your agent' in the docs)"
        )
        self.path: str = str(path)
        self.why = why


def _yaml_problem(exc: Exception) -> str:
    """``"line 17, column 21: mapping values are not allowed here"`` for a YAML error."""
    import yaml

    if isinstance(exc, yaml.reader.ReaderError):
        return f"not UTF-8 text: {exc.reason}"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or type(exc).__name__
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}{problem}"


#: The most bytes a gzipped cassette may decompress to (a few MB of gzip can hold gigabytes of
#: zeros); far above a recording, whose requests each the APIs take up to some 20-50 MB.
MAX_UNZIPPED_BYTES = 1 << 29

#: The most values a cassette's YAML aliases (``*name``, each a copy of what its anchor names once
#: the document is data) may add to the values written in the file. A recording repeats little
#: (PyYAML's dumper anchors an object it meets twice); a few lines of nested aliases ("billion
#: laughs") expand to billions of values, which reading a body as JSON text would write out.
MAX_ALIAS_GROWTH = 1_000_000


def _alias_growth(root: Any) -> int:
    """How many values the aliases of a composed YAML document add to its written ones (counted up
    to just over :data:`MAX_ALIAS_GROWTH`): each node counted once per path that reaches it, less
    the distinct nodes. Iterative (a deep document does not recurse here); a cycle counts once."""
    import yaml

    order: list[tuple[Any, list[Any]]] = []  # each distinct node after the nodes below it
    seen: set[int] = set()
    stack: list[tuple[Any, list[Any] | None]] = [(root, None)]
    while stack:
        node, children = stack.pop()
        if children is not None:
            order.append((node, children))
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        stack.append((node, children))
        stack.extend((c, None) for c in children if id(c) not in seen)
    cap = len(order) + MAX_ALIAS_GROWTH + 1  # past it the exact count does not matter
    sizes: dict[int, int] = {}
    for node, children in order:
        # a child not counted yet is an ancestor (a cycle): it counts once
        sizes[id(node)] = min(cap, 1 + sum(sizes.get(id(c), 1) for c in children))
    return sizes[id(root)] - len(order)


class MalformedCassette(ValueError):
    """A cassette whose ``interactions`` list holds an entry toolwire cannot read: the message
    names the interaction (from 0) and says, in the cassette's own keys, what is wrong and what
    shape is expected (vcrpy's layout: ``request`` with method, uri, headers, body; ``response``
    with status, headers, body)."""


def _shape(value: Any) -> str:
    """A YAML value described for a message: ``a list``, ``a string ('x')``, ``a number (7)``."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "..."
        return f"a string ({shown!r})"
    return {dict: "a mapping", list: "a list"}.get(type(value), f"a YAML {type(value).__name__}")


def _mapping(value: Any, where: str, expected: str) -> dict[Any, Any]:
    """``value`` when it is a mapping (``{}`` when it is absent or empty), else
    :class:`MalformedCassette` saying that ``where`` is not one (``expected``: its keys)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedCassette(f"{where} is {_shape(value)}, not a mapping{expected}")
    return value


def _body_text(side: dict[Any, Any], which: str) -> str | None:
    """:func:`decode_body` of a request's or response's body, a body it cannot read reported as
    :class:`MalformedCassette` naming it."""
    body = side.get("body")
    try:
        return decode_body(body, side.get("parsed_body"))
    except UnicodeDecodeError:
        raise MalformedCassette(f"its {which} 'body' is bytes that are not UTF-8 text") from None
    except (ValueError, TypeError, OSError, EOFError) as exc:
        if isinstance(body, dict):
            raise MalformedCassette(f"its {which} 'body' cannot be read ({exc})") from None
        raise MalformedCassette(
            f"its {which} 'body' is {_shape(body)}, not text, bytes or a mapping with 'string' "
            "(or 'type' and 'content')"
        ) from None


def _body_text_or_none(side: dict[Any, Any], which: str) -> str | None:
    """:func:`_body_text`, or ``None`` for bytes that are not UTF-8 text (a downloaded image)."""
    try:
        return _body_text(side, which)
    except MalformedCassette:
        body = side.get("body")
        if isinstance(body, (bytes, bytearray)) or (isinstance(body, dict) and isinstance(body.get("string"), bytes)):
            return None
        raise


#: The Python tags a recording may hold that name a string type: vcrpy writes request headers of
#: an aiohttp client (a ``CIMultiDict``) with PyYAML's full dumper, each key a multidict ``istr`` (a
#: case-insensitive ``str``): ``? !!python/object/apply:multidict._multidict.istr [Accept]``
#: (``python/object/new:`` with newer PyYAML). vcrpy reads its cassettes with PyYAML's unsafe
#: loader; toolwire keeps the safe one and reads these tags, and only these, as the text they hold.
#: Recordings with them: DataDog/dd-trace-py tests/cassettes/openai/*.yaml, tests/cassettes/anthropic/*.yaml.
_STRING_TAG_PREFIXES = ("tag:yaml.org,2002:python/object/apply:", "tag:yaml.org,2002:python/object/new:")


def _is_istr(type_name: str) -> bool:
    """``multidict._multidict.istr``, ``multidict._multidict_py.istr``, ``multidict.istr``: a
    multidict module's ``istr``."""
    module, _, name = type_name.rpartition(".")
    return name == "istr" and (module == "multidict" or module.startswith("multidict."))


def _construct_istr(loader: Any, tag_suffix: str, node: Any) -> str:
    import yaml

    if not _is_istr(tag_suffix):
        raise yaml.constructor.ConstructorError(
            None, None, f"could not determine a constructor for the tag {node.tag!r}", node.start_mark
        )
    args: Any = None
    if isinstance(node, yaml.SequenceNode):
        args = loader.construct_sequence(node)
    elif isinstance(node, yaml.MappingNode):
        args = loader.construct_mapping(node, deep=True).get("args")
    if isinstance(args, list) and len(args) == 1 and isinstance(args[0], str):
        return args[0]
    raise yaml.constructor.ConstructorError(
        None, None, f"the tag {node.tag!r} holds no one string (its text)", node.start_mark
    )


_LOADER: Any = None


def _cassette_loader() -> Any:
    """PyYAML's ``SafeLoader`` that also reads a multidict ``istr`` as its text (see
    :data:`_STRING_TAG_PREFIXES`); any other Python tag is still a YAML error."""
    global _LOADER
    if _LOADER is None:
        import yaml

        class CassetteLoader(yaml.SafeLoader):
            pass

        for prefix in _STRING_TAG_PREFIXES:
            CassetteLoader.add_multi_constructor(prefix, _construct_istr)
        _LOADER = CassetteLoader
    return _LOADER


def load_cassette(path: str | Path) -> list[Interaction]:
    """Load every interaction of a cassette file, bodies decoded to text. Raises
    :class:`NotACassette` for a file that is not a recording (not YAML, or no ``interactions``)
    and :class:`MalformedCassette` (a ``ValueError``) naming the interaction for a malformed one
    and what is wrong with it."""
    import yaml

    with open(path, "rb") as fh:
        raw = fh.read()
    if raw[:2] == b"\x1f\x8b":  # a gzipped cassette (*.yaml.gz)
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unzipped:
                raw = unzipped.read(MAX_UNZIPPED_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise NotACassette(path, f"it starts as gzip but does not decompress ({exc})") from exc
        if len(raw) > MAX_UNZIPPED_BYTES:
            raise NotACassette(
                path, f"it decompresses to more than {MAX_UNZIPPED_BYTES:,} bytes (a recording is far smaller)"
            )
    loader = None
    try:
        loader = _cassette_loader()(raw)  # (reads the encoding: a ReaderError for bytes that are not text)
        node = loader.get_single_node()
        grown = _alias_growth(node) if node is not None else 0
        if grown > MAX_ALIAS_GROWTH:
            raise NotACassette(
                path,
                f"its YAML aliases (*name) expand to more than {MAX_ALIAS_GROWTH:,} values beyond the file's own "
                "(nested aliases, a 'billion laughs' document: reading it would exhaust memory)",
            )
        doc = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise NotACassette(path, f"it is not YAML ({_yaml_problem(exc)})") from None
    except RecursionError:  # the composer recurses once per nesting level
        raise NotACassette(
            path, "its YAML nests too deeply to read (lists or mappings thousands of levels deep)"
        ) from None
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(doc, dict) or "interactions" not in doc:
        if doc is None:
            why = "it is empty"
        else:
            what = {dict: "a mapping without 'interactions'", str: "plain text", list: "a YAML list"}.get(
                type(doc), f"a YAML {type(doc).__name__}"
            )
            why = f"it holds {what}, not a recording's 'interactions' list"
        raise NotACassette(path, why)
    interactions = doc.get("interactions") or []
    if not isinstance(interactions, list):
        raise MalformedCassette(
            f"'interactions' is {_shape(interactions)}, not a list of request/response mappings (vcrpy's layout)"
        )
    out: list[Interaction] = []
    for i, it in enumerate(interactions):
        try:
            out.append(_interaction(i, it))
        except MalformedCassette as exc:
            raise MalformedCassette(f"interaction {i} is malformed: {exc}") from None
        except Exception as exc:  # name the interaction that is broken
            raise MalformedCassette(f"interaction {i} is malformed: {type(exc).__name__}: {exc}") from exc
    return out


def _interaction(i: int, it: Any) -> Interaction:
    if not isinstance(it, dict):
        raise MalformedCassette(
            f"it is {_shape(it)}, not a mapping with 'request' and 'response' keys (vcrpy's layout)"
        )
    for side, keys in (("request", "method, uri, headers, body"), ("response", "status, headers, body")):
        if it.get(side) is None:
            raise MalformedCassette(f"it has no '{side}' (a mapping with {keys}, vcrpy's layout)")
    req = _mapping(it.get("request"), "its 'request'", " (method, uri, headers, body)")
    resp = _mapping(it.get("response"), "its 'response'", " (status, headers, body)")
    if "status" not in resp and "status_code" in resp:
        # vcrpy's httpx stub before 5.x wrote a response as {status_code, http_version, headers,
        # content} (content: the decoded text; vcr/stubs/httpx_stubs.py _to_serialized_response),
        # and vcrpy still plays such cassettes back: read it as the usual status/body layout.
        # Recordings in this layout: DataDog/dd-trace-py tests/contrib/openai/cassettes/v1/*.yaml
        resp = {**resp, "status": resp.get("status_code")}
        if "body" not in resp and "parsed_body" not in resp:
            resp["body"] = resp.get("content")
    if not isinstance(req.get("uri"), str) or not req["uri"]:
        got = "no 'uri'" if req.get("uri") is None else f"a 'uri' that is {_shape(req['uri'])}"
        raise MalformedCassette(f"its 'request' has {got}, not the URL the request was sent to")
    uri = req["uri"]
    # every model turn is a POST to a model endpoint (see the api field below): another
    # interaction (an image or file the client downloaded, a file upload) is skipped by replay,
    # so a body of it that is not text (the image's bytes) is kept as no body, not a broken file
    model_turn = str(req.get("method", "POST")).strip().upper() == "POST" and detect_api(uri) is not None
    req_text = _body_text(req, "request") if model_turn else _body_text_or_none(req, "request")
    resp_text = _body_text(resp, "response") if model_turn else _body_text_or_none(resp, "response")
    status = resp.get("status", {})
    code = status.get("code") if isinstance(status, dict) else status
    if code is None:
        raise MalformedCassette("its 'response' has no 'status' code (the HTTP status, such as 200)")
    # a float only of a whole value (200.0): 200.5 was cut to 200, NaN/infinity failed on int()
    if (
        isinstance(code, bool)
        or not isinstance(code, (int, float, type(None)))
        or (isinstance(code, float) and not (math.isfinite(code) and code.is_integer()))
    ):
        if not (isinstance(code, str) and code.strip().isdigit()):
            raise MalformedCassette(
                f"its response 'status' code is {_shape(code)}, not an HTTP status number such as 200"
            )
    req_headers = _mapping(req.get("headers"), "its request 'headers'", " of header names to values")
    resp_headers_in = _mapping(resp.get("headers"), "its response 'headers'", " of header names to values")
    try:
        req_json = json.loads(req_text) if req_text else None
    except json.JSONDecodeError:
        req_json = None
    # header values YAML typed (an unquoted 2020-10-01 is a date) are text on the wire
    resp_headers = {
        str(k): ([str(x) for x in v] if isinstance(v, list) else str(v)) for k, v in resp_headers_in.items()
    }
    inter = Interaction(
        index=i,
        method=req.get("method", "POST"),
        uri=uri,
        request_headers={
            str(k): ([str(x) for x in v] if isinstance(v, list) else str(v)) for k, v in req_headers.items()
        },
        request_text=req_text,
        status=int(code or 0),
        response_headers=resp_headers,
        response_text=resp_text,
        # the endpoint decides; the body's shape does not (see detect_api). Every model turn is a
        # POST (each SDK's create/generate call); a GET to the same path is another endpoint (the
        # OpenAI SDK's chat.completions.list() is GET /chat/completions)
        api=detect_api(uri) if str(req.get("method", "POST")).strip().upper() == "POST" else None,
        stream_format=_stream_format(uri, req_json, resp_headers, resp_text),
    )
    return inter
