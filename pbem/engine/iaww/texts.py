"""The English lines a state keeps (the public log, a player's notes, the
outcome's notes, a view's "todo") as shown in the current language.

The state and the views hold the English text (a record replays the same in
every language); a board translates each line where it shows it, reading it
back with the patterns below. In English every line is returned unchanged,
and a line no pattern knows is shown as it is."""
from __future__ import annotations

import re
from typing import Callable

from ..i18n import player
from .data import CARDS, EMPIRE_FACES, RESOURCES
from .i18n import N_, _, amount, card_name, english, ngettext, res_of, word

_PLAYER = re.compile(r"\bPlayer (\d{1,2})\b")
_BY_ENGLISH = {c.name: cid for cid, c in CARDS.items()} | {ef.name: eid for (eid, _f), ef in EMPIRE_FACES.items()}
_NAME_RE = re.compile("|".join(re.escape(n) for n in sorted(_BY_ENGLISH, key=len, reverse=True)))


def names(text: str) -> str:
    """Card names and "Player N" in ``text`` in the current language."""
    if english():
        return text
    text = _NAME_RE.sub(lambda m: card_name(_BY_ENGLISH[m.group(0)]), text)
    return _PLAYER.sub(lambda m: player(int(m.group(1)) - 1), text)


def _res(w: str) -> str:
    return word(w.lower())


def _bonus(text: str) -> str:
    """"+1 Krystallium, +1 financier" translated."""
    out = []
    for part in text.split(", "):
        m = re.fullmatch(r"\+(\d+) (\w+)", part)
        out.append("+" + amount(int(m.group(1)), m.group(2)) if m else part)
    return ", ".join(out)


_WHERE = {"draft": N_("draft"), "planning": N_("planning")}

