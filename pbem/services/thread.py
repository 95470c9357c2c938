"""The game thread: posts, moves and notices in one stream, so a game can be
played entirely as a forum thread. Private posts reach only their recipient:
what a viewer may read of the thread is services/visibility's to say."""
from __future__ import annotations

from sqlmodel import Session

from pbem.store.models import Game, Post, User

from . import games
from .errors import Forbidden, UserError

MAX_POST = 5000


def may_post(s: Session, g: Game, user: User | None) -> bool:
    try:
        check_may_post(s, g, user)
    except Forbidden:
        return False
    return True


def check_may_post(s: Session, g: Game, user: User | None) -> None:
    """Who writes in a game's thread, to the table or privately (by the game
    page, the management page or SAY by mail): those at its table
    (games.not_at_table). Observers, strangers and players who resigned read it."""
    why = games.not_at_table(s, g, user)
    if why == "login":
        raise Forbidden("log in to write in a game's thread", code="login")
    if why == "not_a_player":
        raise Forbidden(f"only the players of game #{g.id} write in its thread; you have no seat in it "
                        f"(you can read the thread, and observe the game)", code="not_a_player")
    if why == "resigned":
        raise Forbidden(f"you resigned from game #{g.id}, so you no longer write in its thread", code="resigned")


def post(s: Session, g: Game, user: User | None, body: str, *, to_seat: int | None = None,
         kind: str = "post", source: str = "web") -> Post:
    """A post in the thread; ``kind`` "post" is a person's, and only those
    who may write there (check_may_post) write one. A refusal stores nothing."""
    if kind == "post":
        check_may_post(s, g, user)
    body = (body or "").strip()
    if not body:
        raise UserError("the message is empty", example="SAY good luck, everyone!", code="empty_post")
    if len(body) > MAX_POST:
        raise UserError(f"a message is at most {MAX_POST} characters", code="post_too_long")
    seat = games.seat_of(s, g.id, user.id) if user is not None else None
    to_user_id = None
    if to_seat is not None:
        to_user_id = recipient(s, g, to_seat)
    p = Post(game_id=g.id, kind=kind, user_id=user.id if user else None, seat=seat.seat if seat else None,
             to_seat=to_seat, to_user_id=to_user_id, body=body, source=source)
    s.add(p)
    s.flush()
    return p


def recipient(s: Session, g: Game, to_seat: int) -> int:
    """The user a private post to ``to_seat`` goes to: the seat's player now
    (the post stays theirs when someone else takes the seat later)."""
    if not 0 <= to_seat < g.players:
        raise UserError(f"game #{g.id} has no seat {to_seat + 1}", code="no_seat")
    seat = next((x for x in games.seats(s, g.id) if x.seat == to_seat), None)
    if seat is None or seat.user_id is None or seat.resigned or seat.is_bot:
        raise UserError(f"seat {to_seat + 1} of game #{g.id} has no player to read a private message now "
                        f"(a bot plays it until someone takes it over); write to the table instead",
                        code="no_recipient")
    return seat.user_id
