"""Pixel dimensions of base64 images, read from their headers without decoding the whole image.

The Anthropic Messages API refuses an image wider or taller than 8000 pixels, and, in a request
that holds more than 20 images, one wider or taller than 2000 pixels. Checking that before
sending needs each image's width and height; the ``imagesize`` library reads them from the
image's header. An image is sent as a base64 string of up to several megabytes, so instead of
decoding it whole, :class:`Base64Reader` gives ``imagesize`` a seekable file that decodes only
the bytes it reads (base64 maps each 4 characters to 3 bytes, so any byte range can be decoded
on its own).
"""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

__all__ = ["Base64Reader", "image_dimensions"]


class Base64Reader(io.RawIOBase):
    """A read-only, seekable binary file over the bytes a base64 string encodes (standard
    alphabet, no line breaks), decoding only what is read. Reads past the end return fewer bytes;
    a string whose characters are not plain base64 raises ``binascii.Error`` on read."""

    def __init__(self, data: str) -> None:
        self._data = data
        n = len(data)
        pad = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
        self._size = (n // 4) * 3 - pad if n % 4 == 0 else (n * 3) // 4
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        # as io.BytesIO: a negative absolute position is an error, a relative one stops at 0
        if whence == io.SEEK_SET:
            if offset < 0:
                raise ValueError(f"negative seek position {offset}")
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = max(0, self._pos + offset)
        elif whence == io.SEEK_END:
            pos = max(0, self._size + offset)
        else:
            raise ValueError(f"invalid whence {whence!r}")
        self._pos = pos
        return pos

    def read(self, size: int | None = -1) -> bytes:
        start = self._pos
        end = self._size if size is None or size < 0 else min(self._size, start + size)
        if end <= start:
            return b""
        first, last = start // 3, (end + 2) // 3  # the 3-byte groups holding [start, end)
        chunk = base64.b64decode(self._data[first * 4 : last * 4], validate=True)
        out = chunk[start - first * 3 : end - first * 3]
        self._pos = start + len(out)
        return out

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


#: The most bytes, and the most reads, one image's header may take: a JPEG's markers are looked
#: for a byte at a time, and a corrupt or crafted file would otherwise be scanned to its end.
READ_BUDGET_BYTES = 1 << 20
READ_BUDGET_CALLS = 20_000


class _OverBudget(Exception):
    pass


class _BudgetedReader(Base64Reader):
    """A :class:`Base64Reader` that gives up (raises) past the read budget."""

    def __init__(self, data: str) -> None:
        super().__init__(data)
        self._bytes = 0
        self._calls = 0

    def read(self, size: int | None = -1) -> bytes:
        self._calls += 1
        if size is None or size < 0 or size > READ_BUDGET_BYTES:
            size = READ_BUDGET_BYTES
        if self._calls > READ_BUDGET_CALLS or self._bytes + size > READ_BUDGET_BYTES:
            raise _OverBudget()
        out = super().read(size)
        self._bytes += len(out)
        return out


def _format(head: bytes) -> str | None:
    """The format of an image Anthropic takes, by its first bytes
    (:func:`toolwire.types.signature_media_type`), or ``None`` (the other formats imagesize
    reads, such as Netpbm or SVG, are not looked at)."""
    from toolwire.types import signature_media_type

    kind = signature_media_type(head)
    return None if kind is None else kind.removeprefix("image/")


_WHITESPACE = str.maketrans("", "", " \t\r\n\f\v")
#: Base64 characters covering the read budget: only whitespace among them moves what is read.
_HEAD_CHARS = (READ_BUDGET_BYTES // 3 + 2) * 4


def image_dimensions(data: str) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of the PNG, JPEG, GIF or WebP image a base64 string encodes,
    read from its header (through ``imagesize``, decoding only the bytes it reads, at most
    :data:`READ_BUDGET_BYTES`); ``None`` for another format, a truncated or corrupt header, or
    one that takes more than the budget to find. Line breaks and spaces in the base64 text are
    ignored. The stored dimensions are given (EXIF rotation is not applied: the limits are the
    same on both sides)."""
    import imagesize

    if not isinstance(data, str) or not data:
        return None
    head = data[:_HEAD_CHARS] if len(data) > _HEAD_CHARS else data
    if any(c in head for c in " \t\r\n\f\v"):  # (a 5 MB image: 0.2 ms instead of 1 ms)
        data = data.translate(_WHITESPACE)
    reader = _BudgetedReader(data)
    try:
        kind = _format(reader.read(12))
        if kind is None:
            return None
        if kind == "gif":  # imagesize reads GIF sides as signed 16-bit numbers; they are unsigned
            reader.seek(6)
            head = reader.read(4)
            if len(head) < 4:
                return None
            return head[0] | head[1] << 8, head[2] | head[3] << 8
        reader.seek(0)
        width, height = imagesize.get(reader, exif_rotation=False)
    except (binascii.Error, ValueError, _OverBudget):
        return None
    try:
        width, height = int(width), int(height)
    except (TypeError, ValueError, OverflowError):  # a non-finite size
        return None
    if width < 0 or height < 0:
        return None
    return width, height
