"""Retention (issue 21): what grows with every mail is pruned once it is old.

* Processed inbound mail (done or ignored) older than keep_inbound_days is
  deleted; failed mail stays for the admins (re-drive or discard). A mail a
  move (Move.inbound_id) or a confirmation points to is kept as a row -- who
  sent it, when, its Message-ID and its result stay the move's provenance --
  but its raw text, nearly all of its size, is emptied.
* Sent outbox rows older than keep_outbox_days are deleted (queued and failed
  ones stay); so are chat notifications (issue 24) that are done with (sent,
  failed for good, dropped, or carried by a digest).
* The snapshots of games finished, aborted or cancelled more than
  keep_snapshots_days ago are deleted: the game's cached state stays, and any
  earlier position replays from the record.
* The move log, the posts, the game record and the audit log are kept forever.

Deletes go by batches of ``prune_batch`` ids, one short transaction each: no
long lock on SQLite (one writer at a time) nor on PostgreSQL."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, func, select, update

from pbem.config import Settings, settings
from pbem.store.db import unit_of_work
from pbem.store.models import Confirmation, Game, Inbound, Move, Notification, Outbound, Picture, Snapshot, utcnow

DONE_GAMES = ("finished", "aborted", "cancelled")
KEEP_PICTURES = timedelta(days=2)  # a drawing is needed until its mails are delivered (issue 22)
UNSENT = ("queued", "sending", "held")
NOTIFICATIONS_DONE = ("sent", "failed", "dropped", "digested")


@dataclass
class Pruned:
    inbound_deleted: int = 0
    inbound_emptied: int = 0  # kept for a move or a confirmation, raw text emptied
    outbound_deleted: int = 0
    notifications_deleted: int = 0
    snapshots_deleted: int = 0
    pictures_deleted: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def _referenced():
    return (exists().where(Move.inbound_id == Inbound.id)) | (exists().where(Confirmation.inbound_id == Inbound.id))


def _batches(pick, act, batch: int) -> int:
    """Run ``act(ids)`` on batches that ``pick(limit)`` selects, each in its own transaction, until none."""
    total = 0
    while True:
        with unit_of_work() as s:
            ids = list(s.execute(pick(batch)).scalars())
            if ids:
                s.execute(act(ids))
        total += len(ids)
        if len(ids) < batch:
            return total


def prune(now: datetime | None = None, cfg: Settings | None = None) -> Pruned:
    cfg = cfg or settings()
    now = now or utcnow()
    out = Pruned()
    batch = max(1, cfg.prune_batch)
    if cfg.keep_inbound_days:
        old = now - timedelta(days=cfg.keep_inbound_days)
        processed = (Inbound.status.in_(("done", "ignored")), Inbound.received_at < old)
        out.inbound_deleted = _batches(
            lambda n: select(Inbound.id).where(*processed, ~_referenced()).order_by(Inbound.id).limit(n),
            lambda ids: delete(Inbound).where(Inbound.id.in_(ids)), batch)
        out.inbound_emptied = _batches(
            lambda n: select(Inbound.id).where(*processed, _referenced(), func.length(Inbound.raw) > 0)
            .order_by(Inbound.id).limit(n),
            lambda ids: update(Inbound).where(Inbound.id.in_(ids)).values(raw=b""), batch)
    if cfg.keep_outbox_days:
        old = now - timedelta(days=cfg.keep_outbox_days)
        out.outbound_deleted = _batches(
            lambda n: select(Outbound.id).where(Outbound.status == "sent", Outbound.created_at < old)
            .order_by(Outbound.id).limit(n),
            lambda ids: delete(Outbound).where(Outbound.id.in_(ids)), batch)
        done = (Notification.status.in_(NOTIFICATIONS_DONE), Notification.created_at < old)
        out.notifications_deleted = _batches(
            lambda n: select(Notification.id).where(*done).order_by(Notification.id).limit(n),
            lambda ids: delete(Notification).where(Notification.id.in_(ids)), batch)
    # the board drawings of delivered mail: no unsent mail shows them any more (the outbox kept forever
    # keeps them too: a row re-sent by an admin shows its picture)
    waiting = exists().where(Outbound.picture_key == Picture.key, Outbound.status.in_(UNSENT))
    out.pictures_deleted = 0 if not cfg.keep_outbox_days else _batches(
        lambda n: select(Picture.key).where(Picture.created_at < now - KEEP_PICTURES, ~waiting)
        .order_by(Picture.created_at).limit(n),
        lambda keys: delete(Picture).where(Picture.key.in_(keys)), batch)
    if cfg.keep_snapshots_days:
        old = now - timedelta(days=cfg.keep_snapshots_days)
        out.snapshots_deleted = _batches(
            lambda n: select(Snapshot.id).join(Game, Game.id == Snapshot.game_id)
            .where(Game.status.in_(DONE_GAMES), Game.updated_at < old).order_by(Snapshot.id).limit(n),
            lambda ids: delete(Snapshot).where(Snapshot.id.in_(ids)), batch)
    return out
