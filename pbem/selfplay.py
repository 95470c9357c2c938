"""Self-play: bot games played in the engine alone (no store, no mail).

Used by ``pbem selfplay`` and by the bot strength tables of docs/bots.md.
Each configured player is a bot kind: a level of ``pbem.engine.bots``
(``easy`` = the game's greedy bot, also called ``greedy``; ``normal``,
``strong`` = the search), ``random`` (a uniformly random legal move) or a
game's own comparison policy (Squire's ``collector``). With ``rotate`` the
kinds move one seat on every game so no kind keeps the first-player seat.
Everything is reproducible from ``seed``, however many processes play."""
from __future__ import annotations

import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pbem.engine import bots, get_game, validate_options
from pbem.engine.playout import MAX_PLIES, PlayoutStuck

KINDS = ("greedy", "easy", "normal", "strong", "random", "collector")
Z95 = 1.959964


def _policy(name: str, kind: str):
    """The comparison policy ``kind`` of a game's bot module (e.g. Squire's
    ``collector``: ``bot.collect``), or None when the game has none."""
    mod = bots.bot_module(get_game(name))
    return getattr(mod, "POLICIES", {}).get(kind) if mod is not None else None


def check_kind(name: str, kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown bot {kind!r} (bots: {', '.join(KINDS)})")
    if kind == "collector" and _policy(name, kind) is None:
        raise ValueError(f"{name} has no {kind} policy (it is Squire's)")


def pick(kind: str, game, state, seat: int, seed: int):
    if kind in ("greedy", "easy"):
        return bots.choose(game, state, seat, seed, "easy")
    if kind in ("normal", "strong"):
        return bots.choose(game, state, seat, seed, kind)
    if kind == "random":
        return bots.random_move(game, state, seat, seed)
    policy = _policy(game.name, kind)
    if policy is None:
        raise ValueError(f"unknown bot {kind!r} (bots: {', '.join(KINDS)})")
    return policy(state, seat, seed)


@dataclass
class GameRecord:
    seed: int
    kinds: tuple[str, ...]      # kind per seat in this game
    scores: tuple[int, ...]     # per seat
    winners: frozenset[int]
    plies: int
    seconds: float
    think: tuple[tuple[int, float, float], ...] = ()  # per seat: (decisions, seconds in all, longest)


def play_game(name: str, kinds: Sequence[str], seed: int, options: dict | None = None) -> GameRecord:
    """One complete game, seat i played by ``kinds[i]``."""
    game = get_game(name)
    n = len(kinds)
    state = game.initial_state(n, seed, validate_options(game, n, options))
    plies = 0
    think = [[0, 0.0, 0.0] for _ in range(n)]
    t0 = time.perf_counter()
    while True:
        seats = game.to_move(state)
        if not seats:
            break
        if plies >= MAX_PLIES:
            raise PlayoutStuck(f"{name}: no end after {MAX_PLIES} plies")
        # simultaneous steps: every bot decides on its own, so the order is immaterial
        seat = min(seats)
        t = time.perf_counter()
        move = pick(kinds[seat], game, state, seat, seed * 100_003 + plies)
        dt = time.perf_counter() - t
        row = think[seat]
        row[0] += 1
        row[1] += dt
        row[2] = max(row[2], dt)
        state = game.apply(state, seat, move)
        plies += 1
    out = game.outcome(state)
    return GameRecord(seed, tuple(kinds), tuple(out.scores), frozenset(out.winners), plies,
                      time.perf_counter() - t0, tuple((a, b, c) for a, b, c in think))


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if wins == 0 else low), (1.0 if wins == n else high)  # exact at the ends


@dataclass
class Summary:
    game: str
    players: int
    kinds: tuple[str, ...]                        # as configured, before rotation
    records: list[GameRecord] = field(default_factory=list)
    rotate: bool = False

    def _seat_of(self, i: int, g: int) -> int:
        return (i + g) % self.players if self.rotate else i

    def _by_player(self) -> list[list[tuple[int, bool, tuple]]]:
        """(score, won, think) per configured player, following it through rotations."""
        out: list[list[tuple[int, bool, tuple]]] = [[] for _ in self.kinds]
        for g, r in enumerate(self.records):
            for i in range(self.players):
                seat = self._seat_of(i, g)
                out[i].append((r.scores[seat], seat in r.winners, r.think[seat] if r.think else (0, 0.0, 0.0)))
        return out

    def rows(self) -> list[dict]:
        rows = []
        for i, results in enumerate(self._by_player()):
            scores = [s for s, _, _ in results]
            n = len(results)
            wins = sum(w for _, w, _ in results)
            sd = statistics.stdev(scores) if n > 1 else 0.0
            decisions = sum(t[0] for _, _, t in results)
            secs = sum(t[1] for _, _, t in results)
            low, high = wilson(wins, n)
            rows.append({"player": i + 1, "bot": self.kinds[i], "games": n,
                         "mean score": round(statistics.mean(scores), 2) if scores else 0,
                         "score ci": round(Z95 * sd / math.sqrt(n), 2) if n > 1 else 0,
                         "sd": round(sd, 2),
                         "win rate": round(wins / n, 3) if n else 0,
                         "win ci": (round(low, 3), round(high, 3)),
                         "s/move": round(secs / decisions, 4) if decisions else 0,
                         "max s/move": round(max((t[2] for _, _, t in results), default=0.0), 3)})
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
        lines.append(f"{'player':>6}  {'bot':<9} {'mean score':>16} {'win rate':>8} {'95% CI':>15} "
                     f"{'s/move':>7} {'max s':>6}")
        for r in self.rows():
            score = f"{r['mean score']:.1f} ± {r['score ci']:.1f}"
            ci = f"{r['win ci'][0]:.1%}–{r['win ci'][1]:.1%}"
            lines.append(f"{r['player']:>6}  {r['bot']:<9} {score:>16} {r['win rate']:>8.1%} {ci:>15} "
                         f"{r['s/move']:>7.3f} {r['max s/move']:>6.2f}")
        t = self.totals()
        lines.append(f"game length: mean {t['mean plies']} plies (min {t['min plies']}, max {t['max plies']}); "
                     f"{t['seconds']} s of play in all")
        lines.append("(± and CI: 95 % intervals, Wilson's for the win rate; a tie counts as a win for every "
                     "seat that shares it; s/move: one core's seconds per decision)")
        return "\n".join(lines)


def _one(args) -> GameRecord:
    return play_game(*args)


def run(name: str, kinds: Sequence[str], games: int, *, seed: int = 1, rotate: bool = False,
        options: dict | None = None, on_game: Callable[[GameRecord], None] | None = None,
        jobs: int = 1) -> Summary:
    """``games`` games; with ``jobs`` > 1 in that many processes (the same
    records: each game's seed fixes it)."""
    game = get_game(name)
    kinds = tuple(kinds)
    for k in kinds:
        check_kind(game.name, k)
    validate_options(game, len(kinds), options)  # a clear error before any game
    summary = Summary(game.name, len(kinds), kinds, rotate=rotate)
    n = len(kinds)
    plan = [(game.name, tuple(kinds[(s - g) % n] for s in range(n)) if rotate else kinds, seed + g, options)
            for g in range(games)]
    if jobs <= 1:
        records = map(_one, plan)
        for rec in records:
            summary.records.append(rec)
            if on_game:
                on_game(rec)
        return summary
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for rec in pool.map(_one, plan):  # in order: the summary is the same as with one process
            summary.records.append(rec)
            if on_game:
                on_game(rec)
    return summary
