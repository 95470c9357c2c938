"""SQLModel tables (DESIGN.md §3). The schema itself is owned by the Alembic
migrations in pbem/store/migrations; a test checks the two agree."""
from __future__ import annotations

import hashlib
import secrets
import zlib
from datetime import date, datetime, timezone
from typing import Any, Optional

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, Text, UniqueConstraint, text
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


# the first bytes of a packed value: a NUL never begins a text stored before packing (no mail pbem
# renders starts with one) nor a mail as received (a header line starts it), so a row written before
# packing reads as itself
PACKED = b"\x00z1"


def pack(data: bytes) -> bytes:
    """``data`` zlib-compressed behind PACKED; empty stays empty (retention's emptied rows, and
    the partial indexes that leave them out by ``length(...) > 0``)."""
    return PACKED + zlib.compress(data, 6) if data else b""


def unpack(value: bytes) -> bytes:
    if value.startswith(PACKED):
        try:
            return zlib.decompress(value[len(PACKED):])
        except zlib.error:  # a mail received before packing that happened to start so: itself
            return value
    return value


class PackedBytes(TypeDecorator):
    """A mail's bytes, compressed where the database would not: SQLite keeps a value as it is given,
    and a mail (HTML with inlined CSS, a board written out, a reply quoting them) is three times smaller
    packed with zlib. PostgreSQL compresses every large value itself (TOAST), about as well (a move mail
    of 14 KB takes 5.6 KB so, 4.3 KB zlib-packed: docs/PERFORMANCE.md, "Storage"), so there the value
    is stored as it is and no table had to be rewritten. A row written before packing reads as itself."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None or dialect.name == "postgresql":
            return value
        return pack(bytes(value))

    def process_result_value(self, value, dialect):
        if value is None or dialect.name == "postgresql":
            return value
        return unpack(bytes(value))


class PackedText(TypeDecorator):
    """A text kept as PackedBytes of its UTF-8 (the outbox's bodies, migration 0048): a BLOB on SQLite,
    packed; PostgreSQL's text as before (TOAST compresses it). Python sees a ``str``."""

    impl = Text
    cache_ok = True

    def load_dialect_impl(self, dialect):
        return Text() if dialect.name == "postgresql" else LargeBinary()

    def process_bind_param(self, value, dialect):
        if value is None or dialect.name == "postgresql":
            return value
        return pack(value.encode("utf-8"))

    def process_result_value(self, value, dialect):
        if value is None or dialect.name == "postgresql" or isinstance(value, str):
            return value
        return unpack(bytes(value)).decode("utf-8")


def body_digest(text: str, html: str | None) -> str:
    """The SHA-256 of a mail's bodies (text, then a NUL, then the HTML if any): what stays of them,
    with the headers, once retention has dropped them; a copy of the mail shown later proves itself by it."""
    return hashlib.sha256(text.encode("utf-8") + b"\x00" + (html or "").encode("utf-8")).hexdigest()


class User(SQLModel, table=True):
    __tablename__ = "users"
    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True, max_length=320)  # stored lower-case
    name: str = Field(max_length=80)
    # the name's identity (services/names.key): unique, so no two people show the same name. None for
    # bots ("Bot 2" in many games) and for the later holders of a name that was shared before the key
    # existed (migration 0010), until they rename
    name_key: Optional[str] = Field(default=None, max_length=200, unique=True, index=True)
    is_admin: bool = False
    confirmed: bool = False
    mail_format: str = "html"  # "html" (HTML + text) or "text"
    notify: str = "every"  # every | turn | digest
    timezone: str = "UTC"
    # the language of every mail and page this user gets (en | ru | bg | it): from the browser
    # or the first mail, until the user chooses one (profile, LANGUAGE): language_chosen
    language: str = Field(default="en", max_length=8)
    language_chosen: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    stopped: bool = False  # STOP: no non-essential mail
    digest_sent_at: Optional[datetime] = None
    # when this user's daily digest is due next (services/follow/notifications.next_digest); None unless
    # notify is "digest". The sweep reads only the users due, by this index (migrations 0041, 0042)
    digest_due_at: Optional[datetime] = Field(default=None, index=True)
    # who may use this player's seat addresses: "any" sender who has the address (the
    # owner is told when it is not theirs), or "own": only the registered address (anything else is
    # refused and the seat's address renewed). SEATS OWN | SEATS ANY
    seat_senders: str = Field(default="any", max_length=8)
    # disabled by an administrator (`pbem admin disable`): its mail is refused (answered once a
    # day: disabled_told_at), its web login refused, its seats left to the games' no-move policies
    disabled_at: Optional[datetime] = None
    disabled_told_at: Optional[datetime] = None
    # mail to this address bounces (a hard bounce, or repeated soft ones: mail/bounces.py,
    # services/identity/deliverability.py); mail to it is held, not sent, until a login or a mail from it
    mail_failing_at: Optional[datetime] = None
    mail_failing_reason: Optional[str] = Field(default=None, max_length=500)
    # notifications beyond mail (services/follow/channels.py). Quiet hours, local hours in the user's
    # time zone (from, until; both None = none): chat notifications are held back until they end. The
    # daily digest's local hour (mail and the channels set to digest; None: at most once a day, any hour)
    quiet_from: Optional[int] = None
    quiet_until: Optional[int] = None
    digest_hour: Optional[int] = None
    # the key of the private calendar feed's address (services/follow/calendars.py); a new key voids the old address
    calendar_key: str = Field(default_factory=lambda: secrets.token_urlsafe(18), max_length=32, index=True)
    # reliability (services/core/reliability.py), counted in the transactions that cause it, so the
    # lobby and JOIN read it with the user: turns ended by the player's move before its deadline, deadlines
    # missed, games played to their end, games left (resigned or abandoned while running)
    turns_on_time: int = 0
    turns_late: int = 0
    games_finished: int = 0
    games_left: int = 0
    # what the game page's thread shows this player: "all", "talk" (posts and notices) or "moves"
    # (services/core/thread.SHOWS); kept with the account, so it follows the player to any device (migration 0047)
    thread_filter: str = Field(default="all", max_length=8, sa_column_kwargs={"server_default": "all"})


