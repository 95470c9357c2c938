"""A review reads only what each seat could see at the time: the review of a seat computed from
twin positions -- the same view for the seat, everything it cannot see (the other hands, the
decks' order, the seed of later draws, the others' secret picks) dealt otherwise -- is the same
review, word for word. The twins are those of the search's own secrecy test."""
from __future__ import annotations

import pytest

from pbem.engine import get_game
from pbem.services.coach import review
from tests.bots.test_search_secrecy import _positions, _twin

GAMES = ("spyrium", "squire", "iaww")


@pytest.mark.parametrize("name", GAMES)
def test_a_review_depends_on_what_the_seat_saw_only(name):
    game = get_game(name)
    real, twins = [], []
    for k, (state, seat) in enumerate(_positions(name, 3, seed=11, every=7)):
        twin = _twin(name, state, seat, k)
        assert game.view(twin, seat) == game.view(state, seat)
        legal = game.legal_moves(state, seat)
        assert game.legal_moves(twin, seat) == legal
        move = legal[-1]  # the last legal move: often not the search's choice, so that gaps are listed
        real.append(review.Decision(2 * k, seat, state, move, game.format_move(state, seat, move), 2 * k + 1))
        twins.append(review.Decision(2 * k, seat, twin, move, game.format_move(state, seat, move), 2 * k + 1))
        if len(real) >= 4:
            break
    seats = sorted({d.seat for d in real})
    a, _ = review.compute(game, 99, real, seats, cpu_s=1e9, most=100)
    b, _ = review.compute(game, 99, twins, seats, cpu_s=1e9, most=100)
    assert sum(r["reviewed"] for r in a.values()) == len(real)
    assert a == b, f"{name}: a review read something its seat could not see"
    assert any(r["top"] for r in a.values()), "no decision listed: the explanations were not compared"


def test_the_twins_really_differ():
    """The twins hide something else (else the test above would prove nothing)."""
    for name in GAMES:
        game = get_game(name)
        state, seat = next(iter(_positions(name, 3, seed=11, every=7)))
        assert game.to_json(_twin(name, state, seat, 0)) != game.to_json(state), name
