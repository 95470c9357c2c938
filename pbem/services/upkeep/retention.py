"""Retention: what grows with every mail is pruned once it is old.

* Processed inbound mail (done or ignored) older than keep_inbound_days is
  deleted; failed mail stays for the admins (re-drive or discard). A mail a
  move (Move.inbound_id), a confirmation or a bounce points to is kept as a
  row -- who sent it, when, its Message-ID and its result stay the move's
  provenance -- but its raw text, nearly all of its size, is emptied.
* Sent outbox rows older than keep_mail_bodies_days lose their bodies (the
  bulk of a mail: its text and HTML); what proves the mail stays -- its kind,
  recipient, subject, headers, its Message-ID (which names the game and the
  ply it showed), the key of the board drawing's view and the SHA-256 of the
  bodies -- until keep_outbox_days, when the row is deleted (queued and failed
  ones stay, and those a bounce names); so are chat notifications
  that are done with (sent, failed for good, dropped, or carried by a digest).
* The snapshots of games finished, aborted or cancelled more than
  keep_snapshots_days ago are deleted: the game's cached state stays, and any
  earlier position replays from the record.
* The move log, the posts, the game record and the audit log are kept forever.

Deletes go by batches of ``prune_batch`` rows, one short transaction each: no
long lock on SQLite (one writer at a time) nor on PostgreSQL. Each batch is
picked by an index, oldest first, one status at a time: its cost
does not grow with what is kept, so a day's rows take the same time at any
size of the database. A run stops after ``prune_max_rows`` rows or
``prune_max_s`` seconds, whichever comes first (the first run after an upgrade,
or after retention was off, faces months of rows at once): the next run goes on
from the oldest left, and the run says so (``more``)."""
from __future__ import annotations

import time as clock
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import Select, bindparam, delete, exists, func, literal_column, select, update

from pbem.config import Settings, settings
from pbem.store.db import UnitOfWork, unit_of_work
from pbem.store.models import (Bounce, Confirmation, Game, Inbound, Move, Notification, Outbound, Picture, Snapshot,
                               body_digest, utcnow)

from ..identity import confirmations

DONE_GAMES = ("finished", "aborted", "cancelled")
KEEP_PICTURES = timedelta(days=2)  # a board's drawing is needed until its mails are delivered
UNSENT = ("queued", "sending", "held")
NOTIFICATIONS_DONE = ("sent", "failed", "dropped", "digested")


@dataclass
class Pruned:
    inbound_deleted: int = 0
    inbound_emptied: int = 0  # kept for a move, a confirmation or a bounce, raw text emptied
    outbound_deleted: int = 0
    notifications_deleted: int = 0
    snapshots_deleted: int = 0
    pictures_deleted: int = 0
    secrets_unsealed: int = 0  # expired confirmations whose sealed secret words were replaced
    bodies_dropped: int = 0  # sent mail past keep_mail_bodies_days: its bodies emptied, what proves it kept
    more: bool = False  # the run stopped at its bound (prune_max_rows, prune_max_s): the next one goes on

    def as_dict(self) -> dict:
        return asdict(self)


# no row points to the mail (a move, a confirmation, a bounce): while one does, it keeps its row. Each is
# an anti-join by the pointing table's index on inbound_id
_UNREFERENCED = (~exists().where(Move.inbound_id == Inbound.id), ~exists().where(Confirmation.inbound_id == Inbound.id),
                 ~exists().where(Bounce.inbound_id == Inbound.id))


# the predicate of the index ix_inbound_unpruned, written as the index has it: a literal, not a bound
# parameter, since PostgreSQL uses a partial index only for a query whose own condition implies it
_HAS_RAW = func.length(Inbound.raw) > literal_column("0")


class _Bound:
    """What one run may still do: rows, and time (monotonic); ``cut`` once it stopped for it."""

    def __init__(self, rows: int, seconds: float):
        self.rows = max(1, rows)
        self.until = clock.monotonic() + seconds
        self.cut = False

    def take(self, batch: int) -> int:
        """How many rows the next batch may have: 0 when the run is over its bound."""
        if self.rows <= 0 or clock.monotonic() >= self.until:
            self.cut = True
            return 0
        return min(batch, self.rows)


def _oldest_first(rows: Select, when, act: Callable[[UnitOfWork, list], None], batch: int, bound: _Bound) -> int:
    """Run ``act(s, keys)`` on the rows that ``rows`` selects (key, ``when``), oldest first, by batches,
    each in its own transaction, until none is left or the run's ``bound`` is reached; the number of rows.
    ``act`` takes every row it is given out of ``rows`` (deletes it or empties it), so each batch starts
    at the time of the last one's last row: one that started from the oldest would walk again, on every
    batch, the index entries of the rows already deleted (they stay until VACUUM); and the next run
    starts from the oldest left, where this one stopped."""
    total, after = 0, None
    while True:
        size = bound.take(batch)
        if not size:
            return total
        with unit_of_work() as s:
            got = s.execute((rows if after is None else rows.where(when >= after)).order_by(when).limit(size)).all()
            if got:
                act(s, [r[0] for r in got])
        total += len(got)
        bound.rows -= len(got)
        if len(got) < size:
            return total
        after = got[-1][1]


