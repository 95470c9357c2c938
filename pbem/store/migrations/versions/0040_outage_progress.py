"""an outage's extension of the running deadlines goes in batches:
its gap and progress in sweep_state, so a sweep that dies midway is
continued by the next and no game is extended twice

Revision ID: 0040
Revises: 0039
Create Date: 2026-11-28 13:00:02
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0040'
down_revision = '0039'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sweep_state", sa.Column("gap_from", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("sweep_state", sa.Column("gap_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("sweep_state", sa.Column("gap_cursor", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sweep_state") as batch_op:
        batch_op.drop_column("gap_cursor")
        batch_op.drop_column("gap_until")
        batch_op.drop_column("gap_from")
