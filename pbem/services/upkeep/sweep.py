"""The periodic sweep (Celery beat, every ``deadlines_every_s``): the deadlines of the games that
are due -- reminders, late seats, the no-move policy, the bots' owed moves
(services/turns/deadlines.py) -- then the tournaments' rounds whose date has come
(services/lobby/tournaments/runs.py), then the daily digests, by mail and to chat channels
(services/follow). It reads the database, never a queue of far-future tasks."""
from __future__ import annotations

import logging
import os
import socket
import time as clock
import uuid
from datetime import datetime

from sqlmodel import select

from pbem.config import settings
from pbem.store import leases
from pbem.store.models import Seat

from ..follow import messages, notifications
from ..lobby.tournaments import runs as tournament_runs
from ..turns import deadlines

log = logging.getLogger("pbem.deadlines")

# the sweep reads only the seats due (seats.due_at), a batch of them at a time, each game in its own
# transaction, so that its cost does not grow with the games stored; one sweep at a time (the lease
# "deadlines"), for at most SWEEP_BUDGET of its period; on PostgreSQL it may have helpers
# (deadline_sweepers), which share the due games with it: each game is claimed by one of them
# (deadlines.sweep_one)
DUE_BATCH = 200
SWEEP_BUDGET = 0.8
PART_TASK = "pbem.deadlines_part"


def run(now: datetime, budget_s: float | None = None) -> dict:
    """The whole sweep: the outage check, then the games with a seat due
    (seats.due_at <= now, by its index: nothing else is read), oldest due
    first, a batch at a time, each game in its own transaction (one broken
    game never blocks the others), then the digests. One sweep at a time
    (the lease "deadlines"): a copy started while another runs returns at
    once. It stops after ``budget_s`` (default: SWEEP_BUDGET of its period),
    leaving what is still due to the next one."""
    from pbem.store.db import unit_of_work

    cfg = settings()
    total = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "extended_s": 0, "games": 0}
    budget = cfg.deadlines_every_s * SWEEP_BUDGET if budget_s is None else budget_s
    holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    ttl = max(4 * cfg.deadlines_every_s, 120.0)
    if not leases.acquire("deadlines", holder, ttl):
        log.info("deadline sweep: another sweep runs; this one stops")
        return {**total, "skipped": 1}
    try:
        # before any helper starts: no game is found late for the time the service was down
        total["extended_s"] = int(deadlines.extend_after_outage(now).total_seconds())
        if cfg.deadline_sweepers > 1 and cfg.database_url.startswith("postgresql"):
            from pbem.celery_app import app

            for _ in range(cfg.deadline_sweepers - 1):
                app.send_task(PART_TASK, args=(now.isoformat(), budget), expires=budget)
        _sweep_due(now, budget, total, renew=lambda: leases.acquire("deadlines", holder, ttl))
        total.update(_tournaments(now))
        total["digests"] = _digests(now, "mail")
        total["channel_digests"] = _digests(now, "channels")
    finally:
        leases.release("deadlines", holder)
    return total


def run_part(now: datetime, budget_s: float) -> dict:
    """A helper of the sweep at ``now`` (PostgreSQL, deadline_sweepers > 1): the games due, as the sweep
    reads them, for at most ``budget_s``; the sweep and its helpers each claim a game before they touch
    it, so each due game is swept by one of them (deadlines.sweep_one). No outage check (the sweep made
    it before it asked for helpers), no digests."""
    total = {"reminders": 0, "late": 0, "bot_moves": 0, "abandoned": 0, "games": 0}
    _sweep_due(now, budget_s, total)
    return total


def _sweep_due(now: datetime, budget: float, total: dict, renew=None) -> None:
    """The games with a seat due, oldest due first, a batch at a time, for at most ``budget`` seconds."""
    from pbem.store.db import unit_of_work

    started = clock.monotonic()
    seen: set[int] = set()
    while clock.monotonic() - started < budget:
        with unit_of_work() as s:
            due = s.exec(select(Seat.game_id).where(Seat.due_at <= now).order_by(Seat.due_at)
                         .limit(DUE_BATCH)).all()
        ids = [gid for gid in dict.fromkeys(due) if gid not in seen]
        if not ids:
            break
        seen.update(ids)
        for gid in ids:
            deadlines.sweep_one(gid, now, total)
        if renew is not None:
            renew()


def _digests(now: datetime, which: str) -> int:
    """The daily digests, mail or chat channels, in bounded batches of their own transactions."""
    try:
        if which == "mail":
            return messages.send_all_digests(now)
        return notifications.send_all_digests(now)
    except Exception:
        log.exception("%s digest failed", which)
        return 0


def _tournaments(now: datetime) -> dict:
    """The tournaments' rounds whose date has come, and those on a calendar that have ended (each
    in its own transaction, its row locked: a round is started once, whatever sweeps run)."""
    try:
        return tournament_runs.run(now)
    except Exception:
        log.exception("tournament rounds failed")
        return {}
