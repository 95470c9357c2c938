"""What the service's health is made of: the database answers,
the broker answers, the beat ran lately, neither the outbox nor the
inbound mail waits too long, and the mail pipeline is not failing the mail
it is given. Each check is cheap: a handful of rows through
an index (the status columns are indexed; the unsent and unprocessed rows
are few when all is well), one ping of the broker, one row of sweep_state.

Only booleans, counts and ages leave here: /healthz is public, and the
same figures are the gauges of /metrics (read at scrape time)."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone

from datetime import timedelta

from sqlalchemy import func, or_, select, text

from pbem.config import Settings, settings
from pbem.store.models import Inbound, Outbound, SweepState, utcnow
from pbem.store.outbox import RECIPIENT_REFUSED

log = logging.getLogger("pbem.health")

REDIS_PRIORITY_SEP, REDIS_PRIORITIES = "\x06\x16", (3, 6, 9)  # kombu's Redis transport: a list per priority step
BROKER_TIMEOUT_S = 2.0


CHECKS = ("database", "broker", "beat", "outbox", "inbound", "pipeline")


@dataclass
class Check:
    ok: bool = False
    detail: dict = field(default_factory=dict)  # counts and ages only


@dataclass
class Health:
    database: Check
    broker: Check
    beat: Check
    outbox: Check
    inbound: Check
    pipeline: Check

    @property
    def ok(self) -> bool:
        return all(getattr(self, name).ok for name in CHECKS)

    def as_json(self) -> dict:
        out: dict = {"ok": self.ok}
        for name in CHECKS:
            c = getattr(self, name)
            out[name] = {"ok": c.ok, **c.detail}
        return out


def _age(now: datetime, then: datetime | None) -> float | None:
    if then is None:
        return None
    if then.tzinfo is None:  # SQLite gives naive UTC
        then = then.replace(tzinfo=timezone.utc)
    return round(max(0.0, (now - then).total_seconds()), 1)


def check(cfg: Settings | None = None) -> Health:
    """Every check, each on its own (one failing says so without hiding the others)."""
    from pbem.store.db import get_engine

    cfg = cfg or settings()
    now = utcnow()
    database, beat, outbox, inbound, pipeline = Check(), Check(), Check(), Check(), Check()
    try:
        url = cfg.database_url
        # PostgreSQL: the pooled engine (a read, rolled back); SQLite: a plain connection, whose reads take
        # no lock (pbem's engine begins every transaction IMMEDIATE, a write lock a health check must not wait for)
        engine = _plain_engine(url) if url.startswith("sqlite") else get_engine(url)
        with engine.connect() as conn:
            database.ok = True
            # the beat's deadline sweep records when it ran (services/turns/deadlines.extend_after_outage)
            last = conn.execute(select(func.max(SweepState.last_run_at))).scalar()
            age = _age(now, last)
            beat.ok = age is not None and age <= cfg.health_beat_stale_s
            beat.detail = {"age_s": age, "stale_after_s": cfg.health_beat_stale_s}
            # the backlog is mail that can still go: not held (its address bounces), and not waiting
            # because the relay refused its recipient for now (a full mailbox, greylisting: retried,
            # and one such address is no broken site); the relay down or slow still shows here
            n, oldest = conn.execute(select(func.count(), func.min(Outbound.created_at))
                                     .where(Outbound.status.in_(("queued", "sending")),
                                            or_(Outbound.last_error.is_(None),
                                                Outbound.last_error.not_like(RECIPIENT_REFUSED + "%")))).one()
            age = _age(now, oldest)
            outbox.ok = age is None or age <= cfg.health_backlog_stale_s
            outbox.detail = {"unsent": n, "oldest_age_s": age, "stale_after_s": cfg.health_backlog_stale_s}
            n, oldest = conn.execute(select(func.count(), func.min(Inbound.received_at))
                                     .where(Inbound.status == "received")).one()
            age = _age(now, oldest)
            inbound.ok = age is None or age <= cfg.health_backlog_stale_s
            inbound.detail = {"waiting": n, "oldest_age_s": age, "stale_after_s": cfg.health_backlog_stale_s}
            # mail received lately that the pipeline finished, and how much of it failed (a system error,
            # kept for a re-drive): recent rows still hold their raw text, so ix_inbound_unpruned finds them
            since = now - timedelta(seconds=cfg.health_failing_window_s)
            rows = conn.execute(select(Inbound.status, func.count())
                                .where(Inbound.status.in_(("done", "ignored", "failed")),
                                       Inbound.received_at > since, text("length(inbound.raw) > 0"))
                                .group_by(Inbound.status)).all()
            finished = sum(n for _, n in rows)
            failed = sum(n for status, n in rows if status == "failed")
            pipeline.ok = failed < max(1, cfg.health_failing_min) or failed * 2 < finished
            pipeline.detail = {"failed": failed, "finished": finished, "window_s": cfg.health_failing_window_s}
            conn.rollback()
    except Exception as e:  # noqa: BLE001 - down, or a query failed: the other checks stay unknown (not ok)
        log.warning("health: the database check failed: %s", type(e).__name__)
    broker = Check()
    try:
        depth = queue_depth(cfg)
        broker.ok = True
        broker.detail = depth
    except Exception as e:  # noqa: BLE001
        log.warning("health: the broker check failed: %s", type(e).__name__)
    return Health(database, broker, beat, outbox, inbound, pipeline)


# ---------------------------------------------------------------- the broker

_clients: dict[str, object] = {}
_clients_lock = threading.Lock()


def _redis(url: str):
    import redis

    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis.Redis.from_url(url, socket_timeout=BROKER_TIMEOUT_S,
                                                          socket_connect_timeout=BROKER_TIMEOUT_S)
        return client


def _plain_engine(url: str):
    """A database read without pbem's engine's BEGIN IMMEDIATE (SQLite: a
    health check takes no write lock), the embedded broker's too."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    with _clients_lock:
        eng = _clients.get(url)
        if eng is None:
            args = {"timeout": BROKER_TIMEOUT_S} if url.startswith("sqlite") else {"connect_timeout": 2}
            eng = _clients[url] = create_engine(url, poolclass=NullPool, connect_args=args)
        return eng


