"""Building an index without stopping the service: on PostgreSQL
an index on a big table (13M moves, millions of mails) takes minutes to
build, and a plain CREATE INDEX blocks every write to the table meanwhile:
no move, no mail. CREATE INDEX CONCURRENTLY lets writes go on; it cannot run
inside a transaction, so the migration that uses it steps out of its own
(pbem.store.db.upgrade runs each migration in a transaction of its own).
An index a failed concurrent build left invalid is dropped and built again.
SQLite (the embedded default, small by design) builds it as usual."""
from __future__ import annotations

from alembic import op


def create_index(name: str, table: str, columns: list, **kw) -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.create_index(name, table, columns, **kw)
        return
    with op.get_context().autocommit_block():
        invalid = op.get_bind().exec_driver_sql(
            "SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = %(name)s AND NOT i.indisvalid", {"name": name}).first()
        if invalid:
            op.drop_index(name, table_name=table, postgresql_concurrently=True)
        op.create_index(name, table, columns, postgresql_concurrently=True, if_not_exists=True, **kw)
