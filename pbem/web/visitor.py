"""Who is asking: the logged-in user of this request, logging in and out (a session kept in the
database: services/core/sessions), the login a page needs, and where a login may send the browser next."""
from __future__ import annotations

from functools import wraps
from urllib.parse import urlsplit

from flask import flash, g, redirect, request, session, url_for

from pbem.i18n import _
from pbem.services.core import sessions
from pbem.store.models import User


def user(s) -> User | None:
    """The logged-in user, loaded in session ``s`` (also kept as g.me for templates)."""
    uid = getattr(g, "user_id", None)
    me = s.get(User, uid) if uid else None
    # templates (error pages too, after a rollback has expired ``me``) read a detached copy
    g.me = User(**me.model_dump()) if me is not None else None
    return me


def user_id() -> int | None:
    """The logged-in user's id, without reading their row (a poll needs no more)."""
    return getattr(g, "user_id", None)


def client() -> str:
    """The visitor's address, for limits per client: the peer, or, when the peer is this machine (the
    deploy's nginx or Caddy in front, deploy/nginx-pbem.conf), the address that proxy appended last to
    X-Forwarded-For (the ones before it anybody may write). An IPv6 address counts by its /64 (one
    customer's network)."""
    import ipaddress

    peer = request.remote_addr or ""
    try:
        addr = ipaddress.ip_address(peer)
        if addr.is_loopback:
            forwarded = [a.strip() for a in request.headers.get("X-Forwarded-For", "").split(",") if a.strip()]
            if forwarded:
                addr = ipaddress.ip_address(forwarded[-1])
    except ValueError:
        return peer[:64]
    if addr.version == 6 and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return str(ipaddress.ip_network(f"{addr}/64", strict=False)) if addr.version == 6 else str(addr)


def log_in(s, u: User) -> None:
    """Start a session of ``u`` in the database (transaction ``s``) and give its secret to this browser."""
    secret = sessions.start(s, u)
    session.clear()  # a fresh session on login: no fixation
    session["sid"] = secret
    session.permanent = True
    g.user_id = u.id


def log_out(s) -> None:
    """End this browser's session in the database: a copy of its cookie no longer logs anyone in."""
    sessions.end(s, session.get("sid"))
    session.clear()
    g.user_id = None


def to_login():
    """Where a visitor goes for a page that needs a login: the login form, back here afterwards."""
    flash(_("Please log in first: we mail you a link."), "info")
    return redirect(url_for("auth.login", next=request.path))


WROTE = "wrote"  # in the browser's session: when it last wrote (a POST), while a replica serves reads


def reads_that_may_lag():
    """The transaction of a page that may show the site a moment behind (the lobby, the archive, a
    player's page, a game's history): on the read replica (store/db.reading), unless this browser wrote
    within replica_stick_s -- then on the primary, so the player who has just moved, joined or
    created a game sees it on the next page."""
    import time

    from pbem.config import settings
    from pbem.store.db import reading, unit_of_work

    cfg = settings()
    if not cfg.database_replica_url or time.time() - session.get(WROTE, 0) < cfg.replica_stick_s:
        return unit_of_work()
    return reading()


def mark_write(response):
    """After a request that may have written (not GET, HEAD or OPTIONS): this browser reads from the
    primary for a while (reads_that_may_lag). Only while a replica is set: otherwise no cookie changes."""
    import time

    from pbem.config import settings

    if settings().database_replica_url and request.method not in ("GET", "HEAD", "OPTIONS") \
            and response.status_code < 500:
        session[WROTE] = int(time.time())
    return response


def login_required(view):
    @wraps(view)
    def wrapper(*a, **kw):
        if not getattr(g, "user_id", None):
            return to_login()
        return view(*a, **kw)

    return wrapper


NEXT_MAX = 2000


def safe_next(target: str | None) -> str | None:
    r"""``target`` when it is a path of this site, else None (the caller goes
    to its default page). Only printable ASCII, so nothing a browser drops or
    rewrites before it reads the address (it strips tabs and newlines, so
    ``/\t/evil.example`` would become ``//evil.example``; a newline would
    also break the Location header), no backslash (read as ``/``), one
    leading ``/`` and no scheme or host."""
    if not isinstance(target, str) or not target.startswith("/") or len(target) > NEXT_MAX:
        return None
    if any(not "!" <= c <= "~" for c in target) or "\\" in target or target.startswith("//"):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return None
    return target
