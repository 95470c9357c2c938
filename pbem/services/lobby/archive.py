"""The archive of finished games: search by game, player and date,
and each game's record as JSON -- exported (``record``) and imported again
(``import_record``), which replays it through the engine to the very final
state the record names, or refuses it and stores nothing.

A record holds what anybody may read of a finished game, and what a replay
needs: the game, its options, its seed (a finished game has no secrets left
to keep: its seats' views are everyone's, services/core/visibility.seat_view),
its players' names, its move log as the public reads it (services/core/visibility.moves:
a replaced or taken-back secret choice is not in it, and a move taken back
inside a secret step is there without its notation), its public posts
(services/core/visibility.posts as a visitor reads them: no private word), its
outcome and the SHA-256 of its final state's canonical JSON.

Imported players are placeholders, never matched to accounts by name (a file
cannot prove who played): each is a user of its own at an address that
cannot receive mail (``@imported.pbem.invalid``), disabled from the start,
so it can never log in.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from sqlalchemy import exists, func
from sqlmodel import Session, select
from sqlmodel.sql.expression import SelectOfScalar

from pbem.engine import GAMES, MoveError, OptionError, get_game, validate_options
from pbem.i18n import _
from pbem.store.models import AuditLog, Game, Move, Post, Seat, User, utcnow

from ..core import access, games, seating, visibility
from ..core.errors import NotFound, UserError
from .tournaments import season as tournament_season, view as tournament_view

FORMAT = "pbem-record"
VERSION = 1
PER_PAGE = 20
IMPORTED_DOMAIN = "imported.pbem.invalid"  # .invalid never resolves: no mail, so no login link, reaches it


# ---------------------------------------------------------------- who sees what


def visible(viewer: User | None) -> SelectOfScalar[Game]:
    """The finished games the archive shows ``viewer`` (None: a visitor): the ONE
    place that decides it -- the search, a game's record and its replay's seat
    views all start from this query. A private game is shown only to
    those who may see it (access.visible_to: its players, past ones too, its
    creator, those invited, its observers and admins)."""
    return select(Game).where(Game.status == "finished", access.visible_to(viewer))


def get_visible(s: Session, game_id: int, viewer: User | None) -> Game:
    """A game the archive shows ``viewer``; NotFound for one that does not exist or
    that the viewer may not see, and UserError for one that is not over yet."""
    g = s.exec(visible(viewer).where(Game.id == game_id)).first()
    if g is not None:
        return g
    other = s.get(Game, game_id)
    if other is not None and other.status in ("open", "running") and access.may_see(s, other, viewer):
        raise UserError(_("game #%(id)d is %(status)s: its record is kept in the archive once the game is over",
                          id=game_id, status=games.status_word(other.status)),
                        example=f"/games/{game_id}", code="not_over")
    raise NotFound(_("there is no finished game #%(id)d in the archive", id=game_id), example="/archive",
                   code="no_game")


# ---------------------------------------------------------------- finished tournaments


@dataclass(frozen=True)
class TournamentShown:
    """A finished tournament as the archive lists it: its page holds the final standings and every
    table's game, each with its record."""

    id: int
    name: str
    title: str
    finished_at: datetime | None
    winners: tuple[str, ...]  # first in the final standings
    players: int
    tables: int


def tournaments(s: Session, viewer: User | None, *, game: str = "", limit: int = PER_PAGE) -> list[TournamentShown]:
    """The finished tournaments ``viewer`` may see (a private one only to those its page is shown to),
    newest first, of one game when ``game`` is given."""
    from pbem.store.models import Tournament

    q = select(Tournament).where(Tournament.status == "finished")
    if game and game in GAMES:
        q = q.where(Tournament.game == GAMES[game].name)
    out = []
    for t in s.exec(q.order_by(Tournament.finished_at.desc(), Tournament.id.desc()).limit(limit * 4)):
        if not tournament_season.may_see(s, t, viewer):
            continue
        lines = tournament_view.standings(s, t)
        out.append(TournamentShown(t.id, t.name, get_game(t.game).title, t.finished_at,
                                   tuple(ln.name for ln in lines if ln.place == 1), len(lines),
                                   len(tournament_season.tables_of(s, t))))
        if len(out) >= limit:
            break
    return out


# ---------------------------------------------------------------- search


