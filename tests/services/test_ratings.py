"""Ratings and reliability: a game played to its end by mail rates
its players exactly as openskill's Plackett-Luce ``rate`` does from default
ratings; once, even when the game ends again after a take-back; the deadline
sweep counts a missed deadline, a move in time a turn on time; a game's
minimum reliability refuses JOIN by mail to a player below it, and lets a new
player in."""
from __future__ import annotations

from datetime import timedelta

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import update
from sqlmodel import select

from pbem.services.core import accounts, clocks, games, moves, reliability, seating
from pbem.services.lobby import ratings, tables
from pbem.services.referee import undo
from pbem.services.upkeep import sweep
from pbem.store.db import unit_of_work
from pbem.store.models import Game, GameResult, Rating, User
from tests.mailtools import CMD, outbox, process, seat_addr, start_game

EMAILS = ["ann@x.test", "p1@x.test", "p2@x.test"]


def _play_to_the_end(gid: int) -> None:
    """Each seat to move plays its first legal move, by mail from its own address, until the game ends."""
    for _ in range(50):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                return
            engine, state = games.engine_for(g), games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            email = s.get(User, seating.seats(s, gid)[seat].user_id).email
        _, status = process(email, seat_addr(gid, seat), move)
        assert status == "done"
    raise AssertionError("the game did not end")


def _expected_ranks(outcome: dict) -> list[int]:
    """The mini game: highest score wins, ties share; 1 + the seats that scored more."""
    scores = outcome["scores"]
    return [1 + sum(1 for o in scores if o > sc) for sc in scores]


def _user_ids(gid: int) -> list[int]:
    with unit_of_work() as s:
        return [x.user_id for x in seating.seats(s, gid)]


def test_a_game_finished_by_mail_rates_its_players_as_openskill_does(any_cfg):
    gid = start_game(3, hand=2)
    _play_to_the_end(gid)
    model = PlackettLuce()
    uids = _user_ids(gid)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        ranks = _expected_ranks(g.outcome)
        expected = model.rate([[model.rating()] for _ in uids], ranks=ranks)
        rows = {r.user_id: r for r in s.exec(select(Rating).where(Rating.game == "mini"))}
        assert set(rows) == set(uids)
        for uid, rank, (new,) in zip(uids, ranks, expected):
            assert rows[uid].mu == pytest.approx(new.mu, abs=1e-9)
            assert rows[uid].sigma == pytest.approx(new.sigma, abs=1e-9)
            assert rows[uid].games == 1
        results = {r.seat: r for r in s.exec(select(GameResult).where(GameResult.game_id == gid))}
        assert [results[i].rank for i in range(3)] == ranks
        assert [results[i].score for i in range(3)] == g.outcome["scores"]
        assert all(r.mu_before == model.mu and r.sigma_before == model.sigma for r in results.values())
        assert all(s.get(User, u).games_finished == 1 for u in uids)
    # the final mail's result and a second game start from the stored ratings
    gid2 = start_game(3, hand=1)
    _play_to_the_end(gid2)
    uids2 = _user_ids(gid2)
    with unit_of_work() as s:
        g2 = s.get(Game, gid2)
        before = [model.rating(mu=expected[uids.index(u)][0].mu, sigma=expected[uids.index(u)][0].sigma)
                  for u in uids2]
        after = model.rate([[r] for r in before], ranks=_expected_ranks(g2.outcome))
        rows = {r.user_id: r for r in s.exec(select(Rating).where(Rating.game == "mini"))}
        for u, (new,) in zip(uids2, after):
            assert (rows[u].mu, rows[u].sigma, rows[u].games) == (pytest.approx(new.mu), pytest.approx(new.sigma), 2)
        shown = ratings.of_user(s, uids2[0])
        assert shown[0].rating == round(after[0][0].mu - 3 * after[0][0].sigma, 1)


def test_a_game_that_ends_twice_is_rated_once(sqlite_cfg):
    gid = start_game(2, hand=1)
    _play_to_the_end(gid)
    with unit_of_work() as s:
        first = {(r.user_id, r.mu, r.sigma, r.games) for r in s.exec(select(Rating))}
        assert len(first) == 2
        g = games.get(s, gid, lock=True)
        assert ratings.finished(s, g) == []  # asked again: nothing more
        last = g.ply
        undone = undo.rewind(s, g, last - 1)  # an admin's take-back of the last move: the game runs again
        assert g.status == "running" and len(undone) == 1
        again = moves.submit_moves(s, gid, undone[0].seat, [undone[0].notation], source="admin")
        assert again.ok and games.get(s, gid).status == "finished"
    uids = _user_ids(gid)
    with unit_of_work() as s:
        assert {(r.user_id, r.mu, r.sigma, r.games) for r in s.exec(select(Rating))} == first
        assert len(s.exec(select(GameResult).where(GameResult.game_id == gid)).all()) == 2
        assert all(s.get(User, u).games_finished == 1 for u in uids)


