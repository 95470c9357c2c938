"""The game page: the board for my seat (or the public view), the move log,
the history slider, the move box with the legal moves, and the game thread
(posts and moves in one stream, polled for news)."""
from __future__ import annotations

import logging
from collections import OrderedDict

from flask import Blueprint, abort, flash, jsonify, redirect, render_template, request, session, url_for
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from pbem.engine import MoveError
from pbem.engine.base import explain, name_seats
from pbem.services import games, notify, thread, undo, visibility
from pbem.services.errors import ConcurrentUpdate, NotFound, UserError
from pbem.store.db import unit_of_work

from . import site

bp = Blueprint("games", __name__)
log = logging.getLogger("pbem.web")

FLAT_LIMIT = 24  # more legal moves than this are grouped by their first word
OPEN_LIMIT = 80  # up to this many, the groups start open; beyond, closed with a filter


def _load(s, game_id: int):
    try:
        return games.get(s, game_id)
    except NotFound:
        abort(404)


def _ply_arg(g) -> int | None:
    raw = request.args.get("ply", "")
    if raw == "":
        return None
    try:
        ply = int(raw)
    except ValueError:
        abort(400, "ply is a whole number")
    if not 0 <= ply <= g.ply:
        abort(400, f"ply is 0 to {g.ply}")
    return ply


TOOK_BACK = "took_back"  # the session's key for a take-back's result, shown by the move box once (issue 20)

EXPLAINED = 400  # legal moves explained in words on the page (more: the options block says them by kind)


def _legal(engine, state, seat) -> tuple[list[str], "OrderedDict[str, list[str]]", dict[str, str]]:
    legal = engine.legal_moves(state, seat)
    moves = [engine.format_move(state, seat, m) for m in legal]
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for m in moves:
        groups.setdefault(m.split(" ", 1)[0], []).append(m)
    words = {t: explain(engine, state, seat, m) or "" for t, m in zip(moves, legal)} if len(legal) <= EXPLAINED else {}
    return moves, groups, words


def _post_dict(p: visibility.PostRow) -> dict:
    return {"id": p.id, "kind": p.kind, "author": p.author, "seat": p.seat, "to_seat": p.to_seat, "to": p.to,
            "body": p.body, "hidden": p.hidden, "ply": p.ply, "source": p.source, "at": site.localtime(p.created_at)}


def _board(s, g, seat, ply):
    engine = games.engine_for(g)
    view = games.view_for(s, g, seat, ply)
    # the engines' renderers escape everything they print (tests check it)
    return view, Markup(engine.render_html(view))


@bp.get("/games/<int:game_id>")
def page(game_id: int):
    with unit_of_work() as s:
        me = site.user(s)
        g = _load(s, game_id)
        engine = games.engine_for(g)
        names = games.names(s, g.id)
        seats = visibility.seats(s, g)
        who = visibility.viewer(s, g, me)
        seat = who.seat
        ctx = {"g": g, "engine": engine, "names": names, "seats": seats, "seat": seat, "board": None,
               "moves": [], "groups": {}, "to_move": [], "log": [], "outcome": g.outcome, "takeback": None}
        if games.has_started(g):
            state = games.state_at(s, g)
            ctx["to_move"] = sorted(engine.to_move(state))
            ctx["view"], ctx["board"] = _board(s, g, seat, None)
            deciding = games.deciding_state(s, g, seat) if seat is not None else None
            if deciding is not None:  # the seat's turn, or a secret order it may still replace (issue 19)
                ctx["moves"], ctx["groups"], ctx["explained"] = _legal(engine, deciding[0], seat)
                ctx["help"] = name_seats(engine.notation_help(deciding[0], seat), names)
                ctx["replacing"] = deciding[1]
            if seat is not None and visibility.has_secret_steps(g) and g.status == "running":
                ctx["on_file"] = visibility.listing(s, g, seat)
            if seat is not None and seat in ctx["to_move"] and g.status == "running":  # issue 20: take-back
                tb = undo.takeback(s, g, seat)
                ctx["takeback"] = tb.move if tb.allowed else None
        ctx["took_back"] = session.pop(TOOK_BACK) if TOOK_BACK in session else None
        hidden = visibility.secrets(s, g)
        if seat is not None and games.has_started(g):  # what the others did since my last move, in words
            since = visibility.last_moved(s, g).get(seat, 0)
            recent = visibility.events(s, g, max(since, g.ply - visibility.RECENT))
            ctx["since"] = visibility.since_lines(recent, hidden, seat, since)
        ctx["deadline_text"] = notify.deadline_text(s, g, seat, frozenset(ctx["to_move"]))
        ctx["log"] = visibility.moves(s, g, who, hidden)
        ctx["posts"] = [_post_dict(p) for p in visibility.posts(s, g, who, hidden=hidden)]
        ctx["may_post"] = thread.may_post(s, g, me)
    ctx["flat_limit"], ctx["open_limit"] = FLAT_LIMIT, OPEN_LIMIT
    return render_template("web/game.html", **ctx)


