"""A season run by its calendar, through the pipeline and the sweep (services/lobby/tournaments/runs.py,
services/upkeep/sweep.py): rounds dated by mail start on their date, once whatever sweeps run; a
late table holds the next round back (late=wait) or not (late=go, its players seated too and its
game counted when it ends); the tournament closes itself after its last round. And the mails,
each in its reader's language: the invitation, "your next table" (a bye says so), the final
standings, the lines in the daily digest. Bad calendar lines are refused with the reason and an
example, and change nothing."""
from __future__ import annotations

import re

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from pbem.services.follow import messages
from pbem.services.lobby.tournaments import season
from pbem.services.upkeep import sweep
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Outbound, Tournament, TournamentRound, User, utcnow
from tests.mailtools import CMD, process
from tests.tournaments.test_mail import _play_round, _say
from tests.tournaments.test_season import _play_out

UTC = timezone.utc


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """Eight registered players (the first directs; P3 reads Russian), on one SQLite database."""
    from tests.conftest import installed, make_settings

    with installed(make_settings(tmp_path_factory.mktemp("calendar"))) as cfg:
        for i in range(8):
            process(f"c{i}@x.test", CMD, f"REGISTER C{i}")
        process("c3@x.test", CMD, "LANGUAGE ru")
        yield cfg


def _stamp(at: datetime) -> str:
    return f"{at:%Y-%m-%dT%H:%M}"


def _newest() -> Tournament:
    with unit_of_work() as s:
        t = s.exec(select(Tournament).order_by(Tournament.id.desc())).first()
        s.expunge(t)
        return t


def _mails(to: str, subject_has: str, after: int = 0, kind: str | None = None) -> list[Outbound]:
    """The mails to ``to`` after ``after`` whose subject has ``subject_has`` (a tournament's number is
    written #3 in English, Italian's "n. 3", and №3 in Russian)."""
    forms = {subject_has, subject_has.replace("#", "№"), subject_has.replace("tournament #", "torneo n. ")}
    with unit_of_work() as s:
        return [o for o in s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.id > after)
                                  .order_by(Outbound.id))
                if any(f in o.subject for f in forms) and (kind is None or o.kind == kind)]


def _last_outbound() -> int:
    with unit_of_work() as s:
        return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def _rounds(tid: int) -> list[int]:
    with unit_of_work() as s:
        return [r.number for r in s.exec(select(TournamentRound).where(TournamentRound.tournament_id == tid))]


def _league(players: list[int], text: str) -> int:
    answer = _say("c0@x.test", f"TOURNAMENT NEW mini players=2 hand=1 {text}")
    assert "is open for entry" in answer, answer
    tid = _newest().id
    for i in players:
        _say(f"c{i}@x.test", f"TOURNAMENT JOIN {tid}")  # in the player's language
    with unit_of_work() as s:
        assert len(season.entries(s, s.get(Tournament, tid))) == len(players)
    return tid


