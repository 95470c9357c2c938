"""Self-play: bot games played in the engine alone (no store, no mail).

Used by ``pbem selfplay`` and by the bot strength figures of docs/bots.md.
Each configured player is a bot kind (``greedy`` = the game's own bot,
``random`` = a uniformly random legal move); with ``rotate`` the kinds move
one seat to the left every game so no kind keeps the first-player seat.
Everything is reproducible from ``seed``."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pbem.engine import bots, get_game, validate_options
from pbem.engine.playout import MAX_PLIES, PlayoutStuck

KINDS = ("greedy", "random")


def pick(kind: str, game, state, seat: int, seed: int):
    if kind == "greedy":
        return bots.choose(game, state, seat, seed)
    if kind == "random":
        return bots.random_move(game, state, seat, seed)
    raise ValueError(f"unknown bot {kind!r} (bots: {', '.join(KINDS)})")


@dataclass
class GameRecord:
    seed: int
    kinds: tuple[str, ...]      # kind per seat in this game
    scores: tuple[int, ...]     # per seat
    winners: frozenset[int]
    plies: int
    seconds: float


def play_game(name: str, kinds: Sequence[str], seed: int, options: dict | None = None) -> GameRecord:
    """One complete game, seat i played by ``kinds[i]``."""
    game = get_game(name)
    n = len(kinds)
    state = game.initial_state(n, seed, validate_options(game, n, options))
    plies = 0
    t0 = time.perf_counter()
    while True:
        seats = game.to_move(state)
        if not seats:
            break
        if plies >= MAX_PLIES:
            raise PlayoutStuck(f"{name}: no end after {MAX_PLIES} plies")
        # simultaneous steps: every bot decides on its own, so the order is immaterial
        seat = min(seats)
        move = pick(kinds[seat], game, state, seat, seed * 100_003 + plies)
        state = game.apply(state, seat, move)
        plies += 1
    out = game.outcome(state)
    return GameRecord(seed, tuple(kinds), tuple(out.scores), frozenset(out.winners), plies,
                      time.perf_counter() - t0)


@dataclass
class Summary:
    game: str
    players: int
    kinds: tuple[str, ...]                        # as configured, before rotation
    records: list[GameRecord] = field(default_factory=list)

    def _by_player(self) -> list[list[tuple[int, bool]]]:
        """(score, won) per configured player, following it through rotations."""
        out: list[list[tuple[int, bool]]] = [[] for _ in self.kinds]
        for g, r in enumerate(self.records):
            for i in range(self.players):
                seat = self._seat_of(i, g, r)
                out[i].append((r.scores[seat], seat in r.winners))
        return out

    def _seat_of(self, i: int, g: int, r: GameRecord) -> int:
        return (i + g) % self.players if self.rotate else i

    rotate: bool = False

    def rows(self) -> list[dict]:
        rows = []
        for i, results in enumerate(self._by_player()):
            scores = [s for s, _ in results]
            rows.append({"player": i + 1, "bot": self.kinds[i], "games": len(results),
                         "mean score": round(statistics.mean(scores), 2) if scores else 0,
                         "sd": round(statistics.pstdev(scores), 2) if scores else 0,
                         "win rate": round(sum(w for _, w in results) / len(results), 3) if results else 0})
        return rows

    def totals(self) -> dict:
        plies = [r.plies for r in self.records]
        secs = sum(r.seconds for r in self.records)
        return {"games": len(self.records), "mean plies": round(statistics.mean(plies), 1) if plies else 0,
                "min plies": min(plies, default=0), "max plies": max(plies, default=0),
                "seconds": round(secs, 2), "moves/s": round(sum(plies) / secs) if secs else 0,
                "games/s": round(len(plies) / secs, 2) if secs else 0}

    def format(self) -> str:
        lines = [f"{self.game}, {self.players} players, {len(self.records)} games"
                 + (" (seats rotated every game)" if self.rotate else "")]
        lines.append(f"{'player':>6}  {'bot':<7} {'mean score':>10} {'sd':>6} {'win rate':>8}")
        for r in self.rows():
            lines.append(f"{r['player']:>6}  {r['bot']:<7} {r['mean score']:>10} {r['sd']:>6} {r['win rate']:>8.1%}")
        t = self.totals()
        lines.append(f"game length: mean {t['mean plies']} plies (min {t['min plies']}, max {t['max plies']}); "
                     f"{t['moves/s']} moves/s, {t['games/s']} games/s, {t['seconds']} s in all")
        lines.append("(a tie counts as a win for every seat that shares it)")
        return "\n".join(lines)


def run(name: str, kinds: Sequence[str], games: int, *, seed: int = 1, rotate: bool = False,
        options: dict | None = None, on_game: Callable[[GameRecord], None] | None = None) -> Summary:
    game = get_game(name)
    kinds = tuple(kinds)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"unknown bot {k!r} (bots: {', '.join(KINDS)})")
    validate_options(game, len(kinds), options)  # a clear error before any game
    summary = Summary(game.name, len(kinds), kinds, rotate=rotate)
    n = len(kinds)
    for g in range(games):
        seated = tuple(kinds[(s - g) % n] for s in range(n)) if rotate else kinds
        rec = play_game(game.name, seated, seed + g, options)
        summary.records.append(rec)
        if on_game:
            on_game(rec)
    return summary
