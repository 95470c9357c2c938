"""Random playouts: the loop shared by the conformance suite, the engine
benchmark and self-play. Pure: the caller passes the generator's seed."""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from .base import Game, validate_options

MAX_PLIES = 20_000  # far above any real game; a playout past it is a bug


class PlayoutStuck(RuntimeError):
    """A seat to move had no legal move, or the game never ended."""


def random_playout(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    rng_seed: int = 0,
    choose: Callable[[Any, int, list], Any] | None = None,
    on_move: Callable[[Any, int, Any, Any], None] | None = None,
) -> tuple[Any, list[tuple[int, Any]]]:
    """Play one game to its end. ``choose(state, seat, legal)`` picks a move
    (uniformly at random by default); ``on_move(before, seat, move, after)``
    observes every step. Returns the final state and the (seat, move) record."""
    opts = validate_options(game, players, options)
    rng = random.Random(rng_seed)
    state = game.initial_state(players, seed, opts)
    record: list[tuple[int, Any]] = []
    for _ in range(MAX_PLIES):
        seats = game.to_move(state)
        if not seats:
            return state, record
        seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
        legal = game.legal_moves(state, seat)
        if not legal:
            raise PlayoutStuck(f"{game.name}: seat {seat} to move has no legal move")
        move = choose(state, seat, legal) if choose else legal[rng.randrange(len(legal))]
        after = game.apply(state, seat, move)
        if on_move:
            on_move(state, seat, move, after)
        record.append((seat, move))
        state = after
    raise PlayoutStuck(f"{game.name}: no end after {MAX_PLIES} plies")
