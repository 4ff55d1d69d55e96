"""The canonical model: content parts, messages, responses, usage.

Everything here is a plain dataclass with no vendor knowledge. Every type has
``to_dict()`` / ``from_dict()`` with an exact round trip through JSON, so a run can be
saved and resumed (``RunResult.to_json()`` / ``RunResult.from_json()``).

Vendor-specific opaque data (thinking signatures, Responses item ids, Gemini thought
signatures, cache control) rides in ``provider_data``: a dict keyed by the API name
(``"anthropic"``, ``"openai-chat"``, ``"openai"``, ``"gemini"``) whose value
only that API's adapter reads. An adapter never reads another API's key; that is what
makes switching vendor mid-conversation safe (see ``docs/providers.md``).
"""

from __future__ import annotations

import base64
import codecs
import copy
import json
import math
import re
import reprlib
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Literal, TypeVar, Union

__all__ = [
    "TextPart",
    "ImagePart",
    "DocumentPart",
    "ReasoningPart",
    "ToolCall",
    "ToolResult",
    "ProviderToolPart",
    "Part",
    "Message",
    "Conversation",
    "Usage",
    "Response",
    "StopReason",
    "STOP_REASONS",
    "part_from_dict",
]

#: Canonical stop reasons. The vendor's own value is kept in ``Response.vendor_stop_reason``.
StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", "error"]
STOP_REASONS: tuple[str, ...] = (
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "pause_turn",
    "error",
)

Role = Literal["user", "assistant"]


#: Provider labels written by earlier toolwire versions, read back under today's name
#: (saved conversations keep loading): the Responses API was labelled ``openai-responses``.
_OLD_PROVIDER_NAMES = {"openai-responses": "openai"}


def _provider(value: Any) -> Any:
    return _OLD_PROVIDER_NAMES.get(value, value) if isinstance(value, str) else value


def _pd(value: dict[str, Any] | None) -> dict[str, Any]:
    """Loaded ``provider_data``: an object mapping an API name to that API's object (what every
    adapter writes and reads back); ``TypeError`` naming the key otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"provider_data must be an object (API name to that API's data), got {type(value).__name__}")
    for key, own in value.items():
        if not isinstance(own, dict):
            raise TypeError(f"provider_data[{key!r}] must be an object (that API's data), got {type(own).__name__}")
    if any(k in _OLD_PROVIDER_NAMES for k in value):
        return {_provider(k): v for k, v in value.items()}
    return dict(value)


@dataclass
class TextPart:
    """Visible text. ``provider_data``: opaque per-API fields (e.g. Gemini ``thoughtSignature``
    on a text part, Anthropic ``cache_control``, Responses ``phase``/item id)."""

    text: str
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["text"] = "text"

    def __post_init__(self) -> None:
        if type(self.text) is not str and not isinstance(self.text, str):
            raise TypeError(f"TextPart.text must be a str, not {type(self.text).__name__}")

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "text", "text": str}``, plus ``"provider_data"`` (API name to that API's object)
        when there is any."""
        d: dict[str, Any] = {"type": "text", "text": self.text}
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TextPart:
        """Rebuild a part from :meth:`to_dict`'s output (the ``type`` key is not read). ``KeyError``
        when ``text`` is missing; ``TypeError`` when it is not a str or ``provider_data`` is not an
        object of objects."""
        _object_at(d, "a text part")
        return _checked_part(cls(text=d["text"], provider_data=_pd(d.get("provider_data"))), "text")


def url_scheme(url: str) -> str:
    """The scheme of ``url`` in lower case (``"https"``, ``"data"``, ``"file"``), or ``""`` for a
    relative reference (``chart.png``, ``/tmp/chart.png``, ``files/abc``)."""
    head, sep, _ = url.partition(":")
    if not sep or not head or not head[0].isascii() or not head[0].isalpha():
        return ""
    if not all(c.isascii() and (c.isalnum() or c in "+.-") for c in head):
        return ""
    return head.lower()


def url_kind(url: str) -> str:
    """How a message names an image URL an API cannot fetch: ``a local path`` (a relative
    reference, a ``file:`` URL or a Windows drive path such as ``C:\\shots\\a.png``), ``a URL with
    white space around it`` (``" https://..."``: the white space makes it no URL), or ``a ftp:
    URL`` by its scheme."""
    bare = url.strip().strip("\u200b\ufeff")
    scheme = url_scheme(url)
    if bare != url and len(url_scheme(bare)) > 1 and scheme != url_scheme(bare):
        return "a URL with white space around it (write it without)"
    return "a local path" if scheme in ("", "file") or len(scheme) == 1 else f"a {scheme}: URL"


def decode_data_url(url: str) -> tuple[str, bytes] | None:
    """``(media type as declared, bytes)`` of a ``data:`` URL (RFC 2397), or ``None`` when ``url``
    is not one, holds no bytes, or its base64 does not decode. Read losslessly: base64 broken
    into lines, percent-encoded (``%2B``), written in the URL-safe alphabet (``-``, ``_``) or
    without its ``=`` padding, and a body without ``;base64`` percent-decoded (``data:image/svg+xml,%3Csvg%20...``) — unless
    those bytes are no image and their base64 decoding is a PNG, JPEG, GIF or WebP image (the
    ``;base64`` left out: ``data:image/png,iVBORw0KGgo...``), which is then the bytes. The
    media type is ``""`` when none is declared, parameters (``;charset=utf-8``) left out."""
    if url[:5].lower() != "data:":
        return None
    head, sep, text = url[5:].partition(",")
    if not sep:
        return None
    params = [p.strip() for p in head.split(";")]
    declared = params[0].lower()
    if params[-1].lower() == "base64":
        from urllib.parse import unquote

        # percent-encoded base64 ("+" as %2B, "/" as %2F, "=" as %3D: encodeURIComponent's form)
        compact = "".join(unquote(text).split())
        if "-" in compact or "_" in compact:
            compact = compact.replace("-", "+").replace("_", "/")
        compact = compact.rstrip("=")
        compact += "=" * (-len(compact) % 4)
        try:
            raw = base64.b64decode(compact, validate=True)
        except (ValueError, TypeError):
            return None
    else:
        from urllib.parse import unquote_to_bytes

        raw = unquote_to_bytes(text)
        if raw and signature_media_type(raw) is None:
            # "data:image/png,iVBORw0KGgo..." (";base64" left out, a common slip): the text read as
            # bytes is no image, and its base64 decoding is one: that is what was meant
            compact = b"".join(raw.split())
            compact += b"=" * (-len(compact) % 4)
            try:
                decoded = base64.b64decode(compact, validate=True)
            except (ValueError, TypeError):
                decoded = b""
            if signature_media_type(decoded) is not None:
                raw = decoded
    if not raw:
        return None
    return declared, raw


