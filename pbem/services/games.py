"""Games: creation, seats, state loading and moves. The only code that joins
the store and the engine (DESIGN.md §1)."""
from __future__ import annotations

import base64
import hmac
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Sequence

from sqlalchemy import Connection, and_, bindparam, case, delete, insert, update
from sqlalchemy.orm import defer
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from pbem.config import settings
from pbem.engine import Game as Engine
from pbem.engine import (
    GameOverError, IllegalMoveError, MoveError, NotYourTurnError, OptionError, get_game, validate_options,
)
from pbem.engine.base import name_seats, normalize_notation
from pbem.store import memo
from pbem.store.models import Game, Move, Post, Seat, Snapshot, User, utcnow

from . import bots as _bots
from . import paging, reliability
from pbem.i18n import _, pgettext

from .errors import ConcurrentUpdate, Forbidden, NotFound, StaleMoveError, UserError

# ---------------------------------------------------------------- lookups

LATEST_STATE = "pbem.latest_state"  # Session.info: game id -> (state_json, decoded state), see state_at
DECIDING = "pbem.deciding"  # Session.info: (game id, ply, seat) -> deciding_state's answer for a seat not to move


def new_token() -> str:
    """32 lower-case base32 characters (160 bits): survives MTAs that fold case."""
    return base64.b32encode(secrets.token_bytes(20)).decode().lower()


def engine_for(game: Game) -> Engine:
    return get_game(game.game)


def has_started(game: Game) -> bool:
    """Whether the game has a board: it ran (and may be over since). An open
    game has not started yet, and a cancelled one never will."""
    return game.status not in ("open", "cancelled")


# The statements every mail runs, built once with their values as parameters: building a
# statement costs about as much as running it (issue 9).
# populate_existing: the row as it is once locked, in the same query (no refresh round trip)
_LOCK_GAME = (select(Game).where(Game.id == bindparam("game_id")).with_for_update()
              .execution_options(populate_existing=True))
_SEATS_WITH_USERS = (select(Seat, User).join(User, User.id == Seat.user_id, isouter=True)
                     .where(Seat.game_id == bindparam("game_id")))


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


def seats(s: Session, game_id: int) -> list[Seat]:
    """The game's seats in seat order, read once per transaction (with their
    users, so ``s.get(User, …)`` and ``names`` need no query; store/memo.py)."""
    if memo.pending_seat_change(s):
        s.flush()  # the memo is dropped by the flush and read again below
    cache = s.info.setdefault(memo.SEATS, {})
    rows = cache.get(game_id)
    if rows is None:  # the users are kept too: the identity map only holds objects someone references
        rows = cache[game_id] = list(s.exec(_SEATS_WITH_USERS, params={"game_id": game_id}))
    return sorted((seat for seat, _user in rows), key=lambda x: x.seat)


def load_seats(s: Session, game_ids: Sequence[int]) -> None:
    """Read the seats (with their users) of many games in one query, into the memo that
    :func:`seats` and :func:`names` read: a list page asks once for its page of games, never
    once per row (issue 27)."""
    if memo.pending_seat_change(s):
        s.flush()
    cache = s.info.setdefault(memo.SEATS, {})
    wanted = sorted({i for i in game_ids if i not in cache})
    if not wanted:
        return
    for gid in wanted:
        cache[gid] = []
    for seat, user in s.exec(select(Seat, User).join(User, User.id == Seat.user_id, isouter=True)
                             .where(Seat.game_id.in_(wanted))):
        cache[seat.game_id].append((seat, user))


def seat_of(s: Session, game_id: int, user_id: int) -> Seat | None:
    return next((x for x in seats(s, game_id) if x.user_id == user_id), None)


def not_at_table(s: Session, g: Game, user: User | None) -> str | None:
    """Who acts for a game's table -- writes in its thread, invites to it: its seated players, its
    creator and admins. None for them, else why not: "login", "not_a_player" or "resigned"."""
    if user is None:
        return "login"
    if user.is_admin or g.creator_id == user.id:
        return None
    seat = seat_of(s, g.id, user.id)
    if seat is None:
        return "not_a_player"
    return "resigned" if seat.resigned else None


def seat_by_token(s: Session, game_id: int, token: str) -> Seat | None:
    """The seat whose reply token is ``token`` (compared in constant time)."""
    for seat in seats(s, game_id):
        if hmac.compare_digest(seat.token.encode(), (token or "").lower().encode()):
            return seat
    return None


