"""a thread notice's message and arguments, so each reader reads it in their language (the
English sentence stays in the body; notices stored before keep only their English, which the
thread reads back through the catalog)

Revision ID: 0046
Revises: 0045
Create Date: 2026-12-06 15:10:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0046'
down_revision = '0045'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("posts", sa.Column("notice", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("posts", "notice")
