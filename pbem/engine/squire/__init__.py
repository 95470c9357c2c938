"""Squire («Сквайр. Клуб коллекционеров»): the rules engine.

RULES.md: games/squire/RULES.md of the shared rules folder; data in ``data/``.
"""
from .game import GAME, SquireGame  # noqa: F401

READY = True
