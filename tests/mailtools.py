"""Helpers to write test mails and read the outbox."""
from __future__ import annotations

import itertools
import time
from email.message import EmailMessage

from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound

_n = itertools.count(1)


def mail(frm: str, to: str, body: str, subject: str = "hello", *, message_id: str | None = None,
         headers: dict | None = None) -> bytes:
    m = EmailMessage()
    m["From"] = frm
    m["To"] = to
    m["Subject"] = subject
    m["Message-ID"] = message_id or f"<t{next(_n)}.{time.time_ns()}@client.test>"
    for k, v in (headers or {}).items():
        m[k] = v
    m.set_content(body)
    return m.as_bytes()


def outbox(to: str | None = None) -> list[Outbound]:
    with unit_of_work() as s:
        q = select(Outbound).order_by(Outbound.id)
        if to:
            q = q.where(Outbound.to_addr == to)
        return list(s.exec(q))


def inbound_rows() -> list[Inbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Inbound).order_by(Inbound.id)))


def store_inbound(raw: bytes, rcpt: str, mail_from: str = "someone@client.test", *, peer: str = "127.0.0.1",
                  helo: str = "client.test") -> int | None:
    """Store a mail as the receiver would (for pipeline tests without SMTP),
    sent from ``peer`` (the tests' DNS gives every domain an SPF record that
    allows 127.0.0.0/8: tests.dnsserver). None: a duplicate."""
    from pbem.mail.inbound import Handler

    ids = Handler(enqueue=lambda _id: None).store(raw, mail_from, [rcpt], peer, helo)
    return ids[0] if ids else None


CMD = "pbem@pbem.test"  # the command address in the tests' settings


def ann_and_bob() -> tuple[int, str]:
    """A new two-seat game of the test game (seed 7) of Ann and Bob, registered if they are not yet;
    its id and the address of seat 1 (Ann's)."""
    from pbem.services.core import accounts
    from pbem.services.lobby import tables
    from pbem.store.models import Seat

    with unit_of_work() as s:
        ann = accounts.find_user(s, "ann@x.test") or accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.find_user(s, "bob@x.test") or accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, "mini", 2, {}, seed=7)
        tables.join(s, bob, g.id)
        token = s.exec(select(Seat).where(Seat.game_id == g.id, Seat.seat == 0)).one().token
        return g.id, f"game-{g.id}.{token}@pbem.test"


def process(frm: str, to: str, body: str, subject: str = "hello", **kw) -> tuple[int, str]:
    """Store a mail as the receiver would and run the pipeline on it: (inbound id, status)."""
    from pbem.mail import pipeline

    iid = store_inbound(mail(frm, to, body, subject, **kw), to, frm)
    return iid, pipeline.process_inbound(iid)


def seat_addr(gid: int, seat: int) -> str:
    from pbem.store.models import Seat

    with unit_of_work() as s:
        t = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one().token
    return f"game-{gid}.{t}@pbem.test"


def start_game(players: int = 2, hand: int = 3) -> int:
    """A running mini game by mail: Ann (seat 1) and P1..P(n-1), registered and joined."""
    from pbem.store.models import Game

    process("ann@x.test", CMD, "REGISTER Ann")
    for i in range(1, players):
        process(f"p{i}@x.test", CMD, f"register P{i}")
    process("ann@x.test", CMD, f"NEW mini players={players} hand={hand}")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    for i in range(1, players):
        process(f"p{i}@x.test", CMD, f"JOIN {gid}")
    return gid


# how long a test waits for what it expects (a worker's answer, a delivery, a server up) before it
# fails: long, because a wait ends as soon as what it waits for is there, and a busy machine (a
# loaded CI runner, two test workers on two cores) is slow to get there
PATIENCE = 180.0


def wait_for(pred, timeout: float = PATIENCE, interval: float = 0.1):
    """``pred()``'s first true value, asked every ``interval`` seconds; fails after ``timeout``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError("condition not met within %.0f s" % timeout)


def confirm(address: str, answer: str = "yes") -> tuple[int, str]:
    """Reply, from ``address``, to the newest mail that asked it to confirm
    held commands (RESIGN, NEWADDRESS, ...: pipeline._gate), as its owner
    would: to that mail's Reply-To, the confirmation's own address."""
    asks = [o for o in outbox(address) if o.kind == "confirm"]
    assert asks, f"pbem asked {address} to confirm nothing"
    ask = asks[-1]
    return process(address, ask.headers["Reply-To"], answer, subject="Re: " + ask.subject,
                   headers={"In-Reply-To": ask.message_id})


def quoted_reply(frm: str, to_mail: Outbound, text: str, *, message_id: str | None = None) -> bytes:
    """A reply to one of pbem's mails as a mail client writes it: to its
    Reply-To, "Re:" and its subject, In-Reply-To and References naming it,
    ``text`` above the quoted mail ("On ... wrote:" and ``>`` lines), with
    CRLF line ends (aiosmtpd reads DATA by CRLF lines: a long mail with bare
    LFs is one line too long for it)."""
    subject = to_mail.subject if to_mail.subject[:3].lower() == "re:" else "Re: " + to_mail.subject
    refs = f"{to_mail.headers.get('References', '')} {to_mail.message_id}".strip()
    quoted = "\n".join("> " + line if line else ">" for line in to_mail.body_text.splitlines())
    body = f"{text}\n\nOn Tue, 24 Nov 2026 at 21:00, pbem <pbem@pbem.test> wrote:\n{quoted}\n"
    raw = mail(frm, to_mail.headers["Reply-To"], body, subject, message_id=message_id,
               headers={"In-Reply-To": to_mail.message_id, "References": refs})
    return raw.replace(b"\n", b"\r\n")  # as SMTP carries it (smtplib sends bytes as they are)


def after_marker(body: str) -> str:
    """A mail's text from its summary on: every mail pbem sends opens with the marker line ("please type your
    reply above this line"), and its one-line summary comes right under it."""
    from pbem.store.outbox import MARKER

    head, sep, rest = body.partition(MARKER + "\n\n")
    assert sep and not head.strip(), f"the mail does not open with the marker: {body[:200]!r}"
    return rest
