"""Moves in words: what a move did (``describe``, past tense,
without its subject), the same move as an option (``explain``, imperative),
and the "Your move." block that lists a seat's options with what ends the
step (``help_text``). Card names, costs and bonuses come from the data.
Every sentence is in the current language; English is the source."""
from __future__ import annotations

import textwrap

from .cardtext import short_cost
from .data import CARD_OF, CARDS, FIN, GEN, KRY, RESOURCES, SLOT_KINDS
from .i18n import N_, _, amount, card_name, english, ngettext, res_of, word
from .notation import format_move
from .rules import (
    DRAFT, OVER, PLAN, PROD, Move, State, build_need, legal, numbered_draft, play, site_index, target_site,
)

WIDTH = 78
_TOKEN = {"fin": "financier", "gen": "general"}
# "a financier", "an energy": an English article, the bare word in the other languages
_ARTICLE = {"materials": N_("a materials"), "energy": N_("an energy"), "science": N_("a science"),
            "gold": N_("a gold"), "exploration": N_("an exploration"), "krystallium": N_("a krystallium"),
            "financier": N_("a financier"), "general": N_("a general")}


def _name(cid: str) -> str:
    return card_name(cid)


def _inst_name(inst: str) -> str:
    return _("your empire card") if inst == "E" else card_name(inst)


def _a(w: str) -> str:
    if w in _ARTICLE:
        return _(_ARTICLE[w])
    return ("an " if w[0] in "aeiouAEIOU" else "a ") + w


def _count(k: int, w: str) -> str:
    if english():
        return f"{k} {w}" + ("s" if k != 1 and w in ("financier", "general", "cube") else "")
    if w == "financier":
        return ngettext("%(num)d financier", "%(num)d financiers", k)
    if w == "general":
        return ngettext("%(num)d general", "%(num)d generals", k)
    if w == "Krystallium":
        return ngettext("%(num)d Krystallium", "%(num)d Krystallium", k)
    return amount(k, w)


def _cubes(counts) -> str:
    return ", ".join(ngettext("%(num)d %(res)s cube", "%(num)d %(res)s cubes", k, res=res_of(RESOURCES[r]))
                     for r, k in enumerate(counts) if k)


def _and(parts: list[str]) -> str:
    """``a, b and c``."""
    if len(parts) > 1:
        return _("%(list)s and %(last)s", list=", ".join(parts[:-1]), last=parts[-1])
    return parts[0]


def _cost(cost) -> str:
    """``2 materials and 1 Krystallium slot``: what a card still needs."""
    parts = []
    for k, n in enumerate(cost):
        if n <= 0:
            continue
        if k == KRY:
            parts.append(ngettext("%(num)d Krystallium", "%(num)d Krystallium", n))
        elif k in (FIN, GEN):
            parts.append(_count(n, SLOT_KINDS[k]))
        else:
            parts.append(amount(n, SLOT_KINDS[k]))
    if not parts:
        return _("nothing")
    return _and(parts)


def _bonus(inst: str) -> str:
    b = CARD_OF[inst].bonus
    got = [_count(k, w) for k, w in zip(b, ("Krystallium", "financier", "general")) if k]
    return f" (+{', +'.join(got)})" if got else ""


def _completed(st: State, seat: int, m: Move) -> str:
    """", completing it (+1 financier)" when the move completes the card it names."""
    if m.kind in ("pick", "keep", "swap", "done", "auto", "sci", "c", "discard") or m.target in ("", "E"):
        return ""
    after = play(st, seat, m).players[seat]
    new = [i for i in after.built if i not in st.players[seat].built]
    return _(", completing it%(bonus)s", bonus=_bonus(new[0])) if new else ""


def _left_on(st: State, seat: int, inst: str) -> str:
    """What a card under construction still needs, e.g. "2 energy"."""
    s = target_site(st.players[seat], inst, st.phase)
    cost = CARD_OF[inst].cost
    return _cost(tuple(cost[k] - s.filled[k] for k in range(8)) if s else cost)


