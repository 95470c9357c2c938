"""The lobby (open games, creating, inviting, joining, starting) and the
dashboard of my games."""
from __future__ import annotations

from datetime import timezone

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from pbem.config import settings
from pbem.engine import GAMES
from pbem.i18n import _, lazy_gettext
from pbem.services.core import access, games, lifecycle, notify, seating, visibility
from pbem.services.lobby import invites, tables
from pbem.services.turns import bots
from pbem.services.core.errors import NotFound, UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Game

from . import forms, visitor, wording

bp = Blueprint("lobby", __name__)

POLICY_TEXT = {"wait": lazy_gettext("wait for the player"), "bot": lazy_gettext("a bot plays for them"),
               "abandon": lazy_gettext("the seat is abandoned")}


def _started_headline(s, g: Game):
    return notify.started_headline(s, g)  # in each reader's language


@bp.get("/lobby")
def index():
    with visitor.reads_that_may_lag() as s:
        me = visitor.user(s)
        # a private game only to those it is shown to, a page at a time (a busy lobby costs one page's work)
        found = tables.open_tables(s, me, forms.page_arg())
        rows = [{"g": t.game, "title": games.engine_for(t.game).title, "players": t.players, "mine": t.mine,
                 "invited": t.invited} for t in found.rows]
        invited = _invitations(s, me)
        running = [{"g": t.game, "title": games.engine_for(t.game).title, "players": t.players}
                   for t in tables.running_tables(s, me)]
    return render_template("web/lobby.html", rows=rows, found=found, games=GAMES, policies=POLICY_TEXT,
                           form=request.args, invited=invited, running=running)


def _invitations(s, me) -> list[dict]:
    """``me``'s unanswered invitations to open games, for the card of web/invitations.html."""
    if me is None:
        return []
    return [{"g": g, "title": games.engine_for(g).title, "by": by} for _i, g, by in tables.pending(s, me)]


@bp.post("/lobby/new")
@visitor.login_required
def create():
    f = request.form
    name = f.get("game", "")
    engine = GAMES.get(name)
    try:
        if engine is None:
            raise UserError(f"no game called {name!r}", example="spyrium", code="no_such_game")
        try:
            players = int(f.get("players", ""))
            hours = int(f.get("deadline_hours", "48"))
        except ValueError:
            raise UserError(_("players and deadline are whole numbers"), example="players 3, deadline 48",
                            code="bad_option") from None
        options = {o.name: f[f"opt_{o.name}"] for o in engine.options
                   if f.get(f"opt_{o.name}", "") != "" and f[f"opt_{o.name}"] != str(o.default)}
        access = f.get("access", "public")
        password = f.get("password", "") if access == "password" else None
        with unit_of_work() as s:
            me = visitor.user(s)
            tables.check_creation_quota(s, me)
            g = tables.create(s, me, name, players, options, deadline_hours=hours,
                             policy=f.get("policy", "wait"), day_mask=f.get("day_mask", ""),
                             access="public" if access == "password" else access, password=password,
                             min_reliability=f.get("min_reliability", ""), bot_level=f.get("bot_level") or None,
                             hints=f.get("hints") == "on")
            if g.status == "running":
                notify.queue_boards(s, g, notify.solo_started_headline(g, engine.title))
            gid = g.id
    except UserError as e:
        flash(_("The game was not created: %(why)s", why=wording.describe(e)), "error")
        return redirect(url_for("lobby.index"), 303)
    flash(_("Game #%(id)d created. Invite players or wait for them to join.", id=gid), "ok")
    return redirect(url_for("games.page", game_id=gid), 303)


@bp.post("/games/<int:game_id>/join")
@visitor.login_required
def join(game_id: int):
    return _join(game_id, lambda s, me: tables.join(s, me, game_id, password=request.form.get("password") or None))


def _join(game_id: int, take):
    """Join (or accept an invitation): ``take(s, me)`` gives (game, seat, started). A refused
    password is kept as a failed try (the transaction commits with it) and nothing else changes."""
    refused = None
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            try:
                g, seat, started = take(s, me)
            except tables.WrongPassword as e:
                refused = e
            else:
                if started:
                    # everyone gets the board, the joiner too: it carries their seat's reply address
                    notify.queue_boards(s, g, _started_headline(s, g))
        if refused is not None:
            raise refused
    except NotFound:
        abort(404)
    except UserError as e:
        flash(_refusal(e, game_id), "error")
        # a private game's page is not shown to those it refused: its refusal is read in the lobby
        return redirect(url_for("lobby.index") if e.code in ("private", "not_invited") else
                        url_for("games.page", game_id=game_id), 303)
    flash(_("You have seat %(seat)d in game #%(id)d. The game has started!", seat=seat.seat + 1, id=game_id) if started
          else _("You have seat %(seat)d in game #%(id)d.", seat=seat.seat + 1, id=game_id), "ok")
    return redirect(url_for("games.page", game_id=game_id), 303)


def _refusal(e: UserError, game_id: int) -> str:
    """A refused join as a page says it: a password's refusal in one sentence that says what to do here
    (the services' says it for mail: "write it after the game's number"), a private game's and too many
    tries' as the services say them (their mail example is no help on a page); any other as usual."""
    if e.code == "no_password":
        return _("Game #%(id)d needs a password to join: type it in the Password field next to Join, and ask the "
                 "game's creator for it if you do not have it.", id=game_id)
    if e.code == "wrong_password":
        return _("That is not the password of game #%(id)d, so you have not joined: type it again in the Password "
                 "field next to Join, minding its capital letters, or ask the game's creator for it.", id=game_id)
    if e.code in ("private", "too_many_tries"):
        return e.message
    return wording.describe(e)


