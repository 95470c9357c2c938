"""Vacations: a declared absence pauses the deadline clock of the player's
seats (the days do not count), within an allowance per game."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from sqlmodel import Session, select

from pbem import i18n
from pbem.config import settings
from pbem.i18n import _, lazy_gettext, ngettext
from pbem.store.models import Game, User, Vacation

from ..core import clocks, games, lang, notices, notify, seating
from ..core.notices import Day
from ..core.errors import Forbidden, UserError

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
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if g.status not in ("open", "running"):
        raise UserError(_("game #%(id)d is %(status)s", id=g.id, status=games.status_word(g.status)),
                        code="not_running")
    allowance = settings().vacation_days
    want = (last - first).days + 1
    used = days_used(s, user.id, g.id)
    if used + want > allowance:
        raise UserError(ngettext("game #%(id)d allows %(num)d vacation day per player; you have used %(used)d and "
                                 "asked for %(want)d",
                                 "game #%(id)d allows %(num)d vacation days per player; you have used %(used)d and "
                                 "asked for %(want)d", allowance, id=g.id, used=used, want=want),
                        example=f"VACATION {today.isoformat()} "
                        f"{(today + timedelta(days=max(0, allowance - used - 1))).isoformat()}",
                        code="vacation_allowance")
    v = Vacation(user_id=user.id, game_id=g.id, starts_on=first, ends_on=last)
    s.add(v)
    s.flush()
    clocks.recompute(s, g, seat)
    name = user.name
    text = lazy_gettext("%(name)s is away from %(first)s to %(last)s; their clock pauses on those days.",
                        name=name, first=Day(first), last=Day(last))
    s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat, value=text))
    s.flush()
    notify.queue_notice(s, g, lazy_gettext("vacation"), text,
                        seats={x.seat for x in seating.seats(s, g.id)} - {seat.seat})
    return v


def upcoming(s: Session, user: User, today: date | None = None) -> list[Vacation]:
    today = today or date.today()
    return list(s.exec(select(Vacation).where(Vacation.user_id == user.id, Vacation.ends_on >= today)
                       .order_by(Vacation.starts_on, Vacation.game_id)))


# ---------------------------------------------------------------- AWAY: one absence in every game

AWAY_EXAMPLE = "AWAY 20.12.2026 27.12.2026"
# words that may stand between the two days ("20.12. to 27.12.", "с 20.12 по 27.12", "dal 20 al 27 dicembre")
_BETWEEN = {"-", "–", "—", "to", "till", "until", "through", "from", "до", "по", "с", "от", "al", "a", "dal", "da",
            "fino", "and", "и", "e"}
_NUMERIC = re.compile(r"^(\d{1,4})([./-])(\d{1,2})(?:\2(\d{2,4}))?\.?$")
_RANGE = re.compile(r"^(\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\.?)[-–—](\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\.?)$")


@lru_cache(maxsize=1)
def _months() -> dict[str, int]:
    """Month names and their abbreviations in every language pbem speaks (Babel's CLDR data), lower-case,
    without a final dot: "december", "dec", "декабря", "дек", "декември", "dicembre", "dic"."""
    from babel.dates import get_month_names

    out: dict[str, int] = {}
    for code in i18n.LANGUAGES:
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for n, name in get_month_names(width, context, locale=code).items():
                    out.setdefault(name.lower().rstrip("."), n)
    return out


def local_today(user: User, now: datetime) -> date:
    """The day it is for ``user``, in their time zone (TIMEZONE, the profile)."""
    return clocks.aware(now).astimezone(clocks.zone(user.timezone)).date()


def _bad_day(word: str) -> UserError:
    return UserError(_("'%(word)s' is not a day pbem can read: write it like 20.12.2026, 2026-12-20 or 20 December "
                       "2026", word=word[:30]), example=AWAY_EXAMPLE, code="bad_away")


def _day(year: int | None, month: int, day: int, word: str, after: date) -> date:
    """The day; with no year, the first such day not before ``after``."""
    try:
        if year is not None:
            return date(year + 2000 if year < 100 else year, month, day)
        d = date(after.year, month, day)
        return d if d >= after else date(after.year + 1, month, day)
    except ValueError:
        raise _bad_day(word) from None


def _numeric(word: str, after: date) -> date | None:
    m = _NUMERIC.match(word)
    if not m:
        return None
    a, sep, b, c = m.group(1), m.group(2), m.group(3), m.group(4)
    if len(a) == 4:  # 2026-12-20 (ISO), 2026.12.20
        if c is None:
            raise _bad_day(word)
        return _day(int(a), int(b), int(c), word, after)
    if sep == "-" and c is None:
        raise _bad_day(word)
    day, month = int(a), int(b)
    if sep == "/" and day <= 12 and month <= 12 and day != month:  # 03/04/2026: 3 April or March 4?
        raise UserError(_("'%(word)s' could be read two ways (day first or month first): write the day with dots, "
                          "%(dotted)s, or as %(iso)s", word=word, dotted=f"{day}.{month}.{c or after.year}",
                          iso=_day(int(c) if c else None, month, day, word, after).isoformat()),
                        example=AWAY_EXAMPLE, code="bad_away")
    if sep == "/" and month > 12 >= day:  # 12/20/2026: the month first
        day, month = month, day
    return _day(int(c) if c else None, month, day, word, after)


def _read_days(words: list[str], today: date) -> list[date]:
    out: list[date] = []
    parts: list[str] = []
    for w in words:
        m = _RANGE.match(w)
        parts += [m.group(1), "-", m.group(2)] if m else [w]
    words = [w.strip(",;").lower() for w in parts if w.strip(",;").lower() not in _BETWEEN and w.strip(",;")]
    months = _months()
    i = 0
    while i < len(words):
        after = out[-1] if out else today
        w = words[i]
        month_at = lambda j: months.get(words[j].rstrip(".")) if j < len(words) else None  # noqa: E731
        year_at = lambda j: int(words[j]) if j < len(words) and re.fullmatch(r"\d{4}", words[j]) else None  # noqa
        if re.fullmatch(r"\d{1,2}\.?", w) and month_at(i + 1):  # 20 December [2026], 20. Dezember
            year = year_at(i + 2)
            out.append(_day(year, month_at(i + 1), int(w.rstrip(".")), " ".join(words[i:i + 3]), after))
            i += 3 if year is not None else 2
        elif months.get(w.rstrip(".")) and i + 1 < len(words) and re.fullmatch(r"\d{1,2}(st|nd|rd|th)?,?", words[i + 1]):
            year = year_at(i + 2)  # December 20 [2026]
            out.append(_day(year, months[w.rstrip(".")], int(re.match(r"\d+", words[i + 1]).group(0)),
                            " ".join(words[i:i + 3]), after))
            i += 3 if year is not None else 2
        elif re.fullmatch(r"\d{1,2}\.?", w) and re.fullmatch(r"\d{1,2}\.?", words[i + 1] if i + 1 < len(words) else "") \
                and month_at(i + 2):  # 20 - 27 December [2026]: the month (and year) named once, after the last
            month = month_at(i + 2)
            year = year_at(i + 3)
            first = _day(year, month, int(w.rstrip(".")), w, after)
            out.append(first)
            i += 1
        else:
            d = _numeric(w, after)
            if d is None:
                raise _bad_day(w)
            out.append(d)
            i += 1
    return out


def parse_span(words: list[str], today: date) -> tuple[date, date]:
    """The first and last day of an absence, written as players write dates: 2026-12-20, 20.12.2026, 20.12.,
    20/12/2026 (when it cannot be read the other way round), 20 December 2026, 20 декабря, 20 dicembre 2026;
    a day without a year is the next such day (the last one: not before the first). One day alone is an
    absence of that day."""
    if not words:
        raise UserError(_("AWAY needs the first and the last day of your absence"), example=AWAY_EXAMPLE,
                        code="bad_away")
    joined = [w for w in words if w.strip(",;")]
    days = _read_days(joined, today)
    if len(days) == 1:
        return days[0], days[0]
    if len(days) != 2:
        raise UserError(_("AWAY takes two days, the first and the last of your absence; that was %(n)d",
                          n=len(days)), example=AWAY_EXAMPLE, code="bad_away")
    return days[0], days[1]


@dataclass
class Away:
    """What AWAY did: the games the absence applies to, and those that refused it (and why)."""
    first: date
    last: date
    applied: list[Game]
    refused: list[tuple[Game, str]]


def away(s: Session, user: User, first: date, last: date, today: date) -> Away:
    """One absence in every game where ``user`` holds a seat that is open or running, each within its own
    allowance: a game whose allowance is spent refuses it (and says so) while the others take it. Each table
    is told (declare). When no game takes it, nothing is stored and the reasons are the refusal."""
    if last < first:
        raise UserError(_("the last day comes before the first"), example=AWAY_EXAMPLE, code="bad_away")
    if last < today:
        raise UserError(_("that absence is over already (today is %(today)s)", today=lang.day(today)),
                        example=AWAY_EXAMPLE, code="bad_away")
    mine = [g for g in games.list_mine(s, user)
            if g.status in ("open", "running") and not seating.seat_of(s, g.id, user.id).resigned]
    if not mine:
        raise UserError(_("you have no open or running games to be away from"), code="no_games")
    done = Away(first, last, [], [])
    for g in mine:
        try:
            declare(s, user, g, first, last, today)  # every check comes before its first write
        except UserError as e:
            done.refused.append((g, e.describe()))
        else:
            done.applied.append(g)
    if not done.applied:
        raise UserError("; ".join(f"#{g.id}: {why}" for g, why in done.refused), example=AWAY_EXAMPLE,
                        code="vacation_allowance")
    return done


def cancel_upcoming(s: Session, user: User, today: date) -> list[Vacation]:
    """AWAY CANCEL: the absences that have not begun are withdrawn in every game (an absence under way
    stays: its days are counted already); the clocks are worked out again and each table is told."""
    rows = [v for v in upcoming(s, user, today) if v.starts_on > today]
    if not rows:
        raise UserError(_("you have no absence still to come"), example=AWAY_EXAMPLE, code="no_absence")
    name = user.name
    for v in rows:
        s.delete(v)
    s.flush()
    for v in rows:
        g = s.get(Game, v.game_id) if v.game_id else None
        if g is None:
            continue
        seat = seating.seat_of(s, g.id, user.id)
        if seat is not None and g.status == "running":
            clocks.recompute(s, g, seat)
        first, last = v.starts_on, v.ends_on
        text = lazy_gettext("%(name)s will not be away from %(first)s to %(last)s after all.", name=name,
                            first=Day(first), last=Day(last))
        s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat if seat else None, value=text))
        notify.queue_notice(s, g, lazy_gettext("vacation"), text,
                            seats={x.seat for x in seating.seats(s, g.id)} - ({seat.seat} if seat else set()))
    return rows
