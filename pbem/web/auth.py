"""Accounts: sign-up confirmed by mail, login by one-time mailed link, profile."""
from __future__ import annotations

from datetime import date
from zoneinfo import available_timezones

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for

from pbem.services import accounts, auth, vacations
from pbem.services.errors import UserError
from pbem.store.db import unit_of_work

from . import site

bp = Blueprint("auth", __name__)

MAIL_FORMATS = {"html": "HTML and plain text", "text": "plain text only"}
NOTIFY = {"every": "every change", "turn": "only when it is my turn", "digest": "a daily digest"}


def _sent_page(email: str):
    # the same page for every address; on the embedded default, where to find mail that never leaves
    local = not current_app.config["PBEM_SETTINGS"].smtp_url
    return render_template("web/auth_sent.html", email=email, local=local)


@bp.route("/signup", methods=["GET", "POST"])
def signup():
    with unit_of_work() as s:
        site.user(s)
    if request.method == "GET":
        return render_template("web/signup.html", form={})
    form = {"email": request.form.get("email", ""), "name": request.form.get("name", "")}
    try:
        with unit_of_work() as s:
            auth.sign_up(s, form["email"], form["name"])
    except UserError as e:
        return render_template("web/signup.html", form=form, error=e), 400
    return _sent_page(accounts.normalise_email(form["email"]))


@bp.route("/login", methods=["GET", "POST"])
def login():
    with unit_of_work() as s:
        site.user(s)
    nxt = site.safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("web/login.html", form={}, next=nxt)
    email = request.form.get("email", "")
    try:
        with unit_of_work() as s:
            auth.request_login(s, email)
    except UserError as e:
        return render_template("web/login.html", form={"email": email}, error=e, next=nxt), 400
    if nxt:
        session["next"] = nxt
    # the same answer whether or not the address has an account
    return _sent_page(accounts.normalise_email(email))


@bp.route("/auth/<token>", methods=["GET", "POST"])
def redeem(token: str):
    # GET only shows a button: link scanners in mail systems fetch links, and
    # must not spend the token; the POST (with CSRF) logs in.
    if request.method == "GET":
        with unit_of_work() as s:
            site.user(s)
            live = auth.peek(s, token) is not None
        return render_template("web/auth_confirm.html", token=token, live=live), (200 if live else 400)
    try:
        with unit_of_work() as s:
            u = auth.redeem(s, token)
    except UserError as e:
        with unit_of_work() as s:
            site.user(s)
        return render_template("web/auth_confirm.html", token=token, live=False, error=e), 400
    nxt = session.get("next")
    site.log_in(u)
    flash(f"Welcome, {u.name}! You are logged in.", "ok")
    return redirect(site.safe_next(nxt) or url_for("lobby.dashboard"))


@bp.post("/logout")
def logout():
    session.clear()
    flash("You are logged out.", "ok")
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
                name = accounts.clean_name(request.form.get("name", ""))
                fmt = request.form.get("mail_format", "")
                notify = request.form.get("notify", "")
                tz = request.form.get("timezone", "")
                if fmt not in MAIL_FORMATS:
                    raise UserError("mail format is 'html' or 'text'", example="html", code="bad_format")
                if notify not in NOTIFY:
                    raise UserError("notification is one of every, turn, digest", example="turn", code="bad_notify")
                if tz not in available_timezones():
                    raise UserError(f"unknown time zone {tz!r}", example="Europe/Moscow", code="bad_tz")
                me.name, me.mail_format, me.notify, me.timezone = name, fmt, notify, tz
                s.add(me)
                flash("Profile saved.", "ok")
            except UserError as e:
                error = e
                s.rollback()
                me = site.user(s)
        vac = vacations.upcoming(s, me)
    if request.method == "POST" and error is None:
        return redirect(url_for("auth.profile"))
    return (render_template("web/profile.html", formats=MAIL_FORMATS, notify=NOTIFY, zones=_zones(),
                            vacations=vac, error=error), 400 if error else 200)


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
