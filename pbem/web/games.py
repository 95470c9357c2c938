"""The game page: the board for my seat (or the public view), the move log,
the history slider, the move box with the legal moves, and the game thread
(posts and moves in one stream, polled for news)."""
from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict

from flask import (Blueprint, abort, current_app, flash, get_flashed_messages, jsonify, redirect, render_template,
                   request, session, url_for)
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from pbem.engine import MoveError
from pbem.engine.base import describe, explain, legal_examples, name_seats, normalize_notation
from pbem.i18n import _
from pbem.services.coach import review
from pbem.services.core import access, games, moves, notify, seating, thread, visibility
from pbem.services.referee import undo
from pbem.services.turns import hints, premoves
from pbem.services.core.errors import ConcurrentUpdate, Forbidden, NotFound, UserError
from pbem.store.db import unit_of_work

from . import threadview, visitor, wording

bp = Blueprint("games", __name__)
log = logging.getLogger("pbem.web")

FLAT_LIMIT = 24  # more legal moves than this are grouped by their first word
OPEN_LIMIT = 80  # up to this many, the groups start open; beyond, closed with a filter


def _load(s, game_id: int):
    """The game, or 404: also a private game the viewer may not see (as if it were not there)."""
    try:
        return access.require_seen(s, games.get(s, game_id), visitor.user(s))
    except NotFound:
        abort(404)


def _ply_arg(s, g) -> int | None:
    """?ply= of the history slider: 0 to the counter the viewer is shown (visibility.public_ply: no board
    inside a secret step, whose plies would count its secret choices)."""
    raw = request.args.get("ply", "")
    if raw == "":
        return None
    try:
        ply = int(raw)
    except ValueError:
        abort(400, _("ply is a whole number"))
    last = visibility.public_ply(s, g)
    if not 0 <= ply <= last:
        abort(400, _("ply is 0 to %(last)d", last=last))
    return visibility.real_ply(s, g, ply)  # the numbers shown skip withdrawn secret choices


def _seat_arg(g, who: visibility.Viewer) -> int | None:
    """The seat whose view ?seat= asks (1..n, or "public"; none: the viewer's own), as
    services/core/visibility.seat_view allows it: another seat's once the game is over."""
    raw = request.args.get("seat", "")
    if raw == "":
        asked = "own"
    elif raw == "public":
        asked = None
    else:
        try:
            asked = int(raw) - 1
        except ValueError:
            abort(400, _("seat is a seat number (1 to %(n)d) or public, e.g. seat=1", n=g.players))
    try:
        return visibility.seat_view(g, who, asked)
    except Forbidden as e:
        abort(403, e.message)
    except UserError as e:
        abort(400, e.describe())


TOOK_BACK = "took_back"  # the session's key for a take-back's result, shown by the move box once

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
            "body": p.body, "hidden": p.hidden, "ply": p.ply, "source": p.source, "at": wording.localtime(p.created_at),
            "turn": p.turn}


def _board(s, g, seat, ply):
    engine = games.engine_for(g)
    view = games.view_for(s, g, seat, ply)
    # the engines' renderers escape everything they print (tests check it)
    return view, Markup(engine.render_html(view))


def _drawing(s, g, seat, moves=(), ply=None, layouts=("wide", "narrow")) -> Markup | None:
    """The board drawn, through the one door (services/core/games.drawing_for); ``moves``: the
    legal moves the page lists the viewer, none for a past ply. A drawing that fails is logged and left
    out: the text board, always on the page, is the complete account.

    Both layouts of a game that draws the narrow one, each in its box: the wide one for a desktop, the
    narrow one (a portrait column, its text no smaller than 11 px at the width of a phone) for a screen
    up to NARROW_SCREEN px wide. The page's CSS shows one (site.css), the other is display:none, which
    hides it from assistive technology too; the narrow one's ids are its own (no id twice on the page).
    ``layouts``: the one a live page shows, when it asks for the board again (:func:`_layouts_arg`): a
    layout alone in the box is shown on any screen (site.css)."""
    two = games.draws(games.engine_for(g), "narrow")
    narrow_only = two and "wide" not in layouts
    try:
        # the engines write their drawings with pbem/engine/drawing.py, which escapes every text it prints
        wide = None if narrow_only else Markup(games.drawing_for(s, g, seat, moves, ply))
    except Exception:
        log.exception("drawing the board of game #%s (seat %s, ply %s) failed", g.id, seat, ply)
        return None
    narrow = None
    if two and "narrow" in layouts:
        try:
            narrow = Markup(own_ids(games.drawing_for(s, g, seat, moves, ply, layout="narrow"), "n-"))
        except Exception:  # the wide one then shows on every screen
            log.exception("drawing the narrow board of game #%s (seat %s, ply %s) failed", g.id, seat, ply)
            if narrow_only:
                return _drawing(s, g, seat, moves, ply, ("wide",))
    if narrow is None:  # the wide one alone: asked so (marked), or all there is
        mark = " lay-wide" if two and "narrow" not in layouts else ""
        return Markup('<div class="lay{}">{}</div>').format(mark, wide)
    if wide is None:
        return Markup('<div class="lay lay-narrow">{}</div>').format(narrow)
    return Markup('<div class="lay lay-wide">{}</div><div class="lay lay-narrow">{}</div>').format(wide, narrow)


