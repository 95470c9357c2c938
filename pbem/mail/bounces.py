"""Bounces and delivery reports: which recipients a mail says
failed, for good ("hard": 5.x.x, the address takes no mail) or for now
("soft": 4.x.x, a full mailbox, a greylisting server, a delay warning).

Standard reports (multipart/report with a message/delivery-status part, RFC
3464) are read here, per recipient, with their Action, Status and
Diagnostic-Code. Every other shape (qmail's, old Exim and Postfix texts,
Exchange's, ...) goes to flufl.bounce, the bounce detectors of GNU Mailman,
which say which addresses failed and whether permanently. A mail that is
neither (a vacation auto-reply sent to the bounce address) gives nothing."""
from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message

from pbem.store.addresses import normalize_address

STATUS_RE = re.compile(r"\b([245])\.(\d{1,3})\.(\d{1,3})\b")


@dataclass(frozen=True)
class Failure:
    address: str  # lower-case; "" when the report names none
    kind: str  # hard | soft
    status: str = ""  # the enhanced status code (RFC 3463), e.g. 5.1.1
    diagnostic: str = ""  # what the remote server said, one line


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(str(text or "").split())[:limit]


def _address(value: str) -> str:
    """The address of a Final-Recipient or Original-Recipient field: ``rfc822; bob@x``."""
    _, _, addr = str(value or "").partition(";")
    return normalize_address((addr or value or "").strip())


def _dsn_blocks(msg: Message) -> list[Message] | None:
    """The per-recipient field blocks of the message/delivery-status part, or None if there is none."""
    for part in msg.walk():
        if part.get_content_type() == "message/delivery-status":
            payload = part.get_payload()
            if isinstance(payload, list) and payload:
                return payload[1:] if len(payload) > 1 else payload  # the first block is per-message
            # a delivery-status part the parser left as text: read its blocks ourselves
            from email.parser import HeaderParser

            text = payload if isinstance(payload, str) else ""
            blocks = [HeaderParser().parsestr(b.strip() + "\n") for b in re.split(r"\r?\n\s*\r?\n", text) if b.strip()]
            return blocks[1:] if len(blocks) > 1 else blocks
    return None


def _from_dsn(blocks: list[Message]) -> list[Failure]:
    out = []
    for b in blocks:
        action = str(b.get("Action", "")).strip().lower()
        status = STATUS_RE.search(str(b.get("Status", "")))
        code = status.group(0) if status else ""
        if action in ("delivered", "relayed", "expanded"):
            continue  # a success report (NOTIFY=SUCCESS), not a failure
        if action == "delayed" or (not action and code.startswith("4")):
            kind = "soft"
        elif action == "failed" or code.startswith("5"):
            kind = "soft" if code.startswith("4") else "hard"
        else:
            continue
        addr = _address(b.get("Final-Recipient", "")) or _address(b.get("Original-Recipient", ""))
        diag = _one_line(str(b.get("Diagnostic-Code", "")).partition(";")[2] or b.get("Diagnostic-Code", ""))
        out.append(Failure(addr, kind, code, diag))
    return out


def _text(msg: Message, limit: int = 20000) -> str:
    """The readable text of a mail, for a status code in a non-standard bounce."""
    out = []
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            try:
                payload = part.get_payload(decode=True) or b""
                out.append(payload.decode(part.get_content_charset() or "utf-8", "replace"))
            except (LookupError, ValueError):
                continue
        if sum(map(len, out)) > limit:
            break
    return "\n".join(out)[:limit]


def _code_near(text: str, address: str, permanent: bool) -> tuple[str, str]:
    """The status code (and its line) a text bounce gives for ``address``:
    the first of the right class after the address, else anywhere."""
    want = "5" if permanent else "4"
    at = text.lower().find(address) if address else -1
    for chunk in ((text[at:], text) if at >= 0 else (text,)):
        for m in STATUS_RE.finditer(chunk):
            if m.group(1) == want:
                start = chunk.rfind("\n", 0, m.start()) + 1
                end = chunk.find("\n", m.end())
                return m.group(0), _one_line(chunk[start:end if end >= 0 else None])
    return "", ""


def _from_detectors(msg: Message) -> list[Failure]:
    from flufl.bounce import all_failures

    try:
        temporary, permanent = all_failures(msg)
    except Exception:  # a detector choked on a strange mail: no failure found, nothing done
        return []
    text = _text(msg)
    out = []
    for kind, found in (("hard", permanent), ("soft", set(temporary) - set(permanent))):
        for raw in sorted(found):
            addr = normalize_address(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))
            if "@" not in addr:
                continue
            code, diag = _code_near(text, addr, kind == "hard")
            out.append(Failure(addr, kind, code, diag))
    return out


MAX_BYTES = 128 * 1024  # a bounce is read in its first 128 KB: the report comes before the returned mail


def clipped(raw: bytes, msg: Message) -> Message:
    """The mail to read as a bounce: ``msg``, or for a larger one its first
    MAX_BYTES parsed alone, so a huge mail from a null sender costs no more
    than a bounce (flufl.bounce's detectors take 2-3 s on 2 MB of text)."""
    if len(raw) <= MAX_BYTES:
        return msg
    from .parse import parse_message

    return parse_message(raw[:MAX_BYTES])


def failures(msg: Message) -> list[Failure]:
    """The recipients a bounce or delivery report says failed; [] for any
    other mail (an auto-reply, a success report, a person's mail)."""
    blocks = _dsn_blocks(msg)
    if blocks is not None:
        return _from_dsn(blocks)
    return _from_detectors(msg)


def worst(found: list[Failure]) -> Failure | None:
    """The one failure that counts for a mail with one recipient (a VERP
    bounce): a hard one before a soft one."""
    return next((f for f in found if f.kind == "hard"), found[0] if found else None)


MESSAGE_ID_RE = re.compile(r"<pbem\.[^<>\s]{1,200}@[^<>\s]{1,200}>", re.I)


def returned_ids(msg: Message) -> list[str]:
    """Our Message-IDs that a bounce quotes (its returned headers or text):
    how a bounce that did not come to a VERP address names its mail."""
    seen = []
    for part in msg.walk():
        if part.get_content_type() in ("message/rfc822", "text/rfc822-headers", "message/rfc822-headers"):
            payload = part.get_payload()
            inner = payload[0] if isinstance(payload, list) and payload else None
            value = str(inner.get("Message-ID", "")) if isinstance(inner, Message) else str(payload)
            seen.extend(MESSAGE_ID_RE.findall(value))
        if part.get_content_type() == "message/delivery-status":  # Gmail: X-Original-Message-ID
            payload = part.get_payload()
            seen.extend(MESSAGE_ID_RE.findall(" ".join(map(str, payload)) if isinstance(payload, list) else str(payload)))
    for name in ("In-Reply-To", "References"):  # Gmail's and Outlook's reports answer the mail
        seen.extend(MESSAGE_ID_RE.findall(" ".join(str(v) for v in msg.get_all(name, []))))
    seen.extend(MESSAGE_ID_RE.findall(_text(msg)))
    return list(dict.fromkeys(seen))[:20]
