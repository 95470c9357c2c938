"""Tournaments and leagues on the web: the list, a tournament's page (its standings, rounds and
tables) and its standings as CSV; each as the viewer may see it (services/lobby/tournaments/view)."""
from __future__ import annotations

from flask import Blueprint, Response, abort, render_template

from pbem.services.core.errors import NotFound
from pbem.services.lobby.tournaments import view
from pbem.store.db import unit_of_work

from . import visitor

bp = Blueprint("tournaments", __name__)


@bp.get("/tournaments")
def index():
    with unit_of_work() as s:
        rows = view.listing(s, visitor.user(s))
    return render_template("web/tournaments.html", rows=rows)


@bp.get("/tournaments/<int:tournament_id>")
def page(tournament_id: int):
    with unit_of_work() as s:
        try:
            shown = view.page(s, tournament_id, visitor.user(s))
        except NotFound:
            abort(404)
    return render_template("web/tournament.html", t=shown)


@bp.get("/tournaments/<int:tournament_id>/standings.csv")
def standings_csv(tournament_id: int):
    with unit_of_work() as s:
        try:
            text, name = view.standings_csv(s, tournament_id, visitor.user(s))
        except NotFound:
            abort(404)
    return Response(text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'})
