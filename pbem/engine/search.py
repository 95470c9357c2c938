"""Information-set Monte Carlo tree search (single-observer ISMCTS) on the
engine protocol: the search bot of every game (docs/bots.md).

The searching seat never looks at the true state. Each iteration asks the
game's :class:`Knowledge` for a *determinisation*: a full state drawn from
what the seat can see (its own hand, the public board, card counts), with
everything hidden -- the other seats' hands, deck orders, the seed of later
draws, secret choices of a simultaneous step -- dealt anew from the
iteration's generator. One tree is shared by all determinisations; a child
counts as *available* only in the iterations whose determinisation allows
its move, and the selection rule uses those counts (Cowling, Powley and
Whitehouse, "Information Set Monte Carlo Tree Search", 2012).

Each iteration descends the tree, adds one node, plays a short rollout with
the game's policy, and scores the position it reached with the game's
evaluation (the final scores when the game is over). Rewards are per seat:
every node keeps the reward of the seat that made its move, so each seat
maximises its own (max^n for 3 to 5 players).

Pure: standard library only, no clock. The budget is a number of
iterations; a caller with a clock (the services) may pass ``stop``, asked
between iterations, as a guard. Reproducible: the same view, seat, seed and
budget give the same move.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

from .base import Game, rng_for

State = Any


class Knowledge:
    """What one game tells the search. A game's ``bot.py`` subclasses it."""

    #: plies of rollout after the new node before the evaluation is read
    rollout_plies: int = 8
    #: how many points of estimated final-score lead make a sure win (reward ~0.88)
    scale: float = 10.0
    #: at most this many children per node, the best by ``prior`` (None: all)
    width: int | None = None

    def players(self, state: State) -> int:
        """How many seats the game has."""
        return state.n

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """A state ``seat`` cannot tell from ``state``: every part it may not
        see dealt anew from ``rng``. Must read only what ``seat`` may see, so
        that two states with the same view give the same determinisations."""
        raise NotImplementedError

    def evaluate(self, state: State, seat: int) -> float:
        """``seat``'s estimated final score in ``state`` (game not over)."""
        raise NotImplementedError

    def rollout_move(self, state: State, seat: int, legal: Sequence, rng: random.Random) -> Any:
        """The rollout policy: uniformly random unless a game knows better."""
        return legal[rng.randrange(len(legal))]

    def prior(self, state: State, seat: int, moves: Sequence) -> list[float]:
        """A score per move, higher = more promising; used to keep the
        ``width`` best children of a node. Default: no preference."""
        return [0.0] * len(moves)


class Node:
    __slots__ = ("seat", "move", "parent", "children", "visits", "avail", "reward")

    def __init__(self, seat: int, move: Hashable, parent: "Node | None") -> None:
        self.seat = seat          # the seat whose move led here
        self.move = move
        self.parent = parent
        self.children: dict = {}  # (seat, move) -> Node
        self.visits = 0
        self.avail = 1
        self.reward = 0.0         # summed reward of ``seat``


@dataclass(frozen=True)
class Budget:
    iterations: int
    exploration: float = 0.7


def rewards(game: Game, kb: Knowledge, state: State, n: int) -> list[float]:
    """Per-seat reward in [0, 1]: at the end, a share of the win (and a
    little for the margin); before it, a logistic of the estimated lead over
    the best other seat."""
    out = game.outcome(state)
    if out is not None:
        share = 1.0 / max(1, len(out.winners))
        return [0.8 * (share if s in out.winners else 0.0) + 0.2 * _logistic(_lead(out.scores, s) / kb.scale)
                for s in range(n)]
    values = [kb.evaluate(state, s) for s in range(n)]
    return [_logistic(_lead(values, s) / kb.scale) for s in range(n)]


def _lead(values: Sequence[float], s: int) -> float:
    # a seat alone (a solo game: a practice game's hints search one) leads by its whole value
    return values[s] - max((v for t, v in enumerate(values) if t != s), default=0.0)


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, x))))


