"""The search bot never reads what its seat cannot see: its
choice is a function of the seat's view and the seed. For every game, at
positions from real games, a second state is made that the seat cannot tell
from the first -- same view, but every hidden part (other hands, deck orders,
the seed of later draws, secret picks) dealt otherwise -- and the bot must
choose the same move in both. The games' own tests (test_<game>_search.py)
change hidden parts by hand as well."""
from __future__ import annotations

import random

import pytest

from pbem.engine import bots, get_game, validate_options
from pbem.engine.search import Budget, search

GAMES = ("spyrium", "squire", "iaww")


def _positions(name: str, players: int, seed: int, every: int):
    """(state, seat) at every ``every``-th decision with a choice of a greedy game."""
    game = get_game(name)
    state = game.initial_state(players, seed, validate_options(game, players, {}))
    k = 0
    while game.to_move(state):
        seat = min(game.to_move(state))
        legal = game.legal_moves(state, seat)
        if len(legal) > 1:
            if k % every == 0:
                yield state, seat
            k += 1
        state = game.apply(state, seat, bots.choose(game, state, seat, seed + k, "easy"))


def _twin(name: str, state, seat: int, k: int):
    """A state with the seat's view and everything else dealt anew."""
    kb = bots.bot_module(get_game(name)).KNOWLEDGE
    return kb.determinize(state, seat, random.Random(1000 + k))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_the_choice_depends_on_the_view_and_the_seed_only(name, players):
    game = get_game(name)
    kb = bots.bot_module(game).KNOWLEDGE
    checked = 0
    for k, (state, seat) in enumerate(_positions(name, players, seed=17 + players, every=9)):
        twin = _twin(name, state, seat, k)
        assert game.view(twin, seat) == game.view(state, seat)
        assert game.legal_moves(twin, seat) == game.legal_moves(state, seat)
        budget = Budget(24)
        a, _ = search(game, kb, state, seat, 1234 + k, budget)
        b, _ = search(game, kb, twin, seat, 1234 + k, budget)
        assert a == b, f"{name} {players}p, position {k}: the bot read something seat {seat + 1} cannot see"
        checked += 1
        if checked >= 6:
            break
    assert checked >= 3


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_at_the_product_levels_too(name, level):
    """The greedy level (which looks one move ahead in a determinisation) and the level the stand-in plays
    by default, with its real budget."""
    game = get_game(name)
    checked = 0
    for k, (state, seat) in enumerate(_positions(name, 3, seed=5, every=11)):
        twin = _twin(name, state, seat, k)
        assert game.view(twin, seat) == game.view(state, seat)
        assert bots.choose(game, state, seat, 77 + k, level) == bots.choose(game, twin, seat, 77 + k, level)
        checked += 1
        if checked >= (6 if level == "easy" else 2):
            break


@pytest.mark.parametrize("name", GAMES)
def test_some_hidden_part_really_differs(name):
    """The twins are not the same state (else the tests above would prove nothing)."""
    game = get_game(name)
    differs = 0
    for k, (state, seat) in enumerate(_positions(name, 2, seed=3, every=5)):
        if game.to_json(_twin(name, state, seat, k)) != game.to_json(state):
            differs += 1
        if k >= 5:
            break
    assert differs >= 3
