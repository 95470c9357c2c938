"""Outgoing mail: the MIME message of an outbox row, and its delivery (SMTP
relay or maildir). Rendering and queueing are the store's
(pbem/store/outbox.py)."""
from __future__ import annotations

import atexit
import base64
import hashlib
import io
import logging
import os
import re
import smtplib
import ssl
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from email.policy import Compat32
from email.utils import formataddr, format_datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from pbem.config import Settings
from pbem.mail import pictures
from pbem.services.core.clocks import aware
from pbem.store.addresses import redact, verp_address
from pbem.store.models import Outbound, utcnow

log = logging.getLogger("pbem.mail")


def _header(value: str) -> str | Header:
    return value if value.isascii() else Header(value, "utf-8")


class _MailPolicy(Compat32):
    """compat32 (what the MIME classes use), with a short cut for the common
    header: a one-line ASCII value that fits in 78 columns is written as it
    is, as compat32's own folding would write it (tests/mail/test_outbound_mime
    checks the two give the same bytes), without building a Header to find
    that out, which took a third of the time of flattening a mail."""

    def _fold(self, name, value, sanitize):
        if (isinstance(value, str) and len(name) + len(value) <= 76 and value.isascii()
                and "\r" not in value and "\n" not in value):
            return f"{name}: {value}{self.linesep}"
        if type(value) is str:  # a longer one (List-Unsubscribe): the same for a reader's every mail
            return _folded(name, value, sanitize, self.linesep, self.max_line_length)
        return super()._fold(name, value, sanitize)


