"""Notifications beyond mail (issue 24): a player's chat and push channels
(Discord, Slack, Telegram, Matrix, ntfy, a JSON webhook: Apprise URLs) and a
game's table channel, where a group that plays in a chat room follows the
game.

What is sent is short and never more than its reader may see: "your turn in
#12 (Spyrium), deadline in 47 h" with the game's web address; reminders;
the start and the end of a game; talk the reader may read (the thread's one
door, visibility.posts). A table channel gets the public summary of each
move (what every seat is told: visibility.told, the public status line) and
the table talk. Never a board, never a seat's reply address.

Each user chooses, per channel, the kinds of notification it gets and
whether they come at once or in a daily digest (at the user's digest hour);
quiet hours in the user's time zone hold notifications back until they end.
Queueing is the store's (store/pushbox.py); delivery, with retries, backoff
and a rate limit per channel, is pbem/push's. A channel whose deliveries
keep failing is disabled here (:func:`failed`) and its owner told by mail.
Every function that depends on the time takes ``now``."""
from __future__ import annotations

import ipaddress
import logging
import socket
from datetime import datetime, time, timedelta, timezone
from typing import Any, Callable
from urllib.parse import urlsplit

from sqlalchemy import and_, delete, event, or_, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm.attributes import get_history
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import N_, _, ngettext
from pbem.store.models import Game, Notification, NotifyChannel, Post, Seat, User, utcnow
from pbem.store.pushbox import queue_push

from . import games, lang, visibility
from .errors import UserError

log = logging.getLogger("pbem.channels")

# Apprise's plugin -> pbem's kind of channel (the six the service offers)
PLUGINS = {"NotifyDiscord": "discord", "NotifySlack": "slack", "NotifyTelegram": "telegram",
           "NotifyMatrix": "matrix", "NotifyNtfy": "ntfy", "NotifyJSON": "json"}
KIND_NAMES = {"discord": "Discord", "slack": "Slack", "telegram": "Telegram", "matrix": "Matrix", "ntfy": "ntfy",
              "json": N_("JSON webhook")}
# the kinds whose address names the server pbem calls (the others call their service's own host)
HOSTED = ("matrix", "ntfy", "json")
EVENTS = ("turn", "reminder", "start", "end", "talk")
EVENT_WORDS = {"turn": N_("your turn"), "reminder": N_("deadline reminders"), "start": N_("a game starts"),
               "end": N_("a game ends"), "talk": N_("table talk and private messages to you")}
DEFAULT_EVENTS = ("turn", "reminder", "start", "end")
TABLE_EVENTS = ("board", "talk", "start", "end")
MODES = ("instant", "digest")
MAX_CHANNELS = 5
EXAMPLE_URL = "ntfy://ntfy.sh/my-pbem-topic"
URL_MAX = 1000
DEFAULT_DIGEST_HOUR = 8


def kind_name(kind: str) -> str:
    return _(KIND_NAMES.get(kind, kind))


def event_word(event: str) -> str:
    return _(EVENT_WORDS[event]) if event in EVENT_WORDS else event


# ---------------------------------------------------------------- addresses


def plugin_for(url: str):
    """Apprise's notifier for ``url``, or None."""
    import apprise

    try:
        return apprise.Apprise.instantiate(url, suppress_exceptions=True)
    except Exception:  # noqa: BLE001 - a URL Apprise cannot read
        return None


def parse(url: str, *, example: str = f"NOTIFY ADD {EXAMPLE_URL}") -> tuple[str, str]:
    """(kind, url) of a channel's address, or a UserError that says why not."""
    url = (url or "").strip().strip("<>")
    if not url:
        raise UserError(_("a notification address is missing"), example=example, code="no_url")
    if len(url) > URL_MAX or any(c.isspace() or ord(c) < 32 for c in url):
        raise UserError(_("a notification address is one line without spaces, at most %(max)d characters",
                          max=URL_MAX), example=example, code="bad_url")
    plugin = plugin_for(url)
    kind = PLUGINS.get(type(plugin).__name__) if plugin is not None else None
    if kind is None:
        raise UserError(_("pbem cannot send to %(url)s: it sends to Discord, Slack, Telegram, Matrix, ntfy and "
                          "JSON webhooks, written as their Apprise addresses (discord://, slack://, tgram://, "
                          "matrix://, ntfy://, json://) or as the webhook's own https address",
                          url=shown(url)), example=example, code="bad_url")
    host = host_of(kind, plugin)
    if host is not None:
        why = refused_host(host)
        if why:
            raise UserError(_("pbem does not send to %(host)s: %(why)s", host=host, why=why), example=example,
                            code="private_host")
    return kind, url


