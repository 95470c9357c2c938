"""What a Russian, Bulgarian or Italian reader must not meet: a game's English names (each game's
data/names.csv, every name a language does not write as English does). The helpers the probes share
(tests/web/test_no_english_names.py over mails and pages, tests/engine/test_no_english_in_views.py
over everything an engine writes from a view)."""
from __future__ import annotations

import csv
import re
from functools import lru_cache
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("spyrium", "squire", "iaww")
LANGS = ("ru", "bg", "it")
# notation words that the players type and the pages show with the moves they write (IAWW's
# science reward: sci financier / sci general; Squire's character in a board choice: "Sir Fox")
TYPED = re.compile(r"\bsci (?:financier|general)\b")


@lru_cache(maxsize=None)
def names_table(game: str) -> dict[str, dict[str, str]]:
    """``game``'s data/names.csv: {key: its row}."""
    with (ROOT / "pbem" / "engine" / game / "data" / "names.csv").open(encoding="utf-8", newline="") as f:
        return {r["key"]: r for r in csv.DictReader(f)}


@lru_cache(maxsize=None)
def english_names(game: str, lang: str) -> frozenset[str]:
    """The English names of ``game`` that ``lang`` writes otherwise, as written and in capitals (a
    heading's "SPYRIUM")."""
    names = {r["en"] for r in names_table(game).values() if r["en"] != r[lang] and r[f"{lang}_src"] != "same"
             and len(r["en"]) > 3}
    return frozenset(names | {n.upper() for n in names})


@lru_cache(maxsize=None)
def own_names(lang: str) -> tuple[str, ...]:
    """Every name ``lang`` writes, of every game, as written and in capitals (an Italian title may hold
    an English word)."""
    out = {r[lang] for game in GAMES for r in names_table(game).values()}
    return tuple(sorted(out | {n.upper() for n in out}, key=lambda name: (-len(name), name)))


def visible_text(html: str) -> str:
    """What a reader reads of an HTML page or part (or an SVG drawing): its text and its tooltips, alt
    texts and labels (not the data attributes a click reads, nor scripts and styles)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    said = [unescape(v) for v in re.findall(r'\b(?:title|alt|aria-label|placeholder)="([^"]*)"', html)]
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    return " ".join([text, *said])


def without_notation(text: str, typed, lang: str) -> str:
    """``text`` without the notation a player types (``typed``, longest first), the language's own
    names (whatever words they share with English) and the notation words the pages show; its
    lines joined (a text board wraps a long line where it likes, notation and names too)."""
    text = " ".join(text.split())
    for notation in sorted(set(typed), key=lambda t: (-len(t), t)):
        text = text.replace(notation, " ")
    for name in own_names(lang):
        text = text.replace(name, " ")
    return TYPED.sub(" ", text)


def found(text: str, words, pattern: str = r"(?<![\w-])(?:{})(?![\w-])") -> list[str]:
    """Each of ``words`` that ``text`` holds as a word, with where it stands, for a failure's message."""
    if not words:
        return []
    out = {}
    for m in _alternation(pattern, tuple(sorted(words, key=lambda w: (-len(w), w)))).finditer(text):
        out.setdefault(m.group(0), f"{m.group(0)}: …{' '.join(text[max(0, m.start() - 60):m.end() + 40].split())}…")
    return [out[w] for w in sorted(out)]


@lru_cache(maxsize=256)
def _alternation(pattern: str, words: tuple[str, ...]) -> re.Pattern:
    return re.compile(pattern.format("|".join(map(re.escape, words))))


def leaks(text: str, names, typed, lang: str) -> list[str]:
    """The English ``names`` ``text`` holds, the notation ``typed`` aside."""
    return found(without_notation(text, typed, lang), names)
