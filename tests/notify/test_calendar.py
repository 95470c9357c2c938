"""The deadlines in a calendar. A player's private iCalendar feed
(every current deadline, with the reminders as alarms) and one game's .ics
file linked from the "your turn" mail, fetched through the real site and
validated by parsing them back with icalendar; NOTIFY CALENDAR by mail and
the profile page's address, and a new address that voids the old one."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from icalendar import Calendar
from sqlmodel import select

from pbem.services.core.clocks import aware
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Seat, User
from pbem.web import create_app
from tests.mailtools import CMD, outbox, process, seat_addr, start_game
from tests.web.conftest import Browser

ICS_RE = re.compile(r"https?://[^\s/]+(/calendar/game/[A-Za-z0-9_.\-]+\.ics)")
FEED_RE = re.compile(r"https?://[^\s/]+(/calendar/[A-Za-z0-9_\-]+\.ics)")


@pytest.fixture
def site(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    return app


def seats_of(gid: int) -> list[tuple[Seat, User]]:
    with unit_of_work() as s:
        return [(seat, s.get(User, seat.user_id)) for seat in
                s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat))]


def mover(gid: int) -> tuple[Seat, User]:
    return next((seat, u) for seat, u in seats_of(gid) if seat.deadline_at is not None)


def parse(body: bytes) -> Calendar:
    """Parse back strictly: CRLF lines folded at 75 octets, the calendar's own properties, then icalendar."""
    assert body.startswith(b"BEGIN:VCALENDAR\r\n") and body.endswith(b"END:VCALENDAR\r\n")
    assert all(len(line) <= 75 for line in body.split(b"\r\n")), "a content line longer than 75 octets"
    cal = Calendar.from_ical(body)
    assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"]) == "-//pbem//deadlines//EN"
    for ev in cal.walk("VEVENT"):  # each event has the properties RFC 5545 requires of it
        assert ev.get("UID") and ev.get("DTSTAMP") and ev.get("DTSTART")
        for alarm in ev.walk("VALARM"):
            assert str(alarm["ACTION"]) == "DISPLAY" and alarm.get("TRIGGER") and alarm.get("DESCRIPTION")
    return cal


def fetch(app, path: str):
    return app.test_client().get(path)


def test_the_your_turn_mail_links_the_deadline_as_an_ics_file(sqlite_cfg, site):
    gid = start_game(2)
    seat, user = mover(gid)
    mail = [m for m in outbox(user.email) if m.kind == "board"][-1]
    assert "Your turn" in mail.body_text
    path = ICS_RE.search(mail.body_text).group(1)
    assert path in (mail.body_html or "")  # the HTML part links it too
    r = fetch(site, path)
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    assert r.headers["Content-Disposition"] == f'attachment; filename="pbem-game-{gid}.ics"'
    assert "no-store" in r.headers["Cache-Control"]
    cal = parse(r.get_data())
    (ev,) = cal.walk("VEVENT")
    assert ev.decoded("DTSTART") == aware(seat.deadline_at).replace(microsecond=0)
    assert str(ev["UID"]) == f"pbem-game-{gid}-seat-{seat.seat}@pbem.test"
    assert str(ev["SUMMARY"]) == f"Your move in #{gid} (Mini (test game)) is due"
    assert str(ev["URL"]) == f"{sqlite_cfg.base_url}/games/{gid}"
    assert sorted(a.decoded("TRIGGER") for a in ev.walk("VALARM")) == [timedelta(hours=-24), timedelta(hours=-4)]
    text = r.get_data(as_text=True)
    for other, _u in seats_of(gid):  # no reply address in it, the reader's own included
        assert other.token not in text
    # the other player, not to move, got no such link
    waiting = next(u for s_, u in seats_of(gid) if s_.seat != seat.seat)
    assert not any(ICS_RE.search(m.body_text) for m in outbox(waiting.email))


