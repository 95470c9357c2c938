"""Trust: moves count only from the seat's token address (or
from the registered From where the game allows it); tokens are long, random,
rotatable by the player and never logged in clear; optional DKIM/SPF check;
the receiver's rate limits. Real SMTP over loopback where the receiver is
involved; the real pipeline everywhere."""
from __future__ import annotations

import logging
import smtplib
from pathlib import Path

from sqlmodel import select

from pbem import config
from pbem.mail import pipeline
from pbem.services.core import seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Seat
from pbem.tasks import deliver_one
from tests.conftest import send_mail, smtp_receiver
from tests.mail.test_pipeline import CMD, last_to, run, seat_addr, start_game
from tests.mailtools import confirm, mail, outbox, store_inbound

EML = Path(__file__).resolve().parent.parent / "fixtures" / "eml"


def _moves(gid):
    with unit_of_work() as s:
        return [m.notation for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def test_tokens_are_long_random_and_exact():
    toks = {seating.new_token() for _ in range(2000)}
    assert len(toks) == 2000
    assert all(len(t) == 32 and set(t) <= set("abcdefghijklmnopqrstuvwxyz234567") for t in toks)  # 160 bits


def test_newaddress_rotates_the_seat_token(sqlite_cfg):
    gid = start_game(2)
    old = seat_addr(gid, 0)
    # a mail already written to the old address, still waiting in the queue
    waiting = store_inbound(mail("ann@x.test", old, "wait"), old, "ann@x.test")
    run("ann@x.test", old, "NEWADDRESS")
    assert seat_addr(gid, 0) == old  # it cannot be undone by mail: pbem asks first
    confirm("ann@x.test")
    new = seat_addr(gid, 0)
    assert new != old
    receipt = last_to("ann@x.test")
    assert new in receipt.body_text and receipt.headers["Reply-To"] == new
    assert "old one no longer works" in receipt.body_text
    # the old address is refused with a clear answer, now and for the mail that was waiting
    assert pipeline.process_inbound(waiting) == "done"
    assert "not valid any more" in last_to("ann@x.test").body_text
    assert _moves(gid) == []
    with smtp_receiver(sqlite_cfg):
        with smtplib.SMTP("127.0.0.1", sqlite_cfg.smtpd_port, timeout=120) as c:
            c.ehlo()
            c.mail("ann@x.test")
            code, text = c.rcpt(old)
            assert code == 550 and b"renewed" in text
            assert c.rcpt(new)[0] == 250
    # the new address works; NEWADDRESS on the command address works too, for seat holders only
    run("ann@x.test", new, "wait")
    assert _moves(gid) == ["wait"]
    run("ann@x.test", CMD, f"NEWADDRESS {gid}")
    confirm("ann@x.test")
    assert seat_addr(gid, 0) not in (old, new) and seat_addr(gid, 0) in last_to("ann@x.test").body_text
    run("p1@x.test", CMD, "REGISTER P1")
    before = seat_addr(gid, 0)
    run("zed@x.test", CMD, f"REGISTER Zed\nNEWADDRESS {gid}")
    confirm("zed@x.test")
    assert "you have no seat" in last_to("zed@x.test").body_text and seat_addr(gid, 0) == before


def test_moves_from_the_registered_address_only_where_the_game_allows(sqlite_cfg):
    gid = start_game(2)
    subject = f"Re: [pbem #{gid} ply 0] your turn"
    run("ann@x.test", CMD, "wait", subject=subject)
    assert _moves(gid) == [] and "is not a command" in last_to("ann@x.test").body_text
    with unit_of_work() as s:
        g = s.get(Game, gid)
        g.allow_from_address = True
        s.add(g)
    run("ann@x.test", CMD, "wait", subject=subject)
    assert _moves(gid) == ["wait"]
    # never for someone without a seat there, nor for the other seat's moves
    run("zed@x.test", CMD, "REGISTER Zed\nwait", subject=subject)
    assert _moves(gid) == ["wait"]


def test_dkim_spf_check_for_mail_trusted_by_its_from(sqlite_cfg):
    """Under PBEM_REQUIRE_AUTH, mail on the command address whose From pbem's
    own check could not verify is dropped unanswered; an Authentication-Results
    header the sender wrote counts for nothing, even one in our name (the
    receiver deletes those). The tests' DNS (tests/dnsserver.py) is real."""
    gid = start_game(2)
    config.set_settings(sqlite_cfg.with_(require_auth="dkim-or-spf", authserv_id="mx.pbem.test"))
    forged = (EML / "forged_from_on_command.eml").read_bytes().replace(b"@@GAME@@", str(gid).encode())
    iid = store_inbound(forged, CMD, "attacker@evil.test")  # an SPF pass, for evil.test: not Ann's domain
    n_out = len(outbox())
    assert pipeline.process_inbound(iid) == "ignored"
    with unit_of_work() as s:
        assert not s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one().resigned
        assert "spf=pass smtp.mailfrom=evil.test" in s.get(Inbound, iid).auth
    assert len(outbox()) == n_out  # a forged mail is not answered
    # a pass written by the sender counts for nothing, in our name or another's
    for serv in ("mx.evil.test", "mx.pbem.test"):
        raw = mail("ann@x.test", CMD, f"STATUS {gid}", headers={
            "Authentication-Results": f"{serv}; dkim=pass header.d=x.test; spf=pass smtp.mailfrom=ann@x.test"})
        iid = store_inbound(raw, CMD, "ann@x.test", peer="192.0.2.7")  # x.test's SPF allows loopback only
        assert pipeline.process_inbound(iid) == "ignored"
        with unit_of_work() as s:
            row = s.get(Inbound, iid)
            assert b"mx.pbem.test;" not in row.raw and row.auth.startswith("mx.pbem.test; spf=fail")
    # sent by x.test's own server (SPF pass, aligned with the From): trusted
    _, st = run("ann@x.test", CMD, f"STATUS {gid}")
    assert st == "done"
    # the seat's token address does not need it: the token is the credential
    iid = store_inbound(mail("p1@x.test", seat_addr(gid, 1), "STATUS"), seat_addr(gid, 1), "p1@x.test",
                        peer="192.0.2.7")
    assert pipeline.process_inbound(iid) == "done"


def test_receiver_rate_limits_over_smtp(sqlite_cfg):
    cfg = sqlite_cfg.with_(smtpd_rate_per_sender=3, smtpd_rate_per_ip=5)
    config.set_settings(cfg)
    with smtp_receiver(cfg):
        codes = [send_mail(cfg, mail("ann@x.test", CMD, "HELP"), "ann@x.test", CMD) for _ in range(4)]
        assert codes[:3] == [250] * 3
        with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=120) as c:
            c.ehlo()
            code, text = c.mail("ann@x.test")
            assert code == 451 and b"Too many" in text
            assert c.mail("bob@x.test")[0] == 250  # another sender still may
            c.rset()
            assert c.mail("carl@x.test")[0] == 250
            c.rset()
            code, _ = c.mail("dave@x.test")  # but this client IP has had its five
            assert code == 451
    with unit_of_work() as s:
        assert len(list(s.exec(select(Inbound)))) == 3


