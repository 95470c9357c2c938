"""What a viewer may see of a game: the one door (DESIGN.md §4).

Pages, feeds, mails and notifications show a game's moves and thread through
this module only: a projection for one viewer (``moves``, ``posts``), never
raw Move or Post rows, and a move's notation only where the viewer may read it.

Secret moves. In a simultaneous step (several seats act at once: It's a
Wonderful World's picks, plans and production) each choice is secret until the
engine reveals the step. A step begins at the start of the game or with a move
that revealed something (the engine's ``reveals``); it is simultaneous when
several seats were to act at some point of it. Its moves are secret from every
seat but their mover until a move reveals the step, however long the step runs
(a 5-player planning step takes well over 64 plies): where the step began is
found by replaying from the present back to it, and no further. A move taken
back (UNDO) inside a simultaneous step was never revealed and never will be.
A secret choice its player replaced before the reveal (a choice may change
until the reveal: services/core/moves), or took back inside their own order
(services/referee/undo), is seen by that player alone: for everybody else it
never existed, so nobody learns that a choice changed.
Only games that declare simultaneous steps (``engine.simultaneous``) with more
than one seat have any; the engine conformance test holds the others to it.

Once a game is finished, every seat's view of every ply is everyone's
(``seat_view``: the archive's replay); until then a viewer sees the
public view and their own seat's.

Private posts are read by their author and by the person they were sent to.

The outbox (every mail pbem queued: login links, boards with hands, reply
addresses) is read by admins whole, by each user as the mail addressed to
them, and by nobody else.
"""
from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Mapping

from sqlalchemy.orm import defer
from sqlmodel import Session, or_, select

from pbem.store.models import Game, Hint, Move, Outbound, Post, User

from pbem.i18n import N_, _, lazy_gettext, ngettext

from . import games, notices, paging, seating

log = logging.getLogger("pbem.visibility")

CHUNK = 32  # plies replayed at first when looking back for the step's start; doubled while not found

SECRET_POST = N_("made a secret choice (shown when the step is revealed)")  # shown as _(SECRET_POST)
SECRET_CHOICE = N_("a secret choice (shown when the step is revealed)")


# ---------------------------------------------------------------- who is looking


@dataclass(frozen=True)
class Viewer:
    """Who looks at a game: a user (None: a visitor) and the seat they play now."""

    user_id: int | None = None
    seat: int | None = None
    is_admin: bool = False


def viewer(s: Session, g: Game, user: User | None) -> Viewer:
    """A player who resigned plays no seat any more: a bot holds it until a replacement takes it
    over, and what it is dealt meanwhile is not theirs to see (their seat row stays theirs until
    then, for the seat history)."""
    if user is None:
        return Viewer()
    seat = seating.seat_of(s, g.id, user.id)
    playing = seat is not None and not seat.resigned
    return Viewer(user.id, seat.seat if playing else None, bool(user.is_admin))


def seat_view(g: Game, who: Viewer, asked: int | None | str = "own") -> int | None:
    """The seat whose view of the board ``who`` is shown (None: the public view):
    their own seat by default (``"own"``), the public view when they ask for None, and
    another seat's only once the game is over -- a finished game keeps no secrets, so
    its replay shows every seat's view to everyone (the archive). Raises
    Forbidden for another seat's view of a game that is not finished."""
    if asked == "own":
        return who.seat
    if asked is None or asked == who.seat:
        return asked
    if not isinstance(asked, int) or not 0 <= asked < g.players:
        from .errors import UserError

        raise UserError(_("game #%(id)d has seats 1 to %(n)d", id=g.id, n=g.players), example="seat=1",
                        code="no_seat")
    if g.status != "finished":
        from .errors import Forbidden

        raise Forbidden(_("every seat's view is shown once the game is over; game #%(id)d is not, so you see the "
                          "public view and your own seat's", id=g.id), example="seat=public", code="seat_hidden")
    return asked


# ---------------------------------------------------------------- secret moves


@dataclass(frozen=True)
class Step:
    start: int  # the live ply the step began with (0: the start of the game)
    simultaneous: bool


def has_secret_steps(g: Game) -> bool:
    return g.players > 1 and bool(getattr(games.engine_for(g), "simultaneous", False))


def step_after(s: Session, g: Game, ply: int | None = None) -> Step:
    """The step in progress after the live moves up to ``ply`` (the latest
    when None): replays from the present back to its start, in chunks that
    double, so a long step costs its own length and a short one little.
    Asked several times a request (the counter, the secrets, the order on
    file): replayed once per session and record (as ``public_ply``)."""
    hi = g.ply if ply is None else ply
    cache = s.info.setdefault("visibility.step_after", {})
    key = (g.id, g.ply, g.updated_at, hi)
    if key not in cache:
        cache[key] = _step_after(s, g, hi)
    return cache[key]


