"""inbound (status, received_at) of the rows that still have their raw text:
retention picks the old processed mail by it, and the rows it
emptied or deleted leave it, so no run reads them again

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-28 13:17:00
"""
from alembic import op

from pbem.store import online
import sqlalchemy as sa


revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_inbound_unpruned", "inbound", ["status", "received_at"],
                    postgresql_where=sa.text("length(raw) > 0"), sqlite_where=sa.text("length(raw) > 0"))


def downgrade() -> None:
    op.drop_index("ix_inbound_unpruned", table_name="inbound")
