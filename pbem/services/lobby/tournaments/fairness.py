"""How fair the seating is, measured over many simulated seasons of random results (pure:
standard library only; every season's results are drawn from its own seeded generator).

    python -m pbem.services.lobby.tournaments.fairness [--seasons 1000]

prints the figures docs/tournaments.md quotes. For each format and size of field:

* **repeats**: meetings of a pair beyond their first, per season (0 is perfect);
* **first seats**: the spread between the player who started most often and the one who started
  least, per season (0 or 1 is as even as the tables allow);
* **byes**: the most byes one player had in a season, and the seasons where somebody had a
  second bye while another had none (must be 0).

Beside the Swiss-like league the same figures for a random draw each round show what the
method is worth."""
from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from . import scoring, seating


@dataclass
class Figures:
    """Totals over the seasons simulated; the properties give what the docs quote."""
    label: str
    seasons: int = 0
    repeats: int = 0
    worst_repeats: int = 0
    clean_seasons: int = 0  # seasons without any repeat
    spread_total: int = 0
    worst_spread: int = 0
    worst_byes: int = 0
    unfair_byes: int = 0
    rounds_total: int = 0
    rounds_min: int = 0
    rounds_max: int = 0

    def add_season(self, rounds: Sequence[seating.Round], players: Sequence) -> None:
        h = seating.History.of(rounds)
        rep = sum(max(0, m - 1) for m in h.met.values())
        firsts = [h.seats[(p, 0)] for p in players]
        spread = max(firsts) - min(firsts)
        self.seasons += 1
        self.repeats += rep
        self.worst_repeats = max(self.worst_repeats, rep)
        self.clean_seasons += rep == 0
        self.spread_total += spread
        self.worst_spread = max(self.worst_spread, spread)
        self.worst_byes = max(self.worst_byes, max((h.byes[p] for p in players), default=0))
        # a second bye to anybody while somebody still has none, round by round
        seen: Counter = Counter()
        for r in rounds:
            for p in r.byes:
                if seen[p] >= 1 and any(seen[q] == 0 for q in players):
                    self.unfair_byes += 1
                seen[p] += 1
        n = len(rounds)
        self.rounds_total += n
        self.rounds_min = n if self.seasons == 1 else min(self.rounds_min, n)
        self.rounds_max = max(self.rounds_max, n)

    @property
    def mean_repeats(self) -> float:
        return self.repeats / max(1, self.seasons)

    @property
    def mean_spread(self) -> float:
        return self.spread_total / max(1, self.seasons)

    @property
    def mean_rounds(self) -> float:
        return self.rounds_total / max(1, self.seasons)


def random_result(table: Sequence, rng: random.Random, number: int) -> scoring.TableResult:
    """A table's result drawn at random: scores 0..60, places by score (ties shared)."""
    scores = tuple(float(rng.randint(0, 60)) for _ in table)
    return scoring.TableResult(tuple(table), scoring.places_from_outcome(scores), scores, round=number)


def swiss_season(players: Sequence, size: int, rounds: int, seed: int, least: int = 2,
                 draw: bool = False) -> list[seating.Round]:
    """One season of a Swiss-like league with random results (``draw``: a fresh random seating
    each round instead, the baseline)."""
    rng = random.Random(seed)
    done: list[seating.Round] = []
    results: list[scoring.TableResult] = []
    for number in range(1, rounds + 1):
        history = seating.History.of(done)
        rows = scoring.standings(players, results, [(i, p) for i, r in enumerate(done, 1) for p in r.byes])
        order = scoring.ranked(rows)
        if draw:
            order = list(players)
            rng.shuffle(order)
            sizes, nbyes = seating.table_sizes(len(order), size, least)
            byes = seating.give_byes(order, nbyes, history)
            left = [p for p in order if p not in byes]
            tables, k = [], 0
            for n in sizes:
                tables.append(tuple(left[k:k + n]))
                k += n
            r = seating.Round(tuple(tables), tuple(byes))
        else:
            r = seating.swiss_round(order, size, history, seed, number, least)
        results.extend(random_result(t, rng, number) for t in r.tables)
        done.append(r)
    return done


def measure_swiss(n: int, size: int, rounds: int, seasons: int, least: int = 2, draw: bool = False) -> Figures:
    players = list(range(1, n + 1))
    label = f"{'random draw' if draw else 'Swiss-like'}: {n} players, tables of {size}" \
            f"{f' (game of {least}+)' if least > 2 else ''}, {rounds} rounds"
    f = Figures(label)
    for s in range(seasons):
        f.add_season(swiss_season(players, size, rounds, s, least, draw), players)
    return f


