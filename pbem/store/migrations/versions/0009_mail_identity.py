"""mail identity: the receiver's record of the sending server and
pbem's own DKIM/SPF verdict on inbound mail; who may use a player's seat
addresses; commands held until their owner confirms them

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 19:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("inbound", sa.Column("peer", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False,
                                       server_default=""))
    op.add_column("inbound", sa.Column("helo", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False,
                                       server_default=""))
    op.add_column("inbound", sa.Column("auth", sa.Text(), nullable=True))
    op.add_column("users", sa.Column("seat_senders", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False,
                                     server_default="any"))
    op.create_table(
        "confirmations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("commands", sa.Text(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("done_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_confirmations_token_hash"), "confirmations", ["token_hash"], unique=True)
    op.create_index(op.f("ix_confirmations_email"), "confirmations", ["email"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_confirmations_email"), table_name="confirmations")
    op.drop_index(op.f("ix_confirmations_token_hash"), table_name="confirmations")
    op.drop_table("confirmations")
    # a plain DROP COLUMN (SQLite 3.35+ has it): a batch copy of users would break the keys that point at it
    for table, column in (("users", "seat_senders"), ("inbound", "auth"), ("inbound", "helo"), ("inbound", "peer")):
        op.drop_column(table, column)