def _layouts_arg() -> tuple[str, ...]:
    """?layout= of a live page asking for the board again (thread.json, the history's board route): the
    layout it shows, so that each new board carries only that one; none (a first load): both."""
    asked = request.args.get("layout", "")
    return (asked,) if asked in ("wide", "narrow") else ("wide", "narrow")


NARROW_SCREEN = 700  # the widest screen shown the narrow drawing (CSS px; site.css says the same)
_ID = re.compile(r'(?<=\s)id="([^"]+)"')


def own_ids(svg: str, prefix: str) -> str:
    """``svg`` with each of its ids (and every reference to one: href, url(), aria-labelledby) given
    ``prefix``: two drawings of one board in a page, each with ids of its own."""
    ids = set(_ID.findall(svg))
    if not ids:
        return svg

    def ref(m: re.Match) -> str:
        return m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)) + m.group(3)

    def refs(m: re.Match) -> str:
        return m.group(1) + " ".join(prefix + x if x in ids else x for x in m.group(2).split()) + m.group(3)

    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'(\bhref="#)([^"]+)(")', ref, svg)
    svg = re.sub(r'(url\(#)([^)]+)(\))', ref, svg)
    return re.sub(r'(\baria-(?:labelledby|describedby)=")([^"]+)(")', refs, svg)


LOG_SHOWN = 12  # the side log shows the newest moves (the history page and the thread have them all)
POSTS_SHOWN = 30  # older posts come this many at a time (thread.json?before=; the page opens at threadview's lines)
WHOLE = 100_000  # ?all=1: the whole log and thread, on one page (no script needed)
WAIT_MAX = 25  # seconds a long poll (thread.json?wait=) may hold its worker: the client asks again at once
WAIT_STEP = 1.0  # how often a long poll looks for news
WAITERS = 8  # long polls held at once per process; more are answered at once (the page asks again later)
_waiting = threading.BoundedSemaphore(WAITERS)
PARTS = ("status", "now", "drawing", "board", "move", "players", "log", "scores")  # what a new ply changes on the page


def _flashes() -> tuple[list, list, list, str, str]:
    """The flashed messages split by where the page shows them: next to the
    move box (a move's result, ``…-move``), next to the thread's form
    (``…-thread``), and at the top (the rest); and the move text a refusal
    gave back (``keep-move``), and the post (``keep-thread``)."""
    top, at_move, at_thread, kept, kept_post = [], [], [], "", ""
    for cat, msg in get_flashed_messages(with_categories=True):
        if cat == "keep-move":
            kept = msg
        elif cat == "keep-thread":
            kept_post = msg
        elif cat.endswith("-move"):
            at_move.append((cat[:-5], msg))
        elif cat.endswith("-thread"):
            at_thread.append((cat[:-7], msg))
        else:
            top.append((cat, msg))
    return top, at_move, at_thread, kept, kept_post


