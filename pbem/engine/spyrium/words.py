"""Spyrium moves in words: describe_move (what a move did, past tense), explain_move
(the same move as an option, imperative), the question a move waiting for a choice
asks, the price of every choice of a decision (or why it cannot be taken), and
cards() for the CARD command. Numbers come from data.py (cards.csv) and from the
executor in rules.py, never typed twice."""
from __future__ import annotations

import textwrap

from ..base import Card
from .i18n import (
    N_, _, card_label, card_name, joined, later, ngettext, say, shown, template, template_plural, tr_card_text,
    tr_summary,
)
from .data import (
    BONUS_CASH, BONUS_FIRST_AT, BONUS_SECOND_AT, SHARED_SYMBOL_OFF, TOKEN_COUNTS,
    AUTOMATION, BUILDING, CAPITALIZATION, CARDS, CHARACTER, COMMERCE, CRANE, EFFECT, ENGINEERING,
    EV_COUNTRY, EV_HONOURS, EV_LATE, EV_OVERTIME, EV_RECRUIT, EV_SALE, EV_WINDFALL, EVENT_SUMMARY,
    EFFECT_SUMMARY, IS_FACTORY, IS_MINE, KEPT_CAP, KIND, MAX_WORKERS, NTOKENS_PER_CARD,
    PRICE, QUARTERS_GAIN, RES_TOP, SPACE_NAME, SPACES, SYM, TECHNIQUE, USE_OPTS,
)
from .rules import (
    FLAT_VP, PAYS_TOKEN, Illegal, NeedDecision, execute, is_open, legal_moves, lot_price, use_needs_kept,
    workers_next_to,
)
from .state import (
    ACT, ANSWER, BONUS_CASH_AT_20, BONUS_WORKER_AT_20, D_BONUS, D_BUILDING, D_LOT, D_OPT, D_RES, D_RESOURCE,
    D_SPACE, D_TOKEN, EARN, EVENT, PASS, PLACE, USE, State,
)
from .writing import answer_word, format_move, question_kept

SYM_WORDS = ("mine", "factory", "research")


