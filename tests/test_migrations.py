"""The migrations own the schema: applied to an empty database they give
exactly the tables of the models (SQLite and PostgreSQL)."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401
from pbem.store.db import get_engine


def test_migrations_match_the_models(any_cfg):
    with get_engine().connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []
