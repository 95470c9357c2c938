"""a tournament director's adjustments of a player's points, each with its reason
(services/lobby/tournaments: TOURNAMENT ADJUST)

Revision ID: 0053
Revises: 0052
Create Date: 2026-12-07 02:20:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0053'
down_revision = '0052'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "tournament_adjustments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("reason", S(length=200), nullable=False),
        sa.Column("by_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.ForeignKeyConstraint(["by_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_tournament_adjustments_tournament_id", "tournament_adjustments", ["tournament_id"])
    op.create_index("ix_tournament_adjustments_user_id", "tournament_adjustments", ["user_id"])
    op.create_index("ix_tournament_adjustments_by_id", "tournament_adjustments", ["by_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_adjustments_by_id", table_name="tournament_adjustments")
    op.drop_index("ix_tournament_adjustments_user_id", table_name="tournament_adjustments")
    op.drop_index("ix_tournament_adjustments_tournament_id", table_name="tournament_adjustments")
    op.drop_table("tournament_adjustments")
