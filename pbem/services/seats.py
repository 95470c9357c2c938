"""Resignation and replacement: a seat left by its player (resigned,
abandoned, or opened by an admin or by a vote of the table) is played by a
bot until a replacement takes it over with the full history. The seat
history records who played each seat from which ply."""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from pbem.store.models import AuditLog, Game, Move, Post, Seat, SeatHistory, User, utcnow

from pbem.i18n import _, lazy_gettext, ngettext

from . import audit, games, premoves
from .errors import Forbidden, UserError


def history(s: Session, g: Game) -> list[SeatHistory]:
    """Who played each seat; seats never replaced have one open-ended row."""
    rows = list(s.exec(select(SeatHistory).where(SeatHistory.game_id == g.id)
                       .order_by(SeatHistory.seat, SeatHistory.from_ply, SeatHistory.id)))
    have = {r.seat for r in rows}
    for seat in games.seats(s, g.id):
        if seat.seat not in have:
            rows.append(SeatHistory(game_id=g.id, seat=seat.seat, user_id=seat.user_id, from_ply=0,
                                    reason="original player"))
    return sorted(rows, key=lambda r: (r.seat, r.from_ply))


def played_by(s: Session, g: Game) -> str:
    """One line per seat: who played it, with plies; bots and replacements shown."""
    names = {}
    lines = []
    for seat in games.seats(s, g.id):
        parts = []
        for h in (r for r in history(s, g) if r.seat == seat.seat):
            if h.user_id not in names:
                u = s.get(User, h.user_id) if h.user_id else None
                names[h.user_id] = u.name if u else _("a bot")
            if h.until_ply is not None:
                span = _("plies %(first)d-%(last)d", first=h.from_ply, last=h.until_ply)
            else:
                span = _("from ply %(first)d", first=h.from_ply)
            parts.append(f"{names[h.user_id]} ({span})")
        if seat.is_bot:
            parts.append(_("a bot at the end"))
        moves = s.exec(select(Move).where(Move.game_id == g.id, Move.seat == seat.seat, Move.source == "bot",
                                          Move.undone == False)).all()  # noqa: E712
        if moves:
            lines.append(ngettext("Seat %(seat)d: %(players)s; %(num)d move(s) played by a bot",
                                  "Seat %(seat)d: %(players)s; %(num)d move(s) played by a bot", len(moves),
                                  seat=seat.seat + 1, players=", ".join(parts)))
        else:
            lines.append(_("Seat %(seat)d: %(players)s", seat=seat.seat + 1, players=", ".join(parts)))
    return "\n".join(lines)


def _close(s: Session, g: Game, seat: Seat, reason: str) -> None:
    """The seat's player leaves it (resigned, abandoned, opened, replaced): their time in the
    history ends, and so do their pre-moves, which were theirs to play, not the seat's next
    player's (nor a bot's), and a private plan."""
    for pm in premoves.pending_for(s, g.id, seat.seat):
        pm.status, pm.result = "cancelled", f"the seat changed hands ({reason})"
        s.add(pm)
    every = list(s.exec(select(SeatHistory).where(SeatHistory.game_id == g.id, SeatHistory.seat == seat.seat)))
    rows = [r for r in every if r.until_ply is None]
    if not every:
        rows = [SeatHistory(game_id=g.id, seat=seat.seat, user_id=seat.user_id, from_ply=0,
                            reason="original player")]
    for r in rows:
        r.until_ply = g.ply
        s.add(r)
    s.flush()


def _seat(s: Session, g: Game, number: int) -> Seat:
    for seat in games.seats(s, g.id):
        if seat.seat == number:
            return seat
    raise UserError(_("game #%(id)d has seats 1 to %(players)d", id=g.id, players=g.players),
                    example=f"REPLACE {g.id} 1", code="no_seat")


def _open(s: Session, g: Game, seat: Seat) -> None:
    """The seat leaves its player's hands (resigned, abandoned, opened): a bot
    plays it until a replacement takes it, and its reply address dies with
    the change (issue 17 §15: the old address must not move or talk)."""
    seat.open_for_replacement = True
    seat.is_bot = True  # the game goes on; a bot plays until someone takes over
    seat.token = games.new_token()
    seat.deadline_at = seat.clock_started_at = None
    s.add(seat)
    s.flush()


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
    if g.status == "open" and games.seat_of(s, g.id, user.id) is not None:
        if g.creator_id == user.id:
            return Leaving(cancel(s, user, g.id), games.seat_of(s, g.id, user.id), "cancelled")
        seat = games.leave(s, user, g.id)
        from . import notify

        n, name = len(games.seats(s, g.id)), user.name
        notify.queue_notice(s, g, lazy_gettext("a player left"),
                            lazy_gettext("%(name)s has left game #%(id)d before it started; %(n)d of its %(seats)d "
                                         "seats are taken now.", name=name, id=g.id, n=n, seats=g.players),
                            seats=_people(s, g, but=user))
        return Leaving(g, seat, "left")
    seat = games.resign(s, user, game_id)
    if g.status == "running":
        from . import reliability

        _close(s, g, seat, "resigned")
        _open(s, g, seat)
        reliability.count(s, user.id, "games_left")
        s.add(Post(game_id=g.id, kind="notice", user_id=user.id, seat=seat.seat, source="system",
                   body=f"{user.name} resigned from seat {seat.seat + 1}; a bot plays it until a replacement "
                        f"takes it (REPLACE {g.id} {seat.seat + 1})."))
    return Leaving(g, seat, "resigned")


