"""Games: the record of a game and its state -- a game's row, its engine, the position after
any ply (replayed from the record; snapshots are only a cache) and what a seat sees of it. With
:mod:`.seating` (its seats), :mod:`.moves` (its moves) and :mod:`.lifecycle` (its start), the
only code that joins the store and the engine (DESIGN.md §1)."""
from __future__ import annotations

import inspect
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import JSON, String, and_, bindparam, case, cast, literal, null, union_all
from sqlalchemy.orm import defer
from sqlmodel import Session, select

from pbem.engine import Game as Engine
from pbem.engine import get_game
from pbem.engine.base import name_seats
from pbem.engine import i18n as engine_i18n
from pbem.engine.drawing import LAYOUTS
from pbem.i18n import _, pgettext
from pbem.store import memo
from pbem.store.models import Game, Move, Seat, Snapshot, User

from . import paging, seating
from .errors import NotFound, UserError

# ---------------------------------------------------------------- lookups

LATEST_STATE = "pbem.latest_state"  # Session.info: game id -> (state_json, decoded state), see state_at


def engine_for(game: Game) -> Engine:
    return get_game(game.game)


def has_started(game: Game) -> bool:
    """Whether the game has a board: it ran (and may be over since). An open
    game has not started yet, and a cancelled one never will."""
    return game.status not in ("open", "cancelled")


# The statement every mail runs, built once with its values as parameters: building a statement costs
# about as much as running it.
# populate_existing: the row as it is once locked, in the same query (no refresh round trip)
_LOCK_GAME = (select(Game).where(Game.id == bindparam("game_id")).with_for_update()
              .execution_options(populate_existing=True))


def get(s: Session, game_id: int, *, lock: bool = False) -> Game:
    if not lock:  # the session's own copy when it has one (a re-select would not refresh it either)
        g = s.get(Game, game_id)
        if g is None:
            raise NotFound(_("there is no game #%(id)s", id=game_id), example="GAMES", code="no_game")
        return g
    locked = s.info.setdefault(memo.LOCKED, set())
    if game_id in locked:  # this transaction holds the row: nobody else can have changed it
        g = s.get(Game, game_id)
        if g is not None:
            return g
    g = s.exec(_LOCK_GAME, params={"game_id": game_id}).first()
    if g is None:
        raise NotFound(_("there is no game #%(id)s", id=game_id), example="GAMES", code="no_game")
    s.info.setdefault(memo.LOCKED, set()).add(game_id)
    return g


def status_word(status: str) -> str:
    """A game's status (open, running, ...) in the current language."""
    return {"open": pgettext("game status", "open"), "running": pgettext("game status", "running"),
            "finished": pgettext("game status", "finished"), "aborted": pgettext("game status", "aborted"),
            "cancelled": pgettext("game status", "cancelled")}.get(status, status)


POLICIES = ("wait", "bot", "abandon")  # what a game does when a deadline passes


def check_level(word: str | None, example: str) -> str:
    """A bot level a player wrote (in any case), or the default when none."""
    from pbem.engine.bots import DEFAULT_LEVEL, LEVELS

    level = (word or DEFAULT_LEVEL).strip().lower()
    if level not in LEVELS:
        raise UserError(_("a bot's level is one of %(list)s, not %(word)s", list=", ".join(LEVELS), word=repr(word)),
                        example=example, code="bad_level")
    return level


def list_open(s: Session) -> list[Game]:
    return list(s.exec(select(Game).where(Game.status == "open").order_by(Game.id)))


def list_mine(s: Session, user: User) -> list[Game]:
    q = select(Game).join(Seat, Seat.game_id == Game.id).where(Seat.user_id == user.id).order_by(Game.id)
    return list(s.exec(q))


MINE_PAGE = 50  # games on a page of "my games"


@dataclass(frozen=True)
class MyGame:
    """One of a user's games as "my games" lists it."""

    game: Game  # its cached state not loaded (a list needs none)
    seat: Seat  # the user's seat
    my_turn: bool


def my_games(s: Session, user: User, page: int = 1, per_page: int = MINE_PAGE) -> paging.Page[MyGame]:
    """A page of ``user``'s games, where they must act first: their turn, earliest deadline first;
    then the running games; then the others, newest activity first. Ordered and cut in SQL, in one
    statement, whatever the user has played. Whose turn it is comes from the clocks, not from the
    states: a human seat to move, and only such a seat, has a running clock (``seats.deadline_at``,
    services/core/clocks.refresh)."""
    my_turn = and_(Game.status == "running", Seat.deadline_at.is_not(None))
    q = (select(Game, Seat).join(Seat, Seat.game_id == Game.id).where(Seat.user_id == user.id)
         .options(defer(Game.state_json))
         .order_by(case((my_turn, 0), (Game.status == "running", 1), else_=2), case((my_turn, Seat.deadline_at)),
                   Game.updated_at.desc(), Game.id.desc()))
    found = paging.fetch(s, q, page, per_page)
    return paging.Page([MyGame(g, seat, g.status == "running" and seat.deadline_at is not None)
                        for g, seat in found.rows], found.page, found.more)


