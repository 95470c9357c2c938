"""The web site: create_app() and one blueprint per area."""
from __future__ import annotations

import logging
from pathlib import Path

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface
from jinja2 import BytecodeCache

from pbem.config import TEMPLATES, Settings, require_secret_key, settings


class _PollsLeaveTheCookie(SecureCookieSessionInterface):
    """A live page's polls (``…/thread.json``, ``…/view.json``) and its event stream (``…/live``) never
    write the session cookie. The session is permanent, so every answer would set it again from what its
    request carried: a poll
    in flight while the player sends a move would put back the cookie from before the move and wipe
    the result that the move's redirect shows ("Applied: …"). A poll changes nothing in the session."""

    def should_set_cookie(self, app, session) -> bool:
        if request and request.method == "GET" and request.path.endswith((".json", "/live")) and not session.modified:
            return False
        return super().should_set_cookie(app, session)


class _Site(Flask):
    session_interface = _PollsLeaveTheCookie()


class _CompiledOnce(BytecodeCache):
    """The templates' compiled code, kept for every site this process makes: a process that makes
    many (the tests make one per test) compiles each template once, not once per site. Jinja checks
    each entry against the template's source, so an edited template is compiled again."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledOnce()


def create_app(cfg: Settings | None = None) -> Flask:
    """The site; refuses to be made in production without PBEM_SECRET_KEY
    (config.require_secret_key): each machine's own key would sign sessions
    and forms that the others refuse."""
    cfg = cfg or settings()
    require_secret_key(cfg)
    app = _Site(__name__, template_folder=str(TEMPLATES), root_path=str(TEMPLATES.parent),
                static_folder=str(Path(__file__).resolve().parent / "static"),
                instance_path=str(cfg.var_dir / "instance"))
    app.jinja_options = {**app.jinja_options, "bytecode_cache": _COMPILED}
    app.config.update(SECRET_KEY=cfg.secret_key, PBEM_SETTINGS=cfg,
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax",
                      SESSION_COOKIE_SECURE=cfg.base_url.startswith("https://"),
                      WTF_CSRF_TIME_LIMIT=None)

    from . import (
        admin, archive, auth, confirm, disputes, games, live, lobby, manage, notifications, ops, outbox, players,
        public, site, tournaments, unsubscribe,
    )

    # one blueprint per area; the URL map lists their rules in this order
    for area in (outbox, public, auth, lobby, games, live, archive, admin, confirm, unsubscribe, notifications, players,
                 manage, disputes, ops, tournaments):
        app.register_blueprint(area.bp)
    site.install(app)

    @app.after_request
    def security_headers(resp):
        # Scripts only from our own files; boards carry inline styles (mail-safe HTML), so styles may be
        # inline; no framing of our pages. Login links carry tokens in their path, so a Referer never
        # carries a path: only our origin (Flask-WTF refuses an HTTPS form post without a same-site Referer,
        # so 'no-referrer' broke every form over HTTPS; 'strict-origin' sends nothing from HTTPS to HTTP).
        resp.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; "
                                "form-action 'self'; base-uri 'none'; object-src 'none'")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "strict-origin")
        if cfg.base_url.startswith("https://"):
            resp.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return resp

    if not logging.getLogger().handlers:  # nobody set up logging (gunicorn): ours, in the settings' format
        from pbem import logs

        logs.configure("web", cfg)
    return app