def cancel(s: Session, user: User, game_id: int) -> Game:
    """CANCEL: the creator withdraws an open game; everyone else seated is told."""
    g = games.cancel(s, user, game_id)
    from . import notify

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
    return {x.seat for x in games.seats(s, g.id) if x.user_id not in (None, but.id) and not x.is_bot}


def _command_address() -> str:
    from pbem.config import settings

    return settings().command_address


def open_seat(s: Session, admin: User, g: Game, number: int, reason: str) -> Seat:
    """An admin opens a seat to a replacement."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    seat = _seat(s, g, number - 1)
    _close(s, g, seat, "opened by an admin")
    _open(s, g, seat)
    audit.announce(s, g, admin, "seat_opened",
                   reason, lazy_gettext("An admin opened seat %(seat)d of game #%(id)d to a replacement (REPLACE "
                                        "%(id)d %(seat)d).", seat=number, id=g.id))
    return seat


def vote_open(s: Session, user: User, g: Game, number: int) -> tuple[Seat, bool]:
    """The table votes to open a seat: every other seated human must agree."""
    voter = games.seat_of(s, g.id, user.id)
    if voter is None or voter.resigned:
        raise Forbidden(_("only the players of game #%(id)d vote on its seats", id=g.id), code="no_seat")
    seat = _seat(s, g, number - 1)
    if seat.seat == voter.seat:
        raise UserError(_("to leave your own seat, RESIGN"), example=f"RESIGN {g.id}", code="own_seat")
    if seat.open_for_replacement:
        raise UserError(_("seat %(seat)d is already open", seat=number), code="already_open")
    s.add(AuditLog(user_id=user.id, game_id=g.id, action="vote_open_seat", detail=f"seat {number}"))
    s.flush()
    voters = {v.user_id for v in s.exec(select(AuditLog).where(
        AuditLog.game_id == g.id, AuditLog.action == "vote_open_seat", AuditLog.detail == f"seat {number}"))}
    needed = {x.user_id for x in games.seats(s, g.id)
              if x.seat != seat.seat and x.user_id and not x.resigned and not x.is_bot}
    if needed <= voters:
        _close(s, g, seat, "opened by a vote of the table")
        _open(s, g, seat)
        s.add(AuditLog(game_id=g.id, action="seat_opened", detail=f"seat {number} by a vote of the table"))
        s.add(Post(game_id=g.id, kind="notice", source="system",
                   body=f"The table voted to open seat {number}; a bot plays it until a replacement takes it."))
        from . import notify

        notify.queue_notice(s, g, lazy_gettext("seat opened"),
                            lazy_gettext("The table voted to open seat %(seat)d of game #%(id)d to a replacement "
                                         "(REPLACE %(id)d %(seat)d).", seat=number, id=g.id))
        return seat, True
    return seat, False


def hand_over(s: Session, g: Game, seat: Seat, user: User, reason: str) -> None:
    """An open seat goes to ``user`` from this ply on (REPLACE, or the game master's seating): its
    history closed and opened, a new reply address, a human seat again with a clean record."""
    _close(s, g, seat, "replaced")
    s.add(SeatHistory(game_id=g.id, seat=seat.seat, user_id=user.id, from_ply=g.ply, reason=reason))
    seat.user_id = user.id
    seat.token = games.new_token()
    seat.resigned = seat.abandoned = seat.is_bot = seat.open_for_replacement = False
    seat.missed = 0
    seat.joined_at = utcnow()
    s.add(seat)


def take(s: Session, user: User, g: Game, number: int) -> Seat:
    """REPLACE <game> <seat>: take over an open seat with the full history (of a private game: only
    those who may see it, issue 25)."""
    from . import tables

    g = tables.require_seen(s, games.get(s, g.id, lock=True), user)
    if g.status != "running":
        raise UserError(_("game #%(id)d is %(status)s; only running games have seats to take over", id=g.id,
                          status=games.status_word(g.status)), code="not_running")
    if games.seat_of(s, g.id, user.id) is not None:
        raise UserError(_("you already have a seat in game #%(id)d", id=g.id), code="already_seated")
    seat = _seat(s, g, number - 1)
    if not seat.open_for_replacement:
        free = [str(x.seat + 1) for x in games.seats(s, g.id) if x.open_for_replacement]
        raise UserError(_("seat %(seat)d of game #%(id)d is not open to a replacement; open seats: %(free)s",
                          seat=number, id=g.id, free=", ".join(free)) if free else
                        _("seat %(seat)d of game #%(id)d is not open to a replacement; no seat is open",
                          seat=number, id=g.id),
                        example=f"REPLACE {g.id} {free[0] if free else 1}", code="seat_not_open")
    hand_over(s, g, seat, user, "replacement")
    s.add(AuditLog(user_id=user.id, game_id=g.id, action="seat_replaced", detail=f"seat {number} by {user.name}"))
    s.add(Post(game_id=g.id, kind="notice", user_id=user.id, seat=seat.seat, source="system",
               body=f"{user.name} takes over seat {number} at ply {g.ply}."))
    s.flush()
    from . import deadlines

    deadlines.refresh(s, g, games.state_at(s, g), utcnow())
    return seat