def _context(s, g, me, *, pick: str = "", whole: bool = False, with_posts: bool = True,
             layouts=("wide", "narrow")) -> dict:
    """What the game page shows ``me`` (None: a visitor), all of it through
    the viewer-scoped projections of services/core/visibility: the newest moves
    and posts (``whole``: all of them; ``with_posts`` False: none, for the parts a live page swaps in, which
    get the posts by themselves)."""
    engine = games.engine_for(g)
    names = seating.names(s, g.id)
    seats = visibility.seats(s, g)
    who = visibility.viewer(s, g, me)
    seat = who.seat
    ctx = {"g": g, "engine": engine, "names": names, "seats": seats, "seat": seat, "board": None, "drawing": None,
           "me": me,
           "moves": [], "groups": {}, "to_move": [], "log": [], "outcome": g.outcome, "explained": {},
           "help": "", "replacing": False, "since": [], "on_file": "", "panels": [], "pick": pick,
           "preview": None, "ranking": [], "reviews": [], "takeback": None, "takeback_ply": None, "took_back": None,
           "hints": [], "may_hint": False, "hint_now": None}
    if games.has_started(g):
        state = games.state_at(s, g)
        ctx["to_move"] = sorted(engine.to_move(state))
        ctx["view"], ctx["board"] = _board(s, g, seat, None)
        deciding = moves.deciding_state(s, g, seat) if seat is not None and not g.paused else None
        if deciding is not None:  # the seat's turn, or a secret order it may still replace before the reveal
            ctx["moves"], ctx["groups"], ctx["explained"] = _legal(engine, deciding[0], seat)
            ctx["help"] = name_seats(engine.notation_help(deciding[0], seat), names)
            ctx["replacing"] = deciding[1]
            if pick:
                ctx["preview"] = _preview(s, g, seat, [pick])
        # the moves listed below: a click picks one
        ctx["drawing"] = _drawing(s, g, seat, ctx["moves"], layouts=layouts)
        if seat is not None and visibility.has_secret_steps(g) and g.status == "running":
            ctx["on_file"] = premoves.listing(s, g, seat)
        if seat is not None and seat in ctx["to_move"] and g.status == "running" and not g.paused:  # take-back
            tb = undo.takeback(s, g, seat)
            ctx["takeback"] = tb.move if tb.allowed else None
            # its number as this seat may see it: its own count inside a secret step, never the others' parts
            ctx["takeback_ply"] = visibility.secrets(s, g).shown_ply(tb.move.ply, seat) if tb.allowed else None
        if g.hints:  # a practice game: the hints used, each as this reader may see it; the seat to move may ask
            ctx["hints"] = visibility.hints(s, g, who)
            ctx["may_hint"] = seat in ctx["to_move"] and g.status == "running" and not g.paused
            now = hints.recorded(s, g, seat) if ctx["may_hint"] else None  # already asked in this position
            ctx["hint_now"] = visibility.hint_row(s, g, who, now) if now is not None else None
        ctx["panels"] = visibility.panels(s, g, who)
        ctx["ranking"] = visibility.ranking(g, names)
        ctx["reviews"] = review.summaries(s, g, who) if g.status == "finished" else []
    hidden = visibility.secrets(s, g)
    if seat is not None and games.has_started(g):  # what the others did since my last move, in words
        since = visibility.last_moved(s, g).get(seat, 0)
        recent = visibility.events(s, g, max(since, g.ply - visibility.RECENT))
        ctx["since"] = visibility.since_lines(recent, hidden, seat, since)
        if g.hints:  # a practice game: who used a hint since, never its moves
            ctx["since"] += visibility.hint_lines(s, g, seat, since)
    ctx["deadline_text"] = notify.deadline_text(s, g, seat, frozenset(ctx["to_move"]))
    ctx["log"], ctx["log_total"] = visibility.recent_moves(s, g, who, WHOLE if whole else LOG_SHOWN, hidden)
    posts, ctx["older"] = threadview.window(s, g, who, whole=whole, hidden=hidden) if with_posts else ([], False)
    ctx["posts"] = [_post_dict(p) for p in posts]
    ctx["thread_lines"] = threadview.lines(ctx["posts"])  # the moves of a turn or round folded into one line
    ctx["thread_show"] = _show(me)
    ctx["thread_words"] = threadview.words()  # for the lines game.js folds live
    ctx["may_post"] = thread.may_post(s, g, me)
    ctx["invitation"] = access.invitation(s, g, me) if g.status == "open" else None
    ctx["may_remove"] = g.status == "open" and me is not None and (me.is_admin or g.creator_id == me.id)
    creator = seating.seat_of(s, g.id, g.creator_id) if ctx["may_remove"] and g.creator_id else None
    ctx["creator_seat"] = creator.seat if creator is not None else None
    ctx["now_line"] = _now_line(s, g, ctx)
    ctx["ply_shown"] = visibility.public_ply(s, g)
    ctx["stamp"] = _stamp(g, ctx["ply_shown"])
    ctx["flat_limit"], ctx["open_limit"] = FLAT_LIMIT, OPEN_LIMIT
    # the tab's title and icon say so (a live page updates them: thread.json's your_turn)
    ctx["your_turn"] = bool(ctx["moves"]) and not ctx["replacing"]
    return ctx


