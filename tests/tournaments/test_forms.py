"""The tournament forms of the site (pbem/web/tournaments.py), through the real app with its CSRF
protection: a tournament made, entered (with its password), left (after a confirmation step) and
run round by round by its director; every bad input refused with the reason and an example,
changing nothing; a non-director shown no director's buttons and refused when posting anyway; a
post without the form's token refused. Then a player's page of their tables, the archive's finished
tournaments, and the live stream that tells an open page its standings changed."""
from __future__ import annotations

import re
import threading

from sqlmodel import select

from pbem.services.core import accounts
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Outbound, Tournament, TournamentEntry, User
from pbem.web import create_app
from tests.tournaments.test_web import _finish
from tests.web.conftest import Browser

GOOD = {"game": "mini", "name": "Web league", "players": "3", "format": "swiss", "rounds": "2", "scoring": "places",
        "deadline": "48", "policy": "bot", "bot": "easy", "access": "public", "options": "hand=1"}


def _people(n: int) -> list[int]:
    with unit_of_work() as s:
        return [accounts.register(s, f"f{i}@x.test", f"F{i}", confirmed=True)[0].id for i in range(n)]


def _browser(app, uid: int | None) -> Browser:
    b = Browser(app)
    if uid is not None:
        b.login_as(uid)
    return b


def _post(b: Browser, url: str, data: dict | None = None, **kw):
    return b.post(url, data, page="/tournaments", **kw)


def _count(model) -> int:
    with unit_of_work() as s:
        return len(list(s.exec(select(model))))


def _subjects(fragment: str) -> list[str]:
    """Who was mailed a mail whose subject holds ``fragment``."""
    with unit_of_work() as s:
        return [o.to_addr for o in s.exec(select(Outbound)) if fragment in (o.subject or "")]


def _flash(html: str) -> str:
    return " ".join(re.findall(r'class="flash[^"]*"[^>]*>(.*?)</', html, re.S))


