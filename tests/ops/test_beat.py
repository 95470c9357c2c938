"""Beat exactly once (issue 21): two real `celery beat` processes on the
same database; only the one holding the lease sends the periodic tasks, one
sweep per tick, and when it dies the other takes over."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SENT = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+: INFO/MainProcess\] Scheduler: Sending due task sweep",
                  re.M)


def _beat(cfg, name: str, log: Path) -> subprocess.Popen:
    env = dict(os.environ, **cfg.to_env())
    env.update(PBEM_SWEEP_EVERY_S="1", PBEM_DEADLINES_EVERY_S="3600",
               PBEM_PRUNE_EVERY_S="3600", PBEM_BEAT_LEASE_S="3")
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "worker", "beat", "--loglevel=INFO",
                             "-s", str(cfg.var_dir / f"beat-{name}")],
                            cwd=str(ROOT), env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def _sends(log: Path) -> list[str]:
    return SENT.findall(log.read_text())


def _stop(p: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.mark.parametrize("backend", ["sqlite", "postgres+redis"])
def test_two_beats_send_one_sweep_per_tick(backend, tmp_path, sqlite_cfg, on_redis):
    from tests.conftest import pg_installed

    if backend == "sqlite":
        ctx = None
        cfg = sqlite_cfg
    else:
        ctx = pg_installed(tmp_path / "pg")
        cfg = on_redis(ctx.__enter__())
    try:
        from pbem.store.db import upgrade

        upgrade()
        logs = [tmp_path / "beat-a.log", tmp_path / "beat-b.log"]
        a = _beat(cfg, "a", logs[0])
        time.sleep(3)  # a is up and holds the lease
        b = _beat(cfg, "b", logs[1])
        try:
            time.sleep(4)  # b is up too
            before = [len(_sends(p)) for p in logs]
            window = 8.0
            time.sleep(window)
            during = [len(_sends(p)) - n for p, n in zip(logs, before)]
            # one sweep per 1-second tick, from one beat only
            assert during[1] == 0, logs[1].read_text()[-3000:]
            assert window - 2 <= during[0] <= window + 1, during
            assert "another beat holds the lease" in logs[1].read_text()
            # the sender dies without a word (no release): the other takes over once the lease expires
            _stop(a, signal.SIGKILL)
            time.sleep(3 + 5)
            assert len(_sends(logs[1])) >= 2, logs[1].read_text()[-3000:]
            assert "holds the lease" in logs[1].read_text()
        finally:
            _stop(b)
            _stop(a)
        # never two sending in the same second
        seconds = [_sends(p) for p in logs]
        assert not set(seconds[0][:-1]) & set(seconds[1][1:])
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)


def test_every_beat_uses_the_locked_scheduler_and_prunes(sqlite_cfg):
    from pbem.celery_app import celery_config

    conf = celery_config(sqlite_cfg.with_(prune_every_s=120.0))
    assert conf["beat_scheduler"] == "pbem.tasks:LockedScheduler"
    assert conf["beat_schedule"]["prune"] == {"task": "pbem.prune", "schedule": 120.0}
    from pbem.tasks import app

    assert "pbem.prune" in app.tasks


def test_the_lease_goes_to_one_holder_at_a_time(any_cfg):
    import time as t

    from pbem.store import leases
    from pbem.store.db import upgrade

    upgrade()
    assert leases.acquire("beat", "a", 0.5)
    assert not leases.acquire("beat", "b", 0.5)
    assert leases.acquire("beat", "a", 0.5)  # renewed
    t.sleep(0.7)
    assert leases.acquire("beat", "b", 30)  # expired: taken over
    assert not leases.acquire("beat", "a", 30)
    leases.release("beat", "b")
    assert leases.acquire("beat", "a", 30)
