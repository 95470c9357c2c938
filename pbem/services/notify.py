"""Mail to the players of a game: every seat gets only its own view."""
from __future__ import annotations

from sqlmodel import Session

from pbem.config import settings
from pbem.mail.addresses import seat_address, subject_tag
from pbem.mail.outbound import queue_mail
from pbem.store.models import Game, User

from . import games


def board_context(s: Session, g: Game, seat: int | None) -> dict:
    """Text and HTML board of ``seat`` (None = observer), from its view only."""
    engine = games.engine_for(g)
    view = games.view_for(s, g, seat)
    state = games.state_at(s, g)
    ctx = {
        "board_text": engine.render_text(view),
        "board_html": engine.render_html(view),
        "board_title": f"{engine.title} #{g.id}, ply {g.ply}",
        "status_line": view.get("status", ""),
    }
    if seat is not None and seat in engine.to_move(state):
        ctx["help_text"] = "Your move. " + engine.notation_help(state, seat)
    return ctx


def footer(g: Game, seat_token: str | None) -> str:
    cfg = settings()
    where = seat_address(g.id, seat_token, cfg.domain) if seat_token else cfg.command_address
    return (f"Game #{g.id} at ply {g.ply}. Reply to this mail (it goes to {where}) with your move, "
            f"one per line; STATUS for the board, HELP for the notation. Web: {cfg.base_url}/games/{g.id}")


def subject_for(g: Game, what: str) -> str:
    return f"{subject_tag(g.id, g.ply)} {games.engine_for(g).title}: {what}"


def queue_boards(s: Session, g: Game, headline: str, *, exclude: set[int] = frozenset(),
                 paragraphs: list[str] | None = None) -> int:
    """One mail per seated player (except ``exclude``) with that seat's board."""
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    to_move = engine.to_move(state)
    sent = 0
    for seat in games.seats(s, g.id):
        if seat.seat in exclude or seat.user_id is None or seat.resigned or seat.is_bot:
            continue
        user = s.get(User, seat.user_id)
        ctx = board_context(s, g, seat.seat)
        turn = "your turn" if seat.seat in to_move else ("game over" if g.status == "finished" else ctx["status_line"])
        ctx.update(title=f"{engine.title} #{g.id}", greeting=f"Dear {user.name},",
                   paragraphs=[headline, *(paragraphs or [])],
                   footer=footer(g, seat.token))
        queue_mail(s, to=user.email, subject=subject_for(g, turn), context=ctx, kind="board", user=user,
                   game_id=g.id, reply_to=seat_address(g.id, seat.token, settings().domain))
        sent += 1
    return sent