_STEP = {"materials": N_("the materials step"), "energy": N_("the energy step"),
         "science": N_("the science step"), "gold": N_("the gold step"), "exploration": N_("the exploration step")}


def _step_word(st: State) -> str:
    if st.phase == PROD:
        return _(_STEP[RESOURCES[st.step]])
    return _("planning") if st.n > 1 else _("planning cycle %(cycle)s", cycle="AB"[st.step])


# ---------------------------------------------------------------- describe


def describe(st: State, seat: int, m: Move) -> str:
    """What ``m`` did, read from the state before it."""
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        return _("picked %(card)s", card=_name(m.card))
    if k == "keep":
        return _("kept %(card)s of the five revealed cards (the other four are discarded)", card=_name(m.card))
    if k == "swap":
        return _("discarded %(a)s and %(b)s from the hand and revealed five cards", a=_name(m.card),
                 b=_name(m.target))
    if k == "c":
        if any(i.split("#")[0] == m.card for i in p.early):
            return _("confirmed the construction of %(card)s, already used by an earlier move", card=_name(m.card))
        return _("started constructing %(card)s (it needs %(cost)s)", card=_name(m.card),
                 cost=_cost(CARDS[m.card].cost))
    if k == "r":
        res = res_of(RESOURCES[CARDS[m.card].recycle])
        if m.target == "E":
            return _("recycled %(card)s for 1 %(res)s cube, put on the empire card", card=_name(m.card), res=res)
        if m.target:
            return _("recycled %(card)s for 1 %(res)s cube, put on %(target)s", card=_name(m.card), res=res,
                     target=_inst_name(m.target)) + _completed(st, seat, m)
        return _("recycled %(card)s for 1 %(res)s cube", card=_name(m.card), res=res)
    if k == "place":
        res = res_of(RESOURCES[m.res])
        if not p.cubes[m.res]:
            return _("agreed to the %(res)s cube that went onto the empire card by itself", res=res)
        if m.target == "E":
            if p.ecubes == 4:
                return _("put 1 %(res)s cube on the empire card (5 cubes there: +1 Krystallium)", res=res)
            return _("put 1 %(res)s cube on the empire card", res=res)
        return _("put 1 %(res)s cube on %(target)s", res=res, target=_inst_name(m.target)) + _completed(st, seat, m)
    if k == "kry":
        return (_("put 1 Krystallium on %(target)s in %(slot)s slot", target=_inst_name(m.target),
                  slot=_a(SLOT_KINDS[m.res])) + _completed(st, seat, m))
    if k in ("fin", "gen"):
        return (_("put %(token)s on %(target)s", token=_a(_TOKEN[k]), target=_inst_name(m.target))
                + _completed(st, seat, m))
    if k == "discard":
        s = target_site(p, m.target, st.phase)
        lost = _cost(s.filled) if s and site_index(p, m.target) >= 0 else _("nothing")
        res = res_of(RESOURCES[CARD_OF[m.target].recycle])
        return _("discarded %(card)s from construction, losing %(lost)s, and put 1 %(res)s cube on the empire card",
                 card=_inst_name(m.target), lost=lost, res=res)
    if k == "build":
        return _("completed %(card)s at once for %(paid)s", card=_inst_name(m.target),
                 paid=_paid(st, seat, m.target)) + _bonus(m.target)
    if k == "sci":
        return _("took %(token)s as science supremacy reward", token=_a(m.card))
    rest = _defaults(st, seat) if k == "auto" or any(p.cubes) or p.sci else ""
    if rest:
        return _("ended %(step)s (%(rest)s)", step=_step_word(st), rest=rest)
    return _("ended %(step)s", step=_step_word(st))


def _paid(st: State, seat: int, target: str) -> str:
    p = st.players[seat]
    s = target_site(p, target, st.phase)
    kn, fn, gn, use = build_need(p, s)
    parts = [x for x in (_cubes(use), _count(kn, "Krystallium") if kn else "",
                         _count(fn, "financier") if fn else "", _count(gn, "general") if gn else "") if x]
    if not parts:
        return _("nothing more")
    return _and(parts)


