"""It's a Wonderful World (base game, 1-5 players): the rules engine.

RULES: /work/shared/games/iaww/RULES.md (copied card data in ``data/``).
"""
from .game import GAME, IawwGame  # noqa: F401

READY = True