def host_of(kind: str, plugin) -> str | None:
    """The host pbem would call for a channel of ``kind`` (None: the service's own, e.g. discord.com)."""
    if kind not in HOSTED:
        return None
    host = getattr(plugin, "host", None) or ""
    if kind == "ntfy" and (getattr(plugin, "mode", "") == "cloud" or not host):
        return None  # ntfy.sh itself
    return host


def refused_host(host: str) -> str:
    """Why pbem will not call ``host`` (a private, loopback or link-local
    address, or one that does not resolve), or "" when it may. A server must
    not be made to call into its own network (settings().notify_private_hosts
    allows it: tests, a private installation)."""
    if settings().notify_private_hosts:
        return ""
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError):
            return _("the name does not resolve")
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    for a in addresses:
        if (a.is_private or a.is_loopback or a.is_link_local or a.is_reserved or a.is_multicast
                or a.is_unspecified):
            return _("it is on a private network")
    return ""


def masked(url: str) -> str:
    """The address with its secrets hidden (Apprise's privacy mode), without the options."""
    plugin = plugin_for(url)
    if plugin is None:
        return shown(url)
    return plugin.url(privacy=True).split("?", 1)[0]


def shown(url: str) -> str:
    """An address as quoted back in an error: its scheme and host, never a token in its path."""
    parts = urlsplit(url[:200])
    if parts.scheme and parts.netloc:
        return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}/..."
    return url[:12] + ("..." if len(url) > 12 else "")


# ---------------------------------------------------------------- a user's channels


def mine(s: Session, user: User) -> list[NotifyChannel]:
    """The user's own channels, numbered from 1 in this order (NOTIFY LIST)."""
    return list(s.exec(select(NotifyChannel).where(NotifyChannel.user_id == user.id,
                                                   NotifyChannel.game_id == None)  # noqa: E711
                       .order_by(NotifyChannel.id)))


def numbered(s: Session, user: User, n) -> NotifyChannel:
    rows = mine(s, user)
    text = str(n).strip().lstrip("#")
    if not text.isdigit() or not 1 <= int(text) <= len(rows):
        if not rows:
            raise UserError(_("you have no notification channel yet"), example=f"NOTIFY ADD {EXAMPLE_URL}",
                            code="no_channel")
        raise UserError(ngettext("there is no channel %(n)s: you have %(num)d (NOTIFY LIST shows it)",
                                 "there is no channel %(n)s: you have %(num)d (NOTIFY LIST shows them)",
                                 len(rows), n=text[:10] or "?"),
                        example="NOTIFY LIST", code="no_channel")
    return rows[int(text) - 1]


def add(s: Session, user: User, url: str, label: str = "", *, now: datetime | None = None) -> NotifyChannel:
    """A new channel for ``user``, sent a test message at once."""
    kind, url = parse(url)
    rows = mine(s, user)
    if len(rows) >= MAX_CHANNELS:
        raise UserError(_("you have %(num)d notification channels, the most pbem keeps; remove one first",
                          num=len(rows)), example="NOTIFY REMOVE 1", code="too_many_channels")
    if any(r.url == url for r in rows):
        raise UserError(_("this address is already your channel %(n)d", n=rows.index(
            next(r for r in rows if r.url == url)) + 1), example="NOTIFY LIST", code="duplicate_channel")
    row = NotifyChannel(user_id=user.id, kind=kind, url=url, label=(label or "").strip()[:80],
                        language=lang.of(user), events=list(DEFAULT_EVENTS), mode="instant",
                        created_at=now or utcnow())
    s.add(row)
    s.flush()
    send_test(s, user, row, now=now)
    return row


def remove(s: Session, user: User, n) -> NotifyChannel:
    row = numbered(s, user, n)
    _forget(s, row)
    return row


def _forget(s: Session, row: NotifyChannel) -> None:
    """A channel goes with its notifications (its address, a secret, is kept nowhere)."""
    s.exec(delete(Notification).where(Notification.channel_id == row.id))
    s.delete(row)
    s.flush()


