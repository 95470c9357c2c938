"""board drawings in the mail: one row per distinct view drawn,
the view and, once a delivery drew and rendered it, its SVG and PNG; and
the outbox row's reference to the drawing it shows

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25 00:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pictures",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("view", sa.Text(), nullable=False),
        sa.Column("svg", sa.Text(), nullable=True),
        sa.Column("png", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("rendered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index(op.f("ix_pictures_created_at"), "pictures", ["created_at"], unique=False)
    op.add_column("outbound", sa.Column("picture_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
    op.create_index(op.f("ix_outbound_picture_key"), "outbound", ["picture_key"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbound_picture_key", table_name="outbound")
    op.drop_column("outbound", "picture_key")
    op.drop_index("ix_pictures_created_at", table_name="pictures")
    op.drop_table("pictures")
