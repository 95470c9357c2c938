"""A greedy It's a Wonderful World bot: one-ply search over the legal
atomic decisions, scored by the game's final scoring (RULES.md §12) plus
what the empire is still worth: developments under construction by how far
they are filled, production of the constructed ones for the rounds left,
drafted cards, Krystallium and cubes on the empire card. Each seat decides
on its own in simultaneous steps and looks only at its own player. Pure,
reproducible from ``seed``; plays only legal moves."""
from __future__ import annotations

from ..base import rng_for
from ..bots import greedy
from .data import CARDS
from .rules import DRAFT, OVER, State, legal, play, score


ROUNDS = 4


def card_value(cid: str, rounds_left: int) -> float:
    """What a development is worth once constructed: its points, its
    multiplier points, and its production for the rounds still to come."""
    c = CARDS[cid]
    v = float(c.vp)
    if c.vp_per is not None:
        v += 2.5 * c.vp_per[0]
    v += 0.9 * rounds_left * (sum(c.prod) + (1.5 if c.prod_per else 0))
    v += 0.8 * sum(c.bonus)
    return v


def cost_of(cid: str) -> int:
    return max(1, sum(CARDS[cid].cost))


def evaluate(state: State, seat: int) -> float:
    p = state.players[seat]
    total = score(p, state.face)["total"]
    if state.phase == OVER:
        return float(total)
    left = max(0, ROUNDS - state.round)  # full rounds after this one
    value = float(total)
    for inst in p.built:
        c = CARDS[inst.split("#")[0]]
        value += 0.9 * left * (sum(c.prod) + (1.5 if c.prod_per else 0))
    for site in p.sites:
        cid = site.inst.split("#")[0]
        done = sum(site.filled) / cost_of(cid)
        value += (0.25 + 0.6 * done) * card_value(cid, left)
    for inst in p.draft:
        cid = inst.split("#")[0]
        value += 0.3 * card_value(cid, left) + 0.2 * 1
    if state.phase == DRAFT and p.pick:
        value += 0.3 * card_value(p.pick.split("#")[0], left)
    value += 0.8 * p.kry + 0.15 * p.ecubes + 0.05 * sum(p.cubes)
    return value


def choose(state: State, seat: int, seed: int):
    def value(move) -> float | None:
        if move.kind == "auto":
            return None  # the engine's own default; the bot decides for itself
        v = evaluate(play(state, seat, move), seat)
        if move.kind == "done":
            v -= 0.01  # finish only when nothing else helps
        return v

    return greedy(legal(state, seat), value, rng_for(seed, "iaww-greedy", seat))
