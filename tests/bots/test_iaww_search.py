"""The iaww search bot (ISMCTS, levels normal/strong): its determinisation
reads only what the seat may see, keeps the seat's view and moves, and the
bot plays legal, reproducible games."""
from __future__ import annotations

import random

import pytest

from pbem.engine import bots, validate_options
from pbem.engine.iaww.bot import KNOWLEDGE, determinize
from pbem.engine.iaww.game import GAME
from pbem.engine.iaww.rules import DRAFT, PLAN, PROD, replace
from pbem.engine.search import Budget, search


def _positions(n: int, seed: int, stops: set[int]) -> dict[int, object]:
    """Greedy self-play, the state before the given plies (seats in order)."""
    state = GAME.initial_state(n, seed, validate_options(GAME, n, {}))
    out = {}
    ply = 0
    while GAME.to_move(state):
        for seat in sorted(GAME.to_move(state)):
            if seat not in GAME.to_move(state):
                continue
            if ply in stops:
                out[ply] = state
            state = GAME.apply(state, seat, bots.choose(GAME, state, seat, seed * 1000 + ply))
            ply += 1
    return out


def _hidden_twin(state, seat: int, rng: random.Random):
    """The same state but for what ``seat`` may not see: another seat's hand
    swapped with deck cards, its secret pick changed, the deck and discard
    permuted, the seed, and the hidden parts of the public snapshots."""
    players = list(state.players)
    public = list(state.public)
    deck = list(state.deck)
    for i, p in enumerate(players):
        if i == seat:
            continue
        if p.hand:
            hand = list(p.hand)
            k = min(2, len(hand))
            hand[:k], deck[:k] = deck[:k], hand[:k]
            if p.pick and hand:
                hand[0], pick = p.pick, hand[0]
            else:
                pick = p.pick
            hand = tuple(sorted(hand))
            players[i] = replace(p, hand=hand, pick=pick, notes=("a secret",))
            public[i] = replace(public[i], hand=tuple(sorted(hand + ((pick,) if pick else ()))), notes=())
    rng.shuffle(deck)
    discard = list(state.discard)
    rng.shuffle(discard)
    return replace(state, players=tuple(players), public=tuple(public), deck=tuple(deck),
                   discard=tuple(discard), seed=state.seed + 12345)


def _cases():
    cases = []
    for n, seed in ((2, 3), (3, 4)):
        for ply, state in _positions(n, seed, {1, 5, 40, 60, 90, 130}).items():
            for seat in sorted(GAME.to_move(state)):
                cases.append((n, ply, state, seat))
    return cases


CASES = _cases()


def test_positions_cover_the_phases():
    phases = {state.phase for _n, _p, state, _s in CASES}
    assert {DRAFT, PLAN, PROD} <= phases
    # a draft position with another seat's secret pick made
    assert any(s.phase == DRAFT and any(p.pick for i, p in enumerate(s.players) if i != seat)
               for _n, _p, s, seat in CASES)


@pytest.mark.parametrize("n,ply,state,seat", CASES, ids=[f"{c[0]}p-ply{c[1]}-seat{c[3]}" for c in CASES])
def test_hidden_state_does_not_change_the_bot(n, ply, state, seat):
    twin = _hidden_twin(state, seat, random.Random(ply))
    assert twin != state
    assert GAME.view(twin, seat) == GAME.view(state, seat)
    for k in range(3):
        assert determinize(state, seat, random.Random(k)) == determinize(twin, seat, random.Random(k))
    budget = Budget(12)
    assert search(GAME, KNOWLEDGE, state, seat, 77, budget) == search(GAME, KNOWLEDGE, twin, seat, 77, budget)


@pytest.mark.parametrize("n,ply,state,seat", CASES[::2], ids=[f"{c[0]}p-ply{c[1]}-seat{c[3]}" for c in CASES[::2]])
def test_determinisation_keeps_the_view_and_the_moves(n, ply, state, seat):
    before = GAME.to_json(state)
    for k in range(3):
        d = determinize(state, seat, random.Random(k))
        assert GAME.view(d, seat) == GAME.view(state, seat)
        assert GAME.legal_moves(d, seat) == GAME.legal_moves(state, seat)
        assert GAME.to_move(d) == GAME.to_move(state)
    assert GAME.to_json(state) == before  # the input is not changed


def test_determinisation_deals_the_unseen_cards_anew():
    n, ply, state, seat = next(c for c in CASES if c[2].phase == DRAFT and c[0] == 3)
    other = (seat + 1) % n
    hands = {determinize(state, seat, random.Random(k)).players[other].hand for k in range(5)}
    assert len(hands) > 1
    d = determinize(state, seat, random.Random(0))
    assert d.seed != state.seed
    assert len(d.deck) == len(state.deck)


def _search_game(seed: int) -> list:
    import pbem.engine.iaww.bot as bot

    state = GAME.initial_state(2, seed, validate_options(GAME, 2, {}))
    record = []
    saved = bot.BUDGETS
    bot.BUDGETS = {"normal": Budget(4), "strong": Budget(8)}
    try:
        while GAME.to_move(state):
            for seat in sorted(GAME.to_move(state)):
                if seat not in GAME.to_move(state):
                    continue
                move = bots.choose(GAME, state, seat, seed * 7919 + len(record), "normal" if seat else "strong")
                assert move in GAME.legal_moves(state, seat)
                record.append((seat, GAME.format_move(state, seat, move)))
                state = GAME.apply(state, seat, move)
    finally:
        bot.BUDGETS = saved
    assert GAME.outcome(state) is not None
    return record


def test_search_bot_plays_a_legal_game_reproducibly():
    assert _search_game(21) == _search_game(21)


def test_budgets():
    assert bots.budget(GAME, "normal").iterations < bots.budget(GAME, "strong").iterations
