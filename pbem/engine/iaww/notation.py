"""Move notation for It's a Wonderful World (docs/notation/iaww.md).

Cards are named by their id (``wind_turbines``), any unique prefix of the id
or of the English name (``wind``, ``mega dr``), the position in the list
shown (``3``), or an instance id (``icebreaker#2``) when two copies are under
construction. Resources are one letter: m e s g x (materials, energy,
science, gold, exploration); K is Krystallium, F a financier, G (a capital) or
gen a general. Each letter means one thing wherever it stands: a small g is
always gold, a capital G the general (as in the science choice, sci G, and the
rules' example G>center_of_the_earth), K always Krystallium (keep is written
out), E as a target always the empire. Capitals matter for that one letter
only, and only where a general can go: a capital G onto the empire card or a
card with no general slot is the small g a phone or caps lock made of it (no
card has both slots), so the notation stays readable in any case.
"""
from __future__ import annotations

import re

from ..base import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from .data import CARD_KEYS, CARD_OF, CARDS, FIN, GEN, KRY, RES_LETTER, card_key
from .i18n import N_, _, card_name
from .rules import DRAFT, PLAN, PROD, Move, Player, State, numbered_draft, numbered_sites, site_index

SLOT_LETTERS = ("m", "e", "s", "g", "x", "k")
_RES_WORDS = {
    "m": 0, "mat": 0, "material": 0, "materials": 0,
    "e": 1, "en": 1, "energy": 1,
    "s": 2, "sc": 2, "science": 2,
    "g": 3, "gold": 3, "go": 3,
    "x": 4, "ex": 4, "exp": 4, "exploration": 4,
}
_SLOT_WORDS = dict(_RES_WORDS, k=KRY, kr=KRY, krystallium=KRY, kry=KRY, f=FIN, fin=FIN, financier=FIN,
                   gen=GEN, general=GEN)
_KRY_WORDS = ("k", "kr", "kry", "krystallium")
_FIN_WORDS = ("f", "fin", "financier", "financiers")
_GEN_WORDS = ("gen", "general", "generals")
KEYWORDS = ("pick", "p", "c", "construct", "r", "recycle", "sci", "science", "swap", "keep", "discard",
            "build", "done", "auto", "place", "pass")


_WHERE_NAME = {"hand": N_("name a card from your hand"), "draft area": N_("name a card from your draft area"),
               "revealed cards": N_("name a card from your revealed cards")}
_WHERE_NUMBER = {
    "hand": N_("there is no card number %(i)d in your hand (it holds %(num)d)"),
    "draft area": N_("there is no card number %(i)d in your draft area (it holds %(num)d)"),
    "revealed cards": N_("there is no card number %(i)d in your revealed cards (it holds %(num)d)"),
}
_WHERE_DECIDED = {
    "hand": N_("card number %(i)d of your hand, %(card)s, is already decided"),
    "draft area": N_("card number %(i)d of your draft area, %(card)s, is already decided"),
    "revealed cards": N_("card number %(i)d of your revealed cards, %(card)s, is already decided"),
}


def cid(inst: str) -> str:

    return inst.split("#")[0]


# ---------------------------------------------------------------- formatting


def fmt_target(p: Player, target: str) -> str:
    """Bare card id when that is what the parser reads back, else the instance."""
    if target == "E":
        return "E"
    c = cid(target)
    on_sites = [s.inst for s in p.sites if cid(s.inst) == c]
    if on_sites:
        return c if on_sites == [target] else target
    first = next((i for i in p.draft if cid(i) == c), "")
    return c if first == target else target


def format_move(st: State, seat: int, m: Move) -> str:
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        return f"pick {m.card}"
    if k == "c":
        return f"C {m.card}"
    if k == "r":
        return f"R {m.card}" + (f">{fmt_target(p, m.target)}" if m.target else "")
    if k == "place":
        return f"{RES_LETTER[m.res]}>{fmt_target(p, m.target)}"
    if k == "kry":
        return f"K>{fmt_target(p, m.target)}:{SLOT_LETTERS[m.res]}"
    if k == "fin":
        return f"F>{fmt_target(p, m.target)}"
    if k == "gen":
        return f"gen>{fmt_target(p, m.target)}"
    if k in ("discard", "build"):
        return f"{k} {fmt_target(p, m.target)}"
    if k == "sci":
        return f"sci {m.card}"
    if k == "swap":
        return f"swap {m.card},{m.target}"
    if k == "keep":
        return f"keep {m.card}"
    return k


# ---------------------------------------------------------------- parsing


class _Err(Exception):
    def __init__(self, kind, reason):
        self.kind, self.reason = kind, reason


