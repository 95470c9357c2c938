"""What the chat channels are sent, and when (the channels themselves: :mod:`.channels`).

What is sent is short and never more than its reader may see: "your turn in
#12 (Spyrium), deadline in 47 h" with the game's web address; reminders;
the start and the end of a game; talk the reader may read (the thread's one
door, visibility.posts). A table channel gets the public summary of each
move (what every seat is told: visibility.told, the public status line) and
the table talk. Never a board, never a seat's reply address.

The core announces the changes (services/core/events.py: a game started, a
change told to the table, a reminder, a post); the listeners are here. Quiet
hours in the user's time zone hold notifications back until they end; a
digest channel gets them in one message a day. Every function that depends
on the time takes ``now``."""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from typing import Any, Callable

from sqlalchemy import and_, bindparam, event, or_
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm.attributes import get_history
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.store.models import Game, Notification, NotifyChannel, Post, Seat, User, utcnow
from pbem.store.pushbox import queue_push

from ..core import games, lang, notify, seating, visibility
from ..core.clocks import aware, zone
from . import channels


# ---------------------------------------------------------------- when: quiet hours, the digest


def quiet_until(user: User, now: datetime) -> datetime | None:
    """The end of the quiet hours ``now`` is in (in the user's zone), or None."""
    start, end = user.quiet_from, user.quiet_until
    if start is None or end is None or start == end:
        return None
    z = zone(user.timezone)
    local = aware(now).astimezone(z)
    h = local.hour + local.minute / 60 + local.second / 3600
    inside = start <= h < end if start < end else (h >= start or h < end)
    if not inside:
        return None
    day = local.date() if h < end else local.date() + timedelta(days=1)
    return datetime.combine(day, time(end), tzinfo=z).astimezone(aware(now).tzinfo)


def digest_due(user: User, last: datetime | None, now: datetime) -> bool:
    """Whether a daily digest is due at ``now``: at the user's digest hour
    (their zone) once a day; with no hour chosen, a day after the last."""
    now = aware(now)
    last = aware(last)
    if user.digest_hour is None:
        return last is None or now - last >= timedelta(days=1)
    z = zone(user.timezone)
    local = now.astimezone(z)
    if last is None:  # the first one: in the hour chosen
        return local.hour == user.digest_hour
    moment = datetime.combine(local.date(), time(user.digest_hour), tzinfo=z)
    if local < moment:
        moment -= timedelta(days=1)
    return last is None or last < moment.astimezone(now.tzinfo)


DIGEST_BATCH = 50  # digests per transaction: a slow or failing batch holds back only itself
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)  # "due now": the sweep looks, digest_due decides


def next_digest(user: User) -> datetime | None:
    """When the sweep must next look at ``user``'s daily digest (users.digest_due_at): the first moment
    after the last one at which :func:`digest_due` holds; EARLIEST before the first; None unless the user
    takes a digest."""
    if user.notify != "digest":
        return None
    last = aware(user.digest_sent_at)
    if last is None:
        return EARLIEST
    if user.digest_hour is None:
        return last + timedelta(days=1)
    z = zone(user.timezone)
    moment = datetime.combine(last.astimezone(z).date(), time(user.digest_hour), tzinfo=z)
    if moment <= last:
        moment = datetime.combine(moment.date() + timedelta(days=1), time(user.digest_hour), tzinfo=z)
    return moment.astimezone(timezone.utc)


@event.listens_for(OrmSession, "before_flush")
def _keep_digest_due(s, _context, _instances) -> None:
    """A user's digest settings or last digest changed, anywhere: when the next one is due follows."""
    for user in (*s.new, *s.dirty):
        if isinstance(user, User) and (user in s.new or any(
                get_history(user, k).has_changes() for k in ("notify", "digest_sent_at", "digest_hour", "timezone"))):
            user.digest_due_at = next_digest(user)


# ---------------------------------------------------------------- queueing


def _channels_of(s: Session, user_id: int, event: str, rows: list[NotifyChannel] | None = None
                 ) -> list[NotifyChannel]:
    """The user's working channels that take ``event`` (from ``rows`` when the caller read them already)."""
    if rows is None:
        rows = list(s.exec(select(NotifyChannel).where(
            NotifyChannel.user_id == user_id, NotifyChannel.game_id == None,  # noqa: E711
            NotifyChannel.disabled_at == None)))  # noqa: E711
    return [r for r in rows if r.user_id == user_id and r.game_id is None and r.disabled_at is None
            and event in (r.events or [])]


