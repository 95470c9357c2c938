"""Finished games for the archive's tests: real accounts, real posts (public and
private), every move through services/core/moves.submit_moves, each chosen by the
engine's own bot."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import update

from pbem.engine import bots as engine_bots
from pbem.engine import get_game
from pbem.services.core import accounts, games, moves, thread
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game

SECRET = "the private word nobody else reads"


def people(*names: str) -> list:
    with unit_of_work() as s:
        return [accounts.register(s, f"{n.lower()}@x.test", n, confirmed=True)[0] for n in names]


def finished_game(name: str, players: list, seed: int = 7, *, finished_at: datetime | None = None,
                  talk: bool = True, take_back: bool = False) -> int:
    """A game of ``name`` by ``players`` (users, the first creates it), played to its end;
    ``take_back``: the first move its player may take back at once (services/referee/undo) is taken
    back, and the game goes on (the log keeps it, undone)."""
    from pbem.services.referee import undo

    engine = get_game(name)
    with unit_of_work() as s:
        gid = tables.create(s, players[0], name, len(players), seed=seed).id
    for p in players[1:]:
        with unit_of_work() as s:
            tables.join(s, p, gid)
    if talk:
        with unit_of_work() as s:
            g = games.get(s, gid)
            thread.post(s, g, players[0], "good luck, everyone")
            thread.post(s, g, players[0], SECRET, to_seat=1 if len(players) > 1 else None)
    for n in range(2000):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status != "running":
                break
            state = games.state_at(s, g)
            seat = min(engine.to_move(state))
            move = engine_bots.choose(engine, state, seat, n)
            res = moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
            assert res.ok, res.error
            if take_back and undo.takeback(s, g, seat).allowed:
                undo.take_back(s, players[seat], gid, ply=res.ply)
                take_back = False
    assert not take_back, "no move could be taken back"
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "finished", (name, g.status, g.ply)
        if finished_at is not None:
            s.exec(update(Game).where(Game.id == gid).values(updated_at=finished_at))
    return gid


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def replaced_secret_game(players: list, seed: int = 7) -> tuple[int, str]:
    """A game of It's a Wonderful World in which the first player, having picked, picks
    another card before the pick is revealed (the first is replaced: services/core/games); played
    to its end. Returns the game and the replaced pick's notation."""
    from pbem.services.core import visibility

    engine = get_game("iaww")
    with unit_of_work() as s:
        gid = tables.create(s, players[0], "iaww", len(players), seed=seed).id
    for p in players[1:]:
        with unit_of_work() as s:
            tables.join(s, p, gid)
    with unit_of_work() as s:
        g = games.get(s, gid)
        thread.post(s, g, players[0], "good luck, everyone")
        thread.post(s, g, players[0], SECRET, to_seat=1)
    replaced = None
    for n in range(3000):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status != "running":
                break
            state = games.state_at(s, g)
            to_move = engine.to_move(state)
            deciding = moves.deciding_state(s, g, 0) if replaced is None and 0 not in to_move else None
            if deciding is not None and deciding[1]:
                replaced = visibility.on_file(s, g, 0).notations[0]
                base = deciding[0]
                other = next(m for m in engine.legal_moves(base, 0) if engine.format_move(base, 0, m) != replaced)
                texts, base2 = [engine.format_move(base, 0, other)], engine.apply(base, 0, other)
                while 0 in engine.to_move(base2):
                    m = engine_bots.choose(engine, base2, 0, n)
                    texts.append(engine.format_move(base2, 0, m))
                    base2 = engine.apply(base2, 0, m)
                res = moves.submit_moves(s, gid, 0, texts, source="web")
                assert res.ok and res.replaced, res.error
                continue
            seat = min(to_move)
            move = engine_bots.choose(engine, state, seat, n)
            assert moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web").ok
    with unit_of_work() as s:
        assert games.get(s, gid).status == "finished" and replaced
    return gid, replaced
