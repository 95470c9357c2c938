"""What every page shares: CSRF, the logged-in user, errors, the blueprints."""
from __future__ import annotations

import logging
import re
from functools import wraps
from urllib.parse import urlsplit

from flask import Flask, abort, current_app, flash, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import BadRequest, Forbidden

from pbem import i18n
from pbem.i18n import _, lazy_gettext
from pbem.services.core import sessions
from pbem.store.db import unit_of_work
from pbem.store.models import User

csrf = CSRFProtect()


# links that carry a token (a login, a confirmation, an unsubscribe link: user.kind.mac; the calendar's feed and
# its .ics files, issue 24)
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
    csrf.init_app(app)
    wlog = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactLoginTokens) for f in wlog.filters):
        wlog.addFilter(RedactLoginTokens())
    from . import admin, archive, auth, confirm, games, lobby, notifications, players, public, unsubscribe

    for mod in (public, auth, lobby, games, archive, admin, confirm, unsubscribe, notifications, players):
        app.register_blueprint(mod.bp)

    @app.before_request
    def _load_user():
        # the session is the server's (services/sessions): a cookie of an ended session logs nobody in
        g.user_id = None
        secret = session.get("sid")
        if secret and request.endpoint != "static":
            with unit_of_work() as s:
                g.user_id = sessions.user_id(s, secret)
                me = s.get(User, g.user_id) if g.user_id is not None else None
                if me is not None:  # the page's language and time zone (issue 23), in the same transaction
                    g.user_language, g.user_timezone = i18n.normalize(me.language), me.timezone
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

    app.add_template_filter(localtime, "local")

    @app.context_processor
    def _ctx():
        return {"me": _me_for_page(), "has_endpoint": lambda e: e in current_app.view_functions,
                "has_manage": _has_manage, "get_flashed_messages": _web_flashes, "web_hint": web_hint,
                "languages": [(c, i18n.NATIVE[c]) for c in i18n.LANGUAGES], "status_word": status_word,
                "policy_word": policy_word, "level_word": level_word, "levels": tuple(LEVEL_WORDS), "and_list": and_list, "language_next": _language_next()}

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


LANG_COOKIE = "pbem_lang"


def page_language() -> str:
    """The language of this request (issue 23): the logged-in user's, else the
    visitor's choice (the language menu, kept in a cookie), else the best of
    the browser's ``Accept-Language``, else English."""
    lang = getattr(g, "user_language", None)
    if lang:
        return lang
    chosen = request.cookies.get(LANG_COOKIE)
    if i18n.supported(chosen):
        return i18n.normalize(chosen)
    return i18n.from_accept_language(request.headers.get("Accept-Language")) or i18n.SOURCE


def _install_languages(app: Flask) -> None:
    """Flask-Babel chooses each request's language and time zone; every
    template and ``pbem.i18n._`` of the request speak it (one variable, shared
    with the engines), and so do the mails queued while answering it, unless
    they are for someone else (queue_mail speaks its recipient's language)."""
    from flask_babel import Babel

    i18n.ensure_compiled()
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(i18n.LOCALE_DIR))
    Babel(app, locale_selector=page_language,
          timezone_selector=lambda: getattr(g, "user_timezone", None) or "UTC")
    i18n.install(app.jinja_env)  # after Flask-Babel's: the same catalogs, and mail's behaviour

    @app.before_request
    def _language():  # after _load_user, which read the user's language
        g.language_token = i18n.engine_i18n._current.set(page_language())

    @app.teardown_request
    def _language_done(exc=None):
        token = g.pop("language_token", None)
        if token is not None:
            try:
                i18n.engine_i18n._current.reset(token)
            except ValueError:  # set in another context (a streamed response): leave it
                pass

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
    """The logged-in user for the header. A view loads it (site.user); an error raised before any
    view ran (no such page, a bad address) loads it here, so the header never shows a logged-in
    person as logged out."""
    if getattr(g, "me", None) is None and getattr(g, "user_id", None) and not getattr(g, "me_loaded", False):
        g.me_loaded = True
        try:
            with unit_of_work() as s:
                user(s)
        except Exception:  # noqa: BLE001 - an error page must render even when the database does not answer
            logging.getLogger(__name__).exception("the header's user could not be loaded")
    return getattr(g, "me", None)


# the mail commands a UserError's example may start with, and what a web page says instead
WEB_HINTS = {
    "REGISTER": "{rest}", "SAY": "{rest}", "NEXT": "{rest}", "CARD": "{rest}", "VACATION": "{rest}",
    "IF": "", "HELP": "", "CANCEL": "", "NEWADDRESS": "",
    "GAMES": lazy_gettext("see My games"), "STATUS": lazy_gettext("see the game's page"),
    "START": lazy_gettext("use the Start button on the game's page"),
    "JOIN": lazy_gettext("use the Join button in the lobby"),
    "RESIGN": lazy_gettext("use Resign on the game's Manage page"),
    "REPLACE": lazy_gettext("use 'Take over this seat' on the game's Manage page"),
    "NEW": lazy_gettext("use a Create form in the lobby"),
    "NOTIFY": lazy_gettext("use Notifications on your profile"),
    "DISPUTE": lazy_gettext("use the Dispute form on the game's Manage page"),
    "UNDO": lazy_gettext("use the undo buttons on the game's Manage page"),
    "SEATS": lazy_gettext("use 'Who may use my seats' reply addresses' on your profile"),
    "LANGUAGE": lazy_gettext("use Language on your profile"),
    "ACCEPT": lazy_gettext("use Accept or Decline in the lobby"),
    "DECLINE": lazy_gettext("use Accept or Decline in the lobby"),
    "REMOVE": lazy_gettext("use the Remove button next to the player on the game's page"),
}
PASSWORD_HINT = lazy_gettext("type the game's password in the Password field next to Join")
# a UserError's example line, whatever the language calls "e.g." ("\n  e.g. STATUS 2", "\n  напр. STATUS 2"):
# the line break and the two-space indent mark it, then one or two words (the last ending in a dot or colon)
_EG = re.compile(r"\n  (?:\S+ )?\S+[.:] (?P<ex>.*)\Z", re.S)