def test_a_solo_game_records_its_result_and_rates_nobody(sqlite_cfg):
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 1, {"hand": "1"}, seed=4)
        card = games.state_at(s, g).hands[0][0]
        assert moves.submit_moves(s, g.id, 0, [f"play {card}"], source="web").over
        gid, uid = g.id, ann.id
    with unit_of_work() as s:
        (res,) = s.exec(select(GameResult).where(GameResult.game_id == gid)).all()
        assert (res.user_id, res.rank, res.mu_before, res.mu_after) == (uid, 1, 25.0, 25.0)
        assert s.exec(select(Rating)).all() == []
        assert s.get(User, uid).games_finished == 1


def test_the_sweep_counts_a_missed_deadline_and_a_move_in_time_a_turn_on_time(sqlite_cfg):
    gid = start_game(2, hand=2)
    with unit_of_work() as s:
        g = games.get(s, gid)
        to_move = sorted(games.engine_for(g).to_move(games.state_at(s, g)))[0]
        late_seat = seating.seats(s, gid)[to_move]
        late_uid, deadline = late_seat.user_id, clocks.aware(late_seat.deadline_at)
        other_uid = seating.seats(s, gid)[1 - to_move].user_id
    done = sweep.run(deadline + timedelta(hours=2))  # past the deadline and its grace: told late
    assert done["late"] == 1
    sweep.run(deadline + timedelta(hours=3))  # again: the same deadline is not counted twice
    with unit_of_work() as s:
        late = reliability.of(s.get(User, late_uid))
        assert (late.on_time, late.late, late.left) == (0, 1, 0)
        email = s.get(User, late_uid).email
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        move = engine.format_move(state, to_move, engine.legal_moves(state, to_move)[0])
    process(email, seat_addr(gid, to_move), move)  # the late move: its deadline counted already
    with unit_of_work() as s:
        assert reliability.of(s.get(User, late_uid)).late == 1
        assert reliability.of(s.get(User, late_uid)).on_time == 0
        other = s.get(User, other_uid)
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        move = engine.format_move(state, 1 - to_move, engine.legal_moves(state, 1 - to_move)[0])
    process(other.email, seat_addr(gid, 1 - to_move), move)  # in time
    with unit_of_work() as s:
        fig = reliability.of(s.get(User, other_uid))
        assert (fig.on_time, fig.late) == (1, 0) and fig.is_new  # one event: still a new player


def test_reliability_figure_and_new_players():
    u = User(email="a@x.test", name="A", turns_on_time=9, turns_late=1, games_left=0)
    assert reliability.of(u).percent == 90
    u.games_left = 1
    assert reliability.of(u).percent == 81  # floor(100 * 9 / 11)
    assert reliability.of(User(email="b@x.test", name="B", turns_on_time=4)).is_new


def _set_record(email: str, on_time: int, late: int) -> None:
    """A player's past record (test setup: as if counted by earlier games)."""
    with unit_of_work() as s:
        s.exec(update(User).where(User.email == email).values(turns_on_time=on_time, turns_late=late))


