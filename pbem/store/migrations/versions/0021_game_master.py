"""the game master: games.master_id, the user with the judges' powers over the game
besides the site admins (None: its creator)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 06:30:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # ADD COLUMN with its REFERENCES: SQLite takes that as it is, where a batch rebuild of games would be
        # refused by the other tables' foreign keys to it
        op.execute("ALTER TABLE games ADD COLUMN master_id INTEGER REFERENCES users (id)")
        return
    op.add_column("games", sa.Column("master_id", sa.Integer(), nullable=True))
    op.create_foreign_key("fk_games_master_id_users", "games", "users", ["master_id"], ["id"])


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE games DROP COLUMN master_id")
        return
    op.drop_constraint("fk_games_master_id_users", "games", type_="foreignkey")
    op.drop_column("games", "master_id")