# built once with their values as parameters (building a statement costs about as much as running it):
# one of them after every move
_TABLE_CHANNEL = select(NotifyChannel).where(NotifyChannel.game_id == bindparam("game_id"),
                                             NotifyChannel.disabled_at == None)  # noqa: E711
_GAME_CHANNELS = select(NotifyChannel).where(
    or_(NotifyChannel.game_id == bindparam("game_id"),
        and_(NotifyChannel.user_id.in_(bindparam("user_ids", expanding=True)),
             NotifyChannel.game_id == None)),  # noqa: E711
    NotifyChannel.disabled_at == None)  # noqa: E711


def _of_game(s: Session, g: Game, user_ids: list[int]) -> list[NotifyChannel]:
    """In one query: the working channels of these players, and the game's table channel."""
    if user_ids:
        return list(s.exec(_GAME_CHANNELS, params={"game_id": g.id, "user_ids": list(user_ids)}))
    return list(s.exec(_TABLE_CHANNEL, params={"game_id": g.id}))


_ZW = "\u200b"  # a zero-width space: keeps a word from being read as a mention, shows nothing


def unmention(text: str) -> str:
    """Text a player wrote (a post, a name), made unable to ping a chat room: Discord's @everyone,
    @here and <@id>, Slack's <!channel> and <@id>, Matrix's @room all lose their meaning, and read
    the same."""
    return (text or "").replace("@", "@" + _ZW).replace("<!", "<" + _ZW + "!")


def _push(s: Session, row: NotifyChannel, user: User | None, *, kind: str, body: str, title: str, link: str,
          game_id: int | None, dedupe: str | None, now: datetime) -> int | None:
    body, title = unmention(body), unmention(title)  # nothing in a notification pings a whole room
    if row.mode == "digest":
        return queue_push(s, row.id, kind=kind, title=title, body=body, link=link, game_id=game_id, dedupe=dedupe,
                          now=now, status="digest")
    held = quiet_until(user, now) if user is not None and row.game_id is None else None
    return queue_push(s, row.id, kind=kind, title=title, body=body, link=link, game_id=game_id, dedupe=dedupe,
                      now=now, at=held)


def _to_user(s: Session, user: User | None, event: str, g: Game, dedupe: str, write, now: datetime | None,
             rows: list[NotifyChannel] | None = None) -> int:
    """``write()`` -> (title, body), in each of the user's channels' language, to each that takes ``event``."""
    if user is None or user.disabled_at is not None:
        return 0
    now = now or utcnow()
    sent = 0
    for row in _channels_of(s, user.id, event, rows):
        with channels.speaking(row, user):
            title, body = write()
        sent += _push(s, row, user, kind=event, title=title, body=body, link=game_link(g), game_id=g.id,
                      dedupe=dedupe, now=now) is not None
    return sent


def game_link(g: Game) -> str:
    return f"{settings().base_url}/games/{g.id}"


def _named(g: Game) -> str:
    return _("#%(id)d (%(game)s)", id=g.id, game=games.engine_for(g).title)


def _title(g: Game) -> str:
    return _("pbem: %(game)s #%(id)d", game=games.engine_for(g).title, id=g.id)


