"""bounces.outbound_id: retention keeps the outbox rows a bounce
points to and deletes the others, looking for one by it

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28 13:13:00
"""
from alembic import op

from pbem.store import online


revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_bounces_outbound_id", "bounces", ["outbound_id"])


def downgrade() -> None:
    op.drop_index("ix_bounces_outbound_id", table_name="bounces")
