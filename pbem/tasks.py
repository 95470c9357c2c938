"""Celery tasks: thin wrappers over the pipeline and the outbox. They take
database ids, are idempotent, and use acks_late (HOUSE-STYLE, after Celery's
guides); periodic work is a sweep over the database driven by beat."""
from __future__ import annotations

import gc
import logging
from contextlib import contextmanager
from functools import lru_cache
from datetime import datetime, timedelta

from celery.signals import setup_logging, task_postrun, task_prerun, worker_init
from sqlalchemy import bindparam, or_, update
from sqlmodel import select

from pbem.celery_app import DEADLINES_EVERY_S, SWEEP_EVERY_S, app, celery_config, configure, enqueue_bot_move  # noqa: F401
from pbem import metrics
from pbem.config import settings
# the mail pipeline (and through it the services) imported once, when the worker loads its tasks: imported
# on the first task instead, two threads of a worker's pool took Python's import locks of the services'
# modules in opposite orders, and one of the first two mails failed with an import deadlock
import pbem.mail.pipeline  # noqa: E402,F401

log = logging.getLogger("pbem.tasks")


@worker_init.connect
def _freeze_what_is_loaded(**_) -> None:
    """Move the objects a worker holds from its start to its end (code, the games' data, the
    catalogs) out of the garbage collector's sight: each full collection while the worker runs
    mails no longer walks them, a pool's forked children keep sharing their pages, and the
    collection at exit (over a second on a loaded machine) has almost nothing to walk."""
    gc.collect()
    gc.freeze()


@app.task(name="pbem.process_inbound", bind=True, acks_late=True, max_retries=20)
def process_inbound(self, inbound_id: int) -> str:
    from pbem.mail.pipeline import Transient, process_inbound as run

    try:
        return run(inbound_id, deliver=deliver_inline)
    except Transient as e:
        raise self.retry(exc=e, countdown=min(60, 0.2 * 2 ** self.request.retries))


@app.task(name="pbem.send_outbound", bind=True, acks_late=True, max_retries=None)
def send_outbound(self, outbound_ids: int | list[int]) -> str:
    """Deliver outbox rows: the mails one transaction queued (one task for
    all of them), or one row (the sweep, older tasks)."""
    ids = [outbound_ids] if isinstance(outbound_ids, int) else list(outbound_ids)
    results = deliver_batch(ids)
    retry_later(results)
    counts: dict[str, int] = {}
    for status, _ in results.values():
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


def retry_later(results: dict[int, tuple[str, float]]) -> None:
    """One send task for the rows of ``results`` that are to be retried,
    after the shortest of their backoffs."""
    again = sorted((delay, i) for i, (status, delay) in results.items() if status in ("retry", "deferred"))
    if again:
        send_outbound.apply_async(([i for _, i in again],), countdown=again[0][0])


def deliver_inline(rows: list) -> bool:
    """Deliver the rows a worker's transaction queued, right after its commit
    (store.outbox hands them here); the ones not sent get a send task after
    their backoff. False when the relay is in trouble (down, slow, refusing
    us): a recipient it refused (bounced, or deferred for now) is no such sign."""
    results = deliver_claimed(rows)
    retry_later(results)
    return all(status in ("sent", "bounced", "deferred") for status, _ in results.values())


def deliver_one(outbound_id: int) -> tuple[str, float]:
    """Claim one outbox row, deliver it, record the result. Returns (status,
    seconds until the next attempt)."""
    return deliver_batch([outbound_id]).get(outbound_id, ("missing", 0.0))


