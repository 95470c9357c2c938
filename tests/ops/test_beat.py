"""Beat exactly once: two real `celery beat` processes on the
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

from tests.mailtools import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
# a line of the beat's log (pbem/logs.py text format, or Celery's own) saying it sent the sweep
SENT = re.compile(r"^\[?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)\b.*Scheduler: Sending due task sweep", re.M)


def _beat(cfg, name: str, log: Path) -> subprocess.Popen:
    env = dict(os.environ, **cfg.to_env())
    env.update(PBEM_SWEEP_EVERY_S="1", PBEM_DEADLINES_EVERY_S="3600",
               PBEM_PRUNE_EVERY_S="3600", PBEM_BEAT_LEASE_S="3")
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "worker", "beat", "--loglevel=INFO",
                             "-s", str(cfg.var_dir / f"beat-{name}")],
                            cwd=str(ROOT), env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def _sends(log: Path) -> list[str]:
    return SENT.findall(log.read_text())


def _sender_and_waiter(logs: list[Path], timeout: float = PATIENCE) -> int:
    """Until one beat's log says it sends and the other's that it waits (processes start slowly on a loaded
    machine): the index of the sender."""
    end = time.monotonic() + timeout
    while True:
        texts = [p.read_text() for p in logs]
        for i in (0, 1):
            if "holds the lease: sends the periodic tasks" in texts[i] \
                    and "another beat holds the lease: this one waits" in texts[1 - i]:
                return i
        assert time.monotonic() < end, f"no beat sends while the other waits: {[t[-2000:] for t in texts]}"
        time.sleep(0.2)


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
        # both start at once (a process starts slowly on a loaded machine: no need to wait twice); a is the
        # one that took the lease, b the other
        logs = [tmp_path / "beat-1.log", tmp_path / "beat-2.log"]
        beats = [_beat(cfg, "1", logs[0]), _beat(cfg, "2", logs[1])]
        try:
            first = _sender_and_waiter(logs)  # a is up and sends, b is up and waits
            a, b = beats[first], beats[1 - first]
            logs = [logs[first], logs[1 - first]]
            before = [len(_sends(p)) for p in logs]
            # a window of a few ticks (b, waiting, asks for the lease once a second meanwhile): it ends with the
            # third sweep sent since, by either beat, however long a loaded machine takes to get there
            started = time.monotonic()
            end = started + PATIENCE
            while sum(len(_sends(p)) - n for p, n in zip(logs, before)) < 3:
                assert time.monotonic() < end, [p.read_text()[-2000:] for p in logs]
                time.sleep(0.2)
            window = time.monotonic() - started
            during = [len(_sends(p)) - n for p, n in zip(logs, before)]
            # from one beat only (unless a stalled past its lease, as a loaded machine may make it: then b
            # took over, and a said it waits)
            assert during[1] == 0 or "this one waits" in logs[0].read_text(), logs[1].read_text()[-3000:]
            # one sweep per tick: never more than one a second (on a loaded machine a tick may come late)
            assert 1 <= during[0] <= window + 1, during
            # the sender dies without a word (no release): the other takes over once the lease expires
            _stop(a, signal.SIGKILL)
            killed = time.monotonic()
            while len(_sends(logs[1])) < 2 and time.monotonic() - killed < 30:
                time.sleep(0.5)
            assert len(_sends(logs[1])) >= 2, logs[1].read_text()[-3000:]
            assert "holds the lease: sends the periodic tasks" in logs[1].read_text()
        finally:
            for p in reversed(beats):
                _stop(p)
        # both logs together: one sweep per 1-second tick, never two in the same tick
        from datetime import datetime

        times = sorted(datetime.strptime(x, "%Y-%m-%d %H:%M:%S,%f") for p in logs for x in _sends(p))
        gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
        assert min(gaps) > 0.5, gaps
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)


def test_every_beat_uses_the_locked_scheduler_and_prunes(sqlite_cfg):
    from pbem.celery_app import celery_config

    conf = celery_config(sqlite_cfg.with_(prune_every_s=120.0))
    assert conf["beat_scheduler"] == "pbem.tasks:LockedScheduler"
    assert conf["beat_schedule"]["prune"] == {"task": "pbem.prune", "schedule": 120.0, "options": {"expires": 120.0}}
    from pbem.tasks import app

    assert "pbem.prune" in app.tasks


def test_the_lease_goes_to_one_holder_at_a_time(any_cfg):
    import time as t

    from pbem.store import leases
    from pbem.store.db import upgrade

    upgrade()
    assert leases.acquire("beat", "a", 2)
    assert not leases.acquire("beat", "b", 2)
    assert leases.acquire("beat", "a", 2)  # renewed
    t.sleep(2.3)
    assert leases.acquire("beat", "b", 30)  # expired: taken over
    assert not leases.acquire("beat", "a", 30)
    leases.release("beat", "b")
    assert leases.acquire("beat", "a", 30)
