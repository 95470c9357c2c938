"""Squire rules: the immutable state, the moves, legal-move generation and
``apply``. Section numbers (§) refer to games/squire/RULES.md.

A move is one atomic decision (RULES.md §14, D1-D10). Choices that arise
inside a decision (offers after a buy/sell, the commission accepted at a
sculpture exhibition) may be given inline; when omitted they become a pending
decision of the same seat. A plain ``buy``/``sell`` asks for the offers even
when no card of the hand matches (``offers none`` is then the only answer):
the other seats see the question asked or not, so it must not depend on the
secret hand (RULES.md §2). The offers question stays open through step IV:
``buy; cell F1C2`` places the exhibit and then asks it, because
nothing in the placement depends on the hand, the coins or the tickets, nor
the offers on the gallery, so the answer comes out the same; it must be
answered before step V, whose ceramics draws and commissions depend on the
hand. The 3rd-floor pick and the other players' swaps are always their own
decisions.

An order (one mail, one web post) that goes on past the offers question, or
whose plain sale ends the turn, answers it ``offers none``: the services ask
``game.implied_move`` (game.py) between the order's moves and after its last.
That reads nothing of the hand either, and ``offers none`` is always a legal
answer (§6.5: any number of cards, possibly none). ``offers none always`` is a
standing order to read every plain buy or sell so.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, make_dataclass
from itertools import combinations
from typing import Callable, NamedTuple

from .data import Data, load

# phases
BOARD, START, MOVE, TRADE, OFFERS, CELL, TAKE, EXHIBIT, ACCEPT, SWAP, OVER = (
    "board", "start", "move", "trade", "offers", "cell", "take", "exhibit", "accept", "swap", "over")


class Move(NamedTuple):
    """kind plus up to three small fields (meaning per kind):

    board   a=board index, b=character index (0/1)
    start   a=city
    move    a=destination city, b=regular tickets spent
    buy     a=1 if the offers were stated, c=offer cards played;
            b=1: "buy offers none always", none played and a standing order for the rest of the game
    sell    as buy
    offers  c=offer cards played (possibly none); b=1: "offers none always", as for buy
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
    traded: tuple = ()     # the last transaction: (seat, 0 buy / 1 sell, token), for refusals that say why
    no_offers: tuple = ()  # seats with the standing order "offers none always": a plain buy or sell plays none

    @property
    def data(self) -> Data:
        return load(self.custom)


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
    n = 0
    for t in p.gallery:
        if t >= 0 and toks[t][0] == type_idx:
            n += 1
    return n


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


# The cards whose offer a transaction matches, per data set and (action, region, type): asked for
# every buy or sell the trade step could make and at every offers question, over a hand of a few
# cards. Keyed by the data set's ``custom`` (the data set is ``load(custom)``) and cleared with a
# bound, as ``load``'s own cache is.
_MATCHING: dict = {}


def _matching(d: Data, custom: tuple, action: int, region: int, type_idx: int) -> frozenset:
    key = (custom, action, region, type_idx)
    hit = _MATCHING.get(key)
    if hit is None:
        if len(_MATCHING) > 4096:
            _MATCHING.clear()
        hit = _MATCHING[key] = frozenset(c for c in range(len(d.cards))
                                         if offer_matches(d, c, action, region, type_idx))
    return hit


def matching_cards(state: State, seat: int, action: int, city: int, token: int) -> tuple:
    d = load(state.custom)
    region = d.boards[state.side].city_region[city]
    ti = d.tokens[token][0]
    return tuple(filter(_matching(d, state.custom, action, region, ti).__contains__, state.players[seat].hand))


def royal_left(state: State, d: Data | None = None) -> tuple[int, int]:
    """(royal coins, royal tickets) still in the royal supply (``d``: the state's data set, if loaded)."""
    if d is None:
        d = load(state.custom)
    coins, tickets = d.box_royal_coins, d.box_royal_tickets
    for p in state.players:  # a loop: two generators would cost more than the sums over four players
        coins -= p.rcoins
        tickets -= p.rtickets
    return coins, tickets


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
    return _reach(state, seat)[0]


