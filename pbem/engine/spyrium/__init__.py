"""Spyrium (William Attia, Ystari 2013) for 2 to 5 players: the rules engine,
its move notation and its text/HTML boards (RULES.md in ../shared/games/spyrium)."""
from .game import GAME, SpyriumGame  # noqa: F401

READY = True
