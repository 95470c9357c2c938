"""Bots: a seat's stand-in (no-move policy, "add a bot", self-play).

Three levels (docs/bots.md): ``easy`` is the game's greedy one-ply bot,
``normal`` and ``strong`` the search bot (:mod:`.search`, ISMCTS) with a
small and a large budget. A game ships ``pbem/engine/<game>/bot.py`` with
``choose(state, seat, seed) -> Move`` (greedy) and ``KNOWLEDGE`` (what the
search needs: determinisation, evaluation, rollout policy) and may set its
own ``BUDGETS``; a game without one plays a uniformly random legal move at
every level. All are pure and reproducible from ``seed``."""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Callable

from .base import Game, rng_for
from .search import Budget, search

LEVELS = ("easy", "normal", "strong")
DEFAULT_LEVEL = "normal"
#: iterations of the search per move, unless a game's bot.py sets its own
BUDGETS = {"normal": Budget(300), "strong": Budget(1500)}


def bot_module(game: Game):
    """The game's ``bot`` module, or None (a game registered at run time)."""
    modname = f"{__package__}.{game.name}.bot"
    try:
        found = importlib.util.find_spec(modname) is not None
    except ModuleNotFoundError:  # a game registered at run time has no package here
        found = False
    return importlib.import_module(modname) if found else None


def budget(game: Game, level: str) -> Budget:
    return _budget(bot_module(game), level)


def _budget(mod, level: str) -> Budget:
    return {**BUDGETS, **(getattr(mod, "BUDGETS", None) or {})}[level]


def choose(game: Game, state: Any, seat: int, seed: int, level: str = "easy",
           stop: Callable[[], bool] | None = None) -> Any:
    """The bot's move for ``seat`` (which must be to move) at ``level``.
    ``stop`` (searching levels only) is asked between iterations: a guard a
    caller with a clock may set; without it the move depends only on the
    seat's view, the seed and the level."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})")
    mod = bot_module(game)
    if mod is None:
        return random_move(game, state, seat, seed)
    kb = getattr(mod, "KNOWLEDGE", None)
    if kb is None:
        return mod.choose(state, seat, seed)
    if level == "easy":
        # the greedy bot looks one move ahead by applying it, and applying a move may draw a card:
        # it looks in a determinisation (the seat's view, the rest dealt from the seed), never at
        # the true deck or the other hands
        return mod.choose(kb.determinize(state, seat, rng_for(seed, "easy-view", seat)), seat, seed)
    move, _stats = search(game, kb, state, seat, seed, _budget(mod, level), stop=stop)
    return move


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
