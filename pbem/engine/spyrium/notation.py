"""Spyrium move notation (docs/notation/spyrium.md): parse and help; the canonical
form a parse returns is written by writing.format_move.

Canonical forms (case-insensitive, extra spaces ignored):
    place 1-2                    put a worker in space 1-2 (Phase I)
    event [choices]              use the current event
    earn 4-5 5                   Earn money with your worker in 4-5 from card 5
    act 5 4-5 [lob] [c2] [...]   activate card 5 with your worker in 4-5
    use 2 [o1|o2] [...]          use the building in lot 2
    pass
    phase2 <action>              go to Phase II and at once take that action
Mid-action choices, in the order they arise (§15):
    t1 t2 t3        token taken        new | r2       new lot / replace lot 2
    adv | score     residence action   +worker | +5   bonus tile at 8 VP
    o1 | o2         option             money|spy|vp   Token Windfall resource
    lot3            Overtime building  4-5            Late Placement space
"""
from __future__ import annotations

import re

from .data import CARDS, EV_OVERTIME, SPACE_INDEX, SPACE_NAME, SPACES, USE_OPTS
from .rules import Illegal, NeedDecision, execute, legal_moves
from .state import (
    ACT, ANSWER, D_BONUS, D_BUILDING, D_LOT, D_OPT, D_RES, D_RESOURCE, D_SPACE, D_TOKEN, EARN,
    EVENT, PASS, PLACE, USE, State,
)
from .words import options_help, pending_question, why_not
from .writing import answer_word, decision_question, format_move
from ..base import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from .i18n import N_, _, card_label, card_name, ngettext

# ---------------------------------------------------------------- parsing

VERBS = {
    "place": PLACE, "pl": PLACE, "put": PLACE,
    "event": EVENT, "ev": EVENT,
    "earn": EARN,
    "act": ACT, "activate": ACT, "a": ACT, "buy": ACT,
    "use": USE, "u": USE,
    "pass": PASS, "done": PASS,
}
PHASE2 = {"phase2", "p2", "ii", "phaseii", "ph2", "2:", "phase2:", "p2:", "ii:"}
NOISE = {"with", "from", "at", "@", "on", "the", "and", "then", "in", "space", "card", "pos",
         "position", "of", "to", "go", "my", "-", "/", ",", "worker", "workers", "a", "an", "building"}
# words a player may put before the move itself ("a" is not one: it is short for "act")
LEADING = {"i", "please", "now", "then", "and"}
# words that only repeat the action: "earn money 4-5 5"
ECHO = {EARN: {"money", "£", "pounds"}}
WORDS = {
    "lob": ("lob", 1), "lobby": ("lob", 1), "lobbying": ("lob", 1),
    "new": (D_LOT, 0), "newlot": (D_LOT, 0), "new-lot": (D_LOT, 0), "lotnew": (D_LOT, 0),
    "lot-new": (D_LOT, 0),
    "adv": (D_RES, 0), "advance": (D_RES, 0), "up": (D_RES, 0),
    "score": (D_RES, 1), "sc": (D_RES, 1), "scorevp": (D_RES, 1),
    "+worker": (D_BONUS, 0), "+w": (D_BONUS, 0), "+wk": (D_BONUS, 0),
    "bonusworker": (D_BONUS, 0), "bonus-worker": (D_BONUS, 0),
    "+5": (D_BONUS, 1), "+£5": (D_BONUS, 1), "£5": (D_BONUS, 1), "5£": (D_BONUS, 1),
    "+5£": (D_BONUS, 1), "bonus5": (D_BONUS, 1), "bonus-5": (D_BONUS, 1), "bonus£5": (D_BONUS, 1),
    "bonus-£5": (D_BONUS, 1), "+cash": (D_BONUS, 1), "bonuscash": (D_BONUS, 1),
    "money": (D_RESOURCE, 0), "£": (D_RESOURCE, 0), "pounds": (D_RESOURCE, 0),
    "spy": (D_RESOURCE, 1), "s": (D_RESOURCE, 1), "spyrium": (D_RESOURCE, 1),
    "vp": (D_RESOURCE, 2), "points": (D_RESOURCE, 2),
}
_JOIN = {"replace": "r", "rep": "r", "r": "r", "token": "t", "tok": "t", "t": "t",
         "commerce": "c", "com": "c", "c": "c", "option": "o", "opt": "o", "o": "o",
         "lot": "lot", "l": "lot", "b": "lot"}
