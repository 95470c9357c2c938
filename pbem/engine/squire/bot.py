"""A greedy Squire bot: one-ply search over the legal moves, scored by the
game's final scoring (RULES.md §12: exhibits, commissions as they stand,
leftovers) plus what the position is still worth while the supply lasts
(coins and tickets to buy with, offer cards, a token bought and not yet
placed, commissions that can still be fulfilled). Pure, reproducible from
``seed``; plays only legal moves."""
from __future__ import annotations

from ..base import rng_for
from ..bots import greedy
from .rules import OVER, State, apply_move, legal_moves, load, score_breakdown, to_move


LOOK_AHEAD = ("start", "move")


def evaluate(state: State, seat: int) -> float:
    d = load(state.custom)
    p = state.players[seat]
    b = score_breakdown(d, p)
    if state.phase == OVER:
        return float(b["total"])
    left = min(1.0, len(state.supply) / 24)  # how much of the game remains, roughly
    value = float(b["exhibits"] + b["commissions"])
    items = p.coins + p.rcoins + p.tickets + p.rtickets
    value += (0.30 + 0.35 * left) * items           # spent later on tokens and journeys
    value += (0.6 + 0.6 * left) * len(p.hand)       # offers make trades pay
    value += 1.5 * left * len(p.comms)              # commissions score more as the gallery grows
    value += 0.5 * b["exhibit_count"]               # exhibits feed floors, columns, sets
    if state.bought >= 0 and state.active == seat:
        value += d.tokens[state.bought][1] + 0.5    # bought, about to be placed
    return value


def choose(state: State, seat: int, seed: int):
    def value(move) -> float:
        after = apply_move(state, seat, move)
        if move.kind in LOOK_AHEAD and seat in to_move(after):
            # a journey is worth what can be done where it ends: look one step further
            return max(evaluate(apply_move(after, seat, m), seat) for m in legal_moves(after, seat))
        return evaluate(after, seat)

    return greedy(legal_moves(state, seat), value, rng_for(seed, "squire-greedy", seat))
