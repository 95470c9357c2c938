"""The connection pool on PostgreSQL: a connection idle for a while is pinged
and replaced if its server side is gone; one used a moment ago is not pinged
(a ping at every checkout costs a round trip per transaction), and if it
fails mid-use the pool is renewed. single_statement commits its one statement by itself, durably, on both databases."""
from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError

from pbem.store import db
from pbem.store.models import Inbound


def _backend_pid(conn) -> int:
    return conn.exec_driver_sql("select pg_backend_pid()").scalar_one()


def _kill(pid: int) -> None:
    from tests.conftest import PG_ADMIN

    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        assert c.exec_driver_sql(f"select pg_terminate_backend({pid})").scalar_one()
    admin.dispose()


def _pings(engine) -> list[int]:
    """Count the pings the pool sends (the dialect's do_ping)."""
    calls: list[int] = []
    real = engine.dialect.do_ping

    def counting(dbapi_conn):
        calls.append(1)
        return real(dbapi_conn)

    engine.dialect.do_ping = counting
    return calls


@pytest.mark.postgres
def test_idle_connection_is_pinged_and_replaced_when_dead(pg_cfg, monkeypatch):
    engine = db.get_engine()
    pings = _pings(engine)
    with engine.connect() as c:
        old = _backend_pid(c)
    _kill(old)
    monkeypatch.setattr(db, "PING_IDLE_S", 0.0)  # every connection back in the pool counts as idle
    with engine.connect() as c:  # the ping fails, the pool connects anew: no error reaches the caller
        assert _backend_pid(c) != old
    assert pings == [1]


@pytest.mark.postgres
def test_busy_connection_is_not_pinged_and_a_failure_renews_the_pool(pg_cfg, monkeypatch):
    engine = db.get_engine()
    pings = _pings(engine)
    monkeypatch.setattr(db, "PING_IDLE_S", 3600.0)
    for _ in range(5):
        with engine.connect() as c:
            old = _backend_pid(c)
    assert pings == []  # reused at once: no round trip for a ping
    _kill(old)
    with pytest.raises(DBAPIError) as e, engine.connect() as c:
        _backend_pid(c)
    assert e.value.connection_invalidated  # the caller's transaction failed and rolls back whole...
    with engine.connect() as c:  # ...and the next one gets a live connection
        assert _backend_pid(c) != old


@pytest.mark.postgres
def test_single_statement_commits_in_autocommit_on_postgres(pg_cfg):
    with db.single_statement() as conn:
        assert conn.exec_driver_sql("show transaction_isolation").scalar_one()  # a live connection
        conn.execute(sa.insert(Inbound.__table__).values(message_id="<a@x>", raw=b"x", mail_from="a@x",
                                                          rcpt_to="", status="queued", attempts=0,
                                                          received_at=sa.func.now()))
        assert conn.connection.dbapi_connection.autocommit is True
    engine = db.get_engine()
    with engine.connect() as c:  # seen from another connection: committed
        assert c.execute(sa.select(sa.func.count()).select_from(Inbound.__table__)).scalar_one() == 1
        assert c.connection.dbapi_connection.autocommit is False  # the pool's connections are back to transactions


def test_single_statement_on_sqlite_is_a_transaction(sqlite_cfg):
    with pytest.raises(RuntimeError), db.single_statement() as conn:
        conn.execute(sa.insert(Inbound.__table__).values(message_id="<b@x>", raw=b"x", mail_from="b@x",
                                                          rcpt_to="", status="queued", attempts=0,
                                                          received_at=sa.func.now()))
        raise RuntimeError("rolled back")
    with db.single_statement() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(Inbound.__table__)).scalar_one() == 0
