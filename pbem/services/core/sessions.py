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


# Every page a logged-in browser asks for begins here: the session, its user, and the user's language
# and time zone (the page is in them), in one statement of plain rows.
_VISITOR = (select(WebSession.id, WebSession.last_seen_at, User.id, User.language, User.timezone)
            .join(User, User.id == WebSession.user_id)
            .where(WebSession.key_hash == bindparam("h"), WebSession.ended_at.is_(None)))


def visitor(s: Session, secret: str | None) -> tuple[int, str, str] | None:
    """The user of the live session ``secret`` with their language and time zone, or None (no such
    session, ended, or idle too long)."""
    if not secret:
        return None
    row = s.exec(_VISITOR, params={"h": _hash(secret)}).first()
    if row is None:
        return None
    sid, seen, uid, language, tz = row
    now = utcnow()
    seen = _aware(seen)
    if now - seen > IDLE:
        s.exec(update(WebSession).where(WebSession.id == sid).values(ended_at=now))
        return None
    if now - seen > TOUCH_EVERY:
        s.exec(update(WebSession).where(WebSession.id == sid).values(last_seen_at=now))
    return uid, language, tz


def user_id(s: Session, secret: str | None) -> int | None:
    """The user of the live session ``secret``, or None (no such session, ended, or idle too long)."""
    found = visitor(s, secret)
    return found[0] if found is not None else None


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
