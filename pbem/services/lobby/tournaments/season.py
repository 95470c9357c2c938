"""A tournament's life in the store: made by its director, entered by players while its entry
is open, played round by round (each round started by the director, or on its date by the sweep:
every table an ordinary game, tagged with its round in ``tournament_tables``), and closed by the
director at the end (a tournament on a calendar: by the sweep, once its last round has finished).
Seating and scoring are the pure modules beside this one; the standings are computed from the
tables' finished games whenever they are asked for.

A player who leaves during a round forfeits that round's game: a bot plays their seat to its
end (the game's own resignation, services/lobby/seats.resign), and they sit out every later
round. Every refusal is a UserError with an example, raised before anything is changed."""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from typing import Any, Sequence

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.engine import get_game
from pbem.engine.base import OptionError, validate_options
from pbem import i18n
from pbem.i18n import _, ngettext
from pbem.store.models import (Game, Rating, Seat, Tournament, TournamentAdjustment, TournamentEntry,
                               TournamentInvitation, TournamentRound, TournamentJoinAttempt, TournamentTable, User,
                               utcnow)

from ...core import accounts, games, lifecycle, reliability, seating as seats_core
from ...core.clocks import aware
from ...core.errors import Forbidden, NotFound, UserError
from .. import ratings, seats, tables
from . import scoring, seating

FORMATS = ("swiss", "robin", "elimination")
MAX_ROUNDS = 20
MAX_ENTRIES = 200
LATE = ("wait", "go")  # a round due while a table of the last one still plays: wait for it, or go without it
# invitations mailed in a day (tournament_invitations): by one director, and to one address from anybody
INVITES_PER_DIRECTOR_DAY = 100
INVITES_PER_ADDRESS_DAY = 3
MAX_EVERY_DAYS = 60  # written out in the refusal: keep them together
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2}))?$")
_EVERY_RE = re.compile(r"^(\d{1,3})([dw]?)$", re.I)


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
                             bye_size=t.table_size, adjustments=[(a.user_id, a.points) for a in adjustments(s, t)])


def adjustments(s: Session, t: Tournament) -> list[TournamentAdjustment]:
    """The director's adjustments of the tournament, oldest first."""
    return list(s.exec(select(TournamentAdjustment).where(TournamentAdjustment.tournament_id == t.id)
                       .order_by(TournamentAdjustment.id)))


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
           min_reliability: int | str | None = None, seed: int | None = None, now: datetime | None = None,
           start: str | None = None, every: str | None = None, dates: str | None = None,
           late: str | None = None, mailing: bool = False, named_director: str | None = None) -> Tournament:
    """A new tournament, open for entry; ``director`` runs it (and may play in it too), unless
    ``named_director`` gives the address of another account to run it (a club's organiser making a
    season for its director). ``start``,
    ``every``, ``dates`` and ``late``: its calendar (:func:`schedule`), written as the director wrote it.
    ``mailing``: the caller mails the invited addresses (mails.invitations), so the day's limits on
    invitations apply (:func:`invitation_limits`)."""
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
    if any(str(k).strip().lower() == "hints" for k in (options or {})):
        # a table is a rated game of the season; the search's hints are a practice game's
        raise UserError(_("a tournament's tables are rated games and give no hints: hints=on is for a practice "
                          "game of your own (NEW %(game)s hints=on)", game=engine.name),
                        example=example, code="bad_option")
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
    invited = _addresses(invited, example + " private invite=ann@example.org,bob@example.org")
    if mailing:
        invitation_limits(s, director, invited, now, example + " private invite=ann@example.org")
    runs_it = director
    if named_director and named_director.strip():
        runs_it = accounts.find_user(s, named_director.strip().lower()) if "@" in named_director else None
        if runs_it is None:
            raise UserError(_("the director named, %(address)s, is not the address of a pbem account (they send "
                              "REGISTER <name> first)", address=repr(named_director.strip()[:80])),
                            example=example + " director=dora@example.org", code="no_such_player")
    plan = _calendar(runs_it, start, every, dates, now, f"{example} {calendar_example(now)}")
    late = _late(late, format, f"{example} {calendar_example(now)} late=wait")
    t = Tournament(name=(name or "").strip()[:80] or engine.title, game=engine.name, options=opts, table_size=size,
                   deadline_hours=int(deadline_hours), policy=policy, bot_level=bot_level, format=format,
                   rounds=int(rounds), advance=int(advance), scoring=scoring_by, points=points or None,
                   tie_breaks=tie_breaks, director_id=runs_it.id,
                   entry_closes_at=closes if entry_closes_at is not None else
                   now + timedelta(days=int(entry_days)) if entry_days else None,
                   max_entries=int(max_entries) if max_entries else None, access=access,
                   password_hash=tables.hash_password(password) if password is not None else None,
                   invited=invited, min_rating=min_rating,
                   min_reliability=reliability.parse_minimum(min_reliability),
                   seed=secrets.randbits(62) if seed is None else seed, late=late or "wait")
    if plan is not None:
        t.dated_from, t.round_dates, t.every_days = 1, plan[0], plan[1]
    s.add(t)
    s.flush()
    refresh_next(s, t)
    return t