def _defaults(st: State, seat: int) -> str:
    """What ``auto`` (or ``done`` with cubes waiting) decided by default."""
    p = st.players[seat]
    bits = []
    if st.phase == PLAN and p.draft:
        bits.append(_("constructed %(cards)s", cards=", ".join(card_name(i) for i in p.draft)))
    if any(p.cubes):
        bits.append(_("placed %(cubes)s by default", cubes=_cubes(p.cubes)))
    if p.sci:
        bits.append(_("took the default science reward"))
    return "; ".join(bits)


# ---------------------------------------------------------------- explain


def explain(st: State, seat: int, m: Move) -> str:
    """``m`` as an option, in the imperative."""
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        c = CARDS[m.card]
        return _("take %(card)s (%(type)s; costs %(cost)s) into your draft area", card=_name(m.card),
                 type=word(c.type), cost=_cost(c.cost))
    if k == "keep":
        return _("keep %(card)s of the five revealed cards; the other four are discarded", card=_name(m.card))
    if k == "swap":
        return _("discard %(a)s and %(b)s from your hand, reveal the top five cards of the deck and keep one of them",
                 a=_name(m.card), b=_name(m.target))
    if k == "c":
        if any(i.split("#")[0] == m.card for i in p.early):
            return _("write the C still owed for %(card)s, which an earlier move already used", card=_name(m.card))
        return _("construct %(card)s: it goes to your construction area, needing %(cost)s", card=_name(m.card),
                 cost=_cost(CARDS[m.card].cost))
    if k == "r":
        res = res_of(RESOURCES[CARDS[m.card].recycle])
        if m.target == "E":
            return _("recycle %(card)s: discard it for 1 %(res)s cube, put on your empire card (>E)",
                     card=_name(m.card), res=res)
        if m.target:
            return _("recycle %(card)s: discard it for 1 %(res)s cube, put on %(target)s (>%(ref)s)",
                     card=_name(m.card), res=res, target=_inst_name(m.target),
                     ref=m.target.split('#')[0]) + _completed(st, seat, m)
        return _("recycle %(card)s: discard it for 1 %(res)s cube, to place with a later move (or by default)",
                 card=_name(m.card), res=res)
    if k == "place":
        res = res_of(RESOURCES[m.res])
        if not p.cubes[m.res]:
            return _("name the %(res)s cube already put on your empire card by itself (changes nothing)", res=res)
        if m.target == "E":
            return _("put 1 %(res)s cube on your empire card (E); 5 cubes there make 1 Krystallium", res=res)
        return (_("put 1 %(res)s cube on %(target)s, which still needs %(left)s", res=res,
                  target=_inst_name(m.target), left=_left_on(st, seat, m.target)) + _completed(st, seat, m))
    if k == "kry":
        letter = "mesgxk"[m.res]
        if p.kry == 1:
            return (_("put your Krystallium on %(target)s in %(slot)s slot (:%(letter)s)",
                      target=_inst_name(m.target), slot=_a(SLOT_KINDS[m.res]), letter=letter)
                    + _completed(st, seat, m))
        return (ngettext("put 1 of your %(num)d Krystallium on %(target)s in %(slot)s slot (:%(letter)s)",
                         "put 1 of your %(num)d Krystallium on %(target)s in %(slot)s slot (:%(letter)s)", p.kry,
                         target=_inst_name(m.target), slot=_a(SLOT_KINDS[m.res]), letter=letter)
                + _completed(st, seat, m))
    if k in ("fin", "gen"):
        return (_("put %(token)s from your pool on %(target)s", token=_a(_TOKEN[k]), target=_inst_name(m.target))
                + _completed(st, seat, m))
    if k == "discard":
        s = target_site(p, m.target, st.phase)
        on = _cost(s.filled) if s and site_index(p, m.target) >= 0 else None
        res = res_of(RESOURCES[CARD_OF[m.target].recycle])
        lose = _("nothing is on it") if on is None or on == _("nothing") else _("lose what is on it (%(on)s)", on=on)
        return _("discard %(card)s from construction: %(lose)s; put 1 %(res)s cube on your empire card",
                 card=_inst_name(m.target), lose=lose, res=res)
    if k == "build":
        return _("complete %(card)s at once: pay %(paid)s", card=_inst_name(m.target),
                 paid=_paid(st, seat, m.target)) + _bonus(m.target)
    if k == "sci":
        return _("take %(token)s as your science supremacy reward", token=_a(m.card))
    if k == "auto":
        bits = []
        if st.phase == PLAN and p.draft:
            bits.append(_("construct every card not decided"))
        if any(p.cubes):
            bits.append(_("put each cube on the card it completes soonest (else on E)"))
        if p.sci:
            bits.append(_("take the science reward of more empty slots"))
        bits.append(_("then end %(step)s", step=_step_word(st)))
        return _("let the defaults finish: %(what)s", what=", ".join(bits))
    if any(p.cubes):
        return _("end %(step)s; cubes not placed go where auto puts them", step=_step_word(st))
    return _("end %(step)s", step=_step_word(st))