_PATTERNS = [
    (re.compile(r"^(?:t|tok|token)=?([123])$"), "tok"),
    (re.compile(r"^(?:c|com|commerce)=?([123])$"), "com"),
    (re.compile(r"^(?:r|rep|replace)=?(\d{1,2})$"), "lot"),
    (re.compile(r"^(?:o|opt|option)=?([12])$|^\(([12])\)$"), "opt"),
    (re.compile(r"^(?:lot|l|b)=?(\d{1,2})$"), "bld"),
]
_SPACE = re.compile(r"^([1-9])[-/x]?([1-9])$")

SYNTAX_HELP = N_("a move starts with place, event, earn, act, use or pass "
                 "(and phase2 first, to go to Phase II); see the examples")


# what may follow each verb, for the reply to a word that fits nowhere
WORD_HINT = {
    PLACE: N_("'place' takes one space, e.g. 'place 4-5'"),
    EVENT: N_("after 'event' write its choice: o1 or o2, money, spy or vp, adv or score, "
              "lot2 (Overtime), or a space such as 4-5 (Late Placement)"),
    EARN: N_("write 'earn', the space of your worker and a card, e.g. 'earn 4-5 5'"),
    ACT: N_("write 'act', the card and your worker's space, then any of lob, c1-c3, t1-t3, "
            "new or r2, adv or score, +worker or +5"),
    USE: N_("write 'use', the lot number and o1 or o2 for the option, e.g. 'use 2 o1'"),
    PASS: N_("'pass' takes nothing else"),
}


def _tokens(text: str) -> list[str]:
    t = text.lower().replace(",", " ").replace(";", " ").replace("\u2013", "-").replace("\u2014", "-")
    t = t.replace("phase 2", "phase2").replace("phase ii", "phaseii").replace("phase two", "phase2")
    # a sentence in a mail: "I pass." / "event: o1" / "place a worker at 4-5!"
    toks = [w.rstrip(".!?") for w in t.split()]
    toks = [w[:-1] if w.endswith(":") and w[:-1] in VERBS else w for w in toks if w]
    while len(toks) > 1 and toks[0] in LEADING:
        toks = toks[1:]
    out: list[str] = []
    i = 0
    while i < len(toks):
        w = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if w in _JOIN and nxt is not None and re.fullmatch(r"\d{1,2}", nxt):
            out.append(_JOIN[w] + nxt)
            i += 2
            continue
        if w == "lot" and nxt == "new" or w == "new" and nxt == "lot":
            out.append("new")
            i += 2
            continue
        if w == "bonus" and nxt is not None:
            out.append("bonus" + nxt.lstrip("+"))
            i += 2
            continue
        if w == "+" and nxt is not None:
            out.append("+" + nxt)
            i += 2
            continue
        out.append(w)
        i += 1
    return out


def _space(w: str) -> int | None:
    m = _SPACE.match(w)
    if not m:
        return None
    pair = tuple(sorted((int(m.group(1)), int(m.group(2)))))
    return SPACE_INDEX.get(pair, -1)


class _Req:
    __slots__ = ("kind", "sw", "spaces", "cards", "lots", "lob", "com", "given", "text", "seat")


def _syntax(text, seat, reason, st=None, examples=()):
    return MoveSyntaxError(reason, text=text, seat=seat, examples=examples)