def queue_depth(cfg: Settings | None = None) -> dict:
    """The broker answers (raises if not): the tasks waiting in the queues
    (all of them: celery_app.queue_names), and (Redis) those taken by a
    worker and not yet acknowledged (running, or waiting for their countdown)."""
    from pbem.celery_app import queue_names

    cfg = cfg or settings()
    url = cfg.broker_url
    queues = queue_names(cfg)
    if cfg.is_redis_broker:
        r = _redis(url)
        p = cfg.broker_prefix
        pipe = r.pipeline(transaction=False)
        for q in queues:
            for key in [q] + [f"{q}{REDIS_PRIORITY_SEP}{n}" for n in REDIS_PRIORITIES]:
                pipe.llen(p + key)
        pipe.hlen(p + "unacked")
        *lengths, unacked = pipe.execute()
        return {"queue_depth": sum(lengths), "unacked": unacked}
    if cfg.is_embedded_broker:
        from sqlalchemy import bindparam, text
        from sqlalchemy.exc import OperationalError, ProgrammingError

        with _plain_engine(url.removeprefix("sqla+")).connect() as conn:
            try:
                depth = conn.execute(text(
                    "SELECT count(*) FROM kombu_message m JOIN kombu_queue q ON q.id = m.queue_id "
                    "WHERE q.name IN :q AND m.visible").bindparams(bindparam("q", expanding=True)),
                    {"q": queues}).scalar()
            except (OperationalError, ProgrammingError):  # no worker made the tables yet: nothing queued
                conn.rollback()
                conn.execute(text("SELECT 1"))
                depth = 0
        return {"queue_depth": depth}
    from kombu import Connection  # another transport (AMQP, Sentinel): it answers; its depth is its own console's

    with Connection(url, connect_timeout=BROKER_TIMEOUT_S, transport_options=cfg.broker_options) as c:
        c.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S)
    return {}


def reset_clients() -> None:
    with _clients_lock:
        for c in _clients.values():
            try:
                c.dispose() if hasattr(c, "dispose") else c.close()
            except Exception:  # noqa: BLE001
                pass
        _clients.clear()


