"""The whole email loop with real components: SMTP over loopback into the
receiver, a real Celery worker on a real broker, the real database, replies
delivered to the maildir. Once on Redis + PostgreSQL, once on the embedded
default (SQLite + kombu's SQLAlchemy transport)."""
import mailbox
import smtplib

import pytest
from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Seat
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import mail, outbox, wait_for

CMD = "pbem@pbem.test"


def _loop(cfg):
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, mail("ann@x.test", CMD, "REGISTER Ann\nNEW mini players=2"), "ann@x.test", CMD) == 250
        gid = wait_for(lambda: _one(select(Game.id)))
        assert send_mail(cfg, mail("bob@x.test", CMD, f"REGISTER Bob\nJOIN {gid}"), "bob@x.test", CMD) == 250
        wait_for(lambda: _one(select(Game).where(Game.status == "running")))
        boards = wait_for(lambda: [o for o in outbox() if o.kind == "board" and o.status == "sent"]
                          if len([o for o in outbox() if o.kind == "board" and o.status == "sent"]) == 2 else None)
        by_to = {b.to_addr: b for b in boards}
        assert set(by_to) == {"ann@x.test", "bob@x.test"}
        with unit_of_work() as s:
            g = games.get(s, gid)
            hands = games.state_at(s, g).hands
            tokens = {x.seat: x.token for x in s.exec(select(Seat).where(Seat.game_id == gid))}
        # each seat sees its own hand and only that
        assert f"Your hand: {' '.join(map(str, hands[0]))}" in by_to["ann@x.test"].body_text
        assert f"Your hand: {' '.join(map(str, hands[1]))}" in by_to["bob@x.test"].body_text
        ann_addr = by_to["ann@x.test"].headers["Reply-To"]
        assert ann_addr == f"game-{gid}.{tokens[0]}@pbem.test"

        # Ann replies to her board with a move
        reply = mail("ann@x.test", ann_addr, f"play {hands[0][0]}\n\nOn Sunday pbem wrote:\n> board",
                     subject=f"Re: {by_to['ann@x.test'].subject}")
        assert send_mail(cfg, reply, "ann@x.test", ann_addr) == 250
        wait_for(lambda: _one(select(Move)))
        wait_for(lambda: all(o.status == "sent" for o in outbox()) and len(outbox()) >= 6)
        receipt = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1]
        assert "OK" in receipt.body_text and "ply 1" in receipt.body_text
        bob_board = [o for o in outbox("bob@x.test") if o.kind == "board"][-1]
        assert f"Ann played: play {hands[0][0]}" in bob_board.body_text

        # the receiver refuses strangers and oversized mail, and keeps nothing of them
        with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=120) as s:
            s.ehlo()
            s.mail("eve@x.test")
            assert s.rcpt(f"game-{gid}.{'b' * 32}@pbem.test")[0] == 550
            assert s.rcpt("root@pbem.test")[0] == 550
            assert s.rcpt("pbem@elsewhere.test")[0] == 550
        big = mail("ann@x.test", CMD, "x" * (cfg.max_message_bytes + 10))
        with pytest.raises(smtplib.SMTPException) as e:
            with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=120) as s:
                s.sendmail("ann@x.test", [CMD], big)
        assert "552" in str(e.value)
        with unit_of_work() as s:
            assert len(list(s.exec(select(Inbound)))) == 3
            assert all(r.status == "done" for r in s.exec(select(Inbound)))

    # every sent mail is in the maildir, multipart with text and HTML, tagged
    box = mailbox.Maildir(str(cfg.maildir), create=False)
    msgs = list(box)
    assert len(msgs) == len(outbox())
    for m in msgs:
        assert m["X-PBEM-Loop"] == "pbem.test" and m.is_multipart()
        assert {p.get_content_type() for p in m.walk()} >= {"text/plain", "text/html"}


def _one(q):
    with unit_of_work() as s:
        return s.exec(q).first()


@pytest.mark.redis
@pytest.mark.postgres
def test_mail_loop_on_redis_and_postgres(pg_cfg, on_redis):
    _loop(on_redis(pg_cfg))


def test_mail_loop_on_the_embedded_default(sqlite_cfg):
    assert sqlite_cfg.is_embedded_broker and sqlite_cfg.database_url.startswith("sqlite")
    _loop(sqlite_cfg)