def _match_ids(text: str, pool: list[str]) -> list[str]:
    """Card ids matching ``text``: exact id or name first, then prefixes,
    searched in ``pool`` (distinct ids) and, failing that, in every card."""
    key = card_key(text)
    if not key:
        return []
    for ids in (pool, list(CARDS)):
        exact = [c for c in ids if key in CARD_KEYS[c]]
        if exact:
            return exact[:1]
        pref = [c for c in ids if CARD_KEYS[c][0].startswith(key) or CARD_KEYS[c][1].startswith(key)]
        if pref:
            return sorted(set(pref), key=pref.index)
    return []


def resolve_card(text: str, shown: tuple[str, ...], where: str, numbered: tuple[str, ...] | None = None,
                 live: tuple[str, ...] = ()) -> str:
    """A card id among the instances ``shown`` (hand, draft area, revealed
    cards), or any card id (the legality check then explains). A number
    counts in ``numbered`` (the list as shown on the board) when given; a
    card there that is no longer in ``live`` has been decided already."""
    text = text.strip()
    if not text:
        raise _Err("syntax", _(_WHERE_NAME[where]))
    order: list[str] = []
    for inst in shown:
        if cid(inst) not in order:
            order.append(cid(inst))
    if text.isascii() and text.isdigit():
        i = int(text)
        listed = shown if numbered is None else numbered
        if not 1 <= i <= len(listed):
            raise _Err("illegal", _(_WHERE_NUMBER[where], i=i, num=len(listed)))
        inst = listed[i - 1]
        if numbered is not None and inst not in live:
            raise _Err("illegal", _(_WHERE_DECIDED[where], i=i, card=card_name(inst)))
        return cid(inst)
    if "#" in text:
        text = text.split("#")[0]
    found = _match_ids(text, order)
    if not found:
        raise _Err("syntax", _("no card is called %(text)s", text=repr(text)))
    if len(found) > 1:
        names = ", ".join(found[:6])
        raise _Err("ambiguous", _("%(text)s could be %(names)s: write more of the name", text=repr(text), names=names))
    return found[0]


def resolve_target(text: str, p: Player, numbered: tuple[str, ...] | None = None) -> str:
    """A card under construction (instance id) or "E". A number counts in
    ``numbered`` (the construction area as shown on the board) when given."""
    text = text.strip()
    if text.lower() in ("e", "empire", "emp"):
        return "E"
    if not text:
        raise _Err("syntax", _("name a card under construction, or E for your empire card"))
    if text.isascii() and text.isdigit():
        i = int(text)
        listed = tuple(s.inst for s in p.sites) if numbered is None else numbered
        if not 1 <= i <= len(listed):
            raise _Err("illegal", _("there is no card number %(i)d in your construction area"
                                    " (it lists %(num)d)", i=i, num=len(listed)))
        inst = listed[i - 1]
        if site_index(p, inst) < 0:
            if inst in p.built:
                why = _("card number %(i)d of your construction area, %(card)s, is already completed",
                        i=i, card=card_name(inst))
            else:
                why = _("card number %(i)d of your construction area, %(card)s, is already discarded",
                        i=i, card=card_name(inst))
            raise _Err("illegal", why)
        return inst
    copy = ""
    if "#" in text:
        text, copy = text.split("#", 1)
        copy = copy.strip()
    site_ids = []
    for s in p.sites:
        if cid(s.inst) not in site_ids:
            site_ids.append(cid(s.inst))
    found = _match_ids(text, site_ids)
    if not found:
        raise _Err("syntax", _("no card is called %(text)s", text=repr(text)))
    if len(found) > 1:
        raise _Err("ambiguous", _("%(text)s could be %(names)s: write more of the name", text=repr(text),
                                  names=", ".join(found[:6])))
    c = found[0]
    insts = [s.inst for s in p.sites if cid(s.inst) == c]
    if copy:
        inst = f"{c}#{copy}"
        if inst not in CARD_OF:
            raise _Err("syntax", _("there is no copy %(inst)s", inst=inst))
        return inst
    if len(insts) > 1:
        raise _Err("ambiguous", _("you have %(num)d %(card)s under construction: say which, %(which)s",
                                  num=len(insts), card=card_name(c), which=_(" or ").join(insts)))
    if insts:
        return insts[0]
    for inst in p.draft:  # in planning, a drafted card not constructed yet (§6 two passes)
        if cid(inst) == c:
            return inst
    return f"{c}#1"


GENERAL = "G"  # the general, where a letter names a kind: G>card, sci G (a small g is gold)


