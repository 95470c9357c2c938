"""The migrations own the schema: applied to an empty database they give
exactly the tables of the models (SQLite and PostgreSQL)."""
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401
from pbem.store.db import get_engine


# SQLite cannot reflect the expression index, so Alembic skips it there, saying so; the test
# below checks that index on both databases
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
def test_migrations_match_the_models(any_cfg):
    with get_engine().connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []


def test_the_expression_index_on_inbound_senders_exists(any_cfg):
    """Alembic cannot compare expression indexes: the courtesy rate limit's
    index (lower(mail_from), received_at) is checked here, and on PostgreSQL
    the rate limit's count uses it instead of scanning every stored mail."""
    from sqlalchemy import text

    eng = get_engine()
    with eng.connect() as conn:
        if eng.dialect.name == "sqlite":
            names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='index'")]
            assert "ix_inbound_sender_received" in names
            return
        names = [r[0] for r in conn.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE tablename='inbound'")]
        assert "ix_inbound_sender_received" in names
        conn.exec_driver_sql("SET enable_seqscan = off")  # an empty table: ask whether the index can serve
        plan = "\n".join(r[0] for r in conn.execute(text(
            "EXPLAIN SELECT count(*) FROM inbound WHERE lower(mail_from) = 'a@b' AND received_at > now()")))
        assert "ix_inbound_sender_received" in plan
        # and the statement the pipeline runs for every mail (built once, with bind parameters) can use it
        from datetime import datetime, timezone

        from pbem.mail.courtesy import SENDER_COUNT

        compiled = SENDER_COUNT.compile(dialect=conn.dialect)
        plan = "\n".join(r[0] for r in conn.exec_driver_sql(
            "EXPLAIN " + str(compiled), {**compiled.params, "who": "a@b", "since": datetime.now(timezone.utc), "id": 10,
                                         "digest": "0" * 24}))
        assert "ix_inbound_sender_received" in plan


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_private_posts_get_the_person_they_were_sent_to(any_cfg):
    """Migration 0008: a private post written before it goes to the player who
    held the seat then — before a replacement the first player, after it the replacement."""
    from datetime import timedelta

    from alembic import command
    from alembic.config import Config
    from sqlmodel import select

    from pbem.services.core import accounts, games, seating
    from pbem.services.lobby import seats, tables
    from pbem.store.db import MIGRATIONS, unit_of_work
    from pbem.store.models import Post, SeatHistory, utcnow

    with unit_of_work() as s:
        ann, ben, dan = (accounts.register(s, f"{n}@x.test", n, confirmed=True)[0] for n in ("Ann", "Ben", "Dan"))
        g = tables.create(s, ann, "mini", 2, {"hand": "3"}, seed=5)
        tables.join(s, ben, g.id)
        gid, ids = g.id, {u.name: u.id for u in (ann, ben, dan)}
        ben_seat = seating.seat_of(s, gid, ben.id).seat
        ann_seat = seating.seat_of(s, gid, ann.id).seat
        early = utcnow() - timedelta(hours=2)
        s.add(Post(game_id=gid, kind="post", user_id=ann.id, to_seat=ben_seat, body="to Ben", created_at=early))
        s.add(Post(game_id=gid, kind="post", user_id=ben.id, to_seat=ann_seat, body="to Ann", created_at=early))
    with unit_of_work() as s:
        seats.resign(s, s.get(type(ann), ids["Ben"]), gid)
    with unit_of_work() as s:
        seats.take(s, s.get(type(ann), ids["Dan"]), games.get(s, gid), ben_seat + 1)
        for h in s.exec(select(SeatHistory)):  # the replacement an hour ago, the post after it now
            h.created_at = utcnow() - timedelta(hours=1)
            s.add(h)
        s.add(Post(game_id=gid, kind="post", user_id=ann.id, to_seat=ben_seat, body="to Dan"))
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with get_engine().connect() as conn:  # each migration commits its own transaction (store/db.upgrade)
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0006")
        command.upgrade(cfg, "head")
    with unit_of_work() as s:
        got = {p.body: p.to_user_id for p in s.exec(select(Post).where(Post.kind == "post"))}
    assert got == {"to Ben": ids["Ben"], "to Ann": ids["Ann"], "to Dan": ids["Dan"]}


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_names_shared_before_0010_are_kept_and_the_oldest_holds_the_name(any_cfg):
    """Migration 0010 does not fail on names that two accounts share: both keep the name, the
    oldest confirmed account holds it (its key); later holders, unconfirmed accounts and bots hold
    none until they choose a name. The login links get the address they were mailed to."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from pbem.store.db import MIGRATIONS
    from pbem.store.names import key

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with get_engine().connect() as conn:  # each migration commits its own transaction (store/db.upgrade)
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0008")
        for n, (email, name, confirmed) in enumerate([
                ("ann@x.test", "Ann", True), ("ann2@x.test", "\u0430nn", True), ("bob@x.test", "Bob", False),
                ("bot-1-2@bots.pbem.invalid", "Bot 2", True), ("bot-2-2@bots.pbem.invalid", "Bot 2", True),
                ("cy@x.test", "Cy", True)]):
            conn.execute(text("INSERT INTO users (id, email, name, is_admin, confirmed, mail_format, notify, timezone, "
                              "created_at, stopped) VALUES (:id, :e, :n, false, :c, 'html', 'every', 'UTC', :t, false)"),
                         {"id": n + 1, "e": email, "n": name, "c": confirmed, "t": "2026-01-01 00:00:00"})
        conn.execute(text("INSERT INTO login_tokens (user_id, purpose, token_hash, created_at, expires_at) "
                          "VALUES (6, 'login', :h, '2026-01-01 00:00:00', '2026-01-01 00:30:00')"), {"h": "0" * 64})
        conn.commit()  # the rows written on the old schema, before the migrations run
        command.upgrade(cfg, "head")
        got = dict(conn.execute(text("SELECT email, name_key FROM users")).all())
        assert got == {"ann@x.test": key("Ann"), "ann2@x.test": None, "bob@x.test": None,
                       "bot-1-2@bots.pbem.invalid": None, "bot-2-2@bots.pbem.invalid": None, "cy@x.test": key("Cy")}
        assert conn.execute(text("SELECT email FROM login_tokens")).scalar_one() == "cy@x.test"
        names = dict(conn.execute(text("SELECT email, name FROM users")).all())
        assert names["ann2@x.test"] == "\u0430nn"  # kept as it was


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_inbound_rows_per_recipient_migrate_both_ways(any_cfg):
    """Migration 0011: a mail stored before it, for several
    recipients, stands for the one the pipeline read (the first seat
    address); after it, one mail is a row per recipient, and going back
    keeps every row (later copies of a Message-ID get their id appended)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from pbem.store.db import MIGRATIONS

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    seat = "game-3." + "a" * 32 + "@pbem.test"
    row = ("INSERT INTO inbound (message_id, raw, mail_from, rcpt_to, received_at, status, attempts) "
           "VALUES (:mid, :raw, 'ann@x.test', :rcpt, CURRENT_TIMESTAMP, 'done', 1)")
    with get_engine().connect() as conn:  # each migration commits its own transaction (store/db.upgrade)
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0008")
        conn.execute(text(row), {"mid": "<old@x>", "raw": b"x", "rcpt": f"Pbem@pbem.test, <{seat.upper()}>"})
        conn.commit()  # the rows written on the old schema, before the migrations run
        command.upgrade(cfg, "head")
        assert conn.execute(text("SELECT rcpt_to, mails_out FROM inbound")).all() == [(seat, 0)]
        conn.execute(text(row), {"mid": "<old@x>", "raw": b"x", "rcpt": "pbem@pbem.test"})
        command.downgrade(cfg, "0008")
        got = conn.execute(text("SELECT id, message_id, rcpt_to FROM inbound ORDER BY id")).all()
        assert [(m, r) for _, m, r in got] == [("<old@x>", seat), (f"<old@x>#{got[1][0]}", "pbem@pbem.test")]
        conn.commit()  # the rows written on the old schema, before the migrations run
        command.upgrade(cfg, "head")


def test_the_partial_index_of_retention_exists(any_cfg):
    """Alembic compares an index's columns, not its WHERE: retention's index of the mails that still have
    their raw text (migration 0032) is checked here, predicate and all, on both databases."""
    import re

    eng = get_engine()
    with eng.connect() as conn:
        if eng.dialect.name == "sqlite":
            sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'ix_inbound_unpruned'").scalar()
        else:
            sql = conn.exec_driver_sql("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_inbound_unpruned'"
                                       ).scalar()
    assert re.search(r"\(status, received_at\) WHERE \(?length\(raw\) > 0\)?$", sql), sql


def test_hosts_starting_together_migrate_once_under_the_lock(tmp_path):
    """Processes on several hosts start at once against one fresh PostgreSQL database: one migrates, the
    others wait on the advisory lock and then find nothing to do; while a process holds the lock,
    another waits for it (seen in pg_locks), and goes on when it is released."""
    import subprocess
    import sys
    import time

    import sqlalchemy as sa

    from pbem.store import db
    from tests.conftest import _drop_database, _pg_database, make_settings

    def upgrade(url, stderr=subprocess.PIPE):
        env = make_settings(tmp_path, database_url=url).to_env()
        return subprocess.Popen([sys.executable, "-m", "pbem.cli", "db", "upgrade"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=stderr)

    made = [_pg_database(), _pg_database()]
    try:
        (_, _, first), (_, _, second) = made
        eng = sa.create_engine(first)
        holder = eng.connect()
        holder.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": db.MIGRATION_LOCK})
        said = tmp_path / "waiter.err"
        waiter = upgrade(first, said.open("w"))
        try:
            end = time.monotonic() + 120
            while "another process is migrating the database: waiting for it" not in said.read_text():
                assert waiter.poll() is None and time.monotonic() < end, said.read_text()
                time.sleep(0.1)
            with eng.connect() as conn:
                assert not conn.execute(sa.text("SELECT to_regclass('games')")).scalar()  # nothing done yet
        finally:
            holder.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": db.MIGRATION_LOCK})
            holder.close()
            eng.dispose()
        try:
            out, err = waiter.communicate(timeout=300)
        finally:
            waiter.kill() if waiter.poll() is None else None
        assert waiter.returncode == 0 and out.strip().startswith("database migrated ("), (out, said.read_text())

        procs = [upgrade(second) for _ in range(3)]
        try:
            outs = [p.communicate(timeout=300) for p in procs]
        finally:
            for p in procs:
                p.kill() if p.poll() is None else None
        assert [p.returncode for p in procs] == [0, 0, 0], outs
        said = sorted(out.strip().split(" (")[0] for out, _ in outs)
        assert said == ["database is up to date", "database is up to date", "database migrated"], outs
        assert all("alembic" not in err for _, err in outs), outs  # nothing but what changed, and the waiting
        assert sum("waiting for it" in err for _, err in outs) <= 2
    finally:
        db.dispose_engines()
        for admin, name, _ in made:
            _drop_database(admin, name)


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_mail_bodies_are_packed_and_old_ones_read_as_they_were(any_cfg):
    """Migration 0048: a mail stored before it keeps its bodies, read as they were; one stored after it is
    packed on SQLite (a few times smaller; PostgreSQL compresses it itself: a text, as before) and read
    back whole; going back keeps the old mail (and, on SQLite, empties the packed one: SQL cannot unpack
    it), and the way up again reads both."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text
    from sqlmodel import Session, select

    from pbem.store.db import MIGRATIONS
    from pbem.store.models import PACKED, Outbound, body_digest

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    sqlite = get_engine().dialect.name == "sqlite"
    old_html = "<p>Ann played <b>B3</b>; your move, Bob.</p>" * 100  # over 2 KB: TOAST compresses it
    row = ("INSERT INTO outbound (message_id, to_addr, subject, body_text, body_html, headers, kind, status, "
           "attempts, next_attempt_at, created_at) VALUES (:mid, 'bob@x.test', '[pbem #1]', :text, :html, '{}', "
           "'board', 'sent', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
    with get_engine().connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0047")
        conn.execute(text(row), {"mid": "<old@x>", "text": "Ann played B3.\nДальше: Боб.", "html": old_html})
        conn.commit()
        command.upgrade(cfg, "head")
        conn.commit()
    with Session(get_engine()) as s:
        old = s.exec(select(Outbound)).one()
        assert (old.body_text, old.body_html, old.body_sha256) == ("Ann played B3.\nДальше: Боб.", old_html, None)
        new = Outbound(message_id="<new@x>", to_addr="bob@x.test", subject="[pbem #1]", body_text="Боб played C4.",
                       body_html=old_html, body_sha256=body_digest("Боб played C4.", old_html), kind="board",
                       status="sent")
        s.add(new)
        s.commit()
        size = "length" if sqlite else "pg_column_size"
        stored, took = s.connection().execute(text(
            f"SELECT body_html, {size}(body_html) FROM outbound WHERE message_id = '<new@x>'")).one()
        assert took * 5 < len(old_html.encode())  # packed by pbem on SQLite, by TOAST on PostgreSQL
        assert bytes(stored).startswith(PACKED) if sqlite else stored == old_html
        s.expire_all()
        assert s.get(Outbound, new.id).body_html == old_html
    with get_engine().connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0047")
        got = conn.execute(text("SELECT message_id, body_text, body_html FROM outbound ORDER BY id")).all()
        assert [tuple(r) for r in got] == [("<old@x>", "Ann played B3.\nДальше: Боб.", old_html),
                                           ("<new@x>", "", None) if sqlite else ("<new@x>", "Боб played C4.", old_html)]
        conn.commit()
        command.upgrade(cfg, "head")
        conn.commit()
    with Session(get_engine()) as s:
        assert [r.body_text for r in s.exec(select(Outbound).order_by(Outbound.id))] == [
            "Ann played B3.\nДальше: Боб.", "" if sqlite else "Боб played C4."]