def deliver_batch(outbound_ids: list[int]) -> dict[int, tuple[str, float]]:
    """Claim the rows that are due (one conditional UPDATE: a row another
    worker holds is left alone), deliver them and record the results.
    Returns, per id, (status, seconds until the next attempt)."""
    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound, utcnow

    if not outbound_ids:
        return {}
    with unit_of_work() as s:
        now = utcnow()
        rows = list(s.exec(update(Outbound).where(Outbound.id.in_(outbound_ids), Outbound.status == "queued",
                                                  Outbound.next_attempt_at <= now)
                           .values(status="sending", next_attempt_at=now).returning(Outbound)
                           .execution_options(synchronize_session=False)).scalars())
        results: dict[int, tuple[str, float]] = {}
        claimed = {r.id for r in rows}
        others = [i for i in outbound_ids if i not in claimed]
        if others:  # sent already, held by another worker, not due yet, or gone
            found = dict(s.exec(select(Outbound.id, Outbound.status).where(Outbound.id.in_(others))).all())
            results.update({i: (found.get(i, "missing"), 0.0) for i in others})
    results.update(deliver_claimed(rows))
    return results


def deliver_claimed(rows: list) -> dict[int, tuple[str, float]]:
    """Deliver outbox rows this process holds (status 'sending') over one
    relay connection; record the sent ones in one UPDATE, and a backoff for
    the others. A recipient the relay refuses for good (5xx at RCPT or to the
    data) is a hard bounce: the row fails at once, the address is marked
    failing and its tables told (services/identity/deliverability). Returns,
    per id, (status, seconds until the next attempt)."""
    from pbem.mail.outbound import POOL, Relay, mark_failed_attempt, refusal
    from pbem.services.identity import deliverability
    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound, utcnow
    from pbem.store.outbox import RECIPIENT_REFUSED

    cfg = settings()
    results: dict[int, tuple[str, float]] = {}
    sent: list[int] = []
    failed: dict[int, tuple[str, object]] = {}
    with Relay(cfg, POOL) as relay:  # the process's relay connection, kept between tasks
        for row in sorted(rows, key=lambda r: r.id):
            try:
                relay.send(row)
                sent.append(row.id)
            except Exception as e:  # relay down, refused, timed out: back off and retry (or bounced)
                refused = refusal(e)
                failed[row.id] = (f"{RECIPIENT_REFUSED}{refused}" if refused else repr(e), refused)
    if sent:
        _record_sent(sent)
        results.update({i: ("sent", 0.0) for i in sent})
        metrics.outbound_sent(len(sent))
    if failed:
        with unit_of_work() as s:
            for i, (error, refused) in failed.items():
                row = s.get(Outbound, i)
                row.status = "queued"
                if refused is not None and refused.permanent:  # the address does not exist, or refuses us
                    mark_failed_attempt(row, error, 1)
                    deliverability.record(s, row.to_addr, "hard", status=refused.status, diagnostic=str(refused),
                                          outbound_id=row.id)
                    log.warning("outbound %s: the relay refused its recipient (%s): a hard bounce", i, refused)
                    results[i] = ("bounced", 0.0)
                    s.add(row)
                    continue
                mark_failed_attempt(row, error, cfg.outbound_max_attempts, cfg.outbound_backoff_s)
                s.add(row)
                if row.status == "failed":
                    log.error("outbound %s failed for good: %s", i, row.last_error)
                    results[i] = ("failed", 0.0)
                    if refused is not None:  # refused for now, every time: undeliverable, a soft bounce
                        deliverability.record(s, row.to_addr, "soft", status=refused.status,
                                              diagnostic=str(refused), outbound_id=row.id)
                else:  # deferred: the relay refused the recipient for now (4xx); retry: any other trouble
                    results[i] = ("deferred" if refused is not None else "retry",
                                  max(0.0, (row.next_attempt_at - utcnow()).total_seconds()))
        for outcome, statuses in (("retry", ("retry", "deferred")), ("failed", ("failed",)), ("bounced", ("bounced",))):
            metrics.outbound_failed(sum(1 for i in failed if results[i][0] in statuses), outcome)
    return results


