"""the outbox keeps the SHA-256 of a mail's bodies, and says when retention dropped them (after
keep_mail_bodies_days; the row, its headers and that hash stay until keep_outbox_days); the partial
index of the sent rows that still have their bodies, by which retention finds them. On SQLite the
bodies become blobs, zlib-packed from now on (models.PackedText); on PostgreSQL they stay text, which
TOAST compresses, and nothing is rewritten: two columns added, one index built without blocking writes

Rows written before keep their bodies as they were, and no hash: the run of retention that drops
their bodies computes it first.

Revision ID: 0048
Revises: 0047
Create Date: 2026-12-06 22:10:00
"""
import sqlalchemy as sa
import sqlmodel
from alembic import op

from pbem.store import online


revision = '0048'
down_revision = '0047'
branch_labels = None
depends_on = None

KEPT = "status = 'sent' AND bodies_dropped_at IS NULL"


def _columns():
    return (sa.Column("body_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
            sa.Column("bodies_dropped_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for column in _columns():
            op.add_column("outbound", column)
    else:
        # SQLite keeps a value's own type whatever the column's: the old texts become blobs of their UTF-8
        with op.batch_alter_table("outbound") as batch:
            batch.alter_column("body_text", type_=sa.LargeBinary(), existing_type=sa.Text(), existing_nullable=False)
            batch.alter_column("body_html", type_=sa.LargeBinary(), existing_type=sa.Text(), existing_nullable=True)
            for column in _columns():
                batch.add_column(column)
        op.execute("UPDATE outbound SET body_text = CAST(body_text AS BLOB), "
                   "body_html = CAST(body_html AS BLOB) WHERE typeof(body_text) = 'text'")
    online.create_index("ix_outbound_bodies_kept", "outbound", ["created_at"],
                        postgresql_where=sa.text(KEPT), sqlite_where=sa.text(KEPT))


def downgrade() -> None:
    op.drop_index("ix_outbound_bodies_kept", table_name="outbound")
    if op.get_bind().dialect.name == "postgresql":
        op.drop_column("outbound", "bodies_dropped_at")
        op.drop_column("outbound", "body_sha256")
        return
    # a packed body cannot be unpacked in SQL: going back empties the bodies written packed (their hash is
    # lost with its column); the old ones come back as they were
    op.execute("UPDATE outbound SET body_text = X'' WHERE substr(body_text, 1, 3) = X'007a31'")
    op.execute("UPDATE outbound SET body_html = NULL WHERE substr(body_html, 1, 3) = X'007a31'")
    op.execute("UPDATE outbound SET body_text = CAST(body_text AS TEXT), body_html = CAST(body_html AS TEXT)")
    with op.batch_alter_table("outbound") as batch:
        batch.drop_column("bodies_dropped_at")
        batch.drop_column("body_sha256")
        batch.alter_column("body_text", type_=sa.Text(), existing_type=sa.LargeBinary(), existing_nullable=False)
        batch.alter_column("body_html", type_=sa.Text(), existing_type=sa.LargeBinary(), existing_nullable=True)
