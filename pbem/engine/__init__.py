"""The game registry. Pure: imports nothing from the rest of pbem.

Each game lives in its own package ``pbem.engine.<name>`` exposing ``GAME``
and ``READY``. Only packages with ``READY = True`` (every rule of the game's
RULES.md implemented and tested) are offered in ``GAMES``; the others are in
``DRAFT_GAMES`` so the test suite keeps checking them while they grow.
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
    choice_text,
    option_label,
    option_text,
    options_in_words,
    replay,
    rng_for,
    validate_options,
)

_PACKAGES = ("spyrium", "squire", "iaww")
_extra: dict[str, Game] = {}  # games registered at run time (tests only)


def _load() -> tuple[dict[str, Game], dict[str, Game]]:
    ready: dict[str, Game] = {}
    draft: dict[str, Game] = {}
    for pkg in _PACKAGES:
        modname = f"{__name__}.{pkg}"
        if importlib.util.find_spec(modname) is None:
            continue
        module = importlib.import_module(modname)
        (ready if getattr(module, "READY", False) else draft)[pkg] = module.GAME
    return ready, draft


GAMES, DRAFT_GAMES = _load()


def register_game(game: Game) -> None:
    """Make a game reachable through get_game without offering it in GAMES.
    Used by the test suite's minimal game; never by the product."""
    _extra[game.name] = game


def playable_games() -> list[Game]:
    """Every game a user can play here, once each (the offered ones and any registered)."""
    seen: dict[int, Game] = {}
    for table in (GAMES, _extra):
        for game in table.values():
            seen.setdefault(id(game), game)
    return list(seen.values())


def unregister_game(name: str) -> None:
    _extra.pop(name, None)


def get_game(name: str, *, include_draft: bool = False) -> Game:
    """The game called ``name`` or one of its aliases (case-insensitive).
    Draft games are found only with ``include_draft`` (benchmarks, tests)."""
    key = (name or "").strip().lower()
    tables = (GAMES, _extra, DRAFT_GAMES) if include_draft else (GAMES, _extra)
    for table in tables:
        if key in table:
            return table[key]
        for game in table.values():
            if key in getattr(game, "aliases", ()):
                return game
    known = ", ".join(sorted(GAMES)) or "none yet"
    raise KeyError(f"no game called {name!r} (games: {known})")