class Game(SQLModel, table=True):
    __tablename__ = "games"
    # the archive lists finished games newest first: by status, then the time of the last change
    # (a finished game's is its end), migration 0023; the lobby lists open games oldest first, a
    # page at a time, however many are stored: by status, then id, migration 0035
    __table_args__ = (Index("ix_games_status_updated", "status", "updated_at"),
                      Index("ix_games_status_id", "status", "id"))
    id: Optional[int] = Field(default=None, primary_key=True)
    game: str = Field(max_length=32)  # engine name
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    players: int  # seats wanted; fixed to the joined count at start
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(default="open", max_length=16, index=True)  # open | running | finished | aborted | cancelled
    ply: int = 0
    # a user's own games are counted by it (games.create's limits) and show in the lobby: migration 0029
    creator_id: Optional[int] = Field(default=None, foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # cache of the latest state (valid when state_ply == ply); the record stays the truth
    state_json: Optional[Any] = Field(default=None, sa_column=Column(JSON, nullable=True))
    state_ply: int = -1
    outcome: Optional[dict[str, Any]] = Field(default=None, sa_column=Column(JSON, nullable=True))
    # moderation: deadline per turn/step, the no-move policy, pause
    deadline_hours: int = 48
    day_mask: str = Field(default="", max_length=16)  # "" = every day; "no-weekends"
    policy: str = Field(default="wait", max_length=16)  # wait | bot | abandon
    abandon_after: int = 3  # missed deadlines before a seat is abandoned (policy "abandon")
    # how well a bot plays here for a late player (policy "bot") and for a seat waiting
    # for a replacement: easy | normal | strong (pbem.engine.bots.LEVELS)
    bot_level: str = Field(default="normal", max_length=8)
    paused: bool = False
    allow_from_address: bool = False  # moves from the registered From address without the token
    # the latest ply whose board pbem mailed to someone other than the seat to move alone (a board
    # mail, an observer's, a reminder, a digest): a move at or before it has been seen, and only a
    # move after it may be taken back by its own seat without the others' consent (services/referee/undo)
    shown_ply: int = 0
    # who may join an open game -- "public" (anyone), "private" (those invited: an
    # Invitation to their address) or "password" (anyone who gives the word, of which only a salted
    # scrypt hash is kept: services/lobby/tables.hash_password)
    access: str = Field(default="public", max_length=16)
    password_hash: Optional[str] = Field(default=None, max_length=200)
    # the game master: who has the judges' powers over this game besides the site admins;
    # None: its creator
    master_id: Optional[int] = Field(default=None, foreign_key="users.id")
    # the reliability (percent, services/core/reliability.py) a player needs to JOIN; None: anyone
    min_reliability: Optional[int] = None
    # a practice game: its players may ask the search for hints (HINT, the game page's button); never
    # rated, never a tournament's table (services/turns/hints.py), migration 0051
    hints: bool = False


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    user_id: Optional[int] = Field(default=None, foreign_key="users.id", index=True)
    token: str = Field(max_length=64, index=True, unique=True)
    joined_at: datetime = Field(default_factory=utcnow)
    resigned: bool = False
    is_bot: bool = False
    deadline_at: Optional[datetime] = None
    missed: int = 0
    abandoned: bool = False
    clock_started_at: Optional[datetime] = None  # when this seat's current deadline clock began
    reminded: int = 0  # 0 none, 1 = 24 h reminder sent, 2 = 4 h reminder sent, 3 = late (told)
    open_for_replacement: bool = False
    bot_level: Optional[str] = Field(default=None, max_length=8)  # a bot seat's own level; None: the game's
    # when the deadline sweep must next look at this seat (its next reminder, its deadline and
    # grace, a bot's move owed); None: never, until the seat's clock changes (services/core/clocks.clock_due). The
    # sweep reads only the seats due, by this index (migrations 0038, 0039)
    due_at: Optional[datetime] = Field(default=None, index=True)


class Move(SQLModel, table=True):
    """Append-only move log. Undone moves are marked, never deleted. A secret
    choice its player replaced before the step was revealed is
    undone too, with ``superseded_by`` the ply of the first move of the order
    that replaced it; nobody but its player ever sees it (services/core/visibility).
    A secret choice its player took back inside their own order
    (services/referee/undo.take_back) names its own ply there: withdrawn, replaced by
    nothing yet."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    ply: int  # the ply this move produced (1 = first move)
    seat: int
    notation: str = Field(sa_column=Column(Text, nullable=False))
    source: str = Field(default="mail", max_length=16)  # mail | web | admin | bot
    # retention deletes inbound rows no move points to: migration 0025 (without it a delete scans the moves)
    inbound_id: Optional[int] = Field(default=None, foreign_key="inbound.id", index=True)
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    created_at: datetime = Field(default_factory=utcnow)
    undone: bool = False
    superseded_by: Optional[int] = None


class Snapshot(SQLModel, table=True):
    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    ply: int
    state_json: Any = Field(sa_column=Column(JSON, nullable=False))


class Inbound(SQLModel, table=True):
    """Every mail the receiver accepted, kept raw, once per recipient: a mail
    to two game addresses is two rows, each read for its own address (a mail to
    two games moves in both; migration 0011). status: received -> done | ignored | failed
    (kept for an admin to re-drive)."""

    __tablename__ = "inbound"
    __table_args__ = (
        # the courtesy rate limit counts a sender's recent mails (pipeline.rate_limit): migration 0006
        Index("ix_inbound_sender_received", text("lower(mail_from)"), "received_at"),
        # the same mail again for the same recipient is a duplicate; for another recipient it is not
        Index("ux_inbound_message_rcpt", "message_id", "rcpt_to", unique=True),
        # retention (services/upkeep/retention.py) picks the old processed mail that still has its raw text: the
        # rows it emptied or deleted leave this index, so no run reads them again (migration 0032)
        Index("ix_inbound_unpruned", "status", "received_at", postgresql_where=text("length(raw) > 0"),
              sqlite_where=text("length(raw) > 0")),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=998)
    raw: bytes = Field(sa_column=Column(PackedBytes, nullable=False))  # packed; rows from before as they were
    mail_from: str = Field(default="", max_length=998)
    # the one envelope recipient this row is for: the bare address, lower-cased
    rcpt_to: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    received_at: datetime = Field(default_factory=utcnow)
    status: str = Field(default="received", max_length=16, index=True)
    attempts: int = 0
    claimed_at: Optional[datetime] = None
    processed_at: Optional[datetime] = None
    error: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    result: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    # the courtesy limit (pipeline.rate_limit, migration 0007): what the mail did that counts against
    # its sender -- "error" (an error answer) or "repeat" (the same text again, to no effect) -- or
    # that it was set aside unread: "aside", "aside-told" (the one answered for the window); None for
    # a mail that did what it was meant to. ``digest``: of its recipient and normalised text
    # (repeats are found by it)
    courtesy: Optional[str] = Field(default=None, max_length=16)
    digest: Optional[str] = Field(default=None, max_length=32)
    # what the receiver saw of the sending server: its IP and HELO name; and, where it matters, the
    # verdict of the worker's sender check (mail/senders.py: pbem's own DKIM and SPF, or our MX's topmost
    # Authentication-Results in mail it relayed), as an Authentication-Results value; None: not checked
    peer: str = Field(default="", max_length=64)
    helo: str = Field(default="", max_length=255)
    auth: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    mails_out: int = 0  # mails its processing queued (receipts, boards, talk): amplification is watched by it


class Outbound(SQLModel, table=True):
    """The outbox. status: queued -> sent | failed (after max attempts); held: to an address that
    bounces (services/identity/deliverability), kept and not sent."""

    __tablename__ = "outbound"
    # retention deletes the old sent rows, oldest first (migration 0033); a user's outbox page, newest
    # first: a range of this index, however much mail is kept (migration 0037); retention drops the
    # bodies of the sent rows that still have them, oldest first, and those it did leave the partial
    # index, so no run reads them again (migration 0048)
    __table_args__ = (Index("ix_outbound_status_created", "status", "created_at"),
                      Index("ix_outbound_to_addr_id", "to_addr", "id"),
                      Index("ix_outbound_bodies_kept", "created_at",
                            postgresql_where=text("status = 'sent' AND bodies_dropped_at IS NULL"),
                            sqlite_where=text("status = 'sent' AND bodies_dropped_at IS NULL")))
    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=998, unique=True)
    to_addr: str = Field(max_length=320, index=True)
    subject: str = Field(max_length=998)
    # the bodies, packed (migration 0048); emptied by retention after keep_mail_bodies_days, when
    # bodies_dropped_at says so and body_sha256 (body_digest) is what proves them
    body_text: str = Field(sa_column=Column(PackedText, nullable=False))
    body_html: Optional[str] = Field(default=None, sa_column=Column(PackedText, nullable=True))
    body_sha256: Optional[str] = Field(default=None, max_length=64)
    bodies_dropped_at: Optional[datetime] = None
    headers: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    kind: str = Field(default="reply", max_length=16)  # reply | board | notice | login
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    status: str = Field(default="queued", max_length=16, index=True)
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)
    last_error: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: Optional[datetime] = None
    # the board drawing this mail shows inline: its Picture, rendered to PNG when delivered
    picture_key: Optional[str] = Field(default=None, max_length=64, index=True)


class Picture(SQLModel, table=True):
    """A board drawing mailed as an inline PNG, once per distinct
    view: the seats and observers who see the same board share one row and
    one rendering. Queueing the mail stores the seat's view and the reader's
    language (``key``: the SHA-256 of the game's name, the language and the
    view's JSON: a drawing's labels are its reader's); the first delivery that
    needs the picture draws the SVG from that view and renders the PNG
    (pbem/mail/pictures.py), so neither costs the move's transaction."""

    __tablename__ = "pictures"
    key: str = Field(primary_key=True, max_length=64)
    game: str = Field(max_length=32)
    lang: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})
    view: str = Field(sa_column=Column(Text, nullable=False))
    svg: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    png: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, index=True)
    rendered_at: Optional[datetime] = None