def _now_line(s, g, ctx) -> str:
    """What the reader must do now and by when, in one line."""
    seat, names = ctx["seat"], ctx["names"]

    def name(i):
        return names[i] if i < len(names) else _("seat %(num)d", num=i + 1)

    if g.status == "finished":
        won = [name(i) for i in (g.outcome or {}).get("winners", [])]
        return _("The game is over: %(winners)s won.", winners=wording.and_list(won)) if won else _("The game is over.")
    if g.status != "running":
        return ""
    if g.paused:
        return _("Paused by an admin while a dispute is settled: no moves, and no deadline runs, until it resumes.")
    due = ""
    if seat is not None:
        row = next((x for x in ctx["seats"] if x.seat == seat), None)
        if row is not None and row.deadline_at is not None and seat in ctx["to_move"]:
            due = wording.localtime(row.deadline_at, "%a %d %b %H:%M")
    if seat is not None and ctx["moves"] and ctx["replacing"]:
        return _("Your order for this step is in; you may replace it until the step is revealed.")
    if seat is not None and ctx["moves"]:
        if due:
            return _("Your move — due by %(when)s: choose below, check what it does, then send it.", when=due)
        return _("Your move: choose below, check what it does, then send it.")
    waiting = ", ".join(name(i) for i in ctx["to_move"])
    if not waiting:
        return ""
    dues = [x.deadline_at for x in ctx["seats"] if x.seat in ctx["to_move"] and x.deadline_at is not None]
    if dues:
        when = wording.localtime(min(dues), "%a %d %b %H:%M")
        return (_("Nothing to do: waiting for %(who)s (due by %(when)s).", who=waiting, when=when)
                if seat is not None else _("Waiting for %(who)s (due by %(when)s).", who=waiting, when=when))
    return (_("Nothing to do: waiting for %(who)s.", who=waiting) if seat is not None
            else _("Waiting for %(who)s.", who=waiting))


def _render_parts(ctx: dict, names=PARTS) -> dict[str, str]:
    """The page's parts that a new ply changes, each rendered alone (the
    template's blocks of the same name): a live page swaps them in."""
    tmpl = current_app.jinja_env.get_template("web/game.html")
    full = dict(ctx)
    current_app.update_template_context(full)
    jctx = tmpl.new_context(full)
    return {n: "".join(tmpl.blocks["part_" + n](jctx)) for n in names if "part_" + n in tmpl.blocks}


@bp.get("/games/<int:game_id>")
def page(game_id: int):
    pick = request.args.get("pick", "")[:400]
    top, at_move, at_thread, kept, kept_post = _flashes()
    with unit_of_work() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        ctx = _context(s, g, me, pick=pick, whole=request.args.get("all") == "1")
        ctx["took_back"] = session.pop(TOOK_BACK) if TOOK_BACK in session else None
    ctx.update(top_flashes=top, move_flashes=at_move, thread_flashes=at_thread, kept=pick or kept,
               kept_post=kept_post)
    return render_template("web/game.html", **ctx)


def _lines(raw: str) -> list[str]:
    """The moves of the move box: one per line, or several on a line separated by ';' as in a mail
    (and as a refusal's examples write an order: ``s>E; done``)."""
    return [part.strip() for line in raw.splitlines() for part in line.split(";") if part.strip()]