@bp.post("/games/<int:game_id>/accept")
@visitor.login_required
def accept(game_id: int):
    """An invitation accepted: the invitee joins (as by JOIN)."""
    return _join(game_id, lambda s, me: tables.accept(s, me, game_id))


@bp.post("/games/<int:game_id>/decline")
@visitor.login_required
def decline(game_id: int):
    """An invitation declined: recorded, and its inviter told by mail."""
    try:
        with unit_of_work() as s:
            tables.decline(s, visitor.user(s), game_id)
    except NotFound:
        abort(404)
    except UserError as e:
        flash(wording.describe(e), "error")
        return redirect(url_for("lobby.index"), 303)
    flash(_("You have declined the invitation to game #%(id)d; the player who invited you is told.", id=game_id),
          "ok")
    return redirect(url_for("lobby.index"), 303)


@bp.post("/games/<int:game_id>/remove")
@visitor.login_required
def remove(game_id: int):
    """The creator (or an admin) removes a joined player before the start."""
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            access.require_seen(s, games.get(s, game_id), me)
            _g, player = tables.remove(s, me, game_id, request.form.get("seat", ""))
            name = player.name
    except NotFound:
        abort(404)
    except UserError as e:
        flash(wording.describe(e), "error")
        return redirect(url_for("games.page", game_id=game_id), 303)
    flash(_("%(name)s is no longer in game #%(id)d and is told so by mail.", name=name, id=game_id), "ok")
    return redirect(url_for("games.page", game_id=game_id), 303)


@bp.post("/games/<int:game_id>/bot")
@visitor.login_required
def add_bot(game_id: int):
    """The creator (or an admin) seats a bot of a chosen level in the next free seat."""
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            access.require_seen(s, games.get(s, game_id), me)
            g, seat, started = bots.add_bot(s, me, game_id, request.form.get("level") or None)
            if started:
                notify.queue_boards(s, g, _started_headline(s, g))
            number, level = seat.seat + 1, bots.level_of(g, seat)
    except NotFound:
        abort(404)
    except UserError as e:
        flash(wording.describe(e), "error")
        return redirect(url_for("games.page", game_id=game_id), 303)
    flash(_("A bot (%(level)s) has seat %(seat)d.", level=wording.level_word(level), seat=number)
          + (" " + _("The game is full and has started.") if started else ""), "ok")
    return redirect(url_for("games.page", game_id=game_id), 303)


@bp.post("/games/<int:game_id>/start")
@visitor.login_required
def start(game_id: int):
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            g = games.get(s, game_id, lock=True)
            lifecycle.start(s, g, by=me)
            notify.queue_boards(s, g, _started_headline(s, g))
    except UserError as e:
        flash(wording.describe(e), "error")
        return redirect(url_for("games.page", game_id=game_id), 303)
    flash(_("Game #%(id)d has started.", id=game_id), "ok")
    return redirect(url_for("games.page", game_id=game_id), 303)


@bp.post("/games/<int:game_id>/invite")
@visitor.login_required
def invite(game_id: int):
    try:
        with unit_of_work() as s:
            row = invites.invite(s, visitor.user(s), game_id, request.form.get("email", ""),
                                 link=f"{settings().base_url.rstrip('/')}{url_for('games.page', game_id=game_id)}")
            addr = row.email
    except NotFound:
        abort(404)
    except UserError as e:
        flash(_("No invitation was sent: %(why)s", why=wording.describe(e)), "error")
        return redirect(url_for("games.page", game_id=game_id), 303)
    flash(_("Invitation sent to %(address)s.", address=addr), "ok")
    return redirect(url_for("games.page", game_id=game_id), 303)


def _aware(dt):
    return dt if dt is None or dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def result(g: Game, names: list[str], mine: int) -> dict | None:
    """A finished game's result for the dashboard: who won, and every seat's score (best first)."""
    out = g.outcome if g.status == "finished" else None
    if not out or not out.get("scores"):
        return None
    scores = out["scores"]
    winners = [names[i] if i < len(names) else _("Seat %(num)d", num=i + 1) for i in out.get("winners", [])]
    order = out.get("ranking") or sorted(range(len(scores)), key=lambda i: -scores[i])
    return {"winners": winners, "won": mine in out.get("winners", []),
            "scores": [(names[i] if i < len(names) else _("Seat %(num)d", num=i + 1), scores[i]) for i in order if i < len(scores)]}


@bp.get("/me")
@visitor.login_required
def dashboard():
    with unit_of_work() as s:
        me = visitor.user(s)
        if me is None:
            return redirect(url_for("auth.login"))
        # where I must act first: my turn, earliest deadline; then the rest, newest activity first (in SQL)
        found = games.my_games(s, me, forms.page_arg())
        seating.load_seats(s, [m.game.id for m in found.rows])
        rows = []
        for m in found.rows:
            g = m.game
            names = seating.names(s, g.id)
            # who is to move: the human seats whose clock runs (services/core/games.my_games)
            waiting = [n for x, n in zip(seating.seats(s, g.id), names) if x.deadline_at is not None] \
                if g.status == "running" else []
            rows.append({"g": g, "title": games.engine_for(g).title, "names": names, "seat": m.seat,
                         "ply": visibility.public_ply(s, g),
                         "waiting": waiting, "my_turn": m.my_turn, "deadline": _aware(m.seat.deadline_at),
                         "result": result(g, names, m.seat.seat)})
        invited = _invitations(s, me)
    return render_template("web/dashboard.html", rows=rows, found=found, invited=invited)