@dataclass(frozen=True)
class Entry:
    """One finished game as the archive lists it."""

    id: int
    game: str
    title: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    finished_at: datetime
    ply: int


@dataclass(frozen=True)
class Page:
    entries: list[Entry]
    page: int
    more: bool  # a next page exists


def _date(raw: str | date | None, first: bool) -> date | None:
    if raw is None or isinstance(raw, date):
        return raw
    raw = raw.strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        said = repr(raw[:40])
        raise UserError(_("the first day (from) is a date written year-month-day, not %(raw)s", raw=said) if first
                        else _("the last day (to) is a date written year-month-day, not %(raw)s", raw=said),
                        example="2026-11-28", code="bad_date") from None


def _utc(d: date) -> datetime:
    return datetime.combine(d, time(0), tzinfo=timezone.utc)


def search(s: Session, viewer: User | None, *, game: str = "", player: str = "", since: str | date | None = None,
           until: str | date | None = None, page: int = 1, per_page: int = PER_PAGE) -> Page:
    """The finished games ``viewer`` may see, newest first: of one game (engine name),
    with a player whose name contains ``player`` (any case), finished from ``since``
    to ``until`` (whole UTC days, both included). One query for the page, one for
    its players' names: LIMIT/OFFSET on the index of (status, updated_at, id)."""
    q = visible(viewer)
    if game:
        try:
            q = q.where(Game.game == get_game(game).name)
        except KeyError:
            raise UserError(_("there is no game called %(name)s (games: %(known)s)", name=repr(game[:40]),
                              known=", ".join(GAMES)), example="spyrium", code="no_such_game") from None
    player = (player or "").strip()[:80]
    if player:
        pattern = "%" + player.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        q = q.where(exists().where(Seat.game_id == Game.id, User.id == Seat.user_id,
                                   func.lower(User.name).like(pattern, escape="\\")))
    lo, hi = _date(since, True), _date(until, False)
    if lo is not None and hi is not None and hi < lo:
        raise UserError(_("the dates are the wrong way round: %(lo)s comes after %(hi)s", lo=lo, hi=hi),
                        example=f"{hi} to {lo}", code="bad_date")
    if lo is not None:
        q = q.where(Game.updated_at >= _utc(lo))
    if hi is not None:
        q = q.where(Game.updated_at < _utc(hi + timedelta(days=1)))
    page = max(1, int(page))
    rows = list(s.exec(q.order_by(Game.updated_at.desc(), Game.id.desc())
                       .offset((page - 1) * per_page).limit(per_page + 1)))
    more, rows = len(rows) > per_page, rows[:per_page]
    names = _names(s, [g.id for g in rows])
    entries = []
    for g in rows:
        who = names.get(g.id, [])
        winners = tuple(who[i] for i in (g.outcome or {}).get("winners", []) if i < len(who))
        entries.append(Entry(g.id, g.game, games.engine_for(g).title, tuple(who), winners, g.updated_at, g.ply))
    return Page(entries, page, more)


def _names(s: Session, ids: list[int]) -> dict[int, list[str]]:
    """The players' names of these games, in seat order: one query for them all."""
    if not ids:
        return {}
    out: dict[int, list[str]] = {}
    rows = s.exec(select(Seat.game_id, Seat.seat, User.name).outerjoin(User, User.id == Seat.user_id)
                  .where(Seat.game_id.in_(ids)).order_by(Seat.game_id, Seat.seat))
    for gid, seat, name in rows:
        out.setdefault(gid, []).append(name or _("Seat %(n)d", n=seat + 1))
    return out


# ---------------------------------------------------------------- export


