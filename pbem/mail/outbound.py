"""Outgoing mail: render (Jinja2, text + HTML with inlined CSS), queue in the
outbox inside the caller's transaction, and deliver (SMTP relay or maildir)."""
from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
import secrets
import smtplib
import ssl
import time
from dataclasses import dataclass, field
from datetime import datetime
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from email.policy import Compat32
from email.utils import formataddr, format_datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy import event, insert
from sqlmodel import Session

from pbem.config import TEMPLATES, Settings, settings
from pbem.store.models import Outbound, User, utcnow

from .addresses import make_message_id, redact, thread_root_id
from .quotes import MARKER

log = logging.getLogger("pbem.mail")
LOOP_HEADER = "X-PBEM-Loop"


@lru_cache(maxsize=1)
def jinja() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def _ctx(context: dict) -> dict:
    base = dict(summary="", marker=MARKER, title="", greeting="", paragraphs=[], results=[], not_applied=[],
                ignored="", ignored_lines=[],
                board_text="", board_html="", board_title="", help_text="", footer="")
    base.update(context)
    return base


def render_text(context: dict) -> str:
    return jinja().get_template("mail/message.txt").render(**_ctx(context))


@lru_cache(maxsize=1)
def _inliner():
    import css_inline

    return css_inline.CSSInliner()


def render_html(context: dict) -> str:
    html = jinja().get_template("mail/message.html").render(**_ctx(context))
    return _inliner().inline(html)


def queue_mail(s: Session, *, to: str, subject: str, context: dict, kind: str = "reply",
               user: User | None = None, game_id: int | None = None, reply_to: str | None = None,
               in_reply_to: str | None = None, extra_headers: dict | None = None, ply: int | None = None,
               what: str | None = None) -> "Outbound | QueuedMail":
    """Render and add one outbox row to the caller's transaction; the send
    task is enqueued after commit (the sweep catches any that were not).
    ``what`` (default: ``kind``) and ``ply`` go into the Message-ID, so a
    reply to this mail says what it answers (addresses.parse_message_refs).
    A mail of a game refers to the game's root id (References; In-Reply-To
    too, unless it answers the player's own mail ``in_reply_to``), so each
    game is one conversation in the player's mailbox. ``context["summary"]``
    is the mail's first line: what it is about (the subject stays the game's)."""
    cfg = settings()
    text = render_text(context)
    html = None if (user is not None and user.mail_format == "text") else render_html(context)
    headers = {
        "Auto-Submitted": "auto-replied" if in_reply_to else "auto-generated",
        "X-Auto-Response-Suppress": "All",
        LOOP_HEADER: cfg.domain,
    }
    if reply_to:
        headers["Reply-To"] = reply_to
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = in_reply_to
    if game_id is not None:
        root = thread_root_id(cfg.domain, game_id, cfg.secret_key)
        headers["In-Reply-To"] = in_reply_to or root
        headers["References"] = f"{root} {in_reply_to}" if in_reply_to else root
    headers.update(extra_headers or {})
    now = utcnow()
    values = dict(message_id=make_message_id(cfg.domain, secrets.token_hex(12), what=what or kind,
                                                          game_id=game_id, ply=ply), to_addr=to, subject=subject,
                  body_text=text, body_html=html, headers=headers, kind=kind, game_id=game_id,
                  user_id=user.id if user else None, status="queued", attempts=0, next_attempt_at=now,
                  last_error=None, created_at=now, sent_at=None)  # every column: the defaults are the model's
    callbacks = getattr(s, "after_commit", None)
    if callbacks is None:  # a plain session: an object for its unit of work
        row = Outbound(**values)
        s.add(row)
        return row
    batch = s.info.get(OUTBOX_BATCH)
    if batch is None:  # the first mail of this transaction: one delivery for all of them
        inline = bool(s.info.get(SEND_INLINE)) and cfg.send_inline and time.monotonic() >= _inline_paused_until
        batch = s.info[OUTBOX_BATCH] = _Batch(inline)
        callbacks.append(batch.deliver)
    if batch.inline:  # claimed by this transaction: the sweep re-queues it if we die before sending
        values["status"] = "sending"
    # a Core INSERT on the transaction's connection, now (inside any savepoint, and seen by any later
    # select): no ORM object to build and flush for a row nothing else in the transaction reads (issue
    # 9); the row delivered after the commit carries the same values, unless a rollback took it back
    row = QueuedMail(id=s.connection().execute(_INSERT_OUTBOUND, values).scalar_one(), **values,
                     savepoint=s.get_nested_transaction())
    batch.rows.append(row)
    return row


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, transaction) -> None:
    batch = session.info.get(OUTBOX_BATCH)
    if batch is not None:
        batch.rolled_back(transaction)


