"""what the game page's thread shows a player (all, talk or moves), kept with the account so that it
follows the player from one device to another; everybody starts with all of it, as the page showed before

Revision ID: 0047
Revises: 0046
Create Date: 2026-12-06 19:10:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0047'
down_revision = '0046'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("thread_filter", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False,
                                     server_default="all"))


def downgrade() -> None:
    op.drop_column("users", "thread_filter")
