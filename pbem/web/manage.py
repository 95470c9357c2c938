"""Per-game management page (/games/<id>/manage): undo, dispute, vacation,
table talk, pre-moves, observe, resign, replacement, and the admin actions.
Every action goes through the services; a refusal is shown with its reason
and changes nothing."""
from __future__ import annotations

from datetime import date

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from sqlmodel import select

from pbem.i18n import _, lazy_gettext, ngettext
from pbem.services.core import access, audit, clocks, games, lifecycle, notify, seating, thread, visibility
from pbem.services.follow import channels, messages
from pbem.services.lobby import seats
from pbem.services.referee import disputes, master, undo
from pbem.services.turns import premoves, vacations
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Observer, User

from . import visitor, wording
from .forms import ActionForm, require_confirmation

bp = Blueprint("manage", __name__)


ADMIN_ONLY = {"open-seat", "force", "adjust", "undo-accept", "rollback", "abort-now"}
# the game master's (services/referee/master), and every site admin's
MASTER_ONLY = {"master-deadline", "master-hours", "master-pause", "master-resume", "master-eject", "master-seat",
               "master-policy", "master-abort", "master-handover"}
SEATED_ONLY = {"resign", "vote-open", "newaddress"}


def _page(s, g, user, form, error=None, status=200):
    engine = games.engine_for(g)
    mine = seating.seat_of(s, g.id, user.id) if user else None
    names = seating.names(s, g.id)
    to_move = set()
    if games.has_started(g):
        to_move = engine.to_move(games.state_at(s, g))
    rows = []
    for seat in seating.seats(s, g.id):
        rows.append({"number": seat.seat + 1, "name": names[seat.seat], "deadline": clocks.aware(seat.deadline_at),
                     "missed": seat.missed, "bot": seat.is_bot, "open": seat.open_for_replacement,
                     "resigned": seat.resigned, "to_move": seat.seat in to_move})
    who = visibility.viewer(s, g, user)
    hidden = visibility.secrets(s, g)
    moves = visibility.moves(s, g, who, hidden)
    posts = visibility.posts(s, g, who, hidden=hidden)
    ctx = dict(
        g=g, title=engine.title, user=user, mine=mine, seats=rows, form=form, error=error,
        ply_shown=visibility.public_ply(s, g),
        posts=posts, names=names, moves=moves, undone_plies={m.ply for m in moves if m.undone},
        corrected_by=corrected_by(posts),
        undo_req=undo.open_request(s, g) if g.status == "running" else None,
        game_disputes=disputes.queue(s, None, game_id=g.id),
        # the plies of an undo request and of disputes as this viewer is shown them (visibility.Secrets.shown_ply)
        shown_ply=lambda ply: hidden.shown_ply(ply, who.seat),
        pending=premoves.pending_for(s, g.id, mine.seat) if mine else [],
        observing=bool(user and s.exec(select(Observer).where(Observer.game_id == g.id,
                                                             Observer.user_id == user.id)).first()),
        history=seating.history(s, g), audit_rows=audit.log_for(s, g.id), may_post=thread.may_post(s, g, user),
        user_names={u.id: u.name for u in s.exec(select(User).where(User.id.in_(
            [h.user_id for h in seating.history(s, g) if h.user_id])))},
        table=_table(s, g, user),
        master=master.master_of(s, g), is_master=master.is_master(g, user),
        abort=_abort(s, g, user), policies=games.POLICIES,
    )
    return render_template("web/manage/game.html", **ctx), status


def corrected_by(posts) -> dict[int, str]:
    """Who entered each move an admin played for a seat (a correction after a dispute, a forced
    move): the author of the admin's announcement that follows those moves in the thread."""
    out, waiting = {}, []
    for p in posts:
        if p.kind == "move" and p.source == "admin":
            waiting.append(p.id)
        elif p.kind == "admin" and waiting:
            out.update((pid, p.author) for pid in waiting)
            waiting = []
    return out


@bp.get("/games/<int:game_id>/manage")
def page(game_id: int):
    with unit_of_work() as s:
        user = visitor.user(s)
        if user is None:
            abort(401)
        try:
            g = access.require_seen(s, games.get(s, game_id), user)
        except UserError:
            abort(404)
        return _page(s, g, user, ActionForm())