def state_hash(engine, state: Any) -> str:
    """SHA-256 of the state's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(engine.to_json(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _at(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).isoformat()


def record(s: Session, game_id: int, viewer: User | None) -> dict:
    """The game's record as anybody may read it (see the module's docstring);
    refused for a game not over yet, or not in the archive for ``viewer``."""
    g = get_visible(s, game_id, viewer)
    engine = games.engine_for(g)
    public = visibility.Viewer()
    hidden = visibility.secrets(s, g)
    moves = []
    for m in visibility.moves(s, g, public, hidden):
        if m.notation is None and not m.undone:  # never: a finished game's live moves are all revealed
            raise UserError(_("game #%(id)d still has a secret move at ply %(ply)d, so its record cannot be "
                              "exported", id=g.id, ply=m.ply), code="secret_move")
        moves.append({"ply": m.ply, "seat": m.seat, "notation": m.notation, "undone": m.undone, "source": m.source,
                      "at": _at(m.created_at)})
    posts = [{"kind": p.kind, "author": p.author, "seat": p.seat, "body": p.body, "ply": p.ply, "at": _at(p.created_at)}
             for p in visibility.posts(s, g, public, limit=1_000_000, hidden=hidden) if not p.private]
    names = seating.names(s, g.id)
    return {
        "format": FORMAT, "version": VERSION,
        # numbered as every reader was shown the game: a withdrawn secret choice leaves no gap, and the
        # game's last ply is its last move's number, so an import numbers the same
        "game": {"id": g.id, "name": g.game, "title": engine.title, "status": g.status,
                 "ply": visibility.public_ply(s, g),
                 "created_at": _at(g.created_at), "finished_at": _at(g.updated_at)},
        "options": g.options, "seed": g.seed,
        "players": [{"seat": x.seat, "name": names[x.seat], "bot": x.is_bot} for x in seating.seats(s, g.id)],
        "moves": moves, "posts": posts, "outcome": g.outcome,
        "final_state_hash": state_hash(engine, games.replay_state(s, g)),
    }


def dumps(rec: dict) -> str:
    return json.dumps(rec, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


# ---------------------------------------------------------------- import


EXAMPLE = "pbem export 12 game-12.json; pbem import game-12.json"


def _bad(message: str) -> UserError:
    return UserError(message, example=EXAMPLE, code="bad_record")


def _when(raw: Any, what: str) -> datetime | None:
    if raw is None:
        return None
    try:
        dt = datetime.fromisoformat(str(raw))
    except ValueError:
        raise _bad(_("%(what)s is not a date and time: %(raw)s", what=what, raw=repr(str(raw)[:40]))) from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _canonical(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse(text: str | bytes) -> dict:
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise _bad(_("the file is not JSON (%(error)s)", error=str(e)[:200])) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad(_("the file is not a pbem game record (its \"format\" is not %(format)s)", format=repr(FORMAT)))
    if data.get("version") != VERSION:
        raise _bad(_("this pbem reads records of version %(ours)d, and the file is of version %(theirs)s",
                     ours=VERSION, theirs=repr(data.get("version"))))
    return data


@dataclass
class _Checked:
    engine: Any
    options: dict
    seed: int
    players: list[dict]
    live: list[dict]
    undone: list[dict]
    state: Any
    outcome: dict


def check(data: dict) -> _Checked:
    """Replay the record through the engine -- each live move parsed and applied, in
    ply order, by the seat that made it -- and compare the final state's hash and the
    outcome with the record's. Raises UserError saying what does not fit."""
    game = data.get("game") if isinstance(data.get("game"), dict) else {}
    try:
        engine = get_game(str(game.get("name", "")))
    except KeyError:
        raise _bad(_("the record's game %(name)s is none of pbem's games", name=repr(game.get("name")))) from None
    players = data.get("players")
    if not isinstance(players, list) or not players or not all(
            isinstance(p, dict) and p.get("seat") == i and isinstance(p.get("name"), str) and p["name"].strip()
            for i, p in enumerate(players)):
        raise _bad(_("the record's players are a list of seats 0, 1, ... each with a name"))
    seed = data.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise _bad(_("the record's seed is not a whole number"))
    try:
        options = validate_options(engine, len(players), data.get("options") or {})
    except OptionError as e:
        raise _bad(_("the record's options do not fit: %(error)s", error=str(e))) from None
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(
            isinstance(m, dict) and isinstance(m.get("ply"), int) and isinstance(m.get("seat"), int)
            and 0 <= m["seat"] < len(players) and (isinstance(m.get("notation"), str) or m.get("undone") is True)
            for m in moves):
        raise _bad(_("the record's moves are a list of plies, each with its seat and notation"))
    plies = [m["ply"] for m in moves]
    if plies != sorted(set(plies)) or (plies and plies[0] < 1):
        raise _bad(_("the record's moves are not in order of their plies (1, 2, ...), each ply once"))
    live = [m for m in moves if not m.get("undone")]
    state = engine.initial_state(len(players), seed, options)
    for m in live:
        try:
            if m["seat"] not in engine.to_move(state):
                raise _bad(_("the record's move at ply %(ply)d (%(move)s) is by seat %(seat)d, which is not to move "
                             "then", ply=m["ply"], move=m["notation"], seat=m["seat"] + 1))
            state = engine.apply(state, m["seat"], engine.parse_move(state, m["seat"], m["notation"]))
        except MoveError as e:
            raise _bad(_("the record's move at ply %(ply)d (%(move)s) is refused by the rules: %(reason)s",
                         ply=m["ply"], move=m["notation"], reason=e.reason)) from None
    out = engine.outcome(state)
    if out is None:
        raise _bad(_("the record's moves do not finish the game: only finished games are imported"))
    if state_hash(engine, state) != data.get("final_state_hash"):
        raise _bad(_("the record's moves lead to another final state than the one it names (final_state_hash): "
                     "the file was changed, or made by another version of the rules; nothing was imported"))
    outcome = json.loads(_canonical(out.to_dict()))
    if _canonical(outcome) != _canonical(data.get("outcome")):
        raise _bad(_("the record's outcome is not the one its moves lead to; nothing was imported"))
    undone = [m for m in moves if m.get("undone") and isinstance(m.get("notation"), str)]
    return _Checked(engine, options, seed, players, live, undone, state, outcome)


