"""A tournament's life in the store: made by its director, entered by players while its entry
is open, played round by round (each round started by the director: every table an ordinary
game, tagged with its round in ``tournament_tables``), and closed by the director at the end.
Seating and scoring are the pure modules beside this one; the standings are computed from the
tables' finished games whenever they are asked for.

A player who leaves during a round forfeits that round's game: a bot plays their seat to its
end (the game's own resignation, services/lobby/seats.resign), and they sit out every later
round. Every refusal is a UserError with an example, raised before anything is changed."""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.engine import get_game
from pbem.engine.base import OptionError, validate_options
from pbem.i18n import _, ngettext
from pbem.store.models import (Game, Rating, Seat, Tournament, TournamentEntry, TournamentRound, TournamentJoinAttempt, TournamentTable, User,
                               utcnow)

from ...core import games, lifecycle, reliability, seating as seats_core
from ...core.errors import Forbidden, NotFound, UserError
from .. import ratings, seats, tables
from . import scoring, seating

FORMATS = ("swiss", "robin", "elimination")
MAX_ROUNDS = 20
MAX_ENTRIES = 200


# ---------------------------------------------------------------- reading


def get(s: Session, tournament_id: int, *, lock: bool = False) -> Tournament:
    q = select(Tournament).where(Tournament.id == tournament_id)
    t = s.exec(q.with_for_update() if lock else q).first()
    if t is None:
        raise NotFound(_("there is no tournament #%(id)d", id=tournament_id), example="TOURNAMENT LIST",
                       code="no_tournament")
    return t


def entries(s: Session, t: Tournament) -> list[TournamentEntry]:
    return list(s.exec(select(TournamentEntry).where(TournamentEntry.tournament_id == t.id)
                       .order_by(TournamentEntry.id)))


def in_play(s: Session, t: Tournament) -> list[int]:
    """The user ids still in (entered and not left), in the order they entered."""
    return [e.user_id for e in entries(s, t) if e.left_round is None]


def rounds_of(s: Session, t: Tournament) -> list[TournamentRound]:
    return list(s.exec(select(TournamentRound).where(TournamentRound.tournament_id == t.id)
                       .order_by(TournamentRound.number)))


def tables_of(s: Session, t: Tournament, round_number: int | None = None) -> list[TournamentTable]:
    q = select(TournamentTable).where(TournamentTable.tournament_id == t.id)
    if round_number is not None:
        q = q.where(TournamentTable.round == round_number)
    return list(s.exec(q.order_by(TournamentTable.round, TournamentTable.number)))


def may_see(s: Session, t: Tournament, user: User | None) -> bool:
    """A public or password tournament is shown to anyone; an invitation-only one to its director,
    the addresses invited, its entrants and admins."""
    if t.access != "private":
        return True
    if user is None:
        return False
    return (user.is_admin or user.id == t.director_id or user.email.lower() in t.invited
            or any(e.user_id == user.id for e in entries(s, t)))


def custom_points(t: Tournament) -> dict[int, tuple[float, ...]] | None:
    if not t.points:
        return None
    pts = scoring.parse_points(t.points)
    return {len(pts): pts}


def results(s: Session, t: Tournament) -> tuple[list[scoring.TableResult], list[tuple[int, int]]]:
    """The finished tables' results and the byes given, from the games themselves."""
    left = {e.user_id: e.left_round for e in entries(s, t)}
    out = []
    for row in tables_of(s, t):
        g = s.get(Game, row.game_id)
        if g is None or g.status != "finished" or not g.outcome:
            continue
        o = g.outcome
        scores = tuple(float(x) for x in o.get("scores") or [])
        if len(scores) != len(row.players):
            continue
        places = scoring.places_from_outcome(scores, o.get("ranking") or (), o.get("winners") or ())
        gone = frozenset(p for p in row.players if left.get(p) is not None and left[p] <= row.round)
        out.append(scoring.TableResult(tuple(row.players), places, scores, gone, row.round))
    byes = [(r.number, p) for r in rounds_of(s, t) for p in r.byes]
    return out, byes