def test_no_token_in_any_log(sqlite_cfg, caplog):
    caplog.set_level(logging.DEBUG)
    with smtp_receiver(sqlite_cfg):
        gid = start_game(2)
        with unit_of_work() as s:
            tokens = [x.token for x in s.exec(select(Seat).where(Seat.game_id == gid))]
        addr0, addr1 = seat_addr(gid, 0), seat_addr(gid, 1)
        assert send_mail(sqlite_cfg, mail("ann@x.test", addr0, "wait"), "ann@x.test", addr0) == 250
        assert send_mail(sqlite_cfg, mail("p1@x.test", addr1, "bogus move"), "p1@x.test", addr1) == 250
        # a wrong token, and a known one with a typo
        with smtplib.SMTP("127.0.0.1", sqlite_cfg.smtpd_port, timeout=120) as c:
            c.ehlo()
            c.mail("eve@x.test")
            typo = tokens[0][:-1] + ("b" if tokens[0].endswith("a") else "a")  # never the token itself
            assert c.rcpt(addr0.replace(tokens[0], typo))[0] == 550
        with unit_of_work() as s:
            ids = [r.id for r in s.exec(select(Inbound).where(Inbound.status == "received"))]
        for i in ids:
            pipeline.process_inbound(i)
        for o in outbox():
            deliver_one(o.id)
    assert _moves(gid) == ["wait"]
    text = caplog.text.lower()
    assert "recip" in text and "game-" in text  # the receiver did log its recipients...
    for t in tokens:
        assert t not in text  # ...but never a token
    with unit_of_work() as s:
        for r in s.exec(select(Inbound)):
            assert not any(t in (r.result or "") + (r.error or "") for t in tokens)
