"""the index the digests' sweep reads the due users by

Revision ID: 0042
Revises: 0041
Create Date: 2026-11-28 13:00:04
"""
from alembic import op

from pbem.store import online


revision = '0042'
down_revision = '0041'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_users_digest_due_at", "users", ["digest_due_at"])


def downgrade() -> None:
    op.drop_index("ix_users_digest_due_at", table_name="users")
