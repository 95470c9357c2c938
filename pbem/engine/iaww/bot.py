"""It's a Wonderful World bots.

``choose`` is the greedy ``easy`` bot: one-ply search over the legal atomic
decisions, scored by the game's final scoring (RULES.md §12) plus what the
empire is still worth: developments under construction by how far they are
filled, production of the constructed ones for the rounds left, drafted
cards, Krystallium and cubes on the empire card. Each seat decides on its
own in simultaneous steps and looks only at its own player.

``KNOWLEDGE`` is what the search bot (``normal``, ``strong``;
:mod:`pbem.engine.search`) needs: a determinisation that deals every card
the seat cannot see anew, an estimate of the final score
(:func:`estimate`), a cheap rollout policy and a prior that keeps the most
promising moves of a node.

Pure, reproducible from ``seed``; plays only legal moves."""
from __future__ import annotations

import random
from typing import Sequence

from ..base import rng_for
from ..bots import greedy
from ..search import Budget, Knowledge
from .data import CARD_OF, CARDS, EMPIRE_FACES, FIN, GEN, INSTANCES, KRY, SUPREMACY
from .rules import (
    DRAFT, OVER, PLAN, PROD, ZERO5, Move, Player, State, has_slot, legal, play, production, replace, score,
    sort_cards,
)


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


# ---------------------------------------------------------------- the search bot's evaluation

# what one cube still buys, by the round it arrives in (the last round's cubes
# have little left to complete)
_CUBE_W = (0.0, 0.7, 0.65, 0.55, 0.3)
W_KRY = 1.0        # a Krystallium: any resource slot, or a Krystallium slot
W_TOKEN = 1.6      # a financier or general from a bonus (points plus slots it may fill)
P_TYPE = 0.5       # cards of a type still to come per round, for "points per type"
CH_EXP = 1.0       # chance of completion: filled share, plus the rest by (covered share) ** CH_EXP
CH_MUL = 0.9
DRAFT_W = 0.15     # a drafted card: this share of its value, or a recycled cube


def _occurrences(st: State, res: int) -> list[int]:
    """The rounds of the production steps of ``res`` still to come."""
    cur = st.phase in (DRAFT, PLAN) or (st.phase == PROD and st.step < res)
    return ([st.round] if cur else []) + list(range(st.round + 1, ROUNDS + 1))


def _per_points(q: int, what: str, p: Player, types: dict, rounds_after: int) -> float:
    if what == "financier":
        return q * (p.fin + 0.6 * rounds_after)
    if what == "general":
        return q * (p.gen + 0.6 * rounds_after)
    return q * (types.get(what, 0) + P_TYPE * rounds_after)


_MEMO: dict = {}  # (player, round, phase, step, face) -> estimate; a pure function's cache
_MEMO_MAX = 20_000  # a search meets a few thousand; kept small for the services


def estimate(st: State, seat: int) -> float:
    """:func:`estimate_now`, remembered: it reads only the seat's own player
    record, the round, phase, step and face, which the search meets again
    and again in every determinisation."""
    key = (st.players[seat], st.round, st.phase, st.step, st.face)
    v = _MEMO.get(key)
    if v is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        v = _MEMO[key] = estimate_now(st, seat)
    return v


_OCC: dict = {}


def _occ_weights(st: State) -> tuple[float, ...]:
    """Per resource: its production steps still to come, the last round's at 0.6."""
    key = (st.round, st.phase, st.step)
    w = _OCC.get(key)
    if w is None:
        w = _OCC[key] = tuple(sum(1.0 if rd < ROUNDS else 0.6 for rd in _occurrences(st, r)) for r in range(5))
    return w


# per card: fixed points plus bonus value, its cost, fixed production
_BASE = {inst: float(c.vp) + W_KRY * c.bonus[0] + W_TOKEN * (c.bonus[1] + c.bonus[2]) for inst, c in CARD_OF.items()}