def standings(s: Session, t: Tournament) -> list[scoring.Standing]:
    """The standings now, computed from the finished games (never stored)."""
    res, byes = results(s, t)
    return scoring.standings([e.user_id for e in entries(s, t)], res, byes, scoring=t.scoring,
                             custom=custom_points(t), tie_breaks=tuple(t.tie_breaks.split(",")) if t.tie_breaks else (),
                             bye_size=t.table_size)


def game_status(s: Session, game_id: int) -> str:
    """A table's game's status, in the reader's words."""
    g = s.get(Game, game_id)
    return games.status_word(g.status) if g is not None else "?"


def names(s: Session, ids: Sequence[int]) -> dict[int, str]:
    if not ids:
        return {}
    return {u.id: u.name for u in s.exec(select(User).where(User.id.in_(list(ids))))}


def rating_of(s: Session, user: User, game: str) -> float:
    row = s.exec(select(Rating).where(Rating.user_id == user.id, Rating.game == game)).first()
    return ratings.display(row.mu, row.sigma) if row else ratings.DEFAULT


# ---------------------------------------------------------------- making one


def create(s: Session, director: User, game_name: str, *, name: str = "", table_size: int | None = None,
           options: dict[str, Any] | None = None, format: str = "swiss", rounds: int = 3, advance: int = 1,
           scoring_by: str = "places", points: str | None = None, tie_breaks: str | None = None,
           deadline_hours: int = 48, policy: str = "bot", bot_level: str | None = "easy",
           entry_days: int | None = None, entry_closes_at: datetime | None = None, max_entries: int | None = None, access: str = "public",
           password: str | None = None, invited: Sequence[str] = (), min_rating: float | str | None = None,
           min_reliability: int | str | None = None, seed: int | None = None, now: datetime | None = None) -> Tournament:
    """A new tournament, open for entry; ``director`` runs it (and may play in it too)."""
    example = "TOURNAMENT NEW spyrium players=3 rounds=3"
    try:
        engine = get_game(game_name)
    except KeyError as e:
        raise UserError(str(e.args[0]), example=example, code="no_such_game") from None
    size = engine.max_players if table_size is None else int(table_size)
    if not max(2, engine.min_players) <= size <= engine.max_players:
        raise UserError(ngettext("a table of %(game)s seats %(least)d to %(num)d player",
                                 "a table of %(game)s seats %(least)d to %(num)d players", engine.max_players,
                                 game=engine.title, least=max(2, engine.min_players)), example=example, code="bad_option")
    try:
        opts = validate_options(engine, size, options or {})
    except OptionError as e:
        raise UserError(str(e), example=example, code="bad_option") from None
    if format not in FORMATS:
        raise UserError(_("the format is one of %(list)s", list=", ".join(FORMATS)),
                        example="TOURNAMENT NEW squire format=robin", code="bad_option")
    if not 1 <= int(rounds) <= MAX_ROUNDS:
        raise UserError(ngettext("a league has 1 to %(num)d round", "a league has 1 to %(num)d rounds", MAX_ROUNDS),
                        example=example, code="bad_option")
    if not 1 <= int(advance) < size:
        raise UserError(ngettext("from each table of %(size)d, 1 to %(num)d player goes on",
                                 "from each table of %(size)d, 1 to %(num)d players go on", size - 1, size=size),
                        example="TOURNAMENT NEW spyrium format=elimination advance=1", code="bad_option")
    if scoring_by not in scoring.SCORINGS:
        raise UserError(_("scoring is by places or by score"), example=example + " scoring=score", code="bad_option")
    try:
        if points:
            pts = scoring.parse_points(points)
            if len(pts) != size:
                raise scoring.ScoringError(f"{len(pts)} places given for tables of {size}")
            points = scoring.format_points(pts)
        tie_breaks = ",".join(scoring.parse_tie_breaks(tie_breaks)) if tie_breaks is not None else \
            ",".join(scoring.DEFAULT_TIE_BREAKS)
    except scoring.ScoringError:
        raise UserError(_("points are one number per place, best first, never rising; tie-breaks are some of "
                          "%(list)s", list=", ".join(scoring.TIE_BREAKS)),
                        example=f"{example} points={scoring.format_points(scoring.points_for(size))} tiebreaks=wins,opponents",
                        code="bad_option") from None
    if not 1 <= int(deadline_hours) <= 24 * 30:
        raise UserError(_("the deadline is 1 to 720 hours"), example=example + " deadline=48", code="bad_option")
    if policy not in games.POLICIES:
        raise UserError(_("the no-move policy is one of %(list)s", list=", ".join(games.POLICIES)),
                        example=example + " policy=bot", code="bad_option")
    bot_level = games.check_level(bot_level, example + " bot=easy")
    if entry_days is not None and not 1 <= int(entry_days) <= 60:
        raise UserError(_("entry stays open 1 to 60 days"), example=example + " entry=7", code="bad_option")
    now = now or utcnow()
    if entry_closes_at is not None:  # a day written on a form: entry closes then, an hour to 60 days ahead
        closes = entry_closes_at if entry_closes_at.tzinfo else entry_closes_at.replace(tzinfo=timezone.utc)
        if not now + timedelta(hours=1) <= closes <= now + timedelta(days=60):
            raise UserError(_("entry closes an hour to 60 days from now"),
                            example=(now + timedelta(days=7)).date().isoformat(), code="bad_option")
        entry_days = None
    if max_entries is not None and not size <= int(max_entries) <= MAX_ENTRIES:
        raise UserError(ngettext("a tournament takes %(least)d to %(num)d player",
                                 "a tournament takes %(least)d to %(num)d players", MAX_ENTRIES, least=size),
                        example=example + " max=12", code="bad_option")
    if min_rating is not None and str(min_rating).strip() != "":
        try:
            min_rating = float(str(min_rating).strip())
        except ValueError:
            raise UserError(_("min_rating is a number (got %(value)s)", value=repr(str(min_rating))),
                            example=example + " min_rating=5", code="bad_option") from None
    else:
        min_rating = None
    if access not in ("public", "private"):
        raise UserError(_("a tournament is public, private (invitation only) or has a password"),
                        example=example + " private", code="bad_option")
    if password is not None:
        password = tables.valid_password(password, engine.name)
        access = "password"
    t = Tournament(name=(name or "").strip()[:80] or engine.title, game=engine.name, options=opts, table_size=size,
                   deadline_hours=int(deadline_hours), policy=policy, bot_level=bot_level, format=format,
                   rounds=int(rounds), advance=int(advance), scoring=scoring_by, points=points or None,
                   tie_breaks=tie_breaks, director_id=director.id,
                   entry_closes_at=closes if entry_closes_at is not None else
                   now + timedelta(days=int(entry_days)) if entry_days else None,
                   max_entries=int(max_entries) if max_entries else None, access=access,
                   password_hash=tables.hash_password(password) if password is not None else None,
                   invited=sorted({a.strip().lower() for a in invited if a.strip()}), min_rating=min_rating,
                   min_reliability=reliability.parse_minimum(min_reliability),
                   seed=secrets.randbits(62) if seed is None else seed)
    s.add(t)
    s.flush()
    return t


