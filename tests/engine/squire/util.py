"""Helpers to build Squire positions directly for rule tests."""
from __future__ import annotations

import functools
import os
from dataclasses import replace
from pathlib import Path

import pytest

from pbem.engine.base import validate_options
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.data import load
from pbem.engine.squire.rules import MOVE, State

D = load(())
BOARD_IDX = {b.id: i for i, b in enumerate(D.player_boards)}


def new(n: int = 4, side: str = "british", seed: int = 1, boards: tuple = ()) -> State:
    """A game after setup with the given boards per seat (default: fox, eagle, lioness, badger order)."""
    s = GAME.initial_state(n, seed, validate_options(GAME, n, {"side": side}))
    names = boards or ("fox", "eagle", "lioness", "badger")[:n]
    for seat, b in enumerate(names):
        s = GAME.apply(s, seat, GAME.parse_move(s, seat, f"board {b}"))
    return s


def city(s: State, name: str) -> int:
    return D.boards[s.side].city_ids.index(name)


def tok(tid: str) -> int:
    return [t[2] for t in D.tokens].index(tid)


def card(cid: str) -> int:
    return [c.id for c in D.cards].index(cid)


def typ(tid: str) -> int:
    return D.type_ids.index(tid)


def cell(name: str) -> int:
    f, c = int(name[1]), int(name[3])
    return (f - 1) * D.columns + c - 1


def player(s: State, seat: int, **kw) -> State:
    p = replace(s.players[seat], **kw)
    return replace(s, players=s.players[:seat] + (p,) + s.players[seat + 1:])


def gallery(*pairs: tuple[str, str]) -> tuple:
    g = [-1] * (D.floors * D.columns)
    for c, t in pairs:
        g[cell(c)] = tok(t)
    return tuple(g)


def put(s: State, city_name: str, tid: str) -> State:
    """Lay token ``tid`` in a city (taking it out of the supply/removed if needed)."""
    t = tok(tid)
    i = city(s, city_name)
    cities = list(s.cities)
    old = cities[i]
    supply = tuple(x for x in s.supply if x != t)
    removed = tuple(x for x in s.removed if x != t)
    if t in cities:
        cities[cities.index(t)] = old
    elif old >= 0 and (len(supply) < len(s.supply) or len(removed) < len(s.removed)):
        if len(supply) < len(s.supply):
            supply = supply + (old,)
        else:
            removed = removed + (old,)
    cities[i] = t
    return replace(s, cities=tuple(cities), supply=supply, removed=removed)


def at_move(s: State, seat: int, where: str, phase: str = MOVE, turn: int = 5) -> State:
    s = player(s, seat, pos=city(s, where) if where else -1)
    return replace(s, active=seat, phase=phase, turn=turn)


def play(s: State, seat: int, *texts: str) -> State:
    for t in texts:
        s = GAME.apply(s, seat, GAME.parse_move(s, seat, t))
    return s


def seat_to_move(s: State) -> int:
    return min(GAME.to_move(s))


GOLDEN = Path(__file__).parent / "golden"


def golden_playout(players: int, seed: int, options):
    """``random_playout`` with ``rng_seed=seed`` as the golden files were made: a uniform choice among the
    legal moves other than the standing order "offers none always" (added after them, so that the
    golden games stay the games they were; the conformance suite plays it)."""
    import random

    rng = random.Random(seed)

    def choose(state, seat, legal):
        legal = [m for m in legal if not (m.kind in ("buy", "sell", "offers") and m.b == 1)]
        return legal[rng.randrange(len(legal))]

    return random_playout(GAME, players, seed, options, choose=choose)


@functools.lru_cache(maxsize=None)
def golden_positions() -> dict:
    """The fixed positions of the golden boards and drawings: a 4-player British game at its setup, at ply
    60 and at the next movement phase, and a finished 2-player world game."""
    out = {}
    opts = validate_options(GAME, 4, {"side": "british"})
    _, rec = golden_playout(4, 101, opts)
    s = GAME.initial_state(4, 101, opts)
    out["setup4"] = s
    for i, (seat, m) in enumerate(rec):
        s = GAME.apply(s, seat, m)
        if i == 60:
            out["mid4"] = s
        if i > 60 and "move4" not in out and s.phase == "move":
            out["move4"] = s
    opts = validate_options(GAME, 2, {"side": "world"})
    out["final2"], _ = golden_playout(2, 202, opts)
    return out


def check_golden(name: str, text: str) -> None:
    """``text`` equals the golden file ``name`` (written only with PBEM_UPDATE_GOLDEN=1)."""
    path = GOLDEN / name
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1" or not path.exists():
        if os.environ.get("PBEM_UPDATE_GOLDEN") != "1":
            pytest.fail(f"golden file {name} missing; run with PBEM_UPDATE_GOLDEN=1")
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs; PBEM_UPDATE_GOLDEN=1 to accept"