def estimate_now(st: State, seat: int) -> float:
    """``seat``'s estimated final score: the score now (§12), plus each card
    under construction times the chance it is completed -- the cubes still
    to come (production of the rounds left, cubes in hand, Krystallium) are
    shared out over the cards nearest completion first -- plus what is left
    over of those cubes, and the cards of the draft area as options."""
    p = st.players[seat]
    total = score(p, st.face)["total"]
    if st.phase == OVER:
        return float(total)
    rounds_after = ROUNDS - st.round
    types: dict[str, int] = {}
    prod = list(EMPIRE_FACES[(p.empire, st.face)].prod)
    per = []
    value = float(total)
    for inst in p.built:
        c = CARD_OF[inst]
        t = c.type
        types[t] = types.get(t, 0) + 1
        cp = c.prod
        for r in range(5):
            if cp[r]:
                prod[r] += cp[r]
        if c.prod_per is not None:
            per.append(c.prod_per)
        if c.vp_per is not None:
            # future points of the multipliers already built, from cards still to come
            q, what = c.vp_per
            value += q * (0.6 if what in ("financier", "general") else P_TYPE) * rounds_after * 0.5
    for r, t in per:
        prod[r] += types.get(t, 0)
    occ_w = _occ_weights(st)
    cubes = p.cubes
    supply = [cubes[r] + prod[r] * occ_w[r] for r in range(5)]
    later = [max(0.0, w - 1.0) for w in occ_w]
    wild = p.kry + p.ecubes / 5.0
    fin, gen = p.fin, p.gen
    cw = _CUBE_W[st.round]
    sites = p.sites
    if len(sites) > 1:
        sites = sorted(sites, key=lambda s: -sum(s.filled) / max(1, CARD_OF[s.inst].slots))
    for s in sites:
        c = CARD_OF[s.inst]
        cost, f = c.cost, s.filled
        slots = max(1, c.slots)
        have = sum(f)
        need = slots - have
        got = 0.0
        deficit = 0.0
        for r in range(5):
            k = cost[r] - f[r]
            if k:
                t = min(k, supply[r])
                supply[r] -= t
                got += t
                deficit += k - t
        deficit += cost[KRY] - f[KRY]
        w = min(wild, deficit)
        wild -= w
        got += w
        k = cost[FIN] - f[FIN]
        if k:
            t = min(k, fin)
            fin -= t
            got += t
        k = cost[GEN] - f[GEN]
        if k:
            t = min(k, gen)
            gen -= t
            got += t
        a = got / need if need else 1.0
        done = have / slots
        chance = done + (1.0 - done) * a ** CH_EXP * CH_MUL
        gain = _BASE[s.inst]
        if c.vp_per is not None:
            gain += _per_points(c.vp_per[0], c.vp_per[1], p, types, rounds_after)
        cp = c.prod
        gain += cw * (cp[0] * later[0] + cp[1] * later[1] + cp[2] * later[2] + cp[3] * later[3] + cp[4] * later[4]
                      + (later[c.prod_per[0]] * (types.get(c.prod_per[1], 0) + 1) if c.prod_per else 0.0))
        value += chance * gain
    # what is left of the cubes buys cards still to come
    value += cw * (sum(supply) + 1.2 * wild)
    for inst in p.draft:  # drafted, not yet planned: construct or recycle
        c = CARD_OF[inst]
        gain = _BASE[inst]
        if c.vp_per is not None:
            gain += _per_points(c.vp_per[0], c.vp_per[1], p, types, rounds_after)
        cp = c.prod
        gain += cw * (cp[0] * later[0] + cp[1] * later[1] + cp[2] * later[2] + cp[3] * later[3] + cp[4] * later[4])
        value += max(DRAFT_W * gain, cw + 0.3)
    if st.phase == DRAFT and p.pick:
        c = CARD_OF[p.pick]
        value += max(DRAFT_W * (c.vp + cw * sum(c.prod) * rounds_after), cw + 0.3)
    return value


# ---------------------------------------------------------------- determinisation


def _visible_player(st: State, i: int) -> Player:
    """Seat ``i`` as another seat sees it (game.view: the public snapshot of
    the last resolution, without hand, pick, cubes, notes and the rest),
    rebuilt with the state it had at the start of the current decision point."""
    q = st.public[i]
    p = Player(empire=q.empire, draft=q.draft, sites=q.sites, built=q.built, ecubes=q.ecubes, kry=q.kry,
               fin=q.fin, gen=q.gen)
    if st.phase == PROD and st.prod:
        res = st.step
        k = st.prod[i]
        cubes, forced = list(ZERO5), list(ZERO5)
        if k:
            if has_slot(p, res, PROD):
                cubes[res] = k
            else:
                forced[res] = k  # start_step put them onto the empire card already (in the snapshot)
        p = replace(p, cubes=tuple(cubes), forced=tuple(forced),
                    sci=st.winner == i and SUPREMACY[res] is None)
    return p