@bp.post("/games/<int:game_id>/manage")
def act(game_id: int):
    form = ActionForm()
    error = None
    with unit_of_work() as s:
        user = visitor.user(s)
        if user is None:
            abort(401)
        try:
            # every action writes to the game or rows that point to it: lock its row first, as the mail
            # pipeline does. Else a row inserted first (a pre-move: a key-share lock on the game) and a
            # move applied next (FOR UPDATE) deadlock with another transaction doing the same.
            g = access.require_seen(s, games.get(s, game_id, lock=True), user)
        except UserError:
            abort(404)
        if not form.validate_on_submit():
            return _page(s, g, user, form, _("the form expired or was not sent from this page; try again"), 400)
        try:
            with s.begin_nested():  # a refused action leaves nothing behind
                done = _dispatch(s, g, user, form)
        except UserError as e:
            error = wording.describe(e)
        if error is not None:
            return _page(s, games.get(s, game_id), user, form, error, 400)
    flash(done, "ok")
    return redirect(url_for("manage.page", game_id=game_id))


def _table(s, g, user) -> dict | None:
    """The game's table channel (a group chat the game is posted to), for its creator: set, replaced,
    tested or removed here."""
    if user is None or g.creator_id != user.id or g.status in ("finished", "aborted", "cancelled"):
        return None
    row = channels.table_channel(s, g.id)
    if row is None:
        return {"row": None, "example": "discord://<webhook id>/<webhook token>"}
    return {"row": row, "kind": channels.kind_name(row.kind), "address": channels.masked(row.url),
            "status": channels.status(row), "failing": bool(row.failures or row.disabled_at),
            "example": "discord://<webhook id>/<webhook token>"}


def _abort(s, g, user) -> dict | None:
    """The open proposal to end the game: who has agreed, and whether this user may still answer."""
    prop = master.open_proposal(s, g)
    if prop is None:
        return None
    row, agreed = prop
    seat = seating.seat_of(s, g.id, user.id) if user else None
    return {"reason": "" if row.detail == "-" else row.detail, "agreed": len(agreed),
            "voters": len(master._voters(s, g)),
            "may_answer": seat is not None and not seat.resigned and user.id not in agreed}


def _master_action(s, g, user, a: str, f: ActionForm) -> str:
    """The game master's powers: the same services as the mail commands."""
    text = (f.text.data or "").strip()
    if a == "master-deadline":
        return master.set_deadline(s, user, g, text)
    if a == "master-hours":
        return master.set_deadline(s, user, g, f"hours={f.after.data or 0}")
    if a == "master-pause":
        master.pause(s, user, g)
        return _("the game is paused: no moves and no clock until it resumes")
    if a == "master-resume":
        master.resume(s, user, g)
        return _("the game runs again; each deadline is moved on by the time the pause took")
    if a == "master-eject":
        seat = master.eject(s, user, g, str(f.seat.data or (f.to.data or "")))
        return _("seat %(seat)d is open to a replacement; a bot plays it meanwhile", seat=seat.seat + 1)
    if a == "master-seat":
        seat = master.assign(s, user, g, f.seat.data or 0, f.to.data or "")
        return _("seat %(seat)d has a new player", seat=seat.seat + 1)
    if a == "master-policy":
        master.set_policy(s, user, g, text, f.after.data, level=f.level.data or None)
        return _("the no-move policy is changed")
    if a == "master-abort":
        if master.propose_end(s, user, g, f.reason.data or ""):
            return _("the game has ended")
        return _("the players are asked to agree to end the game")
    new = master.set_master(s, user, g, f.to.data or "")
    return _("%(name)s is now the game master", name=new.name)