def test_bad_calendar_lines_are_refused_with_the_reason_and_an_example(club):
    with unit_of_work() as s:
        before = len(list(s.exec(select(Tournament))))
    cases = [("start=2020-01-10", "has passed"), ("start=2027-13-40", "is not a date"),
             ("start=10/01/2027", "is not a date"), ("every=0d", "every is a number of days"),
             ("every=9w", "from 1 to 60 days"),
             (f"start={utcnow() + timedelta(days=3):%Y-%m-%d} every=fortnight", "every is a number of days"),
             (f"start={utcnow() + timedelta(days=3):%Y-%m-%d} late=maybe", "late is wait"),
             (f"dates={utcnow() + timedelta(days=9):%Y-%m-%d},{utcnow() + timedelta(days=3):%Y-%m-%d}", "in order"),
             (f"format=elimination start={utcnow() + timedelta(days=3):%Y-%m-%d} late=go", "late=go is for a league")]
    for text, why in cases:
        answer = _say("c0@x.test", f"TOURNAMENT NEW mini players=2 {text}")
        assert why in answer and "e.g. TOURNAMENT NEW" in answer, (text, answer)
        if "start=" in answer.split("e.g.", 1)[1]:  # the example's date is to come: it would be taken
            assert f"start={utcnow() + timedelta(days=7):%Y-%m-%d}" in answer
    with unit_of_work() as s:
        assert len(list(s.exec(select(Tournament)))) == before

    tid = _league([1, 2], "rounds=2")
    bad = [("c1@x.test", f"TOURNAMENT SCHEDULE {tid} start={utcnow() + timedelta(days=3):%Y-%m-%d}", "only the director"),
           ("c0@x.test", f"TOURNAMENT SCHEDULE {tid} start=2020-01-10", "has passed"),
           ("c0@x.test", f"TOURNAMENT SCHEDULE {tid} start=2027-02-30", "is not a date"),
           ("c0@x.test", f"TOURNAMENT SCHEDULE {tid} late=later", "late is wait"),
           ("c0@x.test", f"TOURNAMENT SCHEDULE {tid} soon", "TOURNAMENT SCHEDULE takes"),
           ("c0@x.test", f"TOURNAMENT SCHEDULE {tid}", "needs the rounds' dates")]
    for frm, line, why in bad:
        answer = _say(frm, line)
        assert why in answer and f"e.g. TOURNAMENT SCHEDULE {tid}" in answer, (line, answer)
    t = _newest()
    assert (t.dated_from, t.round_dates, t.every_days, t.next_round_at, t.late) == (None, [], None, None, "wait")
    # and the same lines' good forms: dated, then undated again
    when = (utcnow() + timedelta(days=3)).replace(hour=9, minute=30, second=0, microsecond=0)
    answer = _say("c0@x.test", f"TOURNAMENT SCHEDULE {tid} start={_stamp(when)} every=2w late=go")
    assert f"round 1 starts on {when:%a %d %b %Y} 09:30 (UTC)" in answer and "starts without it" in answer
    t = _newest()
    assert (t.next_round_at, t.every_days, t.late) == (when, 14, "go")
    from pbem.web import create_app  # the page shows the date and the choice too

    app = create_app(club)
    app.config["TESTING"] = True
    html = app.test_client().get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="next-round"' in html and "Round 1 starts on" in html and "its players are seated too" in html
    assert "has no round to date" in _say("c0@x.test", f"TOURNAMENT SCHEDULE {tid} off")
    assert 'id="next-round"' not in app.test_client().get(f"/tournaments/{tid}").get_data(as_text=True)
    assert _newest().next_round_at is None
    # every= alone: the director starts the first round, each later one follows that many days after
    assert "each round after it starts 3 days after" in _say("c0@x.test", f"TOURNAMENT SCHEDULE {tid} every=3d")
    assert _newest().next_round_at is None
    assert "has started at 1 table" in _say("c0@x.test", f"TOURNAMENT START {tid}")
    with unit_of_work() as s:
        t = s.get(Tournament, tid)
        assert t.next_round_at == season.rounds_of(s, t)[0].started_at + timedelta(days=3)


def test_the_sweep_starts_a_dated_round_once_and_each_player_hears_of_their_table(club):
    first = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    tid = _league([1, 2, 3, 4, 5], f"rounds=2 start={_stamp(first)} every=7d name=Spring league")
    t = _newest()
    assert t.next_round_at == first and t.status == "entry"
    status = _say("c2@x.test", f"TOURNAMENT STATUS {tid}")
    assert f"round 1 starts on {first:%a %d %b %Y %H:%M} (UTC)" in status and "waits for it" in status
    mark = _last_outbound()

    assert sweep.run(first - timedelta(minutes=1))["rounds_started"] == 0  # not yet
    assert _rounds(tid) == []
    totals = [sweep.run(first + timedelta(minutes=1)), sweep.run(first + timedelta(minutes=2))]
    assert [x["rounds_started"] for x in totals] == [1, 0]  # once, whatever sweeps run
    assert _rounds(tid) == [1]
    t = _newest()
    assert t.status == "running" and t.round == 1 and t.next_round_at == first + timedelta(days=7)
    late = _say("c6@x.test", f"TOURNAMENT JOIN {tid}")
    assert "entry to tournament" in late and "closed" in late  # the first round closed entry

    with unit_of_work() as s:
        tables = season.tables_of(s, s.get(Tournament, tid), 1)
        bye = season.rounds_of(s, s.get(Tournament, tid))[0].byes
        names = {u.id: (u.name, u.email) for u in s.exec(select(User))}
    assert len(tables) == 2 and len(bye) == 1
    for row in tables:
        for p in row.players:
            mine = _mails(names[p][1], f"#{tid}, ", mark, "notice")
            assert len(mine) == 1, names[p]
            body = mine[0].body_text
            other = names[next(x for x in row.players if x != p)][0]
            if names[p][1] == "c3@x.test":  # in Russian
                assert "Раунд 1 турнира" in body and f"столом {row.number}" in body and other in body
                assert "Ваше место" in body
            else:
                assert f"Round 1 of tournament #{tid} (Spring league) has started: you play at table {row.number}, " \
                       f"game #{row.game_id}, with {other}." in body
                assert f"/games/{row.game_id}" in body and ("Each move has 48 hours" in body or "Your move is due" in body)
                assert "Your place:" in body and f"Round 2 starts on {first + timedelta(days=7):%a %d %b %Y}" in body
    bye_mail = _mails(names[bye[0]][1], f"#{tid}, ", mark, "notice")
    assert len(bye_mail) == 1
    assert ("a bye" in bye_mail[0].body_text) or ("пропускаете" in bye_mail[0].body_text)