_OUTBOUND = Outbound.__table__
_INSERT_OUTBOUND = insert(_OUTBOUND).returning(_OUTBOUND.c.id)  # built once


@dataclass
class QueuedMail:
    """An outbox row as queued (the columns of ``Outbound``): what the
    delivery after the commit needs, without an ORM object."""
    id: int
    message_id: str
    to_addr: str
    subject: str
    body_text: str
    body_html: str | None
    headers: dict
    kind: str
    game_id: int | None
    user_id: int | None
    status: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None
    savepoint: Any = field(default=None, repr=False, compare=False)  # the one it was inserted in, if any


OUTBOX_BATCH = "pbem.outbox_batch"
SEND_INLINE = "pbem.send_inline"  # set in Session.info by the worker tasks that may deliver inline
SEND_BATCH = 50  # outbox rows per send task at most
INLINE_PAUSE_S = 60.0  # after an inline delivery failed, the send task takes over for this long
_inline_paused_until = 0.0


def allow_inline_delivery(s: Session) -> None:
    """Let this transaction's mails be delivered by this process right after
    the commit (worker tasks; never a web request, which must not wait for
    the relay)."""
    s.info[SEND_INLINE] = True


class _Batch:
    """The mails one transaction queued, delivered after its commit: by this
    process at once (inline), or by one send task."""

    def __init__(self, inline: bool):
        self.inline = inline
        self.rows: list[QueuedMail] = []

    def rolled_back(self, transaction) -> None:
        """A rollback: of the whole transaction, none of its mails exist; of a
        savepoint, none of those inserted inside it (or inside one within it)."""
        if not transaction.nested:
            if transaction.parent is None:
                self.rows = []
            return  # else a flush's inner bracket: the rollback of what encloses it says what goes

        def inside(t) -> bool:
            while t is not None:
                if t is transaction:
                    return True
                t = t.parent
            return False

        self.rows = [r for r in self.rows if not inside(r.savepoint)]

    def deliver(self) -> None:
        if not self.rows:  # all taken back by rollbacks
            return
        ids = [r.id for r in self.rows]
        if not self.inline:
            _enqueue_send(ids)
            return
        from pbem import tasks

        results = tasks.deliver_claimed(self.rows)
        failed = [i for i, (status, _) in results.items() if status != "sent"]
        if failed:  # the relay is down or slow: stop delivering inline for a while
            global _inline_paused_until
            _inline_paused_until = time.monotonic() + INLINE_PAUSE_S
            tasks.retry_later(results)


def _enqueue_send(outbound_ids: list[int]) -> None:
    from pbem import tasks

    for i in range(0, len(outbound_ids), SEND_BATCH):
        tasks.send_outbound.delay(outbound_ids[i:i + SEND_BATCH])


def _header(value: str) -> str | Header:
    return value if value.isascii() else Header(value, "utf-8")


