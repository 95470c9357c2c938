"""Public pages: the home page, and for each game a rules summary and its notation."""
from __future__ import annotations

import re
from functools import lru_cache

import markdown
from flask import Blueprint, abort, current_app, render_template, request, send_from_directory
from markupsafe import Markup

from pbem import i18n
from pbem.config import shipped
from pbem.engine import GAMES
from pbem.i18n import _, lazy_gettext
from pbem.store.db import unit_of_work

from . import visitor

bp = Blueprint("public", __name__)

SUMMARIES = {
    "spyrium": [
        lazy_gettext("Spyrium (William Attia, 2–5 players, 6 rounds in 3 periods) is a game of workers and money in a "
                     "steampunk town. Nine cards lie face up in a 3 × 3 market; between neighbouring cards are the spaces "
                     "where workers stand."),
        lazy_gettext("Each round has two phases. In Phase I you place workers between cards, or move on to Phase II. In "
                     "Phase II you take a worker back: either earn money from the cards it touches (one coin per other "
                     "worker beside the card), or pay to activate one of those cards — hire a character, construct a "
                     "building, learn a technique."),
        lazy_gettext("Buildings produce money, spyrium crystals and points; spyrium turns into points and power. Events "
                     "change the rules of each round. After the sixth round the most victory points win."),
    ],
    "squire": [
        lazy_gettext("Squire («Сквайр. Клуб коллекционеров», 2–4 players) is a game of collectors travelling between the "
                     "cities of a map, buying and selling exhibits at prices set by a shared market."),
        lazy_gettext("A turn has five steps: move, buy or sell, market update, gallery placement with its bonuses, and "
                     "exhibitions. Your gallery is a 3 × 4 grid; filling its halls well brings bonuses, and exhibitions in "
                     "the cities bring rewards. Secret message cards carry offers and royal commissions that only you can see."),
        lazy_gettext("The game ends when the supply of exhibits runs out. You score the printed values of the exhibits in "
                     "your gallery, the points of your accepted commissions, and one point per five leftover coins and "
                     "tickets; the highest score wins."),
    ],
    "iaww": [
        lazy_gettext("It's a Wonderful World (Frédéric Guérard, 1–5 players, 4 rounds) is a drafting and engine-building "
                     "game: each player leads an empire that grows from its resources."),
        lazy_gettext("Every round you draft development cards (everyone picks at the same time and passes the rest on), "
                     "then plan: each card is either put into construction or recycled for one resource. Production follows "
                     "in five steps — materials, energy, science, gold, exploration — and each new resource goes onto a "
                     "card under construction or into your empire; a card whose cost is covered is built and starts "
                     "producing too."),
        lazy_gettext("After four rounds the empire with the most victory points wins. A solo mode with six scenarios is "
                     "included. Draft and planning steps are simultaneous: nobody sees another player's hand."),
    ],
}


# what docs/notation/*.md says to whoever runs pbem, not to players: the moderator's notes and the
# citations of RULES.md (a file of the repository, not of the site)
FOR_MODERATORS = re.compile(r"^## Notes for the moderator\b.*?(?=^## |\Z)", re.M | re.S)
NOTATION = shipped("docs", "notation")  # the clone's docs/notation, or the installed package's copy
RULES_CITE = re.compile(r"\s*\(RULES\.md\s+§[^)]*\)")


def for_players(text: str) -> str:
    """A notation file as the rules page shows it: without what is meant for the moderator."""
    return RULES_CITE.sub("", FOR_MODERATORS.sub("", text))


def notation_path(game: str, lang: str | None = None):
    """The notation of ``game`` in ``lang`` (docs/notation/<lang>/<game>.md), else the English one."""
    lang = i18n.normalize(lang or i18n.current())
    if lang != i18n.SOURCE:
        own = NOTATION / lang / f"{game}.md"
        if own.exists():
            return own
    return NOTATION / f"{game}.md"


def notation_html(game: str, lang: str | None = None) -> Markup:
    path = notation_path(game, lang)
    if not path.exists():
        return Markup("<p>%s</p>") % _("The notation is shown on the game's page, next to the board.")
    return _notation_html(str(path), path.stat().st_mtime, i18n.current())


@lru_cache(maxsize=32)
def _notation_html(file: str, _mtime: float, _lang: str) -> Markup:
    from pathlib import Path

    path = Path(file)
    # the files are ours (docs/), not user input; raw HTML in them is escaped anyway
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(for_players(path.read_text(encoding="utf-8")))
    # a wide example or table scrolls in its own box, which a keyboard can reach (axe: scrollable regions)
    html = html.replace("<pre>", '<pre tabindex="0">')
    html = html.replace("<table>", Markup('<div class="scroll" tabindex="0" role="region" aria-label="%s"><table>')
                        % _("Table"))
    html = html.replace("</table>", "</table></div>")
    return Markup(html)


@bp.get("/")
def home():
    with unit_of_work() as s:
        visitor.user(s)
    return render_template("web/home.html", games=GAMES, summaries=SUMMARIES)


@bp.get("/favicon.ico")
def favicon():
    """The site's icon, where every browser asks for it (a page needs no <link> for it)."""
    return send_from_directory(current_app.static_folder, "favicon.ico", mimetype="image/vnd.microsoft.icon",
                               max_age=7 * 86400)


@bp.get("/rules/<name>")
def rules(name: str):
    game = GAMES.get(name)
    if game is None:
        abort(404)
    with unit_of_work() as s:
        visitor.user(s)
    return render_template("web/rules.html", game=game, summary=SUMMARIES.get(name, []),
                           notation=notation_html(name, i18n.current()))


@bp.get("/rules/<name>/cards")
def cards(name: str):
    """Every card of a game with its whole text (CARD by mail), or those ``?q=`` names."""
    from pbem.engine.base import find_cards

    game = GAMES.get(name)
    if game is None:
        abort(404)
    with unit_of_work() as s:
        visitor.user(s)
    q = (request.args.get("q") or "").strip()[:80]
    found = find_cards(game, q) if q else list(getattr(game, "cards", lambda: ())())
    return render_template("web/cards.html", game=game, q=q, cards=found)
