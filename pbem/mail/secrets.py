"""A mail's secret words (a game's password, as its commands name them:
Command.secrets) are not kept in the stored mail once it is read: the
inbound row keeps the mail for the admins' console and a re-drive, and the
docs promise that only a salted hash of a password is kept."""
from __future__ import annotations

import email.policy
import re
from email.parser import BytesParser

PLACEHOLDER = b"<password>"
NOTE = (b"[pbem removed this mail's text once it was read: it named a game's password, which pbem keeps only as "
        b"a salted hash]\r\n")


def _word(secret: bytes) -> re.Pattern:
    # the word as a command writes it: after a space, a line's start or "=", and before a space or the line's end
    return re.compile(rb"(?<![^\s=])" + re.escape(secret) + rb"(?!\S)")


def redacted(raw: bytes, secrets: list[str]) -> bytes:
    """``raw`` without ``secrets``: each replaced where the mail holds it
    as written; when a part still holds one once decoded (base64, quoted-
    printable, an HTML alternative), the whole body is replaced by a note
    and only the header is kept."""
    words = sorted({w.encode() for w in secrets if w}, key=len, reverse=True)
    for w in words:
        raw = _word(w).sub(PLACEHOLDER, raw)
    if not _still_holds(raw, words):
        return raw
    head, sep, _body = raw.partition(b"\r\n\r\n")
    if not sep:
        head, sep, _body = raw.partition(b"\n\n")
    keep = [ln for ln in re.split(rb"\r?\n(?![ \t])", head)
            if not re.match(rb"(?i)content-(type|transfer-encoding)\s*:", ln)]
    return b"\r\n".join(keep + [b"Content-Type: text/plain; charset=us-ascii"]) + b"\r\n\r\n" + NOTE


def _still_holds(raw: bytes, words: list[bytes]) -> bool:
    try:
        msg = BytesParser(policy=email.policy.compat32).parsebytes(raw)
        for part in msg.walk():
            if part.is_multipart():
                continue
            payload = part.get_payload(decode=True) or b""
            charset = part.get_content_charset() or "utf-8"
            try:
                text = payload.decode(charset, "replace").encode()
            except LookupError:
                text = payload
            if any(_word(w).search(text) for w in words):
                return True
        return False
    except Exception:  # noqa: BLE001 - a mail that does not parse again: keep nothing of its body
        return True
