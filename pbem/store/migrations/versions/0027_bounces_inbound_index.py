"""bounces.inbound_id: retention keeps the inbound rows a bounce
points to and deletes the others, looking for one by it

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28 13:12:00
"""
from alembic import op

from pbem.store import online


revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_bounces_inbound_id", "bounces", ["inbound_id"])


def downgrade() -> None:
    op.drop_index("ix_bounces_inbound_id", table_name="bounces")