def _preview(s, g, seat: int | None, texts: list[str]) -> dict:
    """What sending ``texts`` would do now, changing nothing: each move in
    words as the engine explains it -- with those the services would add (an
    answer the order leaves unsaid, a closing ``done``) -- or the refusal Send
    would give, with examples. The answer is services/core/moves.submit_moves's own
    (moves.check_moves: the same checks on the same state, nothing written), so
    what the preview accepts, Send accepts."""
    texts = [normalize_notation(t) for t in texts if t.strip() and normalize_notation(t)]
    out: dict = {"ok": False, "moves": [], "error": None, "examples": [], "replacing": [], "code": None}
    if not texts:
        out["error"] = _("Write a move (one per line), or choose one of the legal moves.")
        return out
    if seat is None:
        out["error"] = _("You have no seat in game #%(id)d; observers cannot move.", id=g.id)
        return out
    if g.status != "running":
        out["error"] = _("Game #%(id)d is %(status)s; it takes no moves.", id=g.id,
                         status=wording.status_word(g.status))
        return out
    if g.paused:
        out["error"] = _("Game #%(id)d is paused (by its game master, or by an admin while a dispute is "
                         "settled); moves are accepted again when it resumes.", id=g.id)
        return out
    deciding = moves.deciding_state(s, g, seat)
    engine = games.engine_for(g)
    if deciding is None:
        waiting = ", ".join(seating.names(s, g.id)[i] for i in sorted(engine.to_move(games.state_at(s, g))))
        out["error"] = _("It is not your turn: waiting for %(who)s. We will mail you when it is.",
                         who=waiting or _("nobody"))
        return out
    checked = moves.check_moves(s, g, seat, texts, source="web")
    res, names = checked.result, seating.names(s, g.id)
    out["replacing"] = res.replacing
    for applied, before in checked.steps:
        move = engine.parse_move(before, seat, applied.notation)
        words = explain(engine, before, seat, move) or describe(engine, before, seat, move)
        out["moves"].append({"text": applied.text, "notation": applied.notation, "words": name_seats(words, names),
                             "added": applied.added})
    err = res.error
    out["code"] = getattr(err, "code", None)
    if err is None:
        out["ok"] = True
    elif out["code"] == moves.UNFINISHED:  # a new order in place of a finished one must finish too
        out["error"] = _("%(moves)s starts a new order in place of your order on file for this step (%(order)s). A "
                         "new order replaces the old one whole, so it must finish the step too: add the rest of your "
                         "new order after it and end it with done (or auto, which decides what is left). Until you "
                         "send it, your order on file stands.", moves="; ".join(texts), order="; ".join(res.replacing))
        # the new order ended (it may be the old one again: that keeps it), not the old order as another example
        out["examples"] = [e for e in err.examples if e in {"; ".join([*texts, end]) for end in moves.ENDINGS}]
    elif isinstance(err, MoveError):
        text = res.failed_text or ""
        out["error"] = name_seats(err.reason if text and text in err.reason else str(err), names)
        out["examples"] = list(err.examples) or list(legal_examples(engine, deciding[0], seat))
    else:
        out["error"] = err.message
        out["examples"] = [err.example] if err.example else []
    return out


@bp.get("/games/<int:game_id>/preview")
def preview(game_id: int):
    """What a typed move would do (or why it is refused), as JSON; changes nothing."""
    raw = request.args.get("text", "")[:4000]
    with unit_of_work() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        seat = visibility.viewer(s, g, me).seat if me is not None else None
        if me is None:
            out = {"ok": False, "moves": [], "error": _("Log in to play."), "examples": []}
        else:
            out = _preview(s, g, seat, _lines(raw))
    return jsonify(out)


@bp.get("/games/<int:game_id>/history")
def history(game_id: int):
    """The game's record in words, as the reader may read it (HISTORY by mail)."""
    with visitor.reads_that_may_lag() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        engine = games.engine_for(g)
        lines = visibility.record(s, g, visibility.viewer(s, g, me)) if games.has_started(g) else []
    return render_template("web/history.html", g=g, engine=engine, lines=lines)


@bp.get("/games/<int:game_id>/review")
def review_page(game_id: int):
    """The finished game's reviews (services/coach/review.shown): the reader's own first, then the
    others' (the whole record is public once the game is over); nothing before the end."""
    with visitor.reads_that_may_lag() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        engine = games.engine_for(g)
        reviews = review.shown(s, g, visibility.viewer(s, g, me)) if g.status == "finished" else []
    # the engines write their drawings with pbem/engine/drawing.py, which escapes every text it prints;
    # each drawing gets ids of its own (many boards on one page)
    drawings = {(r.seat, k): Markup(own_ids(d.drawing, f"r{r.seat}-{k}-"))
                for r in reviews for k, d in enumerate(r.listed) if d.drawing}
    return render_template("web/review.html", g=g, engine=engine, reviews=reviews, drawings=drawings)


@bp.get("/games/<int:game_id>/board")
def board(game_id: int):
    """The board at ?ply= (the history slider): its drawing, then its text board, each in a
    ``data-part`` block the page swaps into its own. Past plies offer no moves: nothing to pick."""
    with unit_of_work() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        if not games.has_started(g):
            abort(404)
        seat, ply = _seat_arg(g, visibility.viewer(s, g, me)), _ply_arg(s, g)
        _view, html = _board(s, g, seat, ply)
        drawing = _drawing(s, g, seat, (), ply, _layouts_arg())
    return Markup('<div data-part="drawing">{}</div>\n<div data-part="board">{}</div>\n').format(drawing or "", html)


@bp.get("/games/<int:game_id>/view.json")
def view_json(game_id: int):
    with unit_of_work() as s:
        me = visitor.user(s)
        g = _load(s, game_id)
        if not games.has_started(g):
            return jsonify({"game_id": g.id, "status": g.status, "names": seating.names(s, g.id)})
        seat = _seat_arg(g, visibility.viewer(s, g, me))
        real = _ply_arg(s, g)
        view = games.view_for(s, g, seat, real)
        view["ply"] = visibility.public_ply(s, g) if real is None else visibility.counter(s, g, real)
    view["viewer_seat"] = seat
    return jsonify(view)


