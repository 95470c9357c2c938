"""Deliverability: every mail is DKIM-signed, sent with its own
envelope sender (VERP) and a one-click List-Unsubscribe; bounces come back
over SMTP to that sender, are read (a corpus of real shapes in
tests/fixtures/eml/bounces), and enough of them mark the address failing:
its mail is held, its tables are told once, and a login or a mail from it
clears the mark."""
from __future__ import annotations

import re
from email import message_from_bytes
from pathlib import Path

import pytest
from sqlmodel import select

from pbem import config, tasks
from pbem.bench.env import free_port
from pbem.mail import bounces, pipeline
from pbem.store import outbox as outbox_store
from pbem.store.addresses import parse_recipient, verp_address, verp_valid
from pbem.store.db import unit_of_work
from pbem.store.models import Bounce, Inbound, Outbound, Post, User
from tests import dnsserver
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, mail, outbox, process, seat_addr, start_game, store_inbound, wait_for
from tests.reliability.chaos import Sink

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "eml" / "bounces"
EXPECTED = {  # file -> (kind, status) of the one failure it reports, or None: not a bounce
    "postfix_hard.eml": ("hard", "5.1.1"), "postfix_delayed.eml": ("soft", "4.4.1"),
    "exim_report.eml": ("hard", "5.0.0"), "exim_text.eml": ("hard", "5.1.1"),
    "gmail_hard.eml": ("hard", "5.1.1"), "gmail_soft.eml": ("soft", "4.2.2"),
    "outlook_ndr.eml": ("hard", "5.1.10"), "qmail.eml": ("hard", "5.1.1"),
    "vacation.eml": None, "delivered.eml": None,
}


def _eml(name: str, rcpt: str, verp: str, mid: str) -> bytes:
    return ((CORPUS / name).read_bytes().replace(b"@@RCPT@@", rcpt.encode()).replace(b"@@VERP@@", verp.encode())
            .replace(b"@@MID@@", mid.encode()).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))  # as SMTP carries it


def _user(email: str) -> User:
    with unit_of_work() as s:
        return s.exec(select(User).where(User.email == email)).one()


def _last_to(email: str, kind: str | None = None) -> Outbound:
    return [o for o in outbox(email) if kind is None or o.kind == kind][-1]


def _verp(row: Outbound) -> str:
    cfg = config.settings()
    return verp_address(row.id, cfg.domain, cfg.secret_key)


# ---------------------------------------------------------------- reading bounces


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_corpus_of_bounces_is_read(name):
    mid = "<pbem.board.1.2.00aa11bb22cc33dd44ee55ff@pbem.test>"
    msg = message_from_bytes(_eml(name, "bob@example.org", "bounce+12.0123456789abcdef@pbem.test", mid))
    found = bounces.failures(msg)
    want = EXPECTED[name]
    if want is None:
        assert found == []
    else:
        assert [(f.address, f.kind, f.status) for f in found] == [("bob@example.org", *want)]
        assert found[0].diagnostic  # what the remote server said, for the admins and the banner
        assert mid in bounces.returned_ids(msg)  # how a bounce that is not to a VERP address names our mail
    assert {p.name for p in CORPUS.glob("*.eml")} == set(EXPECTED)


def test_a_verp_address_names_its_mail_and_cannot_be_made_up():
    addr = verp_address(42, "pbem.test", "s3cret")
    who = parse_recipient(addr.upper(), "pbem.test", "pbem")
    assert who.kind == "bounce" and who.outbound_id == 42 and verp_valid(who, "s3cret")
    assert not verp_valid(who, "another-secret")
    forged = parse_recipient(addr.replace("bounce+42.", "bounce+43."), "pbem.test", "pbem")
    assert forged.kind == "bounce" and not verp_valid(forged, "s3cret")


# ---------------------------------------------------------------- signing, VERP, unsubscribe: the real relay