def _seat_to_act(seats: frozenset, me: int, at_root: bool) -> int:
    # in a simultaneous step the searching seat decides first at the root (its
    # own choice is what is asked); deeper, seats act in seat order
    if at_root and me in seats:
        return me
    return min(seats)


def _candidates(game: Game, kb: Knowledge, state: State, seat: int) -> list:
    legal = game.legal_moves(state, seat)
    if kb.width is None or len(legal) <= kb.width:
        return legal
    scores = kb.prior(state, seat, legal)
    order = sorted(range(len(legal)), key=lambda i: (-scores[i], i))[: kb.width]
    return [legal[i] for i in sorted(order)]


def rollout(game: Game, kb: Knowledge, state: State, plies: int, rng: random.Random) -> State:
    """``state`` after up to ``plies`` moves of the game's rollout policy, the lowest seat to move
    acting each time (fewer where the game ends or a seat has no move)."""
    for _ply in range(plies):
        seats = game.to_move(state)
        if not seats:
            break
        actor = min(seats)
        legal = game.legal_moves(state, actor)
        if not legal:
            break
        state = game.apply(state, actor, kb.rollout_move(state, actor, legal, rng))
    return state


def search(game: Game, kb: Knowledge, state: State, seat: int, seed: int, budget: Budget,
           stop: Callable[[], bool] | None = None, include: Sequence = ()) -> tuple[Any, dict]:
    """The move of ``seat`` after ``budget.iterations`` iterations of ISMCTS,
    and statistics (visits per root move, iterations run). ``include``: legal
    moves searched at the root even where the prior would leave them out (a
    review weighs the move a player made, whatever the search thinks of it)."""
    rng = rng_for(seed, "ismcts", seat)
    # even the root's moves and their priors come from a determinisation: a prior that applies a move
    # (and so draws a card) must not see the true deck; the seat's own legal moves are the same in all
    root_moves = _candidates(game, kb, kb.determinize(state, seat, rng), seat)
    if include:  # a new list: legal_moves may hand out a list it keeps
        root_moves = root_moves + [m for m in dict.fromkeys(include) if m not in root_moves]
    if not root_moves:
        raise ValueError(f"seat {seat} has no legal move")
    if len(root_moves) == 1:
        return root_moves[0], {"iterations": 0, "visits": {}}
    n = kb.players(state)
    root = Node(-1, None, None)
    done = 0
    c = budget.exploration
    for _it in range(budget.iterations):
        if stop is not None and done and stop():
            break
        done += 1
        d = kb.determinize(state, seat, rng)
        node = root
        while True:
            seats = game.to_move(d)
            if not seats:
                break
            actor = _seat_to_act(seats, seat, node is root)
            if node is root:
                moves = root_moves  # the root's moves are the seat's own: the same in every determinisation
            else:
                moves = _candidates(game, kb, d, actor)
                if not moves:
                    break
            untried = []
            for m in moves:
                child = node.children.get((actor, m))
                if child is None:
                    untried.append(m)
                    continue
                child.avail += 1
            if untried:
                m = untried[rng.randrange(len(untried))]
                child = Node(actor, m, node)
                node.children[(actor, m)] = child
                d = game.apply(d, actor, m)
                node = child
                break
            best, best_v = None, -1.0
            for m in moves:
                child = node.children[(actor, m)]
                v = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if v > best_v:
                    best, best_v = child, v
            d = game.apply(d, actor, best.move)
            node = best
        d = rollout(game, kb, d, kb.rollout_plies, rng)
        r = rewards(game, kb, d, n)
        while node is not root:
            node.visits += 1
            node.reward += r[node.seat]
            node = node.parent
    visits = {m: (root.children[(seat, m)].visits if (seat, m) in root.children else 0) for m in root_moves}
    means = {m: (root.children[(seat, m)].reward / root.children[(seat, m)].visits
                 if (seat, m) in root.children and root.children[(seat, m)].visits else 0.0) for m in root_moves}
    best = max(root_moves, key=lambda m: (visits[m], means[m]))
    return best, {"iterations": done, "visits": visits, "means": means}
