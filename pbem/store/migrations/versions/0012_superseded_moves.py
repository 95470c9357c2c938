"""a secret choice replaced before its step was revealed: the
move is marked undone and names the ply of the order that replaced it

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 12:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("moves", sa.Column("superseded_by", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("moves", "superseded_by")
