"""a user's outbox in pages: an index on outbound (to_addr, id), so
that the newest mails to one address are a range of it instead of every mail
to that address sorted

Revision ID: 0037
Revises: 0036
Create Date: 2026-11-28 13:20:00
"""
from alembic import op

from pbem.store import online


revision = '0037'
down_revision = '0036'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_outbound_to_addr_id", "outbound", ["to_addr", "id"])


def downgrade() -> None:
    op.drop_index("ix_outbound_to_addr_id", table_name="outbound")
