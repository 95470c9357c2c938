"""ratings and reliability: each player's Plackett-Luce rating per
game, the rated results of finished games, the reliability counters of users
and a game's minimum reliability to join

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 06:45:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

COUNTERS = ("turns_on_time", "turns_late", "games_finished", "games_left")


def upgrade() -> None:
    for name in COUNTERS:
        op.add_column("users", sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    op.add_column("games", sa.Column("min_reliability", sa.Integer(), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "game"),
    )
    op.create_table(
        "game_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    op.create_index(op.f("ix_game_results_user_id"), "game_results", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_game_results_user_id"), table_name="game_results")
    op.drop_table("game_results")
    op.drop_table("ratings")
    op.drop_column("games", "min_reliability")
    for name in reversed(COUNTERS):
        op.drop_column("users", name)
