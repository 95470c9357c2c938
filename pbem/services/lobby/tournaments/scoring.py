"""A tournament's points and standings: pure functions of the games' results (standard library
only, no I/O). Standings are never kept: they are computed again from the finished games each
time they are shown, so a result corrected (a take-back, a dispute) corrects them too.

**Points.** Two ways to score a table, chosen when the tournament is made:

* ``places``: points by finishing place, from a table per table size (``DEFAULT_POINTS``:
  2-0 for two, 3-1-0 for three, 4-2-1-0 for four, 5-3-2-1-0 for five; any other may be given as
  ``"4-2-1-0"``). Players who share a place (the game's own tie-breaks could not part them)
  share the points of the places they cover: two tied first at a table of four get
  (4 + 2) / 2 = 3 each.
* ``score``: the game's own score normalised, each player's score as a share of the best score
  at the table (100 for the best, 0 for a score of 0 or less), so that a high-scoring game and
  a low-scoring one weigh alike.

Places come from the game's own ranking: the engine's winners and tie-breaks (for instance
Spyrium's remaining money), as every result page shows them.

**Forfeits.** A player who leaves a game (a bot takes their seat for the rest of the round)
forfeits it: no points, a loss for the tie-breaks, and out of later rounds. The players who
stayed are placed among themselves, so a bot standing in takes nobody's points.

**Byes.** A player seated out of a round (see seating.py) gets ``bye`` points: by default the
mean points of a full table's places rounded down to a half (1 for 3-1-0, 1.5 for 4-2-1-0),
which neither rewards nor punishes sitting out.

**Standings** order the players by points, then by the tournament's tie-breaks in the order
given (``TIE_BREAKS``): ``wins`` (first places), ``opponents`` (the sum of the points of
everybody met, as Buchholz's in Swiss chess: who met the strong ranks above who met the weak),
``score`` (the sum of the normalised game scores), ``seconds`` (second places). Players equal on
all of them share a place."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Iterable, Sequence

Player = Hashable

DEFAULT_POINTS = {2: (2, 0), 3: (3, 1, 0), 4: (4, 2, 1, 0), 5: (5, 3, 2, 1, 0)}
TIE_BREAKS = ("wins", "opponents", "score", "seconds")
DEFAULT_TIE_BREAKS = ("wins", "opponents", "score")
SCORINGS = ("places", "score")


class ScoringError(ValueError):
    """A points table or a tie-break that cannot be used; the message says why."""


def parse_points(text: str) -> tuple[float, ...]:
    """``"4-2-1-0"`` -> (4, 2, 1, 0): points for each place, best first, never rising."""
    try:
        out = tuple(float(x) for x in text.strip().split("-"))
    except ValueError:
        raise ScoringError(f"points by place are numbers joined by '-', best first, e.g. 4-2-1-0 (not {text!r})")
    if len(out) < 2 or any(b > a for a, b in zip(out, out[1:])) or min(out) < 0:
        raise ScoringError(f"points by place never rise from first to last and are not negative, e.g. 4-2-1-0 (not {text!r})")
    return out


def format_points(points: Sequence[float]) -> str:
    return "-".join(format_number(p) for p in points)


def format_number(x: float) -> str:
    """1.0 -> "1", 1.5 -> "1.5": points as a person writes them."""
    return f"{round(x, 2):g}"


def parse_tie_breaks(text: str) -> tuple[str, ...]:
    """``"wins,opponents"`` -> ("wins", "opponents"); unknown names refused."""
    names = tuple(w.strip().lower() for w in text.replace(" ", ",").split(",") if w.strip())
    bad = [n for n in names if n not in TIE_BREAKS]
    if bad or len(set(names)) != len(names):
        raise ScoringError(f"tie-breaks are some of {', '.join(TIE_BREAKS)}, each once, e.g. wins,opponents (not {text!r})")
    return names


def points_for(size: int, custom: dict[int, Sequence[float]] | None = None) -> tuple[float, ...]:
    """The points for each place at a table of ``size``: the tournament's own, else the default,
    else (a size with no table) ``size - 1`` down to 0."""
    for table in (custom or {}, DEFAULT_POINTS):
        if size in table:
            pts = tuple(table[size])
            if len(pts) < size:
                pts = pts + (0.0,) * (size - len(pts))
            return pts[:size]
    return tuple(float(size - 1 - i) for i in range(size))


@dataclass(frozen=True)
class TableResult:
    """One finished table: its players in seat order, each one's place (1 = best, shared places
    allowed, as the game's result shows them), each one's final score, and who forfeited."""
    players: tuple
    places: tuple[int, ...]
    scores: tuple[float, ...]
    forfeited: frozenset = frozenset()
    round: int = 0

    def __post_init__(self):
        if not (len(self.players) == len(self.places) == len(self.scores)):
            raise ScoringError("a table's players, places and scores must be as many")


@dataclass(frozen=True)
class Award:
    """What one player took from one table."""
    player: Player
    points: float
    place: int | None  # among those who stayed; None for a forfeit
    share: float  # the game's score as a share of the table's best, 0..100
    forfeit: bool = False


def award(result: TableResult, scoring: str = "places", custom: dict[int, Sequence[float]] | None = None) -> list[Award]:
    """The points each player of ``result`` takes (see the module's docstring)."""
    if scoring not in SCORINGS:
        raise ScoringError(f"scoring is one of {', '.join(SCORINGS)} (not {scoring!r})")
    stayed = [i for i, p in enumerate(result.players) if p not in result.forfeited]
    best = max((result.scores[i] for i in stayed), default=0)
    # places among those who stayed, keeping the game's ties
    order = sorted(stayed, key=lambda i: result.places[i])
    place_of, n = {}, 0
    for k, i in enumerate(order):
        if k == 0 or result.places[i] != result.places[order[k - 1]]:
            n = k + 1
        place_of[i] = n
    table = points_for(len(result.players), custom)
    out = []
    for i, p in enumerate(result.players):
        share = round(100 * result.scores[i] / best, 2) if best > 0 and result.scores[i] > 0 else 0.0
        if i not in place_of:
            out.append(Award(p, 0.0, None, share, True))
            continue
        if scoring == "score":
            pts = share
        else:
            tied = [j for j in stayed if place_of[j] == place_of[i]]
            spanned = table[place_of[i] - 1: place_of[i] - 1 + len(tied)]
            pts = sum(spanned) / len(tied)
        out.append(Award(p, round(pts, 2), place_of[i], share))
    return out


def bye_points(size: int, scoring: str = "places", custom: dict[int, Sequence[float]] | None = None) -> float:
    """A bye's points: the mean of a full table's points, rounded down to a half (see the module's
    docstring); with ``score`` scoring, 50."""
    if scoring == "score":
        return 50.0
    table = points_for(size, custom)
    return int(2 * sum(table) / len(table)) / 2


@dataclass
class Standing:
    """One player's line in the standings."""
    player: Player
    points: float = 0.0
    played: int = 0
    wins: int = 0
    seconds: int = 0
    byes: int = 0
    forfeits: int = 0
    score: float = 0.0
    opponents: float = 0.0
    adjusted: float = 0.0  # the director's adjustments, in the points already
    place: int = 0
    met: list = field(default_factory=list)

    def key(self, tie_breaks: Sequence[str]) -> tuple:
        return (self.points, *(getattr(self, t) for t in tie_breaks))


def standings(players: Iterable[Player], results: Iterable[TableResult], byes: Iterable[tuple[int, Player]] = (),
              *, scoring: str = "places", custom: dict[int, Sequence[float]] | None = None,
              tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS, bye_size: int = 3,
              adjustments: Iterable[tuple[Player, float]] = ()) -> list[Standing]:
    """The standings from the finished tables, the byes given (``(round, player)``) and the
    director's adjustments (``(player, points)``, each a record with its reason), best first, with
    shared places for players equal on points and every tie-break."""
    for t in tie_breaks:
        if t not in TIE_BREAKS:
            raise ScoringError(f"unknown tie-break {t!r}: one of {', '.join(TIE_BREAKS)}")
    rows: dict = {p: Standing(p) for p in players}
    for r in results:
        for a in award(r, scoring, custom):
            row = rows.setdefault(a.player, Standing(a.player))
            row.played += 1
            row.points += a.points
            row.score += a.share
            row.wins += a.place == 1
            row.seconds += a.place == 2
            row.forfeits += a.forfeit
            row.met.extend(q for q in r.players if q != a.player)
    for _, p in byes:
        row = rows.setdefault(p, Standing(p))
        row.byes += 1
        row.points += bye_points(bye_size, scoring, custom)
    for p, points in adjustments:
        row = rows.setdefault(p, Standing(p))
        row.points += points
        row.adjusted += points
    for row in rows.values():
        row.points = round(row.points, 2)
        row.adjusted = round(row.adjusted, 2)
        row.score = round(row.score, 2)
    for row in rows.values():
        row.opponents = round(sum(rows[q].points for q in row.met if q in rows), 2)
    ordered = sorted(rows.values(), key=lambda x: tuple(-v for v in x.key(tie_breaks)) + (str(x.player),))
    place = 0
    for k, row in enumerate(ordered):
        if k == 0 or row.key(tie_breaks) != ordered[k - 1].key(tie_breaks):
            place = k + 1
        row.place = place
    return ordered


def ranked(rows: Sequence[Standing]) -> list:
    """The players in standing order (what seating.swiss_round takes)."""
    return [r.player for r in rows]


def places_from_outcome(scores: Sequence[float], ranking: Sequence[int] = (), winners: Iterable[int] = ()) -> tuple[int, ...]:
    """Each seat's place from an engine's outcome (scores, the ranking with its tie-breaks, the
    winners): winners share place 1, equal scores share a place, as the result pages show."""
    order = list(ranking) or sorted(range(len(scores)), key=lambda i: -scores[i])
    won = set(winners)
    places = [0] * len(scores)
    last, place, prev_won = None, 0, False
    for n, i in enumerate(order):
        # a winner named by the rules' tie-break is parted from a loser on the same score
        if last is None or scores[i] != last or i in won or prev_won:
            place = n + 1
        last, prev_won = scores[i], i in won
        places[i] = 1 if i in won else place
    return tuple(places)