def token_senders(s: Session | Connection, game_id: int, token: str) -> str | None:
    """The receiver's one read for a seat address: None when ``token`` opens
    no seat of the game, else who may use it -- its player's choice, "any" or
    "own" (SEATS OWN: pbem checks the sender), "" for a seat without a player.
    Every token of the game is compared, in constant time; a bare connection
    will do."""
    given = (token or "").lower().encode()
    found = None
    for t, mode in s.execute(_SEAT_TOKENS, {"game_id": game_id}).all():
        if hmac.compare_digest(t.encode(), given):
            found = mode or ""
    return found


# built once: one per mail
_SEAT_TOKENS = (select(Seat.token, User.seat_senders).select_from(Seat).outerjoin(User, User.id == Seat.user_id)
                .where(Seat.game_id == bindparam("game_id")))


def names(s: Session, game_id: int) -> list[str]:
    out = []
    for seat in seats(s, game_id):
        user = s.get(User, seat.user_id) if seat.user_id is not None else None
        out.append(user.name if user is not None else _("Seat %(n)d", n=seat.seat + 1))
    return out


# ---------------------------------------------------------------- lifecycle


POLICIES = ("wait", "bot", "abandon")


def check_level(word: str | None, example: str) -> str:
    """A bot level a player wrote (any case; issue 26), or the default when none."""
    from pbem.engine.bots import DEFAULT_LEVEL, LEVELS

    level = (word or DEFAULT_LEVEL).strip().lower()
    if level not in LEVELS:
        raise UserError(_("a bot's level is one of %(list)s, not %(word)s", list=", ".join(LEVELS), word=repr(word)),
                        example=example, code="bad_level")
    return level


MAX_OPEN_GAMES = 8  # games a user created that wait for players, at once
MAX_NEW_PER_HOUR = 12  # games a user may create in an hour (solo ones start at once)


def check_creation_quota(s: Session, user: User, *, now: datetime | None = None) -> None:
    """Refuse a new game past the user's caps (issue 18: one mail of 198 NEW
    lines made 198 games). The front doors (mail, web) ask before create()."""
    from datetime import timedelta

    from sqlalchemy import func

    now = now or utcnow()
    open_games = s.exec(select(func.count()).select_from(Game).where(
        Game.creator_id == user.id, Game.status == "open")).one()
    if open_games >= MAX_OPEN_GAMES:
        raise UserError(_("you already have %(count)d games waiting for players; start or cancel one before you "
                          "open another", count=open_games), example="CANCEL 12", code="too_many_open")
    recent = s.exec(select(func.count()).select_from(Game).where(
        Game.creator_id == user.id, Game.created_at > now - timedelta(hours=1))).one()
    if recent >= MAX_NEW_PER_HOUR:
        raise UserError(_("you have created %(count)d games in the last hour, the most pbem takes; please try "
                          "again later", count=recent), example="GAMES", code="too_many_new")


def create(s: Session, creator: User, game_name: str, players: int | None = None,
           options: dict[str, Any] | None = None, *, seed: int | None = None,
           deadline_hours: int = 48, policy: str = "wait", day_mask: str = "", access: str = "public",
           password: str | None = None, min_reliability: int | str | None = None,
           bot_level: str | None = None) -> Game:
    """A new open game (a solo one starts at once). ``access`` "private": only those invited join;
    a ``password``: anyone who gives it joins (issue 25: services/tables; only its hash is kept)."""
    from . import tables

    try:
        engine = get_game(game_name)
    except KeyError as e:
        raise UserError(str(e.args[0]), example="NEW spyrium players=4", code="no_such_game") from None
    players = engine.max_players if players is None else players
    try:
        opts = validate_options(engine, players, options or {})
    except OptionError as e:
        raise UserError(str(e), example=f"NEW {engine.name} players={engine.min_players}",
                        code="bad_option") from None
    if not 1 <= int(deadline_hours) <= 24 * 30:
        raise UserError(_("the deadline is 1 to 720 hours"), example="NEW spyrium deadline=48", code="bad_option")
    if policy not in POLICIES:
        raise UserError(_("the no-move policy is one of %(list)s", list=", ".join(POLICIES)),
                        example="NEW squire policy=bot",
                        code="bad_option")
    bot_level = check_level(bot_level, f"NEW {engine.name} policy=bot bot=strong")
    if day_mask not in ("", "no-weekends"):
        raise UserError(_("days is 'all' or 'no-weekends'"), example="NEW iaww days=no-weekends", code="bad_option")
    if access not in ("public", "private"):
        raise UserError(_("a game is public, private (invitation only) or has a password"),
                        example=f"NEW {engine.name} private", code="bad_option")
    if password is not None:
        password = tables.valid_password(password, engine.name)
        access = "password"
    g = Game(game=engine.name, options=opts, players=players,
             seed=secrets.randbits(62) if seed is None else seed, creator_id=creator.id,
             deadline_hours=int(deadline_hours), policy=policy, day_mask=day_mask, access=access,
             password_hash=tables.hash_password(password) if password is not None else None,
             min_reliability=reliability.parse_minimum(min_reliability), bot_level=bot_level)
    s.add(g)
    s.flush()
    s.add(Seat(game_id=g.id, seat=0, user_id=creator.id, token=new_token()))
    s.flush()
    if players == 1:  # a solo game is full as soon as it exists
        start(s, g, by=None)
    return g


