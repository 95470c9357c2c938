"""What a tournament's page, its CSV and the list of tournaments show one viewer: a projection
made here, never the rows themselves. A private tournament is shown only to those who may see it
(season.may_see: as if it did not exist to anybody else); a table's game is linked only when the
viewer may see that game (core/access.may_see), and its result shows only once it is over (a
finished game's result is public, visibility.ranking)."""
from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, replace
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
    adjusted: str = ""  # the director's adjustments in all, signed ("-1"), "" for none


@dataclass(frozen=True)
class TableShown:
    number: int
    game_id: int
    shown: bool  # the viewer may open the game
    status: str
    players: tuple[tuple[str, int | None], ...]  # (name, place once finished)
    finished: bool = False  # its record is in the archive (linked when shown)


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
    access: str = "public"  # public | private | password
    needs_password: bool = False  # the viewer would have to give the password to enter
    may_enter: bool = False  # entry is open and the viewer has not entered
    may_leave: bool = False  # the viewer is in and the tournament not over
    may_direct: bool = False  # the director (or an admin) of a tournament not over
    left: bool = False  # the viewer has left it
    stamp: str = ""  # what the page shows, as a short digest: the live stream tells the page when it changes
    adjustments: tuple["Adjusted", ...] = ()  # the director's adjustments, each with its reason


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
                      r.byes, tuple((b, scoring.format_number(getattr(r, b))) for b in breaks), r.player in out_ids,
                      signed(r.adjusted) if r.adjusted else "")
                 for r in rows)


def signed(points: float) -> str:
    """Points with their sign: "+1", "-0.5"."""
    return ("+" if points > 0 else "") + scoring.format_number(points)


@dataclass(frozen=True)
class Adjusted:
    """A director's adjustment as the standings show it."""
    name: str
    points: str
    reason: str
    at: datetime


def adjustments(s: Session, t: Tournament) -> tuple[Adjusted, ...]:
    rows = season.adjustments(s, t)
    names = season.names(s, [a.user_id for a in rows])
    return tuple(Adjusted(names.get(a.user_id, "?"), signed(a.points), a.reason, a.created_at) for a in rows)


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
                                     tuple((names.get(p, "?"), places.get(p)) for p in row.players),
                                     g is not None and g.status == "finished"))
        played.append(RoundShown(rnd.number, tuple(tables), tuple(names.get(p, "?") for p in rnd.byes)))
    mine = next((e for e in entries if viewer is not None and e.user_id == viewer.id), None)
    over = t.status in ("finished", "cancelled")
    shown_page = Page(t.id, t.name, get_game(t.game).title, t.format, t.table_size, t.status, _state(t), t.round,
                      season.last_round(s, t) if t.round else (t.rounds if t.format == "swiss" else None),
                      names.get(t.director_id, "?"), t.entry_closes_at, _conditions(t), t.scoring,
                      tuple(b for b in t.tie_breaks.split(",") if b), len(entries), standings(s, t), tuple(played),
                      viewer is not None and viewer.id == t.director_id, mine is not None, t.next_round_at, t.late,
                      t.access,
                      t.access == "password" and (viewer is None or viewer.email.lower() not in t.invited),
                      t.status == "entry" and mine is None,
                      mine is not None and mine.left_round is None and not over,
                      viewer is not None and (viewer.id == t.director_id or viewer.is_admin) and not over,
                      mine is not None and mine.left_round is not None)
    return replace(shown_page, adjustments=adjustments(s, t), stamp=stamp_of(shown_page))


def stamp_of(p: Page) -> str:
    """A digest of what the page shows of the tournament (its state, standings and tables; not who
    looks): equal stamps, nothing new to show. A table's game is in it by its status only, so a move
    inside a game changes no stamp and wakes no page (its secret steps stay untimed here too)."""
    # a table by its game and players' places, not by its status in words (those are the reader's language)
    tabs = tuple((r.number, r.byes, tuple((tb.game_id, tb.finished, tb.players) for tb in r.tables)) for r in p.played)
    seen = (p.status, p.round, p.entrants, p.standings, tabs, p.next_round_at, p.late)
    return hashlib.sha256(repr(seen).encode()).hexdigest()[:16]


