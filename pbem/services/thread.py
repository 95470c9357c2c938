"""The game thread: posts, moves and notices in one stream, so a game can be
played entirely as a forum thread. Private posts reach only their recipient."""
from __future__ import annotations

from sqlmodel import Session, or_, select

from pbem.store.models import Game, Post, User

from . import games
from .errors import Forbidden, UserError

MAX_POST = 5000


def post(s: Session, g: Game, user: User | None, body: str, *, to_seat: int | None = None,
         kind: str = "post", source: str = "web") -> Post:
    body = (body or "").strip()
    if not body:
        raise UserError("the message is empty", example="SAY good luck, everyone!", code="empty_post")
    if len(body) > MAX_POST:
        raise UserError(f"a message is at most {MAX_POST} characters", code="post_too_long")
    seat = games.seat_of(s, g.id, user.id) if user is not None else None
    if to_seat is not None and not 0 <= to_seat < g.players:
        raise UserError(f"game #{g.id} has no seat {to_seat + 1}", code="no_seat")
    if kind == "post" and user is None:
        raise Forbidden("log in to post", code="login")
    p = Post(game_id=g.id, kind=kind, user_id=user.id if user else None, seat=seat.seat if seat else None,
             to_seat=to_seat, body=body, source=source)
    s.add(p)
    s.flush()
    return p


def visible(s: Session, g: Game, viewer: User | None, *, after_id: int = 0, limit: int = 500) -> list[Post]:
    """The posts ``viewer`` may read (public ones, and private ones to or from them)."""
    q = select(Post).where(Post.game_id == g.id, Post.id > after_id)
    seat = games.seat_of(s, g.id, viewer.id) if viewer is not None else None
    conds = [Post.to_seat.is_(None)]
    if viewer is not None:
        conds.append(Post.user_id == viewer.id)
    if seat is not None:
        conds.append(Post.to_seat == seat.seat)
    q = q.where(or_(*conds)).order_by(Post.id).limit(limit)
    return list(s.exec(q))
