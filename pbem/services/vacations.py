"""Vacations: a declared absence pauses the deadline clock of the player's
seats (the days do not count), within an allowance per game."""
from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, lazy_gettext
from pbem.store.models import Game, Post, User, Vacation

from . import deadlines, games, lang
from .errors import Forbidden, UserError

EXAMPLE = "VACATION 2026-12-20 2026-12-27"


def parse_dates(args: list[str]) -> tuple[date, date]:
    if len(args) != 2:
        raise UserError(_("VACATION needs a first and a last day (ISO dates, both included)"), example=EXAMPLE,
                        code="bad_vacation")
    try:
        a, b = date.fromisoformat(args[0]), date.fromisoformat(args[1])
    except ValueError:
        raise UserError(_("'%(dates)s' are not dates written YYYY-MM-DD", dates=f"{args[0]} {args[1]}"),
                        example=EXAMPLE,
                        code="bad_vacation") from None
    return a, b


def days_used(s: Session, user_id: int, game_id: int) -> int:
    q = select(Vacation).where(Vacation.user_id == user_id, Vacation.game_id == game_id)
    return sum((v.ends_on - v.starts_on).days + 1 for v in s.exec(q))


def declare(s: Session, user: User, g: Game, first: date, last: date, today: date) -> Vacation:
    """Declare an absence in game ``g`` from ``first`` to ``last`` (both included)."""
    if last < first:
        raise UserError(_("the last day comes before the first"), example=EXAMPLE, code="bad_vacation")
    if last < today:
        raise UserError(_("that absence is over already (today is %(today)s)", today=today.isoformat()),
                        example=EXAMPLE,
                        code="bad_vacation")
    seat = games.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if g.status not in ("open", "running"):
        raise UserError(_("game #%(id)d is %(status)s", id=g.id, status=games.status_word(g.status)),
                        code="not_running")
    allowance = settings().vacation_days
    want = (last - first).days + 1
    used = days_used(s, user.id, g.id)
    if used + want > allowance:
        raise UserError(_("game #%(id)d allows %(allowance)d vacation days per player; you have used %(used)d and "
                          "asked for %(want)d", id=g.id, allowance=allowance, used=used, want=want),
                        example=f"VACATION {today.isoformat()} "
                        f"{(today + timedelta(days=max(0, allowance - used - 1))).isoformat()}",
                        code="vacation_allowance")
    v = Vacation(user_id=user.id, game_id=g.id, starts_on=first, ends_on=last)
    s.add(v)
    s.flush()
    deadlines.recompute(s, g, seat)
    name = user.name
    text = lambda: _("%(name)s is away from %(first)s to %(last)s; their clock pauses on those days.",  # noqa: E731
                     name=name, first=lang.day(first), last=lang.day(last))
    s.add(Post(game_id=g.id, kind="notice", user_id=user.id, seat=seat.seat, source="system",
               body=lang.english(text)))
    s.flush()
    from . import notify

    notify.queue_notice(s, g, lazy_gettext("vacation"), text, seats={x.seat for x in games.seats(s,
                                                                                                 g.id)} - {seat.seat})
    return v


def declare_everywhere(s: Session, user: User, first: date, last: date, today: date) -> list[Vacation]:
    """The web profile's vacation: the same absence in every game where the
    user holds a seat that is open or running (each within its allowance).
    Nothing is stored if any game refuses it."""
    # a seat the user resigned from is listed too (its row keeps the user): not theirs to be away from
    mine = [g for g in games.list_mine(s, user)
            if g.status in ("open", "running") and not games.seat_of(s, g.id, user.id).resigned]
    if not mine:
        raise UserError(_("you have no open or running games to be away from"), code="no_games")
    return [declare(s, user, g, first, last, today) for g in mine]


def upcoming(s: Session, user: User, today: date | None = None) -> list[Vacation]:
    today = today or date.today()
    return list(s.exec(select(Vacation).where(Vacation.user_id == user.id, Vacation.ends_on >= today)
                       .order_by(Vacation.starts_on, Vacation.game_id)))
