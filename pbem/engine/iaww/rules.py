"""The rules of It's a Wonderful World (RULES.md), on immutable states.

A state is an immutable record (a typed NamedTuple: cheap to copy with one
field changed, ordered and hashed in C) holding tuples of per-player records.
Every move is an atomic decision (:class:`Move`); :func:`check` says why a
move is illegal (or returns None) and :func:`play` applies a legal one.
Section numbers in comments refer to RULES.md.
"""
from __future__ import annotations

from typing import NamedTuple

from ..base import rng_for
from .i18n import N_, amount, card_name, ngettext, res_of, word
from .i18n import _
from .data import (
    CARD_OF, CARDS, EMPIRE_FACES, EMPIRES, FIN, GEN, INSTANCES, KRY, RES_LETTER, RESOURCES, SCENARIOS, SUPREMACY,
)

DRAFT, PLAN, PROD, OVER = "draft", "plan", "prod", "over"
ZERO5 = (0, 0, 0, 0, 0)
ZERO8 = (0, 0, 0, 0, 0, 0, 0, 0)


def _copy_no(inst: str) -> int:
    return int(inst.rsplit("#", 1)[1])


# hands and draft areas are shown sorted by card id (§5 [ruling]), copies by number
SORT_KEY = {inst: (inst.split("#")[0], _copy_no(inst)) for inst in INSTANCES}
CID_OF = {inst: inst.split("#")[0] for inst in INSTANCES}


def sort_cards(cards) -> tuple[str, ...]:
    return tuple(sorted(cards, key=SORT_KEY.__getitem__))


# Comprehensions over a function's own variables make cells of them at every call of the
# function, used or not: the functions of every move (play, label_notes) call these instead.


def _without(cards: tuple[str, ...], inst: str) -> tuple[str, ...]:
    """``cards`` less every copy of ``inst``."""
    return tuple(i for i in cards if i != inst)


