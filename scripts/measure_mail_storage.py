"""The bytes a move mail takes in the outbox, as stored before packing, packed, and once retention
has dropped its bodies (docs/PERFORMANCE.md, "Storage"): a 4-player game of each game played by
mail through the real pipeline on a fresh PostgreSQL database (dropped at the end), every mail
it sends measured as PostgreSQL stores it (pg_column_size: after TOAST's own compression).

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

from sqlalchemy import text, update  # noqa: E402

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
    from pbem.store.models import Outbound, utcnow

    with tempfile.TemporaryDirectory() as tmp, bench_settings(redis_url=None, var_dir=Path(tmp) / "var",
                                                              settings={"PBEM_MAIL_PICTURES": "0"}):
        config.set_settings(config.settings().with_(send_inline=True))
        eng = get_engine()
        print(f"{'game':10}{'mails':>7}{'text+HTML':>12}{'as text':>10}{'packed':>9}{'row before':>12}"
              f"{'row packed':>12}{'row dropped':>13}   (bytes per move mail, mean)")
        for name in a.games.split(","):
            gid = make_games(name, 4, 1, first_seed=7)[0]
            play(gid, a.plies)
            with eng.begin() as c:
                c.exec_driver_sql("CREATE TEMP TABLE old_form (id int, body_text text, body_html text, "
                                  "headers json, message_id varchar, to_addr varchar, subject varchar)")
                with unit_of_work() as s:  # each mail as the outbox held it before packing: text columns
                    rows = s.query(Outbound).filter(Outbound.game_id == gid,
                                                    Outbound.kind.in_(("board", "reply"))).all()
                    for r in rows:
                        c.execute(text("INSERT INTO old_form VALUES (:id, :t, :h, CAST(:hd AS json), :m, :to, :s)"),
                                  {"id": r.id, "t": r.body_text, "h": r.body_html, "hd": __import__("json").dumps(
                                      r.headers), "m": r.message_id, "to": r.to_addr, "s": r.subject})
                raw = [len(r.body_text.encode()) + len((r.body_html or "").encode()) for r in rows]
                old = c.exec_driver_sql("SELECT pg_column_size(body_text) + coalesce(pg_column_size(body_html), 0), "
                                        "pg_column_size(old_form.*) FROM old_form").all()
                ids = [r.id for r in rows]
                new = c.exec_driver_sql("SELECT pg_column_size(body_text) + coalesce(pg_column_size(body_html), 0), "
                                        "pg_column_size(outbound.*) FROM outbound WHERE id = ANY(%(ids)s)",
                                        {"ids": ids}).all()
                c.exec_driver_sql("DROP TABLE old_form")
            then = utcnow() - timedelta(days=20)
            with unit_of_work() as s:
                s.exec(update(Outbound).where(Outbound.game_id == gid).values(created_at=then, status="sent"))
            prune()
            with eng.connect() as c:
                dropped = [r[0] for r in c.exec_driver_sql(
                    "SELECT pg_column_size(outbound.*) FROM outbound WHERE id = ANY(%(ids)s)", {"ids": ids})]
            mean = lambda xs: round(statistics.mean(xs))  # noqa: E731
            print(f"{name:10}{len(rows):>7}{mean(raw):>12,}{mean([o[0] for o in old]):>10,}"
                  f"{mean([n[0] for n in new]):>9,}{mean([o[1] for o in old]):>12,}{mean([n[1] for n in new]):>12,}"
                  f"{mean(dropped):>13,}")


if __name__ == "__main__":
    main()