# ---------------------------------------------------------------- the "Your move." block

# how a kind of move is written, and what it does, when there are too many to list
_SHAPES = (
    ("pick", "pick <card>", N_("take a card of your hand (its number or name) into your draft area")),
    ("keep", "keep <card>", N_("keep one of the five revealed cards")),
    ("c", "C <card>", N_("construct a card: into your construction area, slots empty")),
    ("r", "R <card>>T", N_("recycle a card for its cube, put on card T or on E (your empire)")),
    ("place", "m>T e>T s>T g>T x>T", N_("put a cube of that resource on card T or on E")),
    ("kry", "K>T:m (or :e :s :g :x :k)", N_("put a Krystallium in that kind of slot of T")),
    ("fin", "F>T", N_("put a financier from your pool on T")),
    ("gen", "G>T", N_("put a general from your pool on T (a capital G, or gen; a small g is a gold cube)")),
    ("build", "build T", N_("complete T at once with your cubes, the rest in Krystallium")),
    ("sci", "sci F / sci G", N_("take a financier or a general (science supremacy)")),
    ("swap", "swap <a>,<b>", N_("discard two cards of your hand, reveal five, keep one")),
    ("discard", "discard T", N_("discard T from construction (its cube goes on E)")),
    ("done", "done", N_("end this step")),
    ("auto", "auto", N_("defaults for everything left, then done")),
)
LIMIT = 25  # lines of the "Your move." block

REFERENCE = (
    "Notation (one move a line, or several separated by ';'):",
    "  pick <card>        draft pick (card id, name prefix or hand position)",
    "  C <card>           construct a drafted card",
    "  R <card>>T         recycle a drafted card, its cube onto T",
    "  m>T e>T s>T g>T x>T  place a cube of materials, energy, science, gold",
    "                     or exploration; T = card under construction, E = empire",
    "  K>T:s              place Krystallium on T in a slot kind: m e s g x,",
    "                     or k for a Krystallium slot",
    "  F>T / G>T          place a financier / a general (a capital G, or gen;",
    "                     a small g is always a gold cube)",
    "  discard T          discard a card under construction (all on it is lost)",
    "  build T            pay all the rest of T at once",
    "  sci F / sci G      science supremacy: financier or general",
    "  swap <a>,<b>       solo: discard two cards, reveal five...",
    "  keep <c>           ...and keep one of the five",
    "  done               end your step (unplaced cubes are placed by auto)",
    "  auto               defaults for everything left, then done",
)
# the reference in the other languages: the notation column stays, the words are translated
_REFERENCE_T = (
    ("", N_("Notation (one move a line, or several separated by ';'):")),
    ("pick <card>", N_("draft pick (card id, name prefix or hand position)")),
    ("C <card>", N_("construct a drafted card")),
    ("R <card>>T", N_("recycle a drafted card, its cube onto T")),
    ("m>T e>T s>T g>T x>T", N_("place a cube of materials, energy, science, gold or exploration;"
                               " T = card under construction, E = empire")),
    ("K>T:s", N_("place Krystallium on T in a slot kind: m e s g x, or k for a Krystallium slot")),
    ("F>T / G>T", N_("place a financier / a general (a capital G, or gen; a small g is always a gold cube)")),
    ("discard T", N_("discard a card under construction (all on it is lost)")),
    ("build T", N_("pay all the rest of T at once")),
    ("sci F / sci G", N_("science supremacy: financier or general")),
    ("swap <a>,<b>", N_("solo: discard two cards, reveal five...")),
    ("keep <c>", N_("...and keep one of the five")),
    ("done", N_("end your step (unplaced cubes are placed by auto)")),
    ("auto", N_("defaults for everything left, then done")),
)


