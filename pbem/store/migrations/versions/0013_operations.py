"""operations: an account an administrator disabled (its mail is
refused, once a day answered; its web login refused), and the leases that
let exactly one beat send the periodic tasks

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 12:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("disabled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("users", sa.Column("disabled_told_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.create_table(
        "leases",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("leases")
    op.drop_column("users", "disabled_told_at")
    op.drop_column("users", "disabled_at")
