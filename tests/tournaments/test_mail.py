"""TOURNAMENT by mail, through the pipeline (pbem/mail/commands/tournaments.py): a tournament made,
entered, started, read and closed by mail; bad lines refused with the reason and an example,
changing nothing; and a 9-player league of 3-player tables over 3 rounds played to its end, each
move mailed from its seat's address as a bot chose it (the test game, one card a hand), one player
leaving mid-season and a bot finishing their game."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.engine import bots as engine_bots, get_game
from pbem.services.core import games, seating
from pbem.services.lobby.tournaments import season
from pbem.services.turns import bots
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Outbound, Tournament, TournamentEntry, TournamentTable, User
from tests.mailtools import CMD, confirm, outbox, process, seat_addr


def _say(frm: str, text: str) -> str:
    """Send ``text`` to the command address from ``frm``; the reply's text."""
    with unit_of_work() as s:
        before = s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0
    iid, status = process(frm, CMD, text)
    assert status == "done"
    with unit_of_work() as s:
        rows = list(s.exec(select(Outbound).where(Outbound.id > before, Outbound.to_addr == frm,
                                                  Outbound.kind == "reply")))
        result = s.get(Inbound, iid).result or ""
    assert rows, result
    return rows[-1].body_text


def _count(model) -> int:
    with unit_of_work() as s:
        return len(list(s.exec(select(model))))


def _play_round(tid: int, number: int) -> None:
    """Every game of the round to its end: each move chosen by an easy bot and mailed from the seat's
    own address (a seat a bot holds is played as the sweep and the bot workers play it)."""
    with unit_of_work() as s:
        gids = [r.game_id for r in season.tables_of(s, s.get(Tournament, tid), number)]
    engine = get_game("mini")
    for gid in gids:
        for k in range(60):
            with unit_of_work() as s:
                g = games.get(s, gid)
                if g.status != "running":
                    break
                state = games.state_at(s, g)
                seat = min(engine.to_move(state))
                row = seating.seats(s, gid)[seat]
                is_bot = row.is_bot
                move = engine.format_move(state, seat, engine_bots.choose(engine, state, seat, seed=gid * 100 + k, level="easy"))
                email = s.get(User, row.user_id).email
            if is_bot:  # as the deadline sweep or a bot worker plays a seat a bot holds
                assert bots.stand_in(gid, seat, "holds") is not None
            else:
                iid, status = process(email, seat_addr(gid, seat), move)
                with unit_of_work() as s:
                    assert status == "done" and (s.get(Inbound, iid).result or "").startswith("OK"), \
                        s.get(Inbound, iid).result
        with unit_of_work() as s:
            assert games.get(s, gid).status == "finished"


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """Ten registered players (the first directs), on one SQLite database for the module."""
    from tests.conftest import installed, make_settings

    with installed(make_settings(tmp_path_factory.mktemp("club"))) as cfg:
        for i in range(10):
            process(f"p{i}@x.test", CMD, f"REGISTER P{i}")
        yield cfg


def test_bad_tournament_lines_are_refused_with_an_example_and_change_nothing(club):
    before = (_count(Tournament), _count(TournamentEntry))
    assert "TOURNAMENT is followed by one of" in _say("p1@x.test", "TOURNAMENT PLAY 3")
    assert "e.g. TOURNAMENT LIST" in _say("p1@x.test", "TOURNAMENT PLAY 3")
    assert "a tournament's number" in _say("p1@x.test", "TOURNAMENT JOIN")
    assert "there is no tournament #999" in _say("p1@x.test", "TOURNAMENT JOIN 999")
    answer = _say("p1@x.test", "TOURNAMENT NEW mini players=9")
    assert "a table of" in answer and "e.g. TOURNAMENT NEW" in answer
    assert "the format is one of" in _say("p1@x.test", "TOURNAMENT NEW mini players=2 format=ladder")
    assert (_count(Tournament), _count(TournamentEntry)) == before

    answer = _say("p0@x.test", "TOURNAMENT NEW mini players=2 max=2 name=Quick pair hand=1")
    assert "is open for entry" in answer
    with unit_of_work() as s:
        t = s.exec(select(Tournament).order_by(Tournament.id.desc())).first()
        tid, name = t.id, t.name
    assert name == "Quick pair"
    assert "you have entered" in _say("p1@x.test", f"TOURNAMENT JOIN {tid}")
    assert "you have entered" in _say("p2@x.test", f"TOURNAMENT JOIN {tid}")
    full = _say("p3@x.test", f"TOURNAMENT JOIN {tid}")
    assert "is full" in full and "e.g." in full
    refused = _say("p1@x.test", f"TOURNAMENT START {tid}")
    assert "only the director" in refused and "e.g." in refused
    assert "has started at 1 table" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    late = _say("p4@x.test", f"TOURNAMENT JOIN {tid}")
    assert "entry to tournament" in late and "closed" in late
    status = _say("p3@x.test", f"TOURNAMENT STATUS {tid}")
    assert "round 1 is being played" in status and "table 1: game #" in status
    assert "still being played" in _say("p0@x.test", f"TOURNAMENT CLOSE {tid}")
    with unit_of_work() as s:
        assert len(season.entries(s, s.get(Tournament, tid))) == 2


