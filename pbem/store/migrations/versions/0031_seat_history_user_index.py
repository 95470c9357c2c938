"""seat_history.user_id: the games a user ever played (profiles,
the lobby's private games)

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-28 13:16:00
"""
from alembic import op

from pbem.store import online


revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None


def upgrade() -> None:
    online.create_index("ix_seat_history_user_id", "seat_history", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_seat_history_user_id", table_name="seat_history")
