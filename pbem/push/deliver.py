"""Delivering the chat channels' notifications, after the
outbox's model (pbem/tasks.py deliver_batch): claim the rows that are due
with one conditional UPDATE, send, record. What one channel has due goes
out as one message (the notifications quiet hours held back come out
together), in the channel's language, through Apprise.

A channel gets at most settings().notify_per_minute messages a minute:
over that, its rows wait until the minute frees and then go together. A
failed send is retried with a doubling backoff (settings().notify_backoff_s,
at most an hour apart); a row that has had settings().notify_max_attempts
attempts has failed for good, which services.channels.failed counts against
its channel (disabled after settings().notify_disable_after of them in a
row, its owner told by mail).

Apprise's plugin sends inside pbem/net's guarded block: every request it
makes goes to an address checked then (whatever DNS said when the channel
was set, or says a moment later), follows no redirect, and is bounded in
time and size; any other connection is refused. pbem calls the plugin
itself, in this thread (never through Apprise's dispatcher and its threads,
which would leave the block).

The error kept for a channel (shown to its owner) is Apprise's own account
of the failure, with every secret of the channel's address taken out."""
from __future__ import annotations

import logging
import re
import threading
from collections import defaultdict
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Iterator
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from sqlalchemy import update
from sqlmodel import Session, select

from pbem import i18n, net
from pbem.config import Settings, settings
from pbem.i18n import _, ngettext
from pbem.services.core import lang
from pbem.services.follow import channels
from pbem.services.core.clocks import aware
from pbem.store.models import Notification, NotifyChannel, User, utcnow

log = logging.getLogger("pbem.push")

WINDOW = timedelta(seconds=60)  # the rate limit's: settings().notify_per_minute a minute
BACKOFF_MAX_S = 3600.0
ERROR_MAX = 500
Result = dict[int, tuple[str, float]]


def deliver(ids: list[int], now: datetime | None = None) -> Result:
    """Deliver the notifications ``ids`` that are due at ``now``. Returns,
    per id, (status, seconds until its next attempt): sent, retry, wait
    (the channel's rate limit), failed, dropped (its channel is gone or
    off), or the status of a row not claimed (sent already, held by
    another worker, not due yet: "queued" with the seconds until it is,
    or "missing")."""
    from pbem.store.db import unit_of_work

    if not ids:
        return {}
    now = aware(now) or utcnow()
    results: Result = {}
    with unit_of_work() as s:
        rows = list(s.exec(update(Notification).where(Notification.id.in_(ids), Notification.status == "queued",
                                                      Notification.next_attempt_at <= now)
                           .values(status="sending", next_attempt_at=now).returning(Notification)
                           .execution_options(synchronize_session=False)).scalars())
        claimed = {r.id for r in rows}
        others = [i for i in ids if i not in claimed]
        if others:
            found = {i: (st, at) for i, st, at in s.exec(select(
                Notification.id, Notification.status, Notification.next_attempt_at).where(
                Notification.id.in_(others))).all()}
            for i in others:
                st, at = found.get(i, ("missing", None))
                wait = max(0.0, (aware(at) - now).total_seconds()) if st == "queued" and at else 0.0
                results[i] = (st, wait)
    by_channel: dict[int, list[Notification]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r.id):
        by_channel[row.channel_id].append(row)
    for channel_id, group in by_channel.items():
        try:
            results.update(deliver_channel(channel_id, group, now))
        except Exception:  # the database failed us: the sweep puts the rows back after stuck_after_s
            log.exception("push to channel %s failed", channel_id)
            results.update({r.id: ("sending", 0.0) for r in group})
    return results


def deliver_channel(channel_id: int, rows: list[Notification], now: datetime) -> Result:
    """The claimed ``rows`` of one channel: dropped, held by the rate limit,
    or sent as one message and the outcome recorded."""
    from pbem.store.db import unit_of_work

    cfg = settings()
    ids = [r.id for r in rows]
    with unit_of_work() as s:
        channel = s.get(NotifyChannel, channel_id)
        if channel is None or channel.disabled_at is not None:
            _set(s, ids, status="dropped")
            return {i: ("dropped", 0.0) for i in ids}
        free_at = rate_free_at(s, channel_id, now, cfg.notify_per_minute)
        if free_at is not None:
            _set(s, ids, status="queued", next_attempt_at=free_at)
            wait = max(0.0, (free_at - now).total_seconds())
            return {i: ("wait", wait) for i in ids}
        owner = s.get(User, channel.user_id) if channel.game_id is None and channel.user_id else None
        code = lang.of(owner) if owner is not None else channel.language
        kind, url = channel.kind, channel.url
    with i18n.use(code):
        title, body = compose(rows)
        error = send(kind, url, title, body, cfg)
    with unit_of_work() as s:
        channel = s.get(NotifyChannel, channel_id)
        if error is None:
            _set(s, ids, status="sent", sent_at=now, last_error=None)
            if channel is not None:
                channels.delivered(s, channel, now)
            return {i: ("sent", 0.0) for i in ids}
        log.warning("push to channel %s failed: %s", channel_id, error)
        return record_failure(s, channel, ids, error, now, cfg)


