"""Squire bots.

* ``choose`` -- the greedy one-ply bot (level ``easy``): every legal move
  scored by the game's final scoring plus what the position is still worth.
* ``collect`` -- the "collector": buys the exhibit in reach that builds its
  floors, columns and sets and fulfils its commissions, and sells only when
  nothing affordable is in reach (RULES.md §16.8 reference player).
* ``KNOWLEDGE`` -- what the search bot (:mod:`pbem.engine.search`, levels
  ``normal`` and ``strong``) needs: determinisation from the seat's view, an
  estimate of each seat's final score, the collector as rollout policy.

All pure and reproducible from ``seed``; they read only what the seat may
see (RULES.md §2: its own hand, the public board, counts of hidden things).
"""
from __future__ import annotations

import random
from dataclasses import replace

from ..base import rng_for
from ..bots import greedy
from ..search import Budget, Knowledge
from .rules import (
    ACCEPT, BOARD, CELL, EXHIBIT, MOVE, OFFERS, OVER, START, SWAP, TAKE, TRADE, Move, State, accept_room,
    apply_move, commission_limit, commission_points, hand_limit, legal_moves, load, price, score_breakdown,
    to_move,
)


# ================================================================ greedy (easy)

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


# ================================================================ the estimate of a final score

EXHIBIT_VALUE = 4.0   # what a future purchase adds in printed value, on average (the collector picks)
SALE = 5.5            # what a sale brings, on average
PRICE = 6.0           # what a purchase costs, on average
OFFER = 2.2           # an offer card in hand, in coins
BEFORE_TRADE = (BOARD, START, MOVE, TRADE)


def own_turns(state: State, seat: int) -> int:
    """How many more transactions ``seat`` makes, this turn's included if it
    has not traded yet (§12.1: one supply token per turn; the turn that draws
    the last one is the last)."""
    n = state.n
    if state.phase == OVER:
        return 0
    if state.phase in BEFORE_TRADE:
        first, count = state.active, len(state.supply)
        if state.phase == BOARD:
            first = 0
    else:
        first, count = (state.active + 1) % n, (0 if state.end else len(state.supply))
    k = (seat - first) % n
    return 0 if k >= count else (count - k + n - 1) // n


def _projected_counts(d, counts: list[int], buys: float) -> list[float]:
    """Type counts after ``buys`` more exhibits spread to fill the smallest first
    (sets), as fractions."""
    out = [float(c) for c in counts]
    left = buys
    while left > 1e-9:
        i = min(range(len(out)), key=lambda j: (out[j], j))
        step = min(1.0, left)
        out[i] += step
        left -= step
    return out


def _completions(d, gallery: tuple, buys: float) -> tuple[float, float]:
    """Floors and columns complete after ``buys`` more exhibits placed to
    complete as many floors (resp. columns) as possible."""
    cols, floors = d.columns, d.floors
    fl_missing = sorted(sum(1 for j in range(cols) if gallery[f * cols + j] < 0) for f in range(floors))
    co_missing = sorted(sum(1 for f in range(floors) if gallery[f * cols + j] < 0) for j in range(cols))

    def count(missing: list[int]) -> float:
        total, left = 0.0, buys
        for m in missing:
            if m == 0:
                total += 1
            elif left >= m:
                total += 1
                left -= m
            else:
                total += 0.5 * left / m
                break
        return total

    return count(fl_missing), count(co_missing)


_CE: dict = {}


def commission_estimate(d, card: int, gallery: tuple, buys: float) -> float:
    key = (id(d), card, gallery, round(buys, 2))
    hit = _CE.get(key)
    if hit is None:
        if len(_CE) > 200_000:
            _CE.clear()
        hit = _CE[key] = _commission_estimate(d, card, gallery, buys)
    return hit


def _commission_estimate(d, card: int, gallery: tuple, buys: float) -> float:
    """The points a commission should score at the end, with ``buys`` more
    exhibits to come (the collector steers its purchases to its commissions)."""
    cm = d.cards[card].commission
    now = commission_points(d, card, gallery)
    if buys <= 0:
        return float(now)
    k = cm.kind
    if k == "per_exhibit":
        share = 0.0
        if cm.types:
            share = min(0.8, 0.35 * len(cm.types))
        if cm.values:
            vshare = 0.45 if cm.values & {2, 3} else 0.35
            share = vshare if not cm.types else share * vshare
        return now + cm.points * share * buys
    toks = [d.tokens[t] for t in gallery if t >= 0]
    if k == "per_complete_floor":
        return cm.points * _completions(d, gallery, buys)[0] * 0.9
    if k == "per_complete_column":
        return cm.points * _completions(d, gallery, buys)[1] * 0.9
    if k == "per_full_set":
        counts = [0] * len(d.type_ids)
        for ti, _v, _ in toks:
            counts[ti] += 1
        return cm.points * min(_projected_counts(d, counts, buys * 0.7))
    if k == "min_exhibits":
        have = len(toks) + buys
        return cm.points * max(0.0, min(1.0, have - cm.count + 1))
    return float(now)


