"""Fixtures: a fresh configuration and database per test (SQLite file, or a
fresh PostgreSQL database), a real Celery worker on a real broker, a real
SMTP receiver on loopback. The minimal test game is registered here only."""
from __future__ import annotations

import os
import smtplib
import socket
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

from pbem import config
from pbem.engine import register_game
from tests.minigame import MINI

PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
REDIS = os.environ.get("PBEM_TEST_REDIS", "redis://127.0.0.1:6379/0")

register_game(MINI)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_settings(tmp: Path, **over) -> config.Settings:
    env = {
        "PBEM_VAR_DIR": str(tmp / "var"),
        "PBEM_DOMAIN": "pbem.test",
        "PBEM_SECRET_KEY": "test-secret",
        "PBEM_SMTPD_PORT": str(free_port()),
        "PBEM_WEB_PORT": str(free_port()),
    }
    cfg = config.load_settings(env)
    return cfg.with_(**over) if over else cfg


@contextmanager
def installed(cfg: config.Settings):
    from pbem import tasks
    from pbem.store import db

    config.set_settings(cfg)
    db.dispose_engines()
    db.upgrade()
    tasks.configure(cfg)
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


@pytest.fixture
def pg_cfg(tmp_path):
    admin, name, url = _pg_database()
    try:
        with installed(make_settings(tmp_path, database_url=url)) as cfg:
            yield cfg
    finally:
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def any_cfg(request, tmp_path):
    if request.param == "sqlite":
        with installed(make_settings(tmp_path)) as cfg:
            yield cfg
    else:
        admin, name, url = _pg_database()
        try:
            with installed(make_settings(tmp_path, database_url=url)) as cfg:
                yield cfg
        finally:
            with admin.connect() as c:
                c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.dispose()


@contextmanager
def celery_worker(cfg: config.Settings, queue: str | None = None, concurrency: int = 2):
    """A real Celery worker (threads pool) consuming from the configured broker."""
    from celery.contrib.testing.worker import start_worker

    from pbem import tasks

    queue = queue or ("pbem-" + uuid.uuid4().hex[:8])
    tasks.app.conf.update(task_default_queue=queue)
    with start_worker(tasks.app, pool="threads", concurrency=concurrency, perform_ping_check=False,
                      loglevel="WARNING", queues=[queue], shutdown_timeout=20):
        yield queue


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
