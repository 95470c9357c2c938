"""Which moves' notation another seat may read yet. In a simultaneous step
(several seats to move at once: an It's a Wonderful World pick or plan) a
seat's choice is secret until the engine reveals the step; until then the
move log, the thread and the board mails show only that the seat has acted."""
from __future__ import annotations

from sqlmodel import Session

from pbem.store.models import Game

from . import games

WINDOW = 64  # plies looked back: a simultaneous step is never longer than this


def concealed_plies(s: Session, g: Game) -> set[int]:
    """Plies whose move is still secret from every seat but its mover."""
    if not games.has_started(g) or g.ply == 0:
        return set()
    engine = games.engine_for(g)
    start = max(0, g.ply - WINDOW)
    state = games.state_at(s, g, start)
    moves = games._record(s, g.id, start, g.ply)
    simultaneous: list[int] = []  # plies made inside a still-unrevealed simultaneous step
    for m in moves:
        before = state
        was_simultaneous = len(engine.to_move(before)) > 1
        state = engine.apply(before, m.seat, engine.parse_move(before, m.seat, m.notation))
        if engine.reveals(before, state):
            simultaneous = []  # everything so far is out in the open
        elif was_simultaneous:
            simultaneous.append(m.ply)
    return set(simultaneous)


def is_concealed_for(ply: int | None, mover_seat: int | None, viewer_seat: int | None, concealed: set[int]) -> bool:
    return ply is not None and ply in concealed and mover_seat != viewer_seat
