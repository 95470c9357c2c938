"""the archive of finished games: an index on games (status,
updated_at), the archive's order (newest first)

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28 06:45:00
"""
from alembic import op


revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_status_updated", "games", ["status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_games_status_updated", table_name="games")
