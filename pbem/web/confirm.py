"""The link in a mail that asks to confirm held commands: its
page shows what waits, and its buttons do what a reply to that mail does.
A GET changes nothing (mail systems fetch links to scan them)."""
from __future__ import annotations

from flask import Blueprint, render_template, request

from pbem.services.identity import confirmations
from pbem.store.db import unit_of_work

from . import visitor

bp = Blueprint("confirm", __name__)


@bp.route("/confirm/<token>", methods=["GET", "POST"])
def confirm(token: str):
    with unit_of_work() as s:
        visitor.user(s)
        row = confirmations.pending(s, token)
        lines = confirmations.shown_lines(row) if row is not None else []
        email = row.email if row is not None else ""
        if request.method == "GET" or row is None:
            return render_template("web/confirm.html", token=token, lines=lines, email=email, done=None), \
                (200 if row is not None else 404)
        yes = request.form.get("answer") != "no"
        inbound_id = confirmations.by_link(s, token, yes=yes)
    if inbound_id is not None:
        try:  # after the commit; the sweep picks it up if the broker is away
            from pbem.celery_app import enqueue_process

            enqueue_process(inbound_id)
        except Exception:
            pass
    return render_template("web/confirm.html", token=token, lines=lines, email=email,
                           done="yes" if yes else "no")