def estimate(state: State, seat: int) -> float:
    """``seat``'s expected final score (RULES.md §12): the gallery and the
    commissions as they stand, plus the purchases its turns, empty cells and
    money still allow, the commissions those feed, and the leftovers."""
    d = load(state.custom)
    p = state.players[seat]
    if state.phase == OVER:
        return float(score_breakdown(d, p)["total"])
    gallery = p.gallery
    exhibits = sum(d.tokens[t][1] for t in gallery if t >= 0)
    empty = sum(1 for t in gallery if t < 0)
    if state.bought >= 0 and state.active == seat:
        exhibits += d.tokens[state.bought][1]
        empty -= 1
        cell = gallery.index(-1)
        gallery = gallery[:cell] + (state.bought,) + gallery[cell + 1:]
    turns = own_turns(state, seat)
    money = p.coins + OFFER * min(len(p.hand), turns)
    price_ = max(1.0, PRICE - p.rcoins)  # royal coins pay on every purchase and stay
    sale = SALE + (2 if p.board >= 0 and d.player_boards[p.board].ability.kind == "sale_bonus" else 0)
    buys = max(0.0, min(float(turns), float(empty), (money + turns * sale) / (price_ + sale)))
    surplus = max(0.0, money + (turns - buys) * sale - buys * price_)
    value = exhibits + EXHIBIT_VALUE * buys
    for c in p.comms:
        value += commission_estimate(d, c, gallery, buys)
    room = accept_room(d, p)
    if room and p.hand and turns:
        best = sorted((commission_estimate(d, c, gallery, buys) for c in p.hand), reverse=True)[:room]
        value += 0.35 * sum(best)
    # the 3rd-floor pick: a free exhibit from the discard
    cols = d.columns
    top = (d.floors - 1) * cols
    missing_top = sum(1 for j in range(cols) if gallery[top + j] < 0)
    if 0 < missing_top <= buys and empty > missing_top and state.discard:
        value += 0.7 * max(d.tokens[t][1] for t in state.discard)
    value += (surplus + p.rcoins + p.tickets + p.rtickets) / d.leftovers_per_vp
    value += 0.15 * min(p.tickets + p.rtickets, 3) * (1 if turns > 1 else 0)
    return value


# ================================================================ the collector


def _want(d, state: State, seat: int, tok: int) -> float:
    """How much ``seat`` wants exhibit ``tok`` in its gallery: its value, what
    its commissions (accepted, and in hand while there is room) gain, a new
    type for the sets, and the limits ceramics and sculptures raise."""
    p = state.players[seat]
    ti, v, _ = d.tokens[tok]
    w = float(v)
    types = [d.tokens[t][0] for t in p.gallery if t >= 0]
    for c in p.comms:
        w += _comm_gain(d, c, ti, v, types)
    if accept_room(d, p):
        w += 0.4 * max((_comm_gain(d, c, ti, v, types) for c in p.hand), default=0.0)
    if ti not in types:
        w += 0.6
    turns = own_turns(state, seat)
    if turns > 3:
        if ti == d.ceramics:
            w += 0.5
        elif ti == d.sculpture:
            w += 0.4
        elif d.exhibitions[ti] is not None and d.exhibitions[ti].host.coins_per_own:
            w += 0.3
    return w


def _comm_gain(d, card: int, ti: int, v: int, types: list[int]) -> float:
    cm = d.cards[card].commission
    if cm.kind == "per_exhibit":
        if (not cm.types or ti in cm.types) and (not cm.values or v in cm.values):
            return float(cm.points)
        return 0.0
    if cm.kind == "per_full_set":
        counts = [types.count(t) for t in range(len(d.type_ids))]
        return cm.points * 0.5 if counts[ti] == min(counts) else 0.0
    return 0.0


def _offer_coins(d, state: State, seat: int, action: int, city: int, tok: int) -> float:
    p = state.players[seat]
    region = d.boards[state.side].city_region[city]
    ti = d.tokens[tok][0]
    total = 0.0
    for c in p.hand:
        o = d.cards[c].offer
        if o.action == "buy" and action != 0 or o.action == "sell" and action != 1:
            continue
        if (o.region < 0 or o.region == region) and (o.type < 0 or o.type == ti):
            total += o.coins + 0.8 * o.tickets
    return total


