"""Sizes before and after retention (docs/operators.md, Retention), on a database filled the
way pbem fills one: games played to their end by mail, every move a mail
through the real pipeline (its inbound row, the boards and receipts it
queues, the snapshots), then everything aged past the retention times, and
`pbem prune`'s work measured.

    .venv/bin/python scripts/measure_retention.py --games 20            # SQLite
    .venv/bin/python scripts/measure_retention.py --games 20 --pg       # PostgreSQL

or, with --history, on a PostgreSQL database of millions of rows written in
bulk (pbem/bench/history.py): the time of one day's retention, and PostgreSQL's
plan of every statement it runs:

    .venv/bin/python scripts/measure_retention.py --history --day 100000 --recent 3000000 \
        --emptied 3000000 --moves 13000000 --history-games 1000000
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import text, update  # noqa: E402
from sqlmodel import select  # noqa: E402

from pbem import config  # noqa: E402

TABLES = ("inbound", "outbound", "snapshots", "moves", "posts", "games")


def play(gid: int) -> int:
    from email.message import EmailMessage

    from pbem.bench.env import playout
    from pbem.mail import pipeline
    from pbem.mail.inbound import Handler
    from pbem.store.db import unit_of_work
    from pbem.store.models import Seat, User

    n = 0
    for seat, move in playout(gid, None, seed=gid):
        with unit_of_work() as s:
            row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
            frm = s.get(User, row.user_id).email
            to = f"game-{gid}.{row.token}@{config.settings().domain}"
        mails = [f"{move}\n\nThanks, see you next turn.\n\n-- \nA player\n"]
        if n % 5 == 4:  # and now and then a mail of table talk alone, as players write
            mails.append("SAY nice one! I did not see that coming.\n\n-- \nA player\n")
        for k, body in enumerate(mails):
            m = EmailMessage()
            m["From"], m["To"], m["Subject"] = frm, to, f"Re: [pbem #{gid}] your move"
            m["Message-ID"] = f"<m{gid}.{n}.{k}.{time.time_ns()}@client.example>"
            m.set_content(body)
            iid = Handler(enqueue=lambda _i: None).store(m.as_bytes(), frm, [to], "127.0.0.1", "client.example")[0]
            pipeline.process_inbound(iid)
        n += 1
    return n


def sizes() -> dict:
    from pbem.store.db import get_engine

    eng = get_engine()
    out = {}
    with eng.connect() as c:
        for t in TABLES:
            out[t] = c.execute(text(f"SELECT count(*) FROM {t}")).scalar()
        if eng.dialect.name == "sqlite":
            page = c.exec_driver_sql("PRAGMA page_size").scalar()
            pages = c.exec_driver_sql("PRAGMA page_count").scalar()
            free = c.exec_driver_sql("PRAGMA freelist_count").scalar()
            out["file bytes"] = pages * page
            out["used bytes"] = (pages - free) * page
        else:
            for t in ("inbound", "outbound", "snapshots"):
                out[f"{t} bytes"] = c.execute(text(f"SELECT pg_total_relation_size('{t}')")).scalar()
            out["database bytes"] = c.execute(text("SELECT pg_database_size(current_database())")).scalar()
    return out


def history(a) -> None:
    """Fill, ANALYZE, then one run of prune: its time, what it did, and each statement's plan."""
    from pbem.bench.env import bench_settings
    from pbem.bench.history import fill, plans
    from pbem.services.upkeep.retention import prune
    from pbem.store.db import get_engine
    from pbem.store.models import utcnow

    with tempfile.TemporaryDirectory() as tmp, bench_settings(redis_url=None, var_dir=Path(tmp) / "var"):
        eng = get_engine()
        t0 = time.time()
        with eng.begin() as conn:
            fill(conn, games=a.history_games, emptied=a.emptied, day=a.day, recent=a.recent, moves=a.moves,
                 now=utcnow())
        with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
        print(f"filled in {time.time() - t0:.0f} s (VACUUM ANALYZE included):")
        before = _rows(eng)
        cfg = config.settings().with_(prune_batch=a.batch or config.settings().prune_batch)
        # the run of prune, a part at a time (the others' times set to 0, "keep forever") to show each one's time
        parts = {"mail": cfg.with_(keep_outbox_days=0, keep_snapshots_days=0),
                 "outbox, notifications, pictures": cfg.with_(keep_inbound_days=0, keep_snapshots_days=0),
                 "snapshots": cfg.with_(keep_inbound_days=0, keep_outbox_days=0)}
        took = 0.0
        with plans(eng) as got:
            for part, part_cfg in parts.items():
                t0 = time.time()
                done = {k: v for k, v in prune(cfg=part_cfg).as_dict().items() if v}
                took += time.time() - t0
                print(f"prune, {part}: {done} in {time.time() - t0:.1f} s")
        after = _rows(eng)
        print(f"prune: {took:.1f} s in all, {len(got)} distinct statements")
        print(f"{'':16}{'rows before':>14}{'after':>14}{'bytes before':>16}")
        for t in before:
            print(f"{t:16}{before[t][0]:>14,}{after[t][0]:>14,}{before[t][1]:>16,}")
        for sql, plan in got.items():
            print("\n" + " ".join(sql.split())[:160])
            print("\n".join("    " + line[:150] for line in plan.splitlines()))