def _reach(state: State, seat: int) -> tuple:
    """The movement cache entry: (move_options, the same as Moves in that order).
    Both depend on the key alone, so legal_moves reuses the Moves as well."""
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
    entry = (out, tuple(Move("move", dest, reg) for dest, reg in out))
    if len(_REACH) > 50_000:
        _REACH.clear()
    _REACH[key] = entry
    return entry


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
    if not cards or max_size <= 0:  # most hands hold no card the offer or commission could take
        return [()]
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


# to_move is asked several times per move; frozensets are immutable, so one per
# seat is shared (4: the most players any data set allows, see data.build).
_NOBODY = frozenset()
_SEAT = tuple(frozenset((s,)) for s in range(4))


def to_move(state: State) -> frozenset:
    ph = state.phase
    if ph == OVER:
        return _NOBODY
    if ph == BOARD:
        for i, p in enumerate(state.players):
            if p.board < 0:
                return _SEAT[i]
    if ph == ACCEPT or ph == SWAP:
        return _SEAT[state.pending[0][0]]
    return _SEAT[state.active]


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


def is_legal(state: State, seat: int, move: Move) -> bool:
    """``move in legal_moves(state, seat)`` without copying the list apply has just been given."""
    last = _LAST
    if last[0] is state and last[1] == seat:
        return move in last[2]
    return move in legal_moves(state, seat)


# Move(...) goes through a Python-level __new__ (for the defaults), about three
# times the cost of making the tuple directly; legal-move generation makes
# thousands of moves per game, so the hot branches below use _make(Move, (all
# four fields)) instead.
_make = tuple.__new__


def _legal_moves(state: State, seat: int) -> list:
    if seat not in to_move(state):
        return []
    d = load(state.custom)
    ph = state.phase
    p = state.players[seat]
    # the phases whose moves a comprehension over this function's variables makes have a function
    # of their own: such a comprehension would make cells of them at every call, in every phase
    if ph == BOARD:
        return _board_moves(d, state)
    if ph == START:
        return [Move("start", c) for c in range(len(state.cities))]
    if ph == MOVE:
        return list(_reach(state, seat)[1])
    if ph == TRADE:
        return _trade_moves(d, state, p)
    if ph == OFFERS:
        # the question stays open through step IV: a bought exhibit may be placed first
        if state.bought >= 0:  # "cell" sorts before "offers"
            return _cell_moves(d, state, p) + _offer_moves(state, seat)
        return _offer_moves(state, seat)
    if ph == CELL:
        return _cell_moves(d, state, p)
    if ph == TAKE:
        return _take_moves(state, seat, p)
    if ph == EXHIBIT:
        return _exhibit_moves(d, state, p)
    if ph == ACCEPT:
        n = min(state.pending[0][2], accept_room(d, p), len(p.hand))
        return sorted(_make(Move, ("accept", 0, 0, s)) for s in _subsets(tuple(p.hand), n))
    if ph == SWAP:
        return _swap_moves(p)
    return []


def _board_moves(d: Data, state: State) -> list:
    taken = {q.board for q in state.players}
    return [Move("board", b, ch) for b in range(len(d.player_boards)) if b not in taken for ch in (0, 1)]


def _trade_moves(d: Data, state: State, p: Player) -> list:
    out = []
    city = p.pos
    tok = state.cities[city]
    # can_buy, price and matching_cards inlined, with the data set loaded once
    ti = d.tokens[tok][0]
    region = d.boards[state.side].city_region[city]
    cost = d.type_values[state.mtypes.index(ti)] + d.region_values[state.mregions.index(region)]
    many = False  # two matching cards or more: their subsets are not made in sorted order
    for action, kind in ((0, "buy"), (1, "sell")):
        if action == 0 and not (-1 in p.gallery and p.coins + p.rcoins >= cost):
            continue
        # a plain buy/sell always asks for the offers next (§2: whether the secret hand holds a
        # matching card must not show), so it is legal with or without one
        m = tuple(filter(_matching(d, state.custom, action, region, ti).__contains__, p.hand))
        plain, stated, none_always = _TRADE[kind]
        out.append(plain)
        if m:
            many = many or len(m) > 1
            for s in _subsets(m, len(m)):
                out.append(_make(Move, (kind, 1, 0, s)))
        else:
            out.append(stated)
        out.append(none_always)  # ... offers none always
    # "buy" before "sell", then by the fields: in sorted order already unless a subset list needs it
    return sorted(out) if many else out


