"""Reads that may lag go to a read replica (PBEM_DATABASE_REPLICA_URL), tested against a real streaming
replica: a PostgreSQL primary and a standby made from it by pg_basebackup -R, both started here on free
ports (the shared test server accepts no replication connection). The standby is read-only: a write sent
there by mistake would fail the page. A browser that has just written reads the primary."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event

from tests.conftest import free_port, installed, make_settings

BIN = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
           if shutil.which("pg_config") else "/usr/lib/postgresql/15/bin")


def _as_postgres(*cmd: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def primary_and_standby():
    """(primary URL, standby URL) of a pair started for this module, and stopped after it."""
    if os.geteuid() != 0 or not shutil.which("runuser") or not (BIN / "initdb").exists():
        pytest.skip("needs root (to run PostgreSQL as the postgres user) and PostgreSQL's server binaries")
    base = Path(tempfile.mkdtemp(prefix="pbem-replica-"))  # under /tmp: the postgres user reaches it
    shutil.chown(base, "postgres")
    primary, standby = base / "primary", base / "standby"
    ports = free_port(), free_port()
    _as_postgres(str(BIN / "initdb"), "-D", str(primary), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8",
                 "--locale=C")
    with open(primary / "postgresql.conf", "a") as f:  # replication from 127.0.0.1 is in initdb's pg_hba.conf
        f.write(f"listen_addresses = '127.0.0.1'\nport = {ports[0]}\nunix_socket_directories = '{base}'\n"
                "fsync = off\nwal_level = replica\nmax_wal_senders = 4\n")
    started = []
    try:
        _as_postgres(str(BIN / "pg_ctl"), "-D", str(primary), "-l", str(base / "primary.log"), "-w", "start")
        started.append(primary)
        _as_postgres(str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(ports[0]), "-U", "postgres",
                     "-D", str(standby), "-R", "-X", "stream", "-c", "fast")
        with open(standby / "postgresql.conf", "a") as f:
            f.write(f"port = {ports[1]}\n")
        _as_postgres(str(BIN / "pg_ctl"), "-D", str(standby), "-l", str(base / "standby.log"), "-w", "start")
        started.append(standby)
        admin = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{ports[0]}/postgres",
                              isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.exec_driver_sql("CREATE DATABASE pbem")
        admin.dispose()
        yield tuple(f"postgresql+psycopg://postgres@127.0.0.1:{p}/pbem" for p in ports)
    finally:
        for data in reversed(started):
            _as_postgres(str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


def _caught_up(primary, standby) -> None:
    """Wait until the standby has replayed everything the primary wrote so far."""
    with primary.connect() as c:
        lsn = c.exec_driver_sql("SELECT pg_current_wal_lsn()").scalar()
    for _ in range(600):  # a generous bound; it ends when the standby has it
        with standby.connect() as c:
            if c.exec_driver_sql("SELECT pg_last_wal_replay_lsn() >= %(lsn)s::pg_lsn", {"lsn": lsn}).scalar():
                return
        time.sleep(0.1)
    raise AssertionError("the standby did not catch up")


@contextmanager
def _counting(*engines):
    """The statements each engine ran inside the block."""
    counts = [0] * len(engines)
    hooks = []
    for i, eng in enumerate(engines):
        def hook(*_a, i=i, **_k):
            counts[i] += 1
        event.listen(eng, "before_cursor_execute", hook)
        hooks.append((eng, hook))
    try:
        yield counts
    finally:
        for eng, hook in hooks:
            event.remove(eng, "before_cursor_execute", hook)


def test_pages_that_may_lag_read_the_replica_and_a_writer_reads_the_primary(primary_and_standby, tmp_path):
    from pbem.services.lobby import tables
    from pbem.store.db import get_engine, unit_of_work
    from pbem.store.models import User
    from pbem.web import create_app
    from tests.web.conftest import Browser, make_user

    primary_url, standby_url = primary_and_standby
    with installed(make_settings(tmp_path, database_url=primary_url, database_replica_url=standby_url)) as cfg:
        app = create_app(cfg)
        ann, ben = make_user("ann@x.test", "Ann"), make_user("ben@x.test", "Ben")
        with unit_of_work() as s:
            gid = tables.create(s, s.get(User, ann), "mini", 3, {"hand": "3"}, seed=1).id
        primary, standby = get_engine(primary_url), get_engine(standby_url)
        _caught_up(primary, standby)
        visitor, ben_browser = Browser(app), Browser(app)
        ben_browser.login_as(ben)
        for url in ("/lobby", "/archive", f"/players/{ann}", f"/games/{gid}/history"):
            with _counting(primary, standby) as counts:
                assert visitor.get(url).status_code == 200, url  # a write there would fail: a standby is read-only
            on_primary, on_standby = counts
            assert on_standby > 0 and on_primary == 0, (url, counts)
        with standby.connect() as c:  # the standby stops replaying: what the primary writes now lags there
            c.exec_driver_sql("SELECT pg_wal_replay_pause()")
        try:
            assert ben_browser.post(f"/games/{gid}/join", page="/lobby").status_code == 303
            with _counting(primary, standby) as counts:
                mine = ben_browser.get(f"/players/{ben}").get_data(as_text=True)
            on_primary, on_standby = counts
            assert on_standby == 0 and on_primary > 0  # the player who wrote reads the primary: his game is there
            lagging = visitor.get(f"/players/{ben}").get_data(as_text=True)  # another reader sees it later
            assert f"#{gid}" in mine and f"#{gid}" not in lagging
        finally:
            with standby.connect() as c:
                c.exec_driver_sql("SELECT pg_wal_replay_resume()")
        _caught_up(primary, standby)
        assert f"#{gid}" in visitor.get(f"/players/{ben}").get_data(as_text=True)
