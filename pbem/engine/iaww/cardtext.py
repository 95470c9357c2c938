"""Card data in words: the short fields a board shows beside each
card, and the whole text ``CARD <name>`` answers. Every number and word
comes from ``data/`` through :mod:`.data`; nothing here repeats card data."""
from __future__ import annotations

import textwrap

from ..base import Card as BaseCard
from ..i18n import current
from .data import CARDS, EMPIRE_FACES, EMPIRES, FIN, GEN, KRY, RESOURCES, SLOT_KINDS, Card, EmpireFace
from .i18n import N_, _, amount, card_name, english, ngettext, res_of, word

# the letters of the notation, as the board's key explains them
LETTER = ("m", "e", "s", "g", "x", "K", "F", "gen")
KEY_LINES = ("Key: m materials, e energy, s science, g gold, x exploration, K Krystallium,",
             "     F financier, gen general; m 1/3 = 1 of 3 materials slots filled.")
_KEY = N_("Key: m materials, e energy, s science, g gold, x exploration, K Krystallium, F financier, gen general;"
          " m 1/3 = 1 of 3 materials slots filled.")


def key_lines() -> tuple[str, ...]:
    """The board's key to the letters, in the current language (English: KEY_LINES)."""
    if english():
        return KEY_LINES
    return tuple(textwrap.wrap(_(_KEY), 78, subsequent_indent="     ", break_on_hyphens=False))


def _res_list(counts, words=SLOT_KINDS) -> str:
    return ", ".join(amount(k, words[i]) for i, k in enumerate(counts) if k)


def short_cost(cost) -> str:
    """``m4 e1 F1``: the slots of a card, in the notation's letters."""
    return " ".join(f"{LETTER[k]}{n}" for k, n in enumerate(cost) if n)


def short_makes(c: Card) -> str:
    """What a constructed card adds to production: ``g2``, ``s1 per research``."""
    if c.prod_per is not None:
        return f"{LETTER[c.prod_per[0]]}1 per {c.prod_per[1]} card"
    return " ".join(f"{LETTER[r]}{n}" for r, n in enumerate(c.prod) if n)


def _vp_per(q: int, what: str, short: bool) -> str:
    if english() or short:  # the short form is a view field: English, translated where shown
        if what in ("financier", "general"):
            return f"+{q} VP per {what}" if short else f"{q} extra VP for each {what} in your pool (each is 1 VP)"
        return f"{q} VP per {what} card" if short else f"{q} VP for each {what} card in your empire"
    if what in ("financier", "general"):
        return _(_VP_TOKEN[what], num=q)
    return _("%(num)d VP for each %(type)s card in your empire", num=q, type=word(what))


_VP_TOKEN = {"financier": N_("%(num)d extra VP for each financier in your pool (each is 1 VP)"),
             "general": N_("%(num)d extra VP for each general in your pool (each is 1 VP)")}


def short_vp(c: Card) -> str:
    """``3 VP``, ``2 VP per research``, ``+1 VP per financier``, or ``""``."""
    if c.vp_per is not None:
        return _vp_per(*c.vp_per, short=True)
    return f"{c.vp} VP" if c.vp else ""


def short_bonus(c: Card) -> str:
    """The construction bonus: ``K2``, ``F1``, ``gen1``, or ``""``."""
    return " ".join(f"{LETTER[k]}{n}" for k, n in zip((KRY, FIN, GEN), c.bonus) if n)


def empire_vp(ef: EmpireFace) -> str:
    return _vp_per(*ef.vp_per, short=True) if ef.vp_per else ""


def card_fields(c: Card) -> dict:
    """The card's fields for a view (JSON-able)."""
    return {"cost": list(c.cost), "makes": short_makes(c), "vp": short_vp(c), "bonus": short_bonus(c),
            "recycle": LETTER[c.recycle]}


# ---------------------------------------------------------------- CARD <name>


def _production(c: Card) -> str:
    if c.prod_per is not None:
        res, typ = c.prod_per
        itself = _(" (this card included)") if c.type == typ else ""
        return _("1 %(res)s for each %(type)s card in your empire", res=word(RESOURCES[res]), type=word(typ)) + itself
    return _res_list(c.prod, RESOURCES) or _("nothing")


def _vp_long(c: Card) -> str:
    if c.vp_per is not None:
        q, what = c.vp_per
        itself = _(" (this card included)") if c.type == what else ""
        return _vp_per(q, what, short=False) + itself
    return str(c.vp) if c.vp else _("none")


def _cost_long(cost) -> str:
    parts = []
    for k, n in enumerate(cost):
        if not n:
            continue
        if k == KRY:
            parts.append(ngettext("%(num)d Krystallium slot (Krystallium only)",
                                  "%(num)d Krystallium slots (Krystallium only)", n))
        elif k == FIN:
            parts.append(ngettext("%(num)d financier", "%(num)d financiers", n))
        elif k == GEN:
            parts.append(ngettext("%(num)d general", "%(num)d generals", n))
        else:
            parts.append(amount(n, SLOT_KINDS[k]))
    return ", ".join(parts)


def _lines(*items: str) -> str:
    out: list[str] = []
    for item in items:
        out += textwrap.wrap(item, 76, subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(out)


def dev_card(c: Card) -> BaseCard:
    bonus = _res_list((c.bonus[0], c.bonus[1], c.bonus[2]), ("Krystallium", "financier", "general"))
    name = card_name(c.id)
    return BaseCard(c.id, name, _("%(type)s development card", type=word(c.type)), _lines(
        _("%(name)s (%(type)s; %(copies)d in the deck)", name=name, type=word(c.type), copies=c.copies),
        _("Cost: %(cost)s", cost=_cost_long(c.cost)),
        _("Construction bonus: %(bonus)s", bonus=bonus or _("none")),
        _("Production once constructed: %(prod)s", prod=_production(c)),
        _("Victory points: %(vp)s", vp=_vp_long(c)),
        _("Recycling: 1 %(res)s cube (recycled from the draft area, or discarded from construction)",
          res=res_of(RESOURCES[c.recycle])),
        _("Notation: %(id)s (or the start of its name)", id=c.id),
    ))


def empire_card(empire: str) -> BaseCard:
    faces = [EMPIRE_FACES[(empire, f)] for f in "AB" if (empire, f) in EMPIRE_FACES]
    name = card_name(empire)
    lines = [_("%(name)s (empire card; E in the notation)", name=name)]
    for ef in faces:
        vp = _vp_per(*ef.vp_per, short=False) if ef.vp_per else _("no victory points")
        lines.append(_("Face %(face)s: produces %(prod)s; %(vp)s", face=ef.face, prod=_res_list(ef.prod, RESOURCES),
                       vp=vp))
    lines.append(_("Any cube may go onto the empire card; every 5 cubes there become 1 Krystallium."))
    return BaseCard(empire, name, _("empire card"), _lines(*lines))


_CARD_LISTS: dict[str, tuple[BaseCard, ...]] = {}


def card_list() -> tuple[BaseCard, ...]:
    """The 78 development cards, then the five empire cards, in the current language."""
    lang = current()
    if lang not in _CARD_LISTS:
        _CARD_LISTS[lang] = tuple(dev_card(c) for c in CARDS.values()) + tuple(empire_card(e) for e in EMPIRES)
    return _CARD_LISTS[lang]


CARD_LIST: tuple[BaseCard, ...] = card_list()  # English (the source)

