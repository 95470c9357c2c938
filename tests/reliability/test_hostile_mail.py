"""No mail can stall, poison or amplify the service, through the
real receiver and a real Celery worker, on SQLite (embedded broker) and on
PostgreSQL (Redis): every recipient of a mail is read, and a re-delivery to
the same one is a duplicate; mail nested deeper than any client writes is
refused with an answer; a mail the database keeps failing is retried a
bounded number of times, then failed with its reason, answered once and
shown to the admins. The fixtures are in tests/fixtures/eml (make_corpus.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from pbem import config
from pbem.store.db import get_engine, unit_of_work
from pbem.store.models import Inbound, Move
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import PATIENCE, ann_and_bob, outbox, wait_for

EML = Path(__file__).resolve().parent.parent / "fixtures" / "eml"
DONE = ("done", "ignored", "failed")


@pytest.fixture
def service(any_cfg, on_redis):
    """Settings in force (SQLite with its embedded broker, or PostgreSQL on
    Redis), and a function that starts the receiver and a worker with them."""
    cfg = any_cfg if any_cfg.database_url.startswith("sqlite") else on_redis(any_cfg)

    def start(**over):
        new = cfg.with_(inbound_rate=10_000, **over)
        config.set_settings(new)
        return new

    return start




def _eml(name: str, seat: str, seat2: str = "", game: int = 0) -> bytes:
    return ((EML / name).read_bytes().replace(b"@@SEAT2@@", seat2.encode()).replace(b"@@SEAT@@", seat.encode())
            .replace(b"@@GAME@@", str(game).encode()))


def _processed(n: int, timeout: float = PATIENCE) -> list[Inbound]:
    """The inbound rows, once there are ``n`` and the worker has finished each."""
    def ready():
        with unit_of_work() as s:
            rows = list(s.exec(select(Inbound).order_by(Inbound.id)))
        return rows if len(rows) == n and all(r.status in DONE for r in rows) else None

    return wait_for(ready, timeout)


def _moves(gid: int) -> list[str]:
    with unit_of_work() as s:
        return [m.notation for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def _replies(to: str = "ann@x.test"):
    return [o for o in outbox(to) if o.kind == "reply"]


# ---------------------------------------------------------------- §1 every recipient read


def test_a_mail_to_two_game_addresses_is_read_for_each(service):
    cfg = service()
    (g1, a1), (g2, a2) = ann_and_bob(), ann_and_bob()
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, _eml("two_seat_addresses.eml", a1, a2, g1), "ann@x.test", [a1, a2]) == 250
        rows = _processed(2)
        wait_for(lambda: len(_replies()) == 2)
    assert [(r.message_id, r.rcpt_to, r.status) for r in rows] == [
        ("<two1@client.test>", a1, "done"), ("<two1@client.test>", a2, "done")]
    assert _moves(g1) == _moves(g2) == ["wait"]
    receipts = {r.subject: r.body_text for r in _replies()}  # one per game, in the game's conversation
    assert set(receipts) == {f"Re: [pbem #{g1}] Mini (test game)", f"Re: [pbem #{g2}] Mini (test game)"}
    assert all("Results of your mail: 1 OK." in body for body in receipts.values())
    assert [r.mails_out for r in rows] == [2, 2]  # the receipt and the other player's board, per game


def test_recipients_split_into_two_transactions_are_both_read_and_a_redelivery_is_not(service):
    """An MTA may send one mail to several recipients in several SMTP
    transactions, with the same Message-ID: each is read. The same mail sent
    again to the same recipient (a lost 250) is a duplicate: accepted,
    stored and applied once."""
    cfg = service()
    (g1, a1), (g2, a2) = ann_and_bob(), ann_and_bob()
    raw = _eml("split_recipients.eml", a1, a2, g1)
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, raw, "ann@x.test", a1) == 250
        assert send_mail(cfg, raw, "ann@x.test", a2.upper()) == 250  # a case-folding MTA: the same address
        rows = _processed(2)
        assert send_mail(cfg, raw, "ann@x.test", a1) == 250  # again, for the first recipient
        assert send_mail(cfg, raw, "ann@x.test", [a2, a1]) == 250  # and for both
        wait_for(lambda: len(_replies()) == 2 and all(o.status == "sent" for o in outbox()))
        assert _processed(2) == rows  # no new row
    assert [(r.message_id, r.rcpt_to, r.status) for r in rows] == [
        ("<split1@client.test>", a1, "done"), ("<split1@client.test>", a2, "done")]
    assert _moves(g1) == _moves(g2) == ["wait"]
    assert len(_replies()) == 2


# ---------------------------------------------------------------- §2 deep nesting answered


@pytest.mark.parametrize("name, reason", [
    ("deep_nesting_2000.eml", "its MIME parts are nested more than 20 levels deep"),
    ("from_nested_comments.eml", "its From header nests comments 2000 levels deep (at most 10 are read)"),
    ("html_deep_nesting.eml", "its HTML nests elements more than 255 levels deep"),
    ("many_parts.eml", "it has more than 500 MIME parts"),
])
def test_mail_nested_too_deep_is_refused_with_an_answer(service, name, reason):
    cfg = service()
    gid, addr = ann_and_bob()
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, _eml(name, addr, game=gid), "ann@x.test", addr) == 250
        [row] = _processed(1)
        wait_for(lambda: _replies())
    assert row.status == "ignored" and row.error is None and row.attempts == 1
    assert row.result == f"not read: {reason}; the sender was answered"
    assert row.courtesy == "error" and row.mails_out == 1  # it counts against the sender's courtesy limit
    [answer] = _replies()
    assert f"pbem did not read your mail: {reason}. Nothing in it was applied." in answer.body_text
    assert _moves(gid) == []


# ---------------------------------------------------------------- §3 transient failures counted and ended


def _refuse_moves() -> None:
    """A real database failure on every move: a trigger on the move log
    (PostgreSQL: a serialization failure, as a busy server gives; SQLite:
    an abort)."""
    with get_engine().begin() as c:
        if c.dialect.name == "postgresql":
            c.execute(text("CREATE FUNCTION refuse_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                           "RAISE EXCEPTION 'injected: could not serialize access' USING ERRCODE = "
                           "'serialization_failure'; END $$"))
            c.execute(text("CREATE TRIGGER refuse_move BEFORE INSERT ON moves FOR EACH ROW "
                           "EXECUTE FUNCTION refuse_move()"))
        else:
            c.execute(text("CREATE TRIGGER refuse_move BEFORE INSERT ON moves "
                           "BEGIN SELECT RAISE(ABORT, 'injected: the move log refuses'); END"))


def _accept_moves() -> None:
    with get_engine().begin() as c:
        c.execute(text("DROP TRIGGER refuse_move" + (" ON moves" if c.dialect.name == "postgresql" else "")))


def _given_up(cfg, gid: int, addr: str, cause: str) -> Inbound:
    """Ann's move, sent while the database fails it: tried ``inbound_max_attempts``
    times by the worker, then failed with the reason and answered once."""
    from pbem.tasks import run_sweep

    with smtp_receiver(cfg), celery_worker(cfg):
        raw = _eml("gmail_alternative_qp.eml", addr, game=gid)
        assert send_mail(cfg, raw, "ann@x.test", addr) == 250
        [row] = _processed(1)
        wait_for(lambda: _replies())
    assert row.status == "failed" and row.attempts == cfg.inbound_max_attempts == 3
    assert row.error.startswith("gave up after 3 attempts: the database kept failing (last: ") and cause in row.error
    assert "Traceback" not in row.error and row.result == "answered: not processed" and row.mails_out == 1
    [answer] = _replies()
    assert "pbem could not process your mail: the attempt failed 3 times" in answer.body_text
    assert "Nothing in it was applied" in answer.body_text and _moves(gid) == []
    assert run_sweep(grace_s=0)["inbound"] == 0  # never enqueued again: it waits for an admin
    return row


def _admin_sees_and_redrives(cfg, row: Inbound) -> None:
    from pbem.web import create_app
    from tests.web.conftest import Browser, make_user

    web = Browser(create_app(cfg))
    web.login_as(make_user("root@x.test", "Root", admin=True))
    page = web.get("/admin").get_data(as_text=True)
    assert f">{row.id}</a>" in page and "gave up after 3 attempts" in page
    assert web.post(f"/admin/inbound/{row.id}/redrive", page="/admin").status_code == 303


def test_a_mail_the_database_keeps_failing_is_failed_answered_once_and_redriven(service):
    cfg = service(inbound_max_attempts=3)
    gid, addr = ann_and_bob()
    _refuse_moves()
    row = _given_up(cfg, gid, addr, "injected")
    _accept_moves()
    _admin_sees_and_redrives(cfg, row)
    assert _moves(gid) == ["wait"] and len(_replies()) == 2  # the usual answer now, once
    with unit_of_work() as s:
        assert s.get(Inbound, row.id).status == "done"


@pytest.mark.postgres
def test_a_game_locked_elsewhere_past_the_lock_timeout_is_retried_then_failed(pg_cfg, on_redis):
    """A lock held by another connection (an admin's long transaction, a
    stuck process) and a server-side lock timeout: each attempt fails with
    55P03, is counted, and the mail ends failed instead of waiting for ever."""
    from pbem.store import db

    cfg = on_redis(pg_cfg).with_(inbound_max_attempts=3)
    config.set_settings(cfg)
    name = cfg.database_url.rsplit("/", 1)[1]
    with get_engine().begin() as c:
        c.execute(text(f'ALTER DATABASE "{name}" SET lock_timeout = \'300ms\''))
    db.dispose_engines()  # every connection from now on has it, the worker's too
    gid, addr = ann_and_bob()
    holder = get_engine().connect()
    holder.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": gid})
    try:
        row = _given_up(cfg, gid, addr, "lock timeout")
    finally:
        holder.rollback()
        holder.close()
    _admin_sees_and_redrives(cfg, row)
    assert _moves(gid) == ["wait"]
