"""What a bot's move costs: seconds of one core per decision at
each level, on positions taken from real games (greedy self-play, every
decision with a choice), for each game and player count. The same
``bots.choose`` the Celery task runs, without the database around it."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from pbem.engine import bots, get_game, validate_options


@dataclass
class Cost:
    game: str
    players: int
    level: str
    seconds: list[float]

    def row(self) -> dict:
        xs = sorted(self.seconds)
        pct = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0  # noqa: E731
        return {"game": self.game, "players": self.players, "level": self.level, "decisions": len(xs),
                "mean s": round(statistics.mean(xs), 3) if xs else 0.0, "p50 s": round(pct(0.5), 3),
                "p95 s": round(pct(0.95), 3), "max s": round(xs[-1], 3) if xs else 0.0}


def positions(name: str, players: int, games: int, every: int, seed: int) -> list[tuple[object, int, int]]:
    """(state, seat, seed) for every ``every``-th decision with more than one
    legal move, from ``games`` greedy games."""
    game = get_game(name)
    out = []
    k = 0
    for g in range(games):
        state = game.initial_state(players, seed + g, validate_options(game, players, {}))
        ply = 0
        while game.to_move(state):
            seat = min(game.to_move(state))
            if len(game.legal_moves(state, seat)) > 1:
                if k % every == 0:
                    out.append((state, seat, (seed + g) * 1_000 + ply))
                k += 1
            state = game.apply(state, seat, bots.choose(game, state, seat, seed + ply, "easy"))
            ply += 1
    return out


def measure(name: str, players: int, levels: tuple[str, ...], games: int = 2, every: int = 5,
            seed: int = 1) -> list[Cost]:
    game = get_game(name)
    spots = positions(name, players, games, every, seed)
    costs = []
    for level in levels:
        secs = []
        for state, seat, s in spots:
            t = time.perf_counter()
            bots.choose(game, state, seat, s, level)
            secs.append(time.perf_counter() - t)
        costs.append(Cost(game.name, players, level, secs))
    return costs


def format_table(rows: list[dict]) -> str:
    head = f"{'game':<9} {'players':>7} {'level':<7} {'decisions':>9} {'mean s':>7} {'p50 s':>7} {'p95 s':>7} {'max s':>7}"
    lines = [head]
    for r in rows:
        lines.append(f"{r['game']:<9} {r['players']:>7} {r['level']:<7} {r['decisions']:>9} {r['mean s']:>7.3f} "
                     f"{r['p50 s']:>7.3f} {r['p95 s']:>7.3f} {r['max s']:>7.3f}")
    return "\n".join(lines)