# ---------------------------------------------------------------- state


def _cache(g: Game, engine: Engine, state: Any, ply: int) -> None:
    g.state_json = engine.to_json(state)
    g.state_ply = ply
    out = engine.outcome(state)
    g.outcome = out.to_dict() if out else None


def _snapshot(s: Session, g: Game, engine: Engine, state: Any) -> None:
    s.add(Snapshot(game_id=g.id, ply=g.ply, state_json=engine.to_json(state)))


def _record(s: Session, game_id: int, after: int, upto: int | None = None) -> list[Move]:
    q = select(Move).where(Move.game_id == game_id, Move.ply > after, Move.undone == False)  # noqa: E712
    if upto is not None:
        q = q.where(Move.ply <= upto)
    return list(s.exec(q.order_by(Move.ply)))


RECENT_MOVES = "pbem.recent_moves"  # Session.info: ((game id, ply), lo, rows), see recent_moves
RECORD_WINDOW = 96  # plies of the record recent_moves reads: "since your last move" looks back 64 at most
# the live moves after ply lo, and (seat -1, no notation) the snapshots from lo on, in one round trip;
# built once: after every move
_RECENT = union_all(
    select(Move.ply, Move.seat, Move.notation, cast(null(), JSON).label("state_json"))
    .where(Move.game_id == bindparam("game_id"), Move.ply > bindparam("lo"), Move.undone == False),  # noqa: E712
    select(Snapshot.ply, literal(-1), cast(null(), String), Snapshot.state_json)
    .where(Snapshot.game_id == bindparam("game_id"), Snapshot.ply >= bindparam("lo")),
).order_by("ply")


def recent_moves(s: Session, g: Game) -> tuple[int, list]:
    """``(lo, rows)``: the live moves after ply ``lo`` (the last RECORD_WINDOW plies; all when
    ``lo`` is 0) as read-only rows (``ply``, ``seat``, ``notation``), oldest first. Read once per
    transaction and ply: announcing a move asks the record the same things several times (what
    the mover is told, what the others have not seen, each seat's last move, the moves since),
    and every answer comes from this one read. A take-back (the plies may be played again) or a
    replaced order forgets it (forget_moves)."""
    key = (g.id, g.ply)
    hit = s.info.get(RECENT_MOVES)
    if hit is None or hit[0] != key:
        lo = max(0, g.ply - RECORD_WINDOW)
        rows = list(s.execute(_RECENT, {"game_id": g.id, "lo": lo}))
        hit = s.info[RECENT_MOVES] = (key, lo, [r for r in rows if r.seat >= 0], [r for r in rows if r.seat < 0])
    return hit[1], hit[2]


def _nearest_snapshot(s: Session, g: Game, target: int) -> tuple[int, Any] | None:
    """(ply, state JSON) of the latest snapshot at or before ``target`` (ply 0 and None: there is
    none, start from the initial state): from recent_moves's read when it covers ``target``."""
    if g.ply - target <= RECORD_WINDOW:
        lo, _rows = recent_moves(s, g)
        near = [r for r in s.info[RECENT_MOVES][3] if r.ply <= target]
        if near or lo == 0:
            return (near[-1].ply, near[-1].state_json) if near else (0, None)
    snap = s.exec(select(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply <= target)
                  .order_by(Snapshot.ply.desc()).limit(1)).first()
    return (snap.ply, snap.state_json) if snap is not None else (0, None)


def forget_moves(s: Session) -> None:
    """Moves were taken back or replaced in this transaction: the record read before is not the record."""
    s.info.pop(RECENT_MOVES, None)


def live_moves(s: Session, g: Game, after: int, upto: int | None = None) -> list:
    """The live moves after ``after`` (to ``upto``), read-only (``ply``, ``seat``, ``notation``):
    from recent_moves when they are among its plies, else read."""
    if g.ply - after <= RECORD_WINDOW:
        lo, rows = recent_moves(s, g)
        if after >= lo:
            return [m for m in rows if m.ply > after and (upto is None or m.ply <= upto)]
    return _record(s, g.id, after, upto)


def state_at(s: Session, g: Game, ply: int | None = None) -> Any:
    """The state after ``ply`` applied moves (the latest when None): the
    cached state when current, else the nearest snapshot plus a replay."""
    if g.status == "cancelled":
        raise UserError(_("game #%(id)d was cancelled before it started; it has no board", id=g.id), example="GAMES",
                        code="cancelled")
    if g.status == "open":
        raise UserError(_("game #%(id)d has not started yet", id=g.id), example=f"START {g.id}", code="not_started")
    engine = engine_for(g)
    target = g.ply if ply is None else ply
    if not 0 <= target <= g.ply:
        raise UserError(_("game #%(id)d has plies 0 to %(ply)d", id=g.id, ply=g.ply), code="bad_ply")
    if target == g.ply and g.state_ply == g.ply and g.state_json is not None:
        # states are immutable: decode the cached JSON once per session (one
        # mail asks for the latest state several times: move, boards, reply)
        decoded = s.info.setdefault(LATEST_STATE, {})
        hit = decoded.get(g.id)
        if hit is None or hit[0] is not g.state_json:
            hit = decoded[g.id] = (g.state_json, engine.from_json(g.state_json))
        return hit[1]
    base, snap = _nearest_snapshot(s, g, target)
    if snap is not None:
        state = engine.from_json(snap)
    else:
        state, base = engine.initial_state(g.players, g.seed, g.options), 0
    for m in live_moves(s, g, base, target):
        state = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
    return state