def _take_moves(state: State, seat: int, p: Player) -> list:
    empties = [i for i, t in enumerate(p.gallery) if t < 0]
    out = [_make(Move, ("take", t, cell, ())) for t in set(state.discard) for cell in empties]
    if state.txn:
        out += _offer_moves(state, seat)
    return sorted(out)


def _exhibit_moves(d: Data, state: State, p: Player) -> list:
    out = []
    for ti in range(len(d.type_ids)):
        if d.exhibitable[ti]:
            out.append(_make(Move, ("exhibit", ti, 0, ())))
            n = host_inline_accept(d, state, ti)
            if n:
                out += [_make(Move, ("exhibit", ti, 1, s)) for s in _subsets(tuple(p.hand), n)]
    return sorted(out)


def _swap_moves(p: Player) -> list:
    out = [Move("swap", -1, -1), Move("swap", -1, 1)]
    out.extend(Move("swap", c, h) for c in p.comms for h in p.hand)
    return sorted(out)


# Moves that every trade step or offers question may list, made once (a Move is immutable): a buy
# or sell without stating the offers, stating none, and "offers none always"; no offer, none always.
_TRADE = {kind: (_make(Move, (kind, 0, 0, ())), _make(Move, (kind, 1, 0, ())), _make(Move, (kind, 1, 1, ())))
          for kind in ("buy", "sell")}
_NO_OFFER = (_make(Move, ("offers", 0, 0, ())), _make(Move, ("offers", 0, 1, ())))


def _offer_moves(state: State, seat: int) -> list:
    """The offers question's answers, in sorted order."""
    action, city, tok = state.txn
    m = matching_cards(state, seat, action, city, tok)
    if not m:  # most hands: no card to offer, the two moves every offers question has
        return list(_NO_OFFER)
    out = [_make(Move, ("offers", 0, 0, s)) for s in _subsets(m, len(m))]
    out.append(_NO_OFFER[1])
    return out if len(m) == 1 else sorted(out)  # (), (a,), then none always: sorted already


_PLAIN_CELL = tuple(_make(Move, ("cell", i, 0, ())) for i in range(3 * 4))  # data.build: 3 floors x 4 columns


def _cell_moves(d: Data, state: State, p: Player) -> list:
    empties = [i for i, t in enumerate(p.gallery) if t < 0]
    plain = _PLAIN_CELL
    if not state.discard or len(empties) < 2:
        return [plain[i] for i in empties]
    picks = sorted(set(state.discard))
    # built in sorted order: by cell, the plain move first, then its picks by (token, cell)
    sources = d.take_sources
    out = []
    for i in empties:
        out.append(plain[i])
        if sources[i] and takes_after(d, p.gallery, i):
            # the 3rd-floor pick may be written inline: cell F3C4 take sculpture-11 cell F1C3
            # (loops: a comprehension would make cells of i and empties at every call)
            for t in picks:
                for j in empties:
                    if j != i:
                        out.append(_make(Move, ("cell", i, 0, (t, j))))
    return out


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