# ---------------------------------------------------------------- the calendar


def calendar_example(now: datetime) -> str:
    """A legal calendar for the examples of the refusals: its date is always a week ahead."""
    return f"start={(now + timedelta(days=7)):%Y-%m-%d} every=14d"


def parse_date(text: str, tz: str | None, example: str) -> datetime:
    """``2027-01-10`` (the start of that day) or ``2027-01-10T18:00``, in the zone ``tz`` (the
    director's), as a UTC time."""
    m = _DATE_RE.match((text or "").strip())
    try:
        if not m:
            raise ValueError
        y, mo, d, h, mi = (int(x) if x is not None else 0 for x in m.groups())
        local = datetime.combine(datetime(y, mo, d).date(), time(h, mi), tzinfo=i18n.zone(tz))
    except ValueError:
        raise UserError(_("%(value)s is not a date: write the year, month and day, as 2027-01-10, and a time if "
                          "you like, as 2027-01-10T18:00 (in your own time zone)", value=repr((text or "")[:40])),
                        example=example, code="bad_date") from None
    return local.astimezone(timezone.utc)


def _calendar(director: User, start: str | None, every: str | None, dates: str | None, now: datetime,
              example: str) -> tuple[list[str], int | None] | None:
    """The rounds' dates as given (``start`` and ``every``, or ``dates``), checked: (the dates in
    ISO, UTC; the days between the later rounds), or None when none is given. ``every`` alone: no
    date yet, each round ``every`` days after the one before started (the director starts the first)."""
    if start is None and dates is None:
        return None if every is None else ([], _every(every, example))
    if start is not None and dates is not None:
        raise UserError(_("give the first round's date (start=) or every round's (dates=), not both"),
                        example=example, code="bad_date")
    texts = [start] if start is not None else [d for d in dates.split(",") if d.strip()]
    if not texts:
        raise UserError(_("dates= needs at least one date"), example=example, code="bad_date")
    if len(texts) > MAX_ROUNDS:
        raise UserError(ngettext("a tournament has at most %(num)d round to date",
                                 "a tournament has at most %(num)d rounds to date", MAX_ROUNDS),
                        example=example, code="bad_date")
    when = [parse_date(x, director.timezone, example) for x in texts]
    for text, at in zip(texts, when):
        if at <= now:
            raise UserError(_("the date %(value)s has passed: a round's date is still to come", value=text.strip()),
                            example=example, code="past_date")
    if any(b <= a for a, b in zip(when, when[1:])):
        raise UserError(_("the rounds' dates are given in order, each later than the one before"),
                        example=example, code="bad_date")
    return [x.isoformat() for x in when], None if every is None else _every(every, example)


def _every(every: str, example: str) -> int:
    m = _EVERY_RE.match(every.strip())
    days = (int(m.group(1)) * (7 if m.group(2).lower() == "w" else 1)) if m else 0
    if not 1 <= days <= MAX_EVERY_DAYS:
        raise UserError(_("every is a number of days, as 14d, or of weeks, as 2w: from 1 to 60 days"),
                        example=example, code="bad_date")
    return days


def _late(late: str | None, format: str, example: str) -> str | None:
    if late is None:
        return None
    late = late.strip().lower()
    if late not in LATE:
        raise UserError(_("late is wait (a round due waits until every table of the last one has finished) or go "
                          "(it starts on its date, the late table still playing)"), example=example, code="bad_late")
    if late == "go" and format == "elimination":
        raise UserError(_("an elimination seats the next round by the last one's results, so its rounds wait for "
                          "every table: late=go is for a league or a round robin"),
                        example=example.replace("late=go", "late=wait"), code="bad_late")
    return late


def _addresses(addresses: Sequence[str], example: str) -> list[str]:
    out = set()
    for a in addresses:
        if a.strip():
            try:
                out.add(accounts.valid_email(a))
            except UserError as e:
                raise UserError(str(e), example=example, code="bad_address") from None
    if len(out) > MAX_ENTRIES:
        raise UserError(ngettext("a tournament invites at most %(num)d address", "a tournament invites at most "
                                 "%(num)d addresses", MAX_ENTRIES), example=example, code="bad_address")
    return sorted(out)


