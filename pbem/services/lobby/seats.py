"""Resignation and replacement: RESIGN, a seat opened by an admin or by a
vote of the table, REPLACE. A seat left by its player is played by a bot
until a replacement takes it over with the full history; the seat history
(services/core/seating.py) records who played each seat from which ply."""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, lazy_gettext, lazy_ngettext
from pbem.store.models import AuditLog, Game, Seat, User, utcnow

from ..core import access, audit, clocks, games, lifecycle, notices, notify, reliability, seating
from ..core.errors import Forbidden, UserError
from . import tables


@dataclass
class Leaving:
    """What a RESIGN did. ``how``: "resigned" (a game that has started: a bot
    plays the seat until a replacement takes it; the caller sends the boards),
    "left" (an open game: the seat is given up) or "cancelled" (the creator
    left an open game). The others are told of the last two here."""
    game: Game
    seat: Seat
    how: str


def resign(s: Session, user: User, game_id: int) -> Leaving:
    """RESIGN: leave the game. Before the start there is nothing for a bot to
    play: the seat is given up; and when the creator leaves, the game is
    cancelled (only the creator can START a game that is not full, so without
    them it could only wait)."""
    g = games.get(s, game_id, lock=True)
    if g.status == "open" and seating.seat_of(s, g.id, user.id) is not None:
        if g.creator_id == user.id:
            return Leaving(cancel(s, user, g.id), seating.seat_of(s, g.id, user.id), "cancelled")
        seat = tables.leave(s, user, g.id)
        n, name = len(seating.seats(s, g.id)), user.name
        notify.queue_notice(s, g, lazy_gettext("a player left"),
                            lazy_ngettext("%(name)s has left game #%(id)d before it started; %(n)d of its %(num)d "
                                          "seat is taken now.",
                                          "%(name)s has left game #%(id)d before it started; %(n)d of its %(num)d "
                                          "seats are taken now.", g.players, name=name, id=g.id, n=n),
                            seats=_people(s, g, but=user))
        return Leaving(g, seat, "left")
    seat = lifecycle.resign(s, user, game_id)
    if g.status == "running":
        seating._close(s, g, seat, "resigned")
        seating._open(s, g, seat)
        reliability.count(s, user.id, "games_left")
        s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat, value=lazy_gettext(
            "%(name)s resigned from seat %(seat)d; a bot plays it until a replacement takes it (REPLACE %(id)d "
            "%(seat)d).", name=user.name, seat=seat.seat + 1, id=g.id)))
    return Leaving(g, seat, "resigned")


def cancel(s: Session, user: User, game_id: int) -> Game:
    """CANCEL: the creator withdraws an open game; everyone else seated is told."""
    g = tables.cancel(s, user, game_id)
    others = _people(s, g, but=user)
    if others:
        name = user.name
        notify.queue_notice(s, g, lazy_gettext("cancelled"),
                            lambda: _("%(name)s has cancelled game #%(id)d (%(game)s) before it started, so it will "
                                      "not be played.", name=name, id=g.id, game=games.engine_for(g).title),
                            paragraphs=[lazy_gettext("To find another table, send GAMES to %(address)s, or start one: "
                                                     "NEW %(game)s players=%(players)d.", address=_command_address(),
                                                     game=g.game, players=g.players)], seats=others)
    return g


def _people(s: Session, g: Game, but: User) -> set[int]:
    """The seats of the game held by people other than ``but`` (a bot added
    to an open game has no mailbox)."""
    return {x.seat for x in seating.seats(s, g.id) if x.user_id not in (None, but.id) and not x.is_bot}


def _command_address() -> str:
    return settings().command_address


def open_seat(s: Session, admin: User, g: Game, number: int, reason: str) -> Seat:
    """An admin opens a seat to a replacement."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    seat = seating._seat(s, g, number - 1)
    seating._close(s, g, seat, "opened by an admin")
    seating._open(s, g, seat)
    audit.announce(s, g, admin, "seat_opened",
                   reason, lazy_gettext("An admin opened seat %(seat)d of game #%(id)d to a replacement (REPLACE "
                                        "%(id)d %(seat)d).", seat=number, id=g.id))
    return seat


def vote_open(s: Session, user: User, g: Game, number: int) -> tuple[Seat, bool]:
    """The table votes to open a seat: every other seated human must agree."""
    voter = seating.seat_of(s, g.id, user.id)
    if voter is None or voter.resigned:
        raise Forbidden(_("only the players of game #%(id)d vote on its seats", id=g.id), code="no_seat")
    seat = seating._seat(s, g, number - 1)
    if seat.seat == voter.seat:
        raise UserError(_("to leave your own seat, RESIGN"), example=f"RESIGN {g.id}", code="own_seat")
    if seat.open_for_replacement:
        raise UserError(_("seat %(seat)d is already open", seat=number), code="already_open")
    s.add(AuditLog(user_id=user.id, game_id=g.id, action="vote_open_seat", detail=f"seat {number}"))
    s.flush()
    voters = {v.user_id for v in s.exec(select(AuditLog).where(
        AuditLog.game_id == g.id, AuditLog.action == "vote_open_seat", AuditLog.detail == f"seat {number}"))}
    needed = {x.user_id for x in seating.seats(s, g.id)
              if x.seat != seat.seat and x.user_id and not x.resigned and not x.is_bot}
    if needed <= voters:
        seating._close(s, g, seat, "opened by a vote of the table")
        seating._open(s, g, seat)
        s.add(AuditLog(game_id=g.id, action="seat_opened", detail=f"seat {number} by a vote of the table"))
        s.add(notices.post(game_id=g.id, value=lazy_gettext(
            "The table voted to open seat %(seat)d; a bot plays it until a replacement takes it.", seat=number)))
        notify.queue_notice(s, g, lazy_gettext("seat opened"),
                            lazy_gettext("The table voted to open seat %(seat)d of game #%(id)d to a replacement "
                                         "(REPLACE %(id)d %(seat)d).", seat=number, id=g.id))
        return seat, True
    return seat, False


def take(s: Session, user: User, g: Game, number: int) -> Seat:
    """REPLACE <game> <seat>: take over an open seat with the full history (of a private game: only
    those who may see it)."""
    g = access.require_seen(s, games.get(s, g.id, lock=True), user)
    if g.status != "running":
        raise UserError(_("game #%(id)d is %(status)s; only running games have seats to take over", id=g.id,
                          status=games.status_word(g.status)), code="not_running")
    if seating.seat_of(s, g.id, user.id) is not None:
        raise UserError(_("you already have a seat in game #%(id)d", id=g.id), code="already_seated")
    seat = seating._seat(s, g, number - 1)
    if not seat.open_for_replacement:
        free = [str(x.seat + 1) for x in seating.seats(s, g.id) if x.open_for_replacement]
        raise UserError(_("seat %(seat)d of game #%(id)d is not open to a replacement; open seats: %(free)s",
                          seat=number, id=g.id, free=", ".join(free)) if free else
                        _("seat %(seat)d of game #%(id)d is not open to a replacement; no seat is open",
                          seat=number, id=g.id),
                        example=f"REPLACE {g.id} {free[0] if free else 1}", code="seat_not_open")
    seating.hand_over(s, g, seat, user, "replacement")
    s.add(AuditLog(user_id=user.id, game_id=g.id, action="seat_replaced", detail=f"seat {number} by {user.name}"))
    s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat, value=lazy_gettext(
        "%(name)s takes over seat %(seat)d at ply %(ply)d.", name=user.name, seat=number, ply=g.ply)))
    s.flush()
    clocks.refresh(s, g, games.state_at(s, g), utcnow())
    return seat
