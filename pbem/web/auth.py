"""Accounts: sign-up confirmed by mail, login by one-time mailed link, profile."""
from __future__ import annotations

from datetime import date
from zoneinfo import available_timezones

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, session, url_for

from pbem import i18n
from pbem.i18n import _, lazy_gettext, ngettext

from pbem.services.core import accounts, sessions
from pbem.services.identity import auth, deliverability
from pbem.services.turns import vacations
from pbem.services.core.errors import UserError
from pbem.store.models import utcnow
from pbem.store.db import unit_of_work

from . import visitor, wording
from .notifications import profile_context

bp = Blueprint("auth", __name__)

MAIL_FORMATS = {"html": lazy_gettext("HTML and plain text"), "text": lazy_gettext("plain text only")}
NOTIFY = {"every": lazy_gettext("every change"), "turn": lazy_gettext("only when it is my turn"),
          "digest": lazy_gettext("a daily digest")}
SEAT_SENDERS = {"any": lazy_gettext("any address I write from (I am told when it is not this one)"),
                "own": lazy_gettext("only this address (mail from any other is refused, and the seat's address "
                                    "renewed)")}


def _sent_page(email: str):
    # the same page for every address, with an account or without, under the limit or past it; on the
    # embedded default, where to find mail that never leaves
    local = not current_app.config["PBEM_SETTINGS"].smtp_url
    return render_template("web/auth_sent.html", email=email, local=local, most=auth.MAILS_PER_WINDOW,
                           minutes=int(auth.WINDOW.total_seconds() // 60))


def _ask_for_link(page: str, **ctx):
    """Sign-up and login alike: mail the address the link that gets its owner in (services/identity/auth)."""
    email = request.form.get("email", "")
    try:
        with unit_of_work() as s:
            auth.mail_link(s, email, client=visitor.client())
    except UserError as e:
        return render_template(page, form={"email": email}, error=e, **ctx), 429 if e.code == "rate_limited_client" \
            else 400
    return _sent_page(accounts.normalise_email(email))


@bp.route("/signup", methods=["GET", "POST"])
def signup():
    with unit_of_work() as s:
        visitor.user(s)
    if request.method == "GET":
        return render_template("web/signup.html", form={})
    return _ask_for_link("web/signup.html")


@bp.route("/login", methods=["GET", "POST"])
def login():
    with unit_of_work() as s:
        visitor.user(s)
    nxt = visitor.safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("web/login.html", form={}, next=nxt)
    answer = _ask_for_link("web/login.html", next=nxt)
    if nxt and not isinstance(answer, tuple):
        session["next"] = nxt
    return answer


def _link_page(token: str, error=None):
    """The page of a mailed link: a button (and, for a sign-up, the name field), or why it does not work."""
    with unit_of_work() as s:
        visitor.user(s)
        row = auth.peek(s, token)
        needs_name = row is not None and auth.needs_name(s, row)
        purpose = row.purpose if row is not None else None
    status = 400 if error is not None or row is None else 200
    return render_template("web/auth_confirm.html", token=token, live=row is not None, error=error,
                           needs_name=needs_name, purpose=purpose, name=request.form.get("name", "")), status


@bp.route("/auth/<token>", methods=["GET", "POST"])
def redeem(token: str):
    # GET only shows a button (and the name field of a sign-up): link scanners in mail systems fetch
    # links, and must not spend the token; the POST (with CSRF) logs in.
    if request.method == "GET":
        return _link_page(token)
    try:
        with unit_of_work() as s:
            u = auth.redeem(s, token, request.form.get("name", ""), language=wording.page_language())
            deliverability.clear(s, u, "login")  # the login link arrived: the address works, whatever bounced before
            nxt = session.get("next")
            visitor.log_in(s, u)
            name = u.name
    except UserError as e:  # nothing spent: a name that is taken is asked again on the same link
        return _link_page(token, e)
    flash(_("Welcome, %(name)s! You are logged in.", name=name), "ok")
    return redirect(visitor.safe_next(nxt) or url_for("lobby.dashboard"))


@bp.post("/logout")
def logout():
    with unit_of_work() as s:
        visitor.log_out(s)
    flash(_("You are logged out."), "ok")
    return redirect(url_for("public.home"))


@bp.post("/logout/everywhere")
@visitor.login_required
def logout_everywhere():
    with unit_of_work() as s:
        n = sessions.end_all(s, visitor.user(s))
        visitor.log_out(s)
    flash(ngettext("You are logged out everywhere: %(num)d session ended, in this browser and any other. "
                   "Unused login links are void too.",
                   "You are logged out everywhere: %(num)d sessions ended, in this browser and any other. "
                   "Unused login links are void too.", n), "ok")
    return redirect(url_for("public.home"))


def _zones() -> list[str]:
    return sorted(available_timezones())


@bp.route("/profile", methods=["GET", "POST"])
@visitor.login_required
def profile():
    error = None
    with unit_of_work() as s:
        me = visitor.user(s)
        if me is None:
            return redirect(url_for("auth.login"))
        if request.method == "POST":
            try:
                fmt = request.form.get("mail_format", "")
                notify = request.form.get("notify", "")
                tz = request.form.get("timezone", "")
                senders = request.form.get("seat_senders", me.seat_senders)
                if senders not in SEAT_SENDERS:
                    raise UserError(_("who may use your seats' reply addresses: 'any' or 'own'"), example="own",
                                    code="bad_seat_senders")
                if fmt not in MAIL_FORMATS:
                    raise UserError(_("mail format is 'html' or 'text'"), example="html", code="bad_format")
                if notify not in NOTIFY:
                    raise UserError(_("notification is one of every, turn, digest"), example="turn",
                                    code="bad_notify")
                if tz not in available_timezones():
                    raise UserError(_("unknown time zone %(zone)s", zone=repr(tz)), example="Europe/Moscow",
                                    code="bad_tz")
                lang = request.form.get("language")
                if lang is not None and lang != me.language:  # the profile's Language: pages and mails speak it
                    accounts.set_language(s, me, lang)
                accounts.rename(s, me, request.form.get("name", ""))
                me.mail_format, me.notify, me.timezone, me.seat_senders = fmt, notify, tz, senders
                s.add(me)
                g.user_language = i18n.normalize(me.language)
                with i18n.use(me.language):
                    flash(_("Profile saved."), "ok")
            except UserError as e:
                error = e
                s.rollback()
                me = visitor.user(s)
        vac = vacations.upcoming(s, me)
        live = sessions.live_count(s, me)
        notify_ctx = profile_context(s, me)  # the Notifications card
    if request.method == "POST" and error is None:
        return redirect(url_for("auth.profile"))
    return (render_template("web/profile.html", formats=MAIL_FORMATS, notify=NOTIFY, seat_senders=SEAT_SENDERS,
                            zones=_zones(),
                            vacations=vac, sessions=live, error=error, notif=notify_ctx), 400 if error else 200)


@bp.post("/profile/address")
@visitor.login_required
def address():
    try:
        with unit_of_work() as s:
            new = auth.request_address(s, visitor.user(s), request.form.get("email", ""))
    except UserError as e:
        flash(_("Your address was not changed: %(why)s", why=e.describe()), "error")
        return redirect(url_for("auth.profile"), 303)
    # the same answer whether or not the address has an account (its owner learns it from the link)
    flash(_("We have mailed a link to %(address)s: your address changes when you open it (within 24 hours). "
            "Until then pbem writes to your present address.", address=new), "ok")
    return redirect(url_for("auth.profile"), 303)


@bp.post("/profile/vacation")
@visitor.login_required
def vacation():
    try:
        starts = date.fromisoformat(request.form.get("starts_on", ""))
        ends = date.fromisoformat(request.form.get("ends_on", ""))
    except ValueError:
        flash(_("Vacation dates are written YYYY-MM-DD, e.g. 2026-12-24."), "error")
        return redirect(url_for("auth.profile"), 303)
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            # the same absence as AWAY by mail: every game, each within its allowance, in the
            # user's own days
            done = vacations.away(s, me, starts, ends, today=vacations.local_today(me, utcnow()))
    except UserError as e:
        flash(e.describe(), "error")
        return redirect(url_for("auth.profile"), 303)
    flash(_("Vacation from %(start)s to %(end)s noted in %(games)s; each table is told.",
            start=i18n.format_date(starts), end=i18n.format_date(ends),
            games=", ".join(f"#{g.id}" for g in done.applied)), "ok")
    for g, why in done.refused:
        flash(_("Not in game #%(id)d: %(why)s", id=g.id, why=why), "error")
    return redirect(url_for("auth.profile"), 303)


@bp.post("/language")
def language():
    """The language menu: a visitor's choice is kept in a cookie; a logged-in user's is
    their language, as the profile's select sets it. Back to the page it was chosen on."""
    code = request.form.get("language", "")
    back = visitor.safe_next(request.form.get("next")) or url_for("public.home")
    if not i18n.supported(code):
        flash(_("%(code)s is not a language of this site.", code=code[:20] or "?"), "error")
        return redirect(back, 303)
    code = i18n.normalize(code)
    if getattr(g, "user_id", None):
        with unit_of_work() as s:
            me = visitor.user(s)
            if me is not None:
                accounts.set_language(s, me, code)
    resp = redirect(back, 303)
    resp.set_cookie(wording.LANG_COOKIE, code, max_age=365 * 86400, samesite="Lax", httponly=True,
                    secure=request.is_secure)
    return resp
