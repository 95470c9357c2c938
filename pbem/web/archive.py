"""The archive of finished games: a search by game, player and
date, and each game's record as a JSON download (services/lobby/archive)."""
from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request

from pbem.engine import GAMES
from pbem.services.lobby import archive
from pbem.services.core.errors import NotFound, UserError

from . import forms, visitor

bp = Blueprint("archive", __name__)


@bp.get("/archive")
def index():
    form = {k: request.args.get(k, "")[:80] for k in ("game", "player", "from", "to")}
    page = forms.page_arg()
    error, result = None, archive.Page([], page, False)
    with visitor.reads_that_may_lag() as s:
        me = visitor.user(s)
        try:
            result = archive.search(s, me, game=form["game"], player=form["player"], since=form["from"],
                                    until=form["to"], page=page, per_page=archive.PER_PAGE)
        except UserError as e:
            error = e.describe()
        # the finished tournaments on the first page (their own pages hold each table's record)
        held = archive.tournaments(s, me, game=form["game"]) if page == 1 and not error else []
    return render_template("web/archive.html", result=result, form=form, games=GAMES, error=error,
                           tournaments=held), 400 if error else 200


@bp.get("/games/<int:game_id>/record.json")
def record(game_id: int):
    """The finished game's record, as a file to keep or to ``pbem import``."""
    with visitor.reads_that_may_lag() as s:
        me = visitor.user(s)
        try:
            rec = archive.record(s, game_id, me)
        except NotFound as e:
            return jsonify({"error": e.message}), 404
        except UserError as e:  # a game not over yet: nothing of it is exported
            return jsonify({"error": e.message}), 409
    name = f'pbem-{rec["game"]["name"]}-{game_id}.json'
    return Response(archive.dumps(rec), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
