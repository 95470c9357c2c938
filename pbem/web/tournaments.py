"""Tournaments and leagues on the web: the list (with the form that makes one), a tournament's page
(its standings, rounds and tables, and the buttons to enter, to leave and, for its director, to
start a round or close it), a player's season in it, its standings as CSV and the stream that keeps
an open page up to date. Each shows what the viewer may see (services/lobby/tournaments/view) and
each form calls the same services as the TOURNAMENT mail command (services/lobby/tournaments/season):
a refusal is the services' own reason with an example worded for the form, and changes nothing."""
from __future__ import annotations

import json
import re
import threading
import time
from datetime import date, datetime, time as daytime, timezone

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for

from pbem.engine import GAMES
from pbem.i18n import _, lazy_gettext, ngettext
from pbem.services.core import games, notify, seating
from pbem.services.core.errors import NotFound, UserError
from pbem.services.lobby import tables
from pbem.services.lobby.tournaments import runs, scoring, season, view
from pbem.store.db import unit_of_work
from pbem.store.live import HUB, tournament_key
from pbem.store.models import Tournament, User

from . import live as game_live, visitor, wording

bp = Blueprint("tournaments", __name__)

NEW_EXAMPLE = "players=3 rounds=3"
_OPTION_RE = re.compile(r"^([a-z_][a-z0-9_]*)=(\S+)$", re.I)
FIELDS = ("game", "name", "players", "format", "rounds", "advance", "scoring", "points", "tiebreaks", "deadline",
          "policy", "bot", "entry_closes", "max", "access", "password", "invite", "min_rating", "min_reliability",
          "options", "start", "every", "late", "director")


def _hint(example: str | None) -> str:
    """A refusal's example (written for mail: TOURNAMENT NEW spyrium players=3) as the form words it:
    the fields' names are the mail's keys, so its key=value words are the example."""
    if not example:
        return ""
    words = example.split()
    if words[:2] == ["TOURNAMENT", "NEW"] or words[:1] == ["NEW"]:  # (a game's password: NEW spyrium password=owl42)
        shown = " ".join(w for w in words if "=" in w) or NEW_EXAMPLE
        return _("for example %(example)s", example=shown)
    if words[:2] == ["TOURNAMENT", "JOIN"]:
        return _("type the tournament's password in the Password field next to Enter")
    if words[:2] == ["TOURNAMENT", "CLOSE"]:
        return _("use the Close button of the tournament's page")
    if words[:1] == ["TOURNAMENT"] or example.startswith("/"):
        return ""  # STATUS, STANDINGS, LIST: the page itself shows them
    return wording.web_hint(example)


def describe(e: UserError) -> str:
    hint = _hint(e.example)
    return f"{e.message} ({hint})" if hint else e.message


def _whole(form, key: str, default: int | None = None) -> int | None:
    raw = (form.get(key) or "").strip()
    if raw == "":
        return default
    if not raw.isdigit():
        raise UserError(_("%(key)s is a whole number (got %(value)s)", key=key, value=repr(raw[:20])),
                        example=f"TOURNAMENT NEW spyrium {key}={default or 3}", code="bad_option")
    return int(raw)