def _keep_for_commission(d, state: State, seat: int) -> set:
    """The hand cards worth keeping as commissions: the best ones, as many as
    the commission room, while a sculpture exhibition may still come."""
    p = state.players[seat]
    room = accept_room(d, p)
    if not room or own_turns(state, seat) < 2:
        return set()
    buys = min(own_turns(state, seat), sum(1 for t in p.gallery if t < 0))
    scored = sorted(((commission_estimate(d, c, p.gallery, buys), c) for c in p.hand), reverse=True)
    return {c for v, c in scored[:room] if v >= 4.0}


def _offers_to_play(d, state: State, seat: int, matching: tuple) -> tuple:
    keep = _keep_for_commission(d, state, seat)
    return tuple(c for c in matching if c not in keep)


def _cheapest(state: State, seat: int, moves: list) -> dict:
    """Per reachable city, the move there that spends the fewest regular tickets."""
    best: dict = {}
    for m in moves:
        if m.kind not in ("move", "start"):
            continue
        t = m.b if m.kind == "move" else 0
        old = best.get(m.a)
        if old is None or t < old[0]:
            best[m.a] = (t, m)
    return best


def _destinations(d, state: State, seat: int, legal: list | None = None, both: bool = False) -> list[tuple[float, Move]]:
    """Each reachable city (move or start) scored for the collector: the best
    affordable purchase there, else (when no purchase is in reach) the sale.
    ``both``: purchases and sales on one scale (the search's prior)."""
    p = state.players[seat]
    moves = legal if legal is not None else legal_moves(state, seat)
    money = p.coins + p.rcoins
    has_cell = -1 in p.gallery
    turns = own_turns(state, seat)
    spend = 0.35 if turns > 2 else 0.15  # money spent now is money not spent later: worth less near the end
    buys, sells = [], []
    for city, (tickets, m) in _cheapest(state, seat, moves).items():
        tok = state.cities[city]
        if tok < 0:
            continue
        pr = price(state, city)
        cost = 0.45 * tickets
        sale = 0.3 * (pr + _offer_coins(d, state, seat, 1, city, tok)) - cost
        if has_cell and money >= pr:
            w = _want(d, state, seat, tok) + 0.3 * _offer_coins(d, state, seat, 0, city, tok) - spend * pr - cost
            buys.append((max(w + 1.0, sale) if both else w, m))
        elif both:
            buys.append((sale, m))
        sells.append((sale, m))
    return buys if buys else sells


def _cell_value(d, gallery: tuple, cell: int, comms: tuple, discard: tuple) -> float:
    cols, floors = d.columns, d.floors
    f, j = divmod(cell, cols)
    after = gallery[:cell] + (0,) + gallery[cell + 1:]
    h = d.halls[cell]
    v = 0.35 * h.coins + 0.3 * h.tickets
    col_done = all(after[ff * cols + j] >= 0 for ff in range(floors))
    floor_done = all(after[f * cols + jj] >= 0 for jj in range(cols))
    floor_pts = sum(d.cards[c].commission.points for c in comms if d.cards[c].commission.kind == "per_complete_floor")
    col_pts = sum(d.cards[c].commission.points for c in comms if d.cards[c].commission.kind == "per_complete_column")
    if col_done:
        b = d.column_bonus[j]
        v += 1.0 * b.royal_coins + 0.6 * b.royal_tickets + col_pts + 0.3
    if floor_done:
        b = d.floor_bonus[f]
        v += 0.4 * b.hand_limit + floor_pts + 0.3
        if b.take_from_discard and discard and -1 in after:
            v += max(d.tokens[t][1] for t in discard)
    # progress towards floors (low floors first) and columns
    v += 0.25 * sum(1 for jj in range(cols) if gallery[f * cols + jj] >= 0)
    v += 0.15 * sum(1 for ff in range(floors) if gallery[ff * cols + j] >= 0)
    v -= 0.05 * f
    return v


def _best_take(d, state: State, seat: int, moves: list) -> Move:
    p = state.players[seat]

    def value(m):
        ti, v, _ = d.tokens[m.a]
        return v + 0.5 * _want(d, state, seat, m.a) + _cell_value(d, p.gallery, m.b, p.comms, ())
    return max(moves, key=lambda m: (value(m), m))


def collect(state: State, seat: int, seed: int):
    """The collector's move for ``seat`` (which must be to move)."""
    return _collect(state, seat, rng_for(seed, "squire-collector", seat))


