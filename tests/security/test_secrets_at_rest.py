"""A game's password is kept only as a salted hash, as the docs promise. It
stayed in clear in ``confirmations.commands`` (a JOIN held for its owner's
confirmation) and in the stored raw mail. Now a held command keeps it sealed
(encrypted with a key derived from the installation's secret) until its
owner answers, then only ``<password>``; the stored mail has it replaced
once read (or, where a part still holds it once decoded, loses its body);
receipts and the mail's record show ``<password>``.

For real: the mails go over SMTP to the running receiver, from loopback
addresses whose domains' SPF does or does not name them, and a Celery worker
reads them; what is stored is read back from the database."""
from __future__ import annotations

import smtplib
from email.message import EmailMessage

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts
from pbem.store.db import unit_of_work
from pbem.store.models import Confirmation, Game, Inbound, Outbound, Seat
from pbem.services.upkeep import retention
from tests import dnsserver
from tests.conftest import celery_worker, smtp_receiver
from tests.mailtools import CMD, mail, wait_for

WORD = "owl42-Secret"
DONE = ("done", "ignored", "failed")


def send(cfg, raw: bytes, mail_from: str, rcpt: str = CMD, source: str = "127.0.0.1") -> int:
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30, source_address=(source, 0)) as s:
        s.ehlo("client.test")
        s.mail(mail_from)
        assert s.rcpt(rcpt)[0] == 250
        return s.data(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))[0]


def settled(n: int) -> list[Inbound]:
    def ready():
        with unit_of_work() as s:
            rows = list(s.exec(select(Inbound).order_by(Inbound.id)))
        return rows if len(rows) == n and all(r.status in DONE for r in rows) else None
    return wait_for(ready, 120)


def confirmations_() -> list[Confirmation]:
    with unit_of_work() as s:
        return list(s.exec(select(Confirmation).order_by(Confirmation.id)))


def html_and_base64(frm: str, body: str) -> bytes:
    """A mail as a webmail writes it: text and HTML, both base64."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = frm, CMD, "join", "<b64.1@client.test>"
    m.set_content(body, cte="base64")
    m.add_alternative(f"<p>{body}</p>", subtype="html", cte="base64")
    return m.as_bytes()


def test_a_games_password_is_not_kept_as_written(sqlite_cfg):
    cfg = sqlite_cfg.with_(inbound_rate=10_000, smtpd_rate_per_ip=10_000, smtpd_rate_per_sender=10_000)
    config.set_settings(cfg)
    dnsserver.records["far.test"] = ["v=spf1 ip4:192.0.2.1 -all"]  # Bob's mail cannot be verified
    with unit_of_work() as s:
        for email, name in (("ann@x.test", "Ann"), ("bob@far.test", "Bob"), ("cat@x.test", "Cat")):
            accounts.register(s, email, name, confirmed=True)
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send(cfg, mail("ann@x.test", CMD, f"NEW mini players=3 password={WORD}"), "ann@x.test") == 250
        settled(1)
        with unit_of_work() as s:
            gid = s.exec(select(Game.id)).one()
        assert send(cfg, mail("bob@far.test", CMD, f"JOIN {gid} {WORD}"), "bob@far.test", source="127.0.0.9") == 250
        settled(2)
        held = confirmations_()
        ask = [o for o in _outbox("bob@far.test") if o.kind == "confirm"][-1]
        assert send(cfg, mail("bob@far.test", ask.headers["Reply-To"], "YES", "Re: " + ask.subject,
                              headers={"In-Reply-To": ask.message_id}), "bob@far.test", ask.headers["Reply-To"],
                    source="127.0.0.9") == 250
        settled(3)
        assert send(cfg, html_and_base64("cat@x.test", f"JOIN {gid} {WORD}"), "cat@x.test") == 250
        rows = settled(4)
    with unit_of_work() as s:
        seated = sorted(x.seat for x in s.exec(select(Seat).where(Seat.game_id == gid)))
    assert seated == [0, 1, 2]  # Bob's confirmed JOIN opened its seal; Cat's base64 mail was read
    stored = {f"inbound {r.id} raw": r.raw for r in rows}
    stored.update({f"inbound {r.id} result": (r.result or "").encode() for r in rows})
    stored.update({f"confirmation {c.id} while held": c.commands.encode() for c in held})
    stored.update({f"confirmation {c.id} answered": c.commands.encode() for c in confirmations_()})
    found = [where for where, value in stored.items() if WORD.encode() in value]
    print(f"\n{len(stored)} stored values read; the password in: {found or 'none'}")
    print("held:", held[0].commands[:60] + "...", "| answered:", confirmations_()[0].commands)
    assert not found
    assert confirmations_()[0].commands == f"JOIN {gid} <password>"
    assert f"JOIN {gid} <password>" in ask.body_text and WORD not in ask.body_text + ask.subject
    assert b"<password>" in rows[0].raw and b"<password>" in rows[1].raw
    assert b"pbem removed this mail's text" in rows[3].raw  # base64 parts: the body goes, the header stays
    assert b"Message-ID: <b64.1@client.test>" in rows[3].raw
    # the receipts show <password>; the creator's answer to NEW says the word once, to her alone
    receipts = [o for o in _outbox() if o.kind == "reply"]
    assert [o.to_addr for o in receipts if WORD in o.body_text] == ["ann@x.test"]
    assert any(f"JOIN {gid} <password>" in o.body_text for o in receipts if o.to_addr == "cat@x.test")


def test_a_confirmation_nobody_answered_loses_its_sealed_word_at_the_next_prune(sqlite_cfg):
    from datetime import timedelta

    from pbem.mail import pipeline
    from pbem.store.models import utcnow
    from tests.mailtools import store_inbound

    config.set_settings(sqlite_cfg)
    dnsserver.records["far.test"] = ["v=spf1 ip4:192.0.2.1 -all"]
    with unit_of_work() as s:
        accounts.register(s, "bob@far.test", "Bob", confirmed=True)
    iid = store_inbound(mail("bob@far.test", CMD, f"JOIN 1 {WORD}"), CMD, "bob@far.test", peer="192.0.2.66")
    assert pipeline.process_inbound(iid) == "done"
    (row,) = confirmations_()
    assert "\u27e6" in row.commands and WORD not in row.commands
    retention.prune(now=utcnow() + timedelta(hours=25))
    assert confirmations_()[0].commands == "JOIN 1 <password>"


def _outbox(to: str | None = None) -> list[Outbound]:
    with unit_of_work() as s:
        q = select(Outbound).order_by(Outbound.id)
        return list(s.exec(q.where(Outbound.to_addr == to) if to else q))
