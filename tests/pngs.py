"""PNG files read back to their pixels, for tests that compare pictures (8-bit RGBA, as resvg writes
them and as pbem/mail/pictures.py joins them), by Pillow: its decoder checks each chunk's CRC and
undoes PNG's five filters in C, where the rows of a picture read in Python cost the comparisons
most of their time."""
from __future__ import annotations

import io
import struct

from PIL import Image


def size(png: bytes) -> tuple[int, int]:
    """(width, height) of a PNG, from its header."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR", "a PNG"
    return struct.unpack(">II", png[16:24])


def decode(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGBA bytes) of an 8-bit RGBA PNG."""
    width, height = size(png)
    assert png[24:29] == bytes((8, 6, 0, 0, 0)), "8-bit RGBA, not interlaced"
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        assert image.mode == "RGBA" and image.size == (width, height), (image.mode, image.size)
        pixels = image.tobytes()
    stride = 4 * width
    assert len(pixels) == height * stride
    return width, height, [pixels[r * stride:(r + 1) * stride] for r in range(height)]
