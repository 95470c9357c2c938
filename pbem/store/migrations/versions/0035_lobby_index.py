"""the lobby's open games in pages: an index on games (status, id),
the lobby's order (oldest first), so a page of open games is read from it
instead of sorting every open game

Revision ID: 0035
Revises: 0034
Create Date: 2026-11-28 13:00:00
"""
from alembic import op

from pbem.store import online


revision = '0035'
down_revision = '0034'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_games_status_id", "games", ["status", "id"])


def downgrade() -> None:
    op.drop_index("ix_games_status_id", table_name="games")