def _s(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _card(c: int) -> str:
    return card_label(CARDS[c].label)


# The words of a pending decision are kept as data (i18n.later: a message and its values, a card as
# {"card": label}, notation as {"notation": text}): a view keeps them, the same in every language,
# and each renderer words them in its reader's language (i18n.say). The rest of this module says
# them at once.


def _card_kept(c: int) -> dict:
    return {"card": CARDS[c].label}


def _at_kept(st: State, q: int) -> dict:
    """'the Mine £5 (5)': a market card with its position (a technique goes without 'the')."""
    c = st.market[q - 1]
    if KIND[c] == TECHNIQUE:
        return later._("%(card)s (%(pos)d)", card=_card_kept(c), pos=q)
    return later._("the %(card)s (%(pos)d)", card=_card_kept(c), pos=q)


def _at(st: State, q: int) -> str:
    return say(_at_kept(st, q))


def _beside_kept(st: State, s: int) -> dict:
    cards = [_at_kept(st, q) for q in SPACES[s] if st.market[q - 1] >= 0]
    if not cards:
        return later._("next to no card")
    if len(cards) == 1:
        return later._("next to %(card)s", card=cards[0])
    return later._("between %(card)s and %(other)s", card=cards[0], other=cards[1])


def _beside(st: State, s: int) -> str:
    return say(_beside_kept(st, s))


# ---------------------------------------------------------------- what a move chooses

class _Run:
    """One move taken apart: its head (kind, switch, a, b, Lobbying, Commerce) and
    every choice made in it, forced ones included (dtype -> value), read by a dry run."""

    def __init__(self, st: State, seat: int, mv: tuple) -> None:
        kind, sw, a, b, lob, com, ans = mv
        self.answered = kind == ANSWER
        self.pending_ans = st.pending[6] if st.pending else ()
        if kind == ANSWER and st.pending:
            kind, sw, a, b, lob, com, prev = st.pending
            ans = prev + ans
        self.kind, self.sw, self.a, self.b, self.lob, self.com = kind, sw, a, b, lob, com
        self.ans = ans
        self.choice: dict[int, int] = {}
        forced: list = []
        self.next = None  # the decision still to come (a partial move)
        try:
            execute(st, seat, mv, False, forced)
        except NeedDecision as nd:
            self.next = nd
        except Illegal:
            pass
        for code in ans:
            self.choice.setdefault(code // 100, code % 100)
        for dtype, v in forced:
            self.choice.setdefault(dtype, v)


# ---------------------------------------------------------------- phrases


class _Say:
    """The phrases of one move in one tense: past (describe) or imperative (explain).
    Every phrase is one message per tense (word order differs between languages)."""

    def __init__(self, st: State, seat: int, mv: tuple, past: bool) -> None:
        self.st, self.seat, self.past = st, seat, past
        self.p = st.ps[seat]
        self.r = _Run(st, seat, mv)

    def t(self, past: str, imp: str, /, **values) -> str:
        return _(past if self.past else imp, **values)

    # -- §9 bonus tiles and §8 residence, as they follow a gain
    def vp(self, vp_before: int, gain: int, first: str | None = None) -> list[str]:
        out = [first or self.t(N_("gained %(vp)d VP"), N_("gain %(vp)d VP"), vp=gain)]
        after = vp_before + gain
        p = self.p
        if vp_before < BONUS_FIRST_AT <= after:
            if after >= BONUS_SECOND_AT:
                out.append(self.t(N_("passed %(first)d and %(second)d VP: both bonus tiles (a worker and £%(cash)d)"), N_("pass %(first)d and %(second)d VP: both bonus tiles (a worker and £%(cash)d)"),
                                  first=BONUS_FIRST_AT, second=BONUS_SECOND_AT, cash=BONUS_CASH))
            else:
                c = self.r.choice.get(D_BONUS)
                if c is None:
                    out.append(self.t(N_("reached %(first)d VP (bonus tile still to choose)"), N_("reach %(first)d VP (a bonus tile)"), first=BONUS_FIRST_AT))
                elif c == 0:
                    out.append(self.t(N_("took the worker bonus tile at %(first)d VP (a new active worker)"), N_("take the worker bonus tile at %(first)d VP (a new active worker)"),
                                      first=BONUS_FIRST_AT))
                else:
                    out.append(self.t(N_("took the £%(cash)d bonus tile at %(first)d VP"), N_("take the £%(cash)d bonus tile at %(first)d VP"),
                                      cash=BONUS_CASH, first=BONUS_FIRST_AT))
        elif vp_before < BONUS_SECOND_AT <= after and p.bonus in (BONUS_WORKER_AT_20, BONUS_CASH_AT_20):
            if p.bonus == BONUS_WORKER_AT_20:
                out.append(self.t(N_("reached %(second)d VP: the worker bonus tile"), N_("reach %(second)d VP: the worker bonus tile"), second=BONUS_SECOND_AT))
            else:
                out.append(self.t(N_("reached %(second)d VP: the £%(cash)d bonus tile"), N_("reach %(second)d VP: the £%(cash)d bonus tile"), second=BONUS_SECOND_AT,
                                  cash=BONUS_CASH))
        return out

    def residence(self, vp_before: int) -> list[str]:
        c = self.r.choice.get(D_RES)
        res = self.p.res
        if c is None:
            return [self.t(N_("a residence action still to choose"), N_("take a residence action"))]
        if c == 0:
            return [self.t(N_("advanced on the residence track from %(old)d to %(new)d (£%(new)d income a round)"), N_("advance on the residence track from %(old)d to %(new)d (£%(new)d income a round)"),
                           old=res, new=res + 1)]
        return [self.t(N_("scored the residence (%(vp)d VP)"), N_("score the residence (%(vp)d VP)"), vp=res)] \
            + self.vp(vp_before, res)[1:]

    # -- one move
    def text(self, head: bool = True) -> str:
        r, p, st = self.r, self.p, self.st
        body = self.body()
        if r.sw and head:
            if self.past:
                body = _("went to Phase II and %(action)s", action=body)
            elif p.active:
                body = ngettext("go to Phase II, ending your Phase I (your %(num)d active worker can no longer go "
                                "to the market), and %(action)s",
                                "go to Phase II, ending your Phase I (your %(num)d active workers can no longer go "
                                "to the market), and %(action)s", p.active, action=body)
            else:
                body = _("go to Phase II (this ends your Phase I) and %(action)s", action=body)
        if r.next is not None and not self.past:
            body = _("%(action)s; then %(question)s: %(choices)s", action=body,
                     question=say(question_kept(r.next.dtype)), choices=choices_line(st, self.seat, _full(r)))
        return body

    def body(self) -> str:
        r = self.r
        kind = r.kind
        if kind == PLACE:
            return self.t(N_("placed a worker in %(space)s, %(where)s"), N_("place a worker in %(space)s, %(where)s (free)"),
                          space=SPACE_NAME[r.a], where=_beside(self.st, r.a))
        if kind == EARN:
            return self.earn()
        if kind == ACT:
            return self.act()
        if kind == USE:
            return self.use()
        if kind == EVENT:
            return self.event()
        if kind == PASS:
            left = self.p.active
            if r.sw and left:
                if self.past:
                    return ngettext("passed, leaving %(num)d active worker unused for this round",
                                    "passed, leaving %(num)d active workers unused for this round", left)
                return ngettext("pass (%(num)d active worker of yours stay unused); you take no more turns this round",
                                "pass (%(num)d active workers of yours stay unused); you take no more turns this round",
                                left)
            return self.t(N_("passed for this round"), N_("pass; you take no more turns this round"))
        return self.t(N_("played a move"), N_("play a move"))

    def earn(self) -> str:
        r, st, p = self.r, self.st, self.p
        space = SPACE_NAME[r.a]
        cap = 2 if CAPITALIZATION in p.techs else 0
        if r.b == 0:
            out = self.t(N_("took their worker back from %(space)s, earning £%(gain)d (no card is next to it)"), N_("take your worker back from %(space)s, earning £%(gain)d (no card is next to it)"),
                         space=space, gain=cap)
        else:
            gain = workers_next_to(st.spaces, r.b) - 1 + cap
            out = self.t(N_("took their worker back from %(space)s, earning £%(gain)d from %(card)s, "
                         "£1 per other worker beside it"), N_("take your worker back from %(space)s, earning £%(gain)d from %(card)s, "
                         "£1 per other worker beside it"), space=space, gain=gain, card=_at(st, r.b))
        if cap:
            out = _("%(action)s, +£2 for %(capitalization)s", action=out, capitalization=card_name("Capitalization"))
        return out

    def kept(self) -> str:
        return self.t(N_("kept the token (%(commerce)s)"), N_("keep the token (%(commerce)s)"),
                      commerce=card_name("Commerce"))

    def act(self) -> str:
        r, st, p = self.r, self.st, self.p
        card = st.market[r.b - 1]
        label = _card(card)
        space = SPACE_NAME[r.a]
        sur_full = workers_next_to(st.spaces, r.b) - 1
        sur = 0 if r.lob else sur_full
        kind = KIND[card]
        eff = EFFECT[card]
        toks = st.mtok[r.b - 1]
        bits: list[str] = []
        if r.lob:
            bits.append(self.t(N_("used %(lobbying)s (no £%(sur)d surcharge)"), N_("use %(lobbying)s (no £%(sur)d surcharge)"),
                               lobbying=card_name("Lobbying"), sur=sur_full))
        t = r.choice.get(D_TOKEN) if kind == CHARACTER else (toks[0] if toks else None)
        v = (r.com or t) if t else None
        if r.com and t:
            bits.append(self.t(N_("declared the token %(token)d as %(value)d (%(commerce)s)"), N_("declare the token %(token)d as %(value)d (%(commerce)s)"),
                               token=t, value=r.com, commerce=card_name("Commerce")))
        vp0 = p.vp
        if kind == CHARACTER:
            head = self.t(N_("activated the %(card)s (%(pos)d) with their worker from %(space)s"), N_("activate the %(card)s (%(pos)d) with your worker from %(space)s"),
                          card=label, pos=r.b, space=space)
            pay = sur
            if NTOKENS_PER_CARD[card]:
                if t is None:
                    bits.append(self.t(N_("token still to choose"), N_("take a token")))
                else:
                    bits.append(self.t(N_("took token %(token)d"), N_("take token %(token)d"), token=t))
                    if eff in PAYS_TOKEN:
                        pay += v
            token_part = bool(eff in PAYS_TOKEN and v)
            if pay:
                if token_part and sur:
                    bits.append(self.t(N_("paid £%(pay)d (£%(token)d for the token, £%(sur)d surcharge)"), N_("pay £%(pay)d (£%(token)d for the token, £%(sur)d surcharge)"),
                                       pay=pay, token=v, sur=sur))
                elif token_part:
                    bits.append(self.t(N_("paid £%(pay)d for the token"), N_("pay £%(pay)d for the token"), pay=pay))
                else:
                    bits.append(self.t(N_("paid £%(pay)d surcharge"), N_("pay £%(pay)d surcharge"), pay=pay))
            elif not self.past and not r.lob:
                bits.append(_("no surcharge to pay"))
            if eff in ("apprentice_1spy_3vp", "engineer_1spy_4vp"):
                bits.append(self.t(N_("paid %(spy)d S"), N_("pay %(spy)d S"), spy=1))
                bits += self.vp(vp0, 3 if eff == "apprentice_1spy_3vp" else 4)
            elif eff == "geologist_2spy":
                bits.append(self.t(N_("gained %(spy)d S"), N_("gain %(spy)d S"), spy=2))
            elif eff == "miner_token_spyrium" and v:
                bits.append(self.t(N_("gained %(spy)d S"), N_("gain %(spy)d S"), spy=v))
            elif eff == "bureaucrat_token_vp" and v:
                bits += self.vp(vp0, v)
            elif eff == "architect_token_residence" and v:
                bits += self.residence(vp0)
            elif eff in FLAT_VP and (v or eff == "advisor_3vp"):
                bits += self.vp(vp0, FLAT_VP[eff])
            if t and COMMERCE in p.techs:
                bits.append(self.kept() if len(p.kept) < KEPT_CAP else _("the token is discarded (7 already kept)"))
            return head + ": " + ", ".join(bits)
        if kind == TECHNIQUE:
            total = PRICE[card] + sur
            cost = (_("£%(total)d (£%(price)d + £%(sur)d surcharge)", total=total, price=PRICE[card], sur=sur) if sur
                    else f"£{total}")
            out = self.t(N_("bought %(card)s (%(pos)d) with their worker from %(space)s for %(cost)s"), N_("buy %(card)s (%(pos)d) with your worker from %(space)s for %(cost)s"),
                         card=label, pos=r.b, space=space, cost=cost)
            out += ": " + ", ".join(bits) if bits else ""
            return out if self.past else out + f" - {tr_summary(EFFECT_SUMMARY[eff])}"
        # a building
        lot = r.choice.get(D_LOT)
        if lot is None:
            head = self.t(N_("built the %(card)s (%(pos)d) with their worker from %(space)s"), N_("build the %(card)s (%(pos)d) with your worker from %(space)s"),
                          card=label, pos=r.b, space=space)
            if self.past:
                bits.append(_("lot still to choose"))
            return head + (": " + ", ".join(bits) if bits else "")
        price, lot_cost = lot_price(p.lots, p.techs, card, lot)
        total = price + lot_cost + sur
        parts = [_("£%(price)d price", price=PRICE[card]) if price == PRICE[card]
                 else _("£%(price)d price after £%(off)d off for a shared symbol", price=price, off=SHARED_SYMBOL_OFF)]
        if lot == 0:
            where = _("in a new lot %(lot)d", lot=len(p.lots) + 1)
            if lot_cost:
                parts.append(_("£%(cost)d for the lot", cost=lot_cost))
        else:
            where = self.t(N_("in lot %(lot)d, replacing their %(card)s"), N_("in lot %(lot)d, replacing your %(card)s"),
                           lot=lot, card=_card(p.lots[lot - 1]))
        if sur:
            parts.append(_("£%(sur)d surcharge", sur=sur))
        head = self.t(N_("built the %(card)s (%(pos)d) with their worker from %(space)s %(where)s for £%(total)d"), N_("build the %(card)s (%(pos)d) with your worker from %(space)s %(where)s for £%(total)d"),
                      card=label, pos=r.b, space=space, where=where, total=total)
        head += (f" ({', '.join(parts)})" if len(parts) > 1 else "")
        if t:
            if IS_MINE[card]:
                bits.append(self.t(N_("gained %(spy)d S from its token"), N_("gain %(spy)d S from its token"), spy=v))
            else:
                bits += self.vp(vp0, v, self.t(N_("gained %(vp)d VP from its token"), N_("gain %(vp)d VP from its token"),
                                               vp=v))
            if COMMERCE in p.techs and len(p.kept) < KEPT_CAP:
                bits.append(self.kept())
        if EFFECT[card] in QUARTERS_GAIN:
            k = min(QUARTERS_GAIN[EFFECT[card]], MAX_WORKERS - p.owned)
            bits.append((ngettext("gained %(num)d new worker", "gained %(num)d new workers", k) if self.past
                         else ngettext("gain %(num)d new worker", "gain %(num)d new workers", k)) if k
                        else _("no new worker (7 owned)"))
        elif EFFECT[card] == "residence_on_build":
            bits += self.residence(vp0)
        return head + (": " + ", ".join(bits) if bits else "")

    def building_use(self, lot: int, opt: int | None, again: str) -> str:
        p = self.p
        card = p.lots[lot - 1]
        label = _card(card)
        if again == "taylorism":
            out = self.t(N_("used their %(card)s in lot %(lot)d again with %(taylorism)s"), N_("use your %(card)s in lot %(lot)d again with %(taylorism)s"), card=label, lot=lot,
                         taylorism=card_name("Taylorism"))
        elif again:
            out = self.t(N_("used their %(card)s in lot %(lot)d again"), N_("use your %(card)s in lot %(lot)d again"),
                         card=label, lot=lot)
        else:
            out = self.t(N_("used their %(card)s in lot %(lot)d"), N_("use your %(card)s in lot %(lot)d"), card=label, lot=lot)
        if opt is None:
            return _("%(action)s (option still to choose)", action=out) if self.past else out
        w, s, gs, gv = USE_OPTS[card][opt - 1]
        if IS_MINE[card] and AUTOMATION in p.techs:
            w = 0
        if len(USE_OPTS[card]) > 1:
            out = _("%(action)s, option %(option)d", action=out, option=opt)
        bits = []
        if w:
            bits.append(ngettext("put %(num)d active worker onto it", "put %(num)d active workers onto it", w))
        if s:
            bits.append(self.t(N_("paid %(spy)d S"), N_("pay %(spy)d S"), spy=s))
        if gs:
            bits.append(self.t(N_("gained %(spy)d S"), N_("gain %(spy)d S"), spy=gs))
        g = gv + (w if IS_FACTORY[card] and ENGINEERING in p.techs else 0)
        if g:
            first = None
            if g != gv:
                first = self.t(N_("gained %(vp)d VP (%(base)d + %(extra)d for %(engineering)s)"), N_("gain %(vp)d VP (%(base)d + %(extra)d for %(engineering)s)"), vp=g, base=gv, extra=w,
                               engineering=card_name("Engineering"))
            bits += self.vp(p.vp, g, first)
        return out + ": " + ", ".join(bits)

    def use(self) -> str:
        r, p = self.r, self.p
        return self.building_use(r.a, r.choice.get(D_OPT), "taylorism" if p.turned[r.a - 1] else "")

    def event(self) -> str:
        r, st, p = self.r, self.st, self.p
        ev = st.cur_event
        name = card_name(CARDS[ev].name)
        use = self.t(N_("used the event %(event)s"), N_("use the event %(event)s"), event=name)
        c = r.choice
        if ev == EV_WINDFALL:
            v = r.com or st.cur_token
            if r.com:
                use = self.t(N_("used the event %(event)s (token %(token)d declared as %(value)d with %(commerce)s)"), N_("use the event %(event)s (token %(token)d declared as %(value)d with %(commerce)s)"),
                             event=name, token=st.cur_token, value=r.com, commerce=card_name("Commerce"))
            res = c.get(D_RESOURCE)
            if res is None:
                return use + ": " + self.t(N_("£, S or VP (%(value)d) still to choose"), N_("take %(value)d £, S or VP"),
                                           value=v)
            if res == 2:
                return use + ": " + ", ".join(self.vp(p.vp, v))
            if res == 0:
                return use + ": " + self.t(N_("took £%(value)d"), N_("take £%(value)d"), value=v)
            return use + ": " + self.t(N_("took %(value)d S"), N_("take %(value)d S"), value=v)
        if ev == EV_COUNTRY:
            return use + ": " + ", ".join([self.t(N_("paid %(spy)d S"), N_("pay %(spy)d S"), spy=1)] + self.residence(p.vp))
        if ev in (EV_HONOURS, EV_SALE):
            o = c.get(D_OPT)
            if o is None:
                return _("%(action)s (option still to choose)", action=use) if self.past else use
            if ev == EV_HONOURS:
                return use + ": " + ", ".join([self.t(N_("paid £%(pay)d"), N_("pay £%(pay)d"), pay=3 if o == 1 else 6)]
                                              + self.vp(p.vp, 3 if o == 1 else 5))
            return use + ": " + self.t(N_("sold %(spy)d S for £%(money)d"), N_("sell %(spy)d S for £%(money)d"),
                                       spy=1 if o == 1 else 3, money=3 if o == 1 else 6)
        if ev == EV_OVERTIME:
            k = c.get(D_BUILDING)
            if k is None:
                return use + ": " + self.t(N_("paid £1 to use a turned building again (building still to choose)"), N_("pay £1 to use a turned building again"))
            return use + ": " + self.t(N_("paid £1 and %(use)s"), N_("pay £1 and %(use)s"),
                                       use=self.building_use(k, c.get(D_OPT), "again"))
        if ev == EV_RECRUIT:
            return use + ": " + self.t(N_("paid £%(pay)d (£1 per worker owned) for a new active worker"), N_("pay £%(pay)d (£1 per worker owned) for a new active worker"), pay=p.owned)
        if ev == EV_LATE:
            s = c.get(D_SPACE)
            if s is None:
                return use + ": " + self.t(N_("placed an active worker on the market (space still to choose)"), N_("place an active worker on the market"))
            return use + ": " + self.t(N_("placed an active worker in %(space)s, %(where)s"), N_("place an active worker in %(space)s, %(where)s"),
                                       space=SPACE_NAME[s], where=_beside(st, s))
        return use


def _full(r: _Run) -> tuple:
    if r.answered:  # a pending state: the answers are merged by the executor
        return (ANSWER, 0, 0, 0, 0, 0, r.ans[len(r.pending_ans):])
    return (r.kind, r.sw, r.a, r.b, r.lob, r.com, r.ans)


def describe_move(st: State, seat: int, mv: tuple) -> str:
    return _Say(st, seat, mv, True).text()


def explain_move(st: State, seat: int, mv: tuple) -> str:
    return _Say(st, seat, mv, False).text()


def explain_action(st: State, seat: int, mv: tuple) -> str:
    """explain_move without "go to Phase II ... and": for a list under one such line."""
    return _Say(st, seat, mv, False).text(head=False)


# ---------------------------------------------------------------- the pending question


ANSWER_MOVE = (ANSWER, 0, 0, 0, 0, 0, ())  # "the pending move, no answer yet"


def _pending_dtype(st: State) -> int | None:
    """The decision the pending move of the seat to move waits for (None: none is left)."""
    try:
        execute(st, st.turn, ANSWER_MOVE, False)
    except NeedDecision as nd:
        return nd.dtype
    except Illegal:
        pass
    return None


def pending_kept(st: State, prices: list | None = None) -> tuple:
    """The pending decision, kept to be worded in the reader's language: (the question without its
    choices, "say the residence action for 'act 2 1-2'"; the whole question, with the choices
    ``prices`` (choice_prices) gives). Empty texts when nothing is pending."""
    if not st.pending:
        return "", ""
    dtype = _pending_dtype(st)
    if dtype is None:
        return later._(FINISH), later._(FINISH)
    question, move = question_kept(dtype), {"notation": format_move(st, st.turn, st.pending)}
    if prices is None:
        prices = choice_prices(st, st.turn, ANSWER_MOVE)
    return (later._(SAY_FOR, question=question, move=move),
            later._(SAY_FOR_CHOICES, question=question, move=move, choices=_choices_kept(prices)))


def pending_ask(st: State) -> str:
    """The pending question without its choices: "say the residence action for 'act 2 1-2'"."""
    if not st.pending:
        return ""
    dtype = _pending_dtype(st)
    if dtype is None:
        return _(FINISH)
    return say(later._(SAY_FOR, question=question_kept(dtype), move={"notation": format_move(st, st.turn, st.pending)}))


SAY_FOR = template(N_("say %(question)s for '%(move)s'"))
SAY_FOR_CHOICES = template(N_("say %(question)s for '%(move)s': %(choices)s"))
FINISH = N_("finish your move")


def pending_question(st: State) -> str:
    """One line: what the pending decision of the seat to move asks."""
    return say(pending_kept(st)[1])


# ---------------------------------------------------------------- the "Your move." block


def _item(notation: str, text: str) -> list[str]:
    return textwrap.wrap(f"- {notation}: {text}", 78, subsequent_indent="    ",
                         break_on_hyphens=False, break_long_words=False)


def options_help(st: State, seat: int) -> str:
    """The seat's options in words: one line group per kind of move, each
    with its price, then what ends the round. Used as the "Your move." block."""
    p = st.ps[seat]
    out: list[str] = []
    if st.pending:
        out += textwrap.wrap(_("You must now %(what)s. Reply with one of:", what=pending_ask(st)), 78)
        for w, t, ok in choice_prices(st, seat, (ANSWER, 0, 0, 0, 0, 0, ())):
            t = say(t).removeprefix("(").removesuffix(")")
            out += _item(shown(w), t if ok else _("not possible: %(why)s", why=t))
        return "\n".join(out) + "\n"
    moves = legal_moves(st, seat)
    if p.phase == 1:
        out.append(ngettext("You are in Phase I with £%(money)d, %(spy)d S, %(num)d active worker. You may:",
                            "You are in Phase I with £%(money)d, %(spy)d S, %(num)d active workers. You may:",
                            p.active, money=p.money, spy=p.spy))
    else:
        out.append(ngettext("You are in Phase II with £%(money)d, %(spy)d S, %(num)d active worker. You may:",
                            "You are in Phase II with £%(money)d, %(spy)d S, %(num)d active workers. You may:",
                            p.active, money=p.money, spy=p.spy))
    places = [m for m in moves if m[0] == PLACE]
    if places:
        names = " ".join(SPACE_NAME[m[2]] for m in places)
        who = _("your active worker") if p.active == 1 else ngettext("one of your %(num)d active worker",
                                                                    "one of your %(num)d active workers", p.active)
        out += _item(_("place <space>"), _("put %(who)s on the market, free; open spaces: %(spaces)s. "
                                           "Beside a card with n workers, it will pay £n surcharge or earn £n (the "
                                           "board shows n)", who=who, spaces=names))
    groups: dict = {}
    for m in moves:
        if m[0] == PLACE:
            continue
        key = (m[0], m[2], m[3]) if m[0] != EVENT else (EVENT, 0, 0)
        best = groups.get(key)
        # the plainest move of each group: without Lobbying or Commerce, fewest choices,
        # without 'phase2' where both exist (the event in Phase I)
        rank = (m[4], m[5], m[1] if m[0] == EVENT else 0, len(m[6]), m)
        if best is None or rank < best[0]:
            groups[key] = (rank, m)
    lob = any(m[4] for m in moves)
    com = any(m[5] for m in moves)
    phase2_said = False
    earns = [groups.pop(k)[1] for k in sorted(groups) if k[0] == EARN]
    for key in sorted(groups, key=lambda k: (k[0] == PASS, k[0] != EVENT, k)) + (["earn"] if earns else []):
        if key == "earn":
            m = earns[0]
            gains = []
            for e in earns:
                cap = 2 if CAPITALIZATION in p.techs else 0
                g = (workers_next_to(st.spaces, e[3]) - 1 if e[3] else 0) + cap
                gains.append(f"{format_move(st, seat, e).removeprefix('phase2 ')} £{g}")
            if CAPITALIZATION in p.techs:
                text = _("take a worker back from <space>, earning £1 per other worker beside the <card> you "
                         "name (+£2 with %(capitalization)s): %(moves)s", capitalization=card_name("Capitalization"),
                         moves=", ".join(gains))
            else:
                text = _("take a worker back from <space>, earning £1 per other worker beside the <card> you "
                         "name: %(moves)s", moves=", ".join(gains))
            out += _item(("phase2 " if m[1] else "") + _("earn <space> <card>"), text)
            continue
        m = groups[key][1]
        if m[1] and not phase2_said and not (m[0] == EVENT and p.phase == 1 and st.cur_event != EV_LATE):
            phase2_said = True
            if p.active:
                line = ngettext("- phase2 <action>: go to Phase II and at once take one of the actions below. "
                                "This ends your Phase I: your %(num)d active worker can no longer go to the market.",
                                "- phase2 <action>: go to Phase II and at once take one of the actions below. "
                                "This ends your Phase I: your %(num)d active workers can no longer go to the market.",
                                p.active)
            else:
                line = _("- phase2 <action>: go to Phase II and at once take one of the actions below. "
                         "This ends your Phase I.")
            out += textwrap.wrap(line, 78, subsequent_indent="    ")
        text = format_move(st, seat, m)
        out += _item(text, explain_action(st, seat, m) if m[1] and m[0] != EVENT else explain_move(st, seat, m))
    if lob:
        out += _item("lob", _("add it to an act move to skip its surcharge (%(lobbying)s, once a round)",
                              lobbying=card_name("Lobbying")))
    if com:
        out += _item("c1 c2 c3", _("add one to treat the token you use as that value (%(commerce)s, once a round)",
                                   commerce=card_name("Commerce")))
    out += textwrap.wrap(_("A choice you leave out is asked for afterwards. The round ends once every player "
                           "has passed; you pass in Phase II, with no worker on the market."), 78)
    if len(out) > 25:  # too long for a mail: the prices of later choices come with the question
        short = []
        for line in "\n".join(out).replace("\n    ", " ").split("\n"):
            then = _("; then ")
            if line.startswith("- ") and then in line:
                line = _("%(action)s (its choices are asked next)", action=line.split(then)[0])
            short += textwrap.wrap(line, 78, subsequent_indent="    ", break_on_hyphens=False,
                                   break_long_words=False)
        out = short
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the price of every choice


def why_not(st: State, seat: int, base: tuple, dtype: int, v: int) -> str:
    """The reason an option the player wrote cannot be taken, for the commonest cases."""
    return say(why_not_kept(st, seat, base, dtype, v))


def why_not_kept(st: State, seat: int, base: tuple, dtype: int, v: int):
    """why_not, kept to be worded in the reader's language ("" when it has no reason to give)."""
    p = st.ps[seat]
    if base[0] == ANSWER and st.pending:
        base = st.pending[:6]
    kind, a, b, lob, com = base[0], base[2], base[3], base[4], base[5]
    if dtype == D_RES and v == 0 and p.res >= RES_TOP:
        return later._("your residence is already on %(top)d, the top space", top=RES_TOP)
    if dtype == D_BONUS and v == 0 and p.owned >= MAX_WORKERS:
        return later.ngettext("you already own %(num)d worker", "you already own %(num)d workers", MAX_WORKERS)
    if kind == ACT and dtype in (D_LOT, D_TOKEN) and 1 <= b <= 9 and st.market[b - 1] >= 0:
        card = st.market[b - 1]
        sur = 0 if lob else max(0, workers_next_to(st.spaces, b) - 1)
        if dtype == D_LOT:
            return _why_not_lot(p, card, sur, v)
        return _why_not_token(p, card, st.mtok[b - 1], sur, com, v)
    if kind == EVENT and dtype == D_BUILDING:
        if not 1 <= v <= len(p.lots):
            return _no_lot(p, v)
        card = p.lots[v - 1]
        label = _card_kept(card)
        if not USE_OPTS[card]:
            return later._("the %(card)s in lot %(lot)d has no Phase II use", card=label, lot=v)
        if not p.turned[v - 1]:
            return later._("%(overtime)s uses a building again, and the %(card)s in lot %(lot)d "
                           "has not been used (turned) this round", overtime={"card": "Overtime"}, card=label, lot=v)
        if p.money < 1:
            return later._("%(overtime)s costs £1 and you have £%(money)d", overtime={"card": "Overtime"},
                           money=p.money)
        return later.ngettext("you cannot pay to use the %(card)s again: %(needs)s; you have %(num)d active and "
                              "%(spy)d S",
                              "you cannot pay to use the %(card)s again: %(needs)s; you have %(num)d active and "
                              "%(spy)d S",
                              p.active, card=label, needs=use_needs_kept(card, IS_MINE[card] and AUTOMATION in p.techs),
                              spy=p.spy)
    if dtype == D_SPACE and 0 <= v < 12 and not is_open(st.market, v):
        return later._("space %(space)s is closed: both cards next to it have left the market", space=SPACE_NAME[v])
    if dtype != D_OPT:
        return ""
    if kind == EVENT and st.cur_event == EV_HONOURS:
        return later._("%(event)s option %(option)d costs £%(price)d and you have £%(money)d",
                       event={"card": "Honours for Sale"}, option=v, price=3 if v == 1 else 6, money=p.money)
    if kind == EVENT and st.cur_event == EV_SALE:
        return later._("%(event)s option %(option)d needs %(need)d S and you have %(spy)d S",
                       event={"card": "Spyrium Sale"}, option=v, need=1 if v == 1 else 3, spy=p.spy)
    if kind == EVENT and st.cur_event == EV_OVERTIME:
        bld = [c % 100 for c in (st.pending[6] if base == st.pending[:6] else ()) if c // 100 == D_BUILDING]
        turned = [i + 1 for i, c in enumerate(p.lots) if p.turned[i] and USE_OPTS[c]]
        a = bld[0] if bld else (turned[0] if len(turned) == 1 else 0)
    if kind in (USE, EVENT) and 1 <= a <= len(p.lots):
        card = p.lots[a - 1]
        opts = USE_OPTS[card]
        if v > len(opts):
            return later._("the %(card)s has only one option", card=_card_kept(card))
        w, sp = opts[v - 1][:2]
        if IS_MINE[card] and AUTOMATION in p.techs:
            w = 0
        return later.ngettext("option %(option)d of the %(card)s needs %(num)d active worker and %(need)d S; "
                              "you have %(active)d and %(spy)d S",
                              "option %(option)d of the %(card)s needs %(num)d active workers and %(need)d S; "
                              "you have %(active)d and %(spy)d S", w, option=v, card=_card_kept(card),
                              need=sp, active=p.active, spy=p.spy)
    return ""


def _no_lot(p, v: int) -> dict:
    if not p.lots:
        return later._("you have no building yet")
    return later._("you have no building in lot %(lot)d (your lots are 1 to %(last)d)", lot=v, last=len(p.lots))


def _costs(price, lot, sur: int) -> list:
    parts = [price] + ([lot] if lot else [])
    if sur:
        parts.append(later.ngettext("£%(num)d surcharge for %(num)d other worker next to the card",
                                    "£%(num)d surcharge for %(num)d other workers next to the card", sur))
    return joined(", ", parts)


def _why_not_lot(p, card: int, sur: int, v: int):
    """Decision 8 (§6): why the building cannot go on a new lot / in place of lot ``v``."""
    if v > len(p.lots):
        return _no_lot(p, v)
    price, lot_cost = lot_price(p.lots, p.techs, card, v)
    total = price + lot_cost + sur
    if v == 0:
        n = len(p.lots)
        lot = ""
        if lot_cost:
            lot = later.ngettext("£%(cost)d for lot %(lot)d as you own %(num)d building",
                                 "£%(cost)d for lot %(lot)d as you own %(num)d buildings", n, cost=lot_cost, lot=n + 1)
            if CRANE in p.techs:
                lot = [lot, later._(", less £3 for %(crane)s", crane={"card": "Crane"})]
        return later._("a new lot costs £%(total)d in all (%(costs)s); you have £%(money)d", total=total,
                       costs=_costs(later._("price £%(price)d", price=price), lot, sur), money=p.money)
    old = _card_kept(p.lots[v - 1])
    if SYM[p.lots[v - 1]] & SYM[card]:
        pr = later._("price £%(price)d less £3 for a shared symbol", price=PRICE[card])
    else:
        pr = later._("price £%(price)d, as the %(card)s shares no symbol with it", price=price, card=old)
    return later._("replacing the %(card)s in lot %(lot)d costs £%(total)d in all (%(costs)s); you have £%(money)d",
                   card=old, lot=v, total=total, costs=_costs(pr, '', sur), money=p.money)


def _why_not_token(p, card: int, toks: tuple, sur: int, com: int, v: int):
    """Decision 6 (§11.1, §11.3): why the token showing ``v`` cannot be taken."""
    label = _card_kept(card)
    shown_values = joined(later._(" and "), [str(t) for t in sorted(set(toks))])
    if v not in toks:
        return (later._("the %(card)s carries no token showing %(value)d (its tokens show %(shown)s)", card=label,
                        value=v, shown=shown_values) if toks
                else later._("the %(card)s carries no token", card=label))
    if com and v == com:
        return later._("you declared c%(com)d, and a Commerce value must differ from the printed value of the "
                       "token you take, so you cannot take t%(value)d (the %(card)s's tokens show %(shown)s)",
                       com=com, value=v, card=label, shown=shown_values)
    if EFFECT[card] in PAYS_TOKEN:
        return later._("t%(value)d costs £%(total)d in all (%(costs)s); you have £%(money)d", value=v,
                       total=(com or v) + sur, costs=_costs(later._("£%(pay)d for the token", pay=com or v), '', sur),
                       money=p.money)
    return ""




def _opt_kept(card: int, o: int, techs: tuple) -> list:
    w, s, gs, gv = USE_OPTS[card][o - 1]
    if IS_MINE[card] and AUTOMATION in techs:
        w = 0
    pay = [x for x in (later.ngettext("%(num)d worker", "%(num)d workers", w) if w else "",
                       later._("%(spy)d S", spy=s) if s else "") if x]
    get = [x for x in (later._("%(spy)d S", spy=gs) if gs else "", later._("%(vp)d VP", vp=gv) if gv else "") if x]
    if IS_FACTORY[card] and ENGINEERING in techs and w:
        get.append(later._("+%(vp)d VP %(engineering)s", vp=w, engineering={"card": "Engineering"}))
    return [joined(" + ", pay) if pay else later._("nothing"), " -> ", joined(" + ", get)]


def choice_prices(st: State, seat: int, mv: tuple) -> list[tuple[str, object, bool]]:
    """For the partial move ``mv`` (or a pending state's ANSWER), every choice of the
    decision it waits for: (answer word, what it costs and gives, possible), the middle one
    kept to be worded (i18n.say). Choices the player cannot afford are listed too, with why,
    never hidden."""
    r = _Run(st, seat, mv)
    nd = r.next
    if nd is None:
        return []
    p = st.ps[seat]
    d = nd.dtype
    c = r.choice
    head = (r.kind, r.sw, r.a, r.b, r.lob, r.com)
    out: list[tuple[str, object, bool]] = []
    cands: list[int] = list(nd.choices)
    text: dict[int, object] = {}  # each choice's price, without its brackets
    priced: set[int] = set()  # the choices whose text begins with what they cost in all
    if d == D_TOKEN:
        card = st.market[r.b - 1]
        eff = EFFECT[card]
        sur = 0 if r.lob else workers_next_to(st.spaces, r.b) - 1
        cands = sorted(set(st.mtok[r.b - 1]) | set(nd.choices))
        for t in cands:
            v = r.com or t
            pay = sur + (v if eff in PAYS_TOKEN else 0)
            gain = {"bureaucrat_token_vp": later._(P_VP, vp=v), "miner_token_spyrium": later._(P_S, spy=v),
                    "architect_token_residence": later._(P_RES)}.get(eff) or later._(P_VP, vp=FLAT_VP.get(eff, 0))
            text[t] = later._(P_IN_ALL, pay=pay, what=gain) if pay else later._(P_FREE, what=gain)
            if pay:
                priced.add(t)
    elif d == D_LOT:
        card = st.market[r.b - 1]
        sur = 0 if r.lob else workers_next_to(st.spaces, r.b) - 1
        cands = list(range(len(p.lots) + 1))
        for lot in cands:
            price, lot_cost = lot_price(p.lots, p.techs, card, lot)
            where = (later._(P_NEW_LOT, lot=len(p.lots) + 1) if lot == 0
                     else later._(P_REPLACES, card=_card_kept(p.lots[lot - 1])))
            if lot and price < PRICE[card]:
                where = later._(P_OFF, what=where, off=SHARED_SYMBOL_OFF)
            text[lot] = later._(P_IN_ALL, pay=price + lot_cost + sur, what=where)
            priced.add(lot)
    elif d == D_RES:
        cands = [0, 1] if p.res < RES_TOP else [1]
        cands = sorted(set(cands) | set(nd.choices))
        text = {0: later._(P_RES_ADV, old=p.res, new=p.res + 1), 1: later._(P_PLUS_VP, vp=p.res)}
    elif d == D_BONUS:
        cands = [0, 1]
        text = {0: later._(P_WORKER), 1: "£5"}
    elif d == D_RESOURCE:
        v = r.com or st.cur_token
        text = {0: f"£{v}", 1: later._(P_S, spy=v), 2: later._(P_VP, vp=v)}
    elif d == D_OPT:
        if r.kind == EVENT and st.cur_event == EV_HONOURS:
            cands = [1, 2]
            text = {1: ["£3 -> ", later._(P_VP, vp=3)], 2: ["£6 -> ", later._(P_VP, vp=5)]}
        elif r.kind == EVENT and st.cur_event == EV_SALE:
            cands = [1, 2]
            text = {1: [later._(P_S, spy=1), " -> £3"], 2: [later._(P_S, spy=3), " -> £6"]}
        else:
            lot = c.get(D_BUILDING) if r.kind == EVENT else r.a
            card = p.lots[lot - 1]
            cands = list(range(1, len(USE_OPTS[card]) + 1))
            text = {o: _opt_kept(card, o, p.techs) for o in cands}
    elif d == D_BUILDING:
        cands = [i + 1 for i, b in enumerate(p.lots) if p.turned[i] and USE_OPTS[b]]
        text = {k: later._(P_AGAIN, card=_card_kept(p.lots[k - 1])) for k in cands}
    elif d == D_SPACE:
        text = {s: _beside_kept(st, s) for s in cands}
    for v in cands:
        ok = v in nd.choices
        t = text.get(v, "")
        if not ok:
            if d in (D_LOT, D_TOKEN) and v in priced:
                why = later._(P_HAVE, money=p.money)  # the price is in the text already
            else:
                why = why_not_kept(st, seat, head, d, v) or later._(P_NOT_NOW)
            t = ["(", t, "; ", why, ")"] if t else ["(", why, ")"]
        elif t:
            t = ["(", t, ")"]
        out.append((answer_word(d, v), t, ok))
    return out


def _choices_kept(prices: list) -> list:
    """'adv (residence 2 -> 3: ...) or score (+2 VP)'; choices out of reach are marked."""
    items = [[{"notation": w}, " ", t] if ok else later._("[not %(choice)s]", choice=[{"notation": w}, " ", t])
             for w, t, ok in prices]
    return joined(later._(" or "), items)


def choices_line(st: State, seat: int, mv: tuple) -> str:
    """'adv (residence 2 -> 3: ...) or score (+2 VP)'; choices out of reach are marked."""
    return say(_choices_kept(choice_prices(st, seat, mv)))


template_plural("%(num)d worker", "%(num)d workers")  # _opt_kept
template_plural("%(num)d active worker", "%(num)d active workers")  # rules.use_needs_kept
# the pieces of a choice's price (a view stored before views kept their words holds them in
# English: i18n.tr_pending reads them back)
P_VP = template(N_("%(vp)d VP"))
P_S = template(N_("%(spy)d S"))
P_RES = template(N_("a residence action"))
P_IN_ALL = template(N_("£%(pay)d in all: %(what)s"))
P_FREE = template(N_("free: %(what)s"))
P_NEW_LOT = template(N_("new lot %(lot)d"))
P_OFF = template(N_("%(what)s, £%(off)d off"))
P_REPLACES = template(N_("replaces the %(card)s"))
P_RES_ADV = template(N_("residence %(old)d -> %(new)d: £%(new)d income a round"))
P_PLUS_VP = template(N_("+%(vp)d VP"))
P_WORKER = template(N_("a new active worker"))
P_AGAIN = template(N_("the %(card)s again"))
P_HAVE = template(N_("you have £%(money)d"))
P_NOT_NOW = template(N_("not possible now"))
template(N_("%(spy)d S -> £%(money)d"))


# ---------------------------------------------------------------- cards (CARD <name>)

_KIND = {"character": N_("character card"), "building": N_("building"), "technique": N_("technique"),
         "event": N_("event card"), "start": N_("start card")}


def _card_text(ids: list[int]) -> str:
    c = CARDS[ids[0]]
    periods = sorted({CARDS[i].period for i in ids})
    copies = sum(CARDS[i].copies for i in ids)
    lines: list[str] = []
    if c.kind in (CHARACTER, BUILDING, TECHNIQUE):
        kind = _(_KIND[c.kind])
        lines.append(ngettext("%(kind)s, period %(periods)s, %(num)d copy in the box.",
                              "%(kind)s, period %(periods)s, %(num)d copies in the box.", copies,
                              kind=kind[:1].upper() + kind[1:], periods=_(" and ").join(periods)))
        if c.kind == BUILDING:
            sym = ", ".join(_(SYMBOL_WORD[x]) for x in c.symbols) or _("none")
            lines.append(_("Price £%(price)d; %(vp)d VP at the end of the game; type symbols: %(symbols)s.",
                           price=c.price, vp=c.vp, symbols=sym))
            lines += _("A new lot costs £1 per building you already own; replacing a building\n"
                       "that shares a symbol takes £%(off)d off the price.", off=SHARED_SYMBOL_OFF).split("\n")
        elif c.kind == TECHNIQUE:
            lines.append(_("Price £%(price)d; scores at most 7 VP at the end of the game.", price=c.price))
        else:
            lines.append(_("Price £%(price)d.", price=c.price))
        lines.append(_("Surcharge to activate it: £1 per other worker next to it on the market."))
    elif c.kind == "event":
        lines.append(_("Event card: every player may use the current event once a round."))
    text = tr_card_text(c.text)
    lines += textwrap.wrap(text, 76)
    summary = EFFECT_SUMMARY.get(c.effect) or EVENT_SUMMARY.get(c.effect)
    if summary:
        lines += textwrap.wrap(_("In short: %(summary)s", summary=tr_summary(summary)), 76)
    return "\n".join(line for line in lines if line)


SYMBOL_WORD = {"mine": N_("mine"), "factory": N_("factory"), "research": N_("research")}


def _card_list() -> tuple[Card, ...]:
    groups: dict[str, list[int]] = {}
    for c in CARDS:
        groups.setdefault(c.label, []).append(c.id)
    out = [Card(label, card_label(label), _(_KIND[CARDS[ids[0]].kind]) if CARDS[ids[0]].kind in _KIND
                else CARDS[ids[0]].kind, _card_text(ids))
           for label, ids in groups.items()]
    counts = _(", ").join(_("%(num)d of value %(value)d", num=n, value=v) for v, n in TOKEN_COUNTS.items())
    out.append(Card("token", _("Number token"), _("token"), ngettext(
        "%(num)d number token: %(counts)s, drawn face down.\n"
        "Token characters take (players - 1) tokens when dealt; a University and\n"
        "the Mine £7 take 1; Token Windfall takes 1. Activating such a card uses\n"
        "one token (t1, t2, t3 in a move); Commerce keeps it (c1-c3 declares a\n"
        "value once a round).",
        "%(num)d number tokens: %(counts)s, drawn face down.\n"
        "Token characters take (players - 1) tokens when dealt; a University and\n"
        "the Mine £7 take 1; Token Windfall takes 1. Activating such a card uses\n"
        "one token (t1, t2, t3 in a move); Commerce keeps it (c1-c3 declares a\n"
        "value once a round).", sum(TOKEN_COUNTS.values()), counts=counts)))
    out.append(Card("bonus", _("Bonus tiles"), _("tile"), ngettext(
        "Each player has two bonus tiles: a worker tile and a £%(cash)d tile.\n"
        "On reaching %(first)d VP, choose one (+worker or +%(cash)d in a move); the other is\n"
        "given on reaching %(second)d VP. With %(num)d worker the £%(cash)d tile is forced.",
        "Each player has two bonus tiles: a worker tile and a £%(cash)d tile.\n"
        "On reaching %(first)d VP, choose one (+worker or +%(cash)d in a move); the other is\n"
        "given on reaching %(second)d VP. With %(num)d workers the £%(cash)d tile is forced.",
        MAX_WORKERS, cash=BONUS_CASH, first=BONUS_FIRST_AT, second=BONUS_SECOND_AT)))
    return tuple(Card(c.key, c.name, c.kind, _wrap76(c.text)) for c in out)


def _wrap76(text: str) -> str:
    """A card's text in lines of at most 76 columns (a translation may run longer than the English)."""
    return "\n".join(w for line in text.split("\n") for w in (textwrap.wrap(line, 76) or [""]))


_CARD_LISTS: dict[str, tuple[Card, ...]] = {}


def card_list() -> tuple[Card, ...]:
    """cards() in the current language (made once per language)."""
    from ..i18n import current
    lang = current()
    if lang not in _CARD_LISTS:
        _CARD_LISTS[lang] = _card_list()
    return _CARD_LISTS[lang]


CARD_LIST = card_list()  # English
