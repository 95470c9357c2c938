"""deliverability: bounces recorded per address, and a user's
address marked failing

Revision ID: 0014
Revises: 0012
Create Date: 2026-12-02 12:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("mail_failing_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("users", sa.Column("mail_failing_reason", sqlmodel.sql.sqltypes.AutoString(length=500),
                                     nullable=True))
    op.create_table(
        "bounces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("diagnostic", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("outbound_id", sa.Integer(), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["outbound_id"], ["outbound.id"]),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_bounces_address"), "bounces", ["address"], unique=False)
    op.create_index(op.f("ix_bounces_created_at"), "bounces", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_bounces_created_at"), table_name="bounces")
    op.drop_index(op.f("ix_bounces_address"), table_name="bounces")
    op.drop_table("bounces")
    op.drop_column("users", "mail_failing_reason")
    op.drop_column("users", "mail_failing_at")
