"""Split a mail body into commands and moves.

One command per line, case-insensitive. On a seat's address a line that is
not a command is a move; several moves may share a line, separated by ';'.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

ACCOUNT_COMMANDS = ("REGISTER", "HELP", "GAMES", "NEW", "JOIN", "START", "STATUS", "RESIGN", "NEWADDRESS", "BOT",
                    "CANCEL",  # issue 16: the creator withdraws an open game
                    # issue 7: running games (UNOBSERVE before OBSERVE: the regex takes the first match)
                    "VACATION", "UNDO", "DISPUTE", "UNOBSERVE", "OBSERVE", "SAY", "NEXT", "STOP", "REPLACE", "NOTIFY", "IF")
MAX_LINES = 200  # a mail with more lines than this is answered, not processed line by line
COMMAND_RE = re.compile(r"^\s*(" + "|".join(ACCOUNT_COMMANDS) + r")\b\s*(.*)$", re.I)
OPTION_RE = re.compile(r"^([a-z_][a-z0-9_]*)=(.*)$", re.I)


@dataclass
class Line:
    raw: str
    command: str | None = None  # upper-case command name, or None for moves
    args: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)


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


def split_lines(text: str, *, on_seat: bool = False) -> list[Line]:
    """Non-empty lines, each classified as a command or as moves."""
    out: list[Line] = []
    for raw in (text or "").split("\n"):
        line = raw.strip()
        if not line:
            continue
        m = COMMAND_RE.match(line)
        if m and on_seat and _is_move_on_seat(m.group(1).upper(), m.group(2).split()):
            m = None
        if m:
            out.append(Line(line, m.group(1).upper(), m.group(2).split()))
        else:
            moves = [p.strip() for p in line.split(";") if p.strip()]
            if moves:  # a line of separators alone (";") holds nothing: skipped like an empty one
                out.append(Line(line, moves=moves))
    return out


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