def reference() -> tuple[str, ...]:
    """The notation reference in the current language (English: REFERENCE)."""
    if english():
        return REFERENCE
    out = [_(_REFERENCE_T[0][1])]
    for shape, what in _REFERENCE_T[1:]:
        # the longest notation (m>T e>T s>T g>T x>T) fills its column: a space always parts it from the words
        out += textwrap.wrap(_(what), WIDTH, initial_indent=f"  {shape:<19} ", subsequent_indent=" " * 22,
                             break_on_hyphens=False)
    return tuple(out)


def _wrap(text: str, indent: str = "", sub: str = "    ") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=sub, break_on_hyphens=False)


def step_end(st: State, seat: int | None) -> str:
    """What ends the current decision point, and what comes next."""
    if st.phase == OVER:
        return _("The game is over.")
    nxt_round = _("the game ends and is scored") if st.round == 4 else _("round %(round)d begins",
                                                                          round=st.round + 1)
    if st.phase == DRAFT:
        last = 7 if st.n == 2 else 6
        if st.step < last:
            if st.round % 2 == 1:
                after = _("then the hands pass left (to the next player)")
            else:
                after = _("then the hands pass right (to the previous player)")
        elif st.n == 2:
            after = _("then planning begins (the 3 cards left in each hand are discarded)")
        else:
            after = _("then planning begins")
        return (_("This pick ends when every player has picked; the picks are revealed together, %(after)s.",
                  after=after) + (_(" After 7 picks comes planning.") if st.step < last else ""))
    if st.phase == PLAN:
        if st.n == 1:
            if st.step == 0:
                return _("Cycle A ends once every card is C or R and no cube waits: no done is needed then, unless"
                         " you hold Krystallium or a token you could still place (send done when you are"
                         " through); then planning cycle B.")
            return _("Cycle B ends once every card is C or R and no cube waits: no done is needed then, unless"
                     " you hold Krystallium or a token you could still place (send done when you are through);"
                     " then the five production steps.")
        return _("You are finished once every card is C or R and no cube waits: no done is needed then, unless you"
                 " hold Krystallium or a token you could still place (send done when you are through). Planning"
                 " ends when every player is finished; then the five production steps (materials, energy,"
                 " science, gold, exploration).")
    if st.step < 4:
        nxt = _(_STEP[RESOURCES[st.step + 1]])
    else:
        nxt = _("round %(round)d ends and %(next)s", round=st.round, next=nxt_round)
    return _("%(step)s ends when every player is through: done or auto, or nothing left to place (no done"
             " needed then); then %(next)s.", step=_(_STEP_CAP[RESOURCES[st.step]]), next=nxt)


def _item(notation: str, text: str) -> list[str]:
    """``  notation - text``, wrapped, a move never split over two lines."""
    return [x.replace("\0", " ") for x in _wrap(notation.replace(" ", "\0") + " - " + text, "  ")]


def _plan_lines(st: State, seat: int) -> list[str]:
    """One line per card still to decide: its C and R, what each gives."""
    p = st.players[seat]
    out = []
    for n, inst in enumerate(numbered_draft(st, seat), 1):
        if inst not in p.draft:
            continue
        c = CARD_OF[inst]
        out += _item(f"C {n} / R {n}>T", _("%(card)s: C needs %(cost)s, R gives 1 %(res)s cube",
                                           card=card_name(inst), cost=short_cost(c.cost),
                                           res=res_of(RESOURCES[c.recycle])))
    if out:
        out += _wrap(_("C constructs (into your construction area), R recycles; T: a card under construction"
                       " (its name or number) or E, your empire card; R alone leaves the cube to place later."),
                     "  ")
    return out


