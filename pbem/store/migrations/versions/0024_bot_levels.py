"""bot levels: a game's level for its stand-in bots and a bot
seat's own level. Games that exist already keep the greedy bot they were
created with ("easy"); new ones get "normal".

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 10:10:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("bot_level", sa.String(length=8), nullable=False, server_default="normal"))
    op.execute("UPDATE games SET bot_level = 'easy'")
    op.add_column("seats", sa.Column("bot_level", sa.String(length=8), nullable=True))


def downgrade() -> None:
    op.drop_column("seats", "bot_level")
    op.drop_column("games", "bot_level")