# (pattern, function of the match) in the order tried
_LINES: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (re.compile(r"Round (\d): (\d+) cards dealt to each player\."),
     lambda m: ngettext("Round %(round)s: %(num)d card dealt to each player.",
                        "Round %(round)s: %(num)d cards dealt to each player.", int(m.group(2)), round=m.group(1))),
    (re.compile(r"Round (\d), planning cycle ([AB]): stack (\d+) taken\."),
     lambda m: _("Round %(round)s, planning cycle %(cycle)s: stack %(stack)s taken.", round=m.group(1),
                 cycle=m.group(2), stack=m.group(3))),
    (re.compile(r"Round (\d): planning done\."), lambda m: _("Round %(round)s: planning done.", round=m.group(1))),
    (re.compile(r"The game is over\."), lambda m: _("The game is over.")),
    (re.compile(r"The 3 cards left in each hand are discarded\."),
     lambda m: _("The 3 cards left in each hand are discarded.")),
    (re.compile(r"Round (\d), pick (\d): (.*)\."),
     lambda m: _("Round %(round)s, pick %(step)s: %(picks)s.", round=m.group(1), step=m.group(2),
                 picks=names(m.group(3)))),
    (re.compile(r"Pick 7 \(the last card, automatic\): (.*)\."),
     lambda m: _("Pick 7 (the last card, automatic): %(picks)s.", picks=names(m.group(1)))),
    (re.compile(r"(\w+) step: production (.*?); supremacy to (.*?) \(financier or general, their choice\)\."),
     lambda m: _("%(step)s step: production %(prods)s; supremacy to %(who)s (financier or general, their choice).",
                 step=_res(m.group(1)).capitalize(), prods=names(m.group(2)), who=names(m.group(3)))),
    (re.compile(r"(\w+) step: production (.*?); supremacy to (.*?) \((\w+)\)\."),
     lambda m: _("%(step)s step: production %(prods)s; supremacy to %(who)s (%(reward)s).",
                 step=_res(m.group(1)).capitalize(), prods=names(m.group(2)), who=names(m.group(3)),
                 reward=word(m.group(4)))),
    (re.compile(r"(\w+) step: production (.*?); no supremacy bonus \(needs 5 or more\)\."),
     lambda m: _("%(step)s step: production %(prods)s; no supremacy bonus (needs 5 or more).",
                 step=_res(m.group(1)).capitalize(), prods=names(m.group(2)))),
    (re.compile(r"(\w+) step: production (.*?); no supremacy bonus\."),
     lambda m: _("%(step)s step: production %(prods)s; no supremacy bonus.",
                 step=_res(m.group(1)).capitalize(), prods=names(m.group(2)))),
    # a player's notes
    (re.compile(r"Your empire card reached 5 cubes: \+(\d+) Krystallium\."),
     lambda m: ngettext("Your empire card reached 5 cubes: +%(num)d Krystallium.",
                        "Your empire card reached 5 cubes: +%(num)d Krystallium.", int(m.group(1)))),
    (re.compile(r"(.+) completed \((.*)\)\."),
     lambda m: _("%(card)s completed (%(bonus)s).", card=names(m.group(1)), bonus=_bonus(m.group(2)))),
    (re.compile(r"(.+) completed\."), lambda m: _("%(card)s completed.", card=names(m.group(1)))),
    (re.compile(r"(\d+) (\w+) cubes? onto your empire card by (?:itself|themselves): no card of yours has an"
                r" empty \w+ slot\."),
     lambda m: ngettext("%(num)d %(res)s cube onto your empire card by itself: no card of yours has an empty"
                        " %(res)s slot.",
                        "%(num)d %(res)s cubes onto your empire card by themselves: no card of yours has an empty"
                        " %(res)s slot.", int(m.group(1)), res=res_of(m.group(2)))),
    (re.compile(r"Discarded (.+?): lost (.*); 1 (\w+) cube onto your empire card\."),
     lambda m: _("Discarded %(card)s: lost %(lost)s; 1 %(res)s cube onto your empire card.",
                 card=names(m.group(1)), lost=_lost(m.group(2)), res=res_of(m.group(3)))),
    # the outcome's notes
    (re.compile(r"Tie on points broken by constructed developments, then tokens in the pool \(§12\)\."),
     lambda m: _("Tie on points broken by constructed developments, then tokens in the pool (§12).")),
    (re.compile(r"Tie on points, constructed developments and tokens: the victory is shared\."),
     lambda m: _("Tie on points, constructed developments and tokens: the victory is shared.")),
    (re.compile(r"Scenario (S\d) \((.+?)\): lost - not constructed: (.*)\."),
     lambda m: _("Scenario %(scenario)s (%(title)s): lost - not constructed: %(cards)s.", scenario=m.group(1),
                 title=_(m.group(2)), cards=names(m.group(3)))),
    (re.compile(r"Scenario (S\d) \((.+?)\): (completed, no medal|gold medal|silver medal|bronze medal)(.*)"),
     lambda m: _("Scenario %(scenario)s (%(title)s): %(medal)s", scenario=m.group(1), title=_(m.group(2)),
                 medal=_(m.group(3))) + _score_a(m.group(4))),
    (re.compile(r"Solo title: ([\w ]+?)( \(.*)"),
     lambda m: _("Solo title: %(title)s", title=_(m.group(1))) + _score_a(m.group(2))),
]
N_("To the Core of the Earth"); N_("A Better World"); N_("They Are Among Us"); N_("Back to the Future")  # noqa: E702
N_("The End of Days"); N_("Money Doesn't Smell")  # noqa: E702
N_("Living Legend"); N_("Emperor"); N_("Dictator"); N_("Recruit")  # noqa: E702
N_("completed, no medal"); N_("gold medal"); N_("silver medal"); N_("bronze medal")  # noqa: E702


def _score_a(rest: str) -> str:
    m = re.fullmatch(r" \(score (\d+) - 15 = (-?\d+) with face A\)\.", rest)
    if m:
        return _(" (score %(raw)s - 15 = %(adj)s with face A).", raw=m.group(1), adj=m.group(2))
    return rest


def _lost(text: str) -> str:
    if text == "nothing":
        return _("nothing")
    text = re.sub(r"\(of which (\d+) Krystallium as wildcard\)",
                  lambda m: ngettext("(of which %(num)d Krystallium as wildcard)",
                                     "(of which %(num)d Krystallium as wildcard)", int(m.group(1))), text)
    return re.sub(r"(\d+) ([a-z]+)", lambda m: amount(int(m.group(1)), m.group(2)), text)


_TAG = re.compile(r"(R\d) (draft|planning|materials|energy|science|gold|exploration): ")


def line(text: str) -> str:
    """A log line or a note (with its "R2 energy: " tag) in the current language."""
    if english():
        return text
    tag = ""
    m = _TAG.match(text)
    if m:
        where = m.group(2)
        tag = f"{m.group(1)} {_(where) if where in _WHERE else word(where)}: "
        text = text[m.end():]
    for pattern, fn in _LINES:
        hit = pattern.fullmatch(text)
        if hit:
            return tag + fn(hit)
    return tag + names(text)


note = line


