"""One conformance suite over every registered game (HOUSE-STYLE: OpenSpiel).

Random legal playouts for every player count, checking the contract of
DESIGN.md §2: to_move, sorted unique legal moves, format/parse round trips,
apply never mutating, JSON round trips, views JSON-able, replay determinism
and an outcome at the end.
"""
import json
import random

import pytest

from pbem.engine import DRAFT_GAMES, GAMES, MoveError, replay, validate_options
from pbem.engine.playout import random_playout
from tests.minigame import MINI

ALL = dict(GAMES, **DRAFT_GAMES, mini=MINI)
CASES = [(name, n) for name, g in sorted(ALL.items()) for n in range(g.min_players, g.max_players + 1)]
SEEDS = (1, 2)
ROUNDTRIP_SAMPLE = 40  # legal moves round-tripped per position (all of them when fewer)


def _check_step(game, state, seat, move, after, rng):
    seats = game.to_move(state)
    assert seats and all(0 <= s < _players(game, state) for s in seats)
    legal = game.legal_moves(state, seat)
    assert legal == sorted(legal), "legal_moves must be sorted"
    assert len(legal) == len(set(legal)), "legal_moves must be unique"
    assert move in legal
    sample = legal if len(legal) <= ROUNDTRIP_SAMPLE else rng.sample(legal, ROUNDTRIP_SAMPLE)
    for m in sample:
        text = game.format_move(state, seat, m)
        assert game.parse_move(state, seat, text) == m, f"round trip failed for {text!r}"
        assert game.parse_move(state, seat, text.upper()) == m, f"notation must be case-insensitive: {text!r}"
    for other in range(_players(game, state)):
        if other not in seats:
            assert game.legal_moves(state, other) == []
    if len(seats) > 1:  # the services look for secret moves only in games that declare them
        assert getattr(game, "simultaneous", False), f"{game.name}: several seats to move, not declared simultaneous"


def _players(game, state):
    return game.view(state, None)["players"]


@pytest.mark.parametrize("name,players", CASES)
def test_random_playouts_keep_the_contract(name, players):
    game = ALL[name]
    for seed in SEEDS:
        rng = random.Random(seed)
        opts = validate_options(game, players, {})
        initial = game.initial_state(players, seed, opts)
        assert json.loads(json.dumps(game.to_json(initial))) == game.to_json(initial)

        def on_move(before, seat, move, after):
            frozen = json.dumps(game.to_json(before), sort_keys=True)
            _check_step(game, before, seat, move, after, rng)
            assert json.dumps(game.to_json(before), sort_keys=True) == frozen, "apply mutated its input"
            assert game.from_json(json.loads(json.dumps(game.to_json(after)))) == after
            for who in [None, *range(players)]:
                v = game.view(after, who)
                json.dumps(v)
                for key in ("game", "seat", "players", "to_move", "over", "status", "outcome"):
                    assert key in v, f"view lacks {key}"
            assert isinstance(game.reveals(before, after), bool), "reveals() must return a bool"

        final, record = random_playout(game, players, seed, opts, rng_seed=seed, on_move=on_move)
        out = game.outcome(final)
        assert out is not None and game.to_move(final) == frozenset()
        assert len(out.scores) == players and out.winners <= set(range(players)) and out.winners
        # replay determinism: the notation record rebuilds the very same state
        texts, state = [], initial
        for seat, move in record:
            texts.append((seat, game.format_move(state, seat, move)))
            state = game.apply(state, seat, move)
        again = replay(game, players, seed, opts, texts)
        assert game.to_json(again) == game.to_json(final)
        for who in [None, *range(players)]:
            v = game.view(final, who)
            assert v["over"] is True
            assert isinstance(game.render_text(v), str) and isinstance(game.render_html(v), str)
        with pytest.raises(MoveError):
            game.apply(final, 0, record[-1][1])


@pytest.mark.parametrize("name", sorted(ALL))
def test_garbage_is_a_move_error(name):
    game = ALL[name]
    state = game.initial_state(game.min_players, 7, validate_options(game, game.min_players, {}))
    seat = min(game.to_move(state))
    for text in ("", "   ", "xyzzy 99 !!", "\x00", "ü" * 300):
        with pytest.raises(MoveError):
            game.parse_move(state, seat, text)
