"""the daily digests' sweep reads only the users due:
users.digest_due_at. Every digest user is looked at once at the next sweep,
which sets it from the digest it sends.

Revision ID: 0041
Revises: 0040
Create Date: 2026-11-28 13:00:03
"""
from datetime import datetime, timezone

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0041'
down_revision = '0040'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("digest_due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    users = sa.table("users", sa.column("notify", sa.String),
                     sa.column("digest_due_at", sqlmodel.sql.sqltypes.UTCDateTime()))
    op.execute(users.update().where(users.c.notify == "digest").values(
        digest_due_at=datetime(2000, 1, 1, tzinfo=timezone.utc)))  # services/follow/notifications.EARLIEST: due now


def downgrade() -> None:
    op.drop_column("users", "digest_due_at")