def parse_move(st: State, seat: int, text: str, examples) -> tuple:
    toks = _tokens(text)
    ex = examples
    if st.pending and toks:
        # "act 5 4-5 new" in reply to the question about "act 5 4-5": keep only the new choices
        head = format_move(st, seat, st.pending).split()
        for h in (head, head[1:] if head[0] == "phase2" else None):
            if h and toks[:len(h)] == h and len(toks) > len(h):
                toks = toks[len(h):]
                break
    if not toks:
        raise MoveSyntaxError(_("the move is empty: %(help)s", help=_(SYNTAX_HELP)), text=text, seat=seat,
                              examples=ex(None))
    sw = 0
    if toks[0] in PHASE2:
        sw = 1
        toks = toks[1:]
    kind = None
    if toks and toks[0] in VERBS and not (toks[0] == "a" and len(toks) == 1):
        kind = VERBS[toks[0]]
        toks = toks[1:]
    elif toks and _space(toks[0]) is not None and not st.pending:
        kind = PLACE
    elif st.pending and not sw:
        kind = ANSWER
    elif sw and not toks:
        raise MoveSyntaxError(_("after 'phase2' write the Phase II action, e.g. 'phase2 earn 4-5 5' or 'phase2 pass'"),
                              text=text, seat=seat, examples=ex(None))
    elif toks[0] in WORDS or any(rx.match(toks[0]) for rx, _ in _PATTERNS):
        raise MoveSyntaxError(_("%(word)s answers a choice, but no choice of yours is waiting: "
                                "write the whole move with the choice after it", word=repr(toks[0])), text=text, seat=seat,
                              examples=ex(None))
    else:
        raise MoveSyntaxError(_("I do not know the word %(word)s: %(help)s", word=repr(toks[0]), help=_(SYNTAX_HELP)),
                              text=text, seat=seat, examples=ex(None))
    if st.pending and kind != ANSWER:
        raise IllegalMoveError(_("you are in the middle of a move: %(question)s; reply with just that choice",
                                 question=pending_question(st)), text=text, seat=seat, examples=ex(ANSWER))
    p = st.ps[seat]
    if sw and p.phase == 2:
        sw = 0  # already in Phase II: the prefix says nothing more
    if kind == PASS and p.phase == 1 and not sw:
        # §5.7: passing is a Phase II action. A bare 'pass' in Phase I would end the round
        # with workers left unplaced, so it is never read as 'phase2 pass': the refusal says what to write
        raise IllegalMoveError(_phase1_pass_reason(st, seat), text=text, seat=seat,
                               examples=_phase1_pass_examples(st, seat))
    if kind in (EARN, ACT, USE) and p.phase == 1:
        sw = 1  # these actions exist only in Phase II: going there is the only reading (§5.3)
    spaces: list[int] = []
    cards: list[int] = []
    lots: list[int] = []
    lob = 0
    com = 0
    given: dict[int, int] = {}

    def put(dtype, v, w):
        if dtype in given and given[dtype] != v:
            raise MoveSyntaxError(_("%(word)s contradicts an earlier choice in the same move", word=repr(w)),
                                  text=text, seat=seat, examples=ex(kind))
        given[dtype] = v

    echo = ECHO.get(kind, ())
    if kind == ANSWER and _pending_dtype(st) == D_BONUS:
        # a reply to "which bonus tile": 'worker' and '5' are the natural answers
        toks = ["+worker" if w in ("worker", "w") else "+5" if w in ("5", "cash", "money", "£")
                else w for w in toks]
    for w in toks:
        if w in NOISE or w in echo:
            continue
        s = _space(w)
        if s is not None:
            if s < 0:
                raise MoveSyntaxError(_("%(word)s is not a space: spaces lie between two side-by-side cards "
                                        "(%(spaces)s)", word=w, spaces=", ".join(SPACE_NAME)),
                                      text=text, seat=seat, examples=ex(kind))
            spaces.append(s)
            continue
        if re.fullmatch(r"\d{1,2}", w):
            n = int(w)
            if kind == ANSWER and _pending_dtype(st) in _BARE:
                put(_pending_dtype(st), n, w)
            elif kind == USE:
                if lots:
                    put(D_OPT, n, w)  # "use 1 2": lot 1, option 2
                else:
                    lots.append(n)
            elif kind == EVENT:
                # Overtime names a building; the other events with two options name the option
                put(D_BUILDING if st.cur_event == EV_OVERTIME else D_OPT, n, w)
            else:
                cards.append(n)
            continue
        if w in WORDS:
            dtype, v = WORDS[w]
            if dtype == "lob":
                lob = 1
            else:
                put(dtype, v, w)
            continue
        for rx, what in _PATTERNS:
            m = rx.match(w)
            if m:
                v = int(next(g for g in m.groups() if g is not None))
                if what == "tok":
                    put(D_TOKEN, v, w)
                elif what == "com":
                    if com and com != v:
                        raise MoveSyntaxError(_("two different Commerce values"), text=text, seat=seat,
                                              examples=ex(kind))
                    com = v
                elif what == "lot":
                    if v < 1:
                        raise MoveSyntaxError(_("lots are numbered from 1"), text=text, seat=seat, examples=ex(kind))
                    put(D_LOT, v, w)
                elif what == "opt":
                    put(D_OPT, v, w)
                elif what == "bld":
                    if kind == USE:
                        lots.append(v)
                    else:
                        put(D_BUILDING, v, w)
                break
        else:
            hint = pending_question(st) if kind == ANSWER else _(WORD_HINT[kind])
            raise MoveSyntaxError(_("I do not understand %(word)s here: %(hint)s", word=repr(w), hint=hint),
                                  text=text, seat=seat, examples=ex(kind))

    def ill(reason, k=kind):
        return IllegalMoveError(reason, text=text, seat=seat, examples=ex(k))

    a = b = 0
    if kind in (PLACE,):
        if cards or lots or lob or com or given or len(spaces) != 1:
            raise MoveSyntaxError(_("'place' takes one space, named by the two cards it lies between, "
                                    "e.g. 'place 1-2' or 'place 4-7'"), text=text, seat=seat,
                                  examples=ex(kind))
        a = spaces[0]
    elif kind == EVENT:
        if len(spaces) > 1 or cards or lots:
            raise MoveSyntaxError(_("'event' takes the event's choices only, e.g. 'event o1' or 'event vp'"),
                                  text=text, seat=seat, examples=ex(kind))
        if spaces:
            put(D_SPACE, spaces[0], SPACE_NAME[spaces[0]])
    elif kind in (EARN, ACT):
        if len(spaces) > 1 or len(cards) > 1 or lots:
            raise MoveSyntaxError(_("write '%(example)s': one card position (1-9) and the space of your worker",
                                    example='earn 4-5 5' if kind == EARN else 'act 5 4-5'),
                                  text=text, seat=seat, examples=ex(kind))
        if any(not 1 <= c <= 9 for c in cards):
            raise MoveSyntaxError(_("market cards are in positions 1 to 9"), text=text, seat=seat, examples=ex(kind))
        if kind == EARN and (lob or com or given):
            raise ill(_("Earn money takes no other choice (Lobbying never applies to it)"))
        a, b = _which_worker(st, seat, kind, spaces, cards, text)
    elif kind == USE:
        if len(lots) != 1 or spaces or cards or lob or com:
            raise MoveSyntaxError(_("write 'use N' with N the lot number of your building, e.g. 'use 1' or 'use 2 o2'"),
                                  text=text, seat=seat, examples=ex(kind))
        a = lots[0]
    elif kind == PASS:
        if spaces or cards or lots or lob or com or given:
            raise MoveSyntaxError(_("'pass' takes nothing else"), text=text, seat=seat, examples=ex(kind))
    elif kind == ANSWER:
        if spaces:
            put(D_SPACE, spaces[0], SPACE_NAME[spaces[0]])
        if cards or lots or len(spaces) > 1 or lob or com:
            raise ill(_("%(question)s: reply with just that choice", question=pending_question(st)))
    base = (kind, sw, a, b, lob, com)
    return _resolve(st, seat, base, given, ill)