def standings_csv(s: Session, tournament_id: int, viewer: User | None) -> tuple[str, str]:
    """The standings as CSV (a header row, then a row a player) and a file name for it."""
    t = shown(s, tournament_id, viewer)
    rows = standings(s, t)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    breaks = [b for b in t.tie_breaks.split(",") if b]
    w.writerow(["place", "player", "points", "played", "wins", "byes", *breaks, "left", "adjusted"])
    for r in rows:
        # a name is the player's own text: a leading =, +, - or @ would be a formula in a spreadsheet
        name = "'" + r.name if r.name[:1] in ("=", "+", "-", "@") else r.name
        w.writerow([r.place, name, r.points, r.played, r.wins, r.byes, *(v for _k, v in r.tie_breaks),
                    "yes" if r.out else "", r.adjusted])
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


@dataclass(frozen=True)
class Sitting:
    """One round of a player's season: the table they sat at (None: a bye), its game and result."""
    round: int
    table: int | None
    game_id: int | None
    shown: bool  # the viewer may open the game
    finished: bool
    status: str
    place: int | None  # their place among those who stayed, once the game is over
    points: str | None  # what the table (or the bye) gave them
    forfeit: bool  # they left during this game: a bot played their seat
    others: tuple[tuple[int, str, int | None], ...]  # (user id, name, place) of their tablemates


@dataclass(frozen=True)
class PlayerShown:
    tournament: Page
    user_id: int
    name: str
    line: Line | None  # their line of the standings
    left_round: int | None
    sittings: tuple[Sitting, ...]


def player_page(s: Session, tournament_id: int, user_id: int, viewer: User | None) -> PlayerShown:
    """One entrant's season as ``viewer`` may see it: round by round, the table they sat at, whom they
    met, how it ended and what it gave them (nothing of any game but its public result)."""
    p = page(s, tournament_id, viewer)
    t = s.get(Tournament, p.id)
    entry = next((e for e in season.entries(s, t) if e.user_id == user_id), None)
    if entry is None:
        raise NotFound(_("player %(user)d has not entered tournament #%(id)d", user=user_id, id=t.id),
                       example=f"/tournaments/{t.id}", code="not_entered")
    names = season.names(s, [e.user_id for e in season.entries(s, t)])
    awards = {}
    custom = season.custom_points(t)
    for res in season.results(s, t)[0]:
        if user_id in res.players:
            for a in scoring.award(res, t.scoring, custom):
                if a.player == user_id:
                    awards[res.round] = (res, a)
    bye = scoring.format_number(scoring.bye_points(t.table_size, t.scoring, custom))
    out = []
    for rnd in season.rounds_of(s, t):
        if user_id in rnd.byes:
            out.append(Sitting(rnd.number, None, None, False, True, _("bye"), None, bye, False, ()))
            continue
        row = next((r for r in season.tables_of(s, t, rnd.number) if user_id in r.players), None)
        if row is None:
            continue  # left before this round
        g = s.get(Game, row.game_id)
        got = awards.get(rnd.number)
        places = dict(zip(got[0].players, got[0].places)) if got else {}
        out.append(Sitting(rnd.number, row.number, row.game_id, g is not None and access.may_see(s, g, viewer),
                           g is not None and g.status == "finished", games.status_word(g.status) if g else "?",
                           got[1].place if got else None, scoring.format_number(got[1].points) if got else None,
                           entry.left_round is not None and entry.left_round == rnd.number,
                           tuple((q, names.get(q, "?"), places.get(q)) for q in row.players if q != user_id)))
    line = next((ln for ln in p.standings if ln.user_id == user_id), None)
    return PlayerShown(p, user_id, names.get(user_id, "?"), line, entry.left_round, tuple(out))


@dataclass(frozen=True)
class Entered:
    """A tournament a player entered, for their profile: where they stand in it."""
    id: int
    name: str
    game: str
    state: str
    place: int | None
    points: str | None
    left: bool


def entered_by(s: Session, user_id: int, viewer: User | None, limit: int = 20) -> list[Entered]:
    """The tournaments ``user_id`` entered that ``viewer`` may see, newest first, with their place now."""
    from sqlmodel import select

    from pbem.store.models import TournamentEntry

    rows = s.exec(select(Tournament, TournamentEntry)
                  .join(TournamentEntry, TournamentEntry.tournament_id == Tournament.id).where(TournamentEntry.user_id == user_id).order_by(Tournament.id.desc()).limit(limit * 2))
    out = []
    for t, entry in rows:
        if not season.may_see(s, t, viewer):
            continue
        line = next((ln for ln in standings(s, t) if ln.user_id == user_id), None) if t.round else None
        out.append(Entered(t.id, t.name, get_game(t.game).title, _state(t), line.place if line else None,
                           line.points if line else None, entry.left_round is not None))
        if len(out) >= limit:
            break
    return out
