"""Commands held until the owner of an address confirms them: a mail's From can be forged.

A mail pbem cannot trust by its From alone (no DKIM or SPF pass for its
domain, as pbem checked it) may still come from the owner: its account
commands are held, and the owner is asked, at the address pbem knows, to
confirm them -- by replying to that mail (its Reply-To is the confirmation's
own address) or by its link. Destructive commands (RESIGN, NEWADDRESS,
REPLACE ... VOTE) are held like this from everyone. Only the SHA-256 of a
token is stored; a token works once, for a day."""
from __future__ import annotations

import base64
import hashlib
import re
from datetime import timedelta

from sqlalchemy import Connection, bindparam, func, select as sa_select, update
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _
from pbem.store.models import Confirmation, utcnow

from ..core import seating
from ..core.errors import UserError

TTL = timedelta(hours=24)
# asking mails to one address a day for requests from one source (a sending server, or a verified sender): a
# forger cannot flood the owner with them, nor use up the owner's own (those from the seat's address or a
# verified From are always asked)
PER_SOURCE_PER_DAY = 5
# the first word of a reply that confirms, or cancels, in any of pbem's languages (en, ru, bg, it); any other
# reply -- an auto-reply, "I did not ask for this" -- does neither
YES_WORDS = frozenset({"YES", "ДА", "SÌ", "SI"})
NO_WORDS = frozenset({"NO", "CANCEL", "НЕТ", "НЕ", "ОТМЕНА", "ОТКАЗ", "NEIN", "NON", "ANNULLA"})


def answer_word(text: str) -> str | None:
    """What a reply to an asking mail says by its first word: "yes", "no", or None (neither)."""
    first = (text or "").strip().split(maxsplit=1)
    word = first[0].strip(".,!:;\"'«»()*").upper() if first else ""
    return "yes" if word in YES_WORDS else "no" if word in NO_WORDS else None


def hash_token(token: str) -> str:
    return hashlib.sha256((token or "").lower().encode()).hexdigest()


def link_for(token: str) -> str:
    return f"{settings().base_url.rstrip('/')}/confirm/{token}"


# a held command's secret word (a game's password) is stored sealed -- encrypted with a key derived from the
# installation's secret -- and replaced by PLACEHOLDER once the confirmation is answered or shown
SEALED_RE = re.compile(r"\u27e6([A-Za-z0-9_=-]{20,400})\u27e7")
PLACEHOLDER = "<password>"


