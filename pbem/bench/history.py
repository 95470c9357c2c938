"""A stored history of many games on PostgreSQL, written in bulk (INSERT ...
SELECT over generate_series) for the retention measurements at scale: its
rows are copies of one row of each table made through the models (their
defaults, so the shapes are real), with the columns that matter varied.

The mail is in three ages: ``emptied`` mails from before the retention time
that earlier runs already emptied (the moves point to them), the ``day`` of
mails just past it that a run prunes now, and the ``recent`` ones it keeps.
Seven mails in ten are a move's; the outbox holds three mails per mail
received and the chat notifications one per two, of the day and the recent
ones (older ones were deleted). Finished games are spread over the last year;
those of the day just past the snapshots' retention time and since, and the
running ones, have three snapshots each."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Iterator

from sqlalchemy import Table, event, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from pbem.store.models import (Bounce, Confirmation, Game, Inbound, Move, Notification, NotifyChannel, Outbound,
                               Snapshot, User)

RAW = b"Received: from client.example\r\nSubject: Re: [pbem #1] your move\r\n\r\n" + b"x" * 240


def _copy(conn: Connection, table: Table, n: int, where: str = "true", **columns: str) -> None:
    """``n`` copies of ``table``'s row 0, numbered i = 1..n (their id): a column named in ``columns`` is
    that SQL expression of i, the others the template's; ``where``: the copies made, of all n."""
    columns.setdefault("id", "i")
    names = [c.name for c in table.columns]
    values = ", ".join(columns.pop(c, f't."{c}"') for c in names)
    assert not columns, f"no such columns: {columns}"
    conn.execute(text(f'INSERT INTO {table.name} ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in names)}) '
                      f"SELECT {values} FROM {table.name} AS t, generate_series(1, :n) AS g(i) "
                      f"WHERE t.id = 0 AND ({where})").bindparams(n=n))


