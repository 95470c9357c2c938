"""Moves the others have not seen yet. "Seen" means mailed: while a seat's turn goes on privately
-- it is still to move, and none of its moves revealed anything or gave another seat something to
decide (a Squire turn of several steps, a Spyrium decision still pending, an It's a Wonderful World
order not finished) -- the others' board mails wait, and the one mail at the end of the turn tells
them every move of it (notify.announce_moves). Until then the seat may take its moves back at once
(services/referee/undo.py). ``Game.shown_ply`` is the latest ply whose board pbem mailed to someone
other than the seat to move alone (notify.mark_shown)."""
from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.store.models import Game, Move

from . import games


def last_move(s: Session, g: Game, seat: int) -> Move | None:
    """The seat's latest live move."""
    return s.exec(select(Move).where(Move.game_id == g.id, Move.seat == seat, Move.undone == False)  # noqa: E712
                  .order_by(Move.ply.desc()).limit(1)).first()


def private(engine: Any, before: Any, after: Any, seat: int) -> bool:
    """Whether ``seat``'s move from ``before`` to ``after`` kept its effect to
    the seat: nothing revealed or drawn, the seat still to move, and no other
    seat newly given something to decide."""
    if engine.reveals(before, after):
        return False
    now = engine.to_move(after)
    return seat in now and (now - {seat}) <= (engine.to_move(before) - {seat})


def unannounced(s: Session, g: Game, seat: int) -> int:
    """The ply after which ``seat``'s moves have not been mailed to the others:
    the later of the last board mailed to someone else and the last live move
    of another seat before the seat's own latest move."""
    lo, recent = games.recent_moves(s, g)  # the record's last plies, read once for every question of a move
    mine = next((m for m in reversed(recent) if m.seat == seat), None)
    if mine is not None:
        other = next((m.ply for m in reversed(recent) if m.seat != seat and m.ply < mine.ply), None)
        if other is not None or lo == 0:
            return max(g.shown_ply, other or 0)
    elif lo == 0:
        return g.ply
    else:
        mine = last_move(s, g, seat)
    if mine is None:
        return g.ply
    other = s.exec(select(func.max(Move.ply)).where(Move.game_id == g.id, Move.seat != seat, Move.ply < mine.ply,
                                                    Move.undone == False)).one()  # noqa: E712
    return max(g.shown_ply, other or 0)


PRIVATE_RUN = 64  # plies since the others last heard beyond which the board goes to them anyway


def keeps_turn(s: Session, g: Game, seat: int) -> bool:
    """Whether the others' board mails wait after ``seat``'s moves: the seat
    is still to move, and each of its moves since the others were last told
    was private (nothing revealed, nobody else newly to move). They go out
    when its turn ends (notify.announce_moves): until then it may take them
    back (services/referee/undo.takeback)."""
    if g.status != "running":
        return False
    engine = games.engine_for(g)
    if seat not in engine.to_move(games.state_at(s, g)):
        return False
    since = unannounced(s, g, seat)
    if g.ply - since > PRIVATE_RUN:  # a game nobody else is mailed (solo): no replay of its whole record
        return False
    state = games.state_at(s, g, since)
    for m in games.live_moves(s, g, since):
        after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        if m.seat == seat and not private(engine, state, after, seat):
            return False
        state = after
    return True
