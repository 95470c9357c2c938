"""a dispute keeps the positions before and after its ply as they were
disputed: a rollback marks that ply undone, and the settled
dispute still shows what was disputed

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02 12:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("disputes", sa.Column("before_json", sa.JSON(), nullable=True))
    op.add_column("disputes", sa.Column("after_json", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("disputes", "after_json")
    op.drop_column("disputes", "before_json")