def invitation_limits(s: Session, director: User, addresses: Sequence[str], now: datetime, example: str) -> None:
    """Refuse invitations beyond the day's limits, before anything changes: a director mails at most
    INVITES_PER_DIRECTOR_DAY, an address gets at most INVITES_PER_ADDRESS_DAY (the rows that
    mails.invitations keeps of those it mailed)."""
    if not addresses:
        return
    since = now - timedelta(days=1)
    sent = s.exec(select(func.count()).select_from(TournamentInvitation).where(
        TournamentInvitation.inviter_id == director.id, TournamentInvitation.created_at >= since)).one()
    if sent + len(addresses) > INVITES_PER_DIRECTOR_DAY:
        raise UserError(ngettext("a director mails at most %(num)d tournament invitation a day; %(sent)d have gone "
                                 "in the last day: invite the others tomorrow",
                                 "a director mails at most %(num)d tournament invitations a day; %(sent)d have gone "
                                 "in the last day: invite the others tomorrow", INVITES_PER_DIRECTOR_DAY, sent=sent),
                        example=example, code="too_many_invites")
    rows = s.exec(select(TournamentInvitation.email, func.count()).where(
        TournamentInvitation.email.in_(list(addresses)), TournamentInvitation.created_at >= since)
        .group_by(TournamentInvitation.email)).all()
    full = sorted(e for e, n in rows if n >= INVITES_PER_ADDRESS_DAY)
    if full:
        raise UserError(ngettext("%(email)s has had %(num)d tournament invitation in the last day, the most pbem sends "
                                 "to one address: invite it tomorrow",
                                 "%(email)s has had %(num)d tournament invitations in the last day, the most pbem "
                                 "sends to one address: invite it tomorrow", INVITES_PER_ADDRESS_DAY, email=full[0]),
                        example=example, code="address_invited_enough")


def round_date(t: Tournament, number: int) -> datetime | None:
    """The date of round ``number``, or None when it has none (the director starts it)."""
    if t.dated_from is None or number < t.dated_from or not t.round_dates:
        return None
    k = number - t.dated_from
    if k < len(t.round_dates):
        return datetime.fromisoformat(t.round_dates[k])
    if t.every_days:
        return datetime.fromisoformat(t.round_dates[-1]) + timedelta(days=t.every_days * (k - len(t.round_dates) + 1))
    return None


def refresh_next(s: Session, t: Tournament) -> None:
    """Keep ``next_round_at`` (what the sweep reads) with the rounds and the calendar."""
    number = t.round + 1
    at = round_date(t, number) if t.status in ("entry", "running") else None
    if at is None and t.status == "running" and t.dated_from is not None and not t.round_dates and t.every_days:
        # every= alone: each round that many days after the one before it started
        at = aware(rounds_of(s, t)[-1].started_at) + timedelta(days=t.every_days)
    if at is not None and t.round and is_complete(s, t):
        at = None
    last = t.rounds if t.format == "swiss" else None  # a robin's count is its schedule's, known at its first round
    if at is not None and last is not None and number > last:
        at = None
    t.next_round_at = at
    s.add(t)
    s.flush()


def schedule(s: Session, by: User, tournament_id: int, *, start: str | None = None, every: str | None = None,
             dates: str | None = None, late: str | None = None, off: bool = False,
             now: datetime | None = None) -> Tournament:
    """The director dates the rounds still to come (the first date is the next round's), changes
    what a late table does, or (``off``) takes the dates away: the director starts the rounds again."""
    t = get(s, tournament_id, lock=True)
    now = now or utcnow()
    example = f"TOURNAMENT SCHEDULE {t.id} {calendar_example(now)} late=wait"
    _director(t, by, example)
    if t.status in ("finished", "cancelled"):
        raise UserError(_("tournament #%(id)d is over", id=t.id), example=f"TOURNAMENT STANDINGS {t.id}", code="over")
    if not off and start is None and dates is None and every is None and late is None:
        raise UserError(_("TOURNAMENT SCHEDULE needs the rounds' dates (start= and every=, or dates=), late=, or "
                          "off"), example=example, code="bad_date")
    director = s.get(User, t.director_id) or by
    plan = None if off else _calendar(director, start, every, dates, now, example)
    late = _late(late, t.format, example)
    if off:
        t.dated_from, t.round_dates, t.every_days = None, [], None
    elif plan is not None:
        t.dated_from, t.round_dates, t.every_days = t.round + 1, plan[0], plan[1]
    if late is not None:
        t.late = late
    s.add(t)
    refresh_next(s, t)
    return t