def _fernet():
    from cryptography.fernet import Fernet

    key = hashlib.sha256(b"pbem confirmations\0" + settings().secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def seal(text: str, secrets: list[str]) -> str:
    """``text`` with each of ``secrets`` (whole words) replaced by its sealed form."""
    for word in sorted(set(w for w in secrets if w), key=len, reverse=True):
        sealed = "\u27e6" + _fernet().encrypt(word.encode()).decode() + "\u27e7"
        text = re.sub(r"(?<!\S)" + re.escape(word) + r"(?!\S)", lambda _m: sealed, text)
    return text


def unseal(text: str) -> str:
    """The held commands as they were written, to run them; a seal that no longer opens (the secret key
    changed) reads as the placeholder, which no password matches."""
    from cryptography.fernet import InvalidToken

    def opened(m: re.Match) -> str:
        try:
            return _fernet().decrypt(m.group(1).encode()).decode()
        except (InvalidToken, ValueError):
            return PLACEHOLDER
    return SEALED_RE.sub(opened, text)


def masked(text: str) -> str:
    """The held commands as shown and as kept once answered: each secret word replaced by the placeholder."""
    return SEALED_RE.sub(PLACEHOLDER, text)


def shown_lines(row: Confirmation) -> list[str]:
    """What a page or a mail shows of a confirmation: its commands without their secrets; for an address
    without an account (a REGISTER waits) nothing of the mail that asked, whose text may be anybody's."""
    if row.user_id is None:
        return ["REGISTER <name>"]
    return [ln for ln in masked(row.commands).split("\n") if ln.strip()]


def hold(s: Session, *, email: str, commands: list[str], user_id: int | None, game_id: int | None = None,
         seat: int | None = None, inbound_id: int | None = None, sender: str = "", source: str = "",
         always: bool = False) -> str | None:
    """Keep ``commands`` until the owner of ``email`` confirms them; the
    token for the asking mail, or None when that address has been asked
    too often today for requests from ``source`` (the caller then asks
    nothing). ``always``: the request came from the owner's own address as
    pbem can tell (the seat's address from the registered From, a verified
    From): asked whatever others sent."""
    if not always:
        since = utcnow() - timedelta(days=1)
        asked = s.exec(select(func.count()).select_from(Confirmation).where(
            Confirmation.email == email.lower(), Confirmation.source == source[:330],
            Confirmation.created_at > since)).one()
        if asked >= PER_SOURCE_PER_DAY:
            return None
    token = seating.new_token()
    s.add(Confirmation(token_hash=hash_token(token), email=email.lower(), user_id=user_id, game_id=game_id,
                       seat=seat, commands="\n".join(commands), inbound_id=inbound_id, sender=sender[:320],
                       source=source[:330], expires_at=utcnow() + TTL))
    s.flush()
    return token


def nudge(s: Session, token: str) -> Confirmation | None:
    """A reply to an asking mail that said neither YES nor NO: the
    confirmation, still pending, the first time (the caller answers it
    once), else None (not answered again)."""
    row = pending(s, token, lock=True)
    if row is None or row.nudged_at is not None:
        return None
    row.nudged_at = utcnow()
    s.add(row)
    s.flush()
    return row


def _aware(dt):
    from datetime import timezone

    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def pending(s: Session, token: str, *, lock: bool = False) -> Confirmation | None:
    """The confirmation of ``token`` while it can still be confirmed."""
    q = select(Confirmation).where(Confirmation.token_hash == hash_token(token))
    row = s.exec(q.with_for_update() if lock else q).first()
    if row is None or row.status != "pending" or _aware(row.expires_at) < utcnow():
        return None
    return row


def spend(s: Session, token: str, status: str = "done") -> tuple[Confirmation, str]:
    """Mark the confirmation of ``token`` done (or cancelled), once: of two
    concurrent confirmations (a reply and a click) only one wins. Returns
    the row, which keeps its commands without their secrets from now on,
    and the commands to run, as written."""
    row = pending(s, token, lock=True)
    gone = UserError(_("this confirmation is unknown, already used or expired (they last a day); nothing was "
                       "done. Send the commands again"), example="HELP", code="bad_confirmation")
    if row is None:
        raise gone
    to_run = unseal(row.commands)  # read first: from now on the row keeps only the masked commands
    res = s.exec(update(Confirmation).where(Confirmation.id == row.id, Confirmation.status == "pending")
                 .values(status=status, done_at=utcnow(), commands=masked(row.commands)))
    if res.rowcount != 1:
        raise gone
    s.refresh(row)
    return row, to_run


_LIVE = sa_select(Confirmation.expires_at).where(Confirmation.token_hash == bindparam("h"),
                                                 Confirmation.status == "pending")


def is_live(conn: Connection, token: str) -> bool:
    """The receiver's check of a confirmation address (one read)."""
    at = conn.execute(_LIVE, {"h": hash_token(token)}).scalar()
    return at is not None and _aware(at) >= utcnow()


def by_link(s: Session, token: str, *, yes: bool) -> int | None:
    """The owner clicked the link of an asking mail: stored as the reply it
    stands for (to the confirmation's address, from the address that was
    asked, saying YES or NO), so the pipeline does it exactly as it does a
    reply -- once, with the same answer by mail. Returns the stored mail's
    id (the caller enqueues it after the commit), or None when the
    confirmation is no longer pending. A second click is the same mail again
    (same Message-ID): nothing is done twice."""
    from email.message import EmailMessage

    from sqlalchemy.exc import IntegrityError

    from pbem.store.addresses import confirm_address
    from pbem.store.models import Inbound

    row = pending(s, token)
    if row is None:
        return None
    cfg = settings()
    to = confirm_address(token.lower(), cfg.domain)
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = row.email, to, "confirmed on the web" if yes else "cancelled on the web"
    m["Message-ID"] = f"<pbem.weblink.{hash_token(token)[:24]}@{cfg.domain}>"
    m.set_content("YES" if yes else "NO")
    existing = s.exec(select(Inbound.id).where(Inbound.message_id == m["Message-ID"])).first()
    if existing is not None:
        return existing
    inbound = Inbound(message_id=m["Message-ID"], raw=m.as_bytes(), mail_from=row.email, rcpt_to=to, peer="web")
    try:
        with s.begin_nested():
            s.add(inbound)
            s.flush()
    except IntegrityError:  # the other button, or a double click, in a concurrent request
        return s.exec(select(Inbound.id).where(Inbound.message_id == m["Message-ID"])).first()
    return inbound.id