# apply works on a private mutable copy of the state (a draft) and turns it into
# a State once, at the end. Building a frozen dataclass costs about ten times a
# plain object of the same shape (its __init__ goes through object.__setattr__
# for every field), and one apply used to build three or four of them. A draft
# has exactly the slots of its frozen class, so finishing it is only a change of
# __class__: from then on it is an ordinary, immutable State or Player. Only
# immutable values (tuples, the Players of untouched seats) are shared with the
# input state, which is therefore never changed.
_STATE_FIELDS = tuple(f.name for f in fields(State))
_PLAYER_FIELDS = tuple(f.name for f in fields(Player))
_StateDraft = make_dataclass("_StateDraft", _STATE_FIELDS, slots=True)
_PlayerDraft = make_dataclass("_PlayerDraft", _PLAYER_FIELDS, slots=True)
assert _StateDraft.__slots__ == State.__slots__ and _PlayerDraft.__slots__ == Player.__slots__


def _copier(cls: type, names: tuple) -> Callable:
    """``lambda r: cls(r.<name>, ...)``, every field named in the code: the interpreter reads a
    slot named in the code about twice as fast as attrgetter does, and a draft is made every apply."""
    return eval("lambda r: cls(" + ", ".join("r." + n for n in names) + ")", {"cls": cls})


_draft = _copier(_StateDraft, _STATE_FIELDS)  # the draft of a State
_player_draft = _copier(_PlayerDraft, _PLAYER_FIELDS)  # the draft of a Player


def _edit_player(s: _StateDraft, seat: int) -> _PlayerDraft:
    """The seat's player in the draft, made editable (copied once per apply)."""
    p = s.players[seat]
    if type(p) is not _PlayerDraft:
        p = _player_draft(p)
        ps = s.players
        s.players = ps[:seat] + (p,) + ps[seat + 1:]
    return p


def _freeze(s: _StateDraft) -> State:
    for p in s.players:
        if type(p) is _PlayerDraft:
            p.__class__ = Player
    s.__class__ = State
    return s


def _begin_turn(s: _StateDraft, seat: int, turn: int) -> None:
    s.phase = START if s.players[seat].pos < 0 else MOVE
    s.active, s.turn = seat, turn
    s.bought, s.txn, s.takes, s.exhibited, s.exh, s.queue, s.pending = -1, (), 0, False, -1, (), ()


def _end_turn(s: _StateDraft) -> None:
    # §9.4, 2 players: the active player picks up a token lying on the board
    if s.n == 2 and s.token == -1 and not s.exhibited:
        s.token = s.active
    if s.end:
        s.phase, s.pending, s.queue = OVER, (), ()
        return
    _begin_turn(s, (s.active + 1) % s.n, s.turn + 1)


def _step_five(s: _StateDraft) -> None:
    if s.token == s.active:
        s.phase = EXHIBIT
    else:
        _end_turn(s)


def _resume(s: _StateDraft) -> None:
    """The next decision of the active seat's steps II-IV, else step V: the
    bought exhibit to place (with the offers question, if open, beside it),
    owed 3rd-floor picks, the offers question, in that order."""
    if s.bought >= 0:
        s.phase = OFFERS if s.txn else CELL
        return
    if s.takes:
        if s.discard and -1 in s.players[s.active].gallery:
            s.phase = TAKE
            return
        s.takes = 0  # §8.3: lost, not deferred
    if s.txn:
        s.phase = OFFERS
        return
    _step_five(s)


def takes_after(d: Data, gallery: tuple, cell: int) -> int:
    """How many discard picks filling ``cell`` would give (hall, column, floor bonuses)."""
    n = 0
    for picks, needed in d.take_sources[cell]:
        for c in needed:  # a loop, not all() over a generator: legal-move generation asks per empty cell
            if gallery[c] < 0:
                break
        else:
            n += picks
    return n