def _dispatch(s, g, user, f: ActionForm) -> str:
    a = (f.action.data or "").strip()
    require_confirmation(f, a, allowed=user.is_admin if a in ADMIN_ONLY else
                         master.is_master(g, user) if a in MASTER_ONLY else
                         seating.seat_of(s, g.id, user.id) is not None if a in SEATED_ONLY else True)
    if a in MASTER_ONLY:
        return _master_action(s, g, user, a, f)
    if a in ("abort-yes", "abort-no"):
        how = master.vote_end(s, user, g, a == "abort-yes")
        return {"ended": _("the game has ended"), "refused": _("refused; the game goes on")}.get(
            how, _("agreed; waiting for the other players"))
    if a == "abort-now":
        master.end_now(s, user, g, f.reason.data or "")
        return _("the game has ended")
    reason = f.reason.data or ""
    text = (f.text.data or "").strip()
    if a == "undo":  # at once inside my own turn (nobody else has seen the move), else the others are asked
        out = undo.undo_last(s, user, g.id)
        if out.taken is not None:
            return _("ply %(ply)d taken back at once (nobody else had seen it)", ply=out.shown)
        if out.done:
            return _("ply %(ply)d taken back", ply=out.shown)
        return out.asked()
    if a in ("undo-yes", "undo-no"):
        req = undo.vote(s, user, g.id, a == "undo-yes")
        return {"done": _("the moves are taken back"), "refused": _("refused; the move stands")}.get(
            req.status, _("agreed; waiting for the other players"))
    if a == "dispute":
        d = disputes.open_dispute(s, user, g.id, f.ply.data or 0, text)
        return _("dispute #%(id)d about ply %(ply)d is open", id=d.id, ply=f.ply.data or 0)
    if a == "vacation":
        try:
            first, last = date.fromisoformat(f.starts.data or ""), date.fromisoformat(f.ends.data or "")
        except ValueError:
            raise UserError(_("write the days as YYYY-MM-DD"), example=vacations.EXAMPLE, code="bad_vacation") from None
        vacations.declare(s, user, g, first, last, today=date.today())
        return _("your clock pauses from %(start)s to %(end)s", start=first, end=last)
    if a == "say":
        # whatever is written in "To" is a recipient: '@' has it name a seat, a player or 'all', or be refused
        body = f"@{f.to.data.strip()}: {text}" if (f.to.data or "").strip() else text
        p = messages.say(s, user, g, body, source="web")
        return _("sent privately") if p.to_seat is not None else _("sent to the table")
    if a == "next":
        if text.upper() == "CANCEL":
            n = premoves.cancel(s, g, user)
            return ngettext("%(num)d pre-move(s) cancelled", "%(num)d pre-move(s) cancelled", n)
        before = g.ply
        pm = premoves.add(s, g, user, text)
        premoves.apply_due(s, g)
        if pm.status == "applied":
            notify.queue_boards(s, g, notify.played_headline(user.name, visibility.told(s, g, pm.seat, before)))
        return {"pending": _("kept for your next turn")}.get(pm.status, pm.result or pm.status)
    if a == "table-set":  # the game's group channel
        row = channels.set_table(s, user, g, text)
        return _("the game is posted to its table channel (%(kind)s) from now on; a test message is on its way",
                 kind=channels.kind_name(row.kind))
    if a == "table-test":
        row = channels.table_channel(s, g.id)
        if row is None:
            raise UserError(_("game #%(id)d has no table channel", id=g.id), code="no_channel")
        channels.send_test(s, user, row)
        return _("a test message is on its way to the table channel")
    if a == "table-off":
        channels.clear_table(s, user, g)
        return _("the game has no table channel any more")
    if a in ("observe", "unobserve"):
        if a == "observe":
            messages.observe(s, user, g)
            return _("you observe this game")
        messages.unobserve(s, user, g)
        return _("you no longer observe this game")
    if a == "resign":
        left = seats.resign(s, user, g.id)
        if left.how == "cancelled":
            return _("the game is cancelled (you created it and it had not started)")
        if left.how == "left":
            return _("you have left the game before it started")
        notify.queue_boards(s, games.get(s, g.id), notify.resigned_headline(user.name, left.seat.seat + 1))
        return _("you have resigned")
    if a == "newaddress":  # NEWADDRESS on the web: the player who fears a leak needs no mail to renew it
        seat = lifecycle.rotate_token(s, user, g.id)
        notify.queue_notice(s, g, lazy_gettext("your seat's reply address is renewed"), lazy_gettext(
            "You renewed your seat's reply address on the web: the old one no longer works. Reply to this mail to "
            "play: its reply address is the new one."), seats={seat.seat})
        return _("your seat has a new reply address; the old one no longer works. pbem has mailed you from the new one")
    if a == "replace":
        seats.take(s, user, g, f.seat.data or 0)
        notify.queue_boards(s, games.get(s, g.id), notify.takeover_headline(user.name, int(f.seat.data or 0)),
                           essential=True)
        return _("you now play seat %(seat)s", seat=f.seat.data)
    if a == "vote-open":
        _vote, opened = seats.vote_open(s, user, g, f.seat.data or 0)
        return _("the seat is open") if opened else _("your vote is counted")
    # admin actions
    if a == "open-seat":
        seats.open_seat(s, user, g, f.seat.data or 0, reason)
        return _("seat opened")
    if a == "force":
        disputes.force_move(s, user, None, g.id, (f.seat.data or 0) - 1, text, reason)
        return _("move forced")
    if a == "adjust":
        disputes.adjust_seat(s, user, None, g.id, (f.seat.data or 0) - 1, text, reason)
        return _("seat adjusted")
    if a in ("undo-accept", "undo-refuse"):
        undo.decide(s, user, g.id, a == "undo-accept", reason)
        return _("decided")
    raise UserError(_("unknown action '%(action)s'", action=a[:40]), example="undo", code="bad_action")
