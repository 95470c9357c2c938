"""Alembic environment: runs on the connection pbem.store.db.upgrade hands it,
or on sqlalchemy.url when called from the alembic command line."""
from alembic import context
from sqlalchemy import engine_from_config, pool
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401  (registers the tables)

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        # a transaction per migration: one that builds an index concurrently on PostgreSQL steps out of
        # its own (pbem/store/online.py); a connection handed in without a transaction keeps none open
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True,
                          transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = engine_from_config(config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.",
                                poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