def _record_sent(outbound_ids: list[int], tries: int = 12) -> None:
    """The relay has the mails: record it, riding out a database restart
    (a row left in 'sending' would be sent again by the sweep)."""
    import time

    from sqlalchemy.exc import DBAPIError

    from pbem.store.db import single_statement
    from pbem.store.models import utcnow

    for attempt in range(tries):
        try:
            with single_statement() as conn:
                conn.execute(_sent_statement(conn.dialect.name), {"ids": list(outbound_ids), "now": utcnow()})
            return
        except DBAPIError:
            if attempt == tries - 1:
                raise
            time.sleep(min(5.0, 0.2 * 2 ** attempt))


@lru_cache(maxsize=2)
def _sent_statement(dialect: str):
    """One Core UPDATE on a bare connection (no session, no ORM state to
    sync), built once; the ids and the time are its parameters. On PostgreSQL
    the ids are one array (``id = ANY(...)``): the same SQL for any number of
    them, not an IN list written out again at every execution."""
    from sqlalchemy import Integer, any_
    from sqlalchemy.dialects.postgresql import ARRAY

    from pbem.store.models import Outbound

    table = Outbound.__table__
    ids = (table.c.id == any_(bindparam("ids", type_=ARRAY(Integer))) if dialect == "postgresql"
           else table.c.id.in_(bindparam("ids", expanding=True)))
    return (update(table).where(ids)
            .values(status="sent", sent_at=bindparam("now", type_=table.c.sent_at.type), last_error=None))


@app.task(name="pbem.push", bind=True, acks_late=True)
def push(self, notification_ids: list[int]) -> str:
    """Deliver chat notifications (pbem/push): the rows one
    transaction queued, or the due ones the sweep found. The ones to retry
    or waiting for their channel's rate limit get one task again, after the
    shortest of their delays (a longer one the sweep finds when it is due)."""
    from pbem.push import deliver
    from pbem.store.pushbox import enqueue_push

    results = deliver(list(notification_ids))
    again = sorted((delay, i) for i, (status, delay) in results.items() if status in ("retry", "wait"))
    if again:
        enqueue_push([i for _, i in again], countdown=again[0][0])
    counts: dict[str, int] = {}
    for status, _ in results.values():
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


@app.task(name="pbem.bot_move", bind=True, acks_late=True, max_retries=20)
def bot_move(self, game_id: int) -> int:
    """Play for every bot seat to move in the game; idempotent:
    with no bot to move it does nothing."""
    from sqlalchemy.exc import OperationalError

    from pbem.services.turns.bots import play_bots
    from pbem.services.core.errors import ConcurrentUpdate

    try:
        played = len(play_bots(game_id, uow=_inline_uow))
        metrics.moves_applied(played, "bot")
        return played
    except (ConcurrentUpdate, OperationalError) as e:
        raise self.retry(exc=e, countdown=min(30, 0.2 * 2 ** self.request.retries))


@app.task(name="pbem.stand_in", bind=True, acks_late=True, max_retries=20)
def stand_in(self, game_id: int, seat: int, key: str) -> str | None:
    """The bot's move the deadline sweep owes a late or abandoned seat
    (services/turns/bots.stand_in); idempotent: once played, the seat is no longer
    owed one, and a later sweep asks again if this task was lost."""
    from sqlalchemy.exc import OperationalError

    from pbem.services.turns.bots import stand_in as play
    from pbem.services.core.errors import ConcurrentUpdate

    try:
        played = play(game_id, seat, key, uow=_inline_uow)
        metrics.moves_applied(1 if played else 0, "bot")
        return played
    except (ConcurrentUpdate, OperationalError) as e:
        raise self.retry(exc=e, countdown=min(30, 0.2 * 2 ** self.request.retries))


@app.task(name="pbem.review", bind=True, acks_late=True, max_retries=20)
def review(self, game_id: int) -> int:
    """A finished game's post-game reviews (services/coach/review.py): computed, stored once and
    mailed to its players; idempotent: a game whose reviews are stored is left alone."""
    from sqlalchemy.exc import OperationalError

    from pbem.services.coach.review import review_game

    try:
        return review_game(game_id, uow=_inline_uow)
    except OperationalError as e:
        raise self.retry(exc=e, countdown=min(60, 0.5 * 2 ** self.request.retries))


@contextmanager
def _inline_uow():
    """A worker's transaction whose mails this process delivers after the commit."""
    from pbem.store.db import unit_of_work
    from pbem.store.outbox import allow_inline_delivery

    with unit_of_work() as s:
        allow_inline_delivery(s, deliver_inline)
        yield s


@app.task(name="pbem.sweep", acks_late=True)
def sweep() -> dict:
    return run_sweep()


def run_sweep(grace_s: float = 60.0, now: datetime | None = None) -> dict:
    """Nothing waits forever: re-enqueue inbound mail not processed yet,
    outbox rows and chat notifications due (or stuck mid-send) after a grace
    period, and notifications held back (quiet hours, a rate limit) once due."""
    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound, Outbound, utcnow

    cfg = settings()
    now = now or utcnow()
    old = now - timedelta(seconds=grace_s)
    stuck = now - timedelta(seconds=cfg.stuck_after_s)
    with unit_of_work() as s:
        inbound = list(s.exec(select(Inbound.id).where(Inbound.status == "received", Inbound.received_at < old)))
        s.exec(update(Outbound).where(Outbound.status == "sending", Outbound.next_attempt_at < stuck)
               .values(status="queued"))
        due = list(s.exec(select(Outbound.id, Outbound.picture_key).where(
            Outbound.status == "queued", Outbound.next_attempt_at <= now,
            or_(Outbound.created_at < old, Outbound.attempts > 0))))
    for i in inbound:
        process_inbound.delay(i)
    from pbem.store.outbox import enqueue_send

    outbound = [i for i, _ in due]
    queue = cfg.picture_queue
    enqueue_send([i for i, key in due if not (key and queue)])
    if queue:  # picture mails to the workers of their queue
        enqueue_send([i for i, key in due if key], queue=queue)
    notifications = _sweep_notifications(now, old, stuck)
    reviews = _sweep_reviews(now)
    # a bot whose task was lost plays again: the deadline sweep reads the bot seats due
    # (services/turns/deadlines), by index, as it reads every seat's clock
    return {"inbound": len(inbound), "outbound": len(outbound), "notifications": len(notifications),
            "reviews": len(reviews)}


def _sweep_reviews(now: datetime) -> list[int]:
    """Finished games whose reviews are missing (their task lost): handed to the bots' queue again."""
    from pbem.celery_app import enqueue_review
    from pbem.services.coach.review import missing
    from pbem.store.db import unit_of_work

    with unit_of_work() as s:
        found = missing(s, now)
    for gid in found:
        enqueue_review(gid)
    return found


def _sweep_notifications(now: datetime, old: datetime, stuck: datetime) -> list[int]:
    """Chat notifications: the ones stuck mid-send back to the
    queue; push tasks for the queued ones that are due and were missed
    (older than the grace), are retries, or were held back (quiet hours,
    the rate limit: due later than they were made)."""
    from pbem.store.db import unit_of_work
    from pbem.store.models import Notification
    from pbem.store.pushbox import enqueue_push

    with unit_of_work() as s:
        s.exec(update(Notification).where(Notification.status == "sending", Notification.next_attempt_at < stuck)
               .values(status="queued").execution_options(synchronize_session=False))
        due = list(s.exec(select(Notification.id).where(
            Notification.status == "queued", Notification.next_attempt_at <= now,
            or_(Notification.created_at < old, Notification.attempts > 0,
                Notification.next_attempt_at > Notification.created_at)).order_by(Notification.id)))
    enqueue_push(due)
    return due


@app.task(name="pbem.deadlines", acks_late=True)
def deadlines_sweep() -> dict:
    """Reminders, late notices, no-move policies, digests, at the real time."""
    from pbem.services.upkeep import sweep
    from pbem.store.models import utcnow

    return sweep.run(utcnow())


