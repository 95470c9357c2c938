"""each user's language: en, ru, bg or it; every mail to them and
every page they see speaks it. language_chosen: set by the user (profile or
LANGUAGE), so a guess from a later mail's headers never overrides it

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-25 03:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))
    op.add_column("users", sa.Column("language_chosen", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("users", "language_chosen")
    op.drop_column("users", "language")