def test_making_entering_leaving_and_directing_a_tournament_on_the_site(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    ids = _people(5)
    director = _browser(app, ids[0])

    # bad input: refused with the reason and an example, nothing made, the form as it was sent
    for bad, said in (({"players": "three"}, "players is a whole number"), ({"rounds": "99"}, "1 to 20 rounds"),
                      ({"format": "ladder"}, "the format is one of"), ({"points": "1-2-3"}, "points are one number"),
                      ({"entry_closes": "next week"}, "year-month-day"), ({"options": "hand"}, "key=value"),
                      ({"game": "chess"}, "chess"), ({"access": "password", "password": ""}, "")):
        r = _post(director, "/tournaments/new", {**GOOD, **bad})
        html = r.get_data(as_text=True)
        assert r.status_code == 400 and "The tournament was not made" in html and said in html, (bad, html[-3000:])
        assert "for example" in html or bad.get("game") == "chess", bad
        assert 'value="Web league"' in html  # the form comes back filled in
    assert _count(Tournament) == 0

    # a forged post (no token, as from another site) is refused and makes nothing
    r = director.post("/tournaments/new", GOOD, csrf=False)
    assert r.status_code == 400 and _count(Tournament) == 0

    r = _post(director, "/tournaments/new", {**GOOD, "access": "password", "password": "owl42",
                                            "entry_closes": "2099-01-01"})
    assert r.status_code == 400 and "60 days" in r.get_data(as_text=True)
    r = _post(director, "/tournaments/new", {**GOOD, "access": "password", "password": "owl42", "max": "6",
                                            "min_reliability": "10"})
    assert r.status_code == 303
    with unit_of_work() as s:
        t = s.exec(select(Tournament)).one()
        tid = t.id
        assert (t.name, t.table_size, t.rounds, t.access, t.max_entries, t.options) == \
            ("Web league", 3, 2, "password", 6, {"hand": 1})
    page = director.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="tournament-start"' in page and 'id="tournament-close"' in page

    # entering: the password asked for and checked; a wrong one enters nobody
    players = [_browser(app, uid) for uid in ids[1:]]
    html = players[0].get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="tournament-join"' in html and 'name="password"' in html
    assert 'id="tournament-start"' not in html and 'id="director"' not in html  # no director's buttons
    r = _post(players[0], f"/tournaments/{tid}/join", {"password": "owl"}, follow_redirects=True)
    assert "You have not entered" in _flash(r.get_data(as_text=True)) and _count(TournamentEntry) == 0
    assert "Password field" in _flash(r.get_data(as_text=True))
    for b in players[:4]:
        r = _post(b, f"/tournaments/{tid}/join", {"password": "owl42"}, follow_redirects=True)
        assert "You have entered" in _flash(r.get_data(as_text=True))
    assert _count(TournamentEntry) == 4

    # a non-director's start and close are refused (the buttons were not shown; a post is answered)
    r = _post(players[0], f"/tournaments/{tid}/start", follow_redirects=True)
    assert "only the director" in _flash(r.get_data(as_text=True)) and _count(Game) == 0
    r = _post(players[0], f"/tournaments/{tid}/close", follow_redirects=True)
    assert "only the director" in _flash(r.get_data(as_text=True))
    r = director.post(f"/tournaments/{tid}/start", {}, csrf=False)
    assert r.status_code == 400 and _count(Game) == 0

    # leaving before the first round withdraws the entry, after a confirmation step
    r = _post(players[3], f"/tournaments/{tid}/leave")
    assert r.status_code == 200 and 'id="leave-yes"' in r.get_data(as_text=True) and _count(TournamentEntry) == 4
    r = _post(players[3], f"/tournaments/{tid}/leave", {"confirm": "yes"}, follow_redirects=True)
    assert "You have left" in _flash(r.get_data(as_text=True)) and _count(TournamentEntry) == 3

    r = _post(director, f"/tournaments/{tid}/start", follow_redirects=True)
    assert "Round 1 has started at 1 table;" in _flash(r.get_data(as_text=True))
    with unit_of_work() as s:
        gid = season.tables_of(s, s.get(Tournament, tid), 1)[0].game_id
        boards = [o.to_addr for o in s.exec(select(Outbound).where(Outbound.kind == "board", Outbound.game_id == gid))]
    assert sorted(boards) == ["f1@x.test", "f2@x.test", "f3@x.test"]
    # started on the page as by mail: each player seated gets their "your next table" mail
    assert sorted(_subjects("your table")) == ["f1@x.test", "f2@x.test", "f3@x.test"]
    r = _post(director, f"/tournaments/{tid}/start", follow_redirects=True)  # the round is still being played
    assert "still being played" in _flash(r.get_data(as_text=True))
    r = _post(players[3], f"/tournaments/{tid}/join", {"password": "owl42"}, follow_redirects=True)
    assert "closed" in _flash(r.get_data(as_text=True))

    # leaving mid-round: confirmed, a bot plays the seat to the end, the standings say so
    r = _post(players[2], f"/tournaments/{tid}/leave")
    assert "cannot be taken back" in r.get_data(as_text=True)
    r = _post(players[2], f"/tournaments/{tid}/leave", {"confirm": "yes"}, follow_redirects=True)
    assert f"a bot plays your seat in game #{gid}" in _flash(r.get_data(as_text=True))
    _finish(gid)
    html = director.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "(left)" in html and 'id="tournament-leave"' not in html

    # the player's page: their table round by round, with the result and links
    r = director.get(f"/tournaments/{tid}/players/{ids[3]}")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and f'href="/games/{gid}"' in html and "Left in round 1" in html
    assert "left: a bot played the seat" in html and f"/games/{gid}/record.json" in html
    assert director.get(f"/tournaments/{tid}/players/{ids[4]}").status_code == 404  # never entered
    html = director.get(f"/tournaments/{tid}/players/{ids[1]}").get_data(as_text=True)
    assert 'id="sitting-1"' in html and "F2" in html
    html = director.get(f"/players/{ids[3]}").get_data(as_text=True)  # their profile links their season
    assert f'href="/tournaments/{tid}/players/{ids[3]}"' in html and "(left)" in html

    r = _post(director, f"/tournaments/{tid}/close", follow_redirects=True)
    assert "is over" in _flash(r.get_data(as_text=True))
    assert sorted(_subjects("the final standings")) == ["f1@x.test", "f2@x.test", "f3@x.test"]  # who played
    html = director.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Final standings" in html and 'id="director"' not in html and "tournament.js" not in html

    # the archive lists it, linking its page (the final standings, every table's record)
    html = players[0].get("/archive").get_data(as_text=True)
    assert f'id="archived-tournament-{tid}"' in html and "Web league" in html
    html = Browser(app).get(f"/tournaments/{tid}").get_data(as_text=True)
    assert f'/games/{gid}/record.json' in html


def test_an_open_tournament_page_hears_that_its_standings_changed(sqlite_cfg):
    """The page's stream says ``news`` when a table's game ends (the standings change) and when the
    director starts a round (new tables); a move that changes nothing the page shows says nothing."""
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    ids = _people(3)
    with unit_of_work() as s:
        t = season.create(s, s.get(User, ids[0]), "mini", table_size=3, options={"hand": "2"}, rounds=2, seed=3)
        for uid in ids:
            season.join(s, s.get(User, uid), t.id)
        tid = t.id
    client = app.test_client()
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    stamp = re.search(r'data-stamp="([0-9a-f]+)"', html).group(1)
    assert f'data-live="/tournaments/{tid}/live"' in html and "tournament.js" in html and "<noscript>" in html

    r = client.get(f"/tournaments/{tid}/live?stamp={stamp}", buffered=False)
    assert r.mimetype == "text/event-stream"
    chunks = r.response
    assert next(chunks).decode().startswith("retry:")
    heard = []

    def read():
        for c in chunks:
            text = c.decode()
            heard.append(text)
            if "event: news" in text:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    with unit_of_work() as s:
        _t, _r, made = season.start_round(s, s.get(User, ids[0]), tid)
        gid = made[0].id
    reader.join(10)
    assert heard and "event: news" in heard[-1] and "retry" not in heard[-1]
    r.close()

    # a fresh page, then one move of a game still running: nothing shown changed, no news
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    stamp = re.search(r'data-stamp="([0-9a-f]+)"', html).group(1)
    r = client.get(f"/tournaments/{tid}/live?stamp={stamp}", buffered=False)
    chunks = r.response
    next(chunks)
    heard.clear()
    from pbem.web import tournaments as web_t
    before = web_t.HEARTBEAT
    web_t.HEARTBEAT = 0.5
    try:
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        _finish(gid, plies=1)
        reader.join(1.5)
        assert not any("event: news" in h for h in heard)
        _finish(gid)  # the game ends: its places are in the standings
        reader.join(10)
        assert heard and "event: news" in heard[-1]
    finally:
        web_t.HEARTBEAT = before
        r.close()
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert re.search(r'data-stamp="([0-9a-f]+)"', html).group(1) != stamp


def test_the_form_dates_the_rounds_chooses_late_tables_and_mails_the_invited(sqlite_cfg):
    """The calendar and the invitations are the form's as they are the mail's: the first round's day,
    the days between rounds (a bare number is days) and what a late table does, stored and shown on
    the page; each invited address gets its invitation; a date that has passed is refused, nothing made."""
    from datetime import date, timedelta

    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    ids = _people(1)
    director = _browser(app, ids[0])
    past = (date.today() - timedelta(days=3)).isoformat()
    r = _post(director, "/tournaments/new", {**GOOD, "start": past, "every": "14"})
    assert r.status_code == 400 and "The tournament was not made" in r.get_data(as_text=True)
    assert _count(Tournament) == 0
    r = _post(director, "/tournaments/new", {**GOOD, "every": "fortnight"})
    assert r.status_code == 400 and _count(Tournament) == 0
    day = (date.today() + timedelta(days=10)).isoformat()
    r = _post(director, "/tournaments/new", {**GOOD, "start": day, "every": "14", "late": "go", "access": "private",
                                            "invite": "zed@elsewhere.test, yan@elsewhere.test"})
    assert r.status_code == 303, r.get_data(as_text=True)[-2000:]
    with unit_of_work() as s:
        t = s.exec(select(Tournament)).one()
        assert (t.late, t.every_days, t.next_round_at is not None) == ("go", 14, True)
        assert t.next_round_at.date().isoformat() in (day, (date.fromisoformat(day) - timedelta(days=1)).isoformat())
        invited = {o.to_addr for o in s.exec(select(Outbound).where(Outbound.to_addr.like("%@elsewhere.test")))}
    assert invited == {"zed@elsewhere.test", "yan@elsewhere.test"}
    page = director.get(f"/tournaments/{t.id}").get_data(as_text=True)
    assert 'id="next-round"' in page and "its players are seated too" in page
