"""Database engine, sessions and migrations."""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlmodel import Session, create_engine

from pbem.config import settings
from pbem.store import live, memo  # noqa: F401 - register the live pages' and the per-transaction memos' events

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
                eng = create_engine(url, pool_size=5, max_overflow=10, connect_args=_pooler_args())
                _ping_when_idle(eng)
            _engines[url] = eng
        return eng


def _pooler_args() -> dict:
    """psycopg's connection arguments for what stands before PostgreSQL
    (settings().db_pooler). Behind PgBouncer in transaction pooling mode each
    transaction may run on another server connection, so nothing may live in
    a server session beyond a transaction: psycopg must not prepare
    statements there (it does after 5 runs of one query, and the next
    transaction on another server connection fails with "prepared statement
    does not exist"). pbem sets no session state otherwise: no SET, no
    session advisory lock, no LISTEN, no temporary table; autocommit and the
    isolation level are psycopg's own, sent with each BEGIN."""
    return {"prepare_threshold": None} if settings().db_pooler == "pgbouncer" else {}


PING_IDLE_S = 1.0


def _ping_when_idle(engine: Engine) -> None:
    """SQLAlchemy's pessimistic disconnect handling (a ping at checkout, the
    connection replaced if it fails, as ``pool_pre_ping``), but only for a
    connection that sat in the pool for more than ``PING_IDLE_S``: under
    load a connection comes back within milliseconds and the ping would be
    a round trip per transaction for nothing (round trips bound the
    pipeline, docs/PERFORMANCE.md §3). A server
    restart takes longer than that, so a connection from before it is pinged;
    and a connection that still fails mid-use invalidates the whole pool
    (SQLAlchemy's default), its transaction rolled back and retried."""
    import time

    from sqlalchemy import exc

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_conn, record):
        record.info["pbem.idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, record, _proxy):
        since = record.info.pop("pbem.idle_since", None)
        if since is None or time.monotonic() - since <= PING_IDLE_S:
            return  # a new connection, or one back in the pool a moment ago
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as e:  # the pool drops this connection and checks out another (or connects)
            raise exc.DisconnectionError(f"connection idle {time.monotonic() - since:.1f} s failed its ping") from e


@contextmanager
def single_statement(url: str | None = None) -> Iterator[Connection]:
    """A bare connection for one statement that is a transaction by itself.
    On PostgreSQL in autocommit: the statement has committed (durably: the
    commit is synchronous) when it returns, without the BEGIN and COMMIT
    round trips. On SQLite, in a transaction as usual (BEGIN IMMEDIATE)."""
    engine = get_engine(url)
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT")
            yield conn
    else:
        with engine.begin() as conn:
            yield conn


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


@contextmanager
def reading() -> Iterator[UnitOfWork]:
    """A transaction for reads that may lag a moment behind the writes (the lobby, the archive, players'
    pages, a game's history): on the read replica when settings().database_replica_url names one, else
    as unit_of_work on the primary. On the replica nothing is written: the session never flushes and
    ends without a commit, so a cache a read would refresh (a game's cached state) is left for the primary
    to refresh, and a standby, read-only, is never asked to write."""
    url = settings().database_replica_url
    if not url:
        with unit_of_work() as s:
            yield s
        return
    s = UnitOfWork(get_engine(url), expire_on_commit=False, autoflush=False)
    s.info[REPLICA] = True
    try:
        yield s
    finally:
        s.close()  # rolls the transaction back, and leaves what was read readable (detached, not expired)


REPLICA = "pbem.replica"  # in a session's info: it reads the replica


# the lock several hosts' processes take to migrate one at a time (pg_advisory_lock; "pbem-mig")
MIGRATION_LOCK = int.from_bytes(b"pbem-mig", "big")


@contextmanager
def _quiet(name: str, level: int = logging.WARNING) -> Iterator[None]:
    """Alembic's INFO lines (its plugins, "Context impl", each step) only while it works for us: the
    answer of a command, or a start, is not buried under them; what changed is said in one line."""
    logger = logging.getLogger(name)
    before = logger.level
    logger.setLevel(max(level, before))
    try:
        yield
    finally:
        logger.setLevel(before)


@contextmanager
def migration_lock(eng: Engine) -> Iterator[None]:
    """On PostgreSQL, one migrating process at a time across every host: a session's advisory lock, held
    by a connection of its own outside any transaction until the migrations are done (an open
    transaction would make a migration's CREATE INDEX CONCURRENTLY wait for it for ever), and freed
    when the process dies. Not behind PgBouncer in transaction pooling mode (PBEM_DB_POOLER=pgbouncer),
    where a session's lock would stay on a server connection that others then use: there, run
    `pbem db upgrade` once before the services start (docs/operators.md, "Upgrading"). SQLite needs
    none: one machine, and its own write lock."""
    if eng.dialect.name != "postgresql" or settings().db_pooler == "pgbouncer":
        yield
        return
    from sqlalchemy import text

    import time

    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        # asked again and again rather than waited for in one statement: a statement that waits holds a
        # snapshot, and the holder's CREATE INDEX CONCURRENTLY would wait for it while it waits for the holder
        told = False
        while not conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": MIGRATION_LOCK}).scalar():
            if not told:
                logging.getLogger("pbem.db").warning("another process is migrating the database: waiting for it")
                told = True
            time.sleep(0.5)
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})


def upgrade(url: str | None = None) -> list[str]:
    """Bring the database to the newest migration; returns the revisions applied (none when it is up to
    date: then nothing is logged). Processes starting together on several hosts migrate one after the
    other (migration_lock); those that find it done when they have the lock do nothing."""
    with _quiet("alembic"):  # its plugins say they are set up when it is first imported
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.set_main_option("sqlalchemy.url", (url or settings().database_url).replace("%", "%%"))
        eng = get_engine(url)
        script = ScriptDirectory.from_config(cfg)
        heads = set(script.get_heads())

        def current() -> set[str]:
            with eng.connect() as conn:
                return set(MigrationContext.configure(conn).get_current_heads())

        if current() == heads:
            return []
        with migration_lock(eng):
            before = current()
            if before == heads:  # another process did it while this one waited
                return []
            # each migration in a transaction of its own (migrations/env.py): one that builds an index on
            # PostgreSQL steps out of it to build it concurrently (store/online.py)
            with eng.connect() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
    done = [r.revision for r in script.iterate_revisions("heads", ",".join(before) or "base")
            if r.revision not in before]
    logging.getLogger("pbem.db").info("database migrated: %s -> %s (%d migrations)",
                                      ",".join(sorted(before)) or "empty", ",".join(sorted(heads)), len(done))
    return list(reversed(done))
