"""PNG files read back to their pixels, for tests that compare pictures (8-bit RGBA, as resvg writes
them and as pbem/mail/pictures.py joins them): the standard library's zlib and PNG's five filters."""
from __future__ import annotations

import struct
import zlib


_SEVEN: dict[int, tuple[int, int]] = {}


def _masks(stride: int) -> tuple[int, int]:
    """0x7f7f... and 0x8080... as wide as a row: adding the low seven bits of each byte and then the
    top bit with xor adds bytes modulo 256 with no carry into the next byte."""
    _SEVEN[stride] = (int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big"))
    return _SEVEN[stride]


def decode(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGBA bytes) of an 8-bit RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "a PNG"
    at, idat, width, height = 8, [], 0, 0
    while at < len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        data = png[at + 8:at + 8 + size]
        assert struct.unpack(">I", png[at + 8 + size:at + 12 + size])[0] == zlib.crc32(kind + data), kind
        if kind == b"IHDR":
            width, height = struct.unpack(">II", data[:8])
            assert data[8:] == bytes((8, 6, 0, 0, 0)), "8-bit RGBA, not interlaced"
        elif kind == b"IDAT":
            idat.append(data)
        at += 12 + size
    raw = zlib.decompress(b"".join(idat))
    stride = 4 * width
    assert len(raw) == height * (stride + 1)
    prior, rows = bytearray(stride), []
    for r in range(height):
        kind = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        if kind == 1:
            for i in range(4, stride):
                line[i] = (line[i] + line[i - 4]) & 255
        elif kind == 2:  # each byte plus the one above, all at once: a sum of whole rows without carries
            a, b = int.from_bytes(line, "big"), int.from_bytes(prior, "big")
            low, high = _SEVEN.get(stride) or _masks(stride)
            line = bytearray((((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(stride, "big"))
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + (((line[i - 4] if i >= 4 else 0) + prior[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a, b, c = (line[i - 4] if i >= 4 else 0), prior[i], (prior[i - 4] if i >= 4 else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else:
            assert kind == 0, f"filter {kind}"
        rows.append(bytes(line))
        prior = line
    return width, height, rows
