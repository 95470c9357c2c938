"""What a request carries: the CSRF protection of every form, the one action form of the
management pages (with the ticked box that an action which cannot be taken back needs), and
the page a list is asked for."""
from __future__ import annotations

from flask import abort, request
from flask_wtf import FlaskForm
from flask_wtf.csrf import CSRFProtect
from wtforms import HiddenField, IntegerField, StringField, TextAreaField
from wtforms.validators import Optional as Opt

from pbem.i18n import N_, _
from pbem.services.core.errors import UserError

csrf = CSRFProtect()


class ActionForm(FlaskForm):
    """One CSRF-protected form for every action; ``action`` says which."""

    action = HiddenField()
    seat = IntegerField(validators=[Opt()])
    ply = IntegerField(validators=[Opt()])
    text = TextAreaField(validators=[Opt()])
    to = StringField(validators=[Opt()])
    starts = StringField(validators=[Opt()])
    ends = StringField(validators=[Opt()])
    reason = StringField(validators=[Opt()])
    confirm = StringField(validators=[Opt()])
    level = StringField(validators=[Opt()])
    after = IntegerField(validators=[Opt()])


# actions that cannot be taken back: the page asks for a ticked box, and without it nothing is done
CONFIRM = {
    "resign": N_("tick 'Yes, I resign' next to the Resign button"),
    "vote-open": N_("tick the box next to 'Vote to open'"),
    "open-seat": N_("tick the box next to 'Open seat'"),
    "force": N_("tick 'Yes, play it for that seat'"),
    "adjust": N_("tick 'Yes, change that seat'"),
    "undo-accept": N_("tick 'Yes, take the moves back'"),
    "rollback": N_("tick 'Yes, roll the game back'"),
    "master-eject": N_("tick 'Yes, eject that player'"),
    "abort-now": N_("tick 'Yes, end the game now'"),
}


def require_confirmation(f: ActionForm, action: str, allowed: bool = True) -> None:
    """An action that cannot be taken back is refused without its ticked box. ``allowed``: whether
    this person may do it at all; when not, the service's refusal says why (not a missing tick)."""
    if allowed and action in CONFIRM and (f.confirm.data or "") != "yes":
        raise UserError(_("this cannot be taken back, so it needs a confirmation: %(what)s and send it again. "
                          "Nothing was done", what=_(CONFIRM[action])), code="unconfirmed")


def page_arg(name: str = "page") -> int:
    """The page a list is asked for (``?page=``, 1 the first; services/core/paging); 400 for a word."""
    try:
        return max(1, int(request.args.get(name, "1") or 1))
    except ValueError:
        abort(400, _("page is a whole number, e.g. page=2"))
