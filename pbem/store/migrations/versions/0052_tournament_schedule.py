"""tournaments on a calendar: the rounds' dates, the next round's (read by the sweep through its
index), and what a round due does while a table of the last one still plays (services/lobby/tournaments)

Revision ID: 0052
Revises: 0049
Create Date: 2026-12-07 01:20:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0052'
down_revision = '0049'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as b:
        b.add_column(sa.Column("dated_from", sa.Integer(), nullable=True))
        b.add_column(sa.Column("round_dates", sa.JSON(), nullable=False, server_default="[]"))
        b.add_column(sa.Column("every_days", sa.Integer(), nullable=True))
        b.add_column(sa.Column("next_round_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        b.add_column(sa.Column("late", S(length=8), nullable=False, server_default="wait"))
    op.create_index("ix_tournaments_next_round_at", "tournaments", ["next_round_at"])


def downgrade() -> None:
    op.drop_index("ix_tournaments_next_round_at", table_name="tournaments")
    with op.batch_alter_table("tournaments") as b:
        b.drop_column("late")
        b.drop_column("next_round_at")
        b.drop_column("every_days")
        b.drop_column("round_dates")
        b.drop_column("dated_from")
