"""Split a mail body into commands and moves.

One command per line, case-insensitive. On a seat's address a line that is
not a command is a move; several moves may share a line, separated by ';'.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.engine.base import normalize_notation, plain_typography

MASTER_COMMANDS = ("MASTER", "DEADLINE", "PAUSE", "RESUME", "EJECT", "POLICY", "ABORT")
ACCOUNT_COMMANDS = ("REGISTER", "HELP", "GAMES", "NEW", "JOIN", "START", "STATUS", "RESIGN", "NEWADDRESS", "BOT",
                    "CANCEL",  # issue 16: the creator withdraws an open game
                    # issue 7: running games (UNOBSERVE before OBSERVE: the regex takes the first match)
                    "VACATION", "UNDO", "DISPUTE", "UNOBSERVE", "OBSERVE", "SAY", "NEXT", "STOP", "REPLACE", "NOTIFY", "IF",
                    "SEATS",  # issue 17: SEATS OWN | SEATS ANY, who may use the player's seat addresses
                    "LIST",  # issue 19: the seat's own choices on file in a simultaneous step
                    "HISTORY", "CARDS", "CARD",  # issue 19: a game's record; a card's whole text (CARDS first)
                    "LANGUAGE",  # issue 23: LANGUAGE ru, the language of the sender's mail and pages
                    "AWAY", "TIMEZONE",  # issue 25: an absence in every game; the sender's time zone
                    "ACCEPT", "DECLINE", "REMOVE",  # issue 25: invitations answered; the creator removes a player
                    # issue 25: the game master's powers (END is It's a Wonderful World's move: ABORT ends a game)
                    *MASTER_COMMANDS)
MAX_LINES = 200  # a mail with more lines than this is answered, not processed line by line
COMMAND_RE = re.compile(r"^\s*(" + "|".join(ACCOUNT_COMMANDS) + r")\b\s*(.*)$", re.I)
OPTION_RE = re.compile(r"^([a-z_][a-z0-9_]*)=(.*)$", re.I)


def normalize(text: str) -> str:
    """One line as the player meant it (engine.base.normalize_notation)."""
    return normalize_notation(text)


@dataclass
class Line:
    raw: str
    command: str | None = None  # upper-case command name, or None for moves
    args: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    refusal: str | None = None  # why this command may not run here (pipeline._gate)
    held: str | None = None  # the command as kept for the owner's confirmation (pipeline._gate)


def _is_move_on_seat(command: str, args: list[str]) -> bool:
    """Words that are commands on the command address but moves in a game:
    Spyrium's ``new`` (a new lot), Squire's ``start york``. On a seat's
    address they are moves unless written exactly as the command."""
    if command == "START":
        return parse_game_id(args) is None
    if command == "NEW":
        from pbem.engine import get_game

        try:
            get_game(args[0]) if args else None
        except KeyError:
            return True
        return not args
    return False


def _is_prose(command: str, word: str, rest: str) -> bool:
    """'If you don't mind...', 'Next time!': the words IF and NEXT begin
    sentences too. As commands they are written in capitals, or IF with THEN
    and NEXT with its colon or CANCEL."""
    if command == "IF":
        return not (word.isupper() or re.search(r"\bthen\b", rest, re.I))
    if command == "NEXT":
        return not (word.isupper() or rest.startswith(":") or rest.strip().upper() == "CANCEL")
    if command == "SEATS":  # "Seats 3 and 4 are slow" is talk
        return rest.strip().upper() not in ("OWN", "ANY")
    if command == "LIST":  # "List of my moves:" is talk; the command is the word alone
        return bool(rest.strip())
    if command in ("HISTORY", "CARDS"):  # "History repeats itself", "Cards on the table!"
        return not (word.isupper() or not rest.strip() or re.fullmatch(r"#?\d{1,12}|[a-z']+", rest.strip(), re.I)
                    and _is_game(rest.strip()))
    if command == "CARD":  # "Card games..." is talk; a card's name is not
        return not (word.isupper() or _names_a_card(rest))
    if command in ("ACCEPT", "DECLINE", "REMOVE"):  # "Accept my apologies", Squire's "accept M11": a game's number
        return parse_game_id(rest.split()) is None
    if command == "LANGUAGE":  # "Language is no barrier" is talk; the command names one language, or none
        return not (word.isupper() or not rest.strip() or language_code(rest) is not None)
    if command == "AWAY":  # "Away from home till Monday" is talk; the command is alone, CANCEL, or begins with a day
        return not (word.isupper() or not rest.strip() or rest.strip().upper() == "CANCEL"
                    or re.match(r"\d", rest.strip()))
    if command == "TIMEZONE":  # "Timezone troubles..." is talk; the command is alone or names one zone
        return not (word.isupper() or len(rest.split()) <= 1 and ("/" in rest or not rest.strip()))
    if command in MASTER_COMMANDS:  # "Pause for thought", "Deadline is tomorrow": capitals, or the game's number
        return not (word.isupper() or re.match(r"#?\d{1,12}\b", rest.strip()))
    return False


def _is_game(word: str) -> bool:
    from pbem.engine import get_game

    if re.fullmatch(r"#?\d{1,12}", word):
        return True
    try:
        get_game(word)
        return True
    except KeyError:
        return False


def _names_a_card(rest: str) -> bool:
    from pbem.engine import playable_games
    from pbem.engine.base import find_cards

    words = rest.split()
    if words and _is_game(words[0]) and not words[0].lstrip("#").isdigit():
        words = words[1:]
    query = " ".join(words)
    return bool(query) and any(find_cards(game, query) for game in playable_games())


def split_lines(text: str, *, on_seat: bool = False) -> list[Line]:
    """Non-empty lines, each classified as a command or as moves. ``raw``
    keeps the line as written (SAY posts it); command words and moves are
    read from its normalized form."""
    out: list[Line] = []
    for raw in (text or "").split("\n"):
        line = raw.strip()
        if not line:
            continue
        norm = normalize(line)
        m = COMMAND_RE.match(norm)
        if m and _is_prose(m.group(1).upper(), norm[m.start(1):m.end(1)], m.group(2)):
            m = None
        if m and on_seat and _is_move_on_seat(m.group(1).upper(), m.group(2).split()):
            m = None
        if m:
            command = m.group(1).upper()
            if command == "REGISTER":  # a name may end in a full stop ("Ann K.")
                m = COMMAND_RE.match(plain_typography(line))
            out.append(Line(line, command, m.group(2).split()))
        else:
            moves = [m for m in (normalize(p) for p in norm.split(";")) if m]
            if moves:  # a line of separators alone (";") holds nothing: skipped like an empty one
                out.append(Line(line, moves=moves))
    return out


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
