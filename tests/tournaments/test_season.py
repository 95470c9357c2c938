"""A tournament in the store (pbem/services/lobby/tournaments/season.py): made, entered under its
conditions, its rounds started by its director as ordinary games, a leaver replaced by a bot and
left out of later rounds, the standings computed from the games, closed; every refusal changes
nothing. Played with the minimal test game, on SQLite, the games' moves sent as the web sends them."""
from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.services.core import accounts, games, moves as moves_service, seating as seats_core
from pbem.services.core.errors import UserError
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.store.models import TournamentEntry, User, utcnow
from pbem.engine import get_game


def _people(n):
    with unit_of_work() as s:
        return [accounts.register(s, f"p{i}@x.test", f"P{i}", confirmed=True)[0] for i in range(n)]


def _play_out(game_id: int) -> None:
    """Every seat plays its first legal move until the game ends (a bot's seat included)."""
    engine = get_game("mini")
    for _ in range(100):
        with unit_of_work() as s:
            g = games.get(s, game_id)
            if g.status != "running":
                return
            state = games.state_at(s, g)
            seat = min(engine.to_move(state))
            text = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            assert moves_service.submit_moves(s, game_id, seat, [text], source="web").ok
    raise AssertionError("the game did not end")


def _refused(fn, match):
    with unit_of_work() as s, pytest.raises(UserError, match=match) as e:
        fn(s)
    assert e.value.example  # every refusal shows a legal example
    return e.value


def test_a_league_from_entry_to_close(sqlite_cfg):
    people = _people(9)
    director, *players = people
    with unit_of_work() as s:
        tid = season.create(s, director, "mini", name="Winter league", table_size=3, options={"hand": "1"},
                            rounds=2, max_entries=7, password="owl42", seed=3).id
    _refused(lambda s: season.create(s, director, "mini", table_size=9), "a table of")
    _refused(lambda s: season.create(s, director, "mini", format="ladder"), "format")
    _refused(lambda s: season.create(s, director, "mini", table_size=3, points="1-2-3"), "points")
    _refused(lambda s: season.join(s, players[0], tid), "password")
    for p in players[:6] + [director]:
        with unit_of_work() as s:
            season.join(s, p, tid, "owl42")
    _refused(lambda s: season.join(s, players[6], tid, "owl42"), "full")
    _refused(lambda s: season.join(s, players[0], tid, "owl42"), "already entered")
    _refused(lambda s: season.start_round(s, players[0], tid), "only the director")
    _refused(lambda s: season.close(s, players[0], tid), "only the director")
    with unit_of_work() as s:
        assert len(season.entries(s, season.get(s, tid))) == 7  # the refusals changed nothing

    with unit_of_work() as s:
        t, rnd, made = season.start_round(s, director, tid)
        assert (t.status, t.round, rnd.byes) == ("running", 1, [])
        assert sorted(g.players for g in made) == [2, 2, 3]  # 7 at tables of 3: 3, 2, 2
        assert all(g.status == "running" for g in made)
        gids = [g.id for g in made]
        seated = sorted(p for row in season.tables_of(s, t, 1) for p in row.players)
        assert seated == sorted(e.user_id for e in season.entries(s, t))
    _refused(lambda s: season.start_round(s, director, tid), "still being played")
    _refused(lambda s: season.join(s, players[6], tid, "owl42"), "closed")

    # a player leaves in round 1: a bot plays their seat to the end, they sit out round 2
    leaver = players[0]
    with unit_of_work() as s:
        left = season.leave(s, leaver, tid)
        assert len(left.games) == 1
        seat = seats_core.seat_of(s, left.games[0].id, leaver.id)
        assert seat.is_bot and seat.resigned
    for gid in gids:
        _play_out(gid)
    with unit_of_work() as s:
        t = season.get(s, tid)
        rows = season.standings(s, t)
        assert len(rows) == 7 and rows[0].place == 1
        gone = next(r for r in rows if r.player == leaver.id)
        assert (gone.points, gone.forfeits) == (0.0, 1)
        assert sum(r.played for r in rows) == 7

    with unit_of_work() as s:
        t, rnd, made = season.start_round(s, director, tid)
        seated = {p for row in season.tables_of(s, t, 2) for p in row.players}
        assert leaver.id not in seated and len(seated) == 6
        assert all(g.options == {"hand": 1} or g.options == {"hand": "1"} for g in made)
        gids = [g.id for g in made]
    for gid in gids:
        _play_out(gid)
    _refused(lambda s: season.start_round(s, director, tid), "every round")
    with unit_of_work() as s:
        t = season.close(s, director, tid)
        assert t.status == "finished"
        rows = season.standings(s, t)
        assert sum(r.played for r in rows) == 13
    _refused(lambda s: season.leave(s, players[1], tid), "over")