def _step_after(s: Session, g: Game, hi: int) -> Step:
    engine = games.engine_for(g)
    size, several_later = CHUNK, False
    while True:
        lo = max(0, hi - size)
        state = games.state_at(s, g, lo)
        several = len(engine.to_move(state)) > 1  # in this chunk, since its last reveal
        start = None
        for m in games.live_moves(s, g, lo, hi):
            after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
            if engine.reveals(state, after):
                start, several = m.ply, False
            state = after
            several = several or len(engine.to_move(state)) > 1
        if start is not None:
            return Step(start, several or several_later)
        several_later = several_later or several
        if lo == 0:
            return Step(0, several_later)
        hi, size = lo, size * 2


@dataclass(frozen=True)
class Secrets:
    """The plies whose notation only their mover's seat may read now, and
    the replaced secret choices, which only their mover's seat may see at all."""

    movers: Mapping[int, int] = field(default_factory=dict)  # ply -> the seat that made it
    withdrawn: frozenset[int] = frozenset()  # plies of secret choices replaced before the reveal
    taken_back: frozenset[int] = frozenset()  # ... of those, the ones their player took back (services/referee/undo)
    start: int = 0  # the live ply the step in progress began with
    # secret choices of the step in progress after their seat's first: how many parts a seat has sent is as
    # secret as what they chose, so the others see one "made a secret choice" a seat until the reveal
    repeats: frozenset[int] = frozenset()
    # the withdrawn plies, in order: nobody but their mover ever sees them, so the numbers anyone is shown skip
    # them (a gap in the numbering would tell that a pick was replaced)
    gaps: tuple[int, ...] = ()

    def number(self, ply: int | None) -> int | None:
        """The number a move at ``ply`` is shown with: its ply less the withdrawn plies before it."""
        return None if ply is None else ply - bisect_left(self.gaps, ply)

    def count(self, after: int) -> int:
        """The counter as shown after the live moves up to ``after``."""
        return after - bisect_right(self.gaps, after)

    def hides(self, ply: int | None, viewer_seat: int | None) -> bool:
        return ply is not None and ply in self.movers and self.movers[ply] != viewer_seat

    def drops(self, ply: int | None, viewer_seat: int | None) -> bool:
        """Whether the viewer sees no trace of the move at ``ply``."""
        return (ply in self.withdrawn or ply in self.repeats) and self.hides(ply, viewer_seat)

    def shown_ply(self, ply: int | None, viewer_seat: int | None) -> int | None:
        """The ply a viewer is shown for the move at ``ply``: a secret choice of the step in progress that
        the viewer may not read is numbered as the step's start (its own ply would tell how many choices
        came before it); the viewer's own choices of that step are counted from the start among its own
        alone; any other move by its number (``number``)."""
        if ply is None or ply <= self.start or ply not in self.movers:
            return self.number(ply)
        if self.movers[ply] != viewer_seat or viewer_seat is None:
            return self.count(self.start)
        return self.count(self.start) + 1 + sum(1 for q, seat in self.movers.items() if self.start < q < ply
                                                and seat == viewer_seat and q not in self.withdrawn)


def secrets(s: Session, g: Game) -> Secrets:
    """Read once per session and record (as ``gaps``): a move's mail asks for them for the receipt, for
    what the others are told, and for each board."""
    if not games.has_started(g) or g.ply == 0 or not has_secret_steps(g):
        return Secrets()
    cache = s.info.setdefault("visibility.secrets", {})
    key = (g.id, g.ply, g.updated_at)
    if key not in cache:
        cache.clear()  # one record at a time: a long transaction keeps no history of them
        cache[key] = _secrets(s, g)
    return cache[key]


def _secrets(s: Session, g: Game) -> Secrets:
    now = step_after(s, g)
    rows = s.exec(select(Move.ply, Move.seat, Move.undone, Move.superseded_by).where(
        Move.game_id == g.id, or_(Move.undone == True, Move.ply > now.start)))  # noqa: E712
    movers: dict[int, int] = {}
    withdrawn: set[int] = set()
    taken: set[int] = set()
    older: dict[int, bool] = {}  # an undone move's step, by the live ply before it
    for ply, seat, undone, superseded_by in rows:
        if superseded_by is not None:  # replaced while secret (services/core/moves), or taken back: secret for good
            secret = True
            withdrawn.add(ply)
            if superseded_by == ply:
                taken.add(ply)
        elif not undone or ply - 1 >= now.start:
            secret = now.simultaneous
        else:  # taken back in an earlier step: secret for good if that step was simultaneous
            if ply - 1 not in older:
                older[ply - 1] = step_after(s, g, ply - 1).simultaneous
            secret = older[ply - 1]
        if secret:
            movers[ply] = seat
    firsts: dict[int, int] = {}
    for ply in sorted(p for p in movers if p > now.start and p not in withdrawn):
        firsts.setdefault(movers[ply], ply)
    repeats = {p for p in movers if p > now.start and p not in withdrawn and firsts[movers[p]] != p}
    return Secrets(movers, frozenset(withdrawn), frozenset(taken), now.start if now.simultaneous else g.ply,
                   frozenset(repeats), gaps(s, g))


