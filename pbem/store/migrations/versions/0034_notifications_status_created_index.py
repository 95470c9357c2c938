"""notifications (status, created_at): retention deletes the old
ones done with by it, oldest first

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-28 13:19:00
"""
from alembic import op

from pbem.store import online


revision = '0034'
down_revision = '0033'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_notifications_status_created", "notifications", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_notifications_status_created", table_name="notifications")
