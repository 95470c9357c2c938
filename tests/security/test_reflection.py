"""pbem is no reflector. A mail from an unknown address with no command-like
line was answered with every line echoed as "ignored" (150 spam lines: 17.7
KB to the forged address), and the mail asking an address's owner to confirm
a forged REGISTER listed the forger's text and links. Now an unknown sender
gets the short fixed answer whatever the mail holds, no mail of pbem repeats
text it cannot tie to its sender, and a confirmation to an address without
an account names only ``REGISTER <name>``.

For real: the forger's mails go over SMTP (from 127.0.0.9, a server no
test domain's SPF names) to the running receiver, a Celery worker reads
them, and the answers are read from the outbox as they would be mailed."""
from __future__ import annotations

import smtplib

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound
from tests import dnsserver
from tests.conftest import celery_worker, smtp_receiver
from tests.mailtools import CMD, mail, wait_for

FORGER = "127.0.0.9"
DONE = ("done", "ignored", "failed")
SPAM = [f"spamline {i:03d}: cheap pills at http://evil.example/{i}" for i in range(140)] + [
    "CHEAP PILLS", "BUY NOW", "Helpp me", "Regster to win", "http://evil.example/click", "PAY UP", "WINNER",
    "JOINN http://evil.example", "GAMEZ", "STOPP"]


def send(cfg, raw: bytes, mail_from: str, rcpt: str = CMD) -> int:
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30, source_address=(FORGER, 0)) as s:
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


def mails_to(to: str) -> list[Outbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.to_addr == to).order_by(Outbound.id)))


def size(o: Outbound) -> int:
    return len(o.subject) + len(o.body_text.encode()) + len((o.body_html or "").encode())


def echoes(o: Outbound) -> list[str]:
    text = o.subject + o.body_text + (o.body_html or "")
    return [w for w in ("evil.example", "spamline", "pills", "CHEAP", "Helpp", "Regster", "JOINN", "GAMEZ", "STOPP",
                        "WINNER", "PAY UP", "BUY NOW") if w in text]


def test_nothing_of_a_strangers_or_a_forgers_mail_comes_back(sqlite_cfg):
    cfg = sqlite_cfg.with_(inbound_rate=10_000, smtpd_rate_per_ip=10_000, smtpd_rate_per_sender=10_000)
    config.set_settings(cfg)
    for d in ("far.test", "victim.test"):
        dnsserver.records[d] = ["v=spf1 ip4:192.0.2.1 -all"]  # the forger's server is not theirs
    with unit_of_work() as s:
        accounts.register(s, "vic@victim.test", "Vic", confirmed=True)
    cases = [
        ("a stranger, 150 lines and no command", "eve@far.test", "\n".join(SPAM)),
        ("a stranger, 140 lines, none like a command", "ivy@far.test", "\n".join(SPAM[:140])),
        ("a stranger, HELP among them", "hal@far.test", "HELP iaww\n" + "\n".join(SPAM)),
        ("a stranger, HELP with a made-up topic", "hel@far.test", "HELP http://evil.example/help"),
        ("a stranger registers with a name that is an advert", "reg@far.test",
         "REGISTER Cheap pills at http://evil.example/buy\nJOIN 1\n" + "\n".join(SPAM)),
        ("a forged From of a registered player", "vic@victim.test", "GAMES\n" + "\n".join(SPAM)),
        ("a forged From of a registered player, a command held", "vic@victim.test",
         "LANGUAGE it\n" + "\n".join(SPAM)),
    ]
    with smtp_receiver(cfg), celery_worker(cfg):
        for n, (what, frm, body) in enumerate(cases, start=1):
            assert send(cfg, mail(frm, CMD, body, subject="hello"), frm) == 250
            settled(n)
    report = {}
    for what, frm, _body in cases:
        out = mails_to(frm)
        report[what] = [(o.kind, size(o), echoes(o)) for o in out]
    print("\n" + "\n".join(f"{k}: {v}" for k, v in report.items()))
    for what, answers in report.items():
        assert answers, what
        assert all(not e for _k, _s, e in answers), (what, answers)
    for what in ("a stranger, 150 lines and no command", "a stranger, 140 lines, none like a command"):
        assert [k for k, _s, _e in report[what]] == ["reply"] and report[what][0][1] < 2500, report[what]
    # the stranger's REGISTER: asked, naming only REGISTER <name>
    ask = [o for o in mails_to("reg@far.test") if o.kind == "confirm"]
    assert len(ask) == 1 and "REGISTER <name>" in ask[0].body_text and "REGISTER <name>" in ask[0].subject
    assert len(mails_to("reg@far.test")) == 1  # and nothing else
    # HELP is answered with the help, and nothing else of the mail
    assert "HELP" in mails_to("hal@far.test")[0].body_text
