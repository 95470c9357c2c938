"""tournaments on a calendar: the rounds' dates, the next round's (read by the sweep through its
index), what a round due does while a table of the last one still plays, and the invitations mailed
(counted by the limits on them) (services/lobby/tournaments)

Revision ID: 0052
Revises: 0051
Create Date: 2026-12-07 01:20:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0052'
down_revision = '0051'
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
    op.create_table(
        "tournament_invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("inviter_id", sa.Integer(), nullable=False),
        sa.Column("email", S(length=320), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["inviter_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "email"),
    )
    op.create_index("ix_tournament_invitations_inviter_id", "tournament_invitations", ["inviter_id"])
    op.create_index("ix_tournament_invitations_email", "tournament_invitations", ["email"])


def downgrade() -> None:
    op.drop_index("ix_tournament_invitations_email", table_name="tournament_invitations")
    op.drop_index("ix_tournament_invitations_inviter_id", table_name="tournament_invitations")
    op.drop_table("tournament_invitations")
    op.drop_index("ix_tournaments_next_round_at", table_name="tournaments")
    with op.batch_alter_table("tournaments") as b:
        b.drop_column("late")
        b.drop_column("next_round_at")
        b.drop_column("every_days")
        b.drop_column("round_dates")
        b.drop_column("dated_from")