def _collect(state: State, seat: int, rng: random.Random, legal: list | None = None):
    d = load(state.custom)
    moves = legal if legal is not None else legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    ph = state.phase
    p = state.players[seat]
    if ph == BOARD:
        prefer = ("badger", "fox", "lioness", "eagle")
        ids = [b.id for b in d.player_boards]
        for bid in prefer:
            for m in moves:
                if ids[m.a] == bid and m.b == 0:
                    return m
        return moves[0]
    if ph in (START, MOVE):
        scored = _destinations(d, state, seat, moves)
        best = max(v for v, _ in scored)
        tied = [m for v, m in scored if v >= best - 1e-9]
        return tied[rng.randrange(len(tied))]
    if ph == TRADE:
        city = p.pos
        tok = state.cities[city]
        can = any(m.kind == "buy" for m in moves)
        action = "buy" if can else "sell"
        if can:
            # buy unless it is plainly a poor buy and a sale pays well (rare: the move chose this city)
            pass
        from .rules import matching_cards
        matching = matching_cards(state, seat, 0 if action == "buy" else 1, city, tok)
        play = _offers_to_play(d, state, seat, matching)
        want = Move(action, 1, 0, play)
        if want in moves:
            return want
        return next(m for m in moves if m.kind == action)
    if ph == OFFERS and state.bought < 0:
        action, city, tok = state.txn
        from .rules import matching_cards
        matching = matching_cards(state, seat, action, city, tok)
        want = Move("offers", 0, 0, _offers_to_play(d, state, seat, matching))
        return want if want in moves else moves[0]
    if ph in (CELL, OFFERS):
        cells = [m for m in moves if m.kind == "cell" and not m.c]
        if ph == OFFERS and not cells:
            return moves[0]
        return max(cells, key=lambda m: (_cell_value(d, p.gallery, m.a, p.comms, state.discard), -m.a))
    if ph == TAKE:
        takes = [m for m in moves if m.kind == "take"]
        if takes:
            return _best_take(d, state, seat, takes)
        return moves[0]
    if ph in (EXHIBIT, ACCEPT, SWAP):
        return _exhibit_quick(d, state, seat, moves)
    return moves[rng.randrange(len(moves))]


COIN = 0.35  # a coin (or a ticket) in points, while there are purchases to make


def _exhibit_quick(d, state: State, seat: int, moves: list):
    """The collector's step-V decisions at rollout speed: the exhibition type
    whose rewards help the host most against the others; a commission
    accepted when it should score 3 or more; a swap when the hand card should
    score 2 more than the commission it replaces."""
    p = state.players[seat]
    turns = own_turns(state, seat)
    buys = min(turns, sum(1 for t in p.gallery if t < 0))
    ph = state.phase
    if ph == ACCEPT:
        best = max(p.hand, key=lambda c: (commission_estimate(d, c, p.gallery, buys), c))
        if commission_estimate(d, best, p.gallery, buys) >= 3.0 and Move("accept", 0, 0, (best,)) in moves:
            return Move("accept", 0, 0, (best,))
        return Move("accept", 0, 0, ())
    if ph == SWAP:
        worst = min(p.comms, key=lambda c: (commission_estimate(d, c, p.gallery, buys), c))
        best = max(p.hand, key=lambda c: (commission_estimate(d, c, p.gallery, buys), c))
        if commission_estimate(d, best, p.gallery, buys) >= commission_estimate(d, worst, p.gallery, buys) + 2.0:
            return Move("swap", worst, best)
        return Move("swap", -1, -1)
    # EXHIBIT
    best_v, best_m = None, moves[0]
    for ti in range(len(d.type_ids)):
        ex = d.exhibitions[ti]
        if ex is None:
            continue
        mine = _reward_points(d, state, seat, ti, ex.host, buys)
        theirs = 0.0
        for s in range(state.n):
            if s != seat:
                q = state.players[s]
                access = d.player_boards[q.board].ability.kind == "exhibition_access" if q.board >= 0 else False
                if access or any(t >= 0 and d.tokens[t][0] == ti for t in q.gallery):
                    theirs += _reward_points(d, state, s, ti, ex.others, buys)
        v = mine - theirs / max(1, state.n - 1) * (1.0 if state.n == 2 else 0.7)
        if best_v is None or v > best_v:
            best_v, best_m = v, Move("exhibit", ti)
    if best_m.a == d.sculpture:
        room = accept_room(d, p)
        if room and p.hand:
            best = max(p.hand, key=lambda c: (commission_estimate(d, c, p.gallery, buys), c))
            m = Move("exhibit", best_m.a, 1, (best,))
            if m in moves:
                return m
    return best_m


