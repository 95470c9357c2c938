"""The outbox page: what pbem has sent (on the embedded default, the maildir)."""
from __future__ import annotations

from flask import Blueprint, abort, render_template
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Outbound

bp = Blueprint("outbox", __name__)


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