class EnvelopeSink(Sink):
    """The relay, keeping each mail's envelope sender too."""

    def __init__(self, port: int):
        super().__init__(port)
        self.senders: list[str] = []

    async def handle_DATA(self, server, session, envelope):
        self.senders.append(envelope.mail_from)
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def signing_relay(sqlite_cfg, tmp_path):
    """A real SMTP relay on loopback, and a DKIM key for pbem.test published on the tests' DNS server."""
    key = tmp_path / "dkim.pem"
    key.write_bytes(dnsserver.publish_key("pbem2026", "pbem.test"))
    sink = EnvelopeSink(free_port())
    sink.start()
    config.set_settings(sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{sink.port}?timeout=5",
                                         dkim_key_file=str(key), dkim_selector="pbem2026"))
    outbox_store._inline_paused_until = 0.0
    try:
        yield sink
    finally:
        sink.stop()
        config.set_settings(sqlite_cfg)


def test_mail_through_the_relay_is_dkim_signed_verp_addressed_and_one_click_unsubscribable(signing_relay):
    import dkim

    from pbem.mail import senders

    gid = start_game(2)
    iid = store_inbound(mail("ann@x.test", seat_addr(gid, 0), "wait"), seat_addr(gid, 0), "ann@x.test")
    assert pipeline.process_inbound(iid, deliver=tasks.deliver_inline) == "done"
    board = _last_to("p1@x.test", "board")
    assert board.status == "sent"
    i = [m[0] for m in signing_relay.got].index(board.message_id)
    raw, sender = signing_relay.raw[i], signing_relay.senders[i]
    cfg = config.settings()
    senders._resolver(cfg)  # dkimpy asks the tests' DNS server for pbem2026._domainkey.pbem.test
    assert dkim.verify(raw), "the signature verifies against the published key"
    assert b"d=pbem.test" in raw and b"s=pbem2026" in raw
    assert not dkim.verify(raw.replace(b"Subject: ", b"Subject: X", 1))  # and covers the subject
    assert sender == verp_address(board.id, "pbem.test", cfg.secret_key)
    msg = message_from_bytes(raw)
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    urls = re.findall(r"<([^>]+)>", msg["List-Unsubscribe"])
    assert urls[0].startswith(f"{cfg.base_url}/unsubscribe/") and urls[1] == "mailto:pbem@pbem.test?subject=STOP&body=STOP"
    signature = re.sub(rb"\s+", b"", raw.split(b"DKIM-Signature:", 1)[1].split(b"\r\n\r\n")[0])
    signed = re.search(rb"h=([^;]+);", signature).group(1).lower().split(b":")
    assert {b"from", b"subject", b"list-unsubscribe", b"list-unsubscribe-post"} <= set(signed)  # RFC 8058 §4
    reply = _last_to("ann@x.test", "reply")  # the answer to the player's own mail: no unsubscribe
    assert "List-Unsubscribe" not in reply.headers


def test_the_one_click_post_stops_the_mail_and_a_get_only_asks(sqlite_cfg):
    from pbem.web import create_app

    gid = start_game(2)
    process("ann@x.test", seat_addr(gid, 0), "wait")
    board = _last_to("p1@x.test", "board")
    url = re.search(r"<(https?://[^>]+)>", board.headers["List-Unsubscribe"]).group(1)
    path = url.split("://", 1)[1].split("/", 1)[1]
    client = create_app(sqlite_cfg).test_client()
    page = client.get("/" + path)
    assert page.status_code == 200 and b"<button" in page.data and not _user("p1@x.test").stopped
    # the mailbox provider's POST (RFC 8058): no cookie, no CSRF token
    r = client.post("/" + path, data="List-Unsubscribe=One-Click",
                    content_type="application/x-www-form-urlencoded")
    assert r.status_code == 200 and b"Unsubscribed" in r.data and _user("p1@x.test").stopped
    other = "/" + path.rsplit(".", 1)[0] + "." + "0" * 32  # a made-up token: refused, kindly, nothing done
    process("p1@x.test", CMD, "STOP OFF")
    r = client.post(other)
    assert r.status_code == 404 and b"STOP" in r.data and not _user("p1@x.test").stopped
    ann = _user("ann@x.test")  # scoped: p1's link for boards is not Ann's, nor another kind's
    for wrong in (path.replace(path.split("/")[1].split(".")[0], str(ann.id), 1), path.replace(".board.", ".notice.")):
        assert client.post("/" + wrong).status_code == 404
    assert not _user("ann@x.test").stopped and not _user("p1@x.test").stopped


# ---------------------------------------------------------------- bounces through the real receiver


@pytest.fixture
def service(any_cfg, on_redis):
    cfg = any_cfg if any_cfg.database_url.startswith("sqlite") else on_redis(any_cfg)
    cfg = cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    return cfg