@lru_cache(maxsize=4096)
def _folded(name: str, value: str, sanitize: bool, linesep: str, max_line_length: int | None) -> str:
    """compat32's folding of a header, which reads nothing else of its policy than these two."""
    return Compat32._fold(Compat32(linesep=linesep, max_line_length=max_line_length), name, value, sanitize)


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
    57-byte chunks, a hot spot of sending (tests/mail/test_outbound_mime compares bytes)."""
    part = MIMENonMultipart("text", subtype, policy=MAIL_POLICY, charset="utf-8")
    part["Content-Transfer-Encoding"] = "base64"
    part.set_payload(base64.encodebytes(body.encode("utf-8")).decode("ascii"))
    return part


def build_message(row: Outbound, cfg: Settings) -> Message:
    """The MIME message of an outbox row: text, or text and HTML as
    alternatives, UTF-8 in base64. Built with the stdlib's compat32 MIME
    classes: the same standard message as ``EmailMessage`` in under half the
    time (its header registry parses every header)."""
    text = _text_part(row.body_text, "plain")
    html, png, cid = row.body_html, None, None
    if html and getattr(row, "picture_key", None):  # the board's drawing, inline
        fresh = (utcnow() - aware(row.created_at)).total_seconds() <= cfg.picture_wait_s  # else: without it, now
        html, png, cid = pictures.inline(html, row.picture_key, cfg, render=fresh)
    if html:
        msg: Message = MIMEMultipart("alternative", boundary=_boundary(row.message_id), policy=MAIL_POLICY)
        msg.attach(text)
        msg.attach(_text_part(html, "html"))
        if png is not None:
            related = MIMEMultipart("related", boundary=_boundary(row.message_id) + ".r", policy=MAIL_POLICY)
            related.set_param("type", "multipart/alternative")
            related.attach(msg)
            image = MIMENonMultipart("image", "png", policy=MAIL_POLICY)
            image["Content-Transfer-Encoding"] = "base64"
            image["Content-ID"] = f"<{cid}>"
            image["Content-Disposition"] = 'inline; filename="board.png"'
            image.set_payload(base64.encodebytes(png).decode("ascii"))
            related.attach(image)
            msg = related
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


def _goodbye(smtp: smtplib.SMTP, quit: bool = True) -> None:
    try:
        smtp.quit() if quit else smtp.close()
    except Exception:  # the mail is sent or not by now: a failed goodbye changes nothing
        smtp.close()


@dataclass
class _Idle:
    smtp: smtplib.SMTP
    url: str
    sent: int  # mails sent over it so far
    since: float  # time.monotonic() when it was given back


class RelayPool:
    """The relay connections a process keeps open between tasks (a
    connection per processed mail cost half again the wall time): a
    :class:`Relay` takes one at its first mail and gives it back when done.
    One per thread at work at most (a prefork child: one). A connection
    idle longer than ``relay_idle_s`` is closed (a timer does it), and one
    that carried ``relay_max_mails`` mails is closed after its last one."""

    def __init__(self):
        self._lock = threading.Lock()
        self._idle: list[_Idle] = []
        self._pid = os.getpid()
        self._reaper: threading.Timer | None = None

    def take(self, url: str) -> tuple[smtplib.SMTP, int] | None:
        """An idle connection to ``url`` with the mails it carried, or None."""
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the parent's sockets are not ours to use
                self._idle, self._pid, self._reaper = [], os.getpid(), None
            for i, idle in enumerate(self._idle):
                if idle.url == url:
                    del self._idle[i]
                    return idle.smtp, idle.sent
        return None

    def give(self, smtp: smtplib.SMTP, url: str, sent: int, idle_s: float) -> None:
        with self._lock:
            self._idle.append(_Idle(smtp, url, sent, time.monotonic()))
            if self._reaper is None:
                self._schedule(idle_s)

    def _schedule(self, idle_s: float) -> None:
        self._reaper = threading.Timer(idle_s, self._reap, args=(idle_s,))
        self._reaper.daemon = True
        self._reaper.start()

    def _reap(self, idle_s: float) -> None:
        """Close the connections idle for ``idle_s``; again later while any is left."""
        now = time.monotonic()
        with self._lock:
            old = [i for i in self._idle if now - i.since >= idle_s]
            self._idle = [i for i in self._idle if now - i.since < idle_s]
            self._reaper = None
            if self._idle:
                self._schedule(max(0.1, idle_s - (now - min(i.since for i in self._idle))))
        for idle in old:
            _goodbye(idle.smtp)

    def close_all(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            if self._reaper is not None:
                self._reaper.cancel()
                self._reaper = None
        for i in idle:
            _goodbye(i.smtp)


POOL = RelayPool()  # the process's: tasks.deliver_claimed sends through it
atexit.register(POOL.close_all)  # a QUIT for each, rather than a dropped socket


class Relay:
    """Where outbox rows go: the SMTP relay (``PBEM_SMTP_URL``), over one
    connection for a whole batch, or the maildir. ``send`` raises on
    failure; the connection is then dropped and the next send opens a new one.
    With a ``pool``, the connection comes from it when one is idle (checked
    with RSET first: a dropped one is replaced by a new connection, once)
    and goes back to it at the end, unless a send failed."""

    def __init__(self, cfg: Settings, pool: RelayPool | None = None):
        self.cfg = cfg
        self.pool = pool
        self.smtp: smtplib.SMTP | None = None
        self.sent = 0  # mails over the current connection

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None and exc[0] is None and self.smtp is not None:
            smtp, self.smtp = self.smtp, None
            self.pool.give(smtp, self.cfg.smtp_url, self.sent, self.cfg.relay_idle_s)
            return
        self._close(quit=exc[0] is None)

    def _close(self, quit: bool = True) -> None:
        smtp, self.smtp = self.smtp, None
        if smtp is not None:
            _goodbye(smtp, quit)

    def _open(self) -> smtplib.SMTP:
        """The pool's idle connection if the relay still answers RSET on it
        (no mail is under way on it: the check sends nothing), else a new one."""
        idle = self.pool.take(self.cfg.smtp_url) if self.pool is not None else None
        if idle is not None:
            smtp, self.sent = idle
            try:
                if smtp.rset()[0] == 250:
                    return smtp
            except Exception:  # noqa: BLE001 - the relay dropped it while idle: a new one
                pass
            log.info("relay connection dropped while idle: reconnecting")
            _goodbye(smtp, quit=False)
        self.sent = 0
        return self._connect()

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
            self.smtp = self._open()
        try:
            # what smtplib.send_message does for our mails (no Bcc), flattened by flatten(): its
            # utf8 policy clone fails on compat32 messages, whose headers are ASCII anyway (RFC 2047)
            # the envelope sender names this row (VERP): a bounce says which mail, so which recipient
            sender, rcpt, options = verp_address(row.id, self.cfg.domain, self.cfg.secret_key), row.to_addr, ()
            if not (sender.isascii() and rcpt.isascii()):  # an international address: SMTPUTF8
                self.smtp.ehlo_or_helo_if_needed()
                if not self.smtp.has_extn("smtputf8"):
                    raise smtplib.SMTPNotSupportedError(
                        f"the relay does not offer SMTPUTF8, which the address {rcpt!r} needs")
                options = ("SMTPUTF8", "BODY=8BITMIME")
            data = flatten(msg, "\r\n", mangle_from=msg.policy.mangle_from_)
            self.smtp.sendmail(sender, [rcpt], dkim_sign(data, self.cfg) + data, options)
        except smtplib.SMTPRecipientsRefused:
            try:  # this mail was refused; the connection is still good for the next
                self.smtp.rset()
            except Exception:
                self._close(quit=False)
            raise
        except BaseException:
            self._close(quit=False)
            raise
        self.sent += 1
        if self.sent >= self.cfg.relay_max_mails:  # enough over this one: the next mail opens another
            self._close()
        u = urlparse(self.cfg.smtp_url)
        return f"smtp://{u.hostname or '127.0.0.1'}:{u.port or (465 if u.scheme == 'smtps' else 25)}"


# the headers a DKIM signature covers (those a mail has): what a reader sees and what RFC 8058 asks to
# be signed (List-Unsubscribe, List-Unsubscribe-Post); From twice, so no second From can be added
DKIM_HEADERS = (b"from", b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
                b"references", b"list-unsubscribe", b"list-unsubscribe-post", b"auto-submitted", b"mime-version",
                b"content-type", b"content-transfer-encoding")


@lru_cache(maxsize=4)
def _dkim_key(path: str, mtime: float) -> bytes:
    return Path(path).read_bytes()


@lru_cache(maxsize=4)
def _openssl_key(n: int, e: int, d: int, p: int, q: int, dmp1: int, dmq1: int, iqmp: int):
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.RSAPrivateNumbers(p, q, d, dmp1, dmq1, iqmp, rsa.RSAPublicNumbers(e, n)).private_key()


def _rsa_sign(hash, private_key: dict) -> bytes:
    """dkimpy's RSASSA-PKCS1-v1_5 signing step, by OpenSSL (cryptography)
    instead of Python's pow(): the same bytes (PKCS #1 v1.5 signatures are
    deterministic) in 1/40 of the time (a 2048-bit key: 60 ms a mail in pure
    Python on the test machine). dkimpy still builds and canonicalizes the
    header and body; only the modular exponentiation moves."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, utils

    algorithm = {"sha256": hashes.SHA256(), "sha1": hashes.SHA1()}.get(getattr(hash, "name", "").lower())
    if algorithm is None:
        return _pure_rsa_sign(hash, private_key)
    k = private_key
    key = _openssl_key(k["modulus"], k["publicExponent"], k["privateExponent"], k["prime1"], k["prime2"],
                       k["exponent1"], k["exponent2"], k["coefficient"])
    return key.sign(hash.digest(), padding.PKCS1v15(), utils.Prehashed(algorithm))


