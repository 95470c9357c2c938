"""What every page shares: CSRF, the logged-in user, errors, the blueprints."""
from __future__ import annotations

import logging
import re
from functools import wraps
from urllib.parse import urlsplit

from flask import Flask, current_app, flash, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect

from pbem.services import sessions
from pbem.store.db import unit_of_work
from pbem.store.models import User

csrf = CSRFProtect()


AUTH_PATH_RE = re.compile(r"(/auth/|/confirm/)[A-Za-z0-9_\-]{8,}")  # login and confirmation links


class RedactLoginTokens(logging.Filter):
    """Access logs must not carry live login tokens (like reply tokens)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = AUTH_PATH_RE.sub(r"\1<token>", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(AUTH_PATH_RE.sub(r"\1<token>", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


def install(app: Flask) -> None:
    csrf.init_app(app)
    wlog = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactLoginTokens) for f in wlog.filters):
        wlog.addFilter(RedactLoginTokens())
    from . import admin, auth, confirm, games, lobby, public, unsubscribe

    for mod in (public, auth, lobby, games, admin, confirm, unsubscribe):
        app.register_blueprint(mod.bp)

    @app.before_request
    def _load_user():
        # the session is the server's (services/sessions): a cookie of an ended session logs nobody in
        g.user_id = None
        secret = session.get("sid")
        if secret and request.endpoint != "static":
            with unit_of_work() as s:
                g.user_id = sessions.user_id(s, secret)
            if g.user_id is None:
                session.pop("sid", None)

    @app.before_request
    def _no_nul():
        # No text of ours may hold a NUL (PostgreSQL refuses it in text columns: a 500 before this,
        # found by the scan, docs/RELIABILITY.md §6); no browser sends one, so the request is refused.
        if "\x00" in request.path or any("\x00" in k or "\x00" in v
                                         for k, v in request.values.items(multi=True)):
            return render_template("web/error.html", title="Bad request",
                                   message="A field of this request holds a NUL character (\\0), which no text "
                                           "on pbem may contain. Nothing was changed."), 400
        return None

    app.add_template_filter(localtime, "local")

    @app.context_processor
    def _ctx():
        return {"me": getattr(g, "me", None), "has_endpoint": lambda e: e in current_app.view_functions,
                "has_manage": _has_manage}

    @app.errorhandler(CSRFError)
    def _csrf(e):
        return render_template("web/error.html", title="Form expired",
                               message="This form was missing its security token or it expired. "
                                       "Please go back, reload the page and send it again."), 400

    @app.errorhandler(404)
    def _404(e):
        return render_template("web/error.html", title="Not found",
                               message="There is no such page."), 404

    @app.errorhandler(401)
    def _401(e):
        return render_template("web/error.html", title="Log in first",
                               message="This page is for logged-in users: log in (we mail you a link) "
                                       "and open it again. Nothing was changed."), 401

    @app.errorhandler(403)
    def _403(e):
        return render_template("web/error.html", title="Not allowed",
                               message=getattr(e, "description", "") or "You may not open this page."), 403


def _has_manage() -> bool:
    """Game-management pages (issue 7) exist at /games/<id>/manage."""
    return any(r.rule.startswith("/games/<") and r.rule.split("/")[3:4] == ["manage"]
               for r in current_app.url_map.iter_rules())


def localtime(dt, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``dt`` (UTC) in the logged-in user's time zone, with its abbreviation."""
    if dt is None:
        return ""
    from datetime import timezone
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    me = getattr(g, "me", None)
    try:
        tz = ZoneInfo(me.timezone) if me is not None and me.timezone else timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        tz = timezone.utc
    local = dt.astimezone(tz)
    return local.strftime(fmt) + " " + (local.tzname() or "UTC")


def user(s) -> User | None:
    """The logged-in user, loaded in session ``s`` (also kept as g.me for templates)."""
    uid = getattr(g, "user_id", None)
    me = s.get(User, uid) if uid else None
    # templates (error pages too, after a rollback has expired ``me``) read a detached copy
    g.me = User(**me.model_dump()) if me is not None else None
    return me


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
    flash("Please log in first: we mail you a link.", "info")
    return redirect(url_for("auth.login", next=request.path))


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