@bp.get("/games/<int:game_id>/history")
def history(game_id: int):
    """The game's record in words, as the reader may read it (HISTORY by mail; issue 19)."""
    with unit_of_work() as s:
        me = site.user(s)
        g = _load(s, game_id)
        engine = games.engine_for(g)
        lines = visibility.record(s, g, visibility.viewer(s, g, me)) if games.has_started(g) else []
    return render_template("web/history.html", g=g, engine=engine, lines=lines)


@bp.get("/games/<int:game_id>/board")
def board(game_id: int):
    """The board fragment at ?ply= (the history slider)."""
    with unit_of_work() as s:
        me = site.user(s)
        g = _load(s, game_id)
        if not games.has_started(g):
            abort(404)
        _, html = _board(s, g, visibility.viewer(s, g, me).seat, _ply_arg(g))
    return html


@bp.get("/games/<int:game_id>/view.json")
def view_json(game_id: int):
    with unit_of_work() as s:
        me = site.user(s)
        g = _load(s, game_id)
        if not games.has_started(g):
            return jsonify({"game_id": g.id, "status": g.status, "names": games.names(s, g.id)})
        seat = visibility.viewer(s, g, me).seat
        view = games.view_for(s, g, seat, _ply_arg(g))
    view["viewer_seat"] = seat
    return jsonify(view)


@bp.get("/games/<int:game_id>/thread.json")
def thread_json(game_id: int):
    try:
        after = int(request.args.get("after", "0") or 0)
    except ValueError:
        abort(400, "after is a post id")
    with unit_of_work() as s:
        me = site.user(s)
        g = _load(s, game_id)
        posts = visibility.posts(s, g, visibility.viewer(s, g, me), after_id=after)
        out = {"game_id": g.id, "ply": g.ply, "status": g.status, "posts": [_post_dict(p) for p in posts]}
    return jsonify(out)