def send_test(s: Session, user: User | None, row: NotifyChannel, *, now: datetime | None = None) -> int | None:
    """A test message to ``row`` now (quiet hours, kinds and digest do not hold it back)."""
    with _speaking(row, user):
        if row.game_id is not None:
            body = _("pbem will post game #%(id)d here: each move as the whole table sees it, and the table talk.",
                     id=row.game_id)
        else:
            body = _("pbem will notify you here: %(events)s.", events=", ".join(event_word(e) for e in row.events)
                     or _("nothing yet"))
        title = _("pbem: a test message")
        link = settings().base_url + (f"/games/{row.game_id}" if row.game_id else "/profile")
    return queue_push(s, row.id, kind="test", title=title, body=body, link=link, now=now)


def test(s: Session, user: User, n, *, now: datetime | None = None) -> NotifyChannel:
    row = numbered(s, user, n)
    send_test(s, user, row, now=now)
    return row


def set_events(s: Session, user: User, n, on: bool, events: list[str]) -> NotifyChannel:
    """Kinds of notification on or off for channel ``n``."""
    row = numbered(s, user, n)
    chosen = [e.strip().lower().rstrip(",") for e in events if e.strip(", ")]
    if not chosen or any(e not in EVENTS and e != "all" for e in chosen):
        bad = next((e for e in chosen if e not in EVENTS and e != "all"), "")
        example = f"NOTIFY {n} {'ON' if on else 'OFF'} talk"
        if bad:
            raise UserError(_("%(word)s is not one of the kinds of notification: %(kinds)s (or all)", word=bad[:20],
                              kinds=", ".join(EVENTS)), example=example, code="bad_event")
        raise UserError(_("the kinds of notification are %(kinds)s (or all)", kinds=", ".join(EVENTS)),
                        example=example, code="bad_event")
    wanted = set(EVENTS) if "all" in chosen else set(chosen)
    now_on = (set(row.events) | wanted) if on else (set(row.events) - wanted)
    row.events = [e for e in EVENTS if e in now_on]
    s.add(row)
    s.flush()
    return row


def set_mode(s: Session, user: User, n, mode: str) -> NotifyChannel:
    row = numbered(s, user, n)
    mode = (mode or "").strip().lower()
    if mode not in MODES:
        raise UserError(_("a channel gets its notifications at once (instant) or in a daily digest (digest)"),
                        example=f"NOTIFY {n} digest", code="bad_mode")
    if row.mode == "digest" and mode == "instant":  # what waited for the digest goes now
        s.exec(update(Notification).where(Notification.channel_id == row.id, Notification.status == "digest")
               .values(status="queued", next_attempt_at=utcnow()))
    row.mode = mode
    s.add(row)
    s.flush()
    return row


def enable(s: Session, user: User, n, *, now: datetime | None = None) -> NotifyChannel:
    """A disabled channel on again (the owner fixed it): a test message tells at once whether it works."""
    row = numbered(s, user, n)
    row.disabled_at, row.disabled_reason, row.failures = None, None, 0
    s.add(row)
    s.flush()
    send_test(s, user, row, now=now)
    return row


def parse_hour(text: str, example: str) -> int:
    """A local hour, written 7, 07, 7:00 or 07:00."""
    t = (text or "").strip().lower()
    head, _sep, tail = t.partition(":")
    if head.isdigit() and 0 <= int(head) <= 23 and (not _sep or tail in ("0", "00")):
        return int(head)
    raise UserError(_("%(text)s is not an hour of the day: write 0 to 23, or 07:00", text=repr(text[:20])),
                    example=example, code="bad_hour")


def set_quiet(s: Session, user: User, start: int | None, end: int | None) -> None:
    """Quiet hours from ``start`` to ``end`` o'clock in the user's time zone (None, None: none)."""
    if start is not None and start == end:
        raise UserError(_("quiet hours end at another hour than they start"), example="NOTIFY QUIET 22-07",
                        code="bad_quiet")
    user.quiet_from, user.quiet_until = start, end
    s.add(user)
    s.flush()


def set_digest_hour(s: Session, user: User, hour: int | None) -> None:
    user.digest_hour = hour
    s.add(user)
    s.flush()


# ---------------------------------------------------------------- a game's table channel


def table_channel(s: Session, game_id: int) -> NotifyChannel | None:
    return s.exec(select(NotifyChannel).where(NotifyChannel.game_id == game_id)).first()


