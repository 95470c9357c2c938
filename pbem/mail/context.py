"""What the pipeline's steps and the commands share about one mail: the
Context they fill in turn, the results a receipt lists, the way a step ends
the pipeline early, and the small readers of a command line that many
commands use (who sent it, which game it names)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import Message

from sqlmodel import Session

from pbem.i18n import _, lazy_gettext
from pbem.services.core import games
from pbem.services.core.errors import UserError
from pbem.store.models import Game, Inbound, Seat, User

from .lines import Line, parse_game_id


class Stop(Exception):
    """End the pipeline early with a final status (ignored, done)."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class Result:
    line: str
    status: str  # OK | ERROR | NOT APPLIED
    detail: str = ""

    @property
    def css(self) -> str:
        return {"OK": "ok", "ERROR": "err"}.get(self.status, "skip")

    @property
    def shown(self) -> str:
        """The status as the reader's language writes it (the stored result keeps ``status``)."""
        return str(STATUS_WORDS.get(self.status, self.status))


# what a receipt shows for each status, in the reader's language
STATUS_WORDS = {"OK": lazy_gettext("OK"), "ERROR": lazy_gettext("ERROR"), "NOT APPLIED": lazy_gettext("NOT APPLIED")}


@dataclass
class Context:
    session: Session
    inbound: Inbound  # or the Core row of the inbound table that process_inbound locked
    msg: Message | None = None
    sender: str = ""
    subject: str = ""
    message_id: str = ""
    text: str = ""
    dropped: int = 0
    recipient_kind: str = "command"
    user: User | None = None
    game: Game | None = None
    seat: Seat | None = None
    expected_ply: int | None = None
    lines: list[Line] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    ignored_lines: list[str] = field(default_factory=list)  # the player's talk around the moves
    talk: list[str] = field(default_factory=list)  # a reply to table talk: posted back as talk
    talk_to: int | None = None  # ... to this seat alone (a reply to a private message)
    replies_to_talk: bool = False
    says: dict[tuple[int, int | None], list[str]] = field(default_factory=dict)  # SAY lines by recipient
    paragraphs: list[str] = field(default_factory=list)
    help_text: str = ""
    boards_for: dict[int, str] = field(default_factory=dict)  # game id -> headline for the table
    moved: dict[int, int] = field(default_factory=dict)  # game id -> the first ply of this mail's moves in it
    status: str = "done"
    digest: str | None = None  # of the recipient and the normalised text: repeats are found by it
    repeat: bool = False  # the same text went to the same address earlier in the window
    courtesy: str | None = None  # what the courtesy limit made of this mail (Inbound.courtesy)
    auth: str | None = None  # the receiver's DKIM/SPF verdict on the sender (senders.verify), where it matters
    trusted: bool = False  # the From sent it, as pbem checked (a DKIM or SPF pass aligned with it)
    confirmed: bool = False  # the held commands of a confirmation that its owner confirmed
    held: list[Line] = field(default_factory=list)  # lines waiting for the owner's confirmation
    why_held: str = ""  # "unverified" (the From could not be checked) or "destructive"
    asked: str | None = None  # the address asked to confirm them (None: it was asked too often today)
    foreign: bool = False  # a seat's address used from an address other than its player's
    unreadable: str | None = None  # why the mail is not read (parse.Unreadable): answered, nothing applied
    moves: int = 0  # moves it applied (metrics)
    reply_what: str | None = None  # what the answer's Message-ID says it is (default: a reply)
    secrets: list[str] = field(default_factory=list)  # secret words its commands held: redacted from its raw text


def aware(dt: datetime) -> datetime:
    """A time read back from the database, in UTC (SQLite forgets the zone)."""
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- what commands share


def need_user(ctx: Context) -> User:
    if ctx.user is None:
        raise UserError(_("pbem does not know your address yet; register first"), example="REGISTER Anna K.",
                        code="unregistered")
    return ctx.user


def game_arg(line: Line, ctx: Context, required: bool = True) -> int | None:
    """The game a line names by its first word, else the game of the address it came to."""
    gid = parse_game_id(line.args)
    if gid is None and ctx.game is not None:
        return ctx.game.id
    if gid is None and required:
        raise UserError(_("%(command)s needs a game number", command=line.command), example=f"{line.command} 12",
                        code="no_game_id")
    return gid


def need_game(ctx: Context, line: Line, example: str):
    """The game of the address the line came to; a command that works only there is refused elsewhere."""
    if ctx.game is None:
        raise UserError(_("%(command)s works on a game's address: reply to a mail of the game",
                          command=line.command), example=example, code="no_game")
    return games.get(ctx.session, ctx.game.id)


def rest(line: Line) -> str:
    """The text after the command word (SAY, NEXT, DISPUTE keep their spacing)."""
    m = re.match(r"^\W*" + re.escape(line.command) + r"\b", line.raw.strip(), re.I)
    return line.raw.strip()[m.end() if m else len(line.command):].strip()
