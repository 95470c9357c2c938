"""games.creator_id: the limits on creating games count a user's
own games by it

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28 13:14:00
"""
from alembic import op

from pbem.store import online


revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_games_creator_id", "games", ["creator_id"])


def downgrade() -> None:
    op.drop_index("ix_games_creator_id", table_name="games")
