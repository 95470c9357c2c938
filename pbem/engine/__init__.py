"""The game registry. Pure: imports nothing from the rest of pbem.

Each game lives in its own package ``pbem.engine.<name>`` exposing ``GAME``.
A package that is not present (yet) is simply not offered.
"""
from __future__ import annotations

import importlib
import importlib.util

from .base import (  # noqa: F401  (re-exported: the public engine API)
    AmbiguousMoveError,
    Game,
    GameOverError,
    IllegalMoveError,
    MoveError,
    MoveSyntaxError,
    NotYourTurnError,
    Option,
    OptionError,
    Outcome,
    legal_examples,
    replay,
    rng_for,
    validate_options,
)

_PACKAGES = ("spyrium", "squire", "iaww")
_extra: dict[str, Game] = {}  # games registered at run time (tests only)


def _load() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for pkg in _PACKAGES:
        modname = f"{__name__}.{pkg}"
        if importlib.util.find_spec(modname) is None:
            continue
        games[pkg] = importlib.import_module(modname).GAME
    return games


GAMES: dict[str, Game] = _load()


def register_game(game: Game) -> None:
    """Make a game reachable through get_game without offering it in GAMES.
    Used by the test suite's minimal game; never by the product."""
    _extra[game.name] = game


def unregister_game(name: str) -> None:
    _extra.pop(name, None)


def get_game(name: str) -> Game:
    """The game called ``name`` or one of its aliases (case-insensitive)."""
    key = (name or "").strip().lower()
    for table in (GAMES, _extra):
        if key in table:
            return table[key]
        for game in table.values():
            if key in getattr(game, "aliases", ()):
                return game
    known = ", ".join(sorted(GAMES)) or "none yet"
    raise KeyError(f"no game called {name!r} (games: {known})")
