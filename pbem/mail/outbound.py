"""Outgoing mail: render (Jinja2, text + HTML with inlined CSS), queue in the
outbox inside the caller's transaction, and deliver (SMTP relay or maildir)."""
from __future__ import annotations

import hashlib
import logging
import os
import secrets
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formataddr, format_datetime
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlmodel import Session

from pbem.config import TEMPLATES, Settings, settings
from pbem.store.models import Outbound, User, utcnow

from .addresses import redact

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
    base = dict(title="", greeting="", paragraphs=[], results=[], not_applied=[], ignored="",
                board_text="", board_html="", board_title="", help_text="", footer="")
    base.update(context)
    return base


def render_text(context: dict) -> str:
    return jinja().get_template("mail/message.txt").render(**_ctx(context))


def render_html(context: dict) -> str:
    import css_inline

    html = jinja().get_template("mail/message.html").render(**_ctx(context))
    return css_inline.inline(html)


def queue_mail(s: Session, *, to: str, subject: str, context: dict, kind: str = "reply",
               user: User | None = None, game_id: int | None = None, reply_to: str | None = None,
               in_reply_to: str | None = None, extra_headers: dict | None = None) -> Outbound:
    """Render and add one outbox row to the caller's transaction; the send
    task is enqueued after commit (the sweep catches any that were not)."""
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
    headers.update(extra_headers or {})
    row = Outbound(
        message_id=f"<pbem.{secrets.token_hex(12)}@{cfg.domain}>",
        to_addr=to, subject=subject, body_text=text, body_html=html, headers=headers, kind=kind,
        game_id=game_id, user_id=user.id if user else None,
    )
    s.add(row)
    s.flush()
    callbacks = getattr(s, "after_commit", None)
    if callbacks is not None:
        row_id = row.id
        callbacks.append(lambda: _enqueue_send(row_id))
    return row


def _enqueue_send(outbound_id: int) -> None:
    from pbem import tasks

    tasks.send_outbound.delay(outbound_id)


def build_message(row: Outbound, cfg: Settings) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = formataddr(("pbem", cfg.command_address))
    msg["To"] = row.to_addr
    msg["Subject"] = row.subject
    msg["Message-ID"] = row.message_id
    msg["Date"] = format_datetime(row.created_at)
    for k, v in (row.headers or {}).items():
        msg[k] = v
    msg.set_content(row.body_text)
    if row.body_html:
        msg.add_alternative(row.body_html, subtype="html")
    return msg


def deliver(row: Outbound, cfg: Settings) -> str:
    """Hand one message to the relay, or write it to the maildir. Returns
    where it went. Raises on failure (the task retries with backoff)."""
    msg = build_message(row, cfg)
    if not cfg.smtp_url:
        return _to_maildir(msg, row, cfg.maildir)
    u = urlparse(cfg.smtp_url)
    q = parse_qs(u.query)
    host, port = u.hostname or "127.0.0.1", u.port or (465 if u.scheme == "smtps" else 25)
    timeout = float(q.get("timeout", ["30"])[0])
    if u.scheme == "smtps":
        smtp = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        smtp = smtplib.SMTP(host, port, timeout=timeout)
    with smtp:
        if u.scheme == "smtp" and q.get("starttls", ["0"])[0] in ("1", "true", "yes"):
            smtp.starttls(context=ssl.create_default_context())
        if u.username:
            smtp.login(unquote(u.username), unquote(u.password or ""))
        smtp.send_message(msg, from_addr=cfg.command_address, to_addrs=[row.to_addr])
    return f"smtp://{host}:{port}"


def _to_maildir(msg: EmailMessage, row: Outbound, maildir: Path) -> str:
    """Maildir delivery named after the outbox row: writing the same row twice
    leaves one file (idempotent), and the tmp -> new rename is atomic."""
    for sub in ("tmp", "new", "cur"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    name = f"{row.id:010d}.{hashlib.sha1(row.message_id.encode()).hexdigest()[:12]}.pbem"
    final = maildir / "new" / name
    if final.exists():
        return str(final)
    tmp = maildir / "tmp" / name
    tmp.write_bytes(msg.as_bytes())
    os.replace(tmp, final)
    return str(final)


def mark_sent(row: Outbound) -> None:
    row.status = "sent"
    row.sent_at = utcnow()
    row.last_error = None


def mark_failed_attempt(row: Outbound, error: str, max_attempts: int, backoff_s: float = 15.0) -> None:
    from datetime import timedelta

    row.attempts += 1
    row.last_error = redact(error)[:2000]
    if row.attempts >= max_attempts:
        row.status = "failed"
    else:
        row.next_attempt_at = utcnow() + timedelta(seconds=min(3600, backoff_s * 2 ** row.attempts))
