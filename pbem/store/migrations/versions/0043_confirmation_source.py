"""the confirmation cap counts per sending server: confirmations.source (the
server that sent the request, or the verified sender); and a reply that says
neither YES nor NO is answered once: confirmations.nudged_at

Revision ID: 0043
Revises: 0042
Create Date: 2026-12-06 15:10:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0043'
down_revision = '0042'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("confirmations", sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=330), nullable=False,
                                             server_default=""))
    op.add_column("confirmations", sa.Column("nudged_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    op.drop_column("confirmations", "nudged_at")
    op.drop_column("confirmations", "source")
