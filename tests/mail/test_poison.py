"""Mails whose headers the database would refuse: an
encoded NUL in the Subject, a Subject of thousands of characters, a From
longer than any deliverable address, a NUL in the Message-ID. On PostgreSQL
these made the reply's INSERT fail and the mail was retried for ever; now
each is processed once, answered when it can be, and never left waiting."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.mail import pipeline
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound, User
from tests.mailtools import CMD, process, store_inbound


def _raw(frm: str, subject: str, body: str = "REGISTER Zed\nGAMES", mid: str = "<p1@client.test>") -> bytes:
    return (f"From: {frm}\r\nTo: {CMD}\r\nSubject: {subject}\r\nMessage-ID: {mid}\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n").encode()


@pytest.mark.parametrize("subject", ["=?utf-8?b?aGkAdGhlcmU=?=", "x" * 3000, "=?utf-8?q?a=0Db=1Bc?="])
def test_a_subject_the_database_would_refuse_is_answered_once(any_cfg, subject):
    iid = store_inbound(_raw("zed@x.test", subject), CMD, "zed@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        assert s.get(Inbound, iid).status == "done"
        reply = s.exec(select(Outbound).where(Outbound.to_addr == "zed@x.test")).one()
        assert "\x00" not in reply.subject + reply.body_text and len(reply.subject) <= 998
        assert "welcome, Zed" in reply.body_text
        assert s.exec(select(User).where(User.email == "zed@x.test")).one().name == "Zed"


def test_a_message_id_with_a_nul_is_not_echoed(any_cfg):
    iid = store_inbound(_raw("zed@x.test", "hi", mid="<a\x00b@client.test>"), CMD, "zed@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        reply = s.exec(select(Outbound).where(Outbound.to_addr == "zed@x.test")).one()
        assert all("\x00" not in v for v in reply.headers.values())


def test_an_undeliverable_from_is_set_aside_not_retried(any_cfg):
    long_from = "a" * 300 + "@x.test"
    iid = store_inbound(_raw(long_from, "hi"), CMD, "zed@x.test")
    assert pipeline.process_inbound(iid) == "ignored"
    with unit_of_work() as s:
        row = s.get(Inbound, iid)
        assert row.status == "ignored" and "not one mail can be delivered to" in (row.result or "")
        assert list(s.exec(select(Outbound))) == []


def test_normal_mail_from_the_same_sender_still_works_after(any_cfg):
    store = store_inbound(_raw("zed@x.test", "=?utf-8?b?AA==?="), CMD, "zed@x.test")
    assert pipeline.process_inbound(store) == "done"
    _, status = process("zed@x.test", CMD, "GAMES")
    assert status == "done"


def test_the_receiver_stores_a_mail_whose_message_id_holds_a_nul(any_cfg):
    """Over SMTP: accepted once (250), not refused with 451 for ever."""
    from tests.conftest import send_mail, smtp_receiver

    raw = _raw("zed@x.test", "=?utf-8?b?AA==?=", mid="<n\x00ul@client.test>")
    with smtp_receiver(any_cfg):
        assert send_mail(any_cfg, raw, "zed@x.test", CMD) == 250
    with unit_of_work() as s:
        row = s.exec(select(Inbound)).one()
    assert pipeline.process_inbound(row.id) == "done"


def test_one_mail_cannot_open_games_without_end(any_cfg):
    """Amplification: 30 NEW lines open MAX_OPEN_GAMES games;
    every further line is refused with the reason, in the one answer."""
    from pbem.services.lobby.tables import MAX_OPEN_GAMES
    from pbem.store.models import Game

    process("zed@x.test", CMD, "REGISTER Zed")
    process("zed@x.test", CMD, "\n".join(["NEW spyrium players=3"] * 30))
    with unit_of_work() as s:
        assert len(list(s.exec(select(Game)))) == MAX_OPEN_GAMES
        reply = list(s.exec(select(Outbound).where(Outbound.to_addr == "zed@x.test").order_by(Outbound.id)))[-1]
    assert reply.body_text.count("games waiting for players") == 30 - MAX_OPEN_GAMES
    assert "e.g. CANCEL" in reply.body_text


def test_many_say_lines_make_one_mail_per_recipient(any_cfg):
    """Amplification: a mail of 150 SAY lines to the table
    and 20 to one player is one post and one mail per recipient, not one per
    line per seat; each line is still answered."""
    from pbem.store.models import Post
    from tests.mailtools import seat_addr, start_game

    gid = start_game(3)
    before = {who: len([o for o in _out(who)]) for who in ("p1@x.test", "p2@x.test")}
    body = "\n".join([f"SAY table line {i}" for i in range(150)] + [f"SAY P1: just you {i}" for i in range(20)])
    process("ann@x.test", seat_addr(gid, 0), body)
    with unit_of_work() as s:
        posts = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post").order_by(Post.id)))
    assert len(posts) == 2 and posts[0].body.count("\n") == 149 and posts[1].to_seat is not None
    assert len(_out("p1@x.test")) - before["p1@x.test"] == 2  # the table's and the private one
    assert len(_out("p2@x.test")) - before["p2@x.test"] == 1
    receipt = _out("ann@x.test")[-1].body_text
    assert receipt.count("sent to the table") == 150 and receipt.count("sent privately to P1") == 20


def _out(who: str):
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.to_addr == who).order_by(Outbound.id)))
