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


def image_dimensions(data: str) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of the image a base64 string encodes (PNG, JPEG, GIF, WebP and
    the other formats ``imagesize`` reads), from its header; ``None`` when the header is not one
    it reads (a truncated or corrupt image, or another format). The stored dimensions are given
    (EXIF rotation is not applied: the limits are the same on both sides)."""
    import imagesize

    try:
        width, height = imagesize.get(Base64Reader(data), exif_rotation=False)
    except (binascii.Error, ValueError):
        width = height = -1
    if width < 0 or height < 0:
        # base64 with line breaks or other characters: decode it whole and read again
        try:
            raw = base64.b64decode(data)
        except (binascii.Error, ValueError):
            return None
        width, height = imagesize.get(io.BytesIO(raw), exif_rotation=False)
        if width < 0 or height < 0:
            return None
    return int(width), int(height)
