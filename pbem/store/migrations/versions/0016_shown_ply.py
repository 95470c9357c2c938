"""take-back inside one's own turn: the latest ply whose board
was mailed to someone other than the seat to move alone; a move after it has
been seen by nobody else and may be taken back by its own seat

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 18:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a running game counts as shown up to its present ply: its boards went out before this column
    op.add_column("games", sa.Column("shown_ply", sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE games SET shown_ply = ply")


def downgrade() -> None:
    op.drop_column("games", "shown_ply")
