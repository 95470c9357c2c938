"""A mail body's lines, and the words in them.

One command per line, case-insensitive. On a seat's address a line that is
not a command is a move; several moves may share a line, separated by ';'.
Which words are commands, and when such a word only begins a sentence, the
commands' declarations say (pbem/mail/commands); here are the line itself
and the small readers of its words that the declarations share.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.engine.base import normalize_notation

MAX_LINES = 200  # a mail with more lines than this is answered, not processed line by line
OPTION_RE = re.compile(r"^([a-z_][a-z0-9_]*)=(.*)$", re.I)


def normalize(text: str) -> str:
    """One line as the player meant it (engine.base.normalize_notation)."""
    return normalize_notation(text)


# a list's number or bullet before a line, as typed ("1. start London", "2) buy", "(3) cell F1C1", "- pass",
# "• pass", "▪ pass") or as an HTML list reads (" 1. start London", "  * pass"): structure, not a word
LIST_MARK_RE = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|[-*\u2022\u00b7\u25aa\u25e6\u2023\u2043\u2013\u2014])\s+(?=\S)")
# emphasis around words, as a client's text part or Markdown writes bold and italics: "*place 1-2*" (Gmail
# writes <b> so), "**buy**", "_pass_", "__done__". Never inside a word ("mega_drill", "x*2"), and only when
# the text inside starts and ends with a letter, digit, or quote
EMPHASIS_RE = re.compile(r"(?<![\w*_])(\*\*|__|\*|_)(?=[\w\"'])([^*_\n]{1,200}?)(?<=[\w\"'.!)])\1(?![\w*_])")
WHOLE_EMPHASIS_RE = re.compile(r"^(\*\*|__|\*|_)(\S(?:.{0,400}\S)?)\1$")
FIRST_EMPHASIS_RE = re.compile(r"^(\*\*|__|\*|_)([^\s*_]{1,40})\1(?=\s)")  # "**SAY** good luck"


def unmark(line: str) -> str:
    """A line without the structure a client or a list put around it: a
    list's number or bullet before it, emphasis around the whole line. The
    words inside are as typed (a SAY keeps its own emphasis)."""
    line = LIST_MARK_RE.sub("", line.strip(), count=1)
    m = WHOLE_EMPHASIS_RE.match(line)
    if m:
        return m.group(2).strip()
    return FIRST_EMPHASIS_RE.sub(r"\2", line, count=1)


def split_steps(text: str, is_step) -> list[str]:
    """A move with commas between its steps ("start London, buy, cell F1C1"),
    as the Diplomacy judges read orders: the parts, when every part begins
    with a word of the game's notation (``is_step``); else the text as it is
    (a Squire path "move york, london" or offers "sell offers M01, M18" keep
    their commas)."""
    if "," not in text:
        return [text]
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 1 and all(p and is_step(p) for p in parts):
        return parts
    return [text]


def without_emphasis(text: str) -> str:
    """A move's words without emphasis around any of them ("start *London*")."""
    if "*" not in text and "_" not in text:
        return text
    return EMPHASIS_RE.sub(lambda m: m.group(2), text)


@dataclass
class Line:
    raw: str
    command: str | None = None  # upper-case command name, or None for moves
    args: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    refusal: str | None = None  # why this command may not run here (mail/gate.py)
    held: str | None = None  # the command as kept for the owner's confirmation (mail/gate.py)


def parse_options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """``key=value`` words become options; the rest are returned as is."""
    opts: dict[str, str] = {}
    rest: list[str] = []
    for a in args:
        m = OPTION_RE.match(a)
        if m:
            opts[m.group(1).lower()] = m.group(2)
        else:
            rest.append(a)
    return opts, rest


def parse_game_id(args: list[str]) -> int | None:
    if not args:
        return None
    m = re.fullmatch(r"#?(\d{1,12})", args[0])
    return int(m.group(1)) if m else None


def is_game(word: str) -> bool:
    """A game's number, or the name of a game."""
    from pbem.engine import get_game

    if re.fullmatch(r"#?\d{1,12}", word):
        return True
    try:
        get_game(word)
        return True
    except KeyError:
        return False


def names_a_card(rest: str) -> bool:
    """The words (after a game's name, if one comes first) name a card of some game."""
    from pbem.engine import playable_games
    from pbem.engine.base import find_cards

    words = rest.split()
    if words and is_game(words[0]) and not words[0].lstrip("#").isdigit():
        words = words[1:]
    query = " ".join(words)
    return bool(query) and any(find_cards(game, query) for game in playable_games())


# what LANGUAGE takes besides the codes: each language's name in each of pbem's languages
LANGUAGE_WORDS = {
    "en": ("english", "inglese", "английский", "английски", "англійська", "englisch", "anglais"),
    "ru": ("russian", "russo", "русский", "руски", "русский язык", "russisch", "russe"),
    "bg": ("bulgarian", "bulgaro", "български", "болгарский", "bulgarisch", "bulgare"),
    "it": ("italian", "italiano", "итальянский", "италиански", "italienisch", "italien"),
}


def language_code(words: str) -> str | None:
    """The language ``words`` name ("ru", "RU-ru", "Русский", "italiano"), or None."""
    from pbem.engine.i18n import LANGUAGES, NATIVE, normalize, supported

    w = " ".join((words or "").split()).strip(" .,!;:").casefold()
    if not w:
        return None
    if supported(w) and (len(w) == 2 or w[2:3] in "-_."):
        return normalize(w)
    for code in LANGUAGES:
        if w == NATIVE.get(code, "").casefold() or w in LANGUAGE_WORDS.get(code, ()):
            return code
    return None
