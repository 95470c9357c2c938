"""post-game reviews: one row per finished game and seat, the search bot's view of the seat's
decisions (services/coach/review.py)

Revision ID: 0050
Revises: 0049
Create Date: 2026-12-07 01:30:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0050'
down_revision = '0049'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("level", S(length=8), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("cpu_s", sa.Float(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("reviews")