def determinize(st: State, seat: int, rng: random.Random) -> State:
    """A state ``seat`` cannot tell from ``st`` (same ``GAME.view``): every
    card it cannot see -- the deck, the other hands and secret picks, the
    discard pile, the solo stacks still to come -- pooled in a canonical
    order, shuffled by ``rng`` and dealt back in the same sizes; the other
    seats' orders of the current step (secret until the reveal) replaced by
    their state at its start, a seat already done finishing with ``auto``;
    the seed replaced. Reads only what the seat may see."""
    n = st.n
    me = st.players[seat]
    seen: set[str] = set(me.hand) | set(me.draft) | set(me.built) | set(me.shown) | {s.inst for s in me.sites}
    if me.pick:
        seen.add(me.pick)
    waiting = [not p.done for p in st.players]  # to_move: in the view
    others = []
    for i in range(n):
        if i == seat:
            others.append(None)
            continue
        p = _visible_player(st, i)
        seen.update(p.draft)
        seen.update(p.built)
        seen.update(s.inst for s in p.sites)
        others.append(p)
    pool = [x for x in _CANON if x not in seen]
    if n > 1:
        # only the other hands and the deals still to come need a random order:
        # the rest of the deck and the discard pile are never drawn from
        hidden = sum(len(st.public[i].hand) for i in range(n) if i != seat) if st.phase == DRAFT else 0
        deals = (ROUNDS - st.round) * n * (10 if n == 2 else 7)
        k = min(len(pool), hidden + min(st.pub[0], deals))
        head = rng.sample(pool, k)
        taken = set(head)
        pool = head + [x for x in pool if x not in taken]
    else:
        rng.shuffle(pool)
    at = 0
    players = list(st.players)
    public = list(st.public)
    if n > 1:
        for i in range(n):
            p = others[i]
            if p is None:
                continue
            if st.phase == DRAFT:
                size = len(st.public[i].hand)  # hand_size in the view
                hand = sort_cards(pool[at:at + size])
                at += size
                public[i] = replace(p, hand=hand)
                if waiting[i]:
                    players[i] = replace(p, hand=hand)
                else:
                    pick = hand[rng.randrange(len(hand))]
                    players[i] = replace(p, hand=tuple(x for x in hand if x != pick), pick=pick, done=True)
            else:
                public[i] = p
                players[i] = p
        deck_size = st.pub[0]
    else:
        deck_size = len(st.deck)
    stacks = st.stacks
    if stacks:
        cur = 2 * (st.round - 1) + (st.step if st.phase == PLAN else 1)
        new = []
        for k in range(len(stacks)):
            if k <= cur:
                new.append(())  # taken already: never read again
            else:
                new.append(tuple(pool[at:at + 5]))
                at += 5
        stacks = tuple(new)
    deck = tuple(pool[at:at + deck_size])
    at += deck_size
    discard = tuple(pool[at:])
    d = replace(st, seed=rng.getrandbits(48), players=tuple(players), public=tuple(public), deck=deck,
                discard=discard, stacks=stacks)
    if n > 1 and st.phase in (PLAN, PROD):
        for i in range(n):
            if i != seat and not waiting[i]:
                d = play(d, i, _AUTO)  # their secret order: the engine's default stands in for it
    return d


_CANON = sort_cards(INSTANCES)
_AUTO = Move("auto")
_DONE = Move("done")


# ---------------------------------------------------------------- the search bot's knowledge


class IawwKnowledge(Knowledge):
    rollout_plies = 0
    scale = 8.0
    width = 5

    def players(self, state: State) -> int:
        return state.n

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def evaluate(self, state: State, seat: int) -> float:
        return estimate(state, seat)

    def rollout_move(self, state: State, seat: int, legal_moves: Sequence, rng: random.Random):
        return legal_moves[rng.randrange(len(legal_moves))]

    def prior(self, state: State, seat: int, moves: Sequence) -> list[float]:
        """Each move's one-ply :func:`estimate` (``auto`` last). The move is
        applied with the other seats still to decide, so that no step is
        revealed: the scores read only the seat's own record, and are
        remembered by it."""
        p = state.players[seat]
        key = (p, state.round, state.phase, state.step, state.face, state.n, len(state.deck) >= 5, tuple(moves))
        out = _PRIOR.get(key)
        if out is not None:
            return out
        quiet = state
        if state.n > 1:
            quiet = replace(state, players=tuple(q if i == seat or not q.done else replace(q, done=False)
                                                  for i, q in enumerate(state.players)))
        out = []
        for m in moves:
            if m.kind == "auto":
                out.append(-1e9)
            elif state.n == 1 and m.kind == "done":
                out.append(estimate(state, seat) - 0.01)
            else:
                v = estimate(play(quiet, seat, m), seat)
                out.append(v - 0.01 if m.kind == "done" else v)
        if len(_PRIOR) >= _MEMO_MAX:
            _PRIOR.clear()
        _PRIOR[key] = out
        return out


_PRIOR: dict = {}


KNOWLEDGE = IawwKnowledge()
BUDGETS = {"normal": Budget(50), "strong": Budget(200)}