def fill(conn: Connection, *, games: int, emptied: int, day: int, recent: int, moves: int, now: datetime,
         keep_days: int = 90, keep_snapshots_days: int = 7) -> None:
    """Fill the (empty, migrated) database of ``conn`` as the module says, ``now`` the time it is (aware)."""
    e, d, r = emptied, day, recent
    assert moves >= (e + d + r) * 7 // 10 + 1, "every move-mail needs its move"
    users = max(10, games // 10)
    s = Session(bind=conn)
    s.add(User(id=0, email="template@players.bench", name="Template"))
    s.flush()
    s.add(Game(id=0, game="spyrium", players=3, seed=1, status="finished", creator_id=0))
    s.add(Inbound(id=0, message_id="<template@client.example>", raw=RAW, mail_from="p@players.bench",
                  rcpt_to="game-1.token@pbem.bench", status="done", result="move"))
    s.add(Outbound(id=0, message_id="<template@pbem.bench>", to_addr="p@players.bench", subject="[pbem #1] move",
                   body_text="Seat 2 played. " * 20, status="sent", kind="board"))
    s.add(NotifyChannel(id=0, user_id=0, kind="json", url="json://127.0.0.1:9/hook", events=["turn"]))
    s.flush()
    s.add(Move(id=0, game_id=0, ply=0, seat=0, notation="pass", inbound_id=0))
    s.add(Notification(id=0, channel_id=0, kind="turn", title="Your turn", body="Your turn in game #1",
                       status="sent"))
    s.add(Confirmation(id=0, token_hash="0" * 64, email="p@players.bench", commands="RESIGN 1", inbound_id=0,
                       expires_at=now))
    s.add(Bounce(id=0, address="p@players.bench", kind="soft", outbound_id=0, inbound_id=0))
    s.flush()
    conn.execute(text("SET LOCAL synchronous_commit = off"))
    p = {"now": now, "e": e, "d": d, "r": r, "g": games, "u": users, "k": keep_days}
    conn.execute(text("CREATE TEMP TABLE fill_params ON COMMIT DROP AS SELECT CAST(:now AS timestamptz) AS now, "
                      "CAST(:e AS bigint) AS e, CAST(:d AS bigint) AS d, CAST(:r AS bigint) AS r, "
                      "CAST(:g AS bigint) AS g, CAST(:u AS bigint) AS u, CAST(:k AS int) AS k"), p)
    with_p = "(SELECT {} FROM fill_params)"
    now_, e_, d_, r_, g_, u_, k_ = (with_p.format(c) for c in ("now", "e", "d", "r", "g", "u", "k"))
    def at(days_ago: str, span_s: str, k: str, n: str) -> str:  # k / n of the way through a span of time
        return (f"{now_} - make_interval(days => {days_ago}) "
                f"+ make_interval(secs => ({span_s})::float8 * ({k}) / GREATEST({n}, 1))")

    def age(x: str, d_rows: str, r_rows: str, e_rows: str = "0") -> str:  # by row x's place in the three ages
        d_rows, r_rows, e_rows = f"({d_rows})", f"({r_rows})", f"({e_rows})"
        return (f"CASE WHEN {x} <= {e_rows} THEN {at('400', str(309 * 86400), x, e_rows)} "
                f"WHEN {x} <= {e_rows} + {d_rows} THEN {at(f'{k_} + 1', '86399', f'{x} - {e_rows}', d_rows)} "
                f"ELSE {at(k_, f'{k_} * 86400', f'{x} - {e_rows} - {d_rows}', f'{r_rows} + 1')} END")

    _copy(conn, User.__table__, users, email="'p' || i || '@players.bench'", name="'Player ' || i",
          calendar_key="md5('c' || i)")
    _copy(conn, Game.__table__, games, creator_id=f"i % {u_} + 1",
          status="CASE WHEN i % 20 < 12 THEN 'finished' WHEN i % 20 < 19 THEN 'running' ELSE 'open' END",
          updated_at=f"CASE WHEN i % 20 < 12 THEN {now_} - ((i::bigint * 7919) % (365 * 24)) * interval '1 hour' "
                     f"ELSE {now_} - (i % 720) * interval '1 minute' END")
    # the ones already emptied only for a move (the others were deleted); a mail in 20 ignored, one in 100 failed
    _copy(conn, Inbound.__table__, e + d + r, where=f"i > {e_} OR (i - 1) % 10 < 7",
          message_id="'<m' || i || '@client.example>'", raw=f"CASE WHEN i <= {e_} THEN ''::bytea ELSE t.raw END",
          received_at=age("i", d_, r_, e_),
          status="CASE WHEN i % 100 = 10 THEN 'failed' WHEN i % 20 = 0 THEN 'ignored' ELSE 'done' END")
    # move k is a mail's for the first 7 in 10 mails, then of the web and the bots
    mail = "((i - 1) / 7) * 10 + (i - 1) % 7 + 1"
    _copy(conn, Move.__table__, moves, game_id=f"(i - 1) % {g_} + 1", ply=f"(i - 1) / {g_} + 1",
          inbound_id=f"CASE WHEN {mail} <= {e_} + {d_} + {r_} THEN {mail} END",
          source=f"CASE WHEN {mail} <= {e_} + {d_} + {r_} THEN 'mail' ELSE 'web' END")
    _copy(conn, Outbound.__table__, 3 * (d + r), message_id="'<o' || i || '@pbem.bench>'",
          to_addr=f"'p' || i % {u_} || '@players.bench'", created_at=age("i", f"3 * {d_}", f"3 * {r_}"))
    _copy(conn, NotifyChannel.__table__, 1, user_id="1")
    _copy(conn, Notification.__table__, (d + r) // 2, channel_id="1",
          created_at=age("i", f"{d_} / 2", f"{r_} / 2"))
    conn.execute(text("INSERT INTO snapshots (game_id, ply, state_json) SELECT id, p * 10, '{}' FROM games, "
                      "generate_series(0, 2) AS p WHERE id > 0 AND updated_at >= :since"),
                 {"since": now - timedelta(days=keep_snapshots_days + 1)})
    # the day's mails a confirmation (1 in 100) or a bounce (1 in 1000) points to, none of them a move's
    _copy(conn, Confirmation.__table__, d // 100, token_hash="md5('t' || i) || md5('u' || i)",
          inbound_id=f"{e_} + (10 - {e_} % 10) % 10 + 8 + 10 * (i - 1)")
    _copy(conn, Bounce.__table__, d // 1000 + 1, inbound_id=f"{e_} + (10 - {e_} % 10) % 10 + 9 + 1000 * (i - 1)",
          outbound_id="1 + 1000 * (i - 1)")
    for model in (Bounce, Confirmation, Notification, Move, Snapshot, Outbound, Inbound, NotifyChannel, Game, User):
        name = model.__tablename__
        conn.execute(text(f"DELETE FROM {name} WHERE id = 0"))
        conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                          f"GREATEST((SELECT max(id) FROM {name}), 1))"))


@contextmanager
def plans(engine: Engine) -> Iterator[dict[str, str]]:
    """While in the block, PostgreSQL's plan of each distinct SELECT, UPDATE and DELETE ``engine`` runs,
    by statement: EXPLAIN with the statement's own parameters, just before it runs."""
    got: dict[str, str] = {}

    def explain(_conn, cursor, statement, parameters, _context, many):
        if statement.split(None, 1)[0].upper() in ("SELECT", "UPDATE", "DELETE") and statement not in got:
            with cursor.connection.cursor() as c:  # a statement run for many rows: the plan of its first
                c.execute("EXPLAIN " + statement, parameters[0] if many else parameters)
                got[statement] = "\n".join(row[0] for row in c.fetchall())

    event.listen(engine, "before_cursor_execute", explain)
    try:
        yield got
    finally:
        event.remove(engine, "before_cursor_execute", explain)
