"""A greedy Spyrium bot: one-ply search over the legal moves, scored by the
game's own final scoring (RULES.md §13) plus what the position is worth
later (money, Spyrium, workers, buildings still to use), weighted by the
rounds left. Pure and reproducible from ``seed``; plays only legal moves."""
from __future__ import annotations

from ..base import rng_for
from ..bots import greedy
from .data import ROUNDS
from .game import GAME
from .rules import legal_moves, score_breakdown
from .state import PASS, State


def evaluate(state: State, seat: int) -> float:
    """Points for ``seat`` now plus the value of its resources for the rounds left."""
    p = state.ps[seat]
    total = score_breakdown(p)["total"]
    if state.over:
        return float(total)
    left = (ROUNDS - state.round + 1) / ROUNDS  # 1.0 in round 1, 1/6 in the last
    on_market = sum(sp.count(seat) for sp in state.spaces)
    value = total
    value += 0.30 * p.money + 0.15 * p.money * left      # money buys buildings and residence steps
    value += 0.90 * p.spy + 0.60 * p.spy * left          # Spyrium sells dear and powers factories
    value += 2.5 * p.owned * left                        # a worker is an action every round left
    value += 0.6 * on_market                             # placed workers earn or buy in Phase II
    value += 0.4 * left * sum(1 for t in p.turned if not t)  # buildings still usable this round
    value += 0.8 * len(p.techs) * left
    value += 0.5 * p.res * left
    return value


def choose(state: State, seat: int, seed: int):
    def value(move) -> float:
        v = evaluate(GAME.apply(state, seat, move), seat)
        if move[0] == PASS and not state.over:
            v -= 0.05  # pass only when nothing else helps
        return v

    return greedy(legal_moves(state, seat), value, rng_for(seed, "spyrium-greedy", seat))

