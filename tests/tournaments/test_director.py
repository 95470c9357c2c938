"""The director's hand by mail: TOURNAMENT SEAT enters a player whatever the entry conditions,
from the next round on (a league only, once it has begun), and TOURNAMENT ADJUST adds or takes
away points with a reason, a record of its own shown with the standings (the page, the CSV, the
STANDINGS reply) and told to the player. Every bad line refused with the reason and an example,
changing nothing."""
from __future__ import annotations

import csv
import io

import pytest
from sqlmodel import select

from pbem.services.core import accounts
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Tournament, TournamentAdjustment, TournamentEntry, TournamentRound
from pbem.web import create_app
from tests.mailtools import CMD, process
from tests.tournaments.test_mail import _play_round, _say


def _count(model) -> int:
    with unit_of_work() as s:
        return len(list(s.exec(select(model))))


def _told(to: str, fragment: str) -> list[Outbound]:
    with unit_of_work() as s:
        return [o for o in s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "notice"))
                if fragment in (o.subject or "")]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """Eight registered players (the first directs; p7 writes in Russian), one SQLite database."""
    from tests.conftest import installed, make_settings

    with installed(make_settings(tmp_path_factory.mktemp("director"))) as cfg:
        for i in range(8):
            process(f"p{i}@x.test", CMD, f"REGISTER P{i}")
        process("p7@x.test", CMD, "LANGUAGE ru")
        yield cfg


def test_a_director_seats_a_late_player_and_adjusts_points_with_a_reason(club):
    tid = int(_say("p0@x.test", "TOURNAMENT NEW mini players=3 rounds=3 max=6 name=Club hand=1")
              .split("tournament #")[1].split(" ")[0])
    for i in (1, 2, 3, 4, 5, 6):
        assert "you have entered" in _say(f"p{i}@x.test", f"TOURNAMENT JOIN {tid}")

    # ADJUST before the first round: there is nothing to adjust yet; nothing changes
    said = _say("p0@x.test", f"TOURNAMENT ADJUST {tid} p1@x.test -1 slow")
    assert "has no standings to adjust yet" in said and "e.g. TOURNAMENT STATUS" in said
    assert "has started at 2 tables" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    _play_round(tid, 1)

    # bad lines, each refused with an example, nothing made
    before = (_count(TournamentAdjustment), _count(TournamentEntry), _count(Outbound))
    for line, said in ((f"TOURNAMENT ADJUST {tid} p1@x.test -1 slow", "only the director"),
                       (f"TOURNAMENT ADJUST {tid} nobody@x.test -1 slow play", "is not the address of a pbem account"),
                       (f"TOURNAMENT ADJUST {tid} p1@x.test 0 no reason at all", "not zero"),
                       (f"TOURNAMENT ADJUST {tid} p1@x.test -500 far too much", "from -100 to 100"),
                       (f"TOURNAMENT ADJUST {tid} p1@x.test minus-one slow play", "a number of points"),
                       (f"TOURNAMENT ADJUST {tid} p1@x.test -1", "say why"),
                       (f"TOURNAMENT SEAT {tid} p1@x.test", "has already entered"),
                       (f"TOURNAMENT SEAT {tid} p6@x.test", "only the director"),
                       (f"TOURNAMENT SEAT {tid} stranger@y.test", "REGISTER")):
        who = "p3@x.test" if "only the director" in said else "p0@x.test"
        answer = " ".join(_say(who, line).split())
        assert "ERROR" in answer and said in answer and "e.g. TOURNAMENT" in answer, (line, answer)
    assert before == (_count(TournamentAdjustment), _count(TournamentEntry),
                      _count(Outbound) - 9)  # nine replies, nothing else

    # a late player seated from round 2, told in their own language
    said = _say("p0@x.test", f"TOURNAMENT SEAT {tid} p7@x.test")
    assert "P7 is entered" in said and "from round 2 on" in said
    told = _told("p7@x.test", "(Club)")
    assert len(told) == 1 and "директор турнира" in told[0].body_text and "TOURNAMENT LEAVE" in told[0].body_text

    # a penalty: the standings count it, and say so; the player is told why
    before = {r.split(":")[0].split(". ", 1)[1]: r for r in _standings(tid)}
    said = " ".join(_say("p0@x.test", f"TOURNAMENT ADJUST {tid} p1@x.test −1.5 missed two deadlines").split())
    assert "adjusted by -1.5 (missed two deadlines)" in said
    assert "Adjusted by the director: P1 -1.5, missed two deadlines" in said
    told = _told("p1@x.test", "adjusted by -1.5")
    assert len(told) == 1 and "missed two deadlines" in told[0].body_text
    after = {r.split(":")[0].split(". ", 1)[1]: r for r in _standings(tid)}
    points = lambda line: float(line.split(": ")[1].split(" ")[0])  # noqa: E731
    # the standings show points to two decimals (a place shared three ways is 1.33): compare as shown
    assert points(after["P1"]) == round(points(before["P1"]) - 1.5, 2) and "adjusted -1.5" in after["P1"]
    app = create_app(club)
    page = app.test_client().get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="adjustments"' in page and "missed two deadlines" in page and "adjusted -1.5" in page
    rows = list(csv.DictReader(io.StringIO(app.test_client().get(f"/tournaments/{tid}/standings.csv")
                                          .get_data(as_text=True))))
    assert next(r for r in rows if r["player"] == "P1")["adjusted"] == "-1.5"
    assert {r["adjusted"] for r in rows if r["player"] != "P1"} == {""}

    # round 2 seats the late player (at a table, or given a bye)
    assert "has started" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    with unit_of_work() as s:
        t = s.get(Tournament, tid)
        rnd = s.exec(select(TournamentRound).where(TournamentRound.tournament_id == tid,
                                                   TournamentRound.number == 2)).one()
        seated = {p for row in season.tables_of(s, t, 2) for p in row.players} | set(rnd.byes)
        assert accounts.find_user(s, "p7@x.test").id in seated
    # a player already in is not entered twice
    answer = _say("p0@x.test", f"TOURNAMENT SEAT {tid} p6@x.test")
    assert "has already entered" in answer


