"""The mail commands: one declaration each (commands/base.py), grouped by
family in the modules beside this one, collected here in the order pbem
lists them. Everything else about commands is read from this registry: which
words begin a command line, who may send what where (mail/gate.py), what
only reads, what waits for confirmation, the HELP answer, and the
reference and permission tables of the documentation (commands/docs.py).

To add a command: declare it in its family's module (its handler, usages,
where, who, and its description), and add it to COMMANDS below."""
from __future__ import annotations

import re

from pbem.engine import get_game, validate_options
from pbem.engine.base import plain_typography
from pbem.i18n import N_, _
from pbem.services.core import games
from pbem.services.core.errors import UserError

from ..context import Context
from ..lines import (MAX_LINES, Line, normalize, parse_game_id, parse_options,  # noqa: F401 - read from here too
                     unmark, without_emphasis)
from . import account, away, game_master, games_and_seats, notifications, play, tournaments
from .base import Command, Section, Usage, Where, Who
from .help import render


def do_help(ctx: Context, line: Line) -> str:
    if line.args:
        try:
            engine = get_game(line.args[0])
        except KeyError as e:
            raise UserError(str(e.args[0]), example="HELP spyrium", code="no_such_game") from None
        state = None
        if ctx.game is not None and ctx.game.game == engine.name and games.has_started(ctx.game):
            state = games.state_at(ctx.session, ctx.game)
        if state is None:
            n = engine.min_players
            state = engine.initial_state(n, 1, validate_options(engine, n, {}))
            ctx.help_text = engine.notation_help(state, None)
        else:
            ctx.help_text = engine.notation_help(state, ctx.seat.seat if ctx.seat else None)
        return _("the notation of %(game)s is below", game=engine.title)
    ctx.help_text = help_text()
    return _("the commands are below")


HELP = Command(
    "HELP", do_help, account.FAMILY, where=Where.ANY, who=Who.ANYONE, read_only=True,
    usage=(Usage(N_("HELP [game]"), N_("this help, or a game's move notation"), Section.COMMANDS, 20),),
    doc="the commands, or a game's move notation (with examples valid in your game's position, on its address)")

# the registry, in the order an answer to a line that is no command lists them
COMMANDS: tuple[Command, ...] = (
    account.REGISTER, HELP, games_and_seats.GAMES, games_and_seats.NEW, games_and_seats.JOIN,
    games_and_seats.START, games_and_seats.STATUS, games_and_seats.RESIGN, account.NEWADDRESS, games_and_seats.BOT,
    games_and_seats.CANCEL, away.VACATION, play.UNDO, play.DISPUTE, games_and_seats.UNOBSERVE,
    games_and_seats.OBSERVE, play.SAY, play.NEXT, notifications.STOP, games_and_seats.REPLACE, notifications.NOTIFY,
    play.IF, account.SEATS, play.LIST, play.HINT, play.HISTORY, play.CARDS, play.CARD, account.LANGUAGE, away.AWAY,
    away.TIMEZONE, games_and_seats.ACCEPT, games_and_seats.DECLINE, games_and_seats.REMOVE, game_master.MASTER,
    game_master.DEADLINE, game_master.PAUSE, game_master.EJECT, game_master.POLICY, game_master.ABORT,
    tournaments.TOURNAMENT,
)

BY_NAME: dict[str, Command] = {name: c for c in COMMANDS for name in c.names}
ACCOUNT_COMMANDS = tuple(BY_NAME)  # every command's name and alias
MASTER_COMMANDS = tuple(n for n, c in BY_NAME.items() if c.who is Who.MASTER)
READ_ONLY = tuple(n for n, c in BY_NAME.items() if c.read_only)  # a mail of only these, again, is a repeat
SEAT_COMMANDS = tuple(n for n, c in BY_NAME.items() if c.where is not Where.COMMAND)  # a seat's address takes them
DESTRUCTIVE = tuple(n for n, c in BY_NAME.items() if c.destructive is True)  # and REPLACE ... VOTE (Command.holds)
GAME_ONLY = tuple(n for n, c in BY_NAME.items() if c.where is Where.GAME)  # on a game's address only
HANDLERS = {n: c.process for n, c in BY_NAME.items()}
# a command line: its word first (the longest names first, so no name stops at a shorter one's end)
COMMAND_RE = re.compile(r"^\s*(" + "|".join(sorted(ACCOUNT_COMMANDS, key=len, reverse=True)) + r")\b\s*(.*)$", re.I)


SECRET = "<password>"  # what stands for a secret word wherever a line is stored or repeated


def secrets_in(line: Line) -> list[str]:
    """The secret words of a command line (a game's password), as its handler reads them."""
    command = BY_NAME.get(line.command) if line.command else None
    return [w for w in command.secrets(line) if w] if command is not None and command.secrets else []


def masked(line: Line) -> str:
    """A line as a receipt, a log or the mail's record keeps it: as written, or, when it holds a secret,
    its command and words with each secret replaced."""
    secrets = set(secrets_in(line))
    if not secrets:
        return line.raw
    return " ".join([line.command, *(_masked_word(a, secrets) for a in line.args)])


def _masked_word(arg: str, secrets: set[str]) -> str:
    if arg in secrets:
        return SECRET
    key, eq, value = arg.partition("=")
    return f"{key}={SECRET}" if eq and value in secrets else arg


def help_text() -> str:
    """The HELP answer, in the current language."""
    return render(COMMANDS)


def split_lines(text: str, *, on_seat: bool = False) -> list[Line]:
    """Non-empty lines, each classified as a command or as moves. ``raw``
    keeps the line as written (SAY posts it); command words and moves are
    read from its normalized form."""
    out: list[Line] = []
    for raw in (text or "").split("\n"):
        line = unmark(raw)  # a list's number, a bullet, bold around the line: structure, never a word
        if not line:
            continue
        norm = normalize(line)
        m = COMMAND_RE.match(norm)
        command = BY_NAME[m.group(1).upper()] if m else None
        if command and command.is_talk and command.is_talk(norm[m.start(1):m.end(1)], m.group(2)):
            m = None
        if m and on_seat and command.is_move_on_seat and command.is_move_on_seat(m.group(2).split()):
            m = None
        if m:
            if command.words_as_written:
                m = COMMAND_RE.match(plain_typography(line))
            out.append(Line(line, m.group(1).upper(), m.group(2).split()))
        else:
            moves = [m for m in (normalize(without_emphasis(p)) for p in norm.split(";")) if m]
            if moves:  # a line of separators alone (";") holds nothing: skipped like an empty one
                out.append(Line(line, moves=moves))
    return out
