"""A season run by its calendar (the periodic sweep, services/upkeep/sweep.py): the rounds whose
date has come are started, and a tournament on a calendar whose last round has finished is
closed, each with its players' mails (mails.py).

Each tournament is done in its own transaction, its row locked first (season.get(lock=True), as
the director's START locks it): two sweeps at once start a round once, the second finding it
started (``next_round_at`` moved on) when it gets the lock."""
from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session, or_, select

from pbem.store.models import Tournament

from ...core.errors import UserError
from . import mails, season

log = logging.getLogger("pbem.tournaments")
BATCH = 100


def make(s: Session, maker, game_name: str, **options) -> Tournament:
    """A tournament made (season.create, its invitations within the day's limits), with its mails:
    each invited address told how to enter, and the account named to direct it (``named_director``)
    told what is now theirs to do. The mail's TOURNAMENT NEW and the page's form both make one here."""
    t = season.create(s, maker, game_name, mailing=True, **options)
    if t.invited:
        mails.invitations(s, t, t.invited, maker)
    if t.director_id != maker.id:
        mails.named_director(s, t, maker)
    return t


def seat(s: Session, by, tournament_id: int, address: str):
    """A player entered by the director (season.seat), and told so. Returns (tournament, player)."""
    t, player = season.seat(s, by, tournament_id, address)
    mails.seated(s, t, player, by)
    return t, player


def adjust(s: Session, by, tournament_id: int, address: str, points: str, reason: str):
    """A player's points adjusted by the director (season.adjust), and the player told why.
    Returns (tournament, adjustment)."""
    row = season.adjust(s, by, tournament_id, address, points, reason)
    t = season.get(s, tournament_id)
    mails.adjusted(s, t, row, by)
    return t, row


def start(s: Session, by, tournament_id: int, now: datetime | None = None):
    """A round started -- by its director (TOURNAMENT START, the page's button; ``by``) or by the
    calendar (``by`` None) -- with the "your next table" mail to each player it seats: whoever starts
    it, the players hear of it the same way. Returns season.start_round's (tournament, round, games)."""
    t, row, made = season.start_round(s, by, tournament_id, now=now)
    mails.next_tables(s, t, row.number)
    return t, row, made


def close(s: Session, by, tournament_id: int, now: datetime | None = None) -> Tournament:
    """The tournament closed (its director, or the calendar: ``by`` None), and, when it had begun, its
    final standings mailed to each entrant; one cancelled before its first round mails nothing more."""
    t = season.close(s, by, tournament_id, now=now)
    if t.status == "finished":
        mails.final_standings(s, t)
    return t


def due(s: Session, now: datetime) -> list[int]:
    """The tournaments the sweep has something to do for: a round's date come (by the index of
    ``next_round_at``), or a tournament on a calendar playing its last round (it closes when that
    ends)."""
    q = select(Tournament.id).where(Tournament.status.in_(("entry", "running")), or_(
        Tournament.next_round_at <= now,
        (Tournament.status == "running") & Tournament.dated_from.is_not(None) & Tournament.next_round_at.is_(None)))
    return list(s.exec(q.order_by(Tournament.id).limit(BATCH)))


def run_one(s: Session, tournament_id: int, now: datetime) -> str | None:
    """Do what is due for one tournament: "started" (a round), "closed", or None (nothing yet: the
    date has not come, a table holds the round back under ``late=wait``, too few players)."""
    t = season.get(s, tournament_id, lock=True)
    if t.status not in ("entry", "running"):
        return None
    if t.next_round_at is None:
        if t.status != "running" or t.dated_from is None or not season.is_complete(s, t) or season.unfinished(s, t):
            return None
        close(s, None, t.id, now=now)
        return "closed"
    if t.next_round_at > now:
        return None  # another sweep started it a moment ago
    if t.late != "go" and season.unfinished(s, t):
        return None  # it starts on the first sweep after the last table has finished
    try:
        start(s, None, t.id, now=now)
    except UserError as e:  # too few players yet, or no seating: it waits, and the director sees why on STATUS
        log.info("tournament #%d: round %d not started: %s", t.id, t.round + 1, e)
        return None
    return "started"


def run(now: datetime) -> dict:
    """Every tournament due, each in its own transaction (one broken tournament never blocks the
    others)."""
    from pbem.store.db import unit_of_work

    total = {"rounds_started": 0, "tournaments_closed": 0}
    with unit_of_work() as s:
        ids = due(s, now)
    for tid in ids:
        try:
            with unit_of_work() as s:
                done = run_one(s, tid, now)
        except Exception:
            log.exception("tournament #%d: the sweep failed", tid)
            continue
        if done == "started":
            total["rounds_started"] += 1
        elif done == "closed":
            total["tournaments_closed"] += 1
    return total
