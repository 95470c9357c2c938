"""A game's and a seat's turning points: the start (an open game becomes a running one, with
the seats taken so far), a resignation, a seat's new reply address. What happens before the
start -- creating a game, joining it, leaving it -- is the lobby's (services/lobby/tables.py)."""
from __future__ import annotations

from sqlmodel import Session

from pbem.engine import OptionError, validate_options
from pbem.i18n import _, ngettext
from pbem.store.models import Game, Seat, User, utcnow

from . import events, games, moves, seating
from .errors import Forbidden, UserError


def start(s: Session, g: Game, by: User | None) -> Game:
    """Start an open game with the seats taken so far (creator only, unless
    the game just filled up: ``by`` None)."""
    if by is not None and g.creator_id != by.id:
        raise Forbidden(_("only the creator of game #%(id)d can start it", id=g.id), code="not_creator")
    if g.status != "open":
        raise UserError(_("game #%(id)d has already started", id=g.id), example=f"STATUS {g.id}", code="not_open")
    engine = games.engine_for(g)
    n = len(seating.seats(s, g.id))
    if n < engine.min_players:
        raise UserError(ngettext("%(game)s needs at least %(num)d player; game #%(id)d has %(n)d",
                                 "%(game)s needs at least %(num)d players; game #%(id)d has %(n)d", engine.min_players,
                                 game=engine.title, id=g.id, n=n),
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
    games._cache(g, engine, state, 0)
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    games._snapshot(s, g, engine, state)
    moves.after_change(s, g, state, moved=set(range(n)), source="start")
    events.GAME_STARTED.announce(s, g)  # the bots' workers, the chat channels
    return g


def _draw_seating(s: Session, g: Game) -> None:
    """Seat the players in an order drawn from the game's seed (each keeps
    their reply address: the token belongs to the seat row, which moves)."""
    from pbem.engine.base import rng_for

    rows = seating.seats(s, g.id)
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


def resign(s: Session, user: User, game_id: int) -> Seat:
    """RESIGN from a game that is not open: the seat is marked resigned and its reply address dies
    (services/lobby/seats.resign then opens a running game's seat to a replacement)."""
    g = games.get(s, game_id, lock=True)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if seat.resigned:
        raise UserError(_("you have already resigned from game #%(id)d", id=g.id), code="already_resigned")
    seat.resigned = True
    # the seat's reply address was the player's credential: it stops working, as after NEWADDRESS
    # (a bot plays the seat now, and what the seat is dealt is no longer theirs to see)
    seat.token = seating.new_token()
    s.add(seat)
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    return seat


def rotate_token(s: Session, user: User, game_id: int) -> Seat:
    """Give ``user``'s seat in the game a new secret reply token; the old
    address stops working at once (the player thinks it has leaked)."""
    g = games.get(s, game_id, lock=True)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), example="GAMES", code="no_seat")
    seat.token = seating.new_token()
    s.add(seat)
    s.flush()
    return seat
