"""Delivering the outbox: the worker that processed a mail sends
its replies right after the commit, over one relay connection; when the
relay fails, the rows go back to the queue with a backoff, the send task
takes over, and the worker stops sending inline for a while."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem import tasks
from pbem.bench.env import free_port
from pbem.mail import outbound, pipeline
from pbem.store import outbox
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, utcnow
from tests.mailtools import mail, seat_addr, start_game, store_inbound
from tests.reliability.chaos import Sink


@pytest.fixture
def relay(sqlite_cfg):
    """A real SMTP relay on loopback, installed as PBEM_SMTP_URL."""
    from pbem import config

    sink = Sink(free_port())
    sink.start()
    config.set_settings(sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{sink.port}?timeout=5"))
    outbox._inline_paused_until = 0.0
    try:
        yield sink
    finally:
        sink.stop()
        outbox._inline_paused_until = 0.0
        config.set_settings(sqlite_cfg)


def _move(gid: int, seat: int, text: str, frm: str) -> int:
    iid = store_inbound(mail(frm, seat_addr(gid, seat), text), seat_addr(gid, seat), frm)
    assert pipeline.process_inbound(iid, deliver=tasks.deliver_inline) == "done"
    return iid


def _rows(since=None) -> list[Outbound]:
    with unit_of_work() as s:
        q = select(Outbound).order_by(Outbound.id)
        if since is not None:
            q = q.where(Outbound.id > since)
        return list(s.exec(q))


def test_the_worker_delivers_a_mails_replies_itself_over_one_connection(relay):
    gid = start_game(2)
    before = _rows()[-1].id
    _move(gid, 0, "wait", "ann@x.test")
    rows = _rows(before)
    assert {r.kind for r in rows} == {"reply", "board"} and len(rows) == 2
    assert all(r.status == "sent" and r.sent_at is not None and r.attempts == 0 for r in rows)
    assert sorted(m[0] for m in relay.got[-2:]) == sorted(r.message_id for r in rows)  # the relay has both


def test_a_relay_outage_queues_the_mail_with_a_backoff_and_the_task_sends_it_later(relay):
    gid = start_game(2)
    before = _rows()[-1].id
    relay.stop()
    _move(gid, 0, "wait", "ann@x.test")
    failed = _rows(before)
    assert failed and all(r.status == "queued" and r.attempts == 1 and r.next_attempt_at > utcnow()
                          and "Connection refused" in (r.last_error or "") for r in failed)
    # for a while this worker leaves its mail to the send task: created queued, not claimed
    mid = _rows()[-1].id
    _move(gid, 1, "wait", "p1@x.test")
    waiting = _rows(mid)
    assert waiting and all(r.status == "queued" and r.attempts == 0 for r in waiting)

    relay.start()
    ids = [r.id for r in failed + waiting]
    not_due = tasks.deliver_batch(ids)  # the failed ones are not due yet: only the others go
    assert {i: s for i, (s, _) in not_due.items()} == {**{r.id: "queued" for r in failed},
                                                        **{r.id: "sent" for r in waiting}}
    with unit_of_work() as s:
        s.exec(update(Outbound).where(Outbound.id.in_([r.id for r in failed]))
               .values(next_attempt_at=utcnow() - timedelta(seconds=1)))
    assert tasks.send_outbound.run(ids) == f"{len(ids)} sent"  # the rest already were: not sent again
    assert all(r.status == "sent" for r in _rows(before))
    got = [m[0] for m in relay.got]
    assert sorted(got) == sorted(r.message_id for r in failed + waiting)  # each exactly once


def test_the_send_task_takes_a_batch_and_leaves_rows_it_does_not_hold(relay):
    gid = start_game(2)
    before = _rows()[-1].id
    iid = store_inbound(mail("ann@x.test", seat_addr(gid, 0), "wait"), seat_addr(gid, 0), "ann@x.test")
    assert pipeline.process_inbound(iid) == "done"  # not a worker task: queued for the send task
    rows = _rows(before)
    assert rows and all(r.status == "queued" for r in rows)
    with unit_of_work() as s:  # another worker holds the first one
        s.exec(update(Outbound).where(Outbound.id == rows[0].id).values(status="sending"))
    res = tasks.deliver_batch([r.id for r in rows] + [10 ** 9])
    assert res[rows[0].id] == ("sending", 0.0) and res[10 ** 9] == ("missing", 0.0)
    assert all(res[r.id] == ("sent", 0.0) for r in rows[1:])
    assert [m[0] for m in relay.got] == [r.message_id for r in rows[1:]]
    assert tasks.deliver_one(rows[1].id) == ("sent", 0)  # sent already: nothing sent again
    assert len(relay.got) == len(rows) - 1


def test_a_refused_recipient_fails_only_that_mail(relay):
    gid = start_game(2)
    before = _rows()[-1].id
    async def handle_RCPT(server, session, envelope, address, options):
        if address.startswith("p1@"):
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    relay.handle_RCPT = handle_RCPT
    relay.stop()
    relay.start()
    _move(gid, 0, "wait", "ann@x.test")
    rows = {r.to_addr: r for r in _rows(before) if r.kind != "notice"}
    assert set(rows) == {"ann@x.test", "p1@x.test"}, rows
    assert rows["ann@x.test"].status == "sent"
    assert [r.to_addr for r in _rows(before) if r.kind == "notice"] == ["ann@x.test"]  # P1's mail bounces
    # refused for good at RCPT: a hard bounce, not retried (tests/mail/test_refusals.py has the rest)
    assert rows["p1@x.test"].status == "failed" and rows["p1@x.test"].last_error.startswith(
        "refused for this recipient: 550 5.1.1")


def test_the_relay_gets_what_send_message_would_send_and_utf8_addresses_still_go():
    """Relay.send flattens the mail itself: the relay receives the
    bytes smtplib.send_message would have sent. A recipient address that is
    not ASCII goes with SMTPUTF8 (send_message itself failed on it: its utf8
    policy cannot be cloned from compat32)."""
    import io
    from email.generator import BytesGenerator

    from pbem import config

    sink = Sink(free_port(), smtputf8=True)
    sink.start()
    cfg = config.settings().with_(smtp_url=f"smtp://127.0.0.1:{sink.port}?timeout=5")
    now = utcnow()
    rows = [Outbound(id=900 + k, message_id=f"<pbem.relay{k}@pbem.test>", to_addr=to, subject="Доска: your turn",
                     body_text="Доска\n.\n..leading dots\nFrom here\n", body_html=html, headers={"X-PBEM-Loop": "t"},
                     created_at=now)
            for k, (to, html) in enumerate([("ann@x.test", "<p>ply 3</p>"), ("зоя@пример.test", None)])]
    try:
        with outbound.Relay(cfg) as r:
            for row in rows:
                r.send(row)
    finally:
        sink.stop()
    assert [g[2] for g in sink.got] == ["ann@x.test", "зоя@пример.test"]
    wire = io.BytesIO()
    BytesGenerator(wire).flatten(outbound.build_message(rows[0], cfg), linesep="\r\n")
    assert sink.raw[0].rstrip(b"\r\n") == wire.getvalue().rstrip(b"\r\n")