class Post(SQLModel, table=True):
    """The game thread: posts, moves and notices in one stream (play-by-forum).
    ``to_seat`` set = a private message, shown only to that seat and its author."""

    __tablename__ = "posts"
    # the talk limit counts a user's posts of the last hour (thread.py): migration 0030; a live page asks
    # whether a post came after the last it shows (every poll does): a range of this index, however
    # long the thread, migration 0036
    __table_args__ = (Index("ix_posts_user_created", "user_id", "created_at"),
                      Index("ix_posts_game_id_id", "game_id", "id"))
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    kind: str = Field(default="post", max_length=16)  # post | move | notice | admin
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    seat: Optional[int] = None  # the author's seat, if seated
    to_seat: Optional[int] = None
    # a private post is the person's it was sent to, not the seat's: a replacement does not read it
    to_user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    body: str = Field(sa_column=Column(Text, nullable=False))
    ply: Optional[int] = None  # for kind=move: the ply it produced
    source: str = Field(default="web", max_length=16)  # web | mail | system
    created_at: datetime = Field(default_factory=utcnow)
    # a notice's message and arguments (services/core/notices.py): worded in each reader's language when shown
    notice: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))


class Vacation(SQLModel, table=True):
    """A declared absence; ``game_id`` None = all of the user's games."""

    __tablename__ = "vacations"
    id: Optional[int] = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id")
    starts_on: date
    ends_on: date
    created_at: datetime = Field(default_factory=utcnow)