def _reward_points(d, state: State, seat: int, ti: int, r, buys: float) -> float:
    p = state.players[seat]
    own = sum(1 for t in p.gallery if t >= 0 and d.tokens[t][0] == ti)
    v = COIN * (r.coins + r.coins_per_own * own + r.tickets + r.tickets_per_own * own)
    room = hand_limit(d, p) - len(p.hand)
    if r.draw_to_hand_limit:
        v += COIN * OFFER * max(0, room)
    if r.draw:
        v += COIN * OFFER * max(0, min(r.draw, room))
    if r.accept_commission and accept_room(d, p) and p.hand:
        v += 0.8 * max(commission_estimate(d, c, p.gallery, buys) for c in p.hand)
    if r.swap_commission and p.comms and p.hand:
        v += 0.5
    return v


# ================================================================ the search's knowledge


class SquireKnowledge(Knowledge):
    rollout_plies = 12
    scale = 6.0
    width = 6
    epsilon = 0.1

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """Deal anew what ``seat`` cannot see: the supply and the removed
        tokens (one pool: which of them come back is as secret as their
        order), the message deck and the other seats' hands (one pool, the
        same sizes)."""
        tokens = sorted(state.supply + state.removed)
        rng.shuffle(tokens)
        k = len(state.supply)
        supply, removed = tuple(tokens[:k]), tuple(sorted(tokens[k:]))
        cards = list(state.deck)
        for s, p in enumerate(state.players):
            if s != seat:
                cards.extend(p.hand)
        cards.sort()
        rng.shuffle(cards)
        players = []
        pos = 0
        for s, p in enumerate(state.players):
            if s != seat:
                size = len(p.hand)
                p = replace(p, hand=tuple(sorted(cards[pos:pos + size])))
                pos += size
            players.append(p)
        return replace(state, supply=supply, removed=removed, deck=tuple(cards[pos:]), players=tuple(players))

    def evaluate(self, state: State, seat: int) -> float:
        return estimate(state, seat)

    def rollout_move(self, state: State, seat: int, legal, rng: random.Random):
        if rng.random() < self.epsilon:
            return legal[rng.randrange(len(legal))]
        return _collect(state, seat, rng, legal)

    def prior(self, state: State, seat: int, moves) -> list[float]:
        d = load(state.custom)
        ph = state.phase
        if ph in (START, MOVE):
            scored = {m: v for v, m in _destinations(d, state, seat, moves, both=True)}
            return [scored.get(m, -99.0) for m in moves]
        if ph == TRADE:
            p = state.players[seat]
            keep = _keep_for_commission(d, state, seat)
            out = []
            for m in moves:
                if m.a == 0:
                    out.append(-50.0)  # the same as stating the offers, one decision later
                    continue
                v = sum(1.0 for c in m.c if c not in keep) - sum(2.0 for c in m.c if c in keep)
                v += 5.0 if m.kind == "buy" else 0.0
                out.append(v)
            return out
        if ph in (CELL, OFFERS, TAKE):
            p = state.players[state.active]
            out = []
            for m in moves:
                if m.kind == "cell":
                    # an inline 3rd-floor pick is the same as the take asked next
                    out.append(-100.0 if m.c else _cell_value(d, p.gallery, m.a, p.comms, state.discard))
                elif m.kind == "take":
                    out.append(d.tokens[m.a][1] + _cell_value(d, p.gallery, m.b, p.comms, ()))
                else:  # offers
                    keep = _keep_for_commission(d, state, seat)
                    out.append(10.0 + len([c for c in m.c if c not in keep]) - 3 * len([c for c in m.c if c in keep]))
            return out
        p = state.players[seat]
        buys = min(own_turns(state, seat), sum(1 for t in p.gallery if t < 0))
        if ph == ACCEPT:
            return [sum(commission_estimate(d, c, p.gallery, buys) - 3.0 for c in m.c) for m in moves]
        if ph == SWAP:
            return [(commission_estimate(d, m.b, p.gallery, buys) - commission_estimate(d, m.a, p.gallery, buys) - 2.0)
                    if m.a >= 0 else (-5.0 if m.b == 1 else 0.0) for m in moves]
        if ph == EXHIBIT:
            # every type stays in reach; an inline accept is the accept question answered at once
            return [10.0 if m.b == 0 else sum(commission_estimate(d, c, p.gallery, buys) - 3.0 for c in m.c)
                    for m in moves]
        return [0.0] * len(moves)


KNOWLEDGE = SquireKnowledge()
BUDGETS = {"normal": Budget(150), "strong": Budget(500)}
# comparison policies for `pbem selfplay --bot collector` (docs/bots.md): not a level
POLICIES = {"collector": collect}
