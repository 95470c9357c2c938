"""a live page's poll: an index on posts (game_id, id), so that
"is there a post after the last one shown" reads a range of it instead of
every post of the game's thread

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-28 13:10:00
"""
from alembic import op

from pbem.store import online


revision = '0036'
down_revision = '0035'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_posts_game_id_id", "posts", ["game_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_posts_game_id_id", table_name="posts")
