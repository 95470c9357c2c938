"""MIME to text: any structure, charset and transfer encoding; text/plain
preferred, HTML converted to text (inscriptis keeps table layout readable)."""
from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage, Message
from email.utils import parseaddr

ENCODING_FALLBACKS = ("utf-8", "cp1251", "koi8-r", "latin-1")
# C0 controls but tab and newline, DEL and lone surrogates: never meaningful in a
# move, and PostgreSQL refuses NUL in text columns (hostile-mail hardening)
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# quoted older mails in HTML: Gmail, Apple/Thunderbird <blockquote>, Yahoo, Outlook's reply block
HTML_QUOTE_XPATH = ("//blockquote | //*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
                    " | //*[contains(@class, 'yahoo_quoted')] | //*[@id='divRplyFwdMsg']"
                    " | //*[@id='appendonsend'] | //*[contains(@class, 'moz-cite-prefix')]")


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
    """HTML to readable text, without the quoted older mail (an HTML-only
    reply has no '>' lines to recognise it by)."""
    from inscriptis import get_text

    try:
        import lxml.html

        doc = lxml.html.document_fromstring(html)
        for el in doc.xpath(HTML_QUOTE_XPATH):
            if el.getparent() is not None:
                el.drop_tree()
        html = lxml.html.tostring(doc, encoding="unicode")
    except Exception:  # lxml refuses some garbage: convert it as it is
        pass
    try:
        return get_text(html)
    except Exception:
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
        if ctype.startswith("multipart/") and isinstance(part.get_payload(), str):
            ctype = "text/plain"  # a multipart without a boundary: its body is all there is
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
    return CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
