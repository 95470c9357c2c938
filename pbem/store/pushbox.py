"""The chat channels' outbox: a notification is a row queued in
the caller's transaction, like a mail (store/outbox.py); after the commit
the rows due now go to one push task, by its name (pbem.celery_app), so
nothing here imports the layer that delivers them (pbem/push). A row held
back (quiet hours) or waiting for a digest is found by the sweep when due."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert
from sqlmodel import Session

from pbem.store.models import Notification, utcnow
from pbem.store.outbox import dialect_insert

PUSH_BATCH = "pbem.push_batch"
TITLE_MAX, BODY_MAX, LINK_MAX = 250, 4000, 500
PUSH_TASK_ROWS = 50  # notification rows per push task at most

_TABLE = Notification.__table__


def queue_push(s: Session, channel_id: int, *, kind: str, body: str, title: str = "", link: str = "",
               game_id: int | None = None, dedupe: str | None = None, now: datetime | None = None,
               at: datetime | None = None, status: str = "queued") -> int | None:
    """Add one notification for ``channel_id`` to the caller's transaction;
    returns its id, or None when the channel already has one with this
    ``dedupe`` key (the same event told twice). ``at``: not before then
    (quiet hours); ``status`` "digest": kept for the channel's digest."""
    now = now or utcnow()
    values = dict(channel_id=channel_id, game_id=game_id, kind=kind, title=(title or "")[:TITLE_MAX],
                  body=(body or "")[:BODY_MAX], link=(link or "")[:LINK_MAX], dedupe=dedupe, status=status,
                  attempts=0, next_attempt_at=at or now, last_error=None, created_at=now, sent_at=None)
    conn = s.connection()
    if dedupe is None:
        stmt = insert(_TABLE).values(**values)
    else:
        stmt = dialect_insert(conn.dialect.name)(_TABLE).values(**values).on_conflict_do_nothing(
            index_elements=["channel_id", "dedupe"])
    row_id = conn.execute(stmt.returning(_TABLE.c.id)).scalar_one_or_none()
    if row_id is not None and status == "queued" and (at is None or at <= now):
        _batch(s).append(row_id)
    return row_id


def _batch(s: Session) -> list[int]:
    batch = s.info.get(PUSH_BATCH)
    if batch is None:
        batch = s.info[PUSH_BATCH] = []
        callbacks = getattr(s, "after_commit", None)
        if callbacks is not None:  # a plain session (tests, scripts): the sweep delivers
            callbacks.append(lambda: _enqueue(s.info.pop(PUSH_BATCH, None) or []))
    return batch


def _enqueue(ids: list[int]) -> None:
    enqueue_push(ids)


def enqueue_push(ids: list[int], countdown: float | None = None) -> None:
    """Push tasks for these rows, PUSH_TASK_ROWS a task."""
    from pbem.celery_app import enqueue_push as push_task

    for i in range(0, len(ids), PUSH_TASK_ROWS):
        push_task(ids[i:i + PUSH_TASK_ROWS], countdown=countdown)

