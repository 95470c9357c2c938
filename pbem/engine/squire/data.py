"""Squire component data: loading and validating the [house] data set.

Every [house] value of RULES.md lives in the TOML files of ``data/`` (copied
from the rules folder). A game may replace any of them with its own texts
(option ``data``); they are validated here with messages that name the file,
table and key that are wrong, so a group owning the printed game can fix its
set. Nothing here is hard-coded except the vocabularies RULES.md fixes.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any, Mapping

from ..base import OptionError

FILES = (
    "board-british.toml", "board-world.toml", "market.toml", "exhibits.toml", "gallery.toml",
    "exhibitions.toml", "messages.toml", "characters.toml", "components.toml",
)
SIDES = ("british", "world")
BONUS_KEYS = ("coins", "tickets", "royal_coins", "royal_tickets", "hand_limit", "take_from_discard")
REWARD_KEYS = ("coins", "tickets", "coins_per_own", "tickets_per_own", "draw_to_hand_limit", "draw",
               "accept_commission", "swap_commission")
ABILITY_KINDS = {
    "sale_bonus": ("coins",),
    "free_steps": ("steps", "route_kind"),
    "exhibition_access": (),
    "limit_bonus": ("hand_limit", "commission_limit"),
}
COMMISSION_KINDS = ("per_exhibit", "per_complete_floor", "per_complete_column", "per_full_set", "min_exhibits")
ACTIONS = ("buy", "sell", "buy_or_sell")
PRINTED_TYPES = ("painting", "ceramics", "sculpture", "rare_book")


# ---------------------------------------------------------------- tables


@dataclass(frozen=True)
class Bonus:
    coins: int = 0
    tickets: int = 0
    royal_coins: int = 0
    royal_tickets: int = 0
    hand_limit: int = 0
    take_from_discard: int = 0

    def __bool__(self) -> bool:
        return any((self.coins, self.tickets, self.royal_coins, self.royal_tickets, self.hand_limit,
                    self.take_from_discard))

    def describe(self) -> str:
        parts = []
        for key, word in (("coins", "coin"), ("tickets", "ticket"), ("royal_coins", "royal coin"),
                          ("royal_tickets", "royal ticket")):
            n = getattr(self, key)
            if n:
                parts.append(f"+{n} {word}{'s' if n != 1 else ''}")
        if self.hand_limit:
            parts.append(f"hand limit +{self.hand_limit}")
        if self.take_from_discard:
            parts.append(f"take {self.take_from_discard} from discard")
        return ", ".join(parts) or "-"


@dataclass(frozen=True)
class Reward:
    coins: int = 0
    tickets: int = 0
    coins_per_own: int = 0
    tickets_per_own: int = 0
    draw_to_hand_limit: bool = False
    draw: int = 0
    accept_commission: int = 0
    swap_commission: int = 0

    def describe(self, type_name: str) -> str:
        parts = []
        if self.coins or self.coins_per_own:
            s = f"{self.coins} coin{'s' if self.coins != 1 else ''}" if self.coins else ""
            if self.coins_per_own:
                s += (" + " if s else "") + f"{self.coins_per_own} per own {type_name.lower()}"
            parts.append(s)
        if self.tickets or self.tickets_per_own:
            s = f"{self.tickets} ticket{'s' if self.tickets != 1 else ''}" if self.tickets else ""
            if self.tickets_per_own:
                s += (" + " if s else "") + f"{self.tickets_per_own} per own {type_name.lower()}"
            parts.append(s)
        if self.draw_to_hand_limit:
            parts.append("draw to hand limit")
        if self.draw:
            parts.append(f"draw {self.draw} (up to limit)")
        if self.accept_commission:
            parts.append(f"may accept {self.accept_commission} commission")
        if self.swap_commission:
            parts.append(f"may swap {self.swap_commission} commission")
        return ", ".join(parts) or "nothing"


@dataclass(frozen=True)
class Board:
    side: str
    name: str
    region_labels: tuple[str, ...]      # by region index (market order of data.regions)
    region_symbols: tuple[str, ...]
    city_ids: tuple[str, ...]
    city_names: tuple[str, ...]
    city_region: tuple[int, ...]
    routes: tuple[tuple[int, int, str], ...]
    adj: tuple[tuple[tuple[int, str], ...], ...]  # city -> ((neighbour, kind), ...)


@dataclass(frozen=True)
class Offer:
    action: str
    region: int  # -1: any
    type: int    # -1: any
    coins: int
    tickets: int


@dataclass(frozen=True)
class Commission:
    kind: str
    points: int
    types: frozenset = frozenset()
    values: frozenset = frozenset()
    count: int = 0


@dataclass(frozen=True)
class Card:
    id: str
    offer: Offer
    commission: Commission


@dataclass(frozen=True)
class Ability:
    kind: str
    coins: int = 0
    steps: int = 0
    route_kind: str = "any"
    hand_limit: int = 0
    commission_limit: int = 0


@dataclass(frozen=True)
class PlayerBoard:
    id: str
    characters: tuple[str, str]
    ability: Ability
    summary: str


@dataclass(frozen=True)
class Exhibition:
    type: int
    host: Reward
    others: Reward
    others_need_own: bool


@dataclass(frozen=True)
class Data:
    boards: Mapping[str, Board]
    region_ids: tuple[str, ...]
    type_ids: tuple[str, ...]
    type_names: tuple[str, ...]
    type_colours: tuple[str, ...]
    exhibitable: tuple[bool, ...]
    tokens: tuple[tuple[int, int, str], ...]  # (type index, value, id)
    positions: int
    type_values: tuple[int, ...]
    region_values: tuple[int, ...]
    type_start: tuple[int, ...]
    region_start: tuple[int, ...]
    floors: int
    columns: int
    floor_bonus: tuple[Bonus, ...]
    column_bonus: tuple[Bonus, ...]
    halls: tuple[Bonus, ...]  # by cell index (floor-1)*columns + (column-1)
    exhibitions: tuple[Exhibition | None, ...]  # by type index
    cards: tuple[Card, ...]
    player_boards: tuple[PlayerBoard, ...]
    min_players: int
    max_players: int
    tokens_removed: Mapping[int, int]
    start_coins: int
    start_royal_tickets: int
    start_tickets: int
    start_royal_coins: int
    start_cards: int
    hand_base: int
    commission_base: int
    leftovers_per_vp: int
    box_royal_coins: int
    box_royal_tickets: int
    ceramics: int   # type index of ceramics (hand limit)
    sculpture: int  # type index of sculpture (commission limit)

    def cell_name(self, cell: int) -> str:
        return f"F{cell // self.columns + 1}C{cell % self.columns + 1}"

    @cached_property
    def take_sources(self) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]:
        """Per cell: (picks, the other cells that must be full) for each bonus that
        filling the cell can give with take_from_discard (hall, column, floor).
        Legal-move generation asks this for every empty cell, so it is derived
        once per data set; bonuses without picks are left out."""
        cols, floors = self.columns, self.floors
        out = []
        for cell in range(floors * cols):
            f, j = divmod(cell, cols)
            sources = (
                (self.halls[cell].take_from_discard, ()),
                (self.column_bonus[j].take_from_discard, tuple(ff * cols + j for ff in range(floors) if ff != f)),
                (self.floor_bonus[f].take_from_discard, tuple(f * cols + jj for jj in range(cols) if jj != j)),
            )
            out.append(tuple(x for x in sources if x[0]))
        return tuple(out)


# ---------------------------------------------------------------- validation helpers


class _Ctx:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, msg: str) -> None:
        raise OptionError(f"squire data {self.file}: {where}: {msg}")

    def get(self, table: Mapping, key: str, where: str, kind: type | tuple, default: Any = ...) -> Any:
        if not isinstance(table, Mapping):
            self.fail(where, "expected a table")
        if key not in table:
            if default is ...:
                self.fail(where, f"missing key {key!r}")
            return default
        value = table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            names = " or ".join(k.__name__ for k in kinds)
            self.fail(where, f"key {key!r} must be {names}, got {value!r}")
        return value

    def nonneg(self, table: Mapping, key: str, where: str, default: Any = ...) -> int:
        v = self.get(table, key, where, int, default)
        if v < 0:
            self.fail(where, f"key {key!r} must be 0 or more, got {v}")
        return v

    def only(self, table: Mapping, allowed: tuple, where: str) -> None:
        if not isinstance(table, Mapping):
            self.fail(where, "expected a table")
        for key in table:
            if key not in allowed:
                self.fail(where, f"unknown key {key!r} (allowed: {', '.join(allowed) or 'none'})")


def _bonus(ctx: _Ctx, table: Any, where: str) -> Bonus:
    ctx.only(table, BONUS_KEYS, where)
    return Bonus(**{k: ctx.nonneg(table, k, where, 0) for k in BONUS_KEYS})


def _reward(ctx: _Ctx, table: Any, where: str) -> Reward:
    ctx.only(table, REWARD_KEYS, where)
    vals: dict[str, Any] = {}
    for k in REWARD_KEYS:
        if k == "draw_to_hand_limit":
            vals[k] = ctx.get(table, k, where, bool, False)
        else:
            vals[k] = ctx.nonneg(table, k, where, 0)
    return Reward(**vals)


def _board(ctx: _Ctx, doc: Mapping, side: str, region_order: list[str] | None) -> tuple[Board, list[str]]:
    got_side = ctx.get(doc, "side", "top level", str)
    if got_side != side:
        ctx.fail("top level", f"side must be {side!r}, got {got_side!r}")
    name = ctx.get(doc, "name", "top level", str)
    regions = ctx.get(doc, "regions", "top level", list)
    if len(regions) != 5:
        ctx.fail("regions", f"a side has exactly 5 regions [printed], got {len(regions)}")
    rids, labels, symbols = [], [], []
    for i, r in enumerate(regions):
        w = f"regions[{i}]"
        rid = ctx.get(r, "id", w, str)
        colour = ctx.get(r, "colour", w, str)
        if colour != rid:
            ctx.fail(w, f"colour {colour!r} must equal the region id {rid!r}")
        if rid in rids:
            ctx.fail(w, f"region id {rid!r} appears twice")
        rids.append(rid)
        symbols.append(ctx.get(r, "symbol", w, str))
        labels.append(ctx.get(r, "label", w, str))
    if "red" in rids and symbols[rids.index("red")] != "rose":
        ctx.fail("regions", "the red region's symbol is the rose [printed]")
    cities = ctx.get(doc, "cities", "top level", list)
    if len(cities) != 15:
        ctx.fail("cities", f"a side has exactly 15 cities [printed], got {len(cities)}")
    cids, cnames, creg = [], [], []
    for i, c in enumerate(cities):
        w = f"cities[{i}]"
        cid = ctx.get(c, "id", w, str)
        if not cid or not all(ch.isalnum() or ch == "_" for ch in cid):
            ctx.fail(w, f"city id {cid!r} must be letters, digits and _")
        if cid in cids:
            ctx.fail(w, f"city id {cid!r} appears twice")
        cname = ctx.get(c, "name", w, str)
        reg = ctx.get(c, "region", w, str)
        if reg not in rids:
            ctx.fail(w, f"region {reg!r} is not one of the regions ({', '.join(rids)})")
        cids.append(cid)
        cnames.append(cname)
        creg.append(reg)
    norm = [n.lower().replace(" ", "") for n in cnames]
    for i, n in enumerate(norm):
        if norm.count(n) > 1:
            ctx.fail(f"cities[{i}]", f"city name {cnames[i]!r} appears twice")
    routes = ctx.get(doc, "routes", "top level", list)
    seen = set()
    rts = []
    adj: list[list[tuple[int, str]]] = [[] for _ in cids]
    for i, r in enumerate(routes):
        w = f"routes[{i}]"
        a = ctx.get(r, "a", w, str)
        b = ctx.get(r, "b", w, str)
        kind = ctx.get(r, "kind", w, str)
        for end in (a, b):
            if end not in cids:
                ctx.fail(w, f"{end!r} is not a city id of this side")
        if a == b:
            ctx.fail(w, f"a route cannot join {a!r} to itself")
        if kind not in ("land", "sea"):
            ctx.fail(w, f"kind must be 'land' or 'sea', got {kind!r}")
        key = frozenset((a, b))
        if key in seen:
            ctx.fail(w, f"the route {a}-{b} is listed twice")
        seen.add(key)
        ia, ib = cids.index(a), cids.index(b)
        rts.append((ia, ib, kind))
        adj[ia].append((ib, kind))
        adj[ib].append((ia, kind))
    # RULES.md §13: a one-step move must always exist, and every city must be reachable.
    for i, nb in enumerate(adj):
        if not nb:
            ctx.fail("routes", f"city {cids[i]!r} has no route, so a player there could not move (§13)")
    reach, todo = {0}, [0]
    while todo:
        for nb, _k in adj[todo.pop()]:
            if nb not in reach:
                reach.add(nb)
                todo.append(nb)
    if len(reach) != len(cids):
        cut = sorted(cids[i] for i in range(len(cids)) if i not in reach)
        ctx.fail("routes", f"the map is not connected: {', '.join(cut)} cannot be reached from {cids[0]}")
    order = region_order if region_order is not None else rids
    if sorted(order) != sorted(rids):
        ctx.fail("regions", f"region ids {sorted(rids)} differ from the market's region markers {sorted(order)}")
    ridx = {r: order.index(r) for r in rids}
    board = Board(
        side=side, name=name,
        region_labels=tuple(labels[rids.index(r)] for r in order),
        region_symbols=tuple(symbols[rids.index(r)] for r in order),
        city_ids=tuple(cids), city_names=tuple(cnames), city_region=tuple(ridx[r] for r in creg),
        routes=tuple(rts),
        adj=tuple(tuple(sorted(a)) for a in adj),
    )
    return board, rids


def _parse_texts(texts: Mapping[str, str]) -> dict[str, dict]:
    docs = {}
    for name, text in texts.items():
        try:
            docs[name] = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise OptionError(f"squire data {name}: not valid TOML: {exc}") from None
    return docs


def build(docs: Mapping[str, Mapping]) -> Data:
    """Validate a complete set of parsed files and build the tables."""
    for f in FILES:
        if f not in docs:
            raise OptionError(f"squire data: the file {f} is missing")

    # components
    ctx = _Ctx("components.toml")
    comp = docs["components.toml"]
    box = ctx.get(comp, "box", "top level", dict)
    pl = ctx.get(comp, "players", "top level", dict)
    pmin = ctx.nonneg(pl, "min", "[players]")
    pmax = ctx.nonneg(pl, "max", "[players]")
    if not 2 <= pmin <= pmax <= 4:
        ctx.fail("[players]", "min and max must satisfy 2 <= min <= max <= 4 (4 player boards)")
    setup = ctx.get(comp, "setup", "top level", dict)
    removed_t = ctx.get(setup, "tokens_removed", "[setup]", dict)
    removed = {}
    for n in range(pmin, pmax + 1):
        if str(n) not in removed_t:
            ctx.fail("[setup] tokens_removed", f"missing the entry for {n} players")
        removed[n] = ctx.nonneg(removed_t, str(n), "[setup] tokens_removed")
    start = {k: ctx.nonneg(setup, k, "[setup]") for k in (
        "start_regular_coins", "start_royal_tickets", "start_regular_tickets", "start_royal_coins",
        "start_message_cards")}
    limits = ctx.get(comp, "limits", "top level", dict)
    hand_base = ctx.nonneg(limits, "hand_base", "[limits]")
    comm_base = ctx.nonneg(limits, "commission_base", "[limits]")
    scoring = ctx.get(comp, "scoring", "top level", dict)
    per_vp = ctx.nonneg(scoring, "leftovers_per_vp", "[scoring]")
    if per_vp < 1:
        ctx.fail("[scoring]", "leftovers_per_vp must be at least 1")
    box_rc = ctx.nonneg(box, "royal_coins", "[box]")
    box_rt = ctx.nonneg(box, "royal_tickets", "[box]")
    if start["start_royal_tickets"] * pmax > box_rt:
        ctx.fail("[box]", f"royal_tickets {box_rt} cannot give {start['start_royal_tickets']} to each of {pmax} players")
    if start["start_royal_tickets"] < 1:
        ctx.fail("[setup]", "start_royal_tickets must be at least 1: otherwise a player may be unable to move (§13)")
    if start["start_message_cards"] > hand_base:
        ctx.fail("[setup]", "start_message_cards cannot exceed the hand limit base (limits.hand_base)")

    # market
    ctx = _Ctx("market.toml")
    mk = docs["market.toml"]
    positions = ctx.nonneg(mk, "positions", "top level")
    if positions != 5:
        ctx.fail("top level", f"positions must be 5 (5 markers per column [printed]), got {positions}")
    cols = {}
    for col in ("types", "regions"):
        t = ctx.get(mk, col, "top level", dict)
        vals = ctx.get(t, "values", f"[{col}]", list)
        st = ctx.get(t, "start", f"[{col}]", list)
        if len(vals) != positions or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals):
            ctx.fail(f"[{col}] values", f"must be {positions} whole numbers of 0 or more")
        if len(st) != positions or not all(isinstance(s, str) for s in st) or len(set(st)) != positions:
            ctx.fail(f"[{col}] start", f"must list {positions} different ids")
        cols[col] = (tuple(vals), list(st))

    # exhibits
    ctx = _Ctx("exhibits.toml")
    ex = docs["exhibits.toml"]
    types = ctx.get(ex, "types", "top level", list)
    total = ctx.nonneg(ex, "total_tokens", "top level")
    tids = []
    tinfo = []
    for i, t in enumerate(types):
        w = f"[[types]] #{i + 1}"
        tid = ctx.get(t, "id", w, str)
        if tid in tids:
            ctx.fail(w, f"type id {tid!r} appears twice")
        tids.append(tid)
        name = ctx.get(t, "name", w, str)
        colour = ctx.get(t, "colour", w, str)
        exh = ctx.get(t, "exhibitable", w, bool)
        count = ctx.nonneg(t, "count", w)
        vals = ctx.get(t, "values", w, list)
        if len(vals) != count:
            ctx.fail(w, f"values lists {len(vals)} tokens but count is {count}")
        for v in vals:
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                ctx.fail(w, f"every value must be a whole number of 0 or more, got {v!r}")
        tinfo.append((tid, name, colour, exh, tuple(vals)))
    if len(tids) != 5:
        ctx.fail("[[types]]", f"there are exactly 5 exhibit types (5 type markers), got {len(tids)}")
    for p in PRINTED_TYPES:
        if p not in tids:
            ctx.fail("[[types]]", f"the printed type {p!r} is missing")
    for p in ("painting", "ceramics", "sculpture"):
        if not dict((t[0], t[3]) for t in tinfo)[p]:
            ctx.fail(f"[[types]] {p}", f"{p} can be exhibited [printed]: exhibitable must be true")
    if dict((t[0], t[3]) for t in tinfo)["rare_book"]:
        ctx.fail("[[types]] rare_book", "rare books can never be exhibited [printed]: exhibitable must be false")
    if sum(len(t[4]) for t in tinfo) != total:
        ctx.fail("top level", f"total_tokens is {total} but the types hold {sum(len(t[4]) for t in tinfo)}")
    type_order = cols["types"][1]
    if sorted(type_order) != sorted(tids):
        _Ctx("market.toml").fail("[types] start", f"must list the 5 type ids {sorted(tids)}, got {type_order}")
    tinfo.sort(key=lambda t: type_order.index(t[0]))
    tids = [t[0] for t in tinfo]
    tokens = []
    for ti, t in enumerate(tinfo):
        width = max(2, len(str(len(t[4]))))
        for n, v in enumerate(t[4]):
            tokens.append((ti, v, f"{t[0]}-{n + 1:0{width}d}"))
    # §13: the supply must hold at least one token after seeding, for every player count.
    for n, r in removed.items():
        if len(tokens) - r - 15 < 1:
            _Ctx("components.toml").fail(
                "[setup] tokens_removed", f"with {n} players {len(tokens)} - {r} - 15 cities leaves no supply")
    colours = [t[2] for t in tinfo]
    region_order = cols["regions"][1]
    if sorted(colours) != sorted(region_order):
        ctx.fail("[[types]] colour", f"the 5 type colours {sorted(colours)} must be the 5 region colours {sorted(region_order)}")

    # boards
    boards = {}
    for side in SIDES:
        b, _ = _board(_Ctx(f"board-{side}.toml"), docs[f"board-{side}.toml"], side, region_order)
        boards[side] = b

    # gallery
    ctx = _Ctx("gallery.toml")
    g = docs["gallery.toml"]
    floors = ctx.nonneg(g, "floors", "top level")
    columns = ctx.nonneg(g, "columns", "top level")
    if (floors, columns) != (3, 4):
        ctx.fail("top level", f"the gallery is 3 floors x 4 columns [printed], got {floors} x {columns}")
    fb = [Bonus()] * floors
    cb = [Bonus()] * columns
    for key, count, store, label in (("floor_bonus", floors, fb, "floor"), ("column_bonus", columns, cb, "column")):
        got = set()
        for i, e in enumerate(ctx.get(g, key, "top level", list)):
            w = f"[[{key}]] #{i + 1}"
            k = ctx.get(e, label, w, int)
            if not 1 <= k <= count or k in got:
                ctx.fail(w, f"{label} must be 1..{count} and listed once, got {k}")
            got.add(k)
            store[k - 1] = _bonus(ctx, ctx.get(e, "bonus", w, dict), w + " bonus")
    halls = [Bonus()] * (floors * columns)
    for i, e in enumerate(ctx.get(g, "halls", "top level", list, [])):
        w = f"[[halls]] #{i + 1}"
        f = ctx.get(e, "floor", w, int)
        c = ctx.get(e, "column", w, int)
        if not (1 <= f <= floors and 1 <= c <= columns):
            ctx.fail(w, f"cell floor {f} column {c} is outside the 3 x 4 gallery")
        cell = (f - 1) * columns + c - 1
        if halls[cell]:
            ctx.fail(w, f"cell F{f}C{c} is listed twice")
        halls[cell] = _bonus(ctx, ctx.get(e, "bonus", w, dict), w + " bonus")

    # exhibitions
    ctx = _Ctx("exhibitions.toml")
    exhibitions: list[Exhibition | None] = [None] * 5
    for i, e in enumerate(ctx.get(docs["exhibitions.toml"], "exhibitions", "top level", list)):
        w = f"[[exhibitions]] #{i + 1}"
        t = ctx.get(e, "type", w, str)
        if t not in tids:
            ctx.fail(w, f"type {t!r} is not an exhibit type ({', '.join(tids)})")
        ti = tids.index(t)
        if not tinfo[ti][3]:
            ctx.fail(w, f"type {t!r} is not exhibitable (exhibits.toml)")
        if exhibitions[ti] is not None:
            ctx.fail(w, f"type {t!r} has two entries")
        exhibitions[ti] = Exhibition(
            ti, _reward(ctx, ctx.get(e, "host", w, dict), w + " host"),
            _reward(ctx, ctx.get(e, "others", w, dict), w + " others"),
            ctx.get(e, "others_need_own", w, bool))
    for ti, t in enumerate(tinfo):
        if t[3] and exhibitions[ti] is None:
            ctx.fail("[[exhibitions]]", f"the exhibitable type {t[0]!r} has no entry")

    # messages
    ctx = _Ctx("messages.toml")
    cards = []
    for i, c in enumerate(ctx.get(docs["messages.toml"], "cards", "top level", list)):
        cid = ctx.get(c, "id", f"[[cards]] #{i + 1}", str)
        w = f"card {cid}"
        if not cid or not cid.replace("_", "").isalnum() or not cid[0].isalpha():
            ctx.fail(w, "card ids are letters and digits starting with a letter, e.g. M01")
        if any(x.id.lower() == cid.lower() for x in cards):
            ctx.fail(w, "card id appears twice")
        o = ctx.get(c, "offer", w, dict)
        ctx.only(o, ("action", "region", "type", "gain"), w + " offer")
        action = ctx.get(o, "action", w + " offer", str)
        if action not in ACTIONS:
            ctx.fail(w + " offer", f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
        reg = ctx.get(o, "region", w + " offer", str, None)
        if reg is not None and reg not in region_order:
            ctx.fail(w + " offer", f"region {reg!r} is not a region id")
        typ = ctx.get(o, "type", w + " offer", str, None)
        if typ is not None and typ not in tids:
            ctx.fail(w + " offer", f"type {typ!r} is not a type id")
        gain = ctx.get(o, "gain", w + " offer", dict)
        ctx.only(gain, ("coins", "tickets"), w + " offer gain")
        offer = Offer(action, region_order.index(reg) if reg else -1, tids.index(typ) if typ else -1,
                      ctx.nonneg(gain, "coins", w + " offer gain", 0), ctx.nonneg(gain, "tickets", w + " offer gain", 0))
        cm = ctx.get(c, "commission", w, dict)
        ww = w + " commission"
        kind = ctx.get(cm, "kind", ww, str)
        if kind not in COMMISSION_KINDS:
            ctx.fail(ww, f"kind must be one of {', '.join(COMMISSION_KINDS)}, got {kind!r}")
        allowed = {"per_exhibit": ("kind", "points", "types", "values"), "min_exhibits": ("kind", "points", "count")}
        ctx.only(cm, allowed.get(kind, ("kind", "points")), ww)
        points = ctx.nonneg(cm, "points", ww)
        ts = ctx.get(cm, "types", ww, list, [])
        vs = ctx.get(cm, "values", ww, list, [])
        for t in ts:
            if t not in tids:
                ctx.fail(ww, f"type {t!r} is not a type id")
        for v in vs:
            if not isinstance(v, int) or isinstance(v, bool):
                ctx.fail(ww, f"values must be whole numbers, got {v!r}")
        if kind == "per_exhibit" and not ts and not vs:
            ctx.fail(ww, "per_exhibit needs types or values")
        count = ctx.nonneg(cm, "count", ww) if kind == "min_exhibits" else 0
        cards.append(Card(cid.upper(), offer, Commission(kind, points, frozenset(tids.index(t) for t in ts),
                                                         frozenset(vs), count)))
    if len(cards) < 1:
        ctx.fail("[[cards]]", "the deck needs at least one card")

    # characters
    ctx = _Ctx("characters.toml")
    pbs = []
    for i, b in enumerate(ctx.get(docs["characters.toml"], "boards", "top level", list)):
        w = f"[[boards]] #{i + 1}"
        bid = ctx.get(b, "id", w, str)
        if not bid.isalnum():
            ctx.fail(w, f"board id {bid!r} must be letters and digits")
        if any(p.id == bid for p in pbs):
            ctx.fail(w, f"board id {bid!r} appears twice")
        chars = ctx.get(b, "characters", w, list)
        if len(chars) != 2 or not all(isinstance(c, str) and c for c in chars):
            ctx.fail(w, "characters must list 2 names (the two sides of the board)")
        ab = ctx.get(b, "ability", w, dict)
        kind = ctx.get(ab, "kind", w + " ability", str)
        if kind not in ABILITY_KINDS:
            ctx.fail(w + " ability", f"kind must be one of {', '.join(ABILITY_KINDS)} (a new kind needs code), got {kind!r}")
        ctx.only(ab, ("kind",) + ABILITY_KINDS[kind], w + " ability")
        params: dict[str, Any] = {}
        for k in ABILITY_KINDS[kind]:
            if k == "route_kind":
                rk = ctx.get(ab, k, w + " ability", str)
                if rk not in ("land", "sea", "any"):
                    ctx.fail(w + " ability", f"route_kind must be land, sea or any, got {rk!r}")
                params[k] = rk
            else:
                params[k] = ctx.nonneg(ab, k, w + " ability")
        pbs.append(PlayerBoard(bid, (chars[0], chars[1]), Ability(kind, **params), ctx.get(b, "summary", w, str, "")))
    if len(pbs) != 4:
        ctx.fail("[[boards]]", f"there are exactly 4 player boards [printed], got {len(pbs)}")
    if len({c.lower() for p in pbs for c in p.characters}) != 8:
        ctx.fail("[[boards]]", "the 8 character names must all differ")
    if len(cards) < start["start_message_cards"] * pmax:
        _Ctx("messages.toml").fail("[[cards]]", "too few cards to deal the start hands")

    return Data(
        boards=boards, region_ids=tuple(region_order), type_ids=tuple(tids),
        type_names=tuple(t[1] for t in tinfo), type_colours=tuple(t[2] for t in tinfo),
        exhibitable=tuple(t[3] for t in tinfo), tokens=tuple(tokens), positions=positions,
        type_values=cols["types"][0], region_values=cols["regions"][0],
        type_start=tuple(range(5)), region_start=tuple(range(5)),
        floors=floors, columns=columns, floor_bonus=tuple(fb), column_bonus=tuple(cb), halls=tuple(halls),
        exhibitions=tuple(exhibitions), cards=tuple(cards), player_boards=tuple(pbs),
        min_players=pmin, max_players=pmax, tokens_removed=removed,
        start_coins=start["start_regular_coins"], start_royal_tickets=start["start_royal_tickets"],
        start_tickets=start["start_regular_tickets"], start_royal_coins=start["start_royal_coins"],
        start_cards=start["start_message_cards"], hand_base=hand_base, commission_base=comm_base,
        leftovers_per_vp=per_vp, box_royal_coins=box_rc, box_royal_tickets=box_rt,
        ceramics=tids.index("ceramics"), sculpture=tids.index("sculpture"),
    )


# ---------------------------------------------------------------- loading


def house_texts() -> dict[str, str]:
    pkg = resources.files(__package__) / "data"
    return {f: (pkg / f).read_text(encoding="utf-8") for f in FILES}


_HOUSE_TEXTS = house_texts()
_CACHE: dict[tuple, Data] = {}


def normalise_custom(raw: Any) -> tuple[tuple[str, str], ...]:
    """Option value -> sorted ((file name, TOML text), ...) of replaced files.

    Accepted: "" / None / {} (house data); a mapping file name -> TOML text;
    or one TOML text whose top-level tables are named after the files
    (``[market]``, ``[board-world]``, ... each holding that file's content).
    """
    if raw in (None, "", {}, "house", ()):
        return ()
    if isinstance(raw, (list, tuple)):
        raw = dict(raw)
    if isinstance(raw, str):
        try:
            doc = tomllib.loads(raw)
        except tomllib.TOMLDecodeError as exc:
            raise OptionError(f"squire data: not valid TOML: {exc}") from None
        bad = [k for k in doc if f"{k}.toml" not in FILES]
        if bad:
            raise OptionError(f"squire data: unknown table {bad[0]!r}; use the file names "
                              f"without .toml: {', '.join(f[:-5] for f in FILES)}")
        # keep the text itself so the record carries exactly what the group sent
        return (("combined", raw),)
    if not isinstance(raw, Mapping):
        raise OptionError("squire data: give the replacement files as a mapping file name -> TOML text")
    out = []
    for name, text in raw.items():
        if name == "combined" and isinstance(text, str):
            out.extend(normalise_custom(text))
            continue
        fname = name if name.endswith(".toml") else f"{name}.toml"
        if fname not in FILES:
            raise OptionError(f"squire data: unknown file {name!r} (files: {', '.join(FILES)})")
        if not isinstance(text, str):
            raise OptionError(f"squire data {fname}: the content must be TOML text")
        out.append((fname, text))
    return tuple(sorted(out))


def load(custom: tuple[tuple[str, str], ...] = ()) -> Data:
    """The validated data set: house files with ``custom`` replacing some."""
    hit = _CACHE.get(custom)
    if hit is not None:
        return hit
    docs = _parse_texts(_HOUSE_TEXTS)
    for name, text in custom:
        if name == "combined":
            doc = tomllib.loads(text)
            for k, v in doc.items():
                docs[f"{k}.toml"] = v
        else:
            docs.update(_parse_texts({name: text}))
    data = build(docs)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[custom] = data
    return data


def parse_data_option(raw: Any) -> tuple[tuple[str, str], ...]:
    custom = normalise_custom(raw)
    load(custom)  # validate now, with a clear OptionError
    return custom
