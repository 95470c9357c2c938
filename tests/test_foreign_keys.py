"""Every foreign key that a delete or a query follows has an index whose leading column is it:
deleting a parent row makes the database look for its children by the key (PostgreSQL has no index of
its own for that), and without the index each delete reads the whole child table -- 0.9 s per inbound
row at 13M moves. A key no delete nor query follows may go without, listed below with the reason, so
a new foreign key cannot forget the question."""
from sqlalchemy import PrimaryKeyConstraint, UniqueConstraint
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401  (registers the tables)

# (table, column): why no index. None of these parents is ever deleted (users and games are kept
# forever: accounts are disabled, games end), and no query looks the children up by the key
NOT_INDEXED = {
    ("games", "master_id"): "read from the game row; no query asks for the games a user is master of",
    ("audit_log", "user_id"): "written for the record; read by game (audit_log.game_id has its index)",
    ("confirmations", "user_id"): "read from the confirmation row, which is found by its token",
    ("confirmations", "game_id"): "read from the confirmation row, which is found by its token",
    ("disputes", "user_id"): "read from the dispute row, found by game (disputes.game_id has its index)",
    ("disputes", "resolved_by"): "read from the dispute row, found by game",
    ("moves", "user_id"): "read from the move row; moves are found by game (the unique (game_id, ply))",
    ("outbound", "user_id"): "read from the outbox row; mail to a user is found by address (to_addr)",
    ("posts", "to_user_id"): "read with the game's posts (posts.game_id has its index)",
    ("premoves", "user_id"): "read from the premove row, found by game",
    ("undo_requests", "user_id"): "read from the request row, found by game",
    ("vacations", "game_id"): "vacations are found by user (vacations.user_id has its index)",
    ("notifications", "game_id"): "read from the notification row, found by channel or status",
    ("reviews", "user_id"): "read from the review row, found by game (the unique (game_id, seat))",
    ("hints", "user_id"): "who asked, read from the hint row, found by game and seat (hints.game_id has its index)",
}


def leading_columns(table) -> set[str]:
    """The columns that lead an index, a unique constraint or the primary key of ``table``."""
    out = {next(iter(ix.columns)).name for ix in table.indexes if ix.columns}
    return out | {next(iter(c.columns)).name for c in table.constraints
                  if isinstance(c, (UniqueConstraint, PrimaryKeyConstraint)) and c.columns}


def test_every_foreign_key_is_indexed_or_said_why_not():
    tables = SQLModel.metadata.tables
    keys = {(t.name, fk.parent.name) for t in tables.values() for fk in t.foreign_keys}
    missing = sorted(k for k in keys if k[1] not in leading_columns(tables[k[0]]) and k not in NOT_INDEXED)
    assert missing == [], "foreign keys with neither an index nor a reason in NOT_INDEXED"
    # and the list holds only keys that exist and still lack an index
    indexed = sorted(k for k in NOT_INDEXED if k not in keys or k[1] in leading_columns(tables[k[0]]))
    assert indexed == []


def test_the_deleted_tables_children_are_indexed():
    """The tables retention deletes from (and the other deletes: observers, seats, vacations, channels):
    every foreign key to them has its index, never an exemption."""
    tables = SQLModel.metadata.tables
    deleted = {"inbound", "outbound", "notifications", "snapshots", "pictures", "observers", "seats",
               "vacations", "notify_channels", "leases"}
    children = sorted((t.name, fk.parent.name) for t in tables.values() for fk in t.foreign_keys
                      if fk.column.table.name in deleted)
    assert children and all(c[1] in leading_columns(tables[c[0]]) for c in children), children