def _tagged(tag: str, notes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(tag + n for n in notes)


# ---------------------------------------------------------------- values


_tuple_new = tuple.__new__
_FIELD_INDEX: dict[type, dict[str, int]] = {}  # filled below the record classes


def replace(record, **changes):
    """A copy of an immutable record with some fields changed."""
    # a few copies are made every ply: setting the changed fields in a list is
    # much cheaper than NamedTuple._replace, which pops every field name
    cls = type(record)
    try:
        index = _FIELD_INDEX[cls]
        values = list(record)
        for name in changes:
            values[index[name]] = changes[name]
    except KeyError:
        return record._replace(**changes)  # another record type, or its error for a bad name
    return _tuple_new(cls, values)


class Move(NamedTuple):
    """One atomic decision. ``kind`` is one of: pick, c, r, place, kry, fin,
    gen, discard, build, sci, swap, keep, done, auto. ``card`` is a card id
    (pick, c, r, swap, keep) or the token kind (sci); ``target`` is a card
    instance under construction or "E" (the empire card), or the second
    card of a swap; ``res`` is a resource index (place) or a slot kind
    (kry: 0-4 a resource slot, 5 a Krystallium slot)."""

    kind: str
    card: str = ""
    target: str = ""
    res: int = -1


class Site(NamedTuple):
    """A card under construction: what fills each of its eight slot kinds;
    ``wild`` counts Krystallium used in resource slots (display only)."""

    inst: str
    filled: tuple[int, ...] = ZERO8
    wild: int = 0


class Player(NamedTuple):
    empire: str
    hand: tuple[str, ...] = ()       # draft hand (private)
    pick: str = ""                   # this pick, hidden until every seat has picked
    draft: tuple[str, ...] = ()      # draft area; in solo, the cycle's hand
    sites: tuple[Site, ...] = ()     # construction area, in order of entry
    built: tuple[str, ...] = ()      # empire: constructed developments
    ecubes: int = 0                  # cubes on the empire card, 0-4
    kry: int = 0                     # Krystallium reserve
    fin: int = 0                     # financier pool
    gen: int = 0                     # general pool
    cubes: tuple[int, ...] = ZERO5   # available cubes, still to place
    done: bool = False               # finished the current decision point
    sci: bool = False                # science supremacy choice pending
    shown: tuple[str, ...] = ()      # solo: the five revealed cards awaiting "keep"
    decided: bool = False            # solo: a C/R was made this cycle (no more swaps)
    early: tuple[str, ...] = ()      # planning: cards constructed early by a forward reference,
                                     # still awaiting their own C (the two-pass [ruling] of §6)
    notes: tuple[str, ...] = ()      # private echo of what the last moves did (last few only)
    forced: tuple[int, ...] = ZERO5  # cubes per resource the engine put onto the empire card in this
                                     # decision point for want of a slot (§16 item 1): an order may
                                     # still name them (``e>E``), which agrees and changes nothing


class State(NamedTuple):
    n: int
    seed: int
    face: str
    scenario: str
    consult: tuple[int, ...]          # seats consulted at every production step (§17 D12, "consult me every step")
    round: int
    phase: str
    step: int                        # draft: pick 1-7; plan: solo cycle 0/1; prod: 0-4
    players: tuple[Player, ...]
    public: tuple[Player, ...]       # every player as of the last resolved decision point
    deck: tuple[str, ...]
    discard: tuple[str, ...] = ()
    stacks: tuple[tuple[str, ...], ...] = ()   # solo: the eight stacks
    prod: tuple[int, ...] = ()       # P(r) of the current step per seat
    winner: int = -1                 # supremacy winner of the current step
    log: tuple[str, ...] = ()        # public lines about the last resolution
    pub: tuple[int, int] = (0, 0)    # deck and discard sizes as of the last resolution


_FIELD_INDEX.update({cls: {name: i for i, name in enumerate(cls._fields)} for cls in (Move, Site, Player, State)})


def _pub(st: State) -> State:
    """Publish: what the others see of every player, and the pile sizes."""
    return replace(st, public=st.players, pub=(len(st.deck), len(st.discard)))


# ---------------------------------------------------------------- helpers


def seat_name(seat: int) -> str:
    return f"Player {seat + 1}"


def empty(site: Site, kind: int) -> int:
    return CARD_OF[site.inst].cost[kind] - site.filled[kind]


def production(p: Player, face: str, res: int) -> int:
    """P(r) of §7.1: empire face + fixed + per-type, constructed cards only."""
    total = EMPIRE_FACES[(p.empire, face)].prod[res]
    per = []
    types: dict[str, int] = {}
    for inst in p.built:
        c = CARD_OF[inst]
        total += c.prod[res]
        types[c.type] = types.get(c.type, 0) + 1
        if c.prod_per is not None and c.prod_per[0] == res:
            per.append(c.prod_per[1])
    for t in per:
        total += types.get(t, 0)
    return total


def productions(p: Player, face: str) -> tuple[int, ...]:
    return tuple(production(p, face, r) for r in range(5))


def label_notes(st: State, old: Player, p: Player) -> Player:
    """Mark the notes ``p`` gained since ``old`` with the decision point; keep the last six."""
    k = len(old.notes)
    if len(p.notes) == k:
        return p
    where = {DRAFT: "draft", PLAN: "planning", PROD: RESOURCES[st.step] if st.phase == PROD else ""}
    tag = f"R{st.round} {where.get(st.phase, '')}: "
    return replace(p, notes=(old.notes + _tagged(tag, p.notes[k:]))[-6:])


def to_empire(p: Player, k: int) -> Player:
    """Add k cubes to the empire card with the 5-cube conversion (§8.2)."""
    e = p.ecubes + k
    if e >= 5:
        return replace(p, ecubes=e % 5, kry=p.kry + e // 5,
                       notes=p.notes + (f"Your empire card reached 5 cubes: +{e // 5} Krystallium.",))
    return replace(p, ecubes=e)


def _set_site(p: Player, idx: int, site: Site) -> Player:
    """Store a changed site; complete it (§9) when its last slot is filled."""
    c = CARD_OF[site.inst]
    sites = p.sites
    if site.filled == c.cost:
        kb, fb, gb = c.bonus
        bonus = ", ".join(f"+{k} {w}" for k, w in ((kb, "Krystallium"), (fb, "financier"), (gb, "general")) if k)
        return replace(p, sites=sites[:idx] + sites[idx + 1:], built=p.built + (site.inst,),
                       kry=p.kry + kb, fin=p.fin + fb, gen=p.gen + gb,
                       notes=p.notes + (f"{c.name} completed" + (f" ({bonus})." if bonus else "."),))
    return replace(p, sites=sites[:idx] + (site,) + sites[idx + 1:])


def _fill(site: Site, kind: int, k: int = 1, wild: int = 0) -> Site:
    f = list(site.filled)
    f[kind] += k
    return Site(site.inst, tuple(f), site.wild + wild)


def site_index(p: Player, inst: str) -> int:
    for i, s in enumerate(p.sites):
        if s.inst == inst:
            return i
    return -1


def target_site(p: Player, target: str, phase: str) -> Site | None:
    """The card under construction ``target`` names; in planning also a card
    still in the draft area, which an action may name before its C (§6)."""
    for s in p.sites:
        if s.inst == target:
            return s
    if phase == PLAN and target in p.draft:
        return Site(target)
    return None


def construct_early(p: Player, target: str) -> Player:
    """Pass 1 of §6 for one card: an action names a drafted card before its C.
    The card is constructed now and its C is still owed (``early``)."""
    if target not in p.draft:
        return p
    return replace(p, draft=_without(p.draft, target), sites=p.sites + (Site(target),),
                   early=p.early + (target,), decided=True)


def place_cube(p: Player, res: int, target: str) -> Player:
    cubes = list(p.cubes)
    cubes[res] -= 1
    p = replace(p, cubes=tuple(cubes))
    if target == "E":
        return to_empire(p, 1)
    i = site_index(p, target)
    return _set_site(p, i, _fill(p.sites[i], res))


def auto_target(p: Player, res: int) -> str:
    """The `auto` default of §17 for one cube of ``res``."""
    best, best_key = "E", None
    for order, s in enumerate(p.sites):
        if empty(s, res) > 0:
            left = CARD_OF[s.inst].slots - sum(s.filled)
            key = (0 if left == 1 else 1, left, order)
            if best_key is None or key < best_key:
                best, best_key = s.inst, key
    return best


def auto_place(p: Player) -> Player:
    for res in range(5):
        while p.cubes[res]:
            p = place_cube(p, res, auto_target(p, res))
    return p


def has_slot(p: Player, res: int, phase: str) -> bool:
    """Whether a cube of ``res`` could still go onto a card. In planning a
    card still in the draft area counts: a later C would open its slot
    (the two-pass [ruling] of §6)."""
    for s in p.sites:
        if empty(s, res) > 0:
            return True
    if phase == PLAN:
        for inst in p.draft:
            if CARD_OF[inst].cost[res]:
                return True
    return False


def force(p: Player, phase: str) -> Player:
    """A cube with no legal card slot goes onto the empire card (§16 item 1).
    The player is told, and ``forced`` keeps count: the printed rules let a
    cube go onto cards "and/or" the empire card, so an order that names the
    same placement (``e>E``) agrees with it and is accepted."""
    if not any(p.cubes):
        return p
    for res in range(5):
        k = p.cubes[res]
        if k and not has_slot(p, res, phase):
            cubes, forced = list(p.cubes), list(p.forced)
            cubes[res], forced[res] = 0, forced[res] + k
            p = replace(p, cubes=tuple(cubes), forced=tuple(forced),
                        notes=p.notes + (f"{k} {RESOURCES[res]} cube{'s' * (k > 1)} onto your empire card by"
                                         f" {'themselves' if k > 1 else 'itself'}: no card of yours has an empty"
                                         f" {RESOURCES[res]} slot.",))
            p = to_empire(p, k)
    return p


def finished(p: Player, phase: str) -> bool:
    """Nothing is left for the player to decide in this planning phase or
    production step: every card decided (§6 "a player is done when their
    draft area is empty and no recycle cube is left unplaced"), no cube to
    place, no science choice, and no Krystallium or token with a place to go
    (as for the skip of §4.3)."""
    return (phase in (PLAN, PROD) and not p.done and not p.shown and not p.draft and not p.early
            and not any(p.cubes) and not p.sci and not can_place_anything(p))


def can_place_anything(p: Player) -> bool:
    """Krystallium or a token with a legal place (used by the skip of §4.3)."""
    if p.kry:
        for s in p.sites:
            c = CARD_OF[s.inst].cost
            f = s.filled
            for k in range(6):
                if f[k] < c[k]:
                    return True
    if p.fin and any(empty(s, FIN) for s in p.sites):
        return True
    if p.gen and any(empty(s, GEN) for s in p.sites):
        return True
    return False


def build_need(p: Player, site: Site) -> tuple[int, int, int, tuple[int, ...]]:
    """What the build shortcut (§16 item 2) takes: Krystallium, financiers,
    generals, and cubes per resource."""
    cost = CARD_OF[site.inst].cost
    use = []
    kneed = cost[KRY] - site.filled[KRY]
    for r in range(5):
        e = cost[r] - site.filled[r]
        u = min(e, p.cubes[r])
        use.append(u)
        kneed += e - u
    return kneed, cost[FIN] - site.filled[FIN], cost[GEN] - site.filled[GEN], tuple(use)


def sci_default(p: Player, face: str) -> str:
    """The default of the science supremacy reward (§17 D5): more empty character slots, then
    higher per-token VP multipliers, then financier."""
    ef = sum(empty(s, FIN) for s in p.sites)
    eg = sum(empty(s, GEN) for s in p.sites)
    if ef != eg:
        return "financier" if ef > eg else "general"
    mf, mg = token_multipliers(p, face)
    if mf != mg:
        return "financier" if mf > mg else "general"
    return "financier"


def token_multipliers(p: Player, face: str) -> tuple[int, int]:
    mf = mg = 0
    per = [CARD_OF[i].vp_per for i in p.built]
    per.append(EMPIRE_FACES[(p.empire, face)].vp_per)
    for vp in per:
        if vp is not None:
            if vp[1] == "financier":
                mf += vp[0]
            elif vp[1] == "general":
                mg += vp[0]
    return mf, mg


# ---------------------------------------------------------------- setup


def initial(n: int, seed: int, face: str, scenario: str, consult: tuple[int, ...], empire: str) -> State:
    deck = list(INSTANCES)
    required: list[str] = []
    if scenario:
        for cid in SCENARIOS[scenario][1]:
            inst = f"{cid}#1"  # the lowest-numbered instance (§15 [ruling])
            deck.remove(inst)
            required.append(inst)
    rng_for(seed, "deck").shuffle(deck)
    empires = list(EMPIRES)
    rng_for(seed, "empires").shuffle(empires)
    if empire and empire != "random":
        empires = [empire]
    players = tuple(Player(empire=empires[i]) for i in range(n))
    if n == 1:
        stacks = tuple(tuple(deck[5 * k:5 * k + 5]) for k in range(8))
        p = replace(players[0], sites=tuple(Site(i) for i in required))
        st = State(n, seed, face, scenario, consult, 1, PLAN, 0, (p,), (p,), tuple(deck[40:]),
                   stacks=stacks)
        return start_cycle(st, 0)
    st = State(n, seed, face, scenario, consult, 1, DRAFT, 1, players, players, tuple(deck))
    return deal(st)


def deal(st: State) -> State:
    size = 10 if st.n == 2 else 7
    deck = st.deck
    players = []
    for i, p in enumerate(st.players):
        players.append(replace(p, hand=sort_cards(deck[i * size:(i + 1) * size]), draft=(), done=False,
                               forced=ZERO5))
    players = tuple(players)
    return _pub(replace(st, phase=DRAFT, step=1, players=players, deck=deck[size * st.n:],
                        log=(f"Round {st.round}: {size} cards dealt to each player.",)))


def start_cycle(st: State, cycle: int) -> State:
    """Solo planning cycle (§14.3): the stack becomes the hand."""
    stack = st.stacks[2 * (st.round - 1) + cycle]
    p = replace(st.players[0], draft=sort_cards(stack), done=False, decided=False, shown=(), forced=ZERO5)
    players = (p,)
    return _pub(replace(st, phase=PLAN, step=cycle, players=players,
                        log=(f"Round {st.round}, planning cycle {'AB'[cycle]}: stack {2 * st.round - 1 + cycle}"
                             " taken.",)))


def start_planning(st: State, log: tuple[str, ...]) -> State:
    players = tuple(replace(p, done=False, forced=ZERO5) for p in st.players)
    return _pub(replace(st, phase=PLAN, step=0, players=players, log=log))


def start_step(st: State, step: int, log: tuple[str, ...] = ()) -> State:
    """Begin production step ``step``: counting, supremacy, cubes (§7)."""
    while True:
        res = step
        prods = tuple(production(p, st.face, res) for p in st.players)
        winner = -1
        if st.n == 1:
            if prods[0] >= 5:
                winner = 0
        else:
            m = max(prods)
            if m >= 1 and prods.count(m) == 1:
                winner = prods.index(m)
        reward = SUPREMACY[res]
        at = replace(st, phase=PROD, step=step)  # where the notes of this step are made
        players = []
        for i, p in enumerate(st.players):
            cubes = list(ZERO5)
            cubes[res] = prods[i]
            fin, gen, sci = p.fin, p.gen, False
            if i == winner:
                if reward == "financier":
                    fin += 1
                elif reward == "general":
                    gen += 1
                else:
                    sci = True
            p = replace(p, cubes=tuple(cubes), done=False, sci=sci, fin=fin, gen=gen, forced=ZERO5)
            p = label_notes(at, st.players[i], force(p, PROD))
            if i not in st.consult and not any(p.cubes) and not p.sci and not can_place_anything(p):
                p = replace(p, done=True)  # nothing to decide: skipped (§4.3)
            players.append(p)
        players = tuple(players)
        line = f"{RESOURCES[res].capitalize()} step: production " + ", ".join(
            f"{seat_name(i)} {v}" for i, v in enumerate(prods))
        if winner >= 0:
            line += f"; supremacy to {seat_name(winner)} ({reward or 'financier or general, their choice'})."
        else:
            line += "; no supremacy bonus." if st.n > 1 else "; no supremacy bonus (needs 5 or more)."
        st = _pub(replace(st, phase=PROD, step=step, players=players, prod=prods, winner=winner,
                          log=log + (line,)))
        if not all(p.done for p in players):
            return st
        log = st.log
        if step == 4:
            return end_round(st, log)
        step += 1


def end_round(st: State, log: tuple[str, ...]) -> State:
    if st.round == 4:
        players = tuple(replace(p, done=True, cubes=ZERO5, sci=False) for p in st.players)
        return _pub(replace(st, phase=OVER, step=0, players=players, prod=(), winner=-1,
                            log=log + ("The game is over.",)))
    st = replace(st, round=st.round + 1, prod=(), winner=-1)
    if st.n == 1:
        st = start_cycle(st, 0)
    else:
        st = deal(st)
    return replace(st, log=log + st.log)


# ---------------------------------------------------------------- legality


# Every Move legal() can produce, built once at import: legal() runs on every
# ply and constructing the NamedTuples was most of its cost. Moves are
# immutable values, so handing the same objects out again is safe.
_AUTO, _DONE = Move("auto"), Move("done")
_SCI = (Move("sci", "financier"), Move("sci", "general"))
_PICK = {inst: Move("pick", CID_OF[inst]) for inst in INSTANCES}
_KEEP = {inst: Move("keep", CID_OF[inst]) for inst in INSTANCES}
_C = {inst: Move("c", CID_OF[inst]) for inst in INSTANCES}
# per card id: (C, R, R>E, {instance: R>instance}), with only the instances
# that have a slot for the recycling cube of that card
_R = {cid: (Move("c", cid), Move("r", cid), Move("r", cid, "E"),
            {inst: Move("r", cid, inst) for inst in INSTANCES if CARD_OF[inst].cost[c.recycle]})
      for cid, c in CARDS.items()}


class _SiteMoves(NamedTuple):
    """The moves naming one card instance, and its cost split for legal()."""

    place: tuple[Move, ...]       # per resource
    kry: tuple[Move, ...]         # per slot kind 0-5
    fin: Move
    gen: Move
    discard: Move
    build: Move
    cost: tuple[int, ...]
    fresh_place: tuple[tuple[int, Move], ...]  # (res, move) for the resource slots the card has
    fresh_kry: tuple[Move, ...]   # the Krystallium moves of a card with nothing placed yet
    fresh_kn: int                 # the Krystallium its build shortcut takes with nothing placed and no cube in hand


def _site_moves(inst: str) -> _SiteMoves:
    cost = CARD_OF[inst].cost
    place = tuple(Move("place", "", inst, r) for r in range(5))
    kry = tuple(Move("kry", "", inst, k) for k in range(6))
    return _SiteMoves(place, kry, Move("fin", "", inst), Move("gen", "", inst), Move("discard", "", inst),
                      Move("build", "", inst), cost, tuple((r, place[r]) for r in range(5) if cost[r]),
                      tuple(kry[k] for k in range(6) if cost[k]),
                      cost[KRY] + sum(cost[r] for r in range(5) if cost[r] > 0))


_SITE_MOVES = {inst: _site_moves(inst) for inst in INSTANCES}
_PLACE_E = tuple(Move("place", "", "E", r) for r in range(5))

# The place of each of those moves in the sorted order of them all: legal() sorts its moves by
# this number, the same order as sorting the Moves themselves (which compared them field by
# field, strings first, most of the cost of the sort). A swap is not in it (its moves are made
# as they come): a list holding one is sorted by the Moves.
_RANK = {m: i for i, m in enumerate(sorted(
    {_AUTO, _DONE, *_SCI, *_PICK.values(), *_KEEP.values(), *_C.values(), *_PLACE_E}
    | {m for c, r, r_e, r_to in _R.values() for m in (c, r, r_e, *r_to.values())}
    | {m for sm in _SITE_MOVES.values() for m in (*sm.place, *sm.kry, sm.fin, sm.gen, sm.discard, sm.build)}))}
_rank = _RANK.__getitem__


# Identity cache of the last answer of legal(): apply re-checks the move its caller has just
# chosen from that list. One tuple, rebound at once, so threads cannot mix entries; it holds
# the state, so ``is`` can never match another state. It keeps the moves as the set they were
# gathered in: a look-up there is a hash, where the list was searched from its start.
_LAST: tuple = (None, -1, frozenset())


def legal(st: State, seat: int) -> list[Move]:
    global _LAST
    moves = _legal(st, seat)
    _LAST = (st, seat, moves)
    try:
        return sorted(moves, key=_rank)
    except KeyError:  # a swap
        return sorted(moves)


def just_listed(st: State, seat: int, m: Move) -> bool:
    """``m`` is among the moves legal() has just given for this state and seat, so check() would
    find nothing wrong with it (tests/engine/iaww/test_rules.py holds the two to that)."""
    last = _LAST
    if last[0] is not st or last[1] != seat:
        return False
    try:
        return m in last[2]
    except TypeError:  # a field that cannot be hashed: what a search of the list finds
        return m in tuple(last[2])


def _legal(st: State, seat: int) -> set[Move] | frozenset[Move]:
    """The legal moves, unsorted (legal() sorts them)."""
    if st.phase == OVER or not 0 <= seat < st.n:
        return frozenset()
    p = st.players[seat]
    if p.done:
        return frozenset()
    if st.phase == DRAFT:
        return {_PICK[i] for i in p.hand}
    if p.shown:
        return {_KEEP[i] for i in p.shown}
    out: set[Move] = {_AUTO}
    add = out.add
    cubes = p.cubes
    held = []  # the resources of the cubes in hand (a loop: a comprehension would make a cell of cubes)
    for r in range(5):
        if cubes[r]:
            held.append(r)
    kry, fin, gen = p.kry, p.fin, p.gen
    if st.phase == PLAN:
        draft = p.draft
        for inst in p.early:
            add(_C[inst])
        seen = set()
        for own in draft:  # the first instance of each id is the one its R takes
            cid = CID_OF[own]
            if cid in seen:
                continue
            seen.add(cid)
            c, r, r_e, r_to = _R[cid]
            add(c)
            add(r)
            add(r_e)
            res = CARD_OF[own].recycle
            for s in p.sites:
                if s.inst in r_to and s.inst != own and s.filled[res] < _SITE_MOVES[s.inst].cost[res]:
                    add(r_to[s.inst])
            # a drafted card can be named by an action before its C (§6 two passes)
            for inst in draft:
                if inst != own and inst in r_to:
                    add(r_to[inst])
        if not draft and not p.early:
            add(_DONE)
        if can_swap(st, p):
            ids_list = sorted(CID_OF[i] for i in draft)
            for a in range(len(ids_list)):
                for b in range(a + 1, len(ids_list)):
                    add(Move("swap", ids_list[a], ids_list[b]))
        # the drafted cards as cards under construction with nothing placed yet
        for inst in draft:
            sm = _SITE_MOVES[inst]
            c = sm.cost
            if held:
                for r, move in sm.fresh_place:
                    if cubes[r]:
                        add(move)
            if kry:
                out.update(sm.fresh_kry)
            if fin and c[FIN]:
                add(sm.fin)
            if gen and c[GEN]:
                add(sm.gen)
            add(sm.discard)
            if c[FIN] <= fin and c[GEN] <= gen:
                if held:
                    kn = c[KRY]
                    for r in range(5):
                        if c[r] > cubes[r]:
                            kn += c[r] - cubes[r]
                else:
                    kn = sm.fresh_kn
                if kn <= kry:
                    add(sm.build)
    else:
        add(_DONE)
        if p.sci:
            out.update(_SCI)
    for r in held:
        add(_PLACE_E[r])
    forced = p.forced
    if forced != ZERO5:  # a forced cube may still be named (force)
        for r in range(5):
            if forced[r]:
                add(_PLACE_E[r])
    for s in p.sites:
        sm = _SITE_MOVES[s.inst]
        c = sm.cost
        f = s.filled
        for r in held:
            if f[r] < c[r]:
                add(sm.place[r])
        if kry:
            for k in range(6):
                if f[k] < c[k]:
                    add(sm.kry[k])
        if fin and f[FIN] < c[FIN]:
            add(sm.fin)
        if gen and f[GEN] < c[GEN]:
            add(sm.gen)
        add(sm.discard)
        # the build shortcut (build_need): what the cubes in hand do not cover, Krystallium pays
        if c[FIN] - f[FIN] <= fin and c[GEN] - f[GEN] <= gen:
            kn = c[KRY] - f[KRY]
            for r in range(5):
                e = c[r] - f[r]
                if e > cubes[r]:
                    kn += e - cubes[r]
            if kn <= kry:
                add(sm.build)
    return out


def can_swap(st: State, p: Player) -> bool:
    """§14.3: before any C/R of the cycle, 2+ cards in hand, 5+ in the deck."""
    return st.n == 1 and st.phase == PLAN and not p.decided and not p.shown and len(p.draft) >= 2 \
        and len(st.deck) >= 5


def _first(cards: tuple[str, ...], cid: str) -> str:
    for inst in cards:
        if CID_OF[inst] == cid:
            return inst
    return ""


def _card_phrase(inst: str) -> str:
    return card_name(inst) if inst != "E" else _("your empire card")



def check(st: State, seat: int, m: Move) -> str | None:
    """Why ``m`` is illegal for ``seat`` now, or None. Written for the player."""
    p = st.players[seat]
    k = m.kind
    if st.phase == DRAFT:
        if k != "pick":
            return _("during the draft you can only pick a card from your hand (pick <card>)")
        if not _first(p.hand, m.card):
            return _("%(card)s is not in your hand", card=_name(m.card))
        return None
    if k == "pick":
        return _("the draft is over: there is nothing to pick now")
    if p.shown and k != "keep":
        return _("first keep one of the five revealed cards (keep <card>)")
    if k == "keep":
        if not p.shown:
            return _("there is nothing to keep: keep follows a swap")
        if not _first(p.shown, m.card):
            return _("%(card)s is not among the revealed cards", card=_name(m.card))
        return None
    if k == "swap":
        if st.n != 1:
            return _("swapping cards exists only in solo mode")
        if st.phase != PLAN:
            return _("you can swap only during a planning cycle")
        if p.decided:
            return _("swaps must come before your first C or R of this cycle")
        if len(p.draft) < 2:
            return _("a swap needs at least 2 cards in your hand")
        if len(st.deck) < 5:
            return _("a swap needs 5 cards in the deck, and it holds only %(num)d", num=len(st.deck))
        if m.card > m.target:
            return _("name the two cards of a swap in id order")
        hand = list(p.draft)
        for cid in (m.card, m.target):
            inst = _first(tuple(hand), cid)
            if not inst:
                if m.card == m.target:
                    return _("%(card)s is not in your hand twice", card=_name(cid))
                return _("%(card)s is not in your hand", card=_name(cid))
            hand.remove(inst)
        return None
    if k in ("c", "r"):
        if st.phase != PLAN:
            return _("construct (C) and recycle (R) are planning decisions; now it is production")
        if k == "c" and any(i.split("#")[0] == m.card for i in p.early):
            return None  # the C owed by a card an earlier action already used
        if not _first(p.draft, m.card):
            if any(s.inst.split("#")[0] == m.card for s in p.sites):
                return _("%(card)s is already under construction; it can leave only by completion"
                          " or by discarding it (discard %(id)s)", card=_name(m.card), id=m.card)
            if st.n == 1:
                return _("%(card)s is not in your hand", card=_name(m.card))
            return _("%(card)s is not in your draft area", card=_name(m.card))
        if k == "r" and m.target and m.target != "E":
            if m.target == _first(p.draft, m.card):
                return _("a card cannot receive its own recycling cube")
            res = CARDS[m.card].recycle
            return _cube_target_problem(p, res, m.target, st.phase)
        return None
    if k == "done":
        if p.early:
            names = ", ".join(i.split("#")[0] for i in p.early)
            return _("you used %(names)s before constructing it: add C %(id)s (or send auto)", names=names,
                      id=p.early[0].split('#')[0])
        if st.phase == PLAN and p.draft:
            return _("you still have to construct (C) or recycle (R): %(cards)s; or send auto to construct them all",
                      cards=", ".join(_name(i.split('#')[0]) for i in p.draft))
        return None
    if k == "auto":
        return None
    if k == "sci":
        if not p.sci:
            return _("you have no science supremacy choice to make")
        return None
    if k == "place":
        why = _place_problem(st, p, m)
        if why and m.res == 3 and p.gen and m.target != "E":  # gold, from a player who may have meant a general
            why += _("; a general is a capital G: G><card> (or gen><card>)")
        return why
    return _site_problem(st, p, m)


def _place_problem(st: State, p: Player, m: Move) -> str | None:
    """Why a cube may not be placed as ``m`` says, or None."""
    if not p.cubes[m.res] and p.forced[m.res]:
        if m.target == "E":
            return None  # the cube the engine put there (force): the order agrees
        w = res_of(RESOURCES[m.res])
        return _("your %(res)s cube already went onto your empire card by itself: no card of yours has an"
                  " empty %(res)s slot (writing %(letter)s>E for it is fine)", res=w, letter=RES_LETTER[m.res])
    if not p.cubes[m.res]:
        if st.phase == PROD:
            left = [amount(k, RESOURCES[r]) for r, k in enumerate(p.cubes) if k]
            if left:
                return _("you have no %(res)s cube to place: this is the %(step)s step and you have %(left)s"
                          " to place", res=res_of(RESOURCES[m.res]), step=res_of(RESOURCES[st.step]),
                          left=left[0])
            return _("you have no %(res)s cube to place: this is the %(step)s step",
                      res=res_of(RESOURCES[m.res]), step=res_of(RESOURCES[st.step]))
        return _("you have no %(res)s cube waiting: a recycled card gives one (R <card>>T)",
                  res=res_of(RESOURCES[m.res]))
    if m.target == "E":
        return None
    return _cube_target_problem(p, m.res, m.target, st.phase)


def _site_problem(st: State, p: Player, m: Move) -> str | None:
    """kry, fin, gen, discard, build: why the card under construction ``m`` names does not take it, or None."""
    k = m.kind
    s = target_site(p, m.target, st.phase)
    if s is None:
        return _("%(card)s is not under construction in your empire",
                  card=_card_phrase(m.target) if m.target in CARD_OF else m.target)
    c = CARD_OF[s.inst]
    if k == "kry":
        if not p.kry:
            return _("you have no Krystallium")
        if m.res in (FIN, GEN):
            return _("Krystallium can never replace a character token")
        if c.cost[m.res] == 0:
            return _("%(card)s has no %(slot)s slot", card=card_name(s.inst), slot=res_of(_slot_word(m.res)))
        if empty(s, m.res) <= 0:
            return _("the %(slot)s slots of %(card)s are already full",
                     card=card_name(s.inst), slot=res_of(_slot_word(m.res)))
        return None
    if k in ("fin", "gen"):
        kind = FIN if k == "fin" else GEN
        w = "financier" if k == "fin" else "general"
        if (p.fin if k == "fin" else p.gen) == 0:
            return _("you have no %(token)s in your pool", token=word(w))
        if c.cost[kind] == 0:
            return _("%(card)s has no %(slot)s slot", card=card_name(s.inst), slot=res_of(w))
        if empty(s, kind) <= 0:
            return _("the %(slot)s slots of %(card)s are already full", card=card_name(s.inst), slot=res_of(w))
        return None
    if k == "discard":
        return None
    if k == "build":
        kn, fn, gn, _use = build_need(p, s)
        short = []
        if kn > p.kry:
            short.append(ngettext("%(num)d Krystallium (you have %(have)d)", "%(num)d Krystallium (you have %(have)d)",
                                  kn, have=p.kry))
        if fn > p.fin:
            short.append(ngettext("%(num)d financier (you have %(have)d)", "%(num)d financiers (you have %(have)d)",
                                  fn, have=p.fin))
        if gn > p.gen:
            short.append(ngettext("%(num)d general (you have %(have)d)", "%(num)d generals (you have %(have)d)", gn,
                                  have=p.gen))
        if short:
            return _("you cannot pay the rest of %(card)s: it needs %(what)s",
                     card=card_name(s.inst), what=", ".join(short))
        return None
    return _("unknown move")


def _slot_word(kind: int) -> str:
    return ("materials", "energy", "science", "gold", "exploration", "Krystallium", "financier", "general")[kind]


def _name(cid: str) -> str:
    return card_name(cid) if cid in CARDS else cid


_NO_SLOT = {
    "materials": N_("%(card)s has no materials slot; a materials cube can go only into a materials slot or onto E"
                    " (your empire)"),
    "energy": N_("%(card)s has no energy slot; an energy cube can go only into an energy slot or onto E"
                 " (your empire)"),
    "science": N_("%(card)s has no science slot; a science cube can go only into a science slot or onto E"
                  " (your empire)"),
    "gold": N_("%(card)s has no gold slot; a gold cube can go only into a gold slot or onto E (your empire)"),
    "exploration": N_("%(card)s has no exploration slot; an exploration cube can go only into an exploration slot"
                      " or onto E (your empire)"),
}


def _cube_target_problem(p: Player, res: int, target: str, phase: str) -> str | None:
    s = target_site(p, target, phase)
    if s is None:
        name = card_name(target) if target in CARD_OF else target
        return _("%(card)s is not under construction in your empire", card=name)
    c = CARD_OF[s.inst]
    if c.cost[res] == 0:
        return _(_NO_SLOT[RESOURCES[res]], card=card_name(s.inst))
    if empty(s, res) <= 0:
        return _("the %(slot)s slots of %(card)s are already full", card=card_name(s.inst),
                  slot=res_of(RESOURCES[res]))
    return None


# ---------------------------------------------------------------- applying


def _first_early(early: tuple[str, ...], cid: str) -> str | None:
    """The first card of ``early`` with the id ``cid``, or None."""
    for i in early:
        if i.split("#")[0] == cid:
            return i
    return None


def _lost(s: Site) -> list[str]:
    """What discarding the card under construction ``s`` loses, for the player's note."""
    lost = [f"{s.filled[k]} {_slot_word(k)}" for k in range(8) if s.filled[k]]
    if s.wild:
        lost.append(f"(of which {s.wild} Krystallium as wildcard)")
    return lost


def _build(p: Player, i: int) -> Player:
    """The build shortcut (§16 item 2) for the card under construction in ``p.sites[i]``."""
    s = p.sites[i]
    kn, fn, gn, use = build_need(p, s)
    cost = CARD_OF[s.inst].cost
    cubes = tuple(p.cubes[r] - use[r] for r in range(5))
    wild = sum(cost[r] - s.filled[r] - use[r] for r in range(5))
    p = replace(p, cubes=cubes, kry=p.kry - kn, fin=p.fin - fn, gen=p.gen - gn)
    return _set_site(p, i, Site(s.inst, cost, s.wild + wild))


def play(st: State, seat: int, m: Move) -> State:
    """Apply a legal move (callers check with :func:`check` first)."""
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        inst = _first(p.hand, m.card)
        p = replace(p, hand=_without(p.hand, inst), pick=inst, done=True)
        st = _put(st, seat, p)
        if all(q.done for q in st.players):
            st = reveal(st)
        return st
    if k == "keep":
        inst = _first(p.shown, m.card)
        rest = list(p.shown)
        rest.remove(inst)
        p = replace(p, shown=(), draft=sort_cards(p.draft + (inst,)))
        p = label_notes(st, st.players[seat], force(p, st.phase))
        # solo: the new hand is what the next board numbers (nothing is hidden from the only player)
        return _pub(replace(_put(st, seat, p), discard=st.discard + tuple(rest)))
    if k == "swap":
        hand = list(p.draft)
        gone = []
        for cid in (m.card, m.target):
            inst = _first(tuple(hand), cid)
            hand.remove(inst)
            gone.append(inst)
        p = replace(p, draft=tuple(hand), shown=st.deck[:5])
        return _pub(replace(_put(st, seat, p), deck=st.deck[5:], discard=st.discard + tuple(gone)))
    discard = st.discard
    if st.phase == PLAN and k not in ("swap", "r") and m.target in p.draft:
        p = construct_early(p, m.target)
    if k == "c":
        e = _first_early(p.early, m.card)
        if e is not None:
            # the C owed by a card constructed early: it takes its place in the listed order
            i = site_index(p, e)
            sites = p.sites if i < 0 else p.sites[:i] + p.sites[i + 1:] + (p.sites[i],)
            p = replace(p, early=_without(p.early, e), sites=sites)
        else:
            inst = _first(p.draft, m.card)
            p = replace(p, draft=_without(p.draft, inst), sites=p.sites + (Site(inst),), decided=True)
    elif k == "r":
        inst = _first(p.draft, m.card)
        res = CARD_OF[inst].recycle
        cubes = list(p.cubes)
        cubes[res] += 1
        p = replace(p, draft=_without(p.draft, inst), cubes=tuple(cubes), decided=True)
        discard = discard + (inst,)
        if m.target:
            p = place_cube(construct_early(p, m.target), res, m.target)
    elif k == "place":
        if p.cubes[m.res]:
            p = place_cube(p, m.res, m.target)
        else:  # names a cube force() put onto the empire card: agreed, nothing moves
            forced = list(p.forced)
            forced[m.res] -= 1
            p = replace(p, forced=tuple(forced))
    elif k == "kry":
        i = site_index(p, m.target)
        p = replace(p, kry=p.kry - 1)
        p = _set_site(p, i, _fill(p.sites[i], m.res, 1, 1 if m.res < 5 else 0))
    elif k == "fin":
        i = site_index(p, m.target)
        p = _set_site(replace(p, fin=p.fin - 1), i, _fill(p.sites[i], FIN))
    elif k == "gen":
        i = site_index(p, m.target)
        p = _set_site(replace(p, gen=p.gen - 1), i, _fill(p.sites[i], GEN))
    elif k == "discard":
        i = site_index(p, m.target)
        s = p.sites[i]
        c = CARD_OF[s.inst]
        lost = _lost(s)
        p = replace(p, sites=p.sites[:i] + p.sites[i + 1:],
                    notes=p.notes + (f"Discarded {c.name}: lost " + (" ".join(lost) if lost else "nothing")
                                     + f"; 1 {RESOURCES[c.recycle]} cube onto your empire card.",))
        p = to_empire(p, 1)  # the recycling cube goes onto the empire card only (§10)
        discard = discard + (s.inst,)
    elif k == "build":
        p = _build(p, site_index(p, m.target))
    elif k == "sci":
        p = replace(p, sci=False, fin=p.fin + (m.card == "financier"), gen=p.gen + (m.card == "general"))
    elif k in ("done", "auto"):
        if k == "auto" and st.phase == PLAN:
            # the default of construct or recycle (§17 D2): construct every undecided card, in the order shown
            p = replace(p, sites=p.sites + tuple(Site(i) for i in p.draft), draft=(), early=(),
                        decided=True if p.draft else p.decided)
        if p.sci:
            c = sci_default(p, st.face)
            p = replace(p, sci=False, fin=p.fin + (c == "financier"), gen=p.gen + (c == "general"))
        p = auto_place(p)
        p = replace(p, done=True)
    p = label_notes(st, st.players[seat], force(p, st.phase))
    players = st.players
    st = replace(st, players=players[:seat] + (p,) + players[seat + 1:], discard=discard)
    if k in ("done", "auto") and all(q.done for q in st.players):
        st = resolve(st)
    return st


def _put(st: State, seat: int, p: Player) -> State:
    players = st.players
    return replace(st, players=players[:seat] + (p,) + players[seat + 1:])


def reveal(st: State) -> State:
    """§5 steps 3-5: reveal the picks together, pass the hands."""
    n = st.n
    picks = [p.pick for p in st.players]
    line = f"Round {st.round}, pick {st.step}: " + ", ".join(
        f"{seat_name(i)} {CARD_OF[c].name}" for i, c in enumerate(picks)) + "."
    players = [replace(p, draft=p.draft + (p.pick,), pick="") for p in st.players]
    hands = [p.hand for p in players]
    discard = st.discard
    log = (line,)
    if len(players[0].draft) == 7:
        if n == 2:  # §13: the three leftovers are discarded, no pass
            for h in hands:
                discard = discard + h
            players = [replace(p, hand=()) for p in players]
            log += ("The 3 cards left in each hand are discarded.",)
        return start_planning(replace(st, players=tuple(players), discard=discard), log)
    if st.round % 2 == 1:   # left: seat i passes to i+1
        new = [hands[(j - 1) % n] for j in range(n)]
    else:                   # right: seat i passes to i-1
        new = [hands[(j + 1) % n] for j in range(n)]
    players = [replace(p, hand=new[j], done=False) for j, p in enumerate(players)]
    step = st.step + 1
    if n > 2 and len(new[0]) == 1:
        # the 7th pick is the last card, taken automatically (§5)
        last = ", ".join(f"{seat_name(j)} {CARD_OF[new[j][0]].name}" for j in range(n))
        players = [replace(p, draft=p.draft + p.hand, hand=()) for p in players]
        log += (f"Pick 7 (the last card, automatic): {last}.",)
        return start_planning(replace(st, players=tuple(players)), log)
    players = tuple(players)
    return _pub(replace(st, step=step, players=players, log=log))


def resolve(st: State) -> State:
    """Every seat has finished the current planning phase or step."""
    if st.phase == PLAN:
        if st.n == 1 and st.step == 0:
            return start_cycle(st, 1)
        return start_step(st, 0, (f"Round {st.round}: planning done.",))
    if st.step == 4:
        return end_round(st, ())
    return start_step(st, st.step + 1)


# ---------------------------------------------------------------- scoring


def score(p: Player, face: str) -> dict[str, int]:
    """§12: the four parts of the score pad."""
    types: dict[str, int] = {}
    fixed = 0
    per = []
    for inst in p.built:
        c = CARD_OF[inst]
        types[c.type] = types.get(c.type, 0) + 1
        fixed += c.vp
        if c.vp_per is not None:
            per.append(c.vp_per)
    emp = EMPIRE_FACES[(p.empire, face)].vp_per
    if emp is not None:
        per.append(emp)
    typ = 0
    mf = mg = 1
    for q, what in per:
        if what == "financier":
            mf += q
        elif what == "general":
            mg += q
        else:
            typ += q * types.get(what, 0)
    parts = {"fixed": fixed, "type": typ, "generals": p.gen * mg, "financiers": p.fin * mf}
    parts["total"] = sum(parts.values())
    return parts


# ---------------------------------------------------------------- numbering


def numbered_draft(st: State, seat: int) -> tuple[str, ...]:
    """The draft area (solo: hand) as numbered on the player's board: the
    list as of the last resolution, then any card that joined since. Numbers
    stay put while a mail is applied ("C 1; R 2>E" means the cards shown as 1
    and 2), so a decided card leaves a gap instead of renumbering the rest."""
    snap = st.public[seat].draft if st.phase == PLAN else ()
    live = st.players[seat].draft
    return snap + tuple(i for i in live if i not in snap)


def numbered_sites(st: State, seat: int) -> tuple[str, ...]:
    """The construction area as numbered on the player's board, stable in
    the same way: a completed or discarded card leaves a gap."""
    snap = tuple(s.inst for s in st.public[seat].sites)
    return snap + tuple(s.inst for s in st.players[seat].sites if s.inst not in snap)
