"""Long, busy playouts (a policy that rarely passes) checking the conservation laws of
RULES.md: 24 tokens (§7), owned workers (§10), no debt (§5.0), turned/flags reset (§3.4)."""
import random

import pytest

from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import EV_WINDFALL
from pbem.engine.spyrium.state import PASS, PLACE


def _tokens(st):
    n = len(st.supply) + len(st.discard) + sum(len(t) for t in st.mtok) + sum(len(p.kept) for p in st.ps)
    n += (st.cur_token > 0) + (st.fut_token > 0)
    return n


def _busy(rng, st, legal):
    """Place while possible, then act; pass rarely."""
    p = st.ps[st.turn]
    keep = []
    if p.phase == 1 and p.active and rng.random() < 0.8:
        keep = [m for m in legal if m[0] == PLACE]
    if not keep:
        keep = [m for m in legal if m[0] != PASS] if rng.random() < 0.95 else legal
    keep = keep or legal
    return keep[rng.randrange(len(keep))]


@pytest.mark.parametrize("n,seed", [(n, s) for n in (2, 3, 4, 5) for s in range(1, 9)])
def test_busy_playouts_keep_the_invariants(n, seed):
    rng = random.Random(seed)
    st = GAME.initial_state(n, seed, {})
    seen = set()
    rounds = 1
    while not st.over:
        assert _tokens(st) == 24
        assert st.fut_token == 0 or (st.events and st.events[0] == EV_WINDFALL)
        for s, p in enumerate(st.ps):
            market = sum(sp.count(s) for sp in st.spaces)
            assert p.owned == p.active + market + p.used + p.onbld and 3 <= p.owned <= 7
            assert p.money >= 0 and p.spy >= 0 and 2 <= p.res <= 7 and len(p.kept) <= 7
            assert len(p.lots) == len(p.turned)
            # §10: each worker on a building stands on one lot (the setup player has no lots yet)
            assert sum(p.lotw) == p.onbld and len(p.lotw) in (0, len(p.lots)) and min(p.lotw, default=0) >= 0
        seat = st.turn
        legal = GAME.legal_moves(st, seat)
        move = _busy(rng, st, legal)
        seen.add(GAME.format_move(st, seat, move).replace("phase2 ", "").split()[0])
        after = GAME.apply(st, seat, move)
        if after.round != st.round:
            rounds += 1
            assert all(not any(p.turned) and not (p.lobused or p.comused or p.tayused or p.evused)
                       for p in after.ps)
            assert after.first == (st.first + 1) % n
        st = after
    assert rounds == 6 and GAME.outcome(st) is not None
    assert {"place", "earn", "act", "pass"} <= seen


def test_fast_constructors_give_ordinary_frozen_instances():
    import dataclasses

    from pbem.engine.spyrium.state import Player, State, new_player, new_state

    st = GAME.initial_state(3, 5, {})
    p = st.ps[0]
    args = [getattr(p, f.name) for f in dataclasses.fields(Player)]
    q = new_player(*args)
    assert type(q) is Player and q == p and hash(q) == hash(p) and repr(q) == repr(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.money = 1
    sargs = [getattr(st, f.name) for f in dataclasses.fields(State) if f.name != "cache"]
    st2 = new_state(*sargs)
    assert type(st2) is State and st2 == State(*sargs) and st2.cache is None
    assert GAME.to_json(st2) == GAME.to_json(st)
    with pytest.raises(dataclasses.FrozenInstanceError):
        st2.turn = 0
    assert dataclasses.replace(st2, turn=1).turn == 1


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_answers_passed_on_after_a_partial_move_match_a_fresh_search(n):
    from pbem.engine.spyrium.state import ANSWER

    for seed in range(12):
        rng = random.Random(seed)
        st = GAME.initial_state(n, seed, {})
        while not st.over:
            seat = st.turn
            legal = GAME.legal_moves(st, seat)
            st = GAME.apply(st, seat, legal[rng.randrange(len(legal))])
            if st.pending:
                fresh = GAME.from_json(GAME.to_json(st))  # no moves known yet
                assert GAME.legal_moves(st, st.turn) == GAME.legal_moves(fresh, fresh.turn)
                assert all(m[0] == ANSWER for m in GAME.legal_moves(st, st.turn))
