"""Deadlines in a calendar: each user's private iCalendar feed of
their current deadlines, with an alarm at each reminder the deadline sweep
sends (24 h and 4 h before), and one game's deadline as a single .ics file,
linked from the "your turn" mail.

The feed's address carries the user's ``calendar_key`` (a random secret): a
calendar application subscribes to it and reads it again every hour, so a
deadline that moves (a vacation, an admin's extension, a move made) moves in
the calendar too. A new key voids the old address and every .ics link mailed
before (their token is keyed with it). What either holds is what the user's
own seat may know: the game, its number, the deadline and the game's web
address; never a board, a hand, a move or a reply address.

The key and the tokens of the .ics links are services/core/calendar_links.py's
(the mails carry them). The documents are written with the icalendar library;
every function that depends on the time takes ``now``."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _
from pbem.store.models import Game, Seat, User, utcnow

from ..core import calendar_links, clocks, games, lang

if TYPE_CHECKING:
    from icalendar import Calendar, Event

PRODID = "-//pbem//deadlines//EN"
REFRESH = timedelta(hours=1)  # how often a subscribed calendar should read the feed again


# ---------------------------------------------------------------- addresses


def renew(s: Session, user: User) -> str:
    """A new key: the old feed address and every .ics link mailed before stop working."""
    user.calendar_key = secrets.token_urlsafe(18)
    s.add(user)
    return user.calendar_key


def feed_url(user: User) -> str:
    """The https address of the user's feed (for a browser or a calendar's "subscribe by URL")."""
    return f"{settings().base_url}/calendar/{calendar_links.key_of(user)}.ics"


def webcal_url(user: User) -> str:
    """The same feed as webcal://, which calendar applications open as a subscription."""
    url = feed_url(user)
    return "webcal://" + url.split("://", 1)[1]


def user_for_key(s: Session, key: str) -> User | None:
    if not key or len(key) > 64:
        return None
    user = s.exec(select(User).where(User.calendar_key == key)).first()
    return user if user is not None and user.disabled_at is None else None


# ---------------------------------------------------------------- what is due


def game_link(g: Game) -> str:
    return f"{settings().base_url}/games/{g.id}"


def due_seats(s: Session, user: User) -> list[tuple[Game, Seat]]:
    """The user's seats with a running deadline clock: running games, not paused, not resigned."""
    rows = s.exec(select(Game, Seat).join(Seat, Seat.game_id == Game.id)
                  .where(Seat.user_id == user.id, Seat.deadline_at.is_not(None), Seat.resigned == False,  # noqa: E712
                         Seat.is_bot == False, Game.status == "running", Game.paused == False)  # noqa: E712
                  .order_by(Seat.deadline_at, Game.id, Seat.seat)).all()
    return [(g, seat) for g, seat in rows]


def _event(g: Game, seat: Seat, user: User, now: datetime) -> Event:
    # icalendar (and tzlocal with it) is imported when a calendar is written, not by every process that starts
    from icalendar import Alarm, Event

    deadline = clocks.aware(seat.deadline_at)
    title = games.engine_for(g).title
    link = game_link(g)
    ev = Event()
    # one event per seat: the same UID while the deadline moves, so a calendar moves the event
    ev.add("uid", f"pbem-game-{g.id}-seat-{seat.seat}@{settings().domain}")
    ev.add("dtstamp", clocks.aware(now))
    ev.add("dtstart", deadline)  # a moment: no DTEND (RFC 5545 §3.6.1)
    ev.add("summary", _("Your move in #%(id)d (%(game)s) is due", id=g.id, game=title))
    ev.add("description", _("Your move in game #%(id)d (%(game)s) is due by %(when)s (%(tz)s). Reply to the "
                            "game's last mail with your move, or play it on the web: %(web)s",
                            id=g.id, game=title, when=lang.when(deadline, user.timezone), tz=user.timezone,
                            web=link))
    ev.add("url", link)
    ev.add("status", "CONFIRMED")
    ev.add("transp", "TRANSPARENT")  # a deadline does not make anyone busy
    ev.add("categories", ["pbem", title])
    started = clocks.aware(seat.clock_started_at)
    for _stage, before in clocks.REMINDERS:  # the sweep's own reminders, as the calendar's alarms
        if started is not None and deadline - before <= started:
            continue  # a reminder the sweep will not send (the clock began after it)
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("trigger", -before)
        alarm.add("description", _("Reminder: your move in #%(id)d (%(game)s) is due %(left)s.", id=g.id,
                                   game=title, left=_left_words(before)))
        ev.add_component(alarm)
    return ev


def _left_words(before: timedelta) -> str:
    from pbem.i18n import ngettext

    hours = int(before.total_seconds() // 3600)
    return ngettext("in %(num)d hour", "in %(num)d hours", hours)


def _calendar(user: User, name: str) -> Calendar:
    from icalendar import Calendar

    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name)
    cal.add("x-wr-timezone", user.timezone or "UTC")
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", REFRESH)
    return cal


def feed(s: Session, user: User, now: datetime | None = None) -> bytes:
    """The user's feed: one event per current deadline, in the user's language."""
    now = now or utcnow()
    with lang.speaking(user):
        cal = _calendar(user, _("pbem: deadlines of %(name)s", name=user.name))
        for g, seat in due_seats(s, user):
            cal.add_component(_event(g, seat, user, now))
        return cal.to_ical()


def game_file(s: Session, user: User, g: Game, now: datetime | None = None) -> bytes:
    """One game's deadline (or deadlines: a user may hold two seats) as an .ics file; no event when the
    user has no deadline running in it now (the move was made, the game is paused or over)."""
    now = now or utcnow()
    with lang.speaking(user):
        cal = _calendar(user, _("pbem: game #%(id)d", id=g.id))
        for game, seat in due_seats(s, user):
            if game.id == g.id:
                cal.add_component(_event(game, seat, user, now))
        return cal.to_ical()
