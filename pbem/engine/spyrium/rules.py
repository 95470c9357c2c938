"""The rules of Spyrium (RULES.md), as one executor shared by apply, legal-move
generation and error messages, so the three can never disagree.

``execute(state, seat, move, build)`` carries out one move. Each mid-action
choice (§15) goes through ``_Dec.pick``: a single legal choice is applied
without asking; otherwise the next written answer is used; when none is left
the executor raises ``NeedDecision`` (the move becomes a pending decision).
Choices offered are always ones that can be completed, so a partial move is
legal exactly when some completion of it is.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import repeat
from operator import contains

from .data import (
    BONUS_CASH, BONUS_FIRST_AT, BONUS_SECOND_AT, SHARED_SYMBOL_OFF, TOKEN_COUNTS,
    AUTOMATION, BUILDING, CAPITALIZATION, CARDS, CHARACTER, COMMERCE, CRANE, DECK, EFFECT,
    ENGINEERING, EV_COUNTRY, EV_HONOURS, EV_LATE, EV_OVERTIME, EV_RECRUIT, EV_SALE,
    EV_WINDFALL, EVENTS, IS_FACTORY, IS_MINE, KEPT_CAP, KIND, LOBBYING, MAX_WORKERS,
    NTOKENS_PER_CARD, PERIOD_OF_ROUND, POS_SPACES, PRICE, QUARTERS_GAIN, RES_START, RES_TOP,
    ROUNDS, SPACE_NAME, SPACES, SYM, TAYLORISM, TECH_CAP, TECHNIQUE, USE_OPTS, VP,
)
from .state import (
    ACT, ANSWER, BONUS_BOTH, BONUS_CASH_AT_20, BONUS_NONE, BONUS_WORKER_AT_20, D_BONUS,
    D_BUILDING, D_LOT, D_OPT, D_RES, D_RESOURCE, D_SPACE, D_TOKEN, EARN, EVENT, PASS, PLACE,
    USE, Player, State, new_player, new_state,
)
from ..base import rng_for
from .i18n import N_, _, card_label, card_name, joined, later, say
from .writing import answer_word, decision_question


class Illegal(Exception):
    """A move the rules forbid; the message is for the player. It is kept as its
    English msgid and values, and written in the reader's language only when shown
    (``str(e)``): legal-move generation raises many that nobody reads. A value
    that is itself words (a card's name, a list of prices) is given as a tuple
    (function, its arguments...), called only then (a tuple, not a lambda: a
    closure would make cells of execute's variables at every dry run)."""

    def __init__(self, message: str, /, **values) -> None:
        # Exception.__new__ has set args to (message,) already
        self.message = message
        self.values = values

    def __str__(self) -> str:
        return _(self.message, **{k: v[0](*v[1:]) if type(v) is tuple else v for k, v in self.values.items()})


class NeedDecision(Exception):
    def __init__(self, dtype: int, choices: list) -> None:
        super().__init__(dtype)
        self.dtype = dtype
        self.choices = choices


PAYS_TOKEN = frozenset(("architect_token_residence", "banker_token_4vp", "financier_token_5vp"))
FLAT_VP = {"banker_token_4vp": 4, "financier_token_5vp": 5, "advisor_3vp": 3}


class _Dec:
    __slots__ = ("ans", "i", "forced", "explore")

    def __init__(self, ans: tuple, forced: list | None, explore: list | None) -> None:
        self.ans = ans
        self.i = 0
        self.forced = forced
        self.explore = explore

    def pick(self, dtype: int, choices: list) -> int:
        if len(choices) == 1:
            if self.forced is not None:
                self.forced.append((dtype, choices[0]))
            return choices[0]
        if self.i < len(self.ans):
            code = self.ans[self.i]
            if code // 100 != dtype or code % 100 not in choices:
                raise Illegal(_bad_choice(dtype, code, choices))
            self.i += 1
            return code % 100
        if self.explore is not None:
            # legal-move generation: go on with the first choice, the others are tried later
            self.explore.append((dtype, choices))
            return choices[0]
        raise NeedDecision(dtype, choices)


def _bad_choice(dtype: int, code: int, choices: list) -> str:
    words = ", ".join(answer_word(dtype, c) for c in choices)
    if code // 100 != dtype:
        return _("%(question)s comes first: write one of %(words)s", question=decision_question(dtype), words=words)
    return _("%(word)s is not possible here: the rules and what you can pay leave only %(words)s for %(question)s",
             word=answer_word(dtype, code % 100), words=words, question=decision_question(dtype))


class _X(_Dec):
    """Scratch copy of one player while a move is carried out; also the _Dec of
    the run (one object instead of two: legal-move generation makes many runs)."""

    __slots__ = ("money", "spy", "vp", "res", "phase", "passed", "evused", "active", "used",
                 "onbld", "owned", "bonus", "lots", "turned", "techs", "lobused", "comused",
                 "tayused", "kept", "lotw")

    def player(self) -> Player:
        return new_player(self.money, self.spy, self.vp, self.res, self.phase, self.passed,
                          self.evused, self.active, self.used, self.onbld, self.owned, self.bonus,
                          self.lots, self.turned, self.techs, self.lobused, self.comused,
                          self.tayused, self.kept, self.lotw)

    # -- §10: new workers come from the reserve, active at once, never above 7 owned
    def gain_workers(self, k: int) -> None:
        k = min(k, MAX_WORKERS - self.owned)
        if k > 0:
            self.owned += k
            self.active += k

    # -- §9: VP during play, with the bonus tiles
    def gain_vp(self, g: int, dec: _Dec) -> None:
        before = self.vp
        self.vp = after = before + g
        if before < BONUS_FIRST_AT <= after:
            if after >= BONUS_SECOND_AT:
                self.gain_workers(1)
                self.money += BONUS_CASH
                self.bonus = BONUS_NONE
            else:
                c = dec.pick(D_BONUS, [0, 1] if self.owned < MAX_WORKERS else [1])
                if c == 0:
                    self.gain_workers(1)
                    self.bonus = BONUS_CASH_AT_20
                else:
                    self.money += BONUS_CASH
                    self.bonus = BONUS_WORKER_AT_20
        elif before < BONUS_SECOND_AT <= after and self.bonus in (BONUS_WORKER_AT_20, BONUS_CASH_AT_20):
            if self.bonus == BONUS_WORKER_AT_20:
                self.gain_workers(1)  # discarded for nothing with 7 workers (§9 ruling)
            else:
                self.money += BONUS_CASH
            self.bonus = BONUS_NONE

    # -- §8: one residence action
    def residence(self, dec: _Dec) -> None:
        c = dec.pick(D_RES, [0, 1] if self.res < RES_TOP else [1])
        if c == 0:
            self.res += 1
        else:
            self.gain_vp(self.res, dec)

    # -- §5.6 / §11.4 Overtime: one use of a building (option, workers, S, gains)
    def use_building(self, lot: int, dec: _Dec) -> None:
        card = self.lots[lot - 1]
        opts = USE_OPTS[card]
        auto = IS_MINE[card] and AUTOMATION in self.techs
        active, spy = self.active, self.spy
        avail = []  # a loop, not a comprehension, which would make cells of self and auto at every call
        for i, (w, s, _gs, _gv) in enumerate(opts):
            if (0 if auto else w) <= active and s <= spy:
                avail.append(i + 1)
        if not avail:
            raise Illegal(N_("you cannot use the %(card)s: %(needs)s"), card=(card_label, CARDS[card].label),
                          needs=(_use_needs, card, auto))
        o = dec.pick(D_OPT, avail)
        w, s, gs, gv = opts[o - 1]
        if auto:
            w = 0
        self.active -= w
        self.onbld += w
        if w:
            self.lotw = self.lotw[:lot - 1] + (self.lotw[lot - 1] + w,) + self.lotw[lot:]
        self.spy += gs - s
        g = gv + (w if IS_FACTORY[card] and ENGINEERING in self.techs else 0)
        if g:
            self.gain_vp(g, dec)

    def usable_option(self, card: int) -> bool:
        return can_use(self, card)


_new = object.__new__


def _x_of(p: Player, phase: int, ans: tuple, forced: list | None, explore: list | None) -> _X:
    """The _X of a run: ``p``'s fields in ``phase``, the run's answers. A function rather than _X's
    __init__: calling a class goes through type.__call__ and the __init__ slot, and
    legal-move generation makes an _X for each of its dry runs."""
    x = _new(_X)
    x.ans = ans
    x.i = 0
    x.forced = forced
    x.explore = explore
    x.money = p.money
    x.spy = p.spy
    x.vp = p.vp
    x.res = p.res
    x.phase = phase
    x.passed = p.passed
    x.evused = p.evused
    x.active = p.active
    x.used = p.used
    x.onbld = p.onbld
    x.owned = p.owned
    x.bonus = p.bonus
    x.lots = p.lots
    x.turned = p.turned
    x.techs = p.techs
    x.lobused = p.lobused
    x.comused = p.comused
    x.tayused = p.tayused
    x.kept = p.kept
    x.lotw = p.lotw  # matches lots (Player.__post_init__ mends a hand-made one)
    return x


def can_use(pl, card: int) -> bool:
    """Whether ``pl`` (a Player or an _X) can pay for some option of the building:
    exactly when use_building finds an option instead of raising Illegal."""
    auto = IS_MINE[card] and AUTOMATION in pl.techs
    for w, s, _gs, _gv in USE_OPTS[card]:
        if (0 if auto else w) <= pl.active and s <= pl.spy:
            return True
    return False


def use_needs_kept(card: int, auto: bool) -> dict:
    """What each option of the building ``card`` needs, kept to be worded in the reader's language."""
    parts = []
    for w, s, _gs, _gv in USE_OPTS[card]:
        w = 0 if auto else w
        need = []
        if w:
            need.append(later.ngettext("%(num)d active worker", "%(num)d active workers", w))
        if s:
            need.append(later._("%(spy)d S", spy=s))
        parts.append(joined(later._(" and "), need) if need else later._("nothing"))
    return later._("it needs %(needs)s", needs=joined(later._(" or "), parts))


def _use_needs(card: int, auto: bool) -> str:
    return say(use_needs_kept(card, auto))


def lot_price(lots: tuple, techs: tuple, card: int, lot: int) -> tuple:
    """§6: (price, lot cost) of building ``card`` on a new lot (``lot`` 0) or in place
    of the building in ``lot`` (1-based): a shared type symbol takes £3 off the price,
    Crane takes £3 off a new lot, neither below £0."""
    price = PRICE[card]
    if lot == 0:
        return price, max(0, len(lots) - (SHARED_SYMBOL_OFF if CRANE in techs else 0))
    return (max(0, price - SHARED_SYMBOL_OFF) if SYM[lots[lot - 1]] & SYM[card] else price), 0


def build_costs(lots: tuple, techs: tuple, card: int, sur: int) -> list:
    """The whole cost of activating building ``card`` for each placement: index 0 a
    new lot, index k replacing lot k (§5.5 cost = price + surcharge + lot cost)."""
    # lot_price for each lot, inlined: legal-move generation asks for every building it could activate
    price = PRICE[card]
    sym = SYM[card]
    shared = max(0, price - SHARED_SYMBOL_OFF) + sur
    out = [price + max(0, len(lots) - (SHARED_SYMBOL_OFF if CRANE in techs else 0)) + sur]
    for old in lots:
        out.append(shared if SYM[old] & sym else price + sur)
    return out


def _add(t: tuple, v: int) -> tuple:
    return tuple(sorted(t + (v,)))


def _remove(t: tuple, v: int) -> tuple:
    i = t.index(v)
    return t[:i] + t[i + 1:]


def is_open(market: tuple, s: int) -> bool:
    a, b = SPACES[s]
    return market[a - 1] >= 0 or market[b - 1] >= 0


def open_spaces(market: tuple) -> list:
    """The open spaces in order: [s for s in range(12) if is_open(market, s)], inlined."""
    if min(market) >= 0:  # the usual case: no card has left the market yet
        return list(range(12))
    return [s for s, (a, b) in enumerate(SPACES) if market[a - 1] >= 0 or market[b - 1] >= 0]


def _cards_next_to(market: tuple, s: int) -> list:
    """The positions next to space ``s`` that still hold a card, in order."""
    a, b = SPACES[s]
    if market[a - 1] >= 0:
        return [a, b] if market[b - 1] >= 0 else [a]
    return [b] if market[b - 1] >= 0 else []


def _overtime_lots(x: _X) -> list:
    """The lots (1-based) of the turned buildings that ``x`` can pay to use again (Overtime)."""
    out = []
    turned = x.turned
    for i, c in enumerate(x.lots):
        if turned[i] and USE_OPTS[c] and x.usable_option(c):
            out.append(i + 1)
    return out


def workers_next_to(spaces: tuple, q: int) -> int:
    n = 0
    for s in POS_SPACES[q]:  # a plain loop: faster than sum() of a generator here
        n += len(spaces[s])
    return n


def execute(st: State, seat: int, mv: tuple, build: bool, forced: list | None = None,
            explore: list | None = None):
    """Carry out ``mv`` for ``seat``. Returns the new State (build=True) or
    None (dry run). Raises Illegal or NeedDecision; with an ``explore`` list,
    a decision left unanswered is recorded there as (dtype, choices) and its
    first choice taken instead (see _dfs). Legal-move generation makes many
    dry runs: they skip rebuilding the board's tuples (spaces, market, tokens,
    discard, kept tokens), which only the new State needs. It holds no
    comprehension or generator over its variables: one would make cells of
    them at every run (loops, helpers and ``map`` instead)."""
    kind, sw, a, b, lob, com, ans = mv
    if kind == ANSWER:
        if not st.pending:
            raise Illegal(N_("there is no pending decision to answer"))
        kind, sw, a, b, lob, com, prev = st.pending
        ans = prev + ans
    elif st.pending:
        raise Illegal(N_("first answer the pending decision of your last move"))
    p = st.ps[seat]
    if p.passed:
        raise Illegal(N_("you have passed this round"))
    phase = p.phase
    if sw:
        if phase != 1:
            raise Illegal(N_("you are already in Phase II: write the action without 'phase2'"))
        if kind == PLACE:
            raise Illegal(N_("placing a worker is a Phase I action; it cannot follow 'phase2'"))
        phase = 2
    if com and kind not in (ACT, EVENT):
        raise Illegal(N_("a Commerce value can only be declared when you activate a card or use the event"))
    if lob and kind != ACT:
        raise Illegal(N_("Lobbying can only be declared when you activate a market card"))
    x = dec = _x_of(p, phase, ans, forced, explore)
    spaces = st.spaces
    market = st.market
    mtok = st.mtok
    discard = st.discard
    techs = p.techs

    if kind == PLACE:
        if phase != 1:
            raise Illegal(N_("placing a worker is a Phase I action; you are in Phase II"))
        if x.active < 1:
            raise Illegal(N_("you have no active worker left on your start card"))
        if not 0 <= a < 12:
            raise Illegal(N_("there is no such space"))
        if not is_open(market, a):
            raise Illegal(N_("space %(space)s is closed: both cards next to it have left the market"),
                          space=SPACE_NAME[a])
        x.active -= 1
        spaces = spaces[:a] + (_add(spaces[a], seat),) + spaces[a + 1:]

    elif kind == EVENT:
        if x.evused:
            raise Illegal(N_("you have already used the event this round"))
        ev = st.cur_event
        name = CARDS[ev].name
        if com and ev != EV_WINDFALL:
            raise Illegal(N_("a Commerce value applies only to a token; %(event)s has none"),
                          event=(card_name, name))
        if ev == EV_WINDFALL:
            tok = st.cur_token
            if com:
                _check_commerce(x, techs, tok, com)
                x.comused = True
            v = com or tok
            r = dec.pick(D_RESOURCE, [0, 1, 2])
            if r == 0:
                x.money += v
            elif r == 1:
                x.spy += v
            else:
                x.gain_vp(v, dec)
        elif ev == EV_COUNTRY:
            if x.spy < 1:
                raise Illegal(N_("Country Seat costs 1 S and you have none"))
            x.spy -= 1
            x.residence(dec)
        elif ev == EV_HONOURS:
            ch = [1, 2] if x.money >= 6 else [1] if x.money >= 3 else []  # option 1 costs £3, option 2 £6
            if not ch:
                raise Illegal(N_("Honours for Sale costs £3 (or £6) and you have £%(money)d"), money=x.money)
            o = dec.pick(D_OPT, ch)
            x.money -= 3 if o == 1 else 6
            x.gain_vp(3 if o == 1 else 5, dec)
        elif ev == EV_SALE:
            ch = [1, 2] if x.spy >= 3 else [1] if x.spy >= 1 else []  # option 1 takes 1 S, option 2 3 S
            if not ch:
                raise Illegal(N_("Spyrium Sale needs 1 S (or 3 S) and you have none"))
            o = dec.pick(D_OPT, ch)
            x.spy -= 1 if o == 1 else 3
            x.money += 3 if o == 1 else 6
        elif ev == EV_OVERTIME:
            if x.money < 1:
                raise Illegal(N_("Overtime costs £1 and you have £0"))
            cands = _overtime_lots(x)
            if not cands:
                raise Illegal(N_("Overtime needs one of your turned buildings that you can pay to use again"))
            x.money -= 1
            k = dec.pick(D_BUILDING, cands)
            x.use_building(k, dec)
        elif ev == EV_RECRUIT:
            if x.owned >= MAX_WORKERS:
                raise Illegal(N_("Recruitment: you already own 7 workers"))
            if x.money < x.owned:
                raise Illegal(N_("Recruitment costs £%(cost)d (£1 per worker you own) and you have £%(money)d"),
                              cost=x.owned, money=x.money)
            x.money -= x.owned
            x.gain_workers(1)
        elif ev == EV_LATE:
            if phase != 2:
                raise Illegal(N_("Late Placement can be used only in Phase II (write 'phase2 event ...')"))
            if x.active < 1:
                raise Illegal(N_("Late Placement needs an active worker on your start card"))
            opens = open_spaces(market)
            if not opens:
                raise Illegal(N_("Late Placement: no space of the market is open"))
            s = dec.pick(D_SPACE, opens)
            x.active -= 1
            if build:
                spaces = spaces[:s] + (_add(spaces[s], seat),) + spaces[s + 1:]
        x.evused = True

    elif kind == EARN:
        if phase != 2:  # the call only to refuse: every dry run passes here
            _phase2(phase, _EARNING)
        if not 0 <= a < 12 or seat not in spaces[a]:
            raise Illegal(_no_worker(a))
        cards = _cards_next_to(market, a)
        if b == 0:
            if cards:
                raise Illegal(N_("say which card next to %(space)s you earn from: %(cards)s"), space=SPACE_NAME[a],
                              cards=(_or_list, cards))
            gain = 0
        else:
            if b not in cards:
                if b not in SPACES[a]:
                    raise Illegal(N_("card %(card)d is not next to your worker in %(space)s"), card=b,
                                  space=SPACE_NAME[a])
                raise Illegal(N_("position %(pos)d is empty"), pos=b)
            gain = workers_next_to(spaces, b) - 1
        if CAPITALIZATION in techs:
            gain += 2
        x.money += gain
        spaces = spaces[:a] + (_remove(spaces[a], seat),) + spaces[a + 1:]
        x.used += 1

    elif kind == ACT:
        if phase != 2:  # the call only to refuse: every dry run passes here
            _phase2(phase, _ACTIVATING)
        if not 0 <= a < 12 or seat not in spaces[a]:
            raise Illegal(_no_worker(a))
        if b not in SPACES[a]:
            raise Illegal(N_("card %(card)d is not next to your worker in %(space)s"), card=b, space=SPACE_NAME[a])
        card = market[b - 1]
        if card < 0:
            raise Illegal(N_("position %(pos)d is empty: its card has left the market"), pos=b)
        label = CARDS[card].label
        sur = workers_next_to(spaces, b) - 1
        if lob:
            if LOBBYING not in techs:
                raise Illegal(N_("you do not own Lobbying"))
            if p.lobused:
                raise Illegal(N_("you have already used Lobbying this round"))
            if sur == 0:
                raise Illegal(N_("Lobbying would waive nothing: no other worker is next to that card"))
            sur = 0
            x.lobused = True
        toks = mtok[b - 1]
        if com:
            if not toks:
                raise Illegal(N_("a Commerce value needs a token, and the %(card)s carries none"),
                              card=(card_label, label))
            _check_commerce(x, techs, None, com)
            x.comused = True
        keep = COMMERCE in techs
        k = KIND[card]
        eff = EFFECT[card]
        if k == CHARACTER:
            if NTOKENS_PER_CARD[card]:
                if not toks:
                    raise Illegal(N_("the %(card)s has no token left and cannot be activated"),
                                  card=(card_label, label))
                pays = eff in PAYS_TOKEN
                money = x.money
                vals = []
                for v in sorted(set(toks)):
                    if v != com and money >= sur + ((com or v) if pays else 0):
                        vals.append(v)
                if not vals:
                    if com and toks.count(com) == len(toks):  # every token shows com
                        raise Illegal(N_("the Commerce value %(value)d is the token's own value; declare another value "
                                         "or none"), value=com)
                    if not pays:
                        raise Illegal(N_("you cannot pay the surcharge: £%(sur)d (one per other worker) "
                                         "and you have £%(money)d"), sur=sur, money=x.money)
                    raise Illegal(N_("you cannot pay: the %(card)s costs £%(sur)d surcharge plus the token's value "
                                     "(£%(least)d at least) and you have £%(money)d"),
                                  card=(card_label, label), sur=sur, least=com or min(toks), money=x.money)
                t = dec.pick(D_TOKEN, vals)
                v = com or t
                x.money -= sur + (v if pays else 0)
                if build:
                    mtok = mtok[:b - 1] + (_remove(toks, t),) + mtok[b:]
                    if keep and len(x.kept) < KEPT_CAP:
                        x.kept = _add(x.kept, t)
                    else:
                        discard = _add(discard, t)
                if eff == "bureaucrat_token_vp":
                    x.gain_vp(v, dec)
                elif eff == "miner_token_spyrium":
                    x.spy += v
                elif eff == "architect_token_residence":
                    x.residence(dec)
                else:
                    x.gain_vp(FLAT_VP[eff], dec)
            else:
                if x.money < sur:
                    raise Illegal(N_("you cannot pay the surcharge: £%(sur)d (one per other worker) "
                                     "and you have £%(money)d"), sur=sur, money=x.money)
                need_spy = eff in ("apprentice_1spy_3vp", "engineer_1spy_4vp")
                if need_spy and x.spy < 1:
                    raise Illegal(N_("the %(card)s needs 1 S and you have none"), card=(card_label, label))
                x.money -= sur
                if need_spy:
                    x.spy -= 1
                    x.gain_vp(3 if eff == "apprentice_1spy_3vp" else 4, dec)
                elif eff == "geologist_2spy":
                    x.spy += 2
                else:
                    x.gain_vp(FLAT_VP[eff], dec)
        elif k == BUILDING:
            if com and com == toks[0]:
                raise Illegal(N_("the token on the %(card)s already shows %(value)d; declare another value or none"),
                              card=(card_label, label), value=com)
            costs = build_costs(x.lots, techs, card, sur)
            money = x.money
            choices = []
            for lot, c in enumerate(costs):
                if money >= c:
                    choices.append(lot)
            if not choices:
                raise Illegal(N_("you cannot pay for the %(card)s (you have £%(money)d): %(ways)s%(note)s"),
                              card=(card_label, label), money=x.money, ways=(_ways, costs),
                              note=(_sur_note, sur))
            lot = dec.pick(D_LOT, choices)
            x.money -= costs[lot]
            if lot == 0:
                x.lots = x.lots + (card,)
                x.turned = x.turned + (False,)
                x.lotw = x.lotw + (0,)
            else:
                x.lots = x.lots[:lot - 1] + (card,) + x.lots[lot:]
                x.turned = x.turned[:lot - 1] + (False,) + x.turned[lot:]
                # §6 ruling, §10: the workers on the replaced building stay used, beside the
                # start card, until the next round start
                moved = x.lotw[lot - 1]
                if moved:
                    x.onbld -= moved
                    x.used += moved
                    x.lotw = x.lotw[:lot - 1] + (0,) + x.lotw[lot:]
            if build:
                market = market[:b - 1] + (-1,) + market[b:]
            if toks:
                t = toks[0]
                v = com or t
                if build:
                    mtok = mtok[:b - 1] + ((),) + mtok[b:]
                    if keep and len(x.kept) < KEPT_CAP:
                        x.kept = _add(x.kept, t)
                    else:
                        discard = _add(discard, t)
                if IS_MINE[card]:
                    x.spy += v
                else:
                    x.gain_vp(v, dec)
            if eff in QUARTERS_GAIN:
                x.gain_workers(QUARTERS_GAIN[eff])
            elif eff == "residence_on_build":
                x.residence(dec)
        elif k == TECHNIQUE:
            if x.money < PRICE[card] + sur:
                raise Illegal(N_("you cannot pay for the %(card)s (you have £%(money)d): it costs £%(cost)d%(note)s"),
                              card=(card_label, label), money=x.money, cost=PRICE[card] + sur,
                              note=(_sur_note, sur))
            x.money -= PRICE[card] + sur
            x.techs = x.techs + (card,)
            if build:
                market = market[:b - 1] + (-1,) + market[b:]
        if build:
            spaces = spaces[:a] + (_remove(spaces[a], seat),) + spaces[a + 1:]
        x.used += 1

    elif kind == USE:
        if phase != 2:  # the call only to refuse: every dry run passes here
            _phase2(phase, _USING)
        if not 1 <= a <= len(x.lots):
            if x.lots:
                raise Illegal(N_("you have no building in lot %(lot)d (your lots are 1 to %(last)d)"), lot=a,
                              last=len(x.lots))
            raise Illegal(N_("you have no building in lot %(lot)d"), lot=a)
        card = x.lots[a - 1]
        if not USE_OPTS[card]:
            raise Illegal(N_("the %(card)s in lot %(lot)d has no Phase II use"),
                          card=(card_label, CARDS[card].label), lot=a)
        tay = x.turned[a - 1]
        if tay:
            if TAYLORISM not in techs:
                raise Illegal(N_("the %(card)s in lot %(lot)d is already turned this round"),
                              card=(card_label, CARDS[card].label), lot=a)
            if x.tayused:
                raise Illegal(N_("you have already used Taylorism this round"))
        x.use_building(a, dec)
        if tay:
            x.tayused = True
        else:
            x.turned = x.turned[:a - 1] + (True,) + x.turned[a:]

    elif kind == PASS:
        if phase != 2:  # the call only to refuse: every dry run passes here
            _phase2(phase, _PASSING)
        if any(map(contains, spaces, repeat(seat))):  # seat in some space; no generator frame
            raise Illegal("you can pass only once all your workers have left the market "
                          "(earn money or activate a card with them first)")
        x.passed = True
    else:
        raise Illegal(N_("unknown move"))

    if dec.i != len(ans):
        raise Illegal(N_("that move carries a choice that does not arise in it"))
    if not build:
        return None
    ps = st.ps[:seat] + (x.player(),) + st.ps[seat + 1:]
    return _after(st, seat, ps, spaces, market, mtok, discard)


def _check_commerce(x: _X, techs: tuple, printed: int | None, com: int) -> None:
    if COMMERCE not in techs:
        raise Illegal(N_("you do not own Commerce, so you cannot declare a token value"))
    if x.comused:
        raise Illegal(N_("you have already used Commerce's value change this round"))
    if not 1 <= com <= 3:
        raise Illegal(N_("a Commerce value is 1, 2 or 3"))
    if printed is not None:
        if printed == 0:
            raise Illegal(N_("the event carries no token to change"))
        if printed == com:
            raise Illegal(N_("the token already shows %(value)d; declare another value or none"), value=com)


def _or_list(cards: list) -> str:
    return _(" or ").join(str(q) for q in cards)


def _ways(costs: list) -> str:
    """The ways to pay for a building, costs as build_costs gives them."""
    return ", ".join([_("a new lot £%(cost)d", cost=costs[0])] + [
        _("replacing lot %(lot)d £%(cost)d", lot=i, cost=costs[i]) for i in range(1, len(costs))])


def _sur_note(sur: int) -> str:
    if not sur:
        return ""
    return _(", each including the £%(sur)d surcharge (£1 per other worker next to the card)", sur=sur)


# what _phase2 names, made once: it is called for every action of every dry run
_EARNING, _ACTIVATING, _USING, _PASSING = N_("earning money"), N_("activating a card"), N_("using a building"), \
    N_("passing")


def _phase2(phase: int, what: str) -> None:
    if phase != 2:
        raise Illegal(N_("%(what)s is a Phase II action: write 'phase2' before it to go to Phase II"), what=_(what))


def _no_worker(a: int) -> str:
    if 0 <= a < 12:
        return _("you have no worker in space %(space)s", space=SPACE_NAME[a])
    return _("there is no such space")


# ---------------------------------------------------------------- turn order and rounds


def _after(st: State, seat: int, ps: tuple, spaces, market, mtok, discard) -> State:
    n = st.n
    for i in range(1, n + 1):
        s = (seat + i) % n
        if not ps[s].passed:
            return new_state(n, st.seed, st.round, st.first, s, st.decks, st.events, st.cur_event,
                             st.cur_token, st.fut_token, st.supply, discard, st.reshuffles, market,
                             mtok, spaces, ps, (), False)
    return _end_round(st, ps, market, mtok, discard)


class _Tokens:
    """The token supply while a round is set up (§7)."""

    __slots__ = ("seed", "supply", "discard", "reshuffles", "pos")

    def __init__(self, seed, supply, discard, reshuffles):
        self.seed, self.supply, self.discard, self.reshuffles = seed, list(supply), list(discard), reshuffles
        self.pos = 0

    def draw(self) -> int:
        if not self.supply:
            if not self.discard:
                return 0
            pile = sorted(self.discard)
            self.reshuffles += 1
            rng_for(self.seed, "tokens", self.reshuffles).shuffle(pile)
            self.supply, self.discard = pile, []
        return self.supply.pop(0)


def _end_round(st: State, ps: tuple, market, mtok, discard) -> State:
    # §3.4: market cards and the current event leave, with their tokens
    pile = list(discard)
    for toks in mtok:
        pile.extend(toks)
    if st.cur_token:
        pile.append(st.cur_token)
    discard = tuple(sorted(pile))
    first = (st.first + 1) % st.n
    if st.round >= ROUNDS:
        return new_state(st.n, st.seed, st.round, first, -1, st.decks, st.events, -1, 0, st.fut_token,
                         st.supply, discard, st.reshuffles, (-1,) * 9, ((),) * 9, ((),) * 12, ps, (),
                         True)
    return _start_round(st.n, st.seed, st.round + 1, first, st.decks, st.events, st.fut_token,
                        st.supply, discard, st.reshuffles, ps)


def _start_round(n, seed, rnd, first, decks, events, fut_token, supply, discard, reshuffles, ps) -> State:
    tokens = _Tokens(seed, supply, discard, reshuffles)
    # 1. income; 4-5. workers back, Phase I, flags and cards upright again (§3.2, §3.4)
    ps = tuple(new_player(p.money + p.res, p.spy, p.vp, p.res, 1, False, False, p.owned, 0, 0,
                          p.owned, p.bonus, p.lots, (False,) * len(p.lots), p.techs, False, False,
                          False, p.kept, (0,) * len(p.lots))
               for p in ps)
    # 2. event
    cur_event, cur_token = events[0], fut_token
    events = events[1:]
    fut_token = tokens.draw() if events and events[0] == EV_WINDFALL else 0
    # 3. market, then its tokens in positions 1..9
    di = "ABC".index(PERIOD_OF_ROUND[rnd])
    deck = decks[di]
    market = tuple(deck[:9]) + (-1,) * max(0, 9 - len(deck))
    decks = decks[:di] + (deck[9:],) + decks[di + 1:]
    mtok = []
    for c in market:
        k = 0 if c < 0 else NTOKENS_PER_CARD[c]
        if k == "p":
            k = n - 1
        got = [t for t in (tokens.draw() for _ in range(k)) if t]
        mtok.append(tuple(sorted(got)))
    return new_state(n, seed, rnd, first, first, decks, events, cur_event, cur_token, fut_token,
                     tuple(tokens.supply), tuple(sorted(tokens.discard)), tokens.reshuffles, market,
                     tuple(mtok), ((),) * 12, ps, (), False)


def initial_state(n: int, seed: int) -> State:
    """Setup (§2) and the start of round 1 (§3.2), all chance from ``seed``."""
    decks = []
    for period in "ABC":
        d = list(DECK[period])
        rng_for(seed, "deck", period).shuffle(d)
        decks.append(tuple(d))
    events = list(EVENTS)
    rng_for(seed, "events").shuffle(events)
    supply = [value for value, count in TOKEN_COUNTS.items() for _ in range(count)]
    rng_for(seed, "tokens", 0).shuffle(supply)
    first = rng_for(seed, "first").randrange(n)
    return setup(n, seed, tuple(decks), tuple(events), tuple(supply), first)


def setup(n: int, seed: int, decks: tuple, events: tuple, supply: tuple, first: int) -> State:
    """Setup from given deck, event and token orders (§2 steps 4-8), then round 1."""
    tokens = _Tokens(seed, supply, (), 0)
    fut = tokens.draw() if events[0] == EV_WINDFALL else 0
    p0 = Player(8, 2, 0, RES_START, 1, False, False, 3, 0, 0, 3, BONUS_BOTH, (), (), (),
                False, False, False, ())
    return _start_round(n, seed, 1, first, decks, events, fut, tuple(tokens.supply),
                        tuple(tokens.discard), tokens.reshuffles, (p0,) * n)


# ---------------------------------------------------------------- legal moves


def _dfs(st: State, seat: int, base: tuple, out: list, emit_root: bool = True) -> None:
    """Add ``base`` and every legal completion of it, partial ones included
    (a partial move stops at a decision, which is then asked for).

    One dry run per complete move: the run takes the first choice of each
    decision it meets and records the others, tried afterwards from that
    point. Up to a decision the run is the same as one of the partial move
    that stops there, so it gives the same moves as running each partial
    move on its own (NeedDecision: emit it and try each choice), with fewer
    runs; legal_moves sorts them."""
    trail: list = []
    try:
        execute(st, seat, base, False, None, trail)
        complete = True
    except Illegal:
        complete = False
    if not trail:  # most runs meet no decision left open
        if complete:
            out.append(base)
        return
    head, ans = base[:6], base[6]
    for depth, (dtype, choices) in enumerate(trail):
        if depth or emit_root:
            out.append(head + (ans,))
        for c in choices[1:]:
            _dfs(st, seat, head + (ans + (dtype * 100 + c,),), out)
        ans = ans + (dtype * 100 + choices[0],)
    if complete:
        out.append(head + (ans,))


def _phase2_moves(st: State, seat: int, sw: int, out: list) -> None:
    p = st.ps[seat]
    spaces, market, mtok = st.spaces, st.market, st.mtok
    mine = []
    for s in range(12):
        if seat in spaces[s]:
            mine.append(s)
    has_lob = LOBBYING in p.techs and not p.lobused
    has_com = COMMERCE in p.techs and not p.comused
    for s in mine:
        cards = _cards_next_to(market, s)
        for q in cards or [0]:
            out.append((EARN, sw, s, q, 0, 0, ()))
        for q in cards:
            for lob in ((0, 1) if has_lob else (0,)):
                for com in ((0, 1, 2, 3) if has_com and mtok[q - 1] else (0,)):
                    _dfs(st, seat, (ACT, sw, s, q, lob, com, ()), out)
    for k, c in enumerate(p.lots):
        # the same conditions as the executor's: any other building would only raise Illegal
        if (USE_OPTS[c] and (not p.turned[k] or (TAYLORISM in p.techs and not p.tayused))
                and can_use(p, c)):
            _dfs(st, seat, (USE, sw, k + 1, 0, 0, 0, ()), out)
    if not p.evused:
        coms = (0, 1, 2, 3) if has_com and st.cur_event == EV_WINDFALL else (0,)
        ev: list = []
        for com in coms:
            _dfs(st, seat, (EVENT, sw, 0, 0, 0, com, ()), ev)
        out.extend(ev)
        if sw and st.cur_event != EV_LATE:
            # an event used in Phase I acts exactly as after the switch; only Late Placement
            # looks at the phase (§5.2), so the same choices serve without 'phase2'
            for m in ev:  # a loop: no generator to make at each call
                out.append((EVENT, 0) + m[2:])
    if not mine:
        out.append((PASS, sw, 0, 0, 0, 0, ()))


# a worker placed on each space: moves are immutable tuples, so the same ones serve every list
_PLACES = tuple((PLACE, 0, s, 0, 0, 0, ()) for s in range(12))


def legal_moves(st: State, seat: int) -> list:
    if st.over or seat != st.turn:
        return []
    c = st.cache
    if c is not None and c[0] == seat:
        return list(c[1])
    out: list = []
    if st.pending:
        _dfs(st, seat, (ANSWER, 0, 0, 0, 0, 0, ()), out, emit_root=False)
    else:
        p = st.ps[seat]
        if p.phase == 1:
            if p.active:
                market = st.market
                if min(market) >= 0:  # the usual case: every space open
                    out.extend(_PLACES)
                else:
                    out.extend([_PLACES[s] for s in open_spaces(market)])
            _phase2_moves(st, seat, 1, out)  # also the Phase I uses of the event
        else:
            _phase2_moves(st, seat, 0, out)
    out.sort()
    res = tuple(out)
    object.__setattr__(st, "cache", (seat, res, None))
    return out


def pass_on_answers(st: State, seat: int, mv: tuple, new: State) -> None:
    """Give ``new`` - ``st`` after the partial move ``mv``, waiting for its
    decision - its legal moves, taken from those of ``st`` when known.

    ``new`` differs from ``st`` only in ``pending``, which the executor reads
    only to merge an answer into the pending move, so an answer ``t`` runs in
    ``new`` exactly as the move ``mv`` completed with ``t`` runs in ``st``: the
    legal answers are the strict extensions of ``mv`` among the legal moves of
    ``st``, which sit right after ``mv`` in their sorted order."""
    c = st.cache
    if c is None or c[0] != seat:
        return
    moves = c[1]
    try:
        j = bisect_right(moves, mv)
    except Exception:
        return
    if not j or moves[j - 1] != mv:
        return  # not found by its order (an odd value equal to a move): search afresh
    head, ans = moves[j - 1][:6], moves[j - 1][6]
    k = len(ans)
    out = []
    for i in range(j, len(moves)):
        m = moves[i]
        if m[:6] != head or m[6][:k] != ans:
            break
        out.append((ANSWER, 0, 0, 0, 0, 0, m[6][k:]))
    object.__setattr__(new, "cache", (seat, tuple(out), None))


def is_legal(st: State, seat: int, mv) -> bool:
    """``mv in legal_set(st, seat)``, mostly without building the set: the cached
    moves are sorted, so a binary search finds a legal move. Anything else (an
    illegal or odd move) gets the set's own answer, TypeError included."""
    c = st.cache
    if c is not None and c[0] == seat:
        moves = c[1]
        try:
            i = bisect_left(moves, mv)
            if i < len(moves) and moves[i] == mv:
                return True
        except Exception:
            pass
    return mv in legal_set(st, seat)


def legal_set(st: State, seat: int) -> frozenset:
    c = st.cache
    if c is None or c[0] != seat:
        legal_moves(st, seat)
        c = st.cache
    if c is None or c[0] != seat:
        return frozenset()
    if c[2] is None:
        c = (seat, c[1], frozenset(c[1]))
        object.__setattr__(st, "cache", c)
    return c[2]


# ---------------------------------------------------------------- scoring (§13)

TECH_FORMULA = ("Automation", "Capitalization", "Commerce", "Crane", "Engineering", "Lobbying", "Taylorism")


def technique_points(p: Player, tech: int) -> int:
    name = CARDS[tech].name
    if name == "Automation":
        raw = p.spy
    elif name == "Capitalization":
        raw = p.money // 2
    elif name == "Commerce":
        raw = len(p.kept)
    elif name == "Crane":
        raw = len(p.lots)
    elif name == "Engineering":
        raw = sum(VP[c] for c in p.lots if IS_FACTORY[c])
    elif name == "Lobbying":
        raw = p.res
    else:  # Taylorism
        raw = p.owned
    return min(TECH_CAP, raw)


def score_breakdown(p: Player) -> dict:
    out = {"track": p.vp, "buildings": sum(VP[c] for c in p.lots)}
    for t in sorted(p.techs, key=lambda c: CARDS[c].name):
        out[CARDS[t].name] = technique_points(p, t)
    out["total"] = sum(out.values())
    return out
