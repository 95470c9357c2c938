"""The deadline sweep's throughput with one sweeper and with several sharing the due games
(PBEM_DEADLINE_SWEEPERS, PostgreSQL: each game claimed FOR UPDATE SKIP LOCKED): running games whose
seat to move owes its reminder, swept by 1, then 2 processes at once (the same due games each time,
their seats put back between runs), on a fresh PostgreSQL database dropped at the end.

    .venv/bin/python scripts/measure_sweepers.py --games 600 --sweepers 1,2
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem import config  # noqa: E402


def _sweeper(cfg, at, start, out) -> None:
    from pbem.services.upkeep import sweep
    from pbem.store import db

    config.set_settings(cfg)
    db.dispose_engines()  # the parent's connections stay the parent's
    start.wait()
    out.put(sweep.run_part(at, budget_s=3600))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--game", default="spyrium")
    ap.add_argument("--sweepers", default="1,2")
    a = ap.parse_args()
    from sqlmodel import select

    from pbem.bench.env import bench_settings, make_games
    from pbem.services.core import clocks
    from pbem.store.db import dispose_engines, get_engine, unit_of_work
    from pbem.store.models import Seat

    with tempfile.TemporaryDirectory() as tmp, bench_settings(redis_url=None, var_dir=Path(tmp) / "var",
                                                              settings={"PBEM_MAIL_PICTURES": "0"}) as cfg:
        t0 = time.time()
        make_games(a.game, 2, a.games)
        with unit_of_work() as s:
            deadlines = [clocks.aware(d) for d in s.exec(select(Seat.deadline_at).where(Seat.deadline_at.is_not(None)))]
        at = max(deadlines) - timedelta(hours=3)  # every seat to move owes its 4 h reminder
        eng = get_engine()
        with eng.begin() as c:
            c.exec_driver_sql("CREATE TABLE seats_saved AS SELECT id, reminded, due_at FROM seats")
        print(f"{a.games} running {a.game} games made in {time.time() - t0:.0f} s; each owes a reminder")
        dispose_engines()
        ctx = multiprocessing.get_context("fork")
        for n in [int(x) for x in a.sweepers.split(",")]:
            with get_engine().begin() as c:  # the same due games for every run
                c.exec_driver_sql("UPDATE seats SET reminded = v.reminded, due_at = v.due_at FROM seats_saved v "
                                  "WHERE seats.id = v.id")
            dispose_engines()
            start, out = ctx.Barrier(n + 1), ctx.Queue()
            procs = [ctx.Process(target=_sweeper, args=(cfg, at, start, out)) for _ in range(n)]
            for p in procs:
                p.start()
            start.wait()
            t0 = time.monotonic()
            got = [out.get(timeout=3600) for _ in procs]
            took = time.monotonic() - t0
            for p in procs:
                p.join(timeout=60)
            games = sum(r["games"] for r in got)
            print(f"{n} sweeper(s): {games} games ({' + '.join(str(r['games']) for r in got)}), "
                  f"{sum(r['reminders'] for r in got)} reminders in {took:.1f} s: {games / took * 60:,.0f} games a minute")


if __name__ == "__main__":
    main()
