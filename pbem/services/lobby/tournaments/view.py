"""What a tournament's page, its CSV and the list of tournaments show one viewer: a projection
made here, never the rows themselves. A private tournament is shown only to those who may see it
(season.may_see: as if it did not exist to anybody else); a table's game is linked only when the
viewer may see that game (core/access.may_see), and its result shows only once it is over (a
finished game's result is public, visibility.ranking)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from pbem.engine import get_game
from pbem.i18n import _, ngettext
from pbem.store.models import Game, Tournament, User

from ...core import access, games
from ...core.errors import NotFound
from . import scoring, season


@dataclass(frozen=True)
class Line:
    """A player's line of the standings."""
    place: int
    user_id: int
    name: str
    points: str
    played: int
    wins: int
    byes: int
    tie_breaks: tuple[tuple[str, str], ...]
    out: bool  # left the tournament


@dataclass(frozen=True)
class TableShown:
    number: int
    game_id: int
    shown: bool  # the viewer may open the game
    status: str
    players: tuple[tuple[str, int | None], ...]  # (name, place once finished)


@dataclass(frozen=True)
class RoundShown:
    number: int
    tables: tuple[TableShown, ...]
    byes: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    id: int
    name: str
    game: str
    format: str
    table_size: int
    status: str
    state: str  # in words
    round: int
    rounds: int | None
    director: str
    entry_closes_at: datetime | None
    conditions: tuple[str, ...]
    scoring: str
    tie_breaks: tuple[str, ...]
    entrants: int
    standings: tuple[Line, ...]
    played: tuple[RoundShown, ...]
    is_director: bool
    has_entered: bool
    next_round_at: datetime | None = None  # the next round's date, when the rounds are dated
    late: str = "wait"  # a round due while a table of the last one plays: waits for it, or goes


def _state(t: Tournament) -> str:
    return {"entry": _("open for entry"), "running": _("round %(round)d is being played", round=t.round),
            "finished": _("finished"), "cancelled": _("cancelled")}[t.status]


def _conditions(t: Tournament) -> tuple[str, ...]:
    out = []
    if t.access == "private":
        out.append(_("by invitation only"))
    if t.access == "password":
        out.append(_("a password"))
    if t.max_entries:
        out.append(ngettext("at most %(num)d player", "at most %(num)d players", t.max_entries))
    if t.min_rating is not None:
        out.append(_("a rating of at least %(min)s", min=scoring.format_number(t.min_rating)))
    if t.min_reliability is not None:
        out.append(_("a reliability of at least %(min)d%%", min=t.min_reliability))
    return tuple(out)


def shown(s: Session, tournament_id: int, viewer: User | None) -> Tournament:
    t = s.get(Tournament, tournament_id)
    if t is None or not season.may_see(s, t, viewer):
        raise NotFound(_("there is no tournament #%(id)d", id=tournament_id), example="/tournaments",
                       code="no_tournament")
    return t


def standings(s: Session, t: Tournament) -> tuple[Line, ...]:
    rows = season.standings(s, t)
    names = season.names(s, [r.player for r in rows])
    out_ids = {e.user_id for e in season.entries(s, t) if e.left_round is not None}
    breaks = tuple(b for b in t.tie_breaks.split(",") if b)
    return tuple(Line(r.place, r.player, names.get(r.player, "?"), scoring.format_number(r.points), r.played, r.wins,
                      r.byes, tuple((b, scoring.format_number(getattr(r, b))) for b in breaks), r.player in out_ids)
                 for r in rows)


def page(s: Session, tournament_id: int, viewer: User | None) -> Page:
    """The tournament's page as ``viewer`` may see it."""
    t = shown(s, tournament_id, viewer)
    entries = season.entries(s, t)
    names = season.names(s, [e.user_id for e in entries] + [t.director_id])
    results = {(r.round, r.players): r for r in season.results(s, t)[0]}
    played = []
    for rnd in season.rounds_of(s, t):
        tables = []
        for row in season.tables_of(s, t, rnd.number):
            g = s.get(Game, row.game_id)
            res = results.get((rnd.number, tuple(row.players)))
            places = dict(zip(res.players, res.places)) if res else {}
            tables.append(TableShown(row.number, row.game_id, g is not None and access.may_see(s, g, viewer),
                                     games.status_word(g.status) if g else "?",
                                     tuple((names.get(p, "?"), places.get(p)) for p in row.players)))
        played.append(RoundShown(rnd.number, tuple(tables), tuple(names.get(p, "?") for p in rnd.byes)))
    return Page(t.id, t.name, get_game(t.game).title, t.format, t.table_size, t.status, _state(t), t.round,
                season.last_round(s, t) if t.round else (t.rounds if t.format == "swiss" else None),
                names.get(t.director_id, "?"), t.entry_closes_at, _conditions(t), t.scoring,
                tuple(b for b in t.tie_breaks.split(",") if b), len(entries), standings(s, t), tuple(played),
                viewer is not None and viewer.id == t.director_id,
                viewer is not None and any(e.user_id == viewer.id for e in entries), t.next_round_at, t.late)


def standings_csv(s: Session, tournament_id: int, viewer: User | None) -> tuple[str, str]:
    """The standings as CSV (a header row, then a row a player) and a file name for it."""
    t = shown(s, tournament_id, viewer)
    rows = standings(s, t)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    breaks = [b for b in t.tie_breaks.split(",") if b]
    w.writerow(["place", "player", "points", "played", "wins", "byes", *breaks, "left"])
    for r in rows:
        # a name is the player's own text: a leading =, +, - or @ would be a formula in a spreadsheet
        name = "'" + r.name if r.name[:1] in ("=", "+", "-", "@") else r.name
        w.writerow([r.place, name, r.points, r.played, r.wins, r.byes, *(v for _k, v in r.tie_breaks),
                    "yes" if r.out else ""])
    return buf.getvalue(), f"pbem-tournament-{t.id}-standings.csv"


@dataclass(frozen=True)
class Listed:
    id: int
    name: str
    game: str
    state: str
    entrants: int
    director: str


def listing(s: Session, viewer: User | None) -> list[Listed]:
    rows = season.list_shown(s, viewer)
    names = season.names(s, [t.director_id for t in rows])
    return [Listed(t.id, t.name, get_game(t.game).title, _state(t), len(season.entries(s, t)),
                   names.get(t.director_id, "?")) for t in rows]
