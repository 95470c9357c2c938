"""web identity: sessions that can be ended, unique display names,
sign-up links without an account, invitations

* ``web_sessions``: one row per logged-in browser (the cookie holds a secret,
  the row its SHA-256), ended by logout, "log out everywhere" or a change of
  address.
* ``users.name_key``: the identity of a display name (pbem.store.names.key),
  unique. Existing names are kept as they are, duplicates too: the oldest
  confirmed account holding a name gets its key; later holders of the same
  name, unconfirmed accounts (their name was chosen before anyone proved the
  address), bots and names pbem reserves get none. Every name set from now on
  needs a free key, so the rule holds for every new or changed name.
* ``login_tokens.email``: the address a link went to (a sign-up link has no
  account yet: ``user_id`` may be empty); the per-address mail limit counts it.
* ``invitations``: one per address and game; the invite limits count them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 10:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('web_sessions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('last_seen_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('ended_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key_hash')
    )
    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_web_sessions_user_id'), ['user_id'], unique=False)

    op.create_table('invitations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('inviter_id', sa.Integer(), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['inviter_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'email')
    )
    with op.batch_alter_table('invitations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_invitations_email'), ['email'], unique=False)
        batch_op.create_index(batch_op.f('ix_invitations_inviter_id'), ['inviter_id'], unique=False)

    with op.batch_alter_table('login_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=True))
    op.execute("UPDATE login_tokens SET email = (SELECT users.email FROM users WHERE users.id = login_tokens.user_id)")
    with op.batch_alter_table('login_tokens', schema=None) as batch_op:
        batch_op.alter_column('email', existing_type=sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False)
        batch_op.alter_column('user_id', existing_type=sa.INTEGER(), nullable=True)
        batch_op.create_index(batch_op.f('ix_login_tokens_email'), ['email'], unique=False)

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name_key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True))
        batch_op.create_index(batch_op.f('ix_users_name_key'), ['name_key'], unique=True)
    _key_existing_names()


def _key_existing_names() -> None:
    from pbem.store.names import is_reserved, key

    conn = op.get_bind()
    users = sa.table('users', sa.column('id', sa.Integer), sa.column('name', sa.String),
                     sa.column('email', sa.String), sa.column('confirmed', sa.Boolean),
                     sa.column('name_key', sa.String))
    taken = set()
    rows = conn.execute(sa.select(users.c.id, users.c.name, users.c.email, users.c.confirmed)
                        .order_by(users.c.id)).all()
    for uid, name, email, confirmed in rows:
        k = key(name)
        if not confirmed or email.endswith("@bots.pbem.invalid") or is_reserved(name) or not k or k in taken:
            continue
        taken.add(k)
        conn.execute(users.update().where(users.c.id == uid).values(name_key=k))


def downgrade() -> None:
    # not a copy of the table (SQLite's batch mode): rows of other tables point to users
    with op.batch_alter_table('users', schema=None, recreate='never') as batch_op:
        batch_op.drop_index(batch_op.f('ix_users_name_key'))
        batch_op.drop_column('name_key')

    # sign-up links have no account: they cannot be kept without one
    op.execute("DELETE FROM login_tokens WHERE user_id IS NULL")
    with op.batch_alter_table('login_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_tokens_email'))
        batch_op.alter_column('user_id', existing_type=sa.INTEGER(), nullable=False)
        batch_op.drop_column('email')

    with op.batch_alter_table('invitations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_invitations_inviter_id'))
        batch_op.drop_index(batch_op.f('ix_invitations_email'))
    op.drop_table('invitations')
    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_web_sessions_user_id'))
    op.drop_table('web_sessions')
