"""the index the deadline sweep reads the due seats by

Revision ID: 0039
Revises: 0038
Create Date: 2026-11-28 13:00:01
"""
from alembic import op

from pbem.store import online


revision = '0039'
down_revision = '0038'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_seats_due_at", "seats", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_seats_due_at", table_name="seats")