def test_min_reliability_refuses_join_by_mail_below_it_and_lets_new_players_in(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("bob@x.test", CMD, "REGISTER Bob")
    process("cleo@x.test", CMD, "REGISTER Cleo")
    _set_record("bob@x.test", on_time=7, late=3)  # 70%
    process("ann@x.test", CMD, "NEW mini players=3 min_reliability=90")
    with unit_of_work() as s:
        g = s.exec(select(Game).order_by(Game.id.desc())).first()
        gid = g.id
        assert g.min_reliability == 90
    process("dai@x.test", CMD, "REGISTER Dai")
    process("dai@x.test", CMD, "GAMES")
    listing = outbox("dai@x.test")[-1].body_text
    assert f"#{gid} Mini (test game): open" in listing
    assert "players need a reliability of at least 90%" in listing
    assert "Ann (rating 0.0)" in listing
    _, status = process("bob@x.test", CMD, f"JOIN {gid}")
    reply = " ".join(outbox("bob@x.test")[-1].body_text.split())
    assert f"game #{gid} asks for a reliability of at least 90%, and yours is 70%" in reply
    assert "7 turns on time, 3 late, 0 games left" in reply
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 1  # nothing changed
    process("cleo@x.test", CMD, f"JOIN {gid}")  # a new player: no figure yet, may join
    with unit_of_work() as s:
        assert [s.get(User, x.user_id).name for x in seating.seats(s, gid)] == ["Ann", "Cleo"]
    _set_record("bob@x.test", on_time=19, late=1)  # 95%
    process("bob@x.test", CMD, f"JOIN {gid}")
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 3 and games.get(s, gid).status == "running"


def test_a_bad_min_reliability_is_refused_with_an_example(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "NEW mini players=2 min_reliability=150")
    reply = outbox("ann@x.test")[-1].body_text
    assert "min_reliability is a percent from 0 to 100 (got '150')" in reply
    assert "NEW spyrium players=4 min_reliability=90" in reply
    with unit_of_work() as s:
        assert s.exec(select(Game)).first() is None


def test_resigning_a_running_game_counts_as_a_game_left(sqlite_cfg):
    from pbem.services.lobby import seats

    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 2, {}, seed=3)
        tables.join(s, bob, g.id)
        seats.resign(s, bob, g.id)
        assert bob.games_left == 1  # read again from the row the UPDATE counted in
    with unit_of_work() as s:
        assert reliability.of(s.get(User, bob.id)).left == 1


def test_an_abandoned_seat_counts_a_missed_deadline_and_a_game_left(sqlite_cfg):
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 2, {}, seed=3, policy="abandon")
        g.abandon_after = 1
        s.add(g)
        tables.join(s, bob, g.id)
        seat = seating.seats(s, g.id)[sorted(games.engine_for(g).to_move(games.state_at(s, g)))[0]]
        uid, deadline = seat.user_id, clocks.aware(seat.deadline_at)
    done = sweep.run(deadline + timedelta(hours=2))
    assert done["abandoned"] == 1
    with unit_of_work() as s:
        fig = reliability.of(s.get(User, uid))
        assert (fig.on_time, fig.late, fig.left, fig.finished) == (0, 1, 1, 0)


def test_two_games_ending_at_once_for_the_same_new_players_rate_both(pg_cfg):
    """PostgreSQL, two transactions at the same instant: the players' first rating rows are made once
    (ON CONFLICT DO NOTHING), the second game waits for the first's lock and rates from its result."""
    import threading

    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        gids = []
        for seed in (3, 4):
            g = tables.create(s, ann, "mini", 2, {"hand": "1"}, seed=seed)
            tables.join(s, bob, g.id)
            gids.append(g.id)
        uids = (ann.id, bob.id)
    last = {}
    for gid in gids:  # each game one move from its end
        with unit_of_work() as s:
            g = games.get(s, gid)
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            first_move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
            assert moves.submit_moves(s, gid, seat, [first_move], source="web").ok
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            last[gid] = (seat, engine.format_move(state, seat, engine.legal_moves(state, seat)[0]))
    barrier, errors = threading.Barrier(2), []

    def finish(gid):
        try:
            barrier.wait()
            with unit_of_work() as s:
                assert moves.submit_moves(s, gid, last[gid][0], [last[gid][1]], source="web").over
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=finish, args=(gid,)) for gid in gids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    model = PlackettLuce()
    with unit_of_work() as s:
        outcomes = {gid: s.get(Game, gid).outcome for gid in gids}
        seat_of = {gid: {x.user_id: x.seat for x in seating.seats(s, gid)} for gid in gids}
        rows = {r.user_id: r for r in s.exec(select(Rating))}
        first = s.exec(select(GameResult.game_id).order_by(GameResult.id)).first()
    order = [first] + [g for g in gids if g != first]
    current = {u: model.rating() for u in uids}
    for gid in order:  # the library, one game after the other, in the order they committed
        ranks = _expected_ranks(outcomes[gid])
        new = model.rate([[current[u]] for u in uids], ranks=[ranks[seat_of[gid][u]] for u in uids])
        current = {u: r for u, (r,) in zip(uids, new)}
    for u in uids:
        assert (rows[u].mu, rows[u].sigma, rows[u].games) == (pytest.approx(current[u].mu),
                                                              pytest.approx(current[u].sigma), 2)