def is_general(word: str) -> bool:
    """``word`` names a general: a capital G, or gen / general in any case. A small g is a gold cube."""
    return word == GENERAL or word.lower() in _GEN_WORDS


def takes_general(target: str) -> bool:
    """True when ``target`` (a card instance, or "E") has a general slot printed on it. No card has both
    a general slot and a gold slot (tests/engine/iaww/test_orders.py checks the data), so a capital G
    onto a card without one can never be a general: it is the small g (gold) that a phone, which
    writes the first letter of a line as a capital, or caps lock made of it."""
    return target != "E" and target in CARD_OF and CARD_OF[target].cost[GEN] > 0


def takes_gold(target: str) -> bool:
    """True when ``target`` is the empire card or a card with a gold slot printed on it."""
    return target == "E" or (target in CARD_OF and CARD_OF[target].cost[3] > 0)


def parse(st: State, seat: int, text: str) -> Move:
    """Text to a Move; raises _Err(kind, reason). Legality is checked by the caller.

    Case does not matter, except for one letter: a capital ``G`` is a general (``G>card``, ``sci G``)
    and a small ``g`` a gold cube (``g>card``, ``K>card:g``) -- where no general can go, a capital G is
    the small g a phone or caps lock wrote (:func:`takes_general`). Refusals quote the player's own
    words, as written."""
    p = st.players[seat]
    raw = " ".join(text.strip().replace("\u2019", "'").replace("->", ">").split())
    raw = re.sub(r"\s*([>:,])\s*", r"\1", raw)
    if raw.lower().startswith(("plan ", "step ")):  # words of the RULES.md §17 sketch, harmless
        raw = raw[5:]
    t = raw.lower()
    if not t:
        raise _Err("syntax", _("the move is empty"))
    head_raw, _x, rest_raw = raw.partition(" ")
    head, rest = head_raw.lower(), rest_raw.lower()
    if head == "x" and rest and ">" not in t:
        raise _Err("syntax", _("to discard a card under construction write discard %(rest)s; to place an"
                               " exploration cube write x>%(rest)s", rest=rest_raw))
    if "," in t and head != "swap":
        raise _Err("syntax", _("one move at a time: separate moves with ';' or new lines"))
    if t in ("done", "pass", "end"):
        return Move("done")
    if t == "auto":
        return Move("auto")
    if st.phase == DRAFT:
        card = raw
        if head in ("pick", "p"):
            card = rest_raw
        elif head in KEYWORDS or ">" in t:
            raise _Err("illegal", _("during the draft you can only pick a card from your hand (pick <card>)"))
        return Move("pick", resolve_card(card, p.hand, "hand"))
    where = "hand" if st.n == 1 else "draft area"
    drafted = numbered_draft(st, seat)
    live = p.draft + p.early
    sites = numbered_sites(st, seat)
    if head == "k" and ">" not in t:
        # K is Krystallium, and only that: keep is written out
        if p.shown:
            raise _Err("syntax", _("K is Krystallium; to keep one of the revealed cards write keep %(rest)s",
                                   rest=rest_raw))
        if rest:
            raise _Err("syntax", _("to place Krystallium write K>%(rest)s (with :m :e :s :g :x or :k for the"
                                   " slot kind)", rest=rest_raw))
    if head == "keep" and ">" not in t:
        return Move("keep", resolve_card(rest_raw, p.shown, "revealed cards"))
    if head == "swap":
        parts = [x for x in re.split(r"[, ]+", rest_raw) if x]
        if len(parts) != 2:
            raise _Err("syntax", _("a swap names two cards of your hand: swap <card>,<card>"))
        if st.n == 1 and p.decided:  # say so before the card numbers, some of which are decided
            raise _Err("illegal", _("swaps must come before your first C or R of this cycle"))
        a, b = sorted(resolve_card(x, p.draft, where, drafted, live) for x in parts)
        return Move("swap", a, b)
    if head in ("sci", "science"):
        if rest in _FIN_WORDS:
            return Move("sci", "financier")
        if is_general(rest_raw):
            return Move("sci", "general")
        if rest_raw == "g" or rest in ("gold", "go"):
            raise _Err("syntax", _("%(word)s is gold, and the science supremacy reward is a token: sci G (a capital"
                                   " G, the general) or sci F (the financier); also sci general, sci financier",
                                   word=repr(rest_raw)))
        raise _Err("syntax", _("the science supremacy choice is sci financier or sci general (sci F / sci G)"))
    if head in ("c", "construct"):
        return Move("c", resolve_card(rest_raw, p.draft, where, drafted, live))
    if head in ("r", "recycle"):
        card, _x, tgt = rest_raw.partition(">")
        c = resolve_card(card, p.draft, where, drafted, p.draft)
        return Move("r", c, resolve_target(tgt, p, sites) if tgt else "")
    if head in ("discard", "build"):
        return Move(head, "", resolve_target(rest_raw, p, sites))
    if head == "place" and rest:
        raw, t = rest_raw, rest
    if ">" in t:
        kind_raw, _x, tgt = raw.partition(">")
        kind_raw = kind_raw.strip()
        kind = kind_raw.lower()
        tgt, _x, slot_raw = tgt.partition(":")
        slot = slot_raw.lower()
        if kind in _KRY_WORDS:
            target = resolve_target(tgt, p, sites)
            if target == "E":
                raise _Err("illegal", _("Krystallium cannot go onto the empire card: it stays in your reserve"))
            if slot_raw:
                # a capital G slot is a gold slot: Krystallium never goes into a general slot (§8.3), so only
                # caps lock writes it (K>card:gen is refused as the general slot it names)
                if slot not in _SLOT_WORDS:
                    raise _Err("syntax", _("%(slot)s is not a slot kind: use m, e, s, g, x or k",
                                           slot=repr(slot_raw)))
                return Move("kry", "", target, _SLOT_WORDS[slot])
            return Move("kry", "", target, _kry_slot(p, target))
        if slot_raw:
            raise _Err("syntax", _("only Krystallium takes a slot kind (K>card:slot)"))
        if kind in _FIN_WORDS:
            return Move("fin", "", _token_target(tgt, p, sites))
        if is_general(kind_raw):
            target = resolve_target(tgt, p, sites)
            if kind_raw == GENERAL and not takes_general(target) and takes_gold(target):
                return Move("place", "", target, 3)  # no general can go there: the small g a phone capitalised
            return Move("gen", "", _token_target(tgt, p, sites))
        if kind in _RES_WORDS:
            return Move("place", "", resolve_target(tgt, p, sites), _RES_WORDS[kind])
        raise _Err("syntax", _("%(kind)s is not a resource: use m, e, s, g, x (cubes), K, F or G (a general)",
                               kind=repr(kind_raw)))
    if st.phase in (PLAN, PROD):
        # a bare target places the one kind of cube waiting to be placed
        kinds = [r for r in range(5) if p.cubes[r]]
        if head in KEYWORDS:
            raise _Err("syntax", _("%(head)s needs more: see the examples", head=repr(head_raw)))
        try:
            target = resolve_target(raw, p, sites)
        except _Err as e:
            if e.kind == "syntax":
                raise _Err("syntax", _("%(text)s is not a move I know", text=repr(text.strip()))) from None
            raise
        if not kinds:
            raise _Err("illegal", _("you have no cube to place"))
        if len(kinds) > 1:
            raise _Err("ambiguous", _("you have cubes of several kinds to place: say which, e.g. %(moves)s",
                                      moves=", ".join(f"{RES_LETTER[r]}>{raw}" for r in kinds)))
        return Move("place", "", target, kinds[0])
    raise _Err("syntax", _("%(text)s is not a move I know", text=repr(text.strip())))