def gaps(s: Session, g: Game) -> tuple[int, ...]:
    """The plies of secret choices withdrawn (replaced before the reveal, or taken back inside their own
    turn), in order: only their mover ever sees them, so the numbers pages and mails show skip them."""
    if g.ply == 0 or not has_secret_steps(g):
        return ()
    cache = s.info.setdefault("visibility.gaps", {})
    key = (g.id, g.ply, g.updated_at)
    if key not in cache:
        cache[key] = tuple(s.exec(select(Move.ply).where(Move.game_id == g.id, Move.superseded_by != None)  # noqa: E711
                                  .order_by(Move.ply)))
    return cache[key]


def counter(s: Session, g: Game, after: int) -> int:
    """The counter as shown after the live moves up to ply ``after`` (a stale board's, a dispute's range)."""
    return after - bisect_right(gaps(s, g), after)


def real_ply(s: Session, g: Game, shown: int) -> int:
    """The game's ply behind a counter a reader was shown (``public_ply``, the slider, a mail's
    Message-ID, a form): the first live ply the counter reaches ``shown`` at."""
    skipped, ply = gaps(s, g), shown
    while ply - bisect_right(skipped, ply) < shown:
        ply += 1
    return ply


def public_ply(s: Session, g: Game) -> int:
    """The ply counter as pages, their JSON and mails show it: in a secret
    simultaneous step it stays at the step's start until a move reveals the
    step (it would otherwise count each seat's secret choices, and tell that
    one was replaced), and it never counts a withdrawn secret choice (``gaps``);
    anywhere else the game's ply."""
    if g.ply == 0 or not has_secret_steps(g):
        return g.ply
    cache = s.info.setdefault("visibility.public_ply", {})
    key = (g.id, g.ply, g.updated_at)
    if key not in cache:
        step = step_after(s, g) if g.status == "running" else Step(g.ply, False)
        after = step.start if step.simultaneous else g.ply
        cache[key] = after - bisect_right(gaps(s, g), after)
    return cache[key]


@dataclass(frozen=True)
class OnFile:
    """A seat's own choices in the step in progress (LIST; the game page)."""

    start: int  # the live ply the step began with
    notations: tuple[str, ...]  # the seat's live moves of the step, in order
    plies: tuple[int, ...]
    finished: bool  # the seat has finished its order: a new one replaces it (services/core/moves)
    secret: bool  # the step is simultaneous, its choices secret until it is revealed


def on_file(s: Session, g: Game, seat: int) -> OnFile | None:
    """What ``seat`` has on file in the current step of a game with secret
    steps (None in any other game, or before the start or after the end).
    Only the seat itself is ever shown this."""
    if g.status != "running" or not has_secret_steps(g):
        return None
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    if not engine.to_move(state):
        return None
    step = step_after(s, g)
    mine = [m for m in games._record(s, g.id, step.start) if m.seat == seat]
    return OnFile(step.start, tuple(m.notation for m in mine), tuple(m.ply for m in mine),
                  bool(mine) and seat not in engine.to_move(state), step.simultaneous)


def told(s: Session, g: Game, seat: int, since_ply: int) -> str:
    """What the other seats are told of ``seat``'s moves after ply
    ``since_ply``: their notation, or that a secret choice was made."""
    rows = [m for m in games.live_moves(s, g, since_ply) if m.seat == seat]
    hidden = secrets(s, g)
    if any(hidden.hides(m.ply, None) for m in rows):
        return lazy_gettext(SECRET_CHOICE)  # in the language it is shown in
    return "; ".join(m.notation for m in rows)


# ---------------------------------------------------------------- moves in words


RECENT = 64  # plies a board mail looks back for "since your last move" (HISTORY shows the rest)


