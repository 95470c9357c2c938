"""the language a board drawing is drawn in: its labels, card names and
legends are its readers' (the readers of one language share one drawing);
drawings stored before speak English, as they were drawn

Revision ID: 0045
Revises: 0044
Create Date: 2026-12-06 15:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0045'
down_revision = '0044'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("pictures", sa.Column("lang", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False,
                                        server_default="en"))


def downgrade() -> None:
    op.drop_column("pictures", "lang")
