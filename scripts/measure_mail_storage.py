"""The bytes a move mail takes in the outbox (docs/PERFORMANCE.md, "Storage"): a 4-player game of
each game played by mail through the real pipeline on a fresh PostgreSQL database (dropped at the
end), every mail it sends measured: its text and HTML as rendered, as PostgreSQL stores them
(pg_column_size: after TOAST's own compression), packed with zlib (what pbem stores on SQLite, which
compresses nothing itself), and the whole row on PostgreSQL with its bodies and once retention has
dropped them.

    .venv/bin/python scripts/measure_mail_storage.py --plies 60
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sqlalchemy import update  # noqa: E402
from sqlmodel import select  # noqa: E402

from pbem import config  # noqa: E402


def play(gid: int, plies: int) -> int:
    """``plies`` moves of the game, each a mail from its seat's player through the pipeline."""
    from email.message import EmailMessage

    from sqlmodel import select

    from pbem.bench.env import playout
    from pbem.mail import pipeline
    from pbem.mail.inbound import Handler
    from pbem.store.db import unit_of_work
    from pbem.store.models import Seat, User

    n = 0
    for seat, move in playout(gid, plies, seed=gid):
        with unit_of_work() as s:
            row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
            frm = s.get(User, row.user_id).email
            to = f"game-{gid}.{row.token}@{config.settings().domain}"
        m = EmailMessage()
        m["From"], m["To"], m["Subject"] = frm, to, f"Re: [pbem #{gid}] your move"
        m["Message-ID"] = f"<m{gid}.{n}.{time.time_ns()}@client.example>"
        m.set_content(f"{move}\n\nThanks, see you next turn.\n")
        iid = Handler(enqueue=lambda _i: None).store(m.as_bytes(), frm, [to], "127.0.0.1", "client.example")[0]
        pipeline.process_inbound(iid)
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plies", type=int, default=60, help="moves played in each game")
    ap.add_argument("--games", default="spyrium,squire,iaww")
    a = ap.parse_args()
    from pbem.bench.env import bench_settings, make_games
    from pbem.services.upkeep.retention import prune
    from pbem.store.db import get_engine, unit_of_work
    from pbem.store.models import Outbound, pack, utcnow

    with tempfile.TemporaryDirectory() as tmp, bench_settings(redis_url=None, var_dir=Path(tmp) / "var",
                                                              settings={"PBEM_MAIL_PICTURES": "0"}):
        config.set_settings(config.settings().with_(send_inline=True))
        eng = get_engine()
        gids = {name: make_games(name, 4, 1, first_seed=7)[0] for name in a.games.split(",")}
        for gid in gids.values():
            play(gid, a.plies)
        print(f"{'game':10}{'mails':>7}{'text+HTML':>11}{'PostgreSQL':>12}{'zlib':>7}{'row':>7}{'row dropped':>13}"
              "   (bytes per move mail, mean)")
        for name, gid in gids.items():
            with unit_of_work() as s:
                rows = list(s.exec(select(Outbound).where(Outbound.game_id == gid,
                                                          Outbound.kind.in_(("board", "reply")))))
            raw = [len(r.body_text.encode()) + len((r.body_html or "").encode()) for r in rows]
            packed = [len(pack(r.body_text.encode())) + len(pack((r.body_html or "").encode())) for r in rows]
            ids = [r.id for r in rows]
            with eng.connect() as c:
                new = c.exec_driver_sql("SELECT pg_column_size(body_text) + coalesce(pg_column_size(body_html), 0), "
                                        "pg_column_size(outbound.*) FROM outbound WHERE id = ANY(%(ids)s)",
                                        {"ids": ids}).all()
            then = utcnow() - timedelta(days=20)
            with unit_of_work() as s:
                s.exec(update(Outbound).where(Outbound.game_id == gid).values(created_at=then, status="sent"))
            prune()
            with eng.connect() as c:
                dropped = [r[0] for r in c.exec_driver_sql(
                    "SELECT pg_column_size(outbound.*) FROM outbound WHERE id = ANY(%(ids)s)", {"ids": ids})]
            mean = lambda xs: round(statistics.mean(xs))  # noqa: E731
            print(f"{name:10}{len(rows):>7}{mean(raw):>11,}{mean([n[0] for n in new]):>12,}{mean(packed):>7,}"
                  f"{mean([n[1] for n in new]):>7,}{mean(dropped):>13,}")


if __name__ == "__main__":
    main()