def _place(d: Data, s: _StateDraft, seat: int, token: int, cell: int) -> None:
    """§8.2: put a token in a cell and gain hall, column and floor bonuses."""
    p = _edit_player(s, seat)
    gallery = p.gallery[:cell] + (token,) + p.gallery[cell + 1:]
    cols = d.columns
    f, j = divmod(cell, cols)
    bonuses = [d.halls[cell]]
    # an empty cell holds -1, a token its index: the column is every cols-th cell from j, the floor a run
    if -1 not in gallery[j::cols]:
        bonuses.append(d.column_bonus[j])
    if -1 not in gallery[f * cols:f * cols + cols]:
        bonuses.append(d.floor_bonus[f])
    coins, tickets, rc, rt, takes = p.coins, p.tickets, p.rcoins, p.rtickets, s.takes
    rc_left, rt_left = royal_left(s, d)
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
    p.gallery, p.coins, p.tickets, p.rcoins, p.rtickets = gallery, coins, tickets, rc, rt
    s.takes = takes


def _play_offers(s: _StateDraft, seat: int, cards: tuple) -> None:
    d = load(s.custom)
    p = _edit_player(s, seat)
    hand = list(p.hand)
    for c in cards:
        hand.remove(c)
        p.coins += d.cards[c].offer.coins
        p.tickets += d.cards[c].offer.tickets
    p.hand = tuple(hand)
    s.mdiscard += tuple(cards)


def _after_trade(s: _StateDraft) -> None:
    s.txn = ()
    _resume(s)


def _draw(s: _StateDraft, seat: int, upto: int, count: int | None) -> None:
    """Draw from the deck top, never above ``upto`` cards in hand (§9.3)."""
    hand = list(s.players[seat].hand)
    deck = s.deck
    drawn = 0
    while deck and len(hand) < upto and (count is None or drawn < count):
        hand.append(deck[0])
        deck = deck[1:]
        drawn += 1
    if drawn:
        _edit_player(s, seat).hand = tuple(sorted(hand))
        s.deck = deck


def _serve(s: _StateDraft, seat: int, host: bool) -> None:
    """Give one player their exhibition reward (§9.3); decisions go to pending."""
    d = load(s.custom)
    ex = d.exhibitions[s.exh]
    r = ex.host if host else ex.others
    p = s.players[seat]
    own = own_count(d, p, s.exh) if r.coins_per_own or r.tickets_per_own else 0
    gc = r.coins + r.coins_per_own * own
    gt = r.tickets + r.tickets_per_own * own
    if gc or gt:
        p = _edit_player(s, seat)
        p.coins += gc
        p.tickets += gt
    if r.draw_to_hand_limit:
        _draw(s, seat, hand_limit(d, p), None)
    if r.draw:
        _draw(s, seat, hand_limit(d, p), r.draw)
    if r.accept_commission:
        s.pending += ((seat, ACCEPT, r.accept_commission),)
    if r.swap_commission:
        s.pending += ((seat, SWAP, r.swap_commission),)


def _decision_possible(state: State | _StateDraft, item: tuple) -> bool:
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


def _run_exhibition(s: _StateDraft) -> None:
    """Serve players in order until a decision is needed or all are served."""
    while True:
        while s.pending:
            if _decision_possible(s, s.pending[0]):
                s.phase = s.pending[0][1]
                return
            s.pending = s.pending[1:]
        if not s.queue:
            break
        seat = s.queue[0]
        s.queue = s.queue[1:]
        _serve(s, seat, seat == s.active)
    # §9.4: pass the token
    s.token = -1 if s.n == 2 else (s.active - 1) % s.n
    s.exhibited, s.phase = True, EXHIBIT
    _end_turn(s)


def _eligible_others(state: State | _StateDraft, type_idx: int) -> tuple:
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
    s = _draft(state)
    _apply(s, seat, m)
    return _freeze(s)


