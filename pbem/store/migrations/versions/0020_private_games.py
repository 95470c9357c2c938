"""private games: a game's access (public, private: invitation only, password: a
salted hash of the word), an invitation's answer (pending, accepted, declined) and the failed
password attempts that limit guessing

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 06:40:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("access", sa.String(length=16), nullable=False, server_default="public"))
    op.add_column("games", sa.Column("password_hash", sa.String(length=200), nullable=True))
    op.add_column("invitations", sa.Column("status", sa.String(length=16), nullable=False,
                                           server_default="pending"))
    op.add_column("invitations", sa.Column("answered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.create_table(
        "join_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_join_attempts_game_id"), "join_attempts", ["game_id"], unique=False)
    op.create_index(op.f("ix_join_attempts_user_id"), "join_attempts", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_join_attempts_user_id"), table_name="join_attempts")
    op.drop_index(op.f("ix_join_attempts_game_id"), table_name="join_attempts")
    op.drop_table("join_attempts")
    op.drop_column("invitations", "answered_at")
    op.drop_column("invitations", "status")
    op.drop_column("games", "password_hash")
    op.drop_column("games", "access")