# ---------------------------------------------------------------- entering and leaving


def _check_password(s: Session, t: Tournament, user: User, password: str | None) -> None:
    """Refuse a wrong or missing word, and count it: after ``tables.MAX_TRIES`` in an hour every try
    of this user is refused, whatever the word, as for a password game, so the word cannot be found
    by trying many. The refused try is kept though nothing else changes (tables.WrongPassword)."""
    since = utcnow() - timedelta(hours=1)
    tries = s.exec(select(func.count()).select_from(TournamentJoinAttempt).where(
        TournamentJoinAttempt.tournament_id == t.id, TournamentJoinAttempt.user_id == user.id,
        TournamentJoinAttempt.created_at >= since)).one()
    if tries >= tables.MAX_TRIES:
        raise Forbidden(ngettext("You have given tournament #%(id)d a wrong password %(num)d time in the last hour, "
                                 "the most pbem takes: try again in an hour, or ask its director for an invitation.",
                                 "You have given tournament #%(id)d a wrong password %(num)d times in the last hour, "
                                 "the most pbem takes: try again in an hour, or ask its director for an invitation.",
                                 tables.MAX_TRIES, id=t.id), example="TOURNAMENT LIST", code="too_many_tries")
    if tables.check_password(t.password_hash, (password or "").strip()):
        return
    s.add(TournamentJoinAttempt(tournament_id=t.id, user_id=user.id))
    s.flush()
    if not password:
        raise tables.WrongPassword(_("Tournament #%(id)d needs its password: write it after the number, and ask its "
                                     "director for it if you do not have it.", id=t.id),
                                   example=f"TOURNAMENT JOIN {t.id} <password>", code="no_password")
    raise tables.WrongPassword(_("That is not the password of tournament #%(id)d, so you have not entered: check its "
                                 "capital letters and send it again, or ask its director for it.", id=t.id),
                               example=f"TOURNAMENT JOIN {t.id} <password>")