def test_late_wait_holds_the_round_for_the_table_and_the_season_closes_itself(club):
    t0 = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    r2 = t0 + timedelta(hours=1)
    tid = _league([1, 2, 3, 4], f"rounds=2 dates={_stamp(t0)},{_stamp(r2)} late=wait")
    assert sweep.run(t0 + timedelta(minutes=1))["rounds_started"] == 1
    with unit_of_work() as s:
        first, second = season.tables_of(s, s.get(Tournament, tid), 1)
    _play_out(first.game_id)
    assert sweep.run(r2 + timedelta(minutes=1))["rounds_started"] == 0  # the date has come; a table plays
    assert _rounds(tid) == [1]
    refused = _say("c0@x.test", f"TOURNAMENT START {tid}")  # the director's START waits as well
    assert "still being played" in refused and f"e.g. TOURNAMENT SCHEDULE {tid} late=go" in refused
    _play_out(second.game_id)
    assert sweep.run(r2 + timedelta(minutes=2))["rounds_started"] == 1  # as soon as it has finished
    assert _rounds(tid) == [1, 2] and _newest().next_round_at is None

    mark = _last_outbound()
    assert sweep.run(r2 + timedelta(minutes=3))["tournaments_closed"] == 0  # round 2 plays
    _play_round(tid, 2)
    assert sweep.run(r2 + timedelta(minutes=4))["tournaments_closed"] == 1
    t = _newest()
    assert t.status == "finished"
    for i in (1, 2, 3, 4):
        final = _mails(f"c{i}@x.test", f"#{tid} ", mark, "notice")
        assert len(final) == 1, i
        body = final[0].body_text
        if i == 3:
            assert f"Турнир №{tid}" in body and "Итоговая таблица" in body
        else:
            assert "the final standings" in final[0].subject and "Your place:" in body
            assert all(f"C{k}" in body for k in (1, 2, 3, 4))
            # in the HTML part too, one standing a line (HTML would run a paragraph's lines together);
            # the games are dealt at random, and two tied at the top share the first place
            assert re.search(r"1\. C\d: [\d.]+<br>[12]\. C\d", final[0].body_html), final[0].body_html
    assert sweep.run(r2 + timedelta(minutes=5))["tournaments_closed"] == 0  # once


def test_late_go_starts_on_the_date_and_the_late_game_counts_when_it_ends(club):
    t0 = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    r2 = t0 + timedelta(hours=1)
    tid = _league([1, 2, 3, 4], f"rounds=2 dates={_stamp(t0)},{_stamp(r2)} late=go")
    assert sweep.run(t0 + timedelta(minutes=1))["rounds_started"] == 1
    with unit_of_work() as s:
        first, second = season.tables_of(s, s.get(Tournament, tid), 1)
    _play_out(first.game_id)
    mark = _last_outbound()
    assert sweep.run(r2 + timedelta(minutes=1))["rounds_started"] == 1  # without waiting for the late table
    with unit_of_work() as s:
        t = s.get(Tournament, tid)
        seated = sorted(p for row in season.tables_of(s, t, 2) for p in row.players)
        assert s.get(Game, second.game_id).status == "running"
        points = {r.player: r.points for r in season.standings(s, t)}
        names = {u.id: u.email for u in s.exec(select(User))}
    assert seated == sorted(first.players + second.players)  # the late table's players are seated too
    assert all(points[p] == 0 for p in second.players)  # ranked with what they have so far
    for p in second.players:  # told that their late game still counts
        body = _mails(names[p], f"#{tid}, ", mark, "notice")[0].body_text
        assert (f"#{second.game_id}" in body or f"№{second.game_id}" in body) and ("still being played" in body or "ещё идёт" in body)
    _play_out(second.game_id)
    with unit_of_work() as s:
        points = {r.player: r.points for r in season.standings(s, s.get(Tournament, tid))}
    assert sum(points[p] for p in second.players) == 2  # the late game counts once it has ended (2-0, or 1 each)
    # the director's START obeys late=go too: a round may start while a table plays
    tid2 = _league([1, 2, 3, 4], "rounds=2 late=go")
    assert "has started at 2 tables" in _say("c0@x.test", f"TOURNAMENT START {tid2}")
    assert "round 2 of tournament" in _say("c0@x.test", f"TOURNAMENT START {tid2}")
    refused = _say("c0@x.test", f"TOURNAMENT CLOSE {tid2}")  # but nothing ends while a table plays
    assert "still being played" in refused