# the view's "todo" line (game._todo), piece by piece
_TODO_FIXED = {
    "Your order for this step is in; you may replace it until the step is revealed: send the whole new order"
    " (LIST shows the one on file). Waiting for the others.":
        N_("Your order for this step is in; you may replace it until the step is revealed: send the whole new"
           " order (LIST shows the one on file). Waiting for the others."),
    "Nothing to do now: waiting for the others.": N_("Nothing to do now: waiting for the others."),
    "Keep one of the five revealed cards: keep <card>.": N_("Keep one of the five revealed cards: keep <card>."),
}


def _todo_bit(bit: str) -> str:
    m = re.fullmatch(r"construct \(C\) or recycle \(R\) each of your (\d+) card\(s\)", bit)
    if m:
        return ngettext("construct (C) or recycle (R) your %(num)d card",
                        "construct (C) or recycle (R) each of your %(num)d cards", int(m.group(1)))
    m = re.fullmatch(r"still write C for (.*) \(used before its C\)", bit)
    if m:
        return _("still write C for %(cards)s (used before its C)", cards=m.group(1))
    m = re.fullmatch(r"place (.*) cube\(s\) \(card or E\)", bit)
    if m:
        cubes = ", ".join(re.sub(r"(\d+) (\w+)", lambda x: f"{x.group(1)} {res_of(x.group(2))}", c)
                          for c in m.group(1).split(", "))
        return _("place %(amounts)s cube(s) (card or E)", amounts=cubes)
    fixed = {
        "choose your science supremacy token: sci financier or sci general":
            N_("choose your science supremacy token: sci financier or sci general"),
        "then send done (or auto for the default)": N_("then send done (or auto for the default)"),
        "send done when you are finished": N_("send done when you are finished"),
    }
    return _(fixed[bit]) if bit in fixed else bit


def todo(text: str) -> str:
    if english() or not text:
        return text
    if text in _TODO_FIXED:
        return _(_TODO_FIXED[text])
    m = re.fullmatch(r"Pick one card from your hand: pick <card> \(hand of (\d+)\)\.", text)
    if m:
        return _("Pick one card from your hand: pick <card> (hand of %(num)s).", num=m.group(1))
    if text.startswith("You: ") and text.endswith("."):
        return _("You: %(todo)s.", todo="; ".join(_todo_bit(b) for b in text[5:-1].split("; ")))
    return text


RESOURCES  # noqa: B018  (the words of data.RESOURCES are in i18n.RES_WORDS)


def short(text: str) -> str:
    """A card's short field as a view holds it ("s1 per research card", "2 VP per project card",
    "+1 VP per financier", "3 VP") in the current language; notation letters stay."""
    if english() or not text:
        return text
    m = re.fullmatch(r"(\w+)1 per (\w+) card", text)
    if m:
        return _("%(res)s1 per %(type)s card", res=m.group(1), type=word(m.group(2)))
    m = re.fullmatch(r"(\d+) VP per (\w+) card", text)
    if m:
        return _("%(num)s VP per %(type)s card", num=m.group(1), type=word(m.group(2)))
    m = re.fullmatch(r"\+(\d+) VP per (financier|general)", text)
    if m:
        return _(_VP_PER_TOKEN[m.group(2)], num=m.group(1))
    m = re.fullmatch(r"(\d+) VP", text)
    if m:
        return _("%(num)s VP", num=m.group(1))
    return text


_VP_PER_TOKEN = {"financier": N_("+%(num)s VP per financier"), "general": N_("+%(num)s VP per general")}


def step_name(name: str, capital: bool = True) -> str:
    """A view's ``step_name`` (English: "draft, pick 3 of 7", "planning, cycle A", "planning",
    "production, energy step", "game over") in the current language."""
    out = name
    m = re.fullmatch(r"draft, pick (\d) of 7", name)
    if m:
        out = _("draft, pick %(step)d of 7", step=int(m.group(1)))
    elif (m := re.fullmatch(r"planning, cycle ([AB])", name)):
        out = _("planning, cycle %(cycle)s", cycle=m.group(1))
    elif name in ("planning", "game over", "draft"):
        out = _(name)
    elif (m := re.fullmatch(r"production, (\w+) step", name)):
        out = _(_PROD_STEP[m.group(1)])
    if english():
        return name.capitalize() if capital else name
    return out[:1].upper() + out[1:] if capital else out


_PROD_STEP = {"materials": N_("production, materials step"), "energy": N_("production, energy step"),
              "science": N_("production, science step"), "gold": N_("production, gold step"),
              "exploration": N_("production, exploration step")}