def measure_round_robin(n: int, size: int, seasons: int, least: int = 2) -> Figures:
    """The round robin's published schedules for ``seasons`` seeds: the rounds they take."""
    players = list(range(1, n + 1))
    f = Figures(f"round robin: {n} players, tables of {size}")
    for s in range(seasons):
        rounds = seating.round_robin(players, size, s, least)
        met = {frozenset(pr) for r in rounds for t in r.tables for pr in combinations(t, 2)}
        assert len(met) == n * (n - 1) // 2, "a pair never met"
        f.add_season(rounds, players)
    return f


def elimination_season(players: Sequence, size: int, advance: int, seed: int, least: int = 2) -> list[seating.Round]:
    rng = random.Random(seed)
    left, done = list(players), []
    rng.shuffle(left)
    number = 0
    while True:
        number += 1
        r = seating.elimination_round(left, size, seating.History.of(done), seed, number, least)
        done.append(r)
        if len(r.tables) == 1 and not r.byes:
            return done
        finishes = []
        for t in r.tables:
            res = random_result(t, rng, number)
            finishes.append([p for _, p in sorted(zip(res.places, t), key=lambda x: x[0])])
        left = seating.advancing(finishes, advance, r.byes)


def measure_elimination(n: int, size: int, advance: int, seasons: int, least: int = 2) -> Figures:
    players = list(range(1, n + 1))
    f = Figures(f"elimination: {n} players, tables of {size}, top {advance} go on")
    for s in range(seasons):
        f.add_season(elimination_season(players, size, advance, s, least), players)
    return f


SWISS = [(9, 3, 3, 2), (12, 3, 5, 2), (12, 4, 4, 2), (10, 3, 4, 2), (10, 3, 4, 3), (17, 4, 5, 3), (20, 5, 4, 3)]
ROBIN = [(4, 2), (7, 2), (6, 3), (7, 3), (9, 3), (12, 4), (10, 4), (8, 5)]
ELIMINATION = [(27, 3, 1), (16, 4, 2), (20, 4, 1)]


def report(seasons: int) -> str:
    lines = [f"Over {seasons} simulated seasons each (random results; seeds 0..{seasons - 1}).", "",
             "| format | repeats per season (mean / worst / seasons with none) | first-seat spread (mean / worst) "
             "| most byes to one player | second byes before everybody had one |",
             "|---|---|---|---|---|"]
    for n, size, rounds, least in SWISS:
        for draw in (False, True):
            f = measure_swiss(n, size, rounds, seasons, least, draw)
            lines.append(f"| {f.label} | {f.mean_repeats:.2f} / {f.worst_repeats} / {100 * f.clean_seasons / f.seasons:.1f}% "
                         f"| {f.mean_spread:.2f} / {f.worst_spread} | {f.worst_byes} | {f.unfair_byes} |")
    lines += ["", "| round robin | rounds (lower bound / min / mean / max) | repeats per schedule (mean / worst) "
              "| first-seat spread (mean / worst) | most byes to one player |", "|---|---|---|---|---|"]
    for n, size in ROBIN:
        f = measure_round_robin(n, size, seasons)
        # each player meets at most size - 1 others a round; at tables of two, an odd count sits one out each round
        bound = n if size == 2 and n % 2 else -(-(n - 1) // (size - 1))
        lines.append(f"| {f.label} | {bound} / {f.rounds_min} / {f.mean_rounds:.2f} / {f.rounds_max} "
                     f"| {f.mean_repeats:.2f} / {f.worst_repeats} | {f.mean_spread:.2f} / {f.worst_spread} | {f.worst_byes} |")
    lines += ["", "| elimination | rounds | first-seat spread (mean / worst) | most byes to one player |",
              "|---|---|---|---|"]
    for n, size, advance in ELIMINATION:
        f = measure_elimination(n, size, advance, seasons)
        lines.append(f"| {f.label} | {f.rounds_min}–{f.rounds_max} | {f.mean_spread:.2f} / {f.worst_spread} | {f.worst_byes} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seasons", type=int, default=1000)
    print(report(ap.parse_args(argv).seasons))


if __name__ == "__main__":
    main()
