"""Vacations: declared absences. Minimal version written for the web profile
(issue 6); the game-management engineer owns the full module (issue 7) with
the same ``declare`` signature."""
from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import Session, select

from pbem.store.models import Vacation, User

from .errors import UserError

MAX_DAYS = 60


def declare(s: Session, user: User, starts_on: date, ends_on: date, game_id: int | None = None) -> Vacation:
    example = f"VACATION {date.today() + timedelta(days=7)} {date.today() + timedelta(days=14)}"
    if not isinstance(starts_on, date) or not isinstance(ends_on, date):
        raise UserError("a vacation needs a first and a last day (YYYY-MM-DD)", example=example, code="bad_dates")
    if ends_on < starts_on:
        raise UserError("the last day of a vacation comes after its first day", example=example, code="bad_dates")
    if ends_on < date.today():
        raise UserError("that vacation is already over", example=example, code="bad_dates")
    if (ends_on - starts_on).days + 1 > MAX_DAYS:
        raise UserError(f"a vacation is at most {MAX_DAYS} days", example=example, code="bad_dates")
    v = Vacation(user_id=user.id, game_id=game_id, starts_on=starts_on, ends_on=ends_on)
    s.add(v)
    s.flush()
    return v


def upcoming(s: Session, user: User) -> list[Vacation]:
    return list(s.exec(select(Vacation).where(Vacation.user_id == user.id, Vacation.ends_on >= date.today())
                       .order_by(Vacation.starts_on)))
