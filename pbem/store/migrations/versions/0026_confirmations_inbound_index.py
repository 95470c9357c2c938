"""confirmations.inbound_id: retention keeps the inbound rows a
confirmation points to and deletes the others, looking for one by it

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28 13:11:00
"""
from alembic import op

from pbem.store import online


revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_confirmations_inbound_id", "confirmations", ["inbound_id"])


def downgrade() -> None:
    op.drop_index("ix_confirmations_inbound_id", table_name="confirmations")