_BARE = (D_TOKEN, D_OPT, D_BUILDING)


def _phase1_pass_reason(st: State, seat: int) -> str:
    """Why a bare 'pass' is refused in Phase I, and what the player can do instead."""
    p = st.ps[seat]
    on_market = sum(sp.count(seat) for sp in st.spaces)
    if on_market:
        return ngettext("you are in Phase I, and passing is a Phase II action; you cannot pass yet in any case: "
                        "%(num)d of your workers is on the market, and a player passes only once all of them "
                        "have left it (earn money or activate a card with them)",
                        "you are in Phase I, and passing is a Phase II action; you cannot pass yet in any case: "
                        "%(num)d of your workers are on the market, and a player passes only once all of them "
                        "have left it (earn money or activate a card with them)", on_market)
    if p.active:
        left = ngettext("your %(num)d active worker would stay unused this round",
                        "your %(num)d active workers would stay unused this round", p.active)
        places = [format_move(st, seat, m) for m in legal_moves(st, seat) if m[0] == PLACE]
        if places:
            return _("you are in Phase I, and passing is a Phase II action: write 'phase2 pass' to go to Phase II "
                     "and pass at once (%(left)s), or place a worker first, e.g. '%(move)s'", left=left, move=places[0])
        return _("you are in Phase I, and passing is a Phase II action: write 'phase2 pass' to go to Phase II "
                 "and pass at once (%(left)s)", left=left)
    return _("you are in Phase I, and passing is a Phase II action: write 'phase2 pass' to go to Phase II "
             "and pass at once")


