"""Admin disputes queue (/admin/disputes): each dispute with the game's log
and the public position before and after the disputed ply, and the
resolutions: reject, roll back and re-apply a corrected move list, force a
move, adjust a seat, pause or resume the game."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from markupsafe import Markup

from pbem.i18n import N_, _
from pbem.services.core import audit, games, seating, visibility
from pbem.services.referee import disputes
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import User

from . import visitor, wording
from .forms import ActionForm, require_confirmation

bp = Blueprint("disputes", __name__)


def _admin(s) -> User:
    user = visitor.user(s)
    if user is None:
        abort(401)
    if not user.is_admin:
        abort(403, _("The admin console is for administrators only."))
    return user


DONE = {"reject": N_("rejected"), "rollback": N_("the game is rolled back and the corrected moves played"),
        "force": N_("the move is forced"), "adjust": N_("the seat is adjusted"), "pause": N_("the game is paused"),
        "resume": N_("the game goes on")}


@bp.get("/admin/disputes")
def queue():
    with unit_of_work() as s:
        _admin(s)
        return render_template("web/manage/disputes.html", open=disputes.queue(s, "open"),
                               closed=disputes.settled(s, 50))


def _detail(s, d, form, error=None, status=200):
    g = games.get(s, d.game_id)
    engine = games.engine_for(g)
    # the position as it was disputed, kept by the dispute (a rollback later marks that ply undone);
    # the engine renders from the public view only (DESIGN.md §4); its HTML escapes what it shows
    views = disputes.positions(s, d)
    before, after = (Markup(engine.render_html(v)) for v in views)
    moves = visibility.moves(s, g, visibility.viewer(s, g, visitor.user(s)))
    by = s.get(User, d.user_id) if d.user_id else None
    return render_template("web/manage/dispute.html", d=d, g=g, title=engine.title, before=before, after=after,
                           moves=moves, names=seating.names(s, g.id), by=by, form=form, error=error,
                           audit_rows=audit.log_for(s, g.id), undone_plies={m.ply for m in moves if m.undone},
                           corrected=[m for m in moves if m.source == "admin" and m.ply > d.ply]), status


@bp.get("/admin/disputes/<int:dispute_id>")
def detail(dispute_id: int):
    with unit_of_work() as s:
        _admin(s)
        try:
            d = disputes.get(s, dispute_id)
        except UserError:
            abort(404)
        return _detail(s, d, ActionForm())


@bp.post("/admin/disputes/<int:dispute_id>")
def resolve(dispute_id: int):
    form = ActionForm()
    with unit_of_work() as s:
        admin = _admin(s)
        try:
            d = disputes.get(s, dispute_id)
        except UserError:
            abort(404)
        if not form.validate_on_submit():
            return _detail(s, d, form, "the form expired; try again", 400)
        a, reason = form.action.data, form.reason.data or ""
        error = None
        try:
            with s.begin_nested():  # a refused resolution changes nothing
                require_confirmation(form, a)
                if a == "reject":
                    disputes.reject(s, admin, d.id, reason)
                elif a == "rollback":
                    moves = disputes.parse_move_list(form.text.data or "")
                    disputes.rollback(s, admin, d.id, d.game_id, form.ply.data if form.ply.data is not None
                                      else d.ply - 1, moves, reason)
                elif a == "force":
                    disputes.force_move(s, admin, d.id, d.game_id, (form.seat.data or 0) - 1,
                                        (form.text.data or "").strip(), reason)
                elif a == "adjust":
                    disputes.adjust_seat(s, admin, d.id, d.game_id, (form.seat.data or 0) - 1,
                                         (form.text.data or "").strip(), reason)
                elif a in ("pause", "resume"):
                    disputes.set_pause(s, admin, d.id, a == "pause", reason)
                else:
                    raise UserError(_("unknown resolution '%(action)s'", action=(a or '')[:40]), example="reject",
                                    code="bad_action")
        except UserError as e:
            error = wording.describe(e)
        if error is not None:
            return _detail(s, disputes.get(s, dispute_id), form, error, 400)
    flash(_("Dispute #%(id)d: %(done)s.", id=dispute_id, done=_(DONE[a]) if a in DONE else a), "ok")
    return redirect(url_for("disputes.detail", dispute_id=dispute_id))
