"""The English data phrases of a Squire view, said in the player's language.

A view is data: its bonuses ("+3 coins, hand limit +2"), exhibition rewards, offers,
commissions, ability summaries, regions and types stay English there, so a decision
view compares the same in every language. The boards and drawings read them through
these functions, which say them again in the current language; in English (and for
any phrase they do not know) they return the text unchanged, byte for byte.
"""
from __future__ import annotations

import re

from .i18n import NAMES, SOURCE, N_, _, current, ngettext, name

# exhibit types, as a view writes them (id or lower-case name) -> the word the player reads
TYPES = {"painting": N_("painting"), "ceramics": N_("ceramics"), "sculpture": N_("sculpture"),
         "rare_book": N_("rare book"), "rare book": N_("rare book"), "jewellery": N_("jewellery")}
TYPE_NAMES = {"painting": N_("Painting"), "ceramics": N_("Ceramics"), "sculpture": N_("Sculpture"),
              "rare_book": N_("Rare book"), "jewellery": N_("Jewellery")}
REGIONS = {"red": N_("red"), "blue": N_("blue"), "green": N_("green"), "yellow": N_("yellow"),
           "purple": N_("purple")}
REGION_LABELS = {"South England": N_("South England"), "North England": N_("North England"),
                 "Ireland": N_("Ireland"), "Wales": N_("Wales"), "Scotland": N_("Scotland"),
                 "Europe": N_("Europe"), "Americas": N_("Americas"), "India and Oceania": N_("India and Oceania"),
                 "Africa": N_("Africa"), "Silk Road and Far East": N_("Silk Road and Far East")}
SYMBOLS = {"rose": N_("rose"), "cornflower": N_("cornflower"), "shamrock": N_("shamrock"),
           "daffodil": N_("daffodil"), "thistle": N_("thistle")}
COLOURS = {"red": N_("red"), "blue": N_("blue"), "green": N_("green"), "yellow": N_("yellow"),
           "purple": N_("purple")}
ABILITIES = {
    "Dealer: +2 regular coins whenever you sell.": N_("Dealer: +2 regular coins whenever you sell."),
    "Navigator: one sea step of each move is free.": N_("Navigator: one sea step of each move is free."),
    "Patron: take the others' exhibition reward without owning the type.":
        N_("Patron: take the others' exhibition reward without owning the type."),
    "Correspondent: hand limit +1 and commission limit +1.":
        N_("Correspondent: hand limit +1 and commission limit +1."),
}
DECISIONS = {"accept": N_("accept a commission or not"), "swap": N_("swap a commission or not")}


def english() -> bool:
    return current() == SOURCE


def _t(table: dict, key: str) -> str:
    return _(table[key]) if key in table else key


def type_word(t: str) -> str:
    """An exhibit type in a sentence (lower case): "painting" -> "картина"."""
    return t if english() else _t(TYPES, t.lower())


def exhibit_word(t: str) -> str:
    """An exhibit named in prose by its type ("rare book", "редкая книга"): its id is notation only."""
    return t.replace("_", " ") if english() else type_word(t)


def type_title(tid: str, english_name: str) -> str:
    """An exhibit type as a title: the seed's name where it gives one, else the catalog's."""
    if english():
        return english_name
    seed = NAMES.table().get("type:" + tid, {}).get(current())
    if seed:
        return seed
    return _(TYPE_NAMES[tid]) if tid in TYPE_NAMES else english_name


def abbr(t: str) -> str:
    """An exhibit type in four letters, for a gallery cell of the text board ("Pain", "Карт")."""
    return (t if english() else type_word(t))[:4].capitalize()


def region(r: str) -> str:
    return r if english() else _t(REGIONS, r)


def region_label(label: str) -> str:
    return label if english() else _t(REGION_LABELS, label)


def ability(summary: str) -> str:
    return summary if english() else _t(ABILITIES, summary)


def city(cid: str, english_name: str) -> str:
    return english_name if english() else name("city:" + cid, english_name)


def character(english_name: str) -> str:
    return english_name if english() else name("character:" + english_name.lower().replace(" ", "_"), english_name)


SIDES = {"British Isles": N_("British Isles"), "World": N_("World")}


def side(sid: str, english_name: str) -> str:
    """A board side's name: the seed's where it gives one, else the catalog's."""
    if english():
        return english_name
    seed = NAMES.table().get("side:" + sid, {}).get(current())
    return seed or _t(SIDES, english_name)


# ---------------------------------------------------------------- phrases of data.Bonus and data.Reward


