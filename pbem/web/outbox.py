"""The outbox page: what pbem has sent (on the embedded default, the maildir)."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Outbound

bp = Blueprint("outbox", __name__)


@bp.before_request
def _only_admins_when_mail_really_leaves():
    """The outbox holds login links. On the embedded default (mail written to
    the local maildir, nothing leaves the machine) this page is how a local
    player reads them; once an SMTP relay delivers mail, only admins may look."""
    cfg = current_app.config["PBEM_SETTINGS"]
    if not cfg.smtp_url:
        return None
    from . import site

    with unit_of_work() as s:
        me = site.user(s)
    if me is None:
        return redirect(url_for("auth.login", next=request.path))
    if not me.is_admin:
        abort(403, "The outbox is for administrators only.")
    return None


@bp.get("/outbox")
def index():
    with unit_of_work() as s:
        rows = list(s.exec(select(Outbound).order_by(Outbound.id.desc()).limit(200)))
    return render_template("web/outbox.html", rows=rows)


@bp.get("/outbox/<int:row_id>")
def show(row_id: int):
    with unit_of_work() as s:
        row = s.get(Outbound, row_id)
    if row is None:
        abort(404)
    return render_template("web/outbox_message.html", row=row)
