"""MIME to text: any structure, charset and transfer encoding; text/plain
preferred, HTML converted to text (inscriptis keeps table layout readable)."""
from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.utils import parseaddr

ENCODING_FALLBACKS = ("utf-8", "cp1251", "koi8-r", "latin-1")
# C0 controls but tab and newline, DEL and lone surrogates: never meaningful in a
# move, and PostgreSQL refuses NUL in text columns (hostile-mail hardening)
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# quoted older mails in HTML: Gmail, Apple/Thunderbird <blockquote>, Yahoo, Outlook's reply block
HTML_QUOTE_XPATH = ("//blockquote | //*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
                    " | //*[contains(@class, 'yahoo_quoted')] | //*[@id='divRplyFwdMsg']"
                    " | //*[@id='appendonsend'] | //*[contains(@class, 'moz-cite-prefix')]")


HEADER_CACHE = "_pbem_headers"  # attribute of a parsed Message: lower-cased name -> first value, as text
# the top-level headers the pipeline reads (pipeline.parse_mime, drop_loops, body_text,
# is_authenticated); x-pbem-loop is outbound.LOOP_HEADER
READ_HEADERS = frozenset({
    "from", "subject", "message-id", "auto-submitted", "precedence", "x-auto-response-suppress",
    "x-ms-exchange-inbox-rules-loop", "x-pbem-loop", "x-autoreply", "x-autorespond", "content-type",
    "content-disposition", "content-transfer-encoding", "mime-version", "authentication-results",
})


def parse_message(raw: bytes) -> Message:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        # parse the headers that will be read now: the modern policy parses lazily and can raise
        # later. Their texts are kept, so header() need not parse them again; the others (Received,
        # DKIM-Signature, ...) are never parsed at all (the header registry is slow; issue 9)
        cache: dict[str, str] = {}
        for k in msg.keys():
            name = k.lower()
            if name in READ_HEADERS and name not in cache:
                cache[name] = str(msg.get(k))
                msg.get_all(k)
        setattr(msg, HEADER_CACHE, cache)
        return msg
    except Exception:
        return email.message_from_bytes(raw, policy=email.policy.compat32)


def message_id(raw: bytes) -> str:
    """The Message-ID of a raw mail, reading its header block only (the
    receiver needs nothing else before it answers 250)."""
    try:
        return header(BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw), "Message-ID")
    except Exception:
        return ""


def header(msg: Message, name: str) -> str:
    cache = getattr(msg, HEADER_CACHE, None)
    try:
        key = name.lower()
        value = cache.get(key) if cache is not None and key in READ_HEADERS else msg.get(name)
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


def _aligned(domain: str, from_domain: str) -> bool:
    domain, from_domain = domain.strip(".").lower(), from_domain.lower()
    return bool(domain) and (from_domain == domain or from_domain.endswith("." + domain))


def is_authenticated(msg: Message, from_addr: str, authserv_id: str) -> bool:
    """True when the topmost ``Authentication-Results`` header written by our
    own MX (``authserv_id``) says DKIM, SPF or DMARC passed for the domain of
    ``from_addr`` (RFC 8601). Headers from anyone else are ignored: a sender
    can write any Authentication-Results it likes."""
    from_domain = from_addr.rpartition("@")[2].lower()
    if not from_domain:
        return False
    try:
        values = [" ".join(str(v).split()) for v in (msg.get_all("Authentication-Results") or [])]
    except Exception:
        return False
    for value in values:
        serv, _, rest = value.partition(";")
        ident = serv.split()[0].lower() if serv.split() else ""
        if ident != authserv_id.lower():
            continue
        for clause in rest.split(";"):
            m = re.match(r"\s*(dkim|spf|dmarc)\s*=\s*(\w+)(.*)$", clause, re.I)
            if not m or m.group(2).lower() != "pass":
                continue
            props = dict((k.lower(), v.strip("<>\"").lower()) for k, v in
                         re.findall(r"([\w.]+)\s*=\s*(\S+)", m.group(3)))
            method = m.group(1).lower()
            if method == "dkim":
                d = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
            elif method == "spf":
                d = (props.get("smtp.mailfrom") or props.get("smtp.helo", "")).rpartition("@")[2]
            else:
                d = props.get("header.from", "")
            if _aligned(d, from_domain):
                return True
        return False  # only the topmost header of our own MX counts
    return False