def invite(s: Session, by: User, tournament_id: int, addresses: Sequence[str],
           now: datetime | None = None) -> tuple[Tournament, list[str]]:
    """The director invites more addresses (they may enter without the password); the addresses
    newly invited are returned, to be told (mails.invitations: the day's limits apply)."""
    t = get(s, tournament_id, lock=True)
    now = now or utcnow()
    example = f"TOURNAMENT INVITE {t.id} ann@example.org,bob@example.org"
    _director(t, by, example)
    if t.status != "entry":
        raise UserError(_("entry to tournament #%(id)d is closed", id=t.id), example=f"TOURNAMENT STATUS {t.id}",
                        code="entry_closed")
    given = _addresses(addresses, example)
    if not given:
        raise UserError(_("TOURNAMENT INVITE needs one address or more, separated by commas"), example=example,
                        code="bad_address")
    new = [a for a in given if a not in t.invited]
    everyone = sorted(set(t.invited) | set(new))
    if len(everyone) > MAX_ENTRIES:
        raise UserError(ngettext("a tournament invites at most %(num)d address", "a tournament invites at most "
                                 "%(num)d addresses", MAX_ENTRIES), example=example, code="bad_address")
    invitation_limits(s, by, new, now, example)
    t.invited = everyone
    s.add(t)
    s.flush()
    return t, new


# ---------------------------------------------------------------- the director's hand

#: the most one adjustment may give or take, in points
MOST_ADJUSTED = 100


def _entrant(s: Session, t: Tournament, address: str, example: str) -> tuple[User, TournamentEntry | None]:
    """The account of ``address`` and its entry in ``t`` (None: not entered), or the refusal."""
    user = accounts.find_user(s, (address or "").strip().lower()) if "@" in (address or "") else None
    if user is None:
        raise UserError(_("%(address)s is not the address of a pbem account: write the address its player "
                          "writes from (they send REGISTER <name> first if they have none)",
                          address=repr((address or "")[:80])), example=example, code="no_such_player")
    return user, next((e for e in entries(s, t) if e.user_id == user.id), None)


def adjust(s: Session, by: User, tournament_id: int, address: str, points: str, reason: str) -> TournamentAdjustment:
    """The director adds (or takes away) ``points`` to an entrant's standing, for ``reason``: a record
    of its own, shown with the standings, never an edit of them."""
    t = get(s, tournament_id, lock=True)
    example = f"TOURNAMENT ADJUST {t.id} ann@example.org -1 late in round 2 twice"
    _director(t, by, example)
    if t.status not in ("running", "finished"):
        raise UserError(_("tournament #%(id)d has no standings to adjust yet: its first round has not started",
                          id=t.id), example=f"TOURNAMENT STATUS {t.id}", code="not_started")
    user, entry = _entrant(s, t, address, example)
    if entry is None:
        raise UserError(_("%(name)s has not entered tournament #%(id)d", name=user.name, id=t.id), example=example,
                        code="not_entered")
    text = (points or "").strip().replace("\u2212", "-")
    if not re.fullmatch(r"[+-]?\d{1,3}(?:[.,]\d{1,2})?", text) or not 0 < abs(float(text.replace(",", "."))) \
            <= MOST_ADJUSTED:
        raise UserError(_("an adjustment is a number of points, not zero, from -%(most)d to %(most)d, with at most "
                          "two decimals (not %(got)s)", most=MOST_ADJUSTED, got=repr(text[:20])), example=example,
                        code="bad_points")
    reason = " ".join((reason or "").split())
    if len(reason) < 3:
        raise UserError(_("say why, after the points: the players read the reason with the standings"),
                        example=example, code="no_reason")
    row = TournamentAdjustment(tournament_id=t.id, user_id=user.id, points=float(text.replace(",", ".")),
                               reason=reason[:200], by_id=by.id)
    s.add(row)
    s.flush()
    return row


