"""Fixtures: a fresh configuration and database per test (SQLite file, or a
fresh PostgreSQL database), a real Celery worker on a real broker, a real
SMTP receiver on loopback. The minimal test game is registered here only."""
from __future__ import annotations

import os
import smtplib
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

from pbem import config, i18n
from pbem.bench.env import free_port  # noqa: F401 - the tests' helper too
from pbem.engine import register_game
from tests import dnsserver
from tests.minigame import MINI

PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
REDIS_BASE = os.environ.get("PBEM_TEST_REDIS", "redis://127.0.0.1:6379")

register_game(MINI)
i18n.ensure_compiled()  # the catalogs of a fresh checkout (scripts/test compiles them too)


def make_settings(tmp: Path, **over) -> config.Settings:
    env = {
        "PBEM_VAR_DIR": str(tmp / "var"),
        "PBEM_DOMAIN": "pbem.test",
        "PBEM_SECRET_KEY": "test-secret",
        "PBEM_SMTPD_PORT": str(free_port()),
        "PBEM_WEB_PORT": str(free_port()),
        "PBEM_DNS": dnsserver.address(),  # pbem checks DKIM and SPF against a real DNS server on loopback
    }
    cfg = config.load_settings(env)
    return cfg.with_(**over) if over else cfg


@contextmanager
def installed(cfg: config.Settings):
    from pbem.bench.env import install
    from pbem.mail import lookups
    from pbem.store import db, outbox

    install(cfg)
    lookups.forget()  # the DNS answers a test before kept (its keys, its records) are not this test's
    # a fresh database has no burst behind it: the picture shedding a test before saw (issue 22) is forgotten
    outbox._backlog_seen, outbox._shed_until = (0.0, 0, 0), 0.0
    try:
        yield cfg
    finally:
        db.dispose_engines()
        config.set_settings(None)


@pytest.fixture
def sqlite_cfg(tmp_path):
    with installed(make_settings(tmp_path)) as cfg:
        yield cfg


def _pg_database():
    import sqlalchemy as sa

    name = "pbem_t_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    return admin, name, url


@contextmanager
def pg_installed(tmp: Path, **over):
    """Settings (with ``over``) on a fresh PostgreSQL database of their own, dropped afterwards."""
    admin, name, url = _pg_database()
    try:
        with installed(make_settings(tmp, database_url=url, **over)) as cfg:
            yield cfg
    finally:
        _drop_database(admin, name)


def _drop_database(admin, name: str, tries: int = 30) -> None:
    """Drop a test database, also after a test restarted PostgreSQL: the
    pooled admin connection may be dead, and the server may still be starting."""
    import time

    for attempt in range(tries):
        admin.dispose()  # a fresh connection each time, never one from before a restart
        try:
            with admin.connect() as c:
                c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            break
        except Exception:
            if attempt == tries - 1:
                raise
            time.sleep(0.5)
    admin.dispose()


@pytest.fixture
def pg_cfg(tmp_path):
    with pg_installed(tmp_path) as cfg:
        yield cfg


@pytest.fixture(params=["sqlite", "postgres"])
def any_cfg(request, tmp_path):
    with (installed(make_settings(tmp_path)) if request.param == "sqlite" else pg_installed(tmp_path)) as cfg:
        yield cfg


@pytest.fixture
def on_redis():
    """``on_redis(cfg)``: the same settings on the real Redis, with a key
    prefix of this test's own (test runs in parallel share one Redis)."""
    import redis

    prefix = f"pbem-test-{uuid.uuid4().hex[:10]}:"

    def use(cfg: config.Settings) -> config.Settings:
        from pbem import tasks

        new = cfg.with_(broker_url=f"{REDIS_BASE}/0", broker_prefix=prefix)
        config.set_settings(new)
        tasks.configure(new)
        return new

    yield use
    r = redis.Redis.from_url(f"{REDIS_BASE}/0")
    keys = list(r.scan_iter(match=prefix + "*", count=1000))
    if keys:
        r.delete(*keys)


@contextmanager
def celery_worker(cfg: config.Settings, concurrency: int = 2, pool: str = "threads", beat: bool = False,
                  queues: str | None = None):
    """A real Celery worker process on the configured broker and database
    (tests/worker_app.py: the product's app plus the test game)."""
    import subprocess
    import sys

    env = dict(os.environ, **cfg.to_env())
    args = [sys.executable, "-m", "celery", "-A", "tests.worker_app", "worker", f"--pool={pool}",
            f"--concurrency={concurrency}", "--loglevel=WARNING", "--without-gossip", "--without-mingle"]
    if beat:
        args += ["-B", "-s", str(cfg.var_dir / "beat-schedule")]
    if queues:
        args += ["-Q", queues]
    proc = subprocess.Popen(args, cwd=str(Path(__file__).resolve().parent.parent), env=env)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def smtp_receiver(cfg: config.Settings):
    from pbem.mail.inbound import make_controller

    ctl = make_controller(cfg, host="127.0.0.1", port=cfg.smtpd_port)
    ctl.start()
    try:
        yield ctl
    finally:
        ctl.stop()


def send_mail(cfg: config.Settings, raw: bytes | str, mail_from: str, rcpt: str | list[str]):
    """One real SMTP conversation with the receiver. Returns the DATA reply code."""
    rcpts = [rcpt] if isinstance(rcpt, str) else rcpt
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as s:
        s.ehlo("client.test")
        code, _ = s.mail(mail_from)
        for r in rcpts:
            rc, msg = s.rcpt(r)
            if rc >= 400:
                return rc
        rc, _ = s.data(raw if isinstance(raw, bytes) else raw.encode())
        return rc