@dataclass(frozen=True)
class Event:
    """One live move in words, for everybody who may read it (``words``)."""

    ply: int
    seat: int
    who: str
    words: str  # "built a Mine in lot 2 for £5", names in place of "Player N"

    def line(self, hidden: "Secrets", viewer_seat: int | None) -> str:
        what = _(SECRET_POST) if hidden.hides(self.ply, viewer_seat) else self.words
        return f"{self.who} {what}"

    def numbered(self, hidden: "Secrets", viewer_seat: int | None) -> str:
        return f"{hidden.shown_ply(self.ply, viewer_seat):>4}. {self.line(hidden, viewer_seat)}"


def events(s: Session, g: Game, after: int = 0, upto: int | None = None) -> list[Event]:
    """The live moves after ply ``after`` (to ``upto``), each described by
    the engine from the position it was played in. The words name what a
    secret choice chose: show them through :meth:`Event.line` only, which
    keeps a secret one secret from a viewer who may not read it."""
    if not games.has_started(g) or g.ply <= after:
        return []
    from pbem.engine.base import describe, name_seats

    engine = games.engine_for(g)
    names = seating.names(s, g.id)
    out = []
    for m, state, move in _positions(s, g, after, upto):
        words = name_seats(describe(engine, state, m.seat, move), names)
        out.append(Event(m.ply, m.seat, names[m.seat] if m.seat < len(names) else _("Seat %(n)d", n=m.seat + 1), words))
    return out


def forget_positions(s: Session) -> None:
    """Moves were taken back in this transaction: plies may be played again, so no replay is reused."""
    s.info.pop("visibility.positions", None)
    s.info.pop("visibility.public_ply", None)
    s.info.pop("visibility.gaps", None)
    s.info.pop("visibility.step_after", None)
    s.info.pop("visibility.secrets", None)
    games.forget_moves(s)


def _positions(s: Session, g: Game, after: int, upto: int | None) -> list[tuple]:
    """(move row, the state before it, the parsed move) of each live move after ``after``: read and
    replayed once per transaction and ply, however many languages then describe them (a table of
    readers in four languages describes the same moves four times, replays them once)."""
    cache = s.info.setdefault("visibility.positions", {})
    key = (g.id, g.ply, after, upto)
    if key not in cache:
        engine = games.engine_for(g)
        state = games.state_at(s, g, after)
        rows = []
        for m in games.live_moves(s, g, after, upto):
            move = engine.parse_move(state, m.seat, m.notation)
            rows.append((m, state, move))
            state = engine.apply(state, m.seat, move)
        cache.clear()  # one game's moves at a time: a long transaction keeps no history of them
        cache[key] = rows
    return cache[key]


def last_moved(s: Session, g: Game) -> dict[int, int]:
    """Each seat's latest live ply (seats that never moved are absent)."""
    from sqlalchemy import func

    lo, recent = games.recent_moves(s, g)
    latest = {m.seat: m.ply for m in recent}  # oldest first: each seat's last one stays
    if lo == 0 or len(latest) >= g.players:  # the whole record, or every seat moved within it
        return latest
    rows = s.exec(select(Move.seat, func.max(Move.ply)).where(Move.game_id == g.id, Move.undone == False)  # noqa: E712
                  .group_by(Move.seat))
    return {seat: ply for seat, ply in rows}


def since_lines(evs: list[Event], hidden: Secrets, seat: int | None, since: int, limit: int = 30) -> list[str]:
    """What ``seat`` is told of the others' moves after its own at ply
    ``since``: one line each, the newest ``limit`` (with how many more)."""
    mine = [e.line(hidden, seat) for e in evs if e.ply > since and e.seat != seat and not hidden.drops(e.ply, seat)]
    if len(mine) > limit:
        more = len(mine) - limit
        return [ngettext("... %(num)d earlier move(s): HISTORY shows them all",
                         "... %(num)d earlier move(s): HISTORY shows them all", more)] + mine[-limit:]
    return mine


def record(s: Session, g: Game, who: Viewer) -> list[str]:
    """The game's record as ``who`` may read it: every live move in words,
    numbered by ply (HISTORY, the final mail)."""
    hidden = secrets(s, g)
    return [e.numbered(hidden, who.seat) for e in events(s, g) if not hidden.drops(e.ply, who.seat)]


# ---------------------------------------------------------------- the projection


@dataclass(frozen=True)
class SeatRow:
    """A seat as any page may show it: no reply token, no address."""

    seat: int
    name: str
    is_bot: bool
    resigned: bool
    open_for_replacement: bool
    deadline_at: datetime | None
    missed: int
    abandoned: bool
    user_id: int | None = None  # the player's page (/players/<id>); None for a bot