def _place_lines(st: State, seat: int, group: list[Move]) -> list[str]:
    p = st.players[seat]
    out = []
    for r in range(5):
        on = [m for m in group if m.res == r]
        if not on:
            continue
        cards = [format_move(st, seat, m).split(">", 1)[1] for m in on if m.target != "E"]
        if not p.cubes[r]:
            out += _item(f"{'mesgx'[r]}>E", explain(st, seat, on[0]))
            continue
        if cards:
            where = _("a card: %(cards)s; or E (your empire card)", cards=", ".join(cards))
        else:
            where = _("E (your empire card)")
        k = p.cubes[r]
        out += _item(f"{'mesgx'[r]}>T", ngettext("put your %(res)s cube on %(where)s",
                                                 "put 1 of your %(num)d %(res)s cubes on %(where)s", k,
                                                 res=res_of(RESOURCES[r]), where=where))
    return out


def help_text(st: State, seat: int | None) -> str:
    """The seat's options in words, at most ``LIMIT`` lines; the notation
    reference for a seat with nothing to decide (and for HELP)."""
    end = _wrap(step_end(st, seat), "", "")
    if seat is None or not 0 <= seat < st.n or not legal(st, seat):
        return "\n".join(reference() + tuple(end))
    p = st.players[seat]
    by_kind: dict[str, list[Move]] = {}
    for m in legal(st, seat):
        by_kind.setdefault(m.kind, []).append(m)
    blocks: list[tuple[list[str], list[str]]] = []  # (every move in words, the short form)
    shapes = {k: (shape, what) for k, shape, what in _SHAPES}
    if st.phase == PLAN and ("c" in by_kind or "r" in by_kind) and p.draft:
        full = _plan_lines(st, seat)
        short = _item("C <card> / R <card>>T", _("construct a card (slots empty), or recycle it for its"
                                                 " cube, put on card T or E (your empire card)"))
        blocks.append((full, short))
        early = [m for m in by_kind.get("c", []) if any(i.split("#")[0] == m.card for i in p.early)]
        for m in early:
            blocks.append((_item(format_move(st, seat, m), explain(st, seat, m)),) * 2)
        done_kinds = {"c", "r"}
    else:
        done_kinds = set()
    for kind, shape, what in _SHAPES:
        group = by_kind.get(kind)
        if not group or kind in done_kinds:
            continue
        if kind == "discard" and st.phase == PLAN:  # a drafted card's discard is legal (§6) but no option
            group = [m for m in group if site_index(p, m.target) >= 0] or group
        firsts = sorted(group, key=lambda m: (m.target in ("", "E"), m))
        many = (ngettext("%(num)d choice, e.g.", "%(num)d choices, e.g.", len(group)) if len(group) > 1
                else _("1 choice:"))
        short = _item(shape, f"{_(what)}; {many} {format_move(st, seat, firsts[0])}")
        if kind == "place":
            full = _place_lines(st, seat, group)
        elif kind == "discard" or (kind == "swap" and len(group) > 3):
            full = short
        else:
            full = [x for m in firsts for x in _item(format_move(st, seat, m), explain(st, seat, m))]
        blocks.append((full, short if len(short) <= len(full) else full))
    head = [_("Write one move a line, or several separated by ';'. Your options:")]

    chosen = [b[0] for b in blocks]
    # shorten the longest blocks until the whole fits
    while len(head) + sum(map(len, chosen)) + len(end) > LIMIT:
        gains = [(len(c) - len(b[1]), i) for i, (c, b) in enumerate(zip(chosen, blocks))]
        gain, i = max(gains)
        if gain <= 0:
            break
        chosen[i] = blocks[i][1]
    return "\n".join(head + [x for c in chosen for x in c] + end)


_STEP_CAP = {"materials": N_("The materials step"), "energy": N_("The energy step"),
             "science": N_("The science step"), "gold": N_("The gold step"),
             "exploration": N_("The exploration step")}