def _left(deadline: datetime, now: datetime) -> str:
    hours = int((aware(deadline) - aware(now)).total_seconds() // 3600)
    if hours < 1:
        return _("in under an hour")
    return ngettext("in %(num)d hour", "in %(num)d hours", hours)


def your_turn(s: Session, g: Game, seat: Seat, user: User | None, now: datetime | None = None,
              rows: list[NotifyChannel] | None = None) -> int:
    """"Your turn in #12 (Spyrium), deadline in 47 h", once per turn."""
    if user is None or g.status != "running":
        return 0
    now = now or utcnow()
    deadline = seat.deadline_at
    started = seat.clock_started_at
    key = f"turn:{g.id}:{seat.seat}:{started.isoformat() if started else g.ply}"

    def write():
        if deadline is None:
            body = _("Your turn in %(game)s.", game=_named(g))
        else:
            body = _("Your turn in %(game)s, deadline %(left)s (%(when)s, %(tz)s).", game=_named(g),
                     left=_left(deadline, now), when=lang.when(deadline, user.timezone), tz=user.timezone)
        return _title(g), body

    return _to_user(s, user, "turn", g, key, write, now, rows)


def reminder(s: Session, g: Game, seat: Seat, user: User | None, deadline: datetime, stage: int = 0,
             now: datetime | None = None) -> int:
    if user is None:
        return 0
    now = now or utcnow()

    def write():
        return _title(g), _("Reminder: your move in %(game)s is due %(left)s (%(when)s, %(tz)s).",
                            game=_named(g), left=_left(deadline, now), when=lang.when(deadline, user.timezone),
                            tz=user.timezone)

    return _to_user(s, user, "reminder", g, f"reminder:{g.id}:{seat.seat}:{stage}:{deadline.isoformat()}", write,
                    now)


def _players(s: Session, g: Game) -> list[tuple[Seat, User]]:
    out = []
    for seat in seating.seats(s, g.id):
        if seat.user_id is None or seat.is_bot or seat.resigned:
            continue
        user = s.get(User, seat.user_id)
        if user is not None:
            out.append((seat, user))
    return out


def started(s: Session, g: Game, now: datetime | None = None) -> int:
    """The game has started: its players' channels, and its table channel."""
    players = _players(s, g)
    rows = _of_game(s, g, [user.id for _seat, user in players])
    if not rows:
        return 0
    names = ", ".join(seating.names(s, g.id))
    write = lambda: (_title(g), _("Game %(game)s has started: %(names)s.", game=_named(g),  # noqa: E731
                                  names=names))
    sent = sum(_to_user(s, user, "start", g, f"start:{g.id}", write, now, rows) for _seat, user in players)
    return sent + _to_table(s, g, "start", f"start:{g.id}", write, now, rows)


def ended(s: Session, g: Game, now: datetime | None = None, rows: list[NotifyChannel] | None = None) -> int:
    """The game is over: who won and the scores (public), to its players and its table."""
    players = _players(s, g)
    if rows is None:
        rows = _of_game(s, g, [user.id for _seat, user in players])
    write = lambda: (_title(g), notify.final_result(s, g))  # noqa: E731
    sent = sum(_to_user(s, user, "end", g, f"end:{g.id}", write, now, rows) for _seat, user in players)
    return sent + _to_table(s, g, "end", f"end:{g.id}", write, now, rows)


def _to_table(s: Session, g: Game, event: str, dedupe: str | None, write, now: datetime | None,
              rows: list[NotifyChannel] | None = None) -> int:
    row = channels.table_channel(s, g.id) if rows is None else next((r for r in rows if r.game_id == g.id), None)
    if row is None or row.disabled_at is not None or event not in (row.events or []):
        return 0
    with channels.speaking(row, None):
        title, body = write()
    return _push(s, row, None, kind=event, title=title, body=body, link=game_link(g), game_id=g.id, dedupe=dedupe,
                 now=now or utcnow()) is not None


def after_change(s: Session, g: Game, headline, to_move, now: datetime | None = None) -> int:
    """After a change services/core/notify announces (a move, a start, a seat
    taken over): "your turn" to each player now to move (once per turn),
    the game's end to every player, and the change as the whole table is
    told it to the table channel. One query finds every channel concerned;
    a game nobody follows in a chat costs only that."""
    players = _players(s, g)
    rows = _of_game(s, g, [user.id for _seat, user in players])
    if not rows:
        return 0
    if g.status == "finished":
        return ended(s, g, now, rows)
    sent = 0
    if g.status == "running":
        for seat, user in players:
            if seat.seat in to_move:
                sent += your_turn(s, g, seat, user, now, rows)
    return sent + table_board(s, g, headline, now, rows)


def table_board(s: Session, g: Game, headline, now: datetime | None = None,
                rows: list[NotifyChannel] | None = None) -> int:
    """What every seat is told of a change (``headline``: a string, lazy
    string or callable, as services/core/notify passes it) and the public status
    line, to the game's table channel."""
    if not games.has_started(g) or g.status != "running":
        return 0

    def write():
        status = str(games.view_for(s, g, None).get("status") or "").strip()
        said = lang.text(headline)
        body = _("%(headline)s (%(status)s)", headline=said, status=status) if status else said
        return _("%(game)s #%(id)d, ply %(ply)d", game=games.engine_for(g).title, id=g.id,
                 ply=visibility.public_ply(s, g)), body

    return _to_table(s, g, "board", None, write, now, rows)


def talk(s: Session, g: Game, post: Post, now: datetime | None = None) -> int:
    """A thread post, as each reader may read it (visibility.posts: the one
    door for posts): a table post to the table channel and to the players'
    channels that take talk; a private one to its addressee's only."""
    sent = 0
    table = channels.table_channel(s, g.id)
    if post.to_seat is None and table is not None and table.disabled_at is None and "talk" in (table.events or []):
        seen = _post_as(s, g, post, visibility.Viewer())
        if seen is not None:
            sent += _to_table(s, g, "talk", f"post:{post.id}",
                              lambda: (_title(g), _("%(who)s: %(text)s", who=seen.author, text=seen.body)), now)
    for seat, user in _players(s, g):
        if user.id == post.user_id or (post.to_user_id is not None and user.id != post.to_user_id):
            continue
        seen = _post_as(s, g, post, visibility.viewer(s, g, user))
        if seen is None:
            continue

        def write(seen=seen):
            if seen.private:
                return _title(g), _("%(who)s wrote to you privately in %(game)s: %(text)s", who=seen.author,
                                    game=_named(g), text=seen.body)
            return _title(g), _("%(who)s wrote to the table of %(game)s: %(text)s", who=seen.author,
                                game=_named(g), text=seen.body)

        sent += _to_user(s, user, "talk", g, f"post:{post.id}", write, now)
    return sent


def _post_as(s: Session, g: Game, post: Post, who) -> "visibility.PostRow | None":
    rows = visibility.posts(s, g, who, after_id=post.id - 1, limit=1)
    return rows[0] if rows and rows[0].id == post.id else None


# ---------------------------------------------------------------- the daily digest of digest channels


def _waiting(after: int):
    """The digest channels with something waiting, after id ``after``, in id order."""
    return (select(Notification.channel_id).where(Notification.status == "digest", Notification.channel_id > after)
            .distinct().order_by(Notification.channel_id))


def send_digests(s: Session, now: datetime, channel_ids: list[int] | None = None) -> int:
    """Each digest channel whose owner's digest hour has come: one message
    with what waited for it (held back by quiet hours like any other). Only
    ``channel_ids`` when given (the sweep's batches: :func:`send_all_digests`)."""
    sent = 0
    for channel_id in list(s.exec(_waiting(0))) if channel_ids is None else channel_ids:
        row = s.get(NotifyChannel, channel_id)
        if row is None or row.disabled_at is not None:
            continue
        user = s.get(User, row.user_id) if row.user_id else None
        if user is None or not digest_due(user, row.digest_sent_at or row.created_at, now):
            continue
        items = list(s.exec(select(Notification).where(Notification.channel_id == row.id,
                                                       Notification.status == "digest")
                            .order_by(Notification.id)))
        if not items:
            continue
        with channels.speaking(row, user):
            title = _("pbem: your daily digest")
            body = "\n".join(f"• {n.body}" + (f" {n.link}" if n.link else "") for n in items)
        for n in items:
            n.status = "digested"
            s.add(n)
        row.digest_sent_at = now
        s.add(row)
        queue_push(s, row.id, kind="digest", title=title, body=body, link=f"{settings().base_url}/",
                   dedupe=f"digest:{now.date().isoformat()}:{now.hour}", now=now, at=quiet_until(user, now))
        sent += 1
    s.flush()
    return sent


def in_batches(pick: Callable[[Session, int], list], send: Callable[[Session, list], int],
               key: Callable[[Any], int] = lambda x: x) -> int:
    """``send`` each batch that ``pick(s, after)`` gives (``after``: the ``key`` of the last one done),
    each in a transaction of its own, until none: a slow or failing batch holds back only itself.
    Returns what ``send`` counted."""
    from pbem.store.db import unit_of_work

    sent, after = 0, 0
    while True:
        with unit_of_work() as s:
            batch = pick(s, after)
            if not batch:
                return sent
            sent += send(s, batch)
            after = key(batch[-1])


def send_all_digests(now: datetime) -> int:
    """The digest channels' digests, DIGEST_BATCH channels to a transaction."""
    return in_batches(lambda s, after: list(s.exec(_waiting(after).limit(DIGEST_BATCH))),
                      lambda s, ids: send_digests(s, now, ids))