class Dispute(SQLModel, table=True):
    __tablename__ = "disputes"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    ply: int
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    text: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default="open", max_length=16, index=True)  # open | rejected | resolved
    pauses_game: bool = False
    resolution: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    resolved_by: Optional[int] = Field(default=None, foreign_key="users.id")
    created_at: datetime = Field(default_factory=utcnow)
    resolved_at: Optional[datetime] = None
    # the game's state before and after the disputed ply as it was disputed (migration 0013): a
    # rollback later marks that ply undone, and the record of what was disputed stays
    before_json: Optional[Any] = Field(default=None, sa_column=Column(JSON, nullable=True))
    after_json: Optional[Any] = Field(default=None, sa_column=Column(JSON, nullable=True))


class AuditLog(SQLModel, table=True):
    """Every admin action, with its reason."""

    __tablename__ = "audit_log"
    id: Optional[int] = Field(default=None, primary_key=True)
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    action: str = Field(max_length=64)
    detail: str = Field(sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utcnow)


class SweepState(SQLModel, table=True):
    """When a periodic sweep last ran: a long gap means the service was down
    and running deadlines are extended by the downtime."""

    __tablename__ = "sweep_state"
    name: str = Field(primary_key=True, max_length=32)
    last_run_at: datetime
    # an outage's extension under way, game by game in batches (services/turns/deadlines): the gap
    # (from, until) and the last game id done; None when none is under way (migration 0040)
    gap_from: Optional[datetime] = None
    gap_until: Optional[datetime] = None
    gap_cursor: Optional[int] = None