def import_record(s: Session, data: dict, *, by: str) -> Game:
    """A new finished game from a record, after ``check`` replayed it; placeholder
    players (see the module's docstring), the moves and public posts as recorded,
    and an audit row saying who imported it (``by``: the operator)."""
    c = check(data)
    game = data["game"]
    finished = _when(game.get("finished_at"), "finished_at") or utcnow()
    created = _when(game.get("created_at"), "created_at") or finished
    when = {id(m): _when(m.get("at"), "at") for m in data["moves"]}
    posts = [p for p in data.get("posts") or [] if isinstance(p, dict) and isinstance(p.get("body"), str)]
    post_at = {id(p): _when(p.get("at"), "at") for p in posts}
    last = c.live[-1]["ply"]  # a finished game ends with its last live move (a rollback would make it run again)
    g = Game(game=c.engine.name, options=c.options, players=len(c.players), seed=c.seed, status="finished",
             ply=last, created_at=created, updated_at=finished, state_json=c.engine.to_json(c.state), state_ply=last,
             outcome=c.outcome, shown_ply=last)
    s.add(g)
    s.flush()
    users = []
    for p in c.players:
        u = User(email=f"player-{g.id}-{p['seat'] + 1}@{IMPORTED_DOMAIN}", name=p["name"].strip()[:80],
                 confirmed=False, mail_format="text", stopped=True, disabled_at=utcnow())
        s.add(u)
        users.append(u)
    s.flush()
    g.creator_id = users[0].id
    for p, u in zip(c.players, users):
        s.add(Seat(game_id=g.id, seat=p["seat"], user_id=u.id, token=seating.new_token(), is_bot=bool(p.get("bot")),
                   joined_at=created))
    for m in sorted(c.live + c.undone, key=lambda m: m["ply"]):
        s.add(Move(game_id=g.id, ply=m["ply"], seat=m["seat"], notation=m["notation"], source="import",
                   user_id=users[m["seat"]].id, created_at=when[id(m)] or finished, undone=bool(m.get("undone"))))
    for p in posts:
        seat = p.get("seat") if isinstance(p.get("seat"), int) and 0 <= p["seat"] < len(users) else None
        kind = p.get("kind") if p.get("kind") in ("post", "move", "notice", "admin") else "post"
        body = p["body"]
        author = str(p.get("author") or "")
        if seat is None and kind == "post" and author and author != "pbem":
            body = f"{author}: {body}"  # an author with no seat (an admin, a former player) has no user here
        s.add(Post(game_id=g.id, kind=kind, user_id=users[seat].id if seat is not None else None, seat=seat,
                   body=body, ply=p.get("ply") if isinstance(p.get("ply"), int) else None, source="import",
                   created_at=post_at[id(p)] or finished))
    s.add(AuditLog(game_id=g.id, action="import",
                   detail=f"imported by {by} from the record of {c.engine.name} game #{game.get('id')} "
                          f"({len(c.live)} moves, final state {data['final_state_hash'][:12]})"))
    s.flush()
    return g
