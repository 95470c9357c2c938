"""The migrations own the schema: applied to an empty database they give
exactly the tables of the models (SQLite and PostgreSQL)."""
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401
from pbem.store.db import get_engine


# SQLite cannot reflect the expression index, so Alembic skips it there, saying so; the test
# below checks that index on both databases
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
def test_migrations_match_the_models(any_cfg):
    with get_engine().connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []


def test_the_expression_index_on_inbound_senders_exists(any_cfg):
    """Alembic cannot compare expression indexes: the courtesy rate limit's
    index (lower(mail_from), received_at) is checked here, and on PostgreSQL
    the rate limit's count uses it instead of scanning every stored mail."""
    from sqlalchemy import text

    eng = get_engine()
    with eng.connect() as conn:
        if eng.dialect.name == "sqlite":
            names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='index'")]
            assert "ix_inbound_sender_received" in names
            return
        names = [r[0] for r in conn.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE tablename='inbound'")]
        assert "ix_inbound_sender_received" in names
        conn.exec_driver_sql("SET enable_seqscan = off")  # an empty table: ask whether the index can serve
        plan = "\n".join(r[0] for r in conn.execute(text(
            "EXPLAIN SELECT count(*) FROM inbound WHERE lower(mail_from) = 'a@b' AND received_at > now()")))
        assert "ix_inbound_sender_received" in plan
        # and the statement the pipeline runs for every mail (built once, with bind parameters) can use it
        from datetime import datetime, timezone

        from pbem.mail.pipeline import _SENDER_COUNT

        compiled = _SENDER_COUNT.compile(dialect=conn.dialect)
        plan = "\n".join(r[0] for r in conn.exec_driver_sql(
            "EXPLAIN " + str(compiled), {**compiled.params, "who": "a@b", "since": datetime.now(timezone.utc), "id": 10,
                                         "digest": "0" * 24}))
        assert "ix_inbound_sender_received" in plan
