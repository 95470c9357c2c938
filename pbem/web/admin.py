"""The admin console (flagged users only): games and their state, inbound
mail that failed the pipeline (re-drive or discard), the move log. Disputes
have their own blueprint (disputes.py), linked from here when present."""
from __future__ import annotations

from functools import wraps

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from markupsafe import Markup
from sqlalchemy import func
from sqlalchemy.orm import defer
from sqlmodel import select

from pbem.i18n import _
from pbem.store.addresses import redact
from pbem.services.core import games, paging, seating, visibility
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Game, Inbound, utcnow

from . import forms, visitor

bp = Blueprint("admin", __name__, url_prefix="/admin")


def admin_required(view):
    @wraps(view)
    @visitor.login_required
    def wrapper(*a, **kw):
        with unit_of_work() as s:
            me = visitor.user(s)
        if me is None or not me.is_admin:
            abort(403, _("The admin console is for administrators only."))
        return view(*a, **kw)

    return wrapper


PER_PAGE = 50  # games, and failed mails, on a page of the console


@bp.get("")
@admin_required
def index():
    """The console's lists, a page of each (the same statements whatever is stored, so the console
    stays quick on a big site): the newest games, with their players' names read at once for the
    page, and the failed mails oldest first, without their raw bytes (a mail's own page shows them)."""
    with unit_of_work() as s:
        visitor.user(s)
        listed = paging.fetch(s, select(Game).options(defer(Game.state_json), defer(Game.outcome))
                              .order_by(Game.id.desc()), forms.page_arg("games_page"), PER_PAGE)
        seating.load_seats(s, [g.id for g in listed.rows])
        rows = [{"g": g, "title": games.engine_for(g).title, "names": seating.names(s, g.id)} for g in listed.rows]
        is_failed = Inbound.status == "failed"
        failed = paging.fetch(s, select(Inbound).where(is_failed).options(defer(Inbound.raw)).order_by(Inbound.id),
                              forms.page_arg("failed_page"), PER_PAGE)
        failed_count = s.exec(select(func.count()).select_from(Inbound).where(is_failed)).one()
        audit = list(s.exec(select(AuditLog).order_by(AuditLog.id.desc()).limit(20)))
    return render_template("web/admin.html", rows=rows, games_page=listed, failed=failed.rows, failed_page=failed,
                           failed_count=failed_count, audit=audit, redact=redact)


@bp.get("/games/<int:game_id>")
@admin_required
def game(game_id: int):
    with unit_of_work() as s:
        me = visitor.user(s)
        g = s.get(Game, game_id)
        if g is None:
            abort(404)
        engine = games.engine_for(g)
        # admins judge from what all could see: a secret choice stays secret here too (services/core/visibility)
        log = visibility.moves(s, g, visibility.viewer(s, g, me))
        names = seating.names(s, g.id)
        seats = visibility.seats(s, g)
        board = before = after = None
        at = request.args.get("ply", type=int)
        if games.has_started(g):
            board = Markup(engine.render_html(games.view_for(s, g, None)))
            if at is not None and 1 <= at <= g.ply:
                # the position before and after one move (public view: admins judge what all could see)
                before = Markup(engine.render_html(games.view_for(s, g, None, at - 1)))
                after = Markup(engine.render_html(games.view_for(s, g, None, at)))
    return render_template("web/admin_game.html", g=g, engine=engine, log=log, names=names, seats=seats,
                           board=board, at=at, before=before, after=after)


@bp.get("/inbound/<int:inbound_id>")
@admin_required
def inbound(inbound_id: int):
    with unit_of_work() as s:
        visitor.user(s)
        row = s.get(Inbound, inbound_id)
        if row is None:
            abort(404)
        raw = row.raw.decode("utf-8", "replace")
    return render_template("web/admin_inbound.html", row=row, raw=redact(raw[:20000]), redact=redact)


@bp.post("/inbound/<int:inbound_id>/redrive")
@admin_required
def redrive(inbound_id: int):
    from pbem.mail.pipeline import process_inbound

    with unit_of_work() as s:
        me = visitor.user(s)
        row = s.get(Inbound, inbound_id)
        if row is None:
            abort(404)
        if row.status != "failed":
            flash(_("Mail #%(id)d is %(status)s, not failed; nothing to re-drive.", id=inbound_id, status=row.status),
                  "error")
            return redirect(url_for("admin.index"), 303)
        s.add(AuditLog(user_id=me.id, action="inbound.redrive", detail=f"inbound #{inbound_id}"))
    status = process_inbound(inbound_id, redrive=True)
    flash(_("Mail #%(id)d re-driven: now %(status)s.", id=inbound_id, status=status),
          "ok" if status != "failed" else "error")
    return redirect(url_for("admin.index"), 303)


@bp.post("/inbound/<int:inbound_id>/discard")
@admin_required
def discard(inbound_id: int):
    reason = (request.form.get("reason", "") or "").strip()[:500]
    if request.form.get("confirm") != "yes":  # a discarded mail is never processed: asked first
        flash(_("Mail #%(id)d was not discarded: tick 'Yes, it is never processed' next to the Discard "
                "button to confirm.", id=inbound_id), "error")
        return redirect(url_for("admin.index"), 303)
    with unit_of_work() as s:
        me = visitor.user(s)
        row = s.exec(select(Inbound).where(Inbound.id == inbound_id).with_for_update()).first()
        if row is None:
            abort(404)
        if row.status != "failed":
            flash(_("Mail #%(id)d is %(status)s, not failed; it was not discarded.", id=inbound_id, status=row.status),
                  "error")
            return redirect(url_for("admin.index"), 303)
        row.status = "discarded"
        row.processed_at = utcnow()
        s.add(row)
        s.add(AuditLog(user_id=me.id, action="inbound.discard",
                       detail=f"inbound #{inbound_id}" + (f": {reason}" if reason else "")))
    flash(_("Mail #%(id)d discarded.", id=inbound_id), "ok")
    return redirect(url_for("admin.index"), 303)