_pure_rsa_sign = None


def dkim_sign(data: bytes, cfg: Settings) -> bytes:
    """The DKIM-Signature header line (CRLF-ended) for a flattened mail, with
    the configured key (PBEM_DKIM_KEY_FILE, selector and domain), or b""
    when no key is configured. dkimpy (the library pbem verifies inbound
    mail with, mail/senders.py): rsa-sha256; headers relaxed, the body simple
    (it is base64 or quoted: nothing a relay would re-space, and relaxed body
    canonicalization, a regular expression over the whole body, was half the
    cost of signing)."""
    if not cfg.dkim_key_file:
        return b""
    import dkim

    global _pure_rsa_sign
    if _pure_rsa_sign is None:  # once per process: dkimpy signs through _rsa_sign from now on
        _pure_rsa_sign = dkim.RSASSA_PKCS1_v1_5_sign
        dkim.RSASSA_PKCS1_v1_5_sign = _rsa_sign
    try:
        key = _dkim_key(cfg.dkim_key_file, os.stat(cfg.dkim_key_file).st_mtime)
    except OSError as e:  # a deployment error: the mail would go unsigned (and to spam); say so and retry
        raise RuntimeError(f"cannot read the DKIM key PBEM_DKIM_KEY_FILE={cfg.dkim_key_file}: {e.strerror}") from e
    return dkim.sign(data, cfg.dkim_selector.encode(), cfg.signing_domain.encode(), key,
                     include_headers=list(DKIM_HEADERS), canonicalize=(b"relaxed", b"simple"), linesep=b"\r\n")


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


_ENHANCED = re.compile(r"^\s*([245]\.\d{1,3}\.\d{1,3})\b")


@dataclass(frozen=True)
class Refusal:
    """The relay's answer when it refused this mail's recipient in the conversation: at RCPT, or to
    the mail's data. 5xx is a hard bounce of the address, 4xx a delay (tried again)."""

    code: int
    text: str

    @property
    def permanent(self) -> bool:
        return 500 <= self.code < 600

    @property
    def status(self) -> str:
        """The enhanced status code (RFC 3463) the relay gave, else its class (5.0.0, 4.0.0)."""
        m = _ENHANCED.match(self.text)
        return m.group(1) if m else f"{self.code // 100}.0.0"

    def __str__(self) -> str:
        return f"{self.code} {self.text}"


def refusal(exc: BaseException) -> Refusal | None:
    """What the relay said about the recipient, when ``exc`` is its refusal of it (RCPT) or of the
    mail (after DATA); None for anything else: the relay down or slow, our own sender refused (a
    deployment's error, not the player's address)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused) and exc.recipients:
        code, text = next(iter(exc.recipients.values()))
    elif isinstance(exc, smtplib.SMTPDataError):
        code, text = exc.smtp_code, exc.smtp_error
    else:
        return None
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return Refusal(int(code), " ".join(text.split())[:400])


def mark_failed_attempt(row: Outbound, error: str, max_attempts: int, backoff_s: float = 15.0) -> None:
    from datetime import timedelta

    row.attempts += 1
    row.last_error = redact(error)[:2000]
    if row.attempts >= max_attempts:
        row.status = "failed"
    else:
        row.next_attempt_at = utcnow() + timedelta(seconds=min(3600, backoff_s * 2 ** row.attempts))
