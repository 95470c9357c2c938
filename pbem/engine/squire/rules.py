"""Squire rules: the immutable state, the moves, legal-move generation and
``apply``. Section numbers (§) refer to games/squire/RULES.md.

A move is one atomic decision (RULES.md §14, D1-D10). Choices that arise
inside a decision (offers after a buy/sell, the commission accepted at a
sculpture exhibition) may be given inline; when omitted they become a pending
decision of the same seat. The 3rd-floor pick and the other players' swaps
are always their own decisions.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from .data import Data, load

# phases
BOARD, START, MOVE, TRADE, OFFERS, CELL, TAKE, EXHIBIT, ACCEPT, SWAP, OVER = (
    "board", "start", "move", "trade", "offers", "cell", "take", "exhibit", "accept", "swap", "over")


class Move(NamedTuple):
    """kind plus up to three small fields (meaning per kind):

    board   a=board index, b=character index (0/1)
    start   a=city
    move    a=destination city, b=regular tickets spent
    buy     a=1 if the offers were stated, c=offer cards played
    sell    as buy
    offers  c=offer cards played (possibly none)
    cell    a=cell index; c=(token, cell) of the first 3rd-floor pick written inline, or ()
    take    a=token (from the exhibit discard), b=cell index
    exhibit a=type, b=1 if the accepted commission was stated, c=cards accepted
    accept  c=cards accepted (possibly none)
    swap    a=accepted commission given up, b=hand card accepted; a=-1: no swap
            (b=1: "swap none always", a standing order for the rest of the game)
    """

    kind: str
    a: int = 0
    b: int = 0
    c: tuple = ()


@dataclass(frozen=True, slots=True)
class Player:
    board: int = -1
    char: int = -1
    pos: int = -1
    coins: int = 0
    rcoins: int = 0
    tickets: int = 0
    rtickets: int = 0
    hand: tuple = ()
    comms: tuple = ()
    gallery: tuple = ()


@dataclass(frozen=True, slots=True)
class State:
    n: int
    side: str
    custom: tuple
    players: tuple
    cities: tuple          # token per city (index of the board's cities list), -1 empty
    supply: tuple          # face-down, drawn from the front (secret)
    removed: tuple         # out of the game unseen (secret)
    discard: tuple         # exhibit discard, face up, oldest first
    mtypes: tuple          # type markers, top first
    mregions: tuple        # region markers, top first
    deck: tuple            # message deck, top first (secret)
    mdiscard: tuple        # message discard, face up
    token: int             # exhibition token holder; -1 = lying on the board (2 players)
    last_exh: int          # type last exhibited, -1 none yet
    turn: int              # 1-based turn number; 0 during board choice
    active: int
    phase: str
    end: bool = False      # the supply ran out: this turn is the last (§6.6, §12)
    bought: int = -1       # token bought this turn, waiting for step IV
    txn: tuple = ()        # (action 0 buy / 1 sell, city, token) while offers are pending
    takes: int = 0         # 3rd-floor picks still owed (§8.3)
    exhibited: bool = False
    exh: int = -1          # type being exhibited this turn
    queue: tuple = ()      # seats still to be served by the exhibition
    pending: tuple = ()    # ((seat, "accept"/"swap", remaining), ...) decisions of the exhibition
    no_swap: tuple = ()    # seats with the standing order "swap none always" (§14)

    @property
    def data(self) -> Data:
        return load(self.custom)


def replace(obj, **kw):
    """dataclasses.replace for State and Player, generated for speed."""
    return _REPLACE[type(obj)](obj, **kw)


def _make_replace(cls):
    """A fast ``dataclasses.replace`` for one frozen class (the hot path of apply)."""
    from dataclasses import fields
    from operator import attrgetter
    names = tuple(f.name for f in fields(cls))
    get_all = attrgetter(*names)

    def rep(s, **kw):
        vals = get_all(s)
        if len(kw) == 1:
            (k, v), = kw.items()
            i = names.index(k)
            return cls(*vals[:i], v, *vals[i + 1:])
        return cls(*[kw[n] if n in kw else x for n, x in zip(names, vals)])
    return rep


_REPLACE = {State: _make_replace(State), Player: _make_replace(Player)}


# ---------------------------------------------------------------- derived values


def board_of(state: State):
    return load(state.custom).boards[state.side]


def hand_limit(d: Data, p: Player) -> int:
    """§10.2: ceramics + base + gained hand_limit bonuses + ability."""
    lim = d.hand_base + _gained(d, p.gallery, "hand_limit")
    cer = d.ceramics
    toks = d.tokens
    for t in p.gallery:
        if t >= 0 and toks[t][0] == cer:
            lim += 1
    if p.board >= 0:
        ab = d.player_boards[p.board].ability
        if ab.kind == "limit_bonus":
            lim += ab.hand_limit
    return lim


def commission_limit(d: Data, p: Player) -> int:
    """§10.3: sculptures + base + ability."""
    lim = d.commission_base
    sc = d.sculpture
    toks = d.tokens
    for t in p.gallery:
        if t >= 0 and toks[t][0] == sc:
            lim += 1
    if p.board >= 0:
        ab = d.player_boards[p.board].ability
        if ab.kind == "limit_bonus":
            lim += ab.commission_limit
    return lim


def complete_floors(d: Data, gallery: tuple) -> list[int]:
    c = d.columns
    return [f for f in range(d.floors) if all(gallery[f * c + j] >= 0 for j in range(c))]


def complete_columns(d: Data, gallery: tuple) -> list[int]:
    c = d.columns
    return [j for j in range(c) if all(gallery[f * c + j] >= 0 for f in range(d.floors))]


def _gained(d: Data, gallery: tuple, key: str) -> int:
    """Sum of one bonus key over every bonus already gained by this gallery."""
    total = 0
    for cell, t in enumerate(gallery):
        if t >= 0:
            total += getattr(d.halls[cell], key)
    for f in complete_floors(d, gallery):
        total += getattr(d.floor_bonus[f], key)
    for j in complete_columns(d, gallery):
        total += getattr(d.column_bonus[j], key)
    return total


def own_count(d: Data, p: Player, type_idx: int) -> int:
    toks = d.tokens
    return sum(1 for t in p.gallery if t >= 0 and toks[t][0] == type_idx)


def price(state: State, city: int) -> int:
    """§6.2: type marker number + region marker number."""
    d = load(state.custom)
    tok = state.cities[city]
    ti = d.tokens[tok][0]
    ri = d.boards[state.side].city_region[city]
    return d.type_values[state.mtypes.index(ti)] + d.region_values[state.mregions.index(ri)]


def offer_matches(d: Data, card: int, action: int, region: int, type_idx: int) -> bool:
    o = d.cards[card].offer
    if o.action == "buy" and action != 0 or o.action == "sell" and action != 1:
        return False
    if o.region >= 0 and o.region != region:
        return False
    if o.type >= 0 and o.type != type_idx:
        return False
    return True


def matching_cards(state: State, seat: int, action: int, city: int, token: int) -> tuple:
    d = load(state.custom)
    region = d.boards[state.side].city_region[city]
    ti = d.tokens[token][0]
    return tuple(c for c in state.players[seat].hand if offer_matches(d, c, action, region, ti))


def royal_left(state: State) -> tuple[int, int]:
    """(royal coins, royal tickets) still in the royal supply."""
    d = load(state.custom)
    return (d.box_royal_coins - sum(p.rcoins for p in state.players),
            d.box_royal_tickets - sum(p.rtickets for p in state.players))


def leftovers(p: Player) -> int:
    return p.coins + p.rcoins + p.tickets + p.rtickets


def can_buy(state: State, seat: int, city: int) -> bool:
    p = state.players[seat]
    return -1 in p.gallery and p.coins + p.rcoins >= price(state, city)


# ---------------------------------------------------------------- movement (§5)

_REACH: dict = {}


def _free_params(d: Data, p: Player) -> tuple[int, str]:
    if p.board >= 0:
        ab = d.player_boards[p.board].ability
        if ab.kind == "free_steps":
            return ab.steps, ab.route_kind
    return 0, ""


def move_options(state: State, seat: int) -> tuple:
    """Every (destination, regular tickets) a legal path can produce (§5.2-5.3)."""
    d = load(state.custom)
    p = state.players[seat]
    F, K = _free_params(d, p)
    key = (state.custom, state.side, p.pos, F, K, p.rtickets, p.tickets)
    hit = _REACH.get(key)
    if hit is not None:
        return hit
    adj = d.boards[state.side].adj
    R, G, c0 = p.rtickets, p.tickets, p.pos
    kmax = R + F + G
    layer = {(c0, 0)}
    found = set()
    for k in range(1, kmax + 1):
        nxt = set()
        for city, f in layer:
            for nb, kind in adj[city]:
                nf = f + 1 if f < F and (K == "any" or kind == K) else f
                nxt.add((nb, nf))
        layer = nxt
        for city, f in layer:
            if city != c0:
                reg = k - f - R
                if reg < 0:
                    reg = 0
                if reg <= G:
                    found.add((city, reg))
    out = tuple(sorted(found))
    if len(_REACH) > 50_000:
        _REACH.clear()
    _REACH[key] = out
    return out


def path_cost(state: State, seat: int, path: list[int]) -> tuple[int, int, int]:
    """(free, royal, regular) for a path c0..ck; raises ValueError on a missing route."""
    d = load(state.custom)
    p = state.players[seat]
    F, K = _free_params(d, p)
    adj = d.boards[state.side].adj
    s = 0
    for a, b in zip(path, path[1:]):
        kinds = [kind for nb, kind in adj[a] if nb == b]
        if not kinds:
            raise ValueError((a, b))
        if K == "any" or kinds[0] == K:
            s += 1
    k = len(path) - 1
    free = min(F, s)
    royal = min(p.rtickets, k - free)
    return free, royal, k - free - royal


def witness_path(state: State, seat: int, dest: int, reg: int) -> list[int] | None:
    """A shortest path whose payment leaves ``reg`` regular tickets spent."""
    d = load(state.custom)
    p = state.players[seat]
    F, K = _free_params(d, p)
    adj = d.boards[state.side].adj
    R, G, c0 = p.rtickets, p.tickets, p.pos
    layer = {(c0, 0): [c0]}
    for k in range(1, R + F + G + 1):
        nxt: dict = {}
        for (city, f), path in sorted(layer.items()):
            for nb, kind in adj[city]:
                nf = f + 1 if f < F and (K == "any" or kind == K) else f
                if (nb, nf) not in nxt:
                    nxt[(nb, nf)] = path + [nb]
        layer = nxt
        for (city, f), path in sorted(layer.items()):
            if city == dest and max(0, k - f - R) == reg:
                return path
    return None


# ---------------------------------------------------------------- legal moves


def _subsets(cards: tuple, max_size: int) -> list[tuple]:
    out = []
    for r in range(0, min(max_size, len(cards)) + 1):
        out.extend(combinations(cards, r))
    return out


def accept_room(d: Data, p: Player) -> int:
    return max(0, commission_limit(d, p) - len(p.comms))


def host_inline_accept(d: Data, state: State, type_idx: int) -> int:
    """How many cards the host may accept inline with `exhibit`, 0 if no choice."""
    ex = d.exhibitions[type_idx]
    r = ex.host
    if not r.accept_commission or r.draw or r.draw_to_hand_limit:
        return 0
    p = state.players[state.active]
    # per-own gains never change the hand or the limits, so the room is known now
    return min(r.accept_commission, accept_room(d, p), len(p.hand))


def to_move(state: State) -> frozenset:
    ph = state.phase
    if ph == OVER:
        return frozenset()
    if ph == BOARD:
        for i, p in enumerate(state.players):
            if p.board < 0:
                return frozenset((i,))
    if ph == ACCEPT or ph == SWAP:
        return frozenset((state.pending[0][0],))
    return frozenset((state.active,))


# Identity cache of the last answer: apply() re-checks the list the caller has
# just asked for. One tuple, rebound atomically, so threads cannot mix entries;
# it holds the state, so `is` can never match a different state.
_LAST: tuple = (None, -1, ())


def legal_moves(state: State, seat: int) -> list:
    global _LAST
    last = _LAST
    if last[0] is state and last[1] == seat:
        return list(last[2])
    out = _legal_moves(state, seat)
    _LAST = (state, seat, tuple(out))
    return out


def _legal_moves(state: State, seat: int) -> list:
    if seat not in to_move(state):
        return []
    d = load(state.custom)
    ph = state.phase
    p = state.players[seat]
    if ph == BOARD:
        taken = {q.board for q in state.players}
        return [Move("board", b, ch) for b in range(len(d.player_boards)) if b not in taken for ch in (0, 1)]
    if ph == START:
        return [Move("start", c) for c in range(len(state.cities))]
    if ph == MOVE:
        return [Move("move", dest, reg) for dest, reg in move_options(state, seat)]
    if ph == TRADE:
        out = []
        city = p.pos
        tok = state.cities[city]
        for action, kind in ((0, "buy"), (1, "sell")):
            if action == 0 and not can_buy(state, seat, city):
                continue
            m = matching_cards(state, seat, action, city, tok)
            if not m:
                out.append(Move(kind, 1))
            else:
                out.append(Move(kind, 0))
                out.extend(Move(kind, 1, 0, s) for s in _subsets(m, len(m)))
        return sorted(out)
    if ph == OFFERS:
        action, city, tok = state.txn
        m = matching_cards(state, seat, action, city, tok)
        return sorted(Move("offers", 0, 0, s) for s in _subsets(m, len(m)))
    if ph == CELL:
        empties = [i for i, t in enumerate(p.gallery) if t < 0]
        out = [Move("cell", i) for i in empties]
        if state.discard:
            picks = sorted(set(state.discard))
            for i in empties:
                if len(empties) > 1 and takes_after(d, p.gallery, i):
                    # the 3rd-floor pick may be written inline: cell F3C4 take sculpture-11 cell F1C3
                    out.extend(Move("cell", i, 0, (t, j)) for t in picks for j in empties if j != i)
        return sorted(out)
    if ph == TAKE:
        empties = [i for i, t in enumerate(p.gallery) if t < 0]
        return sorted(Move("take", t, cell) for t in set(state.discard) for cell in empties)
    if ph == EXHIBIT:
        out = []
        for ti in range(len(d.type_ids)):
            if d.exhibitable[ti]:
                out.append(Move("exhibit", ti, 0, ()))
                n = host_inline_accept(d, state, ti)
                if n:
                    out.extend(Move("exhibit", ti, 1, s) for s in _subsets(tuple(p.hand), n))
        return sorted(out)
    if ph == ACCEPT:
        n = min(state.pending[0][2], accept_room(d, p), len(p.hand))
        return sorted(Move("accept", 0, 0, s) for s in _subsets(tuple(p.hand), n))
    if ph == SWAP:
        out = [Move("swap", -1, -1), Move("swap", -1, 1)]
        out.extend(Move("swap", c, h) for c in p.comms for h in p.hand)
        return sorted(out)
    return []


# ---------------------------------------------------------------- setup


def new_state(players: int, seed: int, side: str, custom: tuple, random_boards: bool) -> State:
    from ..base import rng_for

    d = load(custom)
    tokens = list(range(len(d.tokens)))
    rng_for(seed, "tokens").shuffle(tokens)
    r = d.tokens_removed[players]
    removed, rest = tokens[:r], tokens[r:]
    cities, supply = rest[:15], rest[15:]
    deck = list(range(len(d.cards)))
    rng_for(seed, "messages").shuffle(deck)
    hands: list[list[int]] = [[] for _ in range(players)]
    for _ in range(d.start_cards):
        for s in range(players):
            if deck:
                hands[s].append(deck.pop(0))
    boards = [-1] * players
    if random_boards:
        boards = rng_for(seed, "boards").sample(range(len(d.player_boards)), players)
    empty = (-1,) * (d.floors * d.columns)
    ps = tuple(
        Player(board=boards[s], char=0 if boards[s] >= 0 else -1, pos=-1, coins=d.start_coins,
               rcoins=d.start_royal_coins, tickets=d.start_tickets, rtickets=d.start_royal_tickets,
               hand=tuple(sorted(hands[s])), comms=(), gallery=empty)
        for s in range(players))
    return State(
        n=players, side=side, custom=custom, players=ps, cities=tuple(cities), supply=tuple(supply),
        removed=tuple(removed), discard=(), mtypes=d.type_start, mregions=d.region_start,
        deck=tuple(deck), mdiscard=(), token=players - 1, last_exh=-1,
        turn=1 if random_boards else 0, active=0, phase=START if random_boards else BOARD)


# ---------------------------------------------------------------- apply


def _set_player(state: State, seat: int, p: Player) -> tuple:
    ps = state.players
    return ps[:seat] + (p,) + ps[seat + 1:]


def _begin_turn(state: State, seat: int, turn: int, **more) -> State:
    ph = START if state.players[seat].pos < 0 else MOVE
    return replace(state, active=seat, turn=turn, phase=ph, bought=-1, txn=(), takes=0, exhibited=False,
                   exh=-1, queue=(), pending=(), **more)


def _end_turn(state: State) -> State:
    token = state.token
    # §9.4, 2 players: the active player picks up a token lying on the board
    if state.n == 2 and token == -1 and not state.exhibited:
        token = state.active
    if state.end:
        return replace(state, token=token, phase=OVER, pending=(), queue=())
    return _begin_turn(state, (state.active + 1) % state.n, state.turn + 1, token=token)


def _step_five(state: State) -> State:
    if state.token == state.active:
        return replace(state, phase=EXHIBIT)
    return _end_turn(state)


def _after_placement(state: State) -> State:
    """Resolve owed 3rd-floor picks, then go on to step V."""
    if state.takes:
        p = state.players[state.active]
        if state.discard and -1 in p.gallery:
            return replace(state, phase=TAKE)
        state = replace(state, takes=0)  # §8.3: lost, not deferred
    return _step_five(state)


def takes_after(d: Data, gallery: tuple, cell: int) -> int:
    """How many discard picks filling ``cell`` would give (hall, column, floor bonuses)."""
    cols = d.columns
    f, j = divmod(cell, cols)
    n = d.halls[cell].take_from_discard
    if all(gallery[ff * cols + j] >= 0 for ff in range(d.floors) if ff != f):
        n += d.column_bonus[j].take_from_discard
    if all(gallery[f * cols + jj] >= 0 for jj in range(cols) if jj != j):
        n += d.floor_bonus[f].take_from_discard
    return n


def _place(state: State, seat: int, token: int, cell: int) -> State:
    """§8.2: put a token in a cell and gain hall, column and floor bonuses."""
    d = load(state.custom)
    p = state.players[seat]
    gallery = p.gallery[:cell] + (token,) + p.gallery[cell + 1:]
    cols = d.columns
    f, j = divmod(cell, cols)
    bonuses = [d.halls[cell]]
    if all(gallery[ff * cols + j] >= 0 for ff in range(d.floors)):
        bonuses.append(d.column_bonus[j])
    if all(gallery[f * cols + jj] >= 0 for jj in range(cols)):
        bonuses.append(d.floor_bonus[f])
    coins, tickets, rc, rt, takes = p.coins, p.tickets, p.rcoins, p.rtickets, state.takes
    rc_left, rt_left = royal_left(state)
    for b in bonuses:
        if not b:
            continue
        coins += b.coins
        tickets += b.tickets
        g = min(b.royal_coins, rc_left)  # §1: a royal bonus that cannot be paid is lost
        rc += g
        rc_left -= g
        g = min(b.royal_tickets, rt_left)
        rt += g
        rt_left -= g
        takes += b.take_from_discard
    np = replace(p, gallery=gallery, coins=coins, tickets=tickets, rcoins=rc, rtickets=rt)
    return replace(state, players=_set_player(state, seat, np), takes=takes)


def _play_offers(state: State, seat: int, cards: tuple) -> State:
    d = load(state.custom)
    p = state.players[seat]
    coins, tickets = p.coins, p.tickets
    hand = list(p.hand)
    for c in cards:
        hand.remove(c)
        coins += d.cards[c].offer.coins
        tickets += d.cards[c].offer.tickets
    np = replace(p, hand=tuple(hand), coins=coins, tickets=tickets)
    return replace(state, players=_set_player(state, seat, np), mdiscard=state.mdiscard + tuple(cards))


def _after_trade(state: State) -> State:
    if state.bought >= 0:
        return replace(state, phase=CELL, txn=())
    return _step_five(replace(state, txn=()) if state.txn else state)


def _draw(state: State, seat: int, upto: int, count: int | None) -> State:
    """Draw from the deck top, never above ``upto`` cards in hand (§9.3)."""
    p = state.players[seat]
    hand = list(p.hand)
    deck = state.deck
    drawn = 0
    while deck and len(hand) < upto and (count is None or drawn < count):
        hand.append(deck[0])
        deck = deck[1:]
        drawn += 1
    if not drawn:
        return state
    np = replace(p, hand=tuple(sorted(hand)))
    return replace(state, players=_set_player(state, seat, np), deck=deck)


def _serve(state: State, seat: int, host: bool) -> State:
    """Give one player their exhibition reward (§9.3); decisions go to pending."""
    d = load(state.custom)
    ex = d.exhibitions[state.exh]
    r = ex.host if host else ex.others
    p = state.players[seat]
    own = own_count(d, p, state.exh)
    gc = r.coins + r.coins_per_own * own
    gt = r.tickets + r.tickets_per_own * own
    if gc or gt:
        p = replace(p, coins=p.coins + gc, tickets=p.tickets + gt)
        state = replace(state, players=_set_player(state, seat, p))
    if r.draw_to_hand_limit:
        state = _draw(state, seat, hand_limit(d, p), None)
    if r.draw:
        state = _draw(state, seat, hand_limit(d, p), r.draw)
    pend = state.pending
    if r.accept_commission:
        pend += ((seat, ACCEPT, r.accept_commission),)
    if r.swap_commission:
        pend += ((seat, SWAP, r.swap_commission),)
    return replace(state, pending=pend)


def _decision_possible(state: State, item: tuple) -> bool:
    d = load(state.custom)
    seat, kind, n = item
    p = state.players[seat]
    if n <= 0 or not p.hand:
        return False
    if kind == SWAP and seat in state.no_swap:
        return False  # standing order "swap none always"
    if kind == ACCEPT:
        return accept_room(d, p) > 0
    return bool(p.comms)  # swap: ≥1 accepted commission and ≥1 card in hand (§10.4)


def _run_exhibition(state: State) -> State:
    """Serve players in order until a decision is needed or all are served."""
    while True:
        while state.pending:
            if _decision_possible(state, state.pending[0]):
                return replace(state, phase=state.pending[0][1])
            state = replace(state, pending=state.pending[1:])
        if not state.queue:
            break
        seat, rest = state.queue[0], state.queue[1:]
        state = _serve(replace(state, queue=rest), seat, seat == state.active)
    # §9.4: pass the token
    token = -1 if state.n == 2 else (state.active - 1) % state.n
    return _end_turn(replace(state, token=token, exhibited=True, phase=EXHIBIT))


def _eligible_others(state: State, type_idx: int) -> tuple:
    d = load(state.custom)
    ex = d.exhibitions[type_idx]
    out = []
    n = state.n
    for i in range(1, n):
        s = (state.active + i) % n
        p = state.players[s]
        if ex.others_need_own and own_count(d, p, type_idx) == 0:
            if d.player_boards[p.board].ability.kind != "exhibition_access":
                continue
        out.append(s)
    return tuple(out)


def apply_move(state: State, seat: int, m: Move) -> State:
    """Apply a move already known to be legal."""
    d = load(state.custom)
    k = m.kind
    p = state.players[seat]
    if k == "board":
        np = replace(p, board=m.a, char=m.b)
        s = replace(state, players=_set_player(state, seat, np))
        if all(q.board >= 0 for q in s.players):
            s = _begin_turn(s, 0, 1)
        return s
    if k == "start":
        np = replace(p, pos=m.a)
        return replace(state, players=_set_player(state, seat, np), phase=TRADE)
    if k == "move":
        dest, reg = m.a, m.b
        np = replace(p, pos=dest, tickets=p.tickets - reg)
        return replace(state, players=_set_player(state, seat, np), phase=TRADE)
    if k == "buy" or k == "sell":
        city = p.pos
        tok = state.cities[city]
        pr = price(state, city)
        ti = d.tokens[tok][0]
        ri = d.boards[state.side].city_region[city]
        mt = list(state.mtypes)
        mr = list(state.mregions)
        mt.remove(ti)
        mr.remove(ri)
        discard = state.discard
        if k == "buy":
            royal = min(p.rcoins, pr)  # §6.3: royal coins first, and kept
            np = replace(p, coins=p.coins - (pr - royal))
            mt.insert(0, ti)
            mr.insert(0, ri)
            bought = tok
            action = 0
        else:
            bonus = 0
            ab = d.player_boards[p.board].ability
            if ab.kind == "sale_bonus":
                bonus = ab.coins
            np = replace(p, coins=p.coins + pr + bonus)
            mt.append(ti)
            mr.append(ri)
            discard = discard + (tok,)
            bought = -1
            action = 1
        supply = state.supply
        cities = list(state.cities)
        end = state.end
        if supply:  # §6.6 refill
            cities[city] = supply[0]
            supply = supply[1:]
            if not supply:
                end = True
        else:
            cities[city] = -1
        s = replace(state, players=_set_player(state, seat, np), mtypes=tuple(mt), mregions=tuple(mr),
                    discard=discard, supply=supply, cities=tuple(cities), end=end, bought=bought)
        if m.a == 0:
            return replace(s, phase=OFFERS, txn=(action, city, tok))
        if m.c:
            s = _play_offers(s, seat, m.c)
        return _after_trade(s)
    if k == "offers":
        if m.c:
            state = _play_offers(state, seat, m.c)
        return _after_trade(state)
    if k == "cell":
        s = _place(state, seat, state.bought, m.a)
        s = _after_placement(replace(s, bought=-1))
        if m.c:
            s = apply_move(s, seat, Move("take", m.c[0], m.c[1]))
        return s
    if k == "take":
        discard = list(state.discard)
        discard.remove(m.a)
        s = replace(state, discard=tuple(discard), takes=state.takes - 1)
        s = _place(s, seat, m.a, m.b)
        return _after_placement(s)
    if k == "exhibit":
        ti = m.a
        s = replace(state, exh=ti, last_exh=ti, queue=_eligible_others(state, ti), pending=())
        s = _serve(s, seat, True)
        if m.b == 1 and s.pending and s.pending[0][:2] == (seat, ACCEPT):
            s = _accept(s, seat, m.c)
        return _run_exhibition(s)
    if k == "accept":
        return _run_exhibition(_accept(state, seat, m.c))
    if k == "swap":
        item = state.pending[0]
        if m.a < 0:
            s = replace(state, pending=state.pending[1:])
            if m.b == 1:
                s = replace(s, no_swap=tuple(sorted(set(s.no_swap) | {seat})))
            return _run_exhibition(s)
        comms = list(p.comms)
        comms.remove(m.a)
        comms.append(m.b)
        hand = list(p.hand)
        hand.remove(m.b)
        np = replace(p, comms=tuple(comms), hand=tuple(hand))
        rest = state.pending[1:]
        if item[2] > 1:
            rest = ((seat, SWAP, item[2] - 1),) + rest
        s = replace(state, players=_set_player(state, seat, np), mdiscard=state.mdiscard + (m.a,), pending=rest)
        return _run_exhibition(s)
    raise ValueError(k)


def _accept(state: State, seat: int, cards: tuple) -> State:
    p = state.players[seat]
    hand = list(p.hand)
    for c in cards:
        hand.remove(c)
    np = replace(p, hand=tuple(hand), comms=p.comms + tuple(cards))
    return replace(state, players=_set_player(state, seat, np), pending=state.pending[1:])


# ---------------------------------------------------------------- scoring (§12)


def commission_points(d: Data, card: int, gallery: tuple) -> int:
    cm = d.cards[card].commission
    toks = [d.tokens[t] for t in gallery if t >= 0]
    k = cm.kind
    if k == "per_exhibit":
        n = sum(1 for ti, v, _ in toks
                if (not cm.types or ti in cm.types) and (not cm.values or v in cm.values))
        return cm.points * n
    if k == "per_complete_floor":
        return cm.points * len(complete_floors(d, gallery))
    if k == "per_complete_column":
        return cm.points * len(complete_columns(d, gallery))
    if k == "per_full_set":
        counts = [0] * len(d.type_ids)
        for ti, _v, _ in toks:
            counts[ti] += 1
        return cm.points * min(counts)
    if k == "min_exhibits":
        return cm.points if len(toks) >= cm.count else 0
    raise ValueError(k)


def score_breakdown(d: Data, p: Player) -> dict:
    exhibits = sum(d.tokens[t][1] for t in p.gallery if t >= 0)
    comms = sum(commission_points(d, c, p.gallery) for c in p.comms)
    left = leftovers(p)
    lv = left // d.leftovers_per_vp
    return {"exhibits": exhibits, "commissions": comms, "leftovers": lv,
            "total": exhibits + comms + lv, "leftover_items": left,
            "exhibit_count": sum(1 for t in p.gallery if t >= 0)}
