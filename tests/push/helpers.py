"""Small helpers of the push tests: a user, a channel set the real way
(services.channels.add, which queues its test message), a notification
queued the real way (store.pushbox.queue_push), rows read back."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlmodel import select

from pbem.services.core import accounts
from pbem.services.follow import channels
from pbem.store.db import unit_of_work
from pbem.store.models import Notification, NotifyChannel, User
from pbem.store.pushbox import queue_push

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def user(email: str = "ann@x.test", name: str = "Ann", language: str | None = None) -> int:
    with unit_of_work() as s:
        u, _ = accounts.register(s, email, name, confirmed=True, language=language)
        return u.id


def channel(user_id: int, url: str, now: datetime = T0) -> tuple[int, int]:
    """A new channel of ``user_id`` (channels.add): (its id, the id of its test message)."""
    with unit_of_work() as s:
        row = channels.add(s, s.get(User, user_id), url, now=now)
        test_id = s.exec(select(Notification.id).where(Notification.channel_id == row.id)).one()
        return row.id, test_id


def queue(channel_id: int, body: str, now: datetime = T0, *, title: str = "", link: str = "",
          at: datetime | None = None, kind: str = "turn") -> int:
    with unit_of_work() as s:
        return queue_push(s, channel_id, kind=kind, title=title, body=body, link=link, now=now, at=at)


def note(notification_id: int) -> Notification:
    with unit_of_work() as s:
        return s.get(Notification, notification_id)


def chan(channel_id: int) -> NotifyChannel:
    with unit_of_work() as s:
        return s.get(NotifyChannel, channel_id)


def aware(dt: datetime | None) -> datetime | None:
    return dt if dt is None or dt.tzinfo else dt.replace(tzinfo=timezone.utc)
