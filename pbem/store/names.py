"""Display names: their shown form and the key that makes them unique.

Two names are the same name when they look the same to a reader: after
Unicode NFKC (full-width and mathematical letters are letters), without
invisible and format characters, with one space between words, ignoring
case, and with look-alike letters of other scripts (Cyrillic "А" for Latin
"A", Greek "ο" for "o") and the classic look-alikes in one script ("0" and
"O", "1", "I" and "l", "rn" and "m") read as the letter they imitate. The
look-alikes come from Unicode's confusables table (UTS #39) as the
confusable-homoglyphs package ships it; ``key`` is a skeleton in the spirit
of UTS #39 that is also blind to case."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# characters that show nothing but are not format (Cf) characters: fillers, blank braille, variation selectors
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10),
              *range(0xE0100, 0xE01F0)}
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")  # the package wraps right-to-left glyphs in these


def _shows(c: str) -> bool:
    return unicodedata.category(c) not in ("Cf", "Cc", "Cs", "Co", "Cn") and ord(c) not in _INVISIBLE


def display(name: str) -> str:
    """The form a name is stored and shown in: NFKC, nothing invisible, single spaces, no spaces at the ends."""
    text = unicodedata.normalize("NFKC", name or "")
    text = "".join(c if _shows(c) else (" " if c.isspace() else "") for c in text)
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """(prototype of each look-alike character, the ASCII letter of its case that it imitates).

    The package's table holds each line of confusables.txt both ways (source -> prototype and
    prototype -> sources). A source has exactly one entry (its prototype) and is never a
    prototype; a character with several entries, or a string of several, is a prototype. Of a
    pair of single characters naming only each other, the ASCII one (else the lower) is taken
    as the prototype: both map to it either way."""
    from confusable_homoglyphs.confusables import confusables_data

    data = {k.translate(_DIRECTION_MARKS): [e["c"].translate(_DIRECTION_MARKS) for e in v]
            for k, v in confusables_data.items()}
    proto: dict[str, str] = {}
    for c, targets in data.items():
        if len(c) != 1 or len(targets) != 1 or not targets[0]:
            continue
        t = targets[0]
        if len(t) == 1 and len(data.get(t, ())) == 1 and (c.isascii(), -ord(c)) > (t.isascii(), -ord(t)):
            continue  # a pair: c is the prototype of t
        proto[c] = t
    members: dict[str, set[str]] = {}
    for c, t in proto.items():
        members.setdefault(t, {t}).add(c)
    latin: dict[str, str] = {}
    for group in members.values():
        for c in group:
            if c.isascii():
                continue
            same_case = sorted(m for m in group if m.isascii() and m.isalpha() and m.isupper() == c.isupper())
            if same_case:
                latin[c] = same_case[0]
    return proto, latin


def key(name: str) -> str:
    """The name's identity: names with equal keys are one name (see the module's doc)."""
    proto, latin = _tables()
    text = unicodedata.normalize("NFD", display(name))
    # a look-alike capital is read as the capital it imitates before case is dropped: Cyrillic "В" is
    # "B" although its small letter "в" is not "b"
    text = "".join(latin.get(c, proto.get(c, c)) if not c.isascii() else c for c in text).casefold()
    text = "".join(proto.get(c, c) for c in unicodedata.normalize("NFD", text)).casefold()
    # "I" and "l" look alike, and "I" is "i" once case is dropped: one letter for all three
    return unicodedata.normalize("NFD", text).replace("i", "l")


@lru_cache(maxsize=1)
def _reserved() -> frozenset[str]:
    # keys, so made when first asked for: the look-alike tables are built then, not when a process starts
    return frozenset(key(n) for n in ("bot 0", "bot0", "seat 0", "seat0", "pbem"))


def is_reserved(name: str) -> bool:
    """Names pbem itself shows for bots and empty seats ("Bot 2", "Seat 3") and its own."""
    return key(re.sub(r"\d+", "0", display(name))) in _reserved()