def signature_media_type(data: bytes) -> str | None:
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` when ``data`` starts with
    that format's signature (its magic bytes), else ``None``."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


#: The image types whose signature :func:`signature_media_type` knows.
SIGNATURE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

#: Spellings of those types the APIs read as them (lower case).
_SIGNATURE_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}

#: How many bytes :func:`not_image_problem` reads: the longest signature (WebP, 12), and enough
#: text after a byte-order mark and white space to tell markup and show its beginning.
HEAD_BYTES = 48


def base64_head(text: str) -> bytes | None:
    """The first :data:`HEAD_BYTES` bytes (all of them when fewer) of base64 ``text`` as a request
    body carries an image: white space, the URL-safe alphabet and missing ``=`` padding are read.
    ``None`` when the text there is not base64 (the image is then not judged by its bytes)."""
    want = HEAD_BYTES // 3 * 4
    compact = ""
    start = 0
    # white space of any length before or inside the first characters (wrapped lines, an
    # indented block): read on until enough base64 characters are seen or the text ends (a head
    # of only white space is read as empty, i.e. "no bytes", only when the text holds no more)
    while len(compact) < want and start < len(text):
        compact += "".join(text[start : start + 128].split())
        start += 128
    compact = compact[:want]
    if "-" in compact or "_" in compact:
        compact = compact.replace("-", "+").replace("_", "/")
    compact = compact.rstrip("=")
    compact += "=" * (-len(compact) % 4)
    try:
        return base64.b64decode(compact, validate=True)
    except (ValueError, TypeError):
        return None


def not_image_problem(head: bytes, media_type: str | None) -> str | None:
    """What is wrong with inline image bytes declared ``media_type`` that are no image at all, or
    ``None``. ``head`` is the bytes, or their first :data:`HEAD_BYTES`. Bytes are judged only
    under a type whose signature is known (PNG, JPEG, GIF, WebP, :data:`SIGNATURE_MEDIA_TYPES`;
    any case, parameters left out, ``image/jpg`` as ``image/jpeg``): when they are empty, or start
    with no image signature and are text that opens as markup or JSON (``<`` or ``{``: an HTML
    error page saved as ``chart.png``, a JSON error body), the answer says what they hold: ``"no
    bytes"``, or ``"bytes that are not an image (they begin '<html>404 not fo...')"`` (written to
    follow "the image holds"). Other bytes without a signature are not judged (a format toolwire
    does not know, a placeholder in a test: the API decides). Another
    type (HEIC, PDF) is not judged by its bytes, nor are bytes of another known image type (that
    is a mislabelled image, which the APIs' profiles send under the right type)."""
    if media_type is None:
        return None
    low = media_type.split(";", 1)[0].strip().lower()
    if _SIGNATURE_ALIASES.get(low, low) not in SIGNATURE_MEDIA_TYPES or signature_media_type(head) is not None:
        return None
    if not head:
        return "no bytes"
    # only bytes that are positively no image: text that opens as markup or JSON (an HTML error
    # or login page, an XML or JSON error body saved under an image's name). Other bytes without
    # a signature (a placeholder such as b"\x89PNG", a format toolwire does not know) are sent
    # as they are, for the API to judge.
    body = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    body = body.lstrip(b" \t\r\n")
    if body[:1] not in (b"<", b"{"):
        return None
    try:  # an incremental decoder: a character cut at the end of the head is no error
        opened = codecs.getincrementaldecoder("utf-8")().decode(body[:64])
    except UnicodeDecodeError:
        return None
    if not all(c.isprintable() or c in "\t\r\n" for c in opened):
        return None
    text = " ".join(opened[:16].split())  # from the markup on: a byte-order mark, white space left out
    start = repr(text + ("..." if len(opened) > 16 or len(body) > 64 else ""))
    return f"bytes that are not an image (they begin {start})"


@dataclass
class ImagePart:
    """An image, inline (``data`` bytes plus ``media_type`` such as ``image/png``) or by ``url``.

    In JSON the bytes are base64 text under ``data_base64``.
    """

    data: bytes | None = None
    media_type: str | None = None
    url: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["image"] = "image"

    def __post_init__(self) -> None:
        data: Any = self.data
        if data is not None and type(data) is not bytes:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError(
                    f"ImagePart.data must be the image's bytes, not {type(data).__name__}"
                    + (" (base64 text: decode it with base64.b64decode)" if isinstance(data, str) else "")
                )
            self.data = bytes(data)
        if self.media_type is not None and not isinstance(self.media_type, str):
            raise TypeError(
                f"ImagePart.media_type must be a str such as 'image/png', not {type(self.media_type).__name__}"
            )
        if self.url is not None and not isinstance(self.url, str):
            raise TypeError(f"ImagePart.url must be a str, not {type(self.url).__name__}")
        if self.data is None and self.url is None:
            raise ValueError("ImagePart needs either data (bytes) or url")
        if self.data is None and self.url is not None and self.url[:5].lower() == "data:":
            self._inline_data_url()
        if self.data is not None and not self.media_type:
            raise ValueError("ImagePart with inline data needs media_type, e.g. 'image/png'")

    def _inline_data_url(self) -> None:
        """A ``data:`` URL held as inline ``data`` and ``media_type`` (:func:`decode_data_url`): the
        APIs that take images by URL fetch only http(s) URLs (Anthropic's ``url`` source, Gemini's
        ``fileData``), while every API takes inline bytes. A ``data:`` URL without a body, or
        whose base64 does not decode, stays a URL (the profiles refuse it before sending)."""
        found = decode_data_url(self.url) if self.url else None
        if found is None:
            return
        declared, raw = found
        self.data, self.url = raw, None
        if not self.media_type:
            self.media_type = declared or signature_media_type(raw) or "application/octet-stream"

    @property
    def wire_media_type(self) -> str | None:
        """``media_type`` as the vendors spell it: lower case, and ``image/jpg`` / ``image/pjpeg``
        (common, unregistered spellings; Gemini answers "Unsupported MIME type: image/jpg") as
        ``image/jpeg``, parameters (``; charset=binary``) left out. When the inline bytes start with the signature of a PNG, JPEG, GIF or WebP
        image, that format's type is given whatever was declared: an image saved under the wrong
        name (PNG bytes declared ``image/jpeg``, or ``application/octet-stream``) is refused by
        the APIs ("Image does not match the provided media type image/png"; OpenAI: "Expected a
        base64-encoded data URL with an image MIME type ... but got unsupported MIME type
        'application/octet-stream'")."""
        data = self.data
        if data is not None:
            found = signature_media_type(data)
            if found is not None:
                return found
        return self.declared_wire_media_type

    @property
    def declared_wire_media_type(self) -> str | None:
        """``media_type`` as the vendors spell it (lower case, ``image/jpg`` / ``image/pjpeg`` as
        ``image/jpeg``, parameters left out), without looking at the bytes: what a codec sends
        when the vendor's profile corrects a type its bytes contradict and reports it (rule
        ``<api>.conversation.image-media-type-data``)."""
        mt = self.media_type
        if mt is None:
            return None
        low = mt.split(";", 1)[0].strip().lower()  # "image/png; charset=binary": parameters left out
        return "image/jpeg" if low in ("image/jpg", "image/pjpeg") else low

    @property
    def base64(self) -> str | None:
        """The inline bytes as standard base64 text, or ``None`` for a URL image."""
        return None if self.data is None else base64.b64encode(self.data).decode("ascii")

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "image"}`` plus the fields that are set: ``"data_base64"`` (the inline bytes as
        standard base64 text), ``"media_type"`` (str, as given), ``"url"`` (str) and
        ``"provider_data"`` (when non-empty)."""
        d: dict[str, Any] = {"type": "image"}
        if self.data is not None:
            d["data_base64"] = self.base64
        if self.media_type is not None:
            d["media_type"] = self.media_type
        if self.url is not None:
            d["url"] = self.url
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ImagePart:
        """Rebuild a part from :meth:`to_dict`'s output (a ``data:`` ``url`` loads as inline bytes).
        ``ValueError`` when ``data_base64`` is not base64 text, when there is neither it nor
        ``url``, or inline bytes have no ``media_type``; ``TypeError`` for a field of the wrong
        type (``data_base64`` included)."""
        raw = _object_at(d, "an image part").get("data_base64")
        if raw is not None and not isinstance(raw, str):
            raise TypeError(
                f"image part: data_base64 must be base64 text or null, got {type(raw).__name__} {_shown(raw)}"
            )
        try:
            data = None if raw is None else base64.b64decode(raw, validate=True)
        except ValueError as exc:  # binascii.Error, or text that is not ASCII
            raise ValueError(f"image part: data_base64 is not base64 text ({exc})") from None
        return _checked_part(
            cls(
                data=data,
                media_type=d.get("media_type"),
                url=d.get("url"),
                provider_data=_pd(d.get("provider_data")),
            ),
            "image",
        )


#: The document types every API takes inline (:class:`DocumentPart`).
DOCUMENT_MEDIA_TYPES = frozenset({"application/pdf", "text/plain"})


#: Document types outside ``text/`` whose bytes are text (:func:`_document_media_type`'s hint).
_TEXT_APPLICATION_TYPES = frozenset({"application/json", "application/xml", "application/x-yaml", "application/yaml"})


def _document_media_type(value: Any) -> str:
    """``value`` as a document type of :data:`DOCUMENT_MEDIA_TYPES`: lower case, parameters
    (``; charset=utf-8``) left out; ``TypeError`` when it is no str, ``ValueError`` for another type."""
    if not isinstance(value, str):
        raise TypeError(f"DocumentPart.media_type must be a str such as 'application/pdf', not {type(value).__name__}")
    low = value.split(";", 1)[0].strip().lower()
    if low not in DOCUMENT_MEDIA_TYPES:
        if low.startswith("image/"):
            hint = "an image goes as ImagePart"
        elif low.startswith("text/") or low in _TEXT_APPLICATION_TYPES or low.endswith(("+json", "+xml")):
            # Markdown, CSV, HTML, JSON, XML: their bytes are text already
            hint = "its bytes are text: give media_type 'text/plain' (UTF-8 bytes), or return the text as a str"
        else:
            hint = "extract its text and return that (or convert it to PDF)"
        raise ValueError(
            f"DocumentPart.media_type {value!r:.60} is not a document type every API reads inline: give "
            f"'application/pdf' or 'text/plain'; {hint}"
        )
    return low


@dataclass
class DocumentPart:
    """A document given inline: a PDF (``media_type="application/pdf"``) or plain text
    (``"text/plain"``, UTF-8 bytes), in a user message or in a tool result's content.

    - ``data``: the document's bytes (not base64 text); never empty.
    - ``media_type``: ``"application/pdf"`` or ``"text/plain"`` (any case; parameters such as
      ``; charset=utf-8`` are left out). Other formats raise ``ValueError``: the APIs read no
      other document type inline on all four APIs (extract the text, or convert to PDF).
    - ``filename``: an optional name shown to the model (Anthropic ``title``, OpenAI
      ``filename``; a name is made up from the type when none is given, since OpenAI needs one).
    - ``provider_data``: opaque per-API fields of an imported block (Anthropic ``citations``,
      ``context``, ``cache_control``).

    ``ValueError`` for empty bytes, PDF bytes that do not start with ``%PDF-`` (an HTML error
    page saved as ``report.pdf``), and ``text/plain`` bytes that are not UTF-8; ``TypeError`` for
    a field of the wrong type. In JSON the bytes are base64 text under ``data_base64``. Each API
    gets it as its own document form (Anthropic ``document`` block, Responses ``input_file``, Chat
    ``file`` part, Gemini ``inlineData``); see "Documents" in the guide to the loop.
    """

    data: bytes
    media_type: str = "application/pdf"
    filename: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["document"] = "document"

    def __post_init__(self) -> None:
        data: Any = self.data
        if type(data) is not bytes:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError(
                    f"DocumentPart.data must be the document's bytes, not {type(data).__name__}"
                    + (" (base64 text: decode it with base64.b64decode)" if isinstance(data, str) else "")
                )
            self.data = bytes(data)
        self.media_type = _document_media_type(self.media_type)
        if self.filename is not None and not isinstance(self.filename, str):
            raise TypeError(f"DocumentPart.filename must be a str or None, not {type(self.filename).__name__}")
        if not self.data:
            raise ValueError(
                "DocumentPart.data is empty (no bytes), which every API refuses: check that the document was "
                "read, or return text saying it is missing"
            )
        if self.media_type == "application/pdf" and b"%PDF-" not in self.data[:1024]:
            head = self.data[:16].decode("utf-8", "replace")
            raise ValueError(
                f"DocumentPart declared 'application/pdf' holds bytes that are not a PDF (they begin {head!r}; a "
                "PDF begins '%PDF-'): check what was read (an error page saved as .pdf?)"
            )
        if self.media_type == "text/plain":
            try:
                self.data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"DocumentPart declared 'text/plain' holds bytes that are not UTF-8 text ({exc.reason} at byte "
                    f"{exc.start}): decode it yourself and give UTF-8 bytes"
                ) from None

    @property
    def base64(self) -> str:
        """The bytes as standard base64 text."""
        return base64.b64encode(self.data).decode("ascii")

    @property
    def text(self) -> str | None:
        """The text of a ``text/plain`` document; ``None`` for a PDF."""
        return self.data.decode("utf-8") if self.media_type == "text/plain" else None

    @property
    def name(self) -> str:
        """``filename``, or ``document.pdf`` / ``document.txt`` when none was given."""
        return self.filename or ("document.txt" if self.media_type == "text/plain" else "document.pdf")

    @property
    def data_url(self) -> str:
        """The bytes as a ``data:<media_type>;base64,...`` URL (OpenAI ``file_data``)."""
        return f"data:{self.media_type};base64,{self.base64}"

    def __repr__(self) -> str:  # the bytes are not shown: a PDF may be megabytes
        name = f", filename={self.filename!r}" if self.filename is not None else ""
        return f"DocumentPart(<{len(self.data)} bytes>, media_type={self.media_type!r}{name})"

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "document", "data_base64": str, "media_type": str}`` plus ``"filename"`` when
        set and ``"provider_data"`` when non-empty."""
        d: dict[str, Any] = {"type": "document", "data_base64": self.base64, "media_type": self.media_type}
        if self.filename is not None:
            d["filename"] = self.filename
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocumentPart:
        """Rebuild a part from :meth:`to_dict`'s output. ``KeyError`` when ``data_base64`` is
        missing; ``ValueError`` when it is not base64 text or the part breaks a rule of the
        constructor; ``TypeError`` for a field of the wrong type."""
        raw = d["data_base64"]
        if not isinstance(raw, str):
            raise TypeError(f"document part: data_base64 must be base64 text, got {type(raw).__name__} {raw!r:.40}")
        try:
            data = base64.b64decode(raw, validate=True)
        except ValueError as exc:
            raise ValueError(f"document part: data_base64 is not base64 text ({exc})") from None
        return _checked_part(
            cls(
                data=data,
                media_type=d.get("media_type", "application/pdf"),
                filename=d.get("filename"),
                provider_data=_pd(d.get("provider_data")),
            ),
            "document",
        )


@dataclass
class ReasoningPart:
    """Model reasoning ("thinking") and the opaque material that must go back unchanged.

    - ``text``: the readable reasoning (Anthropic ``thinking``, Responses summary text joined,
      Gemini thought text); may be empty.
    - ``signature``: Anthropic ``thinking.signature`` or Gemini ``thoughtSignature`` (base64
      text exactly as on the wire).
    - ``encrypted``: Anthropic ``redacted_thinking.data`` or Responses ``encrypted_content``.
    - ``provider``: the API that produced it (``"anthropic"``, ``"openai"``,
      ``"gemini"``); adapters of other APIs leave it out, and the request's preflight report
      says so (rule ``reasoning.dropped``, a lossy change).
    - ``provider_data``: any further opaque per-API fields (item ids, summary parts).
    """

    text: str = ""
    signature: str | None = None
    encrypted: str | None = None
    provider: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["reasoning"] = "reasoning"

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "reasoning", "text": str}`` plus ``"signature"``, ``"encrypted"`` and
        ``"provider"`` (str each) when not ``None``, and ``"provider_data"`` when non-empty."""
        d: dict[str, Any] = {"type": "reasoning", "text": self.text}
        for k in ("signature", "encrypted", "provider"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReasoningPart:
        """Rebuild a part from :meth:`to_dict`'s output; every key is optional (``text`` defaults to
        ``""``). ``TypeError`` when ``provider_data`` is not an object of objects or another field has
        the wrong type (naming the field)."""
        _object_at(d, "a reasoning part")
        return _checked_part(
            cls(
                text=d.get("text", ""),
                signature=d.get("signature"),
                encrypted=d.get("encrypted"),
                provider=_provider(d.get("provider")),
                provider_data=_pd(d.get("provider_data")),
            ),
            "reasoning",
        )


@dataclass
class ToolCall:
    """One tool call the model asked for.

    - ``id``: what the matching ``ToolResult.tool_call_id`` must carry (Anthropic ``tool_use.id``,
      Chat ``tool_calls[].id``, Responses ``call_id``, Gemini ``functionCall.id`` — or, when
      Gemini sent none, a synthesised id with ``id_synthesized=True`` that is never sent).
    - ``arguments``: the parsed arguments object, or ``None`` when they could not be parsed.
    - ``raw_arguments``: the argument text exactly as the vendor sent it, when it sent text
      (OpenAI ``arguments`` strings, Anthropic streamed ``partial_json`` joined).
    - ``invalid``: why the arguments are unusable (parse error with position, not an object,
      cut off by ``max_tokens``). The loop answers an invalid call with an ``is_error`` result.
    - ``incomplete``: the call was cut off by the output-token limit; it is never run.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None = field(default_factory=dict)
    raw_arguments: str | None = None
    invalid: str | None = None
    incomplete: bool = False
    id_synthesized: bool = False
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["tool_call"] = "tool_call"

    @property
    def is_valid(self) -> bool:
        return self.invalid is None and not self.incomplete and isinstance(self.arguments, dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "tool_call", "id": str, "name": str, "arguments": object or null}`` plus
        ``"raw_arguments"`` and ``"invalid"`` (str) when set, ``"incomplete": true`` and
        ``"id_synthesized": true`` when true, and ``"provider_data"`` when non-empty."""
        d: dict[str, Any] = {"type": "tool_call", "id": self.id, "name": self.name, "arguments": self.arguments}
        if self.raw_arguments is not None:
            d["raw_arguments"] = self.raw_arguments
        if self.invalid is not None:
            d["invalid"] = self.invalid
        if self.incomplete:
            d["incomplete"] = True
        if self.id_synthesized:
            d["id_synthesized"] = True
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolCall:
        """Rebuild a call from :meth:`to_dict`'s output. ``KeyError`` when ``id`` or ``name`` is
        missing; ``TypeError`` when ``provider_data`` is not an object of objects or ``incomplete`` /
        ``id_synthesized`` is not a bool. The other fields' types are checked too (``TypeError`` naming
        the field)."""
        _object_at(d, "a tool_call part")
        return _checked_part(
            cls(
                id=d["id"],
                name=d["name"],
                arguments=d.get("arguments"),
                raw_arguments=d.get("raw_arguments"),
                invalid=d.get("invalid"),
                incomplete=loaded_field(d, "incomplete", (bool,), "tool_call part", False),
                id_synthesized=loaded_field(d, "id_synthesized", (bool,), "tool_call part", False),
                provider_data=_pd(d.get("provider_data")),
            ),
            "tool_call",
        )


_scrub: Any = None


def _load_scrub() -> Any:
    """:func:`toolwire.secrets.scrub`, imported on first use (not by ``import toolwire.types``)."""
    global _scrub
    from .secrets import scrub

    _scrub = scrub
    return scrub


@dataclass
class ToolResult:
    """The answer to one tool call.

    - ``tool_call_id``: the ``ToolCall.id`` it answers. A tool that returns a ``ToolResult`` may
      leave it out (``ToolResult(content=[...], is_error=True)``): the loop sets it to the call's.
    - ``name``: the tool's name (Gemini's ``functionResponse.name`` needs it).
    - ``content``: text, or a list of ``TextPart``/``ImagePart``/``DocumentPart``. Any other value is turned into
      content the way a tool's return value is: ``None`` → ``""``, a dict, list, number or
      boolean → its JSON text; an empty list → ``""``.
    - ``is_error``: the tool failed; the text says what was wrong and what to do next.
      Sent as Anthropic ``is_error``, Gemini ``{"error": ...}``, and for OpenAI (no flag)
      as text starting ``Error: ``.
    - ``provider_data``: opaque per-API fields of an imported result. Content an imported result
      held that no part can (an Anthropic ``search_result``, a Responses ``input_file`` by file
      id) is kept there for that API, described in ``provider_data[<api>]["kept_content"]`` (a
      list of str); another API leaves it out and reports each (rule ``provider-tool.dropped``).
    """

    tool_call_id: str = ""
    content: str | list[TextPart | ImagePart | DocumentPart] = ""
    is_error: bool = False
    name: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: Literal["tool_result"] = "tool_result"

    def __post_init__(self) -> None:
        if type(self.is_error) is not bool:
            flag: Any = self.is_error
            if flag is None or (type(flag) is int and flag in (0, 1)):
                self.is_error = bool(flag)
            else:
                raise TypeError(f"ToolResult.is_error must be True or False, not {flag!r}")
        # known credentials never reach the model, the run result or a saved run (toolwire.secrets)
        scrub = _scrub or _load_scrub()
        content: Any = self.content
        if type(content) is str or isinstance(content, str):
            self.content = scrub(content)
            return
        if not (isinstance(content, list) and all(isinstance(p, (TextPart, ImagePart, DocumentPart)) for p in content)):
            # None, a number, a dict, a list of values...: the content a tool returning it gets
            from .executor import to_result_content

            try:
                content = to_result_content(content)
            except Exception as exc:
                raise TypeError(
                    f"ToolResult.content must be text, parts or a value with a JSON form; {type(content).__name__} "
                    f"could not be turned into text ({type(exc).__name__}: {exc})"
                ) from exc
            if isinstance(content, str):
                self.content = scrub(content)
                return
        if not content:
            self.content = ""  # no parts: an empty result (the APIs refuse an empty content array)
            return
        self.content = content
        for p in content:
            if isinstance(p, TextPart):
                p.text = scrub(p.text)

    @classmethod
    def _own(cls, tool_call_id: str, text: str, name: str | None) -> ToolResult:
        """An ``is_error`` result whose text toolwire wrote itself about a tool of the run (a
        placeholder while a call waits or runs): built without scrubbing, since it holds no
        value from outside."""
        r = cls.__new__(cls)
        r.tool_call_id, r.content, r.is_error, r.name, r.provider_data, r.type = (
            tool_call_id,
            text,
            True,
            name,
            {},
            "tool_result",
        )
        return r

    @property
    def text(self) -> str:
        """All text of the content joined with newlines (images and documents left out)."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "tool_result", "tool_call_id": str, "content": str or list}`` (a list of text,
        image and document part dicts), plus ``"is_error": true`` when it is an error, ``"name"`` (str) when set
        and ``"provider_data"`` when non-empty."""
        d: dict[str, Any] = {"type": "tool_result", "tool_call_id": self.tool_call_id}
        d["content"] = self.content if isinstance(self.content, str) else [p.to_dict() for p in self.content]
        if self.is_error:
            d["is_error"] = True
        if self.name is not None:
            d["name"] = self.name
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolResult:
        """Rebuild a result from :meth:`to_dict`'s output (``content`` parts through
        :func:`part_from_dict`). ``KeyError`` when ``tool_call_id`` is missing; ``ValueError`` for a
        content part that is not a text, image or document part (``at content[i]: ...``; a reasoning part or
        a tool call is not turned into text) or misses a field; ``TypeError`` when ``is_error`` is
        not a bool, ``content`` is neither a str nor a list, or a content part is not an object."""
        _object_at(d, "a tool_result part")
        content: Any = loaded_field(d, "content", (str, list), "tool_result part", "")
        if not isinstance(content, str):
            content = [loaded_at(f"content[{i}]", lambda p=p: _content_part(p)) for i, p in enumerate(content)]
        return _checked_part(
            cls(
                tool_call_id=d["tool_call_id"],
                content=content,
                is_error=loaded_field(d, "is_error", (bool,), "tool_result part", False),
                name=d.get("name"),
                provider_data=_pd(d.get("provider_data")),
            ),
            "tool_result",
        )


def _content_part(d: Any) -> TextPart | ImagePart | DocumentPart:
    """A saved content part of a tool result: a text, image or document part (``TypeError`` when
    ``d`` is not an object, ``ValueError`` naming the type of any other part)."""
    _object_at(d, "a content part")
    kind = d.get("type")
    if kind not in ("text", "image", "document"):
        raise ValueError(f"a tool result's content holds text, image and document parts only, got a {kind!r} part")
    return part_from_dict(d)  # type: ignore[return-value]  # a text, image or document part


@dataclass
class ProviderToolPart:
    """A block of one of the vendor's own server-side tools, exactly as the vendor sent it: the
    tool's call or its result, run by the vendor inside the same response (Anthropic
    ``server_tool_use`` and ``web_search_tool_result`` / ``code_execution_tool_result`` / ...
    blocks, Responses ``web_search_call`` / ``file_search_call`` / ``code_interpreter_call`` /
    ... output items, Gemini ``executableCode`` / ``codeExecutionResult`` parts and the
    candidate's ``groundingMetadata`` / ``urlContextMetadata``). It is not a tool call for the
    loop to run. Any other block a vendor sent that toolwire has no canonical part for is kept
    the same way, as a ``"result"``: an image a Gemini model made (``inlineData`` with its
    thought signature), an Anthropic ``container_upload`` or ``compaction`` block, a Responses
    ``compaction`` item, a document of an imported request, a block type newer than toolwire.

    - ``provider``: the API that produced it (``"anthropic"``, ``"openai"``, ``"gemini"``). Only
      that API's adapter sends it back, as ``raw``; any other adapter leaves it out of its
      request and says so in the request's preflight report (rule ``provider-tool.dropped``,
      a lossy change).
    - ``vendor_type``: the wire type (``"web_search_tool_result"``, ``"web_search_call"``,
      ``"executableCode"``, ``"groundingMetadata"``).
    - ``raw``: the block, item or part as received (a JSON object), sent back unchanged.
    - ``kind``: ``"call"`` (the model's use of the tool), ``"result"`` (what the tool returned,
      or a Responses item that holds both) or ``"metadata"`` (response-level data such as Gemini
      grounding, which the vendor does not take back; kept for you to read, never re-sent).
    - ``name``: the tool, when the block names it (``"web_search"``, ``"code_execution"``).
    - ``call_id``: what links a call and its result (Anthropic ``server_tool_use.id`` =
      ``tool_use_id``, the Responses item ``id``), else ``None``.
    - ``summary``: one readable line (the query, the URLs found, the code and its output) for
      people and logs; never sent.
    """

    provider: str
    vendor_type: str
    raw: dict[str, Any]
    kind: Literal["call", "result", "metadata"] = "result"
    name: str | None = None
    call_id: str | None = None
    summary: str = ""
    type: Literal["provider_tool"] = "provider_tool"

    def __post_init__(self) -> None:
        from .errors import ConfigurationError

        where = f"provider tool part {_shown(self.vendor_type)}"
        if not isinstance(self.provider, str) or not self.provider:
            raise ConfigurationError(f"{where}: provider must be a provider name, got {_shown(self.provider)}")
        if not isinstance(self.vendor_type, str):
            raise ConfigurationError(f"{where}: vendor_type must be a string, got {_shown(self.vendor_type)}")
        if not isinstance(self.raw, dict):
            raise ConfigurationError(
                f"{where}: raw must be a JSON object (the block as the vendor sent it), "
                f"got {self.raw.__class__.__name__}"
            )
        if self.kind not in ("call", "result", "metadata"):
            raise ConfigurationError(f"{where}: kind must be 'call', 'result' or 'metadata', got {_shown(self.kind)}")

    def to_dict(self) -> dict[str, Any]:
        """``{"type": "provider_tool", "provider": str, "vendor_type": str, "kind": str, "raw": object}``
        plus ``"name"`` and ``"call_id"`` (str) when not ``None`` and ``"summary"`` when non-empty."""
        d: dict[str, Any] = {
            "type": "provider_tool",
            "provider": self.provider,
            "vendor_type": self.vendor_type,
            "kind": self.kind,
            "raw": self.raw,
        }
        for k in ("name", "call_id"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.summary:
            d["summary"] = self.summary
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProviderToolPart:
        """Raises :class:`~toolwire.errors.ConfigurationError` for a missing ``provider``,
        ``vendor_type`` or ``raw``, a ``raw`` that is not an object, or an unknown ``kind``. The types
        of ``name``, ``call_id`` (str or null) and ``summary`` (str) are checked (``TypeError``
        naming the field)."""
        from .errors import ConfigurationError

        _object_at(d, "a provider_tool part")
        for key in ("provider", "vendor_type", "raw"):
            if key not in d:
                raise ConfigurationError(f"provider tool part {_shown(d.get('vendor_type'))} has no {key!r}")
        return _checked_part(
            cls(
                provider=_provider(d["provider"]),
                vendor_type=d["vendor_type"],
                raw=d["raw"],
                kind=d.get("kind", "result"),
                name=d.get("name"),
                call_id=d.get("call_id"),
                summary=d.get("summary", ""),
            ),
            "provider_tool",
        )


Part = Union[TextPart, ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart]

#: The part classes, for the kind tests of ``tool_calls`` / ``text``: a part of exactly one of
#: these classes needs no ``isinstance`` call (a subclass still gets one).
_NOT_CALL = frozenset((TextPart, ImagePart, DocumentPart, ReasoningPart, ToolResult, ProviderToolPart))
_NOT_TEXT = frozenset((ImagePart, DocumentPart, ReasoningPart, ToolCall, ToolResult, ProviderToolPart))

_PART_TYPES: dict[str, Any] = {
    "text": TextPart,
    "image": ImagePart,
    "document": DocumentPart,
    "reasoning": ReasoningPart,
    "tool_call": ToolCall,
    "tool_result": ToolResult,
    "provider_tool": ProviderToolPart,
}


#: The types a loaded part's fields must have (a saved run edited by hand or written by other
#: code): checked by :func:`part_from_dict`, so a wrong type fails on load, naming the field,
#: not later inside an encoder.
_LOADED_FIELD_TYPES: dict[str, dict[str, tuple[type, ...]]] = {
    "tool_call": {
        "id": (str,),
        "name": (str,),
        "arguments": (dict, type(None)),
        "raw_arguments": (str, type(None)),
        "invalid": (str, type(None)),
        "provider_data": (dict,),
    },
    "tool_result": {"tool_call_id": (str,), "is_error": (bool,), "name": (str, type(None)), "provider_data": (dict,)},
    "image": {"media_type": (str, type(None)), "url": (str, type(None)), "provider_data": (dict,)},
    "document": {"filename": (str, type(None)), "provider_data": (dict,)},
    "text": {"provider_data": (dict,)},
    "provider_tool": {"name": (str, type(None)), "call_id": (str, type(None)), "summary": (str,)},
    "reasoning": {
        "text": (str,),
        "signature": (str, type(None)),
        "encrypted": (str, type(None)),
        "provider": (str, type(None)),
        "provider_data": (dict,),
    },
}


def loaded_part(d: Any, kind: str, where: str) -> Any:
    """The part of type ``kind`` (``"tool_call"``, ``"tool_result"``) saved as ``d`` at ``where``
    (e.g. ``"a tool run's call"``), its fields checked as :func:`part_from_dict` checks them;
    ``TypeError`` naming ``where`` when ``d`` is not an object."""
    if not isinstance(d, dict):
        raise TypeError(f"{where} must be an object, got {type(d).__name__}")
    return part_from_dict({**d, "type": kind})


def loaded_field(d: dict[str, Any], key: str, types: tuple[type, ...], where: str, default: Any = None) -> Any:
    """``d[key]`` (``default`` when absent) if it is one of ``types`` (a ``bool`` is not taken for
    an ``int`` or ``float``), else ``TypeError`` naming ``where`` and ``key``."""
    value = d.get(key, default)
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
    raise TypeError(f"{where}: {key} must be {expected}, got {type(value).__name__} {_shown(value)}")


_T = TypeVar("_T")
_P = TypeVar("_P")

_SHORT_REPR = reprlib.Repr()  # (keyword arguments only from Python 3.12)
_SHORT_REPR.maxlevel, _SHORT_REPR.maxstring, _SHORT_REPR.maxother = 3, 40, 40
_SHORT_REPR.maxlist = _SHORT_REPR.maxdict = _SHORT_REPR.maxtuple = _SHORT_REPR.maxset = 4


def _shown(value: Any) -> str:
    """``value``'s repr for an error or warning message, at most about 40 characters and 3
    levels deep (a value nested thousands deep raised ``RecursionError`` in ``repr``, a megabyte
    string was written whole); ``<type>`` when its repr raises."""
    try:
        return _SHORT_REPR.repr(value)
    except (Exception, RecursionError):
        return f"<{type(value).__name__}>"


def _object_at(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be an object, got {type(value).__name__}")
    return value


_LOAD_ERRORS = (KeyError, TypeError, AttributeError, ValueError, RecursionError)


def loaded_at(where: str, load: Callable[[], _T]) -> _T:
    """``load()``, its error (a wrong type or value in a saved file) told with ``where`` it is in
    the saved JSON: ``at turns[0].response.usage: usage must be an object, got list``. ``where``
    is a key (``"usage"``) or an index (``"[2]"``); an error already located gets its place
    prefixed (``turns[0]`` + ``.response`` ...). Keeps the error's type and attributes (a missing
    key becomes a ``ValueError`` saying which)."""
    try:
        return load()
    except _LOAD_ERRORS as exc:
        raise _located(exc, where) from None


def _located(exc: BaseException, where: str) -> BaseException:
    inner: str | None = getattr(exc, "_toolwire_at", None)
    if inner is not None:
        path = where + ("" if inner.startswith("[") else ".") + inner
        text: str = getattr(exc, "_toolwire_text", str(exc))
    else:
        path = where
        text = f"missing field {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else str(exc)
    new: BaseException
    if isinstance(exc, (KeyError, UnicodeError)):  # their text is not their args[0]
        new = ValueError(f"at {path}: {text}")
    else:  # the same type (a ConfigurationError stays one) and attributes, the located text
        new = copy.copy(exc)
        new.args = (f"at {path}: {text}",)
    new._toolwire_at = path  # type: ignore[attr-defined]
    new._toolwire_text = text  # type: ignore[attr-defined]
    return new


def part_from_dict(d: dict[str, Any]) -> Part:
    """Rebuild a part from its ``to_dict()`` form; raises ``ValueError`` on an unknown ``type``
    and ``TypeError`` naming the field when a field has the wrong type (``"raw_arguments": 5``) or
    ``d`` is not an object."""
    _object_at(d, "a part")
    kind = d.get("type")
    cls = _PART_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown part type {_shown(kind)}; expected one of {sorted(_PART_TYPES)}")
    return cls.from_dict(d)  # (each part's from_dict checks its fields' types: _checked_part)


def _checked_part(part: _P, kind: str) -> _P:
    """``part`` just loaded by its class's ``from_dict``, after checking the types of its fields
    (:data:`_LOADED_FIELD_TYPES`): ``TypeError`` naming the field, as :func:`part_from_dict`
    does, whether the loader was called through it or directly."""
    for name, types in _LOADED_FIELD_TYPES.get(kind, {}).items():
        value = getattr(part, name)
        if not isinstance(value, types):
            expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise TypeError(f"{kind} part: {name} must be {expected}, got {type(value).__name__}")
    return part


def user_parts(items: list[Any] | tuple[Any, ...]) -> list[Part]:
    """The parts of a user message given as a list: ``TextPart``, ``ImagePart`` and
    ``DocumentPart`` as they are, each string as a text part. Raises ``TypeError`` naming the position and type of any other
    item."""
    parts: list[Part] = []
    for i, p in enumerate(items):
        if isinstance(p, str):
            parts.append(TextPart(p))
        elif isinstance(p, (TextPart, ImagePart, DocumentPart)):
            parts.append(p)
        else:
            raise TypeError(f"part {i} is a {type(p).__name__}; give text (str), TextPart, ImagePart or DocumentPart")
    return parts


@dataclass
class Message:
    """One turn: ``role`` is ``"user"`` or ``"assistant"``.

    Tool calls live in assistant messages; tool results live in user messages (each adapter
    moves them where its vendor wants them: Chat ``role: tool`` messages, Responses
    ``function_call_output`` items, Gemini ``functionResponse`` parts).
    """

    role: Role
    parts: list[Part] = field(default_factory=list)
    provider_data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def user(cls, content: str | list[Any] | tuple[Any, ...]) -> Message:
        """A user message: ``content`` is text, or a list of parts — ``TextPart``, ``ImagePart``,
        ``DocumentPart`` and strings (each string a text part), e.g. ``Message.user(["What is this?",
        ImagePart(data=png, media_type="image/png")])``. Raises ``TypeError`` for anything else."""
        if isinstance(content, str):
            return cls("user", [TextPart(content)])
        if isinstance(content, (list, tuple)):
            return cls("user", user_parts(content))
        raise TypeError(f"Message.user takes text (str) or a list of parts, not {type(content).__name__}")

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message of one text part holding ``text``; ``TypeError`` when ``text`` is not
        a str."""
        return cls("assistant", [TextPart(text)])

    @property
    def text(self) -> str:
        return "".join(
            [
                p.text
                for p in self.parts
                if type(p) is TextPart or (type(p) not in _NOT_TEXT and isinstance(p, TextPart))
            ]
        )

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [p for p in self.parts if type(p) is ToolCall or (type(p) not in _NOT_CALL and isinstance(p, ToolCall))]

    @property
    def tool_results(self) -> list[ToolResult]:
        return [p for p in self.parts if isinstance(p, ToolResult)]

    @property
    def provider_tool_parts(self) -> list[ProviderToolPart]:
        """The vendor's own server-side tool blocks in this message (see :class:`ProviderToolPart`)."""
        return [p for p in self.parts if isinstance(p, ProviderToolPart)]

    def to_dict(self) -> dict[str, Any]:
        """``{"role": "user" or "assistant", "parts": [part dicts]}`` (each part's ``to_dict()``), plus
        ``"provider_data"`` when non-empty."""
        d: dict[str, Any] = {"role": self.role, "parts": [p.to_dict() for p in self.parts]}
        if self.provider_data:
            d["provider_data"] = self.provider_data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Message:
        """Rebuild a message from :meth:`to_dict`'s output. ``ValueError`` when ``role`` is not
        ``"user"`` or ``"assistant"``, or a part has an unknown ``type`` or a missing field (the text
        says ``at parts[i]``); ``TypeError`` when ``d`` is not an object, ``parts`` is not a list or a
        field has the wrong type."""
        _object_at(d, "a message")
        if d.get("role") not in ("user", "assistant"):
            raise ValueError(f"message role must be 'user' or 'assistant', got {d.get('role')!r}")
        parts = loaded_field(d, "parts", (list,), "message", [])
        return cls(
            d["role"],
            [
                loaded_at(f"parts[{j}]", lambda p=p: part_from_dict(_object_at(p, "a part")))
                for j, p in enumerate(parts)
            ],
            loaded_at("provider_data", lambda: _pd(d.get("provider_data"))),
        )


@dataclass
class Conversation:
    """Instructions (system prompt) plus the ordered messages."""

    messages: list[Message] = field(default_factory=list)
    instructions: str | None = None

    def append(self, message: Message) -> None:
        """Add ``message`` at the end of :attr:`messages`, in place (nothing is checked)."""
        self.messages.append(message)

    def unanswered_tool_calls(self) -> list[ToolCall]:
        """Tool calls of the last assistant message that no later message answers."""
        answered = {r.tool_call_id for m in self.messages for r in m.tool_results}
        for m in reversed(self.messages):
            if m.role == "assistant":
                return [c for c in m.tool_calls if c.id not in answered]
        return []

    def to_dict(self) -> dict[str, Any]:
        """``{"instructions": str or null, "messages": [message dicts]}`` (each :meth:`Message.to_dict`);
        both keys are always present."""
        return {"instructions": self.instructions, "messages": [m.to_dict() for m in self.messages]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Conversation:
        """Rebuild from :meth:`to_dict`. A saved run (``RunState.to_dict()`` or
        ``RunResult.to_dict()``) gives its conversation; an object with neither ``messages`` nor
        a conversation raises ``TypeError`` naming the keys it has, as does a ``d`` that is not an
        object."""
        where = "conversation"
        _object_at(d, "a saved conversation")
        if "messages" not in d:
            saved = d.get("conversation")
            if isinstance(saved, dict):  # a saved RunState / RunResult: its conversation
                return cls.from_dict(saved)
            other = sorted(str(k) for k in d if k != "instructions")
            if other:
                raise TypeError(
                    f"a saved conversation has a 'messages' list (Conversation.to_json()), or is a saved run "
                    f"with a 'conversation'; this object has no 'messages' list, only {', '.join(map(repr, other))}"
                )
        messages = loaded_field(d, "messages", (list,), where, [])
        return cls(
            [
                loaded_at(f"messages[{i}]", lambda m=m: Message.from_dict(_object_at(m, "a message")))
                for i, m in enumerate(messages)
            ],
            loaded_field(d, "instructions", (str, type(None)), where),
        )

    def to_json(self) -> str:
        """Strict JSON text (literal UTF-8; ASCII escapes when the text holds a lone surrogate): a
        non-finite float is written as its text (see :func:`finite_json`)."""
        d = self.to_dict()
        try:
            text = json.dumps(d, ensure_ascii=False, allow_nan=False)
        except ValueError:  # "Out of range float values are not JSON compliant"
            d = finite_json(d)
            text = json.dumps(d, ensure_ascii=False, allow_nan=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(d, ensure_ascii=True, allow_nan=False)
        return text

    @classmethod
    def from_json(cls, text: str) -> Conversation:
        """Rebuild a conversation saved with :meth:`to_json` (a saved run, ``RunState.to_json()``
        or ``RunResult.to_json()``, gives its conversation); raises ``ValueError`` naming what is
        wrong when ``text`` is neither, or holds a number JSON cannot hold (see
        :func:`finite_json_loads`)."""
        try:
            return cls.from_dict(finite_json_loads(text))
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
            raise ValueError(f"not a saved toolwire Conversation: {type(exc).__name__}: {exc}") from None


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def finite_json(value: Any) -> Any:
    """``value`` (JSON-ready lists, dicts and scalars) with each non-finite float (``math.inf``,
    ``-math.inf``, ``nan``) replaced by its text ``"Infinity"``, ``"-Infinity"`` or ``"NaN"``:
    strict JSON has no form for them (Python's ``json`` writes the bare words ``Infinity`` and
    ``NaN``, which JavaScript's ``JSON.parse``, SQLite's JSON functions and ``jq`` refuse), the
    same rule tool results and decoded tool call arguments follow."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _NON_FINITE[repr(value)]
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


#: a number literal too large for a float (``1e999``), which Python's ``json`` reads as infinity
_HUGE_NUMBER = re.compile(r"\d[eE]\+?\d{3}")


def _non_finite_at(value: Any, path: str = "") -> str | None:
    """The place (``turns[0].response.usage``) of the first non-finite float in ``value``, or ``None``."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, dict):
        for k, v in value.items():
            found = _non_finite_at(v, f"{path}.{k}" if path else str(k))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _non_finite_at(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def finite_json_loads(text: str | bytes) -> Any:
    """``json.loads(text)``; ``ValueError`` naming the place of a number JSON cannot hold (the bare
    words ``Infinity``/``NaN`` Python's ``json`` writes, a literal such as ``1e999``): loaded, it
    would be sent to the vendor or to a tool as a float no request body can carry."""
    seen: list[str] = []

    def constant(word: str) -> float:
        seen.append(word)
        return float(word)

    value = json.loads(text, parse_constant=constant)
    if seen or (isinstance(text, (str, bytes, bytearray)) and _HUGE_NUMBER.search(str(text))):
        at = _non_finite_at(value)
        if at is not None:
            raise ValueError(
                f"at {at or 'the top'}: a number JSON cannot hold ({seen[0] if seen else 'a literal too large for a float'}); "
                'replace it with a finite number, or with text such as "Infinity"'
            )
    return value


_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@dataclass
class Usage:
    """Token counts of one response (or a sum), in tokens. ``None`` means the vendor gave none.

    One meaning on every API (the adapters map their vendor's counters to it):

    - ``input_tokens``: **all** input tokens, cache reads and cache writes included;
    - ``output_tokens``: **all** output tokens, reasoning / thinking included;
    - ``cache_read_tokens`` / ``cache_write_tokens``: parts of ``input_tokens``;
    - ``reasoning_tokens``: part of ``output_tokens``;
    - ``vendor_total_tokens``: the vendor's own total where it reports one (Chat and Responses
      ``total_tokens``, Gemini ``totalTokenCount``), unchanged.

    ====================  ===============================  ===========================  ===========================  ===========================================
    field                 Anthropic ``usage``              Chat ``usage``               Responses ``usage``          Gemini ``usageMetadata``
    ====================  ===============================  ===========================  ===========================  ===========================================
    input_tokens          input_tokens + cache_read_input  prompt_tokens                input_tokens                 promptTokenCount + toolUse
                          _tokens + cache_creation_input                                                             PromptTokenCount
                          _tokens
    output_tokens         output_tokens                    completion_tokens            output_tokens                candidatesTokenCount + thoughtsTokenCount
    cache_read_tokens     cache_read_input_tokens          prompt_tokens_details.       input_tokens_details.        cachedContentTokenCount
                                                           cached_tokens                cached_tokens
    cache_write_tokens    cache_creation_input_tokens      prompt_tokens_details.       input_tokens_details.        —
                                                           cache_write_tokens           cache_write_tokens
    reasoning_tokens      output_tokens_details.           completion_tokens_details.   output_tokens_details.       thoughtsTokenCount
                          thinking_tokens                  reasoning_tokens             reasoning_tokens
    vendor_total_tokens   —                                total_tokens                 total_tokens                 totalTokenCount
    ====================  ===============================  ===========================  ===========================  ===========================================

    ``cache_write_1h_tokens``: the part of ``cache_write_tokens`` written to a one-hour cache
    (Anthropic ``usage.cache_creation.ephemeral_1h_input_tokens``; ``None`` elsewhere), priced
    at the vendor's 1-hour cache-write rate by :func:`toolwire.pricing.price`.

    ``tool_use_prompt_tokens`` (Gemini ``toolUsePromptTokenCount``) is kept as well. Adding two
    ``Usage`` values adds each field; ``None + None`` stays ``None``.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    tool_use_prompt_tokens: int | None = None
    requests: int = 0
    vendor_total_tokens: int | None = None
    cache_write_1h_tokens: int | None = None

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        a, b = self.__dict__, other.__dict__
        return Usage(*[_add_counts(a[k], b[k]) for k in _USAGE_ADDED])  # pyright: ignore[reportArgumentType]

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens`` (missing counts as 0): every token the request
        processed and produced, cache and reasoning included."""
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def to_dict(self) -> dict[str, Any]:
        """Every field by name: the counts in tokens (int, or ``None`` where the vendor gave none) and
        ``"requests"`` (int: how many responses were summed)."""
        if type(self) is Usage:  # its fields, read from the instance dict (no fields() walk)
            d = self.__dict__
            return {k: d[k] for k in _USAGE_ADDED}
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        """Raises ``TypeError`` naming the field when a count is not a whole number (or ``null``;
        ``requests`` is always a number). A negative count a vendor sent is kept as it was saved."""
        if not isinstance(d, dict):
            raise TypeError(f"usage must be an object, got {type(d).__name__}")
        names = {f.name for f in fields(cls)}
        counts = {k: v for k, v in d.items() if k in names}
        for k, v in counts.items():
            if (v is None and k != "requests") or type(v) is int:
                continue
            raise TypeError(f"usage: {k} must be a whole number of tokens or null, got {_shown(v)}")
        return cls(**counts)


#: Every field of :class:`Usage`, in order (each one is added by ``+``).
_USAGE_ADDED = tuple(f.name for f in fields(Usage))


def _add_counts(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


@dataclass
class Response:
    """One model response, whatever the vendor.

    - ``parts``: text, reasoning and tool-call parts in the order the vendor gave them.
    - ``stop_reason``: canonical (``end_turn``, ``tool_use``, ``max_tokens``, ``stop_sequence``,
      ``refusal``, ``pause_turn``, ``error``); ``vendor_stop_reason`` is the vendor's own value
      (Anthropic ``stop_reason``, Chat ``finish_reason``, Gemini ``finishReason``, Responses
      ``status`` plus ``:`` and ``incomplete_details.reason`` when present).
    - ``provider``: the API name that produced it; ``provider_data``: opaque per-API data.
    - ``preflight``: the :class:`~toolwire.profile.RequestReport` of the repairs preflight made to
      the request that produced this response (``None`` when it needed none). Not saved by
      :meth:`to_dict`.
    """

    parts: list[Part] = field(default_factory=list)
    stop_reason: StopReason = "end_turn"
    vendor_stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    response_id: str | None = None
    provider: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    preflight: Any = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        """All visible text parts joined in order, no separator (reasoning excluded)."""
        return "".join(
            [
                p.text
                for p in self.parts
                if type(p) is TextPart or (type(p) not in _NOT_TEXT and isinstance(p, TextPart))
            ]
        )

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [p for p in self.parts if type(p) is ToolCall or (type(p) not in _NOT_CALL and isinstance(p, ToolCall))]

    @property
    def provider_tool_parts(self) -> list[ProviderToolPart]:
        """The vendor's own server-side tool calls and results in this response, in order."""
        return [p for p in self.parts if isinstance(p, ProviderToolPart)]

    def to_message(self) -> Message:
        """The assistant message to append to the conversation (parts unchanged)."""
        return Message("assistant", list(self.parts), dict(self.provider_data))

    def to_dict(self) -> dict[str, Any]:
        """``{"parts": [part dicts], "stop_reason": str, "vendor_stop_reason": str or null, "usage":
        object (Usage.to_dict), "model", "response_id", "provider": str or null, "provider_data":
        object}``; every key is always present. ``preflight`` is not saved."""
        return {
            "parts": [p.to_dict() for p in self.parts],
            "stop_reason": self.stop_reason,
            "vendor_stop_reason": self.vendor_stop_reason,
            "usage": self.usage.to_dict(),
            "model": self.model,
            "response_id": self.response_id,
            "provider": self.provider,
            "provider_data": self.provider_data,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Response:
        """Rebuild a response from :meth:`to_dict`'s output; every key is optional (``stop_reason``
        defaults to ``"end_turn"``, ``usage`` to an empty one). ``TypeError`` when ``d`` is not an
        object, or ``parts``, a str
        field (``provider`` included), a ``usage`` count or ``provider_data`` has the wrong type;
        ``ValueError`` for a ``stop_reason`` that is not one of :data:`STOP_REASONS` (the vendor's
        own value belongs in ``vendor_stop_reason``), and for a part of unknown ``type`` or missing
        a field (``at parts[i]: ...``)."""
        _object_at(d, "a response")
        parts = loaded_field(d, "parts", (list,), "response", [])
        usage = d.get("usage")
        return cls(
            parts=[
                loaded_at(f"parts[{j}]", lambda p=p: part_from_dict(_object_at(p, "a part")))
                for j, p in enumerate(parts)
            ],
            stop_reason=_stop_reason(loaded_field(d, "stop_reason", (str,), "response", "end_turn")),
            vendor_stop_reason=loaded_field(d, "vendor_stop_reason", (str, type(None)), "response"),
            usage=Usage() if usage is None else loaded_at("usage", lambda: Usage.from_dict(usage)),
            model=loaded_field(d, "model", (str, type(None)), "response"),
            response_id=loaded_field(d, "response_id", (str, type(None)), "response"),
            provider=_provider(loaded_field(d, "provider", (str, type(None)), "response")),
            provider_data=_pd(d.get("provider_data")),
        )


def _stop_reason(value: str) -> StopReason:
    """A loaded response's ``stop_reason``: one of :data:`STOP_REASONS`, else ``ValueError``."""
    if value not in STOP_REASONS:
        raise ValueError(
            f"response: stop_reason must be one of {', '.join(STOP_REASONS)} (toolwire's stop reasons; "
            f"the vendor's own value is vendor_stop_reason), got {_shown(value)}"
        )
    return value  # type: ignore[return-value]  # one of the Literal's values
