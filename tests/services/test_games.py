"""Services over a real database (SQLite and PostgreSQL): lifecycle, moves,
ply, stale replies, atomic batches, replay = cache, concurrency."""
import threading

import pytest
from sqlmodel import select

from pbem.engine import GameOverError, IllegalMoveError, NotYourTurnError
from pbem.services.core import accounts, games, lifecycle, moves, seating
from pbem.services.lobby import tables
from pbem.services.core.errors import Forbidden, StaleMoveError, UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Snapshot


def _users(s, n):
    return [accounts.register(s, f"p{i}@x.test", f"Player {i}")[0] for i in range(n)]


def _running(players=2, seed=5, hand=3):
    with unit_of_work() as s:
        us = _users(s, players)
        g = tables.create(s, us[0], "mini", players, {"hand": str(hand)}, seed=seed)
        for u in us[1:]:
            tables.join(s, u, g.id)
        return g.id, [u.id for u in us]


def test_lifecycle_and_moves(any_cfg):
    gid, _ = _running(2)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "running" and g.players == 2 and g.ply == 0
        state = games.state_at(s, g)
        hand = state.hands[0]
        res = moves.submit_moves(s, gid, 0, [f"play {hand[0]}"], source="web")
        assert res.ok and res.ply == 1 and [a.ply for a in res.applied] == [1]
    with unit_of_work() as s:
        res = moves.submit_moves(s, gid, 0, ["wait"], source="mail")
        assert isinstance(res.error, NotYourTurnError) and res.ply == 1
        assert "waiting for Player 1" in str(res.error)
        res = moves.submit_moves(s, gid, 1, ["play 0"], source="mail")
        assert isinstance(res.error, IllegalMoveError) and res.error.examples
        assert games.get(s, gid).ply == 1  # a bad move changes nothing


def test_prefix_batch_keeps_moves_before_the_failure(any_cfg):
    gid, _ = _running(1, hand=3)
    with unit_of_work() as s:
        res = moves.submit_moves(s, gid, 0, ["wait", "wait", "bogus", "wait"], source="mail")
        assert [a.ply for a in res.applied] == [1, 2]
        assert res.failed_text == "bogus" and res.not_applied == ["wait"]
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 2
        assert [m.ply for m in s.exec(select(Move).where(Move.game_id == gid))] == [1, 2]


def test_atomic_batch_applies_all_or_nothing(any_cfg, monkeypatch):
    from tests.minigame import MINI

    monkeypatch.setattr(MINI, "batch", "atomic")
    gid, _ = _running(1)
    with unit_of_work() as s:
        res = moves.submit_moves(s, gid, 0, ["wait", "wait", "bogus"], source="mail")
        assert res.applied == [] and [a.text for a in res.discarded] == ["wait", "wait"]
        assert games.get(s, gid).ply == 0


def test_cache_snapshots_and_replay_agree(any_cfg):
    from pbem import config

    config.set_settings(any_cfg.with_(snapshot_every=3))
    gid, _ = _running(1, hand=9)
    with unit_of_work() as s:
        for _ in range(7):
            assert moves.submit_moves(s, gid, 0, ["wait"], source="web").ok
        g = games.get(s, gid)
        state = games.state_at(s, g)
        assert MINI_json(state) == MINI_json(games.replay_state(s, g))
        for ply in range(0, 8):
            games.state_at(s, g, ply)  # every ply of the history can be rebuilt
        snaps = [x.ply for x in s.exec(select(Snapshot).where(Snapshot.game_id == gid).order_by(Snapshot.ply))]
        assert snaps == [0, 3, 6]


def MINI_json(state):
    from tests.minigame import MINI

    return MINI.to_json(state)


def test_finished_game_refuses_moves(any_cfg):
    gid, _ = _running(1, hand=1)
    with unit_of_work() as s:
        card = games.state_at(s, games.get(s, gid)).hands[0][0]
        res = moves.submit_moves(s, gid, 0, [f"play {card}"], source="web")
        assert res.over
        g = games.get(s, gid)
        assert g.status == "finished" and g.outcome["winners"] == [0]
        res = moves.submit_moves(s, gid, 0, ["wait"], source="web")
        assert isinstance(res.error, GameOverError)