def _phase1_pass_examples(st: State, seat: int) -> tuple[str, ...]:
    """'phase2 pass' first when it is legal, then a spread of other legal moves."""
    moves = legal_moves(st, seat)
    out = [format_move(st, seat, m) for m in moves if m[0] == PASS][:1]
    out += [e for e in examples_for(st, seat, None) if e not in out]
    return tuple(out[:5])


def _pending_dtype(st: State) -> int | None:
    try:
        execute(st, st.turn, (ANSWER, 0, 0, 0, 0, 0, ()), False)
    except NeedDecision as nd:
        return nd.dtype
    except Illegal:
        pass
    return None


def _which_worker(st: State, seat: int, kind: int, spaces, cards, text):
    """Decisions 3 and 4 (§15): the worker (space) and the card next to it."""
    market = st.market
    mine = [s for s in range(12) if seat in st.spaces[s]]
    if not mine:
        raise IllegalMoveError(_("you have no worker on the market"), text=text, seat=seat,
                               examples=_examples_fn(st, seat)(None))
    cand = []
    for s in (spaces or mine):
        if s not in mine:
            continue
        here = [q for q in SPACES[s] if market[q - 1] >= 0]
        if cards:
            if cards[0] in SPACES[s]:
                cand.append((s, cards[0]))
        elif kind == EARN and not here:
            cand.append((s, 0))
        else:
            cand.extend((s, q) for q in here)
    if spaces and spaces[0] not in mine:
        raise IllegalMoveError(_("you have no worker in space %(space)s", space=SPACE_NAME[spaces[0]]), text=text, seat=seat,
                               examples=_examples_fn(st, seat)(kind))
    if not cand:
        if cards and spaces:
            raise IllegalMoveError(_("card %(card)d is not next to space %(space)s", card=cards[0],
                                     space=SPACE_NAME[spaces[0]]),
                                   text=text, seat=seat, examples=_examples_fn(st, seat)(kind))
        if cards:
            raise IllegalMoveError(_("none of your workers is next to card %(card)d", card=cards[0]), text=text, seat=seat,
                                   examples=_examples_fn(st, seat)(kind))
        raise IllegalMoveError(_("no card is next to that worker"), text=text, seat=seat,
                               examples=_examples_fn(st, seat)(kind))
    if len(cand) > 1:
        verb = "earn" if kind == EARN else "act"
        opts = [f"{verb} {SPACE_NAME[s]} {q}" if kind == EARN else f"act {q} {SPACE_NAME[s]}" for s, q in cand]
        what = _("which card") if spaces else (_("which worker") if cards else _("which worker and which card"))
        raise AmbiguousMoveError(_("say %(what)s: %(moves)s", what=what, moves=_(" or ").join(opts[:6])),
                                 text=text, seat=seat,
                                 examples=tuple(opts[:5]))
    return cand[0]


