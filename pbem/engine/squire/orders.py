"""What a Squire order leaves unsaid (``Game.implied_move``, pbem/engine/base.py).

A plain ``buy``/``sell`` asks which matching offers are played (RULES.md §6.5),
whatever the hand holds, so that the question tells the other seats nothing
(§2). When the same order -- one mail, one web post -- goes on past the
question to a later step of the turn (the placement, the 3rd-floor pick, the
exhibition), or its sale ends the turn, the missing answer is ``offers none``:
whether it is read so depends only on the order and on what every seat sees
(the exhibition token), never on the hand, and none is always a legal answer
(§6.5: any number of cards, possibly none). The question is still asked when
the order stops at it and the turn goes on (an exhibit to place, an
exhibition to hold), unless the seat gave the standing order
``offers none always``. The answer is a move of the record like any other;
the note that comes with it is for the seat's own receipt only, and names a
matching card of its hand that was not played, so that the reading is no trap.
"""
from __future__ import annotations

from ..base import Implied, MoveError
from . import notation
from .data import load
from .i18n import N_, _
from .rules import OFFERS, TAKE, Move, State, apply_move, matching_cards, to_move

NONE = Move("offers")
# the steps after the offers question in a turn (§4: IV placement and its 3rd-floor pick, V exhibition)
LATER = frozenset({"cell", "take", "exhibit"})

PAST, ENDS, STANDING = "past", "ends", "standing"
_WHY = {
    ("buy", PAST): N_("your order went on past the question of the offers you play with your buy, so none "
                      "was played"),
    ("sell", PAST): N_("your order went on past the question of the offers you play with your sale, so none "
                       "was played"),
    ("sell", ENDS): N_("your sale ends your turn, and your order named no offer to play with it, so none was "
                       "played"),
    ("buy", STANDING): N_("your standing order offers none always: no offer was played with your buy"),
    ("sell", STANDING): N_("your standing order offers none always: no offer was played with your sale"),
}
_HELD = {
    "buy": N_("You held %(cards)s, whose offer matched this buy. To play an offer, write it with the buy: "
              "buy offers %(card)s."),
    "sell": N_("You held %(cards)s, whose offer matched this sale. To play an offer, write it with the sale: "
               "sell offers %(card)s."),
}


def implied_move(game, state: State, seat: int, order: tuple, text: str | None) -> Implied | None:
    """``offers none`` where ``seat``'s order leaves the offers question unanswered and goes on past
    it (``text``, the order's next move, is a later step it cannot take while the question is open),
    or ends where its sale ends the turn, or always under the standing order; else None.
    ``order`` holds the moves of the same order applied so far."""
    if state.phase not in (OFFERS, TAKE) or not state.txn or seat not in to_move(state):
        return None
    standing = seat in state.no_offers
    opened = next((i for i, m in enumerate(order) if m.kind in ("buy", "sell") and m.a == 0), None)
    if text is not None:
        if notation.verb_of(text) not in LATER or _parses(game, state, seat, text):
            return None  # an answer, a placement the question lets come first, or a mistake to refuse
        if standing:
            why = STANDING
        elif opened is not None:
            why = PAST
        else:
            return None  # asked by an earlier board: the refusal says to answer it first
    elif standing:
        why = STANDING
    elif opened is None:
        return None
    elif opened < len(order) - 1:
        why = PAST
    elif seat not in to_move(apply_move(state, seat, NONE)):
        why = ENDS  # public: whether a sale ends the turn depends on the exhibition token alone
    else:
        return None  # the order stops at the question and the turn goes on: it is asked
    return Implied(NONE, _note(state, seat, why))


def _parses(game, state: State, seat: int, text: str) -> bool:
    try:
        notation.parse_move(game, state, seat, text)
    except MoveError:
        return False
    return True


def _note(state: State, seat: int, why: str) -> str:
    """The seat's own note: why no offer was played, and any matching card of its hand it kept."""
    trade = "buy" if state.txn[0] == 0 else "sell"
    note = _(_WHY.get((trade, why)) or _WHY[(trade, PAST)])
    held = matching_cards(state, seat, *state.txn)
    if held:
        d = load(state.custom)
        ids = [d.cards[c].id for c in held]
        note += ". " + _(_HELD[trade], cards=", ".join(ids), card=ids[0])
    return note