def join(s: Session, user: User, tournament_id: int, password: str | None = None, now: datetime | None = None) -> Tournament:
    """Enter the tournament, or be refused with the reason (nothing changes)."""
    t = get(s, tournament_id, lock=True)
    if not may_see(s, t, user):
        raise Forbidden(_("Tournament #%(id)d is by invitation only: ask its director to invite you.", id=t.id),
                        example="TOURNAMENT LIST", code="private")
    now = now or utcnow()
    if t.status != "entry" or (t.entry_closes_at is not None and now > t.entry_closes_at):
        raise UserError(_("entry to tournament #%(id)d is closed", id=t.id), example="TOURNAMENT LIST",
                        code="entry_closed")
    rows = entries(s, t)
    if any(e.user_id == user.id for e in rows):
        raise UserError(_("you have already entered tournament #%(id)d", id=t.id), example=f"TOURNAMENT STATUS {t.id}",
                        code="already_entered")
    if t.max_entries is not None and len(rows) >= t.max_entries:
        raise UserError(ngettext("tournament #%(id)d is full: it takes %(num)d player",
                                 "tournament #%(id)d is full: it takes %(num)d players", t.max_entries, id=t.id),
                        example="TOURNAMENT LIST", code="full")
    if t.access == "password" and user.email.lower() not in t.invited:
        _check_password(s, t, user, password)
    have = rating_of(s, user, t.game)
    if t.min_rating is not None and have < t.min_rating:
        least, mine = scoring.format_number(t.min_rating), scoring.format_number(have)
        raise Forbidden(_("tournament #%(id)d takes players rated %(min)s or more in %(game)s; yours is %(have)s",
                          id=t.id, min=least, game=get_game(t.game).title, have=mine),
                        example="TOURNAMENT LIST", code="rating")
    if t.min_reliability is not None:
        fig = reliability.of(user)
        if fig.percent is not None and fig.percent < t.min_reliability:
            raise Forbidden(_("tournament #%(id)d takes players whose reliability is %(min)d%% or more; yours is "
                              "%(have)d%%", id=t.id, min=t.min_reliability, have=fig.percent),
                            example="TOURNAMENT LIST", code="reliability")
    s.add(TournamentEntry(tournament_id=t.id, user_id=user.id))
    s.flush()
    return t


@dataclass
class Leaving:
    """What leaving did: ``games`` the running tables where a bot now plays the leaver's seat."""
    tournament: Tournament
    games: list[Game]


def leave(s: Session, user: User, tournament_id: int) -> Leaving:
    """Leave: before the first round the entry is withdrawn; later, this round's game (if still
    running) is forfeited to a bot, and no later round seats the player."""
    t = get(s, tournament_id, lock=True)
    entry = next((e for e in entries(s, t) if e.user_id == user.id), None)
    if entry is None or entry.left_round is not None:
        raise UserError(_("you are not playing in tournament #%(id)d", id=t.id), example="TOURNAMENT LIST",
                        code="not_entered")
    if t.status in ("finished", "cancelled"):
        raise UserError(_("tournament #%(id)d is over", id=t.id), example=f"TOURNAMENT STANDINGS {t.id}",
                        code="over")
    if t.status == "entry":
        s.delete(entry)
        s.flush()
        return Leaving(t, [])
    entry.left_round = t.round
    s.add(entry)
    s.flush()
    left = []
    for row in tables_of(s, t, t.round):
        if user.id in row.players:
            g = s.get(Game, row.game_id)
            if g is not None and g.status == "running":
                seat = seats_core.seat_of(s, g.id, user.id)
                if seat is not None and not seat.resigned:
                    left.append(seats.resign(s, user, g.id).game)
    return Leaving(t, left)


