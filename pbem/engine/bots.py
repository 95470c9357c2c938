"""Bots: a seat's stand-in (no-move policy, "add a bot", self-play).

A game may ship ``pbem/engine/<game>/bot.py`` with ``choose(state, seat, seed)
-> Move``; otherwise the fallback plays a uniformly random legal move. Both
are pure and reproducible from ``seed``."""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Callable

from .base import Game, rng_for


def choose(game: Game, state: Any, seat: int, seed: int) -> Any:
    """The bot's move for ``seat`` (which must be to move)."""
    modname = f"{__package__}.{game.name}.bot"
    try:
        found = importlib.util.find_spec(modname) is not None
    except ModuleNotFoundError:  # a game registered at run time has no package here
        found = False
    if found:
        return importlib.import_module(modname).choose(state, seat, seed)
    return random_move(game, state, seat, seed)


def random_move(game: Game, state: Any, seat: int, seed: int) -> Any:
    legal = game.legal_moves(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal move")
    return legal[rng_for(seed, "random-bot", seat).randrange(len(legal))]


EPS = 1e-9  # scores this close are a tie


def greedy(moves: list, value: Callable[[Any], float | None], rng) -> Any:
    """The one-ply choice shared by the games' bots: the move with the highest
    ``value(move)`` (None: not a candidate); near-ties broken by ``rng``."""
    if not moves:
        raise ValueError("no legal move")
    if len(moves) == 1:
        return moves[0]
    best: list = []
    best_v = float("-inf")
    for move in moves:
        v = value(move)
        if v is None:
            continue
        if v > best_v + EPS:
            best, best_v = [move], v
        elif v >= best_v - EPS:
            best.append(move)
    return best[rng.randrange(len(best))] if best else moves[0]
