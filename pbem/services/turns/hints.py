"""Hints in a practice game: a seat to move asks the search bot (pbem.engine.advice) what it would
play, by mail (HINT) or on the game page (the Hint button).

A game is a practice game when it was created with ``hints=on`` (``Game.hints``). Such a game is
never rated (services/lobby/ratings.py) and is never a tournament's table (a tournament makes its
tables itself, without hints; a hint asked at one is refused all the same).

A hint is the search's three best moves for the seat, each with its notation, the search's value
(about the chance of winning), the seat's estimated final score and one sentence of what it does.
It is read from the seat's own view only: :func:`compute` gives the same hint for two states the
seat cannot tell apart. The search is the ``normal`` bot level's: about a tenth of a second of CPU
for every title (docs/bots.md), so the mail worker computes it while it reads the mail.

Each hint is recorded (:class:`~pbem.store.models.Hint`) and the table is told, in the thread and
in the next board mails, that the seat used a hint at that ply; the moves are the seat's alone
until the game is over (services/core/visibility.hints). One hint per seat and position: asking
again gives the recorded hint back, without a new search.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from pbem.engine import advice
from pbem.engine import i18n as engine_i18n
from pbem.i18n import _, lazy_gettext
from pbem.store.models import Game, Hint, TournamentTable, User

from ..core import games, notices, seating, visibility
from ..core.errors import Forbidden, UserError

LEVEL = "normal"  # the search's budget for a hint: the stand-in bot's default level
SHOWN = 3  # the moves a hint gives
OVER = ("finished", "aborted", "cancelled")


@dataclass(frozen=True)
class Asked:
    """A hint given: its row, and whether it was searched now (False: asked again, the recorded one)."""

    hint: Hint
    fresh: bool


def seat_for(s: Session, g: Game, user: User | None) -> int:
    """The seat ``user`` may ask a hint for in ``g``, or the refusal that says why not (nothing changes)."""
    if g.status in OVER:
        raise UserError(_("game #%(id)d is over: a hint is for a game in play (its hints, if any, are shown on its "
                          "page)", id=g.id), example=f"HISTORY {g.id}", code="game_over")
    if not g.hints or is_tournament_table(s, g):
        raise UserError(_("game #%(id)d is not a practice game: hints are only for a game created with hints=on "
                          "(never rated)", id=g.id), example=f"NEW {g.game} players={g.players} hints=on",
                        code="no_hints")
    if g.status != "running":
        raise UserError(_("game #%(id)d has not started yet: a hint is for your move once it has", id=g.id),
                        example=f"START {g.id}", code="not_started")
    seat = seating.seat_of(s, g.id, user.id) if user is not None else None
    if seat is None or seat.resigned or seat.is_bot:
        raise Forbidden(_("you have no seat in game #%(id)d: a hint is for its players, each for their own seat",
                          id=g.id), example=f"STATUS {g.id}", code="not_a_player")
    if g.paused:
        raise UserError(_("game #%(id)d is paused: no moves are taken, so no hints are given, until it resumes",
                          id=g.id), example=f"STATUS {g.id}", code="paused")
    engine = games.engine_for(g)
    if seat.seat not in engine.to_move(games.state_at(s, g)):
        raise UserError(_("it is not your turn in game #%(id)d: a hint is for the move you are to make now",
                          id=g.id), example=f"STATUS {g.id}", code="not_your_turn")
    return seat.seat


def is_tournament_table(s: Session, g: Game) -> bool:
    return s.exec(select(TournamentTable.id).where(TournamentTable.game_id == g.id).limit(1)).first() is not None


def seed_for(g: Game, seat: int) -> int:
    """The search's seed for a hint at the game's ply: asking in the same position searches alike. Made
    of public numbers only, never the game's own seed (which deals what the seat cannot see): the hint
    is a function of the seat's view and of numbers everyone knows."""
    return int(hashlib.sha256(f"hint:{g.id}:{g.ply}:{seat}".encode()).hexdigest()[:15], 16)


def view_digest(view: Any) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()


def compute(engine, state, seat: int, seed: int, level: str = LEVEL) -> list[dict[str, Any]]:
    """The hint for ``seat`` (to move in ``state``): the search's best :data:`SHOWN` moves, each
    with its explanation in every language, from what the seat can see only (advice.advise and
    advice.explain read the seat's determinisation, never the true state)."""
    found = advice.advise(engine, state, seat, seed, level)
    out = []
    for c in found.choices[:SHOWN]:
        said = {}
        for code in engine_i18n.LANGUAGES:
            with engine_i18n.language(code):
                said[code] = advice.explain(engine, state, seat, seed, c.move) or ""
        out.append({"move": c.notation, "visits": c.visits, "value": c.value, "points": c.points, "explain": said})
    return out


def recorded(s: Session, g: Game, seat: int) -> Hint | None:
    """The hint ``seat`` was given in the position it is in now, if any (shown through
    visibility.hint_row, never as the row)."""
    if not g.hints or not games.has_started(g):
        return None
    engine = games.engine_for(g)
    return _recorded(s, g, seat, _digest(engine, games.state_at(s, g), seat))


def _digest(engine, state, seat: int) -> str:
    with engine_i18n.language(engine_i18n.SOURCE):  # the same position gives the same digest in any language
        return view_digest(engine.view(state, seat))


def _recorded(s: Session, g: Game, seat: int, digest: str) -> Hint | None:
    return s.exec(select(Hint).where(Hint.game_id == g.id, Hint.seat == seat, Hint.ply == g.ply,
                                     Hint.view == digest)).first()


def ask(s: Session, g: Game, user: User | None) -> Asked:
    """``user``'s hint in ``g`` now: refused (:func:`seat_for`), the one already recorded for this
    position, or a new search, recorded, and the table told. The game's row is held for the search (a
    tenth of a second): two asks at once search once."""
    g = games.get(s, g.id, lock=True)
    seat = seat_for(s, g, user)
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    digest = _digest(engine, state, seat)
    found = _recorded(s, g, seat, digest)
    if found is not None:
        return Asked(found, False)
    choices = compute(engine, state, seat, seed_for(g, seat))
    shown = visibility.public_ply(s, g)
    hint = Hint(game_id=g.id, seat=seat, ply=g.ply, shown_ply=shown, view=digest, user_id=user.id, level=LEVEL,
                choices=choices)
    s.add(hint)
    name = seating.names(s, g.id)[seat]
    s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat, value=lazy_gettext(
        "%(name)s (seat %(seat)d) used a hint at ply %(ply)d.", name=name, seat=seat + 1, ply=shown)))
    s.flush()
    return Asked(hint, True)