def join(s: Session, user: User, game_id: int, password: str | None = None) -> tuple[Game, Seat, bool]:
    """Take the next free seat (of a private game: invited; of a password game: with the word or
    invited). Returns (game, seat, started)."""
    from . import tables

    g = get(s, game_id, lock=True)
    if not tables.may_see(s, g, user):  # a private game one was not invited to: as if it were not there
        tables.check_join(s, g, user, password)
    if g.status != "open":
        raise UserError(_("game #%(id)d is not open for joining (it is %(status)s)", id=g.id,
                          status=status_word(g.status)), example="GAMES",
                        code="not_open")
    taken = seats(s, g.id)
    if any(t.user_id == user.id for t in taken):
        raise UserError(_("you already have a seat in game #%(id)d", id=g.id), example=f"STATUS {g.id}",
                        code="already_seated")
    tables.check_join(s, g, user, password)
    reliability.check_join(g, user)  # NEW ... min_reliability=90
    tables.joined(s, g, user)
    seat = Seat(game_id=g.id, seat=len(taken), user_id=user.id, token=new_token())
    s.add(seat)
    s.flush()
    started = False
    if len(taken) + 1 >= g.players:
        start(s, g, by=None)
        started = True
    return g, seat, started


def start(s: Session, g: Game, by: User | None) -> Game:
    """Start an open game with the seats taken so far (creator only, unless
    the game just filled up: ``by`` None)."""
    if by is not None and g.creator_id != by.id:
        raise Forbidden(_("only the creator of game #%(id)d can start it", id=g.id), code="not_creator")
    if g.status != "open":
        raise UserError(_("game #%(id)d has already started", id=g.id), example=f"STATUS {g.id}", code="not_open")
    engine = engine_for(g)
    n = len(seats(s, g.id))
    if n < engine.min_players:
        raise UserError(_("%(game)s needs at least %(min)d players; game #%(id)d has %(n)d", game=engine.title,
                          min=engine.min_players, id=g.id, n=n),
                        example=f"JOIN {g.id}", code="too_few")
    try:
        g.options = validate_options(engine, n, g.options)
    except OptionError as e:
        raise UserError(str(e), code="bad_option") from None
    g.players = n
    g.status = "running"
    if getattr(engine, "random_seating", False):
        _draw_seating(s, g)
    state = engine.initial_state(n, g.seed, g.options)
    _cache(g, engine, state, 0)
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    _snapshot(s, g, engine, state)
    _after_change(s, g, state, moved=set(range(n)), source="start")
    _bots.after_change(s, g.id)
    from . import channels

    channels.started(s, g)  # the players' chat channels and the table's (issue 24)
    return g


def _draw_seating(s: Session, g: Game) -> None:
    """Seat the players in an order drawn from the game's seed (each keeps
    their reply address: the token belongs to the seat row, which moves)."""
    from pbem.engine.base import rng_for

    rows = seats(s, g.id)
    order = list(range(len(rows)))
    rng_for(g.seed, "seating").shuffle(order)
    for row in rows:  # two steps: (game, seat) is unique at every flush
        row.seat += 1000
        s.add(row)
    s.flush()
    for row, new in zip(rows, order):
        row.seat = new
        s.add(row)
    s.flush()


def leave(s: Session, user: User, game_id: int) -> Seat:
    """RESIGN before the start: the player gives the seat up and the row goes
    (there is nothing to play for a bot yet). Later seats move up one, so the
    seats stay 0..n-1 as the start and the next JOIN expect. Returns the
    removed seat as it was."""
    g = get(s, game_id, lock=True)
    if g.status != "open":
        raise UserError(_("game #%(id)d is %(status)s, not open", id=g.id, status=status_word(g.status)),
                        example=f"STATUS {g.id}", code="not_open")
    seat = seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), example="GAMES", code="no_seat")
    later = [x for x in seats(s, g.id) if x.seat > seat.seat]
    s.delete(seat)
    s.flush()
    for x in later:  # in seat order, one at a time: (game, seat) is unique at every flush
        x.seat -= 1
        s.add(x)
        s.flush()
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    return seat