def seats(s: Session, g: Game) -> list[SeatRow]:
    names = seating.names(s, g.id)
    return [SeatRow(x.seat, names[x.seat], x.is_bot, x.resigned, x.open_for_replacement, x.deadline_at, x.missed,
                    x.abandoned, None if x.is_bot else x.user_id) for x in seating.seats(s, g.id)]


@dataclass(frozen=True)
class MoveRow:
    """One line of the move log as the viewer may see it."""

    ply: int
    seat: int
    who: str
    notation: str | None  # None: secret from this viewer
    source: str
    undone: bool
    created_at: datetime
    inbound_id: int | None = None  # the mail it came in (the admin console links it)

    @property
    def hidden(self) -> bool:
        return self.notation is None


@dataclass(frozen=True)
class PostRow:
    """One post of the game thread as the viewer may see it."""

    id: int
    kind: str
    author: str
    seat: int | None
    to_seat: int | None
    to: str | None  # the name of the person a private post was sent to
    body: str
    hidden: bool
    ply: int | None
    source: str
    created_at: datetime
    # a move's turn or round (``posts(..., turns=True)``): the thread folds a run of moves with the same one into
    # one line; None for a post that is not a move, or when not asked
    turn: str | None = None

    @property
    def private(self) -> bool:
        return self.to_seat is not None


def moves(s: Session, g: Game, who: Viewer, hidden: Secrets | None = None) -> list[MoveRow]:
    """The whole move log (taken-back moves too, marked), in ply order."""
    if not games.has_started(g):
        return []
    hidden = secrets(s, g) if hidden is None else hidden
    names = seating.names(s, g.id)
    rows = s.exec(select(Move).where(Move.game_id == g.id).order_by(Move.ply, Move.id))
    return [MoveRow(hidden.shown_ply(m.ply, who.seat), m.seat,
                    names[m.seat] if m.seat < len(names) else _("Seat %(n)d", n=m.seat + 1),
                    None if hidden.hides(m.ply, who.seat) else m.notation, m.source, m.undone, m.created_at,
                    m.inbound_id)
            for m in rows if not hidden.drops(m.ply, who.seat)]


def _readable(g: Game, who: Viewer):
    """Public posts, and private ones the viewer wrote or was sent (as a person:
    whoever takes their seat later does not read them)."""
    return _readable_by(who.user_id)


def _readable_by(user_id: int | None):
    if user_id is None:
        return Post.to_seat.is_(None)
    return or_(Post.to_seat.is_(None), Post.user_id == user_id, Post.to_user_id == user_id)


def news(s: Session, game_id: int, user_id: int | None, after_id: int):
    """For a live page's poll: the game's row as the page's stamp reads it (ply, status,
    paused, updated_at, access) and ``news``, whether the thread has a post after ``after_id`` that
    user ``user_id`` (None: a visitor) may read -- one statement, whatever the thread holds. None:
    no such game. Only whether there is something is told here; what it is, :func:`posts` says. ``top``:
    the thread's newest post id, whoever may read it (a live stream's next ``after_id``: every later post has
    a higher one), never shown to anybody."""
    from sqlalchemy import func

    readable = select(Post.id).where(Post.game_id == Game.id, Post.id > after_id, _readable_by(user_id))
    top = select(func.max(Post.id)).where(Post.game_id == Game.id).scalar_subquery()
    return s.exec(select(Game.id, Game.ply, Game.status, Game.paused, Game.updated_at, Game.access,
                         readable.exists().label("news"), top.label("top")).where(Game.id == game_id)).first()


