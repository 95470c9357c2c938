"""posts (user_id, created_at): the talk limit counts a user's
posts of the last hour

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-28 13:15:00
"""
from alembic import op

from pbem.store import online


revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_posts_user_created", "posts", ["user_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_posts_user_created", table_name="posts")
