"""Table talk, observers, STOP and the daily digest.

``SAY <text>`` goes to the whole table, ``SAY <seat or name>: <text>`` only
to that seat; both are posts in the game thread (private ones visible only to
author and recipient) and mails. ``OBSERVE <game>`` mails the public view
after every change. ``STOP`` ends non-essential mail: table talk, observer
boards and boards for other players' moves. What still comes: replies to
your own mails, the board when it is your turn, deadline reminders, admin
decisions about your games and the end of a game. ``notify=digest`` users get
one mail a day with the posts and boards of their games instead."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlmodel import Session, select

from pbem.config import settings
from pbem.mail.addresses import seat_address, subject_tag
from pbem.mail.outbound import queue_mail
from pbem.store.models import Game, Observer, Post, User

from . import games, thread, visibility
from .errors import UserError

DIGEST_EVERY = timedelta(hours=24)
TO_RE = re.compile(r"^\s*([^:]{1,80}?)\s*:\s*(.+)$", re.S)


def resolve_seat(s: Session, g: Game, who: str) -> int | None:
    """A seat number (1-based) or a player's name, or None when ``who`` is neither."""
    who = who.strip().lstrip("@")
    if who.isdigit():
        n = int(who)
        if not 1 <= n <= g.players:
            raise UserError(f"game #{g.id} has seats 1 to {g.players}", example="SAY 2: well played",
                            code="no_seat")
        return n - 1
    for i, name in enumerate(games.names(s, g.id)):
        if name.lower() == who.lower():
            return i
    return None


def say(s: Session, user: User, g: Game, text: str, *, source: str = "mail", to_seat: int | None = None) -> Post:
    """Post to the table, or privately when ``text`` is ``<seat or name>: <text>``
    (or ``to_seat`` is given: a reply to a private message)."""
    thread.check_may_post(s, g, user)  # first: a stranger learns nothing about the table from the answer
    text = (text or "").strip().lstrip(":").strip()
    m = TO_RE.match(text) if to_seat is None else None
    if m:
        target = resolve_seat(s, g, m.group(1))
        if target is not None:
            to_seat, text = target, m.group(2).strip()
    from . import notify

    p = thread.post(s, g, user, text, to_seat=to_seat, source=source)
    who = user.name
    mine = games.seat_of(s, g.id, user.id)
    # a reply to a private message stays private (pipeline: replies to talk are talk)
    what = "talk" if to_seat is None or mine is None else f"pm{mine.seat}"
    for seat in games.seats(s, g.id):
        if seat.user_id in (None, user.id) or seat.resigned:
            continue
        if to_seat is not None and seat.seat != to_seat:
            continue
        rcpt = s.get(User, seat.user_id)
        if rcpt.stopped or rcpt.notify == "digest":
            continue
        kind = "privately" if to_seat is not None else "to the table"
        queue_mail(s, to=rcpt.email, subject=f"{subject_tag(g.id, g.ply)} {who} says",
                   context={"title": f"Game #{g.id}", "greeting": f"Dear {rcpt.name},",
                            "paragraphs": [f"{who} wrote {kind}:", text,
                                           (f"Reply to this mail to answer {who} privately." if to_seat is not None else
                                            f"Reply to this mail to answer the table (a reply is table talk unless it "
                                            f"is in move notation), or SAY {who}: <text> to write to {who} alone.")]},
                   kind="notice", user=rcpt, game_id=g.id, ply=g.ply, what=what,
                   reply_to=seat_address(g.id, seat.token, settings().domain),
                   extra_headers=notify.unsubscribe_headers())
    return p


def observe(s: Session, user: User, g: Game) -> bool:
    """Returns False when already observing."""
    if g.status == "open":
        raise UserError(f"game #{g.id} has not started; observe it once it runs", code="not_started")
    if s.exec(select(Observer).where(Observer.game_id == g.id, Observer.user_id == user.id)).first():
        return False
    s.add(Observer(game_id=g.id, user_id=user.id))
    s.flush()
    return True


def unobserve(s: Session, user: User, g: Game) -> bool:
    row = s.exec(select(Observer).where(Observer.game_id == g.id, Observer.user_id == user.id)).first()
    if row is None:
        return False
    s.delete(row)
    s.flush()
    return True


NOTIFY_CHOICES = ("every", "turn", "digest")


def set_notify(s: Session, user: User, choice: str) -> None:
    """every: a board after every move; turn: only when it is your turn;
    digest: one mail a day."""
    choice = (choice or "").strip().lower()
    if choice not in NOTIFY_CHOICES:
        raise UserError(f"NOTIFY is one of {', '.join(NOTIFY_CHOICES)}", example="NOTIFY digest", code="bad_notify")
    user.notify = choice
    s.add(user)
    s.flush()


def stop(s: Session, user: User, on: bool = True) -> None:
    user.stopped = on
    s.add(user)
    s.flush()


def send_digests(s: Session, now: datetime) -> int:
    """One mail per ``notify=digest`` user, at most daily: the thread posts
    they may read since the last digest, and their boards."""
    from . import notify
    from .deadlines import aware

    sent = 0
    for user in s.exec(select(User).where(User.notify == "digest")):
        last = aware(user.digest_sent_at)
        if last is not None and now - last < DIGEST_EVERY:
            continue
        since = last or (now - DIGEST_EVERY)
        paragraphs: list[str] = []
        for g in games.list_mine(s, user):
            if g.status == "open":
                continue
            posts = [p for p in visibility.posts(s, g, visibility.viewer(s, g, user)) if aware(p.created_at) > since]
            if not posts and g.status != "running":
                continue
            seat = games.seat_of(s, g.id, user.id)
            board = notify.board_context(s, g, seat.seat if seat else None)
            lines = [f"Game #{g.id} ({games.engine_for(g).title}), ply {g.ply}: {board['status_line']}"]
            for p in posts:
                private = f" (privately to {p.to})" if p.private else ""
                lines.append(f"  {p.author}{private}: {p.body}")
            lines.append(board["board_text"])
            paragraphs.append("\n".join(lines))
        user.digest_sent_at = now
        s.add(user)
        if not paragraphs:
            continue
        queue_mail(s, to=user.email, subject="pbem: your daily digest",
                   context={"title": "Your games today", "greeting": f"Dear {user.name},",
                            "paragraphs": paragraphs,
                            "footer": f"You get a daily digest. Change it on {settings().base_url}/ "
                                      f"or send STOP to {settings().command_address}."},
                   kind="notice", user=user, extra_headers=notify.unsubscribe_headers())
        sent += 1
    s.flush()
    return sent
