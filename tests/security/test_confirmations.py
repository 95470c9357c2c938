"""Confirmations that others cannot spend, nor a robot give. Five forged
mails a day in a victim's name used up the five confirmations pbem would ask
of that address: the victim's own NEWADDRESS, RESIGN and (for a domain
nobody can verify) every account command were then refused until the next
day. And any reply that did not begin with NO confirmed: a vacation
auto-reply did, and so would "I did not ask for this".

Now the cap counts per address and sending server (or verified sender), a
request from the owner's verified From or the seat's own address is always
asked, and only YES (ДА, SÌ) as the first word, or the link's button,
confirms; anything else does nothing and is answered once.

For real: the forger, Ann's provider and Bob's provider are three loopback
addresses talking SMTP to the running receiver (127.0.0.9, .2, .3); Ann's
domain's SPF names her provider, Bob's names none; a Celery worker in its
own process checks and reads every mail."""
from __future__ import annotations

import smtplib

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Confirmation, Inbound, Seat, User
from tests import dnsserver
from tests.conftest import celery_worker, smtp_receiver
from tests.mailtools import CMD, mail, outbox, wait_for

FORGER, ANNS, BOBS = "127.0.0.9", "127.0.0.2", "127.0.0.3"
DONE = ("done", "ignored", "failed")


def send_from(cfg, source: str, raw: bytes, mail_from: str, rcpt: str) -> int:
    """One SMTP conversation from the loopback address ``source``."""
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30, source_address=(source, 0)) as s:
        s.ehlo("client.test")
        s.mail(mail_from)
        assert s.rcpt(rcpt)[0] == 250
        return s.data(raw.replace(b"\n", b"\r\n"))[0]


def settled(n: int) -> list[Inbound]:
    def ready():
        with unit_of_work() as s:
            rows = list(s.exec(select(Inbound).order_by(Inbound.id)))
        return rows if len(rows) == n and all(r.status in DONE for r in rows) else None
    return wait_for(ready, 120)


def asks(to: str) -> list:
    return [o for o in outbox(to) if o.kind == "confirm"]


def _players(cfg) -> int:
    """Ann (her domain's SPF names her provider) and Bob (his domain's SPF names no server: nobody can
    verify his mail) at a running game; its id."""
    config.set_settings(cfg)
    dnsserver.records["ann.test"] = [f"v=spf1 ip4:{ANNS} -all"]
    dnsserver.records["plain.test"] = ["v=spf1 ?all"]
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@ann.test", "Ann", confirmed=True)[0]
        bob = accounts.register(s, "bob@plain.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 2, {}, seed=7)
        tables.join(s, bob, g.id)
        return g.id


def _cfg(sqlite_cfg):
    return sqlite_cfg.with_(inbound_rate=10_000, smtpd_rate_per_ip=10_000, smtpd_rate_per_sender=10_000)


def test_forged_requests_cannot_use_up_the_owners_confirmations(sqlite_cfg):
    cfg = _cfg(sqlite_cfg)
    gid = _players(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        for i in range(7):  # the forger, in Ann's and Bob's names, from its own server
            assert send_from(cfg, FORGER, mail("ann@ann.test", CMD, f"RESIGN {gid}"), "ann@ann.test", CMD) == 250
            assert send_from(cfg, FORGER, mail("bob@plain.test", CMD, "LANGUAGE it"), "bob@plain.test", CMD) == 250
        settled(14)
        forged_ann, forged_bob = len(asks("ann@ann.test")), len(asks("bob@plain.test"))
        # Ann's own NEWADDRESS, from her provider (verified), and Bob's own LANGUAGE, from his (unverified)
        assert send_from(cfg, ANNS, mail("ann@ann.test", CMD, f"NEWADDRESS {gid}"), "ann@ann.test", CMD) == 250
        assert send_from(cfg, BOBS, mail("bob@plain.test", CMD, "LANGUAGE ru"), "bob@plain.test", CMD) == 250
        rows = settled(16)
    print(f"\n7 forged requests each: Ann was asked {forged_ann} times, Bob {forged_bob}; then Ann's own NEWADDRESS "
          f"and Bob's own LANGUAGE: asked {len(asks('ann@ann.test')) - forged_ann} and "
          f"{len(asks('bob@plain.test')) - forged_bob} time(s)")
    assert forged_ann == forged_bob == 5  # the forger's server is still capped
    assert "spf=pass" in rows[-2].auth and "spf=pass" not in rows[-1].auth
    assert f"NEWADDRESS {gid}" in asks("ann@ann.test")[-1].body_text
    assert "LANGUAGE ru" in asks("bob@plain.test")[-1].body_text
    with unit_of_work() as s:
        sources = {c.source for c in s.exec(select(Confirmation))}
    assert sources == {f"ip:{FORGER}", "from:ann@ann.test", f"ip:{BOBS}"}, sources


def _held_resign(cfg, gid: int) -> str:
    """A forged RESIGN in Ann's name, held: the confirmation address of its asking mail."""
    assert send_from(cfg, FORGER, mail("ann@ann.test", CMD, f"RESIGN {gid}"), "ann@ann.test", CMD) == 250
    ask = wait_for(lambda: asks("ann@ann.test"), 60)[-1]
    return ask


def _answer(cfg, ask, body: str, subject: str | None = None, headers: dict | None = None) -> None:
    raw = mail("ann@ann.test", ask.headers["Reply-To"], body, subject or "Re: " + ask.subject,
               headers={"In-Reply-To": ask.message_id, **(headers or {})})
    assert send_from(cfg, ANNS, raw, "ann@ann.test", ask.headers["Reply-To"]) == 250


def _resigned(gid: int) -> bool:
    with unit_of_work() as s:
        ann = s.exec(select(User).where(User.email == "ann@ann.test")).one()
        return s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == ann.id)).one().resigned