class Lease(SQLModel, table=True):
    """A named lease held by one process until ``expires_at`` (renewed while
    it lives): the beat that holds "beat" is the one that sends the periodic
    tasks (pbem/beat.py); another waits, and takes over once it expires."""

    __tablename__ = "leases"
    name: str = Field(primary_key=True, max_length=32)
    holder: str = Field(max_length=128)
    expires_at: datetime


class SeatHistory(SQLModel, table=True):
    """Who played a seat, from which ply to which (replacements)."""

    __tablename__ = "seat_history"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    # the games a user ever played (profiles, the lobby's private games): migration 0031
    user_id: Optional[int] = Field(default=None, foreign_key="users.id", index=True)
    from_ply: int = 0
    until_ply: Optional[int] = None
    reason: str = Field(default="", max_length=200)
    created_at: datetime = Field(default_factory=utcnow)


class PreMove(SQLModel, table=True):
    """``NEXT: <move>``: applied when the seat is next to act, if still legal."""

    __tablename__ = "premoves"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    # IF <condition> THEN <move>: play only if the last move (of condition_seat, if set) was this
    condition: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    condition_seat: Optional[int] = None
    status: str = Field(default="pending", max_length=16, index=True)  # pending | applied | failed | skipped | cancelled
    result: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    created_at: datetime = Field(default_factory=utcnow)


class UndoRequest(SQLModel, table=True):
    """``UNDO``: take back a seat's last move if every other seat agrees."""

    __tablename__ = "undo_requests"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    ply: int  # the move to take back (later moves go with it)
    at_ply: int  # the game's ply when asked: a move since makes the request void
    votes: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="open", max_length=16, index=True)  # open | done | refused | void
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    created_at: datetime = Field(default_factory=utcnow)