def _rows(eng) -> dict:
    with eng.connect() as c:
        return {t: (c.execute(text(f"SELECT count(*) FROM {t}")).scalar(),
                    c.execute(text(f"SELECT pg_total_relation_size('{t}')")).scalar())
                for t in ("inbound", "moves", "outbound", "notifications", "snapshots", "games", "confirmations",
                          "bounces")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--game", default="spyrium")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--pg", action="store_true", help="on a fresh PostgreSQL database (dropped at the end)")
    ap.add_argument("--history", action="store_true", help="on a bulk history instead (PostgreSQL)")
    ap.add_argument("--history-games", type=int, default=100_000)
    ap.add_argument("--day", type=int, default=10_000, help="the day's mails past the retention time")
    ap.add_argument("--recent", type=int, default=300_000, help="mails kept (received since)")
    ap.add_argument("--emptied", type=int, default=300_000, help="mails emptied by earlier runs")
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, help="rows per transaction (default: PBEM_PRUNE_BATCH's)")
    a = ap.parse_args()
    if a.history:
        return history(a)
    from pbem.bench.env import bench_settings, install, make_games
    from pbem.services.upkeep.retention import prune
    from pbem.store.db import dispose_engines, get_engine, unit_of_work
    from pbem.store.models import Game, Inbound, Outbound, utcnow

    with tempfile.TemporaryDirectory() as tmp:
        if a.pg:
            ctx = bench_settings(redis_url=None, var_dir=Path(tmp) / "var")
            ctx.__enter__()
        else:
            install(config.load_settings({"PBEM_VAR_DIR": str(Path(tmp) / "var"), "PBEM_DOMAIN": "pbem.bench",
                                          "PBEM_SECRET_KEY": "x", "PBEM_INBOUND_RATE": "100000000",
                                          "PBEM_TALK_PER_HOUR": "100000000"}))
        config.set_settings(config.settings().with_(send_inline=True))
        t0 = time.time()
        ids = make_games(a.game, a.players, a.games)
        plies = sum(play(g) for g in ids)
        print(f"{a.games} {a.game} games x{a.players}, {plies} moves by mail, played in {time.time() - t0:.0f} s "
              f"on {get_engine().dialect.name}")
        then = utcnow() - timedelta(days=100)
        with unit_of_work() as s:  # everything happened 100 days ago; the mail went out
            s.exec(update(Inbound).values(received_at=then))
            s.exec(update(Outbound).values(created_at=then, sent_at=then, status="sent"))
            s.exec(update(Game).values(updated_at=then))
        before = sizes()
        t0 = time.time()
        done = prune()
        took = time.time() - t0
        after = sizes()
        if get_engine().dialect.name == "sqlite":
            import sqlite3

            dispose_engines()
            c = sqlite3.connect(get_engine().url.database, isolation_level=None)
            c.execute("VACUUM")
            c.close()
        else:
            with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.exec_driver_sql("VACUUM FULL")
        vacuumed = sizes()
        print(f"prune: {done.as_dict()} in {took:.2f} s")
        print(f"{'':18}{'before':>14}{'after prune':>14}{'after VACUUM':>14}")
        for k in before:
            print(f"{k:18}{before[k]:>14,}{after[k]:>14,}{vacuumed[k]:>14,}")
        dispose_engines()
        if a.pg:
            ctx.__exit__(None, None, None)


if __name__ == "__main__":
    main()
