"""Engine speed: complete random games per second on one core, moves per
second, and the cost of legal-move generation and of apply."""
from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from pbem.engine import get_game, validate_options


@dataclass
class EngineFigures:
    game: str
    players: int
    games: int
    plies: int
    seconds: float
    legal_us: list[float]
    apply_us: list[float]

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def moves_per_s(self) -> float:
        return self.plies / self.seconds

    @staticmethod
    def _pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0

    def row(self) -> dict:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "games/s": round(self.games_per_s, 1),
            "moves/s": round(self.moves_per_s),
            "plies/game": round(self.plies / self.games, 1),
            "legal median us": round(statistics.median(self.legal_us), 1),
            "legal p99 us": round(self._pct(self.legal_us, 0.99), 1),
            "apply median us": round(statistics.median(self.apply_us), 1),
            "apply p99 us": round(self._pct(self.apply_us, 0.99), 1),
        }


def run_games(name: str, players: int, games: int, seed: int = 1, options: dict | None = None) -> EngineFigures:
    """Complete random games, timed as a whole (games/s, moves/s), plus a
    second pass timing legal_moves and apply one call at a time."""
    game = get_game(name, include_draft=True)
    opts = validate_options(game, players, options)
    plies = 0
    t0 = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        state = game.initial_state(players, seed + g, opts)
        while True:
            seats = game.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
            legal = game.legal_moves(state, seat)
            state = game.apply(state, seat, legal[rng.randrange(len(legal))])
            plies += 1
    seconds = time.perf_counter() - t0

    legal_us: list[float] = []
    apply_us: list[float] = []
    pc = time.perf_counter
    for g in range(max(1, games // 10)):
        rng = random.Random(seed * 7 + g)
        state = game.initial_state(players, seed + g, opts)
        while True:
            seats = game.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
            a = pc()
            legal = game.legal_moves(state, seat)
            b = pc()
            move = legal[rng.randrange(len(legal))]
            c = pc()
            state = game.apply(state, seat, move)
            d = pc()
            legal_us.append((b - a) * 1e6)
            apply_us.append((d - c) * 1e6)
    return EngineFigures(game.name, players, games, plies, seconds, legal_us, apply_us)


def format_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    line = "| " + " | ".join(c.ljust(widths[c]) for c in cols) + " |"
    sep = "|" + "|".join("-" * (widths[c] + 2) for c in cols) + "|"
    body = ["| " + " | ".join(str(r[c]).ljust(widths[c]) for c in cols) + " |" for r in rows]
    return "\n".join([line, sep, *body])