def web_hint(example: str | None) -> str:
    """A UserError's example as a web page words it: examples are written for mail ('REGISTER Anna K.',
    'STATUS 2'); here a mail command becomes the field's value or the button that does it ('' when
    there is nothing to show)."""
    if not example:
        return ""
    ex = example.strip()
    if ex.startswith("pbem "):  # a command line of the machine's operator
        return ""
    word, _sep, rest = ex.partition(" ")
    hint = WEB_HINTS.get(word.rstrip(":"))
    if hint is None:
        return _("for example %(example)s", example=ex)
    rest = rest.strip()
    if word == "NOTIFY" and rest.split(" ", 1)[0].upper() in ("ADD", "TABLE"):  # a channel's address
        return _("for example %(example)s", example=rest.split()[-1])
    if word.rstrip(":") in ("SAY", "NEXT"):
        rest = re.sub(r"^(\d+|all)?:\s*", "", rest)
    if word == "JOIN" and "<password>" in rest:
        return str(PASSWORD_HINT)
    if hint == "{rest}":
        return _("for example %(example)s", example=rest) if rest else ""
    return str(hint)


def web_text(text: str) -> str:
    """A message that may end in a UserError's mail example ('\\n  e.g. STATUS 2'), worded for the web."""
    m = _EG.search(text or "")
    if not m:
        return text
    hint = web_hint(m.group("ex"))
    return text[:m.start()] + (f" ({hint})" if hint else "")


def describe(e) -> str:
    """A UserError for a web page: its message, with its example worded for the web."""
    return web_text(e.describe())


def _web_flashes(with_categories: bool = False, category_filter=()):
    from flask import get_flashed_messages

    out = get_flashed_messages(with_categories=with_categories, category_filter=category_filter)
    if with_categories:
        return [(c, web_text(m)) for c, m in out]
    return [web_text(m) for m in out]


def _has_manage() -> bool:
    """Game-management pages (issue 7) exist at /games/<id>/manage."""
    return any(r.rule.startswith("/games/<") and r.rule.split("/")[3:4] == ["manage"]
               for r in current_app.url_map.iter_rules())


# the page formats: a strftime pattern a template asks for (``|local('%b %d %H:%M')``) names a Babel
# skeleton, written each language's way ("Nov 25, 2026, 14:05", "25 нояб. 2026 г., 14:05")
_SKELETONS = {"%Y-%m-%d %H:%M": ("yMMMd", "Hm"), "%Y-%m-%d %H:%M:%S": ("yMMMd", "Hms"),
              "%b %d %H:%M": ("MMMd", "Hm"), "%m-%d %H:%M": ("MMMd", "Hm"), "%a %d %b %H:%M": ("MMMEd", "Hm")}


def localtime(dt, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``dt`` (UTC) in the logged-in user's time zone and the page's language, with the zone's abbreviation."""
    if dt is None:
        return ""
    from datetime import timezone

    from babel import dates

    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    me = getattr(g, "me", None)
    tz = i18n.zone(me.timezone if me is not None and me.timezone else "UTC")
    loc = i18n.locale()
    day, hour = _SKELETONS.get(fmt, _SKELETONS["%Y-%m-%d %H:%M"])
    local = dt.astimezone(tz)
    text = (dates.get_datetime_format("medium", locale=loc).replace("'", "")
            .replace("{1}", dates.format_skeleton(day, local, locale=loc))
            .replace("{0}", dates.format_skeleton(hour, local, locale=loc)))
    return f"{text} {local.tzname() or 'UTC'}"


# a game's status as a page shows it (the stored value stays the English word)
STATUS_WORDS = {"open": lazy_gettext("open"), "running": lazy_gettext("running"),
                "finished": lazy_gettext("finished"), "cancelled": lazy_gettext("cancelled"),
                "abandoned": lazy_gettext("abandoned")}


# what a game does when a move is late, as a page names it (the stored value stays the English word)
POLICY_WORDS = {"wait": lazy_gettext("wait"), "bot": lazy_gettext("bot"), "abandon": lazy_gettext("abandon")}


# a bot's level (issue 26: pbem.engine.bots.LEVELS), as a page names it
LEVEL_WORDS = {"easy": lazy_gettext("easy"), "normal": lazy_gettext("normal"), "strong": lazy_gettext("strong")}


def level_word(level: str | None) -> str:
    word = LEVEL_WORDS.get(level or "")
    return str(word) if word is not None else (level or "")


def policy_word(policy: str) -> str:
    word = POLICY_WORDS.get(policy)
    return str(word) if word is not None else policy


def status_word(status: str) -> str:
    word = STATUS_WORDS.get(status)
    return str(word) if word is not None else status


def and_list(items) -> str:
    """Names joined the language's way: "Anna and Ben" (English joins them all with "and", as before)."""
    items = [str(x) for x in items]
    if i18n.current() == i18n.SOURCE or len(items) < 2:
        return " and ".join(items)
    from babel.lists import format_list

    return format_list(items, locale=i18n.locale())


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


def page_arg(name: str = "page") -> int:
    """The page a list is asked for (``?page=``, 1 the first; services/paging); 400 for a word."""
    try:
        return max(1, int(request.args.get(name, "1") or 1))
    except ValueError:
        abort(400, _("page is a whole number, e.g. page=2"))


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