def replay_state(s: Session, g: Game, upto: int | None = None) -> Any:
    """The state (after ``upto`` plies; the latest when None) rebuilt from
    the record alone, ignoring every cache."""
    engine = engine_for(g)
    state = engine.initial_state(g.players, g.seed, g.options)
    for m in _record(s, g.id, 0, upto):
        state = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
    return state


def view_for(s: Session, g: Game, seat: int | None, ply: int | None = None, *, state: Any = None,
             names: list[str] | None = None) -> dict:
    """``seat``'s view (None: the public one) at ``ply``; ``state``: that ply's state when the
    caller has it already (a replay that reads several plies in one pass), ``names`` the seats'."""
    engine = engine_for(g)
    state = state_at(s, g, ply) if state is None else state
    v = engine.view(state, seat)
    v["names"] = seating.names(s, g.id) if names is None else names
    if isinstance(v.get("status"), str):  # "Player 3 to choose" -> "Cleo to choose"
        v["status"] = name_seats(v["status"], v["names"])
    v["ply"] = g.ply if ply is None else ply
    v["game_id"] = g.id
    return v


def drawing_for(s: Session, g: Game, seat: int | None, moves: Sequence[str] = (), ply: int | None = None,
                layout: str = "wide") -> str:
    """The board of ``seat`` (None: the public view) at ``ply`` as the
    engine draws it: an SVG document made from :func:`view_for` alone, so
    that it can show nothing the view hides. ``moves`` are legal moves the
    caller offers that seat now (notation); the drawing marks the elements
    they concern (``data-moves``) so a click can pick one. ``layout``: "wide"
    (a desktop's page) or "narrow" (a phone's page, the mail's picture: a
    portrait column, pbem/engine/drawing.py), for a game that :func:`draws` it.
    The one door for a drawing: nobody draws from rows or from a state."""
    engine = engine_for(g)
    if not draws(engine, layout):
        raise ValueError(f"{engine.name} draws no {layout!r} layout")
    view = view_for(s, g, seat, ply)
    moves = tuple(moves)
    try:
        key = (engine.name, engine.draw_svg, layout, engine_i18n.current(), moves,
               json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    except (TypeError, ValueError):  # a view JSON cannot hold: drawn every time
        key = None
    svg = _recent_drawings.get(key) if key is not None else None
    if svg is None:
        if layout == "wide":  # the protocol's default, and all a game drew before the narrow layout
            svg = engine.draw_svg(view, moves)
        else:
            svg = engine.draw_svg(view, moves, layout=layout)
        if key is not None:
            _recent_drawings.put(key, svg)
    return svg


class _RecentDrawings:
    """The drawings this process made last, by all they are made from: the engine's drawer, the view
    (the viewer's own, with the names, the ply and the game), the moves offered, the layout and the
    language. An engine's drawing is a function of these alone (the same bytes for the same view:
    pbem/engine/drawing.py), so a drawing found here is the one the engine would draw now, for the same viewer; a page asks for
    the same one again and again (a reload, a live page's refresh after a post, the next viewer of a
    finished game), and drawing a board costs a few tens of milliseconds. Forgotten with the catalogs
    (engine i18n.reload: a drawing's words are the catalogs')."""

    SIZE = 64  # a few megabytes of SVG at most

    def __init__(self) -> None:
        self._items: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()  # the web's threads share it

    def get(self, key: tuple) -> str | None:
        with self._lock:
            svg = self._items.get(key)
            if svg is not None:
                self._items.move_to_end(key)
            return svg

    def put(self, key: tuple, svg: str) -> None:
        with self._lock:
            self._items[key] = svg
            while len(self._items) > self.SIZE:
                self._items.popitem(last=False)

    def cache_clear(self) -> None:
        with self._lock:
            self._items.clear()


_recent_drawings = engine_i18n.derived(_RecentDrawings())


def draws(engine: Engine, layout: str) -> bool:
    """Whether ``engine`` draws its boards in ``layout`` (pbem/engine/drawing.LAYOUTS): the wide one
    always; another when its ``draw_svg`` takes a ``layout``, as the protocol has it (pbem/engine/base.py).
    A game that draws only the wide one is shown that one everywhere."""
    if layout == "wide":
        return True
    if layout not in LAYOUTS:
        return False
    try:
        return "layout" in inspect.signature(engine.draw_svg).parameters
    except (TypeError, ValueError):  # a drawer whose signature cannot be read: the wide one only
        return False
