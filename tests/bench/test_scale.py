"""`pbem bench scale` end to end at tiny sizes, and the shape of
the database it fills. No timing is asserted (benchmarks are commands, not
timed tests): that every operation was measured at every size with its ratio
and its EXPLAIN, and that the fill is what the product itself would have
stored -- statuses split, moves pointing to their mails, clocks the sweep
finds nothing due on, the schema's indexes all there."""
import json
from collections import Counter

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select, text

from pbem.cli import main
from tests.conftest import PG_ADMIN, REDIS_BASE

OPERATIONS = ("lobby (anonymous)", "lobby (logged in)", "my games (/me, heavy player)", "game page (/games/<id>)",
              "view.json", "thread.json", "admin /admin", "one move mail (worker)", "deadline sweep, nothing due",
              "deadline sweep, 9 min due", "run_sweep (periodic)", "outage catch-up (2 h gap)",
              "retention, one day of rows")


@pytest.mark.redis
@pytest.mark.postgres
def test_bench_scale_reports_every_operation_at_every_size(tmp_path):
    from pbem.bench.scale import slug

    report = tmp_path / "scale.md"
    res = CliRunner().invoke(main, ["bench", "scale", "--sizes", "40,80", "--quick", "--seed", "3",
                                    "--out", str(tmp_path / "perf"), "--report", str(report), "--pg", PG_ADMIN,
                                    "--redis", f"{REDIS_BASE}/0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    body = report.read_text()
    assert body in res.output  # printed and written
    header = next(line for line in body.splitlines() if line.startswith("| operation"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[-2:] == ["target", "verdict"] and "80: × 40" in cols and "40: stmts" in cols, cols
    rows = {r.split("|")[1].strip(): dict(zip(cols, (c.strip() for c in r.strip("|").split("|"))))
            for r in body.splitlines() if r.startswith("| ") and not r.startswith(("| operation", "| games", "| table"))}
    for op in OPERATIONS:
        row = rows[op]
        assert float(row["80: × 40"]) > 0 and float(row["40: p50 ms"]) > 0 and float(row["80: stmts"]) > 0, row
        for size in (40, 80):
            assert (tmp_path / "perf" / str(size) / f"{slug(op)}.txt").exists(), (op, size)
    for op in ("lobby (anonymous)", "one move mail (worker)", "deadline sweep, nothing due",
               "retention, one day of rows"):
        assert rows[op]["verdict"] in ("met", "**not met**"), rows[op]
    assert "Scan" in (tmp_path / "perf" / "80" / "view-json.txt").read_text()  # a plan, explained
    assert "### Database at 80 games" in body and "| moves " in body
    assert "100,000 games would take about" in body


@pytest.mark.redis
@pytest.mark.postgres
def test_fill_stores_what_the_product_would():
    from pbem.bench import scale
    from pbem.bench.env import bench_settings
    from pbem.services.core import games
    from pbem.services.upkeep import sweep
    from pbem.store.db import get_engine, unit_of_work
    from pbem.store.models import Game, Inbound, Move, Outbound, Seat, Snapshot

    with bench_settings(PG_ADMIN, f"{REDIS_BASE}/0"):
        with get_engine().connect() as c:
            schema = set(c.exec_driver_sql("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'").scalars())
        filled = scale.fill(60, 5, pool_size=16)
        with get_engine().connect() as c:
            assert set(c.exec_driver_sql("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'")
                       .scalars()) == schema  # every index of the migrations, made again after the COPY
        with unit_of_work() as s:
            statuses = Counter(s.execute(select(Game.status)).scalars())
            assert statuses == {"finished": 36, "running": 21, "open": 3}
            plies = dict(s.execute(select(Game.id, Game.ply)).all())
            moved = dict(s.execute(select(Move.game_id, func.max(Move.ply)).group_by(Move.game_id)).all())
            assert moved == {g: p for g, p in plies.items() if p}  # each started game's log up to its ply
            by_mail = s.execute(select(Move.inbound_id, Inbound.id, Inbound.rcpt_to, Seat.token)
                             .join(Inbound, Inbound.id == Move.inbound_id, isouter=True)
                             .join(Seat, (Seat.game_id == Move.game_id) & (Seat.seat == Move.seat))
                             .where(Move.source == "mail")).all()
            assert by_mail and all(i is not None and i == j and token in rcpt for i, j, rcpt, token in by_mail)
            assert s.execute(select(func.count()).select_from(Move).where(Move.source == "web")).scalar() > 0
            assert s.execute(select(func.count()).select_from(Inbound).where(Inbound.status == "failed")).scalar() == 3
            assert s.execute(select(func.count()).select_from(Outbound)).scalar() > 0
            snaps = s.execute(select(Snapshot.ply)).scalars().all()
            assert 0 in snaps and all(p % 25 == 0 for p in snaps)
            assert s.execute(select(func.count()).select_from(Seat).where(Seat.user_id == filled.heavy_user)).scalar() == 60
            clocks = s.execute(select(Seat.deadline_at, Seat.reminded).join(Game, Game.id == Seat.game_id)
                            .where(Game.status == "running", Seat.deadline_at.is_not(None))).all()
            assert clocks and all(d is not None for d, _ in clocks)
            assert s.execute(select(func.count()).select_from(Game).where(
                Game.status == "running", Game.state_ply != Game.ply)).scalar() == 0
            for g in s.execute(select(Game).where(Game.status != "open").order_by(Game.id).limit(8)).scalars():
                # the record replays, move by move, to the cached state: real games, not look-alikes
                engine = games.engine_for(g)
                assert json.loads(json.dumps(engine.to_json(games.replay_state(s, g)))) == g.state_json, g.id
            hist = s.execute(text("SELECT count(*) FROM pg_class WHERE relname = 'moves' AND reltuples > 0")).scalar()
            assert hist == 1  # analysed
        # the clocks are as the sweep leaves them: at the fill's time nothing is due
        done = sweep.run(filled.now)
        assert done["reminders"] == done["late"] == done["bot_moves"] == done["abandoned"] == 0, done
        assert done["games"] == 0  # and none is read: the sweep reads only the seats due (seats.due_at)