def test_stale_reply_is_refused_only_when_the_position_changed(any_cfg):
    gid, _ = _running(2, hand=3)
    with unit_of_work() as s:
        g = games.get(s, gid)
        c0 = games.state_at(s, g).hands[0][0]
        assert moves.submit_moves(s, gid, 0, [f"play {c0}"], source="mail", expected_ply=0).ok
        c1 = games.state_at(s, games.get(s, gid)).hands[1][0]
        assert moves.submit_moves(s, gid, 1, [f"play {c1}"], source="mail", expected_ply=1).ok
        # seat 0 answers the board of ply 1 although seat 1 has played since
        res = moves.submit_moves(s, gid, 0, ["wait"], source="mail", expected_ply=1)
        assert isinstance(res.error, StaleMoveError) and "ply 1" in str(res.error)
        # ... and is fine against the current ply, or with no ply known
        assert moves.submit_moves(s, gid, 0, ["wait"], source="mail", expected_ply=2).ok


def test_join_start_rules(any_cfg):
    with unit_of_work() as s:
        a, b, c = _users(s, 3)
        g = tables.create(s, a, "mini", 3, {})
        with pytest.raises(UserError):
            tables.join(s, a, g.id)
        tables.join(s, b, g.id)
        with pytest.raises(Forbidden):
            lifecycle.start(s, g, by=b)
        lifecycle.start(s, g, by=a)
        assert g.players == 2
        with pytest.raises(UserError):
            tables.join(s, c, g.id)
        with pytest.raises(UserError):
            tables.create(s, a, "nosuchgame")
        with pytest.raises(UserError):
            tables.create(s, a, "mini", 9)
        with pytest.raises(UserError):
            tables.create(s, a, "mini", 2, {"colour": "red"})


@pytest.mark.parametrize("workers", [8])
def test_concurrent_submissions_lose_nothing_and_double_nothing(pg_cfg, workers):
    """Many transactions on one game at the same instant (PostgreSQL, row lock + CAS)."""
    gid, _ = _running(1, hand=3)
    barrier = threading.Barrier(workers)
    errors = []

    def submit():
        barrier.wait()
        try:
            for _ in range(5):
                with unit_of_work() as s:
                    assert moves.submit_moves(s, gid, 0, ["wait"], source="web").ok
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=submit) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with unit_of_work() as s:
        g = games.get(s, gid)
        plies = [m.ply for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]
        assert g.ply == workers * 5 and plies == list(range(1, workers * 5 + 1))
        assert games.state_at(s, g).waits == workers * 5


def test_thread_has_moves_and_posts_and_hides_private_ones(any_cfg):
    from pbem.services.core import thread, visibility

    gid, uids = _running(2)
    with unit_of_work() as s:
        from pbem.store.models import User

        ann, p1 = s.get(User, uids[0]), s.get(User, uids[1])
        g = games.get(s, gid)
        thread.post(s, g, ann, "good luck")
        card = games.state_at(s, g).hands[0][0]
        moves.submit_moves(s, gid, 0, [f"play {card}"], source="web", user_id=ann.id)
        thread.post(s, g, p1, "psst, Ann", to_seat=0)
        with pytest.raises(UserError):
            thread.post(s, g, ann, "   ")
        g = games.get(s, gid)
        assert [(p.kind, p.body) for p in visibility.posts(s, g, visibility.viewer(s, g, ann))] == [
            ("post", "good luck"), ("move", f"play {card}"), ("post", "psst, Ann")]
        assert [p.body for p in visibility.posts(s, g, visibility.Viewer())] == ["good luck", f"play {card}"]


def test_squire_seats_the_players_in_a_random_order_drawn_from_the_seed(any_cfg):
    """Squire RULES.md §3.3: the first player is drawn at random and is seat 0."""
    firsts = set()
    with unit_of_work() as s:
        users = _users(s, 3)
        for seed in range(12):
            g = tables.create(s, users[0], "squire", 3, seed=seed)
            tokens = {}
            for u in users[1:]:
                _, seat, _ = tables.join(s, u, g.id)
                tokens[u.id] = seat.token
            rows = seating.seats(s, g.id)
            assert sorted(r.seat for r in rows) == [0, 1, 2]
            assert all(tokens[r.user_id] == r.token for r in rows if r.user_id in tokens)
            firsts.add(next(r.user_id for r in rows if r.seat == 0))
        # spyrium draws its first player itself: its seats stay in joining order
        g = tables.create(s, users[0], "spyrium", 2, seed=1)
        tables.join(s, users[1], g.id)
        assert [r.user_id for r in seating.seats(s, g.id)] == [users[0].id, users[1].id]
    assert len(firsts) == 3  # over 12 seeds, each player sat first at least once
