"""Glyph advances read from a TrueType font (the DejaVu fonts the mail's renderer uses), so that a test
can measure how wide a text really is instead of trusting the drawing's own estimate. Standard library."""
from __future__ import annotations

import functools
import struct
from pathlib import Path

FONTS = Path(__file__).resolve().parents[3] / "pbem" / "mail" / "fonts"


@functools.lru_cache(maxsize=None)
def advances(name: str = "DejaVuSans-Bold.ttf") -> tuple[int, dict[int, int]]:
    """(units per em, {code point: advance width in font units}) of font ``name``."""
    data = (FONTS / name).read_bytes()
    count = struct.unpack(">H", data[4:6])[0]
    tables = {}
    for i in range(count):
        tag, _sum, off, length = struct.unpack(">4sIII", data[12 + 16 * i: 28 + 16 * i])
        tables[tag.decode("latin-1")] = (off, length)
    head = tables["head"][0]
    upem = struct.unpack(">H", data[head + 18: head + 20])[0]
    hhea = tables["hhea"][0]
    n_metrics = struct.unpack(">H", data[hhea + 34: hhea + 36])[0]
    hmtx = tables["hmtx"][0]
    adv = [struct.unpack(">H", data[hmtx + 4 * i: hmtx + 4 * i + 2])[0] for i in range(n_metrics)]
    cmap = tables["cmap"][0]
    n_sub = struct.unpack(">H", data[cmap + 2: cmap + 4])[0]
    glyphs: dict[int, int] = {}
    for i in range(n_sub):
        plat, enc, off = struct.unpack(">HHI", data[cmap + 4 + 8 * i: cmap + 12 + 8 * i])
        sub = cmap + off
        fmt = struct.unpack(">H", data[sub: sub + 2])[0]
        if plat == 3 and enc == 1 and fmt == 4:
            segs = struct.unpack(">H", data[sub + 6: sub + 8])[0] // 2
            ends = struct.unpack(f">{segs}H", data[sub + 14: sub + 14 + 2 * segs])
            p = sub + 16 + 2 * segs
            starts = struct.unpack(f">{segs}H", data[p: p + 2 * segs])
            deltas = struct.unpack(f">{segs}h", data[p + 2 * segs: p + 4 * segs])
            ro_at = p + 4 * segs
            offsets = struct.unpack(f">{segs}H", data[ro_at: ro_at + 2 * segs])
            for s in range(segs):
                for c in range(starts[s], ends[s] + 1):
                    if c == 0xFFFF:
                        continue
                    if offsets[s] == 0:
                        g = (c + deltas[s]) & 0xFFFF
                    else:
                        at = ro_at + 2 * s + offsets[s] + 2 * (c - starts[s])
                        g = struct.unpack(">H", data[at: at + 2])[0]
                        g = (g + deltas[s]) & 0xFFFF if g else 0
                    glyphs.setdefault(c, g)
    return upem, {c: adv[min(g, n_metrics - 1)] for c, g in glyphs.items()}


def width(text: str, size: float, bold: bool = False) -> float:
    """How wide ``text`` renders at ``size`` in DejaVu Sans (Bold), without kerning."""
    upem, adv = advances("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return sum(adv.get(ord(ch), upem * 0.6) for ch in str(text)) * size / upem