def test_invitations_by_mail_in_the_reader_language(club):
    mark = _last_outbound()
    answer = _say("c0@x.test", "TOURNAMENT NEW mini players=2 private invite=c3@x.test,stranger@x.test name=Club cup")
    assert "2 addresses are invited" in answer
    tid = _newest().id
    ru = _mails("c3@x.test", f"#{tid}", mark)
    assert len(ru) == 1 and f"TOURNAMENT JOIN {tid}" in ru[0].body_text and "приглашает" in ru[0].body_text
    assert f"/tournaments/{tid}" in ru[0].body_text
    en = _mails("stranger@x.test", f"#{tid}", mark)
    assert len(en) == 1 and "C0 invites you to tournament" in en[0].body_text
    assert "REGISTER <your name>" in en[0].body_text and f"TOURNAMENT JOIN {tid}" in en[0].body_text
    # more addresses later: only the new ones hear of it
    assert "1 address newly invited" in _say("c0@x.test", f"TOURNAMENT INVITE {tid} c3@x.test,c5@x.test")
    assert len(_mails("c3@x.test", f"#{tid}", mark)) == 1 and len(_mails("c5@x.test", f"#{tid}", mark)) == 1
    refused = _say("c1@x.test", f"TOURNAMENT INVITE {tid} c6@x.test")
    assert "only the director" in refused and "e.g. TOURNAMENT INVITE" in refused
    refused = _say("c0@x.test", f"TOURNAMENT INVITE {tid} not-an-address")
    assert "e.g. TOURNAMENT INVITE" in refused
    assert _newest().invited == ["c3@x.test", "c5@x.test", "stranger@x.test"]
    _say("c3@x.test", f"TOURNAMENT JOIN {tid}")
    with unit_of_work() as s:
        assert len(season.entries(s, s.get(Tournament, tid))) == 1


def test_the_digest_shows_place_points_and_round(club):
    t0 = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    tid = _league([3, 7], f"rounds=2 start={_stamp(t0)} every=7d name=Digest cup")
    for who in ("c3@x.test", "c7@x.test"):
        process(who, CMD, "NOTIFY digest")
    assert sweep.run(t0 + timedelta(minutes=1))["rounds_started"] == 1
    with unit_of_work() as s:
        row = season.tables_of(s, s.get(Tournament, tid), 1)[0]
    _play_out(row.game_id)
    mark = _last_outbound()
    with unit_of_work() as s:
        messages.send_digests(s, t0 + timedelta(days=2))
    en = _mails("c7@x.test", "digest", mark)
    ru = _mails("c3@x.test", "", mark, "notice")
    assert len(en) == 1 and len(ru) == 1
    assert f"Tournament #{tid} (Digest cup): round 1 is being played." in en[0].body_text
    assert "Your place: " in en[0].body_text and " of 2; your points: " in en[0].body_text
    assert f"Турнир №{tid} (Digest cup)" in ru[0].body_text and "Ваше место" in ru[0].body_text


def test_invitations_are_limited_by_day_and_a_refused_line_invites_nobody(club):
    """An address gets at most three tournament invitations a day, whoever sends them: the fourth
    line naming it is refused whole (nobody on it invited or mailed)."""
    mark = _last_outbound()
    for _ in range(3):
        assert "1 address is invited" in _say("c0@x.test", "TOURNAMENT NEW mini players=2 private invite=much@x.test")
    with unit_of_work() as s:
        before = len(list(s.exec(select(Tournament))))
    refused = _say("c1@x.test", "TOURNAMENT NEW mini players=2 private invite=fresh@x.test,much@x.test")
    assert "much@x.test has had 3 tournament invitations in the last day" in refused and "e.g." in refused
    with unit_of_work() as s:
        assert len(list(s.exec(select(Tournament)))) == before
    assert len(_mails("much@x.test", "invitation", mark)) == 3 and _mails("fresh@x.test", "", mark) == []
    assert "is open for entry" in _say("c0@x.test", "TOURNAMENT NEW mini players=2 private")
    refused = _say("c0@x.test", f"TOURNAMENT INVITE {_newest().id} other@x.test,much@x.test")
    assert "has had 3" in refused and _newest().invited == [] and _mails("other@x.test", "", mark) == []