def _int_arg(name: str, default: int, what: str) -> int:
    raw = request.args.get(name, "")
    if raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        abort(400, _("%(name)s is %(what)s, e.g. %(name)s=12", name=name, what=what))


def _stamp(g, public: int) -> str:
    """What a page was drawn from, besides the posts: a new ply, a new status, a pause, a take-back. Its
    first field is the ply counter the page shows (visibility.public_ply: in a secret simultaneous step, the
    step's start); inside such a step the stamp does not change with the secret choices (a page that
    refreshed at each would count them)."""
    # (the last field: a take-back or an undo changes the board without a new ply)
    changed = (g.updated_at.timestamp() if g.updated_at else 0) if public == g.ply else 0
    return f"{public}:{g.status}:{int(bool(g.paused))}:{changed:.6f}"


_PUBLIC: dict[tuple, int] = {}  # (game, ply, updated_at) -> the counter shown: a poll that finds no news asks it


def _public_ply(game_id: int, ply: int, updated_at) -> int:
    """visibility.public_ply of a game as a poll's one-statement row reads it, replayed once per process and
    ply (an open page polls all day)."""
    key = (game_id, ply, updated_at)
    if key not in _PUBLIC:
        with unit_of_work() as s:
            g = games.get(s, game_id)
            value = visibility.public_ply(s, g)
        if len(_PUBLIC) > 4096:
            _PUBLIC.clear()
        _PUBLIC[key] = value
    return _PUBLIC[key]


def _may_hold() -> bool:
    """Whether this server can hold a request for a while without keeping
    everybody else waiting: a threaded one (gunicorn's gthread workers, the
    development server). A sync worker serves one request at a time: there
    a long poll is answered at once, and the page polls instead."""
    return bool(request.environ.get("wsgi.multithread"))


@bp.get("/games/<int:game_id>/thread.json")
def thread_json(game_id: int):
    """The thread's posts after ``after`` (or the page before ``before``), as
    the viewer may read them. A live page asks with ``stamp`` (what it was
    drawn from) and ``wait`` (seconds, at most WAIT_MAX): the answer comes as
    soon as something changed, or empty when the time is up (a long poll: a
    worker thread is held for WAIT_MAX at most, by WAITERS polls at most, and
    only on a threaded server: ``held`` says whether it was), and carries the
    page's parts that changed (``parts``) only when the stamp did."""
    after = _int_arg("after", 0, _("a post id"))
    before = _int_arg("before", 0, _("a post id"))
    wait = max(0, min(_int_arg("wait", 0, _("a number of seconds")), WAIT_MAX))
    stamp = request.args.get("stamp", "")[:40]
    held = bool(wait) and not before and _may_hold() and _waiting.acquire(blocking=False)
    try:
        return _thread_answer(game_id, after, before, stamp, time.monotonic() + (wait if held else 0), held)
    finally:
        if held:
            _waiting.release()


def _quiet(game_id: int, after: int, stamp: str, held: bool) -> dict | None:
    """The answer of a poll that finds nothing new -- the same stamp, no post after ``after`` for
    the viewer -- from one statement (an open page polls all day, so its unchanged poll
    must cost little, whatever the game or the site holds); None when there may be news, or for a
    private game (whose viewers the full answer checks)."""
    with unit_of_work() as s:
        row = visibility.news(s, game_id, visitor.user_id(), after)
    if row is None or row.news or row.access == "private":
        return None
    public = _public_ply(row.id, row.ply, row.updated_at) if row.status == "running" else row.ply
    if _stamp(row, public) != stamp:
        return None
    return {"game_id": row.id, "ply": public, "status": row.status, "paused": bool(row.paused), "stamp": stamp,
            "held": held, "posts": []}


