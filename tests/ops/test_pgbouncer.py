"""PgBouncer in transaction pooling mode: a real PgBouncer started
on loopback in front of the tests' PostgreSQL. With PBEM_DB_POOLER=pgbouncer
pbem works behind it (a game played by mail through the services while
another client takes and frees a server connection, so the transactions
move between server connections; the migrations); without it, psycopg's
server-side prepared statements fail there (the same game fails with
"prepared statement ... already exists")."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import ProgrammingError

from pbem import config
from pbem.store import db
from pbem.store.models import Move, User
from tests.conftest import PG_ADMIN, free_port

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
pytestmark = pytest.mark.skipif(not os.path.exists(PGBOUNCER),
                                reason="pgbouncer is not installed (scripts/test installs it)")


@contextmanager
def pgbouncer():
    """A PgBouncer in transaction pooling mode before 127.0.0.1:5432, on a
    free port; yields that port. PgBouncer will not run as root: then as the
    postgres user."""
    import sqlalchemy as sa

    pg = sa.engine.make_url(PG_ADMIN)
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="pbem-pgbouncer-"))
    (work / "users.txt").write_text(f'"{pg.username}" ""\n')
    (work / "pgbouncer.ini").write_text(f"""[databases]
* = host={pg.host} port={pg.port or 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {work / 'users.txt'}
pool_mode = transaction
default_pool_size = 4
max_client_conn = 100
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
""")
    log = open(work / "log", "w")
    cmd = [PGBOUNCER, str(work / "pgbouncer.ini")]
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        for f in work.iterdir():
            shutil.chown(f, "postgres")
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 30
        while "process up" not in (work / "log").read_text():
            assert proc.poll() is None and time.monotonic() < end, (work / "log").read_text()
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def _through(cfg: config.Settings, port: int, pooler: str) -> config.Settings:
    """The same database, reached through PgBouncer, with PBEM_DB_POOLER=``pooler``."""
    from sqlalchemy.engine import make_url

    url = make_url(cfg.database_url).set(host="127.0.0.1", port=port)
    new = cfg.with_(database_url=url.render_as_string(hide_password=False), db_pooler=pooler)
    db.dispose_engines()
    config.set_settings(new)
    return new


def _one_query_across_server_connections() -> None:
    """One query run often enough on one connection that psycopg prepares it
    (its prepare_threshold: 5), then again while another connection holds
    the server connection it was prepared on: PgBouncer gives the first
    another server connection, which has never seen the statement."""
    engine = db.get_engine()
    query = select(User.id).where(User.email == "nobody@x.test")
    with engine.connect() as a, engine.connect() as b:
        for _ in range(8):
            a.execute(query).all()
            a.commit()
        b.execute(text("SELECT 1"))  # b's transaction now holds that server connection
        for _ in range(3):
            a.execute(query).all()
            a.commit()
        b.rollback()


def test_without_the_setting_prepared_statements_fail_behind_pgbouncer(pg_cfg):
    with pgbouncer() as port:
        _through(pg_cfg, port, "")
        with pytest.raises(ProgrammingError, match="prepared statement .* does not exist"):
            _one_query_across_server_connections()
        db.dispose_engines()


def test_a_game_by_mail_through_pgbouncer_in_transaction_mode(pg_cfg):
    from pbem.mail import pipeline
    from tests.mailtools import mail, seat_addr, start_game, store_inbound

    with pgbouncer() as port:
        _through(pg_cfg, port, "pgbouncer")
        _one_query_across_server_connections()
        gid = start_game(2)
        with db.get_engine().connect() as other:
            for turn in range(8):  # the same statements, many times over, on changing server connections
                if turn % 2:
                    other.execute(text("SELECT 1"))  # another client holds a server connection this turn
                seat, frm = (0, "ann@x.test") if turn % 2 == 0 else (1, "p1@x.test")
                iid = store_inbound(mail(frm, seat_addr(gid, seat), "wait"), seat_addr(gid, seat), frm)
                assert pipeline.process_inbound(iid) == "done"
                other.rollback()
        with db.unit_of_work() as s:
            moves = list(s.exec(select(Move).where(Move.game_id == gid)).scalars())
        assert len(moves) == 8
        db.dispose_engines()


def test_the_migrations_run_through_pgbouncer(tmp_path):
    """`pbem db upgrade` on a fresh database, through PgBouncer in transaction mode (the indexes made
    CONCURRENTLY too: each in a transaction of its own)."""
    from tests.conftest import _drop_database, _pg_database, make_settings

    admin, name, url = _pg_database()
    try:
        with pgbouncer() as port:
            cfg = _through(make_settings(tmp_path, database_url=url), port, "pgbouncer")
            cfg.var_dir.mkdir(parents=True, exist_ok=True)
            db.upgrade()
            with db.single_statement() as conn:
                assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            db.dispose_engines()
    finally:
        config.set_settings(None)
        _drop_database(admin, name)
