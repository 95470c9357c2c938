"""posts: the person a private post was sent to (a replacement
taking the seat must not read the private posts sent to the player before)

Existing private posts go to the player who held the seat when they were
written: the latest replacement before the post, else the seat's first
player, else whoever holds the seat now.

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-02 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('to_user_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_posts_to_user_id_users', 'users', ['to_user_id'], ['id'])
    op.execute("""
        UPDATE posts SET to_user_id = COALESCE(
            (SELECT h.user_id FROM seat_history h
              WHERE h.game_id = posts.game_id AND h.seat = posts.to_seat AND h.reason = 'replacement'
                AND h.created_at <= posts.created_at
              ORDER BY h.created_at DESC, h.id DESC LIMIT 1),
            (SELECT h.user_id FROM seat_history h
              WHERE h.game_id = posts.game_id AND h.seat = posts.to_seat AND h.from_ply = 0
              ORDER BY h.id LIMIT 1),
            (SELECT seats.user_id FROM seats
              WHERE seats.game_id = posts.game_id AND seats.seat = posts.to_seat))
        WHERE to_seat IS NOT NULL""")


def downgrade() -> None:
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.drop_constraint('fk_posts_to_user_id_users', type_='foreignkey')
        batch_op.drop_column('to_user_id')
