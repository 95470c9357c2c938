"""The game thread: posts, moves and notices in one stream, so a game can be
played entirely as a forum thread. Private posts reach only their recipient:
what a viewer may read of the thread is services/core/visibility's to say."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.store.models import Game, Post, User, utcnow

from . import events, seating
from .errors import Forbidden, UserError

MAX_POST = 5000
# what a player's game pages show of the thread (users.thread_filter): everything, the talk (posts, private
# posts and notices), or the moves (and the notices: a pause, a dispute, a take-back concern the moves too)
SHOWS = ("all", "talk", "moves")


def shown(user: User | None) -> str:
    """What ``user``'s game pages show of the thread (a visitor: everything)."""
    show = getattr(user, "thread_filter", None)
    return show if show in SHOWS else "all"


def set_shown(s: Session, user: User, show: str) -> str:
    """Remember what ``user``'s game pages show of the thread (one of SHOWS), on every device."""
    if show not in SHOWS:
        raise UserError(_("the thread shows all, talk or moves"), code="bad_filter")
    if user.thread_filter != show:
        user.thread_filter = show
        s.add(user)
    return show


def may_post(s: Session, g: Game, user: User | None) -> bool:
    try:
        check_may_post(s, g, user)
    except Forbidden:
        return False
    return True


def check_may_post(s: Session, g: Game, user: User | None) -> None:
    """Who writes in a game's thread, to the table or privately (by the game
    page, the management page or SAY by mail): those at its table
    (seating.not_at_table). Observers, strangers and players who resigned read it."""
    why = seating.not_at_table(s, g, user)
    if why == "login":
        raise Forbidden(_("log in to write in a game's thread"), code="login")
    if why == "not_a_player":
        raise Forbidden(_("only the players of game #%(id)d write in its thread; you have no seat in it (you can "
                          "read the thread, and observe the game)", id=g.id), code="not_a_player")
    if why == "resigned":
        raise Forbidden(_("you resigned from game #%(id)d, so you no longer write in its thread", id=g.id),
                        code="resigned")


def post(s: Session, g: Game, user: User | None, body: str, *, to_seat: int | None = None,
         kind: str = "post", source: str = "web") -> Post:
    """A post in the thread; ``kind`` "post" is a person's, and only those
    who may write there (check_may_post) write one. A refusal stores nothing."""
    if kind == "post":
        check_may_post(s, g, user)
        check_talk_quota(s, user)
    body = (body or "").strip()
    if not body:
        raise UserError(_("the message is empty"), example="SAY good luck, everyone!", code="empty_post")
    if len(body) > MAX_POST:
        raise UserError(ngettext("a message is at most %(num)d character", "a message is at most %(num)d characters",
                                 MAX_POST), code="post_too_long")
    seat = seating.seat_of(s, g.id, user.id) if user is not None else None
    to_user_id = None
    if to_seat is not None:
        to_user_id = recipient(s, g, to_seat)
    p = Post(game_id=g.id, kind=kind, user_id=user.id if user else None, seat=seat.seat if seat else None,
             to_seat=to_seat, to_user_id=to_user_id, body=body, source=source)
    s.add(p)
    s.flush()
    if kind == "post":  # to the chat channels that take talk, as each may read it
        events.POSTED.announce(s, g, p)
    return p


def check_talk_quota(s: Session, user: User, *, pending: int = 0, now: datetime | None = None) -> None:
    """At most ``PBEM_TALK_PER_HOUR`` posts (table talk and private messages,
    in all games, by web and by mail) a person writes in any hour (one mail of
    199 SAY lines would send 797 mails). Each post is one mail to each
    reader, so this caps what one person can make pbem send. ``pending``:
    posts the caller has checked but not written yet (a mail's SAY lines)."""
    limit = settings().talk_per_hour
    now = now or utcnow()
    n = s.exec(select(func.count()).select_from(Post).where(
        Post.user_id == user.id, Post.kind == "post", Post.created_at > now - timedelta(hours=1))).one() + pending
    if limit > 0 and n >= limit:
        raise UserError(ngettext("you have written %(num)d message in the last hour, and pbem takes at most "
                                 "%(limit)d an hour from one person (each is mailed to the other players); nothing "
                                 "was sent. Please write again later, or say more in one message",
                                 "you have written %(num)d messages in the last hour, and pbem takes at most "
                                 "%(limit)d an hour from one person (each is mailed to the other players); nothing "
                                 "was sent. Please write again later, or say more in one message", n, limit=limit),
                        example="SAY good luck, everyone!",
                        code="talk_quota")


def recipient(s: Session, g: Game, to_seat: int) -> int:
    """The user a private post to ``to_seat`` goes to: the seat's player now
    (the post stays theirs when someone else takes the seat later)."""
    if not 0 <= to_seat < g.players:
        raise UserError(_("game #%(id)d has no seat %(seat)d", id=g.id, seat=to_seat + 1), code="no_seat")
    seat = next((x for x in seating.seats(s, g.id) if x.seat == to_seat), None)
    if seat is None or seat.user_id is None or seat.resigned or seat.is_bot:
        raise UserError(_("seat %(seat)d of game #%(id)d has no player to read a private message now (a bot plays "
                          "it until someone takes it over); write to the table instead", seat=to_seat + 1, id=g.id),
                        code="no_recipient")
    return seat.user_id
