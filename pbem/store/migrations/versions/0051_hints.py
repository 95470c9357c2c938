"""practice games with hints: the game's ``hints`` flag, and the hints its seats asked for
(services/turns/hints)

Revision ID: 0051
Revises: 0050
Create Date: 2026-12-07 01:30:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0051'
down_revision = '0050'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.add_column("games", sa.Column("hints", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "hints",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("shown_ply", sa.Integer(), nullable=False),
        sa.Column("view", S(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("level", S(length=8), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat", "ply", "view"),
    )
    op.create_index("ix_hints_game_id", "hints", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_hints_game_id", table_name="hints")
    op.drop_table("hints")
    op.drop_column("games", "hints")
