"""Web identity: sign-up confirmation and login by one-time mailed link.

Only the SHA-256 of a token is stored; a token is single use and short-lived.
Login mails are limited per address in the database (so the limit holds for
any number of web processes)."""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, update
from sqlmodel import Session, select

from pbem.config import settings
from pbem.store.outbox import queue_mail
from pbem.store.models import LoginToken, User, utcnow

from . import accounts
from .errors import UserError

TTL = {"confirm": timedelta(hours=24), "login": timedelta(minutes=30)}
MAILS_PER_WINDOW = 3
WINDOW = timedelta(minutes=15)


def hash_token(token: str) -> str:
    return hashlib.sha256((token or "").encode()).hexdigest()


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def link_for(token: str) -> str:
    return f"{settings().base_url.rstrip('/')}/auth/{token}"


def _check_rate(s: Session, user: User) -> None:
    since = utcnow() - WINDOW
    n = s.exec(select(func.count()).select_from(LoginToken)
               .where(LoginToken.user_id == user.id, LoginToken.created_at >= since)).one()
    if n >= MAILS_PER_WINDOW:
        raise UserError(f"we have already sent {n} login mails to this address in the last "
                        f"{int(WINDOW.total_seconds() // 60)} minutes; please use the newest one or wait "
                        f"a little before asking again", code="rate_limited")


def issue(s: Session, user: User, purpose: str) -> str:
    """Store a new token for ``user`` and mail its link. Returns the token
    (callers must not log or show it)."""
    _check_rate(s, user)
    token = secrets.token_urlsafe(32)
    s.add(LoginToken(user_id=user.id, purpose=purpose, token_hash=hash_token(token),
                     expires_at=utcnow() + TTL[purpose]))
    s.flush()
    link = link_for(token)
    if purpose == "confirm":
        what = ["Thank you for signing up to pbem. Open this link to confirm your address and log in:",
                link, "The link works once, for 24 hours. If you did not sign up, ignore this mail."]
        subject = "pbem: confirm your address"
    else:
        what = ["Open this link to log in to pbem:", link,
                "The link works once, for 30 minutes. If you did not ask for it, ignore this mail."]
        subject = "pbem: your login link"
    queue_mail(s, to=user.email, subject=subject, kind="login", user=user,
               context={"title": subject, "greeting": f"Dear {user.name},", "paragraphs": what})
    return token


def sign_up(s: Session, email: str, name: str) -> User:
    """New account (unconfirmed) and a confirmation mail. An address that
    already has an account gets a login link instead (same answer either way,
    so the form does not tell who is registered)."""
    existing = accounts.find_user(s, email)
    if existing is not None:
        issue(s, existing, "confirm" if not existing.confirmed else "login")
        return existing
    user, _ = accounts.register(s, email, name)
    issue(s, user, "confirm")
    return user


def request_login(s: Session, email: str) -> User | None:
    """Mail a login link if the address has an account; None otherwise."""
    if not accounts.normalise_email(email) or "@" not in email:
        raise UserError("that is not an e-mail address", example="anna@example.org", code="bad_email")
    user = accounts.find_user(s, email)
    if user is None:
        return None
    issue(s, user, "login" if user.confirmed else "confirm")
    return user


def peek(s: Session, token: str) -> LoginToken | None:
    """The live token row for ``token`` (unused, unexpired), without spending it."""
    row = s.exec(select(LoginToken).where(LoginToken.token_hash == hash_token(token))).first()
    if row is None or row.used_at is not None or _aware(row.expires_at) < utcnow():
        return None
    return row


def redeem(s: Session, token: str) -> User:
    """Spend ``token``: the user it logs in (confirmed from now on)."""
    row = peek(s, token)
    bad = UserError("this login link is unknown, already used or expired; ask for a new one",
                    example="/login", code="bad_token")
    if row is None:
        raise bad
    # compare-and-set: of two concurrent redeems only one wins
    res = s.exec(update(LoginToken).where(LoginToken.id == row.id, LoginToken.used_at.is_(None))
                 .values(used_at=utcnow()))
    if res.rowcount != 1:
        raise bad
    user = s.get(User, row.user_id)
    if not user.confirmed:
        user.confirmed = True
        s.add(user)
    s.flush()
    return user