# ---------------------------------------------------------------- the director's rounds


def _director(t: Tournament, by: User, example: str) -> None:
    if by.id != t.director_id and not by.is_admin:
        raise Forbidden(_("only the director of tournament #%(id)d may do that", id=t.id), example=example,
                        code="not_director")


def _unfinished(s: Session, t: Tournament) -> list[int]:
    return [row.game_id for row in tables_of(s, t, t.round)
            if (g := s.get(Game, row.game_id)) is not None and g.status in ("open", "running")]


def _between_rounds(s: Session, t: Tournament) -> None:
    """Refuse what the director may do only between rounds (start the next, close): the tournament
    is over, or a table of the round in play is still being played."""
    if t.status in ("finished", "cancelled"):
        raise UserError(_("tournament #%(id)d is over", id=t.id), example=f"TOURNAMENT STANDINGS {t.id}", code="over")
    waiting = _unfinished(s, t)
    if waiting:
        raise UserError(ngettext("round %(round)d is still being played: game #%(games)s has not finished",
                                 "round %(round)d is still being played: games #%(games)s have not finished",
                                 len(waiting), round=t.round, games=", #".join(str(g) for g in waiting)),
                        example=f"TOURNAMENT STATUS {t.id}", code="round_running")


def last_round(s: Session, t: Tournament) -> int | None:
    """How many rounds the tournament has: a league's ``rounds``; a round robin's schedule; an
    elimination None (it ends with its final)."""
    if t.format == "swiss":
        return t.rounds
    if t.format == "robin":
        return len(_schedule(s, t))
    return None


def _schedule(s: Session, t: Tournament) -> list[seating.Round]:
    """A round robin's schedule, fixed by the entrants of its first round and the seed."""
    first = [p for row in tables_of(s, t, 1) for p in row.players] + [p for r in rounds_of(s, t)[:1] for p in r.byes]
    players = sorted(first or in_play(s, t))
    least = max(2, get_game(t.game).min_players)
    return seating.round_robin(players, t.table_size, t.seed, least, max_rounds=MAX_ROUNDS)


def is_complete(s: Session, t: Tournament) -> bool:
    """Every round played: no further round may start."""
    if t.round == 0:
        return False
    last = last_round(s, t)
    if last is not None:
        return t.round >= last
    return len(tables_of(s, t, t.round)) == 1 and not rounds_of(s, t)[-1].byes


def _next_round(s: Session, t: Tournament, number: int) -> seating.Round:
    least = max(2, get_game(t.game).min_players)
    playing = in_play(s, t)
    past = [seating.Round(tuple(tuple(r.players) for r in tables_of(s, t, k.number)), tuple(k.byes))
            for k in rounds_of(s, t)]
    history = seating.History.of(past)
    if t.format == "swiss":
        order = [p for p in scoring.ranked(standings(s, t)) if p in playing]
        return seating.swiss_round(order, t.table_size, history, t.seed, number, least)
    if t.format == "robin":
        r = _schedule(s, t)[number - 1]
        tabs, byes = [], [p for p in r.byes if p in playing]
        for table in r.tables:
            still = tuple(p for p in table if p in playing)
            if len(still) >= least:
                tabs.append(still)
            else:
                byes.extend(still)  # a table emptied by those who left: its players sit out
        return seating.Round(tuple(tabs), tuple(byes))
    # elimination: the first round seeded by rating, the later ones by the last round's finishes
    if number == 1:
        users = {u.id: u for u in s.exec(select(User).where(User.id.in_(playing)))}
        seeded = sorted(playing, key=lambda p: (-rating_of(s, users[p], t.game), p))
    else:
        res, _byes = results(s, t)
        finishes = []
        for r in (x for x in res if x.round == number - 1):
            order = sorted(range(len(r.players)), key=lambda i: r.places[i])
            finishes.append([r.players[i] for i in order if r.players[i] in playing])
        last = rounds_of(s, t)[-1]
        seeded = seating.advancing(finishes, t.advance, [p for p in last.byes if p in playing])
    return seating.elimination_round(seeded, t.table_size, history, t.seed, number, least)


