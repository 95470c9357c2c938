"""A relay that refuses a recipient during the conversation, over real SMTP on loopback: a 5xx at
RCPT or to the data is a hard bounce at once (recorded, the address marked failing, its tables told,
no retry, no backlog in /healthz); a 4xx is retried (a soft bounce only if every attempt is refused),
and /healthz counts no backlog of it, while a relay that is down still shows. /healthz's pipeline
check: mail failing in the pipeline shows, one failure among many does not."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from pbem import config, tasks
from pbem.bench.env import free_port
from pbem.mail import pipeline
from pbem.store import health
from pbem.store import outbox as outbox_store
from pbem.store.db import unit_of_work
from pbem.store.models import Bounce, Inbound, Outbound, Post, User, utcnow
from tests.mailtools import mail, outbox, seat_addr, start_game, store_inbound
from tests.reliability.chaos import Sink

DEAD = "p1@x.test"


class RefusingRelay(Sink):
    """A relay on loopback that answers ``answer`` for DEAD at RCPT (``at="rcpt"``) or to the data
    (``at="data"``), and takes everything else."""

    def __init__(self, port: int, at: str, answer: str):
        super().__init__(port)
        self.at, self.answer = at, answer
        self.refused: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.at == "rcpt" and address.lower() == DEAD:
            self.refused.append(address)
            return self.answer
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.at == "data" and DEAD in [a.lower() for a in envelope.rcpt_tos]:
            self.refused.append(DEAD)
            return self.answer
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def relay(sqlite_cfg, request):
    at, answer = request.param
    sink = RefusingRelay(free_port(), at, answer)
    sink.start()
    gid = start_game(2)  # on the maildir: the game's first mails are out before the relay refuses anything
    tasks.deliver_batch([o.id for o in outbox() if o.status == "queued"])
    config.set_settings(sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{sink.port}?timeout=5", outbound_max_attempts=3))
    outbox_store._inline_paused_until = 0.0
    try:
        yield sink, gid
    finally:
        sink.stop()
        config.set_settings(sqlite_cfg)


def _move(gid: int) -> None:
    iid = store_inbound(mail("ann@x.test", seat_addr(gid, 0), "wait"), seat_addr(gid, 0), "ann@x.test")
    assert pipeline.process_inbound(iid, deliver=tasks.deliver_inline) == "done"


def _board() -> Outbound:
    return [o for o in outbox(DEAD) if o.kind == "board"][-1]


def _age(outbound_id: int, seconds: float) -> None:
    with unit_of_work() as s:
        row = s.get(Outbound, outbound_id)
        row.created_at = utcnow() - timedelta(seconds=seconds)
        row.next_attempt_at = utcnow() - timedelta(seconds=1)
        s.add(row)


def _user(email: str) -> User:
    with unit_of_work() as s:
        return s.exec(select(User).where(User.email == email)).one()


@pytest.mark.parametrize("relay", [("rcpt", "550 5.1.1 <p1@x.test>: Recipient address rejected: User unknown"),
                                   ("data", "554 5.7.1 Message refused: the mailbox is closed")],
                         ids=["550-at-rcpt", "554-at-data"], indirect=True)
def test_a_permanent_refusal_is_a_hard_bounce_at_once(relay):
    sink, gid = relay
    before = health.check(config.settings())
    assert before.outbox.ok and before.outbox.detail["unsent"] == 0
    _move(gid)
    board = _board()
    assert sink.refused == [DEAD]  # asked once, never again
    assert board.status == "failed" and board.attempts == 1
    code = "550" if sink.at == "rcpt" else "554"
    assert board.last_error.startswith(f"{outbox_store.RECIPIENT_REFUSED}{code} 5.")
    status = "5.1.1" if sink.at == "rcpt" else "5.7.1"
    with unit_of_work() as s:
        bounces = [(b.address, b.kind, b.status, b.outbound_id) for b in s.exec(select(Bounce))]
        told = s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice")).all()
    assert bounces == [(DEAD, "hard", status, board.id)]
    p1 = _user(DEAD)
    assert p1.mail_failing_at is not None and code in p1.mail_failing_reason
    assert [p.body.split(";")[0] for p in told] == ["P1's mail bounces, so pbem cannot reach them by mail"]
    notice = [o for o in outbox("ann@x.test") if o.kind == "notice"][-1]
    assert "P1's mail bounces" in notice.body_text
    assert tasks.deliver_batch([notice.id]) == {notice.id: ("sent", 0.0)}  # what a worker's send task does
    assert notice.message_id in [m[0] for m in sink.got]  # the table is told through the same relay
    # nothing of it waits: an hour later /healthz is still green
    _age(board.id, 3600)
    after = health.check(config.settings())
    assert after.outbox.ok and after.outbox.detail["unsent"] == 0, after.as_json()
    # the next mail to the address is held, not tried
    from pbem.services.core import notify
    from pbem.store.models import Game

    with unit_of_work() as s:
        notify.queue_notice(s, s.get(Game, gid), "a notice", "Hello again.", seats={1})
    assert outbox(DEAD)[-1].status == "held" and sink.refused == [DEAD]


@pytest.mark.parametrize("relay", [("rcpt", "451 4.2.2 <p1@x.test>: mailbox full, try again later")],
                         ids=["451-at-rcpt"], indirect=True)
def test_a_temporary_refusal_is_retried_and_is_no_backlog(relay):
    sink, gid = relay
    _move(gid)
    board = _board()
    assert board.status == "queued" and board.attempts == 1 and board.next_attempt_at is not None
    assert board.last_error.startswith(f"{outbox_store.RECIPIENT_REFUSED}451 4.2.2")
    with unit_of_work() as s:
        assert not s.exec(select(Bounce)).all()
    assert _user(DEAD).mail_failing_at is None
    assert outbox_store._inline_paused_until == 0.0  # the relay works: inline delivery goes on
    _age(board.id, 3600)  # waiting an hour for one full mailbox: no page for the operator
    h = health.check(config.settings())
    assert h.outbox.ok and h.outbox.detail["unsent"] == 0, h.as_json()
    # retried; at the last attempt, still refused: failed, a soft bounce (one does not mark the address)
    assert tasks.deliver_batch([board.id])[board.id][0] == "deferred"
    _age(board.id, 3600)
    assert tasks.deliver_batch([board.id])[board.id] == ("failed", 0.0)
    assert len(sink.refused) == 3
    with unit_of_work() as s:
        assert [(b.kind, b.status) for b in s.exec(select(Bounce))] == [("soft", "4.2.2")]
    assert _user(DEAD).mail_failing_at is None
    # while the relay is down, the same wait is a backlog
    sink.stop()
    from pbem.services.core import notify
    from pbem.store.models import Game

    with unit_of_work() as s:
        notify.queue_notice(s, s.get(Game, gid), "a notice", "Hello.", seats={0})
    down = outbox("ann@x.test")[-1]
    assert tasks.deliver_batch([down.id])[down.id][0] == "retry"
    down = outbox("ann@x.test")[-1]
    assert down.status == "queued" and not down.last_error.startswith(outbox_store.RECIPIENT_REFUSED)
    _age(down.id, 3600)
    h = health.check(config.settings())
    assert not h.outbox.ok and h.outbox.detail["unsent"] >= 1


def test_mail_failing_in_the_pipeline_shows_in_healthz(sqlite_cfg):
    cfg = sqlite_cfg.with_(health_failing_min=3)
    config.set_settings(cfg)
    ids = [store_inbound(mail(f"x{i}@x.test", "pbem@pbem.test", "HELP"), "pbem@pbem.test", f"x{i}@x.test")
           for i in range(8)]

    def finish(which, status):
        with unit_of_work() as s:
            for i in which:
                row = s.get(Inbound, i)
                row.status = status
                s.add(row)

    h = health.check(cfg)
    assert h.pipeline.ok and h.pipeline.detail == {"failed": 0, "finished": 0, "window_s": 900}
    finish(ids[:5], "done")
    finish(ids[5:6], "failed")  # one mail that tripped a bug among others: no page
    assert health.check(cfg).pipeline.ok
    finish(ids[6:8], "failed")  # 3 of 8: failing, but most mail goes through
    h = health.check(cfg)
    assert h.pipeline.ok and h.pipeline.detail["failed"] == 3
    more = [store_inbound(mail(f"y{i}@x.test", "pbem@pbem.test", "HELP"), "pbem@pbem.test", f"y{i}@x.test")
            for i in range(3)]
    finish(more, "failed")  # 6 of 11: a broken deployment
    h = health.check(cfg)
    assert not h.pipeline.ok and not h.ok and h.pipeline.detail == {"failed": 6, "finished": 11, "window_s": 900}
    with unit_of_work() as s:  # mail received before the window does not count
        for i in ids + more:
            row = s.get(Inbound, i)
            row.received_at = utcnow() - timedelta(seconds=901)
            s.add(row)
    assert health.check(cfg).pipeline.ok
