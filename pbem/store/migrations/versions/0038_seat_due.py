"""the deadline sweep reads only what is due: seats.due_at, when
the sweep must next look at a seat. Existing clocks get theirs from their
deadline and reminders (a late one, and every seat of a running game without
a clock, is looked at once at the next sweep, which sets it properly).

Revision ID: 0038
Revises: 0037
Create Date: 2026-11-28 13:00:00
"""
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0038'
down_revision = '0037'
branch_labels = None
depends_on = None

BEFORE = {0: timedelta(hours=24), 1: timedelta(hours=4), 2: timedelta(0)}  # the reminders; 2: the deadline


def upgrade() -> None:
    op.add_column("seats", sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("UPDATE seats SET due_at = CASE reminded WHEN 0 THEN deadline_at - interval '24 hours' "
                   "WHEN 1 THEN deadline_at - interval '4 hours' WHEN 2 THEN deadline_at ELSE now() END "
                   "WHERE deadline_at IS NOT NULL")
        op.execute("UPDATE seats SET due_at = now() WHERE deadline_at IS NULL "
                   "AND game_id IN (SELECT id FROM games WHERE status = 'running')")
        return
    seats = sa.table("seats", sa.column("id", sa.Integer), sa.column("game_id", sa.Integer),
                     sa.column("deadline_at", sqlmodel.sql.sqltypes.UTCDateTime()),
                     sa.column("reminded", sa.Integer), sa.column("due_at", sqlmodel.sql.sqltypes.UTCDateTime()))
    running = sa.select(sa.text("id")).select_from(sa.text("games")).where(sa.text("status = 'running'"))
    now = datetime.now(timezone.utc)
    rows = bind.execute(sa.select(seats.c.id, seats.c.deadline_at, seats.c.reminded).where(
        sa.or_(seats.c.deadline_at.is_not(None), seats.c.game_id.in_(running)))).all()
    params = [{"sid": r.id, "due": (r.deadline_at - BEFORE[r.reminded]) if r.deadline_at is not None
               and r.reminded in BEFORE else now} for r in rows]
    if params:
        bind.execute(seats.update().where(seats.c.id == sa.bindparam("sid")).values(due_at=sa.bindparam("due")),
                     params)


def downgrade() -> None:
    op.drop_column("seats", "due_at")
