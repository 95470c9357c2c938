"""Chat and push channels: notifications beyond mail -- a player's own channels (Discord,
Slack, Telegram, Matrix, ntfy, a JSON webhook: Apprise URLs) and a game's table channel, where a
group that plays in a chat room follows the game.

Each user chooses, per channel, the kinds of notification it gets and
whether they come at once or in a daily digest (at the user's digest hour);
quiet hours in the user's time zone hold notifications back until they end.
What each channel is sent, and when, is :mod:`.notifications`'; queueing is
the store's (store/pushbox.py); delivery, with retries, backoff and a rate
limit per channel, is pbem/push's. A channel whose deliveries keep failing is
disabled here (:func:`failed`) and its owner told by mail. Every function
that depends on the time takes ``now``."""
from __future__ import annotations

import logging
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import delete, update
from sqlmodel import Session, select

from pbem import i18n, net
from pbem.config import settings
from pbem.i18n import N_, _, ngettext
from pbem.store.models import Game, Notification, NotifyChannel, User, utcnow
from pbem.store.outbox import queue_mail
from pbem.store.pushbox import queue_push

from ..core import lang
from ..core.errors import UserError

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
        raise UserError(ngettext("a notification address is one line without spaces, at most %(num)d character",
                                 "a notification address is one line without spaces, at most %(num)d characters",
                                 URL_MAX), example=example, code="bad_url")
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
    """Why pbem will not call ``host``, or "" when it may: pbem/net's rule
    (an address reachable from the whole Internet, not the server's own, or
    one of settings().http_allow), on every address the name resolves to
    now. Delivery checks again, and connects to the address it checked."""
    return net.refusal(host)


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
        raise UserError(ngettext("you have %(num)d notification channel, the most pbem keeps; remove it first",
                                 "you have %(num)d notification channels, the most pbem keeps; remove one first",
                                 len(rows)), example="NOTIFY REMOVE 1", code="too_many_channels")
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
    with speaking(row, user):
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


def speaking(row: NotifyChannel, user: User | None):
    """A user's channel speaks its user's language; a table channel its own."""
    return lang.speaking(user) if row.game_id is None and user is not None else i18n.use(row.language)


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
                            "paragraphs": [ngettext("The last %(num)d delivery failed. The last error: %(error)s",
                                                    "The last %(num)d deliveries failed. The last error: %(error)s",
                                                    row.failures, error=row.disabled_reason or "?"), fix]},
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
