"""Digits that are not ASCII (superscripts, other scripts' digits) are not
numbers in any notation: a clear MoveError, never a crash (found by Hypothesis)."""
import pytest

from pbem.engine import GAMES, MoveError, validate_options
from pbem.engine.playout import random_playout

ODD = ["²", "٣", "½", "pick ²", "C ³", "m>²", "cell F²C1", "place ⁴-⁵", "take ¹"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_non_ascii_digits_are_move_errors(name):
    game = GAMES[name]
    n = game.min_players
    states = []
    random_playout(game, n, 3, validate_options(game, n, {}), rng_seed=3,
                   on_move=lambda before, seat, move, after: states.append((before, seat)))
    for state, seat in states[:: max(1, len(states) // 25)]:
        for text in ODD:
            try:
                game.parse_move(state, seat, text)
            except MoveError:
                pass