def test_a_dsn_over_smtp_marks_the_address_holds_its_mail_tells_the_table_and_a_login_clears_it(service):
    from pbem.services.identity import auth
    from pbem.web import create_app
    from tests.web.conftest import CSRF_RE

    cfg = service
    gid = start_game(2)
    process("ann@x.test", seat_addr(gid, 0), "wait")
    board = _last_to("p1@x.test", "board")
    raw = _eml("postfix_hard.eml", "p1@x.test", _verp(board), board.message_id)
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, raw, "", _verp(board)) == 250  # the null sender, to the mail's own address
        wait_for(lambda: _user("p1@x.test").mail_failing_at is not None, 60)
        # a bounce address nobody made is refused at RCPT
        bad = _verp(board).replace(_verp(board).split(".")[1][:16], "0" * 16)
        assert send_mail(cfg, raw, "", bad) == 550
    p1 = _user("p1@x.test")
    assert "5.1.1" in p1.mail_failing_reason and "User unknown" in p1.mail_failing_reason
    with unit_of_work() as s:
        b = s.exec(select(Bounce)).all()
        assert [(x.address, x.kind, x.status, x.outbound_id) for x in b] == [("p1@x.test", "hard", "5.1.1", board.id)]
        assert s.exec(select(Inbound.status).order_by(Inbound.id)).all()[-1] == "ignored"  # recorded, never answered
        told = s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice")).all()
    assert [p.body.split(";")[0] for p in told] == ["P1's mail bounces, so pbem cannot reach them by mail"]
    notice = _last_to("ann@x.test", "notice")
    assert "P1's mail bounces" in notice.body_text and "no-move policy" in notice.body_text
    assert not [o for o in outbox("p1@x.test") if o.kind == "notice" and "bounces" in o.body_text]

    # mail to the failing address is held, not delivered: a new move's board, and no reminder at all
    before = len(outbox("p1@x.test"))
    process("p1@x.test", seat_addr(gid, 1), "wait")  # ... from another machine? no: a mail from it clears
    assert _user("p1@x.test").mail_failing_at is None
    with unit_of_work() as s:
        from pbem.services.identity import deliverability

        deliverability.record(s, "p1@x.test", "hard", status="5.1.1")  # bounced again
    assert len([o for o in outbox("ann@x.test") if o.kind == "notice" and "bounces" in o.body_text]) == 2
    process("ann@x.test", seat_addr(gid, 0), "wait")
    held = outbox("p1@x.test")[before:]
    assert held and {o.status for o in held if o.kind == "board"} == {"held"}
    assert tasks.deliver_batch([o.id for o in held if o.status == "held"]) == {
        o.id: ("held", 0.0) for o in held if o.status == "held"}  # the send task does not take them
    from pbem.services.core import notify
    from pbem.store.models import Game, Seat

    from datetime import datetime, timedelta, timezone

    n = len(outbox("p1@x.test"))
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one()
        notify.queue_reminder(s, g, seat, datetime.now(timezone.utc) + timedelta(hours=4))
    assert len(outbox("p1@x.test")) == n  # no reminder to a failing address

    # a login clears the mark: the login link is sent even to a failing address
    app = create_app(cfg)
    client = app.test_client()
    with unit_of_work() as s:
        token = auth.mail_link(s, "p1@x.test")
    assert _last_to("p1@x.test", "login").status != "held"
    page = client.get(f"/auth/{token}")
    r = client.post(f"/auth/{token}", data={"csrf_token": CSRF_RE.search(page.get_data(as_text=True)).group(1)})
    assert r.status_code == 302 and _user("p1@x.test").mail_failing_at is None
    with unit_of_work() as s:  # mail to P1 goes out again
        notify.queue_notice(s, s.get(Game, gid), "a notice", "Hello again.", seats={1})
    assert _last_to("p1@x.test", "notice").status == "queued"