def cancel(s: Session, user: User, game_id: int) -> Game:
    """CANCEL: the creator withdraws a game that has not started. The seats
    stay, as the record of who had joined; the game takes no more joins or
    moves."""
    g = get(s, game_id, lock=True)
    seated = seat_of(s, g.id, user.id) is not None
    if g.status == "cancelled":
        raise UserError(_("game #%(id)d is already cancelled", id=g.id), example="GAMES", code="cancelled")
    if g.status == "running":
        raise UserError(_("game #%(id)d has started, and a running game is not cancelled: to leave it, RESIGN "
                          "%(id)d (a bot plays your seat until someone takes it over)", id=g.id) if seated else
                        _("game #%(id)d has started, and a running game is not cancelled; only an open game (one "
                          "still waiting for players) can be", id=g.id),
                        example=f"RESIGN {g.id}" if seated else "GAMES", code="running")
    if g.status != "open":
        raise UserError(_("game #%(id)d is over (%(status)s); there is nothing to cancel", id=g.id,
                          status=status_word(g.status)), example=f"STATUS {g.id}",
                        code="over")
    if g.creator_id != user.id:
        creator = s.get(User, g.creator_id) if g.creator_id else None
        who = _("the creator of game #%(id)d (%(name)s)", id=g.id, name=creator.name) if creator else \
            _("the creator of game #%(id)d", id=g.id)
        raise Forbidden(_("only %(who)s can cancel it; to give up your own seat, RESIGN %(id)d", who=who, id=g.id)
                        if seated else _("only %(who)s can cancel it", who=who),
                        example=f"RESIGN {g.id}" if seated else "GAMES",
                        code="not_creator")
    g.status = "cancelled"
    g.updated_at = utcnow()
    s.add(g)
    s.add(Post(game_id=g.id, kind="notice", user_id=user.id, source="system",
               body=f"{user.name} cancelled the game before it started."))
    s.flush()
    return g


def resign(s: Session, user: User, game_id: int) -> Seat:
    g = get(s, game_id, lock=True)
    seat = seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if seat.resigned:
        raise UserError(_("you have already resigned from game #%(id)d", id=g.id), code="already_resigned")
    seat.resigned = True
    # the seat's reply address was the player's credential: it stops working, as after NEWADDRESS
    # (a bot plays the seat now, and what the seat is dealt is no longer theirs to see)
    seat.token = new_token()
    s.add(seat)
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    return seat