def _apply(s: _StateDraft, seat: int, m: Move) -> None:
    d = load(s.custom)
    k = m.kind
    p = s.players[seat]
    if k == "board":
        p = _edit_player(s, seat)
        p.board, p.char = m.a, m.b
        if all(q.board >= 0 for q in s.players):
            _begin_turn(s, 0, 1)
        return
    if k == "start":
        _edit_player(s, seat).pos = m.a
        s.phase = TRADE
        return
    if k == "move":
        dest, reg = m.a, m.b
        p = _edit_player(s, seat)
        p.pos = dest
        p.tickets -= reg
        s.phase = TRADE
        return
    if k == "buy" or k == "sell":
        city = p.pos
        tok = s.cities[city]
        ti = d.tokens[tok][0]
        ri = d.boards[s.side].city_region[city]
        pr = d.type_values[s.mtypes.index(ti)] + d.region_values[s.mregions.index(ri)]  # price(), d loaded
        mt = list(s.mtypes)
        mr = list(s.mregions)
        mt.remove(ti)
        mr.remove(ri)
        p = _edit_player(s, seat)
        if k == "buy":
            royal = min(p.rcoins, pr)  # §6.3: royal coins first, and kept
            p.coins -= pr - royal
            mt.insert(0, ti)
            mr.insert(0, ri)
            s.bought = tok
            action = 0
        else:
            bonus = 0
            ab = d.player_boards[p.board].ability
            if ab.kind == "sale_bonus":
                bonus = ab.coins
            p.coins += pr + bonus
            mt.append(ti)
            mr.append(ri)
            s.discard += (tok,)
            s.bought = -1
            action = 1
        s.mtypes, s.mregions = tuple(mt), tuple(mr)
        cities = list(s.cities)
        if s.supply:  # §6.6 refill
            cities[city] = s.supply[0]
            s.supply = s.supply[1:]
            if not s.supply:
                s.end = True
        else:
            cities[city] = -1
        s.cities = tuple(cities)
        s.traded = (seat, action, tok)
        if m.b == 1:
            _stand_offers_none(s, seat)
        if m.a == 0:
            s.phase, s.txn = OFFERS, (action, city, tok)
            return
        if m.c:
            _play_offers(s, seat, m.c)
        _after_trade(s)
        return
    if k == "offers":
        if m.b == 1:
            _stand_offers_none(s, seat)
        if m.c:
            _play_offers(s, seat, m.c)
        _after_trade(s)
        return
    if k == "cell":
        _place(d, s, seat, s.bought, m.a)
        s.bought = -1
        _resume(s)
        if m.c:
            _apply(s, seat, Move("take", m.c[0], m.c[1]))
        return
    if k == "take":
        discard = list(s.discard)
        discard.remove(m.a)
        s.discard = tuple(discard)
        s.takes -= 1
        _place(d, s, seat, m.a, m.b)
        _resume(s)
        return
    if k == "exhibit":
        ti = m.a
        s.queue = _eligible_others(s, ti)
        s.exh, s.last_exh, s.pending = ti, ti, ()
        _serve(s, seat, True)
        if m.b == 1 and s.pending and s.pending[0][:2] == (seat, ACCEPT):
            _accept(s, seat, m.c)
        _run_exhibition(s)
        return
    if k == "accept":
        _accept(s, seat, m.c)
        _run_exhibition(s)
        return
    if k == "swap":
        item = s.pending[0]
        if m.a < 0:
            s.pending = s.pending[1:]
            if m.b == 1:
                s.no_swap = tuple(sorted(set(s.no_swap) | {seat}))
            _run_exhibition(s)
            return
        p = _edit_player(s, seat)
        comms = list(p.comms)
        comms.remove(m.a)
        comms.append(m.b)
        hand = list(p.hand)
        hand.remove(m.b)
        p.comms, p.hand = tuple(comms), tuple(hand)
        rest = s.pending[1:]
        if item[2] > 1:
            rest = ((seat, SWAP, item[2] - 1),) + rest
        s.mdiscard += (m.a,)
        s.pending = rest
        _run_exhibition(s)
        return
    raise ValueError(k)


def _stand_offers_none(s: _StateDraft, seat: int) -> None:
    s.no_offers = tuple(sorted(set(s.no_offers) | {seat}))


def _accept(s: _StateDraft, seat: int, cards: tuple) -> None:
    p = _edit_player(s, seat)
    hand = list(p.hand)
    for c in cards:
        hand.remove(c)
    p.hand = tuple(hand)
    p.comms += tuple(cards)
    s.pending = s.pending[1:]


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
