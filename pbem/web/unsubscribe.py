"""One-click unsubscribe (RFC 8058): the https URL of a mail's
List-Unsubscribe header. The mailbox provider POSTs
``List-Unsubscribe=One-Click`` to it, without a login or a CSRF token: the
URL's token (store/outbox.unsubscribe_token: keyed with the installation's
secret, scoped to one user and one kind of mail) is the authority. The POST
does what STOP does (services/follow/messages.stop) and answers 200. A GET only
shows a button: mail systems fetch links to scan them, and must not
unsubscribe anyone."""
from __future__ import annotations

from flask import Blueprint, render_template, request

from pbem.config import settings
from pbem.services.follow import messages
from pbem.store.db import unit_of_work
from pbem.store.models import User
from pbem.store.outbox import check_unsubscribe_link_token

from . import forms, visitor

bp = Blueprint("unsubscribe", __name__)


@bp.route("/unsubscribe/<token>", methods=["GET", "POST"])
@forms.csrf.exempt
def unsubscribe(token: str):
    cfg = settings()
    found = check_unsubscribe_link_token(token, cfg.secret_key)
    with unit_of_work() as s:
        visitor.user(s)
        user = s.get(User, found[0]) if found is not None else None
        if user is None:
            return render_template("web/unsubscribe.html", state="bad", command=cfg.command_address), 404
        if request.method == "GET":
            return render_template("web/unsubscribe.html", state="ask", command=cfg.command_address,
                                   email=user.email, stopped=user.stopped)
        messages.stop(s, user, True)
        email = user.email
    return render_template("web/unsubscribe.html", state="done", command=cfg.command_address, email=email)
