"""inbound: what each mail did for the courtesy limit (courtesy: error,
repeat, aside, aside-told) and a digest of its text (repeats are found by it):
the limit counts mail that did harm, not normal play

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 09:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("inbound", sa.Column("courtesy", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
    op.add_column("inbound", sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound") as batch:  # SQLite: the table is copied without the columns ...
        batch.drop_column("digest")
        batch.drop_column("courtesy")
    if op.get_bind().dialect.name == "sqlite":  # ... and without the expression index, which it cannot reflect
        op.execute("CREATE INDEX IF NOT EXISTS ix_inbound_sender_received ON inbound (lower(mail_from), received_at)")