def test_only_an_explicit_yes_confirms(sqlite_cfg):
    """Answers to a forged RESIGN: a vacation auto-reply (by its headers, by
    its subject), "I did not ask for this", "ok" -- none resigns, and Ann is
    answered once in all; then YES does it."""
    cfg = _cfg(sqlite_cfg)
    gid = _players(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        ask = _held_resign(cfg, gid)
        settled(1)
        before = len(outbox("ann@ann.test"))
        replies = [("I am on vacation until Monday.", "Out of office: " + ask.subject,
                    {"Auto-Submitted": "auto-replied"}),
                   ("I am on vacation until Monday.", "Vacation: " + ask.subject, None),
                   ("Sono in ferie fino a lunedì.", "In ferie: " + ask.subject, None),
                   ("I did not ask for this! Who are you?", None, None),
                   ("ok", None, None)]
        for n, (body, subject, headers) in enumerate(replies, start=2):
            _answer(cfg, ask, body, subject, headers)
            row = settled(n)[-1]
            print(f"\n{body!r} ({subject or 'Re: ...'}): {row.status}, {(row.result or '')[:70]}")
            assert not _resigned(gid), f"{body!r} confirmed the forged RESIGN"
        answers = outbox("ann@ann.test")[before:]
        print(f"five replies that are not YES -> {len(answers)} answer(s) to Ann")
        assert len(answers) == 1 and "did not begin with YES or NO" in answers[0].body_text
        _answer(cfg, ask, "Yes, please.")
        settled(7)
    assert _resigned(gid)
    assert "with YES as the first word" in ask.body_text and "any text will do" not in ask.body_text


def test_yes_in_the_readers_language(sqlite_cfg):
    """Ann reads Russian: the asking mail says ДА, and ДА confirms."""
    cfg = _cfg(sqlite_cfg)
    gid = _players(cfg)
    with unit_of_work() as s:
        ann = s.exec(select(User).where(User.email == "ann@ann.test")).one()
        ann.language, ann.language_chosen = "ru", True
        s.add(ann)
    with smtp_receiver(cfg), celery_worker(cfg):
        ask = _held_resign(cfg, gid)
        assert "ДА" in ask.body_text, ask.body_text
        settled(1)
        _answer(cfg, ask, "да\n")
        settled(2)
    assert _resigned(gid)