class Hint(SQLModel, table=True):
    """A hint a seat asked for in a practice game (services/turns/hints.py): the search's best moves
    for the seat at ``ply``, read from the seat's own view. The table is told that the seat used a
    hint; the moves are the seat's alone until the game is over (services/core/visibility.hints).
    One per seat and position: asking again gives this row back (``view`` is the digest of what the
    seat saw, so a position met again after a take-back is looked at afresh)."""

    __tablename__ = "hints"
    __table_args__ = (UniqueConstraint("game_id", "seat", "ply", "view"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    ply: int  # the game's ply when asked (the move it is for is the next)
    shown_ply: int  # that ply as the table was shown it (visibility.public_ply)
    view: str = Field(max_length=64)  # sha256 of the seat's view of the board, hex
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")
    level: str = Field(default="normal", max_length=8)
    # best first: notation, visits, value (0..1), points, and the explanation in each language
    choices: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Observer(SQLModel, table=True):
    __tablename__ = "observers"
    __table_args__ = (UniqueConstraint("game_id", "user_id"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)


class LoginToken(SQLModel, table=True):
    """A one-time link mailed to ``email``. Only the SHA-256 of the token is
    stored; ``used_at`` set = spent. purpose: signup (an address without an
    account: the account is made, with the name its owner chooses, when the
    link is opened), confirm (an account made unconfirmed before 0010), login,
    address (``user_id``'s new address, changed when the link is opened)."""

    __tablename__ = "login_tokens"
    # the per-client limit counts a client's recent links by this index (migration 0044)
    __table_args__ = (Index("ix_login_tokens_client_created", "client", "created_at"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    user_id: Optional[int] = Field(default=None, foreign_key="users.id", index=True)
    email: str = Field(max_length=320, index=True)  # where the link went (the per-address limit counts these)
    purpose: str = Field(default="login", max_length=16)
    # who asked for it on the web: the client's address (an IPv6 one by its /64); "" when not asked there
    client: str = Field(default="", max_length=64)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: Optional[datetime] = None


class Confirmation(SQLModel, table=True):
    """Commands held until the owner of an address confirms them:
    account commands from a sender pbem could not verify, and the
    destructive ones (RESIGN, NEWADDRESS, REPLACE ... VOTE) from anyone. The
    owner confirms by replying to the mail that asks (its Reply-To is
    ``confirm-<token>@domain``) or by its link. Only the SHA-256 of the token
    is stored. status: pending -> done | cancelled (expired: past expires_at)."""

    __tablename__ = "confirmations"
    id: Optional[int] = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    email: str = Field(max_length=320, index=True)  # where it was sent: the owner's address
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")  # None: a REGISTER waits
    game_id: Optional[int] = Field(default=None, foreign_key="games.id")  # sent from this game's seat ...
    seat: Optional[int] = None  # ... address: the commands act there
    commands: str = Field(sa_column=Column(Text, nullable=False))  # the held lines, one per line
    inbound_id: Optional[int] = Field(default=None, foreign_key="inbound.id", index=True)  # retention: 0026
    sender: str = Field(default="", max_length=320)  # the From of the mail that asked
    # who asked, as pbem could tell: "from:<address>" (a verified From) or "ip:<the sending server>"; the
    # daily cap counts per address and source, so a forger's requests cannot use up the owner's (0043)
    source: str = Field(default="", max_length=330)
    status: str = Field(default="pending", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    done_at: Optional[datetime] = None
    nudged_at: Optional[datetime] = None  # a reply that said neither YES nor NO was answered (once)


class WebSession(SQLModel, table=True):
    """A logged-in browser. The cookie carries a random secret; only its
    SHA-256 is stored. Ended (``ended_at``) by logging out, by "log out
    everywhere", by a change of the user's address, or by idling too long."""

    __tablename__ = "web_sessions"
    id: Optional[int] = Field(default=None, primary_key=True)
    key_hash: str = Field(max_length=64, unique=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    ended_at: Optional[datetime] = None


class Invitation(SQLModel, table=True):
    """An invitation mailed to an address to join an open game: one per
    address and game; the web's invite limits count these rows."""

    __tablename__ = "invitations"
    __table_args__ = (UniqueConstraint("game_id", "email"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")  # the unique (game_id, email) serves it
    inviter_id: int = Field(foreign_key="users.id", index=True)
    email: str = Field(max_length=320, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    # pending | accepted | declined | removed (the creator took the invitee out again)
    status: str = Field(default="pending", max_length=16)
    answered_at: Optional[datetime] = None


class JoinAttempt(SQLModel, table=True):
    """A wrong or missing password given to join a password game: counted per user and
    game over the last hour, so the word cannot be guessed by trying many (services/lobby/tables)."""

    __tablename__ = "join_attempts"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)


class Bounce(SQLModel, table=True):
    """A bounce or delivery report that named one of our mails' recipients:
    ``kind`` "hard" (5.x.x: the address does not take mail) or
    "soft" (4.x.x: not now). Enough soft ones, or one hard one, mark the
    user's address as failing (services/identity/deliverability)."""

    __tablename__ = "bounces"
    id: Optional[int] = Field(default=None, primary_key=True)
    address: str = Field(max_length=320, index=True)  # lower-case
    kind: str = Field(max_length=8)  # hard | soft
    status: str = Field(default="", max_length=16)  # the DSN status code, e.g. 5.1.1
    diagnostic: str = Field(default="", max_length=500)
    # the mails it names stay as long as it does: retention looks for it before deleting them (0027, 0028)
    outbound_id: Optional[int] = Field(default=None, foreign_key="outbound.id", index=True)
    inbound_id: Optional[int] = Field(default=None, foreign_key="inbound.id", index=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)


class NotifyChannel(SQLModel, table=True):
    """Where notifications go besides mail: a user's chat or push
    channel, or a game's table channel (``game_id`` set, ``user_id`` the
    creator who set it), as an Apprise URL (Discord, Slack, Telegram, Matrix,
    ntfy, a JSON webhook). ``events``: the notification types it gets;
    ``mode``: "instant", or "digest" (one message a day at the owner's
    digest hour). A channel that keeps failing is disabled (``disabled_at``,
    ``disabled_reason``) and its owner told; ``failures`` counts the
    deliveries that failed for good since the last one that arrived."""

    __tablename__ = "notify_channels"
    id: Optional[int] = Field(default=None, primary_key=True)
    user_id: Optional[int] = Field(default=None, foreign_key="users.id", index=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    kind: str = Field(max_length=16)  # discord | slack | telegram | matrix | ntfy | json
    url: str = Field(sa_column=Column(Text, nullable=False))
    label: str = Field(default="", max_length=80)
    language: str = Field(default="en", max_length=8)  # a table channel's language (a user's: the user's)
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    mode: str = Field(default="instant", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    failures: int = 0
    last_error: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    last_failed_at: Optional[datetime] = None
    last_ok_at: Optional[datetime] = None
    disabled_at: Optional[datetime] = None
    disabled_reason: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    digest_sent_at: Optional[datetime] = None


class Notification(SQLModel, table=True):
    """One notification to one channel: the chat channels' outbox. status:
    queued -> sending -> sent | failed (after the attempts) | dropped (its
    channel was removed or disabled); "digest": waits for the channel's daily
    digest, then "digested" once that carried it. A notification held back
    for quiet hours is queued with ``next_attempt_at`` at their end.
    ``dedupe``: one notification per channel for one event (e.g. one "your
    turn" per turn)."""

    __tablename__ = "notifications"
    # retention deletes the old ones done with, oldest first (migration 0034)
    __table_args__ = (UniqueConstraint("channel_id", "dedupe"),
                      Index("ix_notifications_status_created", "status", "created_at"))
    id: Optional[int] = Field(default=None, primary_key=True)
    channel_id: int = Field(foreign_key="notify_channels.id", index=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id")
    kind: str = Field(max_length=16)  # turn | reminder | start | end | talk | board | test | digest | notice
    title: str = Field(default="", max_length=250)
    body: str = Field(sa_column=Column(Text, nullable=False))
    link: str = Field(default="", max_length=500)
    dedupe: Optional[str] = Field(default=None, max_length=128)
    status: str = Field(default="queued", max_length=16, index=True)
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow, index=True)
    last_error: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: Optional[datetime] = None


class Rating(SQLModel, table=True):
    """A player's rating in one game (services/lobby/ratings.py): the
    Plackett-Luce model's mu and sigma (openskill), after ``games`` rated
    games; shown as the conservative mu - 3 sigma."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("user_id", "game"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id")  # the unique (user_id, game) serves it
    game: str = Field(max_length=32)  # engine name
    mu: float
    sigma: float
    games: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class GameResult(SQLModel, table=True):
    """A finished game's result for each rated seat: its rank (1 =
    best; ties share), score, and its player's rating before and after.
    Written in the transaction that finishes the game, once: (game, seat) is
    unique, so a game that ends again (after a take-back) is not rated twice."""

    __tablename__ = "game_results"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")  # the unique (game_id, seat) serves it
    seat: int
    user_id: int = Field(foreign_key="users.id", index=True)
    rank: int
    score: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    created_at: datetime = Field(default_factory=utcnow)


class Review(SQLModel, table=True):
    """A finished game's post-game review of one seat's decisions by the search bot
    (services/coach/review.py): per decision reviewed, the move played and the search's first
    choice with their estimates; the seat's summary; the decisions with the largest gaps. Written
    once, by the task that computed it: (game, seat) is unique, so a review computed twice is
    stored once (and mailed once). ``results["game_ply"]`` is the ply of the end it reviews: an end
    taken back (the game went on and ended again) has its reviews replaced."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")  # the unique (game_id, seat) serves it
    seat: int
    user_id: Optional[int] = Field(default=None, foreign_key="users.id")  # who held the seat when reviewed
    level: str = Field(max_length=8)  # the search level the review used ("normal")
    results: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    cpu_s: float = 0.0  # CPU seconds the whole game's review spent (each of its seats' rows says the same)
    created_at: datetime = Field(default_factory=utcnow)


class Tournament(SQLModel, table=True):
    """A tournament or league (services/lobby/tournaments): one game with its options, played
    round by round at tables of ``table_size``, each table an ordinary game (TournamentTable).
    Its standings are never stored: they are computed from the tables' finished games."""

    __tablename__ = "tournaments"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    game: str = Field(max_length=32)  # engine name
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    table_size: int
    deadline_hours: int = 48
    policy: str = Field(default="bot", max_length=16)  # the tables' no-move policy (Game.policy)
    bot_level: str = Field(default="easy", max_length=8)  # the bots that stand in at its tables
    format: str = Field(default="swiss", max_length=16)  # swiss | robin | elimination
    rounds: int = 3  # a league's rounds (a round robin: its schedule's; elimination: until the final)
    advance: int = 1  # elimination: how many of each table go on
    scoring: str = Field(default="places", max_length=16)  # places | score (tournaments/scoring.py)
    points: Optional[str] = Field(default=None, max_length=40)  # "4-2-1-0": points by place; None: the defaults
    tie_breaks: str = Field(default="wins,opponents,score", max_length=80)
    director_id: int = Field(foreign_key="users.id", index=True)
    # entry: open from creation until entry_closes_at (None: until the first round); who may enter
    entry_closes_at: Optional[datetime] = None
    max_entries: Optional[int] = None
    access: str = Field(default="public", max_length=16)  # public | private (the invited list) | password
    password_hash: Optional[str] = Field(default=None, max_length=200)
    invited: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # addresses, lower-case
    min_rating: Optional[float] = None  # the rating in this game (services/lobby/ratings.py) an entrant needs
    min_reliability: Optional[int] = None  # percent (services/core/reliability.py)
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(default="entry", max_length=16, index=True)  # entry | running | finished | cancelled
    round: int = 0  # the round being played (0: entry)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: Optional[datetime] = None
    # the rounds' dates (season.round_date): ``round_dates`` (ISO, UTC) are those of the rounds from
    # ``dated_from`` on, and every ``every_days`` after the last of them; None: the director starts them
    dated_from: Optional[int] = None
    round_dates: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    every_days: Optional[int] = None
    # the next round's date, kept with the rounds: the sweep reads the tournaments due by its index
    next_round_at: Optional[datetime] = Field(default=None, index=True)
    # a round due while a table of the last one still plays: wait for it, or go without it
    late: str = Field(default="wait", max_length=8)


class TournamentJoinAttempt(SQLModel, table=True):
    """A wrong or missing password given to enter a password tournament: counted per user and
    tournament over the last hour, as for a game's (JoinAttempt), so the word cannot be guessed by
    trying many (services/lobby/tournaments/season)."""

    __tablename__ = "tournament_join_attempts"
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)


class TournamentInvitation(SQLModel, table=True):
    """An invitation to a tournament mailed to an address (services/lobby/tournaments/mails): one per
    address and tournament; the limits on how many a director sends, and an address gets, in a day
    count these rows, so that a tournament's invitations cannot carry mail to strangers in bulk."""

    __tablename__ = "tournament_invitations"
    __table_args__ = (UniqueConstraint("tournament_id", "email"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")  # the unique (tournament_id, email) serves it
    inviter_id: int = Field(foreign_key="users.id", index=True)
    email: str = Field(max_length=320, index=True)
    created_at: datetime = Field(default_factory=utcnow)


class TournamentEntry(SQLModel, table=True):
    """A player entered in a tournament. ``left_round``: the round in which they left (0: before
    the first); they forfeit that round's game and sit out every later one."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")  # the unique (tournament_id, user_id) serves it
    user_id: int = Field(foreign_key="users.id", index=True)
    joined_at: datetime = Field(default_factory=utcnow)
    left_round: Optional[int] = None


class TournamentRound(SQLModel, table=True):
    """A round the director started: when, and who sat it out (a bye: user ids)."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")  # the unique (tournament_id, number) serves it
    number: int
    started_at: datetime = Field(default_factory=utcnow)
    byes: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class TournamentTable(SQLModel, table=True):
    """One table of a round: an ordinary game, and the entrants seated at it in seat order (the
    seats' rows may pass to bots; the standings count the entrants)."""

    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")  # the unique (tournament_id, round, number) serves it
    round: int
    number: int
    game_id: int = Field(foreign_key="games.id", unique=True)
    players: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class TournamentAdjustment(SQLModel, table=True):
    """A director's adjustment of a player's points (a penalty, a correction), with its reason: a
    record of its own, added to what the games give, so the standings stay computed from records
    and every change to them is written down with who made it and why."""

    __tablename__ = "tournament_adjustments"
    id: Optional[int] = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    points: float
    reason: str = Field(max_length=200)
    by_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