def posts(s: Session, g: Game, who: Viewer, *, after_id: int = 0, limit: int = 500,
          hidden: Secrets | None = None, turns: bool = False) -> list[PostRow]:
    """The thread posts ``who`` may read (public ones, and private ones to or
    from them), each move's notation only where they may read it; with ``turns``, each move's turn or
    round (``PostRow.turn``, see :func:`turns_of`)."""
    rows = list(s.exec(select(Post).where(Post.game_id == g.id, Post.id > after_id, _readable(g, who))
                       .order_by(Post.id).limit(limit)))
    if not rows:
        return []
    turn = turns_of(s, g, rows) if turns else {}
    if hidden is None:
        hidden = secrets(s, g) if any(p.kind == "move" for p in rows) else Secrets()
    names = seating.names(s, g.id)
    ids = {p.user_id for p in rows if p.user_id} | {p.to_user_id for p in rows if p.to_user_id}
    people = {u.id: u.name for u in s.exec(select(User).where(User.id.in_(ids)))} if ids else {}
    # a chat line or notice carries no number in a game with secret steps: the ply it was posted at would
    # tell how many secret choices had been made by then
    secret_steps = has_secret_steps(g)
    out = []
    for p in rows:
        if p.kind == "move" and hidden.drops(p.ply, who.seat):
            continue  # a replaced secret choice: only its player knows there was one
        author = people.get(p.user_id) if p.user_id else None
        if author is None and p.seat is not None and p.seat < len(names):
            author = names[p.seat]
        secret = p.kind == "move" and hidden.hides(p.ply, who.seat)
        to = None
        if p.to_seat is not None:
            to = people.get(p.to_user_id) or (names[p.to_seat] if p.to_seat < len(names) else _("Seat %(n)d",
                                                                                                n=p.to_seat + 1))
        if secret:
            body = _(SECRET_POST)
        elif p.kind in ("notice", "admin"):  # worded for this reader (the row keeps its message and arguments)
            body = notices.wording(p)
        elif p.kind == "move" and p.ply in hidden.withdrawn:
            body = _("%(move)s (taken back)", move=p.body) if p.ply in hidden.taken_back else \
                _("%(move)s (replaced)", move=p.body)
        else:
            body = p.body
        out.append(PostRow(p.id, p.kind, author or "pbem", p.seat, p.to_seat, to, body, secret,
                           hidden.shown_ply(p.ply, who.seat) if p.kind == "move" else None if secret_steps else p.ply,
                           p.source, p.created_at, turn.get(p.id)))
    return out


def turns_of(s: Session, g: Game, rows: list[Post]) -> dict[int, str]:
    """The turn or round of each move post in ``rows`` (by post id), as a short word that only says
    which moves go together: the engine's ``thread_round`` of the position the move was played in, or,
    for an engine without one, the mover's seat (a seat's consecutive moves are its turn). It tells no
    secret: the engine's round changes only where a step is revealed, so the secret choices of a step all
    have its round, a withdrawn one too.

    A ply's word never changes (a take-back or a rollback only withdraws plies, whose numbers are never
    played again, and no move taken back revealed anything): each process finds it once, replaying the
    moves it has not seen from the nearest snapshot, and keeps it (``_TURNS``)."""
    mine = [p for p in rows if p.kind == "move" and p.ply is not None]
    if not mine:
        return {}
    engine = games.engine_for(g)
    hook = getattr(engine, "thread_round", None)
    if hook is None or not games.has_started(g):
        return {p.id: f"s{p.seat}" for p in mine}
    game_key = (g.id, g.created_at, g.seed)  # an id alone may be another database's game (tests, a restore)
    known = _TURNS.pop(game_key, None) or {}
    _TURNS[game_key] = known  # the newest used last: the oldest is forgotten first
    while len(_TURNS) > TURNS_KEPT:
        _TURNS.popitem(last=False)
    wanted = sorted({p.ply for p in mine if p.ply not in known})
    if wanted:
        try:
            known.update(_turn_words(s, g, engine, hook, wanted))
        except Exception:  # noqa: BLE001 - a thread whose moves cannot be folded still shows every move
            log.exception("the turns of game #%s's plies %s-%s", g.id, wanted[0], wanted[-1])
            return {p.id: f"s{p.seat}" for p in mine}
    return {p.id: known[p.ply] for p in mine}


TURNS_KEPT = 256  # games whose turns a process keeps (a few hundred bytes a move)
_TURNS: "OrderedDict[tuple, dict[int, str]]" = OrderedDict()


def _turn_words(s: Session, g: Game, engine, hook, wanted: list[int]) -> dict[int, str]:
    """The word of each ply in ``wanted`` (sorted): the round of the position after the live moves before
    it, replayed from the nearest snapshot before the first to the last."""
    hi = min(wanted[-1], g.ply)
    start = max(0, min(wanted[0], hi + 1) - 1)
    state = games.state_at(s, g, start)
    out: dict[int, str] = {}
    i = 0
    for m in games._record(s, g.id, start, hi):
        word = None
        while i < len(wanted) and wanted[i] <= m.ply:  # this move's ply, and withdrawn ones before it
            word = word or _turn_word(hook(state))
            out[wanted[i]] = word
            i += 1
        state = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
    if i < len(wanted):
        word = _turn_word(hook(state))
        out.update((p, word) for p in wanted[i:])
    return out


def _turn_word(value) -> str:
    return "r" + "-".join(map(str, value if isinstance(value, tuple) else (value,)))


# ---------------------------------------------------------------- the game page, in pages


def recent_moves(s: Session, g: Game, who: Viewer, limit: int,
                 hidden: Secrets | None = None) -> tuple[list[MoveRow], int]:
    """The newest ``limit`` lines of the move log as ``who`` may see them, in
    ply order, and how many lines the whole log has for them."""
    rows = moves(s, g, who, hidden)
    return rows[-limit:] if limit else [], len(rows)


