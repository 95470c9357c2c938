"""outbound (status, created_at): retention deletes the old sent
rows by it, oldest first, instead of scanning the outbox

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-28 13:18:00
"""
from alembic import op

from pbem.store import online


revision = '0033'
down_revision = '0032'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_outbound_status_created", "outbound", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbound_status_created", table_name="outbound")
