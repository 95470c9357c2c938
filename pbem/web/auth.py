"""Accounts: sign-up confirmed by mail, login by one-time mailed link, profile."""
from __future__ import annotations

from datetime import date
from zoneinfo import available_timezones

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for

from pbem.services import accounts, auth, deliverability, sessions, vacations
from pbem.services.errors import UserError
from pbem.store.db import unit_of_work

from . import site

bp = Blueprint("auth", __name__)

MAIL_FORMATS = {"html": "HTML and plain text", "text": "plain text only"}
NOTIFY = {"every": "every change", "turn": "only when it is my turn", "digest": "a daily digest"}
SEAT_SENDERS = {"any": "any address I write from (I am told when it is not this one)",
                "own": "only this address (mail from any other is refused, and the seat's address renewed)"}


def _sent_page(email: str):
    # the same page for every address, with an account or without, under the limit or past it; on the
    # embedded default, where to find mail that never leaves
    local = not current_app.config["PBEM_SETTINGS"].smtp_url
    return render_template("web/auth_sent.html", email=email, local=local, most=auth.MAILS_PER_WINDOW,
                           minutes=int(auth.WINDOW.total_seconds() // 60))


def _ask_for_link(page: str, **ctx):
    """Sign-up and login alike: mail the address the link that gets its owner in (services/auth)."""
    email = request.form.get("email", "")
    try:
        with unit_of_work() as s:
            auth.mail_link(s, email)
    except UserError as e:
        return render_template(page, form={"email": email}, error=e, **ctx), 400
    return _sent_page(accounts.normalise_email(email))


@bp.route("/signup", methods=["GET", "POST"])
def signup():
    with unit_of_work() as s:
        site.user(s)
    if request.method == "GET":
        return render_template("web/signup.html", form={})
    return _ask_for_link("web/signup.html")


@bp.route("/login", methods=["GET", "POST"])
def login():
    with unit_of_work() as s:
        site.user(s)
    nxt = site.safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("web/login.html", form={}, next=nxt)
    answer = _ask_for_link("web/login.html", next=nxt)
    if nxt and not isinstance(answer, tuple):
        session["next"] = nxt
    return answer


def _link_page(token: str, error=None):
    """The page of a mailed link: a button (and, for a sign-up, the name field), or why it does not work."""
    with unit_of_work() as s:
        site.user(s)
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
            u = auth.redeem(s, token, request.form.get("name", ""))
            deliverability.clear(s, u, "login")  # the login link arrived: the address works (issue 21)
            nxt = session.get("next")
            site.log_in(s, u)
            name = u.name
    except UserError as e:  # nothing spent: a name that is taken is asked again on the same link
        return _link_page(token, e)
    flash(f"Welcome, {name}! You are logged in.", "ok")
    return redirect(site.safe_next(nxt) or url_for("lobby.dashboard"))


@bp.post("/logout")
def logout():
    with unit_of_work() as s:
        site.log_out(s)
    flash("You are logged out.", "ok")
    return redirect(url_for("public.home"))


@bp.post("/logout/everywhere")
@site.login_required
def logout_everywhere():
    with unit_of_work() as s:
        n = sessions.end_all(s, site.user(s))
        site.log_out(s)
    flash(f"You are logged out everywhere: {n} session{'s' if n != 1 else ''} ended, in this browser and any "
          f"other. Unused login links are void too.", "ok")
    return redirect(url_for("public.home"))


def _zones() -> list[str]:
    return sorted(available_timezones())


@bp.route("/profile", methods=["GET", "POST"])
@site.login_required
def profile():
    error = None
    with unit_of_work() as s:
        me = site.user(s)
        if me is None:
            return redirect(url_for("auth.login"))
        if request.method == "POST":
            try:
                fmt = request.form.get("mail_format", "")
                notify = request.form.get("notify", "")
                tz = request.form.get("timezone", "")
                senders = request.form.get("seat_senders", me.seat_senders)
                if senders not in SEAT_SENDERS:
                    raise UserError("who may use your seats' reply addresses: 'any' or 'own'", example="own",
                                    code="bad_seat_senders")
                if fmt not in MAIL_FORMATS:
                    raise UserError("mail format is 'html' or 'text'", example="html", code="bad_format")
                if notify not in NOTIFY:
                    raise UserError("notification is one of every, turn, digest", example="turn", code="bad_notify")
                if tz not in available_timezones():
                    raise UserError(f"unknown time zone {tz!r}", example="Europe/Moscow", code="bad_tz")
                accounts.rename(s, me, request.form.get("name", ""))
                me.mail_format, me.notify, me.timezone, me.seat_senders = fmt, notify, tz, senders
                s.add(me)
                flash("Profile saved.", "ok")
            except UserError as e:
                error = e
                s.rollback()
                me = site.user(s)
        vac = vacations.upcoming(s, me)
        live = sessions.live_count(s, me)
    if request.method == "POST" and error is None:
        return redirect(url_for("auth.profile"))
    return (render_template("web/profile.html", formats=MAIL_FORMATS, notify=NOTIFY, seat_senders=SEAT_SENDERS,
                            zones=_zones(),
                            vacations=vac, sessions=live, error=error), 400 if error else 200)


@bp.post("/profile/address")
@site.login_required
def address():
    try:
        with unit_of_work() as s:
            new = auth.request_address(s, site.user(s), request.form.get("email", ""))
    except UserError as e:
        flash(f"Your address was not changed: {e.describe()}", "error")
        return redirect(url_for("auth.profile"), 303)
    # the same answer whether or not the address has an account (its owner learns it from the link)
    flash(f"We have mailed a link to {new}: your address changes when you open it (within 24 hours). Until "
          f"then pbem writes to your present address.", "ok")
    return redirect(url_for("auth.profile"), 303)


@bp.post("/profile/vacation")
@site.login_required
def vacation():
    try:
        starts = date.fromisoformat(request.form.get("starts_on", ""))
        ends = date.fromisoformat(request.form.get("ends_on", ""))
    except ValueError:
        flash("Vacation dates are written YYYY-MM-DD, e.g. 2026-12-24.", "error")
        return redirect(url_for("auth.profile"), 303)
    try:
        with unit_of_work() as s:
            me = site.user(s)
            vacations.declare_everywhere(s, me, starts, ends, today=date.today())
    except UserError as e:
        flash(e.describe(), "error")
        return redirect(url_for("auth.profile"), 303)
    flash(f"Vacation from {starts} to {ends} noted.", "ok")
    return redirect(url_for("auth.profile"), 303)