def latest_posts(s: Session, g: Game, who: Viewer, limit: int, *, before_id: int = 0,
                 hidden: Secrets | None = None, turns: bool = False) -> tuple[list[PostRow], bool]:
    """The newest ``limit`` posts ``who`` may read (before post ``before_id``
    when given: the page before), oldest first, and whether older ones remain."""
    # the posts ``who`` sees no trace of (another seat's replaced or repeated secret choices: Secrets.drops) do
    # not count: a long secret step may have many, and the page still shows ``limit`` posts, or says none is left
    out: list[PostRow] = []
    while True:
        q = select(Post.id).where(Post.game_id == g.id, _readable(g, who))
        if before_id:
            q = q.where(Post.id < before_id)
        ids = list(s.exec(q.order_by(Post.id.desc()).limit(limit + 1)))
        if not ids:
            return out, False
        more, ids = len(ids) > limit, ids[:limit]
        if hidden is None:
            hidden = secrets(s, g)
        out = posts(s, g, who, after_id=min(ids) - 1, limit=len(ids), hidden=hidden, turns=turns) + out
        if len(out) >= limit or not more:
            return out[-limit:], more or len(out) > limit
        before_id = min(ids)


_PANEL_SKIP = frozenset({"seat", "board", "empire_id", "ability", "bonus", "empire_vp", "phase", "passed",
                         "event_used", "new_lot_cost", "hand_limit", "commission_limit", "lobbying_used",
                         "commerce_used", "taylorism_used", "exhibition_token"})


@dataclass(frozen=True)
class Panel:
    """A seat's public state at a glance (the game page's player panels)."""

    seat: int
    name: str
    title: str  # colour, character or empire ("" if none)
    facts: tuple[tuple[str, str], ...]  # (label, value), the public view's numbers
    to_move: bool
    note: str  # "resigned", "bot", ""
    level: str = ""  # a bot's level: easy, normal or strong


def panels(s: Session, g: Game, who: Viewer) -> list[Panel]:
    """Each seat's public state, from the public view (what any visitor sees:
    nobody's hand or secret choice), whoever looks."""
    if not games.has_started(g):
        return []
    view = games.view_for(s, g, None)
    names = view.get("names") or seating.names(s, g.id)
    rows = {x.seat: x for x in seating.seats(s, g.id)}
    to_move = set(view.get("to_move") or ()) if g.status == "running" else set()
    engine = games.engine_for(g)
    out = []
    for i, st in enumerate(view.get("seats") or ()):
        if not isinstance(st, dict):
            continue
        row = rows.get(i)
        note = "resigned" if row is not None and row.resigned else "bot" if row is not None and row.is_bot else ""
        level = (row.bot_level or g.bot_level) if note == "bot" else ""
        name = names[i] if i < len(names) else _("Seat %(n)d", n=i + 1)
        if hasattr(engine, "seat_facts"):  # the game's own words for what a seat holds, in the reader's language
            title, facts = engine.seat_facts(view, i)
            out.append(Panel(i, name, title, tuple(facts), i in to_move, note, level))
            continue
        title = next((str(st[k]) for k in ("colour", "character", "empire") if isinstance(st.get(k), str)), "")
        facts = []
        for k, v in st.items():
            if k in _PANEL_SKIP or k in ("colour", "character", "empire"):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, str) and not 0 < len(v) <= 24):
                continue
            facts.append((k.replace("_", " "), str(v)))
        for k, v in st.items():  # one level down: spyrium's workers
            if isinstance(v, dict) and k not in _PANEL_SKIP and all(isinstance(x, int) for x in v.values()):
                facts.append((k, ", ".join(f"{n} {x}" for n, x in v.items() if x)))
        out.append(Panel(i, name, title, tuple(facts), i in to_move, note, level))
    return out


@dataclass(frozen=True)
class Place:
    """One line of a finished game's ranking."""

    place: int
    seat: int
    name: str
    score: int | None
    winner: bool
    breakdown: tuple[tuple[str, int], ...]


def ranking(g: Game, names: list[str]) -> list[Place]:
    """A finished game's result, best first (the outcome is public)."""
    out = g.outcome or {}
    scores = list(out.get("scores") or [])
    if g.status != "finished" or not scores:
        return []
    order = list(out.get("ranking") or []) or sorted(range(len(scores)), key=lambda i: -scores[i])
    winners = set(out.get("winners") or [])
    breakdown = list(out.get("breakdown") or [])
    places, last, place = [], None, 0
    for n, i in enumerate(order):
        if last is None or scores[i] != last or i in winners:
            place = n + 1
        last = scores[i]
        bd = breakdown[i] if i < len(breakdown) else {}
        places.append(Place(1 if i in winners else place, i, names[i] if i < len(names) else _("Seat %(n)d", n=i + 1),
                            scores[i], i in winners, tuple((str(k), v) for k, v in bd.items())))
    return places