def _thread_answer(game_id: int, after: int, before: int, stamp: str, until: float, held: bool):
    while True:
        quiet = _quiet(game_id, after, stamp, held) if stamp and not before else None
        if quiet is not None:
            if time.monotonic() >= until:
                return jsonify(quiet)
            time.sleep(WAIT_STEP)
            continue
        with unit_of_work() as s:
            me = visitor.user(s)
            g = _load(s, game_id)
            who = visibility.viewer(s, g, me)
            public = visibility.public_ply(s, g)
            out = {"game_id": g.id, "ply": public, "status": g.status, "paused": bool(g.paused),
                   "stamp": _stamp(g, public),
                   "held": held}
            if before:
                older, more = visibility.latest_posts(s, g, who, POSTS_SHOWN, before_id=before, turns=True)
                out.update(posts=[_post_dict(p) for p in older], older=more)
                return jsonify(out)
            posts = visibility.posts(s, g, who, after_id=after, turns=True)
            moved = bool(stamp) and stamp != out["stamp"]
            if posts or moved or time.monotonic() >= until:
                out["posts"] = [_post_dict(p) for p in posts]
                if moved:
                    ctx = _context(s, g, me, with_posts=False, layouts=_layouts_arg())
                    ctx.update(top_flashes=[], move_flashes=[], thread_flashes=[], kept="", kept_post="")
                    out["parts"] = _render_parts(ctx)
                    out["your_turn"] = ctx["your_turn"]
                return jsonify(out)
        time.sleep(WAIT_STEP)


@bp.post("/games/<int:game_id>/move")
@visitor.login_required
def move(game_id: int):
    raw = request.form.get("text", "")
    texts = _lines(raw)
    try:
        expected = int(request.form.get("ply", ""))
    except ValueError:
        expected = None
    anchor = url_for("games.page", game_id=game_id) + "#result"
    if not texts:
        flash(_("Write a move, or click one of the legal moves."), "error-move")
        return redirect(anchor, 303)
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            g = _load(s, game_id)
            seat = seating.seat_of(s, g.id, me.id)
            if seat is None:
                flash(_("You have no seat in game #%(id)d; observers cannot move.", id=g.id), "error-move")
                return redirect(anchor, 303)
            if seat.resigned:  # a bot plays the seat until a replacement takes it over
                flash(_("You resigned from game #%(id)d; you no longer move in it.", id=g.id), "error-move")
                return redirect(anchor, 303)
            if expected is not None:  # the form holds the counter as the page showed it
                expected = visibility.real_ply(s, g, expected) if 0 <= expected <= visibility.public_ply(s, g) \
                    else None
            res = moves.submit_moves(s, g.id, seat.seat, texts, source="web", user_id=me.id,
                                     expected_ply=expected)
            # the counter the page shows now, for a stale move's answer only: in a game with secret steps
            # it costs a walk over the step, which every other answer would throw away
            shown_now = visibility.public_ply(s, g) if getattr(res.error, "code", "") == "stale" else None
            if res.applied and not res.replaced:  # a replaced secret choice: the others are told nothing
                # ... and while the turn goes on privately (its mover may still take it back) they are told at its end
                notify.announce_moves(s, g, seat.seat, me.name, res.applied[0].ply, receipt=False)
    except ConcurrentUpdate:
        flash(raw, "keep-move")
        flash(_("Another move arrived at the same moment; nothing of yours was applied. Please look again."),
              "error-move")
        return redirect(anchor, 303)
    except UserError as e:
        flash(e.describe(), "error-move")
        flash(raw, "keep-move")
        return redirect(anchor, 303)
    except HTTPException:  # no such game: a 404, not a system error
        raise
    except Exception:  # a system error: logged for us, a plain answer for the player; the transaction rolled back
        log.exception("web move failed in game #%s", game_id)
        flash(raw, "keep-move")
        flash(_("pbem hit an internal error reading that move; nothing was applied and we have logged it. "
                "Please try again, or write the move differently."), "error-move")
        return redirect(anchor, 303)
    if res.applied:
        applied = "; ".join(a.notation for a in res.applied)
        flash(_("Applied: %(moves)s. It replaces your order on file for this step (%(order)s); nobody else is "
                "told, and you may change it again until the step is revealed.", moves=applied,
                order="; ".join(res.replacing)) if res.replaced
              else _("Applied: %(moves)s", moves=applied), "ok-move")
        for a in res.applied:
            if a.note:  # a move the order left unsaid, and why (the mover's own: it may name the hand)
                flash(f"{a.notation}: {a.note}", "ok-move")
    if res.discarded:
        flash(_("Not applied (this game applies a batch of moves all or nothing): %(moves)s",
                moves="; ".join(a.text for a in res.discarded)), "error-move")
    if res.error is not None:
        err = res.error
        text = err.describe() if isinstance(err, (MoveError, UserError)) else str(err)
        if getattr(err, "code", "") == "stale":  # the services word it for mail; say it for the page
            text = _("The board changed while you were looking at it (game #%(id)d has moved on to ply "
                     "%(ply)d and your position changed). Nothing was applied: look at the board again and "
                     "choose your move.", id=game_id, ply=shown_now)
        if isinstance(err, UserError) and not isinstance(err, MoveError) and res.failed_text:
            text = f"{res.failed_text!r}: {text}"
        if res.not_applied:
            text += "\n" + _("Not applied after the error: %(moves)s", moves="; ".join(res.not_applied))
        if res.replacing:
            text += "\n" + _("Your order on file for this step (%(order)s) stays as it was.",
                             order="; ".join(res.replacing))
        flash(text, "error-move")
        flash(raw, "keep-move")  # the move box shows what was typed again, to be corrected
    return redirect(anchor, 303)


