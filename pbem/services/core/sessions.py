"""Web sessions kept on the server, so that they can be ended.

The browser's cookie (signed by Flask) carries a random secret; the database
holds its SHA-256 with the user, when it began, when it was last seen and when
it ended. Logging out ends one session; "log out everywhere" and a change of
the user's address end all of them, and the login links still unspent with
them. A copy of an ended session's cookie logs nobody in."""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import bindparam, update
from sqlmodel import Session, select

from pbem.store.models import LoginToken, User, WebSession, utcnow

IDLE = timedelta(days=31)  # a session unused this long has ended (the cookie lives as long)
TOUCH_EVERY = timedelta(minutes=5)  # last_seen_at is written at most this often: not one write per page


def _hash(secret: str) -> str:
    return hashlib.sha256((secret or "").encode()).hexdigest()


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def start(s: Session, user: User) -> str:
    """A new session of ``user``; returns the secret for the cookie (never stored, never logged)."""
    secret = secrets.token_urlsafe(32)
    s.add(WebSession(key_hash=_hash(secret), user_id=user.id))
    s.flush()
    return secret


_FIND = select(WebSession).where(WebSession.key_hash == bindparam("h"), WebSession.ended_at.is_(None))


def user_id(s: Session, secret: str | None) -> int | None:
    """The user of the live session ``secret``, or None (no such session, ended, or idle too long)."""
    if not secret:
        return None
    row = s.exec(_FIND, params={"h": _hash(secret)}).first()
    if row is None:
        return None
    now = utcnow()
    seen = _aware(row.last_seen_at)
    if now - seen > IDLE:
        row.ended_at = now
        s.add(row)
        return None
    if now - seen > TOUCH_EVERY:
        row.last_seen_at = now
        s.add(row)
    return row.user_id


def end(s: Session, secret: str | None) -> None:
    """End this one session (logging out)."""
    if secret:
        s.exec(update(WebSession).where(WebSession.key_hash == _hash(secret), WebSession.ended_at.is_(None))
               .values(ended_at=utcnow()))


def end_all(s: Session, user: User) -> int:
    """End every session of ``user`` and void the login links not yet spent. Returns the sessions ended."""
    now = utcnow()
    res = s.exec(update(WebSession).where(WebSession.user_id == user.id, WebSession.ended_at.is_(None))
                 .values(ended_at=now))
    s.exec(update(LoginToken).where(LoginToken.user_id == user.id, LoginToken.used_at.is_(None))
           .values(used_at=now))
    return res.rowcount


def live_count(s: Session, user: User) -> int:
    from sqlalchemy import func

    since = utcnow() - IDLE
    return s.exec(select(func.count()).select_from(WebSession).where(
        WebSession.user_id == user.id, WebSession.ended_at.is_(None), WebSession.last_seen_at > since)).one()
