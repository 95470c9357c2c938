"""Builders for hand-made It's a Wonderful World positions."""
from __future__ import annotations


from pbem.engine.iaww import GAME
from pbem.engine.iaww.data import CARD_OF, SLOT_KINDS
from pbem.engine.iaww.rules import PLAN, PROD, Player, Site, State, _pub, replace, start_step

G = GAME


def site(card: str, copy: int = 1, wild: int = 0, **filled: int) -> Site:
    """site("icebreaker", energy=2): a card under construction."""
    inst = card if "#" in card else f"{card}#{copy}"
    assert inst in CARD_OF, inst
    f = [0] * 8
    for kind, k in filled.items():
        f[SLOT_KINDS.index(kind)] = k
    return Site(inst, tuple(f), wild)


def inst(card: str, copy: int = 1) -> str:
    i = f"{card}#{copy}"
    assert i in CARD_OF, i
    return i


def player(empire: str = "aztec_empire", *, sites=(), built=(), draft=(), **kw) -> Player:
    return Player(empire=empire, sites=tuple(sites), built=tuple(inst(b) if "#" not in b else b for b in built),
                  draft=tuple(inst(d) if "#" not in d else d for d in draft), **kw)


def state(players, *, phase=PLAN, step=0, round=1, face="B", deck=(), scenario="") -> State:
    players = tuple(players)
    st = State(n=len(players), seed=1, face=face, scenario=scenario, consult=(), round=round, phase=phase,
               step=step, players=players, public=players, deck=tuple(deck))
    return _pub(st)


def production_state(players, step=0, round=1, face="B", consult=True) -> State:
    """A position at the beginning of production step ``step`` (counting and
    supremacy done)."""
    st = state(players, phase=PROD, step=step, round=round, face=face)
    st = replace(st, consult=tuple(range(len(players))) if consult is True else (consult or ()))
    return start_step(st, step)


def do(st: State, seat: int, *moves: str) -> State:
    """Parse and apply moves as a mail would."""
    for text in moves:
        st = G.apply(st, seat, G.parse_move(st, seat, text))
    return st


def me(st: State, seat: int = 0) -> Player:
    return st.players[seat]


def site_of(p: Player, card: str) -> Site:
    for s in p.sites:
        if s.inst.split("#")[0] == card:
            return s
    raise AssertionError(f"{card} not under construction")


def built_ids(p: Player) -> list[str]:
    return [i.split("#")[0] for i in p.built]
