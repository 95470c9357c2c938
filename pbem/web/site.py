"""What every page shares: CSRF, the logged-in user, errors, the blueprints."""
from __future__ import annotations

from functools import wraps

from flask import Flask, current_app, flash, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect

from pbem.store.models import User

csrf = CSRFProtect()


def install(app: Flask) -> None:
    csrf.init_app(app)
    from . import admin, auth, games, lobby, public

    for mod in (public, auth, lobby, games, admin):
        app.register_blueprint(mod.bp)

    @app.before_request
    def _load_user():
        g.user_id = session.get("uid")

    @app.context_processor
    def _ctx():
        return {"me": getattr(g, "me", None), "has_endpoint": lambda e: e in current_app.view_functions}

    @app.errorhandler(CSRFError)
    def _csrf(e):
        return render_template("web/error.html", title="Form expired",
                               message="This form was missing its security token or it expired. "
                                       "Please go back, reload the page and send it again."), 400

    @app.errorhandler(404)
    def _404(e):
        return render_template("web/error.html", title="Not found",
                               message="There is no such page."), 404

    @app.errorhandler(403)
    def _403(e):
        return render_template("web/error.html", title="Not allowed",
                               message=getattr(e, "description", "") or "You may not open this page."), 403


def user(s) -> User | None:
    """The logged-in user, loaded in session ``s`` (also kept as g.me for templates)."""
    uid = getattr(g, "user_id", None)
    me = s.get(User, uid) if uid else None
    if uid and me is None:
        session.pop("uid", None)
    g.me = me
    return me


def log_in(u: User) -> None:
    session.clear()  # a fresh session on login: no fixation
    session["uid"] = u.id
    session.permanent = True
    g.user_id = u.id


def login_required(view):
    @wraps(view)
    def wrapper(*a, **kw):
        if not getattr(g, "user_id", None):
            flash("Please log in first: we mail you a link.", "info")
            return redirect(url_for("auth.login", next=request.path))
        return view(*a, **kw)

    return wrapper


def safe_next(target: str | None) -> str | None:
    """Only same-site paths, never //host or a scheme."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return None
