"""Who sits at which table, and in which seat, in each round of a tournament: pure functions of
the players, what happened in earlier rounds and a seed (standard library only, no clock, no
I/O, no global random generator), so that a round seated twice is seated the same.

Three formats, for tables of ``size`` seats (the game's own minimum ``least`` and maximum):

* **Swiss-like league** (``swiss_round``). The method is Swiss pairing (FIDE's Dutch system
  in spirit: players of equal standing meet, nobody meets the same opponent twice while that
  can be helped) adapted to tables of more than two, after the greedy construction with
  local search used for the *social golfer problem* (Harvey's formulation; Dotú and Van
  Hentenryck, "Scheduling social golfers locally", 2005): the tables are first filled down
  the standings (the best unseated player opens a table, the next ones in standing who have
  not met those already there fill it), then any two players at different tables swap while
  that lowers the cost (and, while a rematch is left, again from a few seeded shuffles,
  keeping the cheapest) ``REPEAT * (earlier meetings among tablemates, squared) + (the
  spread of standing at each table) + (its seats * a table where all have started more
  often than the least-started)``. Repeats weigh far more than standing: as in Swiss chess, a
  rematch is avoided first; then every table holds somebody due to start; then players of
  like standing are brought together. The first round, with no standing yet, is a seeded draw.
* **Round robin** for small groups (``round_robin``): a schedule published before the first
  round, every pair meeting at least once. Tables of two follow the circle method (Berger
  tables), which is exact (``n - 1`` rounds); larger tables follow the greedy covering of
  the social golfer heuristics: each round is built to seat together as many pairs who have
  not met yet as it can (a table opens with the player who has the most partners still to
  meet), until no pair is left. The lower bound is ``ceil((n - 1) / (size - 1))`` rounds;
  ``docs/tournaments.md`` gives the rounds it takes.
* **Elimination by tables** (``elimination_round`` and ``advancing``): the players still in,
  in seeding order, are dealt to tables in a serpentine (1st, 2nd, 3rd to tables A, B, C,
  then 4th, 5th, 6th to C, B, A ...), so that the strongest meet late; the top ``advance``
  of each table go on, until one table plays the final.

**When the count does not divide.** Every format seats ``ceil(n / size)`` tables, as even as
can be (tables of ``size`` and ``size - 1``, as a rule), so that everybody plays. Byes
are given only when a table one short would be below the game's minimum (tables of two for
a game of two, or fewer players than one table's minimum): then the players left over sit
out the round, and the byes go to the players with the fewest byes so far, the lowest in
standing first (a bye scores as the format's rules say, see scoring.py).

**The first seat.** Within each table the seats are given position by position: the first
seat to the player who has had it fewest times this season, then the second seat likewise,
and so on; ties are drawn by the seed. Over a season every player starts about as often as
every other (the figures over 1,000 simulated seasons are in docs/tournaments.md, made by
``python -m pbem.services.lobby.tournaments.fairness``).

Players are any hashable, sortable values (the store uses user ids). A table is a tuple of
players in seat order; a round is a ``Round`` (its tables and its byes)."""
from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Hashable, Iterable, Sequence

Player = Hashable
Table = tuple

REPEAT = 1000  # the weight of one repeated meeting (squared per pair) against one place of standing spread
MAX_SWAP_PASSES = 30  # the local search stops earlier when a pass improves nothing; this only bounds it
RESTARTS = 8  # fresh starts of the local search while the best seating found still has a rematch


class SeatingError(ValueError):
    """A tournament that cannot be seated as asked (too few players, a table size below the game's
    minimum); the message says why."""


@dataclass(frozen=True)
class Round:
    """One round: its tables (each a tuple of players in seat order, seat 1 first) and the players
    who sit it out."""
    tables: tuple[Table, ...]
    byes: tuple = ()

    def players(self) -> list:
        return [p for t in self.tables for p in t] + list(self.byes)


@dataclass
class History:
    """What earlier rounds leave behind that seating must balance: how often each pair met, how
    often each player held each seat, how many byes each had. ``History.of(rounds)`` counts it."""
    met: Counter = field(default_factory=Counter)  # frozenset({a, b}) -> meetings
    seats: Counter = field(default_factory=Counter)  # (player, seat index) -> times
    byes: Counter = field(default_factory=Counter)  # player -> byes

    @classmethod
    def of(cls, rounds: Iterable[Round]) -> "History":
        h = cls()
        for r in rounds:
            h.add(r)
        return h

    def add(self, r: Round) -> None:
        for t in r.tables:
            for i, p in enumerate(t):
                self.seats[(p, i)] += 1
            for a, b in combinations(t, 2):
                self.met[frozenset((a, b))] += 1
        for p in r.byes:
            self.byes[p] += 1


