"""MIME to text: any structure, charset and transfer encoding; text/plain
preferred, HTML converted to text (inscriptis keeps table layout readable)."""
from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage, Message
from email.utils import parseaddr

ENCODING_FALLBACKS = ("utf-8", "cp1251", "koi8-r", "latin-1")


def parse_message(raw: bytes) -> Message:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        # touch the headers now: the modern policy parses lazily and can raise later
        for k in msg.keys():
            str(msg.get(k, ""))
        return msg
    except Exception:
        return email.message_from_bytes(raw, policy=email.policy.compat32)


def header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:
        return ""
    if value is None:
        return ""
    try:
        return " ".join(str(value).split())
    except Exception:
        return ""


def sender(msg: Message) -> str:
    return parseaddr(header(msg, "From"))[1].strip().lower()


def _decode(part: Message) -> str:
    try:
        if isinstance(part, EmailMessage):
            content = part.get_content()
            if isinstance(content, str):
                return content
    except Exception:
        pass
    payload = part.get_payload(decode=True)
    if payload is None:
        p = part.get_payload()
        return p if isinstance(p, str) else ""
    charset = part.get_content_charset() or ""
    for enc in ((charset,) if charset else ()) + ENCODING_FALLBACKS:
        try:
            return payload.decode(enc)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", "replace")


def html_to_text(html: str) -> str:
    from inscriptis import get_text

    try:
        return get_text(html)
    except Exception:
        import re

        return re.sub(r"<[^>]+>", " ", html)


def body_text(msg: Message) -> str:
    """The readable text of a mail: the first inline text/plain part, else the
    first text/html part converted to text, else ''."""
    plain = html = None
    for part in msg.walk() if msg.is_multipart() else [msg]:
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        disp = (part.get("Content-Disposition") or "").lower()
        if disp.startswith("attachment"):
            continue
        if ctype == "text/plain" and plain is None:
            plain = _decode(part)
        elif ctype == "text/html" and html is None:
            html = _decode(part)
    if plain is not None and plain.strip():
        text = plain
    elif html:
        text = html_to_text(html)
    else:
        text = plain or ""
    return text.replace("\r\n", "\n").replace("\r", "\n")
