"""moves.inbound_id: retention deletes inbound rows no move points
to, and each delete looks for such a move; without it, a scan of every move
(0.9 s a row at 13M moves)

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 13:10:00
"""
from alembic import op

from pbem.store import online


revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_moves_inbound_id", "moves", ["inbound_id"])


def downgrade() -> None:
    op.drop_index("ix_moves_inbound_id", table_name="moves")
