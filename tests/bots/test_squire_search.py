"""The Squire search bot (ISMCTS) and the collector: determinisations read
only what the seat may see, keep its view and its legal moves, and both
policies play whole games legally and reproducibly."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest

from pbem.engine import bots
from pbem.engine.search import Budget, search
from pbem.engine.squire import bot
from pbem.engine.squire.game import SquireGame
from pbem.engine.squire.rules import ACCEPT, CELL, EXHIBIT, OFFERS, SWAP, TAKE

GAME = SquireGame()
OPTIONS = {"side": "british", "boards": "choose"}


def _positions(n: int, seed: int, policy=bot.collect) -> list:
    """States along a game played by ``policy``: every 7th ply, and every
    position inside an exhibition or just after a refill."""
    state = GAME.initial_state(n, seed, OPTIONS)
    out, ply = [], 0
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_move(state)
        if ply % 7 == 3 or state.phase in (EXHIBIT, ACCEPT, SWAP, CELL, OFFERS, TAKE):
            out.append((state, seat))
        state = GAME.apply(state, seat, policy(state, seat, seed * 1000 + ply))
        ply += 1
    return out


def _hidden_variant(state, seat: int, rng: random.Random):
    """The same state with everything ``seat`` may not see changed: the supply
    reordered and partly exchanged with the removed tokens, the deck
    reordered, cards exchanged between the other seats' hands and the deck."""
    tokens = list(state.supply + state.removed)
    rng.shuffle(tokens)
    k = len(state.supply)
    deck = list(state.deck)
    players = list(state.players)
    for s, p in enumerate(players):
        if s == seat or not p.hand or not deck:
            continue
        hand = list(p.hand)
        i, j = rng.randrange(len(hand)), rng.randrange(len(deck))
        hand[i], deck[j] = deck[j], hand[i]
        players[s] = replace(p, hand=tuple(sorted(hand)))
    rng.shuffle(deck)
    return replace(state, supply=tuple(tokens[:k]), removed=tuple(tokens[k:]), deck=tuple(deck),
                   players=tuple(players))


def _observers(state, seat):
    """The seat to move and one that is not."""
    return sorted({seat, (seat + 1) % state.n})


@pytest.mark.parametrize("n,seed", [(2, 5), (4, 6)])
def test_hidden_parts_change_nothing(n, seed):
    rng = random.Random(seed)
    positions = _positions(n, seed)
    assert any(s.phase in (ACCEPT, SWAP) for s, _ in positions) or any(s.phase == EXHIBIT for s, _ in positions)
    searched = 0
    for a, to_move in positions:
        for seat in _observers(a, to_move):
            b = _hidden_variant(a, seat, rng)
            assert GAME.view(a, seat) == GAME.view(b, seat)
            if b == a:
                continue
            da = bot.KNOWLEDGE.determinize(a, seat, random.Random(99))
            db = bot.KNOWLEDGE.determinize(b, seat, random.Random(99))
            assert da == db
        b = _hidden_variant(a, to_move, rng)
        if searched < 6 and len(GAME.legal_moves(a, to_move)) > 1 and a.players[to_move].pos >= 0:
            searched += 1
            budget = Budget(40)
            assert (search(GAME, bot.KNOWLEDGE, a, to_move, 7, budget)[0]
                    == search(GAME, bot.KNOWLEDGE, b, to_move, 7, budget)[0])
            assert bot.collect(a, to_move, 3) == bot.collect(b, to_move, 3)
    assert searched >= 3
    a, seat = positions[len(positions) // 2]
    b = _hidden_variant(a, seat, rng)
    assert bots.choose(GAME, a, seat, 5, "normal") == bots.choose(GAME, b, seat, 5, "normal")


@pytest.mark.parametrize("n,seed", [(2, 8), (3, 9)])
def test_determinisation_keeps_view_and_legal_moves(n, seed):
    rng = random.Random(1)
    for state, to_move in _positions(n, seed)[::3]:
        for seat in range(n):
            d = bot.KNOWLEDGE.determinize(state, seat, rng)
            assert GAME.view(d, seat) == GAME.view(state, seat)
            assert GAME.legal_moves(d, seat) == GAME.legal_moves(state, seat)
            assert sorted(d.supply + d.removed) == sorted(state.supply + state.removed)
            assert len(d.supply) == len(state.supply)
            assert sorted(d.deck + sum((p.hand for p in d.players), ())) == \
                sorted(state.deck + sum((p.hand for p in state.players), ()))
            assert [len(p.hand) for p in d.players] == [len(p.hand) for p in state.players]


def _play(n: int, seed: int, policy) -> tuple:
    state = GAME.initial_state(n, seed, OPTIONS)
    record = []
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_move(state)
        move = policy(state, seat, seed * 7919 + len(record))
        assert move in GAME.legal_moves(state, seat)
        record.append(GAME.format_move(state, seat, move))
        state = GAME.apply(state, seat, move)
    return tuple(record), GAME.outcome(state).scores


def test_collector_plays_whole_games_reproducibly():
    for n in (2, 3, 4):
        first = _play(n, 20 + n, bot.collect)
        assert first == _play(n, 20 + n, bot.collect)
        assert max(first[1]) >= 30


def test_search_plays_whole_games_reproducibly():
    def small(state, seat, seed):
        return search(GAME, bot.KNOWLEDGE, state, seat, seed, Budget(25))[0]

    first = _play(2, 31, small)
    assert first == _play(2, 31, small)


def test_budgets():
    assert set(bot.BUDGETS) == {"normal", "strong"}
    assert bot.BUDGETS["normal"].iterations < bot.BUDGETS["strong"].iterations
