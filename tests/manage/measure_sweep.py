"""Measure the deadline sweep (a command, not a test):

    .venv/bin/python -m tests.manage.measure_sweep 200

N running two-seat mini games on SQLite; times one sweep with nothing due,
one where every game sends a 24 h reminder, one where every seat is late and
a bot plays (boards mailed to the outbox)."""
import sys, tempfile, time
from datetime import timedelta
from pathlib import Path
from tests.conftest import installed, make_settings, register_game  # registers the mini game
from pbem.services.core import accounts
from pbem.services.lobby import tables
from pbem.services.upkeep import sweep
from pbem.store.db import unit_of_work
from pbem.store.models import utcnow

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
with installed(make_settings(Path(tempfile.mkdtemp())).with_(sweep_gap_s=10**9)) as cfg:
    with unit_of_work() as s:
        a = accounts.register(s, "a@x.test", "A")[0]; b = accounts.register(s, "b@x.test", "B")[0]
        for i in range(N):
            g = tables.create(s, a, "mini", 2, {"hand": "3"}, seed=i, policy="bot")
            tables.join(s, b, g.id)
    now = utcnow()
    t = time.perf_counter(); r = sweep.run(now); t1 = time.perf_counter() - t
    print(f"{N} running games, nothing due: {t1:.2f} s", {k: v for k, v in r.items() if v})
    t = time.perf_counter(); r = sweep.run(now + timedelta(hours=24, minutes=30)); t2 = time.perf_counter() - t
    print(f"{N} games, one 24 h reminder each (mail rendered): {t2:.2f} s", {k: v for k, v in r.items() if v})
    t = time.perf_counter(); r = sweep.run(now + timedelta(hours=50)); t3 = time.perf_counter() - t
    print(f"{N} games, every seat late, bot plays (+ boards mailed): {t3:.2f} s", {k: v for k, v in r.items() if v})
