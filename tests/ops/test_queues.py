"""Separate queues: the players' mail, the beat's sweeps, the bots
and delivery each on a Celery queue of its own, on a real Redis broker, so a
machine can run workers for one queue only; a worker started without
--queues consumes every queue (one machine); a periodic task that waited
longer than its own period in its queue is dropped, not run late."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import redis

from pbem import celery_app
from pbem.celery_app import app
from tests.conftest import REDIS_BASE, celery_worker
from tests.mailtools import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
QUEUES = dict(mail_queue="mail", sweep_queue="sweeps", bot_queue="bots", delivery_queue="delivery")
MISSING = 10 ** 9  # ids of no row: each task finds nothing to do, and says so


def _waiting(cfg) -> dict[str, list[dict]]:
    """The messages waiting in each queue, read from Redis itself: (task name, expiry) by queue."""
    r = redis.Redis.from_url(f"{REDIS_BASE}/0")
    out = {}
    for q in ["pbem", *QUEUES.values()]:
        messages = [json.loads(m) for m in r.lrange(cfg.broker_prefix + q, 0, -1)]
        out[q] = sorted((m["headers"]["task"], m["headers"]["expires"] is not None) for m in messages)
    return out


def _send_one_of_each_kind() -> None:
    """One task of each kind, as the product sends them: the receiver's, the
    outbox's, the pushbox's, the bots' and the beat's (its entries' options)."""
    celery_app.enqueue_process(MISSING)
    celery_app.enqueue_send([MISSING])
    celery_app.enqueue_push([MISSING])
    celery_app.enqueue_bot_move(MISSING)
    celery_app.enqueue_stand_in(MISSING, 0, "late")
    for entry in app.conf.beat_schedule.values():
        app.send_task(entry["task"], **entry["options"])


def _wait_until(check, timeout: float = PATIENCE) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.2)


def test_each_kind_of_task_lands_on_its_queue_and_a_worker_of_one_queue_takes_only_that(sqlite_cfg, on_redis):
    cfg = on_redis(sqlite_cfg.with_(**QUEUES, prune_every_s=3600.0))
    _send_one_of_each_kind()
    assert _waiting(cfg) == {
        "pbem": [],
        "mail": [("pbem.process_inbound", False)],
        "delivery": [("pbem.push", False), ("pbem.send_outbound", False)],
        "bots": [("pbem.bot_move", False), ("pbem.stand_in", False)],
        "sweeps": [("pbem.deadlines", True), ("pbem.prune", True), ("pbem.sweep", True)],  # they expire
    }
    with celery_worker(cfg, queues="mail"):  # a machine for the players' mail only
        _wait_until(lambda: not _waiting(cfg)["mail"])
        time.sleep(2)  # and it leaves the others alone
        assert all(_waiting(cfg)[q] for q in ("delivery", "bots", "sweeps"))
    with celery_worker(cfg):  # no --queues: every queue (one machine)
        _wait_until(lambda: not any(_waiting(cfg).values()))


def test_the_embedded_default_keeps_one_queue_that_its_worker_consumes(sqlite_cfg):
    """No queue settings (`pbem up`): every task on the default queue, on the embedded broker."""
    assert celery_app.queue_names(sqlite_cfg) == ["pbem"]
    assert sqlite_cfg.is_embedded_broker
    for name in celery_app.QUEUE_OF:
        assert app.amqp.router.route({}, name)["queue"].name == "pbem"


def test_a_sweep_that_waited_longer_than_its_period_is_dropped(sqlite_cfg, on_redis, tmp_path):
    cfg = on_redis(sqlite_cfg.with_(**QUEUES, sweep_every_s=1.0))
    entry = app.conf.beat_schedule["sweep"]
    assert entry["options"] == {"expires": 1.0} and entry["schedule"] == 1.0
    app.send_task(entry["task"], **entry["options"])
    time.sleep(2)  # the workers were away longer than a sweep period
    app.send_task(entry["task"], expires=600)  # a fresh one, to know when the worker got that far
    log = tmp_path / "worker.log"
    env = dict(os.environ, **cfg.to_env())
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "tests.worker_app", "worker", "--pool=solo",
                             "--loglevel=INFO", "--without-gossip", "--without-mingle", "-Q", "sweeps"],
                            cwd=str(ROOT), env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        _wait_until(lambda: "succeeded" in log.read_text())
    finally:
        proc.terminate()
        proc.wait(30)
    text = log.read_text()
    assert text.count("pbem.sweep[") >= 2, text[-3000:]
    assert "Discarding revoked task" in text and text.count("succeeded") == 1, text[-3000:]
