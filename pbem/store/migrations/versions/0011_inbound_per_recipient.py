"""inbound: one row per recipient. A mail to two of a player's
game addresses was applied to the first game only, and when an MTA split the
recipients into two transactions the second copy (same Message-ID) was
dropped as a duplicate. A mail is now stored once per accepted recipient:
``rcpt_to`` is that one recipient (the bare address, lower-cased) and the
mail is unique on (Message-ID, recipient). ``mails_out``: how many mails its
processing queued (receipts, boards, talk), so amplification can be watched.

Existing rows name the recipient the pipeline read: the first seat address
of their recipients, else the first recipient.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04 09:00:00
"""
from email.utils import parseaddr

from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def _recipient(rcpt_to: str) -> str:
    rcpts = [parseaddr(r)[1].strip().lower() for r in (rcpt_to or "").split(",") if r.strip()]
    seats = [r for r in rcpts if r.startswith("game-")]
    return (seats or rcpts or [""])[0]


def upgrade() -> None:
    # no batch (a table copy on SQLite would lose the expression index on senders): plain index and
    # column statements work on both databases
    op.add_column("inbound", sa.Column("mails_out", sa.Integer(), nullable=False, server_default="0"))
    conn = op.get_bind()
    inbound = sa.table("inbound", sa.column("id", sa.Integer), sa.column("rcpt_to", sa.Text))
    rows = conn.execute(sa.select(inbound.c.id, inbound.c.rcpt_to)).all()
    fixed = [{"row_id": i, "rcpt": _recipient(r)} for i, r in rows if _recipient(r) != r]
    if fixed:
        conn.execute(inbound.update().where(inbound.c.id == sa.bindparam("row_id"))
                     .values(rcpt_to=sa.bindparam("rcpt")), fixed)
    op.drop_index("ix_inbound_message_id", table_name="inbound")
    op.create_index("ux_inbound_message_rcpt", "inbound", ["message_id", "rcpt_to"], unique=True)


def downgrade() -> None:
    # the old schema holds one row per Message-ID: the second and later copies of one get their row id
    # appended to it (what they hold stays)
    op.execute("UPDATE inbound SET message_id = message_id || '#' || CAST(id AS VARCHAR(20)) WHERE id > "
               "(SELECT MIN(i.id) FROM inbound i WHERE i.message_id = inbound.message_id)")
    op.drop_index("ux_inbound_message_rcpt", table_name="inbound")
    op.create_index("ix_inbound_message_id", "inbound", ["message_id"], unique=True)
    with op.batch_alter_table("inbound") as batch:  # SQLite: the table is copied without the column ...
        batch.drop_column("mails_out")
    if op.get_bind().dialect.name == "sqlite":  # ... and without the expression index, which it cannot reflect
        op.execute("CREATE INDEX IF NOT EXISTS ix_inbound_sender_received ON inbound (lower(mail_from), received_at)")
