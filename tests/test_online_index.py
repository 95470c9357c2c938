"""The migrations that index big tables (moves, mails, the outbox)
build their indexes on PostgreSQL without stopping the service. A move
written while the index is being built goes through at once; with a plain
CREATE INDEX it would wait for the whole build."""
from __future__ import annotations

import threading
import time

from alembic import command
from alembic.config import Config
from sqlalchemy import text

from pbem.store.db import MIGRATIONS, get_engine


def _config(conn) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def test_a_move_is_written_while_its_tables_index_is_built(pg_cfg):
    eng = get_engine()
    with eng.connect() as conn:
        command.downgrade(_config(conn), "0024")  # before the first of these indexes (moves.inbound_id)
    with eng.connect() as conn:
        gid = conn.execute(text(
            "INSERT INTO games (game, options, players, seed, status, ply, created_at, updated_at, state_ply, "
            "deadline_hours, day_mask, policy, abandon_after, bot_level, paused, allow_from_address, shown_ply, "
            "access) VALUES ('mini', '{}', 2, 1, 'running', 0, now(), now(), -1, 48, '', 'wait', 3, 'normal', "
            "false, false, 0, 'public') RETURNING id")).scalar_one()
        conn.commit()
    holder = eng.connect()  # a transaction that has written to moves and not yet committed: the build waits for it
    holder.execute(text("INSERT INTO moves (game_id, ply, seat, notation, source, created_at, undone) "
                        "VALUES (:g, 1, 0, 'play 1', 'mail', now(), false)"), {"g": gid})
    done = threading.Event()

    def migrate() -> None:
        with eng.connect() as conn:
            command.upgrade(_config(conn), "0025")
        done.set()

    worker = threading.Thread(target=migrate, daemon=True)
    worker.start()
    try:
        time.sleep(1.0)
        assert not done.is_set()  # the build waits for the writer that was there before it
        with eng.connect() as other:  # ... while another move, in a game of its own, is written at once
            other.execute(text("SET lock_timeout = '3s'"))  # a plain CREATE INDEX: this fails
            other.execute(text("INSERT INTO moves (game_id, ply, seat, notation, source, created_at, undone) "
                               "VALUES (:g, 2, 1, 'play 2', 'mail', now(), false)"), {"g": gid})
            other.commit()
    finally:
        holder.commit()
        holder.close()
    worker.join(30)
    assert done.is_set()
    with eng.connect() as conn:
        valid = conn.execute(text("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                                  "WHERE c.relname = 'ix_moves_inbound_id'")).scalar_one()
        assert valid
    with eng.connect() as conn:
        command.upgrade(_config(conn), "head")