def test_the_feed_follows_the_deadlines_as_they_move_and_end(sqlite_cfg, site):
    gid = start_game(2)
    seat, user = mover(gid)
    process(user.email, CMD, "NOTIFY CALENDAR")
    answer = outbox(user.email)[-1].body_text
    assert "Subscribe to" in answer and "alarms 24 and 4 hours before" in answer
    feed = FEED_RE.search(answer).group(1)
    r = fetch(site, feed)
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    cal = parse(r.get_data())
    assert str(cal["X-WR-CALNAME"]) == f"pbem: deadlines of {user.name}"
    (ev,) = cal.walk("VEVENT")
    first = ev.decoded("DTSTART")
    # a vacation moves the deadline: the same event (its UID), later
    soon = date.today() + timedelta(days=1)
    process(user.email, seat_addr(gid, seat.seat), f"VACATION {soon} {soon + timedelta(days=2)}")
    (ev2,) = parse(fetch(site, feed).get_data()).walk("VEVENT")
    assert ev2["UID"] == ev["UID"] and ev2.decoded("DTSTART") > first
    # a second game: two events, the nearest first
    gid2 = start_game(2)
    if mover(gid2)[1].email == user.email:
        assert len(parse(fetch(site, feed).get_data()).walk("VEVENT")) == 2
    # the move made: the deadline leaves this feed and enters the other player's
    with unit_of_work() as s:
        from pbem.services.core import games

        g = s.get(Game, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        move = engine.format_move(state, seat.seat, engine.legal_moves(state, seat.seat)[0])
    process(user.email, seat_addr(gid, seat.seat), move)
    uids = [str(e["UID"]) for e in parse(fetch(site, feed).get_data()).walk("VEVENT")]
    assert f"pbem-game-{gid}-seat-{seat.seat}@pbem.test" not in uids
    nxt, other = mover(gid)
    assert other.email != user.email
    process(other.email, CMD, "NOTIFY CALENDAR")
    theirs = parse(fetch(site, FEED_RE.search(outbox(other.email)[-1].body_text).group(1)).get_data())
    assert [str(e["UID"]) for e in theirs.walk("VEVENT")] == [f"pbem-game-{gid}-seat-{nxt.seat}@pbem.test"]
    # a paused game has no deadline running
    with unit_of_work() as s:
        s.get(Game, gid).paused = True
    assert parse(fetch(site, FEED_RE.search(outbox(other.email)[-1].body_text).group(1)).get_data()) \
        .walk("VEVENT") == []


def test_a_new_address_voids_the_old_feed_and_the_mailed_links(sqlite_cfg, site):
    gid = start_game(2)
    _seat, user = mover(gid)
    link = ICS_RE.search([m for m in outbox(user.email) if m.kind == "board"][-1].body_text).group(1)
    process(user.email, CMD, "NOTIFY CALENDAR")
    old = FEED_RE.search(outbox(user.email)[-1].body_text).group(1)
    process(user.email, CMD, "NOTIFY CALENDAR NEW")
    answer = outbox(user.email)[-1].body_text
    assert "your calendar has a new address" in answer
    new = FEED_RE.search(answer).group(1)
    assert new != old
    for gone in (old, link):
        r = fetch(site, gone)
        assert r.status_code == 404 and "no longer works" in r.get_data(as_text=True)
        assert r.mimetype == "text/plain"
    assert fetch(site, new).status_code == 200
    # a forged or altered link is refused the same way
    assert fetch(site, link[:-8] + "0000.ics").status_code == 404
    assert fetch(site, "/calendar/game/1.1.abc.ics").status_code == 404
    assert fetch(site, "/calendar/" + "x" * 24 + ".ics").status_code == 404
    # and a wrong word says what NOTIFY CALENDAR takes, changing nothing
    process(user.email, CMD, "NOTIFY CALENDAR OLD")
    assert "NOTIFY CALENDAR takes nothing, or NEW" in outbox(user.email)[-1].body_text
    assert fetch(site, new).status_code == 200


def test_the_profile_shows_the_feed_and_makes_a_new_address(sqlite_cfg, site):
    gid = start_game(2)
    _seat, user = mover(gid)
    b = Browser(site)
    b.login_as(user.id)
    html = b.get("/profile").get_data(as_text=True)
    with unit_of_work() as s:
        key = s.get(User, user.id).calendar_key
    assert f"{sqlite_cfg.base_url}/calendar/{key}.ics" in html and "webcal://" in html
    assert fetch(site, f"/calendar/{key}.ics").status_code == 200
    r = b.post("/profile/calendar", {}, page="/profile")
    assert r.status_code == 303
    html = b.get("/profile").get_data(as_text=True)
    assert "Your calendar has a new address" in html
    with unit_of_work() as s:
        new = s.get(User, user.id).calendar_key
    assert new != key and f"/calendar/{new}.ics" in html
    assert fetch(site, f"/calendar/{key}.ics").status_code == 404


def test_the_feed_speaks_its_owners_language(sqlite_cfg, site):
    gid = start_game(2)
    _seat, user = mover(gid)
    process(user.email, CMD, "LANGUAGE ru")
    process(user.email, CMD, "NOTIFY CALENDAR")
    cal = parse(fetch(site, FEED_RE.search(outbox(user.email)[-1].body_text).group(1)).get_data())
    (ev,) = cal.walk("VEVENT")
    assert re.search("[а-я]", str(ev["SUMMARY"])) and re.search("[а-я]", str(cal["X-WR-CALNAME"]))
    assert all(re.search("[а-я]", str(a["DESCRIPTION"])) for a in ev.walk("VALARM"))


def test_calendar_paths_are_redacted_in_logs():
    import logging

    from pbem.web.site import RedactLoginTokens

    rec = logging.LogRecord("x", logging.INFO, "", 0, '"GET %s HTTP/1.1" 200', ("/calendar/AbCdEfGhIjKlMnOpQrStUvWx.ics",),
                            None)
    RedactLoginTokens().filter(rec)
    assert rec.args == ("/calendar/<token>",)
    rec = logging.LogRecord("x", logging.INFO, "", 0, "GET /calendar/game/12.34.0123456789abcdef.ics and "
                            "/unsubscribe/7.board.0123456789abcdef", None, None)
    RedactLoginTokens().filter(rec)
    assert rec.msg == "GET /calendar/game/<token> and /unsubscribe/<token>"
