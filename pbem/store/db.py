"""Database engine, sessions and migrations."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from pbem.config import settings
from pbem.store import memo  # noqa: F401 - registers the per-transaction memos' events

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def _sqlite_pragmas(engine: Engine) -> None:
    # Every transaction takes the write lock at BEGIN (BEGIN IMMEDIATE): a
    # read-then-write by two processes can then never fail half-way with a
    # stale snapshot; they simply queue (busy timeout).
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):  # pragma: no cover - exercised via SQLite tests
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):  # pragma: no cover
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def get_engine(url: str | None = None) -> Engine:
    url = url or settings().database_url
    with _lock:
        eng = _engines.get(url)
        if eng is None:
            u = make_url(url)
            if u.get_backend_name() == "sqlite":
                if u.database and u.database != ":memory:":
                    Path(u.database).parent.mkdir(parents=True, exist_ok=True)
                eng = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
                _sqlite_pragmas(eng)
            else:
                eng = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)
            _engines[url] = eng
        return eng


def dispose_engines() -> None:
    with _lock:
        for eng in _engines.values():
            eng.dispose()
        _engines.clear()


class UnitOfWork(Session):
    """A session that runs callbacks after a successful commit (enqueueing
    tasks for rows the transaction created: the transactional outbox)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.after_commit: list[Callable[[], None]] = []


@contextmanager
def unit_of_work(url: str | None = None) -> Iterator[UnitOfWork]:
    """One transaction: commit on success, roll back on error, then run the
    after-commit callbacks (their failures are left to the sweep)."""
    s = UnitOfWork(get_engine(url), expire_on_commit=False)
    try:
        yield s
        s.commit()
    except BaseException:
        s.rollback()
        s.close()
        raise
    callbacks, s.after_commit = s.after_commit, []
    s.close()
    for cb in callbacks:
        try:
            cb()
        except Exception:  # the sweep re-enqueues whatever did not get queued
            import logging

            logging.getLogger("pbem").exception("after-commit callback failed")


def upgrade(url: str | None = None) -> None:
    """Bring the database to the newest migration."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", (url or settings().database_url).replace("%", "%%"))
    eng = get_engine(url)
    with eng.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