def test_a_nine_player_league_by_mail_to_its_end(club):
    answer = _say("p0@x.test", "TOURNAMENT NEW mini players=3 rounds=3 hand=1 name=Autumn league")
    with unit_of_work() as s:
        tid = s.exec(select(Tournament.id).order_by(Tournament.id.desc())).first()
    assert f"TOURNAMENT JOIN {tid}" in answer
    for i in range(1, 10):
        assert "you have entered" in _say(f"p{i}@x.test", f"TOURNAMENT JOIN {tid}")
    for number in (1, 2, 3):
        assert f"round {number} of tournament #{tid} has started at 3 tables" in \
            _say("p0@x.test", f"TOURNAMENT START {tid}")
        if number == 1:  # every player has the board of their table's game, headed by the tournament's round
            with unit_of_work() as s:
                boards = [o for o in s.exec(select(Outbound).where(Outbound.kind == "board"))
                          if f"Tournament #{tid}, round 1" in o.body_text]
            assert {o.to_addr for o in boards} == {f"p{i}@x.test" for i in range(1, 10)}
        if number == 2:  # P9 leaves mid-season: a bot finishes their game, and they sit out round 3
            # leaving cannot be undone: it waits for P9's confirmation, and nothing changes until then
            _, status = process("p9@x.test", CMD, f"TOURNAMENT LEAVE {tid}")
            assert status == "done"
            asks = [o for o in outbox("p9@x.test") if o.kind == "confirm"]
            assert asks and f"TOURNAMENT LEAVE {tid}" in asks[-1].body_text
            with unit_of_work() as s:
                assert s.exec(select(TournamentEntry).where(TournamentEntry.tournament_id == tid,
                                                            TournamentEntry.left_round.is_not(None))).first() is None
            _, status = confirm("p9@x.test")
            assert status == "done"
            with unit_of_work() as s:
                left = s.exec(select(TournamentEntry).where(TournamentEntry.tournament_id == tid,
                                                            TournamentEntry.left_round.is_not(None))).all()
                assert [e.left_round for e in left] == [2]
            assert "a bot plays your seat" in [o for o in outbox("p9@x.test") if o.kind == "reply"][-1].body_text
        _play_round(tid, number)
    assert "every round" in _say("p0@x.test", f"TOURNAMENT START {tid}")
    standings = _say("p5@x.test", f"TOURNAMENT STANDINGS {tid}")
    assert standings.count(" won)") == 9 and "P9" in standings
    assert "final standings" in _say("p0@x.test", f"TOURNAMENT CLOSE {tid}")
    with unit_of_work() as s:
        t = s.get(Tournament, tid)
        rows = season.standings(s, t)
        assert t.status == "finished" and sum(r.played for r in rows) == 26  # 27 seats, P9 out of round 3
        tables = list(s.exec(select(TournamentTable).where(TournamentTable.tournament_id == tid)))
        assert len(tables) == 8 + 1 or len(tables) == 9
        met = {}
        for r in tables:
            for a in r.players:
                for b in r.players:
                    if a < b and r.round <= 2:
                        met[(a, b)] = met.get((a, b), 0) + 1
        # nine at tables of three: nobody met twice while all nine played (round 3, with one gone, may
        # have to seat a pair again)
        assert max(met.values()) == 1
        p9 = s.exec(select(User).where(User.email == "p9@x.test")).one()
        assert p9.id not in {p for r in tables if r.round == 3 for p in r.players}
        assert all(s.get(Game, r.game_id).status == "finished" for r in tables)