def test_entry_conditions_window_rating_reliability_and_invitations(sqlite_cfg):
    director, ann, bob, cy = _people(4)
    with unit_of_work() as s:
        bob_row = s.get(type(bob), bob.id)
        bob_row.turns_on_time, bob_row.turns_late = 1, 9  # 10% on time
        s.add(bob_row)
        closed = season.create(s, director, "mini", table_size=2, entry_days=1, now=utcnow() - timedelta(days=2)).id
        rated = season.create(s, director, "mini", table_size=2, min_rating=5).id
        reliable = season.create(s, director, "mini", table_size=2, min_reliability=50).id
        invited = season.create(s, director, "mini", table_size=2, access="private", invited=["P1@X.test"]).id
    _refused(lambda s: season.join(s, ann, closed), "closed")
    _refused(lambda s: season.join(s, ann, rated), "rated 5 or more")
    _refused(lambda s: season.join(s, s.get(User, bob.id), reliable), "reliability is 50% or more")
    _refused(lambda s: season.join(s, bob, invited), "invitation only")
    with unit_of_work() as s:
        season.join(s, ann, reliable)
        season.join(s, ann, invited)
        assert season.may_see(s, season.get(s, invited), ann) and not season.may_see(s, season.get(s, invited), cy)
        assert [t.id for t in season.list_shown(s, cy)] == [reliable, rated, closed]
        n = len(list(s.exec(select(TournamentEntry))))
    assert n == 2
    # before its first round the director's CLOSE cancels it
    with unit_of_work() as s:
        assert season.close(s, director, invited).status == "cancelled"


def test_a_round_robin_and_an_elimination_run_to_their_end(sqlite_cfg):
    people = _people(6)
    with unit_of_work() as s:
        robin = season.create(s, people[0], "mini", table_size=3, format="robin", options={"hand": "1"}, seed=1).id
        elim = season.create(s, people[0], "mini", table_size=3, format="elimination", advance=1,
                             options={"hand": "1"}, seed=1).id
        for p in people:
            season.join(s, p, robin)
            season.join(s, p, elim)
    for tid, rounds in ((robin, None), (elim, 2)):
        played = 0
        while True:
            with unit_of_work() as s:
                t = season.get(s, tid)
                if season.is_complete(s, t):
                    break
                _, _, made = season.start_round(s, people[0], tid)
                gids = [g.id for g in made]
            played += 1
            for gid in gids:
                _play_out(gid)
        with unit_of_work() as s:
            t = season.get(s, tid)
            if rounds:
                assert played == rounds  # 6 at tables of 3, the winners to a final of 2
                assert len(season.tables_of(s, t, 2)) == 1
            else:
                assert played == season.last_round(s, t) >= 3
                met = {frozenset((a, b)) for row in season.tables_of(s, t) for a in row.players for b in row.players if a != b}
                assert len(met) == 15  # every pair met
            season.close(s, people[0], tid)


def test_a_password_cannot_be_found_by_trying_many(sqlite_cfg):
    """Wrong or missing words are counted per player and tournament, as for a password game: after
    the most an hour takes, even the right word is refused for that player, and another's tries are
    their own. A refused try is kept though nothing else changes, as when a mail's line is refused."""
    from pbem.services.lobby import tables

    director, guesser, friend = _people(3)
    with unit_of_work() as s:
        tid = season.create(s, director, "mini", table_size=3, options={"hand": "1"}, password="owl42", seed=3).id
    for word in [None] + [f"owl{n}" for n in range(tables.MAX_TRIES - 1)]:
        with unit_of_work() as s, pytest.raises(tables.WrongPassword) as e:
            season.join(s, guesser, tid, word)
        assert e.value.example == f"TOURNAMENT JOIN {tid} <password>"
        assert ("needs its password" if word is None else "not the password") in e.value.message
    refused = _refused(lambda s: season.join(s, guesser, tid, "owl42"), f"wrong password {tables.MAX_TRIES} times")
    assert refused.code == "too_many_tries"
    with unit_of_work() as s:
        season.join(s, friend, tid, "owl42")
        assert [e.user_id for e in season.entries(s, season.get(s, tid))] == [friend.id]
