"""Spyrium bots.

``choose`` is the greedy bot (level ``easy``): one-ply search over the legal
moves, scored by the game's own final scoring (RULES.md §13) plus what the
position is worth later (money, Spyrium, workers, buildings still to use),
weighted by the rounds left.

``KNOWLEDGE`` is what the search bot (:mod:`pbem.engine.search`, levels
``normal`` and ``strong``, ``BUDGETS``) needs: determinisations that deal the
hidden parts (§14: deck orders, the events below the future one, the
face-down token supply, the seed of later reshuffles) anew from what a seat
may see, the greedy bot's evaluation, and rollouts weighted by the kind of
move.

Pure and reproducible from ``seed``; plays only legal moves."""
from __future__ import annotations

import random
from typing import Sequence

from ..base import rng_for
from ..bots import greedy
from ..search import Budget, Knowledge
from .data import DECK, EV_WINDFALL, EVENTS, ROUNDS, TOKEN_COUNTS, USE_OPTS
from .game import GAME
from .rules import legal_moves, score_breakdown
from .state import PASS, State, new_player, new_state


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


# ---------------------------------------------------------------- the search bot

_TOKENS = tuple(sorted(v for v, k in TOKEN_COUNTS.items() for _ in range(k)))


def _minus(pool: Sequence[int], seen: dict) -> list:
    """``pool`` (sorted) without the multiset ``seen``, still sorted."""
    left = dict(seen)
    out = []
    for c in pool:
        k = left.get(c, 0)
        if k:
            left[c] = k - 1
        else:
            out.append(c)
    return out


def _count(items, into: dict) -> None:
    for c in items:
        into[c] = into.get(c, 0) + 1


class SpyriumKnowledge(Knowledge):
    """The search's view of Spyrium. Tuned in two-player games at 200
    iterations against this setting: rollouts of 0 plies won 8 of 30, of 20
    plies 5 of 12 (at twice the cost); exploration 0.4 won 9 of 24; an
    evaluation adding the value of the building uses still to come, 15 of 30
    (not kept). Greedy games showed about 11 legal moves a turn on average
    and 49 at most, so every child is kept (``width`` None)."""

    rollout_plies = 8
    scale = 10.0
    width = None

    def players(self, state: State) -> int:
        return state.n

    _memo = None  # (state, its pools): the search determinises the same root again and again

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """Spyrium hides only chance (§14): the order of the period decks, the
        events below the future event, the face-down token supply and the seed
        of later reshuffles. Everything a seat may see is kept; each hidden
        part is dealt, with its size, from the sorted pool of what the view
        leaves unaccounted for, shuffled by ``rng``."""
        memo = self._memo
        if memo is not None and memo[0] is state:
            pools = memo[1]
        else:
            pools = _pools(state)
            self._memo = (state, pools)
        deck_pools, event_pool, token_pool, fut_token, ps = pools
        decks = tuple(tuple(rng.sample(pool, len(deck))) for pool, deck in zip(deck_pools, state.decks))
        events = state.events
        if len(events) > 1:
            events = events[:1] + tuple(rng.sample(event_pool, len(events) - 1))
        supply = tuple(rng.sample(token_pool, len(state.supply)))
        seed = rng.getrandbits(63)
        return new_state(state.n, seed, state.round, state.first, state.turn, decks, events,
                         state.cur_event, state.cur_token, fut_token, supply, state.discard, 0,
                         state.market, state.mtok, state.spaces, ps, state.pending, state.over)

    def evaluate(self, state: State, seat: int) -> float:
        return evaluate(state, seat)

    #: rollout weight of a move by its kind (PLACE, EVENT, EARN, ACT, USE, PASS, ANSWER): a card
    #: activated or a building used is worth more than money earned; a pass ends the round early
    kind_weights = (1.0, 1.0, 1.0, 3.0, 3.0, 0.2, 1.0)

    def rollout_move(self, state: State, seat: int, legal: Sequence, rng: random.Random):
        """A random move drawn with ``kind_weights``: as cheap as a uniform
        draw, and it won 21 of 30 two-player games against uniform rollouts
        at 200 iterations."""
        w = self.kind_weights
        r = rng.random() * sum(w[m[0]] for m in legal)
        for m in legal:
            r -= w[m[0]]
            if r < 0:
                return m
        return legal[-1]


def _pools(state: State) -> tuple:
    """What a determinisation of ``state`` deals from, read from the view only:
    per period the deck's cards less every card in sight (market, districts,
    techniques: what is left lies in the deck or went out of the game unseen);
    the events less the current and the future one; the tokens less those in
    sight (market, events, discard, kept); and the players as the view shows them."""
    seen: dict = {}
    _count((c for c in state.market if c >= 0), seen)
    for p in state.ps:
        _count(p.lots, seen)
        _count(p.techs, seen)
    deck_pools = tuple(_minus(sorted(DECK[period]), seen) for period in "ABC")
    gone: dict = {state.cur_event: 1}
    _count(state.events[:1], gone)
    event_pool = _minus(sorted(EVENTS), gone)
    # the token on the future event is open only on Token Windfall (the only event that takes one)
    fut_token = state.fut_token if state.events and state.events[0] == EV_WINDFALL else 0
    shown: dict = {}
    _count(state.discard, shown)
    for toks in state.mtok:
        _count(toks, shown)
    _count((t for t in (state.cur_token, fut_token) if t), shown)
    for p in state.ps:
        _count(p.kept, shown)
    token_pool = _minus(_TOKENS, shown)
    ps = tuple(_canonical_lotw(p) for p in state.ps)
    return deck_pools, event_pool, token_pool, fut_token, ps


def _canonical_lotw(p):
    """The view shows how many of a player's workers stand on buildings, not on
    which (``lotw``): put them, for the search, on the first turned building
    whose use takes workers (they only decide whether a replaced building's
    workers count as used or on buildings until the round ends)."""
    if not p.onbld:
        lotw = (0,) * len(p.lots)
    else:
        k = next((i for i, c in enumerate(p.lots) if p.turned[i] and any(w for w, *_ in USE_OPTS[c])), 0)
        lotw = tuple(p.onbld if i == k else 0 for i in range(len(p.lots)))
    if lotw == p.lotw:
        return p
    return new_player(p.money, p.spy, p.vp, p.res, p.phase, p.passed, p.evused, p.active, p.used, p.onbld,
                      p.owned, p.bonus, p.lots, p.turned, p.techs, p.lobused, p.comused, p.tayused, p.kept,
                      lotw)


KNOWLEDGE = SpyriumKnowledge()
BUDGETS = {"normal": Budget(200), "strong": Budget(800)}