def start_round(s: Session, by: User, tournament_id: int) -> tuple[Tournament, TournamentRound, list[Game]]:
    """The director starts the next round: every table a new game, started at once (its players
    get their boards), the byes recorded."""
    t = get(s, tournament_id, lock=True)
    _director(t, by, f"TOURNAMENT STATUS {t.id}")
    _between_rounds(s, t)
    if is_complete(s, t):
        raise UserError(_("every round of tournament #%(id)d has been played: close it", id=t.id),
                        example=f"TOURNAMENT CLOSE {t.id}", code="complete")
    engine = get_game(t.game)
    least = max(2, engine.min_players)
    playing = in_play(s, t)
    if len(playing) < least:
        raise UserError(ngettext("tournament #%(id)d needs at least %(num)d player to start a round",
                                 "tournament #%(id)d needs at least %(num)d players to start a round",
                                 least, id=t.id), example=f"TOURNAMENT STATUS {t.id}", code="too_few")
    number = t.round + 1
    try:
        plan = _next_round(s, t, number)
    except seating.SeatingError as e:
        raise UserError(str(e), example=f"TOURNAMENT STATUS {t.id}", code="seating") from None
    users = {u.id: u for u in s.exec(select(User).where(User.id.in_(playing)))}
    made = []
    for k, table in enumerate(plan.tables, 1):
        g = Game(game=engine.name, options=dict(t.options), players=len(table),
                 seed=seating._rng(t.seed, "table", number, k).getrandbits(62), creator_id=t.director_id,
                 master_id=t.director_id, deadline_hours=t.deadline_hours, policy=t.policy, bot_level=t.bot_level,
                 access="private" if t.access == "private" else "public")
        s.add(g)
        s.flush()
        for i, p in enumerate(table):
            s.add(Seat(game_id=g.id, seat=i, user_id=users[p].id, token=seats_core.new_token()))
        s.add(TournamentTable(tournament_id=t.id, round=number, number=k, game_id=g.id, players=list(table)))
        s.flush()
        made.append(g)
    row = TournamentRound(tournament_id=t.id, number=number, byes=list(plan.byes))
    s.add(row)
    t.round, t.status = number, "running"
    s.add(t)
    s.flush()
    for g, table_row in zip(made, tables_of(s, t, number)):
        lifecycle.start(s, g, by=None)
        # a game whose rules draw the seating (Squire) has moved its players: the row follows them
        table_row.players = [x.user_id for x in seats_core.seats(s, g.id)]
        s.add(table_row)
    s.flush()
    return t, row, made


def close(s: Session, by: User, tournament_id: int, now: datetime | None = None) -> Tournament:
    """The director closes the tournament: before its first round it is cancelled; after, once
    the round in play has finished, it is over and its standings final."""
    t = get(s, tournament_id, lock=True)
    _director(t, by, f"TOURNAMENT STANDINGS {t.id}")
    _between_rounds(s, t)
    t.status = "cancelled" if t.round == 0 else "finished"
    t.finished_at = now or utcnow()
    s.add(t)
    s.flush()
    return t


def list_shown(s: Session, user: User | None, limit: int = 50) -> list[Tournament]:
    """The tournaments ``user`` may see, those open for entry and running first, newest first."""
    q = select(Tournament).order_by(Tournament.id.desc()).limit(limit * 4)
    rows = [t for t in s.exec(q) if may_see(s, t, user)]
    rank = {"entry": 0, "running": 1, "finished": 2, "cancelled": 3}
    return sorted(rows, key=lambda t: (rank.get(t.status, 9), -t.id))[:limit]
