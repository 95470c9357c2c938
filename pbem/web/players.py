"""A player's page: their games, results, ratings, reliability and tournaments."""
from __future__ import annotations

from flask import Blueprint, abort, render_template

from pbem.engine import get_game
from pbem.services.core import reliability
from pbem.services.lobby import profiles
from pbem.services.lobby.tournaments import view as tournaments
from pbem.services.core.errors import NotFound

from . import forms, visitor

bp = Blueprint("players", __name__)


@bp.get("/players/<int:user_id>")
def page(user_id: int):
    with visitor.reads_that_may_lag() as s:
        try:
            me = visitor.user(s)
            p = profiles.profile(s, me, user_id, forms.page_arg())
        except NotFound:
            abort(404)
        entered = tournaments.entered_by(s, user_id, me)
    titles = {r.game: _title(r.game) for r in p.ratings}
    return render_template("web/player.html", p=p, titles=titles, new_below=reliability.NEW_BELOW,
                           tournaments=entered)


def _title(name: str) -> str:
    try:
        return get_game(name).title
    except KeyError:  # a game no longer offered: its rating stays, under its name
        return name