def table_sizes(n: int, size: int, least: int = 2) -> tuple[list[int], int]:
    """How ``n`` players sit at tables of at most ``size``: the sizes of the tables (the larger
    first) and the number of byes. As few tables as seat everybody, as even as can be (tables of
    ``size`` and ``size - 1`` as a rule; 3 and 2 for five players at tables of four) while the
    smallest is still a game (``least``); else full tables and the rest sit out."""
    if size < least or least < 1:
        raise SeatingError(f"a table of {size} is below the game's minimum of {least}")
    if n < least:
        raise SeatingError(f"{n} players cannot fill a table (at least {least})")
    tables = math.ceil(n / size)
    small, extra = divmod(n, tables)
    if small >= least:
        return [small + 1] * extra + [small] * (tables - extra), 0
    tables = n // size
    return [size] * tables, n - tables * size


def _rng(seed: int | str, *salt) -> random.Random:
    # a string seed is hashed by SHA-512 inside random, the same on every run and machine
    return random.Random(":".join(str(x) for x in (seed, *salt)))


def give_byes(ranked: Sequence[Player], count: int, history: History) -> list:
    """The ``count`` players who sit out: the fewest byes so far first, the lowest in standing
    among them first (``ranked`` is best first)."""
    if count <= 0:
        return []
    place = {p: i for i, p in enumerate(ranked)}
    return sorted(ranked, key=lambda p: (history.byes[p], -place[p]))[:count]


def assign_seats(players: Iterable[Player], history: History, rng: random.Random) -> Table:
    """The seat order at one table: seat 1 to whoever held it least, then seat 2 likewise, ...;
    ties drawn by ``rng``."""
    left = list(players)
    rng.shuffle(left)
    out = []
    for i in range(len(left)):
        # stable min after the shuffle: equal counts are ordered by the draw
        best = min(left, key=lambda p: history.seats[(p, i)])
        left.remove(best)
        out.append(best)
    return tuple(out)


def _table_cost(members: Sequence[Player], history: History, place: dict, starts: dict) -> int:
    repeats = sum(history.met[frozenset((a, b))] ** 2 for a, b in combinations(members, 2))
    spread = max(place[p] for p in members) - min(place[p] for p in members)
    # a table whose every player has started more often than the least-started must give the
    # first seat to one of them again: that weighs above standing, below a repeat
    behind = min(starts[p] for p in members) - starts["least"]
    return REPEAT * repeats + len(members) * behind + spread


def _improve(groups: list[list], cost) -> None:
    """Swap two players of different tables while that lowers the total cost (first improvement,
    in a fixed order: the result depends on the seed only through the starting groups)."""
    costs = [cost(g) for g in groups]
    for _ in range(MAX_SWAP_PASSES):
        better = False
        for x, y in combinations(range(len(groups)), 2):
            gx, gy = groups[x], groups[y]
            for i in range(len(gx)):
                for j in range(len(gy)):
                    gx[i], gy[j] = gy[j], gx[i]
                    cx, cy = cost(gx), cost(gy)
                    if cx + cy < costs[x] + costs[y]:
                        costs[x], costs[y] = cx, cy
                        better = True
                    else:
                        gx[i], gy[j] = gy[j], gx[i]
        if not better:
            return


def swiss_round(ranked: Sequence[Player], size: int, history: History, seed: int | str, number: int,
                least: int = 2) -> Round:
    """Round ``number`` of a Swiss-like league: ``ranked`` is the standing, best first (for the
    first round, any order: it is drawn by the seed)."""
    rng = _rng(seed, "swiss", number)
    ranked = list(ranked)
    if len(set(ranked)) != len(ranked):
        raise SeatingError("a player is listed twice")
    if number == 1:
        rng.shuffle(ranked)  # no standing yet: a draw
    sizes, nbyes = table_sizes(len(ranked), size, least)
    byes = give_byes(ranked, nbyes, history)
    playing = [p for p in ranked if p not in byes]
    place = {p: i for i, p in enumerate(playing)}
    left = list(playing)
    groups: list[list] = []
    for n in sizes:
        g = [left.pop(0)]
        while len(g) < n:
            # the next in standing who has met nobody here; failing that, who met them least
            best = min(left, key=lambda p: (sum(history.met[frozenset((p, q))] for q in g), place[p]))
            left.remove(best)
            g.append(best)
        groups.append(g)
    starts = {p: history.seats[(p, 0)] for p in playing}
    starts["least"] = min(starts.values())

    def cost(g):
        return _table_cost(g, history, place, starts)

    _improve(groups, cost)
    best, best_cost = groups, sum(cost(g) for g in groups)
    # swaps alone can stall with a rematch that another seating avoids: while one is left, start again
    # from a few seeded shuffles and keep the cheapest
    for _ in range(RESTARTS):
        if best_cost < REPEAT:
            break
        order = list(playing)
        rng.shuffle(order)
        trial, k = [], 0
        for n in sizes:
            trial.append(order[k:k + n])
            k += n
        _improve(trial, cost)
        trial_cost = sum(cost(g) for g in trial)
        if trial_cost < best_cost:
            best, best_cost = trial, trial_cost
    groups = best
    groups.sort(key=lambda g: min(place[p] for p in g))  # table 1 is the top table
    return Round(tuple(assign_seats(g, history, rng) for g in groups), tuple(byes))