def test_soft_bounces_mark_only_when_repeated_and_auto_replies_never(sqlite_cfg):
    gid = start_game(2)
    process("ann@x.test", seat_addr(gid, 0), "wait")
    board = _last_to("p1@x.test", "board")
    verp = _verp(board)
    for n in range(3):
        vac = store_inbound(_eml("vacation.eml", "p1@x.test", verp, board.message_id).replace(
            b"<vacation.", f"<vacation{n}.".encode()), verp, "p1@x.test")
        assert pipeline.process_inbound(vac) == "ignored"
    assert _user("p1@x.test").mail_failing_at is None
    for n in range(3):
        iid = store_inbound(_eml("gmail_soft.eml", "p1@x.test", verp, board.message_id).replace(
            b"9f8bSMTPIN", f"{n}SMTPIN".encode()), verp, "")
        assert pipeline.process_inbound(iid) == "ignored"
        assert (_user("p1@x.test").mail_failing_at is not None) == (n == 2), n
    assert "3 temporary failures in 7 days" in _user("p1@x.test").mail_failing_reason


def test_a_bounce_elsewhere_counts_only_if_it_quotes_our_mail(sqlite_cfg):
    gid = start_game(2)
    process("ann@x.test", seat_addr(gid, 0), "wait")
    board = _last_to("p1@x.test", "board")
    forged = _eml("qmail.eml", "p1@x.test", CMD, "<pbem.board.1.2.00aa11bb22cc33dd44ee55ff@pbem.test>")
    assert pipeline.process_inbound(store_inbound(forged, CMD, "")) == "ignored"
    assert _user("p1@x.test").mail_failing_at is None  # names no mail of ours: nobody is marked
    real = _eml("qmail.eml", "p1@x.test", CMD, board.message_id).replace(b"Date: 24", b"Date: 25")
    assert pipeline.process_inbound(store_inbound(real, CMD, "")) == "ignored"
    assert _user("p1@x.test").mail_failing_at is not None


def test_dkim_keygen_writes_a_key_whose_printed_record_verifies_the_mail_it_signs(sqlite_cfg, tmp_path):
    import dkim
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.mail import senders
    from pbem.mail.outbound import dkim_sign

    key = tmp_path / "k" / "sel1.pem"
    run = CliRunner().invoke(main, ["dkim", "keygen", "--selector", "sel1", "--domain", "keys.test", "--out", str(key)])
    assert run.exit_code == 0, run.output
    assert key.stat().st_mode & 0o777 == 0o600
    record = re.search(r'^(sel1\._domainkey\.keys\.test)\. IN TXT \( (.+) \)$', run.output, re.M)
    dnsserver.records[record.group(1)] = ["".join(re.findall(r'"([^"]*)"', record.group(2)))]
    again = CliRunner().invoke(main, ["dkim", "keygen", "--selector", "sel1", "--out", str(key)])
    assert again.exit_code != 0 and "exists; nothing was written" in again.output  # a key is never overwritten
    bad = CliRunner().invoke(main, ["dkim", "keygen", "--selector", "no good", "--out", str(tmp_path / "x.pem")])
    assert bad.exit_code != 0 and "e.g. pbem2026" in bad.output
    cfg = sqlite_cfg.with_(dkim_key_file=str(key), dkim_selector="sel1", dkim_domain="keys.test")
    data = mail("pbem@pbem.test", "ann@x.test", "Your turn.").replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    senders._resolver(cfg)
    assert dkim.verify(dkim_sign(data, cfg) + data)


def test_a_player_whose_mail_bounces_sees_a_banner(sqlite_cfg):
    from pbem.services.identity import deliverability
    from pbem.web import create_app
    from tests.web.conftest import log_in

    gid = start_game(2)
    with unit_of_work() as s:
        deliverability.record(s, "p1@x.test", "hard", status="5.1.1", diagnostic="550 5.1.1 User unknown")
    client = create_app(sqlite_cfg).test_client()
    assert b'id="mail-failing"' not in client.get("/lobby").data  # a visitor sees none
    log_in(client, _user("p1@x.test").id)
    page = client.get("/lobby").get_data(as_text=True)
    assert 'id="mail-failing"' in page and "Mail to p1@x.test bounces" in page and "5.1.1" in page
    process("ann@x.test", seat_addr(gid, 0), "wait")  # a board for P1: held, and readable on the web
    held = _last_to("p1@x.test", "board")
    assert held.status == "held" and f'/outbox/{held.id}"' in client.get("/outbox").get_data(as_text=True)
    other = create_app(sqlite_cfg).test_client()
    log_in(other, _user("ann@x.test").id)
    assert b'id="mail-failing"' not in other.get("/lobby").data
