"""The outbox page: the mail pbem has queued or sent (on the embedded
default, the same mail is in the local maildir). It holds login links, each
seat's board and secret reply address: admins read all of it, each user the
mail addressed to them (services/core/visibility), and a visitor logs in first."""
from __future__ import annotations

from flask import Blueprint, abort, g, render_template

from pbem.i18n import _
from pbem.services.core import visibility
from pbem.store.db import unit_of_work

from . import forms, visitor

bp = Blueprint("outbox", __name__)


@bp.before_request
def _logged_in():
    return None if getattr(g, "user_id", None) else visitor.to_login()


def _me(s):
    me = visitor.user(s)
    if me is None:  # a session of a deleted user
        abort(403, _("Log in to read your mail."))
    return me


@bp.get("/outbox")
def index():
    with unit_of_work() as s:
        me = _me(s)
        found = visibility.mail(s, me, forms.page_arg())
        admin = me.is_admin
    return render_template("web/outbox.html", rows=found.rows, found=found, admin=admin)


@bp.get("/outbox/<int:row_id>")
def show(row_id: int):
    with unit_of_work() as s:
        row = visibility.mail_row(s, _me(s), row_id)
    if row is None:  # not found and not yours look the same: ids tell nothing
        abort(404)
    return render_template("web/outbox_message.html", row=row, html=_with_picture(row))


def _with_picture(row) -> str | None:
    """The mail's HTML as its reader sees it: the board's picture, which the mail carries as an
    inline part named by Content-ID, put in as a data: URL; without it if it can no longer be drawn."""
    import base64

    from pbem.config import settings
    from pbem.mail import pictures

    if not row.body_html or not row.picture_key:
        return row.body_html
    html, png, cid = pictures.inline(row.body_html, row.picture_key, settings())
    if png is None:
        return html
    return html.replace(f'src="cid:{cid}"', 'src="data:image/png;base64,' + base64.b64encode(png).decode() + '"')