@app.task(name="pbem.deadlines_part", acks_late=True)
def deadlines_part(now: str, budget_s: float) -> dict:
    """A helper of the deadline sweep at ``now`` (an ISO time): the due games it claims (PostgreSQL,
    PBEM_DEADLINE_SWEEPERS above 1)."""
    from datetime import datetime

    from pbem.services.upkeep import sweep

    return sweep.run_part(datetime.fromisoformat(now), budget_s)


# ---------------------------------------------------------------- logs (pbem/logs.py)


@setup_logging.connect
def _setup_logging(loglevel=None, **_kw) -> None:
    """A worker logs as the settings say (text or JSON), at its --loglevel;
    Celery leaves the root logger to us (worker_hijack_root_logger=False)."""
    from pbem import logs

    logs.configure("worker", level=loglevel)


_task_logs: dict[str, object] = {}


@task_prerun.connect
def _task_log_context(task_id=None, task=None, args=None, **_kw) -> None:
    """Every line of a process_inbound task (Celery's own "succeeded" too)
    carries the mail's id; the pipeline adds its game's once known."""
    if task is not None and task.name == "pbem.process_inbound" and args:
        from pbem import logs

        cm = logs.context(inbound_id=args[0])
        cm.__enter__()
        _task_logs[task_id] = cm


@task_postrun.connect
def _task_log_context_end(task_id=None, **_kw) -> None:
    cm = _task_logs.pop(task_id, None)
    if cm is not None:
        try:
            cm.__exit__(None, None, None)
        except ValueError:  # not the context it was entered in (a pool that moved the task): nothing to undo
            pass
PRUNE_AGAIN_S = 60  # a retention run that stopped at its bound is followed by another this much later


@app.task(name="pbem.prune", acks_late=True)
def prune() -> dict:
    """Retention: old processed mail, sent outbox rows, finished games' snapshots. One run at a time (the
    lease "prune"); a run that stopped at its bound (a backlog: the first runs after an upgrade) asks for
    the next one a minute later rather than an hour, until the backlog is gone."""
    import os
    import socket
    import uuid

    from pbem.config import settings
    from pbem.services.upkeep.retention import prune as run
    from pbem.store import leases

    holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not leases.acquire("prune", holder, 2 * settings().prune_max_s + 60):
        return {"skipped": 1}
    try:
        result = run().as_dict()
    finally:
        leases.release("prune", holder)
    if any(result.values()):
        log.info("pruned %s", result)
    if result["more"]:
        prune.apply_async(countdown=PRUNE_AGAIN_S)
    return result


from celery.beat import PersistentScheduler  # noqa: E402


class LockedScheduler(PersistentScheduler):
    """Celery beat's scheduler that sends the due tasks only while it holds
    the database lease "beat" (store/leases.py): start two beats and one
    sends, the other waits; stop or kill the sending one and the other takes
    over within settings().beat_lease_s. Works on every database pbem runs
    on, whatever the broker (Redis, or the embedded one)."""

    LEASE = "beat"

    def __init__(self, *a, **kw):
        import os
        import secrets
        import socket

        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.holding: bool | None = None  # not known yet: the first answer is logged
        super().__init__(*a, **kw)

    def _lease(self) -> bool:
        from pbem.store.leases import acquire

        try:
            return acquire(self.LEASE, self.holder, settings().beat_lease_s)
        except Exception as e:  # noqa: BLE001 - database down: send nothing, try again
            log.warning("beat: could not take the lease: %r", e)
            return False

    def tick(self, *a, **kw) -> float:
        ttl = settings().beat_lease_s
        held = self._lease()
        if held != self.holding:
            log.warning("beat %s: %s", self.holder, "holds the lease: sends the periodic tasks" if held
                        else "another beat holds the lease: this one waits")
            self.holding = held
        if not held:
            return min(ttl / 3, 5.0)
        return min(super().tick(*a, **kw), ttl / 3)

    def close(self) -> None:
        if self.holding:  # True only
            try:
                from pbem.store.leases import release

                release(self.LEASE, self.holder)
            except Exception as e:  # noqa: BLE001 - it expires anyway
                log.warning("beat: could not release the lease: %r", e)
        super().close()