def seat(s: Session, by: User, tournament_id: int, address: str) -> tuple[Tournament, User]:
    """The director enters a player whatever the entry conditions (a late entry, a substitute for one
    who left): seated from the next round on, with no points for the rounds already played. A round
    robin's schedule and an elimination's draw are fixed once they have begun, so those take nobody
    after their first round."""
    t = get(s, tournament_id, lock=True)
    example = f"TOURNAMENT SEAT {t.id} ann@example.org"
    _director(t, by, example)
    if t.status not in ("entry", "running"):
        raise UserError(_("tournament #%(id)d is over", id=t.id), example=f"TOURNAMENT STANDINGS {t.id}",
                        code="over")
    if t.status == "running" and t.format != "swiss":
        raise UserError(_("a round robin or an elimination seats nobody new once it has begun: its schedule is "
                          "fixed"), example=f"TOURNAMENT STATUS {t.id}", code="schedule_fixed")
    if t.status == "running" and t.round >= t.rounds:
        raise UserError(_("tournament #%(id)d is playing its last round: there is no round left to seat anyone "
                          "at", id=t.id), example=f"TOURNAMENT STATUS {t.id}", code="last_round")
    user, entry = _entrant(s, t, address, example)
    if entry is not None:
        raise UserError(_("%(name)s has already entered tournament #%(id)d", name=user.name, id=t.id)
                        if entry.left_round is None else
                        _("%(name)s has left tournament #%(id)d, and one who leaves is out of its later rounds",
                          name=user.name, id=t.id), example=f"TOURNAMENT STANDINGS {t.id}", code="already_entered")
    s.add(TournamentEntry(tournament_id=t.id, user_id=user.id))
    s.flush()
    return t, user


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


def unfinished(s: Session, t: Tournament) -> list[int]:
    """The games of the tournament's tables still being played, whatever their round (with
    ``late=go`` a table of an earlier round may still play)."""
    return [row.game_id for row in tables_of(s, t)
            if (g := s.get(Game, row.game_id)) is not None and g.status in ("open", "running")]


def _between_rounds(s: Session, t: Tournament, late_ok: bool = False, starting: bool = False) -> None:
    """Refuse what the director may do only between rounds (start the next, close): the tournament
    is over, or a table is still being played (unless ``late_ok``: a round may start without it;
    a round ``starting`` held back so is shown how to let it go, where the format allows it)."""
    if t.status in ("finished", "cancelled"):
        raise UserError(_("tournament #%(id)d is over", id=t.id), example=f"TOURNAMENT STANDINGS {t.id}", code="over")
    waiting = [] if late_ok else unfinished(s, t)
    if waiting:
        raise UserError(ngettext("round %(round)d is still being played: game #%(games)s has not finished",
                                 "round %(round)d is still being played: games #%(games)s have not finished",
                                 len(waiting), round=t.round, games=", #".join(str(g) for g in waiting)),
                        example=f"TOURNAMENT SCHEDULE {t.id} late=go" if starting and t.format != "elimination"
                        else f"TOURNAMENT STATUS {t.id}", code="round_running")


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


def start_round(s: Session, by: User | None, tournament_id: int,
                now: datetime | None = None) -> tuple[Tournament, TournamentRound, list[Game]]:
    """The director (``by``), or the calendar (None: the sweep, on the round's date), starts the
    next round: every table a new game, started at once (its players get their boards), the byes
    recorded. A table still playing holds it back unless the tournament says ``late=go``: then
    its players are seated too, ranked with the points they have so far, and their late game
    counts when it ends (the standings are computed from the games)."""
    t = get(s, tournament_id, lock=True)
    if by is not None:
        _director(t, by, f"TOURNAMENT STATUS {t.id}")
    _between_rounds(s, t, late_ok=t.late == "go", starting=True)
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
    row = TournamentRound(tournament_id=t.id, number=number, byes=list(plan.byes), started_at=now or utcnow())
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
    refresh_next(s, t)
    return t, row, made


def close(s: Session, by: User | None, tournament_id: int, now: datetime | None = None) -> Tournament:
    """The director (or the calendar, ``by`` None, once the last round has finished) closes the
    tournament: before its first round it is cancelled; after, once every table has finished, it
    is over and its standings final."""
    t = get(s, tournament_id, lock=True)
    if by is not None:
        _director(t, by, f"TOURNAMENT STANDINGS {t.id}")
    _between_rounds(s, t)
    t.status = "cancelled" if t.round == 0 else "finished"
    t.finished_at = now or utcnow()
    t.next_round_at = None
    s.add(t)
    s.flush()
    return t


def list_shown(s: Session, user: User | None, limit: int = 50) -> list[Tournament]:
    """The tournaments ``user`` may see, those open for entry and running first, newest first."""
    q = select(Tournament).order_by(Tournament.id.desc()).limit(limit * 4)
    rows = [t for t in s.exec(q) if may_see(s, t, user)]
    rank = {"entry": 0, "running": 1, "finished": 2, "cancelled": 3}
    return sorted(rows, key=lambda t: (rank.get(t.status, 9), -t.id))[:limit]