class _MailPolicy(Compat32):
    """compat32 (what the MIME classes use), with a short cut for the common
    header: a one-line ASCII value that fits in 78 columns is written as it
    is, as compat32's own folding would write it (tests/mail/test_outbound_mime
    checks the two give the same bytes), without building a Header to find
    that out, which took a third of the time of flattening a mail (issue 9)."""

    def _fold(self, name, value, sanitize):
        if (isinstance(value, str) and len(name) + len(value) <= 76 and value.isascii()
                and "\r" not in value and "\n" not in value):
            return f"{name}: {value}{self.linesep}"
        return super()._fold(name, value, sanitize)


MAIL_POLICY = _MailPolicy()


def _boundary(message_id: str) -> str:
    """A MIME boundary that cannot occur in the parts (base64 lines never hold
    "=_"), so the generator need not search the body for a collision, and
    the same for every delivery of one row."""
    return "=_pbem_" + hashlib.sha1(message_id.encode()).hexdigest()[:24]


def _text_part(body: str, subtype: str) -> Message:
    """What ``MIMEText(body, subtype, "utf-8")`` builds (the same headers in
    the same order, the same base64 lines), with the body encoded by
    ``base64.encodebytes`` in C instead of the email package's loop over
    57-byte chunks (issue 9; tests/mail/test_outbound_mime compares bytes)."""
    part = MIMENonMultipart("text", subtype, policy=MAIL_POLICY, charset="utf-8")
    part["Content-Transfer-Encoding"] = "base64"
    part.set_payload(base64.encodebytes(body.encode("utf-8")).decode("ascii"))
    return part


def build_message(row: Outbound, cfg: Settings) -> Message:
    """The MIME message of an outbox row: text, or text and HTML as
    alternatives, UTF-8 in base64. Built with the stdlib's compat32 MIME
    classes: the same standard message as ``EmailMessage`` in under half the
    time (its header registry parses every header; issue 9)."""
    text = _text_part(row.body_text, "plain")
    if row.body_html:
        msg: Message = MIMEMultipart("alternative", boundary=_boundary(row.message_id), policy=MAIL_POLICY)
        msg.attach(text)
        msg.attach(_text_part(row.body_html, "html"))
    else:
        msg = text
    msg["From"] = formataddr(("pbem", cfg.command_address))
    msg["To"] = _header(row.to_addr)
    msg["Subject"] = _header(row.subject)
    msg["Message-ID"] = row.message_id
    msg["Date"] = format_datetime(row.created_at)
    for k, v in (row.headers or {}).items():
        msg[k] = _header(v)
    return msg


class _Generator(BytesGenerator):
    """The stdlib's BytesGenerator, writing a body's lines in one piece: its
    own loop writes each line and each line ending apart (a thousand calls for
    a board mail). The same bytes: the line endings are turned into the
    generator's as that loop does, and a text with a CR in it takes the loop."""

    def _write_lines(self, lines: str) -> None:
        if "\r" in lines:
            super()._write_lines(lines)
        elif lines:
            self.write(lines if self._NL == "\n" else lines.replace("\n", self._NL))


def flatten(msg: Message, linesep: str = "\n", *, mangle_from: bool = False) -> bytes:
    """``msg.as_bytes()`` (linesep "\\n", no From-mangling), or, with
    linesep "\\r\\n" and ``mangle_from`` True, what ``smtplib.send_message``
    transmits, in a quarter of the time."""
    fp = io.BytesIO()
    policy = msg.policy if linesep == msg.policy.linesep else msg.policy.clone(linesep=linesep)
    _Generator(fp, mangle_from_=mangle_from, policy=policy).flatten(msg, unixfrom=False, linesep=linesep)
    return fp.getvalue()