def _standings(tid: int) -> list[str]:
    text = _say("p2@x.test", f"TOURNAMENT STANDINGS {tid}")
    return [ln.strip() for ln in text.splitlines() if ln.strip()[:1].isdigit() and ". P" in ln]


def test_the_directors_forms_on_the_page_seat_and_adjust(club):
    """The page's forms do what SEAT and ADJUST do by mail, for the director alone; a bad form is
    refused with the reason and changes nothing."""
    from tests.web.conftest import Browser

    tid = int(_say("p0@x.test", "TOURNAMENT NEW mini players=2 rounds=2 name=Forms hand=1")
              .split("tournament #")[1].split(" ")[0])
    for i in (1, 2):
        assert "you have entered" in _say(f"p{i}@x.test", f"TOURNAMENT JOIN {tid}")
    app = create_app(club)
    app.config["TESTING"] = True
    with unit_of_work() as s:
        ids = {i: accounts.find_user(s, f"p{i}@x.test").id for i in (0, 1, 3)}
    director, player = Browser(app), Browser(app)
    director.login_as(ids[0])
    player.login_as(ids[1])
    page = director.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="tournament-seat"' in page and 'id="tournament-adjust"' not in page  # nothing to adjust yet
    assert 'id="tournament-seat"' not in player.get(f"/tournaments/{tid}").get_data(as_text=True)

    r = director.post(f"/tournaments/{tid}/seat", {"address": "p3@x.test"}, page=f"/tournaments/{tid}",
                      follow_redirects=True)
    assert "P3 is entered and seated from round 1 on" in r.get_data(as_text=True)
    assert "has started" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    page = director.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="tournament-adjust"' in page

    before = (_count(TournamentAdjustment), _count(Outbound))
    r = player.post(f"/tournaments/{tid}/adjust", {"address": "p1@x.test", "points": "5", "reason": "I won"},
                    page=f"/tournaments/{tid}", follow_redirects=True)
    assert "only the director" in r.get_data(as_text=True)
    r = director.post(f"/tournaments/{tid}/adjust", {"address": "p1@x.test", "points": "lots", "reason": "x y z"},
                      page=f"/tournaments/{tid}", follow_redirects=True)
    html = r.get_data(as_text=True)
    assert "No points were adjusted" in html and "a number of points" in html
    assert (_count(TournamentAdjustment), _count(Outbound)) == before
    r = director.post(f"/tournaments/{tid}/adjust", {"address": "p1@x.test", "points": "+0.5", "reason": "a bonus"},
                      page=f"/tournaments/{tid}", follow_redirects=True)
    html = r.get_data(as_text=True)
    assert "The points of P1 are adjusted by +0.5" in html and "a bonus" in html and "adjusted +0.5" in html


def test_a_tournament_made_for_another_director(club):
    """director=<address>: another account directs it (and is told); the maker does not; an address
    with no account is refused, nothing made."""
    before = _count(Tournament)
    said = " ".join(_say("p0@x.test", "TOURNAMENT NEW mini players=2 director=ghost@x.test hand=1").split())
    assert "ERROR" in said and "is not the address of a pbem account" in said and "director=" in said
    assert _count(Tournament) == before
    tid = int(_say("p0@x.test", "TOURNAMENT NEW mini players=2 name=Theirs director=p5@x.test hand=1")
              .split("tournament #")[1].split(" ")[0])
    with unit_of_work() as s:
        assert s.get(Tournament, tid).director_id == accounts.find_user(s, "p5@x.test").id
    told = _told("p5@x.test", "you direct tournament")
    assert len(told) == 1 and f"TOURNAMENT START {tid}" in told[0].body_text
    for i in (1, 2):
        assert "you have entered" in _say(f"p{i}@x.test", f"TOURNAMENT JOIN {tid}")
    assert "only the director" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    assert "has started" in _say("p5@x.test", f"TOURNAMENT START {tid}")