def _token_target(tgt: str, p: Player, sites: tuple[str, ...] | None = None) -> str:
    target = resolve_target(tgt, p, sites)
    if target == "E":
        raise _Err("illegal", _("tokens stay in your pool; they can go only onto a character slot of a card"))
    return target


def _kry_slot(p: Player, target: str) -> int:
    """The slot kind when omitted: only if the card has one kind of empty
    slot Krystallium can fill (§8.3 [ruling])."""
    filled = next((s.filled for s in p.sites if s.inst == target), None)
    if filled is None and target in p.draft:
        filled = (0,) * 8  # in planning, a drafted card named before its C (§6 two passes)
    if filled is None or not p.kry:
        return 0  # not under construction, or no Krystallium: the legality check explains
    c = CARD_OF[target].cost
    kinds = [k for k in range(6) if filled[k] < c[k]]
    if len(kinds) == 1:
        return kinds[0]
    if not kinds:
        raise _Err("illegal", _("%(card)s has no empty slot Krystallium can fill", card=card_name(target)))
    raise _Err("ambiguous", _("%(card)s has empty slots of several kinds: say which, e.g. %(moves)s",
                              card=card_name(target),
                              moves=", ".join(f"K>{cid(target)}:{SLOT_LETTERS[k]}" for k in kinds)))


ERRORS = {"syntax": MoveSyntaxError, "illegal": IllegalMoveError, "ambiguous": AmbiguousMoveError}
