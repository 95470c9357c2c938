"""How a Spyrium move is written: format_move, the canonical text that notation.parse_move
reads back, and for each decision taken in the middle of a move (§15) the question it asks
and the word that answers it ("t2", "new", "adv", "+worker", "o1", "lot3", "4-5").

The rules quote these words when they refuse a choice, the notation reads and writes them,
and the words of a move's price list them; so they sit below all three.
"""
from __future__ import annotations

from .data import SPACE_NAME
from .i18n import N_, later, say
from .state import (
    ACT, D_BONUS, D_BUILDING, D_LOT, D_OPT, D_RES, D_RESOURCE, D_SPACE, D_TOKEN, EARN, EVENT, PASS, PLACE, USE,
    State,
)

DECISION_QUESTION = {
    D_TOKEN: N_("which token to take"),
    D_LOT: N_("where the building goes"),
    D_RES: N_("the residence action"),
    D_BONUS: N_("which bonus tile to take at 8 VP"),
    D_OPT: N_("which option"),
    D_RESOURCE: N_("what to take from %(event)s"),
    D_BUILDING: N_("which turned building %(event)s uses again"),
    D_SPACE: N_("which space %(event)s uses"),
}
# the event a decision's question names (its name in the reader's language is data: names.csv)
QUESTION_EVENT = {D_RESOURCE: "Token Windfall", D_BUILDING: "Overtime", D_SPACE: "Late Placement"}


def question_kept(dtype: int) -> dict:
    """The question of decision ``dtype``, kept to be worded in the reader's language (i18n.say)."""
    if dtype in QUESTION_EVENT:
        return later._(DECISION_QUESTION[dtype], event={"card": QUESTION_EVENT[dtype]})
    return later._(DECISION_QUESTION[dtype])


def decision_question(dtype: int) -> str:
    """The question of decision ``dtype`` in the current language: "which token to take"."""
    return say(question_kept(dtype))


def answer_word(dtype: int, v: int) -> str:
    if dtype == D_TOKEN:
        return f"t{v}"
    if dtype == D_LOT:
        return "new" if v == 0 else f"r{v}"
    if dtype == D_RES:
        return "adv" if v == 0 else "score"
    if dtype == D_BONUS:
        return "+worker" if v == 0 else "+5"
    if dtype == D_OPT:
        return f"o{v}"
    if dtype == D_RESOURCE:
        return ("money", "spy", "vp")[v]
    if dtype == D_BUILDING:
        return f"lot{v}"
    if dtype == D_SPACE:
        return SPACE_NAME[v]
    raise ValueError(dtype)


def format_move(st: State, seat: int, mv: tuple) -> str:
    kind, sw, a, b, lob, com, ans = mv
    parts = ["phase2"] if sw else []
    if kind == PLACE:
        parts += ["place", SPACE_NAME[a]]
    elif kind == EVENT:
        parts.append("event")
    elif kind == EARN:
        parts += ["earn", SPACE_NAME[a]] + ([str(b)] if b else [])
    elif kind == ACT:
        parts += ["act", str(b), SPACE_NAME[a]]
    elif kind == USE:
        parts += ["use", str(a)]
    elif kind == PASS:
        parts.append("pass")
    if lob:
        parts.append("lob")
    if com:
        parts.append(f"c{com}")
    parts += [answer_word(code // 100, code % 100) for code in ans]
    return " ".join(parts)