def _circle(players: list, seed: int | str) -> list[Round]:
    """Tables of two: the circle method (Berger tables). One player stays, the others turn one
    place each round; with an odd count a phantom makes the bye."""
    rng = _rng(seed, "circle")
    ps = list(players)
    rng.shuffle(ps)
    ghost = object()
    if len(ps) % 2:
        ps.append(ghost)
    n = len(ps)
    history = History()
    rounds = []
    for r in range(n - 1):
        pairs, byes = [], []
        for i in range(n // 2):
            a, b = ps[i], ps[n - 1 - i]
            if ghost in (a, b):
                byes.append(b if a is ghost else a)
            else:
                pairs.append(assign_seats((a, b), history, rng))
        rnd = Round(tuple(pairs), tuple(byes))
        history.add(rnd)
        rounds.append(rnd)
        ps = [ps[0], ps[-1], *ps[1:-1]]
    return rounds


def round_robin(players: Sequence[Player], size: int, seed: int | str, least: int = 2,
                max_rounds: int | None = None) -> list[Round]:
    """The whole schedule of a round robin, published before it starts: rounds until every pair
    has sat at a table together (tables of two: the circle method; larger: greedy covering, see
    the module's docstring). ``max_rounds`` cuts it short (when there is no time for all)."""
    players = list(players)
    if len(set(players)) != len(players):
        raise SeatingError("a player is listed twice")
    if size == 2 and least <= 2 and len(players) > 2:
        rounds = _circle(players, seed)
        return rounds[:max_rounds] if max_rounds else rounds
    rng = _rng(seed, "robin")
    order = list(players)
    rng.shuffle(order)
    sizes, nbyes = table_sizes(len(order), size, least)
    history = History()
    need = {frozenset(pr) for pr in combinations(order, 2)}
    rounds: list[Round] = []
    bound = max_rounds or 4 * len(order)
    while need and len(rounds) < bound:
        def fresh(p, g):
            return sum(frozenset((p, q)) in need for q in g)
        # byes: whoever has had fewest, and among them who still has the fewest pairs to meet
        partners = Counter(p for pr in need for p in pr)
        byes = sorted(order, key=lambda p: (history.byes[p], partners[p], order.index(p)))[:nbyes]
        left = [p for p in order if p not in byes]
        groups = []
        for n in sizes:
            g = [max(left, key=lambda p: partners[p])]
            left.remove(g[0])
            while len(g) < n:
                best = max(left, key=lambda p: fresh(p, g))
                left.remove(best)
                g.append(best)
            groups.append(g)
        _improve(groups, lambda g: -sum(frozenset(pr) in need for pr in combinations(g, 2)))
        rnd = Round(tuple(assign_seats(g, history, rng) for g in groups), tuple(byes))
        history.add(rnd)
        need -= {frozenset(pr) for t in rnd.tables for pr in combinations(t, 2)}
        rounds.append(rnd)
    return rounds


def elimination_round(seeded: Sequence[Player], size: int, history: History, seed: int | str,
                      number: int, least: int = 2) -> Round:
    """A round of elimination: ``seeded`` (best first) dealt to tables in a serpentine, so that
    the top seeds are apart; when the count does not divide, the last tables are one seat short
    (or, below the game's minimum, the lowest seeds with fewest byes sit out and go on)."""
    rng = _rng(seed, "elimination", number)
    sizes, nbyes = table_sizes(len(seeded), size, least)
    byes = give_byes(seeded, nbyes, history)
    playing = [p for p in seeded if p not in byes]
    groups: list[list] = [[] for _ in sizes]
    k = 0
    while k < len(playing):
        row = range(len(sizes)) if (k // len(sizes)) % 2 == 0 else range(len(sizes) - 1, -1, -1)
        for t in row:
            if k < len(playing) and len(groups[t]) < sizes[t]:
                groups[t].append(playing[k])
                k += 1
        if all(len(g) == n for g, n in zip(groups, sizes)):
            break
    return Round(tuple(assign_seats(g, history, rng) for g in groups), tuple(byes))


def advancing(finishes: Sequence[Sequence[Player]], advance: int, byes: Sequence[Player] = ()) -> list:
    """Who goes on from an elimination round: the top ``advance`` of each table (``finishes``: each
    table's players in finishing order, the game's tie-breaks already applied), seeded for the
    next round by place (every table's winner before any second), then by table order; players
    with a bye go on after them."""
    if advance < 1:
        raise SeatingError("at least one player of each table must go on")
    out = []
    for place in range(advance):
        out.extend(f[place] for f in finishes if place < len(f))
    return out + list(byes)


def is_final(remaining: int, size: int) -> bool:
    """The players still in fit one table: the next round is the final."""
    return remaining <= size