def rotate_token(s: Session, user: User, game_id: int) -> Seat:
    """Give ``user``'s seat in the game a new secret reply token; the old
    address stops working at once (the player thinks it has leaked)."""
    g = get(s, game_id, lock=True)
    seat = seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), example="GAMES", code="no_seat")
    seat.token = new_token()
    s.add(seat)
    s.flush()
    return seat


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
    statement (issue 27). Whose turn it is comes from the clocks, not from the states: a human seat
    to move, and only such a seat, has a running clock (``seats.deadline_at``, services/deadlines.refresh)."""
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
    snap = s.exec(select(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply <= target)
                  .order_by(Snapshot.ply.desc()).limit(1)).first()
    if snap is not None:
        state, base = engine.from_json(snap.state_json), snap.ply
    else:
        state, base = engine.initial_state(g.players, g.seed, g.options), 0
    for m in _record(s, g.id, base, target):
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


def view_for(s: Session, g: Game, seat: int | None, ply: int | None = None) -> dict:
    engine = engine_for(g)
    state = state_at(s, g, ply)
    v = engine.view(state, seat)
    v["names"] = names(s, g.id)
    if isinstance(v.get("status"), str):  # "Player 3 to choose" -> "Cleo to choose"
        v["status"] = name_seats(v["status"], v["names"])
    v["ply"] = g.ply if ply is None else ply
    v["game_id"] = g.id
    return v


def drawing_for(s: Session, g: Game, seat: int | None, moves: Sequence[str] = (), ply: int | None = None) -> str:
    """The board of ``seat`` (None: the public view) at ``ply`` as the
    engine draws it (issue 22): an SVG document made from :func:`view_for`
    alone, so that it can show nothing the view hides. ``moves`` are legal
    moves the caller offers that seat now (notation); the drawing marks the
    elements they concern (``data-moves``) so a click can pick one. The one
    door for a drawing: nobody draws from rows or from a state."""
    return engine_for(g).draw_svg(view_for(s, g, seat, ply), tuple(moves))


# ---------------------------------------------------------------- moves


@dataclass
class Applied:
    text: str
    notation: str
    ply: int


@dataclass
class SubmitResult:
    game_id: int
    seat: int
    applied: list[Applied] = field(default_factory=list)
    error: MoveError | UserError | None = None
    failed_text: str | None = None
    not_applied: list[str] = field(default_factory=list)
    ply: int = 0
    over: bool = False
    discarded: list[Applied] = field(default_factory=list)  # atomic batch rolled back
    replacing: list[str] = field(default_factory=list)  # the order on file the moves were to replace
    replaced: bool = False  # ... and did: the others are not told (services/visibility)

    @property
    def ok(self) -> bool:
        return self.error is None


def parses_as_move(s: Session, g: Game, seat: int, text: str) -> bool:
    """True when ``text`` is a move ``seat`` could send now (it parses on the
    state its order is read against: deciding_state); False when it does not,
    or the game does not run."""
    deciding = deciding_state(s, g, seat)
    if deciding is None:
        return False
    try:
        engine_for(g).parse_move(deciding[0], seat, text)
    except MoveError:
        return False
    return True


def _is_stale(s: Session, g: Game, engine: Engine, seat: int, since: int) -> bool:
    """True when a move by another seat after ply ``since`` changed what
    ``seat`` decides from (the engine's ``decision_view``): not whose turn it
    is, nor that others have made their secret choices of the same step
    (issue 19: five players answering one board are all applied)."""
    later = _record(s, g.id, since)
    if not any(m.seat != seat for m in later):
        return False
    state = state_at(s, g, since)
    seen = None  # the seat's decision view before the next move of another seat
    for m in later:
        after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        if m.seat == seat:
            seen = None
        else:
            seen = seen or _decided_from(engine, state, seat)
            now = _decided_from(engine, after, seat)
            if now != seen:
                return True
            seen = now
        state = after
    return False


def _decided_from(engine: Engine, state: Any, seat: int) -> str:
    return json.dumps(engine.decision_view(state, seat), sort_keys=True, default=str)


@dataclass
class _Replacing:
    """A seat's finished secret order of the step in progress, to be replaced."""

    moves: list[Move]  # its live moves of the step
    base: Any  # the state without them: the step's start and the other seats' moves since


def _replaceable(s: Session, g: Game, engine: Engine, state: Any, seat: int) -> _Replacing | None:
    """The seat's order on file, when a new one would replace it: the seat has
    finished its order of a simultaneous step that is not revealed yet
    (issue 19: a secret choice may change until the reveal, as orders to a
    Diplomacy judge until the deadline). Within such a step no seat's moves
    change what another may do (the engine's ``simultaneous``), so the other
    seats' moves apply the same without this seat's."""
    from . import visibility

    if seat in engine.to_move(state) or not engine.to_move(state):
        return None
    mine = visibility.on_file(s, g, seat)
    if mine is None or not mine.finished or not mine.secret:
        return None
    base = state_at(s, g, mine.start)
    withdrawn = []
    for m in _record(s, g.id, mine.start):
        if m.seat == seat:
            withdrawn.append(m)
        else:
            base = engine.apply(base, m.seat, engine.parse_move(base, m.seat, m.notation))
    return _Replacing(withdrawn, base)


def deciding_state(s: Session, g: Game, seat: int) -> tuple[Any, bool] | None:
    """The state a new order of ``seat`` is read against, and whether it
    replaces an order on file (the web's move box and legal moves); None when
    the seat has nothing it may send now."""
    if g.status != "running":
        return None
    engine = engine_for(g)
    state = state_at(s, g)
    if seat in engine.to_move(state):
        return state, False
    if not (g.players > 1 and getattr(engine, "simultaneous", False)):
        return None
    memo_ = s.info.setdefault(DECIDING, {})  # asked once per line of a mail (pipeline._sort_out)
    key = (g.id, g.ply, seat)
    if key not in memo_:
        replacing = _replaceable(s, g, engine, state, seat)
        memo_[key] = None if replacing is None else (replacing.base, True)
    return memo_[key]


CLOSED = "(nothing left to decide: done)"  # the text of a closing move the services added (closing_move)


def submit_moves(s: Session, game_id: int, seat: int, texts: Sequence[str], *, source: str,
                 user_id: int | None = None, inbound_id: int | None = None,
                 expected_ply: int | None = None, now: datetime | None = None) -> SubmitResult:
    """Apply ``texts`` for ``seat`` in order (DESIGN.md §2). Locks the game
    row, checks in the fixed order (game, not over, seat, ply, parse, legal),
    appends to the move log and bumps the ply once per move. Prefix games keep
    the moves before the first failure; atomic games keep none of them."""
    g = get(s, game_id, lock=True)
    result = SubmitResult(game_id=g.id, seat=seat, ply=g.ply)
    texts = [normalize_notation(t) for t in texts if t and normalize_notation(t)]  # typed on any keyboard
    if g.status == "open":
        result.error = UserError(_("game #%(id)d has not started yet", id=g.id), example=f"START {g.id}",
                                 code="not_started")
    elif g.status in ("finished", "aborted"):
        result.error = GameOverError(_("game #%(id)d is over; no more moves are accepted", id=g.id))
    elif g.status == "cancelled":
        result.error = GameOverError(_("game #%(id)d was cancelled before it started; no moves are accepted", id=g.id))
    elif not 0 <= seat < g.players:
        result.error = UserError(_("game #%(id)d has no seat %(seat)d", id=g.id, seat=seat + 1), code="no_seat")
    elif g.paused and source != "admin":
        result.error = UserError(_("game #%(id)d is paused (by its game master, or by an admin while a dispute is "
                                   "settled); moves are accepted again when it resumes", id=g.id),
                                 example=f"STATUS {g.id}",
                                 code="paused")
    elif expected_ply is not None and expected_ply < g.ply and _is_stale(s, g, engine_for(g), seat, expected_ply):
        result.error = StaleMoveError(
            _("your mail answers the board at ply %(old)d, but game #%(id)d has moved on to ply %(ply)d and your "
              "position has changed. Nothing was applied: please look at the current board below and send your "
              "move again.", old=expected_ply, id=g.id, ply=g.ply), code="stale")
    if result.error is not None:
        result.failed_text = texts[0] if texts else None
        result.not_applied = texts[1:]
        return result

    engine = engine_for(g)
    state = state_at(s, g)
    start_ply = g.ply
    # in a game with simultaneous steps even the last seat still to act may be making a secret choice
    secret_steps = g.players > 1 and bool(getattr(engine, "simultaneous", False))
    # an admin's moves apply exactly as given (a corrected move list replays a record: disputes.rollback);
    # a player's order may replace its finished secret one, and is closed when nothing is left to decide
    as_given = source == "admin"
    replacing = _replaceable(s, g, engine, state, seat) if secret_steps and texts and not as_given else None
    if replacing is not None:  # the new order is read against the board the seat decides from
        state = replacing.base
        result.replacing = [m.notation for m in replacing.moves]
    pending: list[tuple[Applied, Any]] = []
    for i, text in enumerate(texts):
        try:
            to_move = engine.to_move(state)
            if seat not in to_move:
                if not to_move:
                    raise GameOverError(_("the game is over; no more moves are accepted"), text=text, seat=seat)
                if pending:  # this mail's own moves ended the turn: the engine may know why this one cannot follow
                    _named(s, g, _why_not_after, engine, state, seat, text)
                raise _out_of_turn(engine, state, s, g, text, seat, pending)
            move = _named(s, g, engine.parse_move, state, seat, text)
            notation = engine.format_move(state, seat, move)
            state = _named(s, g, engine.apply, state, seat, move)
        except MoveError as e:
            e.ply = start_ply + len(pending)
            result.error, result.failed_text, result.not_applied = e, text, texts[i + 1:]
            break
        pending.append((Applied(text, notation, start_ply + len(pending) + 1), state))
    if result.error is None and pending and not as_given:
        state = _close(engine, state, seat, pending, start_ply)
        if replacing is not None and seat in engine.to_move(state):
            result.error = IllegalMoveError(
                _("your order on file for this step (%(order)s) is finished, and a new order replaces it whole: "
                  "the new one must finish the step too. Nothing was applied: end it with done (or auto), and it "
                  "replaces the old one", order="; ".join(result.replacing)),
                text="; ".join(texts), seat=seat, ply=start_ply,
                examples=("; ".join(texts + ["done"]), "; ".join(result.replacing)))
            result.failed_text = "; ".join(texts)
    if result.error is not None and (engine.batch == "atomic" or replacing is not None) and pending:
        result.discarded = [a for a, _ in pending if a.text != CLOSED]
        pending = []
    if not pending:
        result.ply = g.ply
        return result
    if replacing is not None:
        _withdraw(s, g, replacing.moves, pending[0][0].ply)
    mover = next((x for x in seats(s, g.id) if x.seat == seat), None)
    clock = (mover.deadline_at, mover.reminded) if mover is not None else (None, 0)  # before the move stops it
    _persist(s, g, engine, seat, pending, source=source, user_id=user_id, inbound_id=inbound_id,
             reuse_posts=_posts_of(s, g, replacing.moves) if replacing is not None else ())
    if source != "bot":  # a bot's own moves are followed up by the loop that made them
        _bots.after_change(s, g.id)
    result.applied = [a for a, _ in pending]
    result.replaced = replacing is not None
    if mover is not None and source not in ("bot", "admin") and seat not in engine.to_move(pending[-1][1]):
        reliability.turn_ended(s, mover, clock, now or utcnow())  # the player's turn is over: on time or late
    _after_change(s, g, pending[-1][1], moved={seat}, source=source, now=now)
    result.ply = g.ply
    result.over = g.status == "finished"
    return result


def _close(engine: Engine, state: Any, seat: int, pending: list[tuple[Applied, Any]], start_ply: int) -> Any:
    """After the last move of a batch: the engine's ``closing_move``, when the
    rules end the seat's order without asking (It's a Wonderful World §6)."""
    closing = getattr(engine, "closing_move", None)
    if closing is None or seat not in engine.to_move(state):
        return state
    move = closing(state, seat)
    if move is None:
        return state
    notation = engine.format_move(state, seat, move)
    state = engine.apply(state, seat, move)
    pending.append((Applied(CLOSED, notation, start_ply + len(pending) + 1), state))
    return state


def _named(s: Session, g: Game, fn, *args):
    """``fn(*args)``, an engine's call, with "Player 2" in its refusal as the
    player's name (the engines know no names; a refusal the services wrote
    has them already)."""
    try:
        return fn(*args)
    except MoveError as e:
        e.reason = name_seats(e.reason, names(s, g.id))
        raise


def _why_not_after(engine: Engine, state: Any, seat: int, text: str) -> None:
    """Raise the engine's own reason when a move cannot follow the ones before
    it in the same order ("you sold rare_book-03 this turn, so there is no
    exhibit to place"), rather than "it is not your turn"."""
    try:
        engine.parse_move(state, seat, text)
    except IllegalMoveError as e:
        if e.code == IllegalMoveError.code:
            raise
    except MoveError:
        pass


def _out_of_turn(engine: Engine, state: Any, s: Session, g: Game, text: str, seat: int,
                 pending: list[tuple[Applied, Any]]) -> NotYourTurnError:
    """The refusal of a move the seat may not make now, offering it as a
    pre-move (NEXT), which is played when the seat's turn comes."""
    waiting = _waiting(engine, state, s, g)
    if pending:
        waiting = _("after %(move)s you have nothing more to decide now (%(waiting)s)",
                    move=repr(pending[-1][0].text), waiting=waiting)
    return NotYourTurnError(_("%(waiting)s. To play it when your turn comes, send it as a pre-move: NEXT: %(move)s",
                              waiting=waiting, move=text),
                            text=text, seat=seat, examples=(f"NEXT: {text}",))


def _withdraw(s: Session, g: Game, moves: list[Move], by_ply: int) -> None:
    """Mark a replaced order undone, superseded by the order from ``by_ply``
    (the log stays append-only; a replay skips it like any undone move), and
    drop the snapshots that held it."""
    for m in moves:
        m.undone, m.superseded_by = True, by_ply
        s.add(m)
    s.exec(delete(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply >= min(m.ply for m in moves)))
    s.flush()


def _posts_of(s: Session, g: Game, moves: list[Move]) -> list[int]:
    """The thread posts of moves being replaced, in ply order: the new moves
    take them over, so the thread shows the others no new secret choice."""
    plies = [m.ply for m in moves]
    rows = s.exec(select(Post.id, Post.ply).where(Post.game_id == g.id, Post.kind == "move", Post.ply.in_(plies)))
    return [pid for pid, _ in sorted(rows, key=lambda r: (r[1], r[0]))]


def _after_change(s: Session, g: Game, state: Any, *, moved: set[int], source: str,
                  now: datetime | None = None) -> None:
    """Issue 7 hooks: the seats' deadline clocks (from ``now``: the deadline
    sweep passes its own clock), then due pre-moves (not while an admin
    re-applies a corrected move list)."""
    from . import deadlines, premoves

    deadlines.refresh(s, g, state, now or utcnow(), moved=moved)
    if source != "admin":
        premoves.apply_due(s, g, now=now)


def _waiting(engine: Engine, state: Any, s: Session, g: Game) -> str:
    who = names(s, g.id)
    seats_ = sorted(engine.to_move(state))
    return _("it is not your turn: waiting for %(who)s",
             who=", ".join(who[i] if i < len(who) else _("seat %(n)d", n=i + 1) for i in seats_))


def status_word(status: str) -> str:
    """A game's status (open, running, ...) in the current language."""
    return {"open": pgettext("game status", "open"), "running": pgettext("game status", "running"),
            "finished": pgettext("game status", "finished"), "aborted": pgettext("game status", "aborted"),
            "cancelled": pgettext("game status", "cancelled")}.get(status, status)


# The game's compare-and-set UPDATE and the move log's INSERTs, built once (one per move, issue 9) and
# run as Core statements on the session's connection: no unit-of-work bookkeeping for rows nothing
# in the transaction holds as objects, and no autoflush before them. They run at once, so any
# later select of the transaction sees them.
_GAMES, _MOVES, _POSTS, _SNAPSHOTS = Game.__table__, Move.__table__, Post.__table__, Snapshot.__table__
_CAS_GAME = (update(_GAMES).where(_GAMES.c.id == bindparam("game_id"), _GAMES.c.ply == bindparam("old_ply"))
             .values(**{k: bindparam(f"v_{k}", type_=_GAMES.c[k].type)  # each as its column writes it
                        for k in ("ply", "state_json", "state_ply", "outcome", "updated_at", "status")}))
_INSERT_MOVE = insert(_MOVES)
_INSERT_POST = insert(_POSTS)
_REPOINT_POST = (update(_POSTS).where(_POSTS.c.id == bindparam("post_id"))
                 .values(body=bindparam("body"), ply=bindparam("ply")))
_INSERT_SNAPSHOT = insert(_SNAPSHOTS)


def _persist(s: Session, g: Game, engine: Engine, seat: int, pending: list[tuple[Applied, Any]], *,
             source: str, user_id: int | None, inbound_id: int | None, reuse_posts: Sequence[int] = ()) -> None:
    old_ply, was = g.ply, g.status
    final = pending[-1][1]
    new_ply = old_ply + len(pending)
    out = engine.outcome(final)
    now = utcnow()
    values = dict(ply=new_ply, state_json=engine.to_json(final), state_ply=new_ply,
                  outcome=out.to_dict() if out else None, updated_at=now,
                  status="finished" if out is not None else g.status)
    if s.new:  # rows added before these moves (a post, a user) keep their order and exist for the keys
        s.flush()
    conn = s.connection()
    # compare-and-set on ply: with the row lock this never misses, and it is
    # what keeps a database without row locks honest
    res = conn.execute(_CAS_GAME, {"game_id": g.id, "old_ply": old_ply, **{f"v_{k}": v for k, v in values.items()}})
    if res.rowcount != 1:
        raise ConcurrentUpdate(f"game #{g.id} moved past ply {old_ply} under us")
    for k, v in values.items():  # what the row now holds: no second UPDATE at the next flush
        set_committed_value(g, k, v)
    s.info.setdefault(LATEST_STATE, {})[g.id] = (g.state_json, final)  # no decoding it back (state_at)
    # every column given (the models' defaults are Python-side, applied by the ORM only)
    conn.execute(_INSERT_MOVE, [dict(game_id=g.id, ply=a.ply, seat=seat, notation=a.notation, source=source,
                                     inbound_id=inbound_id, user_id=user_id, created_at=now, undone=False,
                                     superseded_by=None)
                                for a, _ in pending])
    for post_id, (a, _state) in zip(reuse_posts, pending):
        conn.execute(_REPOINT_POST, {"post_id": post_id, "body": a.notation, "ply": a.ply})
    fresh = pending[len(reuse_posts):]
    if fresh:
        conn.execute(_INSERT_POST, [dict(game_id=g.id, kind="move", user_id=user_id, seat=seat, to_seat=None,
                                         to_user_id=None, body=a.notation, ply=a.ply, source=source, created_at=now)
                                    for a, _ in fresh])
    every = settings().snapshot_every
    snaps = [dict(game_id=g.id, ply=a.ply, state_json=engine.to_json(st)) for a, st in pending if a.ply % every == 0]
    if snaps:
        conn.execute(_INSERT_SNAPSHOT, snaps)
    if g.status == "finished" and was != "finished":  # the game ends here: rated in this transaction, once
        from . import ratings

        ratings.finished(s, g)