def rate_free_at(s: Session, channel_id: int, now: datetime, per_minute: int) -> datetime | None:
    """When the channel may be sent to again, or None when it may now: it
    has had ``per_minute`` messages sent in the minute before ``now`` (the
    rows of one message share its time: counted once, so notifications
    that waited and went together cost the room one message)."""
    times = sorted({aware(t) for t in s.exec(select(Notification.sent_at).where(
        Notification.channel_id == channel_id, Notification.status == "sent",
        Notification.sent_at > now - WINDOW)) if t is not None})
    if len(times) < per_minute:
        return None
    return times[len(times) - per_minute] + WINDOW  # then one fewer than the limit is left in the window


def compose(rows: list[Notification]) -> tuple[str, str]:
    """(title, body) of one message carrying ``rows``: a lone row's own
    title, else how many; each row's body and link, a blank line between."""
    if len(rows) == 1 and rows[0].title:
        title = rows[0].title
    else:
        title = ngettext("pbem: %(num)d notification", "pbem: %(num)d notifications", len(rows))
    body = "\n\n".join("\n".join(part for part in (r.body, r.link) if part) for r in rows)
    return title, body


def send(kind: str, url: str, title: str, body: str, cfg: Settings) -> str | None:
    """Send one message to the Apprise address ``url``; None when it was
    taken, else why not (secrets of ``url`` removed)."""
    plugin = channels.plugin_for(url)
    if plugin is None:
        return _("pbem cannot read this channel's address any more: set the channel again")
    plugin.socket_connect_timeout = plugin.socket_read_timeout = cfg.notify_timeout_s
    with net.guarded(net.policy(cfg)) as scope, apprise_log() as lines:
        try:
            ok = plugin.notify(body=body, title=title)
        except Exception as e:  # noqa: BLE001 - a plugin's bug is a failed delivery, not a dead task
            ok = False
            lines.append(f"{type(e).__name__}: {e}")
        finally:
            del plugin  # Matrix logs out as it goes: still inside the capture and the guarded block
    if ok:
        return None
    if scope.refusals:  # pbem's own reason (a private address, a redirect, too slow, too big): the clearest
        return "; ".join(scope.refusals)[:ERROR_MAX]
    said = "; ".join(dict.fromkeys(line.strip() for line in lines if line.strip()))
    return redact(url, said or _("the service did not take the message"))[:ERROR_MAX]


class _ThreadLines(logging.Handler):
    """Apprise's warnings and errors logged by this thread."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            try:
                self.lines.append(record.getMessage())
            except Exception:  # noqa: BLE001 - a bad log call is no error of the delivery
                pass


@contextmanager
def apprise_log() -> Iterator[list[str]]:
    """What Apprise logs at warning level and above while the block runs in
    this thread: its account of a failure. (apprise.LogCapture hears the
    whole logger, every thread's, and a threads-pool worker delivers to
    several channels at once.)"""
    handler = _ThreadLines()
    logger = logging.getLogger("apprise")
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


def secrets_of(url: str) -> list[str]:
    """The parts of a channel's address that may be secret: its password,
    path, query values and fragment, and its "host" but for a port (in
    discord://<id>/<token>, tgram://<token>/<chat>, ntfy://<topic> it is
    one), not that of a service's own https address; longest first."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not even a URL: every word of it
        return sorted({w for w in re.split(r"[/:@?&=#]+", url) if len(w) >= 4}, key=len, reverse=True)
    found: set[str] = set()
    netloc = parts.netloc.rsplit("@", 1)
    if len(netloc) == 2:
        user, _sep, password = netloc[0].partition(":")
        found.add(password or user)  # a user alone is a token (ntfy://<token>@host/topic)
    if parts.scheme.lower() not in ("http", "https"):
        found.add(netloc[-1])
        found.update(p for p in netloc[-1].split(":") if not (p.isdigit() and len(p) <= 5))
    found.update(parts.path.split("/"))
    found.update(v for _k, v in parse_qsl(parts.query))
    found.add(parts.fragment)
    out = set()
    for piece in found:
        if len(piece) >= 4:
            out.update({piece, unquote(piece), quote(piece, safe=""), quote(unquote(piece), safe="")})
    return sorted((p for p in out if len(p) >= 4), key=len, reverse=True)


def redact(url: str, text: str) -> str:
    for secret in secrets_of(url):
        text = text.replace(secret, "***")
    return text


def record_failure(s: Session, channel: NotifyChannel | None, ids: list[int], error: str, now: datetime,
                   cfg: Settings) -> Result:
    """A failed attempt for each row: back to the queue after its backoff,
    or failed for good at the last attempt (counted once against the channel)."""
    results: Result = {}
    gave_up = False
    for row in s.exec(select(Notification).where(Notification.id.in_(ids))):
        row.attempts += 1
        row.last_error = error
        if row.attempts >= cfg.notify_max_attempts:
            row.status = "failed"
            results[row.id] = ("failed", 0.0)
            gave_up = True
        else:
            delay = min(BACKOFF_MAX_S, cfg.notify_backoff_s * 2 ** (row.attempts - 1))
            row.status, row.next_attempt_at = "queued", now + timedelta(seconds=delay)
            results[row.id] = ("retry", delay)
        s.add(row)
    s.flush()
    if gave_up and channel is not None and channels.failed(s, channel, error, now):
        results.update({i: ("dropped", 0.0) for i, (st, _d) in results.items() if st == "retry"})
    return results


def _set(s: Session, ids: list[int], **values) -> None:
    s.exec(update(Notification).where(Notification.id.in_(ids)).values(**values)
           .execution_options(synchronize_session=False))
