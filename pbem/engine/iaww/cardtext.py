"""Card data in words (issue 19): the short fields a board shows beside each
card, and the whole text ``CARD <name>`` answers. Every number and word
comes from ``data/`` through :mod:`.data`; nothing here repeats card data."""
from __future__ import annotations

import textwrap

from ..base import Card as BaseCard
from .data import CARDS, EMPIRE_FACES, EMPIRES, FIN, GEN, KRY, RESOURCES, SLOT_KINDS, Card, EmpireFace

# the letters of the notation, as the board's key explains them
LETTER = ("m", "e", "s", "g", "x", "K", "F", "gen")
KEY_LINES = ("Key: m materials, e energy, s science, g gold, x exploration, K Krystallium,",
             "     F financier, gen general; m 1/3 = 1 of 3 materials slots filled.")


def _res_list(counts, words=SLOT_KINDS) -> str:
    return ", ".join(f"{k} {words[i]}" for i, k in enumerate(counts) if k)


def short_cost(cost) -> str:
    """``m4 e1 F1``: the slots of a card, in the notation's letters."""
    return " ".join(f"{LETTER[k]}{n}" for k, n in enumerate(cost) if n)


def short_makes(c: Card) -> str:
    """What a constructed card adds to production: ``g2``, ``s1 per research``."""
    if c.prod_per is not None:
        return f"{LETTER[c.prod_per[0]]}1 per {c.prod_per[1]} card"
    return " ".join(f"{LETTER[r]}{n}" for r, n in enumerate(c.prod) if n)


def _vp_per(q: int, what: str, short: bool) -> str:
    if what in ("financier", "general"):
        return f"+{q} VP per {what}" if short else f"{q} extra VP for each {what} in your pool (each is 1 VP)"
    return f"{q} VP per {what} card" if short else f"{q} VP for each {what} card in your empire"


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
        itself = " (this card included)" if c.type == typ else ""
        return f"1 {RESOURCES[res]} for each {typ} card in your empire{itself}"
    return _res_list(c.prod, RESOURCES) or "nothing"


def _vp_long(c: Card) -> str:
    if c.vp_per is not None:
        q, what = c.vp_per
        itself = " (this card included)" if c.type == what else ""
        return _vp_per(q, what, short=False) + itself
    return str(c.vp) if c.vp else "none"


def _cost_long(cost) -> str:
    parts = []
    for k, n in enumerate(cost):
        if not n:
            continue
        if k == KRY:
            parts.append(f"{n} Krystallium slot{'s' * (n > 1)} (Krystallium only)")
        elif k in (FIN, GEN):
            parts.append(f"{n} {SLOT_KINDS[k]}{'s' * (n > 1)}")
        else:
            parts.append(f"{n} {SLOT_KINDS[k]}")
    return ", ".join(parts)


def _lines(*items: str) -> str:
    out: list[str] = []
    for item in items:
        out += textwrap.wrap(item, 76, subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(out)


def dev_card(c: Card) -> BaseCard:
    bonus = _res_list((c.bonus[0], c.bonus[1], c.bonus[2]), ("Krystallium", "financier", "general"))
    return BaseCard(c.id, c.name, f"{c.type} development card", _lines(
        f"{c.name} ({c.type}; {c.copies} in the deck)",
        f"Cost: {_cost_long(c.cost)}",
        f"Construction bonus: {bonus or 'none'}",
        f"Production once constructed: {_production(c)}",
        f"Victory points: {_vp_long(c)}",
        f"Recycling: 1 {RESOURCES[c.recycle]} cube (recycled from the draft area,"
        " or discarded from construction)",
        f"Notation: {c.id} (or the start of its name)",
    ))


def empire_card(empire: str) -> BaseCard:
    faces = [EMPIRE_FACES[(empire, f)] for f in "AB" if (empire, f) in EMPIRE_FACES]
    lines = [f"{faces[0].name} (empire card; E in the notation)"]
    for ef in faces:
        vp = _vp_per(*ef.vp_per, short=False) if ef.vp_per else "no victory points"
        lines.append(f"Face {ef.face}: produces {_res_list(ef.prod, RESOURCES)}; {vp}")
    lines.append("Any cube may go onto the empire card; every 5 cubes there become 1 Krystallium.")
    return BaseCard(empire, faces[0].name, "empire card", _lines(*lines))


CARD_LIST: tuple[BaseCard, ...] = tuple(dev_card(c) for c in CARDS.values()) + tuple(
    empire_card(e) for e in EMPIRES)