# ---------------------------------------------------------------- hints (a practice game's)


@dataclass(frozen=True)
class HintChoice:
    """One move of a hint, in the reader's language."""

    move: str
    percent: int  # the search's value, as a rough chance of winning
    points: float  # the seat's estimated final score after it
    words: str  # what it does


@dataclass(frozen=True)
class HintRow:
    """A hint a seat used, as ``who`` may see it: who and when for everyone at the table; the moves
    (``choices``) only for that seat while the game runs, and for everyone once it is over (the
    moves could tell the others what the seat holds)."""

    seat: int
    who: str
    ply: int  # as the table was shown it
    choices: tuple[HintChoice, ...] | None  # None: not this reader's to read

    @property
    def line(self) -> str:
        return _("%(name)s used a hint at ply %(ply)d", name=self.who, ply=self.ply)


def hint_readable(g: Game, who: Viewer, seat: int) -> bool:
    """May ``who`` read the moves of ``seat``'s hints? Its own, and everyone's once the game is over."""
    return g.status in ("finished", "aborted") or (who.seat is not None and who.seat == seat)


def hint_choices(row: Hint, names: list[str]) -> tuple[HintChoice, ...]:
    """The moves of a hint row, worded in the current language (English where a sentence is missing),
    the players named."""
    from pbem.engine import i18n as engine_i18n
    from pbem.engine.base import name_seats

    code = engine_i18n.current()
    return tuple(HintChoice(str(c.get("move", "")), round(100 * float(c.get("value", 0))), float(c.get("points", 0)),
                            name_seats((c.get("explain") or {}).get(code) or (c.get("explain") or {}).get("en", ""),
                                       names))
                 for c in row.choices or ())


def hint_row(s: Session, g: Game, who: Viewer, row: Hint) -> HintRow:
    names = seating.names(s, g.id)
    name = names[row.seat] if row.seat < len(names) else _("Seat %(n)d", n=row.seat + 1)
    return HintRow(row.seat, name, row.shown_ply,
                   hint_choices(row, names) if hint_readable(g, who, row.seat) else None)


def hints(s: Session, g: Game, who: Viewer, *, after: int = -1) -> list[HintRow]:
    """The hints used in ``g`` (asked after the game's ply ``after``), oldest first, as ``who`` may see them."""
    if not g.hints:
        return []
    q = select(Hint).where(Hint.game_id == g.id, Hint.ply > after)
    return [hint_row(s, g, who, r) for r in s.exec(q.order_by(Hint.id))]


def hint_lines(s: Session, g: Game, seat: int | None, since: int) -> list[str]:
    """What the table is told of the others' hints since ``seat``'s own move at ply ``since`` (a
    board mail's and the page's "since your last move"): who used one at which ply, never its moves."""
    return [h.line for h in hints(s, g, Viewer(seat=seat), after=since - 1) if h.seat != seat]


# ---------------------------------------------------------------- the outbox


MAIL_PAGE = 50  # outbox rows on a page


def mail(s: Session, user: User, page: int = 1, per_page: int = MAIL_PAGE) -> paging.Page[Outbound]:
    """A page of the outbox rows ``user`` may read, newest first: all of them for an admin, else the
    mail addressed to the user's own address. Without their bodies (a row's own page reads them):
    one statement, a range of the index on (to_addr, id) (migration 0037), however large the outbox."""
    q = (select(Outbound).options(defer(Outbound.body_text), defer(Outbound.body_html), defer(Outbound.headers))
         .order_by(Outbound.id.desc()))
    if not user.is_admin:
        q = q.where(Outbound.to_addr == user.email)
    return paging.fetch(s, q, page, per_page)


def mail_row(s: Session, user: User, row_id: int) -> Outbound | None:
    """One outbox row, or None when it does not exist or is not ``user``'s to read."""
    row = s.get(Outbound, row_id)
    if row is None or not (user.is_admin or row.to_addr == user.email):
        return None
    return row


def all_mail(s: Session, *, to: str | None = None, limit: int = 20) -> list[Outbound]:
    """The newest outbox rows (to one address when ``to`` is given), for the
    machine's operator at the command line (``pbem outbox``), never for a page."""
    q = select(Outbound).order_by(Outbound.id.desc()).limit(limit)
    if to:
        q = q.where(Outbound.to_addr == to.strip().lower())
    return list(s.exec(q))
