"""notifications beyond mail: chat and push channels per user and
per game (Apprise URLs), their outbox, quiet hours, the digest hour and the
calendar feed's key

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-25 06:30:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("quiet_from", sa.Integer(), nullable=True))
    op.add_column("users", sa.Column("quiet_until", sa.Integer(), nullable=True))
    op.add_column("users", sa.Column("digest_hour", sa.Integer(), nullable=True))
    op.add_column("users", sa.Column("calendar_key", sa.String(length=32), nullable=False, server_default=""))
    # each user's calendar key, random (128 bits); new users get theirs from the model (secrets.token_urlsafe)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE users SET calendar_key = replace(gen_random_uuid()::text, '-', '')")
    else:
        op.execute("UPDATE users SET calendar_key = lower(hex(randomblob(16)))")
    op.create_index("ix_users_calendar_key", "users", ["calendar_key"])  # the feed's address finds its user
    op.create_table(
        "notify_channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("last_failed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("last_ok_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("disabled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
        sa.Column("digest_sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_notify_channels_user_id"), "notify_channels", ["user_id"], unique=False)
    op.create_index(op.f("ix_notify_channels_game_id"), "notify_channels", ["game_id"], unique=False)
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=250), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("link", sa.String(length=500), nullable=False),
        sa.Column("dedupe", sa.String(length=128), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["notify_channels.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("channel_id", "dedupe"),
    )
    op.create_index(op.f("ix_notifications_channel_id"), "notifications", ["channel_id"], unique=False)
    op.create_index(op.f("ix_notifications_status"), "notifications", ["status"], unique=False)
    op.create_index(op.f("ix_notifications_next_attempt_at"), "notifications", ["next_attempt_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_notifications_next_attempt_at"), table_name="notifications")
    op.drop_index(op.f("ix_notifications_status"), table_name="notifications")
    op.drop_index(op.f("ix_notifications_channel_id"), table_name="notifications")
    op.drop_table("notifications")
    op.drop_index(op.f("ix_notify_channels_game_id"), table_name="notify_channels")
    op.drop_index(op.f("ix_notify_channels_user_id"), table_name="notify_channels")
    op.drop_table("notify_channels")
    op.drop_index("ix_users_calendar_key", table_name="users")
    op.drop_column("users", "calendar_key")
    op.drop_column("users", "digest_hour")
    op.drop_column("users", "quiet_until")
    op.drop_column("users", "quiet_from")