@bp.post("/games/<int:game_id>/takeback")
@visitor.login_required
def takeback(game_id: int):
    """Take back my last move at once, inside my own turn
    (services/referee/undo.takeback says when). The page offers it only then, behind a
    confirmation; ``ply`` is the move the player confirmed."""
    anchor = url_for("games.page", game_id=game_id) + "#takeback"
    try:
        ply = int(request.form.get("ply", ""))
    except ValueError:
        ply = None
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            g = _load(s, game_id)
            seat = seating.seat_of(s, g.id, me.id)
            if seat is None or seat.resigned:
                flash(_("You have no seat in game #%(id)d; there is no move of yours to take back.", id=g.id), "error")
                return redirect(anchor, 303)
            if ply is None:
                flash(_("Say which move to take back: the button under the move box does."), "error")
                return redirect(anchor, 303)
            m = undo.take_back(s, me, g.id, ply=ply)  # ``ply``: the number the page showed, checked there
            secret = m.superseded_by is not None
            text = (_("Taken back: your move at ply %(ply)d, %(move)s (a secret choice: nobody else is told). It is "
                      "still your turn; the board is as it was before that move.", ply=ply, move=m.notation)
                    if secret else
                    _("Taken back: your move at ply %(ply)d, %(move)s. It is still your turn; the board is as it "
                      "was before that move.", ply=ply, move=m.notation))
    except ConcurrentUpdate:
        flash(_("Another move arrived at the same moment; nothing was taken back. Please look again."), "error")
        return redirect(anchor, 303)
    except UserError as e:
        flash(e.describe(), "error")
        return redirect(anchor, 303)
    session[TOOK_BACK] = text
    return redirect(anchor, 303)


@bp.post("/games/<int:game_id>/hint")
@visitor.login_required
def hint(game_id: int):
    """A practice game's hint for my seat to move (services/turns/hints.py): the page then shows it
    under the move box; asked again at the same ply, the same hint."""
    anchor = url_for("games.page", game_id=game_id) + "#hint-box"
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            g = _load(s, game_id)
            fresh = hints.ask(s, g, me).fresh
    except UserError as e:
        flash(e.describe(), "error-move")
        return redirect(anchor, 303)
    flash(_("The search's best moves for you are below; the table is told that you used a hint.") if fresh else
          _("You asked at this ply already: this is the same hint (one hint per move)."), "ok-move")
    return redirect(anchor, 303)


@bp.post("/games/<int:game_id>/posts")
@visitor.login_required
def post(game_id: int):
    raw_to = request.form.get("to_seat", "")
    try:
        to_seat = int(raw_to) if raw_to != "" else None
    except ValueError:
        to_seat = -1
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            g = _load(s, game_id)
            thread.post(s, g, me, request.form.get("body", ""), to_seat=to_seat, source="web")
    except UserError as e:
        flash(e.describe(), "error-thread")
        flash(request.form.get("body", "")[:5000], "keep-thread")
        return redirect(url_for("games.page", game_id=game_id) + "#post-result", 303)
    return redirect(url_for("games.page", game_id=game_id) + "#thread", 303)


def _show(me) -> str:
    """What the thread shows: ?thread= (a visitor's choice, or a link's), else what the reader chose last
    (services/core/thread.shown: kept with the account), else everything."""
    asked = request.args.get("thread", "")
    return asked if asked in thread.SHOWS else thread.shown(me)


@bp.post("/games/<int:game_id>/thread-show")
@visitor.login_required
def thread_show(game_id: int):
    """Remember what the reader's game pages show of the thread (all, talk or moves), on any device.
    The page's buttons post here: without a script the page comes back at its thread; with one the
    page has switched already and asks for JSON."""
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            _load(s, game_id)
            show = thread.set_shown(s, me, request.form.get("show", ""))
    except UserError as e:
        if wants_json:
            return jsonify({"ok": False, "error": e.describe()}), 400
        flash(e.describe(), "error-thread")
        return redirect(url_for("games.page", game_id=game_id) + "#post-result", 303)
    if wants_json:
        return jsonify({"ok": True, "show": show})
    return redirect(url_for("games.page", game_id=game_id) + "#thread", 303)
