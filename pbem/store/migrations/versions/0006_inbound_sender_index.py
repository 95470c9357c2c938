"""inbound: index the sender and time (the courtesy rate limit counts a
sender's recent mails for every mail; without it, a scan of the whole table)

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-22 09:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_inbound_sender_received", "inbound", [sa.text("lower(mail_from)"), "received_at"])


def downgrade() -> None:
    op.drop_index("ix_inbound_sender_received", table_name="inbound")
