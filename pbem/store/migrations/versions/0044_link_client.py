"""sign-up and login links are limited per client as well as per address:
login_tokens.client (the asking client's address, an IPv6 one by its /64),
counted by its index

Revision ID: 0044
Revises: 0043
Create Date: 2026-12-06 15:20:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

from pbem.store import online


revision = '0044'
down_revision = '0043'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("login_tokens", sa.Column("client", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False,
                                            server_default=""))
    online.create_index("ix_login_tokens_client_created", "login_tokens", ["client", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_login_tokens_client_created", table_name="login_tokens")
    op.drop_column("login_tokens", "client")