def _resolve(st: State, seat: int, base: tuple, given: dict, ill) -> tuple:
    ans: tuple = ()
    forced: list = []
    missing = None
    while True:
        forced = []
        try:
            execute(st, seat, base + (ans,), False, forced)
            break
        except NeedDecision as nd:
            if nd.dtype in given:
                v = given.pop(nd.dtype)
                if v not in nd.choices:
                    words = _(" or ").join(answer_word(nd.dtype, c) for c in nd.choices)
                    why = why_not(st, seat, base, nd.dtype, v) or _why_other(nd.dtype, v, nd.choices)
                    raise ill(_("%(word)s is not possible here: %(why)s; choose %(words)s (%(question)s)",
                                word=answer_word(nd.dtype, v), why=why, words=words,
                                question=decision_question(nd.dtype)))
                ans += (nd.dtype * 100 + v,)
                continue
            missing = nd
            break
        except Illegal as e:
            raise ill(str(e)) from None
    forced_map = dict(forced)
    for dtype, v in given.items():
        if forced_map.get(dtype) == v:
            continue
        if dtype in forced_map:
            why = why_not(st, seat, base, dtype, v) or _why_other(dtype, v, [forced_map[dtype]])
            raise ill(_("%(word)s is not possible here: %(why)s; the only choice here is %(only)s (%(question)s)",
                        word=answer_word(dtype, v), why=why, only=answer_word(dtype, forced_map[dtype]),
                        question=decision_question(dtype)))
        if missing is not None and _can_arise(st, seat, base, dtype):
            words = _(" or ").join(answer_word(missing.dtype, c) for c in missing.choices)
            raise ill(_("you wrote %(word)s but not %(question)s, which comes first: add %(words)s",
                        word=answer_word(dtype, v), question=decision_question(missing.dtype), words=words))
        raise ill(_("%(word)s does not apply to this move: %(why)s", word=answer_word(dtype, v),
                    why=_why_absent(st, seat, base, dtype)))
    if base[0] == ANSWER and not ans:
        if missing is not None:
            words = _(" or ").join(answer_word(missing.dtype, c) for c in missing.choices)
            raise ill(_("%(question)s: reply with %(words)s", question=pending_question(st), words=words))
    return base + (ans,)


def _why_other(dtype: int, v: int, choices) -> str:
    """The last resort of why_not: what the choice would have been, and that the rules
    leave only the others here."""
    left = _(" or ").join(answer_word(dtype, c) for c in choices)
    return _("the rules leave only %(choices)s at this point of the move", choices=left)


