"""Builders for hand-made Spyrium positions (RULES.md §16 and rule tests)."""
from __future__ import annotations

import dataclasses

from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS, DECK, EVENTS, SPACE_INDEX, card_id
from pbem.engine.spyrium.state import Player, State

RED, BLUE, GREEN, YELLOW, BLACK = range(5)


def cid(label: str) -> int:
    """A card id from a label such as 'Mine £5', 'Factory £6', 'Apprentice' or 'Architect (A)'."""
    period = None
    if label.endswith(")") and "(" in label:
        label, period = label[:-1].split(" (")
    if "£" in label:
        name, price = label.rsplit(" £", 1)
        return card_id(name, int(price), period)
    return card_id(label, None, period)


def player(money=10, spy=2, vp=0, res=2, phase=1, passed=False, evused=False, active=3, used=0,
           onbld=0, owned=None, bonus=0, lots=(), turned=None, techs=(), lobused=False,
           comused=False, tayused=False, kept=(), market=0, lotw=None) -> Player:
    lots = tuple(cid(x) if isinstance(x, str) else x for x in lots)
    techs = tuple(cid(x) if isinstance(x, str) else x for x in techs)
    if turned is None:
        turned = (False,) * len(lots)
    if owned is None:
        owned = active + used + onbld + market
    if lotw is None:  # the workers on buildings stand on lot 1 unless said otherwise
        lotw = ((onbld,) + (0,) * (len(lots) - 1)) if lots else ()
    return Player(money, spy, vp, res, phase, passed, evused, active, used, onbld, owned, bonus,
                  lots, tuple(turned), techs, lobused, comused, tayused, tuple(sorted(kept)),
                  tuple(lotw))


def state(ps, market=None, tokens=None, spaces=None, event="Spyrium Sale", cur_token=0, turn=0,
          first=0, rnd=1, future="Token Windfall", fut_token=1, supply=None, discard=(),
          over=False) -> State:
    """A position: ``market`` maps position -> label, ``tokens`` position -> values,
    ``spaces`` '1-2' -> list of seats. Players' market workers are added to
    ``owned`` automatically."""
    n = len(ps)
    mk = [-1] * 9
    for q, label in (market or {}).items():
        mk[q - 1] = cid(label) if isinstance(label, str) else label
    mt = [()] * 9
    for q, vals in (tokens or {}).items():
        mt[q - 1] = tuple(sorted(vals))
    sp = [()] * 12
    counts = [0] * n
    for name, seats in (spaces or {}).items():
        a, b = map(int, name.split("-"))
        sp[SPACE_INDEX[(a, b)]] = tuple(sorted(seats))
        for s in seats:
            counts[s] += 1
    ps = tuple(p if counts[i] == 0 else Player(*[getattr(p, f) for f in Player.__slots__[:10]],
                                                 p.owned + counts[i], *[getattr(p, f) for f in Player.__slots__[11:]])
               for i, p in enumerate(ps))
    ev = cid(event)
    fut = cid(future) if future else None
    events = tuple([fut] + [e for e in EVENTS if e not in (ev, fut)]) if fut is not None else ()
    if supply is None:
        supply = tuple([1] * 6 + [2] * 6 + [3] * 6)
    period = "A" if rnd <= 3 else "B" if rnd <= 5 else "C"
    decks = tuple(DECK[p] if p != period else DECK[p][:max(0, len(DECK[p]) - 9)] for p in "ABC")
    return State(n, 1, rnd, first, -1 if over else turn, decks, events, ev, cur_token,
                 fut_token if future == "Token Windfall" else 0, tuple(supply), tuple(sorted(discard)), 0,
                 tuple(mk), tuple(mt), tuple(sp), ps, (), over)


def play(st, seat, text):
    """Parse and apply one move in notation."""
    return GAME.apply(st, seat, GAME.parse_move(st, seat, text))


def space(st, name):
    a, b = map(int, name.split("-"))
    return list(st.spaces[SPACE_INDEX[(a, b)]])


def names(p):
    return [CARDS[c].label for c in p.lots]


def with_turn(st, seat):
    """The same position with ``seat`` to act (a turn skipped for the test)."""
    return dataclasses.replace(st, turn=seat, cache=None)


def with_player(st, seat, **changes):
    ps = list(st.ps)
    ps[seat] = dataclasses.replace(ps[seat], **changes)
    return dataclasses.replace(st, ps=tuple(ps), cache=None)