class Relay:
    """Where outbox rows go: the SMTP relay (``PBEM_SMTP_URL``), over one
    connection for a whole batch, or the maildir. ``send`` raises on
    failure; the connection is then dropped and the next send opens a new one."""

    def __init__(self, cfg: Settings):
        self.cfg = cfg
        self.smtp: smtplib.SMTP | None = None

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        self._close(quit=exc[0] is None)

    def _close(self, quit: bool = True) -> None:
        smtp, self.smtp = self.smtp, None
        if smtp is None:
            return
        try:
            smtp.quit() if quit else smtp.close()
        except Exception:  # the mail is sent or not by now: a failed goodbye changes nothing
            smtp.close()

    def _connect(self) -> smtplib.SMTP:
        u = urlparse(self.cfg.smtp_url)
        q = parse_qs(u.query)
        host, port = u.hostname or "127.0.0.1", u.port or (465 if u.scheme == "smtps" else 25)
        timeout = float(q.get("timeout", ["30"])[0])
        if u.scheme == "smtps":
            smtp = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl.create_default_context())
        else:
            smtp = smtplib.SMTP(host, port, timeout=timeout)
        try:
            if u.scheme == "smtp" and q.get("starttls", ["0"])[0] in ("1", "true", "yes"):
                smtp.starttls(context=ssl.create_default_context())
            if u.username:
                smtp.login(unquote(u.username), unquote(u.password or ""))
        except BaseException:
            smtp.close()
            raise
        return smtp

    def send(self, row: Outbound) -> str:
        msg = build_message(row, self.cfg)
        if not self.cfg.smtp_url:
            return _to_maildir(msg, row, self.cfg.maildir)
        if self.smtp is None:
            self.smtp = self._connect()
        try:
            # what smtplib.send_message does for our mails (no Bcc), flattened by flatten(): its
            # utf8 policy clone fails on compat32 messages, whose headers are ASCII anyway (RFC 2047)
            sender, rcpt, options = self.cfg.command_address, row.to_addr, ()
            if not (sender.isascii() and rcpt.isascii()):  # an international address: SMTPUTF8
                self.smtp.ehlo_or_helo_if_needed()
                if not self.smtp.has_extn("smtputf8"):
                    raise smtplib.SMTPNotSupportedError(
                        f"the relay does not offer SMTPUTF8, which the address {rcpt!r} needs")
                options = ("SMTPUTF8", "BODY=8BITMIME")
            self.smtp.sendmail(sender, [rcpt], flatten(msg, "\r\n", mangle_from=msg.policy.mangle_from_), options)
        except smtplib.SMTPRecipientsRefused:
            try:  # this mail was refused; the connection is still good for the next
                self.smtp.rset()
            except Exception:
                self._close(quit=False)
            raise
        except BaseException:
            self._close(quit=False)
            raise
        u = urlparse(self.cfg.smtp_url)
        return f"smtp://{u.hostname or '127.0.0.1'}:{u.port or (465 if u.scheme == 'smtps' else 25)}"


def _to_maildir(msg: Message, row: Outbound, maildir: Path) -> str:
    """Maildir delivery named after the outbox row: writing the same row twice
    leaves one file (idempotent), and the tmp -> new rename is atomic."""
    name = f"{row.id:010d}.{hashlib.sha1(row.message_id.encode()).hexdigest()[:12]}.pbem"
    final = maildir / "new" / name
    if final.exists():
        return str(final)
    tmp = maildir / "tmp" / name
    data = flatten(msg)
    try:
        tmp.write_bytes(data)
        os.replace(tmp, final)
    except FileNotFoundError:  # a new maildir (or one removed under us): make it then, not for every mail
        for sub in ("tmp", "new", "cur"):
            (maildir / sub).mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, final)
    return str(final)


def mark_failed_attempt(row: Outbound, error: str, max_attempts: int, backoff_s: float = 15.0) -> None:
    from datetime import timedelta

    row.attempts += 1
    row.last_error = redact(error)[:2000]
    if row.attempts >= max_attempts:
        row.status = "failed"
    else:
        row.next_attempt_at = utcnow() + timedelta(seconds=min(3600, backoff_s * 2 ** row.attempts))