def set_table(s: Session, user: User, g: Game, url: str, *, now: datetime | None = None) -> NotifyChannel:
    """The game's group channel, set (or replaced) by its creator; a test message goes there."""
    example = f"NOTIFY TABLE {g.id} discord://<webhook id>/<webhook token>"
    if g.creator_id != user.id:
        raise UserError(_("only the creator of game #%(id)d sets its table channel", id=g.id),
                        example=f"NOTIFY TABLE {g.id} OFF", code="not_creator")
    if g.status in ("finished", "aborted", "cancelled"):
        raise UserError(_("game #%(id)d is over: it needs no table channel", id=g.id), example="GAMES",
                        code="game_over")
    kind, url = parse(url, example=example)
    old = table_channel(s, g.id)
    if old is not None:
        _forget(s, old)
    row = NotifyChannel(user_id=user.id, game_id=g.id, kind=kind, url=url, label="", language=lang.of(user),
                        events=list(TABLE_EVENTS), mode="instant", created_at=now or utcnow())
    s.add(row)
    s.flush()
    send_test(s, user, row, now=now)
    return row


def clear_table(s: Session, user: User, g: Game) -> bool:
    if g.creator_id != user.id:
        raise UserError(_("only the creator of game #%(id)d sets its table channel", id=g.id),
                        example=f"NOTIFY TABLE {g.id} OFF", code="not_creator")
    old = table_channel(s, g.id)
    if old is None:
        return False
    _forget(s, old)
    return True


# ---------------------------------------------------------------- when: quiet hours, the digest


def quiet_until(user: User, now: datetime) -> datetime | None:
    """The end of the quiet hours ``now`` is in (in the user's zone), or None."""
    start, end = user.quiet_from, user.quiet_until
    if start is None or end is None or start == end:
        return None
    from .deadlines import aware, zone

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
    from .deadlines import aware, zone

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


DIGEST_BATCH = 50  # digests per transaction (issue 27)
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)  # "due now": the sweep looks, digest_due decides


def next_digest(user: User) -> datetime | None:
    """When the sweep must next look at ``user``'s daily digest (users.digest_due_at): the first moment
    after the last one at which :func:`digest_due` holds; EARLIEST before the first; None unless the user
    takes a digest."""
    from .deadlines import aware, zone

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


def _speaking(row: NotifyChannel, user: User | None):
    """A user's channel speaks its user's language; a table channel its own."""
    from pbem import i18n

    return lang.speaking(user) if row.game_id is None and user is not None else i18n.use(row.language)


def _channels_of(s: Session, user_id: int, event: str, rows: list[NotifyChannel] | None = None
                 ) -> list[NotifyChannel]:
    """The user's working channels that take ``event`` (from ``rows`` when the caller read them already)."""
    if rows is None:
        rows = list(s.exec(select(NotifyChannel).where(
            NotifyChannel.user_id == user_id, NotifyChannel.game_id == None,  # noqa: E711
            NotifyChannel.disabled_at == None)))  # noqa: E711
    return [r for r in rows if r.user_id == user_id and r.game_id is None and r.disabled_at is None
            and event in (r.events or [])]


def _of_game(s: Session, g: Game, user_ids: list[int]) -> list[NotifyChannel]:
    """In one query: the working channels of these players, and the game's table channel."""
    cond = NotifyChannel.game_id == g.id
    if user_ids:
        cond = or_(cond, and_(NotifyChannel.user_id.in_(user_ids), NotifyChannel.game_id == None))  # noqa: E711
    return list(s.exec(select(NotifyChannel).where(cond, NotifyChannel.disabled_at == None)))  # noqa: E711


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
        with _speaking(row, user):
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
    from .deadlines import aware

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
    for seat in games.seats(s, g.id):
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
    names = ", ".join(games.names(s, g.id))
    write = lambda: (_title(g), _("Game %(game)s has started: %(names)s.", game=_named(g),  # noqa: E731
                                  names=names))
    sent = sum(_to_user(s, user, "start", g, f"start:{g.id}", write, now, rows) for _seat, user in players)
    return sent + _to_table(s, g, "start", f"start:{g.id}", write, now, rows)


def ended(s: Session, g: Game, now: datetime | None = None, rows: list[NotifyChannel] | None = None) -> int:
    """The game is over: who won and the scores (public), to its players and its table."""
    from . import notify

    players = _players(s, g)
    if rows is None:
        rows = _of_game(s, g, [user.id for _seat, user in players])
    write = lambda: (_title(g), notify.final_result(s, g))  # noqa: E731
    sent = sum(_to_user(s, user, "end", g, f"end:{g.id}", write, now, rows) for _seat, user in players)
    return sent + _to_table(s, g, "end", f"end:{g.id}", write, now, rows)