_OUTBOUND = Outbound.__table__
_SET_HASH = _OUTBOUND.update().where(_OUTBOUND.c.id == bindparam("oid")).values(body_sha256=bindparam("sha"))


def _delete(model, key):
    return lambda s, keys: s.execute(delete(model).where(key.in_(keys)))


def prune(now: datetime | None = None, cfg: Settings | None = None) -> Pruned:
    cfg = cfg or settings()
    now = now or utcnow()
    out = Pruned()
    batch = max(1, cfg.prune_batch)
    bound = _Bound(cfg.prune_max_rows, cfg.prune_max_s)
    # a confirmation nobody answered keeps its commands (the record of what was asked), never a sealed secret
    # word past its day: it could only open with the installation's key, and nothing needs it any more; first, so
    # that no backlog elsewhere takes the run's bound before it
    def unseal_expired(s: UnitOfWork, ids: list[int]) -> None:
        for cid, commands in s.execute(select(Confirmation.id, Confirmation.commands).where(Confirmation.id.in_(ids))):
            s.execute(update(Confirmation).where(Confirmation.id == cid)
                      .values(commands=confirmations.masked(commands)))
    out.secrets_unsealed = _oldest_first(
        select(Confirmation.id, Confirmation.expires_at).where(Confirmation.expires_at < now,
                                                               Confirmation.commands.contains("\u27e6")),
        Confirmation.expires_at, unseal_expired, batch, bound)
    if cfg.keep_inbound_days:
        old = now - timedelta(days=cfg.keep_inbound_days)

        def empty_or_delete(s: UnitOfWork, ids: list[int]) -> None:
            s.execute(delete(Inbound).where(Inbound.id.in_(ids), *_UNREFERENCED))
            out.inbound_emptied += s.execute(update(Inbound).where(Inbound.id.in_(ids)).values(raw=b"")).rowcount

        out.inbound_deleted = sum(_oldest_first(
            select(Inbound.id, Inbound.received_at).where(Inbound.status == status, Inbound.received_at < old,
                                                          _HAS_RAW),
            Inbound.received_at, empty_or_delete, batch, bound) for status in ("done", "ignored")) - out.inbound_emptied
    if cfg.keep_outbox_days:
        old = now - timedelta(days=cfg.keep_outbox_days)
        bounced = exists().where(Bounce.outbound_id == Outbound.id)
        out.outbound_deleted = _oldest_first(
            select(Outbound.id, Outbound.created_at).where(Outbound.status == "sent", Outbound.created_at < old,
                                                           ~bounced),
            Outbound.created_at, _delete(Outbound, Outbound.id), batch, bound)
        out.notifications_deleted = sum(_oldest_first(
            select(Notification.id, Notification.created_at).where(Notification.status == status,
                                                                   Notification.created_at < old),
            Notification.created_at, _delete(Notification, Notification.id), batch, bound)
            for status in NOTIFICATIONS_DONE)
        # the board drawings of delivered mail: no unsent mail shows them any more (the outbox kept forever
        # keeps them too: a row re-sent by an admin shows its picture)
        waiting = exists().where(Outbound.picture_key == Picture.key, Outbound.status.in_(UNSENT))
        out.pictures_deleted = _oldest_first(
            select(Picture.key, Picture.created_at).where(Picture.created_at < now - KEEP_PICTURES, ~waiting),
            Picture.created_at, _delete(Picture, Picture.key), batch, bound)
    # after the deletes, which keep the tables from growing: a backlog of bodies (the runs after an upgrade)
    # takes what is left of each run's bound
    if cfg.keep_mail_bodies_days and (not cfg.keep_outbox_days or cfg.keep_mail_bodies_days < cfg.keep_outbox_days):
        old = now - timedelta(days=cfg.keep_mail_bodies_days)

        def drop_bodies(s: UnitOfWork, ids: list[int]) -> None:
            # a row from before the bodies' hash was kept gets it now, from the bodies about to go (one
            # statement for the batch)
            hashes = [{"oid": oid, "sha": body_digest(text, html)} for oid, text, html in s.execute(
                select(Outbound.id, Outbound.body_text, Outbound.body_html)
                .where(Outbound.id.in_(ids), Outbound.body_sha256.is_(None)))]
            if hashes:
                s.connection().execute(_SET_HASH, hashes)
            out.bodies_dropped += s.execute(update(Outbound).where(Outbound.id.in_(ids))
                                            .values(body_text="", body_html=None, bodies_dropped_at=now)).rowcount

        # written as the partial index ix_outbound_bodies_kept has it (literals), so PostgreSQL picks by it
        _oldest_first(select(Outbound.id, Outbound.created_at).where(
            Outbound.status == literal_column("'sent'"), Outbound.bodies_dropped_at.is_(None),
            Outbound.created_at < old), Outbound.created_at, drop_bodies, batch, bound)
    if cfg.keep_snapshots_days:
        old = now - timedelta(days=cfg.keep_snapshots_days)
        out.snapshots_deleted = sum(_oldest_first(
            select(Snapshot.id, Game.updated_at).join(Game, Game.id == Snapshot.game_id)
            .where(Game.status == status, Game.updated_at < old),
            Game.updated_at, _delete(Snapshot, Snapshot.id), batch, bound) for status in DONE_GAMES)
    out.more = bound.cut
    return out