def _part(p: str) -> str:
    m = re.fullmatch(r"\+(\d+) (royal coin|royal ticket|coin|ticket)s?", p)
    if m:
        n, what = int(m.group(1)), m.group(2)
        return {"coin": lambda: ngettext("+%(num)d coin", "+%(num)d coins", n),
                "ticket": lambda: ngettext("+%(num)d ticket", "+%(num)d tickets", n),
                "royal coin": lambda: ngettext("+%(num)d royal coin", "+%(num)d royal coins", n),
                "royal ticket": lambda: ngettext("+%(num)d royal ticket", "+%(num)d royal tickets", n)}[what]()
    m = re.fullmatch(r"hand limit \+(\d+)", p)
    if m:
        return _("hand limit +%(num)d", num=int(m.group(1)))
    m = re.fullmatch(r"take (\d+) from discard", p)
    if m:
        return _("take %(num)d from discard", num=int(m.group(1)))
    m = re.fullmatch(r"(\d+) (coin|ticket)s?(?: \+ (\d+) per own ([a-z ]+))?|(\d+) per own ([a-z ]+)", p)
    if m:
        if m.group(5):
            return _("%(num)d per own %(type)s", num=int(m.group(5)), type=type_word(m.group(6)))
        n = int(m.group(1))
        base = (ngettext("%(num)d coin", "%(num)d coins", n) if m.group(2) == "coin"
                else ngettext("%(num)d ticket", "%(num)d tickets", n))
        if m.group(3):
            return _("%(base)s + %(num)d per own %(type)s", base=base, num=int(m.group(3)),
                     type=type_word(m.group(4)))
        return base
    if p == "draw to hand limit":
        return _("draw to hand limit")
    m = re.fullmatch(r"draw (\d+) \(up to limit\)", p)
    if m:
        return _("draw %(num)d (up to limit)", num=int(m.group(1)))
    m = re.fullmatch(r"draw (\d+), never above the hand limit", p)
    if m:
        return _("draw %(num)d, never above the hand limit", num=int(m.group(1)))
    m = re.fullmatch(r"may (accept|swap) (\d+) commission", p)
    if m:
        n = int(m.group(2))
        if m.group(1) == "accept":
            return ngettext("may accept %(num)d commission", "may accept %(num)d commissions", n)
        return ngettext("may swap %(num)d commission", "may swap %(num)d commissions", n)
    if p == "nothing":
        return _("nothing")
    return p


def bonus(text: str) -> str:
    """A Bonus.describe() or Reward.describe() phrase ("+3 coins, hand limit +2") in the current language."""
    if english() or not text or text == "-":
        return text
    return ", ".join(_part(p) for p in text.split(", "))


def offer(text: str) -> str:
    """words.describe_offer(): "buy painting in a red city: +2 coins"."""
    if english():
        return text
    m = re.fullmatch(r"(buy or sell|buy|sell) (any exhibit|[a-z ]+?)(?: in a (\w+) city)?: (.*)", text)
    if not m:
        return text
    what = {"buy": N_("buy"), "sell": N_("sell"), "buy or sell": N_("buy or sell")}[m.group(1)]
    thing = _("any exhibit") if m.group(2) == "any exhibit" else type_word(m.group(2))
    gain = bonus(m.group(4))
    if m.group(3):
        return _("%(action)s %(what)s in a %(region)s city: %(gain)s", action=_(what), what=thing,
                 region=region(m.group(3)), gain=gain)
    return _("%(action)s %(what)s: %(gain)s", action=_(what), what=thing, gain=gain)


def commission(text: str) -> str:
    """words.describe_commission(): "1 VP per painting or sculpture", "3 VP per complete floor"."""
    if english():
        return text
    m = re.fullmatch(r"(\d+) VP (.*)", text)
    if not m:
        return text
    n, rest = int(m.group(1)), m.group(2)
    if rest == "per complete floor":
        return ngettext("%(num)d VP per complete floor", "%(num)d VP per complete floor", n)
    if rest == "per complete column":
        return ngettext("%(num)d VP per complete column", "%(num)d VP per complete column", n)
    if rest == "per full set of 5 types":
        return ngettext("%(num)d VP per full set of 5 types", "%(num)d VP per full set of 5 types", n)
    mm = re.fullmatch(r"if at least (\d+) exhibits", rest)
    if mm:
        return ngettext("%(vp)d VP if at least %(num)d exhibit", "%(vp)d VP if at least %(num)d exhibits",
                        int(mm.group(1)), vp=n)
    mm = re.fullmatch(r"per exhibit of value ([\d or]+)", rest)
    if mm:
        return _("%(num)d VP per exhibit of value %(values)s", num=n,
                 values=_(" or ").join(mm.group(1).split(" or ")))
    mm = re.fullmatch(r"per ([a-z ]+?)(?: of value ([\d or]+))?", rest)
    if mm:
        types = _(" or ").join(type_word(t) for t in mm.group(1).split(" or "))
        if mm.group(2):
            return _("%(num)d VP per %(types)s of value %(values)s", num=n, types=types,
                     values=_(" or ").join(mm.group(2).split(" or ")))
        return _("%(num)d VP per %(types)s", num=n, types=types)
    return text


def decision(d: str) -> str:
    return d if english() else _t(DECISIONS, d)


def short(text: str) -> str:
    """A hall or column bonus in a gallery cell's width ("+3 coins" -> "+3c"), in the current language."""
    if english():
        return text
    out = []
    for p in text.split(", "):
        m = re.fullmatch(r"\+(\d+) (royal coin|royal ticket|coin|ticket)s?", p)
        if m:
            n = int(m.group(1))
            out.append({"coin": lambda: _("+%(num)dc", num=n), "ticket": lambda: _("+%(num)dt", num=n),
                        "royal coin": lambda: _("+%(num)d RC", num=n),
                        "royal ticket": lambda: _("+%(num)d RT", num=n)}[m.group(2)]())
        else:
            out.append(_part(p))
    return ", ".join(out)