def _to_table(s: Session, g: Game, event: str, dedupe: str | None, write, now: datetime | None,
              rows: list[NotifyChannel] | None = None) -> int:
    row = table_channel(s, g.id) if rows is None else next((r for r in rows if r.game_id == g.id), None)
    if row is None or row.disabled_at is not None or event not in (row.events or []):
        return 0
    with _speaking(row, None):
        title, body = write()
    return _push(s, row, None, kind=event, title=title, body=body, link=game_link(g), game_id=g.id, dedupe=dedupe,
                 now=now or utcnow()) is not None


def after_change(s: Session, g: Game, headline, to_move, now: datetime | None = None) -> int:
    """After a change services/notify announces (a move, a start, a seat
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
    string or callable, as services/notify passes it) and the public status
    line, to the game's table channel."""
    if not games.has_started(g) or g.status != "running":
        return 0

    def write():
        status = str(games.view_for(s, g, None).get("status") or "").strip()
        said = lang.text(headline)
        body = _("%(headline)s (%(status)s)", headline=said, status=status) if status else said
        return _("%(game)s #%(id)d, ply %(ply)d", game=games.engine_for(g).title, id=g.id, ply=g.ply), body

    return _to_table(s, g, "board", None, write, now, rows)


def talk(s: Session, g: Game, post: Post, now: datetime | None = None) -> int:
    """A thread post, as each reader may read it (visibility.posts: the one
    door for posts): a table post to the table channel and to the players'
    channels that take talk; a private one to its addressee's only."""
    sent = 0
    table = table_channel(s, g.id)
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
        with _speaking(row, user):
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


# ---------------------------------------------------------------- delivery's outcome (pbem/push)


def delivered(s: Session, row: NotifyChannel, now: datetime) -> None:
    row.failures, row.last_ok_at = 0, now
    s.add(row)


def failed(s: Session, row: NotifyChannel, error: str, now: datetime) -> bool:
    """A delivery to ``row`` failed for good (its attempts are spent). After
    settings().notify_disable_after such failures in a row the channel is
    disabled, its waiting notifications dropped, and its owner told by mail;
    returns True then."""
    row.failures += 1
    row.last_error, row.last_failed_at = (error or "")[:500], now
    s.add(row)
    if row.disabled_at is not None or row.failures < settings().notify_disable_after:
        return False
    row.disabled_at = now
    row.disabled_reason = row.last_error
    s.exec(update(Notification).where(Notification.channel_id == row.id,
                                      Notification.status.in_(("queued", "digest")))
           .values(status="dropped"))
    owner = s.get(User, row.user_id) if row.user_id else None
    if owner is not None:
        _tell_disabled(s, owner, row)
    log.warning("notification channel %s disabled after %d failures: %s", row.id, row.failures, row.last_error)
    return True


def _tell_disabled(s: Session, owner: User, row: NotifyChannel) -> None:
    from pbem.store.outbox import queue_mail

    cfg = settings()
    with lang.speaking(owner):
        if row.game_id is not None:
            what = _("the table channel of game #%(id)d (%(kind)s)", id=row.game_id, kind=kind_name(row.kind))
            fix = _("Set it again on the game's page, %(web)s, or by mail: NOTIFY TABLE %(id)d <address>.",
                    web=f"{cfg.base_url}/games/{row.game_id}", id=row.game_id)
        else:
            n = next((i for i, r in enumerate(mine(s, owner), 1) if r.id == row.id), 0)
            what = _("your notification channel %(n)d (%(kind)s %(label)s)", n=n, kind=kind_name(row.kind),
                     label=row.label or masked(row.url))
            fix = _("Once it works again, switch it back on on your profile, %(web)s, or by mail: NOTIFY %(n)d ON.",
                    web=f"{cfg.base_url}/profile", n=n)
        queue_mail(s, to=owner.email, subject=_("pbem: a notification channel stopped working"),
                   context={"summary": _("pbem could not deliver to %(what)s and has switched it off.", what=what),
                            "title": _("A notification channel is off"),
                            "paragraphs": [_("The last %(num)d deliveries failed. The last error: %(error)s",
                                             num=row.failures, error=row.disabled_reason or "?"), fix]},
                   kind="notice", user=owner)


def status(row: NotifyChannel) -> str:
    """A channel's state in words: working, failing (with the error), or off."""
    if row.disabled_at is not None:
        return _("off after repeated failures: %(error)s", error=row.disabled_reason or "?")
    if row.failures:
        return _("failing: %(error)s", error=row.last_error or "?")
    if row.last_ok_at is None:
        return _("nothing delivered yet")
    return _("working")
