"""Immutable state of a Spyrium game (RULES.md §14) and its JSON form."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

# ---------------------------------------------------------------- moves
#
# A move is a plain tuple of ints (small, hashable, orderable):
#     (kind, switch, a, b, lobbying, commerce, answers)
# kind      PLACE, EVENT, EARN, ACT, USE, PASS or ANSWER (a reply to a pending decision)
# switch    1 when the move is "go to Phase II and at once ..." (§5.3)
# a, b      PLACE: a = space index 0..11; EARN / ACT: a = space index, b = position 1..9
#           (0 = no card, for Earn money next to no card); USE: a = lot number (1-based)
# lobbying  1 when Lobbying's waiver is declared (§11.3)
# commerce  0, or the value 1..3 declared through Commerce (§11.3)
# answers   the mid-action decisions in the order they arise (§15), each coded as
#           dtype * 100 + value (see the D_* constants)
PLACE, EVENT, EARN, ACT, USE, PASS, ANSWER = range(7)

D_TOKEN = 1      # value of the token taken (1..3)
D_LOT = 2        # 0 = new lot, k = replace the building in lot k
D_RES = 3        # 0 = advance, 1 = score
D_BONUS = 4      # 0 = worker tile, 1 = £5 tile
D_OPT = 5        # option 1 or 2 of a building or an event
D_RESOURCE = 6   # Token Windfall: 0 = £, 1 = S, 2 = VP
D_BUILDING = 7   # Overtime: lot k of the turned building used again
D_SPACE = 8      # Late Placement: space index 0..11

# bonus tiles (§9): 0 both wait at 8; 1 the worker tile waits at 20; 2 the £5 tile waits at 20; 3 none left
BONUS_BOTH, BONUS_WORKER_AT_20, BONUS_CASH_AT_20, BONUS_NONE = range(4)


@dataclass(frozen=True, slots=True)
class Player:
    money: int
    spy: int
    vp: int
    res: int
    phase: int          # 1 or 2
    passed: bool
    evused: bool        # the event-used disc is on the current event
    active: int         # workers on the start card
    used: int           # workers beside the start card (back from the market)
    onbld: int          # workers standing on buildings
    owned: int          # workers not in the reserve (active + market + used + on buildings)
    bonus: int          # BONUS_*
    lots: tuple         # card id per lot, lot 1 first
    turned: tuple       # bool per lot
    techs: tuple        # technique card ids in the order acquired
    lobused: bool       # Lobbying turned this round
    comused: bool       # Commerce's value change used this round (the card is turned)
    tayused: bool       # Taylorism turned this round
    kept: tuple         # token values kept through Commerce, sorted
    lotw: tuple = ()    # workers standing on the building of each lot (sum = onbld); a
                        # replaced building's workers become used (§6 ruling, §10)

    def __post_init__(self) -> None:
        # a position made by hand may leave lotw out: no worker stands on its buildings. Mended
        # here, once, so that the rules' hot path (new_player, which skips this) can trust it
        if len(self.lotw) != len(self.lots):
            object.__setattr__(self, "lotw", (self.lotw + (0,) * len(self.lots))[:len(self.lots)])


@dataclass(frozen=True, slots=True)
class State:
    n: int              # players
    seed: int
    round: int          # 1..6
    first: int          # seat holding the first-player card
    turn: int           # seat to act (-1 when over)
    decks: tuple        # (A, B, C) remaining cards, top first  [hidden order]
    events: tuple       # event deck, top (= the future event) first  [hidden below the top]
    cur_event: int      # card id of the current event
    cur_token: int      # 0 when none
    fut_token: int      # token on the future event, 0 when none
    supply: tuple       # face-down tokens, next draw first  [hidden]
    discard: tuple      # face-up token discard pile, sorted
    reshuffles: int     # how many times the discard pile became the supply
    market: tuple       # 9 card ids, -1 for an empty position
    mtok: tuple         # 9 sorted tuples of token values
    spaces: tuple       # 12 sorted tuples of seats, one per worker
    ps: tuple           # Player per seat
    pending: tuple      # () or the incomplete move waiting for a decision of `turn`
    over: bool
    cache: Any = field(default=None, compare=False, repr=False)


# The frozen dataclasses' own __init__ goes through object.__setattr__ once per field,
# which made building the one new Player and State of each move most of the cost of
# apply. These twins have the same slots, hence the same memory layout, and no frozen
# __setattr__: new_player / new_state fill one with plain stores and then make it a
# Player / State by __class__ assignment, which CPython allows between such layouts.
# The result is an ordinary frozen instance, equal to what the constructor gives.


class _PlayerBody:
    __slots__ = Player.__slots__


class _StateBody:
    __slots__ = State.__slots__


def new_player(money, spy, vp, res, phase, passed, evused, active, used, onbld, owned, bonus, lots,
               turned, techs, lobused, comused, tayused, kept, lotw=()) -> Player:
    p = _PlayerBody()
    p.money = money
    p.spy = spy
    p.vp = vp
    p.res = res
    p.phase = phase
    p.passed = passed
    p.evused = evused
    p.active = active
    p.used = used
    p.onbld = onbld
    p.owned = owned
    p.bonus = bonus
    p.lots = lots
    p.turned = turned
    p.techs = techs
    p.lobused = lobused
    p.comused = comused
    p.tayused = tayused
    p.kept = kept
    p.lotw = lotw
    p.__class__ = Player
    return p


def new_state(n, seed, round, first, turn, decks, events, cur_event, cur_token, fut_token, supply,
              discard, reshuffles, market, mtok, spaces, ps, pending, over) -> State:
    st = _StateBody()
    st.n = n
    st.seed = seed
    st.round = round
    st.first = first
    st.turn = turn
    st.decks = decks
    st.events = events
    st.cur_event = cur_event
    st.cur_token = cur_token
    st.fut_token = fut_token
    st.supply = supply
    st.discard = discard
    st.reshuffles = reshuffles
    st.market = market
    st.mtok = mtok
    st.spaces = spaces
    st.ps = ps
    st.pending = pending
    st.over = over
    st.cache = None
    st.__class__ = State
    return st


_PFIELDS = [f.name for f in fields(Player)]
_SFIELDS = [f.name for f in fields(State) if f.name not in ("cache", "ps")]


def _tup(x: Any) -> Any:
    return tuple(_tup(i) for i in x) if isinstance(x, list) else x


def state_to_json(st: State) -> dict:
    out: dict = {}
    for name in _SFIELDS:
        out[name] = _jsonable(getattr(st, name))
    # 'lotw' is written only while some worker stands on a building: without it the
    # loader gives zeros, and the JSON of every other position stays as it was before
    # lotw existed (stored snapshots and state digests keep matching)
    out["ps"] = [{k: _jsonable(getattr(p, k)) for k in _PFIELDS if k != "lotw" or any(p.lotw)}
                 for p in st.ps]
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, tuple):
        return [_jsonable(i) for i in x]
    return x


def state_from_json(data: dict) -> State:
    kw = {name: _tup(data[name]) for name in _SFIELDS}
    kw["ps"] = tuple(Player(**{k: _tup(p[k]) if k in p else _legacy_lotw(p) for k in _PFIELDS})
                     for p in data["ps"])
    return State(**kw)


def _legacy_lotw(p: dict) -> tuple:
    """Workers per lot for a state saved before ``lotw`` existed, which kept only the
    total ``onbld``. The split is unknowable; the whole count goes on the first turned
    lot (workers stand only on buildings used this round), else on lot 1."""
    n = len(p["lots"])
    w = [0] * n
    if p["onbld"] and n:
        turned = [i for i, t in enumerate(p["turned"]) if t]
        w[turned[0] if turned else 0] = p["onbld"]
    return tuple(w)
