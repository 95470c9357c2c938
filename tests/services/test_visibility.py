"""services/core/visibility, the one door for what a viewer may see: which plies are secret,
however long a simultaneous step runs, on SQLite and PostgreSQL."""
from __future__ import annotations

import random

from pbem.engine import get_game
from pbem.services.core import accounts, games, moves, seating, visibility
from pbem.services.lobby import tables
from pbem.services.referee import undo
from pbem.store.db import unit_of_work
from tests.security.concealed import Record, busy


def _five_player_iaww(seed=11) -> int:
    with unit_of_work() as s:
        users = [accounts.register(s, f"v{i}@x.test", f"V{i}", confirmed=True)[0] for i in range(5)]
        g = tables.create(s, users[0], "iaww", 5, {}, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        return g.id


def test_secret_plies_are_the_whole_unrevealed_step_however_long(any_cfg):
    """Five players plan one decision at a time: a planning step of more than 64 plies. After
    every ply the door's secret plies are exactly the step's, worked out from the engine states
    the test drives (Record), and a seat's own secret plies are never hidden from it."""
    engine = get_game("iaww")
    gid = _five_player_iaww()
    rng, rec = random.Random(3), Record()
    deepest = 0
    while True:
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            seat = rng.choice(sorted(engine.to_move(state)))
            move = busy(rng, engine.legal_moves(state, seat))
            res = moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
            assert res.ok
            rec.applied(engine, state, seat, res)
            hidden = visibility.secrets(s, g)
            assert set(hidden.movers) == set(rec.secret), g.ply
            for viewer in (None, *range(5)):
                assert {p for p in hidden.movers if hidden.hides(p, viewer)} == rec.concealed_from(viewer)
        if rec.secret:
            deepest = max(deepest, g.ply - min(rec.secret) + 1)
        elif deepest > 64:
            break  # a step longer than the old window was followed to its reveal
        assert g.ply < 400, "no planning step longer than 64 plies"


def test_a_pick_taken_back_stays_secret_after_the_reveal(sqlite_cfg):
    """A pick undone before the reveal was never shown: not after the step is revealed either."""
    engine = get_game("iaww")
    with unit_of_work() as s:
        users = [accounts.register(s, f"w{i}@x.test", f"W{i}", confirmed=True)[0] for i in range(2)]
        g = tables.create(s, users[0], "iaww", 2, {}, seed=3)
        tables.join(s, users[1], g.id)
        gid = g.id
        mover = {x.seat: x.user_id for x in seating.seats(s, gid)}
    with unit_of_work() as s:
        g = games.get(s, gid)
        state = games.state_at(s, g)
        first = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
        assert moves.submit_moves(s, gid, 0, [first], source="web").ok
        from pbem.store.models import User

        req, _ = undo.request(s, s.get(User, mover[0]), gid)
        undo.vote(s, s.get(User, mover[1]), gid, True)
    with unit_of_work() as s:
        g = games.get(s, gid)
        state = games.state_at(s, g)
        for seat in (0, 1):
            move = engine.legal_moves(state, seat)[-1]
            assert moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web").ok
            state = games.state_at(s, games.get(s, gid))
    with unit_of_work() as s:
        g = games.get(s, gid)
        rows = {m.ply: m for m in visibility.moves(s, g, visibility.Viewer(seat=1))}
        own = {m.ply: m for m in visibility.moves(s, g, visibility.Viewer(seat=0))}
    assert rows[1].undone and rows[1].hidden and own[1].notation == first
    assert not rows[2].hidden and not rows[3].hidden  # the live picks: revealed together


def test_a_player_who_resigned_sees_the_game_as_a_stranger(sqlite_cfg):
    """Once a player resigns, a bot holds the seat until a replacement takes it over: what it is
    dealt meanwhile is not the resigned player's to see (their seat row stays for the history)."""
    from pbem.services.lobby import seats
    from pbem.store.models import User

    with unit_of_work() as s:
        users = [accounts.register(s, f"r{i}@x.test", f"R{i}", confirmed=True)[0] for i in range(2)]
        g = tables.create(s, users[0], "iaww", 2, {}, seed=3)
        tables.join(s, users[1], g.id)
        gid, uid = g.id, users[1].id
    with unit_of_work() as s:
        g = games.get(s, gid)
        seat = seating.seat_of(s, gid, uid).seat
        assert visibility.viewer(s, g, s.get(User, uid)).seat == seat
        seats.resign(s, s.get(User, uid), gid)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert seating.seat_of(s, gid, uid).resigned
        assert visibility.viewer(s, g, s.get(User, uid)) == visibility.Viewer(uid, None, False)
