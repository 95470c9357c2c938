#!/usr/bin/env python3
"""One-off generator of pbem/engine/squire/data/glyphs.json: how wide each letter of the
Squire drawing's labels is in DejaVu Sans and DejaVu Sans Bold (the fonts the mail's pictures
are rendered with, first in the drawing's font list), so that the map's label placement
(draw.py) reserves a name's real width instead of a guess: a guess of 0.6 em a letter ran
10-20 % short of bold names, more in Cyrillic, and a translated name could reach into its
neighbour's label.

    python3 scripts/squire_glyphs.py > pbem/engine/squire/data/glyphs.json

Letters: printable ASCII, Latin-1, Cyrillic, and every letter of data/names.csv. Standard
library only (tests/engine/squire/ttf.py reads the fonts; test_narrow.py checks this file
against them).
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.engine.squire.ttf import advances  # noqa: E402


def main() -> None:
    upem, bold = advances("DejaVuSans-Bold.ttf")
    _upem, regular = advances("DejaVuSans.ttf")
    chars = {chr(c) for c in range(0x20, 0x7F)} | {chr(c) for c in range(0xC0, 0x100)} | \
        {chr(c) for c in range(0x400, 0x460)}
    with open(ROOT / "pbem/engine/squire/data/names.csv", encoding="utf-8") as f:
        for row in csv.reader(f):
            chars |= set("".join(row))
    out = {"about": "Advance widths of DejaVu Sans and DejaVu Sans Bold (Bitstream Vera licence, see "
                    "pbem/mail/fonts/LICENSE), in units of 1/upem em, of the letters the Squire drawing's labels "
                    "use; written by scripts/squire_glyphs.py.",
           "upem": upem}
    for name, adv in (("bold", bold), ("regular", regular)):
        out[name] = {ch: adv[ord(ch)] for ch in sorted(chars) if ord(ch) in adv and ch.isprintable()}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=None, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
