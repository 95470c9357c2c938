"""What every page shares, installed on the app by create_app: CSRF, the logged-in user, the
page's language, the template context, the error pages; access logs without login tokens."""
from __future__ import annotations

import logging
import re

from flask import Flask, current_app, g, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import BadRequest, Forbidden

from pbem import i18n
from pbem.i18n import _
from pbem.services.core import sessions
from pbem.store.db import unit_of_work

from . import forms, visitor, wording

# links that carry a token (a login, a confirmation, an unsubscribe link: user.kind.mac; the calendar's feed and
# its .ics files, which a calendar application fetches without a login)
AUTH_PATH_RE = re.compile(r"(/auth/|/confirm/|/unsubscribe/|/calendar/(?:game/)?)[A-Za-z0-9_.\-]{8,}")


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
    forms.csrf.init_app(app)
    wlog = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactLoginTokens) for f in wlog.filters):
        wlog.addFilter(RedactLoginTokens())
    @app.before_request
    def _load_user():
        # the session is the server's (services/core/sessions): a cookie of an ended session logs nobody in
        g.user_id = None
        secret = session.get("sid")
        if secret and request.endpoint != "static":
            with unit_of_work() as s:
                found = sessions.visitor(s, secret)
            if found is not None:  # the page's language and time zone are the user's
                g.user_id, language, g.user_timezone = found
                g.user_language = i18n.normalize(language)
            if g.user_id is None:
                session.pop("sid", None)

    _install_languages(app)

    @app.before_request
    def _no_nul():
        # No text of ours may hold a NUL (PostgreSQL refuses it in text columns: a 500 before this,
        # found by the scan, docs/RELIABILITY.md §6); no browser sends one, so the request is refused.
        if "\x00" in request.path or any("\x00" in k or "\x00" in v
                                         for k, v in request.values.items(multi=True)):
            return render_template("web/error.html", title=_("Bad request"),
                                   message=_("A field of this request holds a NUL character (\\0), which no text "
                                             "on pbem may contain. Nothing was changed.")), 400
        return None

    app.add_template_filter(wording.localtime, "local")

    @app.context_processor
    def _ctx():
        return {"me": _me_for_page(), "has_endpoint": lambda e: e in current_app.view_functions,
                "has_manage": _has_manage, "get_flashed_messages": _web_flashes, "web_hint": wording.web_hint,
                "languages": [(c, i18n.NATIVE[c]) for c in i18n.LANGUAGES], "status_word": wording.status_word,
                "policy_word": wording.policy_word, "level_word": wording.level_word,
                "levels": tuple(wording.LEVEL_WORDS), "and_list": wording.and_list, "language_next": _language_next(),
                "game_title": wording.game_title}

    def _error(status: int, title: str, message: str):
        return render_template("web/error.html", title=title, message=message, status=status), status

    @app.errorhandler(CSRFError)
    def _csrf(e):
        return _error(400, _("Form expired"), _("This form was missing its security token or it expired. "
                                                "Please go back, reload the page and send it again."))

    @app.errorhandler(400)
    def _400(e):
        # a view's abort(400, "ply is a whole number") says what was wrong; Werkzeug's own text does not
        said = getattr(e, "description", "") or ""
        if not said or said == BadRequest.description:
            said = _("Something in the address or the form was not understood")
        return _error(400, _("Bad request"), _("%(what)s. Nothing was changed: check the address "
                                               "(for example ?ply=3) and try again.", what=str(said).rstrip('.')))

    @app.errorhandler(404)
    def _404(e):
        return _error(404, _("Not found"), _("There is no such page: the address may be mistyped, or what it "
                                             "showed no longer exists."))

    @app.errorhandler(405)
    def _405(e):
        return _error(405, _("Not allowed here"), _("This address does not answer that kind of request: open "
                                                    "it from a link or a button of the site."))

    @app.errorhandler(401)
    def _401(e):
        return _error(401, _("Log in first"), _("This page is for logged-in users: log in (we mail you a link) "
                                                "and open it again. Nothing was changed."))

    @app.errorhandler(403)
    def _403(e):
        said = getattr(e, "description", "") or ""
        if said == Forbidden.description:  # Werkzeug's own text speaks of a server
            said = ""
        return _error(403, _("Not allowed"), said or _("You may not open this page."))


def _install_languages(app: Flask) -> None:
    """Flask-Babel chooses each request's language and time zone; every
    template and ``pbem.i18n._`` of the request speak it (one variable, shared
    with the engines), and so do the mails queued while answering it, unless
    they are for someone else (queue_mail speaks its recipient's language)."""
    from flask_babel import Babel

    i18n.ensure_compiled()
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(i18n.LOCALE_DIR))
    Babel(app, locale_selector=wording.page_language,
          timezone_selector=lambda: getattr(g, "user_timezone", None) or "UTC")
    i18n.install(app.jinja_env)  # after Flask-Babel's: the same catalogs, and mail's behaviour

    @app.before_request
    def _language():  # after _load_user, which read the user's language
        g.language_token = i18n.engine_i18n._current.set(wording.page_language())

    @app.teardown_request
    def _language_done(exc=None):
        token = g.pop("language_token", None)
        if token is not None:
            try:
                i18n.engine_i18n._current.reset(token)
            except ValueError:  # set in another context (a streamed response): leave it
                pass

    app.after_request(visitor.mark_write)

    @app.after_request
    def _content_language(resp):
        resp.headers.setdefault("Content-Language", i18n.current())
        resp.vary.add("Accept-Language")
        resp.vary.add("Cookie")
        return resp


def _language_next() -> str:
    """Where the language menu brings the reader back: this page, but never a page whose address
    carries a token (a login, confirmation or unsubscribe link): a page holds no token it was not
    given, so after changing the language there, the reader opens the mailed link again."""
    if AUTH_PATH_RE.search(request.path):
        return url_for("public.home")
    return request.full_path if request.query_string else request.path


def _me_for_page():
    """The logged-in user for the header. A view loads it (visitor.user); an error raised before any
    view ran (no such page, a bad address) loads it here, so the header never shows a logged-in
    person as logged out."""
    if getattr(g, "me", None) is None and getattr(g, "user_id", None) and not getattr(g, "me_loaded", False):
        g.me_loaded = True
        try:
            with unit_of_work() as s:
                visitor.user(s)
        except Exception:  # noqa: BLE001 - an error page must render even when the database does not answer
            logging.getLogger(__name__).exception("the header's user could not be loaded")
    return getattr(g, "me", None)


def _web_flashes(with_categories: bool = False, category_filter=()):
    from flask import get_flashed_messages

    out = get_flashed_messages(with_categories=with_categories, category_filter=category_filter)
    if with_categories:
        return [(c, wording.web_text(m)) for c, m in out]
    return [wording.web_text(m) for m in out]


def _has_manage() -> bool:
    """Whether this site has game-management pages (/games/<id>/manage), which the header links to."""
    return any(r.rule.startswith("/games/<") and r.rule.split("/")[3:4] == ["manage"]
               for r in current_app.url_map.iter_rules())