def _closes(raw: str) -> datetime | None:
    """The day entry closes (the end of that day, UTC); None: open until the first round."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise UserError(_("the day entry closes is a date written year-month-day, not %(raw)s", raw=repr(raw[:20])),
                        example="2026-12-24", code="bad_date") from None
    return datetime.combine(day, daytime(23, 59), tzinfo=timezone.utc)


def _options(raw: str) -> dict[str, str]:
    out = {}
    for word in (raw or "").split():
        m = _OPTION_RE.match(word)
        if not m:
            raise UserError(_("the game's options are written key=value, separated by spaces (not %(word)s)",
                              word=repr(word[:30])), example="TOURNAMENT NEW spyrium side=a", code="bad_option")
        out[m.group(1).lower()] = m.group(2)
    return out


def _create(s, me, f) -> Tournament:
    """The form's tournament, made by the service the mail's TOURNAMENT NEW calls."""
    access = f.get("access", "public")
    if access not in ("public", "private", "password"):
        raise UserError(_("a tournament is public, private (invitation only) or has a password"),
                        example="TOURNAMENT NEW spyrium access=public", code="bad_option")
    password = f.get("password", "") if access == "password" else None
    invited = [a for a in re.split(r"[\s,;]+", f.get("invite", "")) if a]
    bad = [a for a in invited if "@" not in a]
    if bad:
        raise UserError(_("the invited are mail addresses, separated by commas or spaces (not %(word)s)",
                          word=repr(bad[0][:40])),
                        example="TOURNAMENT NEW spyrium invite=ann@example.org,bob@example.org", code="bad_option")
    return runs.make(
        s, me, f.get("game", ""), name=f.get("name", ""), table_size=_whole(f, "players"),
        options=_options(f.get("options", "")),
        format=(f.get("format") or "swiss").lower(), rounds=_whole(f, "rounds", 3), advance=_whole(f, "advance", 1),
        scoring_by=(f.get("scoring") or "places").lower(), points=(f.get("points") or "").strip() or None,
        tie_breaks=(f.get("tiebreaks") or "").strip() or None, deadline_hours=_whole(f, "deadline", 48),
        policy=(f.get("policy") or "bot").lower(), bot_level=f.get("bot") or "easy",
        entry_closes_at=_closes(f.get("entry_closes", "")), max_entries=_whole(f, "max"),
        access="private" if access == "private" else "public", password=password, invited=invited,
        min_rating=f.get("min_rating") or None, min_reliability=f.get("min_reliability") or None,
        start=(f.get("start") or "").strip() or None, every=_every(f.get("every", "")),
        late=(f.get("late") or "").strip().lower() or None,
        named_director=(f.get("director") or "").strip() or None)


def _every(text: str) -> str | None:
    """The days between rounds as the form has them: a bare number is days ("14" is the mail's 14d)."""
    text = text.strip()
    return f"{text}d" if text.isdigit() else text or None


def _listing(status: int = 200, form=None, error: str | None = None):
    with unit_of_work() as s:
        rows = view.listing(s, visitor.user(s))
    return render_template("web/tournaments.html", rows=rows, games=GAMES, formats=season.FORMATS,
                           policies=games.POLICIES, tie_breaks=scoring.TIE_BREAKS, form=form or {},
                           error=error), status


@bp.get("/tournaments")
def index():
    return _listing()


@bp.post("/tournaments/new")
@visitor.login_required
def create():
    f = request.form
    try:
        with unit_of_work() as s:
            tid = _create(s, visitor.user(s), f).id  # with its mails, as the mail's TOURNAMENT NEW (runs.make)
    except UserError as e:
        # the form comes back as it was sent (its password too: it is the director's own), nothing made
        return _listing(400, {k: f.get(k, "") for k in FIELDS}, _("The tournament was not made: %(why)s",
                                                                  why=describe(e)))
    flash(_("Tournament #%(id)d is open for entry: players enter on its page (or by mail: TOURNAMENT JOIN %(id)d), "
            "and you start each round here.", id=tid), "ok")
    return redirect(url_for("tournaments.page", tournament_id=tid), 303)


@bp.get("/tournaments/<int:tournament_id>")
def page(tournament_id: int):
    with unit_of_work() as s:
        try:
            shown = view.page(s, tournament_id, visitor.user(s))
        except NotFound:
            abort(404)
    return render_template("web/tournament.html", t=shown)


def _back(tournament_id: int):
    return redirect(url_for("tournaments.page", tournament_id=tournament_id), 303)


def _seen(s, tournament_id: int):
    """The tournament if the viewer may see it; a private one is nobody else's business (404)."""
    try:
        return view.shown(s, tournament_id, visitor.user(s))
    except NotFound:
        abort(404)


@bp.post("/tournaments/<int:tournament_id>/join")
@visitor.login_required
def join(tournament_id: int):
    refused = None
    try:
        with unit_of_work() as s:
            _seen(s, tournament_id)
            try:
                season.join(s, visitor.user(s), tournament_id, password=request.form.get("password") or None)
            except tables.WrongPassword as e:
                refused = e  # the wrong try is kept (counted): this transaction commits with it
        if refused is not None:
            raise refused
    except UserError as e:
        flash(_("You have not entered: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(_("You have entered tournament #%(id)d.", id=tournament_id), "ok")
    return _back(tournament_id)


@bp.post("/tournaments/<int:tournament_id>/leave")
@visitor.login_required
def leave(tournament_id: int):
    """Leaving cannot be taken back (a bot plays this round's game, and no later round seats the
    player), so, as the mail's LEAVE waits for its confirmation, the button asks first: without
    ``confirm=yes`` this only shows what leaving does, with a second button that confirms."""
    with unit_of_work() as s:
        shown = view.page(s, _seen(s, tournament_id).id, visitor.user(s))
    if request.form.get("confirm") != "yes":
        return render_template("web/tournament_leave.html", t=shown)
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            left = season.leave(s, me, tournament_id)
            for g in left.games:
                notify.queue_boards(s, g, lazy_gettext("%(name)s has left the tournament; a bot plays their seat to "
                                                       "the end of this game.", name=me.name))
            gids = [g.id for g in left.games]
    except UserError as e:
        flash(_("You have not left: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(_("You have left tournament #%(id)d: a bot plays your seat in game #%(game)d to its end, and you sit out "
            "the later rounds.", id=tournament_id, game=gids[0]) if gids else
          _("You have left tournament #%(id)d.", id=tournament_id), "ok")
    return _back(tournament_id)


@bp.post("/tournaments/<int:tournament_id>/start")
@visitor.login_required
def start(tournament_id: int):
    try:
        with unit_of_work() as s:
            _seen(s, tournament_id)
            t, rnd, made = runs.start(s, visitor.user(s), tournament_id)
            for g in made:  # every table's players get their boards, as after the mail's START
                notify.queue_boards(s, g, lazy_gettext("Tournament #%(id)d, round %(round)d: game #%(game)d has "
                                                       "started: %(names)s.", id=t.id, round=rnd.number, game=g.id,
                                                       names=", ".join(seating.names(s, g.id))))
            number, count = rnd.number, len(made)
    except UserError as e:
        flash(_("No round was started: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(ngettext("Round %(round)d has started at %(num)d table; its players have their boards.",
                   "Round %(round)d has started at %(num)d tables; their players have their boards.", count,
                   round=number), "ok")
    return _back(tournament_id)


@bp.post("/tournaments/<int:tournament_id>/close")
@visitor.login_required
def close(tournament_id: int):
    try:
        with unit_of_work() as s:
            _seen(s, tournament_id)
            t = runs.close(s, visitor.user(s), tournament_id)
            cancelled = t.status == "cancelled"
    except UserError as e:
        flash(_("The tournament was not closed: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(_("Tournament #%(id)d is cancelled.", id=tournament_id) if cancelled else
          _("Tournament #%(id)d is over: its standings are final, and it is in the archive.", id=tournament_id), "ok")
    return _back(tournament_id)


@bp.post("/tournaments/<int:tournament_id>/seat")
@visitor.login_required
def seat(tournament_id: int):
    """The director enters a player whatever the conditions (TOURNAMENT SEAT): seated from the next round."""
    try:
        with unit_of_work() as s:
            _seen(s, tournament_id)
            me = visitor.user(s)
            t, player = runs.seat(s, me, tournament_id, request.form.get("address", ""))
            name, number = player.name, t.round + 1
    except UserError as e:
        flash(_("Nobody was entered: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(_("%(name)s is entered and seated from round %(round)d on; they have been told.", name=name, round=number),
          "ok")
    return _back(tournament_id)


@bp.post("/tournaments/<int:tournament_id>/adjust")
@visitor.login_required
def adjust(tournament_id: int):
    """The director adds or takes away a player's points, with the reason (TOURNAMENT ADJUST)."""
    f = request.form
    try:
        with unit_of_work() as s:
            _seen(s, tournament_id)
            me = visitor.user(s)
            _t, row = runs.adjust(s, me, tournament_id, f.get("address", ""), f.get("points", ""), f.get("reason", ""))
            name, points = s.get(User, row.user_id).name, view.signed(row.points)
    except UserError as e:
        flash(_("No points were adjusted: %(why)s", why=describe(e)), "error")
        return _back(tournament_id)
    flash(_("The points of %(name)s are adjusted by %(points)s; they have been told.", name=name, points=points), "ok")
    return _back(tournament_id)


@bp.get("/tournaments/<int:tournament_id>/players/<int:user_id>")
def player(tournament_id: int, user_id: int):
    with unit_of_work() as s:
        try:
            shown = view.player_page(s, tournament_id, user_id, visitor.user(s))
        except NotFound:
            abort(404)
    return render_template("web/tournament_player.html", p=shown, t=shown.tournament)


@bp.get("/tournaments/<int:tournament_id>/standings.csv")
def standings_csv(tournament_id: int):
    with unit_of_work() as s:
        try:
            text, name = view.standings_csv(s, tournament_id, visitor.user(s))
        except NotFound:
            abort(404)
    return Response(text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'})


# ---------------------------------------------------------------- the live page

HEARTBEAT = 20.0  # seconds between comments on an idle stream
LIFETIME = 600.0  # a stream ends after this long (the page opens it again)


def _watch(tournament_id: int, viewer_id: int | None) -> tuple[str, list[int]]:
    """What the viewer's page shows now (its stamp), and the games whose changes may change it: the
    tables of the round in play (a finished one's result is final)."""
    with unit_of_work() as s:
        viewer = s.get(User, viewer_id) if viewer_id else None
        shown = view.page(s, tournament_id, viewer)
        t = s.get(Tournament, tournament_id)
        return shown.stamp, [r.game_id for r in season.tables_of(s, t, t.round)] if t.round else []


@bp.get("/tournaments/<int:tournament_id>/live")
def live(tournament_id: int):
    """The page's event stream (Server-Sent Events), as a game page's (web/live.py): it tells the page
    THAT what it shows changed (``news``, carrying nothing), and the page then reloads its standings and
    tables as its viewer may see them. It waits on the tables' games (store/live.py: a move, a game's
    end) and on the tournament's own changes (its rounds, entries and state, published under the
    tournament's key), and says news only when the page's stamp changed, so a move inside a game that
    changes nothing shown wakes no page (without a stamp: news at once, then the end). A page without
    script, or whose stream fails, polls instead."""
    stamp = request.args.get("stamp", "")[:40]
    with unit_of_work() as s:
        _seen(s, tournament_id)
    viewer_id = visitor.user_id()
    HUB.start()
    slots = game_live._slots()  # the streams a process may hold, game pages' and tournaments' alike
    if not slots.acquire(blocking=False):
        return Response("too many live pages here; reload the page\n", status=503,
                        headers={"Retry-After": "60", "Cache-Control": "no-store"}, mimetype="text/plain")
    ends = HUB.ends
    done, lock = [], threading.Lock()

    def release():  # once: when the stream ends, or when the server closes an answer never read
        with lock:
            if done:
                return
            done.append(True)
        slots.release()

    def events():
        try:
            yield from follow()
        finally:
            release()

    def follow():
        yield "retry: 3000\n\n"
        key = tournament_key(tournament_id)
        known = HUB.version(key)  # (each version read before the database is: a change after it is news)
        drawn, watched = _watch(tournament_id, viewer_id)
        if drawn != stamp:
            yield f"event: news\ndata: {json.dumps({'tournament': tournament_id})}\n\n"
            if not stamp:
                return  # a page that has drawn nothing asks for everything: nothing to follow
        seen = {key: known, **{g: HUB.version(g) for g in watched}}
        end = time.monotonic() + LIFETIME
        while time.monotonic() < end:
            changed = HUB.wait_any(seen, HEARTBEAT, ends)
            if HUB.ends != ends:
                return
            if not changed:
                yield ": heartbeat\n\n"
                continue
            heard = {g: HUB.version(g) for g in seen}
            now, watched = _watch(tournament_id, viewer_id)
            seen = {g: heard[g] if g in heard else HUB.version(g) for g in [key, *watched]}
            if now != drawn:
                drawn = now
                yield f"event: news\ndata: {json.dumps({'tournament': tournament_id})}\n\n"

    resp = Response(events(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    resp.call_on_close(release)
    return resp
