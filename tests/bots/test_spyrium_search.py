"""The Spyrium search bot (levels normal and strong): its determinisations
read only what the seat may see (RULES.md §14 hides the deck orders, the
events below the future one, the face-down token supply and the seed of
later reshuffles), keep the seat's view, and the bot plays whole games
legally and reproducibly."""
from __future__ import annotations

import random
from dataclasses import replace

from pbem.engine import bots
from pbem.engine.search import Budget, search
from pbem.engine.spyrium import bot
from pbem.engine.spyrium.bot import KNOWLEDGE
from pbem.engine.spyrium.data import DECK, EVENTS
from pbem.engine.spyrium.game import GAME
from pbem.engine.spyrium.state import ANSWER

SMALL = Budget(40)


def _positions(n: int, seed: int) -> list:
    """Positions of a greedy self-play game: every fifth ply, every pending
    decision, and the last ply of each round (whose move draws the next)."""
    state = GAME.initial_state(n, seed, {})
    out = []
    ply = 0
    while GAME.to_move(state):
        seat = state.turn
        move = bot.choose(state, seat, seed * 1000 + ply)
        after = GAME.apply(state, seat, move)
        if ply % 5 == 0 or state.pending or (after.round != state.round and not after.over):
            out.append(state)
        state = after
        ply += 1
    return out


POSITIONS = [s for n, seed in ((2, 3), (3, 4), (4, 5)) for s in _positions(n, seed)]


def _unseen(full, state) -> list:
    """The cards of ``full`` in no place a seat sees: in a deck, or out of the game."""
    left = list(full)
    for c in [c for c in state.market if c >= 0] + [c for p in state.ps for c in p.lots + p.techs] + \
            [state.cur_event] + list(state.events[:1]):
        if c in left:
            left.remove(c)
    return left


def _twin(state, rng: random.Random):
    """``state`` with every hidden part changed: the decks dealt again from the
    cards no one sees (a card that went out of the game unseen may come back
    into a deck), the events below the future one likewise, the supply
    permuted, another seed."""
    decks = []
    for period, d in zip("ABC", state.decks):
        pool = _unseen(DECK[period], state)
        rng.shuffle(pool)
        decks.append(tuple(pool[:len(d)]))
    below = _unseen(EVENTS, state)
    rng.shuffle(below)
    below = below[:len(state.events) - 1]
    supply = list(state.supply)
    rng.shuffle(supply)
    return replace(state, decks=tuple(decks), events=state.events[:1] + tuple(below), supply=tuple(supply),
                   seed=state.seed + 1 + rng.randrange(10**6), reshuffles=state.reshuffles + 1, cache=None)


def test_the_positions_cover_round_ends_and_pending_decisions():
    assert any(s.pending for s in POSITIONS)
    assert {s.round for s in POSITIONS} == set(range(1, 7))
    assert any(s.supply != _twin(s, random.Random(1)).supply for s in POSITIONS)
    # some twins hold in a deck a card the real deck does not (it left the game unseen)
    assert any(sorted(_twin(s, random.Random(1)).decks[0]) != sorted(s.decks[0]) for s in POSITIONS)


def test_a_twin_differs_only_in_what_no_seat_sees():
    for i, a in enumerate(POSITIONS):
        b = _twin(a, random.Random(i))
        for seat in range(a.n):
            assert GAME.view(a, seat) == GAME.view(b, seat)


def test_determinisations_depend_only_on_the_view():
    for i, a in enumerate(POSITIONS):
        b = _twin(a, random.Random(i))
        for seat in range(a.n):
            for k in (0, 1, 7):
                assert KNOWLEDGE.determinize(a, seat, random.Random(k)) == \
                    KNOWLEDGE.determinize(b, seat, random.Random(k))


def test_a_determinisation_keeps_the_view_and_the_legal_moves():
    for i, s in enumerate(POSITIONS):
        before = GAME.to_json(s)
        for seat in range(s.n):
            d = KNOWLEDGE.determinize(s, seat, random.Random(i * 10 + seat))
            assert GAME.view(d, seat) == GAME.view(s, seat)
            assert GAME.legal_moves(d, seat) == GAME.legal_moves(s, seat)
            assert GAME.legal_moves(d, s.turn) == GAME.legal_moves(s, s.turn)
            # what it deals is what the view leaves unaccounted for, in the same amounts
            assert sorted(d.supply) == sorted(s.supply)
            assert [len(x) for x in d.decks] == [len(x) for x in s.decks]
            assert d.events[:1] == s.events[:1] and len(d.events) == len(s.events)
        assert GAME.to_json(s) == before  # the input is left alone


def test_determinisations_do_deal_the_hidden_parts_anew():
    s = POSITIONS[0]
    dealt = {(KNOWLEDGE.determinize(s, 0, random.Random(k)).decks,
              KNOWLEDGE.determinize(s, 0, random.Random(k)).supply) for k in range(5)}
    assert len(dealt) == 5
    seeds = {KNOWLEDGE.determinize(s, 0, random.Random(k)).seed for k in range(5)}
    assert len(seeds) == 5


def test_the_search_chooses_from_the_view_alone():
    for i, a in enumerate(POSITIONS[::5]):
        b = _twin(a, random.Random(i))
        seat = a.turn
        assert search(GAME, KNOWLEDGE, a, seat, 17 + i, SMALL)[0] == search(GAME, KNOWLEDGE, b, seat, 17 + i, SMALL)[0]
    # and the product's level, on a few positions where there is a choice
    busy = [s for s in POSITIONS if len(GAME.legal_moves(s, s.turn)) > 8][:3]
    assert busy
    for i, a in enumerate(busy):
        b = _twin(a, random.Random(i))
        assert bots.choose(GAME, a, a.turn, 5, "normal") == bots.choose(GAME, b, b.turn, 5, "normal")


def _search_game(seed: int) -> list:
    state = GAME.initial_state(2, seed, {})
    record = []
    while GAME.to_move(state):
        seat = state.turn
        legal = GAME.legal_moves(state, seat)
        move, _stats = search(GAME, KNOWLEDGE, state, seat, seed * 1000 + len(record), Budget(25))
        assert move in legal
        record.append((seat, GAME.format_move(state, seat, move)))
        state = GAME.apply(state, seat, move)
    assert GAME.outcome(state) is not None
    return record


def test_the_search_bot_plays_a_whole_game_legally_and_reproducibly():
    first = _search_game(8)
    assert first == _search_game(8)
    assert any(text.startswith(("act", "phase2 act")) for _seat, text in first)


def test_the_levels_have_budgets():
    assert bots.budget(GAME, "normal").iterations < bots.budget(GAME, "strong").iterations


def test_a_pending_decision_is_searched_with_the_answers_only():
    s = next(s for s in POSITIONS if s.pending and len(GAME.legal_moves(s, s.turn)) > 1)
    move, _stats = search(GAME, KNOWLEDGE, s, s.turn, 3, SMALL)
    assert move[0] == ANSWER and move in GAME.legal_moves(s, s.turn)
