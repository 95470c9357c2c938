"""tournaments and leagues: the tournament, its entries, its rounds (with their byes) and its
tables, each table an ordinary game (services/lobby/tournaments)

Revision ID: 0049
Revises: 0048
Create Date: 2026-12-06 22:10:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0049'
down_revision = '0048'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", S(length=80), nullable=False),
        sa.Column("game", S(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("deadline_hours", sa.Integer(), nullable=False),
        sa.Column("policy", S(length=16), nullable=False),
        sa.Column("bot_level", S(length=8), nullable=False),
        sa.Column("format", S(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("advance", sa.Integer(), nullable=False),
        sa.Column("scoring", S(length=16), nullable=False),
        sa.Column("points", S(length=40), nullable=True),
        sa.Column("tie_breaks", S(length=80), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("entry_closes_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("max_entries", sa.Integer(), nullable=True),
        sa.Column("access", S(length=16), nullable=False),
        sa.Column("password_hash", S(length=200), nullable=True),
        sa.Column("invited", sa.JSON(), nullable=False),
        sa.Column("min_rating", sa.Float(), nullable=True),
        sa.Column("min_reliability", sa.Integer(), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", S(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["director_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_tournaments_director_id", "tournaments", ["director_id"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("left_round", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "user_id"),
    )
    op.create_index("ix_tournament_entries_user_id", "tournament_entries", ["user_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "number"),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "round", "number"),
        sa.UniqueConstraint("game_id"),
    )
    op.create_table(
        "tournament_join_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_tournament_join_attempts_tournament_id", "tournament_join_attempts", ["tournament_id"])
    op.create_index("ix_tournament_join_attempts_user_id", "tournament_join_attempts", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_join_attempts_user_id", table_name="tournament_join_attempts")
    op.drop_index("ix_tournament_join_attempts_tournament_id", table_name="tournament_join_attempts")
    op.drop_table("tournament_join_attempts")
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_entries_user_id", table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_index("ix_tournaments_director_id", table_name="tournaments")
    op.drop_table("tournaments")