@bp.post("/games/<int:game_id>/move")
@site.login_required
def move(game_id: int):
    raw = request.form.get("text", "")
    texts = [line.strip() for line in raw.splitlines() if line.strip()]
    try:
        expected = int(request.form.get("ply", ""))
    except ValueError:
        expected = None
    anchor = url_for("games.page", game_id=game_id) + "#move"
    if not texts:
        flash("Write a move, or click one of the legal moves.", "error")
        return redirect(anchor, 303)
    try:
        with unit_of_work() as s:
            me = site.user(s)
            g = _load(s, game_id)
            seat = games.seat_of(s, g.id, me.id)
            if seat is None:
                flash(f"You have no seat in game #{g.id}; observers cannot move.", "error")
                return redirect(anchor, 303)
            if seat.resigned:  # a bot plays the seat until a replacement takes it over
                flash(f"You resigned from game #{g.id}; you no longer move in it.", "error")
                return redirect(anchor, 303)
            res = games.submit_moves(s, g.id, seat.seat, texts, source="web", user_id=me.id,
                                     expected_ply=expected)
            if res.applied and not res.replaced:  # a replaced secret choice: the others are told nothing
                # ... and while the turn goes on privately they are told at its end (issue 20: take-back)
                notify.announce_moves(s, g, seat.seat, me.name, res.applied[0].ply)
    except ConcurrentUpdate:
        flash("Another move arrived at the same moment; nothing of yours was applied. Please look again.", "error")
        return redirect(anchor, 303)
    except UserError as e:
        flash(e.describe(), "error")
        return redirect(anchor, 303)
    except HTTPException:  # no such game: a 404, not a system error
        raise
    except Exception:  # a system error: logged for us, a plain answer for the player; the transaction rolled back
        log.exception("web move failed in game #%s", game_id)
        flash("pbem hit an internal error reading that move; nothing was applied and we have logged it. "
              "Please try again, or write the move differently.", "error")
        return redirect(anchor, 303)
    if res.applied:
        flash("Applied: " + "; ".join(a.notation for a in res.applied)
              + (f". It replaces your order on file for this step ({'; '.join(res.replacing)}); nobody else is "
                 f"told, and you may change it again until the step is revealed." if res.replaced else ""), "ok")
    if res.discarded:
        flash("Not applied (this game applies a batch of moves all or nothing): "
              + "; ".join(a.text for a in res.discarded), "error")
    if res.error is not None:
        err = res.error
        text = err.describe() if isinstance(err, (MoveError, UserError)) else str(err)
        if getattr(err, "code", "") == "stale":  # the services word it for mail; say it for the page
            text = (f"The board changed while you were looking at it (game #{game_id} has moved on to ply "
                    f"{res.ply} and your position changed). Nothing was applied: look at the board again and "
                    f"choose your move.")
        if isinstance(err, UserError) and not isinstance(err, MoveError) and res.failed_text:
            text = f"{res.failed_text!r}: {text}"
        if res.not_applied:
            text += "\nNot applied after the error: " + "; ".join(res.not_applied)
        if res.replacing:
            text += f"\nYour order on file for this step ({'; '.join(res.replacing)}) stays as it was."
        flash(text, "error")
    return redirect(anchor, 303)


@bp.post("/games/<int:game_id>/takeback")
@site.login_required
def takeback(game_id: int):
    """Take back my last move at once, inside my own turn (issue 20;
    services/undo.takeback says when). The page offers it only then, behind a
    confirmation; ``ply`` is the move the player confirmed."""
    anchor = url_for("games.page", game_id=game_id) + "#takeback"
    try:
        ply = int(request.form.get("ply", ""))
    except ValueError:
        ply = None
    try:
        with unit_of_work() as s:
            me = site.user(s)
            g = _load(s, game_id)
            seat = games.seat_of(s, g.id, me.id)
            if seat is None or seat.resigned:
                flash(f"You have no seat in game #{g.id}; there is no move of yours to take back.", "error")
                return redirect(anchor, 303)
            if ply is None:
                flash("Say which move to take back: the button under the move box does.", "error")
                return redirect(anchor, 303)
            m = undo.take_back(s, me, g.id, ply=ply)
            secret = m.superseded_by is not None
            text = (f"Taken back: your move at ply {m.ply}, {m.notation}" + (" (a secret choice: nobody else is told)"
                    if secret else "") + ". It is still your turn; the board is as it was before that move.")
    except ConcurrentUpdate:
        flash("Another move arrived at the same moment; nothing was taken back. Please look again.", "error")
        return redirect(anchor, 303)
    except UserError as e:
        flash(e.describe(), "error")
        return redirect(anchor, 303)
    session[TOOK_BACK] = text
    return redirect(anchor, 303)


@bp.post("/games/<int:game_id>/posts")
@site.login_required
def post(game_id: int):
    raw_to = request.form.get("to_seat", "")
    try:
        to_seat = int(raw_to) if raw_to != "" else None
    except ValueError:
        to_seat = -1
    try:
        with unit_of_work() as s:
            me = site.user(s)
            g = _load(s, game_id)
            thread.post(s, g, me, request.form.get("body", ""), to_seat=to_seat, source="web")
    except UserError as e:
        flash(e.describe(), "error")
    return redirect(url_for("games.page", game_id=game_id) + "#thread", 303)