def _can_arise(st: State, seat: int, base: tuple, dtype: int) -> bool:
    """Whether some legal completion of the move ``base`` asks ``dtype`` (§15)."""
    head = st.pending[:6] if base[0] == ANSWER and st.pending else base
    for m in legal_moves(st, seat):
        if m[0] == ANSWER:
            if any(code // 100 == dtype for code in st.pending[6] + m[6]):
                return True
        elif m[:6] == head and any(code // 100 == dtype for code in m[6]):
            return True
    return False


_ARISES = {
    D_TOKEN: N_("a token is chosen only when you activate a character that carries tokens"),
    D_LOT: N_("a lot is chosen only when you build a building"),
    D_RES: N_("a residence action comes only from a Residence, an Architect or Country Seat"),
    D_BONUS: N_("a bonus tile is chosen only when a gain takes you from below 8 VP to 8 or more"),
    D_OPT: N_("an option is chosen only for a building or event that has two"),
    D_RESOURCE: N_("£, S or VP is chosen only when you use Token Windfall"),
    D_BUILDING: N_("a building is named only when you use Overtime"),
    D_SPACE: N_("a space is named only when you use Late Placement"),
}


def _why_absent(st: State, seat: int, base: tuple, dtype: int) -> str:
    """Why a choice the player wrote never arises in this move, so the refusal teaches the rule."""
    head = st.pending[:6] if base[0] == ANSWER and st.pending else base
    kind, b = head[0], head[3]
    p = st.ps[seat]
    what = ""
    if kind == ACT and 1 <= b <= 9 and st.market[b - 1] >= 0:
        card = st.market[b - 1]
        if dtype == D_TOKEN and st.mtok[b - 1]:
            what = _("the %(card)s is a %(kind)s whose token (%(token)d) comes with it",
                     card=card_label(CARDS[card].label), kind=_(KIND_WORD[CARDS[card].kind]), token=st.mtok[b - 1][0])
        else:
            what = _("the %(card)s is a %(kind)s", card=card_label(CARDS[card].label),
                     kind=_(KIND_WORD[CARDS[card].kind]))
    elif kind == EVENT and st.cur_event >= 0:
        what = _("the event is %(event)s", event=card_name(CARDS[st.cur_event].name))
    elif kind == USE and 1 <= head[2] <= len(p.lots):
        card = p.lots[head[2] - 1]
        n = len(USE_OPTS[card])
        what = (ngettext("your %(card)s has one option", "your %(card)s has %(num)d options", n,
                         card=card_label(CARDS[card].label))
                if dtype == D_OPT else _("you are using your %(card)s", card=card_label(CARDS[card].label)))
    if dtype == D_BONUS:
        bonus = (_("you already have 8 VP or more") if p.vp >= 8 else
                 _("you have %(vp)d VP and this move does not bring you to 8", vp=p.vp))
        return f"{bonus}; " + _(_ARISES[dtype])
    return (what + "; " if what else "") + _(_ARISES[dtype])


KIND_WORD = {"character": N_("character"), "building": N_("building"), "technique": N_("technique"),
             "event": N_("event"), "start": N_("start card")}


def _examples_fn(st: State, seat: int):
    def ex(kind):
        return examples_for(st, seat, kind)
    return ex


def examples_for(st: State, seat: int, kind: int | None, limit: int = 5) -> tuple[str, ...]:
    """A few legal moves, preferring the kind of move the player tried."""
    moves = legal_moves(st, seat)
    if kind is not None:
        same = [m for m in moves if m[0] == kind]
        if same:
            moves = same
    complete = [m for m in moves if _is_complete(st, seat, m)]
    if complete:
        moves = complete
    if not moves:
        return ()
    # one move of every kind first (place, event, phase2 ..., earn, act, use, pass), so a
    # player sees what is possible and not six placements; then spread over the rest
    groups: dict = {}
    for m in moves:
        groups.setdefault((m[0], m[1]), []).append(m)
    spread = [g[::max(1, len(g) // limit)] for g in groups.values()]
    picked = []
    for depth in range(limit):
        for g in spread:
            if depth < len(g) and len(picked) < limit:
                picked.append(g[depth])
    return tuple(format_move(st, seat, m) for m in picked)


def _is_complete(st: State, seat: int, m: tuple) -> bool:
    try:
        execute(st, seat, m, False)
    except NeedDecision:
        return False
    except Illegal:
        return False
    return True


HELP = N_("""\
Spyrium notation (one move per line; capitals and spaces do not matter)
  place 1-2          Phase I: put a worker in space 1-2 (spaces: 1-2 2-3
                     4-5 5-6 7-8 8-9 1-4 2-5 3-6 4-7 5-8 6-9; cards 1-9)
  event ...          use the current event (once per round) with its
                     choice: o1/o2, money/spy/vp, adv/score, lot3, 4-5
  earn 4-5 5         Earn money: worker in 4-5 takes £ from card 5
  act 5 4-5          activate card 5 with your worker in 4-5; add
                     lob (Lobbying), c1/c2/c3 (Commerce value),
                     t2 (token), new or r2 (new lot / replace lot 2),
                     adv or score (residence action)
  use 2 o1           use the building in lot 2, option 1; a turned
                     building is used again with Taylorism
  pass               Phase II, once none of your workers is on the market
  phase2 earn 4-5 5  go to Phase II and at once take a Phase II action
  +worker / +5       the bonus tile when you reach 8 VP
A choice you leave out is asked for afterwards: reply with just that choice.
""")


def notation_help(st: State, seat: int | None) -> str:
    """The seat to move gets its options in words, each with its price (the "Your move."
    block of the board mail); anyone else the notation."""
    if seat is not None and not st.over and seat == st.turn:
        return options_help(st, seat)
    return _(HELP)
